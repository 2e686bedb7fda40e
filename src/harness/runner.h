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

/* Converts measurement m of the case in ctx into r's metric, unit, direction, samples and
 * statistics: GB/s when ctx->op.bytes > 0, else GFLOP/s when ctx->op.flops > 0, else the
 * latency in microseconds. r->suite must be set (it decides the implausibility check). Used by
 * the runner and by gb_case_measure() (src/subcase.h). */
struct gb_measurement;
void gb_result_fill_metric(struct gb_result *r, const struct gb_case_ctx *ctx,
                           const struct gb_measurement *m);

/* Marks r failed in stage `what` ("setup", "measure", "verify") with error err: its reason
 * becomes "<what>: <gb_strerror(err)>: <gb_error_msg()>", the detail left out when empty. */
void gb_result_fail(struct gb_result *r, int err, const char *what);

/* Records in r what verify() returned (err) for the case in ctx, after gb_result_fill_metric:
 * GB_EVERIFY fails it with ctx->reason ("verification failed: ..."), another error fails it as
 * gb_result_fail(..., "verify"), 0 makes it ok and verified, with a reason when the noise target
 * was not reached in the m_samples samples. r->max_error is ctx->max_error either way. Returns
 * err, so that the caller can tell a broken verify (a suspect queue) from a mismatch. */
int gb_result_verified(struct gb_result *r, const struct gb_case_ctx *ctx, int err,
                       size_t m_samples);

/* Prints the summary table of rs to f: one row per result. */
void gb_print_summary(FILE *f, const struct gb_results *rs);

#endif
