/* gpubench — compare's document: the comparison (analyses/compare.h) as a neutral document
 * (contract in compare_out.h), which the writers render and layout_compare.c turns into compare's
 * JSON. */
#include "outputs/compare_out.h"
#include "outputs/summary_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "base/util.h"

/* ---- formats ------------------------------------------------------------------------------- */

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

/* "44 pairs compared: 40 SAME, ... -> 1 regression (exit 3)", without a newline. */
static void summary_text(const struct gb_comparison *c, char *buf, size_t len)
{
    if (c->nnights)
        snprintf(buf, len, "%zu cases compared against %zu night%s:", c->matched, c->nnights,
                 c->nnights == 1 ? "" : "s");
    else {
        /* NEW and MISSING are counted below too, but are no pair: said, so that the counts
         * add up to more than the pairs without a contradiction */
        const size_t alone = c->counts[GB_VERDICT_NEW] + c->counts[GB_VERDICT_MISSING];
        snprintf(buf, len, "%zu pair%s compared", c->matched, c->matched == 1 ? "" : "s");
        if (alone)
            gb_appendf(buf, len, " and %zu case%s in one file only", alone, alone == 1 ? "" : "s");
        gb_appendf(buf, len, ":");
    }
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

/* ---- what the text and Markdown show -------------------------------------------------------- */

/* The last note of d on one line: a host, version or profile name read from a file may hold
 * line breaks, which would start a line of their own (a forged verdict) under the header. */
static void flat_last_note(struct gb_doc *d)
{
    for (char *p = d->nnotes ? d->notes[d->nnotes - 1] : NULL; p && *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\v' || *p == '\f')
            *p = ' ';
}

/* The lines above the table: the two sides (or the nights and NEW) and the policy. */
static int header_notes(const struct gb_comparison *c, struct gb_doc *d)
{
    const struct gb_results *sides[2] = {c->base, c->next};
    const char *paths[2] = {c->base_path, c->next_path};
    const char *names[2] = {"BASE", "NEW "};
    int rc = 0;
    if (c->nnights) {
        const struct gb_results *last = &c->nights[c->nnights - 1];
        rc = gb_doc_note(d,
                         "BASE %s: %zu night%s, %s .. %s; the newest %s: host %s, gpubench %s "
                         "(%s), profile '%s'",
                         c->baseline ? c->baseline : "?", c->nnights, c->nnights == 1 ? "" : "s",
                         c->nights[0].run.start_utc, last->run.start_utc,
                         c->night_paths[c->nnights - 1], last->run.host, last->run.gpubench_version,
                         last->run.git_commit, last->run.profile_name);
        flat_last_note(d);
    }
    for (int s = c->nnights ? 1 : 0; !rc && s < 2; s++) {
        rc = gb_doc_note(d, "%s %s: host %s, %s, gpubench %s (%s), profile '%s'", names[s],
                         paths[s] ? paths[s] : "?", sides[s]->run.host, sides[s]->run.start_utc,
                         sides[s]->run.gpubench_version, sides[s]->run.git_commit,
                         sides[s]->run.profile_name);
        flat_last_note(d);
    }
    if (rc)
        return rc;
    char line[2048] = "";
    gb_appendf(line, sizeof line, "threshold %.3g%%%s", 100.0 * c->opts.threshold,
               c->nnights && c->opts.threshold_given ? " (given)" : "");
    for (size_t i = 0; i < c->opts.nsuite_thresholds; i++)
        gb_appendf(line, sizeof line, "%s%s %.3g%%", i ? ", " : " (",
                   c->opts.suite_threshold[i].suite, 100.0 * c->opts.suite_threshold[i].threshold);
    if (!c->nnights)
        return gb_doc_note(d,
                           "%s%s, alpha %g (two-sided Mann-Whitney U on the samples: it judges "
                           "within-run noise only; against a baseline of nights, compare judges "
                           "the spread between runs)%s",
                           line, c->opts.nsuite_thresholds ? ")" : "", c->opts.alpha,
                           c->opts.fail_on_faster ? "; FASTER fails too" : "");
    if (c->opts.nsuite_thresholds)
        gb_appendf(line, sizeof line, ")");
    if (c->learned)
        gb_appendf(line, sizeof line, ", learned per case for %zu case%s", c->learned,
                   c->learned == 1 ? "" : "s");
    char cut[64] = "";
    double fc = full_cut(c);
    if (isfinite(fc))
        snprintf(cut, sizeof cut, ": %.1f for %zu nights", fc, c->nnights);
    return gb_doc_note(d,
                       "%s; a regression is also outside the nights' spread: more than the cut "
                       "(the %g-sigma tail%s) in MADs from their median; learning below %zu "
                       "nights%s",
                       line, c->opts.mads, cut, c->opts.min_nights,
                       c->opts.fail_on_faster ? "; FASTER fails too" : "");
}

enum { V_VERDICT, V_SUITE, V_CASE, V_DEVICE, V_PARAMS, V_BASE, V_NEW, V_UNIT, V_CHANGE, V_REST };

/* One row of the table "comparison". */
static int shown_row(struct gb_doc_table *t, const struct gb_comparison *c,
                     const struct gb_compare_row *row)
{
    const struct gb_result *r = row_result(row);
    size_t k;
    int rc = gb_doc_row(t, &k);
    /* The verdict's value is its name; people read a regression's with a "!" ("SLOWER!"), and
     * machines the column regression (1/0). */
    if (!rc)
        rc = gb_doc_text(t, k, V_VERDICT, "%s", gb_verdict_name(row->j.verdict));
    if (!rc && row->regression)
        rc = gb_doc_shown(t, k, V_VERDICT, "%s!", gb_verdict_name(row->j.verdict));
    gb_doc_num(t, k, t->ncols - 1, row->regression, 0);
    if (!rc)
        rc = gb_doc_text(t, k, V_SUITE, "%s", r->suite);
    if (!rc)
        rc = gb_doc_text(t, k, V_CASE, "%s", r->case_name);
    if (!rc)
        rc = gb_doc_text(t, k, V_DEVICE, "%s", row->device);
    if (!rc)
        rc = gb_doc_text(t, k, V_PARAMS, "%s", row->params);
    char shown[sizeof row->params];
    gb_params_for_people(r->suite, row->params, shown, sizeof shown);
    if (!rc && strcmp(shown, row->params) != 0)
        rc = gb_doc_shown(t, k, V_PARAMS, "%s", shown);
    gb_doc_num(t, k, V_BASE, row->j.base_median, -2);
    gb_doc_num(t, k, V_NEW, row->j.next_median, -2);
    if (!rc)
        rc = gb_doc_text(t, k, V_UNIT, "%s", r->unit);
    const double change = 100.0 * (row->j.ratio - 1.0);
    gb_doc_num(t, k, V_CHANGE, change, 1);
    /* faster with its sign, as the header's "+: faster" reads (files keep the number) */
    if (!rc && isfinite(change) && change >= 0.05)
        rc = gb_doc_shown(t, k, V_CHANGE, "+%.1f", change);
    size_t note = V_REST + 2;
    if (c->nnights) {
        note = V_REST + 4;
        if (!rc && judged_by_nights(row)) {
            char z[16], nn[16], sp[16], ca[16];
            fmt_nights(row, z, nn, sp, ca, sizeof z);
            gb_doc_num(t, k, V_REST, row->nights.z, 1);
            gb_doc_num(t, k, V_REST + 1, (double)row->nights.n, 0);
            if (row->nights.n >= 2 || isfinite(row->nights.z))
                gb_doc_num(t, k, V_REST + 2, 100.0 * row->nights.spread, 1);
            /* A number (per cent of the speed), people reading it as the text ("x2.4"). */
            if (isfinite(row->nights.catches)) {
                gb_doc_num(t, k, V_REST + 3, 100.0 * row->nights.catches, 1);
                rc = gb_doc_shown(t, k, V_REST + 3, "%s", ca);
            }
        }
    } else if (!rc && !isnan(row->j.ratio)) {
        char p[16];
        fmt_p(row, p, sizeof p);
        gb_doc_num(t, k, V_REST, row->j.p, -1);
        rc = gb_doc_shown(t, k, V_REST, "%s", p); /* "<1e-4" for a p of 3e-6 */
        if (isfinite(row->j.noise))
            gb_doc_num(t, k, V_REST + 1, 100.0 * row->j.noise, 1);
    }
    if (!rc && row->note[0])
        rc = gb_doc_footnote(t, k, note, row->note);
    return rc;
}

/* The table "comparison": every row, or (only_changes) those that are not SAME. */
static int shown_table(const struct gb_comparison *c, bool only_changes, struct gb_doc *d)
{
    static const char *const two[] = {"verdict", "suite", "case",      "device",   "params",
                                      "base",    "new",   "unit",      "change %", "p",
                                      "noise %", "note",  "regression"};
    static const char *const nights[] = {
        "verdict",  "suite", "case",   "device",   "params",  "base", "new",       "unit",
        "change %", "z",     "nights", "spread %", "catches", "note", "regression"};
    /* The last column, regression (1/0), is data: people read it in the verdict's "!". */
    const size_t ncols = c->nnights ? 15 : 13;
    struct gb_doc_table *t;
    int rc = gb_doc_table(d, "comparison", "", c->nnights ? nights : two, ncols, &t);
    if (rc)
        return rc;
    for (size_t k = V_BASE; k + 2 < ncols; k++)
        gb_doc_column_set(t, k, k != V_UNIT, false);
    gb_doc_column_set(t, V_DEVICE, false, true);
    gb_doc_column_set(t, V_PARAMS, false, true);
    gb_doc_column_set(t, ncols - 1, true, false);
    gb_doc_column_data(t, ncols - 1);
    /* Not series identity: a note that changes starts no new series; the verdict is a state. */
    gb_doc_column_state(t, V_VERDICT);
    gb_doc_column_prose(t, ncols - 2);
    rc = gb_doc_column_unit(t, V_BASE, NULL, V_UNIT) ||
         gb_doc_column_unit(t, V_NEW, NULL, V_UNIT) || gb_doc_column_unit(t, V_CHANGE, "%", 0) ||
         gb_doc_column_unit(t, c->nnights ? V_REST + 2 : V_REST + 1, "%", 0) ||
         (c->nnights && gb_doc_column_unit(t, V_REST + 3, "%", 0));
    gb_doc_time(d, c->next->run.start_utc);
    for (size_t i = 0; !rc && i < c->nrows; i++)
        if (!only_changes || c->rows[i].j.verdict != GB_VERDICT_SAME)
            rc = shown_row(t, c, &c->rows[i]);
    return rc;
}

/* The verdicts a check lists as skipped when they are not a regression. */
static bool skipped_verdict(enum gb_verdict v)
{
    return v == GB_VERDICT_UNSTABLE || v == GB_VERDICT_MISSING || v == GB_VERDICT_SKIPPED ||
           v == GB_VERDICT_FAILED || v == GB_VERDICT_LEARNING;
}

/* A row's detail: against nights, how far outside their spread a regression lies; else the
 * figures that decided the verdict. */
static void row_detail(const struct gb_comparison *c, const struct gb_compare_row *row, char *buf,
                       size_t len)
{
    const struct gb_result *r = row_result(row);
    char b[32], n[32], ch[32], p[16], nz[16];
    fmt_num(row->j.base_median, b, sizeof b);
    fmt_num(row->j.next_median, n, sizeof n);
    fmt_change(row, ch, sizeof ch);
    fmt_p(row, p, sizeof p);
    fmt_noise(row, nz, sizeof nz);
    const char *sep = row->note[0] ? "; " : "";
    if (c->nnights && row->regression && !judged_by_nights(row)) {
        snprintf(buf, len, "%s: %s", gb_verdict_name(row->j.verdict), row->note);
    } else if (row->regression && judged_by_nights(row)) {
        snprintf(buf, len,
                 "%s %+.1f%%, %.1f MADs beyond %zu nights (their spread %.1f%%, the cut %.1f, "
                 "the threshold %.3g%% %s)",
                 gb_verdict_name(row->j.verdict), 100.0 * (row->j.ratio - 1.0), fabs(row->nights.z),
                 row->nights.n, 100.0 * row->nights.spread, row->nights.cut, 100.0 * row->threshold,
                 row->nights.threshold_source);
    } else if (judged_by_nights(row)) {
        char z[16], nn[16], sp[16], ca[16];
        fmt_nights(row, z, nn, sp, ca, sizeof z);
        snprintf(buf, len,
                 "%s: nights' median %s %s, new %s %s, change %s, z %s over %s nights of spread "
                 "%s, catches %s, threshold %.3g%%%s%s",
                 gb_verdict_name(row->j.verdict), b, r->unit, n, r->unit, ch, z, nn, sp, ca,
                 100.0 * row->threshold, sep, row->note);
    } else {
        snprintf(buf, len,
                 "%s: base %s %s, new %s %s, change %s, p %s, noise %s, threshold %.3g%%%s%s",
                 gb_verdict_name(row->j.verdict), b, r->unit, n, r->unit, ch, p, nz,
                 100.0 * row->threshold, sep, row->note);
    }
}

/* A check per row: a regression fails (a FAILED one is an error), the verdicts that could not
 * be judged are skipped; the name is "suite/case/params", "@device" added when the rows span
 * several devices. */
static int row_checks(const struct gb_comparison *c, struct gb_doc *d)
{
    bool devices = false;
    for (size_t i = 1; i < c->nrows && !devices; i++)
        devices = strcmp(c->rows[i].device, c->rows[0].device) != 0;
    int rc = 0;
    for (size_t i = 0; !rc && i < c->nrows; i++) {
        const struct gb_compare_row *row = &c->rows[i];
        const struct gb_result *r = row_result(row);
        char name[1400], msg[1400];
        gb_doc_case_name(r->suite, r->case_name, row->params, devices ? row->device : NULL, name,
                         sizeof name);
        enum gb_check_status st =
            row->regression ? (row->j.verdict == GB_VERDICT_FAILED ? GB_CHECK_ERROR : GB_CHECK_FAIL)
            : skipped_verdict(row->j.verdict) ? GB_CHECK_SKIP
                                              : GB_CHECK_PASS;
        row_detail(c, row, msg, sizeof msg);
        rc = gb_doc_check(d, r->suite, name, st, msg);
    }
    return rc;
}

/* ---- what the JSON takes (data tables: layout_compare.c renders them) ------------------------- */

static int data_table(struct gb_doc *d, const char *id, const char *const *cols, size_t n,
                      struct gb_doc_table **t)
{
    int rc = gb_doc_table(d, id, "", cols, n, t);
    if (!rc)
        gb_doc_table_data(*t);
    return rc;
}

static int bool_cell(struct gb_doc_table *t, size_t r, size_t c, bool v)
{
    return gb_doc_text(t, r, c, "%s", v ? "true" : "false");
}

/* A side's run: table `id` ("base", "new"), one row. */
static int side_table(struct gb_doc *d, const char *id, const struct gb_results *rs,
                      const char *path)
{
    static const char *const cols[] = {"file",     "host",       "start_utc",
                                       "gpubench", "git_commit", "profile"};
    struct gb_doc_table *t;
    size_t r = 0;
    int rc = data_table(d, id, cols, 6, &t);
    if (!rc)
        rc = gb_doc_row(t, &r);
    const char *v[6] = {path ? path : "",         rs->run.host,       rs->run.start_utc,
                        rs->run.gpubench_version, rs->run.git_commit, rs->run.profile_name};
    for (size_t k = 0; !rc && k < 6; k++)
        rc = gb_doc_text(t, r, k, "%s", v[k] ? v[k] : "");
    return rc;
}

static int policy_tables(const struct gb_comparison *c, struct gb_doc *d)
{
    static const char *const cols[] = {"alpha", "threshold", "fail_on_faster", "across_devices",
                                       "test",  "mads",      "min_nights",     "threshold_given"};
    struct gb_doc_table *t;
    size_t r = 0;
    int rc = data_table(d, "policy", cols, c->nnights ? 8 : 5, &t);
    if (!rc)
        rc = gb_doc_row(t, &r);
    if (rc)
        return rc;
    gb_doc_num(t, r, 0, c->opts.alpha, -1);
    gb_doc_num(t, r, 1, c->opts.threshold, -1);
    rc = bool_cell(t, r, 2, c->opts.fail_on_faster) || bool_cell(t, r, 3, c->opts.across_devices) ||
         gb_doc_text(t, r, 4, "%s",
                     c->nnights ? "median and MAD of the baseline nights"
                                : "two-sided Mann-Whitney U");
    if (!rc && c->nnights) {
        gb_doc_num(t, r, 5, c->opts.mads, -1);
        gb_doc_num(t, r, 6, (double)c->opts.min_nights, 0);
        rc = bool_cell(t, r, 7, c->opts.threshold_given);
    }
    static const char *const scols[] = {"suite", "threshold"};
    if (!rc)
        rc = data_table(d, "suite_thresholds", scols, 2, &t);
    for (size_t i = 0; !rc && i < c->opts.nsuite_thresholds; i++) {
        rc = gb_doc_row(t, &r) || gb_doc_text(t, r, 0, "%s", c->opts.suite_threshold[i].suite);
        gb_doc_num(t, r, 1, c->opts.suite_threshold[i].threshold, -1);
    }
    if (rc || !c->nnights)
        return rc ? GB_ENOMEM : 0;
    static const char *const bcols[] = {"folder", "learned_thresholds"}, *const ncols[] = {"file"};
    rc = data_table(d, "baseline", bcols, 2, &t) || gb_doc_row(t, &r) ||
         gb_doc_text(t, r, 0, "%s", c->baseline ? c->baseline : "");
    if (!rc)
        gb_doc_num(t, r, 1, (double)c->learned, 0);
    if (!rc)
        rc = data_table(d, "baseline_nights", ncols, 1, &t);
    for (size_t k = 0; !rc && k < c->nnights; k++)
        rc = gb_doc_row(t, &r) || gb_doc_text(t, r, 0, "%s", c->night_paths[k]);
    return rc ? GB_ENOMEM : 0;
}

/* The notes, the counts per verdict and the totals. */
static int count_tables(const struct gb_comparison *c, struct gb_doc *d)
{
    static const char *const ncol[] = {"note"};
    struct gb_doc_table *t;
    size_t r = 0;
    int rc = data_table(d, "notes", ncol, 1, &t);
    for (const char *s = c->notes; !rc && *s;) {
        int l = (int)strcspn(s, "\n");
        rc = gb_doc_row(t, &r) || gb_doc_text(t, r, 0, "%.*s", l, s);
        s += l + (s[l] == '\n');
    }
    const char *names[GB_VERDICT_COUNT];
    size_t n = 0, v_of[GB_VERDICT_COUNT];
    for (int v = 0; v < GB_VERDICT_COUNT; v++)
        if (v != GB_VERDICT_LEARNING || c->nnights) { /* two files never learn */
            v_of[n] = (size_t)v;
            names[n++] = gb_verdict_name(v);
        }
    if (!rc)
        rc = data_table(d, "counts", names, n, &t) || gb_doc_row(t, &r);
    for (size_t k = 0; !rc && k < n; k++)
        gb_doc_num(t, r, k, (double)c->counts[v_of[k]], 0);
    static const char *const tcols[] = {"pairs", "regressions", "exit_status"};
    if (!rc)
        rc = data_table(d, "totals", tcols, 3, &t) || gb_doc_row(t, &r);
    if (!rc) {
        gb_doc_num(t, r, 0, (double)c->matched, 0);
        gb_doc_num(t, r, 1, (double)c->regressions, 0);
        gb_doc_num(t, r, 2, c->regressions ? 3 : 0, 0);
    }
    return rc ? GB_ENOMEM : 0;
}

/* A result's params as a JSON object's text, their types kept; NULL when out of memory. */
static char *params_text(const struct gb_params *p)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < p->n; i++) {
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
            x = isfinite(v->u.f) ? json_real(v->u.f) : json_null();
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
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return s;
}

enum {
    R_VERDICT,
    R_SUITE,
    R_CASE,
    R_BACKEND,
    R_PARAMS,
    R_DEVICE,
    R_METRIC,
    R_UNIT,
    R_BETTER,
    R_REGRESSION,
    R_BASE,
    R_NEW,
    R_RATIO,
    R_CHANGE,
    R_P,
    R_EXACT,
    R_NOISE,
    R_THRESHOLD,
    R_BASE_SAMPLES,
    R_NEW_SAMPLES,
    R_NOTE,
    R_NIGHTS, /* from here: against nights only, and empty in a row not judged by them */
    R_SPREAD,
    R_MAD,
    R_FLOOR,
    R_Z,
    R_CUT,
    R_CATCHES,
    R_SOURCE,
    R_NCOLS
};

static int data_row(struct gb_doc_table *t, const struct gb_compare_row *row)
{
    const struct gb_result *r = row_result(row);
    size_t k;
    int rc = gb_doc_row(t, &k);
    char *params = rc ? NULL : params_text(&r->params);
    rc = rc || !params || gb_doc_text(t, k, R_VERDICT, "%s", gb_verdict_name(row->j.verdict)) ||
         gb_doc_text(t, k, R_SUITE, "%s", r->suite) ||
         gb_doc_text(t, k, R_CASE, "%s", r->case_name) ||
         gb_doc_text(t, k, R_BACKEND, "%s", r->backend) ||
         gb_doc_text(t, k, R_PARAMS, "%s", params) ||
         gb_doc_text(t, k, R_DEVICE, "%s", row->device) ||
         gb_doc_text(t, k, R_METRIC, "%s", r->metric) || gb_doc_text(t, k, R_UNIT, "%s", r->unit) ||
         gb_doc_text(t, k, R_BETTER, "%s", r->better == GB_BETTER_LOWER ? "lower" : "higher") ||
         bool_cell(t, k, R_REGRESSION, row->regression) || bool_cell(t, k, R_EXACT, row->j.exact) ||
         gb_doc_text(t, k, R_NOTE, "%s", row->note);
    free(params);
    if (rc)
        return GB_ENOMEM;
    gb_doc_num(t, k, R_BASE, row->j.base_median, -1);
    gb_doc_num(t, k, R_NEW, row->j.next_median, -1);
    gb_doc_num(t, k, R_RATIO, row->j.ratio, -1);
    gb_doc_num(t, k, R_CHANGE, row->j.ratio - 1.0, -1);
    gb_doc_num(t, k, R_P, isnan(row->j.ratio) ? NAN : row->j.p, -1);
    gb_doc_num(t, k, R_NOISE, isnan(row->j.ratio) ? NAN : row->j.noise, -1);
    gb_doc_num(t, k, R_THRESHOLD, row->threshold, -1);
    gb_doc_num(t, k, R_BASE_SAMPLES, (double)(row->base ? row->base->nsamples : 0), 0);
    gb_doc_num(t, k, R_NEW_SAMPLES, (double)(row->next ? row->next->nsamples : 0), 0);
    if (t->ncols == R_NCOLS && judged_by_nights(row)) {
        const struct gb_night_judgement *nj = &row->nights;
        gb_doc_num(t, k, R_NIGHTS, (double)nj->n, 0);
        gb_doc_num(t, k, R_SPREAD, nj->n ? nj->spread : NAN, -1);
        gb_doc_num(t, k, R_MAD, nj->n ? nj->mad : NAN, -1);
        gb_doc_num(t, k, R_FLOOR, nj->floor, -1);
        gb_doc_num(t, k, R_Z, nj->z, -1);
        gb_doc_num(t, k, R_CUT, nj->cut, -1);
        gb_doc_num(t, k, R_CATCHES, nj->catches, -1);
        rc = gb_doc_text(t, k, R_SOURCE, "%s", nj->threshold_source);
    }
    return rc;
}

static int rows_table(const struct gb_comparison *c, struct gb_doc *d)
{
    static const char *const cols[R_NCOLS] = {
        "verdict",      "suite",       "case",    "backend",    "params",          "device",
        "metric",       "unit",        "better",  "regression", "base_median",     "new_median",
        "ratio",        "change",      "p_value", "exact",      "noise",           "threshold",
        "base_samples", "new_samples", "note",    "nights",     "spread",          "mad",
        "floor",        "z",           "cut",     "catches",    "threshold_source"};
    struct gb_doc_table *t;
    int rc = data_table(d, "rows", cols, c->nnights ? R_NCOLS : R_NIGHTS, &t);
    for (size_t i = 0; !rc && i < c->nrows; i++)
        rc = data_row(t, &c->rows[i]);
    return rc;
}

/* ---- the document -------------------------------------------------------------------------- */

int gb_compare_doc(const struct gb_comparison *c, bool only_changes, struct gb_doc *d)
{
    int rc = gb_doc_init(d, GB_COMPARE_DOC_KIND, "gpubench compare");
    const char *profile = c->next->run.profile_name;
    if (!rc)
        rc = gb_doc_suite(d, "gpubench compare%s%s", profile && *profile ? " " : "",
                          profile ? profile : "");
    if (!rc)
        rc = header_notes(c, d);
    for (const char *s = c->notes; !rc && *s;) {
        int l = (int)strcspn(s, "\n");
        rc = gb_doc_note(d, "note: %.*s", l, s);
        s += l + (s[l] == '\n');
    }
    if (!rc)
        rc = gb_doc_note(d, "change: the speed of new against base (+: faster, also where the "
                            "unit is a time and lower is better)");
    if (!rc)
        rc = shown_table(c, only_changes, d);
    if (!rc)
        rc = side_table(d, "base", c->base, c->base_path);
    if (!rc)
        rc = side_table(d, "new", c->next, c->next_path);
    if (!rc)
        rc = policy_tables(c, d);
    if (!rc)
        rc = count_tables(c, d);
    if (!rc)
        rc = rows_table(c, d);
    if (!rc)
        rc = row_checks(c, d);
    char sum[512];
    summary_text(c, sum, sizeof sum);
    return rc ? rc : gb_doc_verdict(d, "%s", sum);
}
