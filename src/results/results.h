/* gpubench — results: what a run measured, and its JSON form (schema "gpubench-results/2").
 *
 * The file is written with jansson to a temporary file in the same folder, fsync'd and renamed,
 * so a reader sees either the old file or the whole new one, never half a file.
 */
#ifndef GB_RESULTS_H
#define GB_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"
#include "base/params.h"
#include "base/stats.h"
#include "backends/telemetry.h"

/* The schema written; readers also take the schema before it (GB_RESULTS_SCHEMA_V1), whose
 * files lack `regime`, count a D2D copy's bytes once and give integer rates in "GFLOP/s".
 * Published as JSON Schema in schema/gpubench-results.schema.json. */
#define GB_RESULTS_SCHEMA "gpubench-results/2"
#define GB_RESULTS_SCHEMA_V1 "gpubench-results/1"

enum gb_status { GB_STATUS_OK, GB_STATUS_SKIPPED, GB_STATUS_FAILED };

/* Multi-device cases: the most devices one case runs on at once, and the most named figures a
 * result carries beside its headline value. */
#define GB_MAX_SET 16
#define GB_MAX_FIGURES 24

/* A named figure beside the headline value: a derived number ("busbw" in GB/s, "speedup"), one
 * number per device of the case's set ("busy" seconds per device), or a text ("path": "staged").
 * JSON: {"name", "unit", "value"} for a scalar, {"name", "unit", "values": [...]} per device,
 * {"name", "text"} for a text. */
struct gb_figure {
    char name[32];
    char unit[16];   /* "GB/s", "s", "" for a ratio */
    size_t n;        /* 0: a text; 1: a scalar (v[0]); > 1: v[0..n), per device */
    bool per_device; /* v holds one value per device of the set (even when n is 1) */
    double v[GB_MAX_SET];
    char text[64];
    /* In the run only (not written to results files): the figure's bound in its unit, where the
     * suite that made it knows one (gb_result_figure_bounded, gb_case_figure_bounded); 0 when
     * it gave none, and the run's check (gb_results_check_figures, run/case_result.h) bounds it
     * by its unit. */
    double bound;
};
enum gb_better { GB_BETTER_HIGHER, GB_BETTER_LOWER };

const char *gb_status_name(enum gb_status s); /* "ok", "skipped", "failed" */

/* The name of one capability bit (GB_CAP_*, backends/backend.h) as the results file's
 * "capabilities" array writes it ("fp64", "blas_mixed", ...), or NULL for a bit that has none. */
const char *gb_cap_name(uint64_t bit);
/* The names of the bits set in caps, lowest bit first, comma-separated ("fp64,peer"); "" for
 * none. Bits without a name are left out. Truncated to len - 1 characters. Returns buf. */
char *gb_caps_text(uint64_t caps, char *buf, size_t len);

struct gb_result {
    char suite[32];
    /* The case's name: the value of the suite's case axis (gb_suite.case_axis), "" where the
     * suite names none. The params hold it too (gb_result_case_param). */
    char case_name[GB_STR_MAX];
    char backend[16];
    int device_index;                  /* index into gb_results.devices */
    struct gb_params params;           /* names point to static strings or to names_store */
    char names_store[GB_MAX_AXES][32]; /* owns param names read back from a file */
    /* Bit j set: params.v[j] (an integer) is a position in the case's device set (a peer
     * matrix's source or destination; gb_axis_def.device_pos), recorded in the file's "axes". */
    uint32_t device_pos_axes;
    enum gb_status status;
    char reason[1024];
    char metric[32]; /* "bandwidth", "throughput", "latency" */
    char unit[16];   /* "GB/s", "GFLOP/s", "GOP/s" (integer), "us" */
    enum gb_better better;
    double value;          /* the headline figure: median of samples, in unit */
    struct gb_stats stats; /* of samples, in unit; for a rate, ci95 is the CI the stopping
                                 * rule judged: op_time_us's relative ci95 times stats.mean */
    double *samples;       /* in unit, one per sample (malloc'd) */
    size_t nsamples;
    struct gb_stats op_time_us; /* microseconds per operation */
    uint64_t batch;             /* operations per sample */
    double bytes_per_op, flops_per_op;
    bool verified;
    double max_error; /* largest relative error against the reference */
    bool noisy;       /* stopped on a budget before the noise target */
    bool implausible; /* faster than the device's physical limit */
    /* Memory-hierarchy results (op.working_set > 0): "memory" when the working set is more than
     * twice the device's last-level cache, "cache" when it may be largely cache-resident,
     * "unknown" when the device reports no cache size; "" for other results (JSON: absent). */
    char regime[8];
    /* The clock the samples were taken with: "device" (the backend's events, checked when the
     * device was opened) or "host" (wall time around the work and a finish); "" for results
     * without samples and files from before it was recorded (JSON: absent). */
    char timer[8];
    double elapsed_s; /* wall time of the whole case (setup to teardown) */
    /* Multi-device cases only (nset > 0): every device that took part, as indices into
     * gb_results.devices in the order of the case's set (set[0] == device_index). JSON: the
     * "devices" array, absent for single-device cases. */
    int set[GB_MAX_SET];
    size_t nset;
    /* Named figures beside value (JSON "figures", absent when there are none). */
    struct gb_figure figures[GB_MAX_FIGURES];
    size_t nfigures;
    /* Telemetry of the timed window (JSON "telemetry", absent when it was off; tel.marks is
     * owned like samples: gb_results_add takes it). */
    struct gb_tel_summary tel;
};

struct gb_result_device {
    char backend[16];
    int index; /* the backend's device index */
    struct gb_device_info info;
};

struct gb_run_meta {
    char gpubench_version[32];
    char git_commit[48];
    char start_utc[32]; /* ISO 8601, "2026-11-30T04:00:00Z" */
    char end_utc[32];
    char host[256];
    char os[256];
    char command_line[2048];
    char profile_path[1024];
    char profile_name[128];
    char profile_sha256[65];
    /* True unless the run reached its end: the file rewritten after every case says true, so a
     * run stopped by Ctrl-C, SIGTERM, a kill or a crash is never mistaken for a complete one. */
    bool interrupted;
    uint64_t cases_planned; /* cases the plan held; results[] may hold fewer if interrupted */
    struct gb_tel_machine machine; /* JSON "machine", absent when !machine.recorded */
};

/* Whether a and b are the same run (a file and its copy): the same host, start time and profile
 * (name and SHA-256). A run without a start time is nobody's copy. */
bool gb_run_same(const struct gb_run_meta *a, const struct gb_run_meta *b);

/* A suite's chart hint as the results file records it ("charts"; run/suite.h). */
#define GB_MAX_CHART_HINTS 32
struct gb_chart_note {
    char suite[32];
    char kind[8]; /* "bars" or "line" */
    char x[32];   /* line: the axis along x */
};

struct gb_results {
    struct gb_run_meta run;
    struct gb_chart_note charts[GB_MAX_CHART_HINTS];
    size_t ncharts;
    size_t charts_dropped; /* hints a file had beyond GB_MAX_CHART_HINTS (read, not kept) */
    struct gb_result_device *devices;
    size_t ndevices;
    struct gb_result *results;
    size_t nresults, cap;
};

/* How a device is known across runs (gb_device_identity): by its UUID, by its PCI address, or,
 * when the backend gives neither (PoCL's CPU devices, an older file), by backend and index. */
enum gb_id_kind { GB_ID_UUID, GB_ID_PCI, GB_ID_INDEX };

/* The stable identity of device d into buf[len]: its UUID, else "pci:" and its PCI address, else
 * "<backend>:<index>" ("opencl:1", the backend's index, which does not change between runs on one
 * host while the devices and drivers do not); returns which. The results file records the kind
 * per device as "identity": "uuid" | "pci" | "index". */
enum gb_id_kind gb_device_identity(const struct gb_result_device *d, char *buf, size_t len);
/* "uuid", "pci", "index". */
const char *gb_id_kind_name(enum gb_id_kind k);

/* Appends a copy of *r (taking ownership of r->samples; r->samples is set to NULL). */
int gb_results_add(struct gb_results *rs, struct gb_result *r);
/* Appends a device and returns its index in rs->devices via *idx. */
int gb_results_add_device(struct gb_results *rs, const char *backend, int index,
                          const struct gb_device_info *info, int *idx);
void gb_results_free(struct gb_results *rs);

/* ---- one result, filled in ----------------------------------------------------------------- */

/* The regime of a working set of ws bytes on a device whose last-level cache holds llc bytes:
 * "memory" when ws > 2 llc (at most half of it can stay in the cache, so the rate is that of
 * the memory behind it), "cache" when ws <= 2 llc, "unknown" when llc is 0; "" when ws is 0 (not
 * a memory-hierarchy case). */
const char *gb_result_regime(double ws, uint64_t llc);

/* The figure of r called `name`, or NULL. */
const struct gb_figure *gb_result_figure_get(const struct gb_result *r, const char *name);
/* The value of r's scalar figure `name` (n == 1) when it is finite, else NAN (absent, a text,
 * per device, or not finite: a results file's figure is only what it says). */
double gb_result_scalar(const struct gb_result *r, const char *name);

/* Which of r's params names its case: the first string param whose value is r's case_name, or
 * r->params.n when the case has no name (or no param holds it). From the result alone, never a
 * suite table, so that it holds for the files of suites this build does not have. A reader that
 * shows the case by its name leaves this param out of the params it lists beside it. */
size_t gb_result_case_param(const struct gb_result *r);
/* r's params, in order, without the one that names its case (gb_result_case_param). */
void gb_result_other_params(const struct gb_result *r, struct gb_params *out);

/* Adds a scalar figure to a result (at most GB_MAX_FIGURES; more are dropped). */
void gb_result_figure(struct gb_result *r, const char *name, const char *unit, double value);
/* gb_result_figure with the figure's bound in its unit (> 0; the run fails the result as
 * implausible when value exceeds it, gb_results_check_figures). */
void gb_result_figure_bounded(struct gb_result *r, const char *name, const char *unit, double value,
                              double bound);
/* Adds a text figure to a result. */
void gb_result_text(struct gb_result *r, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Marks r failed in stage `what` ("setup", "measure", "verify") with error err: its reason
 * becomes "<what>: <gb_strerror(err)>: <gb_error_msg()>", the detail left out when empty. */
void gb_result_fail(struct gb_result *r, int err, const char *what);

/* Writes rs to `path` atomically. Returns 0 or GB_EIO with the detail. */
int gb_results_write(const struct gb_results *rs, const char *path);
/* Reads a results file. GB_EIO (unreadable), GB_ESCHEMA (not JSON, truncated, wrong schema,
 * missing fields) with a message naming the file and what is wrong. */
int gb_results_read(const char *path, struct gb_results *out);
/* What gb_results_read_opts leaves out. */
enum {
    /* Of each result only what identifies its case (suite, case, backend, device, devices,
     * params), its status, metric, unit, better and value, the required verified and noisy, and
     * of its telemetry the counts of readings and throttled samples (the result's tel.on,
     * tel.nreadings and tel.nthrottled; the rest of tel zeroed): every other member is lexed for its structure only (a file
     * whose brackets, commas or tokens are wrong is still refused; a string there that is no
     * UTF-8, a duplicate key, a number out of range or a member missing or of the wrong type
     * is not, as json_load.h says) and not kept, so the result has no samples, zeroed
     * statistics, no figures and an empty reason. The run, devices, axes and charts are read whole. What a
     * fleet of thousands of files needs of each (fleet.h), in a fifth of the time. */
    GB_READ_HEADLINES = 1u << 0,
};
/* gb_results_read, leaving out what `flags` (GB_READ_*) name; 0: all of it. */
int gb_results_read_opts(const char *path, unsigned flags, struct gb_results *out);
/* Reads the n results files paths[0..n) into out[0..n) as gb_results_read does each, several at
 * once (a thread each, as many as the machine has CPUs, at most 4). On an error every out[k] is
 * freed and zeroed, and the error and message are those of the first file in order that failed,
 * as reading the files in turn would give. n == 0 reads nothing and returns 0 (paths and out may
 * then be NULL); GB_EINVAL when n > 0 and either is NULL. */
int gb_results_read_all(const char *const *paths, size_t n, struct gb_results *out);

/* SHA-256 of a file as 64 lowercase hex digits. */
int gb_sha256_file(const char *path, char hex[65]);

#endif
