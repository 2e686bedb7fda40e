/* What the chip suites (latency, cache, local, atomics) share with their device tests, and
 * nothing else may use.
 *
 * Every state struct of these suites starts with a struct gb_test_hook (suites/common.h, the
 * hook tests/test_broken_kernels.c uses for the other suites too). The runner zeroes the state before
 * setup(), so in a run test_define is NULL; tests/test_chip.c sets it before setup() to build
 * the case's kernel with one more define (GB_BREAK, which each kernel file documents) and checks
 * that verify() rejects what the broken kernel computed. */
#ifndef GB_SUITES_CHIP_H
#define GB_SUITES_CHIP_H

#include "run/suite.h"
#include "suites/common.h"

/* Builds `kernel` of `file` like gb_case_build(), with the hook's test define (if any) after
 * `defines` (at most 7). */
int gb__chip_build(struct gb_case_ctx *ctx, const char *file, const char *kernel,
                   const char *const *defines, size_t ndefines, struct gb_program **prog,
                   struct gb_kernel **k);

/* Work-groups of a launch: `groups` when non-zero, else 8 per compute unit (enough resident
 * work-items to cover memory latency on a GPU; a CPU device runs work-groups in turn). */
uint64_t gb__chip_groups(const struct gb_case_ctx *ctx, int64_t groups);

/* The launch of work-groups of *wg work-items (the case's axis "wg"), fitted to the device's
 * maximum as gb_case_fit_wg() fits: a skip (GB_ESKIP, the reason in ctx) when a size the
 * profile gave exceeds it, a default size fitted (*wg updated); then *groups from the case's
 * "groups" param (gb__chip_groups) and *items = groups x wg, a skip when that passes the
 * kernels' 32-bit index. */
int gb__chip_items(struct gb_case_ctx *ctx, uint32_t *wg, uint64_t *groups, uint64_t *items);

/* Fits *wg (the case's axis "wg") to kernel k's own maximum as gb_case_fit_wg() does: 0 when k
 * runs work-groups of *wg, or when a default *wg was lowered to fit (the caller then sizes its
 * launch, defines and data again for the new *wg and rebuilds); GB_ESKIP (reason in ctx) when a
 * size the profile gave exceeds it; a backend error otherwise. */
int gb__chip_kernel_wg(struct gb_case_ctx *ctx, struct gb_kernel *k, uint32_t *wg);

#endif
