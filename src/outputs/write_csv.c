/* gpubench — the CSV writer (RFC 4180): one table that a spreadsheet or pandas reads directly,
 * however many tables the document has. One header row: "table", then every column name of the
 * document's tables in the order they first appear (a name a table repeats gets " (2)", " (3)"),
 * then "footnotes"; then each table's rows, their first field the table's id, each cell under its
 * column's name and empty under the other tables' columns, so that every row has as many fields
 * as the header and `table` selects one table's rows. Values, not what people are shown: a number
 * in full precision (a p of 3e-6, not "<1e-4"), a text as it is ("SLOWER", its regression a
 * column of its own), a number no one could give (a failed node's) empty. A row's footnotes are
 * their texts, "; " between, in the last column. Data tables and columns are kept. */
#include "outputs/writer.h"

#include <stdlib.h>
#include <string.h>

#include "analyses/merge.h"
#include "base/error.h"
#include "base/util.h"
#include "outputs/writer_private.h"

static void csv(FILE *f, const char *s)
{
    char *c = gb__clean_dup(s);
    gb_fputs_csv(f, c ? c : "?");
    free(c);
}

/* The header's column of column c of t: its name, " (k)" added for its k-th use in t. */
static void union_name(const struct gb_doc_table *t, size_t c, char *buf, size_t len)
{
    size_t k = 1;
    for (size_t p = 0; p < c; p++)
        k += strcmp(t->cols[p].name, t->cols[c].name) == 0;
    if (k == 1)
        snprintf(buf, len, "%s", t->cols[c].name);
    else
        snprintf(buf, len, "%s (%zu)", t->cols[c].name, k);
}

static void row_notes(const struct gb_doc_table *t, size_t r, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t c = 0; c < t->ncols; c++) {
        const struct gb_doc_cell *cl = gb_doc_cell(t, r, c);
        for (size_t i = 0; cl && i < cl->nnotes; i++)
            gb_appendf(buf, len, "%s%s", buf[0] ? "; " : "", t->footnotes[cl->notes[i]]);
    }
}

static int csv_write(FILE *f, const struct gb_doc *d, const struct gb_write_opts *o)
{
    (void)o;
    /* The header's columns, and for each table where its columns go. */
    struct gb_strtab names = {0};
    size_t **at = calloc(d->ntables ? d->ntables : 1, sizeof *at);
    int rc = at ? 0 : GB_ENOMEM;
    char name[600];
    for (size_t i = 0; !rc && i < d->ntables; i++) {
        const struct gb_doc_table *t = d->tables[i];
        at[i] = calloc(t->ncols ? t->ncols : 1, sizeof **at);
        if (!at[i])
            rc = GB_ENOMEM;
        for (size_t c = 0; !rc && c < t->ncols; c++) {
            union_name(t, c, name, sizeof name);
            long k = gb_strtab_intern(&names, name, NULL);
            if (k < 0)
                rc = GB_ENOMEM;
            else
                at[i][c] = (size_t)k;
        }
    }
    const char **line = rc ? NULL : calloc(names.n ? names.n : 1, sizeof *line);
    char(*bufs)[1100] = rc ? NULL : calloc(names.n ? names.n : 1, sizeof *bufs);
    if (!rc && (!line || !bufs))
        rc = GB_ENOMEM;
    if (!rc) {
        fputs("table", f);
        for (size_t k = 0; k < names.n; k++) {
            fputc(',', f);
            csv(f, gb_strtab_get(&names, k));
        }
        fputs(",footnotes\r\n", f);
    }
    char notes[4096];
    for (size_t i = 0; !rc && i < d->ntables; i++) {
        const struct gb_doc_table *t = d->tables[i];
        for (size_t r = 0; r < t->nrows; r++) {
            for (size_t k = 0; k < names.n; k++)
                line[k] = NULL;
            for (size_t c = 0; c < t->ncols; c++) {
                const struct gb_doc_cell *cl = gb_doc_cell(t, r, c);
                char *b = bufs[at[i][c]];
                b[0] = '\0';
                if (cl && cl->kind == GB_CELL_NUM)
                    snprintf(b, sizeof bufs[0], "%.17g", cl->num);
                else if (cl && cl->kind == GB_CELL_TEXT)
                    snprintf(b, sizeof bufs[0], "%s", cl->text ? cl->text : "");
                line[at[i][c]] = b;
            }
            csv(f, t->id);
            for (size_t k = 0; k < names.n; k++) {
                fputc(',', f);
                if (line[k] && line[k][0])
                    csv(f, line[k]);
            }
            fputc(',', f);
            row_notes(t, r, notes, sizeof notes);
            csv(f, notes);
            fputs("\r\n", f);
        }
    }
    for (size_t i = 0; at && i < d->ntables; i++)
        free(at[i]);
    free(at);
    free(line);
    free(bufs);
    gb_strtab_free(&names);
    if (rc)
        return GB_FAIL(rc, "building the CSV output");
    return gb__write_end(f, "csv");
}

GB_WRITER(csv, "CSV (RFC 4180): one table, a column per column name, a row per row", false,
          csv_write);
