/* gpubench — the first-use fill's pattern, shared by the suites that write fresh allocations with
 * kernels/alloc.cl's alloc_fill and read them back: alloc (suites/alloc.c) and pool
 * (suites/pool.c), and their tests. It is the host's copy of the kernel's alloc_word, so that a
 * suite checks on the host the words the kernel wrote; the two must stay the same hash.
 */
#ifndef GB_SUITES_ALLOC_FILL_H
#define GB_SUITES_ALLOC_FILL_H

#include <stdint.h>

/* The 32-bit word the first-use fill writes at word index i of an allocation with pattern
 * `seed` (the same hash as kernels/alloc.cl's alloc_word): murmur3's 32-bit finaliser of
 * i * 0x9E3779B1 ^ seed. */
static inline uint32_t alloc_word(uint64_t i, uint32_t seed)
{
    uint32_t x = (uint32_t)i * 0x9E3779B1u ^ seed;
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    return x;
}

#endif
