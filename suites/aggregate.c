/* aggregate — a multi-device suite (multi_common.h holds what those suites share): H2D or D2H
 * copies on n devices at the same time, each device copying `size` bytes between its own host
 * buffer and its own device buffer: the aggregate GB/s = n * size / wall time of the concurrent
 * copies, measured concurrently (never a sum of separate runs); with "speedup" and "efficiency"
 * against one device alone.
 *
 * Verification: copies carry a different pseudo-random pattern per device and are compared byte
 * for byte.
 */
#include <stdlib.h>
#include <string.h>

#include "suites/common.h"
#include "suites/multi_common.h"

static const char *const agg_ops[] = {"h2d", "d2h", NULL};
static const char *const agg_mems[] = {"pinned", "pageable", NULL};

static const struct gb_axis_def aggregate_axes[] = {
    GB_AXIS_STR("op", "[h2d, d2h]", agg_ops, "h2d or d2h, on every device at the same time"),
    GB_AXIS_STR("memory", "pinned", agg_mems, "host memory: pinned (page-locked) or pageable"),
    GB_MULTI_NDEV_AXIS("devices copying at once"),
    GB_AXIS_SIZE("size", "[4MiB, 64MiB]", 1, 0, "bytes per copy per device"),
};

struct aggregate {
    struct gb_multi_team team; /* first: gb_multi_run() */
    bool h2d;
    uint64_t size;
    struct gb_buf *host[GB_MAX_SET], *dev[GB_MAX_SET];
    unsigned char *pattern[GB_MAX_SET];
};

static int aggregate_job(struct gb_team *t, size_t rank, void *arg)
{
    (void)t;
    struct aggregate *a = arg;
    const struct gb_backend_ops *ops = a->team.ctx->ops;
    struct gb_queue *q = a->team.ctx->queues[rank];
    struct gb_buf *dst = a->h2d ? a->dev[rank] : a->host[rank];
    struct gb_buf *src = a->h2d ? a->host[rank] : a->dev[rank];
    int err = 0;
    for (uint64_t r = 0; r < a->team.reps && !err; r++)
        err = ops->copy(q, dst, 0, src, 0, a->size, GB_COPY_ASYNC);
    return err ? err : ops->queue_sync(q);
}

static int aggregate_setup(struct gb_case_ctx *ctx)
{
    struct aggregate *a = ctx->state;
    a->h2d = strcmp(gb_params_str(ctx->params, "op"), "h2d") == 0;
    a->size = gb_params_size(ctx->params, "size");
    enum gb_mem_kind kind = strcmp(gb_params_str(ctx->params, "memory"), "pinned") == 0
                                ? GB_MEM_HOST_PINNED
                                : GB_MEM_HOST_PAGEABLE;
    int err = gb_multi_ndev(ctx, &a->team.n);
    for (size_t i = 0; i < a->team.n && !err; i++)
        err = gb_multi_fits(ctx, i, a->size, a->size);
    for (size_t i = 0; i < a->team.n && !err; i++) {
        if (!(a->pattern[i] = malloc(a->size)))
            return GB_FAIL(GB_ENOMEM, "pattern of %llu bytes", (unsigned long long)a->size);
        gb_fill_pattern(a->pattern[i], a->size, 17 + i);
        if ((err = gb_multi_alloc(ctx, i, a->size, kind, &a->host[i])) ||
            (err = gb_multi_alloc(ctx, i, a->size, GB_MEM_DEVICE, &a->dev[i])))
            break;
        /* The source holds the pattern, the destination something else. */
        if (a->h2d) {
            memcpy(a->host[i]->host, a->pattern[i], a->size);
        } else {
            err = gb_multi_upload(ctx, i, a->dev[i], a->pattern[i], a->size);
            memset(a->host[i]->host, 0, a->size);
        }
    }
    if (!err)
        err = gb_multi_team_start(ctx, aggregate_job);
    ctx->op.bytes = (double)a->team.n * (double)a->size;
    return err;
}

static int aggregate_verify(struct gb_case_ctx *ctx)
{
    struct aggregate *a = ctx->state;
    unsigned char *h = malloc(a->size);
    if (!h)
        return GB_FAIL(GB_ENOMEM, "read-back of %llu bytes", (unsigned long long)a->size);
    int err = 0;
    for (size_t i = 0; i < a->team.n && !err; i++) {
        if (a->h2d)
            err = gb_multi_download(ctx, i, h, a->dev[i], a->size);
        else
            memcpy(h, a->host[i]->host, a->size);
        if (!err)
            err = gb_case_check_bytes(ctx, h, a->pattern[i], a->size, "device %zu", i);
    }
    free(h);
    return err;
}

static void aggregate_teardown(struct gb_case_ctx *ctx)
{
    struct aggregate *a = ctx->state;
    gb_multi_team_stop(ctx);
    for (size_t i = 0; i < GB_MAX_SET; i++) {
        gb_case_free_bufs(ctx, &a->host[i], &a->dev[i], NULL);
        free(a->pattern[i]);
        a->pattern[i] = NULL;
    }
}

const struct gb_suite gb_suite_aggregate = {
    .name = "aggregate",
    .summary = "H2D / D2H on several devices at the same time: aggregate GB/s against one device",
    .axes = aggregate_axes,
    .naxes = sizeof aggregate_axes / sizeof aggregate_axes[0],
    .case_axis = "op",
    .state_size = sizeof(struct aggregate),
    .setup = aggregate_setup,
    .run = gb_multi_run,
    .verify = aggregate_verify,
    .teardown = aggregate_teardown,
    .flags = GB_SUITE_MULTI_DEVICE | GB_SUITE_SCALING,
};
