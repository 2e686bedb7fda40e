#!/usr/bin/env bash
# The memory-management benchmark, side by side in one run per round on one device
# (configs/bench-memory.yaml), printed as ratios:
#   an allocation with its first use on the device (method device, touch first_use: the call and
#     a kernel writing every byte, waited for) over the host floor (method host: C malloc and
#     memset of the same size), per size, median of the per-round ratios of the medians (above
#     1: the device's allocation costs more than the host's); and the call alone (touch none);
#   a training step's allocations through the driver over the same step through the caching
#     pool (time per step: above 1, the pool is faster), with each way's fragmentation (peak bytes
#     reserved over peak bytes in use), per scale.
# Usage: scripts/bench-memory.sh [OUTDIR]   (default results/bench-memory)
#   env: DEVICE=gpubench device (default opencl:0), ROUNDS=rounds (default 3),
#   GPUBENCH_BUILD=build dir (build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GPUBENCH_BUILD:-build}
out=${1:-results/bench-memory}
dev=${DEVICE:-opencl:0}
rounds=${ROUNDS:-3}
[[ $dev =~ ^[a-z]+:(0|[1-9][0-9]{0,2})$ ]] || { echo "bench-memory: DEVICE must be BACKEND:INDEX, not '$dev'" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]{0,2}$ ]] || { echo "bench-memory: ROUNDS must be 1 to 999, not '$rounds'" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench-memory: jq is missing (scripts/bootstrap.sh installs it)" >&2; exit 2; }
[ -x "$build/gpubench" ] || { echo "bench-memory: $build/gpubench is missing: build first (scripts/bootstrap.sh)" >&2; exit 2; }
mkdir -p "$out"
rm -f "$out"/round-*.json "$out"/round-*.txt
for r in $(seq 1 "$rounds"); do
  echo "bench-memory: round $r/$rounds ..." >&2
  "$build/gpubench" run configs/bench-memory.yaml --device "$dev" -q -o "$out/round-$r.json" \
    >"$out/round-$r.txt"
done

med() { sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf "%.3f-%.3f", lo, hi }'; }
alloc() { # alloc ROUND METHOD TOUCH SIZE -> median us
  jq -r --arg m "$2" --arg t "$3" --argjson s "$4" \
    '[.results[] | select(.suite=="alloc" and .params.method==$m and .params.touch==$t and .params.size==$s and .status=="ok") | .value] | first // empty' \
    "$out/round-$1.json"
}
pool() { # pool ROUND WAY LAYERS FIELD -> the value (us per step) or a figure
  jq -r --arg w "$2" --argjson l "$3" --arg f "$4" \
    '[.results[] | select(.suite=="pool" and .params.way==$w and .params.layers==$l and .status=="ok") | if $f == "value" then .value else ((.figures // [])[] | select(.name==$f) | .value) end] | first // empty' \
    "$out/round-$1.json"
}
ratios() { # ratios CMD... : one ratio per round, from "a b" pairs on stdin
  awk '$1 > 0 && $2 > 0 { printf "%.6g\n", $1 / $2 }'
}
{
  echo "device: $(jq -r '.devices[0].name' "$out/round-1.json")  ($(date -u +%Y-%m-%dT%H:%M:%SZ); $rounds rounds)"
  printf "%-10s %-10s %14s %14s %12s %14s\n" touch size "device (us)" "host (us)" "device/host" "(range)"
  for touch in none first_use; do
    for size in 4096 1048576 16777216 67108864 268435456 1073741824; do
      pairs=$(for r in $(seq 1 "$rounds"); do echo "$(alloc "$r" device "$touch" "$size") $(alloc "$r" host "$touch" "$size")"; done)
      rs=$(ratios <<<"$pairs")
      [ -n "$rs" ] || continue
      d=$(awk '{print $1}' <<<"$pairs" | med); h=$(awk '{print $2}' <<<"$pairs" | med)
      printf "%-10s %-10s %14s %14s %12s %14s\n" "$touch" "$size" "$d" "$h" "$(med <<<"$rs")" "$(range <<<"$rs")"
    done
  done
  echo
  printf "%-8s %16s %16s %14s %12s %12s %12s\n" layers "driver (us/step)" "caching (us/step)" "driver/caching" "(range)" "frag driver" "frag caching"
  for layers in 8 24; do
    pairs=$(for r in $(seq 1 "$rounds"); do echo "$(pool "$r" driver "$layers" value) $(pool "$r" caching "$layers" value)"; done)
    rs=$(ratios <<<"$pairs")
    [ -n "$rs" ] || continue
    fd=$(for r in $(seq 1 "$rounds"); do pool "$r" driver "$layers" fragmentation; done | med)
    fc=$(for r in $(seq 1 "$rounds"); do pool "$r" caching "$layers" fragmentation; done | med)
    printf "%-8s %16s %16s %14s %12s %12s %12s\n" "$layers" "$(awk '{print $1}' <<<"$pairs" | med)" \
      "$(awk '{print $2}' <<<"$pairs" | med)" "$(med <<<"$rs")" "$(range <<<"$rs")" "$fd" "$fc"
  done
  echo "(medians over rounds; believe a ratio only where its range is narrow: the machine is shared)"
} | tee "$out/summary.txt"
