#include "runner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "measure.h"
#include "units.h"

static void utc_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Converts a measurement into the result's metric: GB/s when the operation moves bytes, else
 * GFLOP/s when it computes, else its latency in microseconds. */
static void fill_metric(struct gb_result *r, const struct gb_case_ctx *ctx,
                        const struct gb_measurement *m)
{
    double *us = malloc((m->n ? m->n : 1) * sizeof *us);
    r->samples = malloc((m->n ? m->n : 1) * sizeof *r->samples);
    if (!us || !r->samples) {
        free(us);
        free(r->samples);
        r->samples = NULL;
        return;
    }
    if (ctx->op.bytes > 0) {
        snprintf(r->metric, sizeof r->metric, "bandwidth");
        snprintf(r->unit, sizeof r->unit, "GB/s");
        r->better = GB_BETTER_HIGHER;
    } else if (ctx->op.flops > 0) {
        snprintf(r->metric, sizeof r->metric, "throughput");
        snprintf(r->unit, sizeof r->unit, "GFLOP/s");
        r->better = GB_BETTER_HIGHER;
    } else {
        snprintf(r->metric, sizeof r->metric, "latency");
        snprintf(r->unit, sizeof r->unit, "us");
        r->better = GB_BETTER_LOWER;
    }
    for (size_t i = 0; i < m->n; i++) {
        double t = m->op_time[i];
        us[i] = t * 1e6;
        r->samples[i] = ctx->op.bytes > 0   ? ctx->op.bytes / t / 1e9
                        : ctx->op.flops > 0 ? ctx->op.flops / t / 1e9
                                            : t * 1e6;
    }
    r->nsamples = m->n;
    gb_stats_compute(r->samples, m->n, &r->stats);
    gb_stats_compute(us, m->n, &r->op_time_us);
    free(us);
    r->value = r->stats.median;
    r->batch = m->batch;
    r->bytes_per_op = ctx->op.bytes;
    r->flops_per_op = ctx->op.flops;
    r->noisy = m->stop == GB_STOP_MAX_SAMPLES || m->stop == GB_STOP_MAX_TIME;
    /* Faster than the device's memory can go is a timer or a dead-code problem, not a record.
     * Only device-memory kernels are bounded by peak_mem_gbs. */
    double peak = ctx->dev->info.peak_mem_gbs;
    if (peak > 0 && strcmp(r->suite, "memory") == 0 && r->value > 1.05 * peak)
        r->implausible = true;
}

static void case_header(struct gb_result *r, const struct gb_plan_case *c, const char *backend,
                        int dev_idx)
{
    snprintf(r->suite, sizeof r->suite, "%s", c->run->suite->name);
    snprintf(r->case_name, sizeof r->case_name, "%s",
             c->params.n && c->params.v[0].type == GB_V_STR ? c->params.v[0].s : "");
    snprintf(r->backend, sizeof r->backend, "%s", backend);
    r->device_index = dev_idx;
    r->params = c->params;
}

static void reason_from_error(struct gb_result *r, int err, const char *what)
{
    const char *msg = gb_error_msg();
    snprintf(r->reason, sizeof r->reason, "%s: %s%s%s", what, gb_strerror(err), *msg ? ": " : "",
             msg);
}

/* Runs one case on an open device and fills r. Returns true when Ctrl-C cut the case short. */
static bool run_case(const struct gb_plan_case *c, struct gb_device *dev, struct gb_queue **q,
                     const struct gb_runner_opts *o, struct gb_result *r)
{
    const struct gb_suite *s = c->run->suite;
    const struct gb_backend_ops *ops = dev->ops;
    double t0 = gb_now();
    struct gb_case_ctx ctx = {.ops = ops, .dev = dev, .q = *q, .params = &c->params};
    ctx.state = calloc(1, s->state_size ? s->state_size : 1);
    if (!ctx.state) {
        r->status = GB_STATUS_FAILED;
        snprintf(r->reason, sizeof r->reason, "out of host memory");
        return false;
    }
    bool cut_short = false;
    gb_error_clear();
    int err = s->setup(&ctx);
    bool queue_suspect = false;
    if (err == GB_ESKIP) {
        r->status = GB_STATUS_SKIPPED;
        snprintf(r->reason, sizeof r->reason, "%s", ctx.reason);
    } else if (err) {
        r->status = GB_STATUS_FAILED;
        reason_from_error(r, err, "setup");
        queue_suspect = true;
    } else {
        struct gb_measurement m = {0};
        err = gb_measure(s, &ctx, &c->run->measure, o->stop, &m);
        if (err) {
            r->status = GB_STATUS_FAILED;
            reason_from_error(r, err, "measure");
            queue_suspect = true;
        } else {
            fill_metric(r, &ctx, &m);
            gb_error_clear();
            err = s->verify(&ctx);
            r->max_error = ctx.max_error;
            if (err == GB_EVERIFY) {
                r->status = GB_STATUS_FAILED;
                snprintf(r->reason, sizeof r->reason, "verification failed: %.990s", ctx.reason);
            } else if (err) {
                r->status = GB_STATUS_FAILED;
                reason_from_error(r, err, "verify");
                queue_suspect = true;
            } else {
                r->status = GB_STATUS_OK;
                r->verified = true;
                cut_short = m.interrupted;
                if (r->noisy)
                    snprintf(r->reason, sizeof r->reason,
                             "noise target not reached: CI95 %.2f%% of the mean after %zu "
                             "samples",
                             r->stats.mean > 0 ? 100 * r->stats.ci95 / r->stats.mean : 0.0, m.n);
                if (r->implausible)
                    snprintf(r->reason, sizeof r->reason,
                             "implausible: %.1f GB/s exceeds the device's peak %.1f GB/s",
                             r->value, dev->info.peak_mem_gbs);
            }
        }
        gb_measurement_free(&m);
    }
    s->teardown(&ctx);
    free(ctx.state);
    /* After a failure the queue may hold failed commands; start the next case on a new one. */
    if (queue_suspect) {
        ops->queue_sync(*q);
        ops->queue_destroy(*q);
        *q = NULL;
        if (ops->queue_create(dev, q))
            *q = NULL;
    }
    r->elapsed_s = gb_now() - t0;
    return cut_short;
}

static void progress(FILE *f, size_t i, size_t n, const struct gb_plan_case *c,
                     const struct gb_plan_device *d, double t_start)
{
    if (!f)
        return;
    char params[256];
    gb_params_format(&c->params, params, sizeof params);
    double spent = gb_now() - t_start;
    if (i > 0) {
        double eta = spent / (double)i * (double)(n - i);
        fprintf(f, "\r\033[K[%zu/%zu, ETA %.0f s] %s:%d %s %s", i + 1, n, eta, d->ops->name,
                d->index, c->run->suite->name, params);
    } else {
        fprintf(f, "\r\033[K[%zu/%zu] %s:%d %s %s", i + 1, n, d->ops->name, d->index,
                c->run->suite->name, params);
    }
    fflush(f);
}

int gb_run_plan(const struct gb_plan *plan, const struct gb_runner_opts *o, struct gb_results *rs)
{
    bool failed = false, interrupted = false;
    double t_start = gb_now();
    int ret = 0;
    size_t i = 0;
    while (i < plan->ncases && !interrupted) {
        const struct gb_plan_device *pd = &plan->devices[plan->cases[i].device];
        int dev_idx = -1;
        if (gb_results_add_device(rs, pd->ops->name, pd->index, &pd->info, &dev_idx))
            return GB_ENOMEM;
        struct gb_device *dev = NULL;
        struct gb_queue *q = NULL;
        gb_error_clear();
        int err = pd->ops->device_open(pd->index, &dev);
        if (!err)
            err = pd->ops->queue_create(dev, &q);
        char open_why[1024] = "";
        if (err)
            snprintf(open_why, sizeof open_why, "cannot open the device: %s%s%s",
                     gb_strerror(err), *gb_error_msg() ? ": " : "", gb_error_msg());
        size_t dev_case = plan->cases[i].device;
        for (; i < plan->ncases && plan->cases[i].device == dev_case; i++) {
            if (o->stop && *o->stop) {
                interrupted = true;
                break;
            }
            const struct gb_plan_case *c = &plan->cases[i];
            progress(o->progress, i, plan->ncases, c, pd, t_start);
            struct gb_result r = {0};
            bool cut_short = false;
            case_header(&r, c, pd->ops->name, dev_idx);
            if (!q) {
                r.status = GB_STATUS_FAILED;
                snprintf(r.reason, sizeof r.reason, "%s", *open_why ? open_why
                                                                    : "the device's queue was lost");
            } else {
                cut_short = run_case(c, dev, &q, o, &r);
            }
            if (cut_short) {
                /* A case cut short by Ctrl-C is not a finished case: drop it. */
                free(r.samples);
                interrupted = true;
                break;
            }
            failed |= r.status == GB_STATUS_FAILED;
            if (gb_results_add(rs, &r)) {
                free(r.samples);
                return GB_ENOMEM;
            }
            utc_now(rs->run.end_utc, sizeof rs->run.end_utc);
            if (o->out_path && gb_results_write(rs, o->out_path))
                ret = GB_EIO;
        }
        if (q)
            pd->ops->queue_destroy(q);
        if (dev)
            pd->ops->device_close(dev);
    }
    if (o->progress) {
        fprintf(o->progress, "\r\033[K");
        fflush(o->progress);
    }
    rs->run.interrupted = interrupted;
    utc_now(rs->run.end_utc, sizeof rs->run.end_utc);
    if (o->out_path && gb_results_write(rs, o->out_path))
        ret = GB_EIO;
    if (ret)
        return ret;
    if (interrupted)
        return GB_EINTR;
    return failed ? 1 : 0;
}

void gb_print_summary(FILE *f, const struct gb_results *rs)
{
    fprintf(f, "%-9s %-7s %-22s %-40s %-8s %12s %-7s %8s %12s\n", "suite", "case", "device",
            "params", "status", "value", "unit", "ci95", "op time us");
    for (size_t i = 0; i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        char params[256] = "", dev[64];
        /* The case name is the first axis: print the rest. */
        struct gb_params rest = r->params;
        if (rest.n > 0) {
            rest.n--;
            memmove(rest.name, rest.name + 1, rest.n * sizeof rest.name[0]);
            memmove(rest.v, rest.v + 1, rest.n * sizeof rest.v[0]);
        }
        gb_params_format(&rest, params, sizeof params);
        const struct gb_result_device *d =
            r->device_index >= 0 && (size_t)r->device_index < rs->ndevices
                ? &rs->devices[r->device_index]
                : NULL;
        snprintf(dev, sizeof dev, "%s:%d %.14s", r->backend, d ? d->index : -1,
                 d ? d->info.name : "?");
        if (r->status == GB_STATUS_OK) {
            char ci[16];
            snprintf(ci, sizeof ci, "%.1f%%",
                     r->stats.mean > 0 ? 100 * r->stats.ci95 / r->stats.mean : 0.0);
            fprintf(f, "%-9s %-7s %-22s %-40s %-8s %12.3f %-7s %8s %12.2f%s%s\n", r->suite,
                    r->case_name, dev, params, r->noisy ? "ok/noisy" : "ok", r->value, r->unit,
                    ci, r->op_time_us.median, r->implausible ? "  IMPLAUSIBLE" : "",
                    r->verified ? "" : "  unverified");
        } else {
            /* The first line of the reason; the results file has all of it (a build log). */
            int len = (int)strcspn(r->reason, "\n");
            fprintf(f, "%-9s %-7s %-22s %-40s %-8s  %.*s%s\n", r->suite, r->case_name, dev,
                    params, gb_status_name(r->status), len > 160 ? 160 : len, r->reason,
                    len > 160 || r->reason[len] ? " ..." : "");
        }
    }
}
