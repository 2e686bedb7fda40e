/* The regime and the bound of every figure: results record the regime of their working set, copies
 * count read + write bytes in one convention, integer rates are GOP/s. On the real OpenCL device
 * (PoCL here) where a figure needs a run. */
#include <math.h>
#include <stdlib.h>

#include "backends/precision.h"
#include "base/util.h"
#include "run/measure.h"
#include "run/case_result.h"
#include "results/results.h"
#include "run/suite.h"
#include "suites/suites.h"
#include "test.h"

static const char *budget = "measure: {min_samples: 3, max_samples: 8, max_time: 100ms, "
                            "min_sample_time: 1ms, warmup_runs: 1}\n";

TEST(bounds_regime_rule)
{
    const uint64_t llc = 32 << 20;
    ASSERT_STR(gb_result_regime(0, llc), "");
    ASSERT_STR(gb_result_regime(1 << 20, llc), "cache");
    ASSERT_STR(gb_result_regime(64.0 * (1 << 20), llc), "cache"); /* 2x: half may stay */
    ASSERT_STR(gb_result_regime(64.0 * (1 << 20) + 1, llc), "memory");
    ASSERT_STR(gb_result_regime(192.0 * (1 << 20), llc), "memory");
    ASSERT_STR(gb_result_regime(1 << 20, 0), "unknown");
}

static const struct gb_result *find(const struct gb_results *rs, const char *suite,
                                    const char *kase, uint64_t size)
{
    for (size_t i = 0; i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        const struct gb_value *v = gb_params_get(&r->params, "size");
        if (strcmp(r->suite, suite) == 0 && strcmp(r->case_name, kase) == 0 && v &&
            v->u.size == size)
            return r;
    }
    return NULL;
}

/* A D2D copy counts read + write (2x its size, as bandwidthTest and BabelStream), the memory
 * suite's copy of the same array size counts the same bytes, and the two rates agree within
 * noise (2x: the machine is shared). Memory-hierarchy results say their regime. */
TEST_TIMEOUT(bounds_d2d_and_memory_copy_count_alike, 240)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "%ssuites:\n  - suite: transfer\n    params: {op: d2d, mode: async, "
             "size: [64KiB, 128MiB]}\n"
             "  - suite: memory\n    params: {op: copy, type: float, wg: 256, size: 128MiB}\n",
             budget);
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    const uint64_t big = UINT64_C(128) << 20;
    const struct gb_result *d2d = find(&rs, "transfer", "d2d", big);
    const struct gb_result *small = find(&rs, "transfer", "d2d", 64 << 10);
    const struct gb_result *copy = find(&rs, "memory", "copy", big);
    ASSERT(d2d && copy && small);
    ASSERT_MSG(d2d->status == GB_STATUS_OK && copy->status == GB_STATUS_OK, "%s / %s", d2d->reason,
               copy->reason);
    ASSERT_EQ(d2d->bytes_per_op, 2.0 * (double)big);
    ASSERT_EQ(copy->bytes_per_op, 2.0 * (double)big);
    ASSERT_EQ(small->bytes_per_op, 2.0 * (double)(64 << 10));
    /* The convention itself is the bytes_per_op above. The rates, measured in two cases one
     * after the other, only have to agree within what a shared machine's load moves between
     * them (a factor of 2 was crossed both ways on a busy 2-core machine): a bound of 4 still
     * catches bytes counted twice on one side and once on the other together with a 2x drift. */
    double ratio = d2d->value / copy->value;
    ASSERT_MSG(ratio > 0.25 && ratio < 4.0, "d2d %.3g GB/s, memory copy %.3g GB/s", d2d->value,
               copy->value);
    /* 256 MiB touched against PoCL's 32 MiB cache; 128 KiB touched fits. */
    const uint64_t llc = rs.devices[d2d->device_index].info.l2_bytes;
    if (llc > 0 && llc < (UINT64_C(128) << 20)) {
        ASSERT_STR(d2d->regime, "memory");
        ASSERT_STR(copy->regime, "memory");
        ASSERT_STR(small->regime, "cache");
    }
    gb_results_free(&rs);
}

/* Integer rates are operations, not floating-point operations: GOP/s in the results. */
TEST_TIMEOUT(bounds_integer_rates_are_gops, 120)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "%ssuites:\n  - suite: compute\n    params: {prec: [f32, i32], iters: 64, "
             "groups: 2}\n",
             budget);
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    ASSERT_EQ(rs.nresults, 2);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_MSG(r->status == GB_STATUS_OK, "%s: %s", r->case_name, r->reason);
        ASSERT_STR(r->unit, strcmp(r->case_name, "i32") == 0 ? "GOP/s" : "GFLOP/s");
        ASSERT_STR(r->regime, ""); /* not a memory-hierarchy result */
    }
    gb_results_free(&rs);
}

/* The host's last-level cache from a sysfs-shaped folder: the highest level wins, whatever its
 * size and the order of the index folders. */
TEST(bounds_host_llc_from_sysfs)
{
    const char *dir = gb_test_tmpdir();
    char p[1300];
    static const struct {
        int index, level;
        const char *size;
    } caches[] = {{0, 1, "32K"}, {1, 1, "32K"}, {2, 3, "32768K"}, {3, 2, "512K"}};
    for (size_t i = 0; i < sizeof caches / sizeof caches[0]; i++) {
        char d[1200], t[32];
        snprintf(d, sizeof d, "%s/cache/index%d", dir, caches[i].index);
        ASSERT_EQ(gb_mkdir_p(d, 0755), 0);
        snprintf(p, sizeof p, "%s/level", d);
        snprintf(t, sizeof t, "%d\n", caches[i].level);
        gb_test_write_file(p, t);
        snprintf(p, sizeof p, "%s/size", d);
        snprintf(t, sizeof t, "%s\n", caches[i].size);
        gb_test_write_file(p, t);
    }
    ASSERT_U64(gb_host_llc_bytes(dir), ==, UINT64_C(32) << 20);
    snprintf(p, sizeof p, "%s/nothing", dir);
    ASSERT_U64(gb_host_llc_bytes(p), ==, 0);
}

/* Noise shown as measured: a rate's stored CI95, relative to its mean, is
 * the relative CI95 of the time per operation the stopping rule judged, also when one slow
 * sample makes the two differ. */
TEST(bounds_ci_stored_is_the_ci_judged)
{
    double t[] = {1e-3, 1e-3, 1.01e-3, 0.99e-3, 3e-3}; /* seconds per operation */
    struct gb_measurement m = {.op_time = t, .n = 5, .batch = 1, .stop = GB_STOP_MAX_SAMPLES};
    struct gb_device dev = {0};
    dev.info.l2_bytes = 1 << 20;
    struct gb_case_ctx ctx = {0};
    ctx.dev = &dev;
    ctx.op.bytes = 1e6;
    ctx.op.working_set = 4e6;
    struct gb_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.suite, sizeof r.suite, "memory");
    gb_result_fill_metric(&r, &ctx, &m);
    ASSERT(r.samples != NULL);
    double judged = r.op_time_us.ci95 / r.op_time_us.mean;
    ASSERT_NEAR(r.stats.ci95 / r.stats.mean, judged, 1e-12);
    /* The rate samples' own CI is another figure: this test would not tell them apart else. */
    struct gb_stats own;
    gb_stats_compute(r.samples, r.nsamples, &own);
    ASSERT(fabs(own.ci95 / own.mean - judged) > 0.05 * judged);
    ASSERT_STR(r.regime, "memory");
    ASSERT_STR(r.unit, "GB/s");
    free(r.samples);
}

static const struct gb_figure *figure(const struct gb_result *r, const char *name)
{
    for (size_t i = 0; i < r->nfigures; i++)
        if (strcmp(r->figures[i].name, name) == 0)
            return &r->figures[i];
    return NULL;
}

/* Bounds for every suite: any memory-regime bandwidth result, whatever its suite (every suite
 * of the table: a D2D copy, fp16's storage kernels, the tuning dot...), is checked against the
 * device's memory bandwidth; where no bound is known the result says so. */
TEST(bounds_bandwidth_bounds_every_suite)
{
    const struct gb_suite_table *t = gb_suites_builtin();
    struct gb_device dev = {0};
    dev.info.l2_bytes = 1 << 20;
    dev.info.peak_mem_gbs = 10;
    for (size_t i = 0; i < t->n; i++) {
        const char *const name = t->v[i]->name;
        struct gb_case_ctx ctx = {0};
        ctx.dev = &dev;
        ctx.op.bytes = 8e6;
        ctx.op.working_set = 8e6; /* memory regime */
        struct gb_result r;
        memset(&r, 0, sizeof r);
        snprintf(r.suite, sizeof r.suite, "%s", name);
        snprintf(r.regime, sizeof r.regime, "%s", gb_result_regime(8e6, dev.info.l2_bytes));
        r.status = GB_STATUS_OK;
        r.value = 20; /* twice the theoretical bandwidth */
        gb_result_check_bound(&r, &ctx);
        ASSERT_MSG(r.implausible, "%s", name);
        ASSERT_CONTAINS(r.reason, "exceeds the device's theoretical memory bandwidth 10 GB/s");
        ASSERT_NEAR(figure(&r, "peak")->v[0], 10, 0);
        ASSERT_NEAR(figure(&r, "of_peak")->v[0], 2, 0);
        /* Within the slack: plausible. */
        memset(&r, 0, sizeof r);
        snprintf(r.regime, sizeof r.regime, "memory");
        r.status = GB_STATUS_OK;
        r.value = 10.4;
        gb_result_check_bound(&r, &ctx);
        ASSERT(!r.implausible);
    }
    /* No bound known: said, never flagged. */
    struct gb_case_ctx ctx = {0};
    ctx.dev = &dev;
    ctx.op.bytes = 8e6;
    ctx.op.host_link = true;
    struct gb_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.regime, sizeof r.regime, "memory");
    r.status = GB_STATUS_OK;
    r.value = 1000;
    gb_result_check_bound(&r, &ctx);
    ASSERT(!r.implausible);
    ASSERT_CONTAINS(figure(&r, "peak")->text, "staged copies cross the host link in turns");
    /* A host link: its PCIe rate from sysfs (gen4 x16: 31.5 GB/s per direction), twice that
     * for both directions; above it, a note, never an implausibility verdict. */
    const char *root = gb_test_tmpdir();
    char path[1024];
    snprintf(path, sizeof path,
             "mkdir -p %s/bus/pci/devices/0000:3b:00.0 && cd %s/bus/pci/"
             "devices/0000:3b:00.0 && echo '16.0 GT/s PCIe' >current_link_speed && echo 16 "
             ">current_link_width",
             root, root);
    ASSERT(system(path) == 0);
    setenv("GPUBENCH_SYSFS_ROOT", root, 1);
    snprintf(dev.info.pci_bus_id, sizeof dev.info.pci_bus_id, "0000:3b:00.0");
    ctx.op.host_link_dirs = 2;
    memset(&r, 0, sizeof r);
    snprintf(r.regime, sizeof r.regime, "memory");
    r.status = GB_STATUS_OK;
    r.value = 50;
    gb_result_check_bound(&r, &ctx);
    ASSERT_NEAR(figure(&r, "peak")->v[0], 2 * 16.0 * 16 * 128 / 130 / 8, 1e-9);
    ASSERT_NEAR(figure(&r, "of_peak")->v[0], 50 / (2 * 16.0 * 16 * 128 / 130 / 8), 1e-12);
    ASSERT_STR(figure(&r, "peak_from")->text, "PCIe 16 GT/s x16, both directions");
    memset(&r, 0, sizeof r);
    snprintf(r.regime, sizeof r.regime, "memory");
    r.status = GB_STATUS_OK;
    r.value = 1000;
    gb_result_check_bound(&r, &ctx);
    ASSERT(!r.implausible);
    ASSERT_CONTAINS(figure(&r, "peak_note")->text, "exceeds the link sysfs reports");
    dev.info.pci_bus_id[0] = '\0';
    ctx.op.host_link_dirs = 0;
    ctx.op.host_link = false;
    memset(&r, 0, sizeof r);
    snprintf(r.regime, sizeof r.regime, "cache");
    r.status = GB_STATUS_OK;
    r.value = 1000;
    gb_result_check_bound(&r, &ctx);
    ASSERT(!r.implausible);
    ASSERT_CONTAINS(figure(&r, "peak")->text, "cache-resident");
    dev.info.peak_mem_gbs = 0;
    memset(&r, 0, sizeof r);
    snprintf(r.regime, sizeof r.regime, "memory");
    r.status = GB_STATUS_OK;
    r.value = 1000;
    gb_result_check_bound(&r, &ctx);
    ASSERT(!r.implausible);
    ASSERT_CONTAINS(figure(&r, "peak")->text, "no memory bandwidth");
}

static char out[1 << 16];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

/* The results format is a published schema (schema/gpubench-results.schema.json): a run through
 * the command line of every suite of the table at its smallest case (gb_test_smallest_params),
 * and of the cases below, follows it, a /1 file does too, and a file that breaks it is refused
 * (the check is real). */
TEST_TIMEOUT(bounds_results_files_follow_the_schema, 300)
{
    if (sh("python3 -c 'import jsonschema'") != 0) {
        printf("python3 jsonschema missing: the schema is not checked\n");
        return;
    }
    const char *dir = gb_test_tmpdir();
    char p[1300];
    snprintf(p, sizeof p, "%s/s.yaml", dir);
    gb_test_write_file(
        p, "name: s\n"
           "measure: {warmup_runs: 1, min_samples: 3, max_samples: 5, max_time: 30ms,\n"
           "          min_sample_time: 1ms}\n"
           "suites:\n"
           "  - suite: transfer\n    params: {op: [h2d, d2d], memory: pinned, mode: async,\n"
           "                                 size: [4KiB]}\n"
           "  - suite: memory\n    params: {op: [triad], type: float, size: 1MiB}\n"
           "  - suite: launch\n    params: {op: [latency]}\n"
           "  - suite: compute\n    params: {prec: [f32, i32, f16], iters: 16, groups: 2}\n"
           "  - suite: gemm\n    params: {prec: [f32], impl: [own], shape: [64]}\n"
           "  - suite: fp16\n    params: {op: triad, elems: 65536}\n"
           "  - suite: tuning\n    params: {kernel: [dot], search: random, budget: 2, "
           "size: 65536}\n"
           "  - suite: batching\n    params: {op: copies, mode: [one], count: 4, "
           "size: [4KiB, 16KiB, 64KiB]}\n");
    /* And every suite of the table. */
    const struct gb_suite_table *t = gb_suites_builtin();
    FILE *f = fopen(p, "a");
    ASSERT(f);
    for (size_t i = 0; i < t->n; i++) {
        char params[1024];
        gb_test_smallest_params(t->v[i], NULL, params, sizeof params);
        fprintf(f, "  - suite: %s\n    params: %s\n", t->v[i]->name, params);
    }
    fclose(f);
    int rc = sh("cd %s && %s run s.yaml -q -o s.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0 || rc == 1, "run exit %d: %s", rc, out);
    snprintf(p, sizeof p, "%s/s.json", dir);
    gb_test_check_schema(p);
    struct gb_results all;
    ASSERT_OK(gb_results_read(p, &all));
    for (size_t i = 0; i < t->n; i++) {
        size_t n = 0;
        for (size_t j = 0; j < all.nresults; j++)
            n += strcmp(all.results[j].suite, t->v[i]->name) == 0;
        printf("%-12s %zu results\n", t->v[i]->name, n);
    }
    gb_results_free(&all);
    char *text = gb_test_slurp(p);
    ASSERT_CONTAINS(text, "\"schema\": \"gpubench-results/2\"");
    ASSERT_CONTAINS(text, "\"regime\":\"cache\"");
    ASSERT_CONTAINS(text, "\"GOP/s\"");
    free(text);
    /* The schema before: still valid, still read. */
    ASSERT_EQ(sh("cd %s && sed 's#gpubench-results/2#gpubench-results/1#; "
                 "s/\"regime\":\"[a-z]*\",//g' s.json "
                 "> v1.json && %s report v1.json -o rep1 >/dev/null 2>&1; echo $?",
                 dir, GB_TEST_EXE),
              0);
    snprintf(p, sizeof p, "%s/v1.json", dir);
    gb_test_check_schema(p);
    struct gb_results rs;
    ASSERT_OK(gb_results_read(p, &rs));
    gb_results_free(&rs);
    /* A broken file is refused by the validator. */
    ASSERT_EQ(sh("cd %s && sed 's#\"regime\":\"cache\"#\"regime\":\"L1\"#' s.json > bad.json && "
                 "python3 -c \"import json,sys,jsonschema; jsonschema.validate(json.load(open("
                 "'bad.json')), json.load(open('%s/schema/gpubench-results.schema.json')))\" "
                 ">/dev/null 2>&1",
                 dir, GB_TEST_SRCDIR) != 0,
              1);
}

/* The memory suite's default array size is at least 4x the last-level cache (BabelStream's
 * advice), so its default figure is the memory regime's. */
TEST_TIMEOUT(bounds_memory_default_size_is_beyond_the_cache, 180)
{
    struct gb_results rs;
    gb_test_run_profile("measure: {min_samples: 3, max_samples: 3, max_time: 10ms, "
                        "min_sample_time: 1ms, warmup_runs: 1}\n"
                        "suites:\n  - suite: memory\n    params: {op: triad, type: float}\n",
                        "0", &rs);
    ASSERT_EQ(rs.nresults, 1);
    const struct gb_result *r = &rs.results[0];
    ASSERT_MSG(r->status == GB_STATUS_OK, "%s", r->reason);
    const struct gb_device_info *in = &rs.devices[r->device_index].info;
    const struct gb_figure *f = figure(r, "array_bytes");
    ASSERT(f != NULL);
    ASSERT(f->v[0] >= 128.0 * (1 << 20) || (in->max_alloc && f->v[0] == (double)in->max_alloc));
    ASSERT(f->v[0] >= 4.0 * (double)in->l2_bytes || f->v[0] == (double)in->max_alloc);
    ASSERT_EQ(r->bytes_per_op, 3 * f->v[0]);
    if (in->l2_bytes)
        ASSERT_STR(r->regime, "memory");
    gb_results_free(&rs);
}

/* One ok result of `suite` on device 0 of rs, with headline value in unit. */
static struct gb_result *add_ok(struct gb_results *rs, const char *suite, const char *unit,
                                double value, const char *regime)
{
    struct gb_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.suite, sizeof r.suite, "%s", suite);
    snprintf(r.case_name, sizeof r.case_name, "c%zu", rs->nresults);
    snprintf(r.unit, sizeof r.unit, "%s", unit);
    snprintf(r.metric, sizeof r.metric, "throughput");
    snprintf(r.regime, sizeof r.regime, "%s", regime);
    r.status = GB_STATUS_OK;
    r.verified = true;
    r.value = value;
    ASSERT_OK(gb_results_add(rs, &r));
    return &rs->results[rs->nresults - 1];
}

/* Every figure is held to a bound, derived ones included: the suite's own bound where
 * it gave one, else its unit's (GB/s: the memory bandwidth in the memory regime; GFLOP/s and
 * GOP/s: the device's highest arithmetic peak); above it the result fails as implausible, naming
 * the figure. Ratios and counts are no rates: never flagged. A compute-rate headline its suite
 * left without a peak is held to the device's. */
TEST(bounds_derived_figures_are_bounded)
{
    struct gb_results rs = {0};
    struct gb_device_info info = {0};
    snprintf(info.name, sizeof info.name, "NVIDIA H200");
    snprintf(info.arch, sizeof info.arch, "sm_90");
    info.compute_units = 132;
    info.clock_mhz = 1980;
    info.peak_mem_gbs = 4800;
    info.l2_bytes = 50 << 20;
    int idx;
    ASSERT_OK(gb_results_add_device(&rs, "cuda", 0, &info, &idx));
    char how[256];
    double top = 0;
    for (int op = GB_PEAK_F64; op <= GB_PEAK_F8; op++) {
        const double p = gb_peak_ops(&info, (enum gb_peak_op)op, true, how, sizeof how) / 1e9;
        top = p > top ? p : top;
    }
    ASSERT(top > 1000);
    /* 0: a dense-equivalent rate beyond the device's highest peak: failed. */
    gb_result_figure(add_ok(&rs, "sparse", "GFLOP/s", 10, ""), "dense_equiv_gflops", "GFLOP/s",
                     2 * top);
    gb_result_figure(&rs.results[0], "peak", "GFLOP/s", 60000);
    /* 1: within the slack of its suite's own bound, and a huge ratio: ok. */
    struct gb_result *r = add_ok(&rs, "sparse", "GFLOP/s", 10, "");
    gb_result_figure(r, "peak", "GFLOP/s", 60000);
    gb_result_figure_bounded(r, "dense_equiv_gflops", "GFLOP/s", 1.04 * 3 * top, 3 * top);
    gb_result_figure(r, "speedup_vs_dense", "", 1e6);
    gb_result_figure(r, "nnz", "", 1e9);
    /* 2: above its suite's bound, though below the unit's: failed. */
    r = add_ok(&rs, "sparse", "GFLOP/s", 10, "");
    gb_result_figure(r, "peak", "GFLOP/s", 60000);
    gb_result_figure_bounded(r, "speedup_vs_dense", "", 30, 20);
    /* 3: a GB/s figure of a memory-regime result above the memory bandwidth: failed; 4: the
     * same in the cache regime (no bound known): ok. */
    gb_result_figure(add_ok(&rs, "tenants", "GB/s", 100, "memory"), "aggressor_rate", "GB/s", 6000);
    gb_result_figure(add_ok(&rs, "tenants", "GB/s", 100, "cache"), "aggressor_rate", "GB/s", 6000);
    /* 5: a compute-rate headline without a peak figure, above the device's highest: failed. */
    add_ok(&rs, "concurrency", "GFLOP/s", 2 * top, "");
    /* 6: the same within it: ok. */
    add_ok(&rs, "concurrency", "GFLOP/s", top / 2, "");
    /* 7: a per-device figure of a two-device result, each value against its device. */
    r = add_ok(&rs, "balance", "GFLOP/s", top, "");
    r->nset = 2;
    r->set[0] = r->set[1] = 0;
    gb_result_figure(r, "peak", "GFLOP/s", 2 * top);
    r->figures[r->nfigures++] = (struct gb_figure){
        .name = "rate", .unit = "GFLOP/s", .n = 2, .per_device = true, .v = {top / 2, top / 2}};
    /* 8: a not finite rate: failed. */
    gb_result_figure(add_ok(&rs, "memory", "GB/s", 100, "memory"), "fit_gbs", "GB/s", NAN);
    ASSERT_EQ(gb_results_check_figures(&rs), 5);
    static const bool failed[] = {true, false, true, true, false, true, false, false, true};
    for (size_t i = 0; i < rs.nresults; i++) {
        r = &rs.results[i];
        ASSERT_MSG((r->status == GB_STATUS_FAILED) == failed[i] && r->implausible == failed[i],
                   "result %zu: %s", i, r->reason);
    }
    ASSERT_CONTAINS(rs.results[0].reason, "dense_equiv_gflops");
    ASSERT_CONTAINS(rs.results[0].reason, "highest arithmetic peak");
    ASSERT_CONTAINS(rs.results[2].reason, "speedup_vs_dense 30");
    ASSERT_CONTAINS(rs.results[2].reason, "bound 20");
    ASSERT_CONTAINS(rs.results[3].reason, "aggressor_rate 6000 GB/s exceeds its bound 4800 GB/s");
    ASSERT_CONTAINS(rs.results[5].reason, "throughput");
    gb_results_free(&rs);
}
