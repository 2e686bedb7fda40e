/* conv — 2-D convolution, forward and the two backward passes, through the backend's library
 * (cuDNN on CUDA, CLBlast's convgemm on OpenCL) and through gpubench's own direct kernel
 * (kernels/conv.cl), at layer shapes of real models (suites/presets.h) or shapes a person gives,
 * in NCHW or NHWC, with its accuracy.
 *
 * One operation is one pass over the batch (backends/backend.h, struct gb_conv_shape, defines
 * it): 2 N K (C/G) R S P Q operations whatever the direction (gb_conv_flops), the count cuDNN's
 * and MLPerf's rates use. dir fwd computes y from x and w; bwd_data dx from dy and w; bwd_filter
 * dw from x and dy. For the library the whole call is timed, as for gemm.
 *
 * Precisions (axis prec): f32 (FP32 in and out, FP32 accumulation, no TF32); tf32 (FP32 data on
 * TF32 tensor cores: the library only); f16 and bf16 (16-bit data, FP32 accumulation, 16-bit
 * out); i8 (int8 x and w, int32 accumulation, FP32 y: forward only; cuDNN's INT8_EXT_CONFIG,
 * which needs NHWC and C, K multiples of 4, and the own kernel). What a library lacks (CLBlast:
 * backward passes, NHWC, groups, bf16, int8) is a recorded skip with its reason.
 *
 * Accuracy: the inputs are drawn in FP64, U(-1, 1) (i8: whole numbers in [-64, 64], exact in
 * every format), rounded to the precision's input format for the device; the reference is the
 * FP64 (long double accumulated) pass over the unrounded draws, so the error includes the
 * rounding of the inputs. Per element the relative error is |out - ref| / sum |a||b| over the
 * element's terms (backends/precision.h), on every element when the reference costs at most 2^27
 * terms in all, else on the four corners of the output and 4092 seeded elements. The tolerance is
 * the rigorous first-order bound of gb_gemm_error_bound with k the most terms an element has
 * (fwd C/G R S, bwd_data K/G R S, bwd_filter N P Q) for the input, accumulation and output
 * formats (TF32 inputs rounded twice), and for f32 the smaller probabilistic bound of Higham and
 * Mary that the gemm suite uses (gb__gemm_tolerance). The library's transform algorithms (cuDNN's
 * FFT and Winograd families, gb_conv_plan.transform) are not accurate per element: their error
 * is bounded normwise (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., 2002,
 * section 24.1, for the FFT: a constant times log2 n u times the norms of the operands; Barabasz
 * et al., "Error analysis and improving the accuracy of Winograd convolution", ACM TOMS 2020,
 * for Winograd), so for them every element's error is taken relative to the largest sum |a||b|
 * of the output and the tolerance is 64 times the bound; the figure `error_scale` says which.
 * Every element must be finite. axis `tol` overrides the tolerance.
 *
 * Figures: rms_error and tolerance; `algo`, the algorithm the library's search chose (or the
 * own kernel's configuration); `dims`, what ran in the explicit shape syntax; workspace_bytes, the scratch memory it runs with, where the
 * library says; and on a preset's last layer model_s, the forward pass's convolutions' time
 * (gb_preset_model_derive).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/precision.h"
#include "base/util.h"
#include "suites/conv_state.h"
#include "suites/gemm_tolerance.h"
#include "suites/presets.h"

static const char *const dirs[] = {"fwd", "bwd_data", "bwd_filter", NULL};
static const char *const precs[] = {"f32", "tf32", "f16", "bf16", "i8", NULL};
static const char *const impls[] = {"library", "own", NULL};
static const char *const layouts[] = {"nchw", "nhwc", NULL};

static bool shape_check(const char *s, char *why, size_t len);
static size_t shape_expand(const char *value, char (*out)[GB_STR_MAX], size_t cap)
{
    return gb_preset_expand(value, GB_PRESET_CONV, out, cap);
}

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("dir", "fwd", dirs,
                "fwd: y from x and w; bwd_data: dx from dy and w; bwd_filter: dw from x and dy"),
    GB_AXIS_STR("prec", "f32", precs,
                "f32; tf32 (FP32 data on TF32 tensor cores, library only); f16, bf16 (16-bit data, "
                "FP32 accumulation); i8 (int8 in, int32 accumulation, FP32 out; forward only)"),
    GB_AXIS_STR("impl", "[library, own]", impls,
                "library: cuDNN (CUDA) or CLBlast's convgemm (OpenCL); own: kernels/conv.cl"),
    GB_AXIS_STR("layout", "nchw", layouts,
                "nchw: x N,C,H,W and w K,C/G,R,S; nhwc: x N,H,W,C and w K,R,S,C/G"),
    GB_AXIS_STR("shape", "resnet50.conv2_3x3", NULL,
                "a preset (resnet50: its 23 convolution shapes; resnet50-b32: of 32 images), one "
                "of its layers (resnet50.conv3_3x3), or NxCxHxW-KxRxS with -sS (stride), -pP "
                "(padding), -dD (dilation), -gG (groups) suffixes, each AxB for unequal height "
                "and width",
                .check = shape_check, .expand = shape_expand),
    GB_AXIS_FLOAT("tol", "0", "largest relative error accepted; 0: the precision's default bound",
                  .check_float = gb__gemm_tol_check),
};

/* ---- shapes ---------------------------------------------------------------------------- */

/* "A" or "AxB" (each 0 .. 2^31 - 1 here; the geometry check decides what 0 means). */
static bool parse_pair(const char *s, uint64_t *a, uint64_t *b)
{
    char *end;
    if (*s < '0' || *s > '9')
        return false;
    unsigned long long x = strtoull(s, &end, 10), y = x;
    if (*end == 'x') {
        if (end[1] < '0' || end[1] > '9')
            return false;
        y = strtoull(end + 1, &end, 10);
    }
    if (*end || x >= (1ull << 31) || y >= (1ull << 31))
        return false;
    *a = x;
    *b = y;
    return true;
}

bool gb__conv_parse_shape(const char *s, struct gb_conv_shape *sh, char *why, size_t len)
{
    char buf[GB_STR_MAX];
    if (strlen(s) >= sizeof buf) {
        snprintf(why, len, "longer than %d characters", GB_STR_MAX - 1);
        return false;
    }
    memcpy(buf, s, strlen(s) + 1);
    /* Digits, 'x' and the suffix letters only, '-' between parts (not first, last or twice):
     * strtok and sscanf would otherwise take "-1x..." or "1x..--1x.." for the plain shape. */
    if (!*s || s[0] == '-' || s[strlen(s) - 1] == '-' || strstr(s, "--") ||
        strspn(s, "0123456789x-spdg") != strlen(s))
        goto form;
    *sh = (struct gb_conv_shape){.stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1};
    char *save = NULL, *part = strtok_r(buf, "-", &save);
    unsigned long long v[4];
    char tail;
    if (!part || part[0] < '0' || part[0] > '9' ||
        sscanf(part, "%llux%llux%llux%llu%c", &v[0], &v[1], &v[2], &v[3], &tail) != 4)
        goto form;
    sh->n = v[0], sh->c = v[1], sh->h = v[2], sh->w = v[3];
    if (!(part = strtok_r(NULL, "-", &save)) || part[0] < '0' || part[0] > '9' ||
        sscanf(part, "%llux%llux%llu%c", &v[0], &v[1], &v[2], &tail) != 3)
        goto form;
    sh->k = v[0], sh->r = v[1], sh->s = v[2];
    bool seen[4] = {false};
    while ((part = strtok_r(NULL, "-", &save))) {
        const char *keys = "spdg", *at = strchr(keys, part[0]);
        uint64_t a, b;
        if (!part[0] || !at || seen[at - keys] || !parse_pair(part + 1, &a, &b))
            goto form;
        seen[at - keys] = true;
        switch (*at) {
        case 's':
            sh->stride_h = a, sh->stride_w = b;
            break;
        case 'p':
            sh->pad_h = a, sh->pad_w = b;
            break;
        case 'd':
            sh->dil_h = a, sh->dil_w = b;
            break;
        default:
            if (a != b)
                goto form;
            sh->groups = a;
            break;
        }
    }
    uint64_t p, q; /* gb_conv_out_dims refuses every size of 2^31 or more */
    if (gb_conv_out_dims(sh, &p, &q)) {
        snprintf(why, len, "%s", gb_error_msg());
        return false;
    }
    return true;
form:
    snprintf(why, len,
             "expected a conv preset (resnet50, or resnet50-bN for N images, N 1 to 65536), "
             "one of its layers (resnet50.conv1), or NxCxHxW-KxRxS with optional -sS -pP -dD "
             "-gG (S, P, D as A or AxB)");
    return false;
}

/* The convolution a shape value names: a preset's layer at its batch, or the written shape
 * (gb__conv_parse_shape, whose reason goes to why). */
static bool conv_shape_of(const char *shape, struct gb_conv_shape *sh, char *why, size_t len)
{
    const struct gb_preset *pr;
    const struct gb_preset_layer *ly;
    uint64_t batch;
    if (!gb_preset_layer_find(shape, GB_PRESET_CONV, &pr, &ly, &batch))
        return gb__conv_parse_shape(shape, sh, why, len);
    *sh = ly->conv;
    sh->n = batch;
    return true;
}

static bool shape_check(const char *s, char *why, size_t len)
{
    const struct gb_preset *p;
    const struct gb_preset_layer *l;
    struct gb_conv_shape sh;
    uint64_t batch;
    if (gb_preset_layer_find(s, GB_PRESET_CONV, &p, &l, &batch) ||
        gb_preset_expand(s, GB_PRESET_CONV, NULL, 0) > 0)
        return true;
    if (gb_preset_layers_hint(s, GB_PRESET_CONV, why, len))
        return false;
    return gb__conv_parse_shape(s, &sh, why, len);
}

/* ---- the reference --------------------------------------------------------------------- */

struct dims {
    uint64_t n, c, h, w, k, r, s, p, q, cg, kg;
    bool nhwc;
};

static struct dims dims_of(const struct gb_conv *c, uint64_t pp, uint64_t qq)
{
    const struct gb_conv_shape *h = &c->sh;
    return (struct dims){h->n,
                         h->c,
                         h->h,
                         h->w,
                         h->k,
                         h->r,
                         h->s,
                         pp,
                         qq,
                         h->c / h->groups,
                         h->k / h->groups,
                         c->layout == GB_LAYOUT_NHWC};
}

static uint64_t xi(const struct dims *d, uint64_t n, uint64_t c, uint64_t h, uint64_t w)
{
    return d->nhwc ? ((n * d->h + h) * d->w + w) * d->c + c
                   : ((n * d->c + c) * d->h + h) * d->w + w;
}
static uint64_t yi(const struct dims *d, uint64_t n, uint64_t k, uint64_t p, uint64_t q)
{
    return d->nhwc ? ((n * d->p + p) * d->q + q) * d->k + k
                   : ((n * d->k + k) * d->p + p) * d->q + q;
}
static uint64_t wi(const struct dims *d, uint64_t k, uint64_t c, uint64_t r, uint64_t s)
{
    return d->nhwc ? ((k * d->r + r) * d->s + s) * d->cg + c
                   : ((k * d->cg + c) * d->r + r) * d->s + s;
}

double gb__conv_ref(const struct gb_conv *c, uint64_t pp, uint64_t qq, const double *a,
                    const double *b, uint64_t e, double *mag, uint64_t *terms)
{
    const struct dims d = dims_of(c, pp, qq);
    const struct gb_conv_shape *g = &c->sh;
    long double sum = 0, m = 0;
    uint64_t t = 0;
#define ACC(u, v)                                      \
    do {                                               \
        const long double pr = (long double)(u) * (v); \
        sum += pr;                                     \
        m += fabsl(pr);                                \
        t++;                                           \
    } while (0)
    if (c->dir == GB_CONV_FWD) {
        uint64_t n, k, p, q, i = e;
        if (d.nhwc)
            k = i % d.k, i /= d.k, q = i % d.q, i /= d.q, p = i % d.p, n = i / d.p;
        else
            q = i % d.q, i /= d.q, p = i % d.p, i /= d.p, k = i % d.k, n = i / d.k;
        const uint64_t c0 = k / d.kg * d.cg;
        for (uint64_t cc = 0; cc < d.cg; cc++)
            for (uint64_t r = 0; r < d.r; r++)
                for (uint64_t s = 0; s < d.s; s++) {
                    const int64_t h = (int64_t)(p * g->stride_h + r * g->dil_h) - (int64_t)g->pad_h;
                    const int64_t w = (int64_t)(q * g->stride_w + s * g->dil_w) - (int64_t)g->pad_w;
                    if (h < 0 || w < 0 || (uint64_t)h >= d.h || (uint64_t)w >= d.w)
                        continue;
                    ACC(a[xi(&d, n, c0 + cc, (uint64_t)h, (uint64_t)w)], b[wi(&d, k, cc, r, s)]);
                }
    } else if (c->dir == GB_CONV_BWD_DATA) {
        uint64_t n, ch, h, w, i = e;
        if (d.nhwc)
            ch = i % d.c, i /= d.c, w = i % d.w, i /= d.w, h = i % d.h, n = i / d.h;
        else
            w = i % d.w, i /= d.w, h = i % d.h, i /= d.h, ch = i % d.c, n = i / d.c;
        const uint64_t grp = ch / d.cg, cl = ch % d.cg;
        for (uint64_t kk = 0; kk < d.kg; kk++) {
            const uint64_t k = grp * d.kg + kk;
            for (uint64_t r = 0; r < d.r; r++) {
                const int64_t ph = (int64_t)(h + g->pad_h) - (int64_t)(r * g->dil_h);
                if (ph < 0 || ph % (int64_t)g->stride_h || (uint64_t)ph / g->stride_h >= d.p)
                    continue;
                for (uint64_t s = 0; s < d.s; s++) {
                    const int64_t pw = (int64_t)(w + g->pad_w) - (int64_t)(s * g->dil_w);
                    if (pw < 0 || pw % (int64_t)g->stride_w || (uint64_t)pw / g->stride_w >= d.q)
                        continue;
                    ACC(a[yi(&d, n, k, (uint64_t)ph / g->stride_h, (uint64_t)pw / g->stride_w)],
                        b[wi(&d, k, cl, r, s)]);
                }
            }
        }
    } else {
        uint64_t k, cc, r, s, i = e;
        if (d.nhwc)
            cc = i % d.cg, i /= d.cg, s = i % d.s, i /= d.s, r = i % d.r, k = i / d.r;
        else
            s = i % d.s, i /= d.s, r = i % d.r, i /= d.r, cc = i % d.cg, k = i / d.cg;
        const uint64_t cx = k / d.kg * d.cg + cc;
        for (uint64_t n = 0; n < d.n; n++)
            for (uint64_t p = 0; p < d.p; p++) {
                const int64_t h = (int64_t)(p * g->stride_h + r * g->dil_h) - (int64_t)g->pad_h;
                if (h < 0 || (uint64_t)h >= d.h)
                    continue;
                for (uint64_t q = 0; q < d.q; q++) {
                    const int64_t w = (int64_t)(q * g->stride_w + s * g->dil_w) - (int64_t)g->pad_w;
                    if (w < 0 || (uint64_t)w >= d.w)
                        continue;
                    ACC(a[xi(&d, n, cx, (uint64_t)h, (uint64_t)w)], b[yi(&d, n, k, p, q)]);
                }
            }
    }
#undef ACC
    *mag = (double)m;
    *terms = t;
    return (double)sum;
}

/* ---- setup ----------------------------------------------------------------------------- */

static enum cvprec parse_prec(const char *s)
{
    for (int i = 0; i < CV_COUNT; i++)
        if (strcmp(precs[i], s) == 0)
            return (enum cvprec)i;
    return CV_F32;
}

static enum gb_dtype in_type(enum cvprec p)
{
    return p == CV_F16 ? GB_F16 : p == CV_BF16 ? GB_BF16 : p == CV_I8 ? GB_I8 : GB_F32;
}

/* The type of the pass's output: y is FP32 for i8 (forward only). */
static enum gb_dtype out_type(enum cvprec p)
{
    return p == CV_I8 ? GB_F32 : in_type(p);
}

static double *draws(uint64_t n, uint64_t seed, bool integer)
{
    if (n > SIZE_MAX / sizeof(double))
        return NULL;
    double *x = malloc((n ? n : 1) * sizeof *x);
    if (!x)
        return NULL;
    for (uint64_t i = 0; i < n; i++)
        x[i] = integer ? (double)((int64_t)(gb_splitmix64(&seed) % 129) - 64)
                       : (double)(gb_splitmix64(&seed) >> 11) * 0x1p-52 - 1.0;
    return x;
}

/* Uploads n draws in type t to a new device buffer *out. */
static int upload(struct gb_case_ctx *ctx, const double *x, uint64_t n, enum gb_dtype t,
                  struct gb_buf **out)
{
    const size_t es = gb_dtype_size(t);
    int err = gb_case_alloc(ctx, n * es, GB_MEM_DEVICE, out);
    if (err)
        return err;
    if (!x)
        return 0;
    unsigned char *h = malloc(n * es);
    if (!h)
        return GB_FAIL(GB_ENOMEM, "input of %llu elements", (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++)
        switch (t) {
        case GB_F32:
            ((float *)h)[i] = (float)x[i];
            break;
        case GB_F16:
            ((uint16_t *)h)[i] = gb_f16_from_double(x[i]);
            break;
        case GB_BF16:
            ((uint16_t *)h)[i] = gb_bf16_from_double(x[i]);
            break;
        default: /* GB_I8 */
            ((int8_t *)h)[i] = (int8_t)x[i];
            break;
        }
    err = gb_case_upload(ctx, *out, h, n * es);
    free(h);
    return err;
}

/* The output buffer of the pass and its element count and type. */
static struct gb_buf *out_buf(struct conv *s, uint64_t *n, enum gb_dtype *t)
{
    *t = s->c.dir == GB_CONV_FWD ? out_type(s->p) : in_type(s->p);
    *n = s->c.dir == GB_CONV_FWD ? s->ny : s->c.dir == GB_CONV_BWD_DATA ? s->nx : s->nw;
    return s->c.dir == GB_CONV_FWD ? s->y : s->c.dir == GB_CONV_BWD_DATA ? s->x : s->w;
}

/* Loop iterations one work-item of the own kernel (kernels/conv.cl) runs, every iteration of
 * every loop counted, those that skip the padding too: forward, its kb accumulators set and
 * stored and, per input channel of its group, the filter's rows, columns and kb products;
 * backward data, per output channel of the group, the rows and columns; backward filter, per
 * image, the output's rows and columns. */
static uint64_t own_trips(const struct conv *s, uint64_t kb)
{
    const struct gb_conv_shape *h = &s->c.sh;
    if (s->c.dir == GB_CONV_FWD)
        return 2 * kb + h->c / h->groups * (1 + h->r * (1 + h->s * (1 + kb)));
    if (s->c.dir == GB_CONV_BWD_DATA)
        return h->k / h->groups * (1 + h->r * (1 + h->s));
    return h->n * (1 + s->pp * (1 + s->qq));
}

static int own_setup(struct gb_case_ctx *ctx, struct conv *s)
{
    const struct gb_conv_shape *h = &s->c.sh;
    if (s->p == CV_TF32)
        return gb_case_skip(ctx, "own kernel: no TF32 tensor-core path (tf32 runs through the "
                                 "library)");
    /* The kernel computes pixel coordinates in int: p SH + r DH + PH (and h + PH) must fit. */
    const uint64_t reach_h = s->pp * h->stride_h + h->r * h->dil_h + h->pad_h + h->h;
    const uint64_t reach_w = s->qq * h->stride_w + h->s * h->dil_w + h->pad_w + h->w;
    if (reach_h >= (1ull << 31) || reach_w >= (1ull << 31) ||
        (h->c / h->groups) * h->r * h->s >= (1ull << 31) || h->n * s->pp * s->qq >= (1ull << 31))
        return gb_case_skip(ctx, "own kernel: its int coordinates and loop counts do not reach "
                                 "this geometry (strides, padding or dilations near 2^31)");
    /* Output channels per work-item in the forward pass: the largest of 8, 4, 2 dividing K/G. */
    uint64_t kb = 8;
    while (kb > 1 && (h->k / h->groups) % kb)
        kb /= 2;
    if (s->c.dir != GB_CONV_FWD)
        kb = 1;
    /* On a driver that stops a work-item's loops, fewer output channels per work-item first;
     * the geometry's own loops past the limit are a skip. */
    const uint32_t limit = ctx->dev->info.max_loop_trips;
    while (limit && kb > 1 && own_trips(s, kb) > limit)
        kb /= 2;
    int err = gb_case_loop_fits(ctx, own_trips(s, kb), "own kernel", NULL);
    if (err)
        return err;
    char d[24][32];
    size_t nd = 0;
    const struct {
        const char *name;
        uint64_t v;
    } geo[] = {
        {"CN", h->n},        {"CC", h->c},        {"CH", h->h},
        {"CW", h->w},        {"CK", h->k},        {"CR", h->r},
        {"CS", h->s},        {"CP", s->pp},       {"CQ", s->qq},
        {"SH", h->stride_h}, {"SW", h->stride_w}, {"PH", h->pad_h},
        {"PW", h->pad_w},    {"DH", h->dil_h},    {"DW", h->dil_w},
        {"G", h->groups},    {"KB", kb},          {"LAYOUT_NHWC", s->c.layout == GB_LAYOUT_NHWC}};
    for (size_t i = 0; i < sizeof geo / sizeof geo[0]; i++)
        snprintf(d[nd++], sizeof d[0], "%s=%llu", geo[i].name, (unsigned long long)geo[i].v);
    if (s->p == CV_F16)
        snprintf(d[nd++], sizeof d[0], "IN_HALF=1");
    else if (s->p == CV_BF16)
        snprintf(d[nd++], sizeof d[0], "IN_BF16=1");
    else if (s->p == CV_I8)
        snprintf(d[nd++], sizeof d[0], "IN_I8=1");
    const char *defs[25];
    for (size_t i = 0; i < nd; i++)
        defs[i] = d[i];
    if (s->hook.test_define)
        defs[nd++] = s->hook.test_define;
    static const char *const kname[] = {"conv_fwd", "conv_bwd_data", "conv_bwd_filter"};
    err = gb_case_build(ctx, "conv.cl", kname[s->c.dir], defs, nd, &s->prog, &s->kern);
    if (err)
        return err;
    uint32_t kmax = 0;
    if ((err = ctx->ops->kernel_max_wg(s->kern, &kmax)))
        return err;
    uint32_t wg = 64;
    const uint32_t lim = kmax < ctx->dev->info.max_wg_size ? kmax : ctx->dev->info.max_wg_size;
    while (wg > 1 && wg > lim)
        wg /= 2;
    const uint64_t items = s->c.dir == GB_CONV_FWD        ? s->ny / kb
                           : s->c.dir == GB_CONV_BWD_DATA ? s->nx
                                                          : s->nw;
    s->l = (struct gb_launch){
        .dims = 1, .global = {(items + wg - 1) / wg * wg, 1, 1}, .local = {wg, 1, 1}, .nargs = 3};
    struct gb_buf *const *args[3][3] = {
        {&s->x, &s->w, &s->y}, {&s->y, &s->w, &s->x}, {&s->x, &s->y, &s->w}};
    for (int i = 0; i < 3; i++)
        s->l.args[i] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = *args[s->c.dir][i]};
    snprintf(s->config, sizeof s->config, "own direct, %llu channel%s/work-item, wg %u",
             (unsigned long long)kb, kb == 1 ? "" : "s", wg);
    return 0;
}

static int conv_setup(struct gb_case_ctx *ctx)
{
    struct conv *s = ctx->state;
    const struct gb_params *pa = ctx->params;
    s->p = parse_prec(gb_params_str(pa, "prec"));
    s->own = strcmp(gb_params_str(pa, "impl"), "own") == 0;
    s->tol = gb_params_float(pa, "tol");
    const char *dir = gb_params_str(pa, "dir");
    s->c.dir = strcmp(dir, "bwd_data") == 0     ? GB_CONV_BWD_DATA
               : strcmp(dir, "bwd_filter") == 0 ? GB_CONV_BWD_FILTER
                                                : GB_CONV_FWD;
    s->c.layout =
        strcmp(gb_params_str(pa, "layout"), "nhwc") == 0 ? GB_LAYOUT_NHWC : GB_LAYOUT_NCHW;
    s->c.type = in_type(s->p);
    s->c.compute = s->p == CV_I8 ? GB_I32 : GB_F32;
    s->c.tf32 = s->p == CV_TF32;
    const char *shape = gb_params_str(pa, "shape");
    char why[256];
    if (!conv_shape_of(shape, &s->c.sh, why, sizeof why))
        return GB_FAIL(GB_EINVAL, "conv shape %s: %s", shape, why);
    int err = gb_conv_out_dims(&s->c.sh, &s->pp, &s->qq);
    if (err)
        return gb_case_skip(ctx, "%s", gb_error_msg());
    if (s->p == CV_I8 && s->c.dir != GB_CONV_FWD)
        return gb_case_skip(ctx, "i8: the forward pass only (training's backward passes run in "
                                 "16 or 32 bits)");
    if (!s->own && !ctx->ops->conv_plan)
        return gb_case_skip(ctx, "no library convolution in the %s backend (%s)", ctx->ops->name,
                            ctx->ops->facts.conv_absent ? ctx->ops->facts.conv_absent : "none");
    gb_conv_sizes(&s->c.sh, &s->nx, &s->nw, &s->ny);
    /* Memory, in double (the counts may be near 2^62): the two inputs' FP64 draws on the host
     * and the three tensors on the device, before anything is allocated. */
    const double es = (double)gb_dtype_size(in_type(s->p));
    const double dev_bytes = ((double)s->nx + (double)s->nw) * es +
                             (double)s->ny * (double)gb_dtype_size(out_type(s->p));
    const double host_bytes = ((double)s->nx + (double)s->nw + (double)s->ny) * 8.0;
    if ((ctx->dev->info.global_mem && dev_bytes > (double)ctx->dev->info.global_mem) ||
        host_bytes > 0x1p36)
        return gb_case_skip(ctx,
                            "x, w and y need %.3g bytes on the device (it has %llu) and their FP64 "
                            "draws %.3g bytes on the host (at most 64 GiB here)",
                            dev_bytes, (unsigned long long)ctx->dev->info.global_mem, host_bytes);

    /* The inputs of the pass, drawn, and its output. */
    const bool integer = s->p == CV_I8;
    const uint64_t na = s->c.dir == GB_CONV_BWD_DATA ? s->ny : s->nx;
    const uint64_t nb = s->c.dir == GB_CONV_BWD_FILTER ? s->ny : s->nw;
    if (!(s->a64 = draws(na, 0x5EED0001ull, integer)) ||
        !(s->b64 = draws(nb, 0x5EED0002ull, integer)))
        return GB_FAIL(GB_ENOMEM, "conv inputs of %llu and %llu elements", (unsigned long long)na,
                       (unsigned long long)nb);
    const enum gb_dtype it = in_type(s->p), ot = out_type(s->p);
    switch (s->c.dir) {
    case GB_CONV_FWD:
        if ((err = upload(ctx, s->a64, s->nx, it, &s->x)) ||
            (err = upload(ctx, s->b64, s->nw, it, &s->w)) ||
            (err = upload(ctx, NULL, s->ny, ot, &s->y)))
            return err;
        break;
    case GB_CONV_BWD_DATA:
        if ((err = upload(ctx, s->a64, s->ny, it, &s->y)) ||
            (err = upload(ctx, s->b64, s->nw, it, &s->w)) ||
            (err = upload(ctx, NULL, s->nx, it, &s->x)))
            return err;
        break;
    default:
        if ((err = upload(ctx, s->a64, s->nx, it, &s->x)) ||
            (err = upload(ctx, s->b64, s->ny, it, &s->y)) ||
            (err = upload(ctx, NULL, s->nw, it, &s->w)))
            return err;
        break;
    }
    s->c.x = s->x, s->c.w = s->w, s->c.y = s->y;

    if (s->own) {
        if ((err = own_setup(ctx, s)))
            return err;
        err = ctx->ops->launch(ctx->q, s->kern, &s->l);
    } else {
        /* The library's search runs now, untimed, and may write the output. */
        err = ctx->ops->conv_plan(ctx->q, &s->c, &s->plan);
        if (err == GB_EUNSUPPORTED)
            return gb_case_skip(ctx, "%s", gb_error_msg());
        if (!err) {
            snprintf(s->config, sizeof s->config, "%s", s->plan->algo);
            s->normwise = s->plan->transform;
            err = ctx->ops->conv_run(s->plan);
            if (err == GB_EUNSUPPORTED)
                return gb_case_skip(ctx, "%s", gb_error_msg());
        }
    }
    uint64_t no;
    enum gb_dtype t;
    struct gb_buf *o = out_buf(s, &no, &t);
    if (err || (err = ctx->ops->queue_sync(ctx->q)) ||
        (err = gb_case_poison(ctx, o, no * gb_dtype_size(t), t)))
        return err;
    ctx->op.flops = gb_conv_flops(&s->c.sh);
    ctx->op.integer = integer;
    ctx->op.timer = GB_TIMER_DEVICE;
    return 0;
}

static int conv_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct conv *s = ctx->state;
    int err = 0;
    for (uint64_t r = 0; r < reps && !err; r++)
        err = s->own ? ctx->ops->launch(ctx->q, s->kern, &s->l) : ctx->ops->conv_run(s->plan);
    return err;
}

/* ---- verify ---------------------------------------------------------------------------- */

/* The default tolerance for an element of at most k terms (see the top of the file). */
static double default_tol(const struct conv *s, uint64_t k)
{
    if (s->p == CV_F32)
        return gb__gemm_tolerance(GP_F32, k) * (s->normwise ? 64.0 : 1.0);
    const double u_in = s->p == CV_TF32 ? 0x1p-11 + 0x1p-24
                        : s->p == CV_I8 ? 0.0
                                        : gb_unit_roundoff(in_type(s->p));
    /* i8: the int32 sums are exact (|sum| < 2^31 for k < 2^19 terms of at most 64^2); only the
     * rounding of the sum to FP32 y remains. */
    const double u_acc = s->p == CV_I8 ? 0.0 : gb_unit_roundoff(GB_F32);
    const double u_out = gb_unit_roundoff(out_type(s->p));
    return gb_gemm_error_bound(k, u_in, u_acc, u_out) * (s->normwise ? 64.0 : 1.0);
}

static double elem(enum gb_dtype t, const void *c, uint64_t i)
{
    switch (t) {
    case GB_F32:
        return ((const float *)c)[i];
    case GB_F16:
        return gb_f16_to_double(((const uint16_t *)c)[i]);
    default:
        return gb_bf16_to_double(((const uint16_t *)c)[i]);
    }
}

static int conv_verify(struct gb_case_ctx *ctx)
{
    struct conv *s = ctx->state;
    uint64_t no;
    enum gb_dtype t;
    struct gb_buf *o = out_buf(s, &no, &t);
    int err;
    void *out = gb_case_read_back(ctx, o, no * gb_dtype_size(t), &err);
    if (!out)
        return err;
    const struct gb_conv_shape *h = &s->c.sh;
    const uint64_t terms = s->c.dir == GB_CONV_FWD        ? (h->c / h->groups) * h->r * h->s
                           : s->c.dir == GB_CONV_BWD_DATA ? (h->k / h->groups) * h->r * h->s
                                                          : h->n * s->pp * s->qq;
    /* Every element when the reference costs at most 2^27 terms in all; else as many as that
     * buys, at least the 4 corners, at most 4096 (fewer when each element has very many terms). */
    const bool all = (double)no * (double)terms <= 0x1p27;
    uint64_t count = all ? no : (uint64_t)fmax(4.0, fmin(4096.0, 0x1p27 / (double)terms));
    if (count > no)
        count = no;
    /* Transform algorithms: every element's error against the largest magnitude seen. */
    double *got = malloc(count * sizeof *got), *ref = malloc(count * sizeof *ref);
    double *mag = malloc(count * sizeof *mag);
    uint64_t *at = malloc(count * sizeof *at);
    if (!got || !ref || !mag || !at) {
        free(out), free(got), free(ref), free(mag), free(at);
        return GB_FAIL(GB_ENOMEM, "conv verify of %llu elements", (unsigned long long)count);
    }
    uint64_t seed = 0xC0FFEEull, most = 0;
    double max_mag = 0;
    for (uint64_t i = 0; i < count; i++) {
        const uint64_t e = all     ? i
                           : i < 4 ? (i == 0   ? 0
                                      : i == 1 ? no - 1
                                      : i == 2 ? no / 2
                                               : no / 3)
                                   : gb_splitmix64(&seed) % no;
        uint64_t n;
        at[i] = e;
        ref[i] = gb__conv_ref(&s->c, s->pp, s->qq, s->a64, s->b64, e, &mag[i], &n);
        got[i] = elem(t, out, e);
        most = n > most ? n : most;
        max_mag = mag[i] > max_mag ? mag[i] : max_mag;
    }
    free(out);
    struct gb_accuracy acc;
    gb_accuracy_init(&acc);
    for (uint64_t i = 0; i < count; i++)
        gb_accuracy_add(&acc, at[i], got[i], ref[i], s->normwise ? max_mag : mag[i]);
    free(got), free(ref), free(mag), free(at);
    s->tolerance = s->tol > 0 ? s->tol : default_tol(s, terms);
    s->rms = gb_accuracy_rms(&acc);
    ctx->max_error = acc.max_rel;
    (void)most;
    if (!(acc.max_rel <= s->tolerance))
        return gb_case_mismatch(ctx,
                                "failed-accuracy: max relative error %.3g > tolerance %.3g "
                                "(element %llu = %.9g, FP64 reference %.9g; rms %.3g over %llu "
                                "elements, %llu not finite; %s)",
                                acc.max_rel, s->tolerance, (unsigned long long)acc.worst,
                                acc.worst_got, acc.worst_ref, s->rms, (unsigned long long)acc.n,
                                (unsigned long long)acc.nonfinite, s->config);
    return 0;
}

static void conv_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct conv *s = ctx->state;
    (void)op_time_s;
    gb_case_accuracy_figures(ctx, s->rms, s->tolerance);
    gb_case_text(ctx, "algo", "%s", s->config);
    /* What ran, in the explicit shape syntax (a preset layer's and batch's dimensions). */
    const struct gb_conv_shape *h = &s->c.sh;
    char dims[64], *at = dims, *end = dims + sizeof dims;
    at += snprintf(at, (size_t)(end - at), "%llux%llux%llux%llu-%llux%llux%llu",
                   (unsigned long long)h->n, (unsigned long long)h->c, (unsigned long long)h->h,
                   (unsigned long long)h->w, (unsigned long long)h->k, (unsigned long long)h->r,
                   (unsigned long long)h->s);
    const struct {
        char key;
        uint64_t a, b, def;
    } sfx[] = {{'s', h->stride_h, h->stride_w, 1},
               {'p', h->pad_h, h->pad_w, 0},
               {'d', h->dil_h, h->dil_w, 1},
               {'g', h->groups, h->groups, 1}};
    for (size_t i = 0; i < 4 && at < end; i++) {
        if (sfx[i].a == sfx[i].def && sfx[i].b == sfx[i].def)
            continue;
        at += sfx[i].a == sfx[i].b
                  ? snprintf(at, (size_t)(end - at), "-%c%llu", sfx[i].key,
                             (unsigned long long)sfx[i].a)
                  : snprintf(at, (size_t)(end - at), "-%c%llux%llu", sfx[i].key,
                             (unsigned long long)sfx[i].a, (unsigned long long)sfx[i].b);
    }
    gb_case_text(ctx, "dims", "%s", dims);
    if (s->plan && s->plan->workspace_known)
        gb_case_figure(ctx, "workspace_bytes", "B", (double)s->plan->workspace_bytes);
    if (s->normwise)
        gb_case_text(ctx, "error_scale", "normwise: the output's largest sum |a||b|");
}

static void conv_teardown(struct gb_case_ctx *ctx)
{
    struct conv *s = ctx->state;
    if (s->plan)
        ctx->ops->conv_plan_free(s->plan);
    s->plan = NULL;
    gb_case_free_bufs(ctx, &s->x, &s->w, &s->y, NULL);
    gb_case_free_kernel(ctx, &s->kern, &s->prog);
    free(s->a64);
    free(s->b64);
    s->a64 = s->b64 = NULL;
}

/* Peaks for the implausibility check: the library may use matrix units, the own kernel the
 * vector units in float (int8: in int32 multiply-adds, as the own int8 GEMM). */
static double conv_peak(const struct gb_result *r, const struct gb_device_info *info, char *how,
                        size_t len)
{
    const enum cvprec p = parse_prec(gb_params_str(&r->params, "prec"));
    const bool own = strcmp(gb_params_str(&r->params, "impl"), "own") == 0;
    static const enum gb_peak_op lib[] = {GB_PEAK_F32, GB_PEAK_TF32, GB_PEAK_F16_ACC32,
                                          GB_PEAK_BF16, GB_PEAK_INT8_DOT};
    if (own)
        return gb_peak_ops(info, p == CV_I8 ? GB_PEAK_I32 : GB_PEAK_F32, false, how, len) / 1e9;
    return gb_peak_ops(info, lib[p], true, how, len) / 1e9;
}

/* One pass's arithmetic from the shape alone (validate's estimate). */
static double conv_op_flops(const struct gb_params *p)
{
    struct gb_conv_shape sh;
    char why[256];
    if (!conv_shape_of(gb_params_str(p, "shape"), &sh, why, sizeof why))
        return 0;
    return gb_conv_flops(&sh);
}

/* What a case holds at once (gb_suite.footprint), as conv_setup and conv_verify allocate it:
 * on the host the pass's two inputs' FP64 draws (8 bytes an element), then the larger of an
 * upload's peak (a converted copy and its staging buffer: twice the largest tensor in the input
 * type) and verify's (the output read back and its staging, and 32 bytes for each element it
 * checks: every one when the reference costs at most 2^27 terms, else at most 4096); on the
 * device x, w and y. */
static void conv_footprint(const struct gb_params *p, const struct gb_device_info *info,
                           struct gb_footprint *fp)
{
    (void)info;
    uint64_t pp, qq, nx, nw, ny;
    struct gb_conv_shape sh;
    char why[256];
    if (!conv_shape_of(gb_params_str(p, "shape"), &sh, why, sizeof why))
        return;
    if (gb_conv_out_dims(&sh, &pp, &qq))
        return;
    gb_conv_sizes(&sh, &nx, &nw, &ny);
    const enum cvprec pc = parse_prec(gb_params_str(p, "prec"));
    const char *dir = gb_params_str(p, "dir");
    const bool bwd_data = strcmp(dir, "bwd_data") == 0, bwd_filter = strcmp(dir, "bwd_filter") == 0;
    const double ei = (double)gb_dtype_size(in_type(pc)),
                 eo = (double)gb_dtype_size(bwd_data || bwd_filter ? in_type(pc) : out_type(pc));
    const double x = (double)nx, w = (double)nw, y = (double)ny;
    const double na = bwd_data ? y : x, nb = bwd_filter ? y : w,
                 no = bwd_data     ? x
                      : bwd_filter ? w
                                   : y;
    const double terms = bwd_data     ? (double)(sh.k / sh.groups) * (double)sh.r * (double)sh.s
                         : bwd_filter ? (double)sh.n * (double)pp * (double)qq
                                      : (double)(sh.c / sh.groups) * (double)sh.r * (double)sh.s;
    const double checked = no * terms <= 0x1p27 ? no : fmin(no, 4096);
    const double dev = (x + w) * ei + (bwd_data || bwd_filter ? y * ei : y * eo);
    const double largest = fmax(fmax(x * ei, w * ei), y * (bwd_data || bwd_filter ? ei : eo));
    *fp =
        (struct gb_footprint){.host = 8 * (na + nb) + fmax(2 * largest, 2 * no * eo + 32 * checked),
                              .device = dev,
                              .largest = largest};
}

static int conv_derive(struct gb_results *rs)
{
    gb_precision_check_peaks(rs, "conv", conv_peak);
    return gb_preset_model_derive(rs, "conv", GB_PRESET_CONV);
}

const struct gb_suite gb_suite_conv = {
    .name = "conv",
    .summary = "2-D convolution forward and backward (GFLOP/s) and its accuracy: cuDNN or "
               "CLBlast's convgemm, and an own direct kernel",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "dir",
    .state_size = sizeof(struct conv),
    .setup = conv_setup,
    .run = conv_run,
    .verify = conv_verify,
    .teardown = conv_teardown,
    .figures = conv_figures,
    .derive = conv_derive,
    .chart = {.kind = GB_CHART_BARS},
    .op_flops = conv_op_flops,
    .footprint = conv_footprint,
};
