#!/usr/bin/env bash
# The floors of the source tree. A file may use its own floor and the floors below it, never one
# above, and no files may call each other in a circle. Bottom to top:
#   0 src/base      pure helpers: errors, units, params, stats, curves, Mann-Whitney, util
#   1 backends      backend.h (the vtable, capability bits and device facts), the backends' table,
#                   cuda/, opencl/, telemetry sources, peak tables
#   2 src/results   the results model and its JSON (read, write); self-describing param kinds
#   3 src/run       the suite contract, profiles, plan, measure, supervise, runner, team, tuning
#   4 suites        one file per suite, each with its descriptor; common.c and multi_common.c
#   5 src/analyses  compare, nights, calibrate, baseline, fleet, history, the report's model
#   6 src/outputs   the report's pages and gnuplot charts, the commands' documents, the writers
#   7 src/cli       one file per command; main.c only dispatches
# tests/ and tools/ sit on top and may include anything.
# Includes: every #include "..." line must name its floor ("run/plan.h"), except a header in the
# including file's own folder and the generated gb-config.h / gb-version.h. The backends' kernel
# dialect preludes (backends/NAME/prelude_NAME.h) are kernel text and are not read.
# Calls: with a build (BUILD, default $GPUBENCH_BUILD or build/), scripts/check-calls.py reads the
# objects' symbol tables and refuses a call up a floor and a circle of calls; without objects
# that half is skipped with a note.
# Suites' state: suites/NAME_state.h is suite NAME's private state, included on the suites floor
# only by suites/NAME.c and its own parts (suites/NAME_*.c); what suites share is a header that
# names the suites sharing it (gemm_tolerance.h, collective_engine.h). Tests may include any.
# Work items: a comment says what and why, never which item of this project's tracker asked for it:
# the word issue with a number after it, and a number in parentheses after #, are refused in the
# sources, kernels, tests, scripts, tools and configs. Another project's tracker is a source and
# stays cited by that project's name before it ("CLBlast issue #486", "nccl-tests#309").
# Exit 0 clean, 1 with one line per offence.
#   scripts/check-layout.sh [ROOT [BUILD]]
set -euo pipefail
root=${1:-$(dirname "$0")/..}
root=$(cd "$root" && pwd)
build=${2:-${GPUBENCH_BUILD:-build}}
[[ $build = /* ]] || build=$root/$build
here=$(cd "$(dirname "$0")" && pwd)
cd "$root"

floors=(src/base=0 backends=1 src/results=2 src/run=3 suites=4 src/analyses=5 src/outputs=6
        src/cli=7)

floor_of() {
    local f
    for f in "${floors[@]}"; do
        case "$1" in
            "${f%=*}"/*) echo "${f#*=}"; return ;;
        esac
    done
    echo 9
}

bad=0
while IFS= read -r file; do
    from=$(floor_of "$file")
    [ "$from" = 9 ] && continue
    case "$file" in
        backends/*/prelude_*.h) continue ;; # kernel text (a dialect prelude), not host C
    esac
    dir=$(dirname "$file")
    while IFS= read -r line; do
        lineno=${line%%:*}
        target=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"${line#*:}")
        case "$target" in
            gb-config.h | gb-version.h) continue ;;
        esac
        if [ -f "$dir/$target" ] && [[ "$target" != */* ]]; then
            continue # a header beside the file
        fi
        path=$target
        [ -f "src/$target" ] && path=src/$target
        if [ ! -f "$path" ]; then
            echo "$file:$lineno: includes \"$target\", which names no floor (write floor/name.h)"
            bad=1
            continue
        fi
        if [[ "$path" == suites/*_state.h && "$file" == suites/* ]]; then
            owner=$(basename "$path" _state.h)
            base=$(basename "$file")
            if [[ "$base" != "$owner.c" && "$base" != "${owner}"_*.c &&
                "$base" != "${owner}"_*.h ]]; then
                echo "$file:$lineno: includes \"$target\", the $owner suite's private state:" \
                    "share through a header that names its suites"
                bad=1
            fi
        fi
        to=$(floor_of "$path")
        if [ "$to" -gt "$from" ]; then
            echo "$file:$lineno: includes \"$target\" (floor $to) from floor $from: an arrow up"
            bad=1
        fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" || true)
done < <(git ls-files -co --exclude-standard -- '*.c' '*.h' 2>/dev/null ||
    find src backends suites tests tools -name '*.[ch]' 2>/dev/null)

work_item='(^|[^[:alnum:]_])[Ii]ssues?[[:space:]]+#?[0-9]+|\(#[0-9]+\)'
cited='[[:alnum:]_.+-]*[[:upper:]][[:alnum:]_.+-]*[[:space:]]+[Ii]ssues?[[:space:]]+#?[0-9]+'
mapfile -t texts < <(git ls-files -co --exclude-standard -- src suites backends kernels tests \
    scripts tools configs meson.build 2>/dev/null ||
    find src suites backends kernels tests scripts tools configs meson.build -type f 2>/dev/null)
while IFS= read -r hit; do
    file=${hit%%:*}
    rest=${hit#*:}
    lineno=${rest%%:*}
    named=$(sed -E "s/$cited//g" <<<"${rest#*:}" | grep -oE "$work_item" | head -n 1 || true)
    [ -n "$named" ] || continue
    named=$(grep -oE '[Ii]ssues?[[:space:]]+#?[0-9]+|\(#[0-9]+\)' <<<"$named")
    echo "$file:$lineno: names a work item of this project (\"$named\"): say what and why instead"
    bad=1
done < <([ ${#texts[@]} -eq 0 ] || grep -nHIE -- "$work_item" "${texts[@]}" || true)

if [ -d "$build/libgpubench.a.p" ]; then
    python3 "$here/check-calls.py" "$build" "$root" "${floors[@]}" || bad=1
else
    echo "check-layout: no objects in $build: the call graph is not checked" >&2
fi
exit $bad
