/* gpubench — what the two paths of gpubench-mpi (mpi_allreduce.c, mpi_coll.c) share: the verdict
 * of all ranks, the gather of the timed operations, and rank 0's samples and per-rank figures
 * (implemented in mpi_common.c; built only with meson -Dmpi, into gpubench-mpi).
 *
 * A rank's status is 0 when it is ok, and larger the worse it is (the paths' ST_OK < ST_SKIP <
 * ST_FAIL); its reason is a string of the path's own buffer.
 */
#ifndef GB_MPI_COMMON_H
#define GB_MPI_COMMON_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "results/results.h"

/* The verdict of all ranks of comm: *worst = the worst status st, *who = the lowest rank that has
 * it (MPI_MAXLOC), and that rank's reason broadcast into why[whysz] on every rank when *worst is
 * not 0. sts: NULL, or on rank 0 every rank's status in rank order (n ints; MPI_Gather). Returns 0
 * or GB_EBACKEND when an MPI call fails. */
int gb_mpi_agree(MPI_Comm comm, int rank, int st, char *why, size_t whysz, int *worst, int *who,
                 int *sts);

/* The timed operations' gather: sum[i] = operation i's time t[i] (s) summed over the ranks (on rank
 * 0) and medians[k] = rank k's median time (s, on rank 0; n doubles). t and sum: iters doubles each;
 * sum is scratch on the other ranks. Returns 0 or GB_EBACKEND when an MPI call fails. */
int gb_mpi_gather_times(MPI_Comm comm, const double *t, double *sum, double *medians,
                        uint32_t iters);

/* Rank 0's samples of an ok case of n ranks: sample i = bytes / (sum[i] / n) / 1e9 (GB/s, the
 * rank-averaged time of operation i), their stats, the per-operation time stats (us) into
 * r->op_time_us, and r->value = the samples' median. Returns 0 or GB_ENOMEM. */
int gb_mpi_samples(struct gb_result *r, const double *sum, uint32_t iters, int n, double bytes);

/* A new figure of r called name in unit, zeroed but for its name and unit; NULL when r holds
 * GB_MAX_FIGURES already. */
struct gb_figure *gb_mpi_figure(struct gb_result *r, const char *name, const char *unit);

/* Rank 0's per-rank figures from medians[0..n) (each rank's median time, s): rank_time_min / _avg /
 * _max (us) and, with at most GB_MAX_SET ranks, rank_algbw (GB/s = bytes / median / 1e9, per
 * device in rank order). */
void gb_mpi_rank_figures(struct gb_result *r, const double *medians, int n, double bytes);

#endif
