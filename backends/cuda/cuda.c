/* gpubench — the CUDA backend: the CUDA runtime API from C, NVRTC for the kernels, cuBLAS for
 * BLAS. The contract is backends/backend.h; backends/cuda/meson.build says how it is linked and
 * why (static cudart: the binary starts without libcuda.so.1; NVRTC and cuBLAS dlopened by
 * cuda_libs.c, whose search order gb_cuda.h documents).
 *
 * Devices and threads. The runtime keeps a "current device" per host thread, and the
 * multi-device suite drives different devices from different threads, so every member that
 * touches a device begins with cu__use(its device), a cudaSetDevice unless this thread's current
 * device is that one already, so the right context is current whatever thread calls.
 *
 * Programs. NVRTC compiles the kernel text (prelude + file, the same text the OpenCL backend
 * gets) for the device's own architecture to a CUBIN, or to PTX of the newest architecture it
 * knows when the device is newer than this NVRTC (the driver JIT-compiles that). The image is
 * loaded with cudaLibraryLoadData (runtime API, CUDA 12+: context-independent "libraries"), and
 * kernels are cudaKernel_t handles, which cudaLaunchKernel and cudaFuncGetAttributes accept
 * cast to const void *. So no driver-API call and no libcuda link is needed.
 *
 * Errors. Every failing runtime call goes through CU() / CU_ERR(), which records file:line, the
 * call's name, its numeric code, cudaGetErrorName and cudaGetErrorString (GB_EBACKEND unless
 * the call site says otherwise); NVRTC and cuBLAS failures likewise through NV() and BL().
 *
 * Sticky errors (a kernel's illegal address and its kin, gb_cuda_error_is_sticky) poison the
 * device's context for the rest of the process. The first one seen is kept as the device's
 * reason (gb_cuda_note_error) and every later use of the device fails with it at once, in
 * cu__use, rather than with whatever the poisoned context answers; a queue created on a lost
 * device is a dead one whose every use fails so, so the runner records each later case as
 * failed with the first error. The device is not reset (cudaDeviceReset would free memory that
 * open handles still point to); a fresh process gets a fresh context.
 */
#include "gb-config.h"
#include "base/util.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "backends/backend.h"
#include "cuda_libs.h"
#include "gb_cuda.h"

#define CU__MAX_DEV 64 /* devices whose peer-access and lost state is tracked */

/* ---- sticky errors and lost devices ------------------------------------------------------ */

bool gb_cuda_error_is_sticky(int e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorContained:
    case cudaErrorMpsClientTerminated:
    case cudaErrorExternalDevice:
        return true;
    default:
        return false;
    }
}

/* A device's first sticky error. `lost` is set (release) after `why` is written, once. */
static struct {
    atomic_bool lost;
    char why[1024];
} cu__lost[CU__MAX_DEV];
static pthread_mutex_t cu__lost_lock = PTHREAD_MUTEX_INITIALIZER;

bool gb_cuda_note_error(int index, int e, const char *text)
{
    if (index < 0 || index >= CU__MAX_DEV)
        return false;
    if (gb_cuda_error_is_sticky(e)) {
        pthread_mutex_lock(&cu__lost_lock);
        if (!atomic_load_explicit(&cu__lost[index].lost, memory_order_relaxed)) {
            snprintf(cu__lost[index].why, sizeof cu__lost[index].why, "%s", text);
            atomic_store_explicit(&cu__lost[index].lost, true, memory_order_release);
        }
        pthread_mutex_unlock(&cu__lost_lock);
    }
    return atomic_load_explicit(&cu__lost[index].lost, memory_order_acquire);
}

const char *gb_cuda_lost_reason(int index)
{
    if (index < 0 || index >= CU__MAX_DEV ||
        !atomic_load_explicit(&cu__lost[index].lost, memory_order_acquire))
        return NULL;
    return cu__lost[index].why;
}

/* GB_EBACKEND naming the first sticky error of the device, for every use after it. */
static int cu__lost_fail(int index)
{
    return GB_USER_FAIL(GB_EBACKEND,
                        "CUDA device %d was lost to an earlier sticky error, which leaves its "
                        "context unusable until the process ends: %s",
                        index, cu__lost[index].why);
}

static bool cu__is_lost(int index)
{
    return index >= 0 && index < CU__MAX_DEV &&
           atomic_load_explicit(&cu__lost[index].lost, memory_order_acquire);
}

/* ---- error wrappers ------------------------------------------------------------------------ */

/* This thread's current device (cu__use), -1 when unknown: where a failing call ran. */
static _Thread_local int cu__current = -1;

static int cu__fail_on(int index, cudaError_t e, int err, const char *file, int line,
                       const char *call)
{
    /* Reset the runtime's last-error slot so a later cudaGetLastError does not report this
     * failure again (sticky errors, such as a kernel fault, stay regardless). */
    (void)cudaGetLastError();
    char text[640];
    const char *base = strrchr(file, '/');
    snprintf(text, sizeof text, "%s:%d: %s: %s (%d): %s", base ? base + 1 : file, line, call,
             cudaGetErrorName(e), (int)e, cudaGetErrorString(e));
    gb_cuda_note_error(index, (int)e, text);
    return gb_error_set(err, NULL, 0, "%s", text);
}

static int cu__fail(cudaError_t e, int err, const char *file, int line, const char *call)
{
    return cu__fail_on(cu__current, e, err, file, line, call);
}

static inline int cu__check(cudaError_t e, int err, const char *file, int line, const char *call)
{
    return e == cudaSuccess ? 0 : cu__fail(e, err, file, line, call);
}

/* CU(cudaMalloc, &p, n): 0, or GB_EBACKEND with the detail recorded. CU_ERR picks the code. */
#define CU_ERR(err, fn, ...) cu__check((fn)(__VA_ARGS__), (err), __FILE__, __LINE__, #fn)
#define CU(fn, ...) CU_ERR(GB_EBACKEND, fn, __VA_ARGS__)

static int nv__fail(nvrtcResult r, const char *file, int line, const char *call)
{
    return gb_error_set(GB_EBACKEND, file, line, "%s: NVRTC error %d: %s", call, (int)r,
                        gb__nv.nvrtcGetErrorString(r));
}
static inline int nv__check(nvrtcResult r, const char *file, int line, const char *call)
{
    return r == NVRTC_SUCCESS ? 0 : nv__fail(r, file, line, call);
}
/* NV(nvrtcGetPTX, prog, out): calls it through gb__nv (NVRTC must be loaded); 0, or GB_EBACKEND
 * with the NVRTC error recorded. */
#define NV(fn, ...) nv__check(gb__nv.fn(__VA_ARGS__), __FILE__, __LINE__, #fn)

/* ---- handles (the container_of idiom: the public struct is the first member) -------------- */

struct cu_device {
    struct gb_device pub;
    int cc_major, cc_minor;
    uint32_t max_grid[3];
    /* GB_ALLOC_ASYNC_KEEP's pool (release threshold UINT64_MAX), made by its first use and
     * destroyed with the handle; NULL until then. */
    cudaMemPool_t keep_pool;
#if HAVE_CUBLAS
    /* Set up once, by the first gemm on this handle: the cuBLAS handle, its own workspace
     * (cublasSetWorkspace; given again after each cublasSetStream, which resets it) and the
     * stream the handle was last given. */
    cublasHandle_t blas;
    void *blas_ws;
    size_t blas_ws_bytes;
    struct gb_cuda_stream_cache blas_stream;
#endif
#if HAVE_CUBLASLT
    /* Set up once, by the first gemm_fp8 on this handle: the cuBLASLt handle, its workspace, a
     * device float 1.0f the A and B scale pointers point to, and the plan of the last FP8 GEMM
     * (descriptors and the heuristic's algorithm), reused while the next call has the same
     * shape: the timed loop repeats one call, and a heuristic query per call would be timed. */
    cublasLtHandle_t lt;
    void *lt_ws;
    size_t lt_ws_bytes;
    float *lt_one;
    struct cu_lt_plan {
        bool valid;
        struct gb_gemm_fp8 key; /* a, b, c cleared: cu__lt_same compares the rest */
        cublasLtMatmulDesc_t op;
        cublasLtMatrixLayout_t la, lb, lc;
        cublasLtMatmulAlgo_t algo;
    } lt_plan;
#endif
};

struct cu_buf {
    struct gb_buf pub;
    void *ptr; /* device pointer, or the host pointer for host kinds */
    /* Made by alloc_method (how buf_free releases it), else by buf_alloc (by its kind). */
    bool by_method;
    enum gb_alloc_method method;
    cudaStream_t stream; /* the stream-ordered methods: the stream cudaFreeAsync orders on */
};

struct cu_queue {
    struct gb_queue pub;
    cudaStream_t stream;
    bool dead; /* made on a lost device: no stream; every use fails with the device's reason */
};

struct cu_program {
    struct gb_program pub;
    cudaLibrary_t lib;
};

#define CU__PARAMS_UNKNOWN UINT32_MAX
struct cu_kernel {
    struct gb_kernel pub;
    cudaKernel_t k;
    char name[128];
    uint32_t max_wg;                /* maxThreadsPerBlock of this kernel on its device */
    uint32_t nparams;               /* CU__PARAMS_UNKNOWN when the runtime cannot say */
    size_t param_size[GB_MAX_ARGS]; /* bytes of each parameter */
};

struct cu_event {
    struct gb_event pub;
    cudaEvent_t ev;
};

static struct cu_device *cu_dev(struct gb_device *d)
{
    return (struct cu_device *)d;
}
static struct cu_buf *cu_buf(struct gb_buf *b)
{
    return (struct cu_buf *)b;
}
static struct cu_queue *cu_queue(struct gb_queue *q)
{
    return (struct cu_queue *)q;
}

/* Whether two handles name the same CUDA device (a device may be opened more than once). */
static bool cu__same(const struct gb_device *a, const struct gb_device *b)
{
    return a == b || (a && b && a->index == b->index);
}

/* Makes device `index` the calling thread's current device, or fails with the device's first
 * sticky error when it is lost. The last index set is cached per thread: launches and event
 * records are what the launch suite times, and a cudaSetDevice on each would add its cost to
 * CUDA's side of the comparison. Only this file sets the device (cuBLAS restores the caller's),
 * so the cache stays true. */
static int cu__use_index(int index)
{
    if (cu__is_lost(index))
        return cu__lost_fail(index);
    if (cu__current == index)
        return 0;
    cudaError_t e = cudaSetDevice(index);
    if (e != cudaSuccess) {
        cu__current = -1;
        return cu__fail_on(index, e, GB_EBACKEND, __FILE__, __LINE__, "cudaSetDevice");
    }
    cu__current = index;
    return 0;
}
static int cu__use(struct gb_device *dev)
{
    return cu__use_index(dev->index);
}

/* ---- cuBLAS, loaded by the first GEMM (cuda_libs.c) ------------------------------------------ */

int gb_cuda_blas_status_err(int status)
{
    switch (status) {
    case 0: /* CUBLAS_STATUS_SUCCESS */
        return 0;
    case 15: /* CUBLAS_STATUS_NOT_SUPPORTED */
    case 8:  /* CUBLAS_STATUS_ARCH_MISMATCH */
        return GB_EUNSUPPORTED;
    default:
        return GB_EBACKEND;
    }
}

bool gb_cuda_stream_cache_needs(const struct gb_cuda_stream_cache *c, const void *stream)
{
    return !c->valid || c->stream != stream;
}

void gb_cuda_stream_cache_told(struct gb_cuda_stream_cache *c, const void *stream)
{
    c->stream = stream;
    c->valid = true;
}

bool gb_cuda_stream_cache_holds(const struct gb_cuda_stream_cache *c, const void *stream)
{
    return c->valid && c->stream == stream;
}

#if HAVE_CUBLAS
_Static_assert(CUBLAS_STATUS_SUCCESS == 0 && CUBLAS_STATUS_NOT_SUPPORTED == 15 &&
                   CUBLAS_STATUS_ARCH_MISMATCH == 8,
               "gb_cuda_blas_status_err's numbers");

static int bl__fail(cublasStatus_t s, const char *file, int line, const char *call)
{
    /* A failed execution may hide a sticky CUDA error: note it for the device, and say it. */
    cudaError_t e = cudaSuccess;
    if (s == CUBLAS_STATUS_EXECUTION_FAILED || s == CUBLAS_STATUS_INTERNAL_ERROR) {
        e = cudaGetLastError();
        if (e != cudaSuccess && gb_cuda_error_is_sticky((int)e))
            (void)cu__fail(e, GB_EBACKEND, file, line, call);
    }
    int err = gb_error_set(gb_cuda_blas_status_err((int)s), file, line, "%s: %s (%d): %s", call,
                           gb__bl.cublasGetStatusName(s), (int)s, gb__bl.cublasGetStatusString(s));
    if (e != cudaSuccess)
        err = gb_error_append(err, "underneath: %s (%d): %s", cudaGetErrorName(e), (int)e,
                              cudaGetErrorString(e));
    return err;
}
static inline int bl__check(cublasStatus_t s, const char *file, int line, const char *call)
{
    return s == CUBLAS_STATUS_SUCCESS ? 0 : bl__fail(s, file, line, call);
}
/* BL(cublasGemmEx_64, ...): calls it through gb__bl; 0, or GB_EUNSUPPORTED / GB_EBACKEND
 * (gb_cuda_blas_status_err) with the status. */
#define BL(fn, ...) bl__check(gb__bl.fn(__VA_ARGS__), __FILE__, __LINE__, #fn)
#endif

/* ---- lifecycle and discovery ----------------------------------------------------------------- */

static int cu__count = -1; /* devices found by init; -1 before a successful init */

static void cu__version(int v, char *out, size_t cap)
{
    snprintf(out, cap, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* Loads NVRTC (without it no kernel builds, so CUDA is unavailable) and asks the driver for the
 * devices. cuBLAS is not loaded here: the first GEMM loads it. With GPUBENCH_CUDA_REPORT set
 * (and not "0"), the first call writes the version chain (gb_cuda_report) to stderr. */
static int cu_init(void)
{
    static bool reported;
    if (!reported) {
        reported = true;
        const char *r = getenv("GPUBENCH_CUDA_REPORT");
        if (r && *r && strcmp(r, "0") != 0)
            gb_cuda_report(stderr, gb_cuda_pick_arch, gb_cuda_compile);
    }
    if (cu__count >= 0)
        return 0;
    char nvwhy[2048] = "";
    if (gb__cuda_nvrtc_load() != 0)
        snprintf(nvwhy, sizeof nvwhy, "%s", gb_error_msg());
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaErrorNoDevice) { /* a driver, no GPU: not a failure */
        (void)cudaGetLastError();
        n = 0;
        e = cudaSuccess;
    }
    if (e != cudaSuccess) {
        int drv = 0, rt = 0;
        (void)cudaDriverGetVersion(&drv);
        (void)cudaRuntimeGetVersion(&rt);
        (void)cudaGetLastError();
        char rts[16], drvs[16], why[160];
        cu__version(rt, rts, sizeof rts);
        cu__version(drv, drvs, sizeof drvs);
        if (drv == 0)
            snprintf(why, sizeof why, "no NVIDIA driver is installed (libcuda.so.1 not found)");
        else if (drv < rt)
            snprintf(why, sizeof why, "the driver supports CUDA %s, this gpubench needs %s", drvs,
                     rts);
        else
            snprintf(why, sizeof why, "driver for CUDA %s, runtime %s", drvs, rts);
        /* The reason `gpubench devices` shows, not a bug location: no file:line. */
        return GB_USER_FAIL(GB_EUNAVAIL, "CUDA driver: %s (%d): %s; %s%s%s", cudaGetErrorName(e),
                            (int)e, cudaGetErrorString(e), why, *nvwhy ? "; " : "", nvwhy);
    }
    if (*nvwhy)
        return GB_USER_FAIL(GB_EUNAVAIL, "%s", nvwhy);
    cu__count = n;
    return 0;
}

static void cu_shutdown(void)
{
    cu__count = -1;
}

static int cu_device_count(void)
{
    return cu__count < 0 ? 0 : cu__count;
}

/* How processes share the device (gb_device_info.sharing): the compute mode the driver reports
 * (cudaDevAttrComputeMode, cudaComputeMode in the CUDA Runtime API reference), whether an MPS
 * server's control pipe exists (CUDA_MPS_PIPE_DIRECTORY, default /tmp/nvidia-mps: "Multi-Process
 * Service" documentation, section "Environment Variables"), and whether the device is a MIG
 * instance (the driver names one "<GPU> MIG <profile>", as nvidia-smi -L lists them). Reads
 * only; gpubench never sets a mode. */
static void cu_sharing(int index, const struct cudaDeviceProp *p, char *out, size_t len)
{
    int cm = -1;
    if (cudaDeviceGetAttribute(&cm, cudaDevAttrComputeMode, index) != cudaSuccess) {
        (void)cudaGetLastError();
        cm = -1;
    }
    const char *mode = cm == cudaComputeModeDefault            ? "default (time-sliced)"
                       : cm == cudaComputeModeExclusiveProcess ? "exclusive-process"
                       : cm == cudaComputeModeProhibited       ? "prohibited"
                                                               : "compute mode unknown";
    const char *dir = getenv("CUDA_MPS_PIPE_DIRECTORY");
    char control[512];
    snprintf(control, sizeof control, "%s/control", dir && *dir ? dir : "/tmp/nvidia-mps");
    const bool mps = access(control, F_OK) == 0;
    const bool mig = strstr(p->name, " MIG ") != NULL;
    snprintf(out, len, "%s%s%s", mode, mps ? "; MPS control pipe present" : "",
             mig ? "; MIG instance" : "");
}

/* device_info plus what launch needs and the info struct does not carry. */
static int cu__query(int index, struct gb_device_info *out, int *cc_major, int *cc_minor,
                     uint32_t max_grid[3])
{
    if (index < 0 || index >= cu_device_count())
        return GB_USER_FAIL(GB_ENODEV, "no CUDA device %d: there are %d", index, cu_device_count());
    struct cudaDeviceProp p;
    int rc = CU(cudaGetDeviceProperties, &p, index);
    if (rc)
        return rc;
    int clk = 0, memclk = 0, bus = 0, drv = 0;
    if ((rc = CU(cudaDeviceGetAttribute, &clk, cudaDevAttrClockRate, index)) ||
        (rc = CU(cudaDeviceGetAttribute, &memclk, cudaDevAttrMemoryClockRate, index)) ||
        (rc = CU(cudaDeviceGetAttribute, &bus, cudaDevAttrGlobalMemoryBusWidth, index)) ||
        (rc = CU(cudaDriverGetVersion, &drv)))
        return rc;

    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", p.name);
    snprintf(out->vendor, sizeof out->vendor, "NVIDIA");
    /* The runtime API gives the CUDA version the driver implements, not the driver's release
     * number (580.xx needs NVML, which gpubench does not link). */
    char v[16];
    cu__version(drv, v, sizeof v);
    snprintf(out->driver, sizeof out->driver, "CUDA %s", v);
    snprintf(out->version, sizeof out->version, "compute capability %d.%d", p.major, p.minor);
    snprintf(out->arch, sizeof out->arch, "sm_%d%d", p.major, p.minor);
    out->global_mem = p.totalGlobalMem;
    out->max_alloc = p.totalGlobalMem; /* CUDA has no per-allocation limit below that */
    out->local_mem = p.sharedMemPerBlock;
    out->l2_bytes = p.l2CacheSize > 0 ? (uint64_t)p.l2CacheSize : 0;
    out->compute_units = (uint32_t)p.multiProcessorCount;
    out->type = GB_DEVICE_GPU;
    out->native_vec_double = 1;
    out->clock_mhz = (uint32_t)(clk / 1000);
    out->mem_clock_mhz = (uint32_t)(memclk / 1000);
    out->mem_bus_bits = (uint32_t)bus;
    out->max_wg_size = (uint32_t)p.maxThreadsPerBlock;
    for (int d = 0; d < 3; d++)
        out->max_wg_dims[d] = (uint32_t)p.maxThreadsDim[d];
    out->warp_size = p.warpSize > 0 ? (uint32_t)p.warpSize : 1;
    out->peak_mem_gbs = gb_cuda_peak_mem_gbs((uint64_t)memclk, (uint64_t)bus);
    gb_format_uuid((const unsigned char *)p.uuid.bytes, out->uuid, sizeof out->uuid);
    snprintf(out->pci_bus_id, sizeof out->pci_bus_id, "%04x:%02x:%02x.0",
             (unsigned)p.pciDomainID & 0xffffu, (unsigned)p.pciBusID & 0xffu,
             (unsigned)p.pciDeviceID & 0xffu);
    cu_sharing(index, &p, out->sharing, sizeof out->sharing);

    bool peer = false;
    for (int j = 0; j < cu_device_count() && !peer; j++) {
        int can = 0;
        peer = j != index && cudaDeviceCanAccessPeer(&can, index, j) == cudaSuccess && can;
    }
    (void)cudaGetLastError();
#if HAVE_CUBLAS
    const bool blas = gb__cuda_blas_found(); /* found, not loaded: the first GEMM loads it */
#else
    const bool blas = false;
#endif
    out->caps = gb_cuda_caps(p.major, p.minor, p.integrated != 0, peer, blas);

    if (cc_major)
        *cc_major = p.major;
    if (cc_minor)
        *cc_minor = p.minor;
    if (max_grid)
        for (int d = 0; d < 3; d++)
            max_grid[d] = (uint32_t)p.maxGridSize[d];
    return 0;
}

uint64_t gb_cuda_caps(int major, int minor, bool integrated, bool peer, bool blas)
{
    const int cc = major * 10 + minor;
    /* Launch graphs by stream capture: every device this runtime supports (the graph_* members
     * at the end of this file). */
    uint64_t caps = GB_CAP_FP64 | GB_CAP_GRAPH;
    if (cc >= 53)
        caps |= GB_CAP_FP16;
    if (cc >= 61)
        caps |= GB_CAP_INT8_DOT;
    if (cc >= 80)
        caps |= GB_CAP_BF16;
    if (cc >= 89)
        caps |= GB_CAP_BLAS_FP8; /* FP8 tensor cores; cuBLASLt loads at the first FP8 GEMM */
    if (integrated)
        caps |= GB_CAP_UNIFIED;
    if (peer)
        caps |= GB_CAP_PEER;
    if (blas) {
        caps |= GB_CAP_BLAS_F32 | GB_CAP_BLAS_F64;
        if (cc >= 53)
            caps |= GB_CAP_BLAS_F16 | GB_CAP_BLAS_MIXED;
        if (cc >= 80)
            caps |= GB_CAP_BLAS_BF16 | GB_CAP_BLAS_TF32;
    }
    return caps;
}

static int cu_device_info(int index, struct gb_device_info *out)
{
    return cu__query(index, out, NULL, NULL, NULL);
}

static int cu_device_open(int index, struct gb_device **out)
{
    struct cu_device *d = calloc(1, sizeof *d);
    if (!d)
        return GB_FAIL(GB_ENOMEM, "CUDA device_open");
    int rc = cu__query(index, &d->pub.info, &d->cc_major, &d->cc_minor, d->max_grid);
    if (rc)
        goto fail;
    d->pub.ops = &gb_cuda_ops;
    d->pub.index = index;
    /* Create the primary context now, so its cost never lands in a measurement. */
    if ((rc = cu__use_index(index)) || (rc = CU(cudaFree, NULL)))
        goto fail;
    *out = &d->pub;
    return 0;
fail:
    free(d);
    return rc;
}

#if HAVE_CUBLASLT
static void cu__lt_release(struct cu_device *d);
#endif

static void cu_device_close(struct gb_device *dev)
{
    if (!dev)
        return;
#if HAVE_CUBLAS
    struct cu_device *d = cu_dev(dev);
    if ((d->blas || d->blas_ws) && cu__use(dev) == 0) {
        if (d->blas)
            (void)gb__bl.cublasDestroy_v2(d->blas);
        if (d->blas_ws)
            (void)cudaFree(d->blas_ws);
        (void)cudaGetLastError();
    }
#endif
#if HAVE_CUBLASLT
    cu__lt_release(cu_dev(dev));
#endif
    if (cu_dev(dev)->keep_pool && cu__use(dev) == 0) {
        (void)cudaDeviceSynchronize();
        (void)cudaMemPoolDestroy(cu_dev(dev)->keep_pool);
        (void)cudaGetLastError();
    }
    /* The primary context stays: other handles of this process may still use the device. */
    free(dev);
}

/* ---- memory ---------------------------------------------------------------------------------- */

static int cu_buf_alloc(struct gb_device *dev, uint64_t bytes, enum gb_mem_kind kind,
                        struct gb_buf **out)
{
    if (bytes == 0)
        return GB_FAIL(GB_EINVAL, "buf_alloc: 0 bytes");
    if (kind != GB_MEM_DEVICE && kind != GB_MEM_HOST_PINNED && kind != GB_MEM_HOST_PAGEABLE)
        return GB_FAIL(GB_EINVAL, "buf_alloc: unknown memory kind %d", (int)kind);
    if (kind != GB_MEM_HOST_PAGEABLE && bytes > dev->info.max_alloc)
        return GB_FAIL(GB_ETOOBIG, "buf_alloc: %llu bytes exceed the device's %llu",
                       (unsigned long long)bytes, (unsigned long long)dev->info.max_alloc);
    if (bytes > SIZE_MAX)
        return GB_FAIL(GB_ETOOBIG, "buf_alloc: %llu bytes exceed the address space",
                       (unsigned long long)bytes);
    struct cu_buf *b = calloc(1, sizeof *b);
    if (!b)
        return GB_FAIL(GB_ENOMEM, "buf_alloc");
    int rc = 0;
    switch (kind) {
    case GB_MEM_DEVICE:
        if ((rc = cu__use(dev)) == 0)
            rc = CU_ERR(GB_ENOMEM, cudaMalloc, &b->ptr, (size_t)bytes);
        break;
    case GB_MEM_HOST_PINNED:
        /* Portable: pinned for every device's context, so the multi-device suite may copy a
         * host buffer to any device. */
        if ((rc = cu__use(dev)) == 0)
            rc = CU_ERR(GB_ENOMEM, cudaHostAlloc, &b->ptr, (size_t)bytes, cudaHostAllocPortable);
        b->pub.host = b->ptr;
        break;
    case GB_MEM_HOST_PAGEABLE:
        rc = gb_pageable_alloc(bytes, &b->ptr);
        b->pub.host = b->ptr;
        break;
    }
    if (rc) {
        free(b);
        return rc;
    }
    b->pub.dev = dev;
    b->pub.bytes = bytes;
    b->pub.kind = kind;
    *out = &b->pub;
    return 0;
}

static void cu_buf_free(struct gb_buf *buf)
{
    if (!buf)
        return;
    struct cu_buf *b = cu_buf(buf);
    if (b->by_method) {
        if (cu__use(buf->dev) == 0) {
            switch (b->method) {
            case GB_ALLOC_ASYNC:
            case GB_ALLOC_ASYNC_KEEP:
                (void)cudaFreeAsync(b->ptr, b->stream);
                break;
            case GB_ALLOC_PINNED:
                (void)cudaFreeHost(b->ptr);
                break;
            case GB_ALLOC_REGISTERED:
                (void)cudaHostUnregister(b->ptr);
                break;
            default:
                (void)cudaFree(b->ptr);
                break;
            }
        }
        if (b->method == GB_ALLOC_REGISTERED)
            free(b->ptr);
        (void)cudaGetLastError();
        free(b);
        return;
    }
    switch (buf->kind) {
    case GB_MEM_DEVICE:
        if (cu__use(buf->dev) == 0)
            (void)cudaFree(b->ptr);
        break;
    case GB_MEM_HOST_PINNED:
        if (cu__use(buf->dev) == 0)
            (void)cudaFreeHost(b->ptr);
        break;
    case GB_MEM_HOST_PAGEABLE:
        free(b->ptr);
        break;
    }
    (void)cudaGetLastError();
    free(b);
}

/* The pool behind a stream-ordered method on d: the device's default pool, or gpubench's own
 * (made here at the first use, release threshold UINT64_MAX: what a free returns stays
 * reserved across synchronisations). The current device is d's. */
static int cu__method_pool(struct cu_device *d, enum gb_alloc_method m, cudaMemPool_t *out)
{
    int supported = 0;
    int rc = CU(cudaDeviceGetAttribute, &supported, cudaDevAttrMemoryPoolsSupported, d->pub.index);
    if (rc)
        return rc;
    if (!supported)
        return GB_FAIL(GB_EUNSUPPORTED, "the device or driver has no memory pools "
                                        "(cudaDevAttrMemoryPoolsSupported is 0)");
    if (m == GB_ALLOC_ASYNC)
        return CU(cudaDeviceGetDefaultMemPool, out, d->pub.index);
    if (!d->keep_pool) {
        struct cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d->pub.index;
        cudaMemPool_t pool;
        if ((rc = CU(cudaMemPoolCreate, &pool, &props)))
            return rc;
        uint64_t keep = UINT64_MAX;
        if ((rc = CU(cudaMemPoolSetAttribute, pool, cudaMemPoolAttrReleaseThreshold, &keep))) {
            (void)cudaMemPoolDestroy(pool);
            return rc;
        }
        d->keep_pool = pool;
    }
    *out = d->keep_pool;
    return 0;
}

/* alloc_method (backend.h, gb_alloc_method): the CUDA ways to get memory, nothing touched. */
static int cu_alloc_method(struct gb_queue *q, enum gb_alloc_method m, uint64_t bytes,
                           struct gb_buf **out)
{
    struct cu_queue *cq = cu_queue(q);
    struct cu_device *d = cu_dev(q->dev);
    if (bytes == 0)
        return GB_FAIL(GB_EINVAL, "alloc_method: 0 bytes");
    if ((unsigned)m >= GB_ALLOC_NMETHODS)
        return GB_FAIL(GB_EINVAL, "alloc_method: unknown method %d", (int)m);
    if (m == GB_ALLOC_SVM)
        return GB_FAIL(GB_EUNSUPPORTED, "SVM is OpenCL's; CUDA's counterpart is managed memory "
                                        "(method managed)");
    const bool host = m == GB_ALLOC_PINNED || m == GB_ALLOC_REGISTERED;
    if (!host && bytes > d->pub.info.max_alloc)
        return GB_FAIL(GB_ETOOBIG, "alloc_method: %llu bytes exceed the device's %llu",
                       (unsigned long long)bytes, (unsigned long long)d->pub.info.max_alloc);
    if (bytes > SIZE_MAX - 4096)
        return GB_FAIL(GB_ETOOBIG, "alloc_method: %llu bytes exceed the address space",
                       (unsigned long long)bytes);
    if (cq->dead)
        return GB_FAIL(GB_EBACKEND, "alloc_method: the queue's device was lost");
    int rc = cu__use(q->dev);
    if (rc)
        return rc;
    struct cu_buf *b = calloc(1, sizeof *b);
    if (!b)
        return GB_FAIL(GB_ENOMEM, "alloc_method");
    const size_t n = (size_t)bytes;
    cudaMemPool_t pool;
    switch (m) {
    case GB_ALLOC_DEVICE:
        rc = CU_ERR(GB_ENOMEM, cudaMalloc, &b->ptr, n);
        break;
    case GB_ALLOC_ASYNC:
    case GB_ALLOC_ASYNC_KEEP:
        if ((rc = cu__method_pool(d, m, &pool)) == 0)
            rc = CU_ERR(GB_ENOMEM, cudaMallocFromPoolAsync, &b->ptr, n, pool, cq->stream);
        b->stream = cq->stream;
        break;
    case GB_ALLOC_MANAGED:
        rc = CU_ERR(GB_ENOMEM, cudaMallocManaged, &b->ptr, n, cudaMemAttachGlobal);
        break;
    case GB_ALLOC_PINNED:
        rc = CU_ERR(GB_ENOMEM, cudaHostAlloc, &b->ptr, n, cudaHostAllocPortable);
        break;
    case GB_ALLOC_REGISTERED:
        /* Page-aligned and untouched, as memory a framework got from malloc and pins later. */
        b->ptr = aligned_alloc(4096, (n + 4095) / 4096 * 4096);
        if (!b->ptr)
            rc = GB_FAIL(GB_ENOMEM, "aligned_alloc of %zu bytes", n);
        else if ((rc = CU_ERR(GB_ENOMEM, cudaHostRegister, b->ptr, n, cudaHostRegisterPortable))) {
            free(b->ptr);
            b->ptr = NULL;
        }
        break;
    default:
        break;
    }
    if (rc) {
        (void)cudaGetLastError();
        free(b);
        return rc;
    }
    b->by_method = true;
    b->method = m;
    b->pub.dev = q->dev;
    b->pub.bytes = bytes;
    b->pub.kind = host ? GB_MEM_HOST_PINNED : GB_MEM_DEVICE;
    b->pub.host = host ? b->ptr : NULL;
    *out = &b->pub;
    return 0;
}

/* alloc_pool_stats (backend.h): the high-water marks of the pool behind m, then a reset (a
 * high-water mark is reset by setting it to 0, which sets it to the current value). */
static int cu_alloc_pool_stats(struct gb_queue *q, enum gb_alloc_method m, bool reset,
                               struct gb_pool_stats *out)
{
    if (m != GB_ALLOC_ASYNC && m != GB_ALLOC_ASYNC_KEEP)
        return GB_FAIL(GB_EUNSUPPORTED, "alloc_pool_stats: method %d has no pool", (int)m);
    int rc = cu__use(q->dev);
    cudaMemPool_t pool;
    if (rc || (rc = cu__method_pool(cu_dev(q->dev), m, &pool)))
        return rc;
    uint64_t reserved = 0, used = 0, zero = 0;
    if ((rc = CU(cudaMemPoolGetAttribute, pool, cudaMemPoolAttrReservedMemHigh, &reserved)) ||
        (rc = CU(cudaMemPoolGetAttribute, pool, cudaMemPoolAttrUsedMemHigh, &used)))
        return rc;
    if (reset && ((rc = CU(cudaMemPoolSetAttribute, pool, cudaMemPoolAttrReservedMemHigh, &zero)) ||
                  (rc = CU(cudaMemPoolSetAttribute, pool, cudaMemPoolAttrUsedMemHigh, &zero))))
        return rc;
    out->reserved_high = reserved;
    out->used_high = used;
    return 0;
}

/* ---- queues and transfers -------------------------------------------------------------------- */

/* A non-blocking stream on dev: with the default priority when `prio` is NULL, else with
 * *prio (a value inside the device's range). */
static int cu__queue_new(struct gb_device *dev, const int *prio, struct gb_queue **out)
{
    struct cu_queue *q = calloc(1, sizeof *q);
    if (!q)
        return GB_FAIL(GB_ENOMEM, "queue_create");
    if (cu__is_lost(dev->index)) {
        /* A dead queue: each use fails in cu__use with the device's first sticky error, so the
         * cases after it say why, not "queue lost". */
        q->dead = true;
        q->pub.dev = dev;
        *out = &q->pub;
        return 0;
    }
    int rc = cu__use(dev);
    /* Non-blocking: no implicit synchronisation with the legacy default stream. */
    if (!rc && !prio)
        rc = CU(cudaStreamCreateWithFlags, &q->stream, cudaStreamNonBlocking);
    else if (!rc)
        rc = CU(cudaStreamCreateWithPriority, &q->stream, cudaStreamNonBlocking, *prio);
    if (rc) {
        free(q);
        return rc;
    }
    q->pub.dev = dev;
    *out = &q->pub;
    return 0;
}

static int cu_queue_create(struct gb_device *dev, struct gb_queue **out)
{
    return cu__queue_new(dev, NULL, out);
}

/* queue_create_priority (backend.h): the end of the device's stream priority range that p
 * names. The range is asked each time (one cheap runtime call; queues are made in setup). A
 * lost device gets a dead queue, as from queue_create. */
static int cu_queue_create_priority(struct gb_device *dev, enum gb_queue_priority p,
                                    struct gb_queue **out)
{
    if (p != GB_QUEUE_PRIORITY_LOW && p != GB_QUEUE_PRIORITY_HIGH)
        return GB_FAIL(GB_EINVAL, "queue_create_priority: unknown priority %d", (int)p);
    if (cu__is_lost(dev->index))
        return cu__queue_new(dev, NULL, out);
    int least = 0, greatest = 0;
    int rc = cu__use(dev);
    if (!rc)
        rc = CU(cudaDeviceGetStreamPriorityRange, &least, &greatest);
    if (rc)
        return rc;
    if (least == greatest)
        return GB_FAIL(GB_EUNSUPPORTED,
                       "the CUDA device has one stream priority (cudaDeviceGetStreamPriorityRange:"
                       " least = greatest = %d)",
                       least);
    const int prio = p == GB_QUEUE_PRIORITY_HIGH ? greatest : least;
    return cu__queue_new(dev, &prio, out);
}

static void cu_queue_destroy(struct gb_queue *q)
{
    if (!q)
        return;
    if (!cu_queue(q)->dead && cu__use(q->dev) == 0) {
#if HAVE_CUBLAS
        /* The cuBLAS handle must not keep a destroyed stream as its own. */
        struct cu_device *d = cu_dev(q->dev);
        if (d->blas && gb_cuda_stream_cache_holds(&d->blas_stream, cu_queue(q)->stream)) {
            if (gb__bl.cublasSetStream_v2(d->blas, NULL) == CUBLAS_STATUS_SUCCESS)
                gb_cuda_stream_cache_told(&d->blas_stream, NULL);
            else
                d->blas_stream.valid = false;
        }
#endif
        (void)cudaStreamDestroy(cu_queue(q)->stream);
    }
    (void)cudaGetLastError();
    free(q);
}

static int cu_queue_flush(struct gb_queue *q)
{
    /* Linux submits work at enqueue; cudaStreamQuery also pushes anything batched. */
    int rc = cu__use(q->dev);
    if (rc)
        return rc;
    cudaError_t e = cudaStreamQuery(cu_queue(q)->stream);
    if (e == cudaErrorNotReady) {
        (void)cudaGetLastError();
        return 0;
    }
    return cu__check(e, GB_EBACKEND, __FILE__, __LINE__, "cudaStreamQuery");
}

static int cu_queue_sync(struct gb_queue *q)
{
    int rc = cu__use(q->dev);
    return rc ? rc : CU(cudaStreamSynchronize, cu_queue(q)->stream);
}

/* GB_EINVAL unless [off, off + bytes) lies inside buf. */
static int cu__range(const struct gb_buf *buf, uint64_t off, uint64_t bytes, const char *what)
{
    if (!buf)
        return GB_FAIL(GB_EINVAL, "%s: NULL buffer", what);
    if (off > buf->bytes || bytes > buf->bytes - off)
        return GB_FAIL(GB_EINVAL, "%s: range [%llu, +%llu) leaves a %llu-byte buffer", what,
                       (unsigned long long)off, (unsigned long long)bytes,
                       (unsigned long long)buf->bytes);
    return 0;
}

static int cu_copy(struct gb_queue *q, struct gb_buf *dst, uint64_t dst_off, struct gb_buf *src,
                   uint64_t src_off, uint64_t bytes, enum gb_copy_flags flags)
{
    int rc;
    if ((rc = cu__range(dst, dst_off, bytes, "copy dst")) ||
        (rc = cu__range(src, src_off, bytes, "copy src")))
        return rc;
    const bool dhost = dst->kind != GB_MEM_DEVICE, shost = src->kind != GB_MEM_DEVICE;
    enum cudaMemcpyKind kind;
    if (dhost && shost)
        return GB_FAIL(GB_EINVAL, "copy: host to host");
    else if (shost)
        kind = cudaMemcpyHostToDevice;
    else if (dhost)
        kind = cudaMemcpyDeviceToHost;
    else
        kind = cudaMemcpyDeviceToDevice;
    if ((!dhost && !cu__same(dst->dev, q->dev)) || (!shost && !cu__same(src->dev, q->dev)))
        return GB_FAIL(GB_EINVAL, "copy: a device buffer of another device (use peer_copy)");
    if (bytes == 0)
        return 0;
    if ((rc = cu__use(q->dev)))
        return rc;
    cudaStream_t s = cu_queue(q)->stream;
    char *d = (char *)cu_buf(dst)->ptr + dst_off;
    const char *sp = (const char *)cu_buf(src)->ptr + src_off;
    if ((rc = CU(cudaMemcpyAsync, d, sp, (size_t)bytes, kind, s)))
        return rc;
    if (flags & GB_COPY_BLOCKING)
        return CU(cudaStreamSynchronize, s);
    return 0;
}

/* Peer access is enabled once per ordered pair (dev may access peer), under a lock: different
 * threads drive different devices. */
static pthread_mutex_t cu__peer_lock = PTHREAD_MUTEX_INITIALIZER;
static bool cu__peer_on[CU__MAX_DEV][CU__MAX_DEV];

/* Whether dev can access peer directly; enables that access the first time it can. */
static int cu__peer_enable(int dev, int peer, bool *can_out)
{
    int can = 0;
    int rc = CU(cudaDeviceCanAccessPeer, &can, dev, peer);
    if (rc)
        return rc;
    *can_out = can != 0;
    if (!can || dev >= CU__MAX_DEV || peer >= CU__MAX_DEV)
        return 0;
    pthread_mutex_lock(&cu__peer_lock);
    if (!cu__peer_on[dev][peer]) {
        rc = cu__use_index(dev);
        if (!rc) {
            cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled)
                (void)cudaGetLastError();
            else
                rc = cu__check(e, GB_EBACKEND, __FILE__, __LINE__, "cudaDeviceEnablePeerAccess");
        }
        if (!rc)
            cu__peer_on[dev][peer] = true;
    }
    pthread_mutex_unlock(&cu__peer_lock);
    return rc;
}

/* Whether dev's access to peer's memory was enabled (cu__peer_enable said yes): a kernel on dev
 * may then take a buffer of peer as an argument and load from it over the peer link. */
static bool cu__peer_is_on(int dev, int peer)
{
    if (dev < 0 || peer < 0 || dev >= CU__MAX_DEV || peer >= CU__MAX_DEV)
        return false;
    pthread_mutex_lock(&cu__peer_lock);
    bool on = cu__peer_on[dev][peer];
    pthread_mutex_unlock(&cu__peer_lock);
    return on;
}

static int cu_peer_can_access(struct gb_device *dev, struct gb_device *peer, bool *out)
{
    if (dev == peer || dev->index == peer->index) {
        *out = true;
        return 0;
    }
    return cu__peer_enable(dev->index, peer->index, out);
}

static int cu_peer_copy(struct gb_queue *q, struct gb_buf *dst, uint64_t dst_off,
                        struct gb_buf *src, uint64_t src_off, uint64_t bytes)
{
    int rc;
    if ((rc = cu__range(dst, dst_off, bytes, "peer_copy dst")) ||
        (rc = cu__range(src, src_off, bytes, "peer_copy src")))
        return rc;
    if (dst->kind != GB_MEM_DEVICE || src->kind != GB_MEM_DEVICE)
        return GB_FAIL(GB_EINVAL, "peer_copy: both buffers must be device buffers");
    if (!cu__same(q->dev, dst->dev) && !cu__same(q->dev, src->dev))
        return GB_FAIL(GB_EINVAL, "peer_copy: the queue belongs to neither device");
    if (bytes == 0)
        return 0;
    /* Enable direct access both ways where the hardware allows it, so the copy takes the P2P
     * path (NVLink / PCIe) rather than staging through the host. */
    bool can;
    if (dst->dev->index != src->dev->index &&
        ((rc = cu__peer_enable(dst->dev->index, src->dev->index, &can)) ||
         (rc = cu__peer_enable(src->dev->index, dst->dev->index, &can))))
        return rc;
    if ((rc = cu__use(q->dev)))
        return rc;
    return CU(cudaMemcpyPeerAsync, (char *)cu_buf(dst)->ptr + dst_off, dst->dev->index,
              (const char *)cu_buf(src)->ptr + src_off, src->dev->index, (size_t)bytes,
              cu_queue(q)->stream);
}

/* ---- programs -------------------------------------------------------------------------------- */

double gb_cuda_peak_mem_gbs(uint64_t mem_clock_khz, uint64_t bus_bits)
{
    return 2.0 * (double)mem_clock_khz * 1e3 * (double)bus_bits / 8.0 / 1e9;
}

int gb_cuda_pick_arch(int major, int minor, char *arch, size_t cap, bool *cubin)
{
    int n = 0, rc;
    if ((rc = gb__cuda_nvrtc_load()) || (rc = NV(nvrtcGetNumSupportedArchs, &n)))
        return rc;
    if (n <= 0)
        return GB_FAIL(GB_EBACKEND, "NVRTC supports no architecture");
    int *archs = malloc((size_t)n * sizeof *archs);
    if (!archs)
        return GB_FAIL(GB_ENOMEM, "pick_arch");
    if ((rc = NV(nvrtcGetSupportedArchs, archs))) {
        free(archs);
        return rc;
    }
    const int want = major * 10 + minor;
    int best = -1;
    bool exact = false;
    for (int i = 0; i < n; i++) {
        if (archs[i] == want)
            exact = true;
        if (archs[i] <= want && archs[i] > best)
            best = archs[i];
    }
    const int lowest = archs[0];
    free(archs);
    if (exact) {
        snprintf(arch, cap, "sm_%d", want);
        *cubin = true;
    } else if (best > 0) {
        snprintf(arch, cap, "compute_%d", best);
        *cubin = false;
    } else {
        return GB_FAIL(GB_EUNSUPPORTED,
                       "compute capability %d.%d is older than anything this NVRTC supports "
                       "(lowest: %d.%d)",
                       major, minor, lowest / 10, lowest % 10);
    }
    return 0;
}

/* "compute_90" / "sm_90" / "sm_90a": a prefix and two or three digits, an optional suffix. */
static bool cu__arch_ok(const char *arch, bool *cubin)
{
    const char *p;
    if (strncmp(arch, "compute_", 8) == 0) {
        p = arch + 8;
        *cubin = false;
    } else if (strncmp(arch, "sm_", 3) == 0) {
        p = arch + 3;
        *cubin = true;
    } else {
        return false;
    }
    const size_t digits = strspn(p, "0123456789");
    const char *suffix = p + digits;
    return digits >= 2 && digits <= 3 &&
           (suffix[0] == '\0' || ((suffix[0] == 'a' || suffix[0] == 'f') && suffix[1] == '\0'));
}

/* The first line of `log` that says "error", else its first line; for the one-line reason. */
static void cu__first_error(const char *log, char *out, size_t cap)
{
    const char *line = strstr(log, "error");
    if (line) {
        while (line > log && line[-1] != '\n')
            line--;
    } else {
        line = log;
    }
    size_t len = strcspn(line, "\n");
    snprintf(out, cap, "%.*s", (int)(len < cap ? len : cap - 1), line);
}

/* The defines as the text of the in-memory header "gb_defines.h" that kernels/prelude.h includes
 * under NVRTC: "NAME=VALUE" -> "#define NAME VALUE", "NAME" -> "#define NAME 1" (what -DNAME
 * means). Not -D options: NVRTC parses its built-in header after the command-line macros, and
 * a tunable called T breaks that header's templates. */
static int cu__defines_header(const char *const *defines, size_t n, char **out)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++) {
        if (!defines[i])
            return GB_FAIL(GB_EINVAL, "NVRTC: define %zu is NULL", i);
        len += strlen(defines[i]) + sizeof "#define  1\n";
    }
    char *h = malloc(len), *p = h;
    if (!h)
        return GB_FAIL(GB_ENOMEM, "NVRTC defines");
    *p = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *d = defines[i];
        const size_t name = strspn(d, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789_");
        if (name == 0 || (d[0] >= '0' && d[0] <= '9') || (d[name] != '\0' && d[name] != '=') ||
            strchr(d, '\n')) {
            free(h);
            return GB_FAIL(GB_EINVAL, "NVRTC: malformed define \"%s\"", d);
        }
        const char *value = d[name] == '=' ? d + name + 1 : "1";
        p += sprintf(p, "#define %.*s %s\n", (int)name, d, value);
    }
    *out = h;
    return 0;
}

/* The error detail of a failed nvrtcCompileProgram: the result, the first error line of the log,
 * a hint where one helps, and the log itself (up to 2000 bytes) so that no failure loses it. */
static int cu__compile_fail(nvrtcResult r, const char *arch, const char *inc_dir,
                            const char *inc_tried, const char *blog)
{
    char first[256] = "";
    if (blog && *blog)
        cu__first_error(blog, first, sizeof first);
    const char *hint = "";
    char hbuf[1400];
    if (r == NVRTC_ERROR_BUILTIN_OPERATION_FAILURE) {
        hint = " (NVRTC could not use its builtins library libnvrtc-builtins.so: put its folder "
               "on LD_LIBRARY_PATH, or point GPUBENCH_NVRTC at an NVRTC whose folder holds it)";
    } else if (blog && (strstr(blog, "cuda_fp16") || strstr(blog, "cuda_bf16"))) {
        snprintf(hbuf, sizeof hbuf,
                 " (NVRTC's include folder: %s; set GPUBENCH_CUDA_INCLUDE to a folder with "
                 "cuda_fp16.h/.hpp and cuda_bf16.h/.hpp, such as the toolkit's include/ or a "
                 "bundle's%s%s)",
                 inc_dir ? inc_dir : "none found", inc_tried && *inc_tried ? "; looked in " : "",
                 inc_tried && *inc_tried ? inc_tried : "");
        hint = hbuf;
    }
    const int err = r == NVRTC_ERROR_COMPILATION ? GB_EBUILD : GB_EBACKEND;
    const size_t loglen = blog ? strlen(blog) : 0;
    return GB_FAIL(err, "NVRTC for %s: %s (%d)%s%s%s; log%s: %.2000s%s", arch,
                   gb__nv.nvrtcGetErrorString(r), (int)r, *first ? ": " : "", first, hint,
                   loglen > 2000 ? " (first 2000 bytes)" : "", loglen ? blog : "(empty)",
                   loglen > 2000 ? " [...]" : "");
}

int gb_cuda_compile(const char *src, const char *arch, const char *const *defines, size_t ndefines,
                    char **image, size_t *size, char **log)
{
    bool cubin = false;
    if (log)
        *log = NULL;
    *image = NULL;
    if (size)
        *size = 0;
    if (!src || !arch || !cu__arch_ok(arch, &cubin))
        return GB_FAIL(GB_EINVAL, "NVRTC: bad architecture \"%s\"", arch ? arch : "(null)");
    int rc = gb__cuda_nvrtc_load();
    if (rc)
        return rc;

    const char *inc_tried = NULL;
    const char *inc = gb__cuda_include_dir(&inc_tried);
    enum { MAXOPTS = 4 };
    char *opts[MAXOPTS] = {NULL};
    int nopts = 3;
    char *defs = NULL, *out = NULL, *blog = NULL;
    nvrtcProgram prog = NULL;
    if ((rc = cu__defines_header(defines, ndefines, &defs)))
        return rc;
    if (asprintf(&opts[0], "--gpu-architecture=%s", arch) < 0 ||
        !(opts[1] = strdup("-default-device")) || !(opts[2] = strdup("-std=c++17")) ||
        (inc && asprintf(&opts[3], "-I%s", inc) < 0)) {
        rc = GB_FAIL(GB_ENOMEM, "NVRTC options");
        goto done;
    }
    if (inc)
        nopts = 4;

    const char *hdr_text[] = {defs}, *hdr_name[] = {"gb_defines.h"};
    if ((rc = NV(nvrtcCreateProgram, &prog, src, "gpubench_kernel.cu", 1, hdr_text, hdr_name)))
        goto done;
    nvrtcResult r = gb__nv.nvrtcCompileProgram(prog, nopts, (const char *const *)opts);
    if (r != NVRTC_SUCCESS) {
        size_t lsize = 0;
        if (gb__nv.nvrtcGetProgramLogSize(prog, &lsize) == NVRTC_SUCCESS && lsize > 0 &&
            (blog = malloc(lsize + 1)) != NULL) {
            if (gb__nv.nvrtcGetProgramLog(prog, blog) != NVRTC_SUCCESS)
                blog[0] = '\0';
            blog[lsize] = '\0';
        }
        rc = cu__compile_fail(r, arch, inc, inc_tried, blog);
        if (log) {
            *log = blog;
            blog = NULL;
        }
        goto done;
    }
    size_t n = 0;
    if (cubin) {
        if ((rc = NV(nvrtcGetCUBINSize, prog, &n)))
            goto done;
    } else if ((rc = NV(nvrtcGetPTXSize, prog, &n))) {
        goto done;
    }
    if (!(out = malloc(n + 1))) {
        rc = GB_FAIL(GB_ENOMEM, "NVRTC output of %zu bytes", n);
        goto done;
    }
    if (cubin)
        rc = NV(nvrtcGetCUBIN, prog, out);
    else
        rc = NV(nvrtcGetPTX, prog, out);
    if (rc)
        goto done;
    out[n] = '\0';
    *image = out;
    out = NULL;
    if (size)
        *size = n;
done:
    if (prog)
        (void)gb__nv.nvrtcDestroyProgram(&prog);
    for (size_t i = 0; i < MAXOPTS; i++)
        free(opts[i]);
    free(defs);
    free(out);
    free(blog);
    return rc;
}

int gb_cuda_compile_ptx(const char *src, const char *arch, const char *const *defines,
                        size_t ndefines, char **ptx, char **log)
{
    /* An sm_XY target would yield a CUBIN; PTX wants the matching virtual architecture. */
    char virt[32];
    if (arch && strncmp(arch, "sm_", 3) == 0) {
        snprintf(virt, sizeof virt, "compute_%s", arch + 3);
        arch = virt;
    }
    return gb_cuda_compile(src, arch, defines, ndefines, ptx, NULL, log);
}

static int cu_program_build(struct gb_device *dev, const char *source, const char *const *defines,
                            size_t ndefines, struct gb_program **out, char **log)
{
    struct cu_device *d = cu_dev(dev);
    char arch[32];
    bool cubin;
    if (log)
        *log = NULL;
    int rc = gb_cuda_pick_arch(d->cc_major, d->cc_minor, arch, sizeof arch, &cubin);
    if (rc)
        return rc;
    char *image = NULL;
    if ((rc = gb_cuda_compile(source, arch, defines, ndefines, &image, NULL, log)))
        return rc;
    struct cu_program *p = calloc(1, sizeof *p);
    if (!p) {
        free(image);
        return GB_FAIL(GB_ENOMEM, "program_build");
    }
    /* A library is context-independent; loading it into this device's context happens here
     * or at the first use (CUDA_MODULE_LOADING=LAZY, the default), i.e. in kernel_get. */
    if (!(rc = cu__use(dev)))
        rc = CU(cudaLibraryLoadData, &p->lib, image, NULL, NULL, 0, NULL, NULL, 0);
    free(image);
    if (rc) {
        free(p);
        return rc;
    }
    p->pub.dev = dev;
    *out = &p->pub;
    return 0;
}

static void cu_program_free(struct gb_program *prog)
{
    if (!prog)
        return;
    if (cu__use(prog->dev) == 0)
        (void)cudaLibraryUnload(((struct cu_program *)prog)->lib);
    (void)cudaGetLastError();
    free(prog);
}

static int cu_kernel_get(struct gb_program *prog, const char *name, struct gb_kernel **out)
{
    struct cu_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return GB_FAIL(GB_ENOMEM, "kernel_get");
    int rc = cu__use(prog->dev);
    if (rc)
        goto fail;
    cudaError_t e = cudaLibraryGetKernel(&k->k, ((struct cu_program *)prog)->lib, name);
    if (e == cudaErrorSymbolNotFound) {
        (void)cudaGetLastError();
        rc = GB_FAIL(GB_EINVAL, "kernel_get: no kernel \"%s\" in the program", name);
        goto fail;
    }
    if ((rc = cu__check(e, GB_EBACKEND, __FILE__, __LINE__, "cudaLibraryGetKernel")))
        goto fail;
    /* This loads the code into the device's context (lazy loading), outside timed regions. */
    struct cudaFuncAttributes fa;
    if ((rc = CU(cudaFuncGetAttributes, &fa, (const void *)k->k)))
        goto fail;
    k->max_wg = fa.maxThreadsPerBlock > 0 ? (uint32_t)fa.maxThreadsPerBlock : 0;
    /* The parameter sizes, so that launch can refuse a wrongly sized argument rather than
     * launch with garbage (OpenCL's clSetKernelArg checks sizes too). */
    k->nparams = CU__PARAMS_UNKNOWN;
    for (uint32_t i = 0; i <= GB_MAX_ARGS; i++) {
        size_t off = 0, sz = 0;
        e = cudaFuncGetParamInfo((const void *)k->k, i, &off, &sz);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            if (e == cudaErrorInvalidValue)
                k->nparams = i; /* past the last parameter */
            break;
        }
        if (i == GB_MAX_ARGS) {
            rc = GB_FAIL(GB_EUNSUPPORTED, "kernel %s takes more than %d arguments", name,
                         GB_MAX_ARGS);
            goto fail;
        }
        k->param_size[i] = sz;
    }
    snprintf(k->name, sizeof k->name, "%s", name);
    k->pub.prog = prog;
    *out = &k->pub;
    return 0;
fail:
    free(k);
    return rc;
}

static void cu_kernel_free(struct gb_kernel *k)
{
    free(k); /* a cudaKernel_t lives as long as its library */
}

static int cu_kernel_max_wg(struct gb_kernel *k, uint32_t *out)
{
    *out = ((struct cu_kernel *)k)->max_wg;
    return 0;
}

static size_t cu__arg_size(enum gb_arg_kind kind)
{
    switch (kind) {
    case GB_ARG_BUF:
        return sizeof(void *);
    case GB_ARG_I32:
    case GB_ARG_U32:
    case GB_ARG_F32:
        return 4;
    case GB_ARG_I64:
    case GB_ARG_U64:
    case GB_ARG_F64:
        return 8;
    }
    return 0;
}

static int cu_launch(struct gb_queue *q, struct gb_kernel *kern, const struct gb_launch *l)
{
    struct cu_kernel *k = (struct cu_kernel *)kern;
    struct cu_device *d = cu_dev(q->dev);
    if (!cu__same(kern->prog->dev, q->dev))
        return GB_FAIL(GB_EINVAL, "launch: kernel %s was built for another device", k->name);
    int rc = gb_launch_check(l, &d->pub.info, k->max_wg, k->name);
    if (rc)
        return rc;
    /* The grid limit is CUDA's own: OpenCL has no bound on work-groups per dimension. */
    uint32_t grid[3], block[3];
    for (uint32_t i = 0; i < 3; i++) {
        const uint64_t g = i < l->dims ? l->global[i] : 1;
        const uint32_t b = i < l->dims ? l->local[i] : 1;
        if (g / b > d->max_grid[i])
            return GB_FAIL(GB_EINVAL,
                           "launch %s: %llu blocks in dimension %u, the device "
                           "allows %u",
                           k->name, (unsigned long long)(g / b), i, d->max_grid[i]);
        grid[i] = (uint32_t)(g / b);
        block[i] = b;
    }
    if (l->nargs > GB_MAX_ARGS)
        return GB_FAIL(GB_EINVAL, "launch %s: %u arguments", k->name, l->nargs);
    if (k->nparams != CU__PARAMS_UNKNOWN && l->nargs != k->nparams)
        return GB_FAIL(GB_EINVAL, "launch %s: %u arguments given, the kernel takes %u", k->name,
                       l->nargs, k->nparams);

    /* cudaLaunchKernel takes an array of pointers to the argument values. */
    struct gb_arg vals[GB_MAX_ARGS];
    void *devptr[GB_MAX_ARGS];
    void *params[GB_MAX_ARGS];
    for (uint32_t i = 0; i < l->nargs; i++) {
        const struct gb_arg *a = &l->args[i];
        const size_t sz = cu__arg_size(a->kind);
        if (sz == 0)
            return GB_FAIL(GB_EINVAL, "launch %s: argument %u of unknown kind", k->name, i);
        if (k->nparams != CU__PARAMS_UNKNOWN && sz != k->param_size[i])
            return GB_FAIL(GB_EINVAL,
                           "launch %s: argument %u has %zu bytes, the kernel's "
                           "parameter %zu",
                           k->name, i, sz, k->param_size[i]);
        if (a->kind == GB_ARG_BUF) {
            const struct gb_buf *b = a->v.buf;
            /* A peer's buffer once peer_can_access (or peer_copy) enabled the access: the
             * kernel reads it across the link (peerbw's SM copy). */
            if (!b || b->kind != GB_MEM_DEVICE ||
                (!cu__same(b->dev, q->dev) && !cu__peer_is_on(q->dev->index, b->dev->index)))
                return GB_FAIL(GB_EINVAL,
                               "launch %s: argument %u is not a device buffer of "
                               "this device or of a peer it has access to",
                               k->name, i);
            devptr[i] = ((const struct cu_buf *)b)->ptr;
            params[i] = &devptr[i];
        } else {
            vals[i] = *a;
            params[i] = &vals[i].v; /* every union member starts at the union's address */
        }
    }
    if ((rc = cu__use(q->dev)))
        return rc;
    dim3 g = {grid[0], grid[1], grid[2]}, b = {block[0], block[1], block[2]};
    return CU(cudaLaunchKernel, (const void *)k->k, g, b, l->nargs ? params : NULL, 0,
              cu_queue(q)->stream);
}

/* ---- timing ---------------------------------------------------------------------------------- */

static int cu_event_create(struct gb_device *dev, struct gb_event **out)
{
    struct cu_event *e = calloc(1, sizeof *e);
    if (!e)
        return GB_FAIL(GB_ENOMEM, "event_create");
    int rc = cu__use(dev);
    if (!rc)
        rc = CU(cudaEventCreate, &e->ev);
    if (rc) {
        free(e);
        return rc;
    }
    e->pub.dev = dev;
    *out = &e->pub;
    return 0;
}

static void cu_event_free(struct gb_event *ev)
{
    if (!ev)
        return;
    if (cu__use(ev->dev) == 0)
        (void)cudaEventDestroy(((struct cu_event *)ev)->ev);
    (void)cudaGetLastError();
    free(ev);
}

static int cu_event_record(struct gb_queue *q, struct gb_event *ev)
{
    if (!cu__same(ev->dev, q->dev))
        return GB_FAIL(GB_EINVAL, "event_record: the event belongs to another device");
    int rc = cu__use(q->dev);
    return rc ? rc : CU(cudaEventRecord, ((struct cu_event *)ev)->ev, cu_queue(q)->stream);
}

static int cu_event_sync(struct gb_event *ev)
{
    int rc = cu__use(ev->dev);
    return rc ? rc : CU(cudaEventSynchronize, ((struct cu_event *)ev)->ev);
}

static int cu_event_elapsed_ns(struct gb_event *start, struct gb_event *end, uint64_t *ns)
{
    if (!cu__same(start->dev, end->dev))
        return GB_FAIL(GB_EINVAL, "event_elapsed_ns: events of two devices");
    int rc = cu__use(start->dev);
    float ms = 0;
    if (rc || (rc = CU(cudaEventElapsedTime, &ms, ((struct cu_event *)start)->ev,
                       ((struct cu_event *)end)->ev)))
        return rc;
    /* cudaEventElapsedTime's resolution is about 0.5 us (CUDA runtime API reference). */
    if (!(ms >= 0))
        return GB_FAIL(GB_EIMPLAUSIBLE, "event_elapsed_ns: %g ms", (double)ms);
    *ns = (uint64_t)((double)ms * 1e6 + 0.5);
    return 0;
}

/* A pair of events around the launch on its stream (CUDA has no queued timestamp): both fields
 * are the pair's elapsed time, at cudaEventElapsedTime's resolution of about 0.5 us. */
static int cu_launch_timed(struct gb_queue *q, struct gb_kernel *k, const struct gb_launch *l,
                           struct gb_launch_times *out)
{
    int rc = cu__use(q->dev);
    if (rc)
        return rc;
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    if ((rc = CU(cudaStreamIsCapturing, cu_queue(q)->stream, &st)))
        return rc;
    if (st != cudaStreamCaptureStatusNone)
        return GB_FAIL(GB_EINVAL, "launch_timed: the queue is recording a graph");
    struct gb_event *e0 = NULL, *e1 = NULL;
    uint64_t ns = 0;
    if (!(rc = cu_event_create(q->dev, &e0)) && !(rc = cu_event_create(q->dev, &e1)) &&
        !(rc = cu_event_record(q, e0)) && !(rc = cu_launch(q, k, l)) &&
        !(rc = cu_event_record(q, e1)) && !(rc = cu_event_sync(e1)))
        rc = cu_event_elapsed_ns(e0, e1, &ns);
    cu_event_free(e0);
    cu_event_free(e1);
    if (rc)
        return rc;
    out->queued_to_end_ns = out->start_to_end_ns = ns;
    return 0;
}

/* ---- BLAS ------------------------------------------------------------------------------------ */

uint16_t gb_cuda_f16_bits(float f)
{
    union {
        float f;
        uint32_t u;
    } v = {.f = f};
    const uint32_t sign = (v.u >> 16) & 0x8000u;
    const uint32_t absu = v.u & 0x7fffffffu;
    if (absu >= 0x7f800000u) /* inf or NaN (keep a quiet NaN) */
        return (uint16_t)(sign | 0x7c00u | (absu > 0x7f800000u ? 0x200u : 0));
    if (absu >= 0x477ff000u) /* rounds to >= 65520: overflow to infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (absu < 0x38800000u) {   /* below 2^-14: a subnormal half, or zero */
        if (absu < 0x33000000u) /* below 2^-25: rounds to zero */
            return (uint16_t)sign;
        const uint32_t mant = (absu & 0x7fffffu) | 0x800000u;
        const int shift = 126 - (int)(absu >> 23); /* 14..24 */
        uint32_t h = mant >> shift;
        const uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1u)))
            h++;
        return (uint16_t)(sign | h);
    }
    /* Normal: rebias the exponent (127 -> 15), keep 10 mantissa bits, round to nearest even;
     * a carry out of the mantissa correctly bumps the exponent. */
    uint32_t h = ((absu - 0x38000000u) >> 13);
    const uint32_t rem = absu & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

#if HAVE_CUBLAS
static bool cu__dtype(enum gb_dtype t, cudaDataType *out)
{
    switch (t) {
    case GB_F64:
        *out = CUDA_R_64F;
        return true;
    case GB_F32:
        *out = CUDA_R_32F;
        return true;
    case GB_F16:
        *out = CUDA_R_16F;
        return true;
    case GB_BF16:
        *out = CUDA_R_16BF;
        return true;
    case GB_I8:
        *out = CUDA_R_8I;
        return true;
    case GB_I32:
        *out = CUDA_R_32I;
        return true;
    default:
        return false;
    }
}

/* The device handle's cuBLAS state, set up by its first GEMM: the library (loaded now, the
 * first time in the process), the handle and a workspace of cuBLAS's recommended size (32 MiB
 * on Hopper and newer, 4 MiB before: cuBLAS documentation, cublasSetWorkspace). The current
 * device is d's. GB_EUNSUPPORTED when cuBLAS does not load (the case is a recorded skip). */
static int cu__blas_setup(struct cu_device *d)
{
    if (d->blas)
        return 0;
    int rc = gb__cuda_blas_load();
    if (rc)
        return rc;
    const size_t ws = (d->cc_major >= 9 ? 32u : 4u) << 20;
    if ((rc = CU_ERR(GB_ENOMEM, cudaMalloc, &d->blas_ws, ws)))
        return rc;
    if ((rc = BL(cublasCreate_v2, &d->blas))) {
        (void)cudaFree(d->blas_ws);
        d->blas_ws = NULL;
        d->blas = NULL;
        return rc;
    }
    d->blas_ws_bytes = ws;
    d->blas_stream.valid = false;
    return 0;
}

/* Makes q's device current, sets up its cuBLAS state (cu__blas_setup) and points the handle at
 * q's stream, with our workspace. */
static int cu__blas_bind(struct gb_queue *q)
{
    struct cu_device *d = cu_dev(q->dev);
    int rc;
    if ((rc = cu__use(q->dev)) || (rc = cu__blas_setup(d)))
        return rc;
    cudaStream_t stream = cu_queue(q)->stream;
    if (gb_cuda_stream_cache_needs(&d->blas_stream, stream)) {
        /* cublasSetStream resets the workspace to cuBLAS's default pool: give ours again. */
        if ((rc = BL(cublasSetStream_v2, d->blas, stream)) ||
            (rc = BL(cublasSetWorkspace_v2, d->blas, d->blas_ws, d->blas_ws_bytes))) {
            d->blas_stream.valid = false;
            return rc;
        }
        gb_cuda_stream_cache_told(&d->blas_stream, stream);
    }
    return 0;
}

/* cublasSgemv_v2_64 / cublasDgemv_v2_64 (cuBLAS 12's 64-bit API), column-major, x and y
 * contiguous; F32 and F64 only (cuBLAS has no half GEMV). */
static int cu_gemv(struct gb_queue *q, const struct gb_gemm *g)
{
    struct cu_device *d = cu_dev(q->dev);
    const enum gb_dtype a = g->a_type;
    const uint64_t need_cap = a == GB_F32 ? GB_CAP_BLAS_F32 : a == GB_F64 ? GB_CAP_BLAS_F64 : 0;
    if (!need_cap || g->tf32)
        return GB_FAIL(GB_EUNSUPPORTED, "gemv: %s%s: cuBLAS has only Sgemv and Dgemv",
                       gb_dtype_name(a), g->tf32 ? " (TF32)" : "");
    if (!(d->pub.info.caps & need_cap))
        return GB_FAIL(GB_EUNSUPPORTED, "gemv: %s on %s (%s)", gb_dtype_name(a), d->pub.info.name,
                       d->pub.info.arch);
    int rc = gb_gemv_check_shape(g, q->dev, cu__same, INT64_MAX, "INT64_MAX");
    if (rc || (rc = cu__blas_bind(q)))
        return rc;
    const cublasOperation_t ta = g->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    /* gemv's m and n are the stored A's rows and columns. */
    const int64_t rows = (int64_t)(g->trans_a ? g->k : g->m),
                  cols = (int64_t)(g->trans_a ? g->m : g->k);
    const void *A = cu_buf(g->a)->ptr, *X = cu_buf(g->b)->ptr;
    void *Y = cu_buf(g->c)->ptr;
    if (a == GB_F32) {
        const float al = (float)g->alpha, be = (float)g->beta;
        return BL(cublasSgemv_v2_64, d->blas, ta, rows, cols, &al, A, (int64_t)g->lda, X, 1, &be, Y,
                  1);
    }
    return BL(cublasDgemv_v2_64, d->blas, ta, rows, cols, &g->alpha, A, (int64_t)g->lda, X, 1,
              &g->beta, Y, 1);
}

static int cu_gemm(struct gb_queue *q, const struct gb_gemm *g)
{
    struct cu_device *d = cu_dev(q->dev);
    const uint64_t caps = d->pub.info.caps;
    cudaDataType at, ct;
    if (!cu__dtype(g->a_type, &at) || !cu__dtype(g->c_type, &ct))
        return GB_FAIL(GB_EUNSUPPORTED, "gemm: %s in, %s out", gb_dtype_name(g->a_type),
                       gb_dtype_name(g->c_type));
    /* The combinations cublasGemmEx documents, each behind its capability bit. */
    cublasComputeType_t comp;
    uint64_t need_cap;
    const enum gb_dtype a = g->a_type, c = g->c_type, k = g->compute;
    if (a == GB_F64 && c == GB_F64 && k == GB_F64) {
        comp = CUBLAS_COMPUTE_64F;
        need_cap = GB_CAP_BLAS_F64;
    } else if (a == GB_F32 && c == GB_F32 && k == GB_F32) {
        comp = g->tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
        need_cap = g->tf32 ? GB_CAP_BLAS_TF32 : GB_CAP_BLAS_F32;
    } else if (a == GB_F16 && c == GB_F16 && k == GB_F16) {
        comp = CUBLAS_COMPUTE_16F;
        need_cap = GB_CAP_BLAS_F16;
    } else if (a == GB_F16 && (c == GB_F16 || c == GB_F32) && k == GB_F32) {
        comp = CUBLAS_COMPUTE_32F; /* tensor cores, F32 accumulation */
        need_cap = GB_CAP_BLAS_MIXED;
    } else if (a == GB_BF16 && (c == GB_BF16 || c == GB_F32) && k == GB_F32) {
        comp = CUBLAS_COMPUTE_32F;
        need_cap = GB_CAP_BLAS_BF16;
    } else if (a == GB_I8 && c == GB_I32 && k == GB_I32) {
        /* INT8 in, INT32 accumulate and out (cublasGemmEx's CUDA_R_8I / CUBLAS_COMPUTE_32I row,
         * which cuBLAS runs on the IMMA tensor cores from sm_72 and with dp4a from sm_61): its
         * rules are 4-byte aligned matrices and leading dimensions, i.e. m, k, lda, ldb and ldc
         * multiples of 4 here. No capability bit of its own: cuBLAS present (BLAS_F32) and
         * sm_61+. */
        comp = CUBLAS_COMPUTE_32I;
        need_cap = GB_CAP_BLAS_F32;
        if (d->cc_major * 10 + d->cc_minor < 61)
            return GB_FAIL(GB_EUNSUPPORTED, "gemm: int8 needs sm_61+ (%s is %s)", d->pub.info.name,
                           d->pub.info.arch);
        if (g->m % 4 || g->k % 4 || g->lda % 4 || g->ldb % 4 || g->ldc % 4)
            return GB_FAIL(GB_EUNSUPPORTED,
                           "gemm: int8 needs m, k and the leading dimensions multiples of 4 "
                           "(cublasGemmEx's CUDA_R_8I rule): m=%llu k=%llu",
                           (unsigned long long)g->m, (unsigned long long)g->k);
    } else {
        return GB_FAIL(GB_EUNSUPPORTED, "gemm: %s in, %s out, %s compute", gb_dtype_name(a),
                       gb_dtype_name(c), gb_dtype_name(k));
    }
    if (!(caps & need_cap))
        return GB_FAIL(GB_EUNSUPPORTED, "gemm: %s in, %s out, %s compute%s on %s (%s)",
                       gb_dtype_name(a), gb_dtype_name(c), gb_dtype_name(k),
                       g->tf32 ? " (TF32)" : "", d->pub.info.name, d->pub.info.arch);
    /* cuBLAS's _64 entry points take int64_t sizes. */
    int rc = gb_gemm_check_shape(g, q->dev, cu__same, INT64_MAX, "INT64_MAX");
    if (rc)
        return rc;

    /* alpha and beta have the compute type's scalar type (F16 compute: half). */
    union {
        double f64;
        float f32;
        uint16_t f16;
        int32_t i32;
    } alpha, beta;
    if (comp == CUBLAS_COMPUTE_32I) {
        alpha.i32 = (int32_t)g->alpha;
        beta.i32 = (int32_t)g->beta;
    } else if (comp == CUBLAS_COMPUTE_64F) {
        alpha.f64 = g->alpha;
        beta.f64 = g->beta;
    } else if (comp == CUBLAS_COMPUTE_16F) {
        alpha.f16 = gb_cuda_f16_bits((float)g->alpha);
        beta.f16 = gb_cuda_f16_bits((float)g->beta);
    } else {
        alpha.f32 = (float)g->alpha;
        beta.f32 = (float)g->beta;
    }

    if ((rc = cu__blas_bind(q)))
        return rc;
    const cublasOperation_t ta = g->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = g->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    const void *A = cu_buf(g->a)->ptr, *B = cu_buf(g->b)->ptr;
    void *C = cu_buf(g->c)->ptr;
    const int64_t m64 = (int64_t)g->m, n64 = (int64_t)g->n, k64 = (int64_t)g->k;
    if (g->batch == 1)
        return BL(cublasGemmEx_64, d->blas, ta, tb, m64, n64, k64, &alpha, A, at, (int64_t)g->lda,
                  B, at, (int64_t)g->ldb, &beta, C, ct, (int64_t)g->ldc, comp, CUBLAS_GEMM_DEFAULT);
    return BL(cublasGemmStridedBatchedEx_64, d->blas, ta, tb, m64, n64, k64, &alpha, A, at,
              (int64_t)g->lda, (long long)g->stride_a, B, at, (int64_t)g->ldb,
              (long long)g->stride_b, &beta, C, ct, (int64_t)g->ldc, (long long)g->stride_c,
              (int64_t)g->batch, comp, CUBLAS_GEMM_DEFAULT);
}
#endif

/* ---- FP8 GEMM through cuBLASLt (gemm_fp8) ---------------------------------------------------
 *
 * cuBLASLt is dlopened by the first FP8 GEMM (cuda_libs.c; every entry point through dlsym).
 * The call follows the cuBLAS documentation's FP8 requirements for cublasLtMatmul: the "TN"
 * layout, CUBLAS_COMPUTE_32F with CUDA_R_32F scales, A and B scale pointers (device floats,
 * here 1.0f), 16-byte aligned dimensions (gb_gemm_fp8_check) and a workspace (32 MiB, cuBLAS's
 * recommendation for Hopper and newer). Fast accumulation stays off (CUBLASLT_MATMUL_DESC_
 * FAST_ACCUM 0, the default, written out): cuBLASLt then promotes the tensor cores' partial sums
 * to FP32 periodically, the FP32 accumulation the suite's tolerance assumes. Every status other
 * than success is GB_EBACKEND carrying cublasLtGetStatusName / cublasLtGetStatusString. */
#if HAVE_CUBLASLT
static int lt__fail(cublasStatus_t s, const char *file, int line, const char *call)
{
    cudaError_t e = cudaSuccess;
    if (s == CUBLAS_STATUS_EXECUTION_FAILED || s == CUBLAS_STATUS_INTERNAL_ERROR) {
        e = cudaGetLastError();
        if (e != cudaSuccess && gb_cuda_error_is_sticky((int)e))
            (void)cu__fail(e, GB_EBACKEND, file, line, call);
    }
    int err =
        gb_error_set(GB_EBACKEND, file, line, "%s: %s (%d): %s", call,
                     gb__lt.cublasLtGetStatusName(s), (int)s, gb__lt.cublasLtGetStatusString(s));
    if (e != cudaSuccess)
        err = gb_error_append(err, "underneath: %s (%d): %s", cudaGetErrorName(e), (int)e,
                              cudaGetErrorString(e));
    return err;
}
static inline int lt__check(cublasStatus_t s, const char *file, int line, const char *call)
{
    return s == CUBLAS_STATUS_SUCCESS ? 0 : lt__fail(s, file, line, call);
}
/* LT(cublasLtMatmul, ...): calls it through gb__lt; 0, or GB_EBACKEND with the status. */
#define LT(fn, ...) lt__check(gb__lt.fn(__VA_ARGS__), __FILE__, __LINE__, #fn)

static void cu__lt_plan_drop(struct cu_lt_plan *p)
{
    if (p->op)
        (void)gb__lt.cublasLtMatmulDescDestroy(p->op);
    if (p->la)
        (void)gb__lt.cublasLtMatrixLayoutDestroy(p->la);
    if (p->lb)
        (void)gb__lt.cublasLtMatrixLayoutDestroy(p->lb);
    if (p->lc)
        (void)gb__lt.cublasLtMatrixLayoutDestroy(p->lc);
    memset(p, 0, sizeof *p);
}

/* Frees d's cuBLASLt state (device_close); nothing when it was never set up. */
static void cu__lt_release(struct cu_device *d)
{
    if (!d->lt && !d->lt_ws && !d->lt_one)
        return;
    if (cu__use(&d->pub) == 0) {
        cu__lt_plan_drop(&d->lt_plan);
        if (d->lt)
            (void)gb__lt.cublasLtDestroy(d->lt);
        if (d->lt_ws)
            (void)cudaFree(d->lt_ws);
        if (d->lt_one)
            (void)cudaFree(d->lt_one);
        (void)cudaGetLastError();
    }
    d->lt = NULL;
    d->lt_ws = NULL;
    d->lt_one = NULL;
}

/* The device handle's cuBLASLt state, set up by its first FP8 GEMM; the current device is d's.
 * GB_EUNSUPPORTED when cuBLASLt does not load (the case is a recorded skip with the reason). */
static int cu__lt_setup(struct cu_device *d)
{
    if (d->lt)
        return 0;
    int rc = gb__cuda_blaslt_load();
    if (rc)
        return rc;
    const size_t ws = 32u << 20;
    const float one = 1.0f;
    if ((rc = CU_ERR(GB_ENOMEM, cudaMalloc, &d->lt_ws, ws)) ||
        (rc = CU_ERR(GB_ENOMEM, cudaMalloc, (void **)&d->lt_one, sizeof one)) ||
        (rc = CU(cudaMemcpy, d->lt_one, &one, sizeof one, cudaMemcpyHostToDevice)) ||
        (rc = LT(cublasLtCreate, &d->lt))) {
        d->lt = NULL;
        cu__lt_release(d);
        return rc;
    }
    d->lt_ws_bytes = ws;
    memset(&d->lt_plan, 0, sizeof d->lt_plan);
    return 0;
}

static bool cu__fp8_type(enum gb_dtype t, cudaDataType *out)
{
    switch (t) {
    case GB_F8E4M3:
        *out = CUDA_R_8F_E4M3;
        return true;
    case GB_F8E5M2:
        *out = CUDA_R_8F_E5M2;
        return true;
    case GB_F32:
        *out = CUDA_R_32F;
        return true;
    case GB_F16:
        *out = CUDA_R_16F;
        return true;
    case GB_BF16:
        *out = CUDA_R_16BF;
        return true;
    default:
        return false;
    }
}

/* Whether the plan made for `key` serves g: the same types, layout and sizes. */
static bool cu__lt_same(const struct gb_gemm_fp8 *key, const struct gb_gemm_fp8 *g)
{
    return key->a_type == g->a_type && key->b_type == g->b_type && key->c_type == g->c_type &&
           key->trans_a == g->trans_a && key->trans_b == g->trans_b && key->m == g->m &&
           key->n == g->n && key->k == g->k && key->lda == g->lda && key->ldb == g->ldb &&
           key->ldc == g->ldc;
}

/* Builds d's plan for g (already checked by gb_gemm_fp8_check): the matmul descriptor, the three
 * layouts (C serves as D) and the heuristic's first algorithm within the workspace. On failure
 * d has no plan. */
static int cu__lt_plan(struct cu_device *d, const struct gb_gemm_fp8 *g)
{
    struct cu_lt_plan *p = &d->lt_plan;
    cu__lt_plan_drop(p);
    cudaDataType at = CUDA_R_8F_E4M3, bt = CUDA_R_8F_E4M3, ct = CUDA_R_32F;
    if (!cu__fp8_type(g->a_type, &at) || !cu__fp8_type(g->b_type, &bt) ||
        !cu__fp8_type(g->c_type, &ct))
        return GB_FAIL(GB_EUNSUPPORTED, "FP8 GEMM: %s x %s -> %s", gb_dtype_name(g->a_type),
                       gb_dtype_name(g->b_type), gb_dtype_name(g->c_type));
    const int32_t ta = g->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int32_t tb = g->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    const void *scale = d->lt_one;
    const int8_t fast = 0;
    const uint64_t ws = d->lt_ws_bytes;
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t res;
    int found = 0;
    memset(&res, 0, sizeof res);
    /* Stored shapes: op(A) is m x k, so A is k x m when transposed; B likewise. */
    int rc;
    if ((rc = LT(cublasLtMatmulDescCreate, &p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F)) ||
        (rc = LT(cublasLtMatmulDescSetAttribute, p->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
                 sizeof ta)) ||
        (rc = LT(cublasLtMatmulDescSetAttribute, p->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
                 sizeof tb)) ||
        (rc = LT(cublasLtMatmulDescSetAttribute, p->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                 &scale, sizeof scale)) ||
        (rc = LT(cublasLtMatmulDescSetAttribute, p->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                 &scale, sizeof scale)) ||
        (rc = LT(cublasLtMatmulDescSetAttribute, p->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast,
                 sizeof fast)) ||
        (rc = LT(cublasLtMatrixLayoutCreate, &p->la, at, g->trans_a ? g->k : g->m,
                 g->trans_a ? g->m : g->k, (int64_t)g->lda)) ||
        (rc = LT(cublasLtMatrixLayoutCreate, &p->lb, bt, g->trans_b ? g->n : g->k,
                 g->trans_b ? g->k : g->n, (int64_t)g->ldb)) ||
        (rc = LT(cublasLtMatrixLayoutCreate, &p->lc, ct, g->m, g->n, (int64_t)g->ldc)) ||
        (rc = LT(cublasLtMatmulPreferenceCreate, &pref)) ||
        (rc = LT(cublasLtMatmulPreferenceSetAttribute, pref,
                 CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws)) ||
        (rc = LT(cublasLtMatmulAlgoGetHeuristic, d->lt, p->op, p->la, p->lb, p->lc, p->lc, pref, 1,
                 &res, &found))) {
        if (pref)
            (void)gb__lt.cublasLtMatmulPreferenceDestroy(pref);
        cu__lt_plan_drop(p);
        return rc;
    }
    (void)gb__lt.cublasLtMatmulPreferenceDestroy(pref);
    if (found < 1 || res.state != CUBLAS_STATUS_SUCCESS) {
        const cublasStatus_t st = found < 1 ? CUBLAS_STATUS_NOT_SUPPORTED : res.state;
        cu__lt_plan_drop(p);
        return GB_FAIL(GB_EBACKEND,
                       "cublasLtMatmulAlgoGetHeuristic: no algorithm for %s x %s -> %s, "
                       "%llux%llux%llu TN within %llu bytes of workspace: %s (%d): %s",
                       gb_dtype_name(g->a_type), gb_dtype_name(g->b_type), gb_dtype_name(g->c_type),
                       (unsigned long long)g->m, (unsigned long long)g->n, (unsigned long long)g->k,
                       (unsigned long long)ws, gb__lt.cublasLtGetStatusName(st), (int)st,
                       gb__lt.cublasLtGetStatusString(st));
    }
    p->algo = res.algo;
    p->key = *g;
    p->key.a = p->key.b = p->key.c = NULL;
    p->valid = true;
    return 0;
}

static int cu_gemm_fp8(struct gb_queue *q, const struct gb_gemm_fp8 *g)
{
    struct cu_device *d = cu_dev(q->dev);
    int rc = gb_gemm_fp8_check(g);
    if (rc)
        return rc;
    if (!(d->pub.info.caps & GB_CAP_BLAS_FP8))
        return GB_FAIL(GB_EUNSUPPORTED,
                       "FP8 GEMM needs cuBLASLt on CUDA sm_89+: %s is %s (compute capability "
                       "%d.%d)",
                       d->pub.info.name, d->pub.info.arch, d->cc_major, d->cc_minor);
    /* The buffers: gb_gemm_check_shape on the same matrices (A and B are 1-byte elements, the
     * size of either FP8 type), batch 1. */
    const struct gb_gemm shape = {.a_type = g->a_type,
                                  .c_type = g->c_type,
                                  .compute = GB_F32,
                                  .trans_a = g->trans_a,
                                  .trans_b = g->trans_b,
                                  .m = g->m,
                                  .n = g->n,
                                  .k = g->k,
                                  .a = g->a,
                                  .b = g->b,
                                  .c = g->c,
                                  .lda = g->lda,
                                  .ldb = g->ldb,
                                  .ldc = g->ldc,
                                  .batch = 1};
    if ((rc = gb_gemm_check_shape(&shape, q->dev, cu__same, INT64_MAX, "INT64_MAX")))
        return rc;
    if ((rc = cu__use(q->dev)) || (rc = cu__lt_setup(d)))
        return rc;
    if (!d->lt_plan.valid || !cu__lt_same(&d->lt_plan.key, g)) {
        if ((rc = cu__lt_plan(d, g)))
            return rc;
    }
    const float alpha = 1.0f, beta = 0.0f;
    void *C = cu_buf(g->c)->ptr;
    const struct cu_lt_plan *p = &d->lt_plan;
    return LT(cublasLtMatmul, d->lt, p->op, &alpha, cu_buf(g->a)->ptr, p->la, cu_buf(g->b)->ptr,
              p->lb, &beta, C, p->lc, C, p->lc, &p->algo, d->lt_ws, d->lt_ws_bytes,
              cu_queue(q)->stream);
}
#endif

/* ---- the vtable ------------------------------------------------------------------------------ */

/* ---- convolution through cuDNN (cuda_dnn.c) ------------------------------------------------ */

#if HAVE_CUDNN
/* The device is made current here; cuda_dnn.c gets the stream and the buffers' addresses. */
static int cu_conv_plan(struct gb_queue *q, const struct gb_conv *c, struct gb_conv_plan **out)
{
    *out = NULL;
    int rc = cu__use(q->dev);
    if (rc)
        return rc;
    struct gb_buf *const b[3] = {c->x, c->w, c->y};
    for (int i = 0; i < 3; i++)
        if (!b[i] || b[i]->kind != GB_MEM_DEVICE || !cu__same(b[i]->dev, q->dev))
            return GB_FAIL(GB_EINVAL, "conv: %s is not a device buffer of this device",
                           i == 0   ? "x"
                           : i == 1 ? "w"
                                    : "y");
    if (cu_queue(q)->dead)
        return GB_FAIL(GB_EBACKEND, "conv: the queue's device was lost");
    return gb__cuda_dnn_plan(q, cu_queue(q)->stream, cu_buf(c->x)->ptr, cu_buf(c->w)->ptr,
                             cu_buf(c->y)->ptr, c, out);
}

static int cu_conv_run(struct gb_conv_plan *p)
{
    int rc = cu__use(p->q->dev);
    return rc ? rc : gb__cuda_dnn_run(p);
}
#endif

#if HAVE_CUSPARSE
/* The device is made current here; cuda_sparse.c gets the stream and the buffers' addresses. */
static int cu_spmm_plan(struct gb_queue *q, const struct gb_spmm *s, struct gb_spmm_plan **out)
{
    *out = NULL;
    int rc = cu__use(q->dev);
    if (rc)
        return rc;
    struct gb_buf *const b[5] = {s->row_ptr, s->col, s->val, s->b, s->c};
    void *ptrs[5];
    for (int i = 0; i < 5; i++) {
        if (!b[i] || b[i]->kind != GB_MEM_DEVICE || !cu__same(b[i]->dev, q->dev))
            return GB_FAIL(GB_EINVAL, "spmm: operand %d is not a device buffer of this device", i);
        ptrs[i] = cu_buf(b[i])->ptr;
    }
    if (cu_queue(q)->dead)
        return GB_FAIL(GB_EBACKEND, "spmm: the queue's device was lost");
    return gb__cuda_sparse_plan(q, cu_queue(q)->stream, ptrs, s, out);
}

static int cu_spmm_run(struct gb_spmm_plan *p)
{
    int rc = cu__use(p->q->dev);
    return rc ? rc : gb__cuda_sparse_run(p);
}
#endif

/* Launch graphs: defined in their own block at the end of the file. */
static int cu_graph_begin(struct gb_queue *q);
static int cu_graph_end(struct gb_queue *q, struct gb_graph **out);
static int cu_graph_launch(struct gb_queue *q, struct gb_graph *g);
static void cu_graph_free(struct gb_graph *g);

/* The driver's JIT cache of PTX compiled for the device (CUDA_CACHE_PATH, "CUDA Environment
 * Variables" in the CUDA C++ Programming Guide); NVRTC itself keeps no cache. */
static const char *const cuda_cache_env[] = {"CUDA_CACHE_PATH", NULL};

const struct gb_backend_ops gb_cuda_ops = {
    .name = "cuda",
    .facts =
        {
            .peer_load = true,
            .nvidia_gpus = true,
            .compiler_cache_env = cuda_cache_env,
#if HAVE_CUBLAS
            .blas = "cublas",
#endif
#if !HAVE_CUBLASLT
            .fp8_absent = "no cuBLASLt in this build",
#endif
#if !HAVE_CUDNN
            .conv_absent = "no cuDNN headers in this build",
#endif
#if !HAVE_CUSPARSE
            .sparse_absent = "no cuSPARSE headers in this build",
#endif
        },
    .init = cu_init,
    .shutdown = cu_shutdown,
    .device_count = cu_device_count,
    .device_info = cu_device_info,
    .device_open = cu_device_open,
    .device_close = cu_device_close,
    .buf_alloc = cu_buf_alloc,
    .buf_free = cu_buf_free,
    .alloc_method = cu_alloc_method,
    .alloc_pool_stats = cu_alloc_pool_stats,
    .queue_create = cu_queue_create,
    .queue_create_priority = cu_queue_create_priority,
    .queue_destroy = cu_queue_destroy,
    .queue_flush = cu_queue_flush,
    .queue_sync = cu_queue_sync,
    .copy = cu_copy,
    .peer_copy = cu_peer_copy,
    .peer_can_access = cu_peer_can_access,
    .program_build = cu_program_build,
    .program_free = cu_program_free,
    .kernel_get = cu_kernel_get,
    .kernel_free = cu_kernel_free,
    .kernel_max_wg = cu_kernel_max_wg,
    .launch = cu_launch,
    .launch_timed = cu_launch_timed,
    .event_create = cu_event_create,
    .event_free = cu_event_free,
    .event_record = cu_event_record,
    .event_sync = cu_event_sync,
    .event_elapsed_ns = cu_event_elapsed_ns,
    .graph_begin = cu_graph_begin,
    .graph_end = cu_graph_end,
    .graph_launch = cu_graph_launch,
    .graph_free = cu_graph_free,
#if HAVE_CUBLAS
    .gemm = cu_gemm,
    .gemv = cu_gemv,
#endif
#if HAVE_CUBLASLT
    .gemm_fp8 = cu_gemm_fp8,
#endif
#if HAVE_CUDNN
    .conv_plan = cu_conv_plan,
    .conv_run = cu_conv_run,
    .conv_plan_free = gb__cuda_dnn_free,
#endif
#if HAVE_CUSPARSE
    .spmm_plan = cu_spmm_plan,
    .spmm_run = cu_spmm_run,
    .spmm_plan_free = gb__cuda_sparse_free,
#endif
};

/* ---- launch graphs (GB_CAP_GRAPH): CUDA Graphs by stream capture -----------------------------
 *
 * graph_begin starts capturing the queue's stream (cudaStreamBeginCapture, thread-local mode:
 * only this thread's unsafe calls are refused while it captures, so other devices' threads run
 * on); the launches enqueued on it are recorded with their arguments as cudaLaunchKernel sees
 * them. graph_end ends the capture and instantiates the graph (cudaGraphInstantiate);
 * graph_launch replays it on the same stream (cudaGraphLaunch), which CUDA allows while earlier
 * replays are pending: they run in stream order. Every device of CUDA 10+ has them, so the
 * capability is set for every device (cu__query). */

struct cu_graph {
    struct gb_graph pub;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
};

static int cu_graph_begin(struct gb_queue *q)
{
    int rc = cu__use(q->dev);
    if (rc)
        return rc;
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    if ((rc = CU(cudaStreamIsCapturing, cu_queue(q)->stream, &st)))
        return rc;
    if (st != cudaStreamCaptureStatusNone)
        return GB_FAIL(GB_EINVAL, "graph_begin: the queue is already recording");
    return CU(cudaStreamBeginCapture, cu_queue(q)->stream, cudaStreamCaptureModeThreadLocal);
}

static int cu_graph_end(struct gb_queue *q, struct gb_graph **out)
{
    int rc = cu__use(q->dev);
    if (rc)
        return rc;
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    if ((rc = CU(cudaStreamIsCapturing, cu_queue(q)->stream, &st)))
        return rc;
    if (st == cudaStreamCaptureStatusNone)
        return GB_FAIL(GB_EINVAL, "graph_end: the queue is not recording");
    cudaGraph_t graph = NULL;
    /* An invalidated capture (a forbidden call while recording) fails here and ends it. */
    if ((rc = CU(cudaStreamEndCapture, cu_queue(q)->stream, &graph))) {
        if (graph)
            (void)cudaGraphDestroy(graph);
        return rc;
    }
    struct cu_graph *g = calloc(1, sizeof *g);
    if (!g) {
        (void)cudaGraphDestroy(graph);
        return GB_FAIL(GB_ENOMEM, "graph_end");
    }
    if ((rc = CU(cudaGraphInstantiate, &g->exec, graph, 0))) {
        (void)cudaGraphDestroy(graph);
        free(g);
        return rc;
    }
    g->graph = graph;
    g->pub.q = q;
    *out = &g->pub;
    return 0;
}

static int cu_graph_launch(struct gb_queue *q, struct gb_graph *g)
{
    if (g->q != q)
        return GB_FAIL(GB_EINVAL, "graph_launch: the graph was recorded on another queue");
    int rc = cu__use(q->dev);
    return rc ? rc : CU(cudaGraphLaunch, ((struct cu_graph *)g)->exec, cu_queue(q)->stream);
}

static void cu_graph_free(struct gb_graph *g)
{
    if (!g)
        return;
    struct cu_graph *cg = (struct cu_graph *)g;
    if (cu__use(g->q->dev) == 0) {
        (void)cudaGraphExecDestroy(cg->exec);
        (void)cudaGraphDestroy(cg->graph);
    }
    (void)cudaGetLastError();
    free(cg);
}
