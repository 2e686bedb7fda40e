/* gpubench — compare's outputs (the comparison: analyses/compare.h). */
#ifndef GB_COMPARE_OUT_H
#define GB_COMPARE_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "analyses/compare.h"
#include "base/doc.h"

/* Outputs. text: the terminal table and summary; markdown: the same as a Markdown document;
 * json: {"schema": "gpubench-compare/1", ...}; junit: JUnit XML (one testsuite per suite, one
 * testcase per row; a regression is a <failure>, FAILED an <error> unless it is not a regression,
 * UNSTABLE / MISSING / SKIPPED / LEARNING are <skipped>). Against nights, the table shows per
 * case the nights used, their spread, tonight's z and what the gate catches; the summary says
 * for each regression how far outside the nights' spread it lies; the JSON adds "baseline"
 * {"folder", "nights": [files], "learned_thresholds": count} and per row "nights", "spread",
 * "mad", "floor", "z", "cut", "catches", "threshold_source" (fractions, not percent). Return 0
 * or GB_EIO. */
int gb_compare_write_text(FILE *f, const struct gb_comparison *c, bool only_changes);
int gb_compare_write_markdown(FILE *f, const struct gb_comparison *c);
int gb_compare_write_json(FILE *f, const struct gb_comparison *c);
int gb_compare_write_junit(FILE *f, const struct gb_comparison *c);

/* The comparison as a neutral document for any writer (--format): a table "comparison" of every
 * row (verdict, suite, case, device, params, base, new, unit, change %, p or z, note), the notes,
 * a check per row (a regression fails; MISSING, SKIPPED, UNSTABLE, LEARNING are skipped) and the
 * summary line as its verdict. 0 or GB_ENOMEM. */
int gb_compare_doc(const struct gb_comparison *c, struct gb_doc *d);

#endif
