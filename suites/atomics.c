/* atomics — atomic add throughput on global and local memory for int32, int64 and float, with a
 * contention axis (kernels/atomics.cl).
 *
 * G = groups x wg work-items (groups 0: 8 per compute unit) each make `iters` atomic adds of 1:
 * `global` to counters[g mod A] in device memory, `local` to counter l mod A of its work-group's
 * local array (which the work-group then stores to device memory). `addresses` A: 1 puts every
 * work-item on one address (the most contention), 0 gives every work-item its own (global: G
 * counters; local: wg per work-group), values between spread the work-items round-robin over A
 * neighbouring counters. The metric is throughput in Gatomic/s (10^9 atomic adds per second,
 * op.flops = G x iters atomic adds per operation, op.rate_unit "Gatomic/s"; `Gatomics_per_s`
 * says it again by name, as results before the unit had it). Where the device lacks the type's atomics the case is a recorded skip with the
 * reason: int64 needs cl_khr_int64_base_atomics on OpenCL; float atomic add is measured on CUDA
 * only (OpenCL's cl_ext_float_atomics needs OpenCL C 2.0 atomics, not driven here).
 *
 * Verification, counts exact: every local operation leaves the same counts, so after the timed
 * runs each work-group's counter a must hold (work-items l < wg with l mod A = a) x iters. The
 * global counters accumulate over the runs: int32 and int64 must hold that count (over the
 * launch) times the operations run, modulo 2^32 or 2^64. Then the counters are zeroed, one more
 * operation is run and every counter is compared with its count exactly (float included, whose
 * counts up to 2^24 are exact; a case whose count per address would exceed 2^24 is skipped).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites/chip.h"
#include "suites/common.h"

static const char *const ops[] = {"global", "local", NULL};
static const char *const types[] = {"int32", "int64", "float", NULL};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("op", "[global, local]", ops,
                "atomics on device (global) or local (shared) memory"),
    GB_AXIS_STR("type", "[int32, int64, float]", types, "type of the counters"),
    GB_AXIS_INT("addresses", "[1, 64, 0]", 0, 1 << 26,
                "counters the work-items share round-robin; 1: all on one; 0: one per work-item"),
    GB_AXIS_INT("wg", "256", 1, 65536, "work-group (thread-block) size"),
    GB_AXIS_INT("groups", "0", 0, 1 << 24, "work-groups per launch; 0: 8 per compute unit"),
    GB_AXIS_INT("iters", "16", 1, 1 << 24, "atomic adds per work-item per operation"),
};

enum atype { T_I32, T_I64, T_F32 };

struct atomics {
    struct gb_test_hook hook;
    bool local;
    enum atype type;
    size_t esize;
    uint32_t wg, naddr, iters;
    uint64_t items, groups;
    uint64_t ops_done;       /* global: operations since the counters were zeroed */
    uint64_t counters_n;     /* elements of `counters` */
    struct gb_buf *counters; /* global: the counters; local: every group's stored counters */
    struct gb_program *prog;
    struct gb_kernel *k;
    struct gb_launch launch;
};

/* Work-items of [0, n) that land on counter a of A (round-robin): the count of one operation,
 * divided by iters. */
static uint64_t share(uint64_t n, uint64_t A, uint64_t a)
{
    return n / A + (a < n % A ? 1 : 0);
}

static int zero_counters(struct gb_case_ctx *ctx, struct atomics *s)
{
    void *z = calloc(s->counters_n, s->esize);
    if (!z)
        return GB_FAIL(GB_ENOMEM, "%" PRIu64 " counters", s->counters_n);
    int err = gb_case_upload(ctx, s->counters, z, s->counters_n * s->esize);
    free(z);
    s->ops_done = 0;
    return err;
}

/* Whether the device has the atomics of the case's type: atomics_caps of the same program. */
static int probe(struct gb_case_ctx *ctx, struct atomics *s, bool *ok)
{
    struct gb_kernel *caps = NULL;
    struct gb_buf *flag = NULL;
    uint32_t got = 0;
    int err = ctx->ops->kernel_get(s->prog, "atomics_caps", &caps);
    if (!err)
        err = gb_case_alloc(ctx, sizeof got, GB_MEM_DEVICE, &flag);
    if (!err) {
        struct gb_launch l = {.dims = 1, .global = {1, 1, 1}, .local = {1, 1, 1}, .nargs = 1};
        l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = flag};
        err = ctx->ops->launch(ctx->q, caps, &l);
    }
    if (!err)
        err = gb_case_download(ctx, &got, flag, sizeof got);
    *ok = got == 1;
    gb_case_free_buf(ctx, &flag);
    if (caps)
        ctx->ops->kernel_free(caps);
    return err;
}

static int atomics_setup(struct gb_case_ctx *ctx)
{
    struct atomics *s = ctx->state;
    const struct gb_device_info *info = &ctx->dev->info;
    const char *type = gb_params_str(ctx->params, "type");
    s->local = strcmp(gb_params_str(ctx->params, "op"), "local") == 0;
    s->type = strcmp(type, "int64") == 0 ? T_I64 : strcmp(type, "float") == 0 ? T_F32 : T_I32;
    s->esize = s->type == T_I64 ? 8 : 4;
    s->wg = (uint32_t)gb_params_int(ctx->params, "wg");
    s->iters = (uint32_t)gb_params_int(ctx->params, "iters");
    /* iters is what a work-item measures (kernels/atomics.cl: one loop of iters adds): past the
     * driver's loop limit the case skips. */
    int lerr = gb_case_loop_fits(ctx, s->iters, NULL, NULL);
    if (lerr)
        return lerr;
    const int64_t addresses = gb_params_int(ctx->params, "addresses");
again:;
    int err = gb__chip_items(ctx, &s->wg, &s->groups, &s->items);
    if (err)
        return err;
    const uint64_t span = s->local ? s->wg : s->items; /* the work-items that share counters */
    const uint64_t A = addresses ? (uint64_t)addresses : span;
    if (s->local && A > s->wg)
        return gb_case_skip(ctx,
                            "%" PRIu64 " local counters for a work-group of %u: at most one "
                            "per work-item",
                            A, s->wg);
    if (s->local && info->local_mem && A * s->esize > info->local_mem)
        return gb_case_skip(ctx, "%" PRIu64 " local counters exceed the device's local memory", A);
    s->naddr = (uint32_t)A;
    const uint64_t most = share(span, A, 0) * s->iters; /* the largest count of one operation */
    if (s->type == T_F32 && most > (UINT64_C(1) << 24))
        return gb_case_skip(ctx,
                            "%" PRIu64 " float adds of 1 on one address per operation: "
                            "counts above 2^24 are not exact in float",
                            most);

    char d_type[16], d_naddr[24];
    snprintf(d_type, sizeof d_type, "TYPE=%d", (int)s->type);
    snprintf(d_naddr, sizeof d_naddr, "NADDR=%u", s->local ? s->naddr : 1u);
    const char *defs[] = {d_type, d_naddr};
    if ((err = gb__chip_build(ctx, "atomics.cl", s->local ? "atomics_local" : "atomics_global",
                              defs, 2, &s->prog, &s->k)))
        return err;
    bool ok = false;
    if ((err = probe(ctx, s, &ok)))
        return err;
    if (!ok)
        return gb_case_skip(ctx, s->type == T_I64
                                     ? "the device has no 64-bit atomics "
                                       "(cl_khr_int64_base_atomics)"
                                     : "float atomic add is measured on CUDA only: OpenCL's "
                                       "cl_ext_float_atomics needs OpenCL C 2.0 atomics, which "
                                       "this suite does not drive");
    const uint32_t asked = s->wg;
    if ((err = gb__chip_kernel_wg(ctx, s->k, &s->wg)))
        return err;
    if (s->wg != asked) { /* fitted to the kernel: the counters and defines follow the size */
        gb_case_free_kernel(ctx, &s->k, &s->prog);
        goto again;
    }
    s->counters_n = s->local ? s->groups * s->naddr : s->naddr;
    if ((err = gb_case_alloc(ctx, s->counters_n * s->esize, GB_MEM_DEVICE, &s->counters)) ||
        (err = zero_counters(ctx, s)))
        return err;

    struct gb_launch *l = &s->launch;
    *l = (struct gb_launch){.dims = 1, .global = {s->items, 1, 1}, .local = {s->wg, 1, 1}};
    l->args[l->nargs++] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->counters};
    if (!s->local)
        l->args[l->nargs++] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = s->naddr};
    l->args[l->nargs++] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = s->iters};
    l->args[l->nargs++] = s->type == T_I64   ? (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = 1}
                          : s->type == T_F32 ? (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = 1.0f}
                                             : (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = 1};
    ctx->op.flops = (double)s->items * (double)s->iters;
    ctx->op.rate_unit = "Gatomic/s";
    ctx->op.timer = GB_TIMER_DEVICE;
    return 0;
}

static int atomics_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct atomics *s = ctx->state;
    int err = 0;
    for (uint64_t r = 0; r < reps && !err; r++)
        if (!(err = ctx->ops->launch(ctx->q, s->k, &s->launch)))
            s->ops_done++;
    return err;
}

/* Counter i as read back, as an unsigned 64-bit integer (float: its value, known integral). */
static uint64_t counter_at(const struct atomics *s, const void *buf, uint64_t i, double *fv)
{
    if (s->type == T_I64)
        return ((const uint64_t *)buf)[i];
    if (s->type == T_I32)
        return ((const uint32_t *)buf)[i];
    *fv = ((const float *)buf)[i];
    return 0;
}

/* Compares every counter read back with `nops` operations' worth of adds (modulo the type's
 * width; float: exactly, nops being 1). */
static int check(struct gb_case_ctx *ctx, struct atomics *s, uint64_t nops, const char *when)
{
    int err;
    void *got = gb_case_read_back(ctx, s->counters, s->counters_n * s->esize, &err);
    if (!got)
        return err;
    const uint64_t span = s->local ? s->wg : s->items;
    const uint64_t mask = s->type == T_I32 ? UINT32_MAX : UINT64_MAX;
    for (uint64_t i = 0; i < s->counters_n && !err; i++) {
        const uint64_t a = i % s->naddr;
        const uint64_t want = share(span, s->naddr, a) * s->iters * nops;
        double fv = 0;
        const uint64_t v = counter_at(s, got, i, &fv);
        const bool good = s->type == T_F32 ? fv == (double)want : v == (want & mask);
        if (!good) {
            char where[64] = "";
            if (s->local)
                snprintf(where, sizeof where, " of work-group %" PRIu64, i / s->naddr);
            if (s->type == T_F32)
                err = gb_case_mismatch(ctx, "%s: counter %" PRIu64 "%s is %.9g, expected %" PRIu64,
                                       when, a, where, fv, want);
            else
                err = gb_case_mismatch(ctx,
                                       "%s: counter %" PRIu64 "%s is %" PRIu64 ", expected %" PRIu64
                                       " (mod 2^%d)",
                                       when, a, where, v, want & mask, s->type == T_I32 ? 32 : 64);
        }
    }
    free(got);
    return err;
}

static int atomics_verify(struct gb_case_ctx *ctx)
{
    struct atomics *s = ctx->state;
    ctx->max_error = 0;
    int err = 0;
    if (s->local)
        return check(ctx, s, 1, "after the timed runs");
    if (s->type != T_F32) {
        char when[96];
        snprintf(when, sizeof when, "after %" PRIu64 " operations", s->ops_done);
        if ((err = check(ctx, s, s->ops_done, when)))
            return err;
    }
    /* One operation on zeroed counters, every count exact (float too). */
    if ((err = zero_counters(ctx, s)) || (err = atomics_run(ctx, 1)) ||
        (err = ctx->ops->queue_sync(ctx->q)))
        return err;
    return check(ctx, s, 1, "one operation on zeroed counters");
}

static void atomics_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct atomics *s = ctx->state;
    gb_case_figure(ctx, "Gatomics_per_s", "G/s", ctx->op.flops / op_time_s / 1e9);
    gb_case_figure(ctx, "addresses", "", (double)s->naddr);
    gb_case_figure(ctx, "work_items", "", (double)s->items);
}

static void atomics_teardown(struct gb_case_ctx *ctx)
{
    struct atomics *s = ctx->state;
    gb_case_free_buf(ctx, &s->counters);
    gb_case_free_kernel(ctx, &s->k, &s->prog);
}

const struct gb_suite gb_suite_atomics = {
    .name = "atomics",
    .summary = "atomic add throughput (10^9 adds/s) on global and local memory, int32 / int64 / "
               "float, one address against many",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "op",
    .state_size = sizeof(struct atomics),
    .setup = atomics_setup,
    .run = atomics_run,
    .verify = atomics_verify,
    .teardown = atomics_teardown,
    .figures = atomics_figures,
};
