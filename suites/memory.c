/* memory — device-memory bandwidth: BabelStream's copy, mul, add, triad and dot.
 *
 * Kernels and byte counts follow BabelStream (McIntosh-Smith et al., "GPU-STREAM v2.0", 2017):
 * copy and mul move 2 arrays, add and triad 3, dot reads 2; GB/s = bytes / s / 1e9.
 *
 * Data: each array an op reads holds pseudo-random values in [1, 2), element i of array j a
 * counter-based hash of (j, i) (splitmix64's finaliser) with as many random bits as the type's
 * significand holds, so every value is exact in the type and no two neighbours repeat: memory
 * compression on recent GPUs shrinks constant arrays (clpeak has shown 2.6x the theoretical
 * bandwidth that way), random ones it cannot. The array an op writes is poisoned with NaN in
 * setup (gb_case_poison), so a timed path that writes nothing, or only part, fails verify. The
 * host regenerates the inputs in verify and checks every element; every kernel is idempotent
 * (no op reads what it writes), so the gold value is exact whatever the number of repetitions:
 *   copy  c = a        mul  b = s*c        add  c = a + b        triad  a = b + s*c  (s = 0.4)
 * Elementwise tolerance (relative): 1e-6 for float and 1e-14 for double, a few roundings (the
 * values are positive, so there is no cancellation).
 * dot: sum(a*b) against a long double reference of the same exact inputs, within the bound of a
 * dot product of depth d = m + log2(wg) (m terms summed in turn by each work-item, then the
 * work-group's tree), gamma_d(u) sum |a_i b_i| (Higham, "Accuracy and Stability of Numerical
 * Algorithms", 2nd ed., §3.1: any summation order, the depth in place of n), plus the host's
 * long double sum of the partial sums. All terms are positive, so a work-item's missing terms
 * (a fraction 1/(groups wg) of the sum) exceed the bound whenever n u is below about 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites/common.h"
#include "suites/memory_state.h"

static const char *const ops[] = {"copy", "mul", "add", "triad", "dot", NULL};
static const char *const types[] = {"float", "double", NULL};

static const struct gb_axis_def axes[] = {
    {.name = "op",
     .type = GB_V_STR,
     .def = "[copy, mul, add, triad, dot]",
     .choices = ops,
     .help = "kernel"},
    {.name = "type",
     .type = GB_V_STR,
     .def = "[float, double]",
     .choices = types,
     .help = "element type"},
    {.name = "wg",
     .type = GB_V_INT,
     .def = "256",
     .min = 1,
     .max = 65536,
     .help = "work-group (thread-block) size"},
    {.name = "size",
     .type = GB_V_SIZE,
     .def = "0",
     .min = 0,
     .zero_picks = true,
     .help = "bytes per array (each kernel touches 2 or 3 arrays); 0: 4x the last-level cache, "
             "at least 128 MiB, at most the largest allocation (figure array_bytes)"},
};

static const struct {
    const char *kernel;
    unsigned arrays; /* arrays moved per element, BabelStream's byte count */
} op_table[] = {
    [OP_COPY] = {"stream_copy", 2},   [OP_MUL] = {"stream_mul", 2}, [OP_ADD] = {"stream_add", 3},
    [OP_TRIAD] = {"stream_triad", 3}, [OP_DOT] = {"stream_dot", 2},
};

#define SCALAR 0.4

static enum memory_op parse_op(const char *s)
{
    for (enum memory_op o = OP_COPY; o <= OP_DOT; o++)
        if (strcmp(op_table[o].kernel + strlen("stream_"), s) == 0)
            return o;
    return OP_COPY;
}

static struct gb_arg buf_arg(struct gb_buf *b)
{
    return (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = b};
}

static struct gb_arg scalar_arg(const struct memory *m, double v)
{
    return m->dbl ? (struct gb_arg){.kind = GB_ARG_F64, .v.f64 = v}
                  : (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = (float)v};
}

/* Element i of array j (0 a, 1 b, 2 c) of the case: a splitmix64 finaliser (Steele, Lea and
 * Flood, OOPSLA 2014) of (j, i) to 1 + a random multiple of 2^-23 (float) or 2^-52 (double), in
 * [1, 2) and exact in the type. */
static double value(const struct memory *m, int j, uint64_t i)
{
    uint64_t z = i * 0x9E3779B97F4A7C15ull + (uint64_t)(j + 1) * 0xD1B54A32D192ED03ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const int bits = m->dbl ? 52 : 23;
    return 1.0 + (double)(z >> (64 - bits)) * ldexp(1.0, -bits);
}

/* A host array of the case's type: array j's values (value()). */
static void *host_array(const struct memory *m, int j)
{
    void *p = malloc(m->n * m->esize);
    if (!p)
        return NULL;
    for (uint64_t i = 0; i < m->n; i++) {
        if (m->dbl)
            ((double *)p)[i] = value(m, j, i);
        else
            ((float *)p)[i] = (float)value(m, j, i);
    }
    return p;
}

/* Arrays each op reads (bit j: array j) and the one it writes (-1: none, dot). */
static const struct {
    unsigned reads;
    int writes;
} io[] = {
    [OP_COPY] = {1u << 0, 2}, [OP_MUL] = {1u << 2, 1}, [OP_ADD] = {3u, 2},
    [OP_TRIAD] = {6u, 0},     [OP_DOT] = {3u, -1},
};

static int memory_setup(struct gb_case_ctx *ctx)
{
    struct memory *m = ctx->state;
    const struct gb_device_info *info = &ctx->dev->info;
    m->op = parse_op(gb_params_str(ctx->params, "op"));
    m->dbl = strcmp(gb_params_str(ctx->params, "type"), "double") == 0;
    m->esize = m->dbl ? sizeof(double) : sizeof(float);
    m->wg = (uint32_t)gb_params_int(ctx->params, "wg");
    uint64_t bytes = gb_params_size(ctx->params, "size");
    if (bytes == 0) {
        /* BabelStream's advice: each array at least 4x the last-level cache, so that the
         * figure is the memory's, not the cache's; capped by what one buffer and three of them
         * may hold. */
        bytes = UINT64_C(128) << 20;
        if (info->l2_bytes > bytes / 4)
            bytes = 4 * info->l2_bytes;
        if (info->max_alloc && bytes > info->max_alloc)
            bytes = info->max_alloc;
        if (info->global_mem && bytes > info->global_mem / 4)
            bytes = info->global_mem / 4;
    }
    m->n = bytes / m->esize;

    if (m->dbl && !(info->caps & GB_CAP_FP64))
        return gb_case_skip(ctx, "the device has no double precision (fp64)");
    if (m->n == 0)
        return gb_case_skip(ctx, "size %llu is smaller than one element",
                            (unsigned long long)bytes);
    int err = gb_case_check_wg(ctx, m->wg);
    if (err)
        return err;
    if (m->op == OP_DOT && (m->wg & (m->wg - 1)))
        return gb_case_skip(ctx, "dot needs a power-of-two work-group size, not %u", m->wg);
    if (info->global_mem && 3 * m->n * m->esize > info->global_mem)
        return gb_case_skip(ctx, "three arrays of %llu bytes exceed the device's %llu bytes",
                            (unsigned long long)(m->n * m->esize),
                            (unsigned long long)info->global_mem);

    char def_t[32], def_wg[32];
    snprintf(def_t, sizeof def_t, "T=%s", m->dbl ? "double" : "float");
    snprintf(def_wg, sizeof def_wg, "WG=%u", m->wg);
    const char *defines[] = {def_t, def_wg};
    if ((err = gb_case_build_hooked(ctx, "stream.cl", op_table[m->op].kernel, defines, 2, m->wg,
                                    &m->prog, &m->k)))
        return err;

    uint64_t bytes_arr = m->n * m->esize;
    if ((err = gb_case_alloc(ctx, bytes_arr, GB_MEM_DEVICE, &m->a)) ||
        (err = gb_case_alloc(ctx, bytes_arr, GB_MEM_DEVICE, &m->b)) ||
        (err = gb_case_alloc(ctx, bytes_arr, GB_MEM_DEVICE, &m->c)))
        return err;
    /* Inputs random, everything else (the output) poisoned. */
    struct gb_buf *bufs[3] = {m->a, m->b, m->c};
    const enum gb_dtype dt = m->dbl ? GB_F64 : GB_F32;
    for (int j = 0; j < 3 && !err; j++) {
        if (!(io[m->op].reads & (1u << j))) {
            err = gb_case_poison(ctx, bufs[j], bytes_arr, dt);
            continue;
        }
        void *h = host_array(m, j);
        if (!h)
            return GB_FAIL(GB_ENOMEM, "host array of %llu bytes", (unsigned long long)bytes_arr);
        err = gb_case_upload(ctx, bufs[j], h, bytes_arr);
        free(h);
    }
    if (err)
        return err;

    /* Elementwise kernels: one element per work-item, the largest multiple of the work-group
     * size first, then the remainder as single work-items from `base` (kernels/stream.cl says
     * why). dot: a fixed number of work-groups with a grid-stride loop, so that the host adds a
     * few partial sums, as BabelStream does. */
    struct gb_launch *l = &m->launch;
    *l = (struct gb_launch){.dims = 1, .global = {0, 1, 1}, .local = {m->wg, 1, 1}};
    struct gb_arg last = {.kind = GB_ARG_U64, .v.u64 = 0}; /* base, or n for dot */
    if (m->op == OP_DOT) {
        m->groups = (uint64_t)(info->compute_units ? info->compute_units : 1) * 64;
        uint64_t need = (m->n + m->wg - 1) / m->wg;
        if (m->groups > need)
            m->groups = need;
        if ((err = gb_case_alloc(ctx, m->groups * m->esize, GB_MEM_DEVICE, &m->sums)) ||
            (err = gb_case_poison(ctx, m->sums, m->groups * m->esize, dt)))
            return err;
        l->global[0] = m->groups * m->wg;
        last.v.u64 = m->n;
    }
    switch (m->op) {
    case OP_COPY:
        l->nargs = 3;
        l->args[0] = buf_arg(m->a), l->args[1] = buf_arg(m->c), l->args[2] = last;
        break;
    case OP_MUL:
        l->nargs = 4;
        l->args[0] = buf_arg(m->b), l->args[1] = buf_arg(m->c);
        l->args[2] = scalar_arg(m, SCALAR), l->args[3] = last;
        break;
    case OP_ADD:
        l->nargs = 4;
        l->args[0] = buf_arg(m->a), l->args[1] = buf_arg(m->b), l->args[2] = buf_arg(m->c);
        l->args[3] = last;
        break;
    case OP_TRIAD:
        l->nargs = 5;
        l->args[0] = buf_arg(m->a), l->args[1] = buf_arg(m->b), l->args[2] = buf_arg(m->c);
        l->args[3] = scalar_arg(m, SCALAR), l->args[4] = last;
        break;
    case OP_DOT:
        l->nargs = 4;
        l->args[0] = buf_arg(m->a), l->args[1] = buf_arg(m->b), l->args[2] = buf_arg(m->sums);
        l->args[3] = last;
        break;
    }
    if (m->op != OP_DOT)
        gb_launch_split_tail(l, &m->tail, m->n, l->nargs - 1);
    ctx->op.bytes = (double)op_table[m->op].arrays * (double)m->n * (double)m->esize;
    ctx->op.flops = m->op == OP_TRIAD || m->op == OP_DOT ? 2.0 * (double)m->n
                    : m->op == OP_COPY                   ? 0.0
                                                         : (double)m->n;
    ctx->op.working_set = ctx->op.bytes; /* each array is moved once per operation */
    ctx->op.timer = GB_TIMER_DEVICE;
    return 0;
}

static int memory_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct memory *m = ctx->state;
    return gb_case_launch_reps(ctx, m->k, &m->launch, &m->tail, reps);
}

static double elem(const struct memory *m, const void *p, uint64_t i)
{
    return m->dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

/* The element type's rounding of v, so gold values use what the device actually holds. */
static double in_type(const struct memory *m, double v)
{
    return m->dbl ? v : (double)(float)v;
}

/* gamma_d = d u / (1 - d u) (Higham §3.1); 1 once d u reaches 1/2 (the bound then says
 * nothing useful, and a correct result must not fail). */
static double gamma_d(double d, double u)
{
    return d * u < 0.5 ? d * u / (1.0 - d * u) : 1.0;
}

static int dot_verify(struct gb_case_ctx *ctx, struct memory *m)
{
    int err;
    void *sums = gb_case_read_back(ctx, m->sums, m->groups * m->esize, &err);
    if (!sums)
        return err;
    long double total = 0;
    for (uint64_t g = 0; g < m->groups; g++)
        total += elem(m, sums, g);
    free(sums);
    /* The reference: products exact in long double to its rounding (2^-64 on x86), summed with
     * Neumaier's compensation. Every term is positive, so sum |a_i b_i| is the sum itself. */
    long double gold = 0, comp = 0;
    for (uint64_t i = 0; i < m->n; i++) {
        const long double x = (long double)value(m, 0, i) * value(m, 1, i);
        const long double t = gold + x;
        comp += fabsl(gold) >= fabsl(x) ? (gold - t) + x : (x - t) + gold;
        gold = t;
    }
    gold += comp;
    /* Depth: the terms one work-item adds in turn, then the tree of log2(wg) levels; the host's
     * long double sums (the reference's and the partial sums') add a few 2^-63 at most. */
    const uint64_t items = m->groups * m->wg;
    const double per_item = (double)((m->n + items - 1) / items);
    double depth = per_item;
    for (uint32_t w = m->wg; w > 1; w /= 2)
        depth += 1;
    const double u = m->dbl ? 0x1p-53 : 0x1p-24;
    const double tol = gamma_d(depth, u) + ((double)m->groups + 4.0) * 0x1p-62;
    ctx->max_error = (double)(fabsl(total - gold) / gold);
    if (!(ctx->max_error <= tol))
        return gb_case_mismatch(ctx,
                                "dot = %.17Lg, expected %.17Lg (relative error %.3g > %.3g, "
                                "the bound of a sum of depth %.0f)",
                                total, gold, ctx->max_error, tol, depth);
    return 0;
}

static int memory_verify(struct gb_case_ctx *ctx)
{
    struct memory *m = ctx->state;
    if (m->op == OP_DOT)
        return dot_verify(ctx, m);
    const double s = in_type(m, SCALAR);
    struct gb_buf *bufs[3] = {m->a, m->b, m->c};
    struct gb_buf *out = bufs[io[m->op].writes];
    int err;
    void *host = gb_case_read_back(ctx, out, m->n * m->esize, &err);
    if (!host)
        return err;
    const double tol = m->dbl ? 1e-14 : 1e-6;
    double worst = 0, worst_gold = 0;
    uint64_t worst_i = 0;
    for (uint64_t i = 0; i < m->n; i++) {
        double gold;
        switch (m->op) {
        case OP_COPY:
            gold = value(m, 0, i);
            break;
        case OP_MUL:
            gold = s * value(m, 2, i);
            break;
        case OP_ADD:
            gold = value(m, 0, i) + value(m, 1, i);
            break;
        default:
            gold = value(m, 1, i) + s * value(m, 2, i);
            break;
        }
        gold = in_type(m, gold);
        double e = fabs(elem(m, host, i) - gold) / fabs(gold);
        if (!(e <= worst)) { /* also catches NaN */
            worst = isnan(e) ? INFINITY : e;
            worst_i = i;
            worst_gold = gold;
        }
    }
    ctx->max_error = worst;
    if (!(worst <= tol))
        err = gb_case_mismatch(ctx,
                               "element %llu is %.17g, expected %.17g (relative error %.3g "
                               "> %g)",
                               (unsigned long long)worst_i, elem(m, host, worst_i), worst_gold,
                               worst, tol);
    free(host);
    return err;
}

static void memory_teardown(struct gb_case_ctx *ctx)
{
    struct memory *m = ctx->state;
    gb_case_free_bufs(ctx, &m->a, &m->b, &m->c, &m->sums, NULL);
    gb_case_free_kernel(ctx, &m->k, &m->prog);
}

/* With size 0 (the default), the array size the device got. */
static void memory_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    const struct memory *m = ctx->state;
    (void)op_time_s;
    if (gb_params_size(ctx->params, "size") == 0)
        gb_case_figure(ctx, "array_bytes", "B", (double)(m->n * m->esize));
}

const struct gb_suite gb_suite_memory = {
    .name = "memory",
    .summary = "device-memory bandwidth (GB/s): copy, mul, add, triad, dot (BabelStream)",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .state_size = sizeof(struct memory),
    .setup = memory_setup,
    .run = memory_run,
    .verify = memory_verify,
    .figures = memory_figures,
    .teardown = memory_teardown,
};
