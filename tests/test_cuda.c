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

#include <stdbool.h>

#include "base/error.h"

#if HAVE_CUDA
#include "backends/cuda/gb_cuda.h"
#include "harness/kernels.h"

/* ---- the kernel variants the suites build ----------------------------------------------------
 * One row per kernel file: the kernels in it and the define sets the suites compile it with
 * (each a NULL-terminated list, "" ends the table of sets). Add a row when a suite gains a
 * kernel file, and a set when it gains a tunable value; the counts follow. */
#define MAX_KERNELS 8
#define MAX_SETS 16
#define MAX_DEFS 6
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
      {"T=double", "WG=1024", NULL}},
     15},
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
      {"TS=16", "WPT=2", "TSK=4", "UNROLL=1", NULL},
      {"TS=64", "WPT=8", "TSK=32", "UNROLL=8", NULL},
      {"TS=128", "WPT=8", "TSK=32", "UNROLL=8", NULL}},
     8},
    /* suites/tuning.c: the dot reduction's defaults and the corners of its search space. */
    {"dot.cl",
     {"dot_partial", "dot_final", NULL},
     {{NULL},
      {"T=float", "WG=32", "VEC=1", "LAYOUT=1", "REDUCE=0", "FWG=32", NULL},
      {"T=float", "WG=1024", "VEC=16", "LAYOUT=0", "REDUCE=1", "FWG=1024", NULL},
      {"T=double", "WG=256", "VEC=4", "LAYOUT=0", "REDUCE=2", "FWG=64", NULL}},
     4},
    /* suites/tuning.c: the 2-D transpose, with and without a local-memory tile. */
    {"transpose.cl",
     {"transpose", NULL},
     {{NULL},
      {"T=float", "TILE=8", "ROWS=1", "LOCAL=0", "PAD=0", NULL},
      {"T=float", "TILE=64", "ROWS=8", "LOCAL=1", "PAD=1", NULL},
      {"T=double", "TILE=16", "ROWS=16", "LOCAL=1", "PAD=0", NULL}},
     4},
    /* suites/batching.c and the multi-device suites (their tiled fallback SGEMM). */
    {"batching.cl", {"batch_inc", NULL}, {{NULL}}, 1},
    {"multi.cl",
     {"multi_reduce", "multi_sgemm", "multi_work", NULL},
     {{NULL}, {"TS=8", NULL}, {"TS=32", NULL}},
     3},
    /* suites/fp16.c: float, half (cuda_fp16.h) and bfloat16 storage. */
    {"fp16.cl",
     {"fp16_scale", "fp16_triad", NULL},
     {{NULL}, {"STORE_HALF=1", NULL}, {"STORE_BF16=1", NULL}},
     3},
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
    /* The table must not shrink by accident: stream.cl's 5 kernels x 15 sets, launch.cl's 1. */
    ASSERT_U64(kernels, >=, 76);
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

/* Every macro of kernels/prelude.h, once, in a kernel compiled for CUDA. */
static const char prelude_probe[] =
    "#if !defined(GB_CUDA) || GB_HAS_FP64 != 1 || GB_HAS_FP16 != 1\n"
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
    const char *prelude = gb_kernel_text("prelude.h");
    ASSERT(prelude != NULL);
    size_t len = strlen(prelude) + sizeof prelude_probe + 2;
    char *src = malloc(len);
    ASSERT(src != NULL);
    snprintf(src, len, "%s\n%s", prelude, prelude_probe);
    const char *defs[] = {"T=float"};
    char *ptx = NULL, *log = NULL;
    int rc = gb_cuda_compile_ptx(src, "compute_90", defs, 1, &ptx, &log);
    ASSERT_MSG(rc == 0, "%s\n%s", gb_error_msg(), log ? log : "");
    ASSERT(ptx_has_entry(ptx, "gb_prelude_probe"));
    ASSERT_CONTAINS(ptx, ".maxntid 64");  /* GB_WG_HINT -> __launch_bounds__ */
    ASSERT_CONTAINS(ptx, "bar.sync");     /* GB_BARRIER -> __syncthreads */
    ASSERT_CONTAINS(ptx, ".shared");      /* GB_LOCAL -> __shared__ */
    ASSERT_CONTAINS(ptx, "cvt.f32.f16");  /* GB_LOAD_HALF */
    ASSERT_CONTAINS(ptx, "cvt.rn.f16.f32"); /* GB_STORE_HALF rounds to nearest */
    ASSERT_CONTAINS(ptx, "fma.rn.f64");   /* GB_FMA on double */
    ASSERT_CONTAINS(ptx, "%ctaid.z");     /* GB_GROUP_ID(2) */
    ASSERT_CONTAINS(ptx, "%nctaid.y");    /* GB_NUM_GROUPS(1) */
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
        ASSERT_CONTAINS(ptx, dbl ? ".param .f64 stream_mul_param_2"
                                 : ".param .f32 stream_mul_param_2");
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
    ASSERT_EQ(gb_cuda_f16_bits(6.103515625e-05f), 0x0400);  /* smallest normal, 2^-14 */
    ASSERT_EQ(gb_cuda_f16_bits(5.9604645e-08f), 0x0001);    /* smallest subnormal, 2^-24 */
    ASSERT_EQ(gb_cuda_f16_bits(2.9802322e-08f), 0x0000);    /* 2^-25: a tie, to even (0) */
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
    ASSERT_MSG(rc == GB_EUNAVAIL, "init returned %d (%s): %s", rc, gb_err_name(rc),
               gb_error_msg());
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

/* `gpubench devices` here: CUDA listed as unavailable with the driver's reason, exit 0. */
TEST(cuda_devices_without_driver)
{
    if (gb_cuda_ops.init() == 0)
        SKIP("a CUDA driver is present here");
    char out[16384];
    int st = gb_test_sh("'" GB_TEST_EXE "' devices 2>&1", out, sizeof out);
    ASSERT_MSG(st == 0, "gpubench devices exited %d:\n%s", st, out);
    ASSERT_CONTAINS(out, "cuda: unavailable (CUDA driver: ");
}

#else /* !HAVE_CUDA */

TEST(cuda_not_built)
{
    SKIP("gpubench was configured without the CUDA backend (-Dcuda=disabled or no toolkit)");
}

#endif
