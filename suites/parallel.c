/* parallel — a multi-device suite (multi_common.h holds what those suites share): the three ways
 * training splits a model's work over the devices of one process, one host thread per device,
 * each case checked against the unsplit computation on the host.
 *
 * Case axis `pattern`:
 *   tensor    a transformer MLP block, Y = relu(X W1) W2 with W1 h x 4h and W2 4h x h, split as
 *             Megatron-LM splits it (Shoeybi et al., "Megatron-LM: Training multi-billion
 *             parameter language models using model parallelism", 2019): device d holds a
 *             column block of W1 (4h/n columns) and the matching row block of W2, computes
 *             relu(X W1_d) W2_d, a partial sum of Y, and the partials are summed by an
 *             all-reduce (variant allreduce). Variant sequence (Korthikanti et al., "Reducing
 *             activation recomputation in large transformer models", 2022): each device holds
 *             1/n of the tokens of X; an all-gather before the block gives every device all of
 *             X, a reduce-scatter after it leaves each device its tokens of Y, summed. `layers`
 *             such blocks run one after another, each block's output the next one's input.
 *   pipeline  `layers` layers (a_{k+1} = relu(W_k a_k), W_k h x h) split into S = n stages of
 *             consecutive layers, one per device, the batch into m = `microbatches` micro-batches
 *             of tokens / m tokens that flow through the stages on GPipe's schedule (Huang et
 *             al., "GPipe: efficient training of giant neural networks using pipeline
 *             parallelism", 2019), forward pass only: at clock tick t stage s runs micro-batch
 *             t - s, then the stages meet at a barrier; between ticks each stage's output goes to
 *             the next stage (peer_copy where the pair has peer access, else staged through
 *             pinned host memory).
 *   data      the end of a data-parallel backward pass: every device computes the weight
 *             gradients of `layers` h x h layers from its own batch of `tokens` tokens, last
 *             layer first (dW_l = dY_l X_l^T / n, activations and output gradients given, not
 *             chained through dX), copies each into a flat gradient buffer (as PyTorch DDP
 *             copies gradients into buckets: Li et al., "PyTorch Distributed: experiences on
 *             accelerating data parallel training", VLDB 2020), and as soon as a bucket of
 *             `bucket` bytes of whole layers is complete (an event on the compute queue) its
 *             all-reduce starts on a second queue while the later layers' GEMMs run; the result is
 *             the averaged gradient on every device. Weak scaling: the batch per device is fixed.
 *
 * The GEMMs run through the backend's BLAS where every device has one (GB_CAP_BLAS_F32), else
 * (or with impl own) through kernels/gemm.cl at its default configuration (figure `gemm` says
 * which; a K whose work-items would loop past the driver's limit, max_loop_trips, skips naming
 * it); the collectives are the collective suite's engine bound into this suite's team
 * (collective_engine.h: gb_coll_run_in, behind par_collective()), its ring algorithms. Every
 * matrix is column-major.
 *
 * Figures. The headline is the step's rate, every device's GEMM flops over the step time (the
 * harness's time per operation, `step`); with the runner's speedup and efficiency against the
 * same case on one device, which for tensor and pipeline (fixed total work: strong scaling) is
 * T1 / (n Tn) and for data (fixed work per device: weak scaling) T1 / Tn.
 *   compute, comm  seconds of the step's computation alone (every device at once, the
 *                  collectives left out) and of its collectives alone (tensor, data);
 *   step_parts     seconds of the whole step, measured with them: five rounds of one run of
 *                  each, interleaved, the medians on the team's clock (measure_parts());
 *   serial         compute + comm, the step with nothing overlapped;
 *   overlap        (compute + comm - step_parts) / min(compute, comm): the time saved against
 *                  the serialised step, which is the time both parts ran at once, as a share
 *                  of the most that could be hidden, the shorter part: 0 serialised, 1 the
 *                  shorter part wholly hidden (gb_multi_overlap). Given only within 0.1 of
 *                  [0, 1]; beyond, a text saying why it means nothing (the step longer than
 *                  compute + comm: overhead; shorter than the longer part: noise); absent where
 *                  either part is 0 (one device);
 *   overhead       max(0, step_parts - compute - comm), seconds the step took beyond the
 *                  serialised sum (synchronisation, launches, the queues' hand-offs);
 *   busy           (pipeline) per stage, seconds its layers take for all m micro-batches on its
 *                  device alone, measured with the step (step_parts) in five interleaved rounds
 *                  (measure_stages()), the medians;
 *   bubble         (pipeline) 1 - sum(busy) / (S step_parts): the share of the stages' time
 *                  idle or moving activations; bubble_ideal = (S - 1) / (m + S - 1), GPipe's bubble
 *                  with equal stages and free transfers (Huang et al. 2019);
 *   topology       the devices the activations (pipeline: 0>1>...) or the ring's chunks
 *                  (0>1>...>0) crossed, the path and each pair's link as NVML reads it
 *                  (gb_multi_topology_text: "0>1>0 staged, unknown: no NVML" on PoCL).
 *
 * Verification, against the unsplit computation in double on the host, element by element
 * within tol x mag, mag the same computation on absolute values (|W| |x|, which bounds what
 * rounding can reach) and tol gb__gemm_tolerance's f32 bound summed over the GEMMs an element
 * passes through, plus n x 2^-24 for a sum across devices. Through a chain of layers |W| grows
 * the bound by about sqrt(h) a layer, so a chain is checked one block or layer at a time, each
 * from its input as the devices computed it (itself checked): tensor, every block on every
 * device from device 0's input of that block (tensor_verify()); pipeline, every layer from the
 * previous layer's output, which each stage copies into a record per layer in one more step,
 * untimed, that verify runs (the timed steps keep no record: only the pipeline's work is timed),
 * and the last stage's outputs that the timed steps left (the last two micro-batches) against the
 * last layer from its recorded input (pipeline_verify()); data, the averaged gradients on every
 * device.
 * Test hook: GPUBENCH_TEST_PARALLEL=skip-allreduce leaves out the collectives of tensor and data
 * (partial sums, local gradients); =wrong-stage makes every stage but the last forward its input
 * instead of its output (a stage's work lost); =wrong-stage-timed does so in the timed steps only
 * (verify's recorded step is right: the timed steps' outputs must be checked). Verification must
 * fail.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suites/collective_engine.h"
#include "suites/common.h"
#include "suites/gemm_tolerance.h"
#include "suites/multi_common.h"

#define PAR_MAX_LAYERS 32
#define PAR_HOOK_ENV "GPUBENCH_TEST_PARALLEL"
/* kernels/gemm.cl's default tile of C, 32 x 32. */
#define PAR_TS 32
/* Its default slice of K per step, 16. */
#define PAR_TSK 16

static const char *const patterns[] = {"tensor", "pipeline", "data", NULL};
static const char *const variants[] = {"allreduce", "sequence", "none", NULL};
static const char *const impls[] = {"library", "own", NULL};

static const struct gb_axis_def parallel_axes[] = {
    GB_AXIS_STR("pattern", "[tensor, pipeline, data]", patterns,
                "tensor (Megatron MLP split), pipeline (GPipe stages) or data (bucketed gradient "
                "all-reduce)"),
    GB_MULTI_NDEV_AXIS("devices the block, the layers or the batch is split over"),
    GB_AXIS_STR("variant", "[allreduce, sequence]", variants,
                "tensor: partial sums all-reduced, or sequence-parallel (all-gather before, "
                "reduce-scatter after); others ignore it (none)"),
    GB_AXIS_INT("microbatches", "[1, 4, 8]", 1, 4096,
                "pipeline: micro-batches the tokens are split into (dividing tokens); others "
                "ignore it"),
    GB_AXIS_SIZE("bucket", "[256KiB, 1MiB]", 4, 0,
                 "data: bytes of gradients per all-reduce (whole layers, at least one); others "
                 "ignore it"),
    GB_AXIS_STR("impl", "library", impls,
                "the GEMMs: library (the backend's BLAS; kernels/gemm.cl where a device has none) "
                "or own (kernels/gemm.cl)"),
    GB_AXIS_INT("h", "256", 1, 1 << 16, "hidden size"),
    GB_AXIS_INT("tokens", "64", 1, 1 << 20, "tokens of the batch (data: per device)"),
    GB_AXIS_INT("layers", "4", 1, PAR_MAX_LAYERS,
                "MLP blocks (tensor), layers split over the stages (pipeline), layers whose "
                "gradients are reduced (data)"),
};

enum pattern { P_TENSOR, P_PIPELINE, P_DATA };
enum hook { H_NONE, H_SKIP_ALLREDUCE, H_WRONG_STAGE, H_WRONG_TIMED };
/* What a team run does: the step (the timed operation), its computation alone, its
 * collectives alone. */
enum mode { M_STEP, M_COMPUTE, M_COMM };

struct parallel {
    struct gb_multi_team team; /* first: gb_multi_run() */
    enum pattern pat;
    bool sequence;
    enum hook hook;
    enum mode mode;
    uint64_t h, T, L, m;
    bool blas;
    struct coll coll;                  /* the collective engine, bound (collective_engine.h) */
    struct gb_queue *comm[GB_MAX_SET]; /* data: each device's queue for the all-reduces */
    struct gb_program *gprog[GB_MAX_SET], *rprog[GB_MAX_SET];
    struct gb_kernel *gk[GB_MAX_SET], *rk[GB_MAX_SET]; /* gemm_tiled (without BLAS), par_relu */
    uint32_t rwg[GB_MAX_SET];
    uint32_t rts[GB_MAX_SET]; /* gemm_tiled: the work-group's side (TS / WPT) */
    /* tensor: device d holds hidden units [j0[d], j0[d] + f[d]) of 4h */
    uint64_t j0[GB_MAX_SET], f[GB_MAX_SET];
    struct gb_buf *w1[PAR_MAX_LAYERS][GB_MAX_SET]; /* f x h: W1's columns, transposed */
    struct gb_buf *w2[PAR_MAX_LAYERS][GB_MAX_SET]; /* h x f: W2's rows, transposed */
    struct gb_buf *x[GB_MAX_SET];                  /* h x T: the tokens, a column each */
    struct gb_buf *z[GB_MAX_SET];                  /* f x T: the hidden activations */
    struct gb_buf *y[PAR_MAX_LAYERS][GB_MAX_SET];  /* h x T: block l's output */
    /* pipeline: stage s holds layers [l0[s], l0[s + 1]); micro-batches of tm tokens */
    uint64_t l0[GB_MAX_SET + 1], tm;
    bool direct;
    struct gb_buf *w[PAR_MAX_LAYERS]; /* h x h, on the stage that runs layer k */
    struct gb_buf *in[GB_MAX_SET][2], *out[GB_MAX_SET][2], *tmp[GB_MAX_SET][2]; /* h x tm */
    struct gb_buf *stage[GB_MAX_SET][2]; /* staged: pinned, the output a stage passes on */
    struct gb_buf *px;                   /* h x T: the input, on stage 0 */
    struct gb_buf *acts[PAR_MAX_LAYERS]; /* h x T: layer k's output, on its stage */
    bool record;                         /* the step copies each layer's output into acts */
    /* data: buckets b of layers [blo[b + 1], blo[b]) (last layer first), events at their ends */
    uint64_t nb, blo[PAR_MAX_LAYERS + 1];
    struct gb_buf *dy[PAR_MAX_LAYERS][GB_MAX_SET]; /* h x T */
    struct gb_buf *xt[PAR_MAX_LAYERS][GB_MAX_SET]; /* T x h */
    struct gb_buf *g[PAR_MAX_LAYERS][GB_MAX_SET];  /* h x h: the layer's gradient */
    struct gb_buf *flat[GB_MAX_SET];               /* L h h: the gradients, layer l at l h h */
    struct gb_event *ev[GB_MAX_SET][PAR_MAX_LAYERS];
    /* the host reference (setup) and what was measured beside the step */
    double *ref, *mag, tol;
    uint64_t nref;
    double step_s, compute_s, comm_s, busy_s[GB_MAX_SET];
};

/* A value in [-1, 1) from (stream, i): splitmix64 of both (Steele et al., "Fast splittable
 * pseudorandom number generators", OOPSLA 2014), its top 24 bits, so exact in float. */
static double par_draw(uint64_t stream, uint64_t i)
{
    uint64_t z = stream * 0x9E3779B97F4A7C15ull + i + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 40) / (double)(1u << 23) - 1.0;
}

/* Each axis a pattern ignores takes the value readers show as not applying (a blank cell): the
 * string "none", or 0 for an axis whose least value is 1 or more (gb_axis_def.min); so its cases
 * are not repeated and its rows do not show an axis of another pattern. */
static bool parallel_normalize(struct gb_params *p)
{
    const char *pat = gb_params_str(p, "pattern");
    struct gb_value *va = gb_params_slot(p, "variant"), *mb = gb_params_slot(p, "microbatches"),
                    *bk = gb_params_slot(p, "bucket");
    if (va && strcmp(pat, "tensor") != 0)
        snprintf(va->s, sizeof va->s, "none");
    else if (va && strcmp(va->s, "none") == 0)
        return false; /* tensor runs one of the two */
    if (mb && strcmp(pat, "pipeline") != 0)
        mb->u.i = 0;
    if (bk && strcmp(pat, "data") != 0)
        bk->u.size = 0;
    return true;
}

/* ---- the device work ------------------------------------------------------------------------- */

/* C (m x n, ldc m) = alpha A (m x k, lda m) B (k x n, ldb k) on rank's queue q. */
static int par_gemm(struct parallel *p, size_t rank, struct gb_queue *q, uint64_t m, uint64_t n,
                    uint64_t k, double alpha, struct gb_buf *a, struct gb_buf *b, struct gb_buf *c)
{
    const struct gb_backend_ops *ops = p->team.ctx->ops;
    if (p->blas) {
        struct gb_gemm g = gb_gemm_f32(m, n, k, alpha, a, b, c);
        return ops->gemm(q, &g);
    }
    const uint64_t rts = p->rts[rank];
    struct gb_launch l = {
        .dims = 2,
        .global = {(m + PAR_TS - 1) / PAR_TS * rts, (n + PAR_TS - 1) / PAR_TS * rts, 1},
        .local = {rts, rts, 1},
        .nargs = 11};
    l.args[0] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = m};
    l.args[1] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = n};
    l.args[2] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = k};
    l.args[3] = (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = (float)alpha};
    l.args[4] = (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = 0.0f};
    l.args[5] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = a};
    l.args[6] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = m};
    l.args[7] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = b};
    l.args[8] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = k};
    l.args[9] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = c};
    l.args[10] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = m};
    return ops->launch(q, p->gk[rank], &l);
}

/* x[0..n) = max(x, 0) on q. */
static int par_relu(struct parallel *p, size_t rank, struct gb_queue *q, struct gb_buf *x,
                    uint64_t n)
{
    const uint32_t wg = p->rwg[rank];
    struct gb_launch l = {
        .dims = 1, .global = {(n + wg - 1) / wg * wg, 1, 1}, .local = {wg, 1, 1}, .nargs = 2};
    l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = x};
    l.args[1] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = n};
    return p->team.ctx->ops->launch(q, p->rk[rank], &l);
}

/* The one door to the collectives (so that another implementation can replace the ring):
 * collective `op` over elements [base, base + count) of buf[0..n), in place, in grains of
 * `grain` floats; the test hook skip-allreduce leaves it out. */
static int par_collective(struct parallel *p, struct gb_team *t, size_t rank, enum gb_coll_op op,
                          struct gb_buf *const *buf, uint64_t base, uint64_t count, uint64_t grain)
{
    if (p->hook == H_SKIP_ALLREDUCE)
        return 0;
    return gb_coll_run_in(&p->coll, t, rank, op, buf, base, count, grain);
}

/* One step of the tensor-parallel blocks on `rank` (mode: all of it, its GEMMs alone, its
 * collectives alone). */
static int tensor_step(struct parallel *p, struct gb_team *t, size_t rank)
{
    struct gb_queue *q = p->team.ctx->queues[rank];
    const uint64_t h = p->h, T = p->T, f = p->f[rank];
    int err = 0;
    for (uint64_t l = 0; l < p->L && !err; l++) {
        struct gb_buf **in = l == 0 ? p->x : p->y[l - 1], **out = p->y[l];
        if (p->sequence && p->mode != M_COMPUTE &&
            (err = par_collective(p, t, rank, GB_COLL_ALLGATHER, in, 0, h * T, h)))
            break;
        if (p->mode != M_COMM &&
            ((err = par_gemm(p, rank, q, f, T, h, 1.0, p->w1[l][rank], in[rank], p->z[rank])) ||
             (err = par_relu(p, rank, q, p->z[rank], f * T)) ||
             (err = par_gemm(p, rank, q, h, T, f, 1.0, p->w2[l][rank], p->z[rank], out[rank])) ||
             (err = p->team.ctx->ops->queue_sync(q))))
            break;
        if (p->mode != M_COMPUTE)
            err =
                par_collective(p, t, rank, p->sequence ? GB_COLL_REDUCESCATTER : GB_COLL_ALLREDUCE,
                               out, 0, h * T, h);
    }
    return err;
}

/* Stage s's layers on micro-batch j (buffer parity j % 2: input in[s][par], output
 * out[s][par]); in verify's recorded step (p->record) each layer's output is also copied into
 * its record acts[k] (h x tm floats), which verify checks layer by layer; the timed steps do not
 * copy. */
static int stage_layers(struct parallel *p, size_t s, uint64_t j)
{
    const struct gb_backend_ops *ops = p->team.ctx->ops;
    struct gb_queue *q = p->team.ctx->queues[s];
    const uint64_t h = p->h, n = p->tm, bytes = h * n * sizeof(float);
    const size_t par = j % 2;
    struct gb_buf *src = p->in[s][par];
    int err = 0;
    for (uint64_t k = p->l0[s]; k < p->l0[s + 1] && !err; k++) {
        struct gb_buf *dst = k + 1 == p->l0[s + 1] ? p->out[s][par] : p->tmp[s][k % 2];
        if (!(err = par_gemm(p, s, q, h, n, h, 1.0, p->w[k], src, dst)) &&
            !(err = par_relu(p, s, q, dst, h * n)) && p->record)
            err = ops->copy(q, p->acts[k], j * bytes, dst, 0, bytes, GB_COPY_ASYNC);
        src = dst;
    }
    return err;
}

/* Stage s's part of tick t: micro-batch j = t - s, if any, received, run and passed on. */
static int pipeline_tick(struct parallel *p, size_t s, uint64_t t)
{
    const struct gb_backend_ops *ops = p->team.ctx->ops;
    struct gb_queue *q = p->team.ctx->queues[s];
    const size_t S = p->team.n;
    if (t < s || t - s >= p->m)
        return 0;
    const uint64_t j = t - s, bytes = p->h * p->tm * sizeof(float);
    const size_t par = j % 2;
    int err;
    if (s == 0)
        err = ops->copy(q, p->in[0][par], 0, p->px, j * bytes, bytes, GB_COPY_ASYNC);
    else if (p->direct)
        err = ops->peer_copy(q, p->in[s][par], 0, p->out[s - 1][par], 0, bytes);
    else
        err = ops->copy(q, p->in[s][par], 0, p->stage[s - 1][par], 0, bytes, GB_COPY_ASYNC);
    if (err || (err = stage_layers(p, s, j)))
        return err;
    const bool wrong = p->hook == H_WRONG_STAGE || (p->hook == H_WRONG_TIMED && !p->record);
    struct gb_buf *sent = wrong && s + 1 < S ? p->in[s][par] : p->out[s][par];
    if (s + 1 < S && (!p->direct || sent != p->out[s][par]))
        /* Direct: the next stage pulls from out, so a wrong-stage send overwrites it. */
        err = ops->copy(q, p->direct ? p->out[s][par] : p->stage[s][par], 0, sent, 0, bytes,
                        GB_COPY_ASYNC);
    return err ? err : ops->queue_sync(q);
}

/* One pipelined step on stage s: m + S - 1 ticks, the stages meeting at a barrier after each. */
static int pipeline_step(struct parallel *p, struct gb_team *t, size_t s)
{
    int err = 0;
    for (uint64_t tick = 0; tick + 1 < p->m + p->team.n && !err; tick++) {
        err = pipeline_tick(p, s, tick);
        if (!err && p->team.n > 1)
            err = gb_team_barrier(t);
    }
    return err;
}

/* Stage s's layers on every micro-batch, nothing received or sent: its busy time. */
static int pipeline_busy_job(struct gb_team *t, size_t s, void *arg)
{
    struct parallel *p = arg;
    int err = 0;
    for (uint64_t j = 0; j < p->m && !err; j++)
        err = stage_layers(p, s, j);
    return err ? err : p->team.ctx->ops->queue_sync(p->team.ctx->queues[s]);
}

/* One data-parallel step on `rank`: every layer's gradient GEMM, last layer first, on the
 * compute queue, each bucket ended by an event; each bucket's all-reduce on the second queue
 * once its event has fired, while the compute queue runs on. */
static int data_step(struct parallel *p, struct gb_team *t, size_t rank)
{
    const struct gb_backend_ops *ops = p->team.ctx->ops;
    struct gb_queue *q = p->team.ctx->queues[rank];
    const uint64_t h = p->h, hh = p->h * p->h;
    int err = 0;
    if (p->mode != M_COMM) {
        for (uint64_t b = 0; b < p->nb && !err; b++) {
            for (uint64_t l = p->blo[b]; l-- > p->blo[b + 1] && !err;)
                if (!(err = par_gemm(p, rank, q, h, h, p->T, 1.0 / (double)p->team.n,
                                     p->dy[l][rank], p->xt[l][rank], p->g[l][rank])))
                    err = ops->copy(q, p->flat[rank], l * hh * sizeof(float), p->g[l][rank], 0,
                                    hh * sizeof(float), GB_COPY_ASYNC);
            if (!err)
                err = ops->event_record(q, p->ev[rank][b]);
        }
        if (!err)
            err = ops->queue_flush(q);
    }
    for (uint64_t b = 0; b < p->nb && !err && p->mode != M_COMPUTE; b++) {
        if (p->mode == M_STEP && (err = ops->event_sync(p->ev[rank][b])))
            break;
        err = par_collective(p, t, rank, GB_COLL_ALLREDUCE, p->flat, p->blo[b + 1] * hh,
                             (p->blo[b] - p->blo[b + 1]) * hh, 1);
    }
    if (!err)
        err = ops->queue_sync(q);
    if (!err && p->comm[rank])
        err = ops->queue_sync(p->comm[rank]);
    return err;
}

static int parallel_job(struct gb_team *t, size_t rank, void *arg)
{
    struct parallel *p = arg;
    const uint64_t reps = p->mode == M_STEP ? p->team.reps : 1;
    int err = 0;
    for (uint64_t r = 0; r < reps && !err; r++) {
        /* The neighbours of the last collective of the repetition before may still read this
         * device's buffers. */
        if (r > 0 && p->team.n > 1 && (err = gb_team_barrier(t)))
            break;
        err = p->pat == P_TENSOR     ? tensor_step(p, t, rank)
              : p->pat == P_PIPELINE ? pipeline_step(p, t, rank)
                                     : data_step(p, t, rank);
    }
    return err;
}

/* ---- setup ----------------------------------------------------------------------------------- */

/* A device buffer of n floats on `rank`, holding h[0..n). */
static int upload_floats(struct gb_case_ctx *ctx, size_t rank, struct gb_buf **dst, const float *h,
                         uint64_t n)
{
    int err = gb_multi_alloc(ctx, rank, n * sizeof(float), GB_MEM_DEVICE, dst);
    return err ? err : gb_multi_upload(ctx, rank, *dst, h, n * sizeof(float));
}

/* A device buffer of n floats on `rank` that the step writes, poisoned (NaN). */
static int alloc_out(struct gb_case_ctx *ctx, size_t rank, struct gb_buf **dst, uint64_t n)
{
    int err = gb_multi_alloc(ctx, rank, n * sizeof(float), GB_MEM_DEVICE, dst);
    return err ? err : gb_multi_poison(ctx, rank, *dst, n * sizeof(float), GB_F32);
}

/* W1 (h x 4h) of block l at (i, j), W2 (4h x h) at (j, i), x (h x T) at (i, t); the scales keep
 * every activation of order 1 through the blocks. */
static double t_w1(const struct parallel *p, uint64_t l, uint64_t i, uint64_t j)
{
    return par_draw(10 + 2 * l, i * 4 * p->h + j) / sqrt((double)p->h);
}
static double t_w2(const struct parallel *p, uint64_t l, uint64_t j, uint64_t i)
{
    return par_draw(11 + 2 * l, j * p->h + i) / sqrt(4.0 * (double)p->h);
}
static double t_x(const struct parallel *p, uint64_t i, uint64_t t)
{
    return par_draw(1, t * p->h + i);
}

/* y = relu?(W x) column by column and its magnitude |W| xm, in double: W m x k given by w(r, c),
 * x and xm k x n, y and ym m x n, column-major. */
static void host_layer(uint64_t m, uint64_t k, uint64_t n, const double *wv, const double *x,
                       const double *xm, double *y, double *ym, bool relu)
{
    for (uint64_t c = 0; c < n; c++)
        for (uint64_t r = 0; r < m; r++) {
            double s = 0, sm = 0;
            for (uint64_t l = 0; l < k; l++) {
                s += wv[r + l * m] * x[l + c * k];
                sm += fabs(wv[r + l * m]) * xm[l + c * k];
            }
            y[r + c * m] = relu && s < 0 ? 0 : s;
            ym[r + c * m] = sm;
        }
}

static int tensor_setup(struct gb_case_ctx *ctx, struct parallel *p)
{
    const size_t n = p->team.n;
    const uint64_t h = p->h, T = p->T, H = 4 * h;
    if (H < n)
        return gb_case_skip(ctx, "4h = %llu hidden units cannot be split over %zu devices",
                            (unsigned long long)H, n);
    if (p->sequence && T < n)
        return gb_case_skip(ctx, "%llu tokens cannot be split over %zu devices (sequence)",
                            (unsigned long long)T, n);
    const uint64_t fmax = (H + n - 1) / n;
    float *buf = malloc((fmax * h > h * T ? fmax * h : h * T) * sizeof(float));
    if (!buf)
        return GB_FAIL(GB_ENOMEM, "host buffers of the tensor case");
    int err = 0;
    for (size_t d = 0; d < n && !err; d++) {
        uint64_t hi;
        gb_multi_part(H, n, d, &p->j0[d], &hi);
        p->f[d] = hi - p->j0[d];
        const uint64_t f = p->f[d], j0 = p->j0[d];
        for (uint64_t l = 0; l < p->L && !err; l++) {
            for (uint64_t i = 0; i < h; i++)
                for (uint64_t r = 0; r < f; r++)
                    buf[r + i * f] = (float)t_w1(p, l, i, j0 + r);
            if ((err = upload_floats(ctx, d, &p->w1[l][d], buf, f * h)))
                break;
            for (uint64_t r = 0; r < f; r++)
                for (uint64_t i = 0; i < h; i++)
                    buf[i + r * h] = (float)t_w2(p, l, j0 + r, i);
            if (!(err = upload_floats(ctx, d, &p->w2[l][d], buf, f * h)))
                err = alloc_out(ctx, d, &p->y[l][d], h * T);
        }
        /* Sequence: the device holds only its tokens; the all-gather brings the others. */
        uint64_t lo = 0, hi_t = h * T;
        if (p->sequence)
            gb_coll_chunk(h * T, h, n, d, &lo, &hi_t);
        for (uint64_t t = 0; t < T; t++)
            for (uint64_t i = 0; i < h; i++)
                buf[i + t * h] = t * h >= lo && t * h < hi_t ? (float)t_x(p, i, t) : NAN;
        if (err || (err = upload_floats(ctx, d, &p->x[d], buf, h * T)) ||
            (err = alloc_out(ctx, d, &p->z[d], f * T)))
            break;
    }
    free(buf);
    p->nref = h * T;
    /* A block's output element sums n partials of f products of relu(z), each z a sum of h
     * products: the two GEMMs' bounds and the sum's, against |W2| |W1| |x| (|relu(z)| <= |z|). */
    p->tol = gb__gemm_tolerance(GP_F32, h) + gb__gemm_tolerance(GP_F32, fmax) +
             (double)n * ldexp(1.0, -24);
    ctx->op.flops = (double)p->L * 4.0 * (double)T * (double)h * (double)H;
    return err;
}

/* Layer k of the pipeline (h x h) at (i, j). */
static double p_w(const struct parallel *p, uint64_t k, uint64_t i, uint64_t j)
{
    return par_draw(100 + k, j * p->h + i) / sqrt((double)p->h) * 1.5;
}

static int pipeline_setup(struct gb_case_ctx *ctx, struct parallel *p)
{
    const size_t S = p->team.n;
    const uint64_t h = p->h, T = p->T;
    p->m = (uint64_t)gb_params_int(ctx->params, "microbatches");
    if (p->L < S)
        return gb_case_skip(ctx, "%llu layers cannot fill %zu stages", (unsigned long long)p->L, S);
    if (p->m > T || T % p->m)
        return gb_case_skip(ctx, "%llu tokens do not split into %llu micro-batches",
                            (unsigned long long)T, (unsigned long long)p->m);
    p->tm = T / p->m;
    p->direct = true;
    for (size_t s = 0; s + 1 < S && p->direct; s++)
        p->direct = gb_multi_peer_direct(ctx, ctx->devs[s + 1], ctx->devs[s]);
    const uint64_t ab = h * p->tm;
    float *buf = malloc((h * T > h * h ? h * T : h * h) * sizeof(float));
    if (!buf)
        return GB_FAIL(GB_ENOMEM, "host buffers of the pipeline case");
    int err = 0;
    for (size_t s = 0; s < S && !err; s++) {
        uint64_t hi;
        gb_multi_part(p->L, S, s, &p->l0[s], &hi);
        p->l0[s + 1] = hi;
        for (uint64_t k = p->l0[s]; k < hi && !err; k++) {
            for (uint64_t j = 0; j < h; j++)
                for (uint64_t i = 0; i < h; i++)
                    buf[i + j * h] = (float)p_w(p, k, i, j);
            if (!(err = upload_floats(ctx, s, &p->w[k], buf, h * h)))
                err = alloc_out(ctx, s, &p->acts[k], h * T);
        }
        for (int b = 0; b < 2 && !err; b++) {
            if ((err = alloc_out(ctx, s, &p->in[s][b], ab)) ||
                (err = alloc_out(ctx, s, &p->out[s][b], ab)) ||
                (err = alloc_out(ctx, s, &p->tmp[s][b], ab)))
                break;
            if (!p->direct && s + 1 < S)
                err =
                    gb_multi_alloc(ctx, s, ab * sizeof(float), GB_MEM_HOST_PINNED, &p->stage[s][b]);
        }
    }
    for (uint64_t i = 0; i < h * T; i++)
        buf[i] = (float)t_x(p, i % h, i / h);
    if (!err)
        err = upload_floats(ctx, 0, &p->px, buf, h * T);
    free(buf);
    p->nref = h * T;
    p->tol = gb__gemm_tolerance(GP_F32, h); /* one layer from its recorded input */
    ctx->op.flops = (double)p->L * 2.0 * (double)h * (double)h * (double)T;
    return err;
}

/* Layer l's output gradient (h x T) and input (h x T) on device d, at (i, t). */
static double d_dy(const struct parallel *p, size_t d, uint64_t l, uint64_t i, uint64_t t)
{
    return par_draw(1000 + d * PAR_MAX_LAYERS + l, t * p->h + i);
}
static double d_x(const struct parallel *p, size_t d, uint64_t l, uint64_t i, uint64_t t)
{
    return par_draw(5000 + d * PAR_MAX_LAYERS + l, t * p->h + i);
}

static int data_setup(struct gb_case_ctx *ctx, struct parallel *p)
{
    const size_t n = p->team.n;
    const uint64_t h = p->h, T = p->T, hh = h * h;
    const uint64_t bucket = gb_params_size(ctx->params, "bucket");
    /* Buckets of whole layers from the last: a layer joins the bucket while it fits, and a
     * bucket holds at least one (as DDP's bucket_cap_mb). */
    p->blo[0] = p->L;
    p->nb = 0;
    while (p->blo[p->nb] > 0) {
        uint64_t lo = p->blo[p->nb] - 1;
        while (lo > 0 && (p->blo[p->nb] - lo + 1) * hh * sizeof(float) <= bucket)
            lo--;
        p->blo[++p->nb] = lo;
    }
    const uint64_t nmax = hh > h * T ? hh : h * T;
    float *buf = malloc(nmax * sizeof(float));
    p->ref = calloc(p->L * hh, sizeof(double));
    p->mag = calloc(p->L * hh, sizeof(double));
    int err = 0;
    if (!buf || !p->ref || !p->mag) {
        free(buf);
        return GB_FAIL(GB_ENOMEM, "host buffers of the data case");
    }
    p->nref = p->L * hh;
    for (size_t d = 0; d < n && !err; d++) {
        if (n > 1 && (err = ctx->ops->queue_create(ctx->devs[d], &p->comm[d])))
            break;
        for (uint64_t l = 0; l < p->L && !err; l++) {
            for (uint64_t t = 0; t < T; t++)
                for (uint64_t i = 0; i < h; i++)
                    buf[i + t * h] = (float)d_dy(p, d, l, i, t);
            if ((err = upload_floats(ctx, d, &p->dy[l][d], buf, h * T)))
                break;
            for (uint64_t t = 0; t < T; t++)
                for (uint64_t i = 0; i < h; i++)
                    buf[t + i * T] = (float)d_x(p, d, l, i, t); /* X^T: T x h */
            if ((err = upload_floats(ctx, d, &p->xt[l][d], buf, h * T)) ||
                (err = alloc_out(ctx, d, &p->g[l][d], hh)))
                break;
        }
        for (uint64_t b = 0; b < p->nb && !err; b++)
            err = ctx->ops->event_create(ctx->devs[d], &p->ev[d][b]);
        if (!err)
            err = alloc_out(ctx, d, &p->flat[d], p->L * hh);
    }
    free(buf);
    if (err)
        return err;
    /* The averaged gradients on the host: (1/n) sum_d dY_d X_d^T. */
    double *a = malloc(h * T * sizeof(double)), *b = malloc(h * T * sizeof(double));
    if (!a || !b) {
        free(a);
        free(b);
        return GB_FAIL(GB_ENOMEM, "host buffers of the data case");
    }
    for (size_t d = 0; d < n; d++)
        for (uint64_t l = 0; l < p->L; l++) {
            for (uint64_t t = 0; t < T; t++)
                for (uint64_t i = 0; i < h; i++) {
                    a[i + t * h] = d_dy(p, d, l, i, t);
                    b[i + t * h] = d_x(p, d, l, i, t);
                }
            for (uint64_t j = 0; j < h; j++)
                for (uint64_t i = 0; i < h; i++) {
                    double sum = 0, sm = 0;
                    for (uint64_t t = 0; t < T; t++) {
                        sum += a[i + t * h] * b[j + t * h];
                        sm += fabs(a[i + t * h] * b[j + t * h]);
                    }
                    p->ref[l * hh + i + j * h] += sum / (double)n;
                    p->mag[l * hh + i + j * h] += sm / (double)n;
                }
        }
    free(a);
    free(b);
    p->tol = gb__gemm_tolerance(GP_F32, T) + (double)n * ldexp(1.0, -24);
    ctx->op.flops = (double)n * (double)p->L * 2.0 * (double)hh * (double)T;
    return 0;
}

/* The kernels on every device: par_relu, and gemm_tiled where there is no BLAS, at
 * kernels/gemm.cl's default configuration, or with twice the work per work-item (WPT 8: 4 x 4
 * work-groups) where the kernel's own maximum is below 8 x 8, as the gemm suite fits it. */
static int build_kernels(struct gb_case_ctx *ctx, struct parallel *p)
{
    int err = 0;
    for (size_t d = 0; d < p->team.n && !err; d++) {
        for (uint32_t wpt = 4; !p->blas && wpt <= 8; wpt *= 2) {
            char def[16];
            snprintf(def, sizeof def, "WPT=%u", wpt);
            const char *const defs[] = {"T=float", def};
            uint32_t kmax = 0;
            if ((err = gb_multi_build(ctx, d, "gemm.cl", "gemm_tiled", defs, 2, &p->gprog[d],
                                      &p->gk[d])) ||
                (err = ctx->ops->kernel_max_wg(p->gk[d], &kmax)))
                return err;
            p->rts[d] = PAR_TS / wpt;
            if (kmax >= p->rts[d] * p->rts[d])
                break;
            gb_case_free_kernel(ctx, &p->gk[d], &p->gprog[d]);
            if (wpt == 8)
                return gb_case_skip(ctx,
                                    "kernels/gemm.cl's smallest work-group here, 4 x 4, exceeds "
                                    "the kernel's maximum %u on device %zu",
                                    kmax, d);
        }
        uint32_t kmax = 0;
        if (!(err = gb_multi_build(ctx, d, "parallel.cl", "par_relu", NULL, 0, &p->rprog[d],
                                   &p->rk[d])) &&
            !(err = ctx->ops->kernel_max_wg(p->rk[d], &kmax)))
            p->rwg[d] = kmax >= 256 ? 256 : kmax ? kmax : 1;
    }
    if (err || p->blas)
        return err;
    /* The own GEMM loops over K in each work-item, which no launch shape shortens: the longest
     * K of the pattern (tensor: h, or a rank's 4h/n columns of W1 for W2; pipeline: h; data: the
     * tokens of dW = dY X^T), against the least loop limit of the team (the gemm suite's skip). */
    const uint64_t h = p->h, f = (4 * h + p->team.n - 1) / p->team.n;
    const uint64_t k = p->pat == P_TENSOR ? (h > f ? h : f) : p->pat == P_PIPELINE ? h : p->T;
    uint64_t trips = 0;
    for (size_t d = 0; d < p->team.n; d++) {
        const uint64_t t = gb_gemm_tiled_trips(PAR_TS, PAR_TS / p->rts[d], PAR_TSK, k);
        trips = t > trips ? t : trips;
    }
    char what[48];
    snprintf(what, sizeof what, "own GEMM at K = %llu", (unsigned long long)k);
    return gb_case_loop_fits(ctx, trips, what, NULL);
}

/* The step and its parts, each alone: PAR_ROUNDS rounds of one team run in each mode (step,
 * computation, collectives where there are any), interleaved so that a drift of the machine's
 * speed reaches all three alike, after one unmeasured run of each; the median of each on the
 * team's clock (gb_team_span). */
#define PAR_ROUNDS 5
static int measure_parts(struct parallel *p)
{
    double v[3][PAR_ROUNDS];
    const int modes = p->team.n > 1 ? 3 : 2;
    int err = 0;
    for (int k = -1; k < PAR_ROUNDS && !err; k++)
        for (int m = 0; m < modes && !err; m++) {
            p->mode = (enum mode)m;
            if (!(err = gb_team_run(p->team.t, p->team.n, parallel_job, p)) && k >= 0)
                v[m][k] = gb_team_span(p->team.t);
        }
    p->mode = M_STEP;
    if (err)
        return err;
    p->step_s = gb_multi_median(v[M_STEP], PAR_ROUNDS);
    p->compute_s = gb_multi_median(v[M_COMPUTE], PAR_ROUNDS);
    p->comm_s = modes == 3 ? gb_multi_median(v[M_COMM], PAR_ROUNDS) : 0.0;
    return 0;
}

/* The pipelined step and each stage's busy time alone (its layers on every micro-batch, its
 * device by itself: gb_team_run_one), PAR_ROUNDS rounds of one of each, interleaved, after one
 * unmeasured round; the medians on the team's clock. */
static int measure_stages(struct parallel *p)
{
    double v[PAR_ROUNDS], busy[GB_MAX_SET][PAR_ROUNDS];
    int err = 0;
    p->mode = M_STEP;
    for (int k = -1; k < PAR_ROUNDS && !err; k++) {
        if (!(err = gb_team_run(p->team.t, p->team.n, parallel_job, p)) && k >= 0)
            v[k] = gb_team_span(p->team.t);
        for (size_t s = 0; s < p->team.n && !err; s++) {
            double sec = 0;
            if (!(err = gb_team_run_one(p->team.t, s, pipeline_busy_job, p, &sec)) && k >= 0)
                busy[s][k] = sec;
        }
    }
    if (err)
        return err;
    p->step_s = gb_multi_median(v, PAR_ROUNDS);
    for (size_t s = 0; s < p->team.n; s++)
        p->busy_s[s] = gb_multi_median(busy[s], PAR_ROUNDS);
    return 0;
}

/* What these runs wrote must not pass for the timed runs' output: the outputs verify reads,
 * poisoned again (the pipeline's: every layer's record, and the last stage's two micro-batch
 * outputs that verify reads as the timed steps left them). */
static int poison_outputs(struct gb_case_ctx *ctx, struct parallel *p)
{
    const uint64_t nx = p->h * p->T, b = sizeof(float);
    int err = 0;
    for (size_t d = 0; d < p->team.n && !err; d++) {
        for (uint64_t l = 0; p->pat == P_TENSOR && l < p->L && !err; l++)
            err = gb_multi_poison(ctx, d, p->y[l][d], nx * b, GB_F32);
        if (!err && p->pat == P_DATA)
            err = gb_multi_poison(ctx, d, p->flat[d], p->L * p->h * p->h * b, GB_F32);
    }
    for (uint64_t k = 0; p->pat == P_PIPELINE && k < p->L && !err; k++) {
        size_t s = 0;
        while (k >= p->l0[s + 1])
            s++;
        err = gb_multi_poison(ctx, s, p->acts[k], nx * b, GB_F32);
    }
    for (size_t par = 0; p->pat == P_PIPELINE && par < 2 && !err; par++)
        err = gb_multi_poison(ctx, p->team.n - 1, p->out[p->team.n - 1][par], p->h * p->tm * b,
                              GB_F32);
    return err;
}

/* Whether the case fits (the buffers of tensor_setup, pipeline_setup and data_setup, and the
 * checks' host references, from the parameters alone, bounded above): 0, or a recorded skip
 * naming the sizes before anything of them is allocated. */
static int parallel_fits(struct gb_case_ctx *ctx, const struct parallel *p)
{
    const size_t n = p->team.n;
    const double h = (double)p->h, T = (double)p->T, L = (double)p->L, f = ceil(4 * h / n);
    const double ls = ceil(L / n); /* pipeline: the layers of the fullest stage */
    double dev, host, largest;     /* bytes: per rank, on the host, one buffer */
    if (p->pat == P_TENSOR) {
        dev = 4 * (L * (2 * f * h + h * T) + h * T + f * T);
        host = 4 * fmax(f * h, h * T) + 8 * (2 * h * T + 8 * h * T + 4 * h * h) + 8 * h * T;
        largest = 4 * fmax(f * h, h * T);
    } else if (p->pat == P_PIPELINE) {
        dev = 4 * (ls * (h * h + h * T) + 8 * h * T + h * T);
        host = 4 * fmax(h * T, h * h) + 8 * (2 * h * T + h * h) + 4 * h * T + 8 * h * T;
        largest = 4 * fmax(h * h, h * T);
    } else {
        dev = 4 * (L * (2 * h * T + h * h) + L * h * h);
        host = 4 * fmax(h * h, h * T) + 20 * L * h * h + 16 * h * T;
        largest = 4 * L * h * h;
    }
    int err = 0;
    for (size_t i = 0; i < n && !err; i++)
        err = gb_multi_fits(ctx, i, dev < 0x1p63 ? (uint64_t)dev : UINT64_MAX,
                            largest < 0x1p63 ? (uint64_t)largest : UINT64_MAX);
    return err ? err : gb_multi_fits_host(ctx, n, host, dev);
}

static int parallel_setup(struct gb_case_ctx *ctx)
{
    struct parallel *p = ctx->state;
    int err = gb_multi_ndev(ctx, &p->team.n);
    if (err)
        return err;
    const char *pat = gb_params_str(ctx->params, "pattern");
    p->pat = strcmp(pat, "tensor") == 0     ? P_TENSOR
             : strcmp(pat, "pipeline") == 0 ? P_PIPELINE
                                            : P_DATA;
    p->sequence =
        p->pat == P_TENSOR && strcmp(gb_params_str(ctx->params, "variant"), "sequence") == 0;
    p->h = (uint64_t)gb_params_int(ctx->params, "h");
    p->T = (uint64_t)gb_params_int(ctx->params, "tokens");
    p->L = (uint64_t)gb_params_int(ctx->params, "layers");
    const char *hook = getenv(PAR_HOOK_ENV);
    p->hook = !hook                                    ? H_NONE
              : strcmp(hook, "skip-allreduce") == 0    ? H_SKIP_ALLREDUCE
              : strcmp(hook, "wrong-stage") == 0       ? H_WRONG_STAGE
              : strcmp(hook, "wrong-stage-timed") == 0 ? H_WRONG_TIMED
                                                       : H_NONE;
    p->blas = strcmp(gb_params_str(ctx->params, "impl"), "library") == 0 && ctx->ops->gemm &&
              gb_multi_all_have(ctx, p->team.n, GB_CAP_BLAS_F32);
    if ((err = parallel_fits(ctx, p)) || (err = build_kernels(ctx, p)))
        return err;
    err = p->pat == P_TENSOR     ? tensor_setup(ctx, p)
          : p->pat == P_PIPELINE ? pipeline_setup(ctx, p)
                                 : data_setup(ctx, p);
    if (err)
        return err;
    if (p->pat != P_PIPELINE) {
        /* The largest chunk of any collective: tensor's h x T in whole tokens, data's largest
         * bucket. */
        uint64_t maxc = (p->T + p->team.n - 1) / p->team.n * p->h;
        for (uint64_t b = 0; p->pat == P_DATA && b < p->nb; b++) {
            const uint64_t c = (p->blo[b] - p->blo[b + 1]) * p->h * p->h;
            maxc = (c + p->team.n - 1) / p->team.n > maxc ? (c + p->team.n - 1) / p->team.n : maxc;
        }
        /* A reduce-scatter (sequence) touches the h x T output. */
        if ((err = gb_coll_bind(ctx, &p->coll, p->team.n, p->sequence ? p->h * p->T : 0, maxc,
                                p->pat == P_DATA && p->team.n > 1 ? p->comm : ctx->queues)))
            return err;
    }
    if ((err = gb_multi_team_start(ctx, parallel_job)))
        return err;
    /* The parts of the step, each alone, after a step (which leaves the inputs gathered). */
    p->mode = M_STEP;
    p->team.reps = 1;
    if ((err = gb_team_run(p->team.t, p->team.n, parallel_job, p)))
        return err;
    err = p->pat == P_PIPELINE ? measure_stages(p) : measure_parts(p);
    return err ? err : poison_outputs(ctx, p);
}

/* ---- verify, figures, teardown --------------------------------------------------------------- */

/* Elements [lo, hi) of got against the reference. */
static int check_range(struct gb_case_ctx *ctx, struct parallel *p, const float *got, size_t dev,
                       uint64_t lo, uint64_t hi)
{
    for (uint64_t i = lo; i < hi; i++) {
        const double e = fabs((double)got[i] - p->ref[i]), bound = p->tol * p->mag[i];
        const double rel = p->mag[i] > 0 ? e / p->mag[i] : e > 0 ? INFINITY : 0;
        if (!(rel <= ctx->max_error))
            ctx->max_error = isnan(rel) ? INFINITY : rel;
        if (!(e <= bound))
            return gb_case_mismatch(ctx,
                                    "device %zu: element %llu is %.9g, the unsplit computation "
                                    "gives %.9g (error %.3g, bound %.3g = %.3g x %.3g)",
                                    dev, (unsigned long long)i, got[i], p->ref[i], e, bound, p->tol,
                                    p->mag[i]);
    }
    return 0;
}

/* Tensor: every block l, on every device, from device 0's input of that block (X for the
 * first): device 0's output against the unsplit block on the host, the other devices' equal to
 * it bit for bit (collectives copy) — except the last block of a sequence-parallel case, where
 * each device holds only its tokens, each checked against the host. So every device's every
 * block is checked from an input itself checked. */
static int tensor_verify(struct gb_case_ctx *ctx, struct parallel *p)
{
    const size_t n = p->team.n;
    const uint64_t h = p->h, T = p->T, H = 4 * h, nx = h * T;
    double *in = malloc(nx * sizeof(double)), *inm = malloc(nx * sizeof(double)),
           *zv = malloc(H * T * sizeof(double)), *zm = malloc(H * T * sizeof(double)),
           *wv = malloc(H * h * sizeof(double));
    float *got = malloc(nx * sizeof(float)), *g0 = malloc(nx * sizeof(float));
    int err = 0;
    if (!in || !inm || !zv || !zm || !wv || !got || !g0) {
        err = GB_FAIL(GB_ENOMEM, "host buffers of the tensor check");
        goto out;
    }
    for (uint64_t i = 0; i < nx; i++)
        in[i] = t_x(p, i % h, i / h);
    for (size_t d = 0; d < n && p->sequence && !err; d++) {
        /* The first all-gather: every device holds all of X. */
        if ((err = gb_multi_download(ctx, d, got, p->x[d], nx * sizeof(float))))
            break;
        for (uint64_t i = 0; i < nx && !err; i++)
            if (got[i] != (float)in[i])
                err = gb_case_mismatch(ctx,
                                       "device %zu: gathered input element %llu is %.9g, "
                                       "expected %.9g (exact)",
                                       d, (unsigned long long)i, got[i], (float)in[i]);
    }
    for (uint64_t l = 0; l < p->L && !err; l++) {
        if (l > 0)
            for (uint64_t i = 0; i < nx; i++)
                in[i] = g0[i];
        for (uint64_t i = 0; i < nx; i++)
            inm[i] = fabs(in[i]);
        for (uint64_t j = 0; j < H; j++)
            for (uint64_t i = 0; i < h; i++)
                wv[j + i * H] = t_w1(p, l, i, j); /* W1^T: H x h */
        host_layer(H, h, T, wv, in, inm, zv, zm, true);
        for (uint64_t i = 0; i < h; i++)
            for (uint64_t j = 0; j < H; j++)
                wv[i + j * h] = t_w2(p, l, j, i); /* W2^T: h x H */
        host_layer(h, H, T, wv, zv, zm, p->ref, p->mag, false);
        const bool own = p->sequence && l + 1 == p->L;
        for (size_t d = 0; d < n && !err; d++) {
            if ((err = gb_multi_download(ctx, d, got, p->y[l][d], nx * sizeof(float))))
                break;
            uint64_t lo = 0, hi = nx;
            if (own)
                gb_coll_chunk(nx, h, n, d, &lo, &hi);
            if (d == 0 || own) {
                err = check_range(ctx, p, got, d, lo, hi);
                if (d == 0)
                    memcpy(g0, got, nx * sizeof(float));
                continue;
            }
            for (uint64_t i = 0; i < nx && !err; i++)
                if (memcmp(&got[i], &g0[i], sizeof(float)) != 0)
                    err = gb_case_mismatch(ctx,
                                           "block %llu: device %zu holds %.9g at element %llu, "
                                           "device 0 %.9g (a collective's copies must agree)",
                                           (unsigned long long)l, d, got[i], (unsigned long long)i,
                                           g0[i]);
        }
    }
out:
    free(in);
    free(inm);
    free(zv);
    free(zm);
    free(wv);
    free(got);
    free(g0);
    return err;
}

/* Pipeline: first the last stage's outputs of the last (up to two) micro-batches, as the timed
 * steps left them, read back; then one more step, untimed, which records every layer's output
 * (all micro-batches, p->record); every recorded output against the layer on the host from the
 * recorded output of the layer before (X for the first), wherever the stages ran them; and the
 * timed steps' outputs against the last layer from its recorded input. */
static int pipeline_verify(struct gb_case_ctx *ctx, struct parallel *p)
{
    const size_t S = p->team.n;
    const uint64_t h = p->h, nx = h * p->T, ab = h * p->tm, m = p->m, j0 = m >= 2 ? m - 2 : 0;
    double *in = malloc(nx * sizeof(double)), *inm = malloc(nx * sizeof(double)),
           *wv = malloc(h * h * sizeof(double));
    float *got = malloc(nx * sizeof(float)), *timed = malloc(nx * sizeof(float));
    int err = 0;
    if (!in || !inm || !wv || !got || !timed) {
        err = GB_FAIL(GB_ENOMEM, "host buffers of the pipeline check");
        goto out;
    }
    /* Micro-batch j of the last step is in out[S - 1][j % 2], at its columns of the output. */
    for (uint64_t j = j0; j < m && !err; j++)
        err =
            gb_multi_download(ctx, S - 1, timed + j * ab, p->out[S - 1][j % 2], ab * sizeof(float));
    if (!err) {
        p->mode = M_STEP;
        p->team.reps = 1;
        p->record = true;
        err = gb_team_run(p->team.t, S, parallel_job, p);
        p->record = false;
    }
    for (uint64_t i = 0; i < nx; i++)
        in[i] = t_x(p, i % h, i / h);
    size_t s = 0;
    for (uint64_t k = 0; k < p->L && !err; k++) {
        while (k >= p->l0[s + 1])
            s++;
        for (uint64_t i = 0; i < nx; i++)
            inm[i] = fabs(in[i]);
        for (uint64_t j = 0; j < h; j++)
            for (uint64_t i = 0; i < h; i++)
                wv[i + j * h] = p_w(p, k, i, j);
        host_layer(h, h, p->T, wv, in, inm, p->ref, p->mag, true);
        if ((err = gb_multi_download(ctx, s, got, p->acts[k], nx * sizeof(float))) ||
            (err = check_range(ctx, p, got, s, 0, nx)))
            break;
        if (k + 1 == p->L)
            err = check_range(ctx, p, timed, s, j0 * ab, m * ab);
        for (uint64_t i = 0; i < nx; i++)
            in[i] = got[i];
    }
out:
    free(in);
    free(inm);
    free(wv);
    free(got);
    free(timed);
    return err;
}

static int parallel_verify(struct gb_case_ctx *ctx)
{
    struct parallel *p = ctx->state;
    ctx->max_error = 0;
    if (p->pat != P_DATA) {
        /* The reference of one block or layer at a time. */
        free(p->ref);
        free(p->mag);
        p->ref = malloc(p->nref * sizeof(double));
        p->mag = malloc(p->nref * sizeof(double));
        if (!p->ref || !p->mag)
            return GB_FAIL(GB_ENOMEM, "host reference of %llu doubles",
                           (unsigned long long)p->nref);
        return p->pat == P_TENSOR ? tensor_verify(ctx, p) : pipeline_verify(ctx, p);
    }
    float *got = malloc(p->nref * sizeof(float));
    if (!got)
        return GB_FAIL(GB_ENOMEM, "read-back of %llu floats", (unsigned long long)p->nref);
    int err = 0;
    for (size_t d = 0; d < p->team.n && !err; d++)
        if (!(err = gb_multi_download(ctx, d, got, p->flat[d], p->nref * sizeof(float))))
            err = check_range(ctx, p, got, d, 0, p->nref);
    free(got);
    return err;
}

static void parallel_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct parallel *p = ctx->state;
    const size_t n = p->team.n;
    gb_case_figure(ctx, "step", "s", op_time_s);
    gb_case_text(ctx, "gemm", "%s", p->blas ? "library" : "own");
    if (p->pat == P_PIPELINE) {
        double sum = 0;
        for (size_t s = 0; s < n; s++)
            sum += p->busy_s[s];
        gb_case_figure_devices(ctx, "busy", "s", p->busy_s, n);
        gb_case_figure(ctx, "step_parts", "s", p->step_s);
        gb_case_figure_bounded(ctx, "bubble", "", 1.0 - sum / ((double)n * p->step_s), 1.0);
        gb_case_figure(ctx, "bubble_ideal", "", (double)(n - 1) / (double)(p->m + (uint64_t)n - 1));
        gb_case_text(ctx, "path", "%s", n == 1 ? "none" : p->direct ? "peer" : "staged");
        gb_multi_topology_figure(ctx, NULL, n, false, p->direct ? "peer" : "staged");
        return;
    }
    gb_case_figure(ctx, "compute", "s", p->compute_s);
    gb_case_figure(ctx, "comm", "s", p->comm_s);
    gb_case_figure(ctx, "serial", "s", p->compute_s + p->comm_s);
    gb_case_figure(ctx, "step_parts", "s", p->step_s);
    double overlap, overhead;
    char why[160];
    if (gb_multi_overlap(p->compute_s, p->comm_s, p->step_s, &overlap, &overhead, why, sizeof why))
        gb_case_figure(ctx, "overlap", "", overlap);
    else if (why[0])
        gb_case_text(ctx, "overlap", "%s", why);
    gb_case_figure(ctx, "overhead", "s", overhead);
    if (p->pat == P_DATA)
        gb_case_figure(ctx, "buckets", "", (double)p->nb);
    gb_case_text(ctx, "path", "%s", n == 1 ? "none" : p->coll.direct ? "peer" : "staged");
    gb_multi_topology_figure(ctx, NULL, n, true, p->coll.direct ? "peer" : "staged");
}

static void parallel_teardown(struct gb_case_ctx *ctx)
{
    struct parallel *p = ctx->state;
    gb_multi_team_stop(ctx);
    gb_coll_unbind(ctx, &p->coll);
    for (size_t d = 0; d < GB_MAX_SET; d++) {
        for (size_t l = 0; l < PAR_MAX_LAYERS; l++) {
            gb_case_free_bufs(ctx, &p->w1[l][d], &p->w2[l][d], &p->y[l][d], &p->dy[l][d],
                              &p->xt[l][d], &p->g[l][d], NULL);
            if (p->ev[d][l])
                ctx->ops->event_free(p->ev[d][l]);
            p->ev[d][l] = NULL;
        }
        gb_case_free_bufs(ctx, &p->x[d], &p->z[d], &p->flat[d], &p->in[d][0], &p->in[d][1],
                          &p->out[d][0], &p->out[d][1], &p->tmp[d][0], &p->tmp[d][1],
                          &p->stage[d][0], &p->stage[d][1], NULL);
        if (p->comm[d])
            ctx->ops->queue_destroy(p->comm[d]);
        p->comm[d] = NULL;
        gb_case_free_kernel(ctx, &p->gk[d], &p->gprog[d]);
        gb_case_free_kernel(ctx, &p->rk[d], &p->rprog[d]);
    }
    for (size_t l = 0; l < PAR_MAX_LAYERS; l++)
        gb_case_free_bufs(ctx, &p->w[l], &p->acts[l], NULL);
    gb_case_free_buf(ctx, &p->px);
    free(p->ref);
    free(p->mag);
    p->ref = p->mag = NULL;
}

static double parallel_op_flops(const struct gb_params *p)
{
    const double h = (double)gb_params_int(p, "h"), T = (double)gb_params_int(p, "tokens"),
                 L = (double)gb_params_int(p, "layers");
    const char *pat = gb_params_str(p, "pattern");
    return strcmp(pat, "tensor") == 0     ? L * 16.0 * T * h * h
           : strcmp(pat, "pipeline") == 0 ? L * 2.0 * T * h * h
                                          : (double)gb_params_int(p, "ndev") * L * 2.0 * T * h * h;
}

const struct gb_suite gb_suite_parallel = {
    .name = "parallel",
    .summary = "model- and data-parallel training steps across devices: tensor (Megatron MLP), "
               "pipeline (GPipe bubble), data (bucketed gradient all-reduce overlapped)",
    .axes = parallel_axes,
    .naxes = sizeof parallel_axes / sizeof parallel_axes[0],
    .case_axis = "pattern",
    .state_size = sizeof(struct parallel),
    .normalize = parallel_normalize,
    .setup = parallel_setup,
    .run = gb_multi_run,
    .verify = parallel_verify,
    .teardown = parallel_teardown,
    .flags = GB_SUITE_MULTI_DEVICE | GB_SUITE_SCALING,
    .figures = parallel_figures,
    .op_flops = parallel_op_flops,
};
