/* gpubench — fleet's and history's documents (contract in fleet_out.h). */
#include "outputs/fleet_out.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyses/merge.h"
#include "base/error.h"

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

/* The table "cases" of eight columns cols: the first (the case) shrinkable, the third on
 * numeric. */
static int cases_table(struct gb_doc *d, const char *const *cols, struct gb_doc_table **t)
{
    int rc = gb_doc_table(d, "cases", "cases", cols, 8, t);
    for (size_t k = 2; !rc && k < 8; k++)
        gb_doc_column_set(*t, k, true, false);
    if (!rc)
        gb_doc_column_set(*t, 0, false, true);
    return rc;
}

static const char *const fleet_cols[] = {"case",     "unit", "nodes", "median",
                                         "spread %", "min",  "max",   "outliers"};

static int fleet_cases(const struct gb_fleet *f, struct gb_doc *d)
{
    struct gb_doc_table *t;
    int rc = cases_table(d, fleet_cols, &t);
    char title[1024];
    for (size_t k = 0; !rc && k < f->ncases; k++) {
        const struct gb_fleet_case *c = &f->cases[k];
        size_t r;
        if ((rc = gb_doc_row(t, &r)))
            break;
        gb_case_title(c->suite, c->case_name, c->params, c->device, title, sizeof title);
        rc = gb_doc_text(t, r, 0, "%s", title);
        if (!rc)
            rc = gb_doc_text(t, r, 1, "%s", c->unit);
        gb_doc_num(t, r, 2, (double)c->nok, 0);
        gb_doc_num(t, r, 3, c->median, -1);
        gb_doc_num(t, r, 4,
                   c->nok && c->median != 0 ? 100 * MAD_NORMAL * c->mad / fabs(c->median) : NAN, 1);
        gb_doc_num(t, r, 5, c->min, -1);
        gb_doc_num(t, r, 6, c->max, -1);
        gb_doc_num(t, r, 7, (double)c->noutliers, 0);
        if (!rc && c->nok < 3)
            rc = gb_doc_footnote(t, r, 0, "not judged: fewer than 3 nodes ran it ok");
    }
    return rc;
}

static int fleet_outliers(const struct gb_fleet *f, struct gb_doc *d)
{
    static const char *const cols[] = {"node", "cases", "worst %", "worst case", "health"};
    struct gb_doc_table *t;
    int rc = gb_doc_table(d, "outliers", "outlier nodes", cols, 5, &t);
    if (!rc) {
        gb_doc_column_set(t, 1, true, false);
        gb_doc_column_set(t, 2, true, false);
        gb_doc_column_set(t, 3, false, true);
        gb_doc_column_set(t, 4, false, true);
    }
    char lab[512], title[1024];
    for (size_t q = 0; !rc && q < f->nmembers; q++) {
        size_t m = f->rank ? f->rank[q] : q; /* most severe first */
        const struct gb_fleet_member *mb = &f->members[m];
        if (!mb->outlier)
            continue;
        size_t r;
        if ((rc = gb_doc_row(t, &r)))
            break;
        rc = gb_doc_text(t, r, 0, "%s", gb_fleet_member_label(f, m, lab, sizeof lab));
        gb_doc_num(t, r, 1, (double)mb->nflagged, 0);
        if (!rc && mb->nflagged && isnan(mb->worst))
            rc = gb_doc_text(t, r, 2, "FAILED");
        else
            gb_doc_num(t, r, 2, 100 * (mb->nflagged ? mb->worst : mb->shift - 1.0), 1);
        if (mb->nflagged) {
            const struct gb_fleet_case *c = &f->cases[mb->worst_case];
            gb_case_title(c->suite, c->case_name, c->params, c->device, title, sizeof title);
        } else {
            snprintf(title, sizeof title, "LOW: node shift over %zu cases", mb->shift_cases);
        }
        if (!rc)
            rc = gb_doc_text(t, r, 3, "%s", title);
        if (!rc && mb->health[0])
            rc = gb_doc_text(t, r, 4, "%s", mb->health);
    }
    return rc;
}

static int fleet_checks(const struct gb_fleet *f, struct gb_doc *d)
{
    char lab[512], title[1024], msg[256];
    int rc = 0;
    for (size_t k = 0; !rc && k < f->ncases; k++) {
        const struct gb_fleet_case *c = &f->cases[k];
        gb_case_title(c->suite, c->case_name, c->params, c->device, title, sizeof title);
        for (size_t i = 0; !rc && i < c->nobs; i++) {
            const struct gb_fleet_obs *o = &c->obs[i];
            gb_fleet_member_label(f, o->member, lab, sizeof lab);
            enum gb_check_status st = o->flag == GB_FLEET_SLOW || o->flag == GB_FLEET_FAST ||
                                              o->flag == GB_FLEET_FAILED || o->flag == GB_FLEET_LOW
                                          ? GB_CHECK_FAIL
                                      : o->flag == GB_FLEET_UNJUDGED ? GB_CHECK_SKIP
                                                                     : GB_CHECK_PASS;
            snprintf(msg, sizeof msg, "%s: %.4g %s against the median %.4g",
                     gb_fleet_flag_name((enum gb_fleet_flag)o->flag), o->value, c->unit, c->median);
            rc = gb_doc_check(d, title, lab, st, st == GB_CHECK_PASS ? NULL : msg);
        }
    }
    /* The node shifts: a LOW member fails as a whole. */
    for (size_t m = 0; !rc && m < f->nmembers; m++) {
        const struct gb_fleet_member *mb = &f->members[m];
        if (isnan(mb->shift))
            continue;
        snprintf(msg, sizeof msg, "LOW: node shift %.1f%% over %zu cases", 100 * (mb->shift - 1.0),
                 mb->shift_cases);
        rc =
            gb_doc_check(d, "node shift", gb_fleet_member_label(f, m, lab, sizeof lab),
                         mb->shift_low ? GB_CHECK_FAIL : GB_CHECK_PASS, mb->shift_low ? msg : NULL);
    }
    return rc;
}

int gb_fleet_doc(const struct gb_fleet *f, struct gb_doc *d)
{
    char head[256];
    snprintf(head, sizeof head, "fleet: %zu files, %zu members, %zu cases (%zu not judged)",
             f->nfiles, f->nmembers, f->ncases, f->unjudged);
    int rc = gb_doc_init(d, "gpubench-fleet-doc/1", head);
    if (!rc)
        rc = gb_doc_note(d,
                         "rule: an outlier when beyond the case's run-to-run noise (its "
                         "reference runs' range, else %g x b_n 1.4826 x MAD of the fleet, at "
                         "least the typical case's, %.1f%%) and more than %g%% from the median; "
                         "without reference runs it only deviates, and a node is LOW when its "
                         "shift (median over %d+ cases of ln(value / median)) is more than "
                         "max(%g x 1.4826 x MAD of the shifts, ln %.2f) below the median node's",
                         f->opts.k, 100.0 * f->pooled, 100.0 * f->opts.min_deviation,
                         GB_FLEET_SHIFT_MIN_CASES, f->opts.k, GB_FLEET_SHIFT_FLOOR);
    if (rc || (rc = add_notes(d, f->notes)) || (rc = fleet_cases(f, d)) ||
        (rc = fleet_outliers(f, d)) || (rc = fleet_checks(f, d)))
        return rc;
    return f->flagged_nodes ? gb_doc_verdict(d, "%zu outlier node%s (exit 3)", f->flagged_nodes,
                                             f->flagged_nodes == 1 ? "" : "s")
                            : gb_doc_verdict(d, "no outlier node (exit 0)");
}

/* ---- history ----------------------------------------------------------------------------- */

static void series_title(const struct gb_history_series *s, char *buf, size_t len)
{
    gb_case_title(s->suite, s->case_name, s->params, s->device, buf, len);
    if (s->slot && *s->slot)
        snprintf(buf + strlen(buf), len - strlen(buf), " [%s]", s->slot);
}

static const char *const history_cols[] = {"case",  "unit", "nights",  "ok",
                                           "first", "last", "noise %", "changes"};

/* The first and the last ok night's value of s (NaN when it never ran ok). */
static void first_last(const struct gb_history_series *s, double *first, double *last)
{
    *first = *last = NAN;
    for (size_t n = 0; n < s->npoints; n++)
        if (!isnan(s->points[n].value)) {
            if (isnan(*first))
                *first = s->points[n].value;
            *last = s->points[n].value;
        }
}

static int history_cases(const struct gb_history *h, struct gb_doc *d)
{
    char title[1100];
    struct gb_doc_table *t;
    int rc = cases_table(d, history_cols, &t);
    for (size_t i = 0; !rc && i < h->nseries; i++) {
        const struct gb_history_series *s = &h->series[i];
        double first, last;
        first_last(s, &first, &last);
        size_t r;
        if ((rc = gb_doc_row(t, &r)))
            break;
        series_title(s, title, sizeof title);
        rc = gb_doc_text(t, r, 0, "%s", title);
        if (!rc)
            rc = gb_doc_text(t, r, 1, "%s", s->unit);
        gb_doc_num(t, r, 2, (double)s->npoints, 0);
        gb_doc_num(t, r, 3, (double)s->nok, 0);
        gb_doc_num(t, r, 4, first, -1);
        gb_doc_num(t, r, 5, last, -1);
        gb_doc_num(t, r, 6, 100 * s->noise, 1);
        gb_doc_num(t, r, 7, (double)s->nchanges, 0);
    }
    return rc;
}

static int history_changes(const struct gb_history *h, struct gb_doc *d)
{
    static const char *const cols[] = {"case",     "night", "before",           "after",
                                       "change %", "p",     "what else changed"};
    struct gb_doc_table *t;
    int rc = gb_doc_table(d, "changes", "change points", cols, 7, &t);
    for (size_t k = 2; !rc && k < 6; k++)
        gb_doc_column_set(t, k, true, false);
    if (!rc) {
        gb_doc_column_set(t, 0, false, true);
        gb_doc_column_set(t, 6, false, true);
    }
    char title[1100], msg[1400];
    for (size_t i = 0; !rc && i < h->nseries; i++) {
        const struct gb_history_series *s = &h->series[i];
        series_title(s, title, sizeof title);
        bool slower = false;
        for (size_t k = 0; !rc && k < s->nchanges; k++) {
            const struct gb_history_change *c = &s->changes[k];
            size_t r;
            if ((rc = gb_doc_row(t, &r)))
                break;
            rc = gb_doc_text(t, r, 0, "%s", title);
            if (!rc)
                rc = gb_doc_text(t, r, 1, "%s",
                                 c->night < h->nnights ? h->nights[c->night].start_utc : "?");
            gb_doc_num(t, r, 2, c->before, -1);
            gb_doc_num(t, r, 3, c->after, -1);
            gb_doc_num(t, r, 4, 100 * c->change, 1);
            gb_doc_num(t, r, 5, c->p, -1);
            if (!rc)
                rc = gb_doc_text(t, r, 6, "%s", c->what);
            slower = slower || c->change < 0;
        }
        snprintf(msg, sizeof msg, "%zu change point%s, a slowdown among them", s->nchanges,
                 s->nchanges == 1 ? "" : "s");
        if (!rc)
            rc = gb_doc_check(d, s->suite, title, slower ? GB_CHECK_FAIL : GB_CHECK_PASS,
                              slower ? msg : NULL);
    }
    return rc;
}

int gb_history_doc(const struct gb_history *h, struct gb_doc *d)
{
    int rc = gb_doc_init(d, "gpubench-history-doc/1", "history");
    if (!rc)
        rc = gb_doc_note(d, "%zu nights, %zu cases, %zu change points (%zu slower)", h->nnights,
                         h->nseries, h->nchanges, h->slower);
    if (!rc)
        rc = add_notes(d, h->notes);
    if (!rc)
        rc = history_cases(h, d);
    if (!rc)
        rc = history_changes(h, d);
    if (!rc)
        rc = gb_doc_verdict(d, "%zu change point%s, %zu of them slowdowns", h->nchanges,
                            h->nchanges == 1 ? "" : "s", h->slower);
    return rc;
}
