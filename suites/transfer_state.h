/* The private state of the transfer suite (suites/transfer.c), shared with its device tests
 * (tests/test_suites.c), which corrupt outputs to prove that verify catches it.
 * Nothing else may use it. */
#ifndef GB_SUITES_TRANSFER_STATE_H
#define GB_SUITES_TRANSFER_STATE_H

#include "run/suite.h"

enum transfer_op { OP_H2D, OP_D2H, OP_D2D, OP_BIDIR };

struct transfer {
    enum transfer_op op;
    bool blocking;
    uint64_t size;
    /* Axis offset: the copy starts src_off bytes into its source buffer and dst_off bytes into
     * its destination (bidir: the same for the D2H half's source and destination); each buffer
     * holds size + its offset, the bytes before the offset never copied. */
    uint64_t src_off, dst_off;
    struct gb_buf *src, *dst;   /* the copy (bidir: the H2D half) */
    struct gb_buf *src2, *dst2; /* bidir: the D2H half */
    struct gb_queue *q2;        /* bidir: the second queue */
    unsigned char *pattern;     /* what the source holds */
};

#endif
