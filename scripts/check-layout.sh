#!/usr/bin/env bash
# The floors of the source tree, checked over every #include "..." line: a file may include its own
# floor and the floors below it, never one above. Bottom to top:
#   0 src/base      pure helpers: errors, units, params, stats, curves, Mann-Whitney, util
#   1 backends      backend.h (the vtable and capability bits), backends.c, cuda/, opencl/
#   2 src/harness   the suite contract, config, plan, measure, runner, results I/O, team, tuning
#   3 suites        one file per suite, suites.c (the table), common.c and multi_common.c (shared)
#   4 src/compare   verdicts over results files;  src/report  charts and pages (same floor)
#   5 src/commands  one file per command; main.c only dispatches
# tests/ and tools/ sit on top and may include anything. An include must name its floor
# ("harness/plan.h"), except a header in the including file's own folder and the generated
# gb-config.h / gb-version.h. Exit 0 clean, 1 with one line per offending include.
#   scripts/check-layout.sh [ROOT]
set -euo pipefail
root=${1:-$(dirname "$0")/..}
cd "$root"

floor_of() {
    case "$1" in
        src/base/*) echo 0 ;;
        backends/*) echo 1 ;;
        src/harness/*) echo 2 ;;
        suites/*) echo 3 ;;
        src/compare/* | src/report/*) echo 4 ;;
        src/commands/*) echo 5 ;;
        *) echo 9 ;;
    esac
}

bad=0
while IFS= read -r file; do
    from=$(floor_of "$file")
    [ "$from" = 9 ] && continue
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
        to=$(floor_of "$path")
        if [ "$to" -gt "$from" ]; then
            echo "$file:$lineno: includes \"$target\" (floor $to) from floor $from: an arrow up"
            bad=1
        fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" || true)
done < <(git ls-files -co --exclude-standard -- '*.c' '*.h' 2>/dev/null || find src backends suites tests tools -name '*.[ch]' 2>/dev/null)
exit $bad
