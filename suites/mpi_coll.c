/* gpubench — every collective across MPI ranks, host-staged (contract, shapes, timing, figures
 * and verification in mpi_coll.h). */
#include "suites/mpi_coll.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

#include "backends/precision.h"
#include "base/error.h"
#include "base/stats.h"
#include "base/units.h"
#include "suites/mpi_common.h"
#include "suites/multi_common.h" /* gb_coll_busbw_factor: the collective suite's factor */

enum { ST_OK = 0, ST_SKIP = 1, ST_FAIL = 2 };
enum fault { F_NONE, F_DROP, F_WRONG, F_STALE };

static const char *const coll_names[] = {"allreduce", "allgather", "reducescatter", "broadcast",
                                         "reduce",    "alltoall",  "sendrecv"};
static const char *const redop_names[] = {"sum", "max"};

const char *gb_mpi_coll_name(enum gb_coll_op op)
{
    return (unsigned)op < sizeof coll_names / sizeof *coll_names ? coll_names[op] : "?";
}

const char *gb_mpi_coll_redop_name(enum gb_coll_redop op)
{
    return (unsigned)op < 2 ? redop_names[op] : "?";
}

int gb_mpi_coll_from_name(const char *name)
{
    for (size_t k = 0; k < sizeof coll_names / sizeof *coll_names; k++)
        if (strcmp(name, coll_names[k]) == 0)
            return (int)k;
    return -1;
}

int gb_mpi_coll_redop_from_name(const char *name)
{
    for (int k = 0; k < 2; k++)
        if (strcmp(name, redop_names[k]) == 0)
            return k;
    return -1;
}

bool gb_mpi_coll_reduces(enum gb_coll_op op)
{
    return op == GB_COLL_ALLREDUCE || op == GB_COLL_REDUCESCATTER || op == GB_COLL_REDUCE;
}

/* ---- element values ---------------------------------------------------------------------- */

/* The exact integer range of the type: every integer below it is representable. */
static double exact_range(enum gb_dtype t)
{
    switch (t) {
    case GB_F32:
        return 16777216.0; /* 2^24: 24 significand bits */
    case GB_I32:
        return 1073741824.0; /* 2^30 (a sum of n terms below 2^30 / n stays below 2^31) */
    case GB_F16:
        return 2048.0; /* 2^11 */
    default:
        return 256.0; /* bf16: 2^8 */
    }
}

static void put(enum gb_dtype t, void *p, uint64_t k, double v)
{
    switch (t) {
    case GB_F32:
        ((float *)p)[k] = (float)v;
        break;
    case GB_I32:
        ((int32_t *)p)[k] = (int32_t)v;
        break;
    case GB_F16:
        ((uint16_t *)p)[k] = gb_f16_from_double(v);
        break;
    default:
        ((uint16_t *)p)[k] = gb_bf16_from_double(v);
        break;
    }
}

static double get(enum gb_dtype t, const void *p, uint64_t k)
{
    switch (t) {
    case GB_F32:
        return ((const float *)p)[k];
    case GB_I32:
        return ((const int32_t *)p)[k];
    case GB_F16:
        return gb_f16_to_double(((const uint16_t *)p)[k]);
    default:
        return gb_bf16_to_double(((const uint16_t *)p)[k]);
    }
}

/* The 16-bit reductions (MPI has no half type): b[i] = a[i] op b[i], computed in double (exact
 * for two 16-bit operands) and rounded once to the type. */
static void h16_op(const void *in, void *inout, int len, enum gb_dtype t, bool max)
{
    for (int i = 0; i < len; i++) {
        const double a = get(t, in, (uint64_t)i), b = get(t, inout, (uint64_t)i);
        put(t, inout, (uint64_t)i, max ? (a > b ? a : b) : a + b);
    }
}
static void f16_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    h16_op(in, inout, *len, GB_F16, false);
}
static void f16_max(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    h16_op(in, inout, *len, GB_F16, true);
}
static void bf16_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    h16_op(in, inout, *len, GB_BF16, false);
}
static void bf16_max(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    h16_op(in, inout, *len, GB_BF16, true);
}

/* ---- one case ---------------------------------------------------------------------------- */

struct coll {
    const struct gb_backend_ops *ops;
    struct gb_queue *q;
    MPI_Comm comm;
    struct gb_mpi_coll_case c;
    int rank, n;
    size_t ts;                    /* type size, bytes */
    uint64_t count, chunk;        /* nccl-tests' count; count / n */
    uint64_t nsend, nrecv;        /* elements of the send and receive buffers */
    uint64_t roff, rlen;          /* the receive region in the device receive buffer, elements */
    struct gb_buf *dsend, *drecv; /* device; in place: one buffer, dsend == drecv */
    struct gb_buf *hsend, *hrecv; /* pinned; in place: one buffer */
    void *hs, *hr;                /* what the MPI call reads and writes: the pinned buffers, or
                                     with host buffers page-aligned host memory (no device) */
    bool host;                    /* host buffers: no device buffers, no staging */
    double staged;                /* this operation's staging time (read-back + write), s */
    MPI_Datatype mt;
    MPI_Op mop;
    bool own_op;
    double range; /* inputs are below it */
    enum fault fault;
    int fault_rank;
    int st;
    char why[960];
};

static void local_fail(struct coll *a, int st, const char *what)
{
    if (a->st >= st)
        return;
    a->st = st;
    snprintf(a->why, sizeof a->why, "%s: %s", what, gb_error_msg());
}

/* Rank r's input element k. */
static double val(const struct coll *a, int r, uint64_t k)
{
    return fmod(7.0 * (r + 1) + (double)k, a->range);
}

/* The reduction over the ranks of element j. */
static double reduced(const struct coll *a, uint64_t j)
{
    double acc = val(a, 0, j);
    for (int s = 1; s < a->n; s++) {
        const double v = val(a, s, j);
        acc = a->c.redop == GB_COLL_MAX ? (v > acc ? v : acc) : acc + v;
    }
    return acc;
}

/* What this rank's receive region holds at element k after the verified operation. */
static double expected(const struct coll *a, uint64_t k)
{
    const int r = a->rank, n = a->n;
    const uint64_t c = a->chunk;
    switch (a->c.op) {
    case GB_COLL_ALLREDUCE:
        return reduced(a, k);
    case GB_COLL_ALLGATHER:
        return val(a, (int)(k / c), k % c);
    case GB_COLL_REDUCESCATTER:
        return reduced(a, (uint64_t)r * c + k);
    case GB_COLL_BROADCAST:
        return val(a, a->c.root, k);
    case GB_COLL_REDUCE:
        if (r == a->c.root)
            return reduced(a, k);
        return a->c.inplace ? val(a, r, k) : -1; /* received nothing: unchanged */
    case GB_COLL_ALLTOALL:
        return val(a, (int)(k / c), (uint64_t)r * c + k % c);
    default: /* send/recv: from the rank before */
        return val(a, (r + n - 1) % n, k);
    }
}

/* Sets the device buffers for the verified operation: the inputs, and -1 wherever a result goes
 * that is not an input. */
static void init_buffers(struct coll *a)
{
    void *h = a->hs;
    if (a->c.inplace) {
        for (uint64_t k = 0; k < a->count; k++)
            put(a->c.dtype, h, k, a->c.op == GB_COLL_ALLGATHER ? -1 : val(a, a->rank, k));
        if (a->c.op == GB_COLL_ALLGATHER)
            for (uint64_t k = 0; k < a->chunk; k++)
                put(a->c.dtype, h, (uint64_t)a->rank * a->chunk + k, val(a, a->rank, k));
        if (!a->host &&
            a->ops->copy(a->q, a->dsend, 0, a->hsend, 0, a->count * a->ts, GB_COPY_BLOCKING))
            local_fail(a, ST_FAIL, "upload of the buffer");
        return;
    }
    for (uint64_t k = 0; k < a->nsend; k++)
        put(a->c.dtype, h, k, val(a, a->rank, k));
    for (uint64_t k = 0; k < a->nrecv; k++)
        put(a->c.dtype, a->hr, k, -1);
    if (!a->host &&
        (a->ops->copy(a->q, a->dsend, 0, a->hsend, 0, a->nsend * a->ts, GB_COPY_BLOCKING) ||
         a->ops->copy(a->q, a->drecv, 0, a->hrecv, 0, a->nrecv * a->ts, GB_COPY_BLOCKING)))
        local_fail(a, ST_FAIL, "upload of the buffers");
}

/* The MPI call between the pinned buffers. */
static int mpi_call(struct coll *a)
{
    const int c = (int)a->chunk, cnt = (int)a->count, r = a->rank, n = a->n, root = a->c.root;
    void *s = a->hs, *d = a->hr;
    const bool ip = a->c.inplace;
    switch (a->c.op) {
    case GB_COLL_ALLREDUCE:
        return MPI_Allreduce(ip ? MPI_IN_PLACE : s, d, cnt, a->mt, a->mop, a->comm);
    case GB_COLL_ALLGATHER:
        return ip ? MPI_Allgather(MPI_IN_PLACE, 0, a->mt, d, c, a->mt, a->comm)
                  : MPI_Allgather(s, c, a->mt, d, c, a->mt, a->comm);
    case GB_COLL_REDUCESCATTER:
        /* In place, MPI leaves rank r's chunk at the start of the buffer. */
        return MPI_Reduce_scatter_block(ip ? MPI_IN_PLACE : s, d, c, a->mt, a->mop, a->comm);
    case GB_COLL_BROADCAST:
        if (!ip && r == root)
            memcpy(d, s, a->count * a->ts);
        return MPI_Bcast(d, cnt, a->mt, root, a->comm);
    case GB_COLL_REDUCE:
        /* The receive buffer counts only at the root. */
        return MPI_Reduce(ip && r == root ? MPI_IN_PLACE : s, r == root ? d : NULL, cnt, a->mt,
                          a->mop, root, a->comm);
    case GB_COLL_ALLTOALL:
        return ip ? MPI_Alltoall(MPI_IN_PLACE, 0, a->mt, d, c, a->mt, a->comm)
                  : MPI_Alltoall(s, c, a->mt, d, c, a->mt, a->comm);
    default:
        if (ip)
            return MPI_Sendrecv_replace(d, cnt, a->mt, (r + 1) % n, 0, (r + n - 1) % n, 0, a->comm,
                                        MPI_STATUS_IGNORE);
        return MPI_Sendrecv(s, cnt, a->mt, (r + 1) % n, 0, d, cnt, a->mt, (r + n - 1) % n, 0,
                            a->comm, MPI_STATUS_IGNORE);
    }
}

/* One blocking operation: read the input back, the MPI call, write the result (with host buffers
 * the MPI call alone; a->staged is the read-back and write's time, s). A rank whose copy failed
 * still takes part in the collective, so that no rank waits for it forever. `verified`: the
 * operation whose result is checked, where the test hook's fault (if any) is planted. */
static int one_op(struct coll *a, bool verified)
{
    const int r = a->rank;
    const bool in_place = a->c.inplace;
    const enum gb_coll_op op = a->c.op;
    /* The result in host memory: rlen elements (a reduce-scatter in place: at the start). */
    const uint64_t hoff = in_place && op == GB_COLL_REDUCESCATTER ? 0 : a->roff;
    const bool writes = !(op == GB_COLL_REDUCE && r != a->c.root);
    const bool planted = verified && r == a->fault_rank && writes;
    a->staged = 0;
    /* Read back what the MPI call reads: a broadcast's root alone; all-gather in place: chunk r. */
    if (!a->host && a->st == ST_OK && !(op == GB_COLL_BROADCAST && r != a->c.root)) {
        uint64_t off = 0, len = a->nsend;
        if (in_place && op == GB_COLL_ALLGATHER)
            off = (uint64_t)r * a->chunk, len = a->chunk;
        else if (in_place)
            len = a->count;
        const double t0 = gb_now();
        if (a->ops->copy(a->q, a->hsend, off * a->ts, a->dsend, off * a->ts, len * a->ts,
                         GB_COPY_BLOCKING))
            local_fail(a, ST_FAIL, "read-back of the input");
        a->staged += gb_now() - t0;
    }
    /* Host buffers, stale: the receive region keeps what it held before the call. */
    void *keep = NULL;
    if (a->host && planted && a->fault == F_STALE && (keep = malloc(a->rlen * a->ts)) != NULL)
        memcpy(keep, (char *)a->hr + hoff * a->ts, a->rlen * a->ts);
    int m = mpi_call(a);
    if (keep) {
        memcpy((char *)a->hr + hoff * a->ts, keep, a->rlen * a->ts);
        free(keep);
    }
    if (m != MPI_SUCCESS)
        return GB_FAIL(GB_EBACKEND, "%s: MPI error %d", gb_mpi_coll_name(op), m);
    if (planted && a->fault == F_DROP) {
        const uint64_t drop = a->rlen / (uint64_t)a->n ? a->rlen / (uint64_t)a->n : 1;
        for (uint64_t k = a->rlen - drop; k < a->rlen; k++)
            put(a->c.dtype, a->hr, hoff + k, -1);
    } else if (planted && a->fault == F_WRONG) {
        ((unsigned char *)a->hr)[(hoff + a->rlen / 2) * a->ts] ^= 1; /* lowest bit */
    }
    if (!a->host && a->st == ST_OK && writes && !(planted && a->fault == F_STALE)) {
        const double t0 = gb_now();
        if (a->ops->copy(a->q, a->drecv, a->roff * a->ts, a->hrecv, hoff * a->ts, a->rlen * a->ts,
                         GB_COPY_BLOCKING))
            local_fail(a, ST_FAIL, "write of the result");
        a->staged += gb_now() - t0;
    }
    return 0;
}

/* Reads this rank's receive region back (with host buffers: where the MPI call left it, at the
 * start of the receive buffer) and checks every element. */
static void verify(struct coll *a)
{
    if (a->st != ST_OK)
        return;
    uint64_t base = 0; /* the region's offset in the buffer named in a reason, elements */
    if (!a->host) {
        memset(a->hr, 0, a->rlen * a->ts);
        if (a->ops->copy(a->q, a->hrecv, 0, a->drecv, a->roff * a->ts, a->rlen * a->ts,
                         GB_COPY_BLOCKING)) {
            local_fail(a, ST_FAIL, "read-back of the result");
            return;
        }
        base = a->roff;
    }
    for (uint64_t k = 0; k < a->rlen; k++) {
        const double got = get(a->c.dtype, a->hr, k), want = expected(a, k);
        if (got != want) {
            a->st = ST_FAIL;
            snprintf(a->why, sizeof a->why,
                     "recv[%llu] = %.9g, expected %.9g (exact; %llu elements received)",
                     (unsigned long long)(base + k), got, want, (unsigned long long)a->rlen);
            return;
        }
    }
}

/* Whether the MPI library takes CUDA device pointers: "yes", "no", or "unknown" (no
 * MPIX_Query_cuda_support in this MPI). */
static const char *cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    return MPIX_Query_cuda_support() ? "yes" : "no";
#else
    return "unknown";
#endif
}

static void str_param(struct gb_params *p, const char *name, const char *v)
{
    p->name[p->n] = name;
    p->v[p->n].type = GB_V_STR;
    snprintf(p->v[p->n].s, sizeof p->v[p->n].s, "%s", v);
    p->n++;
}

static void int_param(struct gb_params *p, const char *name, int type, int64_t v)
{
    p->name[p->n] = name;
    p->v[p->n].type = type;
    if (type == GB_V_SIZE)
        p->v[p->n].u.size = (uint64_t)v;
    else if (type == GB_V_BOOL)
        p->v[p->n].u.b = v != 0;
    else
        p->v[p->n].u.i = v;
    p->n++;
}

/* Rank 0's result: identity and params. */
static void describe(struct gb_result *r, const char *backend, const struct coll *a)
{
    const struct gb_mpi_coll_case *c = &a->c;
    const bool red = gb_mpi_coll_reduces(c->op);
    snprintf(r->suite, sizeof r->suite, "mpi_collective");
    snprintf(r->case_name, sizeof r->case_name, "%s-%s%s%s%s", gb_mpi_coll_name(c->op),
             gb_dtype_name(c->dtype), red ? "-" : "", red ? gb_mpi_coll_redop_name(c->redop) : "",
             c->inplace ? "-inplace" : "");
    snprintf(r->backend, sizeof r->backend, "%s", backend);
    r->device_index = 0;
    r->nset = a->n <= GB_MAX_SET ? (size_t)a->n : 0;
    for (size_t k = 0; k < r->nset; k++)
        r->set[k] = (int)k;
    struct gb_params *p = &r->params;
    p->n = 0;
    str_param(p, "coll", gb_mpi_coll_name(c->op));
    str_param(p, "dtype", gb_dtype_name(c->dtype));
    str_param(p, "op", red ? gb_mpi_coll_redop_name(c->redop) : "none");
    int_param(p, "inplace", GB_V_BOOL, c->inplace);
    int_param(p, "ranks", GB_V_INT, a->n);
    int_param(p, "size", GB_V_SIZE, (int64_t)(a->count * a->ts));
    int_param(p, "count", GB_V_INT, (int64_t)a->count);
    if (c->op == GB_COLL_BROADCAST || c->op == GB_COLL_REDUCE)
        int_param(p, "root", GB_V_INT, c->root);
    str_param(p, "transport", "mpi");
    str_param(p, "buffers", c->host ? "host" : "device");
    str_param(p, "staging", c->host ? "none" : "host");
    str_param(p, "cuda_aware", cuda_aware());
    snprintf(r->metric, sizeof r->metric, "bandwidth");
    snprintf(r->unit, sizeof r->unit, "GB/s");
    r->better = GB_BETTER_HIGHER;
    r->value = NAN;
    r->batch = 1;
    r->bytes_per_op = (double)(a->count * a->ts);
}

/* Reads GPUBENCH_TEST_MPI_FAULT (KIND:RANK) into a. */
static void read_fault(struct coll *a)
{
    const char *e = getenv("GPUBENCH_TEST_MPI_FAULT");
    a->fault = F_NONE;
    a->fault_rank = -1;
    if (!e || !*e)
        return;
    const char *colon = strchr(e, ':');
    const size_t len = colon ? (size_t)(colon - e) : strlen(e);
    a->fault_rank = colon ? atoi(colon + 1) : 1;
    if (len == 4 && strncmp(e, "drop", 4) == 0)
        a->fault = F_DROP;
    else if (len == 5 && strncmp(e, "wrong", 5) == 0)
        a->fault = F_WRONG;
    else if (len == 5 && strncmp(e, "stale", 5) == 0)
        a->fault = F_STALE;
}

static int setup(struct coll *a, struct gb_device *dev)
{
    const struct gb_mpi_coll_case *c = &a->c;
    const uint64_t n = (uint64_t)a->n;
    a->ts = gb_dtype_size(c->dtype);
    a->count = c->bytes / a->ts;
    const bool divides =
        c->op == GB_COLL_ALLGATHER || c->op == GB_COLL_REDUCESCATTER || c->op == GB_COLL_ALLTOALL;
    if (divides)
        a->count -= a->count % n;
    a->chunk = a->count / n;
    a->nsend = c->op == GB_COLL_ALLGATHER && !c->inplace ? a->chunk : a->count;
    a->nrecv = c->op == GB_COLL_REDUCESCATTER && !c->inplace ? a->chunk : a->count;
    a->rlen = c->op == GB_COLL_REDUCESCATTER ? a->chunk : a->count;
    a->roff = c->op == GB_COLL_REDUCESCATTER && c->inplace ? (uint64_t)a->rank * a->chunk : 0;
    a->range = exact_range(c->dtype);
    if (gb_mpi_coll_reduces(c->op) && c->redop == GB_COLL_SUM)
        a->range = floor(a->range / a->n);
    read_fault(a);
    if (a->count == 0 || (divides && a->chunk == 0)) {
        a->st = ST_SKIP;
        snprintf(a->why, sizeof a->why, "%llu bytes hold less than one %s per rank",
                 (unsigned long long)c->bytes, gb_dtype_name(c->dtype));
        return 0;
    }
    if (a->count > INT32_MAX) {
        a->st = ST_SKIP;
        snprintf(a->why, sizeof a->why, "%llu elements: MPI counts are int",
                 (unsigned long long)a->count);
        return 0;
    }
    if (a->range < 8) {
        a->st = ST_SKIP;
        snprintf(a->why, sizeof a->why,
                 "a %s sum over %d ranks has no exact verification (integers only to %g)",
                 gb_dtype_name(c->dtype), a->n, exact_range(c->dtype));
        return 0;
    }
    if (c->root < 0 || c->root >= a->n) {
        a->st = ST_SKIP;
        snprintf(a->why, sizeof a->why, "root %d: there are %d ranks", c->root, a->n);
        return 0;
    }
    switch (c->dtype) {
    case GB_F32:
        a->mt = MPI_FLOAT;
        break;
    case GB_I32:
        a->mt = MPI_INT32_T;
        break;
    case GB_F16:
    case GB_BF16:
        a->mt = MPI_UINT16_T;
        break;
    default:
        a->st = ST_SKIP;
        snprintf(a->why, sizeof a->why, "type %s: f32, i32, f16 or bf16 only",
                 gb_dtype_name(c->dtype));
        return 0;
    }
    a->mop = c->redop == GB_COLL_MAX ? MPI_MAX : MPI_SUM;
    if (a->mt == MPI_UINT16_T) {
        MPI_User_function *fn = c->dtype == GB_F16
                                    ? (c->redop == GB_COLL_MAX ? f16_max : f16_sum)
                                    : (c->redop == GB_COLL_MAX ? bf16_max : bf16_sum);
        if (MPI_Op_create(fn, 1, &a->mop) != MPI_SUCCESS)
            return GB_FAIL(GB_EBACKEND, "MPI_Op_create");
        a->own_op = true;
    }
    if (a->host) {
        /* Host buffers: page-aligned host memory, as OSU's host buffers are. */
        const size_t page = 4096, ns = (a->nsend * a->ts + page - 1) / page * page,
                     nr = (a->nrecv * a->ts + page - 1) / page * page;
        a->hs = aligned_alloc(page, ns);
        a->hr = c->inplace ? a->hs : aligned_alloc(page, nr);
        if (!a->hs || !a->hr) {
            a->st = ST_SKIP;
            snprintf(a->why, sizeof a->why, "no host memory for %llu + %llu bytes",
                     (unsigned long long)ns, (unsigned long long)nr);
            return 0;
        }
        init_buffers(a);
        return 0;
    }
    int err;
    if ((err = a->ops->buf_alloc(dev, a->nsend * a->ts, GB_MEM_DEVICE, &a->dsend)) ||
        (err = a->ops->buf_alloc(dev, a->nsend * a->ts, GB_MEM_HOST_PINNED, &a->hsend))) {
        local_fail(a, err == GB_ETOOBIG ? ST_SKIP : ST_FAIL, "allocation");
        return 0;
    }
    if (c->inplace) {
        a->drecv = a->dsend;
        a->hrecv = a->hsend;
    } else if ((err = a->ops->buf_alloc(dev, a->nrecv * a->ts, GB_MEM_DEVICE, &a->drecv)) ||
               (err = a->ops->buf_alloc(dev, a->nrecv * a->ts, GB_MEM_HOST_PINNED, &a->hrecv))) {
        local_fail(a, err == GB_ETOOBIG ? ST_SKIP : ST_FAIL, "allocation");
        return 0;
    }
    a->hs = a->hsend->host;
    a->hr = a->hrecv->host;
    init_buffers(a);
    return 0;
}

static void teardown(struct coll *a)
{
    if (a->host) {
        if (a->hr != a->hs)
            free(a->hr);
        free(a->hs);
    }
    if (!a->c.inplace) {
        if (a->drecv)
            a->ops->buf_free(a->drecv);
        if (a->hrecv)
            a->ops->buf_free(a->hrecv);
    }
    if (a->dsend)
        a->ops->buf_free(a->dsend);
    if (a->hsend)
        a->ops->buf_free(a->hsend);
    if (a->own_op)
        MPI_Op_free(&a->mop);
}

/* Rank 0's figures of an ok case: t and stage (each operation's time and staging time summed
 * over the ranks), medians (each rank's median time), sts (each rank's verdict). */
static int figures(struct gb_result *r, const struct coll *a, const struct gb_mpi_coll_opts *o,
                   const double *t, const double *stage, const double *medians, const int *sts)
{
    const int n = a->n;
    const double bytes = (double)(a->count * a->ts),
                 factor = gb_coll_busbw_factor(a->c.op, (size_t)n);
    int rc = gb_mpi_samples(r, t, o->iters, n, bytes);
    if (rc)
        return rc;
    gb_result_figure(r, "time", "us", r->op_time_us.median);
    gb_result_figure(r, "algbw", "GB/s", r->value);
    gb_result_figure(r, "busbw", "GB/s", r->value * factor);
    gb_result_figure(r, "busbw_factor", "", factor);
    if (!a->host) {
        /* The split of the time: the copies' part and the rest (the MPI call), each the median
         * over the operations of its time averaged over the ranks (so the two need not add up
         * to `time` exactly). */
        double *s = malloc(2 * o->iters * sizeof *s);
        if (s) {
            double *m = s + o->iters;
            for (uint32_t i = 0; i < o->iters; i++) {
                s[i] = stage[i] / n;
                m[i] = (t[i] - stage[i]) / n;
            }
            gb_sort_doubles(s, o->iters);
            gb_sort_doubles(m, o->iters);
            gb_result_figure(r, "staging_time", "us", 1e6 * gb_percentile_sorted(s, o->iters, 0.5));
            gb_result_figure(r, "mpi_time", "us", 1e6 * gb_percentile_sorted(m, o->iters, 0.5));
            free(s);
        }
    }
    gb_mpi_rank_figures(r, medians, n, bytes);
    struct gb_figure *f;
    if (n <= GB_MAX_SET && (f = gb_mpi_figure(r, "rank_verified", ""))) {
        f->per_device = true;
        f->n = (size_t)n;
        for (int k = 0; k < n; k++)
            f->v[k] = sts[k] == ST_OK;
    }
    static const char *const calls[] = {
        "MPI_Allreduce", "MPI_Allgather", "MPI_Reduce_scatter_block", "MPI_Bcast", "MPI_Reduce",
        "MPI_Alltoall",  "MPI_Sendrecv"};
    if ((f = gb_mpi_figure(r, "path", "")))
        snprintf(f->text, sizeof f->text, "%s %s%s", a->host ? "host buffers," : "host-staged",
                 calls[a->c.op], a->c.inplace ? " (MPI_IN_PLACE)" : "");
    return 0;
}

int gb_mpi_collective(const struct gb_backend_ops *ops, struct gb_device *dev, struct gb_queue *q,
                      MPI_Comm comm, const struct gb_mpi_coll_case *c,
                      const struct gb_mpi_coll_opts *o, struct gb_result *r)
{
    memset(r, 0, sizeof *r);
    if (o->iters == 0 || (unsigned)c->op > GB_COLL_SENDRECV)
        return GB_FAIL(GB_EINVAL, "collective %d, %u iterations", (int)c->op, o->iters);
    const double t_case = gb_now();
    struct coll a = {.ops = ops, .q = q, .comm = comm, .c = *c, .host = c->host};
    MPI_Comm_rank(comm, &a.rank);
    MPI_Comm_size(comm, &a.n);
    const int n = a.n;
    double *t = NULL, *sum = NULL, *stage = NULL, *ssum = NULL, *medians = NULL;
    int *sts = NULL;
    int rc = 0, worst = ST_OK, who = 0;
    t = malloc(o->iters * sizeof *t);
    sum = malloc(o->iters * sizeof *sum);
    stage = malloc(o->iters * sizeof *stage);
    ssum = malloc(o->iters * sizeof *ssum);
    medians = malloc((size_t)n * sizeof *medians);
    sts = calloc((size_t)n, sizeof *sts);
    if (!t || !sum || !stage || !ssum || !medians || !sts) {
        rc = GB_FAIL(GB_ENOMEM, "%u samples", o->iters);
        goto out;
    }
    if ((rc = setup(&a, dev)) ||
        (rc = gb_mpi_agree(comm, a.rank, a.st, a.why, sizeof a.why, &worst, &who, sts)) ||
        worst != ST_OK)
        goto verdict;

    /* Warm-up, a barrier, then the timed operations one by one, each timed on its own around
     * one_op (with device buffers: read-back, MPI call, write; stage[i] the copies' part). With
     * host buffers the method is OSU's (osu_allreduce and the like): every operation, warm-up
     * or timed, is followed by an untimed barrier, so that each timed call starts with the
     * ranks in step and no rank's lateness is charged to the next operation. With device
     * buffers the operations run back to back, as nccl-tests' do. */
    for (uint32_t i = 0; i < o->warmup && !rc; i++) {
        rc = one_op(&a, false);
        if (!rc && a.host && MPI_Barrier(comm) != MPI_SUCCESS)
            rc = GB_FAIL(GB_EBACKEND, "MPI_Barrier");
    }
    if (!rc && MPI_Barrier(comm) != MPI_SUCCESS)
        rc = GB_FAIL(GB_EBACKEND, "MPI_Barrier");
    for (uint32_t i = 0; i < o->iters && !rc; i++) {
        double t0 = gb_now();
        rc = one_op(&a, false);
        t[i] = gb_now() - t0;
        stage[i] = a.staged;
        if (!rc && a.host && MPI_Barrier(comm) != MPI_SUCCESS)
            rc = GB_FAIL(GB_EBACKEND, "MPI_Barrier");
    }
    if (rc)
        goto out;

    /* The verified operation, on buffers set afresh. */
    if (a.st == ST_OK)
        init_buffers(&a);
    if ((rc = one_op(&a, true)))
        goto out;
    verify(&a);
    if ((rc = gb_mpi_agree(comm, a.rank, a.st, a.why, sizeof a.why, &worst, &who, sts)))
        goto out;

    /* Gather: the per-operation times (and staging times) summed over the ranks, and each
     * rank's median time. */
    if ((rc = gb_mpi_gather_times(comm, t, sum, medians, o->iters)))
        goto out;
    if (MPI_Reduce(stage, ssum, (int)o->iters, MPI_DOUBLE, MPI_SUM, 0, comm) != MPI_SUCCESS) {
        rc = GB_FAIL(GB_EBACKEND, "MPI_Reduce of the staging times");
        goto out;
    }

verdict:
    if (rc)
        goto out;
    if (a.rank == 0) {
        describe(r, ops ? ops->name : "host", &a);
        r->elapsed_s = gb_now() - t_case;
        if (worst == ST_SKIP) {
            r->status = GB_STATUS_SKIPPED;
            snprintf(r->reason, sizeof r->reason, "rank %d: %s", who, a.why);
        } else if (worst != ST_OK) {
            /* The first failing rank's reason, and every rank that failed. */
            char list[256] = "";
            size_t len = 0;
            for (int k = 0; k < n && len + 16 < sizeof list; k++)
                if (sts[k] != ST_OK)
                    len +=
                        (size_t)snprintf(list + len, sizeof list - len, "%s%d", len ? "," : "", k);
            r->status = GB_STATUS_FAILED;
            snprintf(r->reason, sizeof r->reason, "rank %d: %s (ranks failed: %s)", who, a.why,
                     list);
        } else {
            r->status = GB_STATUS_OK;
            r->verified = true;
            rc = figures(r, &a, o, sum, ssum, medians, sts);
        }
    }
out:
    teardown(&a);
    free(t);
    free(sum);
    free(stage);
    free(ssum);
    free(medians);
    free(sts);
    return rc;
}
