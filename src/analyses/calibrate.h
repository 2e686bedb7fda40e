/* gpubench — the A/A calibration: how much do runs of one build differ, and which compare
 * threshold would not have called that a regression? The `calibrate` command
 * (src/cli/calibrate.c) makes or reads the runs; this floor analyses them. */
#ifndef GB_CALIBRATE_H
#define GB_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analyses/compare.h"
#include "results/results.h"

/* One case of an A/A calibration: what its runs gave. */
struct gb_calib_case {
    char key[1600];
    char suite[32], case_name[64], backend[16], device[256], params[512], unit[16];
    double min_med, max_med; /* the case's medians over every run, in its unit */
    double noise;            /* the largest within-run noise seen (gb_judgement.noise) */
    double needed;           /* the smallest threshold that raises no false alarm (a fraction) */
    size_t pairs, alarms, unstable;
    char metric[32];
    enum gb_better better; /* unit, metric and better: the case's, from its first ok value */
    size_t left_out;       /* values in another unit, metric or direction, left out of it */
    char left_why[96];     /* the first of those: "unit MB/s where the case is GB/s" */
};

/* The calibration of n runs (gb_calibrate). */
struct gb_calibration {
    struct gb_calib_case *c; /* sorted by `needed`, largest first */
    size_t n;
    size_t nruns, comparisons; /* runs, and ordered comparisons per case */
    const char *const *paths;  /* the runs' names, nruns of them (the caller's) */
    char profile[128], host[256];
    double alpha, threshold; /* the compare options it was judged with */
    size_t alarms, alarm_cases;
    double no_alarm;     /* the largest `needed` over the cases */
    char command[2048];  /* the suggested compare command line */
    char left_out[2048]; /* one line per case with values left out of it (for the notes) */
};

/* `runs[0..n)` are n >= 2 runs of one profile on one build, read from paths[0..n). Every ordered
 * pair (i, j), i != j, is compared as BASE = runs[i], NEW = runs[j] with the options in o
 * (gb_compare_results), and per case (suite, case, backend, device, params) whose both sides
 * are ok: the run-to-run spread of the medians over all runs (max / min - 1), the largest
 * within-run noise (gb_judgement.noise), the false alarms raised at o's thresholds out of the
 * pairs compared, and the smallest threshold that would have raised none: the largest
 * slowdown 1/ratio - 1 over all ordered pairs, significant or not (the nights' gate, which
 * uses it, tests no significance; a case of 3 samples a run never reaches alpha) (with
 * o->fail_on_faster, speed-ups ratio - 1 count too). The suggested command's --threshold is
 * the smallest case's suggestion (gb_calibrate_suggest, at least o->threshold), and each suite
 * whose largest suggestion exceeds it gets a --suite-threshold. Returns 0, or GB_EINVAL with a
 * message (fewer than 2 runs, no ok case in common, runs gb_compare_results refuses),
 * GB_ENOMEM; free *out with gb_calibration_free. Its outputs: outputs/calibrate_out.h. */
int gb_calibrate(const struct gb_results *runs, const char *const *paths, size_t n,
                 const struct gb_compare_opts *o, struct gb_calibration *out);
void gb_calibration_free(struct gb_calibration *c);
/* The suggested threshold for a no-alarm threshold t: 1.5 t rounded up to a whole percent, at
 * least 1% (a rule of thumb: a few runs sample the noise only lightly). */
double gb_calibrate_suggest(double t);
/* Whether case i is its suite's first in c (its largest no-alarm threshold: c is sorted). */
bool gb_calibration_suite_first(const struct gb_calibration *c, size_t i);

/* Reads the per-case thresholds of a calibration JSON written above into *out (free with
 * gb_learned_free): each case's suggested_threshold (in a file without it, the suggestion made
 * from no_alarm_threshold); a case without a backend matches any. Returns 0, or GB_EIO
 * (unreadable, not JSON) / GB_EINVAL (not a calibration) with a message; GB_ENOMEM. */
int gb_learned_read(const char *path, struct gb_learned *out);

#endif
