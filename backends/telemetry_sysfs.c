/* gpubench — telemetry: the "sysfs" source (a GPU's hwmon files; a CPU's RAPL energy, cpufreq and
 * hwmon temperatures), the PCIe link and the machine's CPU governor, turbo and load (contract in
 * telemetry.h, telemetry_private.h). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/telemetry.h"
#include "backends/telemetry_private.h"
#include "base/util.h"

double gb_tel_pcie_link_gbs(const char *pci_bus_id, char *how, size_t len)
{
    if (!pci_bus_id || !*pci_bus_id) {
        snprintf(how, len, "the backend reports no PCI address for the device");
        return 0.0;
    }
    char p[512], speed[64], width[32];
    gb__tel_pathf(p, sizeof p, "%s/bus/pci/devices/%s/current_link_speed", gb__tel_sysfs_root(),
                  pci_bus_id);
    bool ok = gb__tel_read_line(p, speed, sizeof speed);
    if (ok) {
        gb__tel_pathf(p, sizeof p, "%s/bus/pci/devices/%s/current_link_width", gb__tel_sysfs_root(),
                      pci_bus_id);
        ok = gb__tel_read_line(p, width, sizeof width);
    }
    if (!ok) {
        snprintf(how, len, "no PCIe link speed and width under %s/bus/pci/devices/%s",
                 gb__tel_sysfs_root(), pci_bus_id);
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

#define MAX_FILES 64
struct gb__sysfs {
    bool cpu;
    struct gb__rapl_zone rapl[GB__RAPL_ZONES];
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

static void add_temps(struct gb__sysfs *s, const char *dir)
{
    for (int k = 1; k <= 32 && s->ntemp < MAX_FILES; k++) {
        gb__tel_pathf(s->temp[s->ntemp], sizeof s->temp[0], "%s/temp%d_input", dir, k);
        if (exists(s->temp[s->ntemp]))
            s->ntemp++;
    }
}

static void sysfs_cpu(struct gb__sysfs *s, const char *root)
{
    char dir[512], path[600];
    s->nrapl = gb__rapl_open(root, s->rapl, GB__RAPL_ZONES);
    for (int cpu = 0; cpu < 4096 && s->nfreq < MAX_FILES; cpu++) {
        gb__tel_pathf(s->freq[s->nfreq], sizeof s->freq[0],
                      "%s/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", root, cpu);
        if (exists(s->freq[s->nfreq]))
            s->nfreq++;
        else if (cpu > 0)
            break;
    }
    gb__tel_pathf(dir, sizeof dir, "%s/class/hwmon", root);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        char name[64];
        gb__tel_pathf(path, sizeof path, "%s/%s/name", dir, e->d_name);
        if (e->d_name[0] == '.' || !gb__tel_read_line(path, name, sizeof name) ||
            !cpu_hwmon_name(name))
            continue;
        gb__tel_pathf(path, sizeof path, "%s/%s", dir, e->d_name);
        add_temps(s, path);
    }
    if (d)
        closedir(d);
}

static void sysfs_gpu(struct gb__sysfs *s, const char *root, const char *pci)
{
    char dir[512], hw[600], p[700];
    gb__tel_pathf(dir, sizeof dir, "%s/bus/pci/devices/%s/hwmon", root, pci);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        gb__tel_pathf(hw, sizeof hw, "%s/%s", dir, e->d_name);
        gb__tel_pathf(p, sizeof p, "%s/power1_average", hw);
        if (!exists(p))
            gb__tel_pathf(p, sizeof p, "%s/power1_input", hw);
        if (exists(p) && !*s->power)
            gb__tel_pathf(s->power, sizeof s->power, "%s", p);
        gb__tel_pathf(p, sizeof p, "%s/energy1_input", hw);
        if (exists(p) && !*s->energy)
            gb__tel_pathf(s->energy, sizeof s->energy, "%s", p);
        gb__tel_pathf(p, sizeof p, "%s/freq1_input", hw);
        if (exists(p) && !s->nfreq)
            gb__tel_pathf(s->freq[s->nfreq++], sizeof s->freq[0], "%s", p);
        gb__tel_pathf(p, sizeof p, "%s/freq2_input", hw);
        if (exists(p) && !*s->mem_freq)
            gb__tel_pathf(s->mem_freq, sizeof s->mem_freq, "%s", p);
        add_temps(s, hw);
    }
    if (d)
        closedir(d);
}

struct gb__sysfs *gb__sysfs_open(const struct gb_tel_target *t, char *what, size_t len)
{
    struct gb__sysfs *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(what, len, "out of memory");
        return NULL;
    }
    const char *root = gb__tel_sysfs_root();
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

void gb__sysfs_read(struct gb__sysfs *s, struct gb_tel_reading *r)
{
    uint64_t v;
    if (s->nrapl)
        gb__rapl_read(s->rapl, s->nrapl, r);
    if (*s->energy && gb__tel_read_u64(s->energy, &v))
        r->energy_j = (double)v * 1e-6;
    if (*s->power && gb__tel_read_u64(s->power, &v))
        r->q[GB_TQ_POWER] = (double)v * 1e-6;
    double sum = 0.0;
    size_t n = 0;
    for (size_t i = 0; i < s->nfreq; i++)
        if (gb__tel_read_u64(s->freq[i], &v)) {
            sum += (double)v;
            n++;
        }
    if (n) /* cpufreq in kHz, a GPU's freq1_input in Hz */
        r->q[GB_TQ_CLOCK] = sum / (double)n * (s->cpu ? 1e-3 : 1e-6);
    if (*s->mem_freq && gb__tel_read_u64(s->mem_freq, &v))
        r->q[GB_TQ_MEM_CLOCK] = (double)v * 1e-6;
    double tmax = NAN;
    for (size_t i = 0; i < s->ntemp; i++)
        if (gb__tel_read_u64(s->temp[i], &v) && !((double)v * 1e-3 <= tmax))
            tmax = (double)v * 1e-3;
    r->q[GB_TQ_TEMP] = tmax;
}

/* ---- the machine --------------------------------------------------------------------------- */

void gb_tel_machine_read(struct gb_tel_machine *m)
{
    const char *root = gb__tel_sysfs_root();
    char path[600], buf[64];
    m->recorded = true;
    m->turbo = -1;
    m->governor[0] = '\0';
    gb__tel_pathf(path, sizeof path, "%s/devices/system/cpu/cpu0/cpufreq/scaling_governor", root);
    if (gb__tel_read_line(path, buf, sizeof buf))
        gb__tel_pathf(m->governor, sizeof m->governor, "%s", buf);
    uint64_t v;
    gb__tel_pathf(path, sizeof path, "%s/devices/system/cpu/intel_pstate/no_turbo", root);
    if (gb__tel_read_u64(path, &v)) {
        m->turbo = v ? 0 : 1;
    } else {
        gb__tel_pathf(path, sizeof path, "%s/devices/system/cpu/cpufreq/boost", root);
        if (gb__tel_read_u64(path, &v))
            m->turbo = v ? 1 : 0;
    }
    double la[3];
    int n = getloadavg(la, 3);
    for (int i = 0; i < 3; i++)
        m->loadavg[i] = i < n ? la[i] : NAN;
}
