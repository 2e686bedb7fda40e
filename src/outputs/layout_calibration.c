/* gpubench — the calibration's JSON file (gpubench-calibration/1) from its document
 * (outputs/calibrate_out.h), through jansson as it always was (indent 2, numbers as reals,
 * counts as integers):
 *   {"runs", "alpha", "threshold", "false_alarms", "no_alarm_threshold", "suggested_command",
 *    "suites": {NAME: {no_alarm_threshold, suggested_threshold, worst_case, worst_params}},
 *    "cases": [{suite, case, backend, device, params, unit, min_median, max_median, noise,
 *               no_alarm_threshold, suggested_threshold, alarms, pairs}]}
 * "schema" first. Thresholds are fractions. `gb_learned_read` (analyses/calibrate.h) reads it
 * back. */
#include "outputs/layout.h"

#include <jansson.h>
#include <stdlib.h>

#include "base/error.h"

static json_t *str(const struct gb_doc_table *t, size_t r, const char *col)
{
    const struct gb_doc_cell *c = gb_doc_cell(t, r, gb__layout_col(t, col));
    char buf[64];
    return json_string(c && c->kind == GB_CELL_TEXT ? c->text : gb_doc_cell_text(c, buf, 64));
}

static json_t *real(const struct gb_doc_table *t, size_t r, const char *col)
{
    return json_real(gb__layout_value(t, r, gb__layout_col(t, col)));
}

static json_t *count(const struct gb_doc_table *t, size_t r, const char *col)
{
    return json_integer((json_int_t)gb__layout_value(t, r, gb__layout_col(t, col)));
}

/* Sets key to v in o; false when either is missing (out of memory). */
static bool put(json_t *o, const char *key, json_t *v)
{
    return o && v && json_object_set_new(o, key, v) == 0;
}

int gb__layout_calibration(FILE *f, const struct gb_doc *d)
{
    const struct gb_doc_table *top = gb__layout_table(d, "calibration"),
                              *cs = gb__layout_table(d, "cases"),
                              *su = gb__layout_table(d, "suites");
    if (!top || !cs || !su || top->nrows != 1)
        return GB_FAIL(GB_EINVAL, "the calibration's document was built without its data");
    json_t *root = json_object(), *suites = json_object(), *cases = json_array();
    bool ok = root && suites && cases;
    for (size_t r = 0; ok && r < su->nrows; r++) {
        json_t *s = json_object();
        ok = put(s, "no_alarm_threshold", real(su, r, "no_alarm_threshold")) &&
             put(s, "suggested_threshold", real(su, r, "suggested_threshold")) &&
             put(s, "worst_case", str(su, r, "case")) &&
             put(s, "worst_params", str(su, r, "params"));
        json_t *name = str(su, r, "suite");
        ok = ok && name && json_object_set_new(suites, json_string_value(name), s) == 0;
        if (!ok)
            json_decref(s);
        json_decref(name);
    }
    static const char *const texts[] = {"suite", "case", "backend", "device", "params", "unit"};
    static const char *const reals[] = {"min_median", "max_median", "noise", "no_alarm_threshold",
                                        "suggested_threshold"};
    for (size_t r = 0; ok && r < cs->nrows; r++) {
        json_t *c = json_object();
        for (size_t i = 0; ok && i < sizeof texts / sizeof *texts; i++)
            ok = put(c, texts[i], str(cs, r, texts[i]));
        for (size_t i = 0; ok && i < sizeof reals / sizeof *reals; i++)
            ok = put(c, reals[i], real(cs, r, reals[i]));
        ok = ok && put(c, "alarms", count(cs, r, "false_alarms")) &&
             put(c, "pairs", count(cs, r, "pairs")) && json_array_append_new(cases, c) == 0;
        if (!ok)
            json_decref(c);
    }
    ok = ok && put(root, "schema", json_string(GB_CALIBRATION_SCHEMA)) &&
         put(root, "runs", count(top, 0, "runs")) && put(root, "alpha", real(top, 0, "alpha")) &&
         put(root, "threshold", real(top, 0, "threshold")) &&
         put(root, "false_alarms", count(top, 0, "false_alarms")) &&
         put(root, "no_alarm_threshold", real(top, 0, "no_alarm_threshold")) &&
         put(root, "suggested_command", str(top, 0, "suggested_command"));
    if (ok) {
        ok = json_object_set(root, "suites", suites) == 0 &&
             json_object_set(root, "cases", cases) == 0;
    }
    json_decref(suites);
    json_decref(cases);
    int rc = 0;
    if (!ok)
        rc = GB_FAIL(GB_ENOMEM, "the calibration's JSON");
    else if (json_dumpf(root, f, JSON_INDENT(2)) != 0)
        rc = GB_FAIL(GB_EIO, "writing the calibration's JSON failed");
    json_decref(root);
    return rc;
}
