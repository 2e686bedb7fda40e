#!/usr/bin/env bash
# The device tests on Intel's OpenCL CPU runtime, the second OpenCL implementation CI runs
# (installed by scripts/bootstrap.sh into build/intel-opencl; scripts/with-intel-opencl.sh makes it
# the only platform the ICD loader offers). Ends with "N passed, N failed, N skipped"; exits 77
# when the runtime is not installed.
#
# Which tests: every group that drives an OpenCL device through the backend or a suite — the
# backend (opencl_), every suite's kernels and verifiers (suite_, precision_, chip_, batching_,
# tuning_, fp8_), the broken-kernel and driver-defect checks (broken_, defects_), the timing paths
# (timing_) and device identity (identity_): about 4.5 minutes on 2 cores. Not run twice: the
# unit tests of pure logic (nothing in them depends on a platform), the figures' bounds and the
# CLI (whose quick profile alone takes a minute there; `scripts/intel-tests.sh ^cli_ ^bounds_` runs
# them), and the analyses, report, fleet, Slurm, MPI, supervisor and CUDA tests, whose device part
# is a short run of the suites above: CI would pass its 20 minutes (the whole suite takes about
# 12 minutes on this runtime on 2 cores, against 8 on PoCL).
#   scripts/intel-tests.sh [PATTERN...]   # other patterns instead of that list
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GPUBENCH_BUILD:-build}
if [ ! -f "$build/intel-opencl/vendors/intel-cpu.icd" ]; then
  echo "intel-tests: Intel's OpenCL runtime is not installed in $build/intel-opencl" >&2
  exit 77
fi
if [ $# -eq 0 ]; then
  set -- ^opencl_ ^suite_ ^precision_ ^chip_ ^batching_ ^tuning_ ^fp8_ ^broken_ ^defects_ \
    ^timing_ ^identity_
fi
echo "intel-tests: on $(scripts/with-intel-opencl.sh "$build/gpubench" devices 2>/dev/null |
  sed -n 's/^ *vendor .*platform //p' | head -n 1)"
exec scripts/with-intel-opencl.sh "$build/tests/gpubench-tests" "$@"
