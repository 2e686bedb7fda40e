/* The collectives' charts of the report (src/outputs/chart_collective.c): the collective suite
 * run on two PoCL devices at three small sizes and reported (one line per collective in the
 * transport devices chart, its data file's rows, the SVG, the findings: peak busbw, n1/2, the
 * busbw factor); gpubench-mpi's collectives as transport mpi (where the build has gpubench-mpi
 * and mpirun); and a results file of another suite only, which draws no collectives chart and
 * names it once among the charts without data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

static char out[1 << 16];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

#define TWO_DEVICES "POCL_DEVICES='pthread pthread'"

static const char coll_profile[] =
    "name: coll-report\n"
    "measure: {min_samples: 2, max_samples: 3, max_time: 20ms, min_sample_time: 1ms, "
    "warmup_runs: 1, warmup_time: 0s}\n"
    "suites:\n"
    "  - suite: collective\n"
    "    params: {size: [1KiB, 8KiB, 64KiB]}\n"
    "  - suite: collective\n" /* a case not drawn: i32 */
    "    params: {coll: allreduce, dtype: i32, size: 1KiB}\n";

static const char *const colls[] = {"allreduce", "allgather", "reducescatter", "broadcast",
                                    "reduce",    "alltoall",  "sendrecv"};

/* The rows of csv whose line label ends in ": COLL TRANSPORT" or is "COLL TRANSPORT". */
static size_t rows_of(const char *csv, const char *coll, const char *transport)
{
    char lab[96];
    snprintf(lab, sizeof lab, ",%s %s,", coll, transport);
    size_t n = gb_test_count(csv, lab);
    snprintf(lab, sizeof lab, ": %s %s,", coll, transport);
    return n + gb_test_count(csv, lab);
}

TEST_TIMEOUT(report_collective_busbw_per_collective, 120)
{
    const char *dir = gb_test_tmpdir_with("c.yaml", coll_profile);
    int rc = sh("cd %s && " TWO_DEVICES " %s run c.yaml -q -o c.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "run exit %d: %s", rc, out);
    rc = sh("cd %s && %s report c.json -o rep 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report exit %d: %s", rc, out);
    char *csv = gb_test_slurp_in(dir, "rep/data/collective_busbw_devices.csv");
    ASSERT_MSG(!strstr(csv, "# no data"), "%s", csv);
    ASSERT_CONTAINS(csv, "# x,y,line,p5,p95");
    /* Every collective, each of the three sizes; the i32 case is not drawn. */
    for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++)
        ASSERT_MSG(rows_of(csv, colls[i], "devices") == 3, "%s: %zu rows in\n%s", colls[i],
                   rows_of(csv, colls[i], "devices"), csv);
    ASSERT_EQ(gb_test_count(csv, "\n1024,") + gb_test_count(csv, "\n8192,") +
                  gb_test_count(csv, "\n65536,"),
              21);
    free(csv);
    char *svg = gb_test_slurp_in(dir, "rep/charts/collective_busbw_devices.svg");
    ASSERT_CONTAINS(svg, "<svg");
    free(svg);
    char *md = gb_test_slurp_in(dir, "rep/report.md");
    ASSERT_CONTAINS(md, "![Collectives: bus bandwidth against size, transport devices]"
                        "(charts/collective_busbw_devices.png)");
    ASSERT_CONTAINS(md, "Drawn: f32 elements, sum, out of place");
    ASSERT_CONTAINS(md, "only where busbw is algbw (factor 1)."); /* the caption whole */
    /* The findings: each collective's peak, n1/2 and factor (two ranks: 2(n-1)/n = 1, (n-1)/n =
     * 0.5), Hockney named, the i32 case counted as not drawn. */
    ASSERT_EQ(gb_test_count(md, ": peak busbw "), 7);
    ASSERT_EQ(gb_test_count(md, "; half of it (n1/2) from "), 7);
    ASSERT_CONTAINS(md, "allreduce devices: peak busbw ");
    ASSERT_CONTAINS(md, "busbw = algbw x 1 (2(n-1)/n, n = 2)");
    ASSERT_CONTAINS(md, "busbw = algbw x 0.5 ((n-1)/n, n = 2)");
    ASSERT_CONTAINS(md, "busbw = algbw x 1 (1, n = 2)");
    ASSERT_CONTAINS(md, "Hockney's half-performance length");
    ASSERT_CONTAINS(md, "1 results of other cases (dtype, reduction, in place)");
    free(md);
}

/* gpubench-mpi's collectives and its all-reduce: a chart of their own, transport mpi. */
TEST_TIMEOUT(report_collective_mpi_is_transport_mpi, 120)
{
    if (!GB_TEST_MPI_EXE[0])
        SKIP("built without gpubench-mpi");
    if (sh("command -v mpirun >/dev/null 2>&1") != 0)
        SKIP("mpirun not installed (openmpi-bin)");
    const char *dir = gb_test_tmpdir();
    int rc = sh("cd %s && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                "OMPI_MCA_rmaps_base_oversubscribe=1 " TWO_DEVICES
                " timeout 120 mpirun --oversubscribe -np 2 %s collective --size 1KiB,8KiB,64KiB "
                "--iters 3 --warmup 1 -o m.json 2>&1",
                dir, GB_TEST_MPI_EXE);
    ASSERT_MSG(rc == 0, "gpubench-mpi exit %d: %s", rc, out);
    /* gpubench-mpi's older all-reduce: an allreduce mpi line of its own file's series. */
    rc = sh("cd %s && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
            "OMPI_MCA_rmaps_base_oversubscribe=1 " TWO_DEVICES
            " timeout 120 mpirun --oversubscribe -np 2 %s allreduce --size 128KiB --iters 3 "
            "--warmup 1 -o a.json 2>&1",
            dir, GB_TEST_MPI_EXE);
    ASSERT_MSG(rc == 0, "gpubench-mpi allreduce exit %d: %s", rc, out);
    rc = sh("cd %s && %s report m.json a.json -o rep 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report exit %d: %s", rc, out);
    char *csv = gb_test_slurp_in(dir, "rep/data/collective_busbw_mpi.csv");
    for (size_t i = 0; i < sizeof colls / sizeof colls[0]; i++)
        ASSERT_MSG(rows_of(csv, colls[i], "mpi") == (i == 0 ? 4u : 3u), "%s: %zu rows in\n%s",
                   colls[i], rows_of(csv, colls[i], "mpi"), csv);
    free(csv);
    char *md = gb_test_slurp_in(dir, "rep/report.md");
    ASSERT_CONTAINS(md, "(charts/collective_busbw_mpi.png)");
    ASSERT_CONTAINS(md, "allreduce mpi: peak busbw ");
    ASSERT_EQ(gb_test_count(md, "(charts/collective_busbw_devices.png)"), 0);
    free(md);
}

/* Results of another suite only: no collectives chart, named once as without data, its data
 * file saying why. */
TEST(report_collective_absent_says_no_data)
{
    const char *dir = gb_test_tmpdir_with(
        "l.yaml", "name: l\nmeasure: {max_time: 30ms, min_samples: 3}\nsuites:\n"
                  "  - suite: launch\n    params: {op: latency}\n");
    int rc = sh("cd %s && %s run l.yaml -q -o l.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "run exit %d: %s", rc, out);
    rc = sh("cd %s && %s report l.json -o rep 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report exit %d: %s", rc, out);
    char *csv = gb_test_slurp_in(dir, "rep/data/collective_busbw.csv");
    ASSERT_CONTAINS(csv, "no collective results (suites collective, mpi_collective, allreduce, "
                         "mpi_allreduce)");
    free(csv);
    char *html = gb_test_slurp_in(dir, "rep/index.html");
    ASSERT_CONTAINS(html, "no collective results");
    ASSERT_MSG(!strstr(html, "<section id=\"collective_busbw"), "collectives drawn without data");
    free(html);
    char *md = gb_test_slurp_in(dir, "rep/report.md");
    ASSERT_EQ(gb_test_count(md, "](charts/collective_busbw"), 0);
    free(md);
    char p[1200];
    snprintf(p, sizeof p, "%s/rep/charts/collective_busbw.svg", dir);
    FILE *f = fopen(p, "r");
    ASSERT_MSG(!f, "%s exists", p);
}

/* A value under 0.1 GB/s (a collective of 8 bytes) keeps three significant figures in the text
 * table instead of reading 0.000, and so do gpubench-mpi's GB/s columns (where the build has it
 * and mpirun). */
TEST_TIMEOUT(report_collective_small_values_keep_their_digits, 120)
{
    const char *dir = gb_test_tmpdir_with(
        "s.yaml", "name: small\n"
                  "measure: {min_samples: 2, max_samples: 3, max_time: 20ms, min_sample_time: "
                  "1ms, warmup_runs: 1, warmup_time: 0s}\n"
                  "suites:\n  - suite: collective\n"
                  "    params: {coll: allreduce, transport: devices, dtype: f32, size: 8}\n");
    int rc =
        sh("cd %s && " TWO_DEVICES " COLUMNS=200 %s run s.yaml -o s.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "run exit %d: %s", rc, out);
    const char *row = strstr(out, "\nallreduce ");
    ASSERT_MSG(row, "%s", out);
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(row + 1, "\n"), row + 1);
    ASSERT_MSG(!strstr(line, " 0.000 "), "%s", line);
    /* The value: the first number after the status, three significant figures. */
    const char *ok = strstr(line, " ok");
    ASSERT_MSG(ok, "%s", line);
    ok += strcspn(ok + 1, " ") + 1;
    const double v = strtod(ok, NULL);
    ASSERT_MSG(v > 0 && v < 0.1, "%s", line);
    if (!GB_TEST_MPI_EXE[0] || sh("command -v mpirun >/dev/null 2>&1") != 0)
        return;
    rc = sh("cd %s && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
            "OMPI_MCA_rmaps_base_oversubscribe=1 " TWO_DEVICES
            " timeout 120 mpirun --oversubscribe -np 2 %s collective --coll allreduce --size 8 "
            "--iters 3 --warmup 1 -o m.json 2>&1",
            dir, GB_TEST_MPI_EXE);
    ASSERT_MSG(rc == 0, "gpubench-mpi exit %d: %s", rc, out);
    ASSERT_MSG(!strstr(out, " 0.000 "), "%s", out);
}
