/* Peak arithmetic throughput: chains of dependent multiply-adds, after clpeak (Bhat, "clpeak",
 * 2013-) and the "peak FLOPS" kernels of the GPU microbenchmarking literature (Jia et al.,
 * "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking", 2018).
 *
 * Every work-item runs CHAINS independent chains (x VEC lanes on OpenCL) of `iters` dependent
 * steps x = x * a + b, enough independent chains to keep the pipelines full, and writes the end
 * of every chain to out[], so the compiler can delete nothing; a and b are kernel arguments, so
 * it can fold nothing either. The host replays chains of sampled work-items step by step and
 * compares (suites/compute.c). Chain element idx = (global_id * CHAINS + chain) * VEC + lane
 * starts at
 *   floats:  1 + (idx mod 1024) / 1024          (exact in half; bf16: 1 + (idx mod 128) / 128)
 *   int32:   idx * 2654435761 + 12345 (mod 2^32)
 *   int8dot: idx * 2654435761 + 12345 (mod 2^32), read as 4 signed bytes
 * and a step is
 *   f64, f32, f16, half2, bf16:  x = fma(x, a, b)        2 flops per lane (the FMA counts 2)
 *   i32:                         x = x * a + b (mod 2^32) 2 ops
 *   int8dot:                     x = dp4a(x, y, z)       8 ops (4 multiplies, 4 adds)
 * With a just below 1 the float chains climb towards b / (1 - a) without reaching it in `iters`
 * steps, so every step changes the value and a wrong step count shows.
 *
 * Kernels: compute_f64, compute_f32, compute_i32 (every device); compute_f16, compute_half2
 * (devices with half arithmetic: cl_khr_fp16, CUDA); compute_bf16 (CUDA, packed __nv_bfloat162,
 * sm_80+); compute_int8dot (CUDA __dp4a, sm_61+; OpenCL 3.0 devices with the packed 4x8-bit
 * integer dot product feature). Arguments: (out, a, b, iters) — for int8dot a is y and b is z.
 *
 * Tunables (-D): CHAINS independent chains per work-item (default 8); VEC lanes per chain as an
 * OpenCL vector type (1, 2, 4, 8, 16; default 1; must be 1 on CUDA, which has no vector
 * arithmetic types — there, more chains give the same parallelism; half2 and bf16 are always
 * two-lane vectors and take VEC 1). `iters` must be a multiple of 4 (the loop is unrolled 4x).
 *
 * Test define: GB_BREAK makes one work-item in the middle of the launch (f32, f64, i32, f16,
 * half2) skip its steps and write its chains' starts; tests/test_broken_kernels.c checks that
 * verification catches it although that work-item is not among the sampled ones.
 */

#ifdef GB_BREAK
#define GB_BREAK_ITEM(g, iters)                                                                    \
    if ((g) == GB_GLOBAL_SIZE(0) / 2 + 1)                                                          \
    (iters) = 0
#else
#define GB_BREAK_ITEM(g, iters)
#endif

#ifndef CHAINS
#define CHAINS 8
#endif
#ifndef VEC
#define VEC 1
#endif

#if !GB_HAS_VECTOR_OPS && VEC != 1
#error "compute.cl: VEC must be 1 where the dialect has no vector arithmetic (CUDA)"
#endif

#define GB__CAT2(a, b) a##b
#define GB__CAT(a, b) GB__CAT2(a, b)

/* The vector type of VEC lanes of t, and the lane offsets 0..VEC-1 as that type. */
#if VEC == 1
#define VT(t) t
#define LANES(t) ((t)0)
#else
#define VT(t) GB__CAT(t, VEC)
#if VEC == 2
#define LANES(t) ((VT(t))(0, 1))
#elif VEC == 4
#define LANES(t) ((VT(t))(0, 1, 2, 3))
#elif VEC == 8
#define LANES(t) ((VT(t))(0, 1, 2, 3, 4, 5, 6, 7))
#elif VEC == 16
#define LANES(t) ((VT(t))(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
#else
#error "compute.cl: VEC must be 1, 2, 4, 8 or 16"
#endif
#endif

/* Four dependent steps of every chain. */
#define STEP4(step)               \
    for (int c = 0; c < CHAINS; c++) \
        step(x[c]);               \
    for (int c = 0; c < CHAINS; c++) \
        step(x[c]);               \
    for (int c = 0; c < CHAINS; c++) \
        step(x[c]);               \
    for (int c = 0; c < CHAINS; c++) \
        step(x[c]);

/* ---- floating point, every device ----------------------------------------------------------- */

#define FSTEP(v) v = GB_FMA(v, va, vb)

GB_KERNEL void compute_f32(GB_GLOBAL float *out, float a, float b, unsigned int iters)
{
    const size_t g = GB_GLOBAL_ID(0);
    const VT(float) va = (VT(float))(a), vb = (VT(float))(b);
    VT(float) x[CHAINS];
    for (int c = 0; c < CHAINS; c++) {
        const unsigned int base = (unsigned int)((g * CHAINS + (size_t)c) * VEC) & 1023u;
        x[c] = (VT(float))(1.0f + (float)base * (1.0f / 1024.0f)) +
               LANES(float) * (1.0f / 1024.0f);
    }
    GB_BREAK_ITEM(g, iters);
    for (unsigned int it = 0; it < iters; it += 4) {
        STEP4(FSTEP)
    }
    for (int c = 0; c < CHAINS; c++)
        ((GB_GLOBAL VT(float) *)out)[g * CHAINS + (size_t)c] = x[c];
}

#if GB_HAS_FP64
GB_KERNEL void compute_f64(GB_GLOBAL double *out, double a, double b, unsigned int iters)
{
    const size_t g = GB_GLOBAL_ID(0);
    const VT(double) va = (VT(double))(a), vb = (VT(double))(b);
    VT(double) x[CHAINS];
    for (int c = 0; c < CHAINS; c++) {
        const unsigned int base = (unsigned int)((g * CHAINS + (size_t)c) * VEC) & 1023u;
        x[c] = (VT(double))(1.0 + (double)base * (1.0 / 1024.0)) +
               LANES(double) * (1.0 / 1024.0);
    }
    GB_BREAK_ITEM(g, iters);
    for (unsigned int it = 0; it < iters; it += 4) {
        STEP4(FSTEP)
    }
    for (int c = 0; c < CHAINS; c++)
        ((GB_GLOBAL VT(double) *)out)[g * CHAINS + (size_t)c] = x[c];
}
#endif

/* ---- 32-bit integers ------------------------------------------------------------------------ */

#define ISTEP(v) v = v * va + vb

GB_KERNEL void compute_i32(GB_GLOBAL unsigned int *out, unsigned int a, unsigned int b,
                           unsigned int iters)
{
    const size_t g = GB_GLOBAL_ID(0);
    const VT(uint) va = (VT(uint))(a), vb = (VT(uint))(b);
    VT(uint) x[CHAINS];
    for (int c = 0; c < CHAINS; c++) {
        const unsigned int base = (unsigned int)((g * CHAINS + (size_t)c) * VEC);
        x[c] = ((VT(uint))(base) + LANES(uint)) * (VT(uint))(2654435761u) + (VT(uint))(12345u);
    }
    GB_BREAK_ITEM(g, iters);
    for (unsigned int it = 0; it < iters; it += 4) {
        STEP4(ISTEP)
    }
    for (int c = 0; c < CHAINS; c++)
        ((GB_GLOBAL VT(uint) *)out)[g * CHAINS + (size_t)c] = x[c];
}

/* ---- half precision (cl_khr_fp16, CUDA) ------------------------------------------------------ */

#if GB_HAS_FP16
#if !GB_HAS_HALF_INTRINSICS
typedef VT(half) gb_vhalf;
typedef half2 gb_half2;
#define HFMA(x, a, b) fma((x), (a), (b))
#define HFMA2(x, a, b) fma((x), (a), (b))
#define TO_HALF(f) ((half)(f))
#define TO_HALF2(f0, f1) ((half2)((half)(f0), (half)(f1)))
#else
typedef __half gb_vhalf;
typedef __half2 gb_half2;
#define HFMA(x, a, b) __hfma((x), (a), (b))
#define HFMA2(x, a, b) __hfma2((x), (a), (b))
#define TO_HALF(f) __float2half_rn(f)
#define TO_HALF2(f0, f1) __floats2half2_rn((f0), (f1))
#endif

#define HSTEP(v) v = HFMA(v, va, vb)

GB_KERNEL void compute_f16(GB_GLOBAL gb_half *out, float a, float b, unsigned int iters)
{
    const size_t g = GB_GLOBAL_ID(0);
#if GB_HAS_VECTOR_OPS && VEC > 1
    const gb_vhalf va = (gb_vhalf)((half)a), vb = (gb_vhalf)((half)b);
#else
    const gb_vhalf va = TO_HALF(a), vb = TO_HALF(b);
#endif
    gb_vhalf x[CHAINS];
    for (int c = 0; c < CHAINS; c++) {
        const unsigned int base = (unsigned int)((g * CHAINS + (size_t)c) * VEC) & 1023u;
#if GB_HAS_VECTOR_OPS && VEC > 1
        /* Exact: base + lane <= 1023, so every start is a multiple of 2^-10 below 2. A vector
         * is converted by convert_halfN (convert_half takes a scalar). */
        x[c] = (gb_vhalf)((half)(1.0f + (float)base * (1.0f / 1024.0f))) +
               GB__CAT(convert_half, VEC)(LANES(float) * (1.0f / 1024.0f));
#else
        x[c] = TO_HALF(1.0f + (float)base * (1.0f / 1024.0f));
#endif
    }
    GB_BREAK_ITEM(g, iters);
    for (unsigned int it = 0; it < iters; it += 4) {
        STEP4(HSTEP)
    }
    for (int c = 0; c < CHAINS; c++)
        ((GB_GLOBAL gb_vhalf *)out)[g * CHAINS + (size_t)c] = x[c];
}

#define H2STEP(v) v = HFMA2(v, va, vb)

/* Two lanes per chain: element idx = (global_id * CHAINS + chain) * 2 + lane. */
GB_KERNEL void compute_half2(GB_GLOBAL gb_half *out, float a, float b, unsigned int iters)
{
    const size_t g = GB_GLOBAL_ID(0);
    const gb_half2 va = TO_HALF2(a, a), vb = TO_HALF2(b, b);
    gb_half2 x[CHAINS];
    for (int c = 0; c < CHAINS; c++) {
        const unsigned int base = (unsigned int)((g * CHAINS + (size_t)c) * 2) & 1023u;
        x[c] = TO_HALF2(1.0f + (float)base * (1.0f / 1024.0f),
                        1.0f + (float)(base + 1u) * (1.0f / 1024.0f));
    }
    GB_BREAK_ITEM(g, iters);
    for (unsigned int it = 0; it < iters; it += 4) {
        STEP4(H2STEP)
    }
    for (int c = 0; c < CHAINS; c++)
        ((GB_GLOBAL gb_half2 *)out)[g * CHAINS + (size_t)c] = x[c];
}
#endif

/* ---- bfloat16 and int8 dot products: CUDA ------------------------------------------------- */

#if GB_HAS_BF16_INTRINSICS
#include <cuda_bf16.h>

#define B2STEP(v) v = __hfma2(v, va, vb)

/* Packed __nv_bfloat162 FMAs (sm_80+). Two lanes per chain, as compute_half2; element idx
 * starts at 1 + (idx mod 128) / 128, exact in bfloat16. out holds the bfloat16 bits. */
GB_KERNEL void compute_bf16(GB_GLOBAL unsigned short *out, float a, float b, unsigned int iters)
{
    const size_t g = GB_GLOBAL_ID(0);
    const __nv_bfloat162 va = __floats2bfloat162_rn(a, a), vb = __floats2bfloat162_rn(b, b);
    __nv_bfloat162 x[CHAINS];
    for (int c = 0; c < CHAINS; c++) {
        const unsigned int base = (unsigned int)((g * CHAINS + (size_t)c) * 2) & 127u;
        x[c] = __floats2bfloat162_rn(1.0f + (float)base * (1.0f / 128.0f),
                                     1.0f + (float)(base + 1u) * (1.0f / 128.0f));
    }
    for (unsigned int it = 0; it < iters; it += 4) {
        STEP4(B2STEP)
    }
    for (int c = 0; c < CHAINS; c++)
        ((__nv_bfloat162 *)out)[g * CHAINS + (size_t)c] = x[c];
}
#endif

#if GB_HAS_DP4A
#define DP4A(x, y, z) __dp4a((int)(x), (int)(y), (int)(z))
#define HAVE_DP4A 1
#elif defined(__opencl_c_integer_dot_product_input_4x8bit_packed)
#define DP4A(x, y, z) (dot_4x8packed_ss_int((uint)(x), (uint)(y)) + (int)(z))
#define HAVE_DP4A 1
#endif

#if defined(HAVE_DP4A)
#define DSTEP(v) v = DP4A(v, y, z)

GB_KERNEL void compute_int8dot(GB_GLOBAL int *out, int y, int z, unsigned int iters)
{
    const size_t g = GB_GLOBAL_ID(0);
    int x[CHAINS];
    for (int c = 0; c < CHAINS; c++)
        x[c] = (int)((unsigned int)(g * CHAINS + (size_t)c) * 2654435761u + 12345u);
    for (unsigned int it = 0; it < iters; it += 4) {
        STEP4(DSTEP)
    }
    for (int c = 0; c < CHAINS; c++)
        out[g * CHAINS + (size_t)c] = x[c];
}
#endif
