/* gpubench — profiles: YAML in, a checked gb_profile out (libyaml).
 *
 * A profile:
 *
 *   name: quick                     # optional; defaults to the file's base name
 *   backends: [opencl, cuda]        # optional; default: every available backend
 *   devices: all                    # optional; "all", an index, or a list of indices
 *   measure:                        # profile-level defaults (all optional)
 *     warmup_runs: 2
 *     warmup_time: 10ms
 *     min_samples: 5
 *     max_samples: 100
 *     max_noise: 0.02               # relative CI95 half-width of the mean
 *     max_time: 2s                  # per case
 *     min_sample_time: 1ms          # batch operations until a sample lasts this long
 *     max_batch: 1000000
 *   suites:                         # run in order; a suite may appear several times
 *     - suite: transfer
 *       measure: {max_time: 1s}     # per-suite overrides of `measure`
 *       params:                     # sweeps per axis; an axis left out takes its default
 *         op: [h2d, d2h]
 *         size: {from: 4KiB, to: 256MiB, factor: 4}
 *         memory: pinned            # a scalar is a one-value sweep
 *     - suite: memtest
 *       optional: true              # a suite (or an axis of it) this build lacks: the entry
 *                                   # is left out and recorded in gb_profile.absent; a value
 *                                   # its axis refuses, or a near miss of a name, is an error
 *
 * Tuning keys (additive):
 *
 *   tuning_cache: /path/tuning.json # top level, optional: the tuning cache file (default
 *                                   # $XDG_CACHE_HOME/gpubench/tuning.json; tuning_cache.h)
 *   suites:
 *     - suite: gemm
 *       tuned: true                 # tunable kernels use the tuning cache's configuration
 *     - suite: tuning               # suites that take a search space (gb_suite.search_space):
 *       tunables: {WG: [64, 128, 256], VEC: {from: 1, to: 8, factor: 2}}  # replace the values
 *       constraints: ["TILE * VEC <= 64"]     # more constraints (tune.h expressions)
 *
 * Telemetry (top level, optional; backends/telemetry.h):
 *
 *   telemetry: {enabled: true, period: 20ms, on_throttle: keep, clock_floor: 0.9}
 *   telemetry: off                  # no sampling, no "telemetry" in the results
 *
 * Sweeps: a scalar, a list, {from, to, factor} (geometric, factor > 1) or {from, to, step}
 * (arithmetic, step > 0); `to` is included when the progression lands on it. Sizes take units
 * (base/units.h). Every error is reported as "file:line:column: message" (1-based) and makes the
 * load fail with GB_ECONFIG: syntax errors, unknown keys, wrong types, bad units, zero or negative
 * sizes, empty sweeps, unknown suites and axes, values outside an axis's choices or bounds.
 */
#ifndef GB_CONFIG_H
#define GB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/params.h"
#include "base/stats.h"
#include "run/suite.h"
#include "backends/telemetry.h"

/* One tunable of a suite entry's `tunables:`: a kernel's -D define and the values to try. */
struct gb_tunable_spec {
    char name[32];
    int64_t *values; /* malloc'd, n of them, distinct */
    size_t n;
    int line, column; /* where the name is in the profile */
};

/* One entry of `constraints:`: an expression over the tunables (syntax checked at load time;
 * names are checked against the kernel when the case runs). */
struct gb_constraint_spec {
    char *text; /* malloc'd */
    int line, column;
};

/* One entry of `suites:`. sweeps[i] belongs to suite->axes[i]. */
struct gb_suite_run {
    const struct gb_suite *suite;
    struct gb_measure_cfg measure;
    struct gb_sweep sweeps[GB_MAX_AXES];
    /* Bit i set: sweeps[i] is suite->axes[i]'s default sweep (neither the profile nor --set gave
     * the axis), so a suite may adapt its value to the device (a work-group size to a kernel's
     * limit) where it would skip a value the user asked for (gb_case_param_defaulted). */
    uint32_t defaulted;
    int line, column;   /* where the entry starts in the profile */
    bool tuned;         /* `tuned: true`: tunable kernels use the tuning cache */
    char *tuning_cache; /* the profile's `tuning_cache:` (malloc'd); NULL: the default */
    struct gb_tunable_spec *tunables; /* `tunables:` (malloc'd), in profile order */
    size_t ntunables;
    struct gb_constraint_spec *constraints; /* `constraints:` (malloc'd) */
    size_t nconstraints;
    struct gb_tel_cfg telemetry; /* the profile's `telemetry:` (the same for every entry) */
    /* While loading: `optional: true`, so that an entry whose suite, or an axis of it, this
     * build lacks is left out and recorded (gb_profile.absent) rather than refused. */
    bool optional;
};

/* An entry marked `optional: true` that the loader left out (a suite this build lacks, or an
 * axis its suite lacks): what a command that reports per entry (diag) records as a skip. */
struct gb_absent_entry {
    char suite[64];   /* the entry's suite: name as written ("" when it has none) */
    int line;         /* where the entry starts in the profile */
    char reason[600]; /* the loader's "file:line:column: message" */
};

struct gb_profile {
    const struct gb_suite_table *suites; /* what the profile may name (the loader's caller's) */
    char path[1024];
    char name[128];
    char sha256[65];
    char **backends; /* NULL-terminated names, or NULL for every backend */
    int *devices;    /* device indices (-1 terminated), or NULL for all */
    struct gb_measure_cfg measure;
    struct gb_suite_run *runs;
    size_t nruns;
    char tuning_cache[1024];        /* `tuning_cache:`; "" for the default location */
    struct gb_tel_cfg telemetry;    /* `telemetry:` (backends/telemetry.h; gb_tel_defaults) */
    struct gb_absent_entry *absent; /* optional entries left out, in profile order */
    size_t nabsent;
};

/* Built-in defaults of `measure`. */
extern const struct gb_measure_cfg gb_measure_defaults;

/* An override from `--set KEY=VALUE`: KEY is a dotted path ("measure.max_time",
 * "transfer.params.size", "transfer.measure.min_samples") and VALUE is YAML text ("[4KiB, 1MiB]").
 * A suite name in KEY applies to every entry of that suite. */
struct gb_override {
    const char *key;
    const char *value;
};

/* Loads and checks `path` against the suites of `suites` (kept in out->suites, for the plan and
 * the runner), then applies the overrides in order. On error returns GB_ECONFIG
 * (GB_EIO when the file cannot be read) and writes "file:line:column: message" into err; for an
 * override the location is "--set KEY:1:column". Nothing is allocated on error. */
int gb_profile_load(const struct gb_suite_table *suites, const char *path,
                    const struct gb_override *sets, size_t nsets, struct gb_profile *out, char *err,
                    size_t errlen);

/* As gb_profile_load() but from a string; `name` is used in messages in place of a file name. */
int gb_profile_load_string(const struct gb_suite_table *suites, const char *text, const char *name,
                           const struct gb_override *sets, size_t nsets, struct gb_profile *out,
                           char *err, size_t errlen);

/* Parses one sweep in profile syntax ("[h2d, d2h]", "{from: 4KiB, to: 1MiB, factor: 2}") for
 * axis `ax`. Used for the suites' default sweeps. */
int gb_sweep_parse(const struct gb_axis_def *ax, const char *text, struct gb_sweep *out, char *err,
                   size_t errlen);

void gb_profile_free(struct gb_profile *p);

#endif
