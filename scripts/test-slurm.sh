#!/usr/bin/env bash
# The fleet script on a real Slurm: starts a one-node cluster on this machine (munged as the munge
# user with a fresh key, slurmctld and slurmd as root, state, spool, logs and sockets in a temporary
# folder, free ports), runs a 2-task fleet job of a tiny profile through salloc and srun
# (scripts/fleet-slurm.sh with TASKS_PER_NODE=2), checks the two results files and the fleet view
# of them, then adds a hand-slowed copy of one node's file (every figure at 0.5x) and checks that
# `gpubench fleet` flags it (LOW by its node shift) and exits 3, and runs gpubench-mpi's
# collectives across 2 tasks (where the build has it). Every daemon it started is
# stopped and the folder removed on any exit (trap); nothing outside the folder is written.
#   scripts/test-slurm.sh            # as root, after scripts/bootstrap.sh
# With the argument `healthcheck` it tests scripts/slurm-healthcheck.sh on the same cluster
# instead: a planted failure (GPUBENCH_TEST_DIAG_FAIL=memory_triad) drains the node with the test's
# name in the reason; healthy, the node is resumed; a node an operator drained stays drained.
#   scripts/test-slurm.sh healthcheck
# Exit 0 pass, 1 fail, 77 skipped (a line "skip reason: ..." says why: not root, Slurm or munge
# not installed). Run by the test runner as the tests slurm_fleet_job_on_localhost and
# slurm_healthcheck_drains_and_resumes.
# Environment: GPUBENCH  the binary (default build/gpubench)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

skip() {
  echo "skip reason: $*"
  exit 77
}
[ "$(id -u)" -eq 0 ] || skip "needs root to start slurmd and munged"
for c in slurmctld slurmd srun salloc sinfo munged jq; do
  command -v "$c" >/dev/null 2>&1 || skip "$c not installed (scripts/bootstrap.sh installs slurmctld, slurmd, slurm-client, munge)"
done
id munge >/dev/null 2>&1 || skip "no munge user (the munge package makes it)"
gb=$(realpath "${GPUBENCH:-build/gpubench}" 2>/dev/null) || { echo "no gpubench binary" >&2; exit 1; }
[ -x "$gb" ] || { echo "no gpubench binary at $gb" >&2; exit 1; }

t0=$(date +%s)
tmp=$(mktemp -d /tmp/gpubench-slurm-XXXXXX) || exit 1
chmod 755 "$tmp"
pids=()
cleanup() {
  local p
  # srun/salloc first (a failed test may leave a job), then the daemons, newest first.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    p=${pids[i]}
    kill "$p" 2>/dev/null
  done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  [ -f "$tmp/munged.pid" ] && kill "$(cat "$tmp/munged.pid")" 2>/dev/null
  sleep 0.2
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() {
  echo "FAIL: $*" >&2
  for log in "$tmp"/*.log; do
    [ -f "$log" ] && { echo "--- $log" >&2; tail -20 "$log" >&2; }
  done
  exit 1
}

# Two free TCP ports for slurmctld and slurmd (nothing answering on 127.0.0.1).
free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 30000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
  return 1
}
ctld_port=$(free_port) || fail "no free port"
slurmd_port=$(free_port) || fail "no free port"
[ "$ctld_port" != "$slurmd_port" ] || slurmd_port=$((ctld_port + 1))

# munge: a fresh key, its own socket, run as the munge user.
mkdir -p "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chown -R munge:munge "$tmp/munge"
chmod 700 "$tmp/munge"
chmod 400 "$tmp/munge/munge.key"
runuser -u munge -- munged --socket="$tmp/munge/munge.socket" --key-file="$tmp/munge/munge.key" \
  --pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/munged.seed" \
  --log-file="$tmp/munge/munged.log" --force || fail "munged did not start"
cp "$tmp/munge/munged.pid" "$tmp/munged.pid" 2>/dev/null || true
# The socket's folder must be searchable by root's clients (srun, slurmd): root can anyway.

node=$(hostname -s)
cpus=$(nproc)
mkdir -p "$tmp/state" "$tmp/spool"
cat >"$tmp/slurm.conf" <<EOF
ClusterName=gpubench-test
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=10
SlurmdTimeout=10
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=10 State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf

slurmctld -D -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" >"$tmp/slurmd.out" 2>&1 &
pids+=($!)
state=
for _ in $(seq 100); do
  state=$(sinfo -h -n "$node" -o %T 2>/dev/null)
  [ "$state" = idle ] && break
  sleep 0.2
done
[ "$state" = idle ] || fail "the node did not come up (state '$state')"
echo "test-slurm: one-node cluster up in $(($(date +%s) - t0)) s (ports $ctld_port, $slurmd_port)"

if [ "${1:-}" = healthcheck ]; then
  hc() { GPUBENCH=$gb GPUBENCH_SOURCE_DIR=$PWD SLURMD_NODENAME=$node scripts/slurm-healthcheck.sh >>"$tmp/hc.log" 2>&1; }
  reason() { sinfo -h -N -n "$node" -o '%E' | head -n 1; }
  # A planted failure: drained, the test named in the reason; a second planted name that is
  # shell text is a name, never a command.
  # shellcheck disable=SC2016 # the $(...) is meant literally
  GPUBENCH_TEST_DIAG_FAIL='memory_triad,x$(touch '"$tmp"'/pwned)`touch '"$tmp"'/pwned`' hc
  rc=$?
  cat "$tmp/hc.log"
  [ $rc -eq 3 ] || fail "the health check exited $rc with a planted failure (3 expected)"
  r=$(reason)
  [[ $r == "gpubench diag: "*"diag/1/memory_triad"* ]] || fail "reason '$r' does not name diag/1/memory_triad"
  [ ! -e "$tmp/pwned" ] || fail "text of a test's name ran as a command"
  st=$(sinfo -h -N -n "$node" -o %T | head -n 1)
  [[ $st == drain* ]] || fail "the node is '$st', not drained"
  echo "test-slurm: drained: $r"
  # Healthy: resumed.
  hc
  rc=$?
  [ $rc -eq 0 ] || { cat "$tmp/hc.log"; fail "the health check exited $rc on a healthy node"; }
  st=$(sinfo -h -N -n "$node" -o %T | head -n 1)
  [[ $st != drain* ]] || fail "the node is still '$st' after a healthy check"
  echo "test-slurm: resumed: $st"
  # An operator's drain stays, whatever the check finds.
  scontrol update NodeName="$node" State=DRAIN Reason="maintenance by hand" || fail "scontrol drain"
  hc
  GPUBENCH_TEST_DIAG_FAIL=memory_triad hc
  r=$(reason)
  [ "$r" = "maintenance by hand" ] || { cat "$tmp/hc.log"; fail "the operator's reason became '$r'"; }
  st=$(sinfo -h -N -n "$node" -o %T | head -n 1)
  [[ $st == drain* ]] || fail "the operator's drain was resumed ('$st')"
  echo "test-slurm: an operator's drain stays: $r"
  echo "test-slurm: passed in $(($(date +%s) - t0)) s"
  exit 0
fi

# A tiny profile: two memory kernels at three sizes and the launch latency, a few samples each
# (7 cases: a node shift takes 5 at least).
cat >"$tmp/tiny.yaml" <<'EOF'
name: tiny
measure: {warmup_runs: 1, warmup_time: 1ms, min_samples: 3, max_samples: 5, max_noise: 0.5,
          max_time: 50ms, min_sample_time: 1ms}
suites:
  - suite: memory
    params: {op: [copy, triad], type: float, size: [256KiB, 512KiB, 1MiB]}
  - suite: launch
    params: {op: latency}
EOF

out=$tmp/fleet
GPUBENCH=$gb TASKS_PER_NODE=2 timeout 120 salloc -N 1 -n 2 --time=5 -J gpubench-fleet-test \
  scripts/fleet-slurm.sh "$tmp/tiny.yaml" "$out" >"$tmp/job.log" 2>&1 &
job=$!
pids+=("$job")
wait "$job"
rc=$?
cat "$tmp/job.log"
[ $rc -eq 0 ] || fail "the fleet job exited $rc (0 expected: two nodes are too few to judge)"
shopt -s nullglob
files=("$out/results/$node"-*-[01].json)
[ ${#files[@]} -eq 2 ] || fail "expected 2 results files named $node-JOB-{0,1}.json, got: $(ls "$out/results")"
for f in "${files[@]}"; do
  [ "$(jq -r '.run.host' "$f")" = "$(hostname)" ] || fail "$f: host $(jq -r .run.host "$f")"
  [ "$(jq '[.results[] | select(.status == "ok")] | length' "$f")" -eq 7 ] ||
    fail "$f: not 7 cases ok"
done
{ [ -s "$out/fleet.md" ] && [ -s "$out/fleet.json" ]; } || fail "no fleet view written"
[ "$(jq '.nodes | length' "$out/fleet.json")" -eq 2 ] || fail "the fleet view has not 2 nodes"
grep -q "2 files, 2 members" "$tmp/job.log" || fail "the job did not print the fleet view"

# The hand-slowed copy: task 0's file as a third node with every figure at 0.5x (a time doubled),
# and two exact copies of task 0 as the majority. Two real tasks sharing this machine's CPUs
# differ by up to tens of percent in a case; without expectations for this CPU one slowed figure
# only deviates, and the node is judged by its shift over its 7 cases (test_fleet.c judges the
# rule on controlled spreads).
a=${files[0]}
for n in 2 3; do
  jq --arg h "copy-$n" '.run.host = $h' "$a" >"$out/results/copy-$n.json"
done
jq '.run.host = "slowed" | .results[] |= (if .better == "lower" then 2.0 else 0.5 end) as $f |
    (.value *= $f | .samples |= map(. * $f))' "$a" >"$out/results/slowed.json"
"$gb" fleet "$out/results" >"$tmp/fleet.txt" 2>&1
rc=$?
cat "$tmp/fleet.txt"
[ $rc -eq 3 ] || fail "gpubench fleet exited $rc with the slowed copy (3 expected)"
grep -Eq '^slowed +0 +-50\.0 +LOW: node shift over [0-9]+ cases' "$tmp/fleet.txt" ||
  fail "the slowed node is not LOW by its node shift of -50%"
# (Task 1 may be LOW as well: two tasks sharing two cores, one of them can run 25% slower as a
# whole; the copies of task 0 are the majority the shift is measured against.)

# gpubench-mpi's collectives across the job's 2 tasks: mpirun inside the allocation (Open MPI reads
# the allocation from Slurm's environment), every collective verified on both ranks. Left out when
# the build has no gpubench-mpi or mpirun is missing.
mpi=$(dirname "$gb")/gpubench-mpi
if [ -x "$mpi" ] && command -v mpirun >/dev/null 2>&1; then
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 salloc -N 1 -n 2 --time=5 \
    -J gpubench-mpi-test mpirun -np 2 "$mpi" collective --size 64KiB --iters 3 --warmup 1 -q \
    -o "$tmp/mpi.json" >"$tmp/mpi.log" 2>&1 &
  job=$!
  pids+=("$job")
  wait "$job"
  rc=$?
  cat "$tmp/mpi.log"
  [ $rc -eq 0 ] || fail "the gpubench-mpi job exited $rc"
  [ "$(jq '[.results[] | select(.status == "ok" and .verified and .params.ranks == 2)] | length' \
        "$tmp/mpi.json")" -eq 7 ] || fail "gpubench-mpi under Slurm: not 7 collectives ok on 2 ranks"
  echo "test-slurm: gpubench-mpi collective across 2 Slurm tasks: 7 collectives verified"
else
  echo "test-slurm: gpubench-mpi or mpirun absent: its Slurm job left out"
fi
echo "test-slurm: passed in $(($(date +%s) - t0)) s"
