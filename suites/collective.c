/* collective — a multi-device suite (multi_common.h holds what those suites share): every
 * collective of NCCL across the devices of the set (n of them, ranks 0..n-1 in set order), as
 * nccl-tests measures them: all-reduce, all-gather, reduce-scatter, broadcast, reduce,
 * all-to-all and send/recv (a ring exchange: rank r sends its buffer to r + 1 and receives
 * r - 1's), of `dtype` elements, sum or max, in or out of place.
 *
 * `size` is nccl-tests' size: count x the type's size, count being the elements of the larger
 * of a rank's two buffers (struct gb_coll, backends/backend.h): all-gather sends count / n and
 * receives count, reduce-scatter the reverse, the others send and receive count. count is
 * size / the type's size, rounded down (as nccl-tests does): the plan rounds `size` down to a
 * whole number of elements (collective_normalize: 7 bytes of f32 are recorded, and run, as 4;
 * below one element it is a skip). For the all-gather, reduce-scatter and all-to-all, count is
 * further rounded down to a multiple of n (nccl-tests again), which the plan cannot see; the
 * figures count what was moved, count x the type's size (figures `count` and `bytes`).
 *
 * transport=devices is ours: one host thread per device (the team), the transfers of each step
 * over the same path as `peer` and `allreduce` (direct peer copies where every pair that
 * exchanges has peer access, else staged through two pinned host buffers per device in pieces of
 * at most 4 MiB, read back on one queue while the previous piece is written on a second: step()),
 * the reductions by kernels/collective.cl, the steps separated by the team's barrier. The
 * algorithms: all-reduce is a ring (n - 1 reduce-scatter steps, n - 1 all-gather steps, chunks of
 * count / n; Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
 * workstations", JPDC 2009); reduce-scatter and all-gather its two halves; broadcast and reduce a chain from (to) the
 * root, pipelined in n chunks (2n - 2 steps); all-to-all n - 1 steps, rank r receiving from
 * r - s at step s; send/recv one step. In place, all-to-all and send/recv first copy the input
 * aside on the device (a rank's input is read by a peer while it receives into the same buffer).
 * transport=nccl hands the call to the backend's collective library (ops->comm_init / comm_run:
 * NCCL on CUDA), one call enqueuing on every rank, and waits on every queue; a backend without
 * one is a recorded skip. transport=mpi is gpubench-mpi's (one process per rank): a skip here.
 *
 * Figures, after nccl-tests doc/PERFORMANCE.md: `time` per operation (us), algbw = bytes / time
 * (GB/s, the headline), busbw = algbw x busbw_factor (gb_coll_busbw_factor: all-reduce
 * 2 (n - 1) / n; all-gather, reduce-scatter, all-to-all (n - 1) / n; broadcast, reduce,
 * send/recv 1), `busbw_factor` and `ranks` (n) themselves, `count` (the elements nccl-tests'
 * count names: size / the type's size, rounded down to a multiple of n where the collective
 * divides the buffer), `bytes` (B: count x the type's size, the bytes of the larger of a rank's
 * buffers that moved, which algbw divides; nccl-tests' size as it ran) and `path`.
 *
 * Verification, every element of every rank's output (the root's only for reduce): rank r's
 * input element i is v(r, i) = 1 + seed + ((r + i + seed) mod n) + n ((i + seed) mod P), small
 * integers whose sums stay exact in the dtype (P, pattern_period: 2^20 for i32, and for f32 over
 * up to 4 ranks, 2^16 for f32 over 16; 4 for bf16 over 8 ranks, 1 over 16), which differ across
 * ranks at every element, so that a chunk from the wrong rank, a missing contribution or a wrong
 * operation shows (for max, the rank holding the maximum changes with i), and across the
 * elements of a period, so that data from the wrong offset shows unless it is a multiple of
 * lcm(n, P) away. The measured runs use seed 0; out of place, their outputs are checked first.
 * Then the inputs are written again with seed 1, one more operation runs on the same path, and
 * every output is checked against seed 1: outputs left over from the measured runs (stale data)
 * and in-place results cannot pass.
 *
 * Test hook (COLL_BREAK_ENV): "drop-chunk" skips one rank's receive in the last step of every
 * run, "wrong-op" builds the reduction kernel with the other operation (sum <-> max), "stale"
 * skips that receive in the checked run only (the rank keeps what the measured runs left),
 * "shift" writes that receive one element on (data at the wrong offset).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/precision.h"
#include "suites/common.h"
#include "suites/collective_engine.h"
#include "suites/multi_common.h"

#define COLL_BREAK_ENV "GPUBENCH_TEST_COLL"

static const char *const coll_names[] = {"allreduce", "reducescatter", "allgather", "broadcast",
                                         "reduce",    "alltoall",      "sendrecv",  NULL};
static const char *const dtypes[] = {"f32", "f16", "bf16", "i32", NULL};
static const char *const redops[] = {"sum", "max", NULL};
static const char *const transports[] = {"devices", "nccl", "mpi", NULL};

static const struct gb_axis_def collective_axes[] = {
    GB_AXIS_STR("coll",
                "[allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv]",
                coll_names, "the collective (nccl-tests' names)"),
    GB_AXIS_STR("transport", "devices", transports,
                "devices: ours (peer copies and reduction kernels); nccl: the backend's collective "
                "library; mpi: gpubench-mpi's (a skip here)"),
    GB_AXIS_STR("dtype", "f32", dtypes,
                "the element type (f16 reductions need half arithmetic on every device)"),
    GB_AXIS_STR("redop", "sum", redops,
                "the reduction of allreduce, reducescatter and reduce (the others: sum only)"),
    GB_AXIS_BOOL("inplace", "false",
                 "the output overwrites the input (struct gb_coll's in-place layouts)"),
    GB_AXIS_INT("root", "0", 0, GB_MAX_SET - 1,
                "the root rank of broadcast and reduce (above the set: skipped)"),
    GB_AXIS_SIZE("size", "{from: 8, to: 16MiB, factor: 8}", 1, 0,
                 "nccl-tests' size: count x the type's size, bytes"),
};

/* One rank's part of a step: what it sends (buf, off, len: elements of its own buffer) and
 * what it receives (from `peer`, into buf at off; with opnd, buf[off + i] = OP(opnd[ooff + i],
 * received[i])). len 0: nothing. */
struct xfer {
    struct gb_buf *buf;
    uint64_t off, len;
    size_t peer;
    struct gb_buf *opnd;
    uint64_t ooff;
};

static bool reducing(enum gb_coll_op op)
{
    return op == GB_COLL_ALLREDUCE || op == GB_COLL_REDUCESCATTER || op == GB_COLL_REDUCE;
}

static bool rooted(enum gb_coll_op op)
{
    return op == GB_COLL_BROADCAST || op == GB_COLL_REDUCE;
}

static enum gb_coll_op op_of(const char *s)
{
    for (int op = GB_COLL_ALLREDUCE; op <= GB_COLL_SENDRECV; op++)
        if (strcmp(s, gb_coll_op_name((enum gb_coll_op)op)) == 0)
            return (enum gb_coll_op)op;
    return GB_COLL_ALLREDUCE;
}

static enum gb_dtype dtype_of(const char *s)
{
    return strcmp(s, "f16") == 0    ? GB_F16
           : strcmp(s, "bf16") == 0 ? GB_BF16
           : strcmp(s, "i32") == 0  ? GB_I32
                                    : GB_F32;
}

/* The reduction means nothing to the non-reducing collectives, and the root nothing to the
 * unrooted ones: each is rewritten to redop sum and root 0, so that one case remains. A size
 * that is not a whole number of elements is rounded down to one (nccl-tests' count = size /
 * the type's size), so that the case records the bytes it moves and merges with the size that
 * says so (7 bytes of f32: 4); one below an element is left as given, for setup's skip. */
static bool collective_normalize(struct gb_params *p)
{
    const enum gb_coll_op op = op_of(gb_params_str(p, "coll"));
    struct gb_value *redop = gb_params_slot(p, "redop"), *root = gb_params_slot(p, "root");
    struct gb_value *size = gb_params_slot(p, "size"), *dtype = gb_params_slot(p, "dtype");
    if (redop && !reducing(op))
        snprintf(redop->s, sizeof redop->s, "sum");
    if (root && !rooted(op))
        root->u.i = 0;
    if (size && dtype) {
        const uint64_t es = gb_dtype_size(dtype_of(dtype->s));
        if (size->u.size >= es)
            size->u.size -= size->u.size % es;
    }
    return true;
}

/* What normalize rewrote does not apply (what people read leaves it out; results keep it): redop
 * but in the reducing collectives, root but in the rooted ones. Params without a collective this
 * suite names keep both. */
static bool collective_axis_applies(const struct gb_params *p, const char *axis)
{
    const char *coll = gb_params_str(p, "coll");
    if (strcmp(coll, gb_coll_op_name(op_of(coll))) != 0)
        return true;
    if (strcmp(axis, "redop") == 0)
        return reducing(op_of(coll));
    if (strcmp(axis, "root") == 0)
        return rooted(op_of(coll));
    return true;
}

static uint64_t len_of(const struct coll *c, size_t k)
{
    return c->off[k + 1] - c->off[k];
}

/* Rank r's part of step s (0 <= s < c->nsteps, n >= 2) of the devices transport: *snd what it
 * sends, *rcv what it receives. Every rank's send at a step is what its receiver expects
 * (equal lengths), and within a step no rank writes what it or a peer reads. */
static void step_of(const struct coll *c, size_t r, size_t s, struct xfer *snd, struct xfer *rcv)
{
    const size_t n = c->team.n, prev = (r + n - 1) % n;
    *snd = (struct xfer){0};
    *rcv = (struct xfer){.peer = prev};
    size_t k, sk;
    switch (c->op) {
    case GB_COLL_ALLREDUCE:
        if (s + 1 < n) { /* reduce-scatter: chunk (r - 1 - s) arrives, added to the input */
            k = (r + 2 * n - 1 - s) % n, sk = (r + n - s) % n;
            *rcv = (struct xfer){.buf = c->recv[r],
                                 .off = c->off[k],
                                 .len = len_of(c, k),
                                 .peer = prev,
                                 .opnd = c->send[r],
                                 .ooff = c->off[k]};
            *snd = (struct xfer){
                .buf = s == 0 ? c->send[r] : c->recv[r], .off = c->off[sk], .len = len_of(c, sk)};
        } else { /* all-gather: the reduced chunk (r - t) arrives */
            const size_t t = s - (n - 1);
            k = (r + n - t) % n, sk = (r + n + 1 - t) % n;
            *rcv = (struct xfer){
                .buf = c->recv[r], .off = c->off[k], .len = len_of(c, k), .peer = prev};
            *snd = (struct xfer){.buf = c->recv[r], .off = c->off[sk], .len = len_of(c, sk)};
        }
        return;
    case GB_COLL_REDUCESCATTER: {
        /* Chunk (r - 2 - s) arrives; at the last step it is chunk r, this rank's result. */
        k = (r + 2 * n - 2 - s) % n, sk = (r + 2 * n - 1 - s) % n;
        const bool last = s + 2 == n;
        *rcv = (struct xfer){.buf = last ? c->recv[r] : c->work[r],
                             .off = last ? (c->inplace ? c->off[r] : 0) : c->off[k],
                             .len = len_of(c, k),
                             .peer = prev,
                             .opnd = c->send[r],
                             .ooff = c->off[k]};
        *snd = (struct xfer){
            .buf = s == 0 ? c->send[r] : c->work[r], .off = c->off[sk], .len = len_of(c, sk)};
        return;
    }
    case GB_COLL_ALLGATHER:
        k = (r + 2 * n - 1 - s) % n, sk = (r + n - s) % n;
        *rcv =
            (struct xfer){.buf = c->recv[r], .off = c->off[k], .len = len_of(c, k), .peer = prev};
        *snd = (struct xfer){.buf = c->recv[r], .off = c->off[sk], .len = len_of(c, sk)};
        return;
    case GB_COLL_BROADCAST: {
        /* Position p = r - root on the chain: p >= 1 receives chunk s - (p - 1), p <= n - 2
         * sends chunk s - p (what it received the step before; the root its input). */
        const size_t p = (r + n - c->root) % n;
        if (p >= 1 && s + 1 >= p && s + 1 - p < n) {
            k = s + 1 - p;
            *rcv = (struct xfer){
                .buf = c->recv[r], .off = c->off[k], .len = len_of(c, k), .peer = prev};
        }
        if (p + 2 <= n && s >= p && s - p < n) {
            sk = s - p;
            *snd = (struct xfer){
                .buf = p == 0 ? c->send[r] : c->recv[r], .off = c->off[sk], .len = len_of(c, sk)};
        }
        return;
    }
    case GB_COLL_REDUCE: {
        /* Position q = r - root - 1: the chain ends at the root (q = n - 1); q >= 1 receives
         * the partial of chunk s - (q - 1) and adds its input, q <= n - 2 sends chunk s - q. */
        const size_t q = (r + 2 * n - c->root - 1) % n;
        if (q >= 1 && s + 1 >= q && s + 1 - q < n) {
            k = s + 1 - q;
            *rcv = (struct xfer){.buf = q + 1 == n ? c->recv[r] : c->work[r],
                                 .off = c->off[k],
                                 .len = len_of(c, k),
                                 .peer = prev,
                                 .opnd = c->send[r],
                                 .ooff = c->off[k]};
        }
        if (q + 2 <= n && s >= q && s - q < n) {
            sk = s - q;
            *snd = (struct xfer){
                .buf = q == 0 ? c->send[r] : c->work[r], .off = c->off[sk], .len = len_of(c, sk)};
        }
        return;
    }
    case GB_COLL_ALLTOALL: {
        /* Step s + 1 apart: rank r - (s + 1) sends its chunk r into chunk r - (s + 1) here. */
        const size_t d = s + 1, from = (r + n - d) % n, to = (r + d) % n;
        struct gb_buf *src = c->inplace ? c->work[r] : c->send[r];
        *rcv = (struct xfer){
            .buf = c->recv[r], .off = c->off[from], .len = len_of(c, from), .peer = from};
        *snd = (struct xfer){.buf = src, .off = c->off[to], .len = len_of(c, to)};
        return;
    }
    case GB_COLL_SENDRECV:
        *rcv = (struct xfer){.buf = c->recv[r], .off = 0, .len = c->count, .peer = prev};
        *snd =
            (struct xfer){.buf = c->inplace ? c->work[r] : c->send[r], .off = 0, .len = c->count};
        return;
    }
}

/* Enqueues out[ooff + i] = OP(a[aoff + i], b[boff + i]) for i < len on q (coll_reduce). */
static int reduce(struct coll *c, size_t r, struct gb_queue *q, struct gb_buf *out, uint64_t ooff,
                  struct gb_buf *a, uint64_t aoff, struct gb_buf *b, uint64_t boff, uint64_t len)
{
    if (len == 0)
        return 0;
    const uint32_t wg = c->wg[r];
    struct gb_launch l = {
        .dims = 1, .global = {(len + wg - 1) / wg * wg, 1, 1}, .local = {wg, 1, 1}, .nargs = 7};
    l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = out};
    l.args[1] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = a};
    l.args[2] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = b};
    l.args[3] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = ooff};
    l.args[4] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = aoff};
    l.args[5] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = boff};
    l.args[6] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = len};
    return c->team.ctx->ops->launch(q, c->k[r], &l);
}

/* Piece j of a transfer of len elements: [*lo, *lo + return); 0 past its end. */
static uint64_t piece(const struct coll *c, uint64_t len, uint64_t j, uint64_t *lo)
{
    *lo = j * c->sub;
    return *lo >= len ? 0 : len - *lo < c->sub ? len - *lo : c->sub;
}

/* Whether the test hook skips rank r's receive at step s in this run. */
static bool dropped(const struct coll *c, size_t r, size_t s)
{
    return r == c->drop && s + 1 == c->nsteps &&
           (c->fault == FAULT_DROP || (c->fault == FAULT_STALE && c->checking));
}

/* Rank r's part of step s: direct, after a barrier (the senders' data of the step before is
 * complete) the receive pulls from the sender's buffer with peer_copy (into tmp when it is
 * reduced); staged, allreduce.c's pipeline: in round j every rank reads piece j of what it sends
 * into its stage[j % 2] on its first queue while it writes piece j - 1 of what it receives from
 * the sender's stage[(j - 1) % 2] on its second queue (and reduces it there); both queues are
 * drained and the team meets before the next round. Every rank runs the same rounds. */
static int step(struct coll *c, size_t r, size_t s)
{
    const struct gb_backend_ops *ops = c->team.ctx->ops;
    struct gb_queue *q = c->q[r];
    const size_t es = c->es;
    struct xfer snd, rcv;
    step_of(c, r, s, &snd, &rcv);
    if (dropped(c, r, s))
        rcv.len = 0;
    if (c->fault == FAULT_SHIFT && r == c->drop && s + 1 == c->nsteps && rcv.len > 1) {
        rcv.off++; /* the test hook: the data lands one element on (its last element lost) */
        rcv.len--;
    }
    int err;
    if (c->direct) {
        if ((err = gb_team_barrier(c->team.t)))
            return err;
        if (rcv.len == 0)
            return ops->queue_sync(q);
        struct xfer from, unused;
        step_of(c, rcv.peer, s, &from, &unused);
        struct gb_buf *dst = rcv.opnd ? c->tmp[r] : rcv.buf;
        if ((err = ops->peer_copy(q, dst, rcv.opnd ? 0 : rcv.off * es, from.buf, from.off * es,
                                  rcv.len * es)) ||
            (rcv.opnd &&
             (err = reduce(c, r, q, rcv.buf, rcv.off, rcv.opnd, rcv.ooff, c->tmp[r], 0, rcv.len))))
            return err;
        return ops->queue_sync(q);
    }
    struct gb_queue *q2 = c->q2[r];
    for (uint64_t j = 0; j <= c->rounds; j++) {
        uint64_t lo, m;
        if (j < c->rounds && (m = piece(c, snd.len, j, &lo)) > 0 &&
            (err = ops->copy(q, c->stage[r][j % 2], 0, snd.buf, (snd.off + lo) * es, m * es,
                             GB_COPY_ASYNC)))
            return err;
        if (j >= 1 && (m = piece(c, rcv.len, j - 1, &lo)) > 0) {
            struct gb_buf *src = c->stage[rcv.peer][(j - 1) % 2];
            if (rcv.opnd)
                err = ops->copy(q2, c->tmp[r], lo * es, src, 0, m * es, GB_COPY_ASYNC);
            else
                err = ops->copy(q2, rcv.buf, (rcv.off + lo) * es, src, 0, m * es, GB_COPY_ASYNC);
            if (!err && rcv.opnd)
                err = reduce(c, r, q2, rcv.buf, rcv.off + lo, rcv.opnd, rcv.ooff + lo, c->tmp[r],
                             lo, m);
            if (err)
                return err;
        }
        if ((err = ops->queue_sync(q)) || (err = ops->queue_sync(q2)) ||
            (err = gb_team_barrier(c->team.t)))
            return err;
    }
    return 0;
}

/* The local copies before the steps, on rank r's queue: one rank (n = 1) copies its input to
 * its output; all-gather places its own chunk, all-to-all keeps its own chunk (in place: sets
 * the input aside first), broadcast's root copies its input, send/recv in place sets the input
 * aside. */
static int local_part(struct coll *c, size_t r)
{
    const struct gb_backend_ops *ops = c->team.ctx->ops;
    struct gb_queue *q = c->q[r];
    const size_t es = c->es;
    if (c->team.n == 1)
        return c->inplace
                   ? 0
                   : ops->copy(q, c->recv[r], 0, c->send[r], 0, c->count * es, GB_COPY_ASYNC);
    switch (c->op) {
    case GB_COLL_ALLGATHER:
        return c->inplace ? 0
                          : ops->copy(q, c->recv[r], c->off[r] * es, c->send[r], 0,
                                      len_of(c, r) * es, GB_COPY_ASYNC);
    case GB_COLL_ALLTOALL:
        if (c->inplace)
            return ops->copy(q, c->work[r], 0, c->send[r], 0, c->count * es, GB_COPY_ASYNC);
        return ops->copy(q, c->recv[r], c->off[r] * es, c->send[r], c->off[r] * es,
                         len_of(c, r) * es, GB_COPY_ASYNC);
    case GB_COLL_BROADCAST:
        return c->inplace || r != c->root
                   ? 0
                   : ops->copy(q, c->recv[r], 0, c->send[r], 0, c->count * es, GB_COPY_ASYNC);
    case GB_COLL_SENDRECV:
        return c->inplace ? ops->copy(q, c->work[r], 0, c->send[r], 0, c->count * es, GB_COPY_ASYNC)
                          : 0;
    default:
        return 0;
    }
}

static int devices_job(struct gb_team *t, size_t rank, void *arg)
{
    struct coll *c = arg;
    const struct gb_backend_ops *ops = c->team.ctx->ops;
    struct gb_queue *q = c->q[rank];
    int err = 0;
    for (uint64_t rep = 0; rep < c->team.reps && !err; rep++) {
        /* The peers of the previous repetition's last step may still read this rank's
         * buffers (direct path). */
        if (rep > 0 && c->team.n > 1 && (err = gb_team_barrier(t)))
            break;
        /* Direct, a peer pulls from this rank's buffers after the first step's barrier: the
         * local part must be complete by then. Staged, the first round's reads follow it on the
         * same queue, and its writes come after that round's sync. */
        if ((err = local_part(c, rank)) || (c->direct && (err = ops->queue_sync(q))))
            break;
        for (size_t s = 0; s < c->nsteps && !err; s++)
            err = step(c, rank, s);
    }
    if (!err)
        err = ops->queue_sync(q);
    return err;
}

/* The library's transport: rank 0's thread enqueues every rank's share (one comm_run), then
 * every rank waits on its own queue. */
static int nccl_job(struct gb_team *t, size_t rank, void *arg)
{
    struct coll *c = arg;
    const struct gb_backend_ops *ops = c->team.ctx->ops;
    int err = 0;
    if (rank == 0)
        for (uint64_t rep = 0; rep < c->team.reps && !err; rep++)
            err = ops->comm_run(c->comm, &c->call);
    int berr = gb_team_barrier(t);
    if (!err)
        err = berr;
    if (!err)
        err = ops->queue_sync(c->team.ctx->queues[rank]);
    return err;
}

/* ---- inputs and the host reference ----------------------------------------------------------- */

/* Rank r's input element i (module comment). */
static double in_val(const struct coll *c, size_t r, uint64_t i, unsigned seed)
{
    const uint64_t n = c->team.n;
    return 1.0 + (double)seed + (double)((r + i + seed) % n) +
           (double)n * (double)((i + seed) % c->period);
}

/* The longest period P (at most 2^20) of the inputs whose sums over n ranks stay exact in t:
 * the largest sum, n (1 + 1) + n (n - 1) / 2 + n^2 (P - 1) (seed 1), at most the type's largest
 * run of exact integers: 2^8 for bf16 (8 significand bits), 2^11 for f16, 2^24 for f32, 2^31 - 1
 * for i32. bf16 over 16 ranks still fits with P = 1 (152). */
static uint64_t pattern_period(enum gb_dtype t, size_t n)
{
    const double limit = t == GB_BF16  ? 256.0
                         : t == GB_F16 ? 2048.0
                         : t == GB_I32 ? 2147483647.0
                                       : 16777216.0;
    const double dn = (double)n, p = floor((limit - 2.0 * dn - dn * (dn - 1.0) / 2.0) / (dn * dn));
    return p < 0 ? 1 : p + 1 > (double)(1u << 20) ? 1u << 20 : (uint64_t)p + 1;
}

static double reduced(const struct coll *c, uint64_t i, unsigned seed)
{
    double acc = in_val(c, 0, i, seed);
    for (size_t r = 1; r < c->team.n; r++) {
        const double v = in_val(c, r, i, seed);
        acc = c->redop == GB_COLL_MAX ? (v > acc ? v : acc) : acc + v;
    }
    return acc;
}

/* The chunk holding element j of a chunked buffer. */
static size_t chunk_at(const struct coll *c, uint64_t j)
{
    size_t k = 0;
    while (k + 1 < c->team.n && j >= c->off[k + 1])
        k++;
    return k;
}

/* What rank r's output element j must hold. */
static double expected(const struct coll *c, size_t r, uint64_t j, unsigned seed)
{
    const size_t n = c->team.n;
    size_t k;
    switch (c->op) {
    case GB_COLL_ALLREDUCE:
    case GB_COLL_REDUCE:
        return reduced(c, j, seed);
    case GB_COLL_REDUCESCATTER:
        return reduced(c, c->off[r] + j, seed);
    case GB_COLL_ALLGATHER:
        k = chunk_at(c, j);
        return in_val(c, k, j - c->off[k], seed);
    case GB_COLL_BROADCAST:
        return in_val(c, c->root, j, seed);
    case GB_COLL_ALLTOALL:
        k = chunk_at(c, j);
        return in_val(c, k, c->off[r] + j - c->off[k], seed);
    case GB_COLL_SENDRECV:
        return in_val(c, (r + n - 1) % n, j, seed);
    }
    return 0;
}

static void put(const struct coll *c, void *h, uint64_t i, double v)
{
    switch (c->dtype) {
    case GB_F16:
        ((uint16_t *)h)[i] = gb_f16_from_double(v);
        break;
    case GB_BF16:
        ((uint16_t *)h)[i] = gb_bf16_from_double(v);
        break;
    case GB_I32:
        ((int32_t *)h)[i] = (int32_t)v;
        break;
    default:
        ((float *)h)[i] = (float)v;
        break;
    }
}

static double get(const struct coll *c, const void *h, uint64_t i)
{
    switch (c->dtype) {
    case GB_F16:
        return gb_f16_to_double(((const uint16_t *)h)[i]);
    case GB_BF16:
        return gb_bf16_to_double(((const uint16_t *)h)[i]);
    case GB_I32:
        return (double)((const int32_t *)h)[i];
    default:
        return (double)((const float *)h)[i];
    }
}

/* Writes every rank's input with `seed` (h: scratch of count elements). In place, all-gather's
 * input is its chunk of the one buffer. */
static int upload_inputs(struct gb_case_ctx *ctx, struct coll *c, void *h, unsigned seed)
{
    int err = 0;
    for (size_t r = 0; r < c->team.n && !err; r++) {
        for (uint64_t i = 0; i < c->scount; i++)
            put(c, h, i, in_val(c, r, i, seed));
        struct gb_buf *b = c->send[r];
        if (!(c->op == GB_COLL_ALLGATHER && c->inplace)) {
            err = gb_multi_upload(ctx, r, b, h, c->scount * c->es);
        } else {
            /* Only the rank's chunk of the one buffer (the rest keeps what it held): read the
             * buffer back, patch, write. */
            const uint64_t at = c->off[r] * c->es;
            void *whole = malloc(c->count * c->es);
            if (!whole)
                return GB_FAIL(GB_ENOMEM, "host buffer of %llu bytes",
                               (unsigned long long)(c->count * c->es));
            if (!(err = gb_multi_download(ctx, r, whole, b, c->count * c->es))) {
                memcpy((char *)whole + at, h, c->scount * c->es);
                err = gb_multi_upload(ctx, r, b, whole, c->count * c->es);
            }
            free(whole);
        }
    }
    return err;
}

/* Checks every rank's output against seed (the root's only for reduce); h: scratch. */
static int check_outputs(struct gb_case_ctx *ctx, struct coll *c, void *h, unsigned seed,
                         const char *which)
{
    int err = 0;
    for (size_t r = 0; r < c->team.n && !err; r++) {
        if (c->op == GB_COLL_REDUCE && r != c->root)
            continue;
        const uint64_t base = c->inplace && c->op == GB_COLL_REDUCESCATTER ? c->off[r] : 0;
        const uint64_t all = c->inplace ? c->count : c->rcount;
        if ((err = gb_multi_download(ctx, r, h, c->recv[r], all * c->es)))
            break;
        for (uint64_t j = 0; j < c->rcount; j++) {
            const double got = get(c, h, base + j), gold = expected(c, r, j, seed);
            if (got != gold) {
                ctx->max_error = gold != 0 ? fabs(got - gold) / fabs(gold) : fabs(got);
                return gb_case_mismatch(ctx,
                                        "%s, rank %zu: element %llu of its output = %.9g, "
                                        "expected %.9g (exact)",
                                        which, r, (unsigned long long)j, got, gold);
            }
        }
    }
    return err;
}

/* ---- setup, verify, figures ------------------------------------------------------------------ */

/* Rank i's part of the devices transport (n >= 2; c->maxlen, sub, direct, dtype, redop and fault
 * set): a work buffer of `work` elements (0: none), for a reducing collective (`red`) the buffer
 * of what arrives (maxlen elements) and the reduction kernel, staged the pinned buffers and the
 * second queue. */
static int rank_setup(struct gb_case_ctx *ctx, struct coll *c, size_t i, uint64_t work, bool red)
{
    const size_t es = c->es;
    const char *def = c->dtype == GB_F16    ? "COLL_F16"
                      : c->dtype == GB_BF16 ? "COLL_BF16"
                      : c->dtype == GB_I32  ? "COLL_I32"
                                            : "COLL_F32";
    const bool max = (c->redop == GB_COLL_MAX) != (c->fault == FAULT_WRONG_OP);
    const char *defs[2] = {def, max ? "COLL_MAX" : "COLL_SUM"};
    int err = 0;
    if (work && (err = gb_multi_alloc(ctx, i, work * es, GB_MEM_DEVICE, &c->work[i])))
        return err;
    if (red && ((err = gb_multi_alloc(ctx, i, c->maxlen * es, GB_MEM_DEVICE, &c->tmp[i])) ||
                (err = gb_multi_build(ctx, i, "collective.cl", "coll_reduce", defs, 2, &c->prog[i],
                                      &c->k[i]))))
        return err;
    uint32_t kmax = 0;
    if (red && !(err = ctx->ops->kernel_max_wg(c->k[i], &kmax)))
        c->wg[i] = kmax >= 256 ? 256 : kmax ? kmax : 1;
    /* One reduction of one element here, rank by rank, before the ranks' threads launch it at
     * once: the kernel's first launch on a device is where an implementation finishes building
     * it for the work-group size (PoCL 3.1 then loads it into a process-wide cache, and ranks
     * doing that at the same moment aborted it now and then: "pocl_release_dlhandle_cache:
     * Assertion `found->ref_count > 0' failed", 1 run in ~20 on 4 devices). */
    if (red && !err && c->maxlen && !(err = gb_multi_poison(ctx, i, c->tmp[i], es, c->dtype))) {
        struct gb_launch l = {
            .dims = 1, .global = {c->wg[i], 1, 1}, .local = {c->wg[i], 1, 1}, .nargs = 7};
        for (int a = 0; a < 3; a++)
            l.args[a] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = c->tmp[i]};
        for (int a = 3; a < 6; a++)
            l.args[a] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = 0};
        l.args[6] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = 1};
        if (!(err = ctx->ops->launch(ctx->queues[i], c->k[i], &l)))
            err = ctx->ops->queue_sync(ctx->queues[i]);
    }
    for (int b = 0; b < 2 && !c->direct && !err; b++)
        err = gb_multi_alloc(ctx, i, c->sub * es, GB_MEM_HOST_PINNED, &c->stage[i][b]);
    if (!err && !c->direct)
        err = ctx->ops->queue_create(ctx->devs[i], &c->q2[i]);
    return err;
}

static int devices_setup(struct gb_case_ctx *ctx, struct coll *c)
{
    const size_t n = c->team.n, es = c->es;
    const bool red = reducing(c->op);
    if (red && c->dtype == GB_F16)
        for (size_t i = 0; i < n; i++)
            if (!(ctx->devs[i]->info.caps & GB_CAP_FP16))
                return gb_case_skip(ctx,
                                    "an f16 reduction needs half arithmetic (cl_khr_fp16, "
                                    "sm_53+), which device %zu of the set lacks",
                                    i);
    switch (c->op) {
    case GB_COLL_ALLREDUCE:
        c->nsteps = 2 * (n - 1);
        break;
    case GB_COLL_REDUCESCATTER:
    case GB_COLL_ALLGATHER:
    case GB_COLL_ALLTOALL:
        c->nsteps = n - 1;
        break;
    case GB_COLL_BROADCAST:
    case GB_COLL_REDUCE:
        c->nsteps = n > 1 ? 2 * n - 2 : 0;
        break;
    case GB_COLL_SENDRECV:
        c->nsteps = n > 1 ? 1 : 0;
        break;
    }
    c->maxlen = c->op == GB_COLL_SENDRECV ? c->count : 0;
    for (size_t k = 0; k < n; k++)
        c->maxlen = len_of(c, k) > c->maxlen ? len_of(c, k) : c->maxlen;
    /* Staged pieces: 4 MiB, or the largest transfer when that is smaller. */
    c->sub = GB_MULTI_STAGE_MAX / es < c->maxlen ? GB_MULTI_STAGE_MAX / es : c->maxlen;
    c->rounds = c->sub ? (c->maxlen + c->sub - 1) / c->sub : 0;
    /* Direct where every pair that exchanges has peer access (all-to-all: every pair). */
    c->direct = n > 1;
    for (size_t i = 0; i < n && c->direct; i++)
        for (size_t j = 0; j < n && c->direct; j++)
            if (i != j && (c->op == GB_COLL_ALLTOALL || j == (i + n - 1) % n))
                c->direct = gb_multi_peer_direct(ctx, ctx->devs[i], ctx->devs[j]);
    /* The rank the drop and stale faults hit: the highest that receives at the last step. */
    for (size_t r = 0; r < n && c->nsteps; r++) {
        struct xfer s, v;
        step_of(c, r, c->nsteps - 1, &s, &v);
        if (v.len)
            c->drop = r;
    }
    const bool need_work = c->op == GB_COLL_REDUCESCATTER || c->op == GB_COLL_REDUCE ||
                           (c->inplace && (c->op == GB_COLL_ALLTOALL || c->op == GB_COLL_SENDRECV));
    int err = 0;
    for (size_t i = 0; i < n && !err && n > 1; i++)
        err = rank_setup(ctx, c, i, need_work ? c->count : 0, red);
    return err;
}

static int collective_setup(struct gb_case_ctx *ctx)
{
    struct coll *c = ctx->state;
    const struct gb_params *p = ctx->params;
    c->op = op_of(gb_params_str(p, "coll"));
    c->dtype = dtype_of(gb_params_str(p, "dtype"));
    c->redop = strcmp(gb_params_str(p, "redop"), "max") == 0 ? GB_COLL_MAX : GB_COLL_SUM;
    c->inplace = gb_params_bool(p, "inplace");
    const char *tr = gb_params_str(p, "transport");
    c->tr = strcmp(tr, "nccl") == 0 ? TR_NCCL : strcmp(tr, "mpi") == 0 ? TR_MPI : TR_DEVICES;
    const int64_t root = gb_params_int(p, "root");
    if (root < 0 || (uint64_t)root >= ctx->ndevs)
        return gb_case_skip(ctx, "root %lld is not a rank of the set's %zu devices",
                            (long long)root, ctx->ndevs);
    c->root = (size_t)root;
    return gb_coll_setup(ctx, ctx->ndevs, gb_params_size(p, "size"));
}

int gb_coll_setup(struct gb_case_ctx *ctx, size_t n, uint64_t bytes)
{
    struct coll *c = ctx->state;
    const char *brk = getenv(COLL_BREAK_ENV);
    c->fault = !brk                             ? FAULT_NONE
               : strcmp(brk, "drop-chunk") == 0 ? FAULT_DROP
               : strcmp(brk, "wrong-op") == 0   ? FAULT_WRONG_OP
               : strcmp(brk, "stale") == 0      ? FAULT_STALE
               : strcmp(brk, "shift") == 0      ? FAULT_SHIFT
                                                : FAULT_NONE;
    c->team.n = n;
    for (size_t i = 0; i < n; i++)
        c->q[i] = ctx->queues[i];
    if (c->tr == TR_MPI)
        return gb_case_skip(ctx, "the mpi transport runs one process per rank: "
                                 "`mpirun -np N gpubench-mpi`; within one process it has no case");
    if (c->tr == TR_NCCL && (!ctx->ops->comm_init || !ctx->ops->comm_run || !ctx->ops->comm_free))
        return gb_case_skip(ctx, "the %s backend has no collective library (NCCL is CUDA's)",
                            ctx->ops->name);
    if (n == 1 && c->inplace)
        return gb_case_skip(ctx, "in place on one rank the output is the input: nothing moves "
                                 "(the 1-rank baseline is the out-of-place copy)");
    c->es = gb_dtype_size(c->dtype);
    c->period = pattern_period(c->dtype, n);
    c->count = bytes / c->es;
    const bool divided =
        c->op == GB_COLL_ALLGATHER || c->op == GB_COLL_REDUCESCATTER || c->op == GB_COLL_ALLTOALL;
    if (divided)
        c->count -= c->count % n;
    /* The others take fewer elements than ranks, as NCCL does: some chunks are empty. */
    if (c->count == 0)
        return gb_case_skip(ctx,
                            divided ? "%llu bytes hold fewer %s elements than the set has ranks "
                                      "(%zu): this collective divides the buffer among them"
                                    : "%llu bytes hold no %s element (%zu ranks)",
                            (unsigned long long)bytes, gb_dtype_name(c->dtype), n);
    for (size_t k = 0; k < n; k++) {
        uint64_t hi;
        gb_coll_chunk(c->count, 1, n, k, &c->off[k], &hi);
    }
    c->off[n] = c->count;
    c->scount = c->op == GB_COLL_ALLGATHER ? c->count / n : c->count;
    c->rcount = c->op == GB_COLL_REDUCESCATTER ? c->count / n : c->count;
    /* Device memory per rank, at most: send and receive (one buffer in place), a work buffer of
     * count and a chunk of count / n + 1 (devices_setup allocates a subset). */
    const uint64_t most = (c->inplace ? 1 : 2) * c->count + c->count + c->count / n + 1;
    int err = 0;
    for (size_t i = 0; i < n && !err; i++)
        err = gb_multi_fits(ctx, i, most * c->es, c->count * c->es);
    /* The host: the inputs' and verify's buffers of count (two at once at most) and each rank's
     * two staging buffers; CPU devices' buffers are host memory too, on every rank at once. */
    if (!err)
        err = gb_multi_fits_host(
            ctx, n, 2.0 * (double)(c->count * c->es) + 2.0 * (double)n * (double)GB_MULTI_STAGE_MAX,
            (double)(most * c->es));
    if (err)
        return err;
    const uint64_t one = c->inplace ? c->count : 0;
    for (size_t i = 0; i < n && !err; i++) {
        if (c->inplace) {
            if (!(err = gb_multi_alloc(ctx, i, one * c->es, GB_MEM_DEVICE, &c->send[i])))
                err = gb_multi_poison(ctx, i, c->send[i], one * c->es, c->dtype);
            c->recv[i] = c->send[i];
        } else if (!(err = gb_multi_alloc(ctx, i, c->scount * c->es, GB_MEM_DEVICE, &c->send[i])) &&
                   !(err = gb_multi_alloc(ctx, i, c->rcount * c->es, GB_MEM_DEVICE, &c->recv[i])))
            err = gb_multi_poison(ctx, i, c->recv[i], c->rcount * c->es, c->dtype);
    }
    void *h = err ? NULL : malloc(c->count * c->es);
    if (!err && !h)
        err =
            GB_FAIL(GB_ENOMEM, "host buffer of %llu bytes", (unsigned long long)(c->count * c->es));
    if (!err)
        err = upload_inputs(ctx, c, h, 0);
    free(h);
    if (err)
        return err;
    if (c->tr == TR_NCCL) {
        err = ctx->ops->comm_init(ctx->devs, ctx->queues, (int)n, &c->comm);
        if (err == GB_EUNSUPPORTED)
            return gb_case_skip(ctx, "%s", gb_error_msg());
        if (err)
            return err;
        c->call = (struct gb_coll){.op = c->op,
                                   .dtype = c->dtype,
                                   .redop = c->redop,
                                   .count = c->count,
                                   .root = (int)c->root,
                                   .send = c->send,
                                   .recv = c->recv};
        /* One untimed operation: a type or reduction the library lacks is a skip with its
         * reason, not a failure of the timed runs. */
        err = ctx->ops->comm_run(c->comm, &c->call);
        if (err == GB_EUNSUPPORTED)
            return gb_case_skip(ctx, "%s", gb_error_msg());
        for (size_t i = 0; i < n && !err; i++)
            err = ctx->ops->queue_sync(ctx->queues[i]);
        if (!err)
            err = gb_multi_team_start(ctx, nccl_job);
    } else if (!(err = devices_setup(ctx, c))) {
        err = gb_multi_team_start(ctx, devices_job);
    }
    ctx->op.bytes = (double)(c->count * c->es);
    return err;
}

int gb_coll_verify(struct gb_case_ctx *ctx)
{
    struct coll *c = ctx->state;
    void *h = malloc(c->count * c->es);
    if (!h)
        return GB_FAIL(GB_ENOMEM, "read-back of %llu bytes",
                       (unsigned long long)(c->count * c->es));
    ctx->max_error = 0;
    int err = 0;
    /* Out of place, the measured runs' outputs (their inputs are unchanged). */
    if (!c->inplace)
        err = check_outputs(ctx, c, h, 0, "the measured runs");
    /* Then one more operation on new inputs, checked whole. */
    if (!err && !(err = upload_inputs(ctx, c, h, 1))) {
        c->checking = true;
        err = gb_multi_run(ctx, 1);
        c->checking = false;
        if (!err)
            err = check_outputs(ctx, c, h, 1, "the checked run");
    }
    free(h);
    return err;
}

void gb_coll_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct coll *c = ctx->state;
    const double factor = gb_coll_busbw_factor(c->op, c->team.n);
    const double algbw = (double)(c->count * c->es) / op_time_s / 1e9;
    gb_case_figure(ctx, "time", "us", op_time_s * 1e6);
    gb_case_figure(ctx, "algbw", "GB/s", algbw);
    gb_case_figure(ctx, "busbw", "GB/s", algbw * factor);
    gb_case_figure(ctx, "busbw_factor", "", factor);
    gb_case_figure(ctx, "ranks", "", (double)c->team.n);
    gb_case_figure(ctx, "count", "", (double)c->count);
    gb_case_figure(ctx, "bytes", "B", (double)(c->count * c->es));
    gb_case_text(ctx, "path", "%s",
                 c->tr == TR_NCCL ? "library"
                 : c->team.n == 1 ? "d2d"
                 : c->direct      ? "peer"
                                  : "staged");
    /* Each neighbouring pair's path and link (NVLink / PCIe from NVML, else why unknown). */
    gb_multi_topology_figure(ctx, NULL, c->team.n, true,
                             c->tr == TR_NCCL ? "library"
                             : c->direct      ? "peer"
                                              : "staged");
}

void gb_coll_teardown(struct gb_case_ctx *ctx)
{
    struct coll *c = ctx->state;
    gb_multi_team_stop(ctx);
    gb_coll_unbind(ctx, c);
}

void gb_coll_unbind(struct gb_case_ctx *ctx, struct coll *c)
{
    if (c->comm)
        ctx->ops->comm_free(c->comm);
    c->comm = NULL;
    for (size_t i = 0; i < GB_MAX_SET; i++) {
        if (c->recv[i] == c->send[i])
            c->recv[i] = NULL;
        gb_case_free_bufs(ctx, &c->send[i], &c->recv[i], &c->work[i], &c->tmp[i], &c->stage[i][0],
                          &c->stage[i][1], NULL);
        if (c->q2[i])
            ctx->ops->queue_destroy(c->q2[i]);
        c->q2[i] = NULL;
        gb_case_free_kernel(ctx, &c->k[i], &c->prog[i]);
    }
}

/* ---- the engine inside another suite's team ----------------------------------------------------- */

void gb_coll_chunk(uint64_t count, uint64_t grain, size_t n, size_t k, uint64_t *lo, uint64_t *hi)
{
    gb_multi_part(count / grain, n, k, lo, hi);
    *lo *= grain;
    *hi *= grain;
}

int gb_coll_bind(struct gb_case_ctx *ctx, struct coll *c, size_t n, uint64_t extent,
                 uint64_t max_chunk, struct gb_queue *const *queues)
{
    *c = (struct coll){.dtype = GB_F32,
                       .redop = GB_COLL_SUM,
                       .tr = TR_DEVICES,
                       .fault = FAULT_NONE,
                       .inplace = true,
                       .es = sizeof(float),
                       .maxlen = max_chunk ? max_chunk : 1,
                       .extent = extent};
    c->team.n = n;
    c->team.ctx = ctx;
    for (size_t i = 0; i < n; i++)
        c->q[i] = queues[i];
    if (n == 1)
        return 0;
    c->sub = GB_MULTI_STAGE_MAX / c->es < c->maxlen ? GB_MULTI_STAGE_MAX / c->es : c->maxlen;
    /* The ring's pairs: each rank receives from its predecessor. */
    c->direct = true;
    for (size_t i = 0; i < n && c->direct; i++)
        c->direct = gb_multi_peer_direct(ctx, ctx->devs[i], ctx->devs[(i + n - 1) % n]);
    int err = 0;
    for (size_t i = 0; i < n && !err; i++)
        err = rank_setup(ctx, c, i, extent, true);
    return err;
}

int gb_coll_run_in(const struct coll *c, struct gb_team *t, size_t rank, enum gb_coll_op op,
                   struct gb_buf *const *buf, uint64_t base, uint64_t count, uint64_t grain)
{
    const size_t n = c->team.n;
    if (op != GB_COLL_ALLREDUCE && op != GB_COLL_REDUCESCATTER && op != GB_COLL_ALLGATHER)
        return GB_FAIL(GB_EINVAL,
                       "the bound engine runs all-reduce, reduce-scatter and all-gather, "
                       "not %s",
                       gb_coll_op_name(op));
    if (n == 1 || count == 0)
        return 0; /* in place on one rank nothing moves */
    if (grain == 0 || count % grain)
        grain = 1;
    /* This call's geometry in a copy of the bound state, private to the rank: the ranks of a
     * team run their calls at their own pace, so nothing shared is written. */
    struct coll l = *c;
    l.op = op;
    l.count = count;
    l.team.t = t;
    l.maxlen = 0;
    for (size_t k = 0; k < n; k++) {
        uint64_t lo, hi;
        gb_coll_chunk(count, grain, n, k, &lo, &hi);
        l.off[k] = base + lo;
        l.maxlen = hi - lo > l.maxlen ? hi - lo : l.maxlen;
        l.send[k] = l.recv[k] = buf[k];
    }
    l.off[n] = base + count;
    if (op == GB_COLL_REDUCESCATTER && base + count > c->extent)
        return GB_FAIL(GB_EINVAL, "a reduce-scatter up to element %llu past the %llu bound",
                       (unsigned long long)(base + count), (unsigned long long)c->extent);
    if (l.maxlen > c->maxlen)
        return GB_FAIL(GB_EINVAL,
                       "a chunk of %llu elements exceeds the %llu the engine was bound for",
                       (unsigned long long)l.maxlen, (unsigned long long)c->maxlen);
    l.nsteps = op == GB_COLL_ALLREDUCE ? 2 * (n - 1) : n - 1;
    l.rounds = (l.maxlen + l.sub - 1) / l.sub;
    int err = 0;
    for (size_t s = 0; s < l.nsteps && !err; s++)
        err = step(&l, rank, s);
    return err;
}

const struct gb_suite gb_suite_collective = {
    .name = "collective",
    .summary = "every collective across devices (all-reduce ... send/recv): algbw and busbw "
               "(nccl-tests)",
    .axes = collective_axes,
    .naxes = sizeof collective_axes / sizeof collective_axes[0],
    .case_axis = "coll",
    .state_size = sizeof(struct coll),
    .normalize = collective_normalize,
    .axis_applies = collective_axis_applies,
    .setup = collective_setup,
    .run = gb_multi_run,
    .verify = gb_coll_verify,
    .teardown = gb_coll_teardown,
    .flags = GB_SUITE_MULTI_DEVICE,
    .figures = gb_coll_figures,
};
