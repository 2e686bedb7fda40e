/* The private state of the alloc suite (suites/alloc.c), shared with its tests only:
 * tests/test_memory_management.c plants an allocation never touched to prove that the check
 * catches it; tests/test_footprint.c reads what a case allocated. No other suite uses it: the
 * fill's pattern, which pool shares, is alloc_fill.h. */
#ifndef GB_SUITES_ALLOC_STATE_H
#define GB_SUITES_ALLOC_STATE_H

#include "run/suite.h"
#include "suites/alloc_fill.h"
#include "suites/common.h" /* struct gb_test_hook */

/* The host floor: plain C malloc (+ memset for first use), beside the backend's methods. */
#define ALLOC_HOST_FLOOR GB_ALLOC_NMETHODS
/* Operations in flight at once: the harness runs one per sample (op.max_batch 1); a caller
 * driving the suite by hand may ask for a few. */
#define ALLOC_MAX_LIVE 8

struct alloc {
    struct gb_test_hook hook; /* first: tests build the fill with GB_BREAK */
    unsigned method;          /* a gb_alloc_method, or ALLOC_HOST_FLOOR */
    bool free_op;             /* op free: the free is timed, the allocation prepared */
    bool touch;               /* touch first_use: the first write is part of what alloc counts */
    /* What the timed allocation path does: the first write when `touch` (the test plants a
     * path that skips it, while the check still expects it). */
    bool fill_in_run;
    bool stream_ordered; /* the method orders on the queue: its run waits for the queue */
    uint64_t size;
    uint64_t words; /* size / 4: the 32-bit words the first-use fill writes */
    struct gb_program *prog;
    struct gb_kernel *fill; /* kernels/alloc.cl alloc_fill, for device-kind first use */
    uint32_t wg;
    struct gb_buf *stage; /* pageable, size bytes: patterns are uploaded from and read back into
                           * it (`back` is its host pointer) */
    unsigned char *back;
    struct gb_buf *check; /* host-kind methods: the device buffer their bytes are copied to */
    /* The allocations between the timed call and their settle()/their timed free. */
    struct gb_buf *live[ALLOC_MAX_LIVE];
    void *live_host[ALLOC_MAX_LIVE]; /* the host floor's */
    uint32_t seeds[ALLOC_MAX_LIVE];  /* the pattern each was written with */
    size_t nlive;
    uint32_t next_seed; /* a new pattern for every allocation, so stale bytes never match */
    uint64_t checked;   /* allocations written and read back */
    bool bad;           /* a check failed: `why` says where; verify reports it */
    char why[512];
};

#endif
