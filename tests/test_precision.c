/* Unit tests of backends/precision.c and precision_derive.c, without a device: 16-bit
 * conversions, error metrics, the GEMM error bound, theoretical peaks, the implausibility check
 * and the figures derived across a run's results. */
#include <stdint.h>

#include "base/util.h"
#include "backends/backend.h"
#include "backends/precision.h"
#include "results/results.h"
#include "test.h"

/* ---- 16-bit formats ------------------------------------------------------------------------ */

TEST(precision_f16_known_values)
{
    ASSERT_EQ(gb_f16_from_double(1.0), 0x3C00);
    ASSERT_EQ(gb_f16_from_double(-2.0), 0xC000);
    ASSERT_EQ(gb_f16_from_double(0.0), 0x0000);
    ASSERT_EQ(gb_f16_from_double(-0.0), 0x8000);
    ASSERT_EQ(gb_f16_from_double(65504.0), 0x7BFF);  /* the largest half */
    ASSERT_EQ(gb_f16_from_double(65519.99), 0x7BFF); /* below the overflow midpoint */
    ASSERT_EQ(gb_f16_from_double(65520.0), 0x7C00);  /* the midpoint rounds to even: inf */
    ASSERT_EQ(gb_f16_from_double(1e9), 0x7C00);
    ASSERT_EQ(gb_f16_from_double(-INFINITY), 0xFC00);
    ASSERT_EQ(gb_f16_from_double(0x1p-24), 0x0001);       /* the smallest subnormal */
    ASSERT_EQ(gb_f16_from_double(0x1p-25), 0x0000);       /* half of it: tie to even, 0 */
    ASSERT_EQ(gb_f16_from_double(0x1.8p-25), 0x0001);     /* above half: rounds up */
    ASSERT_EQ(gb_f16_from_double(0x1p-14), 0x0400);       /* the smallest normal */
    ASSERT_EQ(gb_f16_from_double(0x1.ff8p-15), 0x03FF);   /* the largest subnormal */
    ASSERT_EQ(gb_f16_from_double(0x1.ffcp-15), 0x0400);   /* a tie above it: up to the normal */
    ASSERT_EQ(gb_f16_from_double(1.0 + 0x1p-11), 0x3C00); /* tie: to even (down) */
    ASSERT_EQ(gb_f16_from_double(1.0 + 0x3p-11), 0x3C02); /* tie: to even (up) */
    ASSERT_EQ(gb_f16_from_double(1.0 + 0x1.0001p-11), 0x3C01); /* just above the tie */
    ASSERT((gb_f16_from_double(NAN) & 0x7C00) == 0x7C00 && (gb_f16_from_double(NAN) & 0x3FF));
    ASSERT_NEAR(gb_f16_to_double(0x3555), 0.333251953125, 0);
    ASSERT(isinf(gb_f16_to_double(0x7C00)) && isnan(gb_f16_to_double(0x7E00)));
    ASSERT_NEAR(gb_f16_to_double(0x0001), 0x1p-24, 0);
}

TEST(precision_f16_round_trips_every_pattern)
{
    for (uint32_t h = 0; h < 0x10000; h++) {
        const double v = gb_f16_to_double((uint16_t)h);
        if (isnan(v))
            continue;
        ASSERT_MSG(gb_f16_from_double(v) == h, "0x%04x -> %g -> 0x%04x", h, v,
                   gb_f16_from_double(v));
    }
}

#if defined(__FLT16_MAX__) && (defined(__x86_64__) || defined(__aarch64__))
/* The compiler's _Float16 conversion from double is correctly rounded (one rounding, nearest
 * even): a reference that shares no code with ours. */
TEST(precision_f16_matches_the_compilers_conversion)
{
    uint64_t s = 12345;
    for (int i = 0; i < 200000; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        /* Random bit patterns over the half range and beyond, plus the midpoints between
         * neighbouring halves (the hard cases). */
        double x;
        if (i & 1) {
            x = ldexp((double)(s >> 11) * 0x1p-53, (int)((s >> 3) % 48) - 30);
        } else {
            const uint16_t h = (uint16_t)(s >> 40) & 0x7BFE;
            x = (gb_f16_to_double(h) + gb_f16_to_double((uint16_t)(h + 1))) / 2;
        }
        if (s & 4)
            x = -x;
        __extension__ _Float16 ref = (_Float16)x;
        uint16_t bits;
        memcpy(&bits, &ref, sizeof bits);
        ASSERT_MSG(gb_f16_from_double(x) == bits, "%.17g: ours 0x%04x, compiler's 0x%04x", x,
                   gb_f16_from_double(x), bits);
    }
}
#endif

TEST(precision_bf16_and_tf32)
{
    ASSERT_EQ(gb_bf16_from_double(1.0), 0x3F80);
    ASSERT_EQ(gb_bf16_from_double(-1.0), 0xBF80);
    ASSERT_EQ(gb_bf16_from_double(1.0 + 0x1p-8), 0x3F80); /* tie: to even (down) */
    ASSERT_EQ(gb_bf16_from_double(1.0 + 0x3p-8), 0x3F82); /* tie: to even (up) */
    ASSERT_EQ(gb_bf16_from_double(1e39), 0x7F80);         /* above binary32's range: inf */
    ASSERT_EQ(gb_bf16_from_double(0x1p-133), 0x0001);     /* the smallest subnormal */
    ASSERT_NEAR(gb_bf16_to_double(0x4049), 3.140625, 0);
    for (uint32_t h = 0; h < 0x10000; h++) {
        const double v = gb_bf16_to_double((uint16_t)h);
        if (!isnan(v))
            ASSERT_MSG(gb_bf16_from_double(v) == h, "bf16 0x%04x", h);
    }
    ASSERT_NEAR(gb_tf32_round(1.0 + 0x1p-11), 1.0, 0);
    ASSERT_NEAR(gb_tf32_round(1.0 + 0x3p-11), 1.0 + 0x1p-9, 0);
    ASSERT_NEAR(gb_tf32_round(-3.0), -3.0, 0);
    ASSERT_NEAR(gb_unit_roundoff(GB_F32), 0x1p-24, 0);
    ASSERT_NEAR(gb_unit_roundoff(GB_F16), 0x1p-11, 0);
    ASSERT_NEAR(gb_unit_roundoff(GB_BF16), 0x1p-8, 0);
    ASSERT_NEAR(gb_unit_roundoff(GB_F64), 0x1p-53, 0);
    ASSERT_NEAR(gb_unit_roundoff(GB_I32), 0, 0);
}

/* ---- error metrics -------------------------------------------------------------------------- */

TEST(precision_error_metrics)
{
    struct gb_accuracy a;
    gb_accuracy_init(&a);
    ASSERT_NEAR(gb_accuracy_rms(&a), 0, 0);
    gb_accuracy_add(&a, 0, 1.1, 1.0, 1.0);   /* 0.1 */
    gb_accuracy_add(&a, 1, 2.0, 2.0, 2.0);   /* 0 */
    gb_accuracy_add(&a, 2, -3.3, -3.0, 3.0); /* 0.1 relative to |ref| */
    gb_accuracy_add(&a, 3, 0.25, 0.0, 4.0);  /* an error against a scale, ref 0: 0.0625 */
    ASSERT_EQ(a.n, 4);
    ASSERT_EQ(a.nonfinite, 0);
    ASSERT_NEAR(a.max_rel, 0.1, 1e-12);
    ASSERT(a.worst == 0 || a.worst == 2);
    ASSERT_NEAR(gb_accuracy_rms(&a), sqrt((0.01 + 0 + 0.01 + 0.0625 * 0.0625) / 4), 1e-12);

    /* A zero scale: an exact answer is error 0, anything else an infinite relative error. */
    gb_accuracy_init(&a);
    gb_accuracy_add(&a, 0, 0.0, 0.0, 0.0);
    ASSERT_NEAR(a.max_rel, 0, 0);
    gb_accuracy_add(&a, 7, 1e-30, 0.0, 0.0);
    ASSERT(isinf(a.max_rel));
    ASSERT_EQ(a.worst, 7);
    ASSERT_EQ(a.nonfinite, 1);
    ASSERT(isinf(gb_accuracy_rms(&a)));

    /* NaN and infinity in the result are infinite errors, never hidden by a comparison. */
    gb_accuracy_init(&a);
    gb_accuracy_add(&a, 0, 1.0, 1.0, 1.0);
    gb_accuracy_add(&a, 1, NAN, 1.0, 1.0);
    gb_accuracy_add(&a, 2, 0.5, 1.0, 1.0);
    ASSERT(isinf(a.max_rel));
    ASSERT_EQ(a.worst, 1);
    ASSERT_EQ(a.nonfinite, 1);
    gb_accuracy_add(&a, 3, INFINITY, 1.0, 1.0);
    ASSERT_EQ(a.nonfinite, 2);
}

TEST(precision_gemm_error_bound)
{
    const double u32 = 0x1p-24, u16 = 0x1p-11;
    /* k = 0 leaves the input and output roundings, doubled. */
    ASSERT_NEAR(gb_gemm_error_bound(0, u32, u32, u32), 2 * (3 * u32), 1e-20);
    /* gamma_k = k u / (1 - k u) */
    const double g = 1024 * u32 / (1 - 1024 * u32);
    ASSERT_NEAR(gb_gemm_error_bound(1024, u32, u32, u32), 2 * (3 * u32 + g), 1e-18);
    ASSERT(gb_gemm_error_bound(4096, u32, u32, u32) > gb_gemm_error_bound(1024, u32, u32, u32));
    /* Half accumulation over 4096 terms: k u = 2, the bound says nothing finer than 1. */
    ASSERT_NEAR(gb_gemm_error_bound(4096, u16, u16, u16), 2 * (3 * u16 + 1), 1e-12);
    /* F64 inputs used as is: only accumulation and output. */
    ASSERT_NEAR(gb_gemm_error_bound(100, 0, 0x1p-53, 0x1p-53),
                2 * (100 * 0x1p-53 / (1 - 100 * 0x1p-53) + 0x1p-53), 1e-30);
}

/* ---- peaks ------------------------------------------------------------------------------ */

static struct gb_device_info pocl_info(void)
{
    struct gb_device_info in = {0};
    snprintf(in.name, sizeof in.name, "pthread-skylake-avx512-Intel(R) Xeon(R) Processor");
    snprintf(in.vendor, sizeof in.vendor, "GenuineIntel");
    in.compute_units = 2;
    in.clock_mhz = 2600;
    return in;
}

TEST(precision_peak_cpu)
{
    /* The rule: physical cores x maximum clock x FP32 flop per clock for the ISA, no other
     * factor. A 2-core AVX2+FMA machine at 2445 MHz (this machine's PoCL) is 156 GFLOP/s FP32,
     * under the ~240 any 2-vCPU Zen/AVX2-class machine can reach. */
    ASSERT_NEAR(gb_cpu_peak_ops(GB_ISA_AVX2_FMA, 2, 2445, GB_PEAK_F32), 2 * 2.445e9 * 32, 1);
    ASSERT(gb_cpu_peak_ops(GB_ISA_AVX2_FMA, 2, 2445, GB_PEAK_F32) < 240e9);
    ASSERT_NEAR(gb_cpu_peak_ops(GB_ISA_AVX2_FMA, 2, 2445, GB_PEAK_F64), 2 * 2.445e9 * 16, 1);
    ASSERT_NEAR(gb_cpu_peak_ops(GB_ISA_SSE, 4, 3000, GB_PEAK_F32), 4 * 3e9 * 8, 1);
    ASSERT_NEAR(gb_cpu_peak_ops(GB_ISA_AVX, 4, 3000, GB_PEAK_F32), 4 * 3e9 * 16, 1);
    ASSERT_NEAR(gb_cpu_peak_ops(GB_ISA_AVX512, 4, 3000, GB_PEAK_F32), 4 * 3e9 * 64, 1);
    ASSERT_NEAR(gb_cpu_peak_ops(GB_ISA_AVX512, 4, 3000, GB_PEAK_BF16), 4 * 3e9 * 128, 1);
    ASSERT_NEAR(gb_cpu_peak_ops(GB_ISA_AVX2_FMA, 1, 1000, GB_PEAK_INT8_DOT), 1e9 * 128, 1);
    ASSERT_NEAR(gb_cpu_peak_ops(GB_ISA_AVX2_FMA, 0, 1000, GB_PEAK_F32), 0, 0);

    /* Through gb_peak_ops: the host's ISA and at most its physical cores, no 1.5 turbo. */
    struct gb_device_info in = pocl_info();
    char how[256];
    double p = gb_peak_ops(&in, GB_PEAK_F32, false, how, sizeof how);
    printf("%s\n", how);
    ASSERT_CONTAINS(how, "MHz");
    ASSERT_CONTAINS(how, gb_cpu_isa_name(gb_cpu_isa_host()));
    ASSERT(p > 0 && p <= 2 * 2.6e9 * 64);
    ASSERT(strstr(how, "1.5") == NULL);
    /* No matrix units counted on a CPU: the GEMM bound is the vector one. */
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_F32, true, NULL, 0), p, 0);
    ASSERT(gb_device_is_cpu(&in));
    /* clpeak measured about 44 GFLOP/s FP32 on this machine's PoCL: below the bound. */
    ASSERT(!gb_rate_implausible(44, p / 1e9));
}

/* A CPU device's placeholders (300 MHz, 8 compute units on a 2-core host, the field's case) give
 * way to the host's figures, said in clock_source, and the peak is built on them; figures the
 * host cannot contradict, and every GPU's, stay. */
TEST(precision_cpu_facts_contradicting_the_host_are_replaced)
{
    struct gb_device_info in = pocl_info();
    in.type = GB_DEVICE_CPU;
    in.clock_mhz = 300;
    in.compute_units = 8;
    struct gb_device_info truth = in;
    truth.clock_mhz = 2100;
    truth.compute_units = 2;
    gb_cpu_facts_check(&in, 2100, "cpuinfo", 2);
    ASSERT_EQ(in.clock_mhz, 2100);
    ASSERT_EQ(in.compute_units, 2);
    ASSERT_STR(in.clock_source, "host cpuinfo, the device said 300 MHz; units: the host's 2 "
                                "online CPUs, the device said 8");
    char how[256];
    const double peak = gb_peak_ops(&in, GB_PEAK_F32, false, how, sizeof how);
    ASSERT(peak > 0);
    ASSERT_NEAR(peak, gb_peak_ops(&truth, GB_PEAK_F32, false, NULL, 0), 0);
    ASSERT_CONTAINS(how, "2100 MHz (host cpuinfo, the device said 300 MHz");

    /* A clock of 0: the host's, said as before. */
    in = pocl_info();
    in.type = GB_DEVICE_CPU;
    in.clock_mhz = 0;
    gb_cpu_facts_check(&in, 2445, "cpufreq", 64);
    ASSERT_EQ(in.clock_mhz, 2445);
    ASSERT_STR(in.clock_source, "host cpufreq");
    ASSERT_EQ(in.compute_units, pocl_info().compute_units);

    /* Consistent figures stay: a device clock above a current clock read from cpuinfo (turbo),
     * within 5/4 of a cpufreq maximum, fewer units than the host's CPUs. */
    static const struct {
        uint32_t dev_mhz, host_mhz;
        const char *src;
        uint32_t units, cpus;
        bool replaced;
    } c[] = {
        {3600, 800, "cpuinfo", 2, 2, false},
        {2600, 2445, "cpufreq", 1, 4, false},
        {3200, 2445, "cpufreq", 2, 2, true},
        {1000, 2100, "cpuinfo", 2, 2, true},
        {1100, 2100, "cpuinfo", 2, 2, false},
        {2100, 0, "", 2, 0, false},
        {2100, 2100, "cpuinfo", 3, 2, true},
        /* Above any CPU's clock: a placeholder whatever the host's source (a tester's 65535 and
         * 4294967295 MHz through cpuinfo gave peaks of 8388 and 5.5e8 GFLOP/s). */
        {65535, 2100, "cpuinfo", 2, 2, true},
        {4294967295u, 2100, "cpuinfo", 2, 2, true},
        {9000, 2100, "cpuinfo", 2, 2, false},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        in = pocl_info();
        in.type = GB_DEVICE_CPU;
        in.clock_mhz = c[i].dev_mhz;
        in.compute_units = c[i].units;
        gb_cpu_facts_check(&in, c[i].host_mhz, c[i].src, c[i].cpus);
        ASSERT_MSG((in.clock_source[0] != '\0') == c[i].replaced, "case %zu: \"%s\"", i,
                   in.clock_source);
    }

    /* A GPU's figures are its own. */
    in = pocl_info();
    in.type = GB_DEVICE_GPU;
    in.clock_mhz = 300;
    in.compute_units = 132;
    gb_cpu_facts_check(&in, 2100, "cpuinfo", 2);
    ASSERT_EQ(in.clock_mhz, 300);
    ASSERT_EQ(in.compute_units, 132);
    ASSERT_STR(in.clock_source, "");
}

/* SMT threads of one core count once. */
TEST(precision_host_physical_cores_from_sysfs)
{
    const char *dir = gb_test_tmpdir();
    /* 4 logical CPUs: two cores with two threads each; cpu2 offline (no topology). */
    static const int core[] = {0, 1, -1, 1, 0};
    for (int c = 0; c < 5; c++) {
        if (core[c] < 0)
            continue;
        char d[1200], p[1300], t[16];
        snprintf(d, sizeof d, "%s/cpu%d/topology", dir, c);
        ASSERT_EQ(gb_mkdir_p(d, 0755), 0);
        snprintf(p, sizeof p, "%s/core_id", d);
        snprintf(t, sizeof t, "%d\n", core[c]);
        gb_test_write_file(p, t);
        snprintf(p, sizeof p, "%s/physical_package_id", d);
        gb_test_write_file(p, "0\n");
    }
    ASSERT_EQ(gb_host_physical_cores(dir), 2);
}

/* The datasheet figures the table is pinned to (dense, TFLOP/s). */
TEST(precision_peak_tensor_rates_match_datasheets)
{
    struct gb_device_info in = {0};
    snprintf(in.arch, sizeof in.arch, "sm_80");
    in.compute_units = 108;
    in.clock_mhz = 1410;
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_BF16, true, NULL, 0) / 1e12, 312, 0.5); /* A100 */
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_F16_ACC32, true, NULL, 0) / 1e12, 312, 0.5);
    snprintf(in.arch, sizeof in.arch, "sm_90");
    in.compute_units = 132;
    in.clock_mhz = 1830;
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_BF16, true, NULL, 0) / 1e12, 989.4, 1); /* H100 SXM */
    /* RTX 4090: 128 SMs at 2520 MHz, 330 TFLOP/s FP16 with FP16 accumulation; a correct HGEMM
     * at 200 is not implausible. */
    snprintf(in.arch, sizeof in.arch, "sm_89");
    in.compute_units = 128;
    in.clock_mhz = 2520;
    const double acc16 = gb_peak_ops(&in, GB_PEAK_F16, true, NULL, 0) / 1e12;
    ASSERT_NEAR(acc16, 330.3, 0.5);
    ASSERT(!gb_rate_implausible(200, acc16));
    /* FP32 accumulation: L40S (142 SMs, 2520 MHz) 362 dense, the family's largest. */
    in.compute_units = 142;
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_F16_ACC32, true, NULL, 0) / 1e12, 366.4, 0.5);
    /* The vector units alone: FP16 accumulation on half2 is not the tensor rate. */
    ASSERT(gb_peak_ops(&in, GB_PEAK_F16, false, NULL, 0) <
           gb_peak_ops(&in, GB_PEAK_F16, true, NULL, 0));
}

TEST(precision_peak_nvidia_matches_datasheets)
{
    struct gb_device_info in = {0};
    snprintf(in.name, sizeof in.name, "NVIDIA A100-SXM4-40GB");
    snprintf(in.arch, sizeof in.arch, "sm_80");
    in.compute_units = 108;
    in.clock_mhz = 1410;
    /* NVIDIA's A100 datasheet: 19.5 TFLOP/s FP32, 9.7 FP64 (19.5 on tensor cores), 312 FP16
     * tensor, 156 TF32 tensor. */
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_F32, false, NULL, 0) / 1e12, 19.5, 0.05);
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_F64, false, NULL, 0) / 1e12, 9.7, 0.05);
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_F64, true, NULL, 0) / 1e12, 19.5, 0.05);
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_F16, true, NULL, 0) / 1e12, 312, 0.5);
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_TF32, true, NULL, 0) / 1e12, 156, 0.5);
    ASSERT(!gb_device_is_cpu(&in));
    /* H100 SXM at 1830 MHz (the datasheet's tensor clock): 989 TFLOP/s dense FP16. */
    snprintf(in.arch, sizeof in.arch, "sm_90");
    in.compute_units = 132;
    in.clock_mhz = 1830;
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_F16, true, NULL, 0) / 1e12, 989.4, 1);
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_F32, false, NULL, 0) / 1e12, 61.8, 0.1);
    /* Pascal consumer parts: half arithmetic at 1/64 of FP32 — a tiny but known bound. */
    snprintf(in.arch, sizeof in.arch, "sm_61");
    ASSERT(gb_peak_ops(&in, GB_PEAK_F16, false, NULL, 0) <
           gb_peak_ops(&in, GB_PEAK_F32, false, NULL, 0) / 16);
    ASSERT(gb_peak_ops(&in, GB_PEAK_INT8_DOT, false, NULL, 0) > 0);
    /* Before dp4a: no INT8 dot peak, and the reason says so. */
    snprintf(in.arch, sizeof in.arch, "sm_52");
    char how[256];
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_INT8_DOT, false, how, sizeof how), 0, 0);
    ASSERT_CONTAINS(how, "unknown");
}

TEST(precision_peak_unknown_devices)
{
    char how[256];
    struct gb_device_info in = {0};
    snprintf(in.name, sizeof in.name, "Mystery Accelerator");
    snprintf(in.vendor, sizeof in.vendor, "Acme");
    in.compute_units = 64;
    in.clock_mhz = 1000;
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_F32, false, how, sizeof how), 0, 0);
    ASSERT_CONTAINS(how, "unknown");
    in = pocl_info();
    in.clock_mhz = 0;
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_F32, false, how, sizeof how), 0, 0);
    ASSERT_CONTAINS(how, "no compute units or clock");
    snprintf(in.arch, sizeof in.arch, "sm_30");
    in.clock_mhz = 900;
    ASSERT_NEAR(gb_peak_ops(&in, GB_PEAK_F32, false, how, sizeof how), 0, 0);
}

TEST(precision_implausibility_check)
{
    ASSERT(!gb_rate_implausible(100, 0)); /* peak unknown: never flagged */
    ASSERT(!gb_rate_implausible(99, 100));
    ASSERT(!gb_rate_implausible(105, 100)); /* within the slack */
    ASSERT(gb_rate_implausible(105.1, 100));
    ASSERT(gb_rate_implausible(1000, 22)); /* CLBlast's last-kernel event on PoCL */
    ASSERT(gb_rate_implausible(NAN, 100));
    ASSERT(gb_rate_implausible(INFINITY, 0));
}

/* ---- across results ------------------------------------------------------------------------ */

static void add_result(struct gb_results *rs, int dev, const char *suite, const char *prec,
                       const char *impl, double value, double op_us)
{
    struct gb_result r = {0};
    snprintf(r.suite, sizeof r.suite, "%s", suite);
    snprintf(r.case_name, sizeof r.case_name, "%s", prec);
    snprintf(r.backend, sizeof r.backend, "opencl");
    snprintf(r.unit, sizeof r.unit, "GFLOP/s");
    r.device_index = dev;
    r.params.n = 2;
    r.params.name[0] = "prec";
    r.params.v[0] = (struct gb_value){.type = GB_V_STR};
    snprintf(r.params.v[0].s, sizeof r.params.v[0].s, "%s", prec);
    r.params.name[1] = "impl";
    r.params.v[1] = (struct gb_value){.type = GB_V_STR};
    snprintf(r.params.v[1].s, sizeof r.params.v[1].s, "%s", impl);
    r.status = GB_STATUS_OK;
    r.value = value;
    r.op_time_us.median = op_us;
    ASSERT_OK(gb_results_add(rs, &r));
}

static double pocl_peak(const struct gb_result *r, const struct gb_device_info *info, char *how,
                        size_t len)
{
    (void)r;
    return gb_peak_ops(info, GB_PEAK_F32, false, how, len) / 1e9;
}

TEST(precision_derived_speedups_and_peaks)
{
    struct gb_results rs = {0};
    struct gb_device_info in = pocl_info();
    int d0, d1;
    ASSERT_OK(gb_results_add_device(&rs, "opencl", 0, &in, &d0));
    ASSERT_OK(gb_results_add_device(&rs, "opencl", 1, &in, &d1));
    add_result(&rs, d0, "gemm", "f32", "library", 20, 100);
    add_result(&rs, d0, "gemm", "f64", "library", 10, 200);
    add_result(&rs, d0, "gemm", "f64", "own", 5, 400);       /* no f32 own: no speedup */
    add_result(&rs, d1, "gemm", "f64", "library", 8, 250);   /* no f32 on device 1 */
    add_result(&rs, d0, "gemm", "bf16", "library", 1000, 2); /* above the CPU bound */
    add_result(&rs, d0, "other", "f64", "library", 10, 200);
    gb_precision_speedups(&rs, "gemm", "prec", "f32", false);
    const struct gb_figure *f = gb_test_figure(&rs.results[1], "speedup_vs_f32");
    ASSERT(f != NULL);
    ASSERT_NEAR(f->v[0], 0.5, 1e-12);
    ASSERT(gb_test_figure(&rs.results[0], "speedup_vs_f32") == NULL);
    ASSERT(gb_test_figure(&rs.results[2], "speedup_vs_f32") == NULL);
    ASSERT(gb_test_figure(&rs.results[3], "speedup_vs_f32") == NULL);
    ASSERT(gb_test_figure(&rs.results[5], "speedup_vs_f32") == NULL);
    /* By time: base time over this time. */
    gb_precision_speedups(&rs, "gemm", "prec", "f32", true);
    ASSERT_NEAR(gb_test_figure(&rs.results[1], "speedup_vs_f32")->v[0], 0.5, 1e-12);
    ASSERT_NEAR(gb_test_figure(&rs.results[4], "speedup_vs_f32")->v[0], 50, 1e-12);
    size_t nf = rs.results[1].nfigures;
    gb_precision_speedups(&rs, "gemm", "prec", "f32", false); /* again: replaced, not added */
    ASSERT_EQ(rs.results[1].nfigures, nf);

    gb_precision_check_peaks(&rs, "gemm", pocl_peak);
    /* 2 cores x 2600 MHz x the host ISA's FP32 rate: at most 332.8 (AVX-512). */
    const double pk = gb_peak_ops(&in, GB_PEAK_F32, false, NULL, 0) / 1e9;
    ASSERT(pk > 0 && pk <= 332.8);
    ASSERT(!rs.results[0].implausible);
    const struct gb_figure *of = gb_test_figure(&rs.results[0], "of_peak");
    ASSERT(of != NULL);
    ASSERT_NEAR(of->v[0], 20 / pk, 1e-9);
    ASSERT_NEAR(gb_test_figure(&rs.results[0], "peak")->v[0], pk, 1e-9);
    ASSERT(rs.results[4].implausible);
    printf("%s\n", rs.results[4].reason);
    char want[128];
    snprintf(want, sizeof want,
             "implausible: 1000 GFLOP/s exceeds the device's theoretical peak %.4g GFLOP/s", pk);
    ASSERT_CONTAINS(rs.results[4].reason, want);
    ASSERT(!rs.results[5].implausible && gb_test_figure(&rs.results[5], "peak") == NULL);
    gb_results_free(&rs);
}
