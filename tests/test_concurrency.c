/* The concurrency suite (issue 28, part 1): every kernel on 1 to 3 queues verified with its
 * per-queue figures and overlap, broken kernels and a miscounted queue caught, and Jain's index
 * on plain numbers. */
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
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "measure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, max_samples: 5, "
             "max_time: 200ms, min_sample_time: 2ms}\nsuites:\n  - suite: concurrency\n"
             "    params: {queues: [1, 3], size: 1MiB, items: 4096, iters: 256}\n");
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
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
