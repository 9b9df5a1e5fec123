#!/usr/bin/env bash
# Builds everything: the native core, CLI and tests (build/), the wasm module and its
# Catch2 tests (build-wasm/), the shipped package (dist/) and the site (site-build/).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${KVCALC_JOBS:-2}"
native="${KVCALC_BUILD_DIR:-build}"
wasm="${KVCALC_WASM_BUILD_DIR:-build-wasm}"

cmake -S . -B "$native" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null
cmake --build "$native" -j"$jobs"

# emcmake re-injects its Node flag unless the emulator is given on every call.
emcmake cmake -S . -B "$wasm" -DCMAKE_BUILD_TYPE=MinSizeRel -DBUILD_TESTING=ON \
  -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
cmake --build "$wasm" -j"$jobs"

[ -f scripts/build-dist.mjs ] && node scripts/build-dist.mjs
[ -f site/build.mjs ] && node site/build.mjs
exit 0
