#!/usr/bin/env bash
# Every test layer: native Catch2, the same Catch2 suite as wasm under Node, the node:test
# suites (CLI, JS API, bad inputs, the browser suites in headless Chromium, the examples built
# from the packed package), the lint and the fuzz smoke. Runs every layer even when one fails,
# and fails when any did. Ends with a table of the phases: the wall time and the CPU time of
# each (scripts/phase.py: user + sys of every process it started, Chromium's renderers too).
#
# Two cores, kept busy. The build and then the test files are the critical path. Beside them:
# the examples' npm install (needed only when the test files start), and, at a lower priority
# so that they take the CPU the build's single-threaded links and the browser tests' waits leave
# idle, the lint (needs only the compile commands) and the fuzz smoke (a build of its own).
# Their output is printed when they are waited for.
#
# What a run that follows another on the same machine does not do again, each keyed by the
# content of its inputs in the user's cache folder (scripts/cache-dir.sh), outside the clone:
# compiles (ccache, CMakeLists.txt), clang-tidy's clean verdicts (scripts/tidy-cached.mjs),
# the Docusaurus recipe's webpack cache (tests/browser/examples-support.mjs keyedCache). The
# package is packed once (KVCALC_TARBALL) and installed once into the examples' workspace.
set -uo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s.%N)
native="${KVCALC_BUILD_DIR:-build}"
logs="$native/test-logs"
run_dir="$native/test-run"
rm -rf "$logs" "$run_dir" && mkdir -p "$logs" "$run_dir"
phases="$logs/phases.tsv"

phase() {  # name command...: one phase, its costs a line of the table
  python3 scripts/phase.py "$phases" "$started" "$@"
}
phase setup bash scripts/setup.sh || exit 1

# The compile commands the lint reads (scripts/build.sh configures the same way).
phase configure cmake -S . -B "$native" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null || exit 1

beside() {  # name command...: a phase run into a log, its exit status beside it
  local name="$1"; shift
  phase "$name" "$@" >"$logs/$name.log" 2>&1
  echo $? >"$logs/$name.status"
}
# The examples' install is needed when the test files start: at the build's priority.
beside examples-install bash scripts/setup-examples.sh &
examples_pid=$!
beside lint nice -n 15 bash scripts/lint.sh &
lint_pid=$!
KVCALC_JOBS=1 beside fuzz nice -n 15 bash scripts/fuzz.sh 30 &
fuzz_pid=$!

failed=()
run() {  # name command...: a phase and its outcome, and the seconds since npm test started
  local name="$1"; shift
  echo "=== $name"
  if phase "$name" "$@"; then echo "=== $name: ok (at ${SECONDS} s)"; else echo "=== $name: FAILED (at ${SECONDS} s)"; failed+=("$name"); fi
}
report() {  # title name: print a phase's log from beside() and its outcome
  echo "=== $1"
  cat "$logs/$2.log"
  if [ "$(cat "$logs/$2.status" 2>/dev/null)" = 0 ]; then echo "=== $1: ok"; else echo "=== $1: FAILED"; failed+=("$1"); fi
}

built=yes
for step in native wasm dist site; do
  if ! phase "build: $step" bash scripts/build.sh "$step"; then
    echo "test: build failed ($step)"
    failed+=("build: $step")
    built=no
    break
  fi
done
if [ "$built" = yes ]; then
  echo "=== build: ok (at ${SECONDS} s)"
  # The package packed once for every test that installs it (tests/packed.mjs runTarball).
  if phase pack npm pack --silent --pack-destination "$run_dir" >/dev/null; then
    KVCALC_TARBALL="$(ls "$PWD/$run_dir"/kvcalc-*.tgz)"
    export KVCALC_TARBALL
  else
    failed+=("pack")
  fi
  run "native Catch2" ctest --test-dir "$native" --output-on-failure
  run "wasm Catch2 (node)" ctest --test-dir "${KVCALC_WASM_BUILD_DIR:-build-wasm}" --output-on-failure
  wait "$examples_pid"
  report "the examples' npm dev dependencies" examples-install
  # The tarball installed once into the examples' workspace, where the recipes with npm tools
  # find it (tests/browser/examples-support.mjs installIntoExamples checks it is this one).
  [ -n "${KVCALC_TARBALL:-}" ] && run "the tarball into the examples' workspace" npm install --prefix examples --no-save \
    --offline --no-audit --no-fund --loglevel=error "$KVCALC_TARBALL"
  # The longest file first (the Docusaurus and Astro recipes: a cold webpack build after any
  # change to the package takes 1.5 to 3 minutes), so the others run beside it.
  suites=(tests/browser/examples-js-docs.test.mjs)
  for f in tests/cli/*.test.mjs tests/js/*.test.mjs tests/badinput/*.test.mjs tests/browser/*.test.mjs; do
    [ "$f" = "${suites[0]}" ] || suites+=("$f")
  done
  # Two files at a time: each has its own servers (free ports), browser and scratch folders,
  # and one npm at a time touches the repository's README or the examples' workspace
  # (tests/packed.mjs). A file that waits for something that never comes fails after 10
  # minutes instead of hanging the run (node --test's timeout bounds a whole file; the longest
  # takes about 4 minutes cold), and the whole layer after 30 minutes (a file that timed out
  # can be left waiting on its browser).
  # TAP, then the time each file took (tests/time-by-file.mjs).
  run "node:test suites" timeout --kill-after=30 1800 node --test --test-concurrency="${KVCALC_TEST_CONCURRENCY:-2}" --test-timeout=600000 \
    --test-reporter=tap --test-reporter-destination=stdout \
    --test-reporter=./tests/time-by-file.mjs --test-reporter-destination=stdout "${suites[@]}"
else
  wait "$examples_pid"
fi

wait "$lint_pid" "$fuzz_pid"
report "lint (clang-format, clang-tidy)" lint
report "fuzz smoke (30 s)" fuzz

# The phases: wall and CPU seconds (user + sys), and when each ended; the CPU of the whole run.
awk -F'\t' -v wall="$SECONDS" '
  BEGIN { printf "# phases of npm test: wall s, CPU s (user + sys of every process of the phase), ended at s\n" }
  { cpu = $3 + $4; total += cpu; user += $3; sys += $4
    printf "# %-42s %7.1f %8.1f %7d%s\n", $1, $2, cpu, $6, ($5 == 0 ? "" : "  (failed)") }
  END { printf "# %-42s %7d %8.1f   (user %.1f, sys %.1f)\n", "the whole run", wall, total, user, sys }' "$phases"

if [ ${#failed[@]} -gt 0 ]; then
  echo "test: FAILED layers: ${failed[*]}"
  exit 1
fi
echo "test: all layers passed in ${SECONDS} s"
