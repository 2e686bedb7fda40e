#!/usr/bin/env bash
# Runs a command with Intel's OpenCL CPU runtime as the only OpenCL platform the ICD loader offers
# (installed by scripts/bootstrap.sh into build/intel-opencl). PoCL is untouched: without this
# wrapper, the loader reads /etc/OpenCL/vendors as before.
#   scripts/with-intel-opencl.sh build/gpubench run configs/quick.yaml
#   scripts/with-intel-opencl.sh scripts/test.sh
# Exits 77 (skip) when the runtime is not installed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
vendors=$root/${GPUBENCH_BUILD:-build}/intel-opencl/vendors
if [ ! -f "$vendors/intel-cpu.icd" ]; then
  echo "with-intel-opencl: $vendors/intel-cpu.icd not found; run scripts/bootstrap.sh" >&2
  exit 77
fi
export OCL_ICD_VENDORS=$vendors
exec "$@"
