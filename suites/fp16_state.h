/* The private state of the fp16 suite (suites/fp16.c), shared with its device tests
 * (tests/test_precision_suites.c), which corrupt outputs to prove that verify catches it.
 * Nothing else may use it. */
#ifndef GB_SUITES_FP16_STATE_H
#define GB_SUITES_FP16_STATE_H

#include "run/suite.h"
#include "suites/common.h"

struct fp16 {
    struct gb_test_hook
        hook; /* first: tests/test_broken_kernels.c builds broken kernels through it */
    bool triad;
    enum gb_dtype st; /* GB_F32, GB_F16, GB_BF16 */
    uint64_t n;
    uint32_t wg;
    double *b64, *c64; /* unrounded inputs */
    struct gb_buf *a, *b, *c;
    struct gb_program *prog;
    struct gb_kernel *k;
    struct gb_launch l, tail;
    double rms, tol;
};

#endif
