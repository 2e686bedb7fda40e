/* gpubench — the tuning suite's charts: one heat map per kernel and device of its figure over
 * two tunables (registry in charts.c). */
#include "analyses/report_model.h"
#include "outputs/report.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The heat map's axes: x the varying axis with the most values (numeric first), y the next one
 * (-1: none). */
static void pick_xy(const struct axes *a, int *ax, int *ay)
{
    *ax = *ay = -1;
    for (int pass = 0; pass < 2; pass++)
        for (size_t q = 0; q < a->n; q++) {
            if (a->distinct[q] < 2 || (pass == 0) != a->numeric[q])
                continue;
            if (*ax < 0 || a->distinct[q] > a->distinct[*ax]) {
                *ay = *ax;
                *ax = (int)q;
            } else if ((int)q != *ax && (*ay < 0 || a->distinct[q] > a->distinct[*ay])) {
                *ay = (int)q;
            }
        }
}

/* The values of axis ax (-1: one empty value) in the order drawn: numeric axes by value. */
static size_t axis_order(const struct axes *a, int ax, const char **out)
{
    if (ax < 0) {
        out[0] = "";
        return 1;
    }
    size_t o[MAXDISTINCT], cnt = a->distinct[ax];
    for (size_t q = 0; q < cnt; q++)
        o[q] = q;
    if (a->numeric[ax])
        for (size_t p = 1; p < cnt; p++)
            for (size_t q = p; q > 0 && a->num[ax][o[q - 1]] > a->num[ax][o[q]]; q--) {
                size_t t = o[q];
                o[q] = o[q - 1];
                o[q - 1] = t;
            }
    for (size_t q = 0; q < cnt; q++)
        out[q] = a->values[ax][o[q]];
    return cnt;
}

/* The index of r's value of axis ax among xs[0..n) (n: none; 0 for ax < 0). */
static size_t cell_of(const struct gb_result *r, const struct axes *a, int ax,
                      const char *const *xs, size_t n)
{
    if (ax < 0)
        return 0;
    const struct gb_value *v = gb_params_get(&r->params, a->name[ax]);
    if (!v)
        return n;
    char t[GB_STR_MAX];
    gb_value_format(v, t, sizeof t);
    size_t i = 0;
    while (i < n && strcmp(xs[i], t) != 0)
        i++;
    return i;
}

/* The heat map of one kernel on series ser: tuning_N. */
static void tuning_map(struct rep *R, const struct gb__chart_kind *k, size_t ser,
                       const char *kernel, size_t number)
{
    struct suite_filter one = {.suites = k->suites, .case_name = kernel};
    struct sel k1 = gb__select(R, gb__suite_filter_fn, &one, ser);
    struct axes *a = malloc(sizeof *a);
    double *v = NULL;
    char id[64], title[240];
    snprintf(id, sizeof id, "tuning_%zu", number);
    snprintf(title, sizeof title, "Tuning landscape: %s on %s", kernel, R->ser[ser].label);
    struct chart *c =
        a ? gb__chart_new(R, id, title,
                          "Each cell is one configuration of the kernel's tunables (work-group / "
                          "thread-block shape, tile, vector width, unroll): its median figure, the "
                          "best over any other tunables. Configurations that were pruned or failed "
                          "verification are blank.")
          : NULL;
    if (!c)
        goto out;
    gb__scan_axes(&k1, a);
    int ax, ay;
    pick_xy(a, &ax, &ay);
    if (ax < 0) {
        gb__chart_nodata(R, c, "the %s results vary no tunable", kernel);
        goto out;
    }
    const char *xs[MAXDISTINCT], *ys[MAXDISTINCT];
    size_t nx = axis_order(a, ax, xs), ny = axis_order(a, ay, ys);
    v = malloc(nx * ny * sizeof *v);
    if (!v)
        goto out;
    for (size_t q = 0; q < nx * ny; q++)
        v[q] = NAN;
    const struct gb_result *bestr = NULL;
    for (size_t p = 0; p < k1.n; p++) {
        const struct gb_result *r = k1.p[p]->r;
        size_t cx = cell_of(r, a, ax, xs, nx), cy = cell_of(r, a, ay, ys, ny);
        if (cx == nx || cy == ny)
            continue;
        if (better(r, r->value, v[cy * nx + cx]))
            v[cy * nx + cx] = r->value;
        if (!bestr || better(r, r->value, bestr->value))
            bestr = r;
    }
    char cbl[64];
    snprintf(cbl, sizeof cbl, "%s (%s is better)", bestr ? bestr->unit : "",
             bestr && !higher_better(bestr) ? "lower" : "higher");
    gb__write_heatmap(R, c, a->name[ax], ay >= 0 ? a->name[ay] : "", xs, nx, ys, ny, v, cbl);
    if (bestr) {
        char params[512];
        gb_params_format(&bestr->params, params, sizeof params);
        find(c, "Best configuration: %s at %.3g %s.", params, bestr->value, bestr->unit);
    }
out:
    free(v);
    free(a);
    free(k1.p);
}

void gb__chart_tuning(struct rep *R, const struct gb__chart_kind *k)
{
    struct suite_filter sf = {.suites = k->suites};
    size_t drawn = 0, more = 0;
    for (size_t ser = 0; ser < R->nser; ser++) {
        struct sel s = gb__select(R, gb__suite_filter_fn, &sf, ser);
        /* One heat map per case (kernel) of this series. */
        for (size_t i = 0; i < s.n; i++) {
            if (!gb__first_of_case(&s, i, false))
                continue;
            if (drawn == MAX_HEATMAPS)
                more++;
            else
                tuning_map(R, k, ser, s.p[i]->r->case_name, ++drawn);
        }
        free(s.p);
    }
    if (drawn == 0)
        gb__chart_absent(R, "tuning", "Tuning landscape",
                         "Heat maps of a kernel's time over its tunables.",
                         "no tuning results in these files");
    else if (more)
        find(&R->ch[R->nch - 1], "%zu more tuning landscapes are in the results, not drawn.", more);
}
