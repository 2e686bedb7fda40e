/* gpubench — the history's JSON file (gpubench-history/1) from its document
 * (outputs/fleet_out.h):
 *   {"schema", "rule": {method, alpha, threshold, min_nights},
 *    "nights": [{night, path, start_utc, gpubench_version, git_commit, profile_sha256, host,
 *                interrupted}],
 *    "series": [{suite, case, params, device, slot, metric, unit, better, nights_ok, noise,
 *                "value": [...], "p5": [...], "p95": [...] (a night each; null when not ok),
 *                "changes": [{night, previous_night, before, after, change, p,
 *                             also_changed}]}],
 *    "notes": [...]} */
#include "outputs/layout.h"

#include <stdio.h>

#include "analyses/merge.h"
#include "base/error.h"
#include "base/util.h"

static void nights(FILE *f, const struct gb_doc_table *t)
{
    static const char *const texts[] = {"path",       "start_utc",      "gpubench_version",
                                        "git_commit", "profile_sha256", "host"};
    fputs(",\n \"nights\": [", f);
    for (size_t r = 0; r < t->nrows; r++) {
        fprintf(f, "%s\n  {\"night\": ", r ? "," : "");
        gb__layout_num(f, t, r, gb__layout_col(t, "night"));
        for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
            gb__layout_field(f, t, r, texts[i], texts[i], gb__layout_str);
        gb__layout_field(f, t, r, "interrupted", "interrupted", gb__layout_bool);
        fputc('}', f);
    }
}

/* Series k's changes: the rows of "changes" whose series is k, from *next on (they come in the
 * order of the series). */
static void changes(FILE *f, const struct gb_doc_table *ch, size_t k, size_t *next)
{
    size_t series = gb__layout_col(ch, "series");
    fputs(",\n   \"changes\": [", f);
    for (size_t i = 0; *next < ch->nrows && gb__layout_value(ch, *next, series) == (double)k;
         (*next)++, i++) {
        size_t r = *next;
        fprintf(f, "%s{\"night\": ", i ? ", " : "");
        gb__layout_num(f, ch, r, gb__layout_col(ch, "night"));
        gb__layout_field(f, ch, r, "previous_night", "previous night", gb__layout_num);
        gb__layout_field(f, ch, r, "before", "before", gb__layout_num);
        gb__layout_field(f, ch, r, "after", "after", gb__layout_num);
        gb__layout_field(f, ch, r, "change", "change", gb__layout_num);
        gb__layout_field(f, ch, r, "p", "p", gb__layout_num);
        gb__layout_field(f, ch, r, "also_changed", "what", gb__layout_str);
        fputc('}', f);
    }
    fputc(']', f);
}

static int series(FILE *f, const struct gb_doc *d, const struct gb_doc_table *cs,
                  const struct gb_doc_table *ch, size_t nnights)
{
    static const char *const texts[][2] = {
        {"case", "name"},     {"params", "params"}, {"device", "device"}, {"slot", "slot"},
        {"metric", "metric"}, {"unit", "unit"},     {"better", "better"}};
    static const char *const arrays[] = {"value", "p5", "p95"};
    size_t next = 0;
    fputs("],\n \"series\": [", f);
    for (size_t k = 0; k < cs->nrows; k++) {
        const struct gb_doc_table *v = gb__layout_view(d, "history", "series", k);
        if (!v)
            return GB_EINVAL;
        gb__layout_suite_row(f, cs, k, texts, sizeof texts / sizeof *texts);
        gb__layout_field(f, cs, k, "nights_ok", "ok", gb__layout_num);
        gb__layout_field(f, cs, k, "noise", "noise", gb__layout_num);
        /* A night each: the view's rows are the nights it ran (its column "night", 1-based). */
        size_t night = gb__layout_col(v, "night");
        for (size_t w = 0; w < 3; w++) {
            size_t c = gb__layout_col(v, arrays[w]), r = 0;
            fprintf(f, ",\n   \"%s\": [", arrays[w]);
            for (size_t n = 0; n < nnights; n++) {
                fputs(n ? ", " : "", f);
                if (r < v->nrows && gb__layout_value(v, r, night) == (double)(n + 1))
                    gb__layout_num(f, v, r++, c);
                else
                    fputs("null", f);
            }
            fputc(']', f);
        }
        changes(f, ch, k, &next);
        fputc('}', f);
    }
    return 0;
}

int gb__layout_history(FILE *f, const struct gb_doc *d)
{
    const struct gb_doc_table *rule = gb__layout_table(d, "history"),
                              *nt = gb__layout_table(d, "nights"),
                              *cs = gb__layout_table(d, "cases"),
                              *ch = gb__layout_table(d, "changes"),
                              *notes = gb__layout_table(d, "notes");
    if (!rule || !nt || !cs || !ch || !notes || rule->nrows != 1)
        return GB_FAIL(GB_EINVAL, "the history's document was built without its data");
    fputs("{\"schema\": \"" GB_HISTORY_SCHEMA "\",\n \"rule\": {\"method\": ", f);
    gb__layout_str(f, rule, 0, gb__layout_col(rule, "method"));
    gb__layout_field(f, rule, 0, "alpha", "alpha", gb__layout_num);
    gb__layout_field(f, rule, 0, "threshold", "threshold", gb__layout_num);
    gb__layout_field(f, rule, 0, "min_nights", "min_nights", gb__layout_num);
    fputc('}', f);
    nights(f, nt);
    int rc = series(f, d, cs, ch, nt->nrows);
    if (rc)
        return rc;
    gb__layout_end_with_notes(f, notes);
    return 0;
}

/* history --csv: the header, then a row per case and night it ran (the view "points"), as the
 * file was before its document: RFC 4180 fields (gb_fputs_csv), LF line ends, the night 1-based,
 * value, p5 and p95 in full precision and empty unless the night was ok, change 1 at a change
 * point. */
int gb__layout_history_csv(FILE *f, const struct gb_doc *d)
{
    static const char *const texts[] = {"suite", "case", "params", "device",
                                        "slot",  "unit", "night",  "start_utc"};
    const struct gb_doc_table *t = gb__layout_table(d, "points");
    if (!t)
        return GB_FAIL(GB_EINVAL, "the history's document has no table points");
    char buf[1100];
    fputs("suite,case,params,device,slot,unit,night,start_utc,status,value,p5,p95,change\n", f);
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
            gb_fputs_csv(f, gb_doc_cell_text(gb_doc_cell(t, r, gb__layout_col(t, texts[i])), buf,
                                             sizeof buf));
            fputc(',', f);
        }
        gb_fputs_csv(
            f, gb_doc_cell_text(gb_doc_cell(t, r, gb__layout_col(t, "status")), buf, sizeof buf));
        static const char *const nums[] = {"value", "p5", "p95"};
        for (size_t i = 0; i < 3; i++) {
            double v = gb__layout_value(t, r, gb__layout_col(t, nums[i]));
            if (v == v)
                fprintf(f, ",%.17g", v);
            else
                fputc(',', f);
        }
        fprintf(f, ",%d\n", gb__layout_value(t, r, gb__layout_col(t, "change")) == 1 ? 1 : 0);
    }
    return 0;
}
