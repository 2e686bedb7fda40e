/* The collective suite (suites/collective.c): nccl-tests' bus-bandwidth factors against hand-
 * computed values and the plan's cases (no device); every collective verified on four, two and
 * one PoCL devices (POCL_DEVICES set in each test's own process before OpenCL starts), in and out
 * of place, sum and max, f32 and i32 (and bf16 on two), and through two rounds of the staging
 * pipeline; the test hook's faults (GPUBENCH_TEST_COLL: a dropped chunk, a wrong reduction, stale
 * data, data at the wrong offset) caught by verification, naming the rank and the element; the
 * recorded skips (a transport this process cannot run, a size below the ranks, one that does not
 * fit); transport nccl through the backend socket (comm_init / comm_run) with a fake library
 * over the OpenCL ops. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "suites/multi_common.h"
#include "suites/suites.h"
#include "run/config.h"
#include "run/plan.h"
#include "test.h"

static const char *budget = "measure: {min_samples: 2, max_samples: 3, max_time: 20ms, "
                            "min_sample_time: 1ms, warmup_runs: 1, warmup_time: 0s}\n";

static void run_coll(const char *pocl, const char *params, struct gb_results *rs)
{
    gb_test_run_suite_on(pocl, budget, "collective", params, rs);
}

static enum gb_coll_op op_named(const char *s)
{
    for (int op = GB_COLL_ALLREDUCE; op <= GB_COLL_SENDRECV; op++)
        if (strcmp(s, gb_coll_op_name((enum gb_coll_op)op)) == 0)
            return (enum gb_coll_op)op;
    ASSERT_MSG(false, "no collective called %s", s);
    return GB_COLL_ALLREDUCE;
}

/* nccl-tests doc/PERFORMANCE.md, by hand: all-reduce 2 (n - 1) / n; all-gather, reduce-scatter,
 * all-to-all (n - 1) / n; broadcast, reduce, send/recv 1. */
TEST(collective_busbw_factors_are_nccl_tests)
{
    const size_t ns[4] = {1, 2, 4, 8};
    const double allreduce[4] = {0.0, 1.0, 1.5, 1.75};
    const double gather[4] = {0.0, 0.5, 0.75, 0.875};
    for (size_t i = 0; i < 4; i++) {
        ASSERT_NEAR(gb_coll_busbw_factor(GB_COLL_ALLREDUCE, ns[i]), allreduce[i], 1e-15);
        ASSERT_NEAR(gb_coll_busbw_factor(GB_COLL_ALLGATHER, ns[i]), gather[i], 1e-15);
        ASSERT_NEAR(gb_coll_busbw_factor(GB_COLL_REDUCESCATTER, ns[i]), gather[i], 1e-15);
        ASSERT_NEAR(gb_coll_busbw_factor(GB_COLL_ALLTOALL, ns[i]), gather[i], 1e-15);
        ASSERT_NEAR(gb_coll_busbw_factor(GB_COLL_BROADCAST, ns[i]), 1.0, 1e-15);
        ASSERT_NEAR(gb_coll_busbw_factor(GB_COLL_REDUCE, ns[i]), 1.0, 1e-15);
        ASSERT_NEAR(gb_coll_busbw_factor(GB_COLL_SENDRECV, ns[i]), 1.0, 1e-15);
    }
    ASSERT_STR(gb_coll_op_name(GB_COLL_REDUCESCATTER), "reducescatter");
    ASSERT_STR(gb_coll_op_name(GB_COLL_SENDRECV), "sendrecv");
}

/* The plan: redop and root mean nothing to the collectives without a reduction or a root, which
 * keep one case each (redop sum, root 0); the others keep every value. */
TEST(collective_plan_one_case_where_redop_or_root_means_nothing)
{
    const char *yaml = "suites:\n  - suite: collective\n"
                       "    params: {size: 1MiB, redop: [sum, max], root: [0, 1]}\n";
    struct gb_profile p;
    gb_test_load_profile(yaml, &p);
    static const struct gb_backend_ops fake = {.name = "fake"};
    struct gb_plan_device devs[2] = {{.ops = &fake, .index = 0}, {.ops = &fake, .index = 1}};
    struct gb_plan plan = {.devices = devs, .ndevices = 2};
    ASSERT_OK(gb_plan_expand(&p, NULL, &plan));
    size_t per_op[GB_COLL_SENDRECV + 1] = {0};
    for (size_t i = 0; i < plan.ncases; i++) {
        const struct gb_params *q = &plan.cases[i].params;
        const enum gb_coll_op op = op_named(gb_params_str(q, "coll"));
        per_op[op]++;
        ASSERT_EQ(plan.cases[i].nset, 2);
        if (op != GB_COLL_ALLREDUCE && op != GB_COLL_REDUCESCATTER && op != GB_COLL_REDUCE)
            ASSERT_STR(gb_params_str(q, "redop"), "sum");
        if (op != GB_COLL_BROADCAST && op != GB_COLL_REDUCE)
            ASSERT_EQ(gb_params_int(q, "root"), 0);
    }
    ASSERT_EQ(per_op[GB_COLL_ALLREDUCE], 2);
    ASSERT_EQ(per_op[GB_COLL_REDUCESCATTER], 2);
    ASSERT_EQ(per_op[GB_COLL_REDUCE], 4);
    ASSERT_EQ(per_op[GB_COLL_BROADCAST], 2);
    ASSERT_EQ(per_op[GB_COLL_ALLGATHER], 1);
    ASSERT_EQ(per_op[GB_COLL_ALLTOALL], 1);
    ASSERT_EQ(per_op[GB_COLL_SENDRECV], 1);
    ASSERT_EQ(plan.ncases, 13);
    free(plan.cases);
    gb_profile_free(&p);
}

/* Result r ok and verified on n ranks, with nccl-tests' figures: busbw = algbw x the factor,
 * the factor and the ranks stated. */
static void assert_coll_verified(const struct gb_result *r, size_t n)
{
    gb_test_assert_verified(r);
    ASSERT_EQ(r->nset, n);
    const enum gb_coll_op op = op_named(r->case_name);
    const struct gb_figure *alg = gb_test_need_figure(r, "algbw");
    const struct gb_figure *bus = gb_test_need_figure(r, "busbw");
    const struct gb_figure *fac = gb_test_need_figure(r, "busbw_factor");
    const struct gb_figure *ranks = gb_test_need_figure(r, "ranks");
    const struct gb_figure *time = gb_test_need_figure(r, "time");
    ASSERT_NEAR(fac->v[0], gb_coll_busbw_factor(op, n), 1e-15);
    ASSERT_NEAR(ranks->v[0], (double)n, 0);
    ASSERT_NEAR(bus->v[0], alg->v[0] * fac->v[0], 1e-9 * alg->v[0]);
    ASSERT(alg->v[0] > 0 && time->v[0] > 0);
    ASSERT(gb_test_need_figure(r, "count")->v[0] >= 1);
    ASSERT_STR(gb_test_need_figure(r, "path")->text, n == 1 ? "d2d" : "staged");
    /* The ring's pairs beside the figures: their path, and their link (PoCL: no NVML). */
    if (n > 1) {
        const char *topo = gb_test_need_figure(r, "topology")->text;
        ASSERT_MSG(strncmp(topo, "0>1>", 4) == 0 && strstr(topo, "staged") &&
                       strstr(topo, "unknown"),
                   "topology: %s", topo);
    }
}

/* Every result of rs verified on n ranks (assert_coll_verified); returns how many. */
static size_t assert_all_verified(const struct gb_results *rs, size_t n)
{
    for (size_t i = 0; i < rs->nresults; i++)
        assert_coll_verified(&rs->results[i], n);
    return rs->nresults;
}

static const char *every_case = "{size: 4100, dtype: [f32, i32], redop: [sum, max], "
                                "inplace: [false, true], root: [0, 1]}";

/* Reducing collectives 3 x 2 dtypes x 2 ops x 2 layouts (reduce twice: two roots), the others
 * 4 x 2 x 2 (broadcast twice). */
#define EVERY_CASE_RESULTS (3 * 8 + 8 + 4 * 4 + 4)

TEST_TIMEOUT(collective_four_devices_every_collective_verifies, 120)
{
    struct gb_results rs;
    run_coll("pthread pthread pthread pthread", every_case, &rs);
    gb_test_need_devices(rs.ndevices, 4);
    ASSERT_EQ(assert_all_verified(&rs, 4), EVERY_CASE_RESULTS);
    gb_results_free(&rs);
}

TEST_TIMEOUT(collective_two_devices_every_collective_verifies, 120)
{
    struct gb_results rs;
    run_coll("pthread pthread",
             "{size: [8, 4100], dtype: [f32, i32, bf16], redop: [sum, max], "
             "inplace: [false, true], root: [0, 1]}",
             &rs);
    gb_test_need_devices(rs.ndevices, 2);
    /* 8 bytes: 2 f32 or i32 elements, 4 bf16, at least one per rank everywhere. */
    ASSERT_EQ(assert_all_verified(&rs, 2), 2 * 3 * EVERY_CASE_RESULTS / 2);
    gb_results_free(&rs);
}

/* Chunks just over the 4 MiB staging piece (8 MiB + 8 bytes over two ranks: each chunk one
 * element more than a piece), so that every staged step runs two rounds of the pipeline, the
 * second with one element; send/recv three. */
TEST_TIMEOUT(collective_staged_pieces_pipeline_verifies, 120)
{
    struct gb_results rs;
    run_coll("pthread pthread", "{size: 8388616, redop: [sum, max], inplace: [false, true]}", &rs);
    gb_test_need_devices(rs.ndevices, 2);
    ASSERT_EQ(assert_all_verified(&rs, 2), 3 * 4 + 4 * 2);
    gb_results_free(&rs);
}

TEST_TIMEOUT(collective_one_device_copies_and_skips_in_place, 60)
{
    struct gb_results rs;
    run_coll("pthread", "{size: 4100, inplace: [false, true]}", &rs);
    gb_test_need_one_device(rs.ndevices);
    ASSERT_EQ(rs.nresults, 7 * 2);
    size_t ok = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        if (gb_params_bool(&r->params, "inplace")) {
            ASSERT_EQ(r->status, GB_STATUS_SKIPPED);
            ASSERT_CONTAINS(r->reason, "in place on one rank the output is the input");
            continue;
        }
        assert_coll_verified(r, 1);
        ok++;
    }
    ASSERT_EQ(ok, 7);
    gb_results_free(&rs);
}

/* Each fault of the test hook fails verification, naming the rank and the element; the wrong
 * reduction only where there is one. */
TEST_TIMEOUT(collective_planted_faults_are_caught, 120)
{
    setenv("POCL_DEVICES", "pthread pthread pthread pthread", 1);
    /* Every collective for the lost chunk and the stale data; the reducing ones, in both
     * types, for the wrong reduction; every collective once for data at the wrong offset. */
    const char *faults[] = {"drop-chunk", "wrong-op", "stale", "shift"};
    const char *params[] = {
        "{size: 4100, redop: [sum, max], inplace: [false, true]}",
        "{coll: [allreduce, reducescatter, reduce], size: 4100, dtype: [f32, i32], "
        "redop: [sum, max], inplace: [false, true]}",
        "{size: 4100, redop: [sum, max], inplace: [false, true]}", "{size: 4100}"};
    const size_t expect[] = {3 * 4 + 4 * 2, 3 * 8, 3 * 4 + 4 * 2, 7};
    for (size_t f = 0; f < 4; f++) {
        setenv("GPUBENCH_TEST_COLL", faults[f], 1);
        struct gb_results rs;
        run_coll("pthread pthread pthread pthread", params[f], &rs);
        gb_test_need_devices(rs.ndevices, 4);
        ASSERT_EQ(rs.nresults, expect[f]);
        for (size_t i = 0; i < rs.nresults; i++) {
            const struct gb_result *r = &rs.results[i];
            ASSERT_MSG(r->status == GB_STATUS_FAILED && !r->verified, "%s %s %s: %s", faults[f],
                       r->case_name, gb_params_str(&r->params, "dtype"), gb_status_name(r->status));
            ASSERT_CONTAINS(r->reason, "verification failed");
            ASSERT_CONTAINS(r->reason, "rank ");
            ASSERT_CONTAINS(r->reason, "element ");
            /* Stale data passes the measured runs' check (their outputs were right for their
             * inputs) and fails the checked run's. */
            if (f == 2)
                ASSERT_CONTAINS(r->reason, "the checked run");
        }
        printf("%s: %s\n", faults[f], rs.results[0].reason);
        gb_results_free(&rs);
    }
    unsetenv("GPUBENCH_TEST_COLL");
}

TEST_TIMEOUT(collective_skips_say_why, 60)
{
    struct gb_results rs;
    run_coll("pthread pthread pthread pthread",
             "{coll: [allreduce, broadcast, reduce, sendrecv, alltoall], size: [8, 1TiB], "
             "transport: [devices, nccl, mpi]}",
             &rs);
    gb_test_need_devices(rs.ndevices, 4);
    ASSERT_EQ(rs.nresults, 5 * 2 * 3);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        const char *tr = gb_params_str(&r->params, "transport");
        const uint64_t size = gb_params_size(&r->params, "size");
        if (strcmp(tr, "devices") == 0 && size == 8 && strcmp(r->case_name, "alltoall") != 0) {
            assert_coll_verified(r, 4); /* 2 floats over 4 ranks: two chunks are empty */
            continue;
        }
        ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "%s %s %llu: %s", r->case_name, tr,
                   (unsigned long long)size, gb_status_name(r->status));
        if (strcmp(tr, "nccl") == 0)
            ASSERT_CONTAINS(r->reason, "no collective library (NCCL is CUDA's)");
        else if (strcmp(tr, "mpi") == 0)
            ASSERT_CONTAINS(r->reason, "gpubench-mpi");
        else if (size == 8) /* 2 floats over 4 ranks: all-to-all divides the buffer */
            ASSERT_CONTAINS(r->reason, "fewer f32 elements than the set has ranks (4)");
        else
            ASSERT_MSG(strstr(r->reason, "largest allocation") || strstr(r->reason, "memory"), "%s",
                       r->reason);
    }
    gb_results_free(&rs);

    /* f16: the collectives without a reduction move 16-bit words anywhere; a reduction needs
     * half arithmetic on every device, else a recorded skip says so (PoCL's CPU devices lack
     * cl_khr_fp16). */
    run_coll("pthread pthread pthread pthread",
             "{coll: [allgather, allreduce], dtype: f16, size: 4100}", &rs);
    ASSERT_EQ(rs.nresults, 2);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        if (strcmp(r->case_name, "allgather") == 0 || r->status == GB_STATUS_OK) {
            assert_coll_verified(r, 4);
            continue;
        }
        ASSERT_EQ(r->status, GB_STATUS_SKIPPED);
        ASSERT_CONTAINS(r->reason, "an f16 reduction needs half arithmetic");
    }
    gb_results_free(&rs);

    /* Within each device's memory but not within the host's, which CPU devices' buffers of
     * every rank share (a host of 64 MiB here): a skip naming the host memory, never an
     * allocation the OOM killer answers. */
    setenv("GPUBENCH_HOST_MEMORY", "64MiB", 1);
    run_coll("pthread pthread pthread pthread", "{coll: allgather, size: 32MiB}", &rs);
    unsetenv("GPUBENCH_HOST_MEMORY");
    gb_test_need_devices(rs.ndevices, 4);
    ASSERT_EQ(rs.nresults, 1);
    ASSERT_EQ(rs.results[0].status, GB_STATUS_SKIPPED);
    ASSERT_CONTAINS(rs.results[0].reason, "4 ranks need ");
    ASSERT_CONTAINS(rs.results[0].reason, "of host memory (their devices' memory is the host's)");
    gb_results_free(&rs);
}

/* A size that is not a whole number of elements: the plan rounds it down to one (7 bytes of f32
 * are the case of 4, merged with it; 7 of f16 the case of 6), one below an element stays as given
 * for setup's skip; and every ok result's figures count the bytes moved: `bytes` = `count` x the
 * type's size, at most the recorded size (all-gather rounds count down to a multiple of the
 * ranks), and algbw x time = bytes. */
TEST_TIMEOUT(collective_odd_sizes_count_the_bytes_moved, 60)
{
    struct gb_results rs;
    run_coll("pthread pthread",
             "{coll: [allreduce, allgather, sendrecv], dtype: f32, size: [3, 4, 7, 12]}", &rs);
    gb_test_need_devices(rs.ndevices, 2);
    ASSERT_EQ(rs.nresults, 3 * 3); /* sizes 3, 4 (and 7) and 12 */
    size_t ok = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        const uint64_t size = gb_params_size(&r->params, "size");
        ASSERT_MSG(size == 3 || size == 4 || size == 12, "size %llu", (unsigned long long)size);
        const bool gather = strcmp(r->case_name, "allgather") == 0;
        if (size == 3 || (size == 4 && gather)) { /* no element; one element over 2 ranks */
            ASSERT_EQ(r->status, GB_STATUS_SKIPPED);
            ASSERT_CONTAINS(r->reason, size == 3 && !gather ? "3 bytes hold no f32 element"
                                                            : "fewer f32 elements than the set");
            continue;
        }
        assert_coll_verified(r, 2);
        const double count = gb_test_need_figure(r, "count")->v[0];
        const double bytes = gb_test_need_figure(r, "bytes")->v[0];
        /* 12 bytes are 3 floats, which the all-gather over 2 ranks rounds down to 2. */
        ASSERT_NEAR(count, size == 4 ? 1 : gather ? 2 : 3, 0);
        ASSERT_NEAR(bytes, 4 * count, 0);
        ASSERT(bytes <= (double)size);
        ASSERT_NEAR(r->bytes_per_op, bytes, 0);
        const double alg = gb_test_need_figure(r, "algbw")->v[0];
        const double us = gb_test_need_figure(r, "time")->v[0];
        ASSERT_NEAR(alg * us * 1e3, bytes, 1e-9 * bytes);
        ok++;
    }
    ASSERT_EQ(ok, 5);
    gb_results_free(&rs);

    /* The allreduce suite (the same engine, floats): 7 bytes are the case of 4. */
    gb_test_run_suite_on("pthread pthread", budget, "allreduce", "{ndev: 2, size: [4, 7]}", &rs);
    ASSERT_EQ(rs.nresults, 1);
    gb_test_assert_verified(&rs.results[0]);
    ASSERT_EQ(gb_params_size(&rs.results[0].params, "size"), 4);
    ASSERT_NEAR(gb_test_need_figure(&rs.results[0], "bytes")->v[0], 4, 0);
    ASSERT_NEAR(gb_test_need_figure(&rs.results[0], "algbw")->v[0] *
                    gb_test_need_figure(&rs.results[0], "time")->v[0] * 1e3,
                4, 4e-9);
    gb_results_free(&rs);

    /* f16 (no reduction: PoCL lacks half arithmetic): 6 and 7 bytes are one case of 3 halves. */
    run_coll("pthread pthread", "{coll: [sendrecv, allgather], dtype: f16, size: [6, 7]}", &rs);
    ASSERT_EQ(rs.nresults, 2);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        assert_coll_verified(r, 2);
        ASSERT_EQ(gb_params_size(&r->params, "size"), 6);
        const bool gather = strcmp(r->case_name, "allgather") == 0;
        const double bytes = gb_test_need_figure(r, "bytes")->v[0];
        ASSERT_NEAR(gb_test_need_figure(r, "count")->v[0], gather ? 2 : 3, 0);
        ASSERT_NEAR(bytes, gather ? 4 : 6, 0);
        ASSERT_NEAR(gb_test_need_figure(r, "algbw")->v[0] * gb_test_need_figure(r, "time")->v[0] *
                        1e3,
                    bytes, 1e-9 * bytes);
    }
    gb_results_free(&rs);
}

/* ---- transport nccl through the socket: a fake collective library over the OpenCL ops ------- */

/* The fake library: an all-reduce of floats (sum or max) done on the host, every rank's send
 * buffer read back and the result written to every receive buffer, blocking; anything else is
 * GB_EUNSUPPORTED, as a library lacking a type says. comm_init refuses when FAKE_NO_LIBRARY is
 * set, as a library that does not load. */
struct gb_comm {
    int n;
    struct gb_queue *q[GB_MAX_SET];
};
static const struct gb_backend_ops *fake_real;
static int fake_runs;

static int fake_comm_init(struct gb_device *const *devs, struct gb_queue *const *queues, int n,
                          struct gb_comm **out)
{
    (void)devs;
    if (getenv("FAKE_NO_LIBRARY"))
        return GB_FAIL(GB_EUNSUPPORTED, "libnccl.so.2: cannot open shared object file (fake)");
    struct gb_comm *c = calloc(1, sizeof *c);
    ASSERT(c);
    c->n = n;
    for (int i = 0; i < n; i++)
        c->q[i] = queues[i];
    *out = c;
    return 0;
}

static int fake_comm_run(struct gb_comm *c, const struct gb_coll *call)
{
    if (call->op != GB_COLL_ALLREDUCE || call->dtype != GB_F32)
        return GB_FAIL(GB_EUNSUPPORTED, "the fake library has float all-reduce only");
    const uint64_t bytes = call->count * sizeof(float);
    float *acc = calloc(call->count, sizeof(float)), *h = NULL;
    struct gb_buf *pin[GB_MAX_SET] = {0};
    int err = acc ? 0 : GB_ENOMEM;
    for (int i = 0; i < c->n && !err; i++)
        if (!(err = fake_real->buf_alloc(c->q[i]->dev, bytes, GB_MEM_HOST_PINNED, &pin[i])) &&
            !(err =
                  fake_real->copy(c->q[i], pin[i], 0, call->send[i], 0, bytes, GB_COPY_BLOCKING))) {
            h = pin[i]->host;
            for (uint64_t j = 0; j < call->count; j++)
                acc[j] = i == 0                       ? h[j]
                         : call->redop == GB_COLL_MAX ? (h[j] > acc[j] ? h[j] : acc[j])
                                                      : acc[j] + h[j];
        }
    for (int i = 0; i < c->n && !err; i++) {
        memcpy(pin[i]->host, acc, bytes);
        if (i == 1 && getenv("FAKE_WRONG")) /* a library that gets one element wrong */
            ((float *)pin[i]->host)[call->count / 2] += 1.0f;
        err = fake_real->copy(c->q[i], call->recv[i], 0, pin[i], 0, bytes, GB_COPY_BLOCKING);
    }
    for (int i = 0; i < c->n; i++)
        if (pin[i])
            fake_real->buf_free(pin[i]);
    free(acc);
    fake_runs++;
    return err;
}

static void fake_comm_free(struct gb_comm *c)
{
    free(c);
}

/* Drives one collective case by hand on two PoCL devices with the fake library in the ops:
 * returns setup's error, else verify's (0: the case ran, verified, and its figures say `path`
 * library); `reason` receives ctx->reason. */
static int library_case(const char *params, char *reason, size_t len)
{
    struct gb_profile p;
    struct gb_plan plan;
    const struct gb_suite *s = gb_test_plan_case_on("collective", params, NULL, 2, &p, &plan);
    fake_real = plan.devices[0].ops;
    struct gb_backend_ops ops = *fake_real;
    ops.comm_init = fake_comm_init;
    ops.comm_run = fake_comm_run;
    ops.comm_free = fake_comm_free;
    struct gb_device *devs[2];
    struct gb_queue *qs[2];
    gb_test_open_two(fake_real, &plan, devs, qs);
    struct gb_case_ctx ctx = gb_test_two_ctx(&ops, &plan, devs, qs);
    ctx.suite = s;
    ctx.state = calloc(1, s->state_size);
    int rc = s->setup(&ctx);
    if (rc == 0) {
        ASSERT_OK(s->run(&ctx, 3));
        rc = s->verify(&ctx);
    }
    if (rc == 0) {
        s->figures(&ctx, 1e-3);
        bool library = false;
        for (size_t i = 0; i < ctx.nfigures; i++)
            library |= strcmp(ctx.figures[i].name, "path") == 0 &&
                       strcmp(ctx.figures[i].text, "library") == 0;
        ASSERT(library);
    }
    snprintf(reason, len, "%s", ctx.reason);
    s->teardown(&ctx);
    free(ctx.state);
    gb_test_close_two(fake_real, devs, qs);
    gb_plan_free(&plan);
    gb_profile_free(&p);
    return rc;
}

/* A backend with a collective library: the case runs through comm_run (setup's untimed call, 3
 * runs, the checked run), and verification holds its outputs to the same exact values (a library
 * that gets one element wrong fails, naming the rank and the element); a type the library lacks
 * and a library that does not load are skips with the library's reason. */
TEST_TIMEOUT(collective_library_transport_through_the_socket, 60)
{
    setenv("POCL_DEVICES", "pthread pthread", 1);
    char reason[1024];
    fake_runs = 0;
    ASSERT_OK(library_case("{coll: allreduce, transport: nccl, redop: max, size: 4100}", reason,
                           sizeof reason));
    ASSERT_EQ(fake_runs, 1 + 3 + 1);
    setenv("FAKE_WRONG", "1", 1);
    ASSERT_EQ(library_case("{coll: allreduce, transport: nccl, size: 4100}", reason, sizeof reason),
              GB_EVERIFY);
    ASSERT_CONTAINS(reason, "rank 1: element 512");
    unsetenv("FAKE_WRONG");
    ASSERT_EQ(library_case("{coll: allgather, transport: nccl, size: 4100}", reason, sizeof reason),
              GB_ESKIP);
    ASSERT_CONTAINS(reason, "float all-reduce only");
    setenv("FAKE_NO_LIBRARY", "1", 1);
    ASSERT_EQ(library_case("{coll: allreduce, transport: nccl, size: 4100}", reason, sizeof reason),
              GB_ESKIP);
    ASSERT_CONTAINS(reason, "libnccl.so.2");
    unsetenv("FAKE_NO_LIBRARY");
}
