/* The batching suite: the knee of a bandwidth curve and the latency fit it reports (base/curve,
 * on synthetic curves), and the suite on the real OpenCL device (PoCL here): copies, launches and
 * GEMMs, with the figures derived across cases. */
#include <stdlib.h>

#include "base/curve.h"
#include "base/error.h"
#include "results/results.h"
#include "test.h"

/* ---- knee and latency fit ----------------------------------------------------------------- */

TEST(curve_knee_of_a_synthetic_latency_bandwidth_curve)
{
    /* y(x) = x / (t0 + x / B): Hockney's model with t0 = 10 us and B = 20 GB/s reaches 90% of B
     * at x = 9 t0 B = 1.8 MB; sampled at powers of two, the knee is 2 MiB. */
    const double t0 = 10e-6, B = 20e9;
    double x[24], y[24], t[24];
    size_t n = 0;
    for (double s = 1024; s <= 1024.0 * 1024 * 1024; s *= 2, n++) {
        x[n] = s;
        t[n] = t0 + s / B;
        y[n] = s / t[n] / 1e9;
    }
    struct gb_knee k;
    ASSERT_OK(gb_curve_knee(x, y, n, 0.9, &k));
    ASSERT_NEAR(k.knee_x, 2097152.0, 0);
    ASSERT(k.plateau);
    ASSERT(k.asymptote > 0.99 * B / 1e9 && k.asymptote <= B / 1e9);
    ASSERT(y[k.knee_index] >= 0.9 * k.asymptote && y[k.knee_index - 1] < 0.9 * k.asymptote);

    /* One noisy high point at a small size is no knee: the curve must stay up from there. */
    y[2] = 1.5 * B / 1e9;
    ASSERT_OK(gb_curve_knee(x, y, n, 0.9, &k));
    ASSERT_NEAR(k.knee_x, 2097152.0, 0);

    /* Order does not matter. */
    double xr[24], yr[24];
    for (size_t i = 0; i < n; i++)
        xr[i] = x[n - 1 - i], yr[i] = y[n - 1 - i];
    ASSERT_OK(gb_curve_knee(xr, yr, n, 0.9, &k));
    ASSERT_NEAR(k.knee_x, 2097152.0, 0);

    /* A curve still climbing at its end has no plateau: the asymptote is a lower bound. */
    ASSERT_OK(gb_curve_knee(x, y, 8, 0.9, &k));
    ASSERT(!k.plateau);

    /* The fit recovers t0 and B. */
    double ft0, fb;
    ASSERT_OK(gb_curve_fit_latency(x, t, n, &ft0, &fb));
    ASSERT_NEAR(ft0, t0, 1e-9);
    ASSERT_NEAR(fb / B, 1.0, 1e-6);

    ASSERT_EQ(gb_curve_knee(x, y, 0, 0.9, &k), GB_EINVAL);
    ASSERT_EQ(gb_curve_knee(x, y, n, 1.5, &k), GB_EINVAL);
    ASSERT_EQ(gb_curve_fit_latency(x, t, 1, &ft0, &fb), GB_EINVAL);
}

/* ---- the batching suite on the real device ------------------------------------------------ */

static const char *budget = "measure: {min_samples: 3, max_samples: 5, max_time: 50ms, "
                            "min_sample_time: 1ms, warmup_runs: 1}\n";

static const struct gb_result *find_case(const struct gb_results *rs, const char *case_name,
                                         const char *mode)
{
    for (size_t i = 0; i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        if (strcmp(r->suite, "batching") == 0 && strcmp(r->case_name, case_name) == 0 &&
            (!mode || strcmp(gb_params_str(&r->params, "mode"), mode) == 0))
            return r;
    }
    GB__FAIL_AT("no batching result %s %s", case_name, mode ? mode : "");
}

TEST_TIMEOUT(batching_knee_launch_overhead_and_batched_gemm_on_a_real_run, 180)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "%ssuites:\n"
             "  - suite: batching\n"
             "    params: {op: copies, mode: [async, each], count: 4, "
             "size: {from: 4KiB, to: 16MiB, factor: 4}}\n"
             "  - suite: batching\n"
             "    params: {op: launches, mode: [separate, fused, graph], count: 32, items: 64}\n"
             "  - suite: batching\n"
             "    params: {op: gemm, mode: [batched, loop], count: 8, dim: 24}\n",
             budget);
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    double lo = 4.0 * 4096, hi = 4.0 * 16 * 1048576;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        char p[256];
        gb_params_format(&r->params, p, sizeof p);
        if (strcmp(gb_params_str(&r->params, "mode"), "graph") == 0 &&
            r->status == GB_STATUS_SKIPPED) {
            /* A device without launch graphs; PoCL has them (cl_khr_command_buffer). */
            ASSERT_CONTAINS(r->reason, "GB_CAP_GRAPH");
            continue;
        }
        ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "%s %s: %s: %s", r->case_name, p,
                   gb_status_name(r->status), r->reason);
    }
    /* The knee of each copy mode, on its largest batch: a measured batch size, from which on
     * every batch is at >= 90% of the asymptote. */
    const char *modes[2] = {"async", "each"};
    for (int m = 0; m < 2; m++) {
        const struct gb_result *k = NULL;
        for (size_t i = 0; i < rs.nresults; i++)
            if (strcmp(rs.results[i].case_name, "copies") == 0 &&
                strcmp(gb_params_str(&rs.results[i].params, "mode"), modes[m]) == 0 &&
                gb_test_figure(&rs.results[i], "knee"))
                k = &rs.results[i];
        ASSERT_MSG(k != NULL, "no knee for %s", modes[m]);
        ASSERT_EQ(gb_params_size(&k->params, "size"), 16 * 1048576);
        double knee = gb_test_need_figure(k, "knee")->v[0],
               asym = gb_test_need_figure(k, "asymptote")->v[0];
        ASSERT_STR(gb_test_need_figure(k, "knee")->unit, "B");
        ASSERT(knee >= lo && knee <= hi);
        ASSERT(asym > 0);
        ASSERT(gb_test_need_figure(k, "overhead_us")->v[0] >= 0);
        bool seen = false;
        for (size_t i = 0; i < rs.nresults; i++) {
            const struct gb_result *r = &rs.results[i];
            if (strcmp(r->case_name, "copies") ||
                strcmp(gb_params_str(&r->params, "mode"), modes[m]))
                continue;
            double batch = 4.0 * (double)gb_params_size(&r->params, "size");
            if (batch >= knee)
                ASSERT_MSG(r->value >= 0.9 * asym, "%s: %.0f B at %.3f GB/s below 90%% of %.3f",
                           modes[m], batch, r->value, asym);
            seen |= batch == knee;
        }
        ASSERT(seen);
    }
    /* Per-launch overhead from separate and fused. */
    const struct gb_result *sep = find_case(&rs, "launches", "separate");
    const struct gb_result *fus = find_case(&rs, "launches", "fused");
    ASSERT_STR(gb_test_need_figure(sep, "launch_overhead_us")->unit, "us");
    ASSERT_NEAR(gb_test_need_figure(sep, "launch_overhead_us")->v[0],
                (sep->op_time_us.median - fus->op_time_us.median) / 31.0, 1e-9);
    /* The batched GEMM carries its speedup over the loop. */
    const struct gb_result *bg = find_case(&rs, "gemm", "batched");
    ASSERT_STR(bg->unit, "GFLOP/s");
    ASSERT(gb_test_need_figure(bg, "speedup_vs_loop")->v[0] > 0);
    gb_results_free(&rs);
}
