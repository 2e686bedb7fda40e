#!/usr/bin/env bash
# The whole test suite under AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer,
# with clang, with gcc, or both, each in its own build folder (build-asan-clang, build-asan-gcc;
# -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized, the other options
# as in the normal build, so CUDA is compiled and linked where the toolkit is):
#   scripts/sanitize.sh [clang|gcc|both] [PATTERN...]     (default both, every test)
# Any sanitizer report fails the test that caused it: ASan and UBSan halt on the first error
# (exit status 1), LeakSanitizer checks every test process at its end (the runner calls it before
# a passing test's _exit) and every gpubench the tests start. tests/lsan.supp suppresses only what
# PoCL and the LLVM it links, and Open MPI, keep until the process ends; nothing of ours.
# Prints "COMPILER: N passed, N failed, N skipped" per compiler at the end (each run's full log
# is build-asan-COMPILER/sanitize.log) and exits non-zero when a build or a test failed.
# A check that means nothing under a sanitizer (peak RSS, CPU time) is left out there and says
# so, "under AddressSanitizer: ..." (GB_TEST_ASAN in tests/test.h); so far only
# fleet_merge_1000_files_bounded's bounds, no whole test. Every test's timeout is 3 times its own
# under ASan (tests/runner.c; GPUBENCH_TEST_TIMEOUT_SCALE=N sets another factor).
# Environment: SANITIZE_JOBS  ninja's parallel jobs (default: ninja's own choice)
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-both}
shift || true
case "$which" in
-h | --help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
clang | gcc) compilers=("$which") ;;
both) compilers=(clang gcc) ;;
*)
    echo "usage: scripts/sanitize.sh [clang|gcc|both] [PATTERN...]" >&2
    exit 2
    ;;
esac

# halt_on_error: the first report ends the process with exitcode 1 (a failed test, not a pass);
# detect_leaks: LeakSanitizer at every exit; protect_shadow_gap=0: the CUDA driver maps memory
# where ASan's shadow gap would be (harmless without a GPU, needed with one);
# intercept_tls_get_addr=0: up to LLVM 16 and GCC 13 the runtime's __tls_get_addr interceptor
# mistakes some dynamic TLS blocks (PoCL's, its kernels') for glibc < 2.25 ones and LSan's tracer
# then dies on a bogus range ("Tracer caught signal 11"); static TLS is still scanned.
asan=detect_leaks=1:halt_on_error=1:abort_on_error=0:exitcode=1:strict_string_checks=1
asan+=:detect_stack_use_after_return=1:protect_shadow_gap=0:intercept_tls_get_addr=0
export ASAN_OPTIONS=$asan
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=1
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0:exitcode=1

ninja_jobs=()
[ -n "${SANITIZE_JOBS:-}" ] && ninja_jobs=(-j "$SANITIZE_JOBS")
rc=0
summary=()
for cc in "${compilers[@]}"; do
    b=build-asan-$cc
    if [ ! -f "$b/build.ninja" ]; then
        CC=$cc meson setup "$b" -Db_sanitize=address,undefined -Db_lundef=false \
            -Dbuildtype=debugoptimized >"$b.setup.log" 2>&1 || {
            cat "$b.setup.log" >&2
            summary+=("$cc: meson setup failed")
            rc=1
            continue
        }
        rm -f "$b.setup.log"
    fi
    if ! ninja -C "$b" "${ninja_jobs[@]}" >"$b/ninja.log" 2>&1; then
        tail -n 40 "$b/ninja.log" >&2
        summary+=("$cc: build failed ($b/ninja.log)")
        rc=1
        continue
    fi
    echo "== $cc: $b/tests/gpubench-tests $*"
    set +e
    "$b/tests/gpubench-tests" "$@" 2>&1 | tee "$b/sanitize.log"
    trc=${PIPESTATUS[0]}
    set -e
    [ "$trc" -eq 0 ] || rc=1
    summary+=("$cc: $(tail -n 1 "$b/sanitize.log")")
done
echo "== sanitizers (address, undefined)"
printf '%s\n' "${summary[@]}"
exit $rc
