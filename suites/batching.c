/* batching — how much batching buys: transfers, launches and GEMMs, one at a time or together.
 *
 * copies (bytes = count x size, host-timed: what the application waits for):
 *   one    one blocking copy of count x size bytes
 *   each   count blocking copies of size bytes, one call each (consecutive regions of one
 *          allocation, so no allocator is measured)
 *   async  the same count copies enqueued non-blocking, one queue_sync at the end
 * GB/s is count x size / time; the figure per_copy_us is the time of one copy (time / count,
 * or the whole time for `one`). After the run (derive), the largest batch of every curve of
 * one mode, count, direction and memory over size (at least 3 sizes) gets the figures `knee`:
 * the smallest batch (count x size bytes) from which on the bandwidth stays at or above 90% of
 * the asymptotic bandwidth (gb_curve_knee), `asymptote` (GB/s), `plateau`, and the per-copy
 * overhead and bandwidth of a latency-bandwidth fit (Hockney; gb_curve_fit_latency):
 * `overhead_us`, `fit_gbs`.
 *
 * launches (device-timed, like the launch suite's throughput case; kernels/batching.cl):
 *   separate  count launches of `items` work-items back to back
 *   fused     one launch of count x items work-items: the same work
 *   graph     the count launches recorded once as a launch graph (a CUDA Graph by stream
 *             capture, an OpenCL cl_khr_command_buffer) in setup and replayed as one
 *             (GB_CAP_GRAPH; a recorded skip with the reason on a device without it)
 * The figure per_launch_us is the time per launch of `separate`; derive adds to each
 * `separate` result with a `fused` peer the figures launch_overhead_us, (t_separate - t_fused)
 * / (count - 1): the cost of each extra launch, and fused_speedup; with a `graph` peer too,
 * graph_overhead_us, (t_graph - t_fused) / (count - 1), and graph_speedup, t_separate / t_graph.
 * The launch latency of one tiny kernel, enqueue to completion (clpeak's "kernel launch
 * latency"), is the launch suite's `latency` case: profiles run both.
 *
 * gemm (device-timed: the harness's markers bracket every kernel the library enqueues):
 *   batched  one strided-batched call over `count` dim x dim x dim matrices (gb_gemm.batch)
 *   loop     `count` single GEMM calls, one per matrix (each its own buffers)
 * GFLOP/s = 2 dim^3 count / time; derive adds the figure speedup_vs_loop to each batched result.
 *
 * Verification: copies compare every destination byte with a pseudo-random pattern; launches
 * check that every element was incremented once per operation; GEMMs take small-integer
 * inputs, so the products are exact in float whatever the library's order of operations, and
 * compare the first, last and up to 14 evenly spaced matrices of the batch element for element
 * with the host's integer product (the others are checked to be finite).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/curve.h"
#include "run/subcase.h"
#include "run/suite.h"
#include "run/tune.h"
#include "base/units.h"
#include "suites/common.h"

static const char *const op_names[] = {"copies", "launches", "gemm", NULL};
static const char *const mode_names[] = {"one",   "each",    "async", "separate", "fused",
                                         "graph", "batched", "loop",  NULL};
static const char *const dirs[] = {"h2d", "d2h", "none", NULL};
static const char *const memories[] = {"pinned", "pageable", "none", NULL};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("op", "[copies, launches, gemm]", op_names, "copies, launches or gemm"),
    GB_AXIS_STR("mode",
                "[one, each, async, separate, fused, graph, "
                "batched, loop]",
                mode_names,
                "copies: one, each, async; launches: separate, fused, graph; gemm: batched, loop"),
    GB_AXIS_INT("count", "[1, 16, 256]", 1, 1 << 20,
                "how many copies, launches or matrices make one batch"),
    GB_AXIS_SIZE("size", "{from: 4KiB, to: 16MiB, factor: 4}", 1, 0, "copies: bytes per copy"),
    GB_AXIS_INT("items", "256", 1, 1 << 24, "launches: work-items per launch"),
    GB_AXIS_INT("dim", "[16, 64, 256]", 1, 8192, "gemm: m = n = k of each matrix"),
    GB_AXIS_STR("dir", "h2d", dirs, "copies: h2d or d2h"),
    GB_AXIS_STR("memory", "pinned", memories, "copies: pinned or pageable host memory"),
};

enum bop { B_COPIES, B_LAUNCHES, B_GEMM };
enum bmode { M_ONE, M_EACH, M_ASYNC, M_SEPARATE, M_FUSED, M_GRAPH, M_BATCHED, M_LOOP };

static int index_of(const char *const *names, const char *s)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

static enum bop op_of_mode(enum bmode m)
{
    return m <= M_ASYNC ? B_COPIES : m <= M_GRAPH ? B_LAUNCHES : B_GEMM;
}

/* Keeps the modes of the case's op, and gives the axes the op does not use one canonical value,
 * so identical cases merge. */
static bool batching_normalize(struct gb_params *p)
{
    int op = index_of(op_names, gb_params_str(p, "op"));
    int mode = index_of(mode_names, gb_params_str(p, "mode"));
    if (op < 0 || mode < 0 || (int)op_of_mode((enum bmode)mode) != op)
        return false;
    struct gb_value *size = gb_params_slot(p, "size"), *items = gb_params_slot(p, "items");
    struct gb_value *dim = gb_params_slot(p, "dim"), *dir = gb_params_slot(p, "dir");
    struct gb_value *mem = gb_params_slot(p, "memory");
    if (!size || !items || !dim || !dir || !mem)
        return false;
    if (op != B_COPIES) {
        size->u.size = 0;
        snprintf(dir->s, sizeof dir->s, "none");
        snprintf(mem->s, sizeof mem->s, "none");
    } else if (strcmp(dir->s, "none") == 0 || strcmp(mem->s, "none") == 0) {
        return false;
    }
    if (op != B_LAUNCHES)
        items->u.i = 0;
    if (op != B_GEMM)
        dim->u.i = 0;
    return true;
}

struct batching {
    enum bop op;
    enum bmode mode;
    uint64_t count, size, items, dim;
    /* copies */
    struct gb_buf *host, *dev;
    unsigned char *pattern;
    bool h2d;
    /* launches */
    struct gb_buf *data;
    struct gb_program *prog;
    struct gb_kernel *k;
    uint32_t local;
    uint64_t ops_done;
    struct gb_graph *graph; /* mode graph: the count launches, recorded */
    /* gemm */
    struct gb_buf *a, *b, *c;       /* batched: one buffer each, strided */
    struct gb_buf **la, **lb, **lc; /* loop: one buffer per matrix */
    float *ha, *hb;                 /* one matrix's worth of inputs (the same for all) */
    float *ref;                     /* their exact product */
    float *check;
};

static int setup_copies(struct gb_case_ctx *ctx, struct batching *s)
{
    uint64_t total;
    if (gb_mul_u64(s->count, s->size, &total))
        return gb_case_skip(ctx, "count x size overflows");
    const struct gb_device_info *in = &ctx->dev->info;
    if (in->global_mem && total > in->global_mem)
        return gb_case_skip(ctx, "count x size = %" PRIu64 " bytes exceed the device memory",
                            total);
    s->h2d = strcmp(gb_params_str(ctx->params, "dir"), "h2d") == 0;
    enum gb_mem_kind hk = strcmp(gb_params_str(ctx->params, "memory"), "pinned") == 0
                              ? GB_MEM_HOST_PINNED
                              : GB_MEM_HOST_PAGEABLE;
    int err;
    if ((err = gb_case_alloc(ctx, total, hk, &s->host)) ||
        (err = gb_case_alloc(ctx, total, GB_MEM_DEVICE, &s->dev)))
        return err;
    s->pattern = malloc(total);
    if (!s->pattern)
        return GB_FAIL(GB_ENOMEM, "pattern of %" PRIu64 " bytes", total);
    /* The destination starts as zeros, so verify sees a copy that did not happen. */
    memset(s->pattern, 0, total);
    if ((err = gb_case_upload(ctx, s->h2d ? s->dev : s->host, s->pattern, total)))
        return err;
    gb_fill_pattern(s->pattern, total, total + s->count);
    if ((err = gb_case_upload(ctx, s->h2d ? s->host : s->dev, s->pattern, total)))
        return err;
    ctx->op.bytes = (double)total;
    ctx->op.timer = GB_TIMER_HOST;
    return 0;
}

static int run_copies(struct gb_case_ctx *ctx, struct batching *s, uint64_t reps)
{
    struct gb_buf *dst = s->h2d ? s->dev : s->host, *src = s->h2d ? s->host : s->dev;
    int err = 0;
    for (uint64_t r = 0; r < reps && !err; r++) {
        switch (s->mode) {
        case M_ONE:
            err = ctx->ops->copy(ctx->q, dst, 0, src, 0, s->count * s->size, GB_COPY_BLOCKING);
            break;
        case M_EACH:
            for (uint64_t i = 0; i < s->count && !err; i++)
                err = ctx->ops->copy(ctx->q, dst, i * s->size, src, i * s->size, s->size,
                                     GB_COPY_BLOCKING);
            break;
        default:
            for (uint64_t i = 0; i < s->count && !err; i++)
                err = ctx->ops->copy(ctx->q, dst, i * s->size, src, i * s->size, s->size,
                                     GB_COPY_ASYNC);
            if (!err)
                err = ctx->ops->queue_sync(ctx->q);
            break;
        }
    }
    return err;
}

static int verify_copies(struct gb_case_ctx *ctx, struct batching *s)
{
    int err;
    unsigned char *got =
        gb_case_read_back(ctx, s->h2d ? s->dev : s->host, s->count * s->size, &err);
    /* Copy by copy, so that a mismatch names the copy and the byte within it. */
    for (uint64_t i = 0; i < s->count && !err; i++)
        err = gb_case_check_bytes(ctx, got + i * s->size, s->pattern + i * s->size, s->size,
                                  "copy %" PRIu64, i);
    free(got);
    return err;
}

static struct gb_launch launch_desc(const struct batching *s)
{
    struct gb_launch l = {
        .dims = 1, .global = {s->items, 1, 1}, .local = {s->local, 1, 1}, .nargs = 2};
    l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->data};
    l.args[1] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = 0};
    return l;
}

/* The count launches of one `separate` operation (also what `graph` records). */
static int enqueue_separate(struct gb_case_ctx *ctx, const struct batching *s)
{
    struct gb_launch l = launch_desc(s);
    int err = 0;
    for (uint64_t i = 0; i < s->count && !err; i++) {
        l.args[1].v.u64 = i * s->items;
        err = ctx->ops->launch(ctx->q, s->k, &l);
    }
    return err;
}

static int setup_launches(struct gb_case_ctx *ctx, struct batching *s)
{
    if (s->mode == M_GRAPH && !((ctx->dev->info.caps & GB_CAP_GRAPH) && ctx->ops->graph_begin))
        return gb_case_skip(ctx, "launch graphs need GB_CAP_GRAPH (CUDA Graphs, or OpenCL's "
                                 "cl_khr_command_buffer with simultaneous use); this device has "
                                 "none");
    uint64_t total;
    if (gb_mul_u64(s->count, s->items, &total) || total > (UINT64_C(1) << 30))
        return gb_case_skip(ctx, "count x items above 2^30 work-items");
    /* The largest power of two up to 64 that divides the work-items of one launch. */
    s->local = 1;
    while (s->local < 64 && s->items % (s->local * 2) == 0 &&
           s->local * 2 <= ctx->dev->info.max_wg_size)
        s->local *= 2;
    int err = gb_case_build(ctx, "batching.cl", "batch_inc", NULL, 0, &s->prog, &s->k);
    if (err)
        return err;
    /* The kernel's own maximum may be below the device's (a driver's register or local-memory
     * limits): halving keeps a power of two that divides the work-items. */
    uint32_t kmax = 0;
    if ((err = ctx->ops->kernel_max_wg(s->k, &kmax)))
        return err;
    while (s->local > 1 && s->local > kmax)
        s->local /= 2;
    if ((err = gb_case_alloc(ctx, total * sizeof(uint32_t), GB_MEM_DEVICE, &s->data)))
        return err;
    uint32_t *zero = calloc(total, sizeof *zero);
    if (!zero)
        return GB_FAIL(GB_ENOMEM, "%" PRIu64 " counters", total);
    err = gb_case_upload(ctx, s->data, zero, total * sizeof *zero);
    free(zero);
    if (!err && s->mode == M_GRAPH) {
        /* The separate launches, recorded once. */
        if ((err = ctx->ops->graph_begin(ctx->q)))
            return err;
        err = enqueue_separate(ctx, s);
        struct gb_graph *g = NULL;
        int end = ctx->ops->graph_end(ctx->q, &g);
        if (!err)
            err = end;
        if (!end)
            s->graph = g;
    }
    ctx->op.timer = GB_TIMER_DEVICE;
    /* Counters of 32 bits must not wrap. */
    ctx->op.max_batch = 1u << 20;
    return err;
}

static int run_launches(struct gb_case_ctx *ctx, struct batching *s, uint64_t reps)
{
    struct gb_launch l = launch_desc(s);
    int err = 0;
    for (uint64_t r = 0; r < reps && !err; r++) {
        if (s->mode == M_FUSED) {
            l.global[0] = s->count * s->items;
            err = ctx->ops->launch(ctx->q, s->k, &l);
        } else if (s->mode == M_GRAPH) {
            err = ctx->ops->graph_launch(ctx->q, s->graph);
        } else {
            err = enqueue_separate(ctx, s);
        }
        if (!err)
            s->ops_done++;
    }
    return err;
}

static int verify_launches(struct gb_case_ctx *ctx, struct batching *s)
{
    uint64_t total = s->count * s->items;
    int err;
    uint32_t *got = gb_case_read_back(ctx, s->data, total * sizeof *got, &err);
    for (uint64_t i = 0; i < total && !err; i++)
        if (got[i] != (uint32_t)s->ops_done)
            err = gb_case_mismatch(ctx,
                                   "work-item %" PRIu64 " of launch %" PRIu64 " ran %u "
                                   "times, expected %" PRIu64,
                                   i % s->items, i / s->items, got[i], s->ops_done);
    free(got);
    return err;
}

/* A small integer in [-2, 2] for element i of stream `seed`. */
static float small_int(uint64_t seed, uint64_t i)
{
    uint64_t st = seed * UINT64_C(0x9E3779B97F4A7C15) ^ i;
    return (float)((int)gb_rand_below(&st, 5) - 2);
}

static struct gb_gemm gemm_desc(const struct batching *s, struct gb_buf *a, struct gb_buf *b,
                                struct gb_buf *c, uint64_t batch)
{
    uint64_t d = s->dim;
    return (struct gb_gemm){.a_type = GB_F32,
                            .c_type = GB_F32,
                            .compute = GB_F32,
                            .m = d,
                            .n = d,
                            .k = d,
                            .alpha = 1.0,
                            .beta = 0.0,
                            .a = a,
                            .b = b,
                            .c = c,
                            .lda = d,
                            .ldb = d,
                            .ldc = d,
                            .batch = batch,
                            .stride_a = d * d,
                            .stride_b = d * d,
                            .stride_c = d * d};
}

static int setup_gemm(struct gb_case_ctx *ctx, struct batching *s)
{
    if (!(ctx->dev->info.caps & GB_CAP_BLAS_F32) || !ctx->ops->gemm)
        return gb_case_skip(ctx, "the backend has no F32 GEMM (GB_CAP_BLAS_F32) on this device");
    uint64_t d = s->dim, elems = d * d, total;
    if (gb_mul_u64(elems, s->count, &total) || total > (UINT64_C(1) << 31))
        return gb_case_skip(ctx, "count x dim^2 above 2^31 elements");
    const struct gb_device_info *in = &ctx->dev->info;
    if (in->global_mem && 3 * total * sizeof(float) > in->global_mem)
        return gb_case_skip(ctx, "3 x %" PRIu64 " bytes exceed the device memory",
                            total * sizeof(float));
    s->ha = malloc(elems * sizeof(float));
    s->hb = malloc(elems * sizeof(float));
    s->ref = malloc(elems * sizeof(float));
    s->check = malloc(elems * sizeof(float));
    if (!s->ha || !s->hb || !s->ref || !s->check)
        return GB_FAIL(GB_ENOMEM, "matrices of %" PRIu64 " elements", elems);
    for (uint64_t i = 0; i < elems; i++) {
        s->ha[i] = small_int(5, i);
        s->hb[i] = small_int(6, i);
    }
    /* C = A B column-major, in integers: exact, and exact in float too (|C| <= 4 dim). */
    for (uint64_t j = 0; j < d; j++)
        for (uint64_t i = 0; i < d; i++) {
            int64_t acc = 0;
            for (uint64_t l = 0; l < d; l++)
                acc += (int64_t)s->ha[i + l * d] * (int64_t)s->hb[l + j * d];
            s->ref[i + j * d] = (float)acc;
        }
    float *nanv = malloc(elems * sizeof(float));
    if (!nanv)
        return GB_FAIL(GB_ENOMEM, "matrix");
    for (uint64_t i = 0; i < elems; i++)
        nanv[i] = NAN;
    int err = 0;
    uint64_t mb = elems * sizeof(float);
    if (s->mode == M_BATCHED) {
        if ((err = gb_case_alloc(ctx, total * sizeof(float), GB_MEM_DEVICE, &s->a)) ||
            (err = gb_case_alloc(ctx, total * sizeof(float), GB_MEM_DEVICE, &s->b)) ||
            (err = gb_case_alloc(ctx, total * sizeof(float), GB_MEM_DEVICE, &s->c)))
            goto out;
        /* Every matrix of the batch holds the same inputs (and C starts as NaN). */
        float *big = malloc(total * sizeof(float));
        if (!big) {
            err = GB_FAIL(GB_ENOMEM, "batch of %" PRIu64 " elements", total);
            goto out;
        }
        const float *src[3] = {s->ha, s->hb, nanv};
        struct gb_buf *dst[3] = {s->a, s->b, s->c};
        for (int q = 0; q < 3 && !err; q++) {
            for (uint64_t i = 0; i < s->count; i++)
                memcpy(big + i * elems, src[q], mb);
            err = gb_case_upload(ctx, dst[q], big, total * sizeof(float));
        }
        free(big);
    } else {
        s->la = calloc(s->count, sizeof *s->la);
        s->lb = calloc(s->count, sizeof *s->lb);
        s->lc = calloc(s->count, sizeof *s->lc);
        if (!s->la || !s->lb || !s->lc) {
            err = GB_FAIL(GB_ENOMEM, "buffer lists");
            goto out;
        }
        for (uint64_t i = 0; i < s->count && !err; i++)
            if (!(err = gb_case_alloc(ctx, mb, GB_MEM_DEVICE, &s->la[i])) &&
                !(err = gb_case_alloc(ctx, mb, GB_MEM_DEVICE, &s->lb[i])) &&
                !(err = gb_case_alloc(ctx, mb, GB_MEM_DEVICE, &s->lc[i])) &&
                !(err = gb_case_upload(ctx, s->la[i], s->ha, mb)) &&
                !(err = gb_case_upload(ctx, s->lb[i], s->hb, mb)))
                err = gb_case_upload(ctx, s->lc[i], nanv, mb);
    }
    ctx->op.flops = 2.0 * (double)d * (double)d * (double)d * (double)s->count;
    ctx->op.timer = GB_TIMER_DEVICE;
out:
    free(nanv);
    return err;
}

static int run_gemm(struct gb_case_ctx *ctx, struct batching *s, uint64_t reps)
{
    int err = 0;
    for (uint64_t r = 0; r < reps && !err; r++) {
        if (s->mode == M_BATCHED) {
            struct gb_gemm g = gemm_desc(s, s->a, s->b, s->c, s->count);
            err = ctx->ops->gemm(ctx->q, &g);
        } else {
            for (uint64_t i = 0; i < s->count && !err; i++) {
                struct gb_gemm g = gemm_desc(s, s->la[i], s->lb[i], s->lc[i], 1);
                err = ctx->ops->gemm(ctx->q, &g);
            }
        }
    }
    return err;
}

static int verify_gemm(struct gb_case_ctx *ctx, struct batching *s)
{
    uint64_t elems = s->dim * s->dim;
    float *whole = NULL;
    if (s->mode == M_BATCHED) {
        /* The batch is one buffer: read it whole once (verify is not timed). */
        int err;
        if (!(whole = gb_case_read_back(ctx, s->c, elems * s->count * sizeof(float), &err)))
            return err;
        for (uint64_t i = 0; i < elems * s->count; i++)
            if (!isfinite(whole[i])) {
                double bad = whole[i]; /* read before the buffer is freed */
                free(whole);
                return gb_case_mismatch(ctx, "matrix %" PRIu64 ", element %" PRIu64 " is %g",
                                        i / elems, i % elems, bad);
            }
    }
    /* First, last and up to 14 evenly spaced matrices, every element. */
    uint64_t picks = s->count < 16 ? s->count : 16;
    int err = 0;
    for (uint64_t p = 0; p < picks && !err; p++) {
        uint64_t i = picks == 1 ? 0 : p * (s->count - 1) / (picks - 1);
        const float *got = s->check;
        if (whole)
            got = whole + i * elems;
        else /* the loop mode: one buffer per matrix */
            err = gb_case_download(ctx, s->check, s->lc[i], elems * sizeof(float));
        for (uint64_t e = 0; e < elems && !err; e++)
            if (!(got[e] == s->ref[e]))
                err = gb_case_mismatch(ctx,
                                       "matrix %" PRIu64 ", C(%" PRIu64 ", %" PRIu64 ") = "
                                       "%.9g, expected exactly %.0f",
                                       i, e % s->dim, e / s->dim, got[e], s->ref[e]);
    }
    free(whole);
    return err;
}

static int batching_setup(struct gb_case_ctx *ctx)
{
    struct batching *s = ctx->state;
    s->op = (enum bop)index_of(op_names, gb_params_str(ctx->params, "op"));
    s->mode = (enum bmode)index_of(mode_names, gb_params_str(ctx->params, "mode"));
    s->count = (uint64_t)gb_params_int(ctx->params, "count");
    s->size = gb_params_size(ctx->params, "size");
    s->items = (uint64_t)gb_params_int(ctx->params, "items");
    s->dim = (uint64_t)gb_params_int(ctx->params, "dim");
    switch (s->op) {
    case B_COPIES:
        return setup_copies(ctx, s);
    case B_LAUNCHES:
        return setup_launches(ctx, s);
    case B_GEMM:
        return setup_gemm(ctx, s);
    }
    return GB_EINVAL;
}

static int batching_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct batching *s = ctx->state;
    return s->op == B_COPIES     ? run_copies(ctx, s, reps)
           : s->op == B_LAUNCHES ? run_launches(ctx, s, reps)
                                 : run_gemm(ctx, s, reps);
}

static int batching_verify(struct gb_case_ctx *ctx)
{
    struct batching *s = ctx->state;
    ctx->max_error = 0;
    return s->op == B_COPIES     ? verify_copies(ctx, s)
           : s->op == B_LAUNCHES ? verify_launches(ctx, s)
                                 : verify_gemm(ctx, s);
}

static void batching_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct batching *s = ctx->state;
    double per = op_time_s / (double)s->count * 1e6;
    if (s->op == B_COPIES)
        gb_case_figure(ctx, "per_copy_us", "us", s->mode == M_ONE ? op_time_s * 1e6 : per);
    else if (s->op == B_LAUNCHES)
        gb_case_figure(ctx, "per_launch_us", "us", s->mode == M_FUSED ? op_time_s * 1e6 : per);
    else
        gb_case_figure(ctx, "per_matrix_us", "us", per);
}

static void batching_teardown(struct gb_case_ctx *ctx)
{
    struct batching *s = ctx->state;
    gb_case_free_bufs(ctx, &s->host, &s->dev, &s->data, &s->a, &s->b, &s->c, NULL);
    struct gb_buf **lists[] = {s->la, s->lb, s->lc};
    for (size_t j = 0; j < 3; j++) {
        for (uint64_t i = 0; lists[j] && i < s->count; i++)
            gb_case_free_buf(ctx, &lists[j][i]);
        free(lists[j]);
    }
    if (s->graph)
        ctx->ops->graph_free(s->graph);
    s->graph = NULL;
    gb_case_free_kernel(ctx, &s->k, &s->prog);
    free(s->pattern);
    free(s->ha);
    free(s->hb);
    free(s->ref);
    free(s->check);
}

/* ---- derived across cases ------------------------------------------------------------------ */

static bool is(const struct gb_result *r, const char *op)
{
    return strcmp(r->suite, "batching") == 0 && r->status == GB_STATUS_OK && r->nsamples > 0 &&
           strcmp(gb_params_str(&r->params, "op"), op) == 0;
}

/* Whether a and b have the same params except those named in `except` (NULL-terminated). */
static bool same_but(const struct gb_result *a, const struct gb_result *b,
                     const char *const *except)
{
    if (a->params.n != b->params.n || a->device_index != b->device_index ||
        strcmp(a->backend, b->backend) != 0)
        return false;
    for (size_t i = 0; i < a->params.n; i++) {
        bool skip = false;
        for (size_t k = 0; except[k]; k++)
            skip |= strcmp(a->params.name[i], except[k]) == 0;
        if (skip)
            continue;
        if (strcmp(a->params.name[i], b->params.name[i]) != 0 ||
            !gb_value_equal(&a->params.v[i], &b->params.v[i]))
            return false;
    }
    return true;
}

static int derive_knees(struct gb_results *rs)
{
    static const char *const curve_axes[] = {"size", NULL};
    size_t n0 = rs->nresults, cap = n0 ? n0 : 1;
    bool *used = calloc(cap, sizeof *used);
    size_t *idx = malloc(cap * sizeof *idx);
    double *x = malloc(cap * sizeof *x), *y = malloc(cap * sizeof *y);
    double *bytes = malloc(cap * sizeof *bytes), *sec = malloc(cap * sizeof *sec);
    int rc = 0;
    if (!used || !idx || !x || !y || !bytes || !sec) {
        rc = GB_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n0; i++) {
        if (used[i] || !is(&rs->results[i], "copies"))
            continue;
        size_t n = 0;
        const struct gb_result *first = &rs->results[i];
        uint64_t count = (uint64_t)gb_params_int(&first->params, "count");
        bool one = strcmp(gb_params_str(&first->params, "mode"), "one") == 0;
        for (size_t j = i; j < n0; j++) {
            const struct gb_result *r = &rs->results[j];
            if (used[j] || !is(r, "copies") || !same_but(first, r, curve_axes))
                continue;
            used[j] = true;
            double sz = (double)gb_params_size(&r->params, "size");
            idx[n] = j;
            x[n] = sz * (double)count;
            y[n] = r->value;
            bytes[n] = one ? x[n] : sz;
            sec[n] = r->op_time_us.median * 1e-6 / (one ? 1.0 : (double)count);
            n++;
        }
        if (n < 3)
            continue; /* no curve to speak of */
        /* The figures go on the curve's largest batch. */
        size_t top = 0;
        for (size_t k = 1; k < n; k++)
            if (x[k] > x[top])
                top = k;
        struct gb_result *d = &rs->results[idx[top]];
        struct gb_knee k;
        if (gb_curve_knee(x, y, n, 0.9, &k))
            continue;
        if (isnan(k.knee_x))
            gb_result_text(d, "knee", "none: the sweep ends below 90%% of the asymptote");
        else
            gb_result_figure(d, "knee", "B", k.knee_x);
        gb_result_figure(d, "asymptote", "GB/s", k.asymptote);
        gb_result_text(d, "plateau", "%s", k.plateau ? "yes" : "no: asymptote is a lower bound");
        double t0, bw;
        if (gb_curve_fit_latency(bytes, sec, n, &t0, &bw) == 0) {
            gb_result_figure(d, "overhead_us", "us", t0 * 1e6);
            gb_result_figure(d, "fit_gbs", "GB/s", bw / 1e9);
        }
    }
out:
    free(used);
    free(idx);
    free(x);
    free(y);
    free(bytes);
    free(sec);
    return rc;
}

static void derive_launches(struct gb_results *rs)
{
    static const char *const modes[] = {"mode", NULL};
    for (size_t i = 0; i < rs->nresults; i++) {
        struct gb_result *sep = &rs->results[i];
        if (!is(sep, "launches") || strcmp(gb_params_str(&sep->params, "mode"), "separate"))
            continue;
        int64_t count = gb_params_int(&sep->params, "count");
        if (count < 2)
            continue;
        const struct gb_result *fused = NULL, *graph = NULL;
        for (size_t j = 0; j < rs->nresults; j++) {
            const struct gb_result *r = &rs->results[j];
            if (!is(r, "launches") || !same_but(sep, r, modes))
                continue;
            if (strcmp(gb_params_str(&r->params, "mode"), "fused") == 0)
                fused = r;
            else if (strcmp(gb_params_str(&r->params, "mode"), "graph") == 0)
                graph = r;
        }
        if (!fused)
            continue;
        double ts = sep->op_time_us.median, tf = fused->op_time_us.median;
        gb_result_figure(sep, "launch_overhead_us", "us", (ts - tf) / (double)(count - 1));
        gb_result_figure(sep, "fused_speedup", "x", ts / tf);
        if (graph) {
            gb_result_figure(sep, "graph_overhead_us", "us",
                             (graph->op_time_us.median - tf) / (double)(count - 1));
            gb_result_figure(sep, "graph_speedup", "x", ts / graph->op_time_us.median);
        }
    }
}

static void derive_gemm(struct gb_results *rs)
{
    static const char *const modes[] = {"mode", NULL};
    for (size_t i = 0; i < rs->nresults; i++) {
        struct gb_result *b = &rs->results[i];
        if (!is(b, "gemm") || strcmp(gb_params_str(&b->params, "mode"), "batched"))
            continue;
        for (size_t j = 0; j < rs->nresults; j++) {
            const struct gb_result *l = &rs->results[j];
            if (is(l, "gemm") && strcmp(gb_params_str(&l->params, "mode"), "loop") == 0 &&
                same_but(b, l, modes) && b->nfigures < GB_MAX_FIGURES)
                gb_result_figure(b, "speedup_vs_loop", "x",
                                 l->op_time_us.median / b->op_time_us.median);
        }
    }
}

static int batching_derive(struct gb_results *rs)
{
    derive_launches(rs);
    derive_gemm(rs);
    return derive_knees(rs);
}

/* What a case holds at once (gb_suite.footprint): copies: the host and device buffers of count x
 * size bytes, the pattern, and verify's read-back with its staging (all of that size); launches:
 * count x items 4-byte counters on the device, and on the host their zeros or read-back with its
 * staging; gemm: A, B and C of count x dim^2 floats on the device, on the host one matrix's
 * inputs, product, check and NaN fill, and a whole batch uploaded or read back with its
 * staging. */
static void batching_footprint(const struct gb_params *p, const struct gb_device_info *info,
                               struct gb_footprint *fp)
{
    (void)info;
    const char *op = gb_params_str(p, "op");
    const double count = (double)gb_params_int(p, "count");
    if (strcmp(op, "copies") == 0) {
        const double total = count * (double)gb_params_size(p, "size");
        *fp = (struct gb_footprint){.host = 4 * total, .device = total, .largest = total};
    } else if (strcmp(op, "launches") == 0) {
        const double total = 4 * count * (double)gb_params_int(p, "items");
        *fp = (struct gb_footprint){.host = 2 * total, .device = total, .largest = total};
    } else {
        const double d = (double)gb_params_int(p, "dim"), m = 4 * d * d, total = count * m;
        const bool loop = strcmp(gb_params_str(p, "mode"), "loop") == 0;
        *fp = (struct gb_footprint){
            .host = 5 * m + 3 * total, .device = 3 * total, .largest = loop ? m : total};
    }
}

const struct gb_suite gb_suite_batching = {
    .name = "batching",
    .summary = "what batching buys: copies one by one vs together (knee), launches separate vs "
               "fused, GEMMs in a loop vs strided-batched",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "op",
    .state_size = sizeof(struct batching),
    .normalize = batching_normalize,
    .setup = batching_setup,
    .run = batching_run,
    .verify = batching_verify,
    .teardown = batching_teardown,
    .figures = batching_figures,
    .derive = batching_derive,
    .footprint = batching_footprint,
};
