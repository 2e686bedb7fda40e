/* compute — peak arithmetic throughput per precision: FP64, FP32, FP16 (scalar and half2), BF16,
 * 4-way INT8 dot products and INT32.
 *
 * Each case launches kernels/compute.cl's kernel for its precision: every work-item runs
 * `chains` independent chains (x `vec` lanes) of `iters` dependent multiply-adds and writes the
 * end of every chain (the kernel file has the formulas). One operation is one launch of
 * groups x compute units work-groups of `wg` work-items; it computes
 *   work-items x chains x lanes x iters x (2 per FMA / integer multiply-add, 8 per dp4a)
 * operations, from which the harness derives GFLOP/s (GOP/s for the integer precisions).
 *
 * Verification: the output is poisoned in setup (NaN, integers 0xDEADBEEF: gb_case_poison), so
 * an unwritten chain shows. Floats: the host replays every chain of 32 sampled work-items (the
 * first, the last and 30 seeded at random) step by step in the kernel's arithmetic — fma() for
 * FP32/FP64, an exact double product rounded once to half or bfloat16 — and requires the
 * device's values within 2 units in the last place; and every chain of every work-item must be
 * finite and have grown from its start, so a chain that was never computed or written shows.
 * Integers: every chain of every work-item is checked, equal to the bit. INT32's step is an
 * affine map mod 2^32, so `iters` steps are one affine map, composed by repeated squaring; its
 * constants (a = 1 mod 4, b odd) give the map the full period 2^32 (Hull and Dobell, SIAM Review
 * 1962), so a chain that did not move shows as such. A dp4a step maps any value into
 * [z - 65536, z + 65536] (four products of signed bytes), so the host tabulates the map there
 * and composes the table `iters - 1` times, again by squaring. The largest relative difference
 * is the result's max_error.
 *
 * Devices without a precision's arithmetic skip it with the reason (PoCL: no cl_khr_fp16, so no
 * FP16 or half2; OpenCL has no bfloat16 arithmetic; dp4a needs CUDA sm_61+ or OpenCL's packed
 * 4x8-bit dot product). After the run, every result gets its theoretical peak (backends/precision.h)
 * and the fraction of it reached; a figure above the peak is flagged implausible.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/precision.h"
#include "suites/common.h"
#include "suites/compute_state.h"

static const char *const precs[] = {"f64", "f32", "f16", "half2", "bf16", "int8dot", "i32", NULL};

static const struct {
    const char *kernel;
    size_t esize;      /* bytes of one output element */
    unsigned lanes;    /* elements per chain besides VEC (half2, bf16: 2) */
    double ops;        /* operations per element per step */
    uint64_t cap;      /* capability needed (0: none) */
    const char *lacks; /* the skip reason when the capability is missing */
    double a, b;       /* the step's constants (int8dot: y and z) */
    double ulps;       /* verification tolerance: 2 ulps of the type, relative */
    enum gb_peak_op peak;
} cp[CP_COUNT] = {
    [CP_F64] = {"compute_f64", 8, 1, 2, GB_CAP_FP64, "the device has no double precision (fp64)",
                1.0 - 0x1p-20, 0x1p-12, 0x1p-51, GB_PEAK_F64},
    [CP_F32] = {"compute_f32", 4, 1, 2, 0, NULL, 1.0 - 0x1p-20, 0x1p-12, 0x1p-22, GB_PEAK_F32},
    [CP_F16] = {"compute_f16", 2, 1, 2, GB_CAP_FP16,
                "the device has no half-precision arithmetic (OpenCL: no cl_khr_fp16)",
                1.0 - 0x1p-10, 0x1p-6, 0x1p-9, GB_PEAK_F16},
    [CP_HALF2] = {"compute_half2", 2, 2, 2, GB_CAP_FP16,
                  "the device has no half-precision arithmetic (OpenCL: no cl_khr_fp16)",
                  1.0 - 0x1p-10, 0x1p-6, 0x1p-9, GB_PEAK_F16},
    [CP_BF16] = {"compute_bf16", 2, 2, 2, GB_CAP_BF16,
                 "the device has no bfloat16 arithmetic (CUDA sm_80 and later only; OpenCL has "
                 "none)",
                 1.0 - 0x1p-7, 0x1p-3, 0x1p-6, GB_PEAK_BF16},
    [CP_INT8DOT] = {"compute_int8dot", 4, 1, 8, GB_CAP_INT8_DOT,
                    "the device has no 4-way int8 dot product (CUDA dp4a needs sm_61; OpenCL "
                    "needs the packed 4x8-bit integer dot product)",
                    (double)0x5B3D7F81, 12345, 0, GB_PEAK_INT8_DOT},
    [CP_I32] = {"compute_i32", 4, 1, 2, 0, NULL, 1664525, 1013904223, 0, GB_PEAK_I32},
};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("prec", "[f64, f32, f16, half2, bf16, int8dot, i32]", precs,
                "arithmetic: f64, f32, f16, half2 (packed), bf16 (packed), "
                "int8dot (4-way dp4a), i32"),
    GB_AXIS_INT("vec", "0", 0, 16,
                "lanes per chain as an OpenCL vector type (1, 2, 4, 8, 16); 0: 16 on a CPU "
                "device, whose compiler fills SIMD units only through vector types, else 1"),
    GB_AXIS_INT("chains", "8", 1, 64,
                "independent chains per work-item (instruction-level parallelism)"),
    GB_AXIS_INT("iters", "1024", 4, 1 << 24, "dependent steps per chain (a multiple of 4)"),
    GB_AXIS_INT("wg", "256", 1, 65536, "work-group (thread-block) size"),
    GB_AXIS_INT("groups", "16", 1, 1 << 20, "work-groups per compute unit"),
};

static enum cprec parse_prec(const char *s)
{
    for (int i = 0; i < CP_COUNT; i++)
        if (strcmp(precs[i], s) == 0)
            return (enum cprec)i;
    return CP_F32;
}

static int compute_setup(struct gb_case_ctx *ctx)
{
    struct compute *s = ctx->state;
    const struct gb_device_info *info = &ctx->dev->info;
    const bool vectors = ctx->ops->facts.kernel_vectors;
    s->p = parse_prec(gb_params_str(ctx->params, "prec"));
    s->vec = (uint32_t)gb_params_int(ctx->params, "vec");
    s->chains = (uint32_t)gb_params_int(ctx->params, "chains");
    s->iters = (uint32_t)gb_params_int(ctx->params, "iters");
    s->wg = (uint32_t)gb_params_int(ctx->params, "wg");
    const uint64_t groups = (uint64_t)gb_params_int(ctx->params, "groups");

    if (cp[s->p].cap && !(info->caps & cp[s->p].cap))
        return gb_case_skip(ctx, "%s", cp[s->p].lacks);
    const bool scalar_only = s->p == CP_HALF2 || s->p == CP_BF16 || s->p == CP_INT8DOT;
    if (s->vec == 0) {
        s->auto_vec = true;
        s->vec = vectors && !scalar_only && gb_device_is_cpu(info) ? 16 : 1;
    }
    if (s->vec != 1 && s->vec != 2 && s->vec != 4 && s->vec != 8 && s->vec != 16)
        return gb_case_skip(ctx, "vec %u: must be 1, 2, 4, 8 or 16", s->vec);
    if (s->vec > 1 && !vectors)
        return gb_case_skip(ctx,
                            "vec %u: CUDA has no vector arithmetic types; more chains give "
                            "a GPU the same parallelism",
                            s->vec);
    if (s->vec > 1 && scalar_only)
        return gb_case_skip(ctx, "vec %u: %s is a packed or scalar type; use vec 1", s->vec,
                            precs[s->p]);
    if (s->iters % 4)
        return gb_case_skip(ctx, "iters %u: must be a multiple of 4 (the loop is unrolled 4x)",
                            s->iters);
    /* iters is the measured chain: no split shortens it, so past the driver's loop limit the
     * case skips. One work-item sets its chains, runs iters / 4 steps of four loops over them
     * (kernels/compute.cl's STEP4), and stores them. */
    const uint64_t trips =
        2 * (uint64_t)s->chains + (uint64_t)s->iters / 4 * (1 + 4 * (uint64_t)s->chains);
    int err = gb_case_loop_fits(ctx, trips, NULL, NULL);
    if (err)
        return err;
    /* A default work-group size above the device's or the kernel's maximum is fitted to it
     * (the figure wg_used), one the user gave is a skip. */
    err = gb_case_fit_wg(ctx, "wg", &s->wg, info->max_wg_size, "the device maximum");
    if (err)
        return err;
    const uint64_t cus = info->compute_units ? info->compute_units : 1;
    if ((uint64_t)(uint32_t)(groups * cus * s->wg) != groups * cus * s->wg)
        return gb_case_skip(ctx, "%llu work-items: the kernels index chains with 32 bits",
                            (unsigned long long)(groups * cus * s->wg));

    char d_chains[32], d_vec[32];
    snprintf(d_chains, sizeof d_chains, "CHAINS=%u", s->chains);
    snprintf(d_vec, sizeof d_vec, "VEC=%u", s->vec);
    const char *defines[] = {d_chains, d_vec};
    if ((err = gb_case_build_hooked(ctx, "compute.cl", cp[s->p].kernel, defines, 2, "wg", &s->wg,
                                    &s->prog, &s->k)))
        return err;
    s->items = groups * cus * s->wg;
    s->elems = s->items * s->chains * s->vec * cp[s->p].lanes;
    const enum gb_dtype dt = s->p == CP_F64                       ? GB_F64
                             : s->p == CP_F32                     ? GB_F32
                             : s->p == CP_F16 || s->p == CP_HALF2 ? GB_F16
                             : s->p == CP_BF16                    ? GB_BF16
                                                                  : GB_I32;
    if ((err = gb_case_alloc(ctx, s->elems * cp[s->p].esize, GB_MEM_DEVICE, &s->out)) ||
        (err = gb_case_poison(ctx, s->out, s->elems * cp[s->p].esize, dt)))
        return err;

    struct gb_launch *l = &s->l;
    *l = (struct gb_launch){
        .dims = 1, .global = {s->items, 1, 1}, .local = {s->wg, 1, 1}, .nargs = 4};
    l->args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->out};
    switch (s->p) {
    case CP_F64:
        l->args[1] = (struct gb_arg){.kind = GB_ARG_F64, .v.f64 = cp[s->p].a};
        l->args[2] = (struct gb_arg){.kind = GB_ARG_F64, .v.f64 = cp[s->p].b};
        break;
    case CP_I32:
        l->args[1] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = (uint32_t)cp[s->p].a};
        l->args[2] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = (uint32_t)cp[s->p].b};
        break;
    case CP_INT8DOT:
        l->args[1] = (struct gb_arg){.kind = GB_ARG_I32, .v.i32 = (int32_t)(uint32_t)cp[s->p].a};
        l->args[2] = (struct gb_arg){.kind = GB_ARG_I32, .v.i32 = (int32_t)cp[s->p].b};
        break;
    default:
        l->args[1] = (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = (float)cp[s->p].a};
        l->args[2] = (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = (float)cp[s->p].b};
        break;
    }
    l->args[3] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = s->iters};
    ctx->op.flops = (double)s->elems * (double)s->iters * cp[s->p].ops;
    ctx->op.integer = s->p == CP_I32 || s->p == CP_INT8DOT;
    ctx->op.timer = GB_TIMER_DEVICE;
    return 0;
}

static int compute_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct compute *s = ctx->state;
    return gb_case_launch_reps(ctx, s->k, &s->l, NULL, reps);
}

/* ---- the host replay ---------------------------------------------------------------------- */

/* The start of chain element idx (kernels/compute.cl). */
static double start_float(enum cprec p, uint64_t idx)
{
    return p == CP_BF16 ? 1.0 + (double)(idx & 127u) / 128.0 : 1.0 + (double)(idx & 1023u) / 1024.0;
}

static uint32_t start_int(uint64_t idx)
{
    return (uint32_t)idx * 2654435761u + 12345u;
}

/* 4 signed bytes of x dotted with those of y, plus z, wrapping (dp4a). */
static int32_t dp4a(int32_t x, int32_t y, int32_t z)
{
    uint32_t acc = (uint32_t)z;
    for (int i = 0; i < 4; i++) {
        const int32_t xb = (int8_t)(x >> (8 * i)), yb = (int8_t)(y >> (8 * i));
        acc += (uint32_t)(xb * yb);
    }
    return (int32_t)acc;
}

/* The end of chain element idx after `iters` steps, as the device computes it. Floats as
 * doubles; integers as their 32-bit pattern in *bits. */
static double replay(enum cprec p, uint64_t idx, uint32_t iters, uint32_t *bits)
{
    const double a = cp[p].a, b = cp[p].b;
    switch (p) {
    case CP_F64: {
        double x = start_float(p, idx);
        for (uint32_t i = 0; i < iters; i++)
            x = fma(x, a, b);
        return x;
    }
    case CP_F32: {
        float x = (float)start_float(p, idx);
        const float fa = (float)a, fb = (float)b;
        for (uint32_t i = 0; i < iters; i++)
            x = fmaf(x, fa, fb);
        return x;
    }
    case CP_F16:
    case CP_HALF2: {
        /* x * a (11 x 11 significant bits) + b is exact in double for these magnitudes; one
         * rounding to half then matches the device's fused multiply-add. */
        double x = gb_f16_to_double(gb_f16_from_double(start_float(p, idx)));
        for (uint32_t i = 0; i < iters; i++)
            x = gb_f16_to_double(gb_f16_from_double(x * a + b));
        return x;
    }
    case CP_BF16: {
        double x = gb_bf16_to_double(gb_bf16_from_double(start_float(p, idx)));
        for (uint32_t i = 0; i < iters; i++)
            x = gb_bf16_to_double(gb_bf16_from_double(x * a + b));
        return x;
    }
    case CP_I32: {
        uint32_t x = start_int(idx);
        for (uint32_t i = 0; i < iters; i++)
            x = x * (uint32_t)a + (uint32_t)b;
        *bits = x;
        return (double)x;
    }
    case CP_INT8DOT: {
        int32_t x = (int32_t)start_int(idx);
        for (uint32_t i = 0; i < iters; i++)
            x = dp4a(x, (int32_t)(uint32_t)a, (int32_t)b);
        *bits = (uint32_t)x;
        return (double)x;
    }
    default:
        return 0;
    }
}

/* Element i of the downloaded output as a double (integers: *bits too). */
static double element(enum cprec p, const void *host, uint64_t i, uint32_t *bits)
{
    switch (p) {
    case CP_F64:
        return ((const double *)host)[i];
    case CP_F32:
        return ((const float *)host)[i];
    case CP_F16:
    case CP_HALF2:
        return gb_f16_to_double(((const uint16_t *)host)[i]);
    case CP_BF16:
        return gb_bf16_to_double(((const uint16_t *)host)[i]);
    default:
        *bits = ((const uint32_t *)host)[i];
        return p == CP_INT8DOT ? (double)(int32_t)*bits : (double)*bits;
    }
}

/* ---- integers: every chain ---------------------------------------------------------------- */

/* x -> mul x + add (mod 2^32). */
struct affine {
    uint32_t mul, add;
};

/* f after g: x -> f.mul (g.mul x + g.add) + f.add. */
static struct affine affine_after(struct affine f, struct affine g)
{
    return (struct affine){f.mul * g.mul, f.mul * g.add + f.add};
}

/* The INT32 step applied `iters` times, as one affine map (repeated squaring). */
static struct affine i32_steps(uint32_t iters)
{
    struct affine r = {1, 0}, p = {(uint32_t)cp[CP_I32].a, (uint32_t)cp[CP_I32].b};
    for (uint32_t e = iters; e; e >>= 1, p = affine_after(p, p))
        if (e & 1)
            r = affine_after(p, r);
    return r;
}

/* dp4a with y, z = the kernel's: every value lands in [z - DP4A_SPAN, z + DP4A_SPAN]. */
#define DP4A_SPAN 65536

/* *out[v - lo] = the dp4a step applied n times to v, for v in [lo, lo + 2 DP4A_SPAN]
 * (repeated squaring of the step's table). Returns NULL on out of memory. */
static int32_t *int8dot_table(uint32_t n, int32_t *lo)
{
    const int32_t y = (int32_t)(uint32_t)cp[CP_INT8DOT].a, z = (int32_t)cp[CP_INT8DOT].b;
    const size_t len = 2 * DP4A_SPAN + 1;
    *lo = z - DP4A_SPAN;
    int32_t *r = malloc(len * sizeof *r), *p = malloc(len * sizeof *p),
            *t = malloc(len * sizeof *t);
    if (!r || !p || !t) {
        free(r), free(p), free(t);
        return NULL;
    }
    for (size_t v = 0; v < len; v++) {
        r[v] = *lo + (int32_t)v;
        p[v] = dp4a(*lo + (int32_t)v, y, z);
    }
    for (uint32_t e = n; e; e >>= 1) {
        if (e & 1)
            for (size_t v = 0; v < len; v++)
                r[v] = p[r[v] - *lo];
        for (size_t v = 0; v < len; v++)
            t[v] = p[p[v] - *lo];
        int32_t *sw = p;
        p = t, t = sw;
    }
    free(p), free(t);
    return r;
}

/* Every chain of every work-item of an integer case, to the bit. */
static int verify_int(struct gb_case_ctx *ctx, const struct compute *s, const void *host)
{
    const uint32_t *got = host;
    struct affine f = {0, 0};
    int32_t *table = NULL, lo = 0;
    if (s->p == CP_I32) {
        f = i32_steps(s->iters);
    } else if (!(table = int8dot_table(s->iters - 1, &lo))) {
        return GB_FAIL(GB_ENOMEM, "dp4a table");
    }
    const int32_t y = (int32_t)(uint32_t)cp[CP_INT8DOT].a, z = (int32_t)cp[CP_INT8DOT].b;
    uint64_t bad = 0, first = 0;
    uint32_t first_got = 0, first_ref = 0;
    bool unmoved = false;
    for (uint64_t i = 0; i < s->elems; i++) {
        const uint32_t x0 = start_int(i);
        const uint32_t ref =
            s->p == CP_I32 ? f.mul * x0 + f.add : (uint32_t)table[dp4a((int32_t)x0, y, z) - lo];
        if (got[i] != ref) {
            if (bad++ == 0) {
                first = i, first_got = got[i], first_ref = ref;
                unmoved = s->p == CP_I32 && got[i] == x0;
            }
        }
    }
    free(table);
    ctx->max_error = bad ? INFINITY : 0.0;
    if (!bad)
        return 0;
    if (unmoved)
        return gb_case_mismatch(ctx,
                                "chain element %llu is %u, its start: the chain was not "
                                "computed (%llu of %llu elements wrong)",
                                (unsigned long long)first, first_got, (unsigned long long)bad,
                                (unsigned long long)s->elems);
    return gb_case_mismatch(ctx,
                            "chain element %llu is %u (0x%08x), the host replay gives %u "
                            "(%llu of %llu elements wrong)",
                            (unsigned long long)first, first_got, first_got, first_ref,
                            (unsigned long long)bad, (unsigned long long)s->elems);
}

static int compute_verify(struct gb_case_ctx *ctx)
{
    struct compute *s = ctx->state;
    const enum cprec p = s->p;
    const bool is_int = p == CP_I32 || p == CP_INT8DOT;
    const uint64_t bytes = s->elems * cp[p].esize;
    int err;
    void *host = gb_case_read_back(ctx, s->out, bytes, &err);
    if (!host)
        return err;
    if (is_int) {
        err = verify_int(ctx, s, host);
        free(host);
        return err;
    }
    /* Every chain ran and was written: finite and grown from its start. */
    for (uint64_t i = 0; i < s->elems; i++) {
        uint32_t bits;
        const double v = element(p, host, i, &bits), x0 = start_float(p, i);
        if (!(isfinite(v) && v > x0)) {
            err = gb_case_mismatch(ctx,
                                   "chain element %llu is %.9g, not above its start "
                                   "%.9g: the chain was not computed",
                                   (unsigned long long)i, v, x0);
            free(host);
            return err;
        }
    }
    /* Sampled work-items replayed exactly. */
    const uint64_t per_item = s->elems / s->items;
    uint64_t seed = 0x9E3779B97F4A7C15ull, worst_i = 0;
    double worst = 0, worst_got = 0, worst_ref = 0;
    for (int n = 0; n < 32 && n < (int)s->items + 2; n++) {
        uint64_t item;
        if (n == 0)
            item = 0;
        else if (n == 1)
            item = s->items - 1;
        else {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            item = (seed >> 33) % s->items;
        }
        for (uint64_t e = 0; e < per_item; e++) {
            const uint64_t idx = item * per_item + e;
            uint32_t gbits = 0, rbits = 0;
            const double got = element(p, host, idx, &gbits);
            const double ref = replay(p, idx, s->iters, &rbits);
            const double rel = is_int ? (gbits == rbits ? 0.0 : INFINITY)
                                      : (got == ref ? 0.0 : fabs(got - ref) / fabs(ref));
            if (!(rel <= worst)) {
                worst = isnan(rel) ? INFINITY : rel;
                worst_i = idx;
                worst_got = got;
                worst_ref = ref;
            }
        }
    }
    free(host);
    ctx->max_error = worst;
    if (!(worst <= cp[p].ulps))
        return gb_case_mismatch(ctx,
                                "chain element %llu is %.17g, the host replay gives %.17g "
                                "(relative difference %.3g > %.3g)",
                                (unsigned long long)worst_i, worst_got, worst_ref, worst,
                                cp[p].ulps);
    return 0;
}

static void compute_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct compute *s = ctx->state;
    (void)op_time_s;
    if (s->auto_vec)
        gb_case_figure(ctx, "vec_used", "", s->vec);
}

static void compute_teardown(struct gb_case_ctx *ctx)
{
    struct compute *s = ctx->state;
    gb_case_free_buf(ctx, &s->out);
    gb_case_free_kernel(ctx, &s->k, &s->prog);
}

static double compute_peak(const struct gb_result *r, const struct gb_device_info *info, char *how,
                           size_t len)
{
    const char *p = gb_params_str(&r->params, "prec");
    for (int i = 0; i < CP_COUNT; i++)
        if (strcmp(precs[i], p) == 0)
            return gb_peak_ops(info, cp[i].peak, false, how, len) / 1e9;
    return 0;
}

static int compute_derive(struct gb_results *rs)
{
    return gb_suite_precision_derive(rs, "compute", "prec", "f32", false, compute_peak);
}

const struct gb_suite gb_suite_compute = {
    .name = "compute",
    .summary = "peak arithmetic throughput (GFLOP/s, GOP/s): f64, f32, f16, half2, bf16, int8 "
               "dot, i32",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "prec",
    .state_size = sizeof(struct compute),
    .setup = compute_setup,
    .run = compute_run,
    .verify = compute_verify,
    .teardown = compute_teardown,
    .figures = compute_figures,
    .derive = compute_derive,
};
