/* balance — a multi-device suite (multi_common.h holds what those suites share): one job split
 * across devices of unequal speed.
 *
 * The job: `elements` work items, each `iters` dependent fused multiply-adds (kernels/multi.cl
 * multi_work, 2 flops each), whose results are gathered into one host buffer (every device
 * writes its part back with a D2H copy, so a part is done when the host holds it). Three ways to
 * split it across every device of the set:
 *   equal         static, 1/n of the elements each, one launch per device;
 *   proportional  static, each device's share proportional to its throughput, measured in
 *                 setup with every device running its part at once (proportional_split() says
 *                 why not alone);
 *   dynamic       a queue of `chunks` equal chunks that idle devices pull from (one chunk in
 *                 flight per device, so a slow device holds at most one chunk at the end).
 * One operation is one whole job; the next one starts when every device has finished (a
 * barrier). Host-timed: the time per operation is the makespan. Figures: "makespan" (s), per
 * device "busy" (s per job: the fraction of each run from the common start to the end of its
 * last piece, less waits, median over the last runs, times the makespan), "share" (the fraction
 * of the elements it computed in the last run), and for proportional the "rate" of each device
 * (GFLOP/s, from the probe).
 * On one device only `equal` runs (the whole job on it: the 1-device baseline); the other splits
 * are skipped with the reason.
 * Verification: element i depends only on i mod 1024, so the host computes 1024 reference values
 * with fmaf and checks every element of the gathered result (relative tolerance 1e-6; one
 * correctly rounded fma per step on both sides, so they agree exactly in practice).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites/common.h"
#include "suites/multi_common.h"

enum split { SPLIT_EQUAL, SPLIT_PROPORTIONAL, SPLIT_DYNAMIC };
static const char *const splits[] = {"equal", "proportional", "dynamic", NULL};

static const struct gb_axis_def balance_axes[] = {
    GB_AXIS_STR("split", "[equal, proportional, dynamic]", splits,
                "equal or proportional static split, or a dynamic chunk queue"),
    GB_AXIS_INT("elements", "1048576", 1, INT64_C(1) << 32, "work items in the job"),
    GB_AXIS_INT("iters", "256", 1, 1 << 20, "fused multiply-adds per work item"),
    GB_AXIS_INT("chunks", "64", 1, 1 << 20,
                "dynamic: chunks in the queue (0 for the static splits)"),
};

#define MW_A 0.9990234375f /* as kernels/multi.cl */
#define MW_B 0.0009765625f
#define HIST 16 /* runs whose busy times make the "busy" figure */
#define WG 64   /* the work-group size preferred, and the static splits' granule */

struct balance {
    struct gb_multi_team team; /* first: gb_multi_run() */
    enum split split;
    uint64_t elements, nchunks, chunk;
    uint32_t iters;
    uint64_t lo[GB_MAX_SET], hi[GB_MAX_SET]; /* static splits */
    double rate_gflops[GB_MAX_SET];          /* proportional: as probed, all devices at once */
    _Atomic uint64_t next;                   /* dynamic: the next chunk to take */
    uint64_t done[GB_MAX_SET];               /* elements each device computed in the last run */
    double util[HIST][GB_MAX_SET];           /* busy / span of each device, the last HIST runs */
    size_t nbusy;
    struct gb_buf *y[GB_MAX_SET], *host;
    struct gb_program *prog[GB_MAX_SET];
    struct gb_kernel *k[GB_MAX_SET];
    uint32_t wg[GB_MAX_SET]; /* each device's work-group: WG, or what it and its kernel allow */
    float ref[1024];
};

static bool balance_normalize(struct gb_params *p)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->name[i], "chunks") == 0 && strcmp(gb_params_str(p, "split"), "dynamic"))
            p->v[i].u.i = 0; /* only the dynamic split has chunks */
    return true;
}

/* Computes [lo, hi) on device `rank` and writes it back to the host buffer; does not wait.
 * Whole work-groups first, then the remainder as single work-items (multi_work has no bounds
 * check, so that the compiler vectorises it across work-items). */
static int piece(struct balance *b, size_t rank, uint64_t lo, uint64_t hi)
{
    if (hi <= lo)
        return 0;
    const struct gb_backend_ops *ops = b->team.ctx->ops;
    struct gb_queue *q = b->team.ctx->queues[rank];
    struct gb_launch l = {.dims = 1, .global = {0, 1, 1}, .local = {b->wg[rank], 1, 1}, .nargs = 3},
                     tail;
    l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = b->y[rank]};
    l.args[1] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = lo};
    l.args[2] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = b->iters};
    gb_launch_split_tail(&l, &tail, hi - lo, 1);
    int err = gb_launch_whole_then_tail(ops, q, b->k[rank], &l, &tail);
    if (!err)
        err = ops->copy(q, b->host, lo * sizeof(float), b->y[rank], lo * sizeof(float),
                        (hi - lo) * sizeof(float), GB_COPY_ASYNC);
    if (!err)
        b->done[rank] += hi - lo;
    return err;
}

/* Takes the next chunk of repetition `rep` (chunks rep * nchunks .. (rep + 1) * nchunks - 1),
 * or returns false when that repetition's queue is empty. */
static bool take_chunk(struct balance *b, uint64_t rep, uint64_t *c)
{
    const uint64_t limit = (rep + 1) * b->nchunks;
    uint64_t cur = atomic_load(&b->next);
    while (cur < limit)
        if (atomic_compare_exchange_weak(&b->next, &cur, cur + 1)) {
            *c = cur - rep * b->nchunks;
            return true;
        }
    return false;
}

static int balance_job(struct gb_team *t, size_t rank, void *arg)
{
    struct balance *b = arg;
    const struct gb_backend_ops *ops = b->team.ctx->ops;
    struct gb_queue *q = b->team.ctx->queues[rank];
    int err = 0;
    b->done[rank] = 0;
    for (uint64_t r = 0; r < b->team.reps && !err; r++) {
        /* One job after the other: the next starts when every device is done with this one. */
        if (r > 0 && (err = gb_team_barrier(t)))
            break;
        if (b->split != SPLIT_DYNAMIC) {
            if (!(err = piece(b, rank, b->lo[rank], b->hi[rank])))
                err = ops->queue_sync(q);
            continue;
        }
        uint64_t c;
        while (!err && take_chunk(b, r, &c)) {
            uint64_t lo = c * b->chunk, hi = lo + b->chunk;
            if (!(err = piece(b, rank, lo, hi < b->elements ? hi : b->elements)))
                err = ops->queue_sync(q);
        }
    }
    return err;
}

/* The probe of the proportional split: this device's static part, on its own queue. */
static int probe_job(struct gb_team *t, size_t rank, void *arg)
{
    (void)t;
    struct balance *b = arg;
    int err = piece(b, rank, b->lo[rank], b->hi[rank]);
    return err ? err : b->team.ctx->ops->queue_sync(b->team.ctx->queues[rank]);
}

/* Sets the static split [lo, hi) of every device to the cumulative shares of w[], on
 * multiples of the work-group size. */
static void split_by(struct balance *b, const double *w)
{
    double sum = 0, acc = 0;
    for (size_t i = 0; i < b->team.n; i++)
        sum += w[i];
    b->lo[0] = 0;
    for (size_t i = 0; i < b->team.n; i++) {
        acc += w[i];
        uint64_t hi = i + 1 == b->team.n ? b->elements
                                         : (uint64_t)((double)b->elements * (acc / sum)) / WG * WG;
        b->hi[i] = hi < b->lo[i] ? b->lo[i] : hi > b->elements ? b->elements : hi;
        if (i + 1 < b->team.n)
            b->lo[i + 1] = b->hi[i];
    }
}

/* Each device's throughput, measured with every device running at once (devices that share
 * something — CPU cores under PoCL, a PCIe switch, a power budget — are slower together than
 * alone, and the split must fit how they run together): the job split equally, then split by
 * the rates so measured, and measured again; each time one warm-up and three timed runs, the
 * median busy time of each device giving its rate. The split follows the final rates. */
static int proportional_split(struct balance *b)
{
    double w[GB_MAX_SET];
    for (size_t i = 0; i < b->team.n; i++)
        w[i] = 1.0;
    for (int round = 0; round < 2; round++) {
        split_by(b, w);
        double busy[GB_MAX_SET][3];
        int err = gb_team_run(b->team.t, b->team.n, probe_job, b); /* warm-up */
        for (int k = 0; k < 3 && !err; k++) {
            err = gb_team_run(b->team.t, b->team.n, probe_job, b);
            for (size_t i = 0; i < b->team.n && !err; i++)
                busy[i][k] = gb_team_busy(b->team.t, i);
        }
        if (err)
            return err;
        for (size_t i = 0; i < b->team.n; i++) {
            double med = gb_multi_median(busy[i], 3);
            uint64_t part = b->hi[i] - b->lo[i];
            /* A device with no part keeps a small weight so that it is probed again. */
            w[i] = part == 0 ? 1e-3 * w[i] : med > 0 ? (double)part / med : w[i];
            b->rate_gflops[i] = part ? (double)part * 2.0 * b->iters / med / 1e9 : 0.0;
        }
    }
    split_by(b, w);
    return 0;
}

static int balance_setup(struct gb_case_ctx *ctx)
{
    struct balance *b = ctx->state;
    const char *sp = gb_params_str(ctx->params, "split");
    b->split = strcmp(sp, "equal") == 0          ? SPLIT_EQUAL
               : strcmp(sp, "proportional") == 0 ? SPLIT_PROPORTIONAL
                                                 : SPLIT_DYNAMIC;
    b->elements = (uint64_t)gb_params_int(ctx->params, "elements");
    b->iters = (uint32_t)gb_params_int(ctx->params, "iters");
    /* iters is the work per element, one work-item's loop (kernels/multi.cl's multi_work): past
     * the driver's loop limit the case skips. */
    int lerr = gb_case_loop_fits(ctx, b->iters, NULL, NULL);
    if (lerr)
        return lerr;
    b->nchunks = (uint64_t)gb_params_int(ctx->params, "chunks");
    b->team.n = ctx->ndevs;
    if (b->team.n < 2 && b->split != SPLIT_EQUAL)
        return gb_case_skip(ctx,
                            "a %s split needs at least 2 devices of one backend; 1 is "
                            "selected (split=equal runs the whole job on it as the baseline)",
                            sp);
    if (b->split == SPLIT_DYNAMIC) {
        if (b->nchunks > b->elements)
            b->nchunks = b->elements;
        b->chunk = (b->elements + b->nchunks - 1) / b->nchunks;
        b->nchunks = (b->elements + b->chunk - 1) / b->chunk;
    }
    const uint64_t bytes = b->elements * sizeof(float);
    int err;
    if ((err = gb_multi_alloc(ctx, 0, bytes, GB_MEM_HOST_PINNED, &b->host)))
        return err;
    for (size_t i = 0; i < b->team.n; i++) {
        b->wg[i] = WG;
        if ((err = gb_multi_alloc(ctx, i, bytes, GB_MEM_DEVICE, &b->y[i])) ||
            (err = gb_multi_build(ctx, i, "multi.cl", "multi_work", NULL, 0, &b->prog[i],
                                  &b->k[i])) ||
            (err = gb_case_fit_own_wg(ctx, b->k[i], ctx->devs[i]->info.max_wg_size, &b->wg[i])))
            return err;
        gb_multi_part(b->elements, b->team.n, i, &b->lo[i], &b->hi[i]);
    }
    if ((err = gb_multi_team_start(ctx, balance_job)))
        return err;
    if (b->split == SPLIT_PROPORTIONAL && (err = proportional_split(b)))
        return err;
    /* Whatever the probe left in the host buffer must not pass for the job's output. */
    memset(b->host->host, 0xff, bytes);
    for (int v = 0; v < 1024; v++) {
        float x = (float)v * (1.0f / 1024.0f);
        for (uint32_t k = 0; k < b->iters; k++)
            x = fmaf(x, MW_A, MW_B);
        b->ref[v] = x;
    }
    ctx->op.flops = 2.0 * (double)b->elements * (double)b->iters;
    return 0;
}

static int balance_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct balance *b = ctx->state;
    atomic_store(&b->next, 0);
    int err = gb_multi_run(ctx, reps);
    if (!err) {
        double *row = b->util[b->nbusy++ % HIST], span = gb_team_span(b->team.t);
        for (size_t i = 0; i < b->team.n; i++)
            row[i] = span > 0 ? gb_team_busy(b->team.t, i) / span : NAN;
    }
    return err;
}

static int balance_verify(struct gb_case_ctx *ctx)
{
    struct balance *b = ctx->state;
    const float *y = b->host->host;
    ctx->max_error = 0;
    for (uint64_t i = 0; i < b->elements; i++) {
        const double gold = b->ref[i % 1024];
        const double rel = fabs((double)y[i] - gold) / gold;
        if (!(rel <= ctx->max_error))
            ctx->max_error = isnan(rel) ? INFINITY : rel;
        if (!(rel <= 1e-6))
            return gb_case_mismatch(ctx,
                                    "element %llu is %.9g, expected %.9g (relative error "
                                    "%.3g > 1e-6)",
                                    (unsigned long long)i, y[i], gold, rel);
    }
    return 0;
}

static void balance_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct balance *b = ctx->state;
    gb_case_figure(ctx, "makespan", "s", op_time_s);
    size_t h = b->nbusy < HIST ? b->nbusy : HIST;
    double busy[GB_MAX_SET], share[GB_MAX_SET], col[HIST], total = 0;
    /* Busy time as the fraction of each run a device was busy (the median over the last runs)
     * times the makespan, so that it is on the same scale as the makespan reported. */
    for (size_t i = 0; i < b->team.n; i++) {
        for (size_t k = 0; k < h; k++)
            col[k] = b->util[k][i];
        busy[i] = h ? gb_multi_median(col, h) * op_time_s : NAN;
        total += (double)b->done[i];
    }
    for (size_t i = 0; i < b->team.n; i++)
        share[i] = total > 0 ? (double)b->done[i] / total : NAN;
    gb_case_figure_devices(ctx, "busy", "s", busy, b->team.n);
    gb_case_figure_devices(ctx, "share", "", share, b->team.n);
    if (b->split == SPLIT_PROPORTIONAL)
        gb_case_figure_devices(ctx, "rate", "GFLOP/s", b->rate_gflops, b->team.n);
}

static void balance_teardown(struct gb_case_ctx *ctx)
{
    struct balance *b = ctx->state;
    gb_multi_team_stop(ctx);
    gb_case_free_buf(ctx, &b->host);
    for (size_t i = 0; i < GB_MAX_SET; i++) {
        gb_case_free_buf(ctx, &b->y[i]);
        gb_case_free_kernel(ctx, &b->k[i], &b->prog[i]);
    }
}

const struct gb_suite gb_suite_balance = {
    .name = "balance",
    .summary = "one job across devices of unequal speed: equal, proportional and dynamic "
               "splits; makespan and per-device busy time",
    .axes = balance_axes,
    .naxes = sizeof balance_axes / sizeof balance_axes[0],
    .case_axis = "split",
    .state_size = sizeof(struct balance),
    .normalize = balance_normalize,
    .setup = balance_setup,
    .run = balance_run,
    .verify = balance_verify,
    .teardown = balance_teardown,
    .flags = GB_SUITE_MULTI_DEVICE,
    .figures = balance_figures,
};
