/* gpubench — fleet's and history's neutral documents (analyses/fleet.h, analyses/history.h),
 * for any writer (--format); their own text, Markdown, JSON and CSV outputs stay in analyses. */
#ifndef GB_FLEET_OUT_H
#define GB_FLEET_OUT_H

#include "analyses/fleet.h"
#include "analyses/history.h"
#include "base/doc.h"

/* The fleet after gb_fleet_finish: a table "cases" (case, unit, nodes, median, spread % — 1.4826
 * x MAD over the median —, min, max, outliers; an unjudged case footnoted), a table "outliers"
 * (node, cases, worst deviation %, worst case), a check per case and node (an outlier fails, an
 * unjudged case is skipped) and the verdict. 0 or GB_ENOMEM. */
int gb_fleet_doc(const struct gb_fleet *f, struct gb_doc *d);

/* The history after gb_history_finish: a table "cases" (case, nights, ok, first, last, noise %,
 * change points) and a table "changes" (case, first night at the new level, before, after,
 * change %, p, what else changed), a check per series (a slowdown fails) and the verdict.
 * 0 or GB_ENOMEM. */
int gb_history_doc(const struct gb_history *h, struct gb_doc *d);

#endif
