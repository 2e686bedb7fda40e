/* gpubench — writing a results file (contract in results.h; the JSON form in results_json.h). */
#include "results/results.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "base/error.h"
#include "base/util.h"
#include "results/results_json.h"

static const char *better_name(enum gb_better b)
{
    return b == GB_BETTER_LOWER ? "lower" : "higher";
}

/* Builder state: any failed allocation or insertion sets `bad`, checked once at the end. */
struct writer {
    bool bad;
};

static void put(struct writer *w, json_t *obj, const char *key, json_t *v)
{
    if (json_object_set_new(obj, key, v) != 0) /* also when v or obj is NULL */
        w->bad = true;
}

static void append(struct writer *w, json_t *arr, json_t *v)
{
    if (json_array_append_new(arr, v) != 0)
        w->bad = true;
}

static json_t *jnum(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *ju64(uint64_t v)
{
    return v <= (uint64_t)INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v);
}

/* A JSON string of s; bytes that are not valid UTF-8 (a driver's odd device name) become '?'. */
static json_t *jstr(const char *s)
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

static json_t *stats_json(struct writer *w, const struct gb_stats *st)
{
    json_t *o = json_object();
    put(w, o, "n", ju64(st->n));
    for (size_t i = 0; i < gb__nstat_fields; i++) {
        const double *x = (const double *)((const char *)st + gb__stat_fields[i].offset);
        put(w, o, gb__stat_fields[i].name, jnum(*x));
    }
    return o;
}

static json_t *value_json(const struct gb_value *v)
{
    switch (v->type) {
    case GB_V_SIZE:
        return ju64(v->u.size);
    case GB_V_INT:
        return json_integer((json_int_t)v->u.i);
    case GB_V_FLOAT:
        return jnum(v->u.f);
    case GB_V_STR:
        return jstr(v->s);
    case GB_V_BOOL:
        return json_boolean(v->u.b);
    }
    return json_null();
}

static json_t *device_json(struct writer *w, const struct gb_result_device *d)
{
    const struct gb_device_info *in = &d->info;
    json_t *o = json_object();
    put(w, o, "backend", jstr(d->backend));
    put(w, o, "index", json_integer(d->index));
    for (size_t i = 0; i < gb__ninfo_fields; i++) {
        const struct gb__info_field *f = &gb__info_fields[i];
        const char *p = (const char *)in + f->offset;
        json_t *v = f->is_str      ? jstr(p)
                    : f->size == 8 ? ju64(*(const uint64_t *)p)
                                   : ju64(*(const uint32_t *)p);
        put(w, o, f->name, v);
    }
    json_t *dims = json_array();
    for (int i = 0; i < 3; i++)
        append(w, dims, ju64(in->max_wg_dims[i]));
    put(w, o, "max_work_group_dims", dims);
    put(w, o, "warp_size", ju64(in->warp_size));
    put(w, o, "peak_mem_gbs", jnum(in->peak_mem_gbs));
    json_t *caps = json_array();
    for (size_t i = 0; i < gb__ncaps; i++)
        if (in->caps & gb__caps[i].bit)
            append(w, caps, json_string(gb__caps[i].name));
    put(w, o, "capabilities", caps);
    char id[64];
    put(w, o, "identity", jstr(gb_id_kind_name(gb_device_identity(d, id, sizeof id))));
    return o;
}

static json_t *figure_json(struct writer *w, const struct gb_figure *f)
{
    json_t *o = json_object();
    put(w, o, "name", jstr(f->name));
    if (f->n == 0) {
        put(w, o, "text", jstr(f->text));
        return o;
    }
    put(w, o, "unit", jstr(f->unit));
    if (!f->per_device) {
        put(w, o, "value", jnum(f->v[0]));
        return o;
    }
    json_t *vals = json_array();
    for (size_t i = 0; i < f->n && i < GB_MAX_SET; i++)
        append(w, vals, jnum(f->v[i]));
    put(w, o, "values", vals);
    return o;
}

static json_t *result_json(struct writer *w, const struct gb_results *rs, const struct gb_result *r)
{
    json_t *o = json_object();
    put(w, o, "suite", jstr(r->suite));
    put(w, o, "case", jstr(r->case_name));
    put(w, o, "backend", jstr(r->backend));
    put(w, o, "device", json_integer(r->device_index));
    const char *dname = "";
    if (r->device_index >= 0 && (size_t)r->device_index < rs->ndevices)
        dname = rs->devices[r->device_index].info.name;
    put(w, o, "device_name", jstr(dname));
    json_t *params = json_object();
    for (size_t j = 0; j < r->params.n && j < GB_MAX_AXES; j++)
        put(w, params, r->params.name[j] ? r->params.name[j] : "?", value_json(&r->params.v[j]));
    put(w, o, "params", params);
    put(w, o, "status", json_string(gb_status_name(r->status)));
    put(w, o, "reason", jstr(r->reason));
    put(w, o, "metric", jstr(r->metric));
    put(w, o, "unit", jstr(r->unit));
    put(w, o, "better", json_string(better_name(r->better)));
    put(w, o, "value", jnum(r->value));
    put(w, o, "stats", stats_json(w, &r->stats));
    put(w, o, "op_time_us", stats_json(w, &r->op_time_us));
    json_t *samples = json_array();
    for (size_t i = 0; r->samples && i < r->nsamples; i++)
        append(w, samples, jnum(r->samples[i]));
    put(w, o, "samples", samples);
    put(w, o, "batch", ju64(r->batch));
    put(w, o, "bytes_per_op", jnum(r->bytes_per_op));
    put(w, o, "flops_per_op", jnum(r->flops_per_op));
    put(w, o, "verified", json_boolean(r->verified));
    put(w, o, "max_error", jnum(r->max_error));
    put(w, o, "noisy", json_boolean(r->noisy));
    put(w, o, "implausible", json_boolean(r->implausible));
    if (r->regime[0]) /* memory-hierarchy results only */
        put(w, o, "regime", jstr(r->regime));
    if (r->timer[0])
        put(w, o, "timer", jstr(r->timer));
    put(w, o, "elapsed_s", jnum(r->elapsed_s));
    /* Multi-device results only: the set of devices and the named figures (both additive). */
    if (r->nset > 0) {
        json_t *set = json_array();
        for (size_t i = 0; i < r->nset && i < GB_MAX_SET; i++)
            append(w, set, json_integer(r->set[i]));
        put(w, o, "devices", set);
    }
    if (r->nfigures > 0) {
        json_t *figs = json_array();
        for (size_t i = 0; i < r->nfigures && i < GB_MAX_FIGURES; i++)
            append(w, figs, figure_json(w, &r->figures[i]));
        put(w, o, "figures", figs);
    }
    if (r->tel.on)
        put(w, o, "telemetry", gb__tel_summary_json(&r->tel));
    return o;
}

/* The kind of params.v[j] of r, as the file's "axes" names it. */
static const char *axis_kind(const struct gb_result *r, size_t j)
{
    if (r->device_pos_axes & (UINT32_C(1) << j))
        return "device";
    switch (r->params.v[j].type) {
    case GB_V_SIZE:
        return "size";
    case GB_V_INT:
        return "integer";
    case GB_V_FLOAT:
        return "number";
    case GB_V_BOOL:
        return "boolean";
    case GB_V_STR:
        break;
    }
    return "string";
}

/* "axes": for every suite with results in rs, the kind of each of its params, so that a reader
 * tells a size from an integer (and a device position from either) without the suites' tables.
 * The first result of a suite that names an axis gives its kind. */
static json_t *axes_json(struct writer *w, const struct gb_results *rs)
{
    json_t *axes = json_object();
    for (size_t k = 0; axes && k < rs->nresults; k++) {
        const struct gb_result *r = &rs->results[k];
        json_t *su = json_object_get(axes, r->suite);
        if (!su) {
            su = json_object();
            put(w, axes, r->suite, su);
        }
        for (size_t j = 0; su && j < r->params.n && j < GB_MAX_AXES; j++) {
            const char *name = r->params.name[j] ? r->params.name[j] : "?";
            if (!json_object_get(su, name))
                put(w, su, name, json_string(axis_kind(r, j)));
        }
    }
    return axes;
}

static json_t *results_json(struct writer *w, const struct gb_results *rs)
{
    const struct gb_run_meta *m = &rs->run;
    json_t *root = json_object();
    put(w, root, "schema", json_string(GB_RESULTS_SCHEMA));

    json_t *gb = json_object();
    put(w, gb, "version", jstr(m->gpubench_version));
    put(w, gb, "git_commit", jstr(m->git_commit));
    put(w, root, "gpubench", gb);

    json_t *run = json_object();
    put(w, run, "start_utc", jstr(m->start_utc));
    put(w, run, "end_utc", jstr(m->end_utc));
    put(w, run, "host", jstr(m->host));
    put(w, run, "os", jstr(m->os));
    put(w, run, "command_line", jstr(m->command_line));
    json_t *prof = json_object();
    put(w, prof, "path", jstr(m->profile_path));
    put(w, prof, "name", jstr(m->profile_name));
    put(w, prof, "sha256", jstr(m->profile_sha256));
    put(w, run, "profile", prof);
    put(w, run, "interrupted", json_boolean(m->interrupted));
    put(w, run, "cases_planned", json_integer((json_int_t)m->cases_planned));
    if (m->machine.recorded)
        put(w, run, "machine", gb__tel_machine_json(&m->machine));
    put(w, root, "run", run);

    json_t *devs = json_array();
    for (size_t i = 0; i < rs->ndevices; i++)
        append(w, devs, device_json(w, &rs->devices[i]));
    put(w, root, "devices", devs);
    put(w, root, "axes", axes_json(w, rs));
    if (rs->ncharts) {
        json_t *ch = json_object();
        for (size_t i = 0; i < rs->ncharts && i < GB_MAX_CHART_HINTS; i++) {
            json_t *h = json_object();
            put(w, h, "kind", jstr(rs->charts[i].kind));
            if (rs->charts[i].x[0])
                put(w, h, "x", jstr(rs->charts[i].x));
            put(w, ch, rs->charts[i].suite, h);
        }
        put(w, root, "charts", ch);
    }

    json_t *res = json_array();
    for (size_t k = 0; k < rs->nresults; k++)
        append(w, res, result_json(w, rs, &rs->results[k]));
    put(w, root, "results", res);
    return root;
}

/* Writes the document: its members indented, as a person reads them, except each result, which
 * is one line of compact JSON ("results": [\n{...},\n{...}\n]): a file of 300 results is a
 * third smaller than fully indented, a fleet's reader lexes that much less (fleet.h), and grep
 * finds a case's whole line. "results" is the last member (results_json). 0 or -1. */
static int dump(json_t *root, FILE *f)
{
    json_t *res = json_incref(json_object_get(root, "results"));
    if (!res || json_object_del(root, "results") != 0) {
        json_decref(res);
        return -1;
    }
    char *head = json_dumps(root, JSON_INDENT(2));
    int rc = head ? 0 : -1;
    /* head is "{\n  ...\n}": its members, then "results" in place of the closing brace. */
    size_t n = head ? strlen(head) : 0;
    if (!rc && (n < 2 || head[n - 1] != '}'))
        rc = -1;
    if (!rc) {
        while (n > 1 && (head[n - 2] == '\n' || head[n - 2] == ' '))
            n--;
        bool members = n > 2; /* "{}": none */
        if (fwrite(head, 1, n - 1, f) != n - 1 ||
            fputs(members ? ",\n  \"results\": [" : "\n  \"results\": [", f) == EOF)
            rc = -1;
    }
    for (size_t i = 0; !rc && i < json_array_size(res); i++)
        if (fputs(i ? ",\n    " : "\n    ", f) == EOF ||
            json_dumpf(json_array_get(res, i), f, JSON_COMPACT) != 0)
            rc = -1;
    if (!rc && fputs(json_array_size(res) ? "\n  ]\n}\n" : "]\n}\n", f) == EOF)
        rc = -1;
    free(head);
    /* root is the caller's to free, with its results back in it */
    if (json_object_set_new(root, "results", res) != 0)
        rc = -1;
    return rc;
}

int gb_results_write(const struct gb_results *rs, const char *path)
{
    if (!rs || !path || !*path)
        return GB_FAIL(GB_EINVAL, "gb_results_write: no results or no path");

    struct writer w = {false};
    json_t *root = results_json(&w, rs);
    if (!root || w.bad) {
        json_decref(root);
        return GB_USER_FAIL(GB_EIO, "cannot write %s: out of memory building the JSON", path);
    }

    /* A symbolic link at path is written through: the temporary goes beside its target and is
     * renamed over the target, never over the link. */
    char *target = malloc(PATH_MAX), *tmp = malloc(PATH_MAX + 32);
    if (!target || !tmp || !gb_output_resolve(path, target, PATH_MAX)) {
        int e = errno;
        free(target);
        free(tmp);
        json_decref(root);
        return GB_USER_FAIL(GB_EIO, "cannot write %s: %s", path, strerror(e));
    }
    const char *dest = target;

    int rc = 0;
    FILE *f = NULL;
    int fd = gb_tmp_create(dest, tmp, PATH_MAX + 32);
    if (fd < 0) {
        rc = GB_USER_FAIL(GB_EIO, "cannot write %s: cannot create the temporary file %s: %s", path,
                          tmp, strerror(errno));
        goto out; /* nothing to remove */
    }
    f = fdopen(fd, "w");
    if (!f) {
        rc = GB_USER_FAIL(GB_EIO, "cannot write %s: fdopen: %s", path, strerror(errno));
        close(fd);
        goto remove;
    }
    errno = 0;
    if (dump(root, f) != 0) {
        rc = GB_USER_FAIL(GB_EIO, "cannot write %s: writing %s: %s", path, tmp,
                          errno ? strerror(errno) : "JSON encoding failed");
        goto close_remove;
    }
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
        rc = GB_USER_FAIL(GB_EIO, "cannot write %s: flushing %s: %s", path, tmp, strerror(errno));
        goto close_remove;
    }
    if (fclose(f) != 0) {
        f = NULL;
        rc = GB_USER_FAIL(GB_EIO, "cannot write %s: closing %s: %s", path, tmp, strerror(errno));
        goto remove;
    }
    f = NULL;
    if (rename(tmp, dest) != 0) {
        rc = GB_USER_FAIL(GB_EIO, "cannot write %s: renaming %s over it: %s", path, tmp,
                          strerror(errno));
        goto remove;
    }
    /* Make the rename itself durable (best effort: the file is complete either way). */
    {
        char *dir = strdup(dest);
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
    free(target);
    json_decref(root);
    return rc;
}
