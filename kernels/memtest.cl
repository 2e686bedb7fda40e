/* Device-memory pattern tests (suites/memtest.c): each kernel writes or checks the 32-bit words
 * w[0..n) of one chunk of the tested region, whose first word is word `base` of the region, so
 * that a pattern and an error's address are the region's, whatever the chunking.
 *
 * Work-item g of G (GB_GLOBAL_SIZE) visits the words g, g + G, g + 2G, ... below n in ascending
 * order (memtest_mi_down: descending), so that neighbouring work-items touch neighbouring words.
 *
 * The value word i of the region holds under pattern `mode` with argument `arg` (expect()):
 *   0 walking ones:  1 << ((i + arg) mod 32)  (arg: the pass; every bit of every word over 32)
 *   1 walking zeros: the complement of walking ones
 *   2 constant:      arg
 *   3 random:        a 32-bit hash of (i, seed) (the murmur3 finaliser, Appleby), xor arg
 *   4 address:       the low 32 bits of i, xor arg (0, then all ones: each word its own index)
 *
 * A word that differs from what it should hold is an error: err[0] counts them, and the first
 * `nrec` errors found are recorded in err[1 + 4r ..]: the region's word index (low, high 32
 * bits), the value expected, the value read; err[1 + 4 nrec] is set to 1 when the count wraps
 * past 0xFFFFFFFF (the count is then a remainder). Which errors come first
 * between work-items is not ordered. GB_BREAK (tests only): memtest_check reports no error. */

#if GB_HAS_ATOMIC_ADD_ALL
#define MT_ATOM_ADD(p, v) atomicAdd((p), (v))
#else
#define MT_ATOM_ADD(p, v) atomic_add((p), (v))
#endif

GB_INLINE unsigned int mt_hash(unsigned long i, unsigned int seed)
{
    unsigned int h = (unsigned int)i ^ (unsigned int)(i >> 32) * 0x9E3779B9u ^ seed;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h;
}

GB_INLINE unsigned int mt_expect(unsigned int mode, unsigned int arg, unsigned int seed,
                                 unsigned long i)
{
    switch (mode) {
    case 0:
        return 1u << (unsigned int)((i + arg) & 31u);
    case 1:
        return ~(1u << (unsigned int)((i + arg) & 31u));
    case 2:
        return arg;
    case 3:
        return mt_hash(i, seed) ^ arg;
    default:
        return (unsigned int)i ^ arg;
    }
}

GB_INLINE void mt_report(GB_GLOBAL unsigned int *err, unsigned int nrec, unsigned long i,
                         unsigned int want, unsigned int got)
{
    const unsigned int r = MT_ATOM_ADD(&err[0], 1u);
    if (r == 0xFFFFFFFFu)
        err[1 + 4 * nrec] = 1u;
    if (r < nrec) {
        err[1 + 4 * r] = (unsigned int)i;
        err[2 + 4 * r] = (unsigned int)(i >> 32);
        err[3 + 4 * r] = want;
        err[4 + 4 * r] = got;
    }
}

GB_KERNEL void memtest_write(GB_GLOBAL unsigned int *w, unsigned long n, unsigned long base,
                             unsigned int mode, unsigned int arg, unsigned int seed)
{
    const unsigned long stride = GB_GLOBAL_SIZE(0);
    for (unsigned long i = GB_GLOBAL_ID(0); i < n; i += stride)
        w[i] = mt_expect(mode, arg, seed, base + i);
}

GB_KERNEL void memtest_check(GB_GLOBAL const unsigned int *w, unsigned long n, unsigned long base,
                             unsigned int mode, unsigned int arg, unsigned int seed,
                             GB_GLOBAL unsigned int *err, unsigned int nrec)
{
    const unsigned long stride = GB_GLOBAL_SIZE(0);
    for (unsigned long i = GB_GLOBAL_ID(0); i < n; i += stride) {
        const unsigned int want = mt_expect(mode, arg, seed, base + i), got = w[i];
#ifndef GB_BREAK
        if (got != want)
            mt_report(err, nrec, base + i, want, got);
#endif
    }
}

/* Moving inversions, ascending (Memtest86's test "moving inversions"): each word must hold
 * `p`; it is then written its complement. */
GB_KERNEL void memtest_mi_up(GB_GLOBAL unsigned int *w, unsigned long n, unsigned long base,
                             unsigned int p, GB_GLOBAL unsigned int *err, unsigned int nrec)
{
    const unsigned long stride = GB_GLOBAL_SIZE(0);
    for (unsigned long i = GB_GLOBAL_ID(0); i < n; i += stride) {
        const unsigned int got = w[i];
        if (got != p)
            mt_report(err, nrec, base + i, p, got);
        w[i] = ~p;
    }
}

/* Moving inversions, descending: each word, from the top, must hold ~p; it is written p. */
GB_KERNEL void memtest_mi_down(GB_GLOBAL unsigned int *w, unsigned long n, unsigned long base,
                               unsigned int p, GB_GLOBAL unsigned int *err, unsigned int nrec)
{
    const unsigned long stride = GB_GLOBAL_SIZE(0), g = GB_GLOBAL_ID(0);
    if (g >= n)
        return;
    /* The last word of this work-item's sequence g, g + G, ... below n, then down to g. */
    for (unsigned long i = g + (n - 1 - g) / stride * stride;; i -= stride) {
        const unsigned int got = w[i];
        if (got != ~p)
            mt_report(err, nrec, base + i, ~p, got);
        w[i] = p;
        if (i < stride)
            break;
    }
}
