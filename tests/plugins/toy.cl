/* The toy suite's copy (tests/plugins/toy_suite.c): one 32-bit word per work-item. */
GB_KERNEL void toy_copy(GB_GLOBAL const unsigned int *src, GB_GLOBAL unsigned int *dst)
{
    const size_t i = GB_GLOBAL_ID(0);
    dst[i] = src[i];
}
