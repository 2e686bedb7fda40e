/* Drivers' limits that no query reports, and facts a driver reports wrong, planted on the real
 * OpenCL device and what gpubench does about each: a driver that stops a work-item's loops after
 * 65,535 iterations (planted in the probe by GPUBENCH_TEST_LOOP_TRIPS, tests only), and a CPU
 * device that reports a placeholder clock and compute units (the defect shim's clock=N and
 * units=N, tests/shims/cl_defects.c). The gpubench binary runs a small profile under them, as a
 * user would, supervisor and worker included; no test assumes an implementation. Named defects_
 * with the shim's other tests (tests/test_driver_defects.c), which run on both implementations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "results/results.h"
#include "run/config.h"
#include "backends/backend.h"
#include "test.h"

static char out[1 << 16];

/* Runs the profile whose suites: list is `suites` on device 0 with the environment assignments
 * `env` (shell syntax, "" for none) and the defect shim preloaded, and reads the results into
 * *rs (gb_test_run_shimmed). The run must exit 0: every case ok or skipped. */
static void run_env(const char *env, const char *suites, struct gb_results *rs)
{
    gb_test_run_shimmed(out, sizeof out, env, "0", suites, false, rs);
}

static const char limit_cases[] = "  - suite: memory\n"
                                  "    params: {op: [dot], type: [float], size: [16MiB], "
                                  "config: [default]}\n"
                                  "  - suite: gemm\n"
                                  "    params: {prec: [f32], impl: [own], "
                                  "shape: [64x64x512, 64x64x1024]}\n";

/* The dot's work-groups and whether its config says it was sized to the loop limit. */
static void dot_sizing(const struct gb_results *rs, double *groups, bool *sized)
{
    *groups = 0;
    *sized = false;
    for (size_t i = 0; i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        if (strcmp(r->suite, "memory") != 0)
            continue;
        ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "dot: %s", r->reason);
        const struct gb_figure *g = gb_test_figure(r, "groups"), *c = gb_test_figure(r, "config");
        ASSERT(g && c);
        *groups = g->v[0];
        *sized = strstr(c->text, "sized to the loop limit") != NULL;
    }
    ASSERT_MSG(*groups > 0, "no dot result");
}

/* A driver that stops a work-item's loops after 65,535 iterations, with a kernel work-group
 * maximum of 32 (both seen together in the field, where the dot returned 1/16 of its sum and the
 * own GEMM failed from K = 1,024): the probe finds the limit and the results file records it;
 * the dot gets more work-groups, so that no work-item loops past it, and verifies; the own GEMM
 * runs K = 512 and skips K = 1,024 naming the limit and the K that fits, instead of failing.
 * Without the limit the same profile sizes the dot as ever and runs both GEMMs. */
TEST_TIMEOUT(defects_loop_limit_resizes_the_dot_and_skips_the_own_gemm, 300)
{
    struct gb_results rs;
    run_env("GB_CL_DEFECT=kernel-wg=32", limit_cases, &rs);
    ASSERT_EQ(rs.devices[0].info.max_loop_trips, 0);
    double groups_free;
    bool sized;
    dot_sizing(&rs, &groups_free, &sized);
    ASSERT(!sized);
    for (size_t i = 0; i < rs.nresults; i++)
        if (strcmp(rs.results[i].suite, "gemm") == 0)
            ASSERT_MSG(rs.results[i].status == GB_STATUS_OK, "gemm %s", rs.results[i].reason);
    gb_results_free(&rs);

    run_env("GB_CL_DEFECT=kernel-wg=32 GPUBENCH_TEST_LOOP_TRIPS=65535", limit_cases, &rs);
    ASSERT_EQ(rs.devices[0].info.max_loop_trips, 65535);
    double groups;
    dot_sizing(&rs, &groups, &sized);
    ASSERT(sized);
    /* 2^22 floats over work-items of at most 65,535 - log2(wg) terms each: at least 65 of
     * them, more than the CPU sizing's few work-groups. */
    ASSERT_MSG(groups > groups_free, "dot: %g work-groups with the limit, %g without", groups,
               groups_free);
    size_t gemm_ok = 0, gemm_skipped = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        if (strcmp(r->suite, "gemm") != 0)
            continue;
        const struct gb_value *shape = gb_params_get(&r->params, "shape");
        ASSERT(shape);
        if (strcmp(shape->s, "64x64x512") == 0) {
            ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "K = 512: %s", r->reason);
            gemm_ok++;
        } else {
            ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "K = 1024: %s", r->reason);
            ASSERT_CONTAINS(r->reason, "the driver stops a work-item's loops after 65535");
            ASSERT_CONTAINS(r->reason, "K = 1024 needs");
            ASSERT_CONTAINS(r->reason, "K up to");
            gemm_skipped++;
        }
    }
    ASSERT_EQ(gemm_ok, 1);
    ASSERT_EQ(gemm_skipped, 1);
    gb_results_free(&rs);
}

/* A CPU device that reports a placeholder clock (300 MHz) and more compute units than the host
 * has online CPUs: the host's figures are used where the host has them, and clock_source says
 * so and what the device said, in `gpubench devices` and in the results file; the compute
 * suite's peak is then the one built on the host's figures, as without the placeholders. */
TEST_TIMEOUT(defects_placeholder_cpu_clock_and_units_use_the_hosts, 240)
{
    const char *src = NULL;
    const uint32_t host_mhz =
        gb_host_cpu_mhz("/sys/devices/system/cpu/cpu0", "/proc/cpuinfo", &src);
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (host_mhz < 1000 || cpus < 1)
        SKIP("the host's clock (%u MHz) or online CPUs (%ld) are not readable here", host_mhz,
             cpus);
    struct gb_test_devices d;
    gb_test_cli_devices("", &d);
    if (d.n == 0)
        SKIP("no OpenCL device");
    const unsigned units = (unsigned)cpus + 62;
    char env[128];
    snprintf(env, sizeof env, "GB_CL_DEFECT=clock=300,units=%u", units);
    int rc = gb_test_shf(out, sizeof out, "%s LD_PRELOAD='%s' '%s' devices 2>&1", env,
                         GB_TEST_CL_DEFECTS, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "devices: exit %d\n%s", rc, out);
    if (!strstr(out, "the device said 300 MHz"))
        SKIP("OpenCL device 0 is not a CPU device: %.300s", out);
    char want[160];
    /* The device's row: the host's units and clock, then (last) where they came from. */
    const char *row = strstr(out, "\nopencl ");
    int index = -1;
    while (row && sscanf(row, " opencl %d", &index) != 1)
        row = strstr(row + 1, "\nopencl ");
    ASSERT_MSG(row && index == 0, "no row for device 0: %s", out);
    /* Its cells are two spaces apart or more (a name may hold one): backend, index, name,
     * vendor, driver, compute units, clock MHz, ... */
    char cells[8][256] = {{0}};
    const char *p = row + 1;
    for (int c = 0; c < 8 && *p && *p != '\n'; c++) {
        while (*p == ' ')
            p++;
        size_t n = 0;
        while (p[n] && p[n] != '\n' && !(p[n] == ' ' && p[n + 1] == ' '))
            n++;
        snprintf(cells[c], sizeof cells[c], "%.*s", (int)n, p);
        p += n;
    }
    snprintf(want, sizeof want, "%ld", cpus);
    ASSERT_STR(cells[5], want);
    snprintf(want, sizeof want, "%u", host_mhz);
    ASSERT_STR(cells[6], want);
    snprintf(want, sizeof want,
             "  host %s, the device said 300 MHz; units: the host's %ld online CPUs, the device "
             "said %u\n",
             src, cpus, units);
    ASSERT_CONTAINS(row, want);

    static const char compute[] = "  - suite: compute\n"
                                  "    params: {prec: [f32], iters: [64], groups: [1]}\n";
    struct gb_results rs;
    run_env(env, compute, &rs);
    const struct gb_device_info *di = &rs.devices[0].info;
    ASSERT_EQ(di->clock_mhz, host_mhz);
    ASSERT_EQ(di->compute_units, (uint32_t)cpus);
    char said[sizeof rs.devices[0].info.clock_source + 64];
    snprintf(said, sizeof said,
             "host %s, the device said 300 MHz; units: the host's %ld online "
             "CPUs, the device said %u",
             src, cpus, units);
    ASSERT_STR(di->clock_source, said);
    ASSERT_EQ(rs.results[0].status, GB_STATUS_OK);
    const double peak = gb_result_scalar(&rs.results[0], "peak");
    gb_results_free(&rs);

    /* Without the placeholders the peak is built on the device's own figures, which a sound
     * driver reports as the host's: the two peaks stand as the two clocks. */
    run_env("", compute, &rs);
    const double peak_true = gb_result_scalar(&rs.results[0], "peak");
    const struct gb_device_info *own = &rs.devices[0].info;
    ASSERT_MSG(!own->clock_source[0] || !strstr(own->clock_source, "said"), "%s",
               own->clock_source);
    if (own->compute_units == (uint32_t)cpus)
        ASSERT_MSG(peak > 0 && fabs(peak * own->clock_mhz - peak_true * host_mhz) <=
                                   1e-9 * peak_true * host_mhz,
                   "peak %g GFLOP/s at the host's %u MHz, %g at the device's own %u MHz", peak,
                   host_mhz, peak_true, own->clock_mhz);
    gb_results_free(&rs);
}
