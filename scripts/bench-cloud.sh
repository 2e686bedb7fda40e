#!/usr/bin/env bash
# The sharing-and-serving benchmark, side by side in one run per round on one device
# (configs/bench-cloud.yaml), printed as ratios:
#   the concurrency suite's 1-queue triad over the memory suite's triad (same size, float, one
#     element per work-item, work-group 256): the harness's one-queue figure against the suite
#     that owns the kernel (1: the same);
#   a triad victim process beside a triad aggressor process over alone (tenants' slowdown);
#   a fresh process's time to its first verified result (startup, cache cold and warm) and to
#     an open device (process + init + open) over clinfo's own start-up (its wall time to list
#     every platform and device, median of CLINFO_RUNS runs).
# Usage: scripts/bench-cloud.sh [OUTDIR]   (default results/bench-cloud)
#   env: DEVICE=gpubench device (default opencl:0), ROUNDS=rounds (default 3), CLINFO_RUNS
#   (default 10), GPUBENCH_BUILD=build dir (build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GPUBENCH_BUILD:-build}
out=${1:-results/bench-cloud}
dev=${DEVICE:-opencl:0}
rounds=${ROUNDS:-3}
cruns=${CLINFO_RUNS:-10}
[[ $dev =~ ^[a-z]+:(0|[1-9][0-9]{0,2})$ ]] || { echo "bench-cloud: DEVICE must be BACKEND:INDEX, not '$dev'" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]{0,2}$ ]] || { echo "bench-cloud: ROUNDS must be 1 to 999, not '$rounds'" >&2; exit 2; }
[[ $cruns =~ ^[1-9][0-9]{0,2}$ ]] || { echo "bench-cloud: CLINFO_RUNS must be 1 to 999, not '$cruns'" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench-cloud: jq is missing (scripts/bootstrap.sh installs it)" >&2; exit 2; }
[ -x "$build/gpubench" ] || { echo "bench-cloud: $build/gpubench is missing: build first (scripts/bootstrap.sh)" >&2; exit 2; }
mkdir -p "$out"
rm -f "$out"/round-*.json "$out"/round-*.txt "$out"/clinfo-*.txt

med() { sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf "%.3f-%.3f", lo, hi }'; }
now_ms() { date +%s%N | awk '{ printf "%.3f", $1 / 1e6 }'; }

for r in $(seq 1 "$rounds"); do
  echo "bench-cloud: round $r/$rounds ..." >&2
  "$build/gpubench" run configs/bench-cloud.yaml --device "$dev" -q -o "$out/round-$r.json" \
    >"$out/round-$r.txt"
  if command -v clinfo >/dev/null; then
    for i in $(seq 1 "$cruns"); do
      t0=$(now_ms); clinfo >/dev/null 2>&1 || true; t1=$(now_ms)
      echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' >>"$out/clinfo-$r.txt"
    done
  fi
done

q() { # q ROUND JQ-SELECT -> the first ok result's value
  jq -r "[.results[] | select(.status==\"ok\") | select($2) | .value] | first // empty" "$out/round-$1.json"
}
fig() { # fig ROUND JQ-SELECT FIGURE -> its value
  jq -r --arg f "$3" "[.results[] | select(.status==\"ok\") | select($2) | .figures[]? | select(.name==\$f) | .value] | first // empty" "$out/round-$1.json"
}
ratios=() ; sd=() ; cold=() ; warm=() ; open=() ; cl=()
for r in $(seq 1 "$rounds"); do
  c=$(q "$r" '.suite=="concurrency" and .params.kernel=="triad"')
  m=$(q "$r" '.suite=="memory" and .case=="triad"')
  [ -n "$c" ] && [ -n "$m" ] && ratios+=("$(echo "$c $m" | awk '{ printf "%.4f", $1 / $2 }')")
  s=$(fig "$r" '.suite=="tenants" and .params.aggressor=="triad"' slowdown)
  [ -n "$s" ] && sd+=("$s")
  cold+=("$(q "$r" '.suite=="startup" and .params.cache=="cold"')")
  warm+=("$(q "$r" '.suite=="startup" and .params.cache=="warm"')")
  o=0
  for st in process init open; do
    v=$(fig "$r" '.suite=="startup" and .params.cache=="warm"' "${st}_p50_ms"); o=$(echo "$o ${v:-0}" | awk '{ print $1 + $2 }')
  done
  open+=("$o")
  [ -s "$out/clinfo-$r.txt" ] && cl+=("$(med <"$out/clinfo-$r.txt")")
done
line() { printf '%s\n' "$@" | grep -v '^$' | med; }
span() { printf '%s\n' "$@" | grep -v '^$' | range; }
echo "# bench-cloud on $dev, $rounds rounds (median of rounds, range)"
echo "concurrency triad, 1 queue / memory triad:     $(line "${ratios[@]}")   ($(span "${ratios[@]}"))"
echo "tenants: triad victim beside triad / alone:    slowdown $(line "${sd[@]}")   ($(span "${sd[@]}"))"
echo "startup cold, to first verified result:         $(line "${cold[@]}") ms   ($(span "${cold[@]}"))"
echo "startup warm, to first verified result:         $(line "${warm[@]}") ms   ($(span "${warm[@]}"))"
if [ ${#cl[@]} -gt 0 ]; then
  c=$(line "${cl[@]}")
  echo "clinfo, to every platform and device listed:   $c ms   ($(span "${cl[@]}"))"
  echo "startup warm to an open device / clinfo:        $(echo "$(line "${open[@]}") $c" | awk '{ printf "%.3f", $1 / $2 }')"
  echo "startup warm to first result / clinfo:          $(echo "$(line "${warm[@]}") $c" | awk '{ printf "%.3f", $1 / $2 }')"
  echo "startup cold to first result / clinfo:          $(echo "$(line "${cold[@]}") $c" | awk '{ printf "%.3f", $1 / $2 }')"
else
  echo "clinfo: not installed (scripts/bootstrap.sh installs it): no start-up comparison"
fi
