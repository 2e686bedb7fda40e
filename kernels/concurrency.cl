/* Many queues at once (suites/concurrency.c): the same kernel on every queue, each on buffers of
 * its own, every output exact so that the host checks every element.
 *   conc_triad  a = b + s c over n floats, b and c small integers and s = 2: exact in float
 *               (a memory-bound triad, BabelStream's; 3 arrays counted);
 *   conc_chain  each work-item runs `iters` dependent steps x = x * 1664525 + 1013904223 (mod
 *               2^32, Numerical Recipes' LCG) from its index and writes the end: compute-bound,
 *               2 integer operations per step;
 *   conc_tick   work-item 0 adds 1 to count[0]: a stream of tiny launches, each observable.
 * EXACT (a define): the launch has exactly n work-items, so the kernels test no bound (a CPU
 * runtime vectorises a kernel without the branch across work-items better: PoCL's triad ran at
 * 0.7 of the memory suite's with it). GB_BREAK == 1 (the test hook): conc_triad skips the last
 * element, conc_chain one step; GB_BREAK == 2: conc_tick counts nothing. */

GB_KERNEL void conc_triad(GB_GLOBAL float *GB_RESTRICT a, GB_CONSTANT_ARG float *GB_RESTRICT b,
                          GB_CONSTANT_ARG float *GB_RESTRICT c, float s, unsigned long n)
{
    const size_t i = GB_GLOBAL_ID(0);
#if defined(GB_BREAK) && GB_BREAK == 1
    if (i + 1 == n)
        return;
#endif
#ifndef EXACT
    if (i >= n)
        return;
#endif
    a[i] = b[i] + s * c[i];
}

GB_KERNEL void conc_chain(GB_GLOBAL unsigned int *out, unsigned int iters, unsigned long n)
{
    const size_t i = GB_GLOBAL_ID(0);
#ifndef EXACT
    if (i >= n)
        return;
#endif
    unsigned int x = (unsigned int)i;
#if defined(GB_BREAK) && GB_BREAK == 1
    iters -= 1;
#endif
    for (unsigned int k = 0; k < iters; k++)
        x = x * 1664525u + 1013904223u;
    out[i] = x;
}

GB_KERNEL void conc_tick(GB_GLOBAL unsigned int *count)
{
#if defined(GB_BREAK) && GB_BREAK == 2
    return;
#endif
    if (GB_GLOBAL_ID(0) == 0)
        count[0] += 1u;
}
