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

/* A time in us as people read it: "840 us", "27.5 ms", "1.2 s". */
static void fmt_us(double us, char *buf, size_t len)
{
    if (us >= 1e6)
        snprintf(buf, len, "%.3g s", us * 1e-6);
    else if (us >= 1e3)
        snprintf(buf, len, "%.3g ms", us * 1e-3);
    else
        snprintf(buf, len, "%.3g us", us);
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
           strcmp(gb_params_str(&r->params, "op"), f->op) == 0 &&
           (!f->touch || strcmp(gb_params_str(&r->params, "touch"), f->touch) == 0);
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
        const double p99 = l[i].r[k] ? gb_result_scalar(l[i].r[k], "p99_us") : NAN;
        char tail[80] = "", big[32], small[32], p99s[32];
        const size_t ns = l[i].r[k] ? l[i].r[k]->nsamples : 0;
        if (p99 >= l[i].y[k] && p99 < 1e15) {
            fmt_us(p99, p99s, sizeof p99s);
            snprintf(tail, sizeof tail, " (p99 %s, %zu samples)", p99s, ns);
        } else {
            snprintf(tail, sizeof tail, " (%zu samples: too few for a p99)", ns);
        }
        fmt_us(l[i].y[k], big, sizeof big);
        fmt_us(l[i].y[0], small, sizeof small);
        find(c, "%s: %s at %s%s; %s at %s.", l[i].label, big, at, tail, small, lo);
    }
}

/* A latency drawn on a log axis: positive and finite, else none (NAN: not drawn). */
static double drawn_value(const struct gb_result *r)
{
    return isfinite(r->value) && r->value > 0 ? r->value : NAN;
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
        n = gb__build_lines(R, &s, a, "size", drawn_value, &l, &dropped);
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

/* A result's value when it can be drawn: finite and positive (a time or a rate; a hostile file's
 * zero, negative or NaN is left out, not drawn on a log axis). */
static bool drawable(const struct gb_result *r)
{
    return isfinite(r->value) && r->value > 0;
}

/* The case, then "name=value" for every param of r that varies in the selection (a->distinct
 * above 1), except the names in skip (NULL-terminated, may be NULL). */
static void label_of(const struct gb_result *r, const struct axes *a, const char *const *skip,
                     char *buf, size_t len)
{
    gb__clean(r->case_name, buf, len);
    const size_t kase = gb_result_case_param(r);
    for (size_t k = 0; k < r->params.n; k++) {
        const char *name = r->params.name[k];
        const int ax = gb__axis_index(a, name);
        if (k == kase || ax < 0 || a->distinct[ax] < 2 || (skip && gb__in_list(name, skip)))
            continue;
        char t[GB_STR_MAX], c[GB_STR_MAX], n[GB_STR_MAX];
        gb_value_format(&r->params.v[k], t, sizeof t);
        if (strcmp(name, "cap") == 0 && is_num(&r->params.v[k]) && gb__num(&r->params.v[k]) == 0)
            snprintf(t, sizeof t, "none"); /* the pool's cap 0: no cap */
        gb__clean(t, c, sizeof c);
        gb__clean(name, n, sizeof n);
        gb_appendf(buf, len, " %s=%s", n, c);
    }
}

/* The category labelled `label` in cats[0..*n), added when there is room (MAXC); NULL when full. */
#define MAXC 64
static struct cat *cat_for(struct cat *cats, size_t *n, const char *label)
{
    for (size_t q = 0; q < *n; q++)
        if (strcmp(cats[q].label, label) == 0)
            return &cats[q];
    if (*n == MAXC)
        return NULL;
    gb__scopy(cats[*n].label, sizeof cats[*n].label, label);
    return &cats[(*n)++];
}

/* ---- the pool: three ways of one trace ------------------------------------------------------- */

static bool pool_fn(const struct gb_result *r, const void *arg)
{
    const struct suite_filter *f = arg;
    return gb__in_list(r->suite, f->suites) && strcmp(r->unit, "us") == 0 && drawable(r);
}

void gb__chart_pool(struct rep *R, const struct gb__chart_kind *k)
{
    struct chart *c = gb__chart_new(
        R, "mm_pool", "Memory management: a training step's allocations three ways",
        "Median time per training step (us) of the seeded trace's allocations (each first written "
        "by a kernel) and frees, per way: driver (every allocation to the backend), backend_pool "
        "(CUDA's stream-ordered pool), caching (a size-class caching pool); one bar per way and "
        "setting (cap, layers, hidden, seed where they vary). The findings give each bar's "
        "fragmentation (peak bytes reserved over peak bytes in use), its speed against the "
        "driver's at the same setting, and under a cap the allocations that failed.");
    if (!c)
        return;
    struct suite_filter sf = {.suites = k->suites};
    struct sel s = gb__select(R, pool_fn, &sf, SIZE_MAX);
    struct axes *a = calloc(1, sizeof *a);
    struct cat *cats = calloc(MAXC, sizeof *cats);
    size_t n = 0;
    if (s.n == 0 || !a || !cats) {
        gb__chart_nodata(R, c, "no pool results in these files (the suite not run)");
        goto out;
    }
    gb__scan_axes(&s, a);
    for (size_t i = 0; i < s.n; i++) {
        char label[160];
        label_of(s.p[i]->r, a, NULL, label, sizeof label);
        struct cat *q = cat_for(cats, &n, label);
        const size_t ser = s.p[i]->s;
        if (q && (!q->best[ser] || s.p[i]->r->value < q->v[ser])) {
            q->best[ser] = s.p[i]->r;
            q->v[ser] = s.p[i]->r->value;
        }
    }
    gb__write_bars(R, c, cats, n, "us per step", true);
    /* Per bar and series: its figures, and its speed against the driver's bar of the same
     * setting (the label with the case "driver"). */
    for (size_t q = 0; q < n && q < 24; q++)
        for (size_t ser = 0; ser < R->nser; ser++) {
            const struct gb_result *r = cats[q].best[ser];
            if (!r)
                continue;
            const char *setting = strchr(cats[q].label, ' ');
            char driver[160];
            snprintf(driver, sizeof driver, "driver%s", setting ? setting : "");
            double vs_driver = NAN;
            for (size_t d = 0; d < n; d++)
                if (d != q && cats[d].best[ser] && strcmp(cats[d].label, driver) == 0)
                    vs_driver = cats[d].v[ser] / cats[q].v[ser];
            char line[600], t[32];
            fmt_us(cats[q].v[ser], t, sizeof t);
            snprintf(line, sizeof line, "%s, %s: %s per step", R->ser[ser].label, cats[q].label, t);
            const double frag = gb_result_scalar(r, "fragmentation");
            if (frag >= 1 && frag < 1e6)
                gb_appendf(line, sizeof line, ", fragmentation %.3g", frag);
            const double fails = gb_result_scalar(r, "cap_failures"),
                         frag_fails = gb_result_scalar(r, "cap_failures_fragmented");
            const bool failed = fails > 0 && fails < 1e12 && frag_fails >= 0 && frag_fails <= fails;
            /* A step some of whose tensors failed did less work: no speed beside the driver's. */
            if (isfinite(vs_driver) && !failed)
                gb_appendf(line, sizeof line, ", %.3gx the driver's speed", vs_driver);
            if (failed)
                gb_appendf(line, sizeof line,
                           ", %.0f allocation%s failed under the cap (%.0f that the live bytes "
                           "would have allowed; the step's time leaves their tensors out)",
                           fails, fails == 1 ? "" : "s", frag_fails);
            find(c, "%s.", line);
        }
out:
    free(cats);
    free(a);
    free(s.p);
}

/* ---- bandwidth against offset ---------------------------------------------------------------- */

static const char *const offset_axes[] = {"offset", "offset_side", NULL};

static bool offset_fn(const struct gb_result *r, const void *arg)
{
    const struct suite_filter *f = arg;
    return gb__in_list(r->suite, f->suites) && strcmp(r->unit, "GB/s") == 0 && drawable(r);
}

/* A result's offset: absent at the default 0 (the axis's omit_default). */
static double offset_of(const struct gb_result *r)
{
    const struct gb_value *v = gb_params_get(&r->params, "offset");
    return v && is_num(v) ? gb__num(v) : 0;
}

/* What a result is apart from its offset: suite, case and every other param, so that results
 * that differ in anything else (memory, mode, vec, size, ...) are never one kind. */
static void kind_of(const struct gb_result *r, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s", r->suite, r->case_name);
    const size_t kase = gb_result_case_param(r);
    for (size_t k = 0; k < r->params.n; k++) {
        if (k == kase || gb__in_list(r->params.name[k], offset_axes))
            continue;
        char t[GB_STR_MAX];
        gb_value_format(&r->params.v[k], t, sizeof t);
        gb_appendf(buf, len, " %s=%s", r->params.name[k], t);
    }
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

/* Marks swept[i] for the results of s whose kind (kinds[i]) comes at more than one offset, in
 * n log n (a file may hold 100,000 results). */
static void mark_swept(const struct sel *s, char (*kinds)[192], bool *swept)
{
    struct kind_ref *ord = calloc(s->n ? s->n : 1, sizeof *ord);
    if (!ord)
        return;
    for (size_t i = 0; i < s->n; i++)
        ord[i] = (struct kind_ref){kinds[i], offset_of(s->p[i]->r), i};
    qsort(ord, s->n, sizeof *ord, cmp_kind_ref);
    for (size_t a0 = 0, b0; a0 < s->n; a0 = b0) {
        double lo = ord[a0].off, hi = ord[a0].off;
        for (b0 = a0 + 1; b0 < s->n && strcmp(ord[b0].kind, ord[a0].kind) == 0; b0++) {
            lo = ord[b0].off < lo ? ord[b0].off : lo;
            hi = ord[b0].off > hi ? ord[b0].off : hi;
        }
        for (size_t j = a0; j < b0; j++)
            swept[ord[j].i] = lo != hi;
    }
    free(ord);
}

/* Grouped: the bars of a kind together, kinds in the order they first came, each by offset (a
 * stable insertion sort on (the kind's first bar, offset)). */
static void group_bars(struct cat *cats, size_t n)
{
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
}

/* Bars, one per result kind and offset (and side, where the results have one), kinds grouped;
 * a kind only where its offsets vary. */
void gb__chart_offsets(struct rep *R, const struct gb__chart_kind *k)
{
    struct chart *c = gb__chart_new(
        R, "mm_offset", "Memory management: bandwidth against offset",
        "Median GB/s (10^9 B/s) of the same bytes moved from an offset into their buffers "
        "(transfer: the copy starts that many bytes in, on the side offset_side names: src, dst "
        "or both; memory: the kernels' arrays start that far in), one bar per case, setting and "
        "offset, every offset verified. An offset that is not a multiple of the element "
        "(memory) is a recorded skip.");
    if (!c)
        return;
    struct suite_filter sf = {.suites = k->suites};
    struct sel s = gb__select(R, offset_fn, &sf, SIZE_MAX);
    struct cat *cats = calloc(MAXC, sizeof *cats);
    char(*kinds)[192] = calloc(s.n ? s.n : 1, sizeof *kinds);
    bool *swept = calloc(s.n ? s.n : 1, sizeof *swept);
    struct axes *a = calloc(1, sizeof *a);
    struct sel sw = {.p = calloc(s.n ? s.n : 1, sizeof *sw.p)};
    size_t n = 0;
    if (!cats || !kinds || !swept || !a || !sw.p)
        goto out;
    for (size_t i = 0; i < s.n; i++)
        kind_of(s.p[i]->r, kinds[i], sizeof kinds[i]);
    mark_swept(&s, kinds, swept);
    for (size_t i = 0; i < s.n; i++)
        if (swept[i])
            sw.p[sw.n++] = s.p[i];
    if (sw.n == 0) {
        gb__chart_nodata(R, c,
                         "no transfer or memory results with an offset sweep in these "
                         "files (axis offset)");
        goto out;
    }
    /* The label names what varies among the swept results only (the title says the rest). */
    gb__scan_axes(&sw, a);
    bool suites_vary = false;
    for (size_t i = 1; i < sw.n && !suites_vary; i++)
        suites_vary = strcmp(sw.p[i]->r->suite, sw.p[0]->r->suite) != 0;
    for (size_t i = 0; i < sw.n; i++) {
        const struct gb_result *r = sw.p[i]->r;
        const double o = offset_of(r);
        char off[32], side[16], label[160], what[128], su[24];
        gb__fmt_x(o, false, off, sizeof off);
        gb__clean(gb_params_get(&r->params, "offset_side")
                      ? gb_params_str(&r->params, "offset_side")
                      : "",
                  side, sizeof side);
        gb__clean(r->suite, su, sizeof su);
        label_of(r, a, offset_axes, what, sizeof what);
        snprintf(label, sizeof label, "%s%s%.100s +%.16s%s%.12s", suites_vary ? su : "",
                 suites_vary ? " " : "", what, off, side[0] && o > 0 ? " " : "", o > 0 ? side : "");
        struct cat *q = cat_for(cats, &n, label);
        const size_t ser = sw.p[i]->s;
        if (q && (!q->best[ser] || r->value > q->v[ser])) {
            q->best[ser] = r;
            q->v[ser] = r->value;
        }
    }
    group_bars(cats, n);
    gb__write_bars(R, c, cats, n, "GB/s", false);
    /* Per kind and series: the slowest offset against offset 0. */
    for (size_t q = 0; q < n; q++)
        for (size_t ser = 0; ser < R->nser; ser++) {
            const struct gb_result *r = cats[q].best[ser];
            if (!r || offset_of(r) != 0)
                continue;
            double worst = INFINITY;
            const char *at = "";
            for (size_t j = 0; j < n; j++)
                if (j != q && cats[j].best[ser] && same_kind(&cats[j], &cats[q]) &&
                    cats[j].v[ser] < worst) {
                    worst = cats[j].v[ser];
                    at = strrchr(cats[j].label, '+') + 1;
                }
            const char *plus = strrchr(cats[q].label, '+');
            const int klen = plus && plus > cats[q].label ? (int)(plus - cats[q].label - 1) : 0;
            if (isfinite(worst))
                find(c, "%s, %.*s: the slowest offset, %s, runs at %.3gx offset 0's %.3g GB/s%s.",
                     R->ser[ser].label, klen, cats[q].label, at, worst / cats[q].v[ser],
                     cats[q].v[ser], worst >= cats[q].v[ser] ? " (no offset is slower)" : "");
        }
out:
    free(sw.p);
    free(a);
    free(swept);
    free(kinds);
    free(cats);
    free(s.p);
}
