#!/usr/bin/env bash
# Installs what gpubench needs from Debian's packages (only those missing), then configures and
# builds build/. Idempotent: a second run installs nothing and rebuilds only what changed.
#   scripts/bootstrap.sh            # as root, or as a user with sudo
# Environment: CI=true builds with warnings as errors; GPUBENCH_BUILD=dir picks the build folder.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  gcc pkg-config meson ninja-build git clang-format   # clang-format: scripts/check-format.sh
  clang libclang-rt-dev                          # scripts/fuzz.sh (CI) and sanitize.sh: libFuzzer,
                                                 # the sanitizer runtimes for clang
  libyaml-dev libjansson-dev libssl-dev          # profiles, results, sha256 of profiles
  libyajl-dev                                    # results files read fast (fleet)
  ocl-icd-opencl-dev opencl-c-headers            # the OpenCL ICD loader and headers
  pocl-opencl-icd clinfo                         # an OpenCL device on the CPU, and a lister
  oclgrind                                       # scripts/check-kernels.sh (CI): kernels under a
                                                 # simulator that reports bad accesses and races
  libclblast-dev                                 # BLAS on OpenCL
  gnuplot-nox                                    # charts for `gpubench report`
  python3-jsonschema                             # tests: results files against schema/
  chromium libxml2-utils                         # tests: the report in a headless browser, JUnit XML
  clpeak jq                                      # the peer benchmark (scripts/bench-peers.sh)
  slurmctld slurmd slurm-client munge            # fleet runs: scripts/test-slurm.sh starts its own
                                                 # one-node cluster (the packages' services stay
                                                 # unconfigured)
  openmpi-bin libopenmpi-dev                     # gpubench-mpi, collectives across ranks (-Dmpi)
  prometheus                                     # tests: promtool checks --openmetrics outputs
                                                 # (the server is never started)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then
    sudo=()
  elif command -v sudo >/dev/null; then
    sudo=(sudo)
  else
    echo "bootstrap: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

build=${GPUBENCH_BUILD:-build}

# A second, independent OpenCL implementation: Intel's OpenCL runtime for CPUs, from PyPI, pinned,
# into a folder of the build. Its ICD file goes into a folder of its own, named to the loader by
# OCL_ICD_VENDORS only when asked for (scripts/with-intel-opencl.sh), so PoCL stays the default;
# the wheel's own libOpenCL.so is never put on the library path (the ICD loader stays Debian's).
# GPUBENCH_INTEL_OPENCL=0 skips it (the tests then run on PoCL alone).
intel_pins=(intel-opencl-rt==2026.2.0 intel-cmplr-lib-rt==2026.2.0 intel-cmplr-lic-rt==2026.2.0
            tbb==2023.2.0 tcmlib==1.6.0)
intel=$build/intel-opencl
if [ "${GPUBENCH_INTEL_OPENCL:-1}" != 0 ] && [ ! -f "$intel/vendors/intel-cpu.icd" ]; then
  if python3 -m pip --version >/dev/null 2>&1; then
    echo "bootstrap: installing Intel's OpenCL CPU runtime (${intel_pins[*]}) into $intel"
    rm -rf "$intel"
    PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --disable-pip-version-check \
      --no-warn-script-location --no-deps --prefix "$intel/prefix" "${intel_pins[@]}" >&2 || true
    if [ -f "$intel/prefix/lib/libintelocl.so" ]; then
      mkdir -p "$intel/vendors"
      echo "$(cd "$intel/prefix/lib" && pwd)/libintelocl.so" >"$intel/vendors/intel-cpu.icd"
    else
      echo "bootstrap: Intel's OpenCL runtime did not install; the tests run on PoCL alone" >&2
    fi
  else
    echo "bootstrap: no pip for python3; Intel's OpenCL runtime skipped" >&2
  fi
fi

werror=false
[ "${CI:-}" = true ] && werror=true
if [ -f "$build/build.ninja" ]; then
  meson configure "$build" -Dwerror=$werror >/dev/null
else
  meson setup "$build" -Dwerror=$werror >/dev/null
fi
ninja -C "$build" >/dev/null
echo "bootstrap: built $build/gpubench"
