/* transfer — host <-> device and device <-> device copy bandwidth and latency.
 *
 * One operation is one copy of `size` bytes (bidir: one H2D and one D2H of `size` bytes each, on
 * two queues at once, so it moves 2 * size; pinned host memory only, a recorded skip with
 * pageable). Bytes are counted as bandwidthTest and BabelStream
 * count them: a copy across the host link moves `size` bytes over the link; a D2D copy reads and
 * writes device memory, so it counts read + write, 2 * size (`bytes_per_op`), and agrees with
 * the memory suite's copy kernel of the same size. `async` enqueues a batch of non-blocking
 * copies and times it with device events, the way bandwidthTest and clpeak do; `sync` issues
 * blocking copies and times them on the host, which is what an application that waits for each
 * copy sees.
 * GB/s = bytes / seconds / 1e9; the per-operation time at small sizes is the copy latency.
 *
 * Axis memory: pinned (page-locked memory allocated so: cudaHostAlloc, ALLOC_HOST_PTR + map),
 * registered (page-aligned malloc'd memory pinned after the fact, as a framework pins memory it
 * did not allocate: cudaHostRegister, USE_HOST_PTR + map; the backend's alloc_method, a recorded
 * skip where it has none) or pageable; the alloc suite times what each costs to get, this suite
 * the rate each then gives.
 *
 * Axis offset (alignment, as nccl-tests' -u and TransferBench's byteOffset misalign on purpose):
 * the copy starts `offset` bytes into its buffers, on the side(s) `offset_side` names: src (the
 * host buffer of an H2D copy, the device buffer of a D2H copy), dst, or both. The same `size`
 * bytes are counted at every offset; each buffer is allocated `size + offset` bytes, so an offset
 * never leaves it (one whose buffer would exceed the device's largest allocation is a recorded
 * skip). Any byte offset is allowed: a copy takes byte addresses on both APIs.
 *
 * Verification: the source holds a pseudo-random pattern; after the timed copies the
 * destination is read back and compared byte for byte, and the bytes before its offset must
 * still hold the zeros they started with (a copy that ignored the offset writes there).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites/common.h"
#include "suites/transfer_state.h"

static const char *const ops[] = {"h2d", "d2h", "d2d", "bidir", NULL};
static const char *const memories[] = {"pinned", "pageable", "registered", "device", NULL};
static const char *const modes[] = {"async", "sync", NULL};
static const char *const sides[] = {"both", "src", "dst", NULL};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("op", "[h2d, d2h, d2d, bidir]", ops,
                "h2d, d2h, d2d, or bidir (H2D and D2H at once on two queues)"),
    GB_AXIS_STR("memory", "[pinned, pageable]", memories,
                "host memory: pinned (page-locked, allocated so), registered (ordinary memory "
                "pinned after the fact: cudaHostRegister, USE_HOST_PTR) or pageable; D2D cases use "
                "device"),
    GB_AXIS_STR("mode", "[async]", modes,
                "async: a batch of non-blocking copies, device-timed; sync: blocking copies, "
                "host-timed"),
    GB_AXIS_SIZE("size", "{from: 4KiB, to: 256MiB, factor: 4}", 1, 0, "bytes per copy"),
    GB_AXIS_INT("offset", "0", 0, INT64_C(1) << 40,
                "bytes into the buffer(s) offset_side names at which the copy starts, any value "
                "(alignment: 0, 1, 4, 16, 64, 128, 256, 4096 are the usual sweep); the same size "
                "bytes are counted",
                .omit_default = true),
    GB_AXIS_STR("offset_side", "both", sides,
                "which buffers offset moves: src, dst or both (H2D: src is the host buffer)",
                .omit_default = true),
};

static enum transfer_op parse_op(const char *s)
{
    return strcmp(s, "h2d") == 0   ? OP_H2D
           : strcmp(s, "d2h") == 0 ? OP_D2H
           : strcmp(s, "d2d") == 0 ? OP_D2D
                                   : OP_BIDIR;
}

static bool transfer_normalize(struct gb_params *p)
{
    const char *op = gb_params_str(p, "op");
    struct gb_value *mem = NULL, *mode = NULL;
    for (size_t i = 0; i < p->n; i++) {
        if (strcmp(p->name[i], "memory") == 0)
            mem = &p->v[i];
        else if (strcmp(p->name[i], "mode") == 0)
            mode = &p->v[i];
    }
    if (!mem || !mode)
        return false;
    struct gb_value *side = gb_params_slot(p, "offset_side");
    const struct gb_value *off = gb_params_slot(p, "offset");
    if (side && off && off->u.i == 0) /* no offset: one case, whatever side it names */
        snprintf(side->s, sizeof side->s, "both");
    if (strcmp(op, "d2d") == 0) {
        /* Host memory plays no part in a D2D copy: one case, labelled device. */
        snprintf(mem->s, sizeof mem->s, "device");
        return true;
    }
    if (strcmp(mem->s, "device") == 0)
        return false;
    /* Bidirectional needs two copies in flight at once, which blocking copies cannot do. */
    return !(strcmp(op, "bidir") == 0 && strcmp(mode->s, "sync") == 0);
}

static enum gb_mem_kind host_kind(const struct gb_params *p)
{
    const char *m = gb_params_str(p, "memory");
    return strcmp(m, "pageable") == 0 ? GB_MEM_HOST_PAGEABLE : GB_MEM_HOST_PINNED;
}

/* A host buffer of the case's memory: registered through the backend's allocation methods,
 * its pages touched here (the uploads that follow write every byte), else gb_case_alloc. */
static int host_alloc(struct gb_case_ctx *ctx, uint64_t bytes, struct gb_buf **out)
{
    if (strcmp(gb_params_str(ctx->params, "memory"), "registered") == 0)
        return gb_case_alloc_method(ctx, GB_ALLOC_REGISTERED, bytes, out);
    return gb_case_alloc(ctx, bytes, host_kind(ctx->params), out);
}

/* What a case holds at once (gb_suite.footprint): its host buffers (one; bidir two; d2d none),
 * its device buffers (one; d2d and bidir two), each of size + offset bytes, and on the host the
 * pattern and, at verify's peak, the destination read back and its staging buffer. */
static void transfer_footprint(const struct gb_params *p, const struct gb_device_info *info,
                               struct gb_footprint *fp)
{
    (void)info;
    const char *op = gb_params_str(p, "op");
    const double buf = (double)gb_params_size(p, "size") + (double)gb_params_int(p, "offset");
    const bool d2d = strcmp(op, "d2d") == 0, bidir = strcmp(op, "bidir") == 0;
    const double nhost = d2d ? 0 : bidir ? 2 : 1, ndev = d2d || bidir ? 2 : 1;
    *fp = (struct gb_footprint){.host = (nhost + 3) * buf, .device = ndev * buf, .largest = buf};
}

/* Without an offset (0, also where the results leave it out at its default) offset_side moves
 * nothing and normalize records both: it does not apply (what people read leaves it out;
 * results keep it). An offset that is not a whole number (a results file's "4.5") keeps it. */
static bool transfer_axis_applies(const struct gb_params *p, const char *axis)
{
    const struct gb_value *off = gb_params_get(p, "offset");
    return strcmp(axis, "offset_side") != 0 || (off && !(off->type == GB_V_INT && off->u.i == 0));
}

static int transfer_setup(struct gb_case_ctx *ctx)
{
    struct transfer *t = ctx->state;
    t->op = parse_op(gb_params_str(ctx->params, "op"));
    t->blocking = strcmp(gb_params_str(ctx->params, "mode"), "sync") == 0;
    t->size = gb_params_size(ctx->params, "size");
    const uint64_t off = (uint64_t)gb_params_int(ctx->params, "offset");
    const char *side = gb_params_str(ctx->params, "offset_side");
    t->src_off = strcmp(side, "dst") != 0 ? off : 0;
    t->dst_off = strcmp(side, "src") != 0 ? off : 0;
    const struct gb_device_info *info = &ctx->dev->info;
    if (t->size > UINT64_MAX / 4 - off)
        return gb_case_skip(ctx, "offset %llu past a copy of %llu bytes leaves 64-bit sizes",
                            (unsigned long long)off, (unsigned long long)t->size);
    const uint64_t sbytes = t->size + t->src_off, dbytes = t->size + t->dst_off;
    uint64_t device_bytes = t->op == OP_D2D || t->op == OP_BIDIR ? 2 * t->size : t->size;
    if (info->global_mem && device_bytes > info->global_mem)
        return gb_case_skip(ctx, "needs %llu bytes of device memory, the device has %llu",
                            (unsigned long long)device_bytes, (unsigned long long)info->global_mem);
    const uint64_t biggest = sbytes > dbytes ? sbytes : dbytes;
    if (info->max_alloc && biggest > info->max_alloc)
        return gb_case_skip(ctx,
                            "a buffer of %llu bytes (size %llu + offset %llu), over the "
                            "device's largest allocation %llu",
                            (unsigned long long)biggest, (unsigned long long)t->size,
                            (unsigned long long)(biggest - t->size),
                            (unsigned long long)info->max_alloc);
    enum gb_mem_kind hk = host_kind(ctx->params);
    if (t->op == OP_BIDIR && hk != GB_MEM_HOST_PINNED)
        return gb_case_skip(ctx, "bidir needs pinned host memory: an asynchronous copy to or "
                                 "from pageable memory is staged through a pinned buffer and "
                                 "returns when done, so the two directions would not overlap "
                                 "and the figure would be a serial one");
    int err = 0;
    switch (t->op) {
    case OP_H2D:
        if ((err = host_alloc(ctx, sbytes, &t->src)) ||
            (err = gb_case_alloc(ctx, dbytes, GB_MEM_DEVICE, &t->dst)))
            return err;
        break;
    case OP_D2H:
        if ((err = gb_case_alloc(ctx, sbytes, GB_MEM_DEVICE, &t->src)) ||
            (err = host_alloc(ctx, dbytes, &t->dst)))
            return err;
        break;
    case OP_D2D:
        if ((err = gb_case_alloc(ctx, sbytes, GB_MEM_DEVICE, &t->src)) ||
            (err = gb_case_alloc(ctx, dbytes, GB_MEM_DEVICE, &t->dst)))
            return err;
        break;
    case OP_BIDIR:
        if ((err = host_alloc(ctx, sbytes, &t->src)) ||
            (err = gb_case_alloc(ctx, dbytes, GB_MEM_DEVICE, &t->dst)) ||
            (err = gb_case_alloc(ctx, sbytes, GB_MEM_DEVICE, &t->src2)) ||
            (err = host_alloc(ctx, dbytes, &t->dst2)) ||
            (err = ctx->ops->queue_create(ctx->dev, &t->q2)))
            return err;
        break;
    }
    /* The pattern, at the source's offset behind zeros; the staging copy holds a whole buffer. */
    t->pattern = malloc(biggest);
    if (!t->pattern)
        return GB_FAIL(GB_ENOMEM, "pattern of %llu bytes", (unsigned long long)biggest);
    memset(t->pattern, 0, t->src_off);
    gb_fill_pattern(t->pattern + t->src_off, t->size, t->size);
    if ((err = gb_case_upload(ctx, t->src, t->pattern, sbytes)))
        return err;
    if (t->src2 && (err = gb_case_upload(ctx, t->src2, t->pattern, sbytes)))
        return err;
    /* The destinations start all zero, different from the pattern, so verify sees a copy that
     * did not happen, and one that wrote before the offset. */
    memset(t->pattern, 0, dbytes);
    if ((err = gb_case_upload(ctx, t->dst, t->pattern, dbytes)))
        return err;
    if (t->dst2 && (err = gb_case_upload(ctx, t->dst2, t->pattern, dbytes)))
        return err;
    gb_fill_pattern(t->pattern, t->size, t->size);

    ctx->op.bytes = (double)t->size * (t->op == OP_BIDIR || t->op == OP_D2D ? 2.0 : 1.0);
    /* Every buffer the copy touches (a CPU device's "device" memory is host memory too). */
    ctx->op.working_set = (double)t->size * (t->op == OP_BIDIR ? 4.0 : 2.0);
    ctx->op.host_link = t->op != OP_D2D;
    ctx->op.host_link_dirs = t->op == OP_BIDIR ? 2 : 1;
    ctx->op.timer = t->blocking || t->op == OP_BIDIR ? GB_TIMER_HOST : GB_TIMER_DEVICE;
    return 0;
}

static int transfer_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct transfer *t = ctx->state;
    enum gb_copy_flags fl = t->blocking ? GB_COPY_BLOCKING : GB_COPY_ASYNC;
    int err = 0;
    if (t->op != OP_BIDIR) {
        for (uint64_t r = 0; r < reps && !err; r++)
            err = ctx->ops->copy(ctx->q, t->dst, t->dst_off, t->src, t->src_off, t->size, fl);
        return err;
    }
    /* Both directions are enqueued before either queue is waited for, so they overlap where
     * the device has a copy engine per direction. */
    for (uint64_t r = 0; r < reps && !err; r++) {
        err =
            ctx->ops->copy(ctx->q, t->dst, t->dst_off, t->src, t->src_off, t->size, GB_COPY_ASYNC);
        if (!err)
            err = ctx->ops->copy(t->q2, t->dst2, t->dst_off, t->src2, t->src_off, t->size,
                                 GB_COPY_ASYNC);
    }
    if (!err)
        err = ctx->ops->queue_flush(ctx->q);
    if (!err)
        err = ctx->ops->queue_flush(t->q2);
    if (!err)
        err = ctx->ops->queue_sync(ctx->q);
    if (!err)
        err = ctx->ops->queue_sync(t->q2);
    return err;
}

static int check(struct gb_case_ctx *ctx, struct gb_buf *dst, const char *what)
{
    struct transfer *t = ctx->state;
    int err;
    unsigned char *got = gb_case_read_back(ctx, dst, t->size + t->dst_off, &err);
    if (!got)
        return err;
    for (uint64_t i = 0; i < t->dst_off; i++)
        if (got[i] != 0) {
            err = gb_case_mismatch(ctx,
                                   "%s: byte %llu, before the offset %llu, is 0x%02x: the copy "
                                   "wrote outside its range (an offset ignored?)",
                                   what, (unsigned long long)i, (unsigned long long)t->dst_off,
                                   got[i]);
            free(got);
            return err;
        }
    err = gb_case_check_bytes(ctx, got + t->dst_off, t->pattern, t->size, "%s at offset %llu", what,
                              (unsigned long long)t->dst_off);
    free(got);
    return err;
}

static int transfer_verify(struct gb_case_ctx *ctx)
{
    struct transfer *t = ctx->state;
    int err = check(ctx, t->dst, t->op == OP_BIDIR ? "H2D half" : "destination");
    if (!err && t->dst2)
        err = check(ctx, t->dst2, "D2H half");
    ctx->max_error = 0;
    return err;
}

static void transfer_teardown(struct gb_case_ctx *ctx)
{
    struct transfer *t = ctx->state;
    /* The second queue first: destroying it waits for its copies, which use the buffers. */
    if (t->q2)
        ctx->ops->queue_destroy(t->q2);
    t->q2 = NULL;
    gb_case_free_bufs(ctx, &t->src, &t->dst, &t->src2, &t->dst2, NULL);
    free(t->pattern);
}

const struct gb_suite gb_suite_transfer = {
    .name = "transfer",
    .summary = "H2D, D2H, D2D and bidirectional copy bandwidth (GB/s) and latency (us)",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "op",
    .state_size = sizeof(struct transfer),
    .normalize = transfer_normalize,
    .axis_applies = transfer_axis_applies,
    .setup = transfer_setup,
    .run = transfer_run,
    .verify = transfer_verify,
    .teardown = transfer_teardown,
    .footprint = transfer_footprint,
};
