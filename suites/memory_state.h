/* The private state of the memory suite (suites/memory.c), shared with its device tests
 * (tests/test_suites.c), which corrupt outputs to prove that verify catches it.
 * Nothing else may use it. */
#ifndef GB_SUITES_MEMORY_STATE_H
#define GB_SUITES_MEMORY_STATE_H

#include "run/suite.h"
#include "suites/common.h"

enum memory_op { OP_COPY, OP_MUL, OP_ADD, OP_TRIAD, OP_DOT };

struct memory {
    struct gb_test_hook
        hook; /* first: tests/test_broken_kernels.c builds broken kernels through it */
    enum memory_op op;
    bool dbl;
    size_t esize;
    uint64_t n;
    uint32_t wg;
    uint32_t vec; /* copy, mul, add, triad: elements per work-item (axis vec) */
    /* Axis offset, bytes (a multiple of esize, and of vec * esize): every array of the op
     * starts this far into its buffer, which holds off + n * esize bytes (sums and partial, the
     * dot's partial sums, have none). */
    uint64_t off;
    uint64_t groups; /* dot: values in sums that verify adds (tuned: 1, the total) */
    struct gb_buf *a, *b, *c, *sums;
    struct gb_program *prog;
    struct gb_kernel *k;
    struct gb_launch launch; /* the whole work-groups (dot: everything) */
    struct gb_launch tail;   /* the remainder as single work-items; global[0] 0 if none */
    /* dot with the tuned configuration (kernels/dot.cl): k is dot_partial (launch), k2 is
     * dot_final (launch2), which adds the partial sums into sums[0]. */
    bool tuned;
    struct gb_kernel *k2;
    struct gb_buf *partial;
    struct gb_launch launch2;
    double tol_depth; /* tuned: the summation depth dot_verify's bound uses */
    char config[96];  /* dot: the configuration that ran, "... (tuned)" / "... (default)" */
};

#endif
