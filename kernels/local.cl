/* Local (shared) memory bandwidth, reads and writes, with a stride that shows bank conflicts:
 * after clpeak's local-memory test and the shared-memory bank studies of Jia et al.
 * ("Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking", 2018).
 *
 * Tunables (-D): VEC, unsigned ints per access (1, 2 or 4); WG, the work-group size (the launch
 * uses exactly this local size); LN, vectors in the work-group's local array (a power of two);
 * STRIDE, vectors between the addresses of neighbouring work-items.
 *
 * At step j work-item l accesses vector (l x STRIDE + j) mod LN: with STRIDE 1 neighbouring
 * work-items touch neighbouring words (no bank conflict on any GPU); with STRIDE s sharing a
 * factor with the bank count (32 banks of 4 bytes on NVIDIA and AMD), s-way conflicts up to
 * 32-way; an odd s is conflict-free again. On a CPU device local memory is ordinary cached
 * memory.
 *
 * local_read: the work-group fills its array (lane k of vector e holds e x VEC + k), then every
 * work-item sums `iters` accesses and stores the (wrapping) sum in out[global id].
 * local_write: the work-group zeroes its array, every work-item stores e x VEC + k + 1 into lane
 * k of each vector e it visits, `iters` times; then work-item l sums the vectors l, l + WG, ...
 * of the array (what the stores left there) into out[global id]. Stores of the same value to
 * the same place by two work-items are harmless, so the final array is the same on every run.
 *
 * Test define: GB_BREAK makes local_read skip every work-item's first access and local_write
 * store values one too large (tests/test_chip.c).
 */

#ifndef VEC
#define VEC 1
#endif
#ifndef WG
#define WG 256
#endif
#ifndef LN
#define LN 4096
#endif
#ifndef STRIDE
#define STRIDE 1
#endif

#if VEC == 1
typedef unsigned int local_vt;
#define LOCAL_ZERO 0u
#define LOCAL_MAKE(x) (x)
#define LOCAL_ADD(a, b) ((a) + (b))
#define LOCAL_SUM(v) (v)
#elif VEC == 2
typedef uint2 local_vt;
#define LOCAL_ZERO GB_UINT2(0u, 0u)
#define LOCAL_MAKE(x) GB_UINT2((x), (x) + 1u)
#define LOCAL_ADD(a, b) GB_UINT2_ADD(a, b)
#define LOCAL_SUM(v) ((v).x + (v).y)
#elif VEC == 4
typedef uint4 local_vt;
#define LOCAL_ZERO GB_UINT4(0u, 0u, 0u, 0u)
#define LOCAL_MAKE(x) GB_UINT4((x), (x) + 1u, (x) + 2u, (x) + 3u)
#define LOCAL_ADD(a, b) GB_UINT4_ADD(a, b)
#define LOCAL_SUM(v) ((v).x + (v).y + (v).z + (v).w)
#else
#error "VEC must be 1, 2 or 4"
#endif

#ifdef GB_BREAK
#define LOCAL_J0 1u /* local_read skips its first access */
#define LOCAL_W1 2u /* local_write stores values one too large */
#else
#define LOCAL_J0 0u
#define LOCAL_W1 1u
#endif

GB_KERNEL GB_WG_HINT(WG) void local_read(GB_GLOBAL unsigned int *out, unsigned int iters)
{
    GB_LOCAL local_vt buf[LN];
    const unsigned int l = (unsigned int)GB_LOCAL_ID(0);
    for (unsigned int e = l; e < LN; e += WG)
        buf[e] = LOCAL_MAKE(e * VEC);
    GB_BARRIER();
    const unsigned int base = l * STRIDE;
    local_vt acc = LOCAL_ZERO;
    for (unsigned int j = LOCAL_J0; j < iters; j++)
        acc = LOCAL_ADD(acc, buf[(base + j) & (LN - 1)]);
    out[GB_GLOBAL_ID(0)] = LOCAL_SUM(acc);
}

GB_KERNEL GB_WG_HINT(WG) void local_write(GB_GLOBAL unsigned int *out, unsigned int iters)
{
    GB_LOCAL local_vt buf[LN];
    const unsigned int l = (unsigned int)GB_LOCAL_ID(0);
    for (unsigned int e = l; e < LN; e += WG)
        buf[e] = LOCAL_ZERO;
    GB_BARRIER();
    const unsigned int base = l * STRIDE;
    for (unsigned int j = 0; j < iters; j++) {
        const unsigned int e = (base + j) & (LN - 1);
        buf[e] = LOCAL_MAKE(e * VEC + LOCAL_W1);
    }
    GB_BARRIER();
    local_vt acc = LOCAL_ZERO;
    for (unsigned int e = l; e < LN; e += WG)
        acc = LOCAL_ADD(acc, buf[e]);
    out[GB_GLOBAL_ID(0)] = LOCAL_SUM(acc);
}
