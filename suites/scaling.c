/* scaling — a multi-device suite (multi_common.h holds what those suites share): one
 * data-parallel job on 1..N devices at once: BabelStream's triad (a = b + s*c, 3 arrays moved
 * per element; GB/s) and an SGEMM split by rows (C = A B with A and C cut into row blocks, B
 * replicated; GFLOP/s = 2 M N K / s). Strong scaling keeps the total size fixed (each device gets
 * 1/n of it); weak scaling keeps the size per device fixed (the total grows with n). The headline
 * is the aggregate throughput of the concurrent run; the runner adds "speedup" (against the same
 * case on one device) and "efficiency" (speedup / n).
 * The SGEMM uses the backend's BLAS (CLBlast, cuBLAS) when every device of the set has
 * GB_CAP_BLAS_F32, else a tiled kernel of our own (kernels/multi.cl); the figure "impl" says
 * which. The own kernel's tile is 16 x 16 work-items, or the largest power of two whose square
 * every device and its kernel allow (the figure "tile_used", the smallest of the set's). The
 * triad's work-group is 256 work-items, or what the device and the kernel allow (wg_used).
 *
 * Verification: triad arrays start at a = 0.1, b = 0.2, c = 0.7, s = 0.4 and triad is idempotent
 * on them, so every element must be 0.48 (in float) whatever the repetitions (relative tolerance
 * 1e-6, as the memory suite). SGEMM inputs are small integers (|a| <= 3, |b| <= 2), so every dot
 * product of up to 2^20 terms is an exact float and C must match the host's integer reference
 * exactly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites/common.h"
#include "suites/multi_common.h"

static const char *const workloads[] = {"triad", "sgemm", NULL};
static const char *const modes[] = {"strong", "weak", NULL};

static const struct gb_axis_def scaling_axes[] = {
    GB_AXIS_STR("workload", "[triad, sgemm]", workloads,
                "triad (GB/s) or sgemm split by rows (GFLOP/s)"),
    GB_AXIS_STR("mode", "[strong, weak]", modes,
                "strong: fixed total size split across devices; weak: fixed size per device"),
    GB_MULTI_NDEV_AXIS("devices used at once"),
    GB_AXIS_SIZE(
        "size", "64MiB", 1, 0,
        "triad: bytes per array (strong: in total, weak: per device); sgemm ignores it (its "
        "results record 0)"),
    GB_AXIS_INT("order", "1024", 1, 65536,
                "sgemm: M = N = K (strong: M in total, weak: M rows per device); triad ignores it "
                "(its results record 0)"),
};

#define TRIAD_A 0.1
#define TRIAD_B 0.2
#define TRIAD_C 0.7
#define TRIAD_S 0.4
#define SGEMM_TS 16 /* the tile of the own kernel: TS x TS work-items */

struct scaling_dev {
    struct gb_buf *a, *b, *c;
    struct gb_program *prog;
    struct gb_kernel *k;
    struct gb_launch launch, tail; /* triad: whole work-groups and the remainder; sgemm: launch */
    uint64_t elems;                /* triad: elements on this device */
    uint64_t row0, rows;           /* sgemm: the rows of C this device computes */
    struct gb_gemm gemm;           /* sgemm through the backend's BLAS */
};

struct scaling {
    struct gb_multi_team team; /* first: gb_multi_run() */
    bool sgemm, weak, blas;
    uint64_t order; /* sgemm: N = K */
    struct scaling_dev d[GB_MAX_SET];
};

static bool scaling_normalize(struct gb_params *p)
{
    struct gb_value *size = gb_params_slot(p, "size"), *order = gb_params_slot(p, "order");
    struct gb_value *mode = gb_params_slot(p, "mode"), *ndev = gb_params_slot(p, "ndev");
    if (!size || !order || !mode || !ndev)
        return false;
    /* The size axis of the other workload plays no part: one case, labelled 0. */
    if (strcmp(gb_params_str(p, "workload"), "triad") == 0)
        order->u.i = 0;
    else
        size->u.size = 0;
    /* On one device strong and weak scaling are the same job. */
    if (ndev->u.i == 1)
        snprintf(mode->s, sizeof mode->s, "strong");
    return true;
}

static float sgemm_a(uint64_t i, uint64_t l)
{
    return (float)((int)((i * 3 + l) % 7) - 3);
}

static float sgemm_b(uint64_t l, uint64_t j)
{
    return (float)((int)((l + 2 * j) % 5) - 2);
}

static int scaling_job(struct gb_team *t, size_t rank, void *arg)
{
    (void)t;
    struct scaling *s = arg;
    const struct gb_backend_ops *ops = s->team.ctx->ops;
    struct gb_queue *q = s->team.ctx->queues[rank];
    struct scaling_dev *d = &s->d[rank];
    int err = 0;
    for (uint64_t r = 0; r < s->team.reps && !err; r++) {
        /* The backend serialises BLAS enqueues itself where its library needs it. */
        if (s->sgemm && s->blas)
            err = ops->gemm(q, &d->gemm);
        else
            err = gb_launch_whole_then_tail(ops, q, d->k, &d->launch, &d->tail);
    }
    return err ? err : ops->queue_sync(q);
}

static int setup_triad(struct gb_case_ctx *ctx, struct scaling *s, size_t i, uint64_t elems)
{
    struct scaling_dev *d = &s->d[i];
    const struct gb_device_info *info = &ctx->devs[i]->info;
    d->elems = elems;
    uint32_t wg = 256; /* fitted to the device and the kernel once built */
    if (elems == 0)
        return gb_case_skip(ctx, "device %zu gets no element (size too small for %zu devices)", i,
                            s->team.n);
    const uint64_t bytes = elems * sizeof(float);
    int err;
    const char *defines[] = {"T=float", "WG=256"};
    if ((err = gb_multi_build(ctx, i, "stream.cl", "stream_triad", defines, 2, &d->prog, &d->k)) ||
        (err = gb_case_fit_own_wg(ctx, d->k, info->max_wg_size, &wg)))
        return err;
    if ((err = gb_multi_alloc(ctx, i, bytes, GB_MEM_DEVICE, &d->a)) ||
        (err = gb_multi_alloc(ctx, i, bytes, GB_MEM_DEVICE, &d->b)) ||
        (err = gb_multi_alloc(ctx, i, bytes, GB_MEM_DEVICE, &d->c)))
        return err;
    float *h = malloc(bytes);
    if (!h)
        return GB_FAIL(GB_ENOMEM, "host array of %llu bytes", (unsigned long long)bytes);
    const double init[3] = {TRIAD_A, TRIAD_B, TRIAD_C};
    struct gb_buf *bufs[3] = {d->a, d->b, d->c};
    for (int k = 0; k < 3 && !err; k++) {
        if (k == 0) { /* a, the triad's output: poisoned */
            err = gb_multi_poison(ctx, i, bufs[k], bytes, GB_F32);
            continue;
        }
        for (uint64_t e = 0; e < elems; e++)
            h[e] = (float)init[k];
        err = gb_multi_upload(ctx, i, bufs[k], h, bytes);
    }
    free(h);
    if (err)
        return err;
    /* As the memory suite: whole work-groups from 0, then the remainder as single work-items
     * from `base` (kernels/stream.cl says why). */
    struct gb_launch *l = &d->launch;
    *l = (struct gb_launch){.dims = 1, .global = {0, 1, 1}, .local = {wg, 1, 1}, .nargs = 5};
    l->args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = d->a};
    l->args[1] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = d->b};
    l->args[2] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = d->c};
    l->args[3] = (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = (float)TRIAD_S};
    l->args[4] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = 0};
    gb_launch_split_tail(l, &d->tail, elems, 4);
    return 0;
}

static int setup_sgemm(struct gb_case_ctx *ctx, struct scaling *s, size_t i, uint64_t row0,
                       uint64_t rows)
{
    struct scaling_dev *d = &s->d[i];
    const uint64_t nk = s->order;
    d->row0 = row0;
    d->rows = rows;
    if (rows == 0)
        return gb_case_skip(ctx, "device %zu gets no row (order %llu too small for %zu devices)", i,
                            (unsigned long long)nk, s->team.n);
    int err;
    if ((err = gb_multi_alloc(ctx, i, rows * nk * sizeof(float), GB_MEM_DEVICE, &d->a)) ||
        (err = gb_multi_alloc(ctx, i, nk * nk * sizeof(float), GB_MEM_DEVICE, &d->b)) ||
        (err = gb_multi_alloc(ctx, i, rows * nk * sizeof(float), GB_MEM_DEVICE, &d->c)))
        return err;
    /* Column-major, the BLAS convention: A_i is rows x K (lda = rows), B is K x N (ldb = K). */
    float *h = malloc((rows > nk ? rows : nk) * nk * sizeof(float));
    if (!h)
        return GB_FAIL(GB_ENOMEM, "host matrix");
    for (uint64_t l = 0; l < nk; l++)
        for (uint64_t r = 0; r < rows; r++)
            h[l * rows + r] = sgemm_a(row0 + r, l);
    err = gb_multi_upload(ctx, i, d->a, h, rows * nk * sizeof(float));
    for (uint64_t j = 0; j < nk && !err; j++)
        for (uint64_t l = 0; l < nk; l++)
            h[j * nk + l] = sgemm_b(l, j);
    if (!err)
        err = gb_multi_upload(ctx, i, d->b, h, nk * nk * sizeof(float));
    if (!err) /* C, the output: poisoned */
        err = gb_multi_poison(ctx, i, d->c, rows * nk * sizeof(float), GB_F32);
    free(h);
    if (err)
        return err;
    if (s->blas) {
        d->gemm = (struct gb_gemm){.a_type = GB_F32,
                                   .c_type = GB_F32,
                                   .compute = GB_F32,
                                   .m = rows,
                                   .n = nk,
                                   .k = nk,
                                   .alpha = 1.0,
                                   .beta = 0.0,
                                   .a = d->a,
                                   .b = d->b,
                                   .c = d->c,
                                   .lda = rows,
                                   .ldb = nk,
                                   .ldc = rows,
                                   .batch = 1};
        return 0;
    }
    /* The tile: SGEMM_TS, or the largest power of two below it whose TS x TS work-group the
     * device and the kernel allow (TS is a define: the kernel is rebuilt with it). */
    const uint32_t dmax = ctx->devs[i]->info.max_wg_size;
    uint32_t ts = SGEMM_TS;
    while (ts > 1 && dmax && ts * ts > dmax)
        ts /= 2;
    for (;;) {
        char def_ts[16];
        snprintf(def_ts, sizeof def_ts, "TS=%u", ts);
        const char *defines[] = {def_ts};
        uint32_t kmax = 0;
        if ((err =
                 gb_multi_build(ctx, i, "multi.cl", "multi_sgemm", defines, 1, &d->prog, &d->k)) ||
            (err = ctx->ops->kernel_max_wg(d->k, &kmax)))
            return err;
        if (ts * ts <= kmax)
            break;
        if (ts == 1)
            return gb_case_skip(ctx, "work-group size 1 exceeds this kernel's maximum %u", kmax);
        ts /= 2;
        gb_case_free_kernel(ctx, &d->k, &d->prog);
    }
    /* Each work-item runs ceil(nk / TS) tiles of TS steps (kernels/multi.cl's multi_sgemm): the
     * order is the profile's, so past the driver's loop limit the case skips. */
    if ((err = gb_case_loop_fits(ctx, (nk + ts - 1) / ts * (1 + (uint64_t)ts), "own sgemm", NULL)))
        return err;
    if (ts != SGEMM_TS) { /* one figure for the set: the smallest tile of any device */
        size_t f = 0;
        while (f < ctx->nfigures && strcmp(ctx->figures[f].name, "tile_used") != 0)
            f++;
        if (f == ctx->nfigures)
            gb_case_figure(ctx, "tile_used", "", ts);
        else if (ts < ctx->figures[f].v[0])
            ctx->figures[f].v[0] = ts;
    }
    d->launch = (struct gb_launch){
        .dims = 2,
        .global = {(rows + ts - 1) / ts * ts, (nk + ts - 1) / ts * ts, 1},
        .local = {ts, ts, 1},
        .nargs = 6,
    };
    d->launch.args[0] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = rows};
    d->launch.args[1] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = nk};
    d->launch.args[2] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = nk};
    d->launch.args[3] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = d->a};
    d->launch.args[4] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = d->b};
    d->launch.args[5] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = d->c};
    return 0;
}

/* On one device strong and weak scaling are the same job (normalize records strong): mode does
 * not apply there (what people read leaves it out; results keep it). size and order, which the
 * other workload ignores, normalize records as 0, which readers leave out already. */
static bool scaling_axis_applies(const struct gb_params *p, const char *axis)
{
    return strcmp(axis, "mode") != 0 || gb_params_int(p, "ndev") != 1;
}

static int scaling_setup(struct gb_case_ctx *ctx)
{
    struct scaling *s = ctx->state;
    s->sgemm = strcmp(gb_params_str(ctx->params, "workload"), "sgemm") == 0;
    s->weak = strcmp(gb_params_str(ctx->params, "mode"), "weak") == 0;
    int err = gb_multi_ndev(ctx, &s->team.n);
    if (err)
        return err;
    if (s->sgemm) {
        s->order = (uint64_t)gb_params_int(ctx->params, "order");
        s->blas = gb_multi_all_have(ctx, s->team.n, GB_CAP_BLAS_F32) && ctx->ops->gemm;
        const uint64_t total_rows = s->weak ? s->order * s->team.n : s->order;
        for (size_t i = 0; i < s->team.n && !err; i++) {
            uint64_t lo, hi;
            if (s->weak)
                lo = s->order * i, hi = lo + s->order;
            else
                gb_multi_part(total_rows, s->team.n, i, &lo, &hi);
            err = setup_sgemm(ctx, s, i, lo, hi - lo);
        }
        ctx->op.flops = 2.0 * (double)total_rows * (double)s->order * (double)s->order;
    } else {
        const uint64_t per = gb_params_size(ctx->params, "size") / sizeof(float);
        const uint64_t total = s->weak ? per * s->team.n : per;
        for (size_t i = 0; i < s->team.n && !err; i++) {
            uint64_t lo = 0, hi = per;
            if (!s->weak)
                gb_multi_part(total, s->team.n, i, &lo, &hi);
            err = setup_triad(ctx, s, i, hi - lo);
        }
        ctx->op.bytes = 3.0 * (double)total * sizeof(float);
        ctx->op.flops = 2.0 * (double)total;
    }
    if (err)
        return err;
    return gb_multi_team_start(ctx, scaling_job);
}

static int verify_triad(struct gb_case_ctx *ctx, struct scaling *s, size_t i, float *h)
{
    struct scaling_dev *d = &s->d[i];
    int err = gb_multi_download(ctx, i, h, d->a, d->elems * sizeof(float));
    if (err)
        return err;
    const double gold = (double)(float)((float)TRIAD_B + (float)TRIAD_S * (float)TRIAD_C);
    for (uint64_t e = 0; e < d->elems; e++) {
        double rel = fabs((double)h[e] - gold) / gold;
        if (!(rel <= ctx->max_error))
            ctx->max_error = isnan(rel) ? INFINITY : rel;
        if (!(rel <= 1e-6))
            return gb_case_mismatch(ctx,
                                    "device %zu: a[%llu] = %.9g, expected %.9g (relative "
                                    "error %.3g > 1e-6)",
                                    i, (unsigned long long)e, h[e], gold, rel);
    }
    return 0;
}

static int verify_sgemm(struct gb_case_ctx *ctx, struct scaling *s, size_t i, float *h)
{
    struct scaling_dev *d = &s->d[i];
    const uint64_t nk = s->order;
    int err = gb_multi_download(ctx, i, h, d->c, d->rows * nk * sizeof(float));
    if (err)
        return err;
    /* Every row; all columns while that stays under ~2^27 multiply-adds on the host, else an
     * even spread of columns (the last one always included). */
    uint64_t step = 1;
    while (step < nk && d->rows * ((nk + step - 1) / step) * nk > (UINT64_C(1) << 27))
        step *= 2;
    for (uint64_t j = 0; j < nk; j = (j + step < nk || j == nk - 1) ? j + step : nk - 1) {
        for (uint64_t r = 0; r < d->rows; r++) {
            int64_t gold = 0;
            for (uint64_t l = 0; l < nk; l++)
                gold += (int64_t)sgemm_a(d->row0 + r, l) * (int64_t)sgemm_b(l, j);
            float got = h[j * d->rows + r];
            if (got != (float)gold) {
                ctx->max_error = INFINITY;
                return gb_case_mismatch(ctx,
                                        "device %zu: C[%llu][%llu] = %.9g, expected %lld "
                                        "(exact: the inputs are small integers)",
                                        i, (unsigned long long)(d->row0 + r), (unsigned long long)j,
                                        got, (long long)gold);
            }
        }
        if (j == nk - 1)
            break;
    }
    return 0;
}

static int scaling_verify(struct gb_case_ctx *ctx)
{
    struct scaling *s = ctx->state;
    ctx->max_error = 0;
    int err = 0;
    for (size_t i = 0; i < s->team.n && !err; i++) {
        uint64_t n = s->sgemm ? s->d[i].rows * s->order : s->d[i].elems;
        float *h = malloc(n * sizeof(float));
        if (!h)
            return GB_FAIL(GB_ENOMEM, "read-back of %llu floats", (unsigned long long)n);
        err = s->sgemm ? verify_sgemm(ctx, s, i, h) : verify_triad(ctx, s, i, h);
        free(h);
    }
    return err;
}

static void scaling_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct scaling *s = ctx->state;
    (void)op_time_s;
    if (s->sgemm)
        gb_case_text(ctx, "impl", "%s", s->blas ? "blas" : "kernel");
}

static void scaling_teardown(struct gb_case_ctx *ctx)
{
    struct scaling *s = ctx->state;
    gb_multi_team_stop(ctx);
    for (size_t i = 0; i < GB_MAX_SET; i++) {
        struct scaling_dev *d = &s->d[i];
        gb_case_free_bufs(ctx, &d->a, &d->b, &d->c, NULL);
        gb_case_free_kernel(ctx, &d->k, &d->prog);
    }
}

const struct gb_suite gb_suite_scaling = {
    .name = "scaling",
    .summary = "multi-device strong and weak scaling: triad (GB/s) and SGEMM split by rows "
               "(GFLOP/s), with speedup and parallel efficiency",
    .axes = scaling_axes,
    .naxes = sizeof scaling_axes / sizeof scaling_axes[0],
    .case_axis = "workload",
    .state_size = sizeof(struct scaling),
    .normalize = scaling_normalize,
    .axis_applies = scaling_axis_applies,
    .setup = scaling_setup,
    .run = gb_multi_run,
    .verify = scaling_verify,
    .teardown = scaling_teardown,
    .flags = GB_SUITE_MULTI_DEVICE | GB_SUITE_SCALING,
    .figures = scaling_figures,
};
