#!/usr/bin/env bash
# gpu-check.sh — one call that tells whether every CUDA path of gpubench works on a machine with
# an NVIDIA GPU and no package registry, and how its figures stand beside the specialised tools
# on the same GPU: at most 485 s of step budgets (an H200 took 75-116 s before the peer step),
# so that two calls with a carried bundle fit in 15 minutes of GPU time (a native build adds up
# to 240 s). What it prints, in this order:
#   1. in under a minute: the version chain with a verdict (driver, CUDA runtime, NVRTC and the
#      builtins library it loaded, cuBLAS, the fp16/bf16 headers; `GPUBENCH_CUDA_REPORT=1
#      gpubench devices --json`), then the GPU's state from nvidia-smi queries (compute
#      capability, SMs, memory, L2, clocks, MIG, persistence, ECC, power limit, PCIe link, other
#      processes). On an older driver it retries with the toolkit's forward-compatibility
#      libcuda (TOOLKIT/compat) before giving its verdict.
#   2. a smoke test of about 60-90 s on CUDA (a small generated profile): launch latency, a verified
#      triad against the HBM bound, one f16, bf16 and int8 kernel each (compiled and run), f32,
#      tf32, f16 and bf16 cuBLAS GEMMs at 4096 and 8192, one small FP8 cuBLASLt GEMM per format
#      (f8e4m3, f8e5m2: 1024, TN; a recorded skip below sm_89 or without libcublasLt), BF16 and
#      FP8 at 8192 (near the matrix units' peak), copy and triad on float arrays of 512 MiB
#      (16-byte loads; with the 2 GiB triad below, the peers' memory sizes),
#      a triad timed for over 1 s, a 1 GiB device-to-device copy, every case run on to 1.2 s
#      (telemetry.energy_window, so that NVML's coarse energy counter gives each an energy and a
#      perf per watt), a pinned copy each
#      way against the PCIe link's rate, and peerbw's
#      patterns between GPUs 0 and 1 (bidir, latency, all_to_one to 1, one_to_all from 0,
#      all_to_all; copy engines and the SM copy kernel, each verified; with one GPU the plan has
#      no such case); cuDNN convolutions at ResNet-50's conv3 3x3 layer (batch 32) in f32, tf32,
#      f16 and bf16, NCHW and NHWC, the two backward passes, int8 forward, and the own kernel
#      beside them at conv4's 3x3; Llama 3 8B's decoder layers as bf16 and int8 (cuBLAS IMMA)
#      GEMMs at 64 sequences; cuSPARSE CSR SpMM / SpMV and the own CSR and 2:4 kernels against
#      cuBLAS at its attention output layer (16 sequences), with the break-even density; SpMV
#      against cuBLAS's GEMV there; a decode layer at batch 1 (f32, bf16), whose headline is
#      GB/s against the HBM bound (below the ridge point).
#   2a. the peers beside the smoke test's figures (scripts/gpu-peers.py, about 60 s): PyTorch's
#      matmul (f32, tf32, f16, bf16, FP8 _scaled_mm), conv2d at each forward conv case (cuDNN
#      with cudnn.benchmark), copy, triad and pinned H2D/D2H; a CuPy
#      elementwise triad and copy; BabelStream's CUDA model and nvbandwidth built here with nvcc
#      when their sources are in PEERS_SRC (default build-peers/src: BabelStream/, nvbandwidth/;
#      fetch them there and carry the folder; they are never committed). Each absent, unbuildable
#      or failing peer is named with why; summary.md gets the gpubench/peer ratios.
#   2b. the chip suites on CUDA (a GPU-sized subset of configs/chip-quick.yaml, about 15 s):
#      the latency and cache staircases, local memory, atomics, command graphs against separate
#      and fused launches, and one memory case with cold caches; then memory management (about
#      15 s): every CUDA allocation method (cudaMalloc, cudaMallocAsync on the default pool and
#      on a pool that keeps its memory, cudaMallocManaged, cudaHostAlloc, cudaHostRegister, and
#      malloc beside), a training step's allocations through cudaMalloc, the stream-ordered pool
#      and the caching pool, pinned against registered H2D/D2H, and triad against offset; and
#      the concurrency suite on 1 to 8 streams, and a high-priority stream's launch latency
#      (p50, p99) beside three low-priority streams that keep the GPU full; the tenants suite
#      (a victim process beside aggressor processes: slowdown) and startup (a fresh process
#      stage by stage, JIT cache cold and warm) and serve (a cuBLAS layer's p99 under Poisson
#      arrivals through a dynamic batcher) (chip-cuda.json).
#   2c. the CUDA kernels under compute-sanitizer (about 65 s): configs/kernel-check.yaml (every
#      own kernel and its variants at the smallest sizes) under memcheck, and the kernels that
#      share local memory under racecheck; an error fails the step (not there: a skip).
#   2d. NCCL (about 35 s, estimated: no GPU where it was written): the collective suite with
#      transport nccl on every GPU of the machine (one rank each; one GPU: one rank), every
#      collective at 64 KiB and 64 MiB, bf16 and in-place all-reduce (nccl-cuda.json; without
#      libnccl every case is a recorded skip naming the files tried), then its peers
#      (scripts/gpu-nccl-peer.py): nccl-tests' all_reduce_perf and all_gather_perf when a build
#      was carried to PEERS_SRC/nccl-tests (the machine cannot fetch its sources), and PyTorch's
#      torch.distributed all_reduce and all_gather_into_tensor over NCCL on GPU 0, each absent
#      peer named with why; the table goes to summary.md.
#   2e. serving and health (about 40 s, estimated: no GPU where it was written): serve's LoadGen
#      scenarios through a cuBLAS layer (SingleStream, MultiStream, Offline, Server at loads 0.5,
#      0.9 and 10, a 30 Hz periodic source), the llm suite at Llama 3 8B's shapes cut to 2 layers,
#      a 3 s burn in bf16 and f8 and memtest over a quarter of the free memory
#      (serving-cuda.json); then `gpubench diag --level 1` (diag-1-cuda.txt, its results
#      diag-1-results.json and its document diag-1-cuda.json).
#   3. the quick profile (PROFILE) on CUDA, then `gpubench check` of it (the figures against
#      results/reference/expectations.json or their bounds, NVML's health items; check-cuda.txt
#      and check-cuda.prom), then the profile on OpenCL (NVIDIA's OpenCL driver when the image
#      has it), and summary.md with both side by side.
# Every step runs under `timeout -k GRACE BUDGET`: SIGTERM at its budget (gpubench takes it as
# Ctrl-C: it ends the current sample and writes what it finished), SIGKILL GRACE seconds later (a
# hung kernel). A step that runs out costs its budget only; the later steps still run.
# Files (in OUT): env.txt (the chain, the GPU's state, how gpubench was obtained,
# `gpubench devices --json`), smoke-cuda.json, peers.json (the peers' figures and the ratios),
# chip-cuda.json, nccl-cuda.json, PROFILE-cuda.json, PROFILE-opencl.json, summary.md, gpu-check.log. Keep them
# as references with scripts/keep-reference.py OUT.
#
#   scripts/gpu-check.sh [OPTIONS]                 on the GPU machine
#   scripts/gpu-check.sh --make-bundle DIR         on a build machine (here): prepare DIR to carry
#
# Options:
#   -o, --out DIR        output folder (default: $OUT if set, else results/gpu-check-UTCTIME)
#       --smoke          parts 1 and 2 only, without 2b (about a minute)
#   -n, --dry-run        detect, then print the planned steps with their budgets; run nothing
#   -m, --mode MODE      auto (default): the bundle if one runs here, else a native build;
#                        bundle: only the bundle; build: only a native build
#   -B, --bundle DIR     the carried bundle (default: build-bundle, next to this repo's root)
#   -e, --exe FILE       use this gpubench (an existing build), not a bundle or a native build
#   -p, --profile FILE   the profile of part 3 (default: configs/quick.yaml)
#       --toolkit DIR    the CUDA toolkit root: its NVRTC and headers are used
#                        (GPUBENCH_NVRTC, GPUBENCH_CUDA_INCLUDE); default: gpubench's own search
#       --budget STEP=S  a step's budget in seconds (repeatable; --dry-run lists the steps)
#       --peers-src DIR  the peers' sources (default build-peers/src)
#       --make-bundle DIR  build (build-bundle-src/ unless --from BUILD) and copy gpubench, the
#                        shared libraries it needs except glibc's and NVIDIA's into DIR/bin and
#                        DIR/lib (libstdc++ into DIR/lib/fallback, used only when the machine's
#                        own cannot start gpubench) and the four headers NVRTC includes
#                        (cuda_fp16.h/.hpp, cuda_bf16.h/.hpp) into DIR/include, which gpubench
#                        falls back to; about 14 MB
#       --from BUILD     with --make-bundle: take gpubench from this existing build folder
#   -h, --help
#
# What the GPU machine needs: x86-64 Linux with glibc >= 2.34 (for a bundle made on Debian 12),
# the NVIDIA driver (>= 580 for the CUDA 13.0 runtime linked into gpubench, or an older one with
# the toolkit's compat/ folder), and NVRTC 13 (libnvrtc.so.13 and libnvrtc-builtins.so.13.x: a
# toolkit, or pip's nvidia-cuda-nvrtc wheel; gpubench finds either). For the BLAS suites,
# libcublas.so.13 (toolkit or pip's nvidia-cublas; it brings libcublasLt.so.13, which the FP8
# GEMMs load); without it BLAS cases are recorded skips. For OpenCL, NVIDIA's libnvidia-opencl.so.1: the script registers it with the carried ICD loader
# when /etc/OpenCL/vendors has no entry for it.
#
# Exit status: 0 CUDA was checked and every step passed; 1 a step failed or ran out of its budget,
# or CUDA is unusable where an NVIDIA driver is; 2 usage or setup (no gpubench); 4 no NVIDIA
# driver here: CUDA not checked (every step that could run passed).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 2
t_start=$SECONDS

out=""
mode=auto
bundle=build-bundle
exe_opt=""
profile=configs/quick.yaml
toolkit=""
dry=false
smoke_only=false
make_bundle=""
from_build=""
peers_src=build-peers/src
grace=5
# Step budgets in seconds. Parts 1-2 stay under ~150 s; the whole under ~350 s.
# NCCL's two steps (35 s) came out of peers (75 -> 65), chip (60 -> 50), cuda (65 -> 55) and
# opencl (35 -> 30): the total stays 485 s.
# Serving and health (40 s, estimated: no GPU where it was written) came out of cuda (55 -> 45),
# opencl (30 -> 25), peers (65 -> 60), chip (50 -> 45), memcheck (40 -> 35), racecheck (25 -> 20)
# and summary (10 -> 5).
declare -A budget=([version]=5 [chain]=20 [compat]=20 [json]=10 [state]=15 [smoke]=120
                   [peers]=60 [chip]=45 [memcheck]=35 [racecheck]=20 [nccl]=20 [ncclpeer]=15
                   [serving]=30 [diag]=10 [cuda]=45 [health]=5 [opencl]=25 [summary]=5
                   [build]=240)
steps_order="version chain compat json state smoke peers chip memcheck racecheck nccl ncclpeer serving diag cuda health opencl summary build"

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "gpu-check: $*" >&2; exit 2; }

# need OPTION WHAT VALUE: the option's value is present and not empty, else a usage error (exit 2).
need() { [ -n "$3" ] || die "$1 needs $2"; }
while (($#)); do
  case "$1" in
    -o|--out) need "$1" "a folder" "${2-}"; out=$2; shift 2 ;;
    --smoke) smoke_only=true; shift ;;
    -n|--dry-run) dry=true; shift ;;
    -m|--mode) need "$1" "auto, bundle or build" "${2-}"; mode=$2; shift 2 ;;
    -B|--bundle) need "$1" "a folder" "${2-}"; bundle=$2; shift 2 ;;
    -e|--exe) need "$1" "a file" "${2-}"; exe_opt=$2; shift 2 ;;
    -p|--profile) need "$1" "a file" "${2-}"; profile=$2; shift 2 ;;
    --toolkit) need "$1" "a folder" "${2-}"; toolkit=$2; shift 2 ;;
    --peers-src) need "$1" "a folder" "${2-}"; peers_src=$2; shift 2 ;;
    --budget)
      need "$1" "STEP=SECONDS" "${2-}"; b=$2
      # 1 to 9999 s, in decimal (bash would read 08 as octal; timeout reads 0 as no limit).
      [[ "$b" =~ ^([a-z]+)=([1-9][0-9]{0,3})$ ]] ||
        die "--budget needs STEP=SECONDS (1 to 9999), not '$b'"
      [ -n "${budget[${BASH_REMATCH[1]}]:-}" ] || die "no step '${BASH_REMATCH[1]}' (steps: $steps_order)"
      budget[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
      shift 2 ;;
    --make-bundle) need "$1" "a folder" "${2-}"; make_bundle=$2; shift 2 ;;
    --from) need "$1" "a build folder" "${2-}"; from_build=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
case "$mode" in auto|bundle|build) ;; *) die "--mode must be auto, bundle or build, not '$mode'" ;; esac

# ---- the CUDA toolkit ------------------------------------------------------------------------
find_toolkit() {
  local c
  for c in "$toolkit" "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda \
           "$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /x/x/x)")")" \
           /usr/local/cuda-13.0 /opt/cuda \
           /opt/*/.venv/lib/python3*/site-packages/nvidia/cu13 \
           /usr/local/lib/python3*/dist-packages/nvidia/cu13; do   # pip's nvidia-* wheels
    if [ -n "$c" ] && [ -f "$c/include/cuda_fp16.h" ]; then
      echo "$c"
      return 0
    fi
  done
  return 1
}

# ---- --make-bundle (on the build machine) ----------------------------------------------------
if [ -n "$make_bundle" ]; then
  step() { if $dry; then printf '  $'; printf ' %q' "$@"; printf '\n'; else "$@"; fi; }
  if [ -z "$from_build" ]; then
    from_build=build-bundle-src
    echo "gpu-check: building $from_build (release, CUDA from ${toolkit:-/usr/local/cuda})"
    if [ -f "$from_build/build.ninja" ]; then
      step meson configure "$from_build" -Dbuildtype=release ${toolkit:+-Dtoolkit_root=$toolkit} \
        || exit 2
    else
      step meson setup "$from_build" -Dbuildtype=release -Dcuda=enabled \
        ${toolkit:+-Dtoolkit_root=$toolkit} || exit 2
    fi
    step ninja -C "$from_build" gpubench || exit 2
  fi
  exe=$from_build/gpubench
  $dry || [ -x "$exe" ] || die "no $exe: build it first, or drop --from"
  # The headers NVRTC includes: from the toolkit the build was configured with.
  inc=$(sed -n 's/^#define GB_CUDA_INCLUDE "\(.*\)"$/\1/p' "$from_build/gb-config.h" 2>/dev/null)
  [ -n "$inc" ] && [ -f "$inc/cuda_fp16.h" ] || inc="$(find_toolkit)/include"
  echo "gpu-check: bundling $exe into $make_bundle/{bin,lib,include} (headers from $inc)"
  step rm -rf "$make_bundle"
  step mkdir -p "$make_bundle/bin" "$make_bundle/lib/fallback" "$make_bundle/include"
  step cp "$exe" "$make_bundle/bin/gpubench"
  for h in cuda_fp16.h cuda_fp16.hpp cuda_bf16.h cuda_bf16.hpp; do
    $dry || [ -f "$inc/$h" ] || die "no $inc/$h: give --toolkit DIR"
    step cp "$inc/$h" "$make_bundle/include/$h"
  done
  if ! $dry; then
    # Every shared library the binary loads, except glibc's own and NVIDIA's (none is linked:
    # NVRTC and cuBLAS are dlopened from the GPU machine's toolkit or pip wheels; NVRTC alone is
    # over 100 MB). The OpenCL ICD loader is among them; it finds NVIDIA's driver through
    # /etc/OpenCL/vendors or OCL_ICD_VENDORS.
    # The C++ runtime (CLBlast needs it) goes to lib/fallback, used only where the machine's
    # own cannot start gpubench: NVIDIA's libraries loaded into the process (NVRTC, the OpenCL
    # driver) expect the machine's, which is usually the newer one.
    ldd "$exe" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r soname path; do
      case "$soname" in
        libc.so.*|libm.so.*|libdl.so.*|librt.so.*|libpthread.so.*|ld-linux*|libgcc_s.so.*) ;;
        libnvrtc*|libcudart*|libcublas*|libcuda.so*) ;;
        libstdc++.so.*) cp -L "$path" "$make_bundle/lib/fallback/$soname" ;;
        *) cp -L "$path" "$make_bundle/lib/$soname" ;;
      esac
    done
    {
      echo "gpubench bundle made $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
      echo "commit: $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)" \
           "$(git diff --quiet 2>/dev/null || echo '(with uncommitted changes)')"
      echo "built on: $(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-?}"), $(ldd --version | head -1)"
      echo "needs at most: $(objdump -T "$exe" "$make_bundle"/lib/*.so* 2>/dev/null \
                             | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)"
      echo "headers: include/ (from $inc): $(cd "$make_bundle/include" && ls | paste -sd ' ' -)"
      echo; echo "ldd bin/gpubench (here):"; ldd "$exe"
    } >"$make_bundle/MANIFEST.txt"
    echo "gpu-check: bundle ready ($(du -sh "$make_bundle" | cut -f1)):"
    ls -l "$make_bundle/bin" "$make_bundle/lib" "$make_bundle/include"
  fi
  exit 0
fi

# ---- the GPU machine ---------------------------------------------------------------------------
if [ -z "$out" ]; then
  out=${OUT:-results/gpu-check-$(date -u +%Y%m%dT%H%M%SZ)}
fi
[ -f "$profile" ] || die "no profile $profile"
pname=$(basename "$profile" .yaml)

notes=()
tk=""
if [ -n "$toolkit" ]; then
  tk=$toolkit
  for d in "$tk/lib64" "$tk/lib" "$tk/targets/x86_64-linux/lib"; do
    [ -e "$d/libnvrtc.so.13" ] && { export GPUBENCH_NVRTC="$d/libnvrtc.so.13"; break; }
  done
  export GPUBENCH_CUDA_INCLUDE="$tk/include"
  notes+=("CUDA toolkit (--toolkit): $tk: GPUBENCH_NVRTC=${GPUBENCH_NVRTC:-unset}, GPUBENCH_CUDA_INCLUDE=$tk/include")
else
  tk=$(find_toolkit) || tk=""
fi

# NVIDIA's OpenCL: registered in /etc/OpenCL/vendors, or found and registered for this run.
if grep -qsl nvidia /etc/OpenCL/vendors/*.icd 2>/dev/null; then
  icd_note="NVIDIA OpenCL ICD: registered in /etc/OpenCL/vendors"
else
  nvocl=""
  for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64 \
           /usr/lib; do
    [ -e "$d/libnvidia-opencl.so.1" ] && { nvocl="$d/libnvidia-opencl.so.1"; break; }
  done
  [ -z "$nvocl" ] && nvocl=$(ldconfig -p 2>/dev/null | awk '$1 == "libnvidia-opencl.so.1" {print $NF; exit}')
  if [ -n "$nvocl" ]; then
    vendors=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-icd.XXXXXX")
    echo "$nvocl" >"$vendors/nvidia.icd"
    export OCL_ICD_VENDORS="$vendors"     # ocl-icd (the loader a Debian bundle carries)
    export OCL_ICD_FILENAMES="$nvocl"     # the Khronos loader
    icd_note="NVIDIA OpenCL ICD: $nvocl, registered for this run (OCL_ICD_VENDORS=$vendors)"
  else
    icd_note="NVIDIA OpenCL ICD: none on this image (no libnvidia-opencl.so.1): OpenCL sees no NVIDIA GPU"
  fi
fi
notes+=("$icd_note")

# How to get a gpubench.
exe=""
how=""
# Sets bundle_ld to the library path under which the bundle's gpubench starts, if any: the
# bundle's libraries, then also the bundle's fallback C++ runtime.
bundle_runs() {
  local base="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" p
  [ -x "$bundle/bin/gpubench" ] || return 1
  for p in "$base" "$base:$bundle/lib/fallback"; do
    if LD_LIBRARY_PATH="$p" timeout -k 2 "${budget[version]}" "$bundle/bin/gpubench" --version \
         >/dev/null 2>&1; then
      bundle_ld=$p
      return 0
    fi
  done
  return 1
}
can_build() {
  local t
  for t in cc meson ninja pkg-config; do command -v $t >/dev/null || { echo "no $t"; return 1; }; done
  for t in yaml-0.1 jansson libcrypto; do pkg-config --exists $t || { echo "no $t (pkg-config)"; return 1; }; done
  [ -n "$tk" ] || { echo "no CUDA toolkit"; return 1; }
  return 0
}
native=false
if [ -n "$exe_opt" ]; then
  [ -x "$exe_opt" ] || die "--exe $exe_opt is not an executable"
  exe=$exe_opt
  how="given with --exe: $exe"
elif [ "$mode" != build ] && bundle_runs; then
  exe="$bundle/bin/gpubench"
  export LD_LIBRARY_PATH="$bundle_ld"
  how="carried bundle $bundle ($(head -2 "$bundle/MANIFEST.txt" 2>/dev/null | paste -sd ';' -))"
elif [ "$mode" != bundle ] && why=$(can_build); then
  exe=build-gpu/gpubench
  native=true
  how="native build in build-gpu (toolkit $tk)"
else
  [ -x "$bundle/bin/gpubench" ] && bwhy="$bundle/bin/gpubench does not start here" \
                                || bwhy="no $bundle/bin/gpubench"
  msg="no gpubench: mode $mode; bundle: $bwhy; build: ${why:-not tried}"
  if $dry; then
    echo "gpu-check: $msg (a real run would stop here)"
    exe="$bundle/bin/gpubench"
    how="(none)"
  else
    die "$msg. Make a bundle on a build machine (scripts/gpu-check.sh --make-bundle $bundle) and carry it."
  fi
fi
notes+=("gpubench: $how")

# ---- steps -------------------------------------------------------------------------------------
log=/dev/null
# run_step NAME OUTFILE CMD...: CMD under `timeout -k $grace BUDGET[NAME]`, its stdout to OUTFILE
# (- for the console, which the log also gets), its stderr to the log, or to $step_err when that
# is set (then appended to the log). Returns CMD's status; 124 or 137 when it ran out of its
# budget (SIGTERM, then SIGKILL).
step_err=""
run_step() {
  local name=$1 to=$2 b=${budget[$1]} t0=$SECONDS rc err=${step_err:-$log}; shift 2
  if $dry; then
    printf '  %-8s %4s s   %s' "$name" "$b" "$*"
    [ "$to" != - ] && printf ' > %s' "$to"
    printf '\n'
    return 0
  fi
  echo "--- step $name (budget $b s): $*" >>"$log"
  [ "$err" != "$log" ] && : >"$err"
  if [ "$to" = - ]; then
    timeout -k "$grace" "$b" "$@" 2>>"$err" | tee -a "$log"
    rc=${PIPESTATUS[0]}
  else
    timeout -k "$grace" "$b" "$@" >"$to" 2>>"$err"
    rc=$?
  fi
  [ "$err" != "$log" ] && cat "$err" >>"$log"
  echo "--- step $name: exit $rc after $((SECONDS - t0)) s" >>"$log"
  if ((rc == 124 || rc == 137)); then
    echo "gpu-check: step $name ran out of its $b s budget: stopped ($([ $rc = 137 ] && echo SIGKILL || echo SIGTERM))" \
      | tee -a "$log"
  fi
  return $rc
}

if $dry; then
  echo "gpu-check: plan (dry run; OUT $out; gpubench: $how)"
  command -v nvidia-smi >/dev/null 2>&1 ||
    echo "gpu-check: no nvidia-smi here: a real run would find no NVIDIA driver, skip the CUDA" \
         "steps and exit 4 (OpenCL's run still runs, on whatever OpenCL device there is)"
  total=0
  for s in version chain json state smoke peers chip memcheck racecheck nccl ncclpeer serving diag \
           cuda health opencl summary; do
    $smoke_only && case $s in peers|chip|memcheck|racecheck|nccl|ncclpeer|serving|diag|cuda|health|opencl|summary) continue ;; esac
    total=$((total + ${budget[$s]}))
  done
  echo "  step   budget   command (each under timeout -k $grace BUDGET; at most $total s in all," \
       "plus ${budget[compat]} s for a compat retry and ${budget[build]} s for a native build)"
else
  mkdir -p "$out" || die "cannot create $out"
  log="$out/gpu-check.log"
  : >"$log"
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if $native; then
  if [ -f build-gpu/build.ninja ]; then
    run_step build - meson configure build-gpu -Dtoolkit_root="$tk" || die "meson configure failed: see $log"
  else
    run_step build - meson setup build-gpu -Dbuildtype=release -Dcuda=enabled -Dtoolkit_root="$tk" ||
      die "meson setup failed: see $log"
  fi
  run_step build - ninja -C build-gpu gpubench || die "build failed: see $log"
fi

# ---- part 1: the version chain and its verdict ------------------------------------------------
echo "gpu-check: part 1: versions and the GPU's state"
for n in "${notes[@]}"; do echo "  $n"; done
run_step version - "$exe" --version
# The chain: `gpubench devices` with the CUDA backend's report on stderr (gb_cuda_report).
chain="$tmp/chain.txt"
step_err=$chain run_step chain "$tmp/devices.txt" env GPUBENCH_CUDA_REPORT=1 "$exe" devices --json
chain_rc=$?
# What `gpubench devices --json` (its established layout) says of CUDA, as one line:
# "cuda: unavailable (REASON)" or "cuda: N device(s)"; with `names`, the devices instead:
# "[0] NVIDIA H200;[1] ...".
cuda_json() {
  python3 - "$tmp/devices.txt" "$1" <<'PY' 2>/dev/null
import json, sys
try:
    backends = json.load(open(sys.argv[1]))
except Exception:
    sys.exit(1)
for b in backends if isinstance(backends, list) else []:
    if not isinstance(b, dict) or b.get("backend") != "cuda":
        continue
    devs = b.get("devices") or []
    if sys.argv[2] == "names":
        print(";".join("[%s] %s" % (d.get("index"), d.get("name")) for d in devs))
    elif b.get("available"):
        print("cuda: %d device%s" % (len(devs), "" if len(devs) == 1 else "s"))
    else:
        print("cuda: unavailable (%s)" % b.get("reason", "no reason given"))
    sys.exit(0)
sys.exit(1)
PY
}
cuda_line() { cuda_json line || echo "cuda: unavailable (gpubench devices said nothing about CUDA: exit $chain_rc)"; }
cuda_devices() { cuda_json names; }

has_smi=false
command -v nvidia-smi >/dev/null 2>&1 && has_smi=true
compat_note=""
verdict=""
cuda_state=absent   # ready | broken | absent
if ! $dry; then
  line=$(cuda_line)
  # An older driver: retry with the toolkit's forward-compatibility libcuda.
  if [[ "$line" == *"the driver supports CUDA"* ]] && [ -n "$tk" ] &&
     ls "$tk"/compat/libcuda.so.* >/dev/null 2>&1; then
    compat_note="older driver ($(grep -m1 '^cuda: driver:' "$chain")): retried with the forward-compatibility libcuda in $tk/compat"
    echo "gpu-check: $compat_note"
    export LD_LIBRARY_PATH="$tk/compat${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    step_err=$chain run_step compat "$tmp/devices.txt" env GPUBENCH_CUDA_REPORT=1 "$exe" devices --json
    chain_rc=$?
    line=$(cuda_line)
  fi
  compile_line=$(grep -a -m1 '^cuda: NVRTC test compile:' "$chain" || echo "cuda: NVRTC test compile: not run")
  blas_line=$(grep -a -m1 '^cuda: cuBLAS:' "$chain" || echo "cuda: cuBLAS: ?")
  smi_gpu=false
  $has_smi && nvidia-smi -L 2>/dev/null | grep -q '^GPU ' && smi_gpu=true
  case "$line" in
    "cuda: 0 devices")
      cuda_state=broken
      verdict="FAIL: the driver answers but shows no GPU (nvidia-smi: $($has_smi && nvidia-smi -L 2>&1 | head -1 || echo absent))" ;;
    cuda:\ [0-9]*)
      if [[ "$compile_line" != *": ok"* ]]; then
        cuda_state=broken
        verdict="FAIL: NVRTC cannot compile the kernels: ${compile_line#cuda: NVRTC test compile: }"
      else
        cuda_state=ready
        verdict="CUDA ready: ${line#cuda: }: $(cuda_devices)"
        [[ "$blas_line" == *missing* ]] && verdict="$verdict; but no cuBLAS: BLAS cases are skipped"
      fi ;;
    *"no NVIDIA driver is installed"*)
      if $smi_gpu; then
        cuda_state=broken
        verdict="FAIL: nvidia-smi sees a GPU but gpubench finds no driver: ${line#cuda: }"
      else
        cuda_state=absent
        verdict="no NVIDIA driver: CUDA not checked"
      fi ;;
    *)
      cuda_state=broken
      verdict="FAIL: CUDA ${line#cuda: }" ;;
  esac
  {
    echo "gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n), $(uname -sr)"
    (. /etc/os-release 2>/dev/null && echo "OS: ${PRETTY_NAME:-?}"); ldd --version 2>&1 | head -1
    for n in "${notes[@]}"; do echo "$n"; done
    [ -n "$compat_note" ] && echo "$compat_note"
    echo "profile: $profile"
    echo
    echo "version chain (GPUBENCH_CUDA_REPORT=1 gpubench devices: exit $chain_rc, ${line#cuda: }):"
    grep -a '^cuda: ' "$chain" | sed 's/^/  /'
    echo "  nvidia-smi: $($has_smi && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1 || echo 'not found')"
    echo "verdict: $verdict"
  } >"$out/env.txt"
  sed -n '/^version chain/,$p' "$out/env.txt"
fi
run_step json "$tmp/devices.json" "$exe" devices --json
if ! $dry; then
  { echo; echo "gpubench devices --json:"; cat "$tmp/devices.json" 2>/dev/null; } >>"$out/env.txt"
fi

# ---- the GPU's state ------------------------------------------------------------------------------
gpu_state() {
  local q
  if ! command -v nvidia-smi >/dev/null 2>&1; then
    echo "nvidia-smi: not found"
    return 0
  fi
  # One query per group: a field this driver does not know fails its group only.
  for q in index,name,pci.bus_id,compute_cap,memory.total,memory.used \
           clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,clocks_event_reasons.active \
           mig.mode.current,persistence_mode,ecc.mode.current,compute_mode \
           power.draw,power.limit,power.max_limit,temperature.gpu \
           pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max; do
    nvidia-smi --query-gpu="$q" --format=csv 2>&1
  done
  echo "other processes on the GPU:"
  nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader 2>&1 |
    sed 's/^/  /; $!b; /^  $/s/.*/  none/'
}
if $dry; then
  run_step state - nvidia-smi "(5 --query-gpu groups, then --query-compute-apps)"
else
  echo "gpu-check: the GPU's state"
  export -f gpu_state
  run_step state "$tmp/state.txt" bash -c gpu_state
  sed 's/^/  /' "$tmp/state.txt" | tee -a "$out/env.txt"
  python3 - "$tmp/devices.json" <<'PY' 2>/dev/null | tee -a "$out/env.txt"
import json, sys
for b in json.load(open(sys.argv[1])):
    for x in (b.get("devices") or []) if b.get("backend") == "cuda" else []:
        print("  from gpubench: cuda:%s %s: %s, %s SMs at %s MHz, %.1f GiB, L2 %.0f MiB, "
              "HBM bound %.0f GB/s (%s MHz x %s bits)" % (
                  x.get("index"), x.get("name"), x.get("arch"), x.get("compute_units"),
                  x.get("clock_mhz"), x.get("global_mem_bytes", 0) / 2**30,
                  x.get("l2_bytes", 0) / 2**20, x.get("peak_mem_gbs", 0),
                  x.get("mem_clock_mhz"), x.get("mem_bus_bits")))
PY
  echo "gpu-check: part 1 done in $((SECONDS - t_start)) s: $verdict"
fi

# ---- part 2: the smoke test -----------------------------------------------------------------------
declare -A rc=()
failed=false
smoke_yaml="$tmp/smoke.yaml"
cat >"$smoke_yaml" <<'YAML'
# gpu-check smoke: every CUDA path once, and the figures the peers step sets beside the
# specialists, about 40 s on an H200.
name: smoke
measure: {warmup_runs: 1, warmup_time: 2ms, min_samples: 3, max_samples: 10, max_noise: 0.05,
          max_time: 150ms, min_sample_time: 1ms}
telemetry: {energy_window: 1.2s}   # every case runs on to 1.2 s: NVML gives its energy
suites:
  - suite: launch
    params: {op: latency}
  - suite: memory           # the peers' sizes (gpu-peers.py): float arrays, 16-byte loads (vec 0)
    params: {op: [copy, triad], type: float, size: 512MiB}  # 2 GiB: the triad below (host
                            # set-up and verify take several seconds per 2 GiB case)
  - suite: compute
    params: {prec: [f16, bf16, int8dot], iters: 256, groups: 8}
  - suite: gemm             # beside torch.matmul
    params: {prec: [f32, tf32, f16, bf16], impl: library, shape: [4096, 8192]}
  - suite: gemm
    params: {prec: [f8e4m3, f8e5m2], impl: library, shape: 1024, trans: tn}
  - suite: gemm             # near the matrix units' peak: BF16 and FP8 at 8192 (about 1 ms each)
    params: {prec: [bf16, f8e4m3], impl: library, shape: 8192, trans: tn}
  - suite: memory           # a timed window over 1 s: NVML's energy counter and power count
    params: {op: triad, type: float, wg: 256, size: 2GiB}
    measure: {min_samples: 12, max_samples: 12, min_sample_time: 100ms, max_time: 3s}
  - suite: transfer
    params: {op: [h2d, d2h], memory: pinned, mode: async, size: 256MiB}
  - suite: transfer
    params: {op: d2d, memory: device, mode: async, size: 1GiB}
  - suite: peerbw           # 10 cases at most: positions 0 and 1 only (8 GPUs: 56 links)
    params: {method: [ce, sm], src: 0, dst: 1, size: 64MiB}
  - suite: conv             # cuDNN (its own search) beside torch.nn.functional.conv2d
    params: {prec: [f32, tf32, f16, bf16], impl: library, layout: [nchw, nhwc],
             shape: resnet50-b32.conv3_3x3}
  - suite: conv             # the backward passes and the own kernel, once each; int8 forward
    params: {dir: [fwd, bwd_data, bwd_filter], prec: f16, impl: [library, own], layout: nhwc,
             shape: resnet50-b32.conv4_3x3}
  - suite: conv
    params: {prec: i8, impl: [library, own], layout: nhwc, shape: resnet50-b32.conv4_3x3}
  - suite: gemm             # Llama 3 8B's decoder layers at 64 sequences (not its 1 GiB output
    params: {prec: [bf16, i8], impl: library,   # head: 4 GiB of FP64 draws on the host)
             shape: [llama3-8b-decode-b64.qkv, llama3-8b-decode-b64.attn_out,
                     llama3-8b-decode-b64.ffn_gate_up, llama3-8b-decode-b64.ffn_down]}
  - suite: gemm             # int8 in the TN layout too, in case cuBLAS refuses NN for CUDA_R_8I
    params: {prec: i8, impl: library, trans: tn, shape: llama3-8b-decode-b64.ffn_down}
  - suite: sparse           # cuSPARSE CSR and the own 2:4 kernel against cuBLAS at one layer
    params: {op: [spmm, nm24], impl: [library, own], density: [1, 0.5, 0.05],
             shape: llama3-8b-decode-b16.attn_out}
  - suite: sparse           # SpMV against the dense baseline, cuBLAS's GEMV (Sgemv_v2_64)
    params: {op: spmv, impl: [library, own], density: [1, 0.05],
             shape: llama3-8b-decode-b16.attn_out}
  - suite: gemm             # a decode layer at batch 1: below the ridge point, so its headline
    params: {prec: [f32, bf16], impl: library,   # is GB/s against the HBM bound, not GFLOP/s
             shape: llama3-8b-decode.attn_out}
YAML

chip_yaml="$tmp/chip.yaml"
cat >"$chip_yaml" <<'YAML'
# gpu-check chip: configs/chip-quick.yaml's suites sized for one GPU step, about 15 s on an H200.
name: chip-gpu-check
measure: {warmup_runs: 1, warmup_time: 2ms, min_samples: 3, max_samples: 10, max_noise: 0.05,
          max_time: 100ms, min_sample_time: 5ms}
suites:
  - suite: latency
    params: {size: {from: 4KiB, to: 1GiB, factor: 8}, stride: 128}
  - suite: cache
    params: {size: {from: 16KiB, to: 1GiB, factor: 8}, reads: 1GiB}
  - suite: local
    params: {op: [read, write], vec: [1, 4], stride: [1, 32, 33]}
  - suite: atomics
    params: {op: [global, local], type: [int32, int64, float], addresses: [1, 0]}
  - suite: batching
    params: {op: launches, mode: [separate, fused, graph], count: 64}
  - suite: memory
    params: {op: copy, type: float, size: [1MiB], wg: 256}
    measure: {cache: cold}
  # Memory management (configs/memory-management.yaml): every CUDA allocation method, its free
  # and its first use, 100 samples each (p99); a training step through cudaMalloc, the
  # stream-ordered pool and the caching pool; pinned against registered; triad against offset.
  - suite: alloc
    params: {method: [device, async, async_keep, managed, pinned, registered, host],
             size: [4KiB, 16MiB]}
    measure: {warmup_runs: 3, warmup_time: 0, min_samples: 100, max_samples: 100,
              max_time: 150ms}
  - suite: pool
    params: {way: [driver, backend_pool, caching], layers: 12, hidden: 4MiB}
    measure: {max_time: 300ms}
  - suite: transfer
    params: {op: [h2d, d2h], memory: [pinned, registered], size: 64MiB}
  - suite: memory
    params: {op: triad, type: float, size: 256MiB, offset: [0, 4, 16, 64, 4096], vec: 1}
  # Many streams at once (configs/cloud.yaml): overlap and fairness across 1 to 8 streams.
  - suite: concurrency
    params: {kernel: [triad, chain, tick], queues: [1, 2, 4, 8], size: 64MiB, items: 1048576}
  # Stream priorities: a high-priority tick's latency beside 3 low-priority chains (one fill
  # launch an estimated 0.3 ms), then on a default stream and alone; about 1-2 s.
  - suite: concurrency
    params: {kernel: priority, queues: 4, items: 1048576, iters: 4096}
    measure: {max_samples: 5, max_time: 1s}
  # Tenants (configs/cloud.yaml): a triad process alone and beside each aggressor process, and
  # fixed-rate small GEMMs beside a large GEMM; the compute mode, MPS and MIG as read. About
  # 10 process starts of ~1 s each.
  - suite: tenants
    params: {victim: triad, aggressor: [none, triad, gemm, h2d, launches], size: 256MiB,
             big_n: 8192}
    measure: {warmup_runs: 1, warmup_time: 0, min_samples: 5, max_samples: 5, max_time: 2s}
  - suite: tenants
    params: {victim: gemm, aggressor: [none, gemm], gemm_n: 256, big_n: 8192}
    measure: {warmup_runs: 1, warmup_time: 0, min_samples: 5, max_samples: 5, max_time: 2s}
  # Serving (configs/cloud.yaml): a 4096x4096 layer through cuBLAS, batches of 1 and 32, at
  # half and 95% of capacity; 512 requests a trace. About 2-4 s estimated (not measured: no
  # GPU here).
  - suite: serve
    params: {shape: 4096x4096, load: [0.5, 0.95], max_batch: 1, max_wait: 0, requests: 512}
    measure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, max_samples: 3, max_time: 1s}
  - suite: serve
    params: {shape: 4096x4096, load: [0.5, 0.95], max_batch: 32, max_wait: 1000,
             requests: 512}
    measure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, max_samples: 3, max_time: 1s}
  # Cold start: CUDA context, NVRTC build, cuBLAS's first GEMM, first verified result; the
  # driver's JIT cache empty (cold) and filled (warm); 5 processes each.
  - suite: startup
    params: {cache: [cold, warm], blas: on}
    measure: {warmup_runs: 0, warmup_time: 0, min_samples: 5, max_samples: 5, max_time: 20s}
YAML

smoke_report() {
  python3 - "$1" <<'PY' || echo "  (no python3: the table above is gpubench's own)"
import json, sys
doc = json.load(open(sys.argv[1]))
devs = {d.get("index"): d for d in doc.get("devices", [])}
for r in doc.get("results", []):
    p = r.get("params", {})
    what = "%s %s" % (r.get("suite"), r.get("case"))
    if r.get("suite") == "gemm":
        what += " %s" % p.get("shape", "")
    if r.get("suite") == "transfer":
        what += " %s" % p.get("memory", "")
    if r.get("suite") == "peerbw":
        what += " %s" % p.get("method", "")
    if r.get("status") != "ok":
        print("  %-28s %s: %s" % (what, r.get("status"), r.get("reason", "")[:160]))
        continue
    line = "  %-28s %10.4g %-8s" % (what, r.get("value", 0), r.get("unit", ""))
    figs = {f.get("name"): f for f in r.get("figures", [])}
    pk = figs.get("peak", {})
    if pk.get("value"):
        line += " %.0f%% of the %.4g %s %s" % (
            100 * r["value"] / pk["value"], pk["value"], pk.get("unit", ""),
            figs.get("peak_from", {}).get("text", "bound"))
    elif pk.get("text"):
        line += " (peak %s)" % pk["text"][:80]
    line += " verified" if r.get("verified") else ""
    if r.get("suite") == "peerbw":
        line += " path %s, %s links" % (figs.get("path", {}).get("text", "?"),
                                         figs.get("links", {}).get("value", "?"))
    print(line)
    # Telemetry (NVML on an NVIDIA GPU): what the device did during the timed samples.
    t = r.get("telemetry") or {}
    srcs = [s for s in t.get("sources", []) if s.get("available")]
    if not srcs:
        why = "; ".join("%s: %s" % (s.get("name"), s.get("reason", "")) for s in t.get("sources", []))
        print("  %-28s telemetry unavailable (%s)" % ("", why[:140]))
        continue
    def mmm(k, unit):
        v = t.get(k) or {}
        if not v or v.get("mean") is None:
            return ""
        return " %s %.0f/%.0f/%.0f %s" % (k.split("_")[0], v.get("min", 0), v.get("mean", 0),
                                          v.get("max", 0), unit)
    tl = "  %-28s telemetry (%s, %d readings):" % ("", ",".join(s.get("name") for s in srcs),
                                                    t.get("readings", 0))
    tl += mmm("clock_mhz", "MHz") + mmm("power_w", "W") + mmm("temp_c", "C")
    if t.get("energy_j") is not None:
        tl += " energy %.3g J (%s)" % (t["energy_j"], t.get("energy_method", ""))
    elif t.get("energy_note"):
        tl += " [%s]" % t["energy_note"]
    if t.get("perf_per_watt") is not None:
        tl += " %.3g %s" % (t["perf_per_watt"], t.get("perf_per_watt_unit", ""))
    tl += " throttled %s" % t.get("throttled", 0)
    print(tl)
PY
}

if $dry || [ "$cuda_state" != absent ]; then
  $dry || echo "gpu-check: part 2: smoke test on CUDA"
  run_step smoke - "$exe" run "$smoke_yaml" --backend cuda -o "$out/smoke-cuda.json" -q
  rc[smoke]=$?
  if ! $dry; then
    [ -f "$out/smoke-cuda.json" ] && smoke_report "$out/smoke-cuda.json" | tee -a "$log"
    echo "gpu-check: smoke exit ${rc[smoke]} (0: every case ran or was a recorded skip)" |
      tee -a "$log"
    [ "${rc[smoke]}" = 0 ] || failed=true
  fi
else
  echo "gpu-check: part 2: smoke test skipped: $verdict"
fi

# ---- part 2a: the peers beside the smoke test's figures ------------------------------------------
peers_line() { # what the peers step will find, for the plan
  local p w=()
  for p in BabelStream nvbandwidth; do
    [ -d "$peers_src/$p" ] && w+=("$p source in $peers_src/$p") || w+=("no $peers_src/$p")
  done
  python3 -c 'import torch' 2>/dev/null && w+=("torch importable") || w+=("no torch")
  python3 -c 'import cupy' 2>/dev/null && w+=("cupy importable") || w+=("no cupy")
  local IFS=';'; echo "${w[*]}" | sed 's/;/; /g'
}
# The script's own deadline: 10 s before the step's (it writes its files in them), at least half.
peer_inner=$((budget[peers] > 20 ? budget[peers] - 10 : (budget[peers] + 1) / 2))
if ! $smoke_only && { $dry || [ "$cuda_state" != absent ]; }; then
  if $dry; then
    echo "  (peers here: $(peers_line))"
  else
    echo "gpu-check: part 2a: the peers beside the smoke figures (budget ${budget[peers]} s)"
  fi
  if $dry || [ -f "$out/smoke-cuda.json" ]; then
    run_step peers - python3 scripts/gpu-peers.py --results "$out/smoke-cuda.json" --backend cuda \
      --src "$peers_src" --build build-peers --budget "$peer_inner" -o "$out" \
      --md "$tmp/peers.md"
    rc[peers]=$?
    # Peers that are absent or fail are recorded in peers.json; only the step itself can fail.
    $dry || { [ "${rc[peers]}" = 0 ] || failed=true; }
  else
    echo "gpu-check: peers skipped: the smoke test wrote no results" | tee -a "$log"
  fi
fi

# ---- part 2b: the chip suites on CUDA ------------------------------------------------------------
if ! $smoke_only && { $dry || [ "$cuda_state" != absent ]; }; then
  $dry || echo "gpu-check: part 2b: the chip suites on CUDA (budget ${budget[chip]} s)"
  run_step chip - "$exe" run "$chip_yaml" --backend cuda -o "$out/chip-cuda.json" -q
  rc[chip]=$?
  if ! $dry; then
    echo "gpu-check: chip exit ${rc[chip]} (0: every case ran or was a recorded skip)" |
      tee -a "$log"
    [ "${rc[chip]}" = 0 ] || failed=true
  fi
fi

# ---- part 2c: the CUDA kernels under compute-sanitizer ---------------------------------------------
# configs/kernel-check.yaml (every own kernel, its variants, at the smallest sizes: what
# scripts/check-kernels.sh runs under Oclgrind) under memcheck, and the kernels that share local
# memory (the tiled GEMM and transpose, the dot's reduction, conv, local) under racecheck.
# compute-sanitizer follows gpubench's worker process (--target-processes all); an error it
# reports fails the step (--error-exitcode 9). Not there (no toolkit bin/): a recorded skip.
sanitizer=""
for c in "${tk:+$tk/bin/compute-sanitizer}" "$(command -v compute-sanitizer 2>/dev/null)"; do
  [ -n "$c" ] && [ -x "$c" ] && { sanitizer=$c; break; }
done
race_yaml="$tmp/racecheck.yaml"
cat >"$race_yaml" <<'YAML'
name: racecheck-gpu-check
measure: {warmup_runs: 0, warmup_time: 0, min_samples: 1, max_samples: 1, max_time: 1ms, min_sample_time: 0}
suites:
  - suite: gemm
    params: {prec: [f32, f16], impl: own, shape: [64, 20x36x28]}
  - suite: memory
    params: {op: dot, config: default, type: float, size: 64KiB}
  - suite: conv
    params: {dir: [fwd, bwd_filter], layout: nhwc, impl: own, prec: f32, shape: 1x4x6x6-4x3x3-p1}
  - suite: local
    params: {op: [read, write], vec: 1, stride: [1, 33]}
  - suite: tuning
    params: {kernel: [dot, transpose], size: 256, search: random, budget: 2}
YAML
if ! $smoke_only && { $dry || [ "$cuda_state" != absent ]; }; then
  if [ -z "$sanitizer" ] && ! $dry; then
    echo "gpu-check: part 2c: compute-sanitizer skipped: not found (no toolkit bin/, not on PATH)" |
      tee -a "$log"
  else
    $dry || echo "gpu-check: part 2c: the CUDA kernels under compute-sanitizer ($sanitizer)"
    for tool in memcheck racecheck; do
      prof=configs/kernel-check.yaml
      [ $tool = racecheck ] && prof=$race_yaml
      run_step $tool "$tmp/$tool.txt" "${sanitizer:-compute-sanitizer}" --tool $tool \
        --target-processes all --error-exitcode 9 --print-limit 20 \
        "$exe" run "$prof" --backend cuda -o "$tmp/$tool.json" -q
      rc[$tool]=$?
      if ! $dry; then
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race reported|hazard" "$tmp/$tool.txt" |
          head -20 | tee -a "$log"
        echo "gpu-check: $tool exit ${rc[$tool]} (0: no error reported; 9: errors above)" |
          tee -a "$log"
        [ "${rc[$tool]}" = 0 ] || failed=true
      fi
    done
  fi
fi

# ---- part 2d: NCCL's collectives and their peers ---------------------------------------------------
# The collective suite through the backend's NCCL (ops->comm_init / comm_run) on the whole CUDA
# device set (every GPU, one rank each), each output verified; nccl-tests' sizes (bytes).
nccl_yaml="$tmp/nccl.yaml"
cat >"$nccl_yaml" <<'YAML'
name: nccl-gpu-check
measure: {warmup_runs: 2, warmup_time: 2ms, min_samples: 5, max_samples: 20, max_noise: 0.05,
          max_time: 150ms, min_sample_time: 1ms}
suites:
  - suite: collective
    params: {transport: nccl, coll: [allreduce, allgather, reducescatter, broadcast, reduce,
                                     alltoall, sendrecv], size: [64KiB, 64MiB]}
  - suite: collective
    params: {transport: nccl, coll: allreduce, dtype: bf16, size: 64MiB}
  - suite: collective
    params: {transport: nccl, coll: [allreduce, allgather], inplace: true, size: 64MiB}
YAML
if ! $smoke_only && { $dry || [ "$cuda_state" != absent ]; }; then
  $dry || echo "gpu-check: part 2d: NCCL's collectives on CUDA (budget ${budget[nccl]} s)"
  run_step nccl - "$exe" run "$nccl_yaml" --backend cuda -o "$out/nccl-cuda.json" -q
  rc[nccl]=$?
  if ! $dry; then
    grep -a -m1 '^cuda: NCCL:' "$chain" | tee -a "$log"
    echo "gpu-check: nccl exit ${rc[nccl]} (0: every case ran or was a recorded skip)" |
      tee -a "$log"
    [ "${rc[nccl]}" = 0 ] || failed=true
  fi
  nt=()
  [ -d "$peers_src/nccl-tests" ] && nt=(--nccl-tests "$peers_src/nccl-tests")
  if ! $dry && ! command -v python3 >/dev/null; then
    echo "gpu-check: NCCL peers skipped: no python3" | tee -a "$log"
  elif $dry || [ -f "$out/nccl-cuda.json" ]; then
    run_step ncclpeer - python3 scripts/gpu-nccl-peer.py --results "$out/nccl-cuda.json" \
      --size 64MiB ${nt[@]+"${nt[@]}"} --md "$tmp/nccl-peer.md"
    rc[ncclpeer]=$?
    # An absent or failing peer is a line of its table; only the script itself can fail.
    $dry || { [ "${rc[ncclpeer]}" = 0 ] || failed=true; }
  else
    echo "gpu-check: NCCL peers skipped: the collective suite wrote no results" | tee -a "$log"
  fi
fi

# ---- part 2e: serving and health on CUDA ----------------------------------------------------------
# serve's LoadGen scenarios through a cuBLAS layer (SingleStream, MultiStream, Offline, Server at
# two loads and ten times its capacity, a 30 Hz periodic source with its deadline), the llm suite
# at Llama 3 8B's shapes cut to 2 layers (prefill, decode over the KV cache, continuous batching;
# sampled tokens verified on the host), a short burn (bf16 and f8 GEMMs, each product checked
# against the first) and memtest over a quarter of the free memory (every pattern); then
# `gpubench diag --level 1` judges the node, every test named with its verdict.
serving_yaml="$tmp/serving.yaml"
cat >"$serving_yaml" <<'YAML'
name: serving-gpu-check
measure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, max_samples: 3, max_time: 5s,
          min_sample_time: 0}
suites:
  - suite: serve
    params: {shape: 4096x4096, scenario: [SingleStream, MultiStream, Offline], requests: 512}
  - suite: serve
    params: {shape: 4096x4096, scenario: Server, load: [0.5, 0.9, 10], max_batch: 8,
             max_wait: 1000, requests: 1024, queue: 256}
  - suite: serve
    params: {shape: 4096x4096, scenario: Periodic, fps: 30, requests: 64}
  - suite: llm
    params: {model: llama3-8b, layers: 2, prompt_len: 128, output_len: 32, requests: 8,
             max_batch: 8, rate: 0}
  - suite: burn
    measure: {warmup_runs: 0, warmup_time: 0, min_samples: 1, max_samples: 1, max_time: 1ms}
    params: {dtype: [bf16, f8], duration: 3}
  - suite: memtest
    measure: {warmup_runs: 0, warmup_time: 0, min_samples: 1, max_samples: 1, max_time: 1ms}
    params: {fraction: 0.25, budget: 2}
YAML
if ! $smoke_only && { $dry || [ "$cuda_state" != absent ]; }; then
  $dry || echo "gpu-check: part 2e: serving and health on CUDA (budget ${budget[serving]} s + ${budget[diag]} s)"
  run_step serving - "$exe" run "$serving_yaml" --backend cuda -o "$out/serving-cuda.json" -q
  rc[serving]=$?
  if ! $dry; then
    echo "gpu-check: serving exit ${rc[serving]} (0: every case ran or was a recorded skip)" |
      tee -a "$log"
    [ "${rc[serving]}" = 0 ] || failed=true
  fi
  run_step diag "$out/diag-1-cuda.txt" "$exe" diag --level 1 --backend cuda -q \
    --results "$out/diag-1-results.json"
  rc[diag]=$?
  if ! $dry; then
    head -40 "$out/diag-1-cuda.txt" | tee -a "$log"
    [ -f "$out/diag-1-results.json" ] &&
      "$exe" diag --level 1 --from "$out/diag-1-results.json" -f json -o "$out/diag-1-cuda.json" \
        -q >/dev/null 2>&1
    echo "gpu-check: diag exit ${rc[diag]} (0: pass, warnings listed; 3: a failed test; 1: a test broke)" |
      tee -a "$log"
    [ "${rc[diag]}" = 0 ] || failed=true
  fi
fi

# ---- part 3: the profile on both backends, and the summary ---------------------------------------
cat >"$tmp/summary.py" <<'PY'
import json, sys
cuda_f, ocl_f, dev_f, rc_cuda, rc_ocl, how, icd, verdict = sys.argv[1:9]

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return {"error": str(e)}

def key(r):
    return (r.get("suite"), r.get("case"), json.dumps(r.get("params", {}), sort_keys=True))

def fmt(r):
    if r is None:
        return "-"
    if r.get("status") != "ok":
        return r.get("status", "?")
    v = r.get("value")
    s = "%.4g" % v if isinstance(v, (int, float)) else str(v)
    return s + ("*" if r.get("noisy") else "")

runs = {"cuda": load(cuda_f), "opencl": load(ocl_f)}
rows, order = {}, []
for b, doc in runs.items():
    for r in doc.get("results", []) or []:
        k = key(r)
        if k not in rows:
            rows[k] = {}
            order.append(k)
        rows[k][b] = r

print("# gpubench: CUDA and OpenCL side by side\n")
print("verdict: %s  \ngpubench: %s  \n%s  " % (verdict, how, icd))
devs = load(dev_f)
if isinstance(devs, list):
    for b in devs:
        if not b.get("available"):
            print("- %s: unavailable (%s)" % (b.get("backend"), b.get("reason")))
        for d in b.get("devices", []) or []:
            print("- %s:%s %s, driver %s, %s" % (b.get("backend"), d.get("index"), d.get("name"),
                                                 d.get("driver"), d.get("version")))
print("\nexit status: cuda %s, opencl %s (2: no device of that backend; 124/137: out of budget)\n"
      % (rc_cuda or "not run", rc_ocl or "not run"))
for b, doc in runs.items():
    if "error" in doc:
        print("- %s: no results (%s)" % (b, doc["error"]))
print("\n| suite | case | params | unit | CUDA | OpenCL | CUDA/OpenCL |")
print("|---|---|---|---|---:|---:|---:|")
for k in order:
    c, o = rows[k].get("cuda"), rows[k].get("opencl")
    any_r = c or o
    params = " ".join("%s=%s" % kv for kv in sorted((any_r.get("params") or {}).items())
                      if not (kv[0] == "op" and str(kv[1]) == k[1]))  # op is the case
    ratio = "-"
    if c and o and c.get("status") == "ok" and o.get("status") == "ok" and o.get("value"):
        ratio = "%.3f" % (c["value"] / o["value"])
    print("| %s | %s | %s | %s | %s | %s | %s |" % (k[0], k[1], params, any_r.get("unit", ""),
                                                   fmt(c), fmt(o), ratio))
print("\n`*`: noisy (the CI95 target was not met). Higher is better for GB/s, lower for us.")
for b, doc in runs.items():
    bad = [r for r in doc.get("results", []) or [] if r.get("status") not in ("ok", None)]
    for r in bad:
        print("- %s %s %s %s: %s" % (b, r.get("suite"), r.get("case"), r.get("status"),
                                     r.get("reason")))
PY

if ! $smoke_only; then
  $dry || echo "gpu-check: part 3: $profile on CUDA, then on OpenCL"
  for b in cuda opencl; do
    if ! $dry && [ $b = cuda ] && [ "$cuda_state" = absent ]; then
      echo "gpu-check: $profile on cuda skipped: $verdict"
      continue
    fi
    $dry || echo "gpu-check: $profile on $b (budget ${budget[$b]} s)"
    run_step $b - "$exe" run "$profile" --backend $b -o "$out/$pname-$b.json" -q
    rc[$b]=$?
    # Is this GPU normal? The CUDA run against the expectations in the repository (none yet
    # for an H200: its figures are judged against their bounds) and what NVML said of the
    # device's health (PCIe link under load, ECC, row remaps, power limit, persistence), with
    # the Prometheus metrics; exit 3 (not normal) is recorded, not a failure of gpu-check.
    if [ $b = cuda ] && { $dry || [ -f "$out/$pname-cuda.json" ]; }; then
      run_step health "$out/check-cuda.txt" "$exe" check "$out/$pname-cuda.json" \
        --openmetrics "$out/check-cuda.prom"
      hrc=$?
      $dry || echo "gpu-check: check exit $hrc (0 normal, 3 not normal: see check-cuda.txt)" | tee -a "$log"
    fi
    if ! $dry; then
      echo "gpu-check: $b exit ${rc[$b]}" | tee -a "$log"
      # A backend without a device exits 2 ("no device selected"): recorded, not a failure,
      # except CUDA where the verdict said it is ready.
      case "${rc[$b]}" in
        0) ;;
        2) [ $b = cuda ] && failed=true ;;
        *) failed=true ;;
      esac
    fi
  done
  if $dry || command -v python3 >/dev/null; then
    run_step summary "$out/summary.md" python3 "$tmp/summary.py" "$out/$pname-cuda.json" \
      "$out/$pname-opencl.json" "$tmp/devices.json" "${rc[cuda]:-}" "${rc[opencl]:-}" "$how" \
      "$icd_note" "$verdict" && ! $dry && cat "$out/summary.md"
    if ! $dry && [ -f "$tmp/peers.md" ]; then
      { echo; cat "$tmp/peers.md"; } >>"$out/summary.md"
      cat "$tmp/peers.md"
    fi
    if ! $dry && [ -f "$tmp/nccl-peer.md" ]; then
      { echo; cat "$tmp/nccl-peer.md"; } >>"$out/summary.md"
    fi
  else
    echo "gpu-check: no python3: no summary.md (the results JSON files are complete)" | tee -a "$log"
  fi
fi

$dry && { echo "gpu-check: dry run: nothing was run"; exit 0; }
[ "$chain_rc" = 0 ] || failed=true
status=0
if [ "$cuda_state" = broken ] || $failed; then
  status=1
elif [ "$cuda_state" = absent ]; then
  status=4
fi
echo "gpu-check: verdict: $verdict"
echo "gpu-check: done in $((SECONDS - t_start)) s, exit $status; files in $out"
exit $status
