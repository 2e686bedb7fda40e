#!/usr/bin/env bash
# bench-babelstream.sh — gpubench's memory suite side by side with BabelStream's OpenCL model on
# the same OpenCL device, array size and element type, in one go, as ratios (like for like).
#
# Each round runs both, in alternating order (gpubench first in odd rounds, BabelStream first in
# even ones, so that a drift of the machine does not favour one), each with the same number of
# timed repetitions per kernel and one operation per sample, each kernel's runs back to back, as
# gpubench runs a case (BabelStream is run once per kernel with --only: in its default order a
# kernel reads what the one before it just wrote, and on a CPU that finds up to a last-level
# cache of it still there; its --order Isolated times the whole loop and reports the mean as
# every run's time, so it has no best), and compares best against best:
# BabelStream's "max MB/s" (its fastest of -n runs) against gpubench's fastest sample. Kernels:
# copy, triad and dot, at gpubench's defaults (vec 0, the dot's default sizing), which is what a
# user gets. BabelStream's byte counts are gpubench's (copy 2 arrays, triad 3, dot 2); its MB is
# 10^6 bytes, converted to GB/s (10^9). The figure per kernel is the median of the rounds' ratios.
#
# BabelStream's source is not part of gpubench: fetch it (github.com/UoB-HPC/BabelStream) into an
# ignored folder, by default build-peers/src/BabelStream (`git clone`, or `git archive` of a
# mirror); it is built there with the C++ compiler (no CMake download step: its CMake build
# fetches OpenCL headers from the network; the system's are used instead).
#
#   scripts/bench-babelstream.sh [-r ROUNDS] [-t float|double] [-n TIMES] [-s BYTES] [OUTDIR]
#     -r ROUNDS  rounds (default 3)           -t TYPE  element type (default float)
#     -n TIMES   timed runs of each kernel (default 20; BabelStream's -n, gpubench's samples)
#     -s BYTES   bytes per array (default: gpubench's default size for the device)
#     OUTDIR     default results/bench-babelstream
#   env: BABELSTREAM_SRC (the source folder), GPUBENCH_BUILD (default build), DEVICE (the
#        OpenCL device index, in gpubench's and BabelStream's order: both list platforms, then
#        devices, in the ICD loader's order)
# Exit status: 0 both ran every round; 1 a run failed; 2 usage or setup (no source, no build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GPUBENCH_BUILD:-build}
src=${BABELSTREAM_SRC:-build-peers/src/BabelStream}
dev=${DEVICE:-0}
rounds=3 type=float times=20 bytes=""
while getopts "r:t:n:s:h" o; do
  case $o in
    r) rounds=$OPTARG ;; t) type=$OPTARG ;; n) times=$OPTARG ;; s) bytes=$OPTARG ;;
    h) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
out=${1:-results/bench-babelstream}
die() { echo "bench-babelstream: $*" >&2; exit 2; }
# Counts in decimal without leading zeros (bash reads 08 as octal) and small enough that bash's
# 64-bit arithmetic cannot wrap.
[[ "$rounds" =~ ^[1-9][0-9]{0,2}$ ]] || die "-r needs a count from 1 to 999, not '$rounds'"
[[ "$times" =~ ^[1-9][0-9]{0,4}$ ]] && ((times >= 2)) ||
  die "-n needs a count from 2 to 99999, not '$times'"
case $type in float) esize=4 ;; double) esize=8 ;; *) die "-t needs float or double, not '$type'" ;; esac
[ -z "$bytes" ] || [[ "$bytes" =~ ^[1-9][0-9]{0,12}$ ]] ||
  die "-s needs a byte count from 1 to 10^13 - 1, not '$bytes'"
command -v jq >/dev/null || die "jq is missing (scripts/bootstrap.sh installs it)"
[ -x "$build/gpubench" ] || die "build first (scripts/bootstrap.sh)"
[ -f "$src/src/ocl/OCLStream.cpp" ] ||
  die "no BabelStream source in $src (fetch github.com/UoB-HPC/BabelStream there, or set BABELSTREAM_SRC)"
mkdir -p "$out"

# BabelStream's OpenCL model, built once per source (its own main.cpp and OCLStream.cpp).
bs=build-peers/babelstream-ocl/ocl-stream
if [ ! -x "$bs" ] || [ "$src/src/ocl/OCLStream.cpp" -nt "$bs" ]; then
  echo "bench-babelstream: building BabelStream's OpenCL model from $src ..." >&2
  mkdir -p "$(dirname "$bs")"
  "${CXX:-c++}" -O3 -std=c++17 -DOCL -I"$src/src" -I"$src/src/ocl" "$src/src/main.cpp" \
    "$src/src/ocl/OCLStream.cpp" -lOpenCL -o "$bs" 2>"$out/babelstream-build.log" ||
    die "BabelStream did not build: see $out/babelstream-build.log"
fi

# The array size: gpubench's default for the device unless -s, in whole elements.
if [ -z "$bytes" ]; then
  cat >"$out/size.yaml" <<YAML
name: bench-babelstream-size
measure: {warmup_runs: 0, min_samples: 1, max_samples: 1, max_time: 1ms, min_sample_time: 0ms}
suites:
  - suite: memory
    params: {op: copy, type: $type, size: 0}
YAML
  rm -f "$out/size.json"
  "$build/gpubench" run "$out/size.yaml" --device "opencl:$dev" -q -o "$out/size.json" \
    >"$out/size.txt" 2>&1 || die "gpubench could not size the arrays (exit $?): $(tail -2 "$out/size.txt")"
  bytes=$(jq -r '[.results[0].figures[]? | select(.name == "array_bytes") | .value] | first // empty' \
            "$out/size.json")
  [ -n "$bytes" ] || die "gpubench gave no array_bytes figure"
  bytes=${bytes%.*}
fi
n=$((bytes / esize))
((n > 0)) || die "-s $bytes holds no $type"

cat >"$out/gpubench.yaml" <<YAML
# One operation per sample, $times timed samples per kernel, as BabelStream's -n $times.
name: bench-babelstream
backends: [opencl]
measure: {warmup_runs: 1, min_samples: $times, max_samples: $times, max_noise: 1,
          max_time: 600s, min_sample_time: 0ms}
suites:
  - suite: memory
    params: {op: [copy, triad, dot], type: $type, size: $((n * esize))}
YAML

bs_flag=""
[ "$type" = float ] && bs_flag=--float
declare -A ratios=([copy]="" [triad]="" [dot]="")
run_gb() {
  rm -f "$out/gpubench-$1.json"
  "$build/gpubench" run "$out/gpubench.yaml" --device "opencl:$dev" -q -o "$out/gpubench-$1.json" \
    >"$out/gpubench-$1.txt" 2>&1 ||
    { echo "bench-babelstream: gpubench failed (round $1): $(tail -1 "$out/gpubench-$1.txt")" >&2; return 1; }
}
run_bs() {
  rm -f "$out/babelstream-$1.csv"
  local k
  for k in Copy Triad Dot; do
    "$bs" --device "$dev" $bs_flag -s "$n" -n "$times" --only $k --csv >>"$out/babelstream-$1.csv" 2>&1 ||
      { echo "bench-babelstream: BabelStream $k failed (round $1): $(tail -2 "$out/babelstream-$1.csv")" >&2; return 1; }
  done
}
status=0
for ((r = 1; r <= rounds; r++)); do
  echo "bench-babelstream: round $r of $rounds ($n ${type}s per array, $times runs each) ..." >&2
  if ((r % 2)); then run_gb $r && run_bs $r || status=1
  else run_bs $r && run_gb $r || status=1; fi
  for k in copy triad dot; do
    K=$(tr '[:lower:]' '[:upper:]' <<<"${k:0:1}")${k:1}
    peer=$(awk -F, -v k="$K" '$1 == k {print $5 / 1000}' "$out/babelstream-$r.csv" 2>/dev/null || true)
    ours=$(jq -r --arg c "$k" '[.results[] | select(.suite == "memory" and .case == $c and
             .status == "ok") | .samples | max] | first // empty' "$out/gpubench-$r.json" 2>/dev/null || true)
    ratio=$(awk -v a="$ours" -v b="$peer" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "n/a";
                                                 else printf "%.3f", a / b }')
    ratios[$k]+="$ratio "
    printf '  %-6s gpubench %8.3f GB/s  BabelStream %8.3f GB/s  ratio %s\n' "$k" "${ours:-0}" \
      "${peer:-0}" "$ratio" >&2
  done
done

{
  echo "device: opencl:$dev $(jq -r '.devices[0].name' "$out/gpubench-1.json" 2>/dev/null)" \
       "($(date -u +%Y-%m-%dT%H:%M:%SZ)); $n ${type}s per array ($((n * esize)) B), $times runs," \
       "$rounds rounds; best sample against BabelStream's best"
  echo "BabelStream: $(grep -m1 -i 'Reduction kernel config' "$out/babelstream-1.csv" 2>/dev/null || true);" \
       "gpubench dot: $(jq -r '[.results[] | select(.case == "dot") | .figures[]? |
                           select(.name == "config") | .text] | first // "?"' "$out/gpubench-1.json" 2>/dev/null)"
  printf '%-6s %-28s %s\n' kernel "ratios (gpubench / BabelStream)" median
  for k in copy triad dot; do
    med=$(tr ' ' '\n' <<<"${ratios[$k]}" | grep -E '^[0-9.]+$' | sort -g |
          awk '{v[NR] = $1} END { if (!NR) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2];
                                   else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    printf '%-6s %-28s %s\n' "$k" "${ratios[$k]}" "$med"
  done
} | tee "$out/ratios.txt"
exit $status
