/* gpubench — the CUDA backend's run-time libraries, private to backends/cuda: NVRTC and cuBLAS,
 * both found and dlopened at run time by cuda_libs.c (neither is in the binary's NEEDED entries),
 * and the folder of the fp16/bf16 headers NVRTC includes. gb_cuda.h has the public side (the
 * search order, the report).
 */
#ifndef GB_CUDA_LIBS_H
#define GB_CUDA_LIBS_H

#include <stdbool.h>
#include <stddef.h>

#include <nvrtc.h>
#if HAVE_CUBLAS
#include <cublas_api.h>
#endif
#if HAVE_CUBLASLT
#include <cublasLt.h>
#endif
#if HAVE_CUDNN
#include <cudnn.h>
#endif
#if HAVE_CUSPARSE
#include <cusparse.h>
#endif
#include <cuda_runtime_api.h>

#include "backends/backend.h"

/* NVRTC's entry points, members named after the symbols they hold. Valid once
 * gb__cuda_nvrtc_load() has returned 0; read-only after that. */
struct gb__nvrtc {
    __typeof__(nvrtcVersion) *nvrtcVersion;
    __typeof__(nvrtcGetErrorString) *nvrtcGetErrorString;
    __typeof__(nvrtcGetNumSupportedArchs) *nvrtcGetNumSupportedArchs;
    __typeof__(nvrtcGetSupportedArchs) *nvrtcGetSupportedArchs;
    __typeof__(nvrtcCreateProgram) *nvrtcCreateProgram;
    __typeof__(nvrtcDestroyProgram) *nvrtcDestroyProgram;
    __typeof__(nvrtcCompileProgram) *nvrtcCompileProgram;
    __typeof__(nvrtcGetPTXSize) *nvrtcGetPTXSize;
    __typeof__(nvrtcGetPTX) *nvrtcGetPTX;
    __typeof__(nvrtcGetCUBINSize) *nvrtcGetCUBINSize;
    __typeof__(nvrtcGetCUBIN) *nvrtcGetCUBIN;
    __typeof__(nvrtcGetProgramLogSize) *nvrtcGetProgramLogSize;
    __typeof__(nvrtcGetProgramLog) *nvrtcGetProgramLog;
};
extern struct gb__nvrtc gb__nv;

/* Loads NVRTC once per process (thread-safe), in the order gb_cuda.h documents, and preloads its
 * builtins library from NVRTC's own folder. 0, or GB_EUNAVAIL with the reason (every place
 * tried) as the error detail, the same on every call. */
int gb__cuda_nvrtc_load(void);

/* The folder NVRTC gets as -I: the first in gb_cuda.h's order that holds the four headers
 * (cuda_fp16.h/.hpp, cuda_bf16.h/.hpp), or $GPUBENCH_CUDA_INCLUDE as given. NULL when no folder
 * holds them; *tried (if non-NULL) then says where it looked. Found once per process. */
const char *gb__cuda_include_dir(const char **tried);

#if HAVE_CUBLAS
/* cuBLAS's entry points, valid once gb__cuda_blas_load() has returned 0. */
struct gb__cublas {
    __typeof__(cublasCreate_v2) *cublasCreate_v2;
    __typeof__(cublasDestroy_v2) *cublasDestroy_v2;
    __typeof__(cublasSetStream_v2) *cublasSetStream_v2;
    __typeof__(cublasSetWorkspace_v2) *cublasSetWorkspace_v2;
    __typeof__(cublasGemmEx_64) *cublasGemmEx_64;
    __typeof__(cublasGemmStridedBatchedEx_64) *cublasGemmStridedBatchedEx_64;
    __typeof__(cublasSgemv_v2_64) *cublasSgemv_v2_64;
    __typeof__(cublasDgemv_v2_64) *cublasDgemv_v2_64;
    __typeof__(cublasGetStatusName) *cublasGetStatusName;
    __typeof__(cublasGetStatusString) *cublasGetStatusString;
    __typeof__(cublasGetProperty) *cublasGetProperty;
};
extern struct gb__cublas gb__bl;

/* Whether a cuBLAS library file is where gb__cuda_blas_load() would look, without loading it
 * (an existing file, a folder of LD_LIBRARY_PATH, the loader cache, a system folder): what the
 * BLAS capability bits report. Found once per process. */
bool gb__cuda_blas_found(void);

/* Loads cuBLAS once per process (thread-safe): the first GEMM calls it. 0, or GB_EUNSUPPORTED
 * with the reason as the error detail (a BLAS case then is a recorded skip). */
int gb__cuda_blas_load(void);
#endif

#if HAVE_CUBLASLT
/* cuBLASLt's entry points (FP8 GEMM), every one resolved with dlsym: valid once
 * gb__cuda_blaslt_load() has returned 0. */
struct gb__cublaslt {
    __typeof__(cublasLtCreate) *cublasLtCreate;
    __typeof__(cublasLtDestroy) *cublasLtDestroy;
    __typeof__(cublasLtGetVersion) *cublasLtGetVersion;
    __typeof__(cublasLtGetStatusName) *cublasLtGetStatusName;
    __typeof__(cublasLtGetStatusString) *cublasLtGetStatusString;
    __typeof__(cublasLtMatmulDescCreate) *cublasLtMatmulDescCreate;
    __typeof__(cublasLtMatmulDescDestroy) *cublasLtMatmulDescDestroy;
    __typeof__(cublasLtMatmulDescSetAttribute) *cublasLtMatmulDescSetAttribute;
    __typeof__(cublasLtMatrixLayoutCreate) *cublasLtMatrixLayoutCreate;
    __typeof__(cublasLtMatrixLayoutDestroy) *cublasLtMatrixLayoutDestroy;
    __typeof__(cublasLtMatmulPreferenceCreate) *cublasLtMatmulPreferenceCreate;
    __typeof__(cublasLtMatmulPreferenceDestroy) *cublasLtMatmulPreferenceDestroy;
    __typeof__(cublasLtMatmulPreferenceSetAttribute) *cublasLtMatmulPreferenceSetAttribute;
    __typeof__(cublasLtMatmulAlgoGetHeuristic) *cublasLtMatmulAlgoGetHeuristic;
    __typeof__(cublasLtMatmul) *cublasLtMatmul;
};
extern struct gb__cublaslt gb__lt;

/* Loads cuBLASLt once per process (thread-safe): the first FP8 GEMM calls it. It looks for
 * libcublasLt.so.<the build's cuBLAS major> (13), then libcublasLt.so.12, each in cuBLAS's order
 * ($GPUBENCH_CUBLASLT, a file or a folder, alone when set; the toolkit lib folder of the build;
 * pip's nvidia/cu13/lib and nvidia/cublas/lib; the loader's search). 0, or GB_EUNSUPPORTED with
 * every place tried and the loader's error (dlerror) as the error detail (an FP8 case then is a
 * recorded skip that says so). Nothing of it is linked. */
int gb__cuda_blaslt_load(void);
#endif

#if HAVE_CUDNN
/* cuDNN's entry points (the legacy convolution API of cudnn_cnn.h and the descriptors of
 * cudnn_ops.h / cudnn_graph.h, all exported by libcudnn.so.9, which loads its sub-libraries
 * itself), every one resolved with dlsym: valid once gb__cuda_dnn_load() has returned 0. */
struct gb__cudnn {
    __typeof__(cudnnGetVersion) *cudnnGetVersion;
    __typeof__(cudnnGetErrorString) *cudnnGetErrorString;
    __typeof__(cudnnCreate) *cudnnCreate;
    __typeof__(cudnnDestroy) *cudnnDestroy;
    __typeof__(cudnnSetStream) *cudnnSetStream;
    __typeof__(cudnnCreateTensorDescriptor) *cudnnCreateTensorDescriptor;
    __typeof__(cudnnDestroyTensorDescriptor) *cudnnDestroyTensorDescriptor;
    __typeof__(cudnnSetTensor4dDescriptor) *cudnnSetTensor4dDescriptor;
    __typeof__(cudnnCreateFilterDescriptor) *cudnnCreateFilterDescriptor;
    __typeof__(cudnnDestroyFilterDescriptor) *cudnnDestroyFilterDescriptor;
    __typeof__(cudnnSetFilter4dDescriptor) *cudnnSetFilter4dDescriptor;
    __typeof__(cudnnCreateConvolutionDescriptor) *cudnnCreateConvolutionDescriptor;
    __typeof__(cudnnDestroyConvolutionDescriptor) *cudnnDestroyConvolutionDescriptor;
    __typeof__(cudnnSetConvolution2dDescriptor) *cudnnSetConvolution2dDescriptor;
    __typeof__(cudnnSetConvolutionGroupCount) *cudnnSetConvolutionGroupCount;
    __typeof__(cudnnSetConvolutionMathType) *cudnnSetConvolutionMathType;
    __typeof__(cudnnGetConvolution2dForwardOutputDim) *cudnnGetConvolution2dForwardOutputDim;
    __typeof__(cudnnFindConvolutionForwardAlgorithmEx) *cudnnFindConvolutionForwardAlgorithmEx;
    __typeof__(cudnnFindConvolutionBackwardDataAlgorithmEx)
        *cudnnFindConvolutionBackwardDataAlgorithmEx;
    __typeof__(cudnnFindConvolutionBackwardFilterAlgorithmEx)
        *cudnnFindConvolutionBackwardFilterAlgorithmEx;
    __typeof__(cudnnConvolutionForward) *cudnnConvolutionForward;
    __typeof__(cudnnConvolutionBackwardData) *cudnnConvolutionBackwardData;
    __typeof__(cudnnConvolutionBackwardFilter) *cudnnConvolutionBackwardFilter;
};
extern struct gb__cudnn gb__dnn;

/* Loads cuDNN once per process (thread-safe): the first library convolution calls it. It looks
 * for libcudnn.so.<the header's major> (9) in cuBLAS's order ($GPUBENCH_CUDNN, a file or a
 * folder, alone when set; the toolkit lib folder of the build; pip's nvidia/cudnn/lib and
 * nvidia/cu13/lib; the loader's search). 0, or GB_EUNSUPPORTED with every place tried and the
 * loader's error as the error detail (a library conv case then is a recorded skip). */
int gb__cuda_dnn_load(void);
#endif

/* The CUDA backend's convolution through cuDNN (cuda_dnn.c), for cuda.c's conv_plan, conv_run
 * and conv_plan_free: gb__cuda_dnn_plan plans c on q (its stream and the device addresses of x,
 * w and y given; the caller has made q's device current and checked that the buffers are
 * device buffers of it), with the contract of gb_backend_ops.conv_plan; gb__cuda_dnn_run
 * enqueues one (the device current); gb__cuda_dnn_free frees a plan (NULL: no-op). */
#if HAVE_CUDNN
int gb__cuda_dnn_plan(struct gb_queue *q, cudaStream_t stream, void *x, void *w, void *y,
                      const struct gb_conv *c, struct gb_conv_plan **out);
int gb__cuda_dnn_run(struct gb_conv_plan *p);
void gb__cuda_dnn_free(struct gb_conv_plan *p);
#endif

#if HAVE_CUSPARSE
/* cuSPARSE's entry points (the generic SpMV / SpMM API), every one resolved with dlsym: valid
 * once gb__cuda_sparse_load() has returned 0. */
struct gb__cusparse {
    __typeof__(cusparseGetProperty) *cusparseGetProperty;
    __typeof__(cusparseGetErrorString) *cusparseGetErrorString;
    __typeof__(cusparseCreate) *cusparseCreate;
    __typeof__(cusparseDestroy) *cusparseDestroy;
    __typeof__(cusparseSetStream) *cusparseSetStream;
    __typeof__(cusparseCreateCsr) *cusparseCreateCsr;
    __typeof__(cusparseDestroySpMat) *cusparseDestroySpMat;
    __typeof__(cusparseCreateDnMat) *cusparseCreateDnMat;
    __typeof__(cusparseDestroyDnMat) *cusparseDestroyDnMat;
    __typeof__(cusparseCreateDnVec) *cusparseCreateDnVec;
    __typeof__(cusparseDestroyDnVec) *cusparseDestroyDnVec;
    __typeof__(cusparseSpMV_bufferSize) *cusparseSpMV_bufferSize;
    __typeof__(cusparseSpMV) *cusparseSpMV;
    __typeof__(cusparseSpMM_bufferSize) *cusparseSpMM_bufferSize;
    __typeof__(cusparseSpMM) *cusparseSpMM;
};
extern struct gb__cusparse gb__sp;

/* Loads cuSPARSE once per process (thread-safe): the first library sparse case calls it, in
 * cuBLAS's order ($GPUBENCH_CUSPARSE, the toolkit lib folder, pip's nvidia/cu13/lib and
 * nvidia/cusparse/lib, the loader) for libcusparse.so.<the header's major>. 0, or
 * GB_EUNSUPPORTED with every place tried as the detail. */
int gb__cuda_sparse_load(void);

/* The CUDA backend's SpMM through cuSPARSE (cuda_sparse.c), for cuda.c's spmm_* members: as
 * gb__cuda_dnn_plan, with the stream and the buffers' device addresses given. */
int gb__cuda_sparse_plan(struct gb_queue *q, cudaStream_t stream, void *const ptrs[5],
                         const struct gb_spmm *s, struct gb_spmm_plan **out);
int gb__cuda_sparse_run(struct gb_spmm_plan *p);
void gb__cuda_sparse_free(struct gb_spmm_plan *p);
#endif

#endif
