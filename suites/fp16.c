/* fp16 — what 16-bit storage buys a memory-bound kernel: scale and triad (kernels/fp16.cl)
 * reading and writing half (or bfloat16) arrays with float arithmetic, against the same kernels
 * on float arrays. Half storage is valid on every OpenCL device (vload_half / vstore_half), with
 * or without half arithmetic.
 *
 * One operation is one pass over `elems` elements. Bytes (BabelStream's count): scale moves 2
 * arrays, triad 3, of elems x 4 (float), 2 (half, bf16) bytes; the harness derives GB/s. The
 * figure `Gelem_per_s` is elements per second / 1e9, the rate an application sees whatever the
 * storage; after the run each 16-bit result gets `speedup_vs_float`: the float case's time per
 * operation over its own (same elements, same work).
 *
 * Inputs: b and c are drawn in FP64 from a seeded uniform distribution on [0.5, 2) and stored
 * rounded to the storage type; s = 0.4. The reference is computed in FP64 from the unrounded
 * inputs, so the error includes what the storage's rounding costs. All terms are positive, so
 * no cancellation: the relative error is bounded by the input, scalar, arithmetic (two float
 * roundings) and output roundings, u_in + 3 u_f32 + u_out, and the tolerance is twice that.
 * Every element is checked; the result carries the largest relative error (max_error) and the
 * RMS (figure rms_error).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/precision.h"
#include "suites/common.h"
#include "suites/fp16_state.h"

static const char *const ops[] = {"scale", "triad", NULL};
static const char *const storages[] = {"float", "half", "bf16", NULL};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("op", "[scale, triad]", ops, "scale b = s*c; triad a = b + s*c"),
    GB_AXIS_STR("storage", "[float, half, bf16]", storages,
                "array element type; arithmetic is float"),
    GB_AXIS_INT("elems", "16777216", 1, INT64_C(1) << 40, "elements per array"),
    GB_AXIS_INT("wg", "256", 1, 65536, "work-group (thread-block) size"),
};

#define SCALAR 0.4

static void *stored(const double *x, uint64_t n, enum gb_dtype t)
{
    void *p = malloc(n * gb_dtype_size(t));
    if (!p)
        return NULL;
    for (uint64_t i = 0; i < n; i++) {
        if (t == GB_F32)
            ((float *)p)[i] = (float)x[i];
        else if (t == GB_F16)
            ((uint16_t *)p)[i] = gb_f16_from_double(x[i]);
        else
            ((uint16_t *)p)[i] = gb_bf16_from_double(x[i]);
    }
    return p;
}

static double load(enum gb_dtype t, const void *p, uint64_t i)
{
    return t == GB_F32   ? (double)((const float *)p)[i]
           : t == GB_F16 ? gb_f16_to_double(((const uint16_t *)p)[i])
                         : gb_bf16_to_double(((const uint16_t *)p)[i]);
}

static struct gb_arg buf_arg(struct gb_buf *b)
{
    return (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = b};
}

static int fp16_setup(struct gb_case_ctx *ctx)
{
    struct fp16 *s = ctx->state;
    const struct gb_device_info *info = &ctx->dev->info;
    s->triad = strcmp(gb_params_str(ctx->params, "op"), "triad") == 0;
    const char *st = gb_params_str(ctx->params, "storage");
    s->st = strcmp(st, "half") == 0 ? GB_F16 : strcmp(st, "bf16") == 0 ? GB_BF16 : GB_F32;
    s->n = (uint64_t)gb_params_int(ctx->params, "elems");
    s->wg = (uint32_t)gb_params_int(ctx->params, "wg");
    const size_t es = gb_dtype_size(s->st);
    const unsigned arrays = s->triad ? 3 : 2;
    int err = gb_case_fit_wg(ctx, "wg", &s->wg, info->max_wg_size, "the device maximum");
    if (err)
        return err;
    if (info->global_mem && arrays * s->n * es > info->global_mem)
        return gb_case_skip(ctx, "%u arrays of %llu bytes exceed the device's %llu bytes", arrays,
                            (unsigned long long)(s->n * es), (unsigned long long)info->global_mem);

    const char *def = s->st == GB_F16 ? "STORE_HALF=1" : s->st == GB_BF16 ? "STORE_BF16=1" : NULL;
    if ((err = gb_case_build_hooked(ctx, "fp16.cl", s->triad ? "fp16_triad" : "fp16_scale", &def,
                                    def ? 1 : 0, "wg", &s->wg, &s->prog, &s->k)))
        return err;

    s->b64 = malloc(s->n * sizeof *s->b64);
    s->c64 = malloc(s->n * sizeof *s->c64);
    if (!s->b64 || !s->c64)
        return GB_FAIL(GB_ENOMEM, "inputs of %llu elements", (unsigned long long)s->n);
    uint64_t seed = 0xF16ull;
    for (uint64_t i = 0; i < s->n; i++) {
        /* splitmix64 (Steele, Lea and Flood, OOPSLA 2014) to a double in [0.5, 2). */
        for (int j = 0; j < 2; j++) {
            uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            z ^= z >> 31;
            (j ? s->c64 : s->b64)[i] = 0.5 + 1.5 * (double)(z >> 11) * 0x1p-53;
        }
    }
    const uint64_t bytes = s->n * es;
    if ((err = gb_case_alloc(ctx, bytes, GB_MEM_DEVICE, &s->b)) ||
        (err = gb_case_alloc(ctx, bytes, GB_MEM_DEVICE, &s->c)) ||
        (s->triad && (err = gb_case_alloc(ctx, bytes, GB_MEM_DEVICE, &s->a))))
        return err;
    for (int j = 0; j < 2 && !err; j++) {
        void *h = stored(j ? s->c64 : s->b64, s->n, s->st);
        if (!h)
            return GB_FAIL(GB_ENOMEM, "input of %llu bytes", (unsigned long long)bytes);
        err = gb_case_upload(ctx, j ? s->c : s->b, h, bytes);
        free(h);
    }
    /* The output (scale: b, which it does not read) poisoned: what the timed runs leave
     * unwritten fails verify. */
    if (err || (err = gb_case_poison(ctx, s->triad ? s->a : s->b, bytes, s->st)))
        return err;

    struct gb_launch *l = &s->l;
    *l = (struct gb_launch){.dims = 1, .global = {0, 1, 1}, .local = {s->wg, 1, 1}};
    const struct gb_arg sc = {.kind = GB_ARG_F32, .v.f32 = (float)SCALAR};
    const struct gb_arg base = {.kind = GB_ARG_U64, .v.u64 = 0};
    if (s->triad) {
        l->nargs = 5;
        l->args[0] = buf_arg(s->a), l->args[1] = buf_arg(s->b), l->args[2] = buf_arg(s->c);
        l->args[3] = sc, l->args[4] = base;
    } else {
        l->nargs = 4;
        l->args[0] = buf_arg(s->b), l->args[1] = buf_arg(s->c), l->args[2] = sc;
        l->args[3] = base;
    }
    /* Whole work-groups, then the remainder as single work-items. */
    gb_launch_split_tail(l, &s->tail, s->n, l->nargs - 1);
    /* u_in + 3 u_f32 + u_out, doubled (the file's comment derives it). */
    const double u = gb_unit_roundoff(s->st), u32 = gb_unit_roundoff(GB_F32);
    s->tol = 2.0 * (2.0 * u + 3.0 * u32);
    ctx->op.bytes = (double)arrays * (double)s->n * (double)es;
    ctx->op.flops = (double)s->n * (s->triad ? 2.0 : 1.0);
    ctx->op.working_set = ctx->op.bytes;
    ctx->op.timer = GB_TIMER_DEVICE;
    return 0;
}

static int fp16_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct fp16 *s = ctx->state;
    return gb_case_launch_reps(ctx, s->k, &s->l, &s->tail, reps);
}

static int fp16_verify(struct gb_case_ctx *ctx)
{
    struct fp16 *s = ctx->state;
    const uint64_t bytes = s->n * gb_dtype_size(s->st);
    int err;
    void *out = gb_case_read_back(ctx, s->triad ? s->a : s->b, bytes, &err);
    if (!out)
        return err;
    struct gb_accuracy acc;
    gb_accuracy_init(&acc);
    for (uint64_t i = 0; i < s->n; i++) {
        const double ref = s->triad ? s->b64[i] + SCALAR * s->c64[i] : SCALAR * s->c64[i];
        gb_accuracy_add(&acc, i, load(s->st, out, i), ref, fabs(ref));
    }
    free(out);
    s->rms = gb_accuracy_rms(&acc);
    ctx->max_error = acc.max_rel;
    if (!(acc.max_rel <= s->tol))
        return gb_case_mismatch(ctx,
                                "element %llu is %.9g, the FP64 reference %.9g (relative "
                                "error %.3g > %.3g; rms %.3g)",
                                (unsigned long long)acc.worst, acc.worst_got, acc.worst_ref,
                                acc.max_rel, s->tol, s->rms);
    return 0;
}

static void fp16_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct fp16 *s = ctx->state;
    if (op_time_s > 0)
        gb_case_figure(ctx, "Gelem_per_s", "Gelem/s", (double)s->n / op_time_s / 1e9);
    gb_case_accuracy_figures(ctx, s->rms, s->tol);
}

static void fp16_teardown(struct gb_case_ctx *ctx)
{
    struct fp16 *s = ctx->state;
    gb_case_free_bufs(ctx, &s->a, &s->b, &s->c, NULL);
    gb_case_free_kernel(ctx, &s->k, &s->prog);
    free(s->b64);
    free(s->c64);
}

static int fp16_derive(struct gb_results *rs)
{
    return gb_suite_precision_derive(rs, "fp16", "storage", "float", true, NULL);
}

/* What a case holds at once (gb_suite.footprint): two or three arrays of `elems` in the storage
 * type on the device; on the host the inputs' FP64 draws (16 bytes an element) and an upload's or
 * the read-back's converted copy and staging. */
static void fp16_footprint(const struct gb_params *p, const struct gb_device_info *info,
                           struct gb_footprint *fp)
{
    (void)info;
    const char *st = gb_params_str(p, "storage");
    const double n = (double)gb_params_int(p, "elems"),
                 es = strcmp(st, "half") == 0 || strcmp(st, "bf16") == 0 ? 2 : 4;
    const double arrays = strcmp(gb_params_str(p, "op"), "triad") == 0 ? 3 : 2;
    *fp = (struct gb_footprint){
        .host = 16 * n + 2 * n * es, .device = arrays * n * es, .largest = n * es};
}

const struct gb_suite gb_suite_fp16 = {
    .name = "fp16",
    .summary = "16-bit storage with float arithmetic (GB/s, elements/s): scale and triad on "
               "half, bf16 and float arrays",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "op",
    .state_size = sizeof(struct fp16),
    .setup = fp16_setup,
    .run = fp16_run,
    .verify = fp16_verify,
    .teardown = fp16_teardown,
    .figures = fp16_figures,
    .derive = fp16_derive,
    .footprint = fp16_footprint,
};
