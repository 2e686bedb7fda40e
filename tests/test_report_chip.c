/* The chip suites in the report: the levels named in a latency staircase (gb__latency_levels, on
 * synthetic curves, a noisy one among them) and a chip run's report drawing the chip charts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report_model.h"
#include "test.h"

static char out[1 << 16];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

/* A staircase over 4 KiB .. 4 KiB x 2^(n-1): y[k] = the value of the level that holds x[k]. */
static size_t staircase(double *x, double *y, size_t n, const double *reach, const double *ns,
                        size_t nlev)
{
    for (size_t k = 0; k < n; k++) {
        x[k] = 4096.0 * (double)(UINT64_C(1) << k);
        size_t l = 0;
        while (l + 1 < nlev && x[k] > reach[l])
            l++;
        y[k] = ns[l];
    }
    return n;
}

TEST(report_levels_cpu_staircase)
{
    /* A CPU: 32 KiB L1 at 1.2 ns, 1 MiB L2 at 4 ns, 32 MiB L3 at 15 ns, memory at 90 ns. */
    const double reach[] = {32768, 1 << 20, 32 << 20, INFINITY};
    const double ns[] = {1.2, 4, 15, 90};
    double x[17], y[17];
    size_t n = staircase(x, y, 17, reach, ns, 4); /* 4 KiB .. 256 MiB */
    struct gb__level lv[8];
    ASSERT_EQ(gb__latency_levels(x, y, n, 32 << 20, lv, 8), 4);
    ASSERT_STR(lv[0].name, "L1");
    ASSERT_STR(lv[1].name, "L2");
    ASSERT_STR(lv[2].name, "LLC");
    ASSERT_STR(lv[3].name, "memory");
    ASSERT_NEAR(lv[0].to, 32768, 0);
    ASSERT_NEAR(lv[1].from, 65536, 0);
    ASSERT_NEAR(lv[1].to, 1 << 20, 0);
    ASSERT_NEAR(lv[2].to, 32 << 20, 0);
    ASSERT_NEAR(lv[3].from, 64 << 20, 0);
    ASSERT_NEAR(lv[0].value, 1.2, 1e-12);
    ASSERT_NEAR(lv[3].value, 90, 1e-12);
    /* Without the LLC size the same curve is named alike (3 levels or more: the last is memory). */
    ASSERT_EQ(gb__latency_levels(x, y, n, 0, lv, 8), 4);
    ASSERT_STR(lv[3].name, "memory");
    /* max caps what is written. */
    ASSERT_EQ(gb__latency_levels(x, y, n, 0, lv, 2), 2);
    ASSERT_EQ(gb__latency_levels(x, y, 0, 0, lv, 8), 0);
}

TEST(report_levels_gpu_and_short_sweeps)
{
    /* A GPU: 128 KiB L1 at 30 ns, 50 MiB L2 at 200 ns, memory at 500 ns. */
    const double reach[] = {128 << 10, 50 << 20, INFINITY};
    const double ns[] = {30, 200, 500};
    double x[19], y[19];
    size_t n = staircase(x, y, 19, reach, ns, 3);
    struct gb__level lv[8];
    ASSERT_EQ(gb__latency_levels(x, y, n, 50 << 20, lv, 8), 3);
    ASSERT_STR(lv[0].name, "L1");
    ASSERT_STR(lv[1].name, "L2");
    ASSERT_STR(lv[2].name, "memory");
    ASSERT_NEAR(lv[2].from, 64 << 20, 0);
    /* A sweep that stops inside the L2: two caches, no memory (the LLC size says so). */
    ASSERT_EQ(gb__latency_levels(x, y, 10, 50 << 20, lv, 8), 2);
    ASSERT_STR(lv[1].name, "L2");
    /* A flat curve is one level. */
    for (size_t k = 0; k < n; k++)
        y[k] = 7;
    ASSERT_EQ(gb__latency_levels(x, y, n, 0, lv, 8), 1);
    ASSERT_STR(lv[0].name, "L1");
    ASSERT_EQ(lv[0].points, n);
}

TEST(report_levels_noisy_curve)
{
    /* The CPU staircase with +-20% deterministic noise, a spike of 1.8x inside L1, and the risers
     * of real curves: points between two plateaus. */
    const double reach[] = {32768, 1 << 20, 32 << 20, INFINITY};
    const double ns[] = {1.2, 4, 15, 90};
    double x[17], y[17];
    size_t n = staircase(x, y, 17, reach, ns, 4);
    uint64_t st = 12345;
    for (size_t k = 0; k < n; k++) {
        st = st * UINT64_C(6364136223846793005) + 1442695040888963407;
        y[k] *= 0.8 + 0.4 * (double)(st >> 11) / 9007199254740992.0;
    }
    y[1] = 1.8 * 1.2; /* 8 KiB: a spike */
    y[9] = 8;         /* 2 MiB: halfway from L2 to L3 */
    y[14] = 50;       /* 64 MiB: halfway from L3 to memory */
    struct gb__level lv[8];
    size_t nl = gb__latency_levels(x, y, n, 32 << 20, lv, 8);
    ASSERT_EQ(nl, 4);
    ASSERT_STR(lv[0].name, "L1");
    ASSERT_STR(lv[1].name, "L2");
    ASSERT_STR(lv[2].name, "LLC");
    ASSERT_STR(lv[3].name, "memory");
    ASSERT_NEAR(lv[0].to, 32768, 0);
    ASSERT_NEAR(lv[1].to, 1 << 20, 0);
    ASSERT_NEAR(lv[2].from, 4 << 20, 0);
    ASSERT_NEAR(lv[3].from, 128 << 20, 0);
    ASSERT(lv[0].value > 1.2 * 0.8 && lv[0].value < 1.2 * 1.2);
    ASSERT(lv[3].value > 90 * 0.8 && lv[3].value < 90 * 1.2);
    /* A lone point far from both neighbours is a level the sweep touched once, kept. */
    const double xs[] = {4096, 65536, 1 << 20};
    const double ys[] = {1.7, 5.2, 560};
    ASSERT_EQ(gb__latency_levels(xs, ys, 3, 0, lv, 8), 3);
    ASSERT_STR(lv[1].name, "L2");
    ASSERT_STR(lv[2].name, "memory");
}

/* A chip run, chip-quick's suites on smaller sweeps (the whole profile takes longer than this
 * test's budget on two shared cores), and its report: every chip chart drawn with data, the
 * levels in the device table. */
TEST_TIMEOUT(report_chip_quick_charts, 240)
{
    const char *dir = gb_test_tmpdir_with(
        "chip.yaml", "name: chip-report\n"
                     "measure: {warmup_runs: 1, min_samples: 3, max_samples: 3, max_time: 50ms,"
                     " min_sample_time: 2ms}\n"
                     "suites:\n"
                     "  - suite: latency\n"
                     "    params: {size: {from: 4KiB, to: 16MiB, factor: 4}, stride: 64}\n"
                     "  - suite: cache\n"
                     "    params: {size: {from: 4KiB, to: 16MiB, factor: 16}, reads: 16MiB}\n"
                     "  - suite: local\n"
                     "    params: {op: [read, write], vec: [1], stride: [1, 32, 33],"
                     " bytes: 1MiB}\n"
                     "  - suite: atomics\n"
                     "    params: {op: [global, local], type: [int32], addresses: [1, 0],"
                     " iters: 4}\n"
                     "  - suite: batching\n"
                     "    params: {op: launches, mode: [separate, fused, graph], count: 16}\n");
    int rc = sh("cd %s && POCL_DEVICES=pthread %s run chip.yaml -q -o c.json 2>&1 && "
                "%s report c.json -o rep 2>&1",
                dir, GB_TEST_EXE, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "run and report: exit %d: %s", rc, out);
    char p[1200];
    static const char *const ids[] = {"latency", "cache", "local", "atomics", "graphs"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        snprintf(p, sizeof p, "%s/rep/charts/%s.svg", dir, ids[i]);
        char *svg = gb_test_slurp(p);
        ASSERT_MSG(strlen(svg) > 500, "%s", p);
        ASSERT_MSG(!strstr(svg, "no data"), "%s says no data", p);
        free(svg);
        snprintf(p, sizeof p, "%s/rep/data/%s.csv", dir, ids[i]);
        char *csv = gb_test_slurp(p);
        ASSERT_MSG(strchr(csv, ',') != NULL, "%s", p);
        free(csv);
    }
    char *md = gb_test_slurp_in(dir, "rep/report.md");
    ASSERT_CONTAINS(md, "memory levels (latency staircase)");
    ASSERT_CONTAINS(md, "| L1 ");
    ASSERT_CONTAINS(md, "### Memory latency staircase");
    ASSERT_CONTAINS(md, "as fast as separate launches");
    ASSERT_EQ(gb_test_count(md, "could not be drawn"), 0);
    free(md);
}
