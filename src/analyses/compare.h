/* gpubench — compare: a regression verdict per case, for tonight's run against a baseline of
 * nights or against one other results file. (The A/A calibration built on it is
 * analyses/calibrate.h; the baseline a nightly job compares against, analyses/baseline.h.)
 *
 * Results are matched by (suite, case, backend, device name, params).
 *
 * Two files (gb_compare_results): each pair gets the ratio of medians, a two-sided Mann–Whitney
 * U test on the kept samples (base/mannwhitney.h) and a verdict. The test sees the samples of one
 * run only, so it judges within-run noise only: two runs of one build on a shared machine often
 * differ "significantly" (the spread between processes is larger than within one).
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
 *   LEARNING  (nights only) fewer baseline nights have the case than the gate needs
 *
 * Nights (gb_compare_nights): tonight's median against the medians of the last K accepted
 * nights (analyses/baseline.h), the spread between runs being what a nightly gate must not call
 * a regression. In log performance, x = ln perf (perf the median, or its reciprocal for a
 * lower-is-better metric), with the nights' x_1..x_n:
 *
 *   center m = median(x_i)
 *   spread s = max(b_n * 1.4826 * MAD(x_i), floor), floor = max(0.5%, tonight's noise)
 *   z        = (x - m) / s                         (negative: slower than the nights)
 *   cut c_n  = gb_mad_cut(n, mads)                 (src/base/robust.h: 5.1 for 14 nights at 3)
 *
 * (Hampel's identifier with Croux & Rousseeuw's small-sample MAD; the cut is the normal tail
 * beyond `mads` standard deviations, widened for few nights as Student's t widens.) SLOWER when
 * the change is beyond the threshold (as for two files) AND z < -c_n; FASTER the same way up;
 * when the change is beyond the threshold but inside the nights' spread, SAME if tonight is no
 * further from m than the farthest night (a normal night where nights differ by more than t),
 * else UNSTABLE; SAME otherwise. A case that fewer than `min_nights` nights have is LEARNING and
 * never fails, unless the night's median LEARNING case is more than 1/1.6 below the nights: then
 * each LEARNING case that far below is SLOWER (nights.c, NIGHTS_LEARNING_BOUND), so that a
 * regression in the first nights does not join and become the baseline. The
 * row's `catches` says the smallest slowdown that would have failed: max(t, e^(c_n s) - 1).
 * The statuses (FAILED, NEW, MISSING, SKIPPED) come from the newest night.
 *
 * "Beyond the threshold" respects each metric's direction (`better`) and is symmetric in log
 * space: with threshold t, SLOWER needs perf(NEW) < perf(BASE) / (1 + t) — for a time, the new
 * time above (1 + t) times the old — and FASTER perf(NEW) > (1 + t) perf(BASE), so swapping the
 * two files swaps SLOWER and FASTER exactly. The reported `change` is perf(NEW)/perf(BASE) - 1,
 * where perf is the median for higher-is-better metrics and its reciprocal otherwise (against
 * nights, BASE is their center m).
 *
 * Policy (decided, not inherited from nvbench, whose script fails on FASTER and returns a count):
 * a regression is a SLOWER, or a FAILED whose BASE was ok; FASTER fails the gate only with
 * `fail_on_faster`; MISSING, NEW, SKIPPED, UNSTABLE and LEARNING never do (they are listed). The
 * exit code is 3 on any regression, never a count.
 */
#ifndef GB_COMPARE_H
#define GB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "results/results.h"

enum gb_verdict {
    GB_VERDICT_SAME,
    GB_VERDICT_FASTER,
    GB_VERDICT_SLOWER,
    GB_VERDICT_UNSTABLE,
    GB_VERDICT_NEW,
    GB_VERDICT_MISSING,
    GB_VERDICT_SKIPPED,
    GB_VERDICT_FAILED,
    GB_VERDICT_LEARNING,
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
    bool fail_on_faster;  /* FASTER also fails the gate (a suspiciously fast result) */
    bool across_devices;  /* pair devices by position instead of refusing different devices */
    bool threshold_given; /* --threshold was given: it overrides learned thresholds (nights) */
    double mads;          /* nights: the cut in standard deviations for many nights; default 3 */
    size_t min_nights;    /* nights: a case with fewer is LEARNING; default 5 */
    /* Two files: the run-to-run noise floor. The Mann-Whitney test sees within-run noise only,
     * and two runs of one build differ by more (on a shared 2-core VM by 10-50% a case, up to
     * 6x in one case in 72 ordered pairs of results/reference/). A change beyond the threshold
     * and significant is SLOWER / FASTER only when it is also beyond the case's run-to-run
     * noise R, else UNSTABLE ("within run-to-run noise"): R from `expect` where it has the case
     * with 3 or more reference runs, R = max((max/min)(1 + t) - 1, e^(3 sqrt2 spread) - 1) (the
     * largest ratio its reference runs showed, widened by the threshold t, and three standard
     * deviations of the difference of two runs whose ln value has the robust spread), else the
     * stated `run_noise` (default 0.10; 0 turns the floor off). A case that has no reference
     * runs and whose change is beyond the default floor cannot be told from run-to-run noise
     * alone (on that VM single cases moved 2-6x between runs of one build): it reads UNSTABLE
     * ("judged with the run as a whole", row.by_run) unless the run as a whole moved beyond
     * GB_COMPARE_RUN_BOUND, or `run_noise_given` (--run-noise stated the floor for them). */
    double run_noise;
    bool run_noise_given;           /* --run-noise was given: it judges uncalibrated cases alone */
    const struct gb_expect *expect; /* expectations (analyses/expect.h) or NULL; outlives c */
};

/* alpha 0.01, threshold 0.05, no overrides, both policy flags off, mads 3, min_nights 5,
 * run_noise 0.10, no expectations. */
void gb_compare_opts_default(struct gb_compare_opts *o);

/* The threshold that applies to `suite`. */
double gb_compare_threshold(const struct gb_compare_opts *o, const char *suite);

/* Whether a --suite-threshold names `suite`. */
bool gb_compare_suite_threshold_given(const struct gb_compare_opts *o, const char *suite);

/* Sets the compare option called `name` (the long option without its dashes) from `value`:
 * "alpha" a probability in (0, 1); "threshold" a relative change in (0, 100] written as a
 * fraction ("0.05") or a percentage ("5%"); "suite-threshold" SUITE=THRESHOLD ("transfer=0.2";
 * a second one for the same suite replaces the first; at most GB_COMPARE_MAX_SUITE_THRESHOLDS
 * suites); "mads" a number of standard deviations in (0, 100]; "min-nights" a count of nights
 * 3..1000; "run-noise" a relative change in [0, 100] as "threshold"; "fail-on-faster" and "across-devices" take no value (NULL) and turn their flag on.
 * Returns 0, or GB_EINVAL with a message for the user (gb_error_msg, naming the option as
 * "--name") for an unknown name, a missing or bad value; o is then unchanged. The command line
 * of compare and calibrate (src/cli) is the caller. */
int gb_compare_set_option(struct gb_compare_opts *o, const char *name, const char *value);

/* The judgement of one pair of sample sets: a pure function, unit-tested without files. */
struct gb_judgement {
    enum gb_verdict verdict;         /* SAME, FASTER, SLOWER or UNSTABLE */
    double base_median, next_median; /* in the metric's unit */
    double ratio;                    /* perf(NEW) / perf(BASE): < 1 slower, > 1 faster */
    double p;                        /* two-sided Mann–Whitney p-value (1 when not computed) */
    bool exact;                      /* p from the exact distribution */
    double noise;  /* max over the two sides of the relative CI95 half-width of the mean */
    char why[192]; /* for UNSTABLE: why it could not be judged */
};

/* Judges BASE samples base[0..nb) against NEW samples next[0..nn), in the metric's unit, for a
 * metric where `higher_is_better` says which way is good. Returns 0 or GB_EINVAL / GB_ENOMEM. */
int gb_compare_judge(const double *base, size_t nb, const double *next, size_t nn,
                     bool higher_is_better, double alpha, double threshold, struct gb_judgement *j);

/* A case judged against the baseline nights (gb_compare_nights); in log performance units. */
struct gb_night_judgement {
    size_t n;       /* baseline nights that have the case ok with the same metric */
    double center;  /* m: the median of the nights' ln perf */
    double mad;     /* b_n * 1.4826 * MAD of the nights' ln perf, before the floor (0: n < 2) */
    double floor;   /* the floor: max(0.5%, tonight's noise), as a relative spread */
    double spread;  /* s = max(mad, floor): the nights' spread, ~ relative (0.02: 2%) */
    double z;       /* (ln perf tonight - m) / s: negative is slower; NAN when learning */
    double cut;     /* c_n: |z| beyond this is outside the nights' spread; NAN when learning */
    double catches; /* the smallest slowdown that fails: max(t, e^(c_n s) - 1); NAN learning */
    const char *threshold_source; /* "default", "--threshold", "--suite-threshold", "learned" */
};

struct gb_compare_row {
    const struct gb_result *base; /* NULL when absent from BASE */
    const struct gb_result *next; /* NULL when absent from NEW */
    char device[256];             /* the device (or device set) the pair ran on */
    char params[512];             /* the params after the case axis, "memory=pinned size=4MiB" */
    double threshold;             /* the threshold that applied */
    struct gb_judgement j;        /* verdict is the row's verdict */
    bool regression;              /* counts toward exit status 3 */
    double run_noise;             /* two files: the run-to-run floor R that applied (relative) */
    const char *run_noise_source; /* "expectations" or "stated" (--run-noise) */
    bool by_run;    /* two files: uncalibrated and beyond the default floor: the run decides */
    bool duplicate; /* unpaired, and a later copy of a case its file already holds */
    char note[256]; /* a reason for FAILED / SKIPPED / UNSTABLE / NEW */
    struct gb_night_judgement nights; /* nights only: the judgement against the nights */
};

/* A whole run slower or faster than another by more than this (perf beyond 1 / (1 + bound), its
 * median case's ratio) is a change of the run, not its noise: two whole runs of one build on the
 * shared 2-core VM differed on their median case by at most 1 / 1.55 (0.646x, the worst of 72
 * ordered pairs of results/reference/; 1 / 1.17 in 56 pairs of eight later runs). It holds a
 * learning night out of the baseline (nights.c) and decides the two-file rows that have no
 * run-to-run reference of their own (row.by_run). */
#define GB_COMPARE_RUN_BOUND 0.6

/* The median over `rows` of ln(j.ratio), over the rows that `pick` accepts and whose ratio is
 * positive and finite; *n gets their count (0: returns 0). */
double gb__compare_median_shift(const struct gb_compare_row *rows, size_t nrows,
                                bool (*pick)(const struct gb_compare_row *), size_t *n);

struct gb_comparison {
    const struct gb_results *base, *next;
    const char *base_path, *next_path;
    struct gb_compare_opts opts;
    struct gb_compare_row *rows; /* BASE's order, then what only NEW has in NEW's order */
    size_t nrows;
    size_t counts[GB_VERDICT_COUNT];
    size_t regressions;
    size_t matched; /* rows present on both sides */
    /* Two files: the median over the cases ok on both sides of ln(perf NEW / perf BASE), and
     * how many cases it is the median of (0: none, run_shift 0). */
    double run_shift;
    size_t run_shift_n;
    char notes[4096]; /* what the reader must know: devices that differ (with
                                  * across_devices), profiles that differ, ... one per line */
    /* Nights only (nnights > 0; base is then the newest night): the nights, oldest first. */
    size_t nnights;
    const struct gb_results *nights;
    const char *const *night_paths;
    const char *baseline; /* the baseline folder, as named to gb_compare_nights */
    size_t learned;       /* rows whose threshold came from the learned thresholds */
};

/* Compares two read results sets. Returns 0, or GB_EINVAL with a message (gb_error_msg) when the
 * files are from different devices (and across_devices is off) or have no case in common;
 * GB_ENOMEM. The rows point into base and next, which must outlive the comparison. */
int gb_compare_results(const struct gb_results *base, const char *base_path,
                       const struct gb_results *next, const char *next_path,
                       const struct gb_compare_opts *o, struct gb_comparison *out);
void gb_comparison_free(struct gb_comparison *c);

/* Per-case thresholds learned by `gpubench calibrate` and kept with the baseline
 * (analyses/calibrate.h reads them): a case is (suite, case, backend, device, params) as a row
 * names it; an empty backend matches any. */
struct gb_learned_threshold {
    char suite[32], case_name[64], backend[16], device[256], params[512];
    double threshold;
};
struct gb_learned {
    struct gb_learned_threshold *t; /* malloc'd */
    size_t n;
};
void gb_learned_free(struct gb_learned *l);

/* Judges tonight's value `next` (a median, in the metric's unit, with its within-run `noise`,
 * the relative CI95 half-width) against the nights' medians nights[0..n), for a metric where
 * `higher_is_better` says which way is good, with the effect threshold t and o's mads and
 * min_nights; `cut` is gb_mad_cut(n, o->mads) (the caller caches it; ignored when learning).
 * Fills j (verdict SAME, FASTER, SLOWER, UNSTABLE or LEARNING; base_median is the nights'
 * center in the unit; p is NAN) and nj, as the rules at the top say. Pure; returns 0, or
 * GB_EINVAL for a value that is not a positive number. */
int gb_compare_judge_nights(const double *nights, size_t n, double next, double noise,
                            bool higher_is_better, double t, const struct gb_compare_opts *o,
                            double cut, struct gb_judgement *j, struct gb_night_judgement *nj);

/* Compares `next` against the baseline nights[0..n) (oldest first; n >= 1), read from
 * paths[0..n) in the folder `baseline` (for the outputs), with the rules at the top; `learned`
 * (or NULL) gives per-case thresholds, which --threshold and --suite-threshold override. The
 * rows are matched against the newest night; every other night that gb_compare_results refuses
 * (another device) is left out with a note. Returns 0, or what gb_compare_results returns for
 * the newest night; GB_ENOMEM. The nights, paths and next must outlive the comparison. */
int gb_compare_nights(const struct gb_results *nights, const char *const *paths, size_t n,
                      const char *baseline, const struct gb_results *next, const char *next_path,
                      const struct gb_learned *learned, const struct gb_compare_opts *o,
                      struct gb_comparison *out);

#endif
