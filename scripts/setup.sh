#!/usr/bin/env bash
# Installs what the build and the tests need and is missing: Debian packages (as root, or
# through sudo) and the npm dev dependencies. Safe to run again; does nothing when all is there.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v em++ >/dev/null || need+=(emscripten)
[ -f /usr/include/catch2/catch.hpp ] || need+=(catch2)
[ -f /usr/include/nlohmann/json.hpp ] || need+=(nlohmann-json3-dev)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v clang++ >/dev/null || need+=(clang)
ls /usr/lib/llvm-14/lib/clang/14*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
# Compiles that a run on the same machine already made are reused (CMakeLists.txt).
command -v ccache >/dev/null || need+=(ccache)
command -v python3 >/dev/null || need+=(python3)   # scripts/phase.py (emscripten needs it too)
command -v mkdocs >/dev/null || need+=(mkdocs)   # the MkDocs example, as Debian 12 ships it
# The docs platforms' recipes (examples/sphinx-furo, mkdocs-material, hugo-site), as Debian 12 ships them.
command -v sphinx-build >/dev/null || need+=(python3-sphinx)
[ -d /usr/lib/python3/dist-packages/furo ] || need+=(furo)
[ -d /usr/share/mkdocs/themes/material ] || need+=(mkdocs-material)
command -v hugo >/dev/null || need+=(hugo)

if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${need[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# npm dev dependencies (the shipped files have none).
if [ ! -d node_modules ] || [ package.json -nt node_modules/.package-lock.json ] ||
   { [ -f package-lock.json ] && [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  echo "setup: installing npm dev dependencies"
  npm install --no-audit --no-fund --loglevel=error
fi

# The closure compiler for the wasm module's JS glue, pinned (TOOLCHAIN.md section 4: only
# 20220202.0.0 works with Emscripten 3.1.6). A build tool, not a package dependency.
closure=build-tools/closure
if [ ! -x "$closure/node_modules/.bin/google-closure-compiler" ]; then
  echo "setup: installing google-closure-compiler@20220202.0.0 into $closure"
  npm install --prefix "$closure" --no-save --no-audit --no-fund --loglevel=error \
    google-closure-compiler@20220202.0.0 ||
    echo "setup: no closure compiler; the wasm glue will be built without --closure (larger)"
fi
