/* gpubench kernel prelude: one kernel text for OpenCL C and CUDA C++ (NVRTC).
 *
 * Kernel files are written with these macros only; the backend compiles prelude + file with its
 * own compiler and passes tunables as -D defines. Nothing here may depend on the host.
 *
 *   GB_KERNEL            a kernel entry point (extern "C" on CUDA, so names are not mangled)
 *   GB_GLOBAL            qualifier of a pointer to global / device memory
 *   GB_LOCAL             qualifier of a work-group / thread-block shared array
 *   GB_CONSTANT_ARG      qualifier of a read-only kernel pointer argument
 *   GB_RESTRICT          restrict / __restrict__
 *   GB_GLOBAL_ID(d)      work-item index in the whole launch, dimension d (0, 1, 2); size_t
 *   GB_LOCAL_ID(d), GB_GROUP_ID(d), GB_LOCAL_SIZE(d), GB_NUM_GROUPS(d), GB_GLOBAL_SIZE(d)
 *   GB_BARRIER()         work-group barrier with local-memory fence (__syncthreads)
 *   GB_INLINE            an inline device function
 *   GB_FMA(a, b, c)      fused multiply-add
 *   gb_half              the 16-bit storage type; GB_LOAD_HALF(p, i) / GB_STORE_HALF(v, p, i)
 *                        convert to/from float and work on every OpenCL device (vload_half)
 *   GB_HAS_FP64          1 when double arithmetic is available
 *   GB_HAS_FP16          1 when half arithmetic is available (cl_khr_fp16, or CUDA)
 */
#ifndef GB_PRELUDE_H
#define GB_PRELUDE_H

#if defined(__OPENCL_VERSION__)
#define GB_OPENCL 1

#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define GB_HAS_FP64 1
#else
#define GB_HAS_FP64 0
#endif
#if defined(cl_khr_fp16)
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define GB_HAS_FP16 1
#else
#define GB_HAS_FP16 0
#endif

#define GB_KERNEL __kernel
#define GB_GLOBAL __global
#define GB_LOCAL __local
#define GB_CONSTANT_ARG __global const
#define GB_RESTRICT restrict
#define GB_INLINE inline
#define GB_GLOBAL_ID(d) get_global_id(d)
#define GB_LOCAL_ID(d) get_local_id(d)
#define GB_GROUP_ID(d) get_group_id(d)
#define GB_LOCAL_SIZE(d) get_local_size(d)
#define GB_NUM_GROUPS(d) get_num_groups(d)
#define GB_GLOBAL_SIZE(d) get_global_size(d)
#define GB_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define GB_FMA(a, b, c) fma((a), (b), (c))
typedef half gb_half;
#define GB_LOAD_HALF(p, i) vload_half((i), (p))
#define GB_STORE_HALF(v, p, i) vstore_half((v), (i), (p))
/* Work-group size hint: lets the compiler specialise for a fixed size. */
#define GB_WG_HINT(x) __attribute__((reqd_work_group_size((x), 1, 1)))

#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define GB_CUDA 1
#define GB_HAS_FP64 1
#define GB_HAS_FP16 1

#include <cuda_fp16.h>
/* NVRTC parses its built-in header with the command-line macros already defined, and a -DT=float
 * breaks that header's templates; so the CUDA backend hands the -D tunables over as this
 * in-memory header instead, included after every system header. */
#if defined(__CUDACC_RTC__)
#include "gb_defines.h"
#endif

#define GB_KERNEL extern "C" __global__
#define GB_GLOBAL
#define GB_LOCAL __shared__
#define GB_CONSTANT_ARG const
#define GB_RESTRICT __restrict__
#define GB_INLINE __device__ __forceinline__
#define GB_WG_HINT(x) __launch_bounds__(x)

__device__ __forceinline__ unsigned gb__dim3(dim3 v, int d)
{
    return d == 0 ? v.x : (d == 1 ? v.y : v.z);
}
__device__ __forceinline__ unsigned gb__uint3(uint3 v, int d)
{
    return d == 0 ? v.x : (d == 1 ? v.y : v.z);
}
#define GB_LOCAL_ID(d) ((size_t)gb__uint3(threadIdx, (d)))
#define GB_GROUP_ID(d) ((size_t)gb__uint3(blockIdx, (d)))
#define GB_LOCAL_SIZE(d) ((size_t)gb__dim3(blockDim, (d)))
#define GB_NUM_GROUPS(d) ((size_t)gb__dim3(gridDim, (d)))
#define GB_GLOBAL_ID(d) (GB_GROUP_ID(d) * GB_LOCAL_SIZE(d) + GB_LOCAL_ID(d))
#define GB_GLOBAL_SIZE(d) (GB_NUM_GROUPS(d) * GB_LOCAL_SIZE(d))
#define GB_BARRIER() __syncthreads()
#define GB_FMA(a, b, c) fma((a), (b), (c))
typedef __half gb_half;
#define GB_LOAD_HALF(p, i) __half2float((p)[(i)])
#define GB_STORE_HALF(v, p, i) ((p)[(i)] = __float2half_rn(v))

#else
#error "gpubench kernels compile with an OpenCL C compiler or NVRTC/nvcc only"
#endif

/* The element type of most kernels: -DT=float (default) or -DT=double. */
#ifndef T
#define T float
#endif

#endif
