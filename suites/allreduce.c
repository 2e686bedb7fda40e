/* allreduce — a multi-device suite (multi_common.h holds what those suites share): the sum of a
 * float buffer of `size` bytes across ndev devices, out of place (in stays, out receives the
 * sum, as nccl-tests' default), by a ring: n - 1 reduce-scatter steps in which every device
 * receives a chunk (1/n of the buffer) from its predecessor and adds it to its own
 * (kernels/multi.cl multi_reduce), then n - 1 all-gather steps that pass the reduced
 * chunks around (Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
 * workstations", JPDC 2009). Each step moves a chunk over the same path as `peer` would (direct
 * where every neighbour pair has peer access, else staged through pinned host memory in 4 MiB
 * pieces, reading one back while writing the previous: gb_multi_ring_run() in multi_common.c),
 * one host thread per device, the steps separated by the team's barrier.
 * Figures, after nccl-tests (doc/PERFORMANCE.md): algbw = size / time (the headline, GB/s) and
 * busbw = algbw * 2 (n - 1) / n, the bandwidth each link sustained, comparable across n.
 * On one device the all-reduce is a copy of in to out (busbw 0): the 1-device baseline.
 * Verification: device d holds in[j] = d + 1 + (j mod 5), so every out[j] on every device must be
 * n (n + 1) / 2 + n (j mod 5), exactly (small integers in float).
 */
#include <math.h>
#include <stdlib.h>

#include "suites/common.h"
#include "suites/multi_common.h"

static const char *const ar_ops[] = {"sum", NULL};

static const struct gb_axis_def allreduce_axes[] = {
    {.name = "op",
     .type = GB_V_STR,
     .def = "sum",
     .choices = ar_ops,
     .help = "the reduction: sum of floats"},
    GB_MULTI_NDEV_AXIS("devices in the ring"),
    {.name = "size",
     .type = GB_V_SIZE,
     .def = "{from: 64KiB, to: 64MiB, factor: 16}",
     .min = 4,
     .help = "bytes of the buffer reduced (floats)"},
};

struct allreduce {
    struct gb_multi_team team; /* first: gb_multi_run() */
    uint64_t count;            /* floats */
    struct gb_buf *in[GB_MAX_SET], *out[GB_MAX_SET];
    struct gb_multi_ring ring; /* the ring's buffers, queues and kernels (multi_common.h) */
};

static int allreduce_job(struct gb_team *t, size_t rank, void *arg)
{
    struct allreduce *a = arg;
    const struct gb_backend_ops *ops = a->team.ctx->ops;
    struct gb_queue *q = a->team.ctx->queues[rank];
    int err = 0;
    for (uint64_t r = 0; r < a->team.reps && !err; r++) {
        /* The neighbours of the last step of the previous repetition may still read this
         * device's chunks. */
        if (r > 0 && a->team.n > 1 && (err = gb_team_barrier(t)))
            break;
        err =
            gb_multi_ring_run(&a->ring, t, rank, GB_RING_ALLREDUCE, a->in, a->out, 0, a->count, 1);
    }
    if (!err)
        err = ops->queue_sync(q);
    return err;
}

static int allreduce_setup(struct gb_case_ctx *ctx)
{
    struct allreduce *a = ctx->state;
    int err = gb_multi_ndev(ctx, &a->team.n);
    if (err)
        return err;
    const uint64_t bytes = gb_params_size(ctx->params, "size");
    a->count = bytes / sizeof(float);
    if (a->count < a->team.n)
        return gb_case_skip(ctx, "%llu bytes hold fewer floats than the ring has devices (%zu)",
                            (unsigned long long)bytes, a->team.n);
    const uint64_t maxc = (a->count + a->team.n - 1) / a->team.n; /* the largest chunk */
    const uint64_t nbytes = a->count * sizeof(float);
    float *h = malloc(nbytes);
    if (!h)
        return GB_FAIL(GB_ENOMEM, "host buffer of %llu bytes", (unsigned long long)nbytes);
    for (size_t i = 0; i < a->team.n && !err; i++) {
        for (uint64_t j = 0; j < a->count; j++)
            h[j] = (float)(i + 1 + j % 5);
        if ((err = gb_multi_alloc(ctx, i, nbytes, GB_MEM_DEVICE, &a->in[i])) ||
            (err = gb_multi_alloc(ctx, i, nbytes, GB_MEM_DEVICE, &a->out[i])) ||
            (err = gb_multi_upload(ctx, i, a->in[i], h, nbytes)) ||
            (err = gb_multi_poison(ctx, i, a->out[i], nbytes, GB_F32)))
            break;
    }
    free(h);
    if (!err)
        err = gb_multi_ring_setup(ctx, &a->ring, a->team.n, maxc, ctx->queues);
    if (!err)
        err = gb_multi_team_start(ctx, allreduce_job);
    ctx->op.bytes = (double)nbytes;
    return err;
}

static int allreduce_verify(struct gb_case_ctx *ctx)
{
    struct allreduce *a = ctx->state;
    const uint64_t nbytes = a->count * sizeof(float);
    float *h = malloc(nbytes);
    if (!h)
        return GB_FAIL(GB_ENOMEM, "read-back of %llu bytes", (unsigned long long)nbytes);
    int err = 0;
    const double n = (double)a->team.n;
    ctx->max_error = 0;
    for (size_t i = 0; i < a->team.n && !err; i++) {
        if ((err = gb_multi_download(ctx, i, h, a->out[i], nbytes)))
            break;
        for (uint64_t j = 0; j < a->count; j++) {
            const double gold = n * (n + 1) / 2 + n * (double)(j % 5);
            if ((double)h[j] != gold) {
                ctx->max_error = fabs((double)h[j] - gold) / gold;
                err = gb_case_mismatch(ctx, "device %zu: out[%llu] = %.9g, expected %.9g (exact)",
                                       i, (unsigned long long)j, h[j], gold);
                break;
            }
        }
    }
    free(h);
    return err;
}

static void allreduce_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct allreduce *a = ctx->state;
    const double algbw = (double)a->count * sizeof(float) / op_time_s / 1e9;
    gb_case_figure(ctx, "algbw", "GB/s", algbw);
    gb_case_figure(ctx, "busbw", "GB/s", algbw * 2.0 * (double)(a->team.n - 1) / (double)a->team.n);
    gb_case_text(ctx, "path", "%s", a->team.n == 1 ? "d2d" : a->ring.direct ? "peer" : "staged");
}

static void allreduce_teardown(struct gb_case_ctx *ctx)
{
    struct allreduce *a = ctx->state;
    gb_multi_team_stop(ctx);
    for (size_t i = 0; i < GB_MAX_SET; i++)
        gb_case_free_bufs(ctx, &a->in[i], &a->out[i], NULL);
    gb_multi_ring_free(ctx, &a->ring);
}

const struct gb_suite gb_suite_allreduce = {
    .name = "allreduce",
    .summary = "ring all-reduce (sum of floats) across devices: algbw and busbw (nccl-tests)",
    .axes = allreduce_axes,
    .naxes = sizeof allreduce_axes / sizeof allreduce_axes[0],
    .case_axis = "op",
    .state_size = sizeof(struct allreduce),
    .setup = allreduce_setup,
    .run = gb_multi_run,
    .verify = allreduce_verify,
    .teardown = allreduce_teardown,
    .flags = GB_SUITE_MULTI_DEVICE,
    .figures = allreduce_figures,
};
