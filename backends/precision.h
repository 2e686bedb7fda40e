/* gpubench — precision helpers: host conversions to half and bfloat16, error metrics against a
 * reference, theoretical peak arithmetic rates and the implausibility check, and the figures
 * derived across a run's results (speedup over FP32, fraction of peak).
 *
 * Everything here is a pure function, unit-tested without a device (tests/test_precision.c):
 * precision.c needs only the backend contract; the figures across a run's results are in
 * precision_derive.c. The suites compute, gemm and fp16 use it; so does the run summary's speed
 * x accuracy table (analyses/precision_table.h).
 */
#ifndef GB_PRECISION_H
#define GB_PRECISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"

/* ---- 16-bit formats on the host ----------------------------------------------------------- */

/* IEEE 754 binary16 bits of x, rounded once to nearest, ties to even (so that host emulation of
 * a half FMA computed exactly in double rounds exactly as the device does). Overflow gives
 * infinity, tiny values subnormals or zero, NaN a quiet NaN. */
uint16_t gb_f16_from_double(double x);
/* The value of binary16 bits h (exact). */
double gb_f16_to_double(uint16_t h);
/* bfloat16 bits (the top 16 bits of a binary32) of x, rounded once to nearest even. */
uint16_t gb_bf16_from_double(double x);
double gb_bf16_to_double(uint16_t h);
/* x rounded to TF32 (binary32 with 10 mantissa bits, NVIDIA tensor cores' FP32 input), nearest
 * even, as a double. */
double gb_tf32_round(double x);

/* Unit roundoff u = 2^-p of a format with p significand bits (Higham, "Accuracy and Stability
 * of Numerical Algorithms", 2nd ed., 2002, §2.1): f64 2^-53, f32 2^-24, f16 2^-11, bf16 2^-8,
 * f8e4m3 2^-4, f8e5m2 2^-3 (normal range). Integers: 0. */
double gb_unit_roundoff(enum gb_dtype t);

/* ---- error metrics -------------------------------------------------------------------------- */

/* Elementwise relative errors |got - ref| / scale, accumulated: the largest, and the root mean
 * square (sqrt of the mean of squares). `scale` is what the error is relative to: |ref| for an
 * elementwise result, sum_l |a_il| |b_lj| for a dot product or GEMM element (the quantity
 * rounding errors grow with, Higham §3.1; it keeps the figure meaningful where ref cancels to
 * near 0). A NaN or infinite `got`, or a non-zero error against a zero scale, is an infinite
 * error and is counted in `nonfinite`. */
struct gb_accuracy {
    uint64_t n;         /* elements compared */
    uint64_t nonfinite; /* elements with an infinite or NaN error */
    uint64_t worst;     /* index (as passed to add) of the largest error */
    double max_rel;     /* largest relative error (INFINITY when nonfinite > 0) */
    double sum_sq;      /* sum of squared finite relative errors */
    double worst_got, worst_ref;
};

void gb_accuracy_init(struct gb_accuracy *a);
/* Adds one element, at position `index` (reported back as `worst`). */
void gb_accuracy_add(struct gb_accuracy *a, uint64_t index, double got, double ref, double scale);
/* Root mean square relative error over the finite errors (INFINITY when any error was not
 * finite, 0 when nothing was added). */
double gb_accuracy_rms(const struct gb_accuracy *a);

/* First-order bound on the error of one GEMM element relative to sum_l |a_il||b_lj|, for inputs
 * rounded from exact (FP64) values to a format of unit roundoff u_in, a length-k dot product
 * accumulated in a format of unit roundoff u_acc (recursive summation: gamma_k = k u / (1 - k u),
 * Higham §3.1, eq. 3.5), and the result rounded to a format of unit roundoff u_out:
 *   2 u_in + gamma_k(u_acc) + u_out, plus the second-order terms bounded by doubling the first.
 * Any correct GEMM stays below it, so it is the default tolerance of the gemm suite. */
double gb_gemm_error_bound(uint64_t k, double u_in, double u_acc, double u_out);

/* ---- theoretical peaks and the implausibility check --------------------------------------- */

/* The arithmetic whose peak is asked for. Operations are counted as the suites count them: an
 * FMA is 2 floating-point operations (per lane), an integer multiply-add 2, a 4-way int8 dot
 * product with accumulate 8. */
enum gb_peak_op {
    GB_PEAK_F64,
    GB_PEAK_F32,
    GB_PEAK_TF32,      /* FP32 GEMM with TF32 tensor-core math (vector: as F32) */
    GB_PEAK_F16,       /* scalar or packed half (half2) FMA; on matrix units FP16 accumulation */
    GB_PEAK_BF16,      /* packed bfloat16 FMA */
    GB_PEAK_I32,       /* 32-bit integer multiply-add */
    GB_PEAK_INT8_DOT,  /* dp4a / 4x8-bit packed dot product */
    GB_PEAK_F16_ACC32, /* FP16 inputs, FP32 accumulation (GEMM "mixed"; vector: as F32) */
    GB_PEAK_F8,        /* FP8 (E4M3 / E5M2) inputs, FP32 accumulation: matrix units only */
};

/* Theoretical peak of `op` on the device described by `info`, in operations per second (FLOP/s
 * or OP/s): compute units x clock (the reported maximum, MHz) x operations per clock per
 * compute unit for the device's architecture. `matrix`: the most a GEMM may reach, the larger
 * of the vector units and the matrix units (tensor cores, AMD matrix cores) for that precision,
 * FP16-accumulate (GB_PEAK_F16) and FP32-accumulate (GB_PEAK_F16_ACC32) apart. The per-clock
 * rates come from the vendors' documents, each table row citing the datasheet figures it
 * reproduces (precision.c): NVIDIA's CUDA C++ Programming Guide ("Arithmetic Instructions"
 * throughput table) and the Volta, Turing, Ampere, Ada and Hopper whitepapers and datasheets
 * (dense tensor-core rates); AMD's CDNA 2/3 and RDNA 3 rates, taken at the family's highest
 * (AMD's OpenCL does not report the chip). CPUs: gb_cpu_peak_ops for the host's ISA
 * (gb_cpu_isa_host) and physical cores (gb_host_physical_cores, when fewer than the compute
 * units the driver reports), at the reported maximum clock, no extra factor. Where a family
 * varies the larger rate is taken: the result is an upper bound, which is what the
 * implausibility check needs. Returns 0 when the device, its architecture or its clock is
 * unknown; `how` (may be NULL) receives the formula used, or why there is none. */
double gb_peak_ops(const struct gb_device_info *info, enum gb_peak_op op, bool matrix, char *how,
                   size_t len);

/* The widest vector ISA of an x86 CPU, as the peak counts it. */
enum gb_cpu_isa {
    GB_ISA_SSE,      /* 128-bit, separate add and multiply: 8 FP32 flop/clk/core */
    GB_ISA_AVX,      /* 256-bit, no FMA: 16 */
    GB_ISA_AVX2_FMA, /* 256-bit, two FMA units: 32 */
    GB_ISA_AVX512,   /* 512-bit, two FMA units: 64 */
};

/* The host CPU's ISA (GCC's __builtin_cpu_supports; SSE elsewhere). */
enum gb_cpu_isa gb_cpu_isa_host(void);
/* "SSE", "AVX", "AVX2+FMA", "AVX-512". */
const char *gb_cpu_isa_name(enum gb_cpu_isa isa);

/* Peak operations per second of `op` on `cores` physical cores at `mhz` (the maximum clock) with
 * vector ISA `isa`, no other factor (Intel's and AMD's optimisation manuals: FP32 flop per clock
 * per core = lanes x FMA units x 2; SSE 4 lanes x (1 add + 1 multiply) = 8, AVX 8 x 2 = 16,
 * AVX2+FMA 8 x 2 x 2 = 32, AVX-512 16 x 2 x 2 = 64). FP64 half of FP32; FP16, BF16 and INT32 as
 * FP32 (converted to FP32, or 32-bit lanes), FP16 and BF16 twice that with AVX-512 FP16 / BF16
 * dot products; INT8 dot 4x FP32 (VNNI's 4 MACs per 32-bit lane; an upper bound without it).
 * 0 for unknown inputs. */
double gb_cpu_peak_ops(enum gb_cpu_isa isa, unsigned cores, unsigned mhz, enum gb_peak_op op);

/* Whether the device is a CPU: its type where the driver gave one (info->type), else by its
 * name and vendor (OpenCL CPU drivers such as PoCL and Intel's, never a device with a CUDA
 * architecture; a device read back from a results file has no type). Its compiler fills SIMD units only
 * through explicit vector types, which is why the compute suite widens its chains there. */
bool gb_device_is_cpu(const struct gb_device_info *info);

/* Relative slack of the implausibility check: timer resolution and clock boosts beyond the
 * reported maximum stay within it. */
#define GB_PLAUSIBLE_SLACK 1.05

/* Whether a measured rate `value` is above what the device can do: peak > 0 and value >
 * GB_PLAUSIBLE_SLACK * peak (same unit). NaN or infinite values are implausible; a peak of 0
 * (unknown) never flags. */
bool gb_rate_implausible(double value, double peak);

/* ---- across the results of a run (the suites' derive() hooks; precision_derive.c) ---------- */

struct gb_results;
struct gb_result;

/* For every ok result of `suite` in rs whose axis `axis` is not `base`: finds the ok result of
 * the same backend, device and other parameters with `axis` = `base` and adds the figure
 * "speedup_vs_<base>" (a ratio): the ratio of the values (rates: `by_time` false) or of the
 * median times per operation, base over this (`by_time` true: the same work per operation in
 * both, as the fp16 suite's element counts). Nothing is added where the base is missing. */
void gb_precision_speedups(struct gb_results *rs, const char *suite, const char *axis,
                           const char *base, bool by_time);

/* The theoretical peak of a result in its own unit (GFLOP/s), 0 when unknown; `how` gets the
 * formula. */
typedef double (*gb_peak_fn)(const struct gb_result *r, const struct gb_device_info *info,
                             char *how, size_t len);

/* For every ok result of `suite` in rs whose headline is not a bandwidth (GB/s: its bound is
 * the memory's, gb_result_check_bound): adds the figures "peak" (in the result's unit) and
 * "of_peak" (value / peak) where peak_of knows the peak (else the text figure "peak" says why
 * none is known), and flags the result implausible
 * (gb_rate_implausible), with the reason naming both figures and the formula, when it exceeds
 * the peak. */
void gb_precision_check_peaks(struct gb_results *rs, const char *suite, gb_peak_fn peak_of);

#endif
