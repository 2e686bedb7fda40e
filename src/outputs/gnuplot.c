/* gpubench — the report's files and gnuplot (contract in model.h): data/ID.csv, plots/ID.gp
 * for the chart shapes (bars, lines, heat maps, "no data"), and gnuplot run on each script.
 *
 * Every text in a script goes through gb__gp_quote, a gnuplot single-quoted string: gnuplot
 * runs a shell command written in backquotes inside a double-quoted string (and expands macros
 * and escapes there), so nothing from a results file is ever written between double quotes.
 * Chart ids ([a-z0-9_], gb__chart_new) and numbers are the only other things a script holds.
 */
#include "analyses/report_model.h"
#include "outputs/report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"

/* ---- files --------------------------------------------------------------------------------- */

FILE *gb__open_in(struct rep *R, const char *sub, const char *id, const char *ext)
{
    char path[GB_PATH_JOIN];
    snprintf(path, sizeof path, "%s/%s%s%s%s", R->o->dir, sub, *sub ? "/" : "", id, ext);
    /* Never through a symbolic link planted in the folder (it could lead to an input). */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f && fd >= 0)
        close(fd);
    if (!f && !R->err)
        R->err = gb_error_set(GB_EIO, NULL, 0, "cannot write %s: %s", path,
                              errno == ELOOP ? "it is a symbolic link; the report writes its "
                                               "own files, never through a link"
                                             : strerror(errno));
    return f;
}

void gb__close_file(struct rep *R, FILE *f)
{
    if (!f)
        return;
    if ((ferror(f) | fclose(f)) && !R->err)
        R->err = gb_error_set(GB_EIO, NULL, 0, "writing the report in %s failed", R->o->dir);
}

void gb__csv_field(FILE *f, const char *s)
{
    char t[512];
    gb__clean(s, t, sizeof t);
    fputs(t, f);
}

void gb__gp_quote(FILE *f, const char *s)
{
    /* gnuplot (5.4) reads '' as a quote only after another character of the string: a quote
     * that opens the text or follows a quote is joined on as sprintf('%c',39), between
     * single-quoted pieces that never start with one (a''b: 'a'''.sprintf('%c',39).'b'). */
    static const char quote[] = "sprintf('%c',39)";
    bool open = false, any = false, after_quote = false;
    for (const unsigned char *u = (const unsigned char *)s; *u; u++) {
        int c = *u < 0x20 || *u == 0x7f ? ' ' : *u;
        if (c == '\'' && open && !after_quote) {
            fputs("''", f);
            after_quote = true;
        } else if (c == '\'') {
            fprintf(f, "%s%s%s", open ? "'" : "", any ? "." : "", quote);
            open = after_quote = false;
        } else {
            if (!open)
                fputs(any ? ".'" : "'", f);
            fputc(c, f);
            open = true;
            after_quote = false;
        }
        any = true;
    }
    if (open || !any)
        fputs(any ? "'" : "''", f);
}

/* ---- charts and scripts -------------------------------------------------------------------- */

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                      "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                      "#bcbd22", "#17becf", "#393b79", "#637939"};

struct chart *gb__chart_new(struct rep *R, const char *id, const char *title, const char *what)
{
    struct chart *g = gb_grow(R->ch, &R->capch, R->nch + 1, sizeof *g);
    if (!g)
        return NULL;
    R->ch = g;
    struct chart *c = &R->ch[R->nch++];
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", id);
    for (char *p = c->id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            *p = '_';
    gb__clean_text(title, c->title, sizeof c->title, false);
    snprintf(c->what, sizeof c->what, "%s", what);
    c->w = 900;
    c->h = 460;
    return c;
}

FILE *gb__gp_open(struct rep *R, struct chart *c)
{
    FILE *f = gb__open_in(R, "plots", c->id, ".gp");
    if (!f)
        return NULL;
    fprintf(f, "# gpubench report: ");
    gb__gp_quote(f, c->title);
    fprintf(f,
            "\n"
            "# Draws charts/%s.svg and charts/%s.png from data/%s.csv. Run from the report "
            "folder:\n#   gnuplot plots/%s.gp\n"
            "set encoding utf8\n"
            "set datafile separator ','\n"
            "set terminal svg size %d,%d dynamic font 'Sans,12' name 'gb_%s' background rgb "
            "'white'\n"
            "set termoption noenhanced\n"
            "set output 'charts/%s.svg'\n",
            c->id, c->id, c->id, c->id, c->w, c->h, c->id, c->id);
    for (size_t i = 0; i < sizeof palette / sizeof palette[0]; i++)
        fprintf(f, "set linetype %zu lc rgb '%s' lw 2 pt %zu ps 0.9\n", i + 1, palette[i],
                (size_t[]){7, 5, 9, 11, 13, 15, 7, 5, 9, 11, 13, 15}[i]);
    fprintf(f, "set style textbox opaque fillcolor rgb 'white' noborder\n"
               "set grid lc rgb '#dddddd'\n"
               "set border lc rgb '#555555'\n"
               "set title ");
    gb__gp_quote(f, c->title);
    fprintf(f, " font ',14'\n");
    return f;
}

void gb__gp_close(struct rep *R, struct chart *c, FILE *f)
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
    gb__close_file(R, f);
}

void gb__gp_item(FILE *f, const struct chart *c, bool first, size_t index, const char *title,
                 const char *fmt, ...)
{
    fprintf(f, "%s'data/%s.csv' index %zu using ", first ? "" : ", \\\n     ", c->id, index);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    if (title) {
        fprintf(f, " title ");
        gb__gp_quote(f, title);
    } else {
        fprintf(f, " notitle");
    }
}

/* "set NAME 'text'" and a line break. */
static void gp_set(FILE *f, const char *name, const char *text)
{
    fprintf(f, "set %s ", name);
    gb__gp_quote(f, text);
    fprintf(f, "\n");
}

void gb__chart_nodata(struct rep *R, struct chart *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->nodata, sizeof c->nodata, fmt, ap);
    va_end(ap);
    c->h = 200;
    FILE *d = gb__open_in(R, "data", c->id, ".csv");
    if (d) {
        /* A comment line, not a field: its commas stay, a line break could not. */
        char t[sizeof c->nodata];
        gb__clean_text(c->nodata, t, sizeof t, false);
        fprintf(d, "# no data: %s\n", t);
    }
    gb__close_file(R, d);
}

void gb__chart_absent(struct rep *R, const char *id, const char *title, const char *what,
                      const char *why)
{
    struct chart *c = gb__chart_new(R, id, title, what);
    if (c)
        gb__chart_nodata(R, c, "%s", why);
}

/* ---- the shapes ---------------------------------------------------------------------------- */

/* The unit of category i: that of its first series' best result ("" when none). */
static const char *cat_unit(const struct cat *k, size_t nser)
{
    for (size_t s = 0; s < nser; s++)
        if (k->best[s])
            return k->best[s]->unit;
    return "";
}

/* The p5 and p95 of the samples behind a bar, where its value is its result's own (a figure
 * derived from it, per price or watt, has none: the value twice). */
static void bar_spread(const struct cat *k, size_t s, double *lo, double *hi)
{
    const struct gb_result *r = k->best[s];
    *lo = *hi = k->v[s];
    if (r && r->value == k->v[s] && r->stats.n > 1 && isfinite(r->stats.p5) &&
        isfinite(r->stats.p95) && r->stats.p5 <= k->v[s] && r->stats.p95 >= k->v[s]) {
        *lo = r->stats.p5;
        *hi = r->stats.p95;
    }
}

void gb__write_bars(struct rep *R, struct chart *c, const struct cat *cats, size_t n,
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
        gb__chart_nodata(R, c, "no results file has a value for this chart");
        return;
    }
    /* Categories in another unit than the first's (GOP/s among GFLOP/s) say theirs. */
    const char *unit0 = n ? cat_unit(&cats[0], R->nser) : "";
    bool mixed = false;
    for (size_t i = 1; i < n; i++)
        mixed |= strcmp(cat_unit(&cats[i], R->nser), unit0) != 0;
    FILE *d = gb__open_in(R, "data", c->id, ".csv");
    if (!d)
        return;
    /* Per series: the value, then the p5 and p95 of its samples (the error bar). */
    fprintf(d, "# category");
    for (size_t j = 0; j < k; j++) {
        char l[200];
        gb__clean(R->ser[use[j]].label, l, sizeof l);
        fprintf(d, ",%s,%s p5,%s p95", l, l, l);
    }
    fprintf(d, "\n");
    for (size_t i = 0; i < n; i++) {
        char label[200];
        const char *u = cat_unit(&cats[i], R->nser);
        snprintf(label, sizeof label, "%s%s%s%s", cats[i].label, mixed && *u ? " (" : "",
                 mixed ? u : "", mixed && *u ? ")" : "");
        gb__csv_field(d, label);
        for (size_t j = 0; j < k; j++) {
            double lo, hi;
            bar_spread(&cats[i], use[j], &lo, &hi);
            fprintf(d, ",%.6g,%.6g,%.6g", cats[i].v[use[j]], lo, hi);
        }
        fprintf(d, "\n");
    }
    gb__close_file(R, d);
    if (!strstr(c->what, "error bar"))
        gb_appendf(c->what, sizeof c->what, "%s",
                   " Error bars: the p5\u2013p95 band of each bar's samples.");
    c->w = n * k > 24 ? 1200 : 900;
    FILE *f = gb__gp_open(R, c);
    if (!f)
        return;
    /* A log axis has no zero for a bar to stand on: there each value is a point (a dot chart),
     * its error bar through it. */
    if (logy)
        fprintf(f,
                "set xrange [-0.6:%zu.6]\nset xtics rotate by -25 left nomirror\n"
                "set logscale y\nset key outside below height 1.5\n",
                n ? n - 1 : 0);
    else
        fprintf(f, "set style data histograms\n"
                   "set style histogram errorbars gap 1 lw 1\n"
                   "set style fill solid 0.85 border rgb '#333333'\n"
                   "set boxwidth 0.9\n"
                   "set key outside below height 1.5\n"
                   "set xtics rotate by -25 left nomirror\n"
                   "set yrange [0:*]\n");
    char yl[200];
    snprintf(yl, sizeof yl, "%s%s", ylabel, mixed ? " (or the unit a label names)" : "");
    gp_set(f, "ylabel", yl);
    fprintf(f, "set offsets 0, 0, graph 0.08, 0\n");
    fprintf(f, "plot ");
    /* Bar j of k in a cluster with gap 1 sits at x + (j - (k-1)/2) / (k + 1). */
    for (size_t j = 0; j < k; j++) {
        const size_t col = 2 + 3 * j;
        if (logy) {
            fprintf(f,
                    "%s'data/%s.csv' using ($0 + (%zu - %g) / %zu.0):%zu:%zu:%zu%s with "
                    "yerrorbars lt %zu lw 1 ps 0 notitle, \\\n     'data/%s.csv' using ($0 + (%zu "
                    "- %g) / %zu.0):%zu with points lt %zu ps 1.4 title ",
                    j ? ", \\\n     " : "", c->id, j, (double)(k - 1) / 2.0, k + 1, col, col + 1,
                    col + 2, j == 0 ? ":xtic(1)" : "", use[j] % 12 + 1, c->id, j,
                    (double)(k - 1) / 2.0, k + 1, col, use[j] % 12 + 1);
        } else {
            fprintf(f, "%s'data/%s.csv' using %zu:%zu:%zu%s lt %zu title ", j ? ", \\\n     " : "",
                    c->id, col, col + 1, col + 2, j == 0 ? ":xtic(1)" : "", use[j] % 12 + 1);
        }
        gb__gp_quote(f, R->ser[use[j]].label);
    }
    for (size_t j = 0; j < k; j++) {
        const size_t col = 2 + 3 * j;
        fprintf(f,
                ", \\\n     'data/%s.csv' using ($0 + (%zu - %g) / %zu.0):%zu:"
                "(column(%zu) == column(%zu) ? sprintf('%%.3g', column(%zu)) : '') "
                "with labels offset %s font ',%d' notitle",
                c->id, j, (double)(k - 1) / 2.0, k + 1, logy ? col : col + 2, col, col, col,
                logy ? "0.9,0 left" : "0,0.6", k > 3 ? 8 : 10);
    }
    fprintf(f, "\n");
    gb__gp_close(R, c, f);
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

/* "set xtics (...)" at the measured x values of the lines, every other one when there are
 * many. */
static void gp_xtics(FILE *f, const struct line *l, size_t n, bool size_axis)
{
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
        gb__fmt_x(xs[j], size_axis, t, sizeof t);
        fprintf(f, "%s", j ? ", " : "");
        gb__gp_quote(f, t);
        fprintf(f, " %.9g", xs[j]);
    }
    fprintf(f, ")\n");
}

/* Whether any of the n lines has a point strictly between a and b (a < b). */
static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Every x of the n lines, sorted, into *out (malloc'd; NULL when there are none or no memory);
 * how many. */
static size_t sorted_xs(const struct line *l, size_t n, double **out)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += l[i].n;
    *out = total ? malloc(total * sizeof **out) : NULL;
    if (!*out)
        return 0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < l[i].n; k++)
            (*out)[at++] = l[i].x[k];
    qsort(*out, total, sizeof **out, by_value);
    return total;
}

/* Whether some line measured an x strictly between a and b (xs: sorted_xs's): a binary search,
 * so that a line of N points costs N log N, not N squared (a report of 100,000 results). */
static bool measured_between(const double *xs, size_t nx, double a, double b)
{
    size_t lo = 0, hi = nx; /* the first x above a */
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (xs[mid] > a)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo < nx && xs[lo] < b;
}

void gb__write_lines(struct rep *R, struct chart *c, const struct line *l, size_t n,
                     const char *xlabel, const char *ylabel, bool size_axis,
                     const struct mark *marks, size_t nmarks, const char *extra_gp,
                     const char *extra_plot)
{
    FILE *d = gb__open_in(R, "data", c->id, ".csv");
    if (!d)
        return;
    /* Each point with its spread: the p5 and p95 of its samples where y is the result's value
     * (a figure derived from it has none of its own: y twice), or from y to the figure the
     * line names (bar_to: a latency's p99). */
    fprintf(d, "# x,y,line,%s\n", n && (l[0].bar_to || l[0].lo) ? "bar_lo,bar_hi" : "p5,p95");
    double *xs;
    const size_t nx = sorted_xs(l, n, &xs);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fprintf(d, "\n\n");
        for (size_t k = 0; k < l[i].n; k++) {
            /* A size some other line measured and this one did not lies between this point and
             * the last: a blank line, so that no line is drawn across what was not measured. */
            if (k > 0 && !l[i].unordered && measured_between(xs, nx, l[i].x[k - 1], l[i].x[k]))
                fprintf(d, "\n");
            const struct gb_result *r = l[i].r ? l[i].r[k] : NULL;
            double lo = l[i].y[k], hi = l[i].y[k];
            if (l[i].lo && l[i].hi) {
                lo = l[i].lo[k];
                hi = l[i].hi[k];
            } else if (r && l[i].bar_to) {
                const double to = gb_result_scalar(r, l[i].bar_to);
                if (to >= lo) /* NAN (none) is not */
                    hi = to;
            } else if (r && r->value == l[i].y[k] && r->stats.n > 1 && isfinite(r->stats.p5) &&
                       isfinite(r->stats.p95)) {
                lo = r->stats.p5;
                hi = r->stats.p95;
            }
            fprintf(d, "%.9g,%.6g,", l[i].x[k], l[i].y[k]);
            gb__csv_field(d, l[i].label);
            fprintf(d, ",%.6g,%.6g\n", lo, hi);
        }
    }
    free(xs);
    if (nmarks) {
        fprintf(d, "\n\n");
        for (size_t m = 0; m < nmarks; m++) {
            fprintf(d, "%.9g,%.6g,", marks[m].x, marks[m].y);
            gb__csv_field(d, marks[m].text);
            fprintf(d, "\n");
        }
    }
    gb__close_file(R, d);
    /* The caption says what the error bars are. */
    if (n && !strstr(c->what, "error bar"))
        gb_appendf(c->what, sizeof c->what, "%s",
                   l[0].bar_to ? " Error bars: from each point's median to its p99."
                               : " Error bars: the p5\u2013p95 band of each point's samples "
                                 "(90% of them lie inside).");
    /* The key sits below the plot: grow the chart with it. */
    c->h = 380 + 18 * (int)(n < 30 ? n : 30);
    FILE *f = gb__gp_open(R, c);
    if (!f)
        return;
    double lo, hi;
    bool logx = ratio_axis(l, n, &lo, &hi);
    /* The key's extra height keeps it clear of the x axis label above it. */
    fprintf(f, "set key outside below height 1.5\n");
    gp_set(f, "xlabel", xlabel);
    gp_set(f, "ylabel", ylabel);
    fprintf(f, "set yrange [0:*]\nset offsets graph 0.02, graph 0.02, graph 0.1, 0\n");
    if (logx)
        fprintf(f, "set logscale x 2\n");
    if (size_axis || logx)
        gp_xtics(f, l, n, size_axis);
    if (extra_gp)
        fputs(extra_gp, f);
    fprintf(f, "plot ");
    /* The spread of every point first (p5 to p95 of its samples, or to the figure bar_to
     * names), thin and without a point of its own (a point type 0 draws a white hole), then
     * the lines and their markers over it, as the key draws them. */
    for (size_t i = 0; i < n; i++)
        gb__gp_item(f, c, i == 0, i, NULL, "1:2:4:5 with yerrorbars lt %zu lw 1 ps 0", i % 12 + 1);
    for (size_t i = 0; i < n; i++)
        gb__gp_item(f, c, false, i, l[i].label, "1:2 with linespoints lt %zu", i % 12 + 1);
    if (nmarks)
        gb__gp_item(f, c, false, n, NULL,
                    "1:2:3 with labels point pt 6 ps 2 lc rgb '#000000' offset 0,1.2 boxed "
                    "font ',9'");
    if (extra_plot)
        fprintf(f, ", \\\n     %s", extra_plot);
    fprintf(f, "\n");
    gb__gp_close(R, c, f);
}

void gb__write_heatmap(struct rep *R, struct chart *c, const char *xlabel, const char *ylabel,
                       const char *const *xs, size_t nx, const char *const *ys, size_t ny,
                       const double *v, const char *cblabel)
{
    FILE *d = gb__open_in(R, "data", c->id, ".csv");
    if (!d)
        return;
    gb__csv_field(d, ylabel);
    fprintf(d, " \\ ");
    gb__csv_field(d, xlabel);
    for (size_t x = 0; x < nx; x++) {
        fprintf(d, ",");
        gb__csv_field(d, xs[x]);
    }
    fprintf(d, "\n");
    for (size_t y = 0; y < ny; y++) {
        gb__csv_field(d, ys[y]);
        for (size_t x = 0; x < nx; x++)
            fprintf(d, ",%.6g", v[y * nx + x]);
        fprintf(d, "\n");
    }
    gb__close_file(R, d);
    c->w = nx > 10 ? 1100 : 800;
    c->h = ny > 8 ? 600 : 420;
    FILE *f = gb__gp_open(R, c);
    if (!f)
        return;
    fprintf(f, "unset key\nunset grid\n");
    gp_set(f, "xlabel", xlabel);
    gp_set(f, "ylabel", ylabel);
    gp_set(f, "cblabel", cblabel);
    fprintf(f,
            "set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 "
            "'#fde725')\n"
            "set tics nomirror\n"
            "plot 'data/%s.csv' matrix rowheaders columnheaders using 1:2:3 with image, \\\n"
            "     '' matrix rowheaders columnheaders using 1:2:($3 == $3 ? sprintf('%%.3g', $3) : "
            "'') with labels boxed font ',9'\n",
            c->id);
    gb__gp_close(R, c, f);
}

void gb__write_stacked(struct rep *R, struct chart *c, const char *const *labels, size_t n,
                       const char *const *parts, size_t np, const double *v, const char *ylabel)
{
    if (n == 0 || np == 0) {
        gb__chart_nodata(R, c, "no bars to draw");
        return;
    }
    FILE *d = gb__open_in(R, "data", c->id, ".csv");
    if (!d)
        return;
    fprintf(d, "# bar");
    for (size_t p = 0; p < np; p++) {
        fprintf(d, ",");
        gb__csv_field(d, parts[p]);
    }
    fprintf(d, ",total\n");
    for (size_t i = 0; i < n; i++) {
        gb__csv_field(d, labels[i]);
        double total = 0;
        for (size_t p = 0; p < np; p++) {
            const double x = v[i * np + p];
            const double drawn = isfinite(x) && x > 0 ? x : 0;
            total += drawn;
            fprintf(d, ",%.6g", drawn);
        }
        fprintf(d, ",%.6g\n", total);
    }
    gb__close_file(R, d);
    c->w = n > 12 ? 1200 : 900;
    FILE *f = gb__gp_open(R, c);
    if (!f)
        return;
    fprintf(f, "set style data histograms\n"
               "set style histogram rowstacked\n"
               "set style fill solid 0.85 border rgb '#333333'\n"
               "set boxwidth 0.6\n"
               "set key outside below height 1.5\n"
               "set xtics rotate by -25 left nomirror\n"
               "set yrange [0:*]\n"
               "set offsets 0, 0, graph 0.08, 0\n");
    /* The last label, slanted down to the right from its tic, runs past the plot by about
     * cos 25 of its length: a right margin that wide keeps it whole (in characters). */
    size_t longest = 0;
    for (size_t i = 0; i < n; i++)
        longest = strlen(labels[i]) > longest ? strlen(labels[i]) : longest;
    fprintf(f, "set rmargin %d\n", (int)(0.9 * (double)longest) + 2);
    gp_set(f, "ylabel", ylabel);
    fprintf(f, "plot ");
    for (size_t p = 0; p < np; p++) {
        fprintf(f, "%s'data/%s.csv' using %zu%s title ", p ? ", \\\n     " : "", c->id, p + 2,
                p == 0 ? ":xtic(1)" : "");
        gb__gp_quote(f, parts[p]);
        fprintf(f, " lt %zu", p % 12 + 1);
    }
    fprintf(f,
            ", \\\n     'data/%s.csv' using 0:%zu:(sprintf('%%.3g', column(%zu))) with labels "
            "offset 0,0.7 font ',9' notitle\n",
            c->id, np + 2, np + 2);
    gb__gp_close(R, c, f);
}

/* ---- gnuplot ------------------------------------------------------------------------------- */

void gb__run_gnuplot(struct rep *R, struct chart *c)
{
    const char *prog = R->o->gnuplot;
    if (!prog || !*prog)
        prog = getenv("GPUBENCH_GNUPLOT");
    if (!prog || !*prog)
        prog = "gnuplot";
    char log[GB_PATH_JOIN], script[128];
    snprintf(log, sizeof log, "%s/plots/%s.log", R->o->dir, c->id);
    /* gnuplot writes charts/ID.svg and .png itself, following links: a link planted there is
     * not drawn through. */
    for (int k = 0; k < 2; k++) {
        char img[GB_PATH_JOIN];
        struct stat ls;
        snprintf(img, sizeof img, "%s/charts/%s.%s", R->o->dir, c->id, k ? "png" : "svg");
        if (lstat(img, &ls) == 0 && S_ISLNK(ls.st_mode)) {
            c->failed = true;
            snprintf(c->error, sizeof c->error,
                     "charts/%s.%s is a symbolic link; the report draws its own files, never "
                     "through a link",
                     c->id, k ? "png" : "svg");
            return;
        }
    }
    snprintf(script, sizeof script, "plots/%s.gp", c->id);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        c->failed = true;
        snprintf(c->error, sizeof c->error, "cannot start gnuplot: %s", strerror(errno));
        return;
    }
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
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
    char svg[GB_PATH_JOIN];
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
