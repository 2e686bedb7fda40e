/* gpubench — the runner: every case of a plan, measured, verified and written out. */
#ifndef GB_RUNNER_H
#define GB_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "harness/plan.h"
#include "harness/results.h"

struct gb_runner_opts {
    const char *out_path;            /* results file, rewritten atomically after every case */
    FILE *progress;                  /* "case i of N, ETA" lines; NULL for none */
    volatile sig_atomic_t *stop;     /* raised by SIGINT: stop after the current sample */
};

/* Runs every case of plan on its device. Each case: setup (may skip), gb_measure, verify,
 * teardown; a failing case is recorded as failed with its reason and the run goes on; a device
 * that cannot be opened fails its cases. The results file is rewritten after each case, so a
 * crash, a hang killed from outside or Ctrl-C loses at most the case in progress; run.interrupted
 * stays true in the file until the run has finished (results.h). rs must have
 * its `run` metadata filled in; devices and results are appended.
 * Returns 0 when every case is ok or skipped, 1 when some case failed, GB_EINTR when
 * interrupted, GB_EIO when the results file cannot be written. */
int gb_run_plan(const struct gb_plan *plan, const struct gb_runner_opts *o, struct gb_results *rs);

/* Prints the summary table of rs to f: one row per result. */
void gb_print_summary(FILE *f, const struct gb_results *rs);

#endif
