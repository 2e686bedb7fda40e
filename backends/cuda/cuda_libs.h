/* gpubench — the CUDA backend's private header (backends/cuda only): its run-time libraries
 * (NVRTC, cuBLAS, cuBLASLt, cuDNN, cuSPARSE, NCCL), all found and dlopened at run time by cuda_libs.c
 * (none is in the binary's NEEDED entries), the folder of the fp16/bf16 headers NVRTC includes,
 * and what the backend's files share: the handles, the error wrappers (CU), the current device
 * and the members of gb_cuda_ops that cuda_ops.c puts in the vtable. gb_cuda.h has the public
 * side (the search order, the report, the rules the tests check without a GPU).
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
#include "gb_cuda.h"

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

/* The CUDA backend's convolution through cuDNN (cuda_dnn.c), for its conv_plan, conv_run and
 * conv_plan_free: gb__cuda_dnn_plan plans c on q (its stream and the device addresses of x,
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

/* The CUDA backend's SpMM through cuSPARSE (cuda_sparse.c), for its spmm_* members: as
 * gb__cuda_dnn_plan, with the stream and the buffers' device addresses given. */
int gb__cuda_sparse_plan(struct gb_queue *q, cudaStream_t stream, void *const ptrs[5],
                         const struct gb_spmm *s, struct gb_spmm_plan **out);
int gb__cuda_sparse_run(struct gb_spmm_plan *p);
void gb__cuda_sparse_free(struct gb_spmm_plan *p);
#endif

/* ---- NCCL, declared here rather than included ---------------------------------------------------
 * The build needs no nccl.h: the few types of NCCL's C ABI the backend uses are declared below,
 * their values in gb_cuda.h (GB_CUDA_NCCL_*), which tests/test_cuda.c compares with nccl.h
 * where that header exists. The ABI matches: ncclComm_t is an opaque pointer; ncclResult_t,
 * ncclDataType_t and ncclRedOp_t are C enums, passed and returned as int; ncclUniqueId is a
 * struct of 128 chars, passed by value to ncclCommInitRank. */
/* ncclComm_t, ncclUniqueId, ncclResult_t */
typedef struct gb__nccl_comm *gb__nccl_comm_t;
typedef struct {
    char internal[GB_CUDA_NCCL_ID_BYTES];
} gb__nccl_unique_id;
typedef int gb__nccl_result_t;

/* NCCL's entry points, members named after the symbols they hold (nccl.h's prototypes, the
 * enums as int): valid once gb__cuda_nccl_load() has returned 0. ncclGetLastError is optional
 * (NCCL 2.13+): NULL when the library lacks it. */
struct gb__nccl {
    gb__nccl_result_t (*ncclGetVersion)(int *version);
    const char *(*ncclGetErrorString)(gb__nccl_result_t result);
    const char *(*ncclGetLastError)(gb__nccl_comm_t comm);
    gb__nccl_result_t (*ncclGetUniqueId)(gb__nccl_unique_id *id);
    gb__nccl_result_t (*ncclCommInitAll)(gb__nccl_comm_t *comms, int ndev, const int *devlist);
    gb__nccl_result_t (*ncclCommInitRank)(gb__nccl_comm_t *comm, int nranks, gb__nccl_unique_id id,
                                          int rank);
    gb__nccl_result_t (*ncclCommDestroy)(gb__nccl_comm_t comm);
    gb__nccl_result_t (*ncclGroupStart)(void);
    gb__nccl_result_t (*ncclGroupEnd)(void);
    gb__nccl_result_t (*ncclAllReduce)(const void *sendbuff, void *recvbuff, size_t count,
                                       int datatype, int op, gb__nccl_comm_t comm,
                                       cudaStream_t stream);
    gb__nccl_result_t (*ncclAllGather)(const void *sendbuff, void *recvbuff, size_t sendcount,
                                       int datatype, gb__nccl_comm_t comm, cudaStream_t stream);
    gb__nccl_result_t (*ncclReduceScatter)(const void *sendbuff, void *recvbuff, size_t recvcount,
                                           int datatype, int op, gb__nccl_comm_t comm,
                                           cudaStream_t stream);
    gb__nccl_result_t (*ncclBroadcast)(const void *sendbuff, void *recvbuff, size_t count,
                                       int datatype, int root, gb__nccl_comm_t comm,
                                       cudaStream_t stream);
    gb__nccl_result_t (*ncclReduce)(const void *sendbuff, void *recvbuff, size_t count,
                                    int datatype, int op, int root, gb__nccl_comm_t comm,
                                    cudaStream_t stream);
    gb__nccl_result_t (*ncclSend)(const void *sendbuff, size_t count, int datatype, int peer,
                                  gb__nccl_comm_t comm, cudaStream_t stream);
    gb__nccl_result_t (*ncclRecv)(void *recvbuff, size_t count, int datatype, int peer,
                                  gb__nccl_comm_t comm, cudaStream_t stream);
};
extern struct gb__nccl gb__nccl;

/* Loads NCCL once per process (thread-safe): the first communicator calls it. It looks for
 * libnccl.so.2, then libnccl.so, each in cuBLAS's order ($GPUBENCH_NCCL, a file or a folder,
 * alone when set; the toolkit lib folder of the build; pip's nvidia/nccl/lib and
 * nvidia/cu13/lib; the loader's search). 0 with *version (if non-NULL) ncclGetVersion's code,
 * or GB_EUNSUPPORTED with every place tried and the loader's error for each, or the first
 * entry point missing, as the error detail (a collective case then is a recorded skip). */
int gb__cuda_nccl_load(int *version);

/* ---- the backend's own declarations, shared by its files (cuda_ops.c lists them) ------------- */

#define GB__CUDA_MAX_DEV 64 /* devices whose peer-access and lost state is tracked */

/* ---- handles (the container_of idiom: the public struct is the first member) -------------- */

struct gb__cuda_device {
    struct gb_device pub;
    int cc_major, cc_minor;
    uint32_t max_grid[3];
    /* GB_ALLOC_ASYNC_KEEP's pool (release threshold UINT64_MAX), made by its first use and
     * destroyed with the handle; NULL until then. */
    cudaMemPool_t keep_pool;
#if HAVE_CUBLAS
    /* Set up once, by the first gemm on this handle: the cuBLAS handle, its own workspace
     * (cublasSetWorkspace; given again after each cublasSetStream, which resets it) and the
     * stream the handle was last given. */
    cublasHandle_t blas;
    void *blas_ws;
    size_t blas_ws_bytes;
    struct gb_cuda_stream_cache blas_stream;
#endif
#if HAVE_CUBLASLT
    /* Set up once, by the first gemm_fp8 on this handle: the cuBLASLt handle, its workspace, a
     * device float 1.0f the A and B scale pointers point to, and the plan of the last FP8 GEMM
     * (descriptors and the heuristic's algorithm), reused while the next call has the same
     * shape: the timed loop repeats one call, and a heuristic query per call would be timed. */
    cublasLtHandle_t lt;
    void *lt_ws;
    size_t lt_ws_bytes;
    float *lt_one;
    struct gb__cuda_lt_plan {
        bool valid;
        struct gb_gemm_fp8 key; /* a, b, c cleared: cu__lt_same compares the rest */
        cublasLtMatmulDesc_t op;
        cublasLtMatrixLayout_t la, lb, lc;
        cublasLtMatmulAlgo_t algo;
    } lt_plan;
#endif
};

struct gb__cuda_buf {
    struct gb_buf pub;
    void *ptr; /* device pointer, or the host pointer for host kinds */
    /* Made by alloc_method (how buf_free releases it), else by buf_alloc (by its kind). */
    bool by_method;
    enum gb_alloc_method method;
    cudaStream_t stream; /* the stream-ordered methods: the stream cudaFreeAsync orders on */
};

struct gb__cuda_queue {
    struct gb_queue pub;
    cudaStream_t stream;
    bool dead; /* made on a lost device: no stream; every use fails with the device's reason */
};

static inline struct gb__cuda_device *gb__cuda_dev(struct gb_device *d)
{
    return (struct gb__cuda_device *)d;
}
static inline struct gb__cuda_buf *gb__cuda_buf(struct gb_buf *b)
{
    return (struct gb__cuda_buf *)b;
}
static inline struct gb__cuda_queue *gb__cuda_queue(struct gb_queue *q)
{
    return (struct gb__cuda_queue *)q;
}

/* ---- errors, lost devices, the current device (cuda_errors.c) ---- */

/* Records the failed runtime call `call` (at file:line) as the error detail: its name, numeric
 * code, cudaGetErrorName and cudaGetErrorString; notes a sticky error for this thread's current
 * device (gb_cuda_note_error) and resets the runtime's last-error slot. Returns `err`. */
int gb__cuda_fail(cudaError_t e, int err, const char *file, int line, const char *call);

static inline int gb__cuda_check(cudaError_t e, int err, const char *file, int line,
                                 const char *call)
{
    return e == cudaSuccess ? 0 : gb__cuda_fail(e, err, file, line, call);
}

/* CU(cudaMalloc, &p, n): 0, or GB_EBACKEND with the detail recorded. CU_ERR picks the code. */
#define CU_ERR(err, fn, ...) gb__cuda_check((fn)(__VA_ARGS__), (err), __FILE__, __LINE__, #fn)
#define CU(fn, ...) CU_ERR(GB_EBACKEND, fn, __VA_ARGS__)

/* Whether device `index` was lost to a sticky error (gb_cuda_note_error). */
bool gb__cuda_is_lost(int index);

/* Whether two handles name the same CUDA device (a device may be opened more than once). */
bool gb__cuda_same(const struct gb_device *a, const struct gb_device *b);

/* Makes device `index` (or dev's) the calling thread's current device: 0, or GB_EBACKEND with the
 * device's first sticky error when it is lost, or with cudaSetDevice's failure. Every member that
 * touches a device calls it first. */
int gb__cuda_use_index(int index);
int gb__cuda_use(struct gb_device *dev);

/* ---- what one file of the backend calls in another ---- */

/* Whether dev's access to peer's memory was enabled by peer_can_access or peer_copy
 * (cuda_queue.c): a kernel on dev may then take a buffer of peer as an argument. */
bool gb__cuda_peer_is_on(int dev, int peer);

#if HAVE_CUBLASLT
/* Frees d's cuBLASLt state (cuda_blas.c; device_close): nothing when it was never set up. */
void gb__cuda_lt_release(struct gb__cuda_device *d);
#endif

/* Makes q's device current and checks that q's stream is recording a graph (capturing, or a
 * capture invalidated) exactly when `recording` says (cuda_graph.c): 0, GB_EINVAL with `msg`
 * when not, or GB_EBACKEND. */
int gb__cuda_recording(struct gb_queue *q, bool recording, const char *msg);

/* device_open (cuda_device.c) with the vtable the handle gets, which cuda_ops.c hands down. */
int gb__cuda_device_open(int index, const struct gb_backend_ops *ops, struct gb_device **out);

/* ---- the members of gb_cuda_ops, each with backend.h's contract, by file ---- */

/* cuda_device.c */
int gb__cuda_init(void);
void gb__cuda_shutdown(void);
int gb__cuda_device_count(void);
int gb__cuda_device_info(int index, struct gb_device_info *out);
void gb__cuda_device_close(struct gb_device *dev);
/* cuda_memory.c */
int gb__cuda_buf_alloc(struct gb_device *dev, uint64_t bytes, enum gb_mem_kind kind,
                       struct gb_buf **out);
void gb__cuda_buf_free(struct gb_buf *buf);
int gb__cuda_alloc_method(struct gb_queue *q, enum gb_alloc_method m, uint64_t bytes,
                          struct gb_buf **out);
int gb__cuda_alloc_pool_stats(struct gb_queue *q, enum gb_alloc_method m, bool reset,
                              struct gb_pool_stats *out);
/* cuda_queue.c */
int gb__cuda_queue_create(struct gb_device *dev, struct gb_queue **out);
int gb__cuda_queue_create_priority(struct gb_device *dev, enum gb_queue_priority p,
                                   struct gb_queue **out);
void gb__cuda_queue_destroy(struct gb_queue *q);
int gb__cuda_queue_flush(struct gb_queue *q);
int gb__cuda_queue_sync(struct gb_queue *q);
int gb__cuda_copy(struct gb_queue *q, struct gb_buf *dst, uint64_t dst_off, struct gb_buf *src,
                  uint64_t src_off, uint64_t bytes, enum gb_copy_flags flags);
int gb__cuda_peer_copy(struct gb_queue *q, struct gb_buf *dst, uint64_t dst_off, struct gb_buf *src,
                       uint64_t src_off, uint64_t bytes);
int gb__cuda_peer_can_access(struct gb_device *dev, struct gb_device *peer, bool *out);
int gb__cuda_event_create(struct gb_device *dev, struct gb_event **out);
void gb__cuda_event_free(struct gb_event *ev);
int gb__cuda_event_record(struct gb_queue *q, struct gb_event *ev);
int gb__cuda_event_sync(struct gb_event *ev);
int gb__cuda_event_elapsed_ns(struct gb_event *start, struct gb_event *end, uint64_t *ns);
/* cuda_launch.c */
int gb__cuda_program_build(struct gb_device *dev, const char *source, const char *const *defines,
                           size_t ndefines, struct gb_program **out, char **log);
void gb__cuda_program_free(struct gb_program *prog);
int gb__cuda_kernel_get(struct gb_program *prog, const char *name, struct gb_kernel **out);
void gb__cuda_kernel_free(struct gb_kernel *k);
int gb__cuda_kernel_max_wg(struct gb_kernel *k, uint32_t *out);
int gb__cuda_launch(struct gb_queue *q, struct gb_kernel *kern, const struct gb_launch *l);
int gb__cuda_launch_timed(struct gb_queue *q, struct gb_kernel *k, const struct gb_launch *l,
                          struct gb_launch_times *out);
/* cuda_graph.c */
int gb__cuda_graph_begin(struct gb_queue *q);
int gb__cuda_graph_end(struct gb_queue *q, struct gb_graph **out);
int gb__cuda_graph_launch(struct gb_queue *q, struct gb_graph *g);
void gb__cuda_graph_free(struct gb_graph *g);
/* cuda_blas.c */
#if HAVE_CUBLAS
int gb__cuda_gemm(struct gb_queue *q, const struct gb_gemm *g);
int gb__cuda_gemv(struct gb_queue *q, const struct gb_gemm *g);
#endif
#if HAVE_CUBLASLT
int gb__cuda_gemm_fp8(struct gb_queue *q, const struct gb_gemm_fp8 *g);
#endif
/* cuda_dnn.c (the device made current and the buffers checked there, then gb__cuda_dnn_plan) */
#if HAVE_CUDNN
int gb__cuda_conv_plan(struct gb_queue *q, const struct gb_conv *c, struct gb_conv_plan **out);
int gb__cuda_conv_run(struct gb_conv_plan *p);
#endif
/* cuda_nccl.c */
int gb__cuda_comm_init(struct gb_device *const *devs, struct gb_queue *const *queues, int n,
                       struct gb_comm **out);
int gb__cuda_comm_unique_id(void *id, size_t *len);
int gb__cuda_comm_init_rank(struct gb_device *dev, struct gb_queue *q, int nranks, int rank,
                            const void *id, size_t len, struct gb_comm **out);
int gb__cuda_comm_run(struct gb_comm *c, const struct gb_coll *call);
void gb__cuda_comm_free(struct gb_comm *c);
/* cuda_sparse.c (likewise, then gb__cuda_sparse_plan) */
#if HAVE_CUSPARSE
int gb__cuda_spmm_plan(struct gb_queue *q, const struct gb_spmm *s, struct gb_spmm_plan **out);
int gb__cuda_spmm_run(struct gb_spmm_plan *p);
#endif

#endif
