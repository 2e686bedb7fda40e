/* gpubench — the A/A calibration's document (the analysis: analyses/calibrate.h), rendered by
 * any writer (writer.h) and, in its JSON file's layout, by gb_write_layout (layout.h). */
#ifndef GB_CALIBRATE_OUT_H
#define GB_CALIBRATE_OUT_H

#include <stdbool.h>

#include "analyses/calibrate.h"
#include "base/doc.h"
#include "outputs/layout.h"

/* The calibration as a document of kind "gpubench-calibration/1" (the JSON file's schema:
 * gb_write_layout renders it so): notes (the runs, what the columns mean, the false alarms at
 * the current thresholds, per suite the smallest threshold that raises none, the suggested
 * compare command line); a table "cases", sorted by the no-alarm threshold, largest first (suite,
 * case, device, params, medians, run-to-run %, noise %, alarms, no-alarm %; backend, unit, the
 * medians, noise, no-alarm and suggested thresholds as fractions, false alarms and pairs as
 * data), a table "suites" (its largest no-alarm threshold, its suggestion, the case that sets
 * it; the thresholds as fractions as data), the data table "calibration" (runs, alpha, threshold,
 * false alarms, the no-alarm threshold, the suggested command); with `checks`, a check per case
 * (a false alarm fails); the verdict. 0 or GB_ENOMEM. */
int gb_calibration_doc(const struct gb_calibration *c, bool checks, struct gb_doc *d);

#endif
