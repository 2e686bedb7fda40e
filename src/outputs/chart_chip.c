/* gpubench — the chip suites' charts (registry in charts.c): the latency staircase with the
 * levels it shows named, the cache-bandwidth staircase on the same axis, local-memory bandwidth
 * against stride, atomics throughput by addresses, and batching's graph mode beside separate
 * and fused launches. gb__latency_levels, the naming of the levels, is pure (unit-tested). */
#include "analyses/report_model.h"
#include "outputs/report.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the levels of a latency curve --------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of y[from..to) (scratch: at least to - from doubles). */
static double median_of(const double *y, size_t from, size_t to, double *scratch)
{
    size_t m = to - from;
    memcpy(scratch, y + from, m * sizeof *scratch);
    qsort(scratch, m, sizeof *scratch, cmp_double);
    return m % 2 ? scratch[m / 2] : (scratch[m / 2 - 1] + scratch[m / 2]) / 2;
}

struct seg {
    size_t from, to; /* points [from, to) */
    double med;
};

size_t gb__latency_levels(const double *x, const double *y, size_t n, double llc_bytes,
                          struct gb__level *out, size_t max)
{
    if (n == 0 || max == 0)
        return 0;
    struct seg *sg = malloc(n * sizeof *sg);
    double *scratch = malloc(n * sizeof *scratch);
    size_t ns = 0;
    if (!sg || !scratch) {
        free(sg);
        free(scratch);
        return 0;
    }
    /* 1. Cut where a point rises more than the ratio above the lowest of its segment (a fall
     *    never cuts: noise downwards and a cache that catches up are no new level). */
    double lo = y[0];
    sg[ns++] = (struct seg){0, 1, 0};
    for (size_t k = 1; k < n; k++) {
        if (y[k] > GB_LEVEL_RATIO * lo) {
            sg[ns++] = (struct seg){k, k + 1, 0};
            lo = y[k];
        } else {
            sg[ns - 1].to = k + 1;
            if (y[k] < lo)
                lo = y[k];
        }
    }
    /* 2. A segment whose median is not above the ratio of the previous one's was a spike:
     *    join it to the previous one. */
    size_t w = 0;
    for (size_t i = 0; i < ns; i++) {
        sg[i].med = median_of(y, sg[i].from, sg[i].to, scratch);
        if (w && sg[i].med <= GB_LEVEL_RATIO * sg[w - 1].med) {
            sg[w - 1].to = sg[i].to;
            sg[w - 1].med = median_of(y, sg[w - 1].from, sg[w - 1].to, scratch);
        } else {
            sg[w++] = sg[i];
        }
    }
    ns = w;
    /* 3. A single point between two levels, within the ratio squared of the next segment, is
     *    a working set partly in each (the step's riser), no level; the first and the last
     *    segments stay, whatever their length, and so does a lone point far from both
     *    neighbours (a level the sweep touched once). */
    w = 0;
    for (size_t i = 0; i < ns; i++)
        if (i == 0 || i == ns - 1 || sg[i].to - sg[i].from > 1 ||
            sg[i + 1].med > GB_LEVEL_RATIO * GB_LEVEL_RATIO * sg[i].med)
            sg[w++] = sg[i];
    ns = w;
    /* 4. Names: the last level is memory when it starts beyond the last-level cache (when that
     *    is known), or, unknown, when there are three levels or more; the caches are L1, L2, ...
     *    and the last of three or more caches is the LLC. */
    bool mem = ns >= 2 && (llc_bytes > 0 ? x[sg[ns - 1].from] > llc_bytes : ns >= 3);
    size_t caches = ns - (mem ? 1 : 0);
    size_t m = 0;
    for (size_t i = 0; i < ns && m < max; i++, m++) {
        struct gb__level *lv = &out[m];
        lv->from = x[sg[i].from];
        lv->to = x[sg[i].to - 1];
        lv->value = sg[i].med;
        lv->points = sg[i].to - sg[i].from;
        if (i == caches)
            snprintf(lv->name, sizeof lv->name, "memory");
        else if (caches >= 3 && i == caches - 1)
            snprintf(lv->name, sizeof lv->name, "LLC");
        else
            snprintf(lv->name, sizeof lv->name, "L%u", (unsigned)(i % 100 + 1));
    }
    free(sg);
    free(scratch);
    return m;
}

/* ---- the latency staircase ----------------------------------------------------------------- */

static const char *const latency_suites[] = {"latency", NULL};

/* ns per load: the suite's headline is microseconds. */
static double ns_of(const struct gb_result *r)
{
    return strcmp(r->unit, "us") == 0 ? r->value * 1e3 : r->value;
}

static double llc_of(const struct rep *R, size_t ser)
{
    return (double)R->files[R->ser[ser].file].devices[R->ser[ser].dev].info.l2_bytes;
}

/* "L1 1.7 ns to 32 KiB, ..." for one line. */
static void levels_text(const struct gb__level *lv, size_t n, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char at[32];
        bool last = i + 1 == n;
        gb__fmt_x(last ? lv[i].from : lv[i].to, true, at, sizeof at);
        gb_appendf(buf, len, "%s%s %.3g ns %s %s", i ? ", " : "", lv[i].name, lv[i].value,
                   last ? "from" : "up to", at);
    }
}

void gb__chart_latency(struct rep *R, const struct gb__chart_kind *k)
{
    struct suite_filter sf = {.suites = k->suites};
    struct sel s = gb__select(R, gb__suite_filter_fn, &sf, SIZE_MAX);
    if (s.n == 0) {
        gb__chart_absent(R, "latency", "Memory latency staircase",
                         "Nanoseconds per dependent load against the working set.",
                         "no latency results in these files");
        free(s.p);
        return;
    }
    struct chart *c = gb__chart_new(
        R, "latency", "Memory latency staircase",
        "Nanoseconds per dependent load (pointer chase) against the working set, both axes "
        "log. Each line is a device and chase pattern (random: a random cycle no prefetcher "
        "follows; linear: address order). Each plateau is a level of the memory hierarchy; a "
        "level is named (L1, L2, LLC, memory) where the curve rises by more than 1.5x, and "
        "marked at the largest working set it holds.");
    struct axes *a = malloc(sizeof *a);
    struct line *l = NULL;
    size_t n = 0, dropped = 0;
    if (!c || !a)
        goto out;
    gb__scan_axes(&s, a);
    n = gb__build_lines(R, &s, a, "size", ns_of, &l, &dropped);
    if (!l || n == 0) {
        gb__chart_nodata(R, c, "the latency results have no size axis");
        goto out;
    }
    struct mark marks[MAXLINES * 4];
    size_t nm = 0;
    for (size_t i = 0; i < n; i++) {
        struct gb__level lv[8];
        size_t nl = gb__latency_levels(l[i].x, l[i].y, l[i].n, llc_of(R, l[i].s), lv, 8);
        char text[512];
        levels_text(lv, nl, text, sizeof text);
        find(c, "%s: %s.", l[i].label, text);
        for (size_t q = 0; q < nl && q < 4; q++) {
            /* The mark sits at the end of the level: the largest set it holds (memory: its
             * first point). */
            bool last = q + 1 == nl;
            marks[nm] = (struct mark){.x = last ? lv[q].from : lv[q].to, .line = i};
            marks[nm].y = lv[q].value;
            gb__scopy(marks[nm].text, sizeof marks[nm].text, lv[q].name);
            nm++;
        }
    }
    gb__write_lines(R, c, l, n, "working set", "ns per load (log)", true, marks, nm,
                    "set logscale y 10\nset yrange [*:*]\n", NULL);
    if (dropped)
        find(c, "%zu more lines are in the results but not drawn.", dropped);
out:
    if (l)
        gb__free_lines(l, n);
    free(a);
    free(s.p);
}

void gb__latency_levels_of(const struct rep *R, size_t ser, char *buf, size_t len)
{
    buf[0] = '\0';
    struct suite_filter sf = {.suites = latency_suites, .case_name = "random"};
    struct sel s = gb__select(R, gb__suite_filter_fn, &sf, ser);
    if (s.n == 0) {
        free(s.p);
        sf.case_name = NULL;
        s = gb__select(R, gb__suite_filter_fn, &sf, ser);
    }
    struct axes *a = malloc(sizeof *a);
    struct line *l = NULL;
    size_t n = 0, dropped = 0;
    if (s.n && a) {
        gb__scan_axes(&s, a);
        n = gb__build_lines(R, &s, a, "size", ns_of, &l, &dropped);
    }
    const struct line *best = NULL;
    for (size_t i = 0; l && i < n; i++)
        if (!best || l[i].n > best->n)
            best = &l[i];
    if (best && best->n >= 2) {
        struct gb__level lv[8];
        size_t nl = gb__latency_levels(best->x, best->y, best->n, llc_of(R, ser), lv, 8);
        levels_text(lv, nl, buf, len);
    }
    if (l)
        gb__free_lines(l, n);
    free(a);
    free(s.p);
}

/* ---- line charts of the other sweeps ------------------------------------------------------- */

/* One line chart of k's suites, x from xname: the staircase of cache bandwidth and the local
 * memory strides. The finding is each line's best and its figure at the largest x. */
static void sweep_chart(struct rep *R, const struct gb__chart_kind *k, const char *id,
                        const char *title, const char *what, const char *xname, bool size_axis,
                        const char *xlabel, const char *nodata)
{
    struct suite_filter sf = {.suites = k->suites, .unit = "GB/s"};
    struct sel s = gb__select(R, gb__suite_filter_fn, &sf, SIZE_MAX);
    if (s.n == 0) {
        gb__chart_absent(R, id, title, what, nodata);
        free(s.p);
        return;
    }
    struct chart *c = gb__chart_new(R, id, title, what);
    struct axes *a = malloc(sizeof *a);
    struct line *l = NULL;
    size_t n = 0, dropped = 0;
    if (!c || !a)
        goto out;
    gb__scan_axes(&s, a);
    n = gb__build_lines(R, &s, a, xname, NULL, &l, &dropped);
    if (!l || n == 0) {
        gb__chart_nodata(R, c, "the results have no %s axis", xname);
        goto out;
    }
    gb__write_lines(R, c, l, n, xlabel, "GB/s", size_axis, NULL, 0, NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        size_t b = 0;
        for (size_t q = 1; q < l[i].n; q++)
            if (l[i].y[q] > l[i].y[b])
                b = q;
        char xb[32], xl[32];
        gb__fmt_x(l[i].x[b], size_axis, xb, sizeof xb);
        gb__fmt_x(l[i].x[l[i].n - 1], size_axis, xl, sizeof xl);
        find(c, "%s: best %.3g GB/s at %s=%s; %.3g GB/s at %s=%s.", l[i].label, l[i].y[b], xname,
             xb, l[i].y[l[i].n - 1], xname, xl);
    }
    if (dropped)
        find(c, "%zu more lines are in the results but not drawn.", dropped);
out:
    if (l)
        gb__free_lines(l, n);
    free(a);
    free(s.p);
}

void gb__chart_cache(struct rep *R, const struct gb__chart_kind *k)
{
    sweep_chart(R, k, "cache", "Cache bandwidth staircase",
                "Read bandwidth (GB/s) against the working set, on the latency staircase's "
                "log axis: each level of the hierarchy holds its bandwidth while the set fits "
                "it, and the bandwidth falls where the latency rises.",
                "size", true, "working set", "no cache results in these files");
}

void gb__chart_local(struct rep *R, const struct gb__chart_kind *k)
{
    sweep_chart(R, k, "local", "Local-memory bandwidth against stride",
                "Local (shared) memory bandwidth (GB/s) against the stride between the words "
                "neighbouring work-items touch, one line per operation and vector width. On a "
                "GPU a stride sharing a factor with the bank count (32) conflicts and the "
                "bandwidth falls; an odd stride (33) does not.",
                "stride", false, "stride (words)", "no local-memory results in these files");
}

/* ---- bar charts with categories of their own ----------------------------------------------- */

#define MAXCATS 48

/* Keeps r as series ser's figure of category label when it is better than what is there. */
static void cat_add(struct cat *cats, size_t *n, const char *text, size_t ser,
                    const struct gb_result *r)
{
    char label[sizeof cats[0].label];
    gb__clean(text, label, sizeof label);
    size_t i = 0;
    while (i < *n && strcmp(cats[i].label, label) != 0)
        i++;
    if (i == *n) {
        if (*n == MAXCATS)
            return;
        memset(&cats[i], 0, sizeof cats[i]);
        gb__scopy(cats[i].label, sizeof cats[i].label, label);
        for (size_t q = 0; q < MAXSER; q++)
            cats[i].v[q] = NAN;
        (*n)++;
    }
    if (!cats[i].best[ser] || better(r, r->value, cats[i].v[ser])) {
        cats[i].best[ser] = r;
        cats[i].v[ser] = r->value;
    }
}

static const char *str_param(const struct gb_result *r, const char *name)
{
    const struct gb_value *v = gb_params_get(&r->params, name);
    return v && v->type == GB_V_STR ? v->s : "";
}

void gb__chart_atomics(struct rep *R, const struct gb__chart_kind *k)
{
    static const char what[] =
        "Atomic adds per second (10^9/s, Gatomic/s; log axis) per memory "
        "(global, local), type and contention: 1 address (every work-item on one counter), N "
        "addresses (round-robin over N), own (a counter per work-item). The best over the other "
        "params per device.";
    struct suite_filter sf = {.suites = k->suites};
    struct sel s = gb__select(R, gb__suite_filter_fn, &sf, SIZE_MAX);
    struct cat *cats = s.n ? calloc(MAXCATS, sizeof *cats) : NULL;
    if (!cats) {
        if (s.n == 0)
            gb__chart_absent(R, "atomics", "Atomics throughput", what,
                             "no atomics results in these files");
        free(s.p);
        return;
    }
    struct chart *c = gb__chart_new(R, "atomics", "Atomics throughput", what);
    size_t n = 0;
    for (size_t i = 0; i < s.n; i++) {
        const struct gb_result *r = s.p[i]->r;
        const struct gb_value *av = gb_params_get(&r->params, "addresses");
        double addr = av ? gb__num(av) : NAN;
        char label[160];
        if (isnan(addr))
            snprintf(label, sizeof label, "%s %s", r->case_name, str_param(r, "type"));
        else if (addr == 0)
            snprintf(label, sizeof label, "%s %s own", r->case_name, str_param(r, "type"));
        else
            snprintf(label, sizeof label, "%s %s %.0f addr", r->case_name, str_param(r, "type"),
                     addr);
        cat_add(cats, &n, label, s.p[i]->s, r);
    }
    if (c) {
        gb__write_bars(R, c, cats, n, "10^9 atomic adds per second (log)", true);
        for (size_t ser = 0; ser < R->nser; ser++) {
            const struct cat *best = NULL, *worst = NULL;
            for (size_t q = 0; q < n; q++) {
                if (!cats[q].best[ser])
                    continue;
                if (!best || cats[q].v[ser] > best->v[ser])
                    best = &cats[q];
                if (!worst || cats[q].v[ser] < worst->v[ser])
                    worst = &cats[q];
            }
            if (best)
                find(c, "%s: fastest %s at %.3g G/s, slowest %s at %.3g G/s.", R->ser[ser].label,
                     best->label, best->v[ser], worst->label, worst->v[ser]);
        }
    }
    free(cats);
    free(s.p);
}

/* Batching's launch modes side by side: separate launches, one fused launch, a replayed graph. */
static bool graph_filter(const struct gb_result *r, const void *arg)
{
    (void)arg;
    const char *mode = str_param(r, "mode");
    return strcmp(r->suite, "batching") == 0 &&
           (strcmp(mode, "separate") == 0 || strcmp(mode, "fused") == 0 ||
            strcmp(mode, "graph") == 0);
}

void gb__chart_graphs(struct rep *R, const struct gb__chart_kind *k)
{
    (void)k;
    static const char what[] =
        "Microseconds per batch (lower is better) of the same launches made three ways: "
        "separate (one launch each), fused (one launch doing the work of all), graph (recorded "
        "once as a CUDA graph or an OpenCL command buffer and replayed). Per operation and "
        "batch size.";
    struct sel s = gb__select(R, graph_filter, NULL, SIZE_MAX);
    bool has_graph = false;
    for (size_t i = 0; i < s.n; i++)
        has_graph |= strcmp(str_param(s.p[i]->r, "mode"), "graph") == 0;
    struct cat *cats = has_graph ? calloc(MAXCATS, sizeof *cats) : NULL;
    if (!cats) {
        if (!has_graph)
            gb__chart_absent(R, "graphs", "Command graphs beside separate and fused launches", what,
                             "no batching results of mode graph in these files");
        free(s.p);
        return;
    }
    struct chart *c =
        gb__chart_new(R, "graphs", "Command graphs beside separate and fused launches", what);
    size_t n = 0;
    for (size_t i = 0; i < s.n; i++) {
        const struct gb_result *r = s.p[i]->r;
        const struct gb_value *cv = gb_params_get(&r->params, "count");
        char label[160];
        snprintf(label, sizeof label, "%s x%.0f %s", r->case_name, cv ? gb__num(cv) : NAN,
                 str_param(r, "mode"));
        cat_add(cats, &n, label, s.p[i]->s, r);
    }
    if (c) {
        gb__write_bars(R, c, cats, n, "us per batch (lower is better)", false);
        /* graph against separate, per series and batch */
        for (size_t ser = 0; ser < R->nser; ser++)
            for (size_t q = 0; q < n; q++) {
                size_t len = strlen(cats[q].label);
                if (len < 6 || strcmp(cats[q].label + len - 6, " graph") != 0 || !cats[q].best[ser])
                    continue;
                char sep[160];
                snprintf(sep, sizeof sep, "%.*s separate", (int)(len - 6), cats[q].label);
                for (size_t p = 0; p < n; p++)
                    if (strcmp(cats[p].label, sep) == 0 && cats[p].best[ser])
                        find(c, "%s: %s is %.2fx as fast as separate launches.", R->ser[ser].label,
                             cats[q].label, cats[p].v[ser] / cats[q].v[ser]);
            }
    }
    free(cats);
    free(s.p);
}
