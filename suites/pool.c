/* pool — what a memory pool buys: a training step's allocations replayed three ways.
 *
 * One operation is one training step of the seeded trace (suites/pool_trace.h says its shape and
 * where it comes from): every allocation of the step, each followed by its first write (the fill
 * kernel of kernels/alloc.cl over the bytes requested, as the layer that produced the tensor
 * writes it), and every free, in the trace's order, on the case's queue; host-timed to the
 * step's end (GB_TIMER_HOST). A batch of reps replays the trace's next reps steps (it has
 * POOL_STEPS, of different sequence lengths). The ways:
 *   driver        every allocation and free straight to the backend (cudaMalloc / cudaFree,
 *                 clCreateBuffer / clReleaseMemObject);
 *   backend_pool  the backend's own pool: CUDA's stream-ordered allocator on a pool that keeps
 *                 its memory (GB_ALLOC_ASYNC_KEEP: cudaMallocFromPoolAsync / cudaFreeAsync);
 *                 OpenCL has none (a recorded skip);
 *   caching       the size-class caching pool of suites/pool_trace.h over the driver's
 *                 allocations, the reference technique of frameworks' allocators.
 * Figures: the headline is the time per step (us); `reserved_peak` (bytes held from the driver
 * at most: the caching pool's blocks live or cached; the CUDA pool's reserved high-water mark;
 * the driver's, the live bytes, its own rounding not visible), `in_use_peak` (requested bytes
 * live at most), `fragmentation` (reserved_peak / in_use_peak: 1 is no waste), `driver_allocs_
 * per_step` and, for caching, `cache_hit_rate`.
 *
 * Axis cap (bytes, 0 none): the bytes the driver and caching ways may hold at once. A request
 * that would exceed it fails (the caching pool first gives its cache back and retries, as
 * PyTorch's allocator does). A step that could not allocate a tensor did less than the step, so
 * its time is not the step's: setup replays the trace under the cap on the host
 * (gb_pool_trace_under_cap, the suite's own books) and a cap under which any request fails is a
 * recorded skip naming how many of the trace's allocations fail, how many of them the requested
 * bytes live would have allowed (the pool's rounding and cache made them fail), and the first.
 * A cap that the trace fits under is measured: the caching pool gives its cache back as it
 * nears it (`cap_releases_per_step`: blocks returned to the driver per step), and verify's
 * checked pass fails the case should any request fail after all. backend_pool with a cap is a
 * recorded skip: a CUDA pool has no such limit gpubench may set.
 *
 * Verification: verify replays every step of the trace once more, each block's first write
 * carrying its own pattern, and before each free reads back the first and last 64 bytes of the
 * tensor and compares them: a pool that handed the same memory to two live tensors (overlapping
 * blocks) shows the later tensor's bytes in the earlier one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites/alloc_fill.h"
#include "suites/common.h"
#include "suites/pool_state.h"

static const char *const ways[] = {"driver", "backend_pool", "caching", NULL};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("way", "[driver, backend_pool, caching]", ways,
                "driver (every allocation to the backend), backend_pool (CUDA's stream-ordered "
                "pool), caching (a size-class caching pool)"),
    GB_AXIS_INT("layers", "8", 1, 1024,
                "layers of the transformer-shaped network whose training step the trace is"),
    GB_AXIS_SIZE("hidden", "1MiB", 4096, INT64_C(1) << 40,
                 "bytes of one layer's input activation at the longest sequence (the trace's "
                 "scale)"),
    GB_AXIS_INT("seed", "1", 0, 0,
                "the trace's seed (its steps' sequence lengths and small sizes)"),
    GB_AXIS_SIZE("cap", "0", 0, 0, "bytes the way may hold from the driver at once (0: no cap)",
                 .zero_picks = true),
};

static int pool_setup(struct gb_case_ctx *ctx)
{
    struct pool *p = ctx->state;
    const char *way = gb_params_str(ctx->params, "way");
    p->way = strcmp(way, "driver") == 0    ? WAY_DRIVER
             : strcmp(way, "caching") == 0 ? WAY_CACHING
                                           : WAY_BACKEND_POOL;
    p->cap = gb_params_size(ctx->params, "cap");
    p->cache.limit = p->way == WAY_CACHING ? p->cap : 0;
    ctx->op.timer = GB_TIMER_HOST;
    int rc = gb_pool_trace_build(&p->trace, (uint32_t)gb_params_int(ctx->params, "layers"),
                                 gb_params_size(ctx->params, "hidden"), POOL_STEPS,
                                 (uint64_t)gb_params_int(ctx->params, "seed"));
    if (rc)
        return rc;
    const struct gb_device_info *info = &ctx->dev->info;
    if (info->max_alloc && gb_pool_class(p->trace.bytes_max) > info->max_alloc)
        return gb_case_skip(ctx,
                            "the trace's largest tensor (%llu bytes) exceeds the device's "
                            "largest allocation (%llu bytes)",
                            (unsigned long long)p->trace.bytes_max,
                            (unsigned long long)info->max_alloc);
    /* The caching pool may hold up to 1.75x and its cache besides: 2x the peak bounds it; a
     * cap bounds what any way holds. */
    uint64_t need = 2 * p->trace.peak_live_max;
    if (p->cap && p->cap < need)
        need = p->cap;
    if (info->global_mem && need > info->global_mem)
        return gb_case_skip(ctx,
                            "the trace holds up to %llu bytes live, and the way may hold "
                            "%llu bytes, more than the device's %llu",
                            (unsigned long long)p->trace.peak_live_max, (unsigned long long)need,
                            (unsigned long long)info->global_mem);
    if (p->cap && p->cap < gb_pool_class(p->trace.bytes_min))
        return gb_case_skip(ctx,
                            "cap %llu bytes is below the trace's smallest tensor (%llu "
                            "bytes, %llu in the caching pool's class): nothing could be "
                            "allocated",
                            (unsigned long long)p->cap, (unsigned long long)p->trace.bytes_min,
                            (unsigned long long)gb_pool_class(p->trace.bytes_min));
    if (p->cap && p->way != WAY_BACKEND_POOL) {
        /* A step some of whose tensors could not be allocated did less than that step: its time
         * is not the step's time (landed: a cap that dropped 49 of 89 allocations a step read as
         * an ok step 54x "faster" than the uncapped one). Said before anything is measured. */
        struct gb_pool_cap_count cc;
        if ((rc = gb_pool_trace_under_cap(&p->trace, p->way == WAY_CACHING, p->cap, &cc)))
            return rc;
        char frag[128] = "";
        if (p->way == WAY_CACHING)
            snprintf(frag, sizeof frag,
                     " (%llu of them would have fit beside the requested bytes live: the "
                     "pool's rounding held the rest)",
                     (unsigned long long)cc.fragmented);
        if (cc.failures)
            return gb_case_skip(ctx,
                                "cap %llu bytes: %llu of the trace's %llu allocations fail under "
                                "it%s; the first at step %zu, event %zu, %llu bytes; the trace "
                                "holds up to %llu bytes live: a step that cannot allocate its "
                                "tensors is not that step's time",
                                (unsigned long long)p->cap, (unsigned long long)cc.failures,
                                (unsigned long long)cc.allocs, frag, cc.first_step, cc.first_event,
                                (unsigned long long)cc.first_bytes,
                                (unsigned long long)p->trace.peak_live_max);
    }
    if (p->way == WAY_BACKEND_POOL) {
        if (p->cap)
            return gb_case_skip(ctx, "backend_pool with a cap: a CUDA pool has no limit on its "
                                     "reserved bytes that gpubench may set");
        struct gb_buf *b = NULL;
        gb_error_clear();
        rc = ctx->ops->alloc_method ? ctx->ops->alloc_method(ctx->q, GB_ALLOC_ASYNC_KEEP, 4096, &b)
                                    : GB_FAIL(GB_EUNSUPPORTED, "no allocation methods");
        if (rc == GB_EUNSUPPORTED)
            return gb_case_skip(ctx, "backend_pool: %s", gb_error_msg());
        if (rc)
            return rc;
        ctx->ops->buf_free(b);
        struct gb_pool_stats st;
        if (ctx->ops->alloc_pool_stats &&
            (rc = ctx->ops->alloc_pool_stats(ctx->q, GB_ALLOC_ASYNC_KEEP, true, &st)))
            return rc;
        if ((rc = ctx->ops->queue_sync(ctx->q)))
            return rc;
    }
    p->slot = calloc(p->trace.nids ? p->trace.nids : 1, sizeof *p->slot);
    if (!p->slot)
        return GB_FAIL(GB_ENOMEM, "pool: %u slots", p->trace.nids);
    if ((rc = gb_case_alloc(ctx, 128, GB_MEM_HOST_PAGEABLE, &p->probe)))
        return rc;
    p->probe_host = p->probe->host;
    static const char *const none[1];
    p->fill_wg = gb_case_own_wg(ctx, 64);
    return gb_case_build_hooked(ctx, "alloc.cl", "alloc_fill", none, 0, NULL, &p->fill_wg, &p->prog,
                                &p->fill);
}

/* The pattern of id's first write in a checked replay (0 in timed ones: any). */
static uint32_t id_seed(const struct pool *p, uint32_t id)
{
    return p->checking ? (uint32_t)(p->steps_run * 0x9E3779B1u) ^ (id * 0x85EBCA6Bu) ^ 1u : 0;
}

static int first_write(struct gb_case_ctx *ctx, struct pool *p, struct pool_slot *s)
{
    const uint64_t words = s->bytes / 4, wg = p->fill_wg;
    struct gb_launch l = {.dims = 1,
                          .global = {(words + wg - 1) / wg * wg, 1, 1},
                          .local = {(uint32_t)wg, 1, 1},
                          .nargs = 3};
    l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->buf};
    l.args[1] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = words};
    l.args[2] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = s->seed};
    return ctx->ops->launch(ctx->q, p->fill, &l);
}

/* A request that failed under the cap: counted in a checked pass, with whether the live bytes
 * would have allowed it. */
static void cap_failed(struct pool *p, size_t step, size_t ev, uint64_t bytes)
{
    if (!p->checking)
        return;
    p->cap_failures++;
    if (p->live + bytes <= p->cap)
        p->cap_failures_fragmented++;
    if (!p->first_failure[0])
        snprintf(p->first_failure, sizeof p->first_failure, "step %zu, event %zu, %llu bytes", step,
                 ev, (unsigned long long)bytes);
}

static int do_alloc(struct gb_case_ctx *ctx, struct pool *p, struct pool_slot *s, size_t step,
                    size_t ev)
{
    int rc = 0;
    s->buf = NULL;
    if (p->way == WAY_CACHING) {
        struct gb_pool_grant g;
        if ((rc = gb_pool_get(&p->cache, s->bytes, &g)))
            return rc;
        for (size_t k = 0; k < g.nrelease; k++)
            ctx->ops->buf_free(g.release[k]);
        p->held = p->cache.reserved;
        if (g.fail) {
            cap_failed(p, step, ev, s->bytes);
            return 0;
        }
        s->block = g.block;
        if (g.need_new) {
            struct gb_buf *b = NULL;
            rc = ctx->ops->buf_alloc(ctx->dev, p->cache.b[g.block].bytes, GB_MEM_DEVICE, &b);
            if (rc) {
                gb_pool_forget(&p->cache, g.block, s->bytes);
                return rc;
            }
            p->cache.b[g.block].handle = b;
            p->driver_allocs++;
        }
        s->buf = p->cache.b[g.block].handle;
        p->held = p->cache.reserved;
    } else {
        if (p->cap && p->held + s->bytes > p->cap) {
            cap_failed(p, step, ev, s->bytes);
            return 0;
        }
        rc = p->way == WAY_DRIVER
                 ? ctx->ops->buf_alloc(ctx->dev, s->bytes, GB_MEM_DEVICE, &s->buf)
                 : ctx->ops->alloc_method(ctx->q, GB_ALLOC_ASYNC_KEEP, s->bytes, &s->buf);
        if (rc) {
            s->buf = NULL;
            return rc;
        }
        p->driver_allocs++;
        p->held += s->bytes;
    }
    if (p->held > p->held_peak)
        p->held_peak = p->held;
    p->live += s->bytes;
    if (p->live > p->live_peak)
        p->live_peak = p->live;
    return first_write(ctx, p, s);
}

/* Before a checked free: the tensor's first and last 64 bytes must hold its own pattern. */
static int check_tensor(struct gb_case_ctx *ctx, struct pool *p, const struct pool_slot *s,
                        uint32_t id)
{
    int rc;
    const uint64_t tail = s->bytes - 64;
    if ((rc = ctx->ops->copy(ctx->q, p->probe, 0, s->buf, 0, 64, GB_COPY_BLOCKING)) ||
        (rc = ctx->ops->copy(ctx->q, p->probe, 64, s->buf, tail, 64, GB_COPY_BLOCKING)))
        return rc;
    for (unsigned k = 0; k < 32 && !p->bad; k++) {
        const uint64_t word = k < 16 ? k : tail / 4 + (k - 16);
        uint32_t got;
        memcpy(&got, p->probe_host + 4 * k, sizeof got);
        const uint32_t want = alloc_word(word, s->seed);
        if (got != want) {
            p->bad = true;
            snprintf(p->why, sizeof p->why,
                     "tensor %u (%llu bytes): word %llu holds 0x%08x, expected 0x%08x: its memory "
                     "was written by another live tensor (overlapping blocks) or not at all",
                     id, (unsigned long long)s->bytes, (unsigned long long)word, got, want);
        }
    }
    return 0;
}

static int do_free(struct gb_case_ctx *ctx, struct pool *p, struct pool_slot *s, uint32_t id)
{
    if (!s->buf)
        return 0; /* its allocation failed under the cap */
    int rc = p->checking ? check_tensor(ctx, p, s, id) : 0;
    if (rc)
        return rc;
    p->live -= s->bytes;
    if (p->way == WAY_CACHING) {
        gb_pool_put(&p->cache, s->block, s->bytes);
    } else {
        ctx->ops->buf_free(s->buf);
        p->held -= s->bytes;
    }
    s->buf = NULL;
    return 0;
}

static int replay_step(struct gb_case_ctx *ctx, struct pool *p, size_t step)
{
    const struct gb_pool_trace *t = &p->trace;
    int rc = 0;
    for (size_t e = t->step_start[step]; e < t->step_start[step + 1] && !rc; e++) {
        const struct gb_pool_event *ev = &t->ev[e];
        struct pool_slot *s = &p->slot[ev->id];
        if (ev->alloc) {
            s->bytes = ev->bytes;
            s->seed = id_seed(p, ev->id);
            rc = do_alloc(ctx, p, s, step, e - t->step_start[step]);
        } else {
            rc = do_free(ctx, p, s, ev->id);
        }
    }
    p->steps_run++;
    return rc;
}

static int pool_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct pool *p = ctx->state;
    for (uint64_t r = 0; r < reps; r++) {
        int rc = replay_step(ctx, p, p->next_step);
        if (rc)
            return rc;
        p->next_step = (p->next_step + 1) % p->trace.nsteps;
    }
    return 0;
}

static int pool_verify(struct gb_case_ctx *ctx)
{
    struct pool *p = ctx->state;
    p->checking = true;
    p->cap_failures = p->cap_failures_fragmented = 0;
    p->first_failure[0] = '\0';
    int rc = 0;
    for (size_t s = 0; s < p->trace.nsteps && !rc; s++)
        rc = replay_step(ctx, p, s);
    p->checking = false;
    if (!rc)
        rc = ctx->ops->queue_sync(ctx->q);
    if (rc)
        return rc;
    if (p->bad)
        return gb_case_mismatch(ctx, "%s", p->why);
    /* setup's replay on the host foresaw none (else the case is a skip): a failure here means
     * the suite's books and that replay disagree, and the timed steps left tensors out. */
    if (p->cap_failures)
        return gb_case_mismatch(ctx,
                                "%llu allocations failed under the cap in the checked replay "
                                "(the first at %s), which setup's replay of the trace did not "
                                "foresee: the timed steps left their tensors out",
                                (unsigned long long)p->cap_failures, p->first_failure);
    if (p->live_peak == 0)
        return gb_case_mismatch(ctx, "no tensor of the trace was allocated: the time counts no "
                                     "work");
    return 0;
}

static void pool_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct pool *p = ctx->state;
    (void)op_time_s;
    uint64_t reserved = p->held_peak;
    if (p->way == WAY_BACKEND_POOL && ctx->ops->alloc_pool_stats) {
        struct gb_pool_stats st;
        if (ctx->ops->alloc_pool_stats(ctx->q, GB_ALLOC_ASYNC_KEEP, false, &st) == 0)
            reserved = st.reserved_high;
    }
    gb_case_figure(ctx, "reserved_peak", "B", (double)reserved);
    gb_case_figure(ctx, "in_use_peak", "B", (double)p->live_peak);
    if (p->live_peak)
        gb_case_figure(ctx, "fragmentation", "", (double)reserved / (double)p->live_peak);
    if (p->steps_run)
        gb_case_figure(ctx, "driver_allocs_per_step", "",
                       (double)p->driver_allocs / (double)p->steps_run);
    if (p->way == WAY_CACHING && p->cache.hits + p->cache.misses)
        gb_case_figure(ctx, "cache_hit_rate", "",
                       (double)p->cache.hits / (double)(p->cache.hits + p->cache.misses));
    if (p->cap && p->way == WAY_CACHING)
        gb_case_figure(ctx, "cap_releases_per_step", "",
                       (double)p->cache.releases / (double)(p->steps_run ? p->steps_run : 1));
    if (p->way == WAY_DRIVER)
        gb_case_text(ctx, "reserved_is", "the live bytes: the driver's rounding is not visible");
}

static void release_buf(void *handle, void *arg)
{
    struct gb_case_ctx *ctx = arg;
    ctx->ops->buf_free(handle);
}

static void pool_teardown(struct gb_case_ctx *ctx)
{
    struct pool *p = ctx->state;
    if (p->slot && p->way != WAY_CACHING)
        for (uint32_t i = 0; i < p->trace.nids; i++)
            if (p->slot[i].buf) {
                ctx->ops->buf_free(p->slot[i].buf);
                p->slot[i].buf = NULL;
            }
    (void)ctx->ops->queue_sync(ctx->q);
    gb_pool_drain(&p->cache, release_buf, ctx);
    gb_pool_free(&p->cache);
    free(p->slot);
    p->slot = NULL;
    gb_pool_trace_free(&p->trace);
    gb_case_free_buf(ctx, &p->probe);
    gb_case_free_kernel(ctx, &p->fill, &p->prog);
}

const struct gb_suite gb_suite_pool = {
    .name = "pool",
    .summary = "a training step's allocations through the driver, the backend's pool and a "
               "caching pool: time per step (us) and fragmentation",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "way",
    .state_size = sizeof(struct pool),
    .setup = pool_setup,
    .run = pool_run,
    .verify = pool_verify,
    .teardown = pool_teardown,
    .figures = pool_figures,
    .chart = {.kind = GB_CHART_BARS},
};
