/* gpubench — what the layouts of the established JSON files share: reading a document's tables
 * by id and column name, and writing a cell as JSON (contract in layout.h). */
#include "outputs/layout.h"

#include <math.h>
#include <string.h>

#include "analyses/merge.h"
#include "base/error.h"

const struct gb_doc_table *gb__layout_table(const struct gb_doc *d, const char *id)
{
    for (size_t i = 0; i < d->ntables; i++)
        if (strcmp(d->tables[i]->id, id) == 0)
            return d->tables[i];
    return NULL;
}

size_t gb__layout_col(const struct gb_doc_table *t, const char *name)
{
    size_t c = 0;
    while (c < t->ncols && strcmp(t->cols[c].name, name) != 0)
        c++;
    return c;
}

double gb__layout_value(const struct gb_doc_table *t, size_t r, size_t c)
{
    const struct gb_doc_cell *cl = gb_doc_cell(t, r, c);
    return cl && cl->kind == GB_CELL_NUM ? cl->num : NAN;
}

void gb__layout_num(FILE *f, const struct gb_doc_table *t, size_t r, size_t c)
{
    gb_fput_json_num(f, gb__layout_value(t, r, c));
}

void gb__layout_bool(FILE *f, const struct gb_doc_table *t, size_t r, size_t c)
{
    double v = gb__layout_value(t, r, c);
    fputs(!isnan(v) && v != 0 ? "true" : "false", f);
}

void gb__layout_str(FILE *f, const struct gb_doc_table *t, size_t r, size_t c)
{
    const struct gb_doc_cell *cl = gb_doc_cell(t, r, c);
    if (cl && cl->kind == GB_CELL_TEXT) {
        gb_fputs_json(f, cl->text);
        return;
    }
    char buf[64];
    gb_fputs_json(f, gb_doc_cell_text(cl, buf, sizeof buf));
}

void gb__layout_field(FILE *f, const struct gb_doc_table *t, size_t r, const char *key,
                      const char *col,
                      void (*put)(FILE *, const struct gb_doc_table *, size_t, size_t))
{
    fprintf(f, ", \"%s\": ", key);
    put(f, t, r, gb__layout_col(t, col));
}

const struct gb_doc_table *gb__layout_view(const struct gb_doc *d, const char *owner,
                                           const char *prefix, size_t k)
{
    char id[64];
    snprintf(id, sizeof id, "%s_%zu", prefix, k + 1);
    const struct gb_doc_table *v = gb__layout_table(d, id);
    if (!v)
        GB_FAIL(GB_EINVAL, "the %s's document has no table %s", owner, id);
    return v;
}

void gb__layout_suite_row(FILE *f, const struct gb_doc_table *t, size_t k,
                          const char *const texts[][2], size_t n)
{
    fprintf(f, "%s\n  {\"suite\": ", k ? "," : "");
    gb__layout_str(f, t, k, gb__layout_col(t, "suite"));
    for (size_t i = 0; i < n; i++)
        gb__layout_field(f, t, k, texts[i][0], texts[i][1], gb__layout_str);
}

void gb__layout_end_with_notes(FILE *f, const struct gb_doc_table *notes)
{
    fputs("],\n \"notes\": [", f);
    for (size_t r = 0; r < notes->nrows; r++) {
        fputs(r ? ", " : "", f);
        gb__layout_str(f, notes, r, 0);
    }
    fputs("]}\n", f);
}
