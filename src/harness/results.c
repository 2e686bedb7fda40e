/* gpubench — results and their JSON form (schema "gpubench-results/1"; contract in results.h).
 *
 * Non-finite numbers: JSON has no NaN or infinity, so a non-finite double is written as `null`
 * (the key is kept, so the shape of every result is the same). On reading, `null` becomes NaN,
 * except in `ci95`, where the only non-finite value gpubench produces is the unbounded interval
 * of a single sample (gb_stats_compute, n = 1), which reads back as INFINITY.
 *
 * Params: sizes and integers are both JSON integers (sizes in bytes), so a file does not say
 * which an integer was: an integer is read back as GB_V_SIZE when the result's suite (in this
 * build's table) declares that axis a size, else as GB_V_INT, so params read from a file compare
 * and print like those of the run that wrote it. Floats are JSON reals (GB_V_FLOAT),
 * strings GB_V_STR, true/false GB_V_BOOL.
 *
 * Messages about a file (GB_EIO, GB_ESCHEMA) are for the user: they name the file and the field
 * ("results[3].stats.median") and carry no source location.
 */
#include "harness/results.h"
#include "harness/suite.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "base/error.h"
#include "base/util.h"

static const struct {
    uint64_t bit;
    const char *name;
} gb__caps[] = {
    {GB_CAP_FP64, "fp64"},         {GB_CAP_FP16, "fp16"},           {GB_CAP_BF16, "bf16"},
    {GB_CAP_INT8_DOT, "int8_dot"}, {GB_CAP_PEER, "peer"},           {GB_CAP_UNIFIED, "unified"},
    {GB_CAP_BLAS_F32, "blas_f32"}, {GB_CAP_BLAS_F64, "blas_f64"},   {GB_CAP_BLAS_F16, "blas_f16"},
    {GB_CAP_BLAS_BF16, "blas_bf16"}, {GB_CAP_BLAS_MIXED, "blas_mixed"},
    {GB_CAP_BLAS_TF32, "blas_tf32"}, {GB_CAP_GRAPH, "graph"},
};

const char *gb_cap_name(uint64_t bit)
{
    for (size_t i = 0; i < sizeof gb__caps / sizeof gb__caps[0]; i++)
        if (gb__caps[i].bit == bit)
            return gb__caps[i].name;
    return NULL;
}

char *gb_caps_text(uint64_t caps, char *buf, size_t len)
{
    buf[0] = '\0';
    for (unsigned b = 0; b < 64; b++) {
        const char *name = caps >> b & 1 ? gb_cap_name(UINT64_C(1) << b) : NULL;
        if (name)
            gb_appendf(buf, len, "%s%s", buf[0] ? "," : "", name);
    }
    return buf;
}

const char *gb_status_name(enum gb_status s)
{
    switch (s) {
    case GB_STATUS_OK:
        return "ok";
    case GB_STATUS_SKIPPED:
        return "skipped";
    case GB_STATUS_FAILED:
        return "failed";
    }
    return "unknown";
}

static const char *gb__better_name(enum gb_better b)
{
    return b == GB_BETTER_LOWER ? "lower" : "higher";
}

/* ---- the in-memory set ---------------------------------------------------------------------- */

/* Every result in rs->results keeps its param names in its own names_store (gb_results_add copies
 * them there), so after the array moves the pointers are simply re-aimed. */
static void gb__rebase_names(struct gb_result *r)
{
    for (size_t j = 0; j < r->params.n && j < GB_MAX_AXES; j++)
        r->params.name[j] = r->names_store[j];
}

int gb_results_add(struct gb_results *rs, struct gb_result *r)
{
    if (!rs || !r)
        return GB_FAIL(GB_EINVAL, "gb_results_add: NULL argument");
    if (r->params.n > GB_MAX_AXES)
        return GB_FAIL(GB_EINVAL, "gb_results_add: %zu params (at most %d)", r->params.n,
                       GB_MAX_AXES);
    char names[GB_MAX_AXES][sizeof r->names_store[0]];
    for (size_t j = 0; j < r->params.n; j++) {
        const char *nm = r->params.name[j];
        if (!nm || strlen(nm) >= sizeof names[j])
            return GB_FAIL(GB_EINVAL, "gb_results_add: param name %zu is %s", j,
                           nm ? "too long" : "NULL");
        memcpy(names[j], nm, strlen(nm) + 1);
    }
    const size_t old_cap = rs->cap;
    struct gb_result *grown = gb_grow(rs->results, &rs->cap, rs->nresults + 1, sizeof *grown);
    if (!grown)
        return GB_FAIL(GB_ENOMEM, "gb_results_add: %zu results", rs->nresults + 1);
    rs->results = grown;
    if (rs->cap != old_cap) /* the array may have moved */
        for (size_t k = 0; k < rs->nresults; k++)
            gb__rebase_names(&rs->results[k]);
    struct gb_result *d = &rs->results[rs->nresults];
    *d = *r;
    memcpy(d->names_store, names, r->params.n * sizeof names[0]);
    gb__rebase_names(d);
    rs->nresults++;
    r->samples = NULL;
    return 0;
}

int gb_results_add_device(struct gb_results *rs, const char *backend, int index,
                          const struct gb_device_info *info, int *idx)
{
    if (!rs || !backend || !info)
        return GB_FAIL(GB_EINVAL, "gb_results_add_device: NULL argument");
    if (rs->ndevices >= (size_t)INT32_MAX)
        return GB_FAIL(GB_EOVERFLOW, "gb_results_add_device: too many devices");
    struct gb_result_device *grown =
        realloc(rs->devices, (rs->ndevices + 1) * sizeof *rs->devices);
    if (!grown)
        return GB_FAIL(GB_ENOMEM, "gb_results_add_device");
    rs->devices = grown;
    struct gb_result_device *d = &rs->devices[rs->ndevices];
    memset(d, 0, sizeof *d);
    snprintf(d->backend, sizeof d->backend, "%s", backend);
    d->index = index;
    d->info = *info;
    if (idx)
        *idx = (int)rs->ndevices;
    rs->ndevices++;
    return 0;
}

void gb_results_free(struct gb_results *rs)
{
    if (!rs)
        return;
    for (size_t k = 0; k < rs->nresults; k++)
        free(rs->results[k].samples);
    free(rs->results);
    free(rs->devices);
    memset(rs, 0, sizeof *rs);
}

/* ---- writing -------------------------------------------------------------------------------- */

/* Builder state: any failed allocation or insertion sets `bad`, checked once at the end. */
struct gb__w {
    bool bad;
};

static void gb__put(struct gb__w *w, json_t *obj, const char *key, json_t *v)
{
    if (json_object_set_new(obj, key, v) != 0) /* also when v or obj is NULL */
        w->bad = true;
}

static void gb__append(struct gb__w *w, json_t *arr, json_t *v)
{
    if (json_array_append_new(arr, v) != 0)
        w->bad = true;
}

static json_t *gb__num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *gb__u64(uint64_t v)
{
    return v <= (uint64_t)INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v);
}

/* A JSON string of s; bytes that are not valid UTF-8 (a driver's odd device name) become '?'. */
static json_t *gb__str(const char *s)
{
    if (!s)
        s = "";
    json_t *j = json_string(s);
    if (j)
        return j;
    size_t n = strlen(s);
    char *copy = malloc(n + 1);
    if (!copy)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        copy[i] = (unsigned char)s[i] >= 0x80 ? '?' : s[i];
    j = json_string(copy);
    free(copy);
    return j;
}

static json_t *gb__stats_json(struct gb__w *w, const struct gb_stats *st)
{
    json_t *o = json_object();
    gb__put(w, o, "n", gb__u64(st->n));
    gb__put(w, o, "min", gb__num(st->min));
    gb__put(w, o, "max", gb__num(st->max));
    gb__put(w, o, "mean", gb__num(st->mean));
    gb__put(w, o, "median", gb__num(st->median));
    gb__put(w, o, "stddev", gb__num(st->stddev));
    gb__put(w, o, "cv", gb__num(st->cv));
    gb__put(w, o, "p5", gb__num(st->p5));
    gb__put(w, o, "p95", gb__num(st->p95));
    gb__put(w, o, "ci95", gb__num(st->ci95));
    return o;
}

static json_t *gb__value_json(const struct gb_value *v)
{
    switch (v->type) {
    case GB_V_SIZE:
        return gb__u64(v->u.size);
    case GB_V_INT:
        return json_integer((json_int_t)v->u.i);
    case GB_V_FLOAT:
        return gb__num(v->u.f);
    case GB_V_STR:
        return gb__str(v->s);
    case GB_V_BOOL:
        return json_boolean(v->u.b);
    }
    return json_null();
}

static json_t *gb__device_json(struct gb__w *w, const struct gb_result_device *d)
{
    const struct gb_device_info *in = &d->info;
    json_t *o = json_object();
    gb__put(w, o, "backend", gb__str(d->backend));
    gb__put(w, o, "index", json_integer(d->index));
    gb__put(w, o, "name", gb__str(in->name));
    gb__put(w, o, "vendor", gb__str(in->vendor));
    gb__put(w, o, "driver", gb__str(in->driver));
    gb__put(w, o, "version", gb__str(in->version));
    gb__put(w, o, "platform", gb__str(in->platform));
    gb__put(w, o, "arch", gb__str(in->arch));
    gb__put(w, o, "global_mem_bytes", gb__u64(in->global_mem));
    gb__put(w, o, "max_alloc_bytes", gb__u64(in->max_alloc));
    gb__put(w, o, "local_mem_bytes", gb__u64(in->local_mem));
    gb__put(w, o, "l2_bytes", gb__u64(in->l2_bytes));
    gb__put(w, o, "compute_units", gb__u64(in->compute_units));
    gb__put(w, o, "clock_mhz", gb__u64(in->clock_mhz));
    gb__put(w, o, "mem_clock_mhz", gb__u64(in->mem_clock_mhz));
    gb__put(w, o, "mem_bus_bits", gb__u64(in->mem_bus_bits));
    gb__put(w, o, "max_work_group_size", gb__u64(in->max_wg_size));
    json_t *dims = json_array();
    for (int i = 0; i < 3; i++)
        gb__append(w, dims, gb__u64(in->max_wg_dims[i]));
    gb__put(w, o, "max_work_group_dims", dims);
    gb__put(w, o, "warp_size", gb__u64(in->warp_size));
    gb__put(w, o, "peak_mem_gbs", gb__num(in->peak_mem_gbs));
    json_t *caps = json_array();
    for (size_t i = 0; i < sizeof gb__caps / sizeof gb__caps[0]; i++)
        if (in->caps & gb__caps[i].bit)
            gb__append(w, caps, json_string(gb__caps[i].name));
    gb__put(w, o, "capabilities", caps);
    return o;
}

static json_t *gb__figure_json(struct gb__w *w, const struct gb_figure *f)
{
    json_t *o = json_object();
    gb__put(w, o, "name", gb__str(f->name));
    if (f->n == 0) {
        gb__put(w, o, "text", gb__str(f->text));
        return o;
    }
    gb__put(w, o, "unit", gb__str(f->unit));
    if (!f->per_device) {
        gb__put(w, o, "value", gb__num(f->v[0]));
        return o;
    }
    json_t *vals = json_array();
    for (size_t i = 0; i < f->n && i < GB_MAX_SET; i++)
        gb__append(w, vals, gb__num(f->v[i]));
    gb__put(w, o, "values", vals);
    return o;
}

static json_t *gb__result_json(struct gb__w *w, const struct gb_results *rs,
                               const struct gb_result *r)
{
    json_t *o = json_object();
    gb__put(w, o, "suite", gb__str(r->suite));
    gb__put(w, o, "case", gb__str(r->case_name));
    gb__put(w, o, "backend", gb__str(r->backend));
    gb__put(w, o, "device", json_integer(r->device_index));
    const char *dname = "";
    if (r->device_index >= 0 && (size_t)r->device_index < rs->ndevices)
        dname = rs->devices[r->device_index].info.name;
    gb__put(w, o, "device_name", gb__str(dname));
    json_t *params = json_object();
    for (size_t j = 0; j < r->params.n && j < GB_MAX_AXES; j++)
        gb__put(w, params, r->params.name[j] ? r->params.name[j] : "?",
                gb__value_json(&r->params.v[j]));
    gb__put(w, o, "params", params);
    gb__put(w, o, "status", json_string(gb_status_name(r->status)));
    gb__put(w, o, "reason", gb__str(r->reason));
    gb__put(w, o, "metric", gb__str(r->metric));
    gb__put(w, o, "unit", gb__str(r->unit));
    gb__put(w, o, "better", json_string(gb__better_name(r->better)));
    gb__put(w, o, "value", gb__num(r->value));
    gb__put(w, o, "stats", gb__stats_json(w, &r->stats));
    gb__put(w, o, "op_time_us", gb__stats_json(w, &r->op_time_us));
    json_t *samples = json_array();
    for (size_t i = 0; r->samples && i < r->nsamples; i++)
        gb__append(w, samples, gb__num(r->samples[i]));
    gb__put(w, o, "samples", samples);
    gb__put(w, o, "batch", gb__u64(r->batch));
    gb__put(w, o, "bytes_per_op", gb__num(r->bytes_per_op));
    gb__put(w, o, "flops_per_op", gb__num(r->flops_per_op));
    gb__put(w, o, "verified", json_boolean(r->verified));
    gb__put(w, o, "max_error", gb__num(r->max_error));
    gb__put(w, o, "noisy", json_boolean(r->noisy));
    gb__put(w, o, "implausible", json_boolean(r->implausible));
    gb__put(w, o, "elapsed_s", gb__num(r->elapsed_s));
    /* Multi-device results only: the set of devices and the named figures (both additive). */
    if (r->nset > 0) {
        json_t *set = json_array();
        for (size_t i = 0; i < r->nset && i < GB_MAX_SET; i++)
            gb__append(w, set, json_integer(r->set[i]));
        gb__put(w, o, "devices", set);
    }
    if (r->nfigures > 0) {
        json_t *figs = json_array();
        for (size_t i = 0; i < r->nfigures && i < GB_MAX_FIGURES; i++)
            gb__append(w, figs, gb__figure_json(w, &r->figures[i]));
        gb__put(w, o, "figures", figs);
    }
    return o;
}

static json_t *gb__results_json(struct gb__w *w, const struct gb_results *rs)
{
    const struct gb_run_meta *m = &rs->run;
    json_t *root = json_object();
    gb__put(w, root, "schema", json_string(GB_RESULTS_SCHEMA));

    json_t *gb = json_object();
    gb__put(w, gb, "version", gb__str(m->gpubench_version));
    gb__put(w, gb, "git_commit", gb__str(m->git_commit));
    gb__put(w, root, "gpubench", gb);

    json_t *run = json_object();
    gb__put(w, run, "start_utc", gb__str(m->start_utc));
    gb__put(w, run, "end_utc", gb__str(m->end_utc));
    gb__put(w, run, "host", gb__str(m->host));
    gb__put(w, run, "os", gb__str(m->os));
    gb__put(w, run, "command_line", gb__str(m->command_line));
    json_t *prof = json_object();
    gb__put(w, prof, "path", gb__str(m->profile_path));
    gb__put(w, prof, "name", gb__str(m->profile_name));
    gb__put(w, prof, "sha256", gb__str(m->profile_sha256));
    gb__put(w, run, "profile", prof);
    gb__put(w, run, "interrupted", json_boolean(m->interrupted));
    gb__put(w, run, "cases_planned", json_integer((json_int_t)m->cases_planned));
    gb__put(w, root, "run", run);

    json_t *devs = json_array();
    for (size_t i = 0; i < rs->ndevices; i++)
        gb__append(w, devs, gb__device_json(w, &rs->devices[i]));
    gb__put(w, root, "devices", devs);

    json_t *res = json_array();
    for (size_t k = 0; k < rs->nresults; k++)
        gb__append(w, res, gb__result_json(w, rs, &rs->results[k]));
    gb__put(w, root, "results", res);
    return root;
}

int gb_results_write(const struct gb_results *rs, const char *path)
{
    if (!rs || !path || !*path)
        return GB_FAIL(GB_EINVAL, "gb_results_write: no results or no path");

    struct gb__w w = {false};
    json_t *root = gb__results_json(&w, rs);
    if (!root || w.bad) {
        json_decref(root);
        return GB_USER_FAIL(GB_EIO, "cannot write %s: out of memory building the JSON", path);
    }

    size_t plen = strlen(path);
    char *tmp = malloc(plen + sizeof ".tmpXXXXXX");
    if (!tmp) {
        json_decref(root);
        return GB_USER_FAIL(GB_EIO, "cannot write %s: out of memory", path);
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmpXXXXXX", sizeof ".tmpXXXXXX");

    int rc = 0;
    FILE *f = NULL;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        rc = GB_USER_FAIL(GB_EIO, "cannot write %s: cannot create the temporary file %s: %s",
                          path, tmp, strerror(errno));
        goto out; /* nothing to remove */
    }
    /* mkstemp creates 0600; a results file is meant to be shared. */
    (void)fchmod(fd, 0644);
    f = fdopen(fd, "w");
    if (!f) {
        rc = GB_USER_FAIL(GB_EIO, "cannot write %s: fdopen: %s", path, strerror(errno));
        close(fd);
        goto remove;
    }
    errno = 0;
    if (json_dumpf(root, f, JSON_INDENT(2)) != 0 || fputc('\n', f) == EOF) {
        rc = GB_USER_FAIL(GB_EIO, "cannot write %s: writing %s: %s", path, tmp,
                          errno ? strerror(errno) : "JSON encoding failed");
        goto close_remove;
    }
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
        rc = GB_USER_FAIL(GB_EIO, "cannot write %s: flushing %s: %s", path, tmp,
                          strerror(errno));
        goto close_remove;
    }
    if (fclose(f) != 0) {
        f = NULL;
        rc = GB_USER_FAIL(GB_EIO, "cannot write %s: closing %s: %s", path, tmp, strerror(errno));
        goto remove;
    }
    f = NULL;
    if (rename(tmp, path) != 0) {
        rc = GB_USER_FAIL(GB_EIO, "cannot write %s: renaming %s over it: %s", path, tmp,
                          strerror(errno));
        goto remove;
    }
    /* Make the rename itself durable (best effort: the file is complete either way). */
    {
        char *dir = strdup(path);
        if (dir) {
            char *slash = strrchr(dir, '/');
            const char *d = ".";
            if (slash) {
                slash[slash == dir ? 1 : 0] = '\0';
                d = dir;
            }
            int dfd = open(d, O_RDONLY | O_DIRECTORY);
            if (dfd >= 0) {
                (void)fsync(dfd);
                close(dfd);
            }
            free(dir);
        }
    }
    goto out;

close_remove:
    fclose(f);
remove:
    unlink(tmp);
out:
    free(tmp);
    json_decref(root);
    return rc;
}

/* ---- reading -------------------------------------------------------------------------------- */

struct gb__r {
    const char *file;
};

enum { GB__REQ = 1, GB__TRUNC = 2 };

static const char *gb__jtype(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a real number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "something else";
}

static int gb__bad_type(struct gb__r *R, const char *where, const char *key, const char *want,
                        const json_t *v)
{
    return GB_USER_FAIL(GB_ESCHEMA, "%s: %s%s%s: expected %s, found %s", R->file, where,
                        *where ? "." : "", key, want, gb__jtype(v));
}

/* Looks up key in obj. Returns 0 with *v (NULL when absent and not required) or GB_ESCHEMA. */
static int gb__field(struct gb__r *R, const json_t *obj, const char *where, const char *key,
                     int flags, json_t **v)
{
    *v = json_object_get(obj, key);
    if (!*v && (flags & GB__REQ))
        return GB_USER_FAIL(GB_ESCHEMA, "%s: %s%smissing required field \"%s\"", R->file, where,
                            *where ? ": " : "", key);
    return 0;
}

static int gb__rd_str(struct gb__r *R, const json_t *obj, const char *where, const char *key,
                      char *dst, size_t cap, int flags)
{
    json_t *v;
    int rc = gb__field(R, obj, where, key, flags, &v);
    if (rc || !v)
        return rc;
    if (!json_is_string(v))
        return gb__bad_type(R, where, key, "a string", v);
    const char *s = json_string_value(v);
    size_t n = strlen(s);
    if (n >= cap) {
        if (!(flags & GB__TRUNC))
            return GB_USER_FAIL(GB_ESCHEMA, "%s: %s%s%s: string of %zu bytes, at most %zu allowed",
                                R->file, where, *where ? "." : "", key, n, cap - 1);
        n = cap - 1;
    }
    memcpy(dst, s, n);
    dst[n] = '\0';
    return 0;
}

/* A number; null reads as `null_value`. */
static int gb__rd_num(struct gb__r *R, const json_t *obj, const char *where, const char *key,
                      double *dst, double null_value, int flags)
{
    json_t *v;
    int rc = gb__field(R, obj, where, key, flags, &v);
    if (rc || !v)
        return rc;
    if (json_is_null(v))
        *dst = null_value;
    else if (json_is_number(v))
        *dst = json_number_value(v);
    else
        return gb__bad_type(R, where, key, "a number or null", v);
    return 0;
}

static int gb__rd_int(struct gb__r *R, const json_t *obj, const char *where, const char *key,
                      int64_t lo, int64_t hi, int64_t *dst, int flags)
{
    json_t *v;
    int rc = gb__field(R, obj, where, key, flags, &v);
    if (rc || !v)
        return rc;
    if (!json_is_integer(v))
        return gb__bad_type(R, where, key, "an integer", v);
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi)
        return GB_USER_FAIL(GB_ESCHEMA, "%s: %s%s%s: %lld is out of range [%lld, %lld]", R->file,
                            where, *where ? "." : "", key, (long long)x, (long long)lo,
                            (long long)hi);
    *dst = (int64_t)x;
    return 0;
}

static int gb__rd_u64(struct gb__r *R, const json_t *obj, const char *where, const char *key,
                      uint64_t *dst, int flags)
{
    int64_t x = 0;
    json_t *v = json_object_get(obj, key);
    int rc = gb__rd_int(R, obj, where, key, 0, INT64_MAX, &x, flags);
    if (rc == 0 && v)
        *dst = (uint64_t)x;
    return rc;
}

static int gb__rd_u32(struct gb__r *R, const json_t *obj, const char *where, const char *key,
                      uint32_t *dst, int flags)
{
    int64_t x = 0;
    json_t *v = json_object_get(obj, key);
    int rc = gb__rd_int(R, obj, where, key, 0, UINT32_MAX, &x, flags);
    if (rc == 0 && v)
        *dst = (uint32_t)x;
    return rc;
}

static int gb__rd_bool(struct gb__r *R, const json_t *obj, const char *where, const char *key,
                       bool *dst, int flags)
{
    json_t *v;
    int rc = gb__field(R, obj, where, key, flags, &v);
    if (rc || !v)
        return rc;
    if (!json_is_boolean(v))
        return gb__bad_type(R, where, key, "true or false", v);
    *dst = json_is_true(v);
    return 0;
}

/* An object or array member, type-checked. */
static int gb__rd_node(struct gb__r *R, const json_t *obj, const char *where, const char *key,
                       json_type type, json_t **dst, int flags)
{
    int rc = gb__field(R, obj, where, key, flags, dst);
    if (rc || !*dst)
        return rc;
    if (json_typeof(*dst) != type)
        return gb__bad_type(R, where, key, type == JSON_OBJECT ? "an object" : "an array", *dst);
    return 0;
}

static int gb__rd_stats(struct gb__r *R, const json_t *obj, const char *where, const char *key,
                        struct gb_stats *st, int flags)
{
    json_t *o;
    int rc = gb__rd_node(R, obj, where, key, JSON_OBJECT, &o, flags);
    if (rc || !o)
        return rc;
    char w[96];
    snprintf(w, sizeof w, "%s%s%s", where, *where ? "." : "", key);
    uint64_t n = 0;
    if ((rc = gb__rd_u64(R, o, w, "n", &n, GB__REQ)) != 0)
        return rc;
    st->n = (size_t)n;
    static const char *const names[] = {"min", "max", "mean", "median", "stddev",
                                        "cv",  "p5",  "p95",  "ci95"};
    double *dsts[] = {&st->min, &st->max, &st->mean, &st->median, &st->stddev,
                      &st->cv,  &st->p5,  &st->p95,  &st->ci95};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        double nullv = dsts[i] == &st->ci95 ? INFINITY : NAN;
        if ((rc = gb__rd_num(R, o, w, names[i], dsts[i], nullv, GB__REQ)) != 0)
            return rc;
    }
    return 0;
}

static int gb__rd_device(struct gb__r *R, const json_t *o, size_t i, struct gb_result_device *d)
{
    char w[48];
    snprintf(w, sizeof w, "devices[%zu]", i);
    if (!json_is_object(o))
        return GB_USER_FAIL(GB_ESCHEMA, "%s: %s: expected an object, found %s", R->file, w,
                            gb__jtype(o));
    struct gb_device_info *in = &d->info;
    int64_t index = 0;
    int rc;
    if ((rc = gb__rd_str(R, o, w, "backend", d->backend, sizeof d->backend, GB__REQ)) ||
        (rc = gb__rd_int(R, o, w, "index", INT32_MIN, INT32_MAX, &index, GB__REQ)) ||
        (rc = gb__rd_str(R, o, w, "name", in->name, sizeof in->name, GB__REQ | GB__TRUNC)) ||
        (rc = gb__rd_str(R, o, w, "vendor", in->vendor, sizeof in->vendor, GB__TRUNC)) ||
        (rc = gb__rd_str(R, o, w, "driver", in->driver, sizeof in->driver, GB__TRUNC)) ||
        (rc = gb__rd_str(R, o, w, "version", in->version, sizeof in->version, GB__TRUNC)) ||
        (rc = gb__rd_str(R, o, w, "platform", in->platform, sizeof in->platform, GB__TRUNC)) ||
        (rc = gb__rd_str(R, o, w, "arch", in->arch, sizeof in->arch, GB__TRUNC)) ||
        (rc = gb__rd_u64(R, o, w, "global_mem_bytes", &in->global_mem, 0)) ||
        (rc = gb__rd_u64(R, o, w, "max_alloc_bytes", &in->max_alloc, 0)) ||
        (rc = gb__rd_u64(R, o, w, "local_mem_bytes", &in->local_mem, 0)) ||
        (rc = gb__rd_u64(R, o, w, "l2_bytes", &in->l2_bytes, 0)) ||
        (rc = gb__rd_u32(R, o, w, "compute_units", &in->compute_units, 0)) ||
        (rc = gb__rd_u32(R, o, w, "clock_mhz", &in->clock_mhz, 0)) ||
        (rc = gb__rd_u32(R, o, w, "mem_clock_mhz", &in->mem_clock_mhz, 0)) ||
        (rc = gb__rd_u32(R, o, w, "mem_bus_bits", &in->mem_bus_bits, 0)) ||
        (rc = gb__rd_u32(R, o, w, "max_work_group_size", &in->max_wg_size, 0)) ||
        (rc = gb__rd_u32(R, o, w, "warp_size", &in->warp_size, 0)) ||
        (rc = gb__rd_num(R, o, w, "peak_mem_gbs", &in->peak_mem_gbs, NAN, 0)))
        return rc;
    d->index = (int)index;

    json_t *dims;
    if ((rc = gb__rd_node(R, o, w, "max_work_group_dims", JSON_ARRAY, &dims, 0)) != 0)
        return rc;
    if (dims) {
        for (size_t k = 0; k < json_array_size(dims) && k < 3; k++) {
            json_t *x = json_array_get(dims, k);
            if (!json_is_integer(x) || json_integer_value(x) < 0 ||
                json_integer_value(x) > UINT32_MAX)
                return GB_USER_FAIL(GB_ESCHEMA,
                                    "%s: %s.max_work_group_dims[%zu]: expected an integer in "
                                    "[0, 4294967295], found %s",
                                    R->file, w, k, gb__jtype(x));
            in->max_wg_dims[k] = (uint32_t)json_integer_value(x);
        }
    }
    json_t *caps;
    if ((rc = gb__rd_node(R, o, w, "capabilities", JSON_ARRAY, &caps, 0)) != 0)
        return rc;
    if (caps) {
        for (size_t k = 0; k < json_array_size(caps); k++) {
            json_t *x = json_array_get(caps, k);
            if (!json_is_string(x))
                return GB_USER_FAIL(GB_ESCHEMA, "%s: %s.capabilities[%zu]: expected a string, "
                                    "found %s", R->file, w, k, gb__jtype(x));
            /* Unknown names (from a newer gpubench) are ignored. */
            for (size_t c = 0; c < sizeof gb__caps / sizeof gb__caps[0]; c++)
                if (strcmp(json_string_value(x), gb__caps[c].name) == 0)
                    in->caps |= gb__caps[c].bit;
        }
    }
    return 0;
}

static int gb__rd_params(struct gb__r *R, const json_t *o, const char *w, struct gb_result *r)
{
    json_t *params;
    int rc = gb__rd_node(R, o, w, "params", JSON_OBJECT, &params, GB__REQ);
    if (rc)
        return rc;
    if (json_object_size(params) > GB_MAX_AXES)
        return GB_USER_FAIL(GB_ESCHEMA, "%s: %s.params: %zu axes, at most %d", R->file, w,
                            json_object_size(params), GB_MAX_AXES);
    const char *key;
    json_t *v;
    size_t j = 0;
    json_object_foreach(params, key, v) /* insertion order: the suite's axis order */
    {
        if (strlen(key) >= sizeof r->names_store[j])
            return GB_USER_FAIL(GB_ESCHEMA, "%s: %s.params: axis name \"%s\" is longer than %zu "
                                "bytes", R->file, w, key, sizeof r->names_store[j] - 1);
        memcpy(r->names_store[j], key, strlen(key) + 1);
        r->params.name[j] = r->names_store[j];
        struct gb_value *val = &r->params.v[j];
        memset(val, 0, sizeof *val);
        switch (json_typeof(v)) {
        case JSON_INTEGER: {
            const struct gb_suite *s = gb_suite_find(r->suite);
            const struct gb_axis_def *ax = s ? gb_suite_axis(s, key) : NULL;
            if (ax && ax->type == GB_V_SIZE && json_integer_value(v) >= 0) {
                val->type = GB_V_SIZE;
                val->u.size = (uint64_t)json_integer_value(v);
            } else {
                val->type = GB_V_INT;
                val->u.i = (int64_t)json_integer_value(v);
            }
            break;
        }
        case JSON_REAL:
            val->type = GB_V_FLOAT;
            val->u.f = json_real_value(v);
            break;
        case JSON_STRING:
            if (strlen(json_string_value(v)) >= sizeof val->s)
                return GB_USER_FAIL(GB_ESCHEMA, "%s: %s.params.%s: string longer than %zu "
                                    "bytes", R->file, w, key, sizeof val->s - 1);
            val->type = GB_V_STR;
            memcpy(val->s, json_string_value(v), strlen(json_string_value(v)) + 1);
            break;
        case JSON_TRUE:
        case JSON_FALSE:
            val->type = GB_V_BOOL;
            val->u.b = json_is_true(v);
            break;
        default:
            return GB_USER_FAIL(GB_ESCHEMA, "%s: %s.params.%s: expected an integer, number, "
                                "string or boolean, found %s", R->file, w, key, gb__jtype(v));
        }
        j++;
    }
    r->params.n = j;
    return 0;
}

/* The optional "devices" array of a multi-device result: indices into the file's devices. */
static int gb__rd_set(struct gb__r *R, const json_t *o, const char *w, size_t ndevices,
                      struct gb_result *r)
{
    json_t *set;
    int rc = gb__rd_node(R, o, w, "devices", JSON_ARRAY, &set, 0);
    if (rc || !set)
        return rc;
    if (json_array_size(set) > GB_MAX_SET)
        return GB_USER_FAIL(GB_ESCHEMA, "%s: %s.devices: %zu devices, at most %d", R->file, w,
                            json_array_size(set), GB_MAX_SET);
    for (size_t k = 0; k < json_array_size(set); k++) {
        json_t *x = json_array_get(set, k);
        if (!json_is_integer(x) || json_integer_value(x) < 0 ||
            (size_t)json_integer_value(x) >= ndevices)
            return GB_USER_FAIL(GB_ESCHEMA, "%s: %s.devices[%zu]: expected an index into "
                                "devices (0..%zu)", R->file, w, k, ndevices ? ndevices - 1 : 0);
        r->set[k] = (int)json_integer_value(x);
    }
    r->nset = json_array_size(set);
    return 0;
}

/* The optional "figures" array: {name, unit, value} | {name, unit, values} | {name, text}. */
static int gb__rd_figures(struct gb__r *R, const json_t *o, const char *w, struct gb_result *r)
{
    json_t *figs;
    int rc = gb__rd_node(R, o, w, "figures", JSON_ARRAY, &figs, 0);
    if (rc || !figs)
        return rc;
    if (json_array_size(figs) > GB_MAX_FIGURES)
        return GB_USER_FAIL(GB_ESCHEMA, "%s: %s.figures: %zu figures, at most %d", R->file, w,
                            json_array_size(figs), GB_MAX_FIGURES);
    for (size_t k = 0; k < json_array_size(figs); k++) {
        json_t *fo = json_array_get(figs, k);
        char fw[80];
        snprintf(fw, sizeof fw, "%s.figures[%zu]", w, k);
        if (!json_is_object(fo))
            return GB_USER_FAIL(GB_ESCHEMA, "%s: %s: expected an object, found %s", R->file, fw,
                                gb__jtype(fo));
        struct gb_figure *f = &r->figures[k];
        memset(f, 0, sizeof *f);
        json_t *vals = NULL;
        if ((rc = gb__rd_str(R, fo, fw, "name", f->name, sizeof f->name, GB__REQ)) ||
            (rc = gb__rd_str(R, fo, fw, "unit", f->unit, sizeof f->unit, GB__TRUNC)) ||
            (rc = gb__rd_str(R, fo, fw, "text", f->text, sizeof f->text, GB__TRUNC)) ||
            (rc = gb__rd_node(R, fo, fw, "values", JSON_ARRAY, &vals, 0)))
            return rc;
        if (vals) {
            if (json_array_size(vals) == 0 || json_array_size(vals) > GB_MAX_SET)
                return GB_USER_FAIL(GB_ESCHEMA, "%s: %s.values: %zu values, expected 1..%d",
                                    R->file, fw, json_array_size(vals), GB_MAX_SET);
            f->per_device = true;
            f->n = json_array_size(vals);
            for (size_t j = 0; j < f->n; j++) {
                json_t *x = json_array_get(vals, j);
                if (!json_is_number(x) && !json_is_null(x))
                    return GB_USER_FAIL(GB_ESCHEMA, "%s: %s.values[%zu]: expected a number, "
                                        "found %s", R->file, fw, j, gb__jtype(x));
                f->v[j] = json_is_null(x) ? NAN : json_number_value(x);
            }
        } else if (json_object_get(fo, "value")) {
            f->n = 1;
            if ((rc = gb__rd_num(R, fo, fw, "value", &f->v[0], NAN, 0)))
                return rc;
        } else if (!json_object_get(fo, "text")) {
            return GB_USER_FAIL(GB_ESCHEMA, "%s: %s: a figure needs \"value\", \"values\" or "
                                "\"text\"", R->file, fw);
        }
    }
    r->nfigures = json_array_size(figs);
    return 0;
}

static int gb__rd_result(struct gb__r *R, const json_t *o, size_t i, size_t ndevices,
                         struct gb_result *r)
{
    char w[48];
    snprintf(w, sizeof w, "results[%zu]", i);
    if (!json_is_object(o))
        return GB_USER_FAIL(GB_ESCHEMA, "%s: %s: expected an object, found %s", R->file, w,
                            gb__jtype(o));
    int rc;
    int64_t dev = 0;
    char status[16] = "", better[16] = "", device_name[256]; /* device_name: derived, checked */
    if ((rc = gb__rd_str(R, o, w, "suite", r->suite, sizeof r->suite, GB__REQ)) ||
        (rc = gb__rd_str(R, o, w, "case", r->case_name, sizeof r->case_name, GB__REQ)) ||
        (rc = gb__rd_str(R, o, w, "backend", r->backend, sizeof r->backend, GB__REQ)) ||
        (rc = gb__rd_int(R, o, w, "device", -1, (int64_t)ndevices - 1, &dev, GB__REQ)) ||
        (rc = gb__rd_str(R, o, w, "device_name", device_name, sizeof device_name, GB__TRUNC)) ||
        (rc = gb__rd_params(R, o, w, r)) ||
        (rc = gb__rd_str(R, o, w, "status", status, sizeof status, GB__REQ)) ||
        (rc = gb__rd_str(R, o, w, "reason", r->reason, sizeof r->reason, GB__REQ | GB__TRUNC)) ||
        (rc = gb__rd_str(R, o, w, "metric", r->metric, sizeof r->metric, GB__REQ)) ||
        (rc = gb__rd_str(R, o, w, "unit", r->unit, sizeof r->unit, GB__REQ)) ||
        (rc = gb__rd_str(R, o, w, "better", better, sizeof better, GB__REQ)) ||
        (rc = gb__rd_num(R, o, w, "value", &r->value, NAN, GB__REQ)) ||
        (rc = gb__rd_stats(R, o, w, "stats", &r->stats, GB__REQ)) ||
        (rc = gb__rd_stats(R, o, w, "op_time_us", &r->op_time_us, 0)) ||
        (rc = gb__rd_u64(R, o, w, "batch", &r->batch, 0)) ||
        (rc = gb__rd_num(R, o, w, "bytes_per_op", &r->bytes_per_op, NAN, 0)) ||
        (rc = gb__rd_num(R, o, w, "flops_per_op", &r->flops_per_op, NAN, 0)) ||
        (rc = gb__rd_bool(R, o, w, "verified", &r->verified, GB__REQ)) ||
        (rc = gb__rd_num(R, o, w, "max_error", &r->max_error, NAN, 0)) ||
        (rc = gb__rd_bool(R, o, w, "noisy", &r->noisy, GB__REQ)) ||
        (rc = gb__rd_bool(R, o, w, "implausible", &r->implausible, 0)) ||
        (rc = gb__rd_num(R, o, w, "elapsed_s", &r->elapsed_s, NAN, 0)))
        return rc;
    r->device_index = (int)dev;
    if ((rc = gb__rd_set(R, o, w, ndevices, r)) || (rc = gb__rd_figures(R, o, w, r)))
        return rc;

    if (strcmp(status, "ok") == 0)
        r->status = GB_STATUS_OK;
    else if (strcmp(status, "skipped") == 0)
        r->status = GB_STATUS_SKIPPED;
    else if (strcmp(status, "failed") == 0)
        r->status = GB_STATUS_FAILED;
    else
        return GB_USER_FAIL(GB_ESCHEMA, "%s: %s.status: \"%s\" is not ok, skipped or failed",
                            R->file, w, status);
    if (strcmp(better, "higher") == 0)
        r->better = GB_BETTER_HIGHER;
    else if (strcmp(better, "lower") == 0)
        r->better = GB_BETTER_LOWER;
    else
        return GB_USER_FAIL(GB_ESCHEMA, "%s: %s.better: \"%s\" is not higher or lower", R->file,
                            w, better);

    json_t *samples;
    if ((rc = gb__rd_node(R, o, w, "samples", JSON_ARRAY, &samples, GB__REQ)) != 0)
        return rc;
    size_t n = json_array_size(samples);
    if (n) {
        r->samples = malloc(n * sizeof *r->samples);
        if (!r->samples)
            return GB_FAIL(GB_ENOMEM, "%s: %zu samples", R->file, n);
        for (size_t k = 0; k < n; k++) {
            json_t *x = json_array_get(samples, k);
            if (json_is_number(x))
                r->samples[k] = json_number_value(x);
            else if (json_is_null(x))
                r->samples[k] = NAN;
            else
                return GB_USER_FAIL(GB_ESCHEMA, "%s: %s.samples[%zu]: expected a number, found "
                                    "%s", R->file, w, k, gb__jtype(x));
        }
    }
    r->nsamples = n;
    return 0;
}

static int gb__rd_root(struct gb__r *R, const json_t *root, struct gb_results *out)
{
    int rc;
    if (!json_is_object(root))
        return GB_USER_FAIL(GB_ESCHEMA, "%s: expected a JSON object at the top, found %s",
                            R->file, gb__jtype(root));
    json_t *schema = json_object_get(root, "schema");
    if (!schema)
        return GB_USER_FAIL(GB_ESCHEMA, "%s: no \"schema\" field (expected \"%s\"): not a "
                            "gpubench results file", R->file, GB_RESULTS_SCHEMA);
    if (!json_is_string(schema))
        return GB_USER_FAIL(GB_ESCHEMA, "%s: \"schema\" is %s, expected the string \"%s\"",
                            R->file, gb__jtype(schema), GB_RESULTS_SCHEMA);
    if (strcmp(json_string_value(schema), GB_RESULTS_SCHEMA) != 0)
        return GB_USER_FAIL(GB_ESCHEMA, "%s: schema is \"%s\", expected \"%s\"", R->file,
                            json_string_value(schema), GB_RESULTS_SCHEMA);

    struct gb_run_meta *m = &out->run;
    json_t *gb, *run, *prof, *devs, *res;
    if ((rc = gb__rd_node(R, root, "", "gpubench", JSON_OBJECT, &gb, GB__REQ)) ||
        (rc = gb__rd_str(R, gb, "gpubench", "version", m->gpubench_version,
                         sizeof m->gpubench_version, GB__REQ | GB__TRUNC)) ||
        (rc = gb__rd_str(R, gb, "gpubench", "git_commit", m->git_commit, sizeof m->git_commit,
                         GB__TRUNC)) ||
        (rc = gb__rd_node(R, root, "", "run", JSON_OBJECT, &run, GB__REQ)) ||
        (rc = gb__rd_str(R, run, "run", "start_utc", m->start_utc, sizeof m->start_utc,
                         GB__TRUNC)) ||
        (rc = gb__rd_str(R, run, "run", "end_utc", m->end_utc, sizeof m->end_utc, GB__TRUNC)) ||
        (rc = gb__rd_str(R, run, "run", "host", m->host, sizeof m->host, GB__TRUNC)) ||
        (rc = gb__rd_str(R, run, "run", "os", m->os, sizeof m->os, GB__TRUNC)) ||
        (rc = gb__rd_str(R, run, "run", "command_line", m->command_line,
                         sizeof m->command_line, GB__TRUNC)) ||
        (rc = gb__rd_bool(R, run, "run", "interrupted", &m->interrupted, 0)) ||
        (rc = gb__rd_u64(R, run, "run", "cases_planned", &m->cases_planned, 0)) ||
        (rc = gb__rd_node(R, run, "run", "profile", JSON_OBJECT, &prof, 0)))
        return rc;
    if (prof &&
        ((rc = gb__rd_str(R, prof, "run.profile", "path", m->profile_path,
                          sizeof m->profile_path, GB__TRUNC)) ||
         (rc = gb__rd_str(R, prof, "run.profile", "name", m->profile_name,
                          sizeof m->profile_name, GB__TRUNC)) ||
         (rc = gb__rd_str(R, prof, "run.profile", "sha256", m->profile_sha256,
                          sizeof m->profile_sha256, 0))))
        return rc;

    if ((rc = gb__rd_node(R, root, "", "devices", JSON_ARRAY, &devs, GB__REQ)) ||
        (rc = gb__rd_node(R, root, "", "results", JSON_ARRAY, &res, GB__REQ)))
        return rc;

    size_t nd = json_array_size(devs);
    if (nd) {
        out->devices = calloc(nd, sizeof *out->devices);
        if (!out->devices)
            return GB_FAIL(GB_ENOMEM, "%s: %zu devices", R->file, nd);
        for (size_t i = 0; i < nd; i++) {
            if ((rc = gb__rd_device(R, json_array_get(devs, i), i, &out->devices[i])) != 0)
                return rc;
            out->ndevices++;
        }
    }

    size_t nr = json_array_size(res);
    if (nr) {
        out->results = calloc(nr, sizeof *out->results);
        if (!out->results)
            return GB_FAIL(GB_ENOMEM, "%s: %zu results", R->file, nr);
        out->cap = nr;
    }
    for (size_t i = 0; i < nr; i++) {
        struct gb_result *r = malloc(sizeof *r);
        if (!r)
            return GB_FAIL(GB_ENOMEM, "%s: result %zu", R->file, i);
        memset(r, 0, sizeof *r);
        rc = gb__rd_result(R, json_array_get(res, i), i, out->ndevices, r);
        if (rc == 0)
            rc = gb_results_add(out, r);
        free(r->samples); /* NULL when gb_results_add took it */
        free(r);
        if (rc)
            return rc;
    }
    return 0;
}

int gb_results_read(const char *path, struct gb_results *out)
{
    if (!path || !out)
        return GB_FAIL(GB_EINVAL, "gb_results_read: NULL argument");
    memset(out, 0, sizeof *out);

    FILE *f = fopen(path, "rb");
    if (!f)
        return GB_USER_FAIL(GB_EIO, "cannot open results file %s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? 2 * cap : 65536;
            char *g = ncap > cap ? realloc(buf, ncap) : NULL;
            if (!g) {
                free(buf);
                fclose(f);
                return GB_FAIL(GB_ENOMEM, "reading %s", path);
            }
            buf = g;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    bool ioerr = ferror(f) != 0;
    int saved = errno;
    fclose(f);
    if (ioerr) {
        free(buf);
        return GB_USER_FAIL(GB_EIO, "cannot read results file %s: %s", path, strerror(saved));
    }

    int rc;
    json_t *root = NULL;
    size_t ws = 0;
    while (ws < len && (buf[ws] == ' ' || buf[ws] == '\n' || buf[ws] == '\r' || buf[ws] == '\t'))
        ws++;
    if (ws == len) {
        rc = GB_USER_FAIL(GB_ESCHEMA, "%s: empty file (expected a \"%s\" JSON document)", path,
                          GB_RESULTS_SCHEMA);
        goto out;
    }
    json_error_t e;
    root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &e);
    if (!root) {
        bool at_end = e.position >= 0 && (size_t)e.position >= len;
        rc = GB_USER_FAIL(GB_ESCHEMA, "%s: not valid JSON at line %d, column %d: %s%s", path,
                          e.line, e.column, e.text,
                          at_end ? " (the file ends early: truncated?)" : "");
        goto out;
    }
    struct gb__r R = {path};
    rc = gb__rd_root(&R, root, out);
    if (rc)
        gb_results_free(out);
out:
    json_decref(root);
    free(buf);
    return rc;
}

/* ---- sha256 --------------------------------------------------------------------------------- */

int gb_sha256_file(const char *path, char hex[65])
{
    if (!path || !hex)
        return GB_FAIL(GB_EINVAL, "gb_sha256_file: NULL argument");
    hex[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return GB_USER_FAIL(GB_EIO, "cannot open %s: %s", path, strerror(errno));
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx) {
        fclose(f);
        return GB_FAIL(GB_ENOMEM, "EVP_MD_CTX_new");
    }
    int rc = 0;
    if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
        rc = GB_FAIL(GB_EIO, "EVP_DigestInit_ex(sha256) failed");
        goto out;
    }
    unsigned char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        if (EVP_DigestUpdate(ctx, buf, got) != 1) {
            rc = GB_FAIL(GB_EIO, "EVP_DigestUpdate failed");
            goto out;
        }
    }
    if (ferror(f)) {
        rc = GB_USER_FAIL(GB_EIO, "cannot read %s: %s", path, strerror(errno));
        goto out;
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen != 32) {
        rc = GB_FAIL(GB_EIO, "EVP_DigestFinal_ex failed");
        goto out;
    }
    for (unsigned int i = 0; i < mdlen; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
out:
    EVP_MD_CTX_free(ctx);
    fclose(f);
    return rc;
}
