/* gpubench — the measurement loop (docs/design.md, "Measurement"). */
#ifndef GB_MEASURE_H
#define GB_MEASURE_H

#include <signal.h>

#include "base/stats.h"
#include "run/suite.h"
#include "backends/telemetry.h"

struct gb_measurement {
    double *op_time; /* seconds per operation, one entry per sample (malloc'd) */
    size_t n;
    uint64_t batch;       /* operations per sample, after calibration */
    enum gb_stop stop;    /* why sampling ended (GB_STOP_CONTINUE if interrupted) */
    bool interrupted;     /* *stop_flag was raised: samples so far are kept (n may be 0 when
                           * it was raised during warm-up or calibration) */
    double sampling_time; /* host wall-clock seconds of the sampling phase (warm-up and
                           * calibration excluded); max_time is checked against it less the
                           * time of the suite's prepare() and settle() hooks */
    /* The timer the samples were taken with: ctx->op.timer, except that a device timer on a
     * device whose timestamps failed the backend's check (gb_device.timer_fault) falls back to
     * the host's, around run() and queue_sync, as BabelStream and clpeak time. */
    enum gb_timer timer;
    uint64_t flushes;   /* cfg->cold: cache flushes run (one before every timed batch) */
    uint64_t extra_ops; /* telemetry.energy_window: operations run after the last sample, in
                           * batches, to lengthen the telemetry window; in no sample */
    /* Telemetry of the sampling phase (backends/telemetry.h): tel.on when the case's profile
     * entry (ctx->run) has telemetry enabled; then tel.t0/t1 hold each sample's host window. */
    struct gb_tel_trace tel;
};

/* Measures the case set up in ctx: warm-up (cfg->warmup_runs operations and cfg->warmup_time
 * seconds, nothing kept), batch calibration (operations per sample doubled until one sample
 * lasts cfg->min_sample_time, capped by cfg->max_batch and ctx->op.max_batch), then samples until
 * gb_stop_rule() says stop or *stop_flag becomes non-zero (checked between samples).
 * With cfg->cold (`measure: {cache: cold}`) every sample is one operation and each device of the
 * case writes a buffer of twice its last-level cache before it, untimed (measure.c, "cold
 * caches"); the case's figures then say cache_state "cold" (no such figure: hot).
 * With telemetry enabled in ctx->run, a background sampler (backends/telemetry.h) runs from just
 * before the first sample to just after the last, and out->tel records the readings and every
 * sample's host window; nothing of it runs between a sample's start and end on this thread.
 * Timing follows ctx->op.timer (out->timer says which was used: a device whose event timer
 * failed its check is timed on the host). A sample whose time is zero, negative or NaN is an error
 * (GB_EIMPLAUSIBLE), never a division by zero. Returns 0 (out filled; free with
 * gb_measurement_free) or the error of a failing run() or backend call. */
int gb_measure(const struct gb_suite *s, struct gb_case_ctx *ctx, const struct gb_measure_cfg *cfg,
               volatile sig_atomic_t *stop_flag, struct gb_measurement *out);

void gb_measurement_free(struct gb_measurement *m);

/* ---- the loop's decisions: pure functions, unit-tested without a device ------------------- */

/* Operations per sample at most: the smaller of cfg->max_batch and op_max_batch, a 0 in either
 * meaning "no limit"; 2^62 when both are 0 (so that doubling a batch cannot overflow). */
uint64_t gb_batch_cap(const struct gb_measure_cfg *cfg, uint64_t op_max_batch);

/* Warm-up: `done` operations have run in `elapsed` seconds, the last run being `last` operations
 * (0 before the first) that took `last_s` seconds. Returns the operations of the next warm-up
 * run, or 0 once done >= cfg->warmup_runs and elapsed >= cfg->warmup_time. A run is what is
 * still owed (operations, or the time predicted from the last run), at least 1, at most twice
 * the last run and at most `cap`: warm-up runs grow geometrically instead of syncing after
 * every operation, and overshoot their targets by at most a factor of about 2. */
uint64_t gb_warmup_next(const struct gb_measure_cfg *cfg, uint64_t done, double elapsed,
                        uint64_t last, double last_s, uint64_t cap);

/* Batch calibration: a batch of `reps` >= 1 operations took `sample_s` seconds. Returns `reps`
 * when calibration is over (sample_s >= min_sample_time, or reps >= cap); otherwise the next
 * batch to try: reps doubled, and doubled again (up to 1024x in one step) while the time
 * predicted from sample_s stays under min_sample_time, capped by `cap`. A sample_s of 0 (below
 * the timer's resolution) jumps 1024x. */
uint64_t gb_calib_next(uint64_t reps, double sample_s, double min_sample_time, uint64_t cap);

/* Seconds per operation of a sample of `reps` operations that lasted `sample_s` seconds, into
 * *op_s. GB_EIMPLAUSIBLE (with the detail) when sample_s is 0, negative or not finite; GB_EINVAL
 * when reps is 0. */
int gb_op_time(double sample_s, uint64_t reps, double *op_s);

/* The stopping rule applied to op_time[0..n) after `elapsed` seconds of sampling: gb_stop_rule()
 * with rel_ci = ci95 / mean of the samples (INFINITY when n < 2 or the mean is not positive).
 * O(n), no allocation. */
enum gb_stop gb_sample_decide(const struct gb_measure_cfg *cfg, const double *op_time, size_t n,
                              double elapsed);

/* What measuring tells the process it runs in: `fn` is called after every warm-up run,
 * calibration batch and timed sample (the supervised worker sends its heartbeat from it, so that
 * the supervisor's limit on silence sees a case that keeps measuring). NULL: nothing is called.
 * The process's one setting, not per thread. */
typedef void (*gb_heartbeat_fn)(void);
void gb_measure_set_heartbeat(gb_heartbeat_fn fn);
/* Calls the heartbeat set above (if any): for a suite that works long outside gb_measure (the
 * tuning suite's builds of configurations a driver then prunes), so that the limit on silence
 * does not take work for a hang. */
void gb_measure_heartbeat(void);

#endif
