/* burn — a sustained-load test: the library's GEMM in a loop for `duration` seconds, every
 * product checked, the throughput and the device's clocks, throttling, temperature and power
 * followed over time.
 *
 * Each case multiplies two n x n matrices (axis n; 0: 8192 on a GPU, 256 elsewhere) over and
 * over in precision `dtype`, through the backend's BLAS (ops->gemm; FP8 through ops->gemm_fp8)
 * where the device has it, else through gpubench's own kernel (kernels/gemm.cl) where that has the
 * precision (f32, bf16 into float accumulation, i8 into int32); a precision neither offers is a
 * recorded skip saying why:
 *   f32   F32 / F32 / F32      f16   F16 / F16 / F16       bf16  BF16 / F32 / F32
 *   tf32  F32 on TF32 tensor cores                         i8    I8 / I32 / I32
 *   f8    E4M3 x E4M3 / F32 / F32, TN layout (cuBLASLt on CUDA sm_89+)
 *
 * The check is gpu-burn's (Ville Timonen, github.com/wilicc/gpu-burn: each new product compared
 * on the device with the first one), made exact: gpu-burn allows each element a small difference,
 * here every bit must match, since the same library call on the same inputs is deterministic on
 * a healthy device (cuBLAS documents bitwise-reproducible GEMMs for a given version,
 * architecture and SM count; CLBlast and gemm.cl do no atomic reductions). The first product is checked against a host reference (FP64 sums of the rounded
 * inputs at 256 sampled elements, within the gemm suite's tolerance for the precision,
 * gb__gemm_tolerance; i8 exactly) and kept; after each later product kernels/burn.cl compares
 * every 32-bit word of C with it, counting the words that differ and the first iteration that
 * had one. A case with any is failed, naming the count and that iteration. The test hook
 * GPUBENCH_TEST_BURN_CORRUPT=K (tests only) flips a bit of the product of iteration K before its
 * comparison, as a faulty device would.
 *
 * The burn runs in setup, untimed by the harness, which then times the same GEMM as the gemm
 * suite would (op_time_us) and verifies its product against the first one. The loop enqueues
 * batches of products (sized to a quarter window) and closes a window each `window` seconds
 * (1 s from a duration of 10 s, else duration / 10; at most `pulse`): the window's rate is its products' 2 n^3
 * operations over its host time. The result's headline ("sustained", GFLOP/s or GOP/s) is these
 * rates, one sample per window in order: the timeline; figures sustained_min and
 * sustained_median are their least and median. With `pulse` P > 0 the load alternates P seconds
 * on and P seconds idle (a power-pulse phase, as power supplies and regulators see from training
 * jobs); idle time is in no window.
 *
 * Telemetry (backends/telemetry.h: NVML on NVIDIA GPUs, sysfs hwmon and RAPL elsewhere) is read
 * at the start and at the end of each window, where the profile's telemetry is on: clock_start
 * and clock_end (MHz: the SM clock at the end of the first and the last window), clock_drop
 * (percent: 100 (start - end) / start), time_to_throttle (s from the start to the first reading
 * with an NVML throttle reason other than GpuIdle) and throttle_reason (its reasons' names, or
 * "none" when NVML reported none), temp_end (C) and power_end (W), the last reading's. A
 * quantity no source reads has no figure — never a zero — and the text figure `telemetry` says
 * why. The test hook GPUBENCH_TEST_BURN_NVML_PCI=ID (tests only) reads an NVML device at PCI bus
 * id ID (tests/fake_nvml.c's) in place of the case's device's sources. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/precision.h"
#include "backends/telemetry.h"
#include "base/fp8.h"
#include "base/units.h"
#include "base/util.h"
#include "run/config.h"
#include "run/supervise.h"
#include "suites/common.h"
#include "suites/gemm_tolerance.h"

#define BURN_CORRUPT_ENV "GPUBENCH_TEST_BURN_CORRUPT"
#define BURN_NVML_ENV "GPUBENCH_TEST_BURN_NVML_PCI"
#define BURN_CHECKED 256 /* elements of the first product checked on the host */
#define BURN_WG 256

enum bt { BT_F32, BT_F16, BT_BF16, BT_TF32, BT_F8, BT_I8, BT_COUNT };

static const char *const dtypes[] = {"f32", "f16", "bf16", "tf32", "f8", "i8", NULL};

static const struct {
    enum gb_dtype in, acc, out;
    uint64_t cap; /* the library's capability */
    bool tf32;
    enum gprec prec;        /* the tolerance's */
    const char *own_define; /* kernels/gemm.cl's input define; NULL: no own path */
    const char *absent;     /* why there is no library path, when the device lacks cap */
} bt[BT_COUNT] = {
    [BT_F32] = {GB_F32, GB_F32, GB_F32, GB_CAP_BLAS_F32, false, GP_F32, "", "no BLAS"},
    [BT_F16] = {GB_F16, GB_F16, GB_F16, GB_CAP_BLAS_F16, false, GP_F16, NULL,
                "no half-precision GEMM (cl_khr_fp16 / sm_53) and gemm.cl has no half "
                "accumulation"},
    [BT_BF16] = {GB_BF16, GB_F32, GB_F32, GB_CAP_BLAS_BF16, false, GP_BF16, "IN_BF16=1",
                 "no BF16 GEMM (cuBLAS sm_80+)"},
    [BT_TF32] = {GB_F32, GB_F32, GB_F32, GB_CAP_BLAS_TF32, true, GP_TF32, NULL,
                 "TF32 needs cuBLAS on sm_80+ and gemm.cl has no TF32 path"},
    [BT_F8] = {GB_F8E4M3, GB_F32, GB_F32, GB_CAP_BLAS_FP8, false, GP_F8E4M3, NULL,
               "FP8 GEMM needs cuBLASLt on CUDA sm_89+ and gemm.cl has no FP8 path"},
    /* cuBLAS's int8 GEMM has no capability bit of its own: tried, refused with
     * GB_EUNSUPPORTED where absent (CLBlast). */
    [BT_I8] = {GB_I8, GB_I32, GB_I32, GB_CAP_BLAS_F32, false, GP_F32, "IN_I8=1", "no int8 GEMM"},
};

static bool duration_check(double v, char *why, size_t len)
{
    if (v > 0 && v <= 86400)
        return true;
    snprintf(why, len, "expected seconds in (0, 86400]");
    return false;
}

static bool pulse_check(double v, char *why, size_t len)
{
    if (v >= 0 && v <= 3600)
        return true;
    snprintf(why, len, "expected seconds in [0, 3600] (0: steady load)");
    return false;
}

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("dtype", "[f32, f16, bf16, tf32, f8, i8]", dtypes,
                "the GEMM's precision: f32, f16, bf16 (float accumulation), tf32, f8 (E4M3, "
                "cuBLASLt), i8 (int32 accumulation); one the device lacks is a skip saying why"),
    GB_AXIS_FLOAT("duration", "10", "seconds of load", .check_float = duration_check),
    GB_AXIS_FLOAT("pulse", "0", "seconds of load, then as many idle, alternately (0: steady load)",
                  .check_float = pulse_check),
    GB_AXIS_INT("n", "0", 0, 65536,
                "the square matrices' order, a multiple of 16 (0: 8192 on a GPU, 256 elsewhere)"),
};

/* One window of the loop. */
struct burn_window {
    double rate;               /* GFLOP/s (GOP/s) */
    struct gb_tel_reading tel; /* at its end; tel.t 0: none */
};

struct burn {
    struct gb_test_hook hook; /* first: gb_case_build_hooked (kernels/burn.cl's GB_BREAK) */
    enum bt t;
    uint64_t n, nc, cbytes; /* order, C's elements and bytes */
    bool own, tn;
    struct gb_buf *a, *b, *c, *c0, *out, *flip;
    struct gb_gemm g;
    struct gb_gemm_fp8 g8;
    struct gb_program *gprog, *cprog;
    struct gb_kernel *gkern, *ckern;
    struct gb_launch gl, cl;
    double *a64, *b64;
    unsigned char *c0h; /* the first product, as read back */
    double duration, pulse, window;
    struct burn_window *win;
    size_t nwin, capwin;
    uint64_t iters, cycles;
    uint64_t errors; /* words that differed, over every comparison */
    uint32_t first_iter, first_word;
    struct gb_tel_session *own_tel; /* the test hook's session, closed by teardown */
    struct gb_tel_reading tel0;     /* at the start */
    bool tel_on;
    char tel_why[64];
};

static enum bt parse_bt(const char *s)
{
    for (int i = 0; i < BT_COUNT; i++)
        if (strcmp(dtypes[i], s) == 0)
            return (enum bt)i;
    return BT_F32;
}

static double draw(uint64_t *s)
{
    return 2.0 * ((double)(gb_splitmix64(s) >> 11) * 0x1p-53) - 1.0;
}

/* n inputs of type t drawn into *x (the values the device multiplies) and their bytes uploaded to
 * a new buffer *out. */
static int make_input(struct gb_case_ctx *ctx, struct burn *s, uint64_t seed, double **x,
                      struct gb_buf **out)
{
    const uint64_t n = s->n * s->n;
    const enum gb_dtype t = bt[s->t].in;
    const size_t es = gb_dtype_size(t);
    *x = malloc(n * sizeof **x);
    unsigned char *h = malloc(n * es);
    if (!*x || !h) {
        free(h);
        return GB_FAIL(GB_ENOMEM, "burn inputs of %llu elements", (unsigned long long)n);
    }
    for (uint64_t i = 0; i < n; i++) {
        const double v = draw(&seed);
        switch (t) {
        case GB_F16: {
            const uint16_t u = gb_f16_from_double(v);
            memcpy(h + 2 * i, &u, 2);
            (*x)[i] = gb_f16_to_double(u);
            break;
        }
        case GB_BF16: {
            const uint16_t u = gb_bf16_from_double(v);
            memcpy(h + 2 * i, &u, 2);
            (*x)[i] = gb_bf16_to_double(u);
            break;
        }
        case GB_F8E4M3:
            h[i] = gb_fp8_e4m3_from_float((float)v);
            (*x)[i] = gb_fp8_e4m3_to_float(h[i]);
            break;
        case GB_I8: {
            const int8_t q = (int8_t)lround(v * 127);
            memcpy(h + i, &q, 1);
            (*x)[i] = q;
            break;
        }
        default: {
            const float f = (float)v;
            memcpy(h + 4 * i, &f, 4);
            (*x)[i] = f;
            break;
        }
        }
    }
    int err = gb_case_alloc(ctx, n * es, GB_MEM_DEVICE, out);
    if (!err)
        err = gb_case_upload(ctx, *out, h, n * es);
    free(h);
    return err;
}

/* The own kernel (kernels/gemm.cl at its default tiles: TS 32, WPT 4, TSK 16, UNROLL 4). Where
 * its 8x8 work-group exceeds the device's or the built kernel's maximum, each work-item takes
 * more of the tile (WPT doubled, as the gemm suite fits its default: figure wg_used). */
static int own_setup(struct gb_case_ctx *ctx, struct burn *s)
{
    const struct gb_device_info *info = &ctx->dev->info;
    const int ts = 32, tsk = 16;
    int wpt = 4, rts = ts / wpt, err;
    if (2u * ts * tsk * 4 > info->local_mem)
        return gb_case_skip(ctx, "own GEMM: needs %d bytes of local memory, the device has %llu",
                            2 * ts * tsk * 4, (unsigned long long)info->local_mem);
    for (;;) {
        if ((err =
                 gb_case_loop_fits(ctx, gb_gemm_tiled_trips(ts, wpt, tsk, s->n), "own GEMM", NULL)))
            return err;
        char wdef[16];
        snprintf(wdef, sizeof wdef, "WPT=%d", wpt);
        const char *defs[] = {"TS=32",
                              wdef,
                              "TSK=16",
                              "UNROLL=4",
                              s->t == BT_I8 ? "T=int" : "T=float",
                              "TRANS_A=0",
                              "TRANS_B=0",
                              bt[s->t].own_define};
        const size_t nd = bt[s->t].own_define[0] ? 8 : 7;
        if ((err = gb_case_build(ctx, "gemm.cl", "gemm_tiled", defs, nd, &s->gprog, &s->gkern)))
            return err;
        uint32_t kmax = 0;
        if ((err = ctx->ops->kernel_max_wg(s->gkern, &kmax)))
            return err;
        if ((uint32_t)(rts * rts) <= kmax && (uint32_t)(rts * rts) <= info->max_wg_size)
            break;
        if (wpt == ts)
            return gb_case_skip(ctx, "own GEMM: not even a work-group of 1 fits (maximum %u)",
                                kmax);
        gb_case_free_kernel(ctx, &s->gkern, &s->gprog);
        wpt *= 2;
        rts = ts / wpt;
    }
    if (wpt != 4)
        gb_case_figure(ctx, "wg_used", "", (double)(rts * rts));
    const uint64_t tiles = (s->n + ts - 1) / ts;
    s->gl = (struct gb_launch){.dims = 2,
                               .global = {tiles * rts, tiles * rts, 1},
                               .local = {(uint32_t)rts, (uint32_t)rts, 1},
                               .nargs = 11};
    const bool i8 = s->t == BT_I8;
    struct gb_arg *a = s->gl.args;
    a[0] = a[1] = a[2] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = s->n};
    a[3] = i8 ? (struct gb_arg){.kind = GB_ARG_I32, .v.i32 = 1}
              : (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = 1.0f};
    a[4] = i8 ? (struct gb_arg){.kind = GB_ARG_I32, .v.i32 = 0}
              : (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = 0.0f};
    a[5] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->a};
    a[6] = a[8] = a[10] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = s->n};
    a[7] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->b};
    a[9] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->c};
    return 0;
}

static int gemm_once(struct gb_case_ctx *ctx, struct burn *s)
{
    return s->own          ? ctx->ops->launch(ctx->q, s->gkern, &s->gl)
           : s->t == BT_F8 ? ctx->ops->gemm_fp8(ctx->q, &s->g8)
                           : ctx->ops->gemm(ctx->q, &s->g);
}

/* Chooses the library or the own kernel and prepares it; the first product is computed here. */
static int choose_impl(struct gb_case_ctx *ctx, struct burn *s)
{
    const struct gb_device_info *info = &ctx->dev->info;
    const bool has_own = bt[s->t].own_define != NULL;
    int err;
    if (s->t == BT_F8) {
        if (!ctx->ops->gemm_fp8 || !(info->caps & GB_CAP_BLAS_FP8))
            return gb_case_skip(ctx, "f8: %s (the %s backend: %s)", bt[s->t].absent, ctx->ops->name,
                                ctx->ops->facts.fp8_absent ? ctx->ops->facts.fp8_absent
                                                           : "no FP8 GEMM on this device");
        s->g8 = (struct gb_gemm_fp8){.a_type = GB_F8E4M3,
                                     .b_type = GB_F8E4M3,
                                     .c_type = GB_F32,
                                     .trans_a = true,
                                     .m = s->n,
                                     .n = s->n,
                                     .k = s->n,
                                     .a = s->a,
                                     .b = s->b,
                                     .c = s->c,
                                     .lda = s->n,
                                     .ldb = s->n,
                                     .ldc = s->n};
        err = ctx->ops->gemm_fp8(ctx->q, &s->g8);
        return err == GB_EUNSUPPORTED ? gb_case_skip(ctx, "f8: %s", gb_error_msg()) : err;
    }
    if (ctx->ops->gemm && (info->caps & bt[s->t].cap)) {
        s->g = (struct gb_gemm){.a_type = bt[s->t].in,
                                .c_type = bt[s->t].out,
                                .compute = bt[s->t].acc,
                                .tf32 = bt[s->t].tf32,
                                .m = s->n,
                                .n = s->n,
                                .k = s->n,
                                .alpha = 1,
                                .beta = 0,
                                .a = s->a,
                                .b = s->b,
                                .c = s->c,
                                .lda = s->n,
                                .ldb = s->n,
                                .ldc = s->n,
                                .batch = 1};
        err = ctx->ops->gemm(ctx->q, &s->g);
        if (err != GB_EUNSUPPORTED)
            return err;
        if (!has_own)
            return gb_case_skip(ctx, "%s: %s", dtypes[s->t], gb_error_msg());
    } else if (!has_own) {
        return gb_case_skip(ctx, "%s: %s (the %s backend%s)", dtypes[s->t], bt[s->t].absent,
                            ctx->ops->name,
                            ctx->ops->gemm ? "'s BLAS lacks it on this device" : " has no BLAS");
    }
    s->own = true;
    if ((err = own_setup(ctx, s)))
        return err;
    return ctx->ops->launch(ctx->q, s->gkern, &s->gl);
}

/* Element (i, j) of the product of the rounded inputs, in long double; |terms| into *mag. */
static double ref_elem(const struct burn *s, uint64_t i, uint64_t j, double *mag)
{
    long double sum = 0, m = 0;
    for (uint64_t l = 0; l < s->n; l++) {
        const double a = s->tn ? s->a64[l + i * s->n] : s->a64[i + l * s->n];
        const long double p = (long double)a * s->b64[l + j * s->n];
        sum += p;
        m += fabsl(p);
    }
    *mag = (double)m;
    return (double)sum;
}

static double c_elem(const struct burn *s, const unsigned char *c, uint64_t e)
{
    switch (bt[s->t].out) {
    case GB_F16: {
        uint16_t u;
        memcpy(&u, c + 2 * e, 2);
        return gb_f16_to_double(u);
    }
    case GB_I32: {
        int32_t v;
        memcpy(&v, c + 4 * e, 4);
        return v;
    }
    default: {
        float f;
        memcpy(&f, c + 4 * e, 4);
        return f;
    }
    }
}

/* The first product against the host reference at BURN_CHECKED elements (corners, then seeded
 * positions). */
static int check_first(struct gb_case_ctx *ctx, struct burn *s)
{
    const double tol = s->t == BT_I8 ? 0 : gb__gemm_tolerance(bt[s->t].prec, s->n);
    uint64_t seed = 0xB0B0ull ^ s->n;
    double worst = 0;
    for (int t = 0; t < BURN_CHECKED; t++) {
        uint64_t i, j;
        if (t < 4)
            i = t & 1 ? s->n - 1 : 0, j = t & 2 ? s->n - 1 : 0;
        else
            i = gb_splitmix64(&seed) % s->n, j = gb_splitmix64(&seed) % s->n;
        double mag;
        const double ref = ref_elem(s, i, j, &mag), got = c_elem(s, s->c0h, i + j * s->n);
        const double e = mag > 0 ? fabs(got - ref) / mag : fabs(got - ref);
        if (!(e <= tol))
            return gb_case_mismatch(ctx,
                                    "failed-accuracy: the first product's C(%llu,%llu) = %.9g, "
                                    "the host reference %.9g (relative error %.3g, tolerance "
                                    "%.3g)",
                                    (unsigned long long)i, (unsigned long long)j, got, ref, e, tol);
        worst = fmax(worst, e);
    }
    ctx->max_error = worst;
    return 0;
}

/* The test hook: flips bit 0 of C's word 0 now (after iteration `iter`'s product). */
static int corrupt(struct gb_case_ctx *ctx, struct burn *s)
{
    int err = ctx->ops->queue_sync(ctx->q);
    if (!err && !s->flip)
        err = gb_case_alloc(ctx, 4, GB_MEM_HOST_PAGEABLE, &s->flip);
    if (err || (err = ctx->ops->copy(ctx->q, s->flip, 0, s->c, 0, 4, GB_COPY_BLOCKING)))
        return err;
    ((unsigned char *)s->flip->host)[0] ^= 1u;
    return ctx->ops->copy(ctx->q, s->c, 0, s->flip, 0, 4, GB_COPY_BLOCKING);
}

/* The telemetry to read: the case's device's session where the profile has telemetry on, or the
 * test hook's. NULL with s->tel_why saying why none. */
static struct gb_tel_session *tel_session(struct gb_case_ctx *ctx, struct burn *s)
{
    const char *pci = getenv(BURN_NVML_ENV);
    struct gb_tel_session *ts = NULL;
    if (pci && *pci) {
        const struct gb_tel_target t = {.nvidia = true, .vendor = "NVIDIA", .pci_bus_id = pci};
        if (gb_tel_open(&t, &s->own_tel))
            s->own_tel = NULL;
        ts = s->own_tel;
    } else if (ctx->run && !ctx->run->telemetry.enabled) {
        snprintf(s->tel_why, sizeof s->tel_why, "absent: telemetry off in the profile");
        return NULL;
    } else {
        ts = gb_tel_session_for(ctx->dev);
    }
    struct gb_tel_source_status st[GB_TEL_NSRC];
    if (!ts) {
        snprintf(s->tel_why, sizeof s->tel_why, "absent: no telemetry session");
        return NULL;
    }
    if (!gb_tel_sources(ts, st)) {
        /* The figure's 63 characters hold the start of the first source's reason. */
        char why[sizeof st[0].reason + 32];
        snprintf(why, sizeof why, "absent: %s: %s", st[0].name, st[0].reason);
        snprintf(s->tel_why, sizeof s->tel_why, "%.63s", why);
        return NULL;
    }
    return ts;
}

static void close_window(struct burn *s, struct gb_tel_session *ts, double rate)
{
    if (s->nwin >= s->capwin)
        return;
    struct burn_window *w = &s->win[s->nwin++];
    w->rate = rate;
    memset(&w->tel, 0, sizeof w->tel);
    if (ts)
        gb_tel_read(ts, &w->tel);
}

static void sleep_s(double sec)
{
    if (!(sec > 0))
        return;
    struct timespec t = {.tv_sec = (time_t)sec, .tv_nsec = (long)((sec - floor(sec)) * 1e9)};
    nanosleep(&t, NULL);
}

/* The loop: products and their comparisons, in batches, for s->duration seconds. */
static int burn_loop(struct gb_case_ctx *ctx, struct burn *s)
{
    struct gb_tel_session *ts = tel_session(ctx, s);
    s->tel_on = ts != NULL;
    const double flops = 2.0 * (double)s->n * (double)s->n * (double)s->n;
    const char *corrupt_env = getenv(BURN_CORRUPT_ENV);
    const long long corrupt_at = corrupt_env && *corrupt_env ? atoll(corrupt_env) : -1;
    if (ts)
        gb_tel_read(ts, &s->tel0);
    const double t0 = gb_now(), end = t0 + s->duration;
    double phase_end = s->pulse > 0 ? t0 + s->pulse : INFINITY;
    double w0 = t0;
    uint64_t batch = 1, wops = 0;
    int err = 0;
    s->cycles = s->pulse > 0 ? 1 : 0;
    for (double now = t0; now < end && !err;) {
        if (now >= phase_end) {
            /* Pulse: the load's phase ends; the window closes and the device idles. */
            if (wops && now > w0)
                close_window(s, ts, (double)wops * flops / (now - w0) / 1e9);
            wops = 0;
            sleep_s(fmin(s->pulse, end - now));
            gb_worker_heartbeat();
            now = gb_now();
            phase_end = now + s->pulse;
            w0 = now;
            s->cycles++;
            continue;
        }
        const double b0 = gb_now();
        for (uint64_t k = 0; k < batch && !err; k++) {
            const uint64_t iter = ++s->iters;
            if (!(err = gemm_once(ctx, s)) && (long long)iter == corrupt_at)
                err = corrupt(ctx, s);
            s->cl.args[3] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = (uint32_t)iter};
            if (!err)
                err = ctx->ops->launch(ctx->q, s->ckern, &s->cl);
        }
        if (err || (err = ctx->ops->queue_sync(ctx->q)))
            break;
        now = gb_now();
        wops += batch;
        /* A batch of about a quarter window; at most doubled each time. */
        const double bt_s = now - b0, want = s->window / 4;
        if (bt_s > 0) {
            double next = (double)batch * want / bt_s;
            next = fmin(next, 2.0 * (double)batch);
            batch = next < 1 ? 1 : (uint64_t)next;
        }
        if (now - w0 >= s->window || (now >= end && now - w0 >= s->window / 2)) {
            close_window(s, ts, (double)wops * flops / (now - w0) / 1e9);
            wops = 0;
            w0 = now;
            /* The supervisor's case limit is on silence: a window is progress. */
            gb_worker_heartbeat();
        }
        if (ctx->stop && *ctx->stop)
            break; /* Ctrl-C without a supervisor: the runner sees the flag next and records
                    * nothing for this case (with one, the worker is ended before this) */
    }
    if (err)
        return err;
    uint32_t out[4];
    if ((err = gb_case_download(ctx, out, s->out, sizeof out)))
        return err;
    s->errors = out[0] + ((uint64_t)out[3] << 32); /* a wrapped count: at least 2^32 */
    s->first_iter = out[1];
    s->first_word = out[2];
    return 0;
}

static int burn_setup(struct gb_case_ctx *ctx)
{
    struct burn *s = ctx->state;
    const struct gb_device_info *info = &ctx->dev->info;
    s->t = parse_bt(gb_params_str(ctx->params, "dtype"));
    s->duration = gb_params_float(ctx->params, "duration");
    s->pulse = gb_params_float(ctx->params, "pulse");
    s->n = (uint64_t)gb_params_int(ctx->params, "n");
    if (s->n == 0)
        s->n = info->type == GB_DEVICE_GPU ? 8192 : 256;
    if (s->n % 16)
        return gb_case_skip(ctx, "n = %llu: expected a multiple of 16 (FP8's rule, kept for all)",
                            (unsigned long long)s->n);
    s->tn = s->t == BT_F8;
    s->window = s->duration >= 10 ? 1.0 : s->duration / 10;
    if (s->pulse > 0 && s->window > s->pulse)
        s->window = s->pulse;
    s->nc = s->n * s->n;
    s->cbytes = s->nc * gb_dtype_size(bt[s->t].out);
    const double need =
        2.0 * (double)s->nc * (double)gb_dtype_size(bt[s->t].in) + 2.0 * (double)s->cbytes;
    if (info->global_mem && need > (double)info->global_mem)
        return gb_case_skip(ctx,
                            "A, B, C and the first product need %.4g bytes, the device has "
                            "%llu",
                            need, (unsigned long long)info->global_mem);
    int err = make_input(ctx, s, 0xB1ull ^ s->n, &s->a64, &s->a);
    if (err || (err = make_input(ctx, s, 0xB2ull ^ s->n, &s->b64, &s->b)) ||
        (err = gb_case_alloc(ctx, s->cbytes, GB_MEM_DEVICE, &s->c)) ||
        (err = gb_case_alloc(ctx, s->cbytes, GB_MEM_DEVICE, &s->c0)) ||
        (err = gb_case_alloc(ctx, 4 * 4, GB_MEM_DEVICE, &s->out)))
        return err;
    /* The first product, checked against the host, kept in c0. */
    if ((err = choose_impl(ctx, s)) || (err = ctx->ops->queue_sync(ctx->q)))
        return err;
    if (!(s->c0h = gb_case_read_back(ctx, s->c, s->cbytes, &err)))
        return err;
    if ((err = check_first(ctx, s)))
        return err == GB_EVERIFY ? GB_FAIL(GB_EVERIFY, "%s", ctx->reason) : err;
    if ((err = ctx->ops->copy(ctx->q, s->c0, 0, s->c, 0, s->cbytes, GB_COPY_BLOCKING)))
        return err;
    const uint32_t init[4] = {0, 0xFFFFFFFFu, 0, 0};
    if ((err = gb_case_upload(ctx, s->out, init, sizeof init)))
        return err;
    uint32_t wg = gb_case_own_wg(ctx, BURN_WG);
    if ((err = gb_case_build_hooked(ctx, "burn.cl", "burn_compare", NULL, 0, NULL, &wg, &s->cprog,
                                    &s->ckern)))
        return err;
    const uint64_t words = s->cbytes / 4, items = (words + 15) / 16;
    s->cl = (struct gb_launch){
        .dims = 1, .global = {(items + wg - 1) / wg * wg, 1, 1}, .local = {wg, 1, 1}, .nargs = 5};
    s->cl.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->c};
    s->cl.args[1] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->c0};
    s->cl.args[2] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = words};
    s->cl.args[3] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = 0};
    s->cl.args[4] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->out};
    s->capwin = (size_t)(s->duration / s->window) * 2 + 8;
    if (!(s->win = calloc(s->capwin, sizeof *s->win)))
        return GB_FAIL(GB_ENOMEM, "burn: %zu windows", s->capwin);
    if ((err = burn_loop(ctx, s)))
        return err;
    /* The harness's runs write C anew: poisoned, so that verify sees only what they wrote. */
    if ((err = gb_case_poison(ctx, s->c, s->cbytes, bt[s->t].out)))
        return err;
    ctx->op.flops = 2.0 * (double)s->n * (double)s->n * (double)s->n;
    ctx->op.integer = s->t == BT_I8;
    ctx->op.timer = GB_TIMER_DEVICE;
    return 0;
}

static int burn_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct burn *s = ctx->state;
    int err = 0;
    for (uint64_t r = 0; r < reps && !err; r++)
        err = gemm_once(ctx, s);
    return err;
}

static int burn_verify(struct gb_case_ctx *ctx)
{
    struct burn *s = ctx->state;
    if (s->errors)
        return gb_case_mismatch(ctx,
                                "failed-burn: %llu words of the products differed from the "
                                "first product; first in iteration %u of %llu (word %u)",
                                (unsigned long long)s->errors, s->first_iter,
                                (unsigned long long)s->iters, s->first_word);
    int err;
    unsigned char *c = gb_case_read_back(ctx, s->c, s->cbytes, &err);
    if (!c)
        return err;
    for (uint64_t i = 0; i + 4 <= s->cbytes; i += 4)
        if (memcmp(c + i, s->c0h + i, 4)) {
            uint32_t got, want;
            memcpy(&got, c + i, 4);
            memcpy(&want, s->c0h + i, 4);
            free(c);
            return gb_case_mismatch(ctx,
                                    "the timed runs' product differs from the first product at "
                                    "word %llu: 0x%08x, expected 0x%08x",
                                    (unsigned long long)(i / 4), got, want);
        }
    free(c);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The names of NVML throttle reason bits (backends/telemetry.h), GpuIdle left out. */
static void reason_names(uint64_t r, char *buf, size_t len)
{
    static const struct {
        uint64_t bit;
        const char *name;
    } names[] = {{0x2, "ApplicationsClocksSetting"},
                 {0x4, "SwPowerCap"},
                 {0x8, "HwSlowdown"},
                 {0x10, "SyncBoost"},
                 {0x20, "SwThermalSlowdown"},
                 {0x40, "HwThermalSlowdown"},
                 {0x80, "HwPowerBrakeSlowdown"}};
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (r & names[i].bit)
            gb_appendf(buf, len, "%s%s", buf[0] ? "," : "", names[i].name);
    if (!buf[0])
        snprintf(buf, len, "0x%llx", (unsigned long long)r);
}

/* The arithmetic peak of the case (GFLOP/s or GOP/s; 0: unknown): the library may use matrix
 * units (gb_peak_ops with matrix), the own kernel computes in float or int32 on the vector
 * units. */
static double burn_peak(const struct gb_case_ctx *ctx, const struct burn *s)
{
    static const enum gb_peak_op op[BT_COUNT] = {
        [BT_F32] = GB_PEAK_F32,   [BT_F16] = GB_PEAK_F16, [BT_BF16] = GB_PEAK_BF16,
        [BT_TF32] = GB_PEAK_TF32, [BT_F8] = GB_PEAK_F8,   [BT_I8] = GB_PEAK_INT8_DOT};
    const struct gb_device_info *info = &ctx->dev->info;
    if (s->own)
        return gb_peak_ops(info, s->t == BT_I8 ? GB_PEAK_I32 : GB_PEAK_F32, false, NULL, 0) / 1e9;
    return gb_peak_ops(info, op[s->t], true, NULL, 0) / 1e9;
}

static void burn_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct burn *s = ctx->state;
    (void)op_time_s;
    const char *unit = s->t == BT_I8 ? "GOP/s" : "GFLOP/s";
    gb_case_figure(ctx, "errors", "", (double)s->errors);
    gb_case_figure(ctx, "iterations", "", (double)s->iters);
    gb_case_figure(ctx, "window", "s", s->window);
    gb_case_text(ctx, "impl", "%s", s->own ? "own (kernels/gemm.cl)" : "library");
    if (s->pulse > 0)
        gb_case_figure(ctx, "pulse_cycles", "", (double)s->cycles);
    if (s->nwin) {
        double *r = malloc(s->nwin * sizeof *r);
        if (r) {
            for (size_t i = 0; i < s->nwin; i++)
                r[i] = s->win[i].rate;
            gb_case_headline(ctx, "sustained", unit, GB_BETTER_HIGHER, r, s->nwin);
            qsort(r, s->nwin, sizeof *r, cmp_double);
            /* Bounded by the precision's arithmetic peak where it is known (0: by the unit's,
             * the device's highest). */
            const double peak = burn_peak(ctx, s);
            gb_case_figure_bounded(ctx, "sustained_min", unit, r[0], peak);
            gb_case_figure_bounded(
                ctx, "sustained_median", unit,
                s->nwin % 2 ? r[s->nwin / 2] : (r[s->nwin / 2 - 1] + r[s->nwin / 2]) / 2, peak);
            free(r);
        }
    }
    if (!s->tel_on) {
        gb_case_text(ctx, "telemetry", "%s", s->tel_why);
        return;
    }
    const struct gb_tel_reading *first = s->nwin ? &s->win[0].tel : NULL,
                                *last = s->nwin ? &s->win[s->nwin - 1].tel : NULL;
    char absent[64] = "";
    if (first && isfinite(first->q[GB_TQ_CLOCK]) && isfinite(last->q[GB_TQ_CLOCK]) &&
        first->q[GB_TQ_CLOCK] > 0) {
        const double c0 = first->q[GB_TQ_CLOCK], c1 = last->q[GB_TQ_CLOCK];
        gb_case_figure(ctx, "clock_start", "MHz", c0);
        gb_case_figure(ctx, "clock_end", "MHz", c1);
        gb_case_figure_bounded(ctx, "clock_drop", "%", 100 * (c0 - c1) / c0, 100);
    } else {
        gb_appendf(absent, sizeof absent, "clock");
    }
    if (last && isfinite(last->q[GB_TQ_TEMP]))
        gb_case_figure(ctx, "temp_end", "C", last->q[GB_TQ_TEMP]);
    else
        gb_appendf(absent, sizeof absent, "%stemperature", absent[0] ? ", " : "");
    if (last && isfinite(last->q[GB_TQ_POWER]))
        gb_case_figure(ctx, "power_end", "W", last->q[GB_TQ_POWER]);
    else
        gb_appendf(absent, sizeof absent, "%spower", absent[0] ? ", " : "");
    bool reasons = false, throttled = false;
    for (size_t i = 0; i < s->nwin; i++) {
        const struct gb_tel_reading *w = &s->win[i].tel;
        reasons |= w->has_reasons;
        if (w->has_reasons && (w->reasons & ~GB_TEL_REASON_IDLE)) {
            char names[64];
            reason_names(w->reasons & ~GB_TEL_REASON_IDLE, names, sizeof names);
            gb_case_figure(ctx, "time_to_throttle", "s", w->t - s->tel0.t);
            gb_case_text(ctx, "throttle_reason", "%s", names);
            throttled = true;
            break;
        }
    }
    if (!reasons)
        gb_appendf(absent, sizeof absent, "%sthrottle reasons", absent[0] ? ", " : "");
    else if (!throttled)
        gb_case_text(ctx, "throttle_reason", "none");
    if (absent[0])
        gb_case_text(ctx, "telemetry", "not read: %s", absent);
}

static void burn_teardown(struct gb_case_ctx *ctx)
{
    struct burn *s = ctx->state;
    gb_case_free_kernel(ctx, &s->gkern, &s->gprog);
    gb_case_free_kernel(ctx, &s->ckern, &s->cprog);
    gb_case_free_bufs(ctx, &s->a, &s->b, &s->c, &s->c0, &s->out, &s->flip, NULL);
    free(s->a64);
    free(s->b64);
    free(s->c0h);
    free(s->win);
    s->a64 = s->b64 = NULL;
    s->c0h = NULL;
    s->win = NULL;
    if (s->own_tel)
        gb_tel_close(s->own_tel);
    s->own_tel = NULL;
}

/* What a case holds at once (gb_suite.footprint): on the host the inputs drawn in FP64 (2 n^2
 * doubles), their device bytes while uploaded, the first product and verify's read-back; on the
 * device A, B, C and the first product. n 0 (the suite's pick) counts where the device's type is
 * known. */
static void burn_footprint(const struct gb_params *p, const struct gb_device_info *info,
                           struct gb_footprint *fp)
{
    double n = (double)gb_params_int(p, "n");
    if (n == 0 && info->global_mem)
        n = info->type == GB_DEVICE_GPU ? 8192 : 256;
    const enum bt t = parse_bt(gb_params_str(p, "dtype"));
    const double nn = n * n, in = nn * (double)gb_dtype_size(bt[t].in),
                 c = nn * (double)gb_dtype_size(bt[t].out);
    *fp = (struct gb_footprint){.host = 2 * nn * sizeof(double) + in + 2 * c,
                                .device = 2 * in + 2 * c,
                                .largest = in > c ? in : c};
}

/* Work of one operation, for validate's time estimate. */
static double burn_op_flops(const struct gb_params *p)
{
    const double n = (double)gb_params_int(p, "n");
    return 2 * n * n * n;
}

const struct gb_suite gb_suite_burn = {
    .name = "burn",
    .summary = "sustained GEMM load per precision for a duration: every product compared with "
               "the first (gpu-burn), throughput and clocks over time, throttling, temperature, "
               "power",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "dtype",
    .state_size = sizeof(struct burn),
    .setup = burn_setup,
    .run = burn_run,
    .verify = burn_verify,
    .teardown = burn_teardown,
    .figures = burn_figures,
    .op_flops = burn_op_flops,
    .footprint = burn_footprint,
    .chart = {.kind = GB_CHART_BARS},
};
