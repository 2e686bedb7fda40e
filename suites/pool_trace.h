/* gpubench — a training step's allocations, and a size-class caching pool to serve them (the
 * pool suite, suites/pool.c). Pure host code: no device; the tests check both directly.
 *
 * The trace. A seeded sequence of steps, each a list of allocation and free events in the order
 * a framework's caching allocator sees them during one training step of a transformer-shaped
 * network of `layers` layers (the pattern PyTorch's CUDA caching allocator documentation and
 * its memory snapshots show, "Understanding CUDA Memory Usage", pytorch.org, 2023):
 *   forward, per layer: the layer's input activation, its attention scores and its MLP hidden
 *     activation are allocated and kept for the backward pass (the few large activations:
 *     scores grow with the square of the sequence length), while the QKV projection and a few
 *     small statistics (layer-norm means, 4 to 64 KiB) are temporaries freed within the layer;
 *   the loss: a small buffer allocated and freed;
 *   backward, layers in reverse: the activation gradient and a temporary are allocated, the
 *     weight gradient is allocated and kept for the optimizer, and the layer's saved
 *     activations are freed, newest first (nested lifetimes: last in, first out);
 *   the optimizer: a temporary per weight gradient, then every weight gradient freed.
 * Each step draws its sequence length (the activations' sizes) from the seed, uniformly in
 * [1/2, 1] of the longest, as batches of variable-length text do: the sizes that change from
 * step to step are what fragments a pool. Sizes are multiples of 512 bytes; every allocation of
 * a step is freed within it. Sizes scale with `hidden` (bytes of one layer's input activation
 * at the longest sequence).
 *
 * The pool. A caching allocator of the kind frameworks use (PyTorch's, in its simplest form):
 * a request is rounded up to a size class, 2^k times 1, 1.25, 1.5 or 1.75 (four classes per
 * power of two, PyTorch's `roundup_power2_divisions: 4`), at least 512 bytes; a freed block goes
 * to its class's free list instead of back to the driver, and a request of that class takes it
 * from there; only when the list is empty does the pool ask the driver. Under a cap on reserved
 * bytes, a request that would exceed it first returns every cached block to the driver (as
 * PyTorch's allocator frees its cache and retries) and fails only if it still does not fit. The
 * pool keeps the books here; the caller does the driver calls the pool tells it to. */
#ifndef GB_SUITES_POOL_TRACE_H
#define GB_SUITES_POOL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One event of a step: allocation `id` of `bytes` (alloc true), or its free. Ids are distinct
 * within a step, 0 .. nids-1. */
struct gb_pool_event {
    uint32_t id;
    bool alloc;
    uint64_t bytes;
};

struct gb_pool_trace {
    struct gb_pool_event *ev; /* every step's events, step after step */
    size_t *step_start;       /* step s: ev[step_start[s] .. step_start[s + 1]) */
    size_t nsteps, nev;
    uint32_t nids;          /* the largest number of ids of a step */
    uint64_t peak_live_max; /* the largest bytes live at once in any step */
    uint64_t bytes_max;     /* the largest single allocation */
    uint64_t bytes_min;     /* the smallest */
};

/* Builds `nsteps` (1..1024) steps of a network of `layers` (1..1024) layers, activation size
 * `hidden` bytes (4 KiB .. 2^40), from `seed`. 0, GB_EINVAL (an argument out of range, with
 * the detail) or GB_ENOMEM; *t is then empty and gb_pool_trace_free is safe. */
int gb_pool_trace_build(struct gb_pool_trace *t, uint32_t layers, uint64_t hidden, uint32_t nsteps,
                        uint64_t seed);
void gb_pool_trace_free(struct gb_pool_trace *t);

/* The pool's size class of a request of `bytes` (> 0): the smallest 2^k x {1, 1.25, 1.5, 1.75}
 * at or above it, at least 512; bytes itself above 2^62. */
uint64_t gb_pool_class(uint64_t bytes);

/* A block the pool holds: a driver allocation (the caller's handle) of `bytes` (a class); an
 * empty slot has bytes 0. */
struct gb_pool_block {
    void *handle;
    uint64_t bytes;
    bool live;
};

/* The caching pool's books: blocks held (live or cached), and the bytes they come to. */
struct gb_caching_pool {
    struct gb_pool_block *b; /* indexed by the grants' `block`: a live block never moves */
    size_t n, cap;
    void **rel; /* the handles a grant asks the caller to release (cap of them) */
    uint64_t reserved, reserved_peak; /* bytes of every block held, and its largest value */
    uint64_t in_use, in_use_peak;     /* bytes requested of the live blocks, and the largest */
    uint64_t limit;                   /* reserved bytes at most (0: none) */
    uint64_t hits, misses, releases;  /* requests served from the cache, by the driver; blocks
                                       * given back under the cap */
    /* Test hook: hand out a live block of the class again when one exists (a pool that returns
     * overlapping blocks). Never set in a run. */
    bool bug_overlap;
};

/* What the caller must do for one request. */
struct gb_pool_grant {
    size_t block;    /* index of the block granted (valid unless `fail`) */
    bool need_new;   /* the driver must allocate block `block` (bytes: its class) */
    size_t nrelease; /* before that (and also when `fail`), give these cached blocks back to
                      * the driver: their handles in release[0..nrelease); the pool has
                      * forgotten them */
    void **release;
    bool fail; /* the request cannot be served under the limit */
};

/* Serves a request of `bytes` (> 0): from the class's cache, or a new block (after releasing
 * the cache when the limit requires). *g says what to do; on need_new the caller allocates and
 * stores the handle in p->b[g->block].handle (or calls gb_pool_forget on failure). GB_ENOMEM
 * when the books cannot grow. g->release stays valid until the next call. Blocks are searched
 * linearly: the pool is for a trace of hundreds of live blocks, not a production allocator. */
int gb_pool_get(struct gb_caching_pool *p, uint64_t bytes, struct gb_pool_grant *g);
/* A request of `requested` bytes served by block i is freed: the block goes to the cache. */
void gb_pool_put(struct gb_caching_pool *p, size_t i, uint64_t requested);
/* Block i, granted for `requested` bytes, never got its driver allocation (the caller's failed):
 * the pool forgets it. */
void gb_pool_forget(struct gb_caching_pool *p, size_t i, uint64_t requested);
/* Hands every block's handle to `release` (live or cached) and empties the books. */
void gb_pool_drain(struct gb_caching_pool *p, void (*release)(void *handle, void *arg), void *arg);
void gb_pool_free(struct gb_caching_pool *p);

/* What a cap on the bytes held from the driver does to one pass over a trace. */
struct gb_pool_cap_count {
    uint64_t allocs;     /* allocations in the pass */
    uint64_t failures;   /* of them, those that fail under the cap */
    uint64_t fragmented; /* of the failures, those the requested bytes live would have allowed */
    size_t first_step, first_event; /* the first failure: its step, its event within the step */
    uint64_t first_bytes;           /* and its size (all three 0 without a failure) */
};

/* Replays every step of t once, on the host, with the books the pool suite keeps under a cap of
 * `cap` bytes (> 0): the driver way holds the requested bytes live and fails a request that would
 * take them above the cap; the caching way (caching true) is the pool above with limit `cap`.
 * Every allocation of a step is freed within it, and whether a request fails depends only on what
 * is live when it comes (the caching pool gives its whole cache back before it fails), so the
 * count is that of every pass the suite makes, from any state the pool was left in. 0, GB_EINVAL
 * (cap 0) or GB_ENOMEM. */
int gb_pool_trace_under_cap(const struct gb_pool_trace *t, bool caching, uint64_t cap,
                            struct gb_pool_cap_count *c);

#endif
