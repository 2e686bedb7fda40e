/* gpubench — telemetry: the "nvml" source, NVIDIA's management library opened with dlopen() at
 * run time (contract in telemetry.h, telemetry_private.h). $GPUBENCH_NVML_LIB names another
 * library to open in its place: the tests' fake NVML (tests/fake_nvml.c) comes in this way. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/telemetry.h"
#include "backends/telemetry_private.h"

/* NVML's C API (nvml.h, "NVML API Reference", docs.nvidia.com/deploy/nvml-api/): every call
 * returns nvmlReturn_t, NVML_SUCCESS = 0; nvmlDevice_t is an opaque pointer. Enum values used
 * here: nvmlClockType_t NVML_CLOCK_GRAPHICS 0, NVML_CLOCK_SM 1, NVML_CLOCK_MEM 2;
 * nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU 0; nvmlEnableState_t DISABLED 0, ENABLED 1.
 * Power and power limits are in milliwatts, the total energy in millijoules since the driver
 * was loaded. nvmlDeviceGetTotalEccErrors takes nvmlMemoryErrorType_t (CORRECTED 0, UNCORRECTED
 * 1) and nvmlEccCounterType_t (VOLATILE 0: since the driver loaded, AGGREGATE 1: the device's
 * life); nvmlDeviceGetRemappedRows (Ampere and later) reports corrected and uncorrected rows,
 * isPending (a remap waits for a GPU reset) and failureOccurred; nvmlDeviceGetRetiredPagesPending
 * Status (before Ampere) whether retired pages wait for a reboot. */
enum { NVML_OK = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };
typedef void *nvml_dev;
/* nvmlEventData_t; nvmlEventTypeXidCriticalError is 0x8, its eventData the XID. */
#define NVML_EVENT_XID 0x8ull
struct nvml_event {
    nvml_dev device;
    unsigned long long type, data;
    unsigned gpu_instance, compute_instance;
};
/* nvmlPciInfo_t as nvml.h has it since the _v2 calls (NVML API Reference, "nvmlPciInfo_t Struct
 * Reference", docs.nvidia.com/deploy/nvml-api/structnvmlPciInfo__t.html): busIdLegacy[16]
 * (NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE), then domain, bus, device, pciDeviceId, pciSubSystemId
 * (unsigned int each), then busId[32] (NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE), the address as
 * "00000000:17:00.0" (an 8-digit domain). The NVLink calls (NVML API Reference, "NvLink
 * Methods"), each for one link 0 .. NVML_NVLINK_MAX_LINKS - 1 (18 since Hopper):
 *   nvmlDeviceGetNvLinkState(nvmlDevice_t, unsigned int link, nvmlEnableState_t *isActive)
 *   nvmlDeviceGetNvLinkVersion(nvmlDevice_t, unsigned int link, unsigned int *version)
 *   nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t, unsigned int link, nvmlPciInfo_t *pci)
 *   nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t, unsigned int link,
 *                                       nvmlIntNvLinkDeviceType_t *type)
 * The version is an nvmlNvlinkVersion_t: 1 = 1.0, 2 = 2.0, 3 = 2.2, 4 = 3.0, 5 = 3.1, 6 = 4.0,
 * 7 = 5.0 (nvml.h; cuda-python's cuda.bindings.nvml.NvlinkVersion lists the same values). The
 * number is the enum's, not the generation: an A100 (NVLink 3) has been seen to answer 5. The
 * remote type: NVML_NVLINK_DEVICE_TYPE_GPU 0, _IBMNPU 1, _SWITCH 2, _UNKNOWN 0xFF. A link past
 * the device's last answers NVML_ERROR_INVALID_ARGUMENT (or NOT_SUPPORTED): not active. NVML
 * 13's headers raise NVML_NVLINK_MAX_LINKS to 36, a bound across architectures; GPUs up to
 * Blackwell have 18, the links read here. */
struct nvml_pci {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
};
struct gb__nvml {
    void *lib;
    nvml_dev dev;
    int (*init)(void);
    int (*shutdown)(void);
    const char *(*error_string)(int);
    int (*by_pci)(const char *, nvml_dev *);
    int (*clock)(nvml_dev, int, unsigned *);
    int (*max_clock)(nvml_dev, int, unsigned *);
    int (*app_clock)(nvml_dev, int, unsigned *);
    int (*power)(nvml_dev, unsigned *);
    int (*energy)(nvml_dev, unsigned long long *);
    int (*temp)(nvml_dev, int, unsigned *);
    int (*reasons)(nvml_dev, unsigned long long *);
    int (*pcie_gen)(nvml_dev, unsigned *);
    int (*pcie_width)(nvml_dev, unsigned *);
    int (*persistence)(nvml_dev, int *);
    int (*ecc)(nvml_dev, int *, int *);
    int (*power_limit)(nvml_dev, unsigned *);
    int (*driver)(char *, unsigned);
    int (*procs)(nvml_dev, unsigned *, void *);
    int (*pcie_gen_max)(nvml_dev, unsigned *);
    int (*pcie_width_max)(nvml_dev, unsigned *);
    int (*ecc_errors)(nvml_dev, int, int, unsigned long long *);
    int (*retired_pending)(nvml_dev, int *);
    int (*remapped_rows)(nvml_dev, unsigned *, unsigned *, unsigned *, unsigned *);
    int (*power_default)(nvml_dev, unsigned *);
    /* XID events: a set registered for critical errors when the session opens, drained at each
     * look (gb_tel_state); the count and the last code seen. */
    int (*event_set_create)(void **);
    int (*register_events)(nvml_dev, unsigned long long, void *);
    int (*event_wait)(void *, struct nvml_event *, unsigned);
    int (*event_set_free)(void *);
    /* NVLink (optional: absent on drivers and devices without it). */
    int (*nvlink_state)(nvml_dev, unsigned, int *);
    int (*nvlink_version)(nvml_dev, unsigned, unsigned *);
    int (*nvlink_remote_pci)(nvml_dev, unsigned, struct nvml_pci *);
    int (*nvlink_remote_type)(nvml_dev, unsigned, int *);
    void *xid_set;
    long long xid_events;
    int xid_last;
};

static const char *nvml_err(const struct gb__nvml *n, int rc, char *buf, size_t len)
{
    const char *s = n->error_string ? n->error_string(rc) : NULL;
    snprintf(buf, len, "%s (%d)", s ? s : "error", rc);
    return buf;
}

struct gb__nvml *gb__nvml_open(const struct gb_tel_target *t, char *why, size_t len)
{
    if (!t->pci_bus_id || !*t->pci_bus_id) {
        snprintf(why, len, "the device has no PCI bus id (not a PCI GPU)");
        return NULL;
    }
    bool nvidia = t->nvidia || (t->vendor && strstr(t->vendor, "NVIDIA"));
    if (!nvidia && !getenv("GPUBENCH_NVML_LIB")) {
        snprintf(why, len, "not an NVIDIA device");
        return NULL;
    }
    const char *path = getenv("GPUBENCH_NVML_LIB");
    if (!path || !*path)
        path = "libnvidia-ml.so.1";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(why, len, "cannot load %s: %s", path, e ? e : "?");
        return NULL;
    }
    struct gb__nvml *n = calloc(1, sizeof *n);
    if (!n) {
        dlclose(lib);
        snprintf(why, len, "out of memory");
        return NULL;
    }
    n->lib = lib;
#define SYM(field, name) (*(void **)&n->field = dlsym(lib, name))
    SYM(init, "nvmlInit_v2");
    SYM(shutdown, "nvmlShutdown");
    SYM(error_string, "nvmlErrorString");
    SYM(by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
    SYM(clock, "nvmlDeviceGetClockInfo");
    SYM(max_clock, "nvmlDeviceGetMaxClockInfo");
    SYM(app_clock, "nvmlDeviceGetApplicationsClock");
    SYM(power, "nvmlDeviceGetPowerUsage");
    SYM(energy, "nvmlDeviceGetTotalEnergyConsumption");
    SYM(temp, "nvmlDeviceGetTemperature");
    /* Renamed in CUDA 12.2's NVML; the old name stays for older drivers. */
    if (!SYM(reasons, "nvmlDeviceGetCurrentClocksEventReasons"))
        SYM(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    SYM(pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration");
    SYM(pcie_width, "nvmlDeviceGetCurrPcieLinkWidth");
    SYM(persistence, "nvmlDeviceGetPersistenceMode");
    SYM(ecc, "nvmlDeviceGetEccMode");
    SYM(power_limit, "nvmlDeviceGetEnforcedPowerLimit");
    SYM(driver, "nvmlSystemGetDriverVersion");
    SYM(procs, "nvmlDeviceGetComputeRunningProcesses_v3");
    SYM(pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration");
    SYM(pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth");
    SYM(ecc_errors, "nvmlDeviceGetTotalEccErrors");
    SYM(retired_pending, "nvmlDeviceGetRetiredPagesPendingStatus");
    SYM(remapped_rows, "nvmlDeviceGetRemappedRows");
    SYM(power_default, "nvmlDeviceGetPowerManagementDefaultLimit");
    SYM(event_set_create, "nvmlEventSetCreate");
    SYM(register_events, "nvmlDeviceRegisterEvents");
    SYM(event_wait, "nvmlEventSetWait_v2");
    SYM(event_set_free, "nvmlEventSetFree");
    SYM(nvlink_state, "nvmlDeviceGetNvLinkState");
    SYM(nvlink_version, "nvmlDeviceGetNvLinkVersion");
    SYM(nvlink_remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    SYM(nvlink_remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
#undef SYM
    char e[96];
    int rc;
    if (!n->init || !n->shutdown || !n->by_pci) {
        snprintf(why, len,
                 "%s lacks nvmlInit_v2, nvmlShutdown or "
                 "nvmlDeviceGetHandleByPciBusId_v2",
                 path);
    } else if ((rc = n->init()) != NVML_OK) {
        snprintf(why, len, "nvmlInit_v2: %s", nvml_err(n, rc, e, sizeof e));
    } else if ((rc = n->by_pci(t->pci_bus_id, &n->dev)) != NVML_OK) {
        snprintf(why, len, "no NVML device at PCI %s: %s", t->pci_bus_id,
                 nvml_err(n, rc, e, sizeof e));
        n->shutdown();
    } else {
        n->xid_events = -1;
        void *set = NULL;
        if (n->event_set_create && n->register_events && n->event_wait && n->event_set_free &&
            n->event_set_create(&set) == NVML_OK) {
            if (n->register_events(n->dev, NVML_EVENT_XID, set) == NVML_OK) {
                n->xid_set = set;
                n->xid_events = 0;
            } else {
                n->event_set_free(set);
            }
        }
        return n;
    }
    dlclose(lib);
    free(n);
    return NULL;
}

void gb__nvml_close(struct gb__nvml *n)
{
    if (!n)
        return;
    if (n->xid_set)
        n->event_set_free(n->xid_set);
    n->shutdown();
    dlclose(n->lib);
    free(n);
}

void gb__nvml_read(struct gb__nvml *n, struct gb_tel_reading *r)
{
    unsigned v;
    unsigned long long e;
    if (n->clock && n->clock(n->dev, NVML_CLOCK_SM, &v) == NVML_OK)
        r->q[GB_TQ_CLOCK] = v;
    if (n->clock && n->clock(n->dev, NVML_CLOCK_MEM, &v) == NVML_OK)
        r->q[GB_TQ_MEM_CLOCK] = v;
    if (n->power && n->power(n->dev, &v) == NVML_OK)
        r->q[GB_TQ_POWER] = v * 1e-3;
    if (n->temp && n->temp(n->dev, NVML_TEMPERATURE_GPU, &v) == NVML_OK)
        r->q[GB_TQ_TEMP] = v;
    if (n->energy && n->energy(n->dev, &e) == NVML_OK)
        r->energy_j = (double)e * 1e-3;
    if (n->reasons && n->reasons(n->dev, &e) == NVML_OK) {
        r->reasons = e;
        r->has_reasons = true;
    }
    if (n->pcie_gen && n->pcie_gen(n->dev, &v) == NVML_OK)
        r->pcie_gen = (int)v;
    if (n->pcie_width && n->pcie_width(n->dev, &v) == NVML_OK)
        r->pcie_width = (int)v;
}

void gb__nvml_xid(struct gb__nvml *n, long long *events, int *last)
{
    struct nvml_event ev;
    for (int k = 0; n->xid_set && k < 1024; k++) {
        memset(&ev, 0, sizeof ev);
        if (n->event_wait(n->xid_set, &ev, 0) != NVML_OK)
            break;
        if (ev.type & NVML_EVENT_XID) {
            n->xid_events++;
            n->xid_last = (int)ev.data;
        }
    }
    *events = n->xid_events;
    *last = n->xid_events > 0 ? n->xid_last : -1;
}

void gb__nvml_state(struct gb__nvml *n, struct gb_tel_device_state *st)
{
    unsigned v, w;
    int a, b;
    char buf[80];
    if (n->driver && n->driver(buf, sizeof buf) == NVML_OK)
        snprintf(st->driver, sizeof st->driver, "%s", buf);
    if (n->power_limit && n->power_limit(n->dev, &v) == NVML_OK)
        st->power_limit_w = v * 1e-3;
    if (n->max_clock && n->max_clock(n->dev, NVML_CLOCK_SM, &v) == NVML_OK)
        st->sm_clock_max_mhz = v;
    if (n->app_clock && n->app_clock(n->dev, NVML_CLOCK_SM, &v) == NVML_OK)
        st->sm_app_clock_mhz = v;
    if (n->persistence && n->persistence(n->dev, &a) == NVML_OK)
        st->persistence = a != 0;
    if (n->ecc && n->ecc(n->dev, &a, &b) == NVML_OK)
        st->ecc = a != 0;
    if (n->pcie_gen && n->pcie_gen(n->dev, &v) == NVML_OK)
        st->pcie_gen = (int)v;
    if (n->pcie_width && n->pcie_width(n->dev, &w) == NVML_OK)
        st->pcie_width = (int)w;
    /* With no buffer the call reports the count: NVML_SUCCESS when there are none,
     * NVML_ERROR_INSUFFICIENT_SIZE (7) otherwise. */
    v = 0;
    if (n->procs && ((a = n->procs(n->dev, &v, NULL)) == NVML_OK || a == 7))
        st->processes = (int)v;
    if (n->pcie_gen_max && n->pcie_gen_max(n->dev, &v) == NVML_OK)
        st->pcie_gen_max = (int)v;
    if (n->pcie_width_max && n->pcie_width_max(n->dev, &v) == NVML_OK)
        st->pcie_width_max = (int)v;
    unsigned long long e;
    if (n->ecc_errors && n->ecc_errors(n->dev, 1, 0, &e) == NVML_OK)
        st->ecc_uncorrected_volatile = (long long)e;
    if (n->ecc_errors && n->ecc_errors(n->dev, 1, 1, &e) == NVML_OK)
        st->ecc_uncorrected_aggregate = (long long)e;
    if (n->ecc_errors && n->ecc_errors(n->dev, 0, 0, &e) == NVML_OK)
        st->ecc_corrected_volatile = (long long)e;
    if (n->retired_pending && n->retired_pending(n->dev, &a) == NVML_OK)
        st->retired_pending = a != 0;
    unsigned corr, unc, pend, fail;
    if (n->remapped_rows && n->remapped_rows(n->dev, &corr, &unc, &pend, &fail) == NVML_OK) {
        st->remap_pending = pend != 0;
        st->remap_failure = fail != 0;
    }
    if (n->power_default && n->power_default(n->dev, &v) == NVML_OK)
        st->power_default_w = v * 1e-3;
}

/* nvmlNvlinkVersion_t (above) to the NVLink generation: 2.2 is NVLink2, 3.1 NVLink3; 0 unknown. */
static int nvlink_major(unsigned v)
{
    static const int major[] = {0, 1, 2, 2, 3, 3, 4, 5};
    return v < sizeof major / sizeof major[0] ? major[v] : 0;
}

void gb__nvml_links(struct gb__nvml *n, struct gb_link_info *li)
{
    unsigned v;
    if (n->pcie_gen && n->pcie_gen(n->dev, &v) == NVML_OK)
        li->pcie_gen = (int)v;
    if (n->pcie_width && n->pcie_width(n->dev, &v) == NVML_OK)
        li->pcie_width = (int)v;
    if (n->pcie_gen_max && n->pcie_gen_max(n->dev, &v) == NVML_OK)
        li->pcie_gen_max = (int)v;
    if (n->pcie_width_max && n->pcie_width_max(n->dev, &v) == NVML_OK)
        li->pcie_width_max = (int)v;
    li->nlinks = 0;
    if (!n->nvlink_state || !n->nvlink_remote_pci)
        return;
    for (unsigned l = 0; l < GB_NVLINK_MAX_LINKS; l++) {
        int active = 0, type = -1;
        struct nvml_pci pci;
        memset(&pci, 0, sizeof pci);
        /* NVML_ERROR_NOT_SUPPORTED or INVALID_ARGUMENT past the device's links: not active. */
        if (n->nvlink_state(n->dev, l, &active) != NVML_OK || !active ||
            n->nvlink_remote_pci(n->dev, l, &pci) != NVML_OK)
            continue;
        struct gb_link_nvlink *k = &li->link[li->nlinks++];
        k->index = (int)l;
        k->version =
            n->nvlink_version && n->nvlink_version(n->dev, l, &v) == NVML_OK ? nvlink_major(v) : 0;
        k->to_switch = n->nvlink_remote_type &&
                       n->nvlink_remote_type(n->dev, l, &type) == NVML_OK && type == 2;
        pci.bus_id[sizeof pci.bus_id - 1] = 0;
        snprintf(k->remote, sizeof k->remote, "%s", pci.bus_id);
    }
}
