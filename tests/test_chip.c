/* The chip suites (latency, cache, local, atomics) on the real OpenCL device (PoCL here): every
 * variant builds and verifies, a kernel deliberately broken by a define (GB_BREAK, documented in
 * each kernel file) is caught by verification, the skips say why, the latency staircase has a
 * step between the first cache level and memory; and with the CUDA toolkit, NVRTC turns the
 * kernels into the vector and atomic instructions they are meant to measure. */
#include <stdlib.h>

#include "suites/suites.h"
#include "gb-config.h"
#include "run/config.h"
#include "run/kernels.h"
#include "run/plan.h"
#include "results/results.h"
#include "run/runner.h"
#include "suites/chip.h"
#include "test.h"

#if HAVE_CUDA
#include "backends/cuda/gb_cuda.h"
#endif

static const char *budget = "measure: {min_samples: 3, max_samples: 5, max_time: 50ms, "
                            "min_sample_time: 1ms, warmup_runs: 1, warmup_time: 1ms}\n";

/* Runs `entries` (the YAML of one or more suite entries) on OpenCL device 0. */
static void run_entries(const char *entries, struct gb_results *rs)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, "%ssuites:\n%s", budget, entries);
    gb_test_run_profile(yaml, "0", rs);
}

/* Asserts that result i is ok and verified, and prints it. */
static void expect_ok(const struct gb_result *r)
{
    char p[256];
    gb_params_format(&r->params, p, sizeof p);
    ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "%s %s: %s: %s", r->suite, p,
               gb_status_name(r->status), r->reason);
    printf("%-8s %-60s %10.4g %s\n", r->suite, p, r->value, r->unit);
}

static void expect_skip(const struct gb_result *r, const char *why)
{
    char p[256];
    gb_params_format(&r->params, p, sizeof p);
    ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "%s %s: %s (%s), expected a skip", r->suite, p,
               gb_status_name(r->status), r->reason);
    ASSERT_CONTAINS(r->reason, why);
}

TEST_TIMEOUT(chip_latency_chase_verifies, 180)
{
    struct gb_results rs;
    run_entries("  - suite: latency\n    params: {pattern: [random, linear], "
                "size: [4KiB, 256KiB, 4MiB], stride: [64, 128]}\n"
                "  - suite: latency\n    params: {size: 64, stride: [6, 64]}\n",
                &rs);
    ASSERT_EQ(rs.nresults, 2 * 3 * 2 + 2);
    for (size_t i = 0; i < 12; i++) {
        const struct gb_result *r = &rs.results[i];
        expect_ok(r);
        ASSERT_STR(r->unit, "us");
        const struct gb_figure *ns = gb_test_figure(r, "ns_per_load");
        ASSERT(ns != NULL);
        ASSERT_NEAR(ns->v[0], r->value * 1e3, r->value * 1e3 * 1e-9);
        ASSERT(ns->v[0] > 0.05 && ns->v[0] < 1e5);
    }
    expect_skip(&rs.results[12], "multiple of 4");
    expect_skip(&rs.results[13], "fewer than 2 slots");
    gb_results_free(&rs);
}

/* The staircase exists: a random chase over a set far beyond the last-level cache is slower per
 * load than one over a set that fits the first level by a wide margin (on PoCL: L1 about 2 ns,
 * memory about 100 ns; the factor 5 leaves room for a loaded machine). */
TEST_TIMEOUT(chip_latency_staircase_has_a_step, 180)
{
    struct gb_results rs;
    run_entries("  - suite: latency\n    params: {size: [4KiB, 256MiB], stride: 64}\n", &rs);
    ASSERT_EQ(rs.nresults, 2);
    expect_ok(&rs.results[0]);
    expect_ok(&rs.results[1]);
    ASSERT_MSG(rs.results[1].value > 5 * rs.results[0].value, "4 KiB: %.3g ns, 256 MiB: %.3g ns",
               rs.results[0].value * 1e3, rs.results[1].value * 1e3);
    gb_results_free(&rs);
}

TEST_TIMEOUT(chip_cache_reads_verify, 180)
{
    struct gb_results rs;
    run_entries("  - suite: cache\n    params: {size: [4KiB, 100000, 1MiB], vec: [1, 2, 4], "
                "layout: [interleaved, blocked], groups: [0, 3], reads: 2MiB}\n"
                "  - suite: cache\n    params: {size: 8, vec: 4, reads: 1MiB}\n",
                &rs);
    ASSERT_EQ(rs.nresults, 3 * 3 * 2 * 2 + 1);
    for (size_t i = 0; i + 1 < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        expect_ok(r);
        ASSERT_STR(r->unit, "GB/s");
        /* Every operation reads at least `reads` bytes and at least the set. */
        ASSERT(r->bytes_per_op >= 2.0 * 1024 * 1024);
    }
    expect_skip(&rs.results[rs.nresults - 1], "holds no vector");
    gb_results_free(&rs);
}

TEST_TIMEOUT(chip_local_reads_and_writes_verify, 180)
{
    struct gb_results rs;
    run_entries("  - suite: local\n    params: {op: [read, write], vec: [1, 2, 4], "
                "stride: [1, 32, 33], local: [4KiB], wg: [64], bytes: 2MiB}\n"
                "  - suite: local\n    params: {op: write, vec: 1, stride: 7, local: 16KiB, "
                "wg: 16, groups: 2, bytes: 4KiB}\n"
                "  - suite: local\n    params: {op: read, vec: [3, 1], stride: 1, "
                "local: [1GiB, 12KiB]}\n",
                &rs);
    ASSERT_EQ(rs.nresults, 2 * 3 * 3 + 1 + 4);
    for (size_t i = 0; i < 19; i++)
        expect_ok(&rs.results[i]);
    /* The short write (4 KiB over 32 work-items: 32 stores each) leaves vectors untouched, which
     * verification accounts for. */
    const struct gb_figure *f = gb_test_figure(&rs.results[18], "accesses_per_item");
    ASSERT(f && f->v[0] == 32);
    expect_skip(&rs.results[19], "vec must be 1, 2 or 4");
    expect_skip(&rs.results[20], "vec must be 1, 2 or 4");
    expect_skip(&rs.results[21], "local memory");
    expect_skip(&rs.results[22], "not a power of two");
    gb_results_free(&rs);
}

TEST_TIMEOUT(chip_atomics_counts_exact, 180)
{
    struct gb_results rs;
    run_entries("  - suite: atomics\n    params: {op: [global, local], type: [int32, int64, "
                "float], addresses: [1, 3, 0], wg: 64, iters: 5}\n"
                "  - suite: atomics\n    params: {op: local, type: int32, addresses: 65, wg: 64}\n",
                &rs);
    ASSERT_EQ(rs.nresults, 2 * 3 * 3 + 1);
    for (size_t i = 0; i + 1 < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        if (strcmp(gb_params_str(&r->params, "type"), "float") == 0) {
            /* OpenCL: float atomics are a recorded skip, with the reason. */
            expect_skip(r, "CUDA only");
            continue;
        }
        expect_ok(r);
        ASSERT_STR(r->unit, "Gatomic/s");
        const struct gb_figure *g = gb_test_figure(r, "Gatomics_per_s");
        ASSERT(g && g->v[0] > 0);
        /* The figure is the rate of the median time, the value the median of the rates: the
         * same with an odd number of samples, the two middle ones' means apart with an even. */
        ASSERT_NEAR(g->v[0], r->value, r->value * 0.05);
        if (gb_params_int(&r->params, "addresses") == 0) {
            const double items = gb_test_figure(r, "work_items")->v[0];
            ASSERT_EQ(gb_test_figure(r, "addresses")->v[0],
                      strcmp(r->case_name, "local") == 0 ? 64 : items);
        }
    }
    expect_skip(&rs.results[rs.nresults - 1], "at most one per work-item");
    gb_results_free(&rs);
}

/* ---- deliberately broken kernels -------------------------------------------------------------
 * The case of `params` run by hand on OpenCL device 0, built as the suite builds it and then
 * with `define` added (the hook of suites/chip.h): the first must verify, the second must fail
 * verification with a reason. */
static void run_by_hand(const struct gb_suite *s, const struct gb_params *params,
                        const char *define, int want)
{
    const struct gb_backend_ops *ops = gb_backend_find("opencl");
    struct gb_device *dev = gb_test_open_device(ops, 0);
    struct gb_queue *q;
    ASSERT_OK(ops->queue_create(dev, &q));
    struct gb_case_ctx ctx = {.ops = ops, .dev = dev, .q = q, .params = params};
    ctx.state = calloc(1, s->state_size);
    ASSERT(ctx.state);
    ((struct gb_test_hook *)ctx.state)->test_define = define;
    ASSERT_OK(s->setup(&ctx));
    ASSERT_OK(s->run(&ctx, 1));
    ASSERT_OK(s->run(&ctx, 3));
    ASSERT_OK(ops->queue_sync(q));
    const int got = s->verify(&ctx);
    ASSERT_MSG(got == want, "%s with %s: verify returned %d (%s), expected %d; reason: %s", s->name,
               define ? define : "no test define", got, gb_err_name(got), want, ctx.reason);
    if (want == GB_EVERIFY) {
        printf("%s, %s: verify said: %s\n", s->name, define, ctx.reason);
        ASSERT(strlen(ctx.reason) > 0);
    }
    s->teardown(&ctx);
    free(ctx.state);
    ops->queue_destroy(q);
    ops->device_close(dev);
}

static void broken_fails(const char *suite_name, const char *params)
{
    struct gb_profile p;
    struct gb_plan plan;
    const struct gb_suite *s = gb_test_plan_case(suite_name, params, &p, &plan);
    run_by_hand(s, &plan.cases[0].params, NULL, 0);
    run_by_hand(s, &plan.cases[0].params, "GB_BREAK", GB_EVERIFY);
    gb_plan_free(&plan);
    gb_profile_free(&p);
}

TEST_TIMEOUT(chip_broken_latency_kernel_is_caught, 120)
{
    broken_fails("latency", "{size: 64KiB, stride: 64}");
    broken_fails("latency", "{pattern: linear, size: 4KiB, stride: 128}");
}

TEST_TIMEOUT(chip_broken_cache_kernel_is_caught, 120)
{
    broken_fails("cache", "{size: 64KiB, vec: 4, layout: interleaved, reads: 1MiB}");
    broken_fails("cache", "{size: 64KiB, vec: 1, layout: blocked, reads: 1MiB}");
}

TEST_TIMEOUT(chip_broken_local_kernel_is_caught, 120)
{
    broken_fails("local", "{op: read, vec: 1, stride: 1, wg: 64, bytes: 1MiB}");
    broken_fails("local", "{op: write, vec: 4, stride: 2, wg: 64, bytes: 1MiB}");
}

TEST_TIMEOUT(chip_broken_atomics_kernel_is_caught, 120)
{
    broken_fails("atomics", "{op: global, type: int32, addresses: 1, wg: 64, iters: 4}");
    broken_fails("atomics", "{op: global, type: int64, addresses: 0, wg: 64, iters: 4}");
    broken_fails("atomics", "{op: local, type: int32, addresses: 0, wg: 64, iters: 4}");
}

TEST(chip_suites_are_listed)
{
    static char out[1 << 16];
    ASSERT_EQ(gb_test_shf(out, sizeof out, "%s suites", GB_TEST_EXE), 0);
    const char *names[] = {"latency", "cache", "local", "atomics"};
    for (size_t i = 0; i < 4; i++) {
        char line[64];
        snprintf(line, sizeof line, "\n%s", names[i]);
        ASSERT_CONTAINS(out, line);
    }
    ASSERT_CONTAINS(out, "stride");
    ASSERT_CONTAINS(out, "addresses");
}

/* ---- launch graphs (GB_CAP_GRAPH) on OpenCL: cl_khr_command_buffer --------------------- */

/* Records three launches of batching.cl's counter kernel with one gb_launch whose base argument
 * changes between them (arguments are captured at each launch call), replays the graph five
 * times back to back, and checks every counter; and the contract's refusals while recording. */
TEST_TIMEOUT(chip_opencl_graph_records_and_replays, 120)
{
    const struct gb_backend_ops *ops = gb_backend_find("opencl");
    struct gb_device *dev = gb_test_open_device(ops, 0);
    if (!(dev->info.caps & GB_CAP_GRAPH))
        SKIP("%s has no launch graphs (cl_khr_command_buffer with simultaneous use)",
             dev->info.name);
    struct gb_queue *q, *q2;
    ASSERT_OK(ops->queue_create(dev, &q));
    ASSERT_OK(ops->queue_create(dev, &q2));
    char *src = NULL;
    ASSERT_OK(gb_kernel_source("batching.cl", &src));
    struct gb_program *prog;
    struct gb_kernel *k;
    ASSERT_OK(ops->program_build(dev, src, NULL, 0, &prog, NULL));
    ASSERT_OK(ops->kernel_get(prog, "batch_inc", &k));
    free(src);
    enum { N = 4 * 64 };
    uint32_t host[N] = {0};
    struct gb_buf *data, *tmp;
    ASSERT_OK(ops->buf_alloc(dev, sizeof host, GB_MEM_DEVICE, &data));
    ASSERT_OK(ops->buf_alloc(dev, sizeof host, GB_MEM_HOST_PAGEABLE, &tmp));
    memset(tmp->host, 0, sizeof host);
    ASSERT_OK(ops->copy(q, data, 0, tmp, 0, sizeof host, GB_COPY_BLOCKING));

    ASSERT_EQ(ops->graph_end(q, &(struct gb_graph *){NULL}), GB_EINVAL);
    ASSERT_OK(ops->graph_begin(q));
    ASSERT_EQ(ops->graph_begin(q), GB_EINVAL);
    struct gb_launch l = {.dims = 1, .global = {64, 1, 1}, .local = {64, 1, 1}, .nargs = 2};
    l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = data};
    l.args[1] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = 0};
    const uint64_t bases[3] = {0, 128, 192}; /* [64, 128) is left alone */
    for (int i = 0; i < 3; i++) {
        l.args[1].v.u64 = bases[i];
        ASSERT_OK(ops->launch(q, k, &l));
    }
    struct gb_event *ev;
    ASSERT_OK(ops->event_create(dev, &ev));
    ASSERT_EQ(ops->event_record(q, ev), GB_EINVAL);
    ASSERT_EQ(ops->queue_sync(q), GB_EINVAL);
    ASSERT_EQ(ops->copy(q, tmp, 0, data, 0, 4, GB_COPY_BLOCKING), GB_EINVAL);
    struct gb_graph *g = NULL;
    ASSERT_OK(ops->graph_end(q, &g));
    ASSERT(g && g->q == q);
    ASSERT_EQ(ops->graph_launch(q2, g), GB_EINVAL);
    for (int r = 0; r < 5; r++)
        ASSERT_OK(ops->graph_launch(q, g));
    ASSERT_OK(ops->event_record(q, ev));
    ASSERT_OK(ops->event_sync(ev));
    ASSERT_OK(ops->queue_sync(q));
    ASSERT_OK(ops->copy(q, tmp, 0, data, 0, sizeof host, GB_COPY_BLOCKING));
    memcpy(host, tmp->host, sizeof host);
    for (int i = 0; i < N; i++)
        ASSERT_MSG(host[i] == (i >= 64 && i < 128 ? 0u : 5u), "counter %d is %u", i, host[i]);
    ops->graph_free(g);
    /* A recording abandoned by destroying its queue leaks nothing and runs nothing. */
    ASSERT_OK(ops->graph_begin(q2));
    ASSERT_OK(ops->launch(q2, k, &l));
    ops->event_free(ev);
    ops->queue_destroy(q2);
    ops->buf_free(tmp);
    ops->buf_free(data);
    ops->kernel_free(k);
    ops->program_free(prog);
    ops->queue_destroy(q);
    ops->device_close(dev);
}

/* batching's `graph` mode is measured where the device has launch graphs, verified like the
 * separate launches, and the separate result carries the graph's speedup and overhead. */
TEST_TIMEOUT(chip_batching_graph_mode_is_measured, 180)
{
    struct gb_results rs;
    run_entries("  - suite: batching\n    params: {op: launches, mode: [separate, fused, graph], "
                "count: [1, 16], items: 64}\n",
                &rs);
    ASSERT_EQ(rs.nresults, 6);
    const struct gb_result *sep16 = NULL, *graph16 = NULL;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        const char *mode = gb_params_str(&r->params, "mode");
        if (strcmp(mode, "graph") == 0 && r->status == GB_STATUS_SKIPPED)
            SKIP("no launch graphs on this device: %s", r->reason);
        expect_ok(r);
        if (gb_params_int(&r->params, "count") == 16 && strcmp(mode, "separate") == 0)
            sep16 = r;
        if (gb_params_int(&r->params, "count") == 16 && strcmp(mode, "graph") == 0)
            graph16 = r;
    }
    ASSERT(sep16 && graph16);
    const struct gb_figure *sp = gb_test_figure(sep16, "graph_speedup");
    ASSERT(sp && gb_test_figure(sep16, "graph_overhead_us"));
    ASSERT_NEAR(sp->v[0], sep16->op_time_us.median / graph16->op_time_us.median, 1e-9);
    gb_results_free(&rs);
}

/* ---- the CUDA side, compiled (no GPU needed) ------------------------------------------------ */

#if HAVE_CUDA
static char *ptx_of(const char *file, const char *const *defs, size_t n)
{
    char *src = NULL, *ptx = NULL, *log = NULL;
    ASSERT_OK(gb_kernel_source(file, &src));
    int rc = gb_cuda_compile_ptx(src, "compute_90", defs, n, &ptx, &log);
    ASSERT_MSG(rc == 0, "%s: %s\n%s", file, gb_error_msg(), log ? log : "");
    free(src);
    return ptx;
}

/* The loads and stores are the widths the `vec` axis names, and the atomics are the hardware's
 * own: a scalarised load or an emulated atomic would measure something else. */
TEST_TIMEOUT(chip_cuda_kernels_use_the_instructions_they_measure, 300)
{
    const char *v4[] = {"VEC=4"};
    char *p = ptx_of("cache.cl", v4, 1);
    ASSERT_CONTAINS(p, "ld.global.v4.u32");
    free(p);
    const char *l4[] = {"VEC=4", "WG=256", "LN=1024", "STRIDE=1"};
    p = ptx_of("local.cl", l4, 4);
    ASSERT_CONTAINS(p, "ld.shared.v4.u32");
    ASSERT_CONTAINS(p, "st.shared.v4.u32");
    free(p);
    const char *f32[] = {"TYPE=2", "NADDR=64"};
    p = ptx_of("atomics.cl", f32, 2);
    ASSERT_CONTAINS(p, "atom.shared.add.f32");
    ASSERT(strstr(p, "red.global.add.f32") || strstr(p, "atom.global.add.f32"));
    free(p);
    const char *i64[] = {"TYPE=1", "NADDR=64"};
    p = ptx_of("atomics.cl", i64, 2);
    ASSERT_CONTAINS(p, "atom.shared.add.u64");
    ASSERT(strstr(p, "red.global.add.u64") || strstr(p, "atom.global.add.u64"));
    free(p);
    p = ptx_of("latency.cl", NULL, 0);
    ASSERT_CONTAINS(p, "ld.global.u32");
    free(p);
}
#endif

/* The text figure `name` of r, or NULL. */
static const char *text_figure(const struct gb_result *r, const char *name)
{
    for (size_t i = 0; i < r->nfigures; i++)
        if (r->figures[i].n == 0 && strcmp(r->figures[i].name, name) == 0)
            return r->figures[i].text;
    return NULL;
}

TEST_TIMEOUT(chip_cold_caches_flush_and_say_so, 180)
{
    /* measure.cache: cold, on a cache-resident memory case and a suite with figures of its own:
     * the flush runs (one operation per sample) and the result says cache_state cold; the same
     * cases hot say nothing and batch as usual. No timed assertion: the two medians are printed
     * (cold is usually the slower) but a shared CPU makes their order no promise. */
    struct gb_results rs;
    run_entries("  - suite: memory\n    params: {op: copy, type: float, size: 256KiB}\n"
                "    measure: {cache: cold, min_sample_time: 1us}\n"
                "  - suite: memory\n    params: {op: copy, type: float, size: 256KiB}\n"
                "    measure: {cache: hot, min_sample_time: 1us}\n"
                "  - suite: cache\n    params: {size: 64KiB, reads: 1MiB}\n"
                "    measure: {cache: cold}\n",
                &rs);
    ASSERT_EQ(rs.nresults, 3);
    for (size_t i = 0; i < 3; i++)
        expect_ok(&rs.results[i]);
    const char *c0 = text_figure(&rs.results[0], "cache_state");
    ASSERT_MSG(c0 && strcmp(c0, "cold") == 0, "cold memory case: cache_state %s", c0 ? c0 : "-");
    ASSERT_EQ(rs.results[0].batch, 1);
    ASSERT(text_figure(&rs.results[1], "cache_state") == NULL);
    const char *c2 = text_figure(&rs.results[2], "cache_state");
    ASSERT_MSG(c2 && strcmp(c2, "cold") == 0, "cold cache case: cache_state %s", c2 ? c2 : "-");
    ASSERT(text_figure(&rs.results[2], "layout") != NULL); /* the suite's own figures stay */
    printf("256 KiB copy: cold %.3g GB/s, hot %.3g GB/s\n", rs.results[0].value,
           rs.results[1].value);
    gb_results_free(&rs);

    /* Anything but hot or cold is refused where it stands. */
    struct gb_profile p;
    char err[512];
    ASSERT(gb_profile_load_string(gb_suites_builtin(),
                                  "measure: {cache: warm}\nsuites: [{suite: memory}]\n", "t.yaml",
                                  NULL, 0, &p, err, sizeof err) != 0);
    ASSERT_CONTAINS(err, "measure.cache: expected hot or cold");
}
