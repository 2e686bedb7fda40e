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
        find(c, "%s: %.3g us at %s (p99 %.3g us); %.3g us at %s.", l[i].label, l[i].y[k], at, p99,
             l[i].y[0], lo);
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
            gb_appendf(line, sizeof line,
                       ", %.0f allocations failed under the cap (%.0f that "
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
    return gb__in_list(r->suite, f->suites) && strcmp(r->unit, "GB/s") == 0;
}

/* A result's offset: absent at the default 0 (the axis's omit_default). */
static double offset_of(const struct gb_result *r)
{
    const struct gb_value *v = gb_params_get(&r->params, "offset");
    return v && is_num(v) ? gb__num(v) : 0;
}

/* What a bar stands for apart from its offset: suite, case, type or host memory, size. */
static void kind_of(const struct gb_result *r, char *buf, size_t len)
{
    char sz[32], cs[48], mem[32], ty[16], su[24];
    const struct gb_value *size = gb_params_get(&r->params, "size");
    if (size && is_num(size))
        gb__fmt_x(gb__num(size), true, sz, sizeof sz);
    else
        sz[0] = '\0';
    gb__clean(r->case_name, cs, sizeof cs);
    gb__clean(param(r, "memory"), mem, sizeof mem);
    gb__clean(param(r, "type"), ty, sizeof ty);
    gb__clean(r->suite, su, sizeof su);
    snprintf(buf, len, "%s %s %s%s%s", su, cs, mem[0] ? mem : ty, sz[0] ? " " : "", sz);
}

/* The offset in a bar's label ("h2d +64 src": the number after the last '+'). */
static double label_offset(const char *label)
{
    const char *plus = strrchr(label, '+');
    return plus ? strtod(plus + 1, NULL) : 0;
}

/* Whether two bars are of one kind: their labels agree before the last '+'. */
static bool same_kind(const struct cat *a, const struct cat *b)
{
    const char *pa = strrchr(a->label, '+'), *pb = strrchr(b->label, '+');
    return pa && pb && pa - a->label == pb - b->label &&
           strncmp(a->label, b->label, (size_t)(pa - a->label)) == 0;
}

/* A result's kind and offset, for sorting by kind. */
struct kind_ref {
    const char *kind;
    double off;
    size_t i;
};

static int cmp_kind_ref(const void *a, const void *b)
{
    const struct kind_ref *x = a, *y = b;
    int c = strcmp(x->kind, y->kind);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Bars, one per result kind (kind_of) and offset (and side, where the results have one), in
 * the order of the results; a kind only where its offsets vary. */
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
    char(*kinds)[160] = calloc(s.n ? s.n : 1, sizeof *kinds);
    size_t n = 0, varied = 0;
    bool *swept = calloc(s.n ? s.n : 1, sizeof *swept);
    for (size_t i = 0; kinds && i < s.n; i++)
        kind_of(s.p[i]->r, kinds[i], sizeof kinds[i]);
    /* A kind is drawn where its offsets vary; the label leaves out the suite, the memory and the
     * size where every drawn bar has the same (the title and the findings say them). */
    const char *first_suite = NULL, *first_mem = NULL;
    double first_size = NAN;
    bool suites_vary = false, rest_varies = false;
    /* Swept kinds, found in n log n (a file may hold 100,000 results): the results sorted by
     * kind, each run of one kind swept when its offsets differ. */
    struct kind_ref *ord = calloc(s.n ? s.n : 1, sizeof *ord);
    for (size_t i = 0; ord && kinds && i < s.n; i++)
        ord[i] = (struct kind_ref){kinds[i], offset_of(s.p[i]->r), i};
    if (ord && kinds && swept && s.n) {
        qsort(ord, s.n, sizeof *ord, cmp_kind_ref);
        for (size_t a0 = 0, b0; a0 < s.n; a0 = b0) {
            double lo = ord[a0].off, hi = ord[a0].off;
            for (b0 = a0 + 1; b0 < s.n && strcmp(ord[b0].kind, ord[a0].kind) == 0; b0++) {
                lo = ord[b0].off < lo ? ord[b0].off : lo;
                hi = ord[b0].off > hi ? ord[b0].off : hi;
            }
            for (size_t j = a0; j < b0; j++)
                swept[ord[j].i] = lo != hi;
        }
    }
    free(ord);
    for (size_t i = 0; swept && kinds && i < s.n; i++) {
        if (!swept[i])
            continue;
        const struct gb_result *r = s.p[i]->r;
        const char *mem = param(r, "type");
        const double size = gb__num(gb_params_get(&r->params, "size"));
        if (!first_suite) {
            first_suite = r->suite;
            first_mem = mem;
            first_size = size;
        }
        suites_vary |= strcmp(first_suite, r->suite) != 0;
        rest_varies |= strcmp(first_mem, mem) != 0 || first_size != size;
    }
    for (size_t i = 0; cats && kinds && swept && i < s.n; i++) {
        const struct gb_result *r = s.p[i]->r;
        const double o = offset_of(r);
        if (!swept[i])
            continue;
        varied++;
        char off[32], side[16], label[160], cs[48], su[24];
        gb__fmt_x(o, false, off, sizeof off);
        gb__clean(param(r, "offset_side"), side, sizeof side);
        gb__clean(r->case_name, cs, sizeof cs);
        gb__clean(r->suite, su, sizeof su);
        /* kinds[i] is "suite case rest": rest starts after the second space. */
        const char *rest = strchr(kinds[i], ' ');
        rest = rest ? strchr(rest + 1, ' ') : NULL;
        snprintf(label, sizeof label, "%s%s%s%.80s +%.16s%s%.12s", suites_vary ? su : "",
                 suites_vary ? " " : "", cs, rest_varies && rest ? rest : "", off,
                 side[0] && o > 0 ? " " : "", o > 0 ? side : "");
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
    free(kinds);
    free(swept);
    /* Grouped: the bars of a kind together, kinds in the order they first came, each by
     * offset (a stable insertion sort on (the kind's first bar, offset)). */
    size_t rank[MAXC];
    for (size_t i = 0; i < n; i++) {
        rank[i] = i;
        for (size_t j = 0; j < i && rank[i] == i; j++)
            if (same_kind(&cats[i], &cats[j]))
                rank[i] = rank[j];
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0; j--) {
            const bool before = rank[j] < rank[j - 1] ||
                                (rank[j] == rank[j - 1] &&
                                 label_offset(cats[j].label) < label_offset(cats[j - 1].label));
            if (!before)
                break;
            struct cat t = cats[j];
            cats[j] = cats[j - 1];
            cats[j - 1] = t;
            size_t r = rank[j];
            rank[j] = rank[j - 1];
            rank[j - 1] = r;
        }
    if (!varied || !n)
        gb__chart_nodata(R, c,
                         "no transfer or memory results with an offset sweep in these "
                         "files (axis offset)");
    else
        gb__write_bars(R, c, cats, n, "GB/s", false);
    /* Per kind and series: the slowest offset against offset 0. */
    for (size_t q = 0; q < n && q < 16; q++)
        for (size_t ser = 0; ser < R->nser; ser++) {
            const struct gb_result *r = cats[q].best[ser];
            if (!r || offset_of(r) != 0)
                continue;
            const char *plus = strrchr(cats[q].label, '+');
            const size_t klen = plus ? (size_t)(plus - cats[q].label) : 0;
            double worst = INFINITY;
            char at[32] = "";
            for (size_t j = 0; j < n; j++)
                if (j != q && cats[j].best[ser] &&
                    strncmp(cats[j].label, cats[q].label, klen) == 0 &&
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
