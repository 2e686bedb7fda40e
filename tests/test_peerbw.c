/* The peerbw suite (suites/peerbw.c): nvbandwidth's peer traffic patterns on two real PoCL
 * devices (POCL_DEVICES="pthread pthread", set in each test's own process before OpenCL starts)
 * and on one; the plan's canonical cases; copies broken on purpose through the suite's test hook
 * (GPUBENCH_TEST_PEERBW_BREAK) caught by verification. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suites/suites.h"
#include "run/config.h"
#include "run/plan.h"
#include "test.h"

static const char *budget = "measure: {min_samples: 3, max_samples: 5, max_time: 50ms, "
                            "min_sample_time: 1ms, warmup_runs: 1, warmup_time: 0s}\n";

static void run_peerbw(const char *pocl, const char *params, struct gb_results *rs)
{
    gb_test_run_suite_on(pocl, budget, "peerbw", params, rs);
}

static int64_t param_int(const struct gb_result *r, const char *name)
{
    const struct gb_value *v = gb_params_get(&r->params, name);
    return v && v->type == GB_V_INT ? v->u.i : -1;
}

/* ---- the plan: canonical cases (no device) -------------------------------------------------- */

TEST(peerbw_plan_pairs_roots_and_the_whole_set)
{
    const char *yaml = "suites:\n  - suite: peerbw\n    params: {method: ce, size: [1MiB, 2MiB]}\n";
    struct gb_profile p;
    gb_test_load_profile(yaml, &p);
    static const struct gb_backend_ops fake = {.name = "fake"};
    struct gb_plan_device devs[3] = {
        {.ops = &fake, .index = 0}, {.ops = &fake, .index = 1}, {.ops = &fake, .index = 2}};
    struct gb_plan plan = {.devices = devs, .ndevices = 3};
    ASSERT_OK(gb_plan_expand(&p, NULL, &plan));
    /* On 3 devices, per size: bidir once per unordered pair (3), all_to_one and one_to_all once
     * per root (3 + 3), all_to_all once, latency per ordered pair (6) at one size only (4 B). */
    size_t count[5] = {0};
    const char *ops[] = {"bidir", "all_to_one", "one_to_all", "all_to_all", "latency"};
    for (size_t i = 0; i < plan.ncases; i++) {
        const struct gb_params *q = &plan.cases[i].params;
        const char *op = gb_params_str(q, "op");
        const int64_t s = gb_params_int(q, "src"), d = gb_params_int(q, "dst");
        ASSERT_EQ(plan.cases[i].nset, 3);
        for (size_t k = 0; k < 5; k++)
            count[k] += strcmp(op, ops[k]) == 0;
        if (strcmp(op, "bidir") == 0)
            ASSERT(s < d);
        if (strcmp(op, "latency") == 0) {
            ASSERT(s != d);
            ASSERT_U64(gb_params_size(q, "size"), ==, 4);
        }
        if (strcmp(op, "all_to_one") == 0 || strcmp(op, "one_to_all") == 0)
            ASSERT_EQ(s, d); /* the root alone */
        if (strcmp(op, "all_to_all") == 0)
            ASSERT(s == 0 && d == 0);
    }
    ASSERT_EQ(count[0], 3 * 2);
    ASSERT_EQ(count[1], 3 * 2);
    ASSERT_EQ(count[2], 3 * 2);
    ASSERT_EQ(count[3], 1 * 2);
    ASSERT_EQ(count[4], 6);
    ASSERT_EQ(plan.ncases, 6 + 6 + 6 + 2 + 6);
    free(plan.cases);
    gb_profile_free(&p);
}

/* ---- two PoCL devices ------------------------------------------------------------------------ */

TEST_TIMEOUT(peerbw_two_devices_every_op_verifies_and_sm_is_a_skip, 120)
{
    struct gb_results rs;
    run_peerbw("pthread pthread", "{size: [4100, 1MiB]}", &rs);
    gb_test_need_devices(rs.ndevices, 2);
    /* Per method: bidir 1 pair, all_to_one 2 roots, one_to_all 2 roots, all_to_all 1, at two
     * sizes (12), and latency on 2 ordered pairs (2): 14 ce cases ok, 14 sm cases skipped. */
    ASSERT_EQ(rs.nresults, 28);
    size_t ok = 0, skipped = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        char pr[256];
        gb_params_format(&r->params, pr, sizeof pr);
        ASSERT_STR(r->suite, "peerbw");
        const char *op = gb_params_str(&r->params, "op");
        if (strcmp(gb_params_str(&r->params, "method"), "sm") == 0) {
            ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "%s: %s", pr, gb_status_name(r->status));
            ASSERT_CONTAINS(r->reason, "cannot address another context's buffer");
            skipped++;
            continue;
        }
        ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "%s: %s: %s", pr,
                   gb_status_name(r->status), r->reason);
        ok++;
        ASSERT_EQ(r->nset, 2); /* every op of a 2-device set uses both */
        const struct gb_figure *path = gb_test_figure(r, "path"), *link = gb_test_figure(r, "link"),
                               *links = gb_test_figure(r, "links");
        ASSERT(path && link && links);
        ASSERT_STR(path->text, "staged"); /* OpenCL: never direct */
        ASSERT_CONTAINS(link->text, "host link");
        const double nl = strcmp(op, "bidir") == 0 || strcmp(op, "all_to_all") == 0 ? 2 : 1;
        ASSERT_NEAR(links->v[0], nl, 0);
        /* The root is the result's device: dst for all_to_one, src otherwise. */
        const int64_t root =
            strcmp(op, "all_to_one") == 0 ? param_int(r, "dst") : param_int(r, "src");
        ASSERT_EQ(r->device_index, r->set[0]);
        ASSERT_EQ(r->set[0], (int)root);
        if (strcmp(op, "latency") == 0) {
            ASSERT_STR(r->unit, "us");
            const struct gb_figure *lat = gb_test_figure(r, "latency"),
                                   *kind = gb_test_figure(r, "latency_kind");
            ASSERT(lat && kind);
            ASSERT_NEAR(lat->v[0], r->value, 1e-9 * r->value);
            ASSERT_CONTAINS(kind->text, "not a pointer chase");
            continue;
        }
        ASSERT_STR(r->unit, "GB/s");
        const uint64_t size = gb_params_size(&r->params, "size");
        /* Every link's bytes, both directions of a bidirectional pair. */
        ASSERT_NEAR(r->bytes_per_op, nl * (double)size, 0);
        const struct gb_figure *agg = gb_test_figure(r, "aggregate"),
                               *per = gb_test_figure(r, "per_link"),
                               *counted = gb_test_figure(r, "counted");
        ASSERT(agg && per && counted);
        ASSERT_STR(agg->unit, "GB/s");
        ASSERT_NEAR(per->v[0], agg->v[0] / nl, 1e-12 * agg->v[0]);
        ASSERT(agg->v[0] > 0);
        if (strcmp(op, "bidir") == 0)
            ASSERT_CONTAINS(counted->text, "both directions");
        /* No device-memory bound is claimed: a staged copy is a host-link figure, and an
         * aggregate over devices is no one device's memory rate. */
        ASSERT(!gb_test_figure(r, "peak") && !r->implausible);
    }
    ASSERT_EQ(ok, 14);
    ASSERT_EQ(skipped, 14);
    gb_results_free(&rs);
}

/* A copy broken on purpose (one byte flipped in the source; the reverse link's bytes sent) is
 * caught by verification and recorded as failed, for a pair, the whole set and the latency. */
TEST_TIMEOUT(peerbw_broken_copies_fail_verification, 120)
{
    const char *how[] = {"byte", "swap"};
    for (size_t h = 0; h < 2; h++) {
        setenv("GPUBENCH_TEST_PEERBW_BREAK", how[h], 1);
        struct gb_results rs;
        run_peerbw("pthread pthread",
                   "{op: [bidir, all_to_one, all_to_all, latency], method: ce, size: 64KiB}", &rs);
        gb_test_need_devices(rs.ndevices, 2);
        ASSERT_EQ(rs.nresults, 1 + 2 + 1 + 2);
        for (size_t i = 0; i < rs.nresults; i++) {
            const struct gb_result *r = &rs.results[i];
            ASSERT_MSG(r->status == GB_STATUS_FAILED, "%s %s: %s", how[h], r->case_name,
                       gb_status_name(r->status));
            ASSERT_CONTAINS(r->reason, "verification failed");
            ASSERT_CONTAINS(r->reason, "link ");
            printf("%s %s: %s\n", how[h], r->case_name, r->reason);
        }
        gb_results_free(&rs);
    }
    /* The same cases without the hook pass: the failures above are the hook's. */
    unsetenv("GPUBENCH_TEST_PEERBW_BREAK");
    struct gb_results rs;
    run_peerbw("pthread pthread",
               "{op: [bidir, all_to_one, all_to_all, latency], method: ce, size: 64KiB}", &rs);
    for (size_t i = 0; i < rs.nresults; i++)
        ASSERT_MSG(rs.results[i].status == GB_STATUS_OK && rs.results[i].verified, "%s: %s",
                   rs.results[i].case_name, rs.results[i].reason);
    gb_results_free(&rs);
}

/* One device: the set-wide ops are recorded skips with the reason; the pair ops have no case
 * (a pair needs two positions, as the peer matrix drops the positions a set lacks). */
TEST_TIMEOUT(peerbw_one_device_skips_with_a_reason, 60)
{
    struct gb_results rs;
    run_peerbw("pthread", "{size: 64KiB}", &rs);
    gb_test_need_one_device(rs.ndevices);
    ASSERT_EQ(rs.nresults, 3 * 2); /* all_to_one, one_to_all, all_to_all; ce and sm */
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "%s: %s", r->case_name,
                   gb_status_name(r->status));
        ASSERT_CONTAINS(r->reason, "needs at least 2 devices");
        ASSERT_EQ(r->nset, 1);
    }
    gb_results_free(&rs);
}

/* A size no device holds is a recorded skip that names the device and the sizes, in peerbw and
 * peer alike (it had failed with "out of host memory"). */
TEST_TIMEOUT(peerbw_and_peer_oversized_is_a_skip, 60)
{
    setenv("POCL_DEVICES", "pthread pthread", 1);
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "%ssuites:\n  - suite: peerbw\n    params: {op: [bidir, all_to_all], method: ce, "
             "size: 1TiB}\n  - suite: peer\n    params: {size: 1TiB}\n",
             budget);
    struct gb_results rs;
    gb_test_run_profile(yaml, NULL, &rs);
    gb_test_need_devices(rs.ndevices, 2);
    ASSERT(rs.nresults >= 3);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "%s %s: %s: %s", r->suite, r->case_name,
                   gb_status_name(r->status), r->reason);
        ASSERT_CONTAINS(r->reason, "of the set, whose largest allocation is");
    }
    gb_results_free(&rs);
}

/* Three devices: several links into and out of one device at once, each on its own queue. */
TEST_TIMEOUT(peerbw_three_devices_many_links_per_device_verify, 120)
{
    struct gb_results rs;
    run_peerbw("pthread pthread pthread",
               "{op: [bidir, all_to_one, one_to_all, all_to_all], method: ce, size: 1MiB}", &rs);
    gb_test_need_devices(rs.ndevices, 3);
    ASSERT_EQ(rs.nresults, 3 + 3 + 3 + 1);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "%s: %s", r->case_name, r->reason);
        const char *op = gb_params_str(&r->params, "op");
        const bool pair = strcmp(op, "bidir") == 0;
        ASSERT_EQ(r->nset, pair ? 2 : 3);
        const struct gb_figure *links = gb_test_figure(r, "links");
        ASSERT(links);
        ASSERT_NEAR(links->v[0], pair ? 2 : strcmp(op, "all_to_all") == 0 ? 6 : 2, 0);
        ASSERT_NEAR(r->bytes_per_op, links->v[0] * 1048576.0, 0);
    }
    gb_results_free(&rs);
}

/* The report draws peerbw's patterns and latency as bars (per pattern and method). */
TEST_TIMEOUT(peerbw_report_draws_patterns_and_latency, 120)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "%ssuites:\n  - suite: peerbw\n    params: {method: [ce, sm], size: 256KiB}\n",
             budget);
    const char *dir = gb_test_run_and_report("pthread pthread", yaml);
    char *md = gb_test_slurp_in(dir, "rep/report.md");
    ASSERT_CONTAINS(md, "### Peer traffic patterns (nvbandwidth)");
    ASSERT_CONTAINS(md, "### Peer copy latency (4 bytes)");
    if (!strstr(md, "opencl:1")) {
        free(md);
        SKIP("needs two OpenCL devices; the implementation offers one with "
             "POCL_DEVICES=\"pthread pthread\" (only PoCL makes devices from it)");
    }
    ASSERT(!strstr(md, "*No data: no peerbw results"));
    ASSERT(!strstr(md, "*No data: no peerbw latency results"));
    ASSERT_CONTAINS(md, "all\\_to\\_all");
    ASSERT_CONTAINS(md, ": latency ");
    free(md);
    char *csv = gb_test_slurp_in(dir, "rep/data/peer_patterns.csv");
    ASSERT_CONTAINS(csv, "bidir,");
    free(csv);
}
