/* gpubench — the OpenMetrics writer: a document as the Prometheus text exposition format, for
 * node_exporter's textfile collector (https://prometheus.io/docs/instrumenting/exposition_formats/,
 * and the OpenMetrics 1.0 specification's text format: "# EOF" last).
 *
 * Each numeric column of each table is a gauge family
 *     gpubench_<doc>_<table>_<column>{<text column>="<cell>", ...} <number>
 * (<doc> the document's kind without "gpubench-", its "-doc" and its version: "check"), one
 * sample per row with a number there (an empty or non-finite cell gives none); the row's text
 * columns are its labels, but for prose (a note, a verdict: gb_doc_column_prose), which would
 * start a new series whenever its words change. Where two rows of a table have the same labels, every sample of that
 * table also gets row="<index>", so that no two samples of a family are one series. Each check is
 * a sample of gpubench_<doc>_check{group, name, status="pass|fail|skip"} 1, and
 * gpubench_<doc>_checks{status} counts them. Names are [a-z0-9_] ('%' as "pct", "/" as "per",
 * any other run of characters as one '_'); label values escape backslash, quote and line break
 * as the format says, after the bytes a terminal acts on and invalid UTF-8 became '?'. Data
 * tables and columns (for files: gb_doc_column.data) are left out. */
#include "outputs/writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/merge.h"
#include "base/error.h"
#include "base/util.h"
#include "outputs/writer_private.h"

/* s as a metric-name part: lower case letters, digits and single '_' between words. */
static void name_part(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    bool sep = false;
    for (const unsigned char *u = (const unsigned char *)s; *u && o + 5 < len; u++) {
        const char *word = *u == '%' ? "pct" : *u == '/' ? "per" : NULL;
        if (word ||
            !((*u >= 'a' && *u <= 'z') || (*u >= 'A' && *u <= 'Z') || (*u >= '0' && *u <= '9'))) {
            sep = o > 0;
            if (!word)
                continue;
        }
        if (sep) {
            buf[o++] = '_';
            sep = false;
        }
        if (word) {
            for (const char *w = word; *w; w++)
                buf[o++] = *w;
            sep = true;
            continue;
        }
        buf[o++] = (char)(*u >= 'A' && *u <= 'Z' ? *u - 'A' + 'a' : *u);
    }
    buf[o] = '\0';
    if (!o)
        snprintf(buf, len, "x");
}

/* A label value: cleaned, then \\, \" and \n escaped. */
static void label_value(FILE *f, const char *s)
{
    char *c = gb__clean_dup(s);
    for (const char *p = c ? c : "?"; *p; p++) {
        if (*p == '\\' || *p == '"')
            fputc('\\', f);
        if (*p == '\n')
            fputs("\\n", f);
        else
            fputc(*p, f);
    }
    free(c);
}

/* The document's name in metric names: its kind without "gpubench-", "-doc" and "/N". */
static void doc_part(const struct gb_doc *d, char *buf, size_t len)
{
    char k[64];
    const char *kind = d->kind ? d->kind : "doc";
    if (strncmp(kind, "gpubench-", 9) == 0)
        kind += 9;
    snprintf(k, sizeof k, "%s", kind);
    char *cut = strchr(k, '/');
    if (cut)
        *cut = '\0';
    size_t n = strlen(k);
    if (n > 4 && strcmp(k + n - 4, "-doc") == 0)
        k[n - 4] = '\0';
    name_part(k, buf, len);
}

/* The labels of row r: its text columns' cells (empty ones left out) and, with_row, its index. */
static void labels(FILE *f, const struct gb_doc_table *t, size_t r, bool with_row,
                   char (*lname)[64])
{
    bool first = true;
    char buf[2048];
    fputc('{', f);
    for (size_t c = 0; c < t->ncols; c++) {
        const struct gb_doc_cell *cl = gb_doc_cell(t, r, c);
        if (t->cols[c].numeric || t->cols[c].prose || t->cols[c].data || !cl ||
            cl->kind != GB_CELL_TEXT || !cl->text[0])
            continue;
        fprintf(f, "%s%s=\"", first ? "" : ",", lname[c]);
        label_value(f, gb_doc_cell_text(cl, buf, sizeof buf));
        fputc('"', f);
        first = false;
    }
    if (with_row)
        fprintf(f, "%srow=\"%zu\"", first ? "" : ",", r);
    fputc('}', f);
}

/* Whether two rows of t have the same labels (the text cells): then each sample needs its row. */
static bool labels_repeat(const struct gb_doc_table *t)
{
    struct gb_strtab seen = {0};
    bool rep = false;
    char key[8192], buf[2048];
    for (size_t r = 0; r < t->nrows && !rep; r++) {
        key[0] = '\0';
        for (size_t c = 0; c < t->ncols; c++) {
            const struct gb_doc_cell *cl = gb_doc_cell(t, r, c);
            if (!t->cols[c].numeric && !t->cols[c].prose && !t->cols[c].data && cl &&
                cl->kind == GB_CELL_TEXT) {
                /* As written: cleaned, so that texts that differ only in bytes the cleaning
                 * replaces are seen as the one series they become. */
                char *clean = gb__clean_dup(gb_doc_cell_text(cl, buf, sizeof buf));
                gb_appendf(key, sizeof key, "%s\x1f", clean ? clean : "?");
                free(clean);
            }
        }
        bool added = true;
        if (gb_strtab_intern(&seen, key, &added) < 0 || !added)
            rep = true; /* out of memory: rows labelled, to be safe */
    }
    gb_strtab_free(&seen);
    return rep;
}

static void table(FILE *f, const char *doc, const struct gb_doc_table *t)
{
    char tid[64], (*lname)[64] = calloc(t->ncols ? t->ncols : 1, sizeof *lname);
    if (!lname)
        return;
    name_part(t->id, tid, sizeof tid);
    /* Label names: the columns', made unique by a suffix; "row" is the writer's own. */
    for (size_t c = 0; c < t->ncols; c++) {
        name_part(t->cols[c].name, lname[c], sizeof lname[c]);
        if (lname[c][0] >= '0' && lname[c][0] <= '9') {
            char tmp[64];
            snprintf(tmp, sizeof tmp, "c_%.60s", lname[c]);
            snprintf(lname[c], sizeof lname[c], "%s", tmp);
        }
        for (size_t p = 0; p < c; p++)
            if (strcmp(lname[p], lname[c]) == 0 || strcmp(lname[c], "row") == 0) {
                size_t n = strlen(lname[c]);
                snprintf(lname[c] + (n < 56 ? n : 56), 8, "_%u", (unsigned)(c % 1000));
                break;
            }
    }
    const bool with_row = labels_repeat(t);
    for (size_t c = 0; c < t->ncols; c++) {
        if (!t->cols[c].numeric || t->cols[c].data)
            continue;
        const char *col = lname[c]; /* unique in the table */
        bool any = false;
        for (size_t r = 0; r < t->nrows && !any; r++) {
            const struct gb_doc_cell *cl = gb_doc_cell(t, r, c);
            any = cl && cl->kind == GB_CELL_NUM && isfinite(cl->num);
        }
        if (!any)
            continue;
        fprintf(f, "# TYPE gpubench_%s_%s_%s gauge\n# HELP gpubench_%s_%s_%s ", doc, tid, col, doc,
                tid, col);
        char help[600];
        snprintf(help, sizeof help, "column %s of %s", t->cols[c].name, t->title ? t->title : "");
        char *h = gb__clean_dup(help);
        for (const char *p = h ? h : ""; *p; p++)
            fputs(*p == '\\' ? "\\\\" : *p == '\n' ? "\\n" : (char[]){*p, 0}, f);
        free(h);
        fputc('\n', f);
        for (size_t r = 0; r < t->nrows; r++) {
            const struct gb_doc_cell *cl = gb_doc_cell(t, r, c);
            if (!cl || cl->kind != GB_CELL_NUM || !isfinite(cl->num))
                continue;
            fprintf(f, "gpubench_%s_%s_%s", doc, tid, col);
            labels(f, t, r, with_row, lname);
            fprintf(f, " %.17g\n", cl->num);
        }
    }
    free(lname);
}

static int openmetrics_write(FILE *f, const struct gb_doc *d, const struct gb_write_opts *o)
{
    (void)o;
    char doc[48];
    doc_part(d, doc, sizeof doc);
    for (size_t i = 0; i < d->ntables; i++)
        if (!d->tables[i]->data)
            table(f, doc, d->tables[i]);
    if (d->nchecks) {
        static const char *const st[] = {"pass", "fail", "skip", "error"};
        size_t count[4] = {0};
        /* Two checks of the same group, name and status would be one series: then each gets
         * its index as item="<i>". */
        struct gb_strtab seen = {0};
        bool with_item = false;
        for (size_t i = 0; i < d->nchecks && !with_item; i++) {
            char key[4096];
            char *g = gb__clean_dup(d->checks[i].group ? d->checks[i].group : ""),
                 *nm = gb__clean_dup(d->checks[i].name ? d->checks[i].name : "");
            snprintf(key, sizeof key, "%s\x1f%s\x1f%d", g ? g : "?", nm ? nm : "?",
                     (int)d->checks[i].status);
            free(g);
            free(nm);
            bool added = true;
            with_item = gb_strtab_intern(&seen, key, &added) < 0 || !added;
        }
        gb_strtab_free(&seen);
        fprintf(f,
                "# TYPE gpubench_%s_check gauge\n# HELP gpubench_%s_check one judged item "
                "(1), its status a label\n",
                doc, doc);
        for (size_t i = 0; i < d->nchecks; i++) {
            const struct gb_doc_check *k = &d->checks[i];
            const unsigned s = (unsigned)k->status < 4 ? (unsigned)k->status : 2;
            count[s]++;
            fprintf(f, "gpubench_%s_check{group=\"", doc);
            label_value(f, k->group ? k->group : "");
            fputs("\",name=\"", f);
            label_value(f, k->name ? k->name : "");
            fprintf(f, "\",status=\"%s\"", st[s]);
            if (with_item)
                fprintf(f, ",item=\"%zu\"", i);
            fputs("} 1\n", f);
        }
        fprintf(f,
                "# TYPE gpubench_%s_checks gauge\n# HELP gpubench_%s_checks judged items "
                "per status\n",
                doc, doc);
        for (int s = 0; s < 4; s++)
            fprintf(f, "gpubench_%s_checks{status=\"%s\"} %zu\n", doc, st[s], count[s]);
    }
    fputs("# EOF\n", f);
    return gb__write_end(f, "openmetrics");
}

GB_WRITER(openmetrics, "Prometheus text exposition / OpenMetrics: numeric columns as gauges", false,
          openmetrics_write);
