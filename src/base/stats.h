/* gpubench — descriptive statistics and the stopping rule. Pure functions, no device. */
#ifndef GB_STATS_H
#define GB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gb_stats {
    size_t n;
    double min, max, mean, median, stddev; /* stddev: sample (n-1) standard deviation */
    double cv;                             /* stddev / mean; 0 when mean is 0 */
    double p5, p95;                        /* percentiles, linear interpolation (R type 7) */
    double ci95;                           /* half-width of the 95% confidence interval of the
                                            * mean: t(0.975, n-1) * stddev / sqrt(n) */
};

/* Computes the statistics of x[0..n). n may be 0 (everything 0). With n = 1, stddev and cv are 0
 * and ci95 is INFINITY (one sample bounds nothing; the results file writes it as null). Nothing
 * else is ever non-finite for finite input. x is not modified. */
void gb_stats_compute(const double *x, size_t n, struct gb_stats *out);

/* Two-sided 97.5% quantile of Student's t with `dof` degrees of freedom (exact table for
 * dof <= 30, then the Cornish-Fisher expansion; 1.96 as dof -> inf). dof 0 returns INFINITY. */
double gb_t975(size_t dof);

/* Sorts x[0..n) ascending (for gb_percentile_sorted). */
void gb_sort_doubles(double *x, size_t n);

/* Percentile q in [0,1] of sorted[0..n), linear interpolation between closest ranks. */
double gb_percentile_sorted(const double *sorted, size_t n, double q);

/* The measurement budget and noise target of a case (profile: defaults + per-suite overrides). */
struct gb_measure_cfg {
    uint32_t warmup_runs;   /* at least this many warm-up operations */
    double warmup_time;     /* and at least this many seconds of them */
    uint32_t min_samples;   /* never stop before this many samples */
    uint32_t max_samples;   /* never take more */
    double max_noise;       /* target: ci95 / mean below this (relative, e.g. 0.02) */
    double max_time;        /* seconds of sampling per case at most */
    double min_sample_time; /* a sample batches operations until it lasts this long */
    uint64_t max_batch;     /* operations per sample at most */
    double case_timeout;    /* wall-clock seconds one case may take in a supervised run
                                * (run/supervise.h); 0: the default gb_case_timeout() */
    bool cold;              /* `cache: cold`: caches evicted before every sample (gb_measure) */
};

enum gb_stop {
    GB_STOP_CONTINUE = 0,
    GB_STOP_CONVERGED,   /* min_samples in and noise under max_noise */
    GB_STOP_MAX_SAMPLES, /* max_samples reached before the noise target: noisy */
    GB_STOP_MAX_TIME,    /* max_time spent (with at least min(2, max_samples) samples): noisy */
};

/* The stopping rule, given the samples so far (n, and rel_ci = ci95 / mean of them) and the
 * seconds spent sampling. Converged wins over a budget reached at the same sample; n = 0 and a
 * NaN or infinite rel_ci never converge. The time budget may stop before min_samples. */
enum gb_stop gb_stop_rule(const struct gb_measure_cfg *cfg, size_t n, double rel_ci,
                          double elapsed);

#endif
