/* Memory management (issue 27): the alloc suite on every OpenCL method and the host floor, its
 * checks caught by an allocation never touched and by a fill that writes half, and its skips. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/config.h"
#include "suites/alloc_state.h"
#include "test.h"

static const char *alloc_budget =
    "measure: {warmup_runs: 1, warmup_time: 0, min_samples: 20, max_samples: 30, "
    "max_time: 200ms}\n";

TEST_TIMEOUT(suite_alloc_every_method_verifies_or_says_why, 240)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "%ssuites:\n  - suite: alloc\n    params: {size: [4KiB, 1MiB]}\n", alloc_budget);
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    /* 8 methods x (alloc none, alloc first_use, free) x 2 sizes. */
    ASSERT_EQ(rs.nresults, 8 * 3 * 2);
    size_t ok = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        const char *method = gb_params_str(&r->params, "method");
        const bool cuda_only = strcmp(method, "async") == 0 ||
                               strcmp(method, "async_keep") == 0 ||
                               strcmp(method, "managed") == 0;
        if (cuda_only) {
            ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "%s: %s", method, r->reason);
            ASSERT_CONTAINS(r->reason, "OpenCL has no");
            continue;
        }
        if (strcmp(method, "svm") == 0 && r->status == GB_STATUS_SKIPPED) {
            ASSERT_CONTAINS(r->reason, "SVM");
            continue;
        }
        ASSERT_MSG(r->status == GB_STATUS_OK, "%s %s: %s", method,
                   gb_params_str(&r->params, "op"), r->reason);
        ok++;
        ASSERT_STR(r->unit, "us");
        const struct gb_figure *p50 = gb_test_figure(r, "p50_us"),
                               *p99 = gb_test_figure(r, "p99_us"),
                               *checked = gb_test_figure(r, "allocations_checked"),
                               *counts = gb_test_figure(r, "counts");
        ASSERT(p50 && p99 && checked && counts);
        ASSERT(p50->v[0] > 0 && p50->v[0] <= p99->v[0]);
        ASSERT(fabs(p50->v[0] - r->value) <= 1e-9 * r->value + 1e-12);
        /* Every timed operation's allocation was written and read back. */
        ASSERT_INT((uint64_t)checked->v[0], >=, (uint64_t)r->nsamples);
        if (strcmp(gb_params_str(&r->params, "op"), "free") == 0)
            ASSERT_STR(gb_params_str(&r->params, "touch"), "first_use");
    }
    ASSERT_INT(ok, >=, 3 * 3 * 2); /* device, pinned, registered, host at least */
    gb_test_check_results_schema(&rs);
    gb_results_free(&rs);
}

TEST_TIMEOUT(suite_alloc_skips_sizes_that_cannot_fit, 60)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "%ssuites:\n  - suite: alloc\n    params: {method: [device, host, pinned], op: alloc, "
             "touch: none, size: [1024TiB, 4098]}\n",
             alloc_budget);
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    ASSERT_EQ(rs.nresults, 6);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "%s: %s", gb_params_str(&r->params, "method"),
                   r->reason);
        if (gb_params_size(&r->params, "size") == 4098)
            ASSERT_CONTAINS(r->reason, "not a multiple of 4");
        else
            ASSERT_MSG(strstr(r->reason, "largest allocation") ||
                           strstr(r->reason, "available memory"),
                       "%s", r->reason);
    }
    gb_results_free(&rs);
}

/* One alloc case driven by hand, broken as `how` says: 0 right, 1 the timed path skips the
 * first use the check expects (an allocation never touched), 2 the fill writes half. */
static void alloc_case(const char *method, int how)
{
    char params[256];
    snprintf(params, sizeof params, "{method: %s, op: alloc, touch: first_use, size: 64KiB}",
             method);
    const struct gb_suite *s;
    struct gb_case_ctx *ctx;
    struct gb_test_case *tc = gb_test_case_open("alloc", params, &s, &ctx);
    struct alloc *a = ctx->state;
    a->hook.test_define = how == 2 ? "GB_BREAK=1" : NULL;
    ASSERT_OK(s->setup(ctx));
    if (how == 1)
        a->fill_in_run = false;
    for (int i = 0; i < 3; i++) {
        ASSERT_OK(s->prepare(ctx, 1));
        ASSERT_OK(s->run(ctx, 1));
        ASSERT_OK(s->settle(ctx, 1));
    }
    const int got = s->verify(ctx);
    if (how == 0) {
        ASSERT_MSG(got == 0, "%s: %s", method, ctx->reason);
        ASSERT_EQ(a->checked, 3);
    } else {
        ASSERT_MSG(got == GB_EVERIFY, "%s broken %d: verify returned %s", method, how,
                   gb_err_name(got));
        printf("alloc %-8s broken %d caught: %s\n", method, how, ctx->reason);
        ASSERT_CONTAINS(ctx->reason, "after its first use");
    }
    gb_test_case_close(tc);
}

TEST_TIMEOUT(broken_alloc_never_touched_is_caught, 120)
{
    static const char *const methods[] = {"device", "pinned", "registered", "host"};
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
        alloc_case(methods[i], 0);
        alloc_case(methods[i], 1);
    }
    alloc_case("device", 2);
}
