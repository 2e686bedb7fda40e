/* gpubench — the A/A calibration's outputs (contract in calibrate_out.h). */
#include "outputs/calibrate_out.h"

#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "base/util.h"

int gb_calibration_write_text(FILE *f, const struct gb_calibration *c)
{
    fprintf(f,
            "A/A calibration: %zu runs of profile '%s' on host %s, %zu ordered comparisons "
            "per case, alpha %g\n",
            c->nruns, c->profile, c->host, c->comparisons, c->alpha);
    for (size_t i = 0; i < c->nruns; i++)
        fprintf(f, "  run %zu: %s\n", i + 1, c->paths[i]);
    fprintf(f, "%-9s %-10s %-24s %-36s %24s %10s %7s %9s %10s\n", "suite", "case", "device",
            "params", "medians (min..max)", "run-to-run", "noise", "alarms", "no-alarm");
    for (size_t i = 0; i < c->n; i++) {
        const struct gb_calib_case *k = &c->c[i];
        char med[64], alarm[32];
        snprintf(med, sizeof med, "%.4g..%.4g %s", k->min_med, k->max_med, k->unit);
        snprintf(alarm, sizeof alarm, "%zu/%zu", k->alarms, k->pairs);
        fprintf(f, "%-9s %-10s %-24.24s %-36s %24s %9.1f%% %6.1f%% %9s %9.1f%%\n", k->suite,
                k->case_name, k->device, k->params, med,
                k->min_med > 0 ? 100.0 * (k->max_med / k->min_med - 1.0) : 0.0, 100.0 * k->noise,
                alarm, 100.0 * k->needed);
    }
    fprintf(f, "\nrun-to-run: the spread of the medians over the runs (max / min - 1); noise: the "
               "largest within-run relative CI95 half-width;\nalarms: comparisons that would have "
               "failed the gate at the current thresholds; no-alarm: the smallest threshold that "
               "raises none.\n\n");
    fprintf(f,
            "At the current thresholds (default %.3g%%): %zu false alarm%s in %zu of %zu "
            "cases.\n",
            100.0 * c->threshold, c->alarms, c->alarms == 1 ? "" : "s", c->alarm_cases, c->n);
    /* Per suite: the largest no-alarm threshold of its cases (sorted: its first), and its case. */
    fprintf(f, "No false alarm in these runs with thresholds of at least:");
    for (size_t i = 0; i < c->n; i++) {
        if (!gb_calibration_suite_first(c, i))
            continue;
        const struct gb_calib_case *k = &c->c[i];
        fprintf(f, "%s %s %.1f%% (%s%s%s)", i ? "," : "", k->suite, 100.0 * k->needed, k->case_name,
                k->params[0] ? " " : "", k->params);
    }
    fprintf(f, ".\n");
    fprintf(f,
            "Suggested (1.5x margin, rounded up; %zu runs sample the noise only lightly, so "
            "repeat the calibration on a busy day too):\n  %s\n",
            c->nruns, c->command);
    return ferror(f) ? GB_FAIL(GB_EIO, "writing the calibration") : 0;
}

int gb_calibration_write_json(const char *path, const struct gb_calibration *c)
{
    json_t *root = json_object(), *jsuites = json_object(), *cases = json_array();
    for (size_t i = 0; i < c->n; i++) {
        const struct gb_calib_case *k = &c->c[i];
        if (gb_calibration_suite_first(c, i))
            json_object_set_new(jsuites, k->suite,
                                json_pack("{s:f, s:f, s:s, s:s}", "no_alarm_threshold", k->needed,
                                          "suggested_threshold", gb_calibrate_suggest(k->needed),
                                          "worst_case", k->case_name, "worst_params", k->params));
        json_array_append_new(
            cases,
            json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:I, s:I}", "suite",
                      k->suite, "case", k->case_name, "backend", k->backend, "device", k->device,
                      "params", k->params, "unit", k->unit, "min_median", k->min_med, "max_median",
                      k->max_med, "noise", k->noise, "no_alarm_threshold", k->needed,
                      "suggested_threshold", gb_calibrate_suggest(k->needed), "alarms",
                      (json_int_t)k->alarms, "pairs", (json_int_t)k->pairs));
    }
    json_object_set_new(root, "schema", json_string("gpubench-calibration/1"));
    json_object_set_new(root, "runs", json_integer((json_int_t)c->nruns));
    json_object_set_new(root, "alpha", json_real(c->alpha));
    json_object_set_new(root, "threshold", json_real(c->threshold));
    json_object_set_new(root, "false_alarms", json_integer((json_int_t)c->alarms));
    json_object_set_new(root, "no_alarm_threshold", json_real(c->no_alarm));
    json_object_set_new(root, "suggested_command", json_string(c->command));
    json_object_set_new(root, "suites", jsuites);
    json_object_set_new(root, "cases", cases);
    int rc = 0;
    if (!root || !jsuites || !cases)
        rc = GB_FAIL(GB_ENOMEM, "the calibration's JSON");
    else if (json_dump_file(root, path, JSON_INDENT(2)) != 0)
        rc = gb_error_set(GB_EIO, NULL, 0, "cannot write %s: %s", path, strerror(errno));
    json_decref(root);
    return rc;
}

static int case_row(struct gb_doc_table *t, const struct gb_calib_case *k)
{
    size_t r;
    int rc = gb_doc_row(t, &r);
    if (!rc)
        rc = gb_doc_text(t, r, 0, "%s", k->suite);
    if (!rc)
        rc = gb_doc_text(t, r, 1, "%s", k->case_name);
    if (!rc)
        rc = gb_doc_text(t, r, 2, "%s", k->device);
    if (!rc)
        rc = gb_doc_text(t, r, 3, "%s", k->params);
    if (!rc)
        rc = gb_doc_text(t, r, 4, "%.4g..%.4g %s", k->min_med, k->max_med, k->unit);
    gb_doc_num(t, r, 5, k->min_med > 0 ? 100.0 * (k->max_med / k->min_med - 1.0) : 0.0, 1);
    gb_doc_num(t, r, 6, 100.0 * k->noise, 1);
    if (!rc)
        rc = gb_doc_text(t, r, 7, "%zu/%zu", k->alarms, k->pairs);
    gb_doc_num(t, r, 8, 100.0 * k->needed, 1);
    return rc;
}

int gb_calibration_doc(const struct gb_calibration *c, struct gb_doc *d)
{
    static const char *const cols[] = {"suite",        "case",    "device", "params",    "medians",
                                       "run-to-run %", "noise %", "alarms", "no-alarm %"};
    static const char *const scols[] = {"suite", "no-alarm %", "suggested %", "case", "params"};
    char title[512];
    snprintf(title, sizeof title, "A/A calibration: %zu runs of profile '%s' on host %s", c->nruns,
             c->profile, c->host);
    int rc = gb_doc_init(d, "gpubench-calibration-doc/1", title);
    if (!rc)
        rc = gb_doc_note(d, "suggested: %s", c->command);
    struct gb_doc_table *t = NULL;
    if (!rc)
        rc = gb_doc_table(d, "cases", "cases", cols, 9, &t);
    for (size_t k = 5; !rc && k < 9; k++)
        gb_doc_column_set(t, k, k != 7, false);
    for (size_t i = 0; !rc && i < c->n; i++)
        rc = case_row(t, &c->c[i]);
    if (!rc)
        rc = gb_doc_table(d, "suites", "suites", scols, 5, &t);
    for (size_t i = 0; !rc && i < c->n; i++) {
        const struct gb_calib_case *k = &c->c[i];
        size_t r;
        if (!gb_calibration_suite_first(c, i))
            continue;
        if ((rc = gb_doc_row(t, &r)) || (rc = gb_doc_text(t, r, 0, "%s", k->suite)))
            break;
        gb_doc_num(t, r, 1, 100.0 * k->needed, 1);
        gb_doc_num(t, r, 2, 100.0 * gb_calibrate_suggest(k->needed), 0);
        if (!rc)
            rc = gb_doc_text(t, r, 3, "%s", k->case_name);
        if (!rc)
            rc = gb_doc_text(t, r, 4, "%s", k->params);
    }
    for (size_t i = 0; !rc && i < c->n; i++) {
        const struct gb_calib_case *k = &c->c[i];
        char name[900], msg[96];
        snprintf(name, sizeof name, "%s %s %s", k->case_name, k->device, k->params);
        snprintf(msg, sizeof msg, "%zu false alarm%s in %zu comparisons", k->alarms,
                 k->alarms == 1 ? "" : "s", k->pairs);
        rc = gb_doc_check(d, k->suite, name, k->alarms ? GB_CHECK_FAIL : GB_CHECK_PASS,
                          k->alarms ? msg : NULL);
    }
    if (!rc)
        rc = gb_doc_verdict(d, "%zu false alarm%s in %zu of %zu cases at the current thresholds",
                            c->alarms, c->alarms == 1 ? "" : "s", c->alarm_cases, c->n);
    return rc;
}

int gb_calibrate_report(FILE *f, const struct gb_results *runs, const char *const *paths, size_t n,
                        const struct gb_compare_opts *o, const char *json_path)
{
    struct gb_calibration c;
    int rc = gb_calibrate(runs, paths, n, o, &c);
    if (!rc)
        rc = gb_calibration_write_text(f, &c);
    if (!rc && json_path)
        rc = gb_calibration_write_json(json_path, &c);
    gb_calibration_free(&c);
    return rc;
}
