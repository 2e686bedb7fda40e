/* Tests of backends/telemetry*.c, src/run/telemetry_result.c and the compare warning (src/analyses/machine.c), on
 * fixtures: a sysfs tree made here (RAPL, cpufreq, hwmon; counters that advance and wrap) and a
 * fake libnvidia-ml.so (tests/fake_nvml.c) loaded through $GPUBENCH_NVML_LIB. */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suites/suites.h"
#include "base/error.h"
#include "analyses/machine.h"
#include "run/config.h"
#include "run/measure.h"
#include "results/results.h"
#include "run/suite.h"
#include "backends/telemetry.h"
#include "test.h"

#ifndef GB_TEST_FAKE_NVML
#define GB_TEST_FAKE_NVML "libfake-nvml.so"
#endif

static char out[1 << 18];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

static void mkdirs(const char *root, const char *rel)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/%s'", root, rel);
    ASSERT(system(cmd) == 0);
}

static void put(const char *root, const char *rel, const char *text)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    gb_test_write_file(p, text);
}

/* A CPU machine's sysfs: two RAPL packages (one with a subzone, to be ignored), two CPUs with
 * cpufreq, a coretemp hwmon and an nvme one (ignored), the governor and intel_pstate. */
static const char *cpu_fixture(void)
{
    const char *root = gb_test_tmpdir();
    mkdirs(root, "class/powercap/intel-rapl:0/intel-rapl:0:0");
    mkdirs(root, "class/powercap/intel-rapl:0:0");
    mkdirs(root, "class/powercap/intel-rapl:1");
    put(root, "class/powercap/intel-rapl:0/energy_uj", "900000\n");
    put(root, "class/powercap/intel-rapl:0/max_energy_range_uj", "1000000\n");
    put(root, "class/powercap/intel-rapl:0:0/energy_uj", "5\n");
    put(root, "class/powercap/intel-rapl:0:0/max_energy_range_uj", "1000000\n");
    put(root, "class/powercap/intel-rapl:1/energy_uj", "10\n");
    put(root, "class/powercap/intel-rapl:1/max_energy_range_uj", "1000000\n");
    mkdirs(root, "devices/system/cpu/cpu0/cpufreq");
    mkdirs(root, "devices/system/cpu/cpu1/cpufreq");
    mkdirs(root, "devices/system/cpu/intel_pstate");
    put(root, "devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "3000000\n");
    put(root, "devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "2000000\n");
    put(root, "devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
    put(root, "devices/system/cpu/intel_pstate/no_turbo", "1\n");
    mkdirs(root, "class/hwmon/hwmon0");
    mkdirs(root, "class/hwmon/hwmon1");
    put(root, "class/hwmon/hwmon0/name", "coretemp\n");
    put(root, "class/hwmon/hwmon0/temp1_input", "45000\n");
    put(root, "class/hwmon/hwmon0/temp2_input", "52000\n");
    put(root, "class/hwmon/hwmon1/name", "nvme\n");
    put(root, "class/hwmon/hwmon1/temp1_input", "99000\n");
    return root;
}

TEST(telemetry_counter_delta_wraps)
{
    ASSERT_U64(gb_tel_counter_delta(100, 250, 1000), ==, 150);
    /* 900 -> 100 on a counter that wraps at 1000: 100 to the top, then 100. */
    ASSERT_U64(gb_tel_counter_delta(900, 100, 1000), ==, 200);
    ASSERT_U64(gb_tel_counter_delta(900, 100, 0), ==, 0);
}

TEST(telemetry_window_energy_refuses_what_the_readings_cannot_support)
{
    /* As on an H200 (driver 580): NVML's counter steps about every 100 ms by about 13 J, and its
     * power is a 1 s average. A 10 ms window whose two readings straddle one step: no energy,
     * not 15.6 J (1,560 W). */
    struct gb_tel_reading r[64];
    for (size_t i = 0; i < 64; i++) {
        memset(&r[i], 0, sizeof r[i]);
        for (int q = 0; q < GB_TQ_COUNT; q++)
            r[i].q[q] = NAN;
    }
    r[0].t = 0.0, r[0].energy_j = 1000.0, r[0].q[GB_TQ_POWER] = 126.0;
    r[1].t = 0.01, r[1].energy_j = 1015.6, r[1].q[GB_TQ_POWER] = 126.0;
    const char *method = "x";
    char why[256];
    ASSERT(
        isnan(gb_tel_window_energy(r, 2, true, GB_TEL_NVML_POWER_AVG_S, &method, why, sizeof why)));
    ASSERT_STR(method, "");
    ASSERT_CONTAINS(why, "no energy in a 10 ms window: ");
    ASSERT_CONTAINS(why, "its power is a 1 s average");
    ASSERT_CONTAINS(why, "stepped 1 time, needing steps over 200 ms (20 reading intervals)");
    /* Without the step: the same, with 0 steps (the delta would have been 0 J). */
    r[1].energy_j = 1000.0;
    ASSERT(
        isnan(gb_tel_window_energy(r, 2, true, GB_TEL_NVML_POWER_AVG_S, &method, why, sizeof why)));
    ASSERT_CONTAINS(why, "stepped 0 times,");

    /* 1.26 s of readings every 20 ms (64 readings) of a counter that steps by 12.6 J every
     * 100 ms (126 W), at a phase that the window's ends do not share: the rate between the first
     * and last step times the window, 126 W x 1.26 s, within the 10% the rule promises. */
    for (size_t i = 0; i < 64; i++) {
        r[i].t = 0.02 * (double)i;
        r[i].energy_j = 1000.0 + 12.6 * floor((r[i].t + 0.07) / 0.1);
        r[i].q[GB_TQ_POWER] = 126.0;
    }
    double e = gb_tel_window_energy(r, 64, true, GB_TEL_NVML_POWER_AVG_S, &method, why, sizeof why);
    ASSERT_STR(method, "counter");
    ASSERT_STR(why, "");
    ASSERT_MSG(fabs(e - 126.0 * 1.26) < 0.1 * 126.0 * 1.26, "energy %g J", e);
    /* The plain delta there is 12 steps of 12.6 J = 151.2 J against the true 158.8 J. */

    /* A counter that went wrong (a reset read as a wrap): over 10 kW is no energy. */
    r[63].energy_j = 1.8e13;
    ASSERT(isnan(
        gb_tel_window_energy(r, 64, true, GB_TEL_NVML_POWER_AVG_S, &method, why, sizeof why)));
    ASSERT_CONTAINS(why, "implausible");
    r[63].energy_j = 1000.0 + 12.6 * floor((r[63].t + 0.07) / 0.1);

    /* No counter, instantaneous power (sysfs): the trapezoid over any window. */
    for (size_t i = 0; i < 64; i++)
        r[i].energy_j = NAN;
    ASSERT_NEAR(gb_tel_window_energy(r, 2, false, 0.0, &method, why, sizeof why), 126.0 * 0.02,
                1e-9);
    ASSERT_STR(method, "power");
    /* NVML power without a counter: only from 1 s on. */
    ASSERT(isnan(
        gb_tel_window_energy(r, 40, true, GB_TEL_NVML_POWER_AVG_S, &method, why, sizeof why)));
    ASSERT_CONTAINS(why, "there is no energy counter");
    ASSERT_NEAR(
        gb_tel_window_energy(r, 64, true, GB_TEL_NVML_POWER_AVG_S, &method, why, sizeof why),
        126.0 * 1.26, 1e-9);
}

TEST(telemetry_pcie_link_rate_from_sysfs)
{
    const char *root = gb_test_tmpdir();
    mkdirs(root, "bus/pci/devices/0000:17:00.0");
    mkdirs(root, "bus/pci/devices/0000:18:00.0");
    mkdirs(root, "bus/pci/devices/0000:19:00.0");
    put(root, "bus/pci/devices/0000:17:00.0/current_link_speed", "32.0 GT/s PCIe\n");
    put(root, "bus/pci/devices/0000:17:00.0/current_link_width", "16\n");
    put(root, "bus/pci/devices/0000:18:00.0/current_link_speed", "5.0 GT/s PCIe\n");
    put(root, "bus/pci/devices/0000:18:00.0/current_link_width", "8\n");
    put(root, "bus/pci/devices/0000:19:00.0/current_link_speed", "Unknown\n");
    put(root, "bus/pci/devices/0000:19:00.0/current_link_width", "0\n");
    setenv("GPUBENCH_SYSFS_ROOT", root, 1);
    char how[256];
    /* Gen5 x16: 32 GT/s x 16 lanes x 128/130 / 8 bits = 63.0 GB/s per direction. */
    ASSERT_NEAR(gb_tel_pcie_link_gbs("0000:17:00.0", how, sizeof how), 32.0 * 16 * 128 / 130 / 8,
                1e-9);
    ASSERT_STR(how, "PCIe 32 GT/s x16");
    /* Gen2 x8: 8b/10b, 5 x 8 x 0.8 / 8 = 4 GB/s. */
    ASSERT_NEAR(gb_tel_pcie_link_gbs("0000:18:00.0", how, sizeof how), 4.0, 1e-9);
    ASSERT(gb_tel_pcie_link_gbs("0000:19:00.0", how, sizeof how) == 0.0);
    ASSERT_CONTAINS(how, "reads \"Unknown\"");
    /* Decimal digits only: "0x20" is not 32 GT/s, "16abc" not x16; a control byte in the file
     * does not reach the reason raw. */
    mkdirs(root, "bus/pci/devices/0000:1a:00.0");
    put(root, "bus/pci/devices/0000:1a:00.0/current_link_speed", "0x20 GT/s PCIe\n");
    put(root, "bus/pci/devices/0000:1a:00.0/current_link_width", "16\n");
    ASSERT(gb_tel_pcie_link_gbs("0000:1a:00.0", how, sizeof how) == 0.0);
    put(root, "bus/pci/devices/0000:1a:00.0/current_link_speed", "32.0 GT/s PCIe\n");
    put(root, "bus/pci/devices/0000:1a:00.0/current_link_width", "16abc\n");
    ASSERT(gb_tel_pcie_link_gbs("0000:1a:00.0", how, sizeof how) == 0.0);
    put(root, "bus/pci/devices/0000:1a:00.0/current_link_speed", "\x1b[2J\n");
    ASSERT(gb_tel_pcie_link_gbs("0000:1a:00.0", how, sizeof how) == 0.0);
    ASSERT(!strchr(how, 0x1b));
    ASSERT(gb_tel_pcie_link_gbs("0000:20:00.0", how, sizeof how) == 0.0);
    ASSERT_CONTAINS(how, "no PCIe link speed and width under");
    ASSERT(gb_tel_pcie_link_gbs("", how, sizeof how) == 0.0);
    ASSERT_CONTAINS(how, "no PCI address");
}

TEST(telemetry_energy_arithmetic)
{
    struct gb_tel_reading r[4];
    memset(r, 0, sizeof r);
    for (int i = 0; i < 4; i++) {
        for (int q = 0; q < GB_TQ_COUNT; q++)
            r[i].q[q] = NAN;
        r[i].t = 10.0 + 0.5 * i;
        r[i].energy_j = NAN;
    }
    /* Power 100, 200, 200, 100 W at 0.5 s steps: trapezoids 75 + 100 + 75 = 250 J. */
    r[0].q[GB_TQ_POWER] = 100;
    r[1].q[GB_TQ_POWER] = 200;
    r[2].q[GB_TQ_POWER] = 200;
    r[3].q[GB_TQ_POWER] = 100;
    const char *method = NULL;
    ASSERT_NEAR(gb_tel_energy(r, 4, &method), 250.0, 1e-9);
    ASSERT_STR(method, "power");
    /* A counter wins over power: 1000.5 -> 1003.0 J is 2.5 J. */
    r[1].energy_j = 1000.5;
    r[3].energy_j = 1003.0;
    ASSERT_NEAR(gb_tel_energy(r, 4, &method), 2.5, 1e-9);
    ASSERT_STR(method, "counter");
    for (int i = 0; i < 4; i++)
        r[i].q[GB_TQ_POWER] = r[i].energy_j = NAN;
    ASSERT(isnan(gb_tel_energy(r, 4, &method)));
    ASSERT_STR(method, "");
}

TEST(telemetry_clock_below_floor_is_throttled)
{
    struct gb_tel_reading r[5];
    memset(r, 0, sizeof r);
    double clk[5] = {2000, 2000, 1700, 2000, 1850};
    for (int i = 0; i < 5; i++) {
        r[i].q[GB_TQ_CLOCK] = clk[i];
        r[i].t = i;
    }
    r[0].has_reasons = true;
    r[0].reasons = GB_TEL_REASON_IDLE; /* idle is not a throttle */
    bool thr[5];
    /* The median is 2000 MHz; 0.9 of it is 1800: only 1700 is below. */
    ASSERT_EQ(gb_tel_reading_throttled(r, 5, 0.9, thr), 1);
    ASSERT(thr[2] && !thr[0] && !thr[4]);
}

TEST(telemetry_sysfs_fixture_rapl_cpufreq_hwmon)
{
    const char *root = cpu_fixture();
    setenv("GPUBENCH_SYSFS_ROOT", root, 1);
    setenv("GPUBENCH_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
    struct gb_tel_target t = {.vendor = "GenuineIntel", .pci_bus_id = ""};
    struct gb_tel_session *s = NULL;
    ASSERT_OK(gb_tel_open(&t, &s));
    struct gb_tel_source_status st[GB_TEL_NSRC];
    ASSERT(gb_tel_sources(s, st));
    ASSERT(!st[0].available);
    ASSERT_CONTAINS(st[0].reason, "no PCI bus id");
    ASSERT_MSG(st[1].available, "%s", st[1].reason);
    ASSERT_CONTAINS(st[1].reason, "rapl");

    struct gb_tel_reading r0, r1, r2;
    gb_tel_read(s, &r0);
    ASSERT_NEAR(r0.q[GB_TQ_CLOCK], 2500.0, 1e-9); /* (3000 + 2000 MHz) / 2 */
    ASSERT_NEAR(r0.q[GB_TQ_TEMP], 52.0, 1e-9);    /* coretemp's hottest; nvme ignored */
    ASSERT(isnan(r0.q[GB_TQ_POWER]));
    /* Package 0 wraps at 1 J: 900000 -> 100000 uJ is 0.2 J; package 1: 10 -> 20010 uJ. */
    put(root, "class/powercap/intel-rapl:0/energy_uj", "100000\n");
    put(root, "class/powercap/intel-rapl:1/energy_uj", "20010\n");
    put(root, "class/powercap/intel-rapl:0:0/energy_uj", "999999\n"); /* a subzone: ignored */
    gb_tel_read(s, &r1);
    ASSERT_NEAR(r1.energy_j - r0.energy_j, 0.22, 1e-9);
    put(root, "class/powercap/intel-rapl:0/energy_uj", "300000\n");
    gb_tel_read(s, &r2);
    ASSERT_NEAR(r2.energy_j - r0.energy_j, 0.42, 1e-9);
    /* A file that reads "-2400000" (strtoull's 2^64 - 2400000) or text is no reading: the
     * other CPU's clock stands; an absurd temperature (2^64 - 1 millidegrees) is none. */
    put(root, "devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "-2400000\n");
    gb_tel_read(s, &r2);
    ASSERT_NEAR(r2.q[GB_TQ_CLOCK], 3000.0, 1e-9);
    put(root, "devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "fast\n");
    gb_tel_read(s, &r2);
    ASSERT_NEAR(r2.q[GB_TQ_CLOCK], 3000.0, 1e-9);
    put(root, "devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "18446744073709551615\n");
    gb_tel_read(s, &r2);
    ASSERT(isnan(r2.q[GB_TQ_CLOCK]));
    gb_tel_close(s);

    struct gb_tel_machine m;
    memset(&m, 0, sizeof m);
    gb_tel_machine_read(&m);
    ASSERT(m.recorded);
    ASSERT_STR(m.governor, "performance");
    ASSERT_EQ(m.turbo, 0); /* no_turbo = 1 */
}

TEST(telemetry_sysfs_fixture_gpu_hwmon)
{
    /* An AMD GPU's hwmon (amdgpu): average power in uW, sclk and mclk in Hz, no energy counter. */
    const char *root = gb_test_tmpdir();
    const char *hw = "bus/pci/devices/0000:03:00.0/hwmon/hwmon4";
    char rel[256];
    mkdirs(root, hw);
#define HW(file, text) (snprintf(rel, sizeof rel, "%s/%s", hw, file), put(root, rel, text))
    HW("name", "amdgpu\n");
    HW("power1_average", "150000000\n");
    HW("freq1_input", "2100000000\n");
    HW("freq2_input", "1000000000\n");
    HW("temp1_input", "70000\n");
    HW("temp2_input", "81000\n");
#undef HW
    setenv("GPUBENCH_SYSFS_ROOT", root, 1);
    unsetenv("GPUBENCH_NVML_LIB");
    struct gb_tel_target t = {.vendor = "Advanced Micro Devices, Inc.",
                              .pci_bus_id = "0000:03:00.0"};
    struct gb_tel_session *s = NULL;
    ASSERT_OK(gb_tel_open(&t, &s));
    struct gb_tel_source_status st[GB_TEL_NSRC];
    ASSERT(gb_tel_sources(s, st));
    ASSERT_STR(st[0].reason, "not an NVIDIA device");
    ASSERT_MSG(st[1].available, "%s", st[1].reason);
    struct gb_tel_reading r[2];
    gb_tel_read(s, &r[0]);
    ASSERT_NEAR(r[0].q[GB_TQ_POWER], 150.0, 1e-9);
    ASSERT_NEAR(r[0].q[GB_TQ_CLOCK], 2100.0, 1e-9);
    ASSERT_NEAR(r[0].q[GB_TQ_MEM_CLOCK], 1000.0, 1e-9);
    ASSERT_NEAR(r[0].q[GB_TQ_TEMP], 81.0, 1e-9);
    ASSERT(isnan(r[0].energy_j));
    /* No counter: the energy is the integral of power, 150 W for 0.4 s. */
    gb_tel_read(s, &r[1]);
    r[0].t = 1.0;
    r[1].t = 1.4;
    const char *method;
    ASSERT_NEAR(gb_tel_energy(r, 2, &method), 60.0, 1e-9);
    ASSERT_STR(method, "power");
    gb_tel_close(s);
}

TEST(telemetry_absent_sources_say_why)
{
    setenv("GPUBENCH_SYSFS_ROOT", "/nonexistent-sysfs", 1);
    setenv("GPUBENCH_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
    struct gb_tel_target t = {.nvidia = true, .vendor = "NVIDIA", .pci_bus_id = "0000:17:00.0"};
    struct gb_tel_session *s = NULL;
    ASSERT_OK(gb_tel_open(&t, &s));
    struct gb_tel_source_status st[GB_TEL_NSRC];
    ASSERT(!gb_tel_sources(s, st));
    ASSERT_CONTAINS(st[0].reason, "cannot load /nonexistent/libnvidia-ml.so.1");
    ASSERT_CONTAINS(st[1].reason, "no hwmon files");
    struct gb_tel_sampler *sp = NULL;
    ASSERT_OK(gb_tel_sampler_start(s, 0.001, &sp));
    struct gb_tel_trace tr = {0};
    gb_tel_sampler_stop(sp, &tr);
    ASSERT(tr.on);
    ASSERT_EQ(tr.n, 0); /* nothing to read: no thread, no readings */
    gb_tel_trace_free(&tr);
    gb_tel_close(s);
    /* NVML whose init fails. */
    setenv("GPUBENCH_NVML_LIB", GB_TEST_FAKE_NVML, 1);
    setenv("GB_FAKE_NVML_INIT_FAIL", "1", 1);
    ASSERT_OK(gb_tel_open(&t, &s));
    gb_tel_sources(s, st);
    ASSERT(!st[0].available);
    ASSERT_CONTAINS(st[0].reason, "nvmlInit_v2: Driver Not Loaded (9)");
    gb_tel_close(s);
}

/* A measurement of n samples, each [k*0.02 + 0.005, k*0.02 + 0.015] s, with op_time k + 1 us,
 * batch 10, and the fake NVML's readings 0..n at t = k*0.02 (so that sample k runs in the state
 * of reading k). */
static void fake_measurement(struct gb_tel_session *s, size_t n, struct gb_measurement *m)
{
    memset(m, 0, sizeof *m);
    m->op_time = malloc(n * sizeof(double));
    m->tel.t0 = malloc(n * sizeof(double));
    m->tel.t1 = malloc(n * sizeof(double));
    m->tel.r = calloc(n + 1, sizeof *m->tel.r);
    ASSERT(m->op_time && m->tel.t0 && m->tel.t1 && m->tel.r);
    m->n = m->tel.nsamples = n;
    m->batch = 10;
    m->tel.on = true;
    gb_tel_sources(s, m->tel.src);
    for (size_t k = 0; k <= n; k++) {
        gb_tel_read(s, &m->tel.r[k]);
        m->tel.r[k].t = 0.02 * (double)k;
    }
    m->tel.n = n + 1;
    for (size_t k = 0; k < n; k++) {
        m->op_time[k] = 1e-6 * (double)(k + 1);
        m->tel.t0[k] = 0.02 * (double)k + 0.005;
        m->tel.t1[k] = 0.02 * (double)k + 0.015;
    }
}

static struct gb_tel_session *fake_session(const char *throttle)
{
    setenv("GPUBENCH_NVML_LIB", GB_TEST_FAKE_NVML, 1);
    setenv("GPUBENCH_SYSFS_ROOT", "/nonexistent-sysfs", 1);
    unsetenv("GB_FAKE_NVML_INIT_FAIL");
    if (throttle)
        setenv("GB_FAKE_NVML_THROTTLE", throttle, 1);
    else
        unsetenv("GB_FAKE_NVML_THROTTLE");
    struct gb_tel_target t = {.nvidia = true, .vendor = "NVIDIA", .pci_bus_id = "0000:17:00.0"};
    struct gb_tel_session *s = NULL;
    ASSERT_OK(gb_tel_open(&t, &s));
    struct gb_tel_source_status st[GB_TEL_NSRC];
    ASSERT_MSG(gb_tel_sources(s, st) && st[0].available, "nvml: %s", st[0].reason);
    return s;
}

TEST(telemetry_fake_nvml_throttle_marks_exactly_the_affected_samples)
{
    struct gb_tel_session *s = fake_session("4-6");
    struct gb_measurement m;
    fake_measurement(s, 30, &m);
    struct gb_case_ctx ctx = {0};
    ctx.op.bytes = 1e6; /* 1 MB per operation */
    struct gb_tel_cfg cfg = gb_tel_defaults;
    struct gb_result r = {0};
    ASSERT_OK(gb_result_telemetry(&r, &ctx, &m, &cfg, 5));
    ASSERT(r.tel.on);
    ASSERT_EQ(r.tel.nthrottled, 3);
    ASSERT_EQ(m.n, 30);
    ASSERT(r.tel.marks && r.tel.nmarks == 30);
    for (size_t k = 0; k < 30; k++)
        ASSERT_MSG(r.tel.marks[k] == (k >= 4 && k <= 6), "sample %zu mark %d", k, r.tel.marks[k]);
    ASSERT_CONTAINS(r.tel.note, "3 of 30 samples throttled");

    /* Energy by hand: readings 0..30, 20 ms apart, of a counter at 1000 J + 5 J a tick: steps
     * from reading 1 to 30 (0.58 s, over 20 intervals) at 250 W, over the 0.6 s window: 150 J.
     * 30 samples of 10 operations: 0.5 J per operation; 300 MB / 150 J = 0.002 GB/J. */
    ASSERT_STR(r.tel.energy_method, "counter");
    ASSERT_NEAR(r.tel.energy_j, 150.0, 1e-9);
    ASSERT_STR(r.tel.energy_note, "");
    ASSERT_NEAR(r.tel.window_s, 0.6, 1e-12);
    ASSERT_NEAR(r.tel.energy_per_op_j, 0.5, 1e-12);
    ASSERT_NEAR(r.tel.perf_per_watt, 300e6 * 1e-9 / 150.0, 1e-15);
    ASSERT_STR(r.tel.perf_per_watt_unit, "GB/s/W");
    ASSERT_EQ(r.tel.q[GB_TQ_POWER].n, 31);
    ASSERT_NEAR(r.tel.q[GB_TQ_POWER].mean, 250.0, 1e-9);
    ASSERT_NEAR(r.tel.q[GB_TQ_CLOCK].min, 1410.0, 1e-9);
    ASSERT_NEAR(r.tel.q[GB_TQ_CLOCK].max, 1980.0, 1e-9);
    ASSERT_NEAR(r.tel.q[GB_TQ_CLOCK].mean, (28 * 1980.0 + 3 * 1410.0) / 31, 1e-9);

    /* on_throttle: fail turns an ok result into a failed one that says why. */
    r.status = GB_STATUS_OK;
    cfg.on_throttle = GB_THROTTLE_FAIL;
    gb_result_throttle_verdict(&r, &cfg);
    ASSERT_EQ(r.status, GB_STATUS_FAILED);
    ASSERT_CONTAINS(r.reason, "throttled: 3 of 30 samples");

    /* The device state. */
    struct gb_tel_device_state ds;
    gb_tel_state(s, &ds);
    ASSERT_STR(ds.driver, "580.65.06");
    ASSERT_NEAR(ds.power_limit_w, 300.0, 1e-9);
    ASSERT_NEAR(ds.sm_app_clock_mhz, 1755.0, 1e-9);
    ASSERT_EQ(ds.pcie_gen, 5);
    ASSERT_EQ(ds.persistence, 1);
    ASSERT_EQ(ds.processes, 0);
    gb_tel_summary_free(&r.tel);
    gb_measurement_free(&m);
    gb_tel_close(s);
}

TEST(telemetry_discard_drops_the_throttled_samples)
{
    struct gb_tel_session *s = fake_session("4-6");
    struct gb_measurement m;
    fake_measurement(s, 30, &m);
    struct gb_case_ctx ctx = {0};
    ctx.op.flops = 2e9;
    struct gb_tel_cfg cfg = gb_tel_defaults;
    cfg.on_throttle = GB_THROTTLE_DISCARD;
    struct gb_result r = {0};
    ASSERT_OK(gb_result_telemetry(&r, &ctx, &m, &cfg, 5));
    ASSERT_EQ(r.tel.nthrottled, 3);
    ASSERT_EQ(r.tel.ndiscarded, 3);
    ASSERT_EQ(m.n, 27);
    ASSERT(r.tel.marks == NULL);
    /* The kept samples are 0-3 and 7-29 (op_time k + 1 us), in order. */
    for (size_t k = 0; k < 27; k++)
        ASSERT_NEAR(m.op_time[k] * 1e6, (double)(k < 4 ? k + 1 : k + 4), 1e-9);
    ASSERT_CONTAINS(r.tel.note, "discarded 3 throttled samples of 30");
    /* Energy is over the whole window, for the operations of every sample run in it:
     * 150 J / 300 operations; 300 x 2 GFLOP / 150 J = 4 GFLOP/J. */
    ASSERT_NEAR(r.tel.energy_per_op_j, 0.5, 1e-12);
    ASSERT_NEAR(r.tel.perf_per_watt, 4.0, 1e-12);
    ASSERT_STR(r.tel.perf_per_watt_unit, "GFLOP/s/W");
    gb_measurement_free(&m);
    gb_tel_close(s);
}

TEST(telemetry_discard_keeps_an_all_throttled_case_and_says_so)
{
    struct gb_tel_session *s = fake_session("0-100");
    struct gb_measurement m;
    fake_measurement(s, 24, &m);
    struct gb_case_ctx ctx = {0};
    struct gb_tel_cfg cfg = gb_tel_defaults;
    cfg.on_throttle = GB_THROTTLE_DISCARD;
    struct gb_result r = {0};
    ASSERT_OK(gb_result_telemetry(&r, &ctx, &m, &cfg, 5));
    ASSERT_EQ(r.tel.nthrottled, 24);
    ASSERT_EQ(r.tel.ndiscarded, 0);
    ASSERT_EQ(m.n, 24);
    ASSERT(r.tel.marks && r.tel.nmarks == 24);
    ASSERT_CONTAINS(r.tel.note, "kept all 24 samples: 24 throttled");
    /* A latency has no perf per watt; the energy per operation stands. */
    ASSERT(isnan(r.tel.perf_per_watt));
    ASSERT_NEAR(r.tel.energy_per_op_j, 120.0 / 240.0, 1e-12);
    gb_tel_summary_free(&r.tel);
    gb_measurement_free(&m);
    gb_tel_close(s);
}

TEST(telemetry_sampler_runs_on_its_thread)
{
    struct gb_tel_session *s = fake_session(NULL);
    struct gb_tel_sampler *sp = NULL;
    ASSERT_OK(gb_tel_sampler_start(s, 0.002, &sp));
    usleep(50000);
    struct gb_tel_trace tr = {0};
    gb_tel_sampler_stop(sp, &tr);
    /* The first reading, some from the thread, and the last one. */
    ASSERT_MSG(tr.n >= 4, "%zu readings", tr.n);
    for (size_t i = 1; i < tr.n; i++)
        ASSERT(tr.r[i].t >= tr.r[i - 1].t);
    ASSERT_NEAR(tr.r[tr.n - 1].energy_j - tr.r[0].energy_j, 5.0 * (double)(tr.n - 1), 1e-9);
    gb_tel_trace_free(&tr);
    gb_tel_close(s);
}

TEST(telemetry_profile_keys)
{
    struct gb_profile p;
    char err[512];
    const char *base = "suites:\n  - suite: launch\n";
    ASSERT_OK(gb_profile_load_string(gb_suites_builtin(), base, "t", NULL, 0, &p, err, sizeof err));
    ASSERT(p.telemetry.enabled && p.runs[0].telemetry.enabled);
    ASSERT_NEAR(p.telemetry.period, 0.020, 1e-12);
    ASSERT_EQ(p.telemetry.on_throttle, GB_THROTTLE_KEEP);
    gb_profile_free(&p);
    const char *y = "telemetry: {period: 5ms, on_throttle: discard, clock_floor: 0.8}\n"
                    "suites:\n  - suite: launch\n";
    ASSERT_OK(gb_profile_load_string(gb_suites_builtin(), y, "t", NULL, 0, &p, err, sizeof err));
    ASSERT_NEAR(p.runs[0].telemetry.period, 0.005, 1e-12);
    ASSERT_EQ(p.runs[0].telemetry.on_throttle, GB_THROTTLE_DISCARD);
    ASSERT_NEAR(p.runs[0].telemetry.clock_floor, 0.8, 1e-12);
    gb_profile_free(&p);
    struct gb_override off = {"telemetry.enabled", "false"};
    ASSERT_OK(gb_profile_load_string(gb_suites_builtin(), y, "t", &off, 1, &p, err, sizeof err));
    ASSERT(!p.runs[0].telemetry.enabled);
    gb_profile_free(&p);
    ASSERT_OK(gb_profile_load_string(gb_suites_builtin(),
                                     "telemetry: off\nsuites:\n  - suite: launch\n", "t", NULL, 0,
                                     &p, err, sizeof err));
    ASSERT(!p.runs[0].telemetry.enabled);
    gb_profile_free(&p);
    ASSERT_EQ(gb_profile_load_string(gb_suites_builtin(),
                                     "telemetry: {on_throttle: maybe}\nsuites:\n  - suite: "
                                     "launch\n",
                                     "t", NULL, 0, &p, err, sizeof err),
              GB_ECONFIG);
    ASSERT_CONTAINS(err, "t:1:26: telemetry.on_throttle: expected keep, discard or fail");
    ASSERT_EQ(gb_profile_load_string(gb_suites_builtin(),
                                     "telemetry: {rate: 1}\nsuites:\n  - suite: launch\n", "t",
                                     NULL, 0, &p, err, sizeof err),
              GB_ECONFIG);
    ASSERT_CONTAINS(err, "unknown key \"rate\" in telemetry");
}

/* ---- end to end: gpubench run on PoCL with fixtures ----------------------------------------- */

static const char e2e_profile[] =
    "name: tel\n"
    "measure: {warmup_runs: 1, warmup_time: 1ms, min_samples: 5, max_samples: 10,\n"
    "          max_noise: 0.5, max_time: 300ms, min_sample_time: 10ms}\n"
    "suites:\n"
    "  - suite: memory\n"
    "    params: {op: [copy, triad], type: float, wg: 256, size: 1MiB}\n"
    "  - suite: launch\n"
    "    params: {op: latency}\n";

struct advancer {
    const char *root;
    atomic_bool stop;
    atomic_int steps;
};

/* Advances RAPL package 0 by 0.01 J each 2 ms, wrapping at 1 J (after 20 ms, then every
 * 200 ms: less than one range between two readings 20 ms apart), until told to stop. */
static void *advance(void *arg)
{
    struct advancer *a = arg;
    uint64_t e = 900000;
    char p[2048], v[32];
    snprintf(p, sizeof p, "%s/class/powercap/intel-rapl:0/energy_uj", a->root);
    while (!atomic_load(&a->stop)) {
        e = (e + 10000) % 1000000;
        snprintf(v, sizeof v, "%llu\n", (unsigned long long)e);
        char tmp[2100];
        snprintf(tmp, sizeof tmp, "%s.tmp", p);
        gb_test_write_file(tmp, v);
        rename(tmp, p);
        atomic_fetch_add(&a->steps, 1);
        usleep(2000);
    }
    return NULL;
}

TEST_TIMEOUT(telemetry_run_records_sources_energy_and_machine, 180)
{
    const char *root = cpu_fixture();
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/run", root);
    mkdirs(root, "run");
    char prof[1200];
    snprintf(prof, sizeof prof, "%s/tel.yaml", dir);
    gb_test_write_file(prof, e2e_profile);
    struct advancer a = {.root = root};
    atomic_init(&a.stop, false);
    atomic_init(&a.steps, 0);
    pthread_t th;
    ASSERT(pthread_create(&th, NULL, advance, &a) == 0);
    int rc = sh("GPUBENCH_SYSFS_ROOT=%s GPUBENCH_NVML_LIB=/nonexistent/nvml.so "
                "POCL_DEVICES=pthread %s run %s -q -b opencl -d 0 -o %s/on.json 2>&1",
                root, GB_TEST_EXE, prof, dir);
    atomic_store(&a.stop, true);
    pthread_join(th, NULL);
    ASSERT_MSG(rc == 0, "run: exit %d: %s", rc, out);

    char path[1300];
    snprintf(path, sizeof path, "%s/on.json", dir);
    struct gb_results rs = {0};
    ASSERT_OK(gb_results_read(path, &rs));
    ASSERT(rs.run.machine.recorded);
    ASSERT_STR(rs.run.machine.governor, "performance");
    ASSERT_EQ(rs.nresults, 3);
    /* A case's window lasts 50 ms or more, the helper thread advances the counter every 2 ms
     * when it runs; on a loaded machine it may not run at all during one short window (PoCL's
     * threads spin during the launch case), so the energy of one case may be 0, never of all. */
    double total = 0.0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_MSG(r->status == GB_STATUS_OK, "%s: %s", r->case_name, r->reason);
        ASSERT(r->tel.on);
        ASSERT(!r->tel.src[0].available);
        ASSERT_MSG(r->tel.src[1].available, "%s", r->tel.src[1].reason);
        ASSERT(r->tel.nreadings >= 2);
        ASSERT_NEAR(r->tel.q[GB_TQ_CLOCK].mean, 2500.0, 1e-9);
        ASSERT_STR(r->tel.energy_method, "counter");
        /* Whole 0.01 J steps of the counter, wrapped or not. */
        ASSERT_MSG(r->tel.energy_j >= 0 && r->tel.energy_j < 100.0, "%g J", r->tel.energy_j);
        ASSERT_NEAR(r->tel.energy_j * 100.0, round(r->tel.energy_j * 100.0), 1e-6);
        total += r->tel.energy_j;
        if (!(r->tel.energy_j > 0)) {
            ASSERT(isnan(r->tel.energy_per_op_j) && isnan(r->tel.perf_per_watt));
            continue;
        }
        /* energy per op = energy / (samples x batch); GB/J = samples x batch x bytes / energy. */
        double ops = (double)r->nsamples * (double)r->batch;
        ASSERT_NEAR(r->tel.energy_per_op_j, r->tel.energy_j / ops, 1e-12 * r->tel.energy_j);
        if (strcmp(r->suite, "memory") == 0)
            ASSERT_NEAR(r->tel.perf_per_watt, ops * r->bytes_per_op * 1e-9 / r->tel.energy_j,
                        1e-9 * r->tel.perf_per_watt);
        else
            ASSERT(isnan(r->tel.perf_per_watt));
    }
    ASSERT_MSG(total > 0, "the counter never advanced in a window (%d steps)",
               atomic_load(&a.steps));
    gb_results_free(&rs);

    /* The report's per-watt chart takes the measured figure, without a price sheet, and says so:
     * triad's perf per watt set to 0.125 GB/J in a copy of the file. */
    rc = sh("cd %s && python3 -c \"import json\n"
            "d=json.load(open('on.json'))\n"
            "for r in d['results']:\n"
            "  if r['case']=='triad': r['telemetry']['perf_per_watt']=0.125; r['regime']='memory'\n"
            "json.dump(d,open('w.json','w'))\" && %s report w.json -o rep 2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report: exit %d: %s", rc, out);
    char *md = gb_test_slurp_in(dir, "rep/report.md");
    ASSERT_CONTAINS(md, "triad GB/s per W: best ");
    ASSERT_CONTAINS(md, "with 0.125.");
    ASSERT_CONTAINS(md, "triad GB/s per W, ");
    ASSERT_CONTAINS(md, ": measured (telemetry energy).");
    free(md);
}

TEST_TIMEOUT(telemetry_absent_or_off_leaves_results_otherwise_unchanged, 180)
{
    const char *dir = gb_test_tmpdir();
    char prof[1200];
    snprintf(prof, sizeof prof, "%s/tel.yaml", dir);
    gb_test_write_file(prof, e2e_profile);
    int rc = sh("GPUBENCH_SYSFS_ROOT=/nonexistent GPUBENCH_NVML_LIB=/nonexistent/nvml.so "
                "POCL_DEVICES=pthread %s run %s -q -b opencl -d 0 -o %s/on.json 2>&1 && "
                "POCL_DEVICES=pthread %s run %s -q -b opencl -d 0 --set telemetry.enabled=false "
                "-o %s/off.json 2>&1",
                GB_TEST_EXE, prof, dir, GB_TEST_EXE, prof, dir);
    ASSERT_MSG(rc == 0, "run: exit %d: %s", rc, out);
    /* The same keys in every result but "telemetry", the same cases and statuses. */
    rc = sh("cd %s && python3 -c \"import json\n"
            "a=json.load(open('on.json'));b=json.load(open('off.json'))\n"
            "assert 'machine' in a['run'] and 'machine' not in b['run']\n"
            "for x,y in zip(a['results'],b['results']):\n"
            "  t=x.pop('telemetry'); assert 'telemetry' not in y\n"
            "  assert sorted(x)==sorted(y), (sorted(x),sorted(y))\n"
            "  assert (x['suite'],x['case'],x['status'])==(y['suite'],y['case'],y['status'])\n"
            "  s=t['sources']; assert [q['available'] for q in s]==[False,False], s\n"
            "  print(s[0]['reason']+' | '+s[1]['reason'])\n"
            "assert len(a['results'])==len(b['results'])==3\n\" 2>&1",
            dir);
    ASSERT_MSG(rc == 0, "%s", out);
    ASSERT_CONTAINS(out, "no RAPL energy (/nonexistent/class/powercap)");
    ASSERT_CONTAINS(out, "no PCI bus id");
}

/* ---- compare ---------------------------------------------------------------------------------- */

static void one_result_file(const char *path, const char *driver, double power_limit,
                            size_t throttled)
{
    struct gb_results rs = {0};
    struct gb_device_info info = {0};
    snprintf(info.name, sizeof info.name, "Fake GPU");
    snprintf(info.driver, sizeof info.driver, "CUDA 13.0");
    int idx;
    ASSERT_OK(gb_results_add_device(&rs, "cuda", 0, &info, &idx));
    snprintf(rs.run.gpubench_version, sizeof rs.run.gpubench_version, "0.1.0");
    rs.run.machine.recorded = true;
    rs.run.machine.turbo = -1;
    rs.run.machine.ndev = 1;
    gb_tel_state(NULL, &rs.run.machine.dev[0]);
    rs.run.machine.dev[0].device = 0;
    snprintf(rs.run.machine.dev[0].driver, sizeof rs.run.machine.dev[0].driver, "%s", driver);
    rs.run.machine.dev[0].power_limit_w = power_limit;
    struct gb_result r = {0};
    snprintf(r.suite, sizeof r.suite, "launch");
    snprintf(r.case_name, sizeof r.case_name, "latency");
    snprintf(r.backend, sizeof r.backend, "cuda");
    snprintf(r.metric, sizeof r.metric, "latency");
    snprintf(r.unit, sizeof r.unit, "us");
    r.better = GB_BETTER_LOWER;
    r.params.n = 1;
    r.params.name[0] = "op";
    r.params.v[0].type = GB_V_STR;
    snprintf(r.params.v[0].s, sizeof r.params.v[0].s, "latency");
    r.status = GB_STATUS_OK;
    r.verified = true;
    r.nsamples = 10;
    r.samples = malloc(10 * sizeof(double));
    for (int i = 0; i < 10; i++)
        r.samples[i] = 5.0 + 0.01 * i;
    gb_stats_compute(r.samples, 10, &r.stats);
    r.value = r.stats.median;
    r.tel.on = true;
    r.tel.nthrottled = throttled;
    r.tel.energy_j = NAN;
    ASSERT_OK(gb_results_add(&rs, &r));
    ASSERT_OK(gb_results_write(&rs, path));
    gb_results_free(&rs);
}

TEST(telemetry_compare_warns_when_driver_power_or_throttling_differ)
{
    const char *dir = gb_test_tmpdir();
    char a[1100], b[1100], c[1100];
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    snprintf(c, sizeof c, "%s/c.json", dir);
    one_result_file(a, "575.57.08", 300.0, 0);
    one_result_file(b, "580.65.06", 250.0, 1);
    one_result_file(c, "575.57.08", 300.0, 0);
    int rc = sh("%s compare %s %s 2>&1", GB_TEST_EXE, a, b);
    ASSERT_MSG(rc == 0, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "warning: machine: driver version differs on cuda:0: base 575.57.08, "
                         "new 580.65.06");
    ASSERT_CONTAINS(out, "warning: machine: power limit differs on cuda:0: base 300.0 W, new "
                         "250.0 W");
    ASSERT_CONTAINS(out, "warning: machine: throttling differs: base 0 throttled results, new 1");
    rc = sh("%s compare %s %s 2>&1", GB_TEST_EXE, a, c);
    ASSERT_MSG(rc == 0, "exit %d: %s", rc, out);
    ASSERT_EQ(gb_test_count(out, "warning: machine"), 0);
}

/* telemetry.energy_window: after its samples a case runs on until the window is that long; the
 * samples and their statistics are the same kind, and the energy per operation counts the
 * operations run after them too. */
TEST_TIMEOUT(telemetry_energy_window_lengthens_the_window_not_the_samples, 180)
{
    const char *root = cpu_fixture();
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/ew", root);
    mkdirs(root, "ew");
    char prof[1200];
    snprintf(prof, sizeof prof, "%s/ew.yaml", dir);
    gb_test_write_file(prof, "name: ew\n"
                             "measure: {warmup_runs: 1, warmup_time: 1ms, min_samples: 3, "
                             "max_samples: 3, max_time: 300ms, min_sample_time: 5ms}\n"
                             "telemetry: {energy_window: 600ms}\n"
                             "suites:\n"
                             "  - suite: memory\n"
                             "    params: {op: triad, type: float, wg: 256, size: 1MiB}\n");
    int rc = sh("GPUBENCH_SYSFS_ROOT=%s GPUBENCH_NVML_LIB=/nonexistent/nvml.so "
                "POCL_DEVICES=pthread %s run %s -q -b opencl -d 0 -o %s/on.json 2>&1",
                root, GB_TEST_EXE, prof, dir);
    ASSERT_MSG(rc == 0, "run: exit %d: %s", rc, out);
    char path[1300];
    snprintf(path, sizeof path, "%s/on.json", dir);
    struct gb_results rs = {0};
    ASSERT_OK(gb_results_read(path, &rs));
    ASSERT_EQ(rs.nresults, 1);
    const struct gb_result *r = &rs.results[0];
    ASSERT_MSG(r->status == GB_STATUS_OK, "%s", r->reason);
    ASSERT_EQ(r->nsamples, 3);
    ASSERT_MSG(r->tel.window_s >= 0.6, "window %g s", r->tel.window_s);
    ASSERT_MSG(r->tel.extra_ops > 0, "no operations after the samples");
    if (r->tel.energy_j > 0) {
        double ops = (double)r->nsamples * (double)r->batch + (double)r->tel.extra_ops;
        ASSERT_NEAR(r->tel.energy_per_op_j, r->tel.energy_j / ops, 1e-12 * r->tel.energy_j);
    }
    gb_results_free(&rs);
    /* The key's bounds. */
    rc = sh("%s validate %s --set telemetry.energy_window=11s 2>&1", GB_TEST_EXE, prof);
    ASSERT_EQ(rc, 2);
    ASSERT_CONTAINS(out, "telemetry.energy_window: expected a duration from 0s to 10s");
}
