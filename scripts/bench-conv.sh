#!/usr/bin/env bash
# Sets gpubench's conv suite beside the same CLBlast call made directly, on one OpenCL device, in
# one go, and prints ratios:
#   convgemm through gpubench (impl=library, prec=f32, fwd, NCHW) over CLBlastSconvgemm made
#     directly (tools/clblast-direct.c -c: OpenCL and CLBlast only, no gpubench code, timed
#     between markers as the harness times it), per ResNet-50 3x3 layer and round, and the
#     median of the per-round ratios (>= 0.98: gpubench's harness costs at most 2%);
#   gpubench's own direct kernel over CLBlast's convgemm at the same layers (impl=own over
#     impl=library, from the same gpubench runs): how the portable kernel compares.
# Usage: scripts/bench-conv.sh [OUTDIR]   (default results/bench-conv)
#   env: DEVICE=gpubench/clblast-direct OpenCL index (default 0), ROUNDS=rounds (default 5),
#   GPUBENCH_BUILD=build dir (build).
# Each round runs gpubench's four layers (library and own), then the four direct calls; odd
# rounds go gpubench first, even rounds the direct calls first, so that a drifting load favours
# neither side. Ratios are medians over rounds, each round's pair measured back to back.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GPUBENCH_BUILD:-build}
out=${1:-results/bench-conv}
dev=${DEVICE:-0}
rounds=${ROUNDS:-5}
[[ $dev =~ ^(0|[1-9][0-9]{0,2})$ ]] || { echo "bench-conv: DEVICE must be an index, not '$dev'" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]{0,2}$ ]] || { echo "bench-conv: ROUNDS must be 1 to 999, not '$rounds'" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench-conv: jq is missing (scripts/bootstrap.sh installs it)" >&2; exit 2; }
for exe in gpubench clblast-direct; do
  [ -x "$build/$exe" ] || { echo "bench-conv: $build/$exe is missing: build first (scripts/bootstrap.sh)" >&2; exit 2; }
done
mkdir -p "$out"
rm -f "$out"/gpubench-*.json "$out"/gpubench-*.txt "$out"/direct-*.txt

# The layers: the preset's name, and N,C,H,W,K,R,S,STRIDE,PAD for the direct call (one image).
layers=(conv2_3x3 conv3_3x3 conv4_3x3 conv5_3x3)
declare -A geo=([conv2_3x3]=1,64,56,56,64,3,3,1,1 [conv3_3x3]=1,128,28,28,128,3,3,1,1
                [conv4_3x3]=1,256,14,14,256,3,3,1,1 [conv5_3x3]=1,512,7,7,512,3,3,1,1)
gb() {
  "$build/gpubench" run configs/bench-conv.yaml --device "opencl:$dev" -q \
    -o "$out/gpubench-$1.json" >"$out/gpubench-$1.txt"
}
direct() {
  for l in "${layers[@]}"; do
    "$build/clblast-direct" -d "$dev" -c "${geo[$l]}" -s 15 -t 0.02 >"$out/direct-$1-$l.txt"
  done
}
for r in $(seq 1 "$rounds"); do
  echo "bench-conv: round $r/$rounds ..." >&2
  if [ $((r % 2)) -eq 1 ]; then gb "$r"; direct "$r"; else direct "$r"; gb "$r"; fi
done

med() { sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf "%.3f-%.3f", lo, hi }'; }
val() { # val ROUND LAYER IMPL -> gpubench's median GFLOP/s
  jq -r --arg s "resnet50.$2" --arg i "$3" \
    '[.results[] | select(.suite=="conv" and .params.shape==$s and .params.impl==$i and .status=="ok") | .value] | first // empty' \
    "$out/gpubench-$1.json"
}
{
  echo "device: $(jq -r '.devices[0].name' "$out/gpubench-1.json")  ($(date -u +%Y-%m-%dT%H:%M:%SZ); $rounds rounds)"
  printf "%-12s %12s %12s %12s %16s %14s %14s\n" layer "gpubench" "direct" "own" "gpubench/direct" "(range)" "own/CLBlast"
  all=()
  for l in "${layers[@]}"; do
    ratios=() owns=() g_all=() d_all=() o_all=()
    for r in $(seq 1 "$rounds"); do
      g=$(val "$r" "$l" library) o=$(val "$r" "$l" own)
      d=$(awk '$1 == "conv_gflops_median" {print $2}' "$out/direct-$r-$l.txt")
      [ -n "$g" ] && [ -n "$d" ] && ratios+=("$(awk -v g="$g" -v d="$d" 'BEGIN { printf "%.4f", g / d }')")
      [ -n "$g" ] && [ -n "$o" ] && owns+=("$(awk -v g="$g" -v o="$o" 'BEGIN { printf "%.4f", o / g }')")
      g_all+=("${g:-}") d_all+=("${d:-}") o_all+=("${o:-}")
    done
    all+=("${ratios[@]}")
    printf "%-12s %12s %12s %12s %16s %14s %14s\n" "$l" \
      "$(printf '%s\n' "${g_all[@]}" | grep . | med)" "$(printf '%s\n' "${d_all[@]}" | grep . | med)" \
      "$(printf '%s\n' "${o_all[@]}" | grep . | med)" \
      "$(printf '%s\n' "${ratios[@]}" | grep . | med)x" "$(printf '%s\n' "${ratios[@]}" | grep . | range)" \
      "$(printf '%s\n' "${owns[@]}" | grep . | med)x"
  done
  echo "convgemm through gpubench / direct, median of every layer's per-round ratios: $(printf '%s\n' "${all[@]}" | grep . | med)x (${#all[@]} pairs, range $(printf '%s\n' "${all[@]}" | grep . | range))"
  echo "(a wide range means a loaded machine: rerun with more ROUNDS before believing the median)"
  echo "(GFLOP/s columns: medians over rounds of each run's median; ratios: medians of per-round ratios)"
} | tee "$out/ratios.txt"
