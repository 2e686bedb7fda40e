/* gpubench — the CUDA backend's vtable, gb_cuda_ops: the CUDA runtime API from C, NVRTC for the
 * kernels, cuBLAS for BLAS. The contract is backends/backend.h; backends/cuda/meson.build says
 * how it is linked and why (static cudart: the binary starts without libcuda.so.1; NVRTC and the
 * libraries dlopened by cuda_libs.c, whose search order gb_cuda.h documents).
 *
 * The members live in files by concern, their shared declarations in cuda_libs.h:
 *   cuda_errors.c   sticky errors, lost devices, the current device (gb__cuda_use), CU()
 *   cuda_device.c   init and discovery, device facts, device_open and device_close
 *   cuda_memory.c   buffers and the allocation methods
 *   cuda_queue.c    queues, transfers and peer access, events
 *   cuda_compile.c  NVRTC (gb_cuda_compile)
 *   cuda_launch.c   programs, kernels, launch and launch_timed
 *   cuda_blas.c     cuBLAS GEMM / GEMV, cuBLASLt FP8 GEMM
 *   cuda_dnn.c      convolution through cuDNN
 *   cuda_sparse.c   sparse times dense through cuSPARSE
 *   cuda_graph.c    launch graphs
 *   cuda_nccl.c     collectives through NCCL
 *   cuda_libs.c     finding and loading NVRTC and the libraries
 */
#include "gb-config.h"

#include <cuda_runtime_api.h>

#include "backends/backend.h"
#include "cuda_libs.h"
#include "gb_cuda.h"

/* device_open wants the vtable for the handle it makes; it gets it from here, so that the
 * device file does not reach back up to this one. */
static int device_open(int index, struct gb_device **out)
{
    return gb__cuda_device_open(index, &gb_cuda_ops, out);
}

/* The driver's JIT cache of PTX compiled for the device (CUDA_CACHE_PATH, "CUDA Environment
 * Variables" in the CUDA C++ Programming Guide); NVRTC itself keeps no cache. */
static const char *const cuda_cache_env[] = {"CUDA_CACHE_PATH", NULL};

const struct gb_backend_ops gb_cuda_ops = {
    .name = "cuda",
    .facts =
        {
            .peer_load = true,
            .nvidia_gpus = true,
            .compiler_cache_env = cuda_cache_env,
#if HAVE_CUBLAS
            .blas = "cublas",
#endif
#if !HAVE_CUBLASLT
            .fp8_absent = "no cuBLASLt in this build",
#endif
#if !HAVE_CUDNN
            .conv_absent = "no cuDNN headers in this build",
#endif
#if !HAVE_CUSPARSE
            .sparse_absent = "no cuSPARSE headers in this build",
#endif
        },
    .init = gb__cuda_init,
    .shutdown = gb__cuda_shutdown,
    .device_count = gb__cuda_device_count,
    .device_info = gb__cuda_device_info,
    .device_open = device_open,
    .device_close = gb__cuda_device_close,
    .buf_alloc = gb__cuda_buf_alloc,
    .buf_free = gb__cuda_buf_free,
    .alloc_method = gb__cuda_alloc_method,
    .alloc_pool_stats = gb__cuda_alloc_pool_stats,
    .queue_create = gb__cuda_queue_create,
    .queue_create_priority = gb__cuda_queue_create_priority,
    .queue_destroy = gb__cuda_queue_destroy,
    .queue_flush = gb__cuda_queue_flush,
    .queue_sync = gb__cuda_queue_sync,
    .copy = gb__cuda_copy,
    .peer_copy = gb__cuda_peer_copy,
    .peer_can_access = gb__cuda_peer_can_access,
    .program_build = gb__cuda_program_build,
    .program_free = gb__cuda_program_free,
    .kernel_get = gb__cuda_kernel_get,
    .kernel_free = gb__cuda_kernel_free,
    .kernel_max_wg = gb__cuda_kernel_max_wg,
    .launch = gb__cuda_launch,
    .launch_timed = gb__cuda_launch_timed,
    .event_create = gb__cuda_event_create,
    .event_free = gb__cuda_event_free,
    .event_record = gb__cuda_event_record,
    .event_sync = gb__cuda_event_sync,
    .event_elapsed_ns = gb__cuda_event_elapsed_ns,
    .graph_begin = gb__cuda_graph_begin,
    .graph_end = gb__cuda_graph_end,
    .graph_launch = gb__cuda_graph_launch,
    .graph_free = gb__cuda_graph_free,
#if HAVE_CUBLAS
    .gemm = gb__cuda_gemm,
    .gemv = gb__cuda_gemv,
#endif
#if HAVE_CUBLASLT
    .gemm_fp8 = gb__cuda_gemm_fp8,
#endif
#if HAVE_CUDNN
    .conv_plan = gb__cuda_conv_plan,
    .conv_run = gb__cuda_conv_run,
    .conv_plan_free = gb__cuda_dnn_free,
#endif
    .comm_init = gb__cuda_comm_init,
    .comm_unique_id = gb__cuda_comm_unique_id,
    .comm_init_rank = gb__cuda_comm_init_rank,
    .comm_run = gb__cuda_comm_run,
    .comm_free = gb__cuda_comm_free,
#if HAVE_CUSPARSE
    .spmm_plan = gb__cuda_spmm_plan,
    .spmm_run = gb__cuda_spmm_run,
    .spmm_plan_free = gb__cuda_sparse_free,
#endif
};
