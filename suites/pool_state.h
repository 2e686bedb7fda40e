/* The private state of the pool suite (suites/pool.c), shared with its device tests
 * (tests/test_memory_management.c), which plant a pool that returns overlapping blocks. Nothing
 * else may use it. */
#ifndef GB_SUITES_POOL_STATE_H
#define GB_SUITES_POOL_STATE_H

#include "run/suite.h"
#include "suites/common.h" /* struct gb_test_hook */
#include "suites/pool_trace.h"

/* Steps in the trace, replayed in turn: a sample's batch of reps replays the next reps. */
#define POOL_STEPS 8

enum pool_way { WAY_DRIVER, WAY_BACKEND_POOL, WAY_CACHING };

/* What one id of the step holds while it lives. */
struct pool_slot {
    struct gb_buf *buf; /* NULL: not live, or its allocation failed under the cap */
    size_t block;       /* caching: the pool's block */
    uint64_t bytes;     /* requested */
    uint32_t seed;      /* checked replays: the pattern its first write wrote */
};

struct pool {
    struct gb_test_hook hook; /* first: the fill may be built with GB_BREAK */
    enum pool_way way;
    uint64_t cap; /* bytes the way may hold from the driver at once (0: no cap) */
    struct gb_pool_trace trace;
    size_t next_step;
    struct pool_slot *slot; /* trace.nids */
    struct gb_caching_pool cache;
    uint64_t live, live_peak; /* requested bytes live (every way), and the largest */
    uint64_t held, held_peak; /* bytes held from the driver (driver way: = live) */
    struct gb_program *prog;
    struct gb_kernel *fill; /* kernels/alloc.cl alloc_fill: each block's first write */
    uint32_t fill_wg;       /* its work-group size: 64, or what the device and kernel allow */
    struct gb_buf *probe;   /* checked replays: 128 bytes read back per block */
    unsigned char *probe_host;
    uint64_t steps_run, driver_allocs; /* every replayed step; the driver (or pool) allocations */
    /* A replay with checks (verify's): every block's first and last 64 bytes read back before
     * its free against the pattern its id wrote; the cap's failures counted. */
    bool checking;
    bool bad;
    char why[512];
    uint64_t cap_failures, cap_failures_fragmented; /* in the checked pass */
    char first_failure[64];
};

#endif
