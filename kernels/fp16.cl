/* 16-bit storage, float arithmetic: memory-bound kernels that read and write their arrays as
 * IEEE half (GB_LOAD_HALF / GB_STORE_HALF: vload_half / vstore_half on OpenCL, valid on every
 * device, cl_khr_fp16 or not; __half conversions on CUDA) or bfloat16 bits, and compute in float.
 * The same kernels with float storage are the baseline: half the bytes for the same elements.
 *
 *   scale  b[i] = s * c[i]          triad  a[i] = b[i] + s * c[i]     (BabelStream's names)
 *
 * Defines: STORE_HALF or STORE_BF16 (default: float storage). One element per work-item from
 * `base`, no bounds check (the form CPU OpenCL compilers vectorise best; see stream.cl): the host
 * launches the largest multiple of the work-group size, then the remainder from base.
 * Rounding on store: to nearest even (vstore_half's default mode, __float2half_rn, and the
 * bfloat16 rounding below), so the host knows what to expect within one rounding.
 *
 * Test define: GB_BREAK truncates every result to 8 significand bits (bfloat16's) before it is
 * stored: a lower-precision computation, which tests/test_broken_kernels.c checks that verification
 * catches for float and half storage.
 */

#if defined(GB_BREAK)
#define GB_LOWER(v) GB_AS_FLOAT(GB_AS_UINT((float)(v)) & 0xFFFF0000u)
#else
#define GB_LOWER(v) (v)
#endif

#if defined(STORE_HALF) && STORE_HALF
typedef gb_half st_t;
#define LOAD(p, i) GB_LOAD_HALF((p), (i))
#define STORE(v, p, i) GB_STORE_HALF((v), (p), (i))
#elif defined(STORE_BF16) && STORE_BF16
typedef unsigned short st_t;
#define GB__F2U(f) GB_AS_UINT(f)
#define GB__U2F(u) GB_AS_FLOAT(u)
#define LOAD(p, i) GB__U2F((unsigned int)(p)[(i)] << 16)
/* Round to nearest even on the 16 bits dropped (the inputs here are finite). */
static GB_INLINE unsigned short gb__bf16_rne(float v)
{
    const unsigned int u = GB__F2U(v);
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
#define STORE(v, p, i) ((p)[(i)] = gb__bf16_rne(v))
#else
typedef float st_t;
#define LOAD(p, i) ((p)[(i)])
#define STORE(v, p, i) ((p)[(i)] = (v))
#endif

GB_KERNEL void fp16_scale(GB_GLOBAL st_t *GB_RESTRICT b, GB_CONSTANT_ARG st_t *GB_RESTRICT c,
                          float s, unsigned long base)
{
    const size_t i = base + GB_GLOBAL_ID(0);
    STORE(GB_LOWER(s * LOAD(c, i)), b, i);
}

GB_KERNEL void fp16_triad(GB_GLOBAL st_t *GB_RESTRICT a, GB_CONSTANT_ARG st_t *GB_RESTRICT b,
                          GB_CONSTANT_ARG st_t *GB_RESTRICT c, float s, unsigned long base)
{
    const size_t i = base + GB_GLOBAL_ID(0);
    STORE(GB_LOWER(LOAD(b, i) + s * LOAD(c, i)), a, i);
}
