/* gpubench — telemetry: what its files share, private to backends/telemetry*.c (the contract is
 * telemetry.h).
 *
 *   telemetry.c        names and defaults, sessions (each device's sources read in turn), the
 *                      sessions kept per device, the sampler thread
 *   telemetry_nvml.c   the "nvml" source: NVML opened with dlopen() ($GPUBENCH_NVML_LIB names
 *                      another library: the tests' fake NVML comes in this way)
 *   telemetry_sysfs.c  the "sysfs" source (a GPU's hwmon; a CPU's cpufreq and hwmon), the PCIe
 *                      link, the machine's CPU governor, turbo and load
 *   telemetry_rapl.c   RAPL package energy under powercap (read by the sysfs source for a CPU),
 *                      counter wrap-around
 *   telemetry_files.c  reading sysfs files under $GPUBENCH_SYSFS_ROOT (default /sys)
 *   telemetry_arith.c  the pure arithmetic: a window's energy, throttled readings, marked samples
 *   telemetry_topo.c   the link between two devices: NVLink and PCIe as NVML reads them, the
 *                      pure description of a pair
 *
 * A source's open returns NULL, with why not in the caller's buffer, when the device has none of
 * it; its read sets the fields of the reading it reads. gb_tel_read() reads sysfs first and NVML
 * second, so that on an NVIDIA GPU NVML's figures win.
 */
#ifndef GB_TELEMETRY_PRIVATE_H
#define GB_TELEMETRY_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/telemetry.h"

/* ---- sysfs files (telemetry_files.c) -------------------------------------------------------- */

/* The root of sysfs: $GPUBENCH_SYSFS_ROOT when set and not empty, else "/sys". */
const char *gb__tel_sysfs_root(void);
/* snprintf for paths (a truncated path names no file, so it simply is not found). */
void gb__tel_pathf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Reads the first line of a file into buf (newline stripped). Returns false when unreadable. */
bool gb__tel_read_line(const char *path, char *buf, size_t len);
/* Reads a file whose first line is one decimal number (digits, blanks around it) into *v.
 * Returns false when unreadable or not such a number ("-1" is not 2^64 - 1). */
bool gb__tel_read_u64(const char *path, uint64_t *v);

/* ---- RAPL (telemetry_rapl.c) ---------------------------------------------------------------- */

#define GB__RAPL_ZONES 8 /* package zones read at most */

/* One package zone's energy counter, in microjoules. */
struct gb__rapl_zone {
    char path[512];            /* .../energy_uj */
    uint64_t range, last, acc; /* max_energy_range_uj (0: unknown), the last value read, the
                                * steps added up since the zone was found */
};

/* Finds the package zones (intel-rapl:N, not their subzones) under ROOT/class/powercap whose
 * energy_uj reads, at most max of them, into zones (zeroed by the caller); returns how many. */
size_t gb__rapl_open(const char *root, struct gb__rapl_zone *zones, size_t max);
/* Reads n zones, adds each one's step since its last read (a wrap-around within its range
 * unfolded) to its total, and sets r->energy_j to the zones' totals in J when any zone read. */
void gb__rapl_read(struct gb__rapl_zone *zones, size_t n, struct gb_tel_reading *r);

/* ---- the sysfs source (telemetry_sysfs.c) --------------------------------------------------- */

struct gb__sysfs;
/* Finds the target's files; what: the kinds found ("rapl power freq ..."), or why none. The
 * result is released with free(). */
struct gb__sysfs *gb__sysfs_open(const struct gb_tel_target *t, char *what, size_t len);
void gb__sysfs_read(struct gb__sysfs *s, struct gb_tel_reading *r);

/* ---- the NVML source (telemetry_nvml.c) ----------------------------------------------------- */

struct gb__nvml;
/* Opens NVML for the device at t->pci_bus_id; NULL with *why set when it cannot. */
struct gb__nvml *gb__nvml_open(const struct gb_tel_target *t, char *why, size_t len);
void gb__nvml_close(struct gb__nvml *n); /* NULL: nothing */
void gb__nvml_read(struct gb__nvml *n, struct gb_tel_reading *r);
/* The device's state, into the fields NVML reads (the caller set the others unknown). */
void gb__nvml_state(struct gb__nvml *n, struct gb_tel_device_state *st);
/* Drains the XID events that came since the last look (none waited for: a timeout of 0); the
 * count since the session opened (-1: no event set) and the last XID (-1: none). */
void gb__nvml_xid(struct gb__nvml *n, long long *events, int *last);
/* The device's links into li: its PCIe link (current and maximum) and its active NVLink links
 * (version, remote PCI address, whether the remote is an NVSwitch); fields NVML cannot read are
 * left as the caller set them. */
void gb__nvml_links(struct gb__nvml *n, struct gb_link_info *li);

#endif
