#!/usr/bin/env bash
# The fuzz targets (tests/fuzz): builds them with clang, libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer in their own build folder, then runs each for SECONDS (default 30)
# on a copy of its seed corpus (tests/fuzz/corpus/NAME; what it finds stays in the copy):
#   scripts/fuzz.sh [SECONDS] [TARGET...]      TARGET: profile, results (default both)
# Environment: FUZZ_BUILD  the build folder (default build-fuzz)
#              FUZZ_JOBS   parallel fuzzing processes per target (default 1; more: logs in
#                          $FUZZ_BUILD/fuzz-N.log)
#              FUZZ_MAX_LEN  the longest input libFuzzer makes, in bytes (default 65536; a long
#                          run keeps its rate with less, since the corpus grows towards it)
# Exits non-zero when a target crashes, leaks or trips a sanitizer (the report is printed whole,
# the reproducer is left as $FUZZ_BUILD/crash-* and named in the output). Ends with one line per
# target: ok or FAIL, the executions run (libFuzzer's stat::number_of_executed_units, summed over
# the jobs) and their rate (stat::average_exec_per_sec, summed), so a long run's count can be
# quoted; each target's whole output is in $FUZZ_BUILD/fuzz-TARGET.log.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(profile results)
b=${FUZZ_BUILD:-build-fuzz}
if [ ! -f "$b/build.ninja" ]; then
  CC=clang meson setup "$b" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
    -Dcuda=disabled -Dcublas=disabled -Dbuildtype=debugoptimized >/dev/null
fi
if ! ninja -C "$b" $(printf 'tests/fuzz/fuzz-%s ' "${targets[@]}") >"$b/ninja.log" 2>&1; then
  tail -n 40 "$b/ninja.log" >&2
  echo "fuzz: the build failed ($b/ninja.log)" >&2
  exit 1
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp}
rc=0
stats=()
for t in "${targets[@]}"; do
  corpus="$b/corpus-$t"
  mkdir -p "$corpus"
  cp -n tests/fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null || true
  echo "fuzz-$t: ${secs}s"
  jobs=()
  [ "${FUZZ_JOBS:-1}" -gt 1 ] && jobs=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS")
  rm -f "$b"/fuzz-[0-9]*.log
  touch "$b/.fuzz-start"
  log="$b/fuzz-$t.log"
  verdict=ok
  if ! (cd "$b" && "./tests/fuzz/fuzz-$t" -max_total_time="$secs" "${jobs[@]}" \
          -max_len="${FUZZ_MAX_LEN:-65536}" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 "corpus-$t") \
          >"$log" 2>&1; then
    verdict=FAIL
  fi
  # A report (the sanitizer's, libFuzzer's) starts at its "==PID==" line; show it whole.
  if [ $verdict = FAIL ] && grep -q '^==[0-9]*==' "$log"; then
    sed -n '/^==[0-9]*==/,$p' "$log" | head -n 200
  else
    grep -v '# Uses: [0-9]*$' "$log" | tail -n 8
  fi
  # Reproducers this run left (older ones, from earlier runs, are not this run's verdict).
  found=$(find "$b" -maxdepth 1 -newer "$b/.fuzz-start" \( -name 'crash-*' -o -name 'leak-*' \
            -o -name 'timeout-*' -o -name 'oom-*' \) -print)
  if [ -n "$found" ]; then
    echo "$found"
    verdict=FAIL
  fi
  [ $verdict = ok ] || rc=1
  # libFuzzer's final stats (one block per process; -jobs: in the workers' fuzz-N.log): the
  # executions summed, and their rate over the run.
  logs=("$log")
  shopt -s nullglob
  logs+=("$b"/fuzz-[0-9]*.log)
  shopt -u nullglob
  runs=$(awk '/^stat::number_of_executed_units:/ {n += $2} END {print n + 0}' "${logs[@]}")
  rate=$(awk '/^stat::average_exec_per_sec:/ {r += $2} END {print r + 0}' "${logs[@]}")
  stats+=("$(printf 'fuzz-%-8s %-4s %10s executions %8s exec/s  (%s s, %s job(s), log %s)' \
             "$t" "$verdict" "$runs" "$rate" "$secs" "${FUZZ_JOBS:-1}" "$log")")
done
printf '%s\n' "${stats[@]}"
exit $rc
