/* gpubench — the OpenCL backend.
 *
 * Implements the contract of backends/backend.h on any OpenCL 1.2+ platform reached through the
 * ICD loader: PoCL on a CPU in CI, the NVIDIA, AMD and Intel drivers on real GPUs.
 *
 * Shape of the code:
 * - init() enumerates every platform and every device once and describes each device; that list
 *   is the only global state, so different devices can be driven from different host threads.
 * - A device handle owns one context and one internal in-order queue (used to map and unmap
 *   pinned buffers and to probe the event timer); user queues are created by queue_create.
 * - Every failing CL call goes through ocl__fail(), which records file:line, the call, the
 *   numeric code and its symbolic name. Handles are private structs with the public struct as
 *   their first member (container_of), and cleanup on error is one `goto fail` per function.
 *
 * Timing: event_record() enqueues a marker and event_elapsed_ns() subtracts the markers'
 * CL_PROFILING_COMMAND_END. Some platforms have reported no profiling data (or zero) for
 * markers, so device_open() checks once, with a real 1 MiB write between two markers, that the
 * markers' timestamps bracket the write; if they do not, the device records a 4-byte
 * clEnqueueFillBuffer instead, a real command whose timestamps every platform must report.
 * GB_OPENCL_TIMER=marker|fill forces either way (for tests and for suspicious platforms).
 */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#ifdef __APPLE__
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#include <CL/cl_ext.h>
#endif

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "error.h"

/* Vendor attribute queries, spelt out in case cl_ext.h is too old to have them. */
#ifndef CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV
#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001
#endif
#ifndef CL_DEVICE_WARP_SIZE_NV
#define CL_DEVICE_WARP_SIZE_NV 0x4003
#endif
#ifndef CL_DEVICE_WAVEFRONT_WIDTH_AMD
#define CL_DEVICE_WAVEFRONT_WIDTH_AMD 0x4043
#endif

/* The table at the end of the file; device handles point back to it. */
extern const struct gb_backend_ops gb_opencl_ops;

#define ocl__container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

/* ---- errors ------------------------------------------------------------------------------- */

/* Every OpenCL error code we can name. Numeric values rather than the header's macros, so that
 * the table compiles against old headers and still names codes that newer drivers return. */
#define OCL__ERRORS(X)                                                                          \
    X(CL_SUCCESS, 0)                                                                            \
    X(CL_DEVICE_NOT_FOUND, -1)                                                                  \
    X(CL_DEVICE_NOT_AVAILABLE, -2)                                                              \
    X(CL_COMPILER_NOT_AVAILABLE, -3)                                                            \
    X(CL_MEM_OBJECT_ALLOCATION_FAILURE, -4)                                                     \
    X(CL_OUT_OF_RESOURCES, -5)                                                                  \
    X(CL_OUT_OF_HOST_MEMORY, -6)                                                                \
    X(CL_PROFILING_INFO_NOT_AVAILABLE, -7)                                                      \
    X(CL_MEM_COPY_OVERLAP, -8)                                                                  \
    X(CL_IMAGE_FORMAT_MISMATCH, -9)                                                             \
    X(CL_IMAGE_FORMAT_NOT_SUPPORTED, -10)                                                       \
    X(CL_BUILD_PROGRAM_FAILURE, -11)                                                            \
    X(CL_MAP_FAILURE, -12)                                                                      \
    X(CL_MISALIGNED_SUB_BUFFER_OFFSET, -13)                                                     \
    X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, -14)                                        \
    X(CL_COMPILE_PROGRAM_FAILURE, -15)                                                          \
    X(CL_LINKER_NOT_AVAILABLE, -16)                                                             \
    X(CL_LINK_PROGRAM_FAILURE, -17)                                                             \
    X(CL_DEVICE_PARTITION_FAILED, -18)                                                          \
    X(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, -19)                                                    \
    X(CL_INVALID_VALUE, -30)                                                                    \
    X(CL_INVALID_DEVICE_TYPE, -31)                                                              \
    X(CL_INVALID_PLATFORM, -32)                                                                 \
    X(CL_INVALID_DEVICE, -33)                                                                   \
    X(CL_INVALID_CONTEXT, -34)                                                                  \
    X(CL_INVALID_QUEUE_PROPERTIES, -35)                                                         \
    X(CL_INVALID_COMMAND_QUEUE, -36)                                                            \
    X(CL_INVALID_HOST_PTR, -37)                                                                 \
    X(CL_INVALID_MEM_OBJECT, -38)                                                               \
    X(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, -39)                                                  \
    X(CL_INVALID_IMAGE_SIZE, -40)                                                               \
    X(CL_INVALID_SAMPLER, -41)                                                                  \
    X(CL_INVALID_BINARY, -42)                                                                   \
    X(CL_INVALID_BUILD_OPTIONS, -43)                                                            \
    X(CL_INVALID_PROGRAM, -44)                                                                  \
    X(CL_INVALID_PROGRAM_EXECUTABLE, -45)                                                       \
    X(CL_INVALID_KERNEL_NAME, -46)                                                              \
    X(CL_INVALID_KERNEL_DEFINITION, -47)                                                        \
    X(CL_INVALID_KERNEL, -48)                                                                   \
    X(CL_INVALID_ARG_INDEX, -49)                                                                \
    X(CL_INVALID_ARG_VALUE, -50)                                                                \
    X(CL_INVALID_ARG_SIZE, -51)                                                                 \
    X(CL_INVALID_KERNEL_ARGS, -52)                                                              \
    X(CL_INVALID_WORK_DIMENSION, -53)                                                           \
    X(CL_INVALID_WORK_GROUP_SIZE, -54)                                                          \
    X(CL_INVALID_WORK_ITEM_SIZE, -55)                                                           \
    X(CL_INVALID_GLOBAL_OFFSET, -56)                                                            \
    X(CL_INVALID_EVENT_WAIT_LIST, -57)                                                          \
    X(CL_INVALID_EVENT, -58)                                                                    \
    X(CL_INVALID_OPERATION, -59)                                                                \
    X(CL_INVALID_GL_OBJECT, -60)                                                                \
    X(CL_INVALID_BUFFER_SIZE, -61)                                                              \
    X(CL_INVALID_MIP_LEVEL, -62)                                                                \
    X(CL_INVALID_GLOBAL_WORK_SIZE, -63)                                                         \
    X(CL_INVALID_PROPERTY, -64)                                                                 \
    X(CL_INVALID_IMAGE_DESCRIPTOR, -65)                                                         \
    X(CL_INVALID_COMPILER_OPTIONS, -66)                                                         \
    X(CL_INVALID_LINKER_OPTIONS, -67)                                                           \
    X(CL_INVALID_DEVICE_PARTITION_COUNT, -68)                                                   \
    X(CL_INVALID_PIPE_SIZE, -69)                                                                \
    X(CL_INVALID_DEVICE_QUEUE, -70)                                                             \
    X(CL_INVALID_SPEC_ID, -71)                                                                  \
    X(CL_MAX_SIZE_RESTRICTION_EXCEEDED, -72)                                                    \
    X(CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR, -1000)                                            \
    X(CL_PLATFORM_NOT_FOUND_KHR, -1001)                                                         \
    X(CL_INVALID_D3D10_DEVICE_KHR, -1002)                                                       \
    X(CL_INVALID_D3D10_RESOURCE_KHR, -1003)                                                     \
    X(CL_D3D10_RESOURCE_ALREADY_ACQUIRED_KHR, -1004)                                            \
    X(CL_D3D10_RESOURCE_NOT_ACQUIRED_KHR, -1005)                                                \
    X(CL_DEVICE_PARTITION_FAILED_EXT, -1057)                                                    \
    X(CL_INVALID_PARTITION_COUNT_EXT, -1058)                                                    \
    X(CL_INVALID_PARTITION_NAME_EXT, -1059)                                                     \
    X(CL_EGL_RESOURCE_NOT_ACQUIRED_KHR, -1092)                                                  \
    X(CL_INVALID_EGL_OBJECT_KHR, -1093)                                                         \
    X(CL_CONTEXT_TERMINATED_KHR, -1121)

/* The symbolic name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or "CL_UNKNOWN_ERROR". */
static const char *cl_err_name(cl_int code)
{
    switch (code) {
#define OCL__ERR_CASE(name, val) \
    case (val):                  \
        return #name;
        OCL__ERRORS(OCL__ERR_CASE)
#undef OCL__ERR_CASE
    }
    return "CL_UNKNOWN_ERROR";
}

/* The one place a failed CL call is reported, at file:line and returned as `err`:
 * "call: CL_NAME (code)", or "what (call: CL_NAME code)" when the failure has a plainer meaning
 * to lead with ("no OpenCL platform (clGetPlatformIDs: CL_PLATFORM_NOT_FOUND_KHR -1001)").
 * Callers use the macros below, which supply file and line. */
static int ocl__fail(int err, const char *what, const char *call, cl_int code, const char *file,
                     int line)
{
    if (what)
        return gb_error_set(err, file, line, "%s (%s: %s %d)", what, call, cl_err_name(code),
                            (int)code);
    return gb_error_set(err, file, line, "%s: %s (%d)", call, cl_err_name(code), (int)code);
}

static int ocl__check(cl_int code, const char *call, const char *file, int line)
{
    return code == CL_SUCCESS ? 0 : ocl__fail(GB_EBACKEND, NULL, call, code, file, line);
}

/* OCL_FAIL_AS(GB_ENOMEM, "clCreateBuffer", err): report a failure as a chosen gb_err.
 * OCL_CHECK("clCreateBuffer", err): 0 if err is CL_SUCCESS, else GB_EBACKEND reported.
 * OCL_CALL(clFinish, (q)): call a function that returns its cl_int, then OCL_CHECK it. */
#define OCL_FAIL_AS(err, call, code) ocl__fail((err), NULL, (call), (code), __FILE__, __LINE__)
#define OCL_FAIL_WHAT(err, what, call, code) \
    ocl__fail((err), (what), (call), (code), __FILE__, __LINE__)
#define OCL_CHECK(call, code) ocl__check((code), (call), __FILE__, __LINE__)
#define OCL_CALL(fn, args) OCL_CHECK(#fn, fn args)

/* ---- private handles ---------------------------------------------------------------------- */

/* One device found by init(). */
struct ocl__devrec {
    cl_platform_id platform;
    cl_device_id id;
    bool cl20; /* the platform is OpenCL 2.0 or newer (clCreateCommandQueueWithProperties) */
    struct gb_device_info info;
};

/* The device list: the backend's only global state, written by init and shutdown only. */
static struct ocl__devrec *ocl__devs;
static int ocl__ndevs;
static bool ocl__inited;

enum ocl__timer { OCL__TIMER_MARKER, OCL__TIMER_FILL };

struct ocl_device {
    struct gb_device pub;
    cl_platform_id platform;
    cl_device_id id;
    bool cl20;
    cl_context ctx;
    cl_command_queue iq;   /* internal queue: map/unmap of pinned buffers, timer probe */
    enum ocl__timer timer; /* how event_record stamps time on this device */
    cl_mem scratch;        /* target of the 4-byte fills in OCL__TIMER_FILL mode, else NULL */
};

struct ocl_buf {
    struct gb_buf pub;
    cl_mem mem; /* NULL for pageable memory */
};

struct ocl_queue {
    struct gb_queue pub;
    cl_command_queue q;
};

struct ocl_program {
    struct gb_program pub;
    cl_program prog;
};

struct ocl_kernel {
    struct gb_kernel pub;
    cl_kernel k;
    uint32_t max_wg; /* CL_KERNEL_WORK_GROUP_SIZE on the program's device */
    cl_uint nargs;   /* CL_KERNEL_NUM_ARGS */
    char name[];
};

struct ocl_event {
    struct gb_event pub;
    cl_event ev; /* NULL until recorded */
};

static struct ocl_device *ocl__dev(struct gb_device *d)
{
    return ocl__container_of(d, struct ocl_device, pub);
}
static struct ocl_buf *ocl__buf(struct gb_buf *b)
{
    return ocl__container_of(b, struct ocl_buf, pub);
}
static struct ocl_queue *ocl__queue(struct gb_queue *q)
{
    return ocl__container_of(q, struct ocl_queue, pub);
}
static struct ocl_program *ocl__program(struct gb_program *p)
{
    return ocl__container_of(p, struct ocl_program, pub);
}
static struct ocl_kernel *ocl__kernel(struct gb_kernel *k)
{
    return ocl__container_of(k, struct ocl_kernel, pub);
}
static struct ocl_event *ocl__event(struct gb_event *e)
{
    return ocl__container_of(e, struct ocl_event, pub);
}

/* ---- discovery ---------------------------------------------------------------------------- */

/* Copies src into dst[cap], truncating, always NUL-terminated. */
static void ocl__strlcpy(char *dst, const char *src, size_t cap)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* A device string query into a malloc'd buffer. The size is asked first because a short
 * buffer makes clGetDeviceInfo fail rather than truncate. */
static int ocl__dev_str(cl_device_id id, cl_device_info param, const char *pname, char **out)
{
    size_t n = 0;
    int rc = OCL_CHECK(pname, clGetDeviceInfo(id, param, 0, NULL, &n));
    if (rc)
        return rc;
    char *s = malloc(n + 1);
    if (!s)
        return GB_FAIL(GB_ENOMEM, "%s: %zu bytes", pname, n + 1);
    if ((rc = OCL_CHECK(pname, clGetDeviceInfo(id, param, n, s, NULL)))) {
        free(s);
        return rc;
    }
    s[n] = '\0';
    *out = s;
    return 0;
}

static int ocl__plat_str(cl_platform_id p, cl_platform_info param, const char *pname, char **out)
{
    size_t n = 0;
    int rc = OCL_CHECK(pname, clGetPlatformInfo(p, param, 0, NULL, &n));
    if (rc)
        return rc;
    char *s = malloc(n + 1);
    if (!s)
        return GB_FAIL(GB_ENOMEM, "%s: %zu bytes", pname, n + 1);
    if ((rc = OCL_CHECK(pname, clGetPlatformInfo(p, param, n, s, NULL)))) {
        free(s);
        return rc;
    }
    s[n] = '\0';
    *out = s;
    return 0;
}

/* A device string query truncated into dst[cap]. */
static int ocl__dev_str_into(cl_device_id id, cl_device_info param, const char *pname, char *dst,
                             size_t cap)
{
    char *s = NULL;
    int rc = ocl__dev_str(id, param, pname, &s);
    if (rc)
        return rc;
    ocl__strlcpy(dst, s, cap);
    free(s);
    return 0;
}

/* Whether the space-separated extension list `exts` contains exactly `name` (a token match,
 * so that "cl_khr_fp16" is not found inside a longer name). */
static bool ocl__has_ext(const char *exts, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = exts; (p = strstr(p, name)) != NULL; p += n) {
        bool starts = p == exts || isspace((unsigned char)p[-1]);
        bool ends = p[n] == '\0' || isspace((unsigned char)p[n]);
        if (starts && ends)
            return true;
    }
    return false;
}

static uint32_t ocl__clamp32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* A fixed-size device query into `var`; the error detail names the parameter. */
#define OCL__DEV_GET(id, param, var)          \
    OCL_CHECK("clGetDeviceInfo(" #param ")", \
              clGetDeviceInfo((id), (param), sizeof(var), &(var), NULL))

/* Fills *out from the device's queries. */
static int ocl__describe(cl_platform_id p, cl_device_id id, struct gb_device_info *out)
{
    int rc;
    char *exts = NULL, *pname = NULL;
    memset(out, 0, sizeof *out);

    if ((rc = ocl__dev_str_into(id, CL_DEVICE_NAME, "clGetDeviceInfo(CL_DEVICE_NAME)", out->name,
                                sizeof out->name)) ||
        (rc = ocl__dev_str_into(id, CL_DEVICE_VENDOR, "clGetDeviceInfo(CL_DEVICE_VENDOR)",
                                out->vendor, sizeof out->vendor)) ||
        (rc = ocl__dev_str_into(id, CL_DRIVER_VERSION, "clGetDeviceInfo(CL_DRIVER_VERSION)",
                                out->driver, sizeof out->driver)) ||
        (rc = ocl__dev_str_into(id, CL_DEVICE_VERSION, "clGetDeviceInfo(CL_DEVICE_VERSION)",
                                out->version, sizeof out->version)))
        goto fail;
    if ((rc = ocl__plat_str(p, CL_PLATFORM_NAME, "clGetPlatformInfo(CL_PLATFORM_NAME)", &pname)))
        goto fail;
    ocl__strlcpy(out->platform, pname, sizeof out->platform);

    cl_ulong global_mem, max_alloc, local_mem, cache;
    cl_uint cus, clock, ndims;
    size_t max_wg;
    cl_device_type type;
    if ((rc = OCL__DEV_GET(id, CL_DEVICE_GLOBAL_MEM_SIZE, global_mem)) ||
        (rc = OCL__DEV_GET(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, max_alloc)) ||
        (rc = OCL__DEV_GET(id, CL_DEVICE_LOCAL_MEM_SIZE, local_mem)) ||
        (rc = OCL__DEV_GET(id, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, cache)) ||
        (rc = OCL__DEV_GET(id, CL_DEVICE_MAX_COMPUTE_UNITS, cus)) ||
        (rc = OCL__DEV_GET(id, CL_DEVICE_MAX_CLOCK_FREQUENCY, clock)) ||
        (rc = OCL__DEV_GET(id, CL_DEVICE_MAX_WORK_GROUP_SIZE, max_wg)) ||
        (rc = OCL__DEV_GET(id, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, ndims)) ||
        (rc = OCL__DEV_GET(id, CL_DEVICE_TYPE, type)))
        goto fail;
    out->global_mem = global_mem;
    out->max_alloc = max_alloc;
    out->local_mem = local_mem;
    /* The spec's "global memory cache" is the last-level cache on GPUs (L2) and the shared
     * cache the runtime reports on CPUs. */
    out->l2_bytes = cache;
    out->compute_units = cus;
    out->clock_mhz = clock;
    out->max_wg_size = ocl__clamp32(max_wg);

    /* At least 3 dimensions are guaranteed; more are ignored, fewer leave 1. */
    size_t dims[16] = {0};
    if (ndims > 16)
        ndims = 16;
    if ((rc = OCL_CALL(clGetDeviceInfo,
                       (id, CL_DEVICE_MAX_WORK_ITEM_SIZES, ndims * sizeof dims[0], dims, NULL))))
        goto fail;
    for (unsigned d = 0; d < 3; d++)
        out->max_wg_dims[d] = d < ndims ? ocl__clamp32(dims[d]) : 1;

    if ((rc = ocl__dev_str(id, CL_DEVICE_EXTENSIONS, "clGetDeviceInfo(CL_DEVICE_EXTENSIONS)",
                           &exts)))
        goto fail;

    if (ocl__has_ext(exts, "cl_khr_fp16"))
        out->caps |= GB_CAP_FP16;
    /* Before OpenCL 1.2 the double config query is only valid with cl_khr_fp64, so its
     * failure just means "no doubles". */
    cl_device_fp_config dfp = 0;
    if (clGetDeviceInfo(id, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof dfp, &dfp, NULL) != CL_SUCCESS)
        dfp = 0;
    if (ocl__has_ext(exts, "cl_khr_fp64") || dfp != 0)
        out->caps |= GB_CAP_FP64;
    /* CL_DEVICE_HOST_UNIFIED_MEMORY is deprecated since 2.0 and a platform may refuse it, so a
     * failure reads as "not unified"; a CPU device shares host memory by construction. */
    cl_bool unified = CL_FALSE;
    if (clGetDeviceInfo(id, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL) !=
        CL_SUCCESS)
        unified = CL_FALSE;
    if (unified || (type & CL_DEVICE_TYPE_CPU))
        out->caps |= GB_CAP_UNIFIED;
    /* No GB_CAP_PEER: buffers of two OpenCL contexts cannot be copied into each other. */

    /* The SIMD width is only known through vendor queries; the spec has no such notion. */
    out->warp_size = 1;
    if (ocl__has_ext(exts, "cl_nv_device_attribute_query")) {
        cl_uint warp = 0, major = 0, minor = 0;
        if (clGetDeviceInfo(id, CL_DEVICE_WARP_SIZE_NV, sizeof warp, &warp, NULL) ==
                CL_SUCCESS &&
            warp > 0)
            out->warp_size = warp;
        if (clGetDeviceInfo(id, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major, &major,
                            NULL) == CL_SUCCESS &&
            clGetDeviceInfo(id, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof minor, &minor,
                            NULL) == CL_SUCCESS &&
            major > 0)
            snprintf(out->arch, sizeof out->arch, "sm_%u%u", major, minor);
    } else if (ocl__has_ext(exts, "cl_amd_device_attribute_query")) {
        cl_uint wave = 0;
        if (clGetDeviceInfo(id, CL_DEVICE_WAVEFRONT_WIDTH_AMD, sizeof wave, &wave, NULL) ==
                CL_SUCCESS &&
            wave > 0)
            out->warp_size = wave;
    }
    rc = 0;
fail:
    free(exts);
    free(pname);
    return rc;
}

/* Parses "OpenCL <major>.<minor> ..." (the format the spec mandates for CL_PLATFORM_VERSION). */
static bool ocl__platform_is_20(cl_platform_id p)
{
    char *v = NULL;
    int major = 0, minor = 0;
    if (ocl__plat_str(p, CL_PLATFORM_VERSION, "clGetPlatformInfo(CL_PLATFORM_VERSION)", &v))
        return false;
    if (sscanf(v, "OpenCL %d.%d", &major, &minor) != 2)
        major = 1;
    free(v);
    return major >= 2;
}

/* Appends the devices of platform p to the list. Returns 0, or the error of a device (or of the
 * platform) that had to be left out. */
static int ocl__add_platform(cl_platform_id p)
{
    cl_uint n = 0;
    cl_device_id *ids = NULL;
    cl_int err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
    /* A platform without devices is normal (an ICD installed for absent hardware). */
    if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && n == 0))
        return 0;
    int rc = OCL_CHECK("clGetDeviceIDs", err);
    if (rc)
        return rc;
    ids = calloc(n, sizeof *ids);
    struct ocl__devrec *grown = realloc(ocl__devs, ((size_t)ocl__ndevs + n) * sizeof *grown);
    if (!ids || !grown) {
        free(ids);
        if (grown)
            ocl__devs = grown;
        return GB_FAIL(GB_ENOMEM, "device list of %u devices", (unsigned)n);
    }
    ocl__devs = grown;
    if ((rc = OCL_CALL(clGetDeviceIDs, (p, CL_DEVICE_TYPE_ALL, n, ids, NULL))))
        goto fail;
    bool cl20 = ocl__platform_is_20(p);
    /* A device that cannot describe itself is left out, and its error (the last one, whose
     * detail is still set) returned, without losing its platform's other devices. */
    for (cl_uint i = 0; i < n; i++) {
        struct ocl__devrec *r = &ocl__devs[ocl__ndevs];
        r->platform = p;
        r->id = ids[i];
        r->cl20 = cl20;
        int drc = ocl__describe(p, ids[i], &r->info);
        if (drc)
            rc = drc;
        else
            ocl__ndevs++;
    }
fail:
    free(ids);
    return rc;
}

static void ocl_shutdown(void)
{
    free(ocl__devs);
    ocl__devs = NULL;
    ocl__ndevs = 0;
    ocl__inited = false;
}

static int ocl_init(void)
{
    if (ocl__inited)
        return 0;
    cl_uint nplat = 0;
    cl_platform_id *plats = NULL;
    cl_int err = clGetPlatformIDs(0, NULL, &nplat);
    /* The ICD loader answers CL_PLATFORM_NOT_FOUND_KHR when no vendor ICD is installed. */
    if (err != CL_SUCCESS)
        return OCL_FAIL_WHAT(GB_EUNAVAIL, "no OpenCL platform", "clGetPlatformIDs", err);
    if (nplat == 0)
        return GB_FAIL(GB_EUNAVAIL, "no OpenCL platform (clGetPlatformIDs found 0 platforms)");
    plats = calloc(nplat, sizeof *plats);
    if (!plats)
        return GB_FAIL(GB_ENOMEM, "platform list of %u", (unsigned)nplat);
    int rc = OCL_CALL(clGetPlatformIDs, (nplat, plats, NULL));
    if (rc) {
        rc = gb_error_append(GB_EUNAVAIL, "no OpenCL platform");
        goto fail;
    }

    /* A platform whose enumeration fails (a broken ICD) is skipped so that it does not hide
     * the working ones; its error is kept and reported only when no device is left at all. */
    char first_err[512] = "";
    int first_rc = 0;
    for (cl_uint i = 0; i < nplat; i++) {
        int prc = ocl__add_platform(plats[i]);
        if (prc && !first_rc) {
            first_rc = prc;
            ocl__strlcpy(first_err, gb_error_msg(), sizeof first_err);
        }
    }
    if (ocl__ndevs == 0 && first_rc) {
        rc = GB_FAIL(GB_EUNAVAIL, "no usable OpenCL device: %s", first_err);
        goto fail;
    }
    free(plats);
    ocl__inited = true;
    gb_error_clear();
    return 0;
fail:
    free(plats);
    ocl_shutdown();
    return rc;
}

static int ocl_device_count(void)
{
    return ocl__ndevs;
}

static int ocl_device_info(int index, struct gb_device_info *out)
{
    if (index < 0 || index >= ocl__ndevs)
        return GB_FAIL(GB_ENODEV, "OpenCL device %d: there are %d", index, ocl__ndevs);
    *out = ocl__devs[index].info;
    return 0;
}

/* ---- devices ------------------------------------------------------------------------------ */

/* An in-order queue with profiling, through the 2.0 entry point when the platform has it (the
 * 1.2 one is deprecated there and may be missing from future loaders). */
static int ocl__queue_new(struct ocl_device *d, cl_command_queue *out)
{
    cl_int err;
    cl_command_queue q;
    const char *call;
    if (d->cl20) {
        const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
        q = clCreateCommandQueueWithProperties(d->ctx, d->id, props, &err);
        call = "clCreateCommandQueueWithProperties";
    } else {
        q = clCreateCommandQueue(d->ctx, d->id, CL_QUEUE_PROFILING_ENABLE, &err);
        call = "clCreateCommandQueue";
    }
    if (err != CL_SUCCESS)
        return OCL_FAIL_AS(GB_EBACKEND, call, err);
    *out = q;
    return 0;
}

static int ocl__event_end(cl_event ev, cl_ulong *out)
{
    return OCL_CALL(clGetEventProfilingInfo,
                    (ev, CL_PROFILING_COMMAND_END, sizeof *out, out, NULL));
}

/* Decides how events stamp time on this device (see the top of the file): markers, if two of
 * them bracket a real 1 MiB write on the internal queue — the first completing no later than
 * the write starts, the second no earlier than it ends — else 4-byte fills. */
static int ocl__probe_timer(struct ocl_device *d)
{
    const size_t bytes = (size_t)1 << 20;
    cl_int err;
    cl_mem buf = NULL;
    cl_event ev[3] = {NULL, NULL, NULL};
    char *host = NULL;
    int rc = 0;
    bool markers_ok = false;

    const char *force = getenv("GB_OPENCL_TIMER");
    if (force && strcmp(force, "marker") == 0) {
        d->timer = OCL__TIMER_MARKER;
        return 0;
    }
    if (!(force && strcmp(force, "fill") == 0)) {
        if (!(host = malloc(bytes))) {
            rc = GB_FAIL(GB_ENOMEM, "timer probe: %zu bytes", bytes);
            goto fail;
        }
        memset(host, 0x5a, bytes);
        buf = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
        if ((rc = OCL_CHECK("clCreateBuffer", err)) ||
            (rc = OCL_CALL(clEnqueueMarkerWithWaitList, (d->iq, 0, NULL, &ev[0]))) ||
            (rc = OCL_CALL(clEnqueueWriteBuffer,
                           (d->iq, buf, CL_FALSE, 0, bytes, host, 0, NULL, &ev[1]))) ||
            (rc = OCL_CALL(clEnqueueMarkerWithWaitList, (d->iq, 0, NULL, &ev[2]))) ||
            (rc = OCL_CALL(clWaitForEvents, (3, ev))))
            goto fail;
        cl_ulong m0 = 0, m1 = 0, ws = 0, we = 0;
        if ((rc = OCL_CALL(clGetEventProfilingInfo,
                           (ev[1], CL_PROFILING_COMMAND_START, sizeof ws, &ws, NULL))) ||
            (rc = ocl__event_end(ev[1], &we)))
            goto fail;
        /* A marker without profiling data is exactly what the probe looks for. */
        if (clGetEventProfilingInfo(ev[0], CL_PROFILING_COMMAND_END, sizeof m0, &m0, NULL) ==
                CL_SUCCESS &&
            clGetEventProfilingInfo(ev[2], CL_PROFILING_COMMAND_END, sizeof m1, &m1, NULL) ==
                CL_SUCCESS)
            markers_ok = m0 != 0 && m0 <= ws && ws <= we && we <= m1;
    }
    d->timer = markers_ok ? OCL__TIMER_MARKER : OCL__TIMER_FILL;
    if (d->timer == OCL__TIMER_FILL) {
        d->scratch = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
        if ((rc = OCL_CHECK("clCreateBuffer", err)))
            goto fail;
    }
fail:
    for (int i = 0; i < 3; i++)
        if (ev[i])
            clReleaseEvent(ev[i]);
    if (buf)
        clReleaseMemObject(buf);
    free(host);
    return rc;
}

static void ocl_device_close(struct gb_device *dev)
{
    if (!dev)
        return;
    struct ocl_device *d = ocl__dev(dev);
    if (d->scratch)
        clReleaseMemObject(d->scratch);
    if (d->iq)
        clReleaseCommandQueue(d->iq);
    if (d->ctx)
        clReleaseContext(d->ctx);
    free(d);
}

static int ocl_device_open(int index, struct gb_device **out)
{
    if (index < 0 || index >= ocl__ndevs)
        return GB_FAIL(GB_ENODEV, "OpenCL device %d: there are %d", index, ocl__ndevs);
    const struct ocl__devrec *r = &ocl__devs[index];
    struct ocl_device *d = calloc(1, sizeof *d);
    if (!d)
        return GB_FAIL(GB_ENOMEM, "device handle");
    d->pub.ops = &gb_opencl_ops;
    d->pub.index = index;
    d->pub.info = r->info;
    d->platform = r->platform;
    d->id = r->id;
    d->cl20 = r->cl20;

    int rc;
    cl_int err;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                           (cl_context_properties)r->platform, 0};
    d->ctx = clCreateContext(props, 1, &r->id, NULL, NULL, &err);
    if ((rc = OCL_CHECK("clCreateContext", err)) || (rc = ocl__queue_new(d, &d->iq)) ||
        (rc = ocl__probe_timer(d)))
        goto fail;
    *out = &d->pub;
    return 0;
fail:
    gb_error_append(rc, "opening OpenCL device %d (%s)", index, r->info.name);
    ocl_device_close(&d->pub);
    return rc;
}

/* ---- memory ------------------------------------------------------------------------------- */

/* Allocation failures become GB_ENOMEM; anything else stays a backend failure. */
static int ocl__alloc_err(cl_int err)
{
    return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
                   err == CL_OUT_OF_HOST_MEMORY
               ? GB_ENOMEM
               : err == CL_INVALID_BUFFER_SIZE ? GB_ETOOBIG : GB_EBACKEND;
}

static void ocl_buf_free(struct gb_buf *buf)
{
    if (!buf)
        return;
    struct ocl_buf *b = ocl__buf(buf);
    if (b->pub.kind == GB_MEM_HOST_PAGEABLE) {
        free(b->pub.host);
    } else if (b->mem) {
        /* A pinned buffer stayed mapped for its whole life; unmap before the release so the
         * runtime can free the host side. Errors cannot be reported from here. */
        if (b->pub.kind == GB_MEM_HOST_PINNED && b->pub.host) {
            struct ocl_device *d = ocl__dev(b->pub.dev);
            if (clEnqueueUnmapMemObject(d->iq, b->mem, b->pub.host, 0, NULL, NULL) ==
                CL_SUCCESS)
                clFinish(d->iq);
        }
        clReleaseMemObject(b->mem);
    }
    free(b);
}

static int ocl_buf_alloc(struct gb_device *dev, uint64_t bytes, enum gb_mem_kind kind,
                         struct gb_buf **out)
{
    struct ocl_device *d = ocl__dev(dev);
    if (bytes == 0)
        return GB_FAIL(GB_EINVAL, "buffer of 0 bytes");
    if (kind != GB_MEM_DEVICE && kind != GB_MEM_HOST_PINNED && kind != GB_MEM_HOST_PAGEABLE)
        return GB_FAIL(GB_EINVAL, "unknown memory kind %d", (int)kind);
    if (kind != GB_MEM_HOST_PAGEABLE && bytes > d->pub.info.max_alloc)
        return GB_FAIL(GB_ETOOBIG,
                       "buffer of %" PRIu64 " bytes exceeds the device's largest allocation of "
                       "%" PRIu64 " bytes (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                       bytes, d->pub.info.max_alloc);
    if (bytes > SIZE_MAX)
        return GB_FAIL(GB_ETOOBIG, "buffer of %" PRIu64 " bytes exceeds the host's size_t",
                       bytes);

    struct ocl_buf *b = calloc(1, sizeof *b);
    if (!b)
        return GB_FAIL(GB_ENOMEM, "buffer handle");
    b->pub.dev = dev;
    b->pub.bytes = bytes;
    b->pub.kind = kind;

    int rc;
    cl_int err;
    switch (kind) {
    case GB_MEM_DEVICE:
        b->mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, (size_t)bytes, NULL, &err);
        if (err != CL_SUCCESS) {
            rc = OCL_FAIL_AS(ocl__alloc_err(err), "clCreateBuffer", err);
            goto fail;
        }
        break;
    case GB_MEM_HOST_PINNED:
        /* The portable pinned idiom (NVIDIA's and AMD's guides): a runtime-allocated host
         * buffer, mapped once; the mapped pointer is page-locked memory the DMA engine reads
         * and writes directly, and transfers use it as their host pointer. */
        b->mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, (size_t)bytes,
                                NULL, &err);
        if (err != CL_SUCCESS) {
            rc = OCL_FAIL_AS(ocl__alloc_err(err), "clCreateBuffer", err);
            goto fail;
        }
        b->pub.host = clEnqueueMapBuffer(d->iq, b->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                         (size_t)bytes, 0, NULL, NULL, &err);
        if (err != CL_SUCCESS) {
            b->pub.host = NULL;
            rc = OCL_FAIL_AS(ocl__alloc_err(err), "clEnqueueMapBuffer", err);
            goto fail;
        }
        /* On platforms where "pinned" is ordinary lazily-backed memory (CPU runtimes), touch
         * every page now so that first-touch faults never land in a timed transfer. */
        memset(b->pub.host, 0, (size_t)bytes);
        break;
    case GB_MEM_HOST_PAGEABLE: {
        long page = sysconf(_SC_PAGESIZE);
        size_t align = page >= 4096 ? (size_t)page : 4096;
        void *p = NULL;
        if (posix_memalign(&p, align, (size_t)bytes) != 0 || !p) {
            rc = GB_FAIL(GB_ENOMEM, "pageable buffer of %" PRIu64 " bytes", bytes);
            goto fail;
        }
        /* Every page is touched so that page faults are paid here, not in a timed copy. */
        memset(p, 0, (size_t)bytes);
        b->pub.host = p;
        break;
    }
    }
    *out = &b->pub;
    return 0;
fail:
    gb_error_append(rc, "allocating %" PRIu64 " bytes on %s", bytes, d->pub.info.name);
    ocl_buf_free(&b->pub);
    return rc;
}

/* ---- queues and transfers ----------------------------------------------------------------- */

static int ocl_queue_create(struct gb_device *dev, struct gb_queue **out)
{
    struct ocl_device *d = ocl__dev(dev);
    struct ocl_queue *q = calloc(1, sizeof *q);
    if (!q)
        return GB_FAIL(GB_ENOMEM, "queue handle");
    q->pub.dev = dev;
    int rc = ocl__queue_new(d, &q->q);
    if (rc) {
        free(q);
        return rc;
    }
    *out = &q->pub;
    return 0;
}

static void ocl_queue_destroy(struct gb_queue *queue)
{
    if (!queue)
        return;
    struct ocl_queue *q = ocl__queue(queue);
    /* Releasing a queue does not wait for it; wait so that no command outlives its buffers. */
    clFinish(q->q);
    clReleaseCommandQueue(q->q);
    free(q);
}

static int ocl_queue_flush(struct gb_queue *q)
{
    return OCL_CALL(clFlush, (ocl__queue(q)->q));
}

static int ocl_queue_sync(struct gb_queue *q)
{
    return OCL_CALL(clFinish, (ocl__queue(q)->q));
}

/* Whether [off, off + bytes) lies within a buffer of `size` bytes, without overflowing. */
static bool ocl__in_range(uint64_t off, uint64_t bytes, uint64_t size)
{
    return off <= size && bytes <= size - off;
}

static int ocl_copy(struct gb_queue *queue, struct gb_buf *dst, uint64_t dst_off,
                    struct gb_buf *src, uint64_t src_off, uint64_t bytes,
                    enum gb_copy_flags flags)
{
    struct ocl_queue *q = ocl__queue(queue);
    if (!dst || !src)
        return GB_FAIL(GB_EINVAL, "copy: NULL buffer");
    if ((unsigned)flags & ~(unsigned)GB_COPY_BLOCKING)
        return GB_FAIL(GB_EINVAL, "copy: unknown flags 0x%x", (unsigned)flags);
    bool dst_host = dst->kind != GB_MEM_DEVICE, src_host = src->kind != GB_MEM_DEVICE;
    if (dst_host && src_host)
        return GB_FAIL(GB_EINVAL, "copy: host-to-host is not a device transfer");
    if (!ocl__in_range(src_off, bytes, src->bytes))
        return GB_FAIL(GB_EINVAL,
                       "copy: source range %" PRIu64 "+%" PRIu64 " leaves its buffer of %" PRIu64
                       " bytes",
                       src_off, bytes, src->bytes);
    if (!ocl__in_range(dst_off, bytes, dst->bytes))
        return GB_FAIL(GB_EINVAL,
                       "copy: destination range %" PRIu64 "+%" PRIu64
                       " leaves its buffer of %" PRIu64 " bytes",
                       dst_off, bytes, dst->bytes);
    /* Device buffers live in their device's context; the queue must belong to that context.
     * Host memory is plain memory and may be used from any device. */
    if ((!dst_host && dst->dev != queue->dev) || (!src_host && src->dev != queue->dev))
        return GB_FAIL(GB_EINVAL, "copy: a device buffer belongs to another device than the "
                                  "queue (OpenCL contexts cannot copy between each other)");
    if (bytes == 0)
        return 0;

    const cl_bool blocking = (flags & GB_COPY_BLOCKING) ? CL_TRUE : CL_FALSE;
    const size_t n = (size_t)bytes;
    int rc;
    if (!dst_host && src_host) {
        rc = OCL_CALL(clEnqueueWriteBuffer, (q->q, ocl__buf(dst)->mem, blocking, (size_t)dst_off,
                                             n, (char *)src->host + src_off, 0, NULL, NULL));
    } else if (dst_host && !src_host) {
        rc = OCL_CALL(clEnqueueReadBuffer, (q->q, ocl__buf(src)->mem, blocking, (size_t)src_off,
                                            n, (char *)dst->host + dst_off, 0, NULL, NULL));
    } else {
        if (dst == src && src_off < dst_off + bytes && dst_off < src_off + bytes)
            return GB_FAIL(GB_EINVAL, "copy: overlapping ranges within one buffer");
        rc = OCL_CALL(clEnqueueCopyBuffer, (q->q, ocl__buf(src)->mem, ocl__buf(dst)->mem,
                                            (size_t)src_off, (size_t)dst_off, n, 0, NULL, NULL));
        /* clEnqueueCopyBuffer has no blocking flag; on an in-order queue finishing the queue
         * is the same as waiting for this copy. */
        if (!rc && blocking)
            rc = OCL_CALL(clFinish, (q->q));
    }
    return rc;
}

/* ---- programs and launches ---------------------------------------------------------------- */

/* The build log of prog on its device, malloc'd ("" if none could be read). */
static char *ocl__build_log(cl_program prog, cl_device_id id)
{
    size_t n = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(prog, id, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) == CL_SUCCESS &&
        (log = malloc(n + 1)) != NULL) {
        if (clGetProgramBuildInfo(prog, id, CL_PROGRAM_BUILD_LOG, n, log, NULL) != CL_SUCCESS)
            n = 0;
        log[n] = '\0';
    }
    return log ? log : calloc(1, 1);
}

/* A define must be one token: "NAME" or "NAME=VALUE" with no whitespace or quotes, because
 * platforms split build options on whitespace and disagree on quoting. */
static bool ocl__define_ok(const char *def)
{
    if (!def || !(isalpha((unsigned char)def[0]) || def[0] == '_'))
        return false;
    for (const char *p = def; *p; p++)
        if (isspace((unsigned char)*p) || *p == '"' || *p == '\'' || *p == '\\')
            return false;
    return true;
}

static void ocl_program_free(struct gb_program *prog)
{
    if (!prog)
        return;
    struct ocl_program *p = ocl__program(prog);
    if (p->prog)
        clReleaseProgram(p->prog);
    free(p);
}

static int ocl_program_build(struct gb_device *dev, const char *source,
                             const char *const *defines, size_t ndefines,
                             struct gb_program **out, char **log)
{
    struct ocl_device *d = ocl__dev(dev);
    struct ocl_program *p = NULL;
    char *opts = NULL;
    int rc;
    if (log)
        *log = NULL;
    if (!source)
        return GB_FAIL(GB_EINVAL, "program_build: NULL source");

    /* Options are only the defines: without -cl-std a platform compiles the newest OpenCL C
     * 1.x it supports, which is what the kernels are written in, on every platform. */
    size_t len = 1;
    for (size_t i = 0; i < ndefines; i++) {
        if (!ocl__define_ok(defines[i]))
            return GB_FAIL(GB_EINVAL, "program_build: define \"%s\" is not NAME or NAME=VALUE",
                           defines[i] ? defines[i] : "(null)");
        len += strlen(defines[i]) + 3;
    }
    if (!(opts = malloc(len)))
        return GB_FAIL(GB_ENOMEM, "build options of %zu bytes", len);
    opts[0] = '\0';
    size_t at = 0;
    for (size_t i = 0; i < ndefines; i++)
        at += (size_t)sprintf(opts + at, "%s-D%s", at ? " " : "", defines[i]);

    if (!(p = calloc(1, sizeof *p))) {
        rc = GB_FAIL(GB_ENOMEM, "program handle");
        goto fail;
    }
    p->pub.dev = dev;
    cl_int err;
    p->prog = clCreateProgramWithSource(d->ctx, 1, &source, NULL, &err);
    if ((rc = OCL_CHECK("clCreateProgramWithSource", err)))
        goto fail;
    err = clBuildProgram(p->prog, 1, &d->id, opts, NULL, NULL);
    if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS) {
        char *full = ocl__build_log(p->prog, d->id);
        const char *shown = full ? full : "";
        rc = OCL_FAIL_AS(GB_EBUILD, "clBuildProgram", err);
        /* The detail gets the head of the log (the first errors are the useful ones); the
         * caller gets all of it. */
        int lines = 0;
        size_t head = 0;
        while (shown[head] && lines < 8 && head < 1500)
            if (shown[head++] == '\n')
                lines++;
        gb_error_append(rc, "options \"%s\"; log:\n%.*s%s", opts, (int)head, shown,
                        shown[head] ? "..." : "");
        if (log && full)
            *log = full;
        else
            free(full);
        goto fail;
    }
    if ((rc = OCL_CHECK("clBuildProgram", err)))
        goto fail;
    free(opts);
    *out = &p->pub;
    return 0;
fail:
    free(opts);
    ocl_program_free(p ? &p->pub : NULL);
    return rc;
}

static void ocl_kernel_free(struct gb_kernel *kernel)
{
    if (!kernel)
        return;
    struct ocl_kernel *k = ocl__kernel(kernel);
    if (k->k)
        clReleaseKernel(k->k);
    free(k);
}

static int ocl_kernel_get(struct gb_program *prog, const char *name, struct gb_kernel **out)
{
    struct ocl_program *p = ocl__program(prog);
    struct ocl_device *d = ocl__dev(prog->dev);
    if (!name)
        return GB_FAIL(GB_EINVAL, "kernel_get: NULL name");
    size_t len = strlen(name);
    struct ocl_kernel *k = calloc(1, sizeof *k + len + 1);
    if (!k)
        return GB_FAIL(GB_ENOMEM, "kernel handle");
    memcpy(k->name, name, len + 1);
    k->pub.prog = prog;

    int rc;
    cl_int err;
    k->k = clCreateKernel(p->prog, name, &err);
    if (err == CL_INVALID_KERNEL_NAME) {
        rc = GB_FAIL(GB_EINVAL, "no kernel \"%s\" in the program (clCreateKernel: %s)", name,
                     cl_err_name(err));
        goto fail;
    }
    if ((rc = OCL_CHECK("clCreateKernel", err)))
        goto fail;
    size_t wg = 0;
    if ((rc = OCL_CALL(clGetKernelWorkGroupInfo,
                       (k->k, d->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL))) ||
        (rc = OCL_CALL(clGetKernelInfo,
                       (k->k, CL_KERNEL_NUM_ARGS, sizeof k->nargs, &k->nargs, NULL))))
        goto fail;
    k->max_wg = ocl__clamp32(wg);
    *out = &k->pub;
    return 0;
fail:
    ocl_kernel_free(&k->pub);
    return rc;
}

static int ocl_kernel_max_wg(struct gb_kernel *k, uint32_t *out)
{
    *out = ocl__kernel(k)->max_wg;
    return 0;
}

/* Sets argument i of k from a; scalars are passed by their own size. */
static int ocl__set_arg(struct ocl_kernel *k, struct gb_device *dev, cl_uint i,
                        const struct gb_arg *a)
{
    size_t size;
    const void *ptr;
    cl_mem mem;
    switch (a->kind) {
    case GB_ARG_BUF:
        if (!a->v.buf || a->v.buf->kind != GB_MEM_DEVICE)
            return GB_FAIL(GB_EINVAL, "kernel %s: argument %u is not a device buffer", k->name,
                           (unsigned)i);
        if (a->v.buf->dev != dev)
            return GB_FAIL(GB_EINVAL, "kernel %s: argument %u is a buffer of another device",
                           k->name, (unsigned)i);
        mem = ocl__buf(a->v.buf)->mem;
        size = sizeof mem;
        ptr = &mem;
        break;
    case GB_ARG_I32:
        size = sizeof a->v.i32, ptr = &a->v.i32;
        break;
    case GB_ARG_U32:
        size = sizeof a->v.u32, ptr = &a->v.u32;
        break;
    case GB_ARG_I64:
        size = sizeof a->v.i64, ptr = &a->v.i64;
        break;
    case GB_ARG_U64:
        size = sizeof a->v.u64, ptr = &a->v.u64;
        break;
    case GB_ARG_F32:
        size = sizeof a->v.f32, ptr = &a->v.f32;
        break;
    case GB_ARG_F64:
        size = sizeof a->v.f64, ptr = &a->v.f64;
        break;
    default:
        return GB_FAIL(GB_EINVAL, "kernel %s: argument %u has unknown kind %d", k->name,
                       (unsigned)i, (int)a->kind);
    }
    cl_int err = clSetKernelArg(k->k, i, size, ptr);
    if (err == CL_SUCCESS)
        return 0;
    /* A wrong size or index is the caller's mistake, not the platform's. */
    int rc = OCL_FAIL_AS(err == CL_INVALID_ARG_SIZE || err == CL_INVALID_ARG_INDEX ||
                                 err == CL_INVALID_ARG_VALUE || err == CL_INVALID_MEM_OBJECT
                             ? GB_EINVAL
                             : GB_EBACKEND,
                         "clSetKernelArg", err);
    return gb_error_append(rc, "kernel %s, argument %u (%zu bytes)", k->name, (unsigned)i, size);
}

static int ocl_launch(struct gb_queue *queue, struct gb_kernel *kernel, const struct gb_launch *l)
{
    struct ocl_queue *q = ocl__queue(queue);
    struct ocl_kernel *k = ocl__kernel(kernel);
    const struct gb_device_info *info = &queue->dev->info;
    if (!l || l->dims < 1 || l->dims > 3)
        return GB_FAIL(GB_EINVAL, "kernel %s: launch needs 1 to 3 dimensions, got %u", k->name,
                       l ? (unsigned)l->dims : 0u);
    if (kernel->prog->dev != queue->dev)
        return GB_FAIL(GB_EINVAL, "kernel %s was built for another device than the queue's",
                       k->name);
    if (l->nargs > GB_MAX_ARGS || l->nargs != k->nargs)
        return GB_FAIL(GB_EINVAL, "kernel %s takes %u arguments, the launch passes %u", k->name,
                       (unsigned)k->nargs, (unsigned)l->nargs);

    /* Checked here, before anything is enqueued, so that a bad tuning point is a clear
     * GB_EINVAL rather than a CL_INVALID_WORK_GROUP_SIZE after arguments were set. */
    uint64_t wg = 1;
    size_t gsz[3], lsz[3];
    for (uint32_t d = 0; d < l->dims; d++) {
        if (l->local[d] == 0 || l->global[d] == 0)
            return GB_FAIL(GB_EINVAL,
                           "kernel %s: zero size in dimension %u (global %" PRIu64 ", local %u)",
                           k->name, (unsigned)d, l->global[d], (unsigned)l->local[d]);
        wg *= l->local[d];
    }
    if (wg > info->max_wg_size)
        return GB_FAIL(GB_EINVAL, "work-group size %" PRIu64 " exceeds the device maximum %u",
                       wg, (unsigned)info->max_wg_size);
    if (wg > k->max_wg)
        return GB_FAIL(GB_EINVAL,
                       "work-group size %" PRIu64 " exceeds kernel %s's maximum %u "
                       "(CL_KERNEL_WORK_GROUP_SIZE)",
                       wg, k->name, (unsigned)k->max_wg);
    for (uint32_t d = 0; d < l->dims; d++) {
        if (l->local[d] > info->max_wg_dims[d])
            return GB_FAIL(GB_EINVAL,
                           "work-group size %u in dimension %u exceeds the device maximum %u",
                           (unsigned)l->local[d], (unsigned)d, (unsigned)info->max_wg_dims[d]);
        if (l->global[d] % l->local[d] != 0)
            return GB_FAIL(GB_EINVAL,
                           "global size %" PRIu64 " in dimension %u is not a multiple of the "
                           "work-group size %u",
                           l->global[d], (unsigned)d, (unsigned)l->local[d]);
        if (l->global[d] > SIZE_MAX)
            return GB_FAIL(GB_EINVAL, "global size %" PRIu64 " exceeds the host's size_t",
                           l->global[d]);
        gsz[d] = (size_t)l->global[d];
        lsz[d] = l->local[d];
    }

    int rc;
    for (uint32_t i = 0; i < l->nargs; i++)
        if ((rc = ocl__set_arg(k, queue->dev, i, &l->args[i])))
            return rc;
    rc = OCL_CALL(clEnqueueNDRangeKernel, (q->q, k->k, l->dims, NULL, gsz, lsz, 0, NULL, NULL));
    if (rc)
        gb_error_append(rc, "kernel %s", k->name);
    return rc;
}

/* ---- timing ------------------------------------------------------------------------------- */

static int ocl_event_create(struct gb_device *dev, struct gb_event **out)
{
    struct ocl_event *e = calloc(1, sizeof *e);
    if (!e)
        return GB_FAIL(GB_ENOMEM, "event handle");
    e->pub.dev = dev;
    *out = &e->pub;
    return 0;
}

static void ocl_event_free(struct gb_event *ev)
{
    if (!ev)
        return;
    struct ocl_event *e = ocl__event(ev);
    if (e->ev)
        clReleaseEvent(e->ev);
    free(e);
}

static int ocl_event_record(struct gb_queue *queue, struct gb_event *ev)
{
    struct ocl_queue *q = ocl__queue(queue);
    struct ocl_event *e = ocl__event(ev);
    struct ocl_device *d = ocl__dev(queue->dev);
    if (ev->dev != queue->dev)
        return GB_FAIL(GB_EINVAL, "event_record: the event belongs to another device");
    cl_event ce = NULL;
    int rc;
    /* With no wait list, a marker (or, on an in-order queue, any command) completes after
     * everything enqueued before it, which is what cudaEventRecord promises. */
    if (d->timer == OCL__TIMER_MARKER) {
        rc = OCL_CALL(clEnqueueMarkerWithWaitList, (q->q, 0, NULL, &ce));
    } else {
        const cl_uint zero = 0;
        rc = OCL_CALL(clEnqueueFillBuffer,
                      (q->q, d->scratch, &zero, sizeof zero, 0, sizeof zero, 0, NULL, &ce));
    }
    if (rc)
        return rc;
    if (e->ev)
        clReleaseEvent(e->ev);
    e->ev = ce;
    return 0;
}

static int ocl_event_sync(struct gb_event *ev)
{
    struct ocl_event *e = ocl__event(ev);
    if (!e->ev)
        return GB_FAIL(GB_EINVAL, "event_sync: the event was never recorded");
    return OCL_CALL(clWaitForEvents, (1, &e->ev));
}

/* The completion time of a recorded, complete event, device clock in ns. */
static int ocl__event_done_at(struct ocl_event *e, const char *which, cl_ulong *out)
{
    if (!e->ev)
        return GB_FAIL(GB_EINVAL, "event_elapsed_ns: the %s event was never recorded", which);
    cl_int status = 0;
    int rc = OCL_CALL(clGetEventInfo, (e->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                                       &status, NULL));
    if (rc)
        return rc;
    if (status < 0)
        return GB_FAIL(GB_EBACKEND, "event_elapsed_ns: the %s event's command failed: %s (%d)",
                       which, cl_err_name(status), (int)status);
    if (status != CL_COMPLETE)
        return GB_FAIL(GB_EINVAL, "event_elapsed_ns: the %s event is not complete (event_sync "
                                  "first)",
                       which);
    if ((rc = ocl__event_end(e->ev, out)))
        return gb_error_append(rc, "%s event", which);
    return 0;
}

static int ocl_event_elapsed_ns(struct gb_event *start, struct gb_event *end, uint64_t *ns)
{
    if (start->dev != end->dev)
        return GB_FAIL(GB_EINVAL, "event_elapsed_ns: events of two devices have two clocks");
    cl_ulong t0, t1;
    int rc;
    if ((rc = ocl__event_done_at(ocl__event(start), "start", &t0)) ||
        (rc = ocl__event_done_at(ocl__event(end), "end", &t1)))
        return rc;
    if (t1 < t0)
        return GB_FAIL(GB_EINVAL, "event_elapsed_ns: the end event completed %" PRIu64
                                  " ns before the start event",
                       (uint64_t)(t0 - t1));
    *ns = t1 - t0;
    return 0;
}

/* ---- the table ---------------------------------------------------------------------------- */

const struct gb_backend_ops gb_opencl_ops = {
    .name = "opencl",
    .init = ocl_init,
    .shutdown = ocl_shutdown,
    .device_count = ocl_device_count,
    .device_info = ocl_device_info,
    .device_open = ocl_device_open,
    .device_close = ocl_device_close,
    .buf_alloc = ocl_buf_alloc,
    .buf_free = ocl_buf_free,
    .queue_create = ocl_queue_create,
    .queue_destroy = ocl_queue_destroy,
    .queue_flush = ocl_queue_flush,
    .queue_sync = ocl_queue_sync,
    .copy = ocl_copy,
    /* No GB_CAP_PEER: each device has its own context and OpenCL cannot copy across them. */
    .peer_copy = NULL,
    .peer_can_access = NULL,
    .program_build = ocl_program_build,
    .program_free = ocl_program_free,
    .kernel_get = ocl_kernel_get,
    .kernel_free = ocl_kernel_free,
    .kernel_max_wg = ocl_kernel_max_wg,
    .launch = ocl_launch,
    .event_create = ocl_event_create,
    .event_free = ocl_event_free,
    .event_record = ocl_event_record,
    .event_sync = ocl_event_sync,
    .event_elapsed_ns = ocl_event_elapsed_ns,
    /* No GB_CAP_BLAS_* yet: CLBlast arrives in a later change. */
    .gemm = NULL,
};
