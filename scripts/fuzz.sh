#!/usr/bin/env bash
# Runs the libFuzzer target over config parsing and sizing for SECONDS (default 60),
# seeded from ../shared/configs and the regression corpus, with ASan and UBSan.
# Findings land in build-fuzz/findings/; a crash fails the run. `npm run fuzz -- 600`
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
dir="${KVCALC_FUZZ_BUILD_DIR:-build-fuzz}"
cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVCALC_FUZZ=ON \
  -DBUILD_TESTING=OFF >/dev/null
cmake --build "$dir" --target fuzz_config -j"${KVCALC_JOBS:-2}" >/dev/null
work="$dir/corpus"
mkdir -p "$work" "$dir/findings"
cp -n ../shared/configs/*.json ../shared/configs/reconstructed/*.json tests/fuzz/regressions/* "$work"/ 2>/dev/null || true
# Every regression input must pass before new exploration.
"$dir/fuzz_config" -runs=0 tests/fuzz/regressions/ >"$dir/regressions.log" 2>&1 ||
  { tail -n 40 "$dir/regressions.log"; echo "fuzz: a regression input fails"; exit 1; }
status=0
"$dir/fuzz_config" "$work" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -dict=tests/fuzz/config.dict -artifact_prefix="$dir/findings/" -print_final_stats=1 \
  >"$dir/fuzz.log" 2>&1 || status=$?
grep -E "^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::average_exec_per_sec|==[0-9]+==|SUMMARY)" "$dir/fuzz.log" | tail -n 6
if [ "$status" -ne 0 ]; then
  tail -n 40 "$dir/fuzz.log"
  echo "fuzz: the fuzzer found a problem (exit $status); inputs in $dir/findings/"
  exit 1
fi
echo "fuzz: no findings in ${seconds} s"
