/* gpubench — the tuning cache: the best configuration the tuning suite found for one kernel and
 * problem on one device, kept so that other suites can use it (`tuned: true` in a profile entry).
 *
 * One JSON file (schema "gpubench-tuning/1") holds every entry; an entry is keyed by
 *   (backend, device name, driver version, kernel, problem)
 * so a driver update or another device never picks up a stale configuration. The file lives at
 * the profile's `tuning_cache:` path when one is given (also `--set tuning_cache=PATH`), else at
 * $XDG_CACHE_HOME/gpubench/tuning.json, else at $HOME/.cache/gpubench/tuning.json (the XDG Base
 * Directory specification's default). It is rewritten atomically (temporary file in the same
 * folder, fsync, rename) under an advisory lock (flock on PATH.lock), so concurrent runs never
 * lose each other's entries and a reader never sees half a file. A missing file is an empty
 * cache; a file that is not a gpubench tuning cache is an error and is never overwritten.
 *
 * Kernel names and problem keys (the caller builds the problem text exactly as below, so that
 * the tuning suite and the suites that use its results agree):
 *   "dot"        kernels/dot.cl        "n=<elements> type=float"
 *   "transpose"  kernels/transpose.cl  "rows=<n> cols=<n> type=float"
 *   "gemm"       kernels/gemm.cl       "m=<m> n=<n> k=<k> type=float" (column-major, no
 *                                       transposes; see GB_TUNING_GEMM_PROBLEM)
 * Tunable names are the kernel's -D define names ("WG", "VEC", ...); values are integers.
 */
#ifndef GB_TUNING_CACHE_H
#define GB_TUNING_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"
#include "run/tune.h"

#define GB_TUNING_SCHEMA "gpubench-tuning/1"
#define GB_TUNING_MAX_PARAMS GB_TUNE_MAX_TUNABLES
#define GB_TUNING_NAME_MAX GB_TUNE_NAME_MAX

/* snprintf format of the gemm problem key, arguments m, n, k as unsigned long long. */
#define GB_TUNING_GEMM_PROBLEM "m=%llu n=%llu k=%llu type=float"

/* One cached configuration. */
struct gb_tuning_entry {
    size_t n;                                            /* number of tunables */
    char name[GB_TUNING_MAX_PARAMS][GB_TUNING_NAME_MAX]; /* -D define names, "WG", "VEC" */
    int64_t value[GB_TUNING_MAX_PARAMS];
    double time_s;         /* median seconds per operation of this configuration when tuned */
    double default_time_s; /* the kernel's default configuration in the same run; 0 unknown */
    char search[32];       /* the strategy that found it: "exhaustive", "random", "anneal" */
    uint64_t evaluations;  /* configurations measured by that search */
    char updated_utc[32];  /* when it was stored, ISO 8601 */
};

/* The cache file's path into buf (len bytes): `explicit_path` when non-NULL and non-empty, else
 * $GPUBENCH_TUNING_CACHE when set (the tests point it at a temporary file), else
 * $XDG_CACHE_HOME/gpubench/tuning.json (when XDG_CACHE_HOME is an absolute path), else
 * $HOME/.cache/gpubench/tuning.json. GB_EINVAL when neither variable gives a path, GB_EOVERFLOW
 * when it does not fit. */
int gb_tuning_cache_path(const char *explicit_path, char *buf, size_t len);

/* Looks up (dev's backend, name and driver, kernel, problem) in the cache at `path` (NULL: the
 * default location). Returns 0 with *found set, and *out filled when found; a missing file is
 * found = false. GB_EIO (unreadable) or GB_ESCHEMA (not a tuning cache, malformed entry) with a
 * message naming the file. */
int gb_tuning_lookup(const char *path, const struct gb_device *dev, const char *kernel,
                     const char *problem, struct gb_tuning_entry *out, bool *found);

/* Stores e for (dev, kernel, problem) in the cache at `path` (NULL: the default location),
 * replacing an entry with the same key and keeping every other entry. Creates the folder when
 * needed. e->updated_utc is filled in when empty. GB_EIO / GB_ESCHEMA as for lookup (a file
 * that is not a tuning cache is left alone). */
int gb_tuning_store(const char *path, const struct gb_device *dev, const char *kernel,
                    const char *problem, const struct gb_tuning_entry *e);

/* The value of tunable `name` in e, or `def` when e has no such tunable. */
int64_t gb_tuning_get(const struct gb_tuning_entry *e, const char *name, int64_t def);

#endif
