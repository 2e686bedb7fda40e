#!/usr/bin/env bash
# The fuzz targets (tests/fuzz): builds them with clang, libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer in their own build folder, then runs each for SECONDS (default 30)
# on a copy of its seed corpus (tests/fuzz/corpus/NAME; what it finds stays in the copy):
#   scripts/fuzz.sh [SECONDS] [TARGET...]      TARGET: profile, results (default both)
# Environment: FUZZ_BUILD  the build folder (default build-fuzz)
#              FUZZ_JOBS   parallel fuzzing processes per target (default 1; more: logs in
#                          $FUZZ_BUILD/fuzz-N.log)
# Exits non-zero when a target crashes, leaks or trips a sanitizer (the reproducer is left as
# $FUZZ_BUILD/crash-* and named in the output).
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
ninja -C "$b" $(printf 'tests/fuzz/fuzz-%s ' "${targets[@]}") >/dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp}
rc=0
for t in "${targets[@]}"; do
  corpus="$b/corpus-$t"
  mkdir -p "$corpus"
  cp -n tests/fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null || true
  echo "fuzz-$t: ${secs}s"
  jobs=()
  [ "${FUZZ_JOBS:-1}" -gt 1 ] && jobs=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS")
  if ! (cd "$b" && "./tests/fuzz/fuzz-$t" -max_total_time="$secs" "${jobs[@]}" \
          -max_len=65536 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 "corpus-$t" \
          2>&1 | tail -n 20); then
    rc=1
  fi
  ls "$b"/crash-* "$b"/leak-* "$b"/timeout-* "$b"/oom-* 2>/dev/null && rc=1
done
exit $rc
