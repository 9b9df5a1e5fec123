#!/usr/bin/env bash
# Installs what is missing, builds, and serves the documentation site on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
exec node scripts/serve.mjs "${PORT:-8080}"
