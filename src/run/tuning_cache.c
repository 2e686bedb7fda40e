/* gpubench — the tuning cache file (contract in tuning_cache.h).
 *
 * The file:
 *   {"schema": "gpubench-tuning/1",
 *    "entries": [{"backend": "opencl", "device": "...", "driver": "...", "kernel": "dot",
 *                 "problem": "n=16777216 type=float", "config": {"WG": 64, "VEC": 8},
 *                 "time_us": 812.5, "default_time_us": 1630.0, "speedup": 2.01,
 *                 "search": "anneal", "evaluations": 24, "updated_utc": "...",
 *                 "gpubench": "0.1.0"}, ...]}
 * `config` keeps its keys in insertion order (jansson preserves it), which is the kernel's
 * tunable order. Times are microseconds, like op_time_us in the results file.
 */
#include "run/tuning_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/error.h"
#include "gb-config.h"
#include "base/util.h"

int gb_tuning_cache_path(const char *explicit_path, char *buf, size_t len)
{
    int w;
    const char *env = getenv("GPUBENCH_TUNING_CACHE");
    if (explicit_path && *explicit_path) {
        w = snprintf(buf, len, "%s", explicit_path);
    } else if (env && *env) {
        w = snprintf(buf, len, "%s", env);
    } else {
        const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        /* The XDG specification: a relative XDG_CACHE_HOME is invalid and ignored. */
        if (xdg && xdg[0] == '/')
            w = snprintf(buf, len, "%s/gpubench/tuning.json", xdg);
        else if (home && *home)
            w = snprintf(buf, len, "%s/.cache/gpubench/tuning.json", home);
        else
            return GB_USER_FAIL(GB_EINVAL, "no tuning cache path: neither XDG_CACHE_HOME nor "
                                           "HOME is set (give tuning_cache: in the profile)");
    }
    if (w < 0 || (size_t)w >= len)
        return GB_USER_FAIL(GB_EOVERFLOW, "the tuning cache path is too long");
    return 0;
}

/* ---- reading --------------------------------------------------------------------------- */

/* Loads the cache at path: *root is NULL for a missing (or empty) file. */
static int load(const char *path, json_t **root)
{
    *root = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        return GB_USER_FAIL(GB_EIO, "cannot read the tuning cache %s: %s", path, strerror(errno));
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    if (size == 0) {
        fclose(f);
        return 0;
    }
    json_error_t je;
    json_t *r = json_loadf(f, 0, &je);
    fclose(f);
    if (!r)
        return GB_USER_FAIL(GB_ESCHEMA, "%s:%d:%d: the tuning cache is not valid JSON: %s", path,
                            je.line, je.column, je.text);
    json_t *schema = json_object_get(r, "schema");
    if (!json_is_string(schema) || strcmp(json_string_value(schema), GB_TUNING_SCHEMA) != 0 ||
        !json_is_array(json_object_get(r, "entries"))) {
        json_decref(r);
        return GB_USER_FAIL(GB_ESCHEMA,
                            "%s is not a gpubench tuning cache (schema \"%s\" with "
                            "an entries list); it is left alone",
                            path, GB_TUNING_SCHEMA);
    }
    *root = r;
    return 0;
}

static const char *jstr(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static double jnum(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : 0.0;
}

static bool key_match(const json_t *e, const struct gb_device *dev, const char *kernel,
                      const char *problem)
{
    return strcmp(jstr(e, "backend"), dev->ops && dev->ops->name ? dev->ops->name : "") == 0 &&
           strcmp(jstr(e, "device"), dev->info.name) == 0 &&
           strcmp(jstr(e, "driver"), dev->info.driver) == 0 &&
           strcmp(jstr(e, "kernel"), kernel) == 0 && strcmp(jstr(e, "problem"), problem) == 0;
}

static int entry_from_json(const char *path, size_t i, const json_t *e, struct gb_tuning_entry *out)
{
    memset(out, 0, sizeof *out);
    const json_t *cfg = json_object_get(e, "config");
    if (!json_is_object(cfg) || json_object_size(cfg) > GB_TUNING_MAX_PARAMS)
        return GB_USER_FAIL(GB_ESCHEMA,
                            "%s: entries[%zu].config: expected an object of at most "
                            "%d integers",
                            path, i, GB_TUNING_MAX_PARAMS);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)cfg, k, v)
    {
        if (!json_is_integer(v) || strlen(k) >= GB_TUNING_NAME_MAX)
            return GB_USER_FAIL(GB_ESCHEMA,
                                "%s: entries[%zu].config.%s: expected an integer "
                                "tunable with a name under %d characters",
                                path, i, k, GB_TUNING_NAME_MAX);
        memcpy(out->name[out->n], k, strlen(k) + 1);
        out->value[out->n++] = (int64_t)json_integer_value(v);
    }
    out->time_s = jnum(e, "time_us") * 1e-6;
    out->default_time_s = jnum(e, "default_time_us") * 1e-6;
    snprintf(out->search, sizeof out->search, "%s", jstr(e, "search"));
    double ev = jnum(e, "evaluations");
    out->evaluations = ev > 0 ? (uint64_t)ev : 0;
    snprintf(out->updated_utc, sizeof out->updated_utc, "%s", jstr(e, "updated_utc"));
    return 0;
}

/* The tuning cache must be a regular file (or none yet): a device node such as /dev/null would
 * read as an empty cache and then be renamed over; a folder cannot hold the entries. */
static int check_path(const char *p)
{
    char why[1200];
    if (gb_output_refusal(p, GB_OUTPUT_FILE, NULL, 0, why, sizeof why))
        return GB_USER_FAIL(GB_EINVAL, "the tuning cache %s cannot be used: %s", p, why);
    return 0;
}

int gb_tuning_lookup(const char *path, const struct gb_device *dev, const char *kernel,
                     const char *problem, struct gb_tuning_entry *out, bool *found)
{
    *found = false;
    char p[1024];
    int rc = gb_tuning_cache_path(path, p, sizeof p);
    if (rc || (rc = check_path(p)))
        return rc;
    json_t *root;
    if ((rc = load(p, &root)) || !root)
        return rc;
    json_t *entries = json_object_get(root, "entries");
    for (size_t i = 0; i < json_array_size(entries); i++) {
        const json_t *e = json_array_get(entries, i);
        if (json_is_object(e) && key_match(e, dev, kernel, problem)) {
            rc = entry_from_json(p, i, e, out);
            *found = rc == 0;
            break;
        }
    }
    json_decref(root);
    return rc;
}

/* ---- writing --------------------------------------------------------------------------- */

/* mkdir -p of the folder holding `path`. */
static int make_parent(const char *path)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    if (gb_mkdir_p(dir, 0755) != 0)
        return GB_USER_FAIL(GB_EIO, "cannot create %s: %s", dir, strerror(errno));
    return 0;
}

/* Writes root to path atomically: a temporary file in the same folder (gb_tmp_create), fsync,
 * rename. A symbolic link at path is written through. */
static int write_atomic(const char *path, json_t *root)
{
    char dest[PATH_MAX], tmp[PATH_MAX + 32];
    if (!gb_output_resolve(path, dest, sizeof dest))
        return GB_USER_FAIL(GB_EIO, "cannot write the tuning cache %s: %s", path, strerror(errno));
    int fd = gb_tmp_create(dest, tmp, sizeof tmp);
    if (fd < 0)
        return GB_USER_FAIL(GB_EIO, "cannot write the tuning cache %s: %s", path, strerror(errno));
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        return GB_USER_FAIL(GB_EIO, "cannot write the tuning cache %s: %s", path, strerror(errno));
    }
    bool ok = json_dumpf(root, f, JSON_INDENT(2)) == 0 && fputc('\n', f) != EOF && fflush(f) == 0 &&
              fsync(fileno(f)) == 0;
    int saved = errno;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, dest) != 0) {
        if (ok)
            saved = errno;
        unlink(tmp);
        return GB_USER_FAIL(GB_EIO, "cannot write the tuning cache %s: %s", path, strerror(saved));
    }
    return 0;
}

static void utc_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int gb_tuning_store(const char *path, const struct gb_device *dev, const char *kernel,
                    const char *problem, const struct gb_tuning_entry *e)
{
    char p[1024], lockp[1100];
    int rc = gb_tuning_cache_path(path, p, sizeof p);
    if (rc || (rc = check_path(p)) || (rc = make_parent(p)))
        return rc;
    /* Read-modify-write under an exclusive lock, so two runs storing at once keep both. The lock
     * is on the cache's folder (flock on a directory descriptor), so no lock file is left
     * behind; the folder of the link's target when the cache is a symbolic link. */
    char dest[PATH_MAX];
    if (!gb_output_resolve(p, dest, sizeof dest))
        return GB_USER_FAIL(GB_EIO, "cannot use the tuning cache %s: %s", p, strerror(errno));
    const char *slash = strrchr(dest, '/');
    if (!slash)
        snprintf(lockp, sizeof lockp, ".");
    else
        snprintf(lockp, sizeof lockp, "%.*s", slash == dest ? 1 : (int)(slash - dest), dest);
    int lfd = open(lockp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lfd < 0)
        return GB_USER_FAIL(GB_EIO, "cannot lock the tuning cache (%s): %s", lockp,
                            strerror(errno));
    while (flock(lfd, LOCK_EX) != 0 && errno == EINTR)
        ;
    json_t *root = NULL;
    if ((rc = load(p, &root)))
        goto out;
    if (!root && !(root = json_pack("{s:s, s:[]}", "schema", GB_TUNING_SCHEMA, "entries"))) {
        rc = GB_FAIL(GB_ENOMEM, "tuning cache");
        goto out;
    }
    json_t *cfg = json_object();
    for (size_t i = 0; cfg && i < e->n; i++)
        json_object_set_new(cfg, e->name[i], json_integer((json_int_t)e->value[i]));
    char when[32];
    if (e->updated_utc[0])
        snprintf(when, sizeof when, "%s", e->updated_utc);
    else
        utc_now(when, sizeof when);
    json_t *ent = json_object();
    if (ent) {
        const char *strs[][2] = {
            {"backend", dev->ops && dev->ops->name ? dev->ops->name : ""},
            {"device", dev->info.name},
            {"driver", dev->info.driver},
            {"kernel", kernel},
            {"problem", problem},
        };
        for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++)
            json_object_set_new(ent, strs[k][0], json_string(strs[k][1]));
        json_object_set_new(ent, "config", cfg ? cfg : json_object());
        json_object_set_new(ent, "time_us", json_real(isfinite(e->time_s) ? e->time_s * 1e6 : 0));
        json_object_set_new(ent, "default_time_us",
                            json_real(isfinite(e->default_time_s) ? e->default_time_s * 1e6 : 0));
        json_object_set_new(ent, "speedup",
                            json_real(e->time_s > 0 && e->default_time_s > 0 &&
                                              isfinite(e->default_time_s / e->time_s)
                                          ? e->default_time_s / e->time_s
                                          : 0));
        json_object_set_new(ent, "search", json_string(e->search));
        json_object_set_new(ent, "evaluations", json_integer((json_int_t)e->evaluations));
        json_object_set_new(ent, "updated_utc", json_string(when));
        json_object_set_new(ent, "gpubench", json_string(GB_VERSION));
    } else {
        json_decref(cfg);
    }
    if (!ent) {
        rc = GB_FAIL(GB_ENOMEM, "tuning cache entry");
        goto out;
    }
    json_t *entries = json_object_get(root, "entries");
    size_t i;
    for (i = 0; i < json_array_size(entries); i++) {
        const json_t *old = json_array_get(entries, i);
        if (json_is_object(old) && key_match(old, dev, kernel, problem))
            break;
    }
    if (i < json_array_size(entries))
        json_array_set_new(entries, i, ent);
    else
        json_array_append_new(entries, ent);
    rc = write_atomic(p, root);
out:
    json_decref(root);
    flock(lfd, LOCK_UN);
    close(lfd);
    return rc;
}

int64_t gb_tuning_get(const struct gb_tuning_entry *e, const char *name, int64_t def)
{
    for (size_t i = 0; e && i < e->n; i++)
        if (strcmp(e->name[i], name) == 0)
            return e->value[i];
    return def;
}
