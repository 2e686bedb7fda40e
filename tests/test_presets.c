/* Model-shaped presets and convolution shapes, without a device: the tables match their sources'
 * totals, a preset expands into its layers at load time and `validate` counts their cases, and
 * the explicit shape syntax takes what it documents and refuses the rest with a reason. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "suites/conv_state.h"
#include "suites/presets.h"
#include "suites/sparse_state.h"
#include "base/util.h"
#include "test.h"

TEST(presets_tables_match_their_sources)
{
    size_t n;
    const struct gb_preset *p = gb_presets(&n);
    ASSERT_U64(n, >=, 5);
    bool seen_resnet = false, seen_bert = false, seen_llama = false;
    for (size_t i = 0; i < n; i++) {
        unsigned total = 0;
        for (size_t l = 0; l < p[i].nlayers; l++) {
            total += p[i].layers[l].count;
            if (p[i].kind == GB_PRESET_CONV) {
                uint64_t pp, qq;
                ASSERT_OK(gb_conv_out_dims(&p[i].layers[l].conv, &pp, &qq));
            } else {
                ASSERT(p[i].layers[l].m > 0 && p[i].layers[l].k > 0);
            }
        }
        if (strcmp(p[i].name, "resnet50") == 0 && p[i].kind == GB_PRESET_CONV) {
            /* He et al. 2016: 1 + 3 x (3 + 4 + 6 + 3) convolutions and 4 projections. */
            ASSERT_U64(total, ==, 53);
            ASSERT_U64(p[i].nlayers, ==, 23);
            seen_resnet = true;
        }
        if (strcmp(p[i].name, "bert-large") == 0) {
            ASSERT_U64(total, ==, 4 * 24);
            ASSERT_U64(p[i].seq, ==, 512);
            seen_bert = true;
        }
        if (strcmp(p[i].name, "llama3-8b-decode") == 0) {
            /* 32 layers of qkv, out, gate, up, down, and the output head. */
            ASSERT_U64(total, ==, 32 * 5 + 1);
            ASSERT_U64(p[i].seq, ==, 1);
            seen_llama = true;
        }
    }
    ASSERT(seen_resnet && seen_bert && seen_llama);
    /* Output sizes of ResNet-50's stages: 112 after conv1, 28 after conv3's stride, 7 at the end. */
    const struct gb_preset *pr;
    const struct gb_preset_layer *ly;
    uint64_t batch;
    const struct {
        const char *name;
        uint64_t out;
    } outs[] = {{"resnet50.conv1", 112},
                {"resnet50.conv3_3x3_s2", 28},
                {"resnet50.conv4_proj", 14},
                {"resnet50.conv5_3x3", 7}};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        ASSERT(gb_preset_layer_find(outs[i].name, GB_PRESET_CONV, &pr, &ly, &batch));
        uint64_t pp, qq;
        ASSERT_OK(gb_conv_out_dims(&ly->conv, &pp, &qq));
        ASSERT_U64(pp, ==, outs[i].out);
        ASSERT_U64(qq, ==, outs[i].out);
    }
    ASSERT(!gb_preset_layer_find("resnet50.conv9", GB_PRESET_CONV, &pr, &ly, &batch));
    ASSERT(!gb_preset_layer_find("resnet50.fc", GB_PRESET_CONV, &pr, &ly, &batch));
    ASSERT(gb_preset_layer_find("resnet50.fc", GB_PRESET_GEMM, &pr, &ly, &batch));
    /* A batch: "-bN", 1 to 65536, no leading zero. */
    ASSERT(gb_preset_layer_find("llama3-8b-decode-b64.ffn_down", GB_PRESET_GEMM, &pr, &ly, &batch));
    ASSERT_U64(batch, ==, 64);
    ASSERT_U64(ly->m, ==, 4096);
    ASSERT_U64(ly->k, ==, 14336);
    ASSERT(gb_preset_layer_find("resnet50-b65536.conv1", GB_PRESET_CONV, &pr, &ly, &batch));
    static const char *const bad[] = {"resnet50-b0.conv1",     "resnet50-b065.conv1",
                                      "resnet50-b65537.conv1", "resnet50-b.conv1",
                                      "resnet50-x2.conv1",     "resnet50-b2x.conv1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ASSERT_MSG(!gb_preset_layer_find(bad[i], GB_PRESET_CONV, &pr, &ly, &batch), "%s", bad[i]);
    char out[64][GB_STR_MAX];
    ASSERT_U64(gb_preset_expand("llama3-8b-prefill-b2", GB_PRESET_GEMM, out, 64), ==, 5);
    ASSERT_STR(out[4], "llama3-8b-prefill-b2.lm_head");
    ASSERT_U64(gb_preset_expand("resnet50", GB_PRESET_CONV, out, 64), ==, 23);
    ASSERT_STR(out[0], "resnet50.conv1");
    ASSERT_U64(gb_preset_expand("resnet50.conv1", GB_PRESET_CONV, out, 64), ==, 0);
    ASSERT_U64(gb_preset_expand("bert-large", GB_PRESET_CONV, out, 64), ==, 0);
}

TEST(presets_conv_shapes_parse_as_documented)
{
    struct gb_conv_shape sh;
    char why[256];
    ASSERT(gb__conv_parse_shape("1x64x56x56-64x3x3-p1", &sh, why, sizeof why));
    ASSERT(sh.n == 1 && sh.c == 64 && sh.h == 56 && sh.k == 64 && sh.r == 3 && sh.pad_h == 1 &&
           sh.pad_w == 1 && sh.stride_h == 1 && sh.groups == 1 && sh.dil_w == 1);
    ASSERT(gb__conv_parse_shape("8x32x112x100-32x3x5-s2x1-p1x2-d1x2-g32", &sh, why, sizeof why));
    ASSERT(sh.stride_h == 2 && sh.stride_w == 1 && sh.pad_w == 2 && sh.dil_w == 2 &&
           sh.groups == 32 && sh.s == 5 && sh.w == 100);
    static const char *const bad[] = {
        "1x64x56-64x3x3",          /* three image dimensions */
        "1x64x56x56",              /* no filter */
        "1x64x56x56-64x3x3-q1",    /* unknown suffix */
        "1x64x56x56-64x3x3-p1-p2", /* twice */
        "1x64x56x56-64x3x3-g3",    /* groups do not divide 64 */
        "1x64x4x4-64x7x7",         /* the filter is larger than the image */
        "1x64x56x56-64x3x3-s0",    /* a zero stride */
        "1x0x56x56-64x3x3",        /* a zero channel count */
        "1x64x56x56-64x3x3-g2x4",  /* groups with two values */
        "99999999999x1x1x1-1x1x1",
        "-1x1x4x4-1x3x3", /* a leading, doubled or trailing dash, a sign */
        "1x1x4x4--1x3x3",
        "1x1x4x4-1x3x3-",
        "+1x1x4x4-1x3x3",
        "1x1x2x1-1x1x1-s1x1-p2147483647x0", /* a padding of 2^31 - 1: an output side of 2^31 */
        "65536x65536x32768x32768-1x1x1",    /* 2^62 elements */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        ASSERT_MSG(!gb__conv_parse_shape(bad[i], &sh, why, sizeof why), "%s was taken", bad[i]);
        ASSERT_MSG(why[0], "%s: no reason", bad[i]);
    }
}

/* `validate` expands a preset into its layers' cases and refuses a bad shape at its line. */
TEST(presets_validate_counts_preset_cases)
{
    char path[512], out[8192];
    snprintf(path, sizeof path, "%s/presets.yaml", gb_test_tmpdir());
    gb_test_write_file(path, "name: p\n"
                             "suites:\n"
                             "  - suite: conv\n"
                             "    params:\n"
                             "      impl: [library, own]\n"
                             "      shape: [resnet50, 1x8x8x8-8x3x3-p1]\n"
                             "  - suite: conv\n"
                             "    params:\n"
                             "      shape: [resnet50-b8.conv2_3x3, resnet50-b32.conv2_3x3]\n"
                             "  - suite: gemm\n"
                             "    params:\n"
                             "      prec: [f32, bf16]\n"
                             "      impl: library\n"
                             "      shape: [bert-large, llama3-8b-decode-b64, 256]\n");
    ASSERT_U64(gb_test_shf(out, sizeof out, "%s validate %s -f csv 2>&1", GB_TEST_EXE, path), ==,
               0);
    /* 23 layers + 1 explicit shape, 2 implementations; 2 batches x 2 implementations; 2
     * precisions x (4 + 5 layers + 1 square): cases per entry, and its line. */
    ASSERT_MSG(strstr(out, ",48,3,") && strstr(out, ",4,7,") && strstr(out, ",20,10,"), "%s", out);
    gb_test_write_file(path, "name: p\n"
                             "suites:\n"
                             "  - suite: conv\n"
                             "    params:\n"
                             "      shape: 1x8x8x8-8x9x9\n");
    ASSERT_U64(gb_test_shf(out, sizeof out, "%s validate %s 2>&1", GB_TEST_EXE, path), !=, 0);
    ASSERT_MSG(strstr(out, ":5:14:") && strstr(out, "larger than the padded"), "%s", out);
}

/* The break-even density: log-log between the pair that straddles a speedup of 1. */
TEST(sparse_break_even_interpolates)
{
    double at;
    int how;
    const double d[] = {0.5, 0.2, 0.1, 0.05};
    const double sp[] = {0.25, 0.5, 2.0, 4.0};
    gb__sparse_break_even(d, sp, 4, &at, &how);
    ASSERT_U64((uint64_t)how, ==, 2);
    /* log2 speedup -1 at 0.2 and +1 at 0.1: 1 halfway in log density, sqrt(0.02). */
    ASSERT_MSG(fabs(at - sqrt(0.2 * 0.1)) < 1e-12, "at %g", at);
    const double win[] = {1.5, 2, 3, 4}, lose[] = {0.1, 0.2, 0.5, 0.9};
    gb__sparse_break_even(d, win, 4, &at, &how);
    ASSERT(how == 1 && isnan(at));
    gb__sparse_break_even(d, lose, 4, &at, &how);
    ASSERT(how == -1 && isnan(at));
    const double odd[] = {2, 0.5, 0.5, 0.5};
    gb__sparse_break_even(d, odd, 4, &at, &how);
    ASSERT(how == 3);
    gb__sparse_break_even(d, sp, 0, &at, &how);
    ASSERT(how == 0);
    /* Exactly 1 at a measured density counts as a win there. */
    const double one[] = {0.5, 1.0, 2.0, 3.0};
    gb__sparse_break_even(d, one, 4, &at, &how);
    ASSERT(how == 2 && fabs(at - 0.2) < 1e-12);
}

static const struct gb_result *sparse_find(const struct gb_results *rs, const char *op,
                                           const char *impl, double density)
{
    for (size_t i = 0; i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        if (strcmp(r->case_name, op) == 0 && strcmp(gb_params_str(&r->params, "impl"), impl) == 0 &&
            gb_params_float(&r->params, "density") == density)
            return r;
    }
    return NULL;
}

/* A matrix-vector product's dense baseline is the library's GEMV, not its GEMM with n = 1
 * (CLBlast's Sgemm at 512 x 1 x 1024 ran slower than at n = 16 on PoCL, and CSR at density
 * 0.999 read 4.9x "faster than dense"); spmm's stays the GEMM. A density whose draw keeps no
 * entry (1e-9 of 512 x 1024) is skipped with the reason instead of timing an empty launch (a
 * dense-equivalent of 959 GFLOP/s, above the device's peak, that moved the break-even density).
 * Every ok result's headline carries its FP32 peak, and the run left none implausible. */
TEST_TIMEOUT(sparse_gemv_baseline_and_empty_density, 180)
{
    struct gb_results rs;
    gb_test_run_profile("measure: {min_samples: 3, max_samples: 3, max_time: 20ms, "
                        "min_sample_time: 1ms, warmup_runs: 1}\n"
                        "suites:\n  - suite: sparse\n    params: {op: [spmv, spmm], impl: own, "
                        "density: [1, 0.999, 1e-9], shape: 512x16x1024}\n",
                        "0", &rs);
    const struct gb_result *dense_v = sparse_find(&rs, "spmv", "library", 1),
                           *dense_m = sparse_find(&rs, "spmm", "library", 1),
                           *empty = sparse_find(&rs, "spmv", "own", 1e-9),
                           *near = sparse_find(&rs, "spmv", "own", 0.999);
    ASSERT(dense_v && dense_m && empty && near);
    if (dense_v->status != GB_STATUS_SKIPPED) { /* a BLAS is built in */
        ASSERT_MSG(dense_v->status == GB_STATUS_OK, "%s", dense_v->reason);
        const struct gb_figure *algo = gb_result_figure_get(dense_v, "algo");
        ASSERT(algo);
        ASSERT_CONTAINS(algo->text, "BLAS gemv");
        algo = gb_result_figure_get(dense_m, "algo");
        ASSERT(algo);
        ASSERT_CONTAINS(algo->text, "BLAS gemm");
        ASSERT(!strstr(algo->text, "n = 1"));
        ASSERT(!isnan(gb_result_scalar(near, "speedup_vs_dense")));
    }
    ASSERT_MSG(empty->status == GB_STATUS_SKIPPED, "%s", empty->reason);
    ASSERT_CONTAINS(empty->reason, "keeps no entry of the 512 x 1024 A");
    ASSERT(sparse_find(&rs, "spmm", "own", 1e-9)->status == GB_STATUS_SKIPPED);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_MSG(r->status != GB_STATUS_FAILED && !r->implausible, "%s %g: %s", r->case_name,
                   gb_params_float(&r->params, "density"), r->reason);
        if (r->status == GB_STATUS_OK && rs.devices[r->device_index].info.clock_mhz)
            ASSERT_MSG(gb_result_scalar(r, "peak") > 0, "%s: no peak", r->case_name);
    }
    gb_results_free(&rs);
}

/* The roofline decides a GEMM's headline: below the ridge point (the device's peak over its
 * memory bandwidth, or GB_ROOFLINE_RIDGE_FLOOR where either is unknown) a layer is
 * memory-bound. */
TEST(presets_roofline_rule)
{
    struct gb_device_info h200 = {0};
    h200.peak_mem_gbs = 4800;
    char why[64];
    /* llama3-8b-decode-b8.attn_out in f32: 2 x 4096^2 x 8 operations over 4 (4096^2 + 2 x
     * 4096 x 8) bytes, 3.98 FLOP/B, below the H200's FP32 ridge (67e12 / 4.8e12 = 14). */
    const double fl = 2.0 * 4096 * 4096 * 8, by = 4.0 * (4096.0 * 4096 + 2 * 4096 * 8);
    ASSERT(gb_gemm_memory_bound(&h200, fl, by, 67e12, why, sizeof why));
    ASSERT_CONTAINS(why, "memory-bound: 3.98 FLOP/B below the ridge 14");
    /* bert-large.attn_out (n 512): 128 FLOP/B, compute-bound. */
    ASSERT(!gb_gemm_memory_bound(&h200, 2.0 * 1024 * 1024 * 512,
                                 4.0 * (1024.0 * 1024 + 2 * 1024 * 512), 67e12, why, sizeof why));
    ASSERT_CONTAINS(why, "compute-bound");
    /* Bandwidth unknown (PoCL): only a GEMV-like intensity is memory-bound everywhere. */
    struct gb_device_info cpu = {0};
    ASSERT(gb_gemm_memory_bound(&cpu, 2.0 * 4096 * 4096, 4.0 * (4096.0 * 4096 + 2 * 4096), 3e11,
                                why, sizeof why));
    ASSERT_CONTAINS(why, "below any ridge, at least 1");
    ASSERT(!gb_gemm_memory_bound(&cpu, fl, by, 3e11, why, sizeof why));
}

/* A GEMV-shaped layer (llama3-8b-decode at batch 1, n = 1) reports the bytes it moves, GB/s, its
 * regime and the memory bound (landed: GFLOP/s alone, bytes_per_op 0); its arithmetic rate is
 * the figure gflops, held to the case's peak. A compute-bound GEMM keeps GFLOP/s. */
TEST_TIMEOUT(presets_gemv_layer_reports_bandwidth, 180)
{
    struct gb_results rs;
    gb_test_run_profile("measure: {min_samples: 3, max_samples: 3, max_time: 20ms, "
                        "min_sample_time: 1ms, warmup_runs: 1}\n"
                        "suites:\n  - suite: gemm\n    params: {prec: f32, impl: [library, own], "
                        "shape: [llama3-8b-decode.attn_out, resnet50.fc, 64]}\n",
                        "0", &rs);
    size_t memory = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        const char *shape = gb_params_str(&r->params, "shape");
        if (r->status == GB_STATUS_SKIPPED)
            continue;
        ASSERT_MSG(r->status == GB_STATUS_OK, "%s: %s", shape, r->reason);
        const struct gb_figure *roof = gb_result_figure_get(r, "roofline");
        ASSERT(roof);
        if (strcmp(shape, "64x64x64") == 0 || strcmp(shape, "64") == 0) {
            ASSERT_STR(r->unit, "GFLOP/s");
            ASSERT_CONTAINS(roof->text, "compute-bound");
            continue;
        }
        const double m = strcmp(shape, "resnet50.fc") == 0 ? 1000 : 4096,
                     k = strcmp(shape, "resnet50.fc") == 0 ? 2048 : 4096;
        ASSERT_MSG(strcmp(r->unit, "GB/s") == 0, "%s: %s", shape, r->unit);
        ASSERT_STR(r->metric, "bandwidth");
        ASSERT_EQ(r->bytes_per_op, 4 * (m * k + k + m));
        ASSERT(r->regime[0]);
        ASSERT_CONTAINS(roof->text, "memory-bound: 0.");
        ASSERT(gb_result_figure_get(r, "peak")); /* the memory bound, or why none is known */
        const double gf = gb_result_scalar(r, "gflops");
        ASSERT_MSG(fabs(gf / (2 * m * k / r->op_time_us.median / 1e3) - 1) < 1e-9, "gflops %g", gf);
        ASSERT_NEAR(gb_result_scalar(r, "intensity"), 2 * m * k / r->bytes_per_op, 1e-12);
        memory++;
    }
    ASSERT_U64(memory, >=, 2); /* the own kernel runs everywhere */
    gb_results_free(&rs);
}

/* The report's AI workloads chapter: the conv bars, and as findings a complete preset's
 * forward-pass proxy, int8 against bf16 and sparse's break-even, from one small run. */
TEST_TIMEOUT(report_ai_workloads_chapter_has_its_findings, 180)
{
    char path[512], out[16384];
    const char *dir = gb_test_tmpdir();
    snprintf(path, sizeof path, "%s/ai.yaml", dir);
    gb_test_write_file(path,
                       "name: ai\n"
                       "measure: {warmup_runs: 1, min_samples: 3, max_samples: 3, max_time: 50ms}\n"
                       "suites:\n"
                       "  - suite: conv\n"
                       "    params: {impl: own, shape: [2x8x8x8-8x3x3-p1]}\n"
                       "  - suite: gemm\n"
                       "    params: {prec: [bf16, i8], impl: own, shape: [64, resnet50]}\n"
                       "  - suite: sparse\n"
                       "    params: {op: spmm, impl: own, density: [1, 0.5, 0.01], shape: "
                       "64x8x256}\n");
    int rc = gb_test_shf(out, sizeof out,
                         "cd %s && %s run ai.yaml -o ai.json -q >/dev/null 2>&1; %s report ai.json "
                         "-o rep 2>&1",
                         dir, GB_TEST_EXE, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report: %s", out);
    char *md = gb_test_slurp_in(dir, "rep/report.md");
    ASSERT(md);
    ASSERT_CONTAINS(md, "### AI workloads: convolution per layer, pass and precision");
    ASSERT_CONTAINS(md, "forward-pass proxy");       /* resnet50's fc: one layer, complete */
    ASSERT_CONTAINS(md, "bf16's rate; error");       /* gemm i8 beside bf16 */
    ASSERT_CONTAINS(md, "sparse spmm own 64x8x256"); /* break-even, or why none */
    free(md);
}

/* A text cut to a figure's 63 bytes keeps whole UTF-8 characters only. */
TEST(util_utf8_trim_drops_a_cut_character)
{
    char a[] = "ab\xc3\xa9", b[] = "ab\xc3", c[] = "x\xe2\x82", d[] = "x\xe2\x82\xac", e[] = "";
    gb_utf8_trim(a);
    gb_utf8_trim(b);
    gb_utf8_trim(c);
    gb_utf8_trim(d);
    gb_utf8_trim(e);
    ASSERT_STR(a, "ab\xc3\xa9");
    ASSERT_STR(b, "ab");
    ASSERT_STR(c, "x");
    ASSERT_STR(d, "x\xe2\x82\xac");
    ASSERT_STR(e, "");
}
