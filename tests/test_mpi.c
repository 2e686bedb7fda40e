/* gpubench-mpi: the all-reduce across MPI ranks, run for real with mpirun on this machine, each
 * rank on the device of its local rank modulo the devices there are (two PoCL devices with
 * POCL_DEVICES="pthread pthread"; an implementation that ignores POCL_DEVICES, Intel's CPU
 * runtime, gives one, which the ranks share). Skipped when the build has no gpubench-mpi (meson
 * -Dmpi, Open MPI's ompi-c) or mpirun is missing. */
#include <unistd.h>

#include "base/error.h"
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
