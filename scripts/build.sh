#!/usr/bin/env bash
# Builds everything: the native core, CLI and tests (build/), the wasm module and its
# Catch2 tests (build-wasm/), the shipped package (dist/) and the site (site-build/).
# `bash scripts/build.sh STEP...` builds only those steps (native, wasm, dist, site), in the
# order given; scripts/test.sh runs them one at a time to time each.
# Both compiles go through ccache when it is installed (CMakeLists.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${KVCALC_JOBS:-2}"
native="${KVCALC_BUILD_DIR:-build}"
wasm="${KVCALC_WASM_BUILD_DIR:-build-wasm}"

build_native() {
  cmake -S . -B "$native" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null
  cmake --build "$native" -j"$jobs"
}
build_wasm() {
  # emcmake re-injects its Node flag unless the emulator is given on every call.
  emcmake cmake -S . -B "$wasm" -DCMAKE_BUILD_TYPE=MinSizeRel -DBUILD_TESTING=ON \
    -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
  cmake --build "$wasm" -j"$jobs"
}
build_dist() { node scripts/build-dist.mjs; }
build_site() { node site/build.mjs; }

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(native wasm dist site)
for step in "${steps[@]}"; do
  case "$step" in
    native|wasm|dist|site) "build_$step" ;;
    *) echo "build.sh: no step '$step' (native, wasm, dist, site)" >&2; exit 2 ;;
  esac
done
