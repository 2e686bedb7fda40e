/* Kernels of the parallel suite (suites/parallel.c); its GEMMs are the backend's BLAS or
 * kernels/gemm.cl, its collectives' reductions kernels/collective.cl's coll_reduce.
 *
 * par_relu: x[i] = max(x[i], 0) for i < n, in place: the activation between the GEMMs of the
 * MLP block and of the pipeline's layers. Launched with the global size rounded up to the
 * work-group (hence the bounds check).
 */

GB_KERNEL void par_relu(GB_GLOBAL float *GB_RESTRICT x, unsigned long n)
{
    const size_t i = GB_GLOBAL_ID(0);
    if (i < n)
        x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
