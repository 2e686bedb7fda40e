/* gpubench — the chart registry (contract in model.h): which charts the report draws, in which
 * order, from which suites' results; and the figures of the headline table.
 *
 * The suites are named here and nowhere else in the report: a chart builder (chart_*.c) reads
 * the suites of its row. A new suite's chart is one builder in one small file and one row in
 * `kinds` below; a suite whose results fit an existing chart is one name in a list.
 */
#include "analyses/report_model.h"
#include "outputs/report.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the suite families -------------------------------------------------------------------- */

static const char *const transfer[] = {"transfer", NULL};
static const char *const memory[] = {"memory", NULL};
/* Device-memory bandwidth per kernel: fp16's conversion kernels are drawn beside memory's. */
static const char *const memory_kernels[] = {"memory", "fp16", NULL};
static const char *const launch[] = {"launch", NULL};
/* Arithmetic throughput: peak arithmetic, matrix multiply, half precision. */
static const char *const arithmetic[] = {"compute", "gemm", "fp16", NULL};
/* The headlines take arithmetic on the vector units (the compute suite's dependent chains) and
 * matrix products (GEMM, library and own) as rows of their own: a GEMM's rate is not the
 * vector units' peak, nor the other way round. */
static const char *const vector_units[] = {"compute", NULL};
static const char *const matrix[] = {"gemm", NULL};
static const char *const tuning[] = {"tuning", NULL};
static const char *const batching[] = {"batching", NULL};
/* Multi-device suites: scaling curves come from those with an `ndev` axis, the peer matrix from
 * those with two device-position axes ("multi" is accepted for files of an older layout). */
static const char *const scaling[] = {"scaling", "aggregate", "multi", NULL};
static const char *const peer[] = {"peer", "multi", NULL};
/* The parallel suite's training steps, broken into their parts. */
static const char *const parallel[] = {"parallel", NULL};
/* nvbandwidth's patterns: bars per pattern and method, not a matrix (ce and sm would merge). */
static const char *const peerbw[] = {"peerbw", NULL};
/* The collectives: ours, gpubench-mpi's and the older all-reduce suites, busbw against size. */
static const char *const collective[] = {"collective", "mpi_collective", "allreduce",
                                         "mpi_allreduce", NULL};
/* The chip: the memory hierarchy, local memory, atomics. */
static const char *const latency[] = {"latency", NULL};
static const char *const cache[] = {"cache", NULL};
static const char *const local[] = {"local", NULL};
static const char *const atomics[] = {"atomics", NULL};
/* The AI workloads: convolution drawn, the AI suites' derived figures (gemm's presets and int8,
 * sparse's break-even) in its findings; sparse's own curves are drawn from its chart hint. */
static const char *const ai[] = {"conv", NULL};
/* Memory management: allocation cost, the pool's payoff, and bandwidth against offset (the
 * offset axis of the transfer and memory suites). */
static const char *const alloc[] = {"alloc", NULL};
static const char *const pool[] = {"pool", NULL};
static const char *const offsets[] = {"transfer", "memory", NULL};
/* Sharing and serving: many queues, many processes, cold start, tail latency under load. */
static const char *const concurrency[] = {"concurrency", NULL};
static const char *const tenants[] = {"tenants", NULL};
static const char *const startup[] = {"startup", NULL};
static const char *const serve[] = {"serve", NULL};
static const char *const llm[] = {"llm", NULL};
/* Stress: the burn's rate over time. */
static const char *const burn[] = {"burn", NULL};

/* ---- the charts, in the report's order ----------------------------------------------------- */

static const struct gb__chart_kind kinds[] = {
    {transfer, NULL, gb__chart_transfer, NULL},
    {memory_kernels, NULL, gb__chart_bars, &gb__memory_bars},
    {launch, NULL, gb__chart_bars, &gb__launch_bars},
    {arithmetic, NULL, gb__chart_bars, &gb__gflops_bars},
    {arithmetic, NULL, gb__chart_speed_accuracy, NULL},
    {memory, arithmetic, gb__chart_roofline, NULL}, /* the memory roof, the arithmetic roof */
    {ai, NULL, gb__chart_ai, NULL},
    {alloc, NULL, gb__chart_alloc, NULL},
    {pool, NULL, gb__chart_pool, NULL},
    {offsets, NULL, gb__chart_offsets, NULL},
    {concurrency, NULL, gb__chart_concurrency, NULL},
    {tenants, NULL, gb__chart_tenants, NULL},
    {startup, NULL, gb__chart_startup, NULL},
    {serve, NULL, gb__chart_serve, NULL},
    {llm, NULL, gb__chart_llm, NULL},
    {burn, NULL, gb__chart_burn, NULL},
    {tuning, NULL, gb__chart_tuning, NULL},
    {batching, NULL, gb__chart_batching, NULL},
    {batching, NULL, gb__chart_graphs, NULL}, /* mode graph beside separate and fused */
    {latency, NULL, gb__chart_latency, NULL},
    {cache, NULL, gb__chart_cache, NULL},
    {local, NULL, gb__chart_local, NULL},
    {atomics, NULL, gb__chart_atomics, NULL},
    {scaling, NULL, gb__chart_scaling, NULL},
    {peer, NULL, gb__chart_p2p, NULL},
    {parallel, NULL, gb__chart_parallel, NULL},
    {peerbw, NULL, gb__chart_bars, &gb__peerbw_bars},
    {peerbw, NULL, gb__chart_bars, &gb__peerbw_latency_bars},
    {collective, NULL, gb__chart_collective, NULL},
    {NULL, NULL, gb__chart_value, NULL}, /* the figures of gb__value_figures per price and watt */
};

bool gb__chart_registered(const char *suite)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        for (size_t j = 0; kinds[i].suites && kinds[i].suites[j]; j++)
            if (strcmp(kinds[i].suites[j], suite) == 0)
                return true;
    return false;
}

void gb__draw_charts(struct rep *R)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        kinds[i].build(R, &kinds[i]);
}

/* ---- the headline figures ------------------------------------------------------------------ */

/* Transfers: the sustained rate (memory regime: copies larger than the last-level cache), and,
 * as their own rows, the small-copy peak (any size, caches included) and the latency. */
const struct gb__figure gb__headline_figures[] = {
    XFER("H2D sustained", "h2d", false),
    XFER("D2H sustained", "d2h", false),
    XFER("D2D sustained", "d2d", false),
    XFER("Bidirectional sustained", "bidir", false),
    XFER("H2D small-copy peak", "h2d", true),
    XFER("D2H small-copy peak", "d2h", true),
    /* A copy's time, two ways: each copy of an async batch enqueued back to back (the queue
     * overlaps them: the launch cost it hides), and one copy waited for (what an application
     * that waits sees). Neither is the other. */
    {"H2D time per copy, async batch (smallest copy)",
     {.suites = transfer,
      .case_name = "h2d",
      .unit = "GB/s",
      .cache_ok = true,
      .op_time = true,
      .mode = "async",
      .mode_or_none = true},
     false},
    {"H2D latency, one copy waited for (smallest copy)",
     {.suites = transfer,
      .case_name = "h2d",
      .unit = "GB/s",
      .cache_ok = true,
      .op_time = true,
      .mode = "sync"},
     false},
    FIG("Device memory, triad", memory, "triad", "GB/s"),
    FIG("Device memory, copy", memory, "copy", "GB/s"),
    FIG("Launch latency", launch, "latency", NULL),
    BY_PREC("Peak arithmetic (vector units)", vector_units),
    BY_PREC("GEMM", matrix),
    /* The workloads' own answers, where a file has them: a collective's bus bandwidth (its best
     * size), a decoder's output tokens/s, a burn's sustained f32 rate. */
    FIG("All-reduce bus bandwidth (best size)", collective, "allreduce", "GB/s"),
    FIG("LLM serving, output tokens/s", llm, NULL, "tok/s"),
    /* The steady load only: a power-pulse phase's windows idle half the time, so its rate is
     * not what the device sustains (and its best window may even run cooler, faster). */
    {"Burn, f32 sustained",
     {.suites = burn, .case_name = "f32", .unit = "FLOP", .steady = true},
     false},
};
const size_t gb__nheadline_figures = sizeof gb__headline_figures / sizeof gb__headline_figures[0];

/* ---- the bar charts that are only data (gb__memory_bars, ...) ------------------------------ */

/* The sentence of one series under a bar chart: its best category (noun given), else every
 * category's figure. */
static void bars_finding(struct rep *R, struct chart *c, const struct cat *cats, size_t n,
                         size_t ser, const char *noun)
{
    if (noun) {
        const struct cat *best = NULL;
        for (size_t k = 0; k < n; k++)
            if (cats[k].best[ser] &&
                (!best || better(cats[k].best[ser], cats[k].v[ser], best->v[ser])))
                best = &cats[k];
        if (best)
            find(c, "%s: best %s %s at %.3g %s.", R->ser[ser].label, noun, best->label,
                 best->v[ser], best->best[ser]->unit);
        return;
    }
    /* Categories of different meaning (latency, throughput): each one. */
    char line[1024] = "";
    for (size_t k = 0; k < n && k < 12; k++)
        if (cats[k].best[ser])
            gb_appendf(line, sizeof line, "%s%s %.3g %s", line[0] ? ", " : "", cats[k].label,
                       cats[k].v[ser], cats[k].best[ser]->unit);
    if (line[0])
        find(c, "%s: %s.", R->ser[ser].label, line);
}

/* Side by side: a category relative to the first series that has it. */
static void bars_relative(struct rep *R, struct chart *c, const struct cat *k)
{
    size_t ref = SIZE_MAX;
    char line[1024] = "";
    for (size_t ser = 0; ser < R->nser; ser++) {
        if (!k->best[ser])
            continue;
        if (ref == SIZE_MAX) {
            ref = ser;
            continue;
        }
        double ratio = higher_better(k->best[ser]) ? k->v[ser] / k->v[ref] : k->v[ref] / k->v[ser];
        gb_appendf(line, sizeof line, "%s%s %.2fx", line[0] ? ", " : "", R->ser[ser].label, ratio);
    }
    if (line[0])
        find(c, "%s, speed relative to %s (above 1: faster): %s.", k->label, R->ser[ref].label,
             line);
}

void gb__chart_bars(struct rep *R, const struct gb__chart_kind *k)
{
    const struct gb__bars *b = k->bars;
    struct chart *c = gb__chart_new(R, b->id, b->title, b->what);
    if (!c)
        return;
    struct suite_filter sf = {.suites = k->suites, .unit = b->unit, .no_cache = b->no_cache};
    struct sel s = gb__select(R, gb__suite_filter_fn, &sf, SIZE_MAX);
    struct axes a;
    struct cat *cats = NULL;
    if (s.n == 0) {
        gb__chart_nodata(R, c, "%s", b->nodata);
        goto out;
    }
    gb__scan_axes(&s, &a);
    size_t n = gb__build_cats(&s, &a, true, b->skip, &cats);
    if (!cats)
        goto out;
    gb__write_bars(R, c, cats, n, b->ylabel, false);
    for (size_t ser = 0; ser < R->nser; ser++)
        bars_finding(R, c, cats, n, ser, b->noun);
    if (R->nser > 1)
        for (size_t q = 0; q < n && q < 6; q++)
            bars_relative(R, c, &cats[q]);
out:
    free(cats);
    free(s.p);
}
