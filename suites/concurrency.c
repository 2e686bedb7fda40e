/* concurrency — many queues in one process: the same kernel on 1 to N in-order queues of one
 * device at once (what each stream of a shared GPU gets), and stream priorities (`priority`,
 * below).
 *
 * One operation is one launch on every queue, each queue on buffers of its own, all enqueued
 * before any is waited for (a batch of reps: reps launches per queue), host-timed from the first
 * enqueue to the last queue's completion (GB_TIMER_HOST). The kernels (kernels/concurrency.cl):
 *   triad  a = b + s c over `size` bytes per array (memory-bound; 3 arrays counted per queue,
 *          as BabelStream counts): aggregate GB/s;
 *   chain  `items` work-items of `iters` dependent integer multiply-adds (compute-bound, 2
 *          operations per step): aggregate GOP/s;
 *   tick   one work-item adding 1 to a counter (a stream of tiny launches): Mlaunch/s.
 * Every queue's start mark is enqueued before any launch, and the launches go round-robin
 * (launch r of every queue before launch r + 1 of any), so that no queue is favoured by the order
 * of enqueue. Figures: per queue, its rate over the window in which it got its work done (device
 * events: from queue 0's start mark to this queue's last launch's end; equal queues served
 * fairly finish together), over every run of the case, warm-up included: `queue_rate_min`, `queue_rate_max`, and Jain's fairness index of the
 * per-queue rates, J = (sum x)^2 / (n sum x^2) (Jain, Chiu and Hawe, DEC-TR-301, 1984: 1 when
 * every queue gets the same, 1/n when one gets all); a device whose event timer failed its check
 * gives no per-queue figures and says so. The suite's derive step adds `overlap` to every case
 * with queues > 1: its aggregate rate over the same case's with one queue, measured earlier in the
 * run (N: the queues ran fully at once; 1: they took turns).
 *
 * Verification: every queue's output, every element: the triad exactly (small integers, s = 2),
 * the chain by replaying each work-item's steps on the host, tick's counter against the launches
 * the queue was given.
 *
 * `priority` (stream priorities; the backend's queue_create_priority): queues - 1 queues of the
 * device's least priority keep the device full with the chain (`items` work-items of `iters`
 * steps per launch: size it to several waves of the device), CONC_PRIO_RING launches queued on
 * each at all times, while a queue of its greatest priority launches the tick kernel, one launch
 * at a time. Before each small launch, every fill queue that has CONC_PRIO_RING launches queued
 * waits for its oldest (an event recorded after each) and is topped up again, so a small launch
 * is made while CONC_PRIO_RING - 1 or more fill launches are queued on every fill queue, just as
 * one of them has begun. Each small launch's latency is ops->launch_timed's queued_to_end (the
 * device's clock: OpenCL QUEUED to END; CUDA an event pair around it), in microseconds. One
 * operation is a window of CONC_PRIO_WINDOW small launches (op.max_batch 1: one window a
 * sample; host-timed around run(), GB_TIMER_HOST_CALL, the harness's op_time); the headline is
 * each kept window's p99 latency (gb_case_headline: the value is their median, the noise theirs).
 * Figures, over every launch of the kept windows: `high_p50`, `high_p99`; then, in verify, the
 * same protocol with the same fill on the runner's queue (default priority: on CUDA the least
 * priority is the default, so the fill and the small kernel are then equals; on OpenCL the
 * default is CL_QUEUE_PRIORITY_MED_KHR, above the fill's LOW) for as many windows as were kept
 * (CONC_PRIO_MIN_DEFAULT to CONC_PRIO_MAX_DEFAULT): `default_p50`, `default_p99`, and
 * `priority_gain` = default_p99 / high_p99; then, the fill drained, one window of the small
 * kernel alone on the idle device: `idle_p50`. A backend without queue_create_priority, a device
 * without priorities (GB_EUNSUPPORTED: an OpenCL device without cl_khr_priority_hints) or
 * without a trusted event timer is a skip with the reason. Verified: every fill queue's chain
 * output (every element, as for chain) and both small queues' tick counters against the launches
 * each was given.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "suites/concurrency_state.h"

static const char *const kernels[] = {"triad", "chain", "tick", "priority", NULL};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("kernel", "[triad, chain, tick]", kernels,
                "triad (memory-bound), chain (compute-bound), tick (a stream of tiny launches), "
                "priority (a high-priority tick's latency beside low-priority chains; not in the "
                "default sweep: its fill wants items sized to the device)"),
    GB_AXIS_INT("queues", "[1, 2, 4]", 1, CONC_MAX_QUEUES,
                "in-order queues (streams) of one device running the kernel at once (priority: "
                "the high-priority queue and queues - 1 fill queues, 2 at least)"),
    GB_AXIS_SIZE("size", "16MiB", 4, 0, "triad: bytes per array per queue (a multiple of 4)"),
    GB_AXIS_INT("items", "65536", 1, INT64_C(1) << 31,
                "chain: work-items per queue (priority: per fill launch)"),
    GB_AXIS_INT("iters", "1024", 1, INT64_C(1) << 31,
                "chain, priority: dependent steps per work-item"),
};

static const float triad_s = 2.0f;

/* Axes a kernel ignores are set to their defaults, so that identical cases merge. */
static bool conc_normalize(struct gb_params *p)
{
    const char *k = gb_params_str(p, "kernel");
    struct gb_value *size = gb_params_slot(p, "size"), *items = gb_params_slot(p, "items"),
                    *iters = gb_params_slot(p, "iters");
    const bool fills = strcmp(k, "chain") == 0 || strcmp(k, "priority") == 0;
    if (strcmp(k, "priority") == 0 && gb_params_int(p, "queues") < 2)
        return false; /* no queue to fill the device */
    if (strcmp(k, "triad") != 0 && size)
        size->u.size = UINT64_C(16) << 20;
    if (!fills && items && iters) {
        items->u.i = 65536;
        iters->u.i = 1024;
    }
    return true;
}

/* The chain's `iters` steps x -> a x + b (mod 2^32) composed into one affine map x -> A x + C,
 * found once in O(iters), so that the host checks every work-item in O(1) each (a replay of
 * items x iters steps took seconds for what the device did in milliseconds). */
static void chain_map(uint32_t iters, uint32_t *A, uint32_t *C)
{
    uint32_t a = 1, c = 0;
    for (uint32_t k = 0; k < iters; k++) {
        a = a * 1664525u;
        c = c * 1664525u + 1013904223u;
    }
    *A = a;
    *C = c;
}

static void fill_launch(const struct conc *c, const struct conc_queue *q, struct gb_launch *l)
{
    memset(l, 0, sizeof *l);
    l->dims = 1;
    l->global[0] = (c->n + c->wg - 1) / c->wg * c->wg;
    l->global[1] = l->global[2] = 1;
    l->local[0] = c->wg;
    l->local[1] = l->local[2] = 1;
    switch (c->kernel) {
    case CONC_TRIAD:
        l->nargs = 5;
        l->args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = q->a};
        l->args[1] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = q->b};
        l->args[2] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = q->c};
        l->args[3] = (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = triad_s};
        l->args[4] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = c->n};
        break;
    case CONC_CHAIN:
    case CONC_PRIORITY: /* the fill */
        l->nargs = 3;
        l->args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = q->a};
        l->args[1] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = c->iters};
        l->args[2] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = c->n};
        break;
    case CONC_TICK:
        l->global[0] = 1;
        l->local[0] = 1;
        l->nargs = 1;
        l->args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = q->a};
        break;
    }
}

/* A one-work-item launch of conc_tick on `count`. */
static void tick_launch(struct gb_buf *count, struct gb_launch *l)
{
    *l = (struct gb_launch){.dims = 1, .global = {1, 1, 1}, .local = {1, 1, 1}, .nargs = 1};
    l->args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = count};
}

/* Uploads `bytes` of `byte` to b on queue q (each queue's buffers are written on it: setup). */
static int upload_on(struct gb_case_ctx *ctx, struct gb_queue *q, struct gb_buf *b, void *host,
                     int byte, uint64_t bytes)
{
    struct gb_case_ctx own = *ctx;
    own.q = q;
    memset(host, byte, bytes);
    return gb_case_upload(&own, b, host, bytes);
}

static int prio_setup(struct gb_case_ctx *ctx, struct conc *c)
{
    const struct gb_backend_ops *ops = ctx->ops;
    if (!ops->queue_create_priority)
        return gb_case_skip(ctx, "queue priorities: the %s backend has none", ops->name);
    gb_error_clear();
    int rc = ops->queue_create_priority(ctx->dev, GB_QUEUE_PRIORITY_HIGH, &c->hi);
    if (rc == GB_EUNSUPPORTED)
        return gb_case_skip(ctx, "queue priorities: %s", gb_error_msg());
    if (rc)
        return rc;
    if (!ops->launch_timed || ctx->dev->timer_fault[0])
        return gb_case_skip(ctx, "the small launches are timed on the device (launch_timed): %s",
                            ctx->dev->timer_fault[0] ? ctx->dev->timer_fault
                                                     : "the backend cannot time a launch");
    const uint64_t bytes = c->n * 4;
    const struct gb_device_info *info = &ctx->dev->info;
    if (bytes > UINT64_MAX / c->nq || (info->global_mem && bytes * (c->nq - 1) > info->global_mem))
        return gb_case_skip(
            ctx, "%u fill queues of %llu bytes each need more than the device's %llu", c->nq - 1,
            (unsigned long long)bytes, (unsigned long long)info->global_mem);
    const char *exact[] = {"EXACT"};
    if ((rc = gb_case_build_hooked(ctx, "concurrency.cl", "conc_chain", exact,
                                   c->n % c->wg == 0 ? 1 : 0, NULL, &c->wg, &c->prog, &c->k)) ||
        (rc = ops->kernel_get(c->prog, "conc_tick", &c->tick)))
        return rc;
    void *host = malloc(bytes > 4 ? bytes : 4);
    if (!host)
        return GB_FAIL(GB_ENOMEM, "concurrency: %llu bytes", (unsigned long long)bytes);
    /* The counters start at 0, the fill outputs as all ones (what no chain writes: setup). */
    c->qs[0].q = ctx->q;
    if (!(rc = gb_case_alloc(ctx, 4, GB_MEM_DEVICE, &c->qs[0].a)) &&
        !(rc = upload_on(ctx, ctx->q, c->qs[0].a, host, 0, 4)) &&
        !(rc = gb_case_alloc(ctx, 4, GB_MEM_DEVICE, &c->hi_count)))
        rc = upload_on(ctx, c->hi, c->hi_count, host, 0, 4);
    for (uint32_t i = 1; i < c->nq && !rc; i++) {
        struct conc_queue *q = &c->qs[i];
        if ((rc = ops->queue_create_priority(ctx->dev, GB_QUEUE_PRIORITY_LOW, &q->q)))
            break;
        for (uint32_t e = 0; e < CONC_PRIO_RING && !rc; e++)
            rc = ops->event_create(ctx->dev, &q->ring[e]);
        if (!rc && !(rc = gb_case_alloc(ctx, bytes, GB_MEM_DEVICE, &q->a)))
            rc = upload_on(ctx, q->q, q->a, host, 0xff, bytes);
        fill_launch(c, q, &q->launch);
    }
    free(host);
    if (rc)
        return rc;
    tick_launch(c->hi_count, &c->tick_hi);
    tick_launch(c->qs[0].a, &c->tick_def);
    ctx->op.timer = GB_TIMER_HOST_CALL;
    ctx->op.max_batch = 1;
    return 0;
}

/* The axes normalize sets to their defaults for a kernel that ignores them do not apply to it
 * (what people read leaves them out; results keep them): size but for triad, items and iters
 * but for chain and priority. A kernel this suite does not name keeps them all. */
static bool conc_axis_applies(const struct gb_params *p, const char *axis)
{
    const char *k = gb_params_str(p, "kernel");
    const bool triad = strcmp(k, "triad") == 0,
               fills = strcmp(k, "chain") == 0 || strcmp(k, "priority") == 0;
    if (!triad && !fills && strcmp(k, "tick") != 0)
        return true;
    if (strcmp(axis, "size") == 0)
        return triad;
    if (strcmp(axis, "items") == 0 || strcmp(axis, "iters") == 0)
        return fills;
    return true;
}

static int conc_setup(struct gb_case_ctx *ctx)
{
    struct conc *c = ctx->state;
    const char *k = gb_params_str(ctx->params, "kernel");
    c->kernel = strcmp(k, "triad") == 0      ? CONC_TRIAD
                : strcmp(k, "chain") == 0    ? CONC_CHAIN
                : strcmp(k, "priority") == 0 ? CONC_PRIORITY
                                             : CONC_TICK;
    c->nq = (uint32_t)gb_params_int(ctx->params, "queues");
    c->iters = (uint32_t)gb_params_int(ctx->params, "iters");
    /* The chain's iters steps are what one work-item runs (kernels/concurrency.cl's conc_chain,
     * one loop): past the driver's loop limit the case skips. */
    if (c->kernel == CONC_CHAIN || c->kernel == CONC_PRIORITY) {
        const int err = gb_case_loop_fits(ctx, c->iters, "chain", NULL);
        if (err)
            return err;
    }
    if (c->kernel == CONC_PRIORITY) {
        c->n = (uint64_t)gb_params_int(ctx->params, "items");
        c->wg = gb_case_own_wg(ctx, 64);
        c->events = false; /* no per-queue rates: the figures are latencies */
        return prio_setup(ctx, c);
    }
    const uint64_t size = gb_params_size(ctx->params, "size");
    c->n = c->kernel == CONC_TRIAD   ? size / 4
           : c->kernel == CONC_CHAIN ? (uint64_t)gb_params_int(ctx->params, "items")
                                     : 1;
    if (c->kernel == CONC_TRIAD && size % 4)
        return gb_case_skip(ctx, "size %llu is not a multiple of 4 bytes (a float array)",
                            (unsigned long long)size);
    const struct gb_backend_ops *ops = ctx->ops;
    c->events = !ctx->dev->timer_fault[0];
    const uint64_t bytes = c->kernel == CONC_TICK ? 4 : c->n * 4;
    const struct gb_device_info *info = &ctx->dev->info;
    const uint64_t arrays = c->kernel == CONC_TRIAD ? 3 : 1;
    if (bytes > UINT64_MAX / arrays / c->nq ||
        (info->global_mem && bytes * arrays * c->nq > info->global_mem))
        return gb_case_skip(ctx, "%u queues of %llu bytes each need more than the device's %llu",
                            c->nq, (unsigned long long)(bytes * arrays),
                            (unsigned long long)info->global_mem);
    c->wg = gb_case_own_wg(ctx, 64); /* fitted to the kernel too, in the build */
    /* A launch of exactly n work-items needs no bound in the kernel (concurrency.cl, EXACT). */
    const char *exact[] = {"EXACT"};
    const size_t nexact = c->kernel != CONC_TICK && c->n % c->wg == 0 ? 1 : 0;
    const char *name = c->kernel == CONC_TRIAD   ? "conc_triad"
                       : c->kernel == CONC_CHAIN ? "conc_chain"
                                                 : "conc_tick";
    int rc = gb_case_build_hooked(ctx, "concurrency.cl", name, exact, nexact, NULL, &c->wg,
                                  &c->prog, &c->k);
    if (rc)
        return rc;
    float *host = malloc(bytes);
    if (!host)
        return GB_FAIL(GB_ENOMEM, "concurrency: %llu bytes", (unsigned long long)bytes);
    for (uint32_t i = 0; i < c->nq && !rc; i++) {
        struct conc_queue *q = &c->qs[i];
        if (i == 0)
            q->q = ctx->q;
        else if ((rc = ops->queue_create(ctx->dev, &q->q)))
            break;
        /* Each queue's buffers are written, and read back in verify, on that queue: what it
         * computed is then read in its own order, with no reliance on a finish on one queue
         * making another's writes visible to a third (a PoCL run under load once read a
         * queue's counter as 0 through queue 0). */
        struct gb_case_ctx own = *ctx;
        own.q = q->q;
        if (c->events && ((rc = ops->event_create(ctx->dev, &q->start)) ||
                          (rc = ops->event_create(ctx->dev, &q->end))))
            break;
        if ((rc = gb_case_alloc(ctx, bytes, GB_MEM_DEVICE, &q->a)))
            break;
        /* The output starts as what no kernel writes: NaN (triad), all ones, a zero count. */
        memset(host, c->kernel == CONC_TICK ? 0 : 0xff, bytes);
        if ((rc = gb_case_upload(&own, q->a, host, bytes)))
            break;
        if (c->kernel != CONC_TRIAD)
            continue;
        if ((rc = gb_case_alloc(ctx, bytes, GB_MEM_DEVICE, &q->b)) ||
            (rc = gb_case_alloc(ctx, bytes, GB_MEM_DEVICE, &q->c)))
            break;
        for (uint64_t e = 0; e < c->n; e++)
            host[e] = (float)((e + i) % 1024);
        if ((rc = gb_case_upload(&own, q->b, host, bytes)))
            break;
        for (uint64_t e = 0; e < c->n; e++)
            host[e] = (float)((e * 7 + i) % 13);
        rc = gb_case_upload(&own, q->c, host, bytes);
    }
    free(host);
    if (rc)
        return rc;
    switch (c->kernel) {
    case CONC_TRIAD:
        ctx->op.bytes = 3.0 * (double)bytes * c->nq;
        ctx->op.working_set = ctx->op.bytes;
        break;
    case CONC_CHAIN:
        ctx->op.flops = 2.0 * (double)c->n * c->iters * c->nq;
        ctx->op.integer = true;
        break;
    case CONC_TICK:
        /* 1000 per launch: the harness divides by 1e9, so its rate is in Mlaunch/s. */
        ctx->op.flops = 1000.0 * c->nq;
        ctx->op.rate_unit = "Mlaunch/s";
        break;
    case CONC_PRIORITY: /* prio_setup */
        break;
    }
    for (uint32_t i = 0; i < c->nq; i++)
        fill_launch(c, &c->qs[i], &c->qs[i].launch);
    ctx->op.timer = GB_TIMER_HOST;
    return 0;
}

/* priority: every fill queue that has CONC_PRIO_RING launches queued waits for its oldest, then
 * each is topped up to CONC_PRIO_RING (a chain launch, then an event) and flushed. */
static int prio_top_up(struct gb_case_ctx *ctx, struct conc *c)
{
    const struct gb_backend_ops *ops = ctx->ops;
    int rc;
    for (uint32_t i = 1; i < c->nq; i++) {
        struct conc_queue *q = &c->qs[i];
        if (q->ring_n == CONC_PRIO_RING) {
            if ((rc = ops->event_sync(q->ring[q->ring_head])))
                return rc;
            q->ring_head = (q->ring_head + 1) % CONC_PRIO_RING;
            q->ring_n--;
        }
        while (q->ring_n < CONC_PRIO_RING) {
            struct gb_event *ev = q->ring[(q->ring_head + q->ring_n) % CONC_PRIO_RING];
            if ((rc = ops->launch(q->q, c->k, &q->launch)) || (rc = ops->event_record(q->q, ev)))
                return rc;
            q->ops++;
            q->ring_n++;
        }
        if ((rc = ops->queue_flush(q->q)))
            return rc;
    }
    return 0;
}

/* priority: one window, CONC_PRIO_WINDOW small launches `l` on q (nothing else queued on it),
 * each after a top-up of the fill (fill false: the device is idle), their latencies into
 * c->win (us); *count counts the launches made. */
static int prio_window(struct gb_case_ctx *ctx, struct conc *c, struct gb_queue *q,
                       const struct gb_launch *l, bool fill, uint64_t *count)
{
    for (size_t w = 0; w < CONC_PRIO_WINDOW; w++) {
        struct gb_launch_times t;
        int rc = fill ? prio_top_up(ctx, c) : 0;
        if (rc || (rc = ctx->ops->launch_timed(q, c->tick, l, &t)))
            return rc;
        (*count)++;
        c->win[w] = (double)t.queued_to_end_ns * 1e-3;
    }
    return 0;
}

/* Appends v[0..n) to a list. GB_ENOMEM. */
static int lat_add(struct conc_lat *l, const double *v, size_t n)
{
    if (l->n + n > l->cap) {
        size_t cap = l->cap ? l->cap : 256;
        while (cap < l->n + n)
            cap *= 2;
        double *p = realloc(l->v, cap * sizeof *p);
        if (!p)
            return GB_FAIL(GB_ENOMEM, "concurrency: %zu latencies", cap);
        l->v = p;
        l->cap = cap;
    }
    memcpy(l->v + l->n, v, n * sizeof *v);
    l->n += n;
    return 0;
}

void gb_conc_p50_p99(double *v, size_t n, double *p50, double *p99)
{
    if (!n) {
        *p50 = *p99 = NAN;
        return;
    }
    gb_sort_doubles(v, n);
    *p50 = gb_percentile_sorted(v, n, 0.50);
    *p99 = gb_percentile_sorted(v, n, 0.99);
}

static int conc_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct conc *c = ctx->state;
    const struct gb_backend_ops *ops = ctx->ops;
    int rc;
    /* priority: `reps` windows on the high-priority queue (the harness asks one: max_batch 1;
     * settle keeps the last). */
    for (uint64_t r = 0; c->kernel == CONC_PRIORITY && r < reps; r++)
        if ((rc = prio_window(ctx, c, c->hi, &c->tick_hi, true, &c->hi_ops)))
            return rc;
    if (c->kernel == CONC_PRIORITY)
        return 0;
    /* The start marks first, on every queue, then the launches round-robin (launch r of every
     * queue before launch r + 1 of any), so that no queue is favoured by the order of enqueue. */
    for (uint32_t i = 0; i < c->nq; i++)
        if (c->events && (rc = ops->event_record(c->qs[i].q, c->qs[i].start)))
            return rc;
    for (uint64_t r = 0; r < reps; r++)
        for (uint32_t i = 0; i < c->nq; i++)
            if ((rc = ops->launch(c->qs[i].q, c->k, &c->qs[i].launch)))
                return rc;
    for (uint32_t i = 0; i < c->nq; i++) {
        struct conc_queue *q = &c->qs[i];
        if ((c->events && (rc = ops->event_record(q->q, q->end))) || (rc = ops->queue_flush(q->q)))
            return rc;
        q->ops += reps;
    }
    for (uint32_t i = 0; i < c->nq; i++)
        if ((rc = ops->queue_sync(c->qs[i].q)))
            return rc;
    return 0;
}

/* After a run, untimed: each queue's busy time from its events. */
static int conc_settle(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct conc *c = ctx->state;
    (void)reps;
    if (c->kernel == CONC_PRIORITY && ctx->sampling) {
        /* A kept sample's window: its launches, and its p99 for the headline. */
        double sorted[CONC_PRIO_WINDOW], p50, p99;
        memcpy(sorted, c->win, sizeof sorted);
        gb_conc_p50_p99(sorted, CONC_PRIO_WINDOW, &p50, &p99);
        int rc = lat_add(&c->hi_lat, c->win, CONC_PRIO_WINDOW);
        return rc ? rc : lat_add(&c->hi_p99, &p99, 1);
    }
    for (uint32_t i = 0; c->events && i < c->nq; i++) {
        uint64_t ns = 0;
        /* From queue 0's start mark (every queue's is recorded before any launch) to this queue's
         * end: the window in which the queue got its work done. */
        int rc = ctx->ops->event_elapsed_ns(c->qs[0].start, c->qs[i].end, &ns);
        if (rc == GB_EINVAL) /* queue 0's mark came after this queue's end: its own start */
            rc = ctx->ops->event_elapsed_ns(c->qs[i].start, c->qs[i].end, &ns);
        if (rc)
            return rc;
        c->qs[i].busy_s += (double)ns * 1e-9;
    }
    return 0;
}

/* A counter of small launches read back on q against the launches it was given. */
static int check_count(struct gb_case_ctx *ctx, struct gb_queue *q, struct gb_buf *b, uint64_t want,
                       const char *which)
{
    struct gb_case_ctx own = *ctx;
    own.q = q;
    int rc = 0;
    uint32_t *got = gb_case_read_back(&own, b, 4, &rc);
    if (!got)
        return rc;
    if ((uint64_t)*got != (want & 0xffffffffu))
        rc = gb_case_mismatch(ctx,
                              "the %s queue: the counter says %u launches ran, it was given %llu",
                              which, *got, (unsigned long long)want);
    free(got);
    return rc;
}

/* priority, after the measurement: the default-priority windows beside the same fill, the fill
 * drained, the idle window; then every output. */
static int prio_verify(struct gb_case_ctx *ctx, struct conc *c)
{
    const struct gb_backend_ops *ops = ctx->ops;
    size_t nwin = c->hi_p99.n;
    nwin = nwin < CONC_PRIO_MIN_DEFAULT   ? CONC_PRIO_MIN_DEFAULT
           : nwin > CONC_PRIO_MAX_DEFAULT ? CONC_PRIO_MAX_DEFAULT
                                          : nwin;
    int rc = 0;
    c->def_lat.n = c->idle_lat.n = 0; /* verify may be called again (the tests do) */
    for (size_t w = 0; w < nwin && !rc; w++)
        if (!(rc = prio_window(ctx, c, ctx->q, &c->tick_def, true, &c->qs[0].ops)))
            rc = lat_add(&c->def_lat, c->win, CONC_PRIO_WINDOW);
    for (uint32_t i = 1; i < c->nq && !rc; i++) {
        rc = ops->queue_sync(c->qs[i].q);
        c->qs[i].ring_n = 0;
    }
    if (rc || (rc = prio_window(ctx, c, ctx->q, &c->tick_def, false, &c->qs[0].ops)) ||
        (rc = lat_add(&c->idle_lat, c->win, CONC_PRIO_WINDOW)))
        return rc;
    uint32_t A, C;
    chain_map(c->iters, &A, &C);
    for (uint32_t i = 1; i < c->nq && !rc; i++) {
        struct gb_case_ctx own = *ctx;
        own.q = c->qs[i].q;
        const uint32_t *o = gb_case_read_back(&own, c->qs[i].a, c->n * 4, &rc);
        if (!o)
            return rc;
        for (uint64_t e = 0; e < c->n && !rc; e++)
            if (o[e] != A * (uint32_t)e + C)
                rc =
                    gb_case_mismatch(ctx,
                                     "fill queue %u: work-item %llu ended at 0x%08x, expected "
                                     "0x%08x after %u steps",
                                     i, (unsigned long long)e, o[e], A * (uint32_t)e + C, c->iters);
        free((void *)o);
    }
    if (!rc)
        rc = check_count(ctx, c->hi, c->hi_count, c->hi_ops, "high-priority");
    if (!rc)
        rc = check_count(ctx, ctx->q, c->qs[0].a, c->qs[0].ops, "default-priority");
    return rc;
}

static int conc_verify(struct gb_case_ctx *ctx)
{
    struct conc *c = ctx->state;
    int rc = 0;
    if (c->kernel == CONC_PRIORITY)
        return prio_verify(ctx, c);
    for (uint32_t i = 0; i < c->nq && !rc; i++) {
        const struct conc_queue *q = &c->qs[i];
        const uint64_t bytes = c->kernel == CONC_TICK ? 4 : c->n * 4;
        struct gb_case_ctx own = *ctx; /* read on the queue that wrote it (setup says why) */
        own.q = q->q;
        void *got = gb_case_read_back(&own, q->a, bytes, &rc);
        if (!got)
            return rc;
        if (c->kernel == CONC_TRIAD) {
            const float *a = got;
            for (uint64_t e = 0; e < c->n && !rc; e++) {
                const float want = (float)((e + i) % 1024) + triad_s * (float)((e * 7 + i) % 13);
                if (!(a[e] == want))
                    rc = gb_case_mismatch(ctx, "queue %u: a[%llu] = %g, expected %g", i,
                                          (unsigned long long)e, (double)a[e], (double)want);
            }
        } else if (c->kernel == CONC_CHAIN) {
            const uint32_t *o = got;
            uint32_t A, C;
            chain_map(c->iters, &A, &C);
            for (uint64_t e = 0; e < c->n && !rc; e++) {
                const uint32_t want = A * (uint32_t)e + C;
                if (o[e] != want)
                    rc = gb_case_mismatch(ctx,
                                          "queue %u: work-item %llu ended at 0x%08x, "
                                          "expected 0x%08x after %u steps",
                                          i, (unsigned long long)e, o[e], want, c->iters);
            }
        } else {
            const uint32_t count = *(const uint32_t *)got;
            if ((uint64_t)count != (q->ops & 0xffffffffu))
                rc = gb_case_mismatch(ctx,
                                      "queue %u: the counter says %u launches ran, it was "
                                      "given %llu",
                                      i, count, (unsigned long long)q->ops);
        }
        free(got);
    }
    return rc;
}

/* Jain's fairness index of x[0..n): (sum x)^2 / (n sum x^2), in [1/n, 1]; NAN for no data. */
double gb_conc_jain(const double *x, size_t n)
{
    double s = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) {
        s += x[i];
        s2 += x[i] * x[i];
    }
    return n && s2 > 0 ? s * s / ((double)n * s2) : NAN;
}

/* priority: the latency figures and the headline (the kept windows' p99s). */
static void prio_figures(struct gb_case_ctx *ctx, struct conc *c)
{
    double hi50, hi99, def50, def99, idle50, idle99;
    gb_conc_p50_p99(c->hi_lat.v, c->hi_lat.n, &hi50, &hi99);
    gb_conc_p50_p99(c->def_lat.v, c->def_lat.n, &def50, &def99);
    gb_conc_p50_p99(c->idle_lat.v, c->idle_lat.n, &idle50, &idle99);
    if (!isfinite(hi99))
        return; /* no kept window: a suite driven by a test */
    gb_case_figure(ctx, "high_p50", "us", hi50);
    gb_case_figure(ctx, "high_p99", "us", hi99);
    if (isfinite(def99)) {
        gb_case_figure(ctx, "default_p50", "us", def50);
        gb_case_figure(ctx, "default_p99", "us", def99);
        if (hi99 > 0)
            gb_case_figure(ctx, "priority_gain", "", def99 / hi99);
    }
    if (isfinite(idle50))
        gb_case_figure(ctx, "idle_p50", "us", idle50);
    (void)gb_case_headline(ctx, "latency_p99", "us", GB_BETTER_LOWER, c->hi_p99.v, c->hi_p99.n);
}

static void conc_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct conc *c = ctx->state;
    (void)op_time_s;
    if (c->kernel == CONC_PRIORITY) {
        prio_figures(ctx, c);
        return;
    }
    if (!c->events) {
        gb_case_text(ctx, "per_queue", "none: the device's event timer failed its check");
        return;
    }
    /* Work of one launch on one queue, in the unit of the headline. */
    const double work = c->kernel == CONC_TRIAD   ? 3.0 * (double)c->n * 4 / 1e9
                        : c->kernel == CONC_CHAIN ? 2.0 * (double)c->n * c->iters / 1e9
                                                  : 1.0 / 1e6;
    double rate[CONC_MAX_QUEUES], lo = INFINITY, hi = 0;
    for (uint32_t i = 0; i < c->nq; i++) {
        if (!(c->qs[i].busy_s > 0)) {
            gb_case_text(ctx, "per_queue", "none: queue %u's events measured no time", i);
            return;
        }
        rate[i] = work * (double)c->qs[i].ops / c->qs[i].busy_s;
        lo = rate[i] < lo ? rate[i] : lo;
        hi = rate[i] > hi ? rate[i] : hi;
    }
    const char *unit = c->kernel == CONC_TRIAD   ? "GB/s"
                       : c->kernel == CONC_CHAIN ? "GOP/s"
                                                 : "Mlaunch/s";
    gb_case_figure(ctx, "queue_rate_min", unit, lo);
    gb_case_figure(ctx, "queue_rate_max", unit, hi);
    const double j = gb_conc_jain(rate, c->nq);
    if (isfinite(j))
        gb_case_figure(ctx, "fairness", "", j);
}

static void conc_teardown(struct gb_case_ctx *ctx)
{
    struct conc *c = ctx->state;
    const struct gb_backend_ops *ops = ctx->ops;
    for (uint32_t i = 0; i < CONC_MAX_QUEUES; i++) {
        struct conc_queue *q = &c->qs[i];
        if (q->q)
            (void)ops->queue_sync(q->q);
        gb_case_free_buf(ctx, &q->a);
        gb_case_free_buf(ctx, &q->b);
        gb_case_free_buf(ctx, &q->c);
        if (q->start)
            ops->event_free(q->start);
        if (q->end)
            ops->event_free(q->end);
        q->start = q->end = NULL;
        for (uint32_t e = 0; e < CONC_PRIO_RING; e++) {
            if (q->ring[e])
                ops->event_free(q->ring[e]);
            q->ring[e] = NULL;
        }
        if (q->q && q->q != ctx->q)
            ops->queue_destroy(q->q);
        q->q = NULL;
    }
    if (c->hi)
        (void)ops->queue_sync(c->hi);
    gb_case_free_buf(ctx, &c->hi_count);
    if (c->hi)
        ops->queue_destroy(c->hi);
    c->hi = NULL;
    if (c->tick)
        ops->kernel_free(c->tick);
    c->tick = NULL;
    gb_case_free_kernel(ctx, &c->k, &c->prog);
    struct conc_lat *lists[] = {&c->hi_lat, &c->def_lat, &c->idle_lat, &c->hi_p99};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        free(lists[i]->v);
        *lists[i] = (struct conc_lat){0};
    }
}

/* overlap: a case's aggregate rate over the same case's with one queue (same device). */
static int conc_derive(struct gb_results *rs)
{
    static const char *const but_queues[] = {"queues", NULL};
    for (size_t i = 0; i < rs->nresults; i++) {
        struct gb_result *r = &rs->results[i];
        if (strcmp(r->suite, "concurrency") || r->status != GB_STATUS_OK ||
            gb_params_int(&r->params, "queues") < 2 ||
            strcmp(gb_params_str(&r->params, "kernel"), "priority") == 0)
            continue;
        for (size_t j = 0; j < rs->nresults; j++) {
            const struct gb_result *one = &rs->results[j];
            if (strcmp(one->suite, "concurrency") || one->status != GB_STATUS_OK ||
                gb_params_int(&one->params, "queues") != 1 || !(one->value > 0) ||
                one->device_index != r->device_index || strcmp(one->backend, r->backend) ||
                !gb_params_equal_but(&one->params, &r->params, but_queues))
                continue;
            gb_result_figure(r, "overlap", "", r->value / one->value);
            break;
        }
    }
    return 0;
}

const struct gb_suite gb_suite_concurrency = {
    .name = "concurrency",
    .summary = "the same kernel on 1 to N queues of one device at once: aggregate and per-queue "
               "rate, overlap, Jain's fairness; a high-priority queue's p99 launch latency beside "
               "low-priority fill (stream priorities)",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "kernel",
    .state_size = sizeof(struct conc),
    .normalize = conc_normalize,
    .axis_applies = conc_axis_applies,
    .setup = conc_setup,
    .run = conc_run,
    .settle = conc_settle,
    .verify = conc_verify,
    .teardown = conc_teardown,
    .figures = conc_figures,
    .derive = conc_derive,
    .chart = {.kind = GB_CHART_LINE, .x = "queues"},
};
