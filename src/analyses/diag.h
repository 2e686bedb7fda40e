/* gpubench — diag: a node's acceptance tests, each PASS, WARN, FAIL, SKIPPED or ERROR, and the
 * level's verdict (the worst).
 *
 * A level is a profile (configs/diag-1.yaml, diag-2.yaml, diag-3.yaml) run like any other; its
 * results are judged by `check`'s rules (analyses/expect.h: each result against its device
 * model's expectation, or its bound alone) and grouped into tests by what they exercise: one
 * test per suite and case, "diag/LEVEL/SUITE_CASE" ("diag/1/transfer_h2d",
 * "diag/2/memory_triad"), its sizes and params together, and one per health item
 * ("diag/1/health_pcie_link"), with "@DEVICE" (the index) appended where the run had several
 * devices. The names hold no value, time or path: a CI server or a scheduler follows one test
 * from run to run.
 *
 * A result's status in its test:
 *   PASS     verified, and NORMAL or HIGH against its reference, or plausible against its bound
 *            where its model has no reference (said so);
 *   WARN     its output not verified, or it passed but tested less than it was asked (figure
 *            `coverage` below 1, of what in the text figure `coverage_of`: a memory test cut
 *            short by its time budget);
 *   FAIL     LOW, IMPLAUSIBLE, or the case failed (a wrong answer, a hang, a dead worker);
 *   SKIPPED  the case could not run (its reason); never PASS.
 * A health item: OK PASS, WARN WARN, FAIL FAIL, UNKNOWN SKIPPED (the reason: no NVML, ...).
 * A test of several results is SKIPPED only when none of them ran; otherwise the worst of those
 * that ran, the skipped ones named in its detail. ERROR: the test itself broke (the harness,
 * not the device: no worker could start, the results could not be written), or a test the
 * level requires has no result at all (not run: a results file of a partial or edited run).
 *
 * The level's verdict: FAIL when any test failed, else ERROR when any broke, else WARN when
 * any warned, else PASS (skips listed, never counted as passes); `gpubench diag` exits 3, 1, 0
 * and 0 (commands.h), as `check` exits 3 on a test that is not normal.
 */
#ifndef GB_DIAG_H
#define GB_DIAG_H

#include <stdbool.h>
#include <stddef.h>

#include "analyses/expect.h"

enum gb_diag_status { GB_DIAG_PASS, GB_DIAG_WARN, GB_DIAG_FAIL, GB_DIAG_SKIPPED, GB_DIAG_ERROR };
#define GB_DIAG_STATUSES 5

/* "PASS", "WARN", "FAIL", "SKIPPED", "ERROR" */
const char *gb_diag_status_name(enum gb_diag_status s);

struct gb_diag_test {
    char name[160]; /* "diag/1/memory_triad", "diag/1/memory_triad@1" */
    enum gb_diag_status status;
    size_t ran, skipped; /* parts (results, items) that ran and that could not */
    char detail[1200];   /* what the worst parts said; for a pass, what was measured */
    char skip[400];      /* why the first skipped part could not run */
};

struct gb_diag {
    int level;
    struct gb_diag_test *t;
    size_t n, cap;
    size_t counts[GB_DIAG_STATUSES]; /* after gb_diag_finish */
    enum gb_diag_status verdict;     /* after gb_diag_finish: PASS, WARN, FAIL or ERROR */
};

void gb_diag_init(struct gb_diag *d, int level);
void gb_diag_free(struct gb_diag *d);

/* Adds one part to the test "diag/LEVEL/NAME" (with "@DEVICE" when device >= 0), creating it:
 * its status and what it said (printf-style; for SKIPPED, why it could not run). 0 or
 * GB_ENOMEM. */
int gb_diag_add(struct gb_diag *d, const char *name, int device, enum gb_diag_status st,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Lists the test "diag/LEVEL/NAME" (with "@DEVICE" when device >= 0) before any part of it is
 * known, so that the tests a level defines are listed in its order whether or not a result of
 * theirs comes. 0 or GB_ENOMEM. */
int gb_diag_declare(struct gb_diag *d, const char *name, int device);

/* Every test with no part yet (declared, never added to) gets a part of status `st` saying `why`:
 * ERROR where the level required it and the run or the results file should hold it ("not run:
 * not in the results file": a level is never passed on the tests it lacks), SKIPPED where
 * nothing ran (no device); never a silent SKIPPED. */
void gb_diag_unreported(struct gb_diag *d, enum gb_diag_status st, const char *why);

/* Adds the tests of a check of the level's results (gb_check_results): a test per suite and
 * case (its results' statuses as above), per health item of each device, and "whole" per
 * device (the run as a whole: LOW fails, UNKNOWN is a skip). `several`: name the device in
 * each test. 0 or GB_ENOMEM. */
int gb_diag_from_check(struct gb_diag *d, const struct gb_check *c, bool several);

/* Test hook: every test whose name after "diag/LEVEL/" (without "@DEVICE") is one of the
 * comma list `names` fails, "planted failure (GPUBENCH_TEST_DIAG_FAIL)", so that what acts on
 * a failure (scripts/slurm-healthcheck.sh) can be tested on a healthy device. A name no test
 * has is added as a failed test. 0 or GB_ENOMEM. */
int gb_diag_plant(struct gb_diag *d, const char *names);

/* Counts the statuses and sets the verdict. */
void gb_diag_finish(struct gb_diag *d);

#endif
