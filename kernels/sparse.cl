/* gpubench's own sparse times dense kernels: C (m x n) = A (m x k, sparse) B (k x n, dense), B and
 * C column-major (leading dimensions k and m), float in and out, float accumulation in the order
 * of A's stored entries. One work-item per element of C, the row index fastest (1-D launch,
 * global >= m n, any work-group size; work-items past the end do nothing). n = 1 is SpMV.
 *
 *   csr_spmm   A in CSR: row_ptr (m + 1 int offsets), col (int column indices), val (float).
 *   nm24_spmm  A 2:4 structured (every group of 4 consecutive entries of a row holds at most 2
 *              non-zeros, NVIDIA's sparse tensor cores' format): vals (m x k/2 floats, row-major:
 *              the kept pair of group g at [2g, 2g + 1]) and idx (m x k/2 bytes, the pair's
 *              positions 0..3 within the group); k a multiple of 4.
 *
 * Test define (tests/test_broken_kernels.c checks that verification catches each): GB_BREAK=1
 * drops the last stored entry of every row (csr) or the second of every pair (2:4); GB_BREAK=2
 * reads B one row off (a column index off by one).
 */

#ifndef GB_BREAK
#define GB_BREAK 0
#endif

GB_KERNEL void csr_spmm(GB_GLOBAL const int *GB_RESTRICT row_ptr,
                        GB_GLOBAL const int *GB_RESTRICT col, GB_GLOBAL const float *GB_RESTRICT val,
                        GB_GLOBAL const float *GB_RESTRICT b, GB_GLOBAL float *GB_RESTRICT c,
                        unsigned long m, unsigned long n, unsigned long k)
{
    const size_t t = GB_GLOBAL_ID(0);
    if (t >= m * n)
        return;
    const size_t i = t % m, j = t / m;
    const int lo = row_ptr[i], hi = row_ptr[i + 1] - (GB_BREAK == 1 && row_ptr[i + 1] > lo);
    float acc = 0.0f;
    for (int p = lo; p < hi; p++) {
        const size_t r = (size_t)col[p] + (GB_BREAK == 2 ? 1 : 0);
        acc = GB_FMA(val[p], b[(r < k ? r : 0) + j * k], acc);
    }
    c[i + j * m] = acc;
}

GB_KERNEL void nm24_spmm(GB_GLOBAL const float *GB_RESTRICT vals,
                         GB_GLOBAL const unsigned char *GB_RESTRICT idx,
                         GB_GLOBAL const float *GB_RESTRICT b, GB_GLOBAL float *GB_RESTRICT c,
                         unsigned long m, unsigned long n, unsigned long k)
{
    const size_t t = GB_GLOBAL_ID(0);
    if (t >= m * n)
        return;
    const size_t i = t % m, j = t / m, hk = k / 2;
    GB_GLOBAL const float *v = vals + i * hk;
    GB_GLOBAL const unsigned char *x = idx + i * hk;
    GB_GLOBAL const float *bj = b + j * k;
    float acc = 0.0f;
    for (size_t g = 0; g < k / 4; g++) {
        const size_t r0 = 4 * g + x[2 * g] + (GB_BREAK == 2 ? 1 : 0);
        acc = GB_FMA(v[2 * g], bj[r0 < k ? r0 : 0], acc);
        if (GB_BREAK != 1)
            acc = GB_FMA(v[2 * g + 1], bj[4 * g + x[2 * g + 1]], acc);
    }
    c[i + j * m] = acc;
}
