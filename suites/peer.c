/* peer — a multi-device suite (multi_common.h holds what those suites share): the N x N copy
 * matrix, one case per cell (src, dst) of the device set and per size: copies of `size` bytes
 * from a device buffer on src to a device buffer on dst. The path each cell took is the figure
 * "path":
 *   d2d     src == dst: a copy within the device (the diagonal, each device's own reference);
 *   peer    the backend copies between the devices directly (GB_CAP_PEER and peer_can_access:
 *           CUDA peer access over NVLink or PCIe);
 *   staged  through page-locked host memory: chunks of up to 4 MiB are read back from src into
 *           one of two pinned staging buffers while the previous chunk is written to dst from
 *           the other, so both directions of the host link work at once (what a driver does for
 *           a peer copy without peer access). OpenCL always takes this path: two contexts
 *           cannot copy into each other.
 * Figure "topology" names the pair, the path and the link between the devices as NVML reads it
 * ("0>1 peer, NVLink4 x18", "1>0 staged, PCIe Gen5 x16"; "unknown: no NVML" without it:
 * multi_common.h gb_multi_topology_text).
 * GB/s = size / time per copy; at small sizes the per-copy time (op_time_us) is the latency.
 * Host-timed: a copy is over when dst holds the bytes. Verified byte for byte against the
 * pseudo-random pattern src holds. Bidirectional, all-to-one, one-to-all and all-to-all traffic
 * and the SM copy are the sibling suite peerbw's (peerbw.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "suites/common.h"
#include "suites/multi_common.h"

enum path { PATH_D2D, PATH_PEER, PATH_STAGED };
static const char *const path_names[] = {"d2d", "peer", "staged"};

#define STAGE_MIN ((uint64_t)256 << 10) /* below this a copy is not split */

static const char *const peer_ops[] = {"copy", NULL};

static const struct gb_axis_def peer_axes[] = {
    GB_AXIS_STR("op", "copy", peer_ops, "copy: src -> dst, one direction"),
    GB_AXIS_INT("src", "{from: 0, to: 15, step: 1}", 0, GB_MAX_SET - 1,
                "source: a position in the device set (positions the set lacks are dropped)",
                .device_pos = true),
    GB_AXIS_INT("dst", "{from: 0, to: 15, step: 1}", 0, GB_MAX_SET - 1,
                "destination: a position in the set", .device_pos = true),
    GB_AXIS_SIZE("size", "[4KiB, 64MiB]", 1, 0, "bytes per copy"),
};

struct peer {
    size_t src, dst;
    enum path path;
    uint64_t size, chunk;
    struct gb_buf *sbuf, *dbuf;
    struct gb_buf *stage[2];          /* pinned host memory, allocated on src */
    struct gb_event *d2h[2], *h2d[2]; /* on src / dst: a staging buffer filled / drained */
    bool h2d_pending[2];              /* h2d[b] was recorded and not yet waited for */
    unsigned char *pattern;
};

static int peer_setup(struct gb_case_ctx *ctx)
{
    struct peer *p = ctx->state;
    const struct gb_backend_ops *ops = ctx->ops;
    p->src = (size_t)gb_params_int(ctx->params, "src");
    p->dst = (size_t)gb_params_int(ctx->params, "dst");
    p->size = gb_params_size(ctx->params, "size");
    if (p->src >= ctx->ndevs || p->dst >= ctx->ndevs)
        return gb_case_skip(ctx, "the device set has %zu device%s, no position %zu", ctx->ndevs,
                            ctx->ndevs == 1 ? "" : "s", p->src > p->dst ? p->src : p->dst);
    struct gb_device *sd = ctx->devs[p->src], *dd = ctx->devs[p->dst];
    p->path = p->src == p->dst                    ? PATH_D2D
              : gb_multi_peer_direct(ctx, dd, sd) ? PATH_PEER
                                                  : PATH_STAGED;

    int err;
    if ((err = gb_multi_fits(ctx, p->src, p->src == p->dst ? 2 * p->size : p->size, p->size)) ||
        (err = gb_multi_fits(ctx, p->dst, p->size, p->size)))
        return err;
    if (!(p->pattern = malloc(p->size)))
        return GB_FAIL(GB_ENOMEM, "pattern of %llu bytes", (unsigned long long)p->size);
    gb_fill_pattern(p->pattern, p->size, 101 + p->src);
    if ((err = gb_multi_alloc(ctx, p->src, p->size, GB_MEM_DEVICE, &p->sbuf)) ||
        (err = gb_multi_alloc(ctx, p->dst, p->size, GB_MEM_DEVICE, &p->dbuf)) ||
        (err = gb_multi_upload(ctx, p->src, p->sbuf, p->pattern, p->size)) ||
        (err = gb_multi_poison(ctx, p->dst, p->dbuf, p->size, GB_I8)))
        return err;
    if (p->path == PATH_STAGED) {
        p->chunk = p->size / 4;
        p->chunk = p->chunk > GB_MULTI_STAGE_MAX ? GB_MULTI_STAGE_MAX
                   : p->chunk < STAGE_MIN        ? STAGE_MIN
                                                 : p->chunk;
        if (p->chunk > p->size)
            p->chunk = p->size;
        for (int b = 0; b < 2; b++)
            if ((err = gb_multi_alloc(ctx, p->src, p->chunk, GB_MEM_HOST_PINNED, &p->stage[b])) ||
                (err = ops->event_create(sd, &p->d2h[b])) ||
                (err = ops->event_create(dd, &p->h2d[b])))
                return err;
    }
    ctx->op.bytes = (double)p->size;
    ctx->op.timer = GB_TIMER_HOST;
    return 0;
}

/* One staged copy: chunk k is read back into stage[k % 2] on src's queue while chunk k - 1 is
 * written to dst from stage[(k - 1) % 2] on dst's queue; events order the reuse of a buffer. */
static int staged_copy(struct gb_case_ctx *ctx, struct peer *p)
{
    const struct gb_backend_ops *ops = ctx->ops;
    struct gb_queue *qs = ctx->queues[p->src], *qd = ctx->queues[p->dst];
    const uint64_t nch = (p->size + p->chunk - 1) / p->chunk;
    int err = 0;
    for (uint64_t k = 0; k <= nch && !err; k++) {
        if (k < nch) {
            const int b = (int)(k % 2);
            const uint64_t off = k * p->chunk;
            const uint64_t len = p->size - off < p->chunk ? p->size - off : p->chunk;
            if (p->h2d_pending[b]) {
                if ((err = ops->event_sync(p->h2d[b])))
                    break;
                p->h2d_pending[b] = false;
            }
            if ((err = ops->copy(qs, p->stage[b], 0, p->sbuf, off, len, GB_COPY_ASYNC)) ||
                (err = ops->event_record(qs, p->d2h[b])) || (err = ops->queue_flush(qs)))
                break;
        }
        if (k >= 1) {
            const int b = (int)((k - 1) % 2);
            const uint64_t off = (k - 1) * p->chunk;
            const uint64_t len = p->size - off < p->chunk ? p->size - off : p->chunk;
            if ((err = ops->event_sync(p->d2h[b])) ||
                (err = ops->copy(qd, p->dbuf, off, p->stage[b], 0, len, GB_COPY_ASYNC)) ||
                (err = ops->event_record(qd, p->h2d[b])) || (err = ops->queue_flush(qd)))
                break;
            p->h2d_pending[b] = true;
        }
    }
    return err;
}

static int peer_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct peer *p = ctx->state;
    const struct gb_backend_ops *ops = ctx->ops;
    struct gb_queue *qd = ctx->queues[p->dst];
    int err = 0;
    for (uint64_t r = 0; r < reps && !err; r++) {
        switch (p->path) {
        case PATH_D2D:
            err = ops->copy(qd, p->dbuf, 0, p->sbuf, 0, p->size, GB_COPY_ASYNC);
            break;
        case PATH_PEER:
            err = ops->peer_copy(qd, p->dbuf, 0, p->sbuf, 0, p->size);
            break;
        case PATH_STAGED:
            err = staged_copy(ctx, p);
            break;
        }
    }
    if (!err)
        err = ops->queue_sync(qd);
    if (!err && p->path != PATH_D2D)
        err = ops->queue_sync(ctx->queues[p->src]);
    p->h2d_pending[0] = p->h2d_pending[1] = false;
    return err;
}

static int peer_verify(struct gb_case_ctx *ctx)
{
    struct peer *p = ctx->state;
    unsigned char *h = malloc(p->size);
    if (!h)
        return GB_FAIL(GB_ENOMEM, "read-back of %llu bytes", (unsigned long long)p->size);
    int err = gb_multi_download(ctx, p->dst, h, p->dbuf, p->size);
    if (!err)
        err = gb_case_check_bytes(ctx, h, p->pattern, p->size, "device %zu -> %zu", p->src, p->dst);
    free(h);
    return err;
}

static void peer_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct peer *p = ctx->state;
    gb_case_text(ctx, "path", "%s", path_names[p->path]);
    gb_case_figure(ctx, "latency", "us", op_time_s * 1e6);
    if (p->path != PATH_D2D) {
        const size_t order[2] = {p->src, p->dst};
        gb_multi_topology_figure(ctx, order, 2, false, path_names[p->path]);
    }
}

static void peer_teardown(struct gb_case_ctx *ctx)
{
    struct peer *p = ctx->state;
    for (int b = 0; b < 2; b++) {
        gb_case_free_buf(ctx, &p->stage[b]);
        if (p->d2h[b])
            ctx->ops->event_free(p->d2h[b]);
        if (p->h2d[b])
            ctx->ops->event_free(p->h2d[b]);
    }
    gb_case_free_bufs(ctx, &p->sbuf, &p->dbuf, NULL);
    free(p->pattern);
}

const struct gb_suite gb_suite_peer = {
    .name = "peer",
    .summary = "the N x N device-to-device copy matrix: GB/s and latency per (src, dst), and "
               "the path each took (d2d, peer, staged through pinned host memory)",
    .axes = peer_axes,
    .naxes = sizeof peer_axes / sizeof peer_axes[0],
    .case_axis = "op",
    .state_size = sizeof(struct peer),
    .setup = peer_setup,
    .run = peer_run,
    .verify = peer_verify,
    .teardown = peer_teardown,
    .flags = GB_SUITE_MULTI_DEVICE,
    .figures = peer_figures,
};
