/* gpubench-mpi: the all-reduce across MPI ranks, run for real with mpirun on this machine, each
 * rank on the device of its local rank modulo the devices there are (two PoCL devices with
 * POCL_DEVICES="pthread pthread"; an implementation that ignores POCL_DEVICES, Intel's CPU
 * runtime, gives one, which the ranks share). Skipped when the build has no gpubench-mpi (meson
 * -Dmpi, Open MPI's ompi-c) or mpirun is missing. */
#include <unistd.h>

#include "base/error.h"
#include "base/params.h"
#include "results/results.h"
#include "test.h"

#ifndef GB_TEST_MPI_EXE
#define GB_TEST_MPI_EXE ""
#endif

static char out[1 << 16];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

/* Under AddressSanitizer the ranks unwind allocation stacks the slow way, through Open MPI's
 * libraries built without frame pointers: the leaks Open MPI keeps until exit then show its
 * libraries, which tests/lsan.supp names (cut at malloc's caller, they could not be told apart
 * from ours). */
#if GB_TEST_ASAN
#define MPI_ASAN "ASAN_OPTIONS=\"$ASAN_OPTIONS:fast_unwind_on_malloc=0\" "
#else
#define MPI_ASAN ""
#endif

/* Open MPI refuses root without both variables; --oversubscribe lets 3 ranks share 2 cores. */
#define MPI_DEVICES "POCL_DEVICES='pthread pthread'"
#define MPIRUN                                                   \
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " \
    "OMPI_MCA_rmaps_base_oversubscribe=1 " MPI_ASAN MPI_DEVICES  \
    " timeout 120 mpirun --oversubscribe"

/* How many OpenCL devices the ranks find (as gpubench does, with the same environment). */
static int mpi_devices(void)
{
    struct gb_test_devices d;
    gb_test_need_cli_devices(MPI_DEVICES, 1, &d);
    return d.n;
}

static void need_mpi(void)
{
    if (!GB_TEST_MPI_EXE[0])
        SKIP("built without gpubench-mpi (meson -Dmpi=enabled needs Open MPI: pkg-config ompi-c)");
    if (sh("command -v mpirun >/dev/null 2>&1") != 0)
        SKIP("mpirun not installed (openmpi-bin)");
}

/* n ranks, two sizes: every case ok and verified (the sums are exact), rank 0's file has every
 * rank's device, algbw / busbw as nccl-tests and the per-rank times. */
static void allreduce_ranks(int n)
{
    need_mpi();
    char dir[1024], path[2048];
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    snprintf(path, sizeof path, "%s/mpi.json", dir);
    int rc = sh("cd %s && " MPIRUN " -np %d %s allreduce --size 64KiB,1MiB --iters 5 --warmup 1 "
                "-o %s 2>&1",
                dir, n, GB_TEST_MPI_EXE, path);
    printf("%s", out);
    ASSERT_EQ(rc, 0);
    ASSERT_CONTAINS(out, "all-reduce over");
    ASSERT_EQ(gb_test_count(out, "  ok"), 2);
    /* Only rank 0 wrote: nothing else in the folder. */
    ASSERT_EQ(sh("ls %s | wc -l", dir), 0);
    ASSERT_STR(out, "1\n");

    struct gb_results rs;
    ASSERT_OK(gb_results_read(path, &rs));
    ASSERT(!rs.run.interrupted);
    ASSERT_EQ(rs.ndevices, n);
    const int ndev = mpi_devices();
    for (int k = 0; k < n; k++)
        ASSERT_EQ(rs.devices[k].index, k % ndev); /* local rank modulo the devices */
    ASSERT_EQ(rs.nresults, 2);
    const uint64_t sizes[2] = {64 << 10, 1 << 20};
    for (size_t i = 0; i < 2; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_STR(r->suite, "mpi_allreduce");
        ASSERT_MSG(r->status == GB_STATUS_OK, "%s", r->reason);
        ASSERT(r->verified);
        ASSERT_EQ(r->nsamples, 5);
        ASSERT_EQ(r->nset, n);
        ASSERT_EQ(r->params.v[1].u.i, n); /* ranks */
        ASSERT_EQ(r->params.v[2].u.i, (int64_t)sizes[i]);
        const struct gb_figure *alg = gb_test_figure(r, "algbw"), *bus = gb_test_figure(r, "busbw");
        ASSERT(alg && bus);
        ASSERT_NEAR(alg->v[0], r->value, 0);
        ASSERT_NEAR(bus->v[0], r->value * 2.0 * (n - 1) / n, 1e-12 * r->value);
        const struct gb_figure *lo = gb_test_figure(r, "rank_time_min"),
                               *avg = gb_test_figure(r, "rank_time_avg"),
                               *hi = gb_test_figure(r, "rank_time_max"),
                               *per = gb_test_figure(r, "rank_algbw");
        ASSERT(lo && avg && hi && per);
        ASSERT(lo->v[0] > 0 && lo->v[0] <= avg->v[0] * (1 + 1e-12) &&
               avg->v[0] <= hi->v[0] * (1 + 1e-12));
        ASSERT(per->per_device);
        ASSERT_EQ(per->n, n);
        for (int k = 0; k < n; k++) {
            /* Rank k's algbw is the size over its median time, within the min..max times. */
            double t_us = (double)sizes[i] / per->v[k] / 1e9 * 1e6;
            ASSERT(t_us >= lo->v[0] * (1 - 1e-9) && t_us <= hi->v[0] * (1 + 1e-9));
        }
    }
    gb_results_free(&rs);
}

TEST_TIMEOUT(mpi_allreduce_two_ranks_verified, 180)
{
    allreduce_ranks(2);
}

/* Three ranks on two devices (rank 2 shares device 0; on one device all three share it): busbw =
 * algbw x 4 / 3, sums 6 + 3 (j mod 5). */
TEST_TIMEOUT(mpi_allreduce_three_ranks_verified, 180)
{
    allreduce_ranks(3);
}

TEST_TIMEOUT(mpi_usage_and_device_errors, 120)
{
    need_mpi();
    ASSERT_EQ(sh(MPIRUN " -np 1 %s bogus 2>&1", GB_TEST_MPI_EXE), 2);
    ASSERT_CONTAINS(out, "usage: mpirun -np N gpubench-mpi allreduce");
    ASSERT_EQ(sh(MPIRUN " -np 1 %s allreduce --size 3 2>&1", GB_TEST_MPI_EXE), 2);
    ASSERT_CONTAINS(out, "--size wants");
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(sh("cd %s && " MPIRUN " -np 2 %s allreduce --device 0,7 2>&1", dir, GB_TEST_MPI_EXE),
              2);
    char want[64];
    snprintf(want, sizeof want, "rank 1: device 7: the backend has %d", mpi_devices());
    ASSERT_CONTAINS(out, want);
    ASSERT_EQ(sh(MPIRUN " -np 1 %s --help", GB_TEST_MPI_EXE), 0);
}

/* The summary is the run's document through a writer, as gpubench run's: -f json on stdout is
 * one document (every result a row of the table "result"), the progress on stderr; a format no
 * writer has is a usage error before the run. */
TEST_TIMEOUT(mpi_summary_is_a_document_through_a_writer, 120)
{
    need_mpi();
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(sh("cd %s && " MPIRUN " -np 2 %s collective --coll allreduce,broadcast --size 4KiB "
                 "--iters 2 --warmup 0 -f json -o %s/s.json 2>/dev/null | python3 -c \"import "
                 "json,sys; d=json.load(sys.stdin); t=[t for t in d['tables'] if t['id'] == "
                 "'result'][0]; print(d['kind'], len(t['rows']), sorted(set(r['status'] for r "
                 "in t['rows'])))\"",
                 dir, GB_TEST_MPI_EXE, dir),
              0);
    ASSERT_CONTAINS(out, "gpubench-run-doc/1 2 ['ok']");
    ASSERT_EQ(sh(MPIRUN " -np 1 %s allreduce -f bogus 2>&1", GB_TEST_MPI_EXE), 2);
    ASSERT_CONTAINS(out, "gpubench-mpi: no format 'bogus' (formats: ");
    /* -o - is refused as gpubench run refuses it, never a file named "-" in the folder. */
    ASSERT_EQ(sh("cd %s && " MPIRUN " -np 1 %s allreduce --size 4KiB --iters 1 -f json -o - 2>&1",
                 dir, GB_TEST_MPI_EXE),
              2);
    ASSERT_CONTAINS(out, "gpubench-mpi: -o needs a file name ('-' is not standard output here");
    ASSERT_EQ(sh("test -e %s/-", dir), 1);
}

/* ---- gpubench-mpi collective ---------------------------------------------------------------- */

/* The collectives' names, by enum gb_coll_op (as gpubench-mpi's --coll takes them). */
static const char *const coll_names[] = {"allreduce", "allgather", "reducescatter", "broadcast",
                                         "reduce",    "alltoall",  "sendrecv"};

/* A param of r read back from the file (sizes and integers alike), asserted present. */
static int64_t param_int(const struct gb_result *r, const char *name)
{
    const struct gb_value *v = gb_params_get(&r->params, name);
    ASSERT_MSG(v, "%s: no param %s", r->case_name, name);
    return v->u.i;
}

static const char *param_str(const struct gb_result *r, const char *name)
{
    const struct gb_value *v = gb_params_get(&r->params, name);
    ASSERT_MSG(v, "%s: no param %s", r->case_name, name);
    return v->s;
}

/* Every collective of every type and reduction on n ranks at 12292 bytes per rank (3073 f32: the
 * collectives that divide by n round the count down to 3072), in place or not, 3 samples each:
 * all 40 cases ok and verified on every rank, nccl-tests' count and size, busbw = algbw x the
 * factor as doc/PERFORMANCE.md states it, time x algbw = size (the median of an odd count). */
static void collective_ranks(int n, bool inplace)
{
    need_mpi();
    char dir[1024], path[2048];
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    snprintf(path, sizeof path, "%s/coll.json", dir);
    int rc = sh("cd %s && " MPIRUN " -np %d %s collective --size 12292 --dtype f32,i32,f16,bf16 "
                "--op sum,max %s --iters 3 --warmup 1 -o %s 2>&1",
                dir, n, GB_TEST_MPI_EXE, inplace ? "--inplace" : "", path);
    printf("%s", out);
    ASSERT_EQ(rc, 0);
    ASSERT_CONTAINS(out, "collectives over");
    ASSERT_EQ(gb_test_count(out, "  ok"), 40);
    gb_test_check_schema(path);

    struct gb_results rs;
    ASSERT_OK(gb_results_read(path, &rs));
    ASSERT(!rs.run.interrupted);
    ASSERT_EQ(rs.ndevices, n);
    ASSERT_EQ(rs.nresults, 40);
    size_t seen[GB_COLL_SENDRECV + 1] = {0};
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_STR(r->suite, "mpi_collective");
        ASSERT_MSG(r->status == GB_STATUS_OK, "%s: %s", r->case_name, r->reason);
        ASSERT(r->verified);
        ASSERT_EQ(r->nsamples, 3);
        ASSERT_EQ(param_int(r, "ranks"), n);
        ASSERT_STR(param_str(r, "transport"), "mpi");
        ASSERT_STR(param_str(r, "staging"), "host");
        ASSERT_STR(param_str(r, "buffers"), "device");
        int op = 0;
        while (op <= GB_COLL_SENDRECV && strcmp(coll_names[op], param_str(r, "coll")) != 0)
            op++;
        ASSERT_MSG(op <= GB_COLL_SENDRECV, "coll %s", param_str(r, "coll"));
        seen[op]++;
        const char *dt = param_str(r, "dtype");
        const int64_t ts = strcmp(dt, "f32") == 0 || strcmp(dt, "i32") == 0 ? 4 : 2;
        const bool divides =
            op == GB_COLL_ALLGATHER || op == GB_COLL_REDUCESCATTER || op == GB_COLL_ALLTOALL;
        const int64_t count = 12292 / ts - (divides ? (12292 / ts) % n : 0);
        ASSERT_EQ(param_int(r, "count"), count);
        ASSERT_EQ(param_int(r, "size"), count * ts);
        const double factor = op == GB_COLL_ALLREDUCE ? 2.0 * (n - 1) / n
                              : divides               ? (double)(n - 1) / n
                                                      : 1.0;
        const struct gb_figure *alg = gb_test_need_figure(r, "algbw"),
                               *bus = gb_test_need_figure(r, "busbw"),
                               *f = gb_test_need_figure(r, "busbw_factor"),
                               *t = gb_test_need_figure(r, "time"),
                               *ok = gb_test_need_figure(r, "rank_verified"),
                               *path_fig = gb_test_need_figure(r, "path");
        ASSERT_NEAR(f->v[0], factor, 1e-15);
        ASSERT_NEAR(alg->v[0], r->value, 0);
        ASSERT_NEAR(bus->v[0], r->value * factor, 1e-12 * r->value);
        ASSERT_NEAR(alg->v[0] * t->v[0] * 1e3, (double)(count * ts), 1e-9 * (double)(count * ts));
        ASSERT(ok->per_device);
        ASSERT_EQ(ok->n, n);
        for (int k = 0; k < n; k++)
            ASSERT_NEAR(ok->v[k], 1, 0);
        ASSERT_CONTAINS(path_fig->text, "host-staged MPI_");
        ASSERT(inplace == (strstr(path_fig->text, "MPI_IN_PLACE") != NULL));
        /* The split of the time: the copies and the rest, each within the operation's time. */
        const struct gb_figure *st = gb_test_need_figure(r, "staging_time"),
                               *mt = gb_test_need_figure(r, "mpi_time");
        ASSERT(st->v[0] >= 0 && mt->v[0] >= 0);
        ASSERT_STR(st->unit, "us");
        ASSERT_STR(mt->unit, "us");
    }
    /* 4 types, and 2 reductions where the collective reduces. */
    for (int op = 0; op <= GB_COLL_SENDRECV; op++)
        ASSERT_EQ(seen[op],
                  op == GB_COLL_ALLREDUCE || op == GB_COLL_REDUCESCATTER || op == GB_COLL_REDUCE
                      ? 8u
                      : 4u);
    gb_results_free(&rs);
}

TEST_TIMEOUT(mpi_collective_two_ranks_verified, 120)
{
    collective_ranks(2, false);
}

/* Four ranks on two devices, in place (one buffer per rank: all-gather's input is its chunk,
 * reduce-scatter's result its chunk). */
TEST_TIMEOUT(mpi_collective_four_ranks_in_place_verified, 120)
{
    collective_ranks(4, true);
}

TEST_TIMEOUT(mpi_collective_four_ranks_verified, 120)
{
    collective_ranks(4, false);
}

/* A fault planted on one rank in the verified operation (GPUBENCH_TEST_MPI_FAULT): a dropped
 * chunk, a wrong element, a result never written to the device. The root of broadcast and reduce
 * is that rank, so every collective receives there: all 7 cases fail naming it alone, and the
 * command exits 1. Counted in rank 0's progress lines on stderr, one per case (the summary on
 * stdout shares a reason among rows). */
TEST_TIMEOUT(mpi_collective_planted_faults_fail_naming_the_rank, 120)
{
    need_mpi();
    static const struct {
        const char *fault;
        int rank;
        const char *shows;
    } faults[] = {{"drop", 1, "= -1, expected"}, {"wrong", 3, ", expected"}, {"stale", 2, "= -1"}};
    const char *dir = gb_test_tmpdir();
    for (size_t i = 0; i < sizeof faults / sizeof *faults; i++) {
        int rc = sh("cd %s && GPUBENCH_TEST_MPI_FAULT=%s:%d " MPIRUN
                    " -np 4 -x GPUBENCH_TEST_MPI_FAULT %s collective --size 4KiB --root %d "
                    "--iters 2 --warmup 0 -o %s/f.json 2>&1 >/dev/null",
                    dir, faults[i].fault, faults[i].rank, GB_TEST_MPI_EXE, faults[i].rank, dir);
        printf("%s", out);
        ASSERT_EQ(rc, 1);
        char want[128];
        snprintf(want, sizeof want, "failed: rank %d: recv[", faults[i].rank);
        ASSERT_EQ(gb_test_count(out, want), 7);
        snprintf(want, sizeof want, "(ranks failed: %d)", faults[i].rank);
        ASSERT_EQ(gb_test_count(out, want), 7);
        ASSERT_EQ(gb_test_count(out, faults[i].shows), 7);
        ASSERT_EQ(gb_test_count(out, ": ok\n"), 0);
    }
    /* In place, a stale rank keeps its own input (its result never written): caught as well. */
    int rc = sh("cd %s && GPUBENCH_TEST_MPI_FAULT=stale:1 " MPIRUN
                " -np 2 -x GPUBENCH_TEST_MPI_FAULT %s collective --inplace --coll "
                "allreduce,alltoall,sendrecv --size 4KiB --iters 1 --warmup 0 -o %s/f.json 2>&1",
                dir, GB_TEST_MPI_EXE, dir);
    printf("%s", out);
    ASSERT_EQ(rc, 1);
    ASSERT_EQ(gb_test_count(out, "failed: rank 1: recv["), 3);
}

/* --buffers host: every collective on 2 ranks, the MPI call alone on host memory (no backend:
 * each rank's device is its host memory), verified on every rank; params buffers host and staging
 * none, no staging_time. Then a fault planted on rank 1 in host memory: a dropped chunk, a wrong
 * element, a receive region left as it was: every collective fails naming rank 1. */
TEST_TIMEOUT(mpi_collective_host_buffers_verified_and_faults_caught, 120)
{
    need_mpi();
    const char *dir = gb_test_tmpdir();
    char path[2048];
    snprintf(path, sizeof path, "%s/host.json", dir);
    int rc =
        sh("cd %s && " MPIRUN " -np 2 %s collective --buffers host --size 12292 --dtype f32,f16 "
           "--op sum,max --iters 3 --warmup 1 -o %s 2>&1",
           dir, GB_TEST_MPI_EXE, path);
    printf("%s", out);
    ASSERT_EQ(rc, 0);
    ASSERT_CONTAINS(out, "host buffers");
    ASSERT_EQ(gb_test_count(out, "  ok"), 20);
    gb_test_check_schema(path);
    struct gb_results rs;
    ASSERT_OK(gb_results_read(path, &rs));
    ASSERT_EQ(rs.ndevices, 2);
    for (size_t k = 0; k < rs.ndevices; k++) {
        ASSERT_STR(rs.devices[k].backend, "host");
        ASSERT_CONTAINS(rs.devices[k].info.name, "host memory");
    }
    ASSERT_EQ(rs.nresults, 20);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        ASSERT_MSG(r->status == GB_STATUS_OK, "%s: %s", r->case_name, r->reason);
        ASSERT(r->verified);
        ASSERT_EQ(r->nsamples, 3);
        ASSERT_STR(r->backend, "host");
        ASSERT_STR(param_str(r, "buffers"), "host");
        ASSERT_STR(param_str(r, "staging"), "none");
        ASSERT_CONTAINS(gb_test_need_figure(r, "path")->text, "host buffers, MPI_");
        ASSERT(gb_test_figure(r, "staging_time") == NULL);
        const struct gb_figure *ok = gb_test_need_figure(r, "rank_verified");
        for (int k = 0; k < 2; k++)
            ASSERT_NEAR(ok->v[k], 1, 0);
    }
    gb_results_free(&rs);

    static const struct {
        const char *fault, *shows;
    } faults[] = {{"drop", "= -1, expected"}, {"wrong", ", expected"}, {"stale", "= -1"}};
    for (size_t i = 0; i < sizeof faults / sizeof *faults; i++) {
        rc = sh("cd %s && GPUBENCH_TEST_MPI_FAULT=%s:1 " MPIRUN
                " -np 2 -x GPUBENCH_TEST_MPI_FAULT %s collective --buffers host --size 4KiB "
                "--root 1 --iters 2 --warmup 0 -o %s/f.json 2>&1 >/dev/null",
                dir, faults[i].fault, GB_TEST_MPI_EXE, dir);
        printf("%s", out);
        ASSERT_EQ(rc, 1);
        ASSERT_EQ(gb_test_count(out, "failed: rank 1: recv["), 7);
        ASSERT_EQ(gb_test_count(out, "(ranks failed: 1)"), 7);
        ASSERT_EQ(gb_test_count(out, faults[i].shows), 7);
        ASSERT_EQ(gb_test_count(out, ": ok\n"), 0);
    }
}

TEST_TIMEOUT(mpi_collective_usage_errors, 60)
{
    need_mpi();
    ASSERT_EQ(sh(MPIRUN " -np 1 %s collective --coll allreduce,bogus 2>&1", GB_TEST_MPI_EXE), 2);
    ASSERT_CONTAINS(out, "--coll: no such name 'bogus'");
    ASSERT_EQ(sh(MPIRUN " -np 1 %s collective --dtype f64 2>&1", GB_TEST_MPI_EXE), 2);
    ASSERT_CONTAINS(out, "--dtype: no such name 'f64'");
    ASSERT_EQ(sh(MPIRUN " -np 1 %s collective --buffers gpu 2>&1", GB_TEST_MPI_EXE), 2);
    ASSERT_CONTAINS(out, "--buffers wants device or host, got 'gpu'");
    ASSERT_EQ(sh(MPIRUN " -np 1 %s allreduce --inplace 2>&1", GB_TEST_MPI_EXE), 2);
    ASSERT_CONTAINS(out, "options of the collective command");
    /* A name or a size given twice, and a list too long to read whole (cut short, it would end
     * in another name: reducescatter as reduce), are usage errors. */
    ASSERT_EQ(
        sh(MPIRUN " -np 1 %s collective --coll allreduce,sendrecv,allreduce 2>&1", GB_TEST_MPI_EXE),
        2);
    ASSERT_CONTAINS(out, "--coll: 'allreduce' given twice");
    ASSERT_EQ(sh(MPIRUN " -np 1 %s allreduce --size 4KiB,4096 2>&1", GB_TEST_MPI_EXE), 2);
    ASSERT_CONTAINS(out, "--size: '4096' given twice");
    ASSERT_EQ(sh(MPIRUN " -np 1 %s collective --coll allreduce$(printf ',%%.0s' $(seq 240))"
                        "reducescatter 2>&1",
                 GB_TEST_MPI_EXE),
              2);
    ASSERT_CONTAINS(out, "--coll: the list is longer than 255 characters");
    /* A root that is no rank, a size below one element per rank: skipped with the reason. */
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(sh("cd %s && " MPIRUN " -np 2 %s collective --coll broadcast,allgather --root 5 "
                 "--size 4 --iters 1 -o %s/u.json 2>&1",
                 dir, GB_TEST_MPI_EXE, dir),
              0);
    ASSERT_CONTAINS(out, "skipped: rank 0: root 5: there are 2 ranks");
    ASSERT_CONTAINS(out, "skipped: rank 0: 4 bytes hold less than one f32 per rank");
    /* An output that is a folder: a usage error before the run, not after it. */
    ASSERT_EQ(sh(MPIRUN " -np 2 %s collective --coll allreduce --size 4KiB --iters 1 -o %s 2>&1",
                 GB_TEST_MPI_EXE, dir),
              2);
    ASSERT_CONTAINS(out, "it is a folder; a file is meant");
    ASSERT(!strstr(out, "allreduce "));
}
