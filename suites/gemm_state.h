/* The private state of the gemm suite (suites/gemm.c) and its pure helpers, shared with its tests
 * only: tests/test_precision_suites.c and tests/test_broken_kernels.c corrupt outputs and build
 * broken kernels to prove that verify catches them; tests/test_gemm_fp8.c checks the helpers and
 * the FP8 figures. No other suite uses it: what conv and sparse share with gemm (its precisions,
 * the tolerance) is gemm_tolerance.h. */
#ifndef GB_SUITES_GEMM_STATE_H
#define GB_SUITES_GEMM_STATE_H

#include "run/suite.h"
#include "suites/common.h"
#include "suites/gemm_tolerance.h"

struct gemm {
    struct gb_test_hook
        hook; /* first: tests/test_broken_kernels.c builds broken kernels through it */
    enum gprec p;
    bool own, ta, tb, wide, sgn; /* sgn: dist signed */
    bool preset;                 /* the shape is a model preset's layer (figure dims) */
    /* The roofline (gb_gemm_memory_bound): below the ridge the headline is GB/s of `bytes`. */
    bool memory_bound;
    double bytes, peak; /* A, B and C once; the case's arithmetic peak (GFLOP/s, 0: unknown) */
    char roofline[64];
    uint64_t m, n, k;
    double tol;
    double *a64, *b64; /* the unrounded inputs, column-major as stored (lda = rows); for FP8
                        * the FP32 inputs (the draws rounded to float) */
    double *aq, *bq;   /* FP8 only: the inputs rounded to FP8 (what the device multiplies) */
    uint64_t lda, ldb;
    struct gb_buf *a, *b, *c;
    struct gb_gemm g;        /* library */
    struct gb_gemm_fp8 g8;   /* library, FP8 (cuBLASLt) */
    struct gb_program *prog; /* own */
    struct gb_kernel *kern;
    struct gb_launch l;
    char config[64];
    double rms;
    double quant_max, quant_rms; /* FP8: the inputs' rounding alone (see gemm_verify) */
    /* i8 (see gemm.c, "INT8"): the quantised inputs (int8, as stored), A's per-row and per-tensor
     * scales, B's per-tensor scale; the per-tensor quantisation's errors (host-computed) and the
     * largest bound / magnitude seen (figure tolerance). */
    int8_t *qa, *qb;
    double *sa;
    double sa_tensor, sb;
    double quant_tensor_max, quant_tensor_rms, quant_bound;
};

/* Element (i, j) of op(A) op(B), A and B column-major as stored with leading dimensions lda and
 * ldb (op: transposed when ta / tb; op(A) m x k, op(B) k x n, so the TN layout of the FP8
 * precisions reads A(l, i) = a[l + i lda] and B(l, j) = b[l + j ldb]): sum_l op(A)_il op(B)_lj
 * with the products and the sum in long double, and in *mag sum_l |op(A)_il op(B)_lj|, the
 * scale of the relative error (backends/precision.h). The gemm suite's reference; exposed for
 * tests/test_gemm_fp8.c. */
double gb__gemm_ref(const double *a, uint64_t lda, bool ta, const double *b, uint64_t ldb, bool tb,
                    uint64_t k, uint64_t i, uint64_t j, double *mag);

/* The FP8 cases' text figure error_reference: max_error and rms_error are the accumulation's and
 * output's, against the product of the FP8-rounded inputs; input_quant_max_error and
 * input_quant_rms_error that product's against the FP32 inputs' (it fits a figure's 63). */
#define GB__GEMM_FP8_ERRORS "max/rms_error vs FP8-rounded inputs; input_quant_*: FP8 vs FP32"

/* The i8 cases' text figure error_reference (it fits a figure's 63). */
#define GB__GEMM_I8_ERRORS "vs FP32 product: A scaled per row; quant_tensor_*: per tensor"

/* i8: symmetric quantisation of the n values x[0..n) (FP32 values held in doubles) with scale
 * `scale` (max |x| / 127; 0 when every x is 0): q[i] = round(x[i] / scale) to nearest, ties
 * away from zero, within [-127, 127]. Pure; exposed for tests. */
void gb__gemm_quantize(const double *x, uint64_t n, uint64_t stride, double scale, int8_t *q);

/* The FP8 precisions' inputs: each of the n values x[i] rounded to float (the FP32 input, into
 * x32[i]), then to FP8 format t (GB_F8E4M3 or GB_F8E5M2; nearest, ties to even, saturating:
 * base/fp8.h) into bytes[i], whose value goes to xq[i]. Pure; exposed for tests. */
void gb__gemm_fp8_quantize(const double *x, uint64_t n, enum gb_dtype t, uint8_t *bytes,
                           double *x32, double *xq);

#endif
