/* The first use of a fresh allocation (suites/alloc.c, touch first_use): work-item i writes word
 * i of the buffer, a hash of i and the allocation's seed (alloc_word, the same as the host's in
 * suites/alloc_fill.h), so every page is written, as a framework's first kernel writes the
 * memory it allocated, and the read-back proves which bytes were. n: words in the buffer; the
 * launch rounds up to a whole work-group and the work-items past n write nothing.
 * GB_BREAK == 1 (the test hook) writes every other word only. */

GB_INLINE unsigned int alloc_word(unsigned long i, unsigned int seed)
{
    unsigned int x = (unsigned int)i * 0x9E3779B1u ^ seed;
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    return x;
}

GB_KERNEL void alloc_fill(GB_GLOBAL unsigned int *buf, unsigned long n, unsigned int seed)
{
    const size_t i = GB_GLOBAL_ID(0);
#if defined(GB_BREAK) && GB_BREAK == 1
    if (i % 2)
        return;
#endif
    if (i < n)
        buf[i] = alloc_word(i, seed);
}
