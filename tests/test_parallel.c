/* The parallel suite (suites/parallel.c) on four PoCL devices (POCL_DEVICES="pthread pthread
 * pthread pthread", set in each test's own process before OpenCL starts): every pattern on 1, 2
 * and 4 devices verified against the unsplit computation, its figures' structure and closed
 * forms (GPipe's ideal bubble against hand values), and the planted faults of its test hook
 * caught by verification. Small sizes: a few seconds each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"
#include "suites/multi_common.h"
#include "test.h"

static const char *par_budget = "measure: {min_samples: 3, max_samples: 5, max_time: 50ms, "
                                "min_sample_time: 1ms, warmup_runs: 1, warmup_time: 0s}\n";

/* h 64: a layer's gradient is 16 KiB, so buckets of 16 KiB hold one layer and 64 KiB all four. */
static void run_parallel(const char *params, struct gb_results *rs)
{
    setenv("POCL_DEVICES", "pthread pthread pthread pthread", 1);
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "%ssuites:\n  - suite: parallel\n    params: {h: 64, tokens: 16, layers: 4, %s}\n",
             par_budget, params);
    gb_test_run_profile(yaml, NULL, rs);
    gb_test_need_devices(rs->ndevices, 4);
}

static const char *par_case(const struct gb_result *r, char *p, size_t cap)
{
    gb_params_format(&r->params, p, cap);
    return p;
}

TEST_TIMEOUT(parallel_every_pattern_verifies_on_one_two_and_four_devices, 60)
{
    struct gb_results rs;
    run_parallel("pattern: [tensor, pipeline, data], ndev: [1, 2, 4], variant: [allreduce, "
                 "sequence], microbatches: [1, 4], bucket: [16KiB, 64KiB]",
                 &rs);
    /* tensor: 2 variants, pipeline: 2 micro-batch counts, data: 2 buckets; each on 1, 2, 4
     * devices. The axes a pattern ignores do not repeat its cases. */
    ASSERT_EQ(rs.nresults, 18);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        gb_test_assert_verified(r);
        ASSERT(r->value > 0);
        const int64_t n = gb_params_int(&r->params, "ndev");
        ASSERT_EQ(r->nset, n);
        const double step = gb_test_need_figure(r, "step")->v[0];
        ASSERT(step > 0);
        ASSERT_STR(gb_test_need_figure(r, "path")->text, n == 1 ? "none" : "staged");
        if (n > 1) {
            /* The runner's speedup and efficiency against the same case on one device. */
            const struct gb_figure *sp = gb_test_need_figure(r, "speedup");
            ASSERT_NEAR(gb_test_need_figure(r, "efficiency")->v[0], sp->v[0] / (double)n, 1e-12);
        }
        if (strcmp(r->case_name, "pipeline") == 0) {
            const int64_t m = gb_params_int(&r->params, "microbatches");
            const struct gb_figure *busy = gb_test_need_figure(r, "busy");
            ASSERT(busy->per_device && busy->n == (size_t)n);
            double sum = 0;
            for (size_t s = 0; s < busy->n; s++) {
                ASSERT(busy->v[s] > 0);
                sum += busy->v[s];
            }
            /* bubble = 1 - sum(busy) / (S step), the step measured with the busy times. */
            const double parts = gb_test_need_figure(r, "step_parts")->v[0];
            ASSERT(parts > 0);
            ASSERT_NEAR(gb_test_need_figure(r, "bubble")->v[0], 1.0 - sum / ((double)n * parts),
                        1e-9);
            ASSERT(gb_test_need_figure(r, "bubble")->v[0] <= 1.0);
            /* GPipe's (S - 1) / (m + S - 1), by hand. */
            const double ideal = gb_test_need_figure(r, "bubble_ideal")->v[0];
            const double hand = n == 1   ? 0.0
                                : n == 2 ? (m == 1 ? 0.5 : 0.2)
                                         : (m == 1 ? 0.75 : 3.0 / 7.0);
            ASSERT_NEAR(ideal, hand, 1e-15);
            continue;
        }
        const double compute = gb_test_need_figure(r, "compute")->v[0],
                     comm = gb_test_need_figure(r, "comm")->v[0];
        ASSERT(compute > 0);
        ASSERT(n == 1 ? comm == 0 : comm > 0);
        ASSERT_NEAR(gb_test_need_figure(r, "serial")->v[0], compute + comm,
                    1e-9 * (compute + comm));
        const double parts = gb_test_need_figure(r, "step_parts")->v[0];
        ASSERT(parts > 0);
        /* overlap: the share within 0.1 of [0, 1], else a text saying why there is none. */
        const struct gb_figure *ov = gb_test_figure(r, "overlap");
        ASSERT(n == 1 ? ov == NULL : ov != NULL);
        if (ov && ov->n == 0) {
            ASSERT_CONTAINS(ov->text, "not overlap");
        } else if (ov) {
            ASSERT_NEAR(ov->v[0], (compute + comm - parts) / (compute < comm ? compute : comm),
                        1e-9 * fabs(ov->v[0]) + 1e-12);
            ASSERT(ov->v[0] >= -0.1 && ov->v[0] <= 1.1);
        }
        const double oh = gb_test_need_figure(r, "overhead")->v[0];
        ASSERT_NEAR(oh, parts > compute + comm ? parts - compute - comm : 0, 1e-12);
        if (strcmp(r->case_name, "data") == 0)
            ASSERT_EQ(gb_test_need_figure(r, "buckets")->v[0],
                      gb_params_size(&r->params, "bucket") == 16384 ? 4 : 1);
    }
    gb_results_free(&rs);
}

/* Every case of `params` on 2 and 4 devices under GPUBENCH_TEST_PARALLEL=hook: those of the
 * patterns in `broken` fail verification, the others stay ok. */
static void planted(const char *hook, const char *params, const char *broken)
{
    setenv("GPUBENCH_TEST_PARALLEL", hook, 1);
    struct gb_results rs;
    run_parallel(params, &rs);
    ASSERT(rs.nresults > 0);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        char p[256];
        if (strstr(broken, r->case_name)) {
            ASSERT_MSG(r->status == GB_STATUS_FAILED && !r->verified, "%s %s %s: %s", hook,
                       r->case_name, par_case(r, p, sizeof p), gb_status_name(r->status));
            ASSERT_CONTAINS(r->reason, "verification failed");
        } else {
            ASSERT_MSG(r->status == GB_STATUS_OK, "%s %s %s: %s", hook, r->case_name,
                       par_case(r, p, sizeof p), r->reason);
        }
    }
    gb_results_free(&rs);
}

TEST_TIMEOUT(parallel_skipped_allreduce_fails_verification, 60)
{
    planted("skip-allreduce",
            "pattern: [tensor, data], ndev: [2, 4], variant: [allreduce, sequence], bucket: "
            "16KiB",
            "tensor data");
}

TEST_TIMEOUT(parallel_wrong_stage_fails_verification, 60)
{
    planted("wrong-stage", "pattern: [pipeline, tensor], ndev: [2, 4], microbatches: [1, 4]",
            "pipeline");
    /* The same in the timed steps only: the recorded step that verify runs is right, and the
     * outputs the timed steps left are what fails. */
    planted("wrong-stage-timed", "pattern: pipeline, ndev: [2, 4], microbatches: [1, 4]",
            "pipeline");
}

TEST_TIMEOUT(parallel_own_gemm_kernel_verifies, 60)
{
    struct gb_results rs;
    run_parallel("pattern: [tensor, pipeline, data], ndev: 2, impl: own, variant: sequence, "
                 "microbatches: 4, bucket: 16KiB",
                 &rs);
    ASSERT_EQ(rs.nresults, 3);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        gb_test_assert_verified(r);
        ASSERT_STR(gb_test_need_figure(r, "gemm")->text, "own");
    }
    gb_results_free(&rs);
}

/* Buffers that fit each device but not the host, which CPU devices' buffers of every rank share
 * (a host of 64 MiB here; each pattern of h 1024 needs more): a skip naming the host memory
 * before setup allocates, never an allocation the OOM killer answers. */
TEST_TIMEOUT(parallel_case_beyond_host_memory_is_a_skip, 60)
{
    setenv("POCL_DEVICES", "pthread pthread pthread pthread", 1);
    setenv("GPUBENCH_HOST_MEMORY", "64MiB", 1);
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "%ssuites:\n  - suite: parallel\n    params: {pattern: [tensor, pipeline, data], "
             "ndev: 2, h: 1024, tokens: 1024, layers: 2, variant: allreduce, microbatches: 1, "
             "bucket: 1MiB}\n",
             par_budget);
    struct gb_results rs;
    gb_test_run_profile(yaml, NULL, &rs);
    unsetenv("GPUBENCH_HOST_MEMORY");
    gb_test_need_devices(rs.ndevices, 2);
    ASSERT_EQ(rs.nresults, 3);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "%s: %s %s", r->case_name,
                   gb_status_name(r->status), r->reason);
        ASSERT_CONTAINS(r->reason, "2 ranks need ");
        ASSERT_CONTAINS(r->reason, "of host memory");
    }
    gb_results_free(&rs);
}

/* The report's chart of the suite: every step broken into its parts, one bar per case. */
TEST_TIMEOUT(parallel_report_breaks_each_step_into_its_parts, 60)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "%ssuites:\n  - suite: parallel\n    params: {pattern: [tensor, pipeline, data], "
             "ndev: [1, 2], variant: allreduce, microbatches: 4, bucket: 16KiB, h: 64, tokens: "
             "16, layers: 4}\n",
             par_budget);
    const char *dir = gb_test_run_and_report("pthread pthread", yaml);
    char *csv = gb_test_slurp_in(dir, "rep/data/parallel_step.csv");
    ASSERT_CONTAINS(csv, "# bar,compute,communication,overlapped,overhead / bubble,total");
    ASSERT_CONTAINS(csv, "\ntensor n=2 allreduce,");
    ASSERT_CONTAINS(csv, "\npipeline n=2 m=4,");
    ASSERT_CONTAINS(csv, "\ndata n=2 16KiB,");
    free(csv);
    char *md = gb_test_slurp_in(dir, "rep/report.md");
    ASSERT_CONTAINS(md, "Parallel training steps: compute, communication, overlap");
    /* The bar is step_parts, and the findings give the harness's step beside it. */
    ASSERT_CONTAINS(md, "pipeline n=2 m=4: bar (step");
    ASSERT_CONTAINS(md, "the harness's step ");
    ASSERT_CONTAINS(md, "The bar is that step (figure step");
    ASSERT_CONTAINS(md, "(GPipe's ideal 0.20)");
    ASSERT_CONTAINS(md, "tensor n=2 allreduce: bar (step");
    free(md);
    /* The table leaves the axes a pattern ignores blank: no pipeline or data row says
     * allreduce, no tensor row a bucket. */
    char *txt = gb_test_slurp_in(dir, "run.txt");
    ASSERT_CONTAINS(txt, "variant");
    for (char *line = strtok(txt, "\n"); line; line = strtok(NULL, "\n"))
        if (strncmp(line, "pipeline", 8) == 0 || strncmp(line, "data", 4) == 0)
            ASSERT_MSG(!strstr(line, "allreduce"), "%s", line);
        else if (strncmp(line, "tensor", 6) == 0)
            ASSERT_MSG(!strstr(line, "16KiB") && !strstr(line, "none"), "%s", line);
    free(txt);
}

/* gb_multi_overlap on constructed parts (seconds): the share where the step lies between the
 * longer part and their sum (with 0.1 of slack), else none and a text saying why, and the
 * overhead beyond the sum. */
TEST(parallel_overlap_is_given_only_where_it_means_something)
{
    double ov, oh;
    char why[64];
    /* Serialised: step = compute + comm. */
    ASSERT(gb_multi_overlap(3e-3, 1e-3, 4e-3, &ov, &oh, why, sizeof why));
    ASSERT_NEAR(ov, 0.0, 1e-12);
    ASSERT_NEAR(oh, 0.0, 1e-15);
    /* The shorter part wholly hidden: step = the longer part. */
    ASSERT(gb_multi_overlap(3e-3, 1e-3, 3e-3, &ov, &oh, why, sizeof why));
    ASSERT_NEAR(ov, 1.0, 1e-12);
    /* Half of it hidden. */
    ASSERT(gb_multi_overlap(3e-3, 1e-3, 3.5e-3, &ov, &oh, why, sizeof why));
    ASSERT_NEAR(ov, 0.5, 1e-12);
    /* Within the slack: a little over the sum (noise) is still given, with its overhead. */
    ASSERT(gb_multi_overlap(3e-3, 1e-3, 4.05e-3, &ov, &oh, why, sizeof why));
    ASSERT_NEAR(ov, -0.05, 1e-9);
    ASSERT_NEAR(oh, 0.05e-3, 1e-12);
    /* The user's case: comm 0.38 ms, the step 3.8 ms beyond the sum: -10 is overhead. */
    ASSERT(!gb_multi_overlap(10e-3, 0.38e-3, 14.2e-3, &ov, &oh, why, sizeof why));
    ASSERT(isnan(ov));
    ASSERT_NEAR(oh, 3.82e-3, 1e-12);
    ASSERT_STR(why, "step > compute + comm by 3.82 ms: overhead, not overlap");
    /* The step shorter than the longer part alone: noise. */
    ASSERT(!gb_multi_overlap(3e-3, 1e-3, 2.5e-3, &ov, &oh, why, sizeof why));
    ASSERT(isnan(ov));
    ASSERT_NEAR(oh, 0.0, 1e-15);
    ASSERT_STR(why, "step < the longer part by 0.5 ms: noise, not overlap");
    /* One device: no second part, no overlap and nothing said. */
    ASSERT(!gb_multi_overlap(3e-3, 0, 3.2e-3, &ov, &oh, why, sizeof why));
    ASSERT_STR(why, "");
    ASSERT_NEAR(oh, 0.2e-3, 1e-12);
}

/* ---- the suite's kernel through NVRTC (CUDA builds; no GPU needed) ------------------------- */

#include "gb-config.h"
#if HAVE_CUDA
#include "backends/cuda/gb_cuda.h"
#include "run/kernels.h"

TEST_TIMEOUT(parallel_kernels_compile_with_nvrtc, 120)
{
    char *src = NULL;
    ASSERT_OK(gb_kernel_source("parallel.cl", &src));
    char *ptx = NULL, *log = NULL;
    int rc = gb_cuda_compile_ptx(src, "compute_80", NULL, 0, &ptx, &log);
    ASSERT_MSG(rc == 0, "parallel.cl: %s\n%s", gb_error_msg(), log ? log : "");
    ASSERT_CONTAINS(ptx, ".entry par_relu(");
    free(ptx);
    free(log);
    free(src);
}
#endif
