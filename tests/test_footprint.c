/* A case's footprint (run/footprint.h): the estimate of what a case holds at
 * once on the host and the device, checked before setup against the host's available memory and
 * the device's, so that a case too large for the machine is a recorded skip naming both sizes,
 * not an out-of-memory kill. The cases that were found eating the machine (gemm i8 1x1x2^31,
 * conv 1x1x40000x40000, llama3-8b-decode's lm_head, alloc's host floor holding the size twice)
 * are run with the host's memory capped ($GPUBENCH_HOST_MEMORY) and, outside AddressSanitizer,
 * the address space limited too, so that code without the estimate fails fast (its malloc
 * refused) instead of allocating tens of GiB. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "run/config.h"
#include "run/footprint.h"
#include "run/plan.h"
#include "suites/alloc_state.h"
#include "suites/suites.h"
#include "test.h"

#define GIB 1073741824.0

static struct gb_device_info device(double global, double max_alloc, bool unified)
{
    struct gb_device_info info = {0};
    info.global_mem = (uint64_t)global;
    info.max_alloc = (uint64_t)max_alloc;
    info.caps = unified ? GB_CAP_UNIFIED : 0;
    return info;
}

TEST(footprint_check_holds_the_sum_of_the_buffers)
{
    char why[1024];
    const struct gb_host_memory host = {(uint64_t)(10 * GIB), "MemAvailable"};
    /* Three buffers of 4 GiB: each fits the host's 10 GiB alone, their sum does not. */
    struct gb_footprint fp = {.host = 12 * GIB, .device = 0, .largest = 0};
    struct gb_device_info gpu = device(80 * GIB, 20 * GIB, false);
    ASSERT_EQ(gb_footprint_check(&fp, &host, &gpu, why, sizeof why), GB_ESKIP);
    ASSERT_CONTAINS(why, "needs 12.00 GiB of host memory and 0 B of device memory");
    ASSERT_CONTAINS(why, "the host has 10.00 GiB available (MemAvailable)");
    ASSERT_CONTAINS(why, "may use 9.00 GiB (90%)");
    /* Within the share: fits. */
    fp.host = 8 * GIB;
    fp.device = 40 * GIB, fp.largest = 20 * GIB;
    ASSERT_EQ(gb_footprint_check(&fp, &host, &gpu, why, sizeof why), 0);
    /* A device that shares host memory adds its buffers to the host's need. */
    struct gb_device_info cpu = device(80 * GIB, 20 * GIB, true);
    fp.device = 2 * GIB, fp.largest = 1 * GIB;
    ASSERT_EQ(gb_footprint_check(&fp, &host, &cpu, why, sizeof why), GB_ESKIP);
    ASSERT_CONTAINS(why, "needs 8.00 GiB of host memory and 2.00 GiB of device memory (the "
                         "device's is host memory too)");
    ASSERT_CONTAINS(why, "this one needs 10.00 GiB");
    ASSERT_EQ(gb_footprint_check(&fp, &host, &gpu, why, sizeof why), 0);
}

TEST(footprint_check_holds_the_device_and_its_largest_allocation)
{
    char why[1024];
    const struct gb_host_memory host = {(uint64_t)(100 * GIB), "MemAvailable"};
    struct gb_device_info gpu = device(16 * GIB, 4 * GIB, false);
    struct gb_footprint fp = {.host = 1 * GIB, .device = 17 * GIB, .largest = 4 * GIB};
    ASSERT_EQ(gb_footprint_check(&fp, &host, &gpu, why, sizeof why), GB_ESKIP);
    ASSERT_CONTAINS(why, "needs 1.00 GiB of host memory and 17.00 GiB of device memory: the "
                         "device has 16.00 GiB");
    ASSERT(!strstr(why, "largest"));
    fp.device = 12 * GIB, fp.largest = 5 * GIB;
    ASSERT_EQ(gb_footprint_check(&fp, &host, &gpu, why, sizeof why), GB_ESKIP);
    ASSERT_CONTAINS(why, "its largest buffer, 5.00 GiB, is over the device's largest allocation "
                         "4.00 GiB");
    /* Both over: both said. */
    fp.device = 20 * GIB;
    ASSERT_EQ(gb_footprint_check(&fp, &host, &gpu, why, sizeof why), GB_ESKIP);
    ASSERT_CONTAINS(why, "the device has 16.00 GiB; its largest buffer");
    /* Beyond 64 bits (a GEMM of 2^31 x 2^31 x 2^31 in FP64). */
    fp.host = 0x1p66, fp.device = 0x1p65, fp.largest = 0x1p63;
    ASSERT_EQ(gb_footprint_check(&fp, &host, &gpu, why, sizeof why), GB_ESKIP);
    ASSERT_CONTAINS(why, "needs 7.38e+19 B of host memory");
    /* Nothing known of the host or the device: nothing to hold it to. */
    const struct gb_host_memory none = {0, "unknown"};
    const struct gb_device_info blank = {0};
    ASSERT_EQ(gb_footprint_check(&fp, &none, &blank, why, sizeof why), 0);
}

/* The address space the process may still take: its size now plus `room` bytes (a no-op under
 * AddressSanitizer, whose shadow memory needs terabytes of it). */
static void limit_address_space(double room)
{
    if (GB_TEST_ASAN)
        return;
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double used = 0;
    while (f && fgets(line, sizeof line, f) && !used)
        if (strncmp(line, "VmSize:", 7) == 0)
            used = strtod(line + 7, NULL) * 1024;
    if (f)
        fclose(f);
    ASSERT(used > 0);
    struct rlimit rl = {(rlim_t)(used + room), (rlim_t)(used + room)};
    ASSERT_EQ(setrlimit(RLIMIT_AS, &rl), 0);
}

TEST(footprint_host_memory_is_the_smallest_limit)
{
    struct gb_host_memory h;
    unsetenv("GPUBENCH_HOST_MEMORY");
    gb_host_memory(&h);
    ASSERT(h.avail > 0); /* MemAvailable, on Linux */
    ASSERT_EQ(setenv("GPUBENCH_HOST_MEMORY", "1GiB", 1), 0);
    gb_host_memory(&h);
    ASSERT_U64(h.avail, <=, UINT64_C(1) << 30);
    if (h.avail == UINT64_C(1) << 30)
        ASSERT_STR(h.what, "$GPUBENCH_HOST_MEMORY");
    if (GB_TEST_ASAN)
        return;
    limit_address_space(256 * 1048576.0);
    gb_host_memory(&h);
    ASSERT_U64(h.avail, <=, UINT64_C(256) << 20);
    ASSERT_STR(h.what, "RLIMIT_AS, the address-space limit");
}

/* The one case of `yaml`'s profile, planned against a notional device (as validate does), and
 * its suite's footprint with device facts `info`. */
static struct gb_footprint footprint_of(const char *suite, const char *params,
                                        const struct gb_device_info *info)
{
    char yaml[1024], err[1024];
    snprintf(yaml, sizeof yaml, "suites:\n  - suite: %s\n    params: %s\n", suite, params);
    struct gb_profile p;
    ASSERT_MSG(gb_profile_load_string(gb_suites_builtin(), yaml, "test", NULL, 0, &p, err,
                                      sizeof err) == 0,
               "%s", err);
    struct gb_plan_device one = {0};
    struct gb_plan plan = {.devices = &one, .ndevices = 1};
    ASSERT_OK(gb_plan_expand(&p, NULL, &plan));
    ASSERT_MSG(plan.ncases == 1, "%s %s: %zu cases", suite, params, plan.ncases);
    const struct gb_suite *s = plan.cases[0].run->suite;
    ASSERT_MSG(s->footprint, "suite %s declares no footprint", suite);
    struct gb_footprint fp = {0};
    s->footprint(&plan.cases[0].params, info, &fp);
    free(plan.cases);
    gb_profile_free(&p);
    return fp;
}

TEST(footprint_estimates_of_the_cases_found)
{
    const struct gb_device_info blank = {0};
    /* gemm i8 1 x 1 x 2^31: A and B drawn in FP64 (2 x 16 GiB), quantised (2 x 2 GiB), and the
     * upload's peak; A and B of 2 GiB and C of 4 bytes on the device. */
    struct gb_footprint fp =
        footprint_of("gemm", "{prec: i8, impl: own, shape: 1x1x2147483648}", &blank);
    ASSERT_NEAR(fp.device, 4 * GIB + 4, 0.5);
    ASSERT_NEAR(fp.largest, 2 * GIB, 0.5);
    ASSERT(fp.host >= 36 * GIB);
    /* llama3-8b-decode's output head at batch 1: W of 128256 x 4096 floats (1.96 GiB) drawn in
     * FP64 (3.91 GiB). */
    fp = footprint_of("gemm", "{prec: f32, impl: own, shape: llama3-8b-decode.lm_head}", &blank);
    const double w = 128256.0 * 4096;
    ASSERT_NEAR(fp.device, (w + 4096 + 128256) * 4, 0.5);
    ASSERT(fp.host >= 8 * w + 2 * 4 * w);
    /* conv 1 x 1 x 40000 x 40000 by one 1x1 filter: x and y of 1.6e9 floats each. */
    fp = footprint_of("conv", "{prec: f32, impl: own, dir: fwd, shape: 1x1x40000x40000-1x1x1}",
                      &blank);
    ASSERT_NEAR(fp.device, (2 * 1.6e9 + 1) * 4, 0.5);
    ASSERT(fp.host >= 8 * 1.6e9);
    /* alloc's host floor holds the size under test once, a device method's its copy too. */
    fp = footprint_of("alloc", "{method: host, op: alloc, touch: none, size: 1GiB}", &blank);
    ASSERT_NEAR(fp.host, GIB, 0.5);
    ASSERT_NEAR(fp.device, 0, 0.5);
    fp = footprint_of("alloc", "{method: device, op: alloc, touch: none, size: 1GiB}", &blank);
    ASSERT_NEAR(fp.host, GIB, 0.5);
    ASSERT_NEAR(fp.device, GIB, 0.5);
    /* memory's picked size follows the device: a quarter of its memory at most, three arrays. */
    const struct gb_device_info small = device(256 * 1048576.0, 64 * 1048576.0, false);
    fp = footprint_of("memory", "{op: triad, type: float, size: 0}", &small);
    ASSERT_NEAR(fp.device, 3 * 64 * 1048576.0, 0.5);
    fp = footprint_of("transfer", "{op: bidir, memory: pinned, mode: async, size: 1GiB}", &blank);
    ASSERT_NEAR(fp.device, 2 * GIB, 0.5);
    ASSERT(fp.host >= 2 * GIB);
    fp = footprint_of("sparse", "{op: spmm, impl: own, density: 0.01, shape: 65536x64x65536}",
                      &blank);
    ASSERT(fp.device >= 65536.0 * 65536 * 0.01 * 4);
    fp = footprint_of("batching",
                      "{op: copies, mode: one, count: 16, size: 1GiB, dir: h2d, memory: pinned}",
                      &blank);
    ASSERT_NEAR(fp.device, 16 * GIB, 0.5);
    ASSERT(fp.host >= 32 * GIB); /* the pinned buffer and the pattern at least */
    fp = footprint_of("fp16", "{op: triad, storage: half, elems: 1073741824}", &blank);
    ASSERT_NEAR(fp.device, 6 * GIB, 0.5);
    ASSERT(fp.host >= 16 * GIB);
}

/* Runs suite `suite` with `params` (one case) on OpenCL device 0 with the host's memory capped at
 * 1 GiB and the address space at 2 GiB more than the process has, and checks that the case is a
 * skip naming the host's and the device's bytes. Code that allocated first would fail (its malloc
 * refused under the limit), not skip. */
static void run_capped_skips(const char *suite, const char *params, const char *host_need)
{
    ASSERT_EQ(setenv("GPUBENCH_HOST_MEMORY", "1GiB", 1), 0);
    limit_address_space(2 * GIB);
    struct gb_results rs;
    gb_test_run_suite("measure: {warmup_runs: 1, min_samples: 3, max_samples: 3}\n", suite, params,
                      &rs);
    ASSERT_EQ(rs.nresults, 1);
    const struct gb_result *r = &rs.results[0];
    ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "%s %s: status %d, %s", suite, params, r->status,
               r->reason);
    ASSERT_CONTAINS(r->reason, host_need);
    ASSERT_CONTAINS(r->reason, "of device memory");
    ASSERT_CONTAINS(r->reason, "available ($GPUBENCH_HOST_MEMORY)");
    gb_results_free(&rs);
}

TEST(footprint_gemm_i8_of_2_31_is_skipped_before_it_allocates)
{
    run_capped_skips("gemm", "{prec: i8, impl: own, shape: 1x1x2147483648}",
                     "GiB of host memory and 4.00 GiB");
}

TEST(footprint_conv_of_40000_squared_is_skipped_before_it_allocates)
{
    run_capped_skips("conv", "{prec: f32, impl: own, dir: fwd, shape: 1x1x40000x40000-1x1x1}",
                     "of host memory and 11.92 GiB");
}

TEST(footprint_preset_lm_head_is_skipped_before_it_allocates)
{
    run_capped_skips("gemm", "{prec: f32, impl: own, shape: llama3-8b-decode.lm_head}",
                     "of host memory and 1.96 GiB");
}

/* alloc's host floor (C malloc) is checked in place: its setup allocates no pageable copy of the
 * size under test beside it (it did: twice the size on the host). */
TEST(footprint_alloc_host_floor_holds_its_size_once)
{
    const struct gb_suite *s;
    struct gb_case_ctx *ctx;
    struct gb_test_case *tc =
        gb_test_case_open("alloc", "{method: host, op: alloc, touch: none, size: 1MiB}", &s, &ctx);
    ASSERT_OK(s->setup(ctx));
    const struct alloc *a = ctx->state;
    ASSERT_MSG(a->stage == NULL, "the host floor allocated a %llu-byte copy beside its own",
               (unsigned long long)a->size);
    /* And it still measures and checks what it allocates. */
    ASSERT_OK(s->prepare ? s->prepare(ctx, 1) : 0);
    ASSERT_OK(s->run(ctx, 1));
    ASSERT_OK(s->settle(ctx, 1));
    ASSERT_OK(s->verify(ctx));
    ASSERT(a->checked >= 1);
    gb_test_case_close(tc);
}

/* validate says, touching no device, which cases the host cannot hold (run would skip them). */
TEST(footprint_validate_warns_of_cases_too_large_for_the_host)
{
    const char *dir = gb_test_tmpdir();
    char path[1024], out[8192];
    snprintf(path, sizeof path, "%s/big.yaml", dir);
    gb_test_write_file(path, "suites:\n"
                             "  - suite: gemm\n"
                             "    params: {prec: i8, impl: own, shape: 1x1x2147483648}\n"
                             "  - suite: gemm\n"
                             "    params: {prec: f32, impl: own, shape: llama3-8b-decode.lm_head}\n"
                             "  - suite: conv\n"
                             "    params: {prec: f32, impl: own, dir: fwd, "
                             "shape: 1x1x40000x40000-1x1x1}\n"
                             "  - suite: gemm\n"
                             "    params: {prec: f32, impl: own, shape: 64}\n");
    int rc = gb_test_shf(out, sizeof out, "GPUBENCH_HOST_MEMORY=1GiB %s validate %s 2>&1",
                         GB_TEST_EXE, path);
    ASSERT_MSG(rc == 0, "exit %d: %s", rc, out);
    ASSERT_EQ(gb_test_count(out, "run will record it as skipped"), 3);
    ASSERT_CONTAINS(out, "shape=1x1x2147483648");
    ASSERT_CONTAINS(out, "shape=llama3-8b-decode.lm_head");
    ASSERT_CONTAINS(out, "shape=1x1x40000x40000-1x1x1");
    ASSERT_CONTAINS(out, "available ($GPUBENCH_HOST_MEMORY)");
    ASSERT(!strstr(out, "shape=64x64x64"));
}

/* A $GPUBENCH_HOST_MEMORY that is no size (or 0) is refused by name before anything runs: it was
 * ignored ("garbage", "-5": the host's memory used) or taken as 1 byte ("0": every case skipped
 * with no word of the variable). */
TEST(footprint_host_memory_variable_is_checked)
{
    char out[4096];
    const char *const bad[] = {"garbage", "0", "-5", "1.5.GiB"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = gb_test_shf(out, sizeof out,
                             "GPUBENCH_HOST_MEMORY='%s' %s validate %s/configs/quick.yaml 2>&1",
                             bad[i], GB_TEST_EXE, GB_TEST_SRCDIR);
        ASSERT_MSG(rc == 2, "%s: exit %d: %s", bad[i], rc, out);
        ASSERT_CONTAINS(out, "GPUBENCH_HOST_MEMORY=");
        rc = gb_test_shf(out, sizeof out,
                         "GPUBENCH_HOST_MEMORY='%s' %s run %s/configs/quick.yaml --suite launch -o "
                         "%s/x.json 2>&1",
                         bad[i], GB_TEST_EXE, GB_TEST_SRCDIR, gb_test_tmpdir());
        ASSERT_MSG(rc == 2, "%s: exit %d: %s", bad[i], rc, out);
    }
    uint64_t v;
    ASSERT_EQ(setenv("GPUBENCH_HOST_MEMORY", "2GiB", 1), 0);
    ASSERT_OK(gb_host_memory_env(&v));
    ASSERT_U64(v, ==, UINT64_C(2) << 30);
    unsetenv("GPUBENCH_HOST_MEMORY");
    ASSERT_OK(gb_host_memory_env(&v));
    ASSERT_U64(v, ==, 0);
}
