/* gpubench — value for money and power: each figure of value_figures (below) divided by
 * the device's price and by its power from the price sheet (gpubench report --prices). */
#include "analyses/report_model.h"
#include "outputs/report.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The figures the value chart divides by price and watts, and the suites they come from. */
static const char *const transfer[] = {"transfer", NULL};
static const char *const memory[] = {"memory", NULL};
static const char *const vector_units[] = {"compute", NULL};
static const char *const matrix[] = {"gemm", NULL};
static const struct gb__figure value_figures[] = {
    FIG("triad GB/s", memory, "triad", "GB/s"),
    XFER("H2D sustained GB/s", "h2d", false),
    BY_PREC("peak", vector_units),
    BY_PREC("GEMM", matrix),
};
static const size_t nvalue_figures = sizeof value_figures / sizeof value_figures[0];

/* The category of figure fig per watt or per 1000 of the currency; false when no series has a
 * value. Per watt, a series' point is the perf per watt measured by telemetry for its best result
 * (backends/telemetry.h: work over measured energy) where it has one (measured[s] true), else the
 * value over the device's power from the price sheet, a fallback. */
static bool value_cat(const struct rep *R, const char *label, const struct suite_filter *sf,
                      bool watts, struct cat *k, bool *measured)
{
    memset(k, 0, sizeof *k);
    if (watts)
        snprintf(k->label, sizeof k->label, "%s per W", label);
    else
        snprintf(k->label, sizeof k->label, "%s per 1000 %s", label, R->o->prices->currency);
    bool any = false;
    for (size_t s = 0; s < R->nser; s++) {
        const struct gb_result *w = NULL;
        double v = gb__best_in(R, s, sf, &w);
        const struct gb_price *p = R->ser[s].price;
        double div = !p ? NAN : watts ? p->power_w : p->price / 1000.0;
        measured[s] = watts && w && isfinite(v) && w->tel.on && isfinite(w->tel.perf_per_watt);
        k->v[s] = measured[s] ? w->tel.perf_per_watt : v / div;
        k->best[s] = isfinite(k->v[s]) ? w : NULL;
        any |= isfinite(k->v[s]);
    }
    return any;
}

/* Performance per price (watts false) or per watt. */
static void value_chart(struct rep *R, bool watts)
{
    const char *cur = R->o->prices ? R->o->prices->currency : "USD";
    char what[600];
    if (watts)
        snprintf(what, sizeof what,
                 "Each headline figure per watt: measured where the results have telemetry "
                 "energy (the work of the timed samples over the energy they used), else "
                 "divided by the device's power from the price sheet (a fallback: TDP or draw "
                 "as the sheet says). The findings say which each point is.");
    else
        snprintf(what, sizeof what,
                 "Each headline figure divided by the device's price from the price sheet, per "
                 "1000 %s.",
                 cur);
    struct chart *c = gb__chart_new(R, watts ? "value_per_watt" : "value_per_price",
                                    watts ? "Performance per watt" : "Performance per price", what);
    if (!c)
        return;
    /* A figure by precision is a category per precision, in its own unit. */
    const size_t cap = nvalue_figures * 16;
    struct cat *cats = calloc(cap, sizeof *cats);
    bool(*measured)[MAXSER] = calloc(cap, sizeof *measured);
    size_t n = 0;
    if (!cats || !measured) {
        free(cats);
        free(measured);
        return;
    }
    for (size_t h = 0; (watts || R->o->prices) && h < nvalue_figures; h++) {
        const struct gb__figure *fig = &value_figures[h];
        if (!fig->by_prec) {
            n += value_cat(R, fig->label, &fig->sf, watts, &cats[n], measured[n]);
            continue;
        }
        char precs[16][GB_STR_MAX];
        size_t np = gb__precisions(R, &fig->sf, precs, 16);
        for (size_t p = 0; p < np && n < cap; p++) {
            struct suite_filter sf = fig->sf;
            sf.prec = precs[p];
            const struct gb_result *w = NULL;
            for (size_t s = 0; s < R->nser && !w; s++)
                gb__best_in(R, s, &sf, &w);
            char label[96];
            snprintf(label, sizeof label, "%s %s %s", precs[p], fig->label, w ? w->unit : "");
            n += value_cat(R, label, &sf, watts, &cats[n], measured[n]);
        }
    }
    if (n == 0) {
        if (!R->o->prices)
            gb__chart_nodata(R, c, "no price sheet given (gpubench report --prices prices.yaml)%s",
                             watts ? " and no measured energy in these files" : "");
        else
            gb__chart_nodata(R, c, "no device in these files has a %s in %s",
                             watts ? "power" : "price", R->o->prices->path);
        free(cats);
        free(measured);
        return;
    }
    char yl[64];
    snprintf(yl, sizeof yl, "per %s%s", watts ? "watt" : "1000 ", watts ? "" : cur);
    gb__write_bars(R, c, cats, n, yl, false);
    for (size_t k = 0; k < n; k++) {
        size_t best = SIZE_MAX;
        for (size_t s = 0; s < R->nser; s++)
            if (isfinite(cats[k].v[s]) && (best == SIZE_MAX || cats[k].v[s] > cats[k].v[best]))
                best = s;
        if (best != SIZE_MAX)
            find(c, "%s: best %s with %.3g.", cats[k].label, R->ser[best].label, cats[k].v[best]);
        for (size_t s = 0; watts && s < R->nser; s++)
            if (isfinite(cats[k].v[s]))
                find(c, "%s, %s: %s.", cats[k].label, R->ser[s].label,
                     measured[k][s] ? "measured (telemetry energy)"
                                    : "from the price sheet's power (fallback, not measured)");
    }
    for (size_t s = 0; R->o->prices && s < R->nser; s++)
        if (!R->ser[s].price)
            find(c, "%s has no entry in %s.", R->ser[s].label, R->o->prices->path);
    free(cats);
    free(measured);
}

void gb__chart_value(struct rep *R, const struct gb__chart_kind *k)
{
    (void)k; /* its figures are value_figures */
    value_chart(R, false);
    value_chart(R, true);
}
