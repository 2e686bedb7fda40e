/* gpubench kernel dialect: OpenCL C. The OpenCL backend's half of the prelude (kernels/prelude.h
 * has the contract of every macro): embedded before the common prelude, taken only by an OpenCL C
 * compiler. Kernels switch on the feature macros below, never on the API's name. */
#if defined(__OPENCL_VERSION__)

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
#define GB_ALIGN(n) __attribute__((aligned(n)))

/* Features (kernels/prelude.h): vector types with arithmetic, reinterpreting casts, uint2/uint4
 * construction and sums, a 2-D work-group hint; no CUDA-style half/bfloat16 intrinsics. */
#define GB_HAS_VECTOR_OPS 1
#define GB_HAS_HALF_INTRINSICS 0
#define GB_HAS_BF16_INTRINSICS 0
#define GB_HAS_DP4A 0
#define GB_HAS_ATOMIC_ADD_ALL 0
#define GB_AS_FLOAT(u) as_float(u)
#define GB_AS_UINT(f) as_uint(f)
#define GB_UINT2(a, b) ((uint2)((a), (b)))
#define GB_UINT4(a, b, c, d) ((uint4)((a), (b), (c), (d)))
#define GB_UINT2_ADD(a, b) ((a) + (b))
#define GB_UINT4_ADD(a, b) ((a) + (b))
#define GB_WG_HINT_2D(x, y) __attribute__((reqd_work_group_size((x), (y), 1)))
#endif
