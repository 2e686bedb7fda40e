/* gpubench — the OpenCL backend's devices and their facts: the device list init() builds from
 * every platform, each device's description (gb_device_info: sizes, capability bits, identity),
 * and device handles (device_open: a context, the internal queue, the check of the event
 * timer). */
#include "opencl_private.h"

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

/* ---- the device list ---------------------------------------------------------------------- */

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

uint32_t gb__ocl_clamp32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* A fixed-size device query into `var`; the error detail names the parameter. */
#define OCL__DEV_GET(id, param, var)         \
    OCL_CHECK("clGetDeviceInfo(" #param ")", \
              clGetDeviceInfo((id), (param), sizeof(var), &(var), NULL))

/* Whether the device can record launch graphs (GB_CAP_GRAPH): the conditions opencl_graph.c
 * sets out. */
static bool ocl__graph_cap(cl_platform_id p, cl_device_id id, const char *exts, const char *version)
{
    unsigned major = 0, minor = 0;
    if (!ocl__has_ext(exts, "cl_khr_command_buffer") ||
        sscanf(version, "OpenCL %u.%u", &major, &minor) != 2 || major * 10 + minor < 21)
        return false;
    cl_device_command_buffer_capabilities_khr caps = 0;
    cl_command_queue_properties need = 0;
    struct ocl__cb_fns f;
    return clGetDeviceInfo(id, CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR, sizeof caps, &caps,
                           NULL) == CL_SUCCESS &&
           (caps & CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR) &&
           clGetDeviceInfo(id, CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR, sizeof need,
                           &need, NULL) == CL_SUCCESS &&
           !(need & ~(cl_command_queue_properties)CL_QUEUE_PROFILING_ENABLE) &&
           gb__ocl_cb_load(p, &f);
}

/* Whether the device lists the OpenCL C feature `name` (CL_DEVICE_OPENCL_C_FEATURES, OpenCL
 * 3.0; a platform that does not know the query has no features). */
static bool ocl__has_c_feature(cl_device_id id, const char *name)
{
    size_t bytes = 0;
    if (clGetDeviceInfo(id, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &bytes) != CL_SUCCESS ||
        bytes < sizeof(cl_name_version))
        return false;
    cl_name_version *f = malloc(bytes);
    bool found = false;
    if (f && clGetDeviceInfo(id, CL_DEVICE_OPENCL_C_FEATURES, bytes, f, NULL) == CL_SUCCESS)
        for (size_t i = 0; i < bytes / sizeof *f && !found; i++)
            found = strncmp(f[i].name, name, sizeof f[i].name) == 0;
    free(f);
    return found;
}

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
    /* NVIDIA's OpenCL reports the SMs' L1 caches together there, not the L2 (an H200: 4,325,376
     * bytes = 132 SMs x 32 KiB, against a 60 MiB L2), so a 32 MiB working set would pass for a
     * memory-bound one: unknown (0), and no regime or memory bound is claimed from it. */
    if ((type & CL_DEVICE_TYPE_GPU) && strstr(out->vendor, "NVIDIA"))
        out->l2_bytes = 0;
    /* A CPU runtime may report a per-core cache: the last level is the one memory sits behind. */
    if (type & CL_DEVICE_TYPE_CPU) {
        uint64_t llc = gb_host_llc_bytes("/sys/devices/system/cpu/cpu0");
        if (llc > out->l2_bytes)
            out->l2_bytes = llc;
    }
    out->type = (type & CL_DEVICE_TYPE_GPU)           ? GB_DEVICE_GPU
                : (type & CL_DEVICE_TYPE_CPU)         ? GB_DEVICE_CPU
                : (type & CL_DEVICE_TYPE_ACCELERATOR) ? GB_DEVICE_ACCELERATOR
                                                      : GB_DEVICE_OTHER;
    cl_uint nvd = 0; /* an implementation may refuse the query: unknown */
    if (clGetDeviceInfo(id, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, sizeof nvd, &nvd, NULL) !=
        CL_SUCCESS)
        nvd = 0;
    out->native_vec_double = nvd;
    out->compute_units = cus;
    out->clock_mhz = clock;
    /* A CPU runtime may report no clock (Intel's reports 0) or placeholders (300 MHz and 8
     * compute units on a 2-core machine); the device is the host, whose clock and CPUs are
     * readable. The host's figures where the device's contradict them, recorded as the host's
     * (clock_source), so that a peak built on them says so. */
    if (type & CL_DEVICE_TYPE_CPU) {
        const char *src = NULL;
        const uint32_t host_mhz =
            gb_host_cpu_mhz("/sys/devices/system/cpu/cpu0", "/proc/cpuinfo", &src);
        const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        gb_cpu_facts_check(out, host_mhz, src,
                           cpus > 0 && cpus <= (long)UINT32_MAX ? (uint32_t)cpus : 0);
    }
    out->max_wg_size = gb__ocl_clamp32(max_wg);

    /* At least 3 dimensions are guaranteed; more are ignored, fewer leave 1. */
    size_t dims[16] = {0};
    if (ndims > 16)
        ndims = 16;
    if ((rc = OCL_CALL(clGetDeviceInfo,
                       (id, CL_DEVICE_MAX_WORK_ITEM_SIZES, ndims * sizeof dims[0], dims, NULL))))
        goto fail;
    for (unsigned d = 0; d < 3; d++)
        out->max_wg_dims[d] = d < ndims ? gb__ocl_clamp32(dims[d]) : 1;

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
#if HAVE_CLBLAST
    /* CLBlast runs on any OpenCL 1.1+ device; its double and half routines need the device's
     * fp64 and cl_khr_fp16 (it answers CLBlastNoDoublePrecision / NoHalfPrecision otherwise).
     * It has no mixed-precision, bfloat16 or TF32 GEMM. */
    out->caps |= GB_CAP_BLAS_F32;
    if (out->caps & GB_CAP_FP64)
        out->caps |= GB_CAP_BLAS_F64;
    if (out->caps & GB_CAP_FP16)
        out->caps |= GB_CAP_BLAS_F16;
#endif
    /* The packed 4x8-bit dot product (dot_4x8packed_ss_int), as CUDA's dp4a: the extension
     * cl_khr_integer_dot_product, whose functions OpenCL C declares only in 3.0 and only with the
     * feature __opencl_c_integer_dot_product_input_4x8bit_packed (Intel's CPU runtime has it;
     * PoCL 3.1 has neither). A program that calls it is then built as OpenCL C 3.0
     * (gb__ocl_program_build). */
    if (ocl__has_ext(exts, "cl_khr_integer_dot_product") &&
        ocl__has_c_feature(id, "__opencl_c_integer_dot_product_input_4x8bit_packed"))
        out->caps |= GB_CAP_INT8_DOT;
    /* No GB_CAP_PEER: buffers of two OpenCL contexts cannot be copied into each other. */
    if (ocl__graph_cap(p, id, exts, out->version))
        out->caps |= GB_CAP_GRAPH;

    /* A stable identity, where the platform offers one. */
    if (ocl__has_ext(exts, "cl_khr_device_uuid")) {
        unsigned char u[16];
        if (clGetDeviceInfo(id, CL_DEVICE_UUID_KHR, sizeof u, u, NULL) == CL_SUCCESS)
            gb_format_uuid(u, out->uuid, sizeof out->uuid);
    }
    if (ocl__has_ext(exts, "cl_khr_pci_bus_info")) {
        cl_device_pci_bus_info_khr pci;
        if (clGetDeviceInfo(id, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof pci, &pci, NULL) == CL_SUCCESS)
            snprintf(out->pci_bus_id, sizeof out->pci_bus_id, "%04x:%02x:%02x.%x",
                     pci.pci_domain & 0xffffu, pci.pci_bus & 0xffu, pci.pci_device & 0xffu,
                     pci.pci_function & 0xfu);
    }

    /* The SIMD width is only known through vendor queries; the spec has no such notion. */
    out->warp_size = 1;
    if (ocl__has_ext(exts, "cl_nv_device_attribute_query")) {
        cl_uint warp = 0, major = 0, minor = 0;
        if (clGetDeviceInfo(id, CL_DEVICE_WARP_SIZE_NV, sizeof warp, &warp, NULL) == CL_SUCCESS &&
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
    /* The PCI address, for telemetry (backends/telemetry.h): cl_khr_pci_bus_info, else NVIDIA's
     * queries (cl_nv_device_attribute_query: CL_DEVICE_PCI_BUS_ID_NV 0x4008,
     * CL_DEVICE_PCI_SLOT_ID_NV 0x4009, CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A, as in NVIDIA's
     * cl_ext_nv.h; the slot id packs device << 3 | function). */
    if (ocl__has_ext(exts, "cl_khr_pci_bus_info")) {
        cl_device_pci_bus_info_khr pci;
        if (clGetDeviceInfo(id, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof pci, &pci, NULL) == CL_SUCCESS)
            snprintf(out->pci_bus_id, sizeof out->pci_bus_id, "%04x:%02x:%02x.%x", pci.pci_domain,
                     pci.pci_bus, pci.pci_device, pci.pci_function);
    } else if (ocl__has_ext(exts, "cl_nv_device_attribute_query")) {
        cl_uint bus = 0, slot = 0, dom = 0;
        if (clGetDeviceInfo(id, 0x4008, sizeof bus, &bus, NULL) == CL_SUCCESS &&
            clGetDeviceInfo(id, 0x4009, sizeof slot, &slot, NULL) == CL_SUCCESS) {
            if (clGetDeviceInfo(id, 0x400A, sizeof dom, &dom, NULL) != CL_SUCCESS)
                dom = 0;
            snprintf(out->pci_bus_id, sizeof out->pci_bus_id, "%04x:%02x:%02x.%x", dom, bus,
                     slot >> 3, slot & 7);
        }
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

void gb__ocl_shutdown(void)
{
    free(ocl__devs);
    ocl__devs = NULL;
    ocl__ndevs = 0;
    ocl__inited = false;
}

int gb__ocl_init(void)
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
    gb__ocl_shutdown();
    return rc;
}

int gb__ocl_device_count(void)
{
    return ocl__ndevs;
}

int gb__ocl_device_info(int index, struct gb_device_info *out)
{
    if (index < 0 || index >= ocl__ndevs)
        return GB_FAIL(GB_ENODEV, "OpenCL device %d: there are %d", index, ocl__ndevs);
    *out = ocl__devs[index].info;
    return 0;
}

/* ---- devices ------------------------------------------------------------------------------ */

/* An in-order queue with profiling, through the 2.0 entry point when the platform has it (the
 * 1.2 one is deprecated there and may be missing from future loaders), with CL_QUEUE_PRIORITY_KHR
 * `prio` (cl_khr_priority_hints; callers check the extension and the 2.0 platform) when it is not
 * 0. */
int gb__ocl_queue_new_prio(struct ocl_device *d, cl_queue_priority_khr prio, cl_command_queue *out)
{
    cl_int err;
    cl_command_queue q;
    const char *call;
    if (d->cl20) {
        const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE,
                                             prio ? CL_QUEUE_PRIORITY_KHR : 0, prio, 0};
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

int gb__ocl_queue_new(struct ocl_device *d, cl_command_queue *out)
{
    return gb__ocl_queue_new_prio(d, 0, out);
}

int gb__ocl_event_end(cl_event ev, cl_ulong *out)
{
    return OCL_CALL(clGetEventProfilingInfo,
                    (ev, CL_PROFILING_COMMAND_END, sizeof *out, out, NULL));
}

/* The stamps of one bracketed probe: two stamping commands (markers or fills) around a 1 MiB
 * write then an 8 MiB write on the internal queue, and the host's time around all of it. */
struct ocl__probe {
    cl_ulong b0, b1;       /* the brackets' CL_PROFILING_COMMAND_END (0: not readable) */
    cl_ulong ws[2], we[2]; /* the writes' START and END */
    double host_ns;        /* host wall time from the first enqueue to the wait's return */
};

/* Enqueues bracket, write 1 MiB, write 8 MiB, bracket on d->iq and reads their stamps into *pr.
 * `fill` brackets with 4-byte fills of d->scratch, else with markers. */
static int ocl__probe_run(struct ocl_device *d, cl_mem buf, const char *host, bool fill,
                          struct ocl__probe *pr)
{
    cl_event ev[4] = {NULL, NULL, NULL, NULL};
    const size_t small = (size_t)1 << 20, big = (size_t)8 << 20;
    const cl_uint zero = 0;
    int rc = 0;
    memset(pr, 0, sizeof *pr);
    const double h0 = gb_now();
    for (int i = 0; i < 4 && !rc; i++) {
        if (i == 1 || i == 2)
            rc = OCL_CALL(clEnqueueWriteBuffer,
                          (d->iq, buf, CL_FALSE, 0, i == 1 ? small : big, host, 0, NULL, &ev[i]));
        else if (fill)
            rc = OCL_CALL(clEnqueueFillBuffer,
                          (d->iq, d->scratch, &zero, sizeof zero, 0, sizeof zero, 0, NULL, &ev[i]));
        else
            rc = OCL_CALL(clEnqueueMarkerWithWaitList, (d->iq, 0, NULL, &ev[i]));
    }
    if (!rc)
        rc = OCL_CALL(clWaitForEvents, (4, ev));
    pr->host_ns = (gb_now() - h0) * 1e9;
    for (int w = 0; w < 2 && !rc; w++)
        if (!(rc = OCL_CALL(clGetEventProfilingInfo, (ev[1 + w], CL_PROFILING_COMMAND_START,
                                                      sizeof pr->ws[w], &pr->ws[w], NULL))))
            rc = gb__ocl_event_end(ev[1 + w], &pr->we[w]);
    /* A bracket without profiling data is exactly what the probe looks for: 0, not an error. */
    if (!rc && (clGetEventProfilingInfo(ev[0], CL_PROFILING_COMMAND_END, sizeof pr->b0, &pr->b0,
                                        NULL) != CL_SUCCESS ||
                clGetEventProfilingInfo(ev[3], CL_PROFILING_COMMAND_END, sizeof pr->b1, &pr->b1,
                                        NULL) != CL_SUCCESS))
        pr->b0 = pr->b1 = 0;
    for (int i = 0; i < 4; i++)
        if (ev[i])
            clReleaseEvent(ev[i]);
    return rc;
}

/* Why the writes' own stamps cannot be trusted (NULL: they can): each write starts no earlier
 * than the last ended and lasts more than 0 ns, the 8x larger write takes longer (a platform that
 * steps a counter per query gives equal spans), and together they last no longer than the host
 * saw (with 1 ms and 50% of slack for the host's clock and the wait's wake-up). */
static const char *ocl__stamps_fault(const struct ocl__probe *pr, char *buf, size_t len)
{
    const cl_ulong d0 = pr->we[0] - pr->ws[0], d1 = pr->we[1] - pr->ws[1];
    if (pr->ws[0] == 0 || pr->we[1] == 0)
        snprintf(buf, len, "event timestamps are 0");
    else if (!(pr->ws[0] < pr->we[0] && pr->we[0] <= pr->ws[1] && pr->ws[1] < pr->we[1]))
        snprintf(buf, len, "event timestamps out of order");
    else if (d1 <= d0)
        snprintf(buf, len, "8 MiB took no longer than 1 MiB (%" PRIu64 " ns)", (uint64_t)d1);
    else if ((double)(pr->we[1] - pr->ws[0]) > 1.5 * pr->host_ns + 1e6)
        snprintf(buf, len, "events %.3g ms, host %.3g ms", (double)(pr->we[1] - pr->ws[0]) * 1e-6,
                 pr->host_ns * 1e-6);
    else
        return NULL;
    return buf;
}

/* Whether the brackets of a probe whose writes are trustworthy bracket them. */
static bool ocl__brackets_ok(const struct ocl__probe *pr)
{
    return pr->b0 != 0 && pr->b0 <= pr->ws[0] && pr->we[1] <= pr->b1;
}

/* Decides how events stamp time on this device (see the top of the file), once, at open:
 * markers, if two of them bracket real writes whose own stamps are trustworthy; else 4-byte
 * fills, if they do; else no device timer at all (d->pub.timer_fault says why, and the core
 * times on the host around a finish instead). A platform that reports a timer resolution of 0
 * has no usable timer either. GB_OPENCL_TIMER=marker|fill forces the stamping command (the
 * checks still run). */
static int ocl__probe_timer(struct ocl_device *d)
{
    const size_t bytes = (size_t)8 << 20;
    cl_int err;
    cl_mem buf = NULL;
    char *host = NULL, why[sizeof d->pub.timer_fault];
    const char *fault = NULL;
    int rc = 0;
    struct ocl__probe pr;

    const char *force = getenv("GB_OPENCL_TIMER");
    const bool force_marker = force && strcmp(force, "marker") == 0;
    const bool force_fill = force && strcmp(force, "fill") == 0;
    d->scratch = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    if ((rc = OCL_CHECK("clCreateBuffer", err)))
        goto fail;
    size_t res = 0;
    if ((rc = OCL__DEV_GET(d->id, CL_DEVICE_PROFILING_TIMER_RESOLUTION, res)))
        goto fail;
    if (!(host = malloc(bytes))) {
        rc = GB_FAIL(GB_ENOMEM, "timer probe: %zu bytes", bytes);
        goto fail;
    }
    memset(host, 0x5a, bytes);
    buf = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if ((rc = OCL_CHECK("clCreateBuffer", err)))
        goto fail;
    if (res == 0) {
        fault = "timer resolution 0 ns";
    } else {
        /* Markers first (one command less per sample); a platform that stamps them badly may
         * still stamp fills. A first run warms the queue and the buffer; the second decides. */
        for (int fill = force_fill; fill <= !force_marker; fill++) {
            for (int run = 0; run < 2 && !rc; run++)
                rc = ocl__probe_run(d, buf, host, fill, &pr);
            if (rc)
                goto fail;
            if ((fault = ocl__stamps_fault(&pr, why, sizeof why)))
                break; /* the writes' own stamps are wrong: no command's can be trusted */
            if (ocl__brackets_ok(&pr)) {
                d->timer = fill ? OCL__TIMER_FILL : OCL__TIMER_MARKER;
                goto done;
            }
            fault = fill ? "fills do not bracket the writes" : "markers do not bracket the writes";
        }
    }
    d->timer = OCL__TIMER_NONE;
    memcpy(d->pub.timer_fault, fault, strnlen(fault, sizeof d->pub.timer_fault - 1));
done:
fail:
    if (buf)
        clReleaseMemObject(buf);
    free(host);
    return rc;
}

/* Device handles open now, in every thread: gb__ocl_gemm serialises CLBlast only above one. */
atomic_int gb__ocl_open_devices;

void gb__ocl_device_close(struct gb_device *dev)
{
    if (!dev)
        return;
    struct ocl_device *d = gb__ocl_dev(dev);
    if (d->counted)
        atomic_fetch_sub_explicit(&gb__ocl_open_devices, 1, memory_order_acq_rel);
    if (d->scratch)
        clReleaseMemObject(d->scratch);
    if (d->iq)
        clReleaseCommandQueue(d->iq);
    if (d->ctx)
        clReleaseContext(d->ctx);
    free(d);
}

int gb__ocl_device_open(const struct gb_backend_ops *ops, int index, struct gb_device **out)
{
    if (index < 0 || index >= ocl__ndevs)
        return GB_FAIL(GB_ENODEV, "OpenCL device %d: there are %d", index, ocl__ndevs);
    const struct ocl__devrec *r = &ocl__devs[index];
    struct ocl_device *d = calloc(1, sizeof *d);
    if (!d)
        return GB_FAIL(GB_ENOMEM, "device handle");
    d->pub.ops = ops;
    d->pub.index = index;
    d->pub.info = r->info;
    d->platform = r->platform;
    d->id = r->id;
    d->cl20 = r->cl20;
    if (d->cl20) {
        cl_device_svm_capabilities svm = 0;
        if (clGetDeviceInfo(r->id, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL) ==
            CL_SUCCESS)
            d->svm_coarse = (svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0;
    }
    char *exts = NULL;
    if (ocl__dev_str(r->id, CL_DEVICE_EXTENSIONS, "CL_DEVICE_EXTENSIONS", &exts) == 0) {
        d->priority_hints = ocl__has_ext(exts, "cl_khr_priority_hints");
        free(exts);
    } else {
        gb_error_clear(); /* no list: no priorities, and the open goes on */
    }

    int rc;
    cl_int err;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)r->platform,
                                           0};
    d->ctx = clCreateContext(props, 1, &r->id, NULL, NULL, &err);
    if ((rc = OCL_CHECK("clCreateContext", err)) || (rc = gb__ocl_queue_new(d, &d->iq)) ||
        (rc = ocl__probe_timer(d)))
        goto fail;
    atomic_fetch_add_explicit(&gb__ocl_open_devices, 1, memory_order_acq_rel);
    d->counted = true;
    *out = &d->pub;
    return 0;
fail:
    gb_error_append(rc, "opening OpenCL device %d (%s)", index, r->info.name);
    gb__ocl_device_close(&d->pub);
    return rc;
}
