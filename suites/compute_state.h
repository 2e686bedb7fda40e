/* The private state of the compute suite (suites/compute.c), shared with its device tests
 * (tests/test_precision_suites.c, tests/test_broken_kernels.c), which corrupt outputs to prove
 * that verify catches it. Nothing else may use it. */
#ifndef GB_SUITES_COMPUTE_STATE_H
#define GB_SUITES_COMPUTE_STATE_H

#include "run/suite.h"
#include "suites/common.h"

enum cprec { CP_F64, CP_F32, CP_F16, CP_HALF2, CP_BF16, CP_INT8DOT, CP_I32, CP_COUNT };

struct compute {
    struct gb_test_hook
        hook; /* first: tests/test_broken_kernels.c builds broken kernels through it */
    enum cprec p;
    uint32_t vec, chains, iters, wg;
    uint64_t items; /* work-items */
    uint64_t elems; /* output elements: items x chains x vec x lanes */
    bool auto_vec;
    struct gb_buf *out;
    struct gb_program *prog;
    struct gb_kernel *k;
    struct gb_launch l;
};

#endif
