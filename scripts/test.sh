#!/usr/bin/env bash
# Every test layer: native Catch2, the same Catch2 suite as wasm under Node, then the
# node:test suites (CLI, JS API, bad inputs) and the browser suites in headless Chromium.
# Runs every layer even when one fails, and fails when any did.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
bash scripts/build.sh || { echo "test: build failed"; exit 1; }

failed=()
run() {
  local name="$1"; shift
  echo "=== $name"
  if "$@"; then echo "=== $name: ok"; else echo "=== $name: FAILED"; failed+=("$name"); fi
}
run "native Catch2" ctest --test-dir "${KVCALC_BUILD_DIR:-build}" --output-on-failure
run "wasm Catch2 (node)" ctest --test-dir "${KVCALC_WASM_BUILD_DIR:-build-wasm}" --output-on-failure
run "lint (clang-format, clang-tidy)" bash scripts/lint.sh
[ -x scripts/fuzz.sh ] && [ -f tests/fuzz/fuzz_config.cpp ] && run "fuzz smoke (30 s)" bash scripts/fuzz.sh 30

# The Docusaurus and Astro recipes' suite runs on its own: a Docusaurus build with a cold
# webpack cache (after any change to the package) takes 1.5 to 3 minutes on 2 cores.
slow=tests/browser/examples-js-docs.test.mjs
suites=()
for d in tests/cli tests/js tests/badinput tests/browser; do
  [ -d "$d" ] && ls "$d"/*.test.mjs >/dev/null 2>&1 || continue
  for f in "$d"/*.test.mjs; do [ "$f" = "$slow" ] || suites+=("$f"); done
done
if [ ${#suites[@]} -gt 0 ]; then
  # A test that waits for something that never comes fails after 2 minutes instead of
  # hanging the run (the slowest test takes about 20 s).
  run "node:test suites" node --test --test-concurrency=1 --test-timeout=120000 "${suites[@]}"
fi
[ -f "$slow" ] && run "node:test Docusaurus and Astro recipes" node --test --test-timeout=600000 "$slow"

if [ ${#failed[@]} -gt 0 ]; then
  echo "test: FAILED layers: ${failed[*]}"
  exit 1
fi
echo "test: all layers passed"
