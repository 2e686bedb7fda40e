/* gpubench — the report's charts of a shared device and of serving (registry in charts.c):
 *   cloud_overlap     the concurrency suite's overlap (aggregate over one queue) against the
 *                     number of queues, one line per kernel, with fairness and the priority
 *                     case's latencies as findings;
 *   cloud_tenants_N   the tenants suite's slowdown matrix per device: victim x aggressor;
 *   cloud_startup     the startup suite's stages stacked per case (median ms each);
 *   cloud_serve       the serve suite's p99 latency against offered load, one line per batch
 *                     limit and wait, with the largest rate under the SLO as findings;
 *   cloud_llm_goodput the llm suite's goodput against the arrival rate, each point's TTFT, TPOT
 *                     and ITL percentiles as findings;
 *   cloud_llm_ttft    its TTFT p99 against the arrival rate;
 *   cloud_llm_batch   its all-at-once cases' output tokens/s against the batch limit.
 * Text from a results file reaches a label only cleaned (gb__clean) and a script only through
 * the shapes of gnuplot.c. */
#include "analyses/report_model.h"
#include "outputs/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A result's string param, "" when absent or not a string. */
static const char *param_s(const struct gb_result *r, const char *name)
{
    const struct gb_value *v = gb_params_get(&r->params, name);
    return v && v->type == GB_V_STR ? v->s : "";
}

/* A result's text figure, cleaned for a sentence; "" when absent. */
static void text_of(const struct gb_result *r, const char *name, char *buf, size_t len)
{
    const struct gb_figure *f = gb_result_figure_get(r, name);
    gb__clean_text(f && f->n == 0 ? f->text : "", buf, len, false);
}

/* A figure when it is a plausible count, rate or time: finite and not negative. */
static double plain(const struct gb_result *r, const char *name)
{
    const double v = gb_result_scalar(r, name);
    return v >= 0 ? v : NAN;
}

/* The lines of s along param xname (gb__build_lines into *l and *dropped); 0, said on c as "the
 * SUITE results have no XNAME axis", when there are none. */
static size_t lines_along(struct rep *R, struct chart *c, const struct sel *s, const struct axes *a,
                          const char *suite, const char *xname, gb__yfn yfn, struct line **l,
                          size_t *dropped)
{
    const size_t n = gb__build_lines(R, s, a, xname, yfn, l, dropped);
    if (!*l || !n) {
        gb__chart_nodata(R, c, "the %s results have no %s axis", suite, xname);
        return 0;
    }
    return n;
}

/* The finding that says how many lines were left out (at most MAXLINES are drawn), if any. */
static void dropped_finding(struct chart *c, size_t dropped)
{
    if (dropped)
        find(c, "%zu more lines are in the results but not drawn (at most %d per chart).", dropped,
             MAXLINES);
}

/* ---- concurrency: overlap against queues ----------------------------------------------------- */

static bool throughput_fn(const struct gb_result *r, const void *arg)
{
    const struct suite_filter *f = arg;
    return gb__in_list(r->suite, f->suites) && strcmp(r->unit, "us") != 0 && isfinite(r->value) &&
           r->value > 0;
}

static bool priority_fn(const struct gb_result *r, const void *arg)
{
    const struct suite_filter *f = arg;
    return gb__in_list(r->suite, f->suites) && strcmp(param_s(r, "kernel"), "priority") == 0;
}

/* A result's overlap; the one-queue case, the reference itself, is 1 by definition. */
static double overlap_of(const struct gb_result *r)
{
    const struct gb_value *q = gb_params_get(&r->params, "queues");
    if (q && is_num(q) && gb__num(q) == 1)
        return 1;
    const double v = gb_result_scalar(r, "overlap");
    return v > 0 ? v : NAN;
}

/* The priority case's findings: the high-priority queue's tail beside the default's. */
static void priority_findings(struct rep *R, struct chart *c, const struct gb__chart_kind *k)
{
    struct suite_filter sf = {.suites = k->suites};
    struct sel s = gb__select(R, priority_fn, &sf, SIZE_MAX);
    for (size_t i = 0; i < s.n && i < 8; i++) {
        const struct gb_result *r = s.p[i]->r;
        const struct gb_value *q = gb_params_get(&r->params, "queues");
        const double hi = plain(r, "high_p99"), def = plain(r, "default_p99"),
                     gain = plain(r, "priority_gain"), idle = plain(r, "idle_p50");
        char line[600];
        snprintf(line, sizeof line,
                 "%s, priority beside %.0f low-priority queues: high-priority "
                 "tick p99 %.3g us",
                 R->ser[s.p[i]->s].label, q && is_num(q) ? gb__num(q) - 1 : 0, hi);
        if (isfinite(def))
            gb_appendf(line, sizeof line, ", default-priority p99 %.3g us", def);
        if (isfinite(gain))
            gb_appendf(line, sizeof line, " (gain %.3gx; 1: priorities changed nothing)", gain);
        if (isfinite(idle))
            gb_appendf(line, sizeof line, "; the tick alone p50 %.3g us", idle);
        find(c, "%s.", line);
    }
    free(s.p);
    /* A priority case that could not run says why (a device without priorities). */
    size_t said = 0;
    for (size_t f = 0; f < R->nfiles && said < 4; f++)
        for (size_t i = 0; i < R->files[f].nresults && said < 4; i++) {
            const struct gb_result *r = &R->files[f].results[i];
            if (r->status != GB_STATUS_SKIPPED || !gb__in_list(r->suite, k->suites) ||
                strcmp(param_s(r, "kernel"), "priority") != 0)
                continue;
            char why[300], file[160];
            gb__clean_text(r->reason, why, sizeof why, false);
            gb__clean_text(gb__base_name(R->paths[f]), file, sizeof file, false);
            find(c, "The priority case was skipped in %s: %s.", file, why);
            said++;
        }
}

void gb__chart_concurrency(struct rep *R, const struct gb__chart_kind *k)
{
    static const char id[] = "cloud_overlap",
                      title[] = "Sharing and serving: many queues in one process",
                      what[] = "Overlap (aggregate rate on n queues over the same kernel's rate on "
                               "one queue; dashed: n, the bound) against the number of in-order "
                               "queues (streams) of one device, one line per kernel (triad: "
                               "memory-bound; chain: compute-bound; tick: tiny launches). The "
                               "findings give each line's aggregate rate, its spread across "
                               "queues (slowest and fastest queue) and Jain's fairness index at "
                               "the most queues, and the priority case's latencies.";
    struct suite_filter sf = {.suites = k->suites};
    struct sel s = gb__select(R, throughput_fn, &sf, SIZE_MAX);
    struct chart *c = gb__chart_new(R, id, title, what);
    struct axes *a = calloc(1, sizeof *a);
    struct line *l = NULL;
    size_t n = 0, dropped = 0;
    if (!c || !a)
        goto out;
    if (s.n == 0) {
        gb__chart_nodata(R, c, "no concurrency results with a rate in these files");
        priority_findings(R, c, k);
        goto out;
    }
    gb__scan_axes(&s, a);
    n = gb__build_lines(R, &s, a, "queues", overlap_of, &l, &dropped);
    bool any = false;
    for (size_t i = 0; l && i < n; i++)
        any |= l[i].n > 0;
    if (!any) {
        gb__chart_nodata(R, c,
                         "the concurrency results have no overlap (derived against the "
                         "same case on one queue: run queues 1 too)");
        priority_findings(R, c, k);
        goto out;
    }
    gb__write_lines(R, c, l, n, "queues", "overlap (aggregate / one queue)", false, NULL, 0, NULL,
                    "x with lines dt 2 lc rgb '#999999' notitle");
    for (size_t i = 0; i < n; i++) {
        if (!l[i].n)
            continue;
        const struct gb_result *r = l[i].r[l[i].n - 1];
        char line[600];
        snprintf(line, sizeof line, "%s: on %.0f queues %.3g %s in aggregate, overlap %.3g",
                 l[i].label, l[i].x[l[i].n - 1], r->value, r->unit, l[i].y[l[i].n - 1]);
        const double lo = plain(r, "queue_rate_min"), hi = plain(r, "queue_rate_max"),
                     j = plain(r, "fairness");
        if (isfinite(lo) && isfinite(hi))
            gb_appendf(line, sizeof line, ", each queue %.3g to %.3g %s", lo, hi, r->unit);
        if (isfinite(j) && j > 0 && j <= 1)
            gb_appendf(line, sizeof line, ", fairness %.3f", j);
        find(c, "%s.", line);
    }
    dropped_finding(c, dropped);
    priority_findings(R, c, k);
out:
    gb__free_lines(l, l ? n : 0);
    free(a);
    free(s.p);
}

/* ---- tenants: the slowdown matrix ------------------------------------------------------------ */

#define TEN_ROWS 16
#define TEN_COLS 8

static bool tenants_fn(const struct gb_result *r, const void *arg)
{
    const struct suite_filter *f = arg;
    return gb__in_list(r->suite, f->suites) && strcmp(param_s(r, "aggressor"), "none") != 0 &&
           gb_result_scalar(r, "slowdown") > 0;
}

/* The index of text in names[0..*n), added when there is room; -1 when full. */
static int slot(char (*names)[GB_STR_MAX], size_t *n, size_t cap, const char *text)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(names[i], text) == 0)
            return (int)i;
    if (*n == cap)
        return -1;
    gb__scopy(names[*n], GB_STR_MAX, text);
    return (int)(*n)++;
}

/* One heat map of series ser: rows victims (with whatever else varies), columns aggressors. */
static bool tenants_map(struct rep *R, const struct sel *s, const struct axes *a, size_t ser,
                        size_t number)
{
    static const char *const skip[] = {"aggressor", "tenant", NULL};
    char rows[TEN_ROWS][GB_STR_MAX], cols[TEN_COLS][GB_STR_MAX];
    size_t nr = 0, nc = 0, left_out = 0;
    double v[TEN_ROWS * TEN_COLS];
    const struct gb_result *cell[TEN_ROWS * TEN_COLS] = {0};
    for (size_t q = 0; q < TEN_ROWS * TEN_COLS; q++)
        v[q] = NAN;
    for (size_t i = 0; i < s->n; i++) {
        if (s->p[i]->s != ser)
            continue;
        const struct gb_result *r = s->p[i]->r;
        char row[GB_STR_MAX], col[GB_STR_MAX];
        gb__point_label(r, a, true, skip, row, sizeof row);
        gb__clean(param_s(r, "aggressor"), col, sizeof col);
        const int y = slot(rows, &nr, TEN_ROWS, row), x = slot(cols, &nc, TEN_COLS, col);
        if (y < 0 || x < 0) {
            left_out++;
            continue;
        }
        const size_t q = (size_t)y * TEN_COLS + (size_t)x;
        const double sd = gb_result_scalar(r, "slowdown");
        if (isnan(v[q]) || sd < v[q]) { /* the best of repeats */
            v[q] = sd;
            cell[q] = r;
        }
    }
    if (!nr)
        return false;
    /* gb__write_heatmap takes nx columns per row: pack the rows. */
    double packed[TEN_ROWS * TEN_COLS];
    const char *xs[TEN_COLS], *ys[TEN_ROWS];
    for (size_t y = 0; y < nr; y++) {
        ys[y] = rows[y];
        for (size_t x = 0; x < nc; x++)
            packed[y * nc + x] = v[y * TEN_COLS + x];
    }
    for (size_t x = 0; x < nc; x++)
        xs[x] = cols[x];
    char id[32], title[300];
    snprintf(id, sizeof id, "cloud_tenants_%zu", number);
    snprintf(title, sizeof title, "Noisy neighbours on %.40s%s", R->ser[ser].label,
             strlen(R->ser[ser].label) > 40 ? "..." : "");
    struct chart *c = gb__chart_new(
        R, id, title,
        "Each cell is the victim process's slowdown beside the column's aggressor processes on "
        "the same device (its figure beside them over alone: 1 unharmed, 2 half speed; the "
        "victim's share is 1/slowdown): triad victims by their bandwidth, gemm victims by "
        "their per-run p99 latency of fixed-rate small GEMMs. Each tenant checked its own "
        "output. The findings name each victim's worst neighbour and how the device was "
        "shared, as the driver reported it.");
    if (!c)
        return true;
    gb__write_heatmap(R, c, "aggressor", "victim", xs, nc, ys, nr, packed, "slowdown");
    for (size_t y = 0; y < nr; y++) {
        size_t worst = SIZE_MAX;
        for (size_t x = 0; x < nc; x++)
            if (!isnan(v[y * TEN_COLS + x]) &&
                (worst == SIZE_MAX || v[y * TEN_COLS + x] > v[y * TEN_COLS + worst]))
                worst = x;
        if (worst == SIZE_MAX)
            continue;
        const struct gb_result *r = cell[y * TEN_COLS + worst];
        char line[700];
        snprintf(line, sizeof line, "%s: worst beside %s, slowdown %.3g (%.3g %s)", rows[y],
                 cols[worst], v[y * TEN_COLS + worst], r->value, r->unit);
        const double alive = plain(r, "aggressors_alive"), rate = plain(r, "aggressor_rate");
        const struct gb_figure *rf = gb_result_figure_get(r, "aggressor_rate");
        char unit[sizeof rf->unit + 1] = "";
        if (rf)
            gb__clean_text(rf->unit, unit, sizeof unit, false);
        if (isfinite(rate))
            gb_appendf(line, sizeof line, "; the aggressors did %.3g %s", rate, unit);
        if (isfinite(alive))
            gb_appendf(line, sizeof line, ", %.0f alive at the end", alive);
        find(c, "%s.", line);
    }
    const struct gb_result *any = NULL;
    for (size_t q = 0; q < TEN_ROWS * TEN_COLS && !any; q++)
        any = cell[q];
    char sharing[80] = "";
    if (any)
        text_of(any, "sharing", sharing, sizeof sharing);
    if (sharing[0])
        find(c, "The device's sharing mode, as read (never set): %s.", sharing);
    if (left_out)
        find(c,
             "%zu more results are in the files but not drawn (at most %d victims and %d "
             "aggressors).",
             left_out, TEN_ROWS, TEN_COLS);
    return true;
}

void gb__chart_tenants(struct rep *R, const struct gb__chart_kind *k)
{
    static const char what[] = "The tenants suite's slowdown matrix: victim processes beside "
                               "aggressor processes on one device.";
    struct suite_filter sf = {.suites = k->suites};
    struct sel s = gb__select(R, tenants_fn, &sf, SIZE_MAX);
    struct axes *a = calloc(1, sizeof *a);
    size_t drawn = 0;
    if (s.n && a) {
        gb__scan_axes(&s, a);
        for (size_t ser = 0; ser < R->nser && drawn < MAX_HEATMAPS; ser++)
            drawn += tenants_map(R, &s, a, ser, drawn);
    }
    if (!drawn)
        gb__chart_absent(R, "cloud_tenants", "Sharing and serving: the noisy neighbour", what,
                         "no tenants results with a slowdown in these files (the victim alone, "
                         "aggressor none, is what a slowdown is measured against)");
    free(a);
    free(s.p);
}

/* ---- startup: stages stacked ----------------------------------------------------------------- */

#define ST_BARS 32

static bool startup_fn(const struct gb_result *r, const void *arg)
{
    const struct suite_filter *f = arg;
    return gb__in_list(r->suite, f->suites) && isfinite(r->value) && r->value > 0;
}

void gb__chart_startup(struct rep *R, const struct gb__chart_kind *k)
{
    /* The stages in the order a process goes through them (suites/startup.c). */
    static const char *const stages[] = {"process", "init", "open", "build", "blas", "first"};
    enum { NST = sizeof stages / sizeof stages[0] };
    static const char what[] =
        "Time to a useful worker: fresh processes timed stage by stage, the median of each stage "
        "(ms) stacked per case and device: process (fork, exec, the loader), init (the "
        "backend's libraries and devices), open (context and queue), build (a kernel from "
        "source), blas (the first small GEMM: the library loaded and its kernels built), first "
        "(allocate, write, launch, read back, check). cold: every compiler cache the backend "
        "names points at a new empty directory; warm: at one a previous process filled. The "
        "sum of the stages' medians is not the median of the sums, which the findings give "
        "with its tail.";
    struct suite_filter sf = {.suites = k->suites};
    struct sel s = gb__select(R, startup_fn, &sf, SIZE_MAX);
    struct axes *a = calloc(1, sizeof *a);
    char(*labels)[GB_STR_MAX * 2] = calloc(ST_BARS, sizeof *labels);
    const char *lp[ST_BARS];
    double v[ST_BARS * NST];
    const struct gb_result *bar[ST_BARS];
    size_t n = 0;
    if (!s.n || !a || !labels) {
        gb__chart_absent(R, "cloud_startup", "Sharing and serving: time to a useful worker", what,
                         "no startup results in these files");
        goto out;
    }
    gb__scan_axes(&s, a);
    for (size_t i = 0; i < s.n && n < ST_BARS; i++) {
        const struct gb_result *r = s.p[i]->r;
        char named[GB_STR_MAX], pl[GB_STR_MAX];
        gb__param_named(r, true, 96, named, sizeof named); /* "cache=cold blas=off" */
        gb__clean(named, pl, sizeof pl);
        if (R->nser > 1)
            snprintf(labels[n], sizeof labels[n], "%s: %s", R->ser[s.p[i]->s].label, pl);
        else
            gb__scopy(labels[n], sizeof labels[n], pl);
        lp[n] = labels[n];
        bar[n] = r;
        for (size_t st = 0; st < NST; st++) {
            char name[32];
            snprintf(name, sizeof name, "%s_p50_ms", stages[st]);
            v[n * NST + st] = plain(r, name);
        }
        n++;
    }
    struct chart *c =
        gb__chart_new(R, "cloud_startup", "Sharing and serving: time to a useful worker", what);
    if (!c)
        goto out;
    gb__write_stacked(R, c, lp, n, stages, NST, v, "ms (median per stage)");
    for (size_t i = 0; i < n; i++) {
        const struct gb_result *r = bar[i];
        size_t big = 0;
        for (size_t st = 1; st < NST; st++)
            if (v[i * NST + st] > v[i * NST + big] || isnan(v[i * NST + big]))
                big = st;
        char line[700];
        snprintf(line, sizeof line,
                 "%s: %.3g ms to the first verified result (median of %zu "
                 "processes)",
                 lp[i], r->value, r->stats.n);
        const double p99 = plain(r, "total_p99_ms"), p90 = plain(r, "total_p90_ms");
        if (isfinite(p99))
            gb_appendf(line, sizeof line, ", p99 %.3g ms", p99);
        else if (isfinite(p90))
            gb_appendf(line, sizeof line, ", p90 %.3g ms", p90);
        if (isfinite(v[i * NST + big]))
            gb_appendf(line, sizeof line, "; the longest stage %s, %.3g ms", stages[big],
                       v[i * NST + big]);
        find(c, "%s.", line);
    }
    if (s.n > n)
        find(c, "%zu more results are in the files but not drawn (at most %d bars).", s.n - n,
             ST_BARS);
out:
    free(labels);
    free(a);
    free(s.p);
}

/* ---- serve: the tail against offered load ---------------------------------------------------- */

/* The Server scenario at a given load (the default: the scenario param absent or "Server", no
 * find_peak): what the lines draw against load. The other scenarios (and find_peak's runs) are
 * said in findings: their load is no offered rate. */
static bool serve_server(const struct gb_result *r)
{
    const char *sc = gb_params_str(&r->params, "scenario");
    return (!sc[0] || strcmp(sc, "Server") == 0) && !gb_params_bool(&r->params, "find_peak");
}

/* A case whose queue kept up: its headline is a latency (us). An overloaded one's is what it
 * served (requests/s), and its latencies are no steady-state tail: not drawn, said below. */
static bool serve_fn(const struct gb_result *r, const void *arg)
{
    const struct suite_filter *f = arg;
    return gb__in_list(r->suite, f->suites) && serve_server(r) && strcmp(r->unit, "us") == 0 &&
           isfinite(r->value) && r->value > 0;
}

static bool serve_overloaded_fn(const struct gb_result *r, const void *arg)
{
    const struct suite_filter *f = arg;
    return gb__in_list(r->suite, f->suites) && serve_server(r) && strcmp(r->unit, "1/s") == 0 &&
           strcmp(r->metric, "throughput") == 0 && isfinite(r->value) && r->value > 0;
}

static bool serve_scenario_fn(const struct gb_result *r, const void *arg)
{
    const struct suite_filter *f = arg;
    return gb__in_list(r->suite, f->suites) && !serve_server(r) && isfinite(r->value) &&
           r->value > 0;
}

/* One finding per run of another scenario than Server at a load: its figure of merit (LoadGen's
 * per scenario), its early-stopping estimate, Periodic's deadline and jitter, find_peak's rate,
 * and its verdict. */
static void serve_scenario_findings(struct rep *R, struct chart *c, const struct sel *sc)
{
    for (size_t i = 0; i < sc->n && i < 24; i++) {
        const struct gb_result *r = sc->p[i]->r;
        char label[160], scen[64], verdict[80], line[700];
        gb__clean(r->case_name, label, sizeof label);
        gb__clean_text(gb_params_str(&r->params, "scenario"), scen, sizeof scen, false);
        text_of(r, "verdict", verdict, sizeof verdict);
        const bool peak = gb_params_bool(&r->params, "find_peak");
        snprintf(line, sizeof line, "%s, %s, %s", R->ser[sc->p[i]->s].label, label,
                 peak      ? "Server (find_peak)"
                 : scen[0] ? scen
                           : "Server");
        const double p90 = plain(r, "p90_us"), p99 = plain(r, "p99_us"),
                     e90 = plain(r, "es_p90_us"), e99 = plain(r, "es_p99_us");
        if (strcmp(r->unit, "1/s") == 0)
            gb_appendf(line, sizeof line, ": %.4g samples/s served", r->value);
        else if (isfinite(p90) && strcmp(scen, "SingleStream") == 0)
            gb_appendf(line, sizeof line, ": p90 %.4g us", p90);
        else if (isfinite(p99))
            gb_appendf(line, sizeof line, ": p99 %.4g us", p99);
        if (isfinite(e90))
            gb_appendf(line, sizeof line, ", early-stopping p90 %.4g us", e90);
        if (isfinite(e99))
            gb_appendf(line, sizeof line, ", early-stopping p99 %.4g us", e99);
        const double fps = plain(r, "fps"), dl = plain(r, "deadline_us"),
                     miss = plain(r, "deadline_misses"), rate = plain(r, "deadline_miss_rate"),
                     jsd = plain(r, "jitter_sd_us"), jp = plain(r, "jitter_p99_us");
        if (isfinite(fps) && isfinite(dl) && isfinite(miss) && isfinite(rate))
            gb_appendf(line, sizeof line, "; at %.4g Hz, %.0f deadlines (%.4g us) missed (%.3g%%)",
                       fps, miss, dl, 100 * rate);
        if (isfinite(jsd) && isfinite(jp))
            gb_appendf(line, sizeof line, ", jitter sd %.4g us, p99 %.4g us", jsd, jp);
        const double pk = plain(r, "peak_rps");
        const struct gb_value *slo = gb_params_get(&r->params, "slo_us");
        if (peak && isfinite(pk))
            gb_appendf(line, sizeof line,
                       "; the largest rate with p99 under %.4g us: %.4g "
                       "requests/s (bisection)",
                       slo && is_num(slo) ? gb__num(slo) : NAN, pk);
        else if (peak)
            gb_appendf(line, sizeof line, "; no rate searched kept p99 under the bound");
        if (verdict[0])
            gb_appendf(line, sizeof line, "; %s", verdict);
        find(c, "%s.", line);
    }
}

/* The p99 over every request of the kept traces (what max_rps_under_slo judges); a case with
 * fewer than 100 requests has none and is drawn by its headline, each trace's p99. */
static double pooled_p99(const struct gb_result *r)
{
    const double v = gb_result_scalar(r, "p99_us");
    return v > 0 ? v : r->value;
}

void gb__chart_serve(struct rep *R, const struct gb__chart_kind *k)
{
    static const char id[] = "cloud_serve",
                      title[] = "Sharing and serving: tail latency under offered load",
                      what[] =
                          "p99 latency (us, log: over every request of the kept traces, "
                          "p99_us) of requests served through a dynamic batcher against the "
                          "offered load (a fraction of the capacity with full batches, "
                          "measured once per layer and batch limit), one line per batch "
                          "limit, wait and layer; dotted: the SLO (slo_us) where the lines "
                          "share one. A request's latency runs from its arrival (Poisson) to "
                          "its batch's outputs on the host: queueing included. The findings "
                          "give each line's offered rates and the largest rate served with "
                          "the p99 under the SLO (max_rps_under_slo), the knee and the verdict "
                          "(LoadGen's); other scenarios are findings.";
    struct suite_filter sf = {.suites = k->suites};
    struct sel s = gb__select(R, serve_fn, &sf, SIZE_MAX);
    struct sel over = gb__select(R, serve_overloaded_fn, &sf, SIZE_MAX);
    struct sel scen = gb__select(R, serve_scenario_fn, &sf, SIZE_MAX);
    struct chart *c = gb__chart_new(R, id, title, what);
    struct axes *a = calloc(1, sizeof *a);
    struct line *l = NULL;
    size_t n = 0, dropped = 0;
    if (!c || !a)
        goto out;
    /* Overloaded loads first: they are no point of a line. */
    for (size_t i = 0; i < over.n && i < 24; i++) {
        const struct gb_result *r = over.p[i]->r;
        char label[160];
        gb__clean(r->case_name, label, sizeof label);
        const struct gb_value *load = gb_params_get(&r->params, "load");
        const double off = plain(r, "offered_rps"), drop = plain(r, "dropped");
        char line[400];
        snprintf(
            line, sizeof line, "%s, %s, batch %lld, load %.3g: overloaded, %.3g requests/s served",
            R->ser[over.p[i]->s].label, label, (long long)gb_params_int(&r->params, "max_batch"),
            load && is_num(load) ? gb__num(load) : NAN, r->value);
        if (isfinite(off))
            gb_appendf(line, sizeof line, " of %.3g offered", off);
        if (isfinite(drop) && drop > 0)
            gb_appendf(line, sizeof line, ", %.0f dropped at the full queue", drop);
        find(c, "%s: its latencies grow with the trace, no steady-state tail (not drawn).", line);
    }
    serve_scenario_findings(R, c, &scen);
    if (s.n == 0) {
        gb__chart_nodata(R, c,
                         over.n   ? "every serve result in these files is overloaded (no "
                                    "steady-state tail to draw)"
                         : scen.n ? "no Server-scenario sweep over load in these files (the "
                                    "other scenarios are in the findings)"
                                  : "no serve results in these files");
        goto out;
    }
    gb__scan_axes(&s, a);
    if (!(n = lines_along(R, c, &s, a, "serve", "load", pooled_p99, &l, &dropped)))
        goto out;
    /* The SLO as a dotted line when every case has the same (a number, never text). */
    double slo_all = NAN;
    bool one_slo = true;
    for (size_t i = 0; i < s.n && one_slo; i++) {
        const struct gb_value *v = gb_params_get(&s.p[i]->r->params, "slo_us");
        const double x = v && is_num(v) ? gb__num(v) : NAN;
        one_slo = x > 0 && isfinite(x) && (isnan(slo_all) || x == slo_all);
        slo_all = x;
    }
    char slo_plot[96] = "";
    if (one_slo)
        snprintf(slo_plot, sizeof slo_plot, "%.9g with lines dt 3 lc rgb '#777777' title 'SLO'",
                 slo_all);
    gb__write_lines(R, c, l, n, "offered load (fraction of capacity)", "p99 latency, us (log)",
                    false, NULL, 0, "set logscale y 10\nset yrange [*:*]\n",
                    one_slo ? slo_plot : NULL);
    for (size_t i = 0; i < n; i++) {
        if (!l[i].n)
            continue;
        const struct gb_result *lo = l[i].r[0], *hi = l[i].r[l[i].n - 1];
        char line[700], rate_lo[48] = "", rate_hi[48] = "";
        const double off_lo = plain(lo, "offered_rps"), off_hi = plain(hi, "offered_rps"),
                     mb = plain(lo, "mean_batch");
        /* A figure a file lacks (or holds as nonsense) is left out, never printed as nan. */
        if (isfinite(off_lo))
            snprintf(rate_lo, sizeof rate_lo, " (%.3g requests/s offered", off_lo);
        if (isfinite(off_lo) && isfinite(mb) && mb >= 1)
            gb_appendf(rate_lo, sizeof rate_lo, ", mean batch %.3g", mb);
        if (isfinite(off_lo))
            gb_appendf(rate_lo, sizeof rate_lo, ")");
        if (isfinite(off_hi))
            snprintf(rate_hi, sizeof rate_hi, " (%.3g requests/s)", off_hi);
        snprintf(line, sizeof line, "%s: p99 %.3g us at load %.3g%s to %.3g us at %.3g%s",
                 l[i].label, l[i].y[0], l[i].x[0], rate_lo, l[i].y[l[i].n - 1], l[i].x[l[i].n - 1],
                 rate_hi);
        const double best = plain(hi, "max_rps_under_slo");
        const struct gb_value *slo = gb_params_get(&hi->params, "slo_us");
        char none[80];
        text_of(hi, "max_rps_under_slo", none, sizeof none);
        if (isfinite(best))
            gb_appendf(line, sizeof line, "; at most %.3g requests/s served with p99 under %.3g us",
                       best, slo && is_num(slo) ? gb__num(slo) : NAN);
        else if (none[0])
            gb_appendf(line, sizeof line, "; under the SLO: %s", none);
        /* The serve suite's derive: the smallest load whose p99 is over GB_SERVE_KNEE_K (2)
         * times the lowest load's. */
        const double knee = plain(hi, "knee_load");
        if (isfinite(knee))
            gb_appendf(line, sizeof line,
                       "; the knee (p99 over twice the lowest load's) at load %.3g", knee);
        char verdict[80];
        text_of(hi, "verdict", verdict, sizeof verdict);
        if (verdict[0])
            gb_appendf(line, sizeof line, "; at load %.3g: %s", l[i].x[l[i].n - 1], verdict);
        find(c, "%s.", line);
    }
    dropped_finding(c, dropped);
out:
    gb__free_lines(l, l ? n : 0);
    free(a);
    free(s.p);
    free(over.p);
    free(scen.p);
}

/* ---- llm: goodput and the latencies against the arrival rate ---------------------------------- */

/* A case with Poisson arrivals (rate > 0): a point of a line. Rate 0 (every request at once)
 * has no load to draw against: said in the findings. */
static bool llm_rate_fn(const struct gb_result *r, const void *arg)
{
    const struct suite_filter *f = arg;
    const struct gb_value *rate = gb_params_get(&r->params, "rate");
    return gb__in_list(r->suite, f->suites) && rate && is_num(rate) && gb__num(rate) > 0 &&
           isfinite(r->value) && r->value > 0;
}

static bool llm_burst_fn(const struct gb_result *r, const void *arg)
{
    const struct suite_filter *f = arg;
    const struct gb_value *rate = gb_params_get(&r->params, "rate");
    return gb__in_list(r->suite, f->suites) && !(rate && is_num(rate) && gb__num(rate) > 0) &&
           isfinite(r->value) && r->value > 0;
}

static double llm_goodput(const struct gb_result *r)
{
    return plain(r, "goodput_rps");
}

static double llm_ttft99(const struct gb_result *r)
{
    const double v = plain(r, "ttft_p99_ms");
    return v > 0 ? v : NAN;
}

/* "TTFT p50/p99 a/b ms, TPOT p50/p99 c/d ms", the figures a result holds. */
static void llm_latencies(const struct gb_result *r, char *buf, size_t len)
{
    buf[0] = '\0';
    static const char *const what[] = {"ttft", "tpot", "itl"};
    static const char *const name[] = {"TTFT", "TPOT", "ITL"};
    for (int i = 0; i < 3; i++) {
        char a[32], b[32];
        snprintf(a, sizeof a, "%s_p50_ms", what[i]);
        snprintf(b, sizeof b, "%s_p99_ms", what[i]);
        const double p50 = plain(r, a), p99 = plain(r, b);
        if (isfinite(p50) && isfinite(p99))
            gb_appendf(buf, len, "%s%s p50/p99 %.3g/%.3g ms", buf[0] ? ", " : "", name[i], p50,
                       p99);
    }
}

static double llm_tok_s(const struct gb_result *r)
{
    return r->value > 0 ? r->value : NAN;
}

/* The all-at-once cases (rate 0): output tokens/s against the batch limit, their latencies and
 * KV cache in the findings. */
static void llm_burst_chart(struct rep *R, const struct sel *s)
{
    static const char id[] = "cloud_llm_batch",
                      title[] = "Serving an LLM: output tokens/s against the batch limit",
                      what[] = "Output tokens/s (the median of each trace's: its tokens over its "
                               "duration) of requests that all arrive at once, against the most "
                               "sequences decoded together (max_batch: KV-cache slots), one line "
                               "per model and lengths; the findings give each point's TTFT, "
                               "TPOT and inter-token latency at p50 and p99 and its KV cache at "
                               "its peak.";
    struct chart *c = gb__chart_new(R, id, title, what);
    struct axes *a = calloc(1, sizeof *a);
    struct line *l = NULL;
    size_t n = 0, dropped = 0;
    if (!c || !a)
        goto out;
    if (s->n == 0) {
        gb__chart_nodata(R, c, "no llm results with every request at once (rate 0) in these files");
        goto out;
    }
    gb__scan_axes(s, a);
    if (!(n = lines_along(R, c, s, a, "llm", "max_batch", llm_tok_s, &l, &dropped)))
        goto out;
    gb__write_lines(R, c, l, n, "batch limit (max_batch)", "output tokens/s", false, NULL, 0, NULL,
                    NULL);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < l[i].n; j++) {
            const struct gb_result *r = l[i].r[j];
            char lat[300];
            llm_latencies(r, lat, sizeof lat);
            find(c,
                 "%s, batch %.0f, %lld requests at once: %.4g output tokens/s; %s; KV cache "
                 "peak %.4g B.",
                 l[i].label, l[i].x[j], (long long)gb_params_int(&r->params, "requests"), l[i].y[j],
                 lat, plain(r, "kv_peak_bytes"));
        }
    dropped_finding(c, dropped);
out:
    gb__free_lines(l, l ? n : 0);
    free(a);
}

void gb__chart_llm(struct rep *R, const struct gb__chart_kind *k)
{
    static const char gid[] = "cloud_llm_goodput",
                      gtitle[] = "Serving an LLM: goodput against the arrival rate",
                      gwhat[] = "Requests/s that met both SLOs (time to first token within "
                                "slo_ttft, time per output token within slo_tpot; vLLM's "
                                "benchmark_serving goodput) against the Poisson arrival rate, one "
                                "line per model, batch limit and lengths. The findings give each "
                                "point's TTFT, TPOT and inter-token latency at p50 and p99 and "
                                "its output tokens/s.",
                      tid[] = "cloud_llm_ttft",
                      ttitle[] = "Serving an LLM: time to first token against the arrival rate",
                      twhat[] = "p99 time to first token (ms, log: from a request's arrival to "
                                "its first output token, queueing and its prefill included) "
                                "against the Poisson arrival rate, one line per model, batch "
                                "limit and lengths.";
    struct suite_filter sf = {.suites = k->suites};
    struct sel s = gb__select(R, llm_rate_fn, &sf, SIZE_MAX);
    struct sel burst = gb__select(R, llm_burst_fn, &sf, SIZE_MAX);
    struct chart *c = gb__chart_new(R, gid, gtitle, gwhat);
    struct axes *a = calloc(1, sizeof *a);
    struct line *l = NULL;
    size_t n = 0, dropped = 0;
    if (!c || !a)
        goto out;
    if (s.n == 0) {
        const char *why = "no llm results with Poisson arrivals (rate > 0) in these files";
        gb__chart_nodata(R, c, why);
        if ((c = gb__chart_new(R, tid, ttitle, twhat)))
            gb__chart_nodata(R, c, why);
        goto out;
    }
    gb__scan_axes(&s, a);
    if (!(n = lines_along(R, c, &s, a, "llm", "rate", llm_goodput, &l, &dropped)))
        goto out;
    gb__write_lines(R, c, l, n, "arrival rate, requests/s", "goodput, requests/s", false, NULL, 0,
                    NULL, NULL);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < l[i].n; j++) {
            char lat[300];
            llm_latencies(l[i].r[j], lat, sizeof lat);
            find(c, "%s, rate %.3g: goodput %.3g requests/s, %.4g output tokens/s; %s.", l[i].label,
                 l[i].x[j], l[i].y[j], l[i].r[j]->value, lat);
        }
    dropped_finding(c, dropped);
    gb__free_lines(l, n);
    l = NULL;
    n = 0;
    /* The second chart: the TTFT tail along the same lines. */
    c = gb__chart_new(R, tid, ttitle, twhat);
    if (!c)
        goto out;
    if (!(n = lines_along(R, c, &s, a, "llm", "rate", llm_ttft99, &l, &dropped)))
        goto out;
    gb__write_lines(R, c, l, n, "arrival rate, requests/s", "TTFT p99, ms (log)", false, NULL, 0,
                    "set logscale y 10\nset yrange [*:*]\n", NULL);
out:
    gb__free_lines(l, l ? n : 0);
    free(a);
    llm_burst_chart(R, &burst);
    free(s.p);
    free(burst.p);
}
