/* Verification that a wrong kernel cannot pass and a right one cannot fail: a table of
 * deliberately broken kernels across memory, compute (float and integer), gemm (own kernel) and
 * fp16 — a timed path that does nothing (setup's poison must show), a partial write, dropped
 * terms of a reduction, a lower-precision computation — each caught by verify(), and each case
 * verified when nothing is broken, at several sizes and work-group sizes. Kernels are broken by
 * the GB_BREAK define each kernel file documents (the test hook of suites/common.h) or by
 * tampering with the output on the host before verify. Every suite of the table, at its smallest
 * case, verified when run and caught when it does not run. And, on the host alone, the f32 GEMM
 * tolerance against an emulated TF32 GEMM. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suites/suites.h"
#include "run/config.h"
#include "run/plan.h"
#include "suites/common.h"
#include "suites/compute_state.h"
#include "suites/conv_state.h"
#include "suites/gemm_state.h"
#include "test.h"

/* How a case is broken. */
enum how {
    RIGHT,  /* nothing broken: verify must pass */
    NOOP,   /* setup, then no run at all: the timed path did nothing */
    DEFINE, /* built with the test define (GB_BREAK...) */
    TAMPER, /* run, then the output changed on the host */
};

/* The case `params` of `suite_name` run by hand on OpenCL device 0, broken as `how` says; verify
 * must return 0 (RIGHT) or GB_EVERIFY (the others), with a reason. */
static void run_case(const char *suite_name, const char *params, enum how how, const char *define,
                     void (*tamper)(struct gb_case_ctx *))
{
    const struct gb_suite *s;
    struct gb_case_ctx *ctx;
    struct gb_test_case *tc = gb_test_case_open(suite_name, params, &s, &ctx);
    ((struct gb_test_hook *)ctx->state)->test_define = how == DEFINE ? define : NULL;
    int r = s->setup(ctx);
    ASSERT_MSG(r == 0, "%s %s: setup: %s (%s)", suite_name, params, gb_err_name(r), ctx->reason);
    for (uint64_t reps = 1; how != NOOP && reps <= 2; reps++) {
        /* as the harness does: a suite's untimed inverse around each timed run */
        if (s->prepare)
            ASSERT_OK(s->prepare(ctx, reps));
        ASSERT_OK(s->run(ctx, reps));
        if (s->settle)
            ASSERT_OK(s->settle(ctx, reps));
    }
    ASSERT_OK(ctx->ops->queue_sync(ctx->q));
    if (how == TAMPER)
        tamper(ctx);
    const int want = how == RIGHT ? 0 : GB_EVERIFY;
    const int got = s->verify(ctx);
    static const char *const names[] = {"right", "no-op", "define", "tampered"};
    ASSERT_MSG(got == want, "%s %s (%s%s%s): verify returned %s, expected %s; reason: %s",
               suite_name, params, names[how], how == DEFINE ? " " : "",
               how == DEFINE ? define : "", gb_err_name(got), gb_err_name(want), ctx->reason);
    if (want == GB_EVERIFY) {
        ASSERT(strlen(ctx->reason) > 0);
        printf("%-8s %-52s %-8s caught: %.150s\n", suite_name, params,
               how == DEFINE ? define : names[how], ctx->reason);
    }
    gb_test_case_close(tc);
}

/* Right, a no-op and the GB_BREAK define (`define`, NULL: none) for one case. */
static void right_noop_broken(const char *suite, const char *params, const char *define)
{
    run_case(suite, params, RIGHT, NULL, NULL);
    run_case(suite, params, NOOP, NULL, NULL);
    if (define)
        run_case(suite, params, DEFINE, define, NULL);
}

/* ---- memory: partial write (copy, mul, add, triad) and a dropped chunk (dot) ---------------- */

TEST_TIMEOUT(broken_memory_broken_kernels_are_caught, 300)
{
    static const char *const ops[] = {"copy", "mul", "add", "triad", "dot"};
    static const char *const sizes[] = {"4000", "1MiB", "4MiB"};
    static const int wgs[] = {1, 64, 256};
    char params[256];
    for (size_t o = 0; o < 5; o++)
        for (int dbl = 0; dbl < 2; dbl++)
            for (size_t z = 0; z < 3; z++) {
                /* every work-group size at 1 MiB, one per other size */
                for (size_t w = 0; w < 3; w++) {
                    if (z != 1 && w != (z + o) % 3)
                        continue;
                    snprintf(params, sizeof params, "{op: %s, type: %s, wg: %d, size: %s}", ops[o],
                             dbl ? "double" : "float", wgs[w], sizes[z]);
                    right_noop_broken("memory", params, "GB_BREAK");
                }
            }
}

/* The dot's bound holds where a fixed 1e-4 did not, and is tight enough to catch one work-item
 * missing: a long per-work-item sum (work-groups of one work-item, 4 Mi floats). */
TEST_TIMEOUT(broken_memory_dot_bound_follows_the_depth, 120)
{
    run_case("memory", "{op: dot, type: float, wg: 1, size: 16MiB}", RIGHT, NULL, NULL);
    run_case("memory", "{op: dot, type: float, wg: 1, size: 16MiB}", DEFINE, "GB_BREAK", NULL);
    run_case("memory", "{op: dot, type: float, wg: 1024, size: 16MiB}", RIGHT, NULL, NULL);
    run_case("memory", "{op: dot, type: float, wg: 1024, size: 16MiB}", DEFINE, "GB_BREAK", NULL);
    /* The default sizing at the default size: on a CPU device BabelStream's few work-items
     * (2 x native double width per compute unit) each add 2^21 floats in turn, where the
     * worst-case bound (0.14) would let one work-item's share (1/16) go missing; the
     * probabilistic bound catches it. */
    run_case("memory", "{op: dot, type: float, size: 128MiB}", RIGHT, NULL, NULL);
    run_case("memory", "{op: dot, type: float, size: 128MiB}", DEFINE, "GB_BREAK", NULL);
}

/* ---- compute ----------------------------------------------------------------------------- */

/* Zero every output element but the first 32 (a check that sampled a few elements let 480 of
 * 512 zeroed pass). */
static void zero_all_but_32(struct gb_case_ctx *ctx)
{
    struct compute *s = ctx->state;
    const size_t es = s->p == CP_F64 ? 8 : s->p == CP_F16 || s->p == CP_HALF2 ? 2 : 4;
    ASSERT(s->elems > 32);
    const uint64_t bytes = (s->elems - 32) * es;
    void *zero = calloc(1, bytes);
    ASSERT(zero);
    gb_test_smash(ctx, s->out, 32 * es, zero, bytes);
    free(zero);
}

/* One element off by one (i32: in the middle, which no sample covers) or by 2^-11 relative
 * (f32: the last, whose work-item the float replay always covers). */
static void nudge_one(struct gb_case_ctx *ctx)
{
    struct compute *s = ctx->state;
    const uint64_t i = s->p == CP_I32 ? s->elems / 2 + 5 : s->elems - 1;
    uint32_t v;
    struct gb_buf *tmp;
    ASSERT_OK(ctx->ops->buf_alloc(ctx->dev, 4, GB_MEM_HOST_PAGEABLE, &tmp));
    ASSERT_OK(ctx->ops->copy(ctx->q, tmp, 0, s->out, i * 4, 4, GB_COPY_BLOCKING));
    memcpy(&v, tmp->host, 4);
    ctx->ops->buf_free(tmp);
    v += s->p == CP_I32 ? 1u : 1u << 12; /* f32: 2^-11 relative, TF32-sized */
    gb_test_smash(ctx, s->out, i * 4, &v, sizeof v);
}

/* Every output rounded to 10 significand bits (a half-precision chain reported as f32). */
static void lower_precision_f32(struct gb_case_ctx *ctx)
{
    struct compute *s = ctx->state;
    uint32_t *h = malloc(s->elems * 4);
    ASSERT(h);
    ASSERT_OK(gb_case_download(ctx, h, s->out, s->elems * 4));
    for (uint64_t i = 0; i < s->elems; i++)
        h[i] = (h[i] + 0x1000u) & 0xFFFFE000u;
    gb_test_smash(ctx, s->out, 0, h, s->elems * 4);
    free(h);
}

TEST_TIMEOUT(broken_compute_broken_kernels_are_caught, 300)
{
    static const char *const cases[] = {
        "{prec: f32, vec: 1, chains: 4, iters: 64, wg: 64, groups: 1}",
        "{prec: f32, vec: 4, chains: 8, iters: 256, wg: 32, groups: 2}",
        "{prec: f64, vec: 2, chains: 4, iters: 64, wg: 64, groups: 1}",
        "{prec: i32, vec: 1, chains: 4, iters: 64, wg: 64, groups: 1}",
        "{prec: i32, vec: 4, chains: 8, iters: 1024, wg: 32, groups: 3}",
        "{prec: i32, vec: 16, chains: 2, iters: 4, wg: 128, groups: 1}",
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const bool f64 = strstr(cases[c], "f64") != NULL;
        right_noop_broken("compute", cases[c], "GB_BREAK");
        run_case("compute", cases[c], TAMPER, NULL, zero_all_but_32);
        if (!f64)
            run_case("compute", cases[c], TAMPER, NULL, nudge_one);
        if (strstr(cases[c], "f32"))
            run_case("compute", cases[c], TAMPER, NULL, lower_precision_f32);
    }
}

/* The half-precision chains (cl_khr_fp16: Intel's OpenCL CPU runtime has it, PoCL not), scalar
 * and as vectors (their start values are converted by convert_halfN), and the packed half2: the
 * work-item that skips its steps is caught. Skipped where the device has no fp16. */
TEST_TIMEOUT(broken_compute_half_kernels_are_caught, 300)
{
    struct gb_device_info info;
    gb_test_opencl_info(&info);
    if (!(info.caps & GB_CAP_FP16))
        SKIP("OpenCL device 0 (%s, %s) has no cl_khr_fp16", info.name, info.platform);
    static const char *const cases[] = {
        "{prec: f16, vec: 1, chains: 4, iters: 64, wg: 64, groups: 1}",
        "{prec: f16, vec: 16, chains: 2, iters: 64, wg: 32, groups: 2}",
        "{prec: f16, vec: 4, chains: 8, iters: 256, wg: 32, groups: 1}",
        "{prec: half2, vec: 1, chains: 4, iters: 64, wg: 64, groups: 1}",
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        right_noop_broken("compute", cases[c], "GB_BREAK");
        run_case("compute", cases[c], TAMPER, NULL, zero_all_but_32);
    }
}

/* ---- gemm (own kernel) ------------------------------------------------------------------- */

TEST_TIMEOUT(broken_gemm_broken_kernels_are_caught, 300)
{
    static const char *const shapes[] = {"64x64x256", "32x48x1024", "40x24x100", "16x16x4096"};
    char params[256];
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        snprintf(params, sizeof params, "{prec: f32, impl: own, shape: %s}", shapes[i]);
        right_noop_broken("gemm", params, "GB_BREAK=2"); /* dropped term */
        /* TF32 inputs: caught up to k = 1024 on U(-1,1) inputs (suites/gemm.c's head says why
         * not beyond; dist signed below catches it at every k). */
        if (i < 3)
            run_case("gemm", params, DEFINE, "GB_BREAK=1", NULL);
    }
    /* dist signed: TF32 caught at every k. */
    static const char *const sgn[] = {"64x64x256", "32x48x1024", "16x16x4096", "8x8x16384"};
    for (size_t i = 0; i < sizeof sgn / sizeof sgn[0]; i++) {
        snprintf(params, sizeof params,
                 "{prec: f32, impl: own, shape: %s, dist: signed, "
                 "trans: %s}",
                 sgn[i], i & 1 ? "tn" : "nt");
        run_case("gemm", params, RIGHT, NULL, NULL);
        run_case("gemm", params, DEFINE, "GB_BREAK=1", NULL);
    }
    run_case("gemm", "{prec: mixed, impl: own, shape: 64x64x2048, dist: signed}", RIGHT, NULL,
             NULL);
    run_case("gemm", "{prec: f32, impl: own, shape: 100, trans: tt}", RIGHT, NULL, NULL);
    run_case("gemm", "{prec: f32, impl: own, shape: 100, trans: tt}", DEFINE, "GB_BREAK=1", NULL);
    run_case("gemm", "{prec: mixed, impl: own, shape: 64}", RIGHT, NULL, NULL);
    run_case("gemm", "{prec: mixed, impl: own, shape: 64}", NOOP, NULL, NULL);
    run_case("gemm", "{prec: mixed, impl: own, shape: 64x64x300}", DEFINE, "GB_BREAK=2", NULL);
    run_case("gemm", "{prec: f64, impl: own, shape: 64}", NOOP, NULL, NULL);
    run_case("gemm", "{prec: f64, impl: own, shape: 64x64x300}", DEFINE, "GB_BREAK=2", NULL);
}

/* The library path: setup's untimed call wrote C, the poison after it must show. */
/* i8: the integer product must be exact (a dropped term, a no-op), and the dequantised product
 * within the quantisation's half-step bound (a scale applied to the neighbouring row). */
TEST_TIMEOUT(broken_gemm_i8_quantisation_is_checked, 120)
{
    static const char *const cases[] = {"{prec: i8, impl: own, shape: 100x36x52, trans: tn}",
                                        "{prec: i8, impl: own, shape: 48x40x300, trans: nt}"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        right_noop_broken("gemm", cases[i], "GB_BREAK=2");
        run_case("gemm", cases[i], DEFINE, "GB_QUANT_SHIFT", NULL);
    }
    /* The quantiser: nearest (ties away from zero), within [-127, 127], strided. */
    const double x[] = {0.0, 1.0, -1.0, 0.5 / 127, -0.5 / 127, 0.49 / 127, 2.0, 126.6 / 127};
    int8_t q[8];
    gb__gemm_quantize(x, 8, 1, 1.0 / 127, q);
    const int8_t want[] = {0, 127, -127, 1, -1, 0, 127, 127};
    for (size_t i = 0; i < 8; i++)
        ASSERT_MSG(q[i] == want[i], "x = %g: q = %d, expected %d", x[i], q[i], want[i]);
    gb__gemm_quantize(x, 4, 2, 0, q); /* all-zero scale: every value 0 */
    ASSERT(q[0] == 0 && q[2] == 0 && q[4] == 0 && q[6] == 0);
}

TEST_TIMEOUT(broken_gemm_library_noop_is_caught, 300)
{
    run_case("gemm", "{prec: f32, impl: library, shape: 64}", RIGHT, NULL, NULL);
    run_case("gemm", "{prec: f32, impl: library, shape: 64}", NOOP, NULL, NULL);
}

/* The half-precision library GEMM (CLBlast's Hgemm), where the device has fp16: a call that did
 * nothing is caught. */
TEST_TIMEOUT(broken_gemm_half_library_noop_is_caught, 300)
{
    struct gb_device_info info;
    gb_test_opencl_info(&info);
    if (!(info.caps & GB_CAP_BLAS_F16))
        SKIP("OpenCL device 0 (%s, %s) has no half-precision BLAS", info.name, info.platform);
    run_case("gemm", "{prec: f16, impl: library, shape: 64}", RIGHT, NULL, NULL);
    run_case("gemm", "{prec: f16, impl: library, shape: 64}", NOOP, NULL, NULL);
}

/* ---- fp16 -------------------------------------------------------------------------------- */

TEST_TIMEOUT(broken_fp16_broken_kernels_are_caught, 300)
{
    static const char *const cases[] = {
        "{op: triad, storage: float, elems: 5000, wg: 64}",
        "{op: scale, storage: float, elems: 100003, wg: 256}",
        "{op: triad, storage: half, elems: 4097, wg: 1}",
        "{op: scale, storage: half, elems: 65536, wg: 128}",
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        right_noop_broken("fp16", cases[c], "GB_BREAK");
    right_noop_broken("fp16", "{op: triad, storage: bf16, elems: 3000, wg: 32}", NULL);
}

/* ---- the f32 GEMM bound against an emulated TF32 GEMM ------------------------------------- */

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* x rounded to 10 stored significand bits, to nearest (TF32), or truncated. */
static double tf32(double x, bool chop)
{
    int e;
    const double m = frexp(x, &e) * 2048.0;
    return ldexp(chop ? trunc(m) : nearbyint(m), e - 11);
}

/* The largest error of an m x m block of C = A B (inner dimension k), relative to
 * sum |a_l b_l|, computed three ways from the same inputs: correct f32 (inputs rounded to f32,
 * sequential fmaf), TF32 to nearest and TF32 truncated (inputs rounded on the host, the product
 * in f64). Inputs: `dist` 0 U(-1,1) (the suite's default), 1 every |a|, |b| in [1, 2) with
 * bits 13..22 random and the 13 below a fixed 0.4 of a TF32 unit, signs so that every product
 * is positive: TF32's error is then systematic, about 2^-10 relative. */
static void emulate(uint64_t k, int dist, double *f32_err, double *tf32_err, double *trunc_err)
{
    const uint64_t m = 12;
    double *a = malloc(m * k * sizeof *a), *b = malloc(m * k * sizeof *b);
    ASSERT(a && b);
    uint64_t seed = 42 + k;
    for (uint64_t i = 0; i < m * k; i++)
        for (int j = 0; j < 2; j++) {
            double v;
            if (dist == 0) {
                v = 2.0 * (double)(mix(&seed) >> 11) * 0x1p-53 - 1.0;
            } else {
                v = 1.0 + (double)(mix(&seed) >> 54) * 0x1p-10 + 0x0CCC * 0x1p-23;
                if ((i % k) & 1) /* the sign follows l: a_il b_lj > 0 */
                    v = -v;
            }
            (j ? b : a)[i] = v;
        }
    *f32_err = *tf32_err = *trunc_err = 0;
    for (uint64_t i = 0; i < m; i++)
        for (uint64_t j = 0; j < m; j++) {
            long double ref = 0, mag = 0, t = 0, tt = 0;
            float f = 0;
            for (uint64_t l = 0; l < k; l++) {
                const double x = a[i * k + l], y = b[j * k + l];
                ref += (long double)x * y;
                mag += fabsl((long double)x * y);
                f = fmaf((float)x, (float)y, f);
                t += (long double)tf32(x, false) * tf32(y, false);
                tt += (long double)tf32(x, true) * tf32(y, true);
            }
            *f32_err = fmax(*f32_err, (double)(fabsl((long double)f - ref) / mag));
            *tf32_err = fmax(*tf32_err, (double)(fabsl(t - ref) / mag));
            *trunc_err = fmax(*trunc_err, (double)(fabsl(tt - ref) / mag));
        }
    free(a);
    free(b);
}

TEST(broken_gemm_f32_bound_rejects_tf32)
{
    static const uint64_t ks[] = {256, 1024, 4096};
    for (size_t i = 0; i < 3; i++) {
        const double tol = gb__gemm_tolerance(GP_F32, ks[i]);
        const double rigorous = gb_gemm_error_bound(ks[i], 0x1p-24, 0x1p-24, 0x1p-24);
        for (int dist = 0; dist < 2; dist++) {
            double f, t, tt;
            emulate(ks[i], dist, &f, &t, &tt);
            printf("k %5llu %s: f32 %.3g  tf32 %.3g  truncated %.3g  bound %.3g (rigorous "
                   "%.3g)\n",
                   (unsigned long long)ks[i], dist ? "systematic" : "U(-1,1)   ", f, t, tt, tol,
                   rigorous);
            ASSERT_MSG(f <= tol, "k %llu: a correct f32 GEMM (%g) fails the bound %g",
                       (unsigned long long)ks[i], f, tol);
            /* U(-1,1): TF32's error shrinks like 1/sqrt(k) against sum |a||b| while any bound
             * valid for every input grows; caught up to k = 1024. */
            if (dist == 1 || ks[i] <= 1024) {
                ASSERT_MSG(t > tol, "k %llu: TF32 to nearest (%g) passes the bound %g",
                           (unsigned long long)ks[i], t, tol);
                ASSERT_MSG(tt > tol, "k %llu: TF32 truncated (%g) passes the bound %g",
                           (unsigned long long)ks[i], tt, tol);
            }
        }
        /* The rigorous bound alone lets TF32 through from k = 1024. */
        if (ks[i] >= 1024) {
            double f, t, tt;
            emulate(ks[i], 0, &f, &t, &tt);
            ASSERT(t < rigorous);
        }
    }
}

/* ---- every suite: a timed path that does nothing fails -------------------------------------
 * Each suite of the table at its smallest case (gb_test_smallest_params), so that a new suite is
 * checked on its first build: verified when run, caught when setup is followed by no run at all.
 * A multi-device suite runs on a set of one device. A suite that cannot take part is left out by
 * a property of its descriptor (a helper process) or by the table below, each with its reason,
 * and the test says so. */

static const struct {
    const char *suite, *why;
} noop_left_out[] = {
    {"launch", "counts the launches the host enqueued since setup zeroed its counter: no launch "
               "is zero counted, rightly verified"},
    {"atomics", "global atomics count the operations enqueued since setup and verify one of "
                "their own"},
    {"latency", "verify checks where the chase stands after the steps run: no run is zero "
                "steps, at its start, rightly verified"},
    {"peerbw", "its ops move data between two devices of the set: on device 0 alone the plan "
               "has no case"},
    {"pool", "verify replays the trace itself and checks that replay's tensors: the timed "
             "runs leave nothing of their own for it to check"},
};

/* Why suite s is left out of the no-op check, or NULL. */
static const char *noop_why_left_out(const struct gb_suite *s)
{
    if (s->child)
        return "its cases run helper processes (gb_suite.child), started by the runner";
    for (size_t i = 0; i < sizeof noop_left_out / sizeof noop_left_out[0]; i++)
        if (strcmp(noop_left_out[i].suite, s->name) == 0)
            return noop_left_out[i].why;
    return NULL;
}

/* The case `params` of `suite`: verified when run, caught as a no-op; a case that cannot run
 * here (a skip: no BLAS, no fp16) is said, not failed. */
static void right_and_noop(const char *suite, const char *params)
{
    const struct gb_suite *s;
    struct gb_case_ctx *ctx;
    struct gb_test_case *tc = gb_test_case_open(suite, params, &s, &ctx);
    const bool skip = s->setup(ctx) == GB_ESKIP;
    if (skip)
        printf("%-8s %-52s skipped here: %s\n", suite, params, ctx->reason);
    gb_test_case_close(tc);
    if (skip)
        return;
    run_case(suite, params, RIGHT, NULL, NULL);
    run_case(suite, params, NOOP, NULL, NULL);
}

TEST_TIMEOUT(broken_noop_is_caught_in_every_suite, 600)
{
    const struct gb_suite_table *t = gb_suites_builtin();
    for (size_t i = 0; i < t->n; i++) {
        const char *why = noop_why_left_out(t->v[i]);
        char params[1024];
        if (why) {
            printf("%-12s left out: %s\n", t->v[i]->name, why);
            continue;
        }
        gb_test_smallest_params(t->v[i], NULL, params, sizeof params);
        printf("%-12s %s\n", t->v[i]->name, params);
        fflush(stdout); /* a case that hangs shows which */
        right_and_noop(t->v[i]->name, params);
    }
    /* Cases beyond the smallest, where a suite's kinds verify apart. */
    static const struct {
        const char *suite, *params;
    } cases[] = {
        {"local", "{op: write, vec: 2, stride: 1, wg: 64, bytes: 1MiB}"},
        {"atomics", "{op: local, type: int32, addresses: 64, wg: 64}"},
        {"transfer", "{op: d2d, memory: device, size: 1MiB}"},
        {"batching", "{op: copies, mode: each, count: 4, size: 64KiB}"},
        {"batching", "{op: gemm, mode: batched, count: 4, dim: 24}"},
        {"parallel", "{pattern: pipeline, ndev: 1, variant: allreduce, microbatches: 2, "
                     "bucket: 1MiB, h: 32, tokens: 8, layers: 2}"},
        {"parallel", "{pattern: data, ndev: 1, variant: allreduce, microbatches: 1, "
                     "bucket: 4KiB, h: 32, tokens: 8, layers: 2}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        right_and_noop(cases[i].suite, cases[i].params);
}

/* ---- conv: a dropped term, a layout mix-up, a no-op, a tampered library output ------------- */

/* One element of the pass's output off by 1% (fwd: y, in FP32). */
static void nudge_conv(struct gb_case_ctx *ctx)
{
    struct conv *s = ctx->state;
    float v;
    const uint64_t i = s->ny / 2 + 3;
    float *h = malloc(s->ny * sizeof *h);
    ASSERT(h);
    ASSERT_OK(gb_case_download(ctx, h, s->y, s->ny * sizeof *h));
    v = h[i] * 1.01f + 1e-3f;
    free(h);
    gb_test_smash(ctx, s->y, i * sizeof v, &v, sizeof v);
}

TEST_TIMEOUT(broken_conv_broken_kernels_are_caught, 300)
{
    static const char *const dirs[] = {"fwd", "bwd_data", "bwd_filter"};
    static const char *const layouts[] = {"nchw", "nhwc"};
    /* The dropped term is 1/72 of an element's magnitude or more; the layouts differ in every
     * dimension (C 8, H 7, W 6), so reading the other layout cannot match. */
    char params[256];
    for (size_t d = 0; d < 3; d++)
        for (size_t l = 0; l < 2; l++) {
            snprintf(params, sizeof params,
                     "{dir: %s, layout: %s, impl: own, prec: f32, shape: 2x8x7x6-6x3x3-p1}",
                     dirs[d], layouts[l]);
            right_noop_broken("conv", params, "GB_BREAK=1");
            run_case("conv", params, DEFINE, "GB_BREAK=2", NULL);
        }
    /* Strides, dilations and groups (depthwise), each pass; 16-bit storage and int8. */
    for (size_t d = 0; d < 3; d++) {
        snprintf(params, sizeof params,
                 "{dir: %s, impl: own, prec: f32, shape: 1x6x11x9-6x3x3-s2-p1x2-d2x1-g3}", dirs[d]);
        run_case("conv", params, RIGHT, NULL, NULL);
        run_case("conv", params, DEFINE, "GB_BREAK=1", NULL);
        snprintf(params, sizeof params,
                 "{dir: %s, impl: own, prec: f32, shape: 2x4x8x8-4x3x3-p1-g4}", dirs[d]);
        right_noop_broken("conv", params, "GB_BREAK=1");
    }
    static const char *const precs[] = {"f16", "bf16", "i8"};
    for (size_t p = 0; p < 3; p++) {
        snprintf(params, sizeof params,
                 "{prec: %s, impl: own, layout: nhwc, shape: 1x8x6x6-8x3x3-p1}", precs[p]);
        right_noop_broken("conv", params, "GB_BREAK=1");
    }
    /* The library (CLBlast's convgemm on OpenCL): right, a no-op, one element 1% off. */
    run_case("conv", "{impl: library, shape: 2x8x7x6-6x3x3-p1}", RIGHT, NULL, NULL);
    run_case("conv", "{impl: library, shape: 2x8x7x6-6x3x3-p1}", NOOP, NULL, NULL);
    run_case("conv", "{impl: library, shape: 2x8x7x6-6x3x3-p1}", TAMPER, NULL, nudge_conv);
    /* Hconvgemm where the device has half precision (Intel's CPU runtime; not PoCL). */
    struct gb_device_info info;
    gb_test_opencl_info(&info);
    if (info.caps & GB_CAP_FP16) {
        run_case("conv", "{impl: library, prec: f16, shape: 2x8x7x6-6x3x3-p1}", RIGHT, NULL, NULL);
        run_case("conv", "{impl: library, prec: f16, shape: 2x8x7x6-6x3x3-p1}", NOOP, NULL, NULL);
    }
}

/* ---- sparse: a dropped entry, a column index off by one, unpruned weights read as pruned ---- */

TEST_TIMEOUT(broken_sparse_broken_kernels_are_caught, 300)
{
    static const char *const cases[] = {
        "{op: spmm, impl: own, density: 0.1, shape: 96x8x200}",
        "{op: spmv, impl: own, density: 0.3, shape: 130x1x77}",
        "{op: nm24, impl: own, density: 0.5, shape: 64x8x96}",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        right_noop_broken("sparse", cases[i], "GB_BREAK=1");
        run_case("sparse", cases[i], DEFINE, "GB_BREAK=2", NULL);
    }
    run_case("sparse", cases[2], DEFINE, "GB_UNPRUNED", NULL);
    run_case("sparse", "{op: spmm, density: 1, shape: 96x8x200}", RIGHT, NULL, NULL);
    run_case("sparse", "{op: spmm, density: 1, shape: 96x8x200}", NOOP, NULL, NULL);
}
