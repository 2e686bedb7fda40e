/* gpubench — the measurement loop (docs/design.md, "Measurement"; contract in measure.h).
 *
 * gb_measure() is the only code here that touches a device; every decision it takes (how many
 * warm-up operations next, the next calibration batch, whether a sample is plausible, whether to
 * stop) is a pure function below, so the tests check them with plain numbers. */
#include "run/measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/units.h"
#include "run/config.h"

/* Called after every warm-up run, calibration batch and sample (gb_measure_set_heartbeat). */
static gb_heartbeat_fn heartbeat_fn;

void gb_measure_set_heartbeat(gb_heartbeat_fn fn)
{
    heartbeat_fn = fn;
}

static void heartbeat(void)
{
    if (heartbeat_fn)
        heartbeat_fn();
}

void gb_measure_heartbeat(void)
{
    heartbeat();
}

#define BATCH_LIMIT (UINT64_C(1) << 62)
#define CALIB_MAX_STEP 1024u

uint64_t gb_batch_cap(const struct gb_measure_cfg *cfg, uint64_t op_max_batch)
{
    uint64_t cap = BATCH_LIMIT;
    if (cfg->max_batch && cfg->max_batch < cap)
        cap = cfg->max_batch;
    if (op_max_batch && op_max_batch < cap)
        cap = op_max_batch;
    return cap;
}

uint64_t gb_warmup_next(const struct gb_measure_cfg *cfg, uint64_t done, double elapsed,
                        uint64_t last, double last_s, uint64_t cap)
{
    bool count_met = done >= cfg->warmup_runs;
    bool time_met = !(elapsed < cfg->warmup_time); /* a NaN target is met */
    if (count_met && time_met)
        return 0;
    if (cap == 0)
        cap = 1;

    /* What is still owed: operations, and the time converted to operations at the rate of the
     * last run (unknown before the first: one operation). */
    uint64_t want = 1;
    if (!count_met)
        want = cfg->warmup_runs - done;
    if (!time_met && last > 0 && last_s > 0.0) {
        double ops = ceil((cfg->warmup_time - elapsed) / (last_s / (double)last));
        uint64_t by_time = ops >= (double)BATCH_LIMIT ? BATCH_LIMIT : (uint64_t)ops;
        if (by_time > want)
            want = by_time;
    } else if (!time_met && last > 0) {
        want = UINT64_MAX; /* the last run was too short to time: just double */
    }

    uint64_t most = last == 0 ? 1 : (last > cap / 2 ? cap : 2 * last);
    if (most > cap)
        most = cap;
    if (want > most)
        want = most;
    return want ? want : 1;
}

uint64_t gb_calib_next(uint64_t reps, double sample_s, double min_sample_time, uint64_t cap)
{
    if (reps == 0)
        return 1;
    if (!(sample_s < min_sample_time) || reps >= cap)
        return reps;
    uint64_t factor = 2;
    while (factor < CALIB_MAX_STEP && sample_s * (double)factor < min_sample_time)
        factor *= 2;
    if (reps > cap / factor)
        return cap;
    return reps * factor;
}

int gb_op_time(double sample_s, uint64_t reps, double *op_s)
{
    if (reps == 0)
        return GB_FAIL(GB_EINVAL, "a sample of 0 operations");
    if (!isfinite(sample_s) || sample_s <= 0.0)
        return GB_FAIL(GB_EIMPLAUSIBLE,
                       "a sample of %llu operations took %g s: the timer returned a time that "
                       "is zero, negative or not a number",
                       (unsigned long long)reps, sample_s);
    *op_s = sample_s / (double)reps;
    return 0;
}

enum gb_stop gb_sample_decide(const struct gb_measure_cfg *cfg, const double *op_time, size_t n,
                              double elapsed)
{
    double rel_ci = INFINITY;
    if (n >= 2) {
        double sum = 0.0;
        for (size_t i = 0; i < n; i++)
            sum += op_time[i];
        double mean = sum / (double)n, ss = 0.0;
        for (size_t i = 0; i < n; i++)
            ss += (op_time[i] - mean) * (op_time[i] - mean);
        double ci = gb_t975(n - 1) * sqrt(ss / (double)(n - 1)) / sqrt((double)n);
        if (mean > 0.0)
            rel_ci = ci / mean;
    }
    return gb_stop_rule(cfg, n, rel_ci, elapsed);
}

/* ---- the device-facing part ---------------------------------------------------------------- */

struct batch_timer {
    const struct gb_suite *s;
    struct gb_case_ctx *ctx;
    struct gb_event *start, *end; /* GB_TIMER_DEVICE only */
    /* Host seconds spent in the suite's prepare() and settle() hooks so far: untimed work,
     * which the sampling budget (max_time) does not count, so that a case whose hooks check
     * every allocation still takes the samples its budget buys. */
    double hook_s;
};

/* The suite's prepare() before a batch of `reps` and settle() after it (gb_suite: untimed). */
static int batch_prepare(const struct gb_suite *s, struct gb_case_ctx *ctx, uint64_t reps)
{
    int rc = s->prepare ? s->prepare(ctx, reps) : 0;
    return rc ? gb_error_append(rc, "preparing a run of %llu operations", (unsigned long long)reps)
              : 0;
}
static int batch_settle(const struct gb_suite *s, struct gb_case_ctx *ctx, uint64_t reps)
{
    int rc = s->settle ? s->settle(ctx, reps) : 0;
    return rc ? gb_error_append(rc, "settling a run of %llu operations", (unsigned long long)reps)
              : 0;
}

/* One batch of `reps` operations timed by the case's timer (timed_batch says what *t and *host_t
 * hold). */
static int timed_batch_inner(struct batch_timer *tm, uint64_t reps, double *t, double *host_t)
{
    const struct gb_backend_ops *ops = tm->ctx->ops;
    struct gb_queue *q = tm->ctx->q;
    int rc;
    if (tm->start) {
        double h0 = gb_now();
        if ((rc = ops->event_record(q, tm->start)) != 0)
            return rc;
        if ((rc = tm->s->run(tm->ctx, reps)) != 0)
            return gb_error_append(rc, "in a timed run of %llu operations",
                                   (unsigned long long)reps);
        if ((rc = ops->event_record(q, tm->end)) != 0)
            return rc;
        if ((rc = ops->event_sync(tm->end)) != 0)
            return rc;
        *host_t = gb_now() - h0;
        uint64_t ns = 0;
        if ((rc = ops->event_elapsed_ns(tm->start, tm->end, &ns)) != 0)
            return rc;
        *t = (double)ns * 1e-9;
        heartbeat();
        return 0;
    }
    double t0 = gb_now();
    if ((rc = tm->s->run(tm->ctx, reps)) != 0)
        return gb_error_append(rc, "in a timed run of %llu operations", (unsigned long long)reps);
    if (tm->ctx->op.timer != GB_TIMER_HOST_CALL && (rc = ops->queue_sync(q)) != 0)
        return rc;
    *t = *host_t = gb_now() - t0;
    heartbeat();
    return 0;
}

/* Runs one batch of `reps` operations and times it: *t in seconds by the case's timer, *host_t
 * the host wall time around it (for the device timer, a sanity check on a 0 reading). The
 * suite's prepare() and settle() run around it, outside the timing. */
static int timed_batch(struct batch_timer *tm, uint64_t reps, double *t, double *host_t)
{
    int rc;
    double h0 = gb_now();
    if ((rc = batch_prepare(tm->s, tm->ctx, reps)) != 0)
        return rc;
    tm->hook_s += gb_now() - h0;
    if ((rc = timed_batch_inner(tm, reps, t, host_t)) != 0)
        return rc;
    h0 = gb_now();
    rc = batch_settle(tm->s, tm->ctx, reps);
    tm->hook_s += gb_now() - h0;
    return rc;
}

/* ---- cold caches (cfg->cold) ---------------------------------------------------------------- */

/* Cold caches, as nvbench's L2 flush: before every timed batch, outside the timed region, each
 * device of the case writes a buffer of twice its last-level cache (l2_bytes; 64 MiB where the
 * device does not say; at least 8 MiB; at most its max_alloc) by two device-to-device copies
 * between the buffer's halves, and waits for them. What the operation touched is then evicted
 * (a write-allocate cache holds the flush buffer instead). A sample is then one operation
 * (gb_measure caps the batch at 1), so that every timed operation starts cold. */
struct flusher {
    struct gb_buf *buf[GB_MAX_SET];
    uint64_t half[GB_MAX_SET];
    size_t n;
};

static void flush_close(const struct gb_backend_ops *ops, struct flusher *fl)
{
    for (size_t i = 0; i < fl->n; i++)
        if (fl->buf[i])
            ops->buf_free(fl->buf[i]);
    fl->n = 0;
}

static int flush_open(struct gb_case_ctx *ctx, struct flusher *fl)
{
    const struct gb_backend_ops *ops = ctx->ops;
    size_t n = ctx->devs && ctx->ndevs ? ctx->ndevs : 1;
    if (n > GB_MAX_SET)
        n = GB_MAX_SET;
    if (!ops->buf_alloc || !ops->buf_free || !ops->copy)
        return GB_FAIL(GB_EUNSUPPORTED, "measure.cache cold: backend %s cannot copy buffers",
                       ops->name ? ops->name : "?");
    for (size_t i = 0; i < n; i++) {
        struct gb_device *dev = ctx->devs && ctx->ndevs ? ctx->devs[i] : ctx->dev;
        uint64_t bytes = dev->info.l2_bytes ? 2 * dev->info.l2_bytes : UINT64_C(64) << 20;
        if (bytes < (UINT64_C(8) << 20))
            bytes = UINT64_C(8) << 20;
        if (dev->info.max_alloc && bytes > dev->info.max_alloc)
            bytes = dev->info.max_alloc;
        bytes &= ~UINT64_C(4095);
        fl->half[i] = bytes / 2;
        int rc = ops->buf_alloc(dev, bytes, GB_MEM_DEVICE, &fl->buf[i]);
        fl->n = i + 1;
        if (rc) {
            fl->buf[i] = NULL;
            return gb_error_append(rc, "measure.cache cold: a flush buffer of %llu bytes",
                                   (unsigned long long)bytes);
        }
    }
    return 0;
}

static int flush_caches(struct gb_case_ctx *ctx, struct flusher *fl, struct gb_measurement *out)
{
    const struct gb_backend_ops *ops = ctx->ops;
    for (size_t i = 0; i < fl->n; i++) {
        struct gb_queue *q = ctx->queues && ctx->ndevs ? ctx->queues[i] : ctx->q;
        int rc;
        if ((rc = ops->copy(q, fl->buf[i], fl->half[i], fl->buf[i], 0, fl->half[i], 0)) ||
            (rc = ops->copy(q, fl->buf[i], 0, fl->buf[i], fl->half[i], fl->half[i], 0)) ||
            (rc = ops->queue_sync(q)))
            return gb_error_append(rc, "measure.cache cold: flushing the caches");
    }
    out->flushes++;
    return 0;
}

/* Says in the case's figures that its caches were cold (the result's `cache_state`). */
static void note_cold(struct gb_case_ctx *ctx)
{
    if (ctx->nfigures >= GB_MAX_FIGURES)
        return;
    struct gb_figure *f = &ctx->figures[ctx->nfigures++];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "cache_state");
    snprintf(f->text, sizeof f->text, "cold");
}

static bool stop_raised(volatile sig_atomic_t *stop_flag)
{
    return stop_flag && *stop_flag;
}

int gb_measure(const struct gb_suite *s, struct gb_case_ctx *ctx, const struct gb_measure_cfg *cfg,
               volatile sig_atomic_t *stop_flag, struct gb_measurement *out)
{
    if (!out)
        return GB_FAIL(GB_EINVAL, "gb_measure: no output");
    memset(out, 0, sizeof *out);
    if (!s || !s->run || !ctx || !ctx->ops || !ctx->q || !cfg)
        return GB_FAIL(GB_EINVAL, "gb_measure: missing suite run(), context, queue or budget");
    if (cfg->max_samples == 0)
        return GB_FAIL(GB_EINVAL, "gb_measure: max_samples is 0");
    const struct gb_backend_ops *ops = ctx->ops;
    /* Never a figure from a timer that was not checked: the backend checked the device's at
     * open, and one that failed is replaced by the host's. */
    bool device_timer = ctx->op.timer == GB_TIMER_DEVICE && !(ctx->dev && ctx->dev->timer_fault[0]);
    if (device_timer && (!ctx->dev || !ops->event_create || !ops->event_free ||
                         !ops->event_record || !ops->event_sync || !ops->event_elapsed_ns))
        return GB_FAIL(GB_EINVAL, "gb_measure: device timer without device or event members");
    if (!ops->queue_sync)
        return GB_FAIL(GB_EINVAL, "gb_measure: backend %s has no queue_sync",
                       ops->name ? ops->name : "?");

    /* Every allocation happens here, before anything is timed. */
    size_t cap_samples = cfg->max_samples;
    if (cap_samples > SIZE_MAX / sizeof(double))
        return GB_FAIL(GB_EOVERFLOW, "gb_measure: max_samples %zu", cap_samples);
    out->op_time = malloc(cap_samples * sizeof(double));
    if (!out->op_time)
        return GB_FAIL(GB_ENOMEM, "gb_measure: %zu samples", cap_samples);

    /* Telemetry: each sample's host window, allocated here too. */
    const struct gb_tel_cfg *tc = ctx->run ? &ctx->run->telemetry : NULL;
    bool tel_on = tc && tc->enabled;
    struct gb_tel_sampler *sampler = NULL;
    struct gb_tel_session *tel_session = NULL;
    if (tel_on) {
        out->tel.t0 = malloc(cap_samples * sizeof(double));
        out->tel.t1 = malloc(cap_samples * sizeof(double));
        if (!out->tel.t0 || !out->tel.t1) {
            gb_measurement_free(out);
            return GB_FAIL(GB_ENOMEM, "gb_measure: telemetry windows of %zu samples", cap_samples);
        }
    }

    struct batch_timer tm = {.s = s, .ctx = ctx};
    out->timer = device_timer                          ? GB_TIMER_DEVICE
                 : ctx->op.timer == GB_TIMER_HOST_CALL ? GB_TIMER_HOST_CALL
                                                       : GB_TIMER_HOST;
    struct flusher fl = {.n = 0};
    int rc = 0;
    if (cfg->cold && (rc = flush_open(ctx, &fl)) != 0)
        goto fail;
    if (device_timer) {
        if ((rc = ops->event_create(ctx->dev, &tm.start)) != 0)
            goto fail;
        if ((rc = ops->event_create(ctx->dev, &tm.end)) != 0)
            goto fail;
    }

    const uint64_t cap = cfg->cold ? 1 : gb_batch_cap(cfg, ctx->op.max_batch);

    /* Warm-up: nothing measured here is kept; the host clock only decides when it is over. */
    uint64_t done = 0, last = 0;
    double last_s = 0.0;
    const double w0 = gb_now();
    for (;;) {
        if (stop_raised(stop_flag))
            goto interrupted;
        uint64_t reps = gb_warmup_next(cfg, done, gb_now() - w0, last, last_s, cap);
        if (reps == 0)
            break;
        if ((rc = batch_prepare(s, ctx, reps)) != 0)
            goto fail;
        double t0 = gb_now();
        if ((rc = s->run(ctx, reps)) != 0) {
            gb_error_append(rc, "in a warm-up run of %llu operations", (unsigned long long)reps);
            goto fail;
        }
        if ((rc = ops->queue_sync(ctx->q)) != 0)
            goto fail;
        last_s = gb_now() - t0;
        if ((rc = batch_settle(s, ctx, reps)) != 0)
            goto fail;
        last = reps;
        done += reps;
        heartbeat();
    }

    /* Calibration: grow the batch until one sample lasts min_sample_time (or hits the cap). */
    uint64_t batch = 1;
    for (;;) {
        if (stop_raised(stop_flag))
            goto interrupted;
        double t = 0.0, host_t = 0.0;
        if (fl.n && (rc = flush_caches(ctx, &fl, out)) != 0)
            goto fail;
        if ((rc = timed_batch(&tm, batch, &t, &host_t)) != 0)
            goto fail;
        if (!isfinite(t) || t < 0.0) {
            rc = GB_FAIL(GB_EIMPLAUSIBLE, "calibration: a batch of %llu operations took %g s",
                         (unsigned long long)batch, t);
            goto fail;
        }
        if (t == 0.0 && host_t >= cfg->min_sample_time && host_t > 0.0) {
            rc = GB_FAIL(GB_EIMPLAUSIBLE,
                         "calibration: the device timer reports 0 ns for a batch of %llu "
                         "operations that took %g s on the host",
                         (unsigned long long)batch, host_t);
            goto fail;
        }
        uint64_t next = gb_calib_next(batch, t, cfg->min_sample_time, cap);
        if (next == batch)
            break;
        batch = next;
    }
    out->batch = batch;

    /* Telemetry: the sampler thread runs around the sampling phase, not inside a sample. */
    /* The device's session is opened on its first case, here rather than before the warm-up:
     * opened before it, the chip tests' first case (1 ms of warm-up on PoCL) measured 1000x
     * too slow in most runs on a loaded machine (cause not found). On a GPU, NVML's init then
     * falls between calibration and the first sample of a device's first case only. */
    if (tel_on && ctx->dev)
        tel_session = gb_tel_session_for(ctx->dev);
    if (tel_on && (rc = gb_tel_sampler_start(tel_session, tc->period, &sampler)) != 0)
        goto fail;

    /* Sampling: every sample is kept; the stopping rule decides after each one, on the time
     * spent sampling without the suite's untimed hooks (tm.hook_s). */
    const double s0 = gb_now();
    tm.hook_s = 0.0;
    for (;;) {
        if (stop_raised(stop_flag)) {
            out->interrupted = true;
            break;
        }
        double t = 0.0, host_t = 0.0;
        if (fl.n && (rc = flush_caches(ctx, &fl, out)) != 0)
            goto fail;
        if (sampler)
            out->tel.t0[out->n] = gb_now();
        ctx->sampling = true; /* a kept sample (suite.h): every one that returns is kept */
        rc = timed_batch(&tm, batch, &t, &host_t);
        ctx->sampling = false;
        if (rc != 0)
            goto fail;
        if (sampler)
            out->tel.t1[out->n] = gb_now();
        if ((rc = gb_op_time(t, batch, &out->op_time[out->n])) != 0) {
            gb_error_append(rc, "sample %zu", out->n + 1);
            goto fail;
        }
        out->n++;
        out->stop = gb_sample_decide(cfg, out->op_time, out->n, gb_now() - s0 - tm.hook_s);
        if (out->stop != GB_STOP_CONTINUE)
            break;
    }
    out->sampling_time = gb_now() - s0;
    /* telemetry.energy_window: the operation runs on, untimed and outside the statistics, until
     * the telemetry window is that long (no cache flushes between these batches); only when a
     * source reads the device (without one there is no window to lengthen). */
    struct gb_tel_source_status srcs[GB_TEL_NSRC];
    const bool measured = sampler && tel_session && gb_tel_sources(tel_session, srcs);
    while (measured && tc->energy_window > 0 && gb_now() - s0 < tc->energy_window) {
        if (stop_raised(stop_flag)) {
            out->interrupted = true;
            break;
        }
        double t = 0.0, host_t = 0.0;
        if ((rc = timed_batch(&tm, batch, &t, &host_t)) != 0)
            goto fail;
        out->extra_ops += batch;
    }
    if (fl.n)
        note_cold(ctx);
    if (sampler) {
        gb_tel_sampler_stop(sampler, &out->tel);
        out->tel.nsamples = out->n;
    }
    goto release;

interrupted:
    out->interrupted = true;
    out->stop = GB_STOP_CONTINUE;
release:
    flush_close(ops, &fl);
    if (tm.start)
        ops->event_free(tm.start);
    if (tm.end)
        ops->event_free(tm.end);
    return 0;

fail:
    flush_close(ops, &fl);
    if (sampler)
        gb_tel_sampler_stop(sampler, &out->tel);
    if (tm.start)
        ops->event_free(tm.start);
    if (tm.end)
        ops->event_free(tm.end);
    gb_measurement_free(out);
    return rc;
}

void gb_measurement_free(struct gb_measurement *m)
{
    if (!m)
        return;
    free(m->op_time);
    gb_tel_trace_free(&m->tel);
    memset(m, 0, sizeof *m);
}
