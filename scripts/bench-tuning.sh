#!/usr/bin/env bash
# Benchmarks of the tuning suite, on one OpenCL device, printed as ratios:
#   1. the tuned dot against triad in the same run: the memory suite's triad and dot (BabelStream's
#      kernels) and the tuning suite's dot after an annealing search (48 configurations), all on
#      64 MiB per array; the figure is tuned dot GB/s / triad GB/s (the goal: >= 0.5). Then the
#      memory suite's dot with `config: [default, tuned]` (the configuration that search put in
#      the tuning cache), the two alternated over DOT_ROUNDS runs: tuned GB/s / default GB/s, the
#      median of the per-round ratios (the goal: >= 10 at 64 MiB on PoCL).
#   2. the SGEMM space (kernels/gemm.cl): an exhaustive search, then annealing with a budget of a
#      quarter of the valid configurations for SEEDS seeds; for each, the best configuration's
#      GFLOP/s (both re-measured by the runner as their case's result) over the exhaustive
#      optimum's (the goal: >= 0.95 with <= 25% of the evaluations), and the same configuration's
#      time in the exhaustive landscape (no re-measurement noise).
#   3. random against anneal replayed on the measured SGEMM landscape (tools/tune-replay.c): 500
#      seeds each at 10% and 25% of the evaluations, the mean best/optimum and how often each came
#      within 5% of the optimum.
# Usage: scripts/bench-tuning.sh [OUTDIR]   (default results/bench-tuning)
#   env: DEVICE=index (0), GEMM_SIZE (256), SEEDS (3), GPUBENCH_BUILD (build), REUSE=1 (print
#   the figures again from the results files of an earlier run in OUTDIR), DOT_ROUNDS (3),
#   DOT_ONLY=1 (part 1 only)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GPUBENCH_BUILD:-build}
out=${1:-results/bench-tuning}
dev=${DEVICE:-0}
gsize=${GEMM_SIZE:-256}
seeds=${SEEDS:-3}
command -v jq >/dev/null || { echo "bench-tuning: jq is missing (scripts/bootstrap.sh installs it)" >&2; exit 2; }
for exe in gpubench tune-replay; do
  [ -x "$build/$exe" ] || { echo "bench-tuning: $build/$exe is missing: build first (scripts/bootstrap.sh)" >&2; exit 2; }
done
mkdir -p "$out"
cache="$out/tuning-cache.json"
measure='measure: {warmup_runs: 1, warmup_time: 5ms, min_samples: 5, max_samples: 30, max_noise: 0.03, max_time: 300ms, min_sample_time: 2ms}'

run() { # run NAME YAML: runs a profile written to OUTDIR/NAME.yaml (REUSE=1: keep earlier results)
  [ "${REUSE:-0}" = 1 ] && [ -s "$out/$1.json" ] && return 0
  printf '%s\n' "$2" >"$out/$1.yaml"
  "$build/gpubench" run "$out/$1.yaml" --device "opencl:$dev" --set "tuning_cache=$cache" -q \
    -o "$out/$1.json" >"$out/$1.txt"
}
# The case's own result of a tuning case (the one with the figure "best"): FIELD of it.
best() { # best FILE KERNEL SEARCH [SEED] JQ_EXPR
  jq -r --arg k "$2" --arg s "$3" --arg seed "${4:-}" \
    "[.results[] | select(.suite==\"tuning\" and .case==\$k and .params.search==\$s and
      (\$seed == \"\" or (.params.seed|tostring) == \$seed) and
      ((.figures // []) | map(.name) | index(\"best\")))] | first | $5" "$1"
}
fig() { echo ".figures[] | select(.name==\"$1\") | (.value // .text)"; }

echo "bench-tuning: dot against triad ..." >&2
run dot "name: bench-tuning-dot
$measure
suites:
  - suite: memory
    params: {op: [triad, dot], type: float, size: 64MiB}
  - suite: tuning
    params: {kernel: dot, size: 16777216, search: anneal, budget: 48}"
triad=$(jq -r '[.results[] | select(.suite=="memory" and .case=="triad" and .status=="ok") | .value] | first // empty' "$out/dot.json")
mdot=$(jq -r '[.results[] | select(.suite=="memory" and .case=="dot" and .status=="ok") | .value] | first // empty' "$out/dot.json")
tdot=$(best "$out/dot.json" dot anneal "" .value)
tcfg=$(best "$out/dot.json" dot anneal "" "$(fig best)")
tdef=$(best "$out/dot.json" dot anneal "" "$(fig default)")

# The memory suite's dot, BabelStream's kernel against the tuned configuration the search above
# stored, in alternating order per round (a disturbance costs both sides alike).
dot_rounds=${DOT_ROUNDS:-3}
dot_ratios=()
for r in $(seq 1 "$dot_rounds"); do
  echo "bench-tuning: memory dot, default against tuned, round $r/$dot_rounds ..." >&2
  if [ $((r % 2)) -eq 1 ]; then order="[default, tuned]"; else order="[tuned, default]"; fi
  run "dot-config-$r" "name: bench-tuning-dot-config
$measure
suites:
  - suite: memory
    params: {op: dot, type: float, size: 64MiB, config: $order}"
  f="$out/dot-config-$r.json"
  dget() { jq -r --arg c "$1" '[.results[] | select(.suite=="memory" and .case=="dot" and .status=="ok" and .params.config==$c) | .value] | first // empty' "$f"; }
  dcfg=$(jq -r '[.results[] | select(.suite=="memory" and .case=="dot" and .params.config=="tuned") | .figures[]? | select(.name=="config") | .text] | first // "?"' "$f")
  dot_ratios+=("$(dget default)|$(dget tuned)|$dcfg")
done

rows=()
if [ "${DOT_ONLY:-0}" != 1 ]; then
echo "bench-tuning: SGEMM $gsize exhaustive ..." >&2
run gemm-exhaustive "name: bench-tuning-gemm
$measure
suites:
  - suite: tuning
    params: {kernel: gemm, size: $gsize, search: exhaustive}"
ex="$out/gemm-exhaustive.json"
ex_val=$(best "$ex" gemm exhaustive "" .value)
ex_cfg=$(best "$ex" gemm exhaustive "" "$(fig best)")
ex_evals=$(best "$ex" gemm exhaustive "" "$(fig evaluations)")
valid=$(best "$ex" gemm exhaustive "" "$(fig valid)")
budget=$(( valid / 4 ))
# The exhaustive landscape's best time, and a configuration's time in it.
land_opt=$(jq -r '[.results[] | select(.suite=="tuning" and .params.search=="exhaustive" and .status=="ok" and .params.TS != null) | .op_time_us.median] | min' "$ex")
land_time() { # land_time "TS=.. WPT=.. TSK=.. UNROLL=.."
  local q; q=$(echo "$1" | sed -E 's/([A-Z]+)=([0-9]+)/.params.\1==\2 and/g; s/ and$//')
  jq -r "[.results[] | select(.suite==\"tuning\" and .params.search==\"exhaustive\" and .status==\"ok\" and .params.TS != null) | select($q) | .op_time_us.median] | first // empty" "$ex"
}

for seed in $(seq 1 "$seeds"); do
  echo "bench-tuning: SGEMM $gsize anneal, budget $budget, seed $seed ..." >&2
  run "gemm-anneal-$seed" "name: bench-tuning-gemm-anneal
$measure
suites:
  - suite: tuning
    params: {kernel: gemm, size: $gsize, search: anneal, budget: $budget, seed: $seed}"
  f="$out/gemm-anneal-$seed.json"
  a_val=$(best "$f" gemm anneal "$seed" .value)
  a_cfg=$(best "$f" gemm anneal "$seed" "$(fig best)")
  a_evals=$(best "$f" gemm anneal "$seed" "$(fig evaluations)")
  a_land=$(land_time "$a_cfg")
  rows+=("$seed|$a_val|$a_cfg|$a_evals|$a_land")
done
fi

{
  echo "device: $(jq -r '.devices[0].name' "$out/dot.json")  ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo
  echo "1. dot against triad (64 MiB per array, same run)"
  awk -v t="$triad" -v m="$mdot" -v d="$tdot" -v c="$tcfg" -v df="$tdef" 'BEGIN {
    printf "   triad (memory suite)            %8.2f GB/s\n", t
    printf "   dot (memory suite, BabelStream)  %8.2f GB/s   %.2f x triad\n", m, m / t
    printf "   dot default configuration        %8.2f GB/s   %.2f x triad\n", df, df / t
    printf "   dot tuned (anneal, 48 evals)     %8.2f GB/s   %.2f x triad   %s\n", d, d / t, c
    printf "   goal: tuned dot >= 0.5 x triad: %s\n", (d / t >= 0.5 ? "met" : "NOT met") }'
  echo "   memory suite dot, config default against tuned (alternating order per round):"
  for row in "${dot_ratios[@]}"; do
    IFS='|' read -r dd dt dc <<<"$row"
    awk -v a="$dd" -v b="$dt" -v c="$dc" 'BEGIN {
      printf "     default %8.2f GB/s   tuned %8.2f GB/s   %.2f x   %s\n", a, b, (a > 0 ? b / a : 0), c }'
  done
  printf '%s\n' "${dot_ratios[@]}" | awk -F'|' '$1 > 0 && $2 > 0 { print $2 / $1 }' | sort -g |
    awk '{ r[++n] = $1 } END {
      if (n == 0) { print "     no round measured both"; exit }
      m = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
      printf "     median of the per-round ratios: %.2f x (rounds: %d); goal >= 10: %s\n", m, n, (m >= 10 ? "met" : "NOT met") }'
  [ "${DOT_ONLY:-0}" = 1 ] && exit 0
  echo
  echo "2. SGEMM $gsize x $gsize x $gsize: anneal with a quarter of the evaluations against exhaustive"
  echo "   (re-measured: each search's best measured again as its case's result; landscape: the"
  echo "   anneal's choice timed in the exhaustive sweep, the same measurements as the optimum)"
  printf "   exhaustive: %s evaluations, best %.2f GFLOP/s  %s\n" "$ex_evals" "$ex_val" "$ex_cfg"
  for row in "${rows[@]}"; do
    IFS='|' read -r seed a_val a_cfg a_evals a_land <<<"$row"
    awk -v s="$seed" -v v="$a_val" -v ev="$a_evals" -v ee="$ex_evals" -v xv="$ex_val" \
        -v c="$a_cfg" -v lt="$a_land" -v lo="$land_opt" 'BEGIN {
      r = v / xv; lr = lt > 0 ? lo / lt : 0
      printf "   anneal seed %s: %3d evaluations (%4.1f%%), %.2f GFLOP/s = %.3f x exhaustive re-measured (%s), %.3f in the landscape (%s)  %s\n",
        s, ev, 100 * ev / ee, v, r, (r >= 0.95 ? "within 5%" : "NOT within 5%"), lr,
        (lr >= 0.95 ? "within 5%" : "NOT within 5%"), c }'
  done
  echo
  echo "3. random against anneal, replayed on the measured SGEMM landscape"
  "$build/tune-replay" "$ex" gemm 10 25 | sed 's/^/   /'
} | tee "$out/summary.txt"
