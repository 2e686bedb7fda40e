#!/usr/bin/env bash
# Runs every kernel in kernels/ once under Oclgrind (Debian's oclgrind: an OpenCL implementation
# that simulates each work-item and reports out-of-bounds reads and writes, data races, API misuse,
# barrier divergence and uninitialized values), prints each kernel's name with its verdict and the
# count of errors Oclgrind reported for it, and exits 1 on any error (or when fewer than nine in
# ten of the kernels in kernels/ ran clean: a kernel the check no longer reaches is a gap, not a
# pass). Exits 77 when oclgrind is not installed (scripts/bootstrap.sh installs it).
#
# How: gpubench itself runs configs/kernel-check.yaml (every suite with a kernel of its own, at
# the smallest sizes each accepts, over the axes that change the compiled kernel: precisions,
# vector widths, offsets, layouts, directions, transposes, tuning configurations) on the Oclgrind
# device, which the ICD loader offers alone through an ICD file in $build/oclgrind/vendors named
# by OCL_ICD_VENDORS (as scripts/with-intel-opencl.sh does for Intel's runtime; the library is
# never put on the library path, PoCL stays the default elsewhere). Oclgrind names the kernel in
# each report ("\tKernel: NAME"), and --inst-counts names each kernel it ran, which is how errors
# and runs are counted per kernel. The kernels no suite runs on this device (one device only, no
# cl_khr_fp16; the llm suite, whose case through CLBlast outlasts its time limit on Oclgrind) run
# from configs/kernel-check/*.sim through oclgrind-kernel, each file's program given the same
# prelude the OpenCL backend gives it.
#
# Checks: --data-races and --check-api everywhere; --uninitialized everywhere except in these
# suites, where Oclgrind 21.10's uninitialized-value plugin does not work: gemm, conv, sparse,
# tuning, burn and parallel (gemm_tiled, conv_fwd, conv_bwd_data, conv_bwd_filter, csr_spmm,
# nm24_spmm: the plugin stops with a fatal error, "Unsupported instruction: freeze",
# src/plugins/Uninitialized.cpp, before the kernel runs), cache and local (cache_read, local_read,
# local_write with 2 or 4 unsigned ints per access: the plugin takes a vector built lane by lane for
# an undefined value, reports every store of it, and the results it leaves fail the suites'
# verification; with plain arithmetic both kernels pass it), and memtest (memtest_check reads words
# that only memtest_write wrote, never the host: after another suite's case in the same process the
# plugin reports them uninitialized even when the write stores a constant; run first, or after the
# buffer was written from the host, they pass it).
#
# Not run, and why: compute_f16, compute_half2 and coll_reduce's half build, -DCOLL_F16 (Oclgrind
# has no cl_khr_fp16; its float, int32 and bfloat16 builds, sum and maximum, run); compute_bf16 and
# compute_int8dot (built on CUDA only: OpenCL has neither). The tile configurations of transpose
# and gemm_tiled beyond their defaults are a sample: the tuning suite's random search, fixed seed,
# budget 4, and gemm_tiled's fitted one (WPT 8: the suites' own GEMM under a kernel maximum below
# 64). About 30 s on 2 cores; logs in $build/kernel-check/.
#   scripts/check-kernels.sh                 # the whole check
#   scripts/check-kernels.sh --sim FILE...   # only these oclgrind-kernel simulator files (their
#                                            # program: the file beside them, else kernels/'s;
#                                            # a line "# build-options: -DX=1" gives defines)
set -euo pipefail
here=$PWD
cd "$(dirname "$0")/.."
root=$PWD
build=${GPUBENCH_BUILD:-build}
icd_lib=${GPUBENCH_OCLGRIND_ICD:-/usr/lib/oclgrind/liboclgrind-rt-icd.so}
if ! command -v oclgrind-kernel >/dev/null || [ ! -f "$icd_lib" ]; then
  echo "check-kernels: oclgrind is not installed (scripts/bootstrap.sh installs it)" >&2
  exit 77
fi
sims=()
if [ "${1:-}" = --sim ]; then
  shift
  for s in "$@"; do
    case $s in
      /*) sims+=("$s") ;;
      *) sims+=("$here/$s") ;;
    esac
  done
  [ ${#sims[@]} -gt 0 ] || { echo "check-kernels: --sim needs files" >&2; exit 2; }
  for s in "${sims[@]}"; do
    [ -f "$s" ] || { echo "check-kernels: --sim: no file $s" >&2; exit 2; }
  done
elif [ $# -gt 0 ]; then
  echo "check-kernels: unknown argument '$1' (usage: scripts/check-kernels.sh [--sim FILE...])" >&2
  exit 2
fi
case $build in
  /*) bdir=$build ;;
  *) bdir=$root/$build ;;
esac
out=$bdir/kernel-check
rm -rf "$out"
mkdir -p "$out/sim" "$bdir/oclgrind/vendors"
echo "$icd_lib" >"$bdir/oclgrind/vendors/oclgrind.icd"
export OCL_ICD_VENDORS=$bdir/oclgrind/vendors
export OCLGRIND_DATA_RACES=1 OCLGRIND_CHECK_API=1 OCLGRIND_INST_COUNTS=1
# Each run's tuning results stay in the check's folder, not the user's tuning cache.
export GPUBENCH_TUNING_CACHE=$out/tuning.json

# One simulator file through oclgrind-kernel: its program is the OpenCL prelude, the common
# prelude, then the file it names (beside it, else in kernels/), as gb_kernel_source builds it.
run_sim() {
  local sim=$1 dir prog src opts
  dir=$(cd "$(dirname "$sim")" && pwd)
  prog=$(grep -v '^#' "$sim" | grep -m 1 .)
  src=$dir/$prog
  [ -f "$src" ] || src=$root/kernels/$prog
  [ -f "$src" ] || { echo "check-kernels: $sim: no program $prog" >&2; return 1; }
  cat "$root/backends/opencl/prelude_opencl.h" "$root/kernels/prelude.h" "$src" >"$out/sim/$prog"
  cp "$sim" "$out/sim/run.sim"
  # A line "# build-options: ..." gives the program's defines (-D...), as a suite's build would.
  opts=$(sed -n 's/^# build-options: *//p' "$sim" | head -n 1)
  local log
  log=$out/sim-$(basename "$sim").log
  if ! (cd "$out/sim" && OCLGRIND_UNINITIALIZED=1 oclgrind-kernel --build-options "$opts" run.sim) \
    >"$log" 2>&1; then
    echo "check-kernels: $sim did not run: $(grep -v '^ *[0-9]* - ' "$log" | head -n 3)" >&2
    return 1
  fi
}

status=0
start=$SECONDS
if [ ${#sims[@]} -eq 0 ]; then
  [ -x "$bdir/gpubench" ] || { echo "check-kernels: $bdir/gpubench not built" >&2; exit 2; }
  # The suites whose kernels the uninitialized-value check cannot run (the header says why).
  no_uninit=gemm,conv,sparse,tuning,burn,cache,local,memtest,parallel
  # The memory suite's tuned dot (kernels/dot.cl) in each of its shapes, LAYOUT 0 and 1 by
  # REDUCE 0, 1 and 2, one per element count of the profile's tuned entry (16384 to 16704 bytes
  # of floats), through a tuning cache that names them for this device.
  devices=$("$bdir/gpubench" devices 2>/dev/null)
  dev=$(sed -n 's/^ *\[0\] //p' <<<"$devices" | head -n 1)
  drv=$(sed -n 's/.*, driver \(.*\), OpenCL .*/\1/p' <<<"$devices" | head -n 1)
  {
    echo '{"schema": "gpubench-tuning/1", "entries": ['
    i=0
    for shape in "0 0 4" "0 1 1" "0 2 4" "1 0 1" "1 1 4" "1 2 1"; do
      read -r layout reduce vec <<<"$shape"
      [ $i -eq 0 ] || echo ,
      printf '{"backend": "opencl", "device": "%s", "driver": "%s", "kernel": "dot", ' "$dev" "$drv"
      printf '"problem": "n=%d type=float", ' $((4096 + 16 * i))
      printf '"config": {"WG": 64, "VEC": %d, "LAYOUT": %d, "REDUCE": %d, "GPC": 1}, ' \
        "$vec" "$layout" "$reduce"
      printf '"time_us": 1, "default_time_us": 1, "speedup": 1, "search": "exhaustive", '
      printf '"evaluations": 1, "updated_utc": "2026-01-01T00:00:00Z", "gpubench": "0"}\n'
      i=$((i + 1))
    done
    echo ']}'
  } >"$GPUBENCH_TUNING_CACHE"
  profile_suites=$(sed -n 's/^ *- suite: \([a-z_0-9]*\).*/\1/p' configs/kernel-check.yaml | sort -u)
  with_uninit=$(echo "$profile_suites" | grep -vxF -e "${no_uninit//,/$'\n'}" -e '' | paste -sd,)
  for pass in uninit plain; do
    if [ $pass = uninit ]; then
      suites=$with_uninit
      export OCLGRIND_UNINITIALIZED=1
    else
      suites=$no_uninit
      unset OCLGRIND_UNINITIALIZED
    fi
    if ! "$bdir/gpubench" run configs/kernel-check.yaml -q -s "$suites" -o "$out/$pass.json" \
      >"$out/$pass.log" 2>&1; then
      echo "check-kernels: gpubench failed a case on Oclgrind ($pass pass): $out/$pass.log" >&2
      grep -E ' failed|verification|timed out' "$out/$pass.log" | grep -v '^\s*[0-9]* - ' |
        head -n 20 >&2 || true
      status=1
    fi
  done
  unset OCLGRIND_UNINITIALIZED
  sims=(configs/kernel-check/*.sim)
fi
for s in "${sims[@]}"; do
  run_sim "$s" || status=1
done

# The tally: runs from --inst-counts' headers, errors from the reports' "Kernel:" lines (each
# report's first line, its address dropped, says what kind); an API error, or a fatal error
# outside any kernel, counts under (api) or (oclgrind).
names=$(if [ -f "$out/uninit.log" ]; then
  sed -n 's/^GB_KERNEL.* void \([a-z_0-9A-Z]*\)(.*/\1/p' kernels/*.cl
fi)
cat "$out"/*.log | awk -v names="$names" -v sims="${#sims[@]}" '
  /^Instructions executed for kernel / {
    k = $0; sub(/^[^\047]*\047/, "", k); sub(/\047.*/, "", k); ran[k]++; next
  }
  /^\tKernel: / {
    k = substr($0, 10); err[k]++; inreport = 0
    h = header; sub(/ (at|to) [a-z]* *memory address.*/, "", h)
    if (h != "" && !((k, h) in seen)) { seen[k, h] = 1; kinds[k] = kinds[k] "\n         " h }
    next
  }
  /^[^ \t]/ { header = $0 }
  /OpenCL runtime error detected/ { err["(api)"]++; next }
  /^OCLGRIND FATAL ERROR/ { inreport = 1; next }
  /^$/ && inreport { err["(oclgrind)"]++; inreport = 0 }
  END {
    n = split(names, list, "\n")
    for (i = 1; i <= n; i++) known[list[i]] = 1
    for (k in ran) if (!(k in known)) { list[++n] = k; known[k] = 1; extra[k] = 1 }
    for (k in err) if (!(k in known)) { list[++n] = k; known[k] = 1; extra[k] = 1 }
    clean = 0; ours = 0; bad = 0
    for (i = 1; i <= n; i++) {
      k = list[i]
      if (k == "") continue
      e = err[k] + 0
      if (!(k in extra) || names == "") ours++
      if (e) { verdict = "FAIL"; bad++ }
      else if (k in ran) { verdict = "ok"; if (!(k in extra) || names == "") clean++ }
      else verdict = "not run"
      printf "%-8s %-20s %d error%s", verdict, k, e, e == 1 ? "" : "s"
      if (k in ran) printf "  (%d launch%s)", ran[k], ran[k] == 1 ? "" : "es"
      if ((k in extra) && names != "") printf "  (not a kernel of kernels/)"
      printf "%s\n", kinds[k]
    }
    printf "check-kernels: %d of %d kernels ran clean, %d with errors\n", clean, ours, bad
    if (bad) exit 1
    if (names != "" && clean * 10 < ours * 9) {
      printf "check-kernels: fewer than nine in ten of the kernels in kernels/ ran clean\n"
      exit 1
    }
  }' || status=1
if [ $status -ne 0 ]; then
  echo "check-kernels: Oclgrind's reports are in $out/*.log" >&2
fi
echo "check-kernels: $((SECONDS - start)) s"
exit $status
