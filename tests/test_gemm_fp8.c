/* The gemm suite's FP8 precisions (f8e4m3, f8e5m2) without a GPU: the host side alone (the
 * inputs' rounding to FP8, the reference in the TN layout, cuBLASLt's rules, the tolerance, the
 * FP8 peak), then the whole suite case on the OpenCL device (PoCL here) with a backend whose
 * gemm_fp8 is emulated on the host in FP32 — right, in the wrong layout, with a 16-bit output,
 * or refusing — so that setup, the uploaded bytes, verify and its figures are checked end to
 * end; and a run on plain OpenCL, where every FP8 case is a recorded skip with the reason. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "suites/suites.h"
#include "base/fp8.h"
#include "run/config.h"
#include "run/plan.h"
#include "backends/precision.h"
#include "suites/gemm_state.h"
#include "test.h"

/* ---- the host side ---------------------------------------------------------------------------- */

TEST(fp8_gemm_quantize_rounds_through_float_to_fp8)
{
    const double x[] = {0.3, 500.0, -1e-4, 0.1, -1.0, 1.0 + 0x1p-30};
    const size_t n = sizeof x / sizeof x[0];
    uint8_t b4[6], b5[6];
    double x32[6], q4[6], q5[6];
    gb__gemm_fp8_quantize(x, n, GB_F8E4M3, b4, x32, q4);
    /* The FP32 inputs are the draws rounded to float. */
    for (size_t i = 0; i < n; i++)
        ASSERT_NEAR(x32[i], (double)(float)x[i], 0);
    ASSERT(x32[3] != 0.1 && x32[5] == 1.0);
    /* 0.3 = 1.2 x 2^-2: E4M3 keeps 3 bits, 1.25 (0x2A, 0.3125); E5M2 keeps 2, also 1.25 (0x35). */
    ASSERT_EQ(b4[0], 0x2A);
    ASSERT_NEAR(q4[0], 0.3125, 0);
    ASSERT_EQ(b4[1], 0x7E); /* saturates to 448 */
    ASSERT_NEAR(q4[1], 448.0, 0);
    ASSERT_EQ(b4[2], 0x80); /* below half the least subnormal (2^-10): -0 */
    ASSERT(q4[2] == 0 && signbit(q4[2]));
    ASSERT_EQ(b4[4], 0xB8);
    ASSERT_NEAR(q4[4], -1.0, 0);
    gb__gemm_fp8_quantize(x, n, GB_F8E5M2, b5, x32, q5);
    ASSERT_EQ(b5[0], 0x35);
    ASSERT_NEAR(q5[0], 0.3125, 0);
    ASSERT_EQ(b5[1], 0x60); /* 500 -> 512 = 2^9, nearer than 448 (E5M2 has no saturation here) */
    ASSERT_NEAR(q5[1], 512.0, 0);
    ASSERT_NEAR(q5[2], -1.75 * 0x1p-14, 0); /* 1e-4 = 1.6384 x 2^-14, normal in E5M2 */
    /* Every byte decodes to the value reported. */
    for (size_t i = 0; i < n; i++) {
        ASSERT_NEAR(q4[i], gb_fp8_e4m3_to_float(b4[i]), 0);
        ASSERT_NEAR(q5[i], gb_fp8_e5m2_to_float(b5[i]), 0);
    }
    /* In place (x32 = x), as the suite calls it. */
    double y[2] = {0.1, 0.3}, yq[2];
    uint8_t yb[2];
    gb__gemm_fp8_quantize(y, 2, GB_F8E4M3, yb, y, yq);
    ASSERT_NEAR(y[0], (double)0.1f, 0);
    ASSERT_NEAR(yq[1], 0.3125, 0);
}

TEST(fp8_gemm_reference_reads_the_tn_layout)
{
    /* op(A) is 2 x 4 (m x k) and op(B) 4 x 3 (k x n). TN: A stored k x m (lda 4), B stored
     * k x n (ldb 4): op(A)(i, l) = a[l + 4 i], op(B)(l, j) = b[l + 4 j]. */
    enum { M = 2, N = 3, K = 4 };
    double opa[M][K], opb[K][N], a_tn[K * M], a_nn[M * K], b_nn[K * N], b_t[N * K];
    for (int i = 0; i < M; i++)
        for (int l = 0; l < K; l++) {
            opa[i][l] = (i + 1) * 0.5 - l * 0.25 + (l == 2 ? -3 : 0);
            a_tn[l + K * i] = opa[i][l];
            a_nn[i + M * l] = opa[i][l];
        }
    for (int l = 0; l < K; l++)
        for (int j = 0; j < N; j++) {
            opb[l][j] = (j - 1) * 1.5 + l * 0.125;
            b_nn[l + K * j] = opb[l][j];
            b_t[j + N * l] = opb[l][j];
        }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double want = 0, want_mag = 0;
            for (int l = 0; l < K; l++) {
                want += opa[i][l] * opb[l][j];
                want_mag += fabs(opa[i][l] * opb[l][j]);
            }
            double mag = -1;
            ASSERT_NEAR(gb__gemm_ref(a_tn, K, true, b_nn, K, false, K, i, j, &mag), want, 1e-12);
            ASSERT_NEAR(mag, want_mag, 1e-12);
            /* The same product from the other layouts. */
            ASSERT_NEAR(gb__gemm_ref(a_nn, M, false, b_nn, K, false, K, i, j, &mag), want, 1e-12);
            ASSERT_NEAR(gb__gemm_ref(a_tn, K, true, b_t, N, true, K, i, j, &mag), want, 1e-12);
        }
    /* The sum is long double: 1 + 2^-60 - 1 is not lost where long double has 64 bits. */
    const double a1[] = {1.0, 0x1p-30, -1.0}, b1[] = {1.0, 0x1p-30, 1.0};
    double mag;
    const double r = gb__gemm_ref(a1, 3, true, b1, 3, false, 3, 0, 0, &mag);
    if (sizeof(long double) > sizeof(double))
        ASSERT_NEAR(r, 0x1p-60, 0);
    ASSERT_NEAR(mag, 2 + 0x1p-60, 0);
}

static struct gb_gemm_fp8 valid_fp8(void)
{
    return (struct gb_gemm_fp8){.a_type = GB_F8E4M3,
                                .b_type = GB_F8E4M3,
                                .c_type = GB_F32,
                                .trans_a = true,
                                .trans_b = false,
                                .m = 64,
                                .n = 48,
                                .k = 80,
                                .lda = 80,
                                .ldb = 80,
                                .ldc = 64};
}

TEST(fp8_gemm_check_states_cublaslt_rules)
{
    struct gb_gemm_fp8 g = valid_fp8();
    ASSERT_OK(gb_gemm_fp8_check(&g));
    g.a_type = GB_F8E5M2; /* E5M2 x E4M3 and E4M3 x E5M2 are in cuBLASLt's table */
    ASSERT_OK(gb_gemm_fp8_check(&g));
    g.c_type = GB_BF16;
    ASSERT_OK(gb_gemm_fp8_check(&g));
    g.b_type = GB_F8E5M2;
    ASSERT_EQ(gb_gemm_fp8_check(&g), GB_EUNSUPPORTED);
    ASSERT_CONTAINS(gb_error_msg(), "no f8e5m2 x f8e5m2");

    g = valid_fp8();
    g.trans_a = false;
    ASSERT_EQ(gb_gemm_fp8_check(&g), GB_EUNSUPPORTED);
    ASSERT_CONTAINS(gb_error_msg(), "\"TN\" layout");
    ASSERT_CONTAINS(gb_error_msg(), "not nn");
    g = valid_fp8();
    g.trans_b = true;
    ASSERT_EQ(gb_gemm_fp8_check(&g), GB_EUNSUPPORTED);
    ASSERT_CONTAINS(gb_error_msg(), "not tt");

    g = valid_fp8();
    g.a_type = GB_F16;
    ASSERT_EQ(gb_gemm_fp8_check(&g), GB_EUNSUPPORTED);
    ASSERT_CONTAINS(gb_error_msg(), "f8e4m3 or f8e5m2, not f16");
    g = valid_fp8();
    g.c_type = GB_F64;
    ASSERT_EQ(gb_gemm_fp8_check(&g), GB_EUNSUPPORTED);
    ASSERT_CONTAINS(gb_error_msg(), "not f64");

    /* Every size and leading dimension: a non-zero multiple of 16. */
    const size_t off[] = {offsetof(struct gb_gemm_fp8, m),   offsetof(struct gb_gemm_fp8, n),
                          offsetof(struct gb_gemm_fp8, k),   offsetof(struct gb_gemm_fp8, lda),
                          offsetof(struct gb_gemm_fp8, ldb), offsetof(struct gb_gemm_fp8, ldc)};
    const char *const name[] = {"m = 100",   "n = 100",   "k = 100",
                                "lda = 100", "ldb = 100", "ldc = 100"};
    for (size_t i = 0; i < 6; i++) {
        g = valid_fp8();
        g.lda = g.ldb = 112, g.ldc = 112; /* room for 100 */
        *(uint64_t *)((char *)&g + off[i]) = 100;
        ASSERT_EQ(gb_gemm_fp8_check(&g), GB_EUNSUPPORTED);
        ASSERT_CONTAINS(gb_error_msg(), "multiples of 16");
        ASSERT_CONTAINS(gb_error_msg(), name[i]);
    }
    g = valid_fp8();
    g.k = 0;
    ASSERT_EQ(gb_gemm_fp8_check(&g), GB_EUNSUPPORTED);
    g = valid_fp8();
    g.lda = 64; /* a multiple of 16, but below k = 80 */
    ASSERT_EQ(gb_gemm_fp8_check(&g), GB_EUNSUPPORTED);
    ASSERT_CONTAINS(gb_error_msg(), "lda 64");
}

TEST(fp8_gemm_tolerance_types_and_peak)
{
    ASSERT_EQ(gb_dtype_size(GB_F8E4M3), 1);
    ASSERT_EQ(gb_dtype_size(GB_F8E5M2), 1);
    ASSERT_STR(gb_dtype_name(GB_F8E4M3), "f8e4m3");
    ASSERT_STR(gb_dtype_name(GB_F8E5M2), "f8e5m2");
    ASSERT_NEAR(gb_unit_roundoff(GB_F8E4M3), 0x1p-4, 0);
    ASSERT_NEAR(gb_unit_roundoff(GB_F8E5M2), 0x1p-3, 0);
    /* The reference is the product of the FP8-rounded inputs: no input term, the FP8 mma's
     * 13-bit accumulation and FP32 output (the rigorous bound: tensor cores). */
    const uint64_t ks[] = {16, 256, 4096, 1u << 20};
    for (size_t i = 0; i < 4; i++) {
        const double want = gb_gemm_error_bound(ks[i], 0, 0x1p-13, 0x1p-24);
        ASSERT_NEAR(gb__gemm_tolerance(GP_F8E4M3, ks[i]), want, 0);
        ASSERT_NEAR(gb__gemm_tolerance(GP_F8E5M2, ks[i]), want, 0);
    }
    /* Peak: H100 SXM5's 1979 dense FP8 TFLOP/s at 132 SMs x 1830 MHz; sm_89 2048 per SM per
     * clock; none before sm_89, none on the vector units. */
    struct gb_device_info in = {.compute_units = 132, .clock_mhz = 1830};
    snprintf(in.arch, sizeof in.arch, "sm_90");
    char how[256];
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_F8, true, how, sizeof how) / 1e12, 1979, 1);
    ASSERT_CONTAINS(how, "FP8 (FP32 accumulate)");
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_F8, false, how, sizeof how), 0, 0);
    snprintf(in.arch, sizeof in.arch, "sm_89");
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_F8, true, NULL, 0), 132 * 1830e6 * 2048, 1);
    snprintf(in.arch, sizeof in.arch, "sm_86");
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_F8, true, how, sizeof how), 0, 0);
    ASSERT_CONTAINS(how, "no FP8");
}

/* ---- the whole case, with gemm_fp8 emulated on the host ------------------------------------- */

enum emu_mode {
    EMU_RIGHT,       /* TN, FP32 accumulation, FP32 output */
    EMU_NN,          /* reads A as stored without the transpose */
    EMU_ACC13,       /* right, but the running sum keeps 13 mantissa bits (truncated), as the
                      * FP8 mma's own accumulator does on sm_89 / sm_90: must pass */
    EMU_B_E5M2,      /* reads B's E4M3 bytes as E5M2 (a type mix-up) */
    EMU_UNSUPPORTED, /* the library does not load */
    EMU_FAILS,       /* a library status */
};
static enum emu_mode emu_mode;
static int emu_calls;

static uint8_t *read_buf(struct gb_queue *q, struct gb_buf *b, struct gb_buf **host)
{
    const struct gb_backend_ops *ops = q->dev->ops;
    ASSERT_OK(ops->buf_alloc(q->dev, b->bytes, GB_MEM_HOST_PAGEABLE, host));
    ASSERT_OK(ops->copy(q, *host, 0, b, 0, b->bytes, GB_COPY_BLOCKING));
    return (*host)->host;
}

static double fp8_value(enum gb_dtype t, uint8_t v)
{
    return t == GB_F8E5M2 ? gb_fp8_e5m2_to_float(v) : gb_fp8_e4m3_to_float(v);
}

/* gemm_fp8 on the host, synchronously: what cuBLASLt computes (FP8 products, exact in float,
 * summed in float), or one of the faults of emu_mode. */
static int emu_gemm_fp8(struct gb_queue *q, const struct gb_gemm_fp8 *g)
{
    emu_calls++;
    int rc = gb_gemm_fp8_check(g);
    if (rc)
        return rc;
    if (emu_mode == EMU_UNSUPPORTED)
        return GB_FAIL(GB_EUNSUPPORTED, "cuBLASLt (libcublasLt.so.13) not loaded: emulated");
    if (emu_mode == EMU_FAILS)
        return GB_FAIL(GB_EBACKEND, "cublasLtMatmul: CUBLAS_STATUS_EXECUTION_FAILED (13): "
                                    "emulated");
    const struct gb_backend_ops *ops = q->dev->ops;
    struct gb_buf *ha, *hb, *hc;
    const uint8_t *a = read_buf(q, g->a, &ha), *b = read_buf(q, g->b, &hb);
    ASSERT_OK(ops->buf_alloc(q->dev, g->c->bytes, GB_MEM_HOST_PAGEABLE, &hc));
    float *c = hc->host;
    for (uint64_t j = 0; j < g->n; j++)
        for (uint64_t i = 0; i < g->m; i++) {
            float sum = 0;
            for (uint64_t l = 0; l < g->k; l++) {
                const uint64_t ia = emu_mode == EMU_NN ? i + l * g->m : l + i * g->lda;
                const enum gb_dtype bt = emu_mode == EMU_B_E5M2 ? GB_F8E5M2 : g->b_type;
                sum += (float)(fp8_value(g->a_type, a[ia]) * fp8_value(bt, b[l + j * g->ldb]));
                if (emu_mode == EMU_ACC13) { /* keep the top 13 of float's 23 mantissa bits */
                    uint32_t u;
                    memcpy(&u, &sum, sizeof u);
                    u &= ~(uint32_t)0x3ff;
                    memcpy(&sum, &u, sizeof sum);
                }
            }
            c[i + j * g->ldc] = sum;
        }
    ASSERT_OK(ops->copy(q, g->c, 0, hc, 0, g->c->bytes, GB_COPY_BLOCKING));
    ops->buf_free(ha);
    ops->buf_free(hb);
    ops->buf_free(hc);
    return 0;
}

struct fp8_case {
    struct gb_profile p;
    struct gb_plan plan;
    struct gb_backend_ops ops;
    struct gb_device *dev;
    struct gb_queue *q;
    struct gb_case_ctx ctx;
    const struct gb_suite *suite;
};

/* Plans the one gemm case of `params` on OpenCL device 0, opens it with gemm_fp8 emulated and
 * (with `cap`) GB_CAP_BLAS_FP8 set, and runs setup: its status. */
static int fp8_setup(struct fp8_case *c, const char *params, bool cap)
{
    char yaml[512], err[1024];
    snprintf(yaml, sizeof yaml, "suites:\n  - suite: gemm\n    params: %s\n", params);
    ASSERT_MSG(gb_profile_load_string(gb_suites_builtin(), yaml, "test", NULL, 0, &c->p, err,
                                      sizeof err) == 0,
               "%s", err);
    c->plan = (struct gb_plan){0};
    int r = gb_plan_devices(&c->p, "opencl", "0", &c->plan);
    if (r == GB_ENODEV)
        SKIP("no OpenCL device: %s", gb_error_msg());
    ASSERT_OK(r);
    ASSERT_OK(gb_plan_expand(&c->p, NULL, &c->plan));
    ASSERT_EQ(c->plan.ncases, 1);
    c->ops = *c->plan.devices[0].ops;
    c->ops.gemm_fp8 = emu_gemm_fp8;
    ASSERT_OK(c->ops.device_open(0, &c->dev));
    if (cap)
        c->dev->info.caps |= GB_CAP_BLAS_FP8;
    ASSERT_OK(c->ops.queue_create(c->dev, &c->q));
    c->suite = gb_suite_table_find(gb_suites_builtin(), "gemm");
    ASSERT(c->suite);
    c->ctx = (struct gb_case_ctx){
        .ops = &c->ops, .dev = c->dev, .q = c->q, .params = &c->plan.cases[0].params};
    c->ctx.state = calloc(1, c->suite->state_size);
    emu_calls = 0;
    return c->suite->setup(&c->ctx);
}

static void fp8_done(struct fp8_case *c)
{
    c->suite->teardown(&c->ctx);
    free(c->ctx.state);
    c->ops.queue_destroy(c->q);
    c->ops.device_close(c->dev);
    gb_plan_free(&c->plan);
    gb_profile_free(&c->p);
}

TEST_TIMEOUT(fp8_gemm_case_verifies_an_fp32_accumulation, 120)
{
    static const char *const params[] = {
        "{prec: f8e4m3, impl: library, shape: 64x48x80, trans: tn}",
        "{prec: f8e5m2, impl: library, shape: 64x48x80, trans: tn}",
        "{prec: f8e4m3, impl: library, shape: 32x16x512, trans: tn, dist: wide}",
        /* Above 65536 elements verify samples (the corners and 4092 seeded positions). */
        "{prec: f8e4m3, impl: library, shape: 320x256x32, trans: tn}",
    };
    for (size_t t = 0; t < sizeof params / sizeof params[0]; t++) {
        struct fp8_case c;
        emu_mode = EMU_RIGHT;
        ASSERT_OK(fp8_setup(&c, params[t], true));
        ASSERT_EQ(emu_calls, 1); /* the untimed call */
        struct gemm *s = c.ctx.state;
        ASSERT_CONTAINS(s->config, "cuBLASLt");
        ASSERT_OK(c.suite->run(&c.ctx, 2));
        ASSERT_EQ(emu_calls, 3);
        ASSERT_OK(c.ops.queue_sync(c.q));
        ASSERT_OK(c.suite->verify(&c.ctx));
        const double tol = gb__gemm_tolerance(s->p, s->k);
        /* FP32 accumulation: within the bound (often exact: FP8 products carry 8 significant
         * bits on a grid of 2^-18, so short sums fit a float); the FP8 rounding of the inputs,
         * apart, orders of magnitude larger and within 2u + u^2 of the two formats (plus the
         * underflow of the tiniest inputs). */
        const double ua = s->p == GP_F8E5M2 ? 0x1p-3 : 0x1p-4, ub = 0x1p-4;
        printf("%s: max_error %.3g rms %.3g (tolerance %.3g); input_quant max %.3g rms %.3g\n",
               params[t], c.ctx.max_error, s->rms, tol, s->quant_max, s->quant_rms);
        ASSERT(c.ctx.max_error >= 0 && c.ctx.max_error <= tol);
        ASSERT(s->rms >= 0 && s->rms <= c.ctx.max_error);
        ASSERT(s->quant_max > 1e-3 && s->quant_max > 100 * c.ctx.max_error);
        ASSERT(s->quant_max <= ua + ub + ua * ub + 0x1p-8);
        ASSERT(s->quant_rms > 0 && s->quant_rms <= s->quant_max);
        /* The figures, whole (a text figure keeps 63 characters). */
        c.suite->figures(&c.ctx, 1e-3);
        const struct gb_figure *qm = NULL, *qr = NULL, *ref = NULL, *tl = NULL;
        for (size_t f = 0; f < c.ctx.nfigures; f++) {
            const char *nm = c.ctx.figures[f].name;
            qm = strcmp(nm, "input_quant_max_error") ? qm : &c.ctx.figures[f];
            qr = strcmp(nm, "input_quant_rms_error") ? qr : &c.ctx.figures[f];
            ref = strcmp(nm, "error_reference") ? ref : &c.ctx.figures[f];
            tl = strcmp(nm, "tolerance") ? tl : &c.ctx.figures[f];
        }
        ASSERT(qm && qr && ref && tl);
        ASSERT_NEAR(qm->v[0], s->quant_max, 0);
        ASSERT_NEAR(qr->v[0], s->quant_rms, 0);
        ASSERT_NEAR(tl->v[0], tol, 0);
        ASSERT_STR(ref->text, GB__GEMM_FP8_ERRORS);
        ASSERT(c.ctx.nfigures + 3 <= GB_MAX_FIGURES); /* room for peak, of_peak, speedup_vs_f32 */
        fp8_done(&c);
    }
}

/* A right GEMM whose accumulator keeps only 13 mantissa bits between promotions (the FP8 mma's
 * own, on sm_89 / sm_90) passes: the tolerance is not FP32's. */
TEST_TIMEOUT(fp8_gemm_case_passes_a_13_bit_accumulator, 120)
{
    static const char *const params[] = {
        "{prec: f8e4m3, impl: library, shape: 64x48x80, trans: tn}",
        "{prec: f8e5m2, impl: library, shape: 32x16x4096, trans: tn}",
    };
    for (size_t t = 0; t < 2; t++) {
        struct fp8_case c;
        emu_mode = EMU_ACC13;
        ASSERT_OK(fp8_setup(&c, params[t], true));
        ASSERT_OK(c.suite->run(&c.ctx, 1));
        ASSERT_OK(c.ops.queue_sync(c.q));
        int rc = c.suite->verify(&c.ctx);
        ASSERT_MSG(rc == 0, "%s: %s", params[t], c.ctx.reason);
        printf("%s: max_error %.3g\n", params[t], c.ctx.max_error);
        fp8_done(&c);
    }
}

TEST_TIMEOUT(fp8_gemm_case_catches_a_wrong_layout_or_output, 120)
{
    const enum emu_mode modes[] = {EMU_NN, EMU_B_E5M2};
    for (size_t t = 0; t < 2; t++) {
        struct fp8_case c;
        emu_mode = modes[t];
        ASSERT_OK(fp8_setup(&c, "{prec: f8e4m3, impl: library, shape: 64x48x80, trans: tn}", true));
        ASSERT_OK(c.suite->run(&c.ctx, 1));
        ASSERT_EQ(c.suite->verify(&c.ctx), GB_EVERIFY);
        printf("verify said: %s\n", c.ctx.reason);
        ASSERT_CONTAINS(c.ctx.reason, "failed-accuracy");
        ASSERT_CONTAINS(c.ctx.reason, "FP64 reference of the FP8-rounded inputs");
        fp8_done(&c);
    }
}

TEST_TIMEOUT(fp8_gemm_case_refusals, 120)
{
    static const struct {
        const char *params;
        bool cap;
        enum emu_mode mode;
        int want;
        const char *reason;
    } t[] = {
        {"{prec: f8e4m3, impl: library, shape: 100, trans: tn}", true, EMU_RIGHT, GB_ESKIP,
         "multiples of 16"},
        {"{prec: f8e5m2, impl: library, shape: 64, trans: nn}", true, EMU_RIGHT, GB_ESKIP,
         "\"TN\" layout"},
        {"{prec: f8e4m3, impl: library, shape: 64, trans: tn}", false, EMU_RIGHT, GB_ESKIP,
         "FP8 GEMM needs cuBLASLt on CUDA sm_89+: this device is"},
        {"{prec: f8e4m3, impl: own, shape: 64, trans: tn}", true, EMU_RIGHT, GB_ESKIP,
         "own kernel: no FP8 path"},
        {"{prec: f8e4m3, impl: library, shape: 64, trans: tn}", true, EMU_UNSUPPORTED, GB_ESKIP,
         "libcublasLt.so.13) not loaded"},
        {"{prec: f8e4m3, impl: library, shape: 64, trans: tn}", true, EMU_FAILS, GB_EBACKEND, NULL},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct fp8_case c;
        emu_mode = t[i].mode;
        const int r = fp8_setup(&c, t[i].params, t[i].cap);
        printf("%s: %d %s %s\n", t[i].params, r, c.ctx.reason, gb_error_msg());
        ASSERT_EQ(r, t[i].want);
        if (t[i].reason)
            ASSERT_CONTAINS(c.ctx.reason, t[i].reason);
        else
            ASSERT_CONTAINS(gb_error_msg(), "CUBLAS_STATUS_EXECUTION_FAILED");
        /* Refusals come before any call, but for the library's own. */
        ASSERT_EQ(emu_calls, t[i].mode == EMU_RIGHT ? 0 : 1);
        fp8_done(&c);
    }
}

/* ---- plain OpenCL: recorded skips, and the run goes on --------------------------------------- */

TEST_TIMEOUT(fp8_gemm_opencl_records_skips_and_goes_on, 180)
{
    struct gb_results rs;
    gb_test_run_profile("measure: {min_samples: 3, max_samples: 5, max_time: 50ms, "
                        "min_sample_time: 1ms, warmup_runs: 1}\n"
                        "suites:\n  - suite: gemm\n    params: {prec: [f8e4m3, f32, f8e5m2], "
                        "impl: library, shape: 64, trans: tn}\n",
                        NULL, &rs);
    size_t skipped = 0, ok = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        const char *prec = gb_params_str(&r->params, "prec");
        if (strncmp(prec, "f8", 2) == 0) {
            ASSERT_EQ(r->status, GB_STATUS_SKIPPED);
            ASSERT_CONTAINS(r->reason, "FP8 GEMM needs cuBLASLt on CUDA sm_89+");
            skipped++;
        } else {
            ASSERT_MSG(r->status == GB_STATUS_OK, "%s: %s", prec, r->reason);
            ok++;
        }
    }
    /* Every OpenCL device: two FP8 skips, and the f32 case after the first still ran. */
    ASSERT(ok >= 1);
    ASSERT_EQ(skipped, 2 * ok);
    gb_results_free(&rs);
}
