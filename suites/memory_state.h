/* The private state of the memory suite (suites/memory.c), shared with its device tests
 * (tests/test_suites.c), which corrupt outputs to prove that verify catches it.
 * Nothing else may use it. */
#ifndef GB_SUITES_MEMORY_STATE_H
#define GB_SUITES_MEMORY_STATE_H

#include "harness/suite.h"
#include "suites/common.h"

enum memory_op { OP_COPY, OP_MUL, OP_ADD, OP_TRIAD, OP_DOT };

struct memory {
    struct gb_test_hook hook; /* first: tests/test_verify.c builds broken kernels through it */
    enum memory_op op;
    bool dbl;
    size_t esize;
    uint64_t n;
    uint32_t wg;
    uint64_t groups; /* dot: work-groups, = partial sums */
    struct gb_buf *a, *b, *c, *sums;
    struct gb_program *prog;
    struct gb_kernel *k;
    struct gb_launch launch; /* the whole work-groups (dot: everything) */
    struct gb_launch tail;   /* the remainder as single work-items; global[0] 0 if none */
};

#endif
