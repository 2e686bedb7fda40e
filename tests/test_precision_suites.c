/* The precision suites (compute, gemm, fp16) on the real OpenCL device (PoCL here): every
 * kernel builds and verifies, precisions the device lacks are recorded skips with reasons, the
 * verifiers reject wrong output, the accuracy tolerance fails a case, the tuned GEMM
 * configuration is used, and the summary's speed x accuracy table shows it all. */
#include <stdlib.h>

#include "suites/suites.h"
#include "run/config.h"
#include "run/plan.h"
#include "backends/precision.h"
#include "outputs/precision_out.h"
#include "outputs/writer.h"
#include "suites/compute_state.h"
#include "suites/fp16_state.h"
#include "suites/gemm_state.h"
#include "run/runner.h"
#include "test.h"
#include "run/tuning_cache.h"

static const char *budget = "measure: {min_samples: 3, max_samples: 5, max_time: 50ms, "
                            "min_sample_time: 1ms, warmup_runs: 1}\n";

static const struct gb_result *find(const struct gb_results *rs, const char *suite,
                                    const char *params)
{
    for (size_t i = 0; i < rs->nresults; i++) {
        char p[256];
        gb_params_format(&rs->results[i].params, p, sizeof p);
        if (strcmp(rs->results[i].suite, suite) == 0 && strstr(p, params))
            return &rs->results[i];
    }
    return NULL;
}

static bool is_pocl(const struct gb_results *rs)
{
    return rs->ndevices && gb_test_is_pocl(&rs->devices[0].info);
}

/* ---- compute -------------------------------------------------------------------------------- */

TEST_TIMEOUT(precision_compute_every_precision_verifies_or_skips, 120)
{
    struct gb_results rs;
    gb_test_run_suite(budget, "compute",
                      "{prec: [f32, f64, f16, half2, bf16, int8dot, i32], vec: [0, 1, 4], iters: "
                      "64, wg: 64, groups: 1}",
                      &rs);
    ASSERT_EQ(rs.nresults, 7 * 3);
    const uint64_t caps = rs.devices[0].info.caps;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        char p[256];
        gb_params_format(&r->params, p, sizeof p);
        const char *prec = gb_params_str(&r->params, "prec");
        const int64_t vec = gb_params_int(&r->params, "vec");
        const bool packed =
            !strcmp(prec, "half2") || !strcmp(prec, "bf16") || !strcmp(prec, "int8dot");
        const bool lacks =
            ((!strcmp(prec, "f16") || !strcmp(prec, "half2")) && !(caps & GB_CAP_FP16)) ||
            (!strcmp(prec, "bf16") && !(caps & GB_CAP_BF16)) ||
            (!strcmp(prec, "int8dot") && !(caps & GB_CAP_INT8_DOT)) ||
            (!strcmp(prec, "f64") && !(caps & GB_CAP_FP64));
        if (lacks || (packed && vec > 1)) {
            ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "%s: %s", p, gb_status_name(r->status));
            ASSERT(r->reason[0]);
            continue;
        }
        gb_test_assert_verified(r);
        /* The host replay is exact for these chains. */
        ASSERT_MSG(r->max_error == 0, "%s: max_error %g", p, r->max_error);
        ASSERT_STR(r->unit, strcmp(r->case_name, "i32") == 0 || strcmp(r->case_name, "int8dot") == 0
                                ? "GOP/s"
                                : "GFLOP/s");
        ASSERT(r->value > 0 && r->flops_per_op > 0);
        /* A CPU runtime that reports no clock gets the host's (gb_host_cpu_mhz: cpuinfo's
         * current or base MHz), which a core in turbo exceeds, so the peak derived from it may
         * be passed for real (it was once on Intel's runtime, on a shared 2-core VM): that is
         * what "implausible" is for, and only such a peak may be exceeded. */
        const struct gb_device_info *di =
            r->device_index >= 0 && (size_t)r->device_index < rs.ndevices
                ? &rs.devices[r->device_index].info
                : NULL;
        ASSERT_MSG(!r->implausible || (di && di->clock_source[0]), "%s: implausible: %s", p,
                   r->reason);
        if (is_pocl(&rs)) { /* the peak is known for a CPU: a fraction below 1 */
            const struct gb_figure *of = gb_test_figure(r, "of_peak");
            ASSERT_MSG(of && of->v[0] > 0 && of->v[0] < 1, "%s", p);
        }
    }
    if (is_pocl(&rs)) {
        /* PoCL has no cl_khr_fp16: FP16 arithmetic is a recorded skip that says so. */
        const struct gb_result *h = find(&rs, "compute", "prec=f16 vec=0");
        ASSERT(h && h->status == GB_STATUS_SKIPPED);
        ASSERT_CONTAINS(h->reason, "cl_khr_fp16");
        const struct gb_result *b = find(&rs, "compute", "prec=bf16 vec=0");
        const struct gb_result *d = find(&rs, "compute", "prec=int8dot vec=0");
        ASSERT(b && d);
        ASSERT_CONTAINS(b->reason, "bfloat16");
        ASSERT_CONTAINS(d->reason, "int8");
        /* vec 0 chose 16 lanes on a CPU. */
        const struct gb_result *f = find(&rs, "compute", "prec=f32 vec=0");
        ASSERT_NEAR(gb_test_figure(f, "vec_used")->v[0], 16, 0);
        /* The FP64 row has its speedup over FP32 (a slowdown on a CPU). */
        const struct gb_figure *sp =
            gb_test_figure(find(&rs, "compute", "prec=f64 vec=1"), "speedup_vs_f32");
        ASSERT(sp && sp->v[0] > 0 && sp->v[0] < 1.5);
    }
    gb_results_free(&rs);
}

/* ---- gemm ----------------------------------------------------------------------------------- */

TEST_TIMEOUT(precision_gemm_library_and_own_verify, 300)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "%ssuites:\n  - suite: gemm\n    params: {prec: [f32, f64, tf32, f16, mixed, "
             "bf16], impl: own, shape: 33x17x45}\n"
             /* Every define set is a kernel build (PoCL: ~1 s cold); transposes on f32. */
             "  - suite: gemm\n    params: {prec: f32, impl: own, shape: 33x17x45, "
             "trans: [tn, nt, tt]}\n"
             /* The library's F64 path is tests/test_opencl_blas.c's: each CLBlast program
              * costs PoCL tens of seconds to compile the first time. */
             "  - suite: gemm\n    params: {prec: [f32, tf32, f16, mixed, bf16], impl: library, "
             "shape: 33x17x45, trans: [nn, tn, nt, tt]}\n"
             "  - suite: gemm\n    params: {prec: [f32, f64, mixed, bf16], impl: own, "
             "shape: 64, dist: wide}\n"
             "  - suite: gemm\n    params: {prec: [f32, f64], impl: own, shape: 64}\n",
             budget);
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    ASSERT_EQ(rs.nresults, 6 + 3 + 5 * 4 + 4 + 2);
    const uint64_t caps = rs.devices[0].info.caps;
    size_t ok = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        char p[256];
        gb_params_format(&r->params, p, sizeof p);
        const char *prec = gb_params_str(&r->params, "prec");
        const bool own = strcmp(gb_params_str(&r->params, "impl"), "own") == 0;
        bool runs;
        if (own)
            runs = !strcmp(prec, "f32") || !strcmp(prec, "mixed") || !strcmp(prec, "bf16") ||
                   (!strcmp(prec, "f64") && (caps & GB_CAP_FP64));
        else
            runs = (!strcmp(prec, "f32") && (caps & GB_CAP_BLAS_F32)) ||
                   (!strcmp(prec, "f64") && (caps & GB_CAP_BLAS_F64)) ||
                   (!strcmp(prec, "f16") && (caps & GB_CAP_BLAS_F16)) ||
                   (!strcmp(prec, "mixed") && (caps & GB_CAP_BLAS_MIXED)) ||
                   (!strcmp(prec, "bf16") && (caps & GB_CAP_BLAS_BF16)) ||
                   (!strcmp(prec, "tf32") && (caps & GB_CAP_BLAS_TF32));
        if (!runs) {
            ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "%s: %s: %s", p, gb_status_name(r->status),
                       r->reason);
            continue;
        }
        gb_test_assert_verified(r);
        /* Within the precision's rigorous bound, and the figures say how close. */
        const struct gb_figure *rms = gb_test_figure(r, "rms_error");
        const struct gb_figure *tol = gb_test_figure(r, "tolerance");
        ASSERT(rms && tol);
        ASSERT_MSG(r->max_error <= tol->v[0] && rms->v[0] <= r->max_error, "%s: %g %g %g", p,
                   r->max_error, rms->v[0], tol->v[0]);
        /* ...and not suspiciously exact: the inputs were rounded to the precision, except
         * F64, which multiplies the reference's own inputs. */
        if (strcmp(prec, "f64") != 0)
            ASSERT_MSG(r->max_error > 0, "%s: exactly the FP64 reference?", p);
        ASSERT(r->flops_per_op > 0 && r->value > 0);
        ok++;
    }
    ASSERT(ok > 0);
    if (is_pocl(&rs)) {
        /* CLBlast's Hgemm needs cl_khr_fp16: a recorded skip that says so. */
        const struct gb_result *h = find(&rs, "gemm", "prec=f16 impl=library");
        ASSERT(h && h->status == GB_STATUS_SKIPPED);
        ASSERT_CONTAINS(h->reason, "cl_khr_fp16");
        /* Lower precisions lose accuracy in order: f64 < f32 < mixed (half inputs) < bf16. */
        const char *order[] = {"prec=f64 impl=own shape=64x64x64 trans=nn dist=wide",
                               "prec=f32 impl=own shape=64x64x64 trans=nn dist=wide",
                               "prec=mixed impl=own shape=64x64x64 trans=nn dist=wide",
                               "prec=bf16 impl=own shape=64x64x64 trans=nn dist=wide"};
        for (int i = 0; i + 1 < 4; i++)
            ASSERT_MSG(find(&rs, "gemm", order[i])->max_error <
                           find(&rs, "gemm", order[i + 1])->max_error,
                       "%s vs %s", order[i], order[i + 1]);
        const struct gb_figure *sp = gb_test_figure(
            find(&rs, "gemm", "prec=f64 impl=own shape=64x64x64 trans=nn dist=uniform"),
            "speedup_vs_f32");
        ASSERT(sp && sp->v[0] > 0);
    }
    gb_results_free(&rs);
}

TEST_TIMEOUT(precision_gemm_tolerance_fails_accuracy, 120)
{
    struct gb_results rs;
    gb_test_run_suite(budget, "gemm",
                      "{prec: [f32, bf16], impl: own, shape: 48, tol: [1e-12, 0.5]}", &rs);
    ASSERT_EQ(rs.nresults, 4);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        const bool tight = gb_params_float(&r->params, "tol") < 1e-6;
        if (tight) {
            ASSERT_EQ(r->status, GB_STATUS_FAILED);
            ASSERT_CONTAINS(r->reason, "failed-accuracy: max relative error");
            ASSERT(r->max_error > 1e-12); /* the error is recorded with the failure */
        } else {
            ASSERT_MSG(r->status == GB_STATUS_OK, "%s", r->reason);
        }
    }
    gb_results_free(&rs);
}

/* A malformed shape is the profile's error, refused at load with its place (not a case that
 * fails at run time). */
TEST(precision_gemm_bad_shape_is_refused_at_load)
{
    char err[512] = "";
    struct gb_profile p;
    ASSERT(gb_profile_load_string(gb_suites_builtin(),
                                  "suites:\n  - suite: gemm\n    params: {prec: f32, impl: own, "
                                  "shape: 12x0x3}\n",
                                  "shape.yaml", NULL, 0, &p, err, sizeof err) != 0);
    ASSERT_CONTAINS(err, "shape.yaml:3:");
    ASSERT_CONTAINS(err, "axis shape: \"12x0x3\": expected N (square) or MxNxK");
}

TEST_TIMEOUT(precision_gemm_uses_the_tuned_configuration, 120)
{
    char cache[512], problem[128];
    snprintf(problem, sizeof problem, GB_TUNING_GEMM_PROBLEM, 96ull, 80ull, 64ull);
    const char *const names[] = {"TS", "WPT", "TSK", "UNROLL"};
    const int64_t vals[] = {16, 2, 8, 2};
    gb_test_tuning_cache(cache, sizeof cache, "gemm", problem, 4, names, vals);

    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "%stuning_cache: %s\nsuites:\n  - suite: gemm\n    tuned: true\n"
             "    params: {prec: [f32, bf16], impl: own, shape: [96x80x64, 64]}\n"
             "  - suite: gemm\n    params: {prec: f32, impl: own, shape: 96x80x64}\n",
             budget, cache);
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    ASSERT_EQ(rs.nresults, 5);
    for (size_t i = 0; i < rs.nresults; i++)
        ASSERT_MSG(rs.results[i].status == GB_STATUS_OK, "%s", rs.results[i].reason);
    /* The tuned entry's shape uses its configuration (bf16 too: float accumulation); another
     * shape, and an entry without `tuned: true`, use the defaults. */
    const char *const tuned = "TS=16 WPT=2 TSK=8 UNROLL=2 (tuned)";
    const char *const dflt = "TS=32 WPT=4 TSK=16 UNROLL=4 (default)";
    ASSERT_STR(gb_test_figure(&rs.results[0], "config")->text, tuned);
    ASSERT_STR(gb_test_figure(&rs.results[1], "config")->text, dflt);
    ASSERT_STR(gb_test_figure(&rs.results[2], "config")->text, tuned);
    ASSERT_STR(gb_test_figure(&rs.results[4], "config")->text, dflt);
    gb_results_free(&rs);
}

/* ---- fp16 storage --------------------------------------------------------------------------- */

TEST_TIMEOUT(precision_fp16_storage_verifies, 120)
{
    struct gb_results rs;
    gb_test_run_suite(
        budget, "fp16",
        "{op: [scale, triad], storage: [float, half, bf16], elems: [1000, 70000], wg: [64]}", &rs);
    ASSERT_EQ(rs.nresults, 2 * 3 * 2);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        char p[256];
        gb_params_format(&r->params, p, sizeof p);
        gb_test_assert_verified(r);
        ASSERT_STR(r->unit, "GB/s");
        const char *st = gb_params_str(&r->params, "storage");
        const double es = !strcmp(st, "float") ? 4 : 2;
        const double n = (double)gb_params_int(&r->params, "elems");
        ASSERT_NEAR(r->bytes_per_op, (strcmp(r->case_name, "triad") ? 2 : 3) * n * es, 0);
        /* Errors: float storage within a few float roundings, half within a few half
         * roundings but visibly above float's, bf16 above half's. */
        const double u = !strcmp(st, "float") ? 0x1p-24 : !strcmp(st, "half") ? 0x1p-11 : 0x1p-8;
        ASSERT_MSG(r->max_error > 0.1 * u && r->max_error <= 4 * u, "%s: %g", p, r->max_error);
        ASSERT(gb_test_figure(r, "Gelem_per_s") && gb_test_figure(r, "Gelem_per_s")->v[0] > 0);
        if (strcmp(st, "float") != 0)
            ASSERT_MSG(gb_test_figure(r, "speedup_vs_float") != NULL, "%s", p);
    }
    gb_results_free(&rs);
}

/* ---- the verifiers reject wrong output ------------------------------------------------------ */

/* A chain that stopped one step early: a plausible value, only the replay can tell. */
static void corrupt_compute_one_step(struct gb_case_ctx *ctx)
{
    struct compute *s = ctx->state;
    const uint64_t last = s->elems - 1; /* the last work-item is always replayed */
    float x = 1.0f + (float)(last & 1023u) / 1024.0f;
    for (uint32_t i = 0; i + 1 < s->iters; i++)
        x = fmaf(x, 1.0f - 0x1p-20f, 0x1p-12f);
    gb_test_smash(ctx, s->out, last * sizeof(float), &x, sizeof x);
}

/* A chain never written: the output holds its start value. */
static void corrupt_compute_unwritten(struct gb_case_ctx *ctx)
{
    struct compute *s = ctx->state;
    const uint64_t i = s->elems / 2 + 3; /* not necessarily a replayed work-item */
    const double x0 = 1.0 + (double)(i & 1023u) / 1024.0;
    gb_test_smash(ctx, s->out, i * sizeof(double), &x0, sizeof x0);
}

static void corrupt_compute_int(struct gb_case_ctx *ctx)
{
    struct compute *s = ctx->state;
    const uint32_t v = 42;
    gb_test_smash(ctx, s->out, 0, &v, sizeof v);
}

static void corrupt_gemm(struct gb_case_ctx *ctx)
{
    struct gemm *s = ctx->state;
    /* One element of C off by 1% (a plausible but wrong value). */
    float c;
    ASSERT_OK(gb_case_download(ctx, &c, s->c, sizeof c));
    c = c * 1.01f + 1e-3f;
    gb_test_smash(ctx, s->c, 0, &c, sizeof c);
}

static void corrupt_fp16(struct gb_case_ctx *ctx)
{
    struct fp16 *s = ctx->state;
    const uint16_t h = gb_f16_from_double(1.0); /* triad values are in [0.7, 2.8) */
    gb_test_smash(ctx, s->a, 2 * (s->n - 1), &h, sizeof h);
}

TEST_TIMEOUT(precision_verifiers_reject_wrong_output, 120)
{
    const char *const f32 = "{prec: f32, vec: 4, iters: 64, wg: 32, groups: 1}";
    const char *const f64 = "{prec: f64, vec: 1, iters: 64, wg: 32, groups: 2}";
    const char *const i32 = "{prec: i32, vec: 1, iters: 64, wg: 32, groups: 1}";
    gb_test_corrupted_case_fails("compute", f32, 2, corrupt_compute_one_step);
    gb_test_corrupted_case_fails("compute", f64, 2, corrupt_compute_unwritten);
    gb_test_corrupted_case_fails("compute", i32, 2, corrupt_compute_int);
    gb_test_corrupted_case_fails("gemm", "{prec: f32, impl: library, shape: 40}", 2, corrupt_gemm);
    gb_test_corrupted_case_fails("gemm", "{prec: f32, impl: own, shape: 300x20x10}", 2,
                                 corrupt_gemm);
    gb_test_corrupted_case_fails("fp16", "{op: triad, storage: half, elems: 5000}", 2,
                                 corrupt_fp16);
}

/* ---- the summary ---------------------------------------------------------------------------- */

TEST_TIMEOUT(precision_summary_table, 120)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "%ssuites:\n  - suite: compute\n    params: {prec: [f32, f64, f16], iters: 64, "
             "groups: 1, wg: 64}\n  - suite: gemm\n    params: {prec: [f32, f16, bf16], impl: "
             "[library, own], shape: 32}\n  - suite: fp16\n    params: {op: triad, elems: 4096}\n",
             budget);
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    struct gb_doc d;
    ASSERT_EQ(gb_doc_init(&d, "test", "t"), 0);
    ASSERT_EQ(gb_precision_doc(&rs, &d), 0);
    ASSERT_EQ(d.ntables, 1);
    const struct gb_doc_table *t = d.tables[0];
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ASSERT_EQ(gb_write_doc(f, "text", &d), 0);
    fclose(f);
    printf("%s", text);
    ASSERT_CONTAINS(text, "speed x accuracy per precision");
    ASSERT_CONTAINS(text, "vs fp32");
    /* Rows by their cells: suite, precision, implementation. */
    bool f32 = false, bf16_own = false, half = false, fp32_self = false;
    char a[64], b[64], c[64];
    for (size_t i = 0; i < t->nrows; i++) {
        gb_doc_cell_text(gb_doc_cell(t, i, 0), a, sizeof a);
        gb_doc_cell_text(gb_doc_cell(t, i, 1), b, sizeof b);
        gb_doc_cell_text(gb_doc_cell(t, i, 2), c, sizeof c);
        f32 |= strcmp(a, "compute") == 0 && strcmp(b, "f32") == 0;
        bf16_own |= strcmp(a, "gemm") == 0 && strcmp(b, "bf16") == 0 && strcmp(c, "own") == 0;
        half |= strcmp(a, "fp16") == 0 && strcmp(b, "half") == 0;
        const struct gb_doc_cell *vs = gb_doc_cell(t, i, 6); /* the FP32 rows against themselves */
        fp32_self |= strcmp(b, "f32") == 0 && vs->kind == GB_CELL_NUM && vs->num == 1.0;
    }
    ASSERT(f32);
    ASSERT(bf16_own);
    ASSERT(half);
    if (is_pocl(&rs)) {
        ASSERT_CONTAINS(text, "skipped: the device has no half-precision arithmetic");
        ASSERT(fp32_self);
    }
    free(text);
    gb_doc_free(&d);
    /* A run without precision suites adds nothing. */
    struct gb_results empty = {0};
    ASSERT_EQ(gb_doc_init(&d, "test", "t"), 0);
    ASSERT_EQ(gb_precision_doc(&empty, &d), 0);
    ASSERT_EQ(d.ntables, 0);
    gb_doc_free(&d);
    gb_results_free(&rs);
}
