/* launch — kernel launch overhead.
 *
 * `latency`: one launch of a one-work-item kernel followed by a wait for its completion, timed on
 * the host — the enqueue-to-completion time an application sees (clpeak's "kernel launch
 * latency" measures the same thing). `throughput`: launches enqueued back to back and timed
 * with device events; the per-launch time is the issue rate the queue sustains.
 * The kernel increments a counter, and verify checks it equals the number of launches made.
 *
 * `latency` reports the launch time in two forms, labelled. The value is host-observed: the
 * launch-and-wait above, timed on the host. Where the backend can time a launch on the device
 * (ops->launch_timed), the case also runs DEV_LAUNCHES launches one at a time after the
 * measurement (in verify(), before the counter is checked; they count as launches) and adds the
 * medians of what the device's clock says of them, in microseconds:
 *   device_queued_to_end  OpenCL CL_PROFILING_COMMAND_QUEUED to END — the quantity clpeak reports
 *                         as its "kernel launch latency" (clpeak launches 8192 work-items, this
 *                         one); CUDA: an event pair around the launch;
 *   device_start_to_end   the kernel's execution alone (OpenCL START to END; CUDA: the pair).
 * Both leave out the host's side of the enqueue and of the wait, so they are at most the
 * host-observed figure.
 */
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "run/suite.h"
#include "suites/common.h"

/* Launches timed on the device for the figures of `latency`. */
#define DEV_LAUNCHES 101

static const char *const ops[] = {"latency", "throughput", NULL};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("op", "[latency, throughput]", ops,
                "latency: launch and wait, host-timed; throughput: back-to-back, device-timed"),
};

struct launch {
    bool wait;
    uint64_t launches; /* launches enqueued so far: the counter's expected value */
    struct gb_buf *count;
    struct gb_program *prog;
    struct gb_kernel *k;
    struct gb_launch l;
    double dev_queued_us, dev_start_us; /* medians of launch_timed; 0: not measured */
};

static int launch_setup(struct gb_case_ctx *ctx)
{
    struct launch *s = ctx->state;
    s->wait = strcmp(gb_params_str(ctx->params, "op"), "latency") == 0;
    int err = gb_case_build(ctx, "launch.cl", "launch_count", NULL, 0, &s->prog, &s->k);
    if (err || (err = gb_case_alloc(ctx, sizeof(uint32_t), GB_MEM_DEVICE, &s->count)))
        return err;
    const uint32_t zero = 0;
    if ((err = gb_case_upload(ctx, s->count, &zero, sizeof zero)))
        return err;
    s->l = (struct gb_launch){.dims = 1, .global = {1, 1, 1}, .local = {1, 1, 1}, .nargs = 1};
    s->l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->count};
    ctx->op.timer = s->wait ? GB_TIMER_HOST : GB_TIMER_DEVICE;
    /* A counter of 32 bits must not wrap: 2^31 launches would take hours anyway. */
    ctx->op.max_batch = 1u << 16;
    return 0;
}

static int launch_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct launch *s = ctx->state;
    int err = 0;
    for (uint64_t r = 0; r < reps && !err; r++) {
        err = ctx->ops->launch(ctx->q, s->k, &s->l);
        if (!err)
            s->launches++;
        if (!err && s->wait)
            err = ctx->ops->queue_sync(ctx->q);
    }
    return err;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* DEV_LAUNCHES launches one at a time through ops->launch_timed; their medians into s. */
static int device_timed(struct gb_case_ctx *ctx, struct launch *s)
{
    double q[DEV_LAUNCHES], x[DEV_LAUNCHES];
    for (size_t i = 0; i < DEV_LAUNCHES; i++) {
        struct gb_launch_times t;
        int err = ctx->ops->launch_timed(ctx->q, s->k, &s->l, &t);
        if (err)
            return err;
        s->launches++;
        q[i] = (double)t.queued_to_end_ns * 1e-3;
        x[i] = (double)t.start_to_end_ns * 1e-3;
    }
    qsort(q, DEV_LAUNCHES, sizeof q[0], by_value);
    qsort(x, DEV_LAUNCHES, sizeof x[0], by_value);
    s->dev_queued_us = gb_percentile_sorted(q, DEV_LAUNCHES, 0.5);
    s->dev_start_us = gb_percentile_sorted(x, DEV_LAUNCHES, 0.5);
    return 0;
}

static int launch_verify(struct gb_case_ctx *ctx)
{
    struct launch *s = ctx->state;
    int err;
    /* The device-timed figures need a device timer that passed its check (gb_device). */
    if (s->wait && ctx->ops->launch_timed && !ctx->dev->timer_fault[0] &&
        (err = device_timed(ctx, s)))
        return err;
    uint32_t got = 0;
    err = gb_case_download(ctx, &got, s->count, sizeof got);
    if (err)
        return err;
    if (got != (uint32_t)s->launches)
        return gb_case_mismatch(ctx, "the kernel ran %u times, %llu launches were enqueued", got,
                                (unsigned long long)s->launches);
    return 0;
}

static void launch_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    (void)op_time_s;
    const struct launch *s = ctx->state;
    if (!s->wait || !(s->dev_queued_us > 0))
        return;
    gb_case_figure(ctx, "device_queued_to_end", "us", s->dev_queued_us);
    gb_case_figure(ctx, "device_start_to_end", "us", s->dev_start_us);
}

static void launch_teardown(struct gb_case_ctx *ctx)
{
    struct launch *s = ctx->state;
    gb_case_free_buf(ctx, &s->count);
    gb_case_free_kernel(ctx, &s->k, &s->prog);
}

const struct gb_suite gb_suite_launch = {
    .name = "launch",
    .summary = "kernel launch overhead (us): launch-and-wait latency, back-to-back issue rate",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "op",
    .state_size = sizeof(struct launch),
    .setup = launch_setup,
    .run = launch_run,
    .verify = launch_verify,
    .teardown = launch_teardown,
    .figures = launch_figures,
};
