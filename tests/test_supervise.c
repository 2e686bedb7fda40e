/* The watchdog of a supervised run (run/supervise.h): hangs, crashes and Ctrl-C, through the
 * gpubench binary on the real OpenCL device (PoCL here), with the test hooks GPUBENCH_TEST_HANG
 * and GPUBENCH_TEST_CRASH. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "base/error.h"
#include "results/results.h"
#include "run/supervise.h"
#include "test.h"

static char out[1 << 18];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

/* Four quick transfer cases. */
static const char four_cases[] = "measure: {min_samples: 3, max_samples: 5, max_time: 50ms, "
                                 "warmup_runs: 1}\n"
                                 "suites:\n"
                                 "  - suite: transfer\n"
                                 "    params: {op: [h2d, d2h], memory: pinned, mode: async, "
                                 "size: [4KiB, 64KiB]}\n";

static void paths(const char *stem, char prof[GB_PATH_JOIN], char res[GB_PATH_JOIN])
{
    const char *dir = gb_test_tmpdir();
    snprintf(prof, 4200, "%s/%s.yaml", dir, stem);
    snprintf(res, 4200, "%s/%s.json", dir, stem);
    gb_test_write_file(prof, four_cases);
}

/* Case `bad` of the four is failed with a reason containing `why`; the others are ok; the file
 * is complete (not interrupted, 4 of 4 cases). */
static void expect_one_failed(const char *res, size_t bad, const char *why)
{
    struct gb_results rs;
    ASSERT_OK(gb_results_read(res, &rs));
    ASSERT(!rs.run.interrupted);
    ASSERT_U64(rs.run.cases_planned, ==, 4);
    ASSERT_U64(rs.nresults, ==, 4);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        if (i == bad) {
            ASSERT_MSG(r->status == GB_STATUS_FAILED, "case %zu: %s", i, gb_status_name(r->status));
            ASSERT_CONTAINS(r->reason, why);
            /* The failed case is recorded as the case it was: its suite, params and device. */
            ASSERT_STR(r->suite, "transfer");
            ASSERT_STR(r->case_name, i < 2 ? "h2d" : "d2h");
            ASSERT_EQ(r->device_index, 0);
        } else {
            ASSERT_MSG(r->status == GB_STATUS_OK, "case %zu: %s", i, r->reason);
        }
    }
    gb_results_free(&rs);
}

TEST_TIMEOUT(supervise_hung_case_times_out_and_the_run_goes_on, 120)
{
    char prof[GB_PATH_JOIN], res[GB_PATH_JOIN];
    paths("hang", prof, res);
    double t0 = gb_test_now_s();
    int rc = sh("%s=1 %s run %s -d 0 -q --set measure.case_timeout=3s -o %s 2>&1", GB_TEST_HANG_ENV,
                GB_TEST_EXE, prof, res);
    ASSERT_MSG(rc == 1, "exit %d:\n%s", rc, out);
    ASSERT(gb_test_now_s() - t0 < 60);
    ASSERT_CONTAINS(out, "timed out after 3 s");
    expect_one_failed(res, 1, "timed out after 3 s");
}

/* The limit is on silence: a case that runs three times its limit but finishes a sample every
 * few milliseconds (a tuning search, a long sweep of subcases) is not killed. */
TEST_TIMEOUT(supervise_case_longer_than_its_limit_that_keeps_measuring_is_not_killed, 120)
{
    char prof[GB_PATH_JOIN], res[GB_PATH_JOIN];
    gb_test_profile_files("long",
                          "measure: {min_samples: 100000, max_samples: 100000, max_time: 6s, "
                          "max_noise: 0.000001, warmup_runs: 1, min_sample_time: 5ms, "
                          "case_timeout: 2s}\n"
                          "suites:\n"
                          "  - suite: transfer\n"
                          "    params: {op: h2d, memory: pinned, mode: async, size: 4KiB}\n",
                          prof, res, sizeof prof);
    double t0 = gb_test_now_s();
    int rc = sh("%s run %s -d 0 -q -o %s 2>&1", GB_TEST_EXE, prof, res);
    double wall = gb_test_now_s() - t0;
    ASSERT_MSG(rc == 0, "exit %d after %.1f s:\n%s", rc, wall, out);
    ASSERT_MSG(wall > 4.0, "the case ended after %.1f s: its 6 s budget was not used", wall);
    struct gb_results rs;
    ASSERT_OK(gb_results_read(res, &rs));
    ASSERT_U64(rs.nresults, ==, 1);
    ASSERT_MSG(rs.results[0].status == GB_STATUS_OK, "%s", rs.results[0].reason);
    gb_results_free(&rs);
}

/* calibrate runs its cases under the same watchdog: a case that hangs in every run is failed in
 * each run's file with the reason, said on stderr, left out of the analysis, and calibrate ends
 * normally. */
TEST_TIMEOUT(supervise_calibrate_hung_case_times_out_and_goes_on, 120)
{
    char prof[GB_PATH_JOIN], res[GB_PATH_JOIN];
    paths("calhang", prof, res);
    const char *dir = gb_test_tmpdir();
    double t0 = gb_test_now_s();
    int rc = sh("%s=1 %s calibrate %s -n 2 -d 0 -q --set measure.case_timeout=3s --dir %s/runs "
                "2>&1",
                GB_TEST_HANG_ENV, GB_TEST_EXE, prof, dir);
    ASSERT_MSG(rc == 0, "exit %d:\n%s", rc, out);
    ASSERT(gb_test_now_s() - t0 < 60);
    ASSERT_EQ(gb_test_count(out, "failed: timed out after 3 s (measure.case_timeout)"), 2);
    ASSERT_CONTAINS(out, "run 2: transfer h2d op=h2d");
    ASSERT_CONTAINS(out, "A/A calibration: 2 runs");
    for (int k = 1; k <= 2; k++) {
        snprintf(res, sizeof res, "%s/runs/run-%d.json", dir, k);
        expect_one_failed(res, 1, "timed out after 3 s");
    }
}

TEST_TIMEOUT(supervise_crashed_worker_fails_its_case_only, 120)
{
    char prof[GB_PATH_JOIN], res[GB_PATH_JOIN];
    paths("crash", prof, res);
    int rc = sh("%s=2 %s run %s -d 0 -q -o %s 2>&1", GB_TEST_CRASH_ENV, GB_TEST_EXE, prof, res);
    ASSERT_MSG(rc == 1, "exit %d:\n%s", rc, out);
    expect_one_failed(res, 2, "worker killed by signal 11 (SIGSEGV)");
}

/* Starts `gpubench run prof -o res` with GPUBENCH_TEST_HANG=hang, output to /dev/null. */
static pid_t start_run(const char *prof, const char *res, const char *hang)
{
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        dup2(devnull, 2);
        setenv(GB_TEST_HANG_ENV, hang, 1);
        execl(GB_TEST_EXE, GB_TEST_EXE, "run", prof, "-d", "0", "-o", res, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* SIGINT to pid; waits for it; its exit status, the seconds it took into *took. */
static int interrupt(pid_t pid, double *took)
{
    double t0 = gb_test_now_s();
    kill(pid, SIGINT);
    int st = 0;
    waitpid(pid, &st, 0);
    *took = gb_test_now_s() - t0;
    ASSERT(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* Ctrl-C while a case hangs (its limit over a minute away): the run ends at once, with the
 * cases before it. */
TEST_TIMEOUT(supervise_sigint_during_a_hung_case_exits_at_once, 120)
{
    char prof[GB_PATH_JOIN], res[GB_PATH_JOIN];
    paths("sigint", prof, res);
    pid_t pid = start_run(prof, res, "1");
    /* Wait until the first case is in the file, and a little more: case 1 hangs. */
    struct gb_results rs = {0};
    bool one = false;
    for (int i = 0; i < 600 && !one; i++) {
        usleep(50000);
        if (gb_results_read(res, &rs) == 0) {
            one = rs.nresults == 1;
            gb_results_free(&rs);
        }
    }
    ASSERT(one);
    usleep(500000);
    double took;
    ASSERT_EQ(interrupt(pid, &took), 130);
    ASSERT_MSG(took < 2.0, "took %.2f s to stop", took);
    ASSERT_OK(gb_results_read(res, &rs));
    ASSERT(rs.run.interrupted);
    ASSERT_U64(rs.run.cases_planned, ==, 4);
    ASSERT_U64(rs.nresults, ==, 1);
    ASSERT(rs.results[0].status == GB_STATUS_OK);
    gb_results_free(&rs);
}

/* The file written before the first case says the run did not finish and how many cases it
 * plans; an existing results file is not replaced by it, and is left as it was when the run is
 * stopped before its first case ends. */
TEST_TIMEOUT(supervise_placeholder_never_replaces_a_results_file, 120)
{
    char prof[GB_PATH_JOIN], res[GB_PATH_JOIN], partial[GB_PATH_JOIN + 64];
    paths("placeholder", prof, res);
    snprintf(partial, sizeof partial, "%s.partial", res);
    unlink(res);
    pid_t pid = start_run(prof, res, "0"); /* the first case hangs */
    struct gb_results rs = {0};
    int rd = -1;
    for (int i = 0; i < 400 && rd != 0; i++) {
        usleep(50000);
        rd = gb_results_read(res, &rs);
    }
    ASSERT_OK(rd);
    ASSERT(rs.run.interrupted);
    ASSERT_U64(rs.run.cases_planned, ==, 4);
    ASSERT_U64(rs.nresults, ==, 0);
    gb_results_free(&rs);
    double took;
    ASSERT_EQ(interrupt(pid, &took), 130);

    /* Now a complete results file is there: a run stopped before its first case leaves it. */
    ASSERT_EQ(sh("%s run %s -d 0 -q -o %s 2>&1", GB_TEST_EXE, prof, res), 0);
    char *before = gb_test_slurp(res);
    ASSERT(before);
    pid = start_run(prof, res, "0");
    struct stat st;
    for (int i = 0; i < 400 && stat(partial, &st) != 0; i++)
        usleep(50000);
    ASSERT_MSG(stat(partial, &st) == 0, "no %s while the first case runs", partial);
    char *during = gb_test_slurp(res);
    ASSERT_STR(during, before);
    free(during);
    ASSERT_EQ(interrupt(pid, &took), 130);
    char *after = gb_test_slurp(res);
    ASSERT_STR(after, before);
    ASSERT_MSG(stat(partial, &st) != 0, "%s left behind", partial);
    free(after);
    free(before);
}

TEST(supervise_case_timeout_is_a_positive_duration)
{
    char prof[GB_PATH_JOIN], res[GB_PATH_JOIN];
    paths("timeout-key", prof, res);
    ASSERT_EQ(sh("%s validate %s --set measure.case_timeout=0s 2>&1", GB_TEST_EXE, prof), 2);
    ASSERT_CONTAINS(out, "case_timeout");
    ASSERT_EQ(sh("%s validate %s --set measure.case_timeout=2min 2>&1", GB_TEST_EXE, prof), 0);
}

/* validate estimates a case's work and warns when it is likely to outlive its limit. */
TEST(supervise_validate_warns_about_a_case_too_long_for_its_limit)
{
    const char *dir = gb_test_tmpdir();
    char prof[GB_PATH_JOIN];
    snprintf(prof, sizeof prof, "%s/long.yaml", dir);
    gb_test_write_file(
        prof, "suites:\n"
              "  - suite: compute\n"
              "    params: {prec: f32, iters: 16777216}\n"
              "  - suite: memory\n"
              "    params: {op: copy, size: 64MiB}\n"
              "  - suite: gemm\n"
              "    params: {prec: f32, impl: library, shape: [256, 65536, 1000x1000x4000000]}\n");
    /* The time warnings (the two GEMMs' footprints may warn too, by this host's memory). */
    ASSERT_EQ(sh("%s validate %s 2>&1", GB_TEST_EXE, prof), 0);
    ASSERT_EQ(gb_test_count(out, "one launch is about"), 3);
    ASSERT_CONTAINS(out, "iters=16777216");
    /* gemm's shape, "N" or "MxNxK": 2 M N K operations. */
    ASSERT_CONTAINS(out, "shape=65536x65536x65536");
    ASSERT_CONTAINS(out, "about 5.63e+05 GFLOP");
    ASSERT_CONTAINS(out, "shape=1000x1000x4000000");
    ASSERT_CONTAINS(out, "about 8e+03 GFLOP");
    ASSERT_CONTAINS(out, "measure.case_timeout");
    /* A limit long enough: no warning, but for the 65536^3 GEMM on a CPU device. */
    ASSERT_EQ(sh("%s validate %s --set measure.case_timeout=60min 2>&1", GB_TEST_EXE, prof), 0);
    ASSERT_EQ(gb_test_count(out, "one launch is about"), 1);
    ASSERT_CONTAINS(out, "shape=65536x65536x65536");
    ASSERT_CONTAINS(out, "limit (measure.case_timeout) on a CPU device");
    /* The shipped profiles raise none. */
    ASSERT_EQ(sh("%s validate %s/configs/quick.yaml 2>&1", GB_TEST_EXE, GB_TEST_SRCDIR), 0);
    ASSERT_EQ(gb_test_count(out, "warning:"), 0);
}

/* A supervised run (the binary) and an in-process run (gb_run_plan) of one profile give the same
 * results file shape: the same cases in the same order, on the same device entries, with the
 * same figures, including results a suite records inside a case (tuning), multi-device cases
 * (peer, scaling with its speedup against the one-device case) and figures derived across cases
 * (the batching knee). Values differ run to run; the shape must not. */
TEST_TIMEOUT(supervise_results_match_an_in_process_run, 300)
{
    static const char yaml[] =
        "measure: {min_samples: 3, max_samples: 5, max_time: 50ms, warmup_runs: 1}\n"
        "suites:\n"
        "  - suite: transfer\n"
        "    params: {op: h2d, memory: pinned, mode: async, size: [4KiB, 64KiB]}\n"
        "  - suite: batching\n"
        "    params: {op: copies, mode: [one, each], count: 4, size: [4KiB, 64KiB]}\n"
        "  - suite: tuning\n"
        "    params: {kernel: dot, size: 65536, search: anneal, budget: 3}\n"
        "  - suite: peer\n"
        "    params: {size: 64KiB}\n"
        "  - suite: scaling\n"
        "    params: {workload: triad, mode: strong, ndev: [1, 2], size: 1MiB}\n"
        "  - suite: launch\n"
        "    params: {op: latency}\n";
    char prof[GB_PATH_JOIN], res[GB_PATH_JOIN];
    const char *dir = gb_test_profile_files("same", yaml, prof, res, sizeof prof);
    struct gb_results a, b;
    gb_test_run_profile(yaml, "all", &a);
    int rc = sh("cd %s && %s run %s -b opencl -q -o %s 2>&1", dir, GB_TEST_EXE, prof, res);
    ASSERT_MSG(rc == 0 || rc == 1, "exit %d:\n%s", rc, out);
    ASSERT_OK(gb_results_read(res, &b));
    ASSERT(!b.run.interrupted);
    ASSERT_U64(b.run.cases_planned, >=, 8);
    ASSERT_U64(a.ndevices, ==, b.ndevices);
    for (size_t d = 0; d < a.ndevices; d++) {
        ASSERT_STR(a.devices[d].backend, b.devices[d].backend);
        ASSERT_EQ(a.devices[d].index, b.devices[d].index);
    }
    /* The tuning search's configurations depend on what it measures: its results are only
     * counted; every other result must match in place. */
    const struct gb_result *xs[256], *ys[256];
    size_t nx = 0, ny = 0, tx = 0, ty = 0;
    for (size_t i = 0; i < a.nresults && nx < 256; i++)
        if (strcmp(a.results[i].suite, "tuning") == 0)
            tx++;
        else
            xs[nx++] = &a.results[i];
    for (size_t i = 0; i < b.nresults && ny < 256; i++)
        if (strcmp(b.results[i].suite, "tuning") == 0)
            ty++;
        else
            ys[ny++] = &b.results[i];
    ASSERT_U64(nx, ==, ny);
    ASSERT_U64(tx, >=, 1);
    ASSERT_U64(ty, >=, 1);
    bool scaled = false;
    for (size_t i = 0; i < nx; i++) {
        const struct gb_result *x = xs[i], *y = ys[i];
        char px[1024], py[1024];
        gb_params_format(&x->params, px, sizeof px);
        gb_params_format(&y->params, py, sizeof py);
        ASSERT_STR(x->suite, y->suite);
        ASSERT_STR(x->case_name, y->case_name);
        ASSERT_STR(px, py);
        ASSERT_EQ(x->device_index, y->device_index);
        ASSERT_U64(x->nset, ==, y->nset);
        for (size_t k = 0; k < x->nset; k++)
            ASSERT_EQ(x->set[k], y->set[k]);
        ASSERT_MSG(x->status == y->status, "%s %s: %s / %s", x->suite, px, x->reason, y->reason);
        ASSERT_MSG(x->nfigures == y->nfigures, "%s %s: %zu figures in-process, %zu supervised",
                   x->suite, px, x->nfigures, y->nfigures);
        for (size_t k = 0; k < x->nfigures; k++)
            ASSERT_STR(x->figures[k].name, y->figures[k].name);
        scaled |= gb_test_figure(y, "speedup") != NULL;
        ASSERT_U64(x->nsamples > 0, ==, y->nsamples > 0);
    }
    if (a.ndevices > 1)
        ASSERT_MSG(scaled, "no speedup figure in the supervised run");
    gb_results_free(&a);
    gb_results_free(&b);
}
