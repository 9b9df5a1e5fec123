#!/usr/bin/env bash
# npm run bench: installs what is missing, builds, and prints every benchmark's figures
# (also written to build/bench.json). Benchmarks report; they assert nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh >/dev/null
node bench/run.mjs
