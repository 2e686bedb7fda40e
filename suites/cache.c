/* cache — read bandwidth against working set: the bandwidth staircase of the cache levels, on the
 * same sweep as the latency suite, so each level's bandwidth sits beside its latency.
 *
 * G = groups x wg work-items (groups 0: 8 per compute unit) read a working set of `size` bytes
 * over and over (kernels/cache.cl): each reads `iters` vectors of `vec` unsigned ints, G x iters
 * vectors an operation, at least `reads` bytes and at least the whole set, so every operation
 * sweeps the set and a set larger than a cache never sits in it. `layout` says how the
 * work-items share the set: interleaved, neighbouring work-items read neighbouring vectors (the
 * coalesced GPU pattern), as a grid-stride loop over a set larger than the launch and with
 * every work-item cycling through a smaller one; blocked, each work-item reads its own run of
 * consecutive vectors (what a CPU compiler vectorises); auto picks blocked on a CPU device.
 * All work-items read the same set, so on a GPU a set that fits a compute unit's L1 is read from
 * every L1 at once (the aggregate L1 bandwidth), one that fits the L2 from the L2; on a CPU
 * device the cores do the same with their private and shared caches.
 * GB/s = bytes read (G x iters x vec x 4) / time / 1e9; the few bytes of sums written are not
 * counted.
 *
 * Verification: the set holds small pseudo-random integers; each work-item's wrapping sum is
 * exact whatever the order of the adds, and the host replays the reads of 256 work-items spread
 * over the launch (the first and the last among them) and compares their sums exactly.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites/chip.h"
#include "suites/common.h"
#include "backends/precision.h" /* gb_device_is_cpu */

static const char *const ops[] = {"read", NULL};
static const char *const layouts[] = {"auto", "interleaved", "blocked", NULL};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("op", "read", ops, "read: every work-item sums the vectors it reads"),
    GB_AXIS_SIZE("size", "{from: 4KiB, to: 1GiB, factor: 2}", 4, 0, "working set, bytes"),
    GB_AXIS_INT("vec", "4", 1, 4, "unsigned ints per load: 1, 2 or 4 (4, 8 or 16 bytes)"),
    GB_AXIS_INT("wg", "256", 1, 65536, "work-group (thread-block) size"),
    GB_AXIS_INT("groups", "0", 0, 1 << 24, "work-groups per launch; 0: 8 per compute unit"),
    GB_AXIS_SIZE("reads", "1GiB", 1, 0,
                 "bytes read per operation, at least (and at least the working set)"),
    GB_AXIS_STR("layout", "auto", layouts,
                "interleaved (coalesced, for GPUs), blocked (a run per work-item, for CPUs); auto: "
                "blocked on a CPU device"),
};

struct cache {
    struct gb_test_hook hook;
    uint32_t vec, wg;
    uint64_t items; /* G */
    uint32_t n, first, step, iters;
    bool blocked;
    uint32_t *data; /* the set, as the device holds it (n x vec unsigned ints) */
    struct gb_buf *set, *sums;
    struct gb_program *prog;
    struct gb_kernel *k;
    struct gb_launch launch;
};

/* The value of unsigned int e of the set: 4 pseudo-random bits (Knuth's multiplicative hash). */
static uint32_t cache_value(uint64_t e)
{
    return ((uint32_t)e * UINT32_C(2654435761)) >> 28;
}

/* Loop iterations one work-item of cache_read (kernels/cache.cl) runs: step 1, `iters` reads
 * in runs up to the end of the set of n vectors (at most 2 + iters / n runs); another step,
 * iters / 4 steps of four reads. */
static uint64_t cache_trips(uint64_t iters, uint64_t n, uint32_t step)
{
    return step == 1 ? iters + 2 + iters / n : iters / 4;
}

static int cache_setup(struct gb_case_ctx *ctx)
{
    struct cache *s = ctx->state;
    const struct gb_device_info *info = &ctx->dev->info;
    s->vec = (uint32_t)gb_params_int(ctx->params, "vec");
    s->wg = (uint32_t)gb_params_int(ctx->params, "wg");
    const uint64_t size = gb_params_size(ctx->params, "size");
    const uint64_t reads = gb_params_size(ctx->params, "reads");
    const uint64_t vbytes = 4 * (uint64_t)s->vec;
    if (s->vec == 3)
        return gb_case_skip(ctx, "vec must be 1, 2 or 4");
again:;
    uint64_t groups;
    int err = gb__chip_items(ctx, &s->wg, &groups, &s->items);
    if (err)
        return err;
    const uint64_t n = size / vbytes;
    if (n == 0)
        return gb_case_skip(
            ctx, "a working set of %" PRIu64 " bytes holds no vector of %" PRIu64 " bytes", size,
            vbytes);
    if (n > (UINT64_C(1) << 31))
        return gb_case_skip(ctx, "%" PRIu64 " vectors: the kernel's 32-bit index reaches 2^31", n);
    s->n = (uint32_t)n;
    const char *layout = gb_params_str(ctx->params, "layout");
    s->blocked =
        strcmp(layout, "blocked") == 0 || (strcmp(layout, "auto") == 0 && gb_device_is_cpu(info));
    /* Vectors per work-item: enough for `reads` bytes and for the whole set, a multiple of 4;
     * blocked, at least the run of each work-item, so that the runs cover the set. On a driver
     * that stops a work-item's loops, work-groups the suite chose (groups 0) double until each
     * work-item's reads stay within its limit; groups the profile gave are a skip there. */
    const uint64_t want = (reads > n * vbytes ? reads : n * vbytes) / vbytes;
    const uint32_t limit = info->max_loop_trips;
    const bool own_groups = gb_params_int(ctx->params, "groups") == 0;
    uint64_t iters, trips;
    for (;;) {
        iters = (want + s->items - 1) / s->items;
        const uint64_t run = (n + s->items - 1) / s->items;
        if (s->blocked && iters < run)
            iters = run;
        iters = (iters + 3) / 4 * 4;
        s->first = s->blocked ? (uint32_t)run : 1;
        s->step = s->blocked ? 1 : (uint32_t)(s->items % n);
        if (s->step == 0)
            s->step = 1;
        trips = cache_trips(iters, n, s->step);
        if (!limit || trips <= limit || !own_groups || s->items * 2 > UINT32_MAX)
            break;
        groups *= 2;
        s->items *= 2;
    }
    if (iters > UINT32_MAX)
        return gb_case_skip(ctx, "%" PRIu64 " reads per work-item overflow the kernel's count",
                            iters);
    if ((err = gb_case_loop_fits(ctx, trips, NULL, NULL)))
        return err;
    s->iters = (uint32_t)iters;

    char def_vec[16];
    snprintf(def_vec, sizeof def_vec, "VEC=%u", s->vec);
    const char *defs[] = {def_vec};
    if ((err = gb__chip_build(ctx, "cache.cl", "cache_read", defs, 1, &s->prog, &s->k)))
        return err;
    const uint32_t asked = s->wg;
    if ((err = gb__chip_kernel_wg(ctx, s->k, &s->wg)))
        return err;
    if (s->wg != asked) { /* fitted to the kernel: the work-items and reads follow the size */
        gb_case_free_kernel(ctx, &s->k, &s->prog);
        goto again;
    }
    if ((err = gb_case_alloc(ctx, n * vbytes, GB_MEM_DEVICE, &s->set)) ||
        (err = gb_case_alloc(ctx, s->items * sizeof(uint32_t), GB_MEM_DEVICE, &s->sums)) ||
        (err = gb_case_poison(ctx, s->sums, s->items * sizeof(uint32_t), GB_I32)))
        return err;
    s->data = malloc(n * vbytes);
    if (!s->data)
        return GB_FAIL(GB_ENOMEM, "a working set of %" PRIu64 " bytes", n * vbytes);
    for (uint64_t e = 0; e < n * s->vec; e++)
        s->data[e] = cache_value(e);
    if ((err = gb_case_upload(ctx, s->set, s->data, n * vbytes)))
        return err;

    struct gb_launch *l = &s->launch;
    *l = (struct gb_launch){
        .dims = 1, .global = {s->items, 1, 1}, .local = {s->wg, 1, 1}, .nargs = 6};
    l->args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->set};
    l->args[1] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->sums};
    l->args[2] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = s->n};
    l->args[3] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = s->first};
    l->args[4] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = s->step};
    l->args[5] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = s->iters};
    ctx->op.bytes = (double)s->items * (double)s->iters * (double)vbytes;
    ctx->op.working_set = (double)n * (double)vbytes;
    ctx->op.timer = GB_TIMER_DEVICE;
    return 0;
}

static int cache_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct cache *s = ctx->state;
    return gb_case_launch_reps(ctx, s->k, &s->launch, NULL, reps);
}

/* What work-item g must have summed. */
static uint32_t cache_expected(const struct cache *s, uint64_t g)
{
    uint32_t sum = 0;
    uint64_t i = g * s->first % s->n;
    for (uint32_t j = 0; j < s->iters; j++) {
        for (uint32_t k = 0; k < s->vec; k++)
            sum += s->data[i * s->vec + k];
        i += s->step;
        if (i >= s->n)
            i -= s->n;
    }
    return sum;
}

static int cache_verify(struct gb_case_ctx *ctx)
{
    struct cache *s = ctx->state;
    int err;
    uint32_t *got = gb_case_read_back(ctx, s->sums, s->items * sizeof(uint32_t), &err);
    if (!got)
        return err;
    ctx->max_error = 0;
    const uint64_t picks = s->items < 256 ? s->items : 256;
    for (uint64_t p = 0; p < picks && !err; p++) {
        const uint64_t g = picks == 1 ? 0 : p * (s->items - 1) / (picks - 1);
        const uint32_t want = cache_expected(s, g);
        if (got[g] != want)
            err = gb_case_mismatch(ctx,
                                   "work-item %" PRIu64 " summed %u, expected %u (%u reads "
                                   "of %u vectors)",
                                   g, got[g], want, s->iters, s->n);
    }
    free(got);
    return err;
}

static void cache_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct cache *s = ctx->state;
    gb_case_figure(ctx, "work_items", "", (double)s->items);
    gb_case_figure(ctx, "reads_per_item", "", (double)s->iters);
    gb_case_text(ctx, "layout", "%s", s->blocked ? "blocked" : "interleaved");
}

static void cache_teardown(struct gb_case_ctx *ctx)
{
    struct cache *s = ctx->state;
    gb_case_free_buf(ctx, &s->set);
    gb_case_free_buf(ctx, &s->sums);
    gb_case_free_kernel(ctx, &s->k, &s->prog);
    free(s->data);
    s->data = NULL;
}

const struct gb_suite gb_suite_cache = {
    .name = "cache",
    .summary = "read bandwidth (GB/s) against working set: the bandwidth staircase of the cache "
               "levels",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "op",
    .state_size = sizeof(struct cache),
    .setup = cache_setup,
    .run = cache_run,
    .verify = cache_verify,
    .teardown = cache_teardown,
    .figures = cache_figures,
};
