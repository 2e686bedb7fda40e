/* gpubench — compare's outputs: the comparison (analyses/compare.h) as text, Markdown, JSON
 * (gpubench-compare/1) and JUnit XML, and as a neutral document for any writer. */
#include "outputs/compare_out.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "base/util.h"
#include "results/json_arena.h"

/* ---- outputs ------------------------------------------------------------------------------- */

static void fmt_num(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.4g", v);
}

static void fmt_change(const struct gb_compare_row *r, char *buf, size_t len)
{
    if (isnan(r->j.ratio))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%+.1f%%", 100.0 * (r->j.ratio - 1.0));
}

static void fmt_p(const struct gb_compare_row *r, char *buf, size_t len)
{
    if (isnan(r->j.ratio))
        snprintf(buf, len, "-");
    else if (r->j.p < 1e-4)
        snprintf(buf, len, "<1e-4");
    else
        snprintf(buf, len, "%.2g", r->j.p);
}

static void fmt_noise(const struct gb_compare_row *r, char *buf, size_t len)
{
    if (isnan(r->j.ratio) || !isfinite(r->j.noise))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.1f%%", 100.0 * r->j.noise);
}

static const struct gb_result *row_result(const struct gb_compare_row *r)
{
    return r->base ? r->base : r->next;
}

/* Whether a row was judged against the nights (its nights columns mean something). */
static bool judged_by_nights(const struct gb_compare_row *r)
{
    return r->nights.threshold_source != NULL;
}

/* The nights columns of a row: z, nights used, spread, catches ("-" where they do not apply). */
static void fmt_nights(const struct gb_compare_row *r, char *z, char *n, char *spread,
                       char *catches, size_t len)
{
    snprintf(z, len, "-");
    snprintf(n, len, "-");
    snprintf(spread, len, "-");
    snprintf(catches, len, "-");
    if (!judged_by_nights(r))
        return;
    snprintf(n, len, "%zu", r->nights.n);
    if (r->nights.n >= 2 || isfinite(r->nights.z))
        snprintf(spread, len, "%.1f%%", 100.0 * r->nights.spread);
    if (isfinite(r->nights.z))
        snprintf(z, len, "%+.1f", r->nights.z);
    /* A slowdown of 100% or more as the factor of time it means: "x2.4". */
    if (isfinite(r->nights.catches) && r->nights.catches < 1.0)
        snprintf(catches, len, "%.0f%%", 100.0 * r->nights.catches);
    else if (isfinite(r->nights.catches))
        snprintf(catches, len, "x%.3g", 1.0 + r->nights.catches);
}

/* The cut the rows with all the nights used (NAN when none). */
static double full_cut(const struct gb_comparison *c)
{
    for (size_t i = 0; i < c->nrows; i++)
        if (judged_by_nights(&c->rows[i]) && c->rows[i].nights.n == c->nnights &&
            isfinite(c->rows[i].nights.cut))
            return c->rows[i].nights.cut;
    return NAN;
}

/* s (NULL: nothing) as it is in text, escaped (gb_fputs_md) in Markdown: a name from a results
 * file (host, profile, device, path) reaches a Markdown document only through here or a table
 * cell. */
static void put_name(FILE *f, const char *s, bool md)
{
    if (md)
        gb_fputs_md(f, s);
    else
        fputs(s ? s : "", f);
}

static void header_lines(FILE *f, const struct gb_comparison *c, const char *prefix, bool md)
{
    const struct gb_results *sides[2] = {c->base, c->next};
    const char *paths[2] = {c->base_path, c->next_path};
    const char *names[2] = {"BASE", "NEW "};
    if (c->nnights) {
        const struct gb_results *last = &c->nights[c->nnights - 1];
        fprintf(f, "%sBASE ", prefix);
        put_name(f, c->baseline ? c->baseline : "?", md);
        fprintf(f, ": %zu night%s, ", c->nnights, c->nnights == 1 ? "" : "s");
        put_name(f, c->nights[0].run.start_utc, md);
        fputs(" .. ", f);
        put_name(f, last->run.start_utc, md);
        fputs("; the newest ", f);
        put_name(f, c->night_paths[c->nnights - 1], md);
        fputs(": host ", f);
        put_name(f, last->run.host, md);
        fputs(", gpubench ", f);
        put_name(f, last->run.gpubench_version, md);
        fputs(" (", f);
        put_name(f, last->run.git_commit, md);
        fputs("), profile '", f);
        put_name(f, last->run.profile_name, md);
        fputs("'\n", f);
    }
    for (int s = c->nnights ? 1 : 0; s < 2; s++) {
        fprintf(f, "%s%s ", prefix, names[s]);
        put_name(f, paths[s] ? paths[s] : "?", md);
        fputs(": host ", f);
        put_name(f, sides[s]->run.host, md);
        fputs(", ", f);
        put_name(f, sides[s]->run.start_utc, md);
        fputs(", gpubench ", f);
        put_name(f, sides[s]->run.gpubench_version, md);
        fputs(" (", f);
        put_name(f, sides[s]->run.git_commit, md);
        fputs("), profile '", f);
        put_name(f, sides[s]->run.profile_name, md);
        fputs("'\n", f);
    }
    fprintf(f, "%sthreshold %.3g%%%s", prefix, 100.0 * c->opts.threshold,
            c->nnights && c->opts.threshold_given ? " (given)" : "");
    for (size_t i = 0; i < c->opts.nsuite_thresholds; i++) {
        fputs(i ? ", " : " (", f);
        put_name(f, c->opts.suite_threshold[i].suite, md);
        fprintf(f, " %.3g%%", 100.0 * c->opts.suite_threshold[i].threshold);
    }
    if (!c->nnights) {
        fprintf(f,
                "%s, alpha %g (two-sided Mann-Whitney U on the samples: it judges within-run "
                "noise only; against a baseline of nights, compare judges the spread between "
                "runs)%s\n",
                c->opts.nsuite_thresholds ? ")" : "", c->opts.alpha,
                c->opts.fail_on_faster ? "; FASTER fails too" : "");
        return;
    }
    if (c->opts.nsuite_thresholds)
        fputc(')', f);
    if (c->learned)
        fprintf(f, ", learned per case for %zu case%s", c->learned, c->learned == 1 ? "" : "s");
    char cut[64] = "";
    double fc = full_cut(c);
    if (isfinite(fc))
        snprintf(cut, sizeof cut, ": %.1f for %zu nights", fc, c->nnights);
    fprintf(f,
            "; a regression is also outside the nights' spread: more than the cut (the %g-sigma "
            "tail%s) in MADs from their median; learning below %zu nights%s\n",
            c->opts.mads, cut, c->opts.min_nights,
            c->opts.fail_on_faster ? "; FASTER fails too" : "");
}

/* "44 pairs compared: 40 SAME, ... -> 1 regression (exit 3)", without a newline. */
static void summary_text(const struct gb_comparison *c, char *buf, size_t len)
{
    if (c->nnights)
        snprintf(buf, len, "%zu cases compared against %zu night%s:", c->matched, c->nnights,
                 c->nnights == 1 ? "" : "s");
    else
        snprintf(buf, len, "%zu pairs compared:", c->matched);
    bool first = true;
    for (int v = 0; v < GB_VERDICT_COUNT; v++) {
        if (!c->counts[v])
            continue;
        gb_appendf(buf, len, "%s %zu %s", first ? "" : ",", c->counts[v], gb_verdict_name(v));
        first = false;
    }
    if (c->regressions)
        gb_appendf(buf, len, " -> %zu regression%s (exit 3)", c->regressions,
                   c->regressions == 1 ? "" : "s");
    else
        gb_appendf(buf, len, " -> no regression (exit 0)");
}

static void summary_line(FILE *f, const struct gb_comparison *c)
{
    char s[512];
    summary_text(c, s, sizeof s);
    fprintf(f, "%s\n", s);
}

/* One line per regression, against nights: how far outside the nights' spread it lies. */
static void regression_lines(FILE *f, const struct gb_comparison *c, const char *prefix, bool md)
{
    if (!c->nnights)
        return;
    for (size_t i = 0; i < c->nrows; i++) {
        const struct gb_compare_row *row = &c->rows[i];
        if (!row->regression)
            continue;
        const struct gb_result *r = row_result(row);
        fprintf(f, "%sregression: ", prefix);
        put_name(f, r->suite, md);
        fputc(' ', f);
        put_name(f, r->case_name, md);
        if (row->params[0])
            fputc(' ', f);
        put_name(f, row->params, md);
        fputs(" on ", f);
        put_name(f, row->device, md);
        fputs(": ", f);
        if (judged_by_nights(row))
            fprintf(f,
                    "%s %+.1f%%, %.1f MADs beyond %zu nights (their spread %.1f%%, the cut "
                    "%.1f, the threshold %.3g%% %s)\n",
                    gb_verdict_name(row->j.verdict), 100.0 * (row->j.ratio - 1.0),
                    fabs(row->nights.z), row->nights.n, 100.0 * row->nights.spread, row->nights.cut,
                    100.0 * row->threshold, row->nights.threshold_source);
        else {
            fprintf(f, "%s: ", gb_verdict_name(row->j.verdict));
            put_name(f, row->note, md);
            fputc('\n', f);
        }
    }
}

int gb_compare_write_text(FILE *f, const struct gb_comparison *c, bool only_changes)
{
    header_lines(f, c, "", false);
    if (c->notes[0]) {
        const char *s = c->notes;
        while (*s) {
            int l = (int)strcspn(s, "\n");
            fprintf(f, "note: %.*s\n", l, s);
            s += l + (s[l] == '\n');
        }
    }
    /* Column widths from the content, the device column capped so that rows stay readable. */
    int w_suite = 5, w_case = 4, w_dev = 6, w_par = 6, w_unit = 4;
    for (size_t i = 0; i < c->nrows; i++) {
        const struct gb_result *r = row_result(&c->rows[i]);
        int l;
        if ((l = (int)strlen(r->suite)) > w_suite)
            w_suite = l;
        if ((l = (int)strlen(r->case_name)) > w_case)
            w_case = l;
        if ((l = (int)strlen(c->rows[i].device)) > w_dev)
            w_dev = l;
        if ((l = (int)strlen(c->rows[i].params)) > w_par)
            w_par = l;
        if ((l = (int)strlen(r->unit)) > w_unit)
            w_unit = l;
    }
    if (w_dev > 28)
        w_dev = 28;
    fprintf(f, "change: the speed of new against base (+: faster, also where the unit is a time "
               "and lower is better)\n");
    fprintf(f, "%-9s %-*s %-*s %-*s %-*s %10s %10s %-*s %8s ", "verdict", w_suite, "suite", w_case,
            "case", w_dev, "device", w_par, "params", "base", "new", w_unit, "unit", "change");
    if (c->nnights)
        fprintf(f, "%6s %6s %6s %7s  %s\n", "z", "nights", "spread", "catches", "note");
    else
        fprintf(f, "%6s %6s  %s\n", "p", "noise", "note");
    for (size_t i = 0; i < c->nrows; i++) {
        const struct gb_compare_row *row = &c->rows[i];
        if (only_changes && row->j.verdict == GB_VERDICT_SAME)
            continue;
        const struct gb_result *r = row_result(row);
        char b[32], n[32], ch[32], p[16], nz[16], verdict[16];
        fmt_num(row->j.base_median, b, sizeof b);
        fmt_num(row->j.next_median, n, sizeof n);
        fmt_change(row, ch, sizeof ch);
        snprintf(verdict, sizeof verdict, "%s%s", gb_verdict_name(row->j.verdict),
                 row->regression ? "!" : "");
        fprintf(f, "%-9s %-*s %-*s %-*.*s %-*s %10s %10s %-*s %8s ", verdict, w_suite, r->suite,
                w_case, r->case_name, w_dev, w_dev, row->device, w_par, row->params, b, n, w_unit,
                r->unit, ch);
        if (c->nnights) {
            char z[16], nn[16], sp[16], ca[16];
            fmt_nights(row, z, nn, sp, ca, sizeof z);
            fprintf(f, "%6s %6s %6s %7s  %s\n", z, nn, sp, ca, row->note);
        } else {
            fmt_p(row, p, sizeof p);
            fmt_noise(row, nz, sizeof nz);
            fprintf(f, "%6s %6s  %s\n", p, nz, row->note);
        }
    }
    regression_lines(f, c, "", false);
    summary_line(f, c);
    return ferror(f) ? GB_FAIL(GB_EIO, "writing the comparison") : 0;
}

int gb_compare_write_markdown(FILE *f, const struct gb_comparison *c)
{
    fprintf(f, "# gpubench compare\n\n");
    header_lines(f, c, "- ", true);
    if (c->notes[0]) {
        const char *s = c->notes;
        while (*s) {
            int l = (int)strcspn(s, "\n");
            char line[sizeof c->notes];
            snprintf(line, sizeof line, "%.*s", l, s);
            fputs("- **note:** ", f);
            gb_fputs_md(f, line);
            fputc('\n', f);
            s += l + (s[l] == '\n');
        }
    }
    char sum[512];
    summary_text(c, sum, sizeof sum);
    fprintf(f, "\n**%s**\n\n", sum);
    if (c->regressions && c->nnights) {
        regression_lines(f, c, "- ", true);
        fputc('\n', f);
    }
    fprintf(f, "- *change*: the speed of new against base (+: faster, also where the unit is a "
               "time and lower is better)\n\n");
    if (c->nnights)
        fprintf(f, "| verdict | suite | case | device | params | base | new | unit | change | z | "
                   "nights | spread | catches | note |\n"
                   "|---|---|---|---|---|---:|---:|---|---:|---:|---:|---:|---:|---|\n");
    else
        fprintf(f, "| verdict | suite | case | device | params | base | new | unit | change | p | "
                   "noise | note |\n|---|---|---|---|---|---:|---:|---|---:|---:|---:|---|\n");
    for (size_t i = 0; i < c->nrows; i++) {
        const struct gb_compare_row *row = &c->rows[i];
        const struct gb_result *r = row_result(row);
        char b[32], n[32], ch[32], p[16], nz[16];
        fmt_num(row->j.base_median, b, sizeof b);
        fmt_num(row->j.next_median, n, sizeof n);
        fmt_change(row, ch, sizeof ch);
        fprintf(f, "| %s%s%s | ", row->regression ? "**" : "", gb_verdict_name(row->j.verdict),
                row->regression ? "**" : "");
        gb_fputs_md(f, r->suite);
        fputs(" | ", f);
        gb_fputs_md(f, r->case_name);
        fputs(" | ", f);
        gb_fputs_md(f, row->device);
        fputs(" | ", f);
        gb_fputs_md(f, row->params);
        fprintf(f, " | %s | %s | ", b, n);
        gb_fputs_md(f, r->unit);
        if (c->nnights) {
            char z[16], nn[16], sp[16], ca[16];
            fmt_nights(row, z, nn, sp, ca, sizeof z);
            fprintf(f, " | %s | %s | %s | %s | %s | ", ch, z, nn, sp, ca);
        } else {
            fmt_p(row, p, sizeof p);
            fmt_noise(row, nz, sizeof nz);
            fprintf(f, " | %s | %s | %s | ", ch, p, nz);
        }
        gb_fputs_md(f, row->note);
        fputs(" |\n", f);
    }
    return ferror(f) ? GB_FAIL(GB_EIO, "writing the comparison") : 0;
}

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *side_json(const struct gb_results *rs, const char *path)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "file", path ? path : "", "host",
                     rs->run.host, "start_utc", rs->run.start_utc, "gpubench",
                     rs->run.gpubench_version, "git_commit", rs->run.git_commit, "profile",
                     rs->run.profile_name);
}

static json_t *params_json(const struct gb_params *p)
{
    json_t *o = json_object();
    for (size_t i = 0; i < p->n; i++) {
        const struct gb_value *v = &p->v[i];
        json_t *x;
        switch (v->type) {
        case GB_V_SIZE:
            x = json_integer((json_int_t)v->u.size);
            break;
        case GB_V_INT:
            x = json_integer((json_int_t)v->u.i);
            break;
        case GB_V_FLOAT:
            x = jnum(v->u.f);
            break;
        case GB_V_BOOL:
            x = json_boolean(v->u.b);
            break;
        default:
            x = json_string(v->s);
            break;
        }
        json_object_set_new(o, p->name[i], x);
    }
    return o;
}

int gb_compare_write_json(FILE *f, const struct gb_comparison *c)
{
    /* The tree is built in an arena and dropped whole (results/json_arena.h): a row's object
     * takes a few kilobytes of tree; more spills to malloc. */
    struct gb__json_arena A;
    const size_t row_tree = 8192, extra = (size_t)64 << 20;
    gb__json_arena_open(&A, c->nrows <= (SIZE_MAX - extra) / row_tree ? extra + c->nrows * row_tree
                                                                      : 0);
    gb__json_arena_start(&A);
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string("gpubench-compare/1"));
    json_object_set_new(root, "base", side_json(c->base, c->base_path));
    json_object_set_new(root, "new", side_json(c->next, c->next_path));
    json_t *suites = json_object();
    for (size_t i = 0; i < c->opts.nsuite_thresholds; i++)
        json_object_set_new(suites, c->opts.suite_threshold[i].suite,
                            json_real(c->opts.suite_threshold[i].threshold));
    json_t *policy = json_pack(
        "{s:f, s:f, s:o, s:b, s:b, s:s}", "alpha", c->opts.alpha, "threshold", c->opts.threshold,
        "suite_thresholds", suites, "fail_on_faster", c->opts.fail_on_faster, "across_devices",
        c->opts.across_devices, "test",
        c->nnights ? "median and MAD of the baseline nights" : "two-sided Mann-Whitney U");
    if (c->nnights) {
        json_object_set_new(policy, "mads", json_real(c->opts.mads));
        json_object_set_new(policy, "min_nights", json_integer((json_int_t)c->opts.min_nights));
        json_object_set_new(policy, "threshold_given", json_boolean(c->opts.threshold_given));
        json_t *files = json_array();
        for (size_t k = 0; k < c->nnights; k++)
            json_array_append_new(files, json_string(c->night_paths[k]));
        json_object_set_new(root, "baseline",
                            json_pack("{s:s, s:o, s:I}", "folder", c->baseline ? c->baseline : "",
                                      "nights", files, "learned_thresholds",
                                      (json_int_t)c->learned));
    }
    json_object_set_new(root, "policy", policy);
    json_t *notes = json_array();
    for (const char *s = c->notes; *s;) {
        int l = (int)strcspn(s, "\n");
        json_array_append_new(notes, json_stringn(s, (size_t)l));
        s += l + (s[l] == '\n');
    }
    json_object_set_new(root, "notes", notes);
    json_t *counts = json_object();
    for (int v = 0; v < GB_VERDICT_COUNT; v++)
        if (v != GB_VERDICT_LEARNING || c->nnights) /* two files never learn */
            json_object_set_new(counts, gb_verdict_name(v), json_integer((json_int_t)c->counts[v]));
    json_object_set_new(root, "counts", counts);
    json_object_set_new(root, "pairs", json_integer((json_int_t)c->matched));
    json_object_set_new(root, "regressions", json_integer((json_int_t)c->regressions));
    json_object_set_new(root, "exit_status", json_integer(c->regressions ? 3 : 0));
    json_t *rows = json_array();
    for (size_t i = 0; i < c->nrows; i++) {
        const struct gb_compare_row *row = &c->rows[i];
        const struct gb_result *r = row_result(row);
        json_t *o = json_pack(
            "{s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:s, s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:b, "
            "s:o, s:f, s:I, s:I, s:s}",
            "verdict", gb_verdict_name(row->j.verdict), "suite", r->suite, "case", r->case_name,
            "backend", r->backend, "params", params_json(&r->params), "device", row->device,
            "metric", r->metric, "unit", r->unit, "better",
            r->better == GB_BETTER_LOWER ? "lower" : "higher", "regression", row->regression,
            "base_median", jnum(row->j.base_median), "new_median", jnum(row->j.next_median),
            "ratio", jnum(row->j.ratio), "change", jnum(row->j.ratio - 1.0), "p_value",
            isnan(row->j.ratio) ? json_null() : jnum(row->j.p), "exact", row->j.exact, "noise",
            isnan(row->j.ratio) ? json_null() : jnum(row->j.noise), "threshold", row->threshold,
            "base_samples", (json_int_t)(row->base ? row->base->nsamples : 0), "new_samples",
            (json_int_t)(row->next ? row->next->nsamples : 0), "note", row->note);
        if (judged_by_nights(row)) {
            const struct gb_night_judgement *nj = &row->nights;
            json_object_set_new(o, "nights", json_integer((json_int_t)nj->n));
            json_object_set_new(o, "spread", nj->n ? jnum(nj->spread) : json_null());
            json_object_set_new(o, "mad", nj->n ? jnum(nj->mad) : json_null());
            json_object_set_new(o, "floor", jnum(nj->floor));
            json_object_set_new(o, "z", jnum(nj->z));
            json_object_set_new(o, "cut", jnum(nj->cut));
            json_object_set_new(o, "catches", jnum(nj->catches));
            json_object_set_new(o, "threshold_source", json_string(nj->threshold_source));
        }
        json_array_append_new(rows, o);
    }
    json_object_set_new(root, "rows", rows);
    gb__json_arena_stop(); /* the dump's own buffers from malloc */
    int rc = json_dumpf(root, f, JSON_INDENT(2)) == 0 ? 0 : -1;
    fputc('\n', f);
    gb__json_arena_drop(&A, root);
    return rc || ferror(f) ? GB_FAIL(GB_EIO, "writing the comparison as JSON") : 0;
}

/* The verdicts JUnit lists as skipped when they are not a regression. */
static bool skipped_verdict(enum gb_verdict v)
{
    return v == GB_VERDICT_UNSTABLE || v == GB_VERDICT_MISSING || v == GB_VERDICT_SKIPPED ||
           v == GB_VERDICT_FAILED || v == GB_VERDICT_LEARNING;
}

int gb_compare_write_junit(FILE *f, const struct gb_comparison *c)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    size_t failures = 0, errors = 0, skipped = 0;
    for (size_t i = 0; i < c->nrows; i++) {
        const struct gb_compare_row *row = &c->rows[i];
        failures += row->regression && row->j.verdict != GB_VERDICT_FAILED;
        errors += row->regression && row->j.verdict == GB_VERDICT_FAILED;
        skipped += !row->regression && skipped_verdict(row->j.verdict);
    }
    fprintf(f,
            "<testsuites name=\"gpubench compare\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
            "skipped=\"%zu\">\n",
            c->nrows, failures, errors, skipped);
    /* One testsuite per suite, in order of first appearance. */
    for (size_t i = 0; i < c->nrows; i++) {
        const char *suite = row_result(&c->rows[i])->suite;
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(row_result(&c->rows[k])->suite, suite) == 0;
        if (seen)
            continue;
        size_t t = 0, fl = 0, er = 0, sk = 0;
        for (size_t k = i; k < c->nrows; k++) {
            const struct gb_compare_row *row = &c->rows[k];
            if (strcmp(row_result(row)->suite, suite) != 0)
                continue;
            t++;
            fl += row->regression && row->j.verdict != GB_VERDICT_FAILED;
            er += row->regression && row->j.verdict == GB_VERDICT_FAILED;
            sk += !row->regression && skipped_verdict(row->j.verdict);
        }
        fputs("  <testsuite name=\"", f);
        gb_fputs_xml(f, suite);
        fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n", t, fl, er,
                sk);
        for (size_t k = i; k < c->nrows; k++) {
            const struct gb_compare_row *row = &c->rows[k];
            const struct gb_result *r = row_result(row);
            if (strcmp(r->suite, suite) != 0)
                continue;
            char b[32], n[32], ch[32], p[16], nz[16], detail[1024];
            fmt_num(row->j.base_median, b, sizeof b);
            fmt_num(row->j.next_median, n, sizeof n);
            fmt_change(row, ch, sizeof ch);
            fmt_p(row, p, sizeof p);
            fmt_noise(row, nz, sizeof nz);
            if (judged_by_nights(row)) {
                char z[16], nn[16], sp[16], ca[16];
                fmt_nights(row, z, nn, sp, ca, sizeof z);
                snprintf(detail, sizeof detail,
                         "%s: nights' median %s %s, new %s %s, change %s, z %s over %s nights of "
                         "spread %s, catches %s, threshold %.3g%%%s%s",
                         gb_verdict_name(row->j.verdict), b, r->unit, n, r->unit, ch, z, nn, sp, ca,
                         100.0 * row->threshold, row->note[0] ? "; " : "", row->note);
            } else {
                snprintf(detail, sizeof detail,
                         "%s: base %s %s, new %s %s, change %s, p %s, noise %s, threshold "
                         "%.3g%%%s%s",
                         gb_verdict_name(row->j.verdict), b, r->unit, n, r->unit, ch, p, nz,
                         100.0 * row->threshold, row->note[0] ? "; " : "", row->note);
            }
            fputs("    <testcase classname=\"gpubench.", f);
            gb_fputs_xml(f, suite);
            fputs("\" name=\"", f);
            gb_fputs_xml(f, r->case_name);
            if (row->params[0]) {
                fputc(' ', f);
                gb_fputs_xml(f, row->params);
            }
            fputs(" @ ", f);
            gb_fputs_xml(f, row->device);
            fputs("\">\n", f);
            const char *tag = NULL;
            if (row->regression)
                tag = row->j.verdict == GB_VERDICT_FAILED ? "error" : "failure";
            else if (skipped_verdict(row->j.verdict))
                tag = "skipped";
            if (tag) {
                fprintf(f, "      <%s message=\"", tag);
                gb_fputs_xml(f, detail);
                fprintf(f, "\"%s>", strcmp(tag, "skipped") == 0 ? "/" : "");
                if (strcmp(tag, "skipped") != 0) {
                    gb_fputs_xml(f, detail);
                    fprintf(f, "</%s>", tag);
                }
                fputc('\n', f);
            }
            fputs("      <system-out>", f);
            gb_fputs_xml(f, detail);
            fputs("</system-out>\n    </testcase>\n", f);
        }
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
    return ferror(f) ? GB_FAIL(GB_EIO, "writing the JUnit XML") : 0;
}

/* ---- the neutral document (any writer: --format) ------------------------------------------ */

enum {
    D_VERDICT,
    D_SUITE,
    D_CASE,
    D_DEVICE,
    D_PARAMS,
    D_BASE,
    D_NEW,
    D_UNIT,
    D_CHANGE,
    D_P,
    D_NOTE,
    D_NCOLS
};

static int doc_row(struct gb_doc_table *t, const struct gb_comparison *c,
                   const struct gb_compare_row *row)
{
    const struct gb_result *r = row_result(row);
    size_t k;
    char verdict[16], p[16], z[16], nn[16], sp[16], ca[16];
    int rc = gb_doc_row(t, &k);
    snprintf(verdict, sizeof verdict, "%s%s", gb_verdict_name(row->j.verdict),
             row->regression ? "!" : "");
    if (!rc)
        rc = gb_doc_text(t, k, D_VERDICT, "%s", verdict);
    if (!rc)
        rc = gb_doc_text(t, k, D_SUITE, "%s", r->suite);
    if (!rc)
        rc = gb_doc_text(t, k, D_CASE, "%s", r->case_name);
    if (!rc)
        rc = gb_doc_text(t, k, D_DEVICE, "%s", row->device);
    if (!rc)
        rc = gb_doc_text(t, k, D_PARAMS, "%s", row->params);
    gb_doc_num(t, k, D_BASE, row->j.base_median, -1);
    gb_doc_num(t, k, D_NEW, row->j.next_median, -1);
    if (!rc)
        rc = gb_doc_text(t, k, D_UNIT, "%s", r->unit);
    gb_doc_num(t, k, D_CHANGE, 100.0 * (row->j.ratio - 1.0), 1);
    if (!rc && c->nnights) {
        fmt_nights(row, z, nn, sp, ca, sizeof z);
        rc = gb_doc_text(t, k, D_P, "%s", z);
    } else if (!rc) {
        fmt_p(row, p, sizeof p);
        rc = gb_doc_text(t, k, D_P, "%s", p);
    }
    if (!rc && row->note[0])
        rc = gb_doc_footnote(t, k, D_NOTE, row->note);
    return rc;
}

int gb_compare_doc(const struct gb_comparison *c, struct gb_doc *d)
{
    static const char *const cols[D_NCOLS] = {"verdict",  "suite", "case", "device",
                                              "params",   "base",  "new",  "unit",
                                              "change %", "p",     "note"};
    const char *names[D_NCOLS];
    memcpy(names, cols, sizeof names);
    if (c->nnights)
        names[D_P] = "z";
    char title[1200];
    snprintf(title, sizeof title, "%s -> %s", c->nnights ? c->baseline : c->base_path,
             c->next_path);
    int rc = gb_doc_init(d, "gpubench-compare/1", title);
    for (const char *s = c->notes; !rc && *s;) {
        int l = (int)strcspn(s, "\n");
        rc = gb_doc_note(d, "note: %.*s", l, s);
        s += l + (s[l] == '\n');
    }
    if (!rc)
        rc = gb_doc_note(d, "change: the speed of new against base (+: faster, also where the "
                            "unit is a time and lower is better)");
    struct gb_doc_table *t = NULL;
    if (!rc)
        rc = gb_doc_table(d, "comparison", "", names, D_NCOLS, &t);
    if (!rc) {
        for (size_t k = D_BASE; k <= D_CHANGE; k++)
            gb_doc_column_set(t, k, k != D_UNIT, false);
        gb_doc_column_set(t, D_DEVICE, false, true);
        gb_doc_column_set(t, D_PARAMS, false, true);
    }
    for (size_t i = 0; !rc && i < c->nrows; i++)
        rc = doc_row(t, c, &c->rows[i]);
    for (size_t i = 0; !rc && i < c->nrows; i++) {
        const struct gb_compare_row *row = &c->rows[i];
        const struct gb_result *r = row_result(row);
        char name[1024];
        snprintf(name, sizeof name, "%s %s %s", r->case_name, row->device, row->params);
        enum gb_check_status st = row->regression                   ? GB_CHECK_FAIL
                                  : skipped_verdict(row->j.verdict) ? GB_CHECK_SKIP
                                                                    : GB_CHECK_PASS;
        char msg[400];
        snprintf(msg, sizeof msg, "%s%s%s", gb_verdict_name(row->j.verdict),
                 row->note[0] ? ": " : "", row->note);
        rc = gb_doc_check(d, r->suite, name, st, st == GB_CHECK_PASS ? NULL : msg);
    }
    char sum[512];
    summary_text(c, sum, sizeof sum);
    return rc ? rc : gb_doc_verdict(d, "%s", sum);
}
