#!/usr/bin/env bash
# A fleet run on Slurm: one profile on every node of an allocation, one task per node, the results
# files collected in one folder and merged with `gpubench fleet`.
#   salloc -N 16 --exclusive scripts/fleet-slurm.sh PROFILE [OUTDIR]
#   sbatch -N 16 --exclusive scripts/fleet-slurm.sh PROFILE [OUTDIR]
#
# Inside the allocation, `srun --ntasks-per-node=1` starts the ordinary `gpubench run PROFILE` on
# each node; task k on node H of job J writes OUTDIR/results/H-J-k.json (H as Slurm names the node).
# OUTDIR (default fleet-J) must be a folder every node can write: a shared file system. When all
# tasks are done, `gpubench fleet OUTDIR/results` writes OUTDIR/fleet.md and OUTDIR/fleet.json and
# prints the view. Nothing in gpubench knows about Slurm: this script only arranges runs of the
# binary, and the files can be merged anywhere later.
#
# Exit status: the fleet view's: 0 no outlier node, 3 an outlier node (a node beyond the MAD rule
# in some case, or a case that failed on it and ran elsewhere: see `gpubench fleet --help`), 2 no
# results file came back or bad input. A task whose run failed (some case failed, or gpubench
# could not start) is reported on stderr; its file, when written, is merged like the others.
#
# Environment: GPUBENCH        the binary (default build/gpubench; made absolute for the nodes)
#              RUN_OPTS        more options for `gpubench run` (e.g. "--backend cuda")
#              FLEET_OPTS      options for `gpubench fleet` (e.g. "--min-deviation 3%")
#              SRUN_OPTS       more options for srun (e.g. "--gpus-per-task=8 --cpu-bind=none")
#              TASKS_PER_NODE  tasks on each node (default 1: one run sees all of a node's
#                              devices); more only to try the script on one machine
# For a nightly history rather than a fleet, run one node per night (a job array, or the nightly
# job scripts/nightly.sh under cron) and give the files to `gpubench history`.
set -uo pipefail

usage() {
  sed -n '2,5p' "$0" | sed 's/^# //' >&2
  exit 2
}
{ [ $# -ge 1 ] && [ $# -le 2 ]; } || usage
profile=$1
[ -f "$profile" ] || { echo "fleet-slurm: no profile $profile" >&2; exit 2; }
if [ -z "${SLURM_JOB_ID:-}" ]; then
  echo "fleet-slurm: not inside a Slurm allocation (run it under salloc or sbatch)" >&2
  exit 2
fi
command -v srun >/dev/null || { echo "fleet-slurm: srun not found" >&2; exit 2; }

gb=${GPUBENCH:-build/gpubench}
if [[ "$gb" == */* ]]; then
  gb=$(realpath "$gb") || { echo "fleet-slurm: $gb not found" >&2; exit 2; }
else
  gb=$(command -v "$gb") || { echo "fleet-slurm: $gb not found" >&2; exit 2; }
fi
[ -x "$gb" ] || { echo "fleet-slurm: $gb is not executable (build first)" >&2; exit 2; }
profile=$(realpath "$profile")
out=$(realpath -m "${2:-fleet-$SLURM_JOB_ID}")
mkdir -p "$out/results" || exit 2

nodes=${SLURM_JOB_NUM_NODES:-${SLURM_NNODES:-1}}
per_node=${TASKS_PER_NODE:-1}
echo "fleet-slurm: job $SLURM_JOB_ID, $nodes node(s) x $per_node task(s): $profile -> $out/results"

# Each task: the node's name as Slurm knows it, the job and the task's rank name its file.
# shellcheck disable=SC2016 # expanded by each task's shell, not here
task='exec "$0" run "$1" -q -o "$2/${SLURMD_NODENAME:-$(hostname)}-${SLURM_JOB_ID}-${SLURM_PROCID}.json" "${@:3}"'
# shellcheck disable=SC2086 # SRUN_OPTS and RUN_OPTS are lists of options
srun --nodes="$nodes" --ntasks-per-node="$per_node" --ntasks=$((nodes * per_node)) \
  --kill-on-bad-exit=0 ${SRUN_OPTS:-} \
  bash -c "$task" "$gb" "$profile" "$out/results" ${RUN_OPTS:-}
rc=$?
[ $rc -eq 0 ] || echo "fleet-slurm: srun exit $rc (a task's run failed or some case failed)" >&2

shopt -s nullglob
files=("$out/results/"*-"$SLURM_JOB_ID"-*.json)
if [ ${#files[@]} -eq 0 ]; then
  echo "fleet-slurm: no results file came back" >&2
  exit 2
fi
echo "fleet-slurm: ${#files[@]} results file(s); the fleet view in $out/fleet.md"
# shellcheck disable=SC2086 # FLEET_OPTS is a list of options
"$gb" fleet "${files[@]}" --markdown "$out/fleet.md" --json "$out/fleet.json" ${FLEET_OPTS:-}
