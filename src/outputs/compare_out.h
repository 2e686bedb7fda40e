/* gpubench — compare's outputs (the comparison: analyses/compare.h): one document, which the
 * writers render (the terminal, --markdown, --junit, --format) and layout_compare.c (gb_write_layout) turns into
 * compare's JSON (--json). */
#ifndef GB_COMPARE_OUT_H
#define GB_COMPARE_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "analyses/compare.h"
#include "base/doc.h"

/* The kind of compare's document. Its version counts the document's layout (the tables below),
 * not the JSON's: that is "gpubench-compare/1". */
#define GB_COMPARE_DOC_KIND "gpubench-compare-doc/2"

/* The comparison as a document (kind GB_COMPARE_DOC_KIND, title "gpubench compare", suite
 * "gpubench compare PROFILE", NEW's profile):
 *   notes     the two sides (against nights: the baseline's nights and NEW), the policy, the
 *             comparison's own notes ("note: ...") and what "change" means;
 *   table "comparison"  what a reader sees: verdict ("!" a regression), suite, case, device,
 *             params, base, new, unit, change %, then p and noise % (two files) or z, nights,
 *             spread % and catches (against nights), the row's note a footnote; every row, or
 *             with only_changes those that are not SAME;
 *   data tables (struct gb_doc_table: for the JSON, left out of text and Markdown), columns
 *             named by the JSON's keys: "base" and "new" (one row: file, host, start_utc,
 *             gpubench, git_commit, profile), "policy" (one row: alpha, threshold,
 *             fail_on_faster, across_devices, test, and against nights mads, min_nights,
 *             threshold_given; booleans as "true" / "false"), "suite_thresholds" (suite,
 *             threshold), against nights "baseline" (one row: folder, learned_thresholds) and
 *             "baseline_nights" (file), "notes" (note), "counts" (one row: a count per
 *             verdict), "totals" (one row: pairs, regressions, exit_status) and "rows" (a row
 *             per comparison row, every row: the JSON's row keys; params a JSON object's text;
 *             the nights' keys only against nights, empty where a row was not judged by them);
 *   checks    one per row, named as base/doc.h says ("suite/case/params", "@device" when the
 *             rows span several devices), its detail the message: a regression fails (a FAILED
 *             one is an error), UNSTABLE, MISSING, SKIPPED, FAILED and LEARNING are skipped;
 *   verdict   "44 pairs compared: 40 SAME, ... -> 1 regression (exit 3)".
 * 0 or GB_ENOMEM. */
int gb_compare_doc(const struct gb_comparison *c, bool only_changes, struct gb_doc *d);

#endif
