/* allreduce — a multi-device suite (multi_common.h holds what those suites share): the sum of a
 * float buffer of `size` bytes across ndev devices, out of place (in stays, out receives the
 * sum, as nccl-tests' default), by a ring: n - 1 reduce-scatter steps in which every device
 * receives a chunk (1/n of the buffer) from its predecessor and adds it to its own
 * (kernels/multi.cl multi_reduce), then n - 1 all-gather steps that pass the reduced
 * chunks around (Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
 * workstations", JPDC 2009). Each step moves a chunk over the same path as `peer` would (direct
 * where every neighbour pair has peer access, else staged through pinned host memory in 4 MiB
 * pieces, reading one back while writing the previous: ring_step()), one host thread per
 * device, the steps separated by the team's barrier.
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
    struct gb_multi_team team;    /* first: gb_multi_run() */
    bool direct;                  /* every neighbour pair copies directly (peer path) */
    uint64_t count;               /* floats */
    uint64_t off[GB_MAX_SET + 1]; /* chunk c is [off[c], off[c + 1]) */
    uint64_t sub;                 /* staged: floats per piece of a chunk (the pipeline's grain) */
    uint64_t rounds; /* staged: pieces of the largest chunk, the same for every device */
    struct gb_buf *in[GB_MAX_SET], *out[GB_MAX_SET], *recv[GB_MAX_SET];
    struct gb_buf *stage[GB_MAX_SET][2]; /* pinned, on each device: pieces it sends */
    struct gb_queue *q2[GB_MAX_SET];     /* staged: a second queue, for writes while reading */
    struct gb_program *prog[GB_MAX_SET];
    struct gb_kernel *k[GB_MAX_SET];
    uint32_t wg[GB_MAX_SET];
};

static uint64_t chunk_len(const struct allreduce *a, size_t c)
{
    return a->off[c + 1] - a->off[c];
}

/* Piece j of chunk c: [*lo, *lo + return) in floats relative to the chunk; 0 past its end. */
static uint64_t piece_of(const struct allreduce *a, size_t c, uint64_t j, uint64_t *lo)
{
    *lo = j * a->sub;
    uint64_t len = chunk_len(a, c);
    return *lo >= len ? 0 : len - *lo < a->sub ? len - *lo : a->sub;
}

/* Enqueues out[off + i] = in[off + i] + recv[roff + i] for i < n on q (multi_reduce). */
static int reduce(struct allreduce *a, size_t rank, struct gb_queue *q, uint64_t off, uint64_t roff,
                  uint64_t n)
{
    if (n == 0)
        return 0;
    const uint32_t wg = a->wg[rank];
    struct gb_launch l = {
        .dims = 1, .global = {(n + wg - 1) / wg * wg, 1, 1}, .local = {wg, 1, 1}, .nargs = 6};
    l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = a->out[rank]};
    l.args[1] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = a->in[rank]};
    l.args[2] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = a->recv[rank]};
    l.args[3] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = off};
    l.args[4] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = roff};
    l.args[5] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = n};
    return a->team.ctx->ops->launch(q, a->k[rank], &l);
}

/* One ring step for `rank`: chunk c of the predecessor's `from` buffer arrives here, added to
 * this device's input into out (`add`, reduce-scatter) or copied into out (all-gather); this
 * device sends chunk c + 1 of its own `from` buffer to its successor the same way.
 *
 * Direct: after a barrier (the predecessor's chunk from the step before is complete) the chunk
 * is pulled with peer_copy into recv (or out) and reduced.
 * Staged, pipelined in pieces of `sub` floats through two pinned buffers per device: in round
 * j every device reads piece j of its outgoing chunk back into stage[j % 2] on its first queue
 * while it writes piece j - 1 of its predecessor's, from the predecessor's stage[(j - 1) % 2],
 * on its second queue (and reduces it there); both queues are drained and the team meets at a
 * barrier before the next round. A buffer is refilled two rounds after it was filled, when its
 * reader has drained it. Every device runs the same number of rounds. */
static int ring_step(struct allreduce *a, size_t rank, struct gb_buf *const *from, size_t c,
                     bool add)
{
    const struct gb_backend_ops *ops = a->team.ctx->ops;
    struct gb_queue *q = a->team.ctx->queues[rank];
    const size_t prev = (rank + a->team.n - 1) % a->team.n, sc = (c + 1) % a->team.n;
    int err;
    if (a->direct) {
        if ((err = gb_team_barrier(a->team.t)))
            return err;
        const uint64_t n = chunk_len(a, c), off = a->off[c] * sizeof(float);
        if (n == 0)
            return ops->queue_sync(q);
        struct gb_buf *dst = add ? a->recv[rank] : a->out[rank];
        if ((err = ops->peer_copy(q, dst, add ? 0 : off, from[prev], off, n * sizeof(float))) ||
            (add && (err = reduce(a, rank, q, a->off[c], 0, n))))
            return err;
        return ops->queue_sync(q);
    }
    struct gb_queue *q2 = a->q2[rank];
    for (uint64_t j = 0; j <= a->rounds; j++) {
        uint64_t lo, n;
        if (j < a->rounds && (n = piece_of(a, sc, j, &lo)) > 0 &&
            (err = ops->copy(q, a->stage[rank][j % 2], 0, from[rank],
                             (a->off[sc] + lo) * sizeof(float), n * sizeof(float), GB_COPY_ASYNC)))
            return err;
        if (j >= 1 && (n = piece_of(a, c, j - 1, &lo)) > 0) {
            struct gb_buf *src = a->stage[prev][(j - 1) % 2];
            if (add)
                err = ops->copy(q2, a->recv[rank], lo * sizeof(float), src, 0, n * sizeof(float),
                                GB_COPY_ASYNC);
            else
                err = ops->copy(q2, a->out[rank], (a->off[c] + lo) * sizeof(float), src, 0,
                                n * sizeof(float), GB_COPY_ASYNC);
            if (!err && add)
                err = reduce(a, rank, q2, a->off[c] + lo, lo, n);
            if (err)
                return err;
        }
        if ((err = ops->queue_sync(q)) || (err = ops->queue_sync(q2)) ||
            (err = gb_team_barrier(a->team.t)))
            return err;
    }
    return 0;
}

static int allreduce_job(struct gb_team *t, size_t rank, void *arg)
{
    struct allreduce *a = arg;
    const struct gb_backend_ops *ops = a->team.ctx->ops;
    struct gb_queue *q = a->team.ctx->queues[rank];
    const size_t n = a->team.n;
    int err = 0;
    for (uint64_t r = 0; r < a->team.reps && !err; r++) {
        if (n == 1) {
            err = ops->copy(q, a->out[0], 0, a->in[0], 0, a->count * sizeof(float), GB_COPY_ASYNC);
            continue;
        }
        /* The neighbours of the last step of the previous repetition may still read this
         * device's chunks. */
        if (r > 0 && (err = gb_team_barrier(t)))
            break;
        /* Reduce-scatter: at step s this device receives chunk (rank - 1 - s) mod n and adds
         * its own input to it; the first sender reads its input, later ones their partial sum. */
        for (size_t s = 0; s + 1 < n && !err; s++)
            err = ring_step(a, rank, s == 0 ? a->in : a->out, (rank + 2 * n - 1 - s) % n, true);
        /* All-gather: at step s this device receives the reduced chunk (rank - s) mod n. */
        for (size_t s = 0; s + 1 < n && !err; s++)
            err = ring_step(a, rank, a->out, (rank + n - s) % n, false);
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
    for (size_t c = 0; c < a->team.n; c++) {
        uint64_t hi;
        gb_multi_part(a->count, a->team.n, c, &a->off[c], &hi);
    }
    a->off[a->team.n] = a->count;
    uint64_t maxc = 0;
    for (size_t c = 0; c < a->team.n; c++)
        maxc = chunk_len(a, c) > maxc ? chunk_len(a, c) : maxc;
    /* Staged pieces: 4 MiB, or the largest chunk when that is smaller. */
    a->sub = GB_MULTI_STAGE_MAX / sizeof(float) < maxc ? GB_MULTI_STAGE_MAX / sizeof(float) : maxc;
    a->rounds = (maxc + a->sub - 1) / a->sub;
    a->direct = a->team.n > 1;
    for (size_t i = 0; i < a->team.n && a->direct; i++)
        a->direct =
            gb_multi_peer_direct(ctx, ctx->devs[i], ctx->devs[(i + a->team.n - 1) % a->team.n]);

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
        if (a->team.n == 1)
            break;
        if ((err = gb_multi_alloc(ctx, i, maxc * sizeof(float), GB_MEM_DEVICE, &a->recv[i])))
            break;
        for (int b = 0; b < 2 && !a->direct && !err; b++)
            err =
                gb_multi_alloc(ctx, i, a->sub * sizeof(float), GB_MEM_HOST_PINNED, &a->stage[i][b]);
        if (!err && !a->direct)
            err = ctx->ops->queue_create(ctx->devs[i], &a->q2[i]);
        if (!err)
            err =
                gb_multi_build(ctx, i, "multi.cl", "multi_reduce", NULL, 0, &a->prog[i], &a->k[i]);
        uint32_t kmax = 0;
        if (!err && !(err = ctx->ops->kernel_max_wg(a->k[i], &kmax)))
            a->wg[i] = kmax >= 256 ? 256 : kmax ? kmax : 1;
    }
    free(h);
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
    gb_case_text(ctx, "path", "%s", a->team.n == 1 ? "d2d" : a->direct ? "peer" : "staged");
}

static void allreduce_teardown(struct gb_case_ctx *ctx)
{
    struct allreduce *a = ctx->state;
    gb_multi_team_stop(ctx);
    for (size_t i = 0; i < GB_MAX_SET; i++) {
        gb_case_free_bufs(ctx, &a->in[i], &a->out[i], &a->recv[i], &a->stage[i][0], &a->stage[i][1],
                          NULL);
        if (a->q2[i])
            ctx->ops->queue_destroy(a->q2[i]);
        a->q2[i] = NULL;
        gb_case_free_kernel(ctx, &a->k[i], &a->prog[i]);
    }
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
