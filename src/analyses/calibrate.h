/* gpubench — the A/A calibration: how much do runs of one build differ, and which compare
 * threshold would not have called that a regression? The `calibrate` command
 * (src/cli/calibrate.c) makes or reads the runs; this floor analyses them. */
#ifndef GB_CALIBRATE_H
#define GB_CALIBRATE_H

#include <stddef.h>
#include <stdio.h>

#include "analyses/compare.h"
#include "results/results.h"

/* `runs[0..n)` are n >= 2 runs of one profile on one build, read from paths[0..n) (the names the
 * report prints). Every ordered pair (i, j), i != j, is compared as BASE = runs[i], NEW = runs[j]
 * with the options in o (gb_compare_results), and per case (suite, case, backend, device,
 * params) whose both sides are ok the report gives: the run-to-run spread of the medians over
 * all runs (max / min - 1), the largest within-run noise (gb_judgement.noise), the false alarms
 * raised at o's thresholds out of the pairs compared, and the smallest threshold that would
 * have raised none: the largest significant (p < o->alpha) slowdown 1/ratio - 1 over all
 * ordered pairs (with o->fail_on_faster, speed-ups ratio - 1 count too). Writes to f a table,
 * sorted by that threshold, largest first; then per suite the largest no-alarm threshold and
 * the case that sets it; and a suggested compare command line. A case's suggestion is 1.5
 * times its no-alarm threshold rounded up to a whole percent, at least 1% (a rule of thumb: a
 * few runs sample the noise only lightly); the line's --threshold is the smallest suggestion
 * (at least o->threshold), and each suite whose largest suggestion exceeds it gets a
 * --suite-threshold. When json_path is not NULL, writes the same there as JSON (schema
 * "gpubench-calibration/1": runs, alpha, threshold, false_alarms, no_alarm_threshold,
 * suggested_command, suites{name: {no_alarm_threshold, suggested_threshold, worst_case,
 * worst_params}}, cases[]; thresholds as fractions). Returns 0, or GB_EINVAL with a message
 * (fewer than 2 runs, no ok case in common, runs gb_compare_results refuses), GB_EIO (f or
 * json_path cannot be written), GB_ENOMEM. Each case in the JSON also has its "backend" and
 * "suggested_threshold" (1.5x its no-alarm threshold rounded up, at least 1%): the threshold
 * the nightly gate learns for it (gb_learned_read). */
int gb_calibrate_report(FILE *f, const struct gb_results *runs, const char *const *paths, size_t n,
                        const struct gb_compare_opts *o, const char *json_path);

/* Reads the per-case thresholds of a calibration JSON written above into *out (free with
 * gb_learned_free): each case's suggested_threshold (in a file without it, the suggestion made
 * from no_alarm_threshold); a case without a backend matches any. Returns 0, or GB_EIO
 * (unreadable, not JSON) / GB_EINVAL (not a calibration) with a message; GB_ENOMEM. */
int gb_learned_read(const char *path, struct gb_learned *out);

#endif
