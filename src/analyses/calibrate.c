/* gpubench — the A/A calibration analysis (contract in calibrate.h). */
#include "analyses/calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analyses/merge.h"
#include "base/error.h"
#include "base/util.h"

struct calib {
    struct gb_calib_case *c;
    size_t n, cap;
};

static struct gb_calib_case *calib_find(struct calib *cb, const struct gb_compare_row *row)
{
    const struct gb_result *r = row->base;
    char key[1600];
    snprintf(key, sizeof key, "%s\x1f%s\x1f%s\x1f%s\x1f%s", r->suite, r->case_name, r->backend,
             row->device, row->params);
    /* Room for one more first, so that a new key always has its place. */
    struct gb_calib_case *g = gb_grow(cb->c, &cb->cap, cb->n + 1, sizeof *g);
    if (!g)
        return NULL;
    cb->c = g;
    bool added;
    size_t i =
        gb_find_or_add_str(cb->c, &cb->n, cb->cap, sizeof *cb->c,
                           offsetof(struct gb_calib_case, key), sizeof cb->c->key, key, &added);
    struct gb_calib_case *k = &cb->c[i];
    if (!added)
        return k;
    snprintf(k->suite, sizeof k->suite, "%s", r->suite);
    snprintf(k->case_name, sizeof k->case_name, "%s", r->case_name);
    snprintf(k->backend, sizeof k->backend, "%s", r->backend);
    snprintf(k->device, sizeof k->device, "%s", row->device);
    snprintf(k->params, sizeof k->params, "%s", row->params);
    snprintf(k->unit, sizeof k->unit, "%s", r->unit);
    snprintf(k->metric, sizeof k->metric, "%s", r->metric);
    k->better = r->better;
    k->min_med = INFINITY;
    k->max_med = -INFINITY;
    return k;
}

static int by_needed(const void *a, const void *b)
{
    double x = ((const struct gb_calib_case *)a)->needed,
           y = ((const struct gb_calib_case *)b)->needed;
    return (x < y) - (x > y);
}

/* The suggested threshold for a no-alarm threshold t: 1.5 t rounded up to a whole percent, at
 * least 1%. A handful of A/A runs samples the run-to-run noise lightly (the next night's may be
 * a little worse), hence the margin; it is a rule of thumb, and the report says so. */
double gb_calibrate_suggest(double t)
{
    double s = ceil(150.0 * t) / 100.0;
    return s < 0.01 ? 0.01 : s;
}

/* The compare command line the calibration suggests (contract in calibrate.h). */
static void suggest_command(struct gb_calibration *c)
{
    snprintf(c->command, sizeof c->command, "gpubench compare BASE NEW");
    /* A default that covers the quietest suites, and per-suite overrides for the rest. */
    double base_t = 0.0;
    for (size_t i = 0; i < c->n; i++) {
        double s = gb_calibrate_suggest(c->c[i].needed);
        if (i == 0 || s < base_t)
            base_t = s;
    }
    if (base_t < c->threshold)
        base_t = c->threshold;
    gb_appendf(c->command, sizeof c->command, " --threshold %.2f", base_t);
    for (size_t i = 0; i < c->n; i++) {
        if (!gb_calibration_suite_first(c, i))
            continue;
        double s = gb_calibrate_suggest(c->c[i].needed);
        if (s > base_t)
            gb_appendf(c->command, sizeof c->command, " --suite-threshold %s=%.2f", c->c[i].suite,
                       s);
    }
}

bool gb_calibration_suite_first(const struct gb_calibration *c, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (strcmp(c->c[k].suite, c->c[i].suite) == 0)
            return false;
    return true;
}

int gb_calibrate(const struct gb_results *runs, const char *const *paths, size_t n,
                 const struct gb_compare_opts *o, struct gb_calibration *out)
{
    memset(out, 0, sizeof *out);
    if (n < 2)
        return gb_error_set(GB_EINVAL, NULL, 0,
                            "calibration needs at least 2 runs of the profile (got %zu)", n);
    struct calib cb = {0};
    int rc = 0;
    size_t comparisons = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        for (size_t j = 0; j < n && !rc; j++) {
            if (i == j)
                continue;
            struct gb_comparison c;
            if ((rc = gb_compare_results(&runs[i], paths[i], &runs[j], paths[j], o, &c)))
                break;
            comparisons++;
            for (size_t k = 0; k < c.nrows; k++) {
                const struct gb_compare_row *row = &c.rows[k];
                if (!row->base || !row->next || row->base->status != GB_STATUS_OK ||
                    row->next->status != GB_STATUS_OK)
                    continue;
                struct gb_calib_case *cc = calib_find(&cb, row);
                if (!cc) {
                    rc = GB_FAIL(GB_ENOMEM, "calibration table");
                    break;
                }
                /* A value in another unit, metric or direction than the case's first is left
                 * out of it, counted once: in its first comparison as NEW. */
                char why[96];
                if (gb_case_measure_differs(cc->unit, cc->metric, cc->better, row->next, why,
                                            sizeof why)) {
                    if (i == (j == 0 ? 1u : 0u) && cc->left_out++ == 0)
                        snprintf(cc->left_why, sizeof cc->left_why, "%s", why);
                    continue;
                }
                if (gb_case_measure_differs(cc->unit, cc->metric, cc->better, row->base, why,
                                            sizeof why))
                    continue;
                const struct gb_judgement *jd = &row->j;
                cc->pairs++;
                cc->alarms += row->regression;
                cc->unstable += jd->verdict == GB_VERDICT_UNSTABLE;
                if (isfinite(jd->noise) && jd->noise > cc->noise)
                    cc->noise = jd->noise;
                double meds[2] = {jd->base_median, jd->next_median};
                for (int m = 0; m < 2; m++) {
                    if (meds[m] < cc->min_med)
                        cc->min_med = meds[m];
                    if (meds[m] > cc->max_med)
                        cc->max_med = meds[m];
                }
                /* Every pair's change, significant or not: the gates that use the suggestion
                 * (the nights', with learned thresholds) test no significance, and a case with
                 * 3 samples a run never reaches alpha (serve: 203% apart, suggested 0%). */
                if (isfinite(jd->ratio) && jd->ratio > 0.0) {
                    double need = jd->ratio < 1.0     ? 1.0 / jd->ratio - 1.0
                                  : o->fail_on_faster ? jd->ratio - 1.0
                                                      : 0.0;
                    if (need > cc->needed)
                        cc->needed = need;
                }
            }
            gb_comparison_free(&c);
        }
    }
    if (rc) {
        free(cb.c);
        return rc;
    }
    /* A case whose every pair mixed measures compared nothing: it goes, named in the notes. */
    size_t kept = 0;
    for (size_t i = 0; i < cb.n; i++) {
        const struct gb_calib_case *k = &cb.c[i];
        char title[1024];
        gb_case_title(k->suite, k->case_name, k->params, k->device, title, sizeof title);
        gb_case_left_out_note(out->left_out, sizeof out->left_out, k->left_out, title, k->left_why);
        if (k->pairs > 0)
            cb.c[kept++] = *k;
    }
    cb.n = kept;
    if (cb.n == 0) {
        free(cb.c);
        return gb_error_set(GB_EINVAL, NULL, 0, "the runs have no ok case in common");
    }
    qsort(cb.c, cb.n, sizeof *cb.c, by_needed);
    out->c = cb.c;
    out->n = cb.n;
    out->nruns = n;
    out->paths = paths;
    out->comparisons = comparisons;
    out->alpha = o->alpha;
    out->threshold = o->threshold;
    snprintf(out->profile, sizeof out->profile, "%s", runs[0].run.profile_name);
    snprintf(out->host, sizeof out->host, "%s", runs[0].run.host);
    for (size_t i = 0; i < cb.n; i++) {
        out->alarm_cases += cb.c[i].alarms > 0;
        out->alarms += cb.c[i].alarms;
        if (cb.c[i].needed > out->no_alarm)
            out->no_alarm = cb.c[i].needed;
    }
    suggest_command(out);
    return 0;
}

void gb_calibration_free(struct gb_calibration *c)
{
    if (!c)
        return;
    free(c->c);
    memset(c, 0, sizeof *c);
}

int gb_learned_read(const char *path, struct gb_learned *out)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root)
        return gb_error_set(GB_EIO, NULL, 0, "%s: %s", path, je.text);
    const char *schema = json_string_value(json_object_get(root, "schema"));
    json_t *cases = json_object_get(root, "cases");
    if (!schema || strcmp(schema, "gpubench-calibration/1") != 0 || !json_is_array(cases)) {
        json_decref(root);
        return gb_error_set(GB_EINVAL, NULL, 0,
                            "%s is not a calibration (schema gpubench-calibration/1 with cases)",
                            path);
    }
    out->t = calloc(json_array_size(cases) + 1, sizeof *out->t);
    if (!out->t) {
        json_decref(root);
        return GB_FAIL(GB_ENOMEM, "%zu learned thresholds", json_array_size(cases));
    }
    size_t i;
    json_t *c;
    json_array_foreach(cases, i, c)
    {
        const char *suite = json_string_value(json_object_get(c, "suite"));
        const char *name = json_string_value(json_object_get(c, "case"));
        const char *backend = json_string_value(json_object_get(c, "backend"));
        const char *device = json_string_value(json_object_get(c, "device"));
        const char *params = json_string_value(json_object_get(c, "params"));
        json_t *sug = json_object_get(c, "suggested_threshold");
        json_t *need = json_object_get(c, "no_alarm_threshold");
        double t = json_is_number(sug)    ? json_number_value(sug)
                   : json_is_number(need) ? gb_calibrate_suggest(json_number_value(need))
                                          : NAN;
        if (!suite || !name || !device || !params || !(t > 0.0) || !isfinite(t))
            continue; /* not a case this version understands: it keeps the default */
        struct gb_learned_threshold *l = &out->t[out->n++];
        snprintf(l->suite, sizeof l->suite, "%s", suite);
        snprintf(l->case_name, sizeof l->case_name, "%s", name);
        snprintf(l->backend, sizeof l->backend, "%s", backend ? backend : "");
        snprintf(l->device, sizeof l->device, "%s", device);
        snprintf(l->params, sizeof l->params, "%s", params);
        l->threshold = t;
    }
    json_decref(root);
    return 0;
}
