/* gemm — matrix multiplication per precision, through the backend's BLAS (CLBlast, cuBLAS) and
 * through gpubench's own tiled kernel (kernels/gemm.cl), with its accuracy.
 *
 * One operation is C = op(A) op(B) (alpha 1, beta 0), column-major, C m×n, op(A) m×k, op(B) k×n:
 * 2 m n k floating-point operations. For the library the whole call is timed — the markers the
 * harness records on the queue before and after bracket every kernel the library enqueues
 * (CLBlast pads and transposes around its GEMM kernel for some shapes; its own event covers only
 * the last kernel, which on PoCL made SGEMM 1024 read ~1000 GFLOP/s instead of ~22).
 *
 * Precisions (axis prec), as gb_gemm types (A and B / compute / C):
 *   f64   F64 / F64 / F64        f32   F32 / F32 / F32        tf32  F32 with TF32 tensor cores
 *   f16   F16 / F16 / F16        mixed F16 / F32 / F32        bf16  BF16 / F32 / F32
 *   f8e4m3  E4M3 x E4M3 / F32 / F32     f8e5m2  E5M2 x E4M3 / F32 / F32   (OCP FP8, base/fp8.h)
 * The FP8 precisions run only through the backend's gemm_fp8 (cuBLASLt on CUDA sm_89+; elsewhere
 * a recorded skip that says why) and only in its "TN" layout (trans tn) with m, n and k multiples
 * of 16 (gb_gemm_fp8_check; other shapes are recorded skips naming the rule). f8e5m2 multiplies
 * an E5M2 A by an E4M3 B: cuBLASLt has no E5M2 x E5M2. Their inputs are the FP64 draws rounded
 * to float (the FP32 inputs), then to FP8 on the host; the bytes are uploaded.
 * The own kernel runs f32 and f64 natively and mixed and bf16 as 16-bit storage read into
 * float accumulation (vload_half / a shift: valid on every OpenCL device); it has no half
 * accumulation or TF32. It uses the tuning cache's configuration when the profile entry says
 * `tuned: true` and the cache has one for this device and shape (kernel "gemm", problem
 * GB_TUNING_GEMM_PROBLEM, tuned for f32 without transposes and applied to every float
 * accumulation), else kernels/gemm.cl's defaults; the figure `config` says which.
 *
 * Accuracy: A and B are drawn in FP64 from a seeded distribution — `uniform`: U(-1, 1);
 * `wide`: random sign times 2^U(-6, 6), twelve binades; `signed`: magnitudes in [1, 2) exact in
 * FP32 whose TF32 and FP16 rounding is systematic, every product positive (draw_signed says
 * how) — and rounded to the precision's input type. On U(-1,1) a TF32-rounded "f32" GEMM's error
 * against sum |a||b| shrinks like 1/sqrt(k) (its roundings cancel) while any bound valid for
 * every input grows, so the f32 bound catches it up to k of about 2048 only; on `signed` it
 * errs by about 2^-10 at every k and fails (tests/test_broken_kernels.c). The reference is the FP64 (long double accumulated) product of the unrounded inputs, so
 * the error includes what rounding the inputs costs: the accuracy price of the precision. Per
 * element the relative error is |C - ref| / sum_l |a_il||b_lj| (backends/precision.h), on every
 * element when m n <= 65536, else on the four corners and 4092 seeded positions. The result
 * carries the largest (max_error) and the RMS (figure rms_error). A case whose largest error
 * exceeds its tolerance — axis `tol`, or 0 for the bound of gb__gemm_tolerance (the rigorous
 * first-order bound of gb_gemm_error_bound for the precision's input, accumulation and output
 * formats; for f32 and f64 the smaller probabilistic one of Higham and Mary) — is failed
 * with the reason "failed-accuracy: ...". Every element of C must be finite except where the
 * precision's range overflows, which is a failed-accuracy too.
 * FP8: the reference is the FP64 product of the FP8-rounded inputs (max_error, rms_error: the
 * accumulation and output alone, tolerance with u_in 0), and the figures input_quant_max_error /
 * input_quant_rms_error give that product's error against the FP32 inputs' (the rounding alone).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fp8.h"
#include "base/units.h"
#include "backends/precision.h"
#include "base/util.h"
#include "suites/common.h"
#include "suites/gemm_state.h"
#include "suites/presets.h"
#include "run/tuning_cache.h"

static const char *const precs[] = {"f32",  "f64",    "tf32",   "f16", "mixed",
                                    "bf16", "f8e4m3", "f8e5m2", "i8",  NULL};
static const char *const impls[] = {"library", "own", NULL};
static const char *const transes[] = {"nn", "nt", "tn", "tt", NULL};
static const char *const dists[] = {"uniform", "wide", "signed", NULL};

static const struct {
    const char *name;
    enum gb_dtype in, acc, out;
    uint64_t cap; /* library capability */
    bool tf32;
    enum gb_peak_op peak;
} gp[GP_COUNT] = {
    [GP_F64] = {"f64", GB_F64, GB_F64, GB_F64, GB_CAP_BLAS_F64, false, GB_PEAK_F64},
    [GP_F32] = {"f32", GB_F32, GB_F32, GB_F32, GB_CAP_BLAS_F32, false, GB_PEAK_F32},
    [GP_TF32] = {"tf32", GB_F32, GB_F32, GB_F32, GB_CAP_BLAS_TF32, true, GB_PEAK_TF32},
    [GP_F16] = {"f16", GB_F16, GB_F16, GB_F16, GB_CAP_BLAS_F16, false, GB_PEAK_F16},
    [GP_MIXED] = {"mixed", GB_F16, GB_F32, GB_F32, GB_CAP_BLAS_MIXED, false, GB_PEAK_F16_ACC32},
    [GP_BF16] = {"bf16", GB_BF16, GB_F32, GB_F32, GB_CAP_BLAS_BF16, false, GB_PEAK_BF16},
    /* `in` is A's format; B is E4M3 for both (fp8_b_type). */
    [GP_F8E4M3] = {"f8e4m3", GB_F8E4M3, GB_F32, GB_F32, GB_CAP_BLAS_FP8, false, GB_PEAK_F8},
    [GP_F8E5M2] = {"f8e5m2", GB_F8E5M2, GB_F32, GB_F32, GB_CAP_BLAS_FP8, false, GB_PEAK_F8},
    /* cuBLAS's int8 GEMM has no capability bit of its own: cuBLAS present, the backend checks
     * the architecture. */
    [GP_I8] = {"i8", GB_I8, GB_I32, GB_I32, GB_CAP_BLAS_F32, false, GB_PEAK_INT8_DOT},
};

static bool is_fp8(enum gprec p)
{
    return p == GP_F8E4M3 || p == GP_F8E5M2;
}

/* B's format in the FP8 precisions: E4M3 (cuBLASLt has no E5M2 x E5M2). */
static const enum gb_dtype fp8_b_type = GB_F8E4M3;

static bool shape_check(const char *s, char *why, size_t len);
static size_t shape_expand(const char *value, char (*out)[GB_STR_MAX], size_t cap)
{
    return gb_preset_expand(value, GB_PRESET_GEMM, out, cap);
}

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("prec", "[f32, f64, tf32, f16, mixed, bf16]", precs,
                "f32, f64, tf32 (F32 on TF32 tensor cores), f16, mixed (F16 in, "
                "F32 accumulate and out), bf16 (BF16 in, F32 accumulate and out), f8e4m3 and "
                "f8e5m2 (FP8 A times E4M3 B, F32 accumulate and out: cuBLASLt on CUDA sm_89+, "
                "trans tn, sizes multiples of 16), i8 (FP32 inputs quantised to int8, A per row, "
                "B per tensor; int32 accumulate and out: cuBLAS on sm_61+ with m, k multiples of "
                "4, and the own kernel; dist uniform)"),
    GB_AXIS_STR("impl", "[library, own]", impls,
                "library: the backend's BLAS (CLBlast, cuBLAS); own: kernels/gemm.cl"),
    GB_AXIS_STR("shape", "[256, 1024]", NULL,
                "N (square) or MxNxK: C is MxN, the inner dimension K; or a model preset "
                "(bert-large, llama3-8b-prefill, llama3-8b-decode, resnet50: its linear layers; "
                "-bN for N sequences, llama3-8b-decode-b64) or one of its layers "
                "(llama3-8b-decode.ffn_down): M out features, K in, N tokens",
                .check = shape_check, .expand = shape_expand),
    GB_AXIS_STR("trans", "nn", transes,
                "op(A) op(B): n = as stored, t = transposed (the FP8 precisions: tn only)"),
    GB_AXIS_STR("dist", "uniform", dists,
                "inputs: uniform U(-1,1); wide: random sign x 2^U(-6,6); signed: magnitudes in "
                "[1,2) exact in f32 whose TF32 / f16 rounding is 0.4 unit down, signs by inner "
                "index (every product positive): a lower-precision f32 GEMM fails at any k"),
    GB_AXIS_FLOAT("tol", "0", "largest relative error accepted; 0: the precision's default bound",
                  .check_float = gb__gemm_tol_check),
};

/* kernels/gemm.cl's defaults. */
#define DEF_TS 32
#define DEF_WPT 4
#define DEF_TSK 16
#define DEF_UNROLL 4

static enum gprec parse_prec(const char *s)
{
    for (int i = 0; i < GP_COUNT; i++)
        if (strcmp(gp[i].name, s) == 0)
            return (enum gprec)i;
    return GP_F32;
}

/* The shape axis's load-time check (gb_axis_def.check). */
static bool shape_check(const char *s, char *why, size_t len)
{
    uint64_t m, n, k;
    const struct gb_preset *p;
    const struct gb_preset_layer *l;
    if (gb_parse_mnk(s, &m, &n, &k) || gb_preset_layer_find(s, GB_PRESET_GEMM, &p, &l, &m) ||
        gb_preset_expand(s, GB_PRESET_GEMM, NULL, 0) > 0)
        return true;
    if (gb_preset_layers_hint(s, GB_PRESET_GEMM, why, len))
        return false;
    snprintf(why, len,
             "expected N (square) or MxNxK (each a whole number from 1 to 2^31), or a model "
             "preset (bert-large, llama3-8b-prefill, llama3-8b-decode, resnet50; -bN for a "
             "batch of N from 1 to 65536) or one of its layers");
    return false;
}

/* Square shapes are written out, so that "1024" and "1024x1024x1024" are one case. */
static bool gemm_normalize(struct gb_params *p)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->name[i], "shape") == 0) {
            uint64_t m, n, k;
            if (gb_parse_mnk(p->v[i].s, &m, &n, &k))
                snprintf(p->v[i].s, sizeof p->v[i].s, "%llux%llux%llu", (unsigned long long)m,
                         (unsigned long long)n, (unsigned long long)k);
        }
    return true;
}

/* dist signed: element of op(A) or op(B) at inner index l. 1 + 10 random bits below the point
 * + 0x0CCC x 2^-23: exact in f32, and 0.4 of a unit of the 10-bit significand (TF32, f16) above
 * a value of that format, so rounding to it (to nearest or truncated) takes 0.4 unit off every
 * magnitude; the sign is (-1)^l in both matrices, so every product a_il b_lj is positive and
 * those errors add up instead of cancelling: about 2^-10 relative in every element of C. */
static double draw_signed(uint64_t *s, uint64_t l)
{
    const double v = 1.0 + (double)(gb_splitmix64(s) >> 54) * 0x1p-10 + 0x0CCC * 0x1p-23;
    return l & 1 ? -v : v;
}

static double draw(uint64_t *s, bool wide)
{
    const double u = (double)(gb_splitmix64(s) >> 11) * 0x1p-53; /* [0, 1) */
    if (!wide)
        return 2.0 * u - 1.0;
    const double sign = gb_splitmix64(s) & 1 ? -1.0 : 1.0;
    return sign * exp2(12.0 * u - 6.0);
}

/* n FP64 values in the device's input type `t` (bytes per element from gb_dtype_size). */
static void *to_type(const double *x, uint64_t n, enum gb_dtype t)
{
    void *p = malloc(n * gb_dtype_size(t));
    if (!p)
        return NULL;
    for (uint64_t i = 0; i < n; i++)
        switch (t) {
        case GB_F64:
            ((double *)p)[i] = x[i];
            break;
        case GB_F32:
            ((float *)p)[i] = (float)x[i];
            break;
        case GB_F16:
            ((uint16_t *)p)[i] = gb_f16_from_double(x[i]);
            break;
        default: /* GB_BF16 */
            ((uint16_t *)p)[i] = gb_bf16_from_double(x[i]);
            break;
        }
    return p;
}

void gb__gemm_fp8_quantize(const double *x, uint64_t n, enum gb_dtype t, uint8_t *bytes,
                           double *x32, double *xq)
{
    for (uint64_t i = 0; i < n; i++) {
        const float f = (float)x[i];
        x32[i] = f;
        bytes[i] = t == GB_F8E5M2 ? gb_fp8_e5m2_from_float(f) : gb_fp8_e4m3_from_float(f);
        xq[i] = t == GB_F8E5M2 ? gb_fp8_e5m2_to_float(bytes[i]) : gb_fp8_e4m3_to_float(bytes[i]);
    }
}

/* FP8: rounds the n FP64 draws in *x to float in place (the FP32 inputs), their FP8 values (format
 * t) into *xq (allocated here), and uploads the FP8 bytes to a new device buffer *out. */
static int upload_fp8(struct gb_case_ctx *ctx, double *x, uint64_t n, enum gb_dtype t, double **xq,
                      struct gb_buf **out)
{
    int err = gb_case_alloc(ctx, n, GB_MEM_DEVICE, out);
    if (err)
        return err;
    uint8_t *bytes = malloc(n);
    *xq = malloc(n * sizeof **xq);
    if (!bytes || !*xq) {
        free(bytes);
        return GB_FAIL(GB_ENOMEM, "FP8 input of %llu elements", (unsigned long long)n);
    }
    gb__gemm_fp8_quantize(x, n, t, bytes, x, *xq);
    err = gb_case_upload(ctx, *out, bytes, n);
    free(bytes);
    return err;
}

/* The FP8 precisions' refusals, before anything is allocated: no gemm_fp8 in the backend, no
 * FP8 tensor cores, or a layout or shape that breaks cuBLASLt's rules (gb_gemm_fp8_check). Fills
 * s->g8 but its buffers. 0, or GB_ESKIP with the reason. */
static int fp8_refusals(struct gb_case_ctx *ctx, struct gemm *s)
{
    const struct gb_device_info *info = &ctx->dev->info;
    if (!ctx->ops->gemm_fp8)
        return gb_case_skip(
            ctx, "FP8 GEMM needs cuBLASLt on CUDA sm_89+ (the %s backend has %s)", ctx->ops->name,
            ctx->ops->facts.fp8_absent ? ctx->ops->facts.fp8_absent : "no FP8 GEMM");
    if (!(info->caps & GB_CAP_BLAS_FP8))
        return gb_case_skip(ctx, "FP8 GEMM needs cuBLASLt on CUDA sm_89+: this device is %s (%s)",
                            info->arch[0] ? info->arch : "of no CUDA architecture",
                            info->version[0] ? info->version : info->name);
    s->g8 = (struct gb_gemm_fp8){.a_type = gp[s->p].in,
                                 .b_type = fp8_b_type,
                                 .c_type = gp[s->p].out,
                                 .trans_a = s->ta,
                                 .trans_b = s->tb,
                                 .m = s->m,
                                 .n = s->n,
                                 .k = s->k,
                                 .lda = s->lda,
                                 .ldb = s->ldb,
                                 .ldc = s->m};
    if (gb_gemm_fp8_check(&s->g8))
        return gb_case_skip(ctx, "%s", gb_error_msg());
    return 0;
}

static int upload_input(struct gb_case_ctx *ctx, const double *x, uint64_t n, enum gb_dtype t,
                        struct gb_buf **out)
{
    int err = gb_case_alloc(ctx, n * gb_dtype_size(t), GB_MEM_DEVICE, out);
    if (err)
        return err;
    void *h = to_type(x, n, t);
    if (!h)
        return GB_FAIL(GB_ENOMEM, "input of %llu elements", (unsigned long long)n);
    err = gb_case_upload(ctx, *out, h, n * gb_dtype_size(t));
    free(h);
    return err;
}

/* The own kernel: configuration (tuned or default), checked against the device. */
/* Whether (ts, wpt, tsk, unroll) is a configuration kernels/gemm.cl takes: positive, TS a multiple
 * of WPT, TSK of UNROLL, and a TS x TSK tile loaded evenly by the (TS/WPT)^2 work-items. */
static bool own_config_ok(int64_t ts, int64_t wpt, int64_t tsk, int64_t unroll)
{
    return ts > 0 && wpt > 0 && tsk > 0 && unroll > 0 && wpt <= ts && ts % wpt == 0 &&
           tsk % unroll == 0 && (ts * tsk) % ((ts / wpt) * (ts / wpt)) == 0;
}

/* Builds the own kernel with tile configuration (ts, wpt, tsk, unroll) into s->prog, s->kern. */
static int build_own(struct gb_case_ctx *ctx, struct gemm *s, int64_t ts, int64_t wpt, int64_t tsk,
                     int64_t unroll)
{
    char d[8][32];
    size_t nd = 0;
    snprintf(d[nd++], sizeof d[0], "TS=%lld", (long long)ts);
    snprintf(d[nd++], sizeof d[0], "WPT=%lld", (long long)wpt);
    snprintf(d[nd++], sizeof d[0], "TSK=%lld", (long long)tsk);
    snprintf(d[nd++], sizeof d[0], "UNROLL=%lld", (long long)unroll);
    snprintf(d[nd++], sizeof d[0], "T=%s",
             s->p == GP_F64  ? "double"
             : s->p == GP_I8 ? "int"
                             : "float");
    snprintf(d[nd++], sizeof d[0], "TRANS_A=%d", s->ta);
    snprintf(d[nd++], sizeof d[0], "TRANS_B=%d", s->tb);
    if (s->p == GP_MIXED)
        snprintf(d[nd++], sizeof d[0], "IN_HALF=1");
    else if (s->p == GP_BF16)
        snprintf(d[nd++], sizeof d[0], "IN_BF16=1");
    else if (s->p == GP_I8)
        snprintf(d[nd++], sizeof d[0], "IN_I8=1");
    const char *defs[9];
    for (size_t i = 0; i < nd; i++)
        defs[i] = d[i];
    if (s->hook.test_define)
        defs[nd++] = s->hook.test_define;
    return gb_case_build(ctx, "gemm.cl", "gemm_tiled", defs, nd, &s->prog, &s->kern);
}

static int own_setup(struct gb_case_ctx *ctx, struct gemm *s)
{
    const struct gb_device_info *info = &ctx->dev->info;
    if (is_fp8(s->p))
        return gb_case_skip(ctx, "own kernel: no FP8 path (FP8 GEMM runs through cuBLASLt only)");
    if (s->p == GP_F16)
        return gb_case_skip(ctx, "own kernel: it accumulates in float or double; half "
                                 "accumulation (f16) is measured through the library");
    if (s->p == GP_TF32)
        return gb_case_skip(ctx, "own kernel: no TF32 tensor-core path");
    if (s->p == GP_F64 && !(info->caps & GB_CAP_FP64))
        return gb_case_skip(ctx, "the device has no double precision (fp64)");

    int64_t ts = DEF_TS, wpt = DEF_WPT, tsk = DEF_TSK, unroll = DEF_UNROLL;
    bool tuned = false;
    if (s->p != GP_F64 && s->p != GP_I8) {
        char problem[128];
        snprintf(problem, sizeof problem, GB_TUNING_GEMM_PROBLEM, (unsigned long long)s->m,
                 (unsigned long long)s->n, (unsigned long long)s->k);
        struct gb_tuning_entry e;
        int err = gb_case_tuning_lookup(ctx, "gemm", problem, &e, &tuned);
        if (err)
            return err;
        if (tuned) {
            ts = gb_tuning_get(&e, "TS", ts);
            wpt = gb_tuning_get(&e, "WPT", wpt);
            tsk = gb_tuning_get(&e, "TSK", tsk);
            unroll = gb_tuning_get(&e, "UNROLL", unroll);
        }
    }
    snprintf(s->config, sizeof s->config, "TS=%lld WPT=%lld TSK=%lld UNROLL=%lld (%s)",
             (long long)ts, (long long)wpt, (long long)tsk, (long long)unroll,
             tuned ? "tuned" : "default");
    const size_t acc = s->p == GP_F64 ? 8 : 4;
    if (!own_config_ok(ts, wpt, tsk, unroll))
        return GB_FAIL(GB_EINVAL,
                       "own kernel: invalid configuration %s (kernels/gemm.cl lists "
                       "the valid ones)",
                       s->config);
    if ((ts / wpt) * (ts / wpt) > info->max_wg_size || ts / wpt > info->max_wg_dims[0] ||
        ts / wpt > info->max_wg_dims[1])
        return gb_case_skip(ctx,
                            "own kernel %s: a %llux%llu work-group exceeds the device's "
                            "limits",
                            s->config, (unsigned long long)(ts / wpt),
                            (unsigned long long)(ts / wpt));
    if (2 * (uint64_t)ts * (uint64_t)tsk * acc > info->local_mem)
        return gb_case_skip(ctx,
                            "own kernel %s: needs %llu bytes of local memory, the device "
                            "has %llu",
                            s->config, (unsigned long long)(2 * (uint64_t)ts * (uint64_t)tsk * acc),
                            (unsigned long long)info->local_mem);

    /* The default configuration is fitted to a kernel whose own work-group maximum is below its
     * (TS/WPT)^2 work-items (a driver's register limit): more work per work-item, WPT doubled, a
     * smaller work-group over the same tiles; a tuned configuration is a measured choice and
     * skips. */
    uint64_t rts = (uint64_t)(ts / wpt);
    bool fitted = false;
    for (;;) {
        int err = build_own(ctx, s, ts, wpt, tsk, unroll);
        if (err)
            return err;
        uint32_t kmax = 0;
        if ((err = ctx->ops->kernel_max_wg(s->kern, &kmax)))
            return err;
        if (rts * rts <= kmax)
            break;
        if (tuned || !own_config_ok(ts, wpt * 2, tsk, unroll))
            return gb_case_skip(ctx,
                                "own kernel %s: work-group of %llu exceeds this kernel's "
                                "maximum %u",
                                s->config, (unsigned long long)(rts * rts), kmax);
        gb_case_free_kernel(ctx, &s->kern, &s->prog);
        wpt *= 2;
        rts = (uint64_t)(ts / wpt);
        fitted = true;
        snprintf(s->config, sizeof s->config, "TS=%d WPT=%d TSK=%d UNROLL=%d (fitted)", (int)ts,
                 (int)wpt, (int)tsk, (int)unroll);
    }
    if (fitted)
        gb_case_figure(ctx, "wg_used", "", (double)(rts * rts));

    /* K is the kernel's own loop: no launch shape shortens it, so a K whose work-items would
     * loop past the driver's limit skips, saying which K the configuration can run. */
    const uint32_t limit = info->max_loop_trips;
    const uint64_t slices = (s->k + (uint64_t)tsk - 1) / (uint64_t)tsk;
    const uint64_t fixed = gb_gemm_tiled_trips(ts, wpt, tsk, 0),
                   per_slice = gb_gemm_tiled_trips(ts, wpt, tsk, (uint64_t)tsk) - fixed;
    if (limit && fixed + slices * per_slice > limit) {
        const uint64_t kmax = limit > fixed ? (limit - fixed) / per_slice * (uint64_t)tsk : 0;
        return gb_case_skip(ctx,
                            "own kernel %s: the driver stops a work-item's loops after %u "
                            "iterations; K = %llu needs %llu (K up to %llu fits)",
                            s->config, limit, (unsigned long long)s->k,
                            (unsigned long long)(fixed + slices * per_slice),
                            (unsigned long long)kmax);
    }

    struct gb_launch *l = &s->l;
    const uint64_t tiles_m = (s->m + (uint64_t)ts - 1) / (uint64_t)ts;
    const uint64_t tiles_n = (s->n + (uint64_t)ts - 1) / (uint64_t)ts;
    *l = (struct gb_launch){.dims = 2,
                            .global = {tiles_m * rts, tiles_n * rts, 1},
                            .local = {(uint32_t)rts, (uint32_t)rts, 1},
                            .nargs = 11};
    const bool dbl = s->p == GP_F64, i8 = s->p == GP_I8;
    l->args[0] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = s->m};
    l->args[1] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = s->n};
    l->args[2] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = s->k};
    l->args[3] = i8    ? (struct gb_arg){.kind = GB_ARG_I32, .v.i32 = 1}
                 : dbl ? (struct gb_arg){.kind = GB_ARG_F64, .v.f64 = 1.0}
                       : (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = 1.0f};
    l->args[4] = i8    ? (struct gb_arg){.kind = GB_ARG_I32, .v.i32 = 0}
                 : dbl ? (struct gb_arg){.kind = GB_ARG_F64, .v.f64 = 0.0}
                       : (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = 0.0f};
    l->args[5] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->a};
    l->args[6] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = s->lda};
    l->args[7] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->b};
    l->args[8] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = s->ldb};
    l->args[9] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->c};
    l->args[10] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = s->m};
    return 0;
}

/* ---- INT8 ----------------------------------------------------------------------------------
 *
 * The i8 precision measures what quantising a model's linear layer to int8 buys and costs. Its
 * FP32 inputs are U(-1, 1) draws rounded to float, with each row of A (an output channel of the
 * weights W, as C = W X) scaled by 2^U(-3, 3), the spread of ranges per-channel quantisation
 * exists for. They are quantised symmetrically (gb__gemm_quantize): A per row (scale max |row|
 * / 127), B per tensor; the device multiplies the int8 matrices into int32 C_q (cuBLAS's
 * cublasGemmEx CUDA_R_8I / COMPUTE_32I on CUDA, the own kernel on both backends; CLBlast has no
 * int8 GEMM). verify checks two things on every sampled element:
 * - C_q is the exact integer product (int64 host sums; any difference fails, "failed-exact");
 * - the dequantised product sA_i sB C_q against the FP64 product of the FP32 inputs is within
 *   the quantisation's own bound, sum_l (|a_il| sB / 2 + |b_lj| sA_i / 2 + sA_i sB / 4) (each
 *   input off by at most half a step), so a scale applied to the wrong row or off by a step
 *   fails ("failed-quantisation").
 * Figures: max_error and rms_error are the dequantised product's relative error (against
 * sum |a||b|, as elsewhere) with per-row scales for A, tolerance the largest bound seen;
 * quant_tensor_max_error / quant_tensor_rms_error the same with A quantised per tensor (computed
 * on the host from the same draws: what per-channel scales save); after the run
 * speedup_vs_bf16 beside speedup_vs_f32. The hook's test define "GB_QUANT_SHIFT" (tests only)
 * dequantises row i with row i+1's scale. */

void gb__gemm_quantize(const double *x, uint64_t n, uint64_t stride, double scale, int8_t *q)
{
    for (uint64_t i = 0; i < n; i++) {
        const double v = scale > 0 ? round(x[i * stride] / scale) : 0;
        q[i * stride] = (int8_t)(v > 127 ? 127 : v < -127 ? -127 : v);
    }
}

/* Row i of op(A) is a64[i + l lda] (nn) or a64[l + i lda] (transposed): its offset and stride. */
static void a_row(const struct gemm *s, uint64_t i, uint64_t *off, uint64_t *stride)
{
    *off = s->ta ? i * s->lda : i;
    *stride = s->ta ? 1 : s->lda;
}

static int i8_inputs(struct gb_case_ctx *ctx, struct gemm *s, uint64_t na, uint64_t nb)
{
    uint64_t seed = 0x18EEDull ^ s->m ^ (s->k << 20);
    s->qa = malloc(na);
    s->qb = malloc(nb);
    s->sa = malloc(s->m * sizeof *s->sa);
    if (!s->qa || !s->qb || !s->sa)
        return GB_FAIL(GB_ENOMEM, "i8 inputs of %llu and %llu elements", (unsigned long long)na,
                       (unsigned long long)nb);
    double amax = 0, bmax = 0;
    for (uint64_t i = 0; i < s->m; i++) {
        uint64_t off, st;
        a_row(s, i, &off, &st);
        const double f = exp2(6.0 * ((double)(gb_splitmix64(&seed) >> 11) * 0x1p-53) - 3.0);
        double rmax = 0;
        for (uint64_t l = 0; l < s->k; l++) {
            double *v = &s->a64[off + l * st];
            *v = (float)(*v * f);
            rmax = fmax(rmax, fabs(*v));
        }
        s->sa[i] = rmax / 127.0;
        amax = fmax(amax, rmax);
        gb__gemm_quantize(&s->a64[off], s->k, st, s->sa[i], &s->qa[off]);
    }
    for (uint64_t i = 0; i < nb; i++) {
        s->b64[i] = (float)s->b64[i];
        bmax = fmax(bmax, fabs(s->b64[i]));
    }
    s->sa_tensor = amax / 127.0;
    s->sb = bmax / 127.0;
    gb__gemm_quantize(s->b64, nb, 1, s->sb, s->qb);
    int err = gb_case_alloc(ctx, na, GB_MEM_DEVICE, &s->a);
    if (!err && !(err = gb_case_upload(ctx, s->a, s->qa, na)) &&
        !(err = gb_case_alloc(ctx, nb, GB_MEM_DEVICE, &s->b)))
        err = gb_case_upload(ctx, s->b, s->qb, nb);
    return err;
}

static int i8_verify(struct gb_case_ctx *ctx, struct gemm *s)
{
    const uint64_t nc = s->m * s->n;
    int err;
    int32_t *c = gb_case_read_back(ctx, s->c, nc * sizeof(int32_t), &err);
    if (!c)
        return err;
    const bool shift = s->hook.test_define && strcmp(s->hook.test_define, "GB_QUANT_SHIFT") == 0;
    struct gb_accuracy acc, ten;
    gb_accuracy_init(&acc);
    gb_accuracy_init(&ten);
    const bool all = nc <= 65536;
    const uint64_t count = all ? nc : 4096;
    uint64_t seed = 0xC0FFEEull;
    double worst_excess = 0, bound_max = 0;
    uint64_t bad_exact = UINT64_MAX, bad_quant = UINT64_MAX;
    int64_t exact_want = 0, exact_got = 0;
    double quant_err = 0, quant_bound = 0;
    for (uint64_t t = 0; t < count; t++) {
        uint64_t i, j;
        if (all)
            i = t % s->m, j = t / s->m;
        else if (t < 4)
            i = t & 1 ? s->m - 1 : 0, j = t & 2 ? s->n - 1 : 0;
        else
            i = gb_splitmix64(&seed) % s->m, j = gb_splitmix64(&seed) % s->n;
        uint64_t off, st;
        a_row(s, i, &off, &st);
        const uint64_t bst = s->tb ? s->ldb : 1, boff = s->tb ? j : j * s->ldb;
        int64_t q = 0, qt = 0;
        long double bound = 0;
        for (uint64_t l = 0; l < s->k; l++) {
            const double a = s->a64[off + l * st], b = s->b64[boff + l * bst];
            q += (int64_t)s->qa[off + l * st] * s->qb[boff + l * bst];
            const double at = s->sa_tensor > 0 ? round(a / s->sa_tensor) : 0;
            qt += (int64_t)at * s->qb[boff + l * bst];
            bound += fabs(a) * s->sb / 2 + fabs(b) * s->sa[i] / 2 + s->sa[i] * s->sb / 4;
        }
        const int32_t got = c[i + j * s->m];
        if ((int64_t)got != q && bad_exact == UINT64_MAX)
            bad_exact = i + j * s->m, exact_want = q, exact_got = got;
        double mag;
        const double ref =
            gb__gemm_ref(s->a64, s->lda, s->ta, s->b64, s->ldb, s->tb, s->k, i, j, &mag);
        const double sa = shift ? s->sa[(i + 1) % s->m] : s->sa[i];
        const double deq = sa * s->sb * (double)got;
        gb_accuracy_add(&acc, i + j * s->m, deq, ref, mag);
        gb_accuracy_add(&ten, i + j * s->m, s->sa_tensor * s->sb * (double)qt, ref, mag);
        /* The bound, with FP64's own rounding of the sums as slack. */
        const double b = (double)bound * (1 + 1e-12) + 1e-15 * mag;
        if (mag > 0)
            bound_max = fmax(bound_max, b / mag);
        if (fabs(deq - ref) - b > worst_excess) {
            worst_excess = fabs(deq - ref) - b;
            bad_quant = i + j * s->m, quant_err = fabs(deq - ref), quant_bound = b;
        }
    }
    free(c);
    s->rms = gb_accuracy_rms(&acc);
    s->quant_tensor_max = ten.max_rel;
    s->quant_tensor_rms = gb_accuracy_rms(&ten);
    s->quant_bound = bound_max;
    ctx->max_error = acc.max_rel;
    if (bad_exact != UINT64_MAX)
        return gb_case_mismatch(
            ctx, "failed-exact: C_q(%llu,%llu) = %lld, the integer product is %lld",
            (unsigned long long)(bad_exact % s->m), (unsigned long long)(bad_exact / s->m),
            (long long)exact_got, (long long)exact_want);
    if (bad_quant != UINT64_MAX)
        return gb_case_mismatch(ctx,
                                "failed-quantisation: C(%llu,%llu) dequantised is off the FP32 "
                                "product by %.3g, beyond the half-step bound %.3g",
                                (unsigned long long)(bad_quant % s->m),
                                (unsigned long long)(bad_quant / s->m), quant_err, quant_bound);
    return 0;
}

/* speedup_vs_bf16 on every ok i8 result: the bf16 result's time over its own, the same case
 * (both count 2 m n k operations; by time, as a memory-bound case's headline is GB/s). */
static void i8_speedups(struct gb_results *rs)
{
    for (size_t i = 0; i < rs->nresults; i++) {
        struct gb_result *r = &rs->results[i];
        if (strcmp(r->suite, "gemm") || r->status != GB_STATUS_OK ||
            strcmp(gb_params_str(&r->params, "prec"), "i8"))
            continue;
        for (size_t j = 0; j < rs->nresults; j++) {
            const struct gb_result *o = &rs->results[j];
            if (strcmp(o->suite, "gemm") || o->status != GB_STATUS_OK ||
                strcmp(gb_params_str(&o->params, "prec"), "bf16") ||
                o->device_index != r->device_index || strcmp(o->backend, r->backend) ||
                o->params.n != r->params.n || !(o->op_time_us.median > 0) ||
                !(r->op_time_us.median > 0))
                continue;
            bool same = true;
            for (size_t a = 0; a < r->params.n && same; a++)
                same = strcmp(r->params.name[a], "prec") == 0 ||
                       gb_value_equal(&r->params.v[a], &o->params.v[a]);
            if (same) {
                gb_result_figure(r, "speedup_vs_bf16", "",
                                 o->op_time_us.median / r->op_time_us.median);
                break;
            }
        }
    }
}

/* The arithmetic peak of precision p (GFLOP/s or GOP/s, 0: unknown): the library may use matrix
 * units; the own kernel computes in float (mixed, bf16) or in the precision itself on the vector
 * units. */
static double case_peak(enum gprec p, bool own, const struct gb_device_info *info, char *how,
                        size_t len)
{
    if (own)
        return gb_peak_ops(info,
                           p == GP_F64  ? GB_PEAK_F64
                           : p == GP_I8 ? GB_PEAK_I32
                                        : GB_PEAK_F32,
                           false, how, len) /
               1e9;
    return gb_peak_ops(info, gp[p].peak, true, how, len) / 1e9;
}

static int gemm_setup(struct gb_case_ctx *ctx)
{
    struct gemm *s = ctx->state;
    const struct gb_device_info *info = &ctx->dev->info;
    s->p = parse_prec(gb_params_str(ctx->params, "prec"));
    s->own = strcmp(gb_params_str(ctx->params, "impl"), "own") == 0;
    const char *tr = gb_params_str(ctx->params, "trans");
    s->ta = tr[0] == 't';
    s->tb = tr[1] == 't';
    s->wide = strcmp(gb_params_str(ctx->params, "dist"), "wide") == 0;
    s->sgn = strcmp(gb_params_str(ctx->params, "dist"), "signed") == 0;
    s->tol = gb_params_float(ctx->params, "tol");
    const char *shape = gb_params_str(ctx->params, "shape");
    /* A linear layer: C (out x tokens) = W (out x in) X (in x tokens). */
    if (!gb_preset_gemm_mnk(shape, &s->m, &s->n, &s->k, &s->preset))
        return GB_FAIL(GB_EINVAL, "shape \"%s\": expected N (square) or MxNxK, each 1..2^31",
                       shape);
    const bool fp8 = is_fp8(s->p) && !s->own;
    if (!fp8 && !s->own && !(info->caps & gp[s->p].cap)) {
        if (!ctx->ops->gemm)
            return gb_case_skip(ctx,
                                "the %s backend has no BLAS (built without CLBlast / "
                                "cuBLAS)",
                                ctx->ops->name);
        return gb_case_skip(ctx,
                            "%s GEMM: the %s backend's BLAS does not offer it on this "
                            "device (%s)",
                            gp[s->p].name, ctx->ops->name,
                            s->p == GP_F16     ? "no half precision: cl_khr_fp16 / sm_53"
                            : s->p == GP_F64   ? "no double precision"
                            : s->p == GP_TF32  ? "TF32 needs cuBLAS on sm_80+"
                            : s->p == GP_BF16  ? "BF16 needs cuBLAS on sm_80+"
                            : s->p == GP_MIXED ? "mixed precision needs cuBLAS; CLBlast has none"
                                               : "not available");
    }

    const enum gb_dtype in = gp[s->p].in, out = gp[s->p].out;
    const uint64_t ar = s->ta ? s->k : s->m, ac = s->ta ? s->m : s->k;
    const uint64_t br = s->tb ? s->n : s->k, bc = s->tb ? s->k : s->n;
    s->lda = ar, s->ldb = br;
    const uint64_t na = ar * ac, nb = br * bc, nc = s->m * s->n;
    int err;
    if (is_fp8(s->p) && s->own)
        return own_setup(ctx, s); /* its refusal */
    if (s->p == GP_I8 && (s->wide || s->sgn))
        return gb_case_skip(ctx, "i8 draws inputs of its own (per-row ranges): dist uniform "
                                 "only");
    if (fp8 && (err = fp8_refusals(ctx, s)))
        return err;
    /* In double: each dimension may be up to 2^31, so the byte counts overflow 64 bits. */
    const double need = ((double)na + (double)nb) * (double)gb_dtype_size(in) +
                        (double)nc * (double)gb_dtype_size(out);
    if (info->global_mem && need > (double)info->global_mem)
        return gb_case_skip(ctx, "A, B and C need %.4g bytes, the device has %llu", need,
                            (unsigned long long)info->global_mem);
    if (need > 0x1p60 || na > SIZE_MAX / 16 || nb > SIZE_MAX / 16 || nc > SIZE_MAX / 16)
        return gb_case_skip(ctx, "A, B and C need %.4g bytes: more than this host can address",
                            need);

    /* Inputs: one seeded stream per case shape and distribution, so every precision and
     * implementation multiplies the same matrices. */
    s->a64 = malloc(na * sizeof *s->a64);
    s->b64 = malloc(nb * sizeof *s->b64);
    if (!s->a64 || !s->b64)
        return GB_FAIL(GB_ENOMEM, "inputs of %llu and %llu elements", (unsigned long long)na,
                       (unsigned long long)nb);
    uint64_t seed = 0x5EEDull ^ (s->m * 73856093u) ^ (s->n * 19349663u) ^ (s->k * 83492791u) ^
                    (s->wide ? 0xD1CEull : 0) ^ (s->sgn ? 0x5167ull : 0);
    for (uint64_t i = 0; i < na; i++)
        s->a64[i] =
            s->sgn ? draw_signed(&seed, s->ta ? i % s->lda : i / s->lda) : draw(&seed, s->wide);
    for (uint64_t i = 0; i < nb; i++)
        s->b64[i] =
            s->sgn ? draw_signed(&seed, s->tb ? i / s->ldb : i % s->ldb) : draw(&seed, s->wide);
    if (s->p == GP_I8) {
        err = i8_inputs(ctx, s, na, nb);
    } else if (fp8) {
        if (!(err = upload_fp8(ctx, s->a64, na, in, &s->aq, &s->a)))
            err = upload_fp8(ctx, s->b64, nb, fp8_b_type, &s->bq, &s->b);
    } else if (!(err = upload_input(ctx, s->a64, na, in, &s->a))) {
        err = upload_input(ctx, s->b64, nb, in, &s->b);
    }
    if (err || (err = gb_case_alloc(ctx, nc * gb_dtype_size(out), GB_MEM_DEVICE, &s->c)))
        return err;

    if (fp8) {
        s->g8.a = s->a, s->g8.b = s->b, s->g8.c = s->c;
        snprintf(s->config, sizeof s->config, "%s cuBLASLt %s x %s TN", ctx->ops->name,
                 gb_dtype_name(s->g8.a_type), gb_dtype_name(s->g8.b_type));
        /* One untimed call: cuBLASLt loads now (the first time in the process) and the backend
         * makes its plan; a library that does not load is a recorded skip with the reason. */
        err = ctx->ops->gemm_fp8(ctx->q, &s->g8);
        if (err == GB_EUNSUPPORTED)
            return gb_case_skip(ctx, "%s", gb_error_msg());
    } else if (s->own) {
        if ((err = own_setup(ctx, s)))
            return err;
        err = ctx->ops->launch(ctx->q, s->kern, &s->l);
    } else {
        s->g = (struct gb_gemm){.a_type = in,
                                .c_type = out,
                                .compute = gp[s->p].acc,
                                .trans_a = s->ta,
                                .trans_b = s->tb,
                                .tf32 = gp[s->p].tf32,
                                .m = s->m,
                                .n = s->n,
                                .k = s->k,
                                .alpha = 1,
                                .beta = 0,
                                .a = s->a,
                                .b = s->b,
                                .c = s->c,
                                .lda = s->lda,
                                .ldb = s->ldb,
                                .ldc = s->m,
                                .batch = 1};
        snprintf(s->config, sizeof s->config, "%s", ctx->ops->name);
        /* One untimed call: the library compiles its kernels now (CLBlast on PoCL: seconds),
         * and says here if it cannot do this combination after all. */
        err = ctx->ops->gemm(ctx->q, &s->g);
        if (err == GB_EUNSUPPORTED)
            return gb_case_skip(ctx, "%s", gb_error_msg());
    }
    /* C now holds the untimed call's product: poison it, so that verify sees only what the
     * timed runs wrote. */
    if (err || (err = ctx->ops->queue_sync(ctx->q)) ||
        (err = gb_case_poison(ctx, s->c, nc * gb_dtype_size(out), out)))
        return err;
    ctx->op.flops = 2.0 * (double)s->m * (double)s->n * (double)s->k;
    ctx->op.integer = s->p == GP_I8;
    ctx->op.timer = GB_TIMER_DEVICE;
    /* The roofline decides the headline: a GEMV-shaped layer (decode at batch 1) moves its
     * weights once for 2 operations a weight, and its figure of merit is the bytes it moves. */
    s->bytes = need;
    s->peak = case_peak(s->p, s->own, info, NULL, 0);
    s->memory_bound = gb_gemm_memory_bound(info, ctx->op.flops, need, s->peak * 1e9, s->roofline,
                                           sizeof s->roofline);
    if (s->memory_bound) {
        ctx->op.bytes = need;
        ctx->op.working_set = need;
    }
    return 0;
}

static int gemm_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct gemm *s = ctx->state;
    int err = 0;
    for (uint64_t r = 0; r < reps && !err; r++)
        err = s->own         ? ctx->ops->launch(ctx->q, s->kern, &s->l)
              : is_fp8(s->p) ? ctx->ops->gemm_fp8(ctx->q, &s->g8)
                             : ctx->ops->gemm(ctx->q, &s->g);
    return err;
}

bool gb__gemm_tol_check(double value, char *why, size_t len)
{
    if (value >= 0)
        return true;
    snprintf(why, len, "a tolerance is a relative error >= 0 (0: the precision's default bound)");
    return false;
}

/* The default tolerance: gb_gemm_error_bound for the precision's formats (rigorous, grows like
 * k). Inputs drawn in FP64 and used as FP64 carry no input rounding; TF32 inputs are rounded
 * twice (to FP32, then to TF32 by the tensor cores).
 * For f32 and f64, whose accumulation is IEEE round-to-nearest on the vector units, the smaller
 * of that and the probabilistic bound of Higham and Mary ("A New Approach to Probabilistic
 * Rounding Error Analysis", SIAM J. Sci. Comput. 41(5), 2019, Theorem 3.1 for inner products):
 * the accumulation's error is at most gamma~_k(lambda) sum |a_l b_l|, with
 *   gamma~_k(lambda) = exp(lambda sqrt(k) u + k u^2 / (1 - u)) - 1,
 * except with probability at most 2 k exp(-lambda^2 (1 - u)^2 / 2); lambda is chosen so that
 * this is 1e-12 per element. With the inputs' rounding (1 + u_in)^2 and the output's (1 + u_out)
 * the tolerance is (1 + u_in)^2 (1 + gamma~) (1 + u_out) - 1. It grows like sqrt(k), as the
 * error of a correct GEMM does, so a GEMM that rounds its inputs to TF32 (2^-11) fails it where
 * the rigorous bound (k u) would let it pass. The tensor-core precisions keep the rigorous
 * bound: their accumulation need not round to nearest (Fasi, Higham, Mikaitis and Pranesh,
 * "Numerical behavior of NVIDIA tensor cores", PeerJ CS 2021), which the probabilistic model
 * assumes. The FP8 precisions measure against the product of their FP8-rounded inputs, so they
 * carry no input rounding (u_in 0), and their accumulation is taken at a unit roundoff of 2^-13,
 * not FP32's: the FP8 mma's own accumulator keeps about 13 mantissa bits on sm_89 / sm_90 (Zhang
 * et al., "SageAttention2", 2024; DeepSeek-AI, "DeepSeek-V3 Technical Report", 2024, section
 * 3.3.2: about 14 bits on H800), and cuBLASLt without fast accumulation promotes the partial
 * sums to FP32 only every so many products, so an FP32 bound could fail a correct GEMM. The
 * 2^-13 bound (k u, relative to sum |a b|) still fails a wrong layout, type or scale, whose
 * errors are of the order of the result itself. */
double gb__gemm_tolerance(enum gprec p, uint64_t k)
{
    const double u_in = p == GP_F64 || is_fp8(p) ? 0.0
                        : p == GP_TF32           ? 0x1p-11 + 0x1p-24
                                                 : gb_unit_roundoff(gp[p].in);
    const double u_acc = is_fp8(p) ? 0x1p-13 : gb_unit_roundoff(gp[p].acc);
    const double u_out = gb_unit_roundoff(gp[p].out);
    const double rigorous = gb_gemm_error_bound(k, u_in, u_acc, u_out);
    if (p != GP_F32 && p != GP_F64)
        return rigorous;
    const double kk = (double)(k ? k : 1);
    const double lambda = sqrt(2.0 * log(2.0 * kk / 1e-12)) / (1.0 - u_acc);
    const double gt = expm1(lambda * sqrt(kk) * u_acc + kk * u_acc * u_acc / (1.0 - u_acc));
    const double prob = (1.0 + u_in) * (1.0 + u_in) * (1.0 + gt) * (1.0 + u_out) - 1.0;
    return prob < rigorous ? prob : rigorous;
}

static double default_tol(enum gprec p, uint64_t k)
{
    return gb__gemm_tolerance(p, k);
}

double gb__gemm_ref(const double *a, uint64_t lda, bool ta, const double *b, uint64_t ldb, bool tb,
                    uint64_t k, uint64_t i, uint64_t j, double *mag)
{
    long double sum = 0, m = 0;
    for (uint64_t l = 0; l < k; l++) {
        const double x = ta ? a[l + i * lda] : a[i + l * lda];
        const double y = tb ? b[j + l * ldb] : b[l + j * ldb];
        sum += (long double)x * y;
        m += fabsl((long double)x * y);
    }
    *mag = (double)m;
    return (double)sum;
}

static double c_elem(enum gb_dtype t, const void *c, uint64_t i)
{
    switch (t) {
    case GB_F64:
        return ((const double *)c)[i];
    case GB_F32:
        return ((const float *)c)[i];
    case GB_F16:
        return gb_f16_to_double(((const uint16_t *)c)[i]);
    case GB_I32:
        return ((const int32_t *)c)[i];
    default:
        return gb_bf16_to_double(((const uint16_t *)c)[i]);
    }
}

static int gemm_verify(struct gb_case_ctx *ctx)
{
    struct gemm *s = ctx->state;
    if (s->p == GP_I8)
        return i8_verify(ctx, s);
    const enum gb_dtype out = gp[s->p].out;
    const uint64_t nc = s->m * s->n;
    int err;
    void *c = gb_case_read_back(ctx, s->c, nc * gb_dtype_size(out), &err);
    if (!c)
        return err;
    /* FP8: acc against the product of the FP8-rounded inputs (what the device multiplied: the
     * accumulation's and the output's error only); quant, apart, that product against the FP32
     * inputs' (what rounding the inputs to FP8 costs). Elsewhere acc against the unrounded
     * inputs (the whole price of the precision). */
    const bool fp8 = is_fp8(s->p);
    const double *ra = fp8 ? s->aq : s->a64, *rb = fp8 ? s->bq : s->b64;
    struct gb_accuracy acc, quant;
    gb_accuracy_init(&acc);
    gb_accuracy_init(&quant);
    const bool all = nc <= 65536;
    const uint64_t count = all ? nc : 4096;
    uint64_t seed = 0xC0FFEEull;
    for (uint64_t t = 0; t < count; t++) {
        uint64_t i, j;
        if (all) {
            i = t % s->m, j = t / s->m;
        } else if (t < 4) {
            i = t & 1 ? s->m - 1 : 0, j = t & 2 ? s->n - 1 : 0;
        } else {
            i = gb_splitmix64(&seed) % s->m, j = gb_splitmix64(&seed) % s->n;
        }
        double mag;
        const double ref = gb__gemm_ref(ra, s->lda, s->ta, rb, s->ldb, s->tb, s->k, i, j, &mag);
        gb_accuracy_add(&acc, i + j * s->m, c_elem(out, c, i + j * s->m), ref, mag);
        if (fp8) {
            double mag32;
            const double ref32 =
                gb__gemm_ref(s->a64, s->lda, s->ta, s->b64, s->ldb, s->tb, s->k, i, j, &mag32);
            gb_accuracy_add(&quant, i + j * s->m, ref, ref32, mag32);
        }
    }
    free(c);
    const double tol = s->tol > 0 ? s->tol : default_tol(s->p, s->k);
    s->rms = gb_accuracy_rms(&acc);
    s->quant_max = quant.max_rel;
    s->quant_rms = gb_accuracy_rms(&quant);
    ctx->max_error = acc.max_rel;
    if (!(acc.max_rel <= tol)) {
        const uint64_t wi = acc.worst % s->m, wj = acc.worst / s->m;
        return gb_case_mismatch(ctx,
                                "failed-accuracy: max relative error %.3g > tolerance "
                                "%.3g (C(%llu,%llu) = %.9g, FP64 reference%s %.9g; rms "
                                "%.3g over %llu elements, %llu not finite)",
                                acc.max_rel, tol, (unsigned long long)wi, (unsigned long long)wj,
                                acc.worst_got, fp8 ? " of the FP8-rounded inputs" : "",
                                acc.worst_ref, s->rms, (unsigned long long)acc.n,
                                (unsigned long long)acc.nonfinite);
    }
    return 0;
}

static void gemm_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct gemm *s = ctx->state;
    if (s->p == GP_I8) {
        gb_case_accuracy_figures(ctx, s->rms, s->quant_bound);
        gb_case_figure(ctx, "quant_tensor_max_error", "", s->quant_tensor_max);
        gb_case_figure(ctx, "quant_tensor_rms_error", "", s->quant_tensor_rms);
        gb_case_text(ctx, "error_reference", "%s", GB__GEMM_I8_ERRORS);
    } else {
        gb_case_accuracy_figures(ctx, s->rms, s->tol > 0 ? s->tol : default_tol(s->p, s->k));
    }
    gb_case_text(ctx, "config", "%s", s->config);
    gb_case_text(ctx, "roofline", "%s", s->roofline);
    gb_case_figure(ctx, "intensity", "FLOP/B", ctx->op.flops / s->bytes);
    if (s->memory_bound && op_time_s > 0) {
        /* The arithmetic rate beside the GB/s headline, bounded by the case's peak. */
        const char *unit = s->p == GP_I8 ? "GOP/s" : "GFLOP/s";
        const double rate = ctx->op.flops / op_time_s / 1e9;
        if (s->peak > 0)
            gb_case_figure_bounded(ctx, "gflops", unit, rate, s->peak);
        else
            gb_case_figure(ctx, "gflops", unit, rate);
    }
    if (s->preset)
        gb_case_text(ctx, "dims", "%llux%llux%llu", (unsigned long long)s->m,
                     (unsigned long long)s->n, (unsigned long long)s->k);
    if (is_fp8(s->p)) {
        gb_case_figure(ctx, "input_quant_max_error", "", s->quant_max);
        gb_case_figure(ctx, "input_quant_rms_error", "", s->quant_rms);
        /* What each error is against (a text figure holds 63 characters). */
        gb_case_text(ctx, "error_reference", "%s", GB__GEMM_FP8_ERRORS);
    }
}

static void gemm_teardown(struct gb_case_ctx *ctx)
{
    struct gemm *s = ctx->state;
    gb_case_free_bufs(ctx, &s->a, &s->b, &s->c, NULL);
    gb_case_free_kernel(ctx, &s->kern, &s->prog);
    free(s->a64);
    free(s->b64);
    free(s->aq);
    free(s->bq);
    free(s->qa);
    free(s->qb);
    free(s->sa);
    s->qa = s->qb = NULL;
    s->sa = NULL;
}

/* A result's arithmetic peak (case_peak). */
static double gemm_peak(const struct gb_result *r, const struct gb_device_info *info, char *how,
                        size_t len)
{
    return case_peak(parse_prec(gb_params_str(&r->params, "prec")),
                     strcmp(gb_params_str(&r->params, "impl"), "own") == 0, info, how, len);
}

/* One GEMM's arithmetic from the shape alone, presets included (validate's estimate). */
static double gemm_op_flops(const struct gb_params *p)
{
    uint64_t m, n, k;
    if (gb_preset_gemm_mnk(gb_params_str(p, "shape"), &m, &n, &k, NULL))
        return 2.0 * (double)m * (double)n * (double)k;
    return 0;
}

/* What a case holds at once (gb_suite.footprint), as gemm_setup and gemm_verify allocate it:
 * on the host the inputs' FP64 draws (8 (na + nb) bytes: a64, b64), i8's quantised copies and
 * row scales (na + nb + 8 m), FP8's quantised values kept for verify (8 (na + nb)), and at the
 * peak of an upload or a read-back a converted copy and its staging buffer (twice the largest of
 * A, B and C in their device types); on the device A, B and C. na, nb and nc are the element
 * counts of A (m x k), B (k x n) and C (m x n); presets' layers as gemm_setup reads them. */
static void gemm_footprint(const struct gb_params *p, const struct gb_device_info *info,
                           struct gb_footprint *fp)
{
    (void)info;
    uint64_t m, n, k;
    if (!gb_preset_gemm_mnk(gb_params_str(p, "shape"), &m, &n, &k, NULL))
        return;
    const enum gprec pc = parse_prec(gb_params_str(p, "prec"));
    const bool fp8 = is_fp8(pc);
    const double na = (double)m * (double)k, nb = (double)k * (double)n, nc = (double)m * (double)n;
    const double ea = (double)gb_dtype_size(gp[pc].in),
                 eb = fp8 ? (double)gb_dtype_size(fp8_b_type) : ea,
                 ec = (double)gb_dtype_size(gp[pc].out);
    const double a = na * ea, b = nb * eb, c = nc * ec;
    double host = 8 * (na + nb);
    if (pc == GP_I8)
        host += na + nb + 8 * (double)m;
    if (fp8)
        host += 8 * (na + nb);
    host += 2 * fmax(fmax(a, b), c);
    *fp = (struct gb_footprint){.host = host, .device = a + b + c, .largest = fmax(fmax(a, b), c)};
}

static int gemm_derive(struct gb_results *rs)
{
    /* By time: one shape's precisions do the same work, and a memory-bound one's headline is
     * GB/s, not a rate of operations to divide by another's. */
    gb_suite_precision_derive(rs, "gemm", "prec", "f32", true, gemm_peak);
    i8_speedups(rs);
    return gb_preset_model_derive(rs, "gemm", GB_PRESET_GEMM);
}

const struct gb_suite gb_suite_gemm = {
    .name = "gemm",
    .summary = "matrix multiply (GFLOP/s) and its accuracy per precision: BLAS library and own "
               "tiled kernel",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "prec",
    .state_size = sizeof(struct gemm),
    .normalize = gemm_normalize,
    .setup = gemm_setup,
    .run = gemm_run,
    .verify = gemm_verify,
    .teardown = gemm_teardown,
    .figures = gemm_figures,
    .derive = gemm_derive,
    .op_flops = gemm_op_flops,
    .footprint = gemm_footprint,
};
