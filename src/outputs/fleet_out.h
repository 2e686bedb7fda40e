/* gpubench — fleet's and history's documents (the analyses: analyses/fleet.h,
 * analyses/history.h), rendered by any writer (writer.h) and, in their JSON files' layouts, by
 * gb_write_layout (layout.h). */
#ifndef GB_FLEET_OUT_H
#define GB_FLEET_OUT_H

#include "analyses/fleet.h"
#include "analyses/history.h"
#include "base/doc.h"
#include "outputs/layout.h"

#include <stdbool.h>

/* What a fleet's document holds beyond its tables of outliers and cases. */
struct gb_fleet_doc_opts {
    /* A per-node table for every case; without it only the cases with an outlier or a
     * deviation have theirs shown (the others' are data, for the JSON file). */
    bool all;
    /* The per-node tables and the data of the JSON file ("nodes", "fleet", "notes"): views over
     * the fleet, which must outlive the document. */
    bool values;
    /* A check per case and node (an outlier fails, an unjudged case is skipped, a deviation
     * passes) and a check "node shift" per node with one (LOW fails): JUnit's, OpenMetrics'. */
    bool checks;
};

/* The fleet after gb_fleet_finish, as a document of kind "gpubench-fleet/1" (the JSON file's
 * schema: gb_write_layout renders it so): notes (the rule, the analysis' notes, the node shift's
 * median and limit); a table "outliers" (node, flagged cases, worst deviation % or FAILED, its
 * case, or a LOW node shift; health), "deviating" (members that deviate in uncalibrated cases,
 * when any) and "cases" (case, unit, nodes, median, spread % — 1.4826 x MAD over the median —,
 * min, max, outliers; an unjudged case footnoted; its identity, metric, better, nodes failed,
 * judged and MAD as data columns). With o->values, a view "case_K" per case (node, value,
 * deviation %, modified z, flag; the member's index, the flag's JSON name and the deviation as a
 * fraction as data), slowest
 * first, shown as o->all says, and the data tables "nodes" (a view), "fleet" and "notes". With
 * o->checks, the checks. The verdict names the worst node. 0 or GB_ENOMEM. */
int gb_fleet_doc(const struct gb_fleet *f, const struct gb_fleet_doc_opts *o, struct gb_doc *d);

/* What a history's document holds beyond its tables of change points and cases. */
struct gb_history_doc_opts {
    /* Every case's nightly values shown (a table per case); without it they are data. */
    bool series;
    /* Only the table "points" (one row per case and night it ran: the data for a chart), as
     * the CSV file holds. */
    bool points_only;
    /* A check per series (a slowdown fails): JUnit's. */
    bool checks;
};

/* The history after gb_history_finish, as a document of kind "gpubench-history/1" (the JSON
 * file's schema: gb_write_layout renders it so): notes (the span, the rule, the analysis'
 * notes); a table "changes" (each change point: night, date, case, before, after, unit,
 * change %, faster or slower, p, what else changed since the night before, the night's file) and "cases" (case, unit, nights
 * ok, first, last, noise %, change points); a view "series_K" per case (night, date, value, p5,
 * p95, status, change), shown with o->series; the data tables "history" (the rule), "nights"
 * and "notes"; with o->checks the checks; the verdict. With o->points_only, a document of kind
 * "gpubench-history-csv/1" (the CSV file's layout) with the title and the view "points" alone.
 * 0 or GB_ENOMEM. */
int gb_history_doc(const struct gb_history *h, const struct gb_history_doc_opts *o,
                   struct gb_doc *d);

#endif
