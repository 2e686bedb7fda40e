/* gpubench — the fleet's JSON file (gpubench-fleet/1) from its document (outputs/fleet_out.h):
 *   {"schema", "rule": {k, min_deviation, min_nodes, shift_min_cases, shift_floor,
 *    shift_median, shift_limit}, "files", "cases_not_judged", "outlier_nodes",
 *    "nodes": [{node, label, host, file, slot, start_utc, health, outlier_cases,
 *               deviating_cases, shift_cases, shift, shift_low, outlier}],
 *    "cases": [{suite, case, params, device, metric, unit, better, nodes_ok, nodes_failed,
 *               judged, median, mad, min, max, outliers,
 *               "values": [{node, value, deviation, z, flag}]}],
 *    "notes": [...]}
 * written row by row as the document's views make them (never built in memory). */
#include "outputs/layout.h"

#include <stdio.h>
#include <string.h>

#include "analyses/merge.h"
#include "base/error.h"

static void rule(FILE *f, const struct gb_doc_table *fl)
{
    static const char *const keys[] = {"min_deviation", "min_nodes",    "shift_min_cases",
                                       "shift_floor",   "shift_median", "shift_limit"};
    fputs("{\"schema\": \"" GB_FLEET_SCHEMA "\",\n \"rule\": {\"k\": ", f);
    gb__layout_num(f, fl, 0, gb__layout_col(fl, "k"));
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        gb__layout_field(f, fl, 0, keys[i], keys[i], gb__layout_num);
    fputs("},\n \"files\": ", f);
    gb__layout_num(f, fl, 0, gb__layout_col(fl, "files"));
    gb__layout_field(f, fl, 0, "cases_not_judged", "cases_not_judged", gb__layout_num);
    gb__layout_field(f, fl, 0, "outlier_nodes", "outlier_nodes", gb__layout_num);
}

static void nodes(FILE *f, const struct gb_doc_table *t)
{
    static const char *const texts[] = {"label", "host", "file", "slot", "start_utc", "health"};
    static const char *const nums[] = {"outlier_cases", "deviating_cases", "shift_cases", "shift"};
    fputs(",\n \"nodes\": [", f);
    for (size_t m = 0; m < t->nrows; m++) {
        fprintf(f, "%s\n  {\"node\": ", m ? "," : "");
        gb__layout_num(f, t, m, gb__layout_col(t, "node"));
        for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
            gb__layout_field(f, t, m, texts[i], texts[i], gb__layout_str);
        for (size_t i = 0; i < sizeof nums / sizeof *nums; i++)
            gb__layout_field(f, t, m, nums[i], nums[i], gb__layout_num);
        gb__layout_field(f, t, m, "shift_low", "shift_low", gb__layout_bool);
        gb__layout_field(f, t, m, "outlier", "outlier", gb__layout_bool);
        fputc('}', f);
    }
}

/* The case's values from its per-node table. */
static void values(FILE *f, const struct gb_doc_table *t)
{
    size_t node = gb__layout_col(t, "#"), value = gb__layout_col(t, "value"),
           dev = gb__layout_col(t, "deviation"), z = gb__layout_col(t, "z"),
           status = gb__layout_col(t, "status");
    fputs(",\n   \"values\": [", f);
    for (size_t i = 0; i < t->nrows; i++) {
        fprintf(f, "%s{\"node\": ", i ? ", " : "");
        gb__layout_num(f, t, i, node);
        fputs(", \"value\": ", f);
        gb__layout_num(f, t, i, value);
        fputs(", \"deviation\": ", f);
        gb__layout_num(f, t, i, dev);
        fputs(", \"z\": ", f);
        gb__layout_num(f, t, i, z);
        fputs(", \"flag\": ", f);
        gb__layout_str(f, t, i, status);
        fputc('}', f);
    }
    fputc(']', f);
}

static int cases(FILE *f, const struct gb_doc *d, const struct gb_doc_table *t)
{
    static const char *const texts[][2] = {{"case", "name"},     {"params", "params"},
                                           {"device", "device"}, {"metric", "metric"},
                                           {"unit", "unit"},     {"better", "better"}};
    static const char *const nums[][2] = {{"nodes_failed", "nodes failed"},
                                          {"judged", NULL},
                                          {"median", "median"},
                                          {"mad", "mad"},
                                          {"min", "min"},
                                          {"max", "max"},
                                          {"outliers", "outliers"}};
    fputs("],\n \"cases\": [", f);
    for (size_t k = 0; k < t->nrows; k++) {
        const struct gb_doc_table *v = gb__layout_view(d, "fleet", "case", k);
        if (!v)
            return GB_EINVAL;
        gb__layout_suite_row(f, t, k, texts, sizeof texts / sizeof *texts);
        gb__layout_field(f, t, k, "nodes_ok", "nodes", gb__layout_num);
        for (size_t i = 0; i < sizeof nums / sizeof *nums; i++)
            if (nums[i][1])
                gb__layout_field(f, t, k, nums[i][0], nums[i][1], gb__layout_num);
            else
                gb__layout_field(f, t, k, "judged", "judged", gb__layout_bool);
        values(f, v);
        fputc('}', f);
    }
    return 0;
}

int gb__layout_fleet(FILE *f, const struct gb_doc *d)
{
    const struct gb_doc_table *fl = gb__layout_table(d, "fleet"),
                              *nd = gb__layout_table(d, "nodes"),
                              *cs = gb__layout_table(d, "cases"),
                              *notes = gb__layout_table(d, "notes");
    if (!fl || !nd || !cs || !notes || fl->nrows != 1)
        return GB_FAIL(GB_EINVAL, "the fleet's document was built without its data");
    rule(f, fl);
    nodes(f, nd);
    int rc = cases(f, d, cs);
    if (rc)
        return rc;
    gb__layout_end_with_notes(f, notes);
    return 0;
}
