/* alloc — what an allocation costs: allocation and free latency by size, per method.
 *
 * One operation is one allocation of `size` bytes (op alloc) or one free of such an allocation
 * (op free), by one of the backend's methods (gb_alloc_method, backends/backend.h: device,
 * async, async_keep, managed, svm, pinned, registered) or by the host floor (`host`: C malloc,
 * and memset for first use), the reference every other method is read against. The operation's
 * inverse (the free of a timed allocation, the allocation of a timed free) happens in the
 * harness's prepare()/settle() hooks, untimed. A sample is one operation (op.max_batch 1), timed
 * by the host around the call alone (GB_TIMER_HOST_CALL: no queue finish, which costs as much
 * as a small allocation); a stream-ordered method (async, async_keep) and a first use on the
 * device wait for their queue inside the timed call, since that is when the memory is usable.
 * Every sample is kept and the figures are its distribution: p50, p90, p99 and p99.9 in us, each
 * only from at least 10, 100 and 1000 samples (the headline is the median, the result's metric
 * `latency`).
 *
 * Axis touch:
 *   none       the call alone. A runtime that allocates lazily (OpenCL's on a CPU, managed
 *              memory, malloc) finds the memory later, at its first use; the figure does not
 *              count it, and the text figure `counts` says so;
 *   first_use  the call and the first write of every byte: a device buffer is written by a
 *              kernel (kernels/alloc.cl, one 32-bit word per work-item) and waited for; host
 *              memory (host, pinned, registered) by memset, as a program first writes it.
 *              clCreateBuffer + first use against malloc + memset is the host floor.
 * A free (op free) frees a buffer that has been written (the check writes every allocation
 * before its free: op free's touch is always first_use).
 *
 * Verification: every allocation is written and read back, outside the timing, before it is
 * freed: a device buffer holds the first-use fill (touch first_use) or is uploaded a pattern,
 * then is read back and compared word for word; a host-kind buffer (pinned, registered) is
 * written on the host (the memset, or the pattern), copied to a device buffer and read back
 * from it, so its bytes are proven to reach the device; the host floor is compared in place.
 * Each allocation gets its own pattern (a new seed), so bytes left from an earlier one never
 * match. A failed allocation is the case's failure; a mismatch fails verify with where.
 *
 * Skips (recorded with reasons): a method the backend or device does not offer (the CUDA-only
 * ones on OpenCL, SVM where the device has none), a size above the device's largest
 * allocation or the host's available memory, a size not a multiple of 4 bytes (the pattern is
 * 32-bit words).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "base/units.h"
#include "suites/alloc_state.h"
#include "suites/common.h"

/* Method names in gb_alloc_method order, then the host floor. */
static const char *const methods[] = {"device", "async",      "async_keep", "managed", "svm",
                                      "pinned", "registered", "host",       NULL};
static const char *const op_names[] = {"alloc", "free", NULL};
static const char *const touches[] = {"none", "first_use", NULL};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("method", "[device, async, async_keep, managed, svm, pinned, registered, host]",
                methods,
                "device (cudaMalloc, clCreateBuffer), async (cudaMallocAsync, default pool), "
                "async_keep (cudaMallocAsync, a pool that keeps its memory), managed "
                "(cudaMallocManaged), svm (clSVMAlloc in a buffer), pinned (cudaHostAlloc, "
                "ALLOC_HOST_PTR + map), registered (malloc + cudaHostRegister or USE_HOST_PTR + "
                "map), host (C malloc: the host floor)"),
    GB_AXIS_STR("op", "[alloc, free]", op_names,
                "alloc: the allocation is timed; free: the free is timed"),
    GB_AXIS_STR("touch", "[none, first_use]", touches,
                "none: the call alone; first_use: the call and the first write of every byte "
                "(where a lazy allocator finds the memory); op free frees written memory: its "
                "touch is always first_use"),
    GB_AXIS_SIZE("size", "[4KiB, 64KiB, 1MiB, 16MiB, 256MiB, 1GiB]", 4, 0,
                 "bytes per allocation (a multiple of 4)"),
};

static unsigned parse_method(const char *s)
{
    for (unsigned i = 0; methods[i]; i++)
        if (strcmp(methods[i], s) == 0)
            return i;
    return ALLOC_HOST_FLOOR;
}

static bool host_kind(const struct alloc *a)
{
    return a->method == GB_ALLOC_PINNED || a->method == GB_ALLOC_REGISTERED;
}

/* The byte a host first use (memset) writes for pattern `seed`: never 0, which fresh pages
 * hold. */
static unsigned char memset_byte(uint32_t seed)
{
    return (unsigned char)(seed % 255u + 1u);
}

/* A freed allocation has always been written (the check writes every allocation before its
 * free), so op free has one touch: first_use. */
static bool alloc_normalize(struct gb_params *p)
{
    struct gb_value *touch = gb_params_slot(p, "touch");
    if (touch && strcmp(gb_params_str(p, "op"), "free") == 0)
        snprintf(touch->s, sizeof touch->s, "first_use");
    return true;
}

static int alloc_setup(struct gb_case_ctx *ctx)
{
    struct alloc *a = ctx->state;
    a->method = parse_method(gb_params_str(ctx->params, "method"));
    a->free_op = strcmp(gb_params_str(ctx->params, "op"), "free") == 0;
    a->touch = strcmp(gb_params_str(ctx->params, "touch"), "first_use") == 0;
    a->fill_in_run = a->touch;
    a->stream_ordered = a->method == GB_ALLOC_ASYNC || a->method == GB_ALLOC_ASYNC_KEEP;
    a->size = gb_params_size(ctx->params, "size");
    a->next_seed = 0x2545F491u;
    ctx->op.timer = GB_TIMER_HOST_CALL;
    ctx->op.max_batch = 1;
    if (a->size % 4)
        return gb_case_skip(ctx,
                            "size %llu is not a multiple of 4 bytes (the pattern every "
                            "allocation is checked with is 32-bit words)",
                            (unsigned long long)a->size);
    a->words = a->size / 4;
    const struct gb_device_info *info = &ctx->dev->info;
    /* A host-kind method is checked through a device buffer of the same size: it must fit the
     * device's largest allocation too (said before anything is allocated). */
    if (host_kind(a) && info->max_alloc && a->size > info->max_alloc) {
        char s[32], m[32];
        return gb_case_skip(ctx,
                            "%s does not fit: its check copies it into a device buffer, and the "
                            "device's largest allocation is %s",
                            gb_format_size(a->size, s, sizeof s),
                            gb_format_size(info->max_alloc, m, sizeof m));
    }
    if (a->method != ALLOC_HOST_FLOOR) {
        if (!ctx->ops->alloc_method)
            return gb_case_skip(ctx, "backend %s offers no allocation methods beyond buf_alloc",
                                ctx->ops->name);
        if (!host_kind(a) && info->max_alloc && a->size > info->max_alloc) {
            char s[32], m[32];
            return gb_case_skip(ctx, "%s does not fit: the device's largest allocation is %s",
                                gb_format_size(a->size, s, sizeof s),
                                gb_format_size(info->max_alloc, m, sizeof m));
        }
        /* Probe the method once, untimed, so that an absent one is a skip with its reason. */
        struct gb_buf *probe = NULL;
        gb_error_clear();
        int rc = ctx->ops->alloc_method(ctx->q, (enum gb_alloc_method)a->method, 4096, &probe);
        if (rc == GB_EUNSUPPORTED)
            return gb_case_skip(ctx, "method %s: %s", methods[a->method], gb_error_msg());
        if (rc)
            return rc;
        ctx->ops->buf_free(probe);
        if (a->stream_ordered && (rc = ctx->ops->queue_sync(ctx->q)))
            return rc;
    }
    /* The host's copy for checks (and a host-kind method's device buffer to check through).
     * The host floor is checked in place and needs neither: it holds the size under test once. */
    int rc;
    struct gb_buf *stage = NULL;
    if (a->method == ALLOC_HOST_FLOOR)
        return 0;
    if ((rc = gb_case_alloc(ctx, a->size, GB_MEM_HOST_PAGEABLE, &stage)))
        return rc;
    a->stage = stage;
    a->back = stage->host;
    if (host_kind(a) && (rc = gb_case_alloc(ctx, a->size, GB_MEM_DEVICE, &a->check)))
        return rc;
    if (a->touch && a->method != ALLOC_HOST_FLOOR && !host_kind(a)) {
        static const char *const none[1];
        a->wg = gb_case_own_wg(ctx, 64);
        if ((rc = gb_case_build_hooked(ctx, "alloc.cl", "alloc_fill", none, 0, NULL, &a->wg,
                                       &a->prog, &a->fill)))
            return rc;
    }
    return 0;
}

/* Records the first failed check (verify reports it) and returns 0: the run goes on, the case
 * fails at verify. */
static int check_failed(struct alloc *a, const char *fmt, uint64_t i, uint64_t got, uint64_t want)
{
    if (!a->bad) {
        a->bad = true;
        snprintf(a->why, sizeof a->why, fmt, (unsigned long long)i, (unsigned long long)got,
                 (unsigned long long)want);
    }
    return 0;
}

/* Compares the words read back into a->back with pattern `seed`. */
static int check_words(struct alloc *a, uint32_t seed, const char *what)
{
    const unsigned char *p = a->back;
    for (uint64_t i = 0; i < a->words; i++) {
        uint32_t w;
        memcpy(&w, p + 4 * i, sizeof w);
        const uint32_t want = alloc_word(i, seed);
        if (w != want) {
            char fmt[256];
            snprintf(fmt, sizeof fmt,
                     "%s: word %%llu of the allocation read back 0x%%08llx, expected 0x%%08llx "
                     "(the allocation was not written as counted, or not usable)",
                     what);
            return check_failed(a, fmt, i, w, want);
        }
    }
    a->checked++;
    return 0;
}

static int check_bytes(struct alloc *a, const unsigned char *p, unsigned char want,
                       const char *what)
{
    for (uint64_t i = 0; i < a->size; i++)
        if (p[i] != want) {
            char fmt[256];
            snprintf(fmt, sizeof fmt,
                     "%s: byte %%llu of the allocation is 0x%%02llx, expected 0x%%02llx", what);
            return check_failed(a, fmt, i, p[i], want);
        }
    a->checked++;
    return 0;
}

/* Launches the first-use fill of b with pattern seed (not waited for). */
static int launch_fill(struct gb_case_ctx *ctx, struct alloc *a, struct gb_buf *b, uint32_t seed)
{
    const uint64_t wg = a->wg ? a->wg : 64;
    struct gb_launch l = {.dims = 1,
                          .global = {(a->words + wg - 1) / wg * wg, 1, 1},
                          .local = {(uint32_t)wg, 1, 1},
                          .nargs = 3};
    l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = b};
    l.args[1] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = a->words};
    l.args[2] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = seed};
    return ctx->ops->launch(ctx->q, a->fill, &l);
}

/* One allocation, with its first use when `fill`; the handle goes to live[k]. Waits for the
 * queue when it enqueued anything, so the memory is usable when it returns. */
static int alloc_one(struct gb_case_ctx *ctx, struct alloc *a, size_t k, bool fill)
{
    const uint32_t seed = a->seeds[k];
    if (a->method == ALLOC_HOST_FLOOR) {
        void *p = malloc(a->size);
        if (!p)
            return GB_FAIL(GB_ENOMEM, "malloc of %llu bytes", (unsigned long long)a->size);
        if (fill)
            memset(p, memset_byte(seed), a->size);
        a->live_host[k] = p;
        return 0;
    }
    int rc = ctx->ops->alloc_method(ctx->q, (enum gb_alloc_method)a->method, a->size, &a->live[k]);
    if (rc) {
        a->live[k] = NULL;
        return rc;
    }
    if (fill && host_kind(a))
        memset(a->live[k]->host, memset_byte(seed), a->size);
    else if (fill && (rc = launch_fill(ctx, a, a->live[k], seed)))
        return rc;
    if ((fill && !host_kind(a)) || a->stream_ordered)
        rc = ctx->ops->queue_sync(ctx->q);
    return rc;
}

/* Writes live[k] with its pattern where its allocation did not (touch none), then reads it
 * back and checks it. Untimed. */
static int write_and_check(struct gb_case_ctx *ctx, struct alloc *a, size_t k)
{
    const uint32_t seed = a->seeds[k];
    const char *what = a->touch ? "after its first use" : "after writing it";
    if (a->method == ALLOC_HOST_FLOOR) {
        if (!a->touch)
            memset(a->live_host[k], memset_byte(seed), a->size);
        return check_bytes(a, a->live_host[k], memset_byte(seed), what);
    }
    struct gb_buf *b = a->live[k];
    int rc;
    if (host_kind(a)) {
        /* Written on the host, proven on the device: host -> device buffer -> back. */
        if (!a->touch)
            memset(b->host, memset_byte(seed), a->size);
        if ((rc = ctx->ops->copy(ctx->q, a->check, 0, b, 0, a->size, GB_COPY_BLOCKING)) ||
            (rc = ctx->ops->copy(ctx->q, a->stage, 0, a->check, 0, a->size, GB_COPY_BLOCKING)))
            return rc;
        return check_bytes(a, a->back, memset_byte(seed), what);
    }
    if (!a->touch) {
        for (uint64_t i = 0; i < a->words; i++) {
            const uint32_t w = alloc_word(i, seed);
            memcpy(a->back + 4 * i, &w, sizeof w);
        }
        if ((rc = ctx->ops->copy(ctx->q, b, 0, a->stage, 0, a->size, GB_COPY_BLOCKING)))
            return rc;
        memset(a->back, 0, a->size);
    }
    if ((rc = ctx->ops->copy(ctx->q, a->stage, 0, b, 0, a->size, GB_COPY_BLOCKING)))
        return rc;
    return check_words(a, seed, what);
}

static void free_one(struct gb_case_ctx *ctx, struct alloc *a, size_t k)
{
    if (a->method == ALLOC_HOST_FLOOR) {
        free(a->live_host[k]);
        a->live_host[k] = NULL;
    } else if (a->live[k]) {
        ctx->ops->buf_free(a->live[k]);
        a->live[k] = NULL;
    }
}

static int check_reps(uint64_t reps)
{
    if (reps == 0 || reps > ALLOC_MAX_LIVE)
        return GB_FAIL(GB_EINVAL, "alloc: %llu operations at once (1 to %d)",
                       (unsigned long long)reps, ALLOC_MAX_LIVE);
    return 0;
}

/* Before a timed run: a new pattern per operation; for op free, the allocations it frees,
 * each allocated (and first used when touch says so) and checked now. */
static int alloc_prepare(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct alloc *a = ctx->state;
    int rc = check_reps(reps);
    if (rc)
        return rc;
    for (size_t k = 0; k < reps; k++)
        a->seeds[k] = a->next_seed++ * 0x9E3779B9u + 1u;
    a->nlive = reps;
    if (!a->free_op)
        return 0;
    for (size_t k = 0; k < reps; k++)
        if ((rc = alloc_one(ctx, a, k, a->touch)) || (rc = write_and_check(ctx, a, k)))
            return rc;
    if (a->stream_ordered)
        rc = ctx->ops->queue_sync(ctx->q);
    return rc;
}

static int alloc_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct alloc *a = ctx->state;
    int rc = check_reps(reps);
    if (rc || reps > a->nlive)
        return rc ? rc
                  : GB_FAIL(GB_EINVAL, "alloc: run() of %llu without prepare()",
                            (unsigned long long)reps);
    if (a->free_op) {
        for (size_t k = 0; k < reps; k++)
            free_one(ctx, a, k);
        /* A stream-ordered free is complete when its queue is. */
        return a->stream_ordered ? ctx->ops->queue_sync(ctx->q) : 0;
    }
    for (size_t k = 0; k < reps; k++)
        if ((rc = alloc_one(ctx, a, k, a->fill_in_run)))
            return rc;
    return 0;
}

/* After a timed run: op alloc checks each allocation, then frees it. */
static int alloc_settle(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct alloc *a = ctx->state;
    int rc = 0;
    for (size_t k = 0; k < reps && k < a->nlive; k++) {
        if (!a->free_op && !rc)
            rc = write_and_check(ctx, a, k);
        free_one(ctx, a, k);
    }
    a->nlive = 0;
    if (!rc && a->stream_ordered)
        rc = ctx->ops->queue_sync(ctx->q);
    return rc;
}

static int alloc_verify(struct gb_case_ctx *ctx)
{
    struct alloc *a = ctx->state;
    if (a->bad)
        return gb_case_mismatch(ctx, "%s", a->why);
    if (a->checked == 0)
        return gb_case_mismatch(ctx, "no allocation was written and read back");
    return 0;
}

static void alloc_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct alloc *a = ctx->state;
    (void)op_time_s;
    if (ctx->samples && ctx->nsamples) {
        double *s = malloc(ctx->nsamples * sizeof *s);
        if (s) {
            for (size_t i = 0; i < ctx->nsamples; i++)
                s[i] = ctx->samples[i] * 1e6;
            gb_sort_doubles(s, ctx->nsamples);
            /* A percentile q is given only from at least 1 / (1 - q) samples (one at least
             * beyond it): with fewer, "p99.9" would be the maximum under another name. */
            static const struct {
                const char *name;
                double q;
                size_t min_n;
            } pct[] = {{"p50_us", 0.5, 1},
                       {"p90_us", 0.9, 10},
                       {"p99_us", 0.99, 100},
                       {"p999_us", 0.999, 1000}};
            for (size_t i = 0; i < sizeof pct / sizeof pct[0]; i++)
                if (ctx->nsamples >= pct[i].min_n)
                    gb_case_figure(ctx, pct[i].name, "us",
                                   gb_percentile_sorted(s, ctx->nsamples, pct[i].q));
            free(s);
        }
    }
    gb_case_figure(ctx, "allocations_checked", "", (double)a->checked);
    /* The text figure holds 63 bytes. */
    gb_case_text(ctx, "counts", "%s",
                 a->free_op ? "the free of memory written once"
                 : a->touch ? "the call and the first write of every byte"
                            : "the call alone (a lazy allocator's first use not counted)");
}

static void alloc_teardown(struct gb_case_ctx *ctx)
{
    struct alloc *a = ctx->state;
    if (a->nlive && a->stream_ordered)
        (void)ctx->ops->queue_sync(ctx->q);
    for (size_t k = 0; k < ALLOC_MAX_LIVE; k++)
        free_one(ctx, a, k);
    a->nlive = 0;
    if (a->stream_ordered)
        (void)ctx->ops->queue_sync(ctx->q);
    gb_case_free_buf(ctx, &a->check);
    gb_case_free_buf(ctx, &a->stage);
    a->back = NULL;
    gb_case_free_kernel(ctx, &a->fill, &a->prog);
}

/* What a case holds at once (gb_suite.footprint): the allocation under test (one: op.max_batch
 * 1), on the host for the host floor and the host kinds (pinned, registered), else on the device;
 * the pageable copy the check reads back into, but for the host floor (checked in place); and a
 * host kind's device buffer that its bytes are checked through. */
static void alloc_footprint(const struct gb_params *p, const struct gb_device_info *info,
                            struct gb_footprint *fp)
{
    (void)info;
    const struct alloc a = {.method = parse_method(gb_params_str(p, "method"))};
    const double size = (double)gb_params_size(p, "size");
    if (a.method == ALLOC_HOST_FLOOR)
        *fp = (struct gb_footprint){.host = size};
    else if (host_kind(&a))
        *fp = (struct gb_footprint){.host = 2 * size, .device = size, .largest = size};
    else
        *fp = (struct gb_footprint){.host = size, .device = size, .largest = size};
}

const struct gb_suite gb_suite_alloc = {
    .name = "alloc",
    .summary = "allocation and free latency (us, p50/p99) by size and method, the host's "
               "malloc beside",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "method",
    .state_size = sizeof(struct alloc),
    .normalize = alloc_normalize,
    .setup = alloc_setup,
    .prepare = alloc_prepare,
    .run = alloc_run,
    .settle = alloc_settle,
    .verify = alloc_verify,
    .teardown = alloc_teardown,
    .figures = alloc_figures,
    .chart = {.kind = GB_CHART_LINE, .x = "size"},
    .footprint = alloc_footprint,
};
