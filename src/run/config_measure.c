/* gpubench — profiles: the measurement settings and their layers (private contract in
 * config_private.h).
 *
 * Measurement settings come in layers: the built-in defaults, the profile's `measure:`, and each
 * suite entry's `measure:`, which overrides only the keys it names. The layers are kept apart
 * until the `--set` overrides have been applied, so that `--set measure.max_time=5s` changes the
 * profile-level default without overriding a suite entry that names max_time itself.
 */
#include "run/config_private.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/units.h"

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

/* The keys of `measure:`, in the order of mkey_names. */
enum mkey {
    M_WARMUP_RUNS,
    M_WARMUP_TIME,
    M_MIN_SAMPLES,
    M_MAX_SAMPLES,
    M_MAX_NOISE,
    M_MAX_TIME,
    M_MIN_SAMPLE_TIME,
    M_MAX_BATCH,
    M_CASE_TIMEOUT,
    M_CACHE,
    M_COUNT
};

static const char *const mkey_names[M_COUNT] = {
    "warmup_runs", "warmup_time",     "min_samples", "max_samples",  "max_noise",
    "max_time",    "min_sample_time", "max_batch",   "case_timeout", "cache",
};

_Static_assert(M_COUNT == GB__MKEYS, "GB__MKEYS (config_private.h) counts the measure keys");

static const char mkey_list[] = "warmup_runs, warmup_time, min_samples, max_samples, max_noise, "
                                "max_time, min_sample_time, max_batch, case_timeout or cache";

static void mcopy(struct gb_measure_cfg *dst, const struct gb_measure_cfg *src, enum mkey k)
{
    switch (k) {
    case M_WARMUP_RUNS:
        dst->warmup_runs = src->warmup_runs;
        break;
    case M_WARMUP_TIME:
        dst->warmup_time = src->warmup_time;
        break;
    case M_MIN_SAMPLES:
        dst->min_samples = src->min_samples;
        break;
    case M_MAX_SAMPLES:
        dst->max_samples = src->max_samples;
        break;
    case M_MAX_NOISE:
        dst->max_noise = src->max_noise;
        break;
    case M_MAX_TIME:
        dst->max_time = src->max_time;
        break;
    case M_MIN_SAMPLE_TIME:
        dst->min_sample_time = src->min_sample_time;
        break;
    case M_MAX_BATCH:
        dst->max_batch = src->max_batch;
        break;
    case M_CASE_TIMEOUT:
        dst->case_timeout = src->case_timeout;
        break;
    case M_CACHE:
        dst->cold = src->cold;
        break;
    case M_COUNT:
        break;
    }
}

int gb__parse_mkey(struct gb__ld *l, int key, yaml_node_t *n, struct gb__mlayer *m)
{
    const enum mkey k = (enum mkey)key;
    const char *name = mkey_names[k], *s;
    char what[96];
    bool is_int =
        k == M_WARMUP_RUNS || k == M_MIN_SAMPLES || k == M_MAX_SAMPLES || k == M_MAX_BATCH;
    bool is_dur =
        k == M_WARMUP_TIME || k == M_MAX_TIME || k == M_MIN_SAMPLE_TIME || k == M_CASE_TIMEOUT;
    snprintf(what, sizeof what, "%s for measure.%s",
             is_int   ? "an integer"
             : is_dur ? "a duration"
                      : "a number",
             name);
    if (k == M_CACHE)
        snprintf(what, sizeof what, "hot or cold for measure.cache");
    int rc = gb__want_scalar(l, n, what, &s);
    if (rc)
        return rc;
    if (k == M_CACHE) { /* hot: as the operations leave them; cold: evicted before each sample */
        if (strcmp(s, "hot") != 0 && strcmp(s, "cold") != 0)
            return gb__fail(l, n, "measure.cache: expected hot or cold, got \"%s\"", s);
        m->v.cold = strcmp(s, "cold") == 0;
    } else if (is_int) {
        uint64_t u;
        if (s[0] == '-' || !gb__parse_u64(s, &u))
            return gb__fail(l, n, "measure.%s: expected a non-negative integer, got \"%s\"", name,
                            s);
        uint64_t lo = k == M_WARMUP_RUNS ? 0 : 1;
        uint64_t hi = k == M_MAX_BATCH ? UINT64_MAX : UINT32_MAX;
        if (u < lo)
            return gb__fail(l, n, "measure.%s: must be at least %" PRIu64 ", got %s", name, lo, s);
        if (u > hi)
            return gb__fail(l, n, "measure.%s: %s is too large (at most %" PRIu64 ")", name, s, hi);
        switch (k) {
        case M_WARMUP_RUNS:
            m->v.warmup_runs = (uint32_t)u;
            break;
        case M_MIN_SAMPLES:
            m->v.min_samples = (uint32_t)u;
            break;
        case M_MAX_SAMPLES:
            m->v.max_samples = (uint32_t)u;
            break;
        default:
            m->v.max_batch = u;
            break;
        }
    } else if (is_dur) {
        double d;
        if (gb_parse_duration(s, &d))
            return gb__fail(l, n, "measure.%s: %s", name, gb_error_msg());
        if ((k == M_MAX_TIME || k == M_CASE_TIMEOUT) && !(d > 0))
            return gb__fail(l, n, "measure.%s: must be positive, got \"%s\"", name, s);
        if (k == M_CASE_TIMEOUT)
            m->v.case_timeout = d;
        else if (k == M_WARMUP_TIME)
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
        if (!gb__parse_f64(pct ? num : s, &x))
            return gb__fail(l, n,
                            "measure.%s: expected a number (0.02) or a percentage (2%%), "
                            "got \"%s\"",
                            name, s);
        if (pct)
            x /= 100;
        if (!(x > 0))
            return gb__fail(l, n, "measure.%s: must be positive, got \"%s\"", name, s);
        m->v.max_noise = x;
    }
    m->set |= 1u << k;
    m->at[k] = gb__node_loc(l, n);
    return 0;
}

static int mkey_index(const char *name)
{
    for (int k = 0; k < M_COUNT; k++)
        if (strcmp(mkey_names[k], name) == 0)
            return k;
    return -1;
}

int gb__find_mkey(struct gb__ld *l, const char *name, int *k)
{
    *k = mkey_index(name);
    char hint[96];
    if (*k < 0)
        return gb__fail(l, NULL, "unknown measure key \"%s\" (%sexpected %s)", name,
                        gb__hint(name, mkey_list, hint, sizeof hint), mkey_list);
    return 0;
}

int gb__parse_measure(struct gb__ld *l, yaml_node_t *n, struct gb__mlayer *m)
{
    int rc = gb__check_map(l, n, "measure");
    if (rc)
        return rc;
    yaml_node_t *k, *v;
    GB__MAP_FOREACH(l, n, k, v)
    {
        int key = mkey_index(gb__sval(k));
        char hint[96];
        if (key < 0)
            return gb__fail(l, k, "unknown key \"%s\" in measure (%sexpected %s)", gb__sval(k),
                            gb__hint(gb__sval(k), mkey_list, hint, sizeof hint), mkey_list);
        if ((rc = gb__parse_mkey(l, key, v, m)))
            return rc;
    }
    return 0;
}

void gb__mlayer_apply(struct gb_measure_cfg *cfg, const struct gb__mlayer *m)
{
    for (int k = 0; k < M_COUNT; k++)
        if (m->set & (1u << k))
            mcopy(cfg, &m->v, (enum mkey)k);
}

int gb__resolve_measure(struct gb__ld *l, struct gb_suite_run *run, const struct gb__mlayer *m)
{
    run->measure = gb_measure_defaults;
    gb__mlayer_apply(&run->measure, &l->top);
    gb__mlayer_apply(&run->measure, m);
    if (run->measure.min_samples > run->measure.max_samples) {
        /* Point at the setting that made them clash: the more specific, else either one. */
        const unsigned min = 1u << M_MIN_SAMPLES, max = 1u << M_MAX_SAMPLES;
        const struct gb__mlayer *top = &l->top;
        struct gb__loc at = m->set & min     ? m->at[M_MIN_SAMPLES]
                            : m->set & max   ? m->at[M_MAX_SAMPLES]
                            : top->set & min ? top->at[M_MIN_SAMPLES]
                            : top->set & max ? top->at[M_MAX_SAMPLES]
                                             : (struct gb__loc){l->src, run->line, run->column};
        return gb__fail_loc(l, at,
                            "measure: min_samples (%" PRIu32 ") is greater than "
                            "max_samples (%" PRIu32 ") for suite %s",
                            run->measure.min_samples, run->measure.max_samples, run->suite->name);
    }
    return 0;
}
