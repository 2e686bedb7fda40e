/* The multi-device harness and suites: the device team's threads and barrier (real threads, no
 * device), the plan's device sets, and the five suites on two real PoCL devices
 * (POCL_DEVICES="pthread pthread", set in each test's own process before OpenCL starts) and on
 * one. */
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "base/util.h"
#include "suites/common.h"
#include "suites/suites.h"
#include "run/config.h"
#include "run/plan.h"
#include "run/runner.h"
#include "run/team.h"
#include "test.h"
#include "base/units.h"

/* ---- the team (no device: the devices only label errors) ------------------------------------- */

static const struct gb_backend_ops fake_ops = {.name = "fake"};

static void fake_devices(struct gb_device *d, struct gb_device **p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        d[i] = (struct gb_device){.ops = &fake_ops, .index = (int)i};
        snprintf(d[i].info.name, sizeof d[i].info.name, "fake %zu", i);
        p[i] = &d[i];
    }
}

struct team_probe {
    atomic_int before, after; /* ranks past the start, ranks past a barrier */
    int seen_before[4];       /* what each rank saw of `before` after the barrier */
    int fail_rank;            /* -1: nobody fails */
};

static int barrier_job(struct gb_team *t, size_t rank, void *arg)
{
    struct team_probe *p = arg;
    atomic_fetch_add(&p->before, 1);
    if ((int)rank == p->fail_rank)
        return GB_FAIL(GB_EBACKEND, "rank %zu gives up", rank);
    if (rank == 0)
        nanosleep(&(struct timespec){0, 100000000}, NULL); /* the others wait for rank 0:
                                                             * their wait is not busy time */
    int err = gb_team_barrier(t);
    if (err)
        return err;
    p->seen_before[rank] = atomic_load(&p->before);
    atomic_fetch_add(&p->after, 1);
    return gb_team_barrier(t);
}

TEST(multi_team_barrier_orders_ranks_and_busy_excludes_waits)
{
    struct gb_device d[4], *p[4];
    fake_devices(d, p, 4);
    struct gb_team *t;
    ASSERT_OK(gb_team_create(p, 4, &t));
    for (int round = 0; round < 3; round++) {
        struct team_probe pr = {.fail_rank = -1};
        ASSERT_OK(gb_team_run(t, 4, barrier_job, &pr));
        ASSERT_EQ(atomic_load(&pr.after), 4);
        for (int r = 0; r < 4; r++)
            ASSERT_EQ(pr.seen_before[r], 4); /* nobody passed the barrier early */
        ASSERT(gb_team_busy(t, 0) >= 0.09);
        for (int r = 1; r < 4; r++)
            ASSERT_MSG(gb_team_busy(t, r) < 0.05, "rank %d busy %g s while waiting", r,
                       gb_team_busy(t, r));
    }
    /* A run on fewer ranks and a rank alone. */
    struct team_probe pr = {.fail_rank = -1};
    ASSERT_OK(gb_team_run(t, 2, barrier_job, &pr));
    ASSERT_EQ(atomic_load(&pr.after), 2);
    ASSERT(gb_team_busy(t, 3) == 0.0);
    double s = 0;
    struct team_probe one = {.fail_rank = -1};
    ASSERT_OK(gb_team_run_one(t, 2, barrier_job, &one, &s));
    ASSERT_EQ(atomic_load(&one.after), 1);
    ASSERT(s >= 0.0 && s < 0.05);
    gb_team_destroy(t);
}

TEST_TIMEOUT(multi_team_failure_releases_the_others, 20)
{
    struct gb_device d[3], *p[3];
    fake_devices(d, p, 3);
    struct gb_team *t;
    ASSERT_OK(gb_team_create(p, 3, &t));
    /* Rank 2 fails while ranks 0 and 1 wait at the barrier for it: they must be released, and
     * the run must report rank 2's error, labelled with its device. */
    struct team_probe pr = {.fail_rank = 2};
    int rc = gb_team_run(t, 3, barrier_job, &pr);
    ASSERT_EQ(rc, GB_EBACKEND);
    ASSERT_CONTAINS(gb_error_msg(), "fake:2 (fake 2)");
    ASSERT_CONTAINS(gb_error_msg(), "rank 2 gives up");
    ASSERT_EQ(atomic_load(&pr.after), 0);
    /* The team is usable again afterwards: the failure ended that run only. */
    struct team_probe ok = {.fail_rank = -1};
    ASSERT_OK(gb_team_run(t, 3, barrier_job, &ok));
    ASSERT_EQ(atomic_load(&ok.after), 3);
    gb_team_destroy(t);
    ASSERT_EQ(gb_team_create(p, 0, &t), GB_EINVAL);
    ASSERT_EQ(gb_team_create(p, GB_MAX_SET + 1, &t), GB_EINVAL);
}

/* ---- the plan ------------------------------------------------------------------------------ */

TEST(multi_plan_one_case_per_device_set_per_backend)
{
    const char *yaml = "suites:\n"
                       "  - suite: memory\n    params: {op: copy, type: float}\n"
                       "  - suite: peer\n    params: {size: [4KiB, 1MiB]}\n"
                       "  - suite: scaling\n    params: {workload: triad, ndev: [1, 2, 4], "
                       "mode: [strong, weak]}\n";
    struct gb_profile p;
    gb_test_load_profile(yaml, &p);
    /* Two devices of one backend and one of another. */
    static const struct gb_backend_ops other = {.name = "other"};
    struct gb_plan_device devs[3] = {{.ops = &fake_ops, .index = 0},
                                     {.ops = &other, .index = 0},
                                     {.ops = &fake_ops, .index = 1}};
    struct gb_plan plan = {.devices = devs, .ndevices = 3};
    ASSERT_OK(gb_plan_expand(&p, NULL, &plan));
    /* memory: 1 case on each of 3 devices, device-major, first. */
    for (size_t i = 0; i < 3; i++) {
        ASSERT_STR(plan.cases[i].run->suite->name, "memory");
        ASSERT_EQ(plan.cases[i].device, i);
        ASSERT_EQ(plan.cases[i].nset, 0);
    }
    /* fake's set {0, 2}: peer 2x2 cells x 2 sizes, scaling 1 (ndev 1: strong only) + 2 x 2. */
    size_t k = 3;
    for (; k < 3 + 8; k++) {
        const struct gb_plan_case *c = &plan.cases[k];
        ASSERT_STR(c->run->suite->name, "peer");
        ASSERT_EQ(c->nset, 2);
        ASSERT_EQ(c->set[0], 0);
        ASSERT_EQ(c->set[1], 2);
        ASSERT(gb_params_int(&c->params, "src") < 2 && gb_params_int(&c->params, "dst") < 2);
    }
    for (; k < 3 + 8 + 5; k++) {
        ASSERT_STR(plan.cases[k].run->suite->name, "scaling");
        ASSERT_EQ(plan.cases[k].nset, 2);
    }
    ASSERT_STR(gb_params_str(&plan.cases[11].params, "mode"), "strong");
    ASSERT_EQ(gb_params_int(&plan.cases[11].params, "ndev"), 1);
    ASSERT_EQ(gb_params_int(&plan.cases[11].params, "order"), 0); /* unused by triad */
    /* other's set {1}: the (0, 0) cell at 2 sizes, then scaling. */
    for (; k < 3 + 8 + 5 + 2; k++) {
        ASSERT_STR(plan.cases[k].run->suite->name, "peer");
        ASSERT_EQ(plan.cases[k].nset, 1);
        ASSERT_EQ(plan.cases[k].set[0], 1);
    }
    ASSERT_EQ(plan.ncases, 3 + 8 + 5 + 2 + 5);
    free(plan.cases);
    gb_profile_free(&p);
}

/* ---- the results file: the additive "devices" and "figures" of a result -------------------- */

TEST(multi_results_devices_and_figures_round_trip)
{
    struct gb_results rs = {0};
    struct gb_device_info info = {.name = "dev"};
    int i0, i1;
    ASSERT_OK(gb_results_add_device(&rs, "opencl", 0, &info, &i0));
    ASSERT_OK(gb_results_add_device(&rs, "opencl", 1, &info, &i1));
    struct gb_result single = {.device_index = i0, .status = GB_STATUS_OK};
    snprintf(single.suite, sizeof single.suite, "memory");
    ASSERT_OK(gb_results_add(&rs, &single));
    struct gb_result multi = {
        .device_index = i1, .status = GB_STATUS_OK, .nset = 2, .set = {i1, i0}, .nfigures = 3};
    snprintf(multi.suite, sizeof multi.suite, "balance");
    multi.figures[0] = (struct gb_figure){.name = "makespan", .unit = "s", .n = 1, .v = {0.25}};
    multi.figures[1] = (struct gb_figure){
        .name = "busy", .unit = "s", .n = 2, .per_device = true, .v = {0.25, 0.125}};
    multi.figures[2] = (struct gb_figure){.name = "path", .text = "staged"};
    ASSERT_OK(gb_results_add(&rs, &multi));
    char path[GB_PATH_JOIN];
    snprintf(path, sizeof path, "%s/r.json", gb_test_tmpdir());
    ASSERT_OK(gb_results_write(&rs, path));

    struct gb_results back;
    ASSERT_OK(gb_results_read(path, &back));
    ASSERT_EQ(back.results[0].nset, 0); /* a single-device result has neither field */
    ASSERT_EQ(back.results[0].nfigures, 0);
    const struct gb_result *m = &back.results[1];
    ASSERT_EQ(m->nset, 2);
    ASSERT_EQ(m->set[0], i1);
    ASSERT_EQ(m->set[1], i0);
    ASSERT_EQ(m->nfigures, 3);
    ASSERT_STR(m->figures[0].name, "makespan");
    ASSERT(!m->figures[0].per_device && m->figures[0].n == 1 && m->figures[0].v[0] == 0.25);
    ASSERT(m->figures[1].per_device && m->figures[1].n == 2 && m->figures[1].v[1] == 0.125);
    ASSERT_STR(m->figures[1].unit, "s");
    ASSERT_EQ(m->figures[2].n, 0);
    ASSERT_STR(m->figures[2].text, "staged");
    gb_results_free(&back);

    /* A device index outside the file's devices is a schema error that says where. */
    FILE *f = fopen(path, "r");
    ASSERT(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *set = strstr(text, "\"devices\":[1,");
    ASSERT_MSG(set, "no devices array in:\n%s", text);
    set[strlen("\"devices\":[")] = '7';
    gb_test_write_file(path, text);
    ASSERT_EQ(gb_results_read(path, &back), GB_ESCHEMA);
    ASSERT_CONTAINS(gb_error_msg(), "results[1].devices[0]");
    gb_results_free(&rs);
}

/* ---- the suites on PoCL ---------------------------------------------------------------------- */

static const char *budget = "measure: {min_samples: 3, max_samples: 5, max_time: 50ms, "
                            "min_sample_time: 1ms, warmup_runs: 1, warmup_time: 0s}\n";

/* Runs `suites` (YAML list items) on every OpenCL device with POCL_DEVICES=pocl (PoCL makes
 * one device per entry; another implementation ignores it and offers what it has). */
static void run_multi(const char *pocl, const char *suites, struct gb_results *rs)
{
    setenv("POCL_DEVICES", pocl, 1);
    static char yaml[20000];
    snprintf(yaml, sizeof yaml, "%ssuites:\n%s", budget, suites);
    gb_test_run_profile(yaml, NULL, rs);
}

static void assert_ok(const struct gb_result *r)
{
    char p[256];
    gb_params_format(&r->params, p, sizeof p);
    ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "%s %s %s: %s: %s", r->suite, r->case_name,
               p, gb_status_name(r->status), r->reason);
    ASSERT_MSG(r->value > 0, "%s %s %s: value %g", r->suite, r->case_name, p, r->value);
}

TEST_TIMEOUT(multi_two_devices_every_suite_verifies, 120)
{
    struct gb_results rs;
    run_multi("pthread pthread",
              "  - suite: scaling\n    params: {workload: [triad, sgemm], mode: [strong, weak], "
              "ndev: [1, 2], size: 1MiB, order: 96}\n"
              "  - suite: aggregate\n    params: {op: [h2d, d2h], ndev: [1, 2], size: 1MiB}\n"
              "  - suite: peer\n    params: {size: [4097, 1MiB]}\n"
              "  - suite: allreduce\n    params: {ndev: [1, 2], size: [4100, 1MiB]}\n"
              "  - suite: balance\n    params: {elements: 10000, iters: 16, chunks: 7}\n",
              &rs);
    gb_test_need_devices(rs.ndevices, 2);
    /* scaling 2 x 3, aggregate 4, peer 4 x 2, allreduce 4, balance 3. */
    ASSERT_EQ(rs.nresults, 6 + 4 + 8 + 4 + 3);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        assert_ok(r);
        ASSERT(r->nset >= 1);
        ASSERT_EQ(r->device_index, r->set[0]);
        const struct gb_value *nd = gb_params_get(&r->params, "ndev");
        if (nd)
            ASSERT_EQ(r->nset, nd->u.i); /* the devices that took part */
        if (nd && nd->u.i == 2 && strcmp(r->suite, "allreduce") != 0) {
            const struct gb_figure *sp = gb_test_figure(r, "speedup");
            const struct gb_figure *ef = gb_test_figure(r, "efficiency");
            ASSERT_MSG(sp && ef, "%s %s: no speedup", r->suite, r->case_name);
            ASSERT(sp->v[0] > 0);
            ASSERT_NEAR(ef->v[0], sp->v[0] / 2, 1e-12);
        }
        if (strcmp(r->suite, "peer") == 0) {
            const struct gb_figure *path = gb_test_figure(r, "path");
            ASSERT(path);
            bool diag = gb_params_int(&r->params, "src") == gb_params_int(&r->params, "dst");
            ASSERT_STR(path->text, diag ? "d2d" : "staged"); /* OpenCL: never direct */
            ASSERT_EQ(r->nset, diag ? 1 : 2);
        }
        if (strcmp(r->suite, "allreduce") == 0) {
            const struct gb_figure *alg = gb_test_figure(r, "algbw");
            const struct gb_figure *bus = gb_test_figure(r, "busbw");
            ASSERT(alg && bus);
            /* nccl-tests: busbw = algbw * 2 (n - 1) / n, so equal for n = 2, 0 for n = 1. */
            ASSERT_NEAR(bus->v[0], alg->v[0] * (nd->u.i == 2 ? 1.0 : 0.0), 1e-9 * alg->v[0]);
        }
        if (strcmp(r->suite, "balance") == 0) {
            const struct gb_figure *busy = gb_test_figure(r, "busy");
            const struct gb_figure *share = gb_test_figure(r, "share");
            ASSERT(busy && share && busy->per_device && busy->n == 2 && share->n == 2);
            ASSERT_NEAR(share->v[0] + share->v[1], 1.0, 1e-12);
            ASSERT(gb_test_figure(r, "makespan"));
        }
    }
    /* The results file round trip keeps the device sets and the figures. */
    char path[GB_PATH_JOIN];
    snprintf(path, sizeof path, "%s/r.json", gb_test_tmpdir());
    ASSERT_OK(gb_results_write(&rs, path));
    struct gb_results back;
    ASSERT_OK(gb_results_read(path, &back));
    ASSERT_EQ(back.nresults, rs.nresults);
    for (size_t i = 0; i < rs.nresults; i++) {
        ASSERT_EQ(back.results[i].nset, rs.results[i].nset);
        ASSERT_EQ(back.results[i].nfigures, rs.results[i].nfigures);
        for (size_t k = 0; k < rs.results[i].nset; k++)
            ASSERT_EQ(back.results[i].set[k], rs.results[i].set[k]);
        for (size_t k = 0; k < rs.results[i].nfigures; k++) {
            const struct gb_figure *a = &rs.results[i].figures[k], *b = &back.results[i].figures[k];
            ASSERT_STR(a->name, b->name);
            ASSERT_EQ(a->n, b->n);
            ASSERT_STR(a->text, b->text);
            if (a->n)
                ASSERT_NEAR(a->v[a->n - 1], b->v[a->n - 1], 1e-12 * fabs(a->v[a->n - 1]));
        }
    }
    gb_results_free(&back);
    gb_results_free(&rs);

    /* And every other multi-device suite of the suite table at its smallest case on both
     * devices (ndev 2, and a pair's dst device 1, where it has those axes): each gives results,
     * every one ok and verified, so that a new multi-device suite is covered on its first
     * build. */
    static const char *const above[] = {"scaling", "aggregate", "peer", "allreduce", "balance"};
    static const char *const two[] = {"ndev: 2", "dst: 1", NULL};
    const struct gb_suite_table *t = gb_suites_builtin();
    static char more[16384];
    bool *ran = calloc(t->n, sizeof *ran);
    ASSERT(ran);
    more[0] = '\0';
    for (size_t i = 0; i < t->n; i++) {
        const struct gb_suite *s = t->v[i];
        bool covered = !(s->flags & GB_SUITE_MULTI_DEVICE);
        for (size_t j = 0; j < sizeof above / sizeof *above && !covered; j++)
            covered = strcmp(above[j], s->name) == 0;
        if (covered)
            continue;
        char params[1024];
        gb_test_smallest_params(s, two, params, sizeof params);
        gb_appendf(more, sizeof more, "  - suite: %s\n    params: %s\n", s->name, params);
        ASSERT(strlen(more) + 1 < sizeof more);
        ran[i] = true;
    }
    if (!more[0]) {
        free(ran);
        return;
    }
    run_multi("pthread pthread", more, &rs);
    for (size_t i = 0; i < t->n; i++) {
        const struct gb_suite *s = t->v[i];
        if (!ran[i])
            continue;
        size_t n = 0, nset = 0;
        for (size_t k = 0; k < rs.nresults; k++)
            if (strcmp(rs.results[k].suite, s->name) == 0) {
                assert_ok(&rs.results[k]);
                n++;
                nset = rs.results[k].nset > nset ? rs.results[k].nset : nset;
            }
        printf("%-12s %zu results ok and verified, on up to %zu devices\n", s->name, n, nset);
        ASSERT_MSG(n > 0, "multi-device suite %s: no result", s->name);
    }
    free(ran);
    gb_results_free(&rs);
}

TEST_TIMEOUT(multi_one_device_reports_baselines_and_skips_the_rest, 60)
{
    struct gb_results rs;
    run_multi("pthread",
              "  - suite: memory\n    params: {op: copy, type: float, size: 64KiB}\n"
              "  - suite: scaling\n    params: {workload: triad, mode: strong, ndev: [1, 2], "
              "size: 256KiB}\n"
              "  - suite: peer\n    params: {size: 64KiB}\n"
              "  - suite: allreduce\n    params: {ndev: [1, 2], size: 64KiB}\n"
              "  - suite: balance\n    params: {elements: 4096, iters: 8}\n",
              &rs);
    gb_test_need_one_device(rs.ndevices);
    /* A single-device case first (it runs on its own, with no device set); then scaling ndev 1
     * ok, 2 skipped; peer (0, 0) only; allreduce 1 ok, 2 skipped; balance equal ok,
     * proportional and dynamic skipped. The device is listed once. */
    ASSERT_EQ(rs.nresults, 1 + 2 + 1 + 2 + 3);
    ASSERT_STR(rs.results[0].suite, "memory");
    assert_ok(&rs.results[0]);
    ASSERT_EQ(rs.results[0].nset, 0);
    const int ok[] = {1, 0, 1, 1, 0, 1, 0, 0};
    for (size_t i = 1; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_EQ(r->nset, 1);
        ASSERT_EQ(r->set[0], 0);
        if (ok[i - 1]) {
            assert_ok(r);
        } else {
            ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "result %zu: %s", i,
                       gb_status_name(r->status));
            ASSERT_MSG(strstr(r->reason, "needs 2 devices") || strstr(r->reason, "at least 2"),
                       "reason: %s", r->reason);
        }
    }
    gb_results_free(&rs);
}

/* The plan's first two devices opened, a queue on each. */
/* Drives one multi-device case by hand on two PoCL devices: verify passes after the runs and
 * fails when nothing ran, so no verifier is vacuous. And a device failing mid-case (a launch
 * the backend rejects on device 1 only) fails that run without hanging device 0. */
static void verify_needs_the_work(const char *suite_name, const char *params)
{
    struct gb_profile p;
    struct gb_plan plan;
    const struct gb_suite *s = gb_test_plan_case_on(suite_name, params, NULL, 2, &p, &plan);
    const struct gb_backend_ops *ops = plan.devices[0].ops;
    struct gb_device *devs[2];
    struct gb_queue *qs[2];
    gb_test_open_two(ops, &plan, devs, qs);
    for (int pass = 0; pass < 2; pass++) {
        struct gb_case_ctx ctx = gb_test_two_ctx(ops, &plan, devs, qs);
        ctx.state = calloc(1, s->state_size);
        ASSERT_OK(s->setup(&ctx));
        ASSERT_EQ(ctx.op.timer, GB_TIMER_HOST);
        if (pass == 0) {
            ASSERT_OK(s->run(&ctx, 2));
            ASSERT_OK(s->verify(&ctx));
        } else {
            ASSERT_EQ(s->verify(&ctx), GB_EVERIFY);
            printf("%s without a run: %s\n", suite_name, ctx.reason);
        }
        s->teardown(&ctx);
        free(ctx.state);
    }
    gb_test_close_two(ops, devs, qs);
    gb_plan_free(&plan);
    gb_profile_free(&p);
}

TEST_TIMEOUT(multi_verify_rejects_output_that_was_not_computed, 120)
{
    setenv("POCL_DEVICES", "pthread pthread", 1);
    verify_needs_the_work("scaling", "{workload: triad, mode: weak, ndev: 2, size: 64KiB}");
    verify_needs_the_work("scaling", "{workload: sgemm, mode: strong, ndev: 2, order: 40}");
    verify_needs_the_work("aggregate", "{op: [d2h], ndev: 2, size: 64KiB}");
    verify_needs_the_work("peer", "{src: 1, dst: 0, size: 1MiB}");
    verify_needs_the_work("peerbw", "{op: bidir, method: ce, src: 0, dst: 1, size: 1MiB}");
    verify_needs_the_work("peerbw", "{op: all_to_all, method: ce, size: 64KiB}");
    verify_needs_the_work("peerbw", "{op: latency, method: ce, src: 1, dst: 0}");
    verify_needs_the_work("allreduce", "{ndev: 2, size: 64KiB}");
    verify_needs_the_work("balance", "{split: dynamic, elements: 5000, iters: 4}");
}

struct bad_launch {
    const struct gb_backend_ops *ops;
    struct gb_queue *const *qs;
    struct gb_kernel *k;
    int passed; /* ranks that got past the barrier */
};

static int bad_launch_job(struct gb_team *t, size_t rank, void *arg)
{
    struct bad_launch *b = arg;
    if (rank == 1) {
        /* A global size that is not a multiple of the local size: the backend refuses it. */
        struct gb_launch l = {.dims = 1, .global = {100, 1, 1}, .local = {64, 1, 1}, .nargs = 0};
        int err = b->ops->launch(b->qs[1], b->k, &l);
        if (err)
            return err;
    }
    int err = gb_team_barrier(t);
    if (!err)
        b->passed++;
    return err;
}

TEST_TIMEOUT(multi_device_failing_mid_case_fails_that_run_only, 60)
{
    setenv("POCL_DEVICES", "pthread pthread", 1);
    struct gb_plan plan = {0};
    int r = gb_plan_devices(NULL, "opencl", NULL, &plan);
    gb_test_need_devices(r == GB_ENODEV ? 0 : plan.ndevices, 2);
    const struct gb_backend_ops *ops = plan.devices[0].ops;
    struct gb_device *devs[2];
    struct gb_queue *qs[2];
    gb_test_open_two(ops, &plan, devs, qs);
    struct gb_case_ctx ctx = {.ops = ops, .dev = devs[1], .q = qs[1]};
    struct gb_program *prog;
    struct gb_kernel *k;
    ASSERT_OK(gb_case_build(&ctx, "launch.cl", "launch_count", NULL, 0, &prog, &k));
    struct gb_team *t;
    ASSERT_OK(gb_team_create(devs, 2, &t));
    struct bad_launch b = {.ops = ops, .qs = qs, .k = k};
    ASSERT_EQ(gb_team_run(t, 2, bad_launch_job, &b), GB_EINVAL);
    char want[64];
    snprintf(want, sizeof want, "opencl:%d", devs[1]->index);
    ASSERT_CONTAINS(gb_error_msg(), want);
    ASSERT_EQ(b.passed, 0);
    gb_team_destroy(t);
    ops->kernel_free(k);
    ops->program_free(prog);
    gb_test_close_two(ops, devs, qs);
    gb_plan_free(&plan);
}

/* The shipped quick profile, through the CLI on two PoCL devices, with smaller sizes: every case
 * of every multi-device suite runs for 1 and 2 devices, ok and verified, nothing skipped. */
TEST_TIMEOUT(multi_quick_profile_on_two_devices, 120)
{
    static char out[1 << 16];
    setenv("POCL_DEVICES", "pthread pthread", 1);
    char res[GB_PATH_JOIN], cmd[8192];
    snprintf(res, sizeof res, "%s/mq.json", gb_test_tmpdir());
    snprintf(cmd, sizeof cmd,
             "'%s' run '%s/configs/multi-quick.yaml' -o '%s' "
             "--set measure.max_time=50ms --set measure.min_sample_time=1ms "
             "--set balance.measure.max_time=50ms --set balance.measure.min_sample_time=1ms "
             "--set scaling.params.size=1MiB --set scaling.params.order=64 "
             "--set aggregate.params.size=1MiB --set peer.params.size=[4KiB,1MiB] "
             "--set peerbw.params.size=1MiB "
             "--set allreduce.params.size=[64KiB,1MiB] --set collective.params.size=64KiB "
             "--set balance.params.elements=20000 2>&1",
             GB_TEST_EXE, GB_TEST_SRCDIR, res);
    int rc = gb_test_sh(cmd, out, sizeof out);
    ASSERT_MSG(rc == 0, "exit %d:\n%s", rc, out);
    struct gb_results rs;
    ASSERT_OK(gb_results_read(res, &rs));
    gb_test_need_devices(rs.ndevices, 2);
    /* scaling 6, aggregate 4, peer 2 x 2 x 2, peerbw 8 (bidir 1, all_to_one 2, one_to_all 2,
     * all_to_all 1, latency 2), allreduce 4, collective 7 x 2 (in and out of place), balance 3 */
    ASSERT_EQ(rs.nresults, 33 + 14);
    size_t two = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        assert_ok(&rs.results[i]);
        two += rs.results[i].nset == 2;
    }
    ASSERT_EQ(two, 4 + 2 + 4 + 8 + 2 + 14 + 3); /* scaling, aggregate, peer, peerbw, allreduce,
                                                   * collective, balance */
    gb_results_free(&rs);
}

/* ---- the kernels through NVRTC (CUDA builds; no GPU needed) ------------------------------- */

#include "gb-config.h"
#if HAVE_CUDA
#include "backends/cuda/gb_cuda.h"
#include "run/kernels.h"

TEST_TIMEOUT(multi_kernels_compile_with_nvrtc, 120)
{
    char *src = NULL;
    ASSERT_OK(gb_kernel_source("multi.cl", &src));
    /* peerbw's SM copy (multi_copy) in 4-byte words, and in 16-byte words (COPY_VEC4). */
    const char *const sets[][1] = {{NULL}, {"TS=16"}, {"COPY_VEC4"}};
    for (size_t s = 0; s < 3; s++) {
        char *ptx = NULL, *log = NULL;
        int rc = gb_cuda_compile_ptx(src, "compute_80", sets[s], sets[s][0] ? 1 : 0, &ptx, &log);
        ASSERT_MSG(rc == 0, "multi.cl: %s\n%s", gb_error_msg(), log ? log : "");
        const char *entries[] = {"multi_sgemm", "multi_work", "multi_copy"};
        for (size_t k = 0; k < 3; k++) {
            char want[64];
            snprintf(want, sizeof want, ".entry %s(", entries[k]);
            ASSERT_CONTAINS(ptx, want);
        }
        free(ptx);
    }
    free(src);
}
#endif
