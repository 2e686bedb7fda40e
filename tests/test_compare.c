/* compare, calibrate, baseline and nightly: the Mann–Whitney test and the verdict rules as pure
 * functions, then the gate on real results files made by running small profiles on the OpenCL
 * device (PoCL here). */
#include <jansson.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyses/baseline.h"
#include "analyses/calibrate.h"
#include "analyses/compare.h"
#include "analyses/expect.h"
#include "outputs/compare_out.h"
#include "base/error.h"
#include "base/mannwhitney.h"
#include "base/robust.h"
#include "results/results.h"
#include "base/stats.h"
#include "test.h"

static char out[1 << 18];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

/* The first line of `out` into buf. */
static void first_line(char *buf, size_t len)
{
    size_t l = strcspn(out, "\n");
    if (l >= len)
        l = len - 1;
    memcpy(buf, out, l);
    buf[l] = '\0';
}

/* ---- Mann–Whitney U ------------------------------------------------------------------------ */

TEST(compare_mwu_exact_reference_values)
{
    struct gb_mwu m;
    /* Completely separated samples of 3: U = 0 and the exact two-sided p is 2 / C(6,3) = 0.1. */
    double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    ASSERT_OK(gb_mwu_test(a, 3, b, 3, &m));
    ASSERT(m.exact);
    ASSERT_NEAR(m.u1, 0, 0);
    ASSERT_NEAR(m.u2, 9, 0);
    ASSERT_NEAR(m.p, 0.1, 1e-12);
    ASSERT_NEAR(gb_mwu_min_p(3, 3), 0.1, 1e-12);
    ASSERT_NEAR(gb_mwu_min_p(5, 5), 2.0 / 252.0, 1e-12);

    /* R's ?wilcox.test example (Hollander & Wolfe): W = 35; R prints p = 0.1272 one-sided, so
     * 0.2544 two-sided (checked by enumerating all C(15,5) arrangements). */
    double x[] = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
    double y[] = {1.15, 0.88, 0.90, 0.74, 1.21};
    ASSERT_OK(gb_mwu_test(x, 10, y, 5, &m));
    ASSERT(m.exact && !m.ties);
    ASSERT_NEAR(m.u1, 35, 0);
    ASSERT_NEAR(m.p, 0.2544122544122544, 1e-12);
    /* Swapping the samples swaps U1 and U2 and keeps p. */
    ASSERT_OK(gb_mwu_test(y, 5, x, 10, &m));
    ASSERT_NEAR(m.u1, 15, 0);
    ASSERT_NEAR(m.p, 0.2544122544122544, 1e-12);

    /* Unequal sizes, interleaved: U = 7, p = 0.10606 (enumerated: C(12,5) arrangements). */
    double x2[] = {1.1, 2.3, 3.7, 4.2, 5.9}, y2[] = {2.0, 2.5, 6.1, 7.3, 8.8, 9.4, 10.2};
    ASSERT_OK(gb_mwu_test(x2, 5, y2, 7, &m));
    ASSERT_NEAR(m.u1, 7, 0);
    ASSERT_NEAR(m.p, 0.10606060606060606, 1e-12);
}

/* The exact distribution from the Gaussian binomial against brute-force enumeration of every
 * arrangement, for every u, at sizes where enumeration is cheap. */
TEST(compare_mwu_exact_matches_enumeration)
{
    for (size_t n1 = 1; n1 <= 6; n1++)
        for (size_t n2 = 1; n2 <= 7; n2++) {
            size_t n = n1 + n2;
            /* count[u]: arrangements (subsets of ranks for the first sample) with U = u. */
            double cnt[64] = {0}, total = 0;
            for (unsigned mask = 0; mask < (1u << n); mask++) {
                if ((size_t)__builtin_popcount(mask) != n1)
                    continue;
                size_t u = 0, below = 0;
                for (size_t r = 0; r < n; r++) {
                    if (mask & (1u << r))
                        u += below; /* pairs (x, y) with y ranked below x */
                    else
                        below++;
                }
                cnt[u]++;
                total++;
            }
            for (size_t u = 0; u <= n1 * n2; u++) {
                /* Samples realising U = u: x takes ranks chosen so that u pairs are below it. */
                double x[8], y[8];
                size_t xi = 0, yi = 0, need = u;
                /* Greedy: place y values, then x values above as many y as still needed. */
                for (size_t k = 0; k < n1; k++) {
                    size_t above = need > n2 ? n2 : need;
                    need -= above;
                    x[xi++] = (double)above + 0.5 + 0.01 * (double)k;
                }
                for (size_t k = 0; k < n2; k++)
                    y[yi++] = (double)k + 1.0;
                if (need)
                    continue; /* u above n1 * n2 cannot happen; kept for clarity */
                struct gb_mwu m;
                ASSERT_OK(gb_mwu_test(x, n1, y, n2, &m));
                ASSERT_NEAR(m.u1, (double)u, 1e-9);
                double lo = 0, hi = 0;
                for (size_t k = 0; k <= n1 * n2; k++) {
                    lo += k <= u ? cnt[k] : 0;
                    hi += k >= u ? cnt[k] : 0;
                }
                double p = 2.0 * (lo < hi ? lo : hi) / total;
                ASSERT_NEAR(m.p, p > 1 ? 1 : p, 1e-12);
            }
        }
}

TEST(compare_mwu_normal_approximation_with_ties)
{
    /* Ties force the normal approximation with the tie-corrected variance and the continuity
     * correction: U = 7.5, p = 0.0063731 (computed independently from the formula in
     * Hollander, Wolfe & Chicken §4.1). */
    double x[] = {1, 2, 2, 3, 3, 3, 4, 5}, y[] = {3, 4, 4, 5, 5, 6, 7, 7, 8};
    struct gb_mwu m;
    ASSERT_OK(gb_mwu_test(x, 8, y, 9, &m));
    ASSERT(!m.exact && m.ties);
    ASSERT_NEAR(m.u1, 7.5, 1e-12);
    ASSERT_NEAR(m.p, 0.006373133838085877, 1e-9);
    ASSERT(m.z < 0);
    /* All equal: nothing to tell apart. */
    double e[] = {2, 2, 2, 2};
    ASSERT_OK(gb_mwu_test(e, 2, e + 2, 2, &m));
    ASSERT_NEAR(m.p, 1, 0);
    /* Large samples (beyond the exact limit) shifted by a lot: p tiny; not shifted: p large. */
    double big1[150], big2[150];
    for (int i = 0; i < 150; i++) {
        big1[i] = 100 + (i * 37 % 150) * 0.01;
        big2[i] = 90 + (i * 53 % 150) * 0.01;
    }
    ASSERT_OK(gb_mwu_test(big1, 150, big2, 150, &m));
    ASSERT(!m.exact);
    ASSERT(m.p < 1e-30);
    ASSERT_OK(gb_mwu_test(big1, 150, big1, 150, &m));
    ASSERT(m.p > 0.99);
    /* Bad input. */
    double nan_[] = {NAN};
    ASSERT_EQ(gb_mwu_test(nan_, 1, e, 1, &m), GB_EINVAL);
    ASSERT_EQ(gb_mwu_test(e, 0, e, 1, &m), GB_EINVAL);
}

/* ---- the verdict rules --------------------------------------------------------------------- */

/* n samples around `center` with a deterministic spread of +-spread (relative). */
static void fill(double *x, size_t n, double center, double spread)
{
    for (size_t i = 0; i < n; i++)
        x[i] = center * (1.0 + spread * ((double)((i * 7) % n) / (double)(n - 1) - 0.5) * 2.0);
}

TEST(compare_judge_rules)
{
    double a[20], b[20];
    struct gb_judgement j;
    /* Same samples: SAME. */
    fill(a, 20, 100, 0.01);
    ASSERT_OK(gb_compare_judge(a, 20, a, 20, true, 0.01, 0.05, &j));
    ASSERT_STR(gb_verdict_name(j.verdict), "SAME");
    ASSERT_NEAR(j.ratio, 1, 1e-12);
    /* Throughput 10% lower (time 1.1x): SLOWER; the other way round FASTER. */
    fill(b, 20, 100 / 1.1, 0.01);
    ASSERT_OK(gb_compare_judge(a, 20, b, 20, true, 0.01, 0.05, &j));
    ASSERT_STR(gb_verdict_name(j.verdict), "SLOWER");
    ASSERT_NEAR(j.ratio, 1 / 1.1, 1e-3);
    ASSERT(j.p < 1e-6);
    ASSERT_OK(gb_compare_judge(b, 20, a, 20, true, 0.01, 0.05, &j));
    ASSERT_STR(gb_verdict_name(j.verdict), "FASTER");
    /* A time (lower is better) 10% higher: SLOWER. */
    fill(b, 20, 110, 0.01);
    ASSERT_OK(gb_compare_judge(a, 20, b, 20, false, 0.01, 0.05, &j));
    ASSERT_STR(gb_verdict_name(j.verdict), "SLOWER");
    /* 3% slower with a 5% threshold: SAME, however significant. */
    fill(b, 20, 97, 0.01);
    ASSERT_OK(gb_compare_judge(a, 20, b, 20, true, 0.01, 0.05, &j));
    ASSERT_STR(gb_verdict_name(j.verdict), "SAME");
    ASSERT(j.p < 0.01);
    /* The threshold is symmetric in log space: exactly 1/1.05 is not beyond it. */
    fill(b, 20, 100 / 1.0499, 0.01);
    ASSERT_OK(gb_compare_judge(a, 20, b, 20, true, 0.01, 0.05, &j));
    ASSERT_STR(gb_verdict_name(j.verdict), "SAME");
    /* Three samples each can never reach p < 0.01: UNSTABLE, and it says so. */
    fill(b, 3, 50, 0.01);
    ASSERT_OK(gb_compare_judge(a, 3, b, 3, true, 0.01, 0.05, &j));
    ASSERT_STR(gb_verdict_name(j.verdict), "UNSTABLE");
    ASSERT_CONTAINS(j.why, "too few samples");
    /* A large median change inside very wide, overlapping samples: not significant. */
    fill(a, 20, 100, 0.9);
    fill(b, 20, 85, 0.9);
    ASSERT_OK(gb_compare_judge(a, 20, b, 20, true, 0.01, 0.05, &j));
    ASSERT_STR(gb_verdict_name(j.verdict), "UNSTABLE");
    ASSERT_CONTAINS(j.why, "not significant");
    /* No change but a noise above the threshold: a regression that size could hide. */
    ASSERT_OK(gb_compare_judge(a, 20, a, 20, true, 0.01, 0.05, &j));
    ASSERT_STR(gb_verdict_name(j.verdict), "UNSTABLE");
    ASSERT_CONTAINS(j.why, "could hide");
    /* One sample: too few. */
    ASSERT_OK(gb_compare_judge(a, 1, a, 20, true, 0.01, 0.05, &j));
    ASSERT_STR(gb_verdict_name(j.verdict), "UNSTABLE");
}

/* A one-case run in memory: memory copy at `center` GB/s, 20 samples within +-0.5%. */
static void one_case_run(struct gb_results *rs, double center)
{
    memset(rs, 0, sizeof *rs);
    snprintf(rs->run.host, sizeof rs->run.host, "testhost");
    snprintf(rs->run.profile_sha256, sizeof rs->run.profile_sha256, "%064d", 0);
    struct gb_device_info info = {.name = "AA Device"};
    int dev;
    ASSERT_OK(gb_results_add_device(rs, "opencl", 0, &info, &dev));
    struct gb_result r = {.device_index = dev, .status = GB_STATUS_OK, .batch = 1};
    snprintf(r.suite, sizeof r.suite, "memory");
    snprintf(r.case_name, sizeof r.case_name, "copy");
    snprintf(r.backend, sizeof r.backend, "opencl");
    snprintf(r.metric, sizeof r.metric, "bandwidth");
    snprintf(r.unit, sizeof r.unit, "GB/s");
    r.better = GB_BETTER_HIGHER;
    r.verified = true;
    r.nsamples = 20;
    r.samples = malloc(r.nsamples * sizeof *r.samples);
    ASSERT(r.samples);
    fill(r.samples, r.nsamples, center, 0.005);
    gb_stats_compute(r.samples, r.nsamples, &r.stats);
    r.value = r.stats.median;
    ASSERT_OK(gb_results_add(rs, &r));
}

static enum gb_verdict two_runs(double a, double b, const struct gb_compare_opts *o, char *why,
                                size_t len)
{
    struct gb_results ra, rb;
    one_case_run(&ra, a);
    one_case_run(&rb, b);
    struct gb_comparison c;
    ASSERT_OK(gb_compare_results(&ra, "a.json", &rb, "b.json", o, &c));
    ASSERT_EQ(c.nrows, 1);
    enum gb_verdict v = c.rows[0].j.verdict;
    ASSERT_EQ(c.regressions, (size_t)(v == GB_VERDICT_SLOWER));
    snprintf(why, len, "%s", c.rows[0].note);
    gb_comparison_free(&c);
    gb_results_free(&ra);
    gb_results_free(&rb);
    return v;
}

/* A run of six memory cases (copy0..copy5) at center x scale[k] GB/s, 20 samples within +-0.5%. */
static void six_case_run(struct gb_results *rs, const double scale[6])
{
    one_case_run(rs, 100.0 * scale[0]);
    for (int k = 1; k < 6; k++) {
        struct gb_results one;
        one_case_run(&one, 100.0 * (1.0 + 0.2 * k) * scale[k]);
        struct gb_result r = one.results[0];
        snprintf(r.case_name, sizeof r.case_name, "copy%d", k);
        r.samples = malloc(r.nsamples * sizeof *r.samples);
        ASSERT(r.samples);
        memcpy(r.samples, one.results[0].samples, r.nsamples * sizeof *r.samples);
        ASSERT_OK(gb_results_add(rs, &r));
        gb_results_free(&one);
    }
}

/* An ok result recorded without samples is compared on its recorded value (not shown as 0); a
 * case a file holds three times pairs its first, and the copies left over are duplicates, not
 * cases "only in NEW" (or BASE). */
TEST(compare_empty_samples_and_duplicate_cases)
{
    struct gb_compare_opts o;
    gb_compare_opts_default(&o);
    struct gb_results ra, rb;
    one_case_run(&ra, 15.22);
    one_case_run(&rb, 15.22);
    free(rb.results[0].samples);
    rb.results[0].samples = NULL;
    rb.results[0].nsamples = 0;
    rb.results[0].stats.n = 0;
    struct gb_comparison c;
    ASSERT_OK(gb_compare_results(&ra, "a.json", &rb, "b.json", &o, &c));
    ASSERT_EQ(c.nrows, 1);
    ASSERT_MSG(fabs(c.rows[0].j.next_median / 15.22 - 1.0) < 0.01, "NEW shown as %g",
               c.rows[0].j.next_median);
    ASSERT_EQ(c.regressions, 0);
    gb_comparison_free(&c);
    gb_results_free(&rb);

    one_case_run(&rb, 15.22);
    for (int k = 0; k < 2; k++) {
        struct gb_result r = rb.results[0];
        r.samples = malloc(r.nsamples * sizeof *r.samples);
        ASSERT(r.samples);
        memcpy(r.samples, rb.results[0].samples, r.nsamples * sizeof *r.samples);
        ASSERT_OK(gb_results_add(&rb, &r));
    }
    const struct gb_results *sides[2][2] = {{&ra, &rb}, {&rb, &ra}};
    for (int s = 0; s < 2; s++) {
        ASSERT_OK(gb_compare_results(sides[s][0], "a.json", sides[s][1], "b.json", &o, &c));
        ASSERT_EQ(c.nrows, 3);
        ASSERT_EQ(c.matched, 1);
        size_t dups = 0;
        for (size_t i = 0; i < c.nrows; i++) {
            if (!strstr(c.rows[i].note, "duplicate case"))
                continue;
            dups++;
            ASSERT_STR(c.rows[i].note, s ? "duplicate case in BASE (the first is compared)"
                                         : "duplicate case in NEW (the first is compared)");
        }
        ASSERT_EQ(dups, 2);
        ASSERT_EQ(c.counts[GB_VERDICT_NEW] + c.counts[GB_VERDICT_MISSING], 0);
        ASSERT_EQ(c.regressions, 0);
        gb_comparison_free(&c);
    }
    gb_results_free(&ra);
    gb_results_free(&rb);
}

/* The closing line counts NEW and MISSING, which are no pair: it says how many cases are in one
 * file only, so that its counts adding up to more than the pairs is no contradiction. */
TEST(compare_summary_says_cases_in_one_file_only)
{
    struct gb_compare_opts o;
    gb_compare_opts_default(&o);
    struct gb_results ra, rb;
    one_case_run(&ra, 15.22);
    one_case_run(&rb, 15.22);
    /* a second case in each file, named apart: "add" only in BASE, "mul" only in NEW */
    struct gb_results *both[] = {&ra, &rb};
    for (size_t k = 0; k < 2; k++) {
        struct gb_result r = both[k]->results[0];
        snprintf(r.case_name, sizeof r.case_name, "%s", k ? "mul" : "add");
        r.samples = malloc(r.nsamples * sizeof *r.samples);
        ASSERT(r.samples);
        memcpy(r.samples, both[k]->results[0].samples, r.nsamples * sizeof *r.samples);
        ASSERT_OK(gb_results_add(both[k], &r));
    }
    struct gb_comparison c;
    ASSERT_OK(gb_compare_results(&ra, "a.json", &rb, "b.json", &o, &c));
    struct gb_doc d;
    ASSERT_OK(gb_compare_doc(&c, false, &d));
    ASSERT(d.verdict);
    ASSERT_CONTAINS(d.verdict, "1 pair compared and 2 cases in one file only: ");
    ASSERT_CONTAINS(d.verdict, "1 NEW, 1 MISSING");
    gb_doc_free(&d);
    gb_comparison_free(&c);
    ASSERT_OK(gb_compare_results(&ra, "a.json", &ra, "a.json", &o, &c));
    ASSERT_OK(gb_compare_doc(&c, false, &d));
    ASSERT_CONTAINS(d.verdict, "2 pairs compared: 2 SAME");
    gb_doc_free(&d);
    gb_comparison_free(&c);
    gb_results_free(&ra);
    gb_results_free(&rb);
}

/* A file whose run did not finish (stopped, or still being written: every write before the last
 * says so) is named as one that did not finish, not only as interrupted. */
TEST(compare_names_a_run_that_did_not_finish)
{
    struct gb_compare_opts o;
    gb_compare_opts_default(&o);
    struct gb_results ra, rb;
    one_case_run(&ra, 15.22);
    one_case_run(&rb, 15.22);
    rb.run.interrupted = true;
    struct gb_comparison c;
    ASSERT_OK(gb_compare_results(&ra, "a.json", &rb, "b.json", &o, &c));
    ASSERT_CONTAINS(c.notes, "NEW did not finish (interrupted, or still running)");
    gb_comparison_free(&c);
    ASSERT_OK(gb_compare_results(&rb, "b.json", &ra, "a.json", &o, &c));
    ASSERT_CONTAINS(c.notes, "BASE did not finish (interrupted, or still running)");
    gb_comparison_free(&c);
    gb_results_free(&ra);
    gb_results_free(&rb);
}

/* With no reference runs, one case beyond the default floor cannot be told from run-to-run noise
 * (on the 2-core VM single cases moved 2-6x between runs of one build, whole runs by at most 1 /
 * 1.55 on their median case): alone it is UNSTABLE, exit 0; a run slower as a whole (its median
 * case beyond 1/1.6) makes the cases that far below SLOWER, exit 3. Planted: one case at 0.5x,
 * every case at 0.5x, every case at 0.8x (within the whole-run bound: no regression). */
TEST(compare_two_files_run_as_a_whole)
{
    struct gb_compare_opts o;
    gb_compare_opts_default(&o);
    const double same[6] = {1, 1, 1, 1, 1, 1}, one[6] = {1, 1, 0.5, 1, 1, 1},
                 half[6] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, most[6] = {0.8, 0.8, 0.8, 0.8, 0.8, 0.8};
    const double *const planted[] = {one, half, most};
    const size_t want[] = {0, 6, 0};
    for (size_t p = 0; p < 3; p++) {
        struct gb_results ra, rb;
        six_case_run(&ra, same);
        six_case_run(&rb, planted[p]);
        struct gb_comparison c;
        ASSERT_OK(gb_compare_results(&ra, "a.json", &rb, "b.json", &o, &c));
        ASSERT_EQ(c.nrows, 6);
        ASSERT_EQ(c.run_shift_n, 6);
        ASSERT_MSG(c.regressions == want[p], "planted %zu: %zu regressions; notes: %s", p,
                   c.regressions, c.notes);
        if (want[p])
            ASSERT_CONTAINS(c.notes, "as a whole");
        for (size_t i = 0; i < c.nrows; i++)
            if (c.rows[i].j.ratio < 0.9)
                ASSERT_MSG(c.rows[i].j.verdict ==
                               (want[p] ? GB_VERDICT_SLOWER : GB_VERDICT_UNSTABLE),
                           "planted %zu, row %zu: %s", p, i, gb_verdict_name(c.rows[i].j.verdict));
        gb_comparison_free(&c);
        gb_results_free(&ra);
        gb_results_free(&rb);
    }
}

/* Two files know within-run noise only: two runs of one build that differ by 7% with +-0.5%
 * samples are "significant", and were SLOWER (exit 3) on every A/A pair of results/reference/.
 * A change inside the run-to-run floor is UNSTABLE: the stated --run-noise (10%), or the range
 * the case's reference runs showed (expectations), widened by the threshold. */
TEST(compare_two_files_run_to_run_floor)
{
    struct gb_compare_opts o;
    gb_compare_opts_default(&o);
    char why[256];
    ASSERT_EQ(two_runs(100, 93, &o, why, sizeof why), GB_VERDICT_UNSTABLE);
    ASSERT_CONTAINS(why, "run-to-run noise (10%, --run-noise");
    /* Beyond the default floor, a case with no reference runs alone is no regression. */
    ASSERT_EQ(two_runs(100, 85, &o, why, sizeof why), GB_VERDICT_UNSTABLE);
    ASSERT_CONTAINS(why, "judged with the run as a whole");
    ASSERT_EQ(two_runs(100, 115, &o, why, sizeof why), GB_VERDICT_UNSTABLE);
    /* A stated floor judges it alone. */
    ASSERT_OK(gb_compare_set_option(&o, "run-noise", "10%"));
    ASSERT_EQ(two_runs(100, 85, &o, why, sizeof why), GB_VERDICT_SLOWER);
    ASSERT_EQ(two_runs(100, 115, &o, why, sizeof why), GB_VERDICT_FASTER);
    ASSERT_OK(gb_compare_set_option(&o, "run-noise", "0"));
    ASSERT_EQ(two_runs(100, 93, &o, why, sizeof why), GB_VERDICT_SLOWER); /* the old rule */
    ASSERT_OK(gb_compare_set_option(&o, "run-noise", "30%"));
    ASSERT_NEAR(o.run_noise, 0.30, 1e-12);
    ASSERT_EQ(two_runs(100, 80, &o, why, sizeof why), GB_VERDICT_UNSTABLE);
    ASSERT(gb_compare_set_option(&o, "run-noise", "fast") == GB_EINVAL);

    /* Calibrated: three reference runs of the case at 90, 100 and 140 GB/s: R is the larger of
     * 140/90 x 1.05 - 1 = 63% and e^(3 sqrt2 spread) - 1 = 169% (spread 0.233 of 3 runs). */
    struct gb_expect e;
    gb_expect_init(&e);
    const double ref[3] = {90, 100, 140};
    for (int k = 0; k < 3; k++) {
        struct gb_results rr;
        one_case_run(&rr, ref[k]);
        ASSERT_OK(gb_expect_add(&e, &rr, NULL));
        gb_results_free(&rr);
    }
    ASSERT_OK(gb_expect_finish(&e));
    gb_compare_opts_default(&o);
    o.expect = &e;
    /* -43% is inside: UNSTABLE; -68% is beyond: SLOWER. */
    ASSERT_EQ(two_runs(140, 80, &o, why, sizeof why), GB_VERDICT_UNSTABLE);
    ASSERT_CONTAINS(why, "reference runs");
    ASSERT_EQ(two_runs(140, 45, &o, why, sizeof why), GB_VERDICT_SLOWER);
    gb_expect_free(&e);
}

/* A suggestion raises no alarm on the runs it saw: three runs of a case with 3 samples each
 * (serve's requests: never significant at alpha 0.01) whose medians are 100, 50 and 152 GB/s
 * were suggested 0% (the smallest, 1%), which the nights' gate then applies. */
TEST(compare_calibrate_suggestion_covers_unsignificant_spread)
{
    struct gb_results runs[3];
    const double med[3] = {100, 50, 152};
    for (int k = 0; k < 3; k++) {
        one_case_run(&runs[k], med[k]);
        struct gb_result *r = &runs[k].results[0];
        r->nsamples = 3;
        gb_stats_compute(r->samples, r->nsamples, &r->stats);
        r->value = r->stats.median;
    }
    const char *paths[3] = {"r1.json", "r2.json", "r3.json"};
    struct gb_compare_opts o;
    gb_compare_opts_default(&o);
    struct gb_calibration cal;
    ASSERT_OK(gb_calibrate(runs, paths, 3, &o, &cal));
    ASSERT_EQ(cal.n, 1);
    double spread = runs[2].results[0].value / runs[1].results[0].value - 1.0; /* ~204% */
    ASSERT_MSG(cal.c[0].needed >= spread - 1e-9, "needed %g, the runs are %g apart",
               cal.c[0].needed, spread);
    ASSERT(gb_calibrate_suggest(cal.c[0].needed) > spread);
    gb_calibration_free(&cal);
    for (int k = 0; k < 3; k++)
        gb_results_free(&runs[k]);
}

TEST(compare_set_options)
{
    struct gb_compare_opts o;
    gb_compare_opts_default(&o);
    ASSERT_NEAR(o.alpha, 0.01, 0);
    ASSERT_NEAR(o.threshold, 0.05, 0);
    ASSERT_OK(gb_compare_set_option(&o, "threshold", "7%"));
    ASSERT_NEAR(o.threshold, 0.07, 1e-12);
    ASSERT_OK(gb_compare_set_option(&o, "suite-threshold", "transfer=0.2"));
    ASSERT_NEAR(gb_compare_threshold(&o, "transfer"), 0.2, 1e-12);
    ASSERT_NEAR(gb_compare_threshold(&o, "memory"), 0.07, 1e-12);
    ASSERT_OK(gb_compare_set_option(&o, "suite-threshold", "transfer=30%"));
    ASSERT_NEAR(gb_compare_threshold(&o, "transfer"), 0.3, 1e-12);
    ASSERT_EQ(o.nsuite_thresholds, 1);
    ASSERT_OK(gb_compare_set_option(&o, "alpha", "0.05"));
    ASSERT_NEAR(o.alpha, 0.05, 1e-12);
    ASSERT_OK(gb_compare_set_option(&o, "fail-on-faster", NULL));
    ASSERT(o.fail_on_faster);
    ASSERT_OK(gb_compare_set_option(&o, "across-devices", NULL));
    ASSERT(o.across_devices);
    /* A bad value is refused with a message and changes nothing. */
    ASSERT_EQ(gb_compare_set_option(&o, "threshold", "x"), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "--threshold wants");
    ASSERT_NEAR(o.threshold, 0.07, 1e-12);
    ASSERT_EQ(gb_compare_set_option(&o, "alpha", "2"), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "--alpha wants");
    ASSERT_NEAR(o.alpha, 0.05, 1e-12);
    ASSERT_EQ(gb_compare_set_option(&o, "suite-threshold", "memory"), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "SUITE=FRACTION");
    ASSERT_EQ(gb_compare_set_option(&o, "threshold", NULL), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "--threshold needs a value");
    ASSERT_EQ(gb_compare_set_option(&o, "changes", NULL), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "not a compare option");
}

/* ---- on real files ------------------------------------------------------------------------- */

/* Large copies only: on PoCL a 16 MiB copy is a memcpy bound by memory bandwidth, the quietest
 * thing this machine measures (6 in-process A/A runs while other builds ran: medians within
 * 3.5% of each other; `gpubench calibrate` shows it). Small copies and the device-memory
 * kernels move by 10-100% between runs on a loaded 2-core VM, because their samples are not
 * independent of what else the cores run: a run started during someone's compile is slower
 * throughout, which the Mann-Whitney test, seeing only that run's samples, calls significant. */
static const char aa_profile[] =
    "name: aa\n"
    "measure: {warmup_runs: 2, warmup_time: 5ms, min_samples: 10, max_samples: 30,\n"
    "          max_noise: 0.02, max_time: 200ms, min_sample_time: 2ms}\n"
    "suites:\n"
    "  - suite: transfer\n"
    "    params: {op: [h2d, d2h, d2d], memory: pinned, mode: async, size: [16MiB]}\n";

/* The injected-slowdown test needs a few more kinds of case around the one it slows. */
static const char mixed_profile[] =
    "name: mixed\n"
    "measure: {warmup_runs: 2, warmup_time: 5ms, min_samples: 10, max_samples: 30,\n"
    "          max_noise: 0.02, max_time: 150ms, min_sample_time: 2ms}\n"
    "suites:\n"
    "  - suite: transfer\n"
    "    params: {op: [h2d, d2h], memory: pinned, mode: async, size: [64KiB, 16MiB]}\n"
    "  - suite: memory\n"
    "    params: {op: [copy, triad], type: float, wg: 256, size: 8MiB}\n"
    "  - suite: launch\n"
    "    params: {op: latency}\n";

static void run_profile(const char *dir, const char *name, const char *profile, const char *file)
{
    char prof[1024];
    snprintf(prof, sizeof prof, "%s/%s.yaml", dir, name);
    gb_test_write_file(prof, profile);
    int rc = sh("%s run %s -q -o %s/%s 2>&1", GB_TEST_EXE, prof, dir, file);
    ASSERT_MSG(rc == 0, "run %s: exit %d: %s", name, rc, out);
}

TEST_TIMEOUT(compare_two_runs_same_build_exit0, 120)
{
    const char *dir = gb_test_tmpdir();
    run_profile(dir, "aa", aa_profile, "a.json");
    run_profile(dir, "aa", aa_profile, "b.json");
    /* 25%: seven times the run-to-run spread calibrated for these cases, and still a quarter of
     * the 2x a CPU device loses when another process takes one of its two cores for a whole
     * run. The gate's default (5%) is for dedicated GPUs; `gpubench calibrate` sets it. */
    int rc = sh("cd %s && %s compare a.json b.json --threshold 0.25 2>&1", dir, GB_TEST_EXE);
    for (int pair = 2; rc == 3 && pair <= 3; pair++) {
        /* The nightly job's confirmation rule (scripts/nightly.sh): a regression must repeat.
         * Here one did not have to be real: while 5 other jobs shared this VM, one run in about
         * 25 ran its first case at half speed, in CI an A whose pinned H2D ran 6.6 GB/s against
         * the 5-6 of most runs made two B runs "slower", and on 2026-12-02 three CI runs in a
         * row saw one of the three copies swing 25-46% between back-to-back runs of one build
         * (H2D +46%, D2D -36% in one pair), while the same runs alone passed 9 times in 10. A
         * fresh pair is compared, twice at most: three A/A pairs of this build must not all
         * regress. */
        printf("comparison %d raised an alarm (a loaded machine?); confirming:\n%s", pair - 1, out);
        char a[16], b[16];
        snprintf(a, sizeof a, "a%d.json", pair);
        snprintf(b, sizeof b, "b%d.json", pair);
        run_profile(dir, "aa", aa_profile, a);
        run_profile(dir, "aa", aa_profile, b);
        rc = sh("cd %s && %s compare %s %s --threshold 0.25 2>&1", dir, GB_TEST_EXE, a, b);
    }
    ASSERT_MSG(rc == 0, "A/A compare exit %d:\n%s", rc, out);
    ASSERT_CONTAINS(out, "3 pairs compared");
    ASSERT_CONTAINS(out, "no regression (exit 0)");
    ASSERT_EQ(gb_test_count(out, "SLOWER"), 0);
}

/* Reads a results file, slows one case down by 10% (its samples' time x 1.1) and writes the
 * result elsewhere: the only difference between the two files. Returns the slowed row's index. */
static size_t inject_slowdown(const char *in, const char *outp, char *what, size_t whatlen)
{
    struct gb_results rs;
    ASSERT_OK(gb_results_read(in, &rs));
    /* The quietest ok case with enough samples: a 10% step there is beyond doubt. */
    size_t pick = SIZE_MAX;
    double best = INFINITY;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        double noise = r->stats.ci95 / r->stats.mean;
        if (r->status == GB_STATUS_OK && r->nsamples >= 8 && noise < best) {
            best = noise;
            pick = i;
        }
    }
    ASSERT_MSG(pick != SIZE_MAX, "no ok case with 8 samples in %s", in);
    struct gb_result *r = &rs.results[pick];
    /* A machine busy with other work can leave no case quiet enough for a 10% step to be beyond
     * doubt; the test's premise then does not hold, which is a skip with the figure, not a
     * failure of compare. */
    if (!(best < 0.03))
        SKIP("the machine is too noisy for this test: the quietest case is %.1f%% noisy "
             "(a 10%% step needs < 3%%)",
             100 * best);
    double f = r->better == GB_BETTER_LOWER ? 1.1 : 1.0 / 1.1;
    for (size_t k = 0; k < r->nsamples; k++)
        r->samples[k] *= f;
    gb_stats_compute(r->samples, r->nsamples, &r->stats);
    r->value = r->stats.median;
    char params[256];
    gb_params_format(&r->params, params, sizeof params);
    snprintf(what, whatlen, "%s %s %s", r->suite, r->case_name, params);
    ASSERT_OK(gb_results_write(&rs, outp));
    gb_results_free(&rs);
    return pick;
}

TEST_TIMEOUT(compare_injected_slowdown_is_the_only_regression, 120)
{
    const char *dir = gb_test_tmpdir();
    run_profile(dir, "mixed", mixed_profile, "base.json");
    char base[1024], slow[1024], what[512];
    snprintf(base, sizeof base, "%s/base.json", dir);
    snprintf(slow, sizeof slow, "%s/slow.json", dir);
    size_t pick = inject_slowdown(base, slow, what, sizeof what);

    /* One file and its copy with one case slowed: nothing else differs, no run-to-run noise. */
    int rc = sh("cd %s && %s compare base.json slow.json --run-noise 0 --json c.json --markdown "
                "c.md --junit c.xml 2>&1",
                dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "compare exit %d (want 3):\n%s", rc, out);
    ASSERT_EQ(gb_test_count(out, "SLOWER!"), 1);
    ASSERT_CONTAINS(out, "1 regression (exit 3)");

    /* The JSON says which: exactly the row we slowed, at about -9.1% (1/1.1 - 1). */
    char path[1100];
    snprintf(path, sizeof path, "%s/c.json", dir);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    ASSERT_MSG(root, "c.json: %s", je.text);
    ASSERT_STR(json_string_value(json_object_get(root, "schema")), "gpubench-compare/1");
    ASSERT_EQ(json_integer_value(json_object_get(root, "regressions")), 1);
    ASSERT_EQ(json_integer_value(json_object_get(root, "exit_status")), 3);
    json_t *row = json_array_get(json_object_get(root, "rows"), pick);
    ASSERT_STR(json_string_value(json_object_get(row, "verdict")), "SLOWER");
    ASSERT(json_is_true(json_object_get(row, "regression")));
    ASSERT_NEAR(json_real_value(json_object_get(row, "change")), 1 / 1.1 - 1, 1e-6);
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(root, "rows"), i, x)
    {
        if (i != pick)
            ASSERT_MSG(!json_is_true(json_object_get(x, "regression")), "row %zu also regressed",
                       i);
    }
    json_decref(root);

    snprintf(path, sizeof path, "%s/c.md", dir);
    ASSERT_EQ(sh("cat %s", path), 0);
    ASSERT_CONTAINS(out, "| SLOWER! |");
    ASSERT_EQ(sh("grep -c 'failures=\"1\"' %s/c.xml", dir), 0);
    (void)what;

    /* Policy: swapping the files makes the slowed case FASTER, which fails the gate only when
     * asked. */
    ASSERT_EQ(sh("cd %s && %s compare slow.json base.json --run-noise 0 2>&1", dir, GB_TEST_EXE),
              0);
    ASSERT_EQ(gb_test_count(out, "\nFASTER "), 1);
    /* Its change reads with its sign, as the header's "+: faster" says. */
    const char *faster = strstr(out, "\nFASTER ");
    ASSERT(faster && memchr(faster, '+', strcspn(faster + 1, "\n")));
    ASSERT_EQ(sh("cd %s && %s compare slow.json base.json --run-noise 0 --fail-on-faster 2>&1", dir,
                 GB_TEST_EXE),
              3);
    /* A threshold above the slowdown lets it pass. */
    ASSERT_EQ(
        sh("cd %s && %s compare base.json slow.json --threshold 15%% -q 2>&1", dir, GB_TEST_EXE),
        0);
}

TEST_TIMEOUT(compare_junit_parses_as_xml, 120)
{
    if (sh("command -v xmllint") != 0)
        SKIP("xmllint is not installed (Debian libxml2-utils; scripts/bootstrap.sh installs it)");
    const char *dir = gb_test_tmpdir();
    run_profile(dir, "mixed", mixed_profile, "base.json");
    char base[1024], slow[1024], what[512];
    snprintf(base, sizeof base, "%s/base.json", dir);
    snprintf(slow, sizeof slow, "%s/slow.json", dir);
    inject_slowdown(base, slow, what, sizeof what);
    ASSERT_EQ(sh("cd %s && %s compare base.json slow.json --run-noise 0 --junit c.xml -q", dir,
                 GB_TEST_EXE),
              3);
    int rc = sh("xmllint --noout %s/c.xml 2>&1", dir);
    ASSERT_MSG(rc == 0, "xmllint: %s", out);
    /* One failure, in the testsuite of the slowed case's suite; the counts add up. */
    ASSERT_EQ(sh("xmllint --xpath 'count(//testcase/failure)' %s/c.xml", dir), 0);
    ASSERT_EQ(atoi(out), 1);
    ASSERT_EQ(sh("xmllint --xpath 'count(//testcase)' %s/c.xml", dir), 0);
    int cases = atoi(out);
    ASSERT_EQ(sh("xmllint --xpath 'string(/testsuites/@tests)' %s/c.xml", dir), 0);
    ASSERT_EQ(atoi(out), cases);
    ASSERT(cases >= 5);
    /* The one JUnit layout: the testsuite is what was judged, a case's classname its suite and
     * its name "suite/case/params" (no path: the files are in dir). */
    ASSERT_EQ(sh("xmllint --xpath 'string(/testsuites/testsuite/@name)' %s/c.xml", dir), 0);
    ASSERT_STR(out, "gpubench compare mixed\n");
    ASSERT_EQ(sh("xmllint --xpath 'count(//testcase[starts-with(@name, concat(@classname, "
                 "\"/\"))])' %s/c.xml",
                 dir),
              0);
    ASSERT_EQ(atoi(out), cases);
    ASSERT_EQ(sh("grep -c -e 'name=\"[^\"]*json' -e 'name=\"[^\"]*/tmp' %s/c.xml", dir), 1);
    /* Stdout as the file: '-' writes the XML alone; the names are the same whatever the
     * verdicts and the files (stable from night to night). */
    ASSERT_EQ(sh("cd %s && %s compare base.json base.json --junit - > same.xml && xmllint --noout "
                 "same.xml 2>&1",
                 dir, GB_TEST_EXE),
              0);
    ASSERT_EQ(sh("cd %s && xmllint --xpath '//testcase/@name' c.xml > n1 && xmllint --xpath "
                 "'//testcase/@name' same.xml > n2 && cmp n1 n2 2>&1",
                 dir),
              0);
}

TEST_TIMEOUT(compare_bad_inputs_exit2, 120)
{
    const char *dir = gb_test_tmpdir();
    run_profile(dir, "aa", aa_profile, "a.json");
    char a[1024];
    snprintf(a, sizeof a, "%s/a.json", dir);
    /* Truncated: the first half of a real file. */
    ASSERT_EQ(sh("cd %s && head -c $(( $(wc -c < a.json) / 2 )) a.json > trunc.json && "
                 "sed 's#gpubench-results/2#gpubench-results/9#' a.json > schema.json && "
                 ": > empty.json && echo '[1, 2]' > array.json",
                 dir),
              0);
    struct {
        const char *file, *msg;
    } bad[] = {
        {"trunc.json", "truncated"},
        {"empty.json", "empty file"},
        {"schema.json", "schema is \"gpubench-results/9\", expected \"gpubench-results/2\""},
        {"array.json", "array.json"},
        {"missing.json", "cannot open results file"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = sh("cd %s && %s compare a.json %s 2>&1", dir, GB_TEST_EXE, bad[i].file);
        ASSERT_MSG(rc == 2, "%s: exit %d: %s", bad[i].file, rc, out);
        ASSERT_CONTAINS(out, bad[i].msg);
        ASSERT_CONTAINS(out, "gpubench compare:");
        rc = sh("cd %s && %s compare %s a.json 2>&1", dir, GB_TEST_EXE, bad[i].file);
        ASSERT_MSG(rc == 2, "%s as BASE: exit %d: %s", bad[i].file, rc, out);
    }
    /* Usage. */
    ASSERT_EQ(sh("%s compare %s 2>&1", GB_TEST_EXE, a), 2);
    ASSERT_CONTAINS(out, "expects two results files");
    ASSERT_EQ(sh("%s compare %s %s --threshold -3 2>&1", GB_TEST_EXE, a, a), 2);
    ASSERT_CONTAINS(out, "--threshold wants");
    ASSERT_EQ(sh("%s compare %s %s --frobnicate 2>&1", GB_TEST_EXE, a, a), 2);
    ASSERT_CONTAINS(out, "unknown option");

    /* No case in common: the same file with every case renamed. */
    struct gb_results rs;
    ASSERT_OK(gb_results_read(a, &rs));
    for (size_t i = 0; i < rs.nresults; i++)
        snprintf(rs.results[i].suite, sizeof rs.results[i].suite, "other");
    char other[1100];
    snprintf(other, sizeof other, "%s/other.json", dir);
    ASSERT_OK(gb_results_write(&rs, other));
    gb_results_free(&rs);
    ASSERT_EQ(sh("%s compare %s %s 2>&1", GB_TEST_EXE, a, other), 2);
    ASSERT_CONTAINS(out, "no case in common");

    /* Another device: refused, unless asked, which pairs the devices and says what differs. */
    ASSERT_OK(gb_results_read(a, &rs));
    for (size_t d = 0; d < rs.ndevices; d++) {
        snprintf(rs.devices[d].info.name, sizeof rs.devices[d].info.name, "Some Other GPU");
        rs.devices[d].info.compute_units = 132;
    }
    char gpu[1100];
    snprintf(gpu, sizeof gpu, "%s/gpu.json", dir);
    ASSERT_OK(gb_results_write(&rs, gpu));
    gb_results_free(&rs);
    ASSERT_EQ(sh("%s compare %s %s 2>&1", GB_TEST_EXE, a, gpu), 2);
    ASSERT_CONTAINS(out, "different devices");
    ASSERT_CONTAINS(out, "--across-devices");
    int rc = sh("%s compare %s %s --across-devices 2>&1", GB_TEST_EXE, a, gpu);
    ASSERT_MSG(rc == 0, "across devices: exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "across devices: BASE opencl#0");
    ASSERT_CONTAINS(out, "differs in: name");
    ASSERT_CONTAINS(out, "compute units");
    ASSERT_CONTAINS(out, "3 pairs compared");
}

TEST_TIMEOUT(compare_calibrate_aa_runs, 120)
{
    const char *dir = gb_test_tmpdir();
    char prof[1024];
    snprintf(prof, sizeof prof, "%s/aa.yaml", dir);
    gb_test_write_file(prof, aa_profile);
    int rc = sh("cd %s && %s calibrate aa.yaml -n 3 -q --dir runs --json cal.json 2>&1", dir,
                GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "calibrate exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "A/A calibration: 3 runs of profile 'aa'");
    ASSERT_CONTAINS(out, "6 ordered comparisons per case");
    ASSERT_CONTAINS(out, "No false alarm in these runs with thresholds of at least: transfer");
    ASSERT_CONTAINS(out, "gpubench compare BASE NEW --threshold");
    char path[1100];
    snprintf(path, sizeof path, "%s/runs/run-3.json", dir);
    struct gb_results rs;
    ASSERT_OK(gb_results_read(path, &rs));
    ASSERT_EQ(rs.nresults, 3);
    gb_results_free(&rs);
    snprintf(path, sizeof path, "%s/cal.json", dir);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    ASSERT_MSG(root, "cal.json: %s", je.text);
    ASSERT_STR(json_string_value(json_object_get(root, "schema")), "gpubench-calibration/1");
    ASSERT_EQ(json_array_size(json_object_get(root, "cases")), 3);
    /* The no-alarm threshold is what it claims: comparing every ordered pair with it raises no
     * alarm. */
    double t = json_real_value(json_object_get(root, "no_alarm_threshold"));
    json_decref(root);
    for (int i = 1; i <= 3; i++)
        for (int j = 1; j <= 3; j++) {
            if (i == j)
                continue;
            rc = sh("cd %s/runs && %s compare run-%d.json run-%d.json --threshold %.6f -q 2>&1",
                    dir, GB_TEST_EXE, i, j, t + 1e-6);
            ASSERT_MSG(rc == 0, "run-%d vs run-%d at the no-alarm threshold %g: exit %d: %s", i, j,
                       t, rc, out);
        }
    /* The same analysis from the files. */
    rc = sh("cd %s/runs && %s calibrate --from run-1.json run-2.json run-3.json 2>&1", dir,
            GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "calibrate --from exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "3 runs of profile 'aa'");
    ASSERT_EQ(sh("cd %s/runs && %s calibrate --from run-1.json 2>&1", dir, GB_TEST_EXE), 2);
    ASSERT_EQ(sh("%s calibrate %s -n 1 2>&1", GB_TEST_EXE, prof), 2);
    ASSERT_CONTAINS(out, "2..100 runs");
}

TEST_TIMEOUT(compare_baseline_promotes_a_run, 120)
{
    const char *dir = gb_test_tmpdir();
    run_profile(dir, "aa", aa_profile, "a.json");
    int rc = sh("cd %s && %s baseline a.json --dir base --print-path", dir, GB_TEST_EXE);
    ASSERT_EQ(rc, 0);
    char expect[2048];
    first_line(expect, sizeof expect);
    ASSERT_CONTAINS(expect, "base/");
    /* <host>-<device>-...: the device as a.json names it (PoCL's "pthread-...", Intel's runtime
     * the CPU's own name), spelled as file names are: the CLI prints the library's name. */
    char path[2048];
    snprintf(path, sizeof path, "%s/a.json", dir);
    struct gb_results rs;
    ASSERT_OK(gb_results_read(path, &rs));
    ASSERT_U64(rs.ndevices, >=, 1);
    char name[512], want[600];
    gb_baseline_name(&rs, name, sizeof name);
    gb_results_free(&rs);
    ASSERT_MSG(name[0], "no baseline name");
    snprintf(want, sizeof want, "/%s", name);
    ASSERT_CONTAINS(expect, want);
    ASSERT_CONTAINS(expect, ".json");
    rc = sh("cd %s && %s baseline a.json --dir base 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "baseline exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "baseline: a.json -> ");
    ASSERT_EQ(sh("cd %s && cmp a.json %s", dir, expect), 0);
    ASSERT_EQ(sh("cd %s && %s compare %s a.json -q", dir, GB_TEST_EXE, expect), 0);
    ASSERT_EQ(sh("cd %s && %s baseline nothere.json 2>&1", dir, GB_TEST_EXE), 2);
}

TEST_TIMEOUT(compare_nightly_script, 240)
{
    const char *dir = gb_test_tmpdir();
    char prof[1024];
    snprintf(prof, sizeof prof, "%s/aa.yaml", dir);
    gb_test_write_file(prof, aa_profile);
    /* First night: no baseline yet, so the run becomes it (and its first night). */
    int rc = sh("cd %s && GPUBENCH=%s RESULTS_DIR=%s/results %s/scripts/nightly.sh %s "
                "--threshold 0.25 2>&1",
                dir, GB_TEST_EXE, dir, GB_TEST_SRCDIR, prof);
    ASSERT_MSG(rc == 0, "first night: exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "no baseline yet");
    ASSERT_CONTAINS(out, "1 night of at most 14");
    ASSERT_EQ(sh("ls %s/results/baselines/*.json | wc -l", dir), 0);
    ASSERT_STR(out, "1\n");
    /* ... with the outputs of every night: a CI job's report step reads junit.xml. */
    ASSERT_EQ(sh("cat %s/results/reports/*/junit.xml", dir), 0);
    ASSERT_CONTAINS(out, "<testsuites");
    ASSERT_CONTAINS(out, "failures=\"0\"");
    ASSERT_EQ(sh("grep -c LEARNING %s/results/reports/*/compare.md", dir), 0);
    /* Second night: compared against the one night (learning), reported, added. */
    rc = sh("cd %s && GPUBENCH=%s RESULTS_DIR=%s/results %s/scripts/nightly.sh %s "
            "--threshold 0.25 2>&1",
            dir, GB_TEST_EXE, dir, GB_TEST_SRCDIR, prof);
    ASSERT_MSG(rc == 0, "second night: exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "3 cases compared against 1 night: 3 LEARNING -> no regression (exit 0)");
    ASSERT_CONTAINS(out, "2 nights of at most 14");
    ASSERT_EQ(sh("ls %s/results/history/*.json | wc -l", dir), 0);
    ASSERT_STR(out, "2\n");
    /* Two reports (the first night's and tonight's), each with its comparison. */
    ASSERT_EQ(sh("ls %s/results/reports/*/index.html | wc -l", dir), 0);
    ASSERT_STR(out, "2\n");
    ASSERT_EQ(sh("ls %s/results/reports/*/compare.md %s/results/reports/*/junit.xml "
                 "%s/results/reports/*/compare.json | wc -l",
                 dir, dir, dir),
              0);
    ASSERT_STR(out, "6\n");
    /* The newest night is the baseline file, as before nights (newest by time: a second run in
     * the same second is STAMP-2.json, which sorts before STAMP.json by name). */
    ASSERT_EQ(sh("cmp $(ls -t %s/results/history/*.json | head -n 1) %s/results/baselines/*.json",
                 dir, dir),
              0);
    /* A baseline from before nights (the file alone) becomes the first night. */
    ASSERT_EQ(sh("rm -r %s/results/baselines/*/", dir), 0);
    rc = sh("cd %s && GPUBENCH=%s RESULTS_DIR=%s/results NIGHTS=5 %s/scripts/nightly.sh %s 2>&1",
            dir, GB_TEST_EXE, dir, GB_TEST_SRCDIR, prof);
    ASSERT_MSG(rc == 0, "third night: exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "from before nights, is the first night");
    ASSERT_CONTAINS(out, "3 cases compared against 1 night");
    ASSERT_CONTAINS(out, "2 nights of at most 5");
    /* --promote adds a run by hand (the first night's, the oldest by time); --restart starts
     * the nights over. */
    rc = sh("cd %s && GPUBENCH=%s RESULTS_DIR=%s/results %s/scripts/nightly.sh --promote "
            "$(ls -tr %s/results/history/*.json | head -n 1) 2>&1",
            dir, GB_TEST_EXE, dir, GB_TEST_SRCDIR, dir);
    ASSERT_MSG(rc == 0, "--promote: exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "3 nights of at most 14");
    rc = sh("cd %s && GPUBENCH=%s RESULTS_DIR=%s/results %s/scripts/nightly.sh --promote "
            "$(ls -tr %s/results/history/*.json | head -n 1) --restart 2>&1",
            dir, GB_TEST_EXE, dir, GB_TEST_SRCDIR, dir);
    ASSERT_MSG(rc == 0, "--promote --restart: exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "1 night of at most 14");
    ASSERT_EQ(sh("GPUBENCH=%s %s/scripts/nightly.sh 2>&1", GB_TEST_EXE, GB_TEST_SRCDIR), 2);
    ASSERT_CONTAINS(out, "--promote RESULTS.json [--restart]");
}

/* The case's param is found from the result alone (gb_result_case_param): the string param that
 * holds the case's name, wherever it stands; a suite whose cases have no name ("" case) keeps
 * every param, so that rows of a suite whose only axis is a size stay apart in compare (and in
 * the summary, fleet and report, which share the rule). */
TEST(compare_summary_case_param_follows_the_file)
{
    struct gb_result r = {0};
    snprintf(r.case_name, sizeof r.case_name, "copy");
    r.params.n = 2;
    r.params.name[0] = "size";
    r.params.v[0] = (struct gb_value){.type = GB_V_SIZE, .u.size = 4096};
    r.params.name[1] = "op";
    r.params.v[1].type = GB_V_STR;
    snprintf(r.params.v[1].s, sizeof r.params.v[1].s, "copy");
    ASSERT_EQ(gb_result_case_param(&r), 1);
    struct gb_params rest;
    gb_result_other_params(&r, &rest);
    ASSERT_EQ(rest.n, 1);
    ASSERT_STR(rest.name[0], "size");
    r.case_name[0] = '\0'; /* a suite that names no case axis */
    ASSERT_EQ(gb_result_case_param(&r), 2);
    gb_result_other_params(&r, &rest);
    ASSERT_EQ(rest.n, 2);

    /* Two runs of a suite whose only axis is a size: two rows, told apart by their params. */
    struct gb_results ra, rb;
    struct gb_results *runs[] = {&ra, &rb};
    for (size_t k = 0; k < 2; k++) {
        one_case_run(runs[k], 100);
        struct gb_result *a = &runs[k]->results[0];
        snprintf(a->suite, sizeof a->suite, "toy");
        a->case_name[0] = '\0';
        a->params.n = 1;
        a->params.name[0] = "size";
        a->params.v[0] = (struct gb_value){.type = GB_V_SIZE, .u.size = 4096};
        struct gb_result b = *a;
        b.params.v[0].u.size = 65536;
        b.samples = malloc(b.nsamples * sizeof *b.samples);
        ASSERT(b.samples);
        memcpy(b.samples, a->samples, b.nsamples * sizeof *b.samples);
        ASSERT_OK(gb_results_add(runs[k], &b));
    }
    struct gb_compare_opts o;
    gb_compare_opts_default(&o);
    struct gb_comparison c;
    ASSERT_OK(gb_compare_results(&ra, "a.json", &rb, "b.json", &o, &c));
    ASSERT_EQ(c.nrows, 2);
    ASSERT_MSG(strcmp(c.rows[0].params, c.rows[1].params) != 0, "both rows show '%s'",
               c.rows[0].params);
    ASSERT_CONTAINS(c.rows[0].params, "size=");
    gb_comparison_free(&c);
    gb_results_free(&ra);
    gb_results_free(&rb);
}
