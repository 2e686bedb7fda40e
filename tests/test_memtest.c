/* The memtest suite on PoCL: every pattern passes on healthy memory, in one buffer and in
 * several (the test hook GPUBENCH_TEST_MEMTEST_CHUNK takes smaller chunks than the device's
 * largest buffer); a planted bit flip is caught and named by its address in the region and its
 * bit, in every pattern, in one chunk or a later one; a fraction that does not fit is a skip;
 * walking ones and zeros cost two passes; the region follows free memory and a time budget. */
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
        /* Passes over the region per run (suites/memtest.c): walking 2, moving inversions 9 x
         * (1 + 2 + 2), random and address 4; bytes moved that many regions. No budget: all of
         * it tested. */
        const double want = strncmp(r->case_name, "walking", 7) == 0         ? 2
                            : strcmp(r->case_name, "moving_inversions") == 0 ? 45
                                                                             : 4;
        ASSERT_EQ(gb_test_need_figure(r, "passes")->v[0], want);
        ASSERT_NEAR(gb_test_need_figure(r, "bytes_moved")->v[0], want * 1048576, 0);
        ASSERT_NEAR(gb_test_need_figure(r, "coverage")->v[0], 1, 0);
    }
    gb_results_free(&rs);
}

/* Walking ones and zeros make one write and one check pass over the region: on 4 MiB, 8 MiB
 * moved per run. The region is a fraction of what the device has free: on PoCL (its memory the
 * host's) the host's share, said in free_from. */
TEST_TIMEOUT(suite_memtest_walking_is_two_passes_over_free_memory, 60)
{
    unsetenv("GPUBENCH_TEST_MEMTEST_FLIP");
    struct gb_results rs;
    gb_test_run_suite(MEMTEST_HEAD, "memtest",
                      "{pattern: [walking_ones, walking_zeros], fraction: 1, cap: 4MiB}", &rs);
    ASSERT_EQ(rs.nresults, 2);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        gb_test_assert_verified(r);
        ASSERT_NEAR(gb_test_need_figure(r, "bytes_tested")->v[0], 4194304, 0);
        ASSERT_EQ(gb_test_need_figure(r, "passes")->v[0], 2);
        ASSERT_NEAR(gb_test_need_figure(r, "bytes_moved")->v[0], 2 * 4194304.0, 0);
        const struct gb_figure *from = gb_test_need_figure(r, "free_from");
        printf("%s: free_from %s\n", r->case_name, from->text);
        ASSERT_MSG(strncmp(from->text, "host ", 5) == 0, "free_from %s", from->text);
    }
    gb_results_free(&rs);
}

/* A budget that cannot cover the region: half the host's share asked, what one run covers in
 * 50 ms tested, coverage below 1 and said of what; a planted flip is still caught in what is
 * tested. */
TEST_TIMEOUT(suite_memtest_budget_shrinks_the_region_and_says_so, 60)
{
    unsetenv("GPUBENCH_TEST_MEMTEST_FLIP");
    struct gb_host_memory host;
    gb_host_memory(&host);
    struct gb_results rs;
    gb_test_run_suite(MEMTEST_HEAD, "memtest",
                      "{pattern: walking_ones, fraction: 0.5, budget: 0.05}", &rs);
    ASSERT_EQ(rs.nresults, 1);
    const struct gb_result *r = &rs.results[0];
    gb_test_assert_verified(r);
    const double asked = gb_test_need_figure(r, "bytes_asked")->v[0];
    const double tested = gb_test_need_figure(r, "bytes_tested")->v[0];
    const double cov = gb_test_need_figure(r, "coverage")->v[0];
    printf("asked %.4g, tested %.4g, coverage %.4g, host %.4g (%s): %s\n", asked, tested, cov,
           (double)host.avail, host.what, gb_test_need_figure(r, "coverage_of")->text);
    /* Half of 90% of what the host had available (which moves while others run: a factor 2). */
    const double want = 0.5 * GB_FOOTPRINT_HOST_SHARE * (double)host.avail;
    ASSERT_MSG(host.avail == 0 || (asked > want / 2 && asked < want * 2), "asked %g, want %g",
               asked, want);
    ASSERT(tested >= 4096 && tested < asked);
    ASSERT_NEAR(cov, tested / asked, 1e-12);
    ASSERT_NEAR(gb_test_need_figure(r, "bytes_moved")->v[0], 2 * tested, 0);
    ASSERT_CONTAINS(gb_test_need_figure(r, "coverage_of")->text, "0.5 x free memory (host ");
    gb_results_free(&rs);
    setenv("GPUBENCH_TEST_MEMTEST_FLIP", "8195:5", 1);
    gb_test_run_suite(MEMTEST_HEAD, "memtest",
                      "{pattern: walking_ones, fraction: 0.5, budget: 0.05}", &rs);
    unsetenv("GPUBENCH_TEST_MEMTEST_FLIP");
    ASSERT_EQ(rs.nresults, 1);
    printf("%s\n", rs.results[0].reason);
    ASSERT_EQ(rs.results[0].status, GB_STATUS_FAILED);
    ASSERT_CONTAINS(rs.results[0].reason, "word at byte offset 0x2000");
    ASSERT_CONTAINS(rs.results[0].reason, "(bits 0x20000000)");
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
     * 32 GiB device cannot hold (the runner's footprint check: a skip before setup). */
    const struct gb_suite *s = gb_suite_table_find(gb_suites_builtin(), "memtest");
    ASSERT(s && s->footprint);
    struct gb_profile p;
    struct gb_plan plan;
    gb_test_plan_case("memtest", "{pattern: address, fraction: 0.5}", &p, &plan);
    struct gb_device_info info = {.global_mem = 80ull << 30, .max_alloc = 20ull << 30};
    struct gb_footprint fp = {0};
    s->footprint(&plan.cases[0].params, &info, &fp);
    ASSERT_NEAR(fp.device, 40.0 * (1ull << 30), 0);
    ASSERT_NEAR(fp.largest, 20.0 * (1ull << 30), 0);
    const struct gb_host_memory host = {.avail = 8ull << 30, .what = "MemAvailable"};
    struct gb_device_info small = info;
    small.global_mem = 32ull << 30;
    char why[512];
    ASSERT_EQ(gb_footprint_check(&fp, &host, &small, why, sizeof why), GB_ESKIP);
    printf("%s\n", why);
    ASSERT_CONTAINS(why, "needs");
    /* A device whose memory is the host's: half of the host's share, which fits in it. */
    info.caps = GB_CAP_UNIFIED;
    struct gb_host_memory now;
    gb_host_memory(&now);
    s->footprint(&plan.cases[0].params, &info, &fp);
    printf("unified: %.4g bytes of %.4g available\n", fp.device, (double)now.avail);
    /* (A factor 2 of slack: the host's memory moves while others run.) */
    ASSERT(fp.device <= 2 * 0.5 * GB_FOOTPRINT_HOST_SHARE * (double)now.avail);
    gb_plan_free(&plan);
    gb_profile_free(&p);
}

TEST(suite_memtest_bad_fraction_is_refused_at_load)
{
    gb_test_validate_refuses("suites:\n  - suite: memtest\n    params: {fraction: 1.5}\n",
                             "(0, 1]");
}
