/* gpubench — the measurement loop (DESIGN.md "Measurement"). */
#ifndef GB_MEASURE_H
#define GB_MEASURE_H

#include <signal.h>

#include "stats.h"
#include "suite.h"

struct gb_measurement {
    double *op_time;      /* seconds per operation, one entry per sample (malloc'd) */
    size_t n;
    uint64_t batch;       /* operations per sample, after calibration */
    enum gb_stop stop;    /* why sampling ended (GB_STOP_CONTINUE if interrupted) */
    bool interrupted;     /* *stop_flag was raised: samples so far are kept */
    double sampling_time; /* seconds spent in timed samples */
};

/* Measures the case set up in ctx: warm-up (cfg->warmup_runs operations and cfg->warmup_time
 * seconds, nothing kept), batch calibration (operations per sample doubled until one sample
 * lasts cfg->min_sample_time, capped by cfg->max_batch and ctx->op.max_batch), then samples until
 * gb_stop_rule() says stop or *stop_flag becomes non-zero (checked between samples).
 * Timing follows ctx->op.timer. A sample whose time is zero, negative or NaN is an error
 * (GB_EIMPLAUSIBLE), never a division by zero. Returns 0 (out filled; free with
 * gb_measurement_free) or the error of a failing run() or backend call. */
int gb_measure(const struct gb_suite *s, struct gb_case_ctx *ctx, const struct gb_measure_cfg *cfg,
               volatile sig_atomic_t *stop_flag, struct gb_measurement *out);

void gb_measurement_free(struct gb_measurement *m);

#endif
