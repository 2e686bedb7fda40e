/* OpenCL drivers' defects, provoked on the real OpenCL device through an LD_PRELOAD shim over the
 * OpenCL API (tests/shims/cl_defects.c), and what gpubench does about each: the gpubench binary
 * runs a small profile with the shim, and the results file says how every case was timed and
 * whether it passed. No test here assumes an implementation: the shim alters what any platform
 * answers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "results/results.h"
#include "run/case_result.h"
#include "run/config.h"
#include "run/plan.h"
#include "run/runner.h"
#include "run/suite.h"
#include "suites/common.h"
#include "suites/suites.h"
#include "backends/backend.h"
#include "test.h"

static char out[1 << 16];

/* Runs `suites` (the profile's suites: list) on the devices `devices` (--device) with the
 * defects `defect` (GB_CL_DEFECT; "" for none) and reads the results into *rs
 * (gb_test_run_shimmed). The run must exit 0 (every case ok or skipped) unless may_fail. */
static char last_dir[4096]; /* the folder of run_on's last run: p.yaml and r.json */

static void run_on(const char *devices, const char *defect, const char *suites, bool may_fail,
                   struct gb_results *rs)
{
    char env[256];
    snprintf(env, sizeof env, "GB_CL_DEFECT='%s'", defect);
    snprintf(last_dir, sizeof last_dir, "%s",
             gb_test_run_shimmed(out, sizeof out, env, devices, suites, may_fail, rs));
}

/* run_on device 0. */
static void run_with(const char *defect, const char *suites, bool may_fail, struct gb_results *rs)
{
    run_on("0", defect, suites, may_fail, rs);
}

static const char timed_cases[] = "  - suite: compute\n"
                                  "    params: {prec: [f32], iters: [64], groups: [1]}\n"
                                  "  - suite: memory\n"
                                  "    params: {op: [triad], size: [4MiB]}\n"
                                  "  - suite: launch\n"
                                  "    params: {op: [latency]}\n";

/* Every measured result says which timer took its samples: "device" on a sound platform. */
TEST_TIMEOUT(defects_sound_timer_labels_results_device, 180)
{
    struct gb_results rs;
    run_with("", timed_cases, false, &rs);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_MSG(r->status == GB_STATUS_OK, "%s: %s", r->suite, r->reason);
        ASSERT_STR(r->timer, strcmp(r->suite, "launch") == 0 ? "host" : "device");
        ASSERT_MSG(!gb_test_figure(r, "timer"), "%s: a timer note on a sound platform", r->suite);
    }
    gb_results_free(&rs);
}

/* Timestamps that cannot be trusted (all 0, a counter stepping per query, a resolution of 0):
 * detected once per device, the device-timed cases are timed on the host instead, verified and
 * labelled, with the reason beside them; the launch latency loses its device-timed figures
 * rather than report the stub's. */
TEST_TIMEOUT(defects_untrusted_timestamps_fall_back_to_host_timing, 400)
{
    static const struct {
        const char *defect, *why;
    } cases[] = {
        {"stamps-zero", "are 0"},
        {"stamps-step", "no longer than"},
        {"resolution-0", "resolution 0"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct gb_results rs;
        run_with(cases[c].defect, timed_cases, false, &rs);
        for (size_t i = 0; i < rs.nresults; i++) {
            const struct gb_result *r = &rs.results[i];
            ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "%s, %s: %s", cases[c].defect,
                       r->suite, r->reason);
            ASSERT_MSG(strcmp(r->timer, "host") == 0, "%s, %s: timer %s", cases[c].defect, r->suite,
                       r->timer);
            ASSERT_MSG(r->value > 0 && isfinite(r->value), "%s, %s: %g", cases[c].defect, r->suite,
                       r->value);
            if (strcmp(r->suite, "launch") == 0) {
                ASSERT(!gb_test_figure(r, "device_queued_to_end"));
                continue;
            }
            const struct gb_figure *f = gb_test_figure(r, "timer");
            ASSERT_MSG(f && strstr(f->text, "host") && strstr(f->text, cases[c].why),
                       "%s, %s: timer note \"%s\"", cases[c].defect, r->suite, f ? f->text : "");
        }
        gb_results_free(&rs);
    }
}

/* A start event that reads "running" after its end event completed (and after a wait for it):
 * waited for, not refused; the cases keep the device timer. */
TEST_TIMEOUT(defects_start_event_reported_late_is_waited_for, 180)
{
    struct gb_results rs;
    run_with("start-late", timed_cases, false, &rs);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "%s: %s", r->suite, r->reason);
        if (strcmp(r->suite, "launch") != 0)
            ASSERT_STR(r->timer, "device");
    }
    gb_results_free(&rs);
}

/* clFinish that returns at once with the work still running: the backend's queue sync waits on
 * a marker's event, so host-timed copies (bidirectional, blocking) measure the copies, verify,
 * and stay below what any host link carries. */
TEST_TIMEOUT(defects_finish_returning_early_is_waited_past, 240)
{
    struct gb_results rs;
    run_with("finish-early",
             "  - suite: transfer\n"
             "    params: {op: [bidir, h2d, d2h], memory: pinned, mode: [async, sync], "
             "size: [16MiB]}\n"
             "  - suite: batching\n"
             "    params: {mode: [separate], count: [64]}\n",
             false, &rs);
    size_t ok = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_MSG(r->status != GB_STATUS_FAILED, "%s %s: %s", r->suite, r->case_name, r->reason);
        if (r->status != GB_STATUS_OK)
            continue;
        ok++;
        ASSERT_MSG(r->verified && !r->implausible, "%s %s: %s", r->suite, r->case_name, r->reason);
        if (strcmp(r->unit, "GB/s") == 0)
            ASSERT_MSG(r->value < 1000, "%s %s: %g GB/s", r->suite, r->case_name, r->value);
    }
    ASSERT_MSG(ok >= 3, "%zu cases ok", ok);
    gb_results_free(&rs);

    /* A blocking device-to-device copy waits on its own finish: with the early finish its time
     * per copy stays what it is without it (it had read 10x faster: copies pipelined), within
     * this machine's run-to-run swing. */
    static const char d2d[] =
        "  - suite: transfer\n"
        "    params: {op: [d2d], memory: pinned, mode: [sync], size: [4KiB]}\n";
    double us[2];
    for (int k = 0; k < 2; k++) {
        run_with(k ? "finish-early" : "", d2d, false, &rs);
        ASSERT_EQ(rs.nresults, 1);
        ASSERT_MSG(rs.results[0].status == GB_STATUS_OK, "%s", rs.results[0].reason);
        us[k] = rs.results[0].op_time_us.median;
        gb_results_free(&rs);
    }
    ASSERT_MSG(us[1] > us[0] / 3, "a blocking d2d copy: %g us with the early finish, %g without",
               us[1], us[0]);
}

/* A comparison of a device-timed case with the same case timed on the host says the timer
 * changed and gives no verdict either way. */
TEST_TIMEOUT(defects_compare_refuses_a_timer_change, 120)
{
    struct gb_results rs;
    run_with("", "  - suite: compute\n    params: {prec: [f32], iters: [64], groups: [1]}\n", false,
             &rs);
    gb_results_free(&rs);
    const char *dir = last_dir;
    int rc =
        gb_test_shf(out, sizeof out,
                    "cd '%s' && sed 's/\"timer\":\"device\"/\"timer\":\"host\"/' r.json > "
                    "h.json && grep -c '\"timer\":\"host\"' h.json && '%s' compare r.json h.json "
                    "2>&1",
                    dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "compare: exit %d\n%s", rc, out);
    ASSERT_CONTAINS(out, "the timer changed (device in BASE, host in NEW)");
    ASSERT_EQ(gb_test_count(out, "SLOWER"), 0);
}

/* What a queue that did not wait would have reported: a 16 MiB bidirectional copy "at" 5.8 TB/s
 * with no link bound known fails as implausible; a memory-regime rate beyond any memory too; a
 * rate a real link carries, and a cache-resident rate, pass. */
TEST(defects_rate_beyond_any_link_fails_without_a_bound)
{
    struct gb_device dev = {0};
    struct gb_case_ctx ctx = {.dev = &dev};
    ctx.op.bytes = 16 << 20;
    ctx.op.host_link = true;
    ctx.op.host_link_dirs = 2;
    struct gb_result r = {.status = GB_STATUS_OK, .value = 5800};
    snprintf(r.regime, sizeof r.regime, "memory");
    gb_result_check_bound(&r, &ctx);
    ASSERT_EQ(r.status, GB_STATUS_FAILED);
    ASSERT(r.implausible && strstr(r.reason, "implausible"));

    r = (struct gb_result){.status = GB_STATUS_OK, .value = 50};
    snprintf(r.regime, sizeof r.regime, "memory");
    gb_result_check_bound(&r, &ctx);
    ASSERT_EQ(r.status, GB_STATUS_OK);
    ASSERT(!r.implausible);

    ctx.op.host_link = false;
    r = (struct gb_result){.status = GB_STATUS_OK, .value = 90000};
    snprintf(r.regime, sizeof r.regime, "memory");
    gb_result_check_bound(&r, &ctx);
    ASSERT_EQ(r.status, GB_STATUS_FAILED);
    r = (struct gb_result){.status = GB_STATUS_OK, .value = 90000};
    snprintf(r.regime, sizeof r.regime, "cache");
    gb_result_check_bound(&r, &ctx);
    ASSERT_EQ(r.status, GB_STATUS_OK);
}

/* A kernel whose own maximum work-group size (32 here) is below the profile's: a default size is
 * fitted to it and recorded as wg_used, and the case verifies (the own GEMM by more work per
 * work-item); a size the user gave stays a skip that names the kernel's maximum; batching fits
 * its launches; tuning spends its budget on
 * configurations that launch, and says why when none can. */
TEST_TIMEOUT(defects_kernel_wg_below_the_profile_is_fitted, 400)
{
    struct gb_results rs;
    run_with("kernel-wg=32",
             "  - suite: compute\n"
             "    params: {prec: [f32], iters: [64], groups: [1]}\n"
             "  - suite: memory\n"
             "    params: {op: [triad, dot], size: [4MiB]}\n"
             "  - suite: fp16\n"
             "    params: {op: [triad], storage: [float], elems: [100000]}\n"
             "  - suite: batching\n"
             "    params: {mode: [separate, batched], count: [64]}\n"
             "  - suite: gemm\n"
             "    params: {prec: [f32], impl: [own], shape: [64]}\n"
             "  - suite: compute\n"
             "    params: {prec: [f32], iters: [64], groups: [1], wg: [256]}\n"
             "  - suite: tuning\n"
             "    params: {kernel: transpose, size: 256, search: random, budget: 3, seed: 1}\n"
             "    tunables: {TILE: [8, 16, 32], ROWS: [1, 2, 4], LOCAL: [1], PAD: [1]}\n",
             false, &rs);
    size_t fitted = 0, tuned_evals = 0;
    bool explicit_skip = false, tuned_ok = false;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        const struct gb_value *wg = gb_params_get(&r->params, "wg");
        if (strcmp(r->suite, "tuning") == 0) {
            if (r->status == GB_STATUS_OK && gb_test_figure(r, "evaluations")) {
                /* The budget (3) goes to configurations that launch: all of them when fewer
                 * remain valid once built. */
                const double valid = gb_test_figure(r, "valid")->v[0];
                tuned_ok = gb_test_figure(r, "pruned")->v[0] > 0;
                tuned_evals = (size_t)gb_test_figure(r, "evaluations")->v[0];
                ASSERT_MSG(tuned_evals == (valid < 3 ? (size_t)valid : 3),
                           "tuning: %zu evaluations, %g valid, a budget of 3", tuned_evals, valid);
            } else {
                ASSERT_MSG(r->status == GB_STATUS_OK, "tuning %s: %s", r->case_name, r->reason);
            }
            continue;
        }
        if (strcmp(r->suite, "compute") == 0 && wg && wg->u.i == 256 && r->status != GB_STATUS_OK &&
            !gb_test_figure(r, "wg_used")) {
            /* the explicit wg: 256 */
            ASSERT_EQ(r->status, GB_STATUS_SKIPPED);
            ASSERT_MSG(strstr(r->reason, "this kernel's maximum 32"), "%s", r->reason);
            explicit_skip = true;
            continue;
        }
        ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "%s %s: %s", r->suite, r->case_name,
                   r->reason);
        const struct gb_figure *u = gb_test_figure(r, "wg_used");
        if (u) {
            ASSERT_MSG(u->v[0] <= 32 && u->v[0] >= 1, "%s: wg_used %g", r->suite, u->v[0]);
            fitted++;
        }
    }
    ASSERT_MSG(explicit_skip, "the explicit wg: 256 did not skip");
    ASSERT_MSG(fitted >= 5, "%zu results fitted their work-group size", fitted);
    ASSERT_MSG(tuned_ok && tuned_evals >= 1, "tuning: pruned some %d, %zu evaluations", tuned_ok,
               tuned_evals);
    gb_results_free(&rs);

    /* Simulated annealing draws among the configurations still open, pruned ones excluded: it
     * spends its budget on ones that launch too (it had stopped, or skipped as "every
     * configuration pruned" with some left). */
    run_with(
        "kernel-wg=32",
        "  - suite: tuning\n"
        "    params: {kernel: transpose, size: 256, search: anneal, budget: 4, seed: [1, 2, 3]}\n"
        "    tunables: {TILE: [8, 16, 32], ROWS: [1, 2, 4], LOCAL: [1], PAD: [1]}\n",
        false, &rs);
    size_t anneal_ok = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_MSG(r->status == GB_STATUS_OK, "anneal: %s", r->reason);
        const struct gb_figure *ev = gb_test_figure(r, "evaluations");
        if (!ev)
            continue;
        const double valid = gb_test_figure(r, "valid")->v[0];
        ASSERT_MSG(ev->v[0] == (valid < 4 ? valid : 4), "anneal: %g evaluations, %g valid",
                   ev->v[0], valid);
        anneal_ok++;
    }
    ASSERT_EQ(anneal_ok, 3);
    gb_results_free(&rs);

    /* Nothing in the space fits: the skip says so, and cites no failed result. */
    run_with("kernel-wg=8",
             "  - suite: tuning\n"
             "    params: {kernel: dot, size: 65536, search: exhaustive}\n"
             "    tunables: {WG: [64, 128], VEC: [1], LAYOUT: [1], REDUCE: [0], GPC: [4]}\n",
             false, &rs);
    ASSERT_EQ(rs.nresults, 1);
    ASSERT_EQ(rs.results[0].status, GB_STATUS_SKIPPED);
    ASSERT_MSG(strstr(rs.results[0].reason, "pruned") && !strstr(rs.results[0].reason, "failed"),
               "%s", rs.results[0].reason);
    gb_results_free(&rs);
}

/* ---- every suite under a kernel maximum of 32 --------------------------------------------- */

/* Each suite of the suite table at its smallest case (its axes narrowed to one small, quick
 * value; a suite whose kernels have more than one launch shape, such as memory's dot or
 * concurrency's chain, with those beside its simplest). A suite this table does not name runs
 * at gb_test_smallest_params' case, so that a new suite is covered on its first build. Work-group sizes are left to the
 * suites. The multi-device suites run on every device there is (with one, those that need two
 * skip, or, peerbw, have no case). */
static const struct {
    const char *suite, *entry; /* entry: the profile lines after "- suite: NAME" */
    bool multi;
} smallest[] = {
    {"transfer", "    params: {op: h2d, memory: pinned, mode: async, size: 4KiB}\n", false},
    {"memory", "    params: {op: [triad, dot], type: float, size: 1MiB}\n", false},
    {"launch", "    params: {op: latency}\n", false},
    {"scaling", "    params: {workload: triad, mode: strong, ndev: [1, 2], size: 1MiB}\n", true},
    {"aggregate", "    params: {op: h2d, ndev: [1, 2], size: 64KiB}\n", true},
    {"peer", "    params: {size: 4KiB}\n", true},
    {"peerbw", "    params: {op: latency, method: [ce, sm]}\n", true},
    {"allreduce", "    params: {ndev: [1, 2], size: 64KiB}\n", true},
    {"collective", "    params: {coll: [allreduce, reduce, alltoall], size: 4KiB}\n", true},
    {"parallel",
     "    params: {pattern: [tensor, pipeline, data], ndev: [1, 2], h: 32, tokens: 8, layers: 2, "
     "microbatches: 2, bucket: 4KiB}\n",
     true},
    {"balance", "    params: {split: [equal, dynamic], elements: 65536, iters: 16, chunks: 8}\n",
     true},
    {"compute", "    params: {prec: f32, iters: 64, groups: 1}\n", false},
    {"gemm", "    params: {prec: f32, impl: own, shape: 64}\n", false},
    {"fp16", "    params: {op: triad, storage: float, elems: 100000}\n", false},
    {"tuning", "    params: {kernel: dot, size: 65536, search: random, budget: 2}\n", false},
    {"batching", "    params: {op: launches, mode: separate, count: 16}\n", false},
    {"latency", "    params: {size: 4KiB}\n", false},
    {"cache", "    params: {size: 64KiB, reads: 1MiB}\n", false},
    {"local", "    params: {op: read, vec: 1, stride: 1, bytes: 1MiB}\n", false},
    {"atomics", "    params: {op: [global, local], type: int32, addresses: 1, iters: 4}\n", false},
    {"conv", "    params: {impl: own, shape: 1x4x8x8-4x3x3-p1}\n", false},
    {"sparse", "    params: {op: spmv, impl: own, density: 0.1, shape: 64x64x64}\n", false},
    {"alloc", "    params: {method: device, op: alloc, touch: first_use, size: 64KiB}\n", false},
    {"pool", "    params: {way: caching, layers: 2, hidden: 64KiB}\n", false},
    {"concurrency",
     "    params: {kernel: [triad, chain], queues: 1, size: 1MiB, items: 4096, iters: 64}\n",
     false},
    {"startup",
     "    measure: {warmup_runs: 0, warmup_time: 0, min_samples: 2, max_samples: 2, "
     "max_time: 10s}\n"
     "    params: {cache: warm, blas: off}\n",
     false},
    {"tenants",
     "    measure: {warmup_runs: 0, warmup_time: 0, min_samples: 2, max_samples: 2, "
     "max_time: 2s}\n"
     "    params: {victim: triad, aggressor: none, size: 1MiB}\n",
     false},
    {"serve",
     "    measure: {warmup_runs: 0, warmup_time: 0, min_samples: 1, max_samples: 1, "
     "max_time: 1s}\n"
     "    params: {shape: 64x64, load: 0.5, max_batch: 1, max_wait: 0, requests: 16}\n",
     false},
    {"llm",
     "    measure: {warmup_runs: 0, warmup_time: 0, min_samples: 1, max_samples: 1, "
     "max_time: 1s}\n"
     "    params: {model: tiny, prompt_len: 8, output_len: 4, requests: 3, max_batch: 2}\n",
     false},
    {"burn", "    params: {dtype: [f32, bf16], duration: 0.2, n: 64}\n", false},
    {"memtest", "    params: {pattern: [moving_inversions, address], fraction: 1, cap: 64KiB}\n",
     false},
};

/* The suites of the table this test leaves out, and why (none at present: a suite that cannot
 * run in a test goes here). */
static const struct {
    const char *suite, *why;
} left_out[] = {
    {NULL, NULL},
};

static bool is_left_out(const char *suite)
{
    for (size_t j = 0; left_out[j].suite; j++)
        if (strcmp(left_out[j].suite, suite) == 0)
            return true;
    return false;
}

/* Checks the results of one run: nothing failed, nothing skipped for a work-group limit (a skip
 * for a reason of the suite's own, one device or no BLAS, is fine), every wg_used within the
 * limit. Returns how many are ok. */
static size_t check_fitted(const struct gb_results *rs)
{
    size_t ok = 0;
    for (size_t i = 0; i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        ASSERT_MSG(r->status != GB_STATUS_FAILED, "%s %s failed: %s", r->suite, r->case_name,
                   r->reason);
        if (r->status == GB_STATUS_SKIPPED)
            ASSERT_MSG(!strstr(r->reason, "work-group") && !strstr(r->reason, "maximum") &&
                           !strstr(r->reason, "pruned"),
                       "%s %s skipped for the work-group limit: %s", r->suite, r->case_name,
                       r->reason);
        else
            ok++;
        const struct gb_figure *u = gb_test_figure(r, "wg_used");
        if (u)
            ASSERT_MSG(u->v[0] >= 1 && u->v[0] <= 32, "%s %s: wg_used %g", r->suite, r->case_name,
                       u->v[0]);
    }
    return ok;
}

/* Runs every suite of the suite table at its smallest case (the table above; `extra`, profile
 * lines of more cases, joins the one-device run) under the driver defect `defect`, device 0
 * into rs[0] and every device into rs[1], and checks that each suite gave a result. */
static void run_every_suite(const char *defect, const char *extra, struct gb_results rs[2])
{
    const struct gb_suite_table *t = gb_suites_builtin();
    static char entries[2][1 << 14];
    size_t len[2] = {0, 0};
    entries[0][0] = entries[1][0] = '\0';
    for (size_t i = 0; i < t->n; i++) {
        const char *name = t->v[i]->name;
        bool listed = is_left_out(name);
        for (size_t j = 0; j < sizeof smallest / sizeof smallest[0] && !listed; j++)
            if (strcmp(smallest[j].suite, name) == 0) {
                const int m = smallest[j].multi;
                len[m] += (size_t)snprintf(entries[m] + len[m], sizeof entries[m] - len[m],
                                           "  - suite: %s\n%s", name, smallest[j].entry);
                ASSERT(len[m] < sizeof entries[m]);
                listed = true;
            }
        if (!listed) { /* a suite the table above does not name: its smallest case */
            char params[1024];
            gb_test_smallest_params(t->v[i], NULL, params, sizeof params);
            const int m = (t->v[i]->flags & GB_SUITE_MULTI_DEVICE) != 0;
            len[m] += (size_t)snprintf(entries[m] + len[m], sizeof entries[m] - len[m],
                                       "  - suite: %s\n    params: %s\n", name, params);
            ASSERT(len[m] < sizeof entries[m]);
            printf("%-12s not in the table here: its smallest case %s\n", name, params);
        }
    }
    len[0] += (size_t)snprintf(entries[0] + len[0], sizeof entries[0] - len[0], "%s", extra);
    ASSERT(len[0] < sizeof entries[0]);
    run_on("0", defect, entries[0], true, &rs[0]);
    run_on("all", defect, entries[1], true, &rs[1]);
    for (size_t i = 0; i < t->n; i++) {
        const char *name = t->v[i]->name;
        bool ran = false;
        for (int m = 0; m < 2; m++)
            for (size_t j = 0; j < rs[m].nresults && !ran; j++)
                ran = strcmp(rs[m].results[j].suite, name) == 0;
        /* peerbw's cases are pairs of devices: with one device there is none */
        const bool pairs = strcmp(name, "peerbw") == 0 && rs[1].ndevices < 2;
        ASSERT_MSG(ran || pairs || is_left_out(name), "suite %s: no result", name);
    }
}

/* Every suite of the suite table, at its smallest case, with every kernel's own work-group
 * maximum 32 (below every suite's preferred size): nothing fails, and nothing is skipped for a
 * work-group limit. */
TEST_TIMEOUT(defects_kernel_wg_32_every_suite_fits, 900)
{
    struct gb_results rs[2];
    run_every_suite("kernel-wg=32", "", rs);
    const size_t ok = check_fitted(&rs[0]) + check_fitted(&rs[1]);
    const size_t all = rs[0].nresults + rs[1].nresults;
    ASSERT_MSG(ok >= all / 2, "%zu of %zu results ok", ok, all);
    gb_results_free(&rs[0]);
    gb_results_free(&rs[1]);
}

/* ---- every suite under a driver that stops a work-item's loops ---------------------------- */

/* The iterations a skip reason names as needed past the driver's loop limit ("the driver stops
 * a work-item's loops after N iterations; this case needs M", or gemm's "K = k needs M"), with
 * *limit = N; 0 when the reason names no loop limit. */
static unsigned long long loop_skip_needs(const char *reason, unsigned *limit)
{
    const char *at = strstr(reason, "the driver stops a work-item's loops after ");
    if (!at || sscanf(at, "the driver stops a work-item's loops after %u", limit) != 1)
        return 0;
    const char *needs = strstr(at, " needs ");
    unsigned long long m = 0;
    ASSERT_MSG(needs && sscanf(needs, " needs %llu", &m) == 1, "no count needed in: %s", reason);
    return m;
}

/* Checks the results of one run under a loop limit of 65,535: nothing failed (a sum cut short
 * would fail verification), and every skip that names the limit needs more than it. Returns how
 * many skips name it. */
static size_t check_loops(const struct gb_results *rs)
{
    size_t named = 0;
    for (size_t i = 0; i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        ASSERT_MSG(r->status != GB_STATUS_FAILED, "%s %s failed: %s", r->suite, r->case_name,
                   r->reason);
        if (r->status != GB_STATUS_SKIPPED)
            continue;
        unsigned limit = 0;
        const unsigned long long needs = loop_skip_needs(r->reason, &limit);
        if (!needs)
            continue;
        ASSERT_MSG(limit == 65535 && needs > limit, "%s %s: %s", r->suite, r->case_name, r->reason);
        named++;
    }
    return named;
}

/* Beside the smallest cases: a chain per work-item longer than the limit in compute, atomics and
 * concurrency (each the profile's measured count: a skip naming the limit), parallel's own GEMM
 * over K = 4,096 tokens (104,744 iterations per work-item: a skip naming the limit), and reads
 * and local accesses that one work-item of a work-group of 1 would make past it (cache and local
 * choose the work-groups: more of them, each work-item within the limit); a tuning space whose
 * GEMM configurations of WPT 8 loop 68,436 times per work-item at K = 832 (pruned before any
 * launch, named in pruned_by; the default's WPT 4, within the limit, runs). */
static const char loop_cases[] =
    "  - suite: compute\n    params: {prec: f32, iters: 1048576, groups: 1}\n"
    "  - suite: atomics\n    params: {op: global, type: int32, addresses: 1, iters: 100000}\n"
    "  - suite: concurrency\n    params: {kernel: chain, queues: 1, items: 64, iters: 100000}\n"
    "  - suite: parallel\n    params: {pattern: data, ndev: 1, impl: own, h: 8, tokens: 4096, "
    "layers: 1, bucket: 4KiB}\n"
    "  - suite: cache\n    params: {size: 64KiB, reads: 8MiB, vec: 1, wg: 1}\n"
    "  - suite: local\n    params: {op: read, vec: 1, stride: 1, bytes: 8MiB, wg: 1}\n"
    "  - suite: tuning\n    params: {kernel: gemm, size: 832, search: exhaustive}\n"
    "    tunables: {TS: [64], WPT: [8], TSK: [16], UNROLL: [4]}\n";

/* Every suite of the suite table, at its smallest case, on a driver that stops a work-item's
 * loops after 65,535 iterations (planted in the probe), with loop_cases: nothing fails, a skip
 * that names the limit is one whose work-items would really loop past it, each long chain skips
 * naming it (and only that case of its suite), and cache's and local's work-items stay within
 * it. */
TEST_TIMEOUT(defects_loop_limit_every_suite_fits, 900)
{
    struct gb_results rs[2];
    setenv("GPUBENCH_TEST_LOOP_TRIPS", "65535", 1);
    run_every_suite("", loop_cases, rs);
    unsetenv("GPUBENCH_TEST_LOOP_TRIPS");
    for (int m = 0; m < 2; m++)
        ASSERT_EQ(rs[m].devices[0].info.max_loop_trips, 65535);
    check_loops(&rs[0]);
    check_loops(&rs[1]);
    static const char *const chains[] = {"compute", "atomics", "concurrency", "parallel"};
    for (size_t c = 0; c < sizeof chains / sizeof chains[0]; c++) {
        size_t named = 0;
        for (size_t i = 0; i < rs[0].nresults; i++) {
            const struct gb_result *r = &rs[0].results[i];
            unsigned limit = 0;
            if (strcmp(r->suite, chains[c]) == 0 && r->status == GB_STATUS_SKIPPED &&
                loop_skip_needs(r->reason, &limit))
                named++;
        }
        ASSERT_MSG(named == 1, "%s: %zu skips name the loop limit", chains[c], named);
    }
    size_t spread = 0;
    for (size_t i = 0; i < rs[0].nresults; i++) {
        const struct gb_result *r = &rs[0].results[i];
        const bool cache = strcmp(r->suite, "cache") == 0, local = strcmp(r->suite, "local") == 0;
        if (!cache && !local)
            continue;
        ASSERT_MSG(r->status == GB_STATUS_OK, "%s %s: %s", r->suite, r->case_name, r->reason);
        const struct gb_figure *f =
            gb_test_figure(r, cache ? "reads_per_item" : "accesses_per_item");
        ASSERT(f);
        ASSERT_MSG(f->v[0] < 65535, "%s %s: %g per work-item", r->suite, r->case_name, f->v[0]);
        spread++;
    }
    ASSERT_EQ(spread, 4);
    size_t pruned = 0;
    for (size_t i = 0; i < rs[0].nresults; i++) {
        const struct gb_result *r = &rs[0].results[i];
        const struct gb_figure *by = gb_test_figure(r, "pruned_by");
        if (strcmp(r->suite, "tuning") == 0 && by && strstr(by->text, "loops>max")) {
            ASSERT_MSG(r->status == GB_STATUS_OK, "tuning: %s", r->reason);
            pruned++;
        }
    }
    ASSERT_EQ(pruned, 1);
    gb_results_free(&rs[0]);
    gb_results_free(&rs[1]);
}

/* The llm attention's loops at the work-group size the build settled on: the tiny model over a
 * longest context of 71 loops 288 times per work-item at the preferred 64 and 424 at 32, so under
 * a loop limit of 300 it runs on a sound driver and, with every kernel's maximum 32, skips
 * naming the limit (it had been counted at 64 whatever the fit). */
TEST_TIMEOUT(defects_loop_limit_counts_the_fitted_work_group, 300)
{
    static const char llm[] =
        "  - suite: llm\n"
        "    measure: {warmup_runs: 0, warmup_time: 0, min_samples: 1, max_samples: 1, "
        "max_time: 1s}\n"
        "    params: {model: tiny, prompt_len: 32, output_len: 16, requests: 3, max_batch: 2}\n";
    struct gb_results rs;
    setenv("GPUBENCH_TEST_LOOP_TRIPS", "300", 1);
    run_with("", llm, false, &rs);
    ASSERT_EQ(rs.nresults, 1);
    ASSERT_MSG(rs.results[0].status == GB_STATUS_OK, "%s", rs.results[0].reason);
    gb_results_free(&rs);
    run_with("kernel-wg=32", llm, false, &rs);
    unsetenv("GPUBENCH_TEST_LOOP_TRIPS");
    ASSERT_EQ(rs.nresults, 1);
    ASSERT_EQ(rs.results[0].status, GB_STATUS_SKIPPED);
    unsigned limit = 0;
    const unsigned long long needs = loop_skip_needs(rs.results[0].reason, &limit);
    ASSERT_MSG(limit == 300 && needs == 424, "%s", rs.results[0].reason);
    gb_results_free(&rs);
}

/* ---- a case whose device work outlives it ------------------------------------------------- */

/* A suite whose verification, when `leave` is true, enqueues a kernel of about a second (the
 * compute chain, 2^25 steps per work-item) and returns without waiting for it: a suite's bug that
 * would otherwise lengthen, or fail, whatever case runs next. */
static const struct gb_axis_def dirty_axes[] = {
    GB_AXIS_BOOL("leave", "[true, false]", "leave work behind"),
};

struct dirty {
    struct gb_program *prog;
    struct gb_kernel *k;
    struct gb_buf *out;
    struct gb_launch l;
};

static int dirty_setup(struct gb_case_ctx *ctx)
{
    struct dirty *s = ctx->state;
    const char *defs[] = {"CHAINS=1", "VEC=1"};
    int err = gb_case_build(ctx, "compute.cl", "compute_f32", defs, 2, &s->prog, &s->k);
    if (err || (err = gb_case_alloc(ctx, 64 * sizeof(float), GB_MEM_DEVICE, &s->out)))
        return err;
    s->l = (struct gb_launch){.dims = 1, .global = {64, 1, 1}, .local = {1, 1, 1}, .nargs = 4};
    s->l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->out};
    s->l.args[1] = (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = 0.5f};
    s->l.args[2] = (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = 0.5f};
    s->l.args[3] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = 4};
    ctx->op.timer = GB_TIMER_DEVICE;
    ctx->op.flops = 64.0 * 4 * 2;
    return 0;
}

static int dirty_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct dirty *s = ctx->state;
    int err = 0;
    for (uint64_t i = 0; i < reps && !err; i++)
        err = ctx->ops->launch(ctx->q, s->k, &s->l);
    return err;
}

static int dirty_verify(struct gb_case_ctx *ctx)
{
    struct dirty *s = ctx->state;
    if (!gb_params_bool(ctx->params, "leave"))
        return 0;
    struct gb_launch l = s->l;
    l.args[3].v.u32 = 1u << 25;
    int err = ctx->ops->launch(ctx->q, s->k, &l);
    return err ? err : ctx->ops->queue_flush(ctx->q);
}

static void dirty_teardown(struct gb_case_ctx *ctx)
{
    struct dirty *s = ctx->state;
    gb_case_free_buf(ctx, &s->out);
    gb_case_free_kernel(ctx, &s->k, &s->prog);
}

static const struct gb_suite dirty_suite = {
    .name = "dirty",
    .summary = "a test suite that leaves device work behind",
    .axes = dirty_axes,
    .naxes = 1,
    .state_size = sizeof(struct dirty),
    .setup = dirty_setup,
    .run = dirty_run,
    .verify = dirty_verify,
    .teardown = dirty_teardown,
};

/* The case that left work behind fails, saying so, and the work's second is its own; the case
 * after it on the same device and queue is ok and does not pay for it. */
TEST_TIMEOUT(defects_work_left_behind_fails_its_own_case, 120)
{
    const struct gb_suite *const v[] = {&dirty_suite};
    const struct gb_suite_table table = {v, 1};
    char err[1024];
    struct gb_profile p;
    ASSERT_MSG(gb_profile_load_string(&table,
                                      "measure: {min_samples: 3, max_samples: 5, max_time: 50ms, "
                                      "warmup_runs: 1}\nsuites:\n  - suite: dirty\n",
                                      "dirty", NULL, 0, &p, err, sizeof err) == 0,
               "%s", err);
    struct gb_plan plan = {0};
    int r = gb_plan_devices(&p, "opencl", "0", &plan);
    if (r == GB_ENODEV)
        SKIP("no OpenCL device");
    ASSERT_OK(r);
    ASSERT_OK(gb_plan_expand(&p, NULL, &plan));
    ASSERT_EQ(plan.ncases, 2);
    struct gb_results rs = {0};
    struct gb_runner_opts o = {0};
    r = gb_run_plan(&plan, &o, &rs);
    ASSERT_MSG(r == 1, "gb_run_plan: %d (1: a case failed)", r);
    ASSERT_EQ(rs.nresults, 2);
    const struct gb_result *dirty = &rs.results[0], *next = &rs.results[1];
    ASSERT_EQ(dirty->status, GB_STATUS_FAILED);
    ASSERT_MSG(strstr(dirty->reason, "outlived the case"), "%s", dirty->reason);
    ASSERT_MSG(next->status == GB_STATUS_OK, "the next case: %s", next->reason);
    ASSERT_MSG(next->elapsed_s < dirty->elapsed_s, "the next case took %g s, the dirty one %g s",
               next->elapsed_s, dirty->elapsed_s);
    gb_results_free(&rs);
    gb_plan_free(&plan);
    gb_profile_free(&p);
}

/* --device that selects nothing names each device passed over cut at 64 bytes where longer, and
 * the cut is at a character: a name of two-byte characters ("Devices ééé...") is never cut
 * inside one, which left a lone lead byte before "..." on the terminal. */
TEST_TIMEOUT(defects_unselected_device_name_cut_at_a_character, 60)
{
    int rc =
        gb_test_shf(out, sizeof out,
                    "GB_CL_DEFECT=name-utf8 LD_PRELOAD='%s' '%s' run '%s/configs/quick.yaml' -b "
                    "opencl --device no-such-device -o /tmp/x-never.json 2>&1",
                    GB_TEST_CL_DEFECTS, GB_TEST_EXE, GB_TEST_SRCDIR);
    printf("%s", out);
    if (!strstr(out, "Devices "))
        SKIP("no OpenCL device: %.200s", out);
    ASSERT_EQ(rc, 2);
    ASSERT_CONTAINS(out, "...) not selected");
    /* every lead byte is followed by its continuation */
    for (const unsigned char *u = (const unsigned char *)out; *u; u++)
        if (*u == 0xC3)
            ASSERT_MSG((u[1] & 0xC0) == 0x80, "a character cut in two: %s", out);
}
