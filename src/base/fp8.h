/* gpubench — FP8 on the host: the two 8-bit floating-point formats of OCP's "OCP 8-bit Floating
 * Point Specification (OFP8)" 1.0 (2023), which NVIDIA's sm_89+ tensor cores and cuBLASLt take as
 * CUDA_R_8F_E4M3 and CUDA_R_8F_E5M2 (cuda_fp8.h: __nv_fp8_e4m3, __nv_fp8_e5m2).
 *
 * E4M3 ("FN"): sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinities; S.1111.111 is NaN;
 * largest finite 448; smallest subnormal 2^-9. E5M2: sign, 5 exponent bits (bias 15), 2 mantissa
 * bits, IEEE-like: S.11111.00 is infinity, S.11111.xx (xx != 0) NaN; largest finite 57344;
 * smallest subnormal 2^-16. Pure functions. */
#ifndef GB_BASE_FP8_H
#define GB_BASE_FP8_H

#include <stdint.h>

/* The value of an FP8 pattern (exact in a float). */
float gb_fp8_e4m3_to_float(uint8_t v);
float gb_fp8_e5m2_to_float(uint8_t v);

/* The FP8 pattern nearest to f, ties to even (the rounding of cuda_fp8.h's conversions).
 * Finite values beyond the largest finite saturate to it, sign kept (__NV_SATFINITE); NaN gives
 * the NaN pattern 0x7F (sign kept); infinity gives E5M2's infinity and E4M3's largest finite. */
uint8_t gb_fp8_e4m3_from_float(float f);
uint8_t gb_fp8_e5m2_from_float(float f);

#endif
