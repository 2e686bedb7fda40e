/* A toy suite, for tests/test_plugins.c: copies of `size` bytes by its own kernel (toy.cl, one
 * word per work-item), verified byte for byte. It proves the suite socket: copied into a test
 * build as suites/toy.c and kernels/toy.cl with one line, `['toy', 'toy.cl']`, in meson.build's
 * suites list, it runs, writes results, is run by the tests that run every suite, and gets a
 * chart from its hint with no other file touched. Not part of the normal build. */
#include <stdlib.h>
#include <string.h>

#include "run/suite.h"
#include "suites/common.h"

struct toy {
    struct gb_buf *src, *dst;
    uint64_t bytes;
    unsigned char *host;
    struct gb_program *prog;
    struct gb_kernel *k;
    struct gb_launch l;
};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("op", "[copy]", NULL, "what is timed"),
    GB_AXIS_SIZE("size", "[4KiB, 64KiB]", 4, 0, "bytes"),
};

static int toy_setup(struct gb_case_ctx *ctx)
{
    struct toy *t = ctx->state;
    t->bytes = gb_params_size(ctx->params, "size");
    t->host = malloc(t->bytes);
    if (!t->host)
        return gb_case_skip(ctx, "no host memory for %llu bytes", (unsigned long long)t->bytes);
    for (uint64_t i = 0; i < t->bytes; i++)
        t->host[i] = (unsigned char)(i * 7 + 3);
    if (t->bytes % 4)
        return gb_case_skip(ctx,
                            "the kernel copies whole 32-bit words: size %llu is not a "
                            "multiple of 4",
                            (unsigned long long)t->bytes);
    int rc = gb_case_build(ctx, "toy.cl", "toy_copy", NULL, 0, &t->prog, &t->k);
    if (!rc)
        rc = gb_case_alloc(ctx, t->bytes, GB_MEM_DEVICE, &t->src);
    if (!rc)
        rc = gb_case_alloc(ctx, t->bytes, GB_MEM_DEVICE, &t->dst);
    if (!rc)
        rc = gb_case_upload(ctx, t->src, t->host, t->bytes);
    if (!rc) /* a copy that does nothing leaves the poison, which verify sees */
        rc = gb_case_poison(ctx, t->dst, t->bytes, GB_F32);
    t->l = (struct gb_launch){
        .dims = 1, .global = {t->bytes / 4, 1, 1}, .local = {1, 1, 1}, .nargs = 2};
    t->l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = t->src};
    t->l.args[1] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = t->dst};
    ctx->op = (struct gb_op_desc){.bytes = 2.0 * (double)t->bytes, .timer = GB_TIMER_DEVICE};
    return rc;
}

static int toy_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct toy *t = ctx->state;
    for (uint64_t i = 0; i < reps; i++) {
        int rc = ctx->ops->launch(ctx->q, t->k, &t->l);
        if (rc)
            return rc;
    }
    return 0;
}

static int toy_verify(struct gb_case_ctx *ctx)
{
    struct toy *t = ctx->state;
    unsigned char *got = malloc(t->bytes);
    if (!got)
        return gb_case_mismatch(ctx, "no host memory to verify");
    int rc = gb_case_download(ctx, got, t->dst, t->bytes);
    if (!rc && memcmp(got, t->host, t->bytes) != 0)
        rc = gb_case_mismatch(ctx, "the copy differs from its source");
    free(got);
    return rc;
}

/* Safe after a partial setup and a second time: every handle is NULL or the suite's. */
static void toy_teardown(struct gb_case_ctx *ctx)
{
    struct toy *t = ctx->state;
    free(t->host);
    t->host = NULL;
    gb_case_free_bufs(ctx, &t->src, &t->dst, (struct gb_buf **)NULL);
    gb_case_free_kernel(ctx, &t->k, &t->prog);
}

/* What it is (name, axes, the chart the report draws from its hint), then its callbacks. */
const struct gb_suite gb_suite_toy = {
    .name = "toy",
    .summary = "a toy: copies by its own kernel (GB/s), the suite socket's test",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "op",
    .chart = {GB_CHART_LINE, "size"},
    .setup = toy_setup,
    .run = toy_run,
    .verify = toy_verify,
    .teardown = toy_teardown,
    .state_size = sizeof(struct toy),
};
