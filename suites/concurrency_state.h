/* The private state of the concurrency suite (suites/concurrency.c), shared with its device tests
 * (tests/test_concurrency.c), which plant broken kernels and unfair queues. Nothing else may use
 * it. */
#ifndef GB_SUITES_CONCURRENCY_STATE_H
#define GB_SUITES_CONCURRENCY_STATE_H

#include "run/suite.h"
#include "suites/common.h" /* struct gb_test_hook */

#define CONC_MAX_QUEUES 16

enum conc_kernel { CONC_TRIAD, CONC_CHAIN, CONC_TICK, CONC_PRIORITY };

/* priority: small launches per window (one sample), and fill launches kept queued on each
 * low-priority queue (concurrency.c says how). */
#define CONC_PRIO_WINDOW 100
#define CONC_PRIO_RING 3
/* priority: windows on the default-priority queue, at most (as many as the high queue's kept
 * samples; at least CONC_PRIO_MIN_DEFAULT). */
#define CONC_PRIO_MAX_DEFAULT 32
#define CONC_PRIO_MIN_DEFAULT 3

/* A growing list of latencies, microseconds. */
struct conc_lat {
    double *v;
    size_t n, cap;
};

struct conc_queue {
    struct gb_queue *q;           /* queue 0 is ctx->q; the others the suite's own */
    struct gb_buf *a, *b, *c;     /* triad: a = b + s c; chain: a = out; tick: a = count */
    struct gb_event *start, *end; /* around each run's launches on this queue */
    double busy_s;                /* sum of end - start over every run (device clock) */
    uint64_t ops;                 /* launches this queue ran (tick's check) */
    struct gb_launch launch;      /* its kernel's launch, built in setup (run only enqueues) */
    /* priority, fill queues: the events recorded after the fill launches still queued, oldest
     * at ring_head; ring_n of them. */
    struct gb_event *ring[CONC_PRIO_RING];
    uint32_t ring_head, ring_n;
};

struct conc {
    struct gb_test_hook hook; /* first: tests build the kernels with GB_BREAK */
    enum conc_kernel kernel;
    uint32_t nq;
    uint64_t n;     /* elements (triad) or work-items (chain) per queue */
    uint32_t iters; /* chain: steps per work-item */
    uint32_t wg;
    bool events; /* the device's event timer is trusted: per-queue figures */
    struct gb_program *prog;
    struct gb_kernel *k;
    struct conc_queue qs[CONC_MAX_QUEUES];
    /* priority: qs[0] (ctx->q, default priority) holds the small kernel's counter for the
     * default and idle windows, qs[1..nq) are the low-priority fill queues (k: the chain), and
     * `hi` is the high-priority queue with a counter of its own. */
    struct gb_kernel *tick;  /* the small kernel, from prog */
    struct gb_queue *hi;     /* high priority (queue_create_priority) */
    struct gb_buf *hi_count; /* its tick counter */
    uint64_t hi_ops;         /* small launches on hi */
    struct gb_launch tick_hi, tick_def;
    double win[CONC_PRIO_WINDOW];    /* the last window's latencies (us, launch_timed) */
    struct conc_lat hi_lat, def_lat; /* every latency of the kept windows / default windows */
    struct conc_lat idle_lat;        /* the small kernel alone, one window */
    struct conc_lat hi_p99;          /* each kept window's p99: the headline */
};

/* The p50 and p99 of v[0..n) (n >= 1), by linear interpolation between order statistics (R type
 * 7, gb_percentile_sorted); sorts v in place. NAN for both when n is 0. */
void gb_conc_p50_p99(double *v, size_t n, double *p50, double *p99);

/* Jain's fairness index of x[0..n) (Jain, Chiu and Hawe, DEC-TR-301, 1984): (sum x)^2 /
 * (n sum x^2), in [1/n, 1] for non-negative x, 1 when all are equal; NAN for n 0 or all zero. */
double gb_conc_jain(const double *x, size_t n);

#endif
