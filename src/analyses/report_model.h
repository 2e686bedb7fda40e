/* gpubench — the report's insides, shared by the report files of src/analyses and src/outputs (not a public header).
 *
 * The pipeline (report.c drives it): every ok result of every file becomes a point of one series
 * (a device of a file: model.c); each chart kind of the registry (charts.c, one chart_*.c file per
 * suite family) selects its points by suite, case and unit, groups them by the params that vary
 * (model.c), and writes data/ID.csv and plots/ID.gp (gnuplot.c); gnuplot draws charts/ID.svg and
 * charts/ID.png (gnuplot.c); index.html and report.md are written last, around the charts gnuplot
 * actually drew (pages.c).
 *
 * Text from a results file (device names, hosts, file names, suites, cases, params, units) is
 * whatever a file says: it reaches a gnuplot script only through gb__gp_quote, a CSV file only
 * through gb__csv_field, the HTML page only through gb_fputs_xml and the Markdown only through
 * gb_fputs_md.
 */
#ifndef GB_REPORT_MODEL_H
#define GB_REPORT_MODEL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/util.h"
#include "results/results.h"
#include "analyses/prices.h"

struct gb_report_opts; /* outputs/report.h: what the pages and charts are drawn with */

#define MAXSER 16      /* devices side by side; more are left out with a note */
#define MAXAX 24       /* distinct param names in one selection */
#define MAXLINES 12    /* lines in one line chart */
#define MAXDISTINCT 64 /* distinct values of one axis we track */
#define MAX_HEATMAPS 8 /* tuning heat maps (the rest are in the data) */

/* ---- the model ----------------------------------------------------------------------------- */

struct series {
    size_t file;
    int dev;         /* index into files[file].devices */
    char label[160]; /* legend text, unique among the series; cleaned (gb__clean) */
    const struct gb_price *price;
};

struct pt {
    size_t s;                  /* series */
    const struct gb_result *r; /* an ok result */
};

struct chart {
    char id[64];         /* [a-z0-9_] only (gb__chart_new): a file name and an HTML id */
    char title[200];     /* cleaned: no quotes, backslashes or control characters */
    char what[700];      /* what the chart shows and how to read it */
    char nodata[400];    /* non-empty: drawn as "no data" for this reason */
    char findings[4096]; /* sentences, one per line */
    bool failed;
    char error[700];
    int w, h;
};

struct rep {
    const struct gb_results *files;
    const char *const *paths;
    size_t nfiles;
    struct series ser[MAXSER];
    size_t nser, dropped_series;
    struct pt *pts;
    size_t npts;
    const struct gb_report_opts *o;
    const struct gb_prices *prices; /* o->prices: the model's own copy (NULL: none) */
    struct chart *ch;
    size_t nch, capch;
    int err; /* first write error */
};

/* A selection of points (p malloc'd; NULL with n == 0 when memory ran out). */
struct sel {
    const struct pt **p;
    size_t n;
};

/* The params seen in a selection and which of them vary. */
struct axes {
    size_t n;
    char name[MAXAX][32];
    bool numeric[MAXAX];
    size_t distinct[MAXAX];
    char values[MAXAX][MAXDISTINCT][GB_STR_MAX]; /* text of the distinct values, first seen */
    double num[MAXAX][MAXDISTINCT];
    bool case_varies;
};

/* A category of a bar chart: the best value per series. */
struct cat {
    char label[160];
    double v[MAXSER];
    const struct gb_result *best[MAXSER];
};

/* A line of an x-y chart, kept sorted by x; one point per x, the best. */
struct line {
    char label[240];
    size_t s;
    size_t n, cap;
    double *x, *y; /* sorted by x, one point per x (unless unordered) */
    const struct gb_result **r;
    bool unordered; /* a NaN x came: x is no longer sorted (line_add, model.c) */
    /* The error bar of each point: NULL, the p5 and p95 of its samples; else from y to the
     * point's result's scalar figure of this name (a latency's "p99_us"; a string literal). */
    const char *bar_to;
    /* Or, where both are given (malloc'd, n each, freed by gb__free_lines), each point's error
     * bar from lo[k] to hi[k] (the burn chart: the slowest and fastest window a point stands
     * for). */
    double *lo, *hi;
};

/* An extra labelled point of a line chart (the knee). */
struct mark {
    double x, y;
    char text[64];
    size_t line;
};

/* Which results a chart or a headline figure reads. */
struct suite_filter {
    const char *const *suites; /* NULL-terminated; NULL: any */
    const char *case_name;     /* NULL: any */
    const char *unit;          /* NULL: any; "FLOP": units containing FLOP/s or OP/s */
    bool need_flops;           /* flops_per_op and bytes_per_op > 0 */
    const char *prec;          /* NULL: any; else the result's param "prec" must be this */
    const char *mode;          /* NULL: any; else the result's param "mode" must be this (a
                                * transfer's async batch or waited-for copy) ... */
    bool mode_or_none;         /* ... or be absent (files from before the axis: async) */
    bool cache_ok;             /* aggregates (gb__best_in) take cache-regime results too: the
                                * small-copy peak, not the sustained rate */
    bool no_cache;             /* only results not in the cache regime (device memory) */
    bool op_time;              /* aggregates take the time per operation (us) of the smallest
                                * operation (fewest bytes_per_op; ties: the lowest time), not
                                * the value: a copy's latency */
    bool steady;               /* only results under a steady load: none whose param "pulse" is
                                * nonzero (a burn's power-pulse phase, whose rate is not the
                                * sustained one) */
};

/* ---- small helpers (model.c) --------------------------------------------------------------- */

static inline bool is_num(const struct gb_value *v)
{
    return v->type == GB_V_SIZE || v->type == GB_V_INT || v->type == GB_V_FLOAT;
}

/* A param's value as a number (NAN for a string). */
double gb__num(const struct gb_value *v);

static inline bool higher_better(const struct gb_result *r)
{
    return r->better != GB_BETTER_LOWER;
}

/* Whether a is a better figure than b for r's metric (NAN is never better). */
static inline bool better(const struct gb_result *r, double a, double b)
{
    if (isnan(a))
        return false;
    if (isnan(b))
        return true;
    return higher_better(r) ? a > b : a < b;
}

/* Text with quotes, backslashes, control characters, the '>' of "]]>" (and, with csv, commas)
 * replaced by harmless look-alikes (' / space ) ;): the labels of series and categories, which stand in CSV
 * fields, legends and pages alike. */
void gb__clean_text(const char *s, char *buf, size_t len, bool csv);
#define gb__clean(s, buf, len) gb__clean_text((s), (buf), (len), true)

/* Copies src into dst[len], cut short when it does not fit. */
void gb__scopy(char *dst, size_t len, const char *src);
/* A figure for a table: "-" for NAN, else 3 significant digits or none after the point. */
void gb__fmt_val(double v, char *buf, size_t len);
/* An axis value: a size ("4 MiB") on a size axis, else %g. */
void gb__fmt_x(double x, bool size_axis, char *buf, size_t len);
const char *gb__base_name(const char *path);
/* The values of r's params (its case left out, and the param named skip), space-separated;
 * appending stops once buf holds stop_at characters or more. */
void gb__param_values(const struct gb_result *r, const char *skip, size_t stop_at, char *buf,
                      size_t len);
/* As gb__param_values, each value with its axis name ("size=64 MiB wg=256"); the case's own
 * param (gb_result_case_param) included when with_case. */
void gb__param_named(const struct gb_result *r, bool with_case, size_t stop_at, char *buf,
                     size_t len);

/* ---- series, points, selections, grouping (model.c) ---------------------------------------- */

/* Fills R->ser and R->pts from R->files and labels the series. 0 or GB_ENOMEM. */
int gb__build_points(struct rep *R);

typedef bool (*gb__filter_fn)(const struct gb_result *r, const void *arg);
bool gb__in_list(const char *s, const char *const *list);
/* The filter of a struct suite_filter (arg). */
bool gb__suite_filter_fn(const struct gb_result *r, const void *arg);
/* The points passing f, of one series (only_series) or all (SIZE_MAX). */
struct sel gb__select(const struct rep *R, gb__filter_fn f, const void *arg, size_t only_series);
/* Whether s->p[i] is the first point of its case (and, with by_unit, unit) in the selection. */
bool gb__first_of_case(const struct sel *s, size_t i, bool by_unit);
/* Whether r may stand for its quantity in an aggregate (a headline, a roof, a per-price
 * figure): ok, verified and not implausible. */
bool gb__trusted(const struct gb_result *r);
/* The best value among series ser's trusted points (gb__trusted) passing sf, *which its result
 * (NAN, NULL: none); results in the cache regime (gb_result.regime) only with sf->cache_ok. */
double gb__best_in(const struct rep *R, size_t ser, const struct suite_filter *sf,
                   const struct gb_result **which);

/* A point's label: its case (with_case, or when cases vary), then each param that varies in a
 * (numbers as name=value, strings as the value), except those in skip (NULL-terminated, may be
 * NULL); cleaned (gb__clean). The case alone when nothing else varies. */
void gb__point_label(const struct gb_result *r, const struct axes *a, bool with_case,
                     const char *const *skip, char *buf, size_t len);
void gb__scan_axes(const struct sel *s, struct axes *a);
int gb__axis_index(const struct axes *a, const char *name);
/* The x axis of a sweep: the first of prefer that varies and is numeric, else the numeric axis
 * with the most distinct values; -1 when there is none. */
int gb__pick_x(const struct axes *a, const char *const *prefer);

/* Groups the selection into categories by label: its case (when cases vary, or always with
 * with_case) and the string params that vary, except those in skip (NULL-terminated); numeric
 * params are collapsed into the best value. *out is malloc'd (NULL when memory ran out). */
size_t gb__build_cats(const struct sel *s, const struct axes *a, bool with_case,
                      const char *const *skip, struct cat **out);

/* One line per series and label (params that vary, except xname; numeric ones included), the
 * x value from param xname, y from yfn (NULL: the value). At most MAXLINES lines; *dropped says
 * how many more there were. *out is malloc'd (NULL when memory ran out); gb__free_lines. */
typedef double (*gb__yfn)(const struct gb_result *r);
size_t gb__build_lines(const struct rep *R, const struct sel *s, const struct axes *a,
                       const char *xname, gb__yfn yfn, struct line **out, size_t *dropped);
void gb__free_lines(struct line *l, size_t n);
/* The index of the line of series s labelled label among l[0..*n) (room for MAXLINES): a new one
 * (label copied, *n counted) when there is none; MAXLINES, with *dropped counted, when all
 * MAXLINES lines are taken. */
size_t gb__line_of(struct line *l, size_t *n, size_t s, const char *label, size_t *dropped);
/* Puts the point (x, y, r) into l at index at (0..l->n), the points from at on moved up one, l
 * grown as needed. 0, or GB_ENOMEM with the points as they were. */
int gb__line_insert(struct line *l, size_t at, double x, double y, const struct gb_result *r);

/* ---- files, gnuplot scripts and gnuplot (gnuplot.c) ---------------------------------------- */

/* Opens DIR/sub/idext for writing; NULL (and R->err set) when it cannot. */
FILE *gb__open_in(struct rep *R, const char *sub, const char *id, const char *ext);
void gb__close_file(struct rep *R, FILE *f);
/* Writes s as one CSV field: cleaned (gb__clean), so that neither gnuplot nor a spreadsheet
 * reads a separator, a quote or a line break into it. The one way text reaches a CSV file. */
void gb__csv_field(FILE *f, const char *s);
/* Writes s as a gnuplot string expression of single-quoted strings: ' doubled (or, where gnuplot
 * would misread '', joined on as sprintf('%c',39)), control characters as spaces. Inside single
 * quotes gnuplot expands neither backquotes (a shell command) nor macros nor escapes, unlike
 * double quotes. The one way text reaches a gnuplot script. */
void gb__gp_quote(FILE *f, const char *s);

/* A new chart (NULL when memory ran out): id with every character outside [a-z0-9_] as '_',
 * the title cleaned. */
struct chart *gb__chart_new(struct rep *R, const char *id, const char *title, const char *what);
/* A chart with nothing to draw: a data file that says why; the report draws no frame for it
 * (report.c) and the pages list it once (pages.c). */
void gb__chart_nodata(struct rep *R, struct chart *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A new chart that only says why there is no data (the stand-in of a family with none). */
void gb__chart_absent(struct rep *R, const char *id, const char *title, const char *what,
                      const char *why);
/* A line of a chart's findings, the sentences printed under it. */
#define find(c, ...) gb_append_line((c)->findings, sizeof(c)->findings, __VA_ARGS__)

/* The start of plots/ID.gp (terminal, palette, title) and its end (the PNG). */
FILE *gb__gp_open(struct rep *R, struct chart *c);
void gb__gp_close(struct rep *R, struct chart *c, FILE *f);

/* One element of a plot command, after "plot " (first) or a ", \\" line break: "'data/ID.csv'
 * index INDEX using " and fmt's text (columns and style: fixed text and numbers only), then
 * title 'TITLE' (gb__gp_quote), or notitle when title is NULL. */
void gb__gp_item(FILE *f, const struct chart *c, bool first, size_t index, const char *title,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Clustered bars: one cluster per category, one bar per series, the value above each bar. */
void gb__write_bars(struct rep *R, struct chart *c, const struct cat *cats, size_t n,
                    const char *ylabel, bool logy);
/* Lines: x (log 2 when it spans 16x or more; sizes labelled as sizes), one block per line in the
 * data file, each point with the p5 and p95 of its samples drawn as error bars (its spread). marks (may be NULL) are extra labelled points (the knee), one block after the lines.
 * extra_gp: script lines before the plot; extra_plot: a further plot element (both may be NULL;
 * fixed text, never from a results file). */
void gb__write_lines(struct rep *R, struct chart *c, const struct line *l, size_t n,
                     const char *xlabel, const char *ylabel, bool size_axis,
                     const struct mark *marks, size_t nmarks, const char *extra_gp,
                     const char *extra_plot);
/* A heat map: rows y (ny values), columns x (nx values), cells v[y * nx + x] (NAN: none). */
void gb__write_heatmap(struct rep *R, struct chart *c, const char *xlabel, const char *ylabel,
                       const char *const *xs, size_t nx, const char *const *ys, size_t ny,
                       const double *v, const char *cblabel);

/* Stacked bars: one bar per label (n), each the sum of its parts (np, bottom first), part p of
 * bar i v[i * np + p] (NAN or negative: none, drawn as 0), the total above each bar. Labels are
 * cleaned (gb__csv_field), part names quoted (gb__gp_quote). */
void gb__write_stacked(struct rep *R, struct chart *c, const char *const *labels, size_t n,
                       const char *const *parts, size_t np, const double *v, const char *ylabel);
/* Runs gnuplot on plots/ID.gp in the report folder; on failure marks c failed and says why. */
void gb__run_gnuplot(struct rep *R, struct chart *c);

/* ---- the chart registry (charts.c) and the charts (chart_*.c) ------------------------------ */

struct gb__chart_kind;
typedef void (*gb__chart_fn)(struct rep *R, const struct gb__chart_kind *k);

/* A bar chart of the best value per category (case and the string params that vary) and
 * series: a chart that is only data (gb__chart_bars draws it). */
struct gb__bars {
    const char *id, *title, *what;
    const char *unit; /* the results' unit (as in struct suite_filter); NULL: any */
    const char *ylabel;
    const char *nodata;      /* why there is no data, when no result is selected */
    const char *noun;        /* "kernel": each series' best category ("best kernel triad");
                                NULL: each series' figure in every category */
    const char *const *skip; /* axes to take the best over (NULL-terminated), or NULL */
    bool no_cache;           /* leave out cache-regime results (a device-memory chart) */
};

/* A kind of chart: the suites whose results it draws and its builder. */
struct gb__chart_kind {
    const char *const *suites; /* NULL-terminated; NULL for charts that draw no one suite */
    const char *const *also;   /* a second family where a chart joins two (roofline's peaks) */
    gb__chart_fn build;
    const struct gb__bars *bars; /* for build == gb__chart_bars */
};

/* Draws every chart of the registry, in the report's order. */
void gb__draw_charts(struct rep *R);

/* A headline figure: the best result of a filter. by_prec: one figure per precision (the
 * param "prec", hence one unit: GFLOP/s or GOP/s), never the best across precisions
 * (gb__precisions). */
struct gb__figure {
    const char *label;
    struct suite_filter sf;
    bool by_prec;
};

/* The distinct values of param "prec" among the trusted points passing sf, first seen first,
 * at most cap of them (each GB_STR_MAX characters). */
size_t gb__precisions(const struct rep *R, const struct suite_filter *sf, char (*out)[GB_STR_MAX],
                      size_t cap);
/* The headline table's figures (pages.c) and the figures divided by price and power
 * (chart_value.c). */
/* Rows of figure tables (gb__headline_figures, the value chart's): a transfer's sustained or
 * peak rate, a case's figure in a unit, or a figure per precision. */
#define XFER(label, op, cache)                                                                 \
    {                                                                                          \
        label, {.suites = transfer, .case_name = op, .unit = "GB/s", .cache_ok = cache}, false \
    }
#define FIG(label, fam, op, u)                                    \
    {                                                             \
        label, {.suites = fam, .case_name = op, .unit = u}, false \
    }
#define BY_PREC(label, fam)                          \
    {                                                \
        label, {.suites = fam, .unit = "FLOP"}, true \
    }

extern const struct gb__figure gb__headline_figures[];
extern const size_t gb__nheadline_figures;

/* The bar chart k->bars of k's suites, with a sentence per series and, side by side, each
 * category relative to the first series that has it. */
void gb__chart_bars(struct rep *R, const struct gb__chart_kind *k);
/* Whether a chart of the registry draws `suite`'s results (charts.c). */
bool gb__chart_registered(const char *suite);
/* The charts of the suites that no chart of the registry draws (has_builder false) but whose
 * results files carry a chart hint ("charts"; chart_hint.c). Drawn after the registry's. */
void gb__chart_hints(struct rep *R, bool (*has_builder)(const char *suite));

extern const struct gb__bars gb__memory_bars, gb__launch_bars, gb__gflops_bars;
/* peerbw's aggregate GB/s and 4-byte latency per pattern and method (chart_multi.c). */
extern const struct gb__bars gb__peerbw_bars, gb__peerbw_latency_bars;

void gb__chart_transfer(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_speed_accuracy(struct rep *R, const struct gb__chart_kind *k);
/* chart_ai.c: the AI workloads chart (conv bars, and the AI suites' derived figures as
 * findings: model_s, speedup_vs_bf16, break_even_density). */
void gb__chart_ai(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_alloc(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_pool(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_offsets(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_roofline(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_tuning(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_batching(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_scaling(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_p2p(struct rep *R, const struct gb__chart_kind *k);
/* The parallel suite's steps, stacked: compute, communication, overlapped, overhead or bubble
 * (chart_multi.c). */
void gb__chart_parallel(struct rep *R, const struct gb__chart_kind *k);
/* chart_collective.c: busbw against size per collective and transport (suites collective,
 * mpi_collective, allreduce), with each line's peak and n1/2. */
void gb__chart_collective(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_value(struct rep *R, const struct gb__chart_kind *k);
/* The chip suites (chart_chip.c). */
void gb__chart_latency(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_cache(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_local(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_atomics(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_graphs(struct rep *R, const struct gb__chart_kind *k);
/* Sharing and serving (chart_cloud.c): the concurrency suite's overlap against
 * queues, the tenants suite's slowdown matrix per device, the startup suite's stages stacked and
 * the serve suite's p99 against offered load. */
void gb__chart_concurrency(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_tenants(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_startup(struct rep *R, const struct gb__chart_kind *k);
void gb__chart_serve(struct rep *R, const struct gb__chart_kind *k);
/* The llm suite (chart_cloud.c): goodput and the TTFT p99 against the arrival rate, tokens/s
 * against the batch limit. */
void gb__chart_llm(struct rep *R, const struct gb__chart_kind *k);
/* The burn suite's rate per window against time (chart_burn.c). */
void gb__chart_burn(struct rep *R, const struct gb__chart_kind *k);
/* The most points of one line of the burn chart, so that its data file is bounded whatever the
 * burn's length (a 48 h burn of 1 s windows has 172,800). */
#define GB_BURN_CHART_POINTS 1000
/* The points of the burn chart's line from n windows of w seconds with rates y[0..n): one per
 * window while n <= max; else the windows in consecutive groups of ceil(n / max) (the last one
 * shorter), a point each: x[p] its last window's end (seconds of load), mean[p] the mean of its
 * rates, lo[p] and hi[p] their least and greatest, so that the slowest and fastest window of the
 * burn stay in the chart. x, mean, lo, hi hold min(n, max) each; returns how many were written
 * (0 when max is 0). */
size_t gb__burn_points(const double *y, size_t n, double w, size_t max, double *x, double *mean,
                       double *lo, double *hi);

/* A level of the memory hierarchy found in a latency curve (gb__latency_levels). */
struct gb__level {
    char name[8];    /* "L1", "L2", ..., "LLC", "memory" */
    double from, to; /* the smallest and largest working set (bytes) of its plateau */
    double value;    /* the plateau's median latency (the curve's unit) */
    size_t points;
};
/* A rise above this ratio starts a new level. */
#define GB_LEVEL_RATIO 1.5

/* The levels of a latency staircase: x the working sets (bytes, ascending), y the latency per
 * load at each (any unit), n points. A plateau ends where a point rises more than
 * GB_LEVEL_RATIO above the lowest point of its plateau; a plateau whose median is within the
 * ratio of the previous one's is noise and joins it; a single point between two plateaus, within
 * the ratio squared of the next, is the riser of a step (a set partly in each level), no level.
 * Names: the last level is "memory" when it starts beyond llc_bytes (the device's last-level
 * cache; 0: unknown, then when there are 3 levels or more), the others L1, L2, ... in order, the
 * last of 3 or more caches "LLC". The method is lmbench's reading of lat_mem_rd (McVoy and
 * Staelin, 1996). Writes at most max levels to out and returns how many; 0 for n == 0 or when
 * memory runs out. Pure. */
size_t gb__latency_levels(const double *x, const double *y, size_t n, double llc_bytes,
                          struct gb__level *out, size_t max);
/* The levels of series ser's latency curve (pattern random, else any; the line with the most
 * points) as text, "L1 1.2 ns up to 32 KiB, ..., memory 90 ns from 64 MiB"; "" when it has
 * none. */
void gb__latency_levels_of(const struct rep *R, size_t ser, char *buf, size_t len);

/* ---- the pages (pages.c) ------------------------------------------------------------------- */

/* Writes index.html, report.md and data/headline.csv. */
void gb__write_pages(struct rep *R, const char *title);

#endif
