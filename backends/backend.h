/* gpubench — the backend contract.
 *
 * A backend (OpenCL, CUDA) is one `static const struct gb_backend_ops` built with designated
 * initialisers. The harness and the suites talk to devices only through it, so the same suite
 * code measures both APIs.
 *
 * Conventions that hold for every member:
 * - Every member returns 0 or a negative gb_err (base/error.h) and sets the error detail with
 *   GB_FAIL() (the API call, the native code and its name). Out-parameters come last.
 * - Sizes and offsets are bytes in uint64_t; element counts are uint64_t. Never int.
 * - Optional members are tied to a capability bit (GB_CAP_*) in gb_device_info.caps. The core
 *   checks the bit and never calls a member whose bit is clear; a backend may leave such a member
 *   NULL when it never sets the bit.
 * - Handles (gb_device, gb_buf, ...) are allocated by the backend with the public struct as the
 *   first member of a private one (the container_of idiom); the public part is read-only for the
 *   core. Each handle is freed by the matching *_free / *_close / *_destroy member.
 * - Nothing here calls exit(). A device may be used from one host thread at a time; different
 *   devices may be driven from different threads at once (the multi-device suite does).
 */
#ifndef GB_BACKEND_H
#define GB_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* Where a buffer lives. */
enum gb_mem_kind {
    GB_MEM_DEVICE = 1,        /* device memory (cudaMalloc / clCreateBuffer) */
    GB_MEM_HOST_PINNED = 2,   /* page-locked host memory (cudaHostAlloc / ALLOC_HOST_PTR + map) */
    GB_MEM_HOST_PAGEABLE = 4, /* ordinary host memory (aligned malloc, pages touched) */
};

/* Capability bits of a device (gb_device_info.caps). */
enum gb_cap {
    GB_CAP_FP64 = 1u << 0,        /* double arithmetic in kernels */
    GB_CAP_FP16 = 1u << 1,        /* half arithmetic in kernels (cl_khr_fp16 / sm_53+) */
    GB_CAP_BF16 = 1u << 2,        /* bfloat16 arithmetic in kernels (sm_80+) */
    GB_CAP_INT8_DOT = 1u << 3,    /* 4-way int8 dot product (dp4a, sm_61+) */
    GB_CAP_PEER = 1u << 4,        /* peer_copy between devices of this backend */
    GB_CAP_UNIFIED = 1u << 5,     /* host and device share physical memory */
    GB_CAP_BLAS_F32 = 1u << 6,    /* gemm with F32 in, F32 out */
    GB_CAP_BLAS_F64 = 1u << 7,    /* gemm with F64 */
    GB_CAP_BLAS_F16 = 1u << 8,    /* gemm with F16 in and out */
    GB_CAP_BLAS_BF16 = 1u << 9,   /* gemm with BF16 in, F32 accumulate */
    GB_CAP_BLAS_MIXED = 1u << 10, /* gemm with F16 in, F32 accumulate and out */
    GB_CAP_BLAS_TF32 = 1u << 11,  /* gemm with F32 in and out, TF32 tensor-core math */
    GB_CAP_GRAPH = 1u << 12,      /* launch graphs: graph_* members (CUDA Graphs by stream capture,
                                  * OpenCL cl_khr_command_buffer) */
    GB_CAP_BLAS_FP8 = 1u << 13,   /* gemm_fp8: FP8 tensor cores (CUDA sm_89+). Says the hardware
                                  * only: the library (cuBLASLt) loads at the first gemm_fp8,
                                  * which fails with its reason when it does not */
};

/* The ways an API hands out memory, beyond buf_alloc's kinds (alloc_method; the alloc and pool
 * suites time them). Each gives an ordinary gb_buf, freed by buf_free, that copies (and, for the
 * device kinds, kernels) use like any other: kind GB_MEM_DEVICE for the first four, and
 * GB_MEM_HOST_PINNED (pub.host set) for the last two.
 *   GB_ALLOC_DEVICE      cudaMalloc / clCreateBuffer(CL_MEM_READ_WRITE): what buf_alloc does
 *   GB_ALLOC_ASYNC       cudaMallocAsync on the queue's stream from the device's default memory
 *                        pool, as the driver configured it (release threshold 0 unless someone
 *                        set it: the pool returns its memory to the OS at each synchronisation);
 *                        freed by cudaFreeAsync on that stream. CUDA 11.2+ only
 *   GB_ALLOC_ASYNC_KEEP  cudaMallocAsync from a pool of gpubench's own on the queue's device,
 *                        created at the first use with release threshold UINT64_MAX (memory a
 *                        free returned stays reserved across synchronisations: the pool's
 *                        purpose); freed by cudaFreeAsync. CUDA only
 *   GB_ALLOC_MANAGED     cudaMallocManaged(cudaMemAttachGlobal): unified memory, pages migrate
 *                        on first touch. CUDA only
 *   GB_ALLOC_SVM         OpenCL 2.0 shared virtual memory: clSVMAlloc (coarse-grained) wrapped
 *                        in a buffer by clCreateBuffer(CL_MEM_USE_HOST_PTR), which OpenCL 2.0
 *                        allows for an SVM pointer. Devices whose CL_DEVICE_SVM_CAPABILITIES
 *                        has CL_DEVICE_SVM_COARSE_GRAIN_BUFFER only
 *   GB_ALLOC_PINNED      page-locked host memory: cudaHostAlloc / clCreateBuffer(
 *                        CL_MEM_ALLOC_HOST_PTR) + a blocking map (buf_alloc's pinned kind without
 *                        its page-aligning margin and its touch of every page)
 *   GB_ALLOC_REGISTERED  ordinary host memory (page-aligned malloc, untouched) made pinned after
 *                        the fact: cudaHostRegister / clCreateBuffer(CL_MEM_USE_HOST_PTR) + a
 *                        blocking map, as a framework pins memory it did not allocate. */
enum gb_alloc_method {
    GB_ALLOC_DEVICE,
    GB_ALLOC_ASYNC,
    GB_ALLOC_ASYNC_KEEP,
    GB_ALLOC_MANAGED,
    GB_ALLOC_SVM,
    GB_ALLOC_PINNED,
    GB_ALLOC_REGISTERED,
    GB_ALLOC_NMETHODS
};

/* A queue's scheduling priority (queue_create_priority): the two ends of the range the device
 * offers. GB_QUEUE_PRIORITY_HIGH is the device's greatest priority: pending work of such a queue
 * is preferred over pending work of lower-priority queues when the device picks what to run
 * next (CUDA: the greatest priority of cudaDeviceGetStreamPriorityRange, numerically the
 * lowest; OpenCL: CL_QUEUE_PRIORITY_HIGH_KHR). GB_QUEUE_PRIORITY_LOW is its least (CUDA: the
 * least of that range, which is also the default priority of every stream queue_create makes;
 * OpenCL: CL_QUEUE_PRIORITY_LOW_KHR, below the default, CL_QUEUE_PRIORITY_MED_KHR). A hint to
 * the device's scheduler, never a change of the device's settings. */
enum gb_queue_priority { GB_QUEUE_PRIORITY_LOW, GB_QUEUE_PRIORITY_HIGH };

/* A memory pool's high-water marks since they were last reset (alloc_pool_stats), bytes:
 * `reserved` what the pool held from the driver at most, `used` what it had handed out at
 * most (cudaMemPoolAttrReservedMemHigh, cudaMemPoolAttrUsedMemHigh). */
struct gb_pool_stats {
    uint64_t reserved_high, used_high;
};

/* Scalar element types, for BLAS and for kernels' -DT= defines. GB_F8E4M3 and GB_F8E5M2 are the
 * OCP FP8 formats (base/fp8.h: E4M3 "FN", E5M2), inputs of gemm_fp8 only. */
enum gb_dtype { GB_F64, GB_F32, GB_F16, GB_BF16, GB_I32, GB_I8, GB_F8E4M3, GB_F8E5M2 };

/* Bytes of one element of `t`. */
size_t gb_dtype_size(enum gb_dtype t);
/* "f64", "f32", "f16", "bf16", "i32", "i8", "f8e4m3", "f8e5m2". */
const char *gb_dtype_name(enum gb_dtype t);

/* What kind of processor a device is: OpenCL's CL_DEVICE_TYPE (GPU, CPU, ACCELERATOR, else
 * OTHER); every CUDA device is a GPU. 0 (OTHER) also where a results file gave no kind. */
enum gb_device_type { GB_DEVICE_OTHER = 0, GB_DEVICE_GPU, GB_DEVICE_CPU, GB_DEVICE_ACCELERATOR };

/* What a device is. Strings are NUL-terminated and truncated to fit; 0 means unknown. */
struct gb_device_info {
    char name[256];
    char vendor[128];
    char driver[128];       /* driver version */
    char version[128];      /* API version the device offers ("OpenCL 3.0 ...", "CUDA 9.0") */
    char platform[128];     /* OpenCL platform name; "" for CUDA */
    char arch[32];          /* "sm_90" for CUDA; "" when the API has no such notion */
    uint64_t global_mem;    /* bytes */
    uint64_t max_alloc;     /* largest single buffer, bytes */
    uint64_t local_mem;     /* local / shared memory per work-group / block, bytes */
    uint64_t l2_bytes;      /* last-level cache, bytes */
    uint32_t compute_units; /* OpenCL compute units / CUDA SMs */
    uint32_t clock_mhz;     /* max core clock */
    /* Where clock_mhz (and, for a CPU device, compute_units) came from: "" the device's own
     * report; "host cpufreq" or "host cpuinfo" for a CPU device whose driver reports a clock of
     * 0 (gb_host_cpu_mhz, base/util.h); for a CPU device whose figures contradict the host's
     * (gb_cpu_facts_check), the host's source and what the device said: "host cpuinfo, the
     * device said 300 MHz", "units: the host's 2 online CPUs, the device said 8", or both
     * joined by "; ". */
    char clock_source[128];
    uint32_t mem_clock_mhz;
    uint32_t mem_bus_bits;
    uint32_t max_wg_size;    /* max work-items per work-group / threads per block */
    uint32_t max_wg_dims[3]; /* per-dimension maximum of a work-group / block */
    uint32_t warp_size;      /* SIMD width the device prefers (warp, wavefront; 1 if unknown) */
    enum gb_device_type type;
    /* Doubles in one native SIMD register (OpenCL CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE: 4 for
     * AVX2, 8 for AVX-512; 0 without fp64); CUDA 1 (a thread is scalar). 0 unknown. */
    uint32_t native_vec_double;
    double peak_mem_gbs; /* theoretical device-memory bandwidth in GB/s (1e9 B/s), 0 unknown */
    uint64_t caps;       /* GB_CAP_* bits */
    /* A stable identity where the API gives one (gb_device_identity, results/results.h): the
     * device's UUID as 8-4-4-4-12 lowercase hex (CUDA cudaDeviceProp.uuid, OpenCL
     * cl_khr_device_uuid), and its PCI address "dddd:bb:dd.f" (CUDA pciDomainID/pciBusID/
     * pciDeviceID, OpenCL cl_khr_pci_bus_info); "" when unknown (PoCL's CPU devices). */
    char uuid[40];
    char pci_bus_id[32];
    /* How processes share the device, as the driver reports it (never changed by gpubench):
     * CUDA's compute mode ("default (time-sliced)", "exclusive-process", "prohibited"), with
     * "; MPS control pipe present" when an MPS server's pipe directory exists and "; MIG
     * instance" for a MIG device; "" when the API reports nothing (OpenCL). */
    char sharing[96];
    /* The most loop iterations a work-item runs before the driver stops its loops (and the
     * kernel goes on past them, with whatever the loops had reached): a driver has been seen
     * to stop every loop of a work-item after 65,535 iterations counted across nested loops.
     * Probed by device_probe, which the runner calls when it opens the device (OpenCL: a
     * kernel whose one loop counts past 2^16 and past 2^20, GB_LOOP_PROBE_MAX at most, compared
     * with what it was asked; see opencl_limits.c); 0 when no limit was found up to that count,
     * before the probe, and in the device list (device_info), which opens nothing. CUDA records
     * 0 without probing. */
    uint32_t max_loop_trips;
};

/* The largest count the loop-trip probe asks for (gb_device_info.max_loop_trips): 2^20 + 1. */
#define GB_LOOP_PROBE_MAX ((UINT32_C(1) << 20) + 1)

/* Handles. The backend owns them; see the container_of note at the top. */
struct gb_backend_ops;
struct gb_device {
    const struct gb_backend_ops *ops;
    int index; /* index within the backend, 0-based */
    struct gb_device_info info;
    /* "" when the device's event timer passed the backend's check at device_open (OpenCL:
     * ocl__probe_timer; CUDA events need none); else, in a few words, why its timestamps cannot
     * be trusted ("event timestamps are 0"). Then
     * event_elapsed_ns and launch_timed answer GB_EUNSUPPORTED, event_record and event_sync still
     * order and wait, and the core times on the host around a finish (run/measure.h). */
    char timer_fault[56];
};
struct gb_buf {
    struct gb_device *dev;
    uint64_t bytes;
    enum gb_mem_kind kind;
    void *host; /* host address for host kinds (pinned: the mapped pointer); NULL
                                * for GB_MEM_DEVICE */
};
struct gb_queue {
    struct gb_device *dev;
};
struct gb_program {
    struct gb_device *dev;
};
struct gb_kernel {
    struct gb_program *prog;
};
struct gb_event {
    struct gb_device *dev;
};
struct gb_graph {
    struct gb_queue *q; /* the queue it was recorded on, the only one it replays on */
};

/* copy() flags. */
enum gb_copy_flags {
    GB_COPY_ASYNC = 0,    /* enqueue and return; complete by queue_sync or an event */
    GB_COPY_BLOCKING = 1, /* return when the copy has completed (and the host may reuse memory) */
};

/* A kernel argument. */
enum gb_arg_kind {
    GB_ARG_BUF,
    GB_ARG_I32,
    GB_ARG_U32,
    GB_ARG_I64,
    GB_ARG_U64,
    GB_ARG_F32,
    GB_ARG_F64
};
struct gb_arg {
    enum gb_arg_kind kind;
    union {
        struct gb_buf *buf; /* GB_MEM_DEVICE, of the launch's device; on CUDA also of a peer
                             * device once peer_can_access(launch's device, peer) said yes
                             * (the kernel then loads across the peer link) */
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        float f32;
        double f64;
    } v;
};
#define GB_MAX_ARGS 16

/* A launch in OpenCL terms: `global` is the total number of work-items per dimension (the CUDA
 * backend launches global[d] / local[d] blocks of local[d] threads; global must be a multiple of
 * local). Unused dimensions are 1. */
struct gb_launch {
    uint32_t dims; /* 1..3 */
    uint64_t global[3];
    uint32_t local[3];
    uint32_t nargs;
    struct gb_arg args[GB_MAX_ARGS];
};

/* A column-major GEMM, C = alpha * op(A) * op(B) + beta * C, op(X) = X or X^T, with C m×n,
 * op(A) m×k, op(B) k×n (BLAS conventions). `batch` > 1 runs the strided-batched form: matrix i
 * starts at element offset i*stride_x in its buffer. Types: a_type = b_type; c_type is the
 * output type; compute is the accumulation type (F32 for the mixed precisions). GB_I8 in with
 * GB_I32 compute and out (alpha, beta whole numbers) is the integer GEMM (cuBLAS only; m, k and
 * the leading dimensions multiples of 4). */
struct gb_gemm {
    enum gb_dtype a_type, c_type, compute;
    bool trans_a, trans_b;
    bool tf32; /* allow TF32 tensor-core math for F32 (GB_CAP_BLAS_TF32) */
    uint64_t m, n, k;
    double alpha, beta;
    struct gb_buf *a, *b, *c;
    uint64_t lda, ldb, ldc;                /* leading dimensions, elements */
    uint64_t batch;                        /* >= 1 */
    uint64_t stride_a, stride_b, stride_c; /* elements between batch matrices */
};

/* An FP8 GEMM (gemm_fp8): C = op(A) * op(B) (alpha 1, beta 0, per-tensor scales 1), column-major
 * as in gb_gemm, with A and B in FP8, accumulated in FP32, C in c_type. The library's rules
 * (gb_gemm_fp8_check says which) hold for every backend that offers it: the "TN" layout (trans_a
 * true, trans_b false), a_type and b_type GB_F8E4M3 or GB_F8E5M2 but not both E5M2, c_type
 * GB_F32, GB_F16 or GB_BF16, m, n, k, lda, ldb and ldc multiples of 16. One matrix (no batch). */
struct gb_gemm_fp8 {
    enum gb_dtype a_type, b_type, c_type;
    bool trans_a, trans_b;
    uint64_t m, n, k;
    struct gb_buf *a, *b, *c;
    uint64_t lda, ldb, ldc; /* leading dimensions, elements */
};

/* ---- 2-D convolution (conv_plan / conv_run) ---------------------------------------------- */

/* Which pass of a convolution layer: the forward pass, and the two backward passes training
 * needs, the gradient with respect to the input (data) and to the weights (filter). */
enum gb_conv_dir { GB_CONV_FWD, GB_CONV_BWD_DATA, GB_CONV_BWD_FILTER };

/* How the activations and the filter are laid out in memory (row-major, last index fastest):
 * NCHW: x[N][C][H][W], y[N][K][P][Q], w[K][C/G][R][S] (cuDNN's NCHW, CLBlast's convgemm);
 * NHWC: x[N][H][W][C], y[N][P][Q][K], w[K][R][S][C/G] (cuDNN's NHWC, the tensor cores' own). */
enum gb_conv_layout { GB_LAYOUT_NCHW, GB_LAYOUT_NHWC };

/* The geometry of a 2-D convolution (every value >= 1 but the paddings, >= 0): a batch of n
 * images of c channels, h x w pixels, filtered by k filters of c/groups channels, r x s taps,
 * with the given strides, zero padding (pixels added on each side) and dilations; groups divides
 * c and k (groups = c = k: depthwise). The output is p x q with
 *   p = (h + 2 pad_h - dil_h (r - 1) - 1) / stride_h + 1,  q likewise from w, s (floor)
 * (the cuDNN and PyTorch definition, cudnnGetConvolution2dForwardOutputDim). What it computes is
 * the cross-correlation every framework calls convolution:
 *   y[n][k][p][q] = sum over c' < c/groups, r', s' of
 *       x[n][g c/groups + c'][p stride_h - pad_h + r' dil_h][q stride_w - pad_w + s' dil_w]
 *       * w[k][c'][r'][s'],  g = k / (k/groups), x = 0 outside the image. */
struct gb_conv_shape {
    uint64_t n, c, h, w, k, r, s;
    uint64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups;
};

/* A convolution for conv_plan. `type` is the element type of x, w and y (GB_F32, GB_F16,
 * GB_BF16; GB_I8 for x and w with y in GB_F32, forward only: cuDNN's INT8_EXT_CONFIG), `compute`
 * the accumulation type (GB_F32; GB_I32 with GB_I8), `tf32` lets F32 run on TF32 tensor cores.
 * dir GB_CONV_FWD reads x and w and writes y; GB_CONV_BWD_DATA reads y (dy) and w and writes x
 * (dx); GB_CONV_BWD_FILTER reads x and y (dy) and writes w (dw). alpha 1, beta 0. */
struct gb_conv {
    enum gb_conv_dir dir;
    enum gb_conv_layout layout;
    enum gb_dtype type, compute;
    bool tf32;
    struct gb_conv_shape sh;
    struct gb_buf *x, *w, *y;
};

/* A planned convolution: the library's choice, made once by conv_plan outside any timed region.
 * `algo` names the algorithm ("CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM", "CLBlast
 * Sconvgemm"); `workspace_bytes` is the scratch memory it runs with, valid when
 * `workspace_known` (CLBlast allocates its own and does not say); `transform` is true for the
 * algorithms whose rounding error is normwise rather than per element (FFT, Winograd: the suite
 * checks them against a normwise bound). The rest is the backend's. */
struct gb_conv_plan {
    struct gb_queue *q;
    char algo[64];
    uint64_t workspace_bytes;
    bool workspace_known;
    bool transform;
};

/* Checks a convolution's geometry: every size and stride and dilation >= 1, groups dividing c
 * and k, an output of at least 1 x 1, and no tensor of more than 2^62 elements. Pure. 0 with
 * *p and *q the output size, or GB_EINVAL with what is wrong as the detail. */
int gb_conv_out_dims(const struct gb_conv_shape *sh, uint64_t *p, uint64_t *q);

/* Elements of x, w and y (n c h w, k (c/groups) r s, n k p q) of a valid shape. */
void gb_conv_sizes(const struct gb_conv_shape *sh, uint64_t *nx, uint64_t *nw, uint64_t *ny);

/* The arithmetic of one pass, any direction: 2 n k (c/groups) r s p q operations (each
 * multiply-add twice, the count cuDNN's and MLPerf's TFLOP/s use; taps in the padding count). */
double gb_conv_flops(const struct gb_conv_shape *sh);

/* ---- sparse times dense (spmm_plan / spmm_run) ----------------------------------------------- */

/* C = A B with A sparse, m x k in CSR (row_ptr: m + 1 int32 offsets into col and val, col:
 * nnz int32 column indices, ascending within a row, val: nnz float), B dense k x n and C dense
 * m x n, both column-major with leading dimensions k and m, float; alpha 1, beta 0. n = 1 is a
 * sparse matrix-vector product (SpMV). */
struct gb_spmm {
    uint64_t m, n, k, nnz;
    struct gb_buf *row_ptr, *col, *val, *b, *c;
};

/* A planned SpMM: the library's algorithm and the workspace it runs with (bytes). */
struct gb_spmm_plan {
    struct gb_queue *q;
    char algo[64];
    uint64_t workspace_bytes;
};

/* Device timestamps of one launch (launch_timed), nanoseconds on the device's clock. */
struct gb_launch_times {
    /* From the moment the runtime queued the launch to the end of its kernel: OpenCL's
     * CL_PROFILING_COMMAND_QUEUED to CL_PROFILING_COMMAND_END (clpeak's "kernel launch latency"
     * measures this); CUDA, which has no queued timestamp, gives an event recorded on the stream
     * just before the launch to one just after it. */
    uint64_t queued_to_end_ns;
    /* The kernel's execution alone: OpenCL's COMMAND_START to COMMAND_END; CUDA: the same event
     * pair as queued_to_end_ns (no finer mark exists). At most queued_to_end_ns. */
    uint64_t start_to_end_ns;
};

/* What a backend's kernels, libraries and devices are, for the suites and telemetry to read
 * instead of the backend's name (no code outside backends/ compares a name). */
/* A collective, as NCCL and nccl-tests name them (nccl-tests doc/PERFORMANCE.md). */
enum gb_coll_op {
    GB_COLL_ALLREDUCE,
    GB_COLL_ALLGATHER,
    GB_COLL_REDUCESCATTER,
    GB_COLL_BROADCAST,
    GB_COLL_REDUCE,
    GB_COLL_ALLTOALL,
    GB_COLL_SENDRECV, /* ring exchange: rank r sends to r+1 and receives from r-1 (mod n) */
};
enum gb_coll_redop { GB_COLL_SUM, GB_COLL_MAX };
struct gb_comm;

/* One collective over a communicator of n ranks. `count` is nccl-tests' count: the elements of
 * the larger of a rank's two buffers (all-reduce, broadcast, reduce, all-to-all, send/recv: both
 * buffers hold count; all-gather: send count/n, receive count; reduce-scatter: send count,
 * receive count/n), so that count x the type's size is the size nccl-tests reports. count is a
 * multiple of n where the collective divides it. send[i] and recv[i] are rank i's buffers (one
 * per rank this process holds, in rank order); recv[i] == send[i] is in place (all-gather: rank
 * i's send is recv[i] at offset i x count/n; reduce-scatter: recv is send at offset
 * i x count/n). */
struct gb_coll {
    enum gb_coll_op op;
    enum gb_dtype dtype; /* GB_F32, GB_F16, GB_BF16 or GB_I32 */
    enum gb_coll_redop redop;
    uint64_t count;
    int root; /* broadcast and reduce */
    struct gb_buf *const *send;
    struct gb_buf *const *recv;
};

struct gb_backend_facts {
    /* The kernel dialect has vector arithmetic types (OpenCL C's float4, half8, ...) that the
     * kernels' VEC > 1 variants use. */
    bool kernel_vectors;
    /* A kernel may load another device's buffer once peer_can_access said yes (CUDA peer
     * access); false: peer data moves only by peer_copy (an OpenCL kernel cannot address
     * another context's buffer). */
    bool peer_load;
    /* Every device is an NVIDIA GPU, which NVML describes (telemetry's NVML source; other
     * backends' devices are taken as NVIDIA's by their vendor string). */
    bool nvidia_gpus;
    /* The BLAS library built in ("clblast", "cublas"; NULL: none), for --version. */
    const char *blas;
    /* Why gemm_fp8 is NULL, for the FP8 cases' skip ("no FP8 GEMM"); NULL when it is set. */
    const char *fp8_absent;
    /* Why conv_plan is NULL, for the library convolution cases' skip; NULL when it is set. */
    const char *conv_absent;
    /* Why spmm_plan is NULL, for the library sparse cases' skip; NULL when it is set. */
    const char *sparse_absent;
    /* The environment variables naming the directory of an on-disk compiler cache that this
     * backend's implementations keep between processes (PoCL's POCL_CACHE_DIR, the CUDA driver's
     * JIT cache CUDA_CACHE_PATH), NULL-terminated; NULL: none known. The startup suite points
     * them at a directory of its own, empty for a cold start, so that it neither reads nor
     * fills the user's cache. An implementation with no such cache builds cold every time. */
    const char *const *compiler_cache_env;
};

struct gb_backend_ops {
    const char *name; /* "opencl", "cuda": for messages, results and selection only */
    struct gb_backend_facts facts;

    /* ---- lifecycle and discovery ------------------------------------------------------- */

    /* Loads the API and enumerates devices. On failure returns GB_EUNAVAIL with the reason in
     * the error detail ("no OpenCL platform", "CUDA driver: insufficient driver (35)", ...).
     * Having zero devices is not a failure: init returns 0 and device_count() returns 0.
     * Calling it again after success is a no-op. */
    int (*init)(void);
    /* Releases what init acquired. Every device must be closed first. */
    void (*shutdown)(void);
    /* Number of devices found by init (all platforms, in platform order for OpenCL). */
    int (*device_count)(void);
    /* Describes device `index` (0 <= index < device_count()) without opening it. */
    int (*device_info)(int index, struct gb_device_info *out);
    /* Opens device `index`: a context and whatever the backend needs to use it. */
    int (*device_open)(int index, struct gb_device **out);
    void (*device_close)(struct gb_device *dev);
    /* Optional (NULL: nothing to probe; the core checks for NULL, there is no capability bit):
     * probes an open device for the driver's limits that no query reports, into dev->info
     * (max_loop_trips). Kept out of device_open, which the startup suite times and helpers
     * call only to copy: the runner calls it once, right after it opens a device for its
     * cases. Returns 0, or the error of a probe that could not run (the limits then read 0,
     * none known; the caller may go on). */
    int (*device_probe)(struct gb_device *dev);

    /* ---- memory ------------------------------------------------------------------------ */

    /* Allocates `bytes` (> 0) of kind `kind`. Returns GB_ETOOBIG when bytes exceeds the
     * device's max_alloc (device and pinned kinds) and GB_ENOMEM when the allocation fails.
     * Pageable memory is page-aligned and every page is touched, so first-touch faults never
     * land inside a timed region. Contents are unspecified. */
    int (*buf_alloc)(struct gb_device *dev, uint64_t bytes, enum gb_mem_kind kind,
                     struct gb_buf **out);
    void (*buf_free)(struct gb_buf *buf);
    /* Optional (NULL: only buf_alloc; the core checks for NULL): allocates `bytes` (> 0) on q's
     * device by method m (gb_alloc_method says what each calls and the kind it gives); the
     * stream-ordered methods order the allocation, and buf_free the free, on q, and neither
     * waits. GB_EUNSUPPORTED, with the reason, for a method this backend or device does not
     * offer (the suites record a skip); GB_ETOOBIG above the device's largest allocation;
     * GB_ENOMEM when the allocation fails. Contents are unspecified: nothing is touched. */
    int (*alloc_method)(struct gb_queue *q, enum gb_alloc_method m, uint64_t bytes,
                        struct gb_buf **out);
    /* Optional (NULL: no pool to read): the high-water marks of the pool behind method m on
     * q's device (GB_ALLOC_ASYNC, GB_ALLOC_ASYNC_KEEP), then, when `reset`, resets them to the
     * pool's current values. GB_EUNSUPPORTED for a method without a pool. */
    int (*alloc_pool_stats)(struct gb_queue *q, enum gb_alloc_method m, bool reset,
                            struct gb_pool_stats *out);
    /* Optional (NULL: the backend has no free-memory query; OpenCL has none): the device's
     * memory now, in bytes: *free_bytes what an allocation may still get, *total_bytes all of
     * it, and *source the query that said so (a string literal, "cudaMemGetInfo"). Returns 0,
     * or the error of a query that failed (the values are then 0). */
    int (*mem_info)(struct gb_device *dev, uint64_t *free_bytes, uint64_t *total_bytes,
                    const char **source);

    /* ---- queues and transfers ---------------------------------------------------------- */

    /* An in-order queue with profiling enabled. */
    int (*queue_create)(struct gb_device *dev, struct gb_queue **out);
    /* Optional (NULL: the backend has no queue priorities; the core checks for NULL, there is
     * no capability bit): a queue as queue_create makes it (in-order, profiling), with
     * scheduling priority `p` (gb_queue_priority says what each end is on each API), freed by
     * queue_destroy. CUDA: cudaStreamCreateWithPriority (non-blocking) at the end of
     * cudaDeviceGetStreamPriorityRange that p names; OpenCL: clCreateCommandQueueWithProperties
     * with CL_QUEUE_PRIORITY_KHR (cl_khr_priority_hints). GB_EUNSUPPORTED, with the reason and
     * nothing created, where the device has no priorities to choose from (an OpenCL device
     * without cl_khr_priority_hints, or on a platform older than OpenCL 2.0; a CUDA device whose
     * range is one value): the suites record a skip. GB_EINVAL for an unknown p. */
    int (*queue_create_priority)(struct gb_device *dev, enum gb_queue_priority p,
                                 struct gb_queue **out);
    void (*queue_destroy)(struct gb_queue *q);
    /* Submits what is queued (clFlush), without waiting. */
    int (*queue_flush)(struct gb_queue *q);
    /* Waits until everything enqueued on q has completed. */
    int (*queue_sync)(struct gb_queue *q);
    /* Copies `bytes` from src+src_off to dst+dst_off. The direction follows from the kinds:
     * host (pinned or pageable) -> device is H2D, device -> host is D2H, device -> device is D2D
     * (both on q's device). Host -> host is GB_EINVAL. Ranges are checked: GB_EINVAL when they
     * leave a buffer. */
    int (*copy)(struct gb_queue *q, struct gb_buf *dst, uint64_t dst_off, struct gb_buf *src,
                uint64_t src_off, uint64_t bytes, enum gb_copy_flags flags);
    /* GB_CAP_PEER only: copies between device buffers of two devices of this backend, enqueued
     * on q (which belongs to dst's or src's device). */
    int (*peer_copy)(struct gb_queue *q, struct gb_buf *dst, uint64_t dst_off, struct gb_buf *src,
                     uint64_t src_off, uint64_t bytes);
    /* GB_CAP_PEER only: whether `dev` can access `peer` directly (false: copies are staged). */
    int (*peer_can_access)(struct gb_device *dev, struct gb_device *peer, bool *out);

    /* ---- programs and launches --------------------------------------------------------- */

    /* Builds `source` (the kernel text, prelude included) with `ndefines` defines, each
     * "NAME=VALUE" or "NAME". On GB_EBUILD, *log (if log is non-NULL) receives the compiler's
     * log (malloc'd, caller frees); on success *log is set to NULL. */
    int (*program_build)(struct gb_device *dev, const char *source, const char *const *defines,
                         size_t ndefines, struct gb_program **out, char **log);
    void (*program_free)(struct gb_program *prog);
    /* Looks up kernel `name` in prog. */
    int (*kernel_get)(struct gb_program *prog, const char *name, struct gb_kernel **out);
    void (*kernel_free)(struct gb_kernel *k);
    /* Largest work-group size this kernel can be launched with on its device (OpenCL's
     * CL_KERNEL_WORK_GROUP_SIZE, CUDA's maxThreadsPerBlock attribute). */
    int (*kernel_max_wg)(struct gb_kernel *k, uint32_t *out);
    /* Enqueues one launch of k on q. GB_EINVAL for a local size above the device's limits or
     * a global size not divisible by the local size, without launching. */
    int (*launch)(struct gb_queue *q, struct gb_kernel *k, const struct gb_launch *l);
    /* Optional (NULL: the backend cannot time a launch on the device; the core checks for NULL,
     * there is no capability bit): `launch`, then waits until that launch has completed and
     * gives its device timestamps in *out. Checks and errors as for `launch`; GB_EINVAL while q
     * records a graph; GB_EBACKEND when the platform reports timestamps out of order. Nothing
     * else need be pending on q: what was enqueued before delays the kernel's start (and so
     * lengthens queued_to_end_ns), which is the caller's to avoid. */
    int (*launch_timed)(struct gb_queue *q, struct gb_kernel *k, const struct gb_launch *l,
                        struct gb_launch_times *out);

    /* ---- timing ------------------------------------------------------------------------ */

    int (*event_create)(struct gb_device *dev, struct gb_event **out);
    void (*event_free)(struct gb_event *ev);
    /* Records ev on q: it completes when everything enqueued on q before it has completed. */
    int (*event_record)(struct gb_queue *q, struct gb_event *ev);
    /* Waits for ev to complete. */
    int (*event_sync)(struct gb_event *ev);
    /* Nanoseconds between the completion of `start` and that of `end`, both recorded and
     * complete (event_sync). Device clock; resolution is the device's timer resolution. */
    int (*event_elapsed_ns)(struct gb_event *start, struct gb_event *end, uint64_t *ns);

    /* ---- BLAS (GB_CAP_BLAS_*) ---------------------------------------------------------- */

    /* Enqueues the GEMM (or strided-batched GEMM) described by g on q. GB_EUNSUPPORTED for a
     * type combination the device or library lacks, or a library that does not load (the
     * suites record a skip). Completion is observed with event_record
     * after the call, which covers every kernel the library enqueued. */
    int (*gemm)(struct gb_queue *q, const struct gb_gemm *g);
    /* Optional (NULL: no GEMV; callers fall back on gemm with n = 1 and say so). Enqueues the
     * matrix-vector product y = alpha op(A) x + beta y through the library's GEMV (CLBlast
     * Xgemv, cuBLAS cublas<t>gemv_v2_64), g being a gb_gemm with n = 1: A m x k (op(A)), B the
     * vector x of k elements, C the vector y of m, both contiguous (ldb = k, ldc = m), batch 1,
     * trans_b false, a_type = c_type = compute (F32 behind GB_CAP_BLAS_F32, F64 behind
     * GB_CAP_BLAS_F64; F16 too where the library has it). beta 0 leaves y's old contents out,
     * NaN included (BLAS's rule; OpenCL zero-fills y first, as CLBlast reads it). A library's GEMM with n = 1 is not
     * its GEMV: CLBlast's Sgemm at 512 x 1 x 1024 on PoCL runs slower than at 512 x 16 x 1024,
     * which made a sparse product read "faster than dense" at density 0.999. Errors and
     * completion as for gemm; GB_EINVAL for n != 1, a batch or a transposed x. */
    int (*gemv)(struct gb_queue *q, const struct gb_gemm *g);
    /* Optional (NULL: no FP8 GEMM; the suites check for NULL, then GB_CAP_BLAS_FP8). Enqueues
     * the FP8 GEMM g on q (CUDA: cublasLtMatmul). GB_EUNSUPPORTED, before anything is enqueued,
     * when g breaks gb_gemm_fp8_check's rules, the device lacks GB_CAP_BLAS_FP8, or the library
     * does not load (the reason names the files tried and the loader's error); GB_EBACKEND for
     * every status the library returns (the message carries its status string) and GB_EINVAL
     * for buffers that do not hold the matrices (gb_gemm_check_shape). Completion as for gemm. */
    int (*gemm_fp8)(struct gb_queue *q, const struct gb_gemm_fp8 *g);

    /* ---- convolution (optional: NULL where the backend has no convolution library) ------- */

    /* Plans the convolution c on q: checks the shape (gb_conv_out_dims) and the buffers, loads
     * the library (the first call in the process), chooses its algorithm by the library's own
     * search where it has one (cuDNN: cudnnFind*AlgorithmEx, which runs the candidates on q's
     * device now, outside any timed region, and may write to c's output buffer) and allocates
     * its workspace. GB_EUNSUPPORTED, with the reason, for a direction, layout, type or group
     * count the library lacks and for a library that does not load (the suite records a skip);
     * GB_EINVAL for buffers too small for the shape. The plan holds c's buffers, which must
     * outlive it. */
    int (*conv_plan)(struct gb_queue *q, const struct gb_conv *c, struct gb_conv_plan **out);
    /* Enqueues one convolution of plan p on its queue; no allocation, no host wait. Completion
     * is observed with event_record after the call, as for gemm. */
    int (*conv_run)(struct gb_conv_plan *p);
    /* Frees a plan (NULL is a no-op). */
    void (*conv_plan_free)(struct gb_conv_plan *p);

    /* ---- sparse (optional: NULL where the backend has no sparse library) -------------------- */

    /* Plans s on q: checks the sizes (every dimension, and nnz, below 2^31: the library's int32
     * indices) and buffers, loads the library (the first call in the process; cuSPARSE), asks
     * its workspace size and allocates it. GB_EUNSUPPORTED with the reason for a library that
     * does not load; GB_EINVAL for buffers too small. The plan holds s's buffers. */
    int (*spmm_plan)(struct gb_queue *q, const struct gb_spmm *s, struct gb_spmm_plan **out);
    /* Enqueues one product of plan p on its queue (cusparseSpMM, or cusparseSpMV for n = 1). */
    int (*spmm_run)(struct gb_spmm_plan *p);
    /* Frees a plan (NULL is a no-op). */
    void (*spmm_plan_free)(struct gb_spmm_plan *p);

    /* ---- launch graphs (GB_CAP_GRAPH) -------------------------------------------------- */

    /* Starts recording on q: the launches enqueued on q from now until graph_end are recorded
     * into a graph, in order, instead of being run (CUDA: stream capture; OpenCL: a
     * cl_khr_command_buffer of q). Each launch's arguments are captured when `launch` is called
     * (buffers by handle, scalars by value), so the caller may reuse its gb_launch at once.
     * Only `launch` may be called on q while it records: anything else on q is the caller's
     * mistake (the OpenCL backend refuses copy, event_record and queue_sync with GB_EINVAL; on
     * CUDA the capture is invalidated and graph_end fails). GB_EINVAL when q already records;
     * GB_EUNSUPPORTED when the device cannot record after all. */
    int (*graph_begin)(struct gb_queue *q);
    /* Ends the recording graph_begin started on q and readies it for replay (CUDA:
     * cudaStreamEndCapture and cudaGraphInstantiate; OpenCL: clFinalizeCommandBufferKHR). On
     * success *out is the graph (freed with graph_free); on failure q records no more and there
     * is nothing to free. GB_EINVAL when q is not recording. */
    int (*graph_end)(struct gb_queue *q, struct gb_graph **out);
    /* Enqueues one replay of every launch of g on q, the queue g was recorded on (GB_EINVAL for
     * another). A replay may be enqueued while earlier ones are pending: on the in-order queue
     * they run one after the other, in order with q's other work, and an event recorded after
     * them completes after them (so the harness times replays like launches). */
    int (*graph_launch)(struct gb_queue *q, struct gb_graph *g);
    /* Frees g (NULL: nothing); its replays must have completed. Before its queue is destroyed. */
    void (*graph_free)(struct gb_graph *g);

    /* ---- collective communication library (optional: NULL where the backend has none) ---- */

    /* Opens one communicator whose ranks are the devices devs[0..n) of this process, rank i
     * enqueuing on queues[i] (a queue of devs[i]); CUDA: libnccl loaded by dlopen (the first
     * call in the process), ncclCommInitAll. GB_EUNSUPPORTED, with what was tried as the
     * reason, where the library does not load or lacks an entry point the backend calls; a
     * library error is GB_EBACKEND with the library's own message. n = 1 is a valid
     * communicator (the 1-rank case runs the whole path on one device). */
    int (*comm_init)(struct gb_device *const *devs, struct gb_queue *const *queues, int n,
                     struct gb_comm **out);
    /* Writes this process's share of a communicator spanning processes: the opaque unique id
     * one rank makes and every rank must pass to comm_init_rank (NCCL: ncclGetUniqueId, 128
     * bytes). *len is id's size in, the id's length out. Errors as comm_init. */
    int (*comm_unique_id)(void *id, size_t *len);
    /* Joins rank `rank` of `nranks` (one per process, each on its device dev and queue q) to
     * the communicator named by id (NCCL: ncclCommInitRank); every rank calls it at once. */
    int (*comm_init_rank)(struct gb_device *dev, struct gb_queue *q, int nranks, int rank,
                          const void *id, size_t len, struct gb_comm **out);
    /* Enqueues one collective on every rank of c this process holds (NCCL: a group of one
     * call per rank); no host wait. Completion is observed with event_record on each rank's
     * queue after the call. GB_EUNSUPPORTED for a type or reduction the library lacks. */
    int (*comm_run)(struct gb_comm *c, const struct gb_coll *call);
    /* Frees c (NULL: nothing); its collectives must have completed. */
    void (*comm_free)(struct gb_comm *c);
};

/* The compiled-in backends, in the order `gpubench devices` lists them, NULL-terminated. A
 * backend is one folder, backends/NAME/, whose meson.build adds its sources and, when they
 * build, NAME to `backends_built`; its ops are `const struct gb_backend_ops gb_NAME_ops`. The
 * table is generated from meson.build's `backends` list (backends/table.c.in). */
extern const struct gb_backend_ops *const gb_backends[];
extern const size_t gb_backend_count;
/* The names of every backend gpubench knows, built here or not, NULL-terminated: a profile may
 * name any of them, so that one profile works on every machine. */
extern const char *const gb_backend_known[];

/* The backend called `name`, or NULL. */
const struct gb_backend_ops *gb_backend_find(const char *name);

/* A backend that could not start, and why (for `devices` and the run's log). */
struct gb_backend_status {
    const struct gb_backend_ops *ops;
    int err; /* 0 or the init error */
    char reason[512];
    int ndevices;
};

/* Initialises every compiled-in backend (status[i] for gb_backends[i]; status may be NULL):
 * status[i].err is init()'s error, with the error detail (else gb_strerror) as the reason, and
 * ndevices its device_count() when it started. */
void gb_backends_probe(struct gb_backend_status *status);

/* ---- checks and helpers shared by the backends -------------------------------------------- */

/* Whether two device handles stand for the same device, as a backend defines it (the CUDA
 * backend: the same index; the OpenCL backend: the same handle, since each open has its own
 * context). */
typedef bool (*gb_same_device_fn)(const struct gb_device *a, const struct gb_device *b);

/* Checks a launch's geometry before a backend enqueues anything, so that a bad tuning point is
 * a clear GB_EINVAL and not an API error after arguments were set: 1 to 3 dimensions; no zero
 * global or local size in a used dimension; the work-group (thread block) of local[0] * ... *
 * local[dims-1] work-items at most info->max_wg_size and, where kernel_max_wg is non-zero, at
 * most kernel_max_wg (CL_KERNEL_WORK_GROUP_SIZE / maxThreadsPerBlock); each local[d] at most
 * info->max_wg_dims[d]; each global[d] a multiple of local[d]. `kernel` names the kernel in the
 * message. Returns 0 or GB_EINVAL (error detail set); API-specific limits (grid dimensions,
 * size_t) stay with the backend. */
int gb_launch_check(const struct gb_launch *l, const struct gb_device_info *info,
                    uint32_t kernel_max_wg, const char *kernel);

/* Checks the shapes of a GEMM before a backend hands it to its BLAS library, after the backend
 * has checked the types: m, n, k and batch are non-zero; every size, leading dimension and
 * stride (elements) is at most max_size, the largest value of the library's index type
 * (INT64_MAX for cuBLAS's _64 API, SIZE_MAX for CLBlast), which the message names as max_name;
 * and g->a, g->b, g->c are device buffers of `dev` (as same_device defines it) whose bytes hold
 * the column-major op(A) (m×k, elements of a_type, leading dimension lda), op(B) (k×n, a_type,
 * ldb) and C (m×n, c_type, ldc), each `batch` times, stride_x elements apart: the last element
 * used is (batch-1)*stride + ld*(cols-1) + rows - 1, and ld must be at least rows. Returns 0,
 * GB_EINVAL (a zero size, a short ld, a buffer too small or not of dev), GB_ETOOBIG (a value
 * above max_size) or GB_EOVERFLOW (an extent beyond 64 bits), with the error detail set. */
int gb_gemm_check_shape(const struct gb_gemm *g, const struct gb_device *dev,
                        gb_same_device_fn same_device, uint64_t max_size, const char *max_name);

/* Checks a GEMV (the gemv member) before a backend hands it to its library: n and batch 1, x not
 * transposed, one type in, out and for the accumulation (GB_EINVAL saying what differs), then
 * gb_gemm_check_shape (x is B, k x 1; y is C, m x 1). */
int gb_gemv_check_shape(const struct gb_gemm *g, const struct gb_device *dev,
                        gb_same_device_fn same_device, uint64_t max_size, const char *max_name);

/* The rules an FP8 GEMM must follow (cuBLAS documentation, cublasLtMatmul, FP8 requirements):
 * the "TN" layout, A transposed and B not (trans_a true, trans_b false); a_type and b_type each
 * GB_F8E4M3 or GB_F8E5M2, not both GB_F8E5M2 (cuBLASLt's table has no E5M2 x E5M2); c_type
 * GB_F32, GB_F16 or GB_BF16; every dimension and leading dimension 16-byte aligned, which
 * gpubench takes as m, n, k, lda, ldb and ldc multiples of 16 (for the 1-byte inputs that is
 * the rule itself; for C it is stricter than the 16 bytes it needs); lda >= k, ldb >= k,
 * ldc >= m. Pure: looks at nothing but g's sizes, types and transposes. Returns 0, or
 * GB_EUNSUPPORTED with the first broken rule and the values that break it as the detail. */
int gb_gemm_fp8_check(const struct gb_gemm_fp8 *g);

/* A CPU clock above this (MHz) is a placeholder, not a clock (gb_cpu_facts_check). */
#define GB_CPU_MHZ_CEILING 10000u

/* Checks a CPU device's clock and compute units against the host it runs on, for a driver that
 * reports placeholders (300 MHz and 8 compute units on a 2-core machine have been seen; Intel's
 * CPU runtime reports a clock of 0). host_mhz is the host's maximum clock in MHz from
 * host_source ("cpufreq": cpuinfo_max_freq, a maximum; "cpuinfo": /proc/cpuinfo's "cpu MHz", a
 * current or nominal clock; gb_host_cpu_mhz, base/util.h), 0 when unknown; host_cpus the host's
 * online CPUs, 0 when unknown. The clock is the host's where the device reports 0, less than
 * half the host's, above GB_CPU_MHZ_CEILING whatever the host's source (no CPU core runs at
 * 10 GHz: the fastest shipped boost clocks are ~6.2 GHz), or more than 5/4 of a cpufreq maximum
 * (a current clock read from cpuinfo may
 * sit below the device's true maximum, never above half of it: turbo clocks stay within 2x of
 * the base); the compute units are the host's online CPUs where the device reports 0 or more.
 * Each replacement is said in info->clock_source (its comment gives the forms). A device that is
 * not GB_DEVICE_CPU, and every figure the host cannot contradict, stays as it is. Pure: reads
 * nothing but its arguments. */
void gb_cpu_facts_check(struct gb_device_info *info, uint32_t host_mhz, const char *host_source,
                        uint32_t host_cpus);

/* Allocates `bytes` (> 0) of ordinary (pageable) host memory aligned to the page size (4 KiB at
 * least) and touches every page, so that first-touch page faults are paid here and never land
 * in a timed copy (the contract of GB_MEM_HOST_PAGEABLE). Contents are unspecified. On success
 * *out is the block, released with free(). Returns 0, GB_ETOOBIG when bytes exceeds the address
 * space, or GB_ENOMEM, with the error detail set. */
int gb_pageable_alloc(uint64_t bytes, void **out);

#endif
