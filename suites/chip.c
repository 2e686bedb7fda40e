/* Helpers of the chip suites (suites/chip.h). */
#include "suites/chip.h"

#include <inttypes.h>

#include "suites/common.h"

int gb__chip_build(struct gb_case_ctx *ctx, const char *file, const char *kernel,
                   const char *const *defines, size_t ndefines, struct gb_program **prog,
                   struct gb_kernel **k)
{
    const struct gb_test_hook *hook = ctx->state;
    const char *defs[8];
    if (ndefines > 7)
        return GB_FAIL(GB_EINVAL, "%s: %zu defines, at most 7", file, ndefines);
    for (size_t i = 0; i < ndefines; i++)
        defs[i] = defines[i];
    if (hook && hook->test_define)
        defs[ndefines++] = hook->test_define;
    return gb_case_build(ctx, file, kernel, defs, ndefines, prog, k);
}

int gb__chip_items(struct gb_case_ctx *ctx, uint32_t *wg, uint64_t *groups, uint64_t *items)
{
    int err = gb_case_fit_wg(ctx, "wg", wg, ctx->dev->info.max_wg_size, "the device maximum");
    if (err)
        return err;
    *groups = gb__chip_groups(ctx, gb_params_int(ctx->params, "groups"));
    *items = *groups * *wg;
    if (*items > UINT32_MAX)
        return gb_case_skip(ctx, "%" PRIu64 " work-items: the kernel's index is 32-bit", *items);
    return 0;
}

int gb__chip_kernel_wg(struct gb_case_ctx *ctx, struct gb_kernel *k, uint32_t *wg)
{
    uint32_t kmax = 0;
    int err = ctx->ops->kernel_max_wg(k, &kmax);
    if (err)
        return err;
    return gb_case_fit_wg(ctx, "wg", wg, kmax, "this kernel's maximum");
}

uint64_t gb__chip_groups(const struct gb_case_ctx *ctx, int64_t groups)
{
    if (groups > 0)
        return (uint64_t)groups;
    uint32_t cus = ctx->dev->info.compute_units;
    return 8 * (uint64_t)(cus ? cus : 1);
}
