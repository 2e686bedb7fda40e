#!/usr/bin/env bash
# bench-mpi.sh — gpubench-mpi's all-reduce and all-gather side by side with the OSU
# Micro-Benchmarks' osu_allreduce and osu_allgather, at the same size, type (float) and number of
# ranks, as ratios of the time per operation.
#
# Each round runs both, in alternating order (gpubench-mpi first in odd rounds, OSU first in even
# ones, so that a drift of the machine does not favour one), each with the same warm-up and timed
# operation counts. The time per operation compared is the mean over the timed operations, averaged
# over the ranks, on both sides: OSU's "Avg Latency(us)" and the mean of gpubench-mpi's op_time_us
# (operation i's time averaged over the ranks). Sizes are nccl-tests' (gpubench-mpi's -s): the
# all-reduce's buffer, and the all-gather's receive buffer, of which each rank sends 1/n: OSU's
# all-gather size is the bytes each rank sends, so it runs at SIZE / n. Ratio = gpubench-mpi's time
# / OSU's (above 1: gpubench-mpi slower). OSU runs the MPI call on host buffers alone; gpubench-mpi
# holds device buffers and stages them (mpi_coll.h: read back, MPI call, write), so the ratio is
# what the staging costs on top of the same MPI call, not a fault of either. The figure per
# collective is the median of the rounds' ratios.
#
# OSU's source is not part of gpubench: fetch the OSU Micro-Benchmarks (7.x) into an ignored
# folder, by default build/peers/osu; when no osu_allreduce is built there yet, this script builds
# it there with Open MPI's mpicc (./configure, then make in c/util and c/mpi/collective).
#
#   scripts/bench-mpi.sh [-r ROUNDS] [-n RANKS] [-s BYTES] [-i ITERS] [-w WARMUP] [OUTDIR]
#     -r ROUNDS  rounds (default 3)              -n RANKS  MPI ranks (default 2)
#     -s BYTES   nccl-tests size, a multiple of 4 x RANKS (default 1048576)
#     -i ITERS   timed operations (default 20)   -w WARMUP untimed operations first (default 5)
#     OUTDIR     default results/bench-mpi
#   env: OSU_DIR (OSU's source and build folder), GPUBENCH_BUILD (default build), MPIRUN_FLAGS
#        (more mpirun flags, e.g. --oversubscribe), POCL_DEVICES as the ranks' devices need
# Exit status: 0 both ran every round; 1 a run failed; 2 usage or setup (no OSU, no gpubench-mpi).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GPUBENCH_BUILD:-build}
osu=${OSU_DIR:-build/peers/osu}
rounds=3 np=2 bytes=1048576 iters=20 warmup=5
while getopts "r:n:s:i:w:h" o; do
  case $o in
    r) rounds=$OPTARG ;; n) np=$OPTARG ;; s) bytes=$OPTARG ;; i) iters=$OPTARG ;;
    w) warmup=$OPTARG ;;
    h) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
out=${1:-results/bench-mpi}
die() { echo "bench-mpi: $*" >&2; exit 2; }
[[ "$rounds" =~ ^[1-9][0-9]{0,2}$ ]] || die "-r needs a count from 1 to 999, not '$rounds'"
[[ "$np" =~ ^[1-9][0-9]{0,3}$ ]] || die "-n needs a rank count from 1 to 9999, not '$np'"
[[ "$iters" =~ ^[1-9][0-9]{0,5}$ ]] || die "-i needs a count from 1 to 999999, not '$iters'"
[[ "$warmup" =~ ^[0-9]{1,6}$ ]] || die "-w needs a count from 0 to 999999, not '$warmup'"
[[ "$bytes" =~ ^[1-9][0-9]{0,11}$ ]] && ((bytes % (4 * np) == 0)) ||
  die "-s needs a byte count, a multiple of 4 x $np (a float per rank), not '$bytes'"
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
agsend=$((bytes / np)) # OSU's all-gather size: what each rank sends

run_gb() {
  rm -f "$out/gpubench-$1.json"
  mpirun "${flags[@]}" -np "$np" "$build/gpubench-mpi" collective --coll allreduce,allgather \
    --dtype f32 --op sum --size "$bytes" --iters "$iters" --warmup "$warmup" -q \
    -o "$out/gpubench-$1.json" >"$out/gpubench-$1.txt" 2>&1 ||
    { echo "bench-mpi: gpubench-mpi failed (round $1): $(tail -2 "$out/gpubench-$1.txt")" >&2; return 1; }
}
run_osu() {
  mpirun "${flags[@]}" -np "$np" "$osu_ar" -T mpi_float -m "$bytes:$bytes" -i "$iters" \
    -x "$warmup" >"$out/osu-allreduce-$1.txt" 2>&1 &&
    mpirun "${flags[@]}" -np "$np" "$osu_ag" -T mpi_float -m "$agsend:$agsend" -i "$iters" \
      -x "$warmup" >"$out/osu-allgather-$1.txt" 2>&1 ||
    { echo "bench-mpi: OSU failed (round $1): see $out/osu-*-$1.txt" >&2; return 1; }
}
declare -A ratios=([allreduce]="" [allgather]="")
status=0
for ((r = 1; r <= rounds; r++)); do
  echo "bench-mpi: round $r of $rounds ($np ranks, $bytes B, $iters operations) ..." >&2
  if ((r % 2)); then run_gb $r && run_osu $r || status=1
  else run_osu $r && run_gb $r || status=1; fi
  for c in allreduce allgather; do
    want=$bytes
    [ $c = allgather ] && want=$agsend
    # OSU's line for the size: "SIZE  AVG_US".
    peer=$(awk -v s="$want" '$1 == s {print $2}' "$out/osu-$c-$r.txt" 2>/dev/null || true)
    ours=$(jq -r --arg c "$c" '[.results[] | select(.params.coll == $c and .status == "ok") |
             .op_time_us.mean] | first // empty' "$out/gpubench-$r.json" 2>/dev/null || true)
    ratio=$(awk -v a="$ours" -v b="$peer" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "n/a";
                                                 else printf "%.3f", a / b }')
    ratios[$c]+="$ratio "
    printf '  %-9s gpubench-mpi %10.1f us  OSU %10.1f us  ratio %s\n' "$c" "${ours:-0}" \
      "${peer:-0}" "$ratio" >&2
  done
done

{
  echo "$np ranks, $(jq -r '.devices[0].name' "$out/gpubench-1.json" 2>/dev/null) ($(date -u +%Y-%m-%dT%H:%M:%SZ));" \
       "$bytes B (nccl-tests size; OSU all-gather $agsend B per rank), float, $iters operations" \
       "after $warmup, $rounds rounds; mean time per operation, gpubench-mpi (host-staged" \
       "device buffers) over OSU (host buffers), $(head -2 "$out/osu-allreduce-1.txt" 2>/dev/null | tr -d '#' | xargs)"
  printf '%-10s %-28s %s\n' collective "ratios (gpubench-mpi / OSU)" median
  for c in allreduce allgather; do
    med=$(tr ' ' '\n' <<<"${ratios[$c]}" | grep -E '^[0-9.]+$' | sort -g |
          awk '{v[NR] = $1} END { if (!NR) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2];
                                   else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    printf '%-10s %-28s %s\n' "$c" "${ratios[$c]}" "$med"
  done
} | tee "$out/ratios.txt"
exit $status
