/* The startup suite: fresh helper processes, cold and warm, every stage timed
 * and the first result verified; a broken first kernel caught in the helper; helper processes
 * (run/child.h) that die or hang described as such. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results/results.h"
#include "run/child.h"
#include "test.h"

TEST_TIMEOUT(suite_startup_cold_and_warm_verify, 240)
{
    struct gb_results rs;
    gb_test_run_suite("measure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, max_samples: 3, "
                      "max_time: 30s, min_sample_time: 0}\n",
                      "startup", "{blas: off}", &rs);
    ASSERT_EQ(rs.nresults, 2);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_MSG(r->status == GB_STATUS_OK, "%s: %s", r->case_name, r->reason);
        ASSERT(r->verified);
        ASSERT_STR(r->unit, "ms");
        ASSERT_EQ(r->nsamples, 3);
        const char *stages[] = {"process", "init", "open", "build", "first", "total"};
        double sum = 0;
        for (size_t k = 0; k < 6; k++) {
            char name[48];
            snprintf(name, sizeof name, "%s_p50_ms", stages[k]);
            const struct gb_figure *f = gb_test_figure(r, name);
            ASSERT_MSG(f && f->v[0] > 0, "%s: %s", r->case_name, name);
            if (k < 5)
                sum += f->v[0];
        }
        /* The stages add up to the total (medians of sums are not sums of medians: loosely). */
        const double total = gb_test_figure(r, "total_p50_ms")->v[0];
        ASSERT_MSG(sum > 0.5 * total && sum < 2 * total, "%g vs %g", sum, total);
        ASSERT(fabs(r->value - total) < 1e-9 * total + 1e-9);
        ASSERT(!gb_test_figure(r, "blas_p50_ms"));
        ASSERT(gb_test_figure(r, "cache_env"));
    }
    gb_results_free(&rs);
}

/* Two samples of a warm case, no warm-up: enough to see the case fail or pass. */
static const char *two_warm_samples = "measure: {warmup_runs: 0, warmup_time: 0, min_samples: 2, "
                                      "max_samples: 2, max_time: 30s, min_sample_time: 0}\n";

TEST_TIMEOUT(suite_startup_broken_first_kernel_caught, 120)
{
    setenv("GPUBENCH_TEST_STARTUP_BREAK", "1", 1);
    struct gb_results rs;
    gb_test_run_suite(two_warm_samples, "startup", "{cache: warm, blas: off}", &rs);
    unsetenv("GPUBENCH_TEST_STARTUP_BREAK");
    ASSERT_EQ(rs.nresults, 1);
    ASSERT_EQ(rs.results[0].status, GB_STATUS_FAILED);
    ASSERT_CONTAINS(rs.results[0].reason, "word 4095");
    printf("caught: %s\n", rs.results[0].reason);
    gb_results_free(&rs);
}

/* A cache tree a killed worker left (its process gone) is removed by the next startup case; a
 * live process's tree, and a tree of another name, are kept. */
TEST_TIMEOUT(suite_startup_removes_trees_of_gone_processes, 120)
{
    const char *dir = gb_test_tmpdir();
    char stale[1100], live[1100], other[1100];
    snprintf(stale, sizeof stale, "%s/gpubench-startup-999999999-abcdef", dir);
    snprintf(live, sizeof live, "%s/gpubench-startup-%ld-ghijkl", dir, (long)getpid());
    snprintf(other, sizeof other, "%s/gpubench-startupX-1-mnopqr", dir);
    char out[4096];
    ASSERT_EQ(gb_test_shf(out, sizeof out, "mkdir -p '%s/warm/sub' '%s' '%s'", stale, live, other),
              0);
    setenv("TMPDIR", dir, 1);
    struct gb_results rs;
    gb_test_run_suite(two_warm_samples, "startup", "{cache: warm, blas: off}", &rs);
    unsetenv("TMPDIR");
    ASSERT_EQ(rs.nresults, 1);
    ASSERT_MSG(rs.results[0].status == GB_STATUS_OK, "%s", rs.results[0].reason);
    gb_results_free(&rs);
    struct stat st;
    ASSERT_MSG(stat(stale, &st) != 0, "%s is still there", stale);
    ASSERT_MSG(stat(live, &st) == 0, "%s was removed", live);
    ASSERT_MSG(stat(other, &st) == 0, "%s was removed", other);
}
