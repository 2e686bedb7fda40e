/* A toy writer, for tests/test_plugins.c: one line per table row, "TOY table row: cells". It
 * proves the writer socket: copied into a test build as src/outputs/write_toy.c with one line,
 * `toy`, in meson.build's writers list, every command that offers --format offers it. Not part
 * of the normal build. */
#include "outputs/writer.h"

#include "base/error.h"

static int toy_write(FILE *f, const struct gb_doc *d, const struct gb_write_opts *o)
{
    (void)o;
    char buf[1024];
    for (size_t i = 0; i < d->ntables; i++) {
        const struct gb_doc_table *t = d->tables[i];
        for (size_t r = 0; r < t->nrows; r++) {
            fprintf(f, "TOY %s %zu:", t->id, r);
            for (size_t c = 0; c < t->ncols; c++)
                fprintf(f, " %s", gb_doc_cell_text(gb_doc_cell(t, r, c), buf, sizeof buf));
            fputc('\n', f);
        }
    }
    return ferror(f) ? GB_EIO : 0;
}

GB_WRITER(toy, "a toy format, the writer socket's test", false, toy_write);
