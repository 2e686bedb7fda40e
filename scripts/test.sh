#!/usr/bin/env bash
# Builds (through bootstrap.sh) and runs every test: unit tests and device tests on whatever
# OpenCL device exists (PoCL on a machine without a GPU). Each test runs in its own process with a
# timeout; the last line is "N passed, N failed, N skipped". Arguments select tests by substring.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
exec "${GPUBENCH_BUILD:-build}/tests/gpubench-tests" "$@"
