/* gpubench — expectations from reference runs and the verdict against them (contract in
 * expect.h). */
#include "analyses/expect.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/precision.h"
#include "base/error.h"
#include "base/robust.h"
#include "base/util.h"

/* ---- keys ------------------------------------------------------------------------------------ */

void gb_expect_key(const struct gb_results *rs, const struct gb_result *r, char *buf, size_t len)
{
    struct gb_case_id id;
    gb_case_identify(rs, r, &id);
    const int d = r->device_index;
    const char *backend = d >= 0 && (size_t)d < rs->ndevices ? rs->devices[d].backend : "?";
    snprintf(buf, len, "%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", r->suite, r->case_name, backend,
             id.device, id.params, r->unit);
}

/* The key of an expectation read back (the same fields, the same order). */
static void case_key(const struct gb_expect_case *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", c->suite, c->case_name, c->backend,
             c->device, c->params, c->unit);
}

/* ---- building -------------------------------------------------------------------------------- */

void gb_expect_init(struct gb_expect *e)
{
    memset(e, 0, sizeof *e);
}

static void case_free(struct gb_expect_case *c)
{
    free(c->suite);
    free(c->case_name);
    free(c->backend);
    free(c->device);
    free(c->params);
    free(c->unit);
    for (size_t i = 0; i < c->ndrivers; i++)
        free(c->drivers[i]);
    free(c->v);
    free(c->nz);
    free(c->src);
}

void gb_expect_free(struct gb_expect *e)
{
    for (size_t i = 0; i < e->n; i++)
        case_free(&e->c[i]);
    free(e->c);
    for (size_t i = 0; i < e->nruns; i++)
        free(e->runs[i].path);
    free(e->runs);
    for (size_t i = 0; i < e->ncopies; i++)
        free(e->copies[i]);
    free(e->copies);
    for (size_t i = 0; i < e->nmodels; i++) {
        free(e->models[i].backend);
        free(e->models[i].device);
    }
    free(e->models);
    gb_strtab_free(&e->keys);
    memset(e, 0, sizeof *e);
}

/* The case of key, added (with its identity's fields) when new; NULL when memory ran out. */
static struct gb_expect_case *case_of(struct gb_expect *e, const char *key, const char *suite,
                                      const char *case_name, const char *backend,
                                      const char *device, const char *params, const char *unit,
                                      enum gb_better better)
{
    bool added = false;
    long k = gb_strtab_intern(&e->keys, key, &added);
    if (k < 0)
        return NULL;
    if (!added)
        return &e->c[k];
    struct gb_expect_case *g = gb_grow(e->c, &e->cap, e->n + 1, sizeof *g);
    if (!g)
        return NULL; /* the key stays interned without a case: the next lookup fails cleanly */
    e->c = g;
    struct gb_expect_case *c = &e->c[e->n++];
    memset(c, 0, sizeof *c);
    c->suite = strdup(suite);
    c->case_name = strdup(case_name);
    c->backend = strdup(backend);
    c->device = strdup(device);
    c->params = strdup(params);
    c->unit = strdup(unit);
    c->better = better;
    c->min = c->max = c->median = NAN;
    if (!c->suite || !c->case_name || !c->backend || !c->device || !c->params || !c->unit)
        return NULL;
    return c;
}

static void add_driver(struct gb_expect_case *c, const char *driver)
{
    for (size_t i = 0; i < c->ndrivers; i++)
        if (strcmp(c->drivers[i], driver) == 0)
            return;
    if (c->ndrivers < GB_EXPECT_MAX_DRIVERS && (c->drivers[c->ndrivers] = strdup(driver)))
        c->ndrivers++;
}

/* The relative CI95 half-width of a result (0 when it has none). */
static double rel_noise(const struct gb_result *r)
{
    const double n = r->stats.mean > 0 ? r->stats.ci95 / r->stats.mean : 0;
    return isfinite(n) && n > 0 ? n : 0;
}

/* FNV-1a over n bytes, continuing from h. */
static unsigned long long fnv(unsigned long long h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

/* The digest of rs's figures: every result's identity, status, value and noise, in order (the
 * run's metadata left out, so that a copy under another start time or host is found too). */
static unsigned long long figures_digest(const struct gb_results *rs)
{
    unsigned long long h = 14695981039346656037ULL;
    char key[2400];
    for (size_t i = 0; i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        gb_expect_key(rs, r, key, sizeof key);
        h = fnv(h, key, strlen(key) + 1);
        const int st = (int)r->status;
        h = fnv(h, &st, sizeof st);
        h = fnv(h, &r->value, sizeof r->value);
        h = fnv(h, &r->stats.ci95, sizeof r->stats.ci95);
    }
    return h;
}

/* The digest of rs's devices' identities, in order: runs started together on one host (one a
 * device) are not one run. */
static unsigned long long devices_digest(const struct gb_results *rs)
{
    unsigned long long h = 14695981039346656037ULL;
    char id[512];
    for (size_t d = 0; d < rs->ndevices; d++) {
        gb_device_identity(&rs->devices[d], id, sizeof id);
        h = fnv(h, id, strlen(id) + 1);
    }
    return h;
}

/* Whether rs is a run already added (a copy: the note names both files); else records it. 0 or
 * GB_ENOMEM; *copy set. */
static int note_run(struct gb_expect *e, const struct gb_results *rs, const char *path, bool *copy)
{
    *copy = false;
    const unsigned long long digest = figures_digest(rs), devices = devices_digest(rs);
    const char *name = path ? path : "a file";
    for (size_t i = 0; i < e->nruns; i++) {
        const struct gb_expect_run *o = &e->runs[i];
        /* gb_run_same's test on the fields kept (a run without a start time is nobody's), on the
         * same devices. */
        const bool same_run = o->start_utc[0] && o->devices == devices &&
                              strcmp(o->start_utc, rs->run.start_utc) == 0 &&
                              strcmp(o->host, rs->run.host) == 0 &&
                              strcmp(o->profile_sha256, rs->run.profile_sha256) == 0 &&
                              strcmp(o->profile_name, rs->run.profile_name) == 0;
        if (!same_run && !(rs->nresults && o->nresults == rs->nresults && o->digest == digest))
            continue;
        char **g = gb_grow(e->copies, &e->copies_cap, e->ncopies + 1, sizeof *g);
        if (!g)
            return GB_FAIL(GB_ENOMEM, "expectations: copies");
        e->copies = g;
        size_t len = strlen(name) + strlen(o->path) + strlen(o->start_utc) + 120;
        char *note = malloc(len);
        if (!note)
            return GB_FAIL(GB_ENOMEM, "expectations: copies");
        snprintf(note, len, "%s: a copy of %s (%s)", name, o->path,
                 same_run ? (o->start_utc[0] ? "the same run: host, start time, profile and devices"
                                             : "the same run")
                          : "the same figures");
        e->copies[e->ncopies++] = note;
        *copy = true;
        return 0;
    }
    struct gb_expect_run *g = gb_grow(e->runs, &e->runs_cap, e->nruns + 1, sizeof *g);
    if (!g)
        return GB_FAIL(GB_ENOMEM, "expectations: %zu runs", e->nruns + 1);
    e->runs = g;
    struct gb_expect_run *w = &e->runs[e->nruns];
    memset(w, 0, sizeof *w);
    snprintf(w->start_utc, sizeof w->start_utc, "%s", rs->run.start_utc);
    snprintf(w->host, sizeof w->host, "%s", rs->run.host);
    snprintf(w->profile_name, sizeof w->profile_name, "%s", rs->run.profile_name);
    snprintf(w->profile_sha256, sizeof w->profile_sha256, "%s", rs->run.profile_sha256);
    w->digest = digest;
    w->devices = devices;
    w->nresults = rs->nresults;
    if (!(w->path = strdup(name)))
        return GB_FAIL(GB_ENOMEM, "expectations: %zu runs", e->nruns + 1);
    e->nruns++;
    return 0;
}

int gb_expect_add(struct gb_expect *e, const struct gb_results *rs, const char *path)
{
    bool copy = false;
    int rc = note_run(e, rs, path, &copy);
    if (rc || copy)
        return rc;
    e->files++;
    for (size_t i = 0; i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        if (r->status != GB_STATUS_OK || !r->verified || r->implausible || !isfinite(r->value) ||
            !(r->value > 0)) {
            e->left_out++;
            continue;
        }
        char key[2400];
        gb_expect_key(rs, r, key, sizeof key);
        struct gb_case_id id;
        gb_case_identify(rs, r, &id);
        const int d = r->device_index;
        const struct gb_result_device *dv =
            d >= 0 && (size_t)d < rs->ndevices ? &rs->devices[d] : NULL;
        struct gb_expect_case *c = case_of(e, key, r->suite, r->case_name, dv ? dv->backend : "?",
                                           id.device, id.params, r->unit, r->better);
        if (!c)
            return GB_FAIL(GB_ENOMEM, "expectations: case %zu", e->n);
        if (c->better != r->better)
            continue; /* the same unit judged the other way round: not the same figure */
        if (c->n == c->cap) {
            size_t cap = c->cap ? 2 * c->cap : 4;
            double *v = realloc(c->v, cap * sizeof *v);
            if (v)
                c->v = v;
            double *nz = v ? realloc(c->nz, cap * sizeof *nz) : NULL;
            if (nz)
                c->nz = nz;
            size_t *src = nz ? realloc(c->src, cap * sizeof *src) : NULL;
            if (src)
                c->src = src;
            if (!v || !nz || !src)
                return GB_FAIL(GB_ENOMEM, "expectations: %zu runs of a case", cap);
            c->cap = cap;
        }
        c->v[c->n] = r->value;
        c->nz[c->n] = rel_noise(r);
        c->src[c->n] = (e->files - 1) << 12 | ((size_t)(d >= 0 ? d : 0) & 0xfff);
        c->n++;
        e->results++;
        if (dv)
            add_driver(c, dv->info.driver);
    }
    return 0;
}

int gb_expect_add_file(struct gb_expect *e, const char *path)
{
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    int rc = gb_results_read(path, &rs);
    if (!rc)
        rc = gb_expect_add(e, &rs, path);
    gb_results_free(&rs);
    return rc;
}

/* Sets every case's floor: the median spread of its model's (backend and device) cases of 3
 * runs or more. 0 or GB_ENOMEM. */
static int set_floors(struct gb_expect *e)
{
    double *sp = malloc((e->n ? e->n : 1) * sizeof *sp);
    bool *done = calloc(e->n ? e->n : 1, sizeof *done);
    if (!sp || !done) {
        free(sp);
        free(done);
        return GB_FAIL(GB_ENOMEM, "expectations: %zu cases", e->n);
    }
    for (size_t i = 0; i < e->n; i++) {
        if (done[i])
            continue;
        const struct gb_expect_case *a = &e->c[i];
        size_t k = 0;
        for (size_t j = i; j < e->n; j++)
            if (strcmp(e->c[j].backend, a->backend) == 0 &&
                strcmp(e->c[j].device, a->device) == 0 && e->c[j].n >= 3)
                sp[k++] = e->c[j].spread;
        const double floor = k ? gb_median(sp, k) : 0;
        for (size_t j = i; j < e->n; j++)
            if (!done[j] && strcmp(e->c[j].backend, a->backend) == 0 &&
                strcmp(e->c[j].device, a->device) == 0) {
                e->c[j].floor = isfinite(floor) ? floor : 0;
                done[j] = true;
            }
    }
    free(sp);
    free(done);
    return 0;
}

/* d2, the expected range of n normal draws in standard deviations (ASTM E2587's control-chart
 * table), n = 2..10; beyond, d_10 (a larger spread: a wider band). */
static double range_d2(size_t n)
{
    static const double d2[] = {0,     0,     1.128, 1.693, 2.059, 2.326,
                                2.534, 2.704, 2.847, 2.970, 3.078};
    return d2[n < 2 ? 2 : n > 10 ? 10 : n];
}

static int by_src(const void *a, const void *b)
{
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

struct src_x {
    size_t src;
    double x;
};

static int by_src_x(const void *a, const void *b)
{
    return by_src(&((const struct src_x *)a)->src, &((const struct src_x *)b)->src);
}

/* Adds the model of case c (its cases those of the same backend and device) with its runs'
 * shifts, unless it is there. Needs every case's median and its values still. 0 or GB_ENOMEM. */
static int add_model(struct gb_expect *e, const struct gb_expect_case *c)
{
    for (size_t i = 0; i < e->nmodels; i++)
        if (strcmp(e->models[i].backend, c->backend) == 0 &&
            strcmp(e->models[i].device, c->device) == 0)
            return 0;
    size_t n = 0, cases = 0;
    for (size_t i = 0; i < e->n; i++)
        if (e->c[i].n >= 3 && strcmp(e->c[i].backend, c->backend) == 0 &&
            strcmp(e->c[i].device, c->device) == 0)
            n += e->c[i].n, cases++;
    struct src_x *sx = malloc((n ? n : 1) * sizeof *sx);
    double *sh = malloc((n ? n : 1) * sizeof *sh), *dev = malloc((n ? n : 1) * sizeof *dev);
    int rc = 0;
    if (!sx || !sh || !dev) {
        rc = GB_FAIL(GB_ENOMEM, "expectations: %zu values of a model", n);
        goto out;
    }
    size_t k = 0;
    for (size_t i = 0; i < e->n; i++) {
        const struct gb_expect_case *a = &e->c[i];
        if (a->n < 3 || !a->v || strcmp(a->backend, c->backend) || strcmp(a->device, c->device))
            continue;
        for (size_t j = 0; j < a->n; j++) {
            const double x = log(a->v[j] / a->median);
            sx[k++] = (struct src_x){a->src[j], a->better == GB_BETTER_LOWER ? -x : x};
        }
    }
    qsort(sx, k, sizeof *sx, by_src_x);
    size_t runs = 0;
    for (size_t i = 0; i < k;) {
        size_t j = i, m = 0;
        while (j < k && sx[j].src == sx[i].src)
            dev[m++] = sx[j++].x;
        sh[runs++] = gb_median(dev, m);
        i = j;
    }
    struct gb_expect_model *g = gb_grow(e->models, &e->models_cap, e->nmodels + 1, sizeof *g);
    if (!g) {
        rc = GB_FAIL(GB_ENOMEM, "expectations: %zu models", e->nmodels + 1);
        goto out;
    }
    e->models = g;
    struct gb_expect_model *w = &e->models[e->nmodels];
    memset(w, 0, sizeof *w);
    w->runs = runs;
    w->cases = cases;
    if (runs) {
        w->shift_min = w->shift_max = sh[0];
        for (size_t i = 1; i < runs; i++) {
            w->shift_min = sh[i] < w->shift_min ? sh[i] : w->shift_min;
            w->shift_max = sh[i] > w->shift_max ? sh[i] : w->shift_max;
        }
    }
    if (runs >= 3) {
        const double mad = gb_mad_sigma(sh, runs, gb_median(sh, runs)),
                     rng = (w->shift_max - w->shift_min) / range_d2(runs);
        w->shift_spread = mad > rng ? mad : rng;
    }
    w->backend = strdup(c->backend);
    w->device = strdup(c->device);
    if (!w->backend || !w->device) {
        free(w->backend);
        free(w->device);
        rc = GB_FAIL(GB_ENOMEM, "expectations: %zu models", e->nmodels + 1);
        goto out;
    }
    e->nmodels++;
out:
    free(sx);
    free(sh);
    free(dev);
    return rc;
}

int gb_expect_finish(struct gb_expect *e)
{
    bool built = false;
    for (size_t i = 0; i < e->n; i++) {
        struct gb_expect_case *c = &e->c[i];
        if (!c->v)
            continue; /* read back: already finished */
        built = true;
        double *lx = malloc((c->n ? c->n : 1) * sizeof *lx);
        if (!lx)
            return GB_FAIL(GB_ENOMEM, "expectations: %zu runs", c->n);
        c->min = INFINITY;
        c->max = -INFINITY;
        for (size_t k = 0; k < c->n; k++) {
            lx[k] = log(c->v[k]);
            c->min = c->v[k] < c->min ? c->v[k] : c->min;
            c->max = c->v[k] > c->max ? c->v[k] : c->max;
        }
        c->median = gb_median(c->v, c->n);
        c->spread = c->n >= 3 ? gb_mad_sigma(lx, c->n, gb_median(lx, c->n)) : 0;
        c->noise = gb_median(c->nz, c->n);
        free(lx);
        if (!isfinite(c->spread) || !isfinite(c->noise) || !isfinite(c->median))
            return GB_FAIL(GB_ENOMEM, "expectations: %zu runs", c->n);
    }
    /* The models' runs as wholes, from the values still held. */
    for (size_t i = 0; built && i < e->n; i++) {
        int rc = add_model(e, &e->c[i]);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < e->n; i++) {
        struct gb_expect_case *c = &e->c[i];
        free(c->v);
        free(c->nz);
        free(c->src);
        c->v = c->nz = NULL;
        c->src = NULL;
        c->cap = 0;
    }
    return set_floors(e);
}

const struct gb_expect_model *gb_expect_model_find(const struct gb_expect *e, const char *backend,
                                                   const char *device)
{
    for (size_t i = 0; e && i < e->nmodels; i++)
        if (strcmp(e->models[i].backend, backend) == 0 && strcmp(e->models[i].device, device) == 0)
            return &e->models[i];
    return NULL;
}

/* ---- the file -------------------------------------------------------------------------------- */

int gb_expect_write_json(FILE *f, const struct gb_expect *e)
{
    json_t *root = json_object(), *cases = json_array();
    if (!root || !cases) {
        json_decref(root);
        json_decref(cases);
        return GB_FAIL(GB_ENOMEM, "expectations as JSON");
    }
    json_object_set_new(root, "schema", json_string(GB_EXPECT_SCHEMA));
    json_object_set_new(root, "files", json_integer((json_int_t)e->files));
    json_object_set_new(root, "results", json_integer((json_int_t)e->results));
    json_object_set_new(root, "left_out", json_integer((json_int_t)e->left_out));
    json_object_set_new(root, "copies", json_integer((json_int_t)e->ncopies));
    json_object_set_new(root, "cases", cases);
    int bad = 0;
    for (size_t i = 0; i < e->n && !bad; i++) {
        const struct gb_expect_case *c = &e->c[i];
        json_t *o = json_object(), *drv = json_array();
        if (!o || !drv) {
            json_decref(o);
            json_decref(drv);
            bad = 1;
            break;
        }
        for (size_t k = 0; k < c->ndrivers; k++)
            json_array_append_new(drv, json_string(c->drivers[k]));
        /* Text from results files is any bytes: jansson refuses what is not UTF-8, which
         * leaves the field out, and the reader then leaves that case out. */
        json_object_set_new(o, "suite", json_string(c->suite));
        json_object_set_new(o, "case", json_string(c->case_name));
        json_object_set_new(o, "backend", json_string(c->backend));
        json_object_set_new(o, "device", json_string(c->device));
        json_object_set_new(o, "params", json_string(c->params));
        json_object_set_new(o, "unit", json_string(c->unit));
        json_object_set_new(o, "better",
                            json_string(c->better == GB_BETTER_LOWER ? "lower" : "higher"));
        json_object_set_new(o, "runs", json_integer((json_int_t)c->n));
        json_object_set_new(o, "median", json_real(c->median));
        json_object_set_new(o, "spread", json_real(c->spread));
        json_object_set_new(o, "noise", json_real(c->noise));
        json_object_set_new(o, "min", json_real(c->min));
        json_object_set_new(o, "max", json_real(c->max));
        json_object_set_new(o, "drivers", drv);
        bad = json_array_append_new(cases, o);
    }
    /* The models' runs as wholes, after the cases (a reader of version 1 that knows no models
     * reads the cases alone). */
    json_t *models = bad ? NULL : json_array();
    if (!bad && (!models || json_object_set_new(root, "models", models)))
        bad = 1;
    for (size_t i = 0; i < e->nmodels && !bad; i++) {
        const struct gb_expect_model *m = &e->models[i];
        json_t *o = json_object();
        if (!o) {
            bad = 1;
            break;
        }
        json_object_set_new(o, "backend", json_string(m->backend));
        json_object_set_new(o, "device", json_string(m->device));
        json_object_set_new(o, "runs", json_integer((json_int_t)m->runs));
        json_object_set_new(o, "cases", json_integer((json_int_t)m->cases));
        json_object_set_new(o, "shift_min", json_real(m->shift_min));
        json_object_set_new(o, "shift_max", json_real(m->shift_max));
        json_object_set_new(o, "shift_spread", json_real(m->shift_spread));
        bad = json_array_append_new(models, o);
    }
    if (!bad)
        bad = json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    if (!bad)
        bad = fputc('\n', f) == EOF;
    json_decref(root);
    return bad ? gb_error_set(GB_EIO, NULL, 0, "writing the expectations failed") : 0;
}

/* A string field of at most max bytes, else NULL. */
static const char *field(json_t *o, const char *name, size_t max)
{
    json_t *v = json_object_get(o, name);
    const char *s = json_string_value(v);
    return s && json_string_length(v) <= max && strlen(s) == json_string_length(v) ? s : NULL;
}

static double number(json_t *o, const char *name)
{
    json_t *v = json_object_get(o, name);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

int gb_expect_read(const char *path, struct gb_expect *e)
{
    gb_expect_init(e);
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root && je.line < 1)
        return gb_error_set(GB_EIO, NULL, 0, "cannot read %s: %s", path, je.text);
    if (!root)
        return gb_error_set(GB_EIO, NULL, 0, "%s: line %d: %s", path, je.line, je.text);
    const char *schema = json_string_value(json_object_get(root, "schema"));
    json_t *cases = json_object_get(root, "cases");
    if (!schema || strcmp(schema, GB_EXPECT_SCHEMA) != 0 || !json_is_array(cases)) {
        json_decref(root);
        return gb_error_set(GB_EINVAL, NULL, 0,
                            "%s is not an expectations file (schema %s with cases; `gpubench "
                            "expect` writes one)",
                            path, GB_EXPECT_SCHEMA);
    }
    json_t *files = json_object_get(root, "files");
    e->files = json_is_integer(files) && json_integer_value(files) > 0
                   ? (size_t)json_integer_value(files)
                   : 0;
    size_t i;
    json_t *o;
    json_array_foreach(cases, i, o)
    {
        const char *suite = field(o, "suite", 31), *name = field(o, "case", 63),
                   *backend = field(o, "backend", 15), *device = field(o, "device", 511),
                   *params = field(o, "params", 1023), *unit = field(o, "unit", 15),
                   *better = field(o, "better", 8);
        json_t *runs = json_object_get(o, "runs");
        const double median = number(o, "median"), spread = number(o, "spread"),
                     noise = number(o, "noise"), lo = number(o, "min"), hi = number(o, "max");
        if (!suite || !name || !backend || !device || !params || !unit || !better ||
            (strcmp(better, "lower") && strcmp(better, "higher")) || !json_is_integer(runs) ||
            json_integer_value(runs) < 1 || !(median >= 1e-9) || !(median <= 1e12) ||
            !(spread >= 0) || !(spread <= 5) || !(noise >= 0) || !(noise <= 5) ||
            (json_object_get(o, "min") && !(lo > 0 && lo <= median)) ||
            (json_object_get(o, "max") && !(hi >= median && hi <= 1e12))) {
            /* A spread or noise above 5 (e^5: 148x) is no reference: its band holds anything; a
             * median outside 1e-9..1e12 is no figure of any unit gpubench writes (an edited file's
             * 1e-300 printed a change of 300 digits); a range that does not hold its median (min
             * and max swapped) would judge healthy runs LOW. */
            e->left_out++;
            e->invalid++;
            continue;
        }
        char key[2400];
        struct gb_expect_case probe = {.suite = (char *)suite,
                                       .case_name = (char *)name,
                                       .backend = (char *)backend,
                                       .device = (char *)device,
                                       .params = (char *)params,
                                       .unit = (char *)unit};
        case_key(&probe, key, sizeof key);
        if (gb_strtab_find(&e->keys, key) >= 0) {
            e->left_out++; /* a case twice: the first one stands */
            e->duplicates++;
            continue;
        }
        struct gb_expect_case *c =
            case_of(e, key, suite, name, backend, device, params, unit,
                    strcmp(better, "lower") == 0 ? GB_BETTER_LOWER : GB_BETTER_HIGHER);
        if (!c) {
            json_decref(root);
            gb_expect_free(e);
            return GB_FAIL(GB_ENOMEM, "%s: case %zu", path, i);
        }
        c->n = (size_t)json_integer_value(runs);
        c->median = median;
        c->spread = spread;
        c->noise = noise;
        /* The range holds the median: an edited file cannot narrow the band past it. */
        c->min = isfinite(lo) && lo > 0 && lo <= median ? lo : median;
        c->max = isfinite(hi) && hi >= median ? hi : median;
        json_t *drv = json_object_get(o, "drivers");
        size_t k;
        json_t *dv;
        json_array_foreach(drv, k, dv)
        {
            const char *s = json_string_value(dv);
            if (s && strlen(s) < 128)
                add_driver(c, s);
        }
        e->results += c->n;
    }
    /* The models' runs as wholes (files written before them have none: no run-level verdict). */
    json_t *models = json_object_get(root, "models");
    json_array_foreach(models, i, o)
    {
        const char *backend = field(o, "backend", 15), *device = field(o, "device", 511);
        json_t *runs = json_object_get(o, "runs"), *ncases = json_object_get(o, "cases");
        const double lo = number(o, "shift_min"), hi = number(o, "shift_max"),
                     sp = number(o, "shift_spread");
        if (!backend || !device || !json_is_integer(runs) || json_integer_value(runs) < 0 ||
            !json_is_integer(ncases) || json_integer_value(ncases) < 0 || !(lo >= -5) ||
            !(hi <= 5) || !(lo <= hi) || !(sp >= 0) || !(sp <= 5)) {
            e->invalid++;
            e->left_out++;
            continue;
        }
        if (gb_expect_model_find(e, backend, device)) {
            e->duplicates++;
            e->left_out++;
            continue;
        }
        struct gb_expect_model *g = gb_grow(e->models, &e->models_cap, e->nmodels + 1, sizeof *g);
        char *b = g ? strdup(backend) : NULL, *d = b ? strdup(device) : NULL;
        if (g)
            e->models = g;
        if (!d) {
            free(b);
            json_decref(root);
            gb_expect_free(e);
            return GB_FAIL(GB_ENOMEM, "%s: model %zu", path, i);
        }
        e->models[e->nmodels++] =
            (struct gb_expect_model){.backend = b,
                                     .device = d,
                                     .runs = (size_t)json_integer_value(runs),
                                     .cases = (size_t)json_integer_value(ncases),
                                     .shift_min = lo,
                                     .shift_max = hi,
                                     .shift_spread = sp};
    }
    json_decref(root);
    int rc = set_floors(e);
    if (rc)
        gb_expect_free(e);
    return rc;
}

const struct gb_expect_case *gb_expect_find(const struct gb_expect *e, const char *key)
{
    if (!e)
        return NULL;
    long k = gb_strtab_find(&e->keys, key);
    return k >= 0 && (size_t)k < e->n ? &e->c[k] : NULL;
}

/* ---- the verdict ----------------------------------------------------------------------------- */

const char *gb_expect_verdict_name(enum gb_expect_verdict v)
{
    static const char *const names[GB_EXPECT_VERDICTS] = {
        "NORMAL", "LOW", "HIGH", "IMPLAUSIBLE", "UNKNOWN", "FAILED", "SKIPPED"};
    return (unsigned)v < GB_EXPECT_VERDICTS ? names[v] : "?";
}

void gb_check_opts_default(struct gb_check_opts *o)
{
    memset(o, 0, sizeof *o);
    o->tolerance = 0.05;
    o->mads = 3;
}

/* A relative amount, "0.05" or "5%", in (0, hi]. */
static int parse_rel(const char *name, const char *text, double hi, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end != text && *end == '%' && !end[1])
        v /= 100;
    else if (end == text || *end)
        v = NAN;
    if (!(v > 0 && v <= hi))
        return GB_FAIL(GB_EINVAL,
                       "--%s wants a relative amount in (0, %g] such as 0.05 or 5%%, "
                       "got '%s'",
                       name, hi, text);
    *out = v;
    return 0;
}

int gb_check_set_option(struct gb_check_opts *o, const char *name, const char *value)
{
    if (!value)
        return GB_FAIL(GB_EINVAL, "--%s needs a value", name);
    if (strcmp(name, "tolerance") == 0)
        return parse_rel(name, value, 10, &o->tolerance);
    if (strcmp(name, "mads") == 0) {
        char *end;
        double v = strtod(value, &end);
        if (end == value || *end || !(v > 0 && v <= 100))
            return GB_FAIL(GB_EINVAL, "--mads wants a number of scaled MADs in (0, 100], got '%s'",
                           value);
        o->mads = v;
        return 0;
    }
    if (strcmp(name, "suite-tolerance") == 0) {
        const char *eq = strchr(value, '=');
        if (!eq || eq == value || (size_t)(eq - value) >= sizeof o->suite_tolerance[0].suite)
            return GB_FAIL(GB_EINVAL,
                           "--suite-tolerance wants SUITE=TOLERANCE (memory=10%%), got "
                           "'%s'",
                           value);
        double t = 0;
        int rc = parse_rel(name, eq + 1, 10, &t);
        if (rc)
            return rc;
        size_t k = 0, len = (size_t)(eq - value);
        while (k < o->nsuite_tolerances && !(strlen(o->suite_tolerance[k].suite) == len &&
                                             strncmp(o->suite_tolerance[k].suite, value, len) == 0))
            k++;
        if (k == o->nsuite_tolerances) {
            if (k == GB_EXPECT_MAX_SUITE_TOLERANCES)
                return GB_FAIL(GB_EINVAL, "--suite-tolerance: at most %d suites",
                               GB_EXPECT_MAX_SUITE_TOLERANCES);
            o->nsuite_tolerances++;
        }
        snprintf(o->suite_tolerance[k].suite, sizeof o->suite_tolerance[k].suite, "%.*s",
                 (int)(eq - value), value);
        o->suite_tolerance[k].tolerance = t;
        return 0;
    }
    return GB_FAIL(GB_EINVAL, "no check option --%s", name);
}

double gb_check_tolerance(const struct gb_check_opts *o, const char *suite)
{
    for (size_t k = 0; k < o->nsuite_tolerances; k++)
        if (strcmp(o->suite_tolerance[k].suite, suite) == 0)
            return o->suite_tolerance[k].tolerance;
    return o->tolerance;
}

#define NOISE_FLOOR 0.005

struct gb_expect_judgement gb_expect_judge(double value, bool higher_is_better, double noise,
                                           bool implausible, const struct gb_expect_case *e,
                                           double bound, double t, const struct gb_check_opts *o)
{
    struct gb_expect_judgement j = {.verdict = GB_EXPECT_UNKNOWN,
                                    .expected = NAN,
                                    .change = NAN,
                                    .z = NAN,
                                    .band = NAN,
                                    .of_bound = NAN};
    const bool has_bound = higher_is_better && bound > 0 && isfinite(bound);
    if (has_bound)
        j.of_bound = value / bound;
    if (implausible || !isfinite(value) || !(value > 0) ||
        (has_bound && gb_rate_implausible(value, bound))) {
        j.verdict = GB_EXPECT_IMPLAUSIBLE;
        j.expected = has_bound ? bound : NAN;
        return j;
    }
    if (e && e->median > 0 && e->n >= 3) {
        const double perf = higher_is_better ? value : 1 / value,
                     m = higher_is_better ? e->median : 1 / e->median;
        /* The reference runs' lowest and highest performance (a time's longest is its
         * lowest), never inside the median. */
        const double lo_v = higher_is_better ? e->min : e->max,
                     hi_v = higher_is_better ? e->max : e->min;
        const double lo = lo_v > 0 && isfinite(lo_v) ? (higher_is_better ? lo_v : 1 / lo_v) : m,
                     hi = hi_v > 0 && isfinite(hi_v) ? (higher_is_better ? hi_v : 1 / hi_v) : m;
        double s = e->spread;
        s = e->noise > s ? e->noise : s;
        s = e->floor > s ? e->floor : s;
        s = noise > s ? noise : s;
        s = NOISE_FLOOR > s ? NOISE_FLOOR : s;
        const double below = lo < m ? log(m / lo) : 0, above = hi > m ? log(hi / m) : 0;
        const double floor = log1p(t);
        double low = below + o->mads * s, high = above + o->mads * s;
        low = low > floor ? low : floor;
        high = high > floor ? high : floor;
        const double x = log(perf / m);
        j.expected = e->median;
        j.change = perf / m - 1;
        j.z = x / s;
        j.band = expm1(low);
        j.verdict = x < -low ? GB_EXPECT_LOW : x > high ? GB_EXPECT_HIGH : GB_EXPECT_NORMAL;
        return j;
    }
    if (has_bound) {
        j.expected = bound;
        j.change = value / bound - 1;
    }
    return j;
}

/* The result's own noise for its verdict: the larger of its relative CI95 and its samples' CV.
 * On a shared machine samples are not independent (a busy spell slows many in a row), so the
 * CI95 of their mean understates how far the headline moves from run to run; the samples' own
 * spread does not (a result whose samples span 100x says its headline may land anywhere). */
static double own_noise(const struct gb_result *r)
{
    const double n = rel_noise(r), cv = r->stats.cv;
    return isfinite(cv) && cv > n ? cv : n;
}

/* The bound a result carries: its scalar figure "peak" in its own unit (0: none). */
static double bound_of(const struct gb_result *r)
{
    const struct gb_figure *f = gb_result_figure_get(r, "peak");
    return f && f->n == 1 && strcmp(f->unit, r->unit) == 0 && f->v[0] > 0 ? f->v[0] : 0;
}

/* Whether e has any case of this backend and device model. */
static bool model_known(const struct gb_expect *e, const char *backend, const char *device)
{
    for (size_t i = 0; e && i < e->n; i++)
        if (strcmp(e->c[i].backend, backend) == 0 && strcmp(e->c[i].device, device) == 0)
            return true;
    return false;
}

/* Each device of rs as a whole (expect.h: struct gb_check_whole). 0 or GB_ENOMEM. */
static int judge_wholes(const struct gb_results *rs, const struct gb_expect *e,
                        const struct gb_check_opts *o, struct gb_check *out)
{
    out->wholes = calloc(rs->ndevices ? rs->ndevices : 1, sizeof *out->wholes);
    double *x = malloc((out->nrows ? out->nrows : 1) * sizeof *x);
    if (!out->wholes || !x) {
        free(x);
        return GB_FAIL(GB_ENOMEM, "check: %zu devices", rs->ndevices);
    }
    for (size_t d = 0; d < rs->ndevices; d++) {
        struct gb_check_whole *w = &out->wholes[out->nwholes++];
        w->device = (int)d;
        w->verdict = GB_EXPECT_UNKNOWN;
        w->change = w->band = NAN;
        size_t n = 0;
        const char *model = NULL;
        double t = o->tolerance;
        for (size_t i = 0; i < out->nrows; i++) {
            const struct gb_check_row *r = &out->rows[i];
            const enum gb_expect_verdict v = r->j.verdict;
            if (r->r->device_index != (int)d || !r->e ||
                (v != GB_EXPECT_NORMAL && v != GB_EXPECT_LOW && v != GB_EXPECT_HIGH) ||
                !(r->j.change > -1))
                continue;
            x[n++] = log1p(r->j.change);
            model = r->device;
            t = r->tolerance < t ? r->tolerance : t; /* the tightest suite's, for the whole */
        }
        w->cases = n;
        w->m = model ? gb_expect_model_find(e, rs->devices[d].backend, model) : NULL;
        if (!w->m || w->m->runs < 3) {
            snprintf(w->note, sizeof w->note,
                     "not judged: the expectations hold no runs as wholes of 3 runs or more for "
                     "this model%s",
                     e && e->nmodels ? "" : " (made before they were recorded: make them again)");
            continue;
        }
        if (n < GB_CHECK_WHOLE_MIN_CASES) {
            snprintf(w->note, sizeof w->note,
                     "not judged: %zu results judged against a reference, %d needed", n,
                     GB_CHECK_WHOLE_MIN_CASES);
            continue;
        }
        const double shift = gb_median(x, n);
        const double s = w->m->shift_spread > NOISE_FLOOR ? w->m->shift_spread : NOISE_FLOOR;
        const double floor = log1p(t);
        double low = (w->m->shift_min < 0 ? -w->m->shift_min : 0) + o->mads * s,
               high = (w->m->shift_max > 0 ? w->m->shift_max : 0) + o->mads * s;
        low = low > floor ? low : floor;
        high = high > floor ? high : floor;
        w->change = expm1(shift);
        w->band = expm1(low);
        w->verdict = shift < -low   ? GB_EXPECT_LOW
                     : shift > high ? GB_EXPECT_HIGH
                                    : GB_EXPECT_NORMAL;
        w->fails = w->verdict == GB_EXPECT_LOW;
        out->whole_failures += w->fails;
        snprintf(w->note, sizeof w->note,
                 "the median change of %zu results; the %zu reference runs' own from %+.1f%% to "
                 "%+.1f%%",
                 n, w->m->runs, 100 * expm1(w->m->shift_min), 100 * expm1(w->m->shift_max));
    }
    free(x);
    return 0;
}

int gb_check_results(const struct gb_results *rs, const char *path, const struct gb_expect *e,
                     const char *expect_path, const struct gb_check_opts *o, struct gb_check *out)
{
    memset(out, 0, sizeof *out);
    out->rs = rs;
    out->path = path;
    out->expect_path = expect_path;
    out->opts = *o;
    out->rows = calloc(rs->nresults ? rs->nresults : 1, sizeof *out->rows);
    if (!out->rows)
        return GB_FAIL(GB_ENOMEM, "check: %zu rows", rs->nresults);
    /* One lookup of the model per distinct device (a file has few). */
    bool known[64] = {0}, looked[64] = {0};
    for (size_t i = 0; i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        struct gb_check_row *w = &out->rows[out->nrows++];
        w->r = r;
        struct gb_case_id id;
        gb_case_identify(rs, r, &id);
        snprintf(w->device, sizeof w->device, "%s", id.device);
        snprintf(w->params, sizeof w->params, "%s", id.params);
        w->tolerance = gb_check_tolerance(o, r->suite);
        w->basis = "none";
        w->j = (struct gb_expect_judgement){.verdict = GB_EXPECT_UNKNOWN,
                                            .expected = NAN,
                                            .change = NAN,
                                            .z = NAN,
                                            .band = NAN,
                                            .of_bound = NAN};
        const int d = r->device_index;
        const bool dev_ok = d >= 0 && (size_t)d < rs->ndevices;
        const char *backend = dev_ok ? rs->devices[d].backend : "?";
        bool is_known = false;
        if (dev_ok && d < 64) {
            if (!looked[d]) {
                known[d] = model_known(e, backend, id.device);
                looked[d] = true;
            }
            is_known = known[d];
        } else {
            is_known = model_known(e, backend, id.device);
        }
        out->models_known += is_known;
        char key[2400];
        gb_expect_key(rs, r, key, sizeof key);
        w->e = gb_expect_find(e, key);
        if (w->e && w->e->better != r->better)
            w->e = NULL;
        if (r->status == GB_STATUS_SKIPPED) {
            w->j.verdict = GB_EXPECT_SKIPPED;
            snprintf(w->note, sizeof w->note, "%s", r->reason);
        } else if (r->status != GB_STATUS_OK) {
            w->j.verdict = GB_EXPECT_FAILED;
            w->j.expected = w->e ? w->e->median : NAN;
            snprintf(w->note, sizeof w->note, "%s", r->reason);
        } else {
            const double bound = bound_of(r);
            w->j = gb_expect_judge(r->value, r->better != GB_BETTER_LOWER, own_noise(r),
                                   r->implausible, w->e, bound, w->tolerance, o);
            const char *none = !e         ? "no expectations file"
                               : is_known ? "no reference for this case"
                                          : "no reference for this model";
            if (w->j.verdict == GB_EXPECT_IMPLAUSIBLE)
                w->basis = bound > 0 ? "bound" : "result";
            else if (w->j.verdict != GB_EXPECT_UNKNOWN)
                w->basis = "reference";
            if (w->j.verdict == GB_EXPECT_IMPLAUSIBLE && !(r->value > 0 && isfinite(r->value)))
                snprintf(w->note, sizeof w->note, "the figure %g is no measurement", r->value);
            else if (w->j.verdict == GB_EXPECT_IMPLAUSIBLE)
                snprintf(w->note, sizeof w->note, "%s",
                         r->implausible && r->reason[0] ? r->reason : "above the bound it carries");
            else if (w->e && w->j.verdict == GB_EXPECT_UNKNOWN)
                snprintf(w->note, sizeof w->note,
                         "not judged: %zu reference run%s, too few for a band (3 needed)", w->e->n,
                         w->e->n == 1 ? "" : "s");
            else if (w->j.verdict == GB_EXPECT_UNKNOWN && isfinite(w->j.of_bound))
                snprintf(w->note, sizeof w->note,
                         "not judged: %s; within its bound (%.0f%% of it), which says what is "
                         "impossible, not what is normal",
                         none, 100 * w->j.of_bound);
            else if (w->j.verdict == GB_EXPECT_UNKNOWN)
                snprintf(w->note, sizeof w->note, "not judged: %s, and no bound", none);
        }
        out->judged += w->j.verdict == GB_EXPECT_NORMAL || w->j.verdict == GB_EXPECT_LOW ||
                       w->j.verdict == GB_EXPECT_HIGH;
        w->fails = w->j.verdict == GB_EXPECT_LOW || w->j.verdict == GB_EXPECT_IMPLAUSIBLE ||
                   w->j.verdict == GB_EXPECT_FAILED;
        out->counts[w->j.verdict]++;
        out->failures += w->fails;
    }
    const size_t measured = out->counts[GB_EXPECT_NORMAL] + out->counts[GB_EXPECT_LOW] +
                            out->counts[GB_EXPECT_HIGH] + out->counts[GB_EXPECT_IMPLAUSIBLE] +
                            out->counts[GB_EXPECT_UNKNOWN] + out->counts[GB_EXPECT_FAILED];
    if (rs->run.interrupted)
        snprintf(out->incomplete, sizeof out->incomplete,
                 "the run was interrupted: %zu results of %zu cases planned", rs->nresults,
                 (size_t)rs->run.cases_planned);
    else if (!measured)
        snprintf(out->incomplete, sizeof out->incomplete,
                 "nothing was measured: %zu results, none ok or failed", rs->nresults);
    int rc = judge_wholes(rs, e, o, out);
    if (rc)
        return rc;
    /* Health, per device of the file. */
    out->health = calloc(rs->ndevices ? rs->ndevices * GB_HEALTH_ITEMS : 1, sizeof *out->health);
    if (!out->health)
        return GB_FAIL(GB_ENOMEM, "check: health of %zu devices", rs->ndevices);
    for (size_t d = 0; d < rs->ndevices; d++)
        out->nhealth += gb_health_items(rs, (int)d, out->health + out->nhealth);
    for (size_t i = 0; i < out->nhealth; i++)
        out->health_failures += out->health[i].verdict == GB_HEALTH_FAIL;
    return 0;
}

/* ---- health -------------------------------------------------------------------------------- */

const char *gb_health_verdict_name(enum gb_health_verdict v)
{
    static const char *const names[] = {"OK", "WARN", "FAIL", "UNKNOWN"};
    return (unsigned)v < 4 ? names[v] : "?";
}

static struct gb_health_item *item(struct gb_health_item *out, size_t *n, int device,
                                   const char *name)
{
    struct gb_health_item *h = &out[(*n)++];
    memset(h, 0, sizeof *h);
    h->device = device;
    h->item = name;
    h->verdict = GB_HEALTH_UNKNOWN;
    return h;
}

static void pcie_item(const struct gb_tel_device_state *st, struct gb_health_item *h)
{
    if (st->pcie_gen_max <= 0 || st->pcie_width_max <= 0) {
        snprintf(h->note, sizeof h->note, "the driver reports no maximum link");
        return;
    }
    if (st->pcie_gen_load > 0 && st->pcie_width_load > 0) {
        snprintf(h->reading, sizeof h->reading, "Gen%d x%d of Gen%d x%d, read during transfers",
                 st->pcie_gen_load, st->pcie_width_load, st->pcie_gen_max, st->pcie_width_max);
        const bool down =
            st->pcie_gen_load < st->pcie_gen_max || st->pcie_width_load < st->pcie_width_max;
        h->verdict = down ? GB_HEALTH_FAIL : GB_HEALTH_OK;
        if (down)
            snprintf(h->note, sizeof h->note, "PCIe link trained down: Gen%d x%d of Gen%d x%d",
                     st->pcie_gen_load, st->pcie_width_load, st->pcie_gen_max, st->pcie_width_max);
        return;
    }
    if (st->pcie_width > 0) {
        snprintf(h->reading, sizeof h->reading, "Gen%d x%d of Gen%d x%d, read idle", st->pcie_gen,
                 st->pcie_width, st->pcie_gen_max, st->pcie_width_max);
        if (st->pcie_width < st->pcie_width_max) {
            h->verdict = GB_HEALTH_FAIL;
            snprintf(h->note, sizeof h->note,
                     "PCIe link x%d of x%d (a link does not narrow to save power)", st->pcie_width,
                     st->pcie_width_max);
        } else {
            snprintf(h->note, sizeof h->note,
                     "the generation was read idle only (an idle GPU lowers it to save power): "
                     "run a transfer with telemetry on");
        }
        return;
    }
    snprintf(h->note, sizeof h->note, "the driver reports no current link");
}

size_t gb_health_items(const struct gb_results *rs, int device, struct gb_health_item *out)
{
    size_t n = 0;
    const struct gb_tel_device_state *st = NULL;
    /* Only a device of the file: an entry whose index was unreadable (-1) is nobody's. */
    const bool real = device >= 0 && (size_t)device < rs->ndevices;
    for (size_t i = 0; real && i < rs->run.machine.ndev && !st; i++)
        if (rs->run.machine.dev[i].device == device)
            st = &rs->run.machine.dev[i];
    /* Telemetry over the device's results: throttled samples, of results whose telemetry read
     * the device at least once (telemetry on with no source that reads it saw no throttling
     * because it saw nothing: not an OK). */
    size_t with_tel = 0, throttled = 0, samples = 0;
    for (size_t i = 0; i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        if (r->device_index != device || !r->tel.on || !r->tel.nreadings)
            continue;
        with_tel++;
        throttled += r->tel.nthrottled > 0;
        samples += r->tel.nthrottled;
    }
    static const char *const names[GB_HEALTH_ITEMS] = {
        "pcie_link", "ecc", "row_remap", "power_limit", "persistence", "throttle", "xid"};
    if (!st) {
        for (size_t k = 0; k < GB_HEALTH_ITEMS; k++)
            snprintf(item(out, &n, device, names[k])->note, sizeof out->note,
                     "no driver state recorded for this device (no NVML: not an NVIDIA GPU, or "
                     "telemetry off)");
        return n;
    }
    pcie_item(st, item(out, &n, device, "pcie_link"));

    struct gb_health_item *h = item(out, &n, device, "ecc");
    if (st->ecc == 0) {
        snprintf(h->note, sizeof h->note, "ECC is off");
    } else if (st->ecc_uncorrected_volatile >= 0) {
        snprintf(h->reading, sizeof h->reading,
                 "uncorrected %lld since the driver loaded, %lld in its life; corrected %lld",
                 st->ecc_uncorrected_volatile, st->ecc_uncorrected_aggregate,
                 st->ecc_corrected_volatile);
        if (st->ecc_uncorrected_volatile > 0) {
            h->verdict = GB_HEALTH_FAIL;
            snprintf(h->note, sizeof h->note,
                     "%lld uncorrected ECC errors since the driver "
                     "loaded",
                     st->ecc_uncorrected_volatile);
        } else if (st->ecc_uncorrected_aggregate > 0) {
            h->verdict = GB_HEALTH_WARN;
            snprintf(h->note, sizeof h->note, "%lld uncorrected ECC errors in the device's life",
                     st->ecc_uncorrected_aggregate);
        } else {
            h->verdict = GB_HEALTH_OK;
        }
    } else {
        snprintf(h->note, sizeof h->note, "the driver reports no ECC error counts");
    }

    h = item(out, &n, device, "row_remap");
    if (st->remap_failure == 1) {
        h->verdict = GB_HEALTH_FAIL;
        snprintf(h->note, sizeof h->note, "a row remap failed: the memory is degraded");
    } else if (st->remap_pending == 1 || st->retired_pending == 1) {
        h->verdict = GB_HEALTH_WARN;
        snprintf(h->note, sizeof h->note, "%s waits for a GPU reset",
                 st->remap_pending == 1 ? "a row remap" : "a retired page");
    } else if (st->remap_failure == 0 || st->retired_pending == 0) {
        h->verdict = GB_HEALTH_OK;
        snprintf(h->reading, sizeof h->reading, "nothing pending%s",
                 st->remap_failure == 0 ? ", no failed remap" : "");
    } else {
        snprintf(h->note, sizeof h->note,
                 "the driver reports neither remapped rows nor "
                 "retired pages");
    }

    h = item(out, &n, device, "power_limit");
    if (st->power_limit_w > 0 && st->power_default_w > 0) {
        snprintf(h->reading, sizeof h->reading, "%.0f W of the default %.0f W", st->power_limit_w,
                 st->power_default_w);
        h->verdict = st->power_limit_w < 0.99 * st->power_default_w ? GB_HEALTH_WARN : GB_HEALTH_OK;
        if (h->verdict == GB_HEALTH_WARN)
            snprintf(h->note, sizeof h->note, "the power limit is lowered: %.0f W of %.0f W",
                     st->power_limit_w, st->power_default_w);
    } else {
        snprintf(h->note, sizeof h->note, "the driver reports no power limit, or not its default");
    }

    h = item(out, &n, device, "persistence");
    if (st->persistence >= 0) {
        snprintf(h->reading, sizeof h->reading, "%s", st->persistence ? "on" : "off");
        h->verdict = st->persistence ? GB_HEALTH_OK : GB_HEALTH_WARN;
        if (!st->persistence)
            snprintf(h->note, sizeof h->note,
                     "persistence mode is off: the driver unloads "
                     "between processes (slow starts)");
    } else {
        snprintf(h->note, sizeof h->note, "the driver reports no persistence mode");
    }

    h = item(out, &n, device, "throttle");
    if (with_tel) {
        snprintf(h->reading, sizeof h->reading, "%zu of %zu results with throttled samples",
                 throttled, with_tel);
        h->verdict = throttled ? GB_HEALTH_WARN : GB_HEALTH_OK;
        if (throttled)
            snprintf(h->note, sizeof h->note,
                     "%zu samples of %zu results ran throttled (their "
                     "results say which reasons)",
                     samples, throttled);
    } else {
        snprintf(h->note, sizeof h->note,
                 "no result had a telemetry reading of the device (no source reads it)");
    }

    /* XID events: NVML's critical-error events that came while the run measured (an XID is the
     * driver reporting a GPU fault: 79 fallen off the bus, 48 a double-bit ECC error, 13 and 31
     * an application's fault; NVIDIA's "Xid Errors" catalogue). Any is a FAIL: even one an
     * application caused says the device faulted under this run. */
    h = item(out, &n, device, "xid");
    if (st && st->xid_events >= 0) {
        snprintf(h->reading, sizeof h->reading, "%lld XID event%s", st->xid_events,
                 st->xid_events == 1 ? "" : "s");
        if (st->xid_events > 0) {
            h->verdict = GB_HEALTH_FAIL;
            snprintf(h->note, sizeof h->note,
                     "the driver reported %lld critical XID event%s while the run measured; the "
                     "last was XID %d (see NVIDIA's Xid catalogue and the kernel log)",
                     st->xid_events, st->xid_events == 1 ? "" : "s", st->xid_last);
        } else {
            h->verdict = GB_HEALTH_OK;
            snprintf(h->note, sizeof h->note, "no critical XID event while the run measured");
        }
    } else {
        snprintf(h->note, sizeof h->note,
                 st ? "not read: no NVML event set for XID events (no NVML for the device, no "
                      "permission, or a driver without events)"
                    : "not read: no NVML state was recorded for the device");
    }
    return n;
}

void gb_check_free(struct gb_check *c)
{
    free(c->wholes);
    free(c->health);
    free(c->rows);
    memset(c, 0, sizeof *c);
}
