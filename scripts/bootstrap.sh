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
  ocl-icd-opencl-dev opencl-c-headers            # the OpenCL ICD loader and headers
  pocl-opencl-icd clinfo                         # an OpenCL device on the CPU, and a lister
  libclblast-dev                                 # BLAS on OpenCL
  gnuplot-nox                                    # charts for `gpubench report`
  python3-jsonschema                             # tests: results files against schema/
  chromium libxml2-utils                         # tests: the report in a headless browser, JUnit XML
  clpeak jq                                      # the peer benchmark (scripts/bench-peers.sh)
  slurmctld slurmd slurm-client munge            # fleet runs: scripts/test-slurm.sh starts its own
                                                 # one-node cluster (the packages' services stay
                                                 # unconfigured)
  openmpi-bin libopenmpi-dev                     # gpubench-mpi, collectives across ranks (-Dmpi)
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
werror=false
[ "${CI:-}" = true ] && werror=true
if [ -f "$build/build.ninja" ]; then
  meson configure "$build" -Dwerror=$werror >/dev/null
else
  meson setup "$build" -Dwerror=$werror >/dev/null
fi
ninja -C "$build" >/dev/null
echo "bootstrap: built $build/gpubench"
