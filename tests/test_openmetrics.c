/* The OpenMetrics writer (src/outputs/write_openmetrics.c) and --openmetrics on run, check,
 * compare and fleet: every output passes `promtool check metrics` (Debian's prometheus package),
 * hostile text in the results stays inside its label, and the file is replaced whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"
#include "test.h"

static char out[1 << 16];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

static void need_promtool(void)
{
    if (sh("command -v promtool") != 0)
        SKIP("promtool is not installed (Debian package prometheus; scripts/bootstrap.sh "
             "installs it)");
}

/* promtool check metrics on DIR/NAME: passes, no lint problem. */
static void promtool_ok(const char *dir, const char *name)
{
    int rc = sh("promtool check metrics < %s/%s 2>&1", dir, name);
    ASSERT_MSG(rc == 0, "promtool on %s: exit %d: %s", name, rc, out);
}

TEST_TIMEOUT(openmetrics_run_check_compare_fleet_pass_promtool, 180)
{
    need_promtool();
    const char *dir = gb_test_tmpdir_with(
        "p.yaml", "name: om\nmeasure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, "
                  "max_samples: 3, max_time: 50ms}\nsuites:\n"
                  "  - suite: memory\n    params: {op: [copy, triad], size: 1MiB}\n"
                  "  - suite: launch\n    params: {op: latency}\n");
    int rc = sh("cd %s && %s run p.yaml -q -o a.json --openmetrics a.prom >/dev/null 2>&1 && "
                "%s run p.yaml -q -o b.json --openmetrics b.prom >/dev/null 2>&1",
                dir, GB_TEST_EXE, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "run exit %d: %s", rc, out);
    promtool_ok(dir, "a.prom");
    char *prom = gb_test_slurp_in(dir, "a.prom");
    ASSERT_CONTAINS(prom, "# TYPE gpubench_results_result_value gauge");
    ASSERT_CONTAINS(prom, "gpubench_results_result_value{suite=\"memory\",case=\"triad\"");
    ASSERT_CONTAINS(prom, "status=\"ok\"");
    ASSERT_CONTAINS(prom, "# EOF\n");
    free(prom);
    /* check, compare and fleet: their documents as metrics. */
    rc = sh("cd %s && %s expect a.json -o e.json -q 2>&1 && %s check b.json -e e.json -q "
            "--openmetrics c.prom --tolerance 500%% 2>&1",
            dir, GB_TEST_EXE, GB_TEST_EXE);
    ASSERT_MSG(rc == 0 || rc == 3, "check exit %d: %s", rc, out);
    promtool_ok(dir, "c.prom");
    rc = sh("cd %s && %s compare a.json b.json -q --openmetrics m.prom 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0 || rc == 3, "compare exit %d: %s", rc, out);
    promtool_ok(dir, "m.prom");
    rc = sh("cd %s && cp a.json n1.json && cp a.json n2.json && cp b.json n3.json && %s fleet "
            "n1.json n2.json n3.json -q --openmetrics f.prom 2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0 || rc == 3, "fleet exit %d: %s", rc, out);
    promtool_ok(dir, "f.prom");
    prom = gb_test_slurp_in(dir, "c.prom");
    ASSERT_CONTAINS(prom, "gpubench_check_check{group=\"memory\"");
    ASSERT_CONTAINS(prom, "gpubench_check_checks{status=\"fail\"}");
    free(prom);
    /* -o and --openmetrics on one new path: refused before the run (it once left the metrics
     * where the results should be). */
    rc = sh("cd %s && rm -f same.json && %s run p.yaml -q -o same.json --openmetrics ./same.json "
            "2>&1",
            dir, GB_TEST_EXE);
    ASSERT_EQ(rc, 2);
    ASSERT_CONTAINS(out, "both name it");
    /* An output never replaces an input; no temporary file is left behind. */
    rc = sh("cd %s && %s check b.json -e e.json -q --openmetrics b.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_EQ(rc, 2);
    ASSERT_EQ(sh("ls %s | grep gbtmp", dir), 1);
}

/* Quotes, backslashes, line breaks, braces and control bytes in case names, params, device
 * names and units: each label holds its text, escaped; promtool reads the file. */
TEST_TIMEOUT(openmetrics_hostile_text_stays_in_its_label, 120)
{
    need_promtool();
    const char *dir = gb_test_tmpdir_with(
        "p.yaml", "name: om\nmeasure: {warmup_runs: 0, warmup_time: 0, min_samples: 2, "
                  "max_samples: 2, max_time: 20ms}\nsuites:\n"
                  "  - suite: launch\n    params: {op: latency}\n");
    char p[1100];
    int rc = sh("cd %s && %s run p.yaml -q -o a.json >/dev/null 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "run exit %d: %s", rc, out);
    snprintf(p, sizeof p, "%s/a.json", dir);
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    ASSERT_OK(gb_results_read(p, &rs));
    static const char evil[] = "a\"b\\c\nd} x{y=\"z\" \x1b[31m";
    snprintf(rs.devices[0].info.name, sizeof rs.devices[0].info.name, "%s", evil);
    /* A second result whose case differs from the first only in a byte the writer cleans:
     * the two would be one series. */
    struct gb_result twin = rs.results[0];
    twin.samples = NULL;
    twin.nsamples = 0;
    snprintf(twin.case_name, sizeof twin.case_name, "%s\x02", evil);
    snprintf(rs.results[0].case_name, sizeof rs.results[0].case_name, "%s\x01", evil);
    ASSERT_OK(gb_results_add(&rs, &twin));
    snprintf(rs.results[0].unit, sizeof rs.results[0].unit, "u\"\\\n");
    snprintf(p, sizeof p, "%s/evil.json", dir);
    ASSERT_OK(gb_results_write(&rs, p));
    gb_results_free(&rs);
    rc = sh("cd %s && %s expect evil.json -o e.json -q 2>&1 && %s check evil.json -e e.json -q "
            "--openmetrics e.prom 2>&1",
            dir, GB_TEST_EXE, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "check exit %d: %s", rc, out);
    promtool_ok(dir, "e.prom");
    char *prom = gb_test_slurp_in(dir, "e.prom");
    ASSERT_CONTAINS(prom, "a\\\"b\\\\c\\nd} x{y=\\\"z\\\" ?[31m");
    ASSERT(!strchr(prom, '\x1b'));
    free(prom);
    /* No two samples are one series (promtool 2.42 does not look): name and labels unique. */
    rc = sh("grep -v '^#' %s/e.prom | sed 's/ [^ ]*$//' | sort | uniq -d | head -3", dir);
    ASSERT_MSG(rc == 0 && out[0] == '\0', "duplicate series: %s", out);
}
