/* gpubench — the check's document (contract in check_out.h). */
#include "outputs/check_out.h"
#include "outputs/summary_out.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyses/merge.h"

static const char *const cols[] = {"verdict",  "case",   "device", "value", "unit", "expected",
                                   "change %", "band %", "z",      "basis", "runs", "note"};
enum {
    C_VERDICT,
    C_CASE,
    C_DEVICE,
    C_VALUE,
    C_UNIT,
    C_EXPECTED,
    C_CHANGE,
    C_BAND,
    C_Z,
    C_BASIS,
    C_RUNS,
    C_NOTE,
    NCOLS
};

/* Row w's device as it is named: its model, with its index in the run ("NVIDIA H100 #1") where
 * another device of the run has the same name (a node of eight alike), so that their rows and
 * checks stay apart. Into buf. */
static const char *device_named(const struct gb_check *c, const struct gb_check_row *w, char *buf,
                                size_t len)
{
    const int dv = w->r->device_index;
    bool shared = false;
    for (size_t k = 0; dv >= 0 && (size_t)dv < c->rs->ndevices && k < c->rs->ndevices; k++)
        shared |=
            (int)k != dv && strcmp(c->rs->devices[k].info.name, c->rs->devices[dv].info.name) == 0;
    if (shared)
        snprintf(buf, len, "%s #%d", w->device, dv);
    else
        snprintf(buf, len, "%s", w->device);
    return buf;
}

static int row_of(const struct gb_check *c, const struct gb_check_row *w, struct gb_doc_table *t)
{
    size_t r;
    int rc = gb_doc_row(t, &r);
    if (rc)
        return rc;
    char title[1400]; /* the device has its own column */
    snprintf(title, sizeof title, "%s %s%s%s", w->r->suite, w->r->case_name,
             w->params[0] ? " " : "", w->params);
    rc = gb_doc_text(t, r, C_VERDICT, "%s", gb_expect_verdict_name(w->j.verdict));
    if (!rc)
        rc = gb_doc_text(t, r, C_CASE, "%s", title);
    char people[1024];
    gb_params_for_people(w->r->suite, w->params, people, sizeof people);
    if (!rc && strcmp(people, w->params) != 0)
        rc = gb_doc_shown(t, r, C_CASE, "%s %s%s%s", w->r->suite, w->r->case_name,
                          people[0] ? " " : "", people);
    /* The cell is the model, which files key expectations by; people read the device. */
    char dev[600];
    if (!rc)
        rc = gb_doc_text(t, r, C_DEVICE, "%s", w->device);
    if (!rc && strcmp(device_named(c, w, dev, sizeof dev), w->device) != 0)
        rc = gb_doc_shown(t, r, C_DEVICE, "%s", dev);
    if (w->r->status == GB_STATUS_OK)
        gb_doc_num(t, r, C_VALUE, w->r->value, -1);
    if (!rc)
        rc = gb_doc_text(t, r, C_UNIT, "%s", w->r->unit);
    gb_doc_num(t, r, C_EXPECTED, w->j.expected, -1);
    gb_doc_num(t, r, C_CHANGE, 100 * w->j.change, 1);
    gb_doc_num(t, r, C_BAND, 100 * w->j.band, 1);
    gb_doc_num(t, r, C_Z, w->j.z, 1);
    if (!rc)
        rc = gb_doc_text(t, r, C_BASIS, "%s", w->basis);
    if (w->e)
        gb_doc_num(t, r, C_RUNS, (double)w->e->n, 0);
    if (!rc && w->note[0])
        rc = gb_doc_text(t, r, C_NOTE, "%s", w->note);
    return rc;
}

/* Whether the results span several devices (their checks then name the device). */
static bool several_devices(const struct gb_check *c)
{
    for (size_t i = 1; i < c->nrows; i++)
        if (strcmp(c->rows[i].device, c->rows[0].device) != 0 ||
            c->rows[i].r->device_index != c->rows[0].r->device_index)
            return true;
    return false;
}

static int check_of(const struct gb_check *c, const struct gb_check_row *w, bool devices,
                    struct gb_doc *d)
{
    char name[1400], msg[1600], dev[600];
    gb_doc_case_name(w->r->suite, w->r->case_name, w->params,
                     devices ? device_named(c, w, dev, sizeof dev) : NULL, name, sizeof name);
    const enum gb_expect_verdict v = w->j.verdict;
    const enum gb_check_status st = w->fails ? GB_CHECK_FAIL
                                    : (v == GB_EXPECT_UNKNOWN || v == GB_EXPECT_SKIPPED)
                                        ? GB_CHECK_SKIP
                                        : GB_CHECK_PASS;
    if (v == GB_EXPECT_LOW)
        snprintf(msg, sizeof msg,
                 "LOW: %.4g %s, %.1f%% below the expected %.4g (%.1f spreads; "
                 "the band reaches %.1f%% below it, %zu reference runs)",
                 w->r->value, w->r->unit, -100 * w->j.change, w->j.expected, -w->j.z,
                 100 * (1 - 1 / (1 + w->j.band)), w->e ? w->e->n : 0);
    else
        snprintf(msg, sizeof msg, "%s%s%s", gb_expect_verdict_name(v), w->note[0] ? ": " : "",
                 w->note);
    return gb_doc_check(d, w->r->suite, name, st, st == GB_CHECK_PASS ? NULL : msg);
}

static const char *const whole_cols[] = {"verdict",  "device", "results",
                                         "change %", "band %", "note"};

/* The table of the devices as wholes and a check per device (LOW fails, UNKNOWN is a skip). */
static int wholes_of(const struct gb_check *c, struct gb_doc *d)
{
    if (!c->nwholes || !c->judged)
        return 0;
    struct gb_doc_table *t;
    int rc = gb_doc_table(d, "whole",
                          "per device: the run as a whole (the median change of its results "
                          "against their references) against the reference runs' own",
                          whole_cols, 6, &t);
    if (!rc) {
        gb_doc_column_set(t, 2, true, false);
        gb_doc_column_set(t, 3, true, false);
        gb_doc_column_set(t, 4, true, false);
        gb_doc_column_set(t, 5, false, true);
        gb_doc_column_state(t, 0);
        gb_doc_column_prose(t, 5);
        rc = gb_doc_column_unit(t, 3, "%", 0) || gb_doc_column_unit(t, 4, "%", 0);
    }
    for (size_t i = 0; !rc && i < c->nwholes; i++) {
        const struct gb_check_whole *w = &c->wholes[i];
        const int dv = w->device;
        char dev[320], msg[600], check[400];
        snprintf(dev, sizeof dev, "%d: %s", dv,
                 dv >= 0 && (size_t)dv < c->rs->ndevices ? c->rs->devices[dv].info.name : "?");
        snprintf(check, sizeof check, "whole/%s", dev);
        size_t r;
        rc = gb_doc_row(t, &r) || gb_doc_text(t, r, 0, "%s", gb_expect_verdict_name(w->verdict)) ||
             gb_doc_text(t, r, 1, "%s", dev) || (w->note[0] && gb_doc_text(t, r, 5, "%s", w->note));
        if (rc)
            break;
        gb_doc_num(t, r, 2, (double)w->cases, 0);
        gb_doc_num(t, r, 3, 100 * w->change, 1);
        gb_doc_num(t, r, 4, 100 * w->band, 1);
        const enum gb_check_status st = w->fails                          ? GB_CHECK_FAIL
                                        : w->verdict == GB_EXPECT_UNKNOWN ? GB_CHECK_SKIP
                                                                          : GB_CHECK_PASS;
        if (w->verdict == GB_EXPECT_LOW)
            snprintf(msg, sizeof msg,
                     "LOW as a whole: its results %.1f%% below their references' medians (the "
                     "median of %zu); the band reaches %.1f%% below (%s)",
                     -100 * w->change, w->cases, 100 * (1 - 1 / (1 + w->band)), w->note);
        else
            snprintf(msg, sizeof msg, "%s: %s", gb_expect_verdict_name(w->verdict), w->note);
        rc = gb_doc_check(d, "whole", check, st, st == GB_CHECK_PASS ? NULL : msg);
    }
    return rc;
}

static const char *const health_cols[] = {"device", "item", "verdict", "reading", "note"};

/* The health table and a check per item (FAIL fails, UNKNOWN is a skip). */
static int health_of(const struct gb_check *c, struct gb_doc *d)
{
    if (!c->nhealth)
        return 0;
    struct gb_doc_table *t;
    int rc = gb_doc_table(d, "health", "per device: what the driver can tell", health_cols, 5, &t);
    if (!rc) {
        gb_doc_column_set(t, 3, false, true);
        gb_doc_column_set(t, 4, false, true);
        gb_doc_column_state(t, 2);
        gb_doc_column_prose(t, 3);
        gb_doc_column_prose(t, 4);
    }
    for (size_t i = 0; !rc && i < c->nhealth; i++) {
        const struct gb_health_item *h = &c->health[i];
        const int dv = h->device;
        const char *name =
            dv >= 0 && (size_t)dv < c->rs->ndevices ? c->rs->devices[dv].info.name : "?";
        char dev[320], check[400];
        snprintf(dev, sizeof dev, "%d: %s", dv, name);
        size_t r;
        rc = gb_doc_row(t, &r) || gb_doc_text(t, r, 0, "%s", dev) ||
             gb_doc_text(t, r, 1, "%s", h->item) ||
             gb_doc_text(t, r, 2, "%s", gb_health_verdict_name(h->verdict)) ||
             (h->reading[0] && gb_doc_text(t, r, 3, "%s", h->reading)) ||
             (h->note[0] && gb_doc_text(t, r, 4, "%s", h->note));
        if (rc)
            break;
        snprintf(check, sizeof check, "health/%s/%s", dev, h->item);
        const enum gb_check_status st = h->verdict == GB_HEALTH_FAIL      ? GB_CHECK_FAIL
                                        : h->verdict == GB_HEALTH_UNKNOWN ? GB_CHECK_SKIP
                                                                          : GB_CHECK_PASS;
        char msg[600];
        snprintf(msg, sizeof msg, "%s: %s", gb_health_verdict_name(h->verdict),
                 h->note[0] ? h->note : h->reading);
        rc = gb_doc_check(d, "health", check, st, st == GB_CHECK_PASS ? NULL : msg);
    }
    return rc;
}

int gb_check_doc(const struct gb_check *c, struct gb_doc *d)
{
    char head[1200];
    snprintf(head, sizeof head, "check: %s, %zu results against %s", c->path, c->nrows,
             c->expect_path ? c->expect_path : "their bounds only");
    char counts[320] = "";
    int rc = gb_doc_init(d, "gpubench-check-doc/1", head);
    const char *profile = c->rs->run.profile_name;
    if (!rc)
        rc = gb_doc_suite(d, "gpubench check%s%s", profile && *profile ? " " : "",
                          profile ? profile : "");
    if (!rc)
        rc = gb_doc_note(d,
                         "rule: LOW (slower) or HIGH (faster) beyond the reference runs' range "
                         "by %g spreads, at least the tolerance (%.3g%%%s), in log performance "
                         "(change %% and z as performance: + is faster, for a time a shorter "
                         "one), each result and "
                         "each device's run as a whole (the median of its results' changes); "
                         "without a reference of 3 runs or more a result is not judged "
                         "(UNKNOWN); IMPLAUSIBLE above its bound; LOW, IMPLAUSIBLE and FAILED "
                         "fail",
                         c->opts.mads, 100 * c->opts.tolerance,
                         c->opts.nsuite_tolerances ? ", other suites as given" : "");
    if (!rc && c->nrows && !c->models_known)
        rc = gb_doc_note(d,
                         "%s: no figure is judged (its bounds say what is impossible, not what is "
                         "normal; IMPLAUSIBLE above them)",
                         c->expect_path ? "no reference for this device model in the expectations"
                                        : "no expectations file (-e FILE, or gpubench expect to "
                                          "make one)");
    /* A band that holds a halving: such a NORMAL says little (on a shared 2-core VM every case's
     * reference runs spread that far), and the reader must know what a result alone can see. */
    size_t wide = 0;
    for (size_t i = 0; i < c->nrows; i++)
        wide += c->rows[i].j.verdict == GB_EXPECT_NORMAL && c->rows[i].j.band >= 1.0;
    if (!rc && wide)
        rc = gb_doc_note(d,
                         "%zu of %zu NORMAL results have a band that holds a halving (LOW only "
                         "below 0.5x the expected: their reference runs spread that far): alone "
                         "they see no smaller change; the run as a whole is judged too",
                         wide, c->counts[GB_EXPECT_NORMAL]);
    struct gb_doc_table *t = NULL;
    if (!rc)
        rc = gb_doc_table(d, "check", "per result: the verdict against the expectation", cols,
                          NCOLS, &t);
    if (!rc) {
        for (size_t k = C_VALUE; k <= C_RUNS; k++)
            if (k != C_UNIT && k != C_BASIS)
                gb_doc_column_set(t, k, true, false);
        gb_doc_column_set(t, C_CASE, false, true);
        gb_doc_column_set(t, C_DEVICE, false, true);
        gb_doc_column_set(t, C_NOTE, false, true);
        /* Not series identity: a note that changes starts no new series, and the verdict is a
         * state of its own. */
        gb_doc_column_state(t, C_VERDICT);
        gb_doc_column_prose(t, C_NOTE);
        rc = gb_doc_column_unit(t, C_VALUE, NULL, C_UNIT) ||
             gb_doc_column_unit(t, C_EXPECTED, NULL, C_UNIT) ||
             gb_doc_column_unit(t, C_CHANGE, "%", 0) || gb_doc_column_unit(t, C_BAND, "%", 0);
    }
    if (!rc)
        gb_doc_time(d, c->rs->run.start_utc);
    for (size_t i = 0; !rc && i < c->nrows; i++)
        rc = row_of(c, &c->rows[i], t);
    const bool devices = several_devices(c);
    for (size_t i = 0; !rc && i < c->nrows; i++)
        rc = check_of(c, &c->rows[i], devices, d);
    if (!rc)
        rc = wholes_of(c, d);
    if (!rc)
        rc = health_of(c, d);
    if (rc)
        return rc;
    if (c->health_failures)
        snprintf(counts, sizeof counts, "health: %zu item%s FAIL; ", c->health_failures,
                 c->health_failures == 1 ? "" : "s");
    for (int v = 0; v < GB_EXPECT_VERDICTS; v++)
        if (c->counts[v])
            snprintf(counts + strlen(counts), sizeof counts - strlen(counts), "%s%zu %s",
                     counts[0] ? ", " : "", c->counts[v], gb_expect_verdict_name(v));
    if (!rc && c->incomplete[0])
        rc = gb_doc_check(d, "run", "run/complete", GB_CHECK_FAIL, c->incomplete);
    if (rc)
        return rc;
    if (c->incomplete[0])
        return gb_doc_verdict(d, "not judged whole (exit 3): %s; %s", c->incomplete,
                              counts[0] ? counts : "nothing");
    if (c->whole_failures)
        snprintf(counts + strlen(counts), sizeof counts - strlen(counts),
                 "; %zu device%s LOW as a whole", c->whole_failures,
                 c->whole_failures == 1 ? "" : "s");
    if (c->failures)
        return gb_doc_verdict(d, "%zu result%s not normal (exit 3): %s", c->failures,
                              c->failures == 1 ? "" : "s", counts);
    if (c->whole_failures)
        return gb_doc_verdict(d, "the run is low as a whole (exit 3): %s", counts);
    if (c->health_failures)
        return gb_doc_verdict(d, "not healthy (exit 3): %s", counts);
    if (!c->judged)
        return gb_doc_verdict(d,
                              "nothing judged (exit 0): no result had a usable reference for "
                              "its device model%s; %s",
                              c->expect_path ? "" : " (no expectations file)",
                              counts[0] ? counts : "nothing");
    return gb_doc_verdict(d, "normal (exit 0): %s", counts[0] ? counts : "nothing");
}
