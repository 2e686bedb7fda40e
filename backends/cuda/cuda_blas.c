/* gpubench — the CUDA backend's BLAS: GEMM and GEMV through cuBLAS, FP8 GEMM through cuBLASLt,
 * both dlopened by their first call (cuda_libs.c).
 */
#include "gb-config.h"

#include <stdint.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "backends/backend.h"
#include "cuda_libs.h"
#include "gb_cuda.h"

/* ---- cuBLAS, loaded by the first GEMM (cuda_libs.c) ------------------------------------------ */

int gb_cuda_blas_status_err(int status)
{
    switch (status) {
    case 0: /* CUBLAS_STATUS_SUCCESS */
        return 0;
    case 15: /* CUBLAS_STATUS_NOT_SUPPORTED */
    case 8:  /* CUBLAS_STATUS_ARCH_MISMATCH */
        return GB_EUNSUPPORTED;
    default:
        return GB_EBACKEND;
    }
}

bool gb_cuda_stream_cache_needs(const struct gb_cuda_stream_cache *c, const void *stream)
{
    return !c->valid || c->stream != stream;
}

void gb_cuda_stream_cache_told(struct gb_cuda_stream_cache *c, const void *stream)
{
    c->stream = stream;
    c->valid = true;
}

bool gb_cuda_stream_cache_holds(const struct gb_cuda_stream_cache *c, const void *stream)
{
    return c->valid && c->stream == stream;
}

#if HAVE_CUBLAS
_Static_assert(CUBLAS_STATUS_SUCCESS == 0 && CUBLAS_STATUS_NOT_SUPPORTED == 15 &&
                   CUBLAS_STATUS_ARCH_MISMATCH == 8,
               "gb_cuda_blas_status_err's numbers");

static int bl__fail(cublasStatus_t s, const char *file, int line, const char *call)
{
    /* A failed execution may hide a sticky CUDA error: note it for the device, and say it. */
    cudaError_t e = cudaSuccess;
    if (s == CUBLAS_STATUS_EXECUTION_FAILED || s == CUBLAS_STATUS_INTERNAL_ERROR) {
        e = cudaGetLastError();
        if (e != cudaSuccess && gb_cuda_error_is_sticky((int)e))
            (void)gb__cuda_fail(e, GB_EBACKEND, file, line, call);
    }
    int err = gb_error_set(gb_cuda_blas_status_err((int)s), file, line, "%s: %s (%d): %s", call,
                           gb__bl.cublasGetStatusName(s), (int)s, gb__bl.cublasGetStatusString(s));
    if (e != cudaSuccess)
        err = gb_error_append(err, "underneath: %s (%d): %s", cudaGetErrorName(e), (int)e,
                              cudaGetErrorString(e));
    return err;
}
static inline int bl__check(cublasStatus_t s, const char *file, int line, const char *call)
{
    return s == CUBLAS_STATUS_SUCCESS ? 0 : bl__fail(s, file, line, call);
}
/* BL(cublasGemmEx_64, ...): calls it through gb__bl; 0, or GB_EUNSUPPORTED / GB_EBACKEND
 * (gb_cuda_blas_status_err) with the status. */
#define BL(fn, ...) bl__check(gb__bl.fn(__VA_ARGS__), __FILE__, __LINE__, #fn)
#endif

/* ---- BLAS ------------------------------------------------------------------------------------ */

uint16_t gb_cuda_f16_bits(float f)
{
    union {
        float f;
        uint32_t u;
    } v = {.f = f};
    const uint32_t sign = (v.u >> 16) & 0x8000u;
    const uint32_t absu = v.u & 0x7fffffffu;
    if (absu >= 0x7f800000u) /* inf or NaN (keep a quiet NaN) */
        return (uint16_t)(sign | 0x7c00u | (absu > 0x7f800000u ? 0x200u : 0));
    if (absu >= 0x477ff000u) /* rounds to >= 65520: overflow to infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (absu < 0x38800000u) {   /* below 2^-14: a subnormal half, or zero */
        if (absu < 0x33000000u) /* below 2^-25: rounds to zero */
            return (uint16_t)sign;
        const uint32_t mant = (absu & 0x7fffffu) | 0x800000u;
        const int shift = 126 - (int)(absu >> 23); /* 14..24 */
        uint32_t h = mant >> shift;
        const uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1u)))
            h++;
        return (uint16_t)(sign | h);
    }
    /* Normal: rebias the exponent (127 -> 15), keep 10 mantissa bits, round to nearest even;
     * a carry out of the mantissa correctly bumps the exponent. */
    uint32_t h = ((absu - 0x38000000u) >> 13);
    const uint32_t rem = absu & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

#if HAVE_CUBLAS
static bool cu__dtype(enum gb_dtype t, cudaDataType *out)
{
    switch (t) {
    case GB_F64:
        *out = CUDA_R_64F;
        return true;
    case GB_F32:
        *out = CUDA_R_32F;
        return true;
    case GB_F16:
        *out = CUDA_R_16F;
        return true;
    case GB_BF16:
        *out = CUDA_R_16BF;
        return true;
    case GB_I8:
        *out = CUDA_R_8I;
        return true;
    case GB_I32:
        *out = CUDA_R_32I;
        return true;
    default:
        return false;
    }
}

/* The device handle's cuBLAS state, set up by its first GEMM: the library (loaded now, the
 * first time in the process), the handle and a workspace of cuBLAS's recommended size (32 MiB
 * on Hopper and newer, 4 MiB before: cuBLAS documentation, cublasSetWorkspace). The current
 * device is d's. GB_EUNSUPPORTED when cuBLAS does not load (the case is a recorded skip). */
static int cu__blas_setup(struct gb__cuda_device *d)
{
    if (d->blas)
        return 0;
    int rc = gb__cuda_blas_load();
    if (rc)
        return rc;
    const size_t ws = (d->cc_major >= 9 ? 32u : 4u) << 20;
    if ((rc = CU_ERR(GB_ENOMEM, cudaMalloc, &d->blas_ws, ws)))
        return rc;
    if ((rc = BL(cublasCreate_v2, &d->blas))) {
        (void)cudaFree(d->blas_ws);
        d->blas_ws = NULL;
        d->blas = NULL;
        return rc;
    }
    d->blas_ws_bytes = ws;
    d->blas_stream.valid = false;
    return 0;
}

/* Makes q's device current, sets up its cuBLAS state (cu__blas_setup) and points the handle at
 * q's stream, with our workspace. */
static int cu__blas_bind(struct gb_queue *q)
{
    struct gb__cuda_device *d = gb__cuda_dev(q->dev);
    int rc;
    if ((rc = gb__cuda_use(q->dev)) || (rc = cu__blas_setup(d)))
        return rc;
    cudaStream_t stream = gb__cuda_queue(q)->stream;
    if (gb_cuda_stream_cache_needs(&d->blas_stream, stream)) {
        /* cublasSetStream resets the workspace to cuBLAS's default pool: give ours again. */
        if ((rc = BL(cublasSetStream_v2, d->blas, stream)) ||
            (rc = BL(cublasSetWorkspace_v2, d->blas, d->blas_ws, d->blas_ws_bytes))) {
            d->blas_stream.valid = false;
            return rc;
        }
        gb_cuda_stream_cache_told(&d->blas_stream, stream);
    }
    return 0;
}

/* cublasSgemv_v2_64 / cublasDgemv_v2_64 (cuBLAS 12's 64-bit API), column-major, x and y
 * contiguous; F32 and F64 only (cuBLAS has no half GEMV). */
int gb__cuda_gemv(struct gb_queue *q, const struct gb_gemm *g)
{
    struct gb__cuda_device *d = gb__cuda_dev(q->dev);
    const enum gb_dtype a = g->a_type;
    const uint64_t need_cap = a == GB_F32 ? GB_CAP_BLAS_F32 : a == GB_F64 ? GB_CAP_BLAS_F64 : 0;
    if (!need_cap || g->tf32)
        return GB_FAIL(GB_EUNSUPPORTED, "gemv: %s%s: cuBLAS has only Sgemv and Dgemv",
                       gb_dtype_name(a), g->tf32 ? " (TF32)" : "");
    if (!(d->pub.info.caps & need_cap))
        return GB_FAIL(GB_EUNSUPPORTED, "gemv: %s on %s (%s)", gb_dtype_name(a), d->pub.info.name,
                       d->pub.info.arch);
    int rc = gb_gemv_check_shape(g, q->dev, gb__cuda_same, INT64_MAX, "INT64_MAX");
    if (rc || (rc = cu__blas_bind(q)))
        return rc;
    const cublasOperation_t ta = g->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    /* gemv's m and n are the stored A's rows and columns. */
    const int64_t rows = (int64_t)(g->trans_a ? g->k : g->m),
                  cols = (int64_t)(g->trans_a ? g->m : g->k);
    const void *A = gb__cuda_buf(g->a)->ptr, *X = gb__cuda_buf(g->b)->ptr;
    void *Y = gb__cuda_buf(g->c)->ptr;
    if (a == GB_F32) {
        const float al = (float)g->alpha, be = (float)g->beta;
        return BL(cublasSgemv_v2_64, d->blas, ta, rows, cols, &al, A, (int64_t)g->lda, X, 1, &be, Y,
                  1);
    }
    return BL(cublasDgemv_v2_64, d->blas, ta, rows, cols, &g->alpha, A, (int64_t)g->lda, X, 1,
              &g->beta, Y, 1);
}

int gb__cuda_gemm(struct gb_queue *q, const struct gb_gemm *g)
{
    struct gb__cuda_device *d = gb__cuda_dev(q->dev);
    const uint64_t caps = d->pub.info.caps;
    cudaDataType at, ct;
    if (!cu__dtype(g->a_type, &at) || !cu__dtype(g->c_type, &ct))
        return GB_FAIL(GB_EUNSUPPORTED, "gemm: %s in, %s out", gb_dtype_name(g->a_type),
                       gb_dtype_name(g->c_type));
    /* The combinations cublasGemmEx documents, each behind its capability bit. */
    cublasComputeType_t comp;
    uint64_t need_cap;
    const enum gb_dtype a = g->a_type, c = g->c_type, k = g->compute;
    if (a == GB_F64 && c == GB_F64 && k == GB_F64) {
        comp = CUBLAS_COMPUTE_64F;
        need_cap = GB_CAP_BLAS_F64;
    } else if (a == GB_F32 && c == GB_F32 && k == GB_F32) {
        comp = g->tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
        need_cap = g->tf32 ? GB_CAP_BLAS_TF32 : GB_CAP_BLAS_F32;
    } else if (a == GB_F16 && c == GB_F16 && k == GB_F16) {
        comp = CUBLAS_COMPUTE_16F;
        need_cap = GB_CAP_BLAS_F16;
    } else if (a == GB_F16 && (c == GB_F16 || c == GB_F32) && k == GB_F32) {
        comp = CUBLAS_COMPUTE_32F; /* tensor cores, F32 accumulation */
        need_cap = GB_CAP_BLAS_MIXED;
    } else if (a == GB_BF16 && (c == GB_BF16 || c == GB_F32) && k == GB_F32) {
        comp = CUBLAS_COMPUTE_32F;
        need_cap = GB_CAP_BLAS_BF16;
    } else if (a == GB_I8 && c == GB_I32 && k == GB_I32) {
        /* INT8 in, INT32 accumulate and out (cublasGemmEx's CUDA_R_8I / CUBLAS_COMPUTE_32I row,
         * which cuBLAS runs on the IMMA tensor cores from sm_72 and with dp4a from sm_61): its
         * rules are 4-byte aligned matrices and leading dimensions, i.e. m, k, lda, ldb and ldc
         * multiples of 4 here. No capability bit of its own: cuBLAS present (BLAS_F32) and
         * sm_61+. */
        comp = CUBLAS_COMPUTE_32I;
        need_cap = GB_CAP_BLAS_F32;
        if (d->cc_major * 10 + d->cc_minor < 61)
            return GB_FAIL(GB_EUNSUPPORTED, "gemm: int8 needs sm_61+ (%s is %s)", d->pub.info.name,
                           d->pub.info.arch);
        if (g->m % 4 || g->k % 4 || g->lda % 4 || g->ldb % 4 || g->ldc % 4)
            return GB_FAIL(GB_EUNSUPPORTED,
                           "gemm: int8 needs m, k and the leading dimensions multiples of 4 "
                           "(cublasGemmEx's CUDA_R_8I rule): m=%llu k=%llu",
                           (unsigned long long)g->m, (unsigned long long)g->k);
    } else {
        return GB_FAIL(GB_EUNSUPPORTED, "gemm: %s in, %s out, %s compute", gb_dtype_name(a),
                       gb_dtype_name(c), gb_dtype_name(k));
    }
    if (!(caps & need_cap))
        return GB_FAIL(GB_EUNSUPPORTED, "gemm: %s in, %s out, %s compute%s on %s (%s)",
                       gb_dtype_name(a), gb_dtype_name(c), gb_dtype_name(k),
                       g->tf32 ? " (TF32)" : "", d->pub.info.name, d->pub.info.arch);
    /* cuBLAS's _64 entry points take int64_t sizes. */
    int rc = gb_gemm_check_shape(g, q->dev, gb__cuda_same, INT64_MAX, "INT64_MAX");
    if (rc)
        return rc;

    /* alpha and beta have the compute type's scalar type (F16 compute: half). */
    union {
        double f64;
        float f32;
        uint16_t f16;
        int32_t i32;
    } alpha, beta;
    if (comp == CUBLAS_COMPUTE_32I) {
        alpha.i32 = (int32_t)g->alpha;
        beta.i32 = (int32_t)g->beta;
    } else if (comp == CUBLAS_COMPUTE_64F) {
        alpha.f64 = g->alpha;
        beta.f64 = g->beta;
    } else if (comp == CUBLAS_COMPUTE_16F) {
        alpha.f16 = gb_cuda_f16_bits((float)g->alpha);
        beta.f16 = gb_cuda_f16_bits((float)g->beta);
    } else {
        alpha.f32 = (float)g->alpha;
        beta.f32 = (float)g->beta;
    }

    if ((rc = cu__blas_bind(q)))
        return rc;
    const cublasOperation_t ta = g->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = g->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    const void *A = gb__cuda_buf(g->a)->ptr, *B = gb__cuda_buf(g->b)->ptr;
    void *C = gb__cuda_buf(g->c)->ptr;
    const int64_t m64 = (int64_t)g->m, n64 = (int64_t)g->n, k64 = (int64_t)g->k;
    if (g->batch == 1)
        return BL(cublasGemmEx_64, d->blas, ta, tb, m64, n64, k64, &alpha, A, at, (int64_t)g->lda,
                  B, at, (int64_t)g->ldb, &beta, C, ct, (int64_t)g->ldc, comp, CUBLAS_GEMM_DEFAULT);
    return BL(cublasGemmStridedBatchedEx_64, d->blas, ta, tb, m64, n64, k64, &alpha, A, at,
              (int64_t)g->lda, (long long)g->stride_a, B, at, (int64_t)g->ldb,
              (long long)g->stride_b, &beta, C, ct, (int64_t)g->ldc, (long long)g->stride_c,
              (int64_t)g->batch, comp, CUBLAS_GEMM_DEFAULT);
}
#endif

/* ---- FP8 GEMM through cuBLASLt (gemm_fp8) ---------------------------------------------------
 *
 * cuBLASLt is dlopened by the first FP8 GEMM (cuda_libs.c; every entry point through dlsym).
 * The call follows the cuBLAS documentation's FP8 requirements for cublasLtMatmul: the "TN"
 * layout, CUBLAS_COMPUTE_32F with CUDA_R_32F scales, A and B scale pointers (device floats,
 * here 1.0f), 16-byte aligned dimensions (gb_gemm_fp8_check) and a workspace (32 MiB, cuBLAS's
 * recommendation for Hopper and newer). Fast accumulation stays off (CUBLASLT_MATMUL_DESC_
 * FAST_ACCUM 0, the default, written out): cuBLASLt then promotes the tensor cores' partial sums
 * to FP32 periodically, the FP32 accumulation the suite's tolerance assumes. Every status other
 * than success is GB_EBACKEND carrying cublasLtGetStatusName / cublasLtGetStatusString. */
#if HAVE_CUBLASLT
static int lt__fail(cublasStatus_t s, const char *file, int line, const char *call)
{
    cudaError_t e = cudaSuccess;
    if (s == CUBLAS_STATUS_EXECUTION_FAILED || s == CUBLAS_STATUS_INTERNAL_ERROR) {
        e = cudaGetLastError();
        if (e != cudaSuccess && gb_cuda_error_is_sticky((int)e))
            (void)gb__cuda_fail(e, GB_EBACKEND, file, line, call);
    }
    int err =
        gb_error_set(GB_EBACKEND, file, line, "%s: %s (%d): %s", call,
                     gb__lt.cublasLtGetStatusName(s), (int)s, gb__lt.cublasLtGetStatusString(s));
    if (e != cudaSuccess)
        err = gb_error_append(err, "underneath: %s (%d): %s", cudaGetErrorName(e), (int)e,
                              cudaGetErrorString(e));
    return err;
}
static inline int lt__check(cublasStatus_t s, const char *file, int line, const char *call)
{
    return s == CUBLAS_STATUS_SUCCESS ? 0 : lt__fail(s, file, line, call);
}
/* LT(cublasLtMatmul, ...): calls it through gb__lt; 0, or GB_EBACKEND with the status. */
#define LT(fn, ...) lt__check(gb__lt.fn(__VA_ARGS__), __FILE__, __LINE__, #fn)

static void cu__lt_plan_drop(struct gb__cuda_lt_plan *p)
{
    if (p->op)
        (void)gb__lt.cublasLtMatmulDescDestroy(p->op);
    if (p->la)
        (void)gb__lt.cublasLtMatrixLayoutDestroy(p->la);
    if (p->lb)
        (void)gb__lt.cublasLtMatrixLayoutDestroy(p->lb);
    if (p->lc)
        (void)gb__lt.cublasLtMatrixLayoutDestroy(p->lc);
    memset(p, 0, sizeof *p);
}

/* Frees d's cuBLASLt state (device_close); nothing when it was never set up. */
void gb__cuda_lt_release(struct gb__cuda_device *d)
{
    if (!d->lt && !d->lt_ws && !d->lt_one)
        return;
    if (gb__cuda_use(&d->pub) == 0) {
        cu__lt_plan_drop(&d->lt_plan);
        if (d->lt)
            (void)gb__lt.cublasLtDestroy(d->lt);
        if (d->lt_ws)
            (void)cudaFree(d->lt_ws);
        if (d->lt_one)
            (void)cudaFree(d->lt_one);
        (void)cudaGetLastError();
    }
    d->lt = NULL;
    d->lt_ws = NULL;
    d->lt_one = NULL;
}

/* The device handle's cuBLASLt state, set up by its first FP8 GEMM; the current device is d's.
 * GB_EUNSUPPORTED when cuBLASLt does not load (the case is a recorded skip with the reason). */
static int cu__lt_setup(struct gb__cuda_device *d)
{
    if (d->lt)
        return 0;
    int rc = gb__cuda_blaslt_load();
    if (rc)
        return rc;
    const size_t ws = 32u << 20;
    const float one = 1.0f;
    if ((rc = CU_ERR(GB_ENOMEM, cudaMalloc, &d->lt_ws, ws)) ||
        (rc = CU_ERR(GB_ENOMEM, cudaMalloc, (void **)&d->lt_one, sizeof one)) ||
        (rc = CU(cudaMemcpy, d->lt_one, &one, sizeof one, cudaMemcpyHostToDevice)) ||
        (rc = LT(cublasLtCreate, &d->lt))) {
        d->lt = NULL;
        gb__cuda_lt_release(d);
        return rc;
    }
    d->lt_ws_bytes = ws;
    memset(&d->lt_plan, 0, sizeof d->lt_plan);
    return 0;
}

static bool cu__fp8_type(enum gb_dtype t, cudaDataType *out)
{
    switch (t) {
    case GB_F8E4M3:
        *out = CUDA_R_8F_E4M3;
        return true;
    case GB_F8E5M2:
        *out = CUDA_R_8F_E5M2;
        return true;
    case GB_F32:
        *out = CUDA_R_32F;
        return true;
    case GB_F16:
        *out = CUDA_R_16F;
        return true;
    case GB_BF16:
        *out = CUDA_R_16BF;
        return true;
    default:
        return false;
    }
}

/* Whether the plan made for `key` serves g: the same types, layout and sizes. */
static bool cu__lt_same(const struct gb_gemm_fp8 *key, const struct gb_gemm_fp8 *g)
{
    return key->a_type == g->a_type && key->b_type == g->b_type && key->c_type == g->c_type &&
           key->trans_a == g->trans_a && key->trans_b == g->trans_b && key->m == g->m &&
           key->n == g->n && key->k == g->k && key->lda == g->lda && key->ldb == g->ldb &&
           key->ldc == g->ldc;
}

/* Builds d's plan for g (already checked by gb_gemm_fp8_check): the matmul descriptor, the three
 * layouts (C serves as D) and the heuristic's first algorithm within the workspace. On failure
 * d has no plan. */
static int cu__lt_plan(struct gb__cuda_device *d, const struct gb_gemm_fp8 *g)
{
    struct gb__cuda_lt_plan *p = &d->lt_plan;
    cu__lt_plan_drop(p);
    cudaDataType at = CUDA_R_8F_E4M3, bt = CUDA_R_8F_E4M3, ct = CUDA_R_32F;
    if (!cu__fp8_type(g->a_type, &at) || !cu__fp8_type(g->b_type, &bt) ||
        !cu__fp8_type(g->c_type, &ct))
        return GB_FAIL(GB_EUNSUPPORTED, "FP8 GEMM: %s x %s -> %s", gb_dtype_name(g->a_type),
                       gb_dtype_name(g->b_type), gb_dtype_name(g->c_type));
    const int32_t ta = g->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int32_t tb = g->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    const void *scale = d->lt_one;
    const int8_t fast = 0;
    const uint64_t ws = d->lt_ws_bytes;
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t res;
    int found = 0;
    memset(&res, 0, sizeof res);
    /* Stored shapes: op(A) is m x k, so A is k x m when transposed; B likewise. */
    int rc;
    if ((rc = LT(cublasLtMatmulDescCreate, &p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F)) ||
        (rc = LT(cublasLtMatmulDescSetAttribute, p->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
                 sizeof ta)) ||
        (rc = LT(cublasLtMatmulDescSetAttribute, p->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
                 sizeof tb)) ||
        (rc = LT(cublasLtMatmulDescSetAttribute, p->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                 &scale, sizeof scale)) ||
        (rc = LT(cublasLtMatmulDescSetAttribute, p->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                 &scale, sizeof scale)) ||
        (rc = LT(cublasLtMatmulDescSetAttribute, p->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast,
                 sizeof fast)) ||
        (rc = LT(cublasLtMatrixLayoutCreate, &p->la, at, g->trans_a ? g->k : g->m,
                 g->trans_a ? g->m : g->k, (int64_t)g->lda)) ||
        (rc = LT(cublasLtMatrixLayoutCreate, &p->lb, bt, g->trans_b ? g->n : g->k,
                 g->trans_b ? g->k : g->n, (int64_t)g->ldb)) ||
        (rc = LT(cublasLtMatrixLayoutCreate, &p->lc, ct, g->m, g->n, (int64_t)g->ldc)) ||
        (rc = LT(cublasLtMatmulPreferenceCreate, &pref)) ||
        (rc = LT(cublasLtMatmulPreferenceSetAttribute, pref,
                 CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws)) ||
        (rc = LT(cublasLtMatmulAlgoGetHeuristic, d->lt, p->op, p->la, p->lb, p->lc, p->lc, pref, 1,
                 &res, &found))) {
        if (pref)
            (void)gb__lt.cublasLtMatmulPreferenceDestroy(pref);
        cu__lt_plan_drop(p);
        return rc;
    }
    (void)gb__lt.cublasLtMatmulPreferenceDestroy(pref);
    if (found < 1 || res.state != CUBLAS_STATUS_SUCCESS) {
        const cublasStatus_t st = found < 1 ? CUBLAS_STATUS_NOT_SUPPORTED : res.state;
        cu__lt_plan_drop(p);
        return GB_FAIL(GB_EBACKEND,
                       "cublasLtMatmulAlgoGetHeuristic: no algorithm for %s x %s -> %s, "
                       "%llux%llux%llu TN within %llu bytes of workspace: %s (%d): %s",
                       gb_dtype_name(g->a_type), gb_dtype_name(g->b_type), gb_dtype_name(g->c_type),
                       (unsigned long long)g->m, (unsigned long long)g->n, (unsigned long long)g->k,
                       (unsigned long long)ws, gb__lt.cublasLtGetStatusName(st), (int)st,
                       gb__lt.cublasLtGetStatusString(st));
    }
    p->algo = res.algo;
    p->key = *g;
    p->key.a = p->key.b = p->key.c = NULL;
    p->valid = true;
    return 0;
}

int gb__cuda_gemm_fp8(struct gb_queue *q, const struct gb_gemm_fp8 *g)
{
    struct gb__cuda_device *d = gb__cuda_dev(q->dev);
    int rc = gb_gemm_fp8_check(g);
    if (rc)
        return rc;
    if (!(d->pub.info.caps & GB_CAP_BLAS_FP8))
        return GB_FAIL(GB_EUNSUPPORTED,
                       "FP8 GEMM needs cuBLASLt on CUDA sm_89+: %s is %s (compute capability "
                       "%d.%d)",
                       d->pub.info.name, d->pub.info.arch, d->cc_major, d->cc_minor);
    /* The buffers: gb_gemm_check_shape on the same matrices (A and B are 1-byte elements, the
     * size of either FP8 type), batch 1. */
    const struct gb_gemm shape = {.a_type = g->a_type,
                                  .c_type = g->c_type,
                                  .compute = GB_F32,
                                  .trans_a = g->trans_a,
                                  .trans_b = g->trans_b,
                                  .m = g->m,
                                  .n = g->n,
                                  .k = g->k,
                                  .a = g->a,
                                  .b = g->b,
                                  .c = g->c,
                                  .lda = g->lda,
                                  .ldb = g->ldb,
                                  .ldc = g->ldc,
                                  .batch = 1};
    if ((rc = gb_gemm_check_shape(&shape, q->dev, gb__cuda_same, INT64_MAX, "INT64_MAX")))
        return rc;
    if ((rc = gb__cuda_use(q->dev)) || (rc = cu__lt_setup(d)))
        return rc;
    if (!d->lt_plan.valid || !cu__lt_same(&d->lt_plan.key, g)) {
        if ((rc = cu__lt_plan(d, g)))
            return rc;
    }
    const float alpha = 1.0f, beta = 0.0f;
    void *C = gb__cuda_buf(g->c)->ptr;
    const struct gb__cuda_lt_plan *p = &d->lt_plan;
    return LT(cublasLtMatmul, d->lt, p->op, &alpha, gb__cuda_buf(g->a)->ptr, p->la,
              gb__cuda_buf(g->b)->ptr, p->lb, &beta, C, p->lc, C, p->lc, &p->algo, d->lt_ws,
              d->lt_ws_bytes, gb__cuda_queue(q)->stream);
}
#endif
