#!/usr/bin/env bash
# Runs the libFuzzer targets for SECONDS in all (default 60), with ASan and UBSan, a third each:
# fuzz_config over config parsing and sizing (seeded from ../shared/configs, the fixture configs
# and its regression corpus), fuzz_log over the engine-log reader and the check of a log (seeded
# from the real logs of tests/fixtures/engine-logs and its regression corpus), and fuzz_gguf over
# the GGUF reader and the core's reading of its document (seeded from the GGUF test files that
# tests/gguf/write-gguf.mjs writes from tests/fixtures/gguf).
# Findings land in build-fuzz/findings/; a crash fails the run. `npm run fuzz -- 600`
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
dir="${KVCALC_FUZZ_BUILD_DIR:-build-fuzz}"
cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVCALC_FUZZ=ON \
  -DBUILD_TESTING=OFF >/dev/null
cmake --build "$dir" --target fuzz_config fuzz_log fuzz_gguf -j"${KVCALC_JOBS:-2}" >/dev/null
mkdir -p "$dir/findings"
share=$(( seconds / 3 > 1 ? seconds / 3 : 1 ))
status=0
run() {  # target corpus-dir regressions-dir dict seeds...
  local target="$1" work="$dir/$2" regressions="$3" dict="$4"
  shift 4
  mkdir -p "$work"
  cp -n "$@" "$regressions"/* "$work"/ 2>/dev/null || true
  # Every regression input must pass before new exploration.
  "$dir/$target" -runs=0 "$regressions"/ >"$dir/$target-regressions.log" 2>&1 ||
    { tail -n 40 "$dir/$target-regressions.log"; echo "fuzz: a $target regression input fails"; return 1; }
  local s=0
  "$dir/$target" "$work" -max_total_time="$share" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -dict="$dict" -artifact_prefix="$dir/findings/$target-" -print_final_stats=1 \
    >"$dir/$target.log" 2>&1 || s=$?
  echo "$target:"
  grep -E "^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::average_exec_per_sec|==[0-9]+==|SUMMARY)" "$dir/$target.log" | tail -n 6
  if [ "$s" -ne 0 ]; then
    tail -n 40 "$dir/$target.log"
    echo "fuzz: $target found a problem (exit $s); inputs in $dir/findings/"
    return 1
  fi
}
# Seeded with every config the tests size: the shared ones and the fixtures of the families vLLM serves
# (each family's reader, the encoder-decoders' and the new layer kinds' included).
run fuzz_config corpus tests/fuzz/regressions tests/fuzz/config.dict \
  ../shared/configs/*.json ../shared/configs/reconstructed/*.json \
  tests/fixtures/configs/*.json tests/fixtures/configs/reconstructed/*.json || status=1
# The real logs under 16 KB (the long DEBUG logs would slow every run to a crawl under ASan).
mapfile -t small_logs < <(find tests/fixtures/engine-logs -name '*.log' -size -16k)
run fuzz_log corpus-log tests/fuzz/log-regressions tests/fuzz/log.dict "${small_logs[@]}" || status=1
# The GGUF test files under 64 KB (the fuzzer's max_len), both byte orders.
node tests/gguf/write-gguf.mjs "$dir/gguf-seeds"
mapfile -t small_ggufs < <(find "$dir/gguf-seeds" -name '*.gguf' -size -64k)
run fuzz_gguf corpus-gguf tests/fuzz/gguf-regressions tests/fuzz/gguf.dict "${small_ggufs[@]}" || status=1
[ "$status" -eq 0 ] && echo "fuzz: no findings in ${seconds} s"
exit "$status"
