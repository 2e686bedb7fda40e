/* gpubench — the A/A calibration analysis (contract in calibrate.h). */
#include "analyses/calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "base/util.h"

struct calib_case {
    char key[1600];
    char suite[32], case_name[64], backend[16], device[256], params[512], unit[16];
    double min_med, max_med; /* over every run */
    double noise;            /* largest within-run noise seen */
    double needed;           /* smallest threshold with no false alarm */
    size_t pairs, alarms, unstable;
};

struct calib {
    struct calib_case *c;
    size_t n, cap;
};

static struct calib_case *calib_find(struct calib *cb, const struct gb_compare_row *row)
{
    const struct gb_result *r = row->base;
    char key[1600];
    snprintf(key, sizeof key, "%s\x1f%s\x1f%s\x1f%s\x1f%s", r->suite, r->case_name, r->backend,
             row->device, row->params);
    /* Room for one more first, so that a new key always has its place. */
    struct calib_case *g = gb_grow(cb->c, &cb->cap, cb->n + 1, sizeof *g);
    if (!g)
        return NULL;
    cb->c = g;
    bool added;
    size_t i = gb_find_or_add_str(cb->c, &cb->n, cb->cap, sizeof *cb->c,
                                  offsetof(struct calib_case, key), sizeof cb->c->key, key, &added);
    struct calib_case *k = &cb->c[i];
    if (!added)
        return k;
    snprintf(k->suite, sizeof k->suite, "%s", r->suite);
    snprintf(k->case_name, sizeof k->case_name, "%s", r->case_name);
    snprintf(k->backend, sizeof k->backend, "%s", r->backend);
    snprintf(k->device, sizeof k->device, "%s", row->device);
    snprintf(k->params, sizeof k->params, "%s", row->params);
    snprintf(k->unit, sizeof k->unit, "%s", r->unit);
    k->min_med = INFINITY;
    k->max_med = -INFINITY;
    return k;
}

static int by_needed(const void *a, const void *b)
{
    double x = ((const struct calib_case *)a)->needed, y = ((const struct calib_case *)b)->needed;
    return (x < y) - (x > y);
}

/* The suggested threshold for a no-alarm threshold t: 1.5 t rounded up to a whole percent, at
 * least 1%. A handful of A/A runs samples the run-to-run noise lightly (the next night's may be
 * a little worse), hence the margin; it is a rule of thumb, and the report says so. */
static double suggest(double t)
{
    double s = ceil(150.0 * t) / 100.0;
    return s < 0.01 ? 0.01 : s;
}

int gb_calibrate_report(FILE *f, const struct gb_results *runs, const char *const *paths, size_t n,
                        const struct gb_compare_opts *o, const char *json_path)
{
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
                struct calib_case *cc = calib_find(&cb, row);
                if (!cc) {
                    rc = GB_FAIL(GB_ENOMEM, "calibration table");
                    break;
                }
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
                if (jd->p < o->alpha && isfinite(jd->ratio) && jd->ratio > 0.0) {
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
    if (cb.n == 0) {
        free(cb.c);
        return gb_error_set(GB_EINVAL, NULL, 0, "the runs have no ok case in common");
    }
    qsort(cb.c, cb.n, sizeof *cb.c, by_needed);

    fprintf(f,
            "A/A calibration: %zu runs of profile '%s' on host %s, %zu ordered comparisons "
            "per case, alpha %g\n",
            n, runs[0].run.profile_name, runs[0].run.host, comparisons, o->alpha);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "  run %zu: %s\n", i + 1, paths[i]);
    fprintf(f, "%-9s %-10s %-24s %-36s %24s %10s %7s %9s %10s\n", "suite", "case", "device",
            "params", "medians (min..max)", "run-to-run", "noise", "alarms", "no-alarm");
    size_t alarm_cases = 0, alarms = 0;
    for (size_t i = 0; i < cb.n; i++) {
        const struct calib_case *k = &cb.c[i];
        char med[64], alarm[32];
        snprintf(med, sizeof med, "%.4g..%.4g %s", k->min_med, k->max_med, k->unit);
        snprintf(alarm, sizeof alarm, "%zu/%zu", k->alarms, k->pairs);
        fprintf(f, "%-9s %-10s %-24.24s %-36s %24s %9.1f%% %6.1f%% %9s %9.1f%%\n", k->suite,
                k->case_name, k->device, k->params, med,
                k->min_med > 0 ? 100.0 * (k->max_med / k->min_med - 1.0) : 0.0, 100.0 * k->noise,
                alarm, 100.0 * k->needed);
        alarm_cases += k->alarms > 0;
        alarms += k->alarms;
    }
    fprintf(f, "\nrun-to-run: the spread of the medians over the runs (max / min - 1); noise: the "
               "largest within-run relative CI95 half-width;\nalarms: comparisons that would have "
               "failed the gate at the current thresholds; no-alarm: the smallest threshold that "
               "raises none.\n\n");
    fprintf(f,
            "At the current thresholds (default %.3g%%): %zu false alarm%s in %zu of %zu "
            "cases.\n",
            100.0 * o->threshold, alarms, alarms == 1 ? "" : "s", alarm_cases, cb.n);

    /* Per suite: the largest no-alarm threshold of its cases, and the case that sets it. */
    json_t *jsuites = json_object();
    double global = 0.0;
    fprintf(f, "No false alarm in these runs with thresholds of at least:");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "gpubench compare BASE NEW");
    double max_suggest = 0.0;
    for (size_t i = 0; i < cb.n; i++) {
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(cb.c[k].suite, cb.c[i].suite) == 0;
        if (seen)
            continue;
        /* Sorted by needed, descending: the first case of a suite sets its threshold. */
        const struct calib_case *k = &cb.c[i];
        fprintf(f, "%s %s %.1f%% (%s%s%s)", i ? "," : "", k->suite, 100.0 * k->needed, k->case_name,
                k->params[0] ? " " : "", k->params);
        if (k->needed > global)
            global = k->needed;
        double s = suggest(k->needed);
        if (s > max_suggest)
            max_suggest = s;
        json_object_set_new(jsuites, k->suite,
                            json_pack("{s:f, s:f, s:s, s:s}", "no_alarm_threshold", k->needed,
                                      "suggested_threshold", s, "worst_case", k->case_name,
                                      "worst_params", k->params));
    }
    fprintf(f, ".\n");
    /* Suggest a default that covers the quietest suites, and per-suite overrides for the rest. */
    double base_t = 0.0;
    for (size_t i = 0; i < cb.n; i++) {
        double s = suggest(cb.c[i].needed);
        if (i == 0 || s < base_t)
            base_t = s;
    }
    if (base_t < o->threshold)
        base_t = o->threshold;
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " --threshold %.2f", base_t);
    for (size_t i = 0; i < cb.n; i++) {
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(cb.c[k].suite, cb.c[i].suite) == 0;
        double s = suggest(cb.c[i].needed);
        if (!seen && s > base_t)
            snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " --suite-threshold %s=%.2f",
                     cb.c[i].suite, s);
    }
    fprintf(f,
            "Suggested (1.5x margin, rounded up; %zu runs sample the noise only lightly, so "
            "repeat the calibration on a busy day too):\n  %s\n",
            n, cmd);

    if (json_path) {
        json_t *root = json_object();
        json_object_set_new(root, "schema", json_string("gpubench-calibration/1"));
        json_object_set_new(root, "runs", json_integer((json_int_t)n));
        json_object_set_new(root, "alpha", json_real(o->alpha));
        json_object_set_new(root, "threshold", json_real(o->threshold));
        json_object_set_new(root, "false_alarms", json_integer((json_int_t)alarms));
        json_object_set_new(root, "no_alarm_threshold", json_real(global));
        json_object_set_new(root, "suggested_command", json_string(cmd));
        json_object_set_new(root, "suites", jsuites);
        jsuites = NULL;
        json_t *cases = json_array();
        for (size_t i = 0; i < cb.n; i++) {
            const struct calib_case *k = &cb.c[i];
            json_array_append_new(
                cases,
                json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:I, s:I}",
                          "suite", k->suite, "case", k->case_name, "backend", k->backend, "device",
                          k->device, "params", k->params, "unit", k->unit, "min_median", k->min_med,
                          "max_median", k->max_med, "noise", k->noise, "no_alarm_threshold",
                          k->needed, "suggested_threshold", suggest(k->needed), "alarms",
                          (json_int_t)k->alarms, "pairs", (json_int_t)k->pairs));
        }
        json_object_set_new(root, "cases", cases);
        if (json_dump_file(root, json_path, JSON_INDENT(2)) != 0)
            rc = gb_error_set(GB_EIO, NULL, 0, "cannot write %s: %s", json_path, strerror(errno));
        json_decref(root);
    }
    json_decref(jsuites);
    free(cb.c);
    if (!rc && ferror(f))
        rc = GB_FAIL(GB_EIO, "writing the calibration");
    return rc;
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
                   : json_is_number(need) ? suggest(json_number_value(need))
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
