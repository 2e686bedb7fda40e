/* The sharing-and-serving chapter of the report (src/outputs/chart_cloud.c): a real run of the
 * four suites on the device drawn with data and findings, and the same results with hostile text
 * in every string a chart of the chapter reads drawn without running anything. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outputs/report.h"
#include "results/results.h"
#include "test.h"

static char out[1 << 16];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

static const char cloud_profile[] =
    "name: cloud-report\n"
    "measure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, max_samples: 3, max_time: 300ms}\n"
    "suites:\n"
    "  - suite: concurrency\n"
    "    params: {kernel: triad, queues: [1, 2], size: 1MiB}\n"
    "  - suite: tenants\n"
    "    measure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, max_samples: 3, max_time: 2s}\n"
    "    params: {victim: triad, aggressor: [none, triad], size: 1MiB}\n"
    "  - suite: startup\n"
    "    measure: {warmup_runs: 0, warmup_time: 0, min_samples: 3, max_samples: 3, max_time: 10s}\n"
    "    params: {cache: warm, blas: off}\n"
    "  - suite: serve\n"
    "    measure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, max_samples: 3, max_time: 1s}\n"
    "    params: {shape: 64x64, load: [0.3, 0.9, 4], max_batch: 4, max_wait: 500, requests: 50}\n"
    "  - suite: serve\n"
    "    measure: {warmup_runs: 1, warmup_time: 0, min_samples: 2, max_samples: 2, max_time: 1s}\n"
    "    params: {shape: 64x64, scenario: [SingleStream, Periodic], fps: 1000, requests: 70}\n";

static const char *const chapter[] = {"cloud_overlap", "cloud_tenants_0", "cloud_startup",
                                      "cloud_serve"};

/* Runs the profile in dir (once per process) and returns the results file's path. */
static const char *cloud_run(const char *dir)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/c.yaml", dir);
    gb_test_write_file(path, cloud_profile);
    int rc = sh("cd %s && %s run c.yaml -q -o c.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "run exit %d: %s", rc, out);
    snprintf(path, sizeof path, "%s/c.json", dir);
    return path;
}

TEST_TIMEOUT(report_cloud_chapter_has_data_and_findings, 180)
{
    const char *dir = gb_test_tmpdir();
    cloud_run(dir);
    int rc = sh("cd %s && %s report c.json -o rep 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report exit %d: %s", rc, out);
    char p[1200];
    for (size_t i = 0; i < sizeof chapter / sizeof chapter[0]; i++) {
        snprintf(p, sizeof p, "%s/rep/data/%s.csv", dir, chapter[i]);
        char *csv = gb_test_slurp(p);
        ASSERT_MSG(!strstr(csv, "# no data"), "%s: %s", chapter[i], csv);
        free(csv);
        snprintf(p, sizeof p, "%s/rep/charts/%s.svg", dir, chapter[i]);
        free(gb_test_slurp(p));
    }
    /* The suites drawn here get no hint chart as well. */
    ASSERT_EQ(sh("ls %s/rep/charts | grep -E 'hint_(concurrency|tenants|startup|serve)'", dir), 1);
    char *md = gb_test_slurp_in(dir, "rep/report.md");
    ASSERT_CONTAINS(md, "Sharing and serving: many queues in one process");
    ASSERT_CONTAINS(md, "on 2 queues");
    ASSERT_CONTAINS(md, "fairness");
    ASSERT_CONTAINS(md, "worst beside triad, slowdown");
    ASSERT_CONTAINS(md, "The device's sharing mode, as read (never set)");
    ASSERT_CONTAINS(md, "cache=warm blas=off: ");
    ASSERT_CONTAINS(md, "ms to the first verified result (median of 3 processes)");
    ASSERT_CONTAINS(md, "requests/s offered");
    /* Load 4 is overloaded: said, with what it served, and not drawn as a tail. */
    ASSERT_CONTAINS(md, "load 4: overloaded, ");
    ASSERT_CONTAINS(md, "no steady-state tail (not drawn)");
    /* The other scenarios: findings with their figure of merit and verdict. */
    ASSERT_CONTAINS(md, "SingleStream: p90 ");
    ASSERT_CONTAINS(md, "; VALID.");
    ASSERT_CONTAINS(md, "Periodic: p99 ");
    ASSERT_CONTAINS(md, "at 1000 Hz, ");
    free(md);
    /* The one-queue point is the reference, overlap 1; the startup bars stack the stages. */
    char *csv = gb_test_slurp_in(dir, "rep/data/cloud_overlap.csv");
    ASSERT_CONTAINS(csv, "\n1,1,");
    free(csv);
    csv = gb_test_slurp_in(dir, "rep/data/cloud_startup.csv");
    ASSERT_CONTAINS(csv, "# bar,process,init,open,build,blas,first,total\n");
    free(csv);
}

/* Sets (or adds) string param name of r. */
static void set_str(struct gb_result *r, const char *name, const char *text)
{
    for (size_t k = 0; k < r->params.n; k++)
        if (strcmp(r->params.name[k], name) == 0) {
            snprintf(r->params.v[k].s, sizeof r->params.v[k].s, "%s", text);
            return;
        }
}

/* Hostile text in every string the chapter reads (case names, the aggressor, the sharing mode,
 * a text figure, a figure's unit, the device's name): gnuplot runs nothing, every chart of the
 * chapter is drawn, and the scripts hold no double quote or backquote outside single quotes. */
TEST_TIMEOUT(report_cloud_chapter_hostile_text_runs_nothing, 180)
{
    const char *dir = gb_test_tmpdir();
    const char *path = cloud_run(dir);
    static const char evil[] = "e`touch X`$(touch X)\"'<b>\nz";
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    ASSERT_OK(gb_results_read(path, &rs));
    snprintf(rs.devices[0].info.name, sizeof rs.devices[0].info.name, "%s", evil);
    for (size_t i = 0; i < rs.nresults; i++) {
        struct gb_result *r = &rs.results[i];
        snprintf(r->case_name, sizeof r->case_name, "%s", evil);
        if (strcmp(r->suite, "tenants") == 0 &&
            strcmp(gb_params_str(&r->params, "aggressor"), "none") != 0)
            set_str(r, "aggressor", evil);
        for (size_t f = 0; f < r->nfigures; f++) {
            struct gb_figure *g = &r->figures[f];
            if (g->n == 0)
                snprintf(g->text, sizeof g->text, "%s", evil);
            else
                snprintf(g->unit, sizeof g->unit, "u`touch X`");
        }
    }
    char rep[1100];
    snprintf(rep, sizeof rep, "%s/rep", dir);
    const char *paths[] = {"c `touch X` $(touch X) '\"\n.json"};
    struct gb_report_opts o = {.dir = rep, .title = "T"};
    struct gb_report_summary sum;
    ASSERT_OK(gb_report_write(&rs, paths, 1, &o, &sum));
    gb_results_free(&rs);
    ASSERT_MSG(sum.charts_failed == 0, "%zu charts not drawn: %s", sum.charts_failed,
               sh("cat %s/plots/*.log", rep) == 0 ? out : "");
    ASSERT_EQ(sh("test -e %s/X || test -e %s/X", rep, dir), 1);
    for (size_t i = 0; i < sizeof chapter / sizeof chapter[0]; i++) {
        char p[1300];
        snprintf(p, sizeof p, "%s/data/%s.csv", rep, chapter[i]);
        char *csv = gb_test_slurp(p);
        ASSERT_MSG(!strstr(csv, "# no data"), "%s: %s", chapter[i], csv);
        free(csv);
        snprintf(p, sizeof p, "%s/plots/%s.gp", rep, chapter[i]);
        char *gp = gb_test_slurp(p);
        bool in_single = false;
        for (const char *c = gp; *c; c++) {
            if (*c == '\'')
                in_single = !in_single;
            else
                ASSERT_MSG(in_single || (*c != '"' && *c != '`'), "%s: a \" or ` outside quotes",
                           chapter[i]);
        }
        free(gp);
    }
    ASSERT_EQ(sh("xmllint --html --noout %s/index.html 2>&1 | grep 'parser error' | "
                 "grep -v 'Tag [a-zA-Z]* invalid'",
                 rep),
              1);
    char *html = gb_test_slurp_in(rep, "index.html");
    ASSERT_EQ(gb_test_count(html, "<b>"), 0);
    free(html);
}
