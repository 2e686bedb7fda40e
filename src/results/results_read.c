/* gpubench — reading a results file (contract in results.h; the JSON form in results_json.h). */
#include "results/results.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "base/error.h"
#include "base/util.h"
#include "results/json_arena.h"
#include "results/json_load.h"
#include "results/results_json.h"

struct reader {
    const char *file;
    unsigned flags;     /* GB_READ_* */
    const json_t *axes; /* the file's "axes" (borrowed from its root); NULL in older files */
};

enum { RD_REQ = 1, RD_TRUNC = 2 };

static const char *jtype(const json_t *v)
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

static int bad_type(struct reader *R, const char *where, const char *key, const char *want,
                    const json_t *v)
{
    return GB_USER_FAIL(GB_ESCHEMA, "%s: %s%s%s: expected %s, found %s", R->file, where,
                        *where ? "." : "", key, want, jtype(v));
}

/* The JSON types a field may have, as bits (1u << json_type). */
#define TYPES(t) (1u << (t))

/* Looks up key in obj and checks that its JSON type is one of `types` (`want` names them in the
 * message). Returns 0 with *v (NULL when absent and not required) or GB_ESCHEMA. */
static int field(struct reader *R, const json_t *obj, const char *where, const char *key, int flags,
                 unsigned types, const char *want, json_t **v)
{
    *v = json_object_get(obj, key);
    if (!*v && (flags & RD_REQ))
        return GB_USER_FAIL(GB_ESCHEMA, "%s: %s%smissing required field \"%s\"", R->file, where,
                            *where ? ": " : "", key);
    if (*v && !(types & TYPES(json_typeof(*v))))
        return bad_type(R, where, key, want, *v);
    return 0;
}

static int rd_str(struct reader *R, const json_t *obj, const char *where, const char *key,
                  char *dst, size_t cap, int flags)
{
    json_t *v;
    int rc = field(R, obj, where, key, flags, TYPES(JSON_STRING), "a string", &v);
    if (rc || !v)
        return rc;
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    bool cut = n >= cap;
    if (cut) {
        if (!(flags & RD_TRUNC))
            return GB_USER_FAIL(GB_ESCHEMA, "%s: %s%s%s: string of %zu bytes, at most %zu allowed",
                                R->file, where, *where ? "." : "", key, n, cap - 1);
        n = cap - 1;
    }
    memcpy(dst, s, n);
    dst[n] = '\0';
    if (cut)
        gb_utf8_trim(dst); /* a cut may not leave half a character */
    return 0;
}

/* A time as every gpubench writes it, ISO 8601 UTC "YYYY-MM-DDTHH:MM:SSZ", or empty (a run
 * cut short before its end, a file without the field): 0, else GB_ESCHEMA naming the field
 * (history sorts nights by this text and OpenMetrics turns it into a timestamp). */
static int rd_utc(struct reader *R, const json_t *obj, const char *where, const char *key,
                  char *dst, size_t cap)
{
    int rc = rd_str(R, obj, where, key, dst, cap, RD_TRUNC);
    if (rc || !dst[0])
        return rc;
    static const char form[] = "dddd-dd-ddTdd:dd:ddZ";
    bool ok = strlen(dst) == sizeof form - 1;
    for (size_t i = 0; ok && form[i]; i++)
        ok = form[i] == 'd' ? (dst[i] >= '0' && dst[i] <= '9') : dst[i] == form[i];
    if (ok) {
        int mo = atoi(dst + 5), d = atoi(dst + 8), h = atoi(dst + 11), mi = atoi(dst + 14),
            sec = atoi(dst + 17);
        ok = mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && sec <= 60;
    }
    if (!ok)
        return GB_USER_FAIL(GB_ESCHEMA,
                            "%s: %s.%s is \"%s\", expected a UTC time such as "
                            "\"2026-11-30T04:00:00Z\"",
                            R->file, where, key, dst);
    return 0;
}

/* A number; null reads as `null_value`. */
static int rd_num(struct reader *R, const json_t *obj, const char *where, const char *key,
                  double *dst, double null_value, int flags)
{
    const unsigned types = TYPES(JSON_INTEGER) | TYPES(JSON_REAL) | TYPES(JSON_NULL);
    json_t *v;
    int rc = field(R, obj, where, key, flags, types, "a number or null", &v);
    if (!rc && v)
        *dst = json_is_null(v) ? null_value : json_number_value(v);
    return rc;
}

static int rd_int(struct reader *R, const json_t *obj, const char *where, const char *key,
                  int64_t lo, int64_t hi, int64_t *dst, int flags)
{
    json_t *v;
    int rc = field(R, obj, where, key, flags, TYPES(JSON_INTEGER), "an integer", &v);
    if (rc || !v)
        return rc;
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi)
        return GB_USER_FAIL(GB_ESCHEMA, "%s: %s%s%s: %lld is out of range [%lld, %lld]", R->file,
                            where, *where ? "." : "", key, (long long)x, (long long)lo,
                            (long long)hi);
    *dst = (int64_t)x;
    return 0;
}

/* An integer in [0, max]; *dst is left as it was when the key is absent or on error. */
static int rd_uint(struct reader *R, const json_t *obj, const char *where, const char *key,
                   uint64_t max, uint64_t *dst, int flags)
{
    int64_t x = 0;
    json_t *v = json_object_get(obj, key);
    int rc = rd_int(R, obj, where, key, 0, (int64_t)max, &x, flags);
    if (rc == 0 && v)
        *dst = (uint64_t)x;
    return rc;
}

static int rd_u64(struct reader *R, const json_t *obj, const char *where, const char *key,
                  uint64_t *dst, int flags)
{
    return rd_uint(R, obj, where, key, INT64_MAX, dst, flags);
}

static int rd_u32(struct reader *R, const json_t *obj, const char *where, const char *key,
                  uint32_t *dst, int flags)
{
    uint64_t x = *dst;
    int rc = rd_uint(R, obj, where, key, UINT32_MAX, &x, flags);
    *dst = (uint32_t)x;
    return rc;
}

static int rd_bool(struct reader *R, const json_t *obj, const char *where, const char *key,
                   bool *dst, int flags)
{
    const unsigned types = TYPES(JSON_TRUE) | TYPES(JSON_FALSE);
    json_t *v;
    int rc = field(R, obj, where, key, flags, types, "true or false", &v);
    if (!rc && v)
        *dst = json_is_true(v);
    return rc;
}

/* An object or array member, type-checked. */
static int rd_node(struct reader *R, const json_t *obj, const char *where, const char *key,
                   json_type type, json_t **dst, int flags)
{
    return field(R, obj, where, key, flags, TYPES(type),
                 type == JSON_OBJECT ? "an object" : "an array", dst);
}

static int rd_stats(struct reader *R, const json_t *obj, const char *where, const char *key,
                    struct gb_stats *st, int flags)
{
    json_t *o;
    int rc = rd_node(R, obj, where, key, JSON_OBJECT, &o, flags);
    if (rc || !o)
        return rc;
    char w[96];
    snprintf(w, sizeof w, "%s%s%s", where, *where ? "." : "", key);
    uint64_t n = 0;
    if ((rc = rd_u64(R, o, w, "n", &n, RD_REQ)) != 0)
        return rc;
    st->n = (size_t)n;
    for (size_t i = 0; i < gb__nstat_fields; i++) {
        double *x = (double *)((char *)st + gb__stat_fields[i].offset);
        double nullv = x == &st->ci95 ? INFINITY : NAN;
        if ((rc = rd_num(R, o, w, gb__stat_fields[i].name, x, nullv, RD_REQ)) != 0)
            return rc;
    }
    return 0;
}

static int rd_device(struct reader *R, const json_t *o, size_t i, struct gb_result_device *d)
{
    char w[48];
    snprintf(w, sizeof w, "devices[%zu]", i);
    if (!json_is_object(o))
        return GB_USER_FAIL(GB_ESCHEMA, "%s: %s: expected an object, found %s", R->file, w,
                            jtype(o));
    struct gb_device_info *in = &d->info;
    int64_t index = 0;
    int rc;
    if ((rc = rd_str(R, o, w, "backend", d->backend, sizeof d->backend, RD_REQ)) ||
        (rc = rd_int(R, o, w, "index", INT32_MIN, INT32_MAX, &index, RD_REQ)))
        return rc;
    for (size_t k = 0; k < gb__ninfo_fields; k++) {
        const struct gb__info_field *f = &gb__info_fields[k];
        char *p = (char *)in + f->offset;
        if (f->is_str)
            rc = rd_str(R, o, w, f->name, p, f->size, RD_TRUNC | (f->required ? RD_REQ : 0));
        else if (f->size == 8)
            rc = rd_u64(R, o, w, f->name, (uint64_t *)p, 0);
        else
            rc = rd_u32(R, o, w, f->name, (uint32_t *)p, 0);
        if (rc)
            return rc;
    }
    if ((rc = rd_u32(R, o, w, "warp_size", &in->warp_size, 0)) ||
        (rc = rd_num(R, o, w, "peak_mem_gbs", &in->peak_mem_gbs, NAN, 0)))
        return rc;
    d->index = (int)index;

    json_t *dims;
    if ((rc = rd_node(R, o, w, "max_work_group_dims", JSON_ARRAY, &dims, 0)) != 0)
        return rc;
    if (dims) {
        for (size_t k = 0; k < json_array_size(dims) && k < 3; k++) {
            json_t *x = json_array_get(dims, k);
            if (!json_is_integer(x) || json_integer_value(x) < 0 ||
                json_integer_value(x) > UINT32_MAX)
                return GB_USER_FAIL(GB_ESCHEMA,
                                    "%s: %s.max_work_group_dims[%zu]: expected an integer in "
                                    "[0, 4294967295], found %s",
                                    R->file, w, k, jtype(x));
            in->max_wg_dims[k] = (uint32_t)json_integer_value(x);
        }
    }
    json_t *caps;
    if ((rc = rd_node(R, o, w, "capabilities", JSON_ARRAY, &caps, 0)) != 0)
        return rc;
    if (caps) {
        for (size_t k = 0; k < json_array_size(caps); k++) {
            json_t *x = json_array_get(caps, k);
            if (!json_is_string(x))
                return GB_USER_FAIL(GB_ESCHEMA,
                                    "%s: %s.capabilities[%zu]: expected a string, "
                                    "found %s",
                                    R->file, w, k, jtype(x));
            /* Unknown names (from a newer gpubench) are ignored. */
            for (size_t c = 0; c < gb__ncaps; c++)
                if (strcmp(json_string_value(x), gb__caps[c].name) == 0)
                    in->caps |= gb__caps[c].bit;
        }
    }
    return 0;
}

/* The kinds of the integer params of the suites as they were when gpubench-results/2 files
 * carried no "axes": sizes and device positions. A fact about old files, frozen: new suites
 * and axes describe themselves in the files they write. */
static const struct {
    const char *suite, *axis, *kind;
} legacy_kinds[] = {
    {"aggregate", "size", "size"}, {"allreduce", "size", "size"}, {"batching", "size", "size"},
    {"cache", "reads", "size"},    {"cache", "size", "size"},     {"latency", "size", "size"},
    {"latency", "stride", "size"}, {"local", "bytes", "size"},    {"local", "local", "size"},
    {"memory", "size", "size"},    {"peer", "size", "size"},      {"peerbw", "size", "size"},
    {"scaling", "size", "size"},   {"transfer", "size", "size"},  {"peer", "src", "device"},
    {"peer", "dst", "device"},     {"peerbw", "src", "device"},   {"peerbw", "dst", "device"},
};

/* The kind of an integer param `axis` of a `suite` result: the file's "axes" says it ("size",
 * "device", "integer"...); a file without "axes" is read by the frozen table above. */
static const char *axis_kind(const struct reader *R, const char *suite, const char *axis)
{
    if (R->axes) {
        const json_t *k = json_object_get(json_object_get(R->axes, suite), axis);
        return json_is_string(k) ? json_string_value(k) : "integer";
    }
    for (size_t i = 0; i < sizeof legacy_kinds / sizeof legacy_kinds[0]; i++)
        if (strcmp(legacy_kinds[i].suite, suite) == 0 && strcmp(legacy_kinds[i].axis, axis) == 0)
            return legacy_kinds[i].kind;
    return "integer";
}

/* Checks the file's "axes": an object of suites, each an object of param kinds, each one of the
 * six words. A kind the reader cannot use would silently turn a size into an integer, and the
 * cases of that suite would no longer pair with another file's. */
static int rd_axes(struct reader *R, const json_t *axes)
{
    static const char *const kinds[] = {"size", "integer", "number", "string", "boolean", "device"};
    const char *suite, *axis;
    const json_t *su, *k;
    json_object_foreach((json_t *)axes, suite, su)
    {
        if (!json_is_object(su))
            return GB_USER_FAIL(GB_ESCHEMA, "%s: axes.%.64s: expected an object, found %s", R->file,
                                suite, jtype(su));
        json_object_foreach((json_t *)su, axis, k)
        {
            bool known = false;
            for (size_t i = 0; json_is_string(k) && i < sizeof kinds / sizeof kinds[0]; i++)
                known = known || strcmp(json_string_value(k), kinds[i]) == 0;
            if (!known)
                return GB_USER_FAIL(GB_ESCHEMA,
                                    "%s: axes.%.64s.%.64s: expected one of size, integer, "
                                    "number, string, boolean, device, found %s%.64s%s",
                                    R->file, suite, axis, json_is_string(k) ? "\"" : jtype(k),
                                    json_is_string(k) ? json_string_value(k) : "",
                                    json_is_string(k) ? "\"" : "");
        }
    }
    return 0;
}

/* The file's "charts": per suite {"kind": "bars" | "line", "x": AXIS}, into out->charts (at most
 * GB_MAX_CHART_HINTS; more are left out). A kind the report cannot draw is refused. */
static int rd_charts(struct reader *R, const json_t *charts, struct gb_results *out)
{
    const char *suite;
    const json_t *h;
    json_object_foreach((json_t *)charts, suite, h)
    {
        const json_t *k = json_object_get(h, "kind"), *x = json_object_get(h, "x");
        const char *ks = json_is_string(k) ? json_string_value(k) : "";
        if (!json_is_object(h) || (strcmp(ks, "bars") != 0 && strcmp(ks, "line") != 0) ||
            (x && !json_is_string(x)))
            return GB_USER_FAIL(GB_ESCHEMA,
                                "%s: charts.%.64s: expected {\"kind\": \"bars\" or \"line\", "
                                "\"x\": an axis name}",
                                R->file, suite);
        if (out->ncharts == GB_MAX_CHART_HINTS) {
            out->charts_dropped++;
            continue;
        }
        struct gb_chart_note *n = &out->charts[out->ncharts++];
        snprintf(n->suite, sizeof n->suite, "%s", suite);
        snprintf(n->kind, sizeof n->kind, "%s", ks);
        snprintf(n->x, sizeof n->x, "%s", x ? json_string_value(x) : "");
    }
    return 0;
}

static int rd_params(struct reader *R, const json_t *o, const char *w, struct gb_result *r)
{
    json_t *params;
    int rc = rd_node(R, o, w, "params", JSON_OBJECT, &params, RD_REQ);
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
            return GB_USER_FAIL(GB_ESCHEMA,
                                "%s: %s.params: axis name \"%.64s%s\" is longer than %zu "
                                "bytes",
                                R->file, w, key, strlen(key) > 64 ? "..." : "",
                                sizeof r->names_store[j] - 1);
        memcpy(r->names_store[j], key, strlen(key) + 1);
        r->params.name[j] = r->names_store[j];
        struct gb_value *val = &r->params.v[j];
        memset(val, 0, sizeof *val);
        switch (json_typeof(v)) {
        case JSON_INTEGER: {
            const char *kind = axis_kind(R, r->suite, key);
            if (strcmp(kind, "size") == 0 && json_integer_value(v) >= 0) {
                val->type = GB_V_SIZE;
                val->u.size = (uint64_t)json_integer_value(v);
            } else {
                val->type = GB_V_INT;
                val->u.i = (int64_t)json_integer_value(v);
                if (strcmp(kind, "device") == 0)
                    r->device_pos_axes |= UINT32_C(1) << j;
            }
            break;
        }
        case JSON_REAL:
            val->type = GB_V_FLOAT;
            val->u.f = json_real_value(v);
            break;
        case JSON_STRING:
            if (strlen(json_string_value(v)) >= sizeof val->s)
                return GB_USER_FAIL(GB_ESCHEMA,
                                    "%s: %s.params.%s: string longer than %zu "
                                    "bytes",
                                    R->file, w, key, sizeof val->s - 1);
            val->type = GB_V_STR;
            memcpy(val->s, json_string_value(v), strlen(json_string_value(v)) + 1);
            break;
        case JSON_TRUE:
        case JSON_FALSE:
            val->type = GB_V_BOOL;
            val->u.b = json_is_true(v);
            break;
        default:
            return GB_USER_FAIL(GB_ESCHEMA,
                                "%s: %s.params.%s: expected an integer, number, "
                                "string or boolean, found %s",
                                R->file, w, key, jtype(v));
        }
        j++;
    }
    r->params.n = j;
    return 0;
}

/* An optional array member `key` of object o (at w) of at most max items, `what` in messages. */
static int rd_array(struct reader *R, const json_t *o, const char *w, const char *key, size_t max,
                    const char *what, json_t **arr)
{
    int rc = rd_node(R, o, w, key, JSON_ARRAY, arr, 0);
    if (rc || !*arr)
        return rc;
    if (json_array_size(*arr) > max)
        return GB_USER_FAIL(GB_ESCHEMA, "%s: %s.%s: %zu %s, at most %zu", R->file, w, key,
                            json_array_size(*arr), what, max);
    return 0;
}

/* The "devices" array of a multi-device result (rd_array): indices into the file's devices. */
static int rd_set(struct reader *R, const json_t *set, const char *w, size_t ndevices,
                  struct gb_result *r)
{
    for (size_t k = 0; k < json_array_size(set); k++) {
        json_t *x = json_array_get(set, k);
        if (!json_is_integer(x) || json_integer_value(x) < 0 ||
            (size_t)json_integer_value(x) >= ndevices)
            return GB_USER_FAIL(GB_ESCHEMA,
                                "%s: %s.devices[%zu]: expected an index into "
                                "devices (0..%zu)",
                                R->file, w, k, ndevices ? ndevices - 1 : 0);
        r->set[k] = (int)json_integer_value(x);
    }
    r->nset = json_array_size(set);
    return 0;
}

/* The "figures" array (rd_array): {name, unit, value} | {name, unit, values} | {name, text}. */
static int rd_figures(struct reader *R, const json_t *figs, const char *w, struct gb_result *r)
{
    int rc;
    for (size_t k = 0; k < json_array_size(figs); k++) {
        json_t *fo = json_array_get(figs, k);
        char fw[80];
        snprintf(fw, sizeof fw, "%s.figures[%zu]", w, k);
        if (!json_is_object(fo))
            return GB_USER_FAIL(GB_ESCHEMA, "%s: %s: expected an object, found %s", R->file, fw,
                                jtype(fo));
        struct gb_figure *f = &r->figures[k];
        memset(f, 0, sizeof *f);
        json_t *vals = NULL;
        if ((rc = rd_str(R, fo, fw, "name", f->name, sizeof f->name, RD_REQ)) ||
            (rc = rd_str(R, fo, fw, "unit", f->unit, sizeof f->unit, RD_TRUNC)) ||
            (rc = rd_str(R, fo, fw, "text", f->text, sizeof f->text, RD_TRUNC)) ||
            (rc = rd_node(R, fo, fw, "values", JSON_ARRAY, &vals, 0)))
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
                    return GB_USER_FAIL(GB_ESCHEMA,
                                        "%s: %s.values[%zu]: expected a number, "
                                        "found %s",
                                        R->file, fw, j, jtype(x));
                f->v[j] = json_is_null(x) ? NAN : json_number_value(x);
            }
        } else if (json_object_get(fo, "value")) {
            f->n = 1;
            if ((rc = rd_num(R, fo, fw, "value", &f->v[0], NAN, 0)))
                return rc;
        } else if (!json_object_get(fo, "text")) {
            return GB_USER_FAIL(GB_ESCHEMA,
                                "%s: %s: a figure needs \"value\", \"values\" or "
                                "\"text\"",
                                R->file, fw);
        }
    }
    r->nfigures = json_array_size(figs);
    return 0;
}

/* Reads results[i] into *r, which comes zeroed. */
static int rd_result(struct reader *R, const json_t *o, size_t i, size_t ndevices,
                     struct gb_result *r)
{
    char w[48];
    snprintf(w, sizeof w, "results[%zu]", i);
    const bool headlines = R->flags & GB_READ_HEADLINES; /* the members pruned are absent */
    if (!json_is_object(o))
        return GB_USER_FAIL(GB_ESCHEMA, "%s: %s: expected an object, found %s", R->file, w,
                            jtype(o));
    int rc;
    int64_t dev = 0;
    char status[16] = "", better[16] = "", device_name[256]; /* device_name: derived, checked */
    if ((rc = rd_str(R, o, w, "suite", r->suite, sizeof r->suite, RD_REQ)) ||
        (rc = rd_str(R, o, w, "case", r->case_name, sizeof r->case_name, RD_REQ)) ||
        (rc = rd_str(R, o, w, "backend", r->backend, sizeof r->backend, RD_REQ)) ||
        (rc = rd_int(R, o, w, "device", -1, (int64_t)ndevices - 1, &dev, RD_REQ)) ||
        (rc = rd_str(R, o, w, "device_name", device_name, sizeof device_name, RD_TRUNC)) ||
        (rc = rd_params(R, o, w, r)) ||
        (rc = rd_str(R, o, w, "status", status, sizeof status, RD_REQ)) ||
        (rc = rd_str(R, o, w, "reason", r->reason, sizeof r->reason,
                     (headlines ? 0 : RD_REQ) | RD_TRUNC)) ||
        (rc = rd_str(R, o, w, "metric", r->metric, sizeof r->metric, RD_REQ)) ||
        (rc = rd_str(R, o, w, "unit", r->unit, sizeof r->unit, RD_REQ)) ||
        (rc = rd_str(R, o, w, "better", better, sizeof better, RD_REQ)) ||
        (rc = rd_num(R, o, w, "value", &r->value, NAN, RD_REQ)) ||
        (rc = rd_stats(R, o, w, "stats", &r->stats, headlines ? 0 : RD_REQ)) ||
        (rc = rd_stats(R, o, w, "op_time_us", &r->op_time_us, 0)) ||
        (rc = rd_u64(R, o, w, "batch", &r->batch, 0)) ||
        (rc = rd_num(R, o, w, "bytes_per_op", &r->bytes_per_op, NAN, 0)) ||
        (rc = rd_num(R, o, w, "flops_per_op", &r->flops_per_op, NAN, 0)) ||
        (rc = rd_bool(R, o, w, "verified", &r->verified, RD_REQ)) ||
        (rc = rd_num(R, o, w, "max_error", &r->max_error, NAN, 0)) ||
        (rc = rd_bool(R, o, w, "noisy", &r->noisy, RD_REQ)) ||
        (rc = rd_bool(R, o, w, "implausible", &r->implausible, 0)) ||
        (rc = rd_str(R, o, w, "regime", r->regime, sizeof r->regime, 0)) ||
        (rc = rd_str(R, o, w, "timer", r->timer, sizeof r->timer, 0)) ||
        (rc = rd_num(R, o, w, "elapsed_s", &r->elapsed_s, NAN, 0)))
        return rc;
    r->device_index = (int)dev;
    json_t *set, *figs;
    if ((rc = rd_array(R, o, w, "devices", GB_MAX_SET, "devices", &set)) ||
        (set && (rc = rd_set(R, set, w, ndevices, r))) ||
        (rc = rd_array(R, o, w, "figures", GB_MAX_FIGURES, "figures", &figs)) ||
        (figs && (rc = rd_figures(R, figs, w, r))))
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
    if (r->timer[0] && strcmp(r->timer, "device") != 0 && strcmp(r->timer, "host") != 0)
        return GB_USER_FAIL(GB_ESCHEMA, "%s: %s.timer: \"%s\" is not device or host", R->file, w,
                            r->timer);
    if (strcmp(better, "higher") == 0)
        r->better = GB_BETTER_HIGHER;
    else if (strcmp(better, "lower") == 0)
        r->better = GB_BETTER_LOWER;
    else
        return GB_USER_FAIL(GB_ESCHEMA, "%s: %s.better: \"%s\" is not higher or lower", R->file, w,
                            better);

    json_t *samples;
    if ((rc = rd_node(R, o, w, "samples", JSON_ARRAY, &samples, headlines ? 0 : RD_REQ)) != 0)
        return rc;
    size_t n = json_array_size(samples);
    if (n) {
        r->samples = malloc(n * sizeof *r->samples);
        if (!r->samples)
            return GB_USER_FAIL(GB_ENOMEM, "%s: out of memory for %zu samples", R->file, n);
        for (size_t k = 0; k < n; k++) {
            json_t *x = json_array_get(samples, k);
            if (json_is_number(x))
                r->samples[k] = json_number_value(x);
            else if (json_is_null(x))
                r->samples[k] = NAN;
            else
                return GB_USER_FAIL(GB_ESCHEMA,
                                    "%s: %s.samples[%zu]: expected a number, found "
                                    "%s",
                                    R->file, w, k, jtype(x));
        }
    }
    r->nsamples = n;
    /* Without "telemetry", r->tel stays as it came, zeroed: what the summary reader makes of an
     * absent member, without touching its page. */
    json_t *tel = json_object_get(o, "telemetry");
    if (tel && headlines) { /* its throttle and reading counts are all the headline read kept */
        const json_t *th = json_object_get(tel, "throttled"),
                     *rd = json_object_get(tel, "readings");
        r->tel.on = json_is_object(tel);
        r->tel.nthrottled =
            json_is_integer(th) && json_integer_value(th) > 0 ? (size_t)json_integer_value(th) : 0;
        r->tel.nreadings =
            json_is_integer(rd) && json_integer_value(rd) > 0 ? (size_t)json_integer_value(rd) : 0;
    } else if (tel && gb__tel_summary_read(tel, n, &r->tel))
        return GB_FAIL(GB_ENOMEM, "%s: telemetry marks", R->file);
    return 0;
}

static int rd_root(struct reader *R, const json_t *root, struct gb_results *out)
{
    int rc;
    if (!json_is_object(root))
        return GB_USER_FAIL(GB_ESCHEMA, "%s: expected a JSON object at the top, found %s", R->file,
                            jtype(root));
    json_t *schema = json_object_get(root, "schema");
    if (!schema)
        return GB_USER_FAIL(GB_ESCHEMA,
                            "%s: no \"schema\" field (expected \"%s\"): not a "
                            "gpubench results file",
                            R->file, GB_RESULTS_SCHEMA);
    if (!json_is_string(schema))
        return GB_USER_FAIL(GB_ESCHEMA, "%s: \"schema\" is %s, expected the string \"%s\"", R->file,
                            jtype(schema), GB_RESULTS_SCHEMA);
    if (strcmp(json_string_value(schema), GB_RESULTS_SCHEMA) != 0 &&
        strcmp(json_string_value(schema), GB_RESULTS_SCHEMA_V1) != 0)
        return GB_USER_FAIL(GB_ESCHEMA, "%s: schema is \"%s\", expected \"%s\" or \"%s\"", R->file,
                            json_string_value(schema), GB_RESULTS_SCHEMA, GB_RESULTS_SCHEMA_V1);

    struct gb_run_meta *m = &out->run;
    json_t *gb, *run, *prof, *devs, *res;
    if ((rc = rd_node(R, root, "", "gpubench", JSON_OBJECT, &gb, RD_REQ)) ||
        (rc = rd_str(R, gb, "gpubench", "version", m->gpubench_version, sizeof m->gpubench_version,
                     RD_REQ | RD_TRUNC)) ||
        (rc = rd_str(R, gb, "gpubench", "git_commit", m->git_commit, sizeof m->git_commit,
                     RD_TRUNC)) ||
        (rc = rd_node(R, root, "", "run", JSON_OBJECT, &run, RD_REQ)) ||
        (rc = rd_utc(R, run, "run", "start_utc", m->start_utc, sizeof m->start_utc)) ||
        (rc = rd_utc(R, run, "run", "end_utc", m->end_utc, sizeof m->end_utc)) ||
        (rc = rd_str(R, run, "run", "host", m->host, sizeof m->host, RD_TRUNC)) ||
        (rc = rd_str(R, run, "run", "os", m->os, sizeof m->os, RD_TRUNC)) ||
        (rc = rd_str(R, run, "run", "command_line", m->command_line, sizeof m->command_line,
                     RD_TRUNC)) ||
        (rc = rd_bool(R, run, "run", "interrupted", &m->interrupted, 0)) ||
        (rc = rd_u64(R, run, "run", "cases_planned", &m->cases_planned, 0)) ||
        (rc = rd_node(R, run, "run", "profile", JSON_OBJECT, &prof, 0)))
        return rc;
    if (prof && ((rc = rd_str(R, prof, "run.profile", "path", m->profile_path,
                              sizeof m->profile_path, RD_TRUNC)) ||
                 (rc = rd_str(R, prof, "run.profile", "name", m->profile_name,
                              sizeof m->profile_name, RD_TRUNC)) ||
                 (rc = rd_str(R, prof, "run.profile", "sha256", m->profile_sha256,
                              sizeof m->profile_sha256, 0))))
        return rc;

    gb__tel_machine_read(json_object_get(run, "machine"), &m->machine);
    json_t *axes;
    json_t *charts;
    if ((rc = rd_node(R, root, "", "axes", JSON_OBJECT, &axes, 0)) ||
        (axes && (rc = rd_axes(R, axes))) ||
        (rc = rd_node(R, root, "", "charts", JSON_OBJECT, &charts, 0)) ||
        (charts && (rc = rd_charts(R, charts, out))))
        return rc;
    R->axes = axes;
    if ((rc = rd_node(R, root, "", "devices", JSON_ARRAY, &devs, RD_REQ)) ||
        (rc = rd_node(R, root, "", "results", JSON_ARRAY, &res, RD_REQ)))
        return rc;

    size_t nd = json_array_size(devs);
    if (nd) {
        out->devices = calloc(nd, sizeof *out->devices);
        if (!out->devices)
            return GB_USER_FAIL(GB_ENOMEM, "%s: out of memory for %zu devices", R->file, nd);
        for (size_t i = 0; i < nd; i++) {
            if ((rc = rd_device(R, json_array_get(devs, i), i, &out->devices[i])) != 0)
                return rc;
            out->ndevices++;
        }
    }

    size_t nr = json_array_size(res);
    if (nr) {
        out->results = calloc(nr, sizeof *out->results);
        if (!out->results)
            return GB_USER_FAIL(GB_ENOMEM, "%s: out of memory for %zu results (%zu bytes each)",
                                R->file, nr, sizeof *out->results);
        out->cap = nr;
    }
    /* Each result is read in place, into the zeroed slot it keeps (what gb_results_add would
     * copy it to): no copy of the large struct, and the pages of members it leaves unset (most
     * of figures[], the tail of reason[]) are never touched. rd_params has aimed the param names
     * at the slot's own names_store, as gb_results_add does. */
    for (size_t i = 0; i < nr; i++) {
        struct gb_result *r = &out->results[i];
        rc = rd_result(R, json_array_get(res, i), i, out->ndevices, r);
        if (rc) {
            free(r->samples);
            gb_tel_summary_free(&r->tel);
            memset(r, 0, sizeof *r);
            return rc;
        }
        out->nresults++;
    }
    return 0;
}

/* What GB_READ_HEADLINES keeps of each result (json_load.h): what identifies its case, its
 * status and headline, the flags that are required, and of its telemetry the count of throttled
 * samples (health, expect.h); every other member, today's and any a later writer adds, is only
 * lexed. */
static const char *const headline_prune[] = {
    "results.*.*",
    "!results.*.suite",
    "!results.*.case",
    "!results.*.backend",
    "!results.*.device",
    "!results.*.devices",
    "!results.*.params",
    "!results.*.status",
    "!results.*.metric",
    "!results.*.unit",
    "!results.*.better",
    "!results.*.value",
    "!results.*.verified",
    "!results.*.noisy",
    "!results.*.telemetry",
    "results.*.telemetry.*",
    "!results.*.telemetry.throttled",
    NULL,
};

int gb_results_read(const char *path, struct gb_results *out)
{
    return gb_results_read_opts(path, 0, out);
}

int gb_results_read_opts(const char *path, unsigned flags, struct gb_results *out)
{
    if (!path || !out)
        return GB_FAIL(GB_EINVAL, "gb_results_read: NULL argument");
    memset(out, 0, sizeof *out);

    /* Opened without blocking: a named pipe nobody writes to would hold open() for ever; one
     * with a writer (a shell's <(...)) is then read as it comes, blocking again, and one without
     * reads as empty. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    int fl = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    FILE *f = fl >= 0 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return GB_USER_FAIL(GB_EIO, "cannot open results file %s: %s", path, strerror(e));
    }
    /* The file is read into the parse's arena when its size is known (a regular file): one
     * read, no copy as the buffer grows, gone with the arena; else, or when it grows while it is
     * read, into a growing heap buffer. */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
        fclose(f); /* /dev/zero would be read for ever */
        return GB_USER_FAIL(GB_EINVAL, "%s is a device, not a results file", path);
    }
    size_t hint = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
                          (uintmax_t)st.st_size < SIZE_MAX / 32
                      ? (size_t)st.st_size
                      : 0;
    /* The file, then 16 bytes a byte of file for the tree: more than twice what a results
     * file's tree takes (more spills to malloc); 64 MiB more for a file of unknown size. */
    const size_t extra = (size_t)64 << 20;
    struct gb__json_arena A = {0};
    bool arena = hint <= (SIZE_MAX - extra) / 17 && gb__json_arena_open(&A, 17 * hint + extra);
    char *buf = arena && hint ? gb__json_arena_take(&A, hint + 1) : NULL;
    size_t len = 0, cap = buf ? hint + 1 : 0;
    bool heap = !buf; /* buf is malloc'd (or NULL) */
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? 2 * cap : 65536;
            char *g = ncap <= cap ? NULL : heap ? realloc(buf, ncap) : malloc(ncap);
            if (!g) {
                if (heap)
                    free(buf);
                fclose(f);
                gb__json_arena_drop(&A, NULL);
                return GB_USER_FAIL(GB_ENOMEM, "out of memory reading %s (%zu bytes so far)", path,
                                    len);
            }
            if (!heap)
                memcpy(g, buf, len);
            buf = g;
            cap = ncap;
            heap = true;
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
        if (heap)
            free(buf);
        gb__json_arena_drop(&A, NULL);
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
    gb__json_arena_start(&A);
    root = gb__json_loadb(buf, len, flags & GB_READ_HEADLINES ? headline_prune : NULL, &e);
    gb__json_arena_stop();
    if (heap)
        free(buf); /* the tree holds copies of what it needs */
    buf = NULL;
    if (!root && strcmp(e.text, "out of memory") == 0) {
        rc = GB_USER_FAIL(GB_ENOMEM, "%s: out of memory parsing it (%zu bytes)", path, len);
        goto out;
    }
    if (!root) {
        bool at_end = e.position >= 0 && (size_t)e.position >= len;
        rc =
            GB_USER_FAIL(GB_ESCHEMA, "%s: not valid JSON at line %d, column %d: %s%s", path, e.line,
                         e.column, e.text, at_end ? " (the file ends early: truncated?)" : "");
        goto out;
    }
    struct reader R = {.file = path, .flags = flags};
    rc = rd_root(&R, root, out);
    if (rc)
        gb_results_free(out);
out:
    gb__json_arena_drop(&A, root); /* with the tree, the file when it was read into the arena */
    if (heap)
        free(buf);
    return rc;
}

/* ---- several files at once ------------------------------------------------------------------ */

/* At most this many files are parsed at once (each holds its tree, about six times the file,
 * while it is read). */
#define READ_THREADS_MAX 4
/* The size of a thread's error message (base/error.c). */
#define READ_MSG_MAX 8192

struct read_job {
    const char *const *paths;
    struct gb_results *out;
    int *rc;                   /* per file; 1: not read (a file after one that failed) */
    char (*msg)[READ_MSG_MAX]; /* per file: gb_error_msg() of a failure (it is per thread) */
    size_t n;
    size_t next; /* the next file to take, under lock */
    bool failed; /* a file failed: take no more */
    pthread_mutex_t lock;
};

static void *read_worker(void *arg)
{
    struct read_job *J = arg;
    for (;;) {
        pthread_mutex_lock(&J->lock);
        size_t i = J->failed ? J->n : J->next++;
        pthread_mutex_unlock(&J->lock);
        if (i >= J->n)
            return NULL;
        gb_error_clear();
        J->rc[i] = gb_results_read(J->paths[i], &J->out[i]);
        if (J->rc[i]) {
            snprintf(J->msg[i], sizeof J->msg[i], "%s", gb_error_msg());
            pthread_mutex_lock(&J->lock);
            J->failed = true;
            pthread_mutex_unlock(&J->lock);
        }
    }
}

int gb_results_read_all(const char *const *paths, size_t n, struct gb_results *out)
{
    if ((!paths || !out) && n)
        return GB_FAIL(GB_EINVAL, "gb_results_read_all: NULL argument");
    if (n == 0) /* nothing to read; out may be NULL (memset(NULL, 0, 0) is undefined) */
        return 0;
    memset(out, 0, n * sizeof *out);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nthreads = ncpu > 1 ? (size_t)ncpu : 1;
    if (nthreads > READ_THREADS_MAX)
        nthreads = READ_THREADS_MAX;
    if (nthreads > n)
        nthreads = n;
    if (nthreads <= 1) { /* in this thread, in turn */
        for (size_t i = 0; i < n; i++) {
            int rc = gb_results_read(paths[i], &out[i]);
            if (rc) {
                for (size_t k = 0; k < i; k++)
                    gb_results_free(&out[k]);
                return rc;
            }
        }
        return 0;
    }
    struct read_job J = {.paths = paths, .out = out, .n = n};
    J.rc = malloc(n * sizeof *J.rc);
    J.msg = malloc(n * sizeof *J.msg);
    pthread_t *tid = malloc(nthreads * sizeof *tid);
    if (!J.rc || !J.msg || !tid || pthread_mutex_init(&J.lock, NULL) != 0) {
        free(J.rc);
        free(J.msg);
        free(tid);
        return GB_FAIL(GB_ENOMEM, "gb_results_read_all: %zu files", n);
    }
    for (size_t i = 0; i < n; i++)
        J.rc[i] = 1;
    /* The calling thread is one of the readers; a thread that cannot be started leaves its
     * share to the others. */
    size_t started = 0;
    for (size_t t = 1; t < nthreads; t++)
        if (pthread_create(&tid[started], NULL, read_worker, &J) == 0)
            started++;
    read_worker(&J);
    for (size_t t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&J.lock);
    /* The error is that of the first file in order that failed, as reading in turn gives. */
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        if (J.rc[i] < 0)
            rc = GB_USER_FAIL(J.rc[i], "%s", J.msg[i]);
    if (rc)
        for (size_t i = 0; i < n; i++)
            if (J.rc[i] == 0)
                gb_results_free(&out[i]);
    free(J.rc);
    free(J.msg);
    free(tid);
    return rc;
}
