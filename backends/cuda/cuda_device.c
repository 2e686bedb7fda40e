/* gpubench — the CUDA backend's devices: init and discovery, the device facts (device_info,
 * the capability bits, the peak bandwidth) and device_open / device_close.
 */
#include "gb-config.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "backends/backend.h"
#include "cuda_libs.h"
#include "gb_cuda.h"

/* ---- lifecycle and discovery ----------------------------------------------------------------- */

static int cu__count = -1; /* devices found by init; -1 before a successful init */

static void cu__version(int v, char *out, size_t cap)
{
    snprintf(out, cap, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* Loads NVRTC (without it no kernel builds, so CUDA is unavailable) and asks the driver for the
 * devices. cuBLAS is not loaded here: the first GEMM loads it. With GPUBENCH_CUDA_REPORT set
 * (and not "0"), the first call writes the version chain (gb_cuda_report) to stderr. */
int gb__cuda_init(void)
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

void gb__cuda_shutdown(void)
{
    cu__count = -1;
}

int gb__cuda_device_count(void)
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
    if (index < 0 || index >= gb__cuda_device_count())
        return GB_USER_FAIL(GB_ENODEV, "no CUDA device %d: there are %d", index,
                            gb__cuda_device_count());
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
    /* No loop-trip limit is known of any CUDA driver: max_loop_trips stays 0, unprobed. */
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
    for (int j = 0; j < gb__cuda_device_count() && !peer; j++) {
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
    /* Launch graphs by stream capture: every device this runtime supports (the graph_* members,
     * cuda_graph.c). */
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

double gb_cuda_peak_mem_gbs(uint64_t mem_clock_khz, uint64_t bus_bits)
{
    return 2.0 * (double)mem_clock_khz * 1e3 * (double)bus_bits / 8.0 / 1e9;
}

int gb__cuda_device_info(int index, struct gb_device_info *out)
{
    return cu__query(index, out, NULL, NULL, NULL);
}

int gb__cuda_device_open(int index, const struct gb_backend_ops *ops, struct gb_device **out)
{
    struct gb__cuda_device *d = calloc(1, sizeof *d);
    if (!d)
        return GB_FAIL(GB_ENOMEM, "CUDA device_open");
    int rc = cu__query(index, &d->pub.info, &d->cc_major, &d->cc_minor, d->max_grid);
    if (rc)
        goto fail;
    d->pub.ops = ops;
    d->pub.index = index;
    /* Create the primary context now, so its cost never lands in a measurement. */
    if ((rc = gb__cuda_use_index(index)) || (rc = CU(cudaFree, NULL)))
        goto fail;
    *out = &d->pub;
    return 0;
fail:
    free(d);
    return rc;
}

void gb__cuda_device_close(struct gb_device *dev)
{
    if (!dev)
        return;
#if HAVE_CUBLAS
    struct gb__cuda_device *d = gb__cuda_dev(dev);
    if ((d->blas || d->blas_ws) && gb__cuda_use(dev) == 0) {
        if (d->blas)
            (void)gb__bl.cublasDestroy_v2(d->blas);
        if (d->blas_ws)
            (void)cudaFree(d->blas_ws);
        (void)cudaGetLastError();
    }
#endif
#if HAVE_CUBLASLT
    gb__cuda_lt_release(gb__cuda_dev(dev));
#endif
    if (gb__cuda_dev(dev)->keep_pool && gb__cuda_use(dev) == 0) {
        (void)cudaDeviceSynchronize();
        (void)cudaMemPoolDestroy(gb__cuda_dev(dev)->keep_pool);
        (void)cudaGetLastError();
    }
    /* The primary context stays: other handles of this process may still use the device. */
    free(dev);
}
