/* Launch batching: N launches of W work-items and one launch of N x W work-items do the same
 * work, observably: every work-item increments its own element, so after R operations every
 * element of the N x W range holds R (verify checks all of them). */

GB_KERNEL void batch_inc(GB_GLOBAL unsigned int *data, unsigned long base)
{
    data[base + GB_GLOBAL_ID(0)] += 1u;
}
