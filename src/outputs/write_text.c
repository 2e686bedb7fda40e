/* gpubench — the text writer: tables for a terminal, as wide as their cells, fitted to the
 * terminal's width by shortening the text columns a document marks shrinkable (never a number),
 * with each table's footnotes under it; data tables and columns (for files) left out. */
#include "outputs/writer.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "outputs/writer_private.h"

/* The narrowest a shrinkable column gets. */
#define MIN_SHRINK 12
/* Two spaces between columns. */
#define GAP 2

/* Characters (not bytes) of UTF-8 text s. */
static size_t u8len(const char *s)
{
    size_t n = 0;
    for (const unsigned char *u = (const unsigned char *)s; *u; u++)
        n += (*u & 0xC0) != 0x80;
    return n;
}

/* The cell as shown: its text, then its footnote marks in brackets. Into buf. */
static const char *shown(const struct gb_doc_cell *c, char *buf, size_t len)
{
    char text[1024], marks[128];
    gb_doc_cell_text(c, text, sizeof text);
    if (c && c->nnotes)
        snprintf(buf, len, "%s%s[%s]", text, *text ? " " : "",
                 gb_doc_cell_marks(c, marks, sizeof marks));
    else
        snprintf(buf, len, "%s", text);
    return buf;
}

/* Writes s in a field of w characters (right-aligned when `right`), shortened to w with "..."
 * when longer (only shrinkable cells are ever longer than their column). */
static void field(FILE *f, const char *s, size_t w, bool right, bool last)
{
    size_t n = u8len(s);
    if (n > w) {
        size_t keep = w > 3 ? w - 3 : 0, chars = 0;
        const char *p = s;
        while (*p && chars < keep) {
            p++;
            while ((*(const unsigned char *)p & 0xC0) == 0x80)
                p++;
            chars++;
        }
        char cut[1024];
        snprintf(cut, sizeof cut, "%.*s%s", (int)(p - s), s, w > 3 ? "..." : "");
        gb__put_clean(f, cut, false);
        return;
    }
    if (right)
        fprintf(f, "%*s", (int)(w - n), "");
    gb__put_clean(f, s, false);
    if (!right && !last)
        fprintf(f, "%*s", (int)(w - n), "");
}

/* Column widths: the widest cell, then shrinkable columns narrowed while the row is wider than
 * `width` (0: no limit). A data column (gb_doc_column.data) is not shown: width 0. Rows outer,
 * so that a view makes each row once. */
static void widths(const struct gb_doc_table *t, int width, size_t *w)
{
    char buf[1100];
    size_t total = 0, shown_cols = 0;
    for (size_t c = 0; c < t->ncols; c++)
        w[c] = t->cols[c].data ? 0 : u8len(t->cols[c].name);
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++) {
            if (t->cols[c].data)
                continue;
            size_t n = u8len(shown(gb_doc_cell(t, r, c), buf, sizeof buf));
            if (n > w[c])
                w[c] = n;
        }
    for (size_t c = 0; c < t->ncols; c++)
        if (!t->cols[c].data)
            total += w[c] + (shown_cols++ ? GAP : 0);
    while (width > 0 && total > (size_t)width) {
        size_t widest = t->ncols;
        for (size_t c = 0; c < t->ncols; c++)
            if (t->cols[c].shrink && !t->cols[c].data && w[c] > MIN_SHRINK &&
                (widest == t->ncols || w[c] > w[widest]))
                widest = c;
        if (widest == t->ncols)
            break; /* nothing left to narrow: the row stays wider */
        size_t over = total - (size_t)width, room = w[widest] - MIN_SHRINK;
        size_t cut = over < room ? over : room;
        w[widest] -= cut;
        total -= cut;
    }
}

/* The last column shown (ncols when none is). */
static size_t last_shown(const struct gb_doc_table *t)
{
    size_t last = t->ncols;
    for (size_t c = 0; c < t->ncols; c++)
        if (!t->cols[c].data)
            last = c;
    return last;
}

static void write_table(FILE *f, const struct gb_doc_table *t, int width)
{
    size_t *w = calloc(t->ncols ? t->ncols : 1, sizeof *w);
    if (!w)
        return;
    widths(t, width, w);
    if (t->title && *t->title) {
        gb__put_clean(f, t->title, false);
        fputc('\n', f);
    }
    size_t last = last_shown(t);
    for (size_t c = 0, k = 0; c < t->ncols; c++) {
        if (t->cols[c].data)
            continue;
        if (k++)
            fprintf(f, "%*s", GAP, "");
        field(f, t->cols[c].name, w[c], t->cols[c].numeric, c == last);
    }
    fputc('\n', f);
    char buf[1100];
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0, k = 0; c < t->ncols; c++) {
            if (t->cols[c].data)
                continue;
            if (k++)
                fprintf(f, "%*s", GAP, "");
            field(f, shown(gb_doc_cell(t, r, c), buf, sizeof buf), w[c], t->cols[c].numeric,
                  c == last);
        }
        fputc('\n', f);
    }
    for (size_t k = 0; k < t->nfootnotes; k++) {
        fprintf(f, "  [%zu] ", k + 1);
        gb__put_clean(f, t->footnotes[k], false);
        fputc('\n', f);
    }
    free(w);
}

static int text_write(FILE *f, const struct gb_doc *d, const struct gb_write_opts *o)
{
    if (d->title && *d->title) {
        gb__put_clean(f, d->title, false);
        fputc('\n', f);
    }
    for (size_t i = 0; i < d->nnotes; i++) {
        gb__put_clean(f, d->notes[i], true);
        fputc('\n', f);
    }
    bool above = d->nnotes || (d->title && *d->title);
    for (size_t i = 0; i < d->ntables; i++) {
        if (d->tables[i]->data)
            continue;
        if (above)
            fputc('\n', f);
        above = true;
        write_table(f, d->tables[i], o ? o->width : 0);
        above = true;
    }
    for (size_t i = 0; i < d->nchecks; i++)
        if (d->checks[i].status == GB_CHECK_FAIL || d->checks[i].status == GB_CHECK_ERROR) {
            fputs(d->checks[i].status == GB_CHECK_FAIL ? "FAIL " : "ERROR ", f);
            if (!gb__check_named_in_full(&d->checks[i])) {
                gb__put_clean(f, d->checks[i].group, false);
                fputc(' ', f);
            }
            gb__put_clean(f, d->checks[i].name, false);
            if (d->checks[i].message) {
                fputs(": ", f);
                gb__put_clean(f, d->checks[i].message, false);
            }
            fputc('\n', f);
        }
    if (d->verdict) {
        gb__put_clean(f, d->verdict, false);
        fputc('\n', f);
    }
    return gb__write_end(f, "text");
}

GB_WRITER(text, "tables for a terminal, fitted to its width", false, text_write);
