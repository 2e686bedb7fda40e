/* gpubench — telemetry: clocks, power, energy, temperature and throttling beside every result.
 *
 * One small interface over several optional sources, each loaded only when present:
 * - "nvml": NVIDIA's management library, loaded with dlopen() at run time (libnvidia-ml.so.1, or
 *   the file named by $GPUBENCH_NVML_LIB), the device found by its PCI bus id;
 * - "sysfs": Linux sysfs under $GPUBENCH_SYSFS_ROOT (default /sys): for a GPU with a PCI bus id
 *   its hwmon files (AMD, Intel: power, energy, frequency, temperature); for a CPU device (no PCI
 *   bus id, not CUDA) the powercap RAPL package energy counters, cpufreq and hwmon temperatures.
 * A source that is absent says why ("unavailable (reason)"); opening never fails for that.
 *
 *   gb_tel_open(target) -> gb_tel_read() ... or gb_tel_sampler_start/stop -> gb_tel_close()
 *
 * Units: clocks in MHz, power in W, temperature in degrees C, energy in J, times in seconds of
 * gb_now() (base/units.h). A quantity a source does not read is NaN.
 */
#ifndef GB_TELEMETRY_H
#define GB_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The quantities sampled, in JSON order. GB_TQ_CLOCK is the SM / graphics clock of a GPU or the
 * mean current frequency of the CPUs; it is the one the throttle rule watches. */
enum gb_tel_q { GB_TQ_CLOCK, GB_TQ_MEM_CLOCK, GB_TQ_POWER, GB_TQ_TEMP, GB_TQ_COUNT };
/* "clock_mhz", "mem_clock_mhz", "power_w", "temp_c". */
const char *gb_tel_q_name(enum gb_tel_q q);

enum gb_throttle_policy { GB_THROTTLE_KEEP, GB_THROTTLE_DISCARD, GB_THROTTLE_FAIL };
const char *gb_throttle_policy_name(enum gb_throttle_policy p); /* "keep", "discard", "fail" */

/* The profile's `telemetry:` mapping (run/config.h). */
struct gb_tel_cfg {
    bool enabled;                        /* `enabled:` (default true) */
    double period;                       /* `period:` seconds between readings (default 20 ms) */
    enum gb_throttle_policy on_throttle; /* `on_throttle:` (default keep, marked) */
    double clock_floor; /* `clock_floor:` a reading whose clock is below this fraction
                                   * of the case's median clock is throttled (default 0.9) */
    /* `energy_window:` after its samples a case runs its operation on, untimed and outside the
     * statistics, until the telemetry window lasts this long (seconds, at most 10; 0: off, the
     * default), so that a coarse source gives an energy for a short case too: NVML needs 1 s
     * (gb_tel_window_energy); 1.2s leaves room. The energy per operation and perf per watt
     * then count those operations too (gb_measurement.extra_ops). */
    double energy_window;
};
extern const struct gb_tel_cfg gb_tel_defaults;

/* NVML clock event ("throttle") reason bits, from nvml.h / the NVML API reference
 * ("nvmlClocksEventReasons", docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html):
 * GpuIdle 0x1, ApplicationsClocksSetting 0x2, SwPowerCap 0x4, HwSlowdown 0x8, SyncBoost 0x10,
 * SwThermalSlowdown 0x20, HwThermalSlowdown 0x40, HwPowerBrakeSlowdown 0x80. */
#define GB_TEL_REASON_IDLE UINT64_C(0x1)

/* One reading of a device. */
struct gb_tel_reading {
    double t;              /* gb_now() when it was taken */
    double q[GB_TQ_COUNT]; /* NaN: not read */
    double energy_j;       /* a cumulative energy counter, wrap-arounds unfolded; NaN: none */
    uint64_t reasons;      /* throttle reason bits (NVML), valid when has_reasons */
    bool has_reasons;
    int pcie_gen, pcie_width; /* the current PCIe link (NVML); -1: not read */
};

#define GB_TEL_NSRC 2
struct gb_tel_source_status {
    char name[16]; /* "nvml", "sysfs" */
    bool available;
    char reason[192]; /* why not, when !available; what it reads, when available */
};

/* What the device is, for finding its sources. */
struct gb_tel_target {
    bool nvidia;            /* the backend's devices are all NVIDIA GPUs (facts.nvidia_gpus) */
    const char *vendor;     /* the device's vendor string (may be NULL) */
    const char *pci_bus_id; /* "0000:65:00.0", "" or NULL when unknown (a CPU device) */
};

/* The device's state, where readable (the results' run section). Unknown numbers are NaN or -1,
 * unknown strings "". */
struct gb_tel_device_state {
    int device;               /* index into gb_results.devices; -1: unused slot */
    char driver[80];          /* NVML's driver version ("580.65.06") */
    double power_limit_w;     /* enforced power limit */
    double sm_clock_max_mhz;  /* the highest SM clock the device may run at */
    double sm_app_clock_mhz;  /* the applications (locked) SM clock target */
    int persistence;          /* 1 on, 0 off, -1 unknown */
    int ecc;                  /* 1 on, 0 off, -1 unknown */
    int pcie_gen, pcie_width; /* current link when first read (often idle); -1 unknown */
    int processes;            /* compute processes on the device; -1 unknown */
    /* Health (NVML): the link's maximum, the best link read while a host-link case
     * (a transfer) ran with telemetry (an idle GPU lowers its generation to save power: only a
     * loaded reading says whether it trained down), uncorrected ECC errors since the driver
     * loaded (volatile) and over the device's life (aggregate), corrected ones since loading,
     * retired pages pending a reboot (before Ampere), row remaps pending a reset and a remap that
     * failed (Ampere and later), the default power limit. -1 / NaN unknown. */
    int pcie_gen_max, pcie_width_max;
    int pcie_gen_load, pcie_width_load;
    long long ecc_uncorrected_volatile, ecc_uncorrected_aggregate, ecc_corrected_volatile;
    int retired_pending, remap_pending, remap_failure;
    double power_default_w;
    /* XID events (critical errors the driver reports: nvmlEventTypeXidCriticalError) seen by
     * this process while it measured the device, from its session's first reading to the last
     * case with telemetry; the code of the last one. -1: not read (no NVML, or its event set
     * could not be made: no permission, a driver without events). */
    long long xid_events;
    int xid_last;
};

#define GB_TEL_MAX_DEVS 16
/* The machine's state at the start of a run (gb_run_meta.machine). */
struct gb_tel_machine {
    bool recorded;     /* false: nothing was recorded (a file from before telemetry) */
    char governor[32]; /* cpufreq governor of cpu0 ("" unknown) */
    int turbo;         /* 1 on, 0 off, -1 unknown (intel_pstate/no_turbo, cpufreq/boost) */
    double loadavg[3]; /* 1, 5, 15 minutes; NaN unknown */
    struct gb_tel_device_state dev[GB_TEL_MAX_DEVS];
    size_t ndev;
};

/* Fills the CPU part of m (governor, turbo, load average) from sysfs and getloadavg(). */
void gb_tel_machine_read(struct gb_tel_machine *m);

/* ---- a device's session ------------------------------------------------------------------- */

struct gb_tel_session;

/* Opens every source for target t. Absent sources are recorded as unavailable with the reason;
 * the only error is GB_ENOMEM. Close with gb_tel_close(). */
int gb_tel_open(const struct gb_tel_target *t, struct gb_tel_session **out);
void gb_tel_close(struct gb_tel_session *s);
/* The sources' status, GB_TEL_NSRC of them, into st; returns whether any is available. */
bool gb_tel_sources(const struct gb_tel_session *s, struct gb_tel_source_status st[GB_TEL_NSRC]);
/* Takes one reading now (every available source). Not thread-safe per session: the sampler
 * reads from its thread only while it runs. */
void gb_tel_read(struct gb_tel_session *s, struct gb_tel_reading *r);
/* The device's state (driver, power limit, clocks lock, ...); device is set to -1. */
void gb_tel_state(struct gb_tel_session *s, struct gb_tel_device_state *st);
/* The XID events the device's session has seen since it opened (*events; -1: not read) and the
 * code of the last (*last; -1: none), after draining those that came since the last look. Not
 * while the sampler runs (as gb_tel_read). */
void gb_tel_xid(struct gb_tel_session *s, long long *events, int *last);

/* The session of an open device, opened on first use and kept until gb_tel_close_all() (one per
 * (backend, device index)); NULL when out of memory. Thread-safe. */
struct gb_device;
struct gb_tel_session *gb_tel_session_for(const struct gb_device *dev);
void gb_tel_close_all(void);

/* ---- sampling in the background ----------------------------------------------------------- */

/* The readings of one timed window and the sample windows inside it (measure.c fills t0/t1). */
struct gb_tel_trace {
    bool on; /* telemetry ran for this measurement */
    struct gb_tel_source_status src[GB_TEL_NSRC];
    struct gb_tel_reading *r; /* malloc'd, time order */
    size_t n;
    double *t0, *t1; /* per timed sample, gb_now() before and after (malloc'd) */
    size_t nsamples;
};
void gb_tel_trace_free(struct gb_tel_trace *tr);

struct gb_tel_sampler;
/* Takes a first reading now, then one every `period` seconds on a background thread. When no
 * source is available no thread is started. Returns 0 or GB_ENOMEM / GB_EIO (thread). */
int gb_tel_sampler_start(struct gb_tel_session *s, double period, struct gb_tel_sampler **out);
/* Stops the thread, takes a last reading now and moves the readings and the sources' status
 * into tr (tr->r, tr->n, tr->src; t0/t1 untouched). Frees the sampler. */
void gb_tel_sampler_stop(struct gb_tel_sampler *sp, struct gb_tel_trace *tr);

/* ---- from a trace to a result's figures (pure functions) ---------------------------------- */

struct gb_tel_range {
    size_t n; /* readings that had the quantity; 0: not measured */
    double min, mean, max;
};

/* A result's telemetry (JSON "telemetry", absent when telemetry was off). */
struct gb_tel_summary {
    bool on;
    struct gb_tel_source_status src[GB_TEL_NSRC];
    size_t nreadings;
    double window_s; /* from the first reading to the last */
    struct gb_tel_range q[GB_TQ_COUNT];
    double energy_j;             /* over the timed window; NaN when nothing measured it */
    char energy_method[16];      /* "counter" (a counter's delta), "power" (the integral of power),
                               * "" (none) */
    char energy_note[256];       /* why there is no energy figure (gb_tel_window_energy), or "" */
    uint64_t extra_ops;          /* operations run after the samples for energy_window */
    double energy_per_op_j;      /* energy_j / the operations run in the window; NaN none */
    double perf_per_watt;        /* work in the window / energy_j: (GB/s)/W = GB/J; NaN none */
    char perf_per_watt_unit[24]; /* "GB/s/W", "GFLOP/s/W" */
    size_t nthrottled;           /* samples marked throttled (before any discard) */
    size_t ndiscarded;           /* samples dropped by on_throttle: discard */
    char note[192];              /* what the policy did, e.g. why throttled samples were kept */
    unsigned char *marks;        /* one per result sample, 1 = throttled (malloc'd; NULL: none) */
    size_t nmarks;
};
void gb_tel_summary_free(struct gb_tel_summary *s);

/* Energy over readings r[0..n): the delta of the energy counter between the first and the last
 * reading that have it (method "counter"), else the trapezoid integral of power over the
 * readings that have it ("power"), else NaN (""). */
double gb_tel_energy(const struct gb_tel_reading *r, size_t n, const char **method);

/* The interval over which NVML's power reading is averaged on Ampere (except GA100) and later
 * GPUs: 1 s (NVML API reference, nvmlDeviceGetPowerUsage). */
#define GB_TEL_NVML_POWER_AVG_S 1.0
/* The most power a reading or an energy figure may show before it is taken for a broken source
 * (10 kW: well above any GPU board or CPU package). */
#define GB_TEL_MAX_POWER_W 10000.0
/* How many reading intervals the counter's steps must span before its rate is trusted: the time
 * of each step is known to one reading interval, so the rate is within 2/20 = 10%. */
#define GB_TEL_COUNTER_SPAN_INTERVALS 20

/* The energy of the timed window r[0].t .. r[n-1].t, or NaN with the reason in why[0..len)
 * (why is "" when a figure is given). Unlike gb_tel_energy, it gives no figure that the readings
 * cannot support:
 * - "counter", a fine counter (coarse false: RAPL's and hwmon's, current to about a millisecond):
 *   its delta between the first and last reading, as gb_tel_energy;
 * - "counter", a coarse counter (coarse true: NVML's total energy, which steps about every
 *   100 ms on an H200 with driver 580): its rate between its first and last step seen,
 *   (E_last - E_first) / (t_last - t_first), times the window, and only when those steps span
 *   at least GB_TEL_COUNTER_SPAN_INTERVALS reading intervals (the trace's longest);
 * - "power": else the trapezoid integral of power, when the window is at least power_avg_s
 *   (the interval the source averages power over; 0: instantaneous) and two readings have it.
 * A 10 ms window on NVML therefore has no energy: its counter delta is 0 or a whole 100 ms step,
 * and its power reading is mostly the second before the case. An energy below 0 or above
 * GB_TEL_MAX_POWER_W over the window is none either (a counter reset read as a wrap). */
double gb_tel_window_energy(const struct gb_tel_reading *r, size_t n, bool coarse,
                            double power_avg_s, const char **method, char *why, size_t len);

/* Whether each reading is throttled, into thr[0..n): a throttle reason other than GpuIdle, or a
 * clock below clock_floor times the median clock of the readings. Returns how many are. */
size_t gb_tel_reading_throttled(const struct gb_tel_reading *r, size_t n, double clock_floor,
                                bool *thr);

/* Marks the timed samples [t0[i], t1[i]] of tr that ran while the device was throttled, into
 * marks[0..tr->nsamples): a sample is throttled when a throttled reading falls inside its
 * window, or when the last reading before its start is throttled (the state in effect while it
 * ran). Returns how many are marked. */
size_t gb_tel_mark(const struct gb_tel_trace *tr, double clock_floor, unsigned char *marks);

/* The PCIe link of the device at PCI address pci_bus_id ("dddd:bb:dd.f"), from sysfs
 * ($GPUBENCH_SYSFS_ROOT, default /sys: bus/pci/devices/ID/current_link_speed, "32.0 GT/s PCIe",
 * and current_link_width): its data rate per direction in GB/s, lanes x GT/s x the line
 * encoding / 8, the encoding 8b/10b up to 5 GT/s (PCIe 1.x, 2.x) and 128b/130b from 8 GT/s
 * (PCIe 3.0 to 5.0; PCI Express Base Specification 3.0, 4.2.2; 6.0's FLIT mode is counted the
 * same, an upper bound). Gen5 x16: 32 x 16 x 128/130 / 8 = 63.0 GB/s. It bounds what a copy
 * can move, before packet overheads (TLP headers, flow control: a copy reaches about 85-90% of
 * it). Returns 0 with the reason in why[0..len) when the address or the files are missing or
 * unreadable; on success `how` gets "PCIe 32 GT/s x16" (why and how may be the same buffer). */
double gb_tel_pcie_link_gbs(const char *pci_bus_id, char *how, size_t len);

/* Unfolds a wrapping counter: the delta from `prev` to `cur` of a counter that wraps at `range`
 * (cur < prev means it wrapped once; range 0: no wrap known, the delta is then 0). */
uint64_t gb_tel_counter_delta(uint64_t prev, uint64_t cur, uint64_t range);

/* ---- a measured case's result (telemetry_result.c) ---------------------------------------- */

struct gb_result;
struct gb_case_ctx;
struct gb_measurement;

/* Before gb_result_fill_metric(): when m->tel.on, fills r->tel from m's trace: the sources'
 * status, min/mean/max per quantity, the energy of the timed window (gb_tel_energy), the energy
 * per operation (over the m->n * m->batch operations of the window) and the perf per watt (GB or
 * GFLOP of those operations per joule, i.e. (GB/s)/W, by the rule of gb_result_fill_metric:
 * bytes first, then flops; none for a latency), and the throttle marks (gb_tel_mark). With
 * on_throttle: discard, the marked samples are dropped from m (op_time and the windows) unless
 * fewer than max(1, min_samples) would remain: then every sample is kept and r->tel.note says
 * why. Returns 0 or GB_ENOMEM. */
int gb_result_telemetry(struct gb_result *r, const struct gb_case_ctx *ctx,
                        struct gb_measurement *m, const struct gb_tel_cfg *cfg,
                        uint32_t min_samples);

/* After gb_result_verified(): with on_throttle: fail, an ok result with throttled samples fails
 * ("throttled: K of N samples ..."). */
void gb_result_throttle_verdict(struct gb_result *r, const struct gb_tel_cfg *cfg);

/* Records the state of the device of the case (its telemetry session) in m->dev for results
 * device index `device`, once per device. */
void gb_tel_machine_device(struct gb_tel_machine *m, int device, const struct gb_device *dev);
/* Raises device `device`'s loaded link (pcie_gen_load, pcie_width_load) in m to the best link
 * of the readings of tr: called for the cases that cross the host link (transfers), whose
 * readings are the link under load. */
struct gb_tel_trace;
void gb_tel_machine_link(struct gb_tel_machine *m, int device, const struct gb_tel_trace *tr);
/* Brings m's XID count for `device` (recorded by gb_tel_machine_device) up to its session's
 * (gb_tel_xid): after each case with telemetry, so that the run's file says what came while it
 * measured. */
void gb_tel_machine_xid(struct gb_tel_machine *m, int device, const struct gb_device *dev);

/* ---- topology: the link between two devices (telemetry_topo.c) ---------------------------- */

/* NVML_NVLINK_MAX_LINKS: the links NVML numbers per device (18 since Hopper). */
#define GB_NVLINK_MAX_LINKS 18

/* One active NVLink link of a device. */
struct gb_link_nvlink {
    int index;       /* NVML's link number, 0 .. GB_NVLINK_MAX_LINKS - 1 */
    int version;     /* the NVLink generation (4 on Hopper); 0 unknown */
    bool to_switch;  /* the remote end is an NVSwitch (every GPU behind it is reachable) */
    char remote[32]; /* the remote end's PCI address as NVML gives it ("00000000:18:00.0") */
};

/* What a device's links are, as NVML reads them (gb_tel_links) or a test builds them. */
struct gb_link_info {
    bool known;                       /* NVML read the device; false: why says why not */
    char why[160];                    /* why NVML could not read it, when !known */
    char pci_bus_id[32];              /* the device's own PCI address ("0000:17:00.0") */
    int pcie_gen, pcie_width;         /* the current PCIe link; -1 unknown */
    int pcie_gen_max, pcie_width_max; /* the most the slot and device train to; -1 unknown */
    int nlinks;                       /* active NVLink links in link[0..nlinks) */
    struct gb_link_nvlink link[GB_NVLINK_MAX_LINKS];
};

/* What kind of link joins two devices (gb_topology_describe's return). */
enum gb_link_kind { GB_LINK_UNKNOWN, GB_LINK_PCIE, GB_LINK_NVLINK };

/* Whether two PCI addresses "domain:bus:device.function" (hex; a domain of 4 or 8 digits, as
 * CUDA and NVML write it) name the same function. False when either does not parse. */
bool gb_pci_same(const char *a, const char *b);

/* Reads the links of the device of target t through NVML (opened as the "nvml" source is, and
 * closed again: cheap while a telemetry session holds it). Sets li->known, or li->why ("the
 * device has no PCI bus id (not a PCI GPU)") when NVML cannot read it. */
void gb_tel_links(const struct gb_tel_target *t, struct gb_link_info *li);

/* Describes the link between the devices a and b into out[0..len) (a pure function):
 * - "NVLink4 x18": the active links of a whose remote is b (or b's links to a when a names none,
 *   counted from the end that saw more), with the lowest version among them (0: "NVLink x18");
 * - "NVLink4 x18 via NVSwitch": no direct link, but both ends have active links to an NVSwitch
 *   (the lesser count of the two ends);
 * - "PCIe Gen5 x16": no NVLink between them, the lesser of the two ends' current PCIe links
 *   (generation and width each); " (max Gen5 x16)" follows when either end runs below its own
 *   maximum (an idle GPU lowers its generation to save power);
 * - "unknown: no NVML for 0000:17:00.0 (why)" ("unknown: no NVML (why)" for a device without a
 *   PCI address) when either end was not read, "unknown: no PCIe link read"
 *   when no NVLink joins them and a PCIe figure is missing.
 * Returns the kind (GB_LINK_UNKNOWN for the last). */
enum gb_link_kind gb_topology_describe(const struct gb_link_info *a, const struct gb_link_info *b,
                                       char *out, size_t len);

/* The link between two devices of one backend, read now (gb_tel_links on each, then
 * gb_topology_describe) into out[0..len): "NVLink4 x18", "PCIe Gen5 x16", or "unknown: no NVML
 * (...)" on a device without it (PoCL's CPU devices: no PCI bus id). Sources: NVML's NVLink and
 * PCIe calls ($GPUBENCH_NVML_LIB names another library, as for telemetry). Returns the kind. */
struct gb_device_info;
enum gb_link_kind gb_topology_pair(const struct gb_device_info *a, const struct gb_device_info *b,
                                   char *out, size_t len);

#endif
