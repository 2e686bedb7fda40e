/* The suites on the real OpenCL device (PoCL here): every kernel builds and verifies, and the
 * verifiers reject wrong output. */
#include <stdlib.h>

#include "run/config.h"
#include "run/measure.h"
#include "run/plan.h"
#include "run/runner.h"
#include "run/tuning_cache.h"
#include "suites/common.h"
#include "suites/memory_state.h"
#include "suites/transfer_state.h"
#include "test.h"

static const char *budget = "measure: {min_samples: 3, max_samples: 5, max_time: 50ms, "
                            "min_sample_time: 1ms, warmup_runs: 1}\n";

TEST_TIMEOUT(suite_memory_every_kernel_verifies, 180)
{
    struct gb_results rs;
    gb_test_run_suite(budget, "memory",
                      "{op: [copy, mul, add, triad, dot], type: [float, double], wg: [1, 64, "
                      "1024], size: [1000, 3MiB]}",
                      &rs);
    ASSERT_EQ(rs.nresults, 5 * 2 * 3 * 2);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        char p[256];
        gb_params_format(&r->params, p, sizeof p);
        gb_test_assert_verified(r);
        ASSERT_MSG(r->max_error <= (strstr(p, "double") ? 1e-11 : 1e-4), "%s: error %g", p,
                   r->max_error);
        ASSERT_STR(r->unit, "GB/s");
    }
    gb_results_free(&rs);
}

/* Alignment: every op verifies with its arrays at byte offsets that keep elements
 * (and vectors) aligned, floats and doubles (where the device has fp64), with a whole-group and
 * a single-work-item tail; an offset that misaligns an element or a vector is a recorded skip
 * that says why; a buffer of size + offset over the largest allocation is a recorded skip
 * naming that buffer's size (its footprint, run/footprint.h). */
TEST_TIMEOUT(suite_memory_offset_every_op_verifies_aligned_offsets, 300)
{
    struct gb_device_info info;
    gb_test_opencl_info(&info);
    const bool fp64 = (info.caps & GB_CAP_FP64) != 0;
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "%ssuites:\n"
             "  - suite: memory\n    params: {op: [copy, mul, add, triad, dot], type: float, "
             "wg: 64, size: [4000, 1MiB], offset: [0, 4, 16, 4096, 1, 2]}\n"
             "  - suite: memory\n    params: {op: [copy, mul, add, triad, dot], type: double, "
             "wg: 64, size: 4000, offset: [8, 4096, 4]}\n"
             "  - suite: memory\n    params: {op: [copy, triad], type: float, size: 1MiB, vec: 4, "
             "offset: [4, 16, 4096]}\n"
             "  - suite: memory\n    params: {op: copy, type: float, size: 1MiB, "
             "offset: 1099511627776}\n",
             budget);
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    ASSERT_EQ(rs.nresults, 5 * 2 * 6 + 5 * 3 + 2 * 3 + 1);
    size_t ran = 0, misaligned = 0;
    for (size_t i = 0; i + 1 < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        char p[256];
        gb_params_format(&r->params, p, sizeof p);
        const bool dbl = strcmp(gb_params_str(&r->params, "type"), "double") == 0;
        const int64_t off = gb_params_int(&r->params, "offset");
        const int64_t vec = gb_params_int(&r->params, "vec");
        const int64_t align = (dbl ? 8 : 4) * (vec > 1 ? vec : 1);
        if (dbl && !fp64) {
            ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "%s: %s", p, gb_status_name(r->status));
            continue;
        }
        if (off % align) {
            ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "%s: %s: %s", p, gb_status_name(r->status),
                       r->reason);
            ASSERT_CONTAINS(r->reason, vec > 1 ? "not a multiple of a vector's 16 bytes"
                                       : dbl   ? "not a multiple of a double's 8 bytes"
                                               : "not a multiple of a float's 4 bytes");
            ASSERT_CONTAINS(r->reason, "misaligned");
            misaligned++;
            continue;
        }
        gb_test_assert_verified(r);
        ASSERT_MSG(r->max_error <= (dbl ? 1e-11 : 1e-4), "%s: error %g", p, r->max_error);
        ran++;
    }
    ASSERT_EQ(misaligned, 5 * 2 * 2 + (fp64 ? 5 : 0) + 2);
    ASSERT_EQ(ran, 5 * 2 * 4 + (fp64 ? 5 * 2 : 0) + 2 * 2);
    const struct gb_result *big = &rs.results[rs.nresults - 1];
    ASSERT_MSG(big->status == GB_STATUS_SKIPPED, "%s: %s", gb_status_name(big->status),
               big->reason);
    /* Its footprint (run/footprint.h): a buffer of the offset and the array. */
    ASSERT_CONTAINS(big->reason, "its largest buffer, 1.00 TiB, is over the device's largest "
                                 "allocation");
    gb_results_free(&rs);
}

/* The bytes counted do not depend on the offset (arrays x n x sizeof(T)), and each buffer holds
 * the offset before its array: the array written ends at offset + n x sizeof(T). */
TEST(suite_memory_offset_counts_the_same_bytes)
{
    static const char *const params[] = {
        "{op: triad, type: float, size: 4000, offset: 0}",
        "{op: triad, type: float, size: 4000, offset: 4096}",
    };
    for (size_t i = 0; i < 2; i++) {
        const struct gb_suite *s;
        struct gb_case_ctx *ctx;
        struct gb_test_case *tc = gb_test_case_open("memory", params[i], &s, &ctx);
        ASSERT_OK(s->setup(ctx));
        const struct memory *m = ctx->state;
        ASSERT_EQ(m->off, i ? 4096 : 0);
        ASSERT_EQ(m->n, 1000);
        ASSERT_NEAR(ctx->op.bytes, 3.0 * 1000 * 4, 0);
        ASSERT_OK(s->run(ctx, 1));
        ASSERT_OK(ctx->ops->queue_sync(ctx->q));
        ASSERT_OK(s->verify(ctx));
        gb_test_case_close(tc);
    }
}

/* The tuned dot (kernels/dot.cl, from a tuning cache entry) reads its arrays at the offset too,
 * and verifies. */
TEST_TIMEOUT(suite_memory_offset_tuned_dot_verifies, 120)
{
    char cache[512];
    const char *const names[] = {"WG", "VEC", "LAYOUT", "REDUCE", "GPC"};
    const int64_t vals[] = {64, 4, 1, 0, 2};
    gb_test_tuning_cache(cache, sizeof cache, "dot", "n=262144 type=float", 5, names, vals);
    char head[1024];
    snprintf(head, sizeof head, "%stuning_cache: %s\n", budget, cache);
    struct gb_results rs;
    gb_test_run_suite(head, "memory",
                      "{op: dot, type: float, size: 1MiB, config: tuned, "
                      "offset: [0, 4, 64, 4096]}",
                      &rs);
    ASSERT_EQ(rs.nresults, 4);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        char p[256];
        gb_params_format(&r->params, p, sizeof p);
        gb_test_assert_verified(r);
        const struct gb_figure *f = gb_test_figure(r, "config");
        ASSERT_MSG(f && strstr(f->text, "(tuned)"), "%s: config %s", p, f ? f->text : "-");
    }
    gb_results_free(&rs);
}

/* A kernel that ignores the offset (stream.cl built with GB_IGNORE_OFFSET: every array read and
 * written from the start of its buffer) fails verification: copy, mul, add and triad write over
 * the guard before the offset, and dot adds the NaN there. The same cases verify when built
 * right. */
TEST_TIMEOUT(broken_memory_ignored_offset_is_caught, 120)
{
    static const struct {
        const char *params, *reason;
    } cases[] = {
        {"{op: copy, type: float, size: 4000, offset: 16}", "before the offset 16"},
        {"{op: mul, type: float, size: 1MiB, offset: 4}", "before the offset 4"},
        {"{op: add, type: float, size: 4000, offset: 4096}", "before the offset 4096"},
        {"{op: triad, type: float, size: 1MiB, wg: 64, offset: 64}", "before the offset 64"},
        {"{op: triad, type: float, size: 1MiB, vec: 4, offset: 16}", "before the offset 16"},
        {"{op: dot, type: float, size: 1MiB, config: default, offset: 4}", "dot = nan"},
        {"{op: dot, type: float, size: 4000, config: default, offset: 4096}", "dot = nan"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int broken = 0; broken < 2; broken++) {
            const struct gb_suite *s;
            struct gb_case_ctx *ctx;
            struct gb_test_case *tc = gb_test_case_open("memory", cases[c].params, &s, &ctx);
            ((struct gb_test_hook *)ctx->state)->test_define = broken ? "GB_IGNORE_OFFSET" : NULL;
            const int r = s->setup(ctx);
            ASSERT_MSG(r == 0, "%s: setup: %s (%s)", cases[c].params, gb_err_name(r), ctx->reason);
            ASSERT_OK(s->run(ctx, 2));
            ASSERT_OK(ctx->ops->queue_sync(ctx->q));
            const int got = s->verify(ctx);
            ASSERT_MSG(got == (broken ? GB_EVERIFY : 0), "%s (%s): verify returned %s: %s",
                       cases[c].params, broken ? "offset ignored" : "right", gb_err_name(got),
                       ctx->reason);
            if (broken) {
                printf("%-62s caught: %.120s\n", cases[c].params, ctx->reason);
                ASSERT_CONTAINS(ctx->reason, cases[c].reason);
            }
            gb_test_case_close(tc);
        }
}

TEST_TIMEOUT(suite_transfer_every_direction_verifies, 180)
{
    struct gb_results rs;
    gb_test_run_suite(budget, "transfer",
                      "{op: [h2d, d2h, d2d, bidir], memory: [pinned, pageable], mode: [async, "
                      "sync], size: [1, 4097, 3MiB]}",
                      &rs);
    /* h2d, d2h: 2 memories x 2 modes; d2d: 1 memory x 2 modes; bidir: 2 memories x async. */
    ASSERT_EQ(rs.nresults, (4 + 4 + 2 + 2) * 3);
    size_t bidir_ok = 0, bidir_skipped = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        char p[256];
        gb_params_format(&r->params, p, sizeof p);
        /* Pageable memory cannot overlap the two directions: a recorded skip, not a figure. */
        if (strcmp(r->case_name, "bidir") == 0 &&
            strcmp(gb_params_str(&r->params, "memory"), "pageable") == 0) {
            ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "%s: %s", p, gb_status_name(r->status));
            ASSERT_CONTAINS(r->reason, "bidir needs pinned host memory");
            bidir_skipped++;
            continue;
        }
        bidir_ok += strcmp(r->case_name, "bidir") == 0;
        gb_test_assert_verified(r);
        if (strcmp(r->case_name, "d2d") == 0)
            ASSERT_STR(gb_params_str(&r->params, "memory"), "device");
        ASSERT(r->op_time_us.median > 0);
    }
    ASSERT_EQ(bidir_ok, 3);
    ASSERT_EQ(bidir_skipped, 3);
    gb_results_free(&rs);
}

/* Alignment: every direction verifies at byte offsets on either side, the bytes
 * counted are the size's at every offset, and an offset whose buffer cannot be allocated is a
 * recorded skip. */
TEST_TIMEOUT(suite_transfer_offsets_verify_on_every_side, 180)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "%ssuites:\n  - suite: transfer\n    params: {op: [h2d, d2h, d2d, bidir], "
             "memory: pinned, size: [4097], offset: [0, 1, 4, 4096], "
             "offset_side: [src, dst, both]}\n"
             "  - suite: transfer\n    params: {op: h2d, memory: pageable, size: 1MiB, "
             "offset: 1099511627776}\n",
             budget);
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    /* offset 0 merges its three sides into one case: 4 ops x (1 + 3 x 3). */
    ASSERT_EQ(rs.nresults, 4 * 10 + 1);
    for (size_t i = 0; i + 1 < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        gb_test_assert_verified(r);
    }
    const struct gb_result *big = &rs.results[rs.nresults - 1];
    ASSERT_MSG(big->status == GB_STATUS_SKIPPED, "%s: %s", gb_status_name(big->status),
               big->reason);
    ASSERT_CONTAINS(big->reason, "its largest buffer, 1.00 TiB");
    gb_results_free(&rs);
}

/* A copy that ignores its offset (the destination's, then the source's) fails verification. */
TEST(broken_transfer_ignored_offset_is_caught)
{
    for (int side = 0; side < 2; side++) {
        const struct gb_suite *s;
        struct gb_case_ctx *ctx;
        struct gb_test_case *tc = gb_test_case_open(
            "transfer", "{op: h2d, memory: pageable, size: 64KiB, offset: 64}", &s, &ctx);
        ASSERT_OK(s->setup(ctx));
        struct transfer *t = ctx->state;
        uint64_t *off = side == 0 ? &t->dst_off : &t->src_off;
        const uint64_t saved = *off;
        ASSERT_EQ(saved, 64);
        *off = 0; /* the planted defect: the copy runs as if there were no offset */
        ASSERT_OK(s->run(ctx, 2));
        ASSERT_OK(ctx->ops->queue_sync(ctx->q));
        *off = saved;
        ASSERT_EQ(s->verify(ctx), GB_EVERIFY);
        printf("verify said: %s\n", ctx->reason);
        ASSERT_CONTAINS(ctx->reason, side == 0 ? "before the offset" : "at offset 64");
        gb_test_case_close(tc);
    }
}

TEST_TIMEOUT(suite_wg_above_device_limit_is_skipped_not_launched, 60)
{
    struct gb_results rs;
    gb_test_run_suite(
        budget, "memory",
        "{op: [triad, dot], type: float, wg: [65536, 96], size: 1MiB, config: default}", &rs);
    ASSERT_EQ(rs.nresults, 4);
    ASSERT_EQ(rs.results[0].status, GB_STATUS_SKIPPED);
    ASSERT_CONTAINS(rs.results[0].reason, "exceeds the device maximum");
    ASSERT_EQ(rs.results[1].status, GB_STATUS_OK);
    ASSERT_EQ(rs.results[2].status, GB_STATUS_SKIPPED);
    ASSERT_EQ(rs.results[3].status, GB_STATUS_SKIPPED);
    ASSERT_CONTAINS(rs.results[3].reason, "power-of-two");
    gb_results_free(&rs);
}

/* Overwrites 8 bytes of a destination through the backend, as a faulty kernel or copy would. */
static void smash(struct gb_case_ctx *ctx, struct gb_buf *b, uint64_t off)
{
    static const unsigned char junk[8] = {0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a};
    gb_test_smash(ctx, b, off, junk, sizeof junk);
}

static void corrupt_triad(struct gb_case_ctx *ctx)
{
    struct memory *m = ctx->state;
    smash(ctx, m->a, 4096);
}
static void corrupt_dot(struct gb_case_ctx *ctx)
{
    struct memory *m = ctx->state;
    smash(ctx, m->sums, 0);
}

static void corrupt_h2d(struct gb_case_ctx *ctx)
{
    struct transfer *t = ctx->state;
    smash(ctx, t->dst, t->size - 8);
}

TEST(suite_verify_rejects_wrong_output)
{
    gb_test_corrupted_case_fails("memory", "{op: triad, type: float, size: 1MiB}", 3,
                                 corrupt_triad);
    gb_test_corrupted_case_fails("memory", "{op: dot, type: double, size: 1MiB}", 3, corrupt_dot);
    gb_test_corrupted_case_fails("transfer", "{op: h2d, memory: pageable, size: 64KiB}", 3,
                                 corrupt_h2d);
}
