#include "run/plan.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/util.h"

static bool name_in(char *const *list, const char *name)
{
    if (!list)
        return true;
    for (; *list; list++)
        if (strcmp(*list, name) == 0)
            return true;
    return false;
}

static bool contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return false;
}

/* Whether one --device item selects device `index` of backend `ops`. */
static bool item_selects(const char *item, const struct gb_backend_ops *ops, int index,
                         const struct gb_device_info *info)
{
    const char *colon = strchr(item, ':');
    if (colon) {
        size_t bl = (size_t)(colon - item);
        if (strlen(ops->name) != bl || strncmp(ops->name, item, bl) != 0)
            return false;
        item = colon + 1;
    }
    char *end;
    long v = strtol(item, &end, 10);
    if (end != item && *end == '\0')
        return v == index;
    return contains_nocase(info->name, item);
}

static bool sel_selects(const char *sel, const struct gb_backend_ops *ops, int index,
                        const struct gb_device_info *info)
{
    if (!sel || strcmp(sel, "all") == 0)
        return true;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", sel);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (item_selects(tok, ops, index, info))
            return true;
    return false;
}

static bool index_in(const int *list, int index)
{
    if (!list)
        return true;
    for (; *list >= 0; list++)
        if (*list == index)
            return true;
    return false;
}

int gb_plan_devices(const struct gb_profile *p, const char *backend, const char *device_sel,
                    struct gb_plan *plan)
{
    char why[1024] = "";
    size_t cap = 0;
    if (backend && !gb_backend_find(backend)) {
        char names[256] = "";
        for (size_t b = 0; b < gb_backend_count; b++)
            gb_appendf(names, sizeof names, "%s%s", names[0] ? ", " : "", gb_backends[b]->name);
        return GB_USER_FAIL(GB_ENODEV, "unknown backend '%s' (this build has: %s)", backend,
                            names[0] ? names : "none");
    }
    for (size_t b = 0; b < gb_backend_count; b++) {
        const struct gb_backend_ops *ops = gb_backends[b];
        if ((backend && strcmp(backend, ops->name) != 0) ||
            !name_in(p ? p->backends : NULL, ops->name))
            continue;
        gb_error_clear();
        int err = ops->init();
        if (err) {
            gb_appendf(why, sizeof why, "%s%s: unavailable (%s)", why[0] ? "; " : "", ops->name,
                       *gb_error_msg() ? gb_error_msg() : gb_strerror(err));
            continue;
        }
        int n = ops->device_count();
        for (int i = 0; i < n; i++) {
            struct gb_device_info info;
            if (ops->device_info(i, &info))
                continue;
            if (!index_in(p ? p->devices : NULL, i) || !sel_selects(device_sel, ops, i, &info)) {
                /* The name cut to 64 bytes at most, where a cut says so, at a character
                 * (gb_utf8_trim) and leaving no space before its closing parenthesis. */
                char name[65];
                const bool cut = strnlen(info.name, 65) > 64;
                snprintf(name, sizeof name, "%.*s", cut ? 61 : 64, info.name);
                gb_utf8_trim(name);
                for (size_t l = strlen(name); l > 0 && name[l - 1] == ' ';)
                    name[--l] = '\0';
                gb_appendf(why, sizeof why, "%s%s:%d (%s%s) not selected", why[0] ? "; " : "",
                           ops->name, i, name, cut ? "..." : "");
                continue;
            }
            struct gb_plan_device *d = gb_grow(plan->devices, &cap, plan->ndevices + 1, sizeof *d);
            if (!d)
                return GB_FAIL(GB_ENOMEM, "device list");
            plan->devices = d;
            plan->devices[plan->ndevices++] = (struct gb_plan_device){ops, i, info};
        }
        if (n == 0)
            gb_appendf(why, sizeof why, "%s%s: no devices", why[0] ? "; " : "", ops->name);
    }
    if (plan->ndevices == 0)
        return GB_USER_FAIL(GB_ENODEV, "no device selected %s%s%s%s",
                            device_sel ? "by --device " : "by the profile's devices",
                            device_sel ? device_sel : "", *why ? ": " : "", why);
    return 0;
}

static bool params_equal(const struct gb_params *a, const struct gb_params *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->name[i], b->name[i]) != 0 || !gb_value_equal(&a->v[i], &b->v[i]))
            return false;
    return true;
}

/* FNV-1a over n bytes, continuing from h. */
static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(1099511628211);
    return h;
}

/* A hash of p consistent with params_equal: equal parameters hash alike (0.0 and -0.0 too). */
static uint64_t params_hash(const struct gb_params *p)
{
    uint64_t h = fnv(UINT64_C(14695981039346656037), &p->n, sizeof p->n);
    for (size_t i = 0; i < p->n; i++) {
        const struct gb_value *v = &p->v[i];
        h = fnv(h, p->name[i], strlen(p->name[i]) + 1);
        h = fnv(h, &v->type, sizeof v->type);
        switch (v->type) {
        case GB_V_SIZE:
            h = fnv(h, &v->u.size, sizeof v->u.size);
            break;
        case GB_V_INT:
            h = fnv(h, &v->u.i, sizeof v->u.i);
            break;
        case GB_V_FLOAT: {
            double f = v->u.f == 0 ? 0.0 : v->u.f;
            h = fnv(h, &f, sizeof f);
            break;
        }
        case GB_V_STR:
            h = fnv(h, v->s, strnlen(v->s, GB_STR_MAX));
            break;
        case GB_V_BOOL:
            h = fnv(h, &v->u.b, sizeof v->u.b);
            break;
        }
    }
    return h;
}

/* The cases of one profile entry seen so far, for the duplicate check after normalize(): an
 * open-addressing hash set of indices into plan->cases, so n cases cost O(n), not the O(n^2) of
 * comparing each with all before it (a 160,000-case profile took minutes). */
struct seen {
    size_t *slot;  /* SIZE_MAX: empty */
    size_t cap, n; /* cap a power of two, or 0 */
};

/* Whether plan->cases[i]'s parameters are already in *t; when not, adds i. -1 when out of
 * memory. */
static int seen_add(struct seen *t, const struct gb_plan *plan, size_t i)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t ncap = t->cap ? 2 * t->cap : 64;
        size_t *ns = malloc(ncap * sizeof *ns);
        if (!ns)
            return -1;
        for (size_t k = 0; k < ncap; k++)
            ns[k] = SIZE_MAX;
        for (size_t k = 0; k < t->cap; k++) {
            if (t->slot[k] == SIZE_MAX)
                continue;
            size_t j = params_hash(&plan->cases[t->slot[k]].params) & (ncap - 1);
            while (ns[j] != SIZE_MAX)
                j = (j + 1) & (ncap - 1);
            ns[j] = t->slot[k];
        }
        free(t->slot);
        t->slot = ns;
        t->cap = ncap;
    }
    const struct gb_params *p = &plan->cases[i].params;
    size_t j = params_hash(p) & (t->cap - 1);
    for (; t->slot[j] != SIZE_MAX; j = (j + 1) & (t->cap - 1))
        if (params_equal(&plan->cases[t->slot[j]].params, p))
            return 1;
    t->slot[j] = i;
    t->n++;
    return 0;
}

static bool suite_wanted(const char *filter, const char *name)
{
    if (!filter)
        return true;
    size_t n = strlen(name);
    for (const char *s = filter; *s;) {
        size_t l = strcspn(s, ",");
        if (l == n && strncmp(s, name, n) == 0)
            return true;
        s += l + (s[l] == ',');
    }
    return false;
}

/* Appends the cases of one profile entry on plan device `d` (single-device suites, set NULL)
 * or on the device set set[0..nset) (multi-device suites). */
static int expand_run(const char *path, const struct gb_suite_run *run, size_t d, const size_t *set,
                      size_t nset, struct gb_plan *plan, size_t *cap)
{
    const struct gb_suite *s = run->suite;
    size_t idx[GB_MAX_AXES] = {0};
    for (size_t i = 0; i < s->naxes; i++)
        if (run->sweeps[i].n == 0)
            return 0;
    struct seen seen = {0}; /* duplicates are merged within one entry */
    int rc = 0;
    for (;;) {
        struct gb_plan_case c = {.run = run, .device = d, .nset = nset};
        if (nset)
            memcpy(c.set, set, nset * sizeof *set);
        c.params.n = s->naxes;
        bool keep = true;
        for (size_t i = 0; i < s->naxes; i++) {
            c.params.name[i] = s->axes[i].name;
            c.params.v[i] = run->sweeps[i].v[idx[i]];
            /* A position in the device set that this set does not have. */
            if (nset && s->axes[i].device_pos && c.params.v[i].type == GB_V_INT &&
                (c.params.v[i].u.i < 0 || (uint64_t)c.params.v[i].u.i >= nset))
                keep = false;
        }
        keep = keep && (!s->normalize || s->normalize(&c.params));
        if (keep) {
            struct gb_plan_case *nc = gb_grow(plan->cases, cap, plan->ncases + 1, sizeof *nc);
            if (!nc) {
                rc = GB_FAIL(GB_ENOMEM, "out of memory for a plan of %zu cases", plan->ncases + 1);
                break;
            }
            plan->cases = nc;
            plan->cases[plan->ncases] = c;
            /* Sweeps hold distinct values, so only a normalize() can make two combinations
             * equal. */
            int dup = s->normalize ? seen_add(&seen, plan, plan->ncases) : 0;
            if (dup < 0) {
                rc = GB_FAIL(GB_ENOMEM, "out of memory for a plan of %zu cases", plan->ncases + 1);
                break;
            }
            if (!dup && plan->ncases >= GB_PLAN_MAX_CASES) {
                rc =
                    GB_USER_FAIL(GB_ECONFIG,
                                 "%s:%d:%d: the profile expands to more than %d cases (at this "
                                 "%s entry); narrow the sweeps",
                                 path, run->line, run->column, GB_PLAN_MAX_CASES, run->suite->name);
                break;
            }
            if (!dup)
                plan->ncases++;
        }
        /* Odometer: the last axis turns fastest; done when the first one wraps. */
        bool done = true;
        for (size_t i = s->naxes; i > 0 && done; i--) {
            if (++idx[i - 1] < run->sweeps[i - 1].n)
                done = false;
            else
                idx[i - 1] = 0;
        }
        if (done)
            break;
    }
    free(seen.slot);
    return rc;
}

int gb_plan_expand(const struct gb_profile *p, const char *suite_filter, struct gb_plan *plan)
{
    plan->suites = p->suites;
    /* A misspelt --suite would otherwise select nothing and say only that. */
    for (const char *f = suite_filter; f && *f;) {
        size_t l = strcspn(f, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(l < sizeof name ? l : sizeof name - 1), f);
        if (!gb_suite_table_find(p->suites, name)) {
            const char *names[64];
            size_t n = 0;
            for (size_t i = 0; p->suites && i < p->suites->n && n < 64; i++)
                names[n++] = p->suites->v[i]->name;
            const char *near = gb_did_you_mean(name, names, n);
            return GB_USER_FAIL(GB_ECONFIG,
                                "unknown suite '%s' in --suite (%s%s%ssee 'gpubench suites')", name,
                                near ? "did you mean " : "", near ? near : "", near ? "? " : "");
        }
        f += l + (f[l] == ',');
    }
    size_t cap = 0;
    int err;
    for (size_t d = 0; d < plan->ndevices; d++) {
        for (size_t r = 0; r < p->nruns; r++) {
            const struct gb_suite_run *run = &p->runs[r];
            if (!suite_wanted(suite_filter, run->suite->name) ||
                (run->suite->flags & GB_SUITE_MULTI_DEVICE))
                continue;
            if ((err = expand_run(p->path, run, d, NULL, 0, plan, &cap)))
                return err;
        }
    }
    /* Multi-device suites: one device set per backend, in the order the devices were selected;
     * a machine with more than GB_MAX_SET devices of a backend uses the first GB_MAX_SET. */
    for (size_t d = 0; d < plan->ndevices; d++) {
        bool first_of_backend = true;
        for (size_t e = 0; e < d; e++)
            if (plan->devices[e].ops == plan->devices[d].ops)
                first_of_backend = false;
        if (!first_of_backend)
            continue;
        size_t set[GB_MAX_SET], nset = 0;
        for (size_t e = d; e < plan->ndevices && nset < GB_MAX_SET; e++)
            if (plan->devices[e].ops == plan->devices[d].ops)
                set[nset++] = e;
        for (size_t r = 0; r < p->nruns; r++) {
            const struct gb_suite_run *run = &p->runs[r];
            if (!suite_wanted(suite_filter, run->suite->name) ||
                !(run->suite->flags & GB_SUITE_MULTI_DEVICE))
                continue;
            if ((err = expand_run(p->path, run, d, set, nset, plan, &cap)))
                return err;
        }
    }
    return 0;
}

void gb_plan_free(struct gb_plan *plan)
{
    free(plan->devices);
    free(plan->cases);
    *plan = (struct gb_plan){0};
}
