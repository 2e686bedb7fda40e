/* gpubench — history's own outputs: text, Markdown, JSON (gpubench-history/1) and CSV of the
 * change points and series (analyses/history.h; contract in outputs/fleet_out.h). */
#include "outputs/fleet_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"

/* 1 / Phi^-1(3/4): 1.4826 x MAD estimates the standard deviation of normal data. */
#define MAD_SCALE 1.4826

static void series_title(const struct gb_history_series *s, char *buf, size_t len)
{
    gb_case_title(s->suite, s->case_name, s->params, s->device, buf, len);
    if (s->slot[0])
        gb_appendf(buf, len, " (#%s)", s->slot);
}

static void rule_text(const struct gb_history *h, char *buf, size_t len)
{
    snprintf(buf, len,
             "Pettitt's rank test in binary segmentation: a split with p < %g whose medians "
             "differ by at least %g%%, %zu+ nights on each side",
             h->opts.alpha, 100.0 * h->opts.threshold, h->opts.min_nights);
}

static void span_text(const struct gb_history *h, char *buf, size_t len)
{
    snprintf(buf, len, "%zu night%s, %s .. %s; %zu case%s followed", h->nnights,
             h->nnights == 1 ? "" : "s", h->nnights ? h->nights[0].start_utc : "-",
             h->nnights ? h->nights[h->nnights - 1].start_utc : "-", h->nseries,
             h->nseries == 1 ? "" : "s");
}

int gb_history_write_text(FILE *f, const struct gb_history *h, bool series)
{
    char buf[1024], t[1024], a[32], b[32], c[32];
    span_text(h, buf, sizeof buf);
    fprintf(f, "history: %s\n", buf);
    rule_text(h, buf, sizeof buf);
    fprintf(f, "rule: %s\n", buf);
    if (h->notes[0]) {
        fprintf(f, "notes:\n");
        for (const char *p = h->notes; *p;) {
            size_t l = strcspn(p, "\n");
            fprintf(f, "  %.*s\n", (int)l, p);
            p += l + (p[l] == '\n');
        }
    }
    fprintf(f, "\n%zu change point%s%s\n", h->nchanges, h->nchanges == 1 ? "" : "s",
            h->nchanges ? ":" : "");
    for (size_t k = 0; k < h->nseries; k++) {
        const struct gb_history_series *s = &h->series[k];
        for (size_t i = 0; i < s->nchanges; i++) {
            const struct gb_history_change *ch = &s->changes[i];
            series_title(s, t, sizeof t);
            gb__fmt_num(ch->before, a, sizeof a);
            gb__fmt_num(ch->after, b, sizeof b);
            gb__fmt_pct(ch->change, c, sizeof c);
            fprintf(f, "  night %zu (%s, %s): %s: %s -> %s %s, %s (%s), p = %.2g\n", ch->night + 1,
                    h->nights[ch->night].start_utc, h->nights[ch->night].path, t, a, b, s->unit, c,
                    ch->change < 0 ? "slower" : "faster", ch->p);
            fprintf(f, "    also changed since night %zu: %s\n", ch->prev_night + 1,
                    ch->what[0] ? ch->what : "nothing else recorded");
        }
    }
    /* The case column as wide as its widest title (at most 120), so that the table stays
     * straight whatever the names. */
    int wt = 4;
    for (size_t k = 0; k < h->nseries; k++) {
        series_title(&h->series[k], t, sizeof t);
        wt = gb_col_width(wt, t, 120);
    }
    fprintf(f, "\n%-*s %-8s %6s %10s %10s %7s %7s\n", wt, "case", "unit", "nights", "first", "last",
            "noise", "changes");
    for (size_t k = 0; k < h->nseries; k++) {
        const struct gb_history_series *s = &h->series[k];
        double first = NAN, last = NAN;
        for (size_t i = 0; i < s->npoints; i++)
            if (s->points[i].status == GB_STATUS_OK && isfinite(s->points[i].value)) {
                if (isnan(first))
                    first = s->points[i].value;
                last = s->points[i].value;
            }
        series_title(s, t, sizeof t);
        gb__fmt_num(first, a, sizeof a);
        gb__fmt_num(last, b, sizeof b);
        if (isfinite(s->noise))
            snprintf(c, sizeof c, "%.1f%%", 100.0 * s->noise);
        else
            snprintf(c, sizeof c, "-");
        fprintf(f, "%-*s %-8s %6zu %10s %10s %7s %7zu\n", wt, t, s->unit, s->nok, a, b, c,
                s->nchanges);
        if (!series)
            continue;
        size_t next = 0;
        for (size_t i = 0; i < s->npoints; i++) {
            const struct gb_history_point *p = &s->points[i];
            bool mark = next < s->nchanges && s->changes[next].night == i;
            next += mark;
            if (p->status < 0)
                continue;
            char lo[32], hi[32];
            gb__fmt_num(p->value, a, sizeof a);
            gb__fmt_num(p->lo, lo, sizeof lo);
            gb__fmt_num(p->hi, hi, sizeof hi);
            fprintf(f, "    night %3zu  %-22s %10s  [%s .. %s]%s%s\n", i + 1,
                    h->nights[i].start_utc,
                    p->status == GB_STATUS_OK ? a : gb_status_name((enum gb_status)p->status), lo,
                    hi, mark ? "  <- change" : "", "");
        }
    }
    return ferror(f) ? GB_FAIL(GB_EIO, "writing the history") : 0;
}

int gb_history_write_markdown(FILE *f, const struct gb_history *h)
{
    char buf[1024], t[1024], a[32], b[32], c[32];
    fprintf(f, "# gpubench history\n\n");
    span_text(h, buf, sizeof buf);
    fprintf(f, "%s.\n\n", buf);
    rule_text(h, buf, sizeof buf);
    fprintf(f, "Change points: %s.\n\n", buf);
    if (h->notes[0]) {
        for (const char *p = h->notes; *p;) {
            size_t l = strcspn(p, "\n");
            char line[1024];
            snprintf(line, sizeof line, "%.*s", (int)l, p);
            fputs("- ", f);
            gb_fputs_md(f, line);
            fputc('\n', f);
            p += l + (p[l] == '\n');
        }
        fputc('\n', f);
    }
    fprintf(f, "## Change points\n\n");
    if (!h->nchanges) {
        fprintf(f, "None.\n\n");
    } else {
        fprintf(f, "| night | date | case | before | after | change | p | also changed |\n"
                   "|---:|---|---|---:|---:|---:|---:|---|\n");
        for (size_t k = 0; k < h->nseries; k++) {
            const struct gb_history_series *s = &h->series[k];
            for (size_t i = 0; i < s->nchanges; i++) {
                const struct gb_history_change *ch = &s->changes[i];
                series_title(s, t, sizeof t);
                gb__fmt_num(ch->before, a, sizeof a);
                gb__fmt_num(ch->after, b, sizeof b);
                gb__fmt_pct(ch->change, c, sizeof c);
                fprintf(f, "| %zu | ", ch->night + 1);
                gb_fputs_md(f, h->nights[ch->night].start_utc);
                fputs(" | ", f);
                gb_fputs_md(f, t);
                fprintf(f, " | %s %s | %s %s | %s (%s) | %.2g | ", a, s->unit, b, s->unit, c,
                        ch->change < 0 ? "slower" : "faster", ch->p);
                gb_fputs_md(f, ch->what[0] ? ch->what : "nothing else recorded");
                fputs(" |\n", f);
            }
        }
        fputc('\n', f);
    }
    fprintf(f,
            "## Cases\n\n| case | unit | nights | noise | changes |\n|---|---|---:|---:|---:|\n");
    for (size_t k = 0; k < h->nseries; k++) {
        const struct gb_history_series *s = &h->series[k];
        series_title(s, t, sizeof t);
        fputs("| ", f);
        gb_fputs_md(f, t);
        fputs(" | ", f);
        gb_fputs_md(f, s->unit);
        if (isfinite(s->noise))
            snprintf(c, sizeof c, "%.1f%%", 100.0 * s->noise);
        else
            snprintf(c, sizeof c, "-");
        fprintf(f, " | %zu | %s | %zu |\n", s->nok, c, s->nchanges);
    }
    return ferror(f) ? GB_FAIL(GB_EIO, "writing the history") : 0;
}

int gb_history_write_json(FILE *f, const struct gb_history *h)
{
    fprintf(f, "{\"schema\": \"gpubench-history/1\",\n \"rule\": {\"method\": \"pettitt+binseg\", "
               "\"alpha\": ");
    gb_fput_json_num(f, h->opts.alpha);
    fputs(", \"threshold\": ", f);
    gb_fput_json_num(f, h->opts.threshold);
    fprintf(f, ", \"min_nights\": %zu},\n \"nights\": [", h->opts.min_nights);
    for (size_t i = 0; i < h->nnights; i++) {
        const struct gb_history_night *n = &h->nights[i];
        fprintf(f, "%s\n  {\"night\": %zu, \"path\": ", i ? "," : "", i + 1);
        gb_fputs_json(f, n->path);
        fputs(", \"start_utc\": ", f);
        gb_fputs_json(f, n->start_utc);
        fputs(", \"gpubench_version\": ", f);
        gb_fputs_json(f, n->gpubench_version);
        fputs(", \"git_commit\": ", f);
        gb_fputs_json(f, n->git_commit);
        fputs(", \"profile_sha256\": ", f);
        gb_fputs_json(f, n->profile_sha256);
        fputs(", \"host\": ", f);
        gb_fputs_json(f, n->host);
        fprintf(f, ", \"interrupted\": %s}", n->interrupted ? "true" : "false");
    }
    fputs("],\n \"series\": [", f);
    for (size_t k = 0; k < h->nseries; k++) {
        const struct gb_history_series *s = &h->series[k];
        fprintf(f, "%s\n  {\"suite\": ", k ? "," : "");
        gb_fputs_json(f, s->suite);
        fputs(", \"case\": ", f);
        gb_fputs_json(f, s->case_name);
        fputs(", \"params\": ", f);
        gb_fputs_json(f, s->params);
        fputs(", \"device\": ", f);
        gb_fputs_json(f, s->device);
        fputs(", \"slot\": ", f);
        gb_fputs_json(f, s->slot);
        fputs(", \"metric\": ", f);
        gb_fputs_json(f, s->metric);
        fputs(", \"unit\": ", f);
        gb_fputs_json(f, s->unit);
        fprintf(f, ", \"better\": \"%s\", \"nights_ok\": %zu, \"noise\": ",
                s->better == GB_BETTER_LOWER ? "lower" : "higher", s->nok);
        gb_fput_json_num(f, s->noise);
        const char *arr[3] = {"value", "p5", "p95"};
        for (int w = 0; w < 3; w++) {
            fprintf(f, ",\n   \"%s\": [", arr[w]);
            for (size_t i = 0; i < s->npoints; i++) {
                const struct gb_history_point *p = &s->points[i];
                double v = w == 0 ? p->value : w == 1 ? p->lo : p->hi;
                fputs(i ? ", " : "", f);
                gb_fput_json_num(f, p->status == GB_STATUS_OK ? v : NAN);
            }
            fputc(']', f);
        }
        fputs(",\n   \"changes\": [", f);
        for (size_t i = 0; i < s->nchanges; i++) {
            const struct gb_history_change *ch = &s->changes[i];
            fprintf(f, "%s{\"night\": %zu, \"previous_night\": %zu, \"before\": ", i ? ", " : "",
                    ch->night + 1, ch->prev_night + 1);
            gb_fput_json_num(f, ch->before);
            fputs(", \"after\": ", f);
            gb_fput_json_num(f, ch->after);
            fputs(", \"change\": ", f);
            gb_fput_json_num(f, ch->change);
            fputs(", \"p\": ", f);
            gb_fput_json_num(f, ch->p);
            fputs(", \"also_changed\": ", f);
            gb_fputs_json(f, ch->what);
            fputc('}', f);
        }
        fputs("]}", f);
    }
    fputs("],\n \"notes\": [", f);
    size_t nn = 0;
    for (const char *p = h->notes; *p;) {
        size_t l = strcspn(p, "\n");
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)l, p);
        fputs(nn++ ? ", " : "", f);
        gb_fputs_json(f, line);
        p += l + (p[l] == '\n');
    }
    fputs("]}\n", f);
    return ferror(f) ? GB_FAIL(GB_EIO, "writing the history") : 0;
}

/* A CSV field: quoted when it holds a comma or a quote, quotes doubled (RFC 4180); every control
 * character (C0 with line breaks and tabs, DEL, the UTF-8 C1 controls) becomes '?'. */
int gb_history_write_csv(FILE *f, const struct gb_history *h)
{
    fputs("suite,case,params,device,slot,unit,night,start_utc,status,value,p5,p95,change\n", f);
    for (size_t k = 0; k < h->nseries; k++) {
        const struct gb_history_series *s = &h->series[k];
        size_t next = 0;
        for (size_t i = 0; i < s->npoints; i++) {
            const struct gb_history_point *p = &s->points[i];
            bool mark = next < s->nchanges && s->changes[next].night == i;
            next += mark;
            if (p->status < 0)
                continue;
            const char *fields[] = {s->suite, s->case_name, s->params, s->device, s->slot, s->unit};
            for (size_t j = 0; j < 6; j++) {
                gb_fputs_csv(f, fields[j]);
                fputc(',', f);
            }
            fprintf(f, "%zu,", i + 1);
            gb_fputs_csv(f, h->nights[i].start_utc);
            fprintf(f, ",%s,", gb_status_name((enum gb_status)p->status));
            if (p->status == GB_STATUS_OK)
                fprintf(f, "%.17g,%.17g,%.17g", p->value, p->lo, p->hi);
            else
                fputs(",,", f);
            fprintf(f, ",%d\n", mark ? 1 : 0);
        }
    }
    return ferror(f) ? GB_FAIL(GB_EIO, "writing the history") : 0;
}
