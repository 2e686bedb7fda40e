/* gpubench — the all-reduce across MPI ranks (built only with meson -Dmpi, into gpubench-mpi).
 *
 * Every rank holds one device buffer `in` of `bytes` (floats) and receives the sum over the ranks
 * into a device buffer `out` (out of place, as nccl-tests' default). OpenCL has no way to hand a
 * device buffer to MPI, so the all-reduce is host-staged: each rank reads `in` back into a pinned
 * host buffer, the ranks sum with MPI_Allreduce(MPI_FLOAT, MPI_SUM) between pinned buffers, and
 * each rank writes the sum to `out`; one operation is all three, blocking. (No pipelining of the
 * three steps in chunks: the figure is what the plain staged path gives.)
 *
 * Not a suite of the profile table, because of how it must be timed: a collective completes only
 * when every rank calls it, so every rank must make the same number of calls, and the harness's
 * stopping rule decides per process (noise, time budget, batch size). Here every rank runs
 * `warmup` operations, meets at a barrier, and times `iters` operations one by one with the host
 * clock (CLOCK_MONOTONIC). Sample i of the case is operation i's time averaged over the ranks, as
 * nccl-tests averages its per-rank times by default (its "-a 1"); the headline is the median of
 * the samples as algbw.
 *
 * Figures after nccl-tests (doc/PERFORMANCE.md): algbw = bytes / time (GB/s, the headline) and
 * busbw = algbw x 2 (n - 1) / n for n ranks, the bandwidth each link of a ring would sustain,
 * comparable across n. Per rank (gathered to rank 0): each rank's median time per operation, as
 * rank_time_min / _avg / _max (us) and, with at most GB_MAX_SET ranks, per rank as a per-device
 * figure rank_algbw (GB/s, in rank order).
 *
 * Verification: rank r's in[j] = r + 1 + (j mod 5), so every out[j] on every rank must be
 * n (n + 1) / 2 + n (j mod 5), exactly (small integers in float while n (n + 1) / 2 + 4 n < 2^24).
 * Every rank checks its own out; the first mismatch, with its rank, fails the case everywhere.
 */
#ifndef GB_MPI_ALLREDUCE_H
#define GB_MPI_ALLREDUCE_H

#include <stdint.h>

#include <mpi.h>

#include "backends/backend.h"
#include "results/results.h"

struct gb_mpi_ar_opts {
    uint32_t warmup; /* untimed operations before the timed ones */
    uint32_t iters;  /* timed operations (samples), >= 1 */
};

/* Runs the all-reduce of `bytes` (a multiple of 4, > 0) on this rank's device `dev` (queue q)
 * across `comm`. Collective: every rank of comm must call it with the same bytes and options.
 * On rank 0, *r is filled as a result of suite "mpi_allreduce" (params op=sum, ranks, size,
 * staging=host; samples in GB/s, owned by *r; status ok, or failed / skipped with the reason and
 * the rank it came from); other ranks leave *r zeroed. Returns 0 when the case ran to its verdict
 * (ok or not) on every rank, or an MPI / memory error that leaves the ranks out of step (the
 * caller aborts). */
int gb_mpi_allreduce(const struct gb_backend_ops *ops, struct gb_device *dev, struct gb_queue *q,
                     MPI_Comm comm, uint64_t bytes, const struct gb_mpi_ar_opts *o,
                     struct gb_result *r);

#endif
