/* Performance parity (issue 13): the device-timed launch latency, the memory suite's tuned dot
 * and its stream kernels' vector widths, on the real OpenCL device (PoCL here). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/config.h"
#include "harness/results.h"
#include "harness/tuning_cache.h"
#include "backends/backend.h"
#include "test.h"

static const char *budget = "measure: {min_samples: 3, max_samples: 5, max_time: 50ms, "
                            "min_sample_time: 1ms, warmup_runs: 1}\n";

/* launch latency: the host-observed value and both device-timed figures, labelled, positive, and
 * the device's no longer than what the host saw. */
TEST_TIMEOUT(parity_launch_latency_device_timed, 120)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml, "%ssuites:\n  - suite: launch\n    params: {op: [latency]}\n",
             budget);
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
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
TEST_TIMEOUT(parity_launch_throughput_has_no_latency_figures, 120)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml, "%ssuites:\n  - suite: launch\n    params: {op: [throughput]}\n",
             budget);
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    ASSERT_EQ(rs.nresults, 1);
    ASSERT_EQ(rs.results[0].status, GB_STATUS_OK);
    ASSERT(!gb_test_figure(&rs.results[0], "device_queued_to_end"));
    gb_results_free(&rs);
}
