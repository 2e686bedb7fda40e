/* gpubench — telemetry into a measured case's result (contract in telemetry.h). */
#include "backends/telemetry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "run/measure.h"
#include "run/case_result.h"
#include "results/results.h"
#include "run/suite.h"

static void ranges(const struct gb_tel_trace *tr, struct gb_tel_range q[GB_TQ_COUNT])
{
    for (int k = 0; k < GB_TQ_COUNT; k++) {
        struct gb_tel_range g = {0, NAN, NAN, NAN};
        double sum = 0.0;
        for (size_t i = 0; i < tr->n; i++) {
            double x = tr->r[i].q[k];
            if (!isfinite(x))
                continue;
            if (g.n == 0 || x < g.min)
                g.min = x;
            if (g.n == 0 || x > g.max)
                g.max = x;
            sum += x;
            g.n++;
        }
        if (g.n)
            g.mean = sum / (double)g.n;
        q[k] = g;
    }
}

int gb_result_telemetry(struct gb_result *r, const struct gb_case_ctx *ctx,
                        struct gb_measurement *m, const struct gb_tel_cfg *cfg,
                        uint32_t min_samples)
{
    struct gb_tel_summary *t = &r->tel;
    const struct gb_tel_trace *tr = &m->tel;
    if (!tr->on)
        return 0;
    gb_tel_summary_free(t);
    memset(t, 0, sizeof *t);
    t->on = true;
    memcpy(t->src, tr->src, sizeof t->src);
    t->nreadings = tr->n;
    t->window_s = tr->n >= 2 ? tr->r[tr->n - 1].t - tr->r[0].t : 0.0;
    ranges(tr, t->q);

    const char *method = "";
    /* NVML's counter is coarse and its power a 1 s average; sysfs's RAPL and hwmon readings are
     * taken as current. */
    bool nvml = tr->src[0].available;
    t->energy_j = gb_tel_window_energy(tr->r, tr->n, nvml, nvml ? GB_TEL_NVML_POWER_AVG_S : 0.0,
                                       &method, t->energy_note, sizeof t->energy_note);
    if (tr->n == 0)
        snprintf(t->energy_note, sizeof t->energy_note,
                 "no energy: no telemetry source reads the device (see sources)");
    snprintf(t->energy_method, sizeof t->energy_method, "%s", method);
    t->energy_per_op_j = t->perf_per_watt = NAN;
    double ops = (double)m->n * (double)m->batch + (double)m->extra_ops;
    t->extra_ops = m->extra_ops;
    if (isfinite(t->energy_j) && t->energy_j > 0.0 && ops > 0.0) {
        t->energy_per_op_j = t->energy_j / ops;
        /* The metric's rule (gb_result_fill_metric): bytes first, then flops. */
        if (ctx->op.bytes > 0) {
            t->perf_per_watt = ops * ctx->op.bytes * 1e-9 / t->energy_j;
            snprintf(t->perf_per_watt_unit, sizeof t->perf_per_watt_unit, "GB/s/W");
        } else if (ctx->op.flops > 0) {
            t->perf_per_watt = ops * ctx->op.flops * 1e-9 / t->energy_j;
            /* The rate's own unit (GOP/s for integers, Gatomic/s for atomics) per watt. */
            snprintf(t->perf_per_watt_unit, sizeof t->perf_per_watt_unit, "%s/W",
                     ctx->op.rate_unit ? ctx->op.rate_unit
                     : ctx->op.integer ? "GOP/s"
                                       : "GFLOP/s");
        }
    }

    if (tr->n == 0 || m->n == 0 || !tr->t0 || !tr->t1)
        return 0;
    unsigned char *marks = calloc(m->n, 1);
    if (!marks)
        return GB_FAIL(GB_ENOMEM, "telemetry marks of %zu samples", m->n);
    t->nthrottled = gb_tel_mark(tr, cfg->clock_floor, marks);
    if (t->nthrottled == 0) {
        free(marks);
        return 0;
    }
    size_t keep = m->n - t->nthrottled, floor = min_samples ? min_samples : 1;
    if (cfg->on_throttle == GB_THROTTLE_DISCARD && keep >= floor) {
        size_t j = 0;
        for (size_t i = 0; i < m->n; i++) {
            if (marks[i])
                continue;
            m->op_time[j] = m->op_time[i];
            m->tel.t0[j] = m->tel.t0[i];
            m->tel.t1[j] = m->tel.t1[i];
            j++;
        }
        t->ndiscarded = m->n - j;
        m->n = m->tel.nsamples = j;
        free(marks);
        snprintf(t->note, sizeof t->note, "discarded %zu throttled samples of %zu", t->ndiscarded,
                 j + t->ndiscarded);
        return 0;
    }
    if (cfg->on_throttle == GB_THROTTLE_DISCARD)
        snprintf(t->note, sizeof t->note,
                 "kept all %zu samples: %zu throttled, and discarding them would leave %zu, "
                 "fewer than %zu",
                 m->n, t->nthrottled, keep, floor);
    else
        snprintf(t->note, sizeof t->note, "%zu of %zu samples throttled (kept, marked)",
                 t->nthrottled, m->n);
    t->marks = marks;
    t->nmarks = m->n;
    return 0;
}

void gb_result_throttle_verdict(struct gb_result *r, const struct gb_tel_cfg *cfg)
{
    if (!r->tel.on || cfg->on_throttle != GB_THROTTLE_FAIL || r->tel.nthrottled == 0 ||
        r->status != GB_STATUS_OK)
        return;
    r->status = GB_STATUS_FAILED;
    snprintf(r->reason, sizeof r->reason,
             "throttled: %zu of %zu samples ran while the device was throttled "
             "(telemetry.on_throttle: fail)",
             r->tel.nthrottled, r->tel.nmarks);
}

void gb_tel_machine_device(struct gb_tel_machine *m, int device, const struct gb_device *dev)
{
    for (size_t i = 0; i < m->ndev; i++)
        if (m->dev[i].device == device)
            return;
    if (m->ndev >= GB_TEL_MAX_DEVS || !dev)
        return;
    struct gb_tel_device_state *st = &m->dev[m->ndev];
    gb_tel_state(gb_tel_session_for(dev), st);
    st->device = device;
    m->ndev++;
}

void gb_tel_machine_xid(struct gb_tel_machine *m, int device, const struct gb_device *dev)
{
    for (size_t i = 0; i < m->ndev && dev; i++)
        if (m->dev[i].device == device)
            gb_tel_xid(gb_tel_session_for(dev), &m->dev[i].xid_events, &m->dev[i].xid_last);
}

void gb_tel_machine_link(struct gb_tel_machine *m, int device, const struct gb_tel_trace *tr)
{
    for (size_t i = 0; i < m->ndev; i++) {
        struct gb_tel_device_state *st = &m->dev[i];
        if (st->device != device)
            continue;
        for (size_t k = 0; k < tr->n; k++) {
            if (tr->r[k].pcie_gen > st->pcie_gen_load)
                st->pcie_gen_load = tr->r[k].pcie_gen;
            if (tr->r[k].pcie_width > st->pcie_width_load)
                st->pcie_width_load = tr->r[k].pcie_width;
        }
        return;
    }
}
