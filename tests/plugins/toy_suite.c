/* A toy suite, for tests/test_plugins.c: device-to-device copies of `size` bytes, verified byte
 * for byte. It proves the suite socket: copied into a test build as suites/toy.c with one line,
 * `toy`, in meson.build's suites list, it runs, writes results, and gets a chart from its hint
 * with no other file touched. Not part of the normal build. */
#include <stdlib.h>
#include <string.h>

#include "run/suite.h"
#include "suites/common.h"

struct toy {
    struct gb_buf *src, *dst;
    uint64_t bytes;
    unsigned char *host;
};

static const struct gb_axis_def axes[] = {
    {.name = "op", .type = GB_V_STR, .def = "[copy]", .help = "what is timed"},
    {.name = "size", .type = GB_V_SIZE, .def = "[4KiB, 64KiB]", .min = 1, .help = "bytes"},
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
    int rc = gb_case_alloc(ctx, t->bytes, GB_MEM_DEVICE, &t->src);
    if (!rc)
        rc = gb_case_alloc(ctx, t->bytes, GB_MEM_DEVICE, &t->dst);
    if (!rc)
        rc = gb_case_upload(ctx, t->src, t->host, t->bytes);
    if (!rc) /* a copy that does nothing leaves the poison, which verify sees */
        rc = gb_case_poison(ctx, t->dst, t->bytes, GB_F32);
    ctx->op = (struct gb_op_desc){.bytes = 2.0 * (double)t->bytes, .timer = GB_TIMER_DEVICE};
    return rc;
}

static int toy_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct toy *t = ctx->state;
    for (uint64_t i = 0; i < reps; i++) {
        int rc = ctx->ops->copy(ctx->q, t->dst, 0, t->src, 0, t->bytes, GB_COPY_ASYNC);
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
}

/* What it is (name, axes, the chart the report draws from its hint), then its callbacks. */
const struct gb_suite gb_suite_toy = {
    .name = "toy",
    .summary = "a toy: D2D copies (GB/s), the suite socket's test",
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
