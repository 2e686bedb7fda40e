/* gpubench — the batching suite's charts: each figure against the batch, with the knee marked
 * (registry in charts.c). */
#include "analyses/report_model.h"
#include "outputs/report.h"

#include "base/curve.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The knee of a line: gb_curve_knee's, the one the batching suite records in its results (the
 * smallest x from which on every point reaches 90% of the asymptote, the median of the largest
 * x's values), so that the chart marks the batch the results name. Only where more is better
 * (bandwidth, throughput): a time per batch grows with the batch and has no knee in this
 * sense. */
static bool knee_of(const struct line *l, double *kx, double *ky, double *kasym)
{
    if (l->n < 2 || !higher_better(l->r[0]))
        return false;
    struct gb_knee k;
    if (gb_curve_knee(l->x, l->y, l->n, 0.9, &k) || k.knee_index == SIZE_MAX)
        return false;
    *kx = k.knee_x;
    *ky = l->y[k.knee_index];
    *kasym = k.asymptote;
    return true;
}

/* The chart of one case and unit: batching_N. */
static void batching_chart(struct rep *R, const struct gb__chart_kind *k, const char *kase,
                           const char *unit, size_t number)
{
    static const char *const prefer[] = {"batch",   "count",    "n", "nbuf",
                                         "buffers", "launches", NULL};
    struct suite_filter one = {.suites = k->suites, .case_name = kase, .unit = unit};
    struct sel s = gb__select(R, gb__suite_filter_fn, &one, SIZE_MAX);
    struct axes *a = malloc(sizeof *a);
    struct line *l = NULL;
    size_t n = 0, dropped = 0;
    char id[64], title[200];
    snprintf(id, sizeof id, "batching_%zu", number);
    snprintf(title, sizeof title, "Batching: %s (%s)", kase, unit);
    struct chart *c =
        a ? gb__chart_new(R, id, title,
                          "The figure against the batch (how many operations are grouped into "
                          "one call or enqueued before one wait), log axis. The circle marks the "
                          "knee: the smallest batch from which on every point reaches 90% of the "
                          "asymptote (the median of the largest batches), beyond which batching "
                          "buys little; the same knee as the results' figure named knee.")
          : NULL;
    if (!c)
        goto out;
    gb__scan_axes(&s, a);
    int ax = gb__pick_x(a, prefer);
    if (ax >= 0)
        n = gb__build_lines(R, &s, a, a->name[ax], NULL, &l, &dropped);
    if (!l || !n) {
        /* gb__pick_x: a numeric axis with two values or more (one batch size is no curve) */
        gb__chart_nodata(R, c, "the %s results have no numeric batch axis with two values or more",
                         kase);
        goto out;
    }
    bool size_axis = false;
    for (size_t q = 0; q < s.n && !size_axis; q++) {
        const struct gb_value *v = gb_params_get(&s.p[q]->r->params, a->name[ax]);
        size_axis = v && v->type == GB_V_SIZE;
    }
    struct mark marks[MAXLINES];
    size_t nm = 0;
    for (size_t q = 0; q < n; q++) {
        double kx, ky, kbest;
        if (!knee_of(&l[q], &kx, &ky, &kbest))
            continue;
        char tx[32];
        bool sized = gb_params_get(&l[q].r[0]->params, a->name[ax])->type == GB_V_SIZE;
        gb__fmt_x(kx, sized, tx, sizeof tx);
        marks[nm] = (struct mark){.x = kx, .y = ky, .line = q};
        snprintf(marks[nm].text, sizeof marks[nm].text, "knee %s", tx);
        find(c, "%s: the knee is at %s=%s (%.3g %s; asymptote %.3g).", l[q].label, a->name[ax], tx,
             ky, unit, kbest);
        nm++;
    }
    gb__write_lines(R, c, l, n, a->name[ax], unit, size_axis, marks, nm, NULL, NULL);
out:
    if (dropped)
        find(c, "%zu more lines are in the results but not drawn.", dropped);
    if (l)
        gb__free_lines(l, n);
    free(a);
    free(s.p);
}

void gb__chart_batching(struct rep *R, const struct gb__chart_kind *k)
{
    struct suite_filter sf = {.suites = k->suites};
    struct sel all = gb__select(R, gb__suite_filter_fn, &sf, SIZE_MAX);
    size_t charts = 0;
    for (size_t i = 0; i < all.n; i++)
        if (gb__first_of_case(&all, i, true))
            batching_chart(R, k, all.p[i]->r->case_name, all.p[i]->r->unit, ++charts);
    free(all.p);
    if (charts == 0)
        gb__chart_absent(R, "batching", "Batching",
                         "How much batching transfers, launches and small GEMMs buys.",
                         "no batching results in these files");
}
