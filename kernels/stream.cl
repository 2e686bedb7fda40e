/* Device-memory bandwidth kernels, after BabelStream (McIntosh-Smith et al., "GPU-STREAM v2.0",
 * 2017): copy c = a, mul b = s*c, add c = a + b, triad a = b + s*c, dot sum(a*b).
 *
 * Tunables (-D): T element type (float, double); WG work-group size of the dot reduction (a
 * power of two); VEC (1, 2, 4, 8, 16) elements per work-item of copy, mul, add and triad, as one
 * vector of VEC elements: the arrays are read and written as vectors, work-item i handles
 * elements VEC*i .. VEC*i + VEC-1, and `base` counts vectors. The same bytes are moved; only the
 * width of the loads and stores changes. OpenCL C: the vector type T##VEC (on a CPU device one
 * work-item's vector becomes one SIMD load or store however the runtime packs work-items). CUDA
 * C++, which has no vector arithmetic: a struct of VEC elements aligned to its size, so that a
 * work-item's load is one 16-byte ld.global.v4 (float4, double2; wider vectors are several),
 * which keeps four times the bytes of a float load in flight per thread.
 *
 * copy, mul, add and triad handle one element per work-item, element base + global id, with no
 * bounds check and no loop: that is the form every OpenCL and CUDA compiler vectorises best (a
 * CPU OpenCL runtime vectorises across work-items, which a per-item loop or a branch defeats).
 * The host launches the largest multiple of the work-group size that fits in n with base 0, and
 * the remainder, if any, as a second launch of single work-items starting at that base.
 * dot uses a grid-stride loop over a fixed number of work-groups and writes one partial sum per
 * work-group.
 *
 * OFF (default 0): the element offset of every array (the memory suite's axis offset, in
 * bytes there, divided by sizeof(T)): element k of each array is element OFF + k of its buffer,
 * so the arrays start OFF * sizeof(T) bytes into their buffers. With VEC > 1, OFF must be a
 * multiple of VEC (a vector load or store at an address that is not a multiple of the vector's
 * size is undefined in OpenCL C and faults on CUDA); the host skips such cases, and the build
 * refuses them. OFF = 0 compiles to the same code as without it.
 *
 * Test defines: GB_BREAK makes copy, mul, add and triad skip the write of element 0 (with
 * VEC > 1, of vector 0: elements 0 .. VEC-1; a partial write either way) and dot drop the
 * terms of work-item 0 (a dropped chunk of the reduction); GB_IGNORE_OFFSET makes every kernel
 * read and write from the start of its buffers, as if OFF were 0 (an offset ignored);
 * tests/test_broken_kernels.c and tests/test_suites.c check that verification catches them.
 */

#ifdef GB_BREAK
#define GB_SKIP_FIRST(i)                                                                           \
    if ((i) == 0)                                                                                  \
    return
#else
#define GB_SKIP_FIRST(i)
#endif

#ifndef VEC
#define VEC 1
#endif
#ifndef OFF
#define OFF 0
#endif
#if OFF % VEC != 0
#error "OFF (elements) must be a multiple of VEC: a misaligned vector access is undefined"
#endif
/* The arrays' offset into their buffers: GB_OFF_T in elements (dot), GB_OFF_V in vectors of VEC
 * elements (copy, mul, add, triad). */
#ifdef GB_IGNORE_OFFSET
#define GB_OFF_T 0
#else
#define GB_OFF_T (OFF)
#endif
#define GB_OFF_V (GB_OFF_T / VEC)
/* TV, a work-item's vector, and its arithmetic: GB_SV_MUL(s, x) = s x, GB_SV_ADD(x, y) = x + y,
 * GB_SV_TRIAD(x, s, y) = x + s y. */
#if VEC == 1 || GB_HAS_VECTOR_OPS
#if VEC == 1
#define TV T
#else
#define GB_STREAM_CAT_(a, b) a##b
#define GB_STREAM_CAT(a, b) GB_STREAM_CAT_(a, b)
#define TV GB_STREAM_CAT(T, VEC) /* float4, double8, ... */
#endif
#define GB_SV_MUL(s, x) ((s) * (x))
#define GB_SV_ADD(x, y) ((x) + (y))
#define GB_SV_TRIAD(x, s, y) ((x) + (s) * (y))
#else
struct GB_ALIGN(VEC * sizeof(T)) gb_stream_vec {
    T v[VEC];
};
#define TV struct gb_stream_vec
GB_INLINE TV GB_SV_MUL(T s, TV x)
{
    TV r;
#pragma unroll
    for (int k = 0; k < VEC; k++)
        r.v[k] = s * x.v[k];
    return r;
}
GB_INLINE TV GB_SV_ADD(TV x, TV y)
{
    TV r;
#pragma unroll
    for (int k = 0; k < VEC; k++)
        r.v[k] = x.v[k] + y.v[k];
    return r;
}
GB_INLINE TV GB_SV_TRIAD(TV x, T s, TV y)
{
    TV r;
#pragma unroll
    for (int k = 0; k < VEC; k++)
        r.v[k] = x.v[k] + s * y.v[k];
    return r;
}
#endif

GB_KERNEL void stream_copy(GB_CONSTANT_ARG TV *GB_RESTRICT a, GB_GLOBAL TV *GB_RESTRICT c,
                           unsigned long base)
{
    const size_t i = base + GB_GLOBAL_ID(0);
    GB_SKIP_FIRST(i);
    c[GB_OFF_V + i] = a[GB_OFF_V + i];
}

GB_KERNEL void stream_mul(GB_GLOBAL TV *GB_RESTRICT b, GB_CONSTANT_ARG TV *GB_RESTRICT c, T s,
                          unsigned long base)
{
    const size_t i = base + GB_GLOBAL_ID(0);
    GB_SKIP_FIRST(i);
    b[GB_OFF_V + i] = GB_SV_MUL(s, c[GB_OFF_V + i]);
}

GB_KERNEL void stream_add(GB_CONSTANT_ARG TV *GB_RESTRICT a, GB_CONSTANT_ARG TV *GB_RESTRICT b,
                          GB_GLOBAL TV *GB_RESTRICT c, unsigned long base)
{
    const size_t i = base + GB_GLOBAL_ID(0);
    GB_SKIP_FIRST(i);
    c[GB_OFF_V + i] = GB_SV_ADD(a[GB_OFF_V + i], b[GB_OFF_V + i]);
}

GB_KERNEL void stream_triad(GB_GLOBAL TV *GB_RESTRICT a, GB_CONSTANT_ARG TV *GB_RESTRICT b,
                            GB_CONSTANT_ARG TV *GB_RESTRICT c, T s, unsigned long base)
{
    const size_t i = base + GB_GLOBAL_ID(0);
    GB_SKIP_FIRST(i);
    a[GB_OFF_V + i] = GB_SV_TRIAD(b[GB_OFF_V + i], s, c[GB_OFF_V + i]);
}

#ifndef WG
#define WG 256
#endif

/* Each work-group writes one partial sum to sums[group]; the host adds the partial sums (as
 * BabelStream does). Launch with a local size of exactly WG. */
GB_KERNEL void stream_dot(GB_CONSTANT_ARG T *GB_RESTRICT a, GB_CONSTANT_ARG T *GB_RESTRICT b,
                          GB_GLOBAL T *GB_RESTRICT sums, unsigned long n)
{
    GB_LOCAL T part[WG];
    const size_t lid = GB_LOCAL_ID(0);
    T acc = (T)0;
    for (size_t i = GB_GLOBAL_ID(0); i < n; i += GB_GLOBAL_SIZE(0))
        acc += a[GB_OFF_T + i] * b[GB_OFF_T + i];
#ifdef GB_BREAK
    if (GB_GLOBAL_ID(0) == 0)
        acc = (T)0;
#endif
    part[lid] = acc;
    for (size_t off = WG / 2; off > 0; off /= 2) {
        GB_BARRIER();
        if (lid < off)
            part[lid] += part[lid + off];
    }
    if (lid == 0)
        sums[GB_GROUP_ID(0)] = part[0];
}
