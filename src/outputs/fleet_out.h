/* gpubench — fleet's and history's outputs (the analyses: analyses/fleet.h, analyses/history.h):
 * their own text, Markdown, JSON and CSV (fleet_write.c, history_write.c), and their neutral
 * documents for any writer (--format; fleet_out.c). */
#ifndef GB_FLEET_OUT_H
#define GB_FLEET_OUT_H

#include "analyses/fleet.h"
#include "analyses/history.h"
#include "base/doc.h"

#include <stdbool.h>
#include <stdio.h>

/* Outputs. Text and Markdown: the rule, the outlier nodes with their worst case or their LOW node
 * shift, the node shift's median and limit, the nodes that deviate in uncalibrated cases (text),
 * a table of every case (members, median, spread, min, max, outliers), then a per-node table
 * (value, deviation from the median, modified z, flag) for each case with an outlier or a
 * deviation, or for every case with `all`. JSON ("gpubench-fleet/1"): everything, every member of
 * every case (flag "deviates" included), each node's shift, shift_cases, shift_low and outlier,
 * written as it goes (never built in memory). Return 0 or GB_EIO. */
int gb_fleet_write_text(FILE *out, const struct gb_fleet *f, bool all);
int gb_fleet_write_markdown(FILE *out, const struct gb_fleet *f, bool all);
int gb_fleet_write_json(FILE *out, const struct gb_fleet *f);

/* Outputs: text for the terminal (change points, then a table of the cases; `series` adds every
 * case's nightly values), Markdown, JSON ("gpubench-history/1", with every series), CSV (one row
 * per case and night: the data for a chart). Return 0 or GB_EIO. */
int gb_history_write_text(FILE *f, const struct gb_history *h, bool series);
int gb_history_write_markdown(FILE *f, const struct gb_history *h);
int gb_history_write_json(FILE *f, const struct gb_history *h);
int gb_history_write_csv(FILE *f, const struct gb_history *h);

/* The fleet after gb_fleet_finish: a table "cases" (case, unit, nodes, median, spread % — 1.4826
 * x MAD over the median —, min, max, outliers; an unjudged case footnoted), a table "outliers"
 * (node, cases, worst deviation % or node shift %, worst case), a check per case and node (an
 * outlier fails, an unjudged case is skipped, a deviation passes), a check "node shift" per node
 * with one (LOW fails) and the verdict. 0 or GB_ENOMEM. */
int gb_fleet_doc(const struct gb_fleet *f, struct gb_doc *d);

/* The history after gb_history_finish: a table "cases" (case, nights, ok, first, last, noise %,
 * change points) and a table "changes" (case, first night at the new level, before, after,
 * change %, p, what else changed), a check per series (a slowdown fails) and the verdict.
 * 0 or GB_ENOMEM. */
int gb_history_doc(const struct gb_history *h, struct gb_doc *d);

#endif
