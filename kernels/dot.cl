/* Tunable dot product: sum(a[i] * b[i]) over n elements, reduced to one value on the device in
 * two launches (dot_partial, then dot_final), so the timed operation is the whole reduction.
 *
 * Tunables (-D), the tuning suite's search space (suites/tuning.c):
 *   WG      work-group size; dot_partial must be launched with a local size of exactly WG
 *   VEC     elements each work-item loads per step, kept in VEC independent accumulators (the
 *           compiler turns them into one vector load and vector FMAs on a CPU, and into
 *           instruction-level parallelism on a GPU); n must be a multiple of VEC
 *   LAYOUT  0: each work-item sums one contiguous chunk of n / (work-items) elements — one
 *              sequential stream per work-item, what a CPU's prefetchers and a per-work-item
 *              vectoriser want;
 *           1: grid-stride — neighbouring work-items read neighbouring elements (coalesced
 *              loads, what a GPU wants; BabelStream's and the memory suite's shape)
 *   REDUCE  how a work-group combines its work-items' sums:
 *           0: tree in local memory (log2 WG steps, a barrier in each; WG a power of two);
 *           1: one barrier, then work-item 0 adds the WG sums (no barrier inside a loop, which
 *              CPU OpenCL runtimes such as PoCL handle much better);
 *           2: no local memory at all: every work-item writes its own partial sum
 *   (the number of work-groups, GPC per compute unit, is a launch-time tunable)
 *   FWG     work-group size of dot_final (one work-group; default 64)
 *   OFF     element offset of a and b (default 0; the memory suite's axis offset in elements):
 *           element k of each is element OFF + k of its buffer (loads are of single elements,
 *           so any OFF is aligned)
 *
 * dot_partial writes one partial sum per work-group (REDUCE 0, 1) or per work-item (REDUCE 2);
 * dot_final, one work-group of FWG work-items, adds `count` partial sums into out[0].
 */

#ifndef WG
#define WG 256
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef LAYOUT
#define LAYOUT 1
#endif
#ifndef REDUCE
#define REDUCE 0
#endif
#ifndef FWG
#define FWG 64
#endif
#ifndef OFF
#define OFF 0
#endif

GB_KERNEL GB_WG_HINT(WG) void dot_partial(GB_CONSTANT_ARG T *GB_RESTRICT a,
                                          GB_CONSTANT_ARG T *GB_RESTRICT b,
                                          GB_GLOBAL T *GB_RESTRICT partial, unsigned long n)
{
    const size_t nv = n / VEC; /* steps of VEC elements */
    const size_t gid = GB_GLOBAL_ID(0), items = GB_GLOBAL_SIZE(0);
    T acc[VEC];
#pragma unroll
    for (int v = 0; v < VEC; v++)
        acc[v] = (T)0;
#if LAYOUT == 0
    const size_t per = (nv + items - 1) / items;
    const size_t begin = gid * per;
    const size_t end = begin + per < nv ? begin + per : nv;
    for (size_t j = begin; j < end; j++) {
#pragma unroll
        for (int v = 0; v < VEC; v++)
            acc[v] += a[OFF + j * VEC + v] * b[OFF + j * VEC + v];
    }
#else
    for (size_t j = gid; j < nv; j += items) {
#pragma unroll
        for (int v = 0; v < VEC; v++)
            acc[v] += a[OFF + j * VEC + v] * b[OFF + j * VEC + v];
    }
#endif
    T sum = (T)0;
#pragma unroll
    for (int v = 0; v < VEC; v++)
        sum += acc[v];

#if REDUCE == 2
    partial[gid] = sum;
#else
    GB_LOCAL T part[WG];
    const size_t lid = GB_LOCAL_ID(0);
    part[lid] = sum;
#if REDUCE == 0
    for (size_t off = WG / 2; off > 0; off /= 2) {
        GB_BARRIER();
        if (lid < off)
            part[lid] += part[lid + off];
    }
    if (lid == 0)
        partial[GB_GROUP_ID(0)] = part[0];
#else
    GB_BARRIER();
    if (lid == 0) {
        T s = (T)0;
        for (size_t i = 0; i < WG; i++)
            s += part[i];
        partial[GB_GROUP_ID(0)] = s;
    }
#endif
#endif
}

/* Adds partial[0..count) into out[0]; launch one work-group of exactly FWG work-items. */
GB_KERNEL GB_WG_HINT(FWG) void dot_final(GB_CONSTANT_ARG T *GB_RESTRICT partial,
                                         GB_GLOBAL T *GB_RESTRICT out, unsigned long count)
{
    GB_LOCAL T part[FWG];
    const size_t lid = GB_LOCAL_ID(0);
    T s = (T)0;
    for (size_t i = lid; i < count; i += FWG)
        s += partial[i];
    part[lid] = s;
    GB_BARRIER();
    if (lid == 0) {
        T t = (T)0;
        for (size_t i = 0; i < FWG; i++)
            t += part[i];
        out[0] = t;
    }
}
