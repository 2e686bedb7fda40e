/* gpubench — the OpenCL backend's BLAS and convolution through CLBlast's C API: gemm, gemv and
 * conv (CLBlast's convgemm). Built only with CLBlast (HAVE_CLBLAST); opencl_private.h's
 * introduction says how the calls are timed and when they are serialised. */
#include "opencl_private.h"

#if HAVE_CLBLAST
#include <clblast_c.h>
#endif

/* ---- BLAS (CLBlast) ------------------------------------------------------------------------ */

#if HAVE_CLBLAST
/* CLBlast's own status codes. Codes from -1 to -72 are OpenCL's and are named by
 * gb__ocl_err_name(). */
#define OCL__CLBLAST_ERRORS(X)                \
    X(CLBlastNotImplemented, -1024)           \
    X(CLBlastInvalidMatrixA, -1022)           \
    X(CLBlastInvalidMatrixB, -1021)           \
    X(CLBlastInvalidMatrixC, -1020)           \
    X(CLBlastInvalidVectorX, -1019)           \
    X(CLBlastInvalidVectorY, -1018)           \
    X(CLBlastInvalidDimension, -1017)         \
    X(CLBlastInvalidLeadDimA, -1016)          \
    X(CLBlastInvalidLeadDimB, -1015)          \
    X(CLBlastInvalidLeadDimC, -1014)          \
    X(CLBlastInvalidIncrementX, -1013)        \
    X(CLBlastInvalidIncrementY, -1012)        \
    X(CLBlastInsufficientMemoryA, -1011)      \
    X(CLBlastInsufficientMemoryB, -1010)      \
    X(CLBlastInsufficientMemoryC, -1009)      \
    X(CLBlastInsufficientMemoryX, -1008)      \
    X(CLBlastInsufficientMemoryY, -1007)      \
    X(CLBlastInsufficientMemoryTemp, -2050)   \
    X(CLBlastInvalidBatchCount, -2049)        \
    X(CLBlastInvalidOverrideKernel, -2048)    \
    X(CLBlastMissingOverrideParameter, -2047) \
    X(CLBlastInvalidLocalMemUsage, -2046)     \
    X(CLBlastNoHalfPrecision, -2045)          \
    X(CLBlastNoDoublePrecision, -2044)        \
    X(CLBlastInvalidVectorScalar, -2043)      \
    X(CLBlastInsufficientMemoryScalar, -2042) \
    X(CLBlastDatabaseError, -2041)            \
    X(CLBlastUnknownError, -2040)             \
    X(CLBlastUnexpectedError, -2039)

/* The symbolic name of a CLBlast status: its own codes, else the OpenCL code it passed on. */
static const char *ocl__clblast_name(CLBlastStatusCode code)
{
    switch ((int)code) {
#define OCL__CLBLAST_CASE(name, val) \
    case (val):                      \
        return #name;
        OCL__CLBLAST_ERRORS(OCL__CLBLAST_CASE)
#undef OCL__CLBLAST_CASE
    }
    return gb__ocl_err_name((cl_int)code);
}

/* Reports a failed CLBlast call at file:line as the gb_err its status means: a precision the
 * device lacks or a routine CLBlast lacks is GB_EUNSUPPORTED, a temporary buffer it could not
 * allocate GB_ENOMEM, an argument it rejects GB_EINVAL, anything else GB_EBACKEND. */
static int ocl__clblast_fail(CLBlastStatusCode code, const char *call, const char *file, int line)
{
    int err;
    switch ((int)code) {
    case CLBlastNoHalfPrecision:
    case CLBlastNoDoublePrecision:
    case CLBlastNotImplemented:
        err = GB_EUNSUPPORTED;
        break;
    case CLBlastTempBufferAllocFailure:
    case CLBlastOpenCLOutOfResources:
    case CLBlastOpenCLOutOfHostMemory:
        err = GB_ENOMEM;
        break;
    case CLBlastInvalidDimension:
    case CLBlastInvalidLeadDimA:
    case CLBlastInvalidLeadDimB:
    case CLBlastInvalidLeadDimC:
    case CLBlastInsufficientMemoryA:
    case CLBlastInsufficientMemoryB:
    case CLBlastInsufficientMemoryC:
    case CLBlastInvalidBatchCount:
    case CLBlastInvalidVectorX:
    case CLBlastInvalidVectorY:
    case CLBlastInvalidIncrementX:
    case CLBlastInvalidIncrementY:
    case CLBlastInsufficientMemoryX:
    case CLBlastInsufficientMemoryY:
    case CLBlastInvalidValue:
        err = GB_EINVAL;
        break;
    default:
        err = GB_EBACKEND;
        break;
    }
    return gb_error_set(err, file, line, "%s: %s (%d)", call, ocl__clblast_name(code), (int)code);
}

static int ocl__clblast_check(CLBlastStatusCode code, const char *call, const char *file, int line)
{
    return code == CLBlastSuccess ? 0 : ocl__clblast_fail(code, call, file, line);
}

/* CLBLAST_CALL(CLBlastSgemm, (...)): call a CLBlast routine and report its failure. */
#define CLBLAST_CALL(fn, args) ocl__clblast_check(fn args, #fn, __FILE__, __LINE__)

/* IEEE 754 binary16 bits of f, rounded to nearest even (CLBlast takes Hgemm's alpha and beta
 * as cl_half bits). Overflow gives infinity; NaN stays NaN. */
static cl_half ocl__f16_bits(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    const uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t mag = x & 0x7fffffffu;
    if (mag > 0x7f800000u) /* NaN: keep it quiet and non-zero */
        return (cl_half)(sign | 0x7e00u);
    if (mag >= 0x477ff000u) /* rounds to above 65504: infinity */
        return (cl_half)(sign | 0x7c00u);
    if (mag < 0x38800000u) {   /* below 2^-14: a subnormal half (or zero) */
        if (mag < 0x33000000u) /* below half the smallest subnormal: zero */
            return (cl_half)sign;
        const uint32_t exp = mag >> 23, mant = (mag & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - exp; /* 14..24: mantissa bits below the half's LSB + 13 */
        uint32_t h = mant >> shift;
        const uint32_t rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (h & 1)))
            h++;
        return (cl_half)(sign | h);
    }
    /* Normal: rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits. */
    uint32_t h = ((mag - 0x38000000u) >> 13);
    const uint32_t rem = mag & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
        h++; /* may carry into the exponent, which is the correct rounding */
    return (cl_half)(sign | h);
}

/* The OpenCL notion of one device for gb_gemm_check_shape: the same handle, since each
 * device_open has its own context and a buffer of another context cannot be used here. */
static bool ocl__same_device(const struct gb_device *a, const struct gb_device *b)
{
    return a == b;
}

/* CLBlast enqueues one or more kernels on the queue (for some shapes it pads or transposes A, B
 * and C before and after the GEMM kernel), and the event it could return covers only the last of
 * them. So no event is asked for: the harness brackets the call with event_record() markers on
 * the same in-order queue, and a marker completes only after every command enqueued before it. */
/* The CLBlast call proper, for gb__ocl_gemm (which has checked g). */
static int ocl__clblast_gemm(struct gb_queue *queue, const struct gb_gemm *g)
{
    const enum gb_dtype a = g->a_type;
    cl_command_queue *cq = &gb__ocl_queue(queue)->q;
    const cl_mem A = gb__ocl_buf(g->a)->mem, B = gb__ocl_buf(g->b)->mem;
    cl_mem C = gb__ocl_buf(g->c)->mem;
    const CLBlastLayout lay = CLBlastLayoutColMajor;
    const CLBlastTranspose ta = g->trans_a ? CLBlastTransposeYes : CLBlastTransposeNo;
    const CLBlastTranspose tb = g->trans_b ? CLBlastTransposeYes : CLBlastTransposeNo;
    const size_t m = (size_t)g->m, n = (size_t)g->n, kk = (size_t)g->k;
    const size_t lda = (size_t)g->lda, ldb = (size_t)g->ldb, ldc = (size_t)g->ldc;
    const size_t sa = (size_t)g->stride_a, sb = (size_t)g->stride_b, sc = (size_t)g->stride_c;
    const size_t nb = (size_t)g->batch;
    if (a == GB_F32) {
        const float al = (float)g->alpha, be = (float)g->beta;
        if (nb == 1)
            return CLBLAST_CALL(CLBlastSgemm, (lay, ta, tb, m, n, kk, al, A, 0, lda, B, 0, ldb, be,
                                               C, 0, ldc, cq, NULL));
        return CLBLAST_CALL(CLBlastSgemmStridedBatched,
                            (lay, ta, tb, m, n, kk, al, A, 0, lda, sa, B, 0, ldb, sb, be, C, 0, ldc,
                             sc, nb, cq, NULL));
    }
    if (a == GB_F64) {
        if (nb == 1)
            return CLBLAST_CALL(CLBlastDgemm, (lay, ta, tb, m, n, kk, g->alpha, A, 0, lda, B, 0,
                                               ldb, g->beta, C, 0, ldc, cq, NULL));
        return CLBLAST_CALL(CLBlastDgemmStridedBatched,
                            (lay, ta, tb, m, n, kk, g->alpha, A, 0, lda, sa, B, 0, ldb, sb, g->beta,
                             C, 0, ldc, sc, nb, cq, NULL));
    }
    const cl_half al = ocl__f16_bits((float)g->alpha), be = ocl__f16_bits((float)g->beta);
    if (nb == 1)
        return CLBLAST_CALL(CLBlastHgemm, (lay, ta, tb, m, n, kk, al, A, 0, lda, B, 0, ldb, be, C,
                                           0, ldc, cq, NULL));
    return CLBLAST_CALL(CLBlastHgemmStridedBatched, (lay, ta, tb, m, n, kk, al, A, 0, lda, sa, B, 0,
                                                     ldb, sb, be, C, 0, ldc, sc, nb, cq, NULL));
}

/* CLBlast is not safe to call from several threads at once, even on different devices and
 * contexts: its shared caches of compiled programs and tuning parameters are not locked
 * (CLBlast issue #486 - the heap corrupts). The contract lets different devices be driven from
 * different threads, so calls are serialised here when they can race: only while more than one
 * device handle is open (gb__ocl_open_devices). With one handle open, the contract's one host
 * thread per device means one thread calls CLBlast, and the call takes no lock at all: nothing of
 * gpubench's own sits between the caller and CLBlast but the type and shape checks. Devices are
 * opened and closed by the runner between cases, never while a GEMM is being enqueued, so the
 * count does not change under a call. Only the enqueue is serialised: the devices still compute
 * at the same time. */
static pthread_mutex_t ocl__clblast_lock = PTHREAD_MUTEX_INITIALIZER;

int gb__ocl_gemm(struct gb_queue *queue, const struct gb_gemm *g)
{
    struct ocl_device *d = gb__ocl_dev(queue->dev);
    const enum gb_dtype a = g->a_type, c = g->c_type, k = g->compute;
    uint64_t need_cap;
    if (a == GB_F64 && c == GB_F64 && k == GB_F64)
        need_cap = GB_CAP_BLAS_F64;
    else if (a == GB_F32 && c == GB_F32 && k == GB_F32 && !g->tf32)
        need_cap = GB_CAP_BLAS_F32;
    else if (a == GB_F16 && c == GB_F16 && k == GB_F16)
        need_cap = GB_CAP_BLAS_F16;
    else
        return GB_FAIL(GB_EUNSUPPORTED,
                       "gemm: %s in, %s out, %s compute%s: CLBlast has only Sgemm, Dgemm and "
                       "Hgemm (no mixed-precision, bfloat16, TF32 or int8 GEMM)",
                       gb_dtype_name(a), gb_dtype_name(c), gb_dtype_name(k),
                       g->tf32 ? " (TF32)" : "");
    if (!(d->pub.info.caps & need_cap))
        return GB_FAIL(GB_EUNSUPPORTED, "gemm: %s on %s: the device has no %s", gb_dtype_name(a),
                       d->pub.info.name,
                       a == GB_F16 ? "half precision (cl_khr_fp16)" : "double precision (fp64)");
    /* CLBlast takes size_t sizes. */
    int rc = gb_gemm_check_shape(g, queue->dev, ocl__same_device, SIZE_MAX, "SIZE_MAX");
    if (rc)
        return rc;

    if (atomic_load_explicit(&gb__ocl_open_devices, memory_order_acquire) <= 1)
        return ocl__clblast_gemm(queue, g);
    pthread_mutex_lock(&ocl__clblast_lock);
    rc = ocl__clblast_gemm(queue, g);
    pthread_mutex_unlock(&ocl__clblast_lock);
    return rc;
}

/* The CLBlast call proper, for gb__ocl_gemv (which has checked g): Xgemv, column-major, x and y
 * contiguous (increment 1). No event, as for gemm. */
static int ocl__clblast_gemv(struct gb_queue *queue, const struct gb_gemm *g)
{
    cl_command_queue *cq = &gb__ocl_queue(queue)->q;
    const cl_mem A = gb__ocl_buf(g->a)->mem, X = gb__ocl_buf(g->b)->mem;
    cl_mem Y = gb__ocl_buf(g->c)->mem;
    const CLBlastLayout lay = CLBlastLayoutColMajor;
    const CLBlastTranspose ta = g->trans_a ? CLBlastTransposeYes : CLBlastTransposeNo;
    /* Xgemv's m and n are the stored A's rows and columns. */
    const size_t rows = (size_t)(g->trans_a ? g->k : g->m),
                 cols = (size_t)(g->trans_a ? g->m : g->k);
    const size_t lda = (size_t)g->lda;
    /* BLAS leaves y unread when beta is 0; CLBlast's Xgemv computes beta y all the same, so a
     * NaN in y would stay NaN: y is zeroed first (one fill of m elements, in the call's time). */
    if (g->beta == 0) {
        const uint64_t zero = 0;
        const size_t es = gb_dtype_size(g->c_type);
        int rc =
            OCL_CALL(clEnqueueFillBuffer, (*cq, Y, &zero, es, 0, es * (size_t)g->m, 0, NULL, NULL));
        if (rc)
            return rc;
    }
    if (g->a_type == GB_F32)
        return CLBLAST_CALL(CLBlastSgemv, (lay, ta, rows, cols, (float)g->alpha, A, 0, lda, X, 0, 1,
                                           (float)g->beta, Y, 0, 1, cq, NULL));
    if (g->a_type == GB_F64)
        return CLBLAST_CALL(CLBlastDgemv, (lay, ta, rows, cols, g->alpha, A, 0, lda, X, 0, 1,
                                           g->beta, Y, 0, 1, cq, NULL));
    return CLBLAST_CALL(CLBlastHgemv,
                        (lay, ta, rows, cols, ocl__f16_bits((float)g->alpha), A, 0, lda, X, 0, 1,
                         ocl__f16_bits((float)g->beta), Y, 0, 1, cq, NULL));
}

int gb__ocl_gemv(struct gb_queue *queue, const struct gb_gemm *g)
{
    struct ocl_device *d = gb__ocl_dev(queue->dev);
    const enum gb_dtype a = g->a_type;
    const uint64_t need_cap = a == GB_F32   ? GB_CAP_BLAS_F32
                              : a == GB_F64 ? GB_CAP_BLAS_F64
                              : a == GB_F16 ? GB_CAP_BLAS_F16
                                            : 0;
    if (!need_cap || g->tf32)
        return GB_FAIL(GB_EUNSUPPORTED, "gemv: %s%s: CLBlast has only Sgemv, Dgemv and Hgemv",
                       gb_dtype_name(a), g->tf32 ? " (TF32)" : "");
    if (!(d->pub.info.caps & need_cap))
        return GB_FAIL(GB_EUNSUPPORTED, "gemv: %s on %s: the device has no %s", gb_dtype_name(a),
                       d->pub.info.name,
                       a == GB_F16 ? "half precision (cl_khr_fp16)" : "double precision (fp64)");
    int rc = gb_gemv_check_shape(g, queue->dev, ocl__same_device, SIZE_MAX, "SIZE_MAX");
    if (rc)
        return rc;
    if (atomic_load_explicit(&gb__ocl_open_devices, memory_order_acquire) <= 1)
        return ocl__clblast_gemv(queue, g);
    pthread_mutex_lock(&ocl__clblast_lock);
    rc = ocl__clblast_gemv(queue, g);
    pthread_mutex_unlock(&ocl__clblast_lock);
    return rc;
}

/* ---- convolution: CLBlast's convgemm ---------------------------------------------------------
 *
 * CLBlast's Xconvgemm (1.5: S, D, H) is a forward 2-D convolution of a batch of NCHW images by a
 * KCRS filter into an NKPQ output, in cross-correlation mode (CLBlastKernelModeCrossCorrelation,
 * what frameworks call convolution), with padding, strides and dilations; it has no groups, no
 * NHWC, no backward passes and no algorithm choice (it im2cols into a buffer of its own, or runs
 * its single-kernel variant, by its own database). Those combinations are GB_EUNSUPPORTED. As for
 * gemm no event is asked for: the markers around the call cover every kernel it enqueues. */

struct ocl_conv_plan {
    struct gb_conv_plan pub;
    struct gb_conv c;
};

static int ocl__clblast_conv(struct ocl_conv_plan *p)
{
    const struct gb_conv_shape *h = &p->c.sh;
    cl_command_queue *cq = &gb__ocl_queue(p->pub.q)->q;
    const cl_mem X = gb__ocl_buf(p->c.x)->mem, W = gb__ocl_buf(p->c.w)->mem;
    cl_mem Y = gb__ocl_buf(p->c.y)->mem;
    const CLBlastKernelMode mode = CLBlastKernelModeCrossCorrelation;
#define OCL__CONV_ARGS                                                                             \
    (mode, (size_t)h->c, (size_t)h->h, (size_t)h->w, (size_t)h->r, (size_t)h->s, (size_t)h->pad_h, \
     (size_t)h->pad_w, (size_t)h->stride_h, (size_t)h->stride_w, (size_t)h->dil_h,                 \
     (size_t)h->dil_w, (size_t)h->k, (size_t)h->n, X, 0, W, 0, Y, 0, cq, NULL)
    switch (p->c.type) {
    case GB_F32:
        return CLBLAST_CALL(CLBlastSconvgemm, OCL__CONV_ARGS);
    case GB_F64:
        return CLBLAST_CALL(CLBlastDconvgemm, OCL__CONV_ARGS);
    default:
        return CLBLAST_CALL(CLBlastHconvgemm, OCL__CONV_ARGS);
    }
#undef OCL__CONV_ARGS
}

int gb__ocl_conv_run(struct gb_conv_plan *pub)
{
    struct ocl_conv_plan *p = (struct ocl_conv_plan *)pub;
    if (atomic_load_explicit(&gb__ocl_open_devices, memory_order_acquire) <= 1)
        return ocl__clblast_conv(p);
    pthread_mutex_lock(&ocl__clblast_lock);
    const int rc = ocl__clblast_conv(p);
    pthread_mutex_unlock(&ocl__clblast_lock);
    return rc;
}

void gb__ocl_conv_plan_free(struct gb_conv_plan *p)
{
    free(p);
}

int gb__ocl_conv_plan(struct gb_queue *queue, const struct gb_conv *c, struct gb_conv_plan **out)
{
    *out = NULL;
    const struct gb_device_info *info = &queue->dev->info;
    const char *what = c->dir != GB_CONV_FWD           ? "backward passes"
                       : c->layout != GB_LAYOUT_NCHW   ? "NHWC layout"
                       : c->sh.groups != 1             ? "grouped or depthwise convolution"
                       : c->tf32 || c->type == GB_BF16 ? "TF32 or bfloat16"
                       : c->type == GB_I8              ? "int8"
                                                       : NULL;
    if (what)
        return GB_FAIL(GB_EUNSUPPORTED,
                       "conv: CLBlast's convgemm has no %s (only the forward pass, NCHW, one "
                       "group, in f32, f64 and f16)",
                       what);
    if ((c->type == GB_F16 && !(info->caps & GB_CAP_FP16)) ||
        (c->type == GB_F64 && !(info->caps & GB_CAP_FP64)))
        return GB_FAIL(GB_EUNSUPPORTED, "conv: %s on %s: the device has no %s",
                       gb_dtype_name(c->type), info->name,
                       c->type == GB_F16 ? "half precision (cl_khr_fp16)" : "double precision");
    if (c->type != GB_F32 && c->type != GB_F64 && c->type != GB_F16)
        return GB_FAIL(GB_EUNSUPPORTED, "conv: CLBlast's convgemm has no %s",
                       gb_dtype_name(c->type));
    uint64_t pp, qq, nx, nw, ny;
    int rc = gb_conv_out_dims(&c->sh, &pp, &qq);
    if (rc)
        return rc;
    gb_conv_sizes(&c->sh, &nx, &nw, &ny);
    const struct {
        const char *name;
        const struct gb_buf *b;
        uint64_t n;
    } ops[] = {{"x", c->x, nx}, {"w", c->w, nw}, {"y", c->y, ny}};
    for (size_t i = 0; i < 3; i++)
        if (!ops[i].b || ops[i].b->kind != GB_MEM_DEVICE || ops[i].b->dev != queue->dev ||
            ops[i].b->bytes / gb_dtype_size(c->type) < ops[i].n)
            return GB_FAIL(GB_EINVAL,
                           "conv: %s is not a device buffer of this device holding %llu "
                           "elements",
                           ops[i].name, (unsigned long long)ops[i].n);
    struct ocl_conv_plan *p = calloc(1, sizeof *p);
    if (!p)
        return GB_FAIL(GB_ENOMEM, "conv plan");
    p->pub.q = queue;
    p->c = *c;
    snprintf(p->pub.algo, sizeof p->pub.algo, "CLBlast %cconvgemm",
             c->type == GB_F32   ? 'S'
             : c->type == GB_F64 ? 'D'
                                 : 'H');
    *out = &p->pub;
    return 0;
}
#endif
