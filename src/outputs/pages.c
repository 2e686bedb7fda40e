/* gpubench — the report's pages (contract in model.h): index.html (one self-contained page,
 * every chart inline as SVG) and report.md (the same in Markdown, charts as PNG images), and
 * data/headline.csv.
 *
 * Every text from a results file reaches the HTML through gb_fputs_xml and the Markdown through
 * gb_fputs_md; the tables are written once for both (table_cell, table_row).
 */
#include "analyses/report_model.h"
#include "outputs/report.h"
#include "analyses/expect.h"
#include "base/error.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "gb-config.h"

/* ---- tables, in HTML and Markdown at once -------------------------------------------------- */

/* One cell (`tag` "td" or "th"), which follows an opening "<tr>" / "|" ... */
static void table_cell(FILE *h, FILE *m, const char *tag, const char *text)
{
    fprintf(h, "<%s>", tag);
    gb_fputs_xml(h, text);
    fprintf(h, "</%s>", tag);
    fprintf(m, " ");
    gb_fputs_md(m, text);
    fprintf(m, " |");
}

/* ... and a whole row of n cells, the first of tag first_tag, the rest plain. */
static void table_row(FILE *h, FILE *m, const char *first_tag, const char *const *cells, size_t n)
{
    fprintf(h, "<tr>");
    fprintf(m, "|");
    for (size_t k = 0; k < n; k++)
        table_cell(h, m, k ? "td" : first_tag, cells[k]);
    fprintf(h, "</tr>\n");
    fprintf(m, "\n");
}

/* The header row of a table in both: "<table>\n<tr><th>..</th></tr>" and "| .. |\n|---|..". */
static void table_head(FILE *h, FILE *m, const char *const *cols, size_t n)
{
    fprintf(h, "<table>\n<tr>");
    fprintf(m, "|");
    for (size_t k = 0; k < n; k++)
        table_cell(h, m, "th", cols[k]);
    fprintf(h, "</tr>\n");
    fprintf(m, "\n|");
    for (size_t k = 0; k < n; k++)
        fprintf(m, "---|");
    fprintf(m, "\n");
}

/* Both forms of a paragraph: "<p class=cls>lead TEXT tail</p>" (cls NULL: a plain "<p>") and
 * "md_lead TEXT md_tail". */
static void note(FILE *h, FILE *m, const char *cls, const char *lead, const char *text,
                 const char *tail, const char *md_lead, const char *md_tail)
{
    if (cls)
        fprintf(h, "<p class=\"%s\">%s", cls, lead);
    else
        fprintf(h, "<p>%s", lead);
    gb_fputs_xml(h, text);
    fprintf(h, "%s</p>\n", tail);
    fprintf(m, "%s", md_lead);
    gb_fputs_md(m, text);
    fprintf(m, "%s", md_tail);
}

/* ---- the headline figures ------------------------------------------------------------------ */

/* One device's cell of a headline row: each part apart, so that the page can set them apart
 * (the value first, its params small below) and the CSV can join them. */
struct hcell {
    char value[80];   /* "68.4 ± 1.2 GFLOP/s" (the ± the 95% confidence half-width); "-" none */
    bool noisy;       /* the result stopped on its budget before the noise target */
    char params[128]; /* "prec=f32 wg=256": the params that reached it */
    char ratio[32];   /* "0.36x": the figure relative to the first device's (above 1: better) */
    char per[128];    /* "12.3 per 1000 USD, 0.45 per W" (with a price sheet) */
    char verdict[64]; /* "NORMAL (ref 21.3)" (with expectations) */
    enum gb_expect_verdict vd;
    const struct gb_result *w;
    double v;
};

struct hrow {
    char label[96];
    struct hcell cell[MAXSER];
};

/* "68.4 ± 1.2 GFLOP/s": the best value of a figure, its 95% confidence half-width where the
 * result has one (of the time per operation for a time), and its unit. */
static void headline_value(const struct gb__figure *fig, const struct gb_result *w, double v,
                           char *buf, size_t len)
{
    char val[32], pm[40] = "";
    gb__fmt_val(v, val, sizeof val);
    const double ci = fig->sf.op_time ? w->op_time_us.ci95 : w->stats.ci95;
    if (isfinite(ci) && ci > 0) {
        char c[32];
        gb__fmt_val(ci, c, sizeof c);
        snprintf(pm, sizeof pm, " \u00b1 %s", c);
    }
    snprintf(buf, len, "%s%s %s", val, pm, fig->sf.op_time ? "us" : w->unit);
}

/* With expectations: "NORMAL vs ref 21.3", the reference median of the result's model and case
 * and check's verdict on it (analyses/expect.h, the default options); nothing for a figure
 * that is not the result's value (a latency drawn from a rate's result). */
static void headline_ref(const struct rep *R, size_t ser, const struct gb__figure *fig,
                         struct hcell *c)
{
    const struct gb_result *w = c->w;
    if (!R->o->expect || fig->sf.op_time)
        return;
    char key[2400];
    const struct gb_results *rs = &R->files[R->ser[ser].file];
    gb_expect_key(rs, w, key, sizeof key);
    const struct gb_expect_case *e = gb_expect_find(R->o->expect, key);
    if (!e || e->better != w->better)
        return;
    struct gb_check_opts o;
    gb_check_opts_default(&o);
    const double noise = w->stats.mean > 0 ? w->stats.ci95 / w->stats.mean : 0;
    struct gb_expect_judgement j =
        gb_expect_judge(w->value, w->better != GB_BETTER_LOWER, noise, w->implausible, e, 0,
                        gb_check_tolerance(&o, w->suite), &o);
    char ref[32];
    gb__fmt_val(e->median, ref, sizeof ref);
    c->vd = j.verdict;
    snprintf(c->verdict, sizeof c->verdict, "%s (ref %s)", gb_expect_verdict_name(j.verdict), ref);
}

/* With a price sheet: the figure per 1000 of the currency and per watt (measured by telemetry
 * where the result has it, else over the sheet's power), as the value chart has them; only for
 * a rate (higher is better), never a time. */
static void headline_per(const struct rep *R, size_t ser, const struct gb__figure *fig,
                         struct hcell *c)
{
    const struct gb_price *p = R->ser[ser].price;
    const struct gb_result *w = c->w;
    if (!R->o->prices || !p || fig->sf.op_time || !higher_better(w))
        return;
    char a[32];
    if (!isnan(p->price) && p->price > 0) {
        gb__fmt_val(c->v / (p->price / 1000.0), a, sizeof a);
        gb_appendf(c->per, sizeof c->per, "%s per 1000 %s", a, R->o->prices->currency);
    }
    double pw = w->tel.on && isfinite(w->tel.perf_per_watt) ? w->tel.perf_per_watt
                : !isnan(p->power_w) && p->power_w > 0      ? c->v / p->power_w
                                                            : NAN;
    if (isfinite(pw)) {
        gb__fmt_val(pw, a, sizeof a);
        gb_appendf(c->per, sizeof c->per, "%s%s per W", c->per[0] ? ", " : "", a);
    }
}

/* One row of figure fig with filter sf (fig->sf, or it narrowed to one precision): false when
 * no series has a trusted result for it. */
static bool headline_row(const struct rep *R, const struct gb__figure *fig,
                         const struct suite_filter *sf, const char *label, struct hrow *row)
{
    memset(row, 0, sizeof *row);
    snprintf(row->label, sizeof row->label, "%s", label);
    bool any = false;
    size_t first = SIZE_MAX; /* the first series with a value: the ratios' reference */
    for (size_t s = 0; s < R->nser; s++) {
        struct hcell *c = &row->cell[s];
        c->vd = GB_EXPECT_VERDICTS;
        c->v = gb__best_in(R, s, sf, &c->w);
        if (!c->w) {
            snprintf(c->value, sizeof c->value, "-");
            continue;
        }
        any = true;
        headline_value(fig, c->w, c->v, c->value, sizeof c->value);
        c->noisy = c->w->noisy;
        gb__param_named(c->w, !fig->sf.case_name, 80, c->params, sizeof c->params);
        headline_ref(R, s, fig, c);
        headline_per(R, s, fig, c);
        if (first == SIZE_MAX) {
            first = s;
        } else if (c->v > 0 && row->cell[first].v > 0) {
            /* Lower is better for a time: the ratio is always "how much better". */
            const bool hb = !fig->sf.op_time && higher_better(c->w);
            const double ratio = hb ? c->v / row->cell[first].v : row->cell[first].v / c->v;
            snprintf(c->ratio, sizeof c->ratio, "%.2fx", ratio);
        }
    }
    return any;
}

/* A row of plain text cells (price, power, case counts). */
static struct hrow *plain_row(struct hrow *row, const char *label)
{
    memset(row, 0, sizeof *row);
    snprintf(row->label, sizeof row->label, "%s", label);
    for (size_t s = 0; s < MAXSER; s++)
        row->cell[s].vd = GB_EXPECT_VERDICTS;
    return row;
}

/* The rows of the headline table: rows of figures (gb__headline_figures; a figure by precision
 * is a row per precision), a column per series; then price and power with a price sheet; then
 * each series' case counts. Only trusted results (gb__trusted) reach a row. */
static size_t headline_rows(const struct rep *R, struct hrow *rows, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < gb__nheadline_figures && n < cap; i++) {
        const struct gb__figure *fig = &gb__headline_figures[i];
        if (!fig->by_prec) {
            n += headline_row(R, fig, &fig->sf, fig->label, &rows[n]);
            continue;
        }
        char precs[16][GB_STR_MAX];
        size_t np = gb__precisions(R, &fig->sf, precs, 16);
        for (size_t p = 0; p < np && n < cap; p++) {
            struct suite_filter sf = fig->sf;
            sf.prec = precs[p];
            char label[96];
            snprintf(label, sizeof label, "%s, %s", fig->label, precs[p]);
            n += headline_row(R, fig, &sf, label, &rows[n]);
        }
    }
    if (R->o->prices && n + 2 <= cap) {
        char label[96];
        snprintf(label, sizeof label, "Price (%s)", R->o->prices->currency);
        struct hrow *p = plain_row(&rows[n], label), *w = plain_row(&rows[n + 1], "Power (W)");
        for (size_t s = 0; s < R->nser; s++) {
            const struct gb_price *pr = R->ser[s].price;
            snprintf(p->cell[s].value, sizeof p->cell[s].value,
                     pr && !isnan(pr->price) ? "%.0f" : "-", pr ? pr->price : 0.0);
            snprintf(w->cell[s].value, sizeof w->cell[s].value,
                     pr && !isnan(pr->power_w) ? "%.0f" : "-", pr ? pr->power_w : 0.0);
        }
        n += 2;
    }
    if (n < cap) {
        struct hrow *row = plain_row(&rows[n++], "Cases ok / skipped / failed (noisy)");
        for (size_t s = 0; s < R->nser; s++) {
            size_t ok = 0, sk = 0, fa = 0, nz = 0;
            const struct gb_results *rs = &R->files[R->ser[s].file];
            for (size_t i = 0; i < rs->nresults; i++) {
                const struct gb_result *r = &rs->results[i];
                if (r->device_index != R->ser[s].dev)
                    continue;
                ok += r->status == GB_STATUS_OK;
                sk += r->status == GB_STATUS_SKIPPED;
                fa += r->status == GB_STATUS_FAILED;
                nz += r->status == GB_STATUS_OK && r->noisy;
            }
            snprintf(row->cell[s].value, sizeof row->cell[s].value, "%zu / %zu / %zu (%zu)", ok, sk,
                     fa, nz);
        }
    }
    return n;
}

/* A cell's parts as one line of text: the CSV's and the Markdown's. */
static void cell_text(const struct hcell *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s", c->value);
    if (c->noisy)
        gb_appendf(buf, len, " (noisy)");
    if (c->ratio[0])
        gb_appendf(buf, len, ", %s", c->ratio);
    if (c->verdict[0])
        gb_appendf(buf, len, "; %s", c->verdict);
    if (c->per[0])
        gb_appendf(buf, len, "; %s", c->per);
    if (c->params[0])
        gb_appendf(buf, len, " (%s)", c->params);
}

static void write_headline_csv(struct rep *R, const struct hrow *rows, size_t n)
{
    FILE *d = gb__open_in(R, "data", "headline", ".csv");
    if (!d)
        return;
    fprintf(d, "# figure");
    for (size_t s = 0; s < R->nser; s++) {
        fprintf(d, ",");
        gb__csv_field(d, R->ser[s].label);
    }
    fprintf(d, "\n");
    for (size_t i = 0; i < n; i++) {
        gb__csv_field(d, rows[i].label);
        for (size_t s = 0; s < R->nser; s++) {
            char t[700];
            cell_text(&rows[i].cell[s], t, sizeof t);
            fprintf(d, ",");
            gb__csv_field(d, t);
        }
        fprintf(d, "\n");
    }
    gb__close_file(R, d);
}

/* The class of a verdict on the page: LOW and IMPLAUSIBLE stand out, NORMAL reads as fine. */
static const char *verdict_class(enum gb_expect_verdict v)
{
    switch (v) {
    case GB_EXPECT_NORMAL:
        return "ok";
    case GB_EXPECT_LOW:
    case GB_EXPECT_IMPLAUSIBLE:
    case GB_EXPECT_FAILED:
        return "bad";
    case GB_EXPECT_HIGH:
        return "high";
    default:
        return "unknown";
    }
}

/* One cell on the page: the value large, then its mark, ratio and verdict, then per price and
 * watt, then the params small. */
static void cell_html(FILE *h, const struct hcell *c)
{
    fprintf(h, "<td><span class=\"fig\">");
    gb_fputs_xml(h, c->value);
    fprintf(h, "</span>");
    if (c->noisy)
        fprintf(h, " <span class=\"noisy\" title=\"stopped on its time budget before the "
                   "noise target: the figure may move between runs\">noisy</span>");
    if (c->ratio[0])
        fprintf(h, " <span class=\"ratio\">%s</span>", c->ratio);
    if (c->verdict[0]) {
        fprintf(h, " <span class=\"v-%s\">", verdict_class(c->vd));
        gb_fputs_xml(h, c->verdict);
        fprintf(h, "</span>");
    }
    if (c->per[0]) {
        fprintf(h, "<span class=\"per\">");
        gb_fputs_xml(h, c->per);
        fprintf(h, "</span>");
    }
    if (c->params[0]) {
        fprintf(h, "<span class=\"params\">");
        gb_fputs_xml(h, c->params);
        fprintf(h, "</span>");
    }
    fprintf(h, "</td>");
}

/* The answer, first on the page: the headline figures per device, each with its ± and noisy
 * mark, side by side with the ratio to the first device, per price and watt with a price
 * sheet, and the verdict against the reference with expectations. */
static void headline_section(struct rep *R, FILE *h, FILE *m)
{
    struct hrow *rows = calloc(32, sizeof *rows);
    if (!rows) {
        R->err = R->err ? R->err : GB_FAIL(GB_ENOMEM, "the headline table");
        return;
    }
    size_t nrows = headline_rows(R, rows, 32);
    write_headline_csv(R, rows, nrows);
    fprintf(h, "<section id=\"headline\">\n<h2>Headline figures</h2>\n");
    fprintf(m, "## Headline figures\n\n");
    const char *cols[MAXSER + 1] = {"figure"};
    for (size_t s = 0; s < R->nser; s++)
        cols[s + 1] = R->ser[s].label;
    table_head(h, m, cols, R->nser + 1);
    for (size_t i = 0; i < nrows; i++) {
        fprintf(h, "<tr><th>");
        gb_fputs_xml(h, rows[i].label);
        fprintf(h, "</th>");
        fprintf(m, "| ");
        gb_fputs_md(m, rows[i].label);
        fprintf(m, " |");
        for (size_t s = 0; s < R->nser; s++) {
            cell_html(h, &rows[i].cell[s]);
            char t[700];
            cell_text(&rows[i].cell[s], t, sizeof t);
            fprintf(m, " ");
            gb_fputs_md(m, t);
            fprintf(m, " |");
        }
        fprintf(h, "</tr>\n");
        fprintf(m, "\n");
    }
    fprintf(h, "</table>\n");
    fprintf(m, "\n");
    free(rows);
    /* How to read it, under the table. */
    char how[1200];
    snprintf(how, sizeof how,
             "The best median of each figure on each device, with the params that reached it "
             "(data/headline.csv): only verified, plausible results measured in the regime the "
             "figure names, and arithmetic one precision at a time. \u00b1 is the 95%% "
             "confidence half-width of the result's samples; noisy: the result stopped on its "
             "time budget before its noise target, so it may move between runs.%s%s",
             R->nser > 1 ? " Beside each device after the first: its figure relative to the "
                           "first device's (above 1: better, for a time too)."
                         : "",
             R->o->prices ? " With the price sheet: each rate per 1000 of its currency and per "
                            "watt (measured by telemetry where the run has it, else over the "
                            "sheet's power)."
                          : "");
    note(h, m, "how", "", how, "", "", "\n\n");
    if (R->o->expect_path) {
        fprintf(h, "<p class=\"how\">The verdict is <code>gpubench check</code>'s (NORMAL, LOW, "
                   "HIGH) against the device model's reference median in ");
        gb_fputs_xml(h, R->o->expect_path);
        fprintf(h, "; none where the model has no reference for that case.</p>\n");
        fprintf(m, "The verdict is `gpubench check`'s (NORMAL, LOW, HIGH) against the device "
                   "model's reference median in `");
        gb_fputs_md(m, R->o->expect_path);
        fprintf(m, "`; none where the model has no reference for that case.\n\n");
    }
    fprintf(h, "</section>\n");
}

/* ---- runs, devices and cases --------------------------------------------------------------- */

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

static void runs_section(struct rep *R, FILE *h, FILE *m)
{
    fprintf(h, "<h2 id=\"runs\">Runs and devices</h2>\n");
    fprintf(m, "\n## Runs and devices\n\n");
    static const char *const run_cols[] = {"file",    "host",     "started (UTC)",
                                           "profile", "gpubench", "ok / skipped / failed (noisy)"};
    table_head(h, m, run_cols, 6);
    for (size_t f = 0; f < R->nfiles; f++) {
        const struct gb_results *rs = &R->files[f];
        size_t ok, sk, fa, nz;
        count_status(rs, &ok, &sk, &fa, &nz);
        char status[96], ver[96];
        snprintf(status, sizeof status, "%zu / %zu / %zu (%zu)%s", ok, sk, fa, nz,
                 rs->run.interrupted ? ", interrupted" : "");
        snprintf(ver, sizeof ver, "%s (%s)", rs->run.gpubench_version, rs->run.git_commit);
        const char *cells[] = {R->paths[f],          rs->run.host, rs->run.start_utc,
                               rs->run.profile_name, ver,          status};
        table_row(h, m, "td", cells, 6);
    }
    fprintf(h, "</table>\n");
    fprintf(m, "\n");
    static const char *const dev_cols[] = {
        "series",        "device", "backend", "vendor / driver",
        "compute units", "clock",  "memory",  "memory levels (latency staircase)"};
    /* The levels column only where a series has a latency staircase. */
    char(*levels)[400] = calloc(R->nser ? R->nser : 1, sizeof *levels);
    size_t ncols = 7;
    for (size_t s = 0; levels && s < R->nser; s++) {
        gb__latency_levels_of(R, s, levels[s], sizeof levels[s]);
        if (levels[s][0])
            ncols = 8;
    }
    table_head(h, m, dev_cols, ncols);
    for (size_t s = 0; s < R->nser; s++) {
        const struct gb_result_device *d = &R->files[R->ser[s].file].devices[R->ser[s].dev];
        char vd[300], cu[32], clk[32], mem[32];
        snprintf(vd, sizeof vd, "%s / %s", d->info.vendor, d->info.driver);
        snprintf(cu, sizeof cu, "%u", d->info.compute_units);
        snprintf(clk, sizeof clk, "%u MHz", d->info.clock_mhz);
        snprintf(mem, sizeof mem, "%.1f GiB", (double)d->info.global_mem / (1024.0 * 1024 * 1024));
        const char *lv = levels ? levels[s] : "";
        const char *cells[] = {R->ser[s].label, d->info.name, d->backend, vd, cu, clk, mem, lv};
        table_row(h, m, "td", cells, ncols);
    }
    free(levels);
    fprintf(h, "</table>\n");
    if (R->dropped_series) {
        fprintf(h,
                "<p class=\"error\">%zu more devices are in the files; at most %d are "
                "shown side by side.</p>\n",
                R->dropped_series, MAXSER);
        fprintf(m,
                "\n**%zu more devices are in the files; at most %d are shown side by "
                "side.**\n",
                R->dropped_series, MAXSER);
    }
}

/* Health per device: what the driver can tell (gpubench check's items, analyses/expect.h). */
static void health_section(struct rep *R, FILE *h, FILE *m)
{
    fprintf(h, "<h2 id=\"health\">Health</h2>\n<p>What the driver reported per device "
               "(gpubench check's items: a FAIL fails the check).</p>\n");
    fprintf(m, "\n## Health\n\nWhat the driver reported per device (gpubench check's items: "
               "a FAIL fails the check).\n\n");
    const char *cols[GB_HEALTH_ITEMS + 1] = {"series"};
    struct gb_health_item items[GB_HEALTH_ITEMS];
    gb_health_items(&R->files[0], -1, items); /* the item names, for the header */
    for (size_t k = 0; k < GB_HEALTH_ITEMS; k++)
        cols[k + 1] = items[k].item;
    table_head(h, m, cols, GB_HEALTH_ITEMS + 1);
    for (size_t s = 0; s < R->nser; s++) {
        gb_health_items(&R->files[R->ser[s].file], R->ser[s].dev, items);
        char cell[GB_HEALTH_ITEMS][300];
        const char *cells[GB_HEALTH_ITEMS + 1] = {R->ser[s].label};
        for (size_t k = 0; k < GB_HEALTH_ITEMS; k++) {
            const struct gb_health_item *it = &items[k];
            snprintf(cell[k], sizeof cell[k], "%s%s%s", gb_health_verdict_name(it->verdict),
                     it->reading[0] || it->note[0] ? ": " : "",
                     it->verdict == GB_HEALTH_OK && it->reading[0] ? it->reading
                     : it->note[0]                                 ? it->note
                                                                   : it->reading);
            cells[k + 1] = cell[k];
        }
        table_row(h, m, "td", cells, GB_HEALTH_ITEMS + 1);
    }
    fprintf(h, "</table>\n");
    fprintf(m, "\n");
}

/* Skipped and failed cases: why, so that a missing figure is never a mystery. */
static void cases_section(struct rep *R, FILE *h, FILE *m)
{
    fprintf(h, "<h2 id=\"cases\">Skipped and failed cases</h2>\n");
    fprintf(m, "\n## Skipped and failed cases\n\n");
    static const char *const cols[] = {"file", "suite", "case", "params", "status", "reason"};
    size_t listed = 0, total = 0;
    for (size_t f = 0; f < R->nfiles; f++)
        for (size_t i = 0; i < R->files[f].nresults; i++) {
            const struct gb_result *r = &R->files[f].results[i];
            if (r->status == GB_STATUS_OK)
                continue;
            total++;
            if (listed == 200)
                continue;
            if (listed++ == 0)
                table_head(h, m, cols, 6);
            char params[512], reason[400];
            gb_params_format(&r->params, params, sizeof params);
            snprintf(reason, sizeof reason, "%.*s", (int)strcspn(r->reason, "\n"), r->reason);
            const char *cells[] = {gb__base_name(R->paths[f]), r->suite, r->case_name, params,
                                   gb_status_name(r->status),  reason};
            table_row(h, m, "td", cells, 6);
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
}

/* ---- the charts ---------------------------------------------------------------------------- */

/* Writes the SVG gnuplot drew into the page: without its XML prolog, and with its element ids
 * prefixed by the chart's id so that several charts' ids cannot collide in one document. */
static bool inline_svg(FILE *out, const char *dir, const struct chart *c)
{
    char path[GB_PATH_JOIN];
    snprintf(path, sizeof path, "%s/charts/%s.svg", dir, c->id);
    /* What gnuplot drew, never a file a planted link leads to. */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return false;
    }
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
    /* One pass over the text: each position is tested against the patterns that start with its
     * character (searching for each pattern from every match on was quadratic: a chart of
     * 100,000 points took a minute). */
    static const char *const pats[] = {"id='", "id=\"", "href='#", "href=\"#", "url(#"};
    const char *from = s; /* the text not yet written */
    for (const char *p = s; *p; p++) {
        if (*p != 'i' && *p != 'h' && *p != 'u')
            continue;
        for (size_t k = 0; k < sizeof pats / sizeof pats[0]; k++) {
            size_t pl = strlen(pats[k]);
            if (strncmp(p, pats[k], pl) == 0) {
                /* A data: URL in href is not an id reference; only '#' forms match. */
                fwrite(from, 1, (size_t)(p - from) + pl, out);
                fprintf(out, "%s_", c->id);
                p += pl - 1;
                from = p + 1;
                break;
            }
        }
    }
    fputs(from, out);
    free(buf);
    return true;
}

static void chart_section(struct rep *R, FILE *h, FILE *m, const struct chart *c)
{
    fprintf(h, "<section id=\"%s\">\n<h3>", c->id);
    gb_fputs_xml(h, c->title);
    fprintf(h, "</h3>\n");
    fprintf(m, "\n### ");
    gb_fputs_md(m, c->title);
    fprintf(m, "\n\n");
    note(h, m, NULL, "", c->what, "", "", "\n\n");
    if (c->failed) {
        note(h, m, "error", "This chart could not be drawn: ", c->error, "",
             "**This chart could not be drawn:** ", "\n\n");
    } else {
        fprintf(h, "<figure>\n");
        if (!inline_svg(h, R->o->dir, c))
            fprintf(h, "<p class=\"error\">charts/%s.svg is missing.</p>", c->id);
        fprintf(h, "\n</figure>\n");
        fprintf(m, "![");
        gb_fputs_md(m, c->title);
        fprintf(m, "](charts/%s.png)\n\n", c->id);
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
            fprintf(m, "- ");
            gb_fputs_md(m, line);
            fprintf(m, "\n");
            s += l + (s[l] == '\n');
        }
        fprintf(h, "</ul>\n");
        fprintf(m, "\n");
    }
    fprintf(h, "</section>\n");
}

/* ---- the pages ----------------------------------------------------------------------------- */

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
    "nav ul{columns:2}"
    /* The headline table: the figure large, its marks beside it, the params small below. */
    "#headline h2{margin-top:.8em}#headline table{font-size:.95em;margin-top:.5em}"
    "#headline th,#headline td{padding:.2em .5em;line-height:1.3}#headline "
    "td{min-width:12em}#headline tr>th:first-child{min-width:12em}"
    ".fig{font-weight:600}"
    ".noisy{color:#8a5a00;background:#fff3d6;border-radius:3px;padding:0 .3em;font-size:.8em}"
    ".ratio{color:#1f4e79;font-size:.9em}.v-ok{color:#1b7f3b}.v-bad{color:#b00020;"
    "font-weight:bold}.v-high{color:#8a5a00}.v-unknown{color:#777}.per{font-size:.85em}"
    ".params,.per{display:block;line-height:1.2}.params{color:#777;font-size:.78em}.how{color:#555;"
    "font-size:.88em}";

/* The title and what generated the page. */
static void page_head(struct rep *R, FILE *h, FILE *m, const char *title)
{
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
    fprintf(h,
            "</h1>\n<p class=\"meta\">Generated by gpubench %s on %s from %zu results "
            "file%s. Charts drawn by gnuplot; the data behind each is in <code>data/</code>, "
            "its script in <code>plots/</code>.</p>\n",
            GB_VERSION, when, R->nfiles, R->nfiles == 1 ? "" : "s");
    fprintf(m, "# ");
    gb_fputs_md(m, title);
    fprintf(m,
            "\n\nGenerated by gpubench %s on %s from %zu results file%s. Charts drawn by "
            "gnuplot; the data behind each chart is in `data/`, its script in `plots/`; "
            "`index.html` has the same report with the charts inline.\n\n",
            GB_VERSION, when, R->nfiles, R->nfiles == 1 ? "" : "s");
}

/* The contents, after the headline table: the sections and every chart with data, in two
 * columns; the charts without data once, on one line, each with why in its tooltip (and in
 * data/ID.csv). */
static void contents(struct rep *R, FILE *h, FILE *m)
{
    fprintf(h, "<nav>\n<h2>Contents</h2>\n<ul>\n<li><a href=\"#runs\">Runs and devices</a></li>\n"
               "<li><a href=\"#charts\">Charts</a></li>\n");
    for (size_t i = 0; i < R->nch; i++) {
        if (R->ch[i].nodata[0])
            continue;
        fprintf(h, "<li><a href=\"#%s\">", R->ch[i].id);
        gb_fputs_xml(h, R->ch[i].title);
        fprintf(h, "</a></li>\n");
    }
    fprintf(h, "<li><a href=\"#health\">Health</a></li>\n"
               "<li><a href=\"#cases\">Skipped and failed cases</a></li>\n</ul>\n");
    size_t k = 0;
    for (size_t i = 0; i < R->nch; i++) {
        const struct chart *c = &R->ch[i];
        if (!c->nodata[0])
            continue;
        /* Each with its reason: a suite absent from the files, or its results there but not
         * enough for the chart (one batch size, cache-resident arrays only), which "no data"
         * alone would deny. */
        if (k++ == 0) {
            fprintf(h, "<p class=\"nodata\" id=\"nodata\">Not drawn (hover for why): ");
            fprintf(m, "*Not drawn:* ");
        } else {
            fprintf(h, ", ");
            fprintf(m, "; ");
        }
        fprintf(h, "<span title=\"");
        gb_fputs_xml(h, c->nodata);
        fprintf(h, "\">");
        gb_fputs_xml(h, c->title);
        fprintf(h, "</span>");
        gb_fputs_md(m, c->title);
        fprintf(m, " — ");
        gb_fputs_md(m, c->nodata);
    }
    if (k) {
        fprintf(h, ".</p>\n");
        fprintf(m, ".\n\n");
    }
    fprintf(h, "</nav>\n");
}

void gb__write_pages(struct rep *R, const char *title)
{
    FILE *h = gb__open_in(R, "", "index", ".html");
    FILE *m = gb__open_in(R, "", "report", ".md");
    if (!h || !m) {
        if (h)
            fclose(h);
        if (m)
            fclose(m);
        return;
    }
    /* The answer first: the headline table fills the first screen, the contents follow. */
    page_head(R, h, m, title);
    headline_section(R, h, m);
    contents(R, h, m);
    runs_section(R, h, m);
    fprintf(h, "<h2 id=\"charts\">Charts</h2>\n");
    fprintf(m, "\n## Charts\n");
    for (size_t i = 0; i < R->nch; i++)
        if (!R->ch[i].nodata[0])
            chart_section(R, h, m, &R->ch[i]);
    /* After the charts: the page's first screen stays the headlines and the charts. */
    health_section(R, h, m);
    cases_section(R, h, m);
    fprintf(h, "</body>\n</html>\n");
    gb__close_file(R, h);
    gb__close_file(R, m);
}
