/* Shared code of the multi-device suites (multi_common.h): the per-device forms of the suite
 * helpers and the device-set conventions. The suites themselves are scaling.c, aggregate.c,
 * peer.c, peerbw.c, allreduce.c, balance.c and parallel.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites/common.h"
#include "suites/multi_common.h"

int gb_multi_ndev(struct gb_case_ctx *ctx, size_t *n)
{
    int64_t want = gb_params_int(ctx->params, "ndev");
    if (want < 1)
        want = 1;
    if ((uint64_t)want > ctx->ndevs)
        return gb_case_skip(ctx, "needs %lld devices of one backend; %zu %s selected",
                            (long long)want, ctx->ndevs, ctx->ndevs == 1 ? "is" : "are");
    *n = (size_t)want;
    return 0;
}

int gb_multi_fits(struct gb_case_ctx *ctx, size_t rank, uint64_t bytes, uint64_t largest)
{
    const struct gb_device_info *info = &ctx->devs[rank]->info;
    if (info->max_alloc && largest > info->max_alloc)
        return gb_case_skip(ctx,
                            "a buffer of %llu bytes on device %zu of the set, whose largest "
                            "allocation is %llu",
                            (unsigned long long)largest, rank, (unsigned long long)info->max_alloc);
    if (info->global_mem && bytes > info->global_mem)
        return gb_case_skip(ctx,
                            "needs %llu bytes of memory on device %zu of the set, which has "
                            "%llu",
                            (unsigned long long)bytes, rank, (unsigned long long)info->global_mem);
    return 0;
}

/* The single-device helpers work on ctx->dev and ctx->q: point them at device `rank` for the
 * call. */
#define GB__ON_RANK(ctx, rank, call)            \
    do {                                        \
        struct gb_device *gb__dev = (ctx)->dev; \
        struct gb_queue *gb__q = (ctx)->q;      \
        (ctx)->dev = (ctx)->devs[rank];         \
        (ctx)->q = (ctx)->queues[rank];         \
        err = (call);                           \
        (ctx)->dev = gb__dev;                   \
        (ctx)->q = gb__q;                       \
    } while (0)

int gb_multi_alloc(struct gb_case_ctx *ctx, size_t rank, uint64_t bytes, enum gb_mem_kind kind,
                   struct gb_buf **out)
{
    int err;
    GB__ON_RANK(ctx, rank, gb_case_alloc(ctx, bytes, kind, out));
    return err;
}

int gb_multi_upload(struct gb_case_ctx *ctx, size_t rank, struct gb_buf *dst, const void *src,
                    uint64_t bytes)
{
    int err;
    GB__ON_RANK(ctx, rank, gb_case_upload(ctx, dst, src, bytes));
    return err;
}

int gb_multi_download(struct gb_case_ctx *ctx, size_t rank, void *dst, struct gb_buf *src,
                      uint64_t bytes)
{
    int err;
    GB__ON_RANK(ctx, rank, gb_case_download(ctx, dst, src, bytes));
    return err;
}

int gb_multi_poison(struct gb_case_ctx *ctx, size_t rank, struct gb_buf *b, uint64_t bytes,
                    enum gb_dtype t)
{
    int err;
    GB__ON_RANK(ctx, rank, gb_case_poison(ctx, b, bytes, t));
    return err;
}

int gb_multi_build(struct gb_case_ctx *ctx, size_t rank, const char *file, const char *kernel,
                   const char *const *defines, size_t ndefines, struct gb_program **prog,
                   struct gb_kernel **k)
{
    int err;
    GB__ON_RANK(ctx, rank, gb_case_build(ctx, file, kernel, defines, ndefines, prog, k));
    return err;
}

bool gb_multi_all_have(const struct gb_case_ctx *ctx, size_t n, uint64_t caps)
{
    for (size_t i = 0; i < n; i++)
        if ((ctx->devs[i]->info.caps & caps) != caps)
            return false;
    return true;
}

void gb_multi_part(uint64_t total, size_t n, size_t i, uint64_t *lo, uint64_t *hi)
{
    /* total * i / n without overflowing for any total below 2^63 / GB_MAX_SET. */
    *lo = total / n * i + total % n * i / n;
    *hi = total / n * (i + 1) + total % n * (i + 1) / n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gb_multi_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bool gb_multi_peer_direct(const struct gb_case_ctx *ctx, struct gb_device *dst,
                          struct gb_device *src)
{
    const struct gb_backend_ops *ops = ctx->ops;
    if (!ops->peer_copy || !ops->peer_can_access || !(dst->info.caps & GB_CAP_PEER) ||
        !(src->info.caps & GB_CAP_PEER))
        return false;
    bool can = false;
    return ops->peer_can_access(dst, src, &can) == 0 && can;
}

enum gb_link_kind gb_multi_link(const struct gb_case_ctx *ctx, size_t i, size_t j, char *out,
                                size_t len)
{
    const enum gb_link_kind k =
        gb_topology_pair(&ctx->devs[i]->info, &ctx->devs[j]->info, out, len);
    if (k == GB_LINK_UNKNOWN) {
        /* "unknown: no NVML (why)" / "unknown: no NVML for ADDR (why)": the first clause. */
        char *cut = strstr(out, " (");
        char *cut2 = strstr(out, " for ");
        if (cut2 && (!cut || cut2 < cut))
            cut = cut2;
        if (cut)
            *cut = 0;
    }
    return k;
}

void gb_multi_topology_text(const struct gb_case_ctx *ctx, const size_t *order, size_t n, bool ring,
                            const char *path, char *out, size_t len)
{
    if (!len)
        return;
    if (n < 2) {
        snprintf(out, len, "one device: no link");
        return;
    }
    const size_t pairs = ring ? n : n - 1; /* a ring of two: 0>1 and 1>0 */
    char link[GB_MAX_SET][64];
    bool same = true;
    for (size_t p = 0; p < pairs; p++) {
        const size_t a = order ? order[p] : p, b = order ? order[(p + 1) % n] : (p + 1) % n;
        gb_multi_link(ctx, a, b, link[p], sizeof link[p]);
        same = same && strcmp(link[p], link[0]) == 0;
    }
    size_t at = 0;
#define PUT(...)                                                      \
    do {                                                              \
        if (at < len) {                                               \
            const int w_ = snprintf(out + at, len - at, __VA_ARGS__); \
            at += w_ > 0 ? (size_t)w_ : 0;                            \
        }                                                             \
    } while (0)
    if (same) {
        for (size_t p = 0; p <= pairs; p++)
            PUT("%s%zu", p ? ">" : "", order ? order[p % n] : p % n);
        PUT(" %s, %s", path, link[0]);
    } else {
        for (size_t p = 0; p < pairs; p++)
            PUT("%s%zu>%zu %s, %s", p ? "; " : "", order ? order[p] : p,
                order ? order[(p + 1) % n] : (p + 1) % n, path, link[p]);
    }
#undef PUT
    if (at >= len && len > 4)
        memcpy(out + len - 4, "...", 4); /* cut: say so */
}

void gb_multi_topology_figure(struct gb_case_ctx *ctx, const size_t *order, size_t n, bool ring,
                              const char *path)
{
    if (n < 2)
        return;
    char text[64]; /* gb_figure.text */
    gb_multi_topology_text(ctx, order, n, ring, path, text, sizeof text);
    gb_case_text(ctx, "topology", "%s", text);
}

int gb_multi_team_start(struct gb_case_ctx *ctx, gb_team_fn job)
{
    struct gb_multi_team *m = ctx->state;
    m->ctx = ctx;
    m->job = job;
    ctx->op.timer = GB_TIMER_HOST;
    return gb_team_create(ctx->devs, m->n, &m->t);
}

int gb_multi_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct gb_multi_team *m = ctx->state;
    m->reps = reps;
    return gb_team_run(m->t, m->n, m->job, ctx->state);
}

void gb_multi_team_stop(struct gb_case_ctx *ctx)
{
    struct gb_multi_team *m = ctx->state;
    gb_team_destroy(m->t);
    m->t = NULL;
}

/* ---- ring collectives ------------------------------------------------------------------------ */

void gb_multi_ring_chunk(uint64_t count, uint64_t grain, size_t n, size_t c, uint64_t *lo,
                         uint64_t *hi)
{
    gb_multi_part(count / grain, n, c, lo, hi);
    *lo *= grain;
    *hi *= grain;
}

size_t gb_multi_ring_owned(size_t n, size_t rank)
{
    return (rank + 1) % n;
}

int gb_multi_ring_setup(struct gb_case_ctx *ctx, struct gb_multi_ring *r, size_t n,
                        uint64_t max_chunk, struct gb_queue *const *queues)
{
    r->n = n;
    r->ops = ctx->ops;
    for (size_t i = 0; i < n; i++)
        r->q[i] = queues[i];
    if (n == 1)
        return 0;
    if (max_chunk == 0)
        max_chunk = 1;
    /* Staged pieces: 4 MiB, or the largest chunk when that is smaller. */
    r->sub = GB_MULTI_STAGE_MAX / sizeof(float) < max_chunk ? GB_MULTI_STAGE_MAX / sizeof(float)
                                                            : max_chunk;
    r->direct = true;
    for (size_t i = 0; i < n && r->direct; i++)
        r->direct = gb_multi_peer_direct(ctx, ctx->devs[i], ctx->devs[(i + n - 1) % n]);
    int err = 0;
    for (size_t i = 0; i < n && !err; i++) {
        if ((err = gb_multi_alloc(ctx, i, max_chunk * sizeof(float), GB_MEM_DEVICE, &r->recv[i])))
            break;
        for (int b = 0; b < 2 && !r->direct && !err; b++)
            err =
                gb_multi_alloc(ctx, i, r->sub * sizeof(float), GB_MEM_HOST_PINNED, &r->stage[i][b]);
        if (!err && !r->direct)
            err = ctx->ops->queue_create(ctx->devs[i], &r->q2[i]);
        if (!err)
            err =
                gb_multi_build(ctx, i, "multi.cl", "multi_reduce", NULL, 0, &r->prog[i], &r->k[i]);
        uint32_t kmax = 0;
        if (!err && !(err = ctx->ops->kernel_max_wg(r->k[i], &kmax)))
            r->wg[i] = kmax >= 256 ? 256 : kmax ? kmax : 1;
    }
    return err;
}

void gb_multi_ring_free(struct gb_case_ctx *ctx, struct gb_multi_ring *r)
{
    for (size_t i = 0; i < GB_MAX_SET; i++) {
        gb_case_free_bufs(ctx, &r->recv[i], &r->stage[i][0], &r->stage[i][1], NULL);
        if (r->q2[i])
            ctx->ops->queue_destroy(r->q2[i]);
        r->q2[i] = NULL;
        gb_case_free_kernel(ctx, &r->k[i], &r->prog[i]);
    }
}

/* One collective's chunking: chunk c is [off[c], off[c + 1]) in floats of the buffers; staged
 * copies move pieces of `sub` floats, `rounds` of them for the largest chunk, the same number
 * on every rank. */
struct ring_span {
    uint64_t off[GB_MAX_SET + 1];
    uint64_t sub, rounds;
};

static uint64_t chunk_len(const struct ring_span *sp, size_t c)
{
    return sp->off[c + 1] - sp->off[c];
}

/* Piece j of chunk c: [*lo, *lo + return) in floats relative to the chunk; 0 past its end. */
static uint64_t piece_of(const struct ring_span *sp, size_t c, uint64_t j, uint64_t *lo)
{
    *lo = j * sp->sub;
    uint64_t len = chunk_len(sp, c);
    return *lo >= len ? 0 : len - *lo < sp->sub ? len - *lo : sp->sub;
}

/* Enqueues out[off + i] = in[off + i] + recv[roff + i] for i < n on q (multi_reduce). */
static int ring_reduce(struct gb_multi_ring *r, size_t rank, struct gb_queue *q, struct gb_buf *in,
                       struct gb_buf *out, uint64_t off, uint64_t roff, uint64_t n)
{
    if (n == 0)
        return 0;
    const uint32_t wg = r->wg[rank];
    struct gb_launch l = {
        .dims = 1, .global = {(n + wg - 1) / wg * wg, 1, 1}, .local = {wg, 1, 1}, .nargs = 6};
    l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = out};
    l.args[1] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = in};
    l.args[2] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = r->recv[rank]};
    l.args[3] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = off};
    l.args[4] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = roff};
    l.args[5] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = n};
    return r->ops->launch(q, r->k[rank], &l);
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
static int ring_step(struct gb_multi_ring *r, struct gb_team *t, const struct ring_span *sp,
                     size_t rank, struct gb_buf *const *from, struct gb_buf *in, struct gb_buf *out,
                     size_t c, bool add)
{
    const struct gb_backend_ops *ops = r->ops;
    struct gb_queue *q = r->q[rank];
    const size_t prev = (rank + r->n - 1) % r->n, sc = (c + 1) % r->n;
    int err;
    if (r->direct) {
        if ((err = gb_team_barrier(t)))
            return err;
        const uint64_t n = chunk_len(sp, c), off = sp->off[c] * sizeof(float);
        if (n == 0)
            return ops->queue_sync(q);
        struct gb_buf *dst = add ? r->recv[rank] : out;
        if ((err = ops->peer_copy(q, dst, add ? 0 : off, from[prev], off, n * sizeof(float))) ||
            (add && (err = ring_reduce(r, rank, q, in, out, sp->off[c], 0, n))))
            return err;
        return ops->queue_sync(q);
    }
    struct gb_queue *q2 = r->q2[rank];
    for (uint64_t j = 0; j <= sp->rounds; j++) {
        uint64_t lo, n;
        if (j < sp->rounds && (n = piece_of(sp, sc, j, &lo)) > 0 &&
            (err = ops->copy(q, r->stage[rank][j % 2], 0, from[rank],
                             (sp->off[sc] + lo) * sizeof(float), n * sizeof(float), GB_COPY_ASYNC)))
            return err;
        if (j >= 1 && (n = piece_of(sp, c, j - 1, &lo)) > 0) {
            struct gb_buf *src = r->stage[prev][(j - 1) % 2];
            if (add)
                err = ops->copy(q2, r->recv[rank], lo * sizeof(float), src, 0, n * sizeof(float),
                                GB_COPY_ASYNC);
            else
                err = ops->copy(q2, out, (sp->off[c] + lo) * sizeof(float), src, 0,
                                n * sizeof(float), GB_COPY_ASYNC);
            if (!err && add)
                err = ring_reduce(r, rank, q2, in, out, sp->off[c] + lo, lo, n);
            if (err)
                return err;
        }
        if ((err = ops->queue_sync(q)) || (err = ops->queue_sync(q2)) || (err = gb_team_barrier(t)))
            return err;
    }
    return 0;
}

int gb_multi_ring_run(struct gb_multi_ring *r, struct gb_team *t, size_t rank, enum gb_ring_op op,
                      struct gb_buf *const *in, struct gb_buf *const *out, uint64_t base,
                      uint64_t count, uint64_t grain)
{
    const size_t n = r->n;
    if (n == 1) {
        if (op == GB_RING_ALL_GATHER || in[0] == out[0] || count == 0)
            return 0;
        return r->ops->copy(r->q[0], out[0], base * sizeof(float), in[0], base * sizeof(float),
                            count * sizeof(float), GB_COPY_ASYNC);
    }
    struct ring_span sp;
    uint64_t maxc = 0;
    if (grain == 0 || count % grain)
        grain = 1;
    for (size_t c = 0; c < n; c++) {
        uint64_t hi;
        gb_multi_ring_chunk(count, grain, n, c, &sp.off[c], &hi);
        sp.off[c] += base;
        maxc = hi + base - sp.off[c] > maxc ? hi + base - sp.off[c] : maxc;
    }
    sp.off[n] = base + count;
    sp.sub = maxc < r->sub ? (maxc ? maxc : 1) : r->sub;
    sp.rounds = (maxc + sp.sub - 1) / sp.sub;
    int err = 0;
    if (op != GB_RING_ALL_GATHER)
        /* Reduce-scatter: at step s this device receives chunk (rank - 1 - s) mod n and adds
         * its own input to it; the first sender reads its input, later ones their partial sum. */
        for (size_t s = 0; s + 1 < n && !err; s++)
            err = ring_step(r, t, &sp, rank, s == 0 ? in : out, in[rank], out[rank],
                            (rank + 2 * n - 1 - s) % n, true);
    if (op != GB_RING_REDUCE_SCATTER)
        /* All-gather: at step s this device receives the reduced chunk (rank - s) mod n. */
        for (size_t s = 0; s + 1 < n && !err; s++)
            err = ring_step(r, t, &sp, rank, out, out[rank], out[rank], (rank + n - s) % n, false);
    return err;
}
