#!/usr/bin/env bash
# Runs gpubench's precision suites beside their peers on one OpenCL device, in one go, and prints
# ratios (>= 1: gpubench measured at least the peer's figure):
#   peak compute: gpubench compute (best of its vec / chains settings) against clpeak's
#     --compute-sp / --compute-dp / --compute-integer (best of its scalar and vector widths),
#     for FP32, FP64 and INT32;
#   CLBlast SGEMM 1024^3: gpubench gemm (impl=library, prec=f32) against the same call made
#     directly (tools/clblast-direct.c: OpenCL + CLBlast only, timed between markers as the
#     harness times it); and what CLBlast's own event claims for one call (its last kernel).
# Usage: scripts/bench-precision.sh [OUTDIR]   (default results/bench-precision)
#   env: DEVICE=gpubench/clblast-direct OpenCL index (default 0), PLATFORM=clpeak platform
#   (default 0; clpeak numbers devices per platform: with one platform the indices agree),
#   ROUNDS=rounds of clpeak and the compute suite (default 2), GPUBENCH_BUILD=build dir (build),
#   SGEMM_ROUNDS=rounds of the SGEMM pair (default 5).
# Each round runs clpeak then gpubench's compute suite; then the SGEMM pair (gpubench's gemm
# suite, then the direct call) alternates in shorter rounds. Every figure is the best over its
# rounds, for gpubench and its peers alike, so that a round disturbed by other work on a shared
# machine costs neither side. Run it twice before believing a ratio near 1.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GPUBENCH_BUILD:-build}
out=${1:-results/bench-precision}
dev=${DEVICE:-0}
plat=${PLATFORM:-0}
for tool in clpeak jq; do
  command -v "$tool" >/dev/null || { echo "bench-precision: $tool is missing (scripts/bootstrap.sh installs it)" >&2; exit 2; }
done
for exe in gpubench clblast-direct; do
  [ -x "$build/$exe" ] || { echo "bench-precision: $build/$exe is missing: build first (scripts/bootstrap.sh)" >&2; exit 2; }
done
mkdir -p "$out"

rounds=${ROUNDS:-2}
sgemm_rounds=${SGEMM_ROUNDS:-5}
rm -f "$out"/clpeak-*.txt "$out"/gpubench-*.json "$out"/gpubench-*.txt "$out"/clblast-direct-*.txt
for r in $(seq 1 "$rounds"); do
  echo "bench-precision: round $r/$rounds: clpeak on platform $plat device $dev ..." >&2
  clpeak -p "$plat" -d "$dev" --compute-sp --compute-dp --compute-integer >"$out/clpeak-$r.txt"
  echo "bench-precision: round $r/$rounds: gpubench compute ..." >&2
  "$build/gpubench" run configs/bench-precision.yaml --suite compute --device "opencl:$dev" -q \
    -o "$out/gpubench-compute-$r.json" >"$out/gpubench-compute-$r.txt"
done
# The SGEMM pair alternates in short rounds: a call of ~0.1 s on a CPU is easily disturbed by
# other work, and alternating spreads any disturbance over both sides. Which side goes first
# alternates too (gpubench first in odd rounds, the direct call first in even ones), so that a
# machine whose load drifts within a round favours neither side.
sgemm_gb() {
  "$build/gpubench" run configs/bench-precision.yaml --suite gemm --device "opencl:$dev" -q \
    -o "$out/gpubench-gemm-$1.json" >"$out/gpubench-gemm-$1.txt"
}
sgemm_direct() {
  "$build/clblast-direct" -d "$dev" -m 1024 -n 1024 -k 1024 -s 15 -t 0.02 \
    >"$out/clblast-direct-$1.txt"
}
for r in $(seq 1 "$sgemm_rounds"); do
  if [ $((r % 2)) -eq 1 ]; then
    echo "bench-precision: SGEMM round $r/$sgemm_rounds: gpubench gemm, then the direct call ..." >&2
    sgemm_gb "$r"; sgemm_direct "$r"
  else
    echo "bench-precision: SGEMM round $r/$sgemm_rounds: the direct call, then gpubench gemm ..." >&2
    sgemm_direct "$r"; sgemm_gb "$r"
  fi
done

clpeak_best() { # clpeak_best SECTION_REGEX WIDTHS... -> the best figure of those widths in that section
  local section=$1; shift
  awk -v sec="$section" -v widths="$*" '
    BEGIN { n = split(widths, w, " "); for (i = 1; i <= n; i++) want[w[i]] = 1 }
    FNR == 1 { on = 0 }
    $0 ~ sec { on = 1; next }
    /compute|precision|bandwidth|latency/ && !/^[[:space:]]*[a-z0-9]+[[:space:]]*:/ { on = 0 }
    on && $1 in want && $2 == ":" { if ($3 + 0 > best) best = $3 + 0 }
    END { if (best > 0) printf "%.4f\n", best }' "$out"/clpeak-*.txt
}
gb_best() { # gb_best SUITE PREC -> the best ok value over every round and file
  jq -rs --arg s "$1" --arg p "$2" '[.[].results[] | select(.suite==$s and .params.prec==$p and .status=="ok") | .value] | max // empty' "$out"/gpubench-*.json
}
direct_val() { # direct_val KEY -> the best over every round
  awk -v k="$1" '$1 == k && $2 + 0 > best {best = $2 + 0} END {if (best > 0) printf "%.4f\n", best}' "$out"/clblast-direct-*.txt
}

cl_sp=$(clpeak_best "Single-precision compute" float float2 float4 float8 float16)
cl_dp=$(clpeak_best "Double-precision compute" double double2 double4 double8 double16)
cl_int=$(clpeak_best "Integer compute" int int2 int4 int8 int16)
gb_sp=$(gb_best compute f32)
gb_dp=$(gb_best compute f64)
gb_int=$(gb_best compute i32)
gb_sgemm=$(gb_best gemm f32)
direct=$(direct_val sgemm_gflops_median)
direct_event=$(direct_val clblast_event_gflops)
# The SGEMM pair per round (gpubench's median over the direct call's median, measured back to
# back), and the median of those ratios: a slow drift of the machine's load cancels in it.
paired=$(for r in $(seq 1 "$sgemm_rounds"); do
  g=$(jq -r '[.results[] | select(.suite=="gemm" and .status=="ok") | .value] | max // empty' "$out/gpubench-gemm-$r.json")
  d=$(awk '$1 == "sgemm_gflops_median" {print $2}' "$out/clblast-direct-$r.txt")
  [ -n "$g" ] && [ -n "$d" ] && awk -v g="$g" -v d="$d" 'BEGIN { if (d > 0) printf "%.4f\n", g / d }'
done | sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.2fx (rounds: %d)", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), NR }')
implausible=$(jq -rs '[.[].results[] | select(.implausible)] | length' "$out"/gpubench-*.json)

row() { # row LABEL OURS PEER PEERNAME
  awk -v l="$1" -v a="$2" -v b="$3" -v p="$4" 'BEGIN {
    if (a == "" || b == "" || b + 0 == 0) { printf "%-34s %10s %10s  %-34s %s\n", l, a, b, p, "n/a"; exit }
    printf "%-34s %10.2f %10.2f  %-34s %6.2fx\n", l, a, b, p, a / b }'
}
{
  echo "device: $(jq -r '.devices[0].name' "$out/gpubench-compute-1.json")  ($(date -u +%Y-%m-%dT%H:%M:%SZ); best of $rounds rounds, SGEMM of $sgemm_rounds)"
  printf "%-34s %10s %10s  %-34s %s\n" "figure" "gpubench" "peer" "peer figure" "ratio"
  row "FP32 peak GFLOP/s" "$gb_sp" "$cl_sp" "clpeak single precision (best)"
  row "FP64 peak GFLOP/s" "$gb_dp" "$cl_dp" "clpeak double precision (best)"
  row "INT32 peak GOP/s" "$gb_int" "$cl_int" "clpeak integer (best)"
  row "CLBlast SGEMM 1024^3 GFLOP/s" "$gb_sgemm" "$direct" "the same call made directly"
  row "  (CLBlast's own event, one call)" "$direct_event" "$direct" "markers around the call"
  echo "CLBlast SGEMM, median of the per-round ratios (gpubench / direct, back to back): ${paired:-n/a}"
  echo "results flagged implausible: $implausible"
} | tee "$out/ratios.txt"
