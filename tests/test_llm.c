/* The llm suite: its continuous batcher on a virtual clock (tokens counted, the KV cache's
 * closed form, one slot serving in order), its seeded lengths, and a PoCL run of the tiny model:
 * verified, every figure present and consistent with the lengths its seed draws, and the planted
 * faults (a stale KV cache, attention over the wrong heads) caught. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "outputs/summary_out.h"
#include "outputs/writer.h"
#include "results/results.h"
#include "run/suite.h"
#include "suites/llm_sched.h"
#include "test.h"

/* A virtual clock: a prefill takes base + per_tok P, a decode step base + per_seq n. */
struct vdev {
    double t; /* first: the clock of gb_test_vclock_now / _wait */
    double base, per_tok, per_seq;
    size_t most; /* the largest decode batch */
};
static const struct gb_llm_req *v_reqs;
static int v_prefill(void *p, uint32_t req, uint32_t slot)
{
    (void)slot;
    struct vdev *v = p;
    v->t += v->base + v->per_tok * v_reqs[req].prompt;
    return 0;
}
static int v_decode(void *p, const struct gb_llm_tok *toks, size_t n)
{
    struct vdev *v = p;
    for (size_t j = 0; j < n; j++)
        ASSERT(toks[j].pos >= v_reqs[toks[j].req].prompt &&
               toks[j].pos < v_reqs[toks[j].req].prompt + v_reqs[toks[j].req].output - 1);
    v->t += v->base + v->per_seq * (double)n;
    if (n > v->most)
        v->most = n;
    return 0;
}

/* The peak KV tokens of requests all arriving at once into max_batch >= n slots, every output
 * of 2 tokens or more: all prefills first (P_i each), then decode step s (1, 2, ...) holds
 * P_i + s for every request with O_i - 1 >= s. */
static uint64_t kv_closed_form(const struct gb_llm_req *r, size_t n)
{
    uint64_t best = 0, most = 0;
    for (size_t i = 0; i < n; i++) {
        best += r[i].prompt;
        most = r[i].output > most ? r[i].output : most;
    }
    for (uint64_t s = 1; s < most; s++) {
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i++)
            if (r[i].output - 1 >= s)
                sum += r[i].prompt + s;
        best = sum > best ? sum : best;
    }
    return best;
}

TEST(llm_lengths_are_seeded_and_bounded)
{
    struct gb_llm_req a[200], b[200], c[200];
    gb_llm_lengths(a, 200, 32, 16, 7);
    gb_llm_lengths(b, 200, 32, 16, 7);
    gb_llm_lengths(c, 200, 32, 16, 8);
    double pm = 0, om = 0;
    bool differ = false;
    for (size_t i = 0; i < 200; i++) {
        ASSERT_EQ(a[i].prompt, b[i].prompt);
        ASSERT_EQ(a[i].output, b[i].output);
        ASSERT(a[i].prompt >= 16 && a[i].prompt <= 48 && a[i].prompt <= gb_llm_length_max(32));
        ASSERT(a[i].output >= 8 && a[i].output <= 24 && a[i].output <= gb_llm_length_max(16));
        differ |= a[i].prompt != c[i].prompt || a[i].output != c[i].output;
        pm += a[i].prompt / 200.0;
        om += a[i].output / 200.0;
    }
    ASSERT(differ);
    /* Uniform means 32 and 16; 200 draws of a spread of +-16 and +-8 lie within 3 of them. */
    ASSERT_MSG(fabs(pm - 32) < 3 && fabs(om - 16) < 3, "means %g %g", pm, om);
    /* A mean of 1: every length 1. */
    gb_llm_lengths(a, 10, 1, 1, 3);
    for (size_t i = 0; i < 10; i++)
        ASSERT(a[i].prompt == 1 && a[i].output == 1);
}

TEST(llm_batcher_counts_tokens_and_the_kv_peak)
{
    enum { N = 12 };
    struct gb_llm_req r[N];
    double first[N], done[N], itl[N * 40];
    gb_llm_lengths(r, N, 20, 10, 5);
    v_reqs = r;
    uint64_t sum_o = 0, sum_gaps = 0, longest = 0;
    for (size_t i = 0; i < N; i++) {
        r[i].arrival = 0;
        sum_o += r[i].output;
        sum_gaps += r[i].output - 1;
        const uint64_t ctx = r[i].prompt + r[i].output - 1;
        longest = ctx > longest ? ctx : longest;
    }
    struct vdev v = {.base = 0.001, .per_tok = 1e-5, .per_seq = 1e-4};
    const struct gb_llm_server srv = {.ctx = &v,
                                      .now = gb_test_vclock_now,
                                      .wait_until = gb_test_vclock_wait,
                                      .prefill = v_prefill,
                                      .decode = v_decode};
    struct gb_llm_out out = {.first = first, .done = done, .itl = itl};
    /* Every request at once, a slot each: the closed form. */
    ASSERT_OK(gb_llm_run(&srv, r, N, N, &out));
    ASSERT_EQ(out.tokens, sum_o);
    ASSERT_EQ(out.nitl, sum_gaps);
    ASSERT_EQ(out.peak_kv_tokens, kv_closed_form(r, N));
    ASSERT_EQ(v.most, N);
    for (size_t i = 0; i < N; i++) {
        ASSERT(first[i] > 0 && first[i] <= done[i]);
        /* every prefill before the first decode step */
        ASSERT(first[i] <= first[N - 1] + 1e-12);
    }
    for (size_t i = 0; i < out.nitl; i++)
        ASSERT(itl[i] > 0);
    /* One slot: one sequence at a time, in arrival order, its whole context the peak. */
    v = (struct vdev){.base = 0.001, .per_tok = 1e-5, .per_seq = 1e-4};
    ASSERT_OK(gb_llm_run(&srv, r, N, 1, &out));
    ASSERT_EQ(out.tokens, sum_o);
    ASSERT_EQ(out.peak_kv_tokens, longest);
    ASSERT_EQ(v.most, 1);
    ASSERT_EQ(out.decode_steps, sum_gaps);
    for (size_t i = 1; i < N; i++)
        ASSERT(first[i] >= done[i - 1]);
    /* Continuous batching: with 4 slots a request joins when one frees, not when the batch
     * drains. The fifth starts before the last of the first four is done. */
    v = (struct vdev){.base = 0.001, .per_tok = 1e-5, .per_seq = 1e-4};
    ASSERT_OK(gb_llm_run(&srv, r, N, 4, &out));
    ASSERT_EQ(out.tokens, sum_o);
    ASSERT_EQ(v.most, 4);
    double last4 = 0;
    for (size_t i = 0; i < 4; i++)
        last4 = done[i] > last4 ? done[i] : last4;
    ASSERT_MSG(first[4] < last4, "the fifth began at %g, the first four done at %g", first[4],
               last4);
    /* Poisson arrivals far apart: each request alone, its TTFT its prefill. */
    for (size_t i = 0; i < N; i++)
        r[i].arrival = 10.0 * (double)(i + 1);
    v = (struct vdev){.base = 0.001, .per_tok = 1e-5, .per_seq = 1e-4};
    ASSERT_OK(gb_llm_run(&srv, r, N, 4, &out));
    for (size_t i = 0; i < N; i++)
        ASSERT_NEAR(first[i] - r[i].arrival, 0.001 + 1e-5 * r[i].prompt, 1e-9);
    /* An empty output is refused. */
    r[3].output = 0;
    ASSERT_EQ(gb_llm_run(&srv, r, N, 4, &out), GB_EINVAL);
}

static double fig(const struct gb_result *r, const char *name)
{
    const struct gb_figure *f = gb_test_need_figure(r, name);
    return f->v[0];
}

#define LLM_MEASURE                                                                             \
    "measure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, max_samples: 3, max_time: 20s, " \
    "min_sample_time: 0}\n"

TEST_TIMEOUT(suite_llm_verifies_with_every_figure_consistent, 120)
{
    const char *yaml = LLM_MEASURE "suites:\n  - suite: llm\n"
                                   "    params: {model: tiny, prompt_len: 16, output_len: 8, "
                                   "requests: 6, max_batch: 8, seed: [1, 2]}\n";
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    ASSERT_EQ(rs.nresults, 2);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        if (r->status == GB_STATUS_SKIPPED) { /* no BLAS library */
            ASSERT_CONTAINS(r->reason, "GEMM");
            continue;
        }
        ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "%s", r->reason);
        static const char *const pct[] = {"ttft", "tpot", "itl"};
        for (int k = 0; k < 3; k++) {
            char a[32], b[32], c[32];
            snprintf(a, sizeof a, "%s_p50_ms", pct[k]);
            snprintf(b, sizeof b, "%s_p90_ms", pct[k]);
            snprintf(c, sizeof c, "%s_p99_ms", pct[k]);
            ASSERT(fig(r, a) > 0 && fig(r, a) <= fig(r, b) && fig(r, b) <= fig(r, c));
        }
        /* Each request's TTFT is at most its end-to-end latency: so are their order statistics. */
        ASSERT(fig(r, "ttft_p50_ms") <= fig(r, "e2e_p50_ms"));
        ASSERT(fig(r, "ttft_p99_ms") <= fig(r, "e2e_p99_ms"));
        ASSERT(fig(r, "tpot_p50_ms") > 0);
        ASSERT(fig(r, "output_tok_s") > 0 && fig(r, "request_rps") > 0);
        ASSERT(fig(r, "goodput_rps") >= 0 && fig(r, "goodput_rps") <= fig(r, "request_rps"));
        ASSERT(fig(r, "tokens_checked") >= 2);
        ASSERT(fig(r, "mean_decode_batch") >= 1 && fig(r, "mean_decode_batch") <= 6);
        ASSERT(r->max_error <= fig(r, "tolerance"));
        /* The counts and the KV cache: the closed form of the lengths the seed draws (the
         * same on every run: the suite draws them from its seed alone). Tiny: 2 layers, 2 KV
         * heads of 64, F32: 2 x 2 x 128 x 4 B per token. */
        const uint64_t seed = (uint64_t)gb_params_int(&r->params, "seed");
        struct gb_llm_req q[6];
        gb_llm_lengths(q, 6, 16, 8, seed);
        uint64_t sum_o = 0, sum_p = 0;
        for (size_t j = 0; j < 6; j++) {
            sum_o += q[j].output;
            sum_p += q[j].prompt;
        }
        ASSERT_EQ((uint64_t)fig(r, "output_tokens"), sum_o);
        ASSERT_EQ((uint64_t)fig(r, "prompt_tokens"), sum_p);
        const double per_token = 2.0 * 2 * 128 * 4;
        ASSERT_NEAR(fig(r, "kv_peak_bytes"), per_token * (double)kv_closed_form(q, 6), 0.5);
        ASSERT_NEAR(fig(r, "kv_alloc_bytes"),
                    per_token * 8 * (gb_llm_length_max(16) + gb_llm_length_max(8) - 1), 0.5);
        ASSERT_STR(r->unit, "tok/s"); /* output tokens per second, not a bare rate */
        ASSERT_STR(gb_test_figure(r, "output_tok_s")->unit, "tok/s");
        printf("seed %llu: %g output tokens, ttft p50 %.2f ms, tpot p50 %.3f ms, itl p99 %.3f "
               "ms, %.0f tok/s, kv peak %g B, max error %.2g (tolerance %.2g)\n",
               (unsigned long long)seed, fig(r, "output_tokens"), fig(r, "ttft_p50_ms"),
               fig(r, "tpot_p50_ms"), fig(r, "itl_p99_ms"), fig(r, "output_tok_s"),
               fig(r, "kv_peak_bytes"), r->max_error, fig(r, "tolerance"));
    }
    ASSERT(fig(&rs.results[0], "output_tokens") != fig(&rs.results[1], "output_tokens") ||
           fig(&rs.results[0], "kv_peak_bytes") != fig(&rs.results[1], "kv_peak_bytes"));
    /* The text table prints a figure whose name ends in its unit in that unit, unscaled:
     * "tpot_p50_ms=0.829 ms", never "tpot_p50_ms=829 us". */
    if (rs.results[0].status == GB_STATUS_OK) {
        struct gb_doc d;
        ASSERT_EQ(gb_summary_doc(&rs, &d), 0);
        char *text = NULL, want[64], num[32];
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        ASSERT_EQ(gb_write_doc(f, "text", &d), 0);
        fclose(f);
        const double tpot = fig(&rs.results[0], "tpot_p50_ms");
        if (tpot >= 1000)
            snprintf(num, sizeof num, "%.0f", tpot);
        else
            snprintf(num, sizeof num, "%.3g", tpot);
        snprintf(want, sizeof want, "tpot_p50_ms=%s ms", num);
        ASSERT_CONTAINS(text, want);
        ASSERT_CONTAINS(text, "tok/s");
        free(text);
        gb_doc_free(&d);
    }
    gb_results_free(&rs);
}

TEST_TIMEOUT(suite_llm_planted_faults_caught, 120)
{
    static const char *const faults[] = {"stale-kv", "wrong-attn"};
    for (int i = 0; i < 2; i++) {
        setenv("GPUBENCH_TEST_LLM", faults[i], 1);
        struct gb_results rs;
        gb_test_run_suite(LLM_MEASURE, "llm",
                          "{model: tiny, prompt_len: 8, output_len: 8, requests: 3, max_batch: 4}",
                          &rs);
        unsetenv("GPUBENCH_TEST_LLM");
        ASSERT_EQ(rs.nresults, 1);
        const struct gb_result *r = &rs.results[0];
        if (r->status != GB_STATUS_SKIPPED) {
            ASSERT_EQ(r->status, GB_STATUS_FAILED);
            ASSERT_CONTAINS(r->reason, "last layer: output");
            printf("%s caught: %s\n", faults[i], r->reason);
        }
        gb_results_free(&rs);
    }
}

/* Weights and KV cache beyond the host's available memory on a device whose memory is the host's
 * (PoCL; a host of 1 MiB here, the tiny model needs about 5): a skip naming both, before any
 * allocation. */
TEST_TIMEOUT(suite_llm_beyond_host_memory_is_a_skip, 60)
{
    setenv("GPUBENCH_HOST_MEMORY", "1MiB", 1);
    struct gb_results rs;
    gb_test_run_suite(LLM_MEASURE, "llm",
                      "{model: tiny, prompt_len: 8, output_len: 8, requests: 3, max_batch: 4}",
                      &rs);
    unsetenv("GPUBENCH_HOST_MEMORY");
    ASSERT_EQ(rs.nresults, 1);
    const struct gb_result *r = &rs.results[0];
    ASSERT_EQ(r->status, GB_STATUS_SKIPPED);
    if (!strstr(r->reason, "GEMM")) /* a device without BLAS skips before */
        ASSERT_CONTAINS(r->reason, "of host memory");
    gb_results_free(&rs);
}

/* Arrivals spread beyond the case's limit (3 requests at 0.01/s: about 200 s, the limit 60 s):
 * a skip saying so at once, not the limit's kill a minute later. */
TEST_TIMEOUT(suite_llm_trace_beyond_the_case_limit_is_a_skip, 30)
{
    struct gb_results rs;
    gb_test_run_suite("measure: {warmup_runs: 0, min_samples: 1, max_samples: 1, case_timeout: "
                      "60s}\n",
                      "llm", "{model: tiny, prompt_len: 4, output_len: 2, requests: 3, rate: 0.01}",
                      &rs);
    ASSERT_EQ(rs.nresults, 1);
    const struct gb_result *r = &rs.results[0];
    ASSERT_EQ(r->status, GB_STATUS_SKIPPED);
    if (!strstr(r->reason, "GEMM"))
        ASSERT_CONTAINS(r->reason, "arrive over about 200 s, beyond the case's limit of 60 s");
    gb_results_free(&rs);
}

TEST(llm_bad_rate_is_refused_at_load)
{
    char out[4096], path[512];
    snprintf(path, sizeof path, "%s/bad-llm.yaml", gb_test_tmpdir());
    gb_test_write_file(path, "suites:\n  - suite: llm\n    params: {rate: -3}\n");
    const int st = gb_test_shf(out, sizeof out, "'%s' validate '%s' 2>&1", GB_TEST_EXE, path);
    ASSERT_MSG(st == 2, "exit %d: %s", st, out);
    ASSERT_CONTAINS(out, "0 (all at once)");
}

/* A case set up and never run is not verified: the timed path doing nothing is caught (as
 * broken_noop_is_caught_in_every_suite checks every suite). */
TEST(llm_noop_is_caught)
{
    const struct gb_suite *s;
    struct gb_case_ctx *ctx;
    struct gb_test_case *tc = gb_test_case_open(
        "llm", "{model: tiny, prompt_len: 4, output_len: 4, requests: 2, max_batch: 2}", &s, &ctx);
    const int r = s->setup(ctx);
    if (r == GB_ESKIP) { /* no BLAS library */
        ASSERT_CONTAINS(ctx->reason, "GEMM");
    } else {
        ASSERT_OK(r);
        ASSERT_EQ(s->verify(ctx), GB_EVERIFY);
        ASSERT_CONTAINS(ctx->reason, "no trace was verified");
    }
    gb_test_case_close(tc);
}

/* The report's llm charts (src/outputs/chart_cloud.c): goodput and the TTFT tail against the
 * arrival rate, tokens/s against the batch limit of the all-at-once cases, each with data and
 * its findings. */
TEST_TIMEOUT(report_llm_charts_have_data_and_findings, 180)
{
    char out[8192], path[1024];
    const char *dir = gb_test_tmpdir();
    snprintf(path, sizeof path, "%s/l.yaml", dir);
    gb_test_write_file(path, "name: llm-report\n" LLM_MEASURE "suites:\n  - suite: llm\n"
                             "    params: {prompt_len: 8, output_len: 4, requests: 4, "
                             "max_batch: [1, 4]}\n"
                             "  - suite: llm\n"
                             "    params: {prompt_len: 8, output_len: 4, requests: 4, "
                             "max_batch: 4, rate: [50, 200]}\n");
    int rc =
        gb_test_shf(out, sizeof out, "cd %s && %s run l.yaml -q -o l.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "run exit %d: %s", rc, out);
    if (strstr(out, "skipped")) /* no BLAS library */
        return;
    rc = gb_test_shf(out, sizeof out, "cd %s && %s report l.json -o rep 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report exit %d: %s", rc, out);
    static const char *const charts[] = {"cloud_llm_goodput", "cloud_llm_ttft", "cloud_llm_batch"};
    for (size_t i = 0; i < 3; i++) {
        char p[1200];
        snprintf(p, sizeof p, "%s/rep/data/%s.csv", dir, charts[i]);
        char *csv = gb_test_slurp(p);
        ASSERT_MSG(!strstr(csv, "# no data"), "%s: %s", charts[i], csv);
        free(csv);
    }
    char *md = gb_test_slurp_in(dir, "rep/report.md");
    ASSERT_CONTAINS(md, "Serving an LLM: goodput against the arrival rate");
    ASSERT_CONTAINS(md, "tiny, rate 50: goodput ");
    ASSERT_CONTAINS(md, "tiny, batch 4, 4 requests at once: ");
    ASSERT_CONTAINS(md, "TTFT p50/p99 ");
    free(md);
    /* Drawn by their own builder: no hint chart beside. */
    ASSERT_EQ(gb_test_shf(out, sizeof out, "ls %s/rep/charts | grep hint_llm", dir), 1);
}
