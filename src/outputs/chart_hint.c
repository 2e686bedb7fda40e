/* gpubench — the charts drawn from a hint: a suite without a chart builder of its own says in
 * its descriptor (run/suite.h, gb_chart_hint), and so in its results files' "charts", whether
 * its results are bars or lines along an axis; this draws them, so that such a suite needs no
 * report code. */
#include "analyses/report_model.h"
#include "outputs/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first ok result of `suite` in the report, NULL when none. */
static const struct gb_result *first_result(const struct rep *R, const char *suite)
{
    for (size_t p = 0; p < R->npts; p++)
        if (strcmp(R->pts[p].r->suite, suite) == 0)
            return R->pts[p].r;
    return NULL;
}

static const char *first_unit(const struct rep *R, const char *suite)
{
    const struct gb_result *r = first_result(R, suite);
    return r ? r->unit : "";
}

/* A chart id for suite number k of the hints: "hint_NAME" where the name is a plain identifier
 * ([a-z0-9_], as every suite of a build is), else "hint_K", so that two names that would
 * clean to one file name ("a/b", "a b", "A_b") never share a chart's files. */
static void hint_id(const char *suite, size_t k, char *id, size_t len)
{
    bool plain = *suite != '\0' && strlen(suite) < 40;
    for (const char *c = suite; plain && *c; c++)
        plain = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_';
    if (plain)
        snprintf(id, len, "hint_%s", suite);
    else
        snprintf(id, len, "hint_%zu", k);
}

/* Whether the x axis of the line chart holds sizes in the results (labelled as sizes). */
static bool size_axis(const struct sel *s, const char *x)
{
    for (size_t i = 0; i < s->n; i++) {
        const struct gb_params *p = &s->p[i]->r->params;
        for (size_t j = 0; j < p->n; j++)
            if (p->name[j] && strcmp(p->name[j], x) == 0)
                return p->v[j].type == GB_V_SIZE;
    }
    return false;
}

/* The distinct units of suite's results, first seen first, into u[0..cap); how many. */
static size_t suite_units(const struct rep *R, const char *suite, const char **u, size_t cap)
{
    size_t n = 0;
    for (size_t p = 0; p < R->npts; p++) {
        const struct gb_result *r = R->pts[p].r;
        if (strcmp(r->suite, suite) != 0)
            continue;
        size_t k = 0;
        while (k < n && strcmp(u[k], r->unit) != 0)
            k++;
        if (k == n && n < cap)
            u[n++] = r->unit;
    }
    return n;
}

/* The line chart of the results of `suites` in `unit` (one chart per unit: a suite whose cases
 * count different things, GB/s and GOP/s, never shares an axis between them). */
static void draw_line(struct rep *R, const struct gb_chart_note *h, const char *const *suites,
                      const char *id, const char *title, const char *what, const char *unit)
{
    struct chart *c = gb__chart_new(R, id, title, what);
    if (!c)
        return;
    struct suite_filter sf = {.suites = suites, .unit = unit};
    struct sel s = gb__select(R, gb__suite_filter_fn, &sf, SIZE_MAX);
    struct axes *a = calloc(1, sizeof *a);
    if (s.n == 0 || !a) {
        gb__chart_nodata(R, c, "no %s results in these files", h->suite);
    } else {
        gb__scan_axes(&s, a);
        struct line *l = NULL;
        size_t dropped = 0, n = gb__build_lines(R, &s, a, h->x, NULL, &l, &dropped);
        if (l && n)
            gb__write_lines(R, c, l, n, h->x, unit, size_axis(&s, h->x), NULL, 0, NULL, NULL);
        else
            gb__chart_nodata(R, c, "no %s results vary along %s", h->suite, h->x);
        gb__free_lines(l, n);
    }
    free(a);
    free(s.p);
}

void gb__chart_hints(struct rep *R, bool (*has_builder)(const char *suite))
{
    const char *drawn[GB_MAX_CHART_HINTS];
    size_t ndrawn = 0, left_out = 0;
    for (size_t f = 0; f < R->nfiles; f++) {
        left_out += R->files[f].charts_dropped;
        for (size_t i = 0; i < R->files[f].ncharts; i++) {
            const struct gb_chart_note *h = &R->files[f].charts[i];
            /* A hint of a suite with no ok result here draws nothing. */
            bool seen = has_builder(h->suite) || !first_result(R, h->suite);
            for (size_t k = 0; k < ndrawn && !seen; k++)
                seen = strcmp(drawn[k], h->suite) == 0;
            if (seen)
                continue;
            if (ndrawn == GB_MAX_CHART_HINTS) {
                left_out++;
                continue;
            }
            char id[64];
            hint_id(h->suite, ndrawn, id, sizeof id);
            drawn[ndrawn++] = h->suite;
            const char *const suites[] = {h->suite, NULL};
            char title[128], what[400], ylabel[64];
            snprintf(title, sizeof title, "%s", h->suite);
            snprintf(ylabel, sizeof ylabel, "%s", first_unit(R, h->suite));
            if (strcmp(h->kind, "line") == 0 && h->x[0]) {
                snprintf(what, sizeof what,
                         "The %s suite's results along %s, one line per case and setting, each "
                         "point's p5-p95 as its error bar (drawn from the suite's chart hint).",
                         h->suite, h->x);
                const char *units[4];
                const size_t nu = suite_units(R, h->suite, units, 4);
                for (size_t u = 0; u < nu; u++) {
                    char uid[80], utitle[160];
                    if (u == 0)
                        snprintf(uid, sizeof uid, "%s", id);
                    else
                        snprintf(uid, sizeof uid, "%s_%zu", id, u);
                    char unit[16];
                    gb__clean(units[u], unit, sizeof unit);
                    snprintf(utitle, sizeof utitle, "%s%s%s%s", h->suite, nu > 1 ? " (" : "",
                             nu > 1 ? unit : "", nu > 1 ? ")" : "");
                    draw_line(R, h, suites, uid, utitle, what, units[u]);
                }
                continue;
            }
            snprintf(what, sizeof what,
                     "The %s suite's results, a bar per case and setting (drawn from the suite's "
                     "chart hint).",
                     h->suite);
            char nodata[128];
            snprintf(nodata, sizeof nodata, "no %s results in these files", h->suite);
            const struct gb__bars b = {
                .id = id, .title = title, .what = what, .ylabel = ylabel, .nodata = nodata};
            const struct gb__chart_kind k = {suites, NULL, gb__chart_bars, &b};
            gb__chart_bars(R, &k);
        }
    }
    if (left_out)
        fprintf(stderr,
                "gpubench report: note: %zu chart hint%s left out: at most %d suites are drawn "
                "from hints\n",
                left_out, left_out == 1 ? "" : "s", GB_MAX_CHART_HINTS);
}
