/* Tests of src/base/stats.c and of the pure decisions of src/run/measure.c (no device). */
#include <stdint.h>

#include "base/error.h"
#include "run/measure.h"
#include "base/stats.h"
#include "test.h"

/* ---- descriptive statistics ------------------------------------------------------------------ */

TEST(stats_known_vector)
{
    /* The textbook vector: mean 5, sum of squared deviations 32, sample variance 32/7. */
    const double x[] = {9, 2, 5, 4, 4, 7, 4, 5}; /* unsorted on purpose */
    double copy[8];
    memcpy(copy, x, sizeof x);
    struct gb_stats st;
    gb_stats_compute(copy, 8, &st);
    ASSERT(memcmp(copy, x, sizeof x) == 0); /* input untouched */
    ASSERT_EQ(st.n, 8);
    ASSERT_NEAR(st.min, 2.0, 0);
    ASSERT_NEAR(st.max, 9.0, 0);
    ASSERT_NEAR(st.mean, 5.0, 1e-15);
    ASSERT_NEAR(st.median, 4.5, 1e-15);
    ASSERT_NEAR(st.stddev, 2.138089935299395, 1e-12);
    ASSERT_NEAR(st.cv, 0.427617987059879, 1e-12);
    /* R type 7: p5 at h = 7 * 0.05 = 0.35 between 2 and 4; p95 at h = 6.65 between 7 and 9. */
    ASSERT_NEAR(st.p5, 2.7, 1e-12);
    ASSERT_NEAR(st.p95, 8.3, 1e-12);
    /* t(0.975, 7) * s / sqrt(8) */
    ASSERT_NEAR(st.ci95, 1.7874879185440362, 1e-8);
}

TEST(stats_second_vector)
{
    const double y[] = {10.5, 9.5, 11.0, 10.0, 12.0, 9.0};
    struct gb_stats st;
    gb_stats_compute(y, 6, &st);
    ASSERT_NEAR(st.mean, 10.333333333333334, 1e-12);
    ASSERT_NEAR(st.stddev, 1.0801234497346435, 1e-12);
    ASSERT_NEAR(st.median, 10.25, 1e-12);
    ASSERT_NEAR(st.p5, 9.125, 1e-12);  /* h = 0.25 between 9 and 9.5 */
    ASSERT_NEAR(st.p95, 11.75, 1e-12); /* h = 4.75 between 11 and 12 */
    ASSERT_NEAR(st.ci95, 1.1335200437993038, 1e-8);
}

TEST(stats_empty_and_single)
{
    struct gb_stats st;
    memset(&st, 0x7f, sizeof st);
    gb_stats_compute(NULL, 0, &st);
    ASSERT_EQ(st.n, 0);
    ASSERT(st.min == 0 && st.max == 0 && st.mean == 0 && st.median == 0 && st.stddev == 0 &&
           st.cv == 0 && st.p5 == 0 && st.p95 == 0 && st.ci95 == 0);

    const double one = 3.25;
    gb_stats_compute(&one, 1, &st);
    ASSERT_EQ(st.n, 1);
    ASSERT(st.min == one && st.max == one && st.mean == one && st.median == one && st.p5 == one &&
           st.p95 == one);
    ASSERT_NEAR(st.stddev, 0.0, 0);
    ASSERT_NEAR(st.cv, 0.0, 0);
    /* One sample bounds nothing: the interval of the mean is unbounded (never NaN). */
    ASSERT(isinf(st.ci95) && st.ci95 > 0);
}

TEST(stats_constant_and_zero_mean)
{
    const double c[] = {7, 7, 7, 7};
    struct gb_stats st;
    gb_stats_compute(c, 4, &st);
    ASSERT_NEAR(st.stddev, 0.0, 0);
    ASSERT_NEAR(st.ci95, 0.0, 0);
    ASSERT_NEAR(st.cv, 0.0, 0);

    const double z[] = {-1, 1, -1, 1};
    gb_stats_compute(z, 4, &st);
    ASSERT_NEAR(st.mean, 0.0, 0);
    ASSERT_NEAR(st.cv, 0.0, 0); /* stddev / 0 is reported as 0, not inf */
    ASSERT(isfinite(st.ci95));
}

TEST(stats_t975_table)
{
    ASSERT_NEAR(gb_t975(1), 12.706, 5e-4);
    ASSERT_NEAR(gb_t975(2), 4.303, 5e-4);
    ASSERT_NEAR(gb_t975(10), 2.228, 5e-4);
    ASSERT_NEAR(gb_t975(20), 2.086, 5e-4);
    ASSERT_NEAR(gb_t975(30), 2.042, 5e-4);
    /* The expansion past the table: R's qt(0.975, dof). */
    ASSERT_NEAR(gb_t975(31), 2.039513446, 1e-7);
    ASSERT_NEAR(gb_t975(40), 2.021075390, 1e-8);
    ASSERT_NEAR(gb_t975(60), 2.000297822, 1e-8);
    ASSERT_NEAR(gb_t975(120), 1.979930405, 1e-8);
    ASSERT_NEAR(gb_t975(1000), 1.962339081, 1e-8);
    ASSERT_NEAR(gb_t975(SIZE_MAX), 1.959963984540054, 1e-12);
    ASSERT(isinf(gb_t975(0)));
    for (size_t d = 1; d < 500; d++)
        ASSERT_MSG(gb_t975(d + 1) < gb_t975(d), "not decreasing at dof %zu", d);
}

TEST(stats_percentiles)
{
    const double s[] = {1, 2, 3, 4};
    ASSERT_NEAR(gb_percentile_sorted(s, 4, 0.0), 1.0, 0);
    ASSERT_NEAR(gb_percentile_sorted(s, 4, 1.0), 4.0, 0);
    ASSERT_NEAR(gb_percentile_sorted(s, 4, 0.5), 2.5, 1e-15);
    ASSERT_NEAR(gb_percentile_sorted(s, 4, 0.25), 1.75, 1e-15);
    ASSERT_NEAR(gb_percentile_sorted(s, 4, 0.75), 3.25, 1e-15);
    ASSERT_NEAR(gb_percentile_sorted(s, 4, 1.0 / 3.0), 2.0, 1e-15);
    ASSERT_NEAR(gb_percentile_sorted(s, 1, 0.9), 1.0, 0);
    ASSERT_NEAR(gb_percentile_sorted(s, 0, 0.5), 0.0, 0);
    ASSERT_NEAR(gb_percentile_sorted(s, 4, -1.0), 1.0, 0); /* clamped */
    ASSERT_NEAR(gb_percentile_sorted(s, 4, 2.0), 4.0, 0);
}

/* ---- stopping rule --------------------------------------------------------------------------- */

static const struct gb_measure_cfg cfg5_20 = {
    .warmup_runs = 0,
    .warmup_time = 0,
    .min_samples = 5,
    .max_samples = 20,
    .max_noise = 0.02,
    .max_time = 1.0,
    .min_sample_time = 1e-3,
    .max_batch = 0,
};

TEST(stats_stop_rule_converged)
{
    ASSERT_EQ(gb_stop_rule(&cfg5_20, 5, 0.01, 0.1), GB_STOP_CONVERGED);
    ASSERT_EQ(gb_stop_rule(&cfg5_20, 7, 0.02, 0.1), GB_STOP_CONVERGED); /* at the limit */
    ASSERT_EQ(gb_stop_rule(&cfg5_20, 5, 0.03, 0.1), GB_STOP_CONTINUE);
    /* Converged wins over either budget reached at the same sample. */
    ASSERT_EQ(gb_stop_rule(&cfg5_20, 20, 0.01, 0.1), GB_STOP_CONVERGED);
    ASSERT_EQ(gb_stop_rule(&cfg5_20, 10, 0.01, 5.0), GB_STOP_CONVERGED);
    /* NaN and infinite noise never converge. */
    ASSERT_EQ(gb_stop_rule(&cfg5_20, 6, NAN, 0.1), GB_STOP_CONTINUE);
    ASSERT_EQ(gb_stop_rule(&cfg5_20, 6, INFINITY, 0.1), GB_STOP_CONTINUE);
}

TEST(stats_stop_rule_min_samples)
{
    for (size_t n = 0; n < 5; n++)
        ASSERT_EQ(gb_stop_rule(&cfg5_20, n, 0.0, 0.1), GB_STOP_CONTINUE);
    struct gb_measure_cfg c = cfg5_20;
    c.min_samples = 0;
    ASSERT_EQ(gb_stop_rule(&c, 0, 0.0, 0.0), GB_STOP_CONTINUE); /* no samples, no verdict */
}

TEST(stats_stop_rule_budget_samples)
{
    ASSERT_EQ(gb_stop_rule(&cfg5_20, 19, 0.5, 0.1), GB_STOP_CONTINUE);
    ASSERT_EQ(gb_stop_rule(&cfg5_20, 20, 0.5, 0.1), GB_STOP_MAX_SAMPLES);
    ASSERT_EQ(gb_stop_rule(&cfg5_20, 20, NAN, 0.1), GB_STOP_MAX_SAMPLES);
    /* max_samples below min_samples: max_samples is the hard limit. */
    struct gb_measure_cfg c = cfg5_20;
    c.max_samples = 3;
    ASSERT_EQ(gb_stop_rule(&c, 3, 0.0, 0.0), GB_STOP_MAX_SAMPLES);
}

TEST(stats_stop_rule_budget_time)
{
    ASSERT_EQ(gb_stop_rule(&cfg5_20, 3, 0.5, 0.99), GB_STOP_CONTINUE);
    ASSERT_EQ(gb_stop_rule(&cfg5_20, 3, 0.5, 1.0), GB_STOP_MAX_TIME); /* before min_samples */
    ASSERT_EQ(gb_stop_rule(&cfg5_20, 2, 0.5, 3.0), GB_STOP_MAX_TIME);
    /* At least two samples, so that the result has a spread. */
    ASSERT_EQ(gb_stop_rule(&cfg5_20, 1, INFINITY, 3.0), GB_STOP_CONTINUE);
    ASSERT_EQ(gb_stop_rule(&cfg5_20, 0, INFINITY, 3.0), GB_STOP_CONTINUE);
    /* ... or min(2, max_samples). */
    struct gb_measure_cfg c = cfg5_20;
    c.max_samples = 1;
    c.min_samples = 1;
    ASSERT_EQ(gb_stop_rule(&c, 0, INFINITY, 3.0), GB_STOP_CONTINUE);
    ASSERT_EQ(gb_stop_rule(&c, 1, INFINITY, 3.0), GB_STOP_MAX_SAMPLES);
}

/* ---- the decisions of the measurement loop ------------------------------------------------- */

TEST(measure_batch_cap)
{
    struct gb_measure_cfg c = cfg5_20;
    c.max_batch = 0;
    ASSERT_U64(gb_batch_cap(&c, 0), ==, UINT64_C(1) << 62);
    ASSERT_U64(gb_batch_cap(&c, 64), ==, 64);
    c.max_batch = 1000;
    ASSERT_U64(gb_batch_cap(&c, 0), ==, 1000);
    ASSERT_U64(gb_batch_cap(&c, 64), ==, 64);
    ASSERT_U64(gb_batch_cap(&c, 5000), ==, 1000);
}

TEST(measure_calib_next_steps)
{
    const double target = 1e-3, big = (double)(UINT64_C(1) << 40);
    (void)big;
    uint64_t cap = UINT64_C(1) << 62;
    ASSERT_U64(gb_calib_next(1, 1e-3, target, cap), ==, 1); /* long enough: done */
    ASSERT_U64(gb_calib_next(7, 5e-3, target, cap), ==, 7);
    ASSERT_U64(gb_calib_next(1, 0.6e-3, target, cap), ==, 2); /* one doubling reaches it */
    ASSERT_U64(gb_calib_next(1, 0.3e-3, target, cap), ==, 4); /* 0.6 ms predicted: again */
    ASSERT_U64(gb_calib_next(3, 0.3e-3, target, cap), ==, 12);
    ASSERT_U64(gb_calib_next(1, 0.0, target, cap), ==, 1024);   /* under the timer's resolution */
    ASSERT_U64(gb_calib_next(1, 1e-12, target, cap), ==, 1024); /* at most 1024x a step */
    ASSERT_U64(gb_calib_next(8, 1e-6, target, 100), ==, 100);   /* capped */
    ASSERT_U64(gb_calib_next(100, 1e-6, target, 100), ==, 100); /* at the cap: done */
    ASSERT_U64(gb_calib_next(cap / 2 + 1, 1e-9, target, cap), ==, cap); /* no overflow */
}

/* Calibration against a modelled operation (a fixed launch overhead plus a per-operation time):
 * the fixed point is a batch whose sample lasts min_sample_time, reached in a few steps, and
 * not much longer than needed. */
TEST(measure_calib_converges)
{
    const double per_op[] = {2e-9, 3.7e-6, 4e-4, 0.5};
    const double overhead = 5e-6, target = 1e-3;
    for (size_t i = 0; i < sizeof per_op / sizeof per_op[0]; i++) {
        uint64_t reps = 1;
        int steps = 0;
        for (;;) {
            double t = overhead + (double)reps * per_op[i];
            uint64_t next = gb_calib_next(reps, t, target, UINT64_C(1) << 62);
            if (next == reps)
                break;
            ASSERT_U64(next, >, reps);
            reps = next;
            ASSERT_MSG(++steps < 64, "calibration does not converge for %g s/op", per_op[i]);
        }
        double t = overhead + (double)reps * per_op[i];
        ASSERT_MSG(t >= target, "%g s/op: batch %llu lasts %g s", per_op[i],
                   (unsigned long long)reps, t);
        if (reps > 1) /* one doubling too few would have been short */
            ASSERT_MSG(overhead + (double)(reps / 2) * per_op[i] < target,
                       "%g s/op: batch %llu overshoots", per_op[i], (unsigned long long)reps);
        ASSERT_INT(steps, <=, 6);
    }
}

TEST(measure_warmup_count)
{
    struct gb_measure_cfg c = cfg5_20;
    c.warmup_runs = 10;
    c.warmup_time = 0.0;
    uint64_t done = 0, last = 0, reps;
    int runs = 0;
    while ((reps = gb_warmup_next(&c, done, 1e-6 * (double)done, last, 1e-6 * (double)last,
                                  UINT64_C(1) << 62)) != 0) {
        ASSERT_U64(reps, <=, last ? 2 * last : 1);
        done += reps;
        last = reps;
        ASSERT_INT(++runs, <, 100);
    }
    ASSERT_U64(done, ==, 10); /* 1 + 2 + 4 + 3: exactly what was asked */
    ASSERT_EQ(runs, 4);

    c.warmup_runs = 0;
    ASSERT_U64(gb_warmup_next(&c, 0, 0.0, 0, 0.0, 100), ==, 0); /* nothing asked */
}

TEST(measure_warmup_time)
{
    struct gb_measure_cfg c = cfg5_20;
    c.warmup_runs = 3;
    c.warmup_time = 0.1;
    const double per_op = 1e-3;
    uint64_t done = 0, last = 0, reps;
    double elapsed = 0.0, last_s = 0.0;
    int runs = 0;
    while ((reps = gb_warmup_next(&c, done, elapsed, last, last_s, 16)) != 0) {
        ASSERT_U64(reps, <=, 16); /* the cap */
        last_s = (double)reps * per_op;
        elapsed += last_s;
        done += reps;
        last = reps;
        ASSERT_INT(++runs, <, 1000);
    }
    ASSERT_MSG(elapsed >= 0.1 && elapsed < 0.2, "warm-up lasted %g s", elapsed);
    ASSERT_U64(done, >=, 3);
    ASSERT_INT(runs, <, 20); /* geometric, then capped: not one operation at a time */
}

TEST(measure_op_time_implausible)
{
    double op = -1;
    ASSERT_OK(gb_op_time(1e-3, 10, &op));
    ASSERT_NEAR(op, 1e-4, 1e-18);
    const double bad[] = {0.0, -1e-6, NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        op = 42;
        ASSERT_EQ(gb_op_time(bad[i], 10, &op), GB_EIMPLAUSIBLE);
        ASSERT_CONTAINS(gb_error_msg(), "zero, negative or not a number");
        ASSERT_NEAR(op, 42, 0); /* untouched */
    }
    ASSERT_EQ(gb_op_time(1e-3, 0, &op), GB_EINVAL);
}

TEST(measure_sample_decide)
{
    const double flat[] = {1e-3, 1e-3, 1e-3, 1e-3, 1e-3};
    ASSERT_EQ(gb_sample_decide(&cfg5_20, flat, 4, 0.1), GB_STOP_CONTINUE); /* min_samples */
    ASSERT_EQ(gb_sample_decide(&cfg5_20, flat, 5, 0.1), GB_STOP_CONVERGED);
    struct gb_measure_cfg c = cfg5_20;
    c.min_samples = 1;
    ASSERT_EQ(gb_sample_decide(&c, flat, 1, 0.1), GB_STOP_CONTINUE); /* one sample: no CI */

    /* Same verdict as the stopping rule fed with gb_stats_compute's ci95 / mean. */
    const double noisy[] = {1.0, 1.3, 0.8, 1.1, 0.95, 1.2, 0.9, 1.05, 1.0, 1.15};
    struct gb_stats st;
    for (size_t n = 2; n <= 10; n++) {
        gb_stats_compute(noisy, n, &st);
        for (double noise = 0.01; noise < 0.5; noise *= 1.5)
            for (double e = 0.0; e <= 2.0; e += 1.0) {
                c = cfg5_20;
                c.max_noise = noise;
                c.max_samples = 8;
                ASSERT_EQ(gb_sample_decide(&c, noisy, n, e),
                          gb_stop_rule(&c, n, st.ci95 / st.mean, e));
            }
    }
}

TEST(measure_rejects_bad_arguments)
{
    struct gb_measurement m;
    memset(&m, 0x55, sizeof m);
    ASSERT_EQ(gb_measure(NULL, NULL, &cfg5_20, NULL, &m), GB_EINVAL);
    ASSERT(m.op_time == NULL && m.n == 0);
    gb_measurement_free(&m); /* harmless on an empty measurement */
    gb_measurement_free(NULL);
}
