/* gpubench — the A/A calibration's outputs (the analysis: analyses/calibrate.h). */
#ifndef GB_CALIBRATE_OUT_H
#define GB_CALIBRATE_OUT_H

#include <stdio.h>

#include "analyses/calibrate.h"
#include "base/doc.h"

/* The calibration as text: a table of every case, sorted by its no-alarm threshold, largest
 * first; then per suite the largest no-alarm threshold and the case that sets it; and the
 * suggested compare command line. 0, or GB_EIO. */
int gb_calibration_write_text(FILE *f, const struct gb_calibration *c);

/* The calibration as JSON at `path` (schema "gpubench-calibration/1": runs, alpha, threshold,
 * false_alarms, no_alarm_threshold, suggested_command, suites{name: {no_alarm_threshold,
 * suggested_threshold, worst_case, worst_params}}, cases[] with each case's "backend" and
 * "suggested_threshold", the threshold the nightly gate learns for it (gb_learned_read);
 * thresholds as fractions). 0, GB_EIO (with the path) or GB_ENOMEM. */
int gb_calibration_write_json(const char *path, const struct gb_calibration *c);

/* The calibration as a neutral document for any writer (--format): a table "cases" (suite, case,
 * device, params, medians, run-to-run %, noise %, alarms, no-alarm %), a table "suites" (its
 * largest no-alarm threshold, its suggestion, the case that sets it), the suggested command as
 * a note, a check per case (a false alarm fails) and the verdict. 0 or GB_ENOMEM. */
int gb_calibration_doc(const struct gb_calibration *c, struct gb_doc *d);

/* gb_calibrate, then its text to f and, when json_path is not NULL, its JSON there. The errors
 * of gb_calibrate and of the writers. */
int gb_calibrate_report(FILE *f, const struct gb_results *runs, const char *const *paths, size_t n,
                        const struct gb_compare_opts *o, const char *json_path);

#endif
