/* allreduce — a multi-device suite (multi_common.h holds what those suites share): the sum of a
 * float buffer of `size` bytes across ndev devices, out of place (in stays, out receives the
 * sum, as nccl-tests' default). It is the collective suite's all-reduce (suites/collective.c,
 * through collective_engine.h) on the first ndev devices of the set, coll=allreduce
 * transport=devices dtype=f32 redop=sum inplace=false: a ring of n - 1 reduce-scatter steps in
 * which every device receives a chunk (1/n of the buffer) from its predecessor and adds it to its
 * own (kernels/collective.cl coll_reduce), then n - 1 all-gather steps that pass the reduced
 * chunks around (Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
 * workstations", JPDC 2009). Each step moves a chunk over the same path as `peer` would (direct
 * where every neighbour pair has peer access, else staged through pinned host memory in 4 MiB
 * pieces, reading one back while writing the previous), one host thread per device, the steps
 * separated by the team's barrier.
 * Figures, after nccl-tests (doc/PERFORMANCE.md): algbw = size / time (the headline, GB/s) and
 * busbw = algbw * 2 (n - 1) / n, the bandwidth each link sustained, comparable across n; and
 * the collective suite's time, busbw_factor, ranks, count, bytes and path. `size` is rounded
 * down to a whole number of floats when the plan is made (allreduce_normalize).
 * On one device the all-reduce is a copy of in to out (busbw 0): the 1-device baseline.
 * Verification: the collective suite's, every element of every device's out, exact.
 */
#include "suites/collective_engine.h"
#include "suites/common.h"
#include "suites/multi_common.h"

static const char *const ar_ops[] = {"sum", NULL};

static const struct gb_axis_def allreduce_axes[] = {
    GB_AXIS_STR("op", "sum", ar_ops, "the reduction: sum of floats"),
    GB_MULTI_NDEV_AXIS("devices in the ring"),
    GB_AXIS_SIZE("size", "{from: 64KiB, to: 64MiB, factor: 16}", 4, 0,
                 "bytes of the buffer reduced (floats)"),
};

/* A size that is not a whole number of floats is rounded down to one, as the collective suite
 * rounds it (collective_normalize): the case records the bytes it moves (7: 4) and merges with
 * the size that says so. */
static bool allreduce_normalize(struct gb_params *p)
{
    struct gb_value *size = gb_params_slot(p, "size");
    if (size && size->u.size >= sizeof(float))
        size->u.size -= size->u.size % sizeof(float);
    return true;
}

static int allreduce_setup(struct gb_case_ctx *ctx)
{
    struct coll *c = ctx->state;
    size_t n = 0;
    int err = gb_multi_ndev(ctx, &n);
    if (err)
        return err;
    c->op = GB_COLL_ALLREDUCE;
    c->dtype = GB_F32;
    c->redop = GB_COLL_SUM;
    c->inplace = false;
    c->root = 0;
    c->tr = TR_DEVICES;
    return gb_coll_setup(ctx, n, gb_params_size(ctx->params, "size"));
}

const struct gb_suite gb_suite_allreduce = {
    .name = "allreduce",
    .summary = "ring all-reduce (sum of floats) across devices: algbw and busbw (nccl-tests)",
    .axes = allreduce_axes,
    .naxes = sizeof allreduce_axes / sizeof allreduce_axes[0],
    .case_axis = "op",
    .state_size = sizeof(struct coll),
    .normalize = allreduce_normalize,
    .setup = allreduce_setup,
    .run = gb_multi_run,
    .verify = gb_coll_verify,
    .teardown = gb_coll_teardown,
    .flags = GB_SUITE_MULTI_DEVICE,
    .figures = gb_coll_figures,
};
