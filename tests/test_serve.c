/* The serve suite: the dynamic batcher against the M/D/1 queue's closed form
 * on a virtual clock (the same code the suite runs on the device), its batch limit and wait on a
 * virtual clock, and a real PoCL sweep: every request's output verified, the tail rising with
 * the offered load, a request whose output was never copied back caught. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "outputs/summary_out.h"
#include "outputs/writer.h"
#include "results/results.h"
#include "base/stats.h"
#include "base/units.h"
#include "base/util.h"
#include "run/config.h"
#include "run/plan.h"
#include "run/runner.h"
#include "run/suite.h"
#include "suites/suites.h"
#include "suites/serve_queue.h"
#include "test.h"

/* A virtual clock and a server whose batch of k takes base + per * k. */
struct vserver {
    double t; /* first: the clock of gb_test_vclock_now / _wait */
    double base, per;
    size_t largest;
};
static int v_serve(void *p, size_t first, size_t count)
{
    (void)first;
    struct vserver *v = p;
    v->t += v->base + v->per * (double)count;
    if (count > v->largest)
        v->largest = count;
    return 0;
}

/* M/D/1 (max_batch 1, no wait): the mean wait against Pollaczek-Khinchine, Wq = rho d /
 * (2 (1 - rho)), the share that never waits against 1 - rho, and the waits' p50/p90/p99 against
 * the closed-form distribution (gb_md1_wait_cdf at each quantile we measured). */
static void md1(double rho, uint64_t seed)
{
    const size_t n = 1000000;
    const double d = 1.0, lambda = rho / d;
    double *a = malloc(n * sizeof *a), *lat = malloc(n * sizeof *lat);
    ASSERT(a && lat);
    gb_serve_arrivals(a, n, lambda, seed);
    struct vserver v = {.t = 0, .base = d, .per = 0};
    const struct gb_serve_server srv = {
        .ctx = &v, .now = gb_test_vclock_now, .wait_until = gb_test_vclock_wait, .serve = v_serve};
    struct gb_serve_stats st;
    ASSERT_OK(gb_serve_run(&srv, a, n, 1, 0, 0, lat, &st));
    ASSERT_EQ(st.batches, n);
    ASSERT_EQ(st.largest_batch, 1);
    double sum = 0;
    size_t zero = 0;
    for (size_t i = 0; i < n; i++) {
        lat[i] -= d; /* the wait */
        ASSERT(lat[i] > -1e-9);
        sum += lat[i];
        zero += lat[i] < 1e-9;
    }
    const double wq = rho * d / (2 * (1 - rho)), mean = sum / (double)n;
    printf("rho %.2f: mean wait %.4f (P-K %.4f), no wait %.4f (1 - rho %.4f)\n", rho, mean, wq,
           (double)zero / (double)n, 1 - rho);
    /* 1e6 requests: the mean's standard error is about 1% at rho 0.8 (waits correlate over
     * ~1/(1-rho)^2 services); 5% cannot fail for a right batcher and an off-by-one cannot pass. */
    ASSERT_MSG(fabs(mean - wq) < 0.05 * wq, "mean wait %g, P-K %g", mean, wq);
    ASSERT_MSG(fabs((double)zero / (double)n - (1 - rho)) < 0.01, "P(W = 0) %g",
               (double)zero / (double)n);
    gb_sort_doubles(lat, n);
    const double qs[] = {0.9, 0.99};
    for (size_t j = 0; j < 2; j++) {
        const double w = lat[(size_t)ceil(qs[j] * (double)n) - 1];
        const double F = gb_md1_wait_cdf(w, lambda, d);
        printf("  p%g wait %.4f: closed-form CDF %.4f\n", 100 * qs[j], w, F);
        ASSERT_MSG(fabs(F - qs[j]) < (qs[j] > 0.95 ? 0.003 : 0.01), "p%g: F = %g", 100 * qs[j], F);
    }
    free(a);
    free(lat);
}

TEST(serve_md1_matches_the_closed_form)
{
    /* The closed form itself: P(W = 0) = 1 - rho, and the CDF rises to 1. */
    ASSERT(fabs(gb_md1_wait_cdf(0, 0.5, 1) - 0.5) < 1e-12);
    ASSERT(fabs(gb_md1_wait_cdf(30, 0.5, 1) - 1) < 1e-6);
    ASSERT(gb_md1_wait_cdf(2.5, 0.8, 1) < gb_md1_wait_cdf(3.5, 0.8, 1));
    md1(0.5, 11);
    md1(0.8, 12);
}

TEST(serve_batcher_keeps_its_limits)
{
    const size_t n = 20000;
    double *a = malloc(n * sizeof *a), *lat = malloc(n * sizeof *lat);
    ASSERT(a && lat);
    /* Light load (rho 0.1 at full batches): no request waits beyond max_wait for a batch, so
     * none's latency exceeds max_wait plus one batch at the limit, and batches stay small. */
    const double wait = 0.5, base = 0.1, per = 0.01;
    gb_serve_arrivals(a, n, 0.1 * 4 / (base + 4 * per), 3);
    struct vserver v = {.base = base, .per = per};
    struct gb_serve_server srv = {
        .ctx = &v, .now = gb_test_vclock_now, .wait_until = gb_test_vclock_wait, .serve = v_serve};
    struct gb_serve_stats st;
    ASSERT_OK(gb_serve_run(&srv, a, n, 4, wait, 0, lat, &st));
    ASSERT(st.largest_batch <= 4);
    size_t over = 0;
    for (size_t i = 0; i < n; i++)
        over += lat[i] > wait + 2 * (base + 4 * per) + 1e-9; /* behind at most one batch */
    ASSERT_MSG(over < n / 100, "%zu of %zu waited longer", over, n);
    /* Overload (2x the capacity with full batches): the batches fill to the limit. */
    gb_serve_arrivals(a, n, 2 * 4 / (base + 4 * per), 4);
    v = (struct vserver){.base = base, .per = per};
    ASSERT_OK(gb_serve_run(&srv, a, n, 4, wait, 0, lat, &st));
    ASSERT_EQ(st.largest_batch, 4);
    ASSERT_MSG((double)n / (double)st.batches > 3.9, "mean batch %g", (double)n / st.batches);
    /* No wait: a request alone on an idle server goes at once. */
    const double one[] = {1.0};
    v = (struct vserver){.base = base, .per = per};
    ASSERT_OK(gb_serve_run(&srv, one, 1, 8, 0, 0, lat, &st));
    ASSERT(fabs(lat[0] - (base + per)) < 1e-12);
    ASSERT_EQ(gb_serve_run(&srv, one, 1, 0, 0, 0, lat, &st), GB_EINVAL);
    free(a);
    free(lat);
}

/* The p99 of the requests served (NaN latencies: dropped) in lat[0..n). */
static double served_p99(double *lat, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(lat[i]))
            lat[m++] = lat[i];
    gb_sort_doubles(lat, m);
    return m ? lat[(size_t)ceil(0.99 * (double)m) - 1] : NAN;
}

/* Overload at 10x the capacity (one request per batch, service 1): without a bound the queue,
 * and the tail with it, grows with the trace's length (landed: the suite's p99 115 ms at 1,000
 * requests and 6.98 s at 100,000, every one served); with a bound of 64 the requests that find it
 * full are dropped and counted, no served request waits behind more than 64, and the tail is the
 * same at either length. gb_serve_kept_up says the server kept up with a tenth of what came. */
TEST(serve_bounded_queue_drops_and_says_overload)
{
    const size_t n = 100000;
    double *a = malloc(n * sizeof *a), *lat = malloc(n * sizeof *lat);
    ASSERT(a && lat);
    struct vserver v;
    struct gb_serve_server srv = {
        .ctx = &v, .now = gb_test_vclock_now, .wait_until = gb_test_vclock_wait, .serve = v_serve};
    struct gb_serve_stats st;
    double p99[2][2]; /* [unbounded, bounded][1,000, 100,000 requests] */
    for (int bounded = 0; bounded < 2; bounded++)
        for (int len = 0; len < 2; len++) {
            const size_t m = len ? n : 1000;
            gb_serve_arrivals(a, m, 10.0, 21);
            v = (struct vserver){.base = 1};
            ASSERT_OK(gb_serve_run(&srv, a, m, 1, 0, bounded ? 64 : 0, lat, &st));
            ASSERT_EQ(st.served + st.dropped, m);
            ASSERT_EQ(st.dropped == 0, !bounded || m < 80);
            const double up = gb_serve_kept_up(a, m, &st, 1.0);
            ASSERT_MSG(up > 0.05 && up < 0.15, "kept up %g at 10x", up);
            for (size_t i = 0; i < m; i++)
                ASSERT(!bounded || isnan(lat[i]) ||
                       lat[i] <= 64 + 2 + 1e-9); /* 64 ahead, 1 served */
            p99[bounded][len] = served_p99(lat, m);
            printf("%s, %zu requests: p99 %.0f services, %zu dropped, kept up %.3f\n",
                   bounded ? "queue 64" : "no bound", m, p99[bounded][len], st.dropped, up);
        }
    ASSERT(p99[0][1] > 50 * p99[0][0]);                 /* unbounded: grows with the trace */
    ASSERT_NEAR(p99[1][1], p99[1][0], 0.1 * p99[1][0]); /* bounded: the same */
    free(a);
    free(lat);
}

/* The overload judgement on the virtual clock, the median of gb_serve_kept_up over 3 traces as
 * the suite takes it: no stable load (0.5, 0.95) of 100 to 256 requests in batches of 1 or 8 reads
 * overloaded in 100 draws (the last batch's service is left out of the span: without it, a short
 * trace's drain read up to 30% short), and every load of 2 does. */
TEST(serve_overload_judgement_has_no_false_alarm_at_stable_loads)
{
    double a[256], lat[256];
    struct vserver v;
    struct gb_serve_server srv = {
        .ctx = &v, .now = gb_test_vclock_now, .wait_until = gb_test_vclock_wait, .serve = v_serve};
    struct gb_serve_stats st;
    static const double loads[] = {0.5, 0.95, 2};
    static const size_t lens[] = {100, 256}, batches[] = {1, 8};
    for (size_t l = 0; l < 3; l++)
        for (size_t b = 0; b < 2; b++)
            for (size_t q = 0; q < 2; q++) {
                const double base = 0.1, per = 0.015, full = base + per * (double)batches[b];
                double lo = 1e9, hi = 0;
                for (uint64_t draw = 0; draw < 100; draw++) {
                    double u[3];
                    for (uint64_t t = 0; t < 3; t++) {
                        gb_serve_arrivals(a, lens[q], loads[l] * (double)batches[b] / full,
                                          1000 * draw + t);
                        v = (struct vserver){.base = base, .per = per};
                        ASSERT_OK(gb_serve_run(&srv, a, lens[q], batches[b], 0, 1024, lat, &st));
                        u[t] = gb_serve_kept_up(a, lens[q], &st, full);
                    }
                    gb_sort_doubles(u, 3);
                    const double up = u[1];
                    lo = up < lo ? up : lo;
                    hi = up > hi ? up : hi;
                }
                printf("load %.2f, batch %zu, %zu requests: kept up %.2f to %.2f\n", loads[l],
                       batches[b], lens[q], lo, hi);
                if (loads[l] < 1)
                    ASSERT_MSG(lo >= GB_SERVE_KEPT_UP_MIN, "load %g: %g", loads[l], lo);
                else
                    ASSERT_MSG(hi < GB_SERVE_KEPT_UP_MIN, "load %g: %g", loads[l], hi);
            }
}

/* ---- LoadGen's scenarios on the virtual clock ------------------------------------------- */

/* A server whose batch of k takes base + per k, and `slow` more on every `every`-th batch (the
 * planted slow request; every 0: none). */
struct slowserver {
    struct vserver v;
    size_t every, n;
    double slow;
};
static int s_serve(void *p, size_t first, size_t count)
{
    struct slowserver *s = p;
    v_serve(&s->v, first, count);
    if (s->every && ++s->n % s->every == 0)
        s->v.t += s->slow;
    return 0;
}

/* LoadGen's early-stopping minima: with none over the bound, ceil(ln(1 - c) / ln p) (44 for
 * p90, 459 for p99 at c = 0.99); with one, LoadGen's published 64 (SingleStream's "Processed at
 * least 64 queries") and 662 (MultiStream's p99). Each minimum passes and the one below fails. */
TEST(serve_early_stopping_minima_match_loadgen)
{
    ASSERT_EQ(gb_es_min_queries(0, 0.90, 0.99), 44);
    ASSERT_EQ(gb_es_min_queries(0, 0.99, 0.99), 459);
    ASSERT_EQ(gb_es_min_queries(1, 0.90, 0.99), 64);
    ASSERT_EQ(gb_es_min_queries(1, 0.99, 0.99), 662);
    static const double ps[] = {0.5, 0.9, 0.95, 0.99, 0.999}, cs[] = {0.9, 0.95, 0.99};
    for (size_t i = 0; i < 5; i++)
        for (size_t j = 0; j < 3; j++) {
            const uint64_t closed = (uint64_t)ceil(log(1 - cs[j]) / log(ps[i]));
            ASSERT_MSG(gb_es_min_queries(0, ps[i], cs[j]) == closed, "p %g c %g: %llu, %llu", ps[i],
                       cs[j], (unsigned long long)gb_es_min_queries(0, ps[i], cs[j]),
                       (unsigned long long)closed);
        }
    /* With overlatency queries: the least n whose binomial tail P(X <= t; n, 1 - p) is within
     * 1 - c, and growing with t by about 1 / (1 - p) a query over. */
    uint64_t prev = 0;
    for (uint64_t t = 0; t <= 20; t++) {
        const uint64_t n = gb_es_min_queries(t, 0.9, 0.99);
        ASSERT(gb_es_odds(n, t, 0.9) <= 0.01 && gb_es_odds(n - 1, t, 0.9) > 0.01);
        ASSERT(n > prev);
        if (t)
            ASSERT(n - prev >= 5 && n - prev <= 20);
        prev = n;
        if (t % 5 == 0)
            printf("p90 at 99%%: %llu over -> %llu queries at least\n", (unsigned long long)t,
                   (unsigned long long)n);
    }
    /* The closed form of the tail: t = 1, P = p^n + n (1 - p) p^(n-1). */
    ASSERT_NEAR(gb_es_odds(64, 1, 0.9), pow(0.9, 64) + 64 * 0.1 * pow(0.9, 63), 1e-12);
    /* The estimate: from 63 queries none (too few), from 64 the largest; from 1000 the t-th
     * largest with t the most overlatency queries 1000 supports. */
    double v[1000];
    for (size_t i = 0; i < 1000; i++)
        v[i] = (double)i;
    uint64_t t = 0;
    ASSERT(isnan(gb_es_estimate(v, 63, 0.9, 0.99, &t)));
    ASSERT_EQ(gb_es_estimate(v, 64, 0.9, 0.99, &t), 63);
    ASSERT_EQ(t, 1);
    const double e = gb_es_estimate(v, 1000, 0.9, 0.99, &t);
    ASSERT(gb_es_min_queries(t, 0.9, 0.99) <= 1000 && gb_es_min_queries(t + 1, 0.9, 0.99) > 1000);
    ASSERT_EQ(e, (double)(1000 - t));
    printf("p90 of 0..999: estimate %g (t %llu)\n", e, (unsigned long long)t);
    /* The Server verdict: 459 under the bound pass; one over of 459 is too few for the claim
     * (662 needed), of 662 not; a p99 over the bound fails. */
    char why[256];
    double lat[700];
    for (size_t i = 0; i < 700; i++)
        lat[i] = 1e-3;
    ASSERT(gb_serve_verdict(GB_SERVE_SERVER, lat, 459, 2e-3, false, why, sizeof why));
    ASSERT_STR(why, "VALID");
    ASSERT(!gb_serve_verdict(GB_SERVE_SERVER, lat, 458, 2e-3, false, why, sizeof why));
    ASSERT_CONTAINS(why, "too few queries");
    lat[458] = 3e-3;
    ASSERT(!gb_serve_verdict(GB_SERVE_SERVER, lat, 459, 2e-3, false, why, sizeof why));
    ASSERT_CONTAINS(why, "459 < 662");
    lat[458] = 1e-3;
    lat[661] = 3e-3;
    ASSERT(gb_serve_verdict(GB_SERVE_SERVER, lat, 662, 2e-3, false, why, sizeof why));
    for (size_t i = 650; i < 662; i++)
        lat[i] = 3e-3;
    ASSERT(!gb_serve_verdict(GB_SERVE_SERVER, lat, 662, 2e-3, false, why, sizeof why));
    ASSERT_CONTAINS(why, "over the bound");
    ASSERT(!gb_serve_verdict(GB_SERVE_SINGLESTREAM, lat, 63, 0, false, why, sizeof why));
    ASSERT_CONTAINS(why, "63 < 64");
    ASSERT(gb_serve_verdict(GB_SERVE_SINGLESTREAM, lat, 64, 0, false, why, sizeof why));
    ASSERT(!gb_serve_verdict(GB_SERVE_MULTISTREAM, lat, 661, 0, false, why, sizeof why));
    ASSERT(!gb_serve_verdict(GB_SERVE_OFFLINE, lat, 10, 0, true, why, sizeof why));
    ASSERT_CONTAINS(why, "overloaded");
    /* The overload rule a run's verdict and find_peak's probes share: kept_up under 0.75, or
     * more than 1% of the arrivals dropped; a trace not judged (NaN) is not overloaded. */
    ASSERT(gb_serve_overloaded(0.7499, 0, 1000) && !gb_serve_overloaded(0.75, 0, 1000));
    ASSERT(gb_serve_overloaded(1, 11, 1000) && !gb_serve_overloaded(1, 10, 1000));
    ASSERT(!gb_serve_overloaded(NAN, 0, 1000));
    /* A probe judged by the verdict with the queries a run of 3 traces of 100 keeps (300) can
     * never pass, whatever its latencies: find_peak says so instead of searching. */
    ASSERT(!gb_serve_verdict(GB_SERVE_SERVER, lat, 300, 1, gb_serve_overloaded(1, 0, 300), why,
                             sizeof why));
    ASSERT_CONTAINS(why, "too few queries: 300 < 459");
}

/* SingleStream's latency is one service exactly, MultiStream's one batch of 8, Offline's
 * throughput batch / service, a periodic source served faster than its period waits never (no
 * jitter, no miss) and one served slower misses every deadline; a planted slow batch in 50 is
 * SingleStream's p99 and not its p90. */
TEST(serve_scenarios_match_closed_forms)
{
    const double base = 0.1, per = 0.01;
    double lat[1000], a[1000];
    struct slowserver s = {.v = {.base = base, .per = per}};
    struct gb_serve_server srv = {
        .ctx = &s, .now = gb_test_vclock_now, .wait_until = gb_test_vclock_wait, .serve = s_serve};
    struct gb_serve_stats st;
    ASSERT_OK(gb_serve_closed(&srv, 100, 1, lat, &st));
    for (size_t i = 0; i < 100; i++)
        ASSERT_NEAR(lat[i], base + per, 1e-12);
    ASSERT_EQ(st.served, 100);
    ASSERT_NEAR(st.span_s, 100 * (base + per), 1e-9);
    s = (struct slowserver){.v = {.base = base, .per = per}};
    ASSERT_OK(gb_serve_closed(&srv, 100, GB_SERVE_MULTISTREAM_SAMPLES, lat, &st));
    for (size_t i = 0; i < 100; i++)
        ASSERT_NEAR(lat[i], base + 8 * per, 1e-12);
    ASSERT_EQ(st.served, 800);
    ASSERT_EQ(st.largest_batch, 8);
    /* Offline: 256 samples at once in batches of 32: 8 batches back to back. */
    memset(a, 0, sizeof a);
    s = (struct slowserver){.v = {.base = base, .per = per}};
    ASSERT_OK(gb_serve_run(&srv, a, 256, 32, 0, 0, lat, &st));
    ASSERT_EQ(st.batches, 8);
    ASSERT_NEAR(256 / st.last_done_s, 32 / (base + 32 * per), 1e-9);
    /* Periodic at 30 Hz: served in 11 ms, every frame leaves 11 ms after it came. */
    const double period = 1.0 / 30;
    gb_serve_periodic_arrivals(a, 300, period);
    s = (struct slowserver){.v = {.base = 0.01, .per = 0.001}};
    ASSERT_OK(gb_serve_run(&srv, a, 300, 1, 0, 0, lat, &st));
    double sd, p99;
    ASSERT_EQ(gb_serve_jitter(a, lat, 300, &sd, &p99), 299);
    ASSERT(sd < 1e-12 && p99 < 1e-12);
    gb_sort_doubles(lat, 300);
    ASSERT_NEAR(lat[299], 0.011, 1e-12);
    char why[256];
    /* 300 frames: too few for a p99 claim; 700 meet every deadline. */
    ASSERT(!gb_serve_verdict(GB_SERVE_PERIODIC, lat, 300, period, false, why, sizeof why));
    gb_serve_periodic_arrivals(a, 700, period);
    s = (struct slowserver){.v = {.base = 0.01, .per = 0.001}};
    ASSERT_OK(gb_serve_run(&srv, a, 700, 1, 0, 0, lat, &st));
    gb_sort_doubles(lat, 700);
    ASSERT(gb_serve_verdict(GB_SERVE_PERIODIC, lat, 700, period, false, why, sizeof why));
    /* Served in 40 ms, over the 33 ms period: each frame later than the last, every one late. */
    s = (struct slowserver){.v = {.base = 0.039, .per = 0.001}};
    ASSERT_OK(gb_serve_run(&srv, a, 700, 1, 0, 0, lat, &st));
    size_t missed = 0;
    for (size_t i = 0; i < 700; i++)
        missed += lat[i] > period;
    ASSERT_EQ(missed, 700);
    ASSERT_EQ(gb_serve_jitter(a, lat, 700, &sd, &p99), 699);
    ASSERT_NEAR(p99, 0.040 - period, 1e-9); /* each waits one gap longer than the last */
    gb_sort_doubles(lat, 700);
    ASSERT(!gb_serve_verdict(GB_SERVE_PERIODIC, lat, 700, period, false, why, sizeof why));
    ASSERT_CONTAINS(why, "700 of 700 requests missed");
    /* The planted slow request: one batch in 50 takes 1 s more. */
    s = (struct slowserver){.v = {.base = base, .per = per}, .every = 50, .slow = 1};
    ASSERT_OK(gb_serve_closed(&srv, 1000, 1, lat, &st));
    gb_sort_doubles(lat, 1000);
    ASSERT_NEAR(lat[989], 1 + base + per, 1e-9); /* p99: the nearest rank, 990th */
    ASSERT_NEAR(lat[899], base + per, 1e-9);     /* p90 */
    const double es = gb_es_estimate(lat, 1000, 0.9, 0.99, NULL);
    ASSERT_NEAR(es, base + per, 1e-9); /* 20 slow of 1000 do not move p90's estimate */
}

/* Overload at 10x the capacity with a queue of 64: drops counted, overloaded, INVALID. */
TEST(serve_overload_at_ten_times_is_invalid)
{
    const size_t n = 2000;
    double a[2000], lat[2000];
    struct vserver v = {.base = 1};
    struct gb_serve_server srv = {
        .ctx = &v, .now = gb_test_vclock_now, .wait_until = gb_test_vclock_wait, .serve = v_serve};
    struct gb_serve_stats st;
    gb_serve_arrivals(a, n, 10.0, 5);
    ASSERT_OK(gb_serve_run(&srv, a, n, 1, 0, 64, lat, &st));
    const double up = gb_serve_kept_up(a, n, &st, 1.0);
    const bool over =
        up < GB_SERVE_KEPT_UP_MIN || (double)st.dropped > GB_SERVE_DROPPED_MAX * (double)n;
    printf("10x: %zu of %zu dropped, kept up %.3f\n", st.dropped, n, up);
    ASSERT(over && st.dropped > n / 2);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(lat[i]))
            lat[m++] = lat[i];
    gb_sort_doubles(lat, m);
    char why[256];
    ASSERT(!gb_serve_verdict(GB_SERVE_SERVER, lat, m, 1e9, over, why, sizeof why));
    ASSERT_CONTAINS(why, "INVALID: overloaded");
}

/* The M/D/1 server's p99 latency (service d plus the wait's p99), from the closed form. */
static double md1_p99_latency(double lambda, double d)
{
    double lo = 0, hi = 1;
    while (gb_md1_wait_cdf(hi, lambda, d) < 0.99)
        hi *= 2;
    for (int i = 0; i < 60; i++) {
        const double mid = 0.5 * (lo + hi);
        if (gb_md1_wait_cdf(mid, lambda, d) < 0.99)
            lo = mid;
        else
            hi = mid;
    }
    return d + hi;
}

struct md1_probe {
    double *a, *lat, bound;
    size_t n;
    uint64_t seed;
};
static int md1_probe_fn(void *p, struct gb_serve_probe *pr)
{
    struct md1_probe *m = p;
    gb_serve_arrivals(m->a, m->n, pr->rate, m->seed++);
    struct vserver v = {.base = 1};
    struct gb_serve_server srv = {
        .ctx = &v, .now = gb_test_vclock_now, .wait_until = gb_test_vclock_wait, .serve = v_serve};
    struct gb_serve_stats st;
    int err = gb_serve_run(&srv, m->a, m->n, 1, 0, 0, m->lat, &st);
    if (err)
        return err;
    pr->p99_s = served_p99(m->lat, m->n);
    pr->kept_up = gb_serve_kept_up(m->a, m->n, &st, 1.0);
    pr->pass = pr->p99_s <= m->bound;
    return 0;
}

/* The Server scenario's search for the largest rate under a p99 bound converges, on a simulated
 * M/D/1 server (service 1), to the rate at which the closed form's p99 latency is the bound; and
 * the knee of a load sweep (p99 over GB_SERVE_KNEE_K x the unloaded p99) is the closed form's
 * within one step of the sweep. */
TEST(serve_server_search_and_knee_match_md1)
{
    const double bound = 6; /* services: the p99 wait may be 5 */
    double lo = 0.01, hi = 0.999;
    for (int i = 0; i < 60; i++) {
        const double mid = 0.5 * (lo + hi);
        if (md1_p99_latency(mid, 1) <= bound)
            lo = mid;
        else
            hi = mid;
    }
    const double closed = lo;
    const size_t n = 300000;
    struct md1_probe m = {.a = malloc(n * sizeof(double)),
                          .lat = malloc(n * sizeof(double)),
                          .bound = bound,
                          .n = n,
                          .seed = 40};
    ASSERT(m.a && m.lat);
    struct gb_serve_probe probes[16];
    size_t np = 0;
    double peak = 0;
    ASSERT_OK(gb_serve_find_peak(md1_probe_fn, &m, 0.05, 0.99, 0.005, 16, probes, &np, &peak));
    for (size_t i = 0; i < np; i++)
        printf("probe %zu: rate %.4f, p99 %.3f, kept up %.3f, %s\n", i, probes[i].rate,
               probes[i].p99_s, probes[i].kept_up, probes[i].pass ? "pass" : "fail");
    printf("search: %.4f, closed form %.4f\n", peak, closed);
    ASSERT(np >= 3 && np <= 16);
    ASSERT_MSG(fabs(peak - closed) < 0.03 * closed, "search %g, closed form %g", peak, closed);
    /* The edges: a ceiling that passes is the peak; a floor that fails leaves none. */
    ASSERT_OK(gb_serve_find_peak(md1_probe_fn, &m, 0.01, 0.1, 0.01, 16, probes, &np, &peak));
    ASSERT(np == 1 && peak == 0.1);
    m.bound = 0.5;
    ASSERT_OK(gb_serve_find_peak(md1_probe_fn, &m, 0.01, 0.1, 0.01, 16, probes, &np, &peak));
    ASSERT(np == 2 && peak == 0);
    ASSERT_EQ(gb_serve_find_peak(md1_probe_fn, &m, 0.1, 0.1, 0.01, 16, probes, &np, &peak),
              GB_EINVAL);
    /* The knee over loads 0.05 to 0.95. */
    double loads[19], cf[19], sim[19];
    for (size_t i = 0; i < 19; i++) {
        loads[i] = 0.05 * (double)(i + 1);
        cf[i] = md1_p99_latency(loads[i], 1);
        struct gb_serve_probe pr = {.rate = loads[i]};
        m.bound = 1e9;
        ASSERT_OK(md1_probe_fn(&m, &pr));
        sim[i] = pr.p99_s;
    }
    const double kc = gb_serve_knee(loads, cf, 19, GB_SERVE_KNEE_K),
                 ks = gb_serve_knee(loads, sim, 19, GB_SERVE_KNEE_K);
    printf("knee (p99 > %g x unloaded): closed form at load %.2f, simulated %.2f\n",
           GB_SERVE_KNEE_K, kc, ks);
    ASSERT(isfinite(kc) && isfinite(ks));
    ASSERT_MSG(fabs(kc - ks) < 0.05 + 1e-9, "knee %g, closed form %g", ks, kc);
    ASSERT(isnan(gb_serve_knee(loads, cf, 1, 2)));
    free(m.a);
    free(m.lat);
}

static const struct gb_result *pick(const struct gb_results *rs, double load, int64_t batch)
{
    for (size_t i = 0; i < rs->nresults; i++)
        if (fabs(gb_params_float(&rs->results[i].params, "load") - load) < 1e-9 &&
            gb_params_int(&rs->results[i].params, "max_batch") == batch &&
            rs->results[i].status == GB_STATUS_OK)
            return &rs->results[i];
    return NULL;
}

TEST_TIMEOUT(suite_serve_verifies_and_the_tail_rises_with_load, 240)
{
    const char *yaml = "measure: {warmup_runs: 1, warmup_time: 0, min_samples: 4, max_samples: 4, "
                       "max_time: 20s, min_sample_time: 0}\nsuites:\n  - suite: serve\n"
                       "    params: {shape: 256x256, load: [0.2, 2], max_batch: 1, "
                       "max_wait: [0, 1000], requests: 128, queue: 16}\n"
                       "  - suite: serve\n"
                       "    params: {shape: 256x256, load: [0.2, 0.95], max_batch: 8, "
                       "max_wait: 1000, requests: 128}\n";
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    ASSERT_EQ(rs.nresults, 6);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        /* A wait with one request per batch is the case without one: said, not run. */
        if (gb_params_int(&r->params, "max_batch") == 1 &&
            gb_params_int(&r->params, "max_wait") > 0) {
            ASSERT_EQ(r->status, GB_STATUS_SKIPPED);
            ASSERT_CONTAINS(r->reason, "max_wait has no effect with max_batch 1");
            continue;
        }
        if (r->status == GB_STATUS_SKIPPED) { /* no BLAS library */
            ASSERT_CONTAINS(r->reason, "GEMM");
            gb_results_free(&rs);
            return;
        }
        ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "%s", r->reason);
        ASSERT_EQ(r->nsamples, 4);
        ASSERT(gb_test_figure(r, "offered_rps") && gb_test_figure(r, "dropped"));
        ASSERT(gb_test_figure(r, "max_rps_under_slo"));
        const double mb = gb_test_figure(r, "mean_batch")->v[0];
        ASSERT(mb >= 1 && mb <= (double)gb_params_int(&r->params, "max_batch"));
        /* A queue that kept up: the tail, a steady-state figure; one that did not: what it
         * served, and its latencies under another name (they grow with the trace). Load 2 is
         * overloaded however slow this machine's device runs; 0.2 is stable (a queue of 16: shallow
         * enough that load 2 drops even where the capacity was measured 1.6x slow, deep enough
         * for host stalls of ~30 ms at 0.2; a queue of 64 made load 2 drop nothing on a busy VM,
         * and a machine loaded to 8 by other work can stall longer than 30 ms; 0.95 may be
         * either: the capacity is the fastest of 7 batches, and PoCL on a busy VM ran up to
         * 1.6x slower than that). */
        const double load = gb_params_float(&r->params, "load");
        const char *state = gb_test_figure(r, "queue_state")->text;
        const bool over = strncmp(state, "overloaded", 10) == 0;
        printf("load %.2f, batch %lld: %s, kept up %.2f, %g dropped\n", load,
               (long long)gb_params_int(&r->params, "max_batch"), state,
               gb_test_figure(r, "kept_up")->v[0], gb_test_figure(r, "dropped")->v[0]);
        if (load > 1)
            ASSERT(over);
        if (load < 0.5)
            ASSERT_STR(state, "stable");
        ASSERT_STR(r->unit, over ? "1/s" : "us");
        ASSERT_STR(r->metric, over ? "throughput" : "latency");
        ASSERT_EQ(gb_test_figure(r, "p99_us") != NULL, !over);
        ASSERT_EQ(gb_test_figure(r, "overload_p99_us") != NULL, over);
        /* Overloaded: it fell behind, or its full queue turned away more than 1% of arrivals. */
        const double arrivals = (double)r->nsamples * (double)gb_params_int(&r->params, "requests");
        ASSERT_EQ(gb_test_figure(r, "kept_up")->v[0] < GB_SERVE_KEPT_UP_MIN ||
                      gb_test_figure(r, "dropped")->v[0] > GB_SERVE_DROPPED_MAX * arrivals,
                  over);
        ASSERT_EQ(gb_test_figure(r, "requests_checked")->v[0] >= (over ? 4 * 16 : 4 * 128), true);
    }
    /* One request at a time: at twice the capacity the queue builds whatever the capacity's
     * error (128 arrivals, half of them waiting behind some 30 services on average), while at
     * 0.2 a request mostly finds the device idle. Not 0.95: the capacity (the fastest of 7
     * batches) of this shared VM varied 400-650 us a batch from run to run, and a run that
     * measured it slow offered in truth ~0.6, whose queue a request that wakes an idle PoCL
     * device (~600 us at 0.2) outweighed. The median is compared: the p99 of 512 requests is
     * their 6th-slowest, which one 30 ms stall lifts at any load; both are printed. */
    const struct gb_result *r_lo = pick(&rs, 0.2, 1), *r_hi = pick(&rs, 2.0, 1);
    const double lo = gb_test_figure(r_lo, "p50_us")->v[0],
                 hi = gb_test_figure(r_hi, "overload_p50_us")->v[0];
    printf("max_batch 1: p50 %.0f us, p99 %.0f us at load 0.2; p50 %.0f us, p99 %.0f us at 2\n", lo,
           gb_test_figure(r_lo, "p99_us")->v[0], hi, gb_test_figure(r_hi, "overload_p99_us")->v[0]);
    ASSERT_MSG(hi > lo, "p50 %g at 2, %g at 0.2", hi, lo);
    /* The bound of 16: at twice the capacity the queue fills and turns requests away. */
    ASSERT(gb_test_figure(r_hi, "dropped")->v[0] > 0);
    ASSERT_EQ(gb_test_figure(r_lo, "dropped")->v[0], 0);
    /* The largest rate under the SLO is a stable load's (landed: the overloaded load's, whose
     * short trace's tail passed the bound while it served less than arrived): load 0.2's when
     * its p99 met the bound (50 ms), else none (on a busy host Intel's runtime once served load
     * 0.2 with a p99 of 71 ms: a measurement, not the rule under test). */
    const double want = gb_test_figure(r_lo, "p99_us")->v[0] <= 50000
                            ? gb_test_figure(r_lo, "achieved_rps")->v[0]
                            : 0;
    ASSERT_NEAR(gb_test_figure(r_hi, "max_rps_under_slo")->v[0], want, 1e-9);
    /* One capacity for the sweep: the offered rates stand near the loads' ratio (10; a trace
     * of 128 Poisson arrivals spans its mean within about 20%). */
    const double off_lo = gb_test_figure(pick(&rs, 0.2, 1), "offered_rps")->v[0],
                 off_hi = gb_test_figure(pick(&rs, 2.0, 1), "offered_rps")->v[0];
    ASSERT_MSG(off_hi / off_lo > 6.5 && off_hi / off_lo < 15, "offered %g at 2, %g at 0.2", off_hi,
               off_lo);
    ASSERT_NEAR(gb_test_figure(pick(&rs, 0.2, 1), "capacity_rps")->v[0],
                gb_test_figure(pick(&rs, 2.0, 1), "capacity_rps")->v[0], 1e-9);
    gb_results_free(&rs);
}

/* A full queue that turns requests away is no steady state: the percentiles count the requests
 * served only (a queue of 1 at load 0.5 dropped 8% and read "stable" with a p99 of the rest). */
TEST_TIMEOUT(suite_serve_a_queue_that_drops_is_no_steady_state, 120)
{
    struct gb_results rs;
    gb_test_run_suite(
        "measure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, max_samples: 3, max_time: 20s, "
        "min_sample_time: 0}\n",
        "serve", "{shape: 256x256, load: 0.5, max_batch: 1, max_wait: 0, requests: 200, queue: 1}",
        &rs);
    ASSERT_EQ(rs.nresults, 1);
    const struct gb_result *r = &rs.results[0];
    if (r->status == GB_STATUS_SKIPPED) { /* no BLAS library */
        ASSERT_CONTAINS(r->reason, "GEMM");
        gb_results_free(&rs);
        return;
    }
    ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "%s", r->reason);
    const struct gb_figure *d = gb_test_figure(r, "dropped"),
                           *st = gb_test_figure(r, "queue_state");
    ASSERT(d && st);
    ASSERT_MSG(d->v[0] > 0.01 * 3 * 200, "dropped %g", d->v[0]);
    ASSERT_MSG(strncmp(st->text, "overloaded", 10) == 0, "queue_state: %s", st->text);
    ASSERT(!gb_test_figure(r, "p99_us") && !gb_test_figure(r, "p50_us"));
    gb_results_free(&rs);
}

/* Periodic frames spread beyond the case's limit (4 at 0.05 fps: 60 s, the limit 30 s): a skip
 * saying so at once, not the limit's kill. */
TEST_TIMEOUT(suite_serve_periodic_beyond_the_case_limit_is_a_skip, 20)
{
    struct gb_results rs;
    gb_test_run_suite("measure: {warmup_runs: 0, min_samples: 1, max_samples: 1, case_timeout: "
                      "30s}\n",
                      "serve",
                      "{scenario: Periodic, fps: 0.05, shape: 64x64, requests: 4, max_batch: 1, "
                      "max_wait: 0}",
                      &rs);
    ASSERT_EQ(rs.nresults, 1);
    const struct gb_result *r = &rs.results[0];
    ASSERT_EQ(r->status, GB_STATUS_SKIPPED);
    ASSERT_CONTAINS(r->reason, "4 frames at 0.05 fps arrive over 60 s, beyond the case's limit");
    gb_results_free(&rs);
}

TEST_TIMEOUT(suite_serve_missing_output_caught, 120)
{
    setenv("GPUBENCH_TEST_SERVE_BREAK", "1", 1);
    struct gb_results rs;
    gb_test_run_suite("measure: {warmup_runs: 0, warmup_time: 0, min_samples: 2, max_samples: 2, "
                      "max_time: 20s, min_sample_time: 0}\n",
                      "serve",
                      "{shape: 64x64, load: 3, max_batch: 8, max_wait: 1000, requests: 64}", &rs);
    unsetenv("GPUBENCH_TEST_SERVE_BREAK");
    ASSERT_EQ(rs.nresults, 1);
    if (rs.results[0].status != GB_STATUS_SKIPPED) {
        ASSERT_EQ(rs.results[0].status, GB_STATUS_FAILED);
        ASSERT_CONTAINS(rs.results[0].reason, "request ");
        printf("caught: %s\n", rs.results[0].reason);
    }
    gb_results_free(&rs);
}

TEST(serve_bad_shape_is_refused_at_load)
{
    char out[4096];
    const char *dir = gb_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/bad-serve.yaml", dir);
    gb_test_write_file(path, "suites:\n  - suite: serve\n    params: {shape: 12x}\n");
    int st = gb_test_shf(out, sizeof out, "'%s' validate '%s' 2>&1", GB_TEST_EXE, path);
    ASSERT(st != 0);
    ASSERT_CONTAINS(out, "KxN");
}

/* Shapes that sscanf's %llu alone would take (a sign, a wrapped negative), and a load so small
 * that the arrivals overflow to infinity: refused when the profile is read. */
TEST(serve_signed_shapes_and_tiny_loads_are_refused)
{
    static const char *const bad[] = {
        "{shape: -1x5}",  "{shape: +5x+5}",
        "{shape: 5x-1}",  "{shape: -18446744073709551615x-18446744073709551615}",
        "{load: 1e-300}", "{load: 0}"};
    char out[4096];
    const char *dir = gb_test_tmpdir();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[512], yaml[256];
        snprintf(path, sizeof path, "%s/bad-%zu.yaml", dir, i);
        snprintf(yaml, sizeof yaml, "suites:\n  - suite: serve\n    params: %s\n", bad[i]);
        gb_test_write_file(path, yaml);
        int st = gb_test_shf(out, sizeof out, "'%s' validate '%s' 2>&1", GB_TEST_EXE, path);
        ASSERT_MSG(st == 2, "%s: exit %d: %s", bad[i], st, out);
        ASSERT_MSG(strstr(out, i < 4 ? "KxN" : "[0.001, 10]"), "%s: %s", bad[i], out);
    }
}

/* A profile whose entries all expand to nothing: validate refuses it as run does. */
TEST(validate_refuses_a_profile_of_no_case)
{
    char out[4096];
    const char *dir = gb_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/none.yaml", dir);
    gb_test_write_file(path, "suites:\n  - suite: concurrency\n    params: {kernel: priority, "
                             "queues: 1}\n");
    int st = gb_test_shf(out, sizeof out, "'%s' validate '%s' 2>&1", GB_TEST_EXE, path);
    ASSERT_MSG(st == 2, "exit %d: %s", st, out);
    ASSERT_CONTAINS(out, "select no case");
}

static const struct gb_result *pick_scenario(const struct gb_results *rs, const char *sc, bool peak)
{
    for (size_t i = 0; i < rs->nresults; i++) {
        const char *v = gb_params_str(&rs->results[i].params, "scenario");
        if (strcmp(v[0] ? v : "Server", sc) == 0 &&
            gb_params_bool(&rs->results[i].params, "find_peak") == peak)
            return &rs->results[i];
    }
    return NULL;
}

/* Every scenario on PoCL, small: each verified, its verdict and figures there; the verdicts
 * that do not depend on time asserted (SingleStream's 200 queries support a p90 estimate,
 * MultiStream's 200 are too few for its p99, 10x the capacity with a queue of 16 is overloaded
 * with drops), the rest printed. */
TEST_TIMEOUT(suite_serve_scenarios_run_and_verify, 120)
{
    const char *yaml =
        "measure: {warmup_runs: 1, warmup_time: 0, min_samples: 2, max_samples: 2, "
        "max_time: 20s, min_sample_time: 0}\nsuites:\n  - suite: serve\n"
        "    params: {shape: 64x64, scenario: [SingleStream, MultiStream, Offline], "
        "requests: 100, max_batch: 32}\n"
        "  - suite: serve\n    params: {shape: 64x64, scenario: Periodic, fps: 1000, "
        "requests: 200}\n"
        "  - suite: serve\n    params: {shape: 64x64, load: [0.2, 10], max_batch: 1, "
        "max_wait: 0, requests: 256, queue: 16}\n"
        "  - suite: serve\n    params: {shape: 64x64, find_peak: true, max_batch: 1, "
        "max_wait: 0, requests: 256, slo_us: 20000}\n"
        "  - suite: serve\n    params: {shape: 64x64, find_peak: true, max_batch: 1, "
        "max_wait: 0, requests: 100, seed: 2}\n";
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    ASSERT_EQ(rs.nresults, 8);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        if (r->status == GB_STATUS_SKIPPED) { /* no BLAS library */
            ASSERT_CONTAINS(r->reason, "GEMM");
            gb_results_free(&rs);
            return;
        }
        ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "%s", r->reason);
        const struct gb_figure *v = gb_test_figure(r, "verdict");
        ASSERT(v && v->n == 0);
        ASSERT(strncmp(v->text, "VALID", 5) == 0 || strncmp(v->text, "INVALID: ", 9) == 0);
        const char *sc = gb_params_str(&r->params, "scenario");
        printf("%-12s load %.2g: %s %s, %s\n", sc[0] ? sc : "Server",
               gb_params_float(&r->params, "load"), gb_test_figure(r, "queue_state")->text,
               r->metric, v->text);
        /* The headline is the figure it names, over the whole run: SingleStream's p90_us, the
         * other latencies' p99_us, a throughput's achieved_rps. */
        const bool thr = strcmp(r->metric, "throughput") == 0;
        const char *named = thr                               ? "achieved_rps"
                            : strcmp(sc, "SingleStream") == 0 ? "p90_us"
                                                              : "p99_us";
        const struct gb_figure *f = gb_test_figure(r, named);
        ASSERT_MSG(f && f->n, "%s: no %s", sc, named);
        ASSERT_MSG(r->value == f->v[0], "%s: value %.17g, %s %.17g", sc, r->value, named, f->v[0]);
    }
    const struct gb_result *ss = pick_scenario(&rs, "SingleStream", false),
                           *ms = pick_scenario(&rs, "MultiStream", false),
                           *off = pick_scenario(&rs, "Offline", false),
                           *per = pick_scenario(&rs, "Periodic", false),
                           *pk = pick_scenario(&rs, "Server", true);
    ASSERT(ss && ms && off && per && pk);
    /* SingleStream: 2 traces of 100 queries of 1, LoadGen's 64 met; a p90 estimate. */
    ASSERT_STR(gb_test_figure(ss, "verdict")->text, "VALID");
    ASSERT_EQ(gb_test_figure(ss, "es_min_queries")->v[0], 64);
    ASSERT(gb_test_figure(ss, "es_p90_us") && !gb_test_figure(ss, "es_p99_us"));
    ASSERT_EQ(gb_test_figure(ss, "mean_batch")->v[0], 1);
    ASSERT_EQ(gb_test_figure(ss, "requests_checked")->v[0] >= 200, true);
    /* MultiStream: queries of 8 samples, 200 queries < 662. */
    ASSERT_CONTAINS(gb_test_figure(ms, "verdict")->text, "too few queries: 200 < 662");
    ASSERT_EQ(gb_test_figure(ms, "mean_batch")->v[0], 8);
    ASSERT_EQ(gb_test_figure(ms, "requests_checked")->v[0] >= 1600, true);
    /* Offline: its headline is what it served, samples/s; batches of at most 32. */
    ASSERT_STR(off->metric, "throughput");
    ASSERT_STR(off->unit, "1/s");
    ASSERT(gb_test_figure(off, "mean_batch")->v[0] <= 32);
    ASSERT_STR(gb_test_figure(off, "verdict")->text, "VALID");
    /* Periodic: its deadline (one period) and what missed it, within the arrivals. */
    ASSERT_NEAR(gb_test_figure(per, "deadline_us")->v[0], 1000, 1e-6);
    ASSERT(gb_test_figure(per, "deadline_misses")->v[0] <= 2 * 200);
    ASSERT(gb_test_figure(per, "jitter_sd_us") && gb_test_figure(per, "jitter_p99_us"));
    /* Server at 10x with a queue of 16: overloaded, drops counted, INVALID. */
    const struct gb_result *ten = pick(&rs, 10, 1);
    ASSERT(ten);
    ASSERT(gb_test_figure(ten, "dropped")->v[0] > 0);
    ASSERT_CONTAINS(gb_test_figure(ten, "verdict")->text, "INVALID: overloaded");
    ASSERT(gb_test_figure(ten, "knee_load")); /* a number or "none", from the sweep */
    /* find_peak: its probes recorded, and a rate or "none". */
    ASSERT(gb_test_figure(pk, "probe1") && gb_test_figure(pk, "probe2"));
    ASSERT(gb_test_figure(pk, "peak_rps"));
    printf("find_peak: %s; %s\n", gb_test_figure(pk, "probe1")->text,
           gb_test_figure(pk, "probe2")->text);
    /* find_peak with 2 x 100 queries a probe: no probe could be VALID (459 needed), said once. */
    const struct gb_result *few = &rs.results[rs.nresults - 1];
    ASSERT_STR(gb_test_figure(few, "peak_rps")->text, "none: too few queries per probe: 200 < 459");
    ASSERT(!gb_test_figure(few, "probe1"));
    /* The text table names the Server rows' scenario, which their params omit at its default. */
    struct gb_doc d;
    ASSERT_EQ(gb_summary_doc(&rs, &d), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ASSERT_EQ(gb_write_doc(f, "text", &d), 0);
    fclose(f);
    size_t server_rows = 0;
    for (const char *line = text; line; line = strchr(line, '\n')) {
        line += *line == '\n';
        const char *end = strchr(line, '\n');
        const size_t n = end ? (size_t)(end - line) : strlen(line);
        if (strncmp(line, "64x64", 5) == 0 && memmem(line, n, " Server ", 8))
            server_rows++;
    }
    ASSERT_EQ(server_rows, 4);
    free(text);
    gb_doc_free(&d);
    gb_results_free(&rs);
}

/* The planted slow batch (GPUBENCH_TEST_SERVE_SLOW=50: one batch in 50 takes 20 ms more) is
 * SingleStream's p99 (4 of 200 queries); with every batch slowed, a 100 Hz periodic source
 * misses every deadline. Lower bounds of a planted sleep only: no timing of the device. */
TEST_TIMEOUT(suite_serve_planted_slow_request_caught, 120)
{
    setenv("GPUBENCH_TEST_SERVE_SLOW", "50", 1);
    struct gb_results rs;
    const char *measure = "measure: {warmup_runs: 1, warmup_time: 0, min_samples: 2, "
                          "max_samples: 2, max_time: 20s, min_sample_time: 0}\n";
    gb_test_run_suite(measure, "serve", "{shape: 64x64, scenario: SingleStream, requests: 100}",
                      &rs);
    ASSERT_EQ(rs.nresults, 1);
    const struct gb_result *r = &rs.results[0];
    if (r->status == GB_STATUS_SKIPPED) {
        unsetenv("GPUBENCH_TEST_SERVE_SLOW");
        gb_results_free(&rs);
        return;
    }
    ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "%s", r->reason);
    const double p99 = gb_test_figure(r, "p99_us")->v[0];
    printf("SingleStream with 1 batch in 50 slowed by 20 ms: p50 %.0f us, p99 %.0f us\n",
           gb_test_figure(r, "p50_us")->v[0], p99);
    ASSERT_MSG(p99 >= 20000, "p99 %g us", p99);
    gb_results_free(&rs);
    setenv("GPUBENCH_TEST_SERVE_SLOW", "1", 1);
    gb_test_run_suite(measure, "serve",
                      "{shape: 64x64, scenario: Periodic, fps: 100, requests: 20}", &rs);
    unsetenv("GPUBENCH_TEST_SERVE_SLOW");
    r = &rs.results[0];
    ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "%s", r->reason);
    printf("Periodic 100 Hz, every batch 20 ms or more: %g misses, %s\n",
           gb_test_figure(r, "deadline_misses")->v[0], gb_test_figure(r, "verdict")->text);
    ASSERT_EQ(gb_test_figure(r, "deadline_misses")->v[0], 2 * 20);
    ASSERT_EQ(gb_test_figure(r, "deadline_miss_rate")->v[0], 1);
    ASSERT_CONTAINS(gb_test_figure(r, "verdict")->text, "INVALID");
    gb_results_free(&rs);
}

/* ---- what people read: the axes a scenario does not use left out ------------------------- */

/* A serve result of `shape` with params "name=value" (value typed as the axis takes it), as a
 * results file holds it: scenario and fps absent at their defaults. */
static void add_serve(struct gb_results *rs, int dev, const char *const *kv, size_t n)
{
    const struct gb_suite *su = gb_suite_table_find(gb_suites_builtin(), "serve");
    ASSERT(su && n <= GB_MAX_AXES);
    struct gb_result r = {0};
    snprintf(r.suite, sizeof r.suite, "serve");
    snprintf(r.case_name, sizeof r.case_name, "64x64");
    snprintf(r.backend, sizeof r.backend, "opencl");
    snprintf(r.unit, sizeof r.unit, "us");
    r.device_index = dev;
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(kv[i], '=');
        char name[GB_STR_MAX];
        snprintf(name, sizeof name, "%.*s", (int)(eq - kv[i]), kv[i]);
        const struct gb_axis_def *a = gb_suite_axis(su, name);
        ASSERT_MSG(a, "serve has no axis %s", name);
        struct gb_value *v = &r.params.v[r.params.n];
        *v = (struct gb_value){.type = a->type};
        if (a->type == GB_V_INT)
            v->u.i = strtoll(eq + 1, NULL, 10);
        else if (a->type == GB_V_FLOAT)
            v->u.f = strtod(eq + 1, NULL);
        else if (a->type == GB_V_BOOL)
            v->u.b = strcmp(eq + 1, "true") == 0;
        else
            snprintf(v->s, sizeof v->s, "%s", eq + 1);
        r.params.name[r.params.n++] = a->name;
    }
    r.status = GB_STATUS_OK;
    r.value = 100;
    r.verified = true;
    ASSERT_OK(gb_results_add(rs, &r));
}

/* Cell of column `col` in the row whose text starts with `lead` (field 0) of CSV `csv` (no
 * quoted fields), into buf; false where there is no such row or column. */
static bool csv_cell(const char *csv, const char *row_has, const char *col, char *buf, size_t len)
{
    const size_t hl = strcspn(csv, "\n");
    int want = -1, k = 0;
    for (const char *f = csv; f < csv + hl; k++) {
        const size_t n = strcspn(f, ",\n");
        if (strlen(col) == n && strncmp(f, col, n) == 0)
            want = k;
        f += n + (f[n] == ',');
        if (f[-1] != ',')
            break;
    }
    for (const char *line = csv + hl; want >= 0 && *line;) {
        line += *line == '\n';
        const size_t n = strcspn(line, "\n");
        if (n && memmem(line, n, row_has, strlen(row_has))) {
            const char *f = line;
            for (int i = 0; i < want; i++)
                f += strcspn(f, ",\n") + 1;
            snprintf(buf, len, "%.*s", (int)strcspn(f, ",\n"), f);
            return true;
        }
        line += n;
    }
    return false;
}

/* The axes normalize sets neutral for a scenario (load, max_batch, max_wait, fps) are blank in
 * the summary's rows of that scenario and absent from the params text compare, fleet, history
 * and check show, while the Server rows keep theirs and name their scenario; results keep them
 * all (compare matches as before). The progress line leaves them out too. */
TEST(serve_params_that_do_not_apply_are_left_out_for_people)
{
    char buf[256];
    gb_params_for_people("serve",
                         "shape=64x64 load=1 max_batch=1 max_wait=0 requests=100 "
                         "scenario=SingleStream",
                         buf, sizeof buf);
    ASSERT_STR(buf, "shape=64x64 requests=100 scenario=SingleStream");
    gb_params_for_people("serve", "shape=64x64 load=1 max_batch=32 max_wait=0 scenario=Offline",
                         buf, sizeof buf);
    ASSERT_STR(buf, "shape=64x64 max_batch=32 scenario=Offline");
    gb_params_for_people("serve",
                         "shape=64x64 load=1 max_batch=1 max_wait=0 fps=100 "
                         "scenario=Periodic",
                         buf, sizeof buf);
    ASSERT_STR(buf, "shape=64x64 fps=100 scenario=Periodic");
    gb_params_for_people("serve", "shape=64x64 load=1 max_batch=8 max_wait=2000 find_peak=true",
                         buf, sizeof buf);
    ASSERT_STR(buf, "shape=64x64 max_batch=8 max_wait=2000 find_peak=true");
    const char *server = "shape=64x64 load=0.5 max_batch=8 max_wait=0 requests=100";
    gb_params_for_people("serve", server, buf, sizeof buf);
    ASSERT_STR(buf, server); /* Server: every one applies, max_wait 0 included */

    struct gb_results rs = {0};
    struct gb_device_info info = {0};
    snprintf(info.name, sizeof info.name, "cpu");
    int dev;
    ASSERT_OK(gb_results_add_device(&rs, "opencl", 0, &info, &dev));
    const char *sv[] = {"shape=64x64", "load=0.5", "max_batch=8", "max_wait=2000", "requests=100"};
    const char *ss[] = {"shape=64x64", "load=1",       "max_batch=1",
                        "max_wait=0",  "requests=100", "scenario=SingleStream"};
    const char *pe[] = {"shape=64x64",       "load=1", "max_batch=1", "max_wait=0", "requests=100",
                        "scenario=Periodic", "fps=100"};
    add_serve(&rs, dev, sv, sizeof sv / sizeof sv[0]);
    add_serve(&rs, dev, ss, sizeof ss / sizeof ss[0]);
    add_serve(&rs, dev, pe, sizeof pe / sizeof pe[0]);
    struct gb_doc d;
    ASSERT_EQ(gb_summary_doc(&rs, &d), 0);
    char *csv = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&csv, &len);
    ASSERT_EQ(gb_write_doc(f, "csv", &d), 0);
    fclose(f);
    printf("%s", csv);
    static const char *const hidden[] = {"load", "max_batch", "max_wait"};
    for (size_t k = 0; k < 3; k++) {
        ASSERT(csv_cell(csv, "SingleStream", hidden[k], buf, sizeof buf));
        ASSERT_MSG(!buf[0], "SingleStream's %s: %s", hidden[k], buf);
        ASSERT(csv_cell(csv, "Periodic", hidden[k], buf, sizeof buf));
        ASSERT_MSG(!buf[0], "Periodic's %s: %s", hidden[k], buf);
    }
    ASSERT(csv_cell(csv, ",Server,", "load", buf, sizeof buf));
    ASSERT_STR(buf, "0.5");
    ASSERT(csv_cell(csv, ",Server,", "max_wait", buf, sizeof buf));
    ASSERT_STR(buf, "2000");
    ASSERT(csv_cell(csv, "Periodic", "fps", buf, sizeof buf));
    ASSERT_STR(buf, "100");
    ASSERT(csv_cell(csv, "SingleStream", "fps", buf, sizeof buf));
    ASSERT_STR(buf, "");
    free(csv);
    gb_doc_free(&d);
    /* The results keep every param: what compare matches on is unchanged. */
    ASSERT_EQ(rs.results[1].params.n, 6);
    ASSERT_EQ(gb_params_int(&rs.results[1].params, "max_batch"), 1);
    gb_results_free(&rs);

    /* The progress line: a SingleStream case's, then find_peak's (its load set by the search). */
    const char *cols = getenv("COLUMNS");
    char was[32];
    snprintf(was, sizeof was, "%s", cols ? cols : "");
    setenv("COLUMNS", "400", 1); /* the whole line */
    static const char *const cases[][2] = {
        {"{shape: 64x64, scenario: SingleStream}", "scenario=SingleStream"},
        {"{shape: 64x64, find_peak: true, max_batch: 8, max_wait: 2000}", "max_wait=2000"}};
    for (size_t k = 0; k < 2; k++) {
        struct gb_profile p;
        struct gb_plan plan;
        gb_test_plan_case("serve", cases[k][0], &p, &plan);
        char *line = NULL;
        size_t n = 0;
        FILE *pf = open_memstream(&line, &n);
        gb__runner_progress(pf, 0, &plan, gb_now(), NULL);
        fclose(pf);
        printf("%s\n", line + strcspn(line, "["));
        ASSERT_CONTAINS(line, cases[k][1]);
        ASSERT(!strstr(line, "load=") && !strstr(line, "fps=") && !strstr(line, "deadline="));
        ASSERT(k == 1 || (!strstr(line, "max_wait=") && !strstr(line, "max_batch=")));
        free(line);
        gb_plan_free(&plan);
        gb_profile_free(&p);
    }
    if (cols)
        setenv("COLUMNS", was, 1);
    else
        unsetenv("COLUMNS");
}
