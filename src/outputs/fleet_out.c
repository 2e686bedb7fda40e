/* gpubench — fleet's and history's documents (contract in fleet_out.h). */
#include "outputs/fleet_out.h"
#include "outputs/summary_out.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/merge.h"
#include "base/error.h"
#include "base/util.h"

/* 1.4826 x MAD estimates the standard deviation of normal data (the consistency constant). */
#define MAD_NORMAL 1.4826

static int add_notes(struct gb_doc *d, const char *notes)
{
    int rc = 0;
    for (const char *s = notes; !rc && *s;) {
        int l = (int)strcspn(s, "\n");
        if (l)
            rc = gb_doc_note(d, "note: %.*s", l, s);
        s += l + (s[l] == '\n');
    }
    return rc;
}

/* The fleet's cases: the columns shown, then the data of the JSON file (gpubench-fleet/1). */
static const char *const fleet_cols[] = {
    "case", "unit",   "nodes",  "median", "spread %", "min",          "max",    "outliers", "suite",
    "name", "params", "device", "metric", "better",   "nodes failed", "judged", "mad"};
#define FLEET_SHOWN 8 /* the columns shown; the rest are data */

/* The case's title for people: its params without those that do not apply to it. */
static void fleet_case_title(const struct gb_fleet_case *c, char *buf, size_t len)
{
    char people[1024];
    gb_params_for_people(c->suite, c->params, people, sizeof people);
    gb_case_title(c->suite, c->case_name, people, c->device, buf, len);
}

/* The spread shown: 1.4826 x MAD over the median, in % (NaN when no member ran it ok). */
static double fleet_spread(const struct gb_fleet_case *c)
{
    return c->nok && c->median != 0 ? 100 * MAD_NORMAL * c->mad / fabs(c->median) : NAN;
}

static int fleet_cases(const struct gb_fleet *f, struct gb_doc *d)
{
    struct gb_doc_table *t;
    int rc =
        gb_doc_table(d, "cases", "cases", fleet_cols, sizeof fleet_cols / sizeof *fleet_cols, &t);
    for (size_t k = 2; !rc && k < FLEET_SHOWN; k++)
        gb_doc_column_set(t, k, true, false);
    for (size_t k = FLEET_SHOWN; !rc && k < t->ncols; k++) {
        gb_doc_column_data(t, k);
        gb_doc_column_set(t, k, k >= 14, false);
    }
    if (!rc)
        gb_doc_column_set(t, 0, false, true);
    for (size_t k = 3; !rc && k < 7; k++)
        rc = gb_doc_column_unit(t, k, k == 4 ? "%" : NULL, 1);
    char title[1024];
    for (size_t k = 0; !rc && k < f->ncases; k++) {
        const struct gb_fleet_case *c = &f->cases[k];
        size_t r;
        if ((rc = gb_doc_row(t, &r)))
            break;
        gb_case_title(c->suite, c->case_name, c->params, c->device, title, sizeof title);
        const char *texts[] = {title,     c->unit,
                               NULL,      NULL,
                               NULL,      NULL,
                               NULL,      NULL,
                               c->suite,  c->case_name,
                               c->params, c->device,
                               c->metric, c->better == GB_BETTER_LOWER ? "lower" : "higher"};
        for (size_t i = 0; !rc && i < sizeof texts / sizeof *texts; i++)
            if (texts[i])
                rc = gb_doc_text(t, r, i, "%s", texts[i]);
        char shown[1100];
        fleet_case_title(c, shown, sizeof shown);
        if (!rc && strcmp(shown, title) != 0)
            rc = gb_doc_shown(t, r, 0, "%s", shown);
        gb_doc_num(t, r, 2, (double)c->nok, 0);
        gb_doc_num(t, r, 3, c->median, GB_DOC_SIG4);
        gb_doc_num(t, r, 4, fleet_spread(c), 1);
        gb_doc_num(t, r, 5, c->min, GB_DOC_SIG4);
        gb_doc_num(t, r, 6, c->max, GB_DOC_SIG4);
        gb_doc_num(t, r, 7, (double)c->noutliers, 0);
        gb_doc_num(t, r, 14, (double)c->nfailed, 0);
        gb_doc_num(t, r, 15, c->nok >= 3, 0);
        gb_doc_num(t, r, 16, c->mad, -1);
        if (!rc && c->nok < 3)
            rc = gb_doc_footnote(t, r, 0, "not judged: fewer than 3 nodes ran it ok");
    }
    return rc;
}

/* What makes member m an outlier, for the verdict: "3 cases", "shift -30.2% over 24 cases", or
 * both. */
static void outlier_text(const struct gb_fleet_member *mb, char *buf, size_t len)
{
    buf[0] = '\0';
    if (mb->nflagged)
        gb_appendf(buf, len, "%zu case%s", mb->nflagged, mb->nflagged == 1 ? "" : "s");
    if (mb->shift_low) {
        char p[32];
        gb__fmt_pct(mb->shift - 1.0, p, sizeof p);
        gb_appendf(buf, len, "%sshift %s over %zu cases", buf[0] ? ", " : "", p, mb->shift_cases);
    }
}

/* A row of the outlier nodes: the node (label, or "" under its own first row), its flagged
 * cases, the worst deviation % (or FAILED) and its case or the node shift, and health. */
static int outlier_row(struct gb_doc_table *t, const char *label, size_t ncases, double worst_pct,
                       bool failed, const char *what, const char *health)
{
    size_t r;
    int rc = gb_doc_row(t, &r);
    if (!rc && *label)
        rc = gb_doc_text(t, r, 0, "%s", label);
    gb_doc_num(t, r, 1, (double)ncases, 0);
    if (!rc && failed)
        rc = gb_doc_text(t, r, 2, "FAILED");
    else
        gb_doc_num(t, r, 2, worst_pct, 1);
    if (!rc)
        rc = gb_doc_text(t, r, 3, "%s", what);
    if (!rc && health && *health) /* what the driver said: the likely cause */
        rc = gb_doc_text(t, r, 4, "%s", health);
    return rc;
}

static int fleet_outliers(const struct gb_fleet *f, struct gb_doc *d)
{
    static const char *const cols[] = {"node", "cases", "worst %", "worst case", "health"};
    char lab[512], title[1024];
    if (f->flagged_nodes)
        snprintf(title, sizeof title, "%zu outlier node%s (%zu member%s, in %zu case%s)",
                 f->flagged_nodes, f->flagged_nodes == 1 ? "" : "s", f->flagged_members,
                 f->flagged_members == 1 ? "" : "s", f->flagged_cases,
                 f->flagged_cases == 1 ? "" : "s");
    else
        snprintf(title, sizeof title, "0 outlier nodes");
    struct gb_doc_table *t;
    int rc = gb_doc_table(d, "outliers", title, cols, 5, &t);
    if (!rc) {
        gb_doc_column_set(t, 1, true, false);
        gb_doc_column_set(t, 2, true, false);
        gb_doc_column_set(t, 3, false, true);
        gb_doc_column_set(t, 4, false, true);
        /* Which case is worst and what the driver said change with the figures: no labels. */
        gb_doc_column_prose(t, 3);
        gb_doc_column_prose(t, 4);
        rc = gb_doc_column_unit(t, 2, "%", 0);
    }
    for (size_t q = 0; !rc && q < f->nmembers; q++) {
        size_t m = f->rank ? f->rank[q] : q; /* most severe first */
        const struct gb_fleet_member *mb = &f->members[m];
        if (!mb->outlier)
            continue;
        gb_fleet_member_label(f, m, lab, sizeof lab);
        if (mb->nflagged) {
            fleet_case_title(&f->cases[mb->worst_case], title, sizeof title);
            rc = outlier_row(t, lab, mb->nflagged, 100 * mb->worst, isnan(mb->worst), title,
                             mb->health);
        }
        if (!rc && mb->shift_low) {
            snprintf(title, sizeof title, "LOW: node shift over %zu cases", mb->shift_cases);
            rc = outlier_row(t, mb->nflagged ? "" : lab, mb->nflagged, 100 * (mb->shift - 1.0),
                             false, title, mb->nflagged ? NULL : mb->health);
        }
    }
    return rc;
}

/* The members that deviate in uncalibrated cases (listed, no outlier by themselves). */
static int fleet_deviating(const struct gb_fleet *f, struct gb_doc *d)
{
    static const char *const cols[] = {"node", "cases", "worst %", "worst case"};
    char lab[512], title[1024];
    if (!f->deviating)
        return 0;
    snprintf(title, sizeof title,
             "%zu figure%s deviate%s in cases without calibrated noise (listed, no outlier by "
             "itself)",
             f->deviating, f->deviating == 1 ? "" : "s", f->deviating == 1 ? "s" : "");
    struct gb_doc_table *t;
    int rc = gb_doc_table(d, "deviating", title, cols, 4, &t);
    if (!rc) {
        gb_doc_column_set(t, 1, true, false);
        gb_doc_column_set(t, 2, true, false);
        gb_doc_column_set(t, 3, false, true);
        gb_doc_column_prose(t, 3);
        rc = gb_doc_column_unit(t, 2, "%", 0);
    }
    for (size_t m = 0; !rc && m < f->nmembers; m++) {
        const struct gb_fleet_member *mb = &f->members[m];
        if (!mb->ndeviating)
            continue;
        size_t r;
        if ((rc = gb_doc_row(t, &r)))
            break;
        rc = gb_doc_text(t, r, 0, "%s", gb_fleet_member_label(f, m, lab, sizeof lab));
        gb_doc_num(t, r, 1, (double)mb->ndeviating, 0);
        gb_doc_num(t, r, 2, 100 * mb->worst_dev, 1);
        fleet_case_title(&f->cases[mb->worst_dev_case], title, sizeof title);
        if (!rc)
            rc = gb_doc_text(t, r, 3, "%s", title);
    }
    return rc;
}

/* The modified z-score of v in case c, (v - median) / (1.4826 MAD); +-inf when the MAD is 0. */
static double robust_z(const struct gb_fleet_case *c, double v)
{
    double dv = v - c->median;
    if (c->mad > 0)
        return dv / (MAD_NORMAL * c->mad);
    return dv == 0 ? 0.0 : dv > 0 ? INFINITY : -INFINITY;
}

/* The flag as the JSON file names it. */
static const char *flag_key(enum gb_fleet_flag fl)
{
    switch (fl) {
    case GB_FLEET_SLOW:
        return "slow";
    case GB_FLEET_FAST:
        return "fast";
    case GB_FLEET_FAILED:
        return "failed";
    case GB_FLEET_LOW:
        return "low";
    case GB_FLEET_UNJUDGED:
        return "not judged";
    case GB_FLEET_DEVIATES:
        return "deviates";
    default:
        return "ok";
    }
}

/* A case's per-node table: a view over its observations (failed first, then slowest), row i
 * the case's obs[i]. */
struct case_view {
    const struct gb_fleet *f;
    size_t k;
};

static const char *const node_cols[] = {"node", "value", "deviation %", "z",
                                        "flag", "#",     "status",      "deviation"};

static int fill_case_row(const void *ctx, struct gb_doc_table *t, size_t row)
{
    const struct case_view *v = ctx;
    const struct gb_fleet_case *c = &v->f->cases[v->k];
    const struct gb_fleet_obs *o = &c->obs[row];
    char lab[512];
    bool ok = o->status == GB_STATUS_OK;
    int rc = gb_doc_text(t, row, 0, "%s", gb_fleet_member_label(v->f, o->member, lab, sizeof lab));
    /* A failed node's value and an infinite z are no number: empty for machines, said to people. */
    gb_doc_num(t, row, 1, ok ? o->value : NAN, GB_DOC_SIG4);
    if (!rc && !ok)
        rc = gb_doc_shown(t, row, 1, "failed");
    gb_doc_num(t, row, 2, ok ? 100 * (o->value / c->median - 1.0) : NAN, 1);
    double z = ok && c->nok ? robust_z(c, o->value) : NAN;
    gb_doc_num(t, row, 3, z, 1);
    if (!rc && isinf(z))
        rc = gb_doc_shown(t, row, 3, "%sinf", z < 0 ? "-" : "+");
    if (!rc)
        rc = gb_doc_text(t, row, 4, "%s", gb_fleet_flag_name((enum gb_fleet_flag)o->flag));
    gb_doc_num(t, row, 5, (double)o->member, 0);
    if (!rc)
        rc = gb_doc_text(t, row, 6, "%s", flag_key((enum gb_fleet_flag)o->flag));
    gb_doc_num(t, row, 7, ok ? o->value / c->median - 1.0 : NAN, -1);
    return rc;
}

/* A per-node table for each case (ids "case_1".. in the order of the cases): shown for a case
 * with an outlier or a deviation, or for every case with `all`; data for the rest. */
static int fleet_case_tables(const struct gb_fleet *f, bool all, struct case_view *views,
                             struct gb_doc *d)
{
    char id[32], title[1400], t[1024], a[32], b[32];
    int rc = 0;
    for (size_t k = 0; !rc && k < f->ncases; k++) {
        const struct gb_fleet_case *c = &f->cases[k];
        views[k] = (struct case_view){f, k};
        fleet_case_title(c, t, sizeof t);
        gb__fmt_num(c->median, a, sizeof a);
        double spread = fleet_spread(c);
        if (isnan(spread))
            snprintf(b, sizeof b, "-");
        else
            snprintf(b, sizeof b, "%.1f%%", spread);
        snprintf(title, sizeof title, "%s (%s, %s is better): %zu nodes, median %s, spread %s", t,
                 c->unit, c->better == GB_BETTER_LOWER ? "lower" : "higher", c->nok, a, b);
        snprintf(id, sizeof id, "case_%zu", k + 1);
        struct gb_doc_table *tb;
        rc = gb_doc_view(d, id, title, node_cols, 8, c->nobs, fill_case_row, &views[k], &tb);
        if (rc)
            break;
        for (size_t i = 1; i < 4; i++)
            gb_doc_column_set(tb, i, true, false);
        gb_doc_column_state(tb, 4);
        if ((rc = gb_doc_column_unit(tb, 1, c->unit, 0)) ||
            (rc = gb_doc_column_unit(tb, 2, "%", 0)))
            break;
        gb_doc_column_data(tb, 5);
        gb_doc_column_set(tb, 5, true, false);
        gb_doc_column_data(tb, 6);
        gb_doc_column_data(tb, 7);
        gb_doc_column_set(tb, 7, true, false);
        tb->data = !all && !c->noutliers && !c->ndeviating;
    }
    return rc;
}

static const char *const member_cols[] = {
    "node",          "label",           "host",        "file",  "slot",      "start_utc", "health",
    "outlier_cases", "deviating_cases", "shift_cases", "shift", "shift_low", "outlier"};

static int fill_member_row(const void *ctx, struct gb_doc_table *t, size_t m)
{
    const struct gb_fleet *f = ctx;
    const struct gb_fleet_member *mb = &f->members[m];
    const struct gb_fleet_file *fl = &f->files[mb->file];
    char lab[512];
    gb_doc_num(t, m, 0, (double)m, 0);
    const char *texts[] = {gb_fleet_member_label(f, m, lab, sizeof lab),
                           fl->host,
                           fl->path,
                           mb->slot,
                           fl->start_utc,
                           mb->health};
    int rc = 0;
    for (size_t i = 0; !rc && i < 6; i++)
        rc = gb_doc_text(t, m, i + 1, "%s", texts[i] ? texts[i] : "");
    gb_doc_num(t, m, 7, (double)mb->nflagged, 0);
    gb_doc_num(t, m, 8, (double)mb->ndeviating, 0);
    gb_doc_num(t, m, 9, (double)mb->shift_cases, 0);
    gb_doc_num(t, m, 10, mb->shift - 1.0, -1);
    gb_doc_num(t, m, 11, mb->shift_low, 0);
    gb_doc_num(t, m, 12, mb->outlier, 0);
    return rc;
}

/* The data of the JSON file: its rule and counts ("fleet", one row), the members ("nodes", a
 * view) and the analysis' notes ("notes"). */
static int fleet_data(const struct gb_fleet *f, struct gb_doc *d)
{
    static const char *const cols[] = {"k",
                                       "min_deviation",
                                       "min_nodes",
                                       "shift_min_cases",
                                       "shift_floor",
                                       "shift_median",
                                       "shift_limit",
                                       "files",
                                       "cases_not_judged",
                                       "outlier_nodes"};
    static const char *const note_col[] = {"note"};
    struct gb_doc_table *t;
    size_t r;
    int rc = gb_doc_table(d, "fleet", "the rule and the counts", cols, 10, &t);
    if (!rc && !(rc = gb_doc_row(t, &r))) {
        t->data = true;
        double v[] = {f->opts.k,
                      f->opts.min_deviation,
                      3,
                      GB_FLEET_SHIFT_MIN_CASES,
                      GB_FLEET_SHIFT_FLOOR,
                      f->shift_median - 1.0,
                      1.0 / f->shift_limit - 1.0,
                      (double)f->nfiles,
                      (double)f->unjudged,
                      (double)f->flagged_nodes};
        for (size_t c = 0; c < 10; c++) {
            gb_doc_column_set(t, c, true, false);
            gb_doc_num(t, r, c, v[c], -1);
        }
    }
    if (!rc)
        rc = gb_doc_view(d, "nodes", "nodes", member_cols, 13, f->nmembers, fill_member_row, f, &t);
    if (!rc) {
        t->data = true;
        rc = gb_doc_table(d, "notes", "notes", note_col, 1, &t);
    }
    if (!rc)
        t->data = true;
    for (const char *s = f->notes; !rc && *s;) {
        int l = (int)strcspn(s, "\n");
        if (!(rc = gb_doc_row(t, &r)))
            rc = gb_doc_text(t, r, 0, "%.*s", l, s);
        s += l + (s[l] == '\n');
    }
    return rc;
}

/* A check per case and member ("suite/case/params/MEMBER", "@device" after the params when the
 * cases span several devices) and per member's shift ("node/MEMBER"), named as base/doc.h
 * says; the suite "gpubench fleet". */
static int fleet_checks(const struct gb_fleet *f, struct gb_doc *d)
{
    char lab[512], title[1024], name[1600], msg[256];
    bool devices = false;
    for (size_t k = 1; k < f->ncases && !devices; k++)
        devices = strcmp(f->cases[k].device ? f->cases[k].device : "",
                         f->cases[0].device ? f->cases[0].device : "") != 0;
    int rc = gb_doc_suite(d, "gpubench fleet");
    for (size_t k = 0; !rc && k < f->ncases; k++) {
        const struct gb_fleet_case *c = &f->cases[k];
        gb_doc_case_name(c->suite, c->case_name, c->params, devices ? c->device : NULL, title,
                         sizeof title);
        for (size_t i = 0; !rc && i < c->nobs; i++) {
            const struct gb_fleet_obs *o = &c->obs[i];
            gb_fleet_member_label(f, o->member, lab, sizeof lab);
            snprintf(name, sizeof name, "%s/%s", title, lab);
            enum gb_check_status st = o->flag == GB_FLEET_SLOW || o->flag == GB_FLEET_FAST ||
                                              o->flag == GB_FLEET_FAILED || o->flag == GB_FLEET_LOW
                                          ? GB_CHECK_FAIL
                                      : o->flag == GB_FLEET_UNJUDGED ? GB_CHECK_SKIP
                                                                     : GB_CHECK_PASS;
            snprintf(msg, sizeof msg, "%s: %.4g %s against the median %.4g",
                     gb_fleet_flag_name((enum gb_fleet_flag)o->flag), o->value, c->unit, c->median);
            rc = gb_doc_check(d, c->suite, name, st, st == GB_CHECK_PASS ? NULL : msg);
        }
    }
    /* The node shifts: a LOW member fails as a whole. */
    for (size_t m = 0; !rc && m < f->nmembers; m++) {
        const struct gb_fleet_member *mb = &f->members[m];
        if (isnan(mb->shift))
            continue;
        snprintf(msg, sizeof msg, "LOW: node shift %.1f%% over %zu cases", 100 * (mb->shift - 1.0),
                 mb->shift_cases);
        snprintf(name, sizeof name, "node/%s", gb_fleet_member_label(f, m, lab, sizeof lab));
        rc = gb_doc_check(d, "node", name, mb->shift_low ? GB_CHECK_FAIL : GB_CHECK_PASS,
                          mb->shift_low ? msg : NULL);
    }
    return rc;
}

/* The node shift's line: the median node and the limit. */
static int shift_note(const struct gb_fleet *f, struct gb_doc *d)
{
    char a[32], b[32];
    if (isnan(f->shift_median))
        return gb_doc_note(d,
                           "node shift: not judged (%zu member%s with %d or more judged cases "
                           "without calibrated noise; 3 needed)",
                           f->shift_members, f->shift_members == 1 ? "" : "s",
                           GB_FLEET_SHIFT_MIN_CASES);
    gb__fmt_pct(f->shift_median - 1.0, a, sizeof a);
    gb__fmt_pct(1.0 / f->shift_limit - 1.0, b, sizeof b);
    return gb_doc_note(d, "node shift over %zu members: median %s, LOW below %s of it",
                       f->shift_members, a, b);
}

int gb_fleet_doc(const struct gb_fleet *f, const struct gb_fleet_doc_opts *o, struct gb_doc *d)
{
    char head[256];
    snprintf(head, sizeof head, "fleet: %zu file%s, %zu member%s, %zu case%s (%zu not judged)",
             f->nfiles, f->nfiles == 1 ? "" : "s", f->nmembers, f->nmembers == 1 ? "" : "s",
             f->ncases, f->ncases == 1 ? "" : "s", f->unjudged);
    /* The typical case's spread exists only where a case was judged: "0.0%" would read as a
     * fleet of identical nodes. */
    char typical[48] = "none: no case judged";
    if (f->unjudged < f->ncases)
        snprintf(typical, sizeof typical, "%.1f%%", 100.0 * f->pooled);
    int rc = gb_doc_init(d, GB_FLEET_SCHEMA, head);
    for (size_t i = 0; !rc && i < f->nfiles; i++) /* the newest run's start */
        gb_doc_time(d, f->files[i].start_utc);
    if (!rc)
        rc = gb_doc_note(d,
                         "rule: a member (a node, or one of its devices) is an outlier in a case "
                         "when its distance from the median "
                         "(in log performance) is beyond the case's run-to-run noise: the range "
                         "of its reference runs (expectations) where they have it, else %g x b_n "
                         "1.4826 x MAD of the fleet (modified z-score, Iglewicz & Hoaglin), at "
                         "least the typical case's (%s); and more than %g%% from it; where no "
                         "expectations calibrate the case, it only deviates (listed, no outlier "
                         "by itself) and the node is judged by its shift, the median over its "
                         "cases (%d at least) of ln(value / median): LOW when more than max(%g x "
                         "1.4826 x MAD of the nodes' shifts, ln %.2f) below the median node's; a "
                         "case failed on a node and ok elsewhere flags the node; cases with fewer "
                         "than 3 nodes ok are not judged",
                         f->opts.k, typical, 100.0 * f->opts.min_deviation,
                         GB_FLEET_SHIFT_MIN_CASES, f->opts.k, GB_FLEET_SHIFT_FLOOR);
    if (rc || (rc = add_notes(d, f->notes)) || (rc = shift_note(f, d)) ||
        (rc = fleet_outliers(f, d)) || (rc = fleet_deviating(f, d)) || (rc = fleet_cases(f, d)))
        return rc;
    if (o->values) {
        struct case_view *views = calloc(f->ncases ? f->ncases : 1, sizeof *views);
        if (!views || (rc = gb_doc_own(d, views)))
            return GB_ENOMEM;
        if ((rc = fleet_case_tables(f, o->all, views, d)) || (rc = fleet_data(f, d)))
            return rc;
    }
    if (o->checks && (rc = fleet_checks(f, d)))
        return rc;
    if (!f->flagged_nodes)
        return gb_doc_verdict(d, "no outlier node of %zu (exit 0)", f->nfiles);
    size_t top = f->rank ? f->rank[0] : 0;
    char lab[512], why[256];
    outlier_text(&f->members[top], why, sizeof why);
    return gb_doc_verdict(d, "%zu outlier node%s of %zu, the worst %s (%s) (exit 3)",
                          f->flagged_nodes, f->flagged_nodes == 1 ? "" : "s", f->nfiles,
                          gb_fleet_member_label(f, top, lab, sizeof lab), why);
}

/* ---- history ----------------------------------------------------------------------------- */

static void series_title(const struct gb_history_series *s, char *buf, size_t len)
{
    char people[1024];
    gb_params_for_people(s->suite, s->params, people, sizeof people);
    gb_case_title(s->suite, s->case_name, people, s->device, buf, len);
    if (s->slot[0])
        gb_appendf(buf, len, " (#%s)", s->slot);
}

/* The cases: the columns shown, then the data of the JSON file (gpubench-history/1). */
static const char *const history_cols[] = {
    "case",  "unit", "nights", "ok",     "first", "last",   "noise %", "changes",
    "suite", "name", "params", "device", "slot",  "metric", "better",  "noise"};
#define HISTORY_SHOWN 8

/* The first and the last ok night's value of s (NaN when it never ran ok). */
static void first_last(const struct gb_history_series *s, double *first, double *last)
{
    *first = *last = NAN;
    for (size_t n = 0; n < s->npoints; n++)
        if (s->points[n].status == GB_STATUS_OK && isfinite(s->points[n].value)) {
            if (isnan(*first))
                *first = s->points[n].value;
            *last = s->points[n].value;
        }
}

static int history_cases(const struct gb_history *h, struct gb_doc *d)
{
    char title[1100];
    struct gb_doc_table *t;
    int rc = gb_doc_table(d, "cases", "cases", history_cols,
                          sizeof history_cols / sizeof *history_cols, &t);
    for (size_t k = 2; !rc && k < HISTORY_SHOWN; k++)
        gb_doc_column_set(t, k, true, false);
    if (!rc)
        rc = gb_doc_column_unit(t, 4, NULL, 1) || gb_doc_column_unit(t, 5, NULL, 1) ||
             gb_doc_column_unit(t, 6, "%", 0);
    for (size_t k = HISTORY_SHOWN; !rc && k < t->ncols; k++)
        gb_doc_column_data(t, k);
    if (!rc) {
        gb_doc_column_set(t, 0, false, true);
        gb_doc_column_set(t, t->ncols - 1, true, false);
    }
    for (size_t i = 0; !rc && i < h->nseries; i++) {
        const struct gb_history_series *s = &h->series[i];
        double first, last;
        first_last(s, &first, &last);
        size_t r;
        if ((rc = gb_doc_row(t, &r)))
            break;
        series_title(s, title, sizeof title);
        const char *texts[] = {
            title,        s->unit,   NULL,
            NULL,         NULL,      NULL,
            NULL,         NULL,      s->suite,
            s->case_name, s->params, s->device,
            s->slot,      s->metric, s->better == GB_BETTER_LOWER ? "lower" : "higher"};
        for (size_t k = 0; !rc && k < sizeof texts / sizeof *texts; k++)
            if (texts[k])
                rc = gb_doc_text(t, r, k, "%s", texts[k]);
        /* nights: those the case ran on (ok, skipped or failed), not every night of the
         * history (its points, a night absent padded in): "2 nights, 1 ok" of a case that ran
         * once would read as a night it failed */
        size_t ran = 0;
        for (size_t n = 0; n < s->npoints; n++)
            ran += s->points[n].status >= 0;
        gb_doc_num(t, r, 2, (double)ran, 0);
        gb_doc_num(t, r, 3, (double)s->nok, 0);
        gb_doc_num(t, r, 4, first, GB_DOC_SIG4);
        gb_doc_num(t, r, 5, last, GB_DOC_SIG4);
        gb_doc_num(t, r, 6, 100 * s->noise, 1);
        gb_doc_num(t, r, 7, (double)s->nchanges, 0);
        gb_doc_num(t, r, 15, s->noise, -1);
    }
    return rc;
}

static int history_changes(const struct gb_history *h, bool checks, struct gb_doc *d)
{
    enum {
        NIGHT,
        DATE,
        CASE,
        BEFORE,
        AFTER,
        UNIT,
        CHANGE_PCT,
        EFFECT,
        P,
        ALSO,
        FILE_,
        SERIES,
        PREV,
        WHAT,
        CHANGE,
        NCOLS
    };
    static const char *const cols[NCOLS] = {
        [NIGHT] = "night",         [DATE] = "date",     [CASE] = "case",
        [BEFORE] = "before",       [AFTER] = "after",   [UNIT] = "unit",
        [CHANGE_PCT] = "change %", [EFFECT] = "effect", [P] = "p",
        [ALSO] = "also changed",   [FILE_] = "file",    [SERIES] = "series",
        [PREV] = "previous night", [WHAT] = "what",     [CHANGE] = "change"};
    char title[1100], msg[1400];
    snprintf(title, sizeof title, "%zu change point%s", h->nchanges, h->nchanges == 1 ? "" : "s");
    /* Too few nights to split, or to reach p < alpha: say so, rather than leave an empty
     * table to be read as a steady history. */
    const size_t needed = gb_history_nights_needed(&h->opts);
    if (h->nchanges == 0 && h->nnights < needed) {
        char alpha[48] = ""; /* said where alpha, not the sides, is what binds */
        if (needed != 2 * h->opts.min_nights)
            snprintf(alpha, sizeof alpha, "for p < %g; ", h->opts.alpha);
        gb_appendf(title, sizeof title,
                   ": naming one needs %zu nights at least (%s%zu on each side), these are %zu",
                   needed, alpha, h->opts.min_nights, h->nnights);
    }
    struct gb_doc_table *t;
    int rc = gb_doc_table(d, "changes", title, cols, NCOLS, &t);
    if (!rc) {
        static const size_t nums[] = {NIGHT, BEFORE, AFTER, CHANGE_PCT, P, SERIES, PREV, CHANGE};
        for (size_t k = 0; k < sizeof nums / sizeof *nums; k++)
            gb_doc_column_set(t, nums[k], true, false);
        for (size_t k = SERIES; k < NCOLS; k++)
            gb_doc_column_data(t, k);
        gb_doc_column_set(t, CASE, false, true);
        gb_doc_column_set(t, ALSO, false, true);
        gb_doc_column_set(t, FILE_, false, true);
        gb_doc_column_state(t, EFFECT);
        gb_doc_column_prose(t, ALSO);
        rc = gb_doc_column_unit(t, BEFORE, NULL, UNIT) ||
             gb_doc_column_unit(t, AFTER, NULL, UNIT) || gb_doc_column_unit(t, CHANGE_PCT, "%", 0);
    }
    for (size_t i = 0; !rc && i < h->nseries; i++) {
        const struct gb_history_series *s = &h->series[i];
        series_title(s, title, sizeof title);
        bool slower = false;
        for (size_t k = 0; !rc && k < s->nchanges; k++) {
            const struct gb_history_change *c = &s->changes[k];
            const struct gb_history_night *n = c->night < h->nnights ? &h->nights[c->night] : NULL;
            size_t r;
            if ((rc = gb_doc_row(t, &r)))
                break;
            gb_doc_num(t, r, NIGHT, (double)(c->night + 1), 0);
            rc = gb_doc_text(t, r, DATE, "%s", n ? n->start_utc : "?");
            if (!rc)
                rc = gb_doc_text(t, r, CASE, "%s", title);
            gb_doc_num(t, r, BEFORE, c->before, GB_DOC_SIG4);
            gb_doc_num(t, r, AFTER, c->after, GB_DOC_SIG4);
            if (!rc)
                rc = gb_doc_text(t, r, UNIT, "%s", s->unit);
            gb_doc_num(t, r, CHANGE_PCT, 100 * c->change, 1);
            if (!rc)
                rc = gb_doc_text(t, r, EFFECT, "%s", c->change < 0 ? "slower" : "faster");
            gb_doc_num(t, r, P, c->p, -1);
            if (!rc)
                rc = gb_doc_text(t, r, ALSO, "since night %zu: %s", c->prev_night + 1,
                                 c->what[0] ? c->what : "nothing else recorded");
            if (!rc)
                rc = gb_doc_text(t, r, FILE_, "%s", n && n->path ? n->path : "");
            gb_doc_num(t, r, SERIES, (double)i, 0);
            gb_doc_num(t, r, PREV, (double)(c->prev_night + 1), 0);
            if (!rc)
                rc = gb_doc_text(t, r, WHAT, "%s", c->what);
            gb_doc_num(t, r, CHANGE, c->change, -1);
            slower = slower || c->change < 0;
        }
        snprintf(msg, sizeof msg, "%zu change point%s, a slowdown among them", s->nchanges,
                 s->nchanges == 1 ? "" : "s");
        enum gb_check_status st = slower ? GB_CHECK_FAIL : GB_CHECK_PASS;
        /* Too few nights ok to split (gb_history_nights_needed: min_nights on each side, and
         * enough for Pettitt's p to reach alpha): not judged, as check's UNKNOWN is, rather
         * than a pass no night could have failed. */
        if (!slower && s->nok < needed) {
            st = GB_CHECK_SKIP;
            snprintf(msg, sizeof msg,
                     "not judged: %zu night%s ok, a change point needs %zu at least", s->nok,
                     s->nok == 1 ? "" : "s", needed);
        }
        if (!rc && checks)
            rc = gb_doc_check(d, s->suite, title, st, st == GB_CHECK_PASS ? NULL : msg);
    }
    return rc;
}

/* Every case's nights on which it ran (status >= 0), (series, night) in series order: the rows
 * of the views below. Owned by the document; NULL when out of memory. */
static uint32_t (*present_points(const struct gb_history *h, struct gb_doc *d, size_t *n))[2]
{
    *n = 0;
    for (size_t k = 0; k < h->nseries; k++)
        for (size_t i = 0; i < h->series[k].npoints; i++)
            *n += h->series[k].points[i].status >= 0;
    uint32_t(*pts)[2] = malloc((*n ? *n : 1) * sizeof *pts);
    if (!pts || gb_doc_own(d, pts))
        return NULL;
    size_t m = 0;
    for (size_t k = 0; k < h->nseries; k++)
        for (size_t i = 0; i < h->series[k].npoints; i++)
            if (h->series[k].points[i].status >= 0) {
                pts[m][0] = (uint32_t)k;
                pts[m++][1] = (uint32_t)i;
            }
    return pts;
}

/* Rows of a view over present points: row r is pts[first + r]. */
struct points_view {
    const struct gb_history *h;
    const uint32_t (*pts)[2];
    size_t first;
};

/* The status of a point as shown: its name. */
static const char *point_status(const struct gb_history_point *p)
{
    return gb_status_name((enum gb_status)p->status);
}

/* Whether night n is the first at a new level in s. */
static bool is_change(const struct gb_history_series *s, size_t n)
{
    for (size_t i = 0; i < s->nchanges; i++)
        if (s->changes[i].night == n)
            return true;
    return false;
}

static const char *const series_cols[] = {"night", "date",   "value", "p5",
                                          "p95",   "status", "change"};

static int fill_series_row(const void *ctx, struct gb_doc_table *t, size_t r)
{
    const struct points_view *v = ctx;
    const struct gb_history_series *s = &v->h->series[v->pts[v->first + r][0]];
    size_t n = v->pts[v->first + r][1];
    const struct gb_history_point *p = &s->points[n];
    bool ok = p->status == GB_STATUS_OK;
    gb_doc_num(t, r, 0, (double)(n + 1), 0);
    int rc = gb_doc_text(t, r, 1, "%s", v->h->nights[n].start_utc);
    gb_doc_num(t, r, 2, ok ? p->value : NAN, GB_DOC_SIG4);
    gb_doc_num(t, r, 3, ok ? p->lo : NAN, GB_DOC_SIG4);
    gb_doc_num(t, r, 4, ok ? p->hi : NAN, GB_DOC_SIG4);
    if (!rc)
        rc = gb_doc_text(t, r, 5, "%s", point_status(p));
    if (!rc && is_change(s, n))
        rc = gb_doc_text(t, r, 6, "<- change");
    return rc;
}

/* A view per series of the nights on which it ran (ids "series_1".. in the order of the
 * cases), shown with `shown`. */
static int history_series(const struct gb_history *h, bool shown, struct gb_doc *d)
{
    size_t npts;
    const uint32_t(*pts)[2] = present_points(h, d, &npts);
    struct points_view *views = calloc(h->nseries ? h->nseries : 1, sizeof *views);
    if (!pts || !views || gb_doc_own(d, views))
        return GB_ENOMEM;
    char id[32], title[1200], t[1100];
    int rc = 0;
    size_t first = 0;
    for (size_t k = 0; !rc && k < h->nseries; k++) {
        const struct gb_history_series *s = &h->series[k];
        size_t n = 0;
        while (first + n < npts && pts[first + n][0] == k)
            n++;
        views[k] = (struct points_view){h, pts, first};
        first += n;
        series_title(s, t, sizeof t);
        snprintf(title, sizeof title, "%s (%s), night by night", t, s->unit);
        snprintf(id, sizeof id, "series_%zu", k + 1);
        struct gb_doc_table *tb;
        rc = gb_doc_view(d, id, title, series_cols, 7, n, fill_series_row, &views[k], &tb);
        if (rc)
            break;
        for (size_t c = 0; c < 5; c++)
            gb_doc_column_set(tb, c, c != 1, false);
        tb->data = !shown;
    }
    return rc;
}

static const char *const points_cols[] = {"suite", "case",  "params",    "device", "slot",
                                          "unit",  "night", "start_utc", "status", "value",
                                          "p5",    "p95",   "change"};

static int fill_points_row(const void *ctx, struct gb_doc_table *t, size_t r)
{
    const struct points_view *v = ctx;
    const struct gb_history_series *s = &v->h->series[v->pts[r][0]];
    size_t n = v->pts[r][1];
    const struct gb_history_point *p = &s->points[n];
    bool ok = p->status == GB_STATUS_OK;
    const char *texts[] = {s->suite, s->case_name, s->params, s->device, s->slot, s->unit};
    int rc = 0;
    for (size_t c = 0; !rc && c < 6; c++)
        rc = gb_doc_text(t, r, c, "%s", texts[c]);
    gb_doc_num(t, r, 6, (double)(n + 1), 0);
    if (!rc)
        rc = gb_doc_text(t, r, 7, "%s", v->h->nights[n].start_utc);
    if (!rc)
        rc = gb_doc_text(t, r, 8, "%s", point_status(p));
    gb_doc_num(t, r, 9, ok ? p->value : NAN, -1);
    gb_doc_num(t, r, 10, ok ? p->lo : NAN, -1);
    gb_doc_num(t, r, 11, ok ? p->hi : NAN, -1);
    gb_doc_num(t, r, 12, is_change(s, n), 0);
    return rc;
}

/* Every case's every night that it ran, one view (the CSV file's rows). */
static int history_points(const struct gb_history *h, struct gb_doc *d)
{
    size_t n;
    const uint32_t(*pts)[2] = present_points(h, d, &n);
    struct points_view *v = calloc(1, sizeof *v);
    if (!pts || !v || gb_doc_own(d, v))
        return GB_ENOMEM;
    *v = (struct points_view){h, pts, 0};
    struct gb_doc_table *t;
    int rc =
        gb_doc_view(d, "points", "every case's nights", points_cols, 13, n, fill_points_row, v, &t);
    for (size_t c = 6; !rc && c < 13; c++)
        gb_doc_column_set(t, c, c != 7 && c != 8, false);
    return rc;
}

/* The data of the JSON file: the rule ("history", one row), the nights and the notes. */
static int history_data(const struct gb_history *h, struct gb_doc *d)
{
    static const char *const rule_cols[] = {"method", "alpha", "threshold", "min_nights"};
    static const char *const night_cols[] = {
        "night",      "path",           "start_utc", "gpubench_version",
        "git_commit", "profile_sha256", "host",      "interrupted"};
    static const char *const note_col[] = {"note"};
    struct gb_doc_table *t;
    size_t r;
    int rc = gb_doc_table(d, "history", "the rule", rule_cols, 4, &t);
    if (!rc && !(rc = gb_doc_row(t, &r))) {
        t->data = true;
        rc = gb_doc_text(t, r, 0, "pettitt+binseg");
        gb_doc_num(t, r, 1, h->opts.alpha, -1);
        gb_doc_num(t, r, 2, h->opts.threshold, -1);
        gb_doc_num(t, r, 3, (double)h->opts.min_nights, 0);
    }
    if (!rc && !(rc = gb_doc_table(d, "nights", "nights", night_cols, 8, &t)))
        t->data = true;
    for (size_t i = 0; !rc && i < h->nnights; i++) {
        const struct gb_history_night *n = &h->nights[i];
        if ((rc = gb_doc_row(t, &r)))
            break;
        gb_doc_num(t, r, 0, (double)(i + 1), 0);
        const char *texts[] = {n->path,       n->start_utc,      n->gpubench_version,
                               n->git_commit, n->profile_sha256, n->host};
        for (size_t c = 0; !rc && c < 6; c++)
            rc = gb_doc_text(t, r, c + 1, "%s", texts[c] ? texts[c] : "");
        gb_doc_num(t, r, 7, n->interrupted, 0);
    }
    if (!rc && !(rc = gb_doc_table(d, "notes", "notes", note_col, 1, &t)))
        t->data = true;
    for (const char *s = h->notes; !rc && *s;) {
        int l = (int)strcspn(s, "\n");
        if (!(rc = gb_doc_row(t, &r)))
            rc = gb_doc_text(t, r, 0, "%.*s", l, s);
        s += l + (s[l] == '\n');
    }
    return rc;
}

int gb_history_doc(const struct gb_history *h, const struct gb_history_doc_opts *o,
                   struct gb_doc *d)
{
    char title[512];
    snprintf(title, sizeof title, "history: %zu night%s, %s .. %s; %zu case%s followed", h->nnights,
             h->nnights == 1 ? "" : "s", h->nnights ? h->nights[0].start_utc : "-",
             h->nnights ? h->nights[h->nnights - 1].start_utc : "-", h->nseries,
             h->nseries == 1 ? "" : "s");
    int rc = gb_doc_init(d, o->points_only ? GB_HISTORY_CSV_SCHEMA : GB_HISTORY_SCHEMA, title);
    for (size_t i = 0; !rc && i < h->nnights; i++) /* the newest night's start */
        gb_doc_time(d, h->nights[i].start_utc);
    if (!rc && o->points_only)
        return history_points(h, d);
    if (!rc)
        rc = gb_doc_note(d,
                         "rule: Pettitt's rank test in binary segmentation: a split with p < %g "
                         "whose medians differ by at least %g%%, %zu+ nights on each side",
                         h->opts.alpha, 100.0 * h->opts.threshold, h->opts.min_nights);
    if (!rc)
        rc = add_notes(d, h->notes);
    if (!rc)
        rc = history_changes(h, o->checks, d);
    if (!rc)
        rc = history_cases(h, d);
    if (!rc)
        rc = history_series(h, o->series, d);
    if (!rc)
        rc = history_data(h, d);
    if (!rc)
        rc = gb_doc_verdict(d, "%zu change point%s, %zu of them slowdowns", h->nchanges,
                            h->nchanges == 1 ? "" : "s", h->slower);
    return rc;
}
