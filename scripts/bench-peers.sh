#!/usr/bin/env bash
# Runs gpubench and its peers on the same OpenCL device in one go and prints ratios:
#   device-memory bandwidth: gpubench triad against the machine's memory bandwidth (STREAM triad
#     on the host, tools/host-stream.c; on a CPU device that memory *is* device memory) and
#     against clpeak's global-memory bandwidth;
#   H2D / D2H: gpubench pinned (and pageable) async copies of 256 MiB against clpeak's
#     enqueueWriteBuffer / enqueueReadBuffer of 256 MiB;
#   launch latency: gpubench's device-timed figure (device_queued_to_end: QUEUED to END of a
#     1-work-item kernel's own event) against clpeak's "kernel launch latency" (QUEUED to END of
#     an 8192-work-item kernel) — the same quantity; and gpubench's host-observed launch-and-wait,
#     which also counts the host's side of the enqueue and the wait, for orientation.
# Usage: scripts/bench-peers.sh [OUTDIR]   (default results/bench-peers; env DEVICE=index)
# A ratio >= 1 means gpubench measured at least the peer's figure (for latency: lower is better).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GPUBENCH_BUILD:-build}
out=${1:-results/bench-peers}
dev=${DEVICE:-0}
for tool in clpeak jq; do
  command -v "$tool" >/dev/null || { echo "bench-peers: $tool is missing (scripts/bootstrap.sh installs it)" >&2; exit 2; }
done
[ -x "$build/gpubench" ] || { echo "bench-peers: build first (scripts/bootstrap.sh)" >&2; exit 2; }
mkdir -p "$out"

echo "bench-peers: clpeak on OpenCL device $dev ..." >&2
clpeak -p 0 -d "$dev" --global-bandwidth --transfer-bandwidth --kernel-latency >"$out/clpeak.txt"
echo "bench-peers: host STREAM ..." >&2
"$build/host-stream" 256 20 >"$out/host-stream.txt"
echo "bench-peers: gpubench ..." >&2
"$build/gpubench" run configs/bench-peers.yaml --device "opencl:$dev" -q -o "$out/gpubench.json" \
  >"$out/gpubench.txt"

clpeak_val() { # clpeak_val LABEL -> the number after "LABEL ... :"
  grep -E "^[[:space:]]*$1[[:space:]]*:" "$out/clpeak.txt" | head -1 | sed -E 's/.*:[[:space:]]*([0-9.]+).*/\1/'
}
gb_val() { # gb_val SUITE CASE [jq filter on params] -> best value among matching ok results
  jq -r --arg s "$1" --arg c "$2" "[.results[] | select(.suite==\$s and .case==\$c and .status==\"ok\") ${3:-} | .value] | max // empty" "$out/gpubench.json"
}
host_triad=$(awk '/^triad_gbs/ {print $2}' "$out/host-stream.txt")
cl_bw=$(for v in float float2 float4 float8 float16; do clpeak_val "$v"; done | sort -g | tail -1)
cl_wr=$(clpeak_val "enqueueWriteBuffer")
cl_rd=$(clpeak_val "enqueueReadBuffer")
cl_lat=$(grep -E "Kernel launch latency" "$out/clpeak.txt" | sed -E 's/.*:[[:space:]]*([0-9.]+).*/\1/')
triad=$(gb_val memory triad)
copy=$(gb_val memory copy)
h2d_pin=$(gb_val transfer h2d '| select(.params.memory=="pinned")')
h2d_page=$(gb_val transfer h2d '| select(.params.memory=="pageable")')
d2h_pin=$(gb_val transfer d2h '| select(.params.memory=="pinned")')
d2h_page=$(gb_val transfer d2h '| select(.params.memory=="pageable")')
lat=$(jq -r '[.results[] | select(.suite=="launch" and .case=="latency") | .value] | first // empty' "$out/gpubench.json")
lat_dev=$(jq -r '[.results[] | select(.suite=="launch" and .case=="latency") | .figures[]? | select(.name=="device_queued_to_end") | .value] | first // empty' "$out/gpubench.json")

row() { # row LABEL OURS PEER PEERNAME [lower]
  awk -v l="$1" -v a="$2" -v b="$3" -v p="$4" -v lower="${5:-}" 'BEGIN {
    if (a == "" || b == "" || b + 0 == 0) { printf "%-34s %10s %10s  %-28s %s\n", l, a, b, p, "n/a"; exit }
    r = lower ? b / a : a / b
    printf "%-34s %10.2f %10.2f  %-28s %6.2fx\n", l, a, b, p, r }'
}
{
  echo "device: $(jq -r '.devices[0].name' "$out/gpubench.json")  ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  printf "%-34s %10s %10s  %-28s %s\n" "figure" "gpubench" "peer" "peer figure" "ratio"
  row "triad GB/s vs machine memory" "$triad" "$host_triad" "host STREAM triad" 
  row "triad GB/s vs clpeak global bw" "$triad" "$cl_bw" "clpeak best vector width"
  row "copy GB/s vs clpeak global bw" "$copy" "$cl_bw" "clpeak best vector width"
  row "H2D pinned GB/s" "$h2d_pin" "$cl_wr" "clpeak enqueueWriteBuffer"
  row "H2D pageable GB/s" "$h2d_page" "$cl_wr" "clpeak enqueueWriteBuffer"
  row "D2H pinned GB/s" "$d2h_pin" "$cl_rd" "clpeak enqueueReadBuffer"
  row "D2H pageable GB/s" "$d2h_page" "$cl_rd" "clpeak enqueueReadBuffer"
  row "launch latency us, device-timed" "$lat_dev" "$cl_lat" "clpeak kernel launch latency" lower
  row "launch latency us, host-observed" "$lat" "$cl_lat" "clpeak kernel launch latency" lower
} | tee "$out/ratios.txt"
