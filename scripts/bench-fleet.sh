#!/usr/bin/env bash
# The fleet at scale: NODES generated results files of CASES cases each (a real run's results
# cycled, written by gpubench's own writer: build/tests/gpubench-fleet-gen), then `gpubench fleet`
# over them, plain and judged against expectations, under /usr/bin/time: CPU (user + system),
# wall and peak memory. The goal: 10,000 files of 300 cases in under 60 s of CPU on one
# core and 200 MB.
#
#   scripts/bench-fleet.sh [NODES (10000)] [CASES (300)] [TEMPLATE.json]
#
# The files go to a temporary folder (about 0.6 MB each: 6 GB for 10,000), removed at the end;
# GPUBENCH_FLEET_DIR=DIR keeps them there instead (generated once, reused when complete).
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-10000}
cases=${2:-300}
template=${3:-$(ls results/reference/*-opencl-quick-*.json | head -n 1)}
build=${GPUBENCH_BUILD:-build}
[[ -x $build/gpubench && -x $build/tests/gpubench-fleet-gen ]] || scripts/bootstrap.sh >/dev/null
command -v /usr/bin/time >/dev/null || { echo "bench-fleet: needs /usr/bin/time (Debian: time)" >&2; exit 2; }

if [[ -n ${GPUBENCH_FLEET_DIR:-} ]]; then
  dir=$GPUBENCH_FLEET_DIR
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/gpubench-fleet.XXXXXX")
  trap 'rm -rf "$dir"' EXIT
fi
last=$(printf '%s/node%05d.json' "$dir" $((nodes - 1)))
if [[ ! -s $last ]]; then
  echo "bench-fleet: generating $nodes files of $cases cases from $template in $dir"
  start=$(date +%s)
  "$build/tests/gpubench-fleet-gen" "$template" "$dir" "$nodes" "$cases"
  echo "bench-fleet: generated in $(($(date +%s) - start)) s"
fi
bytes=$(du -sb "$dir" | cut -f1)
echo "bench-fleet: $nodes files, $((bytes / 1000000)) MB, $((bytes / nodes / 1000)) KB each"

measure() { # LABEL ARGS...: one fleet run under time; its figures on one line
  local label=$1; shift
  local t; t=$(mktemp)
  local rc=0
  /usr/bin/time -f '%U %S %e %M' -o "$t" "$build/gpubench" fleet "$dir" "$@" >/dev/null 2>&1 || rc=$?
  read -r user sys wall kb < <(tail -n 1 "$t")
  rm -f "$t"
  # exit 3 (outlier nodes) is expected of 10,000 noisy nodes; 2 is an error
  [[ $rc -le 3 && $rc -ne 2 ]] || { echo "bench-fleet: fleet $label exited $rc" >&2; exit 1; }
  awk -v l="$label" -v u="$user" -v s="$sys" -v w="$wall" -v k="$kb" -v n="$nodes" 'BEGIN {
    printf "%-22s CPU %6.1f s (user %.1f, system %.1f; %.2f ms a file), wall %6.1f s, peak %4.0f MB\n",
      l, u + s, u, s, 1000 * (u + s) / n, w, k / 1024 }'
}
measure "fleet"
measure "fleet --expect" --expect results/reference/expectations.json
