/* The burn suite's check (suites/burn.c), as gpu-burn does it: every product of the loop is
 * compared with the first product of the same inputs, which a healthy device reproduces bit for
 * bit. burn_compare compares the n 32-bit words of c with those of ref; each word that differs
 * adds 1 to out[0] (out[3] is set to 1 when that count wraps past 0xFFFFFFFF), and the
 * iteration `iter` of the first product that differed is kept in out[1] (the least seen: an
 * atomic minimum; setup starts it at 0xFFFFFFFF), the first differing word of it in out[2].
 * Work-item g of G visits words g, g + G, ... below n. GB_BREAK (tests only): nothing is
 * counted. */

#if GB_HAS_ATOMIC_ADD_ALL
#define BURN_ATOM_ADD(p, v) atomicAdd((p), (v))
#define BURN_ATOM_MIN(p, v) atomicMin((p), (v))
#else
#define BURN_ATOM_ADD(p, v) atomic_add((p), (v))
#define BURN_ATOM_MIN(p, v) atomic_min((p), (v))
#endif

GB_KERNEL void burn_compare(GB_GLOBAL const unsigned int *c, GB_GLOBAL const unsigned int *ref,
                            unsigned long n, unsigned int iter, GB_GLOBAL unsigned int *out)
{
    const unsigned long stride = GB_GLOBAL_SIZE(0);
    for (unsigned long i = GB_GLOBAL_ID(0); i < n; i += stride) {
#ifndef GB_BREAK
        if (c[i] != ref[i]) {
            if (BURN_ATOM_ADD(&out[0], 1u) == 0xFFFFFFFFu)
                out[3] = 1u;
            if (BURN_ATOM_MIN(&out[1], iter) > iter)
                out[2] = (unsigned int)i;
        }
#endif
    }
}
