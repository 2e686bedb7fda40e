/* gpubench — the JSON writer (jansson): the document as it is, numbers as numbers.
 *   {"schema": "gpubench-doc/1", "kind": ..., "title": ..., "notes": [...],
 *    "tables": [{"id", "title", "columns": [...], "rows": [{COLUMN: value, ...,
 *                "footnotes": [text, ...]}], "footnotes": [...]}],
 *    "checks": [{"group", "name", "status": "pass"|"fail"|"skip"|"error", "message"}],
 *    "verdict": ...}
 * "checks" and "verdict" only in a judged document; an empty cell is null; a data table
 * (struct gb_doc_table) is a table like the others. */
#include "outputs/writer.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "outputs/writer_private.h"

struct jw {
    bool bad;
};

static void put(struct jw *w, json_t *o, const char *key, json_t *v)
{
    if (!o || json_object_set_new(o, key, v) != 0)
        w->bad = true;
}

static void add(struct jw *w, json_t *a, json_t *v)
{
    if (!a || json_array_append_new(a, v) != 0)
        w->bad = true;
}

/* A JSON string of s, cleaned (gb__clean_dup), so that jansson never refuses it. */
static json_t *jstr(const char *s)
{
    char *c = gb__clean_dup(s);
    json_t *j = c ? json_string(c) : NULL;
    free(c);
    return j;
}

static json_t *cell_json(const struct gb_doc_cell *c)
{
    if (!c || c->kind == GB_CELL_EMPTY)
        return json_null();
    if (c->kind == GB_CELL_NUM)
        return json_real(c->num);
    return jstr(c->text);
}

static json_t *row_json(struct jw *w, const struct gb_doc_table *t, size_t r)
{
    json_t *o = json_object(), *notes = json_array();
    for (size_t c = 0; c < t->ncols; c++) {
        const struct gb_doc_cell *cl = gb_doc_cell(t, r, c);
        char *key = gb__clean_dup(t->cols[c].name);
        put(w, o, key ? key : "?", cell_json(cl));
        free(key);
        for (size_t i = 0; cl && i < cl->nnotes; i++)
            add(w, notes, jstr(t->footnotes[cl->notes[i]]));
    }
    if (json_array_size(notes))
        put(w, o, "footnotes", notes);
    else
        json_decref(notes);
    return o;
}

static json_t *table_json(struct jw *w, const struct gb_doc_table *t)
{
    json_t *o = json_object(), *cols = json_array(), *rows = json_array(), *fn = json_array();
    put(w, o, "id", jstr(t->id));
    put(w, o, "title", jstr(t->title));
    for (size_t c = 0; c < t->ncols; c++)
        add(w, cols, jstr(t->cols[c].name));
    put(w, o, "columns", cols);
    for (size_t r = 0; r < t->nrows; r++)
        add(w, rows, row_json(w, t, r));
    put(w, o, "rows", rows);
    for (size_t k = 0; k < t->nfootnotes; k++)
        add(w, fn, jstr(t->footnotes[k]));
    put(w, o, "footnotes", fn);
    return o;
}

static json_t *doc_json(struct jw *w, const struct gb_doc *d)
{
    static const char *const status[] = {"pass", "fail", "skip", "error"};
    json_t *o = json_object(), *notes = json_array(), *tables = json_array();
    put(w, o, "schema", json_string("gpubench-doc/1"));
    put(w, o, "kind", jstr(d->kind));
    put(w, o, "title", jstr(d->title));
    for (size_t i = 0; i < d->nnotes; i++)
        add(w, notes, jstr(d->notes[i]));
    put(w, o, "notes", notes);
    for (size_t i = 0; i < d->ntables; i++)
        add(w, tables, table_json(w, d->tables[i]));
    put(w, o, "tables", tables);
    if (d->judged) {
        json_t *checks = json_array();
        for (size_t i = 0; i < d->nchecks; i++) {
            const struct gb_doc_check *c = &d->checks[i];
            json_t *co = json_object();
            put(w, co, "group", jstr(c->group));
            put(w, co, "name", jstr(c->name));
            put(w, co, "status", json_string(status[c->status]));
            put(w, co, "message", c->message ? jstr(c->message) : json_null());
            add(w, checks, co);
        }
        put(w, o, "checks", checks);
        put(w, o, "verdict", d->verdict ? jstr(d->verdict) : json_null());
    }
    return o;
}

static int json_write(FILE *f, const struct gb_doc *d, const struct gb_write_opts *o)
{
    (void)o;
    struct jw w = {false};
    json_t *root = doc_json(&w, d);
    if (w.bad || !root) {
        json_decref(root);
        return GB_FAIL(GB_ENOMEM, "building the JSON output");
    }
    int rc = json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(root);
    fputc('\n', f);
    if (rc != 0)
        return GB_FAIL(GB_EIO, "writing the JSON output failed");
    return gb__write_end(f, "json");
}

GB_WRITER(json, "JSON (gpubench-doc/1): tables of rows keyed by column", false, json_write);
