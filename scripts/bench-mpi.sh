#!/usr/bin/env bash
# bench-mpi.sh — gpubench-mpi's all-reduce and all-gather side by side with the OSU
# Micro-Benchmarks' osu_allreduce and osu_allgather, at the same sizes, type (float) and numbers
# of ranks, as ratios of the time per operation, OSU's over gpubench-mpi's.
#
# What is compared: by default gpubench-mpi runs with --buffers host, the MPI call alone on host
# buffers, which is what OSU measures (OSU's host buffers); -b device runs it on device buffers,
# host-staged, whose time then holds the copies as well (mpi_coll.h). The timing method is the
# same on both sides: W untimed operations, a barrier, I timed operations each timed on its own,
# with a barrier after every operation (gpubench-mpi's host mode; OSU always), and the time per
# operation compared is each rank's mean over the timed operations averaged over the ranks: OSU's
# "Avg Latency(us)" and gpubench-mpi's op_time_us.mean (operation i's time averaged over the
# ranks, then the mean over i: the same sum). Every gpubench-mpi case is verified on every rank;
# one that is not ok gives no ratio.
#
# Sizes are nccl-tests' (gpubench-mpi's --size): the all-reduce's buffer, and the all-gather's
# receive buffer, of which each rank sends 1/n. OSU's all-gather size is the bytes each rank
# sends, so OSU runs it at SIZE / n (and reports that size). Each round runs, for every rank
# count, size and collective, gpubench-mpi and OSU in alternating order: gpubench-mpi first in odd
# rounds, OSU first in even ones, so that a drift of the machine favours neither. Each run is one
# collective at one size in fresh processes, on both sides: on a shared machine a rank that has
# already run one case busy for a while was seen to be preempted far more often in the next (the
# scheduler's share for a busy process), which a fresh OSU process is not.
# Ratio = OSU's time / gpubench-mpi's: 1 the same, above 1 gpubench-mpi faster. The figure per
# collective, ranks and size is the median of the rounds' ratios; beside it, the ratio of the
# best rounds (OSU's least time over the rounds / gpubench-mpi's), which a shared machine's
# stalls (a rank preempted for some ms inflates a mean of microseconds many times) disturb least.
#
# OSU's source is not part of gpubench: point OSU_DIR at an OSU build or install (5.x or 7.x: 7.x
# takes -T mpi_float, 5.x has no -T, its all-reduce is float and its all-gather moves bytes); by
# default build/peers/osu, where, when no osu_allreduce is built yet, this script builds 7.x's
# source with Open MPI's mpicc (./configure, then make in c/util and c/mpi/collective).
#
#   scripts/bench-mpi.sh [-r ROUNDS] [-n RANKS] [-s SIZES] [-i ITERS] [-w WARMUP] [-b BUFFERS]
#                        [OUTDIR]
#     -r ROUNDS  rounds (default 3)
#     -n RANKS   MPI rank counts, comma list (default 2,4)
#     -s SIZES   nccl-tests sizes in bytes, comma list, each a multiple of 4 x every rank count
#                (default 8192,1048576,16777216)
#     -i ITERS   timed operations (default by size: 10000 at 8 KiB and below, 1000 to 1 MiB,
#                100 above; OSU's own are 1000 and 100: longer runs at the small sizes let a
#                shared machine's stalls of some ms average out alike on both sides)
#     -w WARMUP  untimed operations first (default a tenth of the timed ones)
#     -b BUFFERS gpubench-mpi's --buffers: host (default) or device
#     OUTDIR     default results/bench-mpi
#   env: OSU_DIR (OSU's build folder), GPUBENCH_BUILD (default build), MPIRUN_FLAGS (more mpirun
#        flags; --oversubscribe is added where the ranks outnumber the cores), POCL_DEVICES as
#        the ranks' devices need
# Exit status: 0 both ran every round; 1 a run failed; 2 usage or setup (no OSU, no gpubench-mpi).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GPUBENCH_BUILD:-build}
osu=${OSU_DIR:-build/peers/osu}
rounds=3 nps=2,4 sizes=8192,1048576,16777216 iters="" warmup="" buffers=host
while getopts "r:n:s:i:w:b:h" o; do
  case $o in
    r) rounds=$OPTARG ;; n) nps=$OPTARG ;; s) sizes=$OPTARG ;; i) iters=$OPTARG ;;
    w) warmup=$OPTARG ;; b) buffers=$OPTARG ;;
    h) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
out=${1:-results/bench-mpi}
die() { echo "bench-mpi: $*" >&2; exit 2; }
[[ "$rounds" =~ ^[1-9][0-9]{0,2}$ ]] || die "-r needs a count from 1 to 999, not '$rounds'"
[[ "$nps" =~ ^[1-9][0-9]{0,3}(,[1-9][0-9]{0,3})*$ ]] ||
  die "-n needs a comma list of rank counts, not '$nps'"
[[ "$sizes" =~ ^[1-9][0-9]{0,11}(,[1-9][0-9]{0,11})*$ ]] ||
  die "-s needs a comma list of byte counts, not '$sizes'"
[ -z "$iters" ] || [[ "$iters" =~ ^[1-9][0-9]{0,5}$ ]] ||
  die "-i needs a count from 1 to 999999, not '$iters'"
[ -z "$warmup" ] || [[ "$warmup" =~ ^[0-9]{1,6}$ ]] ||
  die "-w needs a count from 0 to 999999, not '$warmup'"
[[ "$buffers" =~ ^(host|device)$ ]] || die "-b needs host or device, not '$buffers'"
IFS=, read -r -a np_list <<<"$nps"
IFS=, read -r -a size_list <<<"$sizes"
for np in "${np_list[@]}"; do
  ((np >= 2)) || die "-n: OSU's collectives need 2 ranks or more, not $np"
  for bytes in "${size_list[@]}"; do
    ((bytes % (4 * np) == 0)) ||
      die "-s: $bytes is not a multiple of 4 x $np (a float per rank)"
  done
done
command -v jq >/dev/null || die "jq is missing (scripts/bootstrap.sh installs it)"
command -v mpirun >/dev/null || die "mpirun is missing (openmpi-bin)"
[ -x "$build/gpubench-mpi" ] || die "no $build/gpubench-mpi (meson -Dmpi, Open MPI's libopenmpi-dev)"
mkdir -p "$out"
# Open MPI refuses root without both variables.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# OSU's two benchmarks, built once in its folder.
find_osu() { find "$osu" -type f -perm -u+x -name "$1" 2>/dev/null | head -1; }
if [ -z "$(find_osu osu_allreduce)" ] || [ -z "$(find_osu osu_allgather)" ]; then
  [ -x "$osu/configure" ] ||
    die "no OSU Micro-Benchmarks in $osu (fetch their source there, or set OSU_DIR)"
  echo "bench-mpi: building OSU's collectives in $osu ..." >&2
  (cd "$osu" && ./configure CC=mpicc CXX=mpicxx && make -C c/util && make -C c/mpi/collective) \
    >"$out/osu-build.log" 2>&1 || die "OSU did not build: see $out/osu-build.log"
fi
osu_ar=$(find_osu osu_allreduce)
osu_ag=$(find_osu osu_allgather)
if [ -z "$osu_ar" ] || [ -z "$osu_ag" ]; then
  die "OSU built, but no osu_allreduce / osu_allgather in $osu"
fi
read -r -a flags <<<"${MPIRUN_FLAGS:-}"
# OSU 7.x takes the type (-T mpi_float); 5.x has no -T (its all-reduce is float already).
osu_type=()
if mpirun "${flags[@]}" -np 1 "$osu_ar" -h 2>&1 | grep -q -- '-T'; then
  osu_type=(-T mpi_float)
fi
osu_version=$(mpirun "${flags[@]}" -np 1 "$osu_ar" -v 2>/dev/null | tr -d '#' | xargs || true)
cores=$(nproc 2>/dev/null || echo 1)

# The timed and untimed counts for a size (nccl-tests' size; the same on both sides): -i / -w, or
# the defaults by size.
counts() {
  local b=$1 d=100
  ((b <= 1048576)) && d=1000
  ((b <= 8192)) && d=10000
  it=${iters:-$d}
  wu=${warmup:-$((it / 10))}
}
# One gpubench-mpi run: one collective at one size on np ranks.
run_gb() { # np bytes collective tag
  local f="$out/gpubench-$3-$4"
  rm -f "$f.json"
  mpirun "${mflags[@]}" -np "$1" "$build/gpubench-mpi" collective --coll "$3" --dtype f32 \
    --op sum --buffers "$buffers" --size "$2" --iters "$it" --warmup "$wu" -q -o "$f.json" \
    >"$f.txt" 2>&1 ||
    { echo "bench-mpi: gpubench-mpi failed ($3, $4): $(tail -2 "$f.txt")" >&2; return 1; }
}
# One OSU run: its all-reduce at the size, its all-gather at the size each rank sends.
run_osu() { # np bytes collective tag
  local bin=$osu_ar m=$2
  [ "$3" = allgather ] && bin=$osu_ag m=$(($2 / $1))
  mpirun "${mflags[@]}" -np "$1" "$bin" "${osu_type[@]}" -m "$m:$m" -i "$it" -x "$wu" \
    >"$out/osu-$3-$4.txt" 2>&1 ||
    { echo "bench-mpi: OSU failed ($3, $4): see $out/osu-$3-$4.txt" >&2; return 1; }
}

declare -A ratios=() ours_us=() peer_us=()
status=0
for ((r = 1; r <= rounds; r++)); do
  for np in "${np_list[@]}"; do
    mflags=("${flags[@]}")
    ((np > cores)) && mflags+=(--oversubscribe)
    for bytes in "${size_list[@]}"; do
      counts "$bytes"
      tag="n$np-s$bytes-r$r"
      echo "bench-mpi: round $r of $rounds: $np ranks, $bytes B, $it operations after $wu ..." >&2
      for c in allreduce allgather; do
        if ((r % 2)); then run_gb "$np" "$bytes" $c "$tag" && run_osu "$np" "$bytes" $c "$tag" ||
          status=1
        else run_osu "$np" "$bytes" $c "$tag" && run_gb "$np" "$bytes" $c "$tag" || status=1; fi
        want=$bytes
        [ $c = allgather ] && want=$((bytes / np))
        # OSU's line for the size: "SIZE  AVG_US ...".
        peer=$(awk -v s="$want" '$1 == s {print $2}' "$out/osu-$c-$tag.txt" 2>/dev/null || true)
        ours=$(jq -r --arg c "$c" '[.results[] | select(.params.coll == $c and .status == "ok") |
                 .op_time_us.mean] | first // empty' "$out/gpubench-$c-$tag.json" 2>/dev/null ||
               true)
        ratio=$(awk -v a="$peer" -v b="$ours" 'BEGIN { if (a == "" || b == "" || b + 0 == 0)
                                                   print "n/a"; else printf "%.3f", a / b }')
        k="$c $np $bytes"
        ratios[$k]+="$ratio "
        ours_us[$k]+="$(awk -v t="$ours" 'BEGIN { if (t == "") print "n/a"; else printf "%.2f", t }') "
        peer_us[$k]+="${peer:-n/a} "
        printf '  %-9s gpubench-mpi %10.1f us  OSU %10.1f us  OSU/gpubench %s\n' "$c" \
          "${ours:-0}" "${peer:-0}" "$ratio" >&2
      done
    done
  done
done

least() {
  tr ' ' '\n' <<<"$1" | grep -E '^[0-9.]+$' | sort -g | head -1 | grep . || echo n/a
}
median() {
  tr ' ' '\n' <<<"$1" | grep -E '^[0-9.]+$' | sort -g |
    awk '{v[NR] = $1} END { if (!NR) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2];
                           else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
{
  echo "$(hostname) ($(date -u +%Y-%m-%dT%H:%M:%SZ)), $(nproc) cores;" \
       "gpubench-mpi --buffers $buffers, float, sum; OSU: ${osu_version:-version unknown};" \
       "$rounds rounds; time = mean time per operation over the ranks (us), median over rounds;" \
       "ratio = OSU time / gpubench-mpi time (>= 1: gpubench-mpi at least as fast), median over" \
       "rounds; best = OSU's least time over the rounds / gpubench-mpi's"
  printf '%-10s %5s %10s %7s %7s %12s %12s  %-s\n' collective ranks size median best \
    "gpubench us" "OSU us" "ratios per round"
  for c in allreduce allgather; do
    for np in "${np_list[@]}"; do
      for bytes in "${size_list[@]}"; do
        k="$c $np $bytes"
        lo_ours=$(least "${ours_us[$k]}") lo_peer=$(least "${peer_us[$k]}")
        best=$(awk -v a="$lo_peer" -v b="$lo_ours" 'BEGIN { if (a == "n/a" || b == "n/a" || b + 0 == 0)
                                                     print "n/a"; else printf "%.3f", a / b }')
        printf '%-10s %5s %10s %7s %7s %12s %12s  %s\n' "$c" "$np" "$bytes" \
          "$(median "${ratios[$k]}")" "$best" "$(median "${ours_us[$k]}")" \
          "$(median "${peer_us[$k]}")" "${ratios[$k]}"
      done
    done
  done
} | tee "$out/ratios.txt"
exit $status
