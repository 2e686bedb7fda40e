/* gpubench — the report's memory-management charts (registry in charts.c): allocation latency
 * against size per method (log-log, the median with the p99 as its bar: the alloc suite), a
 * training step's allocations three ways side by side (time per step and fragmentation: the
 * pool suite), and bandwidth against offset (the transfer and memory suites' offset axis). */
#include "analyses/report_model.h"
#include "outputs/report.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct gb_figure *figure(const struct gb_result *r, const char *name)
{
    for (size_t i = 0; i < r->nfigures; i++)
        if (strcmp(r->figures[i].name, name) == 0)
            return &r->figures[i];
    return NULL;
}

static double scalar(const struct gb_result *r, const char *name)
{
    const struct gb_figure *f = figure(r, name);
    return f && f->n == 1 && isfinite(f->v[0]) ? f->v[0] : NAN;
}

static const char *param(const struct gb_result *r, const char *name)
{
    const struct gb_value *v = gb_params_get(&r->params, name);
    return v && v->type == GB_V_STR ? v->s : "";
}

/* ---- allocation latency ---------------------------------------------------------------------- */

struct alloc_filter {
    const char *const *suites;
    const char *op, *touch; /* the params a chart takes */
};

static bool alloc_fn(const struct gb_result *r, const void *arg)
{
    const struct alloc_filter *f = arg;
    return gb__in_list(r->suite, f->suites) && strcmp(r->unit, "us") == 0 &&
           strcmp(param(r, "op"), f->op) == 0 &&
           (!f->touch || strcmp(param(r, "touch"), f->touch) == 0);
}

/* Per series and line: the median and p99 at the largest size, a sentence. */
static void alloc_findings(struct rep *R, struct chart *c, const struct line *l, size_t n)
{
    for (size_t i = 0; i < n && i < 12; i++) {
        if (!l[i].n)
            continue;
        const size_t k = l[i].n - 1;
        char at[32], lo[32];
        gb__fmt_x(l[i].x[k], true, at, sizeof at);
        gb__fmt_x(l[i].x[0], true, lo, sizeof lo);
        const double p99 = l[i].r[k] ? scalar(l[i].r[k], "p99_us") : NAN;
        find(c, "%s: %.3g us at %s (p99 %.3g us); %.3g us at %s.", l[i].label, l[i].y[k], at,
             p99, l[i].y[0], lo);
    }
}

static void alloc_chart(struct rep *R, const struct gb__chart_kind *k, const char *op,
                        const char *touch, const char *id, const char *title, const char *what)
{
    struct alloc_filter af = {.suites = k->suites, .op = op, .touch = touch};
    struct sel s = gb__select(R, alloc_fn, &af, SIZE_MAX);
    struct chart *c = gb__chart_new(R, id, title, what);
    if (!c) {
        free(s.p);
        return;
    }
    if (s.n == 0) {
        gb__chart_nodata(R, c, "no alloc results with op %s%s%s in these files", op,
                         touch ? " and touch " : "", touch ? touch : "");
        free(s.p);
        return;
    }
    struct axes *a = calloc(1, sizeof *a);
    struct line *l = NULL;
    size_t dropped = 0, n = 0;
    if (a) {
        gb__scan_axes(&s, a);
        n = gb__build_lines(R, &s, a, "size", NULL, &l, &dropped);
    }
    if (l && n) {
        for (size_t i = 0; i < n; i++)
            l[i].bar_to = "p99_us";
        gb__write_lines(R, c, l, n, "allocation size", "us (median; bar to p99)", true, NULL, 0,
                        "set logscale y 10\nset yrange [*:*]\n", NULL);
        alloc_findings(R, c, l, n);
        if (dropped)
            find(c, "%zu more lines are in the results but not drawn (at most %d per chart).",
                 dropped, MAXLINES);
    } else {
        gb__chart_nodata(R, c, "the alloc results have no size axis");
    }
    gb__free_lines(l, l ? n : 0);
    free(a);
    free(s.p);
}

void gb__chart_alloc(struct rep *R, const struct gb__chart_kind *k)
{
    alloc_chart(R, k, "alloc", "none", "mm_alloc",
                "Memory management: allocation latency, the call alone",
                "Median time of one allocation call (us, log) against its size (log), one line per "
                "method (device: cudaMalloc or clCreateBuffer; async, async_keep: cudaMallocAsync "
                "from the default pool or one that keeps its memory; managed; svm; pinned; "
                "registered; host: C malloc, the floor), every sample kept, the bar up to the "
                "p99. A lazy allocator (OpenCL on a CPU, malloc) finds the memory later, at its "
                "first use, which this does not count: see the next chart.");
    alloc_chart(R, k, "alloc", "first_use", "mm_alloc_first_use",
                "Memory management: allocation and first use",
                "Median time (us, log) of one allocation and the first write of every byte (a "
                "fill kernel on the device, memset on the host: malloc + memset is the host "
                "floor) against the size (log), one line per method, the bar up to the p99.");
    alloc_chart(R, k, "free", NULL, "mm_free", "Memory management: free latency",
                "Median time of one free (us, log) of memory written once against its size "
                "(log), one line per method, the bar up to the p99.");
}

/* ---- the pool: three ways of one trace ------------------------------------------------------- */

static const char *const pool_skip[] = {NULL};

void gb__chart_pool(struct rep *R, const struct gb__chart_kind *k)
{
    struct chart *c = gb__chart_new(
        R, "mm_pool", "Memory management: a training step's allocations three ways",
        "Median time per training step (us) of the seeded trace's allocations (each first written "
        "by a kernel) and frees, per way: driver (every allocation to the backend), backend_pool "
        "(CUDA's stream-ordered pool), caching (a size-class caching pool), and cap. The "
        "findings give each way's fragmentation (peak bytes reserved over peak bytes in use), "
        "its time against the driver's, and under a cap the allocations that failed.");
    if (!c)
        return;
    struct suite_filter sf = {.suites = k->suites, .unit = "us"};
    struct sel s = gb__select(R, gb__suite_filter_fn, &sf, SIZE_MAX);
    if (s.n == 0) {
        gb__chart_nodata(R, c, "no pool results in these files (the suite not run)");
        free(s.p);
        return;
    }
    struct axes *a = calloc(1, sizeof *a);
    struct cat *cats = NULL;
    if (a) {
        gb__scan_axes(&s, a);
        const size_t n = gb__build_cats(&s, a, true, pool_skip, &cats);
        if (cats)
            gb__write_bars(R, c, cats, n, "us per step", false);
    }
    free(cats);
    free(a);
    /* Per series: each way's figures, and its time against the driver's of the same trace. */
    size_t shown = 0;
    for (size_t i = 0; i < s.n && shown < 24; i++) {
        const struct gb_result *r = s.p[i]->r;
        const double frag = scalar(r, "fragmentation");
        if (!isfinite(frag))
            continue;
        double vs_driver = NAN;
        for (size_t j = 0; j < s.n; j++) {
            const struct gb_result *d = s.p[j]->r;
            if (s.p[j]->s == s.p[i]->s && strcmp(d->case_name, "driver") == 0 && d->value > 0 &&
                gb__num(gb_params_get(&d->params, "cap")) ==
                    gb__num(gb_params_get(&r->params, "cap")) &&
                gb__num(gb_params_get(&d->params, "hidden")) ==
                    gb__num(gb_params_get(&r->params, "hidden")) &&
                gb__num(gb_params_get(&d->params, "layers")) ==
                    gb__num(gb_params_get(&r->params, "layers")))
                vs_driver = d->value / r->value;
        }
        char way[64], cap[32] = "no cap";
        gb__clean(r->case_name, way, sizeof way);
        const double capb = gb__num(gb_params_get(&r->params, "cap"));
        if (capb > 0)
            gb__fmt_x(capb, true, cap, sizeof cap);
        char line[400];
        snprintf(line, sizeof line, "%s, %s, %s: %.4g us per step, fragmentation %.3g",
                 R->ser[s.p[i]->s].label, way, cap, r->value, frag);
        if (isfinite(vs_driver) && strcmp(r->case_name, "driver") != 0)
            gb_appendf(line, sizeof line, ", %.3gx the driver's speed", vs_driver);
        const double fails = scalar(r, "cap_failures");
        if (isfinite(fails))
            gb_appendf(line, sizeof line, ", %.0f allocations failed under the cap (%.0f that "
                                          "the live bytes would have allowed)",
                       fails, scalar(r, "cap_failures_fragmented"));
        find(c, "%s.", line);
        shown++;
    }
    free(s.p);
}

/* ---- bandwidth against offset ---------------------------------------------------------------- */

static bool offset_fn(const struct gb_result *r, const void *arg)
{
    const struct suite_filter *f = arg;
    const struct gb_value *off = gb_params_get(&r->params, "offset");
    return gb__in_list(r->suite, f->suites) && strcmp(r->unit, "GB/s") == 0 && off &&
           is_num(off);
}

/* Bars, one per result kind (suite, case, host memory, size, side) and offset, in the order of
 * the results; a kind only where its offsets vary. */
void gb__chart_offsets(struct rep *R, const struct gb__chart_kind *k)
{
    struct chart *c = gb__chart_new(
        R, "mm_offset", "Memory management: bandwidth against offset",
        "Median GB/s (10^9 B/s) of the same bytes moved from an offset into their buffers "
        "(transfer: the copy starts that many bytes in, on the side offset_side names; memory: "
        "the kernels' arrays start that far in), one bar per case and offset, every offset "
        "verified. An offset that is not a multiple of the element (memory) is a recorded skip.");
    if (!c)
        return;
    struct suite_filter sf = {.suites = k->suites};
    struct sel s = gb__select(R, offset_fn, &sf, SIZE_MAX);
    enum { MAXC = 48 };
    struct cat *cats = calloc(MAXC, sizeof *cats);
    size_t n = 0, varied = 0;
    for (size_t i = 0; cats && i < s.n; i++) {
        const struct gb_result *r = s.p[i]->r;
        /* Only kinds swept over offsets: a result at offset 0 whose kind has another offset. */
        char kind[160], sz[32], label[160], off[32];
        gb__fmt_x(gb__num(gb_params_get(&r->params, "size")), true, sz, sizeof sz);
        char cs[48], mem[32], side[16], su[24];
        gb__clean(r->case_name, cs, sizeof cs);
        gb__clean(param(r, "memory"), mem, sizeof mem);
        gb__clean(param(r, "offset_side"), side, sizeof side);
        gb__clean(r->suite, su, sizeof su);
        snprintf(kind, sizeof kind, "%s %s %s %s %s", su, cs, mem, sz, side);
        bool swept = false;
        const double o = gb__num(gb_params_get(&r->params, "offset"));
        for (size_t j = 0; j < s.n && !swept; j++) {
            const struct gb_result *q = s.p[j]->r;
            swept = q != r && strcmp(q->suite, r->suite) == 0 &&
                    strcmp(q->case_name, r->case_name) == 0 &&
                    gb__num(gb_params_get(&q->params, "offset")) != o;
        }
        if (!swept)
            continue;
        varied++;
        gb__fmt_x(o, false, off, sizeof off);
        snprintf(label, sizeof label, "%.120s +%.16s", kind, off);
        size_t q = 0;
        while (q < n && strcmp(cats[q].label, label) != 0)
            q++;
        if (q == n) {
            if (n == MAXC)
                continue;
            gb__scopy(cats[n].label, sizeof cats[n].label, label);
            n++;
        }
        const size_t ser = s.p[i]->s;
        if (!cats[q].best[ser] || r->value > cats[q].v[ser]) {
            cats[q].best[ser] = r;
            cats[q].v[ser] = r->value;
        }
    }
    if (!varied || !n)
        gb__chart_nodata(R, c, "no transfer or memory results with an offset sweep in these "
                               "files (axis offset)");
    else
        gb__write_bars(R, c, cats, n, "GB/s", false);
    /* Per kind and series: the slowest offset against offset 0. */
    for (size_t q = 0; q < n && q < 16; q++)
        for (size_t ser = 0; ser < R->nser; ser++) {
            const struct gb_result *r = cats[q].best[ser];
            if (!r || gb__num(gb_params_get(&r->params, "offset")) != 0)
                continue;
            const char *plus = strrchr(cats[q].label, '+');
            const size_t klen = plus ? (size_t)(plus - cats[q].label) : 0;
            double worst = INFINITY;
            char at[32] = "";
            for (size_t j = 0; j < n; j++)
                if (j != q && cats[j].best[ser] && strncmp(cats[j].label, cats[q].label, klen) == 0 &&
                    cats[j].label[klen] == '+' && cats[j].v[ser] < worst) {
                    worst = cats[j].v[ser];
                    gb__scopy(at, sizeof at, cats[j].label + klen + 1);
                }
            if (isfinite(worst) && cats[q].v[ser] > 0)
                find(c, "%s, %.*s: the slowest offset, %s, runs at %.3g of offset 0's %.3g GB/s.",
                     R->ser[ser].label, (int)(klen ? klen - 1 : 0), cats[q].label, at,
                     worst / cats[q].v[ser], cats[q].v[ser]);
        }
    free(cats);
    free(s.p);
}
