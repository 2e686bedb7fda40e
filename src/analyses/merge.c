/* gpubench — reading many results files: inputs, case identity, string table (merge.h). */
#include "analyses/merge.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "base/params.h"
#include "base/util.h"

/* ---- the inputs ------------------------------------------------------------------------------ */

static int add_path(struct gb_inputs *in, const char *dir, const char *name)
{
    char **g = gb_grow(in->paths, &in->cap, in->n + 1, sizeof *g);
    if (!g)
        return GB_FAIL(GB_ENOMEM, "%zu input files", in->n + 1);
    in->paths = g;
    size_t l = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
    char *p = malloc(l);
    if (!p)
        return GB_FAIL(GB_ENOMEM, "input path");
    if (dir)
        snprintf(p, l, "%s/%s", dir, name);
    else
        snprintf(p, l, "%s", name);
    in->paths[in->n++] = p;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

bool gb_file_is_expectations(const char *path)
{
    char head[256];
    return gb_read_head(path, head, sizeof head) &&
           strstr(head, "\"schema\": \"gpubench-expect/") != NULL;
}

int gb_inputs_expand(const char *const *args, size_t nargs, struct gb_inputs *out)
{
    memset(out, 0, sizeof *out);
    int rc = 0;
    for (size_t i = 0; i < nargs && !rc; i++) {
        struct stat st;
        if (stat(args[i], &st) != 0) {
            rc = GB_USER_FAIL(GB_EIO, "%s: %s", args[i], strerror(errno));
            break;
        }
        if (!S_ISDIR(st.st_mode)) {
            rc = add_path(out, NULL, args[i]);
            continue;
        }
        DIR *d = opendir(args[i]);
        if (!d) {
            rc = GB_USER_FAIL(GB_EIO, "%s: %s", args[i], strerror(errno));
            break;
        }
        size_t first = out->n;
        /* Trailing slashes are dropped so that paths read "dir/file.json". */
        char dir[GB_PATH_MAX];
        snprintf(dir, sizeof dir, "%s", args[i]);
        for (size_t l = strlen(dir); l > 1 && dir[l - 1] == '/'; l--)
            dir[l - 1] = '\0';
        struct dirent *e;
        while (!rc && (e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.' || !ends_with(e->d_name, ".json"))
                continue;
            char full[8192];
            snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
            if (stat(full, &st) != 0 || !S_ISREG(st.st_mode) || gb_file_is_expectations(full))
                continue; /* an expectations file kept beside its runs is not a run */
            rc = add_path(out, dir, e->d_name);
        }
        closedir(d);
        if (!rc && out->n > first)
            qsort(out->paths + first, out->n - first, sizeof *out->paths, cmp_str);
    }
    if (!rc && out->n == 0)
        rc = GB_USER_FAIL(GB_EINVAL, "no results files (a folder gives its *.json files)");
    /* One file named twice (given twice, or also through its folder) is one run. */
    bool *dup = rc ? NULL : calloc(out->n, sizeof *dup);
    if (dup && gb_files_duplicates((const char *const *)out->paths, out->n, dup)) {
        size_t k = 0;
        for (size_t i = 0; i < out->n; i++) {
            if (dup[i]) {
                free(out->paths[i]);
                out->ndup++;
            } else {
                out->paths[k++] = out->paths[i];
            }
        }
        out->n = k;
    }
    free(dup);
    if (rc)
        gb_inputs_free(out);
    return rc;
}

void gb_inputs_free(struct gb_inputs *in)
{
    for (size_t i = 0; i < in->n; i++)
        free(in->paths[i]);
    free(in->paths);
    memset(in, 0, sizeof *in);
}

/* ---- a case across files --------------------------------------------------------------------- */

void gb_case_identify(const struct gb_results *rs, const struct gb_result *r, struct gb_case_id *id)
{
    int one = r->device_index;
    const int *idx = r->nset > 0 ? r->set : &one;
    size_t n = r->nset > 0 ? r->nset : 1;
    id->device[0] = '\0';
    id->slot[0] = '\0';
    bool several = false;
    char slot[64] = "";
    for (size_t i = 0; i < n; i++) {
        const char *sep = i ? "+" : "";
        if (idx[i] < 0 || (size_t)idx[i] >= rs->ndevices) {
            gb_appendf(id->device, sizeof id->device, "%s?", sep);
            gb_appendf(slot, sizeof slot, "%s?", sep);
            continue;
        }
        size_t d = (size_t)idx[i];
        const struct gb_result_device *dv = &rs->devices[d];
        size_t pos = 0, count = 0;
        for (size_t k = 0; k < rs->ndevices; k++) {
            if (strcmp(rs->devices[k].backend, dv->backend) != 0 ||
                strcmp(rs->devices[k].info.name, dv->info.name) != 0)
                continue;
            pos += k < d;
            count++;
        }
        several |= count > 1;
        gb_appendf(id->device, sizeof id->device, "%s%s", sep, dv->info.name);
        gb_appendf(slot, sizeof slot, "%s%zu", sep, pos);
    }
    if (several)
        snprintf(id->slot, sizeof id->slot, "%s", slot);

    /* The params beside the case's name (gb_result_other_params), as text; and all of them
     * (where the case's param leads, as it does in every suite's results, its text and the
     * rest's: formatted once, this runs for every result of every file of a fleet). */
    struct gb_params rest;
    gb_result_other_params(r, &rest);
    gb_params_format(&rest, id->params, sizeof id->params);
    char all[1024];
    if (gb_result_case_param(r) == 0) {
        struct gb_params first = r->params;
        first.n = 1;
        gb_params_format(&first, all, sizeof all);
        if (rest.n > 0)
            gb_appendf(all, sizeof all, " %s", id->params);
    } else {
        gb_params_format(&r->params, all, sizeof all);
    }
    snprintf(id->key, sizeof id->key, "%s\x1f%s\x1f%s\x1f%s\x1f%s", r->suite, r->case_name,
             r->backend, id->device, all);
}

char *gb_case_title(const char *suite, const char *case_name, const char *params,
                    const char *device, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s%s%s on %s", suite, case_name, params[0] ? " " : "", params, device);
    return buf;
}

static const char *better_name(enum gb_better b)
{
    return b == GB_BETTER_LOWER ? "lower is better" : "higher is better";
}

bool gb_case_measure_differs(const char *unit, const char *metric, enum gb_better better,
                             const struct gb_result *r, char *why, size_t len)
{
    if (strcmp(unit, r->unit) != 0)
        snprintf(why, len, "unit %s where the case is %s", r->unit, unit);
    else if (strcmp(metric, r->metric) != 0)
        snprintf(why, len, "metric %s where the case is %s", r->metric, metric);
    else if (better != r->better)
        snprintf(why, len, "%s where the case is %s", better_name(r->better), better_name(better));
    else
        return false;
    return true;
}

void gb_case_left_out_note(char *notes, size_t len, size_t n, const char *title, const char *why)
{
    if (n > 0)
        gb_append_line(notes, len, "%zu value%s of case %s left out: %s", n, n == 1 ? "" : "s",
                       title, why);
}

/* ---- a string table -------------------------------------------------------------------------- */

/* FNV-1a, 64 bits (Fowler, Noll, Vo; http://www.isthe.com/chongo/tech/comp/fnv/). */
static uint64_t fnv1a(const char *s)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (const unsigned char *u = (const unsigned char *)s; *u; u++) {
        h ^= *u;
        h *= UINT64_C(1099511628211);
    }
    return h;
}

static long probe(const struct gb_strtab *t, const char *s, size_t *slot)
{
    size_t mask = t->nslots - 1;
    for (size_t i = (size_t)fnv1a(s) & mask;; i = (i + 1) & mask) {
        uint32_t v = t->slots[i];
        if (v == 0) {
            *slot = i;
            return -1;
        }
        if (strcmp(t->pool + t->offset[v - 1], s) == 0) {
            *slot = i;
            return (long)(v - 1);
        }
    }
}

static int rehash(struct gb_strtab *t, size_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return GB_FAIL(GB_ENOMEM, "string table of %zu slots", nslots);
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    for (size_t i = 0; i < t->n; i++) {
        size_t slot;
        probe(t, t->pool + t->offset[i], &slot);
        t->slots[slot] = (uint32_t)(i + 1);
    }
    return 0;
}

long gb_strtab_find(const struct gb_strtab *t, const char *s)
{
    if (t->nslots == 0)
        return -1;
    size_t slot;
    return probe(t, s, &slot);
}

long gb_strtab_intern(struct gb_strtab *t, const char *s, bool *added)
{
    if (added)
        *added = false;
    if (t->nslots == 0 || 2 * (t->n + 1) > t->nslots) {
        if (t->n >= (size_t)INT32_MAX)
            return GB_FAIL(GB_EOVERFLOW, "string table: %zu strings", t->n);
        int rc = rehash(t, t->nslots ? 2 * t->nslots : 64);
        if (rc)
            return rc;
    }
    size_t slot;
    long found = probe(t, s, &slot);
    if (found >= 0)
        return found;
    size_t l = strlen(s) + 1;
    char *pool = gb_grow(t->pool, &t->pool_cap, t->pool_len + l, 1);
    if (!pool)
        return GB_FAIL(GB_ENOMEM, "string table: %zu bytes", t->pool_len + l);
    t->pool = pool;
    size_t *off = gb_grow(t->offset, &t->cap, t->n + 1, sizeof *off);
    if (!off)
        return GB_FAIL(GB_ENOMEM, "string table: %zu strings", t->n + 1);
    t->offset = off;
    memcpy(t->pool + t->pool_len, s, l);
    t->offset[t->n] = t->pool_len;
    t->pool_len += l;
    t->slots[slot] = (uint32_t)(t->n + 1);
    if (added)
        *added = true;
    return (long)t->n++;
}

const char *gb_strtab_get(const struct gb_strtab *t, size_t i)
{
    return t->pool + t->offset[i];
}

void gb_strtab_free(struct gb_strtab *t)
{
    free(t->pool);
    free(t->offset);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

/* ---- shared small things --------------------------------------------------------------------- */

bool gb_suite_selected(const char *list, const char *suite)
{
    if (!list || !*list)
        return true;
    size_t l = strlen(suite);
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n == l && strncmp(p, suite, l) == 0)
            return true;
        p += n;
        if (*p == ',')
            p++;
    }
    return false;
}

void gb_fputs_json(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *u = (const unsigned char *)(s ? s : ""); *u; u++) {
        switch (*u) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*u < 0x20)
                fprintf(f, "\\u%04x", *u);
            else
                fputc(*u, f);
        }
    }
    fputc('"', f);
}

void gb_fput_json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gb_median_inplace(double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

void gb__fmt_num(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.4g", v);
}

void gb__fmt_pct(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%+.1f%%", 100.0 * v);
}
