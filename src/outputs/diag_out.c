/* gpubench — the diag's document (contract in diag_out.h). */
#include "outputs/diag_out.h"

#include <stdio.h>
#include <string.h>

#include "base/util.h"

/* The exit status a verdict gives (commands.h: 0, 3 a failed test, 1 a test that broke). */
static int exit_of(enum gb_diag_status v)
{
    return v == GB_DIAG_FAIL ? 3 : v == GB_DIAG_ERROR ? 1 : 0;
}

int gb_diag_doc(const struct gb_diag *d, const char *profile, const char *start_utc,
                struct gb_doc *doc)
{
    char head[1200];
    snprintf(head, sizeof head, "diag level %d: %zu tests (%s)", d->level, d->n,
             profile ? profile : "no profile");
    int rc = gb_doc_init(doc, "gpubench-diag/1", head);
    if (!rc)
        rc = gb_doc_suite(doc, "gpubench diag %d", d->level);
    if (!rc)
        rc = gb_doc_note(doc,
                         "each test PASS, WARN, FAIL, SKIPPED (could not run: never a pass) or "
                         "ERROR (the test itself broke); results judged as gpubench check judges "
                         "them (their model's expectation, else their bound), health items from "
                         "the driver");
    if (start_utc)
        gb_doc_time(doc, start_utc);
    static const char *const cols[] = {"test", "status", "detail"};
    struct gb_doc_table *t = NULL;
    if (!rc)
        rc = gb_doc_table(doc, "diag", "the tests: each one's status, and what it measured or why",
                          cols, 3, &t);
    /* The status a state set of every status (OpenMetrics: gpubench_diag_status{test, status}),
     * the checks (JUnit's test cases) the same tests: not a second family. */
    if (!rc)
        rc = gb_doc_column_states(t, 1, "pass|warn|fail|skipped|error");
    if (!rc) {
        gb_doc_checks_in_table(doc);
        gb_doc_column_state(t, 1);
        gb_doc_column_set(t, 2, false, true);
        gb_doc_column_prose(t, 2);
    }
    for (size_t i = 0; !rc && i < d->n; i++) {
        const struct gb_diag_test *x = &d->t[i];
        char detail[1700];
        snprintf(detail, sizeof detail, "%s", x->status == GB_DIAG_SKIPPED ? x->skip : x->detail);
        if (x->status != GB_DIAG_SKIPPED && x->skipped)
            gb_appendf(detail, sizeof detail, "%s%zu part%s skipped: %s", detail[0] ? "; " : "",
                       x->skipped, x->skipped == 1 ? "" : "s", x->skip);
        size_t r;
        rc = gb_doc_row(t, &r) || gb_doc_text(t, r, 0, "%s", x->name) ||
             gb_doc_text(t, r, 1, "%s", gb_diag_status_name(x->status)) ||
             (detail[0] && gb_doc_text(t, r, 2, "%s", detail));
        if (rc)
            break;
        static const enum gb_check_status of[] = {[GB_DIAG_PASS] = GB_CHECK_PASS,
                                                  [GB_DIAG_WARN] = GB_CHECK_PASS,
                                                  [GB_DIAG_FAIL] = GB_CHECK_FAIL,
                                                  [GB_DIAG_SKIPPED] = GB_CHECK_SKIP,
                                                  [GB_DIAG_ERROR] = GB_CHECK_ERROR};
        char msg[1800];
        snprintf(msg, sizeof msg, "%s: %s", gb_diag_status_name(x->status), detail);
        rc = gb_doc_check(doc, "diag", x->name, of[x->status], msg);
    }
    if (rc)
        return rc;
    char counts[200] = "", names[900] = "";
    for (int s = 0; s < GB_DIAG_STATUSES; s++)
        if (d->counts[s])
            gb_appendf(counts, sizeof counts, "%s%zu %s", counts[0] ? ", " : "", d->counts[s],
                       gb_diag_status_name((enum gb_diag_status)s));
    for (size_t i = 0; i < d->n; i++)
        if (d->t[i].status == GB_DIAG_FAIL || d->t[i].status == GB_DIAG_ERROR ||
            d->t[i].status == GB_DIAG_WARN)
            gb_appendf(names, sizeof names, "%s%s %s", names[0] ? ", " : "",
                       gb_diag_status_name(d->t[i].status), d->t[i].name);
    /* The verdict as a row too, for json, csv and OpenMetrics (gpubench_diag_level_verdict
     * {level, verdict}, a state set; gpubench_diag_level_exit the exit status it gives). */
    static const char *const vcols[] = {"level", "verdict", "exit"};
    struct gb_doc_table *v = NULL;
    size_t r = 0;
    rc = gb_doc_table(doc, "level", "the level's verdict: its worst test's status", vcols, 3, &v);
    if (!rc)
        rc = gb_doc_column_states(v, 1, "pass|warn|fail|error");
    if (!rc) {
        gb_doc_table_machine(v);
        gb_doc_column_state(v, 1);
        gb_doc_column_set(v, 2, true, false);
        rc = gb_doc_row(v, &r) || gb_doc_text(v, r, 0, "%d", d->level) ||
             gb_doc_text(v, r, 1, "%s", gb_diag_status_name(d->verdict));
        if (!rc)
            gb_doc_num(v, r, 2, exit_of(d->verdict), 0);
    }
    if (rc)
        return GB_ENOMEM;
    return gb_doc_verdict(doc, "level %d: %s (exit %d): %s%s%s", d->level,
                          gb_diag_status_name(d->verdict), exit_of(d->verdict),
                          counts[0] ? counts : "no test", names[0] ? "; " : "", names);
}
