/* gpubench diag: the level-1 run on this machine's device (every test named with its status),
 * the device's state the fake NVML reports judged as health tests (a narrow link FAIL, a lowered
 * power limit and throttled samples WARN), planted failures (exit 3), a missing device, a suite
 * this build lacks (SKIPPED, never PASS), the verdict's rule and exit codes, the JUnit output,
 * and the Slurm health check on a one-node cluster (scripts/test-slurm.sh healthcheck). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/diag.h"
#include "backends/telemetry.h"
#include "base/doc.h"
#include "base/util.h"
#include "outputs/diag_out.h"
#include "results/results.h"
#include "run/config.h"
#include "suites/suites.h"
#include "test.h"

static char out[1 << 16];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

/* The line of test `name` in a CSV document (diag,NAME,STATUS,...), or NULL. */
static const char *row(const char *name)
{
    static char line[2048];
    char key[256];
    snprintf(key, sizeof key, "diag,%s,", name);
    const char *p = strstr(out, key);
    if (!p)
        return NULL;
    size_t n = strcspn(p, "\n");
    snprintf(line, sizeof line, "%.*s", (int)n, p);
    return line;
}

#define ASSERT_ROW(name, status)                                                                   \
    do {                                                                                           \
        const char *r_ = row(name);                                                                \
        ASSERT_MSG(r_, "no test %s in: %s", name, out);                                            \
        ASSERT_MSG(                                                                                \
            strncmp(r_ + strlen("diag,") + strlen(name) + 1, status ",", strlen(status) + 1) == 0, \
            "%s is not %s: %s", name, status, r_);                                                 \
    } while (0)

/* The fake NVML's device state (tests/fake_nvml.c, through GPUBENCH_NVML_LIB: the real dlopen
 * path), read under load, put on device 0 of the results file `from` as `name`; `throttled`
 * marks the first result's samples throttled as telemetry records the fake's throttled ticks
 * (SM clock 1410 of 1980 MHz, HwSlowdown; test_telemetry follows that path sample by sample). */
static void plant_state(const char *dir, const char *from, const char *name, bool throttled)
{
    struct gb_results rs;
    gb_test_fake_nvml_state(dir, from, true, &rs);
    for (size_t i = 0; i < rs.nresults; i++) {
        rs.results[i].tel.on = true;
        rs.results[i].tel.nreadings = 5; /* what the fake answered while the result ran */
        rs.results[i].tel.nthrottled = throttled && i == 0 ? 3 : 0;
    }
    char p[1100];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    ASSERT_OK(gb_results_write(&rs, p));
    gb_results_free(&rs);
}

/* Level 1 on this machine's device: every test named with its status, exit 0, nothing that
 * could not run a PASS; then the same results judged again (--from) with the fake NVML's
 * states and with planted failures, and the JUnit document valid XML. */
TEST_TIMEOUT(diag_level_1_names_every_test_and_judges_health, 240)
{
    const char *dir = gb_test_tmpdir();
    double t0 = gb_test_now_s();
    int rc = sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
                " %s diag --level 1 -q -f csv --results r.json 2>&1",
                dir, GB_TEST_EXE);
    printf("level 1: %.1f s wall\n", gb_test_now_s() - t0);
    ASSERT_MSG(rc == 0, "diag exit %d: %s", rc, out);
    static const char *const ran[] = {
        "diag/1/devices",      "diag/1/driver_opencl", "diag/1/profile", "diag/1/transfer_h2d",
        "diag/1/transfer_d2h", "diag/1/memory_triad",  "diag/1/gemm_f32"};
    for (size_t i = 0; i < sizeof ran / sizeof ran[0]; i++)
        ASSERT_ROW(ran[i], "PASS");
    /* PoCL has no NVML: the driver's items could not be read, never a pass. */
    ASSERT_ROW("diag/1/health_pcie_link", "SKIPPED");
    ASSERT_ROW("diag/1/health_ecc", "SKIPPED");
    ASSERT_ROW("diag/1/health_xid", "SKIPPED");
    /* Telemetry was on but no source read the device: no throttling seen because nothing was
     * seen (landed: PASS, "0 of 5 results with throttled samples"). */
    ASSERT_ROW("diag/1/health_throttle", "SKIPPED");
    /* The expected figure carries its unit, as the measured one does. */
    const char *tr = row("diag/1/memory_triad");
    const char *ex = tr ? strstr(tr, "against the expected ") : NULL;
    if (ex)
        ASSERT_MSG(strstr(ex, " GB/s"), "the expected figure has no unit: %s", tr);
    /* No power limit read: the note says what is missing in plain words. */
    ASSERT_CONTAINS(out, "the driver reports no power limit, or not its default");

    /* The fake NVML's healthy device: the items read and passed. */
    plant_state(dir, "r.json", "healthy.json", false);
    rc = sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
            " %s diag -q -f csv --from healthy.json 2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "diag exit %d: %s", rc, out);
    ASSERT_ROW("diag/1/health_pcie_link", "PASS");
    ASSERT_ROW("diag/1/health_ecc", "PASS");
    ASSERT_ROW("diag/1/health_power_limit", "PASS");
    ASSERT_ROW("diag/1/health_throttle", "PASS");
    /* The link at x8 under load: FAIL, named, exit 3. */
    setenv("GB_FAKE_NVML_PCIE_WIDTH", "8", 1);
    plant_state(dir, "r.json", "x8.json", false);
    unsetenv("GB_FAKE_NVML_PCIE_WIDTH");
    rc = sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR " %s diag -q -f csv --from x8.json 2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "diag exit %d: %s", rc, out);
    ASSERT_ROW("diag/1/health_pcie_link", "FAIL");
    ASSERT_CONTAINS(out, "Gen5 x8 of Gen5 x16");
    /* The verdict line (text: CSV holds the tables alone) names it. */
    rc = sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR " %s diag -q --from x8.json 2>&1", dir,
            GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "diag exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "level 1: FAIL (exit 3)");
    ASSERT_CONTAINS(out, "FAIL diag/1/health_pcie_link");
    /* A lowered power limit (300 W of 700 W) and throttled samples: WARN, listed, exit 0. */
    setenv("GB_FAKE_NVML_POWER_DEFAULT_MW", "700000", 1);
    plant_state(dir, "r.json", "power.json", true);
    unsetenv("GB_FAKE_NVML_POWER_DEFAULT_MW");
    rc = sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
            " %s diag -q -f csv --from power.json 2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "diag exit %d: %s", rc, out);
    ASSERT_ROW("diag/1/health_power_limit", "WARN");
    ASSERT_CONTAINS(out, "the power limit is lowered: 300 W of 700 W");
    ASSERT_ROW("diag/1/health_throttle", "WARN");
    rc = sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR " %s diag -q --from power.json 2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "diag exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "level 1: WARN (exit 0)");
    ASSERT_CONTAINS(out, "WARN diag/1/health_power_limit");

    /* A planted failure: exit 3, the test named in the verdict; JUnit valid and a failure. */
    rc = sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
            " GPUBENCH_TEST_DIAG_FAIL=memory_triad %s diag -q -f csv --from r.json 2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "diag exit %d: %s", rc, out);
    ASSERT_ROW("diag/1/memory_triad", "FAIL");
    rc = sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
            " GPUBENCH_TEST_DIAG_FAIL=memory_triad %s diag -q -f junit -o d.xml --from "
            "r.json 2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "diag exit %d: %s", rc, out);
    if (sh("command -v xmllint") == 0) {
        rc = sh("xmllint --noout %s/d.xml 2>&1", dir);
        ASSERT_MSG(rc == 0, "xmllint: %s", out);
    }
    ASSERT_EQ(sh("grep -q '<failure' %s/d.xml", dir), 0);
    ASSERT_EQ(sh("grep -q 'name=\"diag/1/memory_triad\"' %s/d.xml", dir), 0);
    ASSERT_EQ(sh("grep -q '<skipped' %s/d.xml", dir), 0);
}

/* Level 2's memory test (the suite memtest, optional in diag-2.yaml): a build without it
 * records diag/2/memtest SKIPPED with the loader's reason, never PASS; with it, its tests are
 * its cases'. A device that is not there: the test "devices" FAILS with the reason, exit 3. */
TEST_TIMEOUT(diag_what_could_not_run_is_never_a_pass, 120)
{
    const char *dir = gb_test_tmpdir();
    int rc = sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
                " %s diag --level 1 -q -d no-such-device -f csv 2>&1",
                dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "diag exit %d: %s", rc, out);
    ASSERT_ROW("diag/1/devices", "FAIL");
    ASSERT_CONTAINS(out, "no device");
    ASSERT(!strstr(out, "diag/1/memory_triad,PASS"));
    /* A level-2 results file with nothing of level 2's suites but memory (1 MiB: quick) and
     * the memory test's entry in its profile: --from judges it without running. */
    rc = sh("cd %s && %s run %s/configs/diag-2.yaml -q -s memory --set memory.params.size=1MiB "
            "--set measure.max_time=20ms -o r.json 2>&1",
            dir, GB_TEST_EXE, GB_TEST_SRCDIR);
    ASSERT_MSG(rc == 0, "run exit %d: %s", rc, out);
    rc = sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
            " %s diag --level 2 -q -f csv --from r.json 2>&1",
            dir, GB_TEST_EXE);
    if (!gb_suite_table_find(gb_suites_builtin(), "memtest")) {
        ASSERT_ROW("diag/2/memtest", "SKIPPED");
        ASSERT_CONTAINS(out, "unknown suite \"\"memtest\"\"");
    } else {
        ASSERT(!row("diag/2/memtest"));
    }
    ASSERT(!strstr(out, "memtest,PASS"));
    /* Level 3's burn and power pulse, absent here: SKIPPED; --duration is level 3's alone. */
    rc = sh("cd %s && %s run %s/configs/diag-3.yaml -q -s memory --set memory.params.size=1MiB "
            "--set measure.max_time=20ms -o r3.json 2>&1",
            dir, GB_TEST_EXE, GB_TEST_SRCDIR);
    ASSERT_MSG(rc == 0, "run exit %d: %s", rc, out);
    rc = sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
            " %s diag --level 3 --duration 20s -q -f csv --from r3.json 2>&1",
            dir, GB_TEST_EXE);
    if (!gb_suite_table_find(gb_suites_builtin(), "burn"))
        ASSERT_ROW("diag/3/burn", "SKIPPED");
    ASSERT(!strstr(out, "burn,PASS"));
    /* Beyond the burn suite's 24 h a phase: --duration's usage error, not a --set's. */
    rc = sh("%s diag --level 3 --duration 200000s 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "diag exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "--duration wants a time from 2 s to 48 h");
    rc = sh("%s diag --level 1 --duration 20s 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "diag exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "--duration is for --level 3");
}

/* A memory test that its time budget cut short (figure coverage below 1) passed on that share
 * only: WARN naming the share and of what, never PASS; diag's exit stays 0 (a warning). The
 * results are a real run of the suite (walking ones over half the free memory in a 50 ms
 * budget) by a level-2 profile of that one entry (configs/diag-2.yaml of a source tree of the
 * test's own: GPUBENCH_SOURCE_DIR), judged with --from. */
TEST_TIMEOUT(diag_memtest_cut_by_its_budget_is_a_warn, 120)
{
    if (!gb_suite_table_find(gb_suites_builtin(), "memtest"))
        return; /* a build without the suite: nothing to judge */
    const char *dir = gb_test_tmpdir_with(
        "p.yaml", "name: diag-2\n" /* a level-2 run's results, as --from wants */
                  "measure: {warmup_runs: 0, warmup_time: 0, min_samples: 1, max_samples: 1, "
                  "max_time: 1ms, min_sample_time: 0}\n"
                  "suites:\n"
                  "  - suite: memtest\n"
                  "    params: {pattern: walking_ones, fraction: 0.5, budget: 0.05}\n");
    int rc = sh("cd %s && mkdir configs && mv p.yaml configs/diag-2.yaml && %s run "
                "configs/diag-2.yaml -q -o r.json 2>&1",
                dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "run exit %d: %s", rc, out);
    rc = sh("cd %s && GPUBENCH_SOURCE_DIR=%s %s diag --level 2 -q -f csv --from r.json 2>&1", dir,
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "diag exit %d: %s", rc, out);
    ASSERT_ROW("diag/2/profile", "PASS");
    ASSERT_ROW("diag/2/memtest_walking_ones", "WARN");
    ASSERT_CONTAINS(row("diag/2/memtest_walking_ones"), "of 0.5 x free memory (host ");
    ASSERT_CONTAINS(row("diag/2/memtest_walking_ones"), "in the 0.05s budget (figure coverage ");
    ASSERT_CONTAINS(row("diag/2/memtest_walking_ones"), "verified, but tested ");
}

/* The names of the tests of the CSV document in out, one a line, in order, into buf. */
static void test_names(char *buf, size_t len)
{
    buf[0] = '\0';
    for (const char *p = strstr(out, "\ndiag,"); p; p = strstr(p + 1, "\ndiag,")) {
        const char *name = p + strlen("\ndiag,");
        gb_appendf(buf, len, "%.*s\n", (int)strcspn(name, ","), name);
    }
}

/* --from judges a diag run of its own level alone: another level's results or another
 * profile's (quick's) are a usage error (exit 2) naming what the file holds, never a PASS. A
 * file of the level lists every test a live run lists (JUnit sees the same names): the cases it
 * has no result of ERROR "not run: not in the results file" (exit 1: a level is never passed on
 * what it did not run), the driver and devices tests as the file recorded its devices, the
 * profile PASS where the file ran this build's text of it. A result of none of the level's
 * cases (a --set run, an edited copy under the level's name) is its test's ERROR. */
TEST_TIMEOUT(diag_from_judges_its_own_level_and_lists_every_test, 120)
{
    const char *dir = gb_test_tmpdir_with(
        "c.yaml", "name: collective\n"
                  "measure: {warmup_runs: 0, min_samples: 3, max_samples: 3, max_time: 20ms}\n"
                  "suites:\n  - suite: memory\n    params: {op: triad, size: 1MiB}\n");
    int rc = sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
                " %s diag --level 1 -q -f csv --results live.json 2>&1",
                dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "diag exit %d: %s", rc, out);
    static char live[8192], from[8192];
    test_names(live, sizeof live);
    ASSERT_CONTAINS(live, "diag/1/transfer_h2d\n");
    rc = sh("cd %s && %s run %s/configs/diag-1.yaml -q -s memory --set measure.max_time=20ms "
            "-o r1.json 2>&1 && %s run c.yaml -q -o c.json 2>&1",
            dir, GB_TEST_EXE, GB_TEST_SRCDIR, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "run exit %d: %s", rc, out);
    /* Another level's results, another profile's: usage, one line naming what the file is. */
    rc = sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
            " %s diag --level 2 -q --from r1.json 2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "diag exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "--from r1.json holds a level-1 diag run (profile diag-1), not level "
                         "2's (diag-2): judge it with --level 1\n");
    ASSERT(!strstr(out, "PASS"));
    rc = sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
            " %s diag --level 2 -q --from c.json 2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "diag exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "--from c.json holds a run of the profile collective, not a level-2 "
                         "diag run (profile diag-2)\n");
    rc = sh("cd %s && %s run %s/configs/quick.yaml -q -s memory --set memory.params.size=1MiB "
            "--set measure.max_time=20ms -o q.json 2>&1 && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
            " %s diag -q --from q.json 2>&1",
            dir, GB_TEST_EXE, GB_TEST_SRCDIR, GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "diag exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "--from q.json holds a run of the profile quick, not a level-1 diag run "
                         "(profile diag-1)\n");
    ASSERT(!strstr(out, "PASS"));
    /* The live run's own results: the same tests, in the same order. */
    rc = sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
            " %s diag --level 1 -q -f csv --from live.json 2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "diag exit %d: %s", rc, out);
    test_names(from, sizeof from);
    ASSERT_STR(from, live);
    ASSERT_ROW("diag/1/driver_opencl", "PASS");
    ASSERT_CONTAINS(row("diag/1/devices"), "1 device (as the results file records): opencl:0 ");
    ASSERT_ROW("diag/1/profile", "PASS");
    ASSERT_CONTAINS(row("diag/1/profile"), "the results file ran this build's diag-1 ");
    /* Memory alone (run -s memory): the rest not run, ERROR saying so, never a skip; the
     * verdict a CSV row too. */
    rc = sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
            " %s diag --level 1 -q -f csv --from r1.json 2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 1, "diag exit %d: %s", rc, out);
    test_names(from, sizeof from);
    ASSERT_STR(from, live);
    ASSERT_ROW("diag/1/memory_triad", "PASS");
    ASSERT_ROW("diag/1/transfer_h2d", "ERROR");
    ASSERT_ROW("diag/1/gemm_f32", "ERROR");
    ASSERT_CONTAINS(row("diag/1/gemm_f32"), "not run: not in the results file");
    ASSERT_CONTAINS(out, "\nlevel,,,,1,ERROR,1,");
    /* The whole's reason said once. */
    ASSERT(!strstr(out, "not judged: not judged"));
    /* The level's profile run with a weaker case (--set: a 1 MiB triad for its 64 MiB): the
     * test not run as the level defines it, ERROR naming the params, never a PASS. */
    rc = sh("cd %s && %s run %s/configs/diag-1.yaml -q -s memory --set memory.params.size=1MiB "
            "--set measure.max_time=20ms -o s1.json 2>&1 && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
            " %s diag -q -f csv --from s1.json 2>&1",
            dir, GB_TEST_EXE, GB_TEST_SRCDIR, GB_TEST_EXE);
    ASSERT_MSG(rc == 1, "diag exit %d: %s", rc, out);
    ASSERT_ROW("diag/1/profile", "PASS");
    ASSERT_ROW("diag/1/memory_triad", "ERROR");
    ASSERT_CONTAINS(row("diag/1/memory_triad"), "not run as level 1 defines it: the results "
                                                "file's memory op=triad type=float wg=256 "
                                                "size=1MiB ");
    /* Another profile under level 1's name (a file diag-1.yaml, its name its base name, with
     * memory alone): the profile a WARN naming both texts, the level's other tests not run. */
    rc = sh("cd %s && mkdir -p copy && printf 'measure: {warmup_runs: 0, max_time: 20ms}\n"
            "suites:\n  - suite: memory\n    params: {op: triad, size: 1MiB}\n' > "
            "copy/diag-1.yaml && %s run copy/diag-1.yaml -q -o e.json 2>&1 && "
            "GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR " %s diag -q -f csv --from e.json 2>&1",
            dir, GB_TEST_EXE, GB_TEST_EXE);
    ASSERT_MSG(rc == 1, "diag exit %d: %s", rc, out);
    ASSERT_ROW("diag/1/profile", "WARN");
    ASSERT_CONTAINS(row("diag/1/profile"), "the results file ran a profile diag-1 of another "
                                           "text, copy/diag-1.yaml (sha256 ");
    ASSERT_ROW("diag/1/transfer_h2d", "ERROR");
    ASSERT_ROW("diag/1/gemm_f32", "ERROR");
    ASSERT_ROW("diag/1/memory_triad", "ERROR"); /* 1 MiB, not the level's 64 MiB */
    ASSERT_CONTAINS(out, "\nlevel,,,,1,ERROR,1,");
}

/* diag's OpenMetrics: one state set per test, every status 0 or 1 (lowercase), no second
 * family of the same tests, the level's verdict a state set of its own; promtool passes it. */
TEST_TIMEOUT(diag_openmetrics_one_state_set_per_test, 60)
{
    const char *dir = gb_test_tmpdir();
    int rc = sh("cd %s && %s run %s/configs/diag-1.yaml -q -s memory --set measure.max_time=20ms "
                "-o r1.json 2>&1 && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
                " %s diag --level 1 -q -f openmetrics -o d.prom --from r1.json 2>&1",
                dir, GB_TEST_EXE, GB_TEST_SRCDIR, GB_TEST_EXE);
    ASSERT_MSG(rc == 1, "exit %d: %s", rc, out); /* memory alone: the rest not run, ERROR */
    char *prom = gb_test_slurp_in(dir, "d.prom");
    static const char *const want[] = {
        "# HELP gpubench_diag_status state set of the status of each row of the table diag: 1 "
        "for the row's, 0 for the others\n",
        "gpubench_diag_status{test=\"diag/1/memory_triad\",status=\"pass\"} 1\n",
        "gpubench_diag_status{test=\"diag/1/memory_triad\",status=\"warn\"} 0\n",
        "gpubench_diag_status{test=\"diag/1/memory_triad\",status=\"fail\"} 0\n",
        "gpubench_diag_status{test=\"diag/1/memory_triad\",status=\"skipped\"} 0\n",
        "gpubench_diag_status{test=\"diag/1/memory_triad\",status=\"error\"} 0\n",
        "gpubench_diag_status{test=\"diag/1/gemm_f32\",status=\"error\"} 1\n",
        "gpubench_diag_status{test=\"diag/1/health_ecc\",status=\"skipped\"} 1\n",
        "gpubench_diag_level_verdict{level=\"1\",verdict=\"error\"} 1\n",
        "gpubench_diag_level_verdict{level=\"1\",verdict=\"pass\"} 0\n",
        "gpubench_diag_level_exit{level=\"1\"} 1\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ASSERT_CONTAINS(prom, want[i]);
    ASSERT(!strstr(prom, "item_status") && !strstr(prom, "gpubench_diag_items"));
    ASSERT(!strstr(prom, "status=\"PASS\""));
    free(prom);
    if (sh("command -v promtool") != 0)
        SKIP("promtool is not installed (Debian package prometheus; scripts/bootstrap.sh "
             "installs it)");
    rc = sh("promtool check metrics < %s/d.prom 2>&1", dir);
    ASSERT_MSG(rc == 0 && out[0] == '\0', "promtool: exit %d: %s", rc, out);
}

/* The profile loader: an optional entry this build cannot take (an unknown suite, an axis its
 * suite lacks) is left out and recorded with the reason; the same entry not optional is an
 * error. Optional forgives what a build lacks, never a mistake: a value its axis refuses (a
 * typo, op: triadd) or a near miss of a suite's or an axis's name is the loader's error at its
 * line and column, as without optional. */
TEST(diag_optional_profile_entries_are_left_out_and_recorded)
{
    static const char text[] = "suites:\n"
                               "  - suite: memory\n"
                               "    params: {op: triad}\n"
                               "  - suite: no_such_suite\n"
                               "    optional: true\n"
                               "    params: {fraction: 0.9}\n"
                               "  - suite: memory\n"
                               "    optional: true\n"
                               "    params: {pulse: true}\n";
    struct gb_profile p;
    char err[512];
    ASSERT_OK(
        gb_profile_load_string(gb_suites_builtin(), text, "t.yaml", NULL, 0, &p, err, sizeof err));
    ASSERT_EQ(p.nruns, 1);
    ASSERT_EQ(p.nabsent, 2);
    ASSERT_STR(p.absent[0].suite, "no_such_suite");
    ASSERT_EQ(p.absent[0].line, 4);
    ASSERT_CONTAINS(p.absent[0].reason, "unknown suite \"no_such_suite\"");
    ASSERT_STR(p.absent[1].suite, "memory");
    ASSERT_CONTAINS(p.absent[1].reason, "no axis \"pulse\"");
    gb_profile_free(&p);
    /* A mistake of the entry's own (its measure) is an error, optional or not. */
    static const char own[] = "suites:\n  - suite: memory\n    optional: true\n"
                              "    measure: {max_time: 0}\n";
    ASSERT(gb_profile_load_string(gb_suites_builtin(), own, "o.yaml", NULL, 0, &p, err,
                                  sizeof err) != 0);
    ASSERT_CONTAINS(err, "max_time");
    static const char strict[] = "suites:\n  - suite: no_such_suite\n";
    ASSERT(gb_profile_load_string(gb_suites_builtin(), strict, "s.yaml", NULL, 0, &p, err,
                                  sizeof err) != 0);
    ASSERT_CONTAINS(err, "unknown suite");
    static const char value[] = "suites:\n  - suite: memory\n    optional: true\n"
                                "    params: {op: triadd}\n";
    ASSERT(gb_profile_load_string(gb_suites_builtin(), value, "v.yaml", NULL, 0, &p, err,
                                  sizeof err) != 0);
    ASSERT_CONTAINS(err, "v.yaml:4:");
    ASSERT_CONTAINS(err, "triadd");
    static const char near_suite[] = "suites:\n  - suite: memroy\n    optional: true\n";
    ASSERT(gb_profile_load_string(gb_suites_builtin(), near_suite, "n.yaml", NULL, 0, &p, err,
                                  sizeof err) != 0);
    ASSERT_CONTAINS(err, "n.yaml:2:");
    ASSERT_CONTAINS(err, "did you mean \"memory\"?");
    static const char near_axis[] = "suites:\n  - suite: memory\n    optional: true\n"
                                    "    params: {sizee: 1MiB}\n";
    ASSERT(gb_profile_load_string(gb_suites_builtin(), near_axis, "a.yaml", NULL, 0, &p, err,
                                  sizeof err) != 0);
    ASSERT_CONTAINS(err, "a.yaml:4:");
    ASSERT_CONTAINS(err, "did you mean \"size\"?");
}

/* A typo in an optional entry: a copy of diag-2.yaml whose memtest entry (optional) says
 * `fracton:`, and a profile whose optional memory entry says `op: triadd`. diag and run refuse
 * the profile with the loader's file:line:column message (exit 2), never a run that leaves the
 * entry out as a skip. */
TEST(diag_optional_entry_typo_is_a_load_error)
{
    const char *dir = gb_test_tmpdir();
    int rc = sh("mkdir -p %s/configs && sed 's/fraction: 0.9/fracton: 0.9/' "
                "%s/configs/diag-2.yaml > %s/configs/diag-2.yaml && "
                "printf 'suites:\n  - suite: launch\n    params: {op: latency}\n"
                "  - suite: memory\n    optional: true\n    params: {op: triadd}\n' > %s/t.yaml",
                dir, GB_TEST_SRCDIR, dir, dir);
    ASSERT_MSG(rc == 0, "setup: %s", out);
    rc = sh("cd %s && GPUBENCH_SOURCE_DIR=%s %s diag --level 2 -q 2>&1", dir, dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "diag exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "diag-2.yaml:");
    ASSERT_CONTAINS(out, "did you mean \"fraction\"?");
    ASSERT(!strstr(out, "SKIPPED"));
    rc = sh("cd %s && %s run t.yaml -q -o r.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "run exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "t.yaml:6:");
    ASSERT_CONTAINS(out, "triadd");
    ASSERT(!strstr(out, "left out"));
}

/* The rule: a test of several parts is the worst of those that ran, SKIPPED only when none ran;
 * the level's verdict FAIL over ERROR over WARN over PASS, skips never a pass; the exit status
 * in the verdict line 3, 1, 0. */
TEST(diag_verdict_is_the_worst_and_skips_are_not_passes)
{
    struct gb_diag d;
    gb_diag_init(&d, 1);
    ASSERT_OK(gb_diag_add(&d, "a", -1, GB_DIAG_PASS, "ok"));
    ASSERT_OK(gb_diag_add(&d, "a", -1, GB_DIAG_SKIPPED, "too large"));
    ASSERT_OK(gb_diag_add(&d, "b", -1, GB_DIAG_SKIPPED, "no NVML"));
    ASSERT_OK(gb_diag_add(&d, "c", 2, GB_DIAG_WARN, "lowered"));
    gb_diag_finish(&d);
    ASSERT_EQ(d.t[0].status, GB_DIAG_PASS);
    ASSERT_EQ(d.t[0].skipped, 1);
    ASSERT_EQ(d.t[1].status, GB_DIAG_SKIPPED);
    ASSERT_STR(d.t[2].name, "diag/1/c@2");
    ASSERT_EQ(d.verdict, GB_DIAG_WARN);
    struct gb_doc doc;
    ASSERT_OK(gb_diag_doc(&d, "p.yaml", NULL, &doc));
    ASSERT_CONTAINS(doc.verdict, "level 1: WARN (exit 0)");
    ASSERT_EQ(doc.checks[1].status, GB_CHECK_SKIP);
    ASSERT_EQ(doc.checks[2].status, GB_CHECK_PASS);
    gb_doc_free(&doc);
    ASSERT_OK(gb_diag_add(&d, "run", -1, GB_DIAG_ERROR, "no worker could start"));
    gb_diag_finish(&d);
    ASSERT_EQ(d.verdict, GB_DIAG_ERROR);
    ASSERT_OK(gb_diag_doc(&d, "p.yaml", NULL, &doc));
    ASSERT_CONTAINS(doc.verdict, "(exit 1)");
    ASSERT_EQ(doc.checks[3].status, GB_CHECK_ERROR);
    gb_doc_free(&doc);
    ASSERT_OK(gb_diag_add(&d, "a", -1, GB_DIAG_FAIL, "LOW"));
    gb_diag_finish(&d);
    ASSERT_EQ(d.verdict, GB_DIAG_FAIL);
    ASSERT_STR(d.t[0].detail, "LOW");
    ASSERT_OK(gb_diag_plant(&d, "b,zz"));
    gb_diag_finish(&d);
    ASSERT_EQ(d.t[1].status, GB_DIAG_FAIL);
    ASSERT_STR(d.t[d.n - 1].name, "diag/1/zz");
    gb_diag_free(&d);
}

/* scripts/slurm-healthcheck.sh passes GPUBENCH_DIAG_ARGS split on spaces, never expanded as a
 * file pattern: diag (a stand-in that records its arguments) gets "*", not the folder's files. */
TEST(slurm_healthcheck_args_are_no_file_pattern)
{
    const char *dir = gb_test_tmpdir_with("gb", "#!/bin/sh\nprintf '[%s]' \"$@\" > args.txt\n");
    int rc = sh("cd %s && touch f1 f2 && chmod +x gb && GPUBENCH=./gb SINFO=true SCONTROL=false"
                " GPUBENCH_DIAG_ARGS='-d *' %s/scripts/slurm-healthcheck.sh 2>&1 && cat args.txt",
                dir, GB_TEST_SRCDIR);
    ASSERT_MSG(rc == 0, "healthcheck exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "[-d][*]");
}

/* scripts/slurm-healthcheck.sh on a one-node Slurm cluster (scripts/test-slurm.sh healthcheck):
 * a planted failure drains the node naming the test, a healthy check resumes it, an operator's
 * drain stays. Skipped, with the script's reason, when not root or Slurm is not installed. */
TEST_TIMEOUT(slurm_healthcheck_drains_and_resumes, 240)
{
    int rc =
        sh("GPUBENCH=%s %s/scripts/test-slurm.sh healthcheck 2>&1", GB_TEST_EXE, GB_TEST_SRCDIR);
    gb_test_skip_on_77(rc, out);
    printf("%s", out);
    ASSERT_EQ(rc, 0);
    ASSERT_CONTAINS(out, "test-slurm: drained: gpubench diag: diag/1/memory_triad");
    ASSERT_CONTAINS(out, "test-slurm: passed");
}
