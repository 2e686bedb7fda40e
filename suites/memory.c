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
 * setup (host_image: gb_case_poison's pattern), so a timed path that writes nothing, or only
 * part, fails verify. The host regenerates the inputs in verify and checks every element; every
 * kernel is idempotent (no op reads what it writes), so the gold value is exact whatever the
 * number of repetitions:
 *   copy  c = a        mul  b = s*c        add  c = a + b        triad  a = b + s*c  (s = 0.4)
 * Elementwise tolerance (relative): 1e-6 for float and 1e-14 for double, a few roundings (the
 * values are positive, so there is no cancellation).
 * dot: sum(a*b) against a long double reference of the same exact inputs, within the bound of a
 * dot product of depth d = m + log2(wg) (m terms summed in turn by each work-item, then the
 * work-group's tree), gamma_d(u) sum |a_i b_i| (Higham, "Accuracy and Stability of Numerical
 * Algorithms", 2nd ed., §3.1: any summation order, the depth in place of n), or, where tighter
 * and its model holds, Higham and Mary's probabilistic bound for the same depth (gamma_prob:
 * lambda 10, wrong with a probability below 4e-22 per rounding), plus the host's long double
 * sum of the partial sums. All terms are positive, so a work-item's missing terms (a fraction
 * 1/(groups wg) of the sum) exceed the worst-case bound whenever n u is below about 1, and the
 * probabilistic one whenever 10 sqrt(d) u groups wg is.
 *
 * Axis vec (copy, mul, add, triad): each work-item moves one vector of vec elements
 * (kernels/stream.cl: an OpenCL vector type, or on CUDA an aligned struct); the bytes counted
 * stay arrays x n x sizeof(T). The element count must be a multiple of vec, and vec a power of
 * two; else the case is skipped. 0 (the default) picks the width for the device type: on a GPU
 * 16 bytes per work-item (float4, double2), the widest load a thread issues as one instruction,
 * so that each thread keeps four (float) or two (double) times a scalar load's bytes in flight
 * (with one float per thread an H200's SMs cannot hold enough loads in flight to cover HBM's
 * latency); elsewhere 1 (a CPU runtime vectorises across work-items itself); figure vec_used.
 * dot ignores it (normalised to 1).
 *
 * Axis offset (alignment; bytes, 0 to 2^40, default 0): every array of the op starts
 * `offset` bytes into its buffer (all of them at the same offset), which is allocated
 * n x sizeof(T) + offset bytes; the bytes counted stay arrays x n x sizeof(T) at every offset.
 * The kernels take it as an element count (kernels/stream.cl's OFF = offset / sizeof(T); the
 * tuned dot's kernels/dot.cl the same), so offset 0 builds the kernels of old. An offset that is
 * not a multiple of sizeof(T), or with vec > 1 (vec 0 included, where it picks a vector) of the
 * vector's vec x sizeof(T) bytes, is a recorded skip saying so: a misaligned element or vector
 * load is undefined in OpenCL C and faults on CUDA (vec 1 runs every multiple of sizeof(T)). A
 * buffer of size + offset bytes over the device's largest allocation is a recorded skip naming
 * both; with size 0 the picked size shrinks by the offset where the largest allocation caps it.
 * dot applies the offset to a and b (its partial sums have none). Setup fills the bytes before
 * the offset with NaN in the arrays read (a kernel that reads there computes NaN) and with a
 * guard byte (0xA5) in the array written; verify checks that the guard is untouched (a kernel
 * that ignores the offset writes there) and then the elements at the offset as below.
 *
 * Axis wg: the profile's size is kept (or skipped where the device cannot run it). The default
 * is 256 on a GPU (BabelStream's CUDA TBSIZE) and, on a CPU, for copy, mul, add and triad, the
 * device's largest power-of-two work-group (BabelStream's OpenCL model leaves the local size
 * to the runtime, and a CPU runtime picks large ones: each work-group is a task for its
 * threads, and 256-item groups made PoCL 15-25% slower at 128 MiB); figure wg_used. The
 * default dot is sized below.
 *
 * Axis config (dot; the other kernels normalise it to `default`):
 *   default  BabelStream's dot (stream_dot: grid-stride over a fixed number of work-groups, tree
 *            reduction, the host adds the partial sums), sized by device type as BabelStream's
 *            OpenCL and CUDA models size it: on a CPU one work-group per compute unit of twice
 *            the native double vector width (CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE) work-items,
 *            elsewhere 4 work-groups per compute unit of the largest power-of-two work-group up
 *            to 1024 (BabelStream: the device's maximum on OpenCL, 1024 on CUDA). A `wg` the
 *            profile gives is kept, and then a GPU gets 4 x 1024 / wg work-groups per compute
 *            unit (as many work-items as BabelStream's); figure groups. Where the driver
 *            stops a work-item's loops (gb_device_info.max_loop_trips, probed at open), the
 *            work-groups grow until no work-item loops past the limit (config "sized to the
 *            loop limit");
 *   tuned    the tuning suite's best configuration of kernels/dot.cl for this device and this
 *            element count (tuning cache key "dot", "n=<n> type=float"; float only), run as
 *            the tuning suite timed it: dot_partial then dot_final, the whole reduction on the
 *            device; `wg` is then the tuned WG. Skipped when the cache has no such entry, and
 *            where its work-items would loop past the driver's limit;
 *   auto     tuned when the cache (the entry's tuning_cache, else the default location) holds
 *            an entry for this device and element count and the profile gives no `wg`, else
 *            default. An unreadable cache is
 *            not an error here: auto then runs the default and says why in `config`.
 * The tuned dot is verified as above, with the depth of its own summation tree (a conservative
 * bound: dot_tol_depth). A dot result's text figure `config` names the configuration that ran
 * and says "(tuned)" or "(default...)".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/config.h"
#include "run/tuning_cache.h"
#include "suites/common.h"
#include "suites/memory_state.h"

static const char *const ops[] = {"copy", "mul", "add", "triad", "dot", NULL};
static const char *const types[] = {"float", "double", NULL};
static const char *const configs[] = {"auto", "default", "tuned", NULL};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("op", "[copy, mul, add, triad, dot]", ops, "kernel"),
    GB_AXIS_STR("type", "[float, double]", types, "element type"),
    GB_AXIS_INT("wg", "256", 1, 65536, "work-group (thread-block) size"),
    GB_AXIS_SIZE("size", "0", 0, 0,
                 "bytes per array (each kernel touches 2 or 3 arrays); 0: 4x the last-level cache, "
                 "at least 128 MiB, at most the largest allocation (figure array_bytes)",
                 .zero_picks = true),
    GB_AXIS_INT("vec", "0", 0, 16,
                "copy, mul, add, triad: elements per work-item as one vector (1, 2, 4, 8, 16); 0: "
                "16 bytes on a GPU, 1 elsewhere (figure vec_used)"),
    GB_AXIS_INT(
        "offset", "0", 0, INT64_C(1) << 40,
        "bytes into each buffer at which every array of the op starts (alignment: 0, 4, 16, "
        "64, 128, 256, 4096); a multiple of the element size, and with vec > 1 of the "
        "vector's; the same bytes are counted",
        .omit_default = true),
    GB_AXIS_STR("config", "auto", configs,
                "dot: default (BabelStream's kernel), tuned (the tuning cache's configuration), "
                "auto (tuned when the cache has one for this device and size)"),
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

/* dot ignores vec; the other kernels have one configuration. */
static bool memory_normalize(struct gb_params *p)
{
    const bool dot = strcmp(gb_params_str(p, "op"), "dot") == 0;
    struct gb_value *v;
    if (dot && (v = gb_params_slot(p, "vec")))
        v->u.i = 1;
    if (!dot && (v = gb_params_slot(p, "config")))
        snprintf(v->s, sizeof v->s, "default");
    return true;
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
    /* A constant scale, not ldexp: this runs for every element of every array at set-up and
     * again in verify (2 GiB arrays: half a billion calls each). */
    return m->dbl ? 1.0 + (double)(z >> 12) * 0x1p-52 : 1.0 + (double)(z >> 41) * 0x1p-23;
}

/* The bytes before the offset in the buffer of the array an op writes; verify checks that they
 * are still these. As a float -2.9e-16 and as a double -2.5e-127: finite and negative, so nothing
 * the kernels compute from inputs in [1, 2), and not the NaN before the offset of the arrays
 * read (a kernel that ignored the offset would copy that NaN there). */
#define GUARD_BYTE 0xA5

/* A host image of array j's buffer: m->off bytes before the offset, then the array's n elements
 * (m->n * m->esize bytes). `written`: the guard bytes, then NaN (the poison a timed path that
 * writes nothing leaves, as gb_case_poison's); else NaN (a kernel that reads before its offset
 * computes NaN), then array j's values (value()). NULL when out of memory. */
static unsigned char *host_image(const struct memory *m, int j, bool written)
{
    unsigned char *p = malloc(m->off + m->n * m->esize);
    if (!p)
        return NULL;
    const uint64_t pre = m->off / m->esize; /* the offset is a whole number of elements */
    if (written)
        memset(p, GUARD_BYTE, m->off);
    void *arr = p + m->off;
    for (uint64_t i = 0; i < m->n; i++) {
        const double v = written ? NAN : value(m, j, i);
        if (m->dbl)
            ((double *)arr)[i] = v;
        else
            ((float *)arr)[i] = (float)v;
    }
    for (uint64_t i = 0; !written && i < pre; i++) {
        if (m->dbl)
            ((double *)p)[i] = NAN;
        else
            ((float *)p)[i] = NAN;
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

/* kernels/dot.cl's tunables as the tuning suite's dot names them, with its defaults. */
static const struct {
    const char *name;
    int64_t def;
} dot_tunables[] = {{"WG", 256}, {"VEC", 1}, {"LAYOUT", 1}, {"REDUCE", 0}, {"GPC", 64}};
#define DOT_FWG 64 /* dot_final's work-group: kernels/dot.cl's FWG default, as tuning uses it */

/* The largest power of two at most v (v > 0). */
static uint32_t pow2_floor(uint32_t v)
{
    uint32_t p = 1;
    while (p <= v / 2)
        p *= 2;
    return p;
}

/* BabelStream's dot sizing (OCLStream.cpp and CUDAStream.cu, v5): the work-group size on a CPU
 * is twice the native double vector width; elsewhere the largest power of two up to 1024 the
 * device allows (its maximum on OpenCL, TBSIZE_DOT = 1024 on CUDA). */
static uint32_t dot_default_wg(const struct gb_device_info *info)
{
    if (info->type == GB_DEVICE_CPU)
        return 2 * (info->native_vec_double ? info->native_vec_double : 1);
    return pow2_floor(info->max_wg_size && info->max_wg_size < 1024 ? info->max_wg_size : 1024);
}

/* And its number of work-groups: one per compute unit on a CPU, 4 per compute unit elsewhere,
 * scaled by 1024 / wg so that a smaller work-group the profile asks for keeps as many
 * work-items in flight. */
static uint64_t dot_default_groups(const struct gb_device_info *info, uint32_t wg)
{
    const uint64_t cu = info->compute_units ? info->compute_units : 1;
    if (info->type == GB_DEVICE_CPU)
        return cu;
    return 4 * cu * (wg < 1024 ? (1024 + wg - 1) / wg : 1);
}

/* log2 of a power of two v: the levels of stream_dot's and dot_partial's reduction trees. */
static uint32_t log2_u32(uint32_t v)
{
    uint32_t l = 0;
    while (v > 1) {
        v /= 2;
        l++;
    }
    return l;
}

/* The driver's loop limit (gb_device_info.max_loop_trips, 0: none) against stream_dot: one
 * work-item runs ceil(n / work-items) steps of its grid-stride loop, then log2(wg) levels of the
 * tree. Returns the fewest work-groups of wg whose work-items stay within `limit` (1 without a
 * limit), or 0 when the tree alone reaches it. More work-groups is what a driver that stops
 * loops needs: the depth per work-item shrinks, and the sum is what it was. */
static uint64_t dot_groups_for_limit(uint64_t n, uint32_t wg, uint32_t limit)
{
    const uint32_t tree = log2_u32(wg);
    if (limit == 0)
        return 1;
    if (limit <= tree)
        return 0;
    const uint64_t per = limit - tree; /* terms one work-item may add */
    const uint64_t items = (n + per - 1) / per;
    return (items + wg - 1) / wg;
}

/* Looks up the tuned dot for this case (float, n elements) as axis config says. Returns 0 with
 * *found, e filled when found; a skip for config tuned without an entry; the cache's error for
 * config tuned (auto falls back to the default and notes why in m->config). */
static int dot_lookup(struct gb_case_ctx *ctx, struct memory *m, const char *cfg,
                      struct gb_tuning_entry *e, bool *found)
{
    *found = false;
    const bool want = strcmp(cfg, "tuned") == 0;
    /* default; or auto in a test build (the hook's define, e.g. GB_BREAK, reaches stream.cl's
     * kernels only, so a cache entry must not swap in dot.cl's). */
    if (strcmp(cfg, "default") == 0 || (!want && m->hook.test_define))
        return 0;
    /* auto with a work-group size the profile gives: that size, BabelStream's kernel (a tuned
     * entry would run its own WG and record the profile's). */
    if (!want && !gb_case_param_defaulted(ctx, "wg"))
        return 0;
    if (m->dbl)
        return want ? gb_case_skip(ctx, "config tuned: the tuning suite tunes the float dot only")
                    : 0;
    char problem[64];
    snprintf(problem, sizeof problem, "n=%llu type=float", (unsigned long long)m->n);
    const char *path = ctx->run ? ctx->run->tuning_cache : NULL;
    int err = gb_tuning_lookup(path, ctx->dev, "dot", problem, e, found);
    if (err && want)
        return err;
    if (err) {
        *found = false;
        snprintf(m->config, sizeof m->config, "stream_dot WG=%u (default; tuning cache unreadable)",
                 m->wg);
        return 0;
    }
    if (!*found && want)
        return gb_case_skip(ctx,
                            "config tuned: the tuning cache has no dot entry for %s on this "
                            "device (run the tuning suite with kernel: dot, size: %llu)",
                            problem, (unsigned long long)m->n);
    return 0;
}

/* The tuned dot: dot_partial and dot_final of kernels/dot.cl with the configuration of e, laid
 * out as the tuning suite launches them (suites/tuning.c, geometry and instantiate). The total
 * lands in m->sums[0] (m->groups = 1), so verify adds one value. Records in m->tol_depth the
 * depth of the kernels' summation (dot_verify). */
static int dot_tuned_setup(struct gb_case_ctx *ctx, struct memory *m,
                           const struct gb_tuning_entry *e)
{
    const struct gb_device_info *info = &ctx->dev->info;
    int64_t v[5];
    for (size_t i = 0; i < 5; i++)
        v[i] = gb_tuning_get(e, dot_tunables[i].name, dot_tunables[i].def);
    const int64_t wg = v[0], vec = v[1], layout = v[2], reduce = v[3], gpc = v[4];
    snprintf(m->config, sizeof m->config,
             "WG=%lld VEC=%lld LAYOUT=%lld REDUCE=%lld GPC=%lld (tuned)", (long long)wg,
             (long long)vec, (long long)layout, (long long)reduce, (long long)gpc);
    if (wg <= 0 || wg > 65536 || vec <= 0 || gpc <= 0 || layout < 0 || layout > 1 || reduce < 0 ||
        reduce > 2 || (reduce == 0 && (wg & (wg - 1))) || m->n % (uint64_t)vec)
        return GB_FAIL(GB_EINVAL,
                       "tuned dot %s: not a valid configuration for n = %llu "
                       "(kernels/dot.cl lists the rules)",
                       m->config, (unsigned long long)m->n);
    int err = gb_case_check_wg(ctx, (uint32_t)wg);
    if (err)
        return err;
    m->wg = (uint32_t)wg;
    char d[7][32];
    const char *defs[7];
    snprintf(d[0], sizeof d[0], "T=float");
    for (size_t i = 0; i < 4; i++)
        snprintf(d[i + 1], sizeof d[0], "%s=%lld", dot_tunables[i].name, (long long)v[i]);
    snprintf(d[6], sizeof d[0], "OFF=%llu", (unsigned long long)(m->off / m->esize));
    for (size_t i = 0; i < 7; i++)
        defs[i] = d[i];
    /* dot_final's work-group is ours, not the configuration's: DOT_FWG, or the largest power of
     * two the device and the kernel allow below it (a define: a kernel that allows less is
     * rebuilt with it), recorded as "final_wg_used". */
    uint32_t fwg =
        info->max_wg_size && info->max_wg_size < DOT_FWG ? pow2_floor(info->max_wg_size) : DOT_FWG;
    for (;;) {
        snprintf(d[5], sizeof d[0], "FWG=%u", fwg);
        uint32_t twg = (uint32_t)wg; /* a tuned size is a measured choice: never refitted */
        if ((err = gb_case_build_wg(ctx, "dot.cl", "dot_partial", defs, 7, gb_wg_fixed, &twg,
                                    &m->prog, &m->k)) ||
            (err = ctx->ops->kernel_get(m->prog, "dot_final", &m->k2)))
            return err;
        uint32_t kmax = 0;
        if ((err = ctx->ops->kernel_max_wg(m->k2, &kmax)))
            return err;
        if (fwg <= kmax)
            break;
        if (kmax == 0)
            return gb_case_skip(ctx, "dot_final's work-group of %u exceeds this kernel's maximum 0",
                                fwg);
        fwg = pow2_floor(kmax);
        ctx->ops->kernel_free(m->k2);
        m->k2 = NULL;
        gb_case_free_kernel(ctx, &m->k, &m->prog);
    }
    if (fwg != DOT_FWG)
        gb_case_figure(ctx, "final_wg_used", "", fwg);
    const uint64_t cu = info->compute_units ? info->compute_units : 1;
    const uint64_t items = (uint64_t)gpc * cu * (uint64_t)wg;
    const uint64_t parts = reduce == 2 ? items : items / (uint64_t)wg;
    if ((err = gb_case_alloc(ctx, parts * sizeof(float), GB_MEM_DEVICE, &m->partial)) ||
        (err = gb_case_poison(ctx, m->partial, parts * sizeof(float), GB_F32)) ||
        (err = gb_case_alloc(ctx, sizeof(float), GB_MEM_DEVICE, &m->sums)) ||
        (err = gb_case_poison(ctx, m->sums, sizeof(float), GB_F32)))
        return err;
    m->groups = 1;
    /* The summation depth (Higham §3.1, a conservative count: every sequential sum of k terms
     * counted as k levels): the products and the steps of one accumulator (ceil(n / VEC /
     * items)), the VEC accumulators added in turn, the work-group's reduction (REDUCE 0: a tree
     * of log2 WG levels; 1: WG terms in turn; 2: none), then dot_final: ceil(parts / FWG) per
     * work-item and FWG in turn. */
    const uint64_t nv = m->n / (uint64_t)vec;
    /* A tuned configuration is a measured choice: never resized, skipped where its work-items
     * would loop past the driver's limit. */
    const uint64_t trips =
        gb_dot_tuned_trips((nv + items - 1) / items, vec, wg, reduce, parts, fwg);
    char what[sizeof m->config + 16];
    snprintf(what, sizeof what, "tuned dot %s", m->config);
    if ((err = gb_case_loop_fits(ctx, trips, what, "config default resizes")))
        return err;
    double depth = (double)((nv + items - 1) / items) + (double)vec;
    if (reduce == 0)
        for (int64_t w = wg; w > 1; w /= 2)
            depth += 1;
    else if (reduce == 1)
        depth += (double)wg;
    depth += (double)((parts + fwg - 1) / fwg) + fwg;
    m->tol_depth = depth;
    m->launch = (struct gb_launch){
        .dims = 1, .global = {items, 1, 1}, .local = {(uint32_t)wg, 1, 1}, .nargs = 4};
    m->launch.args[0] = buf_arg(m->a), m->launch.args[1] = buf_arg(m->b);
    m->launch.args[2] = buf_arg(m->partial);
    m->launch.args[3] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = m->n};
    m->launch2 =
        (struct gb_launch){.dims = 1, .global = {fwg, 1, 1}, .local = {fwg, 1, 1}, .nargs = 3};
    m->launch2.args[0] = buf_arg(m->partial), m->launch2.args[1] = buf_arg(m->sums);
    m->launch2.args[2] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = parts};
    m->tail.global[0] = 0;
    m->tuned = true;
    return 0;
}

/* The bytes of each array: the axis `size`, or for size 0 the size picked for the device. */
static uint64_t array_bytes(const struct gb_params *p, const struct gb_device_info *info)
{
    uint64_t bytes = gb_params_size(p, "size");
    const uint64_t off = (uint64_t)gb_params_int(p, "offset");
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
        /* Each buffer holds the offset too: the array shrinks by it where the cap binds. */
        if (info->max_alloc && off < info->max_alloc && bytes > info->max_alloc - off)
            bytes = info->max_alloc - off;
    }
    return bytes;
}

/* What a case holds at once (gb_suite.footprint): three buffers of offset + array on the device;
 * on the host an array's image and its staging buffer (setup's uploads, verify's read-back). */
static void memory_footprint(const struct gb_params *p, const struct gb_device_info *info,
                             struct gb_footprint *fp)
{
    const double buf = (double)array_bytes(p, info) + (double)gb_params_int(p, "offset");
    *fp = (struct gb_footprint){.host = 2 * buf, .device = 3 * buf, .largest = buf};
}

/* What normalize sets for an op that ignores it does not apply (what people read leaves it out;
 * results keep it): vec to dot, config to the others. Params without an op, or with one this
 * suite does not know (a results file's), keep both. */
static bool memory_axis_applies(const struct gb_params *p, const char *axis)
{
    const char *op = gb_params_str(p, "op");
    size_t k = 0;
    while (ops[k] && strcmp(ops[k], op) != 0)
        k++;
    if (!ops[k])
        return true;
    const bool dot = strcmp(op, "dot") == 0;
    if (strcmp(axis, "vec") == 0)
        return !dot;
    if (strcmp(axis, "config") == 0)
        return dot;
    return true;
}

static int memory_setup(struct gb_case_ctx *ctx)
{
    struct memory *m = ctx->state;
    const struct gb_device_info *info = &ctx->dev->info;
    m->op = parse_op(gb_params_str(ctx->params, "op"));
    m->dbl = strcmp(gb_params_str(ctx->params, "type"), "double") == 0;
    m->esize = m->dbl ? sizeof(double) : sizeof(float);
    m->wg = (uint32_t)gb_params_int(ctx->params, "wg");
    m->vec = (uint32_t)gb_params_int(ctx->params, "vec");
    if (m->vec == 0) /* auto: 16 bytes per work-item on a GPU (the head comment says why) */
        m->vec = info->type == GB_DEVICE_GPU ? (uint32_t)(16 / m->esize) : 1;
    m->off = (uint64_t)gb_params_int(ctx->params, "offset");
    const uint64_t bytes = array_bytes(ctx->params, info);
    m->n = bytes / m->esize;

    if (m->dbl && !(info->caps & GB_CAP_FP64))
        return gb_case_skip(ctx, "the device has no double precision (fp64)");
    if (m->n == 0)
        return gb_case_skip(ctx, "size %llu is smaller than one element",
                            (unsigned long long)bytes);
    struct gb_tuning_entry tuned_e;
    bool tuned = false;
    int err;
    if (m->op == OP_DOT &&
        (err = dot_lookup(ctx, m, gb_params_str(ctx->params, "config"), &tuned_e, &tuned)))
        return err;
    if (m->vec > 1) {
        if (m->vec & (m->vec - 1))
            return gb_case_skip(ctx, "vec %u: OpenCL vectors have 2, 4, 8 or 16 elements", m->vec);
        if (m->n % m->vec)
            return gb_case_skip(ctx, "vec %u: %llu elements are not a multiple of it", m->vec,
                                (unsigned long long)m->n);
    }
    /* The offset keeps every element (and vector) aligned, or the case does not run: the
     * kernels' loads and stores are of whole elements and vectors. */
    const char *tname = m->dbl ? "double" : "float";
    if (m->off % m->esize)
        return gb_case_skip(ctx,
                            "offset %llu bytes is not a multiple of a %s's %zu bytes: every "
                            "element would be misaligned (a misaligned load or store is "
                            "undefined in OpenCL C and faults on CUDA)",
                            (unsigned long long)m->off, tname, m->esize);
    if (m->vec > 1 && m->off % (m->vec * m->esize))
        return gb_case_skip(ctx,
                            "offset %llu bytes is not a multiple of a vector's %zu bytes (vec "
                            "%u%s x %zu-byte %s): every vector would be misaligned (a misaligned "
                            "vector load or store is undefined in OpenCL C and faults on CUDA); "
                            "vec 1 runs this offset",
                            (unsigned long long)m->off, m->vec * m->esize, m->vec,
                            gb_params_int(ctx->params, "vec") == 0 ? ", picked by vec 0" : "",
                            m->esize, tname);
    const uint64_t bytes_arr = m->n * m->esize; /* n <= bytes / esize: no overflow */
    if (bytes_arr > UINT64_MAX / 4 - m->off)
        return gb_case_skip(ctx, "offset %llu past an array of %llu bytes leaves 64-bit sizes",
                            (unsigned long long)m->off, (unsigned long long)bytes_arr);
    const uint64_t bytes_buf = bytes_arr + m->off; /* each buffer: the offset, then the array */
    if (m->off && info->max_alloc && bytes_buf > info->max_alloc)
        return gb_case_skip(ctx,
                            "a buffer of %llu bytes (size %llu + offset %llu), over the "
                            "device's largest allocation %llu",
                            (unsigned long long)bytes_buf, (unsigned long long)bytes_arr,
                            (unsigned long long)m->off, (unsigned long long)info->max_alloc);
    uint32_t sized = 0; /* the work-group size chosen for the device type, if any */
    if (!tuned && gb_case_param_defaulted(ctx, "wg")) {
        if (m->op == OP_DOT)
            m->wg = dot_default_wg(info);
        else if (info->type == GB_DEVICE_CPU && info->max_wg_size > m->wg)
            m->wg = sized = pow2_floor(info->max_wg_size);
    }
    if (!tuned &&
        (err = gb_case_fit_wg(ctx, "wg", &m->wg, info->max_wg_size, "the device maximum")))
        return err;
    if (!tuned && m->op == OP_DOT && (m->wg & (m->wg - 1)))
        return gb_case_skip(ctx, "dot needs a power-of-two work-group size, not %u", m->wg);
    if (info->global_mem && 3 * bytes_buf > info->global_mem)
        return gb_case_skip(ctx, "three %s of %llu bytes exceed the device's %llu bytes",
                            m->off ? "buffers (array + offset)" : "arrays",
                            (unsigned long long)bytes_buf, (unsigned long long)info->global_mem);

    if (!tuned) {
        char def_t[32], def_wg[32], def_vec[32], def_off[32];
        snprintf(def_t, sizeof def_t, "T=%s", tname);
        snprintf(def_wg, sizeof def_wg, "WG=%u", m->wg);
        snprintf(def_vec, sizeof def_vec, "VEC=%u", m->vec);
        /* Offset 0 builds with the defines of old (the kernel's default OFF is 0). */
        snprintf(def_off, sizeof def_off, "OFF=%llu", (unsigned long long)(m->off / m->esize));
        const char *defines[] = {def_t, def_wg, def_vec, def_off};
        const size_t ndef = m->off ? 4 : 3;
        const uint32_t asked = m->wg;
        if ((err = gb_case_build_hooked(ctx, "stream.cl", op_table[m->op].kernel, defines, ndef,
                                        "wg", &m->wg, &m->prog, &m->k)))
            return err;
        if (m->wg != asked) { /* fitted to the kernel's maximum: WG is a define, so rebuild */
            gb_case_free_kernel(ctx, &m->k, &m->prog);
            snprintf(def_wg, sizeof def_wg, "WG=%u", m->wg);
            if ((err = gb_case_build_hooked(ctx, "stream.cl", op_table[m->op].kernel, defines, ndef,
                                            gb_wg_fixed, &m->wg, &m->prog, &m->k)))
                return err;
        } else if (sized) /* else the fitting said it */
            gb_case_figure(ctx, "wg_used", "", m->wg);
    }

    if ((err = gb_case_alloc(ctx, bytes_buf, GB_MEM_DEVICE, &m->a)) ||
        (err = gb_case_alloc(ctx, bytes_buf, GB_MEM_DEVICE, &m->b)) ||
        (err = gb_case_alloc(ctx, bytes_buf, GB_MEM_DEVICE, &m->c)))
        return err;
    /* Inputs random at the offset, everything else NaN (host_image), but the bytes before the
     * written array's offset, which hold the guard. */
    struct gb_buf *bufs[3] = {m->a, m->b, m->c};
    const enum gb_dtype dt = m->dbl ? GB_F64 : GB_F32;
    for (int j = 0; j < 3 && !err; j++) {
        unsigned char *h = host_image(m, j, !(io[m->op].reads & (1u << j)));
        if (!h)
            return GB_FAIL(GB_ENOMEM, "host array of %llu bytes", (unsigned long long)bytes_buf);
        err = gb_case_upload(ctx, bufs[j], h, bytes_buf);
        free(h);
    }
    if (err)
        return err;

    /* What is counted does not depend on vec or config. */
    ctx->op.bytes = (double)op_table[m->op].arrays * (double)m->n * (double)m->esize;
    ctx->op.flops = m->op == OP_TRIAD || m->op == OP_DOT ? 2.0 * (double)m->n
                    : m->op == OP_COPY                   ? 0.0
                                                         : (double)m->n;
    ctx->op.working_set = ctx->op.bytes; /* each array is moved once per operation */
    ctx->op.timer = GB_TIMER_DEVICE;
    if (tuned)
        return dot_tuned_setup(ctx, m, &tuned_e);

    /* Elementwise kernels: one element (vec > 1: one vector of vec elements) per work-item, the
     * largest multiple of the work-group size first, then the remainder as single work-items
     * from `base` (kernels/stream.cl says why). dot: a fixed number of work-groups with a
     * grid-stride loop, so that the host adds a few partial sums, as BabelStream does. */
    struct gb_launch *l = &m->launch;
    *l = (struct gb_launch){.dims = 1, .global = {0, 1, 1}, .local = {m->wg, 1, 1}};
    struct gb_arg last = {.kind = GB_ARG_U64, .v.u64 = 0}; /* base, or n for dot */
    if (m->op == OP_DOT) {
        m->groups = dot_default_groups(info, m->wg);
        uint64_t need = (m->n + m->wg - 1) / m->wg;
        if (m->groups > need)
            m->groups = need;
        const uint64_t fit = dot_groups_for_limit(m->n, m->wg, info->max_loop_trips);
        if (fit == 0)
            return gb_case_skip(ctx,
                                "the driver stops a work-item's loops after %u iterations; "
                                "stream_dot's tree of work-group %u alone needs %u",
                                info->max_loop_trips, m->wg, log2_u32(m->wg));
        const bool resized = fit > m->groups;
        if (resized)
            m->groups = fit;
        if (!m->config[0]) /* else dot_lookup's note of an unreadable cache */
            snprintf(m->config, sizeof m->config, "stream_dot WG=%u x %llu groups (default, %s)",
                     m->wg, (unsigned long long)m->groups,
                     resized                               ? "sized to the loop limit"
                     : !gb_case_param_defaulted(ctx, "wg") ? "the profile's wg"
                     : info->type == GB_DEVICE_CPU         ? "CPU sizing"
                                                           : "GPU sizing");
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
    if (m->op != OP_DOT) /* in vectors of vec elements */
        gb_launch_split_tail(l, &m->tail, m->n / m->vec, l->nargs - 1);
    return 0;
}

static int memory_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct memory *m = ctx->state;
    if (!m->tuned)
        return gb_case_launch_reps(ctx, m->k, &m->launch, &m->tail, reps);
    int err = 0;
    for (uint64_t r = 0; r < reps && !err; r++)
        if (!(err = ctx->ops->launch(ctx->q, m->k, &m->launch)))
            err = ctx->ops->launch(ctx->q, m->k2, &m->launch2);
    return err;
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

/* The probabilistic bound of the same sum (Higham and Mary, "A New Approach to Probabilistic
 * Rounding Error Analysis", SIAM J. Sci. Comput. 41(5), 2019, Theorem 2.4 with the depth d in
 * place of n): gamma~_d(lambda) = exp(lambda sqrt(d) u + d u^2 / (1 - u)) - 1, which holds
 * unless one of d rounding errors, taken as independent and of mean zero, breaks it: with
 * lambda = 10 a probability below d 2 exp(-50), 4e-22 d. The model holds while a running sum
 * stays below 2^p times its smallest term (no stagnation: every term in [1, 4) keeps bits below
 * the sum's rounding unit), which with terms under 4 is d 4 u < 1; beyond that, no bound but
 * gamma_d. Why it matters: gamma_d grows as d u and the share of one work-item's terms as
 * 1 / work-items, so at BabelStream's CPU sizing (16 work-items) a float dot of 2^21 terms per
 * work-item could drop a work-item within gamma_d (0.13 against 0.0625), never within this
 * (9e-4). Returns 0 where the model does not hold. */
static double gamma_prob(double d, double u)
{
    const double lambda = 10.0;
    return d * 4.0 * u < 1.0 ? expm1(lambda * sqrt(d) * u + d * u * u / (1.0 - u)) : 0.0;
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
     * long double sums (the reference's and the partial sums') add a few 2^-63 at most. The
     * tuned kernels' depth was counted in setup (dot_tuned_setup). */
    double depth = m->tol_depth;
    if (!m->tuned) {
        const uint64_t items = m->groups * m->wg;
        depth = (double)((m->n + items - 1) / items);
        for (uint32_t w = m->wg; w > 1; w /= 2)
            depth += 1;
    }
    const double u = m->dbl ? 0x1p-53 : 0x1p-24;
    const double prob = gamma_prob(depth, u), worst = gamma_d(depth, u);
    const bool use_prob = prob > 0 && prob < worst;
    const double tol = (use_prob ? prob : worst) + ((double)m->groups + 4.0) * 0x1p-62;
    ctx->max_error = (double)(fabsl(total - gold) / gold);
    if (!(ctx->max_error <= tol))
        return gb_case_mismatch(ctx,
                                "dot = %.17Lg, expected %.17Lg (relative error %.3g > %.3g, "
                                "the %s bound of a sum of depth %.0f)",
                                total, gold, ctx->max_error, tol,
                                use_prob ? "probabilistic" : "worst-case", depth);
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
    unsigned char *image = gb_case_read_back(ctx, out, m->off + m->n * m->esize, &err);
    if (!image)
        return err;
    for (uint64_t i = 0; i < m->off; i++)
        if (image[i] != GUARD_BYTE) {
            err = gb_case_mismatch(ctx,
                                   "byte %llu, before the offset %llu, is 0x%02x, not the guard "
                                   "0x%02x: the kernel wrote outside its array (an offset "
                                   "ignored?)",
                                   (unsigned long long)i, (unsigned long long)m->off, image[i],
                                   GUARD_BYTE);
            free(image);
            return err;
        }
    const void *host = image + m->off; /* the array */
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
    if (!(worst <= tol)) {
        char at[64] = "";
        if (m->off)
            snprintf(at, sizeof at, " at offset %llu", (unsigned long long)m->off);
        err = gb_case_mismatch(ctx,
                               "element %llu%s is %.17g, expected %.17g (relative error %.3g "
                               "> %g)",
                               (unsigned long long)worst_i, at, elem(m, host, worst_i), worst_gold,
                               worst, tol);
    }
    free(image);
    return err;
}

static void memory_teardown(struct gb_case_ctx *ctx)
{
    struct memory *m = ctx->state;
    gb_case_free_bufs(ctx, &m->a, &m->b, &m->c, &m->sums, &m->partial, NULL);
    if (m->k2)
        ctx->ops->kernel_free(m->k2);
    m->k2 = NULL;
    gb_case_free_kernel(ctx, &m->k, &m->prog);
}

/* With size 0 (the default), the array size the device got; dot: which configuration ran. */
static void memory_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    const struct memory *m = ctx->state;
    (void)op_time_s;
    if (gb_params_size(ctx->params, "size") == 0)
        gb_case_figure(ctx, "array_bytes", "B", (double)(m->n * m->esize));
    if (m->op != OP_DOT && gb_params_int(ctx->params, "vec") == 0)
        gb_case_figure(ctx, "vec_used", "", (double)m->vec);
    if (m->op == OP_DOT) {
        gb_case_text(ctx, "config", "%s", m->config);
        if (!m->tuned)
            gb_case_figure(ctx, "groups", "", (double)m->groups);
    }
}

const struct gb_suite gb_suite_memory = {
    .name = "memory",
    .summary = "device-memory bandwidth (GB/s): copy, mul, add, triad, dot (BabelStream)",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "op",
    .state_size = sizeof(struct memory),
    .normalize = memory_normalize,
    .axis_applies = memory_axis_applies,
    .setup = memory_setup,
    .run = memory_run,
    .verify = memory_verify,
    .figures = memory_figures,
    .teardown = memory_teardown,
    .footprint = memory_footprint,
};
