/* sparse — pruning's payoff: a sparse weight matrix times dense activations against the dense
 * product of the same shape, measured in the same run, and the density where sparse starts to
 * win.
 *
 * One operation is C (m x n) = A (m x k) B (k x n), B and C dense and column-major, float, with A
 * (the weights of a linear layer, as C = W X):
 *   op spmm / spmv (n = 1): A unstructured, each entry kept with probability `density` (a
 *     seeded Bernoulli draw per entry: magnitude pruning of random weights leaves such a
 *     pattern), stored in CSR, through the backend's sparse library (cuSPARSE's generic SpMM /
 *     SpMV on CUDA; OpenCL has none: a recorded skip) or the own kernel (kernels/sparse.cl,
 *     csr_spmm, one work-item per element of C);
 *   op nm24: A pruned 2:4 by magnitude (the 2 largest |a| of every 4 consecutive entries of a row
 *     kept, NVIDIA's sparse tensor cores' pattern; k a multiple of 4), compressed to values and
 *     2-bit positions, through the own kernel (nm24_spmm). cuSPARSELt, the library path of 2:4,
 *     is not in this build: impl library is a recorded skip saying so;
 *   density 1 (any op): the dense baseline, the same product through the backend's BLAS
 *     (cuBLAS, CLBlast; impl is then library only, and nm24's is spmm's: one dense case): its
 *     GEMM, and for n = 1 (spmv) its GEMV (backend gemv: CLBlast Sgemv, cuBLAS Sgemv), a GEMM
 *     with n = 1 only where the backend has no GEMV; the text figure algo says which. A
 *     library's GEMM at n = 1 is no baseline for a matrix-vector product: CLBlast's Sgemm ran
 *     512 x 1 x 1024 slower on PoCL than 512 x 16 x 1024, and CSR at density 0.999 read 4.9x
 *     "faster than dense".
 * A density whose draw keeps no entry of A (1e-9 at 512 x 1024) is a recorded skip: there is
 * no product to time, and its rate would be a launch's.
 * The rate counts the work done: 2 nnz n for a sparse A, 2 m k n for the dense one, bounded by
 * the device's FP32 peak (the figures peak and of_peak; above it the result is implausible);
 * the figure dense_equiv_gflops counts 2 m k n for both, the rate a dense GEMM would need to
 * match it, bounded by that peak times m k / nnz (the same time, the dense work).
 *
 * After the run (sparse_derive) every sparse result of a shape and op gets speedup_vs_dense, the
 * dense baseline's time over its own (bounded by the baseline's time over the sparse product's
 * at the FP32 peak); the densest sparse result of each (op, impl, shape) gets
 * break_even_density, the density at which sparse and dense take the same time, interpolated
 * log-log between the two measured densities whose speedups straddle 1, with the text
 * break_even saying how it was found (or that sparse won, or lost, at every density measured).
 *
 * Accuracy: A's kept values and B are U(-1, 1) draws rounded to float; every element of C (or
 * the corners and 4092 seeded ones of a large C) is checked against the FP64 product of the
 * stored A, relative to sum |a||b| of its row's terms, within the f32 GEMM bound for the longest
 * row (gb__gemm_tolerance). nm24 also reports prune_max_error / prune_rms_error: the pruned
 * product's error against the unpruned A's, what the pruning costs in accuracy.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "backends/precision.h"
#include "base/util.h"
#include "suites/common.h"
#include "suites/gemm_tolerance.h"
#include "suites/presets.h"
#include "suites/sparse_state.h"

static const char *const ops[] = {"spmm", "spmv", "nm24", NULL};
static const char *const impls[] = {"library", "own", NULL};

static bool shape_check(const char *s, char *why, size_t len);
static bool density_check(double v, char *why, size_t len)
{
    if (v > 0 && v <= 1)
        return true;
    snprintf(why, len,
             "a density is a fraction of the entries kept, in (0, 1] (1: the dense "
             "baseline)");
    return false;
}
static size_t shape_expand(const char *value, char (*out)[GB_STR_MAX], size_t cap)
{
    return gb_preset_expand(value, GB_PRESET_GEMM, out, cap);
}

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("op", "[spmm, spmv]", ops,
                "spmm: CSR A times dense B; spmv: CSR A times a vector (n = 1); nm24: A pruned 2:4 "
                "(own kernel; cuSPARSELt not built in)"),
    GB_AXIS_STR("impl", "[library, own]", impls,
                "library: cuSPARSE (CUDA; OpenCL has none); own: kernels/sparse.cl"),
    GB_AXIS_FLOAT("density", "[1, 0.5, 0.2, 0.1, 0.05, 0.01, 0.001]",
                  "the fraction of A's entries kept, in (0, 1]; 1: the dense baseline through the "
                  "BLAS (nm24: 0.5, or 1 for its baseline)",
                  .check_float = density_check),
    GB_AXIS_STR("shape", "1024x64x1024", NULL,
                "MxNxK (A M x K, B K x N; spmv takes N = 1), or a gemm model preset or layer "
                "(llama3-8b-decode-b8.ffn_down: M out features, K in, N tokens)",
                .check = shape_check, .expand = shape_expand),
};

static bool shape_check(const char *s, char *why, size_t len)
{
    uint64_t m, n, k;
    const struct gb_preset *p;
    const struct gb_preset_layer *l;
    if (gb_parse_mnk(s, &m, &n, &k) || gb_preset_layer_find(s, GB_PRESET_GEMM, &p, &l, &m) ||
        gb_preset_expand(s, GB_PRESET_GEMM, NULL, 0) > 0)
        return true;
    snprintf(why, len,
             "expected MxNxK or a gemm model preset (bert-large, llama3-8b-prefill, "
             "llama3-8b-decode, resnet50; -bN for a batch) or one of its layers");
    return false;
}

/* Densities are (0, 1]; nm24 keeps half (0.5) or is its dense baseline (1); the dense baseline
 * has one implementation (the BLAS). */
static bool sparse_normalize(struct gb_params *p)
{
    double *d = NULL;
    const char *op = NULL;
    char *impl = NULL;
    for (size_t i = 0; i < p->n; i++) {
        if (strcmp(p->name[i], "density") == 0)
            d = &p->v[i].u.f;
        else if (strcmp(p->name[i], "op") == 0)
            op = p->v[i].s;
        else if (strcmp(p->name[i], "impl") == 0)
            impl = p->v[i].s;
    }
    if (!d || !op || !impl || !(*d > 0) || *d > 1)
        return false;
    if (strcmp(op, "nm24") == 0 && *d < 1)
        *d = 0.5;
    if (*d == 1) {
        /* One dense baseline per shape and n: spmm's serves nm24 too (the same product). */
        snprintf(impl, GB_STR_MAX, "library");
        if (strcmp(op, "nm24") == 0)
            for (size_t i = 0; i < p->n; i++)
                if (strcmp(p->name[i], "op") == 0)
                    snprintf(p->v[i].s, sizeof p->v[i].s, "spmm");
    }
    return true;
}

struct sparse {
    struct gb_test_hook hook; /* first: tests build broken kernels through it */
    bool own, dense, nm24, gemv;
    uint64_t m, n, k, nnz, max_row;
    double density;
    int32_t *row_ptr, *col; /* CSR of A (host) */
    float *val;
    double *a_full; /* nm24 and dense: A as drawn, row-major m x k */
    float *b;       /* k x n column-major */
    float *vals24;  /* nm24: kept values, m x k/2 */
    uint8_t *idx24;
    struct gb_buf *d_rp, *d_col, *d_val, *d_b, *d_c, *d_a;
    struct gb_spmm_plan *plan;
    struct gb_gemm g;
    struct gb_program *prog;
    struct gb_kernel *kern;
    struct gb_launch l;
    char config[64];
    double rms, tolerance, prune_max, prune_rms;
};

static float draw(uint64_t *s)
{
    return (float)((double)(gb_splitmix64(s) >> 11) * 0x1p-52 - 1.0);
}

static int upload(struct gb_case_ctx *ctx, const void *h, uint64_t bytes, struct gb_buf **out)
{
    int err = gb_case_alloc(ctx, bytes ? bytes : 4, GB_MEM_DEVICE, out);
    return err || !bytes || !h ? err : gb_case_upload(ctx, *out, h, bytes);
}

/* A's dense draw (row-major), for the dense baseline and 2:4. */
static int draw_dense(struct sparse *s, uint64_t *seed)
{
    s->a_full = malloc(s->m * s->k * sizeof *s->a_full);
    if (!s->a_full)
        return GB_FAIL(GB_ENOMEM, "A of %llu x %llu", (unsigned long long)s->m,
                       (unsigned long long)s->k);
    for (uint64_t i = 0; i < s->m * s->k; i++)
        s->a_full[i] = draw(seed);
    return 0;
}

/* The CSR draw: every entry kept with probability density. */
static int draw_csr(struct sparse *s, uint64_t *seed)
{
    const double expect = (double)s->m * (double)s->k * s->density;
    const uint64_t cap = (uint64_t)(expect + 6 * sqrt(expect) + 16);
    s->row_ptr = malloc((s->m + 1) * sizeof *s->row_ptr);
    s->col = malloc(cap * sizeof *s->col);
    s->val = malloc(cap * sizeof *s->val);
    if (!s->row_ptr || !s->col || !s->val)
        return GB_FAIL(GB_ENOMEM, "CSR of about %.0f entries", expect);
    const uint64_t thresh = (uint64_t)(s->density * 0x1p53);
    uint64_t nnz = 0;
    s->row_ptr[0] = 0;
    for (uint64_t i = 0; i < s->m; i++) {
        for (uint64_t l = 0; l < s->k; l++)
            if ((gb_splitmix64(seed) >> 11) < thresh) {
                if (nnz == cap)
                    return GB_FAIL(GB_ENOMEM, "CSR: more than %llu entries drawn",
                                   (unsigned long long)cap);
                s->col[nnz] = (int32_t)l;
                s->val[nnz++] = draw(seed);
            }
        s->row_ptr[i + 1] = (int32_t)nnz;
        const uint64_t len = nnz - (uint64_t)s->row_ptr[i];
        s->max_row = len > s->max_row ? len : s->max_row;
    }
    s->nnz = nnz;
    return 0;
}

/* 2:4 by magnitude: in every group of 4 of a row, the 2 largest |a| (the earlier on a tie). */
static void prune24(struct sparse *s, bool unpruned)
{
    const uint64_t half = s->k / 2;
    for (uint64_t i = 0; i < s->m; i++)
        for (uint64_t g = 0; g < s->k / 4; g++) {
            const double *a = &s->a_full[i * s->k + 4 * g];
            int first = 0;
            for (int t = 1; t < 4; t++)
                if (fabs(a[t]) > fabs(a[first]))
                    first = t;
            int second = first == 0 ? 1 : 0;
            for (int t = 0; t < 4; t++)
                if (t != first && fabs(a[t]) > fabs(a[second]))
                    second = t;
            const int lo = first < second ? first : second, hi = first ^ second ^ lo;
            s->idx24[i * half + 2 * g] = (uint8_t)lo;
            s->idx24[i * half + 2 * g + 1] = (uint8_t)hi;
            /* The test define GB_UNPRUNED stores the group's first two values whatever was
             * kept: unpruned weights read as pruned. */
            s->vals24[i * half + 2 * g] = (float)a[unpruned ? 0 : lo];
            s->vals24[i * half + 2 * g + 1] = (float)a[unpruned ? 1 : hi];
        }
    s->nnz = s->m * half;
    s->max_row = half;
}

static int build(struct gb_case_ctx *ctx, struct sparse *s, const char *kernel)
{
    const char *defs[1];
    size_t nd = 0;
    if (s->hook.test_define && strncmp(s->hook.test_define, "GB_BREAK", 8) == 0)
        defs[nd++] = s->hook.test_define;
    int err = gb_case_build(ctx, "sparse.cl", kernel, defs, nd, &s->prog, &s->kern);
    if (err)
        return err;
    uint32_t kmax = 0;
    if ((err = ctx->ops->kernel_max_wg(s->kern, &kmax)))
        return err;
    uint32_t wg = 64;
    const uint32_t lim = kmax < ctx->dev->info.max_wg_size ? kmax : ctx->dev->info.max_wg_size;
    while (wg > 1 && wg > lim)
        wg /= 2;
    const uint64_t items = s->m * s->n;
    s->l = (struct gb_launch){
        .dims = 1, .global = {(items + wg - 1) / wg * wg, 1, 1}, .local = {wg, 1, 1}};
    snprintf(s->config, sizeof s->config, "own %s, wg %u", kernel, wg);
    return 0;
}

static struct gb_arg buf_arg(struct gb_buf *b)
{
    return (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = b};
}
static struct gb_arg u64_arg(uint64_t v)
{
    return (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = v};
}

static int sparse_setup(struct gb_case_ctx *ctx)
{
    struct sparse *s = ctx->state;
    const struct gb_params *pa = ctx->params;
    const char *op = gb_params_str(pa, "op");
    s->own = strcmp(gb_params_str(pa, "impl"), "own") == 0;
    s->density = gb_params_float(pa, "density");
    s->dense = s->density >= 1;
    s->nm24 = strcmp(op, "nm24") == 0 && !s->dense;
    const char *shape = gb_params_str(pa, "shape");
    if (!gb_preset_gemm_mnk(shape, &s->m, &s->n, &s->k, NULL))
        return GB_FAIL(GB_EINVAL, "shape \"%s\": expected MxNxK or a preset", shape);
    if (strcmp(op, "spmv") == 0)
        s->n = 1;
    const double bytes = ((double)s->m * (double)s->k * (s->dense || s->nm24 ? 2.0 : 1.0) +
                          (double)s->k * (double)s->n + (double)s->m * (double)s->n) *
                         4.0;
    /* The host's copies: A's draw in FP64 and floats (dense, 2:4), or CSR's column, value and
     * the drawn entries' slack (about 10 bytes an entry), B, and C read back. */
    const double entries = (double)s->m * (double)s->k * (s->dense || s->nm24 ? 1.0 : s->density);
    const double host = entries * (s->dense || s->nm24 ? 14.0 : 10.0) +
                        ((double)s->k * (double)s->n + (double)s->m * (double)s->n) * 4.0;
    if (host > 0x1p35)
        return gb_case_skip(ctx,
                            "the host's copies of A, B and C need about %.3g bytes (at "
                            "most 32 GiB here)",
                            host);
    if (!s->dense && !s->nm24 && entries + 6 * sqrt(entries) + 16 >= (double)INT32_MAX)
        return gb_case_skip(ctx,
                            "about %.3g non-zeros: CSR's int32 offsets hold at most "
                            "2^31 - 1",
                            entries);
    if (s->m > INT32_MAX || s->k > INT32_MAX || s->n > INT32_MAX ||
        (ctx->dev->info.global_mem && bytes > (double)ctx->dev->info.global_mem) || bytes > 0x1p36)
        return gb_case_skip(ctx,
                            "A, B and C need about %.3g bytes (at most 64 GiB here, and the "
                            "device's memory)",
                            bytes);
    if (s->nm24 && s->k % 4)
        return gb_case_skip(ctx, "2:4 sparsity needs k a multiple of 4 (k = %llu)",
                            (unsigned long long)s->k);
    if (s->nm24 && !s->own)
        return gb_case_skip(ctx, "2:4 through the library needs cuSPARSELt, which this build "
                                 "does not load: the own kernel measures the format");
    if (s->dense && !(ctx->dev->info.caps & GB_CAP_BLAS_F32))
        return gb_case_skip(ctx, "the dense baseline needs the %s backend's BLAS (%s)",
                            ctx->ops->name,
                            ctx->ops->gemm ? "not on this device" : "none built in");
    if (!s->dense && !s->nm24 && !s->own && !ctx->ops->spmm_plan)
        return gb_case_skip(ctx, "no sparse library in the %s backend (%s)", ctx->ops->name,
                            ctx->ops->facts.sparse_absent ? ctx->ops->facts.sparse_absent : "none");

    uint64_t seed = 0x5A5EEDull ^ s->m ^ (s->k << 21) ^ (uint64_t)(s->density * 1e9);
    int err;
    s->b = malloc(s->k * s->n * sizeof *s->b);
    if (!s->b)
        return GB_FAIL(GB_ENOMEM, "B of %llu x %llu", (unsigned long long)s->k,
                       (unsigned long long)s->n);
    for (uint64_t i = 0; i < s->k * s->n; i++)
        s->b[i] = draw(&seed);
    if ((err = upload(ctx, s->b, s->k * s->n * 4, &s->d_b)) ||
        (err = upload(ctx, NULL, s->m * s->n * 4, &s->d_c)))
        return err;

    if (s->dense || s->nm24) {
        if ((err = draw_dense(s, &seed)))
            return err;
    }
    if (s->dense) {
        /* A column-major for the BLAS: a[i + l m]. */
        float *a = malloc(s->m * s->k * sizeof *a);
        if (!a)
            return GB_FAIL(GB_ENOMEM, "A of %llu x %llu", (unsigned long long)s->m,
                           (unsigned long long)s->k);
        for (uint64_t i = 0; i < s->m; i++)
            for (uint64_t l = 0; l < s->k; l++)
                a[i + l * s->m] = (float)s->a_full[i * s->k + l];
        err = upload(ctx, a, s->m * s->k * 4, &s->d_a);
        free(a);
        if (err)
            return err;
        s->nnz = s->m * s->k;
        s->max_row = s->k;
        s->g = (struct gb_gemm){.a_type = GB_F32,
                                .c_type = GB_F32,
                                .compute = GB_F32,
                                .m = s->m,
                                .n = s->n,
                                .k = s->k,
                                .alpha = 1,
                                .beta = 0,
                                .a = s->d_a,
                                .b = s->d_b,
                                .c = s->d_c,
                                .lda = s->m,
                                .ldb = s->k,
                                .ldc = s->m,
                                .batch = 1};
        /* A matrix-vector product's baseline is the library's GEMV where the backend has one. */
        s->gemv = s->n == 1 && ctx->ops->gemv;
        snprintf(s->config, sizeof s->config, "dense %s BLAS %s", ctx->ops->name,
                 s->gemv     ? "gemv"
                 : s->n == 1 ? "gemm, n = 1 (no gemv)"
                             : "gemm");
        err = s->gemv ? ctx->ops->gemv(ctx->q, &s->g) : ctx->ops->gemm(ctx->q, &s->g);
        if (err == GB_EUNSUPPORTED)
            return gb_case_skip(ctx, "%s", gb_error_msg());
    } else if (s->nm24) {
        /* One work-item runs k / 4 groups of its row (kernels/sparse.cl's nm24_spmm): past the
         * driver's loop limit the shape skips. */
        if ((err = gb_case_loop_fits(ctx, s->k / 4, "own kernel nm24_spmm", NULL)))
            return err;
        const uint64_t half = s->m * (s->k / 2);
        s->vals24 = malloc(half * sizeof *s->vals24);
        s->idx24 = malloc(half);
        if (!s->vals24 || !s->idx24)
            return GB_FAIL(GB_ENOMEM, "2:4 A of %llu entries", (unsigned long long)half);
        prune24(s, s->hook.test_define && strcmp(s->hook.test_define, "GB_UNPRUNED") == 0);
        /* The reference is the pruned A (the kept values at their positions). */
        if ((err = upload(ctx, s->vals24, half * 4, &s->d_val)) ||
            (err = upload(ctx, s->idx24, half, &s->d_col)) || (err = build(ctx, s, "nm24_spmm")))
            return err;
        s->l.nargs = 7;
        s->l.args[0] = buf_arg(s->d_val), s->l.args[1] = buf_arg(s->d_col);
        s->l.args[2] = buf_arg(s->d_b), s->l.args[3] = buf_arg(s->d_c);
        s->l.args[4] = u64_arg(s->m), s->l.args[5] = u64_arg(s->n), s->l.args[6] = u64_arg(s->k);
        err = ctx->ops->launch(ctx->q, s->kern, &s->l);
    } else {
        if ((err = draw_csr(s, &seed)) ||
            (err = upload(ctx, s->row_ptr, (s->m + 1) * 4, &s->d_rp)) ||
            (err = upload(ctx, s->col, s->nnz * 4, &s->d_col)) ||
            (err = upload(ctx, s->val, s->nnz * 4, &s->d_val)))
            return err;
        if (s->nnz == 0)
            return gb_case_skip(ctx,
                                "density %.3g keeps no entry of the %llu x %llu A (about %.3g "
                                "expected): no product to time",
                                s->density, (unsigned long long)s->m, (unsigned long long)s->k,
                                (double)s->m * (double)s->k * s->density);
        if (s->own) {
            /* One work-item runs the entries of its row (csr_spmm): a row longer than the
             * driver's loop limit skips. */
            if ((err = gb_case_loop_fits(ctx, s->max_row, "own kernel csr_spmm", "longest row")))
                return err;
            if ((err = build(ctx, s, "csr_spmm")))
                return err;
            s->l.nargs = 8;
            s->l.args[0] = buf_arg(s->d_rp), s->l.args[1] = buf_arg(s->d_col);
            s->l.args[2] = buf_arg(s->d_val), s->l.args[3] = buf_arg(s->d_b);
            s->l.args[4] = buf_arg(s->d_c), s->l.args[5] = u64_arg(s->m);
            s->l.args[6] = u64_arg(s->n), s->l.args[7] = u64_arg(s->k);
            err = ctx->ops->launch(ctx->q, s->kern, &s->l);
        } else {
            const struct gb_spmm sp = {.m = s->m,
                                       .n = s->n,
                                       .k = s->k,
                                       .nnz = s->nnz,
                                       .row_ptr = s->d_rp,
                                       .col = s->d_col,
                                       .val = s->d_val,
                                       .b = s->d_b,
                                       .c = s->d_c};
            err = ctx->ops->spmm_plan(ctx->q, &sp, &s->plan);
            if (err == GB_EUNSUPPORTED)
                return gb_case_skip(ctx, "%s", gb_error_msg());
            if (!err) {
                snprintf(s->config, sizeof s->config, "%s", s->plan->algo);
                err = ctx->ops->spmm_run(s->plan);
            }
        }
    }
    if (err || (err = ctx->ops->queue_sync(ctx->q)) ||
        (err = gb_case_poison(ctx, s->d_c, s->m * s->n * 4, GB_F32)))
        return err;
    ctx->op.flops = 2.0 * (double)s->nnz * (double)s->n;
    ctx->op.timer = GB_TIMER_DEVICE;
    return 0;
}

static int sparse_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct sparse *s = ctx->state;
    int err = 0;
    for (uint64_t r = 0; r < reps && !err; r++)
        err = s->gemv    ? ctx->ops->gemv(ctx->q, &s->g)
              : s->dense ? ctx->ops->gemm(ctx->q, &s->g)
              : s->plan  ? ctx->ops->spmm_run(s->plan)
                         : ctx->ops->launch(ctx->q, s->kern, &s->l);
    return err;
}

/* Element (i, j) of the stored A times B in long double, with sum |a||b| in *mag; and, for 2:4,
 * the unpruned A's product in *full (its magnitude in *full_mag). */
static double ref_elem(const struct sparse *s, uint64_t i, uint64_t j, double *mag, double *full,
                       double *full_mag)
{
    long double sum = 0, m = 0, fs = 0, fm = 0;
    const float *bj = s->b + j * s->k;
    if (s->dense || s->nm24) {
        for (uint64_t l = 0; l < s->k; l++) {
            const long double p = (long double)(float)s->a_full[i * s->k + l] * bj[l];
            fs += p;
            fm += fabsl(p);
        }
    }
    if (s->dense) {
        sum = fs, m = fm;
    } else if (s->nm24) {
        const uint64_t half = s->k / 2;
        for (uint64_t t = 0; t < half; t++) {
            const uint64_t col = 4 * (t / 2) + s->idx24[i * half + t];
            /* The pruned A: the kept values of the drawn A (not what was uploaded). */
            const long double p = (long double)(float)s->a_full[i * s->k + col] * bj[col];
            sum += p;
            m += fabsl(p);
        }
    } else {
        for (int32_t p = s->row_ptr[i]; p < s->row_ptr[i + 1]; p++) {
            const long double t = (long double)s->val[p] * bj[s->col[p]];
            sum += t;
            m += fabsl(t);
        }
    }
    *mag = (double)m;
    *full = (double)fs;
    *full_mag = (double)fm;
    return (double)sum;
}

static int sparse_verify(struct gb_case_ctx *ctx)
{
    struct sparse *s = ctx->state;
    const uint64_t nc = s->m * s->n;
    int err;
    float *c = gb_case_read_back(ctx, s->d_c, nc * 4, &err);
    if (!c)
        return err;
    struct gb_accuracy acc, prune;
    gb_accuracy_init(&acc);
    gb_accuracy_init(&prune);
    const bool all = (double)nc * (double)(s->dense || s->nm24 ? s->k : s->max_row + 1) <= 0x1p26;
    const uint64_t count = all ? nc : 4096;
    uint64_t seed = 0xC0FFEEull;
    for (uint64_t t = 0; t < count; t++) {
        uint64_t i, j;
        if (all)
            i = t % s->m, j = t / s->m;
        else if (t < 4)
            i = t & 1 ? s->m - 1 : 0, j = t & 2 ? s->n - 1 : 0;
        else
            i = gb_splitmix64(&seed) % s->m, j = gb_splitmix64(&seed) % s->n;
        double mag, full, full_mag;
        const double ref = ref_elem(s, i, j, &mag, &full, &full_mag);
        gb_accuracy_add(&acc, i + j * s->m, c[i + j * s->m], ref, mag);
        if (s->nm24)
            gb_accuracy_add(&prune, i + j * s->m, ref, full, full_mag);
    }
    free(c);
    s->tolerance = gb__gemm_tolerance(GP_F32, s->max_row ? s->max_row : 1);
    s->rms = gb_accuracy_rms(&acc);
    s->prune_max = prune.max_rel;
    s->prune_rms = gb_accuracy_rms(&prune);
    ctx->max_error = acc.max_rel;
    if (!(acc.max_rel <= s->tolerance))
        return gb_case_mismatch(ctx,
                                "failed-accuracy: max relative error %.3g > tolerance %.3g "
                                "(C(%llu,%llu) = %.9g, FP64 reference %.9g; %llu elements, %llu "
                                "not finite; %s)",
                                acc.max_rel, s->tolerance, (unsigned long long)(acc.worst % s->m),
                                (unsigned long long)(acc.worst / s->m), acc.worst_got,
                                acc.worst_ref, (unsigned long long)acc.n,
                                (unsigned long long)acc.nonfinite, s->config);
    return 0;
}

static void sparse_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct sparse *s = ctx->state;
    gb_case_accuracy_figures(ctx, s->rms, s->tolerance);
    gb_case_text(ctx, "algo", "%s", s->config);
    gb_case_figure(ctx, "nnz", "", (double)s->nnz);
    /* The dense work in the time of the sparse one: at most the peak times the work ratio. */
    const double peak = gb_peak_ops(&ctx->dev->info, GB_PEAK_F32, !s->own, NULL, 0) / 1e9;
    if (op_time_s > 0 && s->nnz > 0)
        gb_case_figure_bounded(ctx, "dense_equiv_gflops", "GFLOP/s",
                               2.0 * (double)s->m * (double)s->n * (double)s->k / op_time_s / 1e9,
                               peak * (double)s->m * (double)s->k / (double)s->nnz);
    if (s->plan)
        gb_case_figure(ctx, "workspace_bytes", "B", (double)s->plan->workspace_bytes);
    if (s->nm24) {
        gb_case_figure(ctx, "prune_max_error", "", s->prune_max);
        gb_case_figure(ctx, "prune_rms_error", "", s->prune_rms);
    }
}

static void sparse_teardown(struct gb_case_ctx *ctx)
{
    struct sparse *s = ctx->state;
    if (s->plan)
        ctx->ops->spmm_plan_free(s->plan);
    s->plan = NULL;
    gb_case_free_bufs(ctx, &s->d_rp, &s->d_col, &s->d_val, &s->d_b, &s->d_c, &s->d_a, NULL);
    gb_case_free_kernel(ctx, &s->kern, &s->prog);
    free(s->row_ptr), free(s->col), free(s->val), free(s->a_full), free(s->b);
    free(s->vals24), free(s->idx24);
    s->row_ptr = s->col = NULL;
    s->val = s->b = s->vals24 = NULL;
    s->a_full = NULL;
    s->idx24 = NULL;
}

/* ---- the break-even density ------------------------------------------------------------ */

/* The op whose dense baseline a sparse op uses: spmv's own (n = 1), else spmm's. */
static const char *base_op(const char *op)
{
    return strcmp(op, "spmv") == 0 ? "spmv" : "spmm";
}

/* Whether b is a's case but for the density (impl_too: and of a's implementation); with
 * impl_too false, b's op is the op of a's dense baseline (base_op). */
static bool same_case(const struct gb_result *a, const struct gb_result *b, bool impl_too)
{
    const bool op = impl_too ? strcmp(a->case_name, b->case_name) == 0
                             : strcmp(base_op(a->case_name), b->case_name) == 0;
    return strcmp(a->suite, b->suite) == 0 && a->device_index == b->device_index &&
           strcmp(a->backend, b->backend) == 0 && op &&
           strcmp(gb_params_str(&a->params, "shape"), gb_params_str(&b->params, "shape")) == 0 &&
           (!impl_too ||
            strcmp(gb_params_str(&a->params, "impl"), gb_params_str(&b->params, "impl")) == 0);
}

void gb__sparse_break_even(const double *density, const double *speedup, size_t n, double *at,
                           int *how)
{
    /* Densest first. */
    *at = NAN;
    *how = 0;
    if (n == 0)
        return;
    bool all_win = true, all_lose = true;
    for (size_t i = 0; i < n; i++)
        all_win &= speedup[i] >= 1, all_lose &= speedup[i] < 1;
    if (all_win || all_lose) {
        *how = all_win ? 1 : -1;
        return;
    }
    /* From the densest: the first measured density at which sparse loses followed by one at
     * which it wins; log speedup is taken as linear in log density between them. */
    for (size_t i = 0; i + 1 < n; i++) {
        const double d0 = density[i], d1 = density[i + 1], s0 = speedup[i], s1 = speedup[i + 1];
        if (s0 < 1 && s1 >= 1) {
            const double t = log(s0) / (log(s0) - log(s1)); /* 0 at d0, 1 at d1 */
            *at = exp(log(d0) + t * (log(d1) - log(d0)));
            *how = 2;
            return;
        }
    }
    *how = 3; /* wins and losses interleave: no single crossing */
}

/* The headline's bound: FP32 arithmetic, on the vector units for the own kernels, the most a
 * library may reach otherwise. */
static double sparse_peak(const struct gb_result *r, const struct gb_device_info *info, char *how,
                          size_t len)
{
    const bool own = strcmp(gb_params_str(&r->params, "impl"), "own") == 0;
    return gb_peak_ops(info, GB_PEAK_F32, !own, how, len) / 1e9;
}

static int sparse_derive(struct gb_results *rs)
{
    gb_precision_check_peaks(rs, "sparse", sparse_peak);
    const size_t n0 = rs->nresults, cap = n0 ? n0 : 1;
    bool *used = calloc(cap, sizeof *used);
    double *dens = malloc(cap * sizeof *dens), *spd = malloc(cap * sizeof *spd);
    size_t *idx = malloc(cap * sizeof *idx);
    if (!used || !dens || !spd || !idx) {
        free(used), free(dens), free(spd), free(idx);
        return GB_ENOMEM;
    }
    for (size_t i = 0; i < n0; i++) {
        const struct gb_result *r = &rs->results[i];
        if (used[i] || strcmp(r->suite, "sparse") || r->status != GB_STATUS_OK ||
            gb_params_float(&r->params, "density") >= 1)
            continue;
        /* The dense baseline of this op and shape. */
        const struct gb_result *base = NULL;
        for (size_t j = 0; j < n0 && !base; j++) {
            const struct gb_result *d = &rs->results[j];
            if (d->status == GB_STATUS_OK && gb_params_float(&d->params, "density") >= 1 &&
                same_case(r, d, false) && d->op_time_us.median > 0)
                base = d;
        }
        /* The group, sorted densest first (insertion sort: a handful of densities). */
        size_t n = 0;
        for (size_t j = i; j < n0; j++) {
            const struct gb_result *o = &rs->results[j];
            if (used[j] || o->status != GB_STATUS_OK || !same_case(r, o, true) ||
                gb_params_float(&o->params, "density") >= 1 || !(o->op_time_us.median > 0))
                continue;
            used[j] = true;
            const double d = gb_params_float(&o->params, "density");
            size_t at = n++;
            while (at > 0 && dens[at - 1] < d) {
                dens[at] = dens[at - 1];
                idx[at] = idx[at - 1];
                at--;
            }
            dens[at] = d;
            idx[at] = j;
        }
        if (!base)
            continue;
        for (size_t t = 0; t < n; t++) {
            struct gb_result *o = &rs->results[idx[t]];
            spd[t] = base->op_time_us.median / o->op_time_us.median;
            /* The sparse product can take no less than its work at the peak. */
            const double peak = gb_result_scalar(o, "peak"),
                         fastest_us = o->flops_per_op / (peak * 1e9) * 1e6;
            if (peak > 0 && fastest_us > 0)
                gb_result_figure_bounded(o, "speedup_vs_dense", "", spd[t],
                                         base->op_time_us.median / fastest_us);
            else
                gb_result_figure(o, "speedup_vs_dense", "", spd[t]);
        }
        double at;
        int how;
        gb__sparse_break_even(dens, spd, n, &at, &how);
        struct gb_result *d = &rs->results[idx[0]];
        if (how == 2) {
            gb_result_figure(d, "break_even_density", "", at);
            gb_result_text(d, "break_even", "log-log between measured densities");
        } else if (how == 1) {
            gb_result_text(d, "break_even", "above %.3g: sparse won at every density", dens[0]);
        } else if (how == -1) {
            gb_result_text(d, "break_even", "below %.3g: dense won at every density", dens[n - 1]);
        } else if (how == 3) {
            gb_result_text(d, "break_even", "no crossing from dense: sparse wins only denser");
        }
    }
    free(used), free(dens), free(spd), free(idx);
    return 0;
}

/* The dense product's arithmetic, 2 m n k, an upper bound of the sparse one's (validate). */
static double sparse_op_flops(const struct gb_params *p)
{
    uint64_t m, n, k;
    const bool spmv = strcmp(gb_params_str(p, "op"), "spmv") == 0;
    if (gb_preset_gemm_mnk(gb_params_str(p, "shape"), &m, &n, &k, NULL))
        return 2.0 * (double)m * (double)k * (spmv ? 1.0 : (double)n);
    return 0;
}

/* What a case holds at once (gb_suite.footprint), as sparse_setup estimates it: A on the device
 * (dense and 2:4: m x k floats and as much again; CSR: its entries), B and C (4 bytes an
 * element); on the host A's copies (14 bytes an entry dense or 2:4, 10 for CSR), B and C, and
 * the staging of the largest upload. */
static void sparse_footprint(const struct gb_params *p, const struct gb_device_info *info,
                             struct gb_footprint *fp)
{
    (void)info;
    const char *op = gb_params_str(p, "op");
    uint64_t m, n, k;
    if (!gb_preset_gemm_mnk(gb_params_str(p, "shape"), &m, &n, &k, NULL))
        return;
    const double density = gb_params_float(p, "density");
    const bool full = density >= 1 || strcmp(op, "nm24") == 0;
    const double mk = (double)m * (double)k, bc = (double)k * (strcmp(op, "spmv") ? (double)n : 1),
                 cc = (double)m * (strcmp(op, "spmv") ? (double)n : 1);
    const double entries = full ? mk : mk * density;
    const double a = (full ? 2 * mk : entries) * 4;
    const double largest = fmax(full ? 4 * mk : 4 * entries, 4 * fmax(bc, cc));
    *fp = (struct gb_footprint){.host = entries * (full ? 14.0 : 10.0) + (bc + cc) * 4 + largest,
                                .device = a + (bc + cc) * 4,
                                .largest = largest};
}

const struct gb_suite gb_suite_sparse = {
    .name = "sparse",
    .summary = "pruning's payoff: CSR (cuSPARSE, own) and 2:4 sparse times dense against the dense "
               "GEMM of the same shape, and the break-even density",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "op",
    .state_size = sizeof(struct sparse),
    .normalize = sparse_normalize,
    .setup = sparse_setup,
    .run = sparse_run,
    .verify = sparse_verify,
    .teardown = sparse_teardown,
    .figures = sparse_figures,
    .derive = sparse_derive,
    .chart = {.kind = GB_CHART_LINE, .x = "density"},
    .op_flops = sparse_op_flops,
    .footprint = sparse_footprint,
};
