/* latency — memory latency by pointer chase, swept over the working set (the latency staircase).
 *
 * The working set of `size` bytes is cut into slots of `stride` bytes (a cache line or more, so
 * that no two steps share a line); the first element (an unsigned int) of each slot holds the
 * element index of the next slot. `random`: the slots form one cycle in a random order, built on
 * the host by Sattolo's algorithm (Sattolo, "An algorithm to generate a random cyclic
 * permutation", Inf. Proc. Letters 22, 1986; Knuth, TAOCP vol. 2, 3.4.2) from a fixed seed, so
 * every slot is visited once per lap and no prefetcher can guess the next address. `linear`:
 * the slots in address order, which a prefetcher follows (the two side by side show what
 * prefetching hides). One work-item follows the chain (kernels/latency.cl): every load waits
 * for the previous one, so the time per step is the latency of a load from the level of the
 * hierarchy that holds the working set, address translation included (as lmbench's
 * lat_mem_rd; at sizes beyond the TLB's reach, a page walk is part of what a load costs).
 *
 * One operation is one dependent load. run(reps) launches the chase once for `reps` steps, so
 * a sample is one launch whose steps the harness's batch calibration sizes to at least
 * min_sample_time: the launch's own overhead is then at most (launch overhead) /
 * min_sample_time of the figure (a few 0.1% on a GPU; profiles for a CPU device raise
 * min_sample_time). The headline value is microseconds per load (the harness's latency metric);
 * the figure `ns_per_load` says it in nanoseconds. Setup runs one untimed lap of the cycle when
 * the working set is at most 4x the device's last-level cache (l2_bytes), so the levels that
 * can hold it are warm before the first sample; a larger set misses anyway.
 *
 * Verification: the chase's position after every step asked for (the warm lap, warm-up,
 * calibration and samples) must be the host's: with the cycle's order known, the position after
 * T steps from slot 0 is order[T mod slots].
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites/chip.h"
#include "suites/common.h"
#include "run/tune.h" /* gb_rand_below */

static const char *const patterns[] = {"random", "linear", NULL};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("pattern", "random", patterns,
                "random: one random cycle through the slots (Sattolo); linear: address order"),
    GB_AXIS_SIZE("size", "{from: 4KiB, to: 1GiB, factor: 2}", 8, 0, "working set, bytes"),
    GB_AXIS_SIZE("stride", "128", 4, 1 << 20,
                 "bytes between two chased elements (a multiple of 4; at least a cache line)"),
};

struct latency {
    struct gb_test_hook hook;
    uint64_t slots;  /* slots in the cycle */
    uint32_t epl;    /* elements (unsigned int) per slot: stride / 4 */
    uint32_t *order; /* order[k]: the slot k steps after slot 0 */
    uint64_t steps;  /* steps the chase has been asked for so far */
    struct gb_buf *next, *pos;
    struct gb_program *prog;
    struct gb_kernel *k;
};

/* Seed of the shuffle: fixed, so every run chases the same cycle. */
#define LATENCY_SEED UINT64_C(0x6c6174656e6379) /* "latency" */

/* A single cycle through n >= 2 slots: perm[i] is the slot after slot i. Sattolo's algorithm:
 * Fisher-Yates with j drawn below i instead of up to i, which yields every cyclic permutation
 * with equal probability and only those. */
static void sattolo(uint32_t *perm, uint64_t n, uint64_t seed)
{
    uint64_t st = seed;
    for (uint64_t i = 0; i < n; i++)
        perm[i] = (uint32_t)i;
    for (uint64_t i = n - 1; i > 0; i--) {
        uint64_t j = gb_rand_below(&st, i);
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* Chases `steps` steps from where the chase is: one launch, or, on a driver that stops a
 * work-item's loops (gb_device_info.max_loop_trips), as many launches as keep each within it
 * (kernels/latency.c runs steps / 4 iterations of four loads, then steps % 4 of one: at most
 * 4 * (limit - 3) steps stay within the limit). */
static int chase(struct gb_case_ctx *ctx, struct latency *s, uint64_t steps)
{
    const uint32_t limit = ctx->dev->info.max_loop_trips;
    const uint64_t most = limit > 3 ? 4 * ((uint64_t)limit - 3) : 1;
    int err = 0;
    while (steps > 0 && !err) {
        const uint64_t now = limit && steps > most ? most : steps;
        struct gb_launch l = {.dims = 1, .global = {1, 1, 1}, .local = {1, 1, 1}, .nargs = 3};
        l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->next};
        l.args[1] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->pos};
        l.args[2] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = now};
        err = ctx->ops->launch(ctx->q, s->k, &l);
        if (!err)
            s->steps += now;
        steps -= now;
    }
    return err;
}

static int latency_setup(struct gb_case_ctx *ctx)
{
    struct latency *s = ctx->state;
    const bool random = strcmp(gb_params_str(ctx->params, "pattern"), "random") == 0;
    const uint64_t size = gb_params_size(ctx->params, "size");
    const uint64_t stride = gb_params_size(ctx->params, "stride");
    if (stride % 4)
        return gb_case_skip(ctx, "stride %" PRIu64 " is not a multiple of 4 bytes", stride);
    s->slots = size / stride;
    s->epl = (uint32_t)(stride / 4);
    if (s->slots < 2)
        return gb_case_skip(ctx,
                            "a working set of %" PRIu64 " bytes holds fewer than 2 slots "
                            "of %" PRIu64 " bytes",
                            size, stride);
    const uint64_t bytes = s->slots * stride;
    if (bytes / 4 > UINT32_MAX)
        return gb_case_skip(ctx,
                            "a working set of %" PRIu64 " bytes has more elements than a "
                            "32-bit index reaches",
                            bytes);

    int err = gb__chip_build(ctx, "latency.cl", "latency_chase", NULL, 0, &s->prog, &s->k);
    if (err || (err = gb_case_alloc(ctx, bytes, GB_MEM_DEVICE, &s->next)) ||
        (err = gb_case_alloc(ctx, sizeof(uint32_t), GB_MEM_DEVICE, &s->pos)))
        return err;

    uint32_t *perm = malloc(s->slots * sizeof *perm);
    s->order = malloc(s->slots * sizeof *s->order);
    uint32_t *host = calloc(bytes / 4, sizeof *host);
    if (!perm || !s->order || !host) {
        free(perm);
        free(host);
        return GB_FAIL(GB_ENOMEM, "a chase of %" PRIu64 " slots", s->slots);
    }
    if (random) {
        sattolo(perm, s->slots, LATENCY_SEED ^ s->slots);
    } else {
        for (uint64_t i = 0; i < s->slots; i++)
            perm[i] = (uint32_t)((i + 1) % s->slots);
    }
    /* Following the cycle from slot 0 must visit every slot once before it comes back to 0. */
    uint32_t at = 0;
    uint64_t k = 0;
    do {
        s->order[k++] = at;
        host[(uint64_t)at * s->epl] = perm[at] * s->epl;
        at = perm[at];
    } while (at != 0 && k < s->slots);
    free(perm);
    if (k != s->slots || at != 0) {
        free(host);
        return GB_FAIL(GB_EINVAL, "the chase of %" PRIu64 " slots is not one cycle", s->slots);
    }
    err = gb_case_upload(ctx, s->next, host, bytes);
    free(host);
    const uint32_t start = 0;
    if (err || (err = gb_case_upload(ctx, s->pos, &start, sizeof start)))
        return err;

    /* One untimed lap, so the levels that can hold the set hold it before the first sample. */
    const uint64_t llc = ctx->dev->info.l2_bytes;
    if ((llc && bytes <= 4 * llc) || (!llc && bytes <= (UINT64_C(64) << 20))) {
        if ((err = chase(ctx, s, s->slots)) || (err = ctx->ops->queue_sync(ctx->q)))
            return err;
    }
    ctx->op.timer = GB_TIMER_DEVICE; /* bytes and flops 0: the metric is time per load */
    return 0;
}

static int latency_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    return chase(ctx, ctx->state, reps);
}

static int latency_verify(struct gb_case_ctx *ctx)
{
    struct latency *s = ctx->state;
    uint32_t got = 0;
    int err = gb_case_download(ctx, &got, s->pos, sizeof got);
    if (err)
        return err;
    const uint32_t want = s->order[s->steps % s->slots] * s->epl;
    ctx->max_error = 0;
    if (got != want)
        return gb_case_mismatch(ctx,
                                "after %" PRIu64 " steps the chase is at element %u, "
                                "expected %u (slot %" PRIu64 " of the cycle)",
                                s->steps, got, want, s->steps % s->slots);
    return 0;
}

static void latency_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct latency *s = ctx->state;
    gb_case_figure(ctx, "ns_per_load", "ns", op_time_s * 1e9);
    gb_case_figure(ctx, "slots", "", (double)s->slots);
}

static void latency_teardown(struct gb_case_ctx *ctx)
{
    struct latency *s = ctx->state;
    gb_case_free_buf(ctx, &s->next);
    gb_case_free_buf(ctx, &s->pos);
    gb_case_free_kernel(ctx, &s->k, &s->prog);
    free(s->order);
    s->order = NULL;
}

const struct gb_suite gb_suite_latency = {
    .name = "latency",
    .summary = "memory latency per dependent load (us; figure ns_per_load) by pointer chase over "
               "a working-set sweep: the staircase of the cache levels",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "pattern",
    .state_size = sizeof(struct latency),
    .setup = latency_setup,
    .run = latency_run,
    .verify = latency_verify,
    .teardown = latency_teardown,
    .figures = latency_figures,
};
