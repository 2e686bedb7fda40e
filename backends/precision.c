/* gpubench — precision helpers (contract in precision.h). */
#include "backends/precision.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* ---- 16-bit formats ------------------------------------------------------------------------- */

/* Rounds |x| (finite, >= 0) to a binary format with `mant` stored mantissa bits, minimum normal
 * exponent `emin` and maximum finite value `max`, nearest even, once. Returns the rounded value
 * as a double (exact), INFINITY on overflow. */
static double round_format(double ax, int mant, int emin, double max)
{
    if (ax == 0.0)
        return 0.0;
    int e;
    frexp(ax, &e); /* ax = f * 2^e, f in [0.5, 1): the leading bit is 2^(e-1) */
    int lead = e - 1;
    if (lead < emin)
        lead = emin; /* subnormals share the smallest normal's spacing */
    const double quantum = ldexp(1.0, lead - mant);
    /* ax / quantum is exact (a power-of-two scaling); rint rounds to nearest even in the
     * default rounding mode, which is the one rounding. */
    const double r = rint(ax / quantum) * quantum;
    /* A value that rounds above the largest finite one overflows (round to nearest: anything at
     * or above max + half an ulp of max). */
    return r > max ? INFINITY : r;
}

uint16_t gb_f16_from_double(double x)
{
    const uint16_t sign = signbit(x) ? 0x8000u : 0;
    if (isnan(x))
        return 0x7e00u;
    const double r = isinf(x) ? INFINITY : round_format(fabs(x), 10, -14, 65504.0);
    if (isinf(r))
        return sign | 0x7c00u;
    if (r == 0.0)
        return sign;
    int e;
    const double f = frexp(r, &e); /* r = f * 2^e */
    if (e - 1 < -14)               /* subnormal: r = m * 2^-24 */
        return sign | (uint16_t)ldexp(r, 24);
    const uint16_t mant = (uint16_t)(ldexp(f, 11) - 1024.0); /* f*2^11 in [1024, 2048) */
    return sign | (uint16_t)((e - 1 + 15) << 10) | mant;
}

double gb_f16_to_double(uint16_t h)
{
    const double sign = (h & 0x8000u) ? -1.0 : 1.0;
    const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    if (exp == 0x1f)
        return mant ? NAN : sign * INFINITY;
    if (exp == 0)
        return sign * ldexp(mant, -24);
    return sign * ldexp(1024 + mant, exp - 25);
}

uint16_t gb_bf16_from_double(double x)
{
    const uint16_t sign = signbit(x) ? 0x8000u : 0;
    if (isnan(x))
        return 0x7fc0u;
    /* bfloat16: 7 stored mantissa bits, binary32's exponent range. */
    const double r = isinf(x) ? INFINITY : round_format(fabs(x), 7, -126, ldexp(255.0, 127 - 7));
    if (isinf(r))
        return sign | 0x7f80u;
    /* r is exactly representable in bfloat16, hence in float: take the float's top bits. */
    const float f = (float)r;
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return sign | (uint16_t)(bits >> 16);
}

double gb_bf16_to_double(uint16_t h)
{
    const uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return (double)f;
}

double gb_tf32_round(double x)
{
    if (isnan(x) || isinf(x) || x == 0.0)
        return x;
    const double r = round_format(fabs(x), 10, -126, ldexp(2047.0, 127 - 10));
    return signbit(x) ? -r : r;
}

double gb_unit_roundoff(enum gb_dtype t)
{
    switch (t) {
    case GB_F64:
        return ldexp(1.0, -53);
    case GB_F32:
        return ldexp(1.0, -24);
    case GB_F16:
        return ldexp(1.0, -11);
    case GB_BF16:
        return ldexp(1.0, -8);
    case GB_F8E4M3: /* 3 mantissa bits + the implicit one (OCP OFP8, base/fp8.h) */
        return ldexp(1.0, -4);
    case GB_F8E5M2:
        return ldexp(1.0, -3);
    case GB_I32:
    case GB_I8:
        return 0.0;
    }
    return 0.0;
}

/* ---- error metrics -------------------------------------------------------------------------- */

void gb_accuracy_init(struct gb_accuracy *a)
{
    memset(a, 0, sizeof *a);
}

void gb_accuracy_add(struct gb_accuracy *a, uint64_t index, double got, double ref, double scale)
{
    const double diff = fabs(got - ref);
    double e;
    if (isnan(diff) || isinf(diff))
        e = INFINITY;
    else if (diff == 0.0)
        e = 0.0;
    else if (!(scale > 0.0))
        e = INFINITY; /* an error against nothing: no finite relative figure */
    else
        e = diff / scale;
    a->n++;
    if (isinf(e))
        a->nonfinite++;
    else
        a->sum_sq += e * e;
    if (a->n == 1 || e > a->max_rel) {
        a->max_rel = e;
        a->worst = index;
        a->worst_got = got;
        a->worst_ref = ref;
    }
}

double gb_accuracy_rms(const struct gb_accuracy *a)
{
    if (a->nonfinite)
        return INFINITY;
    if (a->n == 0)
        return 0.0;
    return sqrt(a->sum_sq / (double)a->n);
}

double gb_gemm_error_bound(uint64_t k, double u_in, double u_acc, double u_out)
{
    const double ku = (double)k * u_acc;
    /* gamma_k = k u / (1 - k u); once k u reaches 1 the bound says nothing: any result within
     * the scale itself (relative error 1) is all one can claim, and a little more is allowed
     * so that a correct result never fails. */
    const double gamma = ku < 0.5 ? ku / (1.0 - ku) : 1.0;
    const double first = 2.0 * u_in + gamma + u_out;
    return 2.0 * first;
}

/* ---- peaks ------------------------------------------------------------------------------ */

/* Operations per clock per compute unit, vector units and matrix units, for one family.
 * m_f16: FP16 inputs with FP16 accumulation; m_f16a32: FP16 inputs with FP32 accumulation;
 * m_f8: FP8 inputs with FP32 accumulation (no vector rate: FP8 is a matrix-unit format). */
struct rates {
    double f64, f32, f16, bf16, i32, i8dot;              /* vector */
    double m_f64, m_tf32, m_f16, m_f16a32, m_bf16, m_f8; /* matrix (0: none) */
};

/* NVIDIA, per SM per clock, by compute capability (major*10 + minor). Vector rates: the CUDA
 * C++ Programming Guide's throughput table x 2 for an FMA (half2: per lane), which reproduce
 * the datasheets (A100: 19.5 TFLOP/s FP32 and 9.7 FP64 at 108 SMs x 1410 MHz = 128 and 64).
 * Matrix rates: dense tensor-core FLOP per SM per clock from the datasheets, each row's figures
 * below (dense, without sparsity; TFLOP/s = SMs x MHz x rate / 1e6):
 *   V100 SXM2 (80 SMs, 1530 MHz): 125 FP16 -> 1024 (either accumulation)
 *   T4 (40 SMs, 1590 MHz): 65 FP16 -> 1024 (either accumulation)
 *   A100 SXM4 (108 SMs, 1410 MHz): 312 FP16 and BF16 -> 2048, 156 TF32 -> 1024, 19.5 FP64 -> 128
 *   RTX 3090 (82 SMs, 1695 MHz): 142 FP16-acc -> 1024; A40 (84 SMs, 1740 MHz): 150 FP16/BF16
 *     FP32-acc -> 1024, 74.8 TF32 -> 512 (GeForce parts halve FP32 accumulation: 512)
 *   RTX 4090 (128 SMs, 2520 MHz): 330 FP16-acc -> 1024; L40S (142 SMs, 2520 MHz): 362 FP16/BF16
 *     FP32-acc -> 1024, 183 TF32 -> 512
 *   H100 SXM5 (132 SMs, 1830 MHz): 989 FP16 and BF16 -> 4096, 495 TF32 -> 2048, 67 FP64 -> 256
 * FP8 (FP32 accumulate), sm_89 and later only: L40S 733 -> 2048 (sm_89; GeForce parts halve
 * it); H100 SXM5 1979 -> 8192; Blackwell B200 (148 SMs, about 1965 MHz) 4500 -> about 15500,
 * taken as 16384. Other sm_8x parts have none.
 * The larger of a family's parts is taken (an upper bound). */
static bool nvidia_rates(int cc, struct rates *r)
{
    memset(r, 0, sizeof *r);
    if (cc < 50)
        return false;
    if (cc < 60) { /* Maxwell; sm_53 has half2 at twice the FP32 rate */
        *r = (struct rates){.f64 = 8, .f32 = 256, .f16 = cc == 53 ? 512 : 0, .i32 = 256};
    } else if (cc == 60) {
        *r = (struct rates){.f64 = 64, .f32 = 128, .f16 = 256, .i32 = 128};
    } else if (cc < 70) { /* GP10x: dp4a, FP16 at 1/64 */
        *r = (struct rates){.f64 = 8, .f32 = 256, .f16 = 8, .i32 = 256, .i8dot = 1024};
    } else if (cc < 75) { /* Volta */
        *r = (struct rates){.f64 = 64,
                            .f32 = 128,
                            .f16 = 256,
                            .i32 = 128,
                            .i8dot = 512,
                            .m_f16 = 1024,
                            .m_f16a32 = 1024};
    } else if (cc < 80) { /* Turing */
        *r = (struct rates){.f64 = 4,
                            .f32 = 128,
                            .f16 = 256,
                            .i32 = 128,
                            .i8dot = 512,
                            .m_f16 = 1024,
                            .m_f16a32 = 1024};
    } else if (cc == 80) { /* A100 */
        *r = (struct rates){.f64 = 64,
                            .f32 = 128,
                            .f16 = 512,
                            .bf16 = 256,
                            .i32 = 128,
                            .i8dot = 512,
                            .m_f64 = 128,
                            .m_tf32 = 1024,
                            .m_f16 = 2048,
                            .m_f16a32 = 2048,
                            .m_bf16 = 2048};
    } else if (cc < 90) { /* GA10x, AD10x (FP8 tensor cores from sm_89) */
        *r = (struct rates){.f64 = 4,
                            .f32 = 256,
                            .f16 = 256,
                            .bf16 = 256,
                            .i32 = 128,
                            .i8dot = 512,
                            .m_tf32 = 512,
                            .m_f16 = 1024,
                            .m_f16a32 = 1024,
                            .m_bf16 = 1024,
                            .m_f8 = cc >= 89 ? 2048 : 0};
    } else if (cc < 100) { /* Hopper */
        *r = (struct rates){.f64 = 128,
                            .f32 = 256,
                            .f16 = 512,
                            .bf16 = 512,
                            .i32 = 128,
                            .i8dot = 512,
                            .m_f64 = 256,
                            .m_tf32 = 2048,
                            .m_f16 = 4096,
                            .m_f16a32 = 4096,
                            .m_bf16 = 4096,
                            .m_f8 = 8192};
    } else { /* Blackwell and later: the largest rates known, as an upper bound */
        *r = (struct rates){.f64 = 128,
                            .f32 = 256,
                            .f16 = 512,
                            .bf16 = 512,
                            .i32 = 256,
                            .i8dot = 1024,
                            .m_f64 = 256,
                            .m_tf32 = 4096,
                            .m_f16 = 8192,
                            .m_f16a32 = 8192,
                            .m_bf16 = 8192,
                            .m_f8 = 16384};
    }
    return true;
}

/* AMD GPUs, per CU per clock, at the highest of CDNA 3 (MI300X: 163 TFLOP/s FP32, 1307 FP16
 * matrix at 304 CUs x 2100 MHz) and RDNA 3 (dual-issue FP32): AMD's OpenCL reports no chip. */
static const struct rates amd_rates = {
    .f64 = 128,
    .f32 = 256,
    .f16 = 512,
    .bf16 = 512,
    .i32 = 128,
    .i8dot = 1024,
    .m_f64 = 256,
    .m_tf32 = 1024,
    .m_f16 = 2048,
    .m_f16a32 = 2048,
    .m_bf16 = 2048,
};

enum gb_cpu_isa gb_cpu_isa_host(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return GB_ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return GB_ISA_AVX2_FMA;
    if (__builtin_cpu_supports("avx"))
        return GB_ISA_AVX;
#endif
    return GB_ISA_SSE;
}

const char *gb_cpu_isa_name(enum gb_cpu_isa isa)
{
    static const char *const names[] = {"SSE", "AVX", "AVX2+FMA", "AVX-512"};
    return (unsigned)isa < sizeof names / sizeof names[0] ? names[isa] : "?";
}

double gb_cpu_peak_ops(enum gb_cpu_isa isa, unsigned cores, unsigned mhz, enum gb_peak_op op)
{
    static const double f32_per_clk[] = {
        [GB_ISA_SSE] = 8, [GB_ISA_AVX] = 16, [GB_ISA_AVX2_FMA] = 32, [GB_ISA_AVX512] = 64};
    if ((unsigned)isa > GB_ISA_AVX512 || !cores || !mhz)
        return 0.0;
    const double f32 = f32_per_clk[isa];
    double per_clk;
    switch (op) {
    case GB_PEAK_F64:
        per_clk = f32 / 2;
        break;
    case GB_PEAK_F32:
    case GB_PEAK_TF32:
    case GB_PEAK_I32:
    case GB_PEAK_F16_ACC32:
        per_clk = f32;
        break;
    case GB_PEAK_F16:
    case GB_PEAK_BF16:
        per_clk = isa == GB_ISA_AVX512 ? 2 * f32 : f32;
        break;
    case GB_PEAK_INT8_DOT:
        per_clk = 4 * f32;
        break;
    default:
        return 0.0;
    }
    return (double)cores * (double)mhz * 1e6 * per_clk;
}

static bool contains(const char *hay, const char *needle)
{
    return hay && strstr(hay, needle) != NULL;
}

bool gb_device_is_cpu(const struct gb_device_info *in)
{
    static const char *const marks[] = {"GenuineIntel", "AuthenticAMD", "CPU",   "Xeon",
                                        "Core(TM)",     "EPYC",         "Ryzen", "pthread",
                                        "cpu-",         "ARM",          NULL};
    if (in->type != GB_DEVICE_OTHER) /* the driver said */
        return in->type == GB_DEVICE_CPU;
    if (in->arch[0])
        return false;
    for (size_t i = 0; marks[i]; i++)
        if (contains(in->name, marks[i]) || contains(in->vendor, marks[i]))
            return true;
    return false;
}

static const char *op_name(enum gb_peak_op op)
{
    static const char *const names[] = {"FP64",
                                        "FP32",
                                        "TF32",
                                        "FP16",
                                        "BF16",
                                        "INT32",
                                        "INT8 dot",
                                        "FP16 (FP32 accumulate)",
                                        "FP8 (FP32 accumulate)"};
    return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : "?";
}

double gb_peak_ops(const struct gb_device_info *info, enum gb_peak_op op, bool matrix, char *how,
                   size_t len)
{
    char dummy[8];
    if (!how) {
        how = dummy;
        len = sizeof dummy;
    }
    how[0] = '\0';
    if (!info->compute_units || !info->clock_mhz) {
        snprintf(how, len, "unknown: the device reports no compute units or clock");
        return 0.0;
    }
    struct rates r;
    const char *family;
    int cc = 0;
    if (sscanf(info->arch, "sm_%d", &cc) == 1 && nvidia_rates(cc, &r)) {
        family = "NVIDIA";
    } else if (info->arch[0]) {
        snprintf(how, len, "unknown: no rates for architecture %s", info->arch);
        return 0.0;
    } else if (gb_device_is_cpu(info)) {
        /* The OpenCL CPU device is the host: its ISA, its physical cores (a driver's compute
         * units count SMT threads), the reported maximum clock. */
        const enum gb_cpu_isa isa = gb_cpu_isa_host();
        const unsigned phys = gb_host_physical_cores("/sys/devices/system/cpu");
        const unsigned cores = phys && phys < info->compute_units ? phys : info->compute_units;
        const double peak = gb_cpu_peak_ops(isa, cores, info->clock_mhz, op);
        if (peak <= 0) {
            snprintf(how, len, "unknown: no CPU rate for %s", op_name(op));
            return 0.0;
        }
        snprintf(how, len, "%u cores x %u MHz%s%s%s x %g %s op/clk/core (CPU, %s)", cores,
                 info->clock_mhz, info->clock_source[0] ? " (" : "", info->clock_source,
                 info->clock_source[0] ? ")" : "", peak / ((double)cores * info->clock_mhz * 1e6),
                 op_name(op), gb_cpu_isa_name(isa));
        return peak;
    } else if (contains(info->vendor, "Advanced Micro Devices") || contains(info->vendor, "AMD")) {
        r = amd_rates;
        family = "AMD GPU, highest family rate";
    } else {
        snprintf(how, len, "unknown: no rates for %s (%s)", info->name, info->vendor);
        return 0.0;
    }
    /* Per op: the vector rate and the matrix rate (TF32 and FP16 with FP32 accumulation are
     * FP32 on the vector units; integers have no matrix rate). */
    const double vec[GB_PEAK_F8 + 1] = {
        [GB_PEAK_F64] = r.f64,        [GB_PEAK_F32] = r.f32,       [GB_PEAK_TF32] = r.f32,
        [GB_PEAK_F16] = r.f16,        [GB_PEAK_BF16] = r.bf16,     [GB_PEAK_I32] = r.i32,
        [GB_PEAK_INT8_DOT] = r.i8dot, [GB_PEAK_F16_ACC32] = r.f32,
    };
    const double mat[GB_PEAK_F8 + 1] = {
        [GB_PEAK_F64] = r.m_f64,   [GB_PEAK_TF32] = r.m_tf32,        [GB_PEAK_F16] = r.m_f16,
        [GB_PEAK_BF16] = r.m_bf16, [GB_PEAK_F16_ACC32] = r.m_f16a32, [GB_PEAK_F8] = r.m_f8,
    };
    const bool known = (unsigned)op <= GB_PEAK_F8;
    const double v = known ? vec[op] : 0, m = known ? mat[op] : 0;
    const double per_clk = matrix && m > v ? m : v;
    if (per_clk <= 0) {
        snprintf(how, len, "unknown: %s has no %s%s rate", family, op_name(op),
                 matrix ? " (vector or matrix)" : "");
        return 0.0;
    }
    const double peak = (double)info->compute_units * (double)info->clock_mhz * 1e6 * per_clk;
    snprintf(how, len, "%u CU x %u MHz x %g %s op/clk/CU%s (%s)", info->compute_units,
             info->clock_mhz, per_clk, op_name(op), matrix && m > v ? " matrix" : "", family);
    return peak;
}

bool gb_rate_implausible(double value, double peak)
{
    if (isnan(value) || isinf(value))
        return true;
    return peak > 0 && value > GB_PLAUSIBLE_SLACK * peak;
}
