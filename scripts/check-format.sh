#!/usr/bin/env bash
# The house format (.clang-format) over every C file git tracks, kernels excepted (OpenCL C and
# CUDA C++ through one prelude, formatted by hand). Exit 0 clean; 1 with the files that drift and
# the first lines of each diff. --fix rewrites them in place instead.
#   scripts/check-format.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=${CLANG_FORMAT:-clang-format}
if ! command -v "$fmt" >/dev/null; then
    echo "check-format: $fmt not found (scripts/bootstrap.sh installs clang-format)" >&2
    exit 2
fi
mapfile -t files < <(git ls-files '*.c' '*.h' | grep -v '^kernels/')
if [ "${1:-}" = --fix ]; then
    "$fmt" -i "${files[@]}"
    exit 0
fi
bad=0
for f in "${files[@]}"; do
    if ! d=$("$fmt" "$f" | diff -u "$f" - 2>&1); then
        echo "check-format: $f differs from .clang-format (scripts/check-format.sh --fix):"
        head -n 12 <<<"$d"
        bad=1
    fi
done
exit $bad
