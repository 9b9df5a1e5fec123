#!/usr/bin/env bash
# Every test layer: native Catch2, the same Catch2 suite as wasm under Node, then the
# node:test suites (CLI, JS API, bad inputs) and the browser suites in headless Chromium,
# with the lint and the fuzz smoke run beside them. Runs every layer even when one fails, and
# fails when any did.
#
# Two cores, kept busy: the build and the test files are the critical path; the lint and the
# fuzz smoke (which need only the compile commands, and a build of their own) start at once
# in the background at a lower priority, so they take the CPU the build's single-threaded
# links and the browser tests' waits leave idle, and their output is printed at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1

native="${KVCALC_BUILD_DIR:-build}"
logs="$native/test-logs"
# The compile commands the lint reads (scripts/build.sh configures the same way).
cmake -S . -B "$native" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null || exit 1
rm -rf "$logs" && mkdir -p "$logs"

checks() {  # name command...: run niced into a log, its exit status beside it
  local name="$1"; shift
  nice -n 15 "$@" >"$logs/$name.log" 2>&1
  echo $? >"$logs/$name.status"
}
( checks lint bash scripts/lint.sh
  [ -x scripts/fuzz.sh ] && [ -f tests/fuzz/fuzz_config.cpp ] && KVCALC_JOBS=1 checks fuzz bash scripts/fuzz.sh 30
) &
checks_pid=$!

failed=()
run() {
  local name="$1"; shift
  echo "=== $name"
  if "$@"; then echo "=== $name: ok"; else echo "=== $name: FAILED"; failed+=("$name"); fi
}
report() {  # name log-name: print a background layer's log and outcome
  echo "=== $1"
  cat "$logs/$2.log"
  if [ "$(cat "$logs/$2.status" 2>/dev/null)" = 0 ]; then echo "=== $1: ok"; else echo "=== $1: FAILED"; failed+=("$1"); fi
}

if bash scripts/build.sh; then
  run "native Catch2" ctest --test-dir "$native" --output-on-failure
  run "wasm Catch2 (node)" ctest --test-dir "${KVCALC_WASM_BUILD_DIR:-build-wasm}" --output-on-failure
  suites=()
  for d in tests/cli tests/js tests/badinput tests/browser; do
    [ -d "$d" ] && ls "$d"/*.test.mjs >/dev/null 2>&1 && suites+=("$d"/*.test.mjs)
  done
  if [ ${#suites[@]} -gt 0 ]; then
    # Two test files at a time: each has its own servers (free ports), browser profile and
    # scratch folders, and packs one at a time (tests/packed.mjs). A test that waits for
    # something that never comes fails after 2 minutes instead of hanging the run (the
    # slowest test takes about 20 s).
    run "node:test suites" node --test --test-concurrency="${KVCALC_TEST_CONCURRENCY:-2}" --test-timeout=120000 "${suites[@]}"
  fi
else
  echo "test: build failed"
  failed+=("build")
fi

wait "$checks_pid"
report "lint (clang-format, clang-tidy)" lint
[ -f "$logs/fuzz.log" ] && report "fuzz smoke (30 s)" fuzz

if [ ${#failed[@]} -gt 0 ]; then
  echo "test: FAILED layers: ${failed[*]}"
  exit 1
fi
echo "test: all layers passed"
