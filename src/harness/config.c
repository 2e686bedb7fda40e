/* gpubench — profiles: YAML in, a checked gb_profile out (see config.h for the syntax).
 *
 * The text is loaded with libyaml's document API, so that every node keeps the place it came
 * from; every check then reports "source:line:column: message" (1-based) at the offending node.
 * libyaml resolves no types (every scalar is a string), so this file decides what a scalar means
 * from the axis or key it is given to.
 *
 * Measurement settings come in layers: the built-in defaults, the profile's `measure:`, and each
 * suite entry's `measure:`, which overrides only the keys it names. The layers are kept apart
 * until the `--set` overrides have been applied, so that `--set measure.max_time=5s` changes the
 * profile-level default without overriding a suite entry that names max_time itself.
 */
#include "harness/config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>
#include <yaml.h>

#include "base/error.h"
#include "harness/tune.h"
#include "base/units.h"
#include "base/util.h"

/* The most values one sweep may have: a typo like `step: 1` over a size range should fail at
 * load time, not enqueue a billion cases. */
#define GB_SWEEP_MAX 10000
/* The largest profile file read. */
#define GB_PROFILE_MAX_BYTES (16u << 20)

const struct gb_measure_cfg gb_measure_defaults = {
    .warmup_runs = 2,
    .warmup_time = 5e-3,
    .min_samples = 5,
    .max_samples = 200,
    .max_noise = 0.02,
    .max_time = 1.0,
    .min_sample_time = 2e-3,
    .max_batch = UINT64_C(1) << 20,
};

/* Backend names a profile may use, whether or not this build has them, so that one profile
 * works on every machine. */
static const char *const known_backends[] = {"cuda", "opencl", NULL};

/* ---- measure keys ---------------------------------------------------------------------- */

enum mkey {
    M_WARMUP_RUNS,
    M_WARMUP_TIME,
    M_MIN_SAMPLES,
    M_MAX_SAMPLES,
    M_MAX_NOISE,
    M_MAX_TIME,
    M_MIN_SAMPLE_TIME,
    M_MAX_BATCH,
    M_COUNT
};

static const char *const mkey_names[M_COUNT] = {
    "warmup_runs", "warmup_time", "min_samples",     "max_samples",
    "max_noise",   "max_time",    "min_sample_time", "max_batch",
};

static const char mkey_list[] = "warmup_runs, warmup_time, min_samples, max_samples, max_noise, "
                                "max_time, min_sample_time or max_batch";

struct loc {
    const char *src;
    int line, col;
};

/* One layer of measurement settings: the keys it sets and where each was set. */
struct mlayer {
    struct gb_measure_cfg v;
    unsigned set; /* bit k: mkey k is set */
    struct loc at[M_COUNT];
};

static void mcopy(struct gb_measure_cfg *dst, const struct gb_measure_cfg *src, enum mkey k)
{
    switch (k) {
    case M_WARMUP_RUNS: dst->warmup_runs = src->warmup_runs; break;
    case M_WARMUP_TIME: dst->warmup_time = src->warmup_time; break;
    case M_MIN_SAMPLES: dst->min_samples = src->min_samples; break;
    case M_MAX_SAMPLES: dst->max_samples = src->max_samples; break;
    case M_MAX_NOISE: dst->max_noise = src->max_noise; break;
    case M_MAX_TIME: dst->max_time = src->max_time; break;
    case M_MIN_SAMPLE_TIME: dst->min_sample_time = src->min_sample_time; break;
    case M_MAX_BATCH: dst->max_batch = src->max_batch; break;
    case M_COUNT: break;
    }
}

/* ---- the loader ------------------------------------------------------------------------ */

struct ld {
    const char *src;      /* the name in messages: the file, or "--set KEY" */
    yaml_document_t *doc; /* the document being read */
    char *err;
    size_t errlen;
    struct gb_profile *p;
    struct mlayer top;     /* the profile's `measure:` */
    struct mlayer *runm;   /* each entry's `measure:`, parallel to p->runs */
    char **srcs;           /* "--set KEY" names, alive until the load ends */
    size_t nsrcs;
};

static struct loc node_loc(const struct ld *l, const yaml_node_t *n)
{
    struct loc at = {l->src, 1, 1};
    if (n) {
        at.line = (int)n->start_mark.line + 1;
        at.col = (int)n->start_mark.column + 1;
    }
    return at;
}

static int vfail_loc(struct ld *l, struct loc at, const char *fmt, va_list ap)
{
    if (l->err && l->errlen) {
        int w = snprintf(l->err, l->errlen, "%s:%d:%d: ", at.src, at.line, at.col);
        size_t n = w < 0 ? 0 : (size_t)w;
        if (n < l->errlen)
            vsnprintf(l->err + n, l->errlen - n, fmt, ap);
    }
    return GB_ECONFIG;
}

static int fail_loc(struct ld *l, struct loc at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_loc(struct ld *l, struct loc at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail_loc(l, at, fmt, ap);
    va_end(ap);
    return rc;
}

/* Reports an error at node n (at line 1, column 1 of the source when n is NULL). */
static int fail(struct ld *l, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct ld *l, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail_loc(l, node_loc(l, n), fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- node helpers ---------------------------------------------------------------------- */

static yaml_node_t *node_at(const struct ld *l, int id)
{
    return yaml_document_get_node(l->doc, id);
}

static bool is_null(const yaml_node_t *n)
{
    if (!n || n->type != YAML_SCALAR_NODE)
        return false;
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = (const char *)n->data.scalar.value;
    return n->data.scalar.length == 0 || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
           strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

static const char *kind(const yaml_node_t *n)
{
    if (!n || is_null(n))
        return "nothing";
    switch (n->type) {
    case YAML_MAPPING_NODE:
        return "a mapping";
    case YAML_SEQUENCE_NODE:
        return "a list";
    case YAML_SCALAR_NODE:
        return "a scalar";
    default:
        return "nothing";
    }
}

static const char *sval(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

/* A non-null scalar's text, or an error naming `what` was expected. */
static int want_scalar(struct ld *l, const yaml_node_t *n, const char *what, const char **out)
{
    if (!n || n->type != YAML_SCALAR_NODE || is_null(n))
        return fail(l, n, "expected %s, got %s", what, kind(n));
    if (strlen(sval(n)) != n->data.scalar.length)
        return fail(l, n, "expected %s, got text with a NUL character", what);
    *out = sval(n);
    return 0;
}

/* Checks that n is a mapping whose keys are distinct non-null scalars. An empty value takes the
 * place of its key, so that an error about it points at the key rather than at the next line. */
static int check_map(struct ld *l, yaml_node_t *n, const char *what)
{
    if (!n || n->type != YAML_MAPPING_NODE)
        return fail(l, n, "expected a mapping for %s, got %s", what, kind(n));
    yaml_node_pair_t *pairs = n->data.mapping.pairs.start;
    size_t np = (size_t)(n->data.mapping.pairs.top - pairs);
    for (size_t i = 0; i < np; i++) {
        yaml_node_t *k = node_at(l, pairs[i].key), *v = node_at(l, pairs[i].value);
        if (!k || k->type != YAML_SCALAR_NODE || is_null(k))
            return fail(l, k, "expected a key name in %s, got %s", what, kind(k));
        for (size_t j = 0; j < i; j++) {
            yaml_node_t *kj = node_at(l, pairs[j].key);
            if (strcmp(sval(kj), sval(k)) == 0)
                return fail(l, k, "duplicate key \"%s\" in %s (first at line %d, column %d)",
                            sval(k), what, (int)kj->start_mark.line + 1,
                            (int)kj->start_mark.column + 1);
        }
        if (v && is_null(v) && v->data.scalar.length == 0)
            v->start_mark = k->start_mark;
    }
    return 0;
}

#define MAP_FOREACH(l, n, k, v)                                                                \
    for (yaml_node_pair_t *gb__p = (n)->data.mapping.pairs.start;                              \
         gb__p < (n)->data.mapping.pairs.top && ((k) = node_at((l), gb__p->key),               \
                                                 (v) = node_at((l), gb__p->value), 1);         \
         gb__p++)

static size_t seq_len(const yaml_node_t *n)
{
    return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

static yaml_node_t *seq_item(const struct ld *l, const yaml_node_t *n, size_t i)
{
    return node_at(l, n->data.sequence.items.start[i]);
}

/* ---- scalars --------------------------------------------------------------------------- */

/* Strict base-10 integer: optional sign, digits, nothing else. */
static bool parse_i64(const char *s, int64_t *out)
{
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return false;
    for (; *p; p++)
        if (!isdigit((unsigned char)*p))
            return false;
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno == ERANGE)
        return false;
    *out = (int64_t)v;
    return true;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    const char *p = s;
    if (*p == '+')
        p++;
    if (!isdigit((unsigned char)*p))
        return false;
    for (const char *q = p; *q; q++)
        if (!isdigit((unsigned char)*q))
            return false;
    errno = 0;
    unsigned long long v = strtoull(p, NULL, 10);
    if (errno == ERANGE)
        return false;
    *out = (uint64_t)v;
    return true;
}

/* A finite decimal number ("2", "-0.5", "1e-3"); no hex, inf or nan. */
static bool parse_f64(const char *s, double *out)
{
    if (!*s)
        return false;
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p) && !strchr("+-.eE", *p))
            return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static bool parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"true", "yes", "on"};
    static const char *const no[] = {"false", "no", "off"};
    for (size_t i = 0; i < 3; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = true;
            return true;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = false;
            return true;
        }
    }
    return false;
}

static bool is_ident(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("_.+-", *s))
            return false;
    return true;
}

/* "a, b or c" of a NULL-terminated list, into buf. */
static const char *join_or(const char *const *names, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    while (names[n])
        n++;
    for (size_t i = 0; i < n; i++)
        gb_appendf(buf, len, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
    return buf;
}

static const char *type_name(enum gb_vtype t)
{
    switch (t) {
    case GB_V_SIZE: return "a size";
    case GB_V_INT: return "an integer";
    case GB_V_FLOAT: return "a number";
    case GB_V_STR: return "a name";
    case GB_V_BOOL: return "true or false";
    }
    return "a value";
}

/* ---- axis values and sweeps ------------------------------------------------------------ */

/* Checks v against the axis's bounds and choices; reports at n. */
static int check_value(struct ld *l, const struct gb_axis_def *ax, const yaml_node_t *n,
                       const struct gb_value *v)
{
    char a[64], b[64];
    switch (ax->type) {
    case GB_V_SIZE:
        if (v->u.size == 0)
            return fail(l, n, "axis %s: zero size \"%s\" (a size must be positive)", ax->name,
                        n ? sval(n) : "0");
        if (ax->min > 0 && v->u.size < (uint64_t)ax->min)
            return fail(l, n, "axis %s: %s is below the minimum %s", ax->name,
                        gb_format_size(v->u.size, a, sizeof a),
                        gb_format_size((uint64_t)ax->min, b, sizeof b));
        if (ax->max > 0 && v->u.size > (uint64_t)ax->max)
            return fail(l, n, "axis %s: %s is above the maximum %s", ax->name,
                        gb_format_size(v->u.size, a, sizeof a),
                        gb_format_size((uint64_t)ax->max, b, sizeof b));
        return 0;
    case GB_V_INT:
        if (v->u.i < ax->min)
            return fail(l, n, "axis %s: %" PRId64 " is below the minimum %" PRId64, ax->name,
                        v->u.i, ax->min);
        if (ax->max != 0 && v->u.i > ax->max)
            return fail(l, n, "axis %s: %" PRId64 " is above the maximum %" PRId64, ax->name,
                        v->u.i, ax->max);
        return 0;
    case GB_V_STR:
        if (ax->choices) {
            for (size_t i = 0; ax->choices[i]; i++)
                if (strcmp(ax->choices[i], v->s) == 0)
                    return 0;
            char all[512];
            return fail(l, n, "axis %s: \"%s\" is not one of %s", ax->name, v->s,
                        join_or(ax->choices, all, sizeof all));
        }
        return 0;
    case GB_V_FLOAT:
    case GB_V_BOOL:
        return 0;
    }
    return 0;
}

/* One axis value from scalar node n, checked. */
static int parse_value(struct ld *l, const struct gb_axis_def *ax, const yaml_node_t *n,
                       struct gb_value *v)
{
    const char *s;
    char what[96];
    snprintf(what, sizeof what, "%s for axis %s", type_name(ax->type), ax->name);
    int rc = want_scalar(l, n, what, &s);
    if (rc)
        return rc;
    memset(v, 0, sizeof *v);
    v->type = ax->type;
    switch (ax->type) {
    case GB_V_SIZE:
        if (s[strspn(s, " \t")] == '-')
            return fail(l, n, "axis %s: negative size \"%s\" (a size must be positive)",
                        ax->name, s);
        if (gb_parse_size(s, &v->u.size))
            return fail(l, n, "axis %s: %s", ax->name, gb_error_msg());
        break;
    case GB_V_INT:
        if (!parse_i64(s, &v->u.i))
            return fail(l, n, "axis %s: expected an integer, got \"%s\"", ax->name, s);
        break;
    case GB_V_FLOAT:
        if (!parse_f64(s, &v->u.f))
            return fail(l, n, "axis %s: expected a number, got \"%s\"", ax->name, s);
        break;
    case GB_V_STR:
        if (strlen(s) >= GB_STR_MAX)
            return fail(l, n, "axis %s: \"%s\" is longer than %d characters", ax->name, s,
                        GB_STR_MAX - 1);
        if (!is_ident(s))
            return fail(l, n, "axis %s: \"%s\" is not a name (letters, digits, _ . + -)",
                        ax->name, s);
        memcpy(v->s, s, strlen(s) + 1);
        break;
    case GB_V_BOOL:
        if (!parse_bool(s, &v->u.b))
            return fail(l, n, "axis %s: expected true or false, got \"%s\"", ax->name, s);
        break;
    }
    return check_value(l, ax, n, v);
}

static int sweep_push(struct ld *l, const struct gb_axis_def *ax, const yaml_node_t *at,
                      struct gb_sweep *s, size_t *cap, const struct gb_value *v)
{
    if (s->n >= GB_SWEEP_MAX)
        return fail(l, at, "axis %s: the sweep has more than %d values", ax->name, GB_SWEEP_MAX);
    struct gb_value *nv = gb_grow(s->v, cap, s->n + 1, sizeof *nv);
    if (!nv)
        return fail(l, at, "out of memory");
    s->v = nv;
    s->v[s->n++] = *v;
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
static int parse_range(struct ld *l, const struct gb_axis_def *ax, yaml_node_t *n,
                       struct gb_sweep *out)
{
    char what[96];
    snprintf(what, sizeof what, "the range of axis %s", ax->name);
    int rc = check_map(l, n, what);
    if (rc)
        return rc;
    yaml_node_t *k, *v, *from = NULL, *to = NULL, *factor = NULL, *step = NULL;
    MAP_FOREACH(l, n, k, v)
    {
        const char *key = sval(k);
        if (strcmp(key, "from") == 0)
            from = v;
        else if (strcmp(key, "to") == 0)
            to = v;
        else if (strcmp(key, "factor") == 0)
            factor = v;
        else if (strcmp(key, "step") == 0)
            step = v;
        else
            return fail(l, k, "unknown key \"%s\" in %s (expected from, to, and factor or step)",
                        key, what);
        if (factor && step)
            return fail(l, k, "a range takes either factor (geometric) or step (arithmetic), "
                              "not both");
    }
    if (ax->type != GB_V_SIZE && ax->type != GB_V_INT && ax->type != GB_V_FLOAT)
        return fail(l, n, "axis %s takes %s; a range {from, to, factor|step} needs a numeric "
                          "axis (use a list)", ax->name, type_name(ax->type));
    if (!from || !to)
        return fail(l, n, "%s needs both from and to", what);
    if (!factor && !step)
        return fail(l, n, "%s needs factor (geometric) or step (arithmetic)", what);

    struct gb_value vf, vt;
    if ((rc = parse_value(l, ax, from, &vf)) || (rc = parse_value(l, ax, to, &vt)))
        return rc;
    char a[64], b[64];
    bool backwards = ax->type == GB_V_FLOAT ? vt.u.f < vf.u.f : iless(&vt, &vf);
    if (backwards)
        return fail(l, to, "axis %s: to (%s) is less than from (%s)", ax->name,
                    gb_value_format(&vt, a, sizeof a), gb_value_format(&vf, b, sizeof b));

    struct gb_sweep s = {0};
    size_t cap = 0;
    struct gb_value cur = vf;
    if (factor) {
        const char *fs;
        double f;
        if ((rc = want_scalar(l, factor, "a number for factor", &fs)))
            return rc;
        if (!parse_f64(fs, &f))
            return fail(l, factor, "axis %s: factor must be a number, got \"%s\"", ax->name, fs);
        if (!(f > 1))
            return fail(l, factor, "axis %s: factor must be greater than 1, got %s", ax->name,
                        fs);
        bool positive = ax->type == GB_V_FLOAT ? vf.u.f > 0 : ax->type == GB_V_SIZE || vf.u.i > 0;
        if (!positive)
            return fail(l, from, "axis %s: a geometric range (factor) needs from > 0",
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
                if (kk > 64 * GB_SWEEP_MAX) {
                    rc = fail(l, factor, "axis %s: factor %s is too close to 1", ax->name, fs);
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
        if ((rc = want_scalar(l, step, sw, &ss)))
            return rc;
        if (ax->type == GB_V_FLOAT) {
            double st;
            if (!parse_f64(ss, &st))
                return fail(l, step, "axis %s: step must be a number, got \"%s\"", ax->name, ss);
            if (!(st > 0))
                return fail(l, step, "axis %s: step must be positive, got %s", ax->name, ss);
            double count = floor((vt.u.f - vf.u.f) / st + 1e-9) + 1;
            if (!(count <= GB_SWEEP_MAX))
                return fail(l, n, "axis %s: the sweep has more than %d values", ax->name,
                            GB_SWEEP_MAX);
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
                    return fail(l, step, "axis %s: step must be positive, got \"%s\"", ax->name,
                                ss);
                if (gb_parse_size(ss, &st))
                    return fail(l, step, "axis %s: step: %s", ax->name, gb_error_msg());
            } else {
                int64_t si;
                if (!parse_i64(ss, &si))
                    return fail(l, step, "axis %s: step must be an integer, got \"%s\"",
                                ax->name, ss);
                st = si > 0 ? (uint64_t)si : 0;
            }
            if (st == 0)
                return fail(l, step, "axis %s: step must be positive, got \"%s\"", ax->name, ss);
            /* Differences of uint64 bits are exact for from <= to, signed or not. */
            uint64_t count = (ibits(&vt) - ibits(&vf)) / st + 1;
            if (count > GB_SWEEP_MAX)
                return fail(l, n, "axis %s: the sweep has more than %d values", ax->name,
                            GB_SWEEP_MAX);
            for (uint64_t kk = 0; kk < count; kk++) {
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
static int parse_sweep(struct ld *l, const struct gb_axis_def *ax, yaml_node_t *n,
                       struct gb_sweep *out)
{
    memset(out, 0, sizeof *out);
    if (!n || is_null(n))
        return fail(l, n, "axis %s: empty sweep (give a value, a list or a range)", ax->name);
    if (n->type == YAML_MAPPING_NODE)
        return parse_range(l, ax, n, out);
    struct gb_sweep s = {0};
    size_t cap = 0;
    int rc = 0;
    if (n->type == YAML_SCALAR_NODE) {
        struct gb_value v;
        if ((rc = parse_value(l, ax, n, &v)) || (rc = sweep_push(l, ax, n, &s, &cap, &v)))
            goto fail;
    } else if (n->type == YAML_SEQUENCE_NODE) {
        size_t len = seq_len(n);
        if (len == 0)
            return fail(l, n, "axis %s: empty sweep (give a value, a list or a range)",
                        ax->name);
        for (size_t i = 0; i < len; i++) {
            yaml_node_t *it = seq_item(l, n, i);
            struct gb_value v;
            if ((rc = parse_value(l, ax, it, &v)))
                goto fail;
            for (size_t j = 0; j < s.n; j++)
                if (gb_value_equal(&s.v[j], &v)) {
                    char a[GB_STR_MAX + 32];
                    rc = fail(l, it, "axis %s: %s appears twice in the sweep", ax->name,
                              gb_value_format(&v, a, sizeof a));
                    goto fail;
                }
            if ((rc = sweep_push(l, ax, n, &s, &cap, &v)))
                goto fail;
        }
    } else {
        return fail(l, n, "axis %s: expected a sweep, got %s", ax->name, kind(n));
    }
    *out = s;
    return 0;
fail:
    gb_sweep_free(&s);
    return rc;
}

/* ---- measure ------------------------------------------------------------------------- */

static int parse_mkey(struct ld *l, enum mkey k, yaml_node_t *n, struct mlayer *m)
{
    const char *name = mkey_names[k], *s;
    char what[96];
    bool is_int = k == M_WARMUP_RUNS || k == M_MIN_SAMPLES || k == M_MAX_SAMPLES ||
                  k == M_MAX_BATCH;
    bool is_dur = k == M_WARMUP_TIME || k == M_MAX_TIME || k == M_MIN_SAMPLE_TIME;
    snprintf(what, sizeof what, "%s for measure.%s",
             is_int ? "an integer" : is_dur ? "a duration" : "a number", name);
    int rc = want_scalar(l, n, what, &s);
    if (rc)
        return rc;
    if (is_int) {
        uint64_t u;
        if (s[0] == '-' || !parse_u64(s, &u))
            return fail(l, n, "measure.%s: expected a non-negative integer, got \"%s\"", name, s);
        uint64_t lo = k == M_WARMUP_RUNS ? 0 : 1;
        uint64_t hi = k == M_MAX_BATCH ? UINT64_MAX : UINT32_MAX;
        if (u < lo)
            return fail(l, n, "measure.%s: must be at least %" PRIu64 ", got %s", name, lo, s);
        if (u > hi)
            return fail(l, n, "measure.%s: %s is too large (at most %" PRIu64 ")", name, s, hi);
        switch (k) {
        case M_WARMUP_RUNS: m->v.warmup_runs = (uint32_t)u; break;
        case M_MIN_SAMPLES: m->v.min_samples = (uint32_t)u; break;
        case M_MAX_SAMPLES: m->v.max_samples = (uint32_t)u; break;
        default: m->v.max_batch = u; break;
        }
    } else if (is_dur) {
        double d;
        if (gb_parse_duration(s, &d))
            return fail(l, n, "measure.%s: %s", name, gb_error_msg());
        if (k == M_MAX_TIME && !(d > 0))
            return fail(l, n, "measure.%s: must be positive, got \"%s\"", name, s);
        if (k == M_WARMUP_TIME)
            m->v.warmup_time = d;
        else if (k == M_MAX_TIME)
            m->v.max_time = d;
        else
            m->v.min_sample_time = d;
    } else { /* max_noise: a fraction ("0.02") or a percentage ("2%") */
        double x;
        size_t len = strlen(s);
        char num[64];
        bool pct = len > 1 && s[len - 1] == '%' && len < sizeof num;
        if (pct) {
            memcpy(num, s, len - 1);
            num[len - 1] = '\0';
        }
        if (!parse_f64(pct ? num : s, &x))
            return fail(l, n, "measure.%s: expected a number (0.02) or a percentage (2%%), "
                              "got \"%s\"", name, s);
        if (pct)
            x /= 100;
        if (!(x > 0))
            return fail(l, n, "measure.%s: must be positive, got \"%s\"", name, s);
        m->v.max_noise = x;
    }
    m->set |= 1u << k;
    m->at[k] = node_loc(l, n);
    return 0;
}

static int find_mkey(const char *name)
{
    for (int k = 0; k < M_COUNT; k++)
        if (strcmp(mkey_names[k], name) == 0)
            return k;
    return -1;
}

static int parse_measure(struct ld *l, yaml_node_t *n, struct mlayer *m)
{
    int rc = check_map(l, n, "measure");
    if (rc)
        return rc;
    yaml_node_t *k, *v;
    MAP_FOREACH(l, n, k, v)
    {
        int key = find_mkey(sval(k));
        if (key < 0)
            return fail(l, k, "unknown key \"%s\" in measure (expected %s)", sval(k), mkey_list);
        if ((rc = parse_mkey(l, (enum mkey)key, v, m)))
            return rc;
    }
    return 0;
}

/* ---- top-level keys -------------------------------------------------------------------- */

static int parse_name(struct ld *l, yaml_node_t *n)
{
    const char *s;
    int rc = want_scalar(l, n, "a name", &s);
    if (rc)
        return rc;
    if (strlen(s) >= sizeof l->p->name)
        return fail(l, n, "name is longer than %zu characters", sizeof l->p->name - 1);
    if (!is_ident(s))
        return fail(l, n, "name \"%s\" may only contain letters, digits, _ . + -", s);
    snprintf(l->p->name, sizeof l->p->name, "%s", s);
    return 0;
}

static void free_strv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static int parse_backends(struct ld *l, yaml_node_t *n)
{
    char **names = NULL;
    int rc = 0;
    if (n && n->type == YAML_SCALAR_NODE && !is_null(n) && strcmp(sval(n), "all") == 0)
        goto done; /* every backend */
    size_t len = n && n->type == YAML_SEQUENCE_NODE ? seq_len(n) : 1;
    if (n && n->type == YAML_SEQUENCE_NODE && len == 0)
        return fail(l, n, "backends: empty list (leave backends out for every backend)");
    if (!n || (n->type != YAML_SEQUENCE_NODE && (n->type != YAML_SCALAR_NODE || is_null(n))))
        return fail(l, n, "expected a backend name, a list of them or \"all\" for backends, "
                          "got %s", kind(n));
    names = calloc(len + 1, sizeof *names);
    if (!names)
        return fail(l, n, "out of memory");
    for (size_t i = 0; i < len; i++) {
        yaml_node_t *it = n->type == YAML_SEQUENCE_NODE ? seq_item(l, n, i) : n;
        const char *s;
        if ((rc = want_scalar(l, it, "a backend name", &s)))
            goto fail;
        bool known = false;
        for (size_t j = 0; known_backends[j]; j++)
            known = known || strcmp(known_backends[j], s) == 0;
        if (!known) {
            char all[64];
            rc = fail(l, it, "unknown backend \"%s\" (expected %s)", s,
                      join_or(known_backends, all, sizeof all));
            goto fail;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(names[j], s) == 0) {
                rc = fail(l, it, "backend \"%s\" is listed twice", s);
                goto fail;
            }
        if (!(names[i] = strdup(s))) {
            rc = fail(l, it, "out of memory");
            goto fail;
        }
    }
done:
    free_strv(l->p->backends);
    l->p->backends = names;
    return 0;
fail:
    free_strv(names);
    return rc;
}

static int parse_device_index(struct ld *l, yaml_node_t *n, int *out)
{
    const char *s;
    int64_t i;
    int rc = want_scalar(l, n, "a device index", &s);
    if (rc)
        return rc;
    if (!parse_i64(s, &i) || i < 0 || i > INT32_MAX)
        return fail(l, n, "devices: expected \"all\" or a device index (0, 1, ...), got \"%s\"",
                    s);
    *out = (int)i;
    return 0;
}

static int parse_devices(struct ld *l, yaml_node_t *n)
{
    int *devs = NULL, rc;
    if (n && n->type == YAML_SCALAR_NODE && !is_null(n) && strcmp(sval(n), "all") == 0)
        goto done;
    if (!n || (n->type != YAML_SEQUENCE_NODE && (n->type != YAML_SCALAR_NODE || is_null(n))))
        return fail(l, n, "expected \"all\", a device index or a list of them for devices, "
                          "got %s", kind(n));
    size_t len = n->type == YAML_SEQUENCE_NODE ? seq_len(n) : 1;
    if (len == 0)
        return fail(l, n, "devices: empty list (use \"all\" for every device)");
    devs = calloc(len + 1, sizeof *devs);
    if (!devs)
        return fail(l, n, "out of memory");
    for (size_t i = 0; i < len; i++) {
        yaml_node_t *it = n->type == YAML_SEQUENCE_NODE ? seq_item(l, n, i) : n;
        if ((rc = parse_device_index(l, it, &devs[i])))
            goto fail;
        for (size_t j = 0; j < i; j++)
            if (devs[j] == devs[i]) {
                rc = fail(l, it, "device %d is listed twice", devs[i]);
                goto fail;
            }
    }
    devs[len] = -1;
done:
    free(l->p->devices);
    l->p->devices = devs;
    return 0;
fail:
    free(devs);
    return rc;
}

/* ---- suite entries --------------------------------------------------------------------- */

static const char *axis_list(const struct gb_suite *s, char *buf, size_t len)
{
    const char *names[GB_MAX_AXES + 1];
    size_t n = s->naxes < GB_MAX_AXES ? s->naxes : GB_MAX_AXES;
    for (size_t i = 0; i < n; i++)
        names[i] = s->axes[i].name;
    names[n] = NULL;
    return join_or(names, buf, len);
}

static const char *suite_list(char *buf, size_t len)
{
    const char *names[64];
    size_t n = gb_suite_count < 63 ? gb_suite_count : 63;
    for (size_t i = 0; i < n; i++)
        names[i] = gb_suites[i]->name;
    names[n] = NULL;
    return join_or(names, buf, len);
}

/* `params:` of a suite entry (or of --set SUITE.params): replaces the sweeps it names. */
static int parse_params(struct ld *l, yaml_node_t *n, struct gb_suite_run *run)
{
    char what[96];
    snprintf(what, sizeof what, "the params of suite %s", run->suite->name);
    int rc = check_map(l, n, what);
    if (rc)
        return rc;
    yaml_node_t *k, *v;
    MAP_FOREACH(l, n, k, v)
    {
        const struct gb_axis_def *ax = gb_suite_axis(run->suite, sval(k));
        if (!ax) {
            char all[256];
            return fail(l, k, "suite %s has no axis \"%s\" (axes: %s)", run->suite->name,
                        sval(k), axis_list(run->suite, all, sizeof all));
        }
        size_t i = (size_t)(ax - run->suite->axes);
        struct gb_sweep s;
        if ((rc = parse_sweep(l, ax, v, &s)))
            return rc;
        gb_sweep_free(&run->sweeps[i]);
        run->sweeps[i] = s;
    }
    return 0;
}

/* ---- tuning keys of a suite entry (tuned, tunables, constraints) ------------------------- */

static int parse_tuned(struct ld *l, yaml_node_t *n, struct gb_suite_run *run)
{
    const char *s = NULL;
    int rc = want_scalar(l, n, "true or false for tuned", &s);
    if (rc)
        return rc;
    if (!parse_bool(s, &run->tuned))
        return fail(l, n, "tuned: expected true or false, got \"%s\"", s);
    return 0;
}

static bool is_cname(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return false;
    return true;
}

static void free_tunables(struct gb_suite_run *run)
{
    for (size_t i = 0; i < run->ntunables; i++)
        free(run->tunables[i].values);
    free(run->tunables);
    run->tunables = NULL;
    run->ntunables = 0;
}

static void free_constraints(struct gb_suite_run *run)
{
    for (size_t i = 0; i < run->nconstraints; i++)
        free(run->constraints[i].text);
    free(run->constraints);
    run->constraints = NULL;
    run->nconstraints = 0;
}

/* `tunables:` — a mapping of -D define names to sweeps of integers (a list or a range). */
static int parse_tunables(struct ld *l, yaml_node_t *n, struct gb_suite_run *run)
{
    if (!run->suite->search_space)
        return fail(l, n, "suite %s takes no tunables (only the tuning suite has a search space)",
                    run->suite->name);
    int rc = check_map(l, n, "tunables");
    if (rc)
        return rc;
    size_t np = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    if (np == 0)
        return fail(l, n, "tunables: empty mapping (name at least one tunable)");
    if (np > GB_TUNE_MAX_TUNABLES)
        return fail(l, n, "tunables: %zu tunables, at most %d", np, GB_TUNE_MAX_TUNABLES);
    struct gb_tunable_spec *t = calloc(np, sizeof *t);
    if (!t)
        return fail(l, n, "out of memory");
    size_t i = 0;
    yaml_node_t *k, *v;
    MAP_FOREACH(l, n, k, v)
    {
        const char *name = sval(k);
        if (strlen(name) >= sizeof t[i].name || !is_cname(name)) {
            rc = fail(l, k, "tunables: \"%s\" is not a define name (letters, digits and _, not "
                            "starting with a digit, at most %zu characters)",
                      name, sizeof t[i].name - 1);
            goto fail;
        }
        memcpy(t[i].name, name, strlen(name) + 1);
        t[i].line = (int)k->start_mark.line + 1;
        t[i].column = (int)k->start_mark.column + 1;
        const struct gb_axis_def ax = {.name = t[i].name, .type = GB_V_INT, .min = 0};
        struct gb_sweep sw;
        if ((rc = parse_sweep(l, &ax, v, &sw)))
            goto fail;
        if (sw.n > GB_TUNE_MAX_VALUES) {
            gb_sweep_free(&sw);
            rc = fail(l, v, "tunables: %s has more than %d values", name, GB_TUNE_MAX_VALUES);
            goto fail;
        }
        t[i].values = malloc(sw.n * sizeof *t[i].values);
        if (!t[i].values) {
            gb_sweep_free(&sw);
            rc = fail(l, v, "out of memory");
            goto fail;
        }
        for (size_t j = 0; j < sw.n; j++)
            t[i].values[j] = sw.v[j].u.i;
        t[i].n = sw.n;
        gb_sweep_free(&sw);
        i++;
    }
    free_tunables(run);
    run->tunables = t;
    run->ntunables = np;
    return 0;
fail:
    for (size_t j = 0; j < np; j++)
        free(t[j].values);
    free(t);
    return rc;
}

/* `constraints:` — an expression or a list of them (src/tune.h syntax). */
static int parse_constraints(struct ld *l, yaml_node_t *n, struct gb_suite_run *run)
{
    if (!run->suite->search_space)
        return fail(l, n, "suite %s takes no constraints (only the tuning suite has a search "
                          "space)", run->suite->name);
    if (!n || (n->type != YAML_SEQUENCE_NODE && (n->type != YAML_SCALAR_NODE || is_null(n))))
        return fail(l, n, "expected an expression or a list of them for constraints, got %s",
                    kind(n));
    size_t len = n->type == YAML_SEQUENCE_NODE ? seq_len(n) : 1;
    if (len == 0)
        return fail(l, n, "constraints: empty list");
    struct gb_constraint_spec *c = calloc(len, sizeof *c);
    if (!c)
        return fail(l, n, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < len; i++) {
        yaml_node_t *it = n->type == YAML_SEQUENCE_NODE ? seq_item(l, n, i) : n;
        const char *text;
        if ((rc = want_scalar(l, it, "a constraint expression", &text)))
            goto fail;
        struct gb_expr *e = NULL;
        char why[256];
        int col = 1;
        if (gb_expr_parse(text, &e, why, sizeof why, &col)) {
            /* Point at the offending character: quoted scalars start one column later. */
            struct loc at = node_loc(l, it);
            bool quoted = it->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                          it->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
            at.col += col - 1 + (quoted ? 1 : 0);
            const char *msg = strchr(why, ':');
            rc = fail_loc(l, at, "constraint \"%s\": %s", text, msg ? msg + 2 : why);
            goto fail;
        }
        gb_expr_free(e);
        if (!(c[i].text = strdup(text))) {
            rc = fail(l, it, "out of memory");
            goto fail;
        }
        c[i].line = (int)it->start_mark.line + 1;
        c[i].column = (int)it->start_mark.column + 1;
    }
    free_constraints(run);
    run->constraints = c;
    run->nconstraints = len;
    return 0;
fail:
    for (size_t i = 0; i < len; i++)
        free(c[i].text);
    free(c);
    return rc;
}

static int parse_run(struct ld *l, yaml_node_t *n, struct gb_suite_run *run, struct mlayer *m)
{
    int rc = check_map(l, n, "a suite entry");
    if (rc)
        return rc;
    yaml_node_t *k, *v, *measure = NULL, *params = NULL, *suite = NULL, *tuned = NULL;
    yaml_node_t *tunables = NULL, *constraints = NULL;
    MAP_FOREACH(l, n, k, v)
    {
        if (strcmp(sval(k), "suite") == 0)
            suite = v;
        else if (strcmp(sval(k), "measure") == 0)
            measure = v;
        else if (strcmp(sval(k), "params") == 0)
            params = v;
        else if (strcmp(sval(k), "tuned") == 0)
            tuned = v;
        else if (strcmp(sval(k), "tunables") == 0)
            tunables = v;
        else if (strcmp(sval(k), "constraints") == 0)
            constraints = v;
        else
            return fail(l, k, "unknown key \"%s\" in a suite entry (expected suite, measure, "
                              "params, tuned, tunables or constraints)", sval(k));
    }
    if (!suite)
        return fail(l, n, "suite entry without a suite: key");
    const char *sname;
    if ((rc = want_scalar(l, suite, "a suite name", &sname)))
        return rc;
    run->suite = gb_suite_find(sname);
    if (!run->suite) {
        char all[512];
        return fail(l, suite, "unknown suite \"%s\" (suites: %s)", sname,
                    suite_list(all, sizeof all));
    }
    run->line = (int)n->start_mark.line + 1;
    run->column = (int)n->start_mark.column + 1;
    if (run->suite->naxes > GB_MAX_AXES)
        return fail(l, suite, "internal error: suite %s has more than %d axes", sname,
                    GB_MAX_AXES);
    if (measure && (rc = parse_measure(l, measure, m)))
        return rc;
    if (params && (rc = parse_params(l, params, run)))
        return rc;
    if ((tuned && (rc = parse_tuned(l, tuned, run))) ||
        (tunables && (rc = parse_tunables(l, tunables, run))) ||
        (constraints && (rc = parse_constraints(l, constraints, run))))
        return rc;
    for (size_t i = 0; i < run->suite->naxes; i++) {
        if (run->sweeps[i].n)
            continue;
        const struct gb_axis_def *ax = &run->suite->axes[i];
        char why[512];
        if (gb_sweep_parse(ax, ax->def, &run->sweeps[i], why, sizeof why))
            return fail(l, suite, "internal error: the default sweep of %s.%s is invalid: %s",
                        sname, ax->name, why);
    }
    return 0;
}

static int parse_suites(struct ld *l, yaml_node_t *n)
{
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return fail(l, n, "expected a list of suite entries for suites, got %s", kind(n));
    size_t len = seq_len(n);
    if (len == 0)
        return fail(l, n, "suites: empty list (name at least one suite)");
    l->p->runs = calloc(len, sizeof *l->p->runs);
    l->runm = calloc(len, sizeof *l->runm);
    if (!l->p->runs || !l->runm)
        return fail(l, n, "out of memory");
    l->p->nruns = len;
    for (size_t i = 0; i < len; i++) {
        int rc = parse_run(l, seq_item(l, n, i), &l->p->runs[i], &l->runm[i]);
        if (rc)
            return rc;
    }
    return 0;
}

/* `tuning_cache:` — the tuning cache file; "~/" at the start is the home folder. */
static int parse_tuning_cache(struct ld *l, yaml_node_t *n)
{
    const char *s = NULL;
    int rc = want_scalar(l, n, "a file path for tuning_cache", &s);
    if (rc)
        return rc;
    const char *home = getenv("HOME");
    bool tilde = strncmp(s, "~/", 2) == 0 && home && *home;
    int w = tilde ? snprintf(l->p->tuning_cache, sizeof l->p->tuning_cache, "%s/%s", home, s + 2)
                  : snprintf(l->p->tuning_cache, sizeof l->p->tuning_cache, "%s", s);
    if (w < 0 || (size_t)w >= sizeof l->p->tuning_cache)
        return fail(l, n, "tuning_cache: the path is longer than %zu characters",
                    sizeof l->p->tuning_cache - 1);
    return 0;
}

static int parse_root(struct ld *l, yaml_node_t *root)
{
    if (!root || is_null(root))
        return fail(l, root, "empty profile (expected a mapping with at least suites:)");
    int rc = check_map(l, root, "the profile");
    if (rc)
        return rc;
    yaml_node_t *k, *v, *suites = NULL;
    MAP_FOREACH(l, root, k, v)
    {
        const char *key = sval(k);
        if (strcmp(key, "name") == 0)
            rc = parse_name(l, v);
        else if (strcmp(key, "backends") == 0)
            rc = parse_backends(l, v);
        else if (strcmp(key, "devices") == 0)
            rc = parse_devices(l, v);
        else if (strcmp(key, "measure") == 0)
            rc = parse_measure(l, v, &l->top);
        else if (strcmp(key, "suites") == 0)
            rc = parse_suites(l, suites = v);
        else if (strcmp(key, "tuning_cache") == 0)
            rc = parse_tuning_cache(l, v);
        else
            rc = fail(l, k, "unknown key \"%s\" in the profile (expected name, backends, "
                            "devices, measure, suites or tuning_cache)", key);
        if (rc)
            return rc;
    }
    if (!suites)
        return fail(l, root, "the profile has no suites: list");
    return 0;
}

/* ---- documents ------------------------------------------------------------------------- */

/* The line and column (1-based, in characters) of byte offset off of text. */
static struct loc offset_loc(const struct ld *l, const char *text, size_t len, size_t off)
{
    struct loc at = {l->src, 1, 1};
    for (size_t i = 0; i < off && i < len; i++) {
        if (text[i] == '\n') {
            at.line++;
            at.col = 1;
        } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
            at.col++;
        }
    }
    return at;
}

/* A libyaml mark as a location. At the end of a text without a final newline libyaml's mark is
 * on a line that does not exist; that becomes the end of the last line. */
static struct loc mark_loc(const struct ld *l, const char *text, size_t len, yaml_mark_t m)
{
    if (m.index >= len)
        return offset_loc(l, text, len, len);
    return (struct loc){l->src, (int)m.line + 1, (int)m.column + 1};
}

/* Loads the single YAML document of text into doc; reports syntax errors. */
static int load_doc(struct ld *l, const char *text, size_t len, yaml_document_t *doc)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return fail(l, NULL, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int rc = 0;
    if (!yaml_parser_load(&parser, doc)) {
        /* Reader errors carry a byte offset, not a mark. */
        struct loc at = parser.error == YAML_READER_ERROR
                            ? offset_loc(l, text, len, parser.problem_offset)
                            : mark_loc(l, text, len, parser.problem_mark);
        struct loc ctx = mark_loc(l, text, len, parser.context_mark);
        const char *problem = parser.problem ? parser.problem : "malformed YAML";
        if (parser.context)
            rc = fail_loc(l, at, "syntax error: %s (%s at line %d, column %d)", problem,
                          parser.context, ctx.line, ctx.col);
        else
            rc = fail_loc(l, at, "syntax error: %s", problem);
        yaml_parser_delete(&parser);
        return rc;
    }
    /* A second document would be silently ignored; refuse it instead. */
    if (yaml_document_get_root_node(doc)) {
        yaml_document_t next;
        if (!yaml_parser_load(&parser, &next)) {
            struct loc at = mark_loc(l, text, len, parser.problem_mark);
            rc = fail_loc(l, at, "syntax error: %s",
                          parser.problem ? parser.problem : "malformed YAML");
        } else {
            yaml_node_t *r = yaml_document_get_root_node(&next);
            if (r)
                rc = fail(l, r, "a profile is one YAML document; this is a second one");
            yaml_document_delete(&next);
        }
        if (rc)
            yaml_document_delete(doc);
    }
    yaml_parser_delete(&parser);
    return rc;
}

/* ---- --set overrides ------------------------------------------------------------------- */

static int apply_override(struct ld *l, const struct gb_override *o)
{
    char *src = malloc(strlen(o->key ? o->key : "") + 8);
    if (!src)
        return fail(l, NULL, "out of memory");
    sprintf(src, "--set %s", o->key ? o->key : "");
    char **ns = realloc(l->srcs, (l->nsrcs + 1) * sizeof *ns);
    if (!ns) {
        free(src);
        return fail(l, NULL, "out of memory");
    }
    l->srcs = ns;
    l->srcs[l->nsrcs++] = src;
    l->src = src;

    const char *key = o->key ? o->key : "";
    const char *val = o->value ? o->value : "";
    char parts[4][128];
    size_t np = 0;
    for (const char *p = key;;) {
        size_t w = strcspn(p, ".");
        if (np == 4 || w == 0 || w >= sizeof parts[0])
            return fail(l, NULL, "bad key \"%s\" (expected name, backends, devices, "
                                 "measure[.KEY], tuning_cache, SUITE.measure[.KEY], "
                                 "SUITE.params[.AXIS] or SUITE.tuned|tunables|constraints)",
                        key);
        memcpy(parts[np], p, w);
        parts[np++][w] = '\0';
        if (!p[w])
            break;
        p += w + 1;
    }

    yaml_document_t doc;
    int rc = load_doc(l, val, strlen(val), &doc);
    if (rc)
        return rc;
    l->doc = &doc;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root)
        rc = fail(l, NULL, "no value (write --set %s=VALUE)", key);
    else if (np == 1 && strcmp(parts[0], "name") == 0)
        rc = parse_name(l, root);
    else if (np == 1 && strcmp(parts[0], "backends") == 0)
        rc = parse_backends(l, root);
    else if (np == 1 && strcmp(parts[0], "devices") == 0)
        rc = parse_devices(l, root);
    else if (np == 1 && strcmp(parts[0], "measure") == 0)
        rc = parse_measure(l, root, &l->top);
    else if (np == 1 && strcmp(parts[0], "tuning_cache") == 0)
        rc = parse_tuning_cache(l, root);
    else if (np == 2 && gb_suite_find(parts[0]) &&
             (strcmp(parts[1], "tuned") == 0 || strcmp(parts[1], "tunables") == 0 ||
              strcmp(parts[1], "constraints") == 0)) {
        const struct gb_suite *s = gb_suite_find(parts[0]);
        size_t hits = 0;
        for (size_t i = 0; !rc && i < l->p->nruns; i++) {
            struct gb_suite_run *run = &l->p->runs[i];
            if (run->suite != s)
                continue;
            hits++;
            rc = strcmp(parts[1], "tuned") == 0      ? parse_tuned(l, root, run)
                 : strcmp(parts[1], "tunables") == 0 ? parse_tunables(l, root, run)
                                                     : parse_constraints(l, root, run);
        }
        if (!rc && !hits)
            rc = fail(l, NULL, "the profile has no entry of suite %s", s->name);
    }
    else if (np == 2 && strcmp(parts[0], "measure") == 0) {
        int k = find_mkey(parts[1]);
        rc = k < 0 ? fail(l, NULL, "unknown measure key \"%s\" (expected %s)", parts[1], mkey_list)
                   : parse_mkey(l, (enum mkey)k, root, &l->top);
    } else if (np >= 2 && np <= 3 &&
               (strcmp(parts[1], "measure") == 0 || strcmp(parts[1], "params") == 0)) {
        const struct gb_suite *s = gb_suite_find(parts[0]);
        bool params = strcmp(parts[1], "params") == 0;
        int mk = -1;
        const struct gb_axis_def *ax = NULL;
        char all[512];
        size_t hits = 0;
        if (!s)
            rc = fail(l, NULL, "unknown suite \"%s\" (suites: %s)", parts[0],
                      suite_list(all, sizeof all));
        else if (np == 3 && !params && (mk = find_mkey(parts[2])) < 0)
            rc = fail(l, NULL, "unknown measure key \"%s\" (expected %s)", parts[2], mkey_list);
        else if (np == 3 && params && !(ax = gb_suite_axis(s, parts[2])))
            rc = fail(l, NULL, "suite %s has no axis \"%s\" (axes: %s)", s->name, parts[2],
                      axis_list(s, all, sizeof all));
        for (size_t i = 0; !rc && i < l->p->nruns; i++) {
            struct gb_suite_run *run = &l->p->runs[i];
            if (run->suite != s)
                continue;
            hits++;
            if (!params)
                rc = mk >= 0 ? parse_mkey(l, (enum mkey)mk, root, &l->runm[i])
                             : parse_measure(l, root, &l->runm[i]);
            else if (!ax)
                rc = parse_params(l, root, run);
            else {
                struct gb_sweep sw;
                size_t ai = (size_t)(ax - s->axes);
                if (!(rc = parse_sweep(l, ax, root, &sw))) {
                    gb_sweep_free(&run->sweeps[ai]);
                    run->sweeps[ai] = sw;
                }
            }
        }
        if (!rc && !hits)
            rc = fail(l, NULL, "the profile has no entry of suite %s", s->name);
    } else {
        rc = fail(l, NULL, "unknown key \"%s\" (expected name, backends, devices, "
                           "measure[.KEY], tuning_cache, SUITE.measure[.KEY], SUITE.params[.AXIS] "
                           "or SUITE.tuned|tunables|constraints)", key);
    }
    yaml_document_delete(&doc);
    l->doc = NULL;
    return rc;
}

/* ---- resolution and entry points ------------------------------------------------------- */

/* run->measure = defaults, then the profile's layer, then the entry's; checks consistency. */
static int resolve_measure(struct ld *l, struct gb_suite_run *run, const struct mlayer *m)
{
    run->measure = gb_measure_defaults;
    const struct mlayer *layers[2] = {&l->top, m};
    struct loc at_min = {0}, at_max = {0};
    for (int j = 0; j < 2; j++)
        for (int k = 0; k < M_COUNT; k++)
            if (layers[j]->set & (1u << k)) {
                mcopy(&run->measure, &layers[j]->v, (enum mkey)k);
                if (k == M_MIN_SAMPLES)
                    at_min = layers[j]->at[k];
                if (k == M_MAX_SAMPLES)
                    at_max = layers[j]->at[k];
            }
    if (run->measure.min_samples > run->measure.max_samples) {
        /* Point at the setting that made them clash: the more specific, else either one. */
        bool min_here = m->set & (1u << M_MIN_SAMPLES), max_here = m->set & (1u << M_MAX_SAMPLES);
        struct loc at = min_here ? at_min : max_here ? at_max : at_min.src ? at_min : at_max;
        if (!at.src)
            at = (struct loc){l->src, run->line, run->column};
        return fail_loc(l, at, "measure: min_samples (%" PRIu32 ") is greater than max_samples "
                               "(%" PRIu32 ") for suite %s", run->measure.min_samples,
                        run->measure.max_samples, run->suite->name);
    }
    return 0;
}

static void sha256_hex(const void *data, size_t len, char hex[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    hex[0] = '\0';
    if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
        return;
    for (unsigned i = 0; i < mdlen; i++)
        sprintf(hex + 2 * i, "%02x", md[i]);
}

/* The base name of path without a .yaml / .yml extension. */
static void default_name(const char *path, char *out, size_t len)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 5 && strcmp(b + n - 5, ".yaml") == 0)
        n -= 5;
    else if (n > 4 && strcmp(b + n - 4, ".yml") == 0)
        n -= 4;
    snprintf(out, len, "%.*s", (int)n, b);
}

static int load_text(const char *text, size_t len, const char *name, const struct gb_override *sets,
                     size_t nsets, struct gb_profile *out, char *err, size_t errlen)
{
    struct ld l = {.src = name, .err = err, .errlen = errlen, .p = out};
    memset(out, 0, sizeof *out);
    if (err && errlen)
        err[0] = '\0';
    snprintf(out->path, sizeof out->path, "%s", name);
    sha256_hex(text, len, out->sha256);

    yaml_document_t doc;
    int rc = load_doc(&l, text, len, &doc);
    if (rc)
        goto fail;
    l.doc = &doc;
    rc = parse_root(&l, yaml_document_get_root_node(&doc));
    yaml_document_delete(&doc);
    l.doc = NULL;
    for (size_t i = 0; !rc && i < nsets; i++)
        rc = apply_override(&l, &sets[i]);
    l.src = name;
    for (size_t i = 0; !rc && i < out->nruns; i++)
        rc = resolve_measure(&l, &out->runs[i], &l.runm[i]);
    for (size_t i = 0; !rc && i < out->nruns && out->tuning_cache[0]; i++)
        if (!(out->runs[i].tuning_cache = strdup(out->tuning_cache)))
            rc = fail(&l, NULL, "out of memory");
    if (rc)
        goto fail;
    out->measure = gb_measure_defaults;
    for (int k = 0; k < M_COUNT; k++)
        if (l.top.set & (1u << k))
            mcopy(&out->measure, &l.top.v, (enum mkey)k);
    if (!out->name[0])
        default_name(name, out->name, sizeof out->name);
    free(l.runm);
    for (size_t i = 0; i < l.nsrcs; i++)
        free(l.srcs[i]);
    free(l.srcs);
    return 0;
fail:
    free(l.runm);
    for (size_t i = 0; i < l.nsrcs; i++)
        free(l.srcs[i]);
    free(l.srcs);
    gb_profile_free(out);
    if (err && errlen)
        gb_error_set(GB_ECONFIG, NULL, 0, "%s", err);
    return GB_ECONFIG;
}

int gb_profile_load_string(const char *text, const char *name, const struct gb_override *sets,
                           size_t nsets, struct gb_profile *out, char *err, size_t errlen)
{
    return load_text(text ? text : "", text ? strlen(text) : 0, name ? name : "<profile>", sets,
                     nsets, out, err, errlen);
}

int gb_profile_load(const char *path, const struct gb_override *sets, size_t nsets,
                    struct gb_profile *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int saved = 0;
    if (!f) {
        saved = errno;
        goto io_fail;
    }
    for (;;) {
        if (len == cap) {
            if (cap >= GB_PROFILE_MAX_BYTES) {
                fclose(f);
                free(buf);
                snprintf(err, errlen, "%s:1:1: the profile is larger than %u bytes", path,
                         GB_PROFILE_MAX_BYTES);
                gb_error_set(GB_ECONFIG, NULL, 0, "%s", err);
                return GB_ECONFIG;
            }
            cap = cap ? 2 * cap : 8192;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                saved = ENOMEM;
                fclose(f);
                goto io_fail;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                saved = errno ? errno : EIO;
                fclose(f);
                goto io_fail;
            }
            break;
        }
    }
    fclose(f);
    buf[len] = '\0';
    int rc = load_text(buf, len, path, sets, nsets, out, err, errlen);
    free(buf);
    return rc;
io_fail:
    free(buf);
    if (err && errlen)
        snprintf(err, errlen, "%s: cannot read the profile: %s", path, strerror(saved));
    gb_error_set(GB_EIO, NULL, 0, "%s: cannot read the profile: %s", path, strerror(saved));
    return GB_EIO;
}

int gb_sweep_parse(const struct gb_axis_def *ax, const char *text, struct gb_sweep *out,
                   char *err, size_t errlen)
{
    char src[96];
    snprintf(src, sizeof src, "axis %s", ax && ax->name ? ax->name : "?");
    struct ld l = {.src = src, .err = err, .errlen = errlen};
    memset(out, 0, sizeof *out);
    if (err && errlen)
        err[0] = '\0';
    if (!ax || !text) {
        fail(&l, NULL, "no sweep given");
        return gb_error_set(GB_ECONFIG, NULL, 0, "%s", err ? err : "no sweep given");
    }
    yaml_document_t doc;
    int rc = load_doc(&l, text, strlen(text), &doc);
    if (!rc) {
        l.doc = &doc;
        rc = parse_sweep(&l, ax, yaml_document_get_root_node(&doc), out);
        yaml_document_delete(&doc);
    }
    if (rc && err && errlen)
        gb_error_set(GB_ECONFIG, NULL, 0, "%s", err);
    return rc;
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
        free_tunables(&p->runs[i]);
        free_constraints(&p->runs[i]);
        free(p->runs[i].tuning_cache);
    }
    free(p->runs);
    p->backends = NULL;
    p->devices = NULL;
    p->runs = NULL;
    p->nruns = 0;
}
