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
# clang-tidy reads every source and header it checks, its settings and their compile commands:
# when none of them changed since its last clean run, that run's answer stands (a second
# `npm test` on a built tree skips the minute it takes).
key=$( { clang-tidy --version; cat .clang-tidy; git ls-files -z core cli | xargs -0 cat;
         node -e 'const c = require(process.argv[1]); for (const e of c) if (!e.file.includes("/generated/")) console.log(e.file, e.command)' \
           "$PWD/$build/compile_commands.json"; } | sha256sum | cut -c1-16)
if [ "$(cat "$build/clang-tidy.clean" 2>/dev/null)" = "$key" ]; then
  echo "lint: clang-tidy: ${#tidy[@]} files clean (unchanged since its last run, $key)"
  exit 0
fi
rm -f "$build/clang-tidy.clean"
# The build's compile commands without its precompiled header (CMakeLists.txt): clang cannot
# read gcc's .gch, and each source is checked as it is written, with its own includes.
mkdir -p "$build/tidy"
node -e 'const fs = require("fs"); const c = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  for (const e of c) e.command = e.command.replace(/ -include \S+cmake_pch\.hxx/g, "").replace(/ -Winvalid-pch/g, "");
  fs.writeFileSync(process.argv[2], JSON.stringify(c, null, 1));' "$build/compile_commands.json" "$build/tidy/compile_commands.json"
printf '%s\n' "${tidy[@]}" | xargs -P "${KVCALC_JOBS:-2}" -n 2 clang-tidy -p "$build/tidy" --quiet 2>&1 |
  { grep -v -E "^[0-9]+ warnings? (and [0-9]+ errors? )?generated" || true; } | tee "$build/clang-tidy.log"
if grep -q -E "(warning|error):" "$build/clang-tidy.log"; then
  echo "lint: clang-tidy found problems"
  exit 1
fi
echo "$key" >"$build/clang-tidy.clean"
echo "lint: clang-tidy: ${#tidy[@]} files clean"
