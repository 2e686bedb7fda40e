/* local — local (shared) memory bandwidth: reads and writes, vector widths, and a stride axis
 * that shows bank conflicts (kernels/local.cl).
 *
 * G = groups x wg work-items (groups 0: 8 per compute unit); each work-group owns an array of
 * `local` bytes in local memory, and each work-item makes `iters` accesses of `vec` unsigned ints
 * to it, at step j the vector (l x stride + j) mod (array length) for work-item l: stride 1 is
 * conflict-free, a stride sharing a factor with the bank count (32 on NVIDIA and AMD GPUs)
 * serialises the accesses of a warp up to 32-way, an odd stride is conflict-free again.
 * iters = `bytes` / (G x vec x 4), so one operation moves about `bytes` bytes.
 * GB/s = G x iters x vec x 4 / time / 1e9: the accesses of the timed loop only. Each launch also
 * fills (read) or zeroes and sums (write) the array once per work-group, a few KiB against the
 * loop's `bytes`, and stores one word per work-item to global memory; neither is counted.
 * On a CPU device local memory is a block of ordinary cached memory: compare with the cache
 * suite's first level.
 *
 * Verification: every work-item's wrapping sum is exact. read: the host sums what each of the
 * wg work-item positions reads (the same in every work-group) and compares all G sums. write:
 * the host works out which vectors the stores reached (every one, unless iters is short) and
 * what each work-item's final sum over its share of the array must be, and compares all G.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites/chip.h"
#include "suites/common.h"

static const char *const ops[] = {"read", "write", NULL};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("op", "[read, write]", ops, "read or write local memory"),
    GB_AXIS_INT("vec", "[1, 4]", 1, 4, "unsigned ints per access: 1, 2 or 4 (4, 8 or 16 bytes)"),
    GB_AXIS_INT("stride", "[1, 2, 4, 8, 16, 32, 33]", 1, 1 << 16,
                "vectors between the addresses of neighbouring work-items"),
    GB_AXIS_INT("wg", "256", 1, 65536, "work-group (thread-block) size"),
    GB_AXIS_SIZE("local", "16KiB", 4, 1 << 30,
                 "bytes of each work-group's local array (a power of two)"),
    GB_AXIS_INT("groups", "0", 0, 1 << 24, "work-groups per launch; 0: 8 per compute unit"),
    GB_AXIS_SIZE("bytes", "1GiB", 1, 0,
                 "bytes accessed per operation (rounded to whole accesses per work-item)"),
};

struct local {
    struct gb_test_hook hook;
    bool write;
    uint32_t vec, wg, stride, ln, iters;
    uint64_t items;
    uint32_t *want; /* want[l]: the sum of work-item position l of every work-group */
    struct gb_buf *out;
    struct gb_program *prog;
    struct gb_kernel *k;
    struct gb_launch launch;
};

static bool pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

/* The sums every work-group's work-items must store (see the top of kernels/local.cl). */
static int local_expect(struct local *s)
{
    const uint32_t mask = s->ln - 1, vec = s->vec;
    s->want = calloc(s->wg, sizeof *s->want);
    if (!s->want)
        return GB_FAIL(GB_ENOMEM, "%u sums", s->wg);
    if (!s->write) {
        for (uint32_t l = 0; l < s->wg; l++) {
            uint32_t sum = 0, base = l * s->stride;
            for (uint32_t j = 0; j < s->iters; j++) {
                uint32_t e = (base + j) & mask;
                for (uint32_t k = 0; k < vec; k++)
                    sum += e * vec + k;
            }
            s->want[l] = sum;
        }
        return 0;
    }
    unsigned char *hit = calloc(s->ln, 1);
    if (!hit)
        return GB_FAIL(GB_ENOMEM, "%u flags", s->ln);
    const uint32_t reach = s->iters < s->ln ? s->iters : s->ln; /* further j repeat these */
    for (uint32_t l = 0; l < s->wg; l++)
        for (uint32_t j = 0; j < reach; j++)
            hit[(l * s->stride + j) & mask] = 1;
    for (uint32_t e = 0; e < s->ln; e++)
        if (hit[e])
            for (uint32_t k = 0; k < vec; k++)
                s->want[e % s->wg] += e * vec + k + 1;
    free(hit);
    return 0;
}

static int local_setup(struct gb_case_ctx *ctx)
{
    struct local *s = ctx->state;
    const struct gb_device_info *info = &ctx->dev->info;
    s->write = strcmp(gb_params_str(ctx->params, "op"), "write") == 0;
    s->vec = (uint32_t)gb_params_int(ctx->params, "vec");
    s->stride = (uint32_t)gb_params_int(ctx->params, "stride");
    s->wg = (uint32_t)gb_params_int(ctx->params, "wg");
    const uint64_t lbytes = gb_params_size(ctx->params, "local");
    const uint64_t bytes = gb_params_size(ctx->params, "bytes");
    const uint64_t vbytes = 4 * (uint64_t)s->vec;
    if (s->vec == 3)
        return gb_case_skip(ctx, "vec must be 1, 2 or 4");
    if (!pow2(lbytes) || lbytes < vbytes)
        return gb_case_skip(ctx,
                            "the local array of %" PRIu64 " bytes is not a power of two of "
                            "at least one vector",
                            lbytes);
    if (info->local_mem && lbytes > info->local_mem)
        return gb_case_skip(ctx,
                            "a local array of %" PRIu64 " bytes exceeds the device's %" PRIu64
                            " bytes of local memory",
                            lbytes, info->local_mem);
again:;
    uint64_t groups;
    int err = gb__chip_items(ctx, &s->wg, &groups, &s->items);
    if (err)
        return err;
    s->ln = (uint32_t)(lbytes / vbytes);
    /* One work-item fills its share of the array (ceil(LN / WG) iterations), makes its `iters`
     * accesses and, writing, sums its share back. On a driver that stops a work-item's loops,
     * work-groups the suite chose (groups 0) double until that stays within its limit; groups
     * the profile gave are a skip there. */
    const uint64_t share = ((uint64_t)s->ln + s->wg - 1) / s->wg * (s->write ? 2 : 1);
    const uint32_t limit = info->max_loop_trips;
    uint64_t iters = bytes / (s->items * vbytes);
    while (limit && share + iters > limit && gb_params_int(ctx->params, "groups") == 0 &&
           s->items * 2 <= UINT32_MAX && iters > 1) {
        s->items *= 2;
        iters = bytes / (s->items * vbytes);
    }
    if (iters == 0)
        iters = 1;
    if ((err = gb_case_loop_fits(ctx, share + iters, NULL, NULL)))
        return err;
    if (iters > UINT32_MAX)
        return gb_case_skip(ctx,
                            "%" PRIu64 " accesses per work-item overflow the kernel's "
                            "count",
                            iters);
    s->iters = (uint32_t)iters;

    char d_vec[16], d_wg[16], d_ln[24], d_stride[24];
    snprintf(d_vec, sizeof d_vec, "VEC=%u", s->vec);
    snprintf(d_wg, sizeof d_wg, "WG=%u", s->wg);
    snprintf(d_ln, sizeof d_ln, "LN=%u", s->ln);
    snprintf(d_stride, sizeof d_stride, "STRIDE=%u", s->stride);
    const char *defs[] = {d_vec, d_wg, d_ln, d_stride};
    if ((err = gb__chip_build(ctx, "local.cl", s->write ? "local_write" : "local_read", defs, 4,
                              &s->prog, &s->k)))
        return err;
    const uint32_t asked = s->wg;
    if ((err = gb__chip_kernel_wg(ctx, s->k, &s->wg)))
        return err;
    if (s->wg != asked) { /* fitted to the kernel: WG is a define, the work-items follow it */
        gb_case_free_kernel(ctx, &s->k, &s->prog);
        goto again;
    }
    if ((err = gb_case_alloc(ctx, s->items * sizeof(uint32_t), GB_MEM_DEVICE, &s->out)) ||
        (err = gb_case_poison(ctx, s->out, s->items * sizeof(uint32_t), GB_I32)) ||
        (err = local_expect(s)))
        return err;
    s->launch = (struct gb_launch){
        .dims = 1, .global = {s->items, 1, 1}, .local = {s->wg, 1, 1}, .nargs = 2};
    s->launch.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->out};
    s->launch.args[1] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = s->iters};
    ctx->op.bytes = (double)s->items * (double)s->iters * (double)vbytes;
    ctx->op.timer = GB_TIMER_DEVICE;
    return 0;
}

static int local_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct local *s = ctx->state;
    return gb_case_launch_reps(ctx, s->k, &s->launch, NULL, reps);
}

static int local_verify(struct gb_case_ctx *ctx)
{
    struct local *s = ctx->state;
    int err;
    uint32_t *got = gb_case_read_back(ctx, s->out, s->items * sizeof(uint32_t), &err);
    if (!got)
        return err;
    ctx->max_error = 0;
    for (uint64_t g = 0; g < s->items && !err; g++)
        if (got[g] != s->want[g % s->wg])
            err = gb_case_mismatch(ctx,
                                   "work-item %" PRIu64 " (work-group %" PRIu64 ", position "
                                   "%" PRIu64 ") summed %u, expected %u",
                                   g, g / s->wg, g % s->wg, got[g], s->want[g % s->wg]);
    free(got);
    return err;
}

static void local_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct local *s = ctx->state;
    gb_case_figure(ctx, "work_items", "", (double)s->items);
    gb_case_figure(ctx, "accesses_per_item", "", (double)s->iters);
}

static void local_teardown(struct gb_case_ctx *ctx)
{
    struct local *s = ctx->state;
    gb_case_free_buf(ctx, &s->out);
    gb_case_free_kernel(ctx, &s->k, &s->prog);
    free(s->want);
    s->want = NULL;
}

const struct gb_suite gb_suite_local = {
    .name = "local",
    .summary = "local (shared) memory bandwidth (GB/s): reads and writes, vector widths, a stride "
               "axis for bank conflicts",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "op",
    .state_size = sizeof(struct local),
    .setup = local_setup,
    .run = local_run,
    .verify = local_verify,
    .teardown = local_teardown,
    .figures = local_figures,
};
