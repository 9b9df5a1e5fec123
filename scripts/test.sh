#!/usr/bin/env bash
# Every test layer: native Catch2, the same Catch2 suite as wasm under Node, the node:test
# suites (CLI, JS API, bad inputs, the browser suites in headless Chromium, the examples built
# from the packed package), the lint and the fuzz smoke. Runs every layer even when one fails,
# and fails when any did.
#
# Two cores, kept busy. The build and then the test files are the critical path. Beside them:
# the examples' npm installs (needed only when the test files start), and, at a lower priority
# so that they take the CPU the build's single-threaded links and the browser tests' waits leave
# idle, the lint (needs only the compile commands) and the fuzz smoke (a build of its own).
# Their output is printed when they are waited for.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1

native="${KVCALC_BUILD_DIR:-build}"
logs="$native/test-logs"
# The compile commands the lint reads (scripts/build.sh configures the same way).
cmake -S . -B "$native" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null || exit 1
rm -rf "$logs" && mkdir -p "$logs"

beside() {  # name command...: run into a log, its exit status beside it
  local name="$1"; shift
  "$@" >"$logs/$name.log" 2>&1
  echo $? >"$logs/$name.status"
  echo "$SECONDS" >"$logs/$name.seconds"
}
# The examples' installs are needed when the test files start: at the build's priority.
beside examples bash scripts/setup-examples.sh &
examples_pid=$!
beside lint nice -n 15 bash scripts/lint.sh &
lint_pid=$!
KVCALC_JOBS=1 beside fuzz nice -n 15 bash scripts/fuzz.sh 30 &
fuzz_pid=$!

failed=()
run() {  # name command...: the layer's outcome, and the seconds since npm test started
  local name="$1"; shift
  echo "=== $name"
  if "$@"; then echo "=== $name: ok (at ${SECONDS} s)"; else echo "=== $name: FAILED (at ${SECONDS} s)"; failed+=("$name"); fi
}
report() {  # name log-name: print a layer's log from beside() and its outcome
  echo "=== $1"
  cat "$logs/$2.log"
  local took; took=$(cat "$logs/$2.seconds" 2>/dev/null)
  if [ "$(cat "$logs/$2.status" 2>/dev/null)" = 0 ]; then echo "=== $1: ok (done at ${took} s)"; else echo "=== $1: FAILED (at ${took} s)"; failed+=("$1"); fi
}

if bash scripts/build.sh; then
  echo "=== build: ok (at ${SECONDS} s)"
  run "native Catch2" ctest --test-dir "$native" --output-on-failure
  run "wasm Catch2 (node)" ctest --test-dir "${KVCALC_WASM_BUILD_DIR:-build-wasm}" --output-on-failure
  wait "$examples_pid"
  report "the examples' npm dev dependencies" examples
  # The longest file first (the Docusaurus and Astro recipes: a cold webpack build after any
  # change to the package takes 1.5 to 3 minutes), so the others run beside it.
  suites=(tests/browser/examples-js-docs.test.mjs)
  for f in tests/cli/*.test.mjs tests/js/*.test.mjs tests/badinput/*.test.mjs tests/browser/*.test.mjs; do
    [ "$f" = "${suites[0]}" ] || suites+=("$f")
  done
  # Two files at a time: each has its own servers (free ports), browser profile and scratch
  # folders, and they pack one at a time (tests/packed.mjs). A file that waits for something
  # that never comes fails after 10 minutes instead of hanging the run (node --test's timeout
  # bounds a whole file; the longest takes about 4 minutes cold), and the whole layer after 30
  # minutes (a file that timed out can be left waiting on its browser).
  # TAP, then the time each file took (tests/time-by-file.mjs).
  run "node:test suites" timeout --kill-after=30 1800 node --test --test-concurrency="${KVCALC_TEST_CONCURRENCY:-2}" --test-timeout=600000 \
    --test-reporter=tap --test-reporter-destination=stdout \
    --test-reporter=./tests/time-by-file.mjs --test-reporter-destination=stdout "${suites[@]}"
else
  echo "test: build failed"
  failed+=("build")
  wait "$examples_pid"
fi

wait "$lint_pid" "$fuzz_pid"
report "lint (clang-format, clang-tidy)" lint
report "fuzz smoke (30 s)" fuzz

if [ ${#failed[@]} -gt 0 ]; then
  echo "test: FAILED layers: ${failed[*]}"
  exit 1
fi
echo "test: all layers passed in ${SECONDS} s"
