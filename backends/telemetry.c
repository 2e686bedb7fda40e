/* gpubench — telemetry sources, the sampler and the pure arithmetic (contract in telemetry.h). */
#include "backends/telemetry.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/backend.h"
#include "base/error.h"
#include "base/units.h"
#include "base/util.h"

const struct gb_tel_cfg gb_tel_defaults = {
    .enabled = true, .period = 0.020, .on_throttle = GB_THROTTLE_KEEP, .clock_floor = 0.9};

const char *gb_tel_q_name(enum gb_tel_q q)
{
    static const char *const names[GB_TQ_COUNT] = {"clock_mhz", "mem_clock_mhz", "power_w",
                                                   "temp_c"};
    return (unsigned)q < GB_TQ_COUNT ? names[q] : "?";
}

const char *gb_throttle_policy_name(enum gb_throttle_policy p)
{
    return p == GB_THROTTLE_DISCARD ? "discard" : p == GB_THROTTLE_FAIL ? "fail" : "keep";
}

/* ---- small file helpers -------------------------------------------------------------------- */

static const char *sysfs_root(void)
{
    const char *r = getenv("GPUBENCH_SYSFS_ROOT");
    return r && *r ? r : "/sys";
}

/* snprintf for paths (a truncated path names no file, so it simply is not found). */
static void pathf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void pathf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* Reads the first line of a file into buf (newline stripped). Returns false when unreadable. */
static bool read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (ok)
        buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

static bool read_u64(const char *path, uint64_t *v)
{
    char buf[64], *end;
    if (!read_line(path, buf, sizeof buf))
        return false;
    /* Digits only: strtoull would take "-2400000" for 2^64 - 2400000. */
    const char *p = buf + strspn(buf, " \t");
    if (*p < '0' || *p > '9')
        return false;
    errno = 0;
    unsigned long long x = strtoull(p, &end, 10);
    if (errno || end == p || end[strspn(end, " \t\r")] != '\0')
        return false;
    *v = x;
    return true;
}

double gb_tel_pcie_link_gbs(const char *pci_bus_id, char *how, size_t len)
{
    if (!pci_bus_id || !*pci_bus_id) {
        snprintf(how, len, "the backend reports no PCI address for the device");
        return 0.0;
    }
    char p[512], speed[64], width[32];
    pathf(p, sizeof p, "%s/bus/pci/devices/%s/current_link_speed", sysfs_root(), pci_bus_id);
    bool ok = read_line(p, speed, sizeof speed);
    if (ok) {
        pathf(p, sizeof p, "%s/bus/pci/devices/%s/current_link_width", sysfs_root(), pci_bus_id);
        ok = read_line(p, width, sizeof width);
    }
    if (!ok) {
        snprintf(how, len, "no PCIe link speed and width under %s/bus/pci/devices/%s", sysfs_root(),
                 pci_bus_id);
        return 0.0;
    }
    /* "32.0 GT/s PCIe" and "16": decimal digits only (strtod would take "0x20" for 32). */
    size_t nd = strspn(speed, "0123456789.");
    char num[32] = "", *wend = NULL;
    if (nd > 0 && nd < sizeof num)
        memcpy(num, speed, nd);
    double gts = num[0] >= '0' && num[0] <= '9' ? strtod(num, NULL) : NAN;
    long lanes = width[0] >= '0' && width[0] <= '9' ? strtol(width, &wend, 10) : 0;
    if (strncmp(speed + nd, " GT/s", 5) != 0 || !(gts >= 2.5 && gts <= 256.0) || !wend ||
        wend[strspn(wend, " \t\r")] != '\0' || lanes < 1 || lanes > 32) {
        snprintf(how, len, "the PCIe link of %s reads \"%.40s\" x\"%.8s\"", pci_bus_id, speed,
                 width);
        gb_term_clean(how);
        return 0.0;
    }
    const double enc = gts < 8.0 ? 8.0 / 10.0 : 128.0 / 130.0;
    snprintf(how, len, "PCIe %g GT/s x%ld", gts, lanes);
    return gts * (double)lanes * enc / 8.0;
}

uint64_t gb_tel_counter_delta(uint64_t prev, uint64_t cur, uint64_t range)
{
    if (cur >= prev)
        return cur - prev;
    if (range == 0 || prev > range)
        return 0;
    return (range - prev) + cur;
}

/* ---- NVML (dlopen) ------------------------------------------------------------------------- */

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
struct nvml {
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
    void *xid_set;
    long long xid_events;
    int xid_last;
};

static const char *nvml_err(const struct nvml *n, int rc, char *buf, size_t len)
{
    const char *s = n->error_string ? n->error_string(rc) : NULL;
    snprintf(buf, len, "%s (%d)", s ? s : "error", rc);
    return buf;
}

/* Opens NVML for the device at pci; NULL with *why set when it cannot. */
static struct nvml *nvml_open(const struct gb_tel_target *t, char *why, size_t len)
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
    struct nvml *n = calloc(1, sizeof *n);
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

static void nvml_close(struct nvml *n)
{
    if (!n)
        return;
    if (n->xid_set)
        n->event_set_free(n->xid_set);
    n->shutdown();
    dlclose(n->lib);
    free(n);
}

static void nvml_read(struct nvml *n, struct gb_tel_reading *r)
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

/* The XID events that came since the last look (none waited for: a timeout of 0). */
static void nvml_xid(struct nvml *n)
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
}

static void nvml_state(struct nvml *n, struct gb_tel_device_state *st)
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

/* ---- sysfs --------------------------------------------------------------------------------- */

#define MAX_FILES 64
struct rapl_zone {
    char path[512]; /* .../energy_uj */
    uint64_t range, last, acc;
};
struct sysfs {
    bool cpu;
    struct rapl_zone rapl[8];
    size_t nrapl;
    char freq[MAX_FILES][512]; /* cpufreq scaling_cur_freq (kHz), or a GPU's freq1_input (Hz) */
    size_t nfreq;
    char mem_freq[512];        /* GPU freq2_input (Hz) */
    char temp[MAX_FILES][512]; /* temp*_input, millidegrees */
    size_t ntemp;
    char power[512];  /* GPU power1_average / power1_input, microwatts */
    char energy[512]; /* GPU energy1_input, microjoules */
};

static bool exists(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f)
        fclose(f);
    return f != NULL;
}

static bool cpu_hwmon_name(const char *name)
{
    static const char *const names[] = {"coretemp", "k10temp", "zenpower", "cpu_thermal"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

static void add_temps(struct sysfs *s, const char *dir)
{
    for (int k = 1; k <= 32 && s->ntemp < MAX_FILES; k++) {
        pathf(s->temp[s->ntemp], sizeof s->temp[0], "%s/temp%d_input", dir, k);
        if (exists(s->temp[s->ntemp]))
            s->ntemp++;
    }
}

static void sysfs_cpu(struct sysfs *s, const char *root)
{
    char dir[512], path[600];
    pathf(dir, sizeof dir, "%s/class/powercap", root);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) && s->nrapl < 8;) {
        /* Package zones only ("intel-rapl:0"): subzones ("intel-rapl:0:0") are inside them. */
        const char *c = strchr(e->d_name, ':');
        if (strncmp(e->d_name, "intel-rapl:", 11) != 0 || strchr(c + 1, ':'))
            continue;
        struct rapl_zone *z = &s->rapl[s->nrapl];
        pathf(z->path, sizeof z->path, "%s/%s/energy_uj", dir, e->d_name);
        pathf(path, sizeof path, "%s/%s/max_energy_range_uj", dir, e->d_name);
        if (!read_u64(z->path, &z->last))
            continue;
        if (!read_u64(path, &z->range))
            z->range = 0;
        s->nrapl++;
    }
    if (d)
        closedir(d);
    for (int cpu = 0; cpu < 4096 && s->nfreq < MAX_FILES; cpu++) {
        pathf(s->freq[s->nfreq], sizeof s->freq[0],
              "%s/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", root, cpu);
        if (exists(s->freq[s->nfreq]))
            s->nfreq++;
        else if (cpu > 0)
            break;
    }
    pathf(dir, sizeof dir, "%s/class/hwmon", root);
    d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        char name[64];
        pathf(path, sizeof path, "%s/%s/name", dir, e->d_name);
        if (e->d_name[0] == '.' || !read_line(path, name, sizeof name) || !cpu_hwmon_name(name))
            continue;
        pathf(path, sizeof path, "%s/%s", dir, e->d_name);
        add_temps(s, path);
    }
    if (d)
        closedir(d);
}

static void sysfs_gpu(struct sysfs *s, const char *root, const char *pci)
{
    char dir[512], hw[600], p[700];
    pathf(dir, sizeof dir, "%s/bus/pci/devices/%s/hwmon", root, pci);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        pathf(hw, sizeof hw, "%s/%s", dir, e->d_name);
        pathf(p, sizeof p, "%s/power1_average", hw);
        if (!exists(p))
            pathf(p, sizeof p, "%s/power1_input", hw);
        if (exists(p) && !*s->power)
            pathf(s->power, sizeof s->power, "%s", p);
        pathf(p, sizeof p, "%s/energy1_input", hw);
        if (exists(p) && !*s->energy)
            pathf(s->energy, sizeof s->energy, "%s", p);
        pathf(p, sizeof p, "%s/freq1_input", hw);
        if (exists(p) && !s->nfreq)
            pathf(s->freq[s->nfreq++], sizeof s->freq[0], "%s", p);
        pathf(p, sizeof p, "%s/freq2_input", hw);
        if (exists(p) && !*s->mem_freq)
            pathf(s->mem_freq, sizeof s->mem_freq, "%s", p);
        add_temps(s, hw);
    }
    if (d)
        closedir(d);
}

static struct sysfs *sysfs_open(const struct gb_tel_target *t, char *what, size_t len)
{
    struct sysfs *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(what, len, "out of memory");
        return NULL;
    }
    const char *root = sysfs_root();
    bool gpu = t->pci_bus_id && *t->pci_bus_id;
    s->cpu = !gpu && !t->nvidia;
    if (gpu)
        sysfs_gpu(s, root, t->pci_bus_id);
    else if (s->cpu)
        sysfs_cpu(s, root);
    if (!s->nrapl && !s->nfreq && !s->ntemp && !*s->power && !*s->energy) {
        if (gpu)
            snprintf(what, len, "no hwmon files under %s/bus/pci/devices/%s/hwmon", root,
                     t->pci_bus_id);
        else if (s->cpu)
            snprintf(what, len, "no RAPL energy (%s/class/powercap), cpufreq or CPU hwmon files",
                     root);
        else
            snprintf(what, len, "the device has no PCI bus id");
        free(s);
        return NULL;
    }
    snprintf(what, len, "%s%s%s%s%s", s->nrapl ? "rapl " : "", *s->energy ? "energy " : "",
             *s->power ? "power " : "", s->nfreq ? (s->cpu ? "cpufreq " : "freq ") : "",
             s->ntemp ? "hwmon-temp" : "");
    return s;
}

static void sysfs_read(struct sysfs *s, struct gb_tel_reading *r)
{
    uint64_t v;
    if (s->nrapl) {
        double acc = 0.0;
        size_t ok = 0;
        for (size_t i = 0; i < s->nrapl; i++) {
            struct rapl_zone *z = &s->rapl[i];
            if (read_u64(z->path, &v)) {
                z->acc += gb_tel_counter_delta(z->last, v, z->range);
                z->last = v;
                ok++;
            }
            acc += (double)z->acc;
        }
        if (ok)
            r->energy_j = acc * 1e-6;
    }
    if (*s->energy && read_u64(s->energy, &v))
        r->energy_j = (double)v * 1e-6;
    if (*s->power && read_u64(s->power, &v))
        r->q[GB_TQ_POWER] = (double)v * 1e-6;
    double sum = 0.0;
    size_t n = 0;
    for (size_t i = 0; i < s->nfreq; i++)
        if (read_u64(s->freq[i], &v)) {
            sum += (double)v;
            n++;
        }
    if (n) /* cpufreq in kHz, a GPU's freq1_input in Hz */
        r->q[GB_TQ_CLOCK] = sum / (double)n * (s->cpu ? 1e-3 : 1e-6);
    if (*s->mem_freq && read_u64(s->mem_freq, &v))
        r->q[GB_TQ_MEM_CLOCK] = (double)v * 1e-6;
    double tmax = NAN;
    for (size_t i = 0; i < s->ntemp; i++)
        if (read_u64(s->temp[i], &v) && !((double)v * 1e-3 <= tmax))
            tmax = (double)v * 1e-3;
    r->q[GB_TQ_TEMP] = tmax;
}

/* ---- sessions ------------------------------------------------------------------------------ */

struct gb_tel_session {
    struct nvml *nvml;
    struct sysfs *sysfs;
    struct gb_tel_source_status st[GB_TEL_NSRC];
};

int gb_tel_open(const struct gb_tel_target *t, struct gb_tel_session **out)
{
    struct gb_tel_session *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s)
        return GB_FAIL(GB_ENOMEM, "telemetry session");
    snprintf(s->st[0].name, sizeof s->st[0].name, "nvml");
    snprintf(s->st[1].name, sizeof s->st[1].name, "sysfs");
    s->nvml = nvml_open(t, s->st[0].reason, sizeof s->st[0].reason);
    if (s->nvml)
        snprintf(s->st[0].reason, sizeof s->st[0].reason, "device %s", t->pci_bus_id);
    s->st[0].available = s->nvml != NULL;
    s->sysfs = sysfs_open(t, s->st[1].reason, sizeof s->st[1].reason);
    s->st[1].available = s->sysfs != NULL;
    *out = s;
    return 0;
}

void gb_tel_close(struct gb_tel_session *s)
{
    if (!s)
        return;
    nvml_close(s->nvml);
    free(s->sysfs);
    free(s);
}

bool gb_tel_sources(const struct gb_tel_session *s, struct gb_tel_source_status st[GB_TEL_NSRC])
{
    memcpy(st, s->st, sizeof s->st);
    return s->nvml || s->sysfs;
}

void gb_tel_read(struct gb_tel_session *s, struct gb_tel_reading *r)
{
    memset(r, 0, sizeof *r);
    r->pcie_gen = r->pcie_width = -1;
    for (int q = 0; q < GB_TQ_COUNT; q++)
        r->q[q] = NAN;
    r->energy_j = NAN;
    /* sysfs first, NVML second: on an NVIDIA GPU NVML's figures win. */
    if (s->sysfs)
        sysfs_read(s->sysfs, r);
    if (s->nvml)
        nvml_read(s->nvml, r);
    /* A reading no device gives is a broken source, not a figure: dropped. */
    static const double lo[GB_TQ_COUNT] = {
        [GB_TQ_CLOCK] = 1, [GB_TQ_MEM_CLOCK] = 1, [GB_TQ_POWER] = 0, [GB_TQ_TEMP] = -60};
    static const double hi[GB_TQ_COUNT] = {[GB_TQ_CLOCK] = 100000,
                                           [GB_TQ_MEM_CLOCK] = 100000,
                                           [GB_TQ_POWER] = 10000,
                                           [GB_TQ_TEMP] = 250};
    for (int q = 0; q < GB_TQ_COUNT; q++)
        if (!(r->q[q] >= lo[q] && r->q[q] <= hi[q]))
            r->q[q] = NAN;
    r->t = gb_now();
}

void gb_tel_state(struct gb_tel_session *s, struct gb_tel_device_state *st)
{
    memset(st, 0, sizeof *st);
    st->device = -1;
    st->power_limit_w = st->sm_clock_max_mhz = st->sm_app_clock_mhz = st->power_default_w = NAN;
    st->persistence = st->ecc = st->pcie_gen = st->pcie_width = st->processes = -1;
    st->pcie_gen_max = st->pcie_width_max = st->pcie_gen_load = st->pcie_width_load = -1;
    st->ecc_uncorrected_volatile = st->ecc_uncorrected_aggregate = st->ecc_corrected_volatile = -1;
    st->retired_pending = st->remap_pending = st->remap_failure = -1;
    if (s && s->nvml)
        nvml_state(s->nvml, st);
    gb_tel_xid(s, &st->xid_events, &st->xid_last);
}

void gb_tel_xid(struct gb_tel_session *s, long long *events, int *last)
{
    *events = -1;
    *last = -1;
    if (!s || !s->nvml)
        return;
    nvml_xid(s->nvml);
    *events = s->nvml->xid_events;
    *last = s->nvml->xid_events > 0 ? s->nvml->xid_last : -1;
}

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct reg_entry {
    const struct gb_backend_ops *ops;
    int index;
    struct gb_tel_session *s;
} * reg;
static size_t nreg, capreg;

struct gb_tel_session *gb_tel_session_for(const struct gb_device *dev)
{
    struct gb_tel_session *s = NULL;
    pthread_mutex_lock(&reg_lock);
    for (size_t i = 0; i < nreg && !s; i++)
        if (reg[i].ops == dev->ops && reg[i].index == dev->index)
            s = reg[i].s;
    if (!s) {
        struct gb_tel_target t = {.nvidia = dev->ops && dev->ops->facts.nvidia_gpus,
                                  .vendor = dev->info.vendor,
                                  .pci_bus_id = dev->info.pci_bus_id};
        struct reg_entry *g = gb_grow(reg, &capreg, nreg + 1, sizeof *g);
        if (g) {
            reg = g;
            if (gb_tel_open(&t, &s) == 0)
                reg[nreg++] = (struct reg_entry){dev->ops, dev->index, s};
        }
    }
    pthread_mutex_unlock(&reg_lock);
    return s;
}

void gb_tel_close_all(void)
{
    pthread_mutex_lock(&reg_lock);
    for (size_t i = 0; i < nreg; i++)
        gb_tel_close(reg[i].s);
    free(reg);
    reg = NULL;
    nreg = capreg = 0;
    pthread_mutex_unlock(&reg_lock);
}

/* ---- the machine --------------------------------------------------------------------------- */

void gb_tel_machine_read(struct gb_tel_machine *m)
{
    const char *root = sysfs_root();
    char path[600], buf[64];
    m->recorded = true;
    m->turbo = -1;
    m->governor[0] = '\0';
    pathf(path, sizeof path, "%s/devices/system/cpu/cpu0/cpufreq/scaling_governor", root);
    if (read_line(path, buf, sizeof buf))
        pathf(m->governor, sizeof m->governor, "%s", buf);
    uint64_t v;
    pathf(path, sizeof path, "%s/devices/system/cpu/intel_pstate/no_turbo", root);
    if (read_u64(path, &v)) {
        m->turbo = v ? 0 : 1;
    } else {
        pathf(path, sizeof path, "%s/devices/system/cpu/cpufreq/boost", root);
        if (read_u64(path, &v))
            m->turbo = v ? 1 : 0;
    }
    double la[3];
    int n = getloadavg(la, 3);
    for (int i = 0; i < 3; i++)
        m->loadavg[i] = i < n ? la[i] : NAN;
}

/* ---- the sampler --------------------------------------------------------------------------- */

struct gb_tel_sampler {
    struct gb_tel_session *s;
    double period;
    pthread_t th;
    bool thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    struct gb_tel_reading *r;
    size_t n, cap;
};

static void push(struct gb_tel_sampler *sp, const struct gb_tel_reading *r)
{
    struct gb_tel_reading *g = gb_grow(sp->r, &sp->cap, sp->n + 1, sizeof *g);
    if (!g)
        return; /* a reading lost to memory pressure; the others stand */
    sp->r = g;
    sp->r[sp->n++] = *r;
}

static void *sampler_main(void *arg)
{
    struct gb_tel_sampler *sp = arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&sp->mu);
    while (!sp->stop) {
        long ns = (long)(sp->period * 1e9);
        next.tv_sec += ns / 1000000000L;
        next.tv_nsec += ns % 1000000000L;
        if (next.tv_nsec >= 1000000000L) {
            next.tv_sec++;
            next.tv_nsec -= 1000000000L;
        }
        int rc = 0;
        while (!sp->stop && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&sp->cv, &sp->mu, &next);
        if (sp->stop)
            break;
        pthread_mutex_unlock(&sp->mu);
        struct gb_tel_reading r;
        gb_tel_read(sp->s, &r);
        pthread_mutex_lock(&sp->mu);
        push(sp, &r);
    }
    pthread_mutex_unlock(&sp->mu);
    return NULL;
}

int gb_tel_sampler_start(struct gb_tel_session *s, double period, struct gb_tel_sampler **out)
{
    *out = NULL;
    struct gb_tel_sampler *sp = calloc(1, sizeof *sp);
    if (!sp)
        return GB_FAIL(GB_ENOMEM, "telemetry sampler");
    sp->s = s;
    sp->period = period > 1e-4 ? period : 1e-4;
    pthread_mutex_init(&sp->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&sp->cv, &ca);
    pthread_condattr_destroy(&ca);
    *out = sp;
    struct gb_tel_source_status st[GB_TEL_NSRC];
    if (!s || !gb_tel_sources(s, st))
        return 0;
    struct gb_tel_reading r;
    gb_tel_read(s, &r);
    push(sp, &r);
    if (pthread_create(&sp->th, NULL, sampler_main, sp) != 0)
        return 0; /* the first and last readings still bracket the window */
    sp->thread = true;
    return 0;
}

void gb_tel_sampler_stop(struct gb_tel_sampler *sp, struct gb_tel_trace *tr)
{
    if (!sp)
        return;
    if (sp->thread) {
        pthread_mutex_lock(&sp->mu);
        sp->stop = true;
        pthread_cond_signal(&sp->cv);
        pthread_mutex_unlock(&sp->mu);
        pthread_join(sp->th, NULL);
    }
    tr->on = true;
    if (sp->s && gb_tel_sources(sp->s, tr->src)) {
        struct gb_tel_reading r;
        gb_tel_read(sp->s, &r);
        push(sp, &r);
    } else if (sp->s) {
        gb_tel_sources(sp->s, tr->src);
    } else {
        for (int i = 0; i < GB_TEL_NSRC; i++)
            snprintf(tr->src[i].reason, sizeof tr->src[i].reason, "no telemetry session");
    }
    free(tr->r);
    tr->r = sp->r;
    tr->n = sp->n;
    pthread_cond_destroy(&sp->cv);
    pthread_mutex_destroy(&sp->mu);
    free(sp);
}

void gb_tel_trace_free(struct gb_tel_trace *tr)
{
    if (!tr)
        return;
    free(tr->r);
    free(tr->t0);
    free(tr->t1);
    memset(tr, 0, sizeof *tr);
}

void gb_tel_summary_free(struct gb_tel_summary *s)
{
    if (!s)
        return;
    free(s->marks);
    s->marks = NULL;
    s->nmarks = 0;
}

/* ---- arithmetic ---------------------------------------------------------------------------- */

double gb_tel_energy(const struct gb_tel_reading *r, size_t n, const char **method)
{
    size_t first = n, last = n;
    for (size_t i = 0; i < n; i++)
        if (isfinite(r[i].energy_j)) {
            if (first == n)
                first = i;
            last = i;
        }
    if (first < n && last > first) {
        *method = "counter";
        return r[last].energy_j - r[first].energy_j;
    }
    double e = 0.0;
    size_t prev = n, used = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(r[i].q[GB_TQ_POWER]))
            continue;
        if (prev < n) /* the trapezoid rule */
            e += 0.5 * (r[prev].q[GB_TQ_POWER] + r[i].q[GB_TQ_POWER]) * (r[i].t - r[prev].t);
        prev = i;
        used++;
    }
    if (used >= 2) {
        *method = "power";
        return e;
    }
    *method = "";
    return NAN;
}

static double window_energy(const struct gb_tel_reading *r, size_t n, bool coarse,
                            double power_avg_s, const char **method, char *why, size_t len);

double gb_tel_window_energy(const struct gb_tel_reading *r, size_t n, bool coarse,
                            double power_avg_s, const char **method, char *why, size_t len)
{
    double e = window_energy(r, n, coarse, power_avg_s, method, why, len);
    double window = n >= 2 ? r[n - 1].t - r[0].t : 0.0;
    /* More than 10 kW, or less than nothing: a counter that went wrong (a reset read as a
     * wrap), not a device. */
    if (isfinite(e) && (e < 0 || (window > 0 && e / window > GB_TEL_MAX_POWER_W))) {
        snprintf(why, len, "no energy: the %s gave an implausible %.3g J in %.3g ms (%.3g W)",
                 **method == 'p' ? "power readings" : "energy counter", e, window * 1e3,
                 window > 0 ? e / window : 0.0);
        *method = "";
        return NAN;
    }
    return e;
}

static double window_energy(const struct gb_tel_reading *r, size_t n, bool coarse,
                            double power_avg_s, const char **method, char *why, size_t len)
{
    *method = "";
    if (len)
        why[0] = '\0';
    double window = n >= 2 ? r[n - 1].t - r[0].t : 0.0, gap = 0.0;
    for (size_t i = 1; i < n; i++)
        gap = fmax(gap, r[i].t - r[i - 1].t);
    /* The counter's steps: readings whose value differs from the reading before that had one. */
    size_t steps = 0, fc = n, lc = n, prev = n;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(r[i].energy_j))
            continue;
        if (prev < n && r[i].energy_j != r[prev].energy_j) {
            if (fc == n)
                fc = i;
            lc = i;
            steps++;
        }
        prev = i;
    }
    bool has_counter = prev < n;
    if (has_counter && !coarse)
        return gb_tel_energy(r, n, method);
    if (steps >= 2 && r[lc].t - r[fc].t >= GB_TEL_COUNTER_SPAN_INTERVALS * gap &&
        r[lc].t > r[fc].t) {
        *method = "counter";
        return (r[lc].energy_j - r[fc].energy_j) / (r[lc].t - r[fc].t) * window;
    }
    size_t npower = 0;
    for (size_t i = 0; i < n; i++)
        npower += isfinite(r[i].q[GB_TQ_POWER]);
    if (npower >= 2 && window >= power_avg_s) {
        double e = 0.0;
        size_t p = n;
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(r[i].q[GB_TQ_POWER]))
                continue;
            if (p < n) /* the trapezoid rule */
                e += 0.5 * (r[p].q[GB_TQ_POWER] + r[i].q[GB_TQ_POWER]) * (r[i].t - r[p].t);
            p = i;
        }
        *method = "power";
        return e;
    }
    char c[128] = "there is no energy counter";
    if (has_counter)
        snprintf(c, sizeof c,
                 "the energy counter stepped %zu time%s, needing steps over %.0f ms (%d "
                 "reading intervals)",
                 steps, steps == 1 ? "" : "s", GB_TEL_COUNTER_SPAN_INTERVALS * gap * 1e3,
                 GB_TEL_COUNTER_SPAN_INTERVALS);
    if (npower < 2)
        snprintf(why, len, "no energy in a %.3g ms window: %s, and no power readings", window * 1e3,
                 c);
    else
        snprintf(why, len, "no energy in a %.3g ms window: %s, and its power is a %.3g s average",
                 window * 1e3, c, power_avg_s);
    return NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

size_t gb_tel_reading_throttled(const struct gb_tel_reading *r, size_t n, double clock_floor,
                                bool *thr)
{
    double *c = malloc((n ? n : 1) * sizeof *c);
    size_t nc = 0;
    for (size_t i = 0; c && i < n; i++)
        if (isfinite(r[i].q[GB_TQ_CLOCK]))
            c[nc++] = r[i].q[GB_TQ_CLOCK];
    double median = NAN;
    if (nc) {
        qsort(c, nc, sizeof *c, cmp_double);
        median = nc % 2 ? c[nc / 2] : 0.5 * (c[nc / 2 - 1] + c[nc / 2]);
    }
    free(c);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        thr[i] = (r[i].has_reasons && (r[i].reasons & ~GB_TEL_REASON_IDLE)) ||
                 (isfinite(median) && r[i].q[GB_TQ_CLOCK] < clock_floor * median);
        k += thr[i];
    }
    return k;
}

size_t gb_tel_mark(const struct gb_tel_trace *tr, double clock_floor, unsigned char *marks)
{
    size_t n = tr->n, k = 0;
    bool *thr = malloc((n ? n : 1) * sizeof *thr);
    if (!thr) {
        memset(marks, 0, tr->nsamples);
        return 0;
    }
    gb_tel_reading_throttled(tr->r, n, clock_floor, thr);
    size_t j = 0; /* readings before j started before the current sample */
    for (size_t i = 0; i < tr->nsamples; i++) {
        while (j < n && tr->r[j].t < tr->t0[i])
            j++;
        bool m = j > 0 && thr[j - 1];
        for (size_t q = j; q < n && tr->r[q].t <= tr->t1[i] && !m; q++)
            m = thr[q];
        marks[i] = m;
        k += m;
    }
    free(thr);
    return k;
}
