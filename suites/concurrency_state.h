/* The private state of the concurrency suite (suites/concurrency.c), shared with its device tests
 * (tests/test_concurrency.c), which plant broken kernels and unfair queues. Nothing else may use
 * it. */
#ifndef GB_SUITES_CONCURRENCY_STATE_H
#define GB_SUITES_CONCURRENCY_STATE_H

#include "run/suite.h"
#include "suites/common.h" /* struct gb_test_hook */

#define CONC_MAX_QUEUES 16

enum conc_kernel { CONC_TRIAD, CONC_CHAIN, CONC_TICK };

struct conc_queue {
    struct gb_queue *q;           /* queue 0 is ctx->q; the others the suite's own */
    struct gb_buf *a, *b, *c;     /* triad: a = b + s c; chain: a = out; tick: a = count */
    struct gb_event *start, *end; /* around each run's launches on this queue */
    double busy_s;                /* sum of end - start over every run (device clock) */
    uint64_t ops;                 /* launches this queue ran (tick's check) */
    struct gb_launch launch;      /* its kernel's launch, built in setup (run only enqueues) */
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
};

/* Jain's fairness index of x[0..n) (Jain, Chiu and Hawe, DEC-TR-301, 1984): (sum x)^2 /
 * (n sum x^2), in [1/n, 1] for non-negative x, 1 when all are equal; NAN for n 0 or all zero. */
double gb_conc_jain(const double *x, size_t n);

#endif
