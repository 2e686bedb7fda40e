#!/usr/bin/env bash
# The nightly regression job:
#   scripts/nightly.sh PROFILE [COMPARE OPTIONS...]          run, keep, compare, report
#   scripts/nightly.sh --promote RESULTS.json [--restart]    add a run to the baseline
#
# Runs PROFILE, keeps the results file in $RESULTS_DIR/history/ and judges it against the
# baseline of this host, device and profile: the last $NIGHTS accepted nights, kept in
# $RESULTS_DIR/baselines/<host>-<device>-<profile>/nights/ (`gpubench baseline --print-path`
# gives <...>.json, the newest of them; the folder is that path without .json). Each case's
# median tonight is compared with the spread of the nights' medians (median and MAD: `gpubench
# compare FOLDER NEW`, docs/compare.md "Nightly"); a regression must lie outside that spread and beyond
# the threshold, which is the one `gpubench calibrate --baseline` learned per case when it has
# run, else 5%. A case that fewer than 5 nights have is LEARNING and never fails, so the first
# nights build the baseline up: the first night becomes it and the script exits 0 (its
# compare.md, compare.json and junit.xml say LEARNING for every case). While learning, a night
# whose median case is beyond 1/1.6 of the nights' fails in the cases that far below (and is
# confirmed, and does not join), so that a regression in the first nights does not become the
# baseline.
#
# Writes the comparison (compare.md, compare.json, junit.xml) and a report with the newest
# baseline night and tonight side by side into $RESULTS_DIR/reports/<profile>-<UTC time>/, and
# exits with compare's status: 0 no regression, 3 regression, 2 bad input. A night that passes
# is added to the baseline's nights (the oldest beyond $NIGHTS dropped); one that regressed is
# not (after an intended change: --promote RESULTS.json --restart starts the nights over from
# that run). COMPARE OPTIONS go to `gpubench compare` (--threshold, --suite-threshold override
# the learned thresholds; --mads, --min-nights). A baseline from before nights (the .json file
# alone) becomes the first night.
#
# A regression is confirmed before the night fails (CONFIRM=1, the default): the profile runs once
# more and that run is compared against the nights too; only when it regresses again does the
# script exit 3. On a shared machine a whole run can be slowed by someone else's job (a CPU device
# loses half its speed when another process takes one of two cores); that does not repeat on
# demand, a real regression does. Both runs stay in history/; the one that passed joins the
# baseline.
#
# Environment: GPUBENCH      the binary (default build/gpubench)
#              RESULTS_DIR   where history/, baselines/ and reports/ live (default results)
#              RUN_OPTS      more options for `gpubench run` (e.g. "--backend cuda")
#              PRICES        a price sheet for the report (optional)
#              CONFIRM       0: fail on the first comparison, without a confirming run
#              NIGHTS        how many accepted nights the baseline keeps (default 14)
set -uo pipefail

gb=${GPUBENCH:-build/gpubench}
dir=${RESULTS_DIR:-results}

usage() {
  sed -n '2,4p' "$0" | sed 's/^# //' >&2
  exit 2
}
keep=${NIGHTS:-14}
[ $# -ge 1 ] || usage
if ! command -v "$gb" >/dev/null 2>&1 && [ ! -x "$gb" ]; then
  echo "nightly: $gb not found (build first: scripts/bootstrap.sh, or set GPUBENCH)" >&2
  exit 2
fi

if [ "$1" = --promote ]; then
  [ $# -ge 2 ] || usage
  shift
  exec "$gb" baseline "$@" --dir "$dir/baselines" --keep "$keep"
fi

profile=$1
shift
# Every output goes under $dir (gpubench itself refuses an output that is one of its inputs).
[ ! -e "$dir" ] || [ -d "$dir" ] || { echo "nightly: RESULTS_DIR $dir is not a folder" >&2; exit 2; }
[ -f "$profile" ] || { echo "nightly: no profile $profile" >&2; exit 2; }
name=$(basename "$profile" .yaml)
stamp=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$dir/history" "$dir/baselines" "$dir/reports" || exit 2
new="$dir/history/$name-$stamp.json"
# Two runs within one second (a retry, a test) must not share a file.
n=1
while [ -e "$new" ]; do n=$((n + 1)); new="$dir/history/$name-$stamp-$n.json"; done
stamp=$(basename "$new" .json); stamp=${stamp#"$name-"}

# shellcheck disable=SC2086 # RUN_OPTS is a list of options
"$gb" run "$profile" -q -o "$new" ${RUN_OPTS:-}
rc=$?
case $rc in
  0) ;;
  1) echo "nightly: some cases failed; compare reports them as FAILED" >&2 ;;
  130) echo "nightly: interrupted" >&2; exit 130 ;;
  *) echo "nightly: gpubench run failed (exit $rc)" >&2; exit 2 ;;
esac
[ -s "$new" ] || { echo "nightly: the run wrote no results file" >&2; exit 2; }

base=$("$gb" baseline "$new" --dir "$dir/baselines" --print-path) || exit 2
nights=${base%.json}
report="$dir/reports/$name-$stamp"
prices=()
[ -n "${PRICES:-}" ] && prices=(--prices "$PRICES")

# Adds an accepted run to the baseline's nights (a failure to do so does not fail the night).
promote() {
  "$gb" baseline "$1" --dir "$dir/baselines" --keep "$keep" ||
    echo "nightly: $1 could not join the baseline" >&2
}

if [ ! -f "$base" ] && [ ! -d "$nights/nights" ]; then
  echo "nightly: no baseline yet for this host and device: promoting $new"
  "$gb" baseline "$new" --dir "$dir/baselines" --keep "$keep" || exit 2
  # The same outputs as every night (a CI job's report step reads junit.xml): every case is
  # LEARNING against the one night, tonight's.
  mkdir -p "$report" || exit 2
  "$gb" compare "$nights" "$new" --markdown "$report/compare.md" --json "$report/compare.json" \
    --junit "$report/junit.xml" -q "$@" || echo "nightly: no comparison for the first night" >&2
  "$gb" report "$new" -o "$report" --title "gpubench nightly: $name, $stamp (first run)" \
    "${prices[@]}" || echo "nightly: the report is incomplete (see $report)" >&2
  exit 0
fi
if ! ls "$nights"/nights/*.json >/dev/null 2>&1; then
  # A baseline from before nights: it becomes the first night.
  "$gb" baseline "$base" --dir "$dir/baselines" --keep "$keep" || exit 2
fi

mkdir -p "$report" || exit 2
"$gb" compare "$nights" "$new" --markdown "$report/compare.md" --json "$report/compare.json" \
  --junit "$report/junit.xml" "$@"
rc=$?
runs=("$new")
accepted=$new
if [ $rc -eq 3 ] && [ "${CONFIRM:-1}" = 1 ]; then
  again="$dir/history/$name-$stamp-confirm.json"
  echo "nightly: regression: confirming with a second run -> $again"
  # shellcheck disable=SC2086
  "$gb" run "$profile" -q -o "$again" ${RUN_OPTS:-} >/dev/null
  rerun=$?
  if [ $rerun -le 1 ] && [ -s "$again" ]; then
    "$gb" compare "$nights" "$again" --markdown "$report/compare.md" --json "$report/compare.json" \
      --junit "$report/junit.xml" "$@"
    rc=$?
    runs+=("$again")
    accepted=$again
    [ $rc -eq 0 ] && echo "nightly: the regression did not repeat: not reported"
  else
    echo "nightly: the confirming run failed (exit $rerun): keeping the first verdict" >&2
  fi
fi
# The report puts the newest baseline night beside tonight's runs: made before tonight joins it.
bases=()
[ -f "$base" ] && bases=("$base")
"$gb" report "${bases[@]}" "${runs[@]}" -o "$report" \
  --title "gpubench nightly: $name, $stamp against the baseline" \
  "${prices[@]}" >/dev/null || echo "nightly: the report is incomplete (see $report)" >&2
case $rc in
  0) promote "$accepted" ;;
  3) echo "nightly: a regression: $accepted does not join the baseline" ;;
esac
echo "nightly: $new against the nights of $nights: compare exit $rc; report in $report/index.html"
exit $rc
