/* gpubench — from a measured case to its result (contract in case_result.h). */
#include "run/case_result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/precision.h"
#include "backends/telemetry.h"
#include "base/error.h"

/* Converts a measurement into the result's metric: GB/s when the operation moves bytes, else
 * GFLOP/s when it computes (GOP/s for integer operations, op.rate_unit for what is not
 * arithmetic), else its latency in microseconds. */
void gb_result_fill_metric(struct gb_result *r, const struct gb_case_ctx *ctx,
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
        snprintf(r->unit, sizeof r->unit, "%s",
                 ctx->op.rate_unit ? ctx->op.rate_unit
                 : ctx->op.integer ? "GOP/s"
                                   : "GFLOP/s");
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
    /* The noise shown is the noise judged: the stopping rule (gb_sample_decide) judges the CI95
     * of the mean time per operation relative to that mean, so a rate's CI95 is that same
     * relative half-width of its mean (rate = work / time: the same relative precision to first
     * order), not the CI of the rate samples, whose mean a few slow samples move differently. */
    if (ctx->op.bytes > 0 || ctx->op.flops > 0)
        r->stats.ci95 = r->op_time_us.mean > 0 && isfinite(r->op_time_us.ci95)
                            ? r->stats.mean * r->op_time_us.ci95 / r->op_time_us.mean
                            : r->op_time_us.ci95;
    r->value = r->stats.median;
    r->batch = m->batch;
    r->bytes_per_op = ctx->op.bytes;
    r->flops_per_op = ctx->op.flops;
    snprintf(r->regime, sizeof r->regime, "%s",
             gb_result_regime(ctx->op.working_set, ctx->dev->info.l2_bytes));
    r->noisy = m->stop == GB_STOP_MAX_SAMPLES || m->stop == GB_STOP_MAX_TIME;
    snprintf(r->timer, sizeof r->timer, "%s", m->timer == GB_TIMER_DEVICE ? "device" : "host");
}

void gb_result_take_headline(struct gb_result *r, const struct gb_case_ctx *ctx, double max_noise)
{
    if (!ctx->headline.n)
        return;
    double *v = malloc(ctx->headline.n * sizeof *v);
    if (!v)
        return;
    memcpy(v, ctx->headline.v, ctx->headline.n * sizeof *v);
    free(r->samples);
    r->samples = v;
    r->nsamples = ctx->headline.n;
    gb_stats_compute(v, r->nsamples, &r->stats);
    r->value = ctx->headline.has_value ? ctx->headline.value : r->stats.median;
    snprintf(r->metric, sizeof r->metric, "%s", ctx->headline.metric);
    snprintf(r->unit, sizeof r->unit, "%s", ctx->headline.unit);
    r->better = ctx->headline.better;
    r->noisy = !(r->stats.mean > 0 && isfinite(r->stats.ci95)) ||
               r->stats.ci95 > max_noise * r->stats.mean;
    r->reason[0] = '\0';
    if (r->noisy)
        snprintf(r->reason, sizeof r->reason,
                 "noise target not reached: CI95 %.2f%% of the mean over %zu samples",
                 r->stats.mean > 0 ? 100 * r->stats.ci95 / r->stats.mean : 0.0, r->nsamples);
}

/* Rates no device reaches, for results whose own bound is unknown (GB/s, 1e9 B/s). A host link:
 * 1000 GB/s per direction, above NVLink-C2C's 450 GB/s per direction (NVIDIA Grace Hopper
 * superchip datasheet: 900 GB/s in all) and PCIe 6.0 x16's 121 GB/s (PCI-SIG: 64 GT/s x 16
 * lanes, FLIT-mode payload 242/256). Device memory: 20,000 GB/s, above the 8,000 GB/s of HBM3e on
 * B200 and MI355X (vendors' datasheets). A result beyond one was timed wrongly (a queue that
 * returned before its work was done, a stub timestamp): it fails rather than passes. */
#define GB_CEILING_HOST_LINK_GBS 1000.0
#define GB_CEILING_MEMORY_GBS 20000.0

static void beyond_ceiling(struct gb_result *r, double ceiling, const char *what)
{
    if (!(r->value > ceiling))
        return;
    r->status = GB_STATUS_FAILED;
    r->implausible = true;
    snprintf(r->reason, sizeof r->reason,
             "implausible: %.4g GB/s exceeds %.4g GB/s, more than any %s carries (the timer or "
             "the queue's synchronisation is broken)",
             r->value, ceiling, what);
}

void gb_result_check_bound(struct gb_result *r, const struct gb_case_ctx *ctx)
{
    if (r->status != GB_STATUS_OK || !(ctx->op.bytes > 0) || !r->regime[0])
        return;
    const double mem = ctx->dev->info.peak_mem_gbs;
    const char *why = NULL;
    if (ctx->op.host_link) {
        char how[256];
        double link = ctx->op.host_link_dirs
                          ? gb_tel_pcie_link_gbs(ctx->dev->info.pci_bus_id, how, sizeof how)
                          : 0.0;
        if (!(link > 0)) {
            gb_result_text(r, "peak", "unknown: %s",
                           ctx->op.host_link_dirs ? how
                                                  : "staged copies cross the host link "
                                                    "in turns");
            beyond_ceiling(r,
                           GB_CEILING_HOST_LINK_GBS *
                               (ctx->op.host_link_dirs > 1 ? ctx->op.host_link_dirs : 1),
                           "host link");
            return;
        }
        /* The link as the device's sysfs entry reports it; no implausibility verdict, since a
         * virtual machine's entry may describe a virtual link, not the one the bytes cross. */
        double bound = link * ctx->op.host_link_dirs;
        gb_result_figure(r, "peak", "GB/s", bound);
        gb_result_figure(r, "of_peak", "", r->value / bound);
        gb_result_text(r, "peak_from", "%s, %s", how,
                       ctx->op.host_link_dirs > 1 ? "both directions" : "one direction");
        if (r->value > bound)
            gb_result_text(r, "peak_note",
                           "the measured rate exceeds the link sysfs reports: "
                           "that link is not the one the bytes crossed");
        return;
    }
    if (strcmp(r->regime, "memory") != 0)
        why = "unknown: the working set may be cache-resident";
    else if (!(mem > 0))
        why = "unknown: the device reports no memory bandwidth";
    if (why) {
        gb_result_text(r, "peak", "%s", why);
        if (strcmp(r->regime, "cache") != 0)
            beyond_ceiling(r, GB_CEILING_MEMORY_GBS, "device memory");
        return;
    }
    gb_result_figure(r, "peak", "GB/s", mem);
    gb_result_figure(r, "of_peak", "", r->value / mem);
    /* Faster than the device's memory can go is a timer, a dead-code or a cache problem, not a
     * record. */
    if (gb_rate_implausible(r->value, mem)) {
        r->implausible = true;
        snprintf(r->reason, sizeof r->reason,
                 "implausible: %.4g GB/s exceeds the device's theoretical memory bandwidth %.4g "
                 "GB/s",
                 r->value, mem);
    }
}

/* The highest arithmetic rate of the device, any precision, matrix units included (GFLOP/s or
 * GOP/s: gb_peak_ops counts both alike), 0 when unknown. */
static double highest_peak(const struct gb_device_info *info)
{
    double best = 0;
    for (int op = GB_PEAK_F64; op <= GB_PEAK_F8; op++) {
        const double p = gb_peak_ops(info, (enum gb_peak_op)op, true, NULL, 0) / 1e9;
        best = p > best ? p : best;
    }
    return best;
}

static bool compute_unit(const char *unit)
{
    return strcmp(unit, "GFLOP/s") == 0 || strcmp(unit, "GOP/s") == 0;
}

/* The bound of a value in `unit` of result r measured on device `info` (one device's share),
 * with where it comes from in from[0..len); 0 when the unit gives none. */
static double unit_bound(const struct gb_result *r, const char *unit,
                         const struct gb_device_info *info, char *from, size_t len)
{
    if (strcmp(unit, "GB/s") == 0) {
        if (strcmp(r->regime, "memory") == 0 && info->peak_mem_gbs > 0) {
            snprintf(from, len, "the device's theoretical memory bandwidth");
            return info->peak_mem_gbs;
        }
        if (strcmp(r->regime, "memory") == 0 || strcmp(r->regime, "unknown") == 0) {
            snprintf(from, len, "more than any device memory carries");
            return GB_CEILING_MEMORY_GBS;
        }
        return 0;
    }
    if (compute_unit(unit)) {
        snprintf(from, len, "the device's highest arithmetic peak, any precision");
        return highest_peak(info);
    }
    return 0;
}

static void figure_implausible(struct gb_result *r, const char *name, double v, const char *unit,
                               double bound, const char *from)
{
    if (r->status != GB_STATUS_OK)
        return; /* the first reason stays */
    r->status = GB_STATUS_FAILED;
    r->implausible = true;
    snprintf(r->reason, sizeof r->reason, "implausible: %s %.4g %s exceeds its bound %.4g %s (%s)",
             name, v, unit, bound, unit, from);
}

size_t gb_results_check_figures(struct gb_results *rs)
{
    size_t failed = 0;
    for (size_t i = 0; i < rs->nresults; i++) {
        struct gb_result *r = &rs->results[i];
        if (r->status != GB_STATUS_OK || r->device_index < 0 ||
            (size_t)r->device_index >= rs->ndevices)
            continue;
        const struct gb_device_info *info = &rs->devices[r->device_index].info;
        const double nset = r->nset > 1 ? (double)r->nset : 1.0;
        char from[96];
        /* A compute-rate headline that its suite left unbounded. */
        const struct gb_figure *peak = gb_result_figure_get(r, "peak");
        if (compute_unit(r->unit) && !(peak && peak->n == 1)) {
            const double b = unit_bound(r, r->unit, info, from, sizeof from) * nset;
            if (b > 0 && !(r->value <= GB_PLAUSIBLE_SLACK * b))
                figure_implausible(r, r->metric, r->value, r->unit, b, from);
        }
        for (size_t k = 0; k < r->nfigures && k < GB_MAX_FIGURES; k++) {
            const struct gb_figure *f = &r->figures[k];
            if (f->n == 0 || strcmp(f->name, "peak") == 0)
                continue;
            for (size_t j = 0; j < f->n && j < GB_MAX_SET; j++) {
                const struct gb_device_info *di = info;
                if (f->per_device && j < r->nset && r->set[j] >= 0 &&
                    (size_t)r->set[j] < rs->ndevices)
                    di = &rs->devices[r->set[j]].info;
                double b;
                if (f->bound > 0) {
                    b = f->bound;
                    snprintf(from, sizeof from, "the %s suite's bound of the figure", r->suite);
                } else {
                    b = unit_bound(r, f->unit, di, from, sizeof from) *
                        (f->per_device ? 1.0 : nset);
                }
                if (b > 0 && !(f->v[j] <= GB_PLAUSIBLE_SLACK * b))
                    figure_implausible(r, f->name, f->v[j], f->unit, b, from);
            }
        }
        failed += r->status != GB_STATUS_OK;
    }
    return failed;
}

void gb_result_timer_note(struct gb_result *r, const struct gb_case_ctx *ctx,
                          const struct gb_measurement *m)
{
    if (m->timer != ctx->op.timer && ctx->dev)
        gb_result_text(r, "timer", "host (%s)", ctx->dev->timer_fault);
}

int gb_result_verified(struct gb_result *r, const struct gb_case_ctx *ctx, int err,
                       size_t m_samples)
{
    r->max_error = ctx->max_error;
    if (err == GB_EVERIFY) {
        r->status = GB_STATUS_FAILED;
        snprintf(r->reason, sizeof r->reason, "verification failed: %.990s", ctx->reason);
    } else if (err) {
        gb_result_fail(r, err, "verify");
    } else {
        r->status = GB_STATUS_OK;
        r->verified = true;
        if (r->noisy)
            snprintf(r->reason, sizeof r->reason,
                     "noise target not reached: CI95 %.2f%% of the mean after %zu samples",
                     r->stats.mean > 0 ? 100 * r->stats.ci95 / r->stats.mean : 0.0, m_samples);
    }
    return err;
}
