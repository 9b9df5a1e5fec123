#!/usr/bin/env bash
# clang-format (check only) and clang-tidy over the C++ sources, with the repo's
# .clang-format and .clang-tidy. Needs build/compile_commands.json (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${KVCALC_BUILD_DIR:-build}"
mapfile -t sources < <(git ls-files 'core/*.cpp' 'core/*.hpp' 'core/*/*.cpp' 'core/*/*.hpp' 'cli/*.cpp' 'cli/*.hpp' 'wasm/*.cpp' 'tests/core/*.cpp' 'tests/core/*.hpp' 'tests/fuzz/*.cpp' 'bench/*.cpp')
clang-format --dry-run --Werror "${sources[@]}"
echo "lint: clang-format: ${#sources[@]} files formatted"
mapfile -t tidy < <(git ls-files 'core/*.cpp' 'core/*/*.cpp' 'cli/*.cpp')
printf '%s\n' "${tidy[@]}" | xargs -P "${KVCALC_JOBS:-2}" -n 2 clang-tidy -p "$build" --quiet 2>&1 |
  { grep -v -E "^[0-9]+ warnings? (and [0-9]+ errors? )?generated" || true; } | tee "$build/clang-tidy.log"
if grep -q -E "(warning|error):" "$build/clang-tidy.log"; then
  echo "lint: clang-tidy found problems"
  exit 1
fi
echo "lint: clang-tidy: ${#tidy[@]} files clean"
