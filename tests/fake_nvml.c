/* A tiny fake of NVIDIA's libnvidia-ml.so for the telemetry tests: the NVML calls gpubench makes
 * (backends/telemetry_nvml.c), serving one device at PCI bus id 0000:17:00.0.
 *
 * Every reading starts with nvmlDeviceGetClockInfo(NVML_CLOCK_SM), which advances a tick; the
 * other calls report that tick's state:
 * - SM clock 1980 MHz, memory clock 2619 MHz, power 250 W, temperature 60 C;
 * - the total energy counter 1000 J + 5 J per tick (250 W for 20 ms a tick);
 * - throttle reasons 0x1 (GpuIdle, not a throttle) on tick 0, else 0, except on the ticks in
 *   $GB_FAKE_NVML_THROTTLE ("FIRST-LAST", 0-based): HwSlowdown (0x8) and the SM clock at 1410;
 * - driver $GB_FAKE_NVML_DRIVER (default 580.65.06), power limit $GB_FAKE_NVML_POWER_LIMIT_MW
 *   (default 300000), applications clock 1755 MHz, max SM clock 1980 MHz.
 * $GB_FAKE_NVML_INIT_FAIL makes nvmlInit_v2 fail with NVML_ERROR_DRIVER_NOT_LOADED (9).
 * Health: the link Gen5 x16 at most, currently Gen $GB_FAKE_NVML_PCIE_GEN x $GB_FAKE_NVML_PCIE_WIDTH
 * (default 5, 16); uncorrected ECC errors $GB_FAKE_NVML_ECC_UNCORRECTED (0), 3 corrected; a row
 * remap pending when $GB_FAKE_NVML_REMAP_PENDING is 1; the default power limit
 * $GB_FAKE_NVML_POWER_DEFAULT_MW (300000). nvmlDeviceGetRetiredPagesPendingStatus is absent, as on
 * drivers of Ampere and later that report remapped rows instead. XID events: a set registered for
 * critical errors (0x8) serves one event of XID $GB_FAKE_NVML_XID, when set, on its first wait,
 * then times out (NVML_ERROR_TIMEOUT, 10); $GB_FAKE_NVML_NO_EVENTS makes nvmlEventSetCreate fail
 * with NVML_ERROR_NOT_SUPPORTED (3).
 * A second device at 0000:18:00.0 serves the same readings (the calls above ignore the handle).
 * NVLink: links 0 .. $GB_FAKE_NVML_NVLINKS - 1 (default 0: none) of each device are active,
 * version $GB_FAKE_NVML_NVLINK_VERSION (nvmlNvlinkVersion_t, default 6: NVLink 4.0), their remote
 * the other device ("00000000:18:00.0" / "00000000:17:00.0", NVML's 8-digit domain), or, with
 * $GB_FAKE_NVML_NVSWITCH set, an NVSwitch at 00000000:c0:00.0 (remote type 2); links past 17
 * answer NVML_ERROR_INVALID_ARGUMENT (2). $GB_FAKE_NVML_PCIE_WIDTH1 (default 16) is the second
 * device's current PCIe width. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *nvmlDevice_t;
static int dev_token, dev1_token;
static long tick = -1;

static int throttled(void)
{
    const char *r = getenv("GB_FAKE_NVML_THROTTLE");
    long a, b;
    return r && sscanf(r, "%ld-%ld", &a, &b) == 2 && tick >= a && tick <= b;
}

int nvmlInit_v2(void)
{
    return getenv("GB_FAKE_NVML_INIT_FAIL") ? 9 : 0;
}
int nvmlShutdown(void)
{
    return 0;
}
const char *nvmlErrorString(int rc)
{
    return rc == 6 ? "Not Found" : rc == 9 ? "Driver Not Loaded" : "Unknown Error";
}
int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, nvmlDevice_t *dev)
{
    if (strcmp(bus, "0000:17:00.0") == 0)
        *dev = &dev_token;
    else if (strcmp(bus, "0000:18:00.0") == 0)
        *dev = &dev1_token;
    else
        return 6;
    return 0;
}
int nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned *mhz)
{
    if (type == 1) {
        tick++;
        *mhz = throttled() ? 1410 : 1980;
    } else {
        *mhz = 2619;
    }
    return 0;
}
int nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, int type, unsigned *mhz)
{
    *mhz = 1980;
    return 0;
}
int nvmlDeviceGetApplicationsClock(nvmlDevice_t d, int type, unsigned *mhz)
{
    *mhz = 1755;
    return 0;
}
int nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned *mw)
{
    *mw = 250000;
    return 0;
}
int nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long *mj)
{
    *mj = 1000000ull + 5000ull * (unsigned long long)(tick < 0 ? 0 : tick);
    return 0;
}
int nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned *c)
{
    *c = 60;
    return 0;
}
int nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *r)
{
    *r = throttled() ? 0x8 : tick == 0 ? 0x1 : 0;
    return 0;
}
static unsigned env_u(const char *name, unsigned def)
{
    const char *e = getenv(name);
    return e ? (unsigned)strtoul(e, NULL, 10) : def;
}
int nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned *g)
{
    *g = env_u("GB_FAKE_NVML_PCIE_GEN", 5);
    return 0;
}
int nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned *w)
{
    *w = d == &dev1_token ? env_u("GB_FAKE_NVML_PCIE_WIDTH1", 16)
                          : env_u("GB_FAKE_NVML_PCIE_WIDTH", 16);
    return 0;
}
int nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned *g)
{
    *g = 5;
    return 0;
}
int nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned *w)
{
    *w = 16;
    return 0;
}
/* errorType 1 uncorrected, 0 corrected; counterType 0 volatile, 1 aggregate. */
int nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter, unsigned long long *n)
{
    *n = type == 1 ? env_u("GB_FAKE_NVML_ECC_UNCORRECTED", 0) : 3;
    return 0;
}
int nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned *corr, unsigned *unc, unsigned *pending,
                              unsigned *failure)
{
    *corr = *unc = 0;
    *pending = env_u("GB_FAKE_NVML_REMAP_PENDING", 0);
    *failure = 0;
    return 0;
}
int nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t d, unsigned *mw)
{
    *mw = env_u("GB_FAKE_NVML_POWER_DEFAULT_MW", 300000);
    return 0;
}
int nvmlDeviceGetPersistenceMode(nvmlDevice_t d, int *m)
{
    *m = 1;
    return 0;
}
int nvmlDeviceGetEccMode(nvmlDevice_t d, int *cur, int *pending)
{
    *cur = *pending = 1;
    return 0;
}
int nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned *mw)
{
    const char *e = getenv("GB_FAKE_NVML_POWER_LIMIT_MW");
    *mw = e ? (unsigned)strtoul(e, NULL, 10) : 300000u;
    return 0;
}
int nvmlSystemGetDriverVersion(char *buf, unsigned len)
{
    const char *e = getenv("GB_FAKE_NVML_DRIVER");
    snprintf(buf, len, "%s", e ? e : "580.65.06");
    return 0;
}
int nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned *count, void *infos)
{
    *count = 0;
    return 0;
}

/* nvmlEventData_t */
struct event {
    nvmlDevice_t device;
    unsigned long long type, data;
    unsigned gpu_instance, compute_instance;
};
static int set_token, xid_served, registered;
int nvmlEventSetCreate(void **set)
{
    if (getenv("GB_FAKE_NVML_NO_EVENTS"))
        return 3;
    *set = &set_token;
    xid_served = 0; /* a new set, a new session */
    return 0;
}
int nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types, void *set)
{
    registered = (types & 0x8) != 0;
    return 0;
}
int nvmlEventSetWait_v2(void *set, struct event *e, unsigned timeout_ms)
{
    const char *x = getenv("GB_FAKE_NVML_XID");
    if (!registered || !x || xid_served)
        return 10;
    xid_served = 1;
    memset(e, 0, sizeof *e);
    e->device = &dev_token;
    e->type = 0x8;
    e->data = strtoull(x, NULL, 10);
    return 0;
}
int nvmlEventSetFree(void *set)
{
    return 0;
}

/* nvmlPciInfo_t */
struct pci_info {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
};
int nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned link, int *active)
{
    if (link >= 18)
        return 2;
    *active = link < env_u("GB_FAKE_NVML_NVLINKS", 0);
    return 0;
}
int nvmlDeviceGetNvLinkVersion(nvmlDevice_t d, unsigned link, unsigned *version)
{
    if (link >= 18)
        return 2;
    *version = env_u("GB_FAKE_NVML_NVLINK_VERSION", 6);
    return 0;
}
int nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned link, struct pci_info *pci)
{
    if (link >= 18)
        return 2;
    memset(pci, 0, sizeof *pci);
    const unsigned bus = getenv("GB_FAKE_NVML_NVSWITCH") ? 0xc0 : d == &dev_token ? 0x18 : 0x17;
    pci->bus = bus;
    snprintf(pci->bus_id, sizeof pci->bus_id, "00000000:%02x:00.0", bus);
    snprintf(pci->bus_id_legacy, sizeof pci->bus_id_legacy, "0000:%02x:00.0", bus);
    return 0;
}
int nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t d, unsigned link, int *type)
{
    if (link >= 18)
        return 2;
    *type = getenv("GB_FAKE_NVML_NVSWITCH") ? 2 : 0;
    return 0;
}
