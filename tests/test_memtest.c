/* The memtest suite on PoCL: every pattern passes on healthy memory, in one buffer and in
 * several (the test hook GPUBENCH_TEST_MEMTEST_CHUNK takes smaller chunks than the device's
 * largest buffer); a planted bit flip is caught and named by its address in the region and its
 * bit, in every pattern, in one chunk or a later one; a fraction that does not fit is a skip. */
#include <stdlib.h>
#include <string.h>

#include "results/results.h"
#include "run/footprint.h"
#include "run/config.h"
#include "run/plan.h"
#include "suites/suites.h"
#include "test.h"

#define MEMTEST_HEAD                                                                              \
    "measure: {warmup_runs: 1, warmup_time: 0, min_samples: 2, max_samples: 3, max_time: 200ms, " \
    "min_sample_time: 0}\n"

#define PATTERNS "[walking_ones, walking_zeros, moving_inversions, random, address]"

TEST_TIMEOUT(suite_memtest_every_pattern_passes_on_healthy_memory, 120)
{
    unsetenv("GPUBENCH_TEST_MEMTEST_FLIP");
    struct gb_results rs;
    gb_test_run_suite(MEMTEST_HEAD, "memtest", "{pattern: " PATTERNS ", fraction: 1, cap: 1MiB}",
                      &rs);
    ASSERT_EQ(rs.nresults, 5);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        gb_test_assert_verified(r);
        ASSERT_EQ(gb_test_need_figure(r, "errors")->v[0], 0);
        /* The cap, in whole pages. */
        ASSERT_NEAR(gb_test_need_figure(r, "bytes_tested")->v[0], 1048576, 0);
        ASSERT_EQ(gb_test_need_figure(r, "chunks")->v[0], 1);
        ASSERT_STR(r->unit, "GB/s");
    }
    gb_results_free(&rs);
}

TEST_TIMEOUT(suite_memtest_planted_flip_is_caught_with_its_address, 120)
{
    /* Byte 0x2003, bit 5: bit 29 of the word at byte offset 0x2000. */
    setenv("GPUBENCH_TEST_MEMTEST_FLIP", "8195:5", 1);
    struct gb_results rs;
    gb_test_run_suite(MEMTEST_HEAD, "memtest", "{pattern: " PATTERNS ", fraction: 1, cap: 64KiB}",
                      &rs);
    unsetenv("GPUBENCH_TEST_MEMTEST_FLIP");
    ASSERT_EQ(rs.nresults, 5);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        printf("%-18s %s\n", r->case_name, r->reason);
        ASSERT_EQ(r->status, GB_STATUS_FAILED);
        ASSERT_CONTAINS(r->reason, "failed-memory: 1 error in verify's pass");
        ASSERT_CONTAINS(r->reason, "word at byte offset 0x2000");
        ASSERT_CONTAINS(r->reason, "(bits 0x20000000)");
    }
    gb_results_free(&rs);
}

TEST_TIMEOUT(suite_memtest_chunks_name_region_addresses, 120)
{
    /* 64 KiB in chunks of 16 KiB: byte 0x9001 (bit 0 of its word's byte 1: bit 8) lies in the
     * third chunk, and is named by its offset in the region. */
    setenv("GPUBENCH_TEST_MEMTEST_CHUNK", "16384", 1);
    struct gb_results rs;
    gb_test_run_suite(MEMTEST_HEAD, "memtest",
                      "{pattern: [moving_inversions, address], fraction: 1, cap: 64KiB}", &rs);
    ASSERT_EQ(rs.nresults, 2);
    for (size_t i = 0; i < rs.nresults; i++) {
        gb_test_assert_verified(&rs.results[i]);
        ASSERT_EQ(gb_test_need_figure(&rs.results[i], "chunks")->v[0], 4);
    }
    gb_results_free(&rs);
    setenv("GPUBENCH_TEST_MEMTEST_FLIP", "36865:0", 1);
    gb_test_run_suite(MEMTEST_HEAD, "memtest",
                      "{pattern: [moving_inversions, address], fraction: 1, cap: 64KiB}", &rs);
    unsetenv("GPUBENCH_TEST_MEMTEST_FLIP");
    unsetenv("GPUBENCH_TEST_MEMTEST_CHUNK");
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        printf("%-18s %s\n", r->case_name, r->reason);
        ASSERT_EQ(r->status, GB_STATUS_FAILED);
        ASSERT_CONTAINS(r->reason, "word at byte offset 0x9000");
        ASSERT_CONTAINS(r->reason, "(bits 0x00000100)");
    }
    gb_results_free(&rs);
}

TEST(suite_memtest_too_large_a_fraction_is_a_skip)
{
    unsetenv("GPUBENCH_TEST_MEMTEST_FLIP");
    struct gb_results rs;
    /* Less than a page. */
    gb_test_run_suite(MEMTEST_HEAD, "memtest", "{pattern: address, fraction: 0.5, cap: 100}", &rs);
    ASSERT_EQ(rs.nresults, 1);
    ASSERT_EQ(rs.results[0].status, GB_STATUS_SKIPPED);
    ASSERT_CONTAINS(rs.results[0].reason, "less than one 4096-byte page");
    gb_results_free(&rs);
    /* Half of an 80 GiB device whose largest buffer is 20 GiB: two chunks of 20 GiB, which a
     * host-memory device with 8 GiB available cannot hold (the runner's footprint check: a skip
     * before setup). */
    const struct gb_suite *s = gb_suite_table_find(gb_suites_builtin(), "memtest");
    ASSERT(s && s->footprint);
    struct gb_profile p;
    struct gb_plan plan;
    gb_test_plan_case("memtest", "{pattern: address, fraction: 0.5}", &p, &plan);
    const struct gb_device_info info = {
        .global_mem = 80ull << 30, .max_alloc = 20ull << 30, .caps = GB_CAP_UNIFIED};
    struct gb_footprint fp = {0};
    s->footprint(&plan.cases[0].params, &info, &fp);
    ASSERT_NEAR(fp.device, 40.0 * (1ull << 30), 0);
    ASSERT_NEAR(fp.largest, 20.0 * (1ull << 30), 0);
    const struct gb_host_memory host = {.avail = 8ull << 30, .what = "MemAvailable"};
    char why[512];
    ASSERT_EQ(gb_footprint_check(&fp, &host, &info, why, sizeof why), GB_ESKIP);
    printf("%s\n", why);
    ASSERT_CONTAINS(why, "needs");
    gb_plan_free(&plan);
    gb_profile_free(&p);
}

TEST(suite_memtest_bad_fraction_is_refused_at_load)
{
    char out[4096];
    const char *dir =
        gb_test_tmpdir_with("p.yaml", "suites:\n  - suite: memtest\n    params: {fraction: 1.5}\n");
    int rc = gb_test_shf(out, sizeof out, "%s validate %s/p.yaml 2>&1", GB_TEST_EXE, dir);
    ASSERT_MSG(rc != 0, "fraction 1.5 accepted: %s", out);
    ASSERT_CONTAINS(out, "(0, 1]");
}
