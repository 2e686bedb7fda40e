/* gpubench — every collective across MPI ranks (built only with meson -Dmpi, into gpubench-mpi's
 * `collective` command).
 *
 * The collectives are nccl-tests' (backends/backend.h, enum gb_coll_op) with its buffer shapes:
 * `count` is the number of elements of the larger of a rank's two buffers, and the size reported
 * is count x the type's size. With n ranks and c = count / n:
 *
 *   op             send   recv   MPI call (host-staged)
 *   allreduce      count  count  MPI_Allreduce
 *   allgather      c      count  MPI_Allgather (c per rank)
 *   reducescatter  count  c      MPI_Reduce_scatter_block (c per rank)
 *   broadcast      count  count  MPI_Bcast from the root
 *   reduce         count  count  MPI_Reduce to the root
 *   alltoall       count  count  MPI_Alltoall (c to each rank)
 *   sendrecv       count  count  MPI_Sendrecv, rank r to r + 1 and from r - 1 (mod n): a ring
 *
 * The collectives that divide count by n round it down to a multiple of n (as nccl-tests does).
 * In place (nccl-tests' in-place run) the two buffers are one device buffer of count elements:
 * all-gather's send is its chunk r, reduce-scatter's receive is its chunk r.
 *
 * Transport: every rank holds device buffers. OpenCL cannot hand a device buffer to MPI, and the
 * backend contract gives no device address of any backend, so every operation is host-staged and
 * blocking: the rank's input is read back into pinned host memory (the root alone in a
 * broadcast), the MPI call runs between pinned buffers (MPI_IN_PLACE in place), and the result is
 * written to the device (the root alone in a reduce). Whether the MPI library is CUDA-aware
 * (Open MPI's MPIX_Query_cuda_support, where mpi-ext.h has it) is recorded beside the staging,
 * for a later device-aware path to use. The device mode's figures split the time: staging_time
 * (the read-back and write, us per operation) beside mpi_time (the rest: the MPI call).
 *
 * Host buffers (case field `host`, gpubench-mpi's --buffers host): no device buffer at all; the
 * MPI call runs on page-aligned host memory, which is set and verified in place, so the time is
 * the MPI call's alone: what OSU's osu_allreduce and the like measure with host buffers (params
 * buffers "host", staging "none"; no staging_time).
 *
 * Types: f32 (MPI_FLOAT), i32 (MPI_INT32_T), f16 and bf16 (16-bit words, MPI_UINT16_T; MPI has no
 * half type, so their sum and max are user-defined MPI_Ops that add or compare in double and round
 * once to the type, per pair of operands). Reductions: sum and max.
 *
 * Timing as gb_mpi_allreduce (mpi_allreduce.h): `warmup` operations, a barrier, `iters` operations
 * timed one by one on the host's monotonic clock, sample i = operation i's time averaged over the
 * ranks (nccl-tests' default "-a 1"), in GB/s of algbw. With host buffers, as OSU does, an untimed
 * barrier follows every operation (warm-up and timed), so each timed call starts with the ranks
 * in step; the mean of the samples' times is then OSU's "Avg Latency" (each rank's mean time per
 * operation, averaged over the ranks: the same sum in another order). Figures after nccl-tests'
 * doc/PERFORMANCE.md: time (us, the median of the averaged times), algbw = size / time (GB/s, the
 * headline), busbw = algbw x busbw_factor (GB/s), busbw_factor itself (all-reduce 2(n-1)/n;
 * all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast, reduce, send/recv 1), each rank's
 * median time (rank_time_min / _avg / _max, us) and, with at most GB_MAX_SET ranks, rank_algbw
 * and rank_verified (1 verified, 0 failed) per rank.
 *
 * Verification, after the timed operations (the timed ones may leave anything in place): every
 * buffer is set afresh, one more operation runs, and every rank checks its whole receive region
 * element by element against the host's exact expectation. Rank r's input element k is
 * v(r, k) = (7 (r + 1) + k) mod W, an integer below W, the type's exact range (f32 2^24, i32 2^30,
 * f16 2^11, bf16 2^8) divided by n for a sum, so that every partial sum is exact; the receive
 * buffer starts at -1, which no result is. Ranks and elements thus differ in their inputs (up to
 * W), and a chunk from the wrong rank, at the wrong offset or not written shows. A rank that
 * receives nothing (a reduce's non-root) must hold what it held before.
 *
 * Test hook: GPUBENCH_TEST_MPI_FAULT=KIND:RANK plants a fault on rank RANK in the verified
 * operation: `drop` (the last n-th of its received data is not written: left at -1), `wrong` (one
 * received element off by its lowest bit, as a wrong reduction gives) or `stale` (the result is
 * never written to the device, which keeps its old contents; with host buffers, the receive
 * region is put back as it was before the MPI call). The case fails with that rank named.
 */
#ifndef GB_MPI_COLL_H
#define GB_MPI_COLL_H

#include <stdbool.h>
#include <stdint.h>

#include <mpi.h>

#include "backends/backend.h"
#include "results/results.h"

/* One case: the collective, its type and reduction (ignored where it does not reduce), the size
 * asked for in bytes per rank (count = bytes / type size, rounded down to a multiple of n where
 * the collective divides it), in place or not, and the root of broadcast and reduce. */
struct gb_mpi_coll_case {
    enum gb_coll_op op;
    enum gb_dtype dtype;
    enum gb_coll_redop redop;
    uint64_t bytes;
    bool inplace;
    int root;
    bool host; /* host buffers: the MPI call alone on host memory (false: device, host-staged) */
};

struct gb_mpi_coll_opts {
    uint32_t warmup; /* untimed operations before the timed ones */
    uint32_t iters;  /* timed operations (samples), >= 1 */
};

/* The name of op ("allreduce", ..., "sendrecv"), of redop ("sum", "max"). */
const char *gb_mpi_coll_name(enum gb_coll_op op);
const char *gb_mpi_coll_redop_name(enum gb_coll_redop op);
/* The op or redop called name; -1 when none is. */
int gb_mpi_coll_from_name(const char *name);
int gb_mpi_coll_redop_from_name(const char *name);
/* Whether op reduces (all-reduce, reduce-scatter, reduce). */
bool gb_mpi_coll_reduces(enum gb_coll_op op);

/* Runs case c on this rank's device `dev` (queue q) across comm; with host buffers (c->host) ops,
 * dev and q may be NULL (backend "host"). Collective: every rank of comm
 * must call it with the same case and options. On rank 0, *r is filled as a result of suite
 * "mpi_collective" (case "OP-DTYPE[-REDOP][-inplace]"; params coll, dtype, op, inplace, ranks,
 * size (count x type size, bytes), count, root (broadcast and reduce), transport ("mpi"),
 * buffers ("device" or "host"), staging ("host", or "none" with host buffers), cuda_aware; samples in GB/s, owned by *r;
 * status ok, failed with the ranks that failed, or skipped with the reason: a size below one
 * element per rank, a type or rank count without exact verification, no memory); other ranks
 * leave *r zeroed. Returns 0 when the case ran to its verdict on every rank, or an MPI / memory
 * error that leaves the ranks out of step (the caller aborts). */
int gb_mpi_collective(const struct gb_backend_ops *ops, struct gb_device *dev, struct gb_queue *q,
                      MPI_Comm comm, const struct gb_mpi_coll_case *c,
                      const struct gb_mpi_coll_opts *o, struct gb_result *r);

#endif
