#include <string.h>

#include "run/suite.h"

extern const struct gb_suite gb_suite_transfer;
extern const struct gb_suite gb_suite_memory;
extern const struct gb_suite gb_suite_launch;
extern const struct gb_suite gb_suite_scaling;
extern const struct gb_suite gb_suite_aggregate;
extern const struct gb_suite gb_suite_peer;
extern const struct gb_suite gb_suite_peerbw;
extern const struct gb_suite gb_suite_allreduce;
extern const struct gb_suite gb_suite_balance;
extern const struct gb_suite gb_suite_compute;
extern const struct gb_suite gb_suite_gemm;
extern const struct gb_suite gb_suite_fp16;
extern const struct gb_suite gb_suite_tuning;
extern const struct gb_suite gb_suite_batching;
extern const struct gb_suite gb_suite_latency;
extern const struct gb_suite gb_suite_cache;
extern const struct gb_suite gb_suite_local;
extern const struct gb_suite gb_suite_atomics;

const struct gb_suite *const gb_suites[] = {
    &gb_suite_transfer,
    &gb_suite_memory,
    &gb_suite_launch,
    &gb_suite_scaling,
    &gb_suite_aggregate,
    &gb_suite_peer,
    &gb_suite_peerbw,
    &gb_suite_allreduce,
    &gb_suite_balance,
    &gb_suite_compute,
    &gb_suite_gemm,
    &gb_suite_fp16,
    &gb_suite_tuning,
    &gb_suite_batching,
    &gb_suite_latency,
    &gb_suite_cache,
    &gb_suite_local,
    &gb_suite_atomics,
    NULL,
};
const size_t gb_suite_count = sizeof gb_suites / sizeof gb_suites[0] - 1;

const struct gb_suite *gb_suite_find(const char *name)
{
    for (size_t i = 0; i < gb_suite_count; i++)
        if (strcmp(gb_suites[i]->name, name) == 0)
            return gb_suites[i];
    return NULL;
}

const struct gb_axis_def *gb_suite_axis(const struct gb_suite *s, const char *name)
{
    for (size_t i = 0; i < s->naxes; i++)
        if (strcmp(s->axes[i].name, name) == 0)
            return &s->axes[i];
    return NULL;
}
