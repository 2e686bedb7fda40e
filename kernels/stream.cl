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
 * Test define: GB_BREAK makes copy, mul, add and triad skip the write of element 0 (with
 * VEC > 1, of vector 0: elements 0 .. VEC-1; a partial write either way) and dot drop the
 * terms of work-item 0 (a dropped chunk of the reduction); tests/test_broken_kernels.c checks that
 * verification catches both.
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
    c[i] = a[i];
}

GB_KERNEL void stream_mul(GB_GLOBAL TV *GB_RESTRICT b, GB_CONSTANT_ARG TV *GB_RESTRICT c, T s,
                          unsigned long base)
{
    const size_t i = base + GB_GLOBAL_ID(0);
    GB_SKIP_FIRST(i);
    b[i] = GB_SV_MUL(s, c[i]);
}

GB_KERNEL void stream_add(GB_CONSTANT_ARG TV *GB_RESTRICT a, GB_CONSTANT_ARG TV *GB_RESTRICT b,
                          GB_GLOBAL TV *GB_RESTRICT c, unsigned long base)
{
    const size_t i = base + GB_GLOBAL_ID(0);
    GB_SKIP_FIRST(i);
    c[i] = GB_SV_ADD(a[i], b[i]);
}

GB_KERNEL void stream_triad(GB_GLOBAL TV *GB_RESTRICT a, GB_CONSTANT_ARG TV *GB_RESTRICT b,
                            GB_CONSTANT_ARG TV *GB_RESTRICT c, T s, unsigned long base)
{
    const size_t i = base + GB_GLOBAL_ID(0);
    GB_SKIP_FIRST(i);
    a[i] = GB_SV_TRIAD(b[i], s, c[i]);
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
        acc += a[i] * b[i];
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
