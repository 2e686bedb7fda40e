/* gpubench — compare: two results files in, a regression verdict out. (The A/A calibration built
 * on it is compare/calibrate.h; the baseline a nightly job compares against, compare/baseline.h.)
 *
 * Results are matched by (suite, case, backend, device name, params). Each pair gets the ratio of
 * medians, a two-sided Mann–Whitney U test on the kept samples (src/mannwhitney.h) and a verdict:
 *
 *   SAME      within the threshold, and the measurement could have seen a change of that size
 *   FASTER    beyond the threshold and significant (p < alpha), in the good direction
 *   SLOWER    beyond the threshold and significant, in the bad direction: a regression
 *   UNSTABLE  too noisy to judge: a change beyond the threshold that is not significant, fewer
 *             samples than the test needs to ever reach alpha, or a noise (the larger relative
 *             CI95 half-width of the mean of the two sides) above the threshold, so that a change
 *             of the threshold's size could hide in it
 *   NEW       only in NEW (or BASE had it failed / skipped and NEW has it ok)
 *   MISSING   only in BASE
 *   SKIPPED   skipped on one side: nothing to compare
 *   FAILED    failed in NEW (a regression when BASE had it ok; noted when both failed)
 *
 * "Beyond the threshold" respects each metric's direction (`better`) and is symmetric in log
 * space: with threshold t, SLOWER needs perf(NEW) < perf(BASE) / (1 + t) — for a time, the new
 * time above (1 + t) times the old — and FASTER perf(NEW) > (1 + t) perf(BASE), so swapping the
 * two files swaps SLOWER and FASTER exactly. The reported `change` is perf(NEW)/perf(BASE) - 1,
 * where perf is the median for higher-is-better metrics and its reciprocal otherwise.
 *
 * Policy (decided, not inherited from nvbench, whose script fails on FASTER and returns a count):
 * a regression is a SLOWER, or a FAILED whose BASE was ok; FASTER fails the gate only with
 * `fail_on_faster`; MISSING, NEW, SKIPPED and UNSTABLE never do (they are listed). The exit code is
 * 3 on any regression, never a count.
 */
#ifndef GB_COMPARE_H
#define GB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "harness/results.h"

enum gb_verdict {
    GB_VERDICT_SAME,
    GB_VERDICT_FASTER,
    GB_VERDICT_SLOWER,
    GB_VERDICT_UNSTABLE,
    GB_VERDICT_NEW,
    GB_VERDICT_MISSING,
    GB_VERDICT_SKIPPED,
    GB_VERDICT_FAILED,
    GB_VERDICT_COUNT
};

/* "SAME", "FASTER", ... */
const char *gb_verdict_name(enum gb_verdict v);

#define GB_COMPARE_MAX_SUITE_THRESHOLDS 32

struct gb_compare_opts {
    double alpha;     /* significance level of the two-sided Mann–Whitney test; default 0.01 */
    double threshold; /* relative change that matters (0.05: 5%); default 0.05 */
    struct {
        char suite[32];
        double threshold;
    } suite_threshold[GB_COMPARE_MAX_SUITE_THRESHOLDS]; /* per-suite overrides of threshold */
    size_t nsuite_thresholds;
    bool fail_on_faster; /* FASTER also fails the gate (a suspiciously fast result) */
    bool across_devices; /* pair devices by position instead of refusing different devices */
};

/* alpha 0.01, threshold 0.05, no overrides, both policy flags off. */
void gb_compare_opts_default(struct gb_compare_opts *o);

/* The threshold that applies to `suite`. */
double gb_compare_threshold(const struct gb_compare_opts *o, const char *suite);

/* Sets the compare option called `name` (the long option without its dashes) from `value`:
 * "alpha" a probability in (0, 1); "threshold" a relative change in (0, 100] written as a
 * fraction ("0.05") or a percentage ("5%"); "suite-threshold" SUITE=THRESHOLD ("transfer=0.2";
 * a second one for the same suite replaces the first; at most GB_COMPARE_MAX_SUITE_THRESHOLDS
 * suites); "fail-on-faster" and "across-devices" take no value (NULL) and turn their flag on.
 * Returns 0, or GB_EINVAL with a message for the user (gb_error_msg, naming the option as
 * "--name") for an unknown name, a missing or bad value; o is then unchanged. The command line
 * of compare and calibrate (src/commands) is the caller. */
int gb_compare_set_option(struct gb_compare_opts *o, const char *name, const char *value);

/* The judgement of one pair of sample sets: a pure function, unit-tested without files. */
struct gb_judgement {
    enum gb_verdict verdict; /* SAME, FASTER, SLOWER or UNSTABLE */
    double base_median, next_median; /* in the metric's unit */
    double ratio;      /* perf(NEW) / perf(BASE): < 1 slower, > 1 faster */
    double p;          /* two-sided Mann–Whitney p-value (1 when not computed) */
    bool exact;        /* p from the exact distribution */
    double noise;      /* max over the two sides of the relative CI95 half-width of the mean */
    char why[192];     /* for UNSTABLE: why it could not be judged */
};

/* Judges BASE samples base[0..nb) against NEW samples next[0..nn), in the metric's unit, for a
 * metric where `higher_is_better` says which way is good. Returns 0 or GB_EINVAL / GB_ENOMEM. */
int gb_compare_judge(const double *base, size_t nb, const double *next, size_t nn,
                     bool higher_is_better, double alpha, double threshold,
                     struct gb_judgement *j);

struct gb_compare_row {
    const struct gb_result *base; /* NULL when absent from BASE */
    const struct gb_result *next; /* NULL when absent from NEW */
    char device[256];             /* the device (or device set) the pair ran on */
    char params[512];             /* the params after the case axis, "memory=pinned size=4MiB" */
    double threshold;             /* the threshold that applied */
    struct gb_judgement j;        /* verdict is the row's verdict */
    bool regression;              /* counts toward exit status 3 */
    char note[256];               /* a reason for FAILED / SKIPPED / UNSTABLE / NEW */
};

struct gb_comparison {
    const struct gb_results *base, *next;
    const char *base_path, *next_path;
    struct gb_compare_opts opts;
    struct gb_compare_row *rows; /* BASE's order, then what only NEW has in NEW's order */
    size_t nrows;
    size_t counts[GB_VERDICT_COUNT];
    size_t regressions;
    size_t matched;              /* rows present on both sides */
    char notes[4096];            /* what the reader must know: devices that differ (with
                                  * across_devices), profiles that differ, ... one per line */
};

/* Compares two read results sets. Returns 0, or GB_EINVAL with a message (gb_error_msg) when the
 * files are from different devices (and across_devices is off) or have no case in common;
 * GB_ENOMEM. The rows point into base and next, which must outlive the comparison. */
int gb_compare_results(const struct gb_results *base, const char *base_path,
                       const struct gb_results *next, const char *next_path,
                       const struct gb_compare_opts *o, struct gb_comparison *out);
void gb_comparison_free(struct gb_comparison *c);

/* Outputs. text: the terminal table and summary; markdown: the same as a Markdown document;
 * json: {"schema": "gpubench-compare/1", ...}; junit: JUnit XML (one testsuite per suite, one
 * testcase per row; a regression is a <failure>, FAILED an <error> unless it is not a regression,
 * UNSTABLE / MISSING / SKIPPED are <skipped>). Return 0 or GB_EIO. */
int gb_compare_write_text(FILE *f, const struct gb_comparison *c, bool only_changes);
int gb_compare_write_markdown(FILE *f, const struct gb_comparison *c);
int gb_compare_write_json(FILE *f, const struct gb_comparison *c);
int gb_compare_write_junit(FILE *f, const struct gb_comparison *c);

#endif
