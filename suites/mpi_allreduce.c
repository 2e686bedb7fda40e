/* gpubench — the host-staged all-reduce across MPI ranks (contract, timing and figures in
 * mpi_allreduce.h). */
#include "suites/mpi_allreduce.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/stats.h"
#include "base/units.h"
#include "suites/mpi_common.h"

enum { ST_OK = 0, ST_SKIP = 1, ST_FAIL = 2 };

struct ar {
    const struct gb_backend_ops *ops;
    struct gb_queue *q;
    MPI_Comm comm;
    uint64_t bytes, count;
    struct gb_buf *in, *out, *hin, *hout; /* device, device, pinned, pinned */
    int st;                               /* this rank's ST_* */
    char why[960];                        /* this rank's reason */
};

/* Records this rank's first failure (a later one keeps the first reason). */
static void local_fail(struct ar *a, int st, const char *what)
{
    if (a->st >= st)
        return;
    a->st = st;
    snprintf(a->why, sizeof a->why, "%s: %s", what, gb_error_msg());
}

/* One operation: in -> hin, MPI_Allreduce(hin -> hout), hout -> out. A rank whose copy failed
 * still takes part in the collective, so that no rank waits for it forever. */
static int one_op(struct ar *a)
{
    if (a->st == ST_OK && a->ops->copy(a->q, a->hin, 0, a->in, 0, a->bytes, GB_COPY_BLOCKING))
        local_fail(a, ST_FAIL, "read-back of in");
    int m = MPI_Allreduce(a->hin->host, a->hout->host, (int)a->count, MPI_FLOAT, MPI_SUM, a->comm);
    if (m != MPI_SUCCESS)
        return GB_FAIL(GB_EBACKEND, "MPI_Allreduce: error %d", m);
    if (a->st == ST_OK && a->ops->copy(a->q, a->out, 0, a->hout, 0, a->bytes, GB_COPY_BLOCKING))
        local_fail(a, ST_FAIL, "write of out");
    return 0;
}

/* Rank 0's result: identity and params. */
static void describe(struct gb_result *r, const char *backend, int n, uint64_t bytes)
{
    snprintf(r->suite, sizeof r->suite, "mpi_allreduce");
    snprintf(r->case_name, sizeof r->case_name, "sum");
    snprintf(r->backend, sizeof r->backend, "%s", backend);
    r->device_index = 0;
    /* Rank k's device is the k-th device of the results file (the command adds them so). */
    r->nset = n <= GB_MAX_SET ? (size_t)n : 0;
    for (size_t k = 0; k < r->nset; k++)
        r->set[k] = (int)k;
    struct gb_params *p = &r->params;
    p->n = 4;
    p->name[0] = "op";
    p->v[0].type = GB_V_STR;
    snprintf(p->v[0].s, sizeof p->v[0].s, "sum");
    p->name[1] = "ranks";
    p->v[1].type = GB_V_INT;
    p->v[1].u.i = n;
    p->name[2] = "size";
    p->v[2].type = GB_V_SIZE;
    p->v[2].u.size = bytes;
    p->name[3] = "staging";
    p->v[3].type = GB_V_STR;
    snprintf(p->v[3].s, sizeof p->v[3].s, "host");
    snprintf(r->metric, sizeof r->metric, "bandwidth");
    snprintf(r->unit, sizeof r->unit, "GB/s");
    r->better = GB_BETTER_HIGHER;
    r->value = NAN;
    r->batch = 1;
    r->bytes_per_op = (double)bytes;
}

int gb_mpi_allreduce(const struct gb_backend_ops *ops, struct gb_device *dev, struct gb_queue *q,
                     MPI_Comm comm, uint64_t bytes, const struct gb_mpi_ar_opts *o,
                     struct gb_result *r)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    memset(r, 0, sizeof *r);
    const double t_case = gb_now();
    struct ar a = {.ops = ops, .q = q, .comm = comm, .bytes = bytes, .count = bytes / 4};
    double *t = NULL, *sum = NULL, *medians = NULL;
    int rc = 0, worst = ST_OK, who = 0;
    if (bytes == 0 || bytes % 4 || a.count > INT32_MAX || o->iters == 0)
        return GB_FAIL(GB_EINVAL, "all-reduce of %llu bytes, %u iterations",
                       (unsigned long long)bytes, o->iters);

    /* Setup: buffers, and this rank's input r + 1 + (j mod 5). */
    int err;
    if ((err = ops->buf_alloc(dev, bytes, GB_MEM_DEVICE, &a.in)) ||
        (err = ops->buf_alloc(dev, bytes, GB_MEM_DEVICE, &a.out)) ||
        (err = ops->buf_alloc(dev, bytes, GB_MEM_HOST_PINNED, &a.hin)) ||
        (err = ops->buf_alloc(dev, bytes, GB_MEM_HOST_PINNED, &a.hout)))
        local_fail(&a, err == GB_ETOOBIG ? ST_SKIP : ST_FAIL, "allocation");
    if (a.st == ST_OK) {
        float *h = a.hin->host;
        for (uint64_t j = 0; j < a.count; j++)
            h[j] = (float)(rank + 1 + (int)(j % 5));
        if (ops->copy(q, a.in, 0, a.hin, 0, bytes, GB_COPY_BLOCKING))
            local_fail(&a, ST_FAIL, "upload of in");
    }
    if ((rc = gb_mpi_agree(comm, rank, a.st, a.why, sizeof a.why, &worst, &who, NULL)) ||
        worst != ST_OK)
        goto verdict;

    /* Warm-up, a barrier, then the timed operations one by one. */
    t = malloc(o->iters * sizeof *t);
    sum = malloc(o->iters * sizeof *sum);
    medians = malloc((size_t)n * sizeof *medians);
    if (!t || !sum || !medians) {
        rc = GB_FAIL(GB_ENOMEM, "%u samples", o->iters);
        goto out;
    }
    for (uint32_t i = 0; i < o->warmup && !rc; i++)
        rc = one_op(&a);
    if (!rc && MPI_Barrier(comm) != MPI_SUCCESS)
        rc = GB_FAIL(GB_EBACKEND, "MPI_Barrier");
    for (uint32_t i = 0; i < o->iters && !rc; i++) {
        double t0 = gb_now();
        rc = one_op(&a);
        t[i] = gb_now() - t0;
    }
    if (rc)
        goto out;

    /* Verify this rank's out. */
    if (a.st == ST_OK) {
        memset(a.hout->host, 0, bytes);
        if (ops->copy(q, a.hout, 0, a.out, 0, bytes, GB_COPY_BLOCKING)) {
            local_fail(&a, ST_FAIL, "read-back of out");
        } else {
            const float *h = a.hout->host;
            const double nn = n;
            for (uint64_t j = 0; j < a.count; j++) {
                const double gold = nn * (nn + 1) / 2 + nn * (double)(j % 5);
                if ((double)h[j] != gold) {
                    a.st = ST_FAIL;
                    snprintf(a.why, sizeof a.why, "out[%llu] = %.9g, expected %.9g (exact)",
                             (unsigned long long)j, h[j], gold);
                    break;
                }
            }
        }
    }
    if ((rc = gb_mpi_agree(comm, rank, a.st, a.why, sizeof a.why, &worst, &who, NULL)))
        goto out;

    /* Gather: the per-operation times summed over the ranks, and each rank's median. */
    if ((rc = gb_mpi_gather_times(comm, t, sum, medians, o->iters)))
        goto out;

verdict:
    if (rank == 0) {
        describe(r, ops->name, n, bytes);
        r->elapsed_s = gb_now() - t_case;
        if (worst != ST_OK) {
            r->status = worst == ST_SKIP ? GB_STATUS_SKIPPED : GB_STATUS_FAILED;
            snprintf(r->reason, sizeof r->reason, "rank %d: %s", who, a.why);
        } else {
            r->status = GB_STATUS_OK;
            r->verified = true;
            if ((rc = gb_mpi_samples(r, sum, o->iters, n, (double)bytes)))
                goto out;
            gb_result_figure(r, "algbw", "GB/s", r->value);
            gb_result_figure(r, "busbw", "GB/s", r->value * 2.0 * (n - 1) / n);
            gb_mpi_rank_figures(r, medians, n, (double)bytes);
            struct gb_figure *f;
            if ((f = gb_mpi_figure(r, "path", "")))
                snprintf(f->text, sizeof f->text, "host-staged MPI_Allreduce");
        }
    }
out:
    if (a.in)
        ops->buf_free(a.in);
    if (a.out)
        ops->buf_free(a.out);
    if (a.hin)
        ops->buf_free(a.hin);
    if (a.hout)
        ops->buf_free(a.hout);
    free(t);
    free(sum);
    free(medians);
    return rc;
}
