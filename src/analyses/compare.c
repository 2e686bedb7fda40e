/* gpubench — compare: the verdicts (contract and policy in compare.h; their outputs are
 * src/outputs/compare_out.c). */
#include "analyses/compare.h"
#include "analyses/expect.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mannwhitney.h"
#include "base/robust.h"
#include "base/stats.h"
#include "base/util.h"

#define GB__USER_ERR(err, ...) gb_error_set((err), NULL, 0, __VA_ARGS__)

static const char *const verdict_names[GB_VERDICT_COUNT] = {
    "SAME", "FASTER", "SLOWER", "UNSTABLE", "NEW", "MISSING", "SKIPPED", "FAILED", "LEARNING",
};

const char *gb_verdict_name(enum gb_verdict v)
{
    return (unsigned)v < GB_VERDICT_COUNT ? verdict_names[v] : "?";
}

void gb_compare_opts_default(struct gb_compare_opts *o)
{
    memset(o, 0, sizeof *o);
    o->alpha = 0.01;
    o->threshold = 0.05;
    o->mads = 3.0;
    o->min_nights = 5;
    o->run_noise = 0.10;
}

double gb_compare_threshold(const struct gb_compare_opts *o, const char *suite)
{
    for (size_t i = 0; i < o->nsuite_thresholds; i++)
        if (strcmp(o->suite_threshold[i].suite, suite) == 0)
            return o->suite_threshold[i].threshold;
    return o->threshold;
}

bool gb_compare_suite_threshold_given(const struct gb_compare_opts *o, const char *suite)
{
    for (size_t i = 0; i < o->nsuite_thresholds; i++)
        if (strcmp(o->suite_threshold[i].suite, suite) == 0)
            return true;
    return false;
}

/* "0.05" or "5%" into a fraction; false when it is not a number in (0, 100]. */
static bool parse_fraction(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno)
        return false;
    if (*end == '%') {
        v /= 100.0;
        end++;
    }
    if (*end || !(v > 0.0) || v > 100.0)
        return false;
    *out = v;
    return true;
}

int gb_compare_set_option(struct gb_compare_opts *o, const char *name, const char *value)
{
    if (strcmp(name, "fail-on-faster") == 0) {
        o->fail_on_faster = true;
        return 0;
    }
    if (strcmp(name, "across-devices") == 0) {
        o->across_devices = true;
        return 0;
    }
    bool alpha = strcmp(name, "alpha") == 0, threshold = strcmp(name, "threshold") == 0;
    bool mads = strcmp(name, "mads") == 0, min_nights = strcmp(name, "min-nights") == 0;
    bool run_noise = strcmp(name, "run-noise") == 0;
    if (!alpha && !threshold && !mads && !min_nights && !run_noise &&
        strcmp(name, "suite-threshold") != 0)
        return GB__USER_ERR(GB_EINVAL, "--%s is not a compare option", name);
    if (!value)
        return GB__USER_ERR(GB_EINVAL, "--%s needs a value", name);
    if (mads) {
        char *end;
        double v = strtod(value, &end);
        if (end == value || *end || !(v > 0.0 && v <= 100.0))
            return GB__USER_ERR(GB_EINVAL,
                                "--mads wants a number of scaled MADs in (0, 100], got "
                                "'%s'",
                                value);
        o->mads = v;
        return 0;
    }
    if (min_nights) {
        char *end;
        errno = 0;
        long v = strtol(value, &end, 10);
        if (end == value || *end || errno || v < 3 || v > 1000)
            return GB__USER_ERR(GB_EINVAL, "--min-nights wants 3..1000 nights, got '%s'", value);
        o->min_nights = (size_t)v;
        return 0;
    }
    if (alpha) {
        char *end;
        double v = strtod(value, &end);
        if (end == value || *end || !(v > 0.0 && v < 1.0))
            return GB__USER_ERR(GB_EINVAL, "--alpha wants a probability in (0, 1), got '%s'",
                                value);
        o->alpha = v;
        return 0;
    }
    if (run_noise) {
        double v;
        if (strcmp(value, "0") == 0 || strcmp(value, "0%") == 0)
            v = 0.0;
        else if (!parse_fraction(value, &v))
            return GB__USER_ERR(GB_EINVAL,
                                "--run-noise wants a relative change such as 0.1 or 10%% (0: "
                                "none), got '%s'",
                                value);
        o->run_noise = v;
        o->run_noise_given = true;
        return 0;
    }
    if (threshold) {
        if (!parse_fraction(value, &o->threshold))
            return GB__USER_ERR(GB_EINVAL,
                                "--threshold wants a relative change such as 0.05 or 5%%, got '%s'",
                                value);
        o->threshold_given = true;
        return 0;
    }
    const char *eq = strchr(value, '=');
    double t;
    if (!eq || eq == value || (size_t)(eq - value) >= sizeof o->suite_threshold[0].suite ||
        !parse_fraction(eq + 1, &t))
        return GB__USER_ERR(GB_EINVAL,
                            "--suite-threshold wants SUITE=FRACTION such as transfer=0.2, got '%s'",
                            value);
    size_t slot = o->nsuite_thresholds;
    for (size_t s = 0; s < o->nsuite_thresholds; s++)
        if (strncmp(o->suite_threshold[s].suite, value, (size_t)(eq - value)) == 0 &&
            o->suite_threshold[s].suite[eq - value] == '\0')
            slot = s;
    if (slot == GB_COMPARE_MAX_SUITE_THRESHOLDS)
        return GB__USER_ERR(GB_EINVAL, "at most %d --suite-threshold options",
                            GB_COMPARE_MAX_SUITE_THRESHOLDS);
    snprintf(o->suite_threshold[slot].suite, sizeof o->suite_threshold[slot].suite, "%.*s",
             (int)(eq - value), value);
    o->suite_threshold[slot].threshold = t;
    if (slot == o->nsuite_thresholds)
        o->nsuite_thresholds++;
    return 0;
}

/* ---- one pair ------------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and relative CI95 half-width of the mean of x[0..n) (the harness's own noise measure,
 * base/stats.h). */
static int describe(const double *x, size_t n, double *median, double *noise)
{
    double *s = malloc(n * sizeof *s);
    if (!s)
        return GB_FAIL(GB_ENOMEM, "%zu samples", n);
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    *median = gb_percentile_sorted(s, n, 0.5);
    free(s);
    struct gb_stats st;
    gb_stats_compute(x, n, &st);
    *noise = st.mean != 0.0 && isfinite(st.ci95) ? st.ci95 / fabs(st.mean) : INFINITY;
    return 0;
}

int gb_compare_judge(const double *base, size_t nb, const double *next, size_t nn,
                     bool higher_is_better, double alpha, double threshold, struct gb_judgement *j)
{
    memset(j, 0, sizeof *j);
    j->p = 1.0;
    j->ratio = NAN;
    j->verdict = GB_VERDICT_UNSTABLE;
    if (nb < 2 || nn < 2) {
        if (nb)
            describe(base, nb, &j->base_median, &j->noise);
        if (nn)
            describe(next, nn, &j->next_median, &j->noise);
        snprintf(j->why, sizeof j->why, "too few samples to judge (%zu in BASE, %zu in NEW)", nb,
                 nn);
        return 0;
    }
    double nz_b, nz_n;
    int rc;
    if ((rc = describe(base, nb, &j->base_median, &nz_b)) ||
        (rc = describe(next, nn, &j->next_median, &nz_n)))
        return rc;
    j->noise = nz_b > nz_n ? nz_b : nz_n;
    if (!(j->base_median > 0.0) || !(j->next_median > 0.0) || !isfinite(j->base_median) ||
        !isfinite(j->next_median)) {
        snprintf(j->why, sizeof j->why, "a median is not a positive number (%g, %g)",
                 j->base_median, j->next_median);
        return 0;
    }
    j->ratio = higher_is_better ? j->next_median / j->base_median : j->base_median / j->next_median;
    struct gb_mwu m;
    if ((rc = gb_mwu_test(base, nb, next, nn, &m)))
        return rc;
    j->p = m.p;
    j->exact = m.exact;
    bool slower = j->ratio < 1.0 / (1.0 + threshold);
    bool faster = j->ratio > 1.0 + threshold;
    if (slower || faster) {
        if (m.p < alpha) {
            j->verdict = slower ? GB_VERDICT_SLOWER : GB_VERDICT_FASTER;
        } else if (m.exact && gb_mwu_min_p(nb, nn) >= alpha) {
            snprintf(j->why, sizeof j->why,
                     "too few samples: %zu and %zu can never reach p < %g (smallest p %.3g)", nb,
                     nn, alpha, gb_mwu_min_p(nb, nn));
        } else {
            snprintf(j->why, sizeof j->why, "a %+.1f%% change that is not significant (p = %.3g)",
                     100.0 * (j->ratio - 1.0), m.p);
        }
    } else if (j->noise > threshold) {
        snprintf(j->why, sizeof j->why,
                 "noise %.1f%% is above the %.1f%% threshold: a change that size could hide",
                 100.0 * j->noise, 100.0 * threshold);
    } else {
        j->verdict = GB_VERDICT_SAME;
    }
    return 0;
}

/* ---- matching ------------------------------------------------------------------------------ */

/* d's position among the devices of its backend in rs (for --across-devices). */
static size_t backend_ordinal(const struct gb_results *rs, size_t d)
{
    size_t pos = 0;
    for (size_t k = 0; k < d; k++)
        pos += strcmp(rs->devices[k].backend, rs->devices[d].backend) == 0;
    return pos;
}

/* The device (or device set) of r: each device's stable identity (gb_device_identity), then its
 * name: "[uuid:1b2c3d4e] NVIDIA H200" (the UUID's first 8 hex digits), "[pci:0000:65:00.0] ...",
 * or "[opencl:1] pthread-haswell-AMD EPYC" when the backend gives neither (backend and index), so
 * that two devices of one name pair with themselves whichever of them a file holds; the identity
 * leads so that it shows in the table's capped column. With `across`, backend positions
 * ("opencl#0"). */
static void device_key(const struct gb_results *rs, const struct gb_result *r, bool across,
                       char *buf, size_t len)
{
    int one = r->device_index;
    const int *idx = r->nset > 0 ? r->set : &one;
    size_t n = r->nset > 0 ? r->nset : 1;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *sep = i ? "+" : "";
        if (idx[i] < 0 || (size_t)idx[i] >= rs->ndevices) {
            gb_appendf(buf, len, "%s?", sep);
            continue;
        }
        size_t d = (size_t)idx[i];
        if (across) {
            gb_appendf(buf, len, "%s%s#%zu", sep, rs->devices[d].backend, backend_ordinal(rs, d));
        } else {
            char id[64];
            enum gb_id_kind kind = gb_device_identity(&rs->devices[d], id, sizeof id);
            gb_appendf(buf, len, "%s[%s%.*s] %s", sep, kind == GB_ID_UUID ? "uuid:" : "",
                       kind == GB_ID_UUID ? 8 : (int)sizeof id, id, rs->devices[d].info.name);
        }
    }
}

/* The params beside the case's name (gb_result_other_params), as text. */
static void rest_params(const struct gb_result *r, char *buf, size_t len)
{
    struct gb_params rest;
    gb_result_other_params(r, &rest);
    gb_params_format(&rest, buf, len);
}

struct keyed {
    char *key;
    size_t idx;
};

static int cmp_keyed(const void *a, const void *b)
{
    return strcmp(((const struct keyed *)a)->key, ((const struct keyed *)b)->key);
}

static void free_keys(struct keyed *k, size_t n)
{
    if (!k)
        return;
    for (size_t i = 0; i < n; i++)
        free(k[i].key);
    free(k);
}

/* Orders keys by text, then by result index: equal keys in file order. */
static int cmp_keyed_idx(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* One key per result: suite, case, backend, device, params (every axis, typed text), and an
 * occurrence number so that a case measured twice in one file pairs first with first. The
 * occurrence numbers come from one sort of the keys (O(n log n); counting earlier equal keys
 * for each result took 45 s for 100,000 results). */
static int make_keys(const struct gb_results *rs, bool across, struct keyed **out)
{
    size_t n = rs->nresults;
    struct keyed *k = calloc(n ? n : 1, sizeof *k), *sorted = calloc(n ? n : 1, sizeof *sorted);
    if (!k || !sorted) {
        free(k);
        free(sorted);
        return GB__USER_ERR(GB_ENOMEM, "out of memory for the keys of %zu results", n);
    }
    for (size_t i = 0; i < n; i++) {
        const struct gb_result *r = &rs->results[i];
        char dev[512], params[1024], base[2048];
        device_key(rs, r, across, dev, sizeof dev);
        gb_params_format(&r->params, params, sizeof params);
        snprintf(base, sizeof base, "%s\x1f%s\x1f%s\x1f%s\x1f%s", r->suite, r->case_name,
                 r->backend, dev, params);
        size_t l = strlen(base) + 32;
        k[i].key = malloc(l);
        if (!k[i].key) {
            free_keys(k, i);
            free(sorted);
            return GB__USER_ERR(GB_ENOMEM, "out of memory for the keys of %zu results", n);
        }
        memcpy(k[i].key, base, strlen(base) + 1);
        k[i].idx = i;
        sorted[i] = k[i];
    }
    qsort(sorted, n, sizeof *sorted, cmp_keyed_idx);
    /* sorted[i].key still points to the base text: number each run of equal ones in file order,
     * the occurrence noted in a second array (the keys cannot grow while they are compared). */
    size_t *occ = calloc(n ? n : 1, sizeof *occ);
    if (!occ) {
        free_keys(k, n);
        free(sorted);
        return GB__USER_ERR(GB_ENOMEM, "out of memory for the keys of %zu results", n);
    }
    for (size_t i = 1; i < n; i++)
        if (strcmp(sorted[i].key, sorted[i - 1].key) == 0)
            occ[sorted[i].idx] = occ[sorted[i - 1].idx] + 1;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(k[i].key);
        snprintf(k[i].key + l, 32, "\x1f%zu", occ[i]);
    }
    free(occ);
    free(sorted);
    *out = k;
    return 0;
}

/* Whether a key (make_keys) is its case's first occurrence in its file. */
static bool is_first(const char *key)
{
    size_t l = strlen(key);
    return l >= 2 && strcmp(key + l - 2, "\x1f"
                                         "0") == 0;
}

/* True when params a and b name the same axes with equal values (gb_value_equal). */
static bool params_equal(const struct gb_params *a, const struct gb_params *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        const struct gb_value *v = gb_params_get(b, a->name[i]);
        if (!v || !gb_value_equal(&a->v[i], v))
            return false;
    }
    return true;
}

/* Whether a device name occurs among the devices rs's results ran on. */
static bool uses_device_name(const struct gb_results *rs, const char *name)
{
    for (size_t i = 0; i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        int one = r->device_index;
        const int *idx = r->nset > 0 ? r->set : &one;
        size_t n = r->nset > 0 ? r->nset : 1;
        for (size_t k = 0; k < n; k++)
            if (idx[k] >= 0 && (size_t)idx[k] < rs->ndevices &&
                strcmp(rs->devices[idx[k]].info.name, name) == 0)
                return true;
    }
    return false;
}

static void device_names(const struct gb_results *rs, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t d = 0; d < rs->ndevices; d++) {
        if (!uses_device_name(rs, rs->devices[d].info.name))
            continue;
        bool seen = false;
        for (size_t e = 0; e < d; e++)
            seen |= strcmp(rs->devices[e].info.name, rs->devices[d].info.name) == 0;
        if (seen)
            continue;
        gb_appendf(buf, len, "%s'%s'", buf[0] ? ", " : "", rs->devices[d].info.name);
    }
    if (!buf[0])
        snprintf(buf, len, "no device");
}

/* The identities of the devices rs's results use: "'NAME' uuid:1234abcd, ..." (as device_key
 * shows them). */
static void device_ids(const struct gb_results *rs, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t d = 0; d < rs->ndevices; d++) {
        if (!uses_device_name(rs, rs->devices[d].info.name))
            continue;
        char id[64];
        enum gb_id_kind kind = gb_device_identity(&rs->devices[d], id, sizeof id);
        gb_appendf(buf, len, "%s'%s' %s%.*s", buf[0] ? ", " : "", rs->devices[d].info.name,
                   kind == GB_ID_UUID ? "uuid:" : "", kind == GB_ID_UUID ? 8 : (int)sizeof id, id);
    }
}

/* A line of the comparison's notes, printed under its table. */
#define notef(c, ...) gb_append_line((c)->notes, sizeof(c)->notes, __VA_ARGS__)

/* With --across-devices: what differs between the k-th device of each backend on both sides. */
static void note_device_differences(struct gb_comparison *c)
{
    const struct gb_results *a = c->base, *b = c->next;
    for (size_t i = 0; i < a->ndevices; i++) {
        size_t pos = backend_ordinal(a, i);
        for (size_t j = 0; j < b->ndevices; j++) {
            if (strcmp(a->devices[i].backend, b->devices[j].backend) != 0 ||
                backend_ordinal(b, j) != pos)
                continue;
            const struct gb_device_info *x = &a->devices[i].info, *y = &b->devices[j].info;
            char diff[1536] = "";
#define GB__DIFF_S(field, label)                                                                 \
    if (strcmp(x->field, y->field) != 0)                                                         \
        gb_appendf(diff, sizeof diff, "%s%s '%s' vs '%s'", diff[0] ? "; " : "", label, x->field, \
                   y->field);
#define GB__DIFF_U(field, label, unit)                                                     \
    if (x->field != y->field)                                                              \
        gb_appendf(diff, sizeof diff, "%s%s %llu%s vs %llu%s", diff[0] ? "; " : "", label, \
                   (unsigned long long)x->field, unit, (unsigned long long)y->field, unit);
            GB__DIFF_S(name, "name")
            GB__DIFF_S(vendor, "vendor")
            GB__DIFF_S(driver, "driver")
            GB__DIFF_S(version, "version")
            GB__DIFF_U(compute_units, "compute units", "")
            GB__DIFF_U(clock_mhz, "clock", " MHz")
            GB__DIFF_U(global_mem, "memory", " B")
            GB__DIFF_U(max_wg_size, "max work-group", "")
#undef GB__DIFF_S
#undef GB__DIFF_U
            notef(c, "across devices: BASE %s#%zu '%s' is paired with NEW %s#%zu '%s'%s%s",
                  a->devices[i].backend, pos, x->name, b->devices[j].backend, pos, y->name,
                  diff[0] ? "; differs in: " : "; the devices are described identically", diff);
            break;
        }
    }
}

static void first_line(const char *s, char *buf, size_t len)
{
    int l = (int)strcspn(s, "\n");
    snprintf(buf, len, "%.*s", l, s);
}

/* Two files: a SLOWER or FASTER inside the case's run-to-run noise (compare.h) is UNSTABLE. */
static void run_noise_floor(const struct gb_comparison *c, struct gb_compare_row *row)
{
    row->run_noise = c->opts.run_noise;
    row->run_noise_source = "stated";
    if (c->opts.expect) {
        char key[2400];
        gb_expect_key(c->next, row->next, key, sizeof key);
        const struct gb_expect_case *e = gb_expect_find(c->opts.expect, key);
        if (e && e->better == row->next->better && e->n >= 3 && e->min > 0 && e->max >= e->min) {
            double seen = e->max / e->min * (1.0 + row->threshold) - 1.0;
            double band = expm1(3.0 * M_SQRT2 * e->spread);
            row->run_noise = seen > band ? seen : band;
            row->run_noise_source = "expectations";
        }
    }
    if ((row->j.verdict != GB_VERDICT_SLOWER && row->j.verdict != GB_VERDICT_FASTER) ||
        !(row->run_noise > 0.0) || !(row->j.ratio > 0.0))
        return;
    if (fabs(log(row->j.ratio)) > log1p(row->run_noise)) {
        if (strcmp(row->run_noise_source, "stated") != 0 || c->opts.run_noise_given)
            return;
        /* No reference runs of the case: beyond the default floor, yet alone no regression. */
        row->by_run = true;
        row->j.verdict = GB_VERDICT_UNSTABLE;
        snprintf(row->j.why, sizeof row->j.why,
                 "%+.1f%%, beyond %.0f%% but with no reference runs of the case: judged with "
                 "the run as a whole (p = %.2g)",
                 100.0 * (row->j.ratio - 1.0), 100.0 * row->run_noise, row->j.p);
        snprintf(row->note, sizeof row->note, "%s", row->j.why);
        return;
    }
    row->j.verdict = GB_VERDICT_UNSTABLE;
    snprintf(row->j.why, sizeof row->j.why,
             "a %+.1f%% change within run-to-run noise (%.0f%%, %s; p = %.2g)",
             100.0 * (row->j.ratio - 1.0), 100.0 * row->run_noise,
             strcmp(row->run_noise_source, "stated") == 0 ? "--run-noise" : "reference runs",
             row->j.p);
    snprintf(row->note, sizeof row->note, "%s", row->j.why);
}

double gb__compare_median_shift(const struct gb_compare_row *rows, size_t nrows,
                                bool (*pick)(const struct gb_compare_row *), size_t *n)
{
    *n = 0;
    double *d = malloc((nrows ? nrows : 1) * sizeof *d);
    if (!d)
        return 0.0; /* the caller's stricter rule is lost, the verdicts stand */
    for (size_t i = 0; i < nrows; i++)
        if (pick(&rows[i]) && rows[i].j.ratio > 0.0 && isfinite(rows[i].j.ratio))
            d[(*n)++] = log(rows[i].j.ratio);
    const double med = *n ? gb_median(d, *n) : 0.0;
    free(d);
    return isfinite(med) ? med : 0.0;
}

static bool both_ok(const struct gb_compare_row *row)
{
    return row->base && row->next && row->base->status == GB_STATUS_OK &&
           row->next->status == GB_STATUS_OK;
}

/* Two files: the run's median shift; beyond GB_COMPARE_RUN_BOUND the rows judged with the run
 * (by_run) take the verdict their samples gave, in the run's direction. */
static void run_as_a_whole(struct gb_comparison *out)
{
    out->run_shift = gb__compare_median_shift(out->rows, out->nrows, both_ok, &out->run_shift_n);
    const double cut = log1p(GB_COMPARE_RUN_BOUND);
    if (out->run_shift_n < 5 || !(fabs(out->run_shift) > cut))
        return;
    const bool slower = out->run_shift < 0;
    size_t n = 0;
    for (size_t i = 0; i < out->nrows; i++) {
        struct gb_compare_row *row = &out->rows[i];
        if (!row->by_run || (log(row->j.ratio) < 0) != slower || !(fabs(log(row->j.ratio)) > cut))
            continue;
        out->counts[row->j.verdict]--;
        row->j.verdict = slower ? GB_VERDICT_SLOWER : GB_VERDICT_FASTER;
        out->counts[row->j.verdict]++;
        row->regression = slower || out->opts.fail_on_faster;
        out->regressions += row->regression;
        snprintf(row->j.why, sizeof row->j.why, "%+.1f%%, and the run as a whole %+.0f%%",
                 100.0 * (row->j.ratio - 1.0), 100.0 * expm1(out->run_shift));
        snprintf(row->note, sizeof row->note, "%s", row->j.why);
        n++;
    }
    notef(out,
          "NEW is %+.0f%% as a whole (the median of %zu cases ok on both sides), beyond 1/%.1f: "
          "%zu case%s without reference runs that far %s %s",
          100.0 * expm1(out->run_shift), out->run_shift_n, 1.0 + GB_COMPARE_RUN_BOUND, n,
          n == 1 ? "" : "s", slower ? "below" : "above", slower ? "are SLOWER" : "are FASTER");
}

/* The verdict of one row from the statuses and, when both are ok, the samples. */
static int judge_row(struct gb_comparison *c, struct gb_compare_row *row)
{
    const struct gb_result *b = row->base, *n = row->next;
    const struct gb_result *any = b ? b : n;
    char reason[200];
    row->threshold = gb_compare_threshold(&c->opts, any->suite);
    row->j.p = 1.0;
    row->j.ratio = NAN;
    row->j.base_median = b && b->status == GB_STATUS_OK ? b->value : NAN;
    row->j.next_median = n && n->status == GB_STATUS_OK ? n->value : NAN;
    /* A case its file holds more than once pairs first with first; a copy left over has no
     * partner, and saying it is only on one side would be false. */
    if (row->duplicate) {
        row->j.verdict = GB_VERDICT_SKIPPED;
        snprintf(row->note, sizeof row->note, "duplicate case in %s (the first is compared)",
                 n ? "NEW" : "BASE");
        return 0;
    }
    if (!n) {
        row->j.verdict = GB_VERDICT_MISSING;
        snprintf(row->note, sizeof row->note, "only in BASE");
        return 0;
    }
    if (!b) {
        row->j.verdict = GB_VERDICT_NEW;
        snprintf(row->note, sizeof row->note, "only in NEW");
        return 0;
    }
    if (n->status == GB_STATUS_FAILED) {
        row->j.verdict = GB_VERDICT_FAILED;
        row->regression = b->status == GB_STATUS_OK;
        first_line(n->reason, reason, sizeof reason);
        snprintf(row->note, sizeof row->note, "%s: %s",
                 b->status == GB_STATUS_FAILED ? "failed in both" : "failed in NEW", reason);
        return 0;
    }
    if (b->status != GB_STATUS_OK && n->status == GB_STATUS_OK) {
        row->j.verdict = GB_VERDICT_NEW;
        first_line(b->reason, reason, sizeof reason);
        snprintf(row->note, sizeof row->note, "%s in BASE: %s", gb_status_name(b->status), reason);
        return 0;
    }
    if (n->status == GB_STATUS_SKIPPED || b->status == GB_STATUS_SKIPPED) {
        row->j.verdict = GB_VERDICT_SKIPPED;
        const struct gb_result *s = n->status == GB_STATUS_SKIPPED ? n : b;
        first_line(s->reason, reason, sizeof reason);
        const bool both = n->status == GB_STATUS_SKIPPED && b->status == GB_STATUS_SKIPPED;
        snprintf(row->note, sizeof row->note, "skipped in %s: %s",
                 both     ? "both"
                 : s == n ? "NEW"
                          : "BASE",
                 reason);
        return 0;
    }
    if (strcmp(b->unit, n->unit) != 0 || b->better != n->better) {
        row->j.verdict = GB_VERDICT_UNSTABLE;
        snprintf(row->note, sizeof row->note, "the metric changed (%s, %s is better -> %s, %s)",
                 b->unit, b->better == GB_BETTER_LOWER ? "lower" : "higher", n->unit,
                 n->better == GB_BETTER_LOWER ? "lower" : "higher");
        return 0;
    }
    /* An ok result whose figure is no positive number is no measurement: NEW's fails the gate
     * as a failed case would (a wrong number must not pass as UNSTABLE), BASE's makes the row
     * NEW. */
    if (!(n->value > 0) || !isfinite(n->value)) {
        row->j.verdict = GB_VERDICT_FAILED;
        row->regression = true;
        snprintf(row->note, sizeof row->note,
                 "NEW is ok with the figure %g %s, which no measurement gives", n->value, n->unit);
        return 0;
    }
    if (!(b->value > 0) || !isfinite(b->value)) {
        row->j.verdict = GB_VERDICT_NEW;
        snprintf(row->note, sizeof row->note,
                 "BASE is ok with the figure %g %s, which no measurement gives: nothing to "
                 "compare against",
                 b->value, b->unit);
        return 0;
    }
    /* Device events against host wall time around a finish: the host's includes the launch
     * and the finish, so the two measure different things (a device whose timer failed its
     * check on one of the nights). */
    if (b->timer[0] && n->timer[0] && strcmp(b->timer, n->timer) != 0) {
        row->j.verdict = GB_VERDICT_UNSTABLE;
        snprintf(row->note, sizeof row->note,
                 "the timer changed (%s in BASE, %s in NEW): not comparable", b->timer, n->timer);
        return 0;
    }
    /* An ok result recorded without its samples (a writer that keeps only the headline) is
     * judged on its recorded figure, one sample of it, not on none. */
    const double *bs = b->nsamples ? b->samples : &b->value;
    const double *ns = n->nsamples ? n->samples : &n->value;
    int rc =
        gb_compare_judge(bs, b->nsamples ? b->nsamples : 1, ns, n->nsamples ? n->nsamples : 1,
                         b->better == GB_BETTER_HIGHER, c->opts.alpha, row->threshold, &row->j);
    if (rc)
        return rc;
    snprintf(row->note, sizeof row->note, "%s", row->j.why);
    run_noise_floor(c, row);
    row->regression = row->j.verdict == GB_VERDICT_SLOWER ||
                      (row->j.verdict == GB_VERDICT_FASTER && c->opts.fail_on_faster);
    return 0;
}

int gb_compare_results(const struct gb_results *base, const char *base_path,
                       const struct gb_results *next, const char *next_path,
                       const struct gb_compare_opts *o, struct gb_comparison *out)
{
    memset(out, 0, sizeof *out);
    out->base = base;
    out->next = next;
    out->base_path = base_path;
    out->next_path = next_path;
    out->opts = *o;

    if (!o->across_devices) {
        bool common = false;
        for (size_t d = 0; d < base->ndevices && !common; d++)
            common = uses_device_name(base, base->devices[d].info.name) &&
                     uses_device_name(next, base->devices[d].info.name);
        if (!common && base->nresults && next->nresults) {
            char a[1024], b[1024];
            device_names(base, a, sizeof a);
            device_names(next, b, sizeof b);
            return GB__USER_ERR(GB_EINVAL,
                                "%s ran on %s and %s on %s: results from different devices are "
                                "not compared unless --across-devices is given (it pairs the "
                                "devices in order and compares like with like by params)",
                                base_path, a, next_path, b);
        }
    }

    struct keyed *kb = NULL, *kn = NULL;
    int rc = make_keys(base, o->across_devices, &kb);
    if (!rc)
        rc = make_keys(next, o->across_devices, &kn);
    bool *used = calloc(next->nresults ? next->nresults : 1, sizeof *used);
    out->rows = calloc(base->nresults + next->nresults + 1, sizeof *out->rows);
    if (!rc && (!used || !out->rows))
        rc = GB_FAIL(GB_ENOMEM, "compare rows");
    if (rc)
        goto done;
    qsort(kn, next->nresults, sizeof *kn, cmp_keyed);

    for (size_t i = 0; i < base->nresults; i++) {
        struct gb_compare_row *row = &out->rows[out->nrows++];
        row->base = &base->results[i];
        row->duplicate = !is_first(kb[i].key);
        struct keyed probe = {kb[i].key, 0};
        struct keyed *hit =
            next->nresults ? bsearch(&probe, kn, next->nresults, sizeof *kn, cmp_keyed) : NULL;
        if (hit && params_equal(&row->base->params, &next->results[hit->idx].params)) {
            row->next = &next->results[hit->idx];
            used[hit->idx] = true;
            out->matched++;
            row->duplicate = false;
        }
    }
    bool *later = calloc(next->nresults ? next->nresults : 1, sizeof *later);
    if (!later) {
        rc = GB_FAIL(GB_ENOMEM, "compare rows");
        goto done;
    }
    for (size_t i = 0; i < next->nresults; i++)
        later[kn[i].idx] = !is_first(kn[i].key);
    for (size_t i = 0; i < next->nresults; i++)
        if (!used[i]) {
            out->rows[out->nrows].duplicate = later[i];
            out->rows[out->nrows++].next = &next->results[i];
        }
    free(later);

    if (out->matched == 0) {
        /* The same model on another machine (a fleet, a fresh cloud instance) has the same name
         * and another identity: say so, and how to compare them anyway. */
        char a[1024] = "", b[1024] = "";
        if (!o->across_devices) {
            device_ids(base, a, sizeof a);
            device_ids(next, b, sizeof b);
        }
        if (a[0] && b[0] && strcmp(a, b) != 0)
            rc = GB__USER_ERR(GB_EINVAL,
                              "%s and %s have no case in common: they ran on devices of the same "
                              "name but different identities (%s; %s), another device of the "
                              "same model; --across-devices pairs the devices in order",
                              base_path, next_path, a, b);
        else
            rc = GB__USER_ERR(GB_EINVAL,
                              "%s and %s have no case in common (same suite, case, backend, "
                              "device and params): nothing to compare",
                              base_path, next_path);
        goto done;
    }

    for (size_t i = 0; i < out->nrows; i++) {
        struct gb_compare_row *row = &out->rows[i];
        const struct gb_result *r = row->base ? row->base : row->next;
        const struct gb_results *rs = row->base ? base : next;
        device_key(rs, r, false, row->device, sizeof row->device);
        if (o->across_devices && row->base && row->next) {
            char other[256];
            device_key(next, row->next, false, other, sizeof other);
            if (strcmp(other, row->device) != 0)
                gb_appendf(row->device, sizeof row->device, " -> %s", other);
        }
        rest_params(r, row->params, sizeof row->params);
        if ((rc = judge_row(out, row)))
            goto done;
        out->counts[row->j.verdict]++;
        out->regressions += row->regression;
    }

    if (strcmp(base->run.profile_sha256, next->run.profile_sha256) != 0)
        notef(out, "the profiles differ: BASE ran '%s' (sha256 %.12s), NEW ran '%s' (sha256 %.12s)",
              base->run.profile_name, base->run.profile_sha256, next->run.profile_name,
              next->run.profile_sha256);
    if (o->run_noise > 0)
        run_as_a_whole(out);
    size_t calibrated = 0;
    for (size_t i = 0; i < out->nrows; i++)
        calibrated += out->rows[i].run_noise_source &&
                      strcmp(out->rows[i].run_noise_source, "expectations") == 0;
    if (o->run_noise > 0 || calibrated)
        notef(out,
              "a change within run-to-run noise is UNSTABLE: the reference runs' for %zu case%s, "
              "%.0f%% (--run-noise) for the others%s",
              calibrated, calibrated == 1 ? "" : "s", 100.0 * o->run_noise,
              o->run_noise_given || !(o->run_noise > 0)
                  ? ""
                  : ", and one of those beyond it fails only with its run as a whole (beyond "
                    "1/1.6) or a stated --run-noise");
    /* A file says it did not finish from its run's first write to its last: a run stopped, or
     * one still going. */
    if (base->run.interrupted)
        notef(out, "BASE did not finish (interrupted, or still running): cases it did not reach "
                   "are NEW here");
    if (next->run.interrupted)
        notef(out, "NEW did not finish (interrupted, or still running): cases it did not reach "
                   "are MISSING here");
    if (o->across_devices)
        note_device_differences(out);
done:
    free_keys(kb, base->nresults);
    free_keys(kn, next->nresults);
    free(used);
    if (rc) {
        free(out->rows);
        out->rows = NULL;
        out->nrows = 0;
    }
    return rc;
}

void gb_comparison_free(struct gb_comparison *c)
{
    if (!c)
        return;
    free(c->rows);
    c->rows = NULL;
    c->nrows = 0;
}
