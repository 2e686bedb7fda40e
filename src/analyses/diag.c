/* gpubench — diag: tests and the level's verdict (contract in diag.h). */
#include "analyses/diag.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"

const char *gb_diag_status_name(enum gb_diag_status s)
{
    static const char *const names[GB_DIAG_STATUSES] = {"PASS", "WARN", "FAIL", "SKIPPED", "ERROR"};
    return (unsigned)s < GB_DIAG_STATUSES ? names[s] : "?";
}

/* How bad a status of a part that ran is: PASS < WARN < ERROR < FAIL (a device judged faulty
 * is the stronger news than a test that broke). */
static int rank(enum gb_diag_status s)
{
    return s == GB_DIAG_PASS ? 0 : s == GB_DIAG_WARN ? 1 : s == GB_DIAG_ERROR ? 2 : 3;
}

void gb_diag_init(struct gb_diag *d, int level)
{
    memset(d, 0, sizeof *d);
    d->level = level;
}

void gb_diag_free(struct gb_diag *d)
{
    free(d->t);
    memset(d, 0, sizeof *d);
}

/* The test named `full`, created when missing (SKIPPED with nothing ran yet); NULL without
 * memory. */
static struct gb_diag_test *find(struct gb_diag *d, const char *full)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->t[i].name, full) == 0)
            return &d->t[i];
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 32;
        struct gb_diag_test *t = realloc(d->t, cap * sizeof *t);
        if (!t)
            return NULL;
        d->t = t;
        d->cap = cap;
    }
    struct gb_diag_test *t = &d->t[d->n++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", full);
    t->status = GB_DIAG_SKIPPED;
    return t;
}

/* name as a test name's word: lower-case letters, digits, '_', '.', '-'; anything else '_'. */
static void word(const char *name, char *out, size_t len)
{
    size_t k = 0;
    for (; name[k] && k + 1 < len; k++) {
        char ch = name[k];
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch - 'A' + 'a');
        out[k] = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' ||
                         ch == '-'
                     ? ch
                     : '_';
    }
    out[k] = '\0';
}

static void full_name(const struct gb_diag *d, const char *name, int device, char *buf, size_t len)
{
    char w[128];
    word(name, w, sizeof w);
    if (device >= 0)
        snprintf(buf, len, "diag/%d/%s@%d", d->level, w, device);
    else
        snprintf(buf, len, "diag/%d/%s", d->level, w);
}

static int add_text(struct gb_diag *d, const char *name, int device, enum gb_diag_status st,
                    const char *text)
{
    char full[160];
    full_name(d, name, device, full, sizeof full);
    struct gb_diag_test *t = find(d, full);
    if (!t)
        return GB_ENOMEM;
    if (st == GB_DIAG_SKIPPED) {
        if (!t->skipped++)
            gb_appendf(t->skip, sizeof t->skip, "%s", text); /* empty before: cut to fit */
        return 0;
    }
    if (!t->ran++ || rank(st) > rank(t->status)) {
        t->status = st;
        snprintf(t->detail, sizeof t->detail, "%s", text);
    } else if (rank(st) == rank(t->status) && text[0]) {
        gb_appendf(t->detail, sizeof t->detail, "%s%s", t->detail[0] ? "; " : "", text);
    }
    return 0;
}

int gb_diag_add(struct gb_diag *d, const char *name, int device, enum gb_diag_status st,
                const char *fmt, ...)
{
    char text[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return add_text(d, name, device, st, text);
}

int gb_diag_declare(struct gb_diag *d, const char *name, int device)
{
    char full[160];
    full_name(d, name, device, full, sizeof full);
    return find(d, full) ? 0 : GB_ENOMEM;
}

void gb_diag_unreported(struct gb_diag *d, enum gb_diag_status st, const char *why)
{
    for (size_t i = 0; i < d->n; i++) {
        struct gb_diag_test *t = &d->t[i];
        if (t->ran || t->skipped)
            continue;
        if (st == GB_DIAG_SKIPPED) {
            t->skipped = 1;
            snprintf(t->skip, sizeof t->skip, "%s", why);
        } else {
            t->ran = 1;
            t->status = st;
            snprintf(t->detail, sizeof t->detail, "%s", why);
        }
    }
}

/* One result of the check as a part of its suite and case's test. */
static int add_row(struct gb_diag *d, const struct gb_check_row *w, bool several)
{
    const struct gb_result *r = w->r;
    char name[128];
    snprintf(name, sizeof name, "%s%s%s", r->suite, r->case_name[0] ? "_" : "", r->case_name);
    const int dev = several ? r->device_index : -1;
    const char *p = w->params[0] ? w->params : "-";
    const struct gb_expect_judgement *j = &w->j;
    switch (j->verdict) {
    case GB_EXPECT_SKIPPED:
        return gb_diag_add(d, name, dev, GB_DIAG_SKIPPED, "%s: %s", p, r->reason);
    case GB_EXPECT_FAILED:
        return gb_diag_add(d, name, dev, GB_DIAG_FAIL, "%s: failed: %s", p, r->reason);
    case GB_EXPECT_LOW:
        return gb_diag_add(d, name, dev, GB_DIAG_FAIL,
                           "%s: LOW: %.4g %s, %.1f%% below the expected %.4g %s (the band "
                           "reaches %.1f%% below it)",
                           p, r->value, r->unit, -100 * j->change, j->expected, r->unit,
                           100 * (1 - 1 / (1 + j->band)));
    case GB_EXPECT_IMPLAUSIBLE:
        return gb_diag_add(d, name, dev, GB_DIAG_FAIL, "%s: IMPLAUSIBLE: %.4g %s%s%s", p, r->value,
                           r->unit, w->note[0] ? ": " : "", w->note);
    default:
        break;
    }
    if (!r->verified)
        return gb_diag_add(d, name, dev, GB_DIAG_WARN, "%s: %.4g %s, its output not verified", p,
                           r->value, r->unit);
    /* A case that tested less than it was asked to (figure `coverage` below 1, of what it was
     * asked in text figure `coverage_of`: memtest in its time budget) passed on that share
     * only. */
    const struct gb_figure *cov = gb_result_figure_get(r, "coverage");
    if (cov && cov->n >= 1 && cov->v[0] < 1) {
        const struct gb_figure *of = gb_result_figure_get(r, "coverage_of");
        return gb_diag_add(d, name, dev, GB_DIAG_WARN,
                           "%s: %.4g %s, verified, but tested %.3g%% of %s (figure coverage %.3g)",
                           p, r->value, r->unit, 100 * cov->v[0],
                           of && of->text[0] ? of->text : "what it was asked", cov->v[0]);
    }
    if (j->verdict == GB_EXPECT_UNKNOWN)
        return isfinite(j->of_bound)
                   ? gb_diag_add(d, name, dev, GB_DIAG_PASS,
                                 "%s: %.4g %s, verified, %.1f%% of its bound (no reference for "
                                 "this model: judged by its bound)",
                                 p, r->value, r->unit, 100 * j->of_bound)
                   : gb_diag_add(d, name, dev, GB_DIAG_PASS,
                                 "%s: %.4g %s, verified (no reference for this model, no "
                                 "bound)",
                                 p, r->value, r->unit);
    return gb_diag_add(d, name, dev, GB_DIAG_PASS, "%s: %.4g %s, %s against the expected %.4g %s",
                       p, r->value, r->unit, gb_expect_verdict_name(j->verdict), j->expected,
                       r->unit);
}

int gb_diag_from_check(struct gb_diag *d, const struct gb_check *c, bool several)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < c->nrows; i++)
        rc = add_row(d, &c->rows[i], several);
    for (size_t i = 0; !rc && i < c->nhealth; i++) {
        const struct gb_health_item *h = &c->health[i];
        char name[64];
        snprintf(name, sizeof name, "health_%s", h->item);
        static const enum gb_diag_status of[] = {[GB_HEALTH_OK] = GB_DIAG_PASS,
                                                 [GB_HEALTH_WARN] = GB_DIAG_WARN,
                                                 [GB_HEALTH_FAIL] = GB_DIAG_FAIL,
                                                 [GB_HEALTH_UNKNOWN] = GB_DIAG_SKIPPED};
        const char *what = h->note[0] ? h->note : h->reading;
        rc = gb_diag_add(d, name, several ? h->device : -1, of[h->verdict], "%s%s%s",
                         h->verdict == GB_HEALTH_OK || h->verdict == GB_HEALTH_UNKNOWN
                             ? ""
                             : gb_health_verdict_name(h->verdict),
                         h->verdict == GB_HEALTH_OK || h->verdict == GB_HEALTH_UNKNOWN ? "" : ": ",
                         what[0] ? what : "read");
    }
    for (size_t i = 0; !rc && i < c->nwholes; i++) {
        const struct gb_check_whole *w = &c->wholes[i];
        const int dev = several ? w->device : -1;
        /* The check's note says "not judged: why" itself (analyses/expect.c): said once. */
        const char *why = w->note[0] ? w->note : "no reference runs of this model";
        const bool said = strncmp(why, "not judged", 10) == 0;
        if (w->verdict == GB_EXPECT_UNKNOWN)
            rc = gb_diag_add(d, "whole", dev, GB_DIAG_SKIPPED, "%s%s",
                             said ? "" : "not judged: ", why);
        else
            rc = gb_diag_add(d, "whole", dev, w->fails ? GB_DIAG_FAIL : GB_DIAG_PASS,
                             "%s: the run's results %+.1f%% against their references' medians "
                             "(the median of %zu; the band reaches %.1f%% below)",
                             gb_expect_verdict_name(w->verdict), 100 * w->change, w->cases,
                             100 * (1 - 1 / (1 + w->band)));
    }
    if (!rc && c->incomplete[0])
        rc = gb_diag_add(d, "run", -1, GB_DIAG_FAIL, "%s", c->incomplete);
    return rc;
}

int gb_diag_plant(struct gb_diag *d, const char *names)
{
    char list[512];
    snprintf(list, sizeof list, "%s", names ? names : "");
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char full[160], w[128];
        word(tok, w, sizeof w);
        snprintf(full, sizeof full, "diag/%d/%s", d->level, w);
        const size_t n = strlen(full);
        bool found = false;
        for (size_t i = 0; i < d->n; i++) {
            struct gb_diag_test *t = &d->t[i];
            if (strncmp(t->name, full, n) != 0 || (t->name[n] && t->name[n] != '@'))
                continue;
            found = true;
            t->status = GB_DIAG_FAIL;
            t->ran += !t->ran;
            snprintf(t->detail, sizeof t->detail, "planted failure (GPUBENCH_TEST_DIAG_FAIL)");
        }
        if (!found &&
            gb_diag_add(d, w, -1, GB_DIAG_FAIL, "planted failure (GPUBENCH_TEST_DIAG_FAIL)"))
            return GB_ENOMEM;
    }
    return 0;
}

void gb_diag_finish(struct gb_diag *d)
{
    memset(d->counts, 0, sizeof d->counts);
    d->verdict = GB_DIAG_PASS;
    for (size_t i = 0; i < d->n; i++) {
        struct gb_diag_test *t = &d->t[i];
        if (!t->ran)
            t->status = GB_DIAG_SKIPPED;
        d->counts[t->status]++;
        if (t->status != GB_DIAG_SKIPPED && rank(t->status) > rank(d->verdict))
            d->verdict = t->status;
    }
}
