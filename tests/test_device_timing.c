/* Timing paths against their peers: the device-timed launch latency, the memory suite's tuned dot
 * and its stream kernels' vector widths, on the real OpenCL device (PoCL here). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/config.h"
#include "results/results.h"
#include "run/tuning_cache.h"
#include "backends/backend.h"
#include "test.h"

static const char *budget = "measure: {min_samples: 3, max_samples: 5, max_time: 50ms, "
                            "min_sample_time: 1ms, warmup_runs: 1}\n";

/* launch latency: the host-observed value and both device-timed figures, labelled, positive, and
 * the device's no longer than what the host saw. */
TEST_TIMEOUT(timing_launch_latency_device_timed, 120)
{
    struct gb_results rs;
    gb_test_run_suite(budget, "launch", "{op: [latency]}", &rs);
    ASSERT_EQ(rs.nresults, 1);
    const struct gb_result *r = &rs.results[0];
    ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "%s: %s", gb_status_name(r->status),
               r->reason);
    ASSERT_STR(r->unit, "us");
    const struct gb_figure *q = gb_test_figure(r, "device_queued_to_end");
    const struct gb_figure *x = gb_test_figure(r, "device_start_to_end");
    ASSERT(q && x);
    ASSERT_STR(q->unit, "us");
    ASSERT_STR(x->unit, "us");
    ASSERT_MSG(q->v[0] > 0 && x->v[0] > 0, "queued->end %g us, start->end %g us", q->v[0], x->v[0]);
    ASSERT_MSG(x->v[0] <= q->v[0], "start->end %g us > queued->end %g us", x->v[0], q->v[0]);
    ASSERT_MSG(q->v[0] <= r->value, "device %g us > host-observed %g us", q->v[0], r->value);
    gb_results_free(&rs);
}

/* The throughput case has no device-timed figures (its value is device-timed already). */
TEST_TIMEOUT(timing_launch_throughput_has_no_latency_figures, 120)
{
    struct gb_results rs;
    gb_test_run_suite(budget, "launch", "{op: [throughput]}", &rs);
    ASSERT_EQ(rs.nresults, 1);
    ASSERT_EQ(rs.results[0].status, GB_STATUS_OK);
    ASSERT(!gb_test_figure(&rs.results[0], "device_queued_to_end"));
    gb_results_free(&rs);
}

/* memory dot with the tuning cache: an entry written through the cache's API for this device
 * and 1 Mi floats (4 MiB) makes config tuned (and auto) run that configuration and say so;
 * config default runs BabelStream's kernel; a size without an entry skips tuned and runs auto
 * as the default; double skips tuned. Every case that runs verifies. */
TEST_TIMEOUT(timing_memory_dot_runs_the_tuned_configuration, 180)
{
    char cache[512];
    const char *const names[] = {"WG", "VEC", "LAYOUT", "REDUCE", "GPC"};
    const int64_t vals[] = {64, 4, 0, 1, 4};
    gb_test_tuning_cache(cache, sizeof cache, "dot", "n=1048576 type=float", 5, names, vals);

    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "%stuning_cache: %s\nsuites:\n  - suite: memory\n"
             "    params: {op: dot, type: float, size: [4MiB, 1MiB], config: [auto, default, "
             "tuned]}\n"
             "  - suite: memory\n    tuned: true\n"
             "    params: {op: dot, type: [float, double], size: 4MiB, config: tuned}\n",
             budget, cache);
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    ASSERT_EQ(rs.nresults, 8);
    const char *const tuned = "WG=64 VEC=4 LAYOUT=0 REDUCE=1 GPC=4 (tuned)";
    const char *const dflt = "stream_dot WG="; /* then the device type's sizing: a prefix */
    const struct {
        const char *size, *config, *text; /* text NULL: skipped */
        const char *type;
    } want[] = {
        {"4194304", "auto", tuned, "float"},   {"4194304", "default", dflt, "float"},
        {"4194304", "tuned", tuned, "float"},  {"1048576", "auto", dflt, "float"},
        {"1048576", "default", dflt, "float"}, {"1048576", "tuned", NULL, "float"},
        {"4194304", "tuned", tuned, "float"},  {"4194304", "tuned", NULL, "double"},
    };
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        char p[256];
        gb_params_format(&r->params, p, sizeof p);
        ASSERT_STR(gb_params_str(&r->params, "config"), want[i].config);
        ASSERT_STR(gb_params_str(&r->params, "type"), want[i].type);
        ASSERT_EQ(gb_params_size(&r->params, "size"), strtoull(want[i].size, NULL, 10));
        if (!want[i].text) {
            ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "%s: %s", p, gb_status_name(r->status));
            continue;
        }
        gb_test_assert_verified(r);
        ASSERT_MSG(r->max_error <= 1e-4, "%s: error %g", p, r->max_error);
        const struct gb_figure *f = gb_test_figure(r, "config");
        ASSERT_MSG(f != NULL, "%s: no config figure", p);
        if (want[i].text == dflt) {
            ASSERT_MSG(strncmp(f->text, dflt, strlen(dflt)) == 0 && strstr(f->text, "(default, "),
                       "%s: config %s", p, f->text);
            ASSERT_MSG(gb_test_figure(r, "groups") != NULL, "%s: no groups figure", p);
        } else {
            ASSERT_STR(f->text, want[i].text);
        }
    }
    ASSERT_CONTAINS(rs.results[5].reason, "no dot entry");
    gb_results_free(&rs);
}

/* The vectorised stream kernels verify at every width, including a tail of single vectors
 * (1000 vectors of 16 floats is not a whole number of 256-work-item groups); a count that is
 * not a multiple of vec, and vec 3, are recorded skips; dot ignores vec and the other kernels
 * config (normalised, so the sweep collapses). */
TEST_TIMEOUT(timing_memory_vec_widths_verify, 180)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "%ssuites:\n  - suite: memory\n    params: {op: [copy, mul, add, triad], "
             "type: [float, double], vec: [1, 2, 4, 8, 16], size: [64000, 1MiB]}\n"
             "  - suite: memory\n    params: {op: triad, type: float, vec: [3, 16], "
             "size: 4100}\n"
             "  - suite: memory\n    params: {op: [dot, triad], type: float, vec: [1, 4], "
             "config: [default, tuned], size: 1MiB}\n",
             budget);
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    /* dot: vec -> 1 (2 configs); triad: config -> default (2 vecs). */
    ASSERT_EQ(rs.nresults, 4 * 2 * 5 * 2 + 2 + 2 + 2);
    for (size_t i = 0; i < 80; i++) {
        const struct gb_result *r = &rs.results[i];
        char p[256];
        gb_params_format(&r->params, p, sizeof p);
        gb_test_assert_verified(r);
        ASSERT_MSG(r->max_error <= (strstr(p, "double") ? 1e-14 : 1e-6), "%s: error %g", p,
                   r->max_error);
    }
    /* The bytes counted do not depend on vec: 3 arrays of 1 MiB for triad (within 5%: the
     * value and the median time are medians of different samples when their count is even; a
     * count scaled by vec would be 2x to 16x off). */
    for (size_t i = 0; i < 80; i++) {
        const struct gb_result *r = &rs.results[i];
        if (gb_params_size(&r->params, "size") != 1u << 20 ||
            strcmp(gb_params_str(&r->params, "op"), "triad") != 0)
            continue;
        const double gbs = 3.0 * (1u << 20) / (r->op_time_us.median * 1e-6) / 1e9;
        ASSERT_MSG(fabs(r->value - gbs) <= 0.05 * gbs, "triad vec %lld: %g GB/s, bytes say %g",
                   (long long)gb_params_int(&r->params, "vec"), r->value, gbs);
    }
    ASSERT_EQ(rs.results[80].status, GB_STATUS_SKIPPED);
    ASSERT_CONTAINS(rs.results[80].reason, "2, 4, 8 or 16");
    ASSERT_EQ(rs.results[81].status, GB_STATUS_SKIPPED);
    ASSERT_CONTAINS(rs.results[81].reason, "not a multiple");
    for (size_t i = 82; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        if (strcmp(r->case_name, "dot") == 0)
            ASSERT_EQ(gb_params_int(&r->params, "vec"), 1);
        else
            ASSERT_STR(gb_params_str(&r->params, "config"), "default");
    }
    gb_results_free(&rs);
}

/* The memory suite's defaults follow the device type, as BabelStream's models do: on a CPU the
 * dot runs one work-group per compute unit of twice the native double width, and copy a
 * work-group of the device's largest power of two; on a GPU 16-byte vectors and 4 work-groups
 * per compute unit. The expectations come from what the device reports, so the test holds on
 * any OpenCL implementation. */
TEST_TIMEOUT(timing_memory_defaults_follow_the_device_type, 120)
{
    const struct gb_backend_ops *ops = gb_backend_find("opencl");
    if (!ops || ops->init() != 0 || ops->device_count() < 1)
        SKIP("no OpenCL device");
    struct gb_device_info info;
    ASSERT_OK(ops->device_info(0, &info));
    struct gb_results rs;
    gb_test_run_suite(budget, "memory", "{op: [copy, dot], type: float, size: 4MiB}", &rs);
    ASSERT_EQ(rs.nresults, 2);
    for (size_t i = 0; i < 2; i++)
        ASSERT_MSG(rs.results[i].status == GB_STATUS_OK && rs.results[i].verified, "%s: %s",
                   rs.results[i].case_name, rs.results[i].reason);
    const struct gb_result *copy = &rs.results[0], *dot = &rs.results[1];
    const struct gb_figure *vec = gb_test_figure(copy, "vec_used");
    const struct gb_figure *groups = gb_test_figure(dot, "groups");
    const struct gb_figure *config = gb_test_figure(dot, "config");
    ASSERT(vec && groups && config);
    const uint32_t cu = info.compute_units ? info.compute_units : 1;
    char want[64];
    if (info.type == GB_DEVICE_CPU) {
        ASSERT_NEAR(vec->v[0], 1, 0);
        ASSERT_NEAR(groups->v[0], cu, 0);
        snprintf(want, sizeof want, "stream_dot WG=%u x %u groups (default, CPU sizing)",
                 2 * (info.native_vec_double ? info.native_vec_double : 1), cu);
        ASSERT_STR(config->text, want);
        uint32_t p = 1;
        while (p <= info.max_wg_size / 2)
            p *= 2;
        const struct gb_figure *wg = gb_test_figure(copy, "wg_used");
        if (p > 256) {
            ASSERT_MSG(wg != NULL, "copy: no wg_used (device maximum %u)", info.max_wg_size);
            ASSERT_NEAR(wg->v[0], p, 0);
        }
    } else {
        ASSERT_NEAR(vec->v[0], 4, 0);
        ASSERT_MSG(groups->v[0] >= 4.0 * cu, "%g groups on %u compute units", groups->v[0], cu);
        ASSERT_CONTAINS(config->text, "GPU sizing");
    }
    gb_results_free(&rs);
}
