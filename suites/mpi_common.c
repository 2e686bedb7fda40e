/* gpubench — the verdict, gather and figures the two gpubench-mpi paths share (contract in
 * mpi_common.h). */
#include "suites/mpi_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/stats.h"

int gb_mpi_agree(MPI_Comm comm, int rank, int st, char *why, size_t whysz, int *worst, int *who,
                 int *sts)
{
    struct {
        int st, rank;
    } mine = {st, rank}, all;
    /* MAXLOC keeps the lowest rank among equal statuses (MPI 4.0 §6.9.4). */
    if (MPI_Allreduce(&mine, &all, 1, MPI_2INT, MPI_MAXLOC, comm) != MPI_SUCCESS)
        return GB_FAIL(GB_EBACKEND,
                       sts ? "MPI_Allreduce / MPI_Gather (verdict)" : "MPI_Allreduce (verdict)");
    if (sts && MPI_Gather(&st, 1, MPI_INT, sts, 1, MPI_INT, 0, comm) != MPI_SUCCESS)
        return GB_FAIL(GB_EBACKEND, "MPI_Allreduce / MPI_Gather (verdict)");
    *worst = all.st;
    *who = all.rank;
    if (all.st != 0 && MPI_Bcast(why, (int)whysz, MPI_CHAR, all.rank, comm) != MPI_SUCCESS)
        return GB_FAIL(GB_EBACKEND, "MPI_Bcast (reason)");
    return 0;
}

int gb_mpi_gather_times(MPI_Comm comm, const double *t, double *sum, double *medians,
                        uint32_t iters)
{
    double mine[1];
    memcpy(sum, t, iters * sizeof *t);
    gb_sort_doubles(sum, iters);
    mine[0] = gb_percentile_sorted(sum, iters, 0.5);
    if (MPI_Reduce(t, sum, (int)iters, MPI_DOUBLE, MPI_SUM, 0, comm) != MPI_SUCCESS ||
        MPI_Gather(mine, 1, MPI_DOUBLE, medians, 1, MPI_DOUBLE, 0, comm) != MPI_SUCCESS)
        return GB_FAIL(GB_EBACKEND, "MPI_Reduce / MPI_Gather of the times");
    return 0;
}

int gb_mpi_samples(struct gb_result *r, const double *sum, uint32_t iters, int n, double bytes)
{
    r->samples = malloc(iters * sizeof *r->samples);
    double *us = malloc(iters * sizeof *us);
    if (!r->samples || !us) {
        free(us);
        return GB_FAIL(GB_ENOMEM, "%u samples", iters);
    }
    r->nsamples = iters;
    for (uint32_t i = 0; i < iters; i++) {
        const double avg = sum[i] / n;
        r->samples[i] = bytes / avg / 1e9;
        us[i] = 1e6 * avg;
    }
    gb_stats_compute(r->samples, r->nsamples, &r->stats);
    gb_stats_compute(us, iters, &r->op_time_us);
    free(us);
    r->value = r->stats.median;
    return 0;
}

struct gb_figure *gb_mpi_figure(struct gb_result *r, const char *name, const char *unit)
{
    if (r->nfigures >= GB_MAX_FIGURES)
        return NULL;
    struct gb_figure *f = &r->figures[r->nfigures++];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    snprintf(f->unit, sizeof f->unit, "%s", unit);
    return f;
}

void gb_mpi_rank_figures(struct gb_result *r, const double *medians, int n, double bytes)
{
    double lo = INFINITY, hi = 0, avg = 0;
    for (int k = 0; k < n; k++) {
        lo = medians[k] < lo ? medians[k] : lo;
        hi = medians[k] > hi ? medians[k] : hi;
        avg += medians[k] / n;
    }
    gb_result_figure(r, "rank_time_min", "us", 1e6 * lo);
    gb_result_figure(r, "rank_time_avg", "us", 1e6 * avg);
    gb_result_figure(r, "rank_time_max", "us", 1e6 * hi);
    struct gb_figure *f;
    if (n <= GB_MAX_SET && (f = gb_mpi_figure(r, "rank_algbw", "GB/s"))) {
        f->per_device = true;
        f->n = (size_t)n;
        for (int k = 0; k < n; k++)
            f->v[k] = bytes / medians[k] / 1e9;
    }
}
