#!/usr/bin/env bash
# Slurm's HealthCheckProgram: `gpubench diag --level 1` on this node (under a minute); a failed
# test drains the node with the failed tests' names as the reason, and a healthy node that this
# script drained (its reason starts "gpubench diag") is resumed. A node an operator drained for
# another reason is never resumed, and nothing is resumed on a diag that could not run.
#   slurm.conf:  HealthCheckProgram=/usr/share/gpubench/slurm-healthcheck.sh
#                HealthCheckInterval=3600  HealthCheckNodeState=IDLE
# diag's exit status decides: 0 healthy (warnings too): resume when we drained it; 3 a test
# FAILED, 1 a test broke (ERROR): drain, "gpubench diag: diag/1/memory_triad FAIL, ..."; any other
# (gpubench missing, a usage error, interrupted): the node is left as it is and the status returned.
# The names come from diag's CSV (its first two columns: test and status), kept only when they
# look like test names; no text of the results is ever run, and every value is quoted.
# Environment: GPUBENCH (the binary: default gpubench on PATH, else the installation's or the
# source tree's build), GPUBENCH_DIAG_LEVEL (default 1), SLURMD_NODENAME (default hostname -s),
# GPUBENCH_DIAG_ARGS (more arguments for diag, split on spaces: "-d 0"), SCONTROL and SINFO
# (default scontrol, sinfo).
# Exit: diag's status (0 healthy, 3 drained for a failure, 1 drained for a broken test, else as
# diag); 4 when scontrol refused the update.
set -u
here=$(cd "$(dirname "$0")" && pwd)
gb=${GPUBENCH:-}
# Not named: on PATH (slurmd's PATH may be short), else the binary of the installation this
# script belongs to (DATADIR/gpubench -> BINDIR), else of the source tree's build.
if [ -z "$gb" ]; then
  gb=$(command -v gpubench 2>/dev/null) || {
    gb=$here/../../bin/gpubench
    [ -x "$gb" ] || gb=$here/../build/gpubench
  }
fi
node=${SLURMD_NODENAME:-$(hostname -s)}
level=${GPUBENCH_DIAG_LEVEL:-1}
scontrol=${SCONTROL:-scontrol}
sinfo=${SINFO:-sinfo}
log() { echo "slurm-healthcheck: $*" >&2; }

csv=$(mktemp "${TMPDIR:-/tmp}/gpubench-health-XXXXXX") || exit 1
trap 'rm -f "$csv"' EXIT
# shellcheck disable=SC2086 # GPUBENCH_DIAG_ARGS is a list of words on purpose
# Split on spaces but never expanded as a pattern: a word "*" stays "*", not the folder's files.
set -f
"$gb" diag --level "$level" -q -f csv -o "$csv" ${GPUBENCH_DIAG_ARGS:-}
rc=$?
set +f

# The node's current reason (empty when none).
reason_now=$("$sinfo" -h -N -n "$node" -o '%E' 2>/dev/null | head -n 1)
[ "$reason_now" = none ] && reason_now=

case $rc in
0)
  if [[ $reason_now == "gpubench diag"* ]]; then
    log "healthy: resuming $node (drained by us: $reason_now)"
    "$scontrol" update NodeName="$node" State=RESUME || exit 4
  fi
  exit 0
  ;;
1 | 3)
  # The tests that failed or broke, by name: diag/LEVEL/WORD[@DEVICE] only.
  failed=
  while IFS=, read -r table test status _; do
    [ "$table" = diag ] || continue
    [ "$status" = FAIL ] || [ "$status" = ERROR ] || continue
    [[ $test =~ ^diag/[0-9]+/[A-Za-z0-9_.-]+(@[0-9]+)?$ ]] || continue
    failed+="${failed:+, }$test"
  done <"$csv"
  [ -n "$failed" ] || failed="exit $rc, no test named"
  # Slurm keeps a reason of a few hundred characters: the first names, then how many more.
  reason="gpubench diag: $failed"
  if [ ${#reason} -gt 200 ]; then
    reason="${reason:0:190}..."
  fi
  if [ -n "$reason_now" ] && [[ $reason_now != "gpubench diag"* ]]; then
    log "$node is drained already by someone else ($reason_now): left so; $reason"
    exit "$rc"
  fi
  log "drain $node: $reason"
  "$scontrol" update NodeName="$node" State=DRAIN Reason="$reason" || exit 4
  exit "$rc"
  ;;
*)
  log "gpubench diag could not run (exit $rc): $node left as it is"
  exit "$rc"
  ;;
esac
