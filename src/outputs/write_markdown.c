/* gpubench — the Markdown writer: a heading, notes as paragraphs, one pipe table per table (its
 * title a heading above it, its footnotes a list under it; data tables and columns, and tables
 * for machines, left out;
 * numbers as people read them, gb_doc_cell_people), the failed checks and the verdict.
 * Every cell goes through the one Markdown escaper (gb_fputs_md). */
#include "outputs/writer.h"

#include "base/util.h"
#include "outputs/writer_private.h"

static void cell(FILE *f, const struct gb_doc_cell *c)
{
    char text[1024], marks[128];
    gb_fputs_md(f, gb_doc_cell_people(c, text, sizeof text));
    if (c && c->nnotes) { /* "[1,3]", its brackets escaped as a name's are: no link syntax */
        fputs(*text ? " \\[" : "\\[", f);
        gb_fputs_md(f, gb_doc_cell_marks(c, marks, sizeof marks));
        fputs("\\]", f);
    }
}

static void table(FILE *f, const struct gb_doc_table *t)
{
    if (t->title && *t->title) {
        fputs("\n## ", f);
        gb_fputs_md(f, t->title);
        fputs("\n", f);
    }
    fputs("\n|", f);
    for (size_t c = 0; c < t->ncols; c++) {
        if (t->cols[c].data)
            continue;
        fputc(' ', f);
        gb_fputs_md(f, t->cols[c].label ? t->cols[c].label : t->cols[c].name);
        fputs(" |", f);
    }
    fputs("\n|", f);
    for (size_t c = 0; c < t->ncols; c++)
        if (!t->cols[c].data)
            fputs(t->cols[c].numeric ? "---:|" : "---|", f);
    fputc('\n', f);
    for (size_t r = 0; r < t->nrows; r++) {
        fputc('|', f);
        for (size_t c = 0; c < t->ncols; c++) {
            if (t->cols[c].data)
                continue;
            fputc(' ', f);
            cell(f, gb_doc_cell(t, r, c));
            fputs(" |", f);
        }
        fputc('\n', f);
    }
    if (t->nfootnotes)
        fputc('\n', f);
    for (size_t k = 0; k < t->nfootnotes; k++) {
        fprintf(f, "%zu. ", k + 1);
        gb_fputs_md(f, t->footnotes[k]);
        fputc('\n', f);
    }
}

static int md_write(FILE *f, const struct gb_doc *d, const struct gb_write_opts *o)
{
    (void)o;
    if (d->title && *d->title) {
        fputs("# ", f);
        gb_fputs_md(f, d->title);
        fputc('\n', f);
    }
    for (size_t i = 0; i < d->nnotes; i++) {
        fputc('\n', f);
        gb_fputs_md(f, d->notes[i]);
        fputc('\n', f);
    }
    for (size_t i = 0; i < d->ntables; i++)
        if (!d->tables[i]->data && !d->tables[i]->machine)
            table(f, d->tables[i]);
    bool failed = false;
    for (size_t i = 0; i < d->nchecks; i++) {
        const struct gb_doc_check *c = &d->checks[i];
        if (c->status != GB_CHECK_FAIL && c->status != GB_CHECK_ERROR)
            continue;
        fputs(failed ? "- " : "\n## Failed\n\n- ", f);
        failed = true;
        if (c->status == GB_CHECK_ERROR)
            fputs("ERROR ", f);
        if (!gb__check_named_in_full(c)) {
            gb_fputs_md(f, c->group);
            fputc(' ', f);
        }
        gb_fputs_md(f, c->name);
        if (c->message) {
            fputs(": ", f);
            gb_fputs_md(f, c->message);
        }
        fputc('\n', f);
    }
    if (d->verdict) {
        fputs("\n**", f);
        gb_fputs_md(f, d->verdict);
        fputs("**\n", f);
    }
    return gb__write_end(f, "markdown");
}

GB_WRITER(markdown, "Markdown: pipe tables, footnotes as lists", false, md_write);
