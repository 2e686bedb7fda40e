/* peerbw — peer traffic as NVIDIA's nvbandwidth measures it, a multi-device suite beside `peer`
 * (the one-direction N x N copy matrix); multi_common.h holds what those suites share. One case
 * per op, method, device pair or root, and size:
 *   bidir       src -> dst and dst -> src at once, each on its own queue; GB/s counts the bytes
 *               of both directions over the wall time (2 size / time).
 *   all_to_one  every other device of the set writes `size` bytes to dst at once.
 *   one_to_all  src writes `size` bytes to every other device of the set at once.
 *   all_to_all  every device writes `size` bytes to every other at once.
 *   latency     one 4-byte copy src -> dst at a time, enqueued and waited for: us per copy
 *               (figure "latency"). nvbandwidth's latency test is a pointer chase across the
 *               link (a kernel on one device loading from the other's memory); this is a
 *               4-byte copy round, host round trip included, and the result says so.
 * A transfer is a link (src, dst) with a source buffer of its own on src, holding a byte pattern
 * seeded by (src, dst), and a destination buffer of its own on dst. The headline GB/s is the
 * bytes of every link over the wall time of one operation (host-timed: over when every
 * destination holds its bytes), also given as the figure "aggregate"; "per_link" is that over
 * the number of links, the mean link (not the slowest).
 * Methods:
 *   ce  the copy engines: ops->peer_copy (cudaMemcpyPeerAsync) pulled on the destination, as
 *       nvbandwidth's "read" tests, where the destination has peer access to the source (path
 *       "peer"); else staged through pinned host memory (path "staged", a host-link figure: the
 *       bytes cross the host link twice, and op.host_link says so): in rounds, every source
 *       reads piece j of each outgoing link back into one of the link's two pinned buffers
 *       while every destination writes piece j - 1 of each incoming link, the team meeting at
 *       a barrier between rounds (as allreduce's ring step). OpenCL always stages: two
 *       contexts cannot copy into each other.
 *   sm  a copy kernel on the destination (kernels/multi.cl multi_copy) that loads the source's
 *       buffer directly over the peer link: CUDA with peer access only. On OpenCL a kernel
 *       cannot address another context's buffer, and on CUDA without peer access there is no
 *       such load: both are a skip with the reason.
 * Figure "topology" (bidir, latency): the pair both ways, the path and the link between the two
 * devices as NVML reads it ("0>1>0 peer, NVLink4 x18"; multi_common.h gb_multi_topology_text).
 * Every link has its own queue on the destination (and, staged, one on the source), created in
 * setup; each device's host thread (gb_multi_team) drives only its own device's queues.
 * Verification: every destination buffer is read back and compared byte for byte with its
 * link's pattern, so a byte from the wrong source or at the wrong destination fails.
 * Test hook: the environment variable GPUBENCH_TEST_PEERBW_BREAK (tests only) breaks a case on
 * purpose in setup: "byte" flips one byte of the first link's source after its upload; "swap"
 * fills the first link's source with the pattern of the reverse link (dst -> src), as bytes
 * from the wrong source bound for the wrong destination. Verification must then fail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites/common.h"
#include "suites/multi_common.h"

#define PEERBW_BREAK_ENV "GPUBENCH_TEST_PEERBW_BREAK"
#define STAGE_MIN ((uint64_t)256 << 10) /* below this a staged copy is one piece */
#define SM_WG 256                       /* work-items per work-group of the SM copy */

enum op { OP_BIDIR, OP_ALL_TO_ONE, OP_ONE_TO_ALL, OP_ALL_TO_ALL, OP_LATENCY };
static const char *const peerbw_ops[] = {"bidir",      "all_to_one", "one_to_all",
                                         "all_to_all", "latency",    NULL};
static const char *const peerbw_methods[] = {"ce", "sm", NULL};

static const struct gb_axis_def peerbw_axes[] = {
    GB_AXIS_STR(
        "op", "[bidir, all_to_one, one_to_all, all_to_all, latency]", peerbw_ops,
        "bidir: src <-> dst at once, both directions' bytes counted; all_to_one: every other "
        "device writes to dst; one_to_all: src writes to every other; all_to_all: every "
        "device to every other; latency: one 4-byte copy src -> dst at a time (a copy round, "
        "not nvbandwidth's pointer chase)"),
    GB_AXIS_STR(
        "method", "[ce, sm]", peerbw_methods,
        "ce: copy engines (peer_copy, or staged through pinned host memory without peer "
        "access); sm: a copy kernel on the destination loading the source's buffer over the "
        "peer link (CUDA with peer access; else skipped)"),
    GB_AXIS_INT("src", "{from: 0, to: 15, step: 1}", 0, GB_MAX_SET - 1,
                "bidir, latency: the pair's source; one_to_all: the device that writes (a position "
                "in the set; positions it lacks are dropped)",
                .device_pos = true),
    GB_AXIS_INT("dst", "{from: 0, to: 15, step: 1}", 0, GB_MAX_SET - 1,
                "bidir, latency: the pair's destination; all_to_one: the device written to",
                .device_pos = true),
    GB_AXIS_SIZE("size", "[64MiB]", 1, 0, "bytes per link and operation (latency: always 4)"),
};

struct link {
    size_t src, dst;
    bool direct;                 /* peer_copy / the SM kernel; else staged */
    struct gb_buf *sbuf, *rbuf;  /* on src; on dst */
    struct gb_buf *stage[2];     /* staged: pinned host memory, allocated on src */
    struct gb_queue *qin, *qout; /* on dst; staged only: on src */
};

struct peerbw {
    struct gb_multi_team team; /* first: gb_multi_run() */
    enum op op;
    bool sm;
    uint64_t size, piece, rounds; /* staged: bytes per piece, pieces per link */
    size_t nlinks;
    struct link *links;
    bool any_staged, any_direct;
    struct gb_program *prog[GB_MAX_SET]; /* sm: the copy kernel on each destination */
    struct gb_kernel *k[GB_MAX_SET];
    struct gb_launch launch; /* sm: geometry and n; the buffers are set per link */
};

static enum op op_of(const struct gb_params *p)
{
    const char *s = gb_params_str(p, "op");
    for (int i = 0; peerbw_ops[i]; i++)
        if (strcmp(s, peerbw_ops[i]) == 0)
            return (enum op)i;
    return OP_BIDIR;
}

static bool is_pair(enum op op)
{
    return op == OP_BIDIR || op == OP_LATENCY;
}

/* Canonical cases: a pair of two distinct positions (bidir once per unordered pair); the root
 * alone for one_to_all (src) and all_to_one (dst), the other position set to it; neither for
 * all_to_all (both 0); latency copies 4 bytes whatever the size sweep says. */
static bool peerbw_normalize(struct gb_params *p)
{
    const enum op op = op_of(p);
    struct gb_value *src = gb_params_slot(p, "src"), *dst = gb_params_slot(p, "dst");
    if (!src || !dst)
        return true;
    switch (op) {
    case OP_BIDIR:
        return src->u.i < dst->u.i;
    case OP_LATENCY: {
        struct gb_value *size = gb_params_slot(p, "size");
        if (size)
            size->u.size = 4;
        return src->u.i != dst->u.i;
    }
    case OP_ONE_TO_ALL:
        dst->u.i = src->u.i;
        return true;
    case OP_ALL_TO_ONE:
        src->u.i = dst->u.i;
        return true;
    case OP_ALL_TO_ALL:
        src->u.i = dst->u.i = 0;
        return true;
    }
    return true;
}

/* What normalize sets for an op that does not read it does not apply (what people read leaves
 * it out; results keep it): src but for bidir, latency and one_to_all (its writer), dst but for
 * bidir, latency and all_to_one (its target), size for latency (always 4 bytes: setup reads no
 * size). Params without an op this suite names keep them all. */
static bool peerbw_axis_applies(const struct gb_params *p, const char *axis)
{
    const enum op op = op_of(p);
    if (strcmp(gb_params_str(p, "op"), peerbw_ops[op]) != 0)
        return true;
    if (strcmp(axis, "src") == 0)
        return is_pair(op) || op == OP_ONE_TO_ALL;
    if (strcmp(axis, "dst") == 0)
        return is_pair(op) || op == OP_ALL_TO_ONE;
    if (strcmp(axis, "size") == 0)
        return op != OP_LATENCY;
    return true;
}

/* The devices of a case: the pair (src first), or the whole set with the root first. */
static size_t peerbw_took_part(const struct gb_params *p, size_t nset, size_t pos[GB_MAX_SET])
{
    const enum op op = op_of(p);
    const size_t src = (size_t)gb_params_int(p, "src"), dst = (size_t)gb_params_int(p, "dst");
    if (is_pair(op)) {
        pos[0] = src;
        pos[1] = dst;
        return src == dst ? 1 : 2;
    }
    const size_t root = op == OP_ALL_TO_ONE ? dst : op == OP_ONE_TO_ALL ? src : 0;
    size_t n = 0;
    pos[n++] = root;
    for (size_t i = 0; i < nset; i++)
        if (i != root)
            pos[n++] = i;
    return n;
}

/* The links of the case into p->links (allocated here); p->team.n is the team's size. */
static int make_links(struct gb_case_ctx *ctx, struct peerbw *p, size_t src, size_t dst)
{
    const size_t n = ctx->ndevs;
    p->links = calloc(n * (n - 1) + 2, sizeof *p->links);
    if (!p->links)
        return GB_FAIL(GB_ENOMEM, "links of %zu devices", n);
    size_t k = 0;
    switch (p->op) {
    case OP_BIDIR:
        p->links[k++] = (struct link){.src = src, .dst = dst};
        p->links[k++] = (struct link){.src = dst, .dst = src};
        break;
    case OP_LATENCY:
        p->links[k++] = (struct link){.src = src, .dst = dst};
        break;
    case OP_ALL_TO_ONE:
        for (size_t i = 0; i < n; i++)
            if (i != dst)
                p->links[k++] = (struct link){.src = i, .dst = dst};
        break;
    case OP_ONE_TO_ALL:
        for (size_t i = 0; i < n; i++)
            if (i != src)
                p->links[k++] = (struct link){.src = src, .dst = i};
        break;
    case OP_ALL_TO_ALL:
        for (size_t s = 0; s < n; s++)
            for (size_t d = 0; d < n; d++)
                if (s != d)
                    p->links[k++] = (struct link){.src = s, .dst = d};
        break;
    }
    p->nlinks = k;
    p->team.n = is_pair(p->op) ? (src > dst ? src : dst) + 1 : n;
    return 0;
}

static uint64_t link_seed(const struct link *l)
{
    return 7001 + 131 * (uint64_t)l->src + (uint64_t)l->dst;
}

/* The SM copy's kernel on every destination, and its launch: words of 16 bytes where the size
 * allows, else of 4; a grid of at most 8 work-groups per compute unit, grid-stride beyond. */
static int sm_setup(struct gb_case_ctx *ctx, struct peerbw *p)
{
    const bool vec4 = p->size % 16 == 0;
    if (!vec4 && p->size % 4 != 0)
        return gb_case_skip(ctx, "method sm copies 4-byte words: %llu bytes is not a multiple of 4",
                            (unsigned long long)p->size);
    const uint64_t words = p->size / (vec4 ? 16 : 4);
    const char *defs[] = {"COPY_VEC4"};
    int err = 0;
    uint32_t wg = SM_WG;
    for (size_t i = 0; i < p->nlinks && !err; i++) {
        const size_t d = p->links[i].dst;
        if (p->k[d])
            continue;
        uint32_t kmax = 0;
        if (!(err = gb_multi_build(ctx, d, "multi.cl", "multi_copy", defs, vec4 ? 1 : 0,
                                   &p->prog[d], &p->k[d])) &&
            !(err = ctx->ops->kernel_max_wg(p->k[d], &kmax)) && kmax && kmax < wg)
            wg = kmax;
    }
    if (err)
        return err;
    uint64_t cus = ctx->devs[p->links[0].dst]->info.compute_units;
    uint64_t groups = (words + wg - 1) / wg, cap = 8 * (cus ? cus : 1);
    groups = groups < cap ? groups : cap;
    /* On a driver that stops a work-item's loops, more work-groups until each work-item's
     * grid-stride steps stay within its limit. */
    for (size_t i = 0; i < p->nlinks; i++) {
        const uint32_t limit = ctx->devs[p->links[i].dst]->info.max_loop_trips;
        const uint64_t items = gb_loop_items(groups * wg, words, 1, 0, limit);
        if (items > groups * wg)
            groups = (items + wg - 1) / wg;
    }
    p->launch = (struct gb_launch){
        .dims = 1, .global = {groups * wg, 1, 1}, .local = {wg, 1, 1}, .nargs = 3};
    p->launch.args[2] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = words};
    return 0;
}

/* The test hook (the header): link 0's source holds one flipped byte ("byte"), or the pattern
 * of the reverse link dst -> src ("swap": bytes from the wrong source, for the wrong
 * destination). h is scratch of p->size bytes. */
static int apply_break(struct gb_case_ctx *ctx, struct peerbw *p, unsigned char *h)
{
    const char *how = getenv(PEERBW_BREAK_ENV);
    if (!how || (strcmp(how, "byte") != 0 && strcmp(how, "swap") != 0))
        return 0;
    const struct link *l = &p->links[0];
    if (how[0] == 's') {
        const struct link rev = {.src = l->dst, .dst = l->src};
        gb_fill_pattern(h, p->size, link_seed(&rev));
    } else {
        gb_fill_pattern(h, p->size, link_seed(l));
        h[p->size / 2] ^= 0x5a;
    }
    return gb_multi_upload(ctx, l->src, l->sbuf, h, p->size);
}

static int peerbw_job(struct gb_team *t, size_t rank, void *arg);

static int peerbw_setup(struct gb_case_ctx *ctx)
{
    struct peerbw *p = ctx->state;
    const struct gb_backend_ops *ops = ctx->ops;
    p->op = op_of(ctx->params);
    p->sm = strcmp(gb_params_str(ctx->params, "method"), "sm") == 0;
    p->size = p->op == OP_LATENCY ? 4 : gb_params_size(ctx->params, "size");
    const size_t src = (size_t)gb_params_int(ctx->params, "src");
    const size_t dst = (size_t)gb_params_int(ctx->params, "dst");
    if (ctx->ndevs < 2)
        return gb_case_skip(ctx, "%s needs at least 2 devices of one backend; 1 is selected",
                            peerbw_ops[p->op]);
    if (src >= ctx->ndevs || dst >= ctx->ndevs)
        return gb_case_skip(ctx, "the device set has %zu devices, no position %zu", ctx->ndevs,
                            src > dst ? src : dst);
    if (is_pair(p->op) && src == dst)
        return gb_case_skip(ctx, "%s needs two distinct devices; src and dst are both %zu",
                            peerbw_ops[p->op], src);
    /* Elsewhere (CUDA), a link without peer access is the skip below. */
    if (p->sm && !ops->facts.peer_load)
        return gb_case_skip(ctx,
                            "method sm needs a kernel that loads another device's memory; "
                            "an %s kernel cannot address another context's buffer",
                            ops->name);
    int err = make_links(ctx, p, src, dst);
    if (err)
        return err;
    for (size_t i = 0; i < p->nlinks; i++) {
        struct link *l = &p->links[i];
        l->direct = gb_multi_peer_direct(ctx, ctx->devs[l->dst], ctx->devs[l->src]);
        if (p->sm && !l->direct)
            return gb_case_skip(ctx,
                                "method sm: device %zu has no peer access to device %zu "
                                "(the kernel could not load its memory)",
                                l->dst, l->src);
        p->any_direct |= l->direct;
        p->any_staged |= !l->direct;
    }
    /* Every link holds a source buffer on its source and a destination on its destination. */
    for (size_t d = 0; d < ctx->ndevs; d++) {
        uint64_t need = 0;
        for (size_t i = 0; i < p->nlinks; i++)
            need += (p->links[i].src == d) * p->size + (p->links[i].dst == d) * p->size;
        if (need && (err = gb_multi_fits(ctx, d, need, p->size)))
            return err;
    }
    p->piece = p->size / 4;
    p->piece = p->piece > GB_MULTI_STAGE_MAX ? GB_MULTI_STAGE_MAX
               : p->piece < STAGE_MIN        ? STAGE_MIN
                                             : p->piece;
    if (p->piece > p->size)
        p->piece = p->size;
    p->rounds = (p->size + p->piece - 1) / p->piece;

    unsigned char *h = malloc(p->size);
    if (!h)
        return GB_FAIL(GB_ENOMEM, "pattern of %llu bytes", (unsigned long long)p->size);
    for (size_t i = 0; i < p->nlinks && !err; i++) {
        struct link *l = &p->links[i];
        gb_fill_pattern(h, p->size, link_seed(l));
        if ((err = gb_multi_alloc(ctx, l->src, p->size, GB_MEM_DEVICE, &l->sbuf)) ||
            (err = gb_multi_alloc(ctx, l->dst, p->size, GB_MEM_DEVICE, &l->rbuf)) ||
            (err = gb_multi_upload(ctx, l->src, l->sbuf, h, p->size)) ||
            (err = gb_multi_poison(ctx, l->dst, l->rbuf, p->size, GB_I8)) ||
            (err = ops->queue_create(ctx->devs[l->dst], &l->qin)))
            break;
        for (int b = 0; b < 2 && !l->direct && !err; b++)
            err = gb_multi_alloc(ctx, l->src, p->piece, GB_MEM_HOST_PINNED, &l->stage[b]);
        if (!err && !l->direct)
            err = ops->queue_create(ctx->devs[l->src], &l->qout);
    }
    if (!err)
        err = apply_break(ctx, p, h);
    free(h);
    if (!err && p->sm)
        err = sm_setup(ctx, p);
    if (!err)
        err = gb_multi_team_start(ctx, peerbw_job);
    ctx->op.bytes = p->op == OP_LATENCY ? 0 : (double)p->size * (double)p->nlinks;
    /* No working set, so no regime and no device-memory bound (as `peer`): an aggregate over
     * several devices is no one device's memory rate, and a staged copy is bounded by the host
     * link (figure "link"). */
    ctx->op.host_link = p->any_staged;
    return err;
}

/* Enqueues link l's direct copy on its queue: peer_copy, or the SM kernel on the destination. */
static int direct_copy(struct peerbw *p, struct link *l)
{
    const struct gb_backend_ops *ops = p->team.ctx->ops;
    if (!p->sm)
        return ops->peer_copy(l->qin, l->rbuf, 0, l->sbuf, 0, p->size);
    struct gb_launch launch = p->launch;
    launch.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = l->rbuf};
    launch.args[1] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = l->sbuf};
    return ops->launch(l->qin, p->k[l->dst], &launch);
}

/* Flushes, then waits for, every queue of `rank` that the staged (staged) or direct links use. */
static int sync_rank(struct peerbw *p, size_t rank, bool staged)
{
    const struct gb_backend_ops *ops = p->team.ctx->ops;
    int err = 0;
    for (int pass = 0; pass < 2 && !err; pass++)
        for (size_t i = 0; i < p->nlinks && !err; i++) {
            struct link *l = &p->links[i];
            if (l->direct == staged)
                continue;
            struct gb_queue *q[2] = {l->dst == rank ? l->qin : NULL,
                                     l->src == rank ? l->qout : NULL};
            for (int k = 0; k < 2 && !err; k++)
                if (q[k])
                    err = pass == 0 ? ops->queue_flush(q[k]) : ops->queue_sync(q[k]);
        }
    return err;
}

/* One staged operation, as every rank runs it: in round j this rank reads piece j of each
 * outgoing link back into the link's stage[j % 2] and writes piece j - 1 of each incoming link
 * from stage[(j - 1) % 2]; then it drains its queues and meets the team. A pinned buffer is
 * refilled two rounds after it was filled, when its reader has drained it. */
static int staged_rounds(struct peerbw *p, size_t rank)
{
    const struct gb_backend_ops *ops = p->team.ctx->ops;
    int err = 0;
    for (uint64_t j = 0; j <= p->rounds && !err; j++) {
        for (size_t i = 0; i < p->nlinks && !err; i++) {
            struct link *l = &p->links[i];
            if (l->direct)
                continue;
            if (l->src == rank && j < p->rounds) {
                const uint64_t off = j * p->piece;
                const uint64_t len = p->size - off < p->piece ? p->size - off : p->piece;
                err = ops->copy(l->qout, l->stage[j % 2], 0, l->sbuf, off, len, GB_COPY_ASYNC);
            }
            if (!err && l->dst == rank && j >= 1) {
                const uint64_t off = (j - 1) * p->piece;
                const uint64_t len = p->size - off < p->piece ? p->size - off : p->piece;
                err = ops->copy(l->qin, l->rbuf, off, l->stage[(j - 1) % 2], 0, len, GB_COPY_ASYNC);
            }
        }
        if (!err && !(err = sync_rank(p, rank, true)))
            err = gb_team_barrier(p->team.t);
    }
    return err;
}

static int peerbw_job(struct gb_team *t, size_t rank, void *arg)
{
    (void)t;
    struct peerbw *p = arg;
    int err = 0;
    for (uint64_t r = 0; r < p->team.reps && !err; r++) {
        for (size_t i = 0; i < p->nlinks && !err; i++)
            if (p->links[i].direct && p->links[i].dst == rank)
                err = direct_copy(p, &p->links[i]);
        /* A latency round waits for its copy before the next is enqueued. */
        if (!err && p->op == OP_LATENCY)
            err = sync_rank(p, rank, false);
        if (!err && p->any_staged)
            err = staged_rounds(p, rank);
    }
    if (!err)
        err = sync_rank(p, rank, false);
    return err;
}

static int peerbw_verify(struct gb_case_ctx *ctx)
{
    struct peerbw *p = ctx->state;
    unsigned char *h = malloc(p->size), *want = malloc(p->size);
    int err = 0;
    if (!h || !want)
        err = GB_FAIL(GB_ENOMEM, "read-back of %llu bytes", (unsigned long long)p->size);
    for (size_t i = 0; i < p->nlinks && !err; i++) {
        const struct link *l = &p->links[i];
        gb_fill_pattern(want, p->size, link_seed(l));
        if (!(err = gb_multi_download(ctx, l->dst, h, l->rbuf, p->size)))
            err = gb_case_check_bytes(ctx, h, want, p->size, "link %zu -> %zu", l->src, l->dst);
    }
    free(h);
    free(want);
    return err;
}

static void peerbw_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct peerbw *p = ctx->state;
    gb_case_text(ctx, "path", "%s",
                 p->any_staged && p->any_direct ? "mixed"
                 : p->any_staged                ? "staged"
                                                : "peer");
    gb_case_text(ctx, "link", "%s",
                 p->any_staged ? "host link: staged via pinned host memory, not peer"
                               : "peer link: device to device");
    gb_case_figure(ctx, "links", "", (double)p->nlinks);
    if (is_pair(p->op) && p->nlinks > 0 && p->links[0].src != p->links[0].dst) {
        /* Both ways between the pair: "0>1>0 staged, PCIe Gen5 x16" (multi_common.h). */
        const size_t order[2] = {p->links[0].src, p->links[0].dst};
        gb_multi_topology_figure(ctx, order, 2, true, p->links[0].direct ? "peer" : "staged");
    }
    if (p->op == OP_LATENCY) {
        gb_case_figure(ctx, "latency", "us", op_time_s * 1e6);
        gb_case_text(ctx, "latency_kind", "%s",
                     p->sm ? "4-byte SM copy kernel round, not a pointer chase"
                           : "4-byte copy round, not a pointer chase");
        return;
    }
    const double agg = op_time_s > 0 ? (double)p->size * (double)p->nlinks / op_time_s / 1e9 : 0;
    gb_case_figure(ctx, "aggregate", "GB/s", agg);
    gb_case_figure(ctx, "per_link", "GB/s", agg / (double)p->nlinks);
    gb_case_text(ctx, "counted", "bytes of %zu link%s%s / wall time", p->nlinks,
                 p->nlinks == 1 ? "" : "s", p->op == OP_BIDIR ? ", both directions," : "");
}

static void peerbw_teardown(struct gb_case_ctx *ctx)
{
    struct peerbw *p = ctx->state;
    gb_multi_team_stop(ctx);
    for (size_t i = 0; p->links && i < p->nlinks; i++) {
        struct link *l = &p->links[i];
        gb_case_free_bufs(ctx, &l->sbuf, &l->rbuf, &l->stage[0], &l->stage[1], NULL);
        if (l->qin)
            ctx->ops->queue_destroy(l->qin);
        if (l->qout)
            ctx->ops->queue_destroy(l->qout);
        l->qin = l->qout = NULL;
    }
    free(p->links);
    p->links = NULL;
    for (size_t d = 0; d < GB_MAX_SET; d++)
        gb_case_free_kernel(ctx, &p->k[d], &p->prog[d]);
}

const struct gb_suite gb_suite_peerbw = {
    .name = "peerbw",
    .summary = "peer traffic as nvbandwidth measures it: bidirectional pairs, all-to-one, "
               "one-to-all, all-to-all (aggregate and per-link GB/s) and 4-byte copy latency, "
               "copy engines (ce) against an SM copy kernel (sm)",
    .axes = peerbw_axes,
    .naxes = sizeof peerbw_axes / sizeof peerbw_axes[0],
    .case_axis = "op",
    .state_size = sizeof(struct peerbw),
    .normalize = peerbw_normalize,
    .axis_applies = peerbw_axis_applies,
    .setup = peerbw_setup,
    .run = gb_multi_run,
    .verify = peerbw_verify,
    .teardown = peerbw_teardown,
    .flags = GB_SUITE_MULTI_DEVICE,
    .figures = peerbw_figures,
    .took_part = peerbw_took_part,
};
