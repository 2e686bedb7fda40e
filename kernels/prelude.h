/* gpubench kernel prelude: one kernel text for OpenCL C and CUDA C++ (NVRTC).
 *
 * Kernel files are written with these macros only; the backend compiles prelude + file with its
 * own compiler and passes tunables as -D defines. Nothing here may depend on the host. Each
 * backend supplies its dialect's half (backends/NAME/prelude_NAME.h, embedded before this file
 * and taken only by its own compiler); this file holds what is common and checks that a dialect
 * was taken. Kernels switch on the feature macros, never on an API's name.
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
 * Features of the dialect, 0 or 1:
 *   GB_HAS_VECTOR_OPS       vector types with arithmetic and vector constructors (OpenCL C)
 *   GB_HAS_HALF_INTRINSICS  __half / __half2 with __hfma, __hfma2 (cuda_fp16.h)
 *   GB_HAS_BF16_INTRINSICS  __nv_bfloat16 / __nv_bfloat162 (cuda_bf16.h)
 *   GB_HAS_DP4A             __dp4a, the 4-way int8 dot product with accumulate (sm_61+)
 *   GB_HAS_ATOMIC_ADD_ALL   atomicAdd on unsigned 32- and 64-bit integers and on float
 * and the spellings that differ: GB_AS_FLOAT(u), GB_AS_UINT(f) (bits reinterpreted),
 * GB_UINT2(a, b), GB_UINT4(a, b, c, d), GB_UINT2_ADD(x, y), GB_UINT4_ADD(x, y) (componentwise),
 * GB_WG_HINT(x) and GB_WG_HINT_2D(x, y) (the work-group size a kernel is compiled for),
 * GB_ALIGN(n) (a type's alignment in bytes, written between `struct` and its name).
 */
#ifndef GB_PRELUDE_H
#define GB_PRELUDE_H

#if !defined(GB_KERNEL)
#error "gpubench kernels compile with an OpenCL C compiler or NVRTC/nvcc only"
#endif

/* The element type of most kernels: -DT=float (default) or -DT=double. */
#ifndef T
#define T float
#endif

#endif
