/* gpubench — the CSV writer (RFC 4180): each table a block, its header row first with the
 * column "table" (the table's id) in front, blocks apart by an empty line; a cell's footnotes in a
 * last column "footnotes" (their texts, "; " between). Numbers in full precision. */
#include "outputs/writer.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "outputs/writer_private.h"

static void csv(FILE *f, const char *s)
{
    char *c = gb__clean_dup(s);
    gb_fputs_csv(f, c ? c : "?");
    free(c);
}

/* The block's header row: "table", the columns, "footnotes". */
static void header(FILE *f, const struct gb_doc_table *t)
{
    fputs("table", f);
    for (size_t c = 0; c < t->ncols; c++) {
        fputc(',', f);
        csv(f, t->cols[c].name);
    }
    fputs(",footnotes\r\n", f);
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
    for (size_t i = 0; i < d->ntables; i++) {
        const struct gb_doc_table *t = d->tables[i];
        if (i)
            fputs("\r\n", f);
        header(f, t);
        char buf[1100], notes[4096];
        for (size_t r = 0; r < t->nrows; r++) {
            csv(f, t->id);
            for (size_t c = 0; c < t->ncols; c++) {
                const struct gb_doc_cell *cl = gb_doc_cell(t, r, c);
                fputc(',', f);
                if (cl && cl->kind == GB_CELL_NUM)
                    fprintf(f, "%.17g", cl->num);
                else
                    csv(f, gb_doc_cell_text(cl, buf, sizeof buf));
            }
            fputc(',', f);
            row_notes(t, r, notes, sizeof notes);
            csv(f, notes);
            fputs("\r\n", f);
        }
    }
    return gb__write_end(f, "csv");
}

GB_WRITER(csv, "CSV (RFC 4180): a block per table", false, csv_write);
