/* clblast-direct — the SGEMM call gpubench's gemm suite makes (impl=library, prec=f32), made
 * directly through OpenCL and CLBlast's C API with no gpubench code in between, and timed the
 * way gpubench times it: a marker enqueued on the in-order profiling queue before a batch of
 * calls and one after, the batch grown until one sample lasts --min-time, the median of the
 * samples reported. It is the peer of scripts/bench-precision.sh's "CLBlast SGEMM through
 * gpubench vs direct" ratio.
 *
 * It also reports what CLBlast's own returned event says for a single call, which covers only the
 * last kernel CLBlast enqueued (for some shapes it pads or transposes before its GEMM kernel):
 * the number gpubench must not report.
 *
 * With -c it makes the conv suite's call instead (impl=library, prec=f32, dir=fwd, NCHW):
 * CLBlastSconvgemm in cross-correlation mode on an N x C x H x W image batch and K filters of
 * C x R x S, square stride and padding, dilation 1, counted as the suite counts it
 * (2 N K C R S P Q): the peer of scripts/bench-conv.sh's "convgemm through gpubench vs direct".
 *
 * Usage: clblast-direct [-d DEVICE] [-m M] [-n N] [-k K] [-c N,C,H,W,K,R,S,STRIDE,PAD]
 *                       [-s SAMPLES] [-t MIN_SAMPLE_SECONDS]
 *   DEVICE: index over every platform's devices in platform order (gpubench's OpenCL indices).
 *   Defaults: device 0, 1024 x 1024 x 1024, 15 samples, 0.02 s.
 * Output: "key value" lines: device, m, n, k, batch (calls per sample), samples,
 *   sgemm_gflops_median, sgemm_gflops_best, clblast_event_gflops (one call, CLBlast's event);
 *   with -c: device, conv (the nine numbers), batch, samples, conv_gflops_median,
 *   conv_gflops_best.
 * Exit status 0, or 1 with a message on stderr.
 */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <clblast_c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(what, code)                                                         \
    do {                                                                          \
        cl_int c__ = (cl_int)(code);                                              \
        if (c__ != CL_SUCCESS) {                                                  \
            fprintf(stderr, "clblast-direct: %s failed: %d\n", (what), (int)c__); \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

static cl_device_id find_device(int index, cl_platform_id *plat)
{
    cl_uint np = 0;
    CHECK("clGetPlatformIDs", clGetPlatformIDs(0, NULL, &np));
    cl_platform_id *ps = calloc(np ? np : 1, sizeof *ps);
    CHECK("clGetPlatformIDs", clGetPlatformIDs(np, ps, NULL));
    int seen = 0;
    for (cl_uint p = 0; p < np; p++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS)
            continue;
        cl_device_id *ds = calloc(nd ? nd : 1, sizeof *ds);
        CHECK("clGetDeviceIDs", clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, nd, ds, NULL));
        for (cl_uint d = 0; d < nd; d++, seen++)
            if (seen == index) {
                cl_device_id id = ds[d];
                *plat = ps[p];
                free(ds);
                free(ps);
                return id;
            }
        free(ds);
    }
    fprintf(stderr, "clblast-direct: no OpenCL device %d (found %d)\n", index, seen);
    exit(1);
}

static cl_ulong end_of(cl_event e)
{
    cl_ulong t = 0;
    CHECK("clGetEventProfilingInfo",
          clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t, &t, NULL));
    return t;
}

/* Whether s is a whole number: digits only, at most 12 of them. */
static int whole(const char *s)
{
    size_t n = strspn(s, "0123456789");
    return n > 0 && n <= 12 && s[n] == '\0';
}

/* Whether s is "d,d,d,d,d,d,d,d,d": nine whole numbers. */
static int nine_whole(const char *s)
{
    for (int i = 0; i < 9; i++) {
        size_t n = strspn(s, "0123456789");
        if (n == 0 || n > 12 || s[n] != (i == 8 ? '\0' : ','))
            return 0;
        s += n + 1;
    }
    return 1;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The call measured: an SGEMM (m, n, k) or, with conv[0] > 0, a convgemm of conv[0..8] = N, C,
 * H, W, K, R, S, stride, padding. */
struct call {
    size_t m, n, k;
    size_t conv[9];
    cl_mem a, b, c;
};

static void enqueue(cl_command_queue q, const struct call *x)
{
    const size_t *v = x->conv;
    if (v[0])
        CHECK("CLBlastSconvgemm",
              CLBlastSconvgemm(CLBlastKernelModeCrossCorrelation, v[1], v[2], v[3], v[5], v[6],
                               v[8], v[8], v[7], v[7], 1, 1, v[4], v[0], x->a, 0, x->b, 0, x->c, 0,
                               &q, NULL));
    else
        CHECK("CLBlastSgemm", CLBlastSgemm(CLBlastLayoutColMajor, CLBlastTransposeNo,
                                           CLBlastTransposeNo, x->m, x->n, x->k, 1.0f, x->a, 0,
                                           x->m, x->b, 0, x->k, 0.0f, x->c, 0, x->m, &q, NULL));
}

/* Seconds between a marker before `batch` calls and one after them. */
static double timed(cl_command_queue q, unsigned long batch, const struct call *x)
{
    cl_event e0, e1;
    CHECK("clEnqueueMarkerWithWaitList", clEnqueueMarkerWithWaitList(q, 0, NULL, &e0));
    for (unsigned long r = 0; r < batch; r++)
        enqueue(q, x);
    CHECK("clEnqueueMarkerWithWaitList", clEnqueueMarkerWithWaitList(q, 0, NULL, &e1));
    CHECK("clWaitForEvents", clWaitForEvents(1, &e1));
    const double t = (double)(end_of(e1) - end_of(e0)) * 1e-9;
    clReleaseEvent(e0);
    clReleaseEvent(e1);
    return t;
}

/* GFLOP/s samples of x (flops a call) between markers, as gpubench's harness takes them: first
 * the batch is doubled until one sample lasts min_time (nothing kept), then `samples` samples,
 * returned sorted ascending (malloc'd; NULL when out of memory) with the batch in *batch. */
static double *sample_gflops(cl_command_queue q, const struct call *x, double flops,
                             double min_time, int samples, unsigned long *batch)
{
    double *gf = malloc((size_t)samples * sizeof *gf);
    if (!gf)
        return NULL;
    *batch = 1;
    while (timed(q, *batch, x) < min_time)
        *batch *= 2;
    for (int i = 0; i < samples; i++)
        gf[i] = flops * (double)*batch / timed(q, *batch, x) / 1e9;
    qsort(gf, (size_t)samples, sizeof *gf, by_value);
    return gf;
}

/* The median of n sorted values. */
static double median(const double *v, int n)
{
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    int dev = 0, samples = 15, opt;
    size_t m = 1024, n = 1024, k = 1024, cv[9] = {0};
    double min_time = 0.02;
    while ((opt = getopt(argc, argv, "d:m:n:k:c:s:t:")) != -1) {
        switch (opt) {
        case 'd':
            if (!whole(optarg)) {
                fprintf(stderr, "clblast-direct: -d takes a device index, not '%s'\n", optarg);
                return 1;
            }
            dev = atoi(optarg);
            break;
        case 'm':
            m = strtoull(optarg, NULL, 10);
            break;
        case 'n':
            n = strtoull(optarg, NULL, 10);
            break;
        case 'k':
            k = strtoull(optarg, NULL, 10);
            break;
        case 'c':
            if (!nine_whole(optarg) ||
                sscanf(optarg, "%zu,%zu,%zu,%zu,%zu,%zu,%zu,%zu,%zu", &cv[0], &cv[1], &cv[2],
                       &cv[3], &cv[4], &cv[5], &cv[6], &cv[7], &cv[8]) != 9 ||
                !cv[0] || !cv[1] || !cv[2] || !cv[3] || !cv[4] || !cv[5] || !cv[6] || !cv[7] ||
                cv[2] + 2 * cv[8] < cv[5] || cv[3] + 2 * cv[8] < cv[6]) {
                fprintf(stderr, "clblast-direct: -c takes N,C,H,W,K,R,S,STRIDE,PAD (positive but "
                                "PAD, the filter within the padded image)\n");
                return 1;
            }
            break;
        case 's':
            samples = atoi(optarg);
            break;
        case 't':
            min_time = atof(optarg);
            if (!(min_time > 0 && min_time <= 10)) {
                fprintf(stderr, "clblast-direct: -t takes seconds in (0, 10], not '%s'\n", optarg);
                return 1;
            }
            break;
        default:
            fprintf(stderr, "usage: clblast-direct [-d DEVICE] [-m M] [-n N] [-k K] "
                            "[-c N,C,H,W,K,R,S,STRIDE,PAD] [-s SAMPLES] [-t MIN_SAMPLE_SECONDS]\n");
            return 1;
        }
    }
    if (!m || !n || !k || samples < 1 || !(min_time > 0)) {
        fprintf(stderr, "clblast-direct: sizes, samples and the sample time must be positive\n");
        return 1;
    }
    cl_platform_id plat;
    cl_device_id id = find_device(dev, &plat);
    char name[256] = "";
    clGetDeviceInfo(id, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    cl_int err;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
    cl_context ctx = clCreateContext(props, 1, &id, NULL, NULL, &err);
    CHECK("clCreateContext", err);
    cl_command_queue q = clCreateCommandQueue(ctx, id, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK("clCreateCommandQueue", err);

    /* Inputs as gpubench's uniform distribution would have them; the values do not change the
     * time, only that they are finite. A convolution's operands: the images, the filters and
     * the output. */
    const size_t cp = cv[0] ? (cv[2] + 2 * cv[8] - cv[5]) / cv[7] + 1 : 0;
    const size_t cq = cv[0] ? (cv[3] + 2 * cv[8] - cv[6]) / cv[7] + 1 : 0;
    const size_t na = cv[0] ? cv[0] * cv[1] * cv[2] * cv[3] : m * k;
    const size_t nb = cv[0] ? cv[4] * cv[1] * cv[5] * cv[6] : k * n;
    const size_t nc = cv[0] ? cv[0] * cv[4] * cp * cq : m * n;
    float *h = malloc((na > nb ? (na > nc ? na : nc) : (nb > nc ? nb : nc)) * sizeof *h);
    if (!h) {
        fprintf(stderr, "clblast-direct: out of host memory\n");
        return 1;
    }
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, na * sizeof(float), NULL, &err);
    CHECK("clCreateBuffer(A)", err);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, nb * sizeof(float), NULL, &err);
    CHECK("clCreateBuffer(B)", err);
    cl_mem c = clCreateBuffer(ctx, CL_MEM_READ_WRITE, nc * sizeof(float), NULL, &err);
    CHECK("clCreateBuffer(C)", err);
    unsigned s = 1;
    for (size_t i = 0; i < na || i < nb; i++)
        h[i] = (float)((s = s * 1103515245u + 12345u) >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
    CHECK("clEnqueueWriteBuffer(A)",
          clEnqueueWriteBuffer(q, a, CL_TRUE, 0, na * sizeof(float), h, 0, NULL, NULL));
    CHECK("clEnqueueWriteBuffer(B)",
          clEnqueueWriteBuffer(q, b, CL_TRUE, 0, nb * sizeof(float), h, 0, NULL, NULL));

    /* The call: column-major, no transposes, alpha 1, beta 0, tight leading dimensions — the
     * gemm suite's impl=library prec=f32 trans=nn; or the conv suite's convgemm. */
    struct call x = {.m = m, .n = n, .k = k, .a = a, .b = b, .c = c};
    memcpy(x.conv, cv, sizeof cv);
#define SGEMM(ev)                                                                              \
    CHECK("CLBlastSgemm",                                                                      \
          CLBlastSgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k, \
                       1.0f, a, 0, m, b, 0, k, 0.0f, c, 0, m, &q, (ev)))

    /* Warm-up: the first call compiles CLBlast's kernels. */
    for (int i = 0; i < 3; i++)
        enqueue(q, &x);
    CHECK("clFinish", clFinish(q));
    if (cv[0]) {
        const double flops = 2.0 * (double)cv[0] * (double)cv[4] * (double)cv[1] * (double)cv[5] *
                             (double)cv[6] * (double)cp * (double)cq;
        unsigned long batch;
        double *gf = sample_gflops(q, &x, flops, min_time, samples, &batch);
        if (!gf) {
            fprintf(stderr, "clblast-direct: out of host memory\n");
            return 1;
        }
        printf("device %s\nconv %zu,%zu,%zu,%zu,%zu,%zu,%zu,%zu,%zu\nbatch %lu\nsamples %d\n", name,
               cv[0], cv[1], cv[2], cv[3], cv[4], cv[5], cv[6], cv[7], cv[8], batch, samples);
        printf("conv_gflops_median %.4f\nconv_gflops_best %.4f\n", median(gf, samples),
               gf[samples - 1]);
        free(gf);
        free(h);
        return 0;
    }

    /* One call timed by CLBlast's own event: the last kernel only. */
    cl_event ev = NULL;
    SGEMM(&ev);
    CHECK("clWaitForEvents", clWaitForEvents(1, &ev));
    cl_ulong t0 = 0, t1 = 0;
    CHECK("clGetEventProfilingInfo",
          clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL));
    CHECK("clGetEventProfilingInfo",
          clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL));
    clReleaseEvent(ev);
    const double flops = 2.0 * (double)m * (double)n * (double)k;
    const double event_gflops = t1 > t0 ? flops / ((double)(t1 - t0) * 1e-9) / 1e9 : 0;

    unsigned long batch;
    double *gf = sample_gflops(q, &x, flops, min_time, samples, &batch);
    if (!gf) {
        fprintf(stderr, "clblast-direct: out of host memory\n");
        return 1;
    }
    printf("device %s\nm %zu\nn %zu\nk %zu\nbatch %lu\nsamples %d\n", name, m, n, k, batch,
           samples);
    printf("sgemm_gflops_median %.4f\nsgemm_gflops_best %.4f\nclblast_event_gflops %.4f\n",
           median(gf, samples), gf[samples - 1], event_gflops);
    free(gf);
    free(h);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
