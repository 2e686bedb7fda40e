/* The private state of the gemm suite (suites/gemm.c), shared with its device tests
 * (tests/test_precision_suites.c), which corrupt outputs to prove that verify catches it.
 * Nothing else may use it. */
#ifndef GB_SUITES_GEMM_STATE_H
#define GB_SUITES_GEMM_STATE_H

#include "harness/suite.h"
#include "suites/common.h"

enum gprec { GP_F64, GP_F32, GP_TF32, GP_F16, GP_MIXED, GP_BF16, GP_COUNT };

struct gemm {
    struct gb_test_hook hook; /* first: tests/test_verify.c builds broken kernels through it */
    enum gprec p;
    bool own, ta, tb, wide, sgn; /* sgn: dist signed */
    uint64_t m, n, k;
    double tol;
    double *a64, *b64; /* the unrounded inputs, column-major as stored (lda = rows) */
    uint64_t lda, ldb;
    struct gb_buf *a, *b, *c;
    struct gb_gemm g;        /* library */
    struct gb_program *prog; /* own */
    struct gb_kernel *kern;
    struct gb_launch l;
    char config[64];
    double rms;
};

/* The default tolerance of precision p at inner dimension k, relative to sum_l |a_il||b_lj|
 * (suites/gemm.c derives it); exposed for tests/test_verify.c. */
double gb__gemm_tolerance(enum gprec p, uint64_t k);

#endif
