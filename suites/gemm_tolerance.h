/* gpubench — the gemm suite's precisions and its accuracy tolerance, shared with the suites whose
 * outputs are sums of products checked against the same bound.
 *
 * Who may use it: suites/gemm.c, which defines gb__gemm_tolerance and keeps each precision's
 * formats (its table gp[]); suites/conv.c (an output element is a sum of up to k products) and
 * suites/sparse.c (an element is a sparse row of A times a column of B), which take the f32
 * tolerance at their longest sum; suites/parallel.c (its blocks' and layers' GEMMs);
 * suites/llm.c (its layers' products and attention, the f32 tolerance at the longest sum);
 * suites/burn.c (each dtype's product checked against the first product, at its precision's
 * tolerance); and these suites' tests. The gemm suite's state is gemm_state.h, which no other
 * suite uses.
 */
#ifndef GB_SUITES_GEMM_TOLERANCE_H
#define GB_SUITES_GEMM_TOLERANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The precisions of the gemm suite's axis `prec`: the formats of the inputs, the accumulation
 * and the output. */
enum gprec {
    GP_F64,    /* "f64": FP64 throughout */
    GP_F32,    /* "f32": FP32 throughout */
    GP_TF32,   /* "tf32": FP32 data on TF32 tensor cores (inputs rounded to TF32) */
    GP_F16,    /* "f16": FP16 throughout */
    GP_MIXED,  /* "mixed": FP16 in, FP32 accumulate and out */
    GP_BF16,   /* "bf16": BF16 in, FP32 accumulate and out */
    GP_F8E4M3, /* "f8e4m3": FP8 E4M3 A times E4M3 B, FP32 accumulate and out */
    GP_F8E5M2, /* "f8e5m2": FP8 E5M2 A times E4M3 B, FP32 accumulate and out */
    GP_I8,     /* "i8": FP32 inputs quantised to int8, int32 accumulate and out */
    GP_COUNT
};

/* The default tolerance of precision p at inner dimension k (a sum of k products), relative to
 * sum_l |a_il||b_lj|: the rigorous first-order bound of gb_gemm_error_bound
 * (backends/precision.h) for the precision's input, accumulation and output formats, for f32 and
 * f64 the smaller probabilistic bound of Higham and Mary where it is smaller (suites/gemm.c says
 * how). Pure. */
double gb__gemm_tolerance(enum gprec p, uint64_t k);

/* The check of an axis `tol` (gb_axis_def.check_float) of gemm and conv: a relative error
 * accepted, >= 0, where 0 stands for the precision's default bound; a negative tolerance is
 * refused at load time (it would read as the default and hide the typo). */
bool gb__gemm_tol_check(double value, char *why, size_t len);

#endif
