/* gpubench — the run's summary (contract in summary_out.h). */
#include "outputs/summary_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "analyses/merge.h"
#include "base/units.h"
#include "base/util.h"
#include "run/suite.h"
#include "suites/suites.h"

/* The params of one suite's results: names in order of first appearance, and whether each
 * varies (two results with different values, or one without it). */
struct axes {
    const char *name[GB_MAX_AXES * 2];
    bool varies[GB_MAX_AXES * 2];
    char first[GB_MAX_AXES * 2][GB_STR_MAX + 32];
    size_t n;
};

/* The params of text "k=v k=v" into p, each typed as the axis of s of its name takes it (a
 * string where s lacks the axis or the text does not read as its type); names point into
 * names[] or to the axes. */
static void params_from_text(const struct gb_suite *s, const char *text, struct gb_params *p,
                             char (*names)[GB_STR_MAX])
{
    p->n = 0;
    for (const char *t = text; t && *t && p->n < GB_MAX_AXES;) {
        t += strspn(t, " ");
        const size_t n = strcspn(t, " ");
        const char *eq = memchr(t, '=', n);
        if (eq && n) {
            struct gb_value *v = &p->v[p->n];
            memset(v, 0, sizeof *v);
            snprintf(names[p->n], GB_STR_MAX, "%.*s", (int)(eq - t), t);
            snprintf(v->s, sizeof v->s, "%.*s", (int)(n - (size_t)(eq + 1 - t)), eq + 1);
            const struct gb_axis_def *a = s ? gb_suite_axis(s, names[p->n]) : NULL;
            p->name[p->n] = a ? a->name : names[p->n];
            char *end = v->s;
            v->type = GB_V_STR;
            if (a && a->type == GB_V_SIZE && gb_parse_size(v->s, &v->u.size) == 0)
                v->type = GB_V_SIZE;
            else if (a && a->type == GB_V_INT)
                v->u.i = strtoll(v->s, &end, 10);
            else if (a && a->type == GB_V_FLOAT)
                v->u.f = strtod(v->s, &end);
            else if (a && a->type == GB_V_BOOL && (!strcmp(v->s, "true") || !strcmp(v->s, "false")))
                v->type = GB_V_BOOL, v->u.b = v->s[0] == 't';
            if (end != v->s && !*end)
                v->type = a->type;
            p->n++;
        }
        t += n;
    }
}

void gb_params_for_people(const char *suite, const char *params, char *buf, size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    const struct gb_suite *s = gb_suite_table_find(gb_suites_builtin(), suite);
    struct gb_params p;
    char names[GB_MAX_AXES][GB_STR_MAX];
    params_from_text(s, params, &p, names);
    size_t j = 0; /* the params parsed so far: the k=v items in order */
    for (const char *t = params; t && *t;) {
        t += strspn(t, " ");
        const size_t n = strcspn(t, " ");
        bool drop = false;
        if (n && memchr(t, '=', n) && j < p.n) {
            drop = !gb_suite_param_applies(s, &p, p.name[j], &p.v[j]);
            j++;
        }
        if (n && !drop)
            gb_appendf(buf, len, "%s%.*s", buf[0] ? " " : "", (int)n, t);
        t += n;
    }
}

/* The text of param `name` of r ("" when the case marks it "none" or a value the axis never
 * takes, or r has none; a string axis whose results omit it at its default shows that default:
 * the serve suite's Server rows read "Server" beside SingleStream's). */
static const char *param_text(const struct gb_result *r, const char *name, char *buf, size_t len)
{
    buf[0] = '\0';
    const size_t kase = gb_result_case_param(r);
    for (size_t j = 0; j < r->params.n && j < GB_MAX_AXES; j++)
        if (j != kase && r->params.name[j] && strcmp(r->params.name[j], name) == 0) {
            const struct gb_value *v = &r->params.v[j];
            const struct gb_suite *s = gb_suite_table_find(gb_suites_builtin(), r->suite);
            if (gb_suite_param_applies(s, &r->params, name, v))
                gb_value_format(v, buf, len);
            return buf;
        }
    const struct gb_suite *s = gb_suite_table_find(gb_suites_builtin(), r->suite);
    const struct gb_axis_def *a = s ? gb_suite_axis(s, name) : NULL;
    if (a && a->type == GB_V_STR && a->omit_default && a->def && a->def[0] != '[')
        snprintf(buf, len, "%s", a->def);
    return buf;
}

static void suite_axes(const struct gb_results *rs, const char *suite, struct axes *ax)
{
    memset(ax, 0, sizeof *ax);
    size_t seen = 0;
    for (size_t i = 0; i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        if (strcmp(r->suite, suite) != 0)
            continue;
        const size_t kase = gb_result_case_param(r);
        for (size_t j = 0; j < r->params.n && j < GB_MAX_AXES; j++) {
            if (j == kase)
                continue;
            size_t k = 0;
            while (k < ax->n && strcmp(ax->name[k], r->params.name[j]) != 0)
                k++;
            if (k == ax->n && ax->n < GB_MAX_AXES * 2) {
                ax->name[ax->n] = r->params.name[j];
                ax->varies[ax->n] = seen > 0; /* the earlier results lack it */
                param_text(r, r->params.name[j], ax->first[ax->n], sizeof ax->first[0]);
                ax->n++;
            }
        }
        char buf[GB_STR_MAX + 32];
        for (size_t k = 0; k < ax->n; k++)
            if (!ax->varies[k] &&
                strcmp(param_text(r, ax->name[k], buf, sizeof buf), ax->first[k]) != 0)
                ax->varies[k] = true;
        seen++;
    }
}

/* "opencl:0 NAME" (the name whole: a title wraps, a table cell is fitted by the text writer,
 * and a file's reader wants it all), or "opencl:0+1" for a device set; "opencl:0" alone where
 * `bare` (a table whose other rows name device sets by their indices). */
static void device_label(const struct gb_results *rs, const struct gb_result *r, bool bare,
                         char *buf, size_t len)
{
    const struct gb_result_device *d =
        r->device_index >= 0 && (size_t)r->device_index < rs->ndevices
            ? &rs->devices[r->device_index]
            : NULL;
    const char *name = d ? d->info.name : "?";
    snprintf(buf, len, "%s:%d %s", r->backend, d ? d->index : -1, name);
    if (bare && r->nset <= 1)
        snprintf(buf, len, "%s:%d", r->backend, d ? d->index : -1);
    if (r->nset > 1) {
        snprintf(buf, len, "%s:", r->backend);
        for (size_t k = 0; k < r->nset && k < GB_MAX_SET; k++) {
            int s = r->set[k];
            int bi = s >= 0 && (size_t)s < rs->ndevices ? rs->devices[s].index : -1;
            gb_appendf(buf, len, "%s%d", k ? "+" : "", bi);
        }
    }
}

static bool many_devices(const struct gb_results *rs, const char *suite)
{
    char first[320] = "", dev[320];
    bool any = false;
    for (size_t i = 0; i < rs->nresults; i++) {
        if (strcmp(rs->results[i].suite, suite) != 0)
            continue;
        device_label(rs, &rs->results[i], false, dev, sizeof dev);
        if (any && strcmp(dev, first) != 0)
            return true;
        snprintf(first, sizeof first, "%s", dev);
        any = true;
    }
    return false;
}

/* Figure fg's number and unit: in its unit, unscaled, where its name ends in it ("tpot_p50_ms":
 * "0.829 ms", not "829 us"), so that the number reads as its name says; else engineering
 * notation (gb_format_eng). */
static void figure_number(const struct gb_figure *fg, char *buf, size_t len)
{
    const size_t nl = strlen(fg->name), ul = strlen(fg->unit);
    if (ul && nl > ul + 1 && fg->name[nl - ul - 1] == '_' &&
        strcmp(fg->name + nl - ul, fg->unit) == 0) {
        const double a = fabs(fg->v[0]);
        if (a >= 1000 || a == 0 || !isfinite(a))
            snprintf(buf, len, "%.0f %s", fg->v[0], fg->unit);
        else
            snprintf(buf, len, "%.3g %s", fg->v[0], fg->unit);
        return;
    }
    gb_format_eng(fg->v[0], fg->unit, 3, buf, len);
}

/* The numeric figures of r, "name=value unit", whole items only; text figures become
 * footnotes of the cell. */
static int figures_cell(struct gb_doc_table *t, size_t row, size_t col, const struct gb_result *r)
{
    char figs[320] = "";
    int rc = 0;
    for (size_t k = 0; !rc && k < r->nfigures; k++) {
        const struct gb_figure *fg = &r->figures[k];
        char item[160] = "";
        if (fg->n == 0) {
            char note[256];
            snprintf(note, sizeof note, "%s: %s", fg->name, fg->text);
            rc = gb_doc_footnote(t, row, col, note);
            continue;
        }
        if (fg->per_device)
            continue;
        char num[64];
        figure_number(fg, num, sizeof num);
        snprintf(item, sizeof item, "%s%s=%s", figs[0] ? " " : "", fg->name, num);
        if (strlen(figs) + strlen(item) + 5 > sizeof figs) {
            gb_appendf(figs, sizeof figs, " ...");
            break;
        }
        gb_appendf(figs, sizeof figs, "%s", item);
    }
    return rc ? rc : gb_doc_text(t, row, col, "%s", figs);
}

/* Columns after the case, device and param columns. */
enum { C_STATUS, C_VALUE, C_UNIT, C_CI, C_OPUS, C_FIGS, C_FIXED };
static const char *const fixed_cols[C_FIXED] = {"status", "value", "unit",
                                                "ci95 %", "op us", "figures"};

/* Whether a result of `suite` ran on a device set. */
static bool any_set(const struct gb_results *rs, const char *suite)
{
    for (size_t i = 0; i < rs->nresults; i++)
        if (rs->results[i].nset > 1 && strcmp(rs->results[i].suite, suite) == 0)
            return true;
    return false;
}

static int result_row(const struct gb_results *rs, const struct gb_result *r,
                      struct gb_doc_table *t, const struct axes *ax, bool devs)
{
    size_t row, c = 0;
    int rc = gb_doc_row(t, &row);
    if (rc)
        return rc;
    rc = gb_doc_text(t, row, c++, "%s", r->case_name);
    char buf[320];
    if (!rc && devs) {
        device_label(rs, r, any_set(rs, r->suite), buf, sizeof buf);
        rc = gb_doc_text(t, row, c++, "%s", buf);
    }
    for (size_t k = 0; !rc && k < ax->n; k++)
        if (ax->varies[k])
            rc = gb_doc_text(t, row, c++, "%s", param_text(r, ax->name[k], buf, sizeof buf));
    const size_t s = c;
    if (rc)
        return rc;
    if (r->status != GB_STATUS_OK) {
        /* the reason's first line whole: the text writer wraps a footnote at word boundaries */
        int len = (int)strcspn(r->reason, "\n");
        char why[1024];
        snprintf(why, sizeof why, "%.*s%s", len > 1000 ? 1000 : len, r->reason,
                 len > 1000 || r->reason[len] ? " ..." : "");
        rc = gb_doc_text(t, row, s + C_STATUS, "%s", gb_status_name(r->status));
        return rc ? rc : gb_doc_footnote(t, row, s + C_STATUS, why);
    }
    rc = gb_doc_text(t, row, s + C_STATUS, "%s", r->noisy ? "ok/noisy" : "ok");
    /* Three decimals; a value under 0.1 (a collective's GB/s at 8 bytes) three significant
     * figures instead, so that it does not read 0.000 ("1.23e-05"). */
    gb_doc_num(t, row, s + C_VALUE, r->value, r->value != 0 && fabs(r->value) < 0.1 ? -1 : 3);
    if (!rc)
        rc = gb_doc_text(t, row, s + C_UNIT, "%s", r->unit);
    gb_doc_num(t, row, s + C_CI, r->stats.mean > 0 ? 100 * r->stats.ci95 / r->stats.mean : 0.0, 1);
    if (!rc)
        rc = gb_doc_num_unit(t, row, s + C_OPUS, r->op_time_us.median, 3, "us");
    if (!rc)
        rc = figures_cell(t, row, s + C_FIGS, r);
    if (!rc && r->implausible)
        rc = gb_doc_footnote(t, row, s + C_STATUS, r->reason[0] ? r->reason : "implausible");
    if (!rc && !r->verified)
        rc = gb_doc_footnote(t, row, s + C_STATUS, "unverified: the output was not checked");
    if (!rc && r->tel.nthrottled) {
        snprintf(buf, sizeof buf, "throttled: %zu of %zu samples ran while the device throttled%s",
                 r->tel.nthrottled, r->tel.nmarks ? r->tel.nmarks : r->nsamples + r->tel.ndiscarded,
                 r->tel.ndiscarded ? " (discarded)" : "");
        rc = gb_doc_footnote(t, row, s + C_STATUS, buf);
    }
    return rc;
}

static int suite_table(const struct gb_results *rs, const char *suite, struct gb_doc *d)
{
    struct axes ax;
    suite_axes(rs, suite, &ax);
    const bool devs = many_devices(rs, suite);
    const char *names[2 + GB_MAX_AXES * 2 + C_FIXED];
    size_t n = 0;
    names[n++] = "case";
    if (devs)
        names[n++] = "device";
    char title[512];
    snprintf(title, sizeof title, "%s", suite);
    bool any_const = false;
    char dev[320] = "";
    if (!devs)
        for (size_t i = 0; i < rs->nresults && !dev[0]; i++)
            if (strcmp(rs->results[i].suite, suite) == 0)
                device_label(rs, &rs->results[i], false, dev, sizeof dev);
    for (size_t k = 0; k < ax.n; k++) {
        if (ax.varies[k])
            names[n++] = ax.name[k];
        else if (ax.first[k][0]) {
            gb_appendf(title, sizeof title, "%s%s=%s", any_const ? " " : " (", ax.name[k],
                       ax.first[k]);
            any_const = true;
        }
    }
    if (any_const)
        gb_appendf(title, sizeof title, ")");
    if (dev[0])
        gb_appendf(title, sizeof title, " on %s", dev);
    const size_t first_fixed = n;
    for (size_t k = 0; k < C_FIXED; k++)
        names[n++] = fixed_cols[k];
    struct gb_doc_table *t;
    int rc = gb_doc_table(d, suite, title, names, n, &t);
    if (rc)
        return rc;
    gb_doc_column_set(t, first_fixed + C_VALUE, true, false);
    gb_doc_column_set(t, first_fixed + C_CI, true, false);
    gb_doc_column_set(t, first_fixed + C_OPUS, true, false);
    gb_doc_column_set(t, first_fixed + C_FIGS, false, true);
    rc = gb_doc_column_label(t, first_fixed + C_OPUS, "op time");
    for (size_t i = 0; !rc && i < rs->nresults; i++)
        if (strcmp(rs->results[i].suite, suite) == 0)
            rc = result_row(rs, &rs->results[i], t, &ax, devs);
    return rc;
}

int gb_summary_doc(const struct gb_results *rs, struct gb_doc *d)
{
    int rc = gb_doc_init(d, "gpubench-summary/1", "");
    /* The suites in the order they first appear: the distinct names are few, so a look-up over
     * them (not over every earlier result) finds whether a suite is new. */
    const char **seen = calloc(rs->nresults ? rs->nresults : 1, sizeof *seen);
    size_t nseen = 0;
    if (!rc && !seen)
        rc = GB_ENOMEM;
    for (size_t i = 0; !rc && i < rs->nresults; i++) {
        const char *s = rs->results[i].suite;
        size_t k = 0;
        while (k < nseen && strcmp(seen[k], s) != 0)
            k++;
        if (k < nseen)
            continue;
        seen[nseen++] = s;
        rc = suite_table(rs, s, d);
    }
    free(seen);
    return rc;
}

/* ---- every result as one row: the machine table of a run ------------------------------------ */

/* The columns before and after the params. */
static const char *const lead_cols[] = {"suite", "case"};
static const char *const tail_cols[] = {"backend",  "device", "uuid",  "status",  "value",
                                        "unit",     "ci95 %", "op us", "samples", "ok",
                                        "verified", "noisy",  "reason"};
enum {
    M_BACKEND,
    M_DEVICE,
    M_UUID,
    M_STATUS,
    M_VALUE,
    M_UNIT,
    M_CI,
    M_OPUS,
    M_SAMPLES,
    M_OK,
    M_VERIFIED,
    M_NOISY,
    M_REASON,
    M_NTAIL
};

/* The params of rs's results but the case's, by name in order of first appearance: *names (the
 * results' own strings) and *n. GB_ENOMEM or 0. */
static int param_names(const struct gb_results *rs, const char ***names, size_t *n)
{
    struct gb_strtab seen = {0};
    int rc = 0;
    for (size_t i = 0; !rc && i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        const size_t kase = gb_result_case_param(r);
        for (size_t j = 0; !rc && j < r->params.n && j < GB_MAX_AXES; j++)
            if (j != kase && r->params.name[j] &&
                gb_strtab_intern(&seen, r->params.name[j], NULL) < 0)
                rc = GB_ENOMEM;
    }
    *n = seen.n;
    *names = calloc(seen.n ? seen.n : 1, sizeof **names);
    if (!*names)
        rc = GB_ENOMEM;
    for (size_t k = 0; !rc && k < seen.n; k++) {
        (*names)[k] = strdup(gb_strtab_get(&seen, k));
        if (!(*names)[k])
            rc = GB_ENOMEM;
    }
    gb_strtab_free(&seen);
    return rc;
}

/* The value of param `name` of r as a machine reads it (a size in bytes, a number in full); an
 * omit_default axis that r leaves out at its default (suite known to this build) reads as that
 * default, so that every row says it (serve's Server rows "Server"); "" when r has none. */
static const char *param_value(const struct gb_result *r, const char *name, char *buf, size_t len)
{
    buf[0] = '\0';
    const size_t kase = gb_result_case_param(r);
    for (size_t j = 0; j < r->params.n && j < GB_MAX_AXES; j++)
        if (j != kase && r->params.name[j] && strcmp(r->params.name[j], name) == 0) {
            const struct gb_value *v = &r->params.v[j];
            if (v->type == GB_V_SIZE)
                snprintf(buf, len, "%llu", (unsigned long long)v->u.size);
            else
                gb_value_format(v, buf, len);
            return buf;
        }
    const struct gb_suite *s = gb_suite_table_find(gb_suites_builtin(), r->suite);
    const struct gb_axis_def *a = s ? gb_suite_axis(s, name) : NULL;
    uint64_t bytes;
    if (!a || !a->omit_default || !a->def || a->def[0] == '[' || a->def[0] == '{')
        return buf; /* not an omitted default: one value, as results compare it */
    if (a->type == GB_V_SIZE && gb_parse_size(a->def, &bytes) == 0)
        snprintf(buf, len, "%llu", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%s", a->def);
    return buf;
}

int gb_results_metrics_doc(const struct gb_results *rs, struct gb_doc *d)
{
    int rc = gb_doc_init(d, "gpubench-run-doc/1", "results");
    const char **pn = NULL;
    size_t np = 0;
    if (!rc)
        rc = param_names(rs, &pn, &np);
    const size_t ncols = 2 + np + M_NTAIL;
    const char **names = rc ? NULL : calloc(ncols, sizeof *names);
    char(*renamed)[GB_STR_MAX + 8] = rc ? NULL : calloc(np ? np : 1, sizeof *renamed);
    if (!rc && (!names || !renamed))
        rc = GB_ENOMEM;
    struct gb_doc_table *t = NULL;
    if (!rc) {
        names[0] = lead_cols[0];
        names[1] = lead_cols[1];
        for (size_t k = 0; k < np; k++) {
            /* A param named as a fixed column keeps its own column: "NAME param". */
            bool clash = false;
            for (size_t c = 0; c < 2 + M_NTAIL && !clash; c++)
                clash = strcmp(pn[k], c < 2 ? lead_cols[c] : tail_cols[c - 2]) == 0;
            snprintf(renamed[k], sizeof renamed[k], "%s%s", pn[k], clash ? " param" : "");
            names[2 + k] = renamed[k];
        }
        for (size_t c = 0; c < M_NTAIL; c++)
            names[2 + np + c] = tail_cols[c];
        rc = gb_doc_table(d, "result", "every result of the run", names, ncols, &t);
    }
    const size_t m = 2 + np; /* the first tail column */
    if (!rc) {
        for (size_t k = M_VALUE; k < M_REASON; k++)
            if (k != M_UNIT)
                gb_doc_column_set(t, m + k, true, false);
        gb_doc_column_state(t, m + M_STATUS);
        gb_doc_column_prose(t, m + M_REASON);
        rc = gb_doc_column_unit(t, m + M_VALUE, NULL, m + M_UNIT) ||
             gb_doc_column_unit(t, m + M_CI, "%", 0) || gb_doc_column_unit(t, m + M_OPUS, "us", 0);
        gb_doc_time(d, rs->run.start_utc);
    }
    for (size_t i = 0; i < rs->nresults && !rc; i++) {
        const struct gb_result *r = &rs->results[i];
        struct gb_case_id id;
        gb_case_identify(rs, r, &id);
        const int dv = r->device_index;
        const struct gb_result_device *dev =
            dv >= 0 && (size_t)dv < rs->ndevices ? &rs->devices[dv] : NULL;
        size_t row;
        if ((rc = gb_doc_row(t, &row)))
            break;
        rc = gb_doc_text(t, row, 0, "%s", r->suite) || gb_doc_text(t, row, 1, "%s", r->case_name);
        char buf[GB_STR_MAX + 32];
        for (size_t k = 0; !rc && k < np; k++)
            rc = gb_doc_text(t, row, 2 + k, "%s", param_value(r, pn[k], buf, sizeof buf));
        const int len = (int)strcspn(r->reason, "\n");
        rc = rc || gb_doc_text(t, row, m + M_BACKEND, "%s", dev ? dev->backend : "?") ||
             gb_doc_text(t, row, m + M_DEVICE, "%s%s%s", id.device, id.slot[0] ? " #" : "",
                         id.slot) ||
             gb_doc_text(t, row, m + M_UUID, "%s", dev ? dev->info.uuid : "") ||
             gb_doc_text(t, row, m + M_UNIT, "%s", r->unit) ||
             gb_doc_text(t, row, m + M_STATUS, "%s", gb_status_name(r->status)) ||
             gb_doc_text(t, row, m + M_REASON, "%.*s", len, r->reason);
        if (rc)
            break;
        const bool ok = r->status == GB_STATUS_OK;
        if (ok)
            gb_doc_num(t, row, m + M_VALUE, r->value, -1);
        if (ok && r->stats.mean > 0)
            gb_doc_num(t, row, m + M_CI, 100 * r->stats.ci95 / r->stats.mean, 2);
        if (ok)
            gb_doc_num(t, row, m + M_OPUS, r->op_time_us.median, -1);
        gb_doc_num(t, row, m + M_SAMPLES, (double)r->nsamples, 0);
        gb_doc_num(t, row, m + M_OK, ok, 0);
        gb_doc_num(t, row, m + M_VERIFIED, r->verified, 0);
        gb_doc_num(t, row, m + M_NOISY, r->noisy, 0);
    }
    for (size_t k = 0; pn && k < np; k++)
        free((void *)pn[k]);
    free(pn);
    free(names);
    free(renamed);
    return rc ? GB_FAIL(GB_ENOMEM, "the table of %zu results", rs->nresults) : 0;
}
