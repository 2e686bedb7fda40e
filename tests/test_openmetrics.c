/* The machine outputs. The OpenMetrics writer (src/outputs/write_openmetrics.c) and --openmetrics
 * on run, check, compare and fleet: every output passes `promtool check metrics` (Debian's
 * prometheus package) with nothing to lint, has the run's timestamp, hostile text in the results
 * stays inside its label, and the file is replaced whole. Every command's `-f json`, `-f csv` and
 * `-f openmetrics` on stdout is one document: JSON that jansson reads whole, CSV that Python's
 * csv module reads strictly into rows of one width, metrics that promtool passes. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/doc.h"
#include "outputs/summary_out.h"
#include "outputs/writer.h"
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

/* promtool check metrics on DIR/NAME: passes, nothing to lint (it says nothing). */
static void promtool_ok(const char *dir, const char *name)
{
    int rc = sh("promtool check metrics < %s/%s 2>&1", dir, name);
    ASSERT_MSG(rc == 0 && out[0] == '\0', "promtool on %s: exit %d: %s", name, rc, out);
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
    ASSERT_CONTAINS(prom, "# TYPE gpubench_run_result_value_bytes_per_second gauge");
    ASSERT_CONTAINS(prom, "gpubench_run_result_value_bytes_per_second{suite=\"memory\","
                          "case=\"triad\",type=\"float\"");
    ASSERT_CONTAINS(prom, "gpubench_run_result_value_seconds{suite=\"launch\"");
    ASSERT_CONTAINS(prom, "\ngpubench_run_timestamp_seconds 1");
    /* The status is a state set of its own, never a label of a figure. */
    ASSERT_CONTAINS(prom, ",status=\"ok\"} 1\n");
    const char *v = strstr(prom, "\ngpubench_run_result_value_bytes_per_second{");
    ASSERT(v);
    ASSERT_MSG(!memmem(v, strcspn(v + 1, "\n"), "status=", 7), "%.300s", v);
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
    ASSERT_CONTAINS(prom, "gpubench_check_item_status{group=\"memory\"");
    ASSERT_CONTAINS(prom, "gpubench_check_items{status=\"fail\"}");
    /* The verdict as a labelled gauge (a state set), no stutter, the run's time. */
    ASSERT_CONTAINS(prom, "# TYPE gpubench_check_verdict gauge");
    ASSERT_CONTAINS(prom, "\ngpubench_check_verdict{case=\"memory ");
    ASSERT_CONTAINS(prom, "\ngpubench_check_timestamp_seconds 1");
    ASSERT(!strstr(prom, "gpubench_check_check"));
    ASSERT(!strstr(prom, "worst_case="));
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

/* A short launch-latency run (a.json in a new folder, read into *rs): the results that the
 * hostile-text tests edit. Returns the folder. */
static const char *launch_run(struct gb_results *rs)
{
    const char *dir = gb_test_tmpdir_with(
        "p.yaml", "name: om\nmeasure: {warmup_runs: 0, warmup_time: 0, min_samples: 2, "
                  "max_samples: 2, max_time: 20ms}\nsuites:\n"
                  "  - suite: launch\n    params: {op: latency}\n");
    int rc = sh("cd %s && %s run p.yaml -q -o a.json >/dev/null 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "run exit %d: %s", rc, out);
    memset(rs, 0, sizeof *rs);
    char *p = NULL;
    ASSERT(asprintf(&p, "%s/a.json", dir) > 0);
    ASSERT_OK(gb_results_read(p, rs));
    free(p);
    return dir;
}

/* Quotes, backslashes, line breaks, braces and control bytes in case names, params, device
 * names and units: each label holds its text, escaped; promtool reads the file. */
TEST_TIMEOUT(openmetrics_hostile_text_stays_in_its_label, 120)
{
    need_promtool();
    struct gb_results rs;
    const char *dir = launch_run(&rs);
    char p[1100];
    int rc;
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

/* ---- every command's machine formats on stdout --------------------------------------------- */

/* Two runs (a.json, b.json: the chip's suites, serving, stress), expectations, three fleet
 * nodes and a history folder in a new folder, returned. */
static const char *machine_inputs(void)
{
    const char *dir = gb_test_tmpdir();
    char p[1100];
    snprintf(p, sizeof p, "%s/p.yaml", dir);
    gb_test_write_file(p,
                       "name: mf\nmeasure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, "
                       "max_samples: 3, max_time: 50ms}\nsuites:\n"
                       "  - suite: memory\n    params: {op: [copy, triad], size: [64KiB, 1MiB]}\n"
                       "  - suite: launch\n    params: {op: latency}\n"
                       "  - suite: compute\n    params: {prec: [f32, f16], iters: 16}\n"
                       "  - suite: serve\n    params: {shape: 64x64, scenario: [Server, "
                       "SingleStream], load: 0.5, max_batch: 4, requests: 32}\n"
                       "  - suite: llm\n    params: {prompt_len: 8, output_len: 4, requests: 4}\n"
                       "  - suite: burn\n    params: {dtype: [f32, f16], duration: 0.2, n: 64}\n"
                       "  - suite: memtest\n    params: {pattern: random, fraction: 0.001, "
                       "cap: 1MiB}\n");
    int rc = sh("cd %s && %s run p.yaml -q -o a.json >/dev/null 2>&1 && %s run p.yaml -q -o b.json "
                ">/dev/null 2>&1 && %s expect a.json b.json -o e.json -q 2>&1 && cp a.json n1.json "
                "&& cp a.json n2.json && cp b.json n3.json && mkdir h && cp a.json h/1.json && cp "
                "b.json h/2.json",
                dir, GB_TEST_EXE, GB_TEST_EXE, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "setup exit %d: %s", rc, out);
    return dir;
}

/* Every command that takes -f, as run in the folder of machine_inputs (run writes a new file). */
static const char *const machine_cmds[] = {"run p.yaml -q -o r-%s.json",
                                           "compare a.json b.json",
                                           "fleet n1.json n2.json n3.json",
                                           "history h",
                                           "check b.json -e e.json",
                                           "calibrate --from a.json b.json",
                                           "devices",
                                           "suites",
                                           "diag -q",
                                           "validate p.yaml"};
#define NCMDS (sizeof machine_cmds / sizeof machine_cmds[0])

/* machine_cmds holds every command `gpubench --help` lists whose --help offers --format, so that
 * a new command with formats is run by these tests on its first build or fails them. */
static void machine_cmds_cover_every_command_with_formats(void)
{
    ASSERT_EQ(sh("%s --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 {print $1}' | "
                 "while read c; do %s $c --help | grep -q -- '--format' && echo $c; done; true",
                 GB_TEST_EXE, GB_TEST_EXE),
              0);
    size_t seen = 0;
    for (const char *p = out; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
        const size_t n = strcspn(p, "\n");
        bool covered = false;
        for (size_t k = 0; k < NCMDS && !covered; k++)
            covered = strncmp(machine_cmds[k], p, n) == 0 &&
                      (machine_cmds[k][n] == ' ' || machine_cmds[k][n] == '\0');
        ASSERT_MSG(covered, "gpubench %.*s offers --format but is not in machine_cmds", (int)n, p);
        seen++;
    }
    ASSERT_MSG(seen >= 8, "only %zu commands offer --format: %s", seen, out);
}

/* Runs command k with -f format in dir, its stdout into dir/out-K.FORMAT (stderr apart); the
 * exit status. The profiles are the source tree's (diag's level). */
static int machine_run(const char *dir, size_t k, const char *format)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, machine_cmds[k], format);
    return sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR
              " %s %s -f %s > out-%zu.%s 2>err-%zu.%s",
              dir, GB_TEST_EXE, cmd, format, k, format, k, format);
}

TEST_TIMEOUT(json_every_command_stdout_parses_as_one_document, 180)
{
    machine_cmds_cover_every_command_with_formats();
    const char *dir = machine_inputs();
    for (size_t k = 0; k < NCMDS; k++) {
        int rc = machine_run(dir, k, "json");
        ASSERT_MSG(rc == 0 || rc == 3, "%s: exit %d", machine_cmds[k], rc);
        char p[1100];
        snprintf(p, sizeof p, "%s/out-%zu.json", dir, k);
        char *text = gb_test_slurp(p);
        json_error_t je;
        json_t *root = json_loads(text, 0, &je); /* refuses anything after the document */
        ASSERT_MSG(root, "%s -f json: not one JSON document (%s at %d:%d)", machine_cmds[k],
                   je.text, je.line, je.column);
        ASSERT_STR(json_string_value(json_object_get(root, "schema")), "gpubench-doc/1");
        json_decref(root);
        free(text);
    }
    /* run's is every result as one row, its params as columns, numbers as numbers. */
    char p[1100];
    snprintf(p, sizeof p, "%s/out-0.json", dir);
    json_t *root = json_load_file(p, 0, NULL);
    ASSERT(root);
    json_t *t = json_array_get(json_object_get(root, "tables"), 0);
    ASSERT_STR(json_string_value(json_object_get(t, "id")), "result");
    ASSERT_EQ(json_array_size(json_object_get(root, "tables")), 1);
    json_t *row = json_array_get(json_object_get(t, "rows"), 0);
    ASSERT_STR(json_string_value(json_object_get(row, "suite")), "memory");
    ASSERT_STR(json_string_value(json_object_get(row, "size")), "65536");
    ASSERT(json_is_number(json_object_get(row, "value")));
    json_decref(root);
}

TEST_TIMEOUT(csv_every_command_stdout_is_one_rectangular_table, 180)
{
    if (sh("python3 -c 'import csv'") != 0)
        SKIP("no python3");
    const char *dir = machine_inputs();
    for (size_t k = 0; k < NCMDS; k++) {
        int rc = machine_run(dir, k, "csv");
        ASSERT_MSG(rc == 0 || rc == 3, "%s: exit %d", machine_cmds[k], rc);
        /* Strict RFC 4180 fields, one header row, every row as wide as it. */
        rc = sh(
            "cd %s && python3 -c 'import csv,sys\n"
            "rows = list(csv.reader(open(sys.argv[1], newline=\"\"), strict=True))\n"
            "assert rows and rows[0][0] == \"table\" and rows[0][-1] == \"footnotes\", rows[:1]\n"
            "w = {len(r) for r in rows}\n"
            "assert len(w) == 1, w\n"
            "assert rows[0].count(\"table\") == 1\n' out-%zu.csv 2>&1",
            dir, k);
        ASSERT_MSG(rc == 0, "%s -f csv: %s", machine_cmds[k], out);
    }
    /* run's: a row per result, the params as columns, the figures numbers (pandas reads them). */
    int rc =
        sh("cd %s && python3 -c 'import csv\n"
           "rows = list(csv.DictReader(open(\"out-0.csv\", newline=\"\")))\n"
           "assert len(rows) == 18, len(rows)\n"
           "assert {r[\"suite\"] for r in rows} >= {\"serve\", \"llm\", \"burn\", "
           "\"memtest\"}\n"
           "assert {r[\"table\"] for r in rows} == {\"result\"}\n"
           "assert rows[0][\"size\"] == \"65536\" and rows[0][\"case\"] == \"copy\", rows[0]\n"
           "for r in rows:\n"
           "    for c in (\"value\", \"ci95 %%\", \"op us\", \"samples\", \"ok\", \"noisy\"):\n"
           "        r[c] == \"\" or float(r[c])\n"
           "skip = [r for r in rows if r[\"status\"] == \"skipped\"]\n"
           "assert all(r[\"value\"] == \"\" for r in skip)\n' 2>&1",
           dir);
    ASSERT_MSG(rc == 0, "run -f csv: %s", out);
    /* compare's: the verdict without people's "!", p a number, the regression a column. */
    rc = sh("cd %s && python3 -c 'import csv\n"
            "rows = [r for r in csv.DictReader(open(\"out-1.csv\", newline=\"\"))"
            " if r[\"table\"] == \"comparison\"]\n"
            "assert rows\n"
            "for r in rows:\n"
            "    assert not r[\"verdict\"].endswith(\"!\"), r\n"
            "    r[\"p\"] == \"\" or float(r[\"p\"])\n"
            "    assert r[\"regression\"] in (\"0\", \"1\"), r\n' 2>&1",
            dir);
    ASSERT_MSG(rc == 0, "compare -f csv: %s", out);
}

/* Units as a results file writes them become a name's suffix only where gpubench knows them: a
 * hostile unit and the words OpenMetrics keeps for other types (_total, _created, ...) give
 * names that promtool passes with nothing to lint, on every command that reads results. */
TEST_TIMEOUT(openmetrics_unknown_and_reserved_units_pass_promtool, 180)
{
    need_promtool();
    struct gb_results rs;
    const char *dir = launch_run(&rs);
    char p[1100];
    int rc;
    static const char *const units[] = {"GB/s\x1b[0m<\"|,", "total", "created", "count",
                                        "bucket",           "info",  "gsum"};
    const struct gb_result first = rs.results[0];
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        struct gb_result r = first;
        r.samples = NULL;
        r.nsamples = 0;
        snprintf(r.case_name, sizeof r.case_name, "case %zu", i);
        snprintf(r.unit, sizeof r.unit, "%s", units[i]);
        ASSERT_OK(gb_results_add(&rs, &r));
    }
    snprintf(p, sizeof p, "%s/u.json", dir);
    ASSERT_OK(gb_results_write(&rs, p));
    gb_results_free(&rs);
    rc = sh("cd %s && mkdir -p h && cp u.json h/1.json && cp u.json h/2.json && cp u.json n1.json "
            "&& cp u.json n2.json && %s expect u.json -o e.json -q 2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "expect exit %d: %s", rc, out);
    static const char *const cmds[] = {"compare u.json n1.json", "fleet n1.json n2.json",
                                       "history h", "check u.json -e e.json"};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        char name[32];
        snprintf(name, sizeof name, "u-%zu.prom", k);
        rc = sh("cd %s && %s %s -q -f openmetrics > %s 2>/dev/null", dir, GB_TEST_EXE, cmds[k],
                name);
        ASSERT_MSG(rc == 0 || rc == 3, "%s: exit %d", cmds[k], rc);
        promtool_ok(dir, name);
        char *prom = gb_test_slurp_in(dir, name);
        ASSERT_MSG(!strstr(prom, "_0m") && !strchr(prom, '\x1b'), "%s: %s", cmds[k], prom);
        static const char *const reserved[] = {"_total",  "_created", "_count", "_sum",
                                               "_bucket", "_gcount",  "_gsum"};
        for (const char *line = prom; *line;
             line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
            if (*line == '#')
                continue;
            const size_t n = strcspn(line, "{ ");
            for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
                const size_t m = strlen(reserved[i]);
                ASSERT_MSG(n < m || memcmp(line + n - m, reserved[i], m) != 0, "%s: %.*s", cmds[k],
                           (int)n, line);
            }
        }
        free(prom);
    }
}

TEST_TIMEOUT(openmetrics_every_command_passes_promtool_with_a_timestamp, 180)
{
    need_promtool();
    const char *dir = machine_inputs();
    for (size_t k = 0; k < NCMDS; k++) {
        int rc = machine_run(dir, k, "openmetrics");
        ASSERT_MSG(rc == 0 || rc == 3, "%s: exit %d", machine_cmds[k], rc);
        char name[64], p[1100];
        snprintf(name, sizeof name, "out-%zu.openmetrics", k);
        promtool_ok(dir, name);
        snprintf(p, sizeof p, "%s/%s", dir, name);
        char *prom = gb_test_slurp(p);
        size_t l = strlen(prom);
        ASSERT_MSG(l > 6 && strcmp(prom + l - 6, "# EOF\n") == 0 && l > 20, "%s -f openmetrics: %s",
                   machine_cmds[k], prom);
        /* The run's time, wherever there was a run (devices: when they were asked). */
        if (strncmp(machine_cmds[k], "suites", 6) != 0)
            ASSERT_MSG(strstr(prom, "_timestamp_seconds 1"), "%s: no timestamp", machine_cmds[k]);
        /* Labels that identify a series: never a status or a verdict beside a figure. */
        for (const char *line = prom; *line;
             line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
            const size_t n = strcspn(line, "\n");
            if (*line == '#' || !memmem(line, n, "{", 1))
                continue;
            const bool state = memmem(line, n, "_status{", 8) || memmem(line, n, "_verdict{", 9) ||
                               memmem(line, n, "_flag{", 6) || memmem(line, n, "_effect{", 8) ||
                               memmem(line, n, "_items{", 7);
            ASSERT_MSG(state || (!memmem(line, n, "status=", 7) && !memmem(line, n, "verdict=", 8)),
                       "%s: a state as a label: %.*s", machine_cmds[k], (int)n, line);
        }
        free(prom);
    }
    char *prom = gb_test_slurp_in(dir, "out-6.openmetrics");
    ASSERT_CONTAINS(prom, "\ngpubench_devices_memory_bytes{backend=\"opencl\",index=\"0\"");
    free(prom);
    prom = gb_test_slurp_in(dir, "out-7.openmetrics");
    ASSERT_CONTAINS(prom, "gpubench_suites_info{suite=\"memory\"");
    free(prom);
    /* the new suites' figures, each a gauge with its unit */
    prom = gb_test_slurp_in(dir, "out-0.openmetrics");
    ASSERT_CONTAINS(prom, "gpubench_run_result_value_tokens_per_second{suite=\"llm\"");
    ASSERT_CONTAINS(prom, "gpubench_run_result_value_seconds{suite=\"serve\"");
    ASSERT_CONTAINS(prom, "gpubench_run_result_value_flops_per_second{suite=\"burn\"");
    ASSERT_CONTAINS(prom, "gpubench_run_result_value_bytes_per_second{suite=\"memtest\"");
    free(prom);
}

/* A number people read as text ("<1e-4", "failed", "yes"): text and Markdown show the text,
 * json, csv and OpenMetrics the number. */
static char *render(const char *format, const struct gb_doc *d)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    int rc = gb_write_doc(f, format, d);
    fclose(f);
    if (rc) {
        free(text);
        return NULL;
    }
    return text;
}

TEST(openmetrics_csv_json_take_the_value_people_read_the_shown_text)
{
    static const char *const cols[] = {"case", "verdict", "p", "op us", "unit", "value"};
    struct gb_doc d;
    struct gb_doc_table *t;
    size_t r;
    ASSERT_OK(gb_doc_init(&d, "gpubench-x-doc/1", "shown"));
    d.time = 1800000000;
    ASSERT_OK(gb_doc_table(&d, "x", "x", cols, 6, &t));
    gb_doc_column_state(t, 1);
    gb_doc_column_set(t, 2, true, false);
    gb_doc_column_set(t, 3, true, false);
    gb_doc_column_set(t, 5, true, false);
    ASSERT_OK(gb_doc_column_unit(t, 3, "us", 0));
    ASSERT_OK(gb_doc_column_unit(t, 5, NULL, 4));
    ASSERT_OK(gb_doc_row(t, &r));
    ASSERT_OK(gb_doc_text(t, r, 0, "triad"));
    ASSERT_OK(gb_doc_text(t, r, 1, "SLOWER"));
    ASSERT_OK(gb_doc_shown(t, r, 1, "SLOWER!"));
    gb_doc_num(t, r, 2, 3e-6, -1);
    ASSERT_OK(gb_doc_shown(t, r, 2, "<1e-4"));
    gb_doc_num(t, r, 3, 2.5, 1);
    ASSERT_OK(gb_doc_text(t, r, 4, "GB/s"));
    gb_doc_num(t, r, 5, 21.5, 1);
    char *text = render("text", &d);
    ASSERT(text);
    ASSERT_CONTAINS(text, "SLOWER!");
    ASSERT_CONTAINS(text, "<1e-4");
    free(text);
    text = render("csv", &d);
    ASSERT(text);
    ASSERT_CONTAINS(text, "table,case,verdict,p,op us,unit,value,footnotes\r\n");
    ASSERT_CONTAINS(text, "x,triad,SLOWER,3.0000000000000001e-06,2.5,GB/s,21.5,\r\n");
    free(text);
    text = render("json", &d);
    ASSERT(text);
    ASSERT_CONTAINS(text, "\"verdict\": \"SLOWER\"");
    ASSERT(!strstr(text, "<1e-4"));
    free(text);
    text = render("openmetrics", &d);
    ASSERT(text);
    ASSERT_CONTAINS(text, "gpubench_x_timestamp_seconds 1800000000\n");
    ASSERT_CONTAINS(text, "gpubench_x_verdict{case=\"triad\",verdict=\"SLOWER\"} 1\n");
    ASSERT_CONTAINS(text, "gpubench_x_p{case=\"triad\"} 3.0000000000000001e-06\n");
    const char *op = strstr(text, "gpubench_x_op_seconds{case=\"triad\"} ");
    ASSERT(op);
    ASSERT_NEAR(strtod(strchr(op, ' ') + 1, NULL), 2.5e-6, 1e-18);
    ASSERT_CONTAINS(text, "gpubench_x_value_bytes_per_second{case=\"triad\"} 21500000000\n");
    free(text);
    gb_doc_free(&d);
}

/* The run for machines: a param of an omit_default axis that a result leaves out at its default
 * (serve's scenario on a Server row) reads as that default in its CSV column and its OpenMetrics
 * label, so that every row says its scenario; the metrics still pass promtool. */
TEST(openmetrics_csv_run_rows_name_an_omitted_default)
{
    struct gb_results rs = {0};
    struct gb_device_info info = {0};
    snprintf(info.name, sizeof info.name, "cpu");
    int dev;
    ASSERT_OK(gb_results_add_device(&rs, "opencl", 0, &info, &dev));
    for (int k = 0; k < 2; k++) {
        struct gb_result r = {0};
        snprintf(r.suite, sizeof r.suite, "serve");
        snprintf(r.case_name, sizeof r.case_name, "64x64");
        snprintf(r.backend, sizeof r.backend, "opencl");
        snprintf(r.unit, sizeof r.unit, "us");
        snprintf(r.metric, sizeof r.metric, "latency");
        r.device_index = dev;
        r.params.name[0] = "shape";
        r.params.v[0] = (struct gb_value){.type = GB_V_STR, .s = "64x64"};
        r.params.name[1] = "load";
        r.params.v[1] = (struct gb_value){.type = GB_V_FLOAT, .u.f = k ? 1 : 0.5};
        r.params.n = 2;
        if (k) { /* SingleStream names its scenario; the Server row leaves it out */
            r.params.name[2] = "scenario";
            r.params.v[2] = (struct gb_value){.type = GB_V_STR, .s = "SingleStream"};
            r.params.n = 3;
        }
        r.status = GB_STATUS_OK;
        r.value = 100 + k;
        r.verified = true;
        ASSERT_OK(gb_results_add(&rs, &r));
    }
    struct gb_doc d;
    ASSERT_EQ(gb_results_metrics_doc(&rs, &d), 0);
    const char *dir = gb_test_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/run.csv", dir);
    FILE *f = fopen(path, "w");
    ASSERT(f);
    ASSERT_EQ(gb_write_doc(f, "csv", &d), 0);
    fclose(f);
    snprintf(path, sizeof path, "%s/run.prom", dir);
    f = fopen(path, "w");
    ASSERT(f);
    ASSERT_EQ(gb_write_doc(f, "openmetrics", &d), 0);
    fclose(f);
    gb_doc_free(&d);
    gb_results_free(&rs);
    char *csv = gb_test_slurp_in(dir, "run.csv");
    printf("%s", csv);
    ASSERT_CONTAINS(csv, "suite,case,load,scenario,");
    ASSERT_CONTAINS(csv, "serve,64x64,0.5,Server,");
    ASSERT_CONTAINS(csv, "serve,64x64,1,SingleStream,");
    free(csv);
    char *prom = gb_test_slurp_in(dir, "run.prom");
    ASSERT_CONTAINS(prom, "scenario=\"Server\"");
    ASSERT_CONTAINS(prom, "scenario=\"SingleStream\"");
    ASSERT(!strstr(prom, "scenario=\"\""));
    free(prom);
    need_promtool();
    promtool_ok(dir, "run.prom");
}
