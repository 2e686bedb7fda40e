/* Read bandwidth of the level of the memory hierarchy that holds a working set (the bandwidth
 * staircase beside kernels/latency.cl's latency staircase), after the cache sweeps of gpu-benches
 * (Hirsch and Gruber, "Microbenchmarks for GPU caches", github.com/te42kyfo/gpu-benches) and
 * clpeak's global-memory bandwidth kernels.
 *
 * Tunables (-D): VEC, the vector width of a load in unsigned ints (1, 2 or 4: 4, 8 or 16 bytes).
 *
 * cache_read: work-item g of a launch of G reads `iters` vectors of data[0..n), starting at
 * (g x first) mod n and stepping by `step` (< n) with wrap-around, and stores the (wrapping) sum
 * of every lane it read into sums[g]. The host picks one of two layouts:
 *   interleaved  first = 1, step = G mod n (1 when that is 0): a grid-stride loop when the set
 *                is larger than the launch, every work-item cycling through the whole set when
 *                it is smaller; at every step neighbouring work-items read neighbouring vectors
 *                (coalesced: the GPU layout);
 *   blocked      first = ceil(n / G), step = 1: every work-item reads its own run of
 *                consecutive vectors (the CPU layout, which a CPU compiler vectorises).
 * With step 1 the loop reads runs up to the end of the set; otherwise it is unrolled by 4 (iters
 * is a multiple of 4) so that four independent loads are in flight per work-item. The sums
 * depend on every load, so none can be left out, and sums[g] is the same after any number of
 * launches.
 *
 * Test define: GB_BREAK reads the first vector twice (tests/test_chip.c).
 */

#ifndef VEC
#define VEC 4
#endif

#if VEC == 1
typedef unsigned int cache_vt;
#define CACHE_ZERO 0u
#define CACHE_ADD(a, b) ((a) + (b))
#define CACHE_SUM(v) (v)
#elif VEC == 2
typedef uint2 cache_vt;
#define CACHE_ZERO GB_UINT2(0u, 0u)
#define CACHE_ADD(a, b) GB_UINT2_ADD(a, b)
#define CACHE_SUM(v) ((v).x + (v).y)
#elif VEC == 4
typedef uint4 cache_vt;
#define CACHE_ZERO GB_UINT4(0u, 0u, 0u, 0u)
#define CACHE_ADD(a, b) GB_UINT4_ADD(a, b)
#define CACHE_SUM(v) ((v).x + (v).y + (v).z + (v).w)
#else
#error "VEC must be 1, 2 or 4"
#endif

GB_KERNEL void cache_read(GB_GLOBAL const cache_vt *data, GB_GLOBAL unsigned int *sums,
                          unsigned int n, unsigned int first, unsigned int step,
                          unsigned int iters)
{
    const unsigned int g = (unsigned int)GB_GLOBAL_ID(0);
    unsigned int i = (unsigned int)(((unsigned long)g * first) % n);
    cache_vt acc = CACHE_ZERO;
#ifdef GB_BREAK
    acc = CACHE_ADD(acc, data[i]);
#endif
    if (step == 1) {
        /* Runs of consecutive vectors up to the end of the set: a loop a CPU compiler
         * vectorises. */
        for (unsigned int j = 0; j < iters;) {
            unsigned int run = n - i;
            if (run > iters - j)
                run = iters - j;
            for (unsigned int t = 0; t < run; t++)
                acc = CACHE_ADD(acc, data[i + t]);
            j += run;
            i += run;
            if (i == n)
                i = 0;
        }
    } else {
        for (unsigned int j = 0; j < iters; j += 4) {
            const unsigned int i1 = i + step >= n ? i + step - n : i + step;
            const unsigned int i2 = i1 + step >= n ? i1 + step - n : i1 + step;
            const unsigned int i3 = i2 + step >= n ? i2 + step - n : i2 + step;
            const cache_vt v0 = data[i], v1 = data[i1], v2 = data[i2], v3 = data[i3];
            acc = CACHE_ADD(acc, CACHE_ADD(CACHE_ADD(v0, v1), CACHE_ADD(v2, v3)));
            i = i3 + step >= n ? i3 + step - n : i3 + step;
        }
    }
    sums[g] = CACHE_SUM(acc);
}
