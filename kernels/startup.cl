/* The first kernel a fresh worker runs (suites/startup.c): y[i] = 3 x[i] + i over n words, a
 * kernel small enough that its build is the runtime's fixed cost, not the compiler's work on a
 * large source. The read-back is checked word for word. GB_BREAK == 1 (the test hook) skips the
 * last word. */

GB_KERNEL void startup_first(GB_GLOBAL unsigned int *y, GB_GLOBAL const unsigned int *x,
                             unsigned int n)
{
    const size_t i = GB_GLOBAL_ID(0);
#if defined(GB_BREAK) && GB_BREAK == 1
    if (i + 1 == n)
        return;
#endif
    if (i < n)
        y[i] = 3u * x[i] + (unsigned int)i;
}
