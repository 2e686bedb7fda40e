/* Kernels of the multi-device suites (suites/: balance.c, peerbw.c, scaling.c; the reductions of
 * allreduce.c, collective.c and parallel.c are kernels/collective.cl's).
 *
 * multi_sgemm: C = A B in float, column-major (the BLAS convention): A is m x k (lda = m), B is
 * k x n (ldb = k), C is m x n (ldc = m); TS x TS work-items per work-group, each computing one
 * element of C from TS x TS tiles of A and B staged in local memory. The fallback when the
 * backend has no BLAS; it is a fair tiled kernel, not a tuned one.
 * multi_work: the load-balancing job: element i of a range runs `iters` dependent fused
 * multiply-adds from a seed that depends on i mod 1024, so the host checks every element against
 * 1024 reference values, and the work per element is what `iters` says (2 flops each).
 *
 * multi_copy: the SM copy of the peerbw suite, dst[i] = src[i] for i < n words, grid-stride
 * (each work-item copies words gid, gid + global size, ...). A word is 16 bytes (uint4) with
 * -DCOPY_VEC4, else 4 bytes. On CUDA src may be a buffer of another device that the launching
 * device has peer access to: the loads then cross the peer link (NVLink / PCIe), which is what
 * the kernel measures.
 *
 * Kernels with a bounds check are launched with the global size rounded up to the work-group.
 */

#ifndef TS
#define TS 16
#endif

GB_KERNEL void multi_sgemm(unsigned long m, unsigned long n, unsigned long k,
                           GB_CONSTANT_ARG float *GB_RESTRICT a,
                           GB_CONSTANT_ARG float *GB_RESTRICT b, GB_GLOBAL float *GB_RESTRICT c)
{
    GB_LOCAL float as[TS][TS];
    GB_LOCAL float bs[TS][TS];
    const size_t li = GB_LOCAL_ID(0), lj = GB_LOCAL_ID(1);
    const size_t i = GB_GLOBAL_ID(0), j = GB_GLOBAL_ID(1);
    float acc = 0.0f;
    for (size_t t = 0; t < k; t += TS) {
        /* as[l][li] = A[i][t + l] and bs[lj][l] = B[t + l][j], zero outside the matrices. */
        as[lj][li] = (i < m && t + lj < k) ? a[(t + lj) * m + i] : 0.0f;
        bs[lj][li] = (t + li < k && j < n) ? b[j * k + t + li] : 0.0f;
        GB_BARRIER();
        for (size_t l = 0; l < TS; l++)
            acc = GB_FMA(as[l][li], bs[lj][l], acc);
        GB_BARRIER();
    }
    if (i < m && j < n)
        c[j * m + i] = acc;
}

/* The recurrence v <- v * MW_A + MW_B with exactly representable constants; it stays within
 * [0, 1], so no element overflows whatever `iters` is. */
#define MW_A 0.9990234375f
#define MW_B 0.0009765625f

/* No bounds check, as the stream kernels (kernels/stream.cl says why): the host launches whole
 * work-groups and then the remainder as single work-items, each launch from its own base. */
GB_KERNEL void multi_work(GB_GLOBAL float *GB_RESTRICT y, unsigned long base, unsigned int iters)
{
    const size_t i = GB_GLOBAL_ID(0);
    float v = (float)((base + i) % 1024) * (1.0f / 1024.0f);
    for (unsigned int k = 0; k < iters; k++)
        v = GB_FMA(v, MW_A, MW_B);
    y[base + i] = v;
}

#if defined(COPY_VEC4)
typedef uint4 copy_word;
#else
typedef unsigned int copy_word;
#endif

GB_KERNEL void multi_copy(GB_GLOBAL copy_word *GB_RESTRICT dst,
                          GB_CONSTANT_ARG copy_word *GB_RESTRICT src, unsigned long n)
{
    for (size_t i = GB_GLOBAL_ID(0); i < n; i += GB_GLOBAL_SIZE(0))
        dst[i] = src[i];
}
