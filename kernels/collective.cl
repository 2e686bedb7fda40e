/* Kernels of the collective suite (suites/collective.c).
 *
 * coll_reduce: the reduction step of the reducing collectives (all-reduce, reduce-scatter,
 * reduce), out[ooff + i] = OP(a[aoff + i], b[boff + i]) for i < n elements, where a is this
 * device's operand (its input or its partial result) and b what arrived from a peer. out may be
 * a (in place), so no pointer is restrict. The element type and the operation are defines:
 *   -DCOLL_F32 (float, the default), -DCOLL_I32 (int), -DCOLL_F16 (half arithmetic: the host
 *   builds it only where the device has it, GB_HAS_FP16), -DCOLL_BF16 (bfloat16 stored as
 *   16-bit integers, widened to float by a shift, reduced in float and rounded back to nearest
 *   even: no extension needed);
 *   -DCOLL_MAX for the maximum, else the sum.
 * The host's test hook builds the opposite operation (a wrong reduction verification must
 * catch); the kernel has no hook of its own.
 *
 * Launched with the global size rounded up to the work-group: a bounds check.
 */

#if defined(COLL_BF16)
typedef unsigned short coll_t;
typedef float coll_acc;
#define COLL_LOAD(v) GB_AS_FLOAT((unsigned int)(v) << 16)
GB_INLINE coll_t coll_store(float f)
{
    unsigned int u = GB_AS_UINT(f);
    u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest, ties to even */
    return (coll_t)(u >> 16);
}
#define COLL_STORE(f) coll_store(f)
#elif defined(COLL_F16)
#if !GB_HAS_FP16
#error "COLL_F16 needs half arithmetic (GB_HAS_FP16)"
#endif
typedef gb_half coll_t;
typedef gb_half coll_acc;
#define COLL_LOAD(v) (v)
#define COLL_STORE(v) (v)
#elif defined(COLL_I32)
typedef int coll_t;
typedef int coll_acc;
#define COLL_LOAD(v) (v)
#define COLL_STORE(v) (v)
#else
typedef float coll_t;
typedef float coll_acc;
#define COLL_LOAD(v) (v)
#define COLL_STORE(v) (v)
#endif

GB_KERNEL void coll_reduce(GB_GLOBAL coll_t *out, GB_GLOBAL const coll_t *a,
                           GB_GLOBAL const coll_t *b, unsigned long ooff, unsigned long aoff,
                           unsigned long boff, unsigned long n)
{
    const size_t i = GB_GLOBAL_ID(0);
    if (i >= n)
        return;
    const coll_acc x = COLL_LOAD(a[aoff + i]), y = COLL_LOAD(b[boff + i]);
#if defined(COLL_MAX)
    const coll_acc r = x > y ? x : y;
#else
    const coll_acc r = x + y;
#endif
    out[ooff + i] = COLL_STORE(r);
}
