/* gpubench — profiles: axis values and sweeps, a scalar, a list or a range {from, to, factor|step}
 * (syntax in config.h; private contract in config_private.h).
 */
#include "run/config_private.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/units.h"
#include "base/util.h"

/* The most values one sweep may have: a typo like `step: 1` over a size range should fail at
 * load time, not enqueue a billion cases. */
#define SWEEP_MAX 10000
/* The most values all the sweeps of one profile may have together: many entries of long sweeps
 * (a 3,000-line profile of 10,000-value ranges held 2.4 GB of values before the plan refused its
 * cases) fail at load time, in a few MB. Ten times the plan's most cases (100,000), whose
 * entries each expand to at least as many cases as their longest sweep has values, but for what
 * a suite's normalize drops. */
#define PROFILE_VALUES_MAX 1000000

static const char *type_name(enum gb_vtype t)
{
    switch (t) {
    case GB_V_SIZE:
        return "a size";
    case GB_V_INT:
        return "an integer";
    case GB_V_FLOAT:
        return "a number";
    case GB_V_STR:
        return "a name";
    case GB_V_BOOL:
        return "true or false";
    }
    return "a value";
}

/* Checks v against the axis's bounds and choices; reports at n. */
static int check_value(struct gb__ld *l, const struct gb_axis_def *ax, const yaml_node_t *n,
                       const struct gb_value *v)
{
    char a[64], b[64];
    switch (ax->type) {
    case GB_V_SIZE:
        if (v->u.size == 0 && !ax->zero_picks)
            return gb__fail(l, n, "axis %s: zero size \"%s\" (a size must be positive)", ax->name,
                            n ? gb__sval(n) : "0");
        if (ax->min > 0 && v->u.size < (uint64_t)ax->min)
            return gb__fail(l, n, "axis %s: %s is below the minimum %s", ax->name,
                            gb_format_size(v->u.size, a, sizeof a),
                            gb_format_size((uint64_t)ax->min, b, sizeof b));
        if (ax->max > 0 && v->u.size > (uint64_t)ax->max)
            return gb__fail(l, n, "axis %s: %s is above the maximum %s", ax->name,
                            gb_format_size(v->u.size, a, sizeof a),
                            gb_format_size((uint64_t)ax->max, b, sizeof b));
        return 0;
    case GB_V_INT:
        if (v->u.i < ax->min)
            return gb__fail(l, n, "axis %s: %" PRId64 " is below the minimum %" PRId64, ax->name,
                            v->u.i, ax->min);
        if (ax->max != 0 && v->u.i > ax->max)
            return gb__fail(l, n, "axis %s: %" PRId64 " is above the maximum %" PRId64, ax->name,
                            v->u.i, ax->max);
        return 0;
    case GB_V_STR:
        if (ax->choices) {
            for (size_t i = 0; ax->choices[i]; i++)
                if (strcmp(ax->choices[i], v->s) == 0)
                    return 0;
            char all[512];
            return gb__fail(l, n, "axis %s: \"%s\" is not one of %s", ax->name, v->s,
                            gb__join_or(ax->choices, all, sizeof all));
        }
        if (ax->check) {
            char why[1024] = "";
            if (!ax->check(v->s, why, sizeof why))
                return gb__fail(l, n, "axis %s: \"%s\": %s", ax->name, v->s, why);
        }
        return 0;
    case GB_V_FLOAT:
        if (ax->check_float) {
            char why[256] = "";
            if (!ax->check_float(v->u.f, why, sizeof why))
                return gb__fail(l, n, "axis %s: %s: %s", ax->name, gb_value_format(v, a, sizeof a),
                                why);
        }
        return 0;
    case GB_V_BOOL:
        return 0;
    }
    return 0;
}

/* One axis value from scalar node n, checked. */
static int parse_value(struct gb__ld *l, const struct gb_axis_def *ax, const yaml_node_t *n,
                       struct gb_value *v)
{
    const char *s;
    char what[96];
    snprintf(what, sizeof what, "%s for axis %s", type_name(ax->type), ax->name);
    int rc = gb__want_scalar(l, n, what, &s);
    if (rc)
        return rc;
    memset(v, 0, sizeof *v);
    v->type = ax->type;
    switch (ax->type) {
    case GB_V_SIZE:
        if (s[strspn(s, " \t")] == '-')
            return gb__fail(l, n, "axis %s: negative size \"%s\" (a size must be positive)",
                            ax->name, s);
        if (gb_parse_size(s, &v->u.size))
            return gb__fail(l, n, "axis %s: %s", ax->name, gb_error_msg());
        break;
    case GB_V_INT:
        if (!gb__parse_i64(s, &v->u.i))
            return gb__fail(l, n, "axis %s: expected an integer, got \"%s\"", ax->name, s);
        break;
    case GB_V_FLOAT:
        if (!gb__parse_f64(s, &v->u.f))
            return gb__fail(l, n, "axis %s: expected a number, got \"%s\"", ax->name, s);
        break;
    case GB_V_STR:
        if (strlen(s) >= GB_STR_MAX)
            return gb__fail(l, n, "axis %s: \"%s\" is longer than %d characters", ax->name, s,
                            GB_STR_MAX - 1);
        if (!gb__is_ident(s))
            return gb__fail(l, n, "axis %s: \"%s\" is not a name (letters, digits, _ . + -)",
                            ax->name, s);
        memcpy(v->s, s, strlen(s) + 1);
        break;
    case GB_V_BOOL:
        if (!gb__parse_bool(s, &v->u.b))
            return gb__fail(l, n, "axis %s: expected true or false, got \"%s\"", ax->name, s);
        break;
    }
    return check_value(l, ax, n, v);
}

static int sweep_push(struct gb__ld *l, const struct gb_axis_def *ax, const yaml_node_t *at,
                      struct gb_sweep *s, size_t *cap, const struct gb_value *v)
{
    if (s->n >= SWEEP_MAX)
        return gb__fail(l, at, "axis %s: the sweep has more than %d values", ax->name, SWEEP_MAX);
    if (l->nvalues >= PROFILE_VALUES_MAX)
        return gb__fail(l, at, "the profile's sweeps have more than %d values in all; narrow them",
                        PROFILE_VALUES_MAX);
    l->nvalues++;
    struct gb_value *nv = gb_grow(s->v, cap, s->n + 1, sizeof *nv);
    if (!nv)
        return gb__fail(l, at, "out of memory");
    s->v = nv;
    s->v[s->n++] = *v;
    return 0;
}

/* Pushes v, or what the axis expands it into (gb_axis_def.expand: a preset's layers), each
 * checked and each once. */
static int push_expanded(struct gb__ld *l, const struct gb_axis_def *ax, const yaml_node_t *at,
                         struct gb_sweep *s, size_t *cap, const struct gb_value *v)
{
    enum { EXPAND_MAX = 64 };
    char out[EXPAND_MAX][GB_STR_MAX];
    const size_t n = ax->type == GB_V_STR && ax->expand ? ax->expand(v->s, out, EXPAND_MAX) : 0;
    if (n == 0)
        return sweep_push(l, ax, at, s, cap, v);
    if (n > EXPAND_MAX)
        return gb__fail(l, at, "axis %s: \"%s\" stands for %zu values, more than %d", ax->name,
                        v->s, n, EXPAND_MAX);
    for (size_t i = 0; i < n; i++) {
        struct gb_value e = {.type = GB_V_STR};
        memcpy(e.s, out[i], sizeof e.s);
        e.s[GB_STR_MAX - 1] = '\0';
        int rc = check_value(l, ax, at, &e);
        if (rc)
            return rc;
        bool dup = false;
        for (size_t j = 0; j < s->n && !dup; j++)
            dup = gb_value_equal(&s->v[j], &e);
        if (!dup && (rc = sweep_push(l, ax, at, s, cap, &e)))
            return rc;
    }
    return 0;
}

/* An integer-valued axis value (size or int) as the bits of a uint64; ints compare signed. */
static uint64_t ibits(const struct gb_value *v)
{
    return v->type == GB_V_SIZE ? v->u.size : (uint64_t)v->u.i;
}

static void set_ibits(struct gb_value *v, uint64_t x)
{
    if (v->type == GB_V_SIZE)
        v->u.size = x;
    else
        v->u.i = (int64_t)x;
}

static bool iless(const struct gb_value *a, const struct gb_value *b)
{
    return a->type == GB_V_SIZE ? a->u.size < b->u.size : a->u.i < b->u.i;
}

/* {from, to, factor} or {from, to, step} for a numeric axis. */
static int parse_range(struct gb__ld *l, const struct gb_axis_def *ax, yaml_node_t *n,
                       struct gb_sweep *out)
{
    char what[96];
    snprintf(what, sizeof what, "the range of axis %s", ax->name);
    int rc = gb__check_map(l, n, what);
    if (rc)
        return rc;
    yaml_node_t *k, *v, *from = NULL, *to = NULL, *factor = NULL, *step = NULL;
    GB__MAP_FOREACH(l, n, k, v)
    {
        const char *key = gb__sval(k);
        if (strcmp(key, "from") == 0)
            from = v;
        else if (strcmp(key, "to") == 0)
            to = v;
        else if (strcmp(key, "factor") == 0)
            factor = v;
        else if (strcmp(key, "step") == 0)
            step = v;
        else
            return gb__fail(l, k,
                            "unknown key \"%s\" in %s (expected from, to, and factor or step)", key,
                            what);
        if (factor && step)
            return gb__fail(l, k,
                            "a range takes either factor (geometric) or step (arithmetic), "
                            "not both");
    }
    if (ax->type != GB_V_SIZE && ax->type != GB_V_INT && ax->type != GB_V_FLOAT)
        return gb__fail(l, n,
                        "axis %s takes %s; a range {from, to, factor|step} needs a numeric "
                        "axis (use a list)",
                        ax->name, type_name(ax->type));
    if (!from || !to)
        return gb__fail(l, n, "%s needs both from and to", what);
    if (!factor && !step)
        return gb__fail(l, n, "%s needs factor (geometric) or step (arithmetic)", what);

    struct gb_value vf, vt;
    if ((rc = parse_value(l, ax, from, &vf)) || (rc = parse_value(l, ax, to, &vt)))
        return rc;
    char a[64], b[64];
    bool backwards = ax->type == GB_V_FLOAT ? vt.u.f < vf.u.f : iless(&vt, &vf);
    if (backwards)
        return gb__fail(l, to, "axis %s: to (%s) is less than from (%s)", ax->name,
                        gb_value_format(&vt, a, sizeof a), gb_value_format(&vf, b, sizeof b));

    struct gb_sweep s = {0};
    size_t cap = 0;
    struct gb_value cur = vf;
    if (factor) {
        const char *fs;
        double f;
        if ((rc = gb__want_scalar(l, factor, "a number for factor", &fs)))
            return rc;
        if (!gb__parse_f64(fs, &f))
            return gb__fail(l, factor, "axis %s: factor must be a number, got \"%s\"", ax->name,
                            fs);
        if (!(f > 1))
            return gb__fail(l, factor, "axis %s: factor must be greater than 1, got %s", ax->name,
                            fs);
        /* A size's 0 (an axis where 0 picks the size) times any factor stays 0. */
        bool positive = ax->type == GB_V_FLOAT  ? vf.u.f > 0
                        : ax->type == GB_V_SIZE ? vf.u.size > 0
                                                : vf.u.i > 0;
        if (!positive)
            return gb__fail(l, from, "axis %s: a geometric range (factor) needs from > 0",
                            ax->name);
        if (ax->type == GB_V_FLOAT) {
            /* v_k = from * f^k, computed from k so that errors do not accumulate; `to` counts
             * as reached within a relative 1e-9. */
            for (unsigned kk = 0;; kk++) {
                double x = vf.u.f * pow(f, kk);
                if (x > vt.u.f * (1 + 1e-9))
                    break;
                cur.u.f = fabs(x - vt.u.f) <= 1e-9 * vt.u.f ? vt.u.f : x;
                if ((rc = sweep_push(l, ax, n, &s, &cap, &cur)))
                    goto fail;
            }
        } else if (f == floor(f) && f < 18446744073709551616.0) {
            uint64_t fi = (uint64_t)f, x = ibits(&vf), top = ibits(&vt);
            for (;;) {
                set_ibits(&cur, x);
                if ((rc = sweep_push(l, ax, n, &s, &cap, &cur)))
                    goto fail;
                if (gb_mul_u64(x, fi, &x) || x > top)
                    break;
            }
        } else {
            /* A fractional factor: v_k = round(from * f^k), repeats dropped. */
            double top = (double)ibits(&vt);
            for (unsigned kk = 0;; kk++) {
                if (kk > 64 * SWEEP_MAX) {
                    rc = gb__fail(l, factor, "axis %s: factor %s is too close to 1", ax->name, fs);
                    goto fail;
                }
                double x = floor((double)ibits(&vf) * pow(f, kk) + 0.5);
                if (x > top)
                    break;
                uint64_t xi = (uint64_t)x;
                if (xi > ibits(&vt))
                    break;
                if (s.n && ibits(&s.v[s.n - 1]) == xi)
                    continue;
                set_ibits(&cur, xi);
                if ((rc = sweep_push(l, ax, n, &s, &cap, &cur)))
                    goto fail;
            }
        }
    } else {
        const char *ss;
        char sw[96];
        snprintf(sw, sizeof sw, "%s for step", type_name(ax->type));
        if ((rc = gb__want_scalar(l, step, sw, &ss)))
            return rc;
        if (ax->type == GB_V_FLOAT) {
            double st;
            if (!gb__parse_f64(ss, &st))
                return gb__fail(l, step, "axis %s: step must be a number, got \"%s\"", ax->name,
                                ss);
            if (!(st > 0))
                return gb__fail(l, step, "axis %s: step must be positive, got %s", ax->name, ss);
            double count = floor((vt.u.f - vf.u.f) / st + 1e-9) + 1;
            if (!(count <= SWEEP_MAX))
                return gb__fail(l, n, "axis %s: the sweep has more than %d values", ax->name,
                                SWEEP_MAX);
            for (size_t kk = 0; kk < (size_t)count; kk++) {
                double x = vf.u.f + (double)kk * st;
                cur.u.f = fabs(x - vt.u.f) <= 1e-9 * fabs(st) ? vt.u.f : x;
                if ((rc = sweep_push(l, ax, n, &s, &cap, &cur)))
                    goto fail;
            }
        } else {
            uint64_t st;
            if (ax->type == GB_V_SIZE) {
                if (ss[strspn(ss, " \t")] == '-')
                    return gb__fail(l, step, "axis %s: step must be positive, got \"%s\"", ax->name,
                                    ss);
                if (gb_parse_size(ss, &st))
                    return gb__fail(l, step, "axis %s: step: %s", ax->name, gb_error_msg());
            } else {
                int64_t si;
                if (!gb__parse_i64(ss, &si))
                    return gb__fail(l, step, "axis %s: step must be an integer, got \"%s\"",
                                    ax->name, ss);
                st = si > 0 ? (uint64_t)si : 0;
            }
            if (st == 0)
                return gb__fail(l, step, "axis %s: step must be positive, got \"%s\"", ax->name,
                                ss);
            /* Differences of uint64 bits are exact for from <= to, signed or not; the count is
             * compared before its + 1, which wraps to 0 over the whole 64-bit range. */
            uint64_t steps = (ibits(&vt) - ibits(&vf)) / st;
            if (steps >= SWEEP_MAX)
                return gb__fail(l, n, "axis %s: the sweep has more than %d values", ax->name,
                                SWEEP_MAX);
            for (uint64_t kk = 0; kk <= steps; kk++) {
                set_ibits(&cur, ibits(&vf) + kk * st);
                if ((rc = sweep_push(l, ax, n, &s, &cap, &cur)))
                    goto fail;
            }
        }
    }
    *out = s;
    return 0;
fail:
    gb_sweep_free(&s);
    return rc;
}

/* A sweep for axis ax from node n: a scalar, a list or a range. */
int gb__parse_sweep(struct gb__ld *l, const struct gb_axis_def *ax, yaml_node_t *n,
                    struct gb_sweep *out)
{
    memset(out, 0, sizeof *out);
    if (!n || gb__is_null(n))
        return gb__fail(l, n, "axis %s: empty sweep (give a value, a list or a range)", ax->name);
    if (n->type == YAML_MAPPING_NODE)
        return parse_range(l, ax, n, out);
    struct gb_sweep s = {0};
    size_t cap = 0;
    int rc = 0;
    if (n->type == YAML_SCALAR_NODE) {
        struct gb_value v;
        if ((rc = parse_value(l, ax, n, &v)) || (rc = push_expanded(l, ax, n, &s, &cap, &v)))
            goto fail;
    } else if (n->type == YAML_SEQUENCE_NODE) {
        size_t len = gb__seq_len(n);
        if (len == 0)
            return gb__fail(l, n, "axis %s: empty sweep (give a value, a list or a range)",
                            ax->name);
        for (size_t i = 0; i < len; i++) {
            yaml_node_t *it = gb__seq_item(l, n, i);
            struct gb_value v;
            if ((rc = parse_value(l, ax, it, &v)))
                goto fail;
            for (size_t j = 0; j < s.n; j++)
                if (gb_value_equal(&s.v[j], &v)) {
                    char a[GB_STR_MAX + 32];
                    rc = gb__fail(l, it, "axis %s: %s appears twice in the sweep", ax->name,
                                  gb_value_format(&v, a, sizeof a));
                    goto fail;
                }
            if ((rc = push_expanded(l, ax, it, &s, &cap, &v)))
                goto fail;
        }
    } else {
        return gb__fail(l, n, "axis %s: expected a sweep, got %s", ax->name, gb__kind(n));
    }
    *out = s;
    return 0;
fail:
    gb_sweep_free(&s);
    return rc;
}

int gb_sweep_parse(const struct gb_axis_def *ax, const char *text, struct gb_sweep *out, char *err,
                   size_t errlen)
{
    char src[96];
    snprintf(src, sizeof src, "axis %s", ax && ax->name ? ax->name : "?");
    struct gb__ld l = {.src = src, .err = err, .errlen = errlen};
    memset(out, 0, sizeof *out);
    if (err && errlen)
        err[0] = '\0';
    if (!ax || !text) {
        gb__fail(&l, NULL, "no sweep given");
        return gb_error_set(GB_ECONFIG, NULL, 0, "%s", err ? err : "no sweep given");
    }
    yaml_document_t doc;
    int rc = gb__load_doc(&l, text, strlen(text), &doc);
    if (!rc) {
        l.doc = &doc;
        rc = gb__parse_sweep(&l, ax, yaml_document_get_root_node(&doc), out);
        yaml_document_delete(&doc);
    }
    if (rc && err && errlen)
        gb_error_set(GB_ECONFIG, NULL, 0, "%s", err);
    return rc;
}
