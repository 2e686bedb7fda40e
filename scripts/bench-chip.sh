#!/usr/bin/env bash
# The chip suites on a CPU OpenCL device (PoCL) against the machine itself, in one go:
#   latency staircase: ns per dependent load at every working set, beside the same chase done by
#     the host CPU in C (tools/host-latency.c), each row marked with the cache level
#     `lscpu --caches` says the set fits in (per core: L1d, L2; shared: L3);
#   local memory: local-memory read / write GB/s beside the cache suite's reads of a set of the
#     same size (on a CPU device local memory is ordinary cached memory);
#   atomics: 10^9 atomic adds per second, one address and one per work-item, beside
#     tools/host-atomics.c (C11 relaxed atomic_fetch_add from as many threads as CPUs).
# Usage: scripts/bench-chip.sh [OUTDIR]   (default results/bench-chip; env DEVICE=index)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GPUBENCH_BUILD:-build}
out=${1:-results/bench-chip}
dev=${DEVICE:-0}
command -v jq >/dev/null || { echo "bench-chip: jq is missing" >&2; exit 2; }
[ -x "$build/gpubench" ] && [ -x "$build/host-atomics" ] && [ -x "$build/host-latency" ] ||
  { echo "bench-chip: build first (meson setup build && ninja -C build)" >&2; exit 2; }
mkdir -p "$out"

lscpu --caches >"$out/lscpu-caches.txt"
echo "bench-chip: host atomics and pointer chase ..." >&2
"$build/host-atomics" >"$out/host-atomics.txt"
"$build/host-latency" -f 4096 -t $((256 << 20)) -s 64 >"$out/host-latency.txt"
echo "bench-chip: gpubench ..." >&2
"$build/gpubench" run configs/bench-chip.yaml --device "opencl:$dev" -q -o "$out/gpubench.json" \
  >"$out/gpubench.txt"
j="$out/gpubench.json"

cache_bytes() { # cache_bytes NAME -> ONE-SIZE in bytes (lscpu prints 32K, 512K, 32M)
  awk -v n="$1" '$1 == n { s = $2; m = 1
    if (s ~ /K$/) m = 1024; if (s ~ /M$/) m = 1048576; if (s ~ /G$/) m = 1073741824
    sub(/[KMG]$/, "", s); print s * m }' "$out/lscpu-caches.txt"
}
l1=$(cache_bytes L1d); l2=$(cache_bytes L2); l3=$(cache_bytes L3)
{
  echo "device: $(jq -r '.devices[0].name' "$j")  ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo "lscpu --caches:"; sed 's/^/  /' "$out/lscpu-caches.txt"
  echo
  echo "latency staircase (random chase, 64-byte stride):"
  printf "  %12s %10s %8s %10s  %s\n" "working set" "ns/load" "ci95" "host C" "fits (lscpu)"
  jq -r '.results[] | select(.suite=="latency" and .status=="ok") |
         "\(.params.size) \(.value * 1000) \(.stats.ci95 / .stats.mean * 100)"' "$j" |
    while read -r size ns ci; do
      lvl=memory
      if [ -n "$l3" ] && [ "$size" -le "$l3" ]; then lvl=L3; fi
      if [ -n "$l2" ] && [ "$size" -le "$l2" ]; then lvl=L2; fi
      if [ -n "$l1" ] && [ "$size" -le "$l1" ]; then lvl=L1d; fi
      host=$(awk -v s="$size" '$1 == s { print $2 }' "$out/host-latency.txt")
      printf "  %12s %10.2f %7.1f%% %10s  %s\n" "$(numfmt --to=iec "$size")B" "$ns" "$ci" \
        "${host:-n/a}" "$lvl"
    done
  echo
  echo "local memory beside the cache suite's reads (GB/s):"
  printf "  %-34s %10s\n" "case" "GB/s"
  jq -r '.results[] | select(.status=="ok" and (.suite=="local" or
           (.suite=="cache" and (.params.size|tonumber) <= 262144))) |
         "\(.suite) \(.case) vec=\(.params.vec) \(if .suite=="local" then "local=\(.params.local)" else "set=\(.params.size)" end) \(.value)"' "$j" |
    while read -r s c v w val; do printf "  %-34s %10.2f\n" "$s $c $v $w" "$val"; done
  echo
  echo "atomic adds, 10^9 per second (gpubench on the device; host-atomics on the same cores):"
  jq -r '.results[] | select(.suite=="atomics" and .status=="ok") |
         "\(.case) \(.params.type) addresses=\(.params.addresses) \(.value)"' "$j" |
    while read -r c t a v; do printf "  gpubench %-7s %-6s %-12s %10.4f\n" "$c" "$t" "$a" "$v"; done
  sed 's/^/  /' "$out/host-atomics.txt"
} | tee "$out/summary.txt"
