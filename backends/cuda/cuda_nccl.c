/* gpubench — the CUDA backend's collective communication through NCCL: the comm_* members of
 * gb_cuda_ops. NCCL is dlopened by the first communicator (cuda_libs.c: libnccl.so.2, then
 * libnccl.so), never linked, so gpubench starts where it is missing and the collective cases
 * are recorded skips that say what was tried.
 *
 * A communicator of this process's devices is one ncclCommInitAll; a rank of a communicator
 * spanning processes is one ncclCommInitRank on the id ncclGetUniqueId made. Every collective is
 * one ncclGroupStart / ncclGroupEnd around a call per rank this process holds (NCCL's rule for
 * driving several devices from one thread); all-to-all is a ncclSend and a ncclRecv per peer,
 * and the send/recv ring a ncclSend to rank + 1 and a ncclRecv from rank - 1, in the same group
 * (as nccl-tests' alltoall and sendrecv do).
 */
#include "gb-config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "backends/backend.h"
#include "cuda_libs.h"
#include "gb_cuda.h"

/* NCCL's counts are size_t; gb_coll's are uint64_t. */
_Static_assert(SIZE_MAX >= UINT64_MAX, "size_t holds a uint64_t count");

/* ---- the rules the CPU can check ---------------------------------------------------------------- */

int gb_cuda_nccl_dtype(enum gb_dtype t, int version, int *out)
{
    switch (t) {
    case GB_F32:
        *out = GB_CUDA_NCCL_FLOAT32;
        return 0;
    case GB_F16:
        *out = GB_CUDA_NCCL_FLOAT16;
        return 0;
    case GB_I32:
        *out = GB_CUDA_NCCL_INT32;
        return 0;
    case GB_BF16:
        if (version < GB_CUDA_NCCL_BF16_SINCE) {
            char v[32];
            gb_cuda_nccl_version_text(version, v, sizeof v);
            return GB_USER_FAIL(GB_EUNSUPPORTED,
                                "NCCL %s has no bf16 (ncclBfloat16 came with NCCL 2.10.0)", v);
        }
        *out = GB_CUDA_NCCL_BFLOAT16;
        return 0;
    default:
        return GB_USER_FAIL(GB_EUNSUPPORTED,
                            "NCCL collectives take f32, f16, bf16 or i32 here, not %s",
                            gb_dtype_name(t));
    }
}

int gb_cuda_nccl_redop(enum gb_coll_redop op, int *out)
{
    switch (op) {
    case GB_COLL_SUM:
        *out = GB_CUDA_NCCL_SUM;
        return 0;
    case GB_COLL_MAX:
        *out = GB_CUDA_NCCL_MAX;
        return 0;
    default:
        return GB_USER_FAIL(GB_EUNSUPPORTED, "no NCCL reduction for gb_coll_redop %d", (int)op);
    }
}

/* Whether the collective divides its count among the ranks (struct gb_coll). */
static bool coll_divides(enum gb_coll_op op)
{
    return op == GB_COLL_ALLGATHER || op == GB_COLL_REDUCESCATTER || op == GB_COLL_ALLTOALL;
}

int gb_cuda_coll_span(const struct gb_coll *c, int nranks, int rank, bool in_place,
                      struct gb_cuda_coll_span *out)
{
    memset(out, 0, sizeof *out);
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return GB_FAIL(GB_EINVAL, "collective: rank %d of %d", rank, nranks);
    if (c->count == 0)
        return GB_FAIL(GB_EINVAL, "collective: count 0");
    const uint64_t n = (uint64_t)nranks, part = c->count / n;
    if (coll_divides(c->op) && c->count % n != 0)
        return GB_FAIL(GB_EINVAL, "collective: count %llu is not a multiple of the %d ranks",
                       (unsigned long long)c->count, nranks);
    if ((c->op == GB_COLL_BROADCAST || c->op == GB_COLL_REDUCE) &&
        (c->root < 0 || c->root >= nranks))
        return GB_FAIL(GB_EINVAL, "collective: root %d outside the %d ranks", c->root, nranks);
    out->count = c->count;
    out->send_len = out->recv_len = c->count;
    switch (c->op) {
    case GB_COLL_ALLREDUCE:
    case GB_COLL_BROADCAST:
    case GB_COLL_REDUCE:
        return 0;
    case GB_COLL_ALLGATHER:
        out->count = out->send_len = part;
        out->send_off = in_place ? (uint64_t)rank * part : 0;
        return 0;
    case GB_COLL_REDUCESCATTER:
        out->count = out->recv_len = part;
        out->recv_off = in_place ? (uint64_t)rank * part : 0;
        return 0;
    case GB_COLL_ALLTOALL:
    case GB_COLL_SENDRECV:
        if (in_place)
            return GB_USER_FAIL(GB_EUNSUPPORTED,
                                "%s in place: the grouped sends would read what the receives "
                                "overwrite",
                                c->op == GB_COLL_ALLTOALL ? "all-to-all" : "send/recv");
        out->count = c->op == GB_COLL_ALLTOALL ? part : c->count;
        return 0;
    }
    return GB_FAIL(GB_EINVAL, "collective: unknown gb_coll_op %d", (int)c->op);
}

/* ---- the communicator ------------------------------------------------------------------------- */

/* The backend's communicator: the ranks this process holds (all n of them for comm_init, one
 * for comm_init_rank), each with its NCCL communicator, device and stream. */
struct gb_comm {
    int nranks; /* ranks in the communicator, in every process */
    int rank0;  /* the rank of held[0]; held[i] is rank rank0 + i */
    int n;      /* ranks held here */
    int version;
    struct {
        gb__nccl_comm_t comm;
        struct gb_device *dev;
        cudaStream_t stream;
    } held[];
};

/* Records NCCL's failure of `call` as the error detail: ncclGetErrorString's text, the result's
 * number and, where the library has it, ncclGetLastError's own words. Returns GB_EBACKEND. */
static int nc__fail(gb__nccl_result_t r, gb__nccl_comm_t comm, const char *file, int line,
                    const char *call)
{
    const char *s = gb__nccl.ncclGetErrorString(r);
    int err = gb_error_set(GB_EBACKEND, file, line, "%s: %s (ncclResult_t %d)", call, s ? s : "?",
                           (int)r);
    const char *last = gb__nccl.ncclGetLastError ? gb__nccl.ncclGetLastError(comm) : NULL;
    if (last && *last)
        err = gb_error_append(err, "%s", last);
    return err;
}
static inline int nc__check(gb__nccl_result_t r, gb__nccl_comm_t comm, const char *file, int line,
                            const char *call)
{
    return r == GB_CUDA_NCCL_SUCCESS ? 0 : nc__fail(r, comm, file, line, call);
}
/* NC(comm, ncclAllReduce, ...): calls it through gb__nccl; 0, or GB_EBACKEND with the detail.
 * `comm` is the communicator ncclGetLastError is asked about (NULL: the last of any). */
#define NC(comm, fn, ...) nc__check(gb__nccl.fn(__VA_ARGS__), (comm), __FILE__, __LINE__, #fn)

static int comm_alloc(int n, struct gb_comm **out)
{
    *out = calloc(1, sizeof **out + (size_t)n * sizeof(*out)->held[0]);
    return *out ? 0 : GB_FAIL(GB_ENOMEM, "comm: %d ranks", n);
}

/* Checks that q is a live queue of dev (rank `rank`'s pair). */
static int check_pair(struct gb_device *dev, struct gb_queue *q, int rank)
{
    if (!dev || !q || !gb__cuda_same(q->dev, dev))
        return GB_FAIL(GB_EINVAL, "comm: rank %d's queue is not of its device", rank);
    if (gb__cuda_queue(q)->dead)
        return GB_FAIL(GB_EBACKEND, "comm: rank %d's device was lost", rank);
    return gb__cuda_use(dev);
}

void gb__cuda_comm_free(struct gb_comm *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n; i++)
        if (c->held[i].comm)
            (void)gb__nccl.ncclCommDestroy(c->held[i].comm);
    free(c);
}

int gb__cuda_comm_init(struct gb_device *const *devs, struct gb_queue *const *queues, int n,
                       struct gb_comm **out)
{
    *out = NULL;
    int version = 0;
    int rc = gb__cuda_nccl_load(&version);
    if (rc)
        return rc;
    if (n < 1 || n > GB__CUDA_MAX_DEV)
        return GB_FAIL(GB_EINVAL, "comm_init: %d devices (1 to %d)", n, GB__CUDA_MAX_DEV);
    int devlist[GB__CUDA_MAX_DEV];
    for (int i = 0; i < n; i++) {
        if ((rc = check_pair(devs[i], queues[i], i)))
            return rc;
        devlist[i] = devs[i]->index;
        for (int j = 0; j < i; j++)
            if (devlist[j] == devlist[i]) /* NCCL refuses a device twice in one communicator */
                return GB_FAIL(GB_EINVAL, "comm_init: device %d is ranks %d and %d", devlist[i], j,
                               i);
    }
    struct gb_comm *c;
    if ((rc = comm_alloc(n, &c)))
        return rc;
    c->nranks = c->n = n;
    c->version = version;
    gb__nccl_comm_t comms[GB__CUDA_MAX_DEV] = {0};
    if ((rc = NC(NULL, ncclCommInitAll, comms, n, devlist))) {
        free(c);
        return rc;
    }
    for (int i = 0; i < n; i++) {
        c->held[i].comm = comms[i];
        c->held[i].dev = devs[i];
        c->held[i].stream = gb__cuda_queue(queues[i])->stream;
    }
    *out = c;
    return 0;
}

int gb__cuda_comm_unique_id(void *id, size_t *len)
{
    int rc = gb__cuda_nccl_load(NULL);
    if (rc)
        return rc;
    if (!id || !len || *len < GB_CUDA_NCCL_ID_BYTES)
        return GB_FAIL(GB_EINVAL, "comm_unique_id: the id needs %d bytes, %zu given",
                       GB_CUDA_NCCL_ID_BYTES, len ? *len : 0);
    gb__nccl_unique_id u;
    if ((rc = NC(NULL, ncclGetUniqueId, &u)))
        return rc;
    memcpy(id, u.internal, sizeof u.internal);
    *len = sizeof u.internal;
    return 0;
}

int gb__cuda_comm_init_rank(struct gb_device *dev, struct gb_queue *q, int nranks, int rank,
                            const void *id, size_t len, struct gb_comm **out)
{
    *out = NULL;
    int version = 0;
    int rc = gb__cuda_nccl_load(&version);
    if (rc)
        return rc;
    if (!id || len != GB_CUDA_NCCL_ID_BYTES)
        return GB_FAIL(GB_EINVAL, "comm_init_rank: an id of %zu bytes, not NCCL's %d", len,
                       GB_CUDA_NCCL_ID_BYTES);
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return GB_FAIL(GB_EINVAL, "comm_init_rank: rank %d of %d", rank, nranks);
    if ((rc = check_pair(dev, q, rank)))
        return rc;
    struct gb_comm *c;
    if ((rc = comm_alloc(1, &c)))
        return rc;
    c->nranks = nranks;
    c->rank0 = rank;
    c->n = 1;
    c->version = version;
    gb__nccl_unique_id u;
    memcpy(u.internal, id, sizeof u.internal);
    if ((rc = NC(NULL, ncclCommInitRank, &c->held[0].comm, nranks, u, rank))) {
        free(c);
        return rc;
    }
    c->held[0].dev = dev;
    c->held[0].stream = gb__cuda_queue(q)->stream;
    *out = c;
    return 0;
}

/* ---- one collective ---------------------------------------------------------------------------- */

/* Rank i's buffers checked against its span and turned into device addresses: each a device
 * buffer of the rank's device holding the span's elements. */
static int rank_addrs(const struct gb_comm *c, int i, const struct gb_coll *call,
                      const struct gb_cuda_coll_span *sp, uint64_t esize, char **send, char **recv)
{
    struct gb_buf *const b[2] = {call->send[i], call->recv[i]};
    const uint64_t end[2] = {sp->send_off + sp->send_len, sp->recv_off + sp->recv_len};
    const int rank = c->rank0 + i;
    for (int k = 0; k < 2; k++) {
        if (!b[k] || b[k]->kind != GB_MEM_DEVICE || !gb__cuda_same(b[k]->dev, c->held[i].dev))
            return GB_FAIL(GB_EINVAL,
                           "collective: rank %d's %s buffer is not a device buffer of "
                           "its device",
                           rank, k ? "receive" : "send");
        if (b[k]->bytes / esize < end[k])
            return GB_FAIL(GB_EINVAL,
                           "collective: rank %d's %s buffer holds %llu bytes, %llu elements of "
                           "%llu bytes needed",
                           rank, k ? "receive" : "send", (unsigned long long)b[k]->bytes,
                           (unsigned long long)end[k], (unsigned long long)esize);
    }
    *send = (char *)gb__cuda_buf(b[0])->ptr + sp->send_off * esize;
    *recv = (char *)gb__cuda_buf(b[1])->ptr + sp->recv_off * esize;
    return 0;
}

/* Enqueues rank i's part of `call` (inside the group comm_run opened). */
static int rank_call(const struct gb_comm *c, int i, const struct gb_coll *call,
                     const struct gb_cuda_coll_span *sp, uint64_t esize, int dt, int op,
                     const char *send, char *recv)
{
    gb__nccl_comm_t comm = c->held[i].comm;
    cudaStream_t s = c->held[i].stream;
    const size_t n = (size_t)sp->count;
    const int rank = c->rank0 + i, nr = c->nranks;
    switch (call->op) {
    case GB_COLL_ALLREDUCE:
        return NC(comm, ncclAllReduce, send, recv, n, dt, op, comm, s);
    case GB_COLL_ALLGATHER:
        return NC(comm, ncclAllGather, send, recv, n, dt, comm, s);
    case GB_COLL_REDUCESCATTER:
        return NC(comm, ncclReduceScatter, send, recv, n, dt, op, comm, s);
    case GB_COLL_BROADCAST:
        return NC(comm, ncclBroadcast, send, recv, n, dt, call->root, comm, s);
    case GB_COLL_REDUCE:
        return NC(comm, ncclReduce, send, recv, n, dt, op, call->root, comm, s);
    case GB_COLL_ALLTOALL:
        for (int p = 0; p < nr; p++) {
            const uint64_t at = (uint64_t)p * sp->count * esize;
            int rc = NC(comm, ncclSend, send + at, n, dt, p, comm, s);
            if (!rc)
                rc = NC(comm, ncclRecv, recv + at, n, dt, p, comm, s);
            if (rc)
                return rc;
        }
        return 0;
    case GB_COLL_SENDRECV: {
        int rc = NC(comm, ncclSend, send, n, dt, (rank + 1) % nr, comm, s);
        return rc ? rc : NC(comm, ncclRecv, recv, n, dt, (rank + nr - 1) % nr, comm, s);
    }
    }
    return GB_FAIL(GB_EINVAL, "collective: unknown gb_coll_op %d", (int)call->op);
}

int gb__cuda_comm_run(struct gb_comm *c, const struct gb_coll *call)
{
    int dt = 0, op = GB_CUDA_NCCL_SUM;
    int rc = gb_cuda_nccl_dtype(call->dtype, c->version, &dt);
    if (!rc && (call->op == GB_COLL_ALLREDUCE || call->op == GB_COLL_REDUCESCATTER ||
                call->op == GB_COLL_REDUCE))
        rc = gb_cuda_nccl_redop(call->redop, &op);
    if (rc)
        return rc;
    const uint64_t esize = gb_dtype_size(call->dtype);
    struct {
        struct gb_cuda_coll_span sp;
        char *send, *recv;
    } r[GB__CUDA_MAX_DEV];
    /* Everything checked before the group opens: a group left open would hold NCCL's state. */
    for (int i = 0; i < c->n; i++) {
        if (gb__cuda_is_lost(c->held[i].dev->index))
            return gb__cuda_use(c->held[i].dev);
        const bool in_place = call->send[i] == call->recv[i];
        if ((rc = gb_cuda_coll_span(call, c->nranks, c->rank0 + i, in_place, &r[i].sp)) ||
            (rc = rank_addrs(c, i, call, &r[i].sp, esize, &r[i].send, &r[i].recv)))
            return rc;
    }
    if ((rc = NC(NULL, ncclGroupStart)))
        return rc;
    for (int i = 0; i < c->n && !rc; i++)
        rc = rank_call(c, i, call, &r[i].sp, esize, dt, op, r[i].send, r[i].recv);
    /* The group is closed whatever happened inside it; the first error's detail is kept. */
    if (rc) {
        (void)gb__nccl.ncclGroupEnd();
        return rc;
    }
    return NC(NULL, ncclGroupEnd);
}
