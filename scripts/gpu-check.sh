#!/usr/bin/env bash
# gpu-check.sh — the one prepared check for a machine with an NVIDIA GPU and no package registry.
#
# On the GPU machine it (1) gets a gpubench: the carried bundle (made beforehand with
# --make-bundle on a build machine) or, without one, a native build when the machine has a C
# compiler, meson, ninja and the -dev files of libyaml, jansson and libcrypto; (2) finds the
# CUDA toolkit (NVRTC and the headers it includes at run time, cuBLAS) and NVIDIA's OpenCL ICD;
# (3) runs `gpubench devices`, then PROFILE (configs/quick.yaml) on CUDA and on OpenCL; (4) writes
# everything into one folder: env.txt (machine, driver, toolkit, how gpubench was obtained,
# `gpubench devices`), devices.json, quick-cuda.json, quick-opencl.json, summary.md (CUDA and
# OpenCL side by side, case by case) and gpu-check.log. Budget: under 8 minutes in all.
#
#   scripts/gpu-check.sh [OPTIONS]                 on the GPU machine
#   scripts/gpu-check.sh --make-bundle DIR         on a build machine (here): prepare DIR to carry
#
# Options:
#   -o, --out DIR        output folder (default: $OUT if set, else results/gpu-check-UTCTIME)
#   -m, --mode MODE      auto (default): the bundle if one runs here, else a native build;
#                        bundle: only the bundle; build: only a native build
#   -B, --bundle DIR     the carried bundle (default: build-bundle, next to this repo's root)
#   -p, --profile FILE   the profile (default: configs/quick.yaml)
#       --toolkit DIR    the CUDA toolkit root (default: $CUDA_HOME, /usr/local/cuda, nvcc's)
#       --budget SECS    the whole run's time limit (default: 450, i.e. 7.5 minutes)
#   -n, --dry-run        detect, then print the steps without building or running anything
#       --make-bundle DIR  build (build-bundle-src/ unless --from BUILD) and copy gpubench and
#                        the shared libraries it needs, except glibc's and the CUDA toolkit's,
#                        into DIR/bin and DIR/lib (libstdc++ into DIR/lib/fallback, used only
#                        when the machine's own cannot start gpubench); about 13 MB
#       --from BUILD     with --make-bundle: take gpubench from this existing build folder
#   -h, --help
#
# The bundle is the expected way: made here with --make-bundle build-bundle (an ignored folder),
# carried to the GPU machine with the repo, and found there by default.
#
# What the GPU machine needs: x86-64 Linux with glibc >= 2.34 (for a bundle made on Debian 12),
# the NVIDIA driver (>= 580 for the CUDA 13.0 runtime linked into gpubench), the CUDA toolkit's
# libnvrtc.so.13 and include/ (NVRTC compiles the kernels at run time and includes cuda_fp16.h),
# and, for the BLAS suites, libcublas.so.13 (loaded when needed; without it the BLAS capability
# bits are clear). For OpenCL, NVIDIA's libnvidia-opencl.so.1 (part of the driver): the script
# registers it with the carried ICD loader when /etc/OpenCL/vendors has no entry for it.
#
# Exit status: 0 when every run that could run ended 0; 1 when one failed; 2 usage or setup.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 2
t_start=$SECONDS

out=""
mode=auto
bundle=build-bundle
profile=configs/quick.yaml
toolkit=""
budget=450
dry=false
make_bundle=""
from_build=""

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "gpu-check: $*" >&2; exit 2; }

while (($#)); do
  case "$1" in
    -o|--out) out=${2:?--out needs a folder}; shift 2 ;;
    -m|--mode) mode=${2:?--mode needs auto, bundle or build}; shift 2 ;;
    -B|--bundle) bundle=${2:?--bundle needs a folder}; shift 2 ;;
    -p|--profile) profile=${2:?--profile needs a file}; shift 2 ;;
    --toolkit) toolkit=${2:?--toolkit needs a folder}; shift 2 ;;
    --budget) budget=${2:?--budget needs seconds}; shift 2 ;;
    -n|--dry-run) dry=true; shift ;;
    --make-bundle) make_bundle=${2:?--make-bundle needs a folder}; shift 2 ;;
    --from) from_build=${2:?--from needs a build folder}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
case "$mode" in auto|bundle|build) ;; *) die "--mode must be auto, bundle or build, not '$mode'" ;; esac
[[ "$budget" =~ ^[0-9]+$ ]] || die "--budget must be whole seconds, not '$budget'"

# Runs a step, or prints it under --dry-run. steplog appends the step's output to $log;
# stepto FILE writes its stdout to FILE (stderr to $log).
step() {
  if $dry; then
    printf '  $'; printf ' %q' "$@"; printf '\n'
  else
    "$@"
  fi
}
steplog() {
  if $dry; then step "$@"; printf '      >> %s\n' "$log"; else "$@" >>"$log" 2>&1; fi
}
stepto() {
  local f=$1; shift
  if $dry; then step "$@"; printf '      > %s\n' "$f"; else "$@" >"$f" 2>>"$log"; fi
}

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
# The folder holding lib$1 (libnvrtc.so.13, libcublas.so.13): the toolkit's, the loader's
# cache, or a pip wheel's (nvidia-cuda-nvrtc, nvidia-cublas).
find_cuda_lib() {
  local name=$1 d
  for d in "$tk/lib64" "$tk/lib" "$tk/targets/x86_64-linux/lib"; do
    [ -e "$d/$name" ] && { echo "$d"; return 0; }
  done
  d=$(ldconfig -p 2>/dev/null | awk -v n="$name" '$1 == n {print $NF; exit}')
  [ -n "$d" ] && { dirname "$d"; return 0; }
  for d in /usr/lib/x86_64-linux-gnu /usr/lib64 \
           /usr/local/lib/python3*/dist-packages/nvidia/*/lib \
           /opt/*/.venv/lib/python3*/site-packages/nvidia/*/lib \
           /usr/lib/python3*/site-packages/nvidia/*/lib; do
    [ -e "$d/$name" ] && { echo "$d"; return 0; }
  done
  return 1
}

# ---- --make-bundle (on the build machine) ----------------------------------------------------
if [ -n "$make_bundle" ]; then
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
  echo "gpu-check: bundling $exe into $make_bundle/{bin,lib}"
  step rm -rf "$make_bundle"
  step mkdir -p "$make_bundle/bin" "$make_bundle/lib"
  step cp "$exe" "$make_bundle/bin/gpubench"
  if ! $dry; then
    # Every shared library the binary loads, except glibc's own and the CUDA toolkit's (the
    # GPU machine has its toolkit; NVRTC alone is over 100 MB). The OpenCL ICD loader is among
    # them; it finds NVIDIA's driver through /etc/OpenCL/vendors or OCL_ICD_VENDORS.
    # The C++ runtime (CLBlast needs it) goes to lib/fallback, used only where the machine's
    # own cannot start gpubench: NVIDIA's libraries loaded into the process (NVRTC's builtins,
    # the OpenCL driver) expect the machine's, which is usually the newer one.
    mkdir -p "$make_bundle/lib/fallback"
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
      echo "needs at most: $(objdump -T "$exe" "$make_bundle"/lib/* 2>/dev/null \
                             | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)"
      echo; echo "ldd bin/gpubench (here):"; ldd "$exe"
    } >"$make_bundle/MANIFEST.txt"
    echo "gpu-check: bundle ready ($(du -sh "$make_bundle" | cut -f1)):"
    ls -l "$make_bundle/bin" "$make_bundle/lib"
  fi
  exit 0
fi

# ---- the GPU machine ---------------------------------------------------------------------------
if [ -z "$out" ]; then
  out=${OUT:-results/gpu-check-$(date -u +%Y%m%dT%H%M%SZ)}
fi
[ -f "$profile" ] || die "no profile $profile"
pname=$(basename "$profile" .yaml)

echo "gpu-check: detecting (dry run: $dry, budget ${budget}s)"
notes=()
tk=$(find_toolkit) || tk=""
if [ -n "$tk" ]; then
  export GPUBENCH_CUDA_INCLUDE="$tk/include"
  notes+=("CUDA toolkit: $tk ($("$tk/bin/nvcc" --version 2>/dev/null | grep -o 'release [0-9.]*' || echo 'no nvcc'))")
else
  notes+=("CUDA toolkit: not found (NVRTC cannot include cuda_fp16.h: CUDA kernels will not build)")
fi
libpath=""
for lib in libnvrtc.so.13 libcublas.so.13; do
  if d=$(find_cuda_lib "$lib"); then
    libpath="$libpath${libpath:+:}$d"
    notes+=("$lib: $d")
  else
    notes+=("$lib: not found")
  fi
done
if d=$(find_cuda_lib libcublas.so.13 2>/dev/null); then
  export GPUBENCH_CUBLAS="$d/libcublas.so.13"
fi

# NVIDIA's OpenCL: registered in /etc/OpenCL/vendors, or found and registered for this run.
icd_note=""
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
# bundle's libraries and the toolkit's, then also the bundle's fallback C++ runtime.
bundle_runs() {
  local base="$bundle/lib${libpath:+:$libpath}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" p
  [ -x "$bundle/bin/gpubench" ] || return 1
  for p in "$base" "$base:$bundle/lib/fallback"; do
    if LD_LIBRARY_PATH="$p" "$bundle/bin/gpubench" --version >/dev/null 2>&1; then
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
if [ "$mode" != build ] && bundle_runs; then
  exe="$bundle/bin/gpubench"
  export LD_LIBRARY_PATH="$bundle_ld"
  how="carried bundle $bundle ($(head -2 "$bundle/MANIFEST.txt" 2>/dev/null | paste -sd ';' -))"
elif [ "$mode" != bundle ] && why=$(can_build); then
  exe=build-gpu/gpubench
  how="native build in build-gpu (toolkit $tk)"
  export LD_LIBRARY_PATH="$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
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
for n in "${notes[@]}"; do echo "  $n"; done

left() { echo $((budget - (SECONDS - t_start))); }
# A run gets what is left minus a reserve for the steps after it, at least 30 s.
slice() { local s=$(( $(left) - $1 )); ((s < 30)) && s=30; echo $s; }

$dry && echo "gpu-check: steps"
step mkdir -p "$out" || die "cannot create $out"
log="$out/gpu-check.log"
$dry || : >"$log"

if [ "$how" = "native build in build-gpu (toolkit $tk)" ]; then
  if [ -f build-gpu/build.ninja ]; then
    steplog meson configure build-gpu -Dtoolkit_root="$tk" || die "meson configure failed: see $log"
  else
    steplog meson setup build-gpu -Dbuildtype=release -Dcuda=enabled -Dtoolkit_root="$tk" ||
      die "meson setup failed: see $log"
  fi
  steplog timeout "$(slice 360)" ninja -C build-gpu gpubench || die "build failed: see $log"
fi

# env.txt: the machine, the driver, how gpubench was obtained, `gpubench devices`.
# shellcheck disable=SC2317  # called through step
write_env() {
  {
    echo "gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n), $(uname -sr)"
    (. /etc/os-release 2>/dev/null && echo "OS: ${PRETTY_NAME:-?}"); ldd --version 2>&1 | head -1
    for n in "${notes[@]}"; do echo "$n"; done
    echo "profile: $profile"
    echo
    if command -v nvidia-smi >/dev/null; then
      q=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem
      nvidia-smi --query-gpu="$q",pcie.link.gen.max,pcie.link.width.max --format=csv 2>&1
    else
      echo "nvidia-smi: not found"
    fi
    echo; echo "\$ ldd $exe"; ldd "$exe" 2>&1
    echo; echo "\$ gpubench devices"; timeout 60 "$exe" devices 2>&1; echo "(exit $?)"
  } >"$out/env.txt"
}
step write_env
stepto "$out/devices.json" timeout 60 "$exe" devices --json
$dry || cat "$out/env.txt"

# The profile on each backend. A backend without a device exits 2 ("no device selected"): that
# is recorded, not fatal.
declare -A rc
for b in cuda opencl; do
  res="$out/$pname-$b.json"
  # CUDA leaves 200 s for OpenCL and the summary; OpenCL leaves 30 s for the summary.
  reserve=$([ $b = cuda ] && echo 200 || echo 30)
  limit=$(slice "$reserve")
  echo "gpu-check: $profile on $b (limit $limit s)"
  if $dry; then
    step timeout "$limit" "$exe" run "$profile" --backend $b -o "$res" -q
    rc[$b]=0
  else
    timeout "$limit" "$exe" run "$profile" --backend $b -o "$res" -q 2>&1 | tee -a "$log"
    rc[$b]=${PIPESTATUS[0]}
    echo "gpu-check: $b exit ${rc[$b]}" | tee -a "$log"
  fi
done

# summary.md: each (suite, case, params) with CUDA's and OpenCL's value side by side.
summarize() {
  python3 - "$out/$pname-cuda.json" "$out/$pname-opencl.json" "$out/devices.json" "${rc[cuda]}" \
    "${rc[opencl]}" "$how" "$icd_note" >"$out/summary.md" <<'PY'
import json, sys
cuda_f, ocl_f, dev_f, rc_cuda, rc_ocl, how, icd = sys.argv[1:8]

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
print("gpubench: %s  \n%s  " % (how, icd))
devs = load(dev_f)
if isinstance(devs, list):
    for b in devs:
        if not b.get("available"):
            print("- %s: unavailable (%s)" % (b.get("backend"), b.get("reason")))
        for d in b.get("devices", []) or []:
            print("- %s:%s %s, driver %s, %s" % (b.get("backend"), d.get("index"), d.get("name"),
                                                 d.get("driver"), d.get("version")))
print("\nexit status: cuda %s, opencl %s (2: no device of that backend)\n" % (rc_cuda, rc_ocl))
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
}
if $dry; then
  echo "  (summary: python3 reads both results files and writes $out/summary.md)"
elif command -v python3 >/dev/null; then
  summarize && cat "$out/summary.md"
else
  echo "gpu-check: no python3: no summary.md (the results JSON files are complete)" | tee -a "$log"
fi

echo "gpu-check: done in $((SECONDS - t_start)) s; files in $out"
$dry && exit 0
status=0
for b in cuda opencl; do
  case "${rc[$b]}" in 0|2) ;; *) status=1 ;; esac
done
# CUDA must have run on a GPU machine: "no device" there is a failure of the check.
[ "${rc[cuda]}" = 2 ] && command -v nvidia-smi >/dev/null && status=1
exit $status
