/* gpubench — helpers shared by the suites that need more of the harness than the suite contract
 * (the others, also in suites/common.c, are declared in harness/suite.h). */
#ifndef GB_SUITES_COMMON_H
#define GB_SUITES_COMMON_H

#include <stdbool.h>

#include "harness/suite.h"
#include "harness/tuning_cache.h"

/* When the case's profile entry says `tuned: true`, looks up kernel/problem on the case's device
 * in the entry's cache (the profile's tuning_cache, else the default location).
 * *found is false when the entry does not say tuned, or the cache has no such entry. Errors as
 * for gb_tuning_lookup. */
int gb_case_tuning_lookup(const struct gb_case_ctx *ctx, const char *kernel, const char *problem,
                          struct gb_tuning_entry *out, bool *found);

#endif
