/* gpubench — the diag's document: a table of the level's tests (name, status, what each said)
 * and a check per test, for every writer (JUnit: a testcase per test, a WARN a pass whose
 * output says so, a SKIPPED a skip with its reason, an ERROR an error). */
#ifndef GB_DIAG_OUT_H
#define GB_DIAG_OUT_H

#include "analyses/diag.h"
#include "base/doc.h"

/* The document of d (finished: gb_diag_finish; kind "gpubench-diag/1"): a note naming the
 * profile, the table "diag" (test, status, detail; one row per test, in the order they were
 * added; its status a state set of every status, "pass|warn|fail|skipped|error"), one check per
 * test (group "diag", named as the test; marked as repeating the table, so that OpenMetrics
 * writes one family of the tests), the table "level" for machines (level, verdict, exit: one
 * row) and the verdict line, "level N: STATUS (exit E)" with the counts and the tests that
 * warned or failed. start_utc: when the
 * run began (the document's time), or NULL. 0 or GB_ENOMEM; doc must be freed either way. */
int gb_diag_doc(const struct gb_diag *d, const char *profile, const char *start_utc,
                struct gb_doc *doc);

#endif
