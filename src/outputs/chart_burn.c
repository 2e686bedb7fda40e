/* gpubench — the burn suite's chart: the sustained rate over the burn, one line per case and
 * device, from the results' samples, which the burn suite records one per window in order
 * (registry in charts.c). A line has at most GB_BURN_CHART_POINTS points (gb__burn_points): a
 * longer burn's windows are drawn in groups, each point their mean with the slowest and fastest
 * as its error bar, so the chart's data file stays bounded (about 60 bytes a point) however
 * long the burn ran. */
#include "analyses/report_model.h"
#include "outputs/report.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t gb__burn_points(const double *y, size_t n, double w, size_t max, double *x, double *mean,
                       double *lo, double *hi)
{
    if (max == 0)
        return 0;
    const size_t g = (n + max - 1) / max; /* windows per point: 1 while n <= max */
    size_t p = 0;
    for (size_t a = 0; a < n; a += g, p++) {
        const size_t b = a + g < n ? a + g : n;
        const double m = (double)(b - a);
        double mean_p = 0, mn = INFINITY, mx = -INFINITY;
        for (size_t j = a; j < b; j++) {
            /* Each rate divided first: the mean of finite rates stays finite (a sum of two
             * windows of 1e308 was inf). */
            mean_p += y[j] / m;
            mn = y[j] < mn ? y[j] : mn;
            mx = y[j] > mx ? y[j] : mx;
        }
        x[p] = (double)b * w; /* the end of the group's last window */
        mean[p] = mean_p;
        lo[p] = mn;
        hi[p] = mx;
    }
    return p;
}

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
    char what[640];
    snprintf(what, sizeof what,
             "The GEMM rate of each window of the burn (GFLOP/s, GOP/s for i8) against the seconds "
             "of load (a pulsed burn's idle phases left out), one line per precision and device: "
             "a device that heats, throttles or loses its power budget falls over time. Each point "
             "is one window; past %d windows, the mean of a group of consecutive windows, its "
             "error bars from the group's slowest to its fastest window.",
             GB_BURN_CHART_POINTS);
    struct chart *c = gb__chart_new(R, "burn_timeline", "Burn: sustained rate over time", what);
    struct line *l = c ? calloc(MAXLINES, sizeof *l) : NULL;
    size_t n = 0, dropped = 0;
    for (size_t i = 0; l && i < s.n; i++) {
        const struct gb_result *r = s.p[i]->r;
        const double w = gb_result_scalar(r, "window");
        /* A window whose burn's end is no finite number of seconds (a results file's 1e308) has
         * no time axis to draw on. */
        if (!r->samples || !r->nsamples || !(w > 0) || !isfinite(w * (double)r->nsamples))
            continue;
        if (n == MAXLINES) {
            dropped++;
            continue;
        }
        struct line *li = &l[n];
        const size_t np = r->nsamples < GB_BURN_CHART_POINTS ? r->nsamples : GB_BURN_CHART_POINTS;
        li->x = malloc(np * sizeof *li->x);
        li->y = malloc(np * sizeof *li->y);
        li->lo = malloc(np * sizeof *li->lo);
        li->hi = malloc(np * sizeof *li->hi);
        if (!li->x || !li->y || !li->lo || !li->hi) {
            free(li->x);
            free(li->y);
            free(li->lo);
            free(li->hi);
            li->x = li->y = li->lo = li->hi = NULL;
            break;
        }
        li->s = s.p[i]->s;
        snprintf(li->label, sizeof li->label, "%s %s (%s)", R->ser[li->s].label, r->case_name,
                 r->unit);
        li->n = li->cap = gb__burn_points(r->samples, r->nsamples, w, GB_BURN_CHART_POINTS, li->x,
                                          li->y, li->lo, li->hi);
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
