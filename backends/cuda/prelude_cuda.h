/* gpubench kernel dialect: CUDA C++ (NVRTC). The CUDA backend's half of the prelude
 * (kernels/prelude.h has the contract of every macro): embedded before the common prelude, taken
 * only by NVRTC or nvcc. Kernels switch on the feature macros below, never on the API's name. */
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
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
#define GB_ALIGN(n) __align__(n)

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

/* OpenCL C's name, so that kernels read the same in both dialects. */
typedef unsigned int uint;

/* Features (kernels/prelude.h): no vector arithmetic types (uint2/uint4 are plain structs);
 * half and bfloat16 intrinsics (cuda_fp16.h, cuda_bf16.h); atomicAdd on 32- and 64-bit unsigned
 * integers and on float. */
#define GB_HAS_VECTOR_OPS 0
#define GB_HAS_HALF_INTRINSICS 1
#define GB_HAS_BF16_INTRINSICS 1
#define GB_HAS_DP4A 1
#define GB_HAS_ATOMIC_ADD_ALL 1
#define GB_AS_FLOAT(u) __uint_as_float(u)
#define GB_AS_UINT(f) __float_as_uint(f)
#define GB_UINT2(a, b) make_uint2((a), (b))
#define GB_UINT4(a, b, c, d) make_uint4((a), (b), (c), (d))
#define GB_UINT2_ADD(a, b) make_uint2((a).x + (b).x, (a).y + (b).y)
#define GB_UINT4_ADD(a, b) make_uint4((a).x + (b).x, (a).y + (b).y, (a).z + (b).z, (a).w + (b).w)
#define GB_WG_HINT_2D(x, y) __launch_bounds__((x) * (y))
#endif
