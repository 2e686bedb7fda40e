/* The burn suite on PoCL: every precision the device has runs and verifies (the others are skips
 * saying why), its timeline and figures are there and sane; a corrupted product is counted and
 * fails the case naming its iteration; the fake NVML's throttle shows as a throttle reason and a
 * clock drop, and without any telemetry source those figures are absent, not zero. */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyses/report_model.h"
#include "base/util.h"
#include "results/results.h"
#include "test.h"

/* A short budget: the burn itself is `duration` seconds in setup. */
#define BURN_HEAD                                                                                 \
    "measure: {warmup_runs: 1, warmup_time: 0, min_samples: 2, max_samples: 3, max_time: 200ms, " \
    "min_sample_time: 0}\n"

/* Every figure of the telemetry that burn reports (absent without a source). */
static const char *const tel_figures[] = {"clock_start",    "clock_end", "clock_drop",
                                          "temp_end",       "power_end", "time_to_throttle",
                                          "throttle_reason"};

static void no_telemetry_sources(void)
{
    setenv("GPUBENCH_SYSFS_ROOT", "/nonexistent-sysfs", 1);
    setenv("GPUBENCH_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
}

TEST_TIMEOUT(suite_burn_every_precision_verifies_or_says_why, 120)
{
    no_telemetry_sources();
    struct gb_results rs;
    gb_test_run_suite(BURN_HEAD, "burn",
                      "{dtype: [f32, f16, bf16, tf32, f8, i8], duration: 1, n: 64}", &rs);
    ASSERT_EQ(rs.nresults, 6);
    size_t ok = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        printf("%-5s %-8s %s\n", r->case_name, gb_status_name(r->status), r->reason);
        if (r->status == GB_STATUS_SKIPPED) {
            ASSERT_MSG(strlen(r->reason) > 10, "%s: a skip without its reason", r->case_name);
            continue;
        }
        gb_test_assert_verified(r);
        ok++;
        /* The headline is the timeline: one rate per window, in GFLOP/s (GOP/s for i8). */
        ASSERT_STR(r->metric, "sustained");
        ASSERT_STR(r->unit, strcmp(r->case_name, "i8") == 0 ? "GOP/s" : "GFLOP/s");
        const double win = gb_test_need_figure(r, "window")->v[0];
        ASSERT_NEAR(win, 0.1, 1e-12); /* duration / 10 */
        /* 1 s of 0.1 s windows: the last may be cut (closed at half a window or more). */
        ASSERT_MSG(r->nsamples >= 5 && r->nsamples <= 11, "%zu windows", r->nsamples);
        const double mn = gb_test_need_figure(r, "sustained_min")->v[0],
                     md = gb_test_need_figure(r, "sustained_median")->v[0];
        ASSERT_MSG(mn > 0 && mn <= md, "min %g, median %g", mn, md);
        ASSERT_NEAR(md, r->value, 1e-9 * md);
        for (size_t k = 0; k < r->nsamples; k++)
            ASSERT(r->samples[k] >= mn);
        ASSERT_EQ(gb_test_need_figure(r, "errors")->v[0], 0);
        ASSERT(gb_test_need_figure(r, "iterations")->v[0] >= (double)r->nsamples);
        /* No source: the telemetry figures are absent and the result says why. */
        for (size_t k = 0; k < sizeof tel_figures / sizeof tel_figures[0]; k++)
            ASSERT_MSG(!gb_test_figure(r, tel_figures[k]), "%s present without telemetry",
                       tel_figures[k]);
        ASSERT_CONTAINS(gb_test_need_figure(r, "telemetry")->text, "absent");
    }
    /* PoCL: f32 through CLBlast, bf16 and i8 through kernels/gemm.cl. */
    ASSERT_MSG(ok >= 1, "no precision ran");
    gb_results_free(&rs);
}

TEST_TIMEOUT(suite_burn_corrupted_product_is_counted_and_fails, 120)
{
    no_telemetry_sources();
    setenv("GPUBENCH_TEST_BURN_CORRUPT", "7", 1);
    struct gb_results rs;
    gb_test_run_suite(BURN_HEAD, "burn", "{dtype: [f32, i8], duration: 0.5, n: 64}", &rs);
    unsetenv("GPUBENCH_TEST_BURN_CORRUPT");
    ASSERT_EQ(rs.nresults, 2);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        if (r->status == GB_STATUS_SKIPPED)
            continue;
        printf("caught: %s\n", r->reason);
        ASSERT_EQ(r->status, GB_STATUS_FAILED);
        ASSERT_CONTAINS(r->reason, "failed-burn: 1 words");
        ASSERT_CONTAINS(r->reason, "first in iteration 7 of");
    }
    gb_results_free(&rs);
}

/* The one result of a run of rs; the test is skipped with its reason when the case was
 * skipped (no BLAS library on this machine). */
static const struct gb_result *only_result(struct gb_results *rs)
{
    ASSERT_EQ(rs->nresults, 1);
    const struct gb_result *r = &rs->results[0];
    if (r->status == GB_STATUS_SKIPPED) {
        char why[sizeof r->reason];
        snprintf(why, sizeof why, "%s", r->reason);
        gb_results_free(rs);
        SKIP("%s", why);
    }
    return r;
}

TEST_TIMEOUT(suite_burn_fake_nvml_throttle_and_clock_drop, 120)
{
    setenv("GPUBENCH_SYSFS_ROOT", "/nonexistent-sysfs", 1);
    setenv("GPUBENCH_NVML_LIB", GB_TEST_FAKE_NVML, 1);
    unsetenv("GB_FAKE_NVML_INIT_FAIL");
    /* The fake's readings: tick 0 at the start, one per window after; from tick 3 on the clock
     * is 1410 MHz with HwSlowdown (tests/fake_nvml.c). */
    setenv("GB_FAKE_NVML_THROTTLE", "3-1000000", 1);
    setenv("GPUBENCH_TEST_BURN_NVML_PCI", "0000:17:00.0", 1);
    struct gb_results rs;
    gb_test_run_suite(BURN_HEAD, "burn", "{dtype: f32, duration: 1, n: 64}", &rs);
    unsetenv("GPUBENCH_TEST_BURN_NVML_PCI");
    unsetenv("GB_FAKE_NVML_THROTTLE");
    const struct gb_result *r = only_result(&rs);
    gb_test_assert_verified(r);
    ASSERT_NEAR(gb_test_need_figure(r, "clock_start")->v[0], 1980, 1e-9);
    ASSERT_NEAR(gb_test_need_figure(r, "clock_end")->v[0], 1410, 1e-9);
    ASSERT_NEAR(gb_test_need_figure(r, "clock_drop")->v[0], 100 * (1980.0 - 1410) / 1980, 1e-9);
    ASSERT_STR(gb_test_need_figure(r, "throttle_reason")->text, "HwSlowdown");
    /* The third window's reading: about three windows of 0.1 s from the start. */
    const double ttt = gb_test_need_figure(r, "time_to_throttle")->v[0];
    ASSERT_MSG(ttt > 0.2 && ttt < 1.0, "time_to_throttle %g s", ttt);
    ASSERT_NEAR(gb_test_need_figure(r, "temp_end")->v[0], 60, 1e-9);
    ASSERT_NEAR(gb_test_need_figure(r, "power_end")->v[0], 250, 1e-9);
    ASSERT(!gb_test_figure(r, "telemetry"));
    gb_results_free(&rs);

    /* No throttle in the fake: a reason "none", the clock steady. */
    setenv("GPUBENCH_TEST_BURN_NVML_PCI", "0000:17:00.0", 1);
    gb_test_run_suite(BURN_HEAD, "burn", "{dtype: f32, duration: 0.5, n: 64}", &rs);
    unsetenv("GPUBENCH_TEST_BURN_NVML_PCI");
    r = &rs.results[0];
    gb_test_assert_verified(r);
    ASSERT_STR(gb_test_need_figure(r, "throttle_reason")->text, "none");
    ASSERT_NEAR(gb_test_need_figure(r, "clock_drop")->v[0], 0, 1e-12);
    ASSERT(!gb_test_figure(r, "time_to_throttle"));
    gb_results_free(&rs);
}

TEST_TIMEOUT(suite_burn_pulse_alternates_load_and_idle, 120)
{
    no_telemetry_sources();
    struct gb_results rs;
    gb_test_run_suite(BURN_HEAD, "burn", "{dtype: f32, duration: 1, pulse: 0.2, n: 64}", &rs);
    const struct gb_result *r = only_result(&rs);
    gb_test_assert_verified(r);
    /* 1 s of 0.2 s on, 0.2 s off: load phases at 0, 0.4 and 0.8 s; the cycle counter counts
     * each phase begun. */
    const double cycles = gb_test_need_figure(r, "pulse_cycles")->v[0];
    ASSERT_MSG(cycles >= 2 && cycles <= 4, "%g cycles", cycles);
    ASSERT(r->nsamples >= 2);
    gb_results_free(&rs);
}

TEST(suite_burn_bad_values_are_refused_at_load)
{
    gb_test_validate_refuses("suites:\n  - suite: burn\n    params: {duration: 0}\n",
                             "seconds in (0, 86400]");
    struct gb_results rs;
    no_telemetry_sources();
    gb_test_run_suite(BURN_HEAD, "burn", "{dtype: f32, duration: 0.1, n: 40}", &rs);
    ASSERT_EQ(rs.results[0].status, GB_STATUS_SKIPPED);
    ASSERT_CONTAINS(rs.results[0].reason, "multiple of 16");
    gb_results_free(&rs);
}

TEST_TIMEOUT(suite_burn_report_draws_the_timeline, 120)
{
    no_telemetry_sources();
    struct gb_results rs;
    gb_test_run_suite(BURN_HEAD, "burn", "{dtype: f32, duration: 0.5, n: 64}", &rs);
    ASSERT_EQ(rs.nresults, 1);
    if (rs.results[0].status == GB_STATUS_SKIPPED) { /* no BLAS */
        char why[sizeof rs.results[0].reason];
        snprintf(why, sizeof why, "%s", rs.results[0].reason);
        gb_results_free(&rs);
        SKIP("%s", why);
    }
    gb_test_assert_verified(&rs.results[0]);
    const size_t windows = rs.results[0].nsamples;
    const char *dir = gb_test_tmpdir();
    char path[1024], out[4096];
    snprintf(path, sizeof path, "%s/burn.json", dir);
    ASSERT_OK(gb_results_write(&rs, path));
    gb_results_free(&rs);
    int rc = gb_test_shf(out, sizeof out, "%s report %s -o %s/rep 2>&1", GB_TEST_EXE, path, dir);
    ASSERT_MSG(rc == 0, "report: %s", out);
    /* One point per window, each its window's end (0.05 s windows) and rate. */
    char *csv = gb_test_slurp_in(dir, "rep/data/burn_timeline.csv");
    ASSERT(csv);
    ASSERT_EQ(gb_test_count(csv, "\n") - 1, windows);
    ASSERT_CONTAINS(csv, "\n0.05,");
    ASSERT_CONTAINS(csv, "f32 (GFLOP/s)");
    free(csv);
}

/* A long series of windows (200,000: a 55 h burn of 1 s windows) with its slowest and fastest
 * window planted: at most GB_BURN_CHART_POINTS points, x increasing to the burn's end, every mean
 * within its bar, the extremes kept as bars, and the windows' mean kept (groups of equal size
 * but the last, weighed by their windows); up to the bound, one point per window as before. */
TEST(burn_chart_points_are_bounded_and_keep_the_extremes)
{
    const size_t n = 200000, max = GB_BURN_CHART_POINTS;
    const double w = 1.0;
    double *y = malloc(n * sizeof *y), *x = malloc(max * sizeof *x),
           *mean = malloc(max * sizeof *mean), *lo = malloc(max * sizeof *lo),
           *hi = malloc(max * sizeof *hi);
    ASSERT(y && x && mean && lo && hi);
    double total = 0;
    for (size_t j = 0; j < n; j++) {
        y[j] = 100.0 + 5.0 * sin((double)j / 997.0);
        y[j] = j == 123457 ? 3.0 : j == 150001 ? 900.0 : y[j];
        total += y[j];
    }
    const size_t np = gb__burn_points(y, n, w, max, x, mean, lo, hi);
    ASSERT(np > 0 && np <= max);
    double mn = INFINITY, mx = -INFINITY, sum = 0;
    const size_t g = (n + max - 1) / max;
    for (size_t p = 0; p < np; p++) {
        ASSERT(p == 0 || x[p] > x[p - 1]);
        ASSERT(lo[p] <= mean[p] && mean[p] <= hi[p]);
        mn = lo[p] < mn ? lo[p] : mn;
        mx = hi[p] > mx ? hi[p] : mx;
        sum += mean[p] * (double)(p + 1 < np ? g : n - g * (np - 1));
    }
    ASSERT_NEAR(x[np - 1], (double)n * w, 0);
    ASSERT_NEAR(mn, 3.0, 0);
    ASSERT_NEAR(mx, 900.0, 0);
    ASSERT_NEAR(sum, total, 1e-9 * total);
    /* Below the bound: the windows themselves, each at its end. */
    ASSERT_EQ(gb__burn_points(y, 10, 0.5, max, x, mean, lo, hi), 10);
    for (size_t j = 0; j < 10; j++) {
        ASSERT_NEAR(x[j], 0.5 * (double)(j + 1), 0);
        ASSERT(mean[j] == y[j] && lo[j] == y[j] && hi[j] == y[j]);
    }
    ASSERT_EQ(gb__burn_points(y, n, w, 0, x, mean, lo, hi), 0);
    /* Rates at the edge of a double (a hostile or broken results file): the mean of a group of
     * finite rates is finite and within its bar. */
    for (size_t j = 0; j < 4000; j++)
        y[j] = j % 3 == 2 ? -1e308 : 1e308;
    ASSERT_EQ(gb__burn_points(y, 4000, w, max, x, mean, lo, hi), max);
    for (size_t p = 0; p < max; p++)
        ASSERT_MSG(isfinite(mean[p]) && lo[p] <= mean[p] && mean[p] <= hi[p],
                   "point %zu: mean %g in [%g, %g]", p, mean[p], lo[p], hi[p]);
    free(y);
    free(x);
    free(mean);
    free(lo);
    free(hi);
}

/* The report of a burn of 200,000 windows (made up: no device runs): its timeline's data file
 * has at most GB_BURN_CHART_POINTS rows, holds the slowest and fastest window as a bar, and
 * stays small (a row a window was 41 MB). */
TEST_TIMEOUT(burn_report_of_a_long_burn_is_bounded, 60)
{
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    snprintf(rs.run.host, sizeof rs.run.host, "h");
    struct gb_device_info d = {0};
    snprintf(d.name, sizeof d.name, "pthread-test");
    int idx;
    ASSERT_OK(gb_results_add_device(&rs, "opencl", 0, &d, &idx));
    struct gb_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.suite, sizeof r.suite, "burn");
    snprintf(r.case_name, sizeof r.case_name, "f32");
    snprintf(r.backend, sizeof r.backend, "opencl");
    snprintf(r.metric, sizeof r.metric, "throughput");
    snprintf(r.unit, sizeof r.unit, "GFLOP/s");
    r.device_index = idx;
    r.status = GB_STATUS_OK;
    r.verified = true;
    r.params.n = 1;
    r.params.name[0] = "dtype";
    r.params.v[0] = (struct gb_value){.type = GB_V_STR};
    snprintf(r.params.v[0].s, sizeof r.params.v[0].s, "f32");
    r.nsamples = 200000;
    r.samples = malloc(r.nsamples * sizeof *r.samples);
    ASSERT(r.samples);
    for (size_t j = 0; j < r.nsamples; j++)
        r.samples[j] = j == 4321 ? 2.5 : j == 199999 ? 777.0 : 100.0 + (double)(j % 7);
    r.value = r.stats.median = r.stats.mean = 103;
    r.stats.n = r.nsamples;
    r.nfigures = 1;
    snprintf(r.figures[0].name, sizeof r.figures[0].name, "window");
    snprintf(r.figures[0].unit, sizeof r.figures[0].unit, "s");
    r.figures[0].n = 1;
    r.figures[0].v[0] = 1.0;
    ASSERT_OK(gb_results_add(&rs, &r));
    const char *dir = gb_test_tmpdir();
    char path[1024], out[4096];
    snprintf(path, sizeof path, "%s/longburn.json", dir);
    ASSERT_OK(gb_results_write(&rs, path));
    gb_results_free(&rs);
    int rc =
        gb_test_shf(out, sizeof out, "%s report %s -o %s/longrep 2>&1", GB_TEST_EXE, path, dir);
    ASSERT_MSG(rc == 0, "report: %s", out);
    char *csv = gb_test_slurp_in(dir, "longrep/data/burn_timeline.csv");
    ASSERT(csv);
    const size_t rows = gb_test_count(csv, "\n") - 1;
    ASSERT_MSG(rows > 0 && rows <= GB_BURN_CHART_POINTS, "%zu rows", rows);
    ASSERT_CONTAINS(csv, "# x,y,line,bar_lo,bar_hi");
    ASSERT_CONTAINS(csv, ",2.5,");  /* the slowest window, a bar's low end */
    ASSERT_CONTAINS(csv, ",777\n"); /* the fastest, the last bar's high end */
    ASSERT_CONTAINS(csv, "\n200000,");
    ASSERT_MSG(strlen(csv) < 100000, "%zu bytes", strlen(csv));
    free(csv);
}

/* Ctrl-C during a burn ends the run as it ends any (docs/suites.md, burn): the burns that
 * finished are in the results file, the one in flight is not recorded (the supervisor ends its
 * worker at once), the run is marked interrupted and exits 130. */
TEST_TIMEOUT(suite_burn_interrupt_keeps_the_finished_burns, 120)
{
    char prof[GB_PATH_JOIN], res[GB_PATH_JOIN];
    gb_test_profile_files("burnint",
                          BURN_HEAD "suites:\n  - suite: burn\n"
                                    "    params: {dtype: f32, n: 64, duration: [0.3, 100]}\n",
                          prof, res, sizeof prof);
    no_telemetry_sources();
    /* The first burn on disk, then the second's loop under way. */
    pid_t pid;
    const bool some = gb_test_run_until_a_result(prof, res, &pid);
    struct gb_results rs;
    usleep(500000);
    kill(pid, SIGINT);
    int st = 0;
    waitpid(pid, &st, 0);
    ASSERT(some);
    ASSERT(WIFEXITED(st));
    ASSERT_EQ(WEXITSTATUS(st), 130);
    ASSERT_OK(gb_results_read(res, &rs));
    ASSERT(rs.run.interrupted);
    ASSERT_EQ(rs.nresults, 1);
    gb_test_assert_verified(&rs.results[0]);
    ASSERT_NEAR(gb_params_float(&rs.results[0].params, "duration"), 0.3, 1e-12);
    gb_results_free(&rs);
}
