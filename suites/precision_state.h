/* The private state of the compute, gemm and fp16 suites, shared with their device tests
 * (tests/test_precision_suites.c), which corrupt outputs to prove that verify catches it.
 * Nothing else may use it. */
#ifndef GB_SUITES_PRECISION_STATE_H
#define GB_SUITES_PRECISION_STATE_H

#include "harness/suite.h"

enum cprec { CP_F64, CP_F32, CP_F16, CP_HALF2, CP_BF16, CP_INT8DOT, CP_I32, CP_COUNT };

struct compute {
    enum cprec p;
    uint32_t vec, chains, iters, wg;
    uint64_t items;      /* work-items */
    uint64_t elems;      /* output elements: items x chains x vec x lanes */
    bool auto_vec;
    struct gb_buf *out;
    struct gb_program *prog;
    struct gb_kernel *k;
    struct gb_launch l;
};

enum gprec { GP_F64, GP_F32, GP_TF32, GP_F16, GP_MIXED, GP_BF16, GP_COUNT };

struct gemm {
    enum gprec p;
    bool own, ta, tb, wide;
    uint64_t m, n, k;
    double tol;
    double *a64, *b64;       /* the unrounded inputs, column-major as stored (lda = rows) */
    uint64_t lda, ldb;
    struct gb_buf *a, *b, *c;
    struct gb_gemm g;        /* library */
    struct gb_program *prog; /* own */
    struct gb_kernel *kern;
    struct gb_launch l;
    char config[64];
    double rms;
};

struct fp16 {
    bool triad;
    enum gb_dtype st;     /* GB_F32, GB_F16, GB_BF16 */
    uint64_t n;
    uint32_t wg;
    double *b64, *c64;    /* unrounded inputs */
    struct gb_buf *a, *b, *c;
    struct gb_program *prog;
    struct gb_kernel *k;
    struct gb_launch l, tail;
    double rms, tol;
};

#endif
