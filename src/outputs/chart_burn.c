/* gpubench — the burn suite's chart: the sustained rate over the burn, one line per case and
 * device, from the results' samples, which the burn suite records one per window in order
 * (registry in charts.c). */
#include "analyses/report_model.h"
#include "outputs/report.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gb__chart_burn(struct rep *R, const struct gb__chart_kind *k)
{
    struct suite_filter sf = {.suites = k->suites};
    struct sel s = gb__select(R, gb__suite_filter_fn, &sf, SIZE_MAX);
    if (!s.n) {
        free(s.p);
        gb__chart_absent(R, "burn_timeline", "Burn: sustained rate over time",
                         "The GEMM rate of each window of the burn.",
                         "no burn results in these files");
        return;
    }
    struct chart *c = gb__chart_new(
        R, "burn_timeline", "Burn: sustained rate over time",
        "The GEMM rate of each window of the burn (GFLOP/s, GOP/s for i8) against the seconds of "
        "load (a pulsed burn's idle phases left out), one line per precision and device: a device "
        "that heats, throttles or "
        "loses its power budget falls over time. Each point is one window (no error bars).");
    struct line *l = c ? calloc(MAXLINES, sizeof *l) : NULL;
    size_t n = 0, dropped = 0;
    for (size_t i = 0; l && i < s.n; i++) {
        const struct gb_result *r = s.p[i]->r;
        const double w = gb_result_scalar(r, "window");
        if (!r->samples || !r->nsamples || !(w > 0))
            continue;
        if (n == MAXLINES) {
            dropped++;
            continue;
        }
        struct line *li = &l[n];
        li->x = malloc(r->nsamples * sizeof *li->x);
        li->y = malloc(r->nsamples * sizeof *li->y);
        if (!li->x || !li->y) {
            free(li->x);
            free(li->y);
            li->x = li->y = NULL;
            break;
        }
        li->s = s.p[i]->s;
        snprintf(li->label, sizeof li->label, "%s %s (%s)", R->ser[li->s].label, r->case_name,
                 r->unit);
        for (size_t j = 0; j < r->nsamples; j++) {
            li->x[j] = ((double)j + 1) * w; /* the window's end */
            li->y[j] = r->samples[j];
        }
        li->n = li->cap = r->nsamples;
        n++;
    }
    if (c && !n)
        gb__chart_nodata(R, c, "the burn results hold no windows");
    else if (c)
        gb__write_lines(R, c, l, n, "seconds of load", "GFLOP/s (GOP/s for i8)", false, NULL, 0,
                        NULL, NULL);
    if (c && dropped)
        find(c, "%zu more lines are in the results but not drawn.", dropped);
    if (l)
        gb__free_lines(l, n);
    free(s.p);
}
