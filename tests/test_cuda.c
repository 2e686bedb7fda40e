/* CUDA backend tests that need the toolkit but no GPU and no driver, so they run in CI on every
 * commit: NVRTC compiles every kernel variant the suites use (the CUDA side of the single-source
 * promise), the prelude's CUDA mapping compiles, and a gpubench built with CUDA starts without
 * a driver and says why CUDA is unavailable.
 *
 * The compiles go through gb_cuda_compile(), the function program_build uses, with the same
 * options; only the target differs (PTX for a virtual architecture here, the device's own CUBIN
 * on a GPU).
 */
#include "gb-config.h"
#include "test.h"

#include <dlfcn.h>
#include <libgen.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"

#if HAVE_CUDA
#include <cuda_runtime_api.h>
#if HAVE_CUBLAS
#include <cublas_api.h>
#endif

#include "backends/cuda/gb_cuda.h"
#include "run/kernels.h"

/* ---- the kernel variants the suites build ----------------------------------------------------
 * One row per kernel file: the kernels in it and the define sets the suites compile it with
 * (each a NULL-terminated list, "" ends the table of sets). Add a row when a suite gains a
 * kernel file, and a set when it gains a tunable value; the counts follow. */
#define MAX_KERNELS 8
#define MAX_SETS 24
#define MAX_DEFS 7
struct variant_file {
    const char *file;
    const char *kernels[MAX_KERNELS]; /* NULL-terminated */
    const char *sets[MAX_SETS][MAX_DEFS + 1];
    size_t nsets;
};

static const struct variant_file variant_files[] = {
    /* suites/memory.c: T in {float, double}; WG is the `wg` axis: every value the shipped
     * profiles sweep (64..1024, 256 the default) and the extremes a CUDA device launches
     * (1, and 32 = one warp). The empty set is the file's own defaults. */
    {"stream.cl",
     {"stream_copy", "stream_mul", "stream_add", "stream_triad", "stream_dot", NULL},
     {{NULL},
      {"T=float", "WG=1", NULL},
      {"T=float", "WG=32", NULL},
      {"T=float", "WG=64", NULL},
      {"T=float", "WG=128", NULL},
      {"T=float", "WG=256", NULL},
      {"T=float", "WG=512", NULL},
      {"T=float", "WG=1024", NULL},
      {"T=double", "WG=1", NULL},
      {"T=double", "WG=32", NULL},
      {"T=double", "WG=64", NULL},
      {"T=double", "WG=128", NULL},
      {"T=double", "WG=256", NULL},
      {"T=double", "WG=512", NULL},
      {"T=double", "WG=1024", NULL},
      /* the vec axis (0 picks 16 bytes on a GPU: float VEC=4, double VEC=2) */
      {"T=float", "WG=256", "VEC=2", NULL},
      {"T=float", "WG=256", "VEC=4", NULL},
      {"T=float", "WG=256", "VEC=8", NULL},
      {"T=float", "WG=256", "VEC=16", NULL},
      {"T=double", "WG=256", "VEC=2", NULL},
      {"T=double", "WG=256", "VEC=4", NULL},
      /* the offset axis (OFF in elements; a whole number of vectors) */
      {"T=float", "WG=256", "VEC=4", "OFF=4", NULL},
      {"T=double", "WG=256", "OFF=1", NULL}},
     23},
    /* suites/launch.c: no tunables. */
    {"launch.cl", {"launch_count", NULL}, {{NULL}}, 1},
    /* suites/compute.c: CHAINS is the `chains` axis (the values configs/precision.yaml
     * sweeps); VEC is 1 on CUDA. Every kernel, FP16 (cuda_fp16.h), BF16 (cuda_bf16.h) and dp4a
     * included, is compiled in each set. */
    {"compute.cl",
     {"compute_f64", "compute_f32", "compute_f16", "compute_half2", "compute_bf16",
      "compute_int8dot", "compute_i32", NULL},
     {{NULL},
      {"CHAINS=4", "VEC=1", NULL},
      {"CHAINS=8", "VEC=1", NULL},
      {"CHAINS=16", "VEC=1", NULL}},
     4},
    /* suites/gemm.c (impl=own) and the tuning suite: the element types and transposes, and the
     * tunables' extremes (defaults fill in what a set leaves out; kernels/gemm.cl lists the
     * valid combinations). */
    {"gemm.cl",
     {"gemm_tiled", NULL},
     {{NULL},
      {"T=float", "TRANS_A=1", "TRANS_B=1", NULL},
      {"T=double", "TRANS_A=0", "TRANS_B=1", NULL},
      {"T=float", "IN_HALF=1", "TRANS_A=1", NULL},
      {"T=float", "IN_BF16=1", NULL},
      {"T=int", "IN_I8=1", "TRANS_A=1", NULL},
      {"TS=16", "WPT=2", "TSK=4", "UNROLL=1", NULL},
      {"TS=64", "WPT=8", "TSK=32", "UNROLL=8", NULL},
      {"TS=128", "WPT=8", "TSK=32", "UNROLL=8", NULL}},
     9},
    /* suites/conv.c (impl=own): the three passes in every storage type and layout, the
     * forward pass's channel blocking, strides, dilations and groups, and the broken variants
     * tests/test_conv.c builds; int8 has the forward pass only. */
    {"conv.cl",
     {"conv_fwd", "conv_bwd_data", "conv_bwd_filter", NULL},
     {{NULL},
      {"IN_HALF=1", "LAYOUT_NHWC=1", NULL},
      {"IN_BF16=1", "KB=8", NULL},
      {"GB_BREAK=1", "KB=4", "LAYOUT_NHWC=1", NULL},
      {"GB_BREAK=2", NULL}},
     5},
    {"conv.cl",
     {"conv_fwd", NULL},
     {{"IN_I8=1", NULL}, {"IN_I8=1", "LAYOUT_NHWC=1", "KB=8", NULL}},
     2},
    /* suites/sparse.c (impl=own): CSR and 2:4, and the broken variants of tests/test_broken_kernels.c. */
    {"sparse.cl",
     {"csr_spmm", "nm24_spmm", NULL},
     {{NULL}, {"GB_BREAK=1", NULL}, {"GB_BREAK=2", NULL}},
     3},
    /* suites/tuning.c: the dot reduction's defaults and the corners of its search space. */
    {"dot.cl",
     {"dot_partial", "dot_final", NULL},
     {{NULL},
      {"T=float", "WG=32", "VEC=1", "LAYOUT=1", "REDUCE=0", "FWG=32", NULL},
      {"T=float", "WG=1024", "VEC=16", "LAYOUT=0", "REDUCE=1", "FWG=1024", NULL},
      {"T=double", "WG=256", "VEC=4", "LAYOUT=0", "REDUCE=2", "FWG=64", NULL},
      /* the memory suite's tuned dot at an offset (OFF in elements) */
      {"T=float", "WG=64", "VEC=4", "LAYOUT=1", "REDUCE=0", "FWG=64", "OFF=3", NULL}},
     5},
    /* suites/tuning.c: the 2-D transpose, with and without a local-memory tile. */
    {"transpose.cl",
     {"transpose", NULL},
     {{NULL},
      {"T=float", "TILE=8", "ROWS=1", "LOCAL=0", "PAD=0", NULL},
      {"T=float", "TILE=64", "ROWS=8", "LOCAL=1", "PAD=1", NULL},
      {"T=double", "TILE=16", "ROWS=16", "LOCAL=1", "PAD=0", NULL}},
     4},
    /* suites/batching.c and the multi-device suites (their tiled fallback SGEMM, and peerbw's
     * SM copy in 4- and 16-byte words). */
    {"batching.cl", {"batch_inc", NULL}, {{NULL}}, 1},
    {"multi.cl",
     {"multi_sgemm", "multi_work", "multi_copy", NULL},
     {{NULL}, {"TS=8", NULL}, {"TS=32", "COPY_VEC4", NULL}},
     3},
    /* suites/collective.c and allreduce.c: the reduction in every type, sum and max. */
    {"collective.cl",
     {"coll_reduce", NULL},
     {{NULL},
      {"COLL_F32", "COLL_MAX", NULL},
      {"COLL_I32", NULL},
      {"COLL_I32", "COLL_MAX", NULL},
      {"COLL_F16", NULL},
      {"COLL_F16", "COLL_MAX", NULL},
      {"COLL_BF16", NULL},
      {"COLL_BF16", "COLL_MAX", NULL}},
     8},
    /* suites/fp16.c: float, half (cuda_fp16.h) and bfloat16 storage. */
    {"fp16.cl",
     {"fp16_scale", "fp16_triad", NULL},
     {{NULL}, {"STORE_HALF=1", NULL}, {"STORE_BF16=1", NULL}},
     3},
    /* The chip suites (suites/latency.c, cache.c, local.c, atomics.c): every vector width, the
     * local array and stride extremes, every atomic type (float and int64 atomics on global and
     * shared memory), and the broken variant the PoCL tests build (GB_BREAK). */
    {"latency.cl", {"latency_chase", NULL}, {{NULL}, {"GB_BREAK", NULL}}, 2},
    {"cache.cl",
     {"cache_read", NULL},
     {{NULL}, {"VEC=1", NULL}, {"VEC=2", NULL}, {"VEC=4", "GB_BREAK", NULL}},
     4},
    {"local.cl",
     {"local_read", "local_write", NULL},
     {{NULL},
      {"VEC=1", "WG=256", "LN=4096", "STRIDE=1", NULL},
      {"VEC=2", "WG=256", "LN=2048", "STRIDE=32", NULL},
      {"VEC=4", "WG=1024", "LN=1024", "STRIDE=33", NULL},
      {"VEC=4", "WG=32", "LN=1024", "STRIDE=2", "GB_BREAK", NULL}},
     5},
    {"atomics.cl",
     {"atomics_caps", "atomics_global", "atomics_local", NULL},
     {{NULL},
      {"TYPE=0", "NADDR=1", NULL},
      {"TYPE=1", "NADDR=64", NULL},
      {"TYPE=2", "NADDR=256", NULL},
      {"TYPE=0", "NADDR=256", "GB_BREAK", NULL}},
     5},
    /* suites/alloc.c and suites/pool.c: the first-use fill, and the test's half fill. */
    {"alloc.cl", {"alloc_fill", NULL}, {{NULL}, {"GB_BREAK=1", NULL}}, 2},
    /* suites/concurrency.c: its three kernels (priority: the chain and the tick from one
     * program), and the test's broken ones. */
    {"concurrency.cl",
     {"conc_triad", "conc_chain", "conc_tick", NULL},
     {{NULL}, {"EXACT", NULL}, {"GB_BREAK=1", NULL}, {"EXACT", "GB_BREAK=2", NULL}},
     4},
    /* suites/llm.c: the tiny model (the kernel's defaults), llama3-8b's shape (GQA 32/8, a
     * context of 959), a work-group fitted down to 32, and the test hook's two faults. */
    {"llm.cl",
     {"llm_embed", "llm_kv_append", "llm_attn", "llm_swiglu", "llm_add", NULL},
     {{NULL},
      {"D=4096", "KVD=1024", "HD=128", "GROUP=4", "CTX=959", "NMAX=768", "F=14336", NULL},
      {"WG=32", "LLM_BREAK=1", NULL},
      {"LLM_BREAK=2", NULL}},
     4},
};
#define NFILES (sizeof variant_files / sizeof variant_files[0])

static size_t ndefs(const char *const *set)
{
    size_t n = 0;
    while (set[n])
        n++;
    return n;
}

/* True when the PTX defines an entry point called `name` (unmangled: GB_KERNEL is extern "C"). */
static bool ptx_has_entry(const char *ptx, const char *name)
{
    char pat[160];
    snprintf(pat, sizeof pat, ".entry %s(", name);
    return strstr(ptx, pat) != NULL;
}

/* Compiles every variant of the table for `arch` ("compute_XY": PTX, whose entry points are
 * checked by name; "sm_XY": a CUBIN, which also runs ptxas, as program_build does on a device
 * of that architecture). Prints the counts and asserts them against the table. */
static void compile_all(const char *arch)
{
    const bool cubin = strncmp(arch, "sm_", 3) == 0;
    size_t builds = 0, kernels = 0, expect_builds = 0, expect_kernels = 0;
    for (size_t f = 0; f < NFILES; f++) {
        const struct variant_file *vf = &variant_files[f];
        size_t nk = 0;
        while (vf->kernels[nk])
            nk++;
        expect_builds += vf->nsets;
        expect_kernels += vf->nsets * nk;

        char *src = NULL;
        ASSERT_OK(gb_kernel_source(vf->file, &src));
        for (size_t s = 0; s < vf->nsets; s++) {
            const char *const *set = vf->sets[s];
            char *img = NULL, *log = NULL;
            size_t size = 0;
            int rc = gb_cuda_compile(src, arch, set, ndefs(set), &img, &size, &log);
            ASSERT_MSG(rc == 0, "%s for %s with %s %s: %s\n%s", vf->file, arch,
                       set[0] ? set[0] : "its defaults", set[0] && set[1] ? set[1] : "",
                       gb_error_msg(), log ? log : "");
            ASSERT(log == NULL);
            if (cubin) {
                ASSERT_U64(size, >, 4);
                ASSERT(memcmp(img, "\177ELF", 4) == 0);
                kernels += nk;
            } else {
                char target[64];
                snprintf(target, sizeof target, ".target sm_%s", strchr(arch, '_') + 1);
                ASSERT_CONTAINS(img, target);
                for (size_t k = 0; k < nk; k++) {
                    ASSERT_MSG(ptx_has_entry(img, vf->kernels[k]), "%s has no entry %s for %s",
                               vf->file, vf->kernels[k], arch);
                    kernels++;
                }
            }
            builds++;
            free(img);
        }
        free(src);
    }
    printf("NVRTC %s: %zu kernel variants compiled (%zu builds of %zu files)\n", arch, kernels,
           builds, NFILES);
    ASSERT_EQ(builds, expect_builds);
    ASSERT_EQ(kernels, expect_kernels);
    /* The table must not shrink by accident: stream.cl's 5 kernels x 23 sets, launch.cl's 1. */
    ASSERT_U64(kernels, >=, 116);
}

TEST_TIMEOUT(cuda_nvrtc_kernels_compute_80, 300)
{
    compile_all("compute_80");
}

TEST_TIMEOUT(cuda_nvrtc_kernels_compute_90, 300)
{
    compile_all("compute_90");
}

/* The device path of an H100 / H200: its own architecture yields a CUBIN. */
TEST_TIMEOUT(cuda_nvrtc_kernels_sm_90, 300)
{
    compile_all("sm_90");
}

/* The memory suite's wide loads on CUDA: with VEC=4 floats (VEC=2 doubles) every stream kernel
 * loads and stores 16 bytes per instruction (ld.global.nc.v4 / st.global.v4 in the PTX; .v2.f64
 * for doubles), at offset 0 and at an offset of whole vectors (OFF=4 floats), and with VEC=1 it
 * does not: a struct that lost its alignment would compile to four scalar loads, a quarter of
 * the bytes in flight per thread. */
TEST_TIMEOUT(cuda_stream_wide_loads, 120)
{
    char *src = NULL;
    ASSERT_OK(gb_kernel_source("stream.cl", &src));
    static const struct {
        const char *t, *vec, *off, *ld, *st;
    } cases[] = {
        {"T=float", "VEC=4", "OFF=0", "ld.global.nc.v4.f32", "st.global.v4.f32"},
        {"T=double", "VEC=2", "OFF=0", "ld.global.nc.v2.f64", "st.global.v2.f64"},
        {"T=float", "VEC=4", "OFF=4", "ld.global.nc.v4.f32", "st.global.v4.f32"},
        {"T=float", "VEC=1", "OFF=0", NULL, NULL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const char *set[] = {cases[c].t, "WG=256", cases[c].vec, cases[c].off};
        char *ptx = NULL, *log = NULL;
        size_t size = 0;
        int rc = gb_cuda_compile(src, "compute_90", set, 4, &ptx, &size, &log);
        ASSERT_MSG(rc == 0, "%s %s %s: %s\n%s", set[0], set[2], set[3], gb_error_msg(),
                   log ? log : "");
        static const char *const k[] = {"stream_copy", "stream_mul", "stream_add", "stream_triad"};
        for (size_t i = 0; i < 4; i++) {
            char pat[64];
            snprintf(pat, sizeof pat, ".entry %s(", k[i]);
            const char *body = strstr(ptx, pat);
            ASSERT_MSG(body != NULL, "no %s", k[i]);
            const char *end = strstr(body, "\n}");
            char *fn = strndup(body, end ? (size_t)(end - body) : strlen(body));
            if (cases[c].ld) {
                ASSERT_MSG(strstr(fn, cases[c].ld), "%s %s %s %s: no %s:\n%s", set[0], set[2],
                           set[3], k[i], cases[c].ld, fn);
                ASSERT_MSG(strstr(fn, cases[c].st), "%s %s %s %s: no %s", set[0], set[2], set[3],
                           k[i], cases[c].st);
            } else {
                ASSERT_MSG(!strstr(fn, ".v4.") && !strstr(fn, ".v2."),
                           "%s %s %s %s: vector accesses:\n%s", set[0], set[2], set[3], k[i], fn);
            }
            free(fn);
        }
        free(ptx);
    }
    free(src);
}

/* Every macro of the prelude (kernels/prelude.h and backends/cuda/prelude_cuda.h), once, in a
 * kernel compiled for CUDA. */
static const char prelude_probe[] =
    "#if GB_HAS_HALF_INTRINSICS != 1 || GB_HAS_FP64 != 1 || GB_HAS_FP16 != 1\n"
    "#error the CUDA branch of the prelude was not taken\n"
    "#endif\n"
    "GB_INLINE float probe_twice(float x) { return GB_FMA(x, 2.0f, 0.0f); }\n"
    "GB_KERNEL GB_WG_HINT(64) void gb_prelude_probe(GB_CONSTANT_ARG T *GB_RESTRICT in,\n"
    "    GB_GLOBAL T *GB_RESTRICT out, GB_GLOBAL gb_half *GB_RESTRICT h, GB_GLOBAL double *d)\n"
    "{\n"
    "    GB_LOCAL T tile[64];\n"
    "    const size_t lid = GB_LOCAL_ID(0) + GB_LOCAL_ID(1) + GB_LOCAL_ID(2);\n"
    "    const size_t gid = GB_GLOBAL_ID(0) + GB_GLOBAL_ID(1) + GB_GLOBAL_ID(2);\n"
    "    const size_t grp = GB_GROUP_ID(0) + GB_GROUP_ID(1) + GB_GROUP_ID(2);\n"
    "    const size_t lsz = GB_LOCAL_SIZE(0) * GB_LOCAL_SIZE(1) * GB_LOCAL_SIZE(2);\n"
    "    const size_t ngr = GB_NUM_GROUPS(0) * GB_NUM_GROUPS(1) * GB_NUM_GROUPS(2);\n"
    "    const size_t gsz = GB_GLOBAL_SIZE(0) * GB_GLOBAL_SIZE(1) * GB_GLOBAL_SIZE(2);\n"
    "    tile[lid % 64] = in[gid];\n"
    "    GB_BARRIER();\n"
    "    out[gid] = tile[(lid + 1) % 64] + (T)(grp + lsz + ngr + gsz);\n"
    "    const float x = GB_LOAD_HALF(h, gid);\n"
    "    GB_STORE_HALF(probe_twice(x), h, gid);\n"
    "    d[gid] = GB_FMA(d[gid], 3.0, 1.0);\n"
    "}\n";

TEST_TIMEOUT(cuda_prelude_macros, 120)
{
    char *prelude = NULL;
    ASSERT_OK(gb_kernel_prelude(&prelude));
    size_t len = strlen(prelude) + sizeof prelude_probe + 2;
    char *src = malloc(len);
    ASSERT(src != NULL);
    snprintf(src, len, "%s\n%s", prelude, prelude_probe);
    free(prelude);
    const char *defs[] = {"T=float"};
    char *ptx = NULL, *log = NULL;
    int rc = gb_cuda_compile_ptx(src, "compute_90", defs, 1, &ptx, &log);
    ASSERT_MSG(rc == 0, "%s\n%s", gb_error_msg(), log ? log : "");
    ASSERT(ptx_has_entry(ptx, "gb_prelude_probe"));
    ASSERT_CONTAINS(ptx, ".maxntid 64");    /* GB_WG_HINT -> __launch_bounds__ */
    ASSERT_CONTAINS(ptx, "bar.sync");       /* GB_BARRIER -> __syncthreads */
    ASSERT_CONTAINS(ptx, ".shared");        /* GB_LOCAL -> __shared__ */
    ASSERT_CONTAINS(ptx, "cvt.f32.f16");    /* GB_LOAD_HALF */
    ASSERT_CONTAINS(ptx, "cvt.rn.f16.f32"); /* GB_STORE_HALF rounds to nearest */
    ASSERT_CONTAINS(ptx, "fma.rn.f64");     /* GB_FMA on double */
    ASSERT_CONTAINS(ptx, "%ctaid.z");       /* GB_GROUP_ID(2) */
    ASSERT_CONTAINS(ptx, "%nctaid.y");      /* GB_NUM_GROUPS(1) */
    free(ptx);
    free(src);
}

/* The parameter layout launch marshals: buffers are 8-byte pointers, `unsigned long` is 64-bit
 * (GB_ARG_U64, as in OpenCL C), `T s` is a float or a double. */
TEST_TIMEOUT(cuda_kernel_parameter_layout, 120)
{
    char *src = NULL;
    ASSERT_OK(gb_kernel_source("stream.cl", &src));
    for (int dbl = 0; dbl < 2; dbl++) {
        const char *defs[] = {dbl ? "T=double" : "T=float"};
        char *ptx = NULL, *log = NULL;
        ASSERT_OK(gb_cuda_compile_ptx(src, "compute_80", defs, 1, &ptx, &log));
        ASSERT_CONTAINS(ptx, ".param .u64 stream_mul_param_0");
        ASSERT_CONTAINS(ptx,
                        dbl ? ".param .f64 stream_mul_param_2" : ".param .f32 stream_mul_param_2");
        ASSERT_CONTAINS(ptx, ".param .u64 stream_mul_param_3");
        ASSERT_CONTAINS(ptx, ".param .u64 stream_copy_param_2");
        free(ptx);
    }
    free(src);
}

/* A kernel that does not compile: GB_EBUILD, the log names the error, the reason has it too. */
TEST_TIMEOUT(cuda_nvrtc_build_error_log, 120)
{
    char *src = NULL;
    ASSERT_OK(gb_kernel_source("stream.cl", &src));
    const char *defs[] = {"T=no_such_type"};
    char *ptx = NULL, *log = NULL;
    int rc = gb_cuda_compile_ptx(src, "compute_90", defs, 1, &ptx, &log);
    ASSERT_EQ(rc, GB_EBUILD);
    ASSERT(ptx == NULL);
    ASSERT(log != NULL);
    ASSERT_CONTAINS(log, "no_such_type");
    ASSERT_CONTAINS(log, "stream.cl"); /* the #line of gb_kernel_source points at the file */
    ASSERT_CONTAINS(gb_error_msg(), "error");
    ASSERT_CONTAINS(gb_error_msg(), "NVRTC_ERROR_COMPILATION");
    ASSERT_CONTAINS(gb_error_msg(), "; log: "); /* the log itself, not only its first line */
    ASSERT_CONTAINS(gb_error_msg(), "no_such_type");
    free(log);
    /* A malformed architecture is refused before NVRTC runs. */
    ASSERT_EQ(gb_cuda_compile_ptx(src, "gfx90a", NULL, 0, &ptx, &log), GB_EINVAL);
    free(src);
}

TEST(cuda_pick_arch)
{
    char arch[32];
    bool cubin = false;
    ASSERT_OK(gb_cuda_pick_arch(9, 0, arch, sizeof arch, &cubin));
    ASSERT_STR(arch, "sm_90");
    ASSERT(cubin);
    ASSERT_OK(gb_cuda_pick_arch(8, 0, arch, sizeof arch, &cubin));
    ASSERT_STR(arch, "sm_80");
    /* A device newer than this NVRTC gets PTX of the newest architecture it knows. */
    ASSERT_OK(gb_cuda_pick_arch(99, 9, arch, sizeof arch, &cubin));
    ASSERT(!cubin);
    ASSERT(strncmp(arch, "compute_", 8) == 0);
    /* Kepler is older than anything NVRTC 12+ supports. */
    ASSERT_EQ(gb_cuda_pick_arch(3, 0, arch, sizeof arch, &cubin), GB_EUNSUPPORTED);
}

TEST(cuda_peak_bandwidth_formula)
{
    /* H200: 3201 MHz HBM3e, 6144-bit bus -> 2 * 3.201e9 * 768 B = 4916.7 GB/s. */
    ASSERT_NEAR(gb_cuda_peak_mem_gbs(3201000, 6144), 4916.736, 1e-6);
    /* RTX 4090: 10501 MHz GDDR6X, 384 bits -> 1008.1 GB/s (datasheet: 1008). */
    ASSERT_NEAR(gb_cuda_peak_mem_gbs(10501000, 384), 1008.096, 1e-6);
    ASSERT_NEAR(gb_cuda_peak_mem_gbs(0, 384), 0.0, 0);
}

TEST(cuda_f16_bits)
{
    ASSERT_EQ(gb_cuda_f16_bits(0.0f), 0x0000);
    ASSERT_EQ(gb_cuda_f16_bits(-0.0f), 0x8000);
    ASSERT_EQ(gb_cuda_f16_bits(1.0f), 0x3c00);
    ASSERT_EQ(gb_cuda_f16_bits(-2.0f), 0xc000);
    ASSERT_EQ(gb_cuda_f16_bits(0.5f), 0x3800);
    ASSERT_EQ(gb_cuda_f16_bits(65504.0f), 0x7bff); /* largest half */
    ASSERT_EQ(gb_cuda_f16_bits(65520.0f), 0x7c00); /* rounds up to infinity */
    ASSERT_EQ(gb_cuda_f16_bits(1e6f), 0x7c00);
    ASSERT_EQ(gb_cuda_f16_bits(INFINITY), 0x7c00);
    ASSERT((gb_cuda_f16_bits(NAN) & 0x7c00) == 0x7c00 && (gb_cuda_f16_bits(NAN) & 0x3ff) != 0);
    ASSERT_EQ(gb_cuda_f16_bits(6.103515625e-05f), 0x0400);   /* smallest normal, 2^-14 */
    ASSERT_EQ(gb_cuda_f16_bits(5.9604645e-08f), 0x0001);     /* smallest subnormal, 2^-24 */
    ASSERT_EQ(gb_cuda_f16_bits(2.9802322e-08f), 0x0000);     /* 2^-25: a tie, to even (0) */
    ASSERT_EQ(gb_cuda_f16_bits(1.0f + 1.0f / 2048), 0x3c00); /* tie, to even */
    ASSERT_EQ(gb_cuda_f16_bits(1.0f + 3.0f / 2048), 0x3c02); /* tie, to even (up) */
    ASSERT_EQ(gb_cuda_f16_bits(0.1f), 0x2e66);
}

/* ---- no driver is normal ------------------------------------------------------------------- */

TEST(cuda_init_without_driver)
{
    int rc = gb_cuda_ops.init();
    if (rc == 0) {
        int n = gb_cuda_ops.device_count();
        gb_cuda_ops.shutdown();
        SKIP("a CUDA driver is present here (%d device%s)", n, n == 1 ? "" : "s");
    }
    ASSERT_MSG(rc == GB_EUNAVAIL, "init returned %d (%s): %s", rc, gb_err_name(rc), gb_error_msg());
    ASSERT_CONTAINS(gb_error_msg(), "CUDA driver");
    ASSERT_CONTAINS(gb_error_msg(), "driver");
    ASSERT_EQ(gb_cuda_ops.device_count(), 0);
    /* Asking again is harmless and says the same. */
    ASSERT_EQ(gb_cuda_ops.init(), GB_EUNAVAIL);
}

/* The binary must not need libcuda.so.1 (the driver) to start: the runtime is linked statically
 * and loads the driver itself; NVRTC and cuBLAS are dlopened (cuda_libs.c), so neither is
 * needed to start either. */
TEST(cuda_binary_needs_no_libcuda)
{
    char out[16384];
    int st = gb_test_sh("ldd '" GB_TEST_EXE "' 2>&1", out, sizeof out);
    ASSERT_MSG(st == 0, "ldd failed (%d): %s", st, out);
    ASSERT_MSG(strstr(out, "libcuda.so") == NULL, "gpubench needs the driver at start:\n%s", out);
    ASSERT_MSG(strstr(out, "libcudart.so") == NULL, "the CUDA runtime is not static:\n%s", out);
    ASSERT_MSG(strstr(out, "not found") == NULL, "a library is missing:\n%s", out);
    ASSERT_MSG(strstr(out, "libnvrtc") == NULL, "NVRTC is linked:\n%s", out);
    ASSERT_MSG(strstr(out, "libcublas") == NULL, "cuBLAS is linked:\n%s", out);
    st = gb_test_sh("readelf -d '" GB_TEST_EXE "' 2>&1", out, sizeof out);
    ASSERT_MSG(st == 0, "readelf failed (%d): %s", st, out);
    ASSERT_MSG(strstr(out, "nvrtc") == NULL && strstr(out, "cublas") == NULL,
               "a CUDA library in the dynamic section:\n%s", out);
}

/* The row of `backend` in the backends' table of `gpubench devices`' text: whether it is
 * available ("yes", "no"), how many devices, the reason's first characters. 0, or -1 where out
 * has no such row. */
static int devices_row(const char *out, const char *backend, char avail[8], int *n, char reason[64])
{
    char key[32];
    snprintf(key, sizeof key, "\n%s ", backend);
    for (const char *row = strstr(out, key); row; row = strstr(row + 1, key)) {
        char fmt[64];
        reason[0] = '\0';
        snprintf(fmt, sizeof fmt, " %s %%7s %%d %%63[^\n]", backend);
        if (sscanf(row, fmt, avail, n, reason) >= 2 &&
            (strcmp(avail, "yes") == 0 || strcmp(avail, "no") == 0))
            return 0;
    }
    return -1;
}

/* `gpubench devices` here: CUDA listed as unavailable with the driver's reason, exit 0. */
TEST(cuda_devices_without_driver)
{
    if (gb_cuda_ops.init() == 0)
        SKIP("a CUDA driver is present here");
    char out[16384], avail[8], reason[64];
    int st = gb_test_sh("'" GB_TEST_EXE "' devices 2>&1", out, sizeof out), n = -1;
    ASSERT_MSG(st == 0, "gpubench devices exited %d:\n%s", st, out);
    ASSERT_MSG(devices_row(out, "cuda", avail, &n, reason) == 0, "no row for cuda: %s", out);
    ASSERT_STR(avail, "no");
    ASSERT_EQ(n, 0);
    ASSERT_MSG(strncmp(reason, "CUDA driver: ", 13) == 0, "reason: %s", reason);
}

/* ---- run-time libraries: NVRTC, its builtins and headers, cuBLAS (cuda_libs.c) --------------- */

/* The search order gb_cuda.h documents: the override alone, else the build's toolkit, pip's
 * wheels (CUDA 13 layout first), the loader. */
TEST(cuda_lib_search_order)
{
    const char *tmp = gb_test_tmpdir();
    char out[4096], root[1024], want[1200];
    snprintf(root, sizeof root, "%s/venv/lib/python3.99/site-packages", tmp);
    int st = gb_test_shf(out, sizeof out,
                         "mkdir -p '%s/nvidia/cu13/lib' '%s/nvidia/cuda_nvrtc/lib' && "
                         "touch '%s/nvidia/cu13/lib/libfake.so.1' "
                         "'%s/nvidia/cuda_nvrtc/lib/libfake.so.1' 2>&1",
                         root, root, root, root);
    ASSERT_MSG(st == 0, "%s", out);
    char venv[1024];
    snprintf(venv, sizeof venv, "%s/venv", tmp);
    setenv("VIRTUAL_ENV", venv, 1);
    unsetenv("GB_TEST_LIB");
    const char *pip[] = {"nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib", NULL};
    struct gb_cuda_candidate c[24];
    size_t n =
        gb_cuda_lib_candidates("libfake.so.1", "GB_TEST_LIB", "/opt/tk/lib64", pip, true, c, 24);
    ASSERT_U64(n, >=, 4);
    ASSERT_STR(c[0].path, "/opt/tk/lib64/libfake.so.1");
    ASSERT_CONTAINS(c[0].how, "toolkit lib folder of the build");
    snprintf(want, sizeof want, "%s/nvidia/cu13/lib/libfake.so.1", root);
    ASSERT_STR(c[1].path, want);
    ASSERT_CONTAINS(c[1].how, "pip");
    snprintf(want, sizeof want, "%s/nvidia/cuda_nvrtc/lib/libfake.so.1", root);
    ASSERT_STR(c[2].path, want);
    ASSERT_STR(c[n - 1].path, "libfake.so.1"); /* the bare soname: the loader's own search */
    ASSERT_CONTAINS(c[n - 1].how, "LD_LIBRARY_PATH");
    ASSERT_EQ(
        gb_cuda_lib_candidates("libfake.so.1", "GB_TEST_LIB", "/opt/tk/lib64", pip, true, c, 2), 2);
    ASSERT_EQ(gb_cuda_lib_candidates("libfake.so.1", NULL, NULL, pip, false, c, 24), 2);

    /* The override is the only place tried: a folder gets the file name, a file is as given. */
    setenv("GB_TEST_LIB", tmp, 1);
    ASSERT_EQ(
        gb_cuda_lib_candidates("libfake.so.1", "GB_TEST_LIB", "/opt/tk/lib64", pip, true, c, 24),
        1);
    snprintf(want, sizeof want, "%s/libfake.so.1", tmp);
    ASSERT_STR(c[0].path, want);
    ASSERT_STR(c[0].how, "$GB_TEST_LIB");
    setenv("GB_TEST_LIB", "/some/where/libother.so", 1);
    ASSERT_EQ(
        gb_cuda_lib_candidates("libfake.so.1", "GB_TEST_LIB", "/opt/tk/lib64", pip, true, c, 24),
        1);
    ASSERT_STR(c[0].path, "/some/where/libother.so");
}

/* gb_cuda_report() of this process, as text (malloc'd). Not inlined: GCC then takes the
 * memstream's pointer for a pointer to this frame (-Wdangling-pointer). */
__attribute__((noinline)) static char *report_text(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ASSERT(f != NULL);
    gb_cuda_report(f, gb_cuda_pick_arch, gb_cuda_compile);
    fclose(f);
    return text;
}

/* The NVRTC file this process loaded, and its builtins soname, from the report. */
static void nvrtc_loaded(char *path, size_t pcap, char *builtins, size_t bcap)
{
    char *r = report_text();
    const char *l = strstr(r, "cuda: NVRTC: ");
    ASSERT_MSG(l != NULL, "%s", r);
    int major = 0, minor = 0, used = 0;
    ASSERT_MSG(sscanf(l, "cuda: NVRTC: %d.%d: %n", &major, &minor, &used) == 2 && used > 0, "%s",
               l);
    const char *p = l + used, *end = strstr(p, " (found through");
    ASSERT(end != NULL);
    snprintf(path, pcap, "%.*s", (int)(end - p), p);
    snprintf(builtins, bcap, "libnvrtc-builtins.so.%d.%d", major, minor);
    free(r);
}

/* NVRTC absent: `devices` says why CUDA is unavailable, and OpenCL runs the quick profile (every
 * case; the measurement shortened, since the point is that it runs). */
TEST_TIMEOUT(cuda_nvrtc_out_of_reach_opencl_runs_quick, 600)
{
    static char out[1 << 16];
    const char *tmp = gb_test_tmpdir();
    int st = gb_test_shf(out, sizeof out,
                         "mkdir -p '%s/empty' && GPUBENCH_NVRTC='%s/empty' '" GB_TEST_EXE
                         "' devices 2>&1",
                         tmp, tmp);
    ASSERT_MSG(st == 0, "gpubench devices exited %d:\n%s", st, out);
    char avail[8], reason[64];
    int n = -1;
    ASSERT_MSG(devices_row(out, "cuda", avail, &n, reason) == 0, "no row for cuda: %s", out);
    ASSERT_STR(avail, "no");
    ASSERT_CONTAINS(out, "NVRTC (libnvrtc.so.13) not loaded");
    ASSERT_CONTAINS(out, "($GPUBENCH_NVRTC)");
    ASSERT_MSG(devices_row(out, "opencl", avail, &n, reason) == 0, "no row for opencl: %s", out);
    if (strcmp(avail, "no") == 0 || n == 0)
        SKIP("no OpenCL device here");
    st = gb_test_shf(out, sizeof out,
                     "GPUBENCH_NVRTC='%s/empty' '" GB_TEST_EXE "' run '" GB_TEST_SRCDIR
                     "/configs/quick.yaml' --backend opencl -q -o '%s/quick.json' "
                     /* Its suites but tenants and startup, whose helper processes start the
                      * backends afresh for seconds each and prove nothing more here. */
                     "--suite transfer,memory,launch,peer,batching,tuning,compute,gemm,fp16,"
                     "alloc,pool,serve "
                     "--set measure.max_time=20ms --set measure.min_samples=3 "
                     "--set measure.max_samples=5 --set measure.warmup_runs=1 2>&1",
                     tmp, tmp);
    ASSERT_MSG(st == 0, "the quick profile on OpenCL exited %d:\n%s", st, out);
    ASSERT_CONTAINS(out, " 0 failed");
}

/* The ELF interpreter of the gpubench binary (the dynamic loader), or "" when unknown. */
static void loader_of_exe(char *ld, size_t cap)
{
    char out[4096];
    ld[0] = '\0';
    if (gb_test_sh("readelf -l '" GB_TEST_EXE "' 2>/dev/null | "
                   "sed -n 's/.*interpreter: \\(.*\\)]$/\\1/p'",
                   out, sizeof out) == 0)
        snprintf(ld, cap, "%.*s", (int)strcspn(out, "\n"), out);
}

/* NVRTC dlopens its builtins library by soname, which the loader finds only through
 * LD_LIBRARY_PATH or its cache: with both out of the way (ld.so --inhibit-cache, an empty
 * LD_LIBRARY_PATH), gpubench still compiles, because it preloads the builtins from NVRTC's
 * folder; and an NVRTC folder without them gives a failure that carries NVRTC's log. */
TEST_TIMEOUT(cuda_nvrtc_builtins_found_without_loader_cache, 180)
{
    static char out[1 << 16];
    char ld[512], nvrtc[1024], builtins[128];
    loader_of_exe(ld, sizeof ld);
    if (!*ld)
        SKIP("no ELF interpreter found for gpubench");
    nvrtc_loaded(nvrtc, sizeof nvrtc, builtins, sizeof builtins);

    /* The control: without the cache, the loader cannot find the builtins by soname here. */
    gb_test_shf(out, sizeof out,
                "LD_LIBRARY_PATH= '%s' --inhibit-cache --preload %s /bin/true 2>&1", ld, builtins);
    if (strstr(out, "inhibit-cache") && !strstr(out, "cannot be preloaded"))
        SKIP("this loader has no --inhibit-cache: %s", out);
    if (!strstr(out, "cannot be preloaded"))
        SKIP("%s is in a system folder here: the loader finds it without help", builtins);

    int st =
        gb_test_shf(out, sizeof out,
                    "LD_LIBRARY_PATH= GPUBENCH_CUDA_REPORT=1 '%s' --inhibit-cache '" GB_TEST_EXE
                    "' devices 2>&1",
                    ld);
    ASSERT_MSG(st == 0, "gpubench devices under %s --inhibit-cache exited %d:\n%s", ld, st, out);
    ASSERT_CONTAINS(out, "preloaded from NVRTC's folder");
    ASSERT_CONTAINS(out, "cuda: NVRTC test compile: ok");
    ASSERT_CONTAINS(out, "cuda: NVRTC builtins in use: /");

    /* An NVRTC whose folder lacks the builtins: NVRTC's own search fails, and says so. */
    const char *tmp = gb_test_tmpdir();
    st = gb_test_shf(out, sizeof out,
                     "mkdir -p '%s/nv' && ln -s '%s' '%s/nv/libnvrtc.so.13' && "
                     "LD_LIBRARY_PATH= GPUBENCH_NVRTC='%s/nv' GPUBENCH_CUDA_REPORT=1 '%s' "
                     "--inhibit-cache '" GB_TEST_EXE "' devices 2>&1",
                     tmp, nvrtc, tmp, tmp, ld);
    ASSERT_MSG(st == 0, "gpubench devices exited %d:\n%s", st, out);
    ASSERT_CONTAINS(out, "not preloaded");
    ASSERT_CONTAINS(out, "cuda: NVRTC test compile: failed");
    ASSERT_CONTAINS(out, "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE");
    ASSERT_CONTAINS(out, "; log: ");
    ASSERT_CONTAINS(out, "failed to open libnvrtc-builtins"); /* NVRTC's own log */
    ASSERT_CONTAINS(out, "put its folder on LD_LIBRARY_PATH");
}

/* The bundle carries the four headers NVRTC includes, and they are enough: every kernel variant
 * compiles with only the bundle's include folder on NVRTC's path. */
TEST_TIMEOUT(cuda_nvrtc_kernels_bundle_headers_only, 400)
{
    static char out[1 << 16];
    const char *tmp = gb_test_tmpdir();
    char exe[1024];
    snprintf(exe, sizeof exe, "%s", GB_TEST_EXE);
    const char *build = dirname(exe);
    int st = gb_test_shf(out, sizeof out,
                         "'" GB_TEST_SRCDIR "/scripts/gpu-check.sh' --make-bundle '%s/b' "
                         "--from '%s' 2>&1 && ls '%s/b/include'",
                         tmp, build, tmp);
    ASSERT_MSG(st == 0, "gpu-check.sh --make-bundle exited %d:\n%s", st, out);
    const char *ls = strstr(out, "cuda_bf16.h\ncuda_bf16.hpp\ncuda_fp16.h\ncuda_fp16.hpp\n");
    ASSERT_MSG(ls && ls[strlen("cuda_bf16.h\ncuda_bf16.hpp\ncuda_fp16.h\ncuda_fp16.hpp\n")] == 0,
               "the bundle's include/ is not the four headers:\n%s", out);
    char inc[1200];
    snprintf(inc, sizeof inc, "%s/b/include", tmp);
    setenv("GPUBENCH_CUDA_INCLUDE", inc, 1);
    char *r = report_text();
    char want[1400];
    snprintf(want, sizeof want, "cuda: headers: %s ($GPUBENCH_CUDA_INCLUDE)", inc);
    ASSERT_CONTAINS(r, want);
    ASSERT_CONTAINS(r, "cuda: NVRTC test compile: ok");
    free(r);
    compile_all("sm_90");
}

/* Without the headers (an include folder that lacks them), a kernel that needs cuda_fp16.h is a
 * build failure whose message says what to set and carries NVRTC's log. */
TEST_TIMEOUT(cuda_nvrtc_headers_missing_is_a_clear_build_error, 120)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/noheaders", gb_test_tmpdir());
    ASSERT(mkdir(path, 0755) == 0);
    setenv("GPUBENCH_CUDA_INCLUDE", path, 1);
    char *src = NULL;
    ASSERT_OK(gb_kernel_source("fp16.cl", &src));
    const char *defs[] = {"STORE_HALF=1"};
    char *ptx = NULL, *log = NULL;
    ASSERT_EQ(gb_cuda_compile_ptx(src, "compute_90", defs, 1, &ptx, &log), GB_EBUILD);
    ASSERT(ptx == NULL);
    ASSERT(log != NULL);
    ASSERT_CONTAINS(log, "cuda_fp16.h");
    ASSERT_CONTAINS(gb_error_msg(), "set GPUBENCH_CUDA_INCLUDE");
    ASSERT_CONTAINS(gb_error_msg(), path);
    ASSERT_CONTAINS(gb_error_msg(), "; log: ");
    free(log);
    free(src);
}

/* ---- sticky errors --------------------------------------------------------------------------- */

TEST(cuda_sticky_error_classification)
{
    static const int sticky[] = {
        cudaErrorIllegalAddress,      cudaErrorLaunchTimeout,      cudaErrorAssert,
        cudaErrorHardwareStackError,  cudaErrorIllegalInstruction, cudaErrorMisalignedAddress,
        cudaErrorInvalidAddressSpace, cudaErrorInvalidPc,          cudaErrorLaunchFailure,
        cudaErrorTensorMemoryLeak,    cudaErrorContained,          cudaErrorMpsClientTerminated,
        cudaErrorExternalDevice};
    for (size_t i = 0; i < sizeof sticky / sizeof sticky[0]; i++)
        ASSERT_MSG(gb_cuda_error_is_sticky(sticky[i]), "%d", sticky[i]);
    /* Failures of one call that leave the context usable. */
    static const int not_sticky[] = {cudaSuccess,
                                     cudaErrorInvalidValue,
                                     cudaErrorMemoryAllocation,
                                     cudaErrorLaunchOutOfResources,
                                     cudaErrorInvalidConfiguration,
                                     cudaErrorNotReady,
                                     cudaErrorNoDevice,
                                     cudaErrorInsufficientDriver,
                                     cudaErrorPeerAccessAlreadyEnabled,
                                     cudaErrorSymbolNotFound,
                                     cudaErrorUnsupportedPtxVersion,
                                     cudaErrorNoKernelImageForDevice};
    for (size_t i = 0; i < sizeof not_sticky / sizeof not_sticky[0]; i++)
        ASSERT_MSG(!gb_cuda_error_is_sticky(not_sticky[i]), "%d", not_sticky[i]);
}

/* The first sticky error is kept as the device's reason, and every later use of the device
 * fails at once with it (no CUDA call is made, so this runs without a driver). */
TEST(cuda_lost_device_fails_every_use_with_the_first_error)
{
    enum { IDX = 5 };
    ASSERT(gb_cuda_lost_reason(IDX) == NULL);
    ASSERT(!gb_cuda_note_error(IDX, cudaErrorMemoryAllocation, "cudaMalloc: out of memory"));
    ASSERT(gb_cuda_lost_reason(IDX) == NULL);
    ASSERT(gb_cuda_note_error(IDX, cudaErrorIllegalAddress,
                              "cuda.c:1: cudaStreamSynchronize: cudaErrorIllegalAddress (700)"));
    ASSERT(gb_cuda_note_error(IDX, cudaErrorLaunchFailure, "a later one"));
    ASSERT(gb_cuda_note_error(IDX, cudaErrorInvalidValue, "a later one"));
    ASSERT_STR(gb_cuda_lost_reason(IDX),
               "cuda.c:1: cudaStreamSynchronize: cudaErrorIllegalAddress (700)");
    ASSERT(gb_cuda_lost_reason(IDX - 1) == NULL);
    ASSERT(!gb_cuda_note_error(-1, cudaErrorIllegalAddress, "no device"));
    ASSERT(!gb_cuda_note_error(64, cudaErrorIllegalAddress, "out of range"));

    struct gb_device dev = {.ops = &gb_cuda_ops, .index = IDX};
    dev.info.max_alloc = UINT64_C(1) << 30;
    struct gb_buf *b = NULL;
    ASSERT_EQ(gb_cuda_ops.buf_alloc(&dev, 4096, GB_MEM_DEVICE, &b), GB_EBACKEND);
    ASSERT_CONTAINS(gb_error_msg(), "CUDA device 5 was lost to an earlier sticky error");
    ASSERT_CONTAINS(gb_error_msg(), "cudaStreamSynchronize: cudaErrorIllegalAddress (700)");
    ASSERT_EQ(gb_cuda_ops.buf_alloc(&dev, 4096, GB_MEM_HOST_PINNED, &b), GB_EBACKEND);
    struct gb_event *ev = NULL;
    ASSERT_EQ(gb_cuda_ops.event_create(&dev, &ev), GB_EBACKEND);
    /* A queue on the lost device is a dead one: created, and failing every use with the reason
     * (so the runner records each later case with it, not "queue lost"). */
    struct gb_queue *q = NULL;
    ASSERT_OK(gb_cuda_ops.queue_create(&dev, &q));
    ASSERT(q != NULL);
    ASSERT_EQ(gb_cuda_ops.queue_sync(q), GB_EBACKEND);
    ASSERT_CONTAINS(gb_error_msg(), "cudaErrorIllegalAddress (700)");
    ASSERT_EQ(gb_cuda_ops.queue_flush(q), GB_EBACKEND);
    gb_cuda_ops.queue_destroy(q);
}

/* The free-memory query (mem_info, what memtest sizes its region by) is the CUDA vtable's: it
 * calls cudaMemGetInfo of the statically linked runtime (no dlopen table holds the runtime's
 * entry points: the binary carries them) on the device made current, and on a lost device fails
 * with its first sticky error before any CUDA call, so this runs without a driver. */
TEST(cuda_mem_info_is_set_and_names_cudaMemGetInfo)
{
    ASSERT(gb_cuda_ops.mem_info != NULL);
    enum { IDX = 6 };
    ASSERT(gb_cuda_note_error(IDX, cudaErrorIllegalAddress, "cudaMemcpy: cudaErrorIllegalAddress"));
    struct gb_device dev = {.ops = &gb_cuda_ops, .index = IDX};
    uint64_t free_b = 1, total_b = 1;
    const char *src = NULL;
    ASSERT_EQ(gb_cuda_ops.mem_info(&dev, &free_b, &total_b, &src), GB_EBACKEND);
    ASSERT_CONTAINS(gb_error_msg(), "CUDA device 6 was lost to an earlier sticky error");
    ASSERT_EQ(free_b, 0);
    ASSERT_EQ(total_b, 0);
    ASSERT_STR(src, "cudaMemGetInfo");
    /* The runtime's entry point is in the binary (a local symbol of the static runtime). */
    char out[4096];
    int st = gb_test_sh("nm '" GB_TEST_EXE "' 2>&1 | grep -cw cudaMemGetInfo", out, sizeof out);
    ASSERT_MSG(st == 0 && atoi(out) >= 1, "no cudaMemGetInfo in the binary (%d): %s", st, out);
}

/* The CUDA backend's load report (`gpubench devices` with GPUBENCH_CUDA_REPORT=1: its stderr)
 * into out[cap], with env (variable assignments; "" for none) set for it; fails the test unless
 * it exits 0. */
static void cuda_report(char *out, size_t cap, const char *env)
{
    int st = gb_test_shf(
        out, cap, "%s GPUBENCH_CUDA_REPORT=1 '" GB_TEST_EXE "' devices 2>&1 >/dev/null", env);
    ASSERT_MSG(st == 0, "gpubench devices exited %d:\n%s", st, out);
}

/* ---- cuBLASLt (FP8 GEMM): loaded at run time, every entry point through dlsym ---------------- */

#if HAVE_CUBLASLT
#define GB__XSTR(x) #x
#define GB__STR(x) GB__XSTR(x)
/* The toolkit's libcublasLt loads and every entry point the FP8 GEMM uses resolves (the report
 * prints its version only then); a $GPUBENCH_CUBLASLT that holds no library says where it looked
 * and the loader's error, for both sonames, which is the FP8 cases' skip reason. */
TEST_TIMEOUT(cuda_cublaslt_loads_by_dlopen_or_says_why, 120)
{
    static char out[1 << 16];
    if (access(GB_CUDA_LIBDIR "/libcublasLt.so." GB__STR(CUBLAS_VER_MAJOR), R_OK) != 0)
        SKIP("no libcublasLt in %s", GB_CUDA_LIBDIR);
    cuda_report(out, sizeof out, "");
    ASSERT_CONTAINS(out, "cuda: cuBLASLt: " GB__STR(CUBLAS_VER_MAJOR) ".");
    ASSERT_CONTAINS(out, "libcublasLt.so." GB__STR(CUBLAS_VER_MAJOR) " (found through");
    ASSERT(!strstr(out, "no symbol"));

    cuda_report(out, sizeof out, "GPUBENCH_CUBLASLT=/nonexistent/lt");
    const char *want = "cuda: cuBLASLt: missing: cuBLASLt (libcublasLt.so." GB__STR(
        CUBLAS_VER_MAJOR) ") not loaded: /nonexistent/lt ($GPUBENCH_CUBLASLT): cannot open";
    ASSERT_CONTAINS(out, want);
    ASSERT_CONTAINS(out, "cuBLASLt (libcublasLt.so.12) not loaded");
    ASSERT_CONTAINS(out, "(FP8 GEMM cases are skipped)");
}
#endif

#if HAVE_CUDNN
/* cuDNN (library convolution) is dlopened, every entry point the conv path calls resolved by
 * dlsym (none missing in the toolkit's libcudnn.so.9), and an unloadable one is named with the
 * places tried. */
TEST_TIMEOUT(cuda_cudnn_loads_by_dlopen_or_says_why, 120)
{
    static char out[1 << 16];
    if (access(GB_CUDA_LIBDIR "/libcudnn.so.9", R_OK) != 0)
        SKIP("no libcudnn.so.9 in %s", GB_CUDA_LIBDIR);
    cuda_report(out, sizeof out, "");
    ASSERT_CONTAINS(out, "cuda: cuDNN: 9.");
    ASSERT_CONTAINS(out, "libcudnn.so.9 (found through");
    ASSERT(!strstr(out, "no symbol"));
    cuda_report(out, sizeof out, "GPUBENCH_CUDNN=/nonexistent/dnn");
    ASSERT_CONTAINS(out, "cuda: cuDNN: missing: cuDNN (libcudnn.so.9) not loaded: /nonexistent/dnn "
                         "($GPUBENCH_CUDNN): cannot open");
    ASSERT_CONTAINS(out, "(library convolution cases are skipped)");
}
#endif

/* ---- NCCL (collectives) ---------------------------------------------------------------------- */

/* The toolkit's libnccl loads by dlopen and every entry point the comm_* members call resolves
 * (the report prints NCCL's version only then); this process loads it too, through the
 * comm_unique_id member, which then refuses a short id (a check made after the load). */
TEST_TIMEOUT(cuda_nccl_loads_by_dlopen_every_entry_point, 120)
{
    static char out[1 << 16];
    if (access(GB_CUDA_LIBDIR "/libnccl.so.2", R_OK) != 0)
        SKIP("no libnccl.so.2 in %s", GB_CUDA_LIBDIR);
    unsetenv("GPUBENCH_NCCL");
    cuda_report(out, sizeof out, "");
    ASSERT_CONTAINS(out, "cuda: NCCL: 2.");
    ASSERT_CONTAINS(out, "libnccl.so.2 (found through");
    ASSERT(!strstr(out, "no symbol"));
    ASSERT(gb_cuda_ops.comm_init && gb_cuda_ops.comm_unique_id && gb_cuda_ops.comm_init_rank &&
           gb_cuda_ops.comm_run && gb_cuda_ops.comm_free);
    char id[GB_CUDA_NCCL_ID_BYTES];
    size_t len = 16;
    ASSERT_EQ(gb_cuda_ops.comm_unique_id(id, &len), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "the id needs 128 bytes, 16 given");
    void *h = dlopen("libnccl.so.2", RTLD_LAZY | RTLD_NOLOAD);
    ASSERT_MSG(h != NULL, "comm_unique_id did not load NCCL");
    dlclose(h);
}

/* With the library out of reach ($GPUBENCH_NCCL, the only place tried when set, an empty
 * folder), every comm_* member that opens a communicator is GB_EUNSUPPORTED, the case's skip,
 * and its reason names both file names and where each was looked for; the report says so. */
TEST_TIMEOUT(cuda_nccl_missing_is_unsupported_naming_what_was_tried, 120)
{
    static char out[1 << 16];
    const char *dir = gb_test_tmpdir();
    setenv("GPUBENCH_NCCL", dir, 1);
    /* Never looked at: the library is loaded, and fails, before any device is touched. */
    struct gb_device fake = {.ops = &gb_cuda_ops};
    struct gb_device *devs[1] = {&fake};
    struct gb_queue *queues[1] = {NULL};
    struct gb_comm *c = (struct gb_comm *)&fake;
    char want2[1200], want[1200];
    snprintf(want2, sizeof want2,
             "NCCL (libnccl.so.2) not loaded: %s/libnccl.so.2 ($GPUBENCH_NCCL): cannot open", dir);
    snprintf(want, sizeof want,
             "; NCCL (libnccl.so) not loaded: %s/libnccl.so ($GPUBENCH_NCCL): cannot open", dir);
    ASSERT_EQ(gb_cuda_ops.comm_init(devs, queues, 1, &c), GB_EUNSUPPORTED);
    ASSERT(c == NULL);
    ASSERT_CONTAINS(gb_error_msg(), want2);
    ASSERT_CONTAINS(gb_error_msg(), want);
    char id[GB_CUDA_NCCL_ID_BYTES];
    size_t len = sizeof id;
    ASSERT_EQ(gb_cuda_ops.comm_unique_id(id, &len), GB_EUNSUPPORTED);
    ASSERT_CONTAINS(gb_error_msg(), want);
    ASSERT_EQ(gb_cuda_ops.comm_init_rank(&fake, NULL, 2, 0, id, len, &c), GB_EUNSUPPORTED);
    ASSERT_CONTAINS(gb_error_msg(), want2);
    gb_cuda_ops.comm_free(NULL);

    char env[1200];
    snprintf(env, sizeof env, "GPUBENCH_NCCL='%s'", dir);
    cuda_report(out, sizeof out, env);
    ASSERT_CONTAINS(out, "cuda: NCCL: missing: NCCL (libnccl.so.2) not loaded: ");
    ASSERT_CONTAINS(out, want);
    ASSERT_CONTAINS(out, "(NCCL collective cases are skipped)");
    unsetenv("GPUBENCH_NCCL");
}

/* The values gb_cuda.h declares instead of including nccl.h are nccl.h's, where the header is
 * (the toolkit's include folder here; NCCL's own install elsewhere). */
#if defined(__has_include)
#if __has_include(<nccl.h>)
#include <nccl.h>
#define GB_TEST_HAVE_NCCL_H 1
#endif
#endif
TEST(cuda_nccl_declared_values_match_nccl_h)
{
#ifdef GB_TEST_HAVE_NCCL_H
    ASSERT_EQ(sizeof(ncclUniqueId), GB_CUDA_NCCL_ID_BYTES);
    ASSERT_EQ(NCCL_UNIQUE_ID_BYTES, GB_CUDA_NCCL_ID_BYTES);
    ASSERT_EQ(sizeof(ncclResult_t), sizeof(int));
    ASSERT_EQ(sizeof(ncclDataType_t), sizeof(int));
    ASSERT_EQ(sizeof(ncclRedOp_t), sizeof(int));
    ASSERT_EQ(sizeof(ncclComm_t), sizeof(void *));
    ASSERT_EQ(ncclSuccess, GB_CUDA_NCCL_SUCCESS);
    ASSERT_EQ(ncclInt32, GB_CUDA_NCCL_INT32);
    ASSERT_EQ(ncclFloat16, GB_CUDA_NCCL_FLOAT16);
    ASSERT_EQ(ncclFloat32, GB_CUDA_NCCL_FLOAT32);
    ASSERT_EQ(ncclBfloat16, GB_CUDA_NCCL_BFLOAT16);
    ASSERT_EQ(ncclSum, GB_CUDA_NCCL_SUM);
    ASSERT_EQ(ncclMax, GB_CUDA_NCCL_MAX);
    ASSERT_EQ(NCCL_VERSION(2, 10, 0), GB_CUDA_NCCL_BF16_SINCE);
    char v[32], want[32];
    gb_cuda_nccl_version_text(NCCL_VERSION_CODE, v, sizeof v);
    snprintf(want, sizeof want, "%d.%d.%d", NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
    ASSERT_STR(v, want);
#else
    SKIP("no nccl.h on the include path: nothing to compare with");
#endif
}

/* gb_dtype and gb_coll_redop to NCCL's values; bf16 only from NCCL 2.10; version codes of both
 * of NCCL's forms read back. */
TEST(cuda_nccl_type_and_reduction_map)
{
    int v = -1;
    ASSERT_OK(gb_cuda_nccl_dtype(GB_F32, 22809, &v));
    ASSERT_EQ(v, GB_CUDA_NCCL_FLOAT32);
    ASSERT_OK(gb_cuda_nccl_dtype(GB_F16, 22809, &v));
    ASSERT_EQ(v, GB_CUDA_NCCL_FLOAT16);
    ASSERT_OK(gb_cuda_nccl_dtype(GB_I32, 2804, &v));
    ASSERT_EQ(v, GB_CUDA_NCCL_INT32);
    ASSERT_OK(gb_cuda_nccl_dtype(GB_BF16, 21000, &v));
    ASSERT_EQ(v, GB_CUDA_NCCL_BFLOAT16);
    ASSERT_EQ(gb_cuda_nccl_dtype(GB_BF16, 2804, &v), GB_EUNSUPPORTED);
    ASSERT_CONTAINS(gb_error_msg(), "NCCL 2.8.4 has no bf16");
    ASSERT_EQ(gb_cuda_nccl_dtype(GB_F64, 22809, &v), GB_EUNSUPPORTED);
    ASSERT_CONTAINS(gb_error_msg(), "not f64");
    ASSERT_EQ(gb_cuda_nccl_dtype(GB_I8, 22809, &v), GB_EUNSUPPORTED);
    ASSERT_OK(gb_cuda_nccl_redop(GB_COLL_SUM, &v));
    ASSERT_EQ(v, GB_CUDA_NCCL_SUM);
    ASSERT_OK(gb_cuda_nccl_redop(GB_COLL_MAX, &v));
    ASSERT_EQ(v, GB_CUDA_NCCL_MAX);
    char t[32];
    gb_cuda_nccl_version_text(22809, t, sizeof t);
    ASSERT_STR(t, "2.28.9");
    gb_cuda_nccl_version_text(21003, t, sizeof t);
    ASSERT_STR(t, "2.10.3");
    gb_cuda_nccl_version_text(2804, t, sizeof t);
    ASSERT_STR(t, "2.8.4");
}

/* nccl-tests' count on 4 ranks (count 1024 elements, rank 2), out of place and in place: what
 * each NCCL call gets and which elements of each buffer it touches. */
TEST(cuda_nccl_count_and_in_place_layout)
{
    struct gb_coll c = {.dtype = GB_F32, .count = 1024, .root = 1};
    struct gb_cuda_coll_span sp;
    static const struct {
        enum gb_coll_op op;
        bool in_place;
        uint64_t count, send_off, send_len, recv_off, recv_len;
    } want[] = {
        {GB_COLL_ALLREDUCE, false, 1024, 0, 1024, 0, 1024},
        {GB_COLL_ALLREDUCE, true, 1024, 0, 1024, 0, 1024},
        {GB_COLL_ALLGATHER, false, 256, 0, 256, 0, 1024},
        {GB_COLL_ALLGATHER, true, 256, 512, 256, 0, 1024},
        {GB_COLL_REDUCESCATTER, false, 256, 0, 1024, 0, 256},
        {GB_COLL_REDUCESCATTER, true, 256, 0, 1024, 512, 256},
        {GB_COLL_BROADCAST, false, 1024, 0, 1024, 0, 1024},
        {GB_COLL_BROADCAST, true, 1024, 0, 1024, 0, 1024},
        {GB_COLL_REDUCE, false, 1024, 0, 1024, 0, 1024},
        {GB_COLL_REDUCE, true, 1024, 0, 1024, 0, 1024},
        {GB_COLL_ALLTOALL, false, 256, 0, 1024, 0, 1024},
        {GB_COLL_SENDRECV, false, 1024, 0, 1024, 0, 1024},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        c.op = want[i].op;
        ASSERT_OK(gb_cuda_coll_span(&c, 4, 2, want[i].in_place, &sp));
        ASSERT_MSG(sp.count == want[i].count && sp.send_off == want[i].send_off &&
                       sp.send_len == want[i].send_len && sp.recv_off == want[i].recv_off &&
                       sp.recv_len == want[i].recv_len,
                   "row %zu: count %llu send %llu+%llu recv %llu+%llu", i,
                   (unsigned long long)sp.count, (unsigned long long)sp.send_off,
                   (unsigned long long)sp.send_len, (unsigned long long)sp.recv_off,
                   (unsigned long long)sp.recv_len);
    }
    /* One rank: the whole count is its share; in place at offset 0. */
    c.op = GB_COLL_ALLGATHER;
    ASSERT_OK(gb_cuda_coll_span(&c, 1, 0, true, &sp));
    ASSERT_U64(sp.count, ==, 1024);
    ASSERT_U64(sp.send_off, ==, 0);
    /* In-place exchanges, counts the ranks do not divide, roots and ranks out of range. */
    c.op = GB_COLL_ALLTOALL;
    ASSERT_EQ(gb_cuda_coll_span(&c, 4, 2, true, &sp), GB_EUNSUPPORTED);
    ASSERT_CONTAINS(gb_error_msg(), "all-to-all in place");
    c.op = GB_COLL_SENDRECV;
    ASSERT_EQ(gb_cuda_coll_span(&c, 4, 2, true, &sp), GB_EUNSUPPORTED);
    c.op = GB_COLL_REDUCESCATTER;
    c.count = 1022;
    ASSERT_EQ(gb_cuda_coll_span(&c, 4, 0, false, &sp), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "count 1022 is not a multiple of the 4 ranks");
    c.op = GB_COLL_ALLREDUCE; /* all-reduce does not divide: any count */
    ASSERT_OK(gb_cuda_coll_span(&c, 4, 0, false, &sp));
    c.count = 0;
    ASSERT_EQ(gb_cuda_coll_span(&c, 4, 0, false, &sp), GB_EINVAL);
    c.count = 1024;
    c.op = GB_COLL_BROADCAST;
    c.root = 4;
    ASSERT_EQ(gb_cuda_coll_span(&c, 4, 0, false, &sp), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "root 4 outside the 4 ranks");
    c.root = 0;
    ASSERT_EQ(gb_cuda_coll_span(&c, 4, 4, false, &sp), GB_EINVAL);
    ASSERT_EQ(gb_cuda_coll_span(&c, 0, 0, false, &sp), GB_EINVAL);
}

/* A file that loads but is not the library (the C library, on every machine): the loader names
 * the first entry point it lacks and the file it looked in, for every library, and without
 * NVRTC's entry points CUDA is unavailable. */
TEST_TIMEOUT(cuda_libs_name_the_missing_entry_point, 120)
{
    static char out[1 << 16];
    int st = gb_test_shf(out, sizeof out,
                         "GPUBENCH_NVRTC=libc.so.6 GPUBENCH_CUBLAS=libc.so.6 "
                         "GPUBENCH_CUBLASLT=libc.so.6 GPUBENCH_CUDNN=libc.so.6 "
                         "GPUBENCH_CUSPARSE=libc.so.6 GPUBENCH_NCCL=libc.so.6 "
                         "GPUBENCH_CUDA_REPORT=1 '" GB_TEST_EXE "' devices 2>&1");
    ASSERT_MSG(st == 0, "gpubench devices exited %d:\n%s", st, out);
    ASSERT_CONTAINS(out, "cuda: NVRTC: missing: NVRTC: no symbol nvrtcVersion in /");
    ASSERT_CONTAINS(out, "libc.so.6\n");
#if HAVE_CUBLAS
    ASSERT_CONTAINS(out, "cuda: cuBLAS: missing: cuBLAS: no symbol cublasCreate_v2 in /");
#endif
#if HAVE_CUBLASLT
    ASSERT_CONTAINS(out, "cuda: cuBLASLt: missing: cuBLASLt: no symbol cublasLtCreate in /");
#endif
#if HAVE_CUDNN
    ASSERT_CONTAINS(out, "cuda: cuDNN: missing: cuDNN: no symbol cudnnGetVersion in /");
#endif
#if HAVE_CUSPARSE
    ASSERT_CONTAINS(out, "cuda: cuSPARSE: missing: cuSPARSE: no symbol cusparseGetProperty in /");
#endif
    ASSERT_CONTAINS(out, "cuda: NCCL: missing: NCCL: no symbol ncclGetVersion in /");
    char avail[8], reason[64];
    int n = -1;
    ASSERT_MSG(devices_row(out, "cuda", avail, &n, reason) == 0, "no row for cuda: %s", out);
    ASSERT_STR(avail, "no");
}

/* ---- capability bits, cuBLAS statuses, the stream cache -------------------------------------- */

TEST(cuda_capability_bits)
{
    const uint64_t blas = GB_CAP_BLAS_F32 | GB_CAP_BLAS_F64 | GB_CAP_BLAS_F16 | GB_CAP_BLAS_MIXED |
                          GB_CAP_BLAS_BF16 | GB_CAP_BLAS_TF32;
    /* An H200 (9.0) with cuBLAS found: every bit but UNIFIED and PEER; GRAPH on every device
     * (stream capture). */
    uint64_t c = gb_cuda_caps(9, 0, false, false, true);
    ASSERT_EQ(c, GB_CAP_FP64 | GB_CAP_GRAPH | GB_CAP_FP16 | GB_CAP_BF16 | GB_CAP_INT8_DOT | blas |
                     GB_CAP_BLAS_FP8);
    /* No cuBLAS: no BLAS bit but FP8's, which says the tensor cores only (cuBLASLt loads at
     * the first FP8 GEMM, and its absence is that case's skip). */
    ASSERT_EQ(gb_cuda_caps(9, 0, false, false, false), GB_CAP_FP64 | GB_CAP_GRAPH | GB_CAP_FP16 |
                                                           GB_CAP_BF16 | GB_CAP_INT8_DOT |
                                                           GB_CAP_BLAS_FP8);
    /* FP8 tensor cores from 8.9 (Ada), not on 8.6 / 8.7 (Ampere). */
    ASSERT(!(gb_cuda_caps(8, 7, false, false, true) & GB_CAP_BLAS_FP8));
    ASSERT(gb_cuda_caps(8, 9, false, false, true) & GB_CAP_BLAS_FP8);
    ASSERT(gb_cuda_caps(10, 0, false, false, true) & GB_CAP_BLAS_FP8);
    /* Turing (7.5): no BF16, no BF16/TF32 GEMM. */
    ASSERT_EQ(gb_cuda_caps(7, 5, false, false, true),
              GB_CAP_FP64 | GB_CAP_GRAPH | GB_CAP_FP16 | GB_CAP_INT8_DOT | GB_CAP_BLAS_F32 |
                  GB_CAP_BLAS_F64 | GB_CAP_BLAS_F16 | GB_CAP_BLAS_MIXED);
    /* The thresholds: FP16 from 5.3, dp4a from 6.1, BF16 from 8.0. */
    ASSERT(!(gb_cuda_caps(5, 2, false, false, false) & GB_CAP_FP16));
    ASSERT(gb_cuda_caps(5, 3, false, false, false) & GB_CAP_FP16);
    ASSERT(!(gb_cuda_caps(6, 0, false, false, false) & GB_CAP_INT8_DOT));
    ASSERT(gb_cuda_caps(6, 1, false, false, false) & GB_CAP_INT8_DOT);
    ASSERT(!(gb_cuda_caps(7, 5, false, false, false) & GB_CAP_BF16));
    ASSERT(gb_cuda_caps(8, 0, false, false, false) & GB_CAP_BF16);
    /* Integrated: UNIFIED; a reachable peer: PEER. */
    ASSERT(gb_cuda_caps(8, 7, true, false, false) & GB_CAP_UNIFIED);
    ASSERT(gb_cuda_caps(9, 0, false, true, false) & GB_CAP_PEER);
    ASSERT(gb_cuda_caps(5, 0, false, false, false) & GB_CAP_GRAPH);
}

#if HAVE_CUBLAS
/* cuBLAS's "cannot do that here" statuses are GB_EUNSUPPORTED (the suites record a skip), the
 * rest GB_EBACKEND (a failure). */
TEST(cuda_blas_status_skip_or_failure)
{
    ASSERT_EQ(gb_cuda_blas_status_err(CUBLAS_STATUS_SUCCESS), 0);
    ASSERT_EQ(gb_cuda_blas_status_err(CUBLAS_STATUS_NOT_SUPPORTED), GB_EUNSUPPORTED);
    ASSERT_EQ(gb_cuda_blas_status_err(CUBLAS_STATUS_ARCH_MISMATCH), GB_EUNSUPPORTED);
    ASSERT_EQ(gb_cuda_blas_status_err(CUBLAS_STATUS_EXECUTION_FAILED), GB_EBACKEND);
    ASSERT_EQ(gb_cuda_blas_status_err(CUBLAS_STATUS_INVALID_VALUE), GB_EBACKEND);
    ASSERT_EQ(gb_cuda_blas_status_err(CUBLAS_STATUS_ALLOC_FAILED), GB_EBACKEND);
    ASSERT_EQ(gb_cuda_blas_status_err(CUBLAS_STATUS_INTERNAL_ERROR), GB_EBACKEND);
}
#endif

/* cublasSetStream only when the stream changes: a loop of GEMMs on one queue sets it once. */
TEST(cuda_blas_stream_cache)
{
    struct gb_cuda_stream_cache c = {0};
    int q1 = 0, q2 = 0; /* two distinct addresses stand for two cudaStream_t */
    ASSERT(gb_cuda_stream_cache_needs(&c, &q1));  /* nothing given yet */
    ASSERT(gb_cuda_stream_cache_needs(&c, NULL)); /* not even the default stream */
    gb_cuda_stream_cache_told(&c, &q1);
    size_t sets = 1;
    for (int i = 0; i < 64; i++) /* the batching suite's loop: 64 GEMMs on one queue */
        sets += gb_cuda_stream_cache_needs(&c, &q1);
    ASSERT_EQ(sets, 1);
    ASSERT(gb_cuda_stream_cache_needs(&c, &q2)); /* another queue */
    gb_cuda_stream_cache_told(&c, &q2);
    ASSERT(!gb_cuda_stream_cache_needs(&c, &q2));
    ASSERT(gb_cuda_stream_cache_needs(&c, &q1));
    /* Before a stream is destroyed: only the one held needs replacing. */
    ASSERT(gb_cuda_stream_cache_holds(&c, &q2));
    ASSERT(!gb_cuda_stream_cache_holds(&c, &q1));
    gb_cuda_stream_cache_told(&c, NULL);
    ASSERT(!gb_cuda_stream_cache_holds(&c, &q2));
    ASSERT(gb_cuda_stream_cache_needs(&c, &q2));
    ASSERT(!gb_cuda_stream_cache_needs(&c, NULL));
}

/* `devices` does not load cuBLAS (about 600 MB with cublasLt), NVRTC is loaded by the backend's
 * init, and neither is linked. */
TEST(cuda_blas_not_loaded_by_init)
{
    (void)gb_cuda_ops.init(); /* fails without a driver: what is loaded is what matters */
    void *nv = dlopen("libnvrtc.so.13", RTLD_LAZY | RTLD_NOLOAD);
    ASSERT_MSG(nv != NULL, "init did not load NVRTC");
    dlclose(nv);
    ASSERT_MSG(dlopen("libcublas.so.13", RTLD_LAZY | RTLD_NOLOAD) == NULL, "init loaded cuBLAS");
    ASSERT_MSG(dlopen("libcublasLt.so.13", RTLD_LAZY | RTLD_NOLOAD) == NULL,
               "init loaded cublasLt");
    ASSERT_MSG(dlopen("libnccl.so.2", RTLD_LAZY | RTLD_NOLOAD) == NULL, "init loaded NCCL");
}

/* ---- scripts/gpu-check.sh -------------------------------------------------------------------- */

TEST(gpu_check_dry_run)
{
    static char out[1 << 16];
    int st = gb_test_sh("'" GB_TEST_SRCDIR "/scripts/gpu-check.sh' --dry-run --exe '" GB_TEST_EXE
                        "' -o /nonexistent/out 2>&1",
                        out, sizeof out);
    ASSERT_MSG(st == 0, "--dry-run exited %d:\n%s", st, out);
    static const char *const steps[] = {
        "version",   "chain", "json",     "state",   "smoke", "peers", "chip",   "memcheck",
        "racecheck", "nccl",  "ncclpeer", "serving", "diag",  "cuda",  "opencl", "summary"};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "\n  %-8s ", steps[i]);
        ASSERT_MSG(strstr(out, want), "no step %s in the plan:\n%s", steps[i], out);
    }
    ASSERT_CONTAINS(out, "timeout -k 5 BUDGET");
    ASSERT_CONTAINS(out, "at most 485 s in all"); /* the documented 485 s */
    ASSERT_CONTAINS(out, "--tool memcheck --target-processes all");
    ASSERT_CONTAINS(out, "configs/kernel-check.yaml --backend cuda");
    ASSERT_CONTAINS(out, "scripts/gpu-peers.py --results ");
    ASSERT_CONTAINS(out, "(peers here: ");
    ASSERT_CONTAINS(out, "chip.yaml --backend cuda -o");
    ASSERT_CONTAINS(out, "nccl.yaml --backend cuda -o /nonexistent/out/nccl-cuda.json");
    ASSERT_CONTAINS(out, "scripts/gpu-nccl-peer.py --results /nonexistent/out/nccl-cuda.json");
    ASSERT_CONTAINS(out, "GPUBENCH_CUDA_REPORT=1");
    ASSERT_CONTAINS(out, "--backend cuda");
    ASSERT_CONTAINS(out, "nothing was run");
    ASSERT(access("/nonexistent/out", F_OK) != 0);

    /* --smoke plans parts 1 and 2 only; a budget can be changed; a bad one is a usage error. */
    st = gb_test_sh("'" GB_TEST_SRCDIR "/scripts/gpu-check.sh' --dry-run --smoke --budget "
                    "smoke=33 --exe '" GB_TEST_EXE "' 2>&1",
                    out, sizeof out);
    ASSERT_MSG(st == 0, "--dry-run --smoke exited %d:\n%s", st, out);
    ASSERT_CONTAINS(out, "\n  smoke      33 s ");
    ASSERT(strstr(out, "\n  opencl ") == NULL);
    ASSERT(strstr(out, "\n  summary ") == NULL);
    ASSERT(strstr(out, "\n  chip ") == NULL);
    ASSERT(strstr(out, "\n  memcheck ") == NULL);
    ASSERT(strstr(out, "\n  peers ") == NULL);
    ASSERT(strstr(out, "\n  nccl ") == NULL);
    st = gb_test_sh("'" GB_TEST_SRCDIR "/scripts/gpu-check.sh' --dry-run --budget nosuch=3 2>&1",
                    out, sizeof out);
    ASSERT_EQ(st, 2);
    ASSERT_CONTAINS(out, "no step 'nosuch'");
}

/* scripts/gpu-nccl-peer.py, the NCCL step's peers: gpubench's algbw (transport nccl, out of
 * place, f32 sum, at the size asked) beside nccl-tests' (here a stand-in printing one data row
 * as nccl-tests does) with the ratio; an absent binary and a missing results file are lines
 * that say why, exit 0; a bad size is a usage error. */
TEST_TIMEOUT(gpu_nccl_peer_table_and_skips, 60)
{
    static char out[1 << 15];
    const char *tmp = gb_test_tmpdir();
    char f[1200];
    snprintf(f, sizeof f, "%s/r.json", tmp);
    gb_test_write_file(
        f,
        "{\"results\": ["
        "{\"suite\": \"collective\", \"case\": \"allreduce\", \"status\": \"ok\", \"value\": "
        "123.4, \"params\": {\"transport\": \"nccl\", \"size\": 67108864, \"inplace\": false}},"
        "{\"suite\": \"collective\", \"case\": \"allreduce\", \"status\": \"ok\", \"value\": 9, "
        "\"params\": {\"transport\": \"devices\", \"size\": 67108864}},"
        "{\"suite\": \"collective\", \"case\": \"allgather\", \"status\": \"ok\", \"value\": 99, "
        "\"params\": {\"transport\": \"nccl\", \"size\": 67108864, \"inplace\": true}}]}");
    snprintf(f, sizeof f, "%s/all_reduce_perf", tmp);
    gb_test_write_file(f,
                       "#!/bin/sh\n"
                       "echo '#  size  count  type redop root  time  algbw  busbw #wrong'\n"
                       "echo '  67108864 16777216 float sum -1 300.1 200.0 0.00 0 290 231 0 0'\n");
    ASSERT(chmod(f, 0755) == 0);
    int st = gb_test_shf(out, sizeof out,
                         "python3 '" GB_TEST_SRCDIR "/scripts/gpu-nccl-peer.py' --results "
                         "'%s/r.json' --nccl-tests '%s' --only nccl-tests --md '%s/t.md' 2>&1",
                         tmp, tmp, tmp);
    ASSERT_MSG(st == 0, "gpu-nccl-peer.py exited %d:\n%s", st, out);
    ASSERT_CONTAINS(out, "| allreduce | 123.4 | 200 | 0.617 |");
    ASSERT_CONTAINS(out, "| allgather | - | - | - |"); /* in place: not compared */
    ASSERT_CONTAINS(out, "nccl-tests allgather: no all_gather_perf in");
    char *md = gb_test_slurp_in(tmp, "t.md");
    ASSERT_CONTAINS(md, "algbw = size / time, GB/s (1e9 B/s)");
    free(md);
    st = gb_test_shf(out, sizeof out,
                     "python3 '" GB_TEST_SRCDIR "/scripts/gpu-nccl-peer.py' --results "
                     "/nonexistent.json --only nccl-tests 2>&1");
    ASSERT_MSG(st == 0, "%s", out);
    ASSERT_CONTAINS(out, "no gpubench results");
    ASSERT_CONTAINS(out, "nccl-tests: not tried");
    st = gb_test_shf(out, sizeof out,
                     "python3 '" GB_TEST_SRCDIR "/scripts/gpu-nccl-peer.py' --results x --size "
                     "12XB 2>&1");
    ASSERT_EQ(st, 2);
    ASSERT_CONTAINS(out, "not '12XB'");
}

/* The no-GPU path, run to the end: the version chain, a clear verdict, OpenCL's run, the
 * summary; exit 4 ("CUDA not checked"), in well under a minute. */
TEST_TIMEOUT(gpu_check_without_a_gpu, 120)
{
    static char out[1 << 17];
    if (gb_test_sh("command -v nvidia-smi", out, sizeof out) == 0)
        SKIP("nvidia-smi is here: this is a GPU machine");
    const char *tmp = gb_test_tmpdir();
    char prof[1024];
    snprintf(prof, sizeof prof, "%s/tiny.yaml", tmp);
    gb_test_write_file(prof, "name: tiny\n"
                             "measure: {warmup_runs: 1, min_samples: 3, max_samples: 5, "
                             "max_time: 30ms, min_sample_time: 1ms}\n"
                             "suites:\n"
                             "  - suite: transfer\n"
                             "    params: {op: [h2d, bidir], memory: pinned, size: 64KiB}\n");
    const double t0 = gb_test_now_s();
    int st = gb_test_shf(out, sizeof out,
                         "'" GB_TEST_SRCDIR "/scripts/gpu-check.sh' --exe '" GB_TEST_EXE
                         "' -o '%s/o' -p '%s' 2>&1",
                         tmp, prof);
    const double took = gb_test_now_s() - t0;
    ASSERT_MSG(st == 4, "gpu-check.sh exited %d (want 4: CUDA not checked):\n%s", st, out);
    ASSERT_MSG(took < 60, "the no-GPU path took %.0f s", took);
    /* The version chain, then the verdict, before anything runs. */
    const char *chain = strstr(out, "cuda: runtime: ");
    const char *verdict = strstr(out, "verdict: no NVIDIA driver: CUDA not checked");
    const char *part2 = strstr(out, "part 2");
    ASSERT_MSG(chain && verdict && part2 && chain < verdict && verdict < part2, "%s", out);
    ASSERT_CONTAINS(out, "cuda: driver: none");
    ASSERT_CONTAINS(out, "cuda: NVRTC: ");
    ASSERT_CONTAINS(out, "cuda: NVRTC builtins: ");
    ASSERT_CONTAINS(out, "cuda: headers: ");
    ASSERT_CONTAINS(out, "cuda: NVRTC test compile: ok");
    ASSERT_CONTAINS(out, "cuda: cuBLAS: ");
    ASSERT_CONTAINS(out, "nvidia-smi: not found");
    ASSERT_CONTAINS(out, "smoke test skipped");
    ASSERT_CONTAINS(out, "on cuda skipped");
    ASSERT_CONTAINS(out, "exit 4;");
    static const char *const files[] = {"env.txt", "summary.md", "gpu-check.log"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char f[1200];
        snprintf(f, sizeof f, "%s/o/%s", tmp, files[i]);
        ASSERT_MSG(access(f, R_OK) == 0, "no %s", f);
    }
    char *env = NULL;
    char f[1200];
    env = gb_test_slurp_in(tmp, "o/env.txt");
    ASSERT_CONTAINS(env, "verdict: no NVIDIA driver: CUDA not checked");
    ASSERT_CONTAINS(env, "gpubench devices --json:\n[");
    free(env);
    /* At most 8 files come back from a GPU lease: devices.json is inside env.txt. */
    snprintf(f, sizeof f, "%s/o/devices.json", tmp);
    ASSERT(access(f, F_OK) != 0);
}

#else /* !HAVE_CUDA */

TEST(cuda_not_built)
{
    SKIP("gpubench was configured without the CUDA backend (-Dcuda=disabled or no toolkit)");
}

#endif
