/* gpubench's own GEMM: C = alpha * op(A) * op(B) + beta * C, column-major (BLAS conventions:
 * C is M×N with leading dimension ldc, element (i, j) at C[i + j*ldc]; op(A) is M×K, op(B) K×N).
 *
 * A tiled kernel after Nugteren's "Tutorial: OpenCL SGEMM tuning for Kepler" (kernels 3 and 4,
 * 2014), the design CLBlast's own xgemm grew from: each work-group computes one TS×TS tile of C,
 * staging TS×TSK slices of op(A) and TSK×TS slices of op(B) in local memory; each work-item
 * keeps a WPT×WPT block of C in registers (rows r + w*RTS, columns c + w*RTS, RTS = TS/WPT, so
 * neighbouring work-items read neighbouring local-memory words).
 *
 * Kernel: gemm_tiled. Launch: 2-D, local size (RTS, RTS), global size
 * (ceil(M/TS)*RTS, ceil(N/TS)*RTS). Any M, N, K >= 1: tiles that stick out of the matrices load
 * zeros and store nothing, so the shape need not be a multiple of the tiles.
 *
 * Tunables (-D defines; the names are stable, the tuning suite searches over them):
 *   TS      tile side of C per work-group                       default 32
 *   WPT     work per thread: each work-item computes WPT×WPT     default 4
 *   TSK     depth of the K slice staged per step                 default 16
 *   UNROLL  unroll factor of the inner loop over the K slice     default 4
 * Valid combinations (the host must check them; the #errors below catch the rest):
 *   TS % WPT == 0; RTS = TS / WPT; work-group size RTS*RTS <= the device's maximum;
 *   (TS * TSK) % (RTS * RTS) == 0 (every work-item loads the same number of elements);
 *   TSK % UNROLL == 0;
 *   local memory 2 * TS * TSK * sizeof(accumulator) <= the device's local memory.
 * Good starting points: TS 32/64, WPT 2/4/8, TSK 8/16/32, UNROLL 1/2/4/8.
 *
 * Element types (defines, not tuned):
 *   T        accumulator and C type: float (default) or double
 *   IN_HALF  A and B hold IEEE half (read with GB_LOAD_HALF, valid on every OpenCL device);
 *            accumulation and C in T = float: the mixed-precision GEMM
 *   IN_BF16  A and B hold bfloat16 bits (unsigned short, the top half of a float); float
 *            accumulation and C
 *   IN_I8    A and B hold signed 8-bit integers, T = int: int32 accumulation and C (exact while
 *            no sum leaves int32), alpha and beta int
 *   TRANS_A, TRANS_B  1: op(X) = X^T (default 0: op(X) = X)
 * Scalars alpha and beta are T. With beta == 0, C is not read (so NaN in the old C is ignored,
 * as BLAS specifies).
 *
 * Test define (tests/test_broken_kernels.c checks that verification catches each): GB_BREAK (= 1) rounds
 * every element of A and B to TF32 (10 stored significand bits, truncated) as it is staged: a
 * lower-precision "f32" GEMM; GB_BREAK=2 drops the first term (l = 0) of every sum.
 */

#ifndef TS
#define TS 32
#endif
#ifndef WPT
#define WPT 4
#endif
#ifndef TSK
#define TSK 16
#endif
#ifndef UNROLL
#define UNROLL 4
#endif
#ifndef TRANS_A
#define TRANS_A 0
#endif
#ifndef TRANS_B
#define TRANS_B 0
#endif

#define RTS (TS / WPT)
#define NT (RTS * RTS)
#define LOADS ((TS * TSK) / NT)

#if TS % WPT != 0
#error "gemm.cl: TS must be a multiple of WPT"
#endif
#if (TS * TSK) % (RTS * RTS) != 0
#error "gemm.cl: TS*TSK must be a multiple of the work-group size (TS/WPT)^2"
#endif
#if TSK % UNROLL != 0
#error "gemm.cl: TSK must be a multiple of UNROLL"
#endif

#define GB__STR(x) #x
#define GB__PRAGMA(x) _Pragma(GB__STR(x))
#define GB__UNROLL(n) GB__PRAGMA(unroll n)

/* How A and B are stored, and how one element becomes a T. */
#if defined(IN_HALF) && IN_HALF
typedef gb_half gemm_in_t;
#define GEMM_LOAD(p, i) ((T)GB_LOAD_HALF((p), (i)))
#elif defined(IN_BF16) && IN_BF16
typedef unsigned short gemm_in_t;
#define GEMM_LOAD(p, i) ((T)GB_AS_FLOAT((unsigned int)(p)[(i)] << 16))
#elif defined(IN_I8) && IN_I8
typedef signed char gemm_in_t;
#define GEMM_LOAD(p, i) ((T)(p)[(i)])
#else
typedef T gemm_in_t;
#define GEMM_LOAD(p, i) ((p)[(i)])
#endif
/* The multiply-add: fused for floating point, exact for integers. */
#if defined(IN_I8) && IN_I8
#define GEMM_MAD(a, b, c) ((a) * (b) + (c))
#else
#define GEMM_MAD(a, b, c) GB_FMA(a, b, c)
#endif

/* op(A)(i, l) and op(B)(l, j), column-major. */
#if TRANS_A
#define A_AT(i, l) GEMM_LOAD(A, (l) + (i)*lda)
#else
#define A_AT(i, l) GEMM_LOAD(A, (i) + (l)*lda)
#endif
#if TRANS_B
#define B_AT(l, j) GEMM_LOAD(B, (j) + (l)*ldb)
#else
#define B_AT(l, j) GEMM_LOAD(B, (l) + (j)*ldb)
#endif

#if defined(GB_BREAK) && GB_BREAK == 1 && !(defined(IN_I8) && IN_I8)
#define GB_BROKEN_IN(x) GB_AS_FLOAT(GB_AS_UINT((float)(x)) & 0xFFFFE000u)
#else
#define GB_BROKEN_IN(x) (x)
#endif

#define GEMM_WG_HINT GB_WG_HINT_2D(RTS, RTS)

GB_KERNEL GEMM_WG_HINT void gemm_tiled(unsigned long M, unsigned long N, unsigned long K,
                                       T alpha, T beta, GB_CONSTANT_ARG gemm_in_t *GB_RESTRICT A,
                                       unsigned long lda,
                                       GB_CONSTANT_ARG gemm_in_t *GB_RESTRICT B,
                                       unsigned long ldb, GB_GLOBAL T *GB_RESTRICT C,
                                       unsigned long ldc)
{
    /* k-major slices: As[l][i] is op(A)(row0 + i, k0 + l), Bs[l][j] is op(B)(k0 + l, col0 + j),
     * so the inner loop reads rows of both, contiguous across work-items. */
    GB_LOCAL T As[TSK][TS];
    GB_LOCAL T Bs[TSK][TS];

    const int tr = (int)GB_LOCAL_ID(0), tc = (int)GB_LOCAL_ID(1);
    const int tid = tc * RTS + tr;
    const size_t row0 = GB_GROUP_ID(0) * TS, col0 = GB_GROUP_ID(1) * TS;

    T acc[WPT][WPT];
    for (int wi = 0; wi < WPT; wi++)
        for (int wj = 0; wj < WPT; wj++)
            acc[wi][wj] = (T)0;

    for (size_t k0 = 0; k0 < K; k0 += TSK) {
        for (int t = 0; t < LOADS; t++) {
            const int e = tid + t * NT;
            /* A slice: consecutive work-items take consecutive rows (contiguous in memory for
             * op(A) = A). B slice: consecutive work-items take consecutive k (contiguous for
             * op(B) = B). */
            const int ai = e % TS, al = e / TS;
            const size_t gi = row0 + (size_t)ai, gl = k0 + (size_t)al;
            As[al][ai] = GB_BROKEN_IN(gi < M && gl < K ? A_AT(gi, gl) : (T)0);
            const int bl = e % TSK, bj = e / TSK;
            const size_t hl = k0 + (size_t)bl, hj = col0 + (size_t)bj;
            Bs[bl][bj] = GB_BROKEN_IN(hl < K && hj < N ? B_AT(hl, hj) : (T)0);
        }
        GB_BARRIER();
        GB__UNROLL(UNROLL)
        for (int l = 0; l < TSK; l++) {
#if defined(GB_BREAK) && GB_BREAK == 2
            if (k0 == 0 && l == 0)
                continue;
#endif
            T a[WPT], b[WPT];
            for (int w = 0; w < WPT; w++) {
                a[w] = As[l][tr + w * RTS];
                b[w] = Bs[l][tc + w * RTS];
            }
            for (int wi = 0; wi < WPT; wi++)
                for (int wj = 0; wj < WPT; wj++)
                    acc[wi][wj] = GEMM_MAD(a[wi], b[wj], acc[wi][wj]);
        }
        GB_BARRIER();
    }

    for (int wj = 0; wj < WPT; wj++) {
        const size_t j = col0 + (size_t)(tc + wj * RTS);
        if (j >= N)
            continue;
        for (int wi = 0; wi < WPT; wi++) {
            const size_t i = row0 + (size_t)(tr + wi * RTS);
            if (i >= M)
                continue;
            const size_t at = i + j * ldc;
            C[at] = beta == (T)0 ? alpha * acc[wi][wj] : alpha * acc[wi][wj] + beta * C[at];
        }
    }
}
