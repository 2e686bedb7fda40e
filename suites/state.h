/* The private state of the transfer and memory suites, shared with their device tests (which
 * corrupt outputs to prove that verify catches it). Nothing else may use it. */
#ifndef GB_SUITES_STATE_H
#define GB_SUITES_STATE_H

#include "harness/suite.h"

enum transfer_op { OP_H2D, OP_D2H, OP_D2D, OP_BIDIR };

struct transfer {
    enum transfer_op op;
    bool blocking;
    uint64_t size;
    struct gb_buf *src, *dst;       /* the copy (bidir: the H2D half) */
    struct gb_buf *src2, *dst2;     /* bidir: the D2H half */
    struct gb_queue *q2;            /* bidir: the second queue */
    unsigned char *pattern;         /* what the source holds */
};

enum memory_op { OP_COPY, OP_MUL, OP_ADD, OP_TRIAD, OP_DOT };

struct memory {
    enum memory_op op;
    bool dbl;
    size_t esize;
    uint64_t n;
    uint32_t wg;
    uint64_t groups;         /* dot: work-groups, = partial sums */
    struct gb_buf *a, *b, *c, *sums;
    struct gb_program *prog;
    struct gb_kernel *k;
    struct gb_launch launch; /* the whole work-groups (dot: everything) */
    struct gb_launch tail;   /* the remainder as single work-items; global[0] 0 if none */
};

#endif
