/* gpubench — the CUDA backend's sparse times dense through cuSPARSE (spmm_plan, spmm_run,
 * spmm_plan_free).
 *
 * cuSPARSE is dlopened by the first library sparse case (cuda_libs.c), like cuBLAS. The calls are
 * its generic API (cuSPARSE documentation, "Generic API"): a CSR descriptor of A (int32 offsets
 * and indices, zero-based, float values), dense descriptors of B and C (column-major), then
 * cusparseSpMM with CUSPARSE_SPMM_CSR_ALG2 (its deterministic CSR algorithm for column-major
 * operands) or, for n = 1, cusparseSpMV with CUSPARSE_SPMV_CSR_ALG1, both computing in float; the
 * workspace comes from *_bufferSize and is allocated in the plan, outside the timed region.
 *
 * This file is compiled and linked on machines without a GPU; what it says of cuSPARSE's
 * behaviour is from the documentation until a lease runs scripts/gpu-check.sh.
 */
#include "gb-config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_libs.h"
#include "base/error.h"

#if HAVE_CUSPARSE

struct cu_spmm_plan {
    struct gb_spmm_plan pub;
    struct gb_spmm s;
    cusparseHandle_t h;
    cusparseSpMatDescr_t a;
    cusparseDnMatDescr_t b, c;
    cusparseDnVecDescr_t x, y;
    void *ws;
    size_t ws_bytes;
};

static int sp__fail(cusparseStatus_t st, const char *file, int line, const char *call)
{
    const int err = st == CUSPARSE_STATUS_NOT_SUPPORTED || st == CUSPARSE_STATUS_ARCH_MISMATCH
                        ? GB_EUNSUPPORTED
                    : st == CUSPARSE_STATUS_ALLOC_FAILED ? GB_ENOMEM
                                                         : GB_EBACKEND;
    return gb_error_set(err, file, line, "%s: cuSPARSE status %d: %s", call, (int)st,
                        gb__sp.cusparseGetErrorString(st));
}

static inline int sp__check(cusparseStatus_t st, const char *file, int line, const char *call)
{
    return st == CUSPARSE_STATUS_SUCCESS ? 0 : sp__fail(st, file, line, call);
}

#define SP(fn, ...) sp__check(gb__sp.fn(__VA_ARGS__), __FILE__, __LINE__, #fn)

void gb__cuda_sparse_free(struct gb_spmm_plan *pub)
{
    if (!pub)
        return;
    struct cu_spmm_plan *p = (struct cu_spmm_plan *)pub;
    if (p->a)
        (void)gb__sp.cusparseDestroySpMat(p->a);
    if (p->b)
        (void)gb__sp.cusparseDestroyDnMat(p->b);
    if (p->c)
        (void)gb__sp.cusparseDestroyDnMat(p->c);
    if (p->x)
        (void)gb__sp.cusparseDestroyDnVec(p->x);
    if (p->y)
        (void)gb__sp.cusparseDestroyDnVec(p->y);
    if (p->h)
        (void)gb__sp.cusparseDestroy(p->h);
    if (p->ws)
        (void)cudaFree(p->ws);
    free(p);
}

int gb__cuda_sparse_plan(struct gb_queue *q, cudaStream_t stream, void *const ptrs[5],
                         const struct gb_spmm *s, struct gb_spmm_plan **out)
{
    *out = NULL;
    const uint64_t lim = (uint64_t)INT32_MAX;
    if (!s->m || !s->n || !s->k || s->m > lim || s->n > lim || s->k > lim || s->nnz > lim)
        return GB_FAIL(GB_EINVAL,
                       "spmm: m=%llu n=%llu k=%llu nnz=%llu (each 1 to INT32_MAX; nnz "
                       "0 to INT32_MAX)",
                       (unsigned long long)s->m, (unsigned long long)s->n, (unsigned long long)s->k,
                       (unsigned long long)s->nnz);
    const uint64_t need[5] = {(s->m + 1) * 4, s->nnz * 4, s->nnz * 4, s->k * s->n * 4,
                              s->m * s->n * 4};
    const struct gb_buf *const bufs[5] = {s->row_ptr, s->col, s->val, s->b, s->c};
    for (int i = 0; i < 5; i++)
        if (bufs[i]->bytes < need[i])
            return GB_FAIL(GB_EINVAL, "spmm: operand %d holds %llu bytes, the shape needs %llu", i,
                           (unsigned long long)bufs[i]->bytes, (unsigned long long)need[i]);
    int rc = gb__cuda_sparse_load();
    if (rc)
        return rc;
    struct cu_spmm_plan *p = calloc(1, sizeof *p);
    if (!p)
        return GB_FAIL(GB_ENOMEM, "spmm plan");
    p->pub.q = q;
    p->s = *s;
    const float one = 1.0f, zero = 0.0f;
    const int64_t m = (int64_t)s->m, n = (int64_t)s->n, k = (int64_t)s->k;
    if ((rc = SP(cusparseCreate, &p->h)) || (rc = SP(cusparseSetStream, p->h, stream)) ||
        (rc = SP(cusparseCreateCsr, &p->a, m, k, (int64_t)s->nnz, ptrs[0], ptrs[1], ptrs[2],
                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F)))
        goto fail;
    if (s->n == 1) {
        if ((rc = SP(cusparseCreateDnVec, &p->x, k, ptrs[3], CUDA_R_32F)) ||
            (rc = SP(cusparseCreateDnVec, &p->y, m, ptrs[4], CUDA_R_32F)) ||
            (rc = SP(cusparseSpMV_bufferSize, p->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, p->a,
                     p->x, &zero, p->y, CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1, &p->ws_bytes)))
            goto fail;
        snprintf(p->pub.algo, sizeof p->pub.algo, "cuSPARSE SpMV CSR_ALG1");
    } else {
        if ((rc = SP(cusparseCreateDnMat, &p->b, k, n, k, ptrs[3], CUDA_R_32F,
                     CUSPARSE_ORDER_COL)) ||
            (rc = SP(cusparseCreateDnMat, &p->c, m, n, m, ptrs[4], CUDA_R_32F,
                     CUSPARSE_ORDER_COL)) ||
            (rc = SP(cusparseSpMM_bufferSize, p->h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                     CUSPARSE_OPERATION_NON_TRANSPOSE, &one, p->a, p->b, &zero, p->c, CUDA_R_32F,
                     CUSPARSE_SPMM_CSR_ALG2, &p->ws_bytes)))
            goto fail;
        snprintf(p->pub.algo, sizeof p->pub.algo, "cuSPARSE SpMM CSR_ALG2");
    }
    if (p->ws_bytes && cudaMalloc(&p->ws, p->ws_bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        p->ws = NULL;
        rc = GB_FAIL(GB_ENOMEM, "spmm: a workspace of %zu bytes", p->ws_bytes);
        goto fail;
    }
    p->pub.workspace_bytes = p->ws_bytes;
    *out = &p->pub;
    return 0;
fail:
    gb__cuda_sparse_free(&p->pub);
    return rc;
}

int gb__cuda_sparse_run(struct gb_spmm_plan *pub)
{
    struct cu_spmm_plan *p = (struct cu_spmm_plan *)pub;
    const float one = 1.0f, zero = 0.0f;
    if (p->s.n == 1)
        return SP(cusparseSpMV, p->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, p->a, p->x, &zero,
                  p->y, CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1, p->ws);
    return SP(cusparseSpMM, p->h, CUSPARSE_OPERATION_NON_TRANSPOSE,
              CUSPARSE_OPERATION_NON_TRANSPOSE, &one, p->a, p->b, &zero, p->c, CUDA_R_32F,
              CUSPARSE_SPMM_CSR_ALG2, p->ws);
}

/* ---- spmm_plan and spmm_run ----------------------------------------------------------------- */

/* The device is made current here; gb__cuda_sparse_plan gets the stream and the buffers'
 * addresses. */
int gb__cuda_spmm_plan(struct gb_queue *q, const struct gb_spmm *s, struct gb_spmm_plan **out)
{
    *out = NULL;
    int rc = gb__cuda_use(q->dev);
    if (rc)
        return rc;
    struct gb_buf *const b[5] = {s->row_ptr, s->col, s->val, s->b, s->c};
    void *ptrs[5];
    for (int i = 0; i < 5; i++) {
        if (!b[i] || b[i]->kind != GB_MEM_DEVICE || !gb__cuda_same(b[i]->dev, q->dev))
            return GB_FAIL(GB_EINVAL, "spmm: operand %d is not a device buffer of this device", i);
        ptrs[i] = gb__cuda_buf(b[i])->ptr;
    }
    if (gb__cuda_queue(q)->dead)
        return GB_FAIL(GB_EBACKEND, "spmm: the queue's device was lost");
    return gb__cuda_sparse_plan(q, gb__cuda_queue(q)->stream, ptrs, s, out);
}

int gb__cuda_spmm_run(struct gb_spmm_plan *p)
{
    int rc = gb__cuda_use(p->q->dev);
    return rc ? rc : gb__cuda_sparse_run(p);
}

#endif
