#!/usr/bin/env bash
# The OpenCL-facing tests a third time, on Oclgrind (Debian's oclgrind, installed by
# scripts/bootstrap.sh; scripts/check-kernels.sh runs every kernel under it with its error
# checks): an implementation that simulates each work-item, one device with no cl_khr_fp16, an
# event timer that fails gpubench's check at open, and a maximum work-group size of 1024. It is
# offered alone to the ICD loader through an ICD file in $build/oclgrind/vendors named by
# OCL_ICD_VENDORS (as scripts/with-intel-opencl.sh does for Intel's runtime). Ends with
# "N passed, N failed, N skipped"; exits 77 when oclgrind is not installed.
#
# Which tests: those a simulator runs in seconds and whose checks do not time anything — the
# backend (opencl_: copies, kernels, events, the BLAS through CLBlast) and device identity
# (identity_), and the broken-kernel checks of alloc, concurrency, fp16 and the gemm library
# (broken_): about 15 s on 2 cores. Left out: opencl_event_timing_of_kernel_matches_wall_clock
# and opencl_blas_markers_bracket_the_whole_call (each launches hundreds of millions of
# work-items: past their 60 and 120 s there) and the timing paths (timing_: their figures are
# timings, and Oclgrind's timer fails the check at open); the suites' runs (suite_, chip_,
# precision_, tuning_, batching_, the other broken_ groups) at the sizes their tests use take 10 s
# to over 5 minutes each there (broken_gemm_broken_kernels_are_caught: past its 300 s), which CI's
# 30 minutes cannot hold: their kernels are checked by scripts/check-kernels.sh at small sizes.
#   scripts/oclgrind-tests.sh [PATTERN...]   # other patterns instead of that list
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GPUBENCH_BUILD:-build}
icd_lib=${GPUBENCH_OCLGRIND_ICD:-/usr/lib/oclgrind/liboclgrind-rt-icd.so}
if [ ! -f "$icd_lib" ]; then
  echo "oclgrind-tests: oclgrind is not installed (scripts/bootstrap.sh installs it)" >&2
  exit 77
fi
mkdir -p "$build/oclgrind/vendors"
echo "$icd_lib" >"$build/oclgrind/vendors/oclgrind.icd"
OCL_ICD_VENDORS=$(cd "$build/oclgrind/vendors" && pwd)
export OCL_ICD_VENDORS
tests=$build/tests/gpubench-tests
if [ $# -eq 0 ]; then
  left_out=(opencl_event_timing_of_kernel_matches_wall_clock
            opencl_blas_markers_bracket_the_whole_call)
  mapfile -t names < <("$tests" -l | grep -E '^(opencl_|identity_)' |
    grep -vxF "${left_out[@]/#/-e}")
  names+=(broken_alloc_never_touched_is_caught broken_concurrency_kernels_are_caught
          broken_fp16_broken_kernels_are_caught broken_gemm_library_noop_is_caught
          broken_gemm_f32_bound_rejects_tf32)
  set -- "${names[@]/#/^}"
fi
echo "oclgrind-tests: on $("$build/gpubench" devices 2>/dev/null |
  sed -n 's/^ *vendor .*platform //p' | head -n 1)"
exec "$tests" "$@"
