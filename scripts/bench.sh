#!/usr/bin/env bash
# npm run bench: installs what is missing, builds, and prints every benchmark's figures
# (also written to build/bench.json). Benchmarks report; they assert nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh >/dev/null
cmake --build "${KVCALC_BUILD_DIR:-build}" --target sweep_bench -j"${KVCALC_JOBS:-2}" >/dev/null
cmake --build "${KVCALC_WASM_BUILD_DIR:-build-wasm}" --target sweep_bench kvcalc_wasm_names -j"${KVCALC_JOBS:-2}" >/dev/null
node bench/run.mjs
