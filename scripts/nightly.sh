#!/usr/bin/env bash
# The nightly regression job:
#   scripts/nightly.sh PROFILE [COMPARE OPTIONS...]   run, keep, compare, report
#   scripts/nightly.sh --promote RESULTS.json         make a run the baseline
#
# Runs PROFILE, keeps the results file in $RESULTS_DIR/history/, compares it against
# $RESULTS_DIR/baselines/<host>-<device>-<profile>.json (the name `gpubench baseline --print-path` gives),
# writes the comparison (compare.md, compare.json, junit.xml) and a report with the baseline and
# tonight's run side by side into $RESULTS_DIR/reports/<profile>-<UTC time>/, and exits with
# compare's status: 0 no regression, 3 regression, 2 bad input. The first night, when there is no
# baseline yet, the run is promoted to baseline and the script exits 0. COMPARE OPTIONS go to
# `gpubench compare` (e.g. the thresholds `gpubench calibrate` suggests).
#
# A regression is confirmed before the night fails (CONFIRM=1, the default): the profile runs once
# more and the baseline is compared with that run too; only when it regresses again does the
# script exit 3. On a shared machine a whole run can be slowed by someone else's job (a CPU device
# loses half its speed when another process takes one of two cores); that does not repeat on
# demand, a real regression does. Both runs stay in history/.
#
# Environment: GPUBENCH      the binary (default build/gpubench)
#              RESULTS_DIR   where history/, baselines/ and reports/ live (default results)
#              RUN_OPTS      more options for `gpubench run` (e.g. "--backend cuda")
#              PRICES        a price sheet for the report (optional)
#              CONFIRM       0: fail on the first comparison, without a confirming run
set -uo pipefail

gb=${GPUBENCH:-build/gpubench}
dir=${RESULTS_DIR:-results}

usage() {
  sed -n '2,4p' "$0" | sed 's/^# //' >&2
  exit 2
}
[ $# -ge 1 ] || usage
if ! command -v "$gb" >/dev/null 2>&1 && [ ! -x "$gb" ]; then
  echo "nightly: $gb not found (build first: scripts/bootstrap.sh, or set GPUBENCH)" >&2
  exit 2
fi

if [ "$1" = --promote ]; then
  [ $# -eq 2 ] || usage
  exec "$gb" baseline "$2" --dir "$dir/baselines"
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
report="$dir/reports/$name-$stamp"
prices=()
[ -n "${PRICES:-}" ] && prices=(--prices "$PRICES")

if [ ! -f "$base" ]; then
  echo "nightly: no baseline yet for this host and device: promoting $new"
  "$gb" baseline "$new" --dir "$dir/baselines" || exit 2
  "$gb" report "$new" -o "$report" --title "gpubench nightly: $name, $stamp (first run)" \
    "${prices[@]}" || echo "nightly: the report is incomplete (see $report)" >&2
  exit 0
fi

mkdir -p "$report" || exit 2
"$gb" compare "$base" "$new" --markdown "$report/compare.md" --json "$report/compare.json" \
  --junit "$report/junit.xml" "$@"
rc=$?
runs=("$new")
if [ $rc -eq 3 ] && [ "${CONFIRM:-1}" = 1 ]; then
  again="$dir/history/$name-$stamp-confirm.json"
  echo "nightly: regression: confirming with a second run -> $again"
  # shellcheck disable=SC2086
  "$gb" run "$profile" -q -o "$again" ${RUN_OPTS:-} >/dev/null
  rerun=$?
  if [ $rerun -le 1 ] && [ -s "$again" ]; then
    "$gb" compare "$base" "$again" --markdown "$report/compare.md" --json "$report/compare.json" \
      --junit "$report/junit.xml" "$@"
    rc=$?
    runs+=("$again")
    [ $rc -eq 0 ] && echo "nightly: the regression did not repeat: not reported"
  else
    echo "nightly: the confirming run failed (exit $rerun): keeping the first verdict" >&2
  fi
fi
"$gb" report "$base" "${runs[@]}" -o "$report" \
  --title "gpubench nightly: $name, $stamp against the baseline" \
  "${prices[@]}" >/dev/null || echo "nightly: the report is incomplete (see $report)" >&2
echo "nightly: $new against $base: compare exit $rc; report in $report/index.html"
exit $rc
