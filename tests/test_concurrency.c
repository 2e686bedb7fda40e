/* The concurrency suite: every kernel on 1 to 3 queues verified with its
 * per-queue figures and overlap, broken kernels and a miscounted queue caught, and Jain's index
 * on plain numbers; the priority case's skip and its reason on a device without priorities, its
 * protocol on faked priority queues with broken fill, broken tick and a miscount caught, and its
 * percentiles on plain numbers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/config.h"
#include "suites/concurrency_state.h"
#include "test.h"

TEST(concurrency_jain_index)
{
    const double equal[] = {3, 3, 3, 3}, one[] = {5, 0, 0, 0}, two[] = {1, 2};
    ASSERT(fabs(gb_conc_jain(equal, 4) - 1.0) < 1e-15);
    ASSERT(fabs(gb_conc_jain(one, 4) - 0.25) < 1e-15); /* one queue gets all: 1/n */
    ASSERT(fabs(gb_conc_jain(two, 2) - 0.9) < 1e-15);  /* 9 / (2 * 5) */
    ASSERT(isnan(gb_conc_jain(equal, 0)));
}

TEST_TIMEOUT(suite_concurrency_every_kernel_verifies, 180)
{
    struct gb_results rs;
    gb_test_run_suite("measure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, max_samples: 5, "
                      "max_time: 200ms, min_sample_time: 2ms}\n",
                      "concurrency", "{queues: [1, 3], size: 1MiB, items: 4096, iters: 256}", &rs);
    ASSERT_EQ(rs.nresults, 6);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_MSG(r->status == GB_STATUS_OK, "%s: %s", r->case_name, r->reason);
        ASSERT(r->value > 0);
        const int64_t nq = gb_params_int(&r->params, "queues");
        const struct gb_figure *j = gb_test_figure(r, "fairness"),
                               *lo = gb_test_figure(r, "queue_rate_min"),
                               *hi = gb_test_figure(r, "queue_rate_max"),
                               *ov = gb_test_figure(r, "overlap");
        if (!gb_test_figure(r, "per_queue")) { /* a device whose event timer is trusted */
            ASSERT(j && lo && hi);
            ASSERT(j->v[0] >= 1.0 / (double)nq - 1e-12 && j->v[0] <= 1.0 + 1e-12);
            ASSERT(lo->v[0] > 0 && lo->v[0] <= hi->v[0]);
        }
        ASSERT_EQ(ov != NULL, nq > 1); /* derived against the one-queue case */
        if (ov)
            ASSERT(ov->v[0] > 0);
    }
    ASSERT_STR(rs.results[4].unit, "Mlaunch/s");
    gb_test_check_results_schema(&rs);
    gb_results_free(&rs);
}

/* kernel `kernel` on 2 queues by hand: right (0), built with GB_BREAK=1 (1), or one queue's
 * launch count off by one (2, tick). */
static void conc_case(const char *kernel, int how)
{
    char params[256];
    snprintf(params, sizeof params, "{kernel: %s, queues: 2, size: 64KiB, items: 1000, iters: 64}",
             kernel);
    const struct gb_suite *s;
    struct gb_case_ctx *ctx;
    struct gb_test_case *tc = gb_test_case_open("concurrency", params, &s, &ctx);
    struct conc *c = ctx->state;
    c->hook.test_define = how == 1 ? "GB_BREAK=1" : NULL;
    ASSERT_OK(s->setup(ctx));
    ASSERT_OK(s->run(ctx, 2));
    ASSERT_OK(s->settle(ctx, 2));
    if (how == 2)
        c->qs[1].ops++;
    const int got = s->verify(ctx);
    if (how == 0) {
        ASSERT_MSG(got == 0, "%s: %s", kernel, ctx->reason);
    } else {
        ASSERT_MSG(got == GB_EVERIFY, "%s broken %d: %s", kernel, how, gb_err_name(got));
        ASSERT_CONTAINS(ctx->reason, "queue ");
        printf("%s broken %d caught: %s\n", kernel, how, ctx->reason);
    }
    gb_test_case_close(tc);
}

TEST_TIMEOUT(broken_concurrency_kernels_are_caught, 120)
{
    conc_case("triad", 0);
    conc_case("triad", 1);
    conc_case("chain", 0);
    conc_case("chain", 1);
    conc_case("tick", 0);
    conc_case("tick", 2);
}

TEST(concurrency_p50_p99)
{
    double v[101], p50, p99;
    for (int i = 0; i < 101; i++)
        v[i] = (double)((i * 37) % 101); /* 0..100, shuffled */
    gb_conc_p50_p99(v, 101, &p50, &p99);
    ASSERT(fabs(p50 - 50.0) < 1e-12);
    ASSERT(fabs(p99 - 99.0) < 1e-12);       /* rank 0.99 * 100 = 99 */
    ASSERT(v[0] == 0.0 && v[100] == 100.0); /* sorted in place */
    double two[] = {4, 2};
    gb_conc_p50_p99(two, 2, &p50, &p99);
    ASSERT(fabs(p50 - 3.0) < 1e-12 && fabs(p99 - 3.98) < 1e-12);
    gb_conc_p50_p99(v, 0, &p50, &p99);
    ASSERT(isnan(p50) && isnan(p99));
}

/* The priority case on this machine's OpenCL device: a recorded skip that says why where the
 * device has no cl_khr_priority_hints (PoCL's and Intel's CPU runtimes), else a measurement with
 * its latency figures. queues 1 is dropped by the plan (no queue to fill the device). */
TEST_TIMEOUT(suite_concurrency_priority_skips_with_reason, 120)
{
    struct gb_results rs;
    gb_test_run_suite("measure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, max_samples: 3, "
                      "max_time: 200ms, min_sample_time: 1ms}\n",
                      "concurrency", "{kernel: priority, queues: [1, 3], items: 1024, iters: 64}",
                      &rs);
    ASSERT_EQ(rs.nresults, 1);
    const struct gb_result *r = &rs.results[0];
    ASSERT_EQ(gb_params_int(&r->params, "queues"), 3);
    if (r->status == GB_STATUS_SKIPPED) {
        ASSERT_STR(r->reason, "queue priorities: the OpenCL device has no cl_khr_priority_hints");
        printf("priority skipped: %s\n", r->reason);
    } else {
        ASSERT_MSG(r->status == GB_STATUS_OK, "%s", r->reason);
        ASSERT_STR(r->metric, "latency_p99");
        ASSERT(gb_test_figure(r, "high_p99") && gb_test_figure(r, "default_p99") &&
               gb_test_figure(r, "priority_gain") && gb_test_figure(r, "idle_p50"));
    }
    gb_test_check_results_schema(&rs);
    gb_results_free(&rs);
}

/* A device without priorities cannot run the protocol here, so the priority tests give the
 * suite a copy of the backend whose "priority" queues are ordinary ones (equal priorities): the
 * fill, the windows, the figures and the checks run as on a GPU. */
static int fake_priority_queue(struct gb_device *dev, enum gb_queue_priority p,
                               struct gb_queue **out)
{
    (void)p;
    return dev->ops->queue_create(dev, out);
}

/* The priority case driven by hand on 3 queues: right (0), the fill built with GB_BREAK=1 (1),
 * the tick with GB_BREAK=2 (2), or the high queue's launch count off by one (3). */
static void prio_case(int how)
{
    const struct gb_suite *s;
    struct gb_case_ctx *ctx;
    struct gb_test_case *tc = gb_test_case_open(
        "concurrency", "{kernel: priority, queues: 3, items: 1024, iters: 64}", &s, &ctx);
    struct gb_backend_ops faked = *ctx->ops;
    faked.queue_create_priority = fake_priority_queue;
    ctx->ops = &faked;
    struct conc *c = ctx->state;
    c->hook.test_define = how == 1 ? "GB_BREAK=1" : how == 2 ? "GB_BREAK=2" : NULL;
    ASSERT_OK(s->setup(ctx));
    ASSERT_EQ(ctx->op.max_batch, 1);
    ASSERT(ctx->op.timer == GB_TIMER_HOST_CALL);
    ASSERT_OK(s->run(ctx, 1)); /* a warm-up window: not kept */
    ASSERT_OK(s->settle(ctx, 1));
    ASSERT_EQ(c->hi_p99.n, 0);
    ctx->sampling = true; /* two kept samples, as the harness marks them */
    for (int i = 0; i < 2; i++) {
        ASSERT_OK(s->run(ctx, 1));
        ASSERT_OK(s->settle(ctx, 1));
    }
    ctx->sampling = false;
    ASSERT_EQ(c->hi_p99.n, 2);
    ASSERT_EQ(c->hi_lat.n, 2 * CONC_PRIO_WINDOW);
    ASSERT_EQ(c->hi_ops, 3 * CONC_PRIO_WINDOW);
    if (how == 3)
        c->hi_ops++;
    const int got = s->verify(ctx);
    if (how == 0) {
        ASSERT_MSG(got == 0, "priority: %s", ctx->reason);
        /* CONC_PRIO_MIN_DEFAULT default windows and one idle window, all counted */
        ASSERT_EQ(c->qs[0].ops, (CONC_PRIO_MIN_DEFAULT + 1) * CONC_PRIO_WINDOW);
        s->figures(ctx, 0);
        const char *names[] = {"high_p50",    "high_p99",      "default_p50",
                               "default_p99", "priority_gain", "idle_p50"};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            size_t j = 0;
            while (j < ctx->nfigures && strcmp(ctx->figures[j].name, names[i]))
                j++;
            ASSERT_MSG(j < ctx->nfigures, "no figure %s", names[i]);
            ASSERT(ctx->figures[j].v[0] > 0 && isfinite(ctx->figures[j].v[0]));
        }
        ASSERT_EQ(ctx->headline.n, 2); /* one p99 per kept window */
        ASSERT_STR(ctx->headline.metric, "latency_p99");
        ASSERT(ctx->headline.v[0] > 0);
        free(ctx->headline.v);
        ctx->headline.v = NULL;
    } else {
        ASSERT_MSG(got == GB_EVERIFY, "priority broken %d: %s", how, gb_err_name(got));
        ASSERT_CONTAINS(ctx->reason, how == 1 ? "fill queue " : "high-priority queue");
        printf("priority broken %d caught: %s\n", how, ctx->reason);
    }
    gb_test_case_close(tc);
}

TEST_TIMEOUT(broken_concurrency_priority_is_caught, 120)
{
    prio_case(0);
    prio_case(1);
    prio_case(2);
    prio_case(3);
}
