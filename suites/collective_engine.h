/* The collective engine (suites/collective.c): the state of a collective case and its setup,
 * verify, figures and teardown, shared by the collective suite and the allreduce suite (its
 * all-reduce of floats, through the same code: suites/allreduce.c); and the same engine bound
 * into another suite's team (gb_coll_bind, gb_coll_run_in: the parallel suite's collectives).
 * The multi-device suites' one implementation of the collectives: nothing else may move their
 * data.
 *
 * Who may use it: suites/collective.c, which defines it; suites/allreduce.c, whose state is a
 * struct coll; suites/parallel.c, which binds the engine into its own team; and these suites'
 * tests. Another suite that needs the collectives takes them from here, not from a suite's
 * private state. */
#ifndef GB_SUITES_COLLECTIVE_ENGINE_H
#define GB_SUITES_COLLECTIVE_ENGINE_H

#include "suites/multi_common.h"

/* The test hook's faults (the environment variable GPUBENCH_TEST_COLL, collective.c). */
enum coll_fault { FAULT_NONE, FAULT_DROP, FAULT_WRONG_OP, FAULT_STALE, FAULT_SHIFT };
/* Who moves the data: our peer copies and kernels, the backend's library, or MPI. */
enum coll_transport { TR_DEVICES, TR_NCCL, TR_MPI };

struct coll {
    struct gb_multi_team team; /* first: gb_multi_run() */
    enum gb_coll_op op;
    enum gb_dtype dtype;
    enum gb_coll_redop redop;
    enum coll_transport tr;
    enum coll_fault fault;
    bool inplace;
    bool checking;   /* the checked run (seed 1): the stale fault acts */
    bool direct;     /* every transfer is a direct peer copy */
    size_t root;     /* broadcast, reduce */
    size_t es;       /* bytes per element */
    size_t nsteps;   /* steps of one operation (devices) */
    size_t drop;     /* the rank whose last-step receive the drop and stale faults skip */
    uint64_t count;  /* nccl-tests' count */
    uint64_t scount; /* elements of a rank's send buffer (in place: of the one buffer) */
    uint64_t rcount; /* elements of a rank's receive buffer */
    uint64_t off[GB_MAX_SET + 1];   /* chunk k is [off[k], off[k + 1]) of count */
    uint64_t maxlen;                /* elements of the largest transfer of a step */
    uint64_t period;                /* the inputs' period in elements (collective.c, in_val) */
    uint64_t sub;                   /* staged: elements per piece */
    uint64_t rounds;                /* staged: pieces of the largest transfer */
    uint64_t extent;                /* bound: elements of the buffers a reduce-scatter touches */
    struct gb_queue *q[GB_MAX_SET]; /* each rank's queue (not owned) */
    struct gb_buf *send[GB_MAX_SET], *recv[GB_MAX_SET]; /* recv == send in place */
    struct gb_buf *work[GB_MAX_SET];     /* partial results, or the input set aside */
    struct gb_buf *tmp[GB_MAX_SET];      /* what arrived, before it is reduced */
    struct gb_buf *stage[GB_MAX_SET][2]; /* staged: pinned, the pieces a device sends */
    struct gb_queue *q2[GB_MAX_SET];     /* staged: writes while the first queue reads */
    struct gb_program *prog[GB_MAX_SET];
    struct gb_kernel *k[GB_MAX_SET];
    uint32_t wg[GB_MAX_SET];
    struct gb_comm *comm; /* nccl */
    struct gb_coll call;  /* nccl */
};

/* Setup of a collective case whose state (ctx->state, a struct coll) has op, dtype, redop,
 * inplace, root (< n) and tr set: nccl-tests' size `bytes` over devices 0..n-1 of the set
 * (1 <= n <= ctx->ndevs). Allocates, writes the inputs, builds the reduction kernels and starts
 * the team; the run is gb_multi_run. Returns 0, GB_ESKIP with the reason (a transport this
 * process cannot run, a size below one element per rank for the collectives that divide the
 * buffer (below one element for the others) or beyond the devices' memory, f16 reductions
 * without half arithmetic, in place on one rank), or an error. */
int gb_coll_setup(struct gb_case_ctx *ctx, size_t n, uint64_t bytes);
/* The gb_suite members of such a case: verify (every rank's output, exact; collective.c says
 * how), figures (time, algbw, busbw, busbw_factor, ranks, count, path) and teardown. */
int gb_coll_verify(struct gb_case_ctx *ctx);
void gb_coll_figures(struct gb_case_ctx *ctx, double op_time_s);
void gb_coll_teardown(struct gb_case_ctx *ctx);

/* ---- the engine inside another suite's team (parallel.c) ---- */

/* Chunk k (0 <= k < n) of `count` elements split over n ranks in whole grains of `grain`
 * elements (count a multiple of grain): [*lo, *hi) relative to the range's start, no chunk more
 * than ceil(count / grain / n) grains. The collectives' chunks: after a reduce-scatter rank r
 * holds chunk r, and an all-gather sends each rank's chunk r to every rank (as NCCL). Pure. */
void gb_coll_chunk(uint64_t count, uint64_t grain, size_t n, size_t k, uint64_t *lo, uint64_t *hi);

/* In another suite's setup, for devices 0..n-1 of the set: fills c (its own storage, not
 * ctx->state) for in-place collectives of floats, summed, whose chunks hold at most `max_chunk`
 * floats, on queues[0..n) (each rank's, not owned); a reduce-scatter may touch elements
 * [0, extent) of the buffers (0: none runs). Makes the reduction kernels, the buffers of what
 * arrives, the work buffers, and staged (a ring pair without peer access) the pinned buffers and
 * second queues. One rank needs nothing. Returns 0 or the allocation's or build's error (a skip
 * reason in ctx->reason); gb_coll_unbind frees a partial bind. */
int gb_coll_bind(struct gb_case_ctx *ctx, struct coll *c, size_t n, uint64_t extent,
                 uint64_t max_chunk, struct gb_queue *const *queues);
/* Inside the caller's team job, on every rank 0..n-1 at once, in step (they meet at t's
 * barriers): collective op (GB_COLL_ALLREDUCE, GB_COLL_REDUCESCATTER or GB_COLL_ALLGATHER, the
 * algorithms of the collective suite) in place on elements [base, base + count) of the float
 * buffers buf[0..n), chunked by gb_coll_chunk(count, grain). Returns when this rank's part is
 * complete on its queues: 0, the first backend or barrier error, or GB_EINVAL for another op or a
 * range beyond the bind. Nothing moves on one rank. */
int gb_coll_run_in(const struct coll *c, struct gb_team *t, size_t rank, enum gb_coll_op op,
                   struct gb_buf *const *buf, uint64_t base, uint64_t count, uint64_t grain);
/* Frees what gb_coll_bind (or a collective case's setup) made, the team aside; safe on a partial
 * setup and twice. */
void gb_coll_unbind(struct gb_case_ctx *ctx, struct coll *c);

#endif
