/* gpubench's own 2-D convolution: the forward pass and the two backward passes, direct (no
 * im2col, no transform), any geometry, NCHW or NHWC, f32 or 16-bit storage with float
 * accumulation, or int8 with int accumulation. The portable reference the library paths
 * (cuDNN, CLBlast's convgemm) are measured beside; backends/backend.h (struct gb_conv_shape)
 * defines what is computed:
 *   y[n][k][p][q] = sum_{c' < CG, r < R, s < S}
 *                   x[n][g CG + c'][p SH - PH + r DH][q SW - PW + s DW] * w[k][c'][r][s]
 * with g = k / KG (CG = C / G input and KG = K / G output channels per group) and x = 0 in the
 * padding.
 *
 * Kernels (1-D launches, any work-group size; work-items past the end do nothing):
 *   conv_fwd         x, w -> y. A work-item computes KB consecutive output channels (of one
 *                    group: KB divides KG) of one output pixel, so each x value it loads serves
 *                    KB multiply-adds. Global size >= N P Q K / KB.
 *   conv_bwd_data    dy, w -> dx. A work-item computes one element of dx: the sum over the
 *                    output channels of its group and the taps (r, s) whose output pixel
 *                    p = (h + PH - r DH) / SH is whole and inside (likewise q). Global >= N C H W.
 *   conv_bwd_filter  x, dy -> dw. A work-item computes one element of dw, the sum over n, p, q.
 *                    Global >= K CG R S.
 * Work-item order: NCHW puts the output's last index (q, w or s) fastest, NHWC the channel, so
 * that neighbouring work-items write neighbouring elements in both layouts.
 *
 * Geometry (-D defines, all required, each >= 1 but PH, PW >= 0; the host checks them with
 * gb_conv_out_dims): CN CC CH CW (x: N C H W), CK CR CS (filter: K R S), CP CQ (output P Q),
 * SH SW (strides), PH PW (padding), DH DW (dilations), G (groups), KB (output channels per
 * work-item in conv_fwd, dividing K / G).
 * Types: default float in, out and accumulator; IN_HALF: x, w, y IEEE half (storage, read and
 * written with GB_LOAD_HALF / GB_STORE_HALF); IN_BF16: bfloat16 bits, rounded to nearest even on
 * store; IN_I8: x and w signed 8-bit, int accumulation, y float (conv_fwd only).
 * LAYOUT_NHWC 1: NHWC tensors and a KRSC filter (default 0: NCHW and KCRS).
 *
 * Test defines (tests/test_conv.c checks that verification catches each): GB_BREAK=1 drops the
 * first term (c' = 0, r = 0, s = 0, or n = p = q = 0) of every sum; GB_BREAK=2 reads x in the
 * other layout (a layout mix-up).
 *
 * Without the geometry defines the file compiles a small example (1x8x8x8 by 8 3x3 filters,
 * padding 1), for the compile tests; the suite always defines every one.
 */

#ifndef CN
#define CN 1
#define CC 8
#define CH 8
#define CW 8
#define CK 8
#define CR 3
#define CS 3
#define CP 8
#define CQ 8
#endif
#ifndef SH
#define SH 1
#define SW 1
#endif
#ifndef PH
#define PH 1
#define PW 1
#endif
#ifndef DH
#define DH 1
#define DW 1
#endif
#ifndef G
#define G 1
#endif
#ifndef LAYOUT_NHWC
#define LAYOUT_NHWC 0
#endif
#ifndef KB
#define KB 1
#endif
#ifndef GB_BREAK
#define GB_BREAK 0
#endif

#define CG (CC / G)
#define KG (CK / G)

#if IN_I8
typedef signed char in_t;
typedef int acc_t;
typedef float out_t;
#define LD(p, i) ((int)(p)[(i)])
#define ST(v, p, i) ((p)[(i)] = (float)(v))
#elif IN_HALF
typedef gb_half in_t;
typedef float acc_t;
typedef gb_half out_t;
#define LD(p, i) GB_LOAD_HALF(p, i)
#define ST(v, p, i) GB_STORE_HALF(v, p, i)
#elif IN_BF16
typedef unsigned short in_t;
typedef float acc_t;
typedef unsigned short out_t;
#define LD(p, i) GB_AS_FLOAT(((uint)(p)[(i)]) << 16)
GB_INLINE unsigned short conv_bf16(float v)
{
    uint u = GB_AS_UINT(v);
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}
#define ST(v, p, i) ((p)[(i)] = conv_bf16(v))
#else
typedef float in_t;
typedef float acc_t;
typedef float out_t;
#define LD(p, i) ((p)[(i)])
#define ST(v, p, i) ((p)[(i)] = (v))
#endif

/* Element offsets in each layout. */
#define XI_NCHW(n, c, h, w) ((((size_t)(n) * CC + (c)) * CH + (h)) * CW + (w))
#define XI_NHWC(n, c, h, w) ((((size_t)(n) * CH + (h)) * CW + (w)) * CC + (c))
#if LAYOUT_NHWC
#define XI(n, c, h, w) (GB_BREAK == 2 ? XI_NCHW(n, c, h, w) : XI_NHWC(n, c, h, w))
#define YI(n, k, p, q) ((((size_t)(n) * CP + (p)) * CQ + (q)) * CK + (k))
#define WI(k, c, r, s) ((((size_t)(k) * CR + (r)) * CS + (s)) * CG + (c))
#else
#define XI(n, c, h, w) (GB_BREAK == 2 ? XI_NHWC(n, c, h, w) : XI_NCHW(n, c, h, w))
#define YI(n, k, p, q) ((((size_t)(n) * CK + (k)) * CP + (p)) * CQ + (q))
#define WI(k, c, r, s) ((((size_t)(k) * CG + (c)) * CR + (r)) * CS + (s))
#endif

GB_KERNEL void conv_fwd(GB_GLOBAL const in_t *GB_RESTRICT x, GB_GLOBAL const in_t *GB_RESTRICT w,
                        GB_GLOBAL out_t *GB_RESTRICT y)
{
    const size_t kbs = CK / KB;
    size_t i = GB_GLOBAL_ID(0);
    if (i >= (size_t)CN * CP * CQ * kbs)
        return;
    size_t n, kb, p, q;
#if LAYOUT_NHWC
    kb = i % kbs, i /= kbs;
    q = i % CQ, i /= CQ;
    p = i % CP, n = i / CP;
#else
    q = i % CQ, i /= CQ;
    p = i % CP, i /= CP;
    kb = i % kbs, n = i / kbs;
#endif
    const int k0 = (int)(kb * KB);
    const int c0 = (k0 / KG) * CG;
    acc_t acc[KB];
    for (int j = 0; j < KB; j++)
        acc[j] = 0;
    for (int c = 0; c < CG; c++)
        for (int r = 0; r < CR; r++) {
            const int h = (int)p * SH - PH + r * DH;
            if (h < 0 || h >= CH)
                continue;
            for (int s = 0; s < CS; s++) {
                const int ww = (int)q * SW - PW + s * DW;
                if (ww < 0 || ww >= CW)
                    continue;
#if GB_BREAK == 1
                if (c == 0 && r == 0 && s == 0)
                    continue;
#endif
                const acc_t xv = LD(x, XI(n, c0 + c, h, ww));
                for (int j = 0; j < KB; j++)
                    acc[j] += xv * LD(w, WI(k0 + j, c, r, s));
            }
        }
    for (int j = 0; j < KB; j++)
        ST(acc[j], y, YI(n, k0 + j, p, q));
}

#if !IN_I8
GB_KERNEL void conv_bwd_data(GB_GLOBAL const in_t *GB_RESTRICT dy,
                             GB_GLOBAL const in_t *GB_RESTRICT w, GB_GLOBAL out_t *GB_RESTRICT dx)
{
    size_t i = GB_GLOBAL_ID(0);
    if (i >= (size_t)CN * CC * CH * CW)
        return;
    size_t n, c, h, ww;
#if LAYOUT_NHWC
    c = i % CC, i /= CC;
    ww = i % CW, i /= CW;
    h = i % CH, n = i / CH;
#else
    ww = i % CW, i /= CW;
    h = i % CH, i /= CH;
    c = i % CC, n = i / CC;
#endif
    const int g = (int)c / CG, cl = (int)c % CG;
    acc_t acc = 0;
    for (int kk = 0; kk < KG; kk++) {
        const int k = g * KG + kk;
        for (int r = 0; r < CR; r++) {
            const int ph = (int)h + PH - r * DH;
            if (ph < 0 || ph % SH || ph / SH >= CP)
                continue;
            for (int s = 0; s < CS; s++) {
                const int pw = (int)ww + PW - s * DW;
                if (pw < 0 || pw % SW || pw / SW >= CQ)
                    continue;
#if GB_BREAK == 1
                if (kk == 0 && r == 0 && s == 0)
                    continue;
#endif
                acc += LD(dy, YI(n, k, ph / SH, pw / SW)) * LD(w, WI(k, cl, r, s));
            }
        }
    }
    /* GB_BREAK == 2 writes dx in the other layout. */
    ST(acc, dx, XI(n, c, h, ww));
}

GB_KERNEL void conv_bwd_filter(GB_GLOBAL const in_t *GB_RESTRICT x,
                               GB_GLOBAL const in_t *GB_RESTRICT dy,
                               GB_GLOBAL out_t *GB_RESTRICT dw)
{
    size_t i = GB_GLOBAL_ID(0);
    if (i >= (size_t)CK * CG * CR * CS)
        return;
    size_t k, c, r, s;
#if LAYOUT_NHWC
    c = i % CG, i /= CG;
    s = i % CS, i /= CS;
    r = i % CR, k = i / CR;
#else
    s = i % CS, i /= CS;
    r = i % CR, i /= CR;
    c = i % CG, k = i / CG;
#endif
    const int cx = (int)(k / KG) * CG + (int)c;
    acc_t acc = 0;
    for (int n = 0; n < CN; n++)
        for (int p = 0; p < CP; p++) {
            const int h = p * SH - PH + (int)r * DH;
            if (h < 0 || h >= CH)
                continue;
            for (int q = 0; q < CQ; q++) {
                const int ww = q * SW - PW + (int)s * DW;
                if (ww < 0 || ww >= CW)
                    continue;
#if GB_BREAK == 1
                if (n == 0 && p == 0 && q == 0)
                    continue;
#endif
                acc += LD(x, XI(n, cx, h, ww)) * LD(dy, YI(n, k, p, q));
            }
        }
    ST(acc, dw, WI(k, c, r, s));
}
#endif
