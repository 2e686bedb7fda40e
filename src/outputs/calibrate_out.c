/* gpubench — the A/A calibration's document (contract in calibrate_out.h). */
#include "outputs/calibrate_out.h"

#include <string.h>

#include "base/error.h"
#include "base/util.h"

/* The cases: the columns shown, then the data of the JSON file (gpubench-calibration/1). */
static const char *const case_cols[] = {"suite",
                                        "case",
                                        "device",
                                        "params",
                                        "medians",
                                        "run-to-run %",
                                        "noise %",
                                        "alarms",
                                        "no-alarm %",
                                        "backend",
                                        "unit",
                                        "min_median",
                                        "max_median",
                                        "noise",
                                        "no_alarm_threshold",
                                        "suggested_threshold",
                                        "false_alarms",
                                        "pairs"};
#define CASES_SHOWN 9

static int case_row(struct gb_doc_table *t, const struct gb_calib_case *k)
{
    size_t r;
    int rc = gb_doc_row(t, &r);
    const char *texts[] = {k->suite, k->case_name, k->device, k->params,  NULL,   NULL,
                           NULL,     NULL,         NULL,      k->backend, k->unit};
    for (size_t c = 0; !rc && c < sizeof texts / sizeof *texts; c++)
        if (texts[c])
            rc = gb_doc_text(t, r, c, "%s", texts[c]);
    if (!rc)
        rc = gb_doc_text(t, r, 4, "%.4g..%.4g %s", k->min_med, k->max_med, k->unit);
    gb_doc_num(t, r, 5, k->min_med > 0 ? 100.0 * (k->max_med / k->min_med - 1.0) : 0.0, 1);
    gb_doc_num(t, r, 6, 100.0 * k->noise, 1);
    if (!rc)
        rc = gb_doc_text(t, r, 7, "%zu/%zu", k->alarms, k->pairs);
    gb_doc_num(t, r, 8, 100.0 * k->needed, 1);
    gb_doc_num(t, r, 11, k->min_med, -1);
    gb_doc_num(t, r, 12, k->max_med, -1);
    gb_doc_num(t, r, 13, k->noise, -1);
    gb_doc_num(t, r, 14, k->needed, -1);
    gb_doc_num(t, r, 15, gb_calibrate_suggest(k->needed), -1);
    gb_doc_num(t, r, 16, (double)k->alarms, 0);
    gb_doc_num(t, r, 17, (double)k->pairs, 0);
    return rc;
}

/* The notes: the runs, what the columns mean, the alarms at the current thresholds, the
 * smallest threshold per suite and the suggested command. */
static int notes(const struct gb_calibration *c, struct gb_doc *d)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < c->nruns; i++)
        rc = gb_doc_note(d, "  run %zu: %s", i + 1, c->paths[i]);
    for (const char *s = c->left_out; !rc && *s;) {
        size_t l = strcspn(s, "\n");
        rc = gb_doc_note(d, "%.*s", (int)l, s);
        s += l + (s[l] == '\n');
    }
    if (!rc)
        rc = gb_doc_note(d, "run-to-run: the spread of the medians over the runs (max / min - 1); "
                            "noise: the largest within-run relative CI95 half-width; alarms: "
                            "comparisons that would have failed the gate at the current "
                            "thresholds; no-alarm: the smallest threshold that raises none.");
    if (!rc)
        rc = gb_doc_note(d,
                         "At the current thresholds (default %.3g%%): %zu false alarm%s in %zu of "
                         "%zu cases.",
                         100.0 * c->threshold, c->alarms, c->alarms == 1 ? "" : "s", c->alarm_cases,
                         c->n);
    /* Per suite: the largest no-alarm threshold of its cases (sorted: its first), and its case. */
    char line[4096] = "No false alarm in these runs with thresholds of at least:";
    for (size_t i = 0; i < c->n; i++) {
        if (!gb_calibration_suite_first(c, i))
            continue;
        const struct gb_calib_case *k = &c->c[i];
        gb_appendf(line, sizeof line, "%s %s %.1f%% (%s%s%s)", i ? "," : "", k->suite,
                   100.0 * k->needed, k->case_name, k->params[0] ? " " : "", k->params);
    }
    if (!rc)
        rc = gb_doc_note(d, "%s.", line);
    if (!rc)
        rc = gb_doc_note(d,
                         "Suggested (1.5x margin, rounded up; %zu runs sample the noise only "
                         "lightly, so repeat the calibration on a busy day too):\n  %s",
                         c->nruns, c->command);
    return rc;
}

/* The data of the JSON file's top level ("calibration", one row). */
static int calibration_row(const struct gb_calibration *c, struct gb_doc *d)
{
    static const char *const cols[] = {
        "runs", "alpha", "threshold", "false_alarms", "no_alarm_threshold", "suggested_command"};
    struct gb_doc_table *t;
    size_t r;
    int rc = gb_doc_table(d, "calibration", "the calibration", cols, 6, &t);
    if (rc || (rc = gb_doc_row(t, &r)))
        return rc;
    t->data = true;
    gb_doc_num(t, r, 0, (double)c->nruns, 0);
    gb_doc_num(t, r, 1, c->alpha, -1);
    gb_doc_num(t, r, 2, c->threshold, -1);
    gb_doc_num(t, r, 3, (double)c->alarms, 0);
    gb_doc_num(t, r, 4, c->no_alarm, -1);
    return gb_doc_text(t, r, 5, "%s", c->command);
}

int gb_calibration_doc(const struct gb_calibration *c, bool checks, struct gb_doc *d)
{
    static const char *const scols[] = {
        "suite",  "no-alarm %",         "suggested %",        "case",
        "params", "no_alarm_threshold", "suggested_threshold"};
    char title[640];
    snprintf(title, sizeof title,
             "A/A calibration: %zu runs of profile '%s' on host %s, %zu ordered comparisons per "
             "case, alpha %g",
             c->nruns, c->profile, c->host, c->comparisons, c->alpha);
    int rc = gb_doc_init(d, GB_CALIBRATION_SCHEMA, title);
    if (!rc)
        rc = notes(c, d);
    struct gb_doc_table *t = NULL;
    if (!rc)
        rc = gb_doc_table(d, "cases", "cases", case_cols, sizeof case_cols / sizeof *case_cols, &t);
    for (size_t k = 5; !rc && k < t->ncols; k++) {
        gb_doc_column_set(t, k, k != 7 && k != 9 && k != 10, false);
        if (k >= CASES_SHOWN)
            gb_doc_column_data(t, k);
    }
    if (!rc) {
        gb_doc_column_set(t, 2, false, true);
        gb_doc_column_set(t, 3, false, true);
        /* The medians' range and the alarms ("2/6") change with the runs: no labels. */
        gb_doc_column_prose(t, 4);
        gb_doc_column_prose(t, 7);
        rc = gb_doc_column_unit(t, 5, "%", 0) || gb_doc_column_unit(t, 6, "%", 0) ||
             gb_doc_column_unit(t, 8, "%", 0);
    }
    for (size_t i = 0; !rc && i < c->n; i++)
        rc = case_row(t, &c->c[i]);
    if (!rc)
        rc = gb_doc_table(d, "suites", "suites", scols, 7, &t);
    for (size_t k = 1; !rc && k < 7; k++) {
        gb_doc_column_set(t, k, k < 3 || k > 4, false);
        if (k > 4)
            gb_doc_column_data(t, k);
    }
    if (!rc)
        rc = gb_doc_column_unit(t, 1, "%", 0) || gb_doc_column_unit(t, 2, "%", 0);
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
        gb_doc_num(t, r, 5, k->needed, -1);
        gb_doc_num(t, r, 6, gb_calibrate_suggest(k->needed), -1);
    }
    if (!rc)
        rc = calibration_row(c, d);
    for (size_t i = 0; !rc && checks && i < c->n; i++) {
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
