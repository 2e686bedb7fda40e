/* gpubench — operations measured inside a case (contract in subcase.h). */
#include "run/subcase.h"
#include "run/case_result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/config.h"
#include "base/error.h"
#include "results/results.h"
#include "base/units.h"

static int device_slot(const struct gb_results *rs, const struct gb_device *dev)
{
    for (size_t k = 0; rs && k < rs->ndevices; k++)
        if (rs->devices[k].index == dev->index &&
            strcmp(rs->devices[k].backend, dev->ops->name) == 0)
            return (int)k;
    return -1;
}

int gb_case_measure(struct gb_case_ctx *ctx, const struct gb_suite *op, void *op_state,
                    const struct gb_op_desc *desc, const char *case_name,
                    const struct gb_params *params, const struct gb_measure_cfg *cfg,
                    struct gb_result *out, double *op_time_s)
{
    memset(out, 0, sizeof *out);
    *op_time_s = INFINITY;
    if (ctx->stop && *ctx->stop)
        return GB_EINTR;
    if (!cfg)
        cfg = ctx->run ? &ctx->run->measure : &gb_measure_defaults;
    snprintf(out->suite, sizeof out->suite, "%s",
             ctx->run && ctx->run->suite ? ctx->run->suite->name : "");
    snprintf(out->case_name, sizeof out->case_name, "%s", case_name);
    snprintf(out->backend, sizeof out->backend, "%s", ctx->ops->name);
    out->device_index = device_slot(ctx->extra, ctx->dev);
    out->params = *params;

    struct gb_case_ctx sub = *ctx;
    sub.state = op_state;
    sub.op = *desc;
    sub.params = params;
    sub.reason[0] = '\0';
    sub.max_error = 0;
    sub.nfigures = 0;
    double t0 = gb_now();
    struct gb_measurement m = {0};
    gb_error_clear();
    int err = gb_measure(op, &sub, cfg, ctx->stop, &m);
    if (!err && m.interrupted) {
        gb_measurement_free(&m);
        return GB_EINTR;
    }
    if (err) {
        gb_result_fail(out, err, "measure");
        /* Leave the queue empty for the next configuration. */
        ctx->ops->queue_sync(ctx->q);
    } else {
        /* Telemetry (backends/telemetry.h), as the runner does: on only with ctx->run. */
        if (m.tel.on)
            gb_result_telemetry(out, &sub, &m, &ctx->run->telemetry, cfg->min_samples);
        gb_result_fill_metric(out, &sub, &m);
        gb_error_clear();
        int verr = gb_result_verified(out, &sub, op->verify ? op->verify(&sub) : 0, m.n);
        if (m.tel.on)
            gb_result_throttle_verdict(out, &ctx->run->telemetry);
        if (!verr && out->status == GB_STATUS_OK) {
            *op_time_s = out->op_time_us.median * 1e-6;
            gb_result_check_bound(out, &sub);
            gb_result_timer_note(out, &sub, &m);
        }
    }
    gb_measurement_free(&m);
    out->elapsed_s = gb_now() - t0;
    return 0;
}

int gb_case_record(struct gb_case_ctx *ctx, struct gb_result *r)
{
    int rc = 0;
    if (ctx->extra)
        rc = gb_results_add(ctx->extra, r);
    free(r->samples);
    r->samples = NULL;
    gb_tel_summary_free(&r->tel);
    return rc;
}

int gb_case_record_part_failure(struct gb_case_ctx *ctx, const char *part, const char *part_value,
                                const char *reason)
{
    if (!ctx->extra)
        return 0;
    struct gb_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.suite, sizeof r.suite, "%s",
             ctx->run && ctx->run->suite ? ctx->run->suite->name : "");
    const struct gb_suite *su = ctx->run && ctx->run->suite ? ctx->run->suite : ctx->suite;
    if (su)
        snprintf(r.case_name, sizeof r.case_name, "%s", gb_suite_case_name(su, ctx->params));
    snprintf(r.backend, sizeof r.backend, "%s", ctx->ops->name);
    r.device_index = device_slot(ctx->extra, ctx->dev);
    r.params = *ctx->params;
    struct gb_value *slot = gb_params_slot(&r.params, part);
    if (!slot) {
        if (r.params.n >= GB_MAX_AXES)
            return GB_FAIL(GB_EINVAL, "no room for the param %s", part);
        r.params.name[r.params.n] = part;
        slot = &r.params.v[r.params.n++];
    }
    slot->type = GB_V_STR;
    snprintf(slot->s, sizeof slot->s, "%s", part_value);
    r.status = GB_STATUS_FAILED;
    snprintf(r.reason, sizeof r.reason, "%s", reason);
    return gb_results_add(ctx->extra, &r);
}
