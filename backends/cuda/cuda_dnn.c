/* gpubench — the CUDA backend's convolution through cuDNN (conv_plan, conv_run, conv_plan_free).
 *
 * cuDNN is dlopened by the first library convolution (cuda_libs.c, every entry point through
 * dlsym), like cuBLAS, so a binary built here starts where it is absent. The calls are cuDNN 9's
 * legacy convolution API (cudnn_cnn.h): descriptors for x, w, y and the convolution, then
 * cudnnFind*AlgorithmEx, which runs every algorithm the library has for the problem on the
 * device's real buffers and returns them fastest first. The plan keeps the fastest that
 * succeeded with the math the precision allows (f32: CUDNN_FMA_MATH, no TF32; tf32, f16, bf16,
 * int8: CUDNN_TENSOR_OP_MATH, tensor cores) and the workspace it was searched with, so the timed
 * region runs one cudnnConvolution* call. The search happens in conv_plan, called by the suite's
 * setup, outside the timed region; it writes the output buffer, which the suite poisons before
 * the timed runs.
 *
 * Types (cuDNN Developer Guide, "Supported data types" of cudnnConvolutionForward and the two
 * backward calls): f32 FLOAT_CONFIG (x, w, y float, compute float); f16 PSEUDO_HALF_CONFIG (half
 * data, float compute); bf16 PSEUDO_BFLOAT16_CONFIG; int8 INT8_EXT_CONFIG (x and w int8, y float,
 * compute int32, NHWC only, C and K multiples of 4, forward only). Other combinations are
 * GB_EUNSUPPORTED before anything is allocated. The workspace of the search is 256 MiB, halved
 * while cudaMalloc refuses; an algorithm needing more is not among the candidates, and the
 * workspace recorded is what the chosen one needs (perf.memory).
 *
 * This file is compiled and linked on machines without a GPU; what it says of cuDNN's behaviour
 * is from the documentation until a lease runs scripts/gpu-check.sh.
 */
#include "gb-config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_libs.h"
#include "base/error.h"

#if HAVE_CUDNN

struct cu_conv_plan {
    struct gb_conv_plan pub;
    struct gb_conv c;
    cudnnHandle_t h;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    void *ws;
    size_t ws_bytes; /* allocated */
    size_t ws_used;  /* what the chosen algorithm needs */
    int algo;        /* the direction's algorithm enum */
    void *x, *w, *y;
};

static int dnn__fail(cudnnStatus_t st, const char *file, int line, const char *call)
{
    const int err = st == CUDNN_STATUS_NOT_SUPPORTED || st == CUDNN_STATUS_BAD_PARAM
                        ? GB_EUNSUPPORTED
                    : st == CUDNN_STATUS_ALLOC_FAILED ? GB_ENOMEM
                                                      : GB_EBACKEND;
    return gb_error_set(err, file, line, "%s: cuDNN status %d: %s", call, (int)st,
                        gb__dnn.cudnnGetErrorString(st));
}

static inline int dnn__check(cudnnStatus_t st, const char *file, int line, const char *call)
{
    return st == CUDNN_STATUS_SUCCESS ? 0 : dnn__fail(st, file, line, call);
}

/* DNN(cudnnCreate, &h): calls it through gb__dnn (cuDNN must be loaded). */
#define DNN(fn, ...) dnn__check(gb__dnn.fn(__VA_ARGS__), __FILE__, __LINE__, #fn)

/* The names cuDNN's headers give its algorithms (cudnn_ops.h), without the common prefix. */
static const char *const fwd_names[] = {
    "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
    "WINOGRAD",      "WINOGRAD_NONFUSED"};
static const char *const bwd_data_names[] = {"ALGO_0",     "ALGO_1",   "FFT",
                                             "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
static const char *const bwd_filter_names[] = {
    "ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};

static const char *algo_name(enum gb_conv_dir d, int a)
{
    const char *const *v = d == GB_CONV_FWD        ? fwd_names
                           : d == GB_CONV_BWD_DATA ? bwd_data_names
                                                   : bwd_filter_names;
    const int n = d == GB_CONV_FWD ? (int)(sizeof fwd_names / sizeof *fwd_names)
                  : d == GB_CONV_BWD_DATA
                      ? (int)(sizeof bwd_data_names / sizeof *bwd_data_names)
                      : (int)(sizeof bwd_filter_names / sizeof *bwd_filter_names);
    return a >= 0 && a < n ? v[a] : "unknown";
}

/* FFT and Winograd transform the operands; their rounding error is normwise, not per element. */
static bool algo_transform(const char *name)
{
    return strstr(name, "FFT") || strstr(name, "WINOGRAD");
}

void gb__cuda_dnn_free(struct gb_conv_plan *pub)
{
    if (!pub)
        return;
    struct cu_conv_plan *p = (struct cu_conv_plan *)pub;
    if (p->xd)
        (void)gb__dnn.cudnnDestroyTensorDescriptor(p->xd);
    if (p->yd)
        (void)gb__dnn.cudnnDestroyTensorDescriptor(p->yd);
    if (p->wd)
        (void)gb__dnn.cudnnDestroyFilterDescriptor(p->wd);
    if (p->cd)
        (void)gb__dnn.cudnnDestroyConvolutionDescriptor(p->cd);
    if (p->h)
        (void)gb__dnn.cudnnDestroy(p->h);
    if (p->ws)
        (void)cudaFree(p->ws);
    free(p);
}

/* The configuration of c's types, or GB_EUNSUPPORTED naming what cuDNN lacks. */
static int dnn_types(const struct gb_conv *c, cudnnDataType_t *xt, cudnnDataType_t *yt,
                     cudnnDataType_t *comp, cudnnMathType_t *math)
{
    *math = CUDNN_TENSOR_OP_MATH;
    *comp = CUDNN_DATA_FLOAT;
    switch (c->type) {
    case GB_F32:
        *xt = *yt = CUDNN_DATA_FLOAT;
        *math = c->tf32 ? CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION : CUDNN_FMA_MATH;
        return 0;
    case GB_F16:
        *xt = *yt = CUDNN_DATA_HALF;
        return 0;
    case GB_BF16:
        *xt = *yt = CUDNN_DATA_BFLOAT16;
        return 0;
    case GB_I8:
        if (c->dir != GB_CONV_FWD || c->layout != GB_LAYOUT_NHWC || c->sh.c % 4 || c->sh.k % 4 ||
            c->sh.groups != 1)
            return GB_FAIL(GB_EUNSUPPORTED,
                           "conv: cuDNN's int8 convolution (INT8_EXT_CONFIG) is forward only, "
                           "NHWC, one group, C and K multiples of 4");
        *xt = CUDNN_DATA_INT8;
        *yt = CUDNN_DATA_FLOAT;
        *comp = CUDNN_DATA_INT32;
        return 0;
    default:
        return GB_FAIL(GB_EUNSUPPORTED, "conv: cuDNN has no %s convolution here",
                       gb_dtype_name(c->type));
    }
}

/* Whether a search result's math is what the precision allows (f32: no tensor-op math). */
static bool math_ok(const struct gb_conv *c, cudnnMathType_t m)
{
    return c->type != GB_F32 || c->tf32 || m == CUDNN_FMA_MATH || m == CUDNN_DEFAULT_MATH;
}

/* Runs cuDNN's search for c's direction and keeps the fastest usable result in p. */
static int dnn_search(struct cu_conv_plan *p)
{
    const struct gb_conv *c = &p->c;
    int got = 0, rc;
    p->algo = -1;
    if (c->dir == GB_CONV_FWD) {
        cudnnConvolutionFwdAlgoPerf_t r[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        if ((rc = DNN(cudnnFindConvolutionForwardAlgorithmEx, p->h, p->xd, p->x, p->wd, p->w, p->cd,
                      p->yd, p->y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, r, p->ws, p->ws_bytes)))
            return rc;
        for (int i = 0; i < got && p->algo < 0; i++)
            if (r[i].status == CUDNN_STATUS_SUCCESS && math_ok(c, r[i].mathType))
                p->algo = (int)r[i].algo, p->ws_used = r[i].memory;
    } else if (c->dir == GB_CONV_BWD_DATA) {
        cudnnConvolutionBwdDataAlgoPerf_t r[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        if ((rc = DNN(cudnnFindConvolutionBackwardDataAlgorithmEx, p->h, p->wd, p->w, p->yd, p->y,
                      p->cd, p->xd, p->x, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, r, p->ws,
                      p->ws_bytes)))
            return rc;
        for (int i = 0; i < got && p->algo < 0; i++)
            if (r[i].status == CUDNN_STATUS_SUCCESS && math_ok(c, r[i].mathType))
                p->algo = (int)r[i].algo, p->ws_used = r[i].memory;
    } else {
        cudnnConvolutionBwdFilterAlgoPerf_t r[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        if ((rc = DNN(cudnnFindConvolutionBackwardFilterAlgorithmEx, p->h, p->xd, p->x, p->yd, p->y,
                      p->cd, p->wd, p->w, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, r, p->ws,
                      p->ws_bytes)))
            return rc;
        for (int i = 0; i < got && p->algo < 0; i++)
            if (r[i].status == CUDNN_STATUS_SUCCESS && math_ok(c, r[i].mathType))
                p->algo = (int)r[i].algo, p->ws_used = r[i].memory;
    }
    if (p->algo < 0)
        return GB_FAIL(GB_EUNSUPPORTED,
                       "conv: cuDNN's search found no algorithm for this problem (%d tried, "
                       "workspace %zu bytes)",
                       got, p->ws_bytes);
    return 0;
}

int gb__cuda_dnn_plan(struct gb_queue *q, cudaStream_t stream, void *x, void *w, void *y,
                      const struct gb_conv *c, struct gb_conv_plan **out)
{
    *out = NULL;
    uint64_t pp, qq, nx, nw, ny;
    int rc = gb_conv_out_dims(&c->sh, &pp, &qq);
    if (rc)
        return rc;
    const struct gb_conv_shape *sh = &c->sh;
    /* cuDNN's 4-d descriptors take int dimensions. */
    if (sh->n > INT32_MAX || sh->c > INT32_MAX || sh->h > INT32_MAX || sh->w > INT32_MAX ||
        sh->k > INT32_MAX || pp > INT32_MAX || qq > INT32_MAX)
        return GB_FAIL(GB_ETOOBIG, "conv: a dimension above INT32_MAX (cuDNN's descriptors)");
    cudnnDataType_t xt = CUDNN_DATA_FLOAT, yt = CUDNN_DATA_FLOAT, comp = CUDNN_DATA_FLOAT;
    cudnnMathType_t math;
    if ((rc = dnn_types(c, &xt, &yt, &comp, &math)))
        return rc;
    gb_conv_sizes(sh, &nx, &nw, &ny);
    const size_t xs = gb_dtype_size(c->type), ys = c->type == GB_I8 ? 4 : xs;
    const struct {
        const char *name;
        const struct gb_buf *b;
        uint64_t bytes;
    } ops[] = {{"x", c->x, nx * xs}, {"w", c->w, nw * xs}, {"y", c->y, ny * ys}};
    for (size_t i = 0; i < 3; i++)
        if (ops[i].b->bytes < ops[i].bytes)
            return GB_FAIL(GB_EINVAL, "conv: %s holds %llu bytes, the shape needs %llu",
                           ops[i].name, (unsigned long long)ops[i].b->bytes,
                           (unsigned long long)ops[i].bytes);
    if ((rc = gb__cuda_dnn_load()))
        return rc;

    struct cu_conv_plan *p = calloc(1, sizeof *p);
    if (!p)
        return GB_FAIL(GB_ENOMEM, "conv plan");
    p->pub.q = q;
    p->c = *c;
    p->x = x;
    p->w = w;
    p->y = y;
    const cudnnTensorFormat_t fmt =
        c->layout == GB_LAYOUT_NHWC ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    const int g = (int)sh->groups;
    if ((rc = DNN(cudnnCreate, &p->h)) || (rc = DNN(cudnnSetStream, p->h, stream)) ||
        (rc = DNN(cudnnCreateTensorDescriptor, &p->xd)) ||
        (rc = DNN(cudnnCreateTensorDescriptor, &p->yd)) ||
        (rc = DNN(cudnnCreateFilterDescriptor, &p->wd)) ||
        (rc = DNN(cudnnCreateConvolutionDescriptor, &p->cd)) ||
        (rc = DNN(cudnnSetTensor4dDescriptor, p->xd, fmt, xt, (int)sh->n, (int)sh->c, (int)sh->h,
                  (int)sh->w)) ||
        (rc = DNN(cudnnSetTensor4dDescriptor, p->yd, fmt, yt, (int)sh->n, (int)sh->k, (int)pp,
                  (int)qq)) ||
        (rc = DNN(cudnnSetFilter4dDescriptor, p->wd, xt, fmt, (int)sh->k, (int)(sh->c / sh->groups),
                  (int)sh->r, (int)sh->s)) ||
        (rc = DNN(cudnnSetConvolution2dDescriptor, p->cd, (int)sh->pad_h, (int)sh->pad_w,
                  (int)sh->stride_h, (int)sh->stride_w, (int)sh->dil_h, (int)sh->dil_w,
                  CUDNN_CROSS_CORRELATION, comp)) ||
        (rc = DNN(cudnnSetConvolutionGroupCount, p->cd, g)) ||
        (rc = DNN(cudnnSetConvolutionMathType, p->cd, math)))
        goto fail;
    /* cuDNN's own output size must be ours (gb_conv_out_dims). */
    int dn, dk, dp, dq;
    if ((rc = DNN(cudnnGetConvolution2dForwardOutputDim, p->cd, p->xd, p->wd, &dn, &dk, &dp, &dq)))
        goto fail;
    if ((uint64_t)dp != pp || (uint64_t)dq != qq || (uint64_t)dk != sh->k) {
        rc = GB_FAIL(GB_EBACKEND, "conv: cuDNN's output is %dx%dx%d, gpubench's %llux%llux%llu", dk,
                     dp, dq, (unsigned long long)sh->k, (unsigned long long)pp,
                     (unsigned long long)qq);
        goto fail;
    }
    for (p->ws_bytes = 256u << 20; p->ws_bytes >= (1u << 20); p->ws_bytes /= 2) {
        if (cudaMalloc(&p->ws, p->ws_bytes) == cudaSuccess)
            break;
        (void)cudaGetLastError();
        p->ws = NULL;
    }
    if (!p->ws)
        p->ws_bytes = 0;
    if ((rc = dnn_search(p)))
        goto fail;
    const char *name = algo_name(c->dir, p->algo);
    snprintf(p->pub.algo, sizeof p->pub.algo, "cuDNN %s", name);
    p->pub.workspace_bytes = p->ws_used;
    p->pub.workspace_known = true;
    p->pub.transform = algo_transform(name);
    *out = &p->pub;
    return 0;
fail:
    gb__cuda_dnn_free(&p->pub);
    return rc;
}

int gb__cuda_dnn_run(struct gb_conv_plan *pub)
{
    struct cu_conv_plan *p = (struct cu_conv_plan *)pub;
    const float one = 1.0f, zero = 0.0f;
    switch (p->c.dir) {
    case GB_CONV_FWD:
        return DNN(cudnnConvolutionForward, p->h, &one, p->xd, p->x, p->wd, p->w, p->cd,
                   (cudnnConvolutionFwdAlgo_t)p->algo, p->ws, p->ws_bytes, &zero, p->yd, p->y);
    case GB_CONV_BWD_DATA:
        return DNN(cudnnConvolutionBackwardData, p->h, &one, p->wd, p->w, p->yd, p->y, p->cd,
                   (cudnnConvolutionBwdDataAlgo_t)p->algo, p->ws, p->ws_bytes, &zero, p->xd, p->x);
    default:
        return DNN(cudnnConvolutionBackwardFilter, p->h, &one, p->xd, p->x, p->yd, p->y, p->cd,
                   (cudnnConvolutionBwdFilterAlgo_t)p->algo, p->ws, p->ws_bytes, &zero, p->wd,
                   p->w);
    }
}

/* ---- conv_plan and conv_run ----------------------------------------------------------------- */

/* The device is made current here; gb__cuda_dnn_plan gets the stream and the buffers' addresses. */
int gb__cuda_conv_plan(struct gb_queue *q, const struct gb_conv *c, struct gb_conv_plan **out)
{
    *out = NULL;
    int rc = gb__cuda_use(q->dev);
    if (rc)
        return rc;
    struct gb_buf *const b[3] = {c->x, c->w, c->y};
    for (int i = 0; i < 3; i++)
        if (!b[i] || b[i]->kind != GB_MEM_DEVICE || !gb__cuda_same(b[i]->dev, q->dev))
            return GB_FAIL(GB_EINVAL, "conv: %s is not a device buffer of this device",
                           i == 0   ? "x"
                           : i == 1 ? "w"
                                    : "y");
    if (gb__cuda_queue(q)->dead)
        return GB_FAIL(GB_EBACKEND, "conv: the queue's device was lost");
    return gb__cuda_dnn_plan(q, gb__cuda_queue(q)->stream, gb__cuda_buf(c->x)->ptr,
                             gb__cuda_buf(c->w)->ptr, gb__cuda_buf(c->y)->ptr, c, out);
}

int gb__cuda_conv_run(struct gb_conv_plan *p)
{
    int rc = gb__cuda_use(p->q->dev);
    return rc ? rc : gb__cuda_dnn_run(p);
}

#endif
