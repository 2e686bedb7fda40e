/* Device tests of the OpenCL backend, run for real on whatever OpenCL platform is installed (PoCL
 * on the CPU in CI; no mocks). Each test runs in its own process, so a test may set
 * POCL_DEVICES, OCL_ICD_VENDORS or GB_OPENCL_TIMER before it calls init(). A machine without
 * any OpenCL device skips them, saying so. */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "backends/backend.h"
#include "base/error.h"
#include "gb-config.h"
#include "test.h"

#if HAVE_OPENCL

extern const struct gb_backend_ops gb_opencl_ops;
static const struct gb_backend_ops *const ocl = &gb_opencl_ops;

/* The byte at position i of the test pattern with seed s. */
static uint8_t pattern(uint64_t i, unsigned s)
{
    return (uint8_t)((i * 2654435761u) >> 13 ^ s);
}

/* A kernel text with a few entry points used below. SCALE and OFFSET come from -D defines;
 * without them the build fails, which the test relies on to prove the defines arrive. */
static const char *const kernel_src = "__kernel void axpb(__global int *x, int n)\n"
                                      "{\n"
                                      "    size_t i = get_global_id(0);\n"
                                      "    if (i < (size_t)n)\n"
                                      "#ifdef USE_OFFSET\n"
                                      "        x[i] = x[i] * SCALE + OFFSET;\n"
                                      "#else\n"
                                      "        x[i] = x[i] * SCALE;\n"
                                      "#endif\n"
                                      "}\n"
                                      "__kernel void index2d(__global uint *out, uint width)\n"
                                      "{\n"
                                      "    size_t x = get_global_id(0), y = get_global_id(1);\n"
                                      "    out[y * width + x] = (uint)(y * 1000 + x);\n"
                                      "}\n"
                                      "__kernel void mark(__global int *x)\n"
                                      "{\n"
                                      "    x[get_global_id(0)] = 42;\n"
                                      "}\n"
                                      "__kernel void spin(__global float *x, uint iters)\n"
                                      "{\n"
                                      "    size_t i = get_global_id(0);\n"
                                      "    float v = x[i];\n"
                                      "    for (uint k = 0; k < iters; k++)\n"
                                      "        v = v * 0.999999f + 0.5f;\n"
                                      "    x[i] = v;\n"
                                      "}\n";

static struct gb_program *build_test_program(struct gb_device *dev)
{
    static const char *const defs[] = {"SCALE=3", "OFFSET=7", "USE_OFFSET"};
    struct gb_program *prog = NULL;
    char *log = (char *)"sentinel";
    ASSERT_OK(ocl->program_build(dev, kernel_src, defs, 3, &prog, &log));
    ASSERT(log == NULL);
    return prog;
}

/* ---- discovery ---------------------------------------------------------------------------- */

TEST(opencl_init_lists_devices)
{
    struct gb_device *dev = gb_test_open_device(ocl, 0);
    ocl->device_close(dev);
    ASSERT_STR(ocl->name, "opencl");
    int n = ocl->device_count();
    ASSERT_INT(n, >=, 1);
    /* A second init is a no-op and keeps the list. */
    ASSERT_OK(ocl->init());
    ASSERT_EQ(ocl->device_count(), n);
    for (int i = 0; i < n; i++) {
        struct gb_device_info info;
        ASSERT_OK(ocl->device_info(i, &info));
        ASSERT(info.name[0] != '\0');
    }
    struct gb_device_info info;
    ASSERT_EQ(ocl->device_info(n, &info), GB_ENODEV);
    ASSERT_EQ(ocl->device_info(-1, &info), GB_ENODEV);
    struct gb_device *none = NULL;
    ASSERT_EQ(ocl->device_open(n, &none), GB_ENODEV);
    ocl->shutdown();
    ASSERT_EQ(ocl->device_count(), 0);
    /* init works again after shutdown. */
    ASSERT_OK(ocl->init());
    ASSERT_EQ(ocl->device_count(), n);
    ocl->shutdown();
}

TEST(opencl_init_without_platform_says_why)
{
    /* An ICD directory with no vendor files: the loader finds no platform. */
    const char *dir = gb_test_tmpdir();
    setenv("OCL_ICD_VENDORS", dir, 1);
    setenv("OCL_ICD_FILENAMES", "", 1);
    int rc = ocl->init();
    ASSERT_EQ(rc, GB_EUNAVAIL);
    printf("%s\n", gb_error_msg());
    /* The ICD loader says CL_PLATFORM_NOT_FOUND_KHR; another loader may report 0 platforms. */
    ASSERT_CONTAINS(gb_error_msg(), "no OpenCL platform (clGetPlatformIDs");
    ASSERT_EQ(ocl->device_count(), 0);
}

TEST(opencl_device_info_is_plausible)
{
    struct gb_device *dev = gb_test_open_device(ocl, 0);
    const struct gb_device_info *in = &dev->info;
    struct gb_device_info unopened;
    ASSERT_OK(ocl->device_info(0, &unopened));
    ASSERT_STR(unopened.name, in->name);
    ASSERT(dev->ops == ocl);
    ASSERT_EQ(dev->index, 0);

    printf("%s | %s | %s | %s | %s\n", in->name, in->vendor, in->driver, in->version, in->platform);
    printf("mem %" PRIu64 " max_alloc %" PRIu64 " local %" PRIu64 " cache %" PRIu64
           " cus %u clock %u wg %u (%u,%u,%u) warp %u caps 0x%" PRIx64 "\n",
           in->global_mem, in->max_alloc, in->local_mem, in->l2_bytes, in->compute_units,
           in->clock_mhz, in->max_wg_size, in->max_wg_dims[0], in->max_wg_dims[1],
           in->max_wg_dims[2], in->warp_size, in->caps);
    ASSERT(in->name[0] && in->vendor[0] && in->driver[0] && in->platform[0]);
    ASSERT(strncmp(in->version, "OpenCL ", 7) == 0);
    ASSERT_U64(in->global_mem, >=, (uint64_t)64 << 20);
    ASSERT_U64(in->max_alloc, >=,
               in->global_mem / 4 < (128u << 20) ? in->global_mem / 4 : (uint64_t)128 << 20);
    ASSERT_U64(in->max_alloc, <=, in->global_mem);
    ASSERT_U64(in->local_mem, >=, 1024);
    ASSERT_INT(in->compute_units, >=, 1);
    ASSERT_INT(in->max_wg_size, >=, 1);
    for (int d = 0; d < 3; d++) {
        ASSERT_INT(in->max_wg_dims[d], >=, 1);
        ASSERT_INT(in->max_wg_dims[d], <=, in->max_wg_size);
    }
    ASSERT_INT(in->warp_size, >=, 1);
    ASSERT((in->caps & GB_CAP_PEER) == 0);
    /* BLAS comes from CLBlast when built with it (tests/test_opencl_blas.c tests it); CLBlast
     * has no mixed-precision, bfloat16 or TF32 GEMM. */
    ASSERT((in->caps & (GB_CAP_BLAS_BF16 | GB_CAP_BLAS_MIXED | GB_CAP_BLAS_TF32)) == 0);
    ASSERT(!!(in->caps & GB_CAP_BLAS_F32) == !!HAVE_CLBLAST);
    ASSERT((ocl->gemm != NULL) == !!HAVE_CLBLAST && ocl->peer_copy == NULL);
    if (gb_test_is_pocl(&dev->info)) {
        /* PoCL on a CPU: shared memory, doubles, no cl_khr_fp16, 1 GiB-ish allocations. */
        ASSERT(in->caps & GB_CAP_UNIFIED);
        ASSERT(in->caps & GB_CAP_FP64);
        ASSERT((in->caps & GB_CAP_FP16) == 0);
        ASSERT_EQ(in->warp_size, 1);
    }
    ocl->device_close(dev);
}

/* The loop-trip probe: no limit on a sound platform (up to the probe's 2^20 + 1), and a limit
 * planted in the probe's loop (GPUBENCH_TEST_LOOP_TRIPS, as a driver that stops loops would) is
 * found whether it falls below 2^16 or between 2^16 and 2^20; one beyond the probe's largest
 * count reads as none. The device list, which opens nothing, says 0 throughout. Prints what the
 * probe costs. */
TEST(opencl_loop_trip_probe_finds_a_planted_limit)
{
    struct gb_device *dev = gb_test_open_device(ocl, 0);
    ASSERT(ocl->device_probe != NULL);
    ASSERT_EQ(dev->info.max_loop_trips, 0);
    static const struct {
        const char *plant;
        uint32_t want;
    } c[] = {{"", 0}, {"65535", 65535}, {"100000", 100000}, {"2000000", 0}, {"", 0}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        setenv("GPUBENCH_TEST_LOOP_TRIPS", c[i].plant, 1);
        const double t0 = gb_test_now_s();
        ASSERT_OK(ocl->device_probe(dev));
        printf("probe with \"%s\" planted: %u (%.1f ms)\n", c[i].plant, dev->info.max_loop_trips,
               (gb_test_now_s() - t0) * 1e3);
        ASSERT_EQ(dev->info.max_loop_trips, c[i].want);
    }
    struct gb_device_info listed;
    ASSERT_OK(ocl->device_info(0, &listed));
    ASSERT_EQ(listed.max_loop_trips, 0);
    ocl->device_close(dev);
    unsetenv("GPUBENCH_TEST_LOOP_TRIPS");
}

/* ---- memory ------------------------------------------------------------------------------- */

TEST(opencl_alloc_each_kind)
{
    struct gb_device *dev = gb_test_open_device(ocl, 0);
    const uint64_t sizes[] = {1, 12345, (uint64_t)16 << 20};
    const enum gb_mem_kind kinds[] = {GB_MEM_DEVICE, GB_MEM_HOST_PINNED, GB_MEM_HOST_PAGEABLE};
    for (size_t s = 0; s < 3; s++) {
        for (size_t k = 0; k < 3; k++) {
            struct gb_buf *b = NULL;
            ASSERT_OK(ocl->buf_alloc(dev, sizes[s], kinds[k], &b));
            ASSERT(b->dev == dev);
            ASSERT_U64(b->bytes, ==, sizes[s]);
            ASSERT_EQ(b->kind, kinds[k]);
            if (kinds[k] == GB_MEM_DEVICE) {
                ASSERT(b->host == NULL);
            } else {
                ASSERT(b->host != NULL);
                if (kinds[k] == GB_MEM_HOST_PAGEABLE)
                    ASSERT_U64((uintptr_t)b->host % 4096, ==, 0);
                /* Host memory is writable all the way through. */
                memset(b->host, 0xab, sizes[s]);
                ASSERT_EQ(((uint8_t *)b->host)[sizes[s] - 1], 0xab);
            }
            ocl->buf_free(b);
        }
    }
    ocl->device_close(dev);
}

TEST(opencl_alloc_too_big_and_invalid)
{
    struct gb_device *dev = gb_test_open_device(ocl, 0);
    struct gb_buf *b = NULL;
    /* 5 GiB does not fit in 32 bits: a truncating size would pass the check. */
    const uint64_t five_gib = (uint64_t)5 << 30;
    char max_s[32];
    snprintf(max_s, sizeof max_s, "%" PRIu64, dev->info.max_alloc);
    if (dev->info.max_alloc < five_gib) {
        ASSERT_EQ(ocl->buf_alloc(dev, five_gib, GB_MEM_DEVICE, &b), GB_ETOOBIG);
        ASSERT_CONTAINS(gb_error_msg(), "5368709120");
        ASSERT_CONTAINS(gb_error_msg(), max_s);
        ASSERT_EQ(ocl->buf_alloc(dev, five_gib, GB_MEM_HOST_PINNED, &b), GB_ETOOBIG);
        ASSERT_CONTAINS(gb_error_msg(), "5368709120");
    }
    ASSERT_EQ(ocl->buf_alloc(dev, dev->info.max_alloc + 1, GB_MEM_DEVICE, &b), GB_ETOOBIG);
    ASSERT_CONTAINS(gb_error_msg(), max_s);
    ASSERT_EQ(ocl->buf_alloc(dev, UINT64_MAX, GB_MEM_HOST_PINNED, &b), GB_ETOOBIG);
    ASSERT_EQ(ocl->buf_alloc(dev, 0, GB_MEM_DEVICE, &b), GB_EINVAL);
    ASSERT_EQ(ocl->buf_alloc(dev, 64, (enum gb_mem_kind)3, &b), GB_EINVAL);
#if !GB_TEST_ASAN
    /* Pageable memory is host memory, not bound by the device's limit; an impossible size is
     * a plain allocation failure. (AddressSanitizer aborts on such a request instead.) */
    ASSERT_EQ(ocl->buf_alloc(dev, UINT64_MAX / 2, GB_MEM_HOST_PAGEABLE, &b), GB_ENOMEM);
#endif
    ocl->device_close(dev);
}

/* ---- transfers ---------------------------------------------------------------------------- */

/* host_kind -> device (at an offset) -> device (D2D, other offsets) -> host, checked. */
static void roundtrip(enum gb_mem_kind host_kind, enum gb_copy_flags flags)
{
    struct gb_device *dev = gb_test_open_device(ocl, 0);
    struct gb_queue *q = NULL;
    ASSERT_OK(ocl->queue_create(dev, &q));
    const uint64_t n = ((uint64_t)8 << 20) + 333; /* not a multiple of anything nice */
    struct gb_buf *src = NULL, *dst = NULL, *d1 = NULL, *d2 = NULL;
    ASSERT_OK(ocl->buf_alloc(dev, n + 100, host_kind, &src));
    ASSERT_OK(ocl->buf_alloc(dev, n + 100, host_kind, &dst));
    ASSERT_OK(ocl->buf_alloc(dev, n + 64, GB_MEM_DEVICE, &d1));
    ASSERT_OK(ocl->buf_alloc(dev, n + 200, GB_MEM_DEVICE, &d2));
    uint8_t *s = src->host, *d = dst->host;
    for (uint64_t i = 0; i < n + 100; i++)
        s[i] = pattern(i, 0x5c);
    memset(d, 0, n + 100);

    ASSERT_OK(ocl->copy(q, d1, 64, src, 100, n, flags)); /* H2D */
    ASSERT_OK(ocl->copy(q, d2, 200, d1, 64, n, flags));  /* D2D */
    ASSERT_OK(ocl->copy(q, dst, 7, d2, 200, n, flags));  /* D2H */
    if (flags == GB_COPY_ASYNC)
        ASSERT_OK(ocl->queue_sync(q));
    for (uint64_t i = 0; i < 7; i++)
        ASSERT_EQ(d[i], 0);
    for (uint64_t i = 0; i < n; i++)
        if (d[7 + i] != s[100 + i])
            ASSERT_MSG(0, "byte %" PRIu64 ": %u vs %u", i, d[7 + i], s[100 + i]);
    for (uint64_t i = n + 7; i < n + 100; i++)
        ASSERT_EQ(d[i], 0);

    /* A partial copy back of a middle slice lands where asked. */
    memset(d, 0, n + 100);
    ASSERT_OK(ocl->copy(q, dst, 0, d1, 64 + 1000, 4096, flags));
    ASSERT_OK(ocl->queue_flush(q));
    ASSERT_OK(ocl->queue_sync(q));
    ASSERT(memcmp(d, s + 100 + 1000, 4096) == 0);
    ASSERT_EQ(d[4096], 0);

    ocl->buf_free(src);
    ocl->buf_free(dst);
    ocl->buf_free(d1);
    ocl->buf_free(d2);
    ocl->queue_destroy(q);
    ocl->device_close(dev);
}

TEST(opencl_copy_roundtrip_pageable_blocking)
{
    roundtrip(GB_MEM_HOST_PAGEABLE, GB_COPY_BLOCKING);
}

TEST(opencl_copy_roundtrip_pageable_async)
{
    roundtrip(GB_MEM_HOST_PAGEABLE, GB_COPY_ASYNC);
}

TEST(opencl_copy_roundtrip_pinned_blocking)
{
    roundtrip(GB_MEM_HOST_PINNED, GB_COPY_BLOCKING);
}

TEST(opencl_copy_roundtrip_pinned_async)
{
    roundtrip(GB_MEM_HOST_PINNED, GB_COPY_ASYNC);
}

TEST(opencl_copy_rejects_bad_ranges)
{
    struct gb_device *dev = gb_test_open_device(ocl, 0);
    struct gb_queue *q = NULL;
    struct gb_buf *h = NULL, *h2 = NULL, *dv = NULL;
    ASSERT_OK(ocl->queue_create(dev, &q));
    ASSERT_OK(ocl->buf_alloc(dev, 4096, GB_MEM_HOST_PAGEABLE, &h));
    ASSERT_OK(ocl->buf_alloc(dev, 4096, GB_MEM_HOST_PINNED, &h2));
    ASSERT_OK(ocl->buf_alloc(dev, 4096, GB_MEM_DEVICE, &dv));
    ASSERT_EQ(ocl->copy(q, dv, 0, h, 0, 4097, GB_COPY_BLOCKING), GB_EINVAL);
    ASSERT_EQ(ocl->copy(q, dv, 1, h, 0, 4096, GB_COPY_BLOCKING), GB_EINVAL);
    ASSERT_EQ(ocl->copy(q, dv, 0, h, 4097, 0, GB_COPY_BLOCKING), GB_EINVAL);
    /* offset + bytes wraps around 2^64: must still be caught. */
    ASSERT_EQ(ocl->copy(q, dv, 16, h, 0, UINT64_MAX - 8, GB_COPY_BLOCKING), GB_EINVAL);
    ASSERT_EQ(ocl->copy(q, h, UINT64_MAX, dv, 0, 2, GB_COPY_BLOCKING), GB_EINVAL);
    ASSERT_EQ(ocl->copy(q, h, 0, h2, 0, 16, GB_COPY_BLOCKING), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "host-to-host");
    ASSERT_EQ(ocl->copy(q, dv, 0, dv, 100, 200, GB_COPY_BLOCKING), GB_EINVAL);
    /* Disjoint ranges of one buffer are fine, and so are zero bytes. */
    ASSERT_OK(ocl->copy(q, dv, 0, dv, 2048, 2048, GB_COPY_BLOCKING));
    ASSERT_OK(ocl->copy(q, dv, 4096, h, 4096, 0, GB_COPY_BLOCKING));
    ocl->buf_free(h);
    ocl->buf_free(h2);
    ocl->buf_free(dv);
    ocl->queue_destroy(q);
    ocl->device_close(dev);
}

/* ---- programs and launches ---------------------------------------------------------------- */

TEST(opencl_kernel_with_defines_runs)
{
    struct gb_device *dev = gb_test_open_device(ocl, 0);
    struct gb_queue *q = NULL;
    ASSERT_OK(ocl->queue_create(dev, &q));
    struct gb_program *prog = build_test_program(dev);
    struct gb_kernel *k = NULL;
    ASSERT_OK(ocl->kernel_get(prog, "axpb", &k));
    uint32_t max_wg = 0;
    ASSERT_OK(ocl->kernel_max_wg(k, &max_wg));
    ASSERT_INT(max_wg, >=, 1);
    ASSERT_INT(max_wg, <=, dev->info.max_wg_size);

    const int32_t n = 1000; /* launched as 1024 items: the kernel's bound check matters */
    struct gb_buf *h = NULL, *dv = NULL;
    ASSERT_OK(ocl->buf_alloc(dev, (uint64_t)n * 4, GB_MEM_HOST_PAGEABLE, &h));
    ASSERT_OK(ocl->buf_alloc(dev, (uint64_t)n * 4, GB_MEM_DEVICE, &dv));
    int32_t *x = h->host;
    for (int32_t i = 0; i < n; i++)
        x[i] = i - 500;
    ASSERT_OK(ocl->copy(q, dv, 0, h, 0, (uint64_t)n * 4, GB_COPY_BLOCKING));
    struct gb_launch l = {.dims = 1, .global = {1024, 1, 1}, .local = {64, 1, 1}, .nargs = 2};
    l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = dv};
    l.args[1] = (struct gb_arg){.kind = GB_ARG_I32, .v.i32 = n};
    ASSERT_OK(ocl->launch(q, k, &l));
    ASSERT_OK(ocl->copy(q, h, 0, dv, 0, (uint64_t)n * 4, GB_COPY_BLOCKING));
    for (int32_t i = 0; i < n; i++)
        ASSERT_EQ(x[i], (i - 500) * 3 + 7);

    /* Two dimensions, each item writing its coordinates. */
    struct gb_kernel *k2 = NULL;
    ASSERT_OK(ocl->kernel_get(prog, "index2d", &k2));
    const uint32_t w = 48, hgt = 20;
    struct gb_buf *h2 = NULL, *d2 = NULL;
    ASSERT_OK(ocl->buf_alloc(dev, (uint64_t)w * hgt * 4, GB_MEM_HOST_PINNED, &h2));
    ASSERT_OK(ocl->buf_alloc(dev, (uint64_t)w * hgt * 4, GB_MEM_DEVICE, &d2));
    struct gb_launch l2 = {.dims = 2, .global = {w, hgt, 1}, .local = {16, 4, 1}, .nargs = 2};
    l2.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = d2};
    l2.args[1] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = w};
    ASSERT_OK(ocl->launch(q, k2, &l2));
    ASSERT_OK(ocl->copy(q, h2, 0, d2, 0, (uint64_t)w * hgt * 4, GB_COPY_ASYNC));
    ASSERT_OK(ocl->queue_sync(q));
    const uint32_t *o = h2->host;
    for (uint32_t y = 0; y < hgt; y++)
        for (uint32_t xx = 0; xx < w; xx++)
            ASSERT_EQ(o[y * w + xx], y * 1000 + xx);

    struct gb_kernel *none = NULL;
    ASSERT_EQ(ocl->kernel_get(prog, "no_such_kernel", &none), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "no_such_kernel");

    ocl->kernel_free(k);
    ocl->kernel_free(k2);
    ocl->program_free(prog);
    ocl->buf_free(h);
    ocl->buf_free(dv);
    ocl->buf_free(h2);
    ocl->buf_free(d2);
    ocl->queue_destroy(q);
    ocl->device_close(dev);
}

TEST(opencl_build_error_returns_log)
{
    struct gb_device *dev = gb_test_open_device(ocl, 0);
    struct gb_program *prog = NULL;
    char *log = NULL;
    /* Without the defines, SCALE is undeclared: the defines really are what made it build. */
    ASSERT_EQ(ocl->program_build(dev, kernel_src, NULL, 0, &prog, &log), GB_EBUILD);
    ASSERT(prog == NULL);
    ASSERT(log != NULL && log[0] != '\0');
    ASSERT_CONTAINS(log, "SCALE");
    ASSERT_CONTAINS(gb_error_msg(), "clBuildProgram: CL_BUILD_PROGRAM_FAILURE (-11)");
    ASSERT_CONTAINS(gb_error_msg(), "SCALE");
    free(log);

    log = NULL;
    const char *broken = "__kernel void f(__global int *x) { x[0] = ; }\n";
    ASSERT_EQ(ocl->program_build(dev, broken, NULL, 0, &prog, &log), GB_EBUILD);
    ASSERT(log != NULL && strlen(log) > 0);
    printf("build log:\n%s\n", log);
    free(log);
    /* A NULL log pointer is allowed. */
    ASSERT_EQ(ocl->program_build(dev, broken, NULL, 0, &prog, NULL), GB_EBUILD);

    /* A define that is not one token is refused before the compiler sees it. */
    const char *bad[] = {"T=unsigned int"};
    ASSERT_EQ(ocl->program_build(dev, kernel_src, bad, 1, &prog, &log), GB_EINVAL);
    ASSERT(log == NULL);
    ocl->device_close(dev);
}

/* A device buffer of n ints set to -1, for checking that a refused launch did not run. */
static struct gb_buf *minus_ones(struct gb_device *dev, struct gb_queue *q, uint64_t n)
{
    struct gb_buf *h = NULL, *dv = NULL;
    ASSERT_OK(ocl->buf_alloc(dev, n * 4, GB_MEM_HOST_PAGEABLE, &h));
    ASSERT_OK(ocl->buf_alloc(dev, n * 4, GB_MEM_DEVICE, &dv));
    memset(h->host, 0xff, n * 4);
    ASSERT_OK(ocl->copy(q, dv, 0, h, 0, n * 4, GB_COPY_BLOCKING));
    ocl->buf_free(h);
    return dv;
}

static void assert_untouched(struct gb_device *dev, struct gb_queue *q, struct gb_buf *dv,
                             uint64_t n)
{
    struct gb_buf *h = NULL;
    ASSERT_OK(ocl->queue_sync(q));
    ASSERT_OK(ocl->buf_alloc(dev, n * 4, GB_MEM_HOST_PAGEABLE, &h));
    ASSERT_OK(ocl->copy(q, h, 0, dv, 0, n * 4, GB_COPY_BLOCKING));
    const int32_t *x = h->host;
    for (uint64_t i = 0; i < n; i++)
        ASSERT_EQ(x[i], -1);
    ocl->buf_free(h);
}

TEST(opencl_launch_rejects_oversized_work_group)
{
    struct gb_device *dev = gb_test_open_device(ocl, 0);
    struct gb_queue *q = NULL;
    ASSERT_OK(ocl->queue_create(dev, &q));
    struct gb_program *prog = build_test_program(dev);
    struct gb_kernel *k = NULL;
    ASSERT_OK(ocl->kernel_get(prog, "mark", &k));
    const uint32_t too_big = dev->info.max_wg_size * 2;
    const uint64_t n = too_big;
    struct gb_buf *dv = minus_ones(dev, q, n);

    struct gb_launch l = {.dims = 1, .global = {n, 1, 1}, .local = {too_big, 1, 1}, .nargs = 1};
    l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = dv};
    ASSERT_EQ(ocl->launch(q, k, &l), GB_EINVAL);
    char want[128];
    snprintf(want, sizeof want, "work-group size %u exceeds the device maximum %u", too_big,
             dev->info.max_wg_size);
    ASSERT_CONTAINS(gb_error_msg(), want);
    printf("%s\n", gb_error_msg());

    /* Within the total but over a per-dimension limit, where that limit is below the total. */
    if (dev->info.max_wg_dims[2] < dev->info.max_wg_size) {
        struct gb_launch l3 = {.dims = 3,
                               .global = {1, 1, (uint64_t)dev->info.max_wg_dims[2] * 2},
                               .local = {1, 1, dev->info.max_wg_dims[2] * 2},
                               .nargs = 1};
        l3.args[0] = l.args[0];
        ASSERT_EQ(ocl->launch(q, k, &l3), GB_EINVAL);
    }
    /* Zero sizes and bad dimension counts. */
    struct gb_launch l0 = l;
    l0.local[0] = 0;
    ASSERT_EQ(ocl->launch(q, k, &l0), GB_EINVAL);
    l0 = l;
    l0.dims = 4;
    ASSERT_EQ(ocl->launch(q, k, &l0), GB_EINVAL);
    assert_untouched(dev, q, dv, n);

    ocl->buf_free(dv);
    ocl->kernel_free(k);
    ocl->program_free(prog);
    ocl->queue_destroy(q);
    ocl->device_close(dev);
}

TEST(opencl_launch_rejects_non_dividing_global)
{
    struct gb_device *dev = gb_test_open_device(ocl, 0);
    struct gb_queue *q = NULL;
    ASSERT_OK(ocl->queue_create(dev, &q));
    struct gb_program *prog = build_test_program(dev);
    struct gb_kernel *k = NULL;
    ASSERT_OK(ocl->kernel_get(prog, "mark", &k));
    const uint64_t n = 100;
    struct gb_buf *dv = minus_ones(dev, q, n);
    struct gb_launch l = {.dims = 1, .global = {100, 1, 1}, .local = {8, 1, 1}, .nargs = 1};
    l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = dv};
    ASSERT_EQ(ocl->launch(q, k, &l), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "global size 100 in dimension 0 is not a multiple of the "
                                    "work-group size 8");
    /* Wrong argument count, and a host buffer where a device buffer belongs. */
    l.local[0] = 4;
    l.nargs = 2;
    l.args[1] = (struct gb_arg){.kind = GB_ARG_I32, .v.i32 = 1};
    ASSERT_EQ(ocl->launch(q, k, &l), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "takes 1 arguments");
    assert_untouched(dev, q, dv, n);

    /* And the same launch with a dividing size does run. */
    l.nargs = 1;
    ASSERT_OK(ocl->launch(q, k, &l));
    struct gb_buf *h = NULL;
    ASSERT_OK(ocl->buf_alloc(dev, n * 4, GB_MEM_HOST_PAGEABLE, &h));
    ASSERT_OK(ocl->copy(q, h, 0, dv, 0, n * 4, GB_COPY_BLOCKING));
    ASSERT_EQ(((int32_t *)h->host)[99], 42);
    ocl->buf_free(h);

    ocl->buf_free(dv);
    ocl->kernel_free(k);
    ocl->program_free(prog);
    ocl->queue_destroy(q);
    ocl->device_close(dev);
}

TEST(opencl_cl_error_detail_names_call_and_code)
{
    struct gb_device *dev = gb_test_open_device(ocl, 0);
    struct gb_queue *q = NULL;
    ASSERT_OK(ocl->queue_create(dev, &q));
    struct gb_program *prog = build_test_program(dev);
    struct gb_kernel *k = NULL;
    ASSERT_OK(ocl->kernel_get(prog, "axpb", &k));
    struct gb_buf *dv = NULL;
    ASSERT_OK(ocl->buf_alloc(dev, 256, GB_MEM_DEVICE, &dv));
    /* `n` is an int; passing 8 bytes is a real CL_INVALID_ARG_SIZE from the platform. */
    struct gb_launch l = {.dims = 1, .global = {64, 1, 1}, .local = {64, 1, 1}, .nargs = 2};
    l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = dv};
    l.args[1] = (struct gb_arg){.kind = GB_ARG_I64, .v.i64 = 64};
    ASSERT_EQ(ocl->launch(q, k, &l), GB_EINVAL);
    printf("%s\n", gb_error_msg());
    /* The source location is kept apart from the message the user reads. */
    ASSERT_CONTAINS(gb_error_where(), "opencl_program.c:");
    ASSERT(!strstr(gb_error_msg(), "opencl_program.c:"));
    ASSERT_CONTAINS(gb_error_msg(), "clSetKernelArg: CL_INVALID_ARG_SIZE (-51)");
    ASSERT_CONTAINS(gb_error_msg(), "axpb");
    ocl->buf_free(dv);
    ocl->kernel_free(k);
    ocl->program_free(prog);
    ocl->queue_destroy(q);
    ocl->device_close(dev);
}

/* ---- timing ------------------------------------------------------------------------------- */

/* Times a 64 MiB H2D copy with events and against the host clock. Returns the event time. */
static uint64_t timed_copy(struct gb_device *dev, struct gb_queue *q, struct gb_buf *dv,
                           struct gb_buf *h, double *wall_s)
{
    struct gb_event *a = NULL, *b = NULL;
    ASSERT_OK(ocl->event_create(dev, &a));
    ASSERT_OK(ocl->event_create(dev, &b));
    ASSERT_OK(ocl->queue_sync(q));
    double t0 = gb_test_now_s();
    ASSERT_OK(ocl->event_record(q, a));
    ASSERT_OK(ocl->copy(q, dv, 0, h, 0, dv->bytes, GB_COPY_ASYNC));
    ASSERT_OK(ocl->event_record(q, b));
    ASSERT_OK(ocl->event_sync(b));
    *wall_s = gb_test_now_s() - t0;
    ASSERT_OK(ocl->event_sync(a));
    uint64_t ns = 0;
    ASSERT_OK(ocl->event_elapsed_ns(a, b, &ns));
    /* Reversed, the interval is negative: an error, never a huge unsigned number. */
    uint64_t rev = 0;
    if (ns > 0)
        ASSERT_EQ(ocl->event_elapsed_ns(b, a, &rev), GB_EINVAL);
    ocl->event_free(a);
    ocl->event_free(b);
    return ns;
}

static void check_copy_timing(void)
{
    struct gb_device *dev = gb_test_open_device(ocl, 0);
    struct gb_queue *q = NULL;
    ASSERT_OK(ocl->queue_create(dev, &q));
    const uint64_t bytes = (uint64_t)64 << 20;
    struct gb_buf *h = NULL, *dv = NULL;
    ASSERT_OK(ocl->buf_alloc(dev, bytes, GB_MEM_HOST_PAGEABLE, &h));
    ASSERT_OK(ocl->buf_alloc(dev, bytes, GB_MEM_DEVICE, &dv));
    memset(h->host, 3, bytes);
    double wall;
    /* The first copy also pays for the lazily allocated device pages (PoCL); warm up. */
    (void)timed_copy(dev, q, dv, h, &wall);
    double best = 0;
    for (int rep = 0; rep < 5; rep++) {
        uint64_t ns = timed_copy(dev, q, dv, h, &wall);
        double ev_s = (double)ns * 1e-9;
        printf("64 MiB H2D: events %.3f ms, wall %.3f ms, %.2f GB/s\n", ev_s * 1e3, wall * 1e3,
               (double)bytes / ev_s * 1e-9);
        ASSERT_U64(ns, >, 0);
        /* Events measure from the first marker's completion to the second's, both inside the
         * host's interval, so they are never longer than it (slack for clock domains). */
        ASSERT_MSG(ev_s <= wall * 1.02 + 200e-6, "events %.6f s vs wall %.6f s", ev_s, wall);
        best = fmax(best, ev_s / wall);
    }
    /* And on a copy this long, not much shorter either, at least once (a busy host can
     * stretch any one wall-clock interval). */
    ASSERT_MSG(best >= 0.5, "events / wall at best %.3f", best);

    /* Unrecorded events, and events that are not yet complete, are refused. */
    struct gb_event *a = NULL, *b = NULL;
    ASSERT_OK(ocl->event_create(dev, &a));
    ASSERT_OK(ocl->event_create(dev, &b));
    uint64_t ns;
    ASSERT_EQ(ocl->event_elapsed_ns(a, b, &ns), GB_EINVAL);
    ASSERT_EQ(ocl->event_sync(a), GB_EINVAL);
    /* Re-recording replaces the previous point in time. */
    ASSERT_OK(ocl->event_record(q, a));
    ASSERT_OK(ocl->event_record(q, a));
    ASSERT_OK(ocl->event_record(q, b));
    ASSERT_OK(ocl->event_sync(b));
    ASSERT_OK(ocl->event_sync(a));
    ASSERT_OK(ocl->event_elapsed_ns(a, b, &ns));
    ASSERT_U64(ns, <, 50000000);
    ocl->event_free(a);
    ocl->event_free(b);

    ocl->buf_free(h);
    ocl->buf_free(dv);
    ocl->queue_destroy(q);
    ocl->device_close(dev);
}

TEST(opencl_event_timing_of_copy_matches_wall_clock)
{
    check_copy_timing();
}

TEST(opencl_event_timing_with_fill_timer)
{
    /* The fallback for platforms whose markers carry no usable timestamps. */
    setenv("GB_OPENCL_TIMER", "fill", 1);
    check_copy_timing();
}

TEST(opencl_event_timing_of_kernel_matches_wall_clock)
{
    struct gb_device *dev = gb_test_open_device(ocl, 0);
    struct gb_queue *q = NULL;
    ASSERT_OK(ocl->queue_create(dev, &q));
    struct gb_program *prog = build_test_program(dev);
    struct gb_kernel *k = NULL;
    ASSERT_OK(ocl->kernel_get(prog, "spin", &k));
    const uint64_t n = 4096;
    struct gb_buf *dv = NULL;
    ASSERT_OK(ocl->buf_alloc(dev, n * 4, GB_MEM_DEVICE, &dv));
    struct gb_launch l = {.dims = 1, .global = {n, 1, 1}, .local = {64, 1, 1}, .nargs = 2};
    l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = dv};
    l.args[1] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = 20000};
    struct gb_event *a = NULL, *b = NULL;
    ASSERT_OK(ocl->event_create(dev, &a));
    ASSERT_OK(ocl->event_create(dev, &b));
    ASSERT_OK(ocl->launch(q, k, &l)); /* warm-up */
    double best = 0;
    for (int rep = 0; rep < 3; rep++) {
        ASSERT_OK(ocl->queue_sync(q));
        double t0 = gb_test_now_s();
        ASSERT_OK(ocl->event_record(q, a));
        ASSERT_OK(ocl->launch(q, k, &l));
        ASSERT_OK(ocl->launch(q, k, &l));
        ASSERT_OK(ocl->event_record(q, b));
        ASSERT_OK(ocl->event_sync(b));
        double wall = gb_test_now_s() - t0;
        uint64_t ns = 0;
        ASSERT_OK(ocl->event_elapsed_ns(a, b, &ns));
        printf("2 kernels: events %.3f ms, wall %.3f ms\n", (double)ns * 1e-6, wall * 1e3);
        ASSERT_U64(ns, >, 0);
        ASSERT_MSG((double)ns * 1e-9 <= wall * 1.02 + 200e-6, "events %" PRIu64 " ns, wall %.6f s",
                   ns, wall);
        best = fmax(best, (double)ns * 1e-9 / wall);
    }
    ASSERT_MSG(best >= 0.5, "events / wall at best %.3f", best);
    ocl->event_free(a);
    ocl->event_free(b);
    ocl->buf_free(dv);
    ocl->kernel_free(k);
    ocl->program_free(prog);
    ocl->queue_destroy(q);
    ocl->device_close(dev);
}

/* ---- several devices ---------------------------------------------------------------------- */

struct worker {
    int index;
    int rc;
    char msg[1024];
};

/* A whole device's life on one thread: open, build, copy, launch, check, close. Failures are
 * returned (not asserted) because ASSERT exits the whole process. */
static void *work_on_device(void *arg)
{
    struct worker *w = arg;
    struct gb_device *dev = NULL;
    struct gb_queue *q = NULL;
    struct gb_program *prog = NULL;
    struct gb_kernel *k = NULL;
    struct gb_buf *h = NULL, *dv = NULL;
    static const char *const defs[] = {"SCALE=3", "OFFSET=7", "USE_OFFSET"};
    const int32_t n = 1 << 20;
    int rc;
    if ((rc = ocl->device_open(w->index, &dev)) || (rc = ocl->queue_create(dev, &q)) ||
        (rc = ocl->program_build(dev, kernel_src, defs, 3, &prog, NULL)) ||
        (rc = ocl->kernel_get(prog, "axpb", &k)) ||
        (rc = ocl->buf_alloc(dev, (uint64_t)n * 4, GB_MEM_HOST_PINNED, &h)) ||
        (rc = ocl->buf_alloc(dev, (uint64_t)n * 4, GB_MEM_DEVICE, &dv)))
        goto out;
    int32_t *x = h->host;
    for (int rep = 0; rep < 5; rep++) {
        for (int32_t i = 0; i < n; i++)
            x[i] = i + w->index + rep;
        struct gb_launch l = {
            .dims = 1, .global = {(uint64_t)n, 1, 1}, .local = {128, 1, 1}, .nargs = 2};
        l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = dv};
        l.args[1] = (struct gb_arg){.kind = GB_ARG_I32, .v.i32 = n};
        if ((rc = ocl->copy(q, dv, 0, h, 0, (uint64_t)n * 4, GB_COPY_ASYNC)) ||
            (rc = ocl->launch(q, k, &l)) ||
            (rc = ocl->copy(q, h, 0, dv, 0, (uint64_t)n * 4, GB_COPY_ASYNC)) ||
            (rc = ocl->queue_sync(q)))
            goto out;
        for (int32_t i = 0; i < n; i++) {
            if (x[i] != (i + w->index + rep) * 3 + 7) {
                rc = GB_FAIL(GB_EVERIFY, "device %d rep %d: x[%d] = %d", w->index, rep, i, x[i]);
                goto out;
            }
        }
    }
out:
    if (rc)
        snprintf(w->msg, sizeof w->msg, "%s", gb_error_msg());
    w->rc = rc;
    if (dev) {
        ocl->buf_free(h);
        ocl->buf_free(dv);
        ocl->kernel_free(k);
        ocl->program_free(prog);
        if (q)
            ocl->queue_destroy(q);
        ocl->device_close(dev);
    }
    return NULL;
}

static void two_devices_two_threads(const char *pocl_devices)
{
    setenv("POCL_DEVICES", pocl_devices, 1);
    struct gb_device *dev = gb_test_open_device(ocl, 0);
    const bool pocl = gb_test_is_pocl(&dev->info);
    char platform[sizeof dev->info.platform];
    snprintf(platform, sizeof platform, "%s", dev->info.platform);
    ocl->device_close(dev);
    const int n = ocl->device_count();
    if (pocl)
        ASSERT_EQ(n, 2); /* PoCL makes one device per POCL_DEVICES entry */
    if (n < 2)
        SKIP("needs two OpenCL devices; %s offers %d with POCL_DEVICES='%s' (only PoCL makes "
             "devices from it)",
             platform, n, pocl_devices);
    struct gb_device_info i0, i1;
    ASSERT_OK(ocl->device_info(0, &i0));
    ASSERT_OK(ocl->device_info(1, &i1));
    printf("device 0: %s\ndevice 1: %s\n", i0.name, i1.name);
    struct worker w[2] = {{.index = 0}, {.index = 1}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        ASSERT_EQ(pthread_create(&t[i], NULL, work_on_device, &w[i]), 0);
    for (int i = 0; i < 2; i++)
        ASSERT_EQ(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < 2; i++)
        ASSERT_MSG(w[i].rc == 0, "device %d: %s (%s)", i, gb_err_name(w[i].rc), w[i].msg);
}

TEST(opencl_two_devices_from_two_threads)
{
    two_devices_two_threads("pthread pthread");
}

TEST(opencl_two_unequal_devices_from_two_threads)
{
    two_devices_two_threads("basic pthread");
}

#endif /* HAVE_OPENCL */
