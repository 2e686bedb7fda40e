/* gpubench — history: many nights of one machine's results, each case's median as a time series,
 * and the nights on which a figure moved.
 *
 * Nights are results files ordered by their start time (run.start_utc, then path). A case is
 * followed across nights by its identity (merge.h: suite, case, backend, device name and position,
 * params); its series is the headline value (the median of the night's samples) of each night on
 * which it ran ok, with the night's p5..p95 of the samples as its noise band.
 *
 * Change points: Pettitt's test inside binary segmentation.
 *   A. N. Pettitt, "A non-parametric approach to the change-point problem", Applied Statistics
 *   28(2):126-135, 1979. For a series x_1..x_n with midranks r_i, U_t = sum_{i<=t} (2 r_i - n - 1)
 *   (= sum_{i<=t} sum_{j>t} sgn(x_i - x_j), the Mann-Whitney statistic of the split after t in
 *   its centred form); K = max_t |U_t| and the split is the t that reaches it; the two-sided
 *   significance is approximately p = 2 exp(-6 K^2 / (n^3 + n^2)), capped at 1.
 *   Binary segmentation (A. J. Scott and M. Knott, Biometrics 30(3):507-512, 1974): a split found
 *   significant is kept and both halves are searched again, so several steps are found.
 * Why this method: it is rank-based, so one wild night (a shared machine, a throttled run) moves
 * U_t by at most n and does not look like a step, and skewed timing noise needs no model; it is
 * the Mann-Whitney statistic compare already trusts, taken over every split at once with a p-value
 * that accounts for the choice of split, in closed form (e-divisive's permutation test would need
 * random resampling, a seed and ~100x the work); and it is O(n log n) per segment. A split counts
 * only when it is significant (p < alpha) AND the medians of the two segments differ by at least
 * the threshold (compare's 5% by default): on a long history a statistically real but tiny drift
 * is not a night to name. Splits leave at least min_nights on each side, so a change in the last
 * night or two is not named yet (it is, once enough nights confirm it).
 *
 * For each change point the report names the first night at the new level and what else differs
 * between that night and the night before it on which the case ran: gpubench version and commit,
 * profile sha256, host, OS, the case's device name, driver, API version and clock.
 */
#ifndef GB_HISTORY_H
#define GB_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyses/merge.h"
#include "results/results.h"

struct gb_history_opts {
    double alpha;       /* significance of Pettitt's test; default 0.01 */
    double threshold;   /* smallest relative change of the median that is named; default 0.05 */
    size_t min_nights;  /* nights on each side of a change point at least; default 3 */
    const char *suites; /* comma list of suites to follow; NULL: all */
};

void gb_history_opts_default(struct gb_history_opts *o);

/* What a night's file says about the run and its devices (the rest is not kept). */
struct gb_history_device {
    char backend[16];
    char name[256];
    char driver[128];
    char version[128];
    uint32_t clock_mhz;
};

struct gb_history_night {
    char *path;
    char start_utc[32];
    char gpubench_version[32];
    char git_commit[48];
    char profile_sha256[65];
    char profile_name[128];
    char host[256];
    char os[256];
    bool interrupted;
    struct gb_history_device *devices;
    size_t ndevices;
};

/* One night of one case. */
struct gb_history_point {
    double value;    /* the headline value (median of the night's samples); NaN when not ok */
    double lo, hi;   /* the night's noise band: p5 and p95 of its samples */
    int8_t status;   /* enum gb_status, or -1: the case did not run that night */
    uint16_t device; /* the night's device index of the case (its first device) */
};

struct gb_history_change {
    size_t night;         /* index into nights: the first night at the new level */
    size_t prev_night;    /* the night before it on which the case ran ok */
    double before, after; /* medians of the segments on either side, in the case's unit */
    double spread_before, spread_after; /* 1.4826 x MAD of each segment, in the unit */
    double change;   /* perf(after) / perf(before) - 1: < 0 slower (perf: the value, or its
                         * reciprocal for lower-is-better metrics) */
    double p;        /* Pettitt's p of the split within its segment */
    char what[1024]; /* what else changed, "driver 1.2 -> 1.3; profile sha256 ab12.. -> cd34.."
                         * ("" when nothing recorded differs) */
};

struct gb_history_series {
    char *suite, *case_name, *device, *params, *slot, *unit, *metric;
    enum gb_better better;
    struct gb_history_point *points; /* one per night, in night order after gb_history_finish */
    size_t npoints, points_cap;      /* npoints == nnights after gb_history_finish */
    size_t nok;                      /* nights on which it ran ok */
    double noise;                    /* night-to-night noise: 1.4826 x the MAD of each night's
                                      * value from its segment's median, relative to the median
                                      * of the whole series (0.03: 3%); NaN under 3 nights */
    struct gb_history_change *changes;
    size_t nchanges;
    bool measured;     /* unit, metric and better are those of an ok value */
    size_t left_out;   /* ok values in another unit, metric or direction than the case's first */
    char left_why[96]; /* the first of those: "unit MB/s where the case is GB/s" */
};

struct gb_history {
    struct gb_history_opts opts;
    struct gb_history_night *nights;
    size_t nnights, nights_cap;
    struct gb_strtab keys; /* series key (case key + slot) -> index into series */
    struct gb_history_series *series;
    size_t nseries, series_cap;
    size_t nchanges; /* over every series */
    size_t slower;   /* change points that are slowdowns */
    size_t ncopies;  /* files left out as copies of a night already read (gb_history_add_file) */
    char notes[4096];
    char left_out[2048]; /* the notes' lines on values left out of a case (for stderr) */
};

/* Starts an empty history with options o (copied; o->suites must outlive h). */
void gb_history_init(struct gb_history *h, const struct gb_history_opts *o);
/* Reads one results file as a night and keeps its figures (the samples are not kept); a copy of a
 * night already read (the same host, start time and profile) is left out and counted in
 * h->ncopies. Returns 0 or the reader's GB_EIO / GB_ESCHEMA with its message; GB_ENOMEM. */
int gb_history_add_file(struct gb_history *h, const char *path);
/* Puts the nights in time order and finds every series' change points. Returns 0, GB_EINVAL
 * (no night), GB_ENOMEM. */
int gb_history_finish(struct gb_history *h);
void gb_history_free(struct gb_history *h);

/* Change points of one series x[0..n) (in time order, every value finite), appended to
 * idx[0..*nidx) (at most cap) as the index of the first point of each new segment, ascending.
 * A pure function for the tests and for gb_history_finish. `higher_is_better` orients the
 * threshold test only. Returns 0 or GB_ENOMEM. p_out (may be NULL) receives each split's p. */
int gb_history_changepoints(const double *x, size_t n, bool higher_is_better,
                            const struct gb_history_opts *o, size_t *idx, double *p_out,
                            size_t *nidx, size_t cap);

/* Pettitt's K and split over x[0..n) (n >= 2): the split t (1 <= t < n: the first segment is
 * x[0..t)) restricted to min_seg <= t <= n - min_seg, *k the largest |U_t| there, and the return
 * value the approximate two-sided p = min(1, 2 exp(-6 K^2 / (n^3 + n^2))). Returns NaN when no
 * split is allowed or on ENOMEM. */
double gb_pettitt(const double *x, size_t n, size_t min_seg, size_t *split, double *k);

/* The fewest nights in which a change point can be named under o: min_nights on each side, and
 * enough that the smallest p gb_pettitt can give (every night after the split apart from every
 * night before it: K = floor(n/2) ceil(n/2)) is under alpha (16 for the defaults: 6 nights give
 * p >= 0.29 whatever their values). */
size_t gb_history_nights_needed(const struct gb_history_opts *o);

#endif
