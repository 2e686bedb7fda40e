/* gpubench — precision figures across the results of a run: the suites' derive() hooks
 * (contract in precision.h). */
#include "backends/precision.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/results.h"

/* Whether a and b have the same parameters except `axis`. */
static bool same_but(const struct gb_params *a, const struct gb_params *b, const char *axis)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        if (strcmp(a->name[i], b->name[i]) != 0)
            return false;
        if (strcmp(a->name[i], axis) != 0 && !gb_value_equal(&a->v[i], &b->v[i]))
            return false;
    }
    return true;
}

static void set_figure(struct gb_result *r, const char *name, const char *unit, double v)
{
    for (size_t i = 0; i < r->nfigures; i++)
        if (strcmp(r->figures[i].name, name) == 0) { /* derive() may run twice on one rs */
            r->figures[i].v[0] = v;
            return;
        }
    gb_result_figure(r, name, unit, v);
}

void gb_precision_speedups(struct gb_results *rs, const char *suite, const char *axis,
                           const char *base, bool by_time)
{
    char name[32];
    snprintf(name, sizeof name, "speedup_vs_%s", base);
    for (size_t i = 0; i < rs->nresults; i++) {
        struct gb_result *r = &rs->results[i];
        const struct gb_value *v = gb_params_get(&r->params, axis);
        if (r->status != GB_STATUS_OK || strcmp(r->suite, suite) != 0 || !v ||
            v->type != GB_V_STR || strcmp(v->s, base) == 0)
            continue;
        for (size_t j = 0; j < rs->nresults; j++) {
            const struct gb_result *b = &rs->results[j];
            const struct gb_value *bv = gb_params_get(&b->params, axis);
            if (b->status != GB_STATUS_OK || strcmp(b->suite, suite) != 0 || !bv ||
                bv->type != GB_V_STR || strcmp(bv->s, base) != 0 ||
                b->device_index != r->device_index || strcmp(b->backend, r->backend) != 0 ||
                !same_but(&r->params, &b->params, axis))
                continue;
            double s =
                by_time
                    ? (r->op_time_us.median > 0 ? b->op_time_us.median / r->op_time_us.median : 0)
                    : (b->value > 0 ? r->value / b->value : 0);
            if (s > 0 && isfinite(s))
                set_figure(r, name, "", s);
            break;
        }
    }
}

void gb_precision_check_peaks(struct gb_results *rs, const char *suite, gb_peak_fn peak_of)
{
    for (size_t i = 0; i < rs->nresults; i++) {
        struct gb_result *r = &rs->results[i];
        /* A bandwidth headline (a memory-bound GEMM's) has the memory bound, checked when it was
         * measured (gb_result_check_bound). */
        if (r->status != GB_STATUS_OK || strcmp(r->suite, suite) != 0 || r->device_index < 0 ||
            (size_t)r->device_index >= rs->ndevices || strcmp(r->unit, "GB/s") == 0)
            continue;
        char how[256];
        const double peak = peak_of(r, &rs->devices[r->device_index].info, how, sizeof how);
        if (!(peak > 0)) { /* the result says that no bound is known, and why */
            bool has = false;
            for (size_t k = 0; k < r->nfigures; k++)
                has |= strcmp(r->figures[k].name, "peak") == 0;
            if (!has)
                gb_result_text(r, "peak", "%s", how[0] ? how : "unknown");
            continue;
        }
        set_figure(r, "peak", r->unit, peak);
        set_figure(r, "of_peak", "", r->value / peak);
        if (gb_rate_implausible(r->value, peak)) {
            r->implausible = true;
            snprintf(r->reason, sizeof r->reason,
                     "implausible: %.4g %s exceeds the device's theoretical peak %.4g %s (%s)",
                     r->value, r->unit, peak, r->unit, how);
        }
    }
}
