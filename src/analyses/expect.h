/* gpubench — "is this GPU normal?": expectations per device model from reference runs, and the
 * acceptance verdict of one run against them, so that a GPU is judged by what its model gives.
 *
 * Expectations (gb_expect_build): reference results files reduced, per case identity (suite,
 * case, backend, device name — the model —, params and unit: merge.h's identity, the slot left
 * out, so that every device of one model counts), to the median of the runs' headline values,
 * their robust spread, the number of runs, their range and the drivers they ran on. Only results
 * that are ok, verified, plausible and finite count. Files are read one at a time and freed:
 * memory grows with cases x runs, never with the samples.
 *
 * The spread, in log performance (x = ln value; a time's reciprocal has the same spread):
 *   spread = b_n * 1.4826 * MAD(x_i)            (robust.h: Hampel's MAD with Croux & Rousseeuw's
 *                                                small-sample factor; 0 for fewer than 3 runs)
 *   noise  = median of the runs' own relative CI95 half-widths
 *   floor  = the model's typical spread: the median spread of its cases of 3 runs or more (a
 *            case's MAD from a few runs is itself noisy; no case of a model is steadier than
 *            the model's median case is assumed to be)
 * all roughly relative (0.03: 3%). A run is counted once: a file whose run is one already read
 * (gb_run_same: host, start time and profile, on the same devices) or whose figures are those of one already read
 * (every result's identity, value and noise) is a copy, left out and named.
 *
 * The verdict of one result (gb_expect_judge), in log performance perf = value, or 1/value for a
 * lower-is-better metric, against m = the expected median's perf, lo and hi the lowest and
 * highest reference runs' perf:
 *   s    = max(spread, noise, floor, the result's own noise, 0.5%)
 *   low  = max(ln(1 + tolerance), ln(m / lo) + mads * s)     (tolerance per suite, default 5%;
 *   high = max(ln(1 + tolerance), ln(hi / m) + mads * s)      mads 3)
 *   x    = ln(perf / m);  z = x / s;  change = perf / m - 1
 *   LOW  x < -low;  HIGH  x > high;  NORMAL otherwise.
 * The band holds every reference run and reaches mads spreads beyond the lowest and the highest:
 * a new run of a healthy device falls below the lowest of N reference runs one time in N + 1,
 * and on a shared machine by tens of percent, so the edge is past the range, not at it (measured
 * by leaving each reference run out in turn: docs/expect.md). An expectation of fewer than 3
 * runs has no spread and no range: UNKNOWN, said so.
 * Before that, IMPLAUSIBLE: the result says so (it beat its bound when it was measured), or it
 * carries a bound (its scalar figure "peak" in its own unit, a higher-is-better rate) and
 * gb_rate_implausible(value, peak). Without an expectation for its model the result is not
 * judged: UNKNOWN, its share of the bound given (a bound says what is impossible, not what is
 * normal: a 256^3 GEMM at 2% of its peak may be the device's normal). A failed result is FAILED,
 * a skipped one SKIPPED.
 *
 * The gate (`gpubench check`, exit 3): any LOW, IMPLAUSIBLE or FAILED. HIGH, UNKNOWN and SKIPPED
 * are listed and pass: a figure above its model's band is news, not a fault (IMPLAUSIBLE is
 * where faster is wrong). A check in which no result was judged against a reference says so
 * instead of "normal".
 */
#ifndef GB_EXPECT_H
#define GB_EXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analyses/merge.h"
#include "results/results.h"

#define GB_EXPECT_SCHEMA "gpubench-expect/1"
/* Where `check` and `report` look for expectations when none is named (from the folder they run
 * in: the repository's own, results/reference/README.md). */
#define GB_EXPECT_DEFAULT_PATH "results/reference/expectations.json"
#define GB_EXPECT_MAX_DRIVERS 8

/* The expectation of one case on one device model. */
struct gb_expect_case {
    char *suite, *case_name, *backend, *device, *params, *unit;
    enum gb_better better;
    size_t n;                             /* reference runs (results) that had it ok */
    double median;                        /* of their headline values, in unit */
    double spread;                        /* b_n 1.4826 MAD of ln value (0 for n < 3): ~ relative */
    double noise;                         /* median of their relative CI95 half-widths */
    double floor;                         /* the model's median spread (its cases of 3+ runs) */
    double min, max;                      /* of their values */
    char *drivers[GB_EXPECT_MAX_DRIVERS]; /* distinct driver versions, first seen first */
    size_t ndrivers;
    /* While building: every run's value, noise and source (the run's file and the device's
     * index: file << 12 | device), freed by gb_expect_finish. */
    double *v, *nz;
    size_t *src;
    size_t cap;
};

/* One device model's runs as wholes: each reference run's (each device's) shift, the median
 * over the model's cases of 3+ runs of ln(perf / the case's median perf) — how fast that run
 * was as a whole —, their lowest and highest, and their spread: the larger of b_n 1.4826 MAD and
 * range / d_n (the control-chart constant d2 of n normal draws, ASTM E2587; d_10 beyond ten: a
 * wider band), from 3 runs (0 below). A run's shifts are bimodal on a shared machine (quiet
 * runs and busy ones), where the MAD alone sees only the larger mode. */
struct gb_expect_model {
    char *backend, *device;
    size_t runs;  /* reference runs (devices of the model in them) with a shift */
    size_t cases; /* the model's cases of 3+ runs */
    double shift_min, shift_max, shift_spread;
};

/* A run read while building: what identifies it (gb_run_same's fields) and its figures. */
struct gb_expect_run {
    char start_utc[40], host[256], profile_name[128], profile_sha256[65];
    unsigned long long digest;  /* FNV-1a of every result's identity, status, value and noise */
    unsigned long long devices; /* FNV-1a of its devices' identities (gb_device_identity) */
    size_t nresults;
    char *path;
};

struct gb_expect {
    struct gb_expect_case *c;
    size_t n, cap;
    struct gb_strtab keys; /* key i is case i */
    size_t files;          /* reference files read */
    size_t results;        /* results counted */
    size_t left_out;       /* results not ok, unverified, implausible or not finite */
    /* Read back (gb_expect_read): cases left out as unusable (a field missing or of the wrong
     * type, a median that is no positive number, ...) and as a second entry of a case. */
    size_t invalid, duplicates;
    /* Building: the runs read (their identity and a digest of their figures), and the files
     * left out as copies of one of them, "B: a copy of A (...)" each. */
    struct gb_expect_run *runs;
    size_t nruns, runs_cap;
    char **copies;
    size_t ncopies, copies_cap;
    struct gb_expect_model *models;
    size_t nmodels, models_cap;
};

/* The key of result r of rs: suite, case, backend, device name, params and unit, separated by
 * 0x1f, into buf (merge.h's identity without the slot). */
void gb_expect_key(const struct gb_results *rs, const struct gb_result *r, char *buf, size_t len);

void gb_expect_init(struct gb_expect *e);
void gb_expect_free(struct gb_expect *e);
/* Adds the results of one read file, named path (for the note; NULL: "a file"), unless its run
 * is one already added — the same run (gb_run_same) or the same figures (every result's
 * identity, status, value and noise): a copy, left out, counted in e->ncopies and named in
 * e->copies[]. 0 or GB_ENOMEM. */
int gb_expect_add(struct gb_expect *e, const struct gb_results *rs, const char *path);
/* Reads path and adds it (the file freed after). 0, GB_EIO / GB_EINVAL naming the file, or
 * GB_ENOMEM. */
int gb_expect_add_file(struct gb_expect *e, const char *path);
/* Computes every case's median, spread, noise, range and its model's floor; frees the per-run
 * values. */
int gb_expect_finish(struct gb_expect *e);

/* Writes the expectations as JSON (schema GB_EXPECT_SCHEMA): {"schema", "files", "cases": [{
 * "suite", "case", "backend", "device", "params", "unit", "better", "runs", "median",
 * "spread", "noise", "min", "max", "drivers": [...]}]}. 0 or GB_EIO. */
int gb_expect_write_json(FILE *f, const struct gb_expect *e);
/* Reads what gb_expect_write_json wrote into *e (finished, the models' floors computed). A case
 * that is invalid (a field missing or of the wrong type, a median that is not a positive finite
 * number, a spread or noise that is negative, not finite or above 5, over-long text) is left
 * out and counted in e->invalid, a second entry of a case in e->duplicates (the first stands);
 * both in e->left_out. 0, GB_EIO (unreadable, not JSON), GB_EINVAL (another schema),
 * GB_ENOMEM. */
int gb_expect_read(const char *path, struct gb_expect *e);
/* The runs-as-wholes of a device model (backend and device name), or NULL. */
const struct gb_expect_model *gb_expect_model_find(const struct gb_expect *e, const char *backend,
                                                   const char *device);
/* The expectation for key (gb_expect_key), or NULL. */
const struct gb_expect_case *gb_expect_find(const struct gb_expect *e, const char *key);

/* ---- the verdict ------------------------------------------------------------------------------ */

enum gb_expect_verdict {
    GB_EXPECT_NORMAL,
    GB_EXPECT_LOW,
    GB_EXPECT_HIGH,
    GB_EXPECT_IMPLAUSIBLE,
    GB_EXPECT_UNKNOWN,
    GB_EXPECT_FAILED,
    GB_EXPECT_SKIPPED,
    GB_EXPECT_VERDICTS
};

/* "NORMAL", "LOW", ... */
const char *gb_expect_verdict_name(enum gb_expect_verdict v);

#define GB_EXPECT_MAX_SUITE_TOLERANCES 32

struct gb_check_opts {
    double tolerance; /* the band's floor, relative; default 0.05 */
    struct {
        char suite[32];
        double tolerance;
    } suite_tolerance[GB_EXPECT_MAX_SUITE_TOLERANCES];
    size_t nsuite_tolerances;
    double mads; /* the band beyond the reference runs' range, in spreads; default 3 */
};

void gb_check_opts_default(struct gb_check_opts *o);
/* Sets option `name` ("tolerance" 0.05 or 5%, in (0, 10]; "suite-tolerance" SUITE=T; "mads"
 * (0, 100]) from value. 0, or GB_EINVAL naming "--name". */
int gb_check_set_option(struct gb_check_opts *o, const char *name, const char *value);
double gb_check_tolerance(const struct gb_check_opts *o, const char *suite);

/* The judgement of one value (a pure function). */
struct gb_expect_judgement {
    enum gb_expect_verdict verdict; /* NORMAL, LOW, HIGH, IMPLAUSIBLE or UNKNOWN */
    double expected;                /* the expected median (reference) or the bound; unit */
    double change;                  /* perf / expected perf - 1: negative is worse; NAN none */
    double z;                       /* ln(perf / m) / s; NAN against a bound */
    double band;     /* the band below m, relative (e^low - 1); NAN when not judged */
    double of_bound; /* value / bound; NAN when there is no bound */
};

/* Judges `value` (unit of e, `noise` its own relative noise) against e (NULL: none) and its
 * bound (`bound` in the same unit, 0 or NAN: none; only for higher-is-better metrics), with
 * tolerance t. implausible: the result was already flagged so. UNKNOWN without an expectation
 * of 3 runs or more (of_bound and change against the bound given where there is one). */
struct gb_expect_judgement gb_expect_judge(double value, bool higher_is_better, double noise,
                                           bool implausible, const struct gb_expect_case *e,
                                           double bound, double t, const struct gb_check_opts *o);

struct gb_check_row {
    const struct gb_result *r;
    char device[512], params[1024];
    const struct gb_expect_case *e; /* the expectation used, or NULL */
    struct gb_expect_judgement j;
    const char *basis; /* "reference", "bound", "result", "none" */
    double tolerance;
    bool fails; /* counts toward exit status 3 */
    char note[1100];
};

/* One device of the checked run as a whole: the median over its results judged against a
 * reference of ln(perf / m) — its shift — against its model's reference runs' shifts
 * (gb_expect_model), in the same rule as a figure's:
 *   s    = max(shift_spread, 0.5%)
 *   low  = max(ln(1 + tolerance), -shift_min + mads * s);  high likewise from shift_max
 *   LOW  shift < -low;  HIGH  shift > high;  NORMAL otherwise;
 * UNKNOWN when the model has no runs-as-wholes of 3 runs or more, or fewer than
 * GB_CHECK_WHOLE_MIN_CASES of the device's results were judged. A LOW whole fails as a LOW
 * figure does: on a shared machine each figure's band is wide (a case swings 0.3x-1.3x from run
 * to run) while a run's median over a hundred cases moves by tens of percent, so a device slower
 * everywhere — at 0.5x, say — is caught as a whole though few of its figures leave their band. */
#define GB_CHECK_WHOLE_MIN_CASES 3
struct gb_check_whole {
    int device;
    const struct gb_expect_model *m; /* NULL: none */
    size_t cases;                    /* results judged against a reference */
    enum gb_expect_verdict verdict;  /* NORMAL, LOW, HIGH or UNKNOWN */
    double change;                   /* e^shift - 1; NAN when not judged */
    double band;                     /* e^low - 1; NAN when not judged */
    bool fails;
    char note[200];
};

struct gb_check {
    const struct gb_results *rs;
    const char *path, *expect_path;
    struct gb_check_opts opts;
    struct gb_check_row *rows;
    size_t nrows;
    size_t counts[GB_EXPECT_VERDICTS];
    size_t failures;
    size_t models_known;           /* rows whose model has at least one expectation */
    size_t judged;                 /* rows judged against a reference (NORMAL, LOW or HIGH) */
    struct gb_check_whole *wholes; /* one per device of rs */
    size_t nwholes;
    size_t whole_failures;         /* devices LOW as a whole: they count toward exit 3 too */
    struct gb_health_item *health; /* GB_HEALTH_ITEMS per device of rs */
    size_t nhealth;
    size_t health_failures; /* FAIL items: they count toward exit 3 too */
    /* Why the run cannot pass whatever its figures: it was interrupted (its cases not all
     * there), or nothing in it was measured (no result ok or failed); "" when neither. Counts
     * toward exit 3. */
    char incomplete[160];
};

/* ---- health: what the driver can tell -------------------------------------------------------- */

enum gb_health_verdict { GB_HEALTH_OK, GB_HEALTH_WARN, GB_HEALTH_FAIL, GB_HEALTH_UNKNOWN };
/* "OK", "WARN", "FAIL", "UNKNOWN" */
const char *gb_health_verdict_name(enum gb_health_verdict v);

/* One health item of one device: its reading and, for WARN, FAIL and UNKNOWN, why. */
struct gb_health_item {
    int device;       /* index into the results' devices */
    const char *item; /* "pcie_link", "ecc", "row_remap", "power_limit", "persistence",
                         "throttle", "xid" */
    enum gb_health_verdict verdict;
    char reading[160];
    char note[256];
};

#define GB_HEALTH_ITEMS 7
/* The health items of device `device` of rs (GB_HEALTH_ITEMS of them) from the state the run
 * recorded (results' run.machine.devices, NVML) and its results' telemetry, into out. The rules:
 *   pcie_link    FAIL when the link read while a transfer ran is below the device's maximum
 *                generation or width; read only idle, a width below the maximum is FAIL (a
 *                link does not narrow to save power) and the generation UNKNOWN (an idle GPU
 *                lowers it: that is not downtraining); OK at the maximum;
 *   ecc          FAIL on uncorrected errors since the driver loaded, WARN on uncorrected ones
 *                in the device's life (aggregate) only, OK on none;
 *   row_remap    FAIL when a remap failed, WARN when one (or a retired page) waits for a reset;
 *   power_limit  WARN when the enforced limit is below the default (by more than 1%);
 *   persistence  WARN when off (the driver unloads between processes: slow starts);
 *   throttle     WARN when results had throttled samples (the count), OK when telemetry saw
 *                none;
 *   xid          FAIL when NVML reported critical XID events while the run measured (the
 *                count and the last XID), OK on none, UNKNOWN without an NVML event set.
 * A device with no recorded state (no NVML: not an NVIDIA GPU, or telemetry off) gets UNKNOWN
 * with that reason. Pure; returns how many items it wrote. */
size_t gb_health_items(const struct gb_results *rs, int device, struct gb_health_item *out);

/* Judges every result of rs against e (NULL: bounds only). The rows point into rs and e, which
 * must outlive the check. 0 or GB_ENOMEM. */
int gb_check_results(const struct gb_results *rs, const char *path, const struct gb_expect *e,
                     const char *expect_path, const struct gb_check_opts *o, struct gb_check *out);
void gb_check_free(struct gb_check *c);

#endif
