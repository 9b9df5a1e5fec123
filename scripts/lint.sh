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
# The build's compile commands without its precompiled header (CMakeLists.txt): clang cannot
# read gcc's .gch, and each source is checked as it is written, with its own includes.
mkdir -p "$build/tidy"
node -e 'const fs = require("fs"); const c = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  for (const e of c) e.command = e.command.replace(/ -include \S+cmake_pch\.hxx/g, "").replace(/ -Winvalid-pch/g, "");
  fs.writeFileSync(process.argv[2], JSON.stringify(c, null, 1));' "$build/compile_commands.json" "$build/tidy/compile_commands.json"
# Each file's clean verdict is kept under the hash of everything clang-tidy reads for it, in the
# user's cache: a file is checked again only when one of its inputs changed (scripts/tidy-cached.mjs).
KVCALC_CACHE_DIR="$(bash scripts/cache-dir.sh)" node scripts/tidy-cached.mjs "$build/tidy" "${KVCALC_JOBS:-2}" "${tidy[@]}"
