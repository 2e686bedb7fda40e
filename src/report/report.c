/* gpubench — the report (contract in report.h).
 *
 * The pipeline: every ok result of every file becomes a point of one series (a device of a
 * file); each chart selects its points by suite, case and unit, groups them by the params that
 * vary, writes data/ID.csv and plots/ID.gp, and gnuplot draws charts/ID.svg and charts/ID.png.
 * index.html and report.md are written last, around the charts gnuplot actually drew.
 */
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "gb-config.h"
#include "harness/suite.h"
#include "base/units.h"
#include "base/util.h"

#define MAXSER 16       /* devices side by side; more are left out with a note */
#define MAXAX 24        /* distinct param names in one selection */
#define MAXLINES 12     /* lines in one line chart */
#define MAXDISTINCT 64  /* distinct values of one axis we track */
#define MAX_HEATMAPS 8  /* tuning heat maps (the rest are in the data) */

/* ---- the model ----------------------------------------------------------------------------- */

struct series {
    size_t file;
    int dev;                    /* index into files[file].devices */
    char label[160];            /* legend text, unique among the series */
    const struct gb_price *price;
};

struct pt {
    size_t s;                   /* series */
    const struct gb_result *r;  /* an ok result */
};

struct chart {
    char id[64];
    char title[200];
    char what[700];             /* what the chart shows and how to read it */
    char nodata[400];           /* non-empty: drawn as "no data" for this reason */
    char findings[4096];        /* sentences, one per line */
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
    struct chart *ch;
    size_t nch, capch;
    int err;                    /* first write error */
};

/* A selection of points. */
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

/* ---- small helpers ------------------------------------------------------------------------- */

static bool is_num(const struct gb_value *v)
{
    return v->type == GB_V_SIZE || v->type == GB_V_INT || v->type == GB_V_FLOAT;
}

static double num(const struct gb_value *v)
{
    switch (v->type) {
    case GB_V_SIZE:
        return (double)v->u.size;
    case GB_V_INT:
        return (double)v->u.i;
    case GB_V_FLOAT:
        return v->u.f;
    case GB_V_BOOL:
        return v->u.b;
    default:
        return NAN;
    }
}

static bool higher_better(const struct gb_result *r)
{
    return r->better != GB_BETTER_LOWER;
}

/* Whether a is a better figure than b for r's metric (NAN is never better). */
static bool better(const struct gb_result *r, double a, double b)
{
    if (isnan(a))
        return false;
    if (isnan(b))
        return true;
    return higher_better(r) ? a > b : a < b;
}

/* Text safe inside a gnuplot double-quoted string (and, with csv, a CSV field): quotes,
 * backslashes, control characters (and commas) become harmless look-alikes. */
static void clean_text(const char *s, char *buf, size_t len, bool csv)
{
    size_t l = 0;
    for (; *s && l + 1 < len; s++) {
        char c = *s;
        if (c == '"')
            c = '\'';
        else if (c == '\\')
            c = '/';
        else if (c == ',' && csv)
            c = ';';
        else if ((unsigned char)c < 0x20)
            c = ' ';
        buf[l++] = c;
    }
    buf[l] = '\0';
}

static void clean(const char *s, char *buf, size_t len)
{
    clean_text(s, buf, len, true);
}

/* Copies src into dst[len], cut short when it does not fit. */
static void scopy(char *dst, size_t len, const char *src)
{
    if (!len)
        return;
    size_t l = strnlen(src, len - 1);
    memmove(dst, src, l);
    dst[l] = '\0';
}

static void fmt_val(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (fabs(v) >= 100)
        snprintf(buf, len, "%.0f", v);
    else if (fabs(v) >= 10)
        snprintf(buf, len, "%.1f", v);
    else
        snprintf(buf, len, "%.3g", v);
}

static void fmt_x(double x, bool size_axis, char *buf, size_t len)
{
    if (size_axis && x >= 1 && x == floor(x))
        gb_format_size((uint64_t)x, buf, len);
    else
        snprintf(buf, len, "%g", x);
}

static FILE *open_in(struct rep *R, const char *sub, const char *id, const char *ext)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s%s%s%s", R->o->dir, sub, *sub ? "/" : "", id, ext);
    FILE *f = fopen(path, "w");
    if (!f && !R->err)
        R->err = gb_error_set(GB_EIO, NULL, 0, "cannot write %s: %s", path, strerror(errno));
    return f;
}

static void close_file(struct rep *R, FILE *f)
{
    if (!f)
        return;
    if ((ferror(f) | fclose(f)) && !R->err)
        R->err = gb_error_set(GB_EIO, NULL, 0, "writing the report in %s failed", R->o->dir);
}

/* ---- series and points --------------------------------------------------------------------- */

static size_t series_of(struct rep *R, size_t file, int dev)
{
    for (size_t s = 0; s < R->nser; s++)
        if (R->ser[s].file == file && R->ser[s].dev == dev)
            return s;
    if (R->nser == MAXSER) {
        R->dropped_series++;
        return SIZE_MAX;
    }
    struct series *x = &R->ser[R->nser];
    x->file = file;
    x->dev = dev;
    return R->nser++;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Legend labels: the device name (shortened) and backend; then, where two series would read
 * the same, the host; then the run's file; then a number. */
static void label_series(struct rep *R)
{
    for (size_t s = 0; s < R->nser; s++) {
        const struct gb_result_device *d = &R->files[R->ser[s].file].devices[R->ser[s].dev];
        char name[64];
        clean(d->info.name, name, sizeof name);
        if (strlen(d->info.name) > 40)
            snprintf(name + 37, sizeof name - 37, "...");
        snprintf(R->ser[s].label, sizeof R->ser[s].label, "%s (%s)", name, d->backend);
        R->ser[s].price = gb_prices_find(R->o->prices, d->info.name);
    }
    for (int pass = 0; pass < 3; pass++) {
        /* Mark every member of a duplicate group first, then extend all of their labels. */
        bool dup[MAXSER] = {false};
        for (size_t s = 0; s < R->nser; s++)
            for (size_t t = 0; t < R->nser && !dup[s]; t++)
                dup[s] = t != s && strcmp(R->ser[s].label, R->ser[t].label) == 0;
        char extra[MAXSER][200];
        for (size_t s = 0; s < R->nser; s++) {
            const struct gb_results *f = &R->files[R->ser[s].file];
            if (pass == 0)
                clean(f->run.host, extra[s], sizeof extra[s]);
            else if (pass == 1)
                clean(base_name(R->paths[R->ser[s].file]), extra[s], sizeof extra[s]);
            else
                snprintf(extra[s], sizeof extra[s], "#%zu", s + 1);
        }
        /* Only what tells a series from its look-alikes is added: the host when they ran on
         * other hosts, the file when they came from other files. Decided before any label
         * changes, so that every member of a group is treated alike. */
        bool tells[MAXSER] = {false};
        for (size_t s = 0; s < R->nser; s++)
            for (size_t t = 0; t < R->nser && !tells[s]; t++)
                tells[s] = t != s && dup[s] && strcmp(R->ser[s].label, R->ser[t].label) == 0 &&
                           strcmp(extra[s], extra[t]) != 0;
        for (size_t s = 0; s < R->nser; s++)
            if (tells[s])
                gb_appendf(R->ser[s].label, sizeof R->ser[s].label, " %s%s", pass == 0 ? "@" : "",
                           extra[s]);
    }
}

static int build_points(struct rep *R)
{
    size_t total = 0;
    for (size_t f = 0; f < R->nfiles; f++)
        total += R->files[f].nresults;
    R->pts = calloc(total ? total : 1, sizeof *R->pts);
    if (!R->pts)
        return GB_FAIL(GB_ENOMEM, "report points");
    for (size_t f = 0; f < R->nfiles; f++) {
        for (size_t i = 0; i < R->files[f].nresults; i++) {
            const struct gb_result *r = &R->files[f].results[i];
            if (r->device_index < 0 || (size_t)r->device_index >= R->files[f].ndevices)
                continue;
            size_t s = series_of(R, f, r->device_index);
            if (s == SIZE_MAX || r->status != GB_STATUS_OK || !isfinite(r->value))
                continue;
            R->pts[R->npts++] = (struct pt){s, r};
        }
    }
    label_series(R);
    return 0;
}

typedef bool (*filter_fn)(const struct gb_result *r, const void *arg);

static struct sel select_pts(const struct rep *R, filter_fn f, const void *arg, size_t only_series)
{
    struct sel s = {calloc(R->npts ? R->npts : 1, sizeof *s.p), 0};
    if (!s.p)
        return s;
    for (size_t i = 0; i < R->npts; i++)
        if ((only_series == SIZE_MAX || R->pts[i].s == only_series) && f(R->pts[i].r, arg))
            s.p[s.n++] = &R->pts[i];
    return s;
}

static void scan_axes(const struct sel *s, struct axes *a)
{
    memset(a, 0, sizeof *a);
    for (size_t i = 0; i < s->n; i++) {
        const struct gb_result *r = s->p[i]->r;
        if (i > 0 && strcmp(r->case_name, s->p[0]->r->case_name) != 0)
            a->case_varies = true;
        for (size_t k = 1; k < r->params.n; k++) { /* params[0] is the case */
            bool added;
            size_t ax = gb_find_or_add_str(a->name, &a->n, MAXAX, sizeof a->name[0], 0,
                                           sizeof a->name[0], r->params.name[k], &added);
            if (ax == MAXAX)
                continue;
            if (added)
                a->numeric[ax] = is_num(&r->params.v[k]);
            char txt[GB_STR_MAX];
            gb_value_format(&r->params.v[k], txt, sizeof txt);
            size_t d = gb_find_or_add_str(a->values[ax], &a->distinct[ax], MAXDISTINCT,
                                          GB_STR_MAX, 0, GB_STR_MAX, txt, &added);
            if (added)
                a->num[ax][d] = num(&r->params.v[k]);
            a->numeric[ax] &= is_num(&r->params.v[k]);
        }
    }
}

static int axis_index(const struct axes *a, const char *name)
{
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->name[i], name) == 0)
            return (int)i;
    return -1;
}

/* The label of r among the selection: its case (when cases vary, or always with with_case) and
 * the values of the params that vary, except those in `skip` (NULL-terminated) and, with
 * strings_only, the numeric ones (they are collapsed into the best). */
static void point_label(const struct gb_result *r, const struct axes *a, bool with_case,
                        bool strings_only, const char *const *skip, char *buf, size_t len)
{
    buf[0] = '\0';
    if (with_case || a->case_varies)
        gb_appendf(buf, len, "%s", r->case_name);
    for (size_t k = 1; k < r->params.n; k++) {
        int ax = axis_index(a, r->params.name[k]);
        if (ax < 0 || a->distinct[ax] < 2)
            continue;
        if (strings_only && a->numeric[ax])
            continue;
        bool skipped = false;
        for (const char *const *s = skip; s && *s && !skipped; s++)
            skipped = strcmp(*s, r->params.name[k]) == 0;
        if (skipped)
            continue;
        char txt[GB_STR_MAX];
        gb_value_format(&r->params.v[k], txt, sizeof txt);
        if (is_num(&r->params.v[k]))
            gb_appendf(buf, len, "%s%s=%s", buf[0] ? " " : "", r->params.name[k], txt);
        else
            gb_appendf(buf, len, "%s%s", buf[0] ? " " : "", txt);
    }
    if (!buf[0])
        snprintf(buf, len, "%s", r->case_name);
    char tmp[512];
    clean(buf, tmp, sizeof tmp);
    scopy(buf, len, tmp);
}

/* ---- categories (bar charts) --------------------------------------------------------------- */

struct cat {
    char label[160];
    double v[MAXSER];
    const struct gb_result *best[MAXSER];
};

/* Groups the selection by label (numeric params collapsed into the best value). */
static size_t build_cats(const struct sel *s, const struct axes *a, bool with_case,
                         const char *const *skip, struct cat **out)
{
    bool suites_vary = false;
    for (size_t i = 1; i < s->n && !suites_vary; i++)
        suites_vary = strcmp(s->p[i]->r->suite, s->p[0]->r->suite) != 0;
    struct cat *c = calloc(s->n ? s->n : 1, sizeof *c);
    size_t n = 0;
    if (!c) {
        *out = NULL;
        return 0;
    }
    for (size_t i = 0; i < s->n; i++) {
        const struct gb_result *r = s->p[i]->r;
        char label[160], pl[140];
        point_label(r, a, with_case, true, skip, pl, sizeof pl);
        /* Several suites in one chart (memory and fp16): the suite says whose kernel it is. */
        snprintf(label, sizeof label, "%s%s%s", suites_vary ? r->suite : "",
                 suites_vary ? ": " : "", pl);
        /* At most one new category per result, so the s->n allocated always suffice. */
        bool added;
        size_t k = gb_find_or_add_str(c, &n, s->n, sizeof *c, offsetof(struct cat, label),
                                      sizeof c->label, label, &added);
        if (added)
            for (size_t j = 0; j < MAXSER; j++)
                c[k].v[j] = NAN;
        size_t ser = s->p[i]->s;
        if (better(r, r->value, c[k].v[ser])) {
            c[k].v[ser] = r->value;
            c[k].best[ser] = r;
        }
    }
    *out = c;
    return n;
}

/* ---- lines (x-y charts) -------------------------------------------------------------------- */

struct line {
    char label[240];
    size_t s;
    size_t n, cap;
    double *x, *y;
    const struct gb_result **r;
};

static void free_lines(struct line *l, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(l[i].x);
        free(l[i].y);
        free(l[i].r);
    }
    free(l);
}

static int line_add(struct line *l, double x, double y, const struct gb_result *r)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->x[i] == x) {
            if (better(r, y, l->y[i])) {
                l->y[i] = y;
                l->r[i] = r;
            }
            return 0;
        }
    if (l->n == l->cap) {
        size_t nc = l->cap ? 2 * l->cap : 16;
        double *nx = realloc(l->x, nc * sizeof *nx);
        if (!nx)
            return GB_ENOMEM;
        l->x = nx;
        double *ny = realloc(l->y, nc * sizeof *ny);
        if (!ny)
            return GB_ENOMEM;
        l->y = ny;
        const struct gb_result **nr = realloc(l->r, nc * sizeof *nr);
        if (!nr)
            return GB_ENOMEM;
        l->r = nr;
        l->cap = nc;
    }
    /* Kept sorted by x. */
    size_t at = l->n;
    while (at > 0 && l->x[at - 1] > x)
        at--;
    memmove(l->x + at + 1, l->x + at, (l->n - at) * sizeof *l->x);
    memmove(l->y + at + 1, l->y + at, (l->n - at) * sizeof *l->y);
    memmove(l->r + at + 1, l->r + at, (l->n - at) * sizeof *l->r);
    l->x[at] = x;
    l->y[at] = y;
    l->r[at] = r;
    l->n++;
    return 0;
}

/* One line per series and label (params that vary, except xname; numeric ones included), the
 * x value from param xname, y from yfn (NULL: the value). At most MAXLINES lines; *dropped says
 * how many more there were. */
typedef double (*yfn_t)(const struct gb_result *r);

static size_t build_lines(const struct rep *R, const struct sel *s, const struct axes *a,
                          const char *xname, yfn_t yfn, struct line **out, size_t *dropped)
{
    struct line *l = calloc(MAXLINES, sizeof *l);
    size_t n = 0;
    *dropped = 0;
    if (!l) {
        *out = NULL;
        return 0;
    }
    const char *skip[] = {xname, NULL};
    bool suites_vary = false;
    for (size_t i = 1; i < s->n && !suites_vary; i++)
        suites_vary = strcmp(s->p[i]->r->suite, s->p[0]->r->suite) != 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct gb_result *r = s->p[i]->r;
        const struct gb_value *xv = gb_params_get(&r->params, xname);
        if (!xv || !is_num(xv))
            continue;
        char label[240], pl[160], pl0[140];
        point_label(r, a, false, false, skip, pl0, sizeof pl0);
        snprintf(pl, sizeof pl, "%s%s%s", suites_vary ? r->suite : "", suites_vary ? " " : "",
                 pl0);
        bool only_case = !a->case_varies && !suites_vary && strcmp(pl, r->case_name) == 0;
        if (R->nser > 1)
            snprintf(label, sizeof label, "%s%s%s", R->ser[s->p[i]->s].label, only_case ? "" : ": ",
                     only_case ? "" : pl);
        else
            snprintf(label, sizeof label, "%s", pl);
        size_t k = 0;
        while (k < n && !(l[k].s == s->p[i]->s && strcmp(l[k].label, label) == 0))
            k++;
        if (k == n) {
            if (n == MAXLINES) {
                (*dropped)++;
                continue;
            }
            snprintf(l[n].label, sizeof l[n].label, "%s", label);
            l[n].s = s->p[i]->s;
            n++;
        }
        double y = yfn ? yfn(r) : r->value;
        if (isfinite(y))
            line_add(&l[k], num(xv), y, r);
    }
    *out = l;
    return n;
}

/* ---- gnuplot scripts ----------------------------------------------------------------------- */

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
                                      "#393b79", "#637939"};

static struct chart *chart_new(struct rep *R, const char *id, const char *title, const char *what)
{
    struct chart *g = gb_grow(R->ch, &R->capch, R->nch + 1, sizeof *g);
    if (!g)
        return NULL;
    R->ch = g;
    struct chart *c = &R->ch[R->nch++];
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", id);
    clean_text(title, c->title, sizeof c->title, false);
    snprintf(c->what, sizeof c->what, "%s", what);
    c->w = 900;
    c->h = 460;
    return c;
}

static void gp_str(FILE *f, const char *s)
{
    char t[1024];
    clean_text(s, t, sizeof t, false);
    fprintf(f, "\"%s\"", t);
}

static FILE *gp_open(struct rep *R, struct chart *c)
{
    FILE *f = open_in(R, "plots", c->id, ".gp");
    if (!f)
        return NULL;
    fprintf(f,
            "# gpubench report: %s\n"
            "# Draws charts/%s.svg and charts/%s.png from data/%s.csv. Run from the report "
            "folder:\n#   gnuplot plots/%s.gp\n"
            "set encoding utf8\n"
            "set datafile separator ','\n"
            "set terminal svg size %d,%d dynamic font 'Sans,12' name 'gb_%s' background rgb "
            "'white'\n"
            "set termoption noenhanced\n"
            "set output 'charts/%s.svg'\n",
            c->title, c->id, c->id, c->id, c->id, c->w, c->h, c->id, c->id);
    for (size_t i = 0; i < sizeof palette / sizeof palette[0]; i++)
        fprintf(f, "set linetype %zu lc rgb '%s' lw 2 pt %zu ps 0.9\n", i + 1, palette[i],
                (size_t[]){7, 5, 9, 11, 13, 15, 7, 5, 9, 11, 13, 15}[i]);
    fprintf(f, "set style textbox opaque fillcolor rgb 'white' noborder\n"
               "set grid lc rgb '#dddddd'\n"
               "set border lc rgb '#555555'\n"
               "set title ");
    gp_str(f, c->title);
    fprintf(f, " font ',14'\n");
    return f;
}

static void gp_close(struct rep *R, struct chart *c, FILE *f)
{
    if (!f)
        return;
    fprintf(f,
            "set terminal pngcairo size %d,%d font 'Sans,10' background rgb 'white'\n"
            "set termoption noenhanced\n"
            "set output 'charts/%s.png'\n"
            "replot\n"
            "unset output\n",
            c->w, c->h, c->id);
    close_file(R, f);
}

/* A chart with nothing to draw: an empty frame that says why, and a data file that says so. */
static void chart_nodata(struct rep *R, struct chart *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void chart_nodata(struct rep *R, struct chart *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->nodata, sizeof c->nodata, fmt, ap);
    va_end(ap);
    c->h = 200;
    FILE *d = open_in(R, "data", c->id, ".csv");
    if (d)
        fprintf(d, "# no data: %s\n", c->nodata);
    close_file(R, d);
    FILE *f = gp_open(R, c);
    if (!f)
        return;
    fprintf(f, "unset xtics\nunset ytics\nunset grid\nset border 0\nunset key\n"
               "set label 1 ");
    char msg[500];
    snprintf(msg, sizeof msg, "no data: %s", c->nodata);
    gp_str(f, msg);
    fprintf(f, " at graph 0.5, 0.5 center font ',13' textcolor rgb '#777777'\n"
               "plot [0:1][0:1] 2 notitle\n");
    gp_close(R, c, f);
}

/* A line of a chart's findings, the sentences printed under it. */
#define find(c, ...) gb_append_line((c)->findings, sizeof (c)->findings, __VA_ARGS__)

/* Clustered bars: one cluster per category, one bar per series, the value above each bar. */
static void write_bars(struct rep *R, struct chart *c, const struct cat *cats, size_t n,
                       const char *ylabel, bool logy)
{
    /* Only the series with at least one value get a column: gnuplot refuses a histogram
     * column that is all NaN, and a file without this suite has nothing to show here. */
    size_t use[MAXSER], k = 0;
    for (size_t s = 0; s < R->nser; s++) {
        bool any = false;
        for (size_t i = 0; i < n && !any; i++)
            any = isfinite(cats[i].v[s]);
        if (any)
            use[k++] = s;
    }
    if (k == 0) {
        chart_nodata(R, c, "no results file has a value for this chart");
        return;
    }
    FILE *d = open_in(R, "data", c->id, ".csv");
    if (!d)
        return;
    fprintf(d, "# category");
    for (size_t j = 0; j < k; j++)
        fprintf(d, ",%s", R->ser[use[j]].label);
    fprintf(d, "\n");
    for (size_t i = 0; i < n; i++) {
        fprintf(d, "%s", cats[i].label);
        for (size_t j = 0; j < k; j++)
            fprintf(d, ",%.6g", cats[i].v[use[j]]);
        fprintf(d, "\n");
    }
    close_file(R, d);
    c->w = n * k > 24 ? 1200 : 900;
    FILE *f = gp_open(R, c);
    if (!f)
        return;
    fprintf(f,
            "set style data histograms\n"
            "set style histogram clustered gap 1\n"
            "set style fill solid 0.85 border rgb '#333333'\n"
            "set boxwidth 0.9\n"
            "set key outside below\n"
            "set xtics rotate by -25 left nomirror\n"
            "set ylabel ");
    gp_str(f, ylabel);
    fprintf(f, "\n%s\nset offsets 0, 0, graph 0.08, 0\n",
            logy ? "set logscale y" : "set yrange [0:*]");
    fprintf(f, "plot ");
    for (size_t j = 0; j < k; j++) {
        fprintf(f, "%s'data/%s.csv' using %zu%s title ", j ? ", \\\n     " : "", c->id, j + 2,
                j == 0 ? ":xtic(1)" : "");
        gp_str(f, R->ser[use[j]].label);
        fprintf(f, " lt %zu", use[j] % 12 + 1);
    }
    /* Bar j of k in a cluster with gap 1 sits at x + (j - (k-1)/2) / (k + 1). */
    for (size_t j = 0; j < k; j++)
        fprintf(f,
                ", \\\n     'data/%s.csv' using ($0 + (%zu - %g) / %zu.0):%zu:"
                "(column(%zu) == column(%zu) ? sprintf('%%.3g', column(%zu)) : '') "
                "with labels offset 0,0.6 font ',%d' notitle",
                c->id, j, (double)(k - 1) / 2.0, k + 1, j + 2, j + 2, j + 2, j + 2,
                k > 3 ? 8 : 10);
    fprintf(f, "\n");
    gp_close(R, c, f);
}

static bool ratio_axis(const struct line *l, size_t n, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < l[i].n; k++) {
            if (l[i].x[k] < *lo)
                *lo = l[i].x[k];
            if (l[i].x[k] > *hi)
                *hi = l[i].x[k];
        }
    return *lo > 0 && *hi / *lo >= 16;
}

/* Lines: x (log 2 when it spans 16x or more; sizes labelled as sizes), one block per line in
 * the data file. marks (may be NULL) are extra labelled points (the knee), one block after the
 * lines. */
struct mark {
    double x, y;
    char text[64];
    size_t line;
};

static void write_lines(struct rep *R, struct chart *c, const struct line *l, size_t n,
                        const char *xlabel, const char *ylabel, bool size_axis,
                        const struct mark *marks, size_t nmarks, const char *extra_gp,
                        const char *extra_plot)
{
    FILE *d = open_in(R, "data", c->id, ".csv");
    if (!d)
        return;
    fprintf(d, "# x,y,line\n");
    for (size_t i = 0; i < n; i++) {
        if (i)
            fprintf(d, "\n\n");
        for (size_t k = 0; k < l[i].n; k++)
            fprintf(d, "%.9g,%.6g,%s\n", l[i].x[k], l[i].y[k], l[i].label);
    }
    if (nmarks) {
        fprintf(d, "\n\n");
        for (size_t m = 0; m < nmarks; m++)
            fprintf(d, "%.9g,%.6g,%s\n", marks[m].x, marks[m].y, marks[m].text);
    }
    close_file(R, d);
    /* The key sits below the plot: grow the chart with it. */
    c->h = 380 + 18 * (int)(n < 30 ? n : 30);
    FILE *f = gp_open(R, c);
    if (!f)
        return;
    double lo, hi;
    bool logx = ratio_axis(l, n, &lo, &hi);
    fprintf(f, "set key outside below\nset xlabel ");
    gp_str(f, xlabel);
    fprintf(f, "\nset ylabel ");
    gp_str(f, ylabel);
    fprintf(f, "\nset yrange [0:*]\nset offsets graph 0.02, graph 0.02, graph 0.1, 0\n");
    if (logx)
        fprintf(f, "set logscale x 2\n");
    if (size_axis || logx) {
        /* Tics at the measured x values, every other one when there are many. */
        double xs[256];
        size_t nx = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < l[i].n; k++) {
                bool seen = false;
                for (size_t j = 0; j < nx && !seen; j++)
                    seen = xs[j] == l[i].x[k];
                if (!seen && nx < 256)
                    xs[nx++] = l[i].x[k];
            }
        for (size_t a = 1; a < nx; a++)
            for (size_t b = a; b > 0 && xs[b - 1] > xs[b]; b--) {
                double t = xs[b];
                xs[b] = xs[b - 1];
                xs[b - 1] = t;
            }
        size_t step = nx > 14 ? (nx + 13) / 14 : 1;
        fprintf(f, "set xtics (");
        for (size_t j = 0; j < nx; j += step) {
            char t[32];
            fmt_x(xs[j], size_axis, t, sizeof t);
            fprintf(f, "%s\"%s\" %.9g", j ? ", " : "", t, xs[j]);
        }
        fprintf(f, ")\n");
    }
    if (extra_gp)
        fputs(extra_gp, f);
    fprintf(f, "plot ");
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s'data/%s.csv' index %zu using 1:2 with linespoints lt %zu title ",
                i ? ", \\\n     " : "", c->id, i, i % 12 + 1);
        gp_str(f, l[i].label);
    }
    if (nmarks)
        fprintf(f, ", \\\n     'data/%s.csv' index %zu using 1:2:3 with labels point pt 6 ps 2 "
                   "lc rgb '#000000' offset 0,1.2 boxed font ',9' notitle",
                c->id, n);
    if (extra_plot)
        fprintf(f, ", \\\n     %s", extra_plot);
    fprintf(f, "\n");
    gp_close(R, c, f);
}

/* A heat map: rows y (ny values), columns x (nx values), cells v[y * nx + x] (NAN: none). */
static void write_heatmap(struct rep *R, struct chart *c, const char *xlabel, const char *ylabel,
                          const char *const *xs, size_t nx, const char *const *ys, size_t ny,
                          const double *v, const char *cblabel)
{
    FILE *d = open_in(R, "data", c->id, ".csv");
    if (!d)
        return;
    char t[128];
    clean(ylabel, t, sizeof t);
    fprintf(d, "%s \\ ", t);
    clean(xlabel, t, sizeof t);
    fprintf(d, "%s", t);
    for (size_t x = 0; x < nx; x++) {
        clean(xs[x], t, sizeof t);
        fprintf(d, ",%s", t);
    }
    fprintf(d, "\n");
    for (size_t y = 0; y < ny; y++) {
        clean(ys[y], t, sizeof t);
        fprintf(d, "%s", t);
        for (size_t x = 0; x < nx; x++)
            fprintf(d, ",%.6g", v[y * nx + x]);
        fprintf(d, "\n");
    }
    close_file(R, d);
    c->w = nx > 10 ? 1100 : 800;
    c->h = ny > 8 ? 600 : 420;
    FILE *f = gp_open(R, c);
    if (!f)
        return;
    fprintf(f, "unset key\nunset grid\nset xlabel ");
    gp_str(f, xlabel);
    fprintf(f, "\nset ylabel ");
    gp_str(f, ylabel);
    fprintf(f, "\nset cblabel ");
    gp_str(f, cblabel);
    fprintf(f,
            "\nset palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 "
            "'#fde725')\n"
            "set tics nomirror\n"
            "plot 'data/%s.csv' matrix rowheaders columnheaders using 1:2:3 with image, \\\n"
            "     '' matrix rowheaders columnheaders using 1:2:($3 == $3 ? sprintf('%%.3g', $3) : "
            "'') with labels boxed font ',9'\n",
            c->id);
    gp_close(R, c, f);
}

/* ---- the charts ---------------------------------------------------------------------------- */

struct suite_filter {
    const char *const *suites; /* NULL-terminated */
    const char *case_name;     /* NULL: any */
    const char *unit;          /* NULL: any; "FLOP": units containing FLOP/s or OP/s */
    bool need_flops;           /* flops_per_op and bytes_per_op > 0 */
};

static bool in_list(const char *s, const char *const *list)
{
    for (; list && *list; list++)
        if (strcmp(s, *list) == 0)
            return true;
    return false;
}

static bool unit_is_flops(const char *u)
{
    return strstr(u, "FLOP/s") || strstr(u, "OP/s") || strstr(u, "flop/s");
}

static bool suite_filter_fn(const struct gb_result *r, const void *arg)
{
    const struct suite_filter *sf = arg;
    if (sf->suites && !in_list(r->suite, sf->suites))
        return false;
    if (sf->case_name && strcmp(r->case_name, sf->case_name) != 0)
        return false;
    if (sf->unit) {
        if (strcmp(sf->unit, "FLOP") == 0 ? !unit_is_flops(r->unit) : strcmp(r->unit, sf->unit) != 0)
            return false;
    }
    if (sf->need_flops && !(r->flops_per_op > 0 && r->bytes_per_op > 0 && r->op_time_us.median > 0))
        return false;
    return true;
}

static const char *const transfer_suites[] = {"transfer", NULL};
static const char *const memory_suites[] = {"memory", "fp16", NULL};
static const char *const launch_suites[] = {"launch", NULL};
static const char *const compute_suites[] = {"compute", "gemm", "fp16", NULL};
static const char *const tuning_suites[] = {"tuning", NULL};
static const char *const batching_suites[] = {"batching", NULL};
/* Multi-device suites: scaling curves come from those with an `ndev` axis, the peer matrix from
 * those with two device-position axes ("multi" is accepted for files of an older layout). */
static const char *const scaling_suites[] = {"scaling", "aggregate", "multi", NULL};
static const char *const peer_suites[] = {"peer", "multi", NULL};
/* Axes that describe the problem rather than what is compared: the compute chart takes the best
 * over them. */
static const char *const problem_axes[] = {"shape", "size", "elems", "trans", "dist", "tol",
                                           "order", NULL};

static const char *dir_name(const char *op)
{
    if (strcmp(op, "h2d") == 0)
        return "host to device (H2D)";
    if (strcmp(op, "d2h") == 0)
        return "device to host (D2H)";
    if (strcmp(op, "d2d") == 0)
        return "device to device (D2D)";
    if (strcmp(op, "bidir") == 0)
        return "bidirectional (H2D and D2H at once)";
    return op;
}

static void chart_transfer(struct rep *R)
{
    struct suite_filter sf = {transfer_suites, NULL, "GB/s", false};
    struct sel all = select_pts(R, suite_filter_fn, &sf, SIZE_MAX);
    if (all.n == 0) {
        struct chart *c = chart_new(R, "transfer", "Transfer bandwidth against size",
                                    "Host-device copy bandwidth (GB/s, 10^9 B/s) against the size "
                                    "of one copy, per direction and host memory kind.");
        if (c)
            chart_nodata(R, c, "no transfer results in these files");
        free(all.p);
        return;
    }
    /* One chart per direction, in the order the directions first appear. */
    char ops[16][GB_STR_MAX];
    size_t nops = 0;
    for (size_t i = 0; i < all.n && nops < 16; i++) {
        bool seen = false;
        for (size_t k = 0; k < nops && !seen; k++)
            seen = strcmp(ops[k], all.p[i]->r->case_name) == 0;
        if (!seen)
            snprintf(ops[nops++], GB_STR_MAX, "%s", all.p[i]->r->case_name);
    }
    free(all.p);
    for (size_t o = 0; o < nops; o++) {
        struct suite_filter one = {transfer_suites, ops[o], "GB/s", false};
        struct sel s = select_pts(R, suite_filter_fn, &one, SIZE_MAX);
        struct axes a;
        scan_axes(&s, &a);
        char id[64], title[160], what[700];
        snprintf(id, sizeof id, "transfer_%.40s", ops[o]);
        for (char *p = id; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
                *p = '_';
        snprintf(title, sizeof title, "Transfer bandwidth, %.100s", dir_name(ops[o]));
        snprintf(what, sizeof what,
                 "Median bandwidth (GB/s = 10^9 B/s) of one %.40s copy against its size, log axis. "
                 "Each line is one device and host memory kind (pinned: page-locked, pageable: "
                 "ordinary malloc) and mode (async: a batch of non-blocking copies timed on the "
                 "device; sync: each copy waited for, timed on the host). Small copies are "
                 "bound by latency, large ones by the link.",
                 ops[o]);
        struct chart *c = chart_new(R, id, title, what);
        struct line *l;
        size_t dropped;
        size_t n = build_lines(R, &s, &a, "size", NULL, &l, &dropped);
        if (!c || !l) {
            free(s.p);
            free(l);
            continue;
        }
        if (n == 0) {
            chart_nodata(R, c, "the %s results have no size axis", ops[o]);
        } else {
            write_lines(R, c, l, n, "copy size", "GB/s", true, NULL, 0, NULL, NULL);
            /* Findings: per series, the best line's peak and its half-peak size (Hockney's n1/2). */
            for (size_t ser = 0; ser < R->nser; ser++) {
                const struct line *best = NULL;
                double peak = 0, at = 0;
                for (size_t i = 0; i < n; i++) {
                    if (l[i].s != ser)
                        continue;
                    for (size_t k = 0; k < l[i].n; k++)
                        if (l[i].y[k] > peak) {
                            peak = l[i].y[k];
                            at = l[i].x[k];
                            best = &l[i];
                        }
                }
                if (!best)
                    continue;
                double half = NAN;
                for (size_t k = 0; k < best->n && isnan(half); k++)
                    if (best->y[k] >= peak / 2)
                        half = best->x[k];
                char sat[32], shalf[32];
                fmt_x(at, true, sat, sizeof sat);
                fmt_x(half, true, shalf, sizeof shalf);
                char params[200] = "";
                const struct gb_result *pr = NULL;
                for (size_t k = 0; k < best->n; k++)
                    if (best->x[k] == at)
                        pr = best->r[k];
                if (pr)
                    for (size_t k = 1; k < pr->params.n; k++)
                        if (strcmp(pr->params.name[k], "size") != 0) {
                            char t[GB_STR_MAX];
                            gb_value_format(&pr->params.v[k], t, sizeof t);
                            gb_appendf(params, sizeof params, "%s%s", params[0] ? " " : "", t);
                        }
                find(c, "%s: %s peaks at %.3g GB/s with %s copies (%s); half of that from %s "
                        "copies up.",
                     R->ser[ser].label, ops[o], peak, sat, params, shalf);
            }
            if (dropped)
                find(c, "%zu more lines are in the results but not drawn (at most %d per chart).",
                     dropped, MAXLINES);
        }
        free_lines(l, n);
        free(s.p);
    }
}

/* Bars of the best value per category and series, with a sentence per series. */
static void chart_bars_for(struct rep *R, const char *id, const char *title, const char *what,
                           const struct suite_filter *sf, const char *ylabel, const char *nodata,
                           bool with_case, const char *noun, const char *const *skip)
{
    struct chart *c = chart_new(R, id, title, what);
    if (!c)
        return;
    struct sel s = select_pts(R, suite_filter_fn, sf, SIZE_MAX);
    if (s.n == 0) {
        chart_nodata(R, c, "%s", nodata);
        free(s.p);
        return;
    }
    struct axes a;
    scan_axes(&s, &a);
    struct cat *cats;
    size_t n = build_cats(&s, &a, with_case, skip, &cats);
    if (!cats) {
        free(s.p);
        return;
    }
    write_bars(R, c, cats, n, ylabel, false);
    for (size_t ser = 0; ser < R->nser; ser++) {
        if (noun[0]) {
            const struct cat *best = NULL;
            for (size_t k = 0; k < n; k++)
                if (cats[k].best[ser] &&
                    (!best || better(cats[k].best[ser], cats[k].v[ser], best->v[ser])))
                    best = &cats[k];
            if (best)
                find(c, "%s: best %s %s at %.3g %s.", R->ser[ser].label, noun, best->label,
                     best->v[ser], best->best[ser]->unit);
            continue;
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
    /* Side by side: each category relative to the first series that has it. */
    if (R->nser > 1)
        for (size_t k = 0; k < n && k < 6; k++) {
            size_t ref = SIZE_MAX;
            char line[1024] = "";
            for (size_t ser = 0; ser < R->nser; ser++) {
                if (!cats[k].best[ser])
                    continue;
                if (ref == SIZE_MAX) {
                    ref = ser;
                    continue;
                }
                double ratio = higher_better(cats[k].best[ser]) ? cats[k].v[ser] / cats[k].v[ref]
                                                               : cats[k].v[ref] / cats[k].v[ser];
                gb_appendf(line, sizeof line, "%s%s %.2fx", line[0] ? ", " : "", R->ser[ser].label,
                           ratio);
            }
            if (line[0])
                find(c, "%s, speed relative to %s (above 1: faster): %s.", cats[k].label,
                     R->ser[ref].label, line);
        }
    free(cats);
    free(s.p);
}

static void chart_memory(struct rep *R)
{
    struct suite_filter sf = {memory_suites, NULL, "GB/s", false};
    chart_bars_for(R, "memory_bandwidth", "Device-memory bandwidth per kernel",
                   "Median bandwidth (GB/s) of BabelStream's kernels (copy, mul, add, triad, dot) "
                   "on device memory, the best over work-group size and array size, per element "
                   "type. Triad is the usual figure of merit for memory-bound work.",
                   &sf, "GB/s", "no device-memory (memory suite) results in these files", true,
                   "kernel", NULL);
}

static void chart_launch(struct rep *R)
{
    struct suite_filter sf = {launch_suites, NULL, NULL, false};
    chart_bars_for(R, "launch_latency", "Kernel launch latency",
                   "Median microseconds per launch (lower is better): latency is one launch "
                   "waited for; throughput is launches issued back to back. This bounds how "
                   "small a kernel can usefully be.",
                   &sf, "microseconds per launch (lower is better)",
                   "no launch results in these files", true, "", NULL);
}

static void chart_gflops(struct rep *R)
{
    struct suite_filter sf = {compute_suites, NULL, "FLOP", false};
    chart_bars_for(R, "compute_gflops", "Arithmetic throughput per precision",
                   "Best GFLOP/s (10^9 operations per second) per suite, case and precision: peak "
                   "arithmetic (compute), matrix multiply (gemm) and half-precision kernels "
                   "(fp16); the best over sizes. Integer throughput counts operations.",
                   &sf, "GFLOP/s",
                   "no compute, gemm or fp16 throughput results in these files (suites not run, "
                   "or skipped on this device)",
                   true, "", problem_axes);
}

static void chart_speed_accuracy(struct rep *R)
{
    struct chart *c = chart_new(
        R, "speed_accuracy", "Speed and accuracy per precision",
        "Each point is a precision's best throughput (x, GFLOP/s, log axis) against the largest "
        "relative error of its result against the FP64 host reference (y, log axis). Down and "
        "right is better: lower precisions move right and up. An exact result is drawn at 1e-17.");
    if (!c)
        return;
    struct suite_filter sf = {compute_suites, NULL, "FLOP", false};
    struct sel s = select_pts(R, suite_filter_fn, &sf, SIZE_MAX);
    if (s.n == 0) {
        chart_nodata(R, c, "no compute, gemm or fp16 throughput results in these files");
        free(s.p);
        return;
    }
    struct axes a;
    scan_axes(&s, &a);
    struct cat *cats;
    size_t n = build_cats(&s, &a, true, problem_axes, &cats);
    FILE *d = cats ? open_in(R, "data", c->id, ".csv") : NULL;
    if (!d) {
        free(cats);
        free(s.p);
        return;
    }
    fprintf(d, "# gflops,max_error,label (one block per series)\n");
    for (size_t ser = 0; ser < R->nser; ser++) {
        if (ser)
            fprintf(d, "\n\n");
        for (size_t k = 0; k < n; k++)
            if (cats[k].best[ser]) {
                double e = cats[k].best[ser]->max_error;
                fprintf(d, "%.6g,%.6g,%s\n", cats[k].v[ser], e > 1e-17 ? e : 1e-17,
                        cats[k].label);
            }
        fprintf(d, "NaN,NaN,\n"); /* keeps an empty block a block */
    }
    close_file(R, d);
    FILE *f = gp_open(R, c);
    if (f) {
        fprintf(f, "set key outside below\nset logscale x 10\nset logscale y 10\n"
                   "set xlabel 'GFLOP/s (best)'\nset ylabel 'max relative error'\n"
                   "set format y '%%.0e'\nset offsets graph 0.1, graph 0.1, 0, 0\nplot ");
        for (size_t ser = 0; ser < R->nser; ser++) {
            fprintf(f, "%s'data/%s.csv' index %zu using 1:2 with points lt %zu ps 1.6 title ",
                    ser ? ", \\\n     " : "", c->id, ser, ser % 12 + 1);
            gp_str(f, R->ser[ser].label);
            if (ser == 0) /* the same precisions on every device: name them once */
                fprintf(f, ", \\\n     'data/%s.csv' index %zu using 1:2:3 with labels left "
                           "offset 1,0.4 font ',9' notitle",
                        c->id, ser);
        }
        fprintf(f, "\n");
        gp_close(R, c, f);
    }
    for (size_t k = 0; k < n; k++)
        for (size_t ser = 0; ser < R->nser; ser++)
            if (cats[k].best[ser])
                find(c, "%s, %s: %.3g GFLOP/s with max relative error %.2g.", R->ser[ser].label,
                     cats[k].label, cats[k].v[ser], cats[k].best[ser]->max_error);
    free(cats);
    free(s.p);
}

/* The x axis of a sweep: a param named like a count, else the numeric param with the most
 * distinct values. -1 when there is none. */
static int pick_x(const struct axes *a, const char *const *prefer)
{
    for (const char *const *p = prefer; p && *p; p++) {
        int ax = axis_index(a, *p);
        if (ax >= 0 && a->numeric[ax] && a->distinct[ax] > 1)
            return ax;
    }
    int best = -1;
    for (size_t i = 0; i < a->n; i++)
        if (a->numeric[i] && a->distinct[i] > 1 &&
            (best < 0 || a->distinct[i] > a->distinct[best]))
            best = (int)i;
    return best;
}

static void chart_tuning(struct rep *R)
{
    struct suite_filter sf = {tuning_suites, NULL, NULL, false};
    size_t drawn = 0, more = 0;
    for (size_t ser = 0; ser < R->nser; ser++) {
        struct sel s = select_pts(R, suite_filter_fn, &sf, ser);
        /* One heat map per case (kernel) of this series. */
        for (size_t i = 0; i < s.n; i++) {
            bool seen = false;
            for (size_t k = 0; k < i && !seen; k++)
                seen = strcmp(s.p[k]->r->case_name, s.p[i]->r->case_name) == 0;
            if (seen)
                continue;
            if (drawn == MAX_HEATMAPS) {
                more++;
                continue;
            }
            const char *kernel = s.p[i]->r->case_name;
            struct suite_filter one = {tuning_suites, kernel, NULL, false};
            struct sel k1 = select_pts(R, suite_filter_fn, &one, ser);
            struct axes *a = malloc(sizeof *a);
            if (!a) {
                free(k1.p);
                continue;
            }
            scan_axes(&k1, a);
            /* x: the varying axis with the most values (numeric first); y: the next one. */
            int ax = -1, ay = -1;
            for (int pass = 0; pass < 2; pass++)
                for (size_t q = 0; q < a->n; q++) {
                    if (a->distinct[q] < 2 || (pass == 0) != a->numeric[q])
                        continue;
                    if (ax < 0 || a->distinct[q] > a->distinct[ax]) {
                        ay = ax;
                        ax = (int)q;
                    } else if ((int)q != ax && (ay < 0 || a->distinct[q] > a->distinct[ay])) {
                        ay = (int)q;
                    }
                }
            char id[64], title[240];
            snprintf(id, sizeof id, "tuning_%zu", drawn + 1);
            snprintf(title, sizeof title, "Tuning landscape: %s on %s", kernel, R->ser[ser].label);
            struct chart *c = chart_new(
                R, id, title,
                "Each cell is one configuration of the kernel's tunables (work-group / thread-block "
                "shape, tile, vector width, unroll): its median figure, the best over any other "
                "tunables. Configurations that were pruned or failed verification are blank.");
            drawn++;
            if (!c) {
                free(a);
                free(k1.p);
                continue;
            }
            if (ax < 0) {
                chart_nodata(R, c, "the %s results vary no tunable", kernel);
                free(a);
                free(k1.p);
                continue;
            }
            size_t nx = a->distinct[ax], ny = ay >= 0 ? a->distinct[ay] : 1;
            /* Order numeric axes by value. */
            size_t ox[MAXDISTINCT], oy[MAXDISTINCT];
            for (size_t q = 0; q < nx; q++)
                ox[q] = q;
            for (size_t q = 0; q < ny; q++)
                oy[q] = q;
            for (int which = 0; which < 2; which++) {
                int axn = which ? ay : ax;
                size_t *o = which ? oy : ox, cnt = which ? ny : nx;
                if (axn < 0 || !a->numeric[axn])
                    continue;
                for (size_t p = 1; p < cnt; p++)
                    for (size_t q = p; q > 0 && a->num[axn][o[q - 1]] > a->num[axn][o[q]]; q--) {
                        size_t t = o[q];
                        o[q] = o[q - 1];
                        o[q - 1] = t;
                    }
            }
            double *v = malloc(nx * ny * sizeof *v);
            const char *xs[MAXDISTINCT], *ys[MAXDISTINCT];
            if (!v) {
                free(a);
                free(k1.p);
                continue;
            }
            for (size_t q = 0; q < nx * ny; q++)
                v[q] = NAN;
            for (size_t q = 0; q < nx; q++)
                xs[q] = a->values[ax][ox[q]];
            for (size_t q = 0; q < ny; q++)
                ys[q] = ay >= 0 ? a->values[ay][oy[q]] : "";
            const struct gb_result *bestr = NULL;
            for (size_t p = 0; p < k1.n; p++) {
                const struct gb_result *r = k1.p[p]->r;
                char tx[GB_STR_MAX], ty[GB_STR_MAX] = "";
                const struct gb_value *vx = gb_params_get(&r->params, a->name[ax]);
                const struct gb_value *vy = ay >= 0 ? gb_params_get(&r->params, a->name[ay]) : NULL;
                if (!vx || (ay >= 0 && !vy))
                    continue;
                gb_value_format(vx, tx, sizeof tx);
                if (vy)
                    gb_value_format(vy, ty, sizeof ty);
                size_t cx = 0, cy = 0;
                while (cx < nx && strcmp(xs[cx], tx) != 0)
                    cx++;
                while (ay >= 0 && cy < ny && strcmp(ys[cy], ty) != 0)
                    cy++;
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
            write_heatmap(R, c, a->name[ax], ay >= 0 ? a->name[ay] : "", xs, nx, ys, ny, v, cbl);
            if (bestr) {
                char params[512];
                gb_params_format(&bestr->params, params, sizeof params);
                find(c, "Best configuration: %s at %.3g %s.", params, bestr->value, bestr->unit);
            }
            free(v);
            free(a);
            free(k1.p);
        }
        free(s.p);
    }
    if (drawn == 0) {
        struct chart *c = chart_new(R, "tuning", "Tuning landscape",
                                    "Heat maps of a kernel's time over its tunables.");
        if (c)
            chart_nodata(R, c, "no tuning results in these files");
    } else if (more) {
        find(&R->ch[R->nch - 1], "%zu more tuning landscapes are in the results, not drawn.",
             more);
    }
}

/* The knee of a line: the smallest x whose y is within 10%% of the line's best (for a
 * higher-is-better metric y >= 0.9 max; for lower-is-better y <= min / 0.9). This is the
 * definition the batching suite uses for its knee ("the smallest batch that reaches 90% of the
 * asymptotic bandwidth"), with the best measured point standing for the asymptote. */
static bool knee_of(const struct line *l, double *kx, double *ky, double *kbest)
{
    /* Only where more is better (bandwidth, throughput): a time per batch grows with the batch
     * and has no knee in this sense. */
    if (l->n < 2 || !higher_better(l->r[0]))
        return false;
    bool hb = true;
    double best = l->y[0];
    for (size_t k = 1; k < l->n; k++)
        if (hb ? l->y[k] > best : l->y[k] < best)
            best = l->y[k];
    for (size_t k = 0; k < l->n; k++)
        if (hb ? l->y[k] >= 0.9 * best : l->y[k] <= best / 0.9) {
            *kx = l->x[k];
            *ky = l->y[k];
            *kbest = best;
            return true;
        }
    return false;
}

static void chart_batching(struct rep *R)
{
    struct suite_filter sf = {batching_suites, NULL, NULL, false};
    struct sel all = select_pts(R, suite_filter_fn, &sf, SIZE_MAX);
    size_t charts = 0;
    static const char *const prefer[] = {"batch", "count", "n", "nbuf", "buffers", "launches",
                                         NULL};
    for (size_t i = 0; i < all.n; i++) {
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(all.p[k]->r->case_name, all.p[i]->r->case_name) == 0 &&
                   strcmp(all.p[k]->r->unit, all.p[i]->r->unit) == 0;
        if (seen)
            continue;
        const char *kase = all.p[i]->r->case_name, *unit = all.p[i]->r->unit;
        struct suite_filter one = {batching_suites, kase, unit, false};
        struct sel s = select_pts(R, suite_filter_fn, &one, SIZE_MAX);
        struct axes *a = malloc(sizeof *a);
        if (!a) {
            free(s.p);
            continue;
        }
        scan_axes(&s, a);
        int ax = pick_x(a, prefer);
        char id[64], title[200];
        snprintf(id, sizeof id, "batching_%zu", ++charts);
        snprintf(title, sizeof title, "Batching: %s (%s)", kase, unit);
        struct chart *c = chart_new(
            R, id, title,
            "The figure against the batch (how many operations are grouped into one call or "
            "enqueued before one wait), log axis. The circle marks the knee: the smallest batch "
            "within 10% of the best figure measured, beyond which batching buys little.");
        if (!c) {
            free(a);
            free(s.p);
            continue;
        }
        if (ax < 0) {
            chart_nodata(R, c, "the %s results have no numeric batch axis", kase);
            free(a);
            free(s.p);
            continue;
        }
        struct line *l;
        size_t dropped, n = build_lines(R, &s, a, a->name[ax], NULL, &l, &dropped);
        struct mark marks[MAXLINES];
        size_t nm = 0;
        for (size_t k = 0; l && k < n; k++) {
            double kx, ky, kbest;
            if (!knee_of(&l[k], &kx, &ky, &kbest))
                continue;
            marks[nm].x = kx;
            marks[nm].y = ky;
            marks[nm].line = k;
            bool size_axis = gb_params_get(&l[k].r[0]->params, a->name[ax])->type == GB_V_SIZE;
            char tx[32];
            fmt_x(kx, size_axis, tx, sizeof tx);
            snprintf(marks[nm].text, sizeof marks[nm].text, "knee %s", tx);
            find(c, "%s: the knee is at %s=%s (%.3g %s; best %.3g).", l[k].label, a->name[ax],
                 tx, ky, unit, kbest);
            nm++;
        }
        if (l && n) {
            bool size_axis = false;
            for (size_t k = 0; k < s.n && !size_axis; k++) {
                const struct gb_value *v = gb_params_get(&s.p[k]->r->params, a->name[ax]);
                size_axis = v && v->type == GB_V_SIZE;
            }
            write_lines(R, c, l, n, a->name[ax], unit, size_axis, marks, nm, NULL, NULL);
        } else {
            chart_nodata(R, c, "the %s results have no numeric batch axis", kase);
        }
        if (dropped)
            find(c, "%zu more lines are in the results but not drawn.", dropped);
        if (l)
            free_lines(l, n);
        free(a);
        free(s.p);
    }
    free(all.p);
    if (charts == 0) {
        struct chart *c = chart_new(R, "batching", "Batching",
                                    "How much batching transfers, launches and small GEMMs buys.");
        if (c)
            chart_nodata(R, c, "no batching results in these files");
    }
}

/* Speedup of a multi-device result: its own "speedup" figure when it has one (the runner knows
 * strong from weak scaling), else none. */
static double figure_of(const struct gb_result *r, const char *name)
{
    for (size_t i = 0; i < r->nfigures; i++)
        if (strcmp(r->figures[i].name, name) == 0 && r->figures[i].n >= 1 &&
            !r->figures[i].per_device)
            return r->figures[i].v[0];
    return NAN;
}

static bool has_ndev(const struct gb_result *r, const void *arg)
{
    (void)arg;
    const struct gb_value *v = gb_params_get(&r->params, "ndev");
    return in_list(r->suite, scaling_suites) && v && is_num(v);
}

/* The speedup over the same line's ndev = 1 point when the result carries none. */
static void fill_speedups(struct line *l, size_t n, bool efficiency)
{
    for (size_t i = 0; i < n; i++) {
        double one = NAN;
        for (size_t k = 0; k < l[i].n; k++)
            if (l[i].x[k] == 1)
                one = l[i].r[k]->value;
        for (size_t k = 0; k < l[i].n; k++) {
            const struct gb_result *r = l[i].r[k];
            double sp = figure_of(r, "speedup");
            if (isnan(sp) && !isnan(one) && one > 0 && r->value > 0)
                sp = higher_better(r) ? r->value / one : one / r->value;
            double y = sp;
            if (efficiency) {
                double e = figure_of(r, "efficiency");
                y = 100.0 * (isnan(e) ? sp / l[i].x[k] : e);
            }
            l[i].y[k] = y;
        }
    }
}

static void chart_scaling(struct rep *R)
{
    struct sel s = select_pts(R, has_ndev, NULL, SIZE_MAX);
    struct chart *c1 = chart_new(
        R, "scaling", "Multi-device scaling",
        "Speedup over one device against the number of devices taking part (from the runner's "
        "speedup figure: T1/Tn for strong scaling, n T1/Tn for weak scaling). The dashed line is "
        "ideal linear scaling.");
    struct chart *c2 = chart_new(
        R, "efficiency", "Parallel efficiency",
        "Speedup divided by the number of devices, in percent: 100% is perfect scaling; the "
        "shortfall is what synchronisation, transfers and the slowest device cost.");
    if (!c1 || !c2) {
        free(s.p);
        return;
    }
    if (s.n == 0) {
        chart_nodata(R, c1, "no multi-device scaling results (suite multi, axis ndev)");
        chart_nodata(R, c2, "no multi-device scaling results (suite multi, axis ndev)");
        free(s.p);
        return;
    }
    struct axes *a = malloc(sizeof *a);
    if (!a) {
        free(s.p);
        return;
    }
    scan_axes(&s, a);
    for (int pass = 0; pass < 2; pass++) {
        struct chart *c = pass ? c2 : c1;
        struct line *l;
        size_t dropped, n = build_lines(R, &s, a, "ndev", NULL, &l, &dropped);
        if (!l)
            continue;
        fill_speedups(l, n, pass == 1);
        write_lines(R, c, l, n, "devices", pass ? "efficiency (%)" : "speedup over one device",
                    false, NULL, 0, "set xtics 1\nset xrange [0.5:*]\n",
                    pass ? "100 title 'ideal' dt 2 lw 1 lc rgb '#999999'"
                         : "x title 'ideal' dt 2 lw 1 lc rgb '#999999'");
        for (size_t k = 0; k < n && pass == 1; k++)
            if (l[k].n)
                find(c, "%s: %.0f%% efficiency on %g devices.", l[k].label, l[k].y[l[k].n - 1],
                     l[k].x[l[k].n - 1]);
        free_lines(l, n);
    }
    free(a);
    free(s.p);
}

/* The two device-position axes of a multi-device result (the peer matrix's source and
 * destination), from the suite's axis table, else by name. */
static bool peer_axes(const struct gb_result *r, const char **src, const char **dst)
{
    *src = *dst = NULL;
    const struct gb_suite *su = gb_suite_find(r->suite);
    for (size_t k = 1; k < r->params.n; k++) {
        const struct gb_axis_def *ad = su ? gb_suite_axis(su, r->params.name[k]) : NULL;
        bool pos = ad ? ad->device_pos
                      : strcmp(r->params.name[k], "src") == 0 ||
                            strcmp(r->params.name[k], "dst") == 0;
        if (!pos || !is_num(&r->params.v[k]))
            continue;
        if (!*src)
            *src = r->params.name[k];
        else if (!*dst)
            *dst = r->params.name[k];
    }
    return *src && *dst;
}

static bool is_peer(const struct gb_result *r, const void *arg)
{
    (void)arg;
    const char *s, *d;
    return in_list(r->suite, peer_suites) && peer_axes(r, &s, &d);
}

static void chart_p2p(struct rep *R)
{
    size_t drawn = 0;
    for (size_t f = 0; f < R->nfiles; f++) {
        struct sel s = select_pts(R, is_peer, NULL, SIZE_MAX);
        size_t keep = 0;
        for (size_t i = 0; i < s.n; i++)
            if (R->ser[s.p[i]->s].file == f)
                s.p[keep++] = s.p[i];
        s.n = keep;
        for (size_t i = 0; i < s.n; i++) {
            bool seen = false;
            for (size_t k = 0; k < i && !seen; k++)
                seen = strcmp(s.p[k]->r->case_name, s.p[i]->r->case_name) == 0 &&
                       strcmp(s.p[k]->r->unit, s.p[i]->r->unit) == 0;
            if (seen || drawn >= 6)
                continue;
            const struct gb_result *r0 = s.p[i]->r;
            const char *src, *dst;
            peer_axes(r0, &src, &dst);
            /* The matrix: positions 0..N-1 of the case's device set. A result's device set
             * lists the source's device first and the destination's last, which names the
             * positions. */
            size_t nd = 0;
            int pos_dev[GB_MAX_SET];
            for (size_t q = 0; q < GB_MAX_SET; q++)
                pos_dev[q] = -1;
            for (size_t k = 0; k < s.n; k++) {
                const struct gb_result *r = s.p[k]->r;
                if (strcmp(r->case_name, r0->case_name) != 0 || strcmp(r->unit, r0->unit) != 0)
                    continue;
                double x = num(gb_params_get(&r->params, dst)), y = num(gb_params_get(&r->params, src));
                if (!(x >= 0 && y >= 0 && x < GB_MAX_SET && y < GB_MAX_SET))
                    continue;
                size_t m = (size_t)(x > y ? x : y) + 1;
                nd = m > nd ? m : nd;
                pos_dev[(size_t)y] = r->nset ? r->set[0] : r->device_index;
                pos_dev[(size_t)x] = r->nset ? r->set[r->nset - 1] : r->device_index;
            }
            double v[GB_MAX_SET * GB_MAX_SET];
            for (size_t q = 0; q < nd * nd; q++)
                v[q] = NAN;
            for (size_t k = 0; k < s.n; k++) {
                const struct gb_result *r = s.p[k]->r;
                if (strcmp(r->case_name, r0->case_name) != 0 || strcmp(r->unit, r0->unit) != 0)
                    continue;
                double x = num(gb_params_get(&r->params, dst)), y = num(gb_params_get(&r->params, src));
                if (!(x >= 0 && y >= 0 && x < nd && y < nd))
                    continue;
                size_t cell = (size_t)y * nd + (size_t)x;
                if (better(r, r->value, v[cell]))
                    v[cell] = r->value;
            }
            char labels[GB_MAX_SET][GB_STR_MAX];
            const char *names[GB_MAX_SET];
            for (size_t q = 0; q < nd; q++) {
                const char *dn = pos_dev[q] >= 0 && (size_t)pos_dev[q] < R->files[f].ndevices
                                     ? R->files[f].devices[pos_dev[q]].info.name
                                     : "?";
                snprintf(labels[q], GB_STR_MAX, "%zu: %.20s", q, dn);
                names[q] = labels[q];
            }
            char id[64], title[240];
            snprintf(id, sizeof id, "p2p_%zu", ++drawn);
            snprintf(title, sizeof title, "Peer copies: %s (%s), %s", r0->case_name, r0->unit,
                     base_name(R->paths[f]));
            struct chart *c = chart_new(
                R, id, title,
                "Each cell is a copy from the row's device to the column's device: the best "
                "median over sizes. How the bytes travel (peer access or staged through host "
                "memory) is recorded per result in the results file.");
            if (!c)
                continue;
            write_heatmap(R, c, "destination", "source", names, nd, names, nd, v, r0->unit);
            double lo = INFINITY, hi = -INFINITY;
            for (size_t q = 0; q < nd * nd; q++)
                if (!isnan(v[q])) {
                    lo = v[q] < lo ? v[q] : lo;
                    hi = v[q] > hi ? v[q] : hi;
                }
            if (isfinite(lo))
                find(c, "Between %.3g and %.3g %s across the %zu x %zu pairs.", lo, hi, r0->unit,
                     nd, nd);
        }
        free(s.p);
    }
    if (drawn == 0) {
        struct chart *c = chart_new(R, "p2p", "Peer-to-peer copy matrix",
                                    "Bandwidth of copies between every pair of devices.");
        if (c)
            chart_nodata(R, c, "no peer-copy results (suite multi with source and destination "
                               "axes) in these files");
    }
}

/* ---- roofline ------------------------------------------------------------------------------ */

static double best_in(const struct rep *R, size_t ser, const struct suite_filter *sf,
                      const struct gb_result **which)
{
    double best = NAN;
    *which = NULL;
    for (size_t i = 0; i < R->npts; i++) {
        const struct gb_result *r = R->pts[i].r;
        if (R->pts[i].s != ser || !suite_filter_fn(r, sf))
            continue;
        if (better(r, r->value, best)) {
            best = r->value;
            *which = r;
        }
    }
    return best;
}

static void chart_roofline(struct rep *R)
{
    struct chart *c = chart_new(
        R, "roofline", "Roofline from the measured peaks",
        "Attainable GFLOP/s against arithmetic intensity (flop per byte of device memory, both "
        "axes log): the slanted roof is the best measured device-memory bandwidth, the flat roof "
        "the best measured arithmetic throughput (Williams, Waterman and Patterson, CACM 2009). "
        "Points are kernels that declare both their bytes and their flops, at their measured "
        "speed; a kernel under the slanted roof is memory-bound.");
    if (!c)
        return;
    struct suite_filter bw = {(const char *const[]){"memory", NULL}, NULL, "GB/s", false};
    struct suite_filter fl = {compute_suites, NULL, "FLOP", false};
    struct suite_filter pts = {NULL, NULL, NULL, true};
    double B[MAXSER], P[MAXSER];
    bool any = false;
    for (size_t s = 0; s < R->nser; s++) {
        const struct gb_result *w;
        B[s] = best_in(R, s, &bw, &w);
        P[s] = best_in(R, s, &fl, &w);
        any |= !isnan(B[s]);
    }
    if (!any) {
        chart_nodata(R, c, "no device-memory bandwidth measured (memory suite), so no roof");
        return;
    }
    FILE *d = open_in(R, "data", c->id, ".csv");
    if (!d)
        return;
    fprintf(d, "# intensity (flop/B),GFLOP/s,label (per series: a roof block, then a points "
               "block)\n");
    for (size_t s = 0; s < R->nser; s++) {
        if (s)
            fprintf(d, "\n\n");
        /* Without an arithmetic peak the slanted roof stops at 4 flop/B: drawn further it would
         * suggest a compute ceiling nobody measured. */
        bool ridge_done = isnan(P[s]);
        for (int e = -6; e <= (isnan(P[s]) ? 2 : 10) && !isnan(B[s]); e++) {
            double ai = ldexp(1.0, e), y = ai * B[s];
            if (!ridge_done && ai >= P[s] / B[s]) {
                /* The ridge point itself, so the roof bends where it should. */
                fprintf(d, "%.6g,%.6g,roof\n", P[s] / B[s], P[s]);
                ridge_done = true;
            }
            if (!isnan(P[s]) && y > P[s])
                y = P[s];
            fprintf(d, "%.6g,%.6g,roof\n", ai, y);
        }
        fprintf(d, "NaN,NaN,\n\n\n");
        /* One point per kernel (case and its string params), its fastest: the tuning suite's
         * landscape would otherwise put every configuration on the chart. */
        struct roof_point {
            char label[160];
            double ai, gf;
        } kp[24];
        size_t np = 0;
        for (size_t i = 0; i < R->npts; i++) {
            const struct gb_result *r = R->pts[i].r;
            if (R->pts[i].s != s || !suite_filter_fn(r, &pts))
                continue;
            double ai = r->flops_per_op / r->bytes_per_op;
            double gf = r->flops_per_op / (r->op_time_us.median * 1e-6) / 1e9;
            char lab[160], t[GB_STR_MAX];
            snprintf(lab, sizeof lab, "%s", r->case_name);
            for (size_t k = 1; k < r->params.n; k++)
                if (!is_num(&r->params.v[k]))
                    gb_appendf(lab, sizeof lab, " %s",
                               gb_value_format(&r->params.v[k], t, sizeof t));
            bool added;
            size_t q = gb_find_or_add_str(kp, &np, 24, sizeof kp[0],
                                          offsetof(struct roof_point, label), sizeof kp[0].label,
                                          lab, &added);
            if (q == 24)
                continue;
            if (added) {
                clean(lab, kp[q].label, sizeof kp[q].label);
                kp[q].gf = -1;
            }
            if (gf > kp[q].gf) {
                kp[q].gf = gf;
                kp[q].ai = ai;
            }
        }
        for (size_t q = 0; q < np; q++)
            fprintf(d, "%.6g,%.6g,%s\n", kp[q].ai, kp[q].gf, kp[q].label);
        fprintf(d, "NaN,NaN,\n");
    }
    close_file(R, d);
    FILE *f = gp_open(R, c);
    if (!f)
        return;
    fprintf(f, "set key outside below\nset logscale x 2\nset logscale y 10\n"
               "set xlabel 'arithmetic intensity (flop per byte)'\nset ylabel 'GFLOP/s'\n"
               "");
    bool no_compute = false, any_compute = false;
    for (size_t s = 0; s < R->nser; s++) {
        no_compute |= !isnan(B[s]) && isnan(P[s]);
        any_compute |= !isnan(P[s]);
    }
    fprintf(f, "set xrange [1.0/64:%s]\n", any_compute ? "1024" : "8");
    if (no_compute)
        fprintf(f, "set label 2 'no arithmetic peak measured (compute or gemm suite): the flat "
                   "roof is unknown' at graph 0.98, graph 0.95 right font ',10' textcolor rgb "
                   "'#777777'\n");
    fprintf(f, "plot ");
    for (size_t s = 0; s < R->nser; s++) {
        char t[300];
        snprintf(t, sizeof t, "%s roof", R->ser[s].label);
        fprintf(f, "%s'data/%s.csv' index %zu using 1:2 with lines lt %zu title ", s ? ", \\\n     " : "",
                c->id, 2 * s, s % 12 + 1);
        gp_str(f, t);
        fprintf(f, ", \\\n     'data/%s.csv' index %zu using 1:2 with points lt %zu ps 1.4 notitle",
                c->id, 2 * s + 1, s % 12 + 1);
        /* Kernel names on the first device's points only: they sit at the same intensities
         * on every device, and repeated they would cover each other. */
        if (s == 0)
            fprintf(f, ", \\\n     'data/%s.csv' index %zu using 1:2:3 with labels left "
                       "offset 0.8,0 font ',8' notitle",
                    c->id, 2 * s + 1);
    }
    fprintf(f, "\n");
    gp_close(R, c, f);
    for (size_t s = 0; s < R->nser; s++) {
        if (isnan(B[s]))
            continue;
        if (isnan(P[s]))
            find(c, "%s: memory roof %.3g GB/s; no arithmetic peak measured (compute or gemm "
                    "suite), so the flat roof is missing.",
                 R->ser[s].label, B[s]);
        else
            find(c, "%s: memory roof %.3g GB/s, compute roof %.3g GFLOP/s; ridge point at %.3g "
                    "flop/B (kernels below it are memory-bound).",
                 R->ser[s].label, B[s], P[s], P[s] / B[s]);
    }
}

/* ---- value per money and per watt ---------------------------------------------------------- */

struct headline {
    const char *label;
    struct suite_filter sf;
};

static void chart_value(struct rep *R)
{
    const struct headline hl[] = {
        {"triad GB/s", {(const char *const[]){"memory", NULL}, "triad", "GB/s", false}},
        {"H2D GB/s", {transfer_suites, "h2d", "GB/s", false}},
        {"peak GFLOP/s", {compute_suites, NULL, "FLOP", false}},
    };
    const size_t nh = sizeof hl / sizeof hl[0];
    for (int watts = 0; watts < 2; watts++) {
        const char *cur = R->o->prices ? R->o->prices->currency : "USD";
        char title[160], what[600];
        snprintf(title, sizeof title, "%s", watts ? "Performance per watt" : "Performance per price");
        if (watts)
            snprintf(what, sizeof what,
                     "Each headline figure divided by the device's power from the price sheet "
                     "(watts; TDP or measured draw as the sheet says).");
        else
            snprintf(what, sizeof what,
                     "Each headline figure divided by the device's price from the price sheet, per "
                     "1000 %s.",
                     cur);
        struct chart *c = chart_new(R, watts ? "value_per_watt" : "value_per_price", title, what);
        if (!c)
            return;
        if (!R->o->prices) {
            chart_nodata(R, c, "no price sheet given (gpubench report --prices prices.yaml)");
            continue;
        }
        struct cat cats[3];
        size_t n = 0;
        for (size_t h = 0; h < nh; h++) {
            struct cat *k = &cats[n];
            memset(k, 0, sizeof *k);
            snprintf(k->label, sizeof k->label, "%s per %s", hl[h].label,
                     watts ? "W" : "1000 money");
            if (!watts)
                snprintf(k->label, sizeof k->label, "%s per 1000 %s", hl[h].label, cur);
            bool any = false;
            for (size_t s = 0; s < R->nser; s++) {
                const struct gb_result *w;
                double v = best_in(R, s, &hl[h].sf, &w);
                const struct gb_price *p = R->ser[s].price;
                double div = !p ? NAN : watts ? p->power_w : p->price / 1000.0;
                k->v[s] = v / div;
                k->best[s] = isfinite(k->v[s]) ? w : NULL;
                any |= isfinite(k->v[s]);
            }
            if (any)
                n++;
        }
        if (n == 0) {
            chart_nodata(R, c, "no device in these files has a %s in %s",
                         watts ? "power" : "price", R->o->prices->path);
            continue;
        }
        char yl[64];
        snprintf(yl, sizeof yl, "per %s", watts ? "watt" : "1000 ");
        if (!watts)
            gb_appendf(yl, sizeof yl, "%s", cur);
        write_bars(R, c, cats, n, yl, false);
        for (size_t k = 0; k < n; k++) {
            size_t best = SIZE_MAX;
            for (size_t s = 0; s < R->nser; s++)
                if (isfinite(cats[k].v[s]) && (best == SIZE_MAX || cats[k].v[s] > cats[k].v[best]))
                    best = s;
            if (best != SIZE_MAX)
                find(c, "%s: best %s with %.3g.", cats[k].label, R->ser[best].label,
                     cats[k].v[best]);
        }
        for (size_t s = 0; s < R->nser; s++)
            if (!R->ser[s].price)
                find(c, "%s has no entry in %s.", R->ser[s].label, R->o->prices->path);
    }
}

/* ---- gnuplot ------------------------------------------------------------------------------- */

static void run_gnuplot(struct rep *R, struct chart *c)
{
    const char *prog = R->o->gnuplot;
    if (!prog || !*prog)
        prog = getenv("GPUBENCH_GNUPLOT");
    if (!prog || !*prog)
        prog = "gnuplot";
    char log[4400], script[128];
    snprintf(log, sizeof log, "%s/plots/%s.log", R->o->dir, c->id);
    snprintf(script, sizeof script, "plots/%s.gp", c->id);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        c->failed = true;
        snprintf(c->error, sizeof c->error, "cannot start gnuplot: %s", strerror(errno));
        return;
    }
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        if (chdir(R->o->dir) != 0)
            _exit(126);
        execlp(prog, prog, script, (char *)NULL);
        fprintf(stderr, "cannot run %s: %s\n", prog, strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    char svg[4400];
    snprintf(svg, sizeof svg, "%s/charts/%s.svg", R->o->dir, c->id);
    struct stat sb;
    if (code == 0 && stat(svg, &sb) == 0 && sb.st_size > 0) {
        unlink(log); /* warnings only: nothing to keep */
        return;
    }
    c->failed = true;
    /* The last line of gnuplot's complaint says what went wrong. */
    char tail[600] = "";
    FILE *f = fopen(log, "r");
    if (f) {
        char line[600];
        while (fgets(line, sizeof line, f))
            if (strspn(line, " \t\r\n^") < strlen(line))
                snprintf(tail, sizeof tail, "%s", line);
        fclose(f);
    }
    tail[strcspn(tail, "\r\n")] = '\0';
    if (code == 127)
        snprintf(c->error, sizeof c->error,
                 "gnuplot could not be run (%s); install gnuplot-nox (scripts/bootstrap.sh)",
                 tail[0] ? tail : prog);
    else
        snprintf(c->error, sizeof c->error, "gnuplot failed (exit %d): %s (log: plots/%s.log)",
                 code, tail, c->id);
}

/* ---- the pages ----------------------------------------------------------------------------- */

/* The page's tables are written twice, as HTML into h and as Markdown into m: one cell (`tag`
 * "td" or "th"), which follows an opening "<tr>" / "|" ... */
static void table_cell(FILE *h, FILE *m, const char *tag, const char *text)
{
    fprintf(h, "<%s>", tag);
    gb_fputs_xml(h, text);
    fprintf(h, "</%s>", tag);
    fprintf(m, " ");
    gb_fputs_md(m, text);
    fprintf(m, " |");
}

/* ... and a whole row of n plain cells. */
static void table_row(FILE *h, FILE *m, const char *const *cells, size_t n)
{
    fprintf(h, "<tr>");
    fprintf(m, "|");
    for (size_t k = 0; k < n; k++)
        table_cell(h, m, "td", cells[k]);
    fprintf(h, "</tr>\n");
    fprintf(m, "\n");
}

/* Writes the SVG gnuplot drew into the page: without its XML prolog, and with its element ids
 * prefixed by the chart's id so that several charts' ids cannot collide in one document. */
static bool inline_svg(FILE *out, const char *dir, const struct chart *c)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/charts/%s.svg", dir, c->id);
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = len > 0 ? malloc((size_t)len + 1) : NULL;
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        fclose(f);
        return false;
    }
    fclose(f);
    buf[len] = '\0';
    const char *s = strstr(buf, "<svg");
    if (!s) {
        free(buf);
        return false;
    }
    static const char *const pats[] = {"id='", "id=\"", "href='#", "href=\"#", "url(#"};
    while (*s) {
        size_t best = SIZE_MAX, which = 0;
        for (size_t p = 0; p < sizeof pats / sizeof pats[0]; p++) {
            const char *h = strstr(s, pats[p]);
            if (h && (size_t)(h - s) < best) {
                best = (size_t)(h - s);
                which = p;
            }
        }
        if (best == SIZE_MAX) {
            fputs(s, out);
            break;
        }
        size_t pl = strlen(pats[which]);
        /* A data: URL in href is not an id reference; only '#' forms reach here. */
        fwrite(s, 1, best + pl, out);
        fprintf(out, "%s_", c->id);
        s += best + pl;
    }
    free(buf);
    return true;
}

static void count_status(const struct gb_results *rs, size_t *ok, size_t *sk, size_t *fa,
                         size_t *noisy)
{
    *ok = *sk = *fa = *noisy = 0;
    for (size_t i = 0; i < rs->nresults; i++) {
        *ok += rs->results[i].status == GB_STATUS_OK;
        *sk += rs->results[i].status == GB_STATUS_SKIPPED;
        *fa += rs->results[i].status == GB_STATUS_FAILED;
        *noisy += rs->results[i].status == GB_STATUS_OK && rs->results[i].noisy;
    }
}

/* The headline table: rows of figures, a column per series. */
struct hrow {
    char label[96];
    char cell[MAXSER][96];
};

static size_t headline_rows(const struct rep *R, struct hrow *rows, size_t cap)
{
    size_t n = 0;
    struct {
        const char *label;
        struct suite_filter sf;
    } h[] = {
        {"H2D peak", {transfer_suites, "h2d", "GB/s", false}},
        {"D2H peak", {transfer_suites, "d2h", "GB/s", false}},
        {"D2D peak", {transfer_suites, "d2d", "GB/s", false}},
        {"Bidirectional peak", {transfer_suites, "bidir", "GB/s", false}},
        {"Device memory, triad", {(const char *const[]){"memory", NULL}, "triad", "GB/s", false}},
        {"Device memory, copy", {(const char *const[]){"memory", NULL}, "copy", "GB/s", false}},
        {"Launch latency", {launch_suites, "latency", NULL, false}},
        {"Peak arithmetic", {compute_suites, NULL, "FLOP", false}},
    };
    for (size_t i = 0; i < sizeof h / sizeof h[0] && n < cap; i++) {
        struct hrow *row = &rows[n];
        memset(row, 0, sizeof *row);
        snprintf(row->label, sizeof row->label, "%s", h[i].label);
        bool any = false;
        for (size_t s = 0; s < R->nser; s++) {
            const struct gb_result *w;
            double v = best_in(R, s, &h[i].sf, &w);
            if (!w) {
                snprintf(row->cell[s], sizeof row->cell[s], "-");
                continue;
            }
            any = true;
            char params[64] = "";
            for (size_t k = 1; k < w->params.n && strlen(params) < 40; k++) {
                char t[GB_STR_MAX];
                gb_value_format(&w->params.v[k], t, sizeof t);
                gb_appendf(params, sizeof params, "%s%s", params[0] ? " " : "", t);
            }
            char val[32];
            fmt_val(v, val, sizeof val);
            char cell[256];
            char what[160];
            snprintf(what, sizeof what, "%s%s%s", h[i].sf.case_name ? "" : w->case_name,
                     h[i].sf.case_name || !params[0] ? "" : " ", params);
            snprintf(cell, sizeof cell, "%s %s%s%s%s", val, w->unit, what[0] ? " (" : "", what,
                     what[0] ? ")" : "");
            scopy(row->cell[s], sizeof row->cell[s], cell);
        }
        if (any)
            n++;
    }
    /* Price, power and value per money and watt. */
    if (R->o->prices && n + 2 <= cap) {
        struct hrow *p = &rows[n], *w = &rows[n + 1];
        memset(p, 0, sizeof *p);
        memset(w, 0, sizeof *w);
        snprintf(p->label, sizeof p->label, "Price (%s)", R->o->prices->currency);
        snprintf(w->label, sizeof w->label, "Power (W)");
        for (size_t s = 0; s < R->nser; s++) {
            const struct gb_price *pr = R->ser[s].price;
            snprintf(p->cell[s], sizeof p->cell[s], pr && !isnan(pr->price) ? "%.0f" : "-",
                     pr ? pr->price : 0.0);
            snprintf(w->cell[s], sizeof w->cell[s], pr && !isnan(pr->power_w) ? "%.0f" : "-",
                     pr ? pr->power_w : 0.0);
        }
        n += 2;
    }
    if (n < cap) {
        struct hrow *row = &rows[n++];
        memset(row, 0, sizeof *row);
        snprintf(row->label, sizeof row->label, "Cases ok / skipped / failed");
        for (size_t s = 0; s < R->nser; s++) {
            size_t ok = 0, sk = 0, fa = 0;
            const struct gb_results *rs = &R->files[R->ser[s].file];
            for (size_t i = 0; i < rs->nresults; i++) {
                if (rs->results[i].device_index != R->ser[s].dev)
                    continue;
                ok += rs->results[i].status == GB_STATUS_OK;
                sk += rs->results[i].status == GB_STATUS_SKIPPED;
                fa += rs->results[i].status == GB_STATUS_FAILED;
            }
            snprintf(row->cell[s], sizeof row->cell[s], "%zu / %zu / %zu", ok, sk, fa);
        }
    }
    return n;
}

static void write_headline_csv(struct rep *R, const struct hrow *rows, size_t n)
{
    FILE *d = open_in(R, "data", "headline", ".csv");
    if (!d)
        return;
    fprintf(d, "# figure");
    for (size_t s = 0; s < R->nser; s++)
        fprintf(d, ",%s", R->ser[s].label);
    fprintf(d, "\n");
    for (size_t i = 0; i < n; i++) {
        char t[200];
        clean(rows[i].label, t, sizeof t);
        fprintf(d, "%s", t);
        for (size_t s = 0; s < R->nser; s++) {
            clean(rows[i].cell[s], t, sizeof t);
            fprintf(d, ",%s", t);
        }
        fprintf(d, "\n");
    }
    close_file(R, d);
}

static const char css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:2em auto;"
    "max-width:1200px;padding:0 1em;color:#222;line-height:1.45}"
    "h1{font-size:1.7em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;"
    "margin-top:2em}h3{margin-bottom:.3em}"
    ".meta{color:#666}table{border-collapse:collapse;margin:1em 0;font-size:.92em}"
    "th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}"
    "th{background:#f3f3f3}figure{margin:.5em 0;max-width:100%}figure svg{width:100%;height:auto;"
    "display:block}.nodata{color:#777}.error{color:#b00020;font-weight:bold}"
    "ul.findings{background:#f7f9fc;border-left:3px solid #1f77b4;padding:.5em 1em .5em 2em}"
    "nav ul{columns:2}";

static void write_pages(struct rep *R, const char *title)
{
    FILE *h = open_in(R, "", "index", ".html");
    FILE *m = open_in(R, "", "report", ".md");
    if (!h || !m) {
        if (h)
            fclose(h);
        if (m)
            fclose(m);
        return;
    }
    char when[64];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);

    fprintf(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
    gb_fputs_xml(h, title);
    fprintf(h, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", css);
    gb_fputs_xml(h, title);
    fprintf(h, "</h1>\n<p class=\"meta\">Generated by gpubench %s on %s from %zu results "
               "file%s. Charts drawn by gnuplot; the data behind each is in <code>data/</code>, "
               "its script in <code>plots/</code>.</p>\n",
            GB_VERSION, when, R->nfiles, R->nfiles == 1 ? "" : "s");
    fprintf(m, "# ");
    gb_fputs_md(m, title);
    fprintf(m, "\n\nGenerated by gpubench %s on %s from %zu results file%s. Charts drawn by "
               "gnuplot; the data behind each chart is in `data/`, its script in `plots/`; "
               "`index.html` has the same report with the charts inline.\n\n",
            GB_VERSION, when, R->nfiles, R->nfiles == 1 ? "" : "s");

    /* Contents. */
    fprintf(h, "<nav><ul>\n<li><a href=\"#runs\">Runs and devices</a></li>\n"
               "<li><a href=\"#headline\">Headline figures</a></li>\n");
    for (size_t i = 0; i < R->nch; i++) {
        fprintf(h, "<li><a href=\"#%s\">", R->ch[i].id);
        gb_fputs_xml(h, R->ch[i].title);
        fprintf(h, "</a>%s</li>\n", R->ch[i].nodata[0] ? " (no data)" : "");
    }
    fprintf(h, "<li><a href=\"#cases\">Skipped and failed cases</a></li>\n</ul></nav>\n");

    /* Runs. */
    fprintf(h, "<h2 id=\"runs\">Runs and devices</h2>\n<table>\n<tr><th>file</th><th>host</th>"
               "<th>started (UTC)</th><th>profile</th><th>gpubench</th><th>ok / skipped / "
               "failed (noisy)</th></tr>\n");
    fprintf(m, "## Runs and devices\n\n| file | host | started (UTC) | profile | gpubench | ok / "
               "skipped / failed (noisy) |\n|---|---|---|---|---|---|\n");
    for (size_t f = 0; f < R->nfiles; f++) {
        const struct gb_results *rs = &R->files[f];
        size_t ok, sk, fa, nz;
        count_status(rs, &ok, &sk, &fa, &nz);
        char status[96], ver[96];
        snprintf(status, sizeof status, "%zu / %zu / %zu (%zu)%s", ok, sk, fa, nz,
                 rs->run.interrupted ? ", interrupted" : "");
        snprintf(ver, sizeof ver, "%s (%s)", rs->run.gpubench_version, rs->run.git_commit);
        const char *cells[] = {R->paths[f], rs->run.host, rs->run.start_utc,
                               rs->run.profile_name, ver, status};
        table_row(h, m, cells, 6);
    }
    fprintf(h, "</table>\n<table>\n<tr><th>series</th><th>device</th><th>backend</th>"
               "<th>vendor / driver</th><th>compute units</th><th>clock</th><th>memory</th>"
               "</tr>\n");
    fprintf(m, "\n| series | device | backend | vendor / driver | compute units | clock | memory "
               "|\n|---|---|---|---|---|---|---|\n");
    for (size_t s = 0; s < R->nser; s++) {
        const struct gb_result_device *d = &R->files[R->ser[s].file].devices[R->ser[s].dev];
        char vd[300], cu[32], clk[32], mem[32];
        snprintf(vd, sizeof vd, "%s / %s", d->info.vendor, d->info.driver);
        snprintf(cu, sizeof cu, "%u", d->info.compute_units);
        snprintf(clk, sizeof clk, "%u MHz", d->info.clock_mhz);
        snprintf(mem, sizeof mem, "%.1f GiB", (double)d->info.global_mem / (1024.0 * 1024 * 1024));
        const char *cells[] = {R->ser[s].label, d->info.name, d->backend, vd, cu, clk, mem};
        table_row(h, m, cells, 7);
    }
    fprintf(h, "</table>\n");
    if (R->dropped_series) {
        fprintf(h, "<p class=\"error\">%zu more devices are in the files; at most %d are "
                   "shown side by side.</p>\n",
                R->dropped_series, MAXSER);
        fprintf(m, "\n**%zu more devices are in the files; at most %d are shown side by "
                   "side.**\n",
                R->dropped_series, MAXSER);
    }

    /* Headline figures. */
    struct hrow rows[16];
    size_t nrows = headline_rows(R, rows, 16);
    write_headline_csv(R, rows, nrows);
    fprintf(h, "<h2 id=\"headline\">Headline figures</h2>\n<p>The best median of each figure "
               "on each device, with the params that reached it (data/headline.csv).</p>\n"
               "<table>\n<tr><th>figure</th>");
    fprintf(m, "\n## Headline figures\n\nThe best median of each figure on each device, with the "
               "params that reached it (`data/headline.csv`).\n\n| figure |");
    for (size_t s = 0; s < R->nser; s++)
        table_cell(h, m, "th", R->ser[s].label);
    fprintf(h, "</tr>\n");
    fprintf(m, "\n|---|");
    for (size_t s = 0; s < R->nser; s++)
        fprintf(m, "---|");
    fprintf(m, "\n");
    for (size_t i = 0; i < nrows; i++) {
        fprintf(h, "<tr>");
        fprintf(m, "|");
        table_cell(h, m, "th", rows[i].label);
        for (size_t s = 0; s < R->nser; s++)
            table_cell(h, m, "td", rows[i].cell[s]);
        fprintf(h, "</tr>\n");
        fprintf(m, "\n");
    }
    fprintf(h, "</table>\n<h2>Charts</h2>\n");
    fprintf(m, "\n## Charts\n");

    for (size_t i = 0; i < R->nch; i++) {
        const struct chart *c = &R->ch[i];
        fprintf(h, "<section id=\"%s\">\n<h3>", c->id);
        gb_fputs_xml(h, c->title);
        fprintf(h, "</h3>\n<p>");
        gb_fputs_xml(h, c->what);
        fprintf(h, "</p>\n");
        fprintf(m, "\n### ");
        gb_fputs_md(m, c->title);
        fprintf(m, "\n\n%s\n\n", c->what);
        if (c->nodata[0]) {
            fprintf(h, "<p class=\"nodata\">No data: ");
            gb_fputs_xml(h, c->nodata);
            fprintf(h, ".</p>\n");
            fprintf(m, "*No data: %s.*\n\n", c->nodata);
        }
        if (c->failed) {
            fprintf(h, "<p class=\"error\">This chart could not be drawn: ");
            gb_fputs_xml(h, c->error);
            fprintf(h, "</p>\n");
            fprintf(m, "**This chart could not be drawn:** %s\n\n", c->error);
        } else {
            fprintf(h, "<figure>\n");
            if (!inline_svg(h, R->o->dir, c)) {
                fprintf(h, "<p class=\"error\">charts/%s.svg is missing.</p>", c->id);
            }
            fprintf(h, "\n</figure>\n");
            fprintf(m, "![%s](charts/%s.png)\n\n", c->title, c->id);
        }
        if (c->findings[0]) {
            fprintf(h, "<ul class=\"findings\">\n");
            for (const char *s = c->findings; *s;) {
                int l = (int)strcspn(s, "\n");
                char line[1200];
                snprintf(line, sizeof line, "%.*s", l, s);
                fprintf(h, "<li>");
                gb_fputs_xml(h, line);
                fprintf(h, "</li>\n");
                fprintf(m, "- %s\n", line);
                s += l + (s[l] == '\n');
            }
            fprintf(h, "</ul>\n");
            fprintf(m, "\n");
        }
        fprintf(h, "</section>\n");
    }

    /* Skipped and failed cases: why, so that a missing figure is never a mystery. */
    fprintf(h, "<h2 id=\"cases\">Skipped and failed cases</h2>\n");
    fprintf(m, "\n## Skipped and failed cases\n\n");
    size_t listed = 0, total = 0;
    for (size_t f = 0; f < R->nfiles; f++)
        for (size_t i = 0; i < R->files[f].nresults; i++) {
            const struct gb_result *r = &R->files[f].results[i];
            if (r->status == GB_STATUS_OK)
                continue;
            total++;
            if (listed == 200)
                continue;
            if (listed++ == 0) {
                fprintf(h, "<table>\n<tr><th>file</th><th>suite</th><th>case</th><th>params</th>"
                           "<th>status</th><th>reason</th></tr>\n");
                fprintf(m, "| file | suite | case | params | status | reason |\n"
                           "|---|---|---|---|---|---|\n");
            }
            char params[512], reason[400];
            gb_params_format(&r->params, params, sizeof params);
            snprintf(reason, sizeof reason, "%.*s", (int)strcspn(r->reason, "\n"), r->reason);
            const char *cells[] = {base_name(R->paths[f]), r->suite, r->case_name, params,
                                   gb_status_name(r->status), reason};
            table_row(h, m, cells, 6);
        }
    if (listed)
        fprintf(h, "</table>\n");
    if (total > listed) {
        fprintf(h, "<p>%zu more in the results files.</p>\n", total - listed);
        fprintf(m, "\n%zu more in the results files.\n", total - listed);
    }
    if (!total) {
        fprintf(h, "<p>None: every case ran and was verified.</p>\n");
        fprintf(m, "None: every case ran and was verified.\n");
    }
    fprintf(h, "</body>\n</html>\n");
    close_file(R, h);
    close_file(R, m);
}

int gb_report_write(const struct gb_results *files, const char *const *paths, size_t n,
                    const struct gb_report_opts *o, struct gb_report_summary *sum)
{
    if (n == 0 || !o || !o->dir)
        return GB_FAIL(GB_EINVAL, "gb_report_write: no results files or no folder");
    memset(sum, 0, sizeof *sum);
    struct rep R = {.files = files, .paths = paths, .nfiles = n, .o = o};
    const char *subs[] = {"", "/data", "/plots", "/charts"};
    for (size_t i = 0; i < 4; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s%s", o->dir, subs[i]);
        if (gb_mkdir_p(p, 0777) != 0)
            return gb_error_set(GB_EIO, NULL, 0, "cannot create %s: %s", p, strerror(errno));
    }
    int rc = build_points(&R);
    if (rc)
        return rc;
    chart_transfer(&R);
    chart_memory(&R);
    chart_launch(&R);
    chart_gflops(&R);
    chart_speed_accuracy(&R);
    chart_roofline(&R);
    chart_tuning(&R);
    chart_batching(&R);
    chart_scaling(&R);
    chart_p2p(&R);
    chart_value(&R);
    for (size_t i = 0; i < R.nch && !R.err; i++)
        run_gnuplot(&R, &R.ch[i]);
    write_pages(&R, o->title ? o->title : "gpubench report");
    sum->charts = R.nch;
    sum->series = R.nser;
    for (size_t i = 0; i < R.nch; i++) {
        sum->charts_with_data += !R.ch[i].nodata[0];
        sum->charts_failed += R.ch[i].failed;
    }
    rc = R.err;
    free(R.ch);
    free(R.pts);
    return rc;
}

/* ---- the command --------------------------------------------------------------------------- */

int gb_cmd_report(int argc, char **argv)
{
    const char *dir = NULL, *prices_path = NULL, *title = NULL;
    const char **paths = calloc((size_t)argc, sizeof *paths);
    size_t n = 0;
    if (!paths)
        return 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ? &dir
                            : strcmp(a, "--prices") == 0                        ? &prices_path
                            : strcmp(a, "--title") == 0                         ? &title
                                                                                : NULL;
        if (slot) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gpubench report: %s needs a value\n", a);
                free(paths);
                return 2;
            }
            *slot = argv[++i];
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("usage: gpubench report RESULTS.json... -o DIR [--prices prices.yaml] "
                   "[--title TEXT]\n"
                   "  writes DIR/index.html (self-contained, charts inline as SVG), DIR/report.md,\n"
                   "  DIR/data/*.csv, DIR/plots/*.gp and DIR/charts/*.svg|png (drawn by gnuplot;\n"
                   "  $GPUBENCH_GNUPLOT names another gnuplot)\n"
                   "exit status: 0 written, 1 written but a chart could not be drawn, 2 bad "
                   "input\n");
            free(paths);
            return 0;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gpubench report: unknown option '%s'\n", a);
            free(paths);
            return 2;
        } else {
            paths[n++] = a;
        }
    }
    if (n == 0 || !dir) {
        fprintf(stderr, "gpubench report: %s\n",
                n == 0 ? "needs at least one results file" : "needs -o DIR");
        free(paths);
        return 2;
    }
    struct gb_prices prices;
    bool have_prices = false;
    if (prices_path) {
        char err[1024];
        if (gb_prices_load(prices_path, &prices, err, sizeof err)) {
            fprintf(stderr, "gpubench report: %s\n", err);
            free(paths);
            return 2;
        }
        have_prices = true;
    }
    struct gb_results *rs = calloc(n, sizeof *rs);
    int rc = 0;
    size_t nread = 0;
    if (!rs) {
        rc = 2;
        goto out;
    }
    for (; nread < n; nread++) {
        gb_error_clear();
        if (gb_results_read(paths[nread], &rs[nread])) {
            fprintf(stderr, "gpubench report: %s\n", gb_error_msg());
            rc = 2;
            goto out;
        }
    }
    struct gb_report_opts o = {.dir = dir, .title = title,
                               .prices = have_prices ? &prices : NULL};
    struct gb_report_summary sum;
    gb_error_clear();
    if (gb_report_write(rs, paths, n, &o, &sum)) {
        fprintf(stderr, "gpubench report: %s\n", gb_error_msg());
        rc = 2;
        goto out;
    }
    printf("report: %s/index.html and %s/report.md: %zu charts (%zu with data) for %zu "
           "device%s\n",
           dir, dir, sum.charts, sum.charts_with_data, sum.series, sum.series == 1 ? "" : "s");
    if (sum.charts_failed) {
        fprintf(stderr, "gpubench report: %zu chart%s could not be drawn; the report says why\n",
                sum.charts_failed, sum.charts_failed == 1 ? "" : "s");
        rc = 1;
    }
out:
    for (size_t i = 0; i < nread; i++)
        gb_results_free(&rs[i]);
    free(rs);
    if (have_prices)
        gb_prices_free(&prices);
    free(paths);
    return rc;
}
