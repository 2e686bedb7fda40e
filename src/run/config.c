/* gpubench — profiles: YAML in, a checked gb_profile out (see config.h for the syntax).
 *
 * This file holds the profile's own keys and its suite entries; config_load.c the entry points,
 * which read the text and apply the overrides. The loader's other parts share config_private.h: the libyaml walker that reports "file:line:column: message"
 * (config_yaml.c), sweeps (config_sweep.c), the measurement layers (config_measure.c), the
 * tuning keys of an entry (config_tuning.c) and the --set overrides (config_set.c).
 */
#include "run/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "base/error.h"
#include "base/util.h"
#include "run/config_private.h"

/* ---- top-level keys -------------------------------------------------------------------- */

int gb__parse_name(struct gb__ld *l, yaml_node_t *n)
{
    const char *s;
    int rc = gb__want_scalar(l, n, "a name", &s);
    if (rc)
        return rc;
    if (strlen(s) >= sizeof l->p->name)
        return gb__fail(l, n, "name is longer than %zu characters", sizeof l->p->name - 1);
    if (!gb__is_ident(s))
        return gb__fail(l, n, "name \"%s\" may only contain letters, digits, _ . + -", s);
    snprintf(l->p->name, sizeof l->p->name, "%s", s);
    return 0;
}

static void free_strv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* Reads `all`, or a scalar or a list of them (see gb__scalar_or_list), into *out: NULL for `all`,
 * else a new zeroed array of len + 1 elements of `size` bytes whose first len elements item()
 * fills, given each item's node and index. On error *out may hold a partly filled array, for
 * the caller to free. */
static int parse_all_or_list(struct gb__ld *l, yaml_node_t *n, const char *what,
                             const char *if_empty, size_t size,
                             int (*item)(struct gb__ld *, yaml_node_t *, void *, size_t),
                             void **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (n && n->type == YAML_SCALAR_NODE && !gb__is_null(n) && strcmp(gb__sval(n), "all") == 0)
        return 0;
    int rc = gb__scalar_or_list(l, n, what, if_empty, len);
    if (!rc && !(*out = calloc(*len + 1, size)))
        rc = gb__fail(l, n, "out of memory");
    for (size_t i = 0; !rc && i < *len; i++)
        rc = item(l, gb__list_item(l, n, i), *out, i);
    return rc;
}

/* Item i of `backends:`, node it, into names[i]: a known backend, not listed before. */
static int parse_backend(struct gb__ld *l, yaml_node_t *it, void *array, size_t i)
{
    char **names = array;
    const char *s;
    int rc = gb__want_scalar(l, it, "a backend name", &s);
    if (rc)
        return rc;
    bool known = false;
    for (size_t j = 0; gb_backend_known[j]; j++)
        known = known || strcmp(gb_backend_known[j], s) == 0;
    if (!known) {
        char all[64];
        return gb__fail(l, it, "unknown backend \"%s\" (expected %s)", s,
                        gb__join_or(gb_backend_known, all, sizeof all));
    }
    for (size_t j = 0; j < i; j++)
        if (strcmp(names[j], s) == 0)
            return gb__fail(l, it, "backend \"%s\" is listed twice", s);
    if (!(names[i] = strdup(s)))
        return gb__fail(l, it, "out of memory");
    return 0;
}

int gb__parse_backends(struct gb__ld *l, yaml_node_t *n)
{
    void *names; /* NULL-terminated; NULL: every backend */
    size_t len;
    int rc = parse_all_or_list(l, n, "a backend name, a list of them or \"all\" for backends",
                               "backends: empty list (leave backends out for every backend)",
                               sizeof(char *), parse_backend, &names, &len);
    if (rc) {
        free_strv(names);
        return rc;
    }
    free_strv(l->p->backends);
    l->p->backends = names;
    return 0;
}

/* Item i of `devices:`, node it, into devs[i]: a device index, not listed before. */
static int parse_device(struct gb__ld *l, yaml_node_t *it, void *array, size_t i)
{
    int *devs = array;
    const char *s;
    int64_t x;
    int rc = gb__want_scalar(l, it, "a device index", &s);
    if (rc)
        return rc;
    if (!gb__parse_i64(s, &x) || x < 0 || x > INT32_MAX)
        return gb__fail(l, it,
                        "devices: expected \"all\" or a device index (0, 1, ...), got "
                        "\"%s\"",
                        s);
    devs[i] = (int)x;
    for (size_t j = 0; j < i; j++)
        if (devs[j] == devs[i])
            return gb__fail(l, it, "device %d is listed twice", devs[i]);
    return 0;
}

int gb__parse_devices(struct gb__ld *l, yaml_node_t *n)
{
    void *devs; /* -1 terminated; NULL: every device */
    size_t len;
    int rc = parse_all_or_list(l, n, "\"all\", a device index or a list of them for devices",
                               "devices: empty list (use \"all\" for every device)", sizeof(int),
                               parse_device, &devs, &len);
    if (!rc) {
        if (devs)
            ((int *)devs)[len] = -1;
        free(l->p->devices);
        l->p->devices = devs;
    } else {
        free(devs);
    }
    return rc;
}

/* `tuning_cache:` — the tuning cache file; "~/" at the start is the home folder. */
int gb__parse_tuning_cache(struct gb__ld *l, yaml_node_t *n)
{
    const char *s = NULL;
    int rc = gb__want_scalar(l, n, "a file path for tuning_cache", &s);
    if (rc)
        return rc;
    const char *home = getenv("HOME");
    bool tilde = strncmp(s, "~/", 2) == 0 && home && *home;
    int w = tilde ? snprintf(l->p->tuning_cache, sizeof l->p->tuning_cache, "%s/%s", home, s + 2)
                  : snprintf(l->p->tuning_cache, sizeof l->p->tuning_cache, "%s", s);
    if (w < 0 || (size_t)w >= sizeof l->p->tuning_cache)
        return gb__fail(l, n, "tuning_cache: the path is longer than %zu characters",
                        sizeof l->p->tuning_cache - 1);
    /* The cache is read, then replaced by a rename: a device node or a folder must not be. */
    char why[1200];
    if (gb_output_refusal(l->p->tuning_cache, GB_OUTPUT_FILE, NULL, 0, why, sizeof why))
        return gb__fail(l, n, "tuning_cache: %s cannot be the tuning cache: %s", l->p->tuning_cache,
                        why);
    return 0;
}

/* ---- suite entries --------------------------------------------------------------------- */

const char *gb__axis_list(const struct gb_suite *s, char *buf, size_t len)
{
    const char *names[GB_MAX_AXES + 1];
    size_t n = s->naxes < GB_MAX_AXES ? s->naxes : GB_MAX_AXES;
    for (size_t i = 0; i < n; i++)
        names[i] = s->axes[i].name;
    names[n] = NULL;
    return gb__join_or(names, buf, len);
}

const char *gb__suite_list(const struct gb_suite_table *t, char *buf, size_t len)
{
    const char *names[64];
    size_t n = t ? (t->n < 63 ? t->n : 63) : 0;
    for (size_t i = 0; i < n; i++)
        names[i] = t->v[i]->name;
    names[n] = NULL;
    return gb__join_or(names, buf, len);
}

/* A failure that `optional: true` may forgive (l->lacks: a suite or an axis this build lacks),
 * held while the rest of the entry is checked: a mistake there is the profile's own and is the
 * entry's error instead, so that an axis a build lacks cannot hide a typo beside it. */
struct held_lack {
    int rc;    /* 0: none held */
    char *msg; /* the loader's message of the first one */
};

static void lack_hold(const struct gb__ld *l, int rc, struct held_lack *h)
{
    if (h->rc)
        return;
    h->rc = rc;
    h->msg = l->err && l->errlen ? strdup(l->err) : NULL;
}

/* The entry's outcome: rc, a failure of the rest of the entry, if any (lacks cleared); else the
 * held failure, its message back in l->err and l->lacks set; else 0. Frees what h holds. */
static int lack_end(struct gb__ld *l, int rc, struct held_lack *h)
{
    if (rc)
        l->lacks = false;
    else if (h->rc) {
        rc = h->rc;
        l->lacks = true;
        if (h->msg)
            snprintf(l->err, l->errlen, "%s", h->msg);
    }
    free(h->msg);
    *h = (struct held_lack){0};
    return rc;
}

/* The entry's outcome where rc is a lack that `optional: true` may forgive: its measure keys
 * (NULL: none) checked first, a mistake there the entry's error instead (lack_end). */
static int lack_then_measure(struct gb__ld *l, int rc, yaml_node_t *measure, struct gb__mlayer *m)
{
    struct held_lack held = {0};
    lack_hold(l, rc, &held);
    return lack_end(l, measure ? gb__parse_measure(l, measure, m) : 0, &held);
}

/* `params:` of a suite entry (or of --set SUITE.params): replaces the sweeps it names. An axis
 * this build lacks fails (l->lacks) only once every other axis named is checked. */
int gb__parse_params(struct gb__ld *l, yaml_node_t *n, struct gb_suite_run *run)
{
    char what[96];
    snprintf(what, sizeof what, "the params of suite %s", run->suite->name);
    int rc = gb__check_map(l, n, what);
    if (rc)
        return rc;
    struct held_lack held = {0};
    yaml_node_t *k, *v;
    GB__MAP_FOREACH(l, n, k, v)
    {
        const struct gb_axis_def *ax = gb_suite_axis(run->suite, gb__sval(k));
        if (!ax) {
            char all[256], hint[96];
            gb__axis_list(run->suite, all, sizeof all);
            gb__hint(gb__sval(k), all, hint, sizeof hint);
            rc = gb__fail(l, k, "suite %s has no axis \"%s\" (%saxes: %s)", run->suite->name,
                          gb__sval(k), hint, all);
            if (hint[0]) /* a near miss is a typo, not an axis this build lacks */
                return lack_end(l, rc, &held);
            lack_hold(l, rc, &held);
            continue;
        }
        size_t i = (size_t)(ax - run->suite->axes);
        struct gb_sweep s;
        if ((rc = gb__parse_sweep(l, ax, v, &s)))
            return lack_end(l, rc, &held);
        gb_sweep_free(&run->sweeps[i]);
        run->sweeps[i] = s;
        run->defaulted &= ~(UINT32_C(1) << i);
    }
    return lack_end(l, 0, &held);
}

static int parse_optional(struct gb__ld *l, yaml_node_t *n, struct gb_suite_run *run)
{
    const char *s = NULL;
    int rc = gb__want_scalar(l, n, "true or false for optional", &s);
    if (!rc && !gb__parse_bool(s, &run->optional))
        rc = gb__fail(l, n, "optional: expected true or false, got \"%s\"", s);
    return rc;
}

static int parse_run(struct gb__ld *l, yaml_node_t *n, struct gb_suite_run *run,
                     struct gb__mlayer *m)
{
    int rc = gb__check_map(l, n, "a suite entry");
    if (rc)
        return rc;
    yaml_node_t *k, *v, *measure = NULL, *params = NULL, *suite = NULL, *tuned = NULL;
    yaml_node_t *tunables = NULL, *constraints = NULL;
    GB__MAP_FOREACH(l, n, k, v)
    {
        if (strcmp(gb__sval(k), "suite") == 0)
            suite = v;
        else if (strcmp(gb__sval(k), "optional") == 0)
            rc = parse_optional(l, v, run);
        else if (strcmp(gb__sval(k), "measure") == 0)
            measure = v;
        else if (strcmp(gb__sval(k), "params") == 0)
            params = v;
        else if (strcmp(gb__sval(k), "tuned") == 0)
            tuned = v;
        else if (strcmp(gb__sval(k), "tunables") == 0)
            tunables = v;
        else if (strcmp(gb__sval(k), "constraints") == 0)
            constraints = v;
        else {
            static const char keys[] =
                "suite, measure, params, tuned, tunables, constraints or optional";
            char hint[96];
            return gb__fail(l, k, "unknown key \"%s\" in a suite entry (%sexpected %s)",
                            gb__sval(k), gb__hint(gb__sval(k), keys, hint, sizeof hint), keys);
        }
        if (rc)
            return rc;
    }
    if (!suite)
        return gb__fail(l, n, "suite entry without a suite: key");
    const char *sname;
    if ((rc = gb__want_scalar(l, suite, "a suite name", &sname)))
        return rc;
    run->suite = gb_suite_table_find(l->p->suites, sname);
    if (!run->suite) {
        char all[512], hint[96];
        gb__suite_list(l->p->suites, all, sizeof all);
        gb__hint(sname, all, hint, sizeof hint);
        rc = gb__fail(l, suite, "unknown suite \"%s\" (%ssuites: %s)", sname, hint, all);
        if (hint[0]) /* a near miss is a typo, not a suite this build lacks */
            return rc;
        /* The entry's measure keys are the same for every suite: checked all the same. */
        return lack_then_measure(l, rc, measure, m);
    }
    run->line = (int)n->start_mark.line + 1;
    run->column = (int)n->start_mark.column + 1;
    if (run->suite->naxes > GB_MAX_AXES)
        return gb__fail(l, suite, "internal error: suite %s has more than %d axes", sname,
                        GB_MAX_AXES);
    /* What `optional` forgives is what a build may lack: the suite, or an axis of it (l->lacks,
     * set where they are looked up). A value its axis refuses (op: triadd), a near miss of a
     * name, a mistake in the entry's measure or tuning keys: the profile's own, an error. */
    if (params && (rc = gb__parse_params(l, params, run))) {
        if (!l->lacks)
            return rc;
        /* An axis this build lacks: the entry's measure keys are still the profile's own. */
        return lack_then_measure(l, rc, measure, m);
    }
    if (measure && (rc = gb__parse_measure(l, measure, m)))
        return rc;
    if ((tuned && (rc = gb__parse_tuned(l, tuned, run))) ||
        (tunables && (rc = gb__parse_tunables(l, tunables, run))) ||
        (constraints && (rc = gb__parse_constraints(l, constraints, run))))
        return rc;
    for (size_t i = 0; i < run->suite->naxes; i++) {
        if (run->sweeps[i].n)
            continue;
        const struct gb_axis_def *ax = &run->suite->axes[i];
        char why[512];
        if (gb_sweep_parse(ax, ax->def, &run->sweeps[i], why, sizeof why))
            return gb__fail(l, suite, "internal error: the default sweep of %s.%s is invalid: %s",
                            sname, ax->name, why);
        run->defaulted |= UINT32_C(1) << i;
    }
    return 0;
}

/* An entry marked `optional: true` that cannot be taken (a suite this build lacks, an axis its
 * suite lacks; neither a near miss of a name it has): recorded in p->absent with the loader's message as the
 * reason, its partial parse freed, and the load goes on. 0 or GB_ECONFIG (out of memory). */
static int leave_out(struct gb__ld *l, yaml_node_t *item, struct gb_suite_run *run)
{
    struct gb_profile *p = l->p;
    struct gb_absent_entry *a = realloc(p->absent, (p->nabsent + 1) * sizeof *a);
    if (!a)
        return gb__fail(l, item, "out of memory");
    p->absent = a;
    a = &p->absent[p->nabsent++];
    memset(a, 0, sizeof *a);
    yaml_node_t *k, *v;
    GB__MAP_FOREACH(l, item, k, v)
    {
        if (strcmp(gb__sval(k), "suite") == 0 && v->type == YAML_SCALAR_NODE)
            snprintf(a->suite, sizeof a->suite, "%s", gb__sval(v));
    }
    a->line = (int)item->start_mark.line + 1;
    snprintf(a->reason, sizeof a->reason, "%s", l->err && l->errlen ? l->err : "left out");
    if (l->err && l->errlen)
        l->err[0] = '\0';
    for (size_t j = 0; j < GB_MAX_AXES; j++)
        gb_sweep_free(&run->sweeps[j]);
    gb__free_tuning(run);
    memset(run, 0, sizeof *run);
    return 0;
}

static int parse_suites(struct gb__ld *l, yaml_node_t *n)
{
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return gb__fail(l, n, "expected a list of suite entries for suites, got %s", gb__kind(n));
    size_t len = gb__seq_len(n);
    if (len == 0)
        return gb__fail(l, n, "suites: empty list (name at least one suite)");
    l->p->runs = calloc(len, sizeof *l->p->runs);
    l->runm = calloc(len, sizeof *l->runm);
    if (!l->p->runs || !l->runm)
        return gb__fail(l, n, "out of memory");
    l->p->nruns = 0;
    for (size_t i = 0; i < len; i++) {
        struct gb_suite_run *run = &l->p->runs[l->p->nruns];
        yaml_node_t *item = gb__seq_item(l, n, i);
        l->lacks = false;
        int rc = parse_run(l, item, run, &l->runm[l->p->nruns]);
        if (rc && run->optional && l->lacks) {
            rc = leave_out(l, item, run);
            memset(&l->runm[l->p->nruns], 0, sizeof l->runm[0]);
        } else if (!rc) {
            l->p->nruns++;
        } else {
            l->p->nruns++; /* freed with the profile */
        }
        if (rc)
            return rc;
    }
    return 0;
}

int gb__parse_root(struct gb__ld *l, yaml_node_t *root)
{
    if (!root || gb__is_null(root))
        return gb__fail(l, root, "empty profile (expected a mapping with at least suites:)");
    int rc = gb__check_map(l, root, "the profile");
    if (rc)
        return rc;
    yaml_node_t *k, *v, *suites = NULL;
    GB__MAP_FOREACH(l, root, k, v)
    {
        const char *key = gb__sval(k);
        if (strcmp(key, "name") == 0)
            rc = gb__parse_name(l, v);
        else if (strcmp(key, "backends") == 0)
            rc = gb__parse_backends(l, v);
        else if (strcmp(key, "devices") == 0)
            rc = gb__parse_devices(l, v);
        else if (strcmp(key, "measure") == 0)
            rc = gb__parse_measure(l, v, &l->top);
        else if (strcmp(key, "suites") == 0)
            rc = parse_suites(l, suites = v);
        else if (strcmp(key, "tuning_cache") == 0)
            rc = gb__parse_tuning_cache(l, v);
        else if (strcmp(key, "telemetry") == 0)
            rc = gb__parse_telemetry(l, v);
        else {
            static const char keys[] =
                "name, backends, devices, measure, suites, telemetry or tuning_cache";
            char hint[96];
            rc = gb__fail(l, k, "unknown key \"%s\" in the profile (%sexpected %s)", key,
                          gb__hint(key, keys, hint, sizeof hint), keys);
        }
        if (rc)
            return rc;
    }
    if (!suites)
        return gb__fail(l, root, "the profile has no suites: list");
    return 0;
}

void gb_profile_free(struct gb_profile *p)
{
    if (!p)
        return;
    free_strv(p->backends);
    free(p->devices);
    for (size_t i = 0; p->runs && i < p->nruns; i++) {
        for (size_t j = 0; j < GB_MAX_AXES; j++)
            gb_sweep_free(&p->runs[i].sweeps[j]);
        gb__free_tuning(&p->runs[i]);
        free(p->runs[i].tuning_cache);
    }
    free(p->runs);
    free(p->absent);
    p->absent = NULL;
    p->nabsent = 0;
    p->backends = NULL;
    p->devices = NULL;
    p->runs = NULL;
    p->nruns = 0;
}
