/* gpubench — compare's JSON (gpubench-compare/1), rendered from compare's document alone: the
 * layout is the established one that users and scripts parse (docs/compare.md), the values are
 * the document's data tables (compare_out.h), whose columns are named by the JSON's keys. */
#include "outputs/compare_out.h"
#include "outputs/layout.h"

#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "results/json_arena.h"

/* Keys whose values are JSON booleans ("true" / "false" cells) and integers. */
static const char *const bool_keys[] = {"regression", "exact", "fail_on_faster", "across_devices",
                                        "threshold_given"};
static const char *const int_keys[] = {
    "base_samples", "new_samples", "nights",      "min_nights",
    "pairs",        "regressions", "exit_status", "learned_thresholds"};

static bool among(const char *key, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    return false;
}

static const struct gb_doc_table *table(const struct gb_doc *d, const char *id)
{
    for (size_t i = 0; i < d->ntables; i++)
        if (d->tables[i]->data && strcmp(d->tables[i]->id, id) == 0)
            return d->tables[i];
    return NULL;
}

static size_t column(const struct gb_doc_table *t, const char *name)
{
    for (size_t c = 0; t && c < t->ncols; c++)
        if (strcmp(t->cols[c].name, name) == 0)
            return c;
    return SIZE_MAX;
}

/* The cell as the JSON value of `key`; `ints`: every number an integer. */
static json_t *value(const char *key, const struct gb_doc_cell *c, bool ints)
{
    if (!c || c->kind == GB_CELL_EMPTY)
        return json_null();
    if (c->kind == GB_CELL_TEXT) {
        if (among(key, bool_keys, sizeof bool_keys / sizeof *bool_keys))
            return json_boolean(strcmp(c->text, "true") == 0);
        if (strcmp(key, "params") == 0) {
            json_t *p = json_loads(c->text, 0, NULL);
            return p ? p : json_object();
        }
        return json_string(c->text);
    }
    if (ints || among(key, int_keys, sizeof int_keys / sizeof *int_keys))
        return json_integer((json_int_t)c->num);
    return json_real(c->num);
}

/* Row r of t as members of o, columns [from, to). */
static void members(json_t *o, const struct gb_doc_table *t, size_t r, size_t from, size_t to,
                    bool ints)
{
    for (size_t c = from; t && c < to && c < t->ncols; c++)
        json_object_set_new(o, t->cols[c].name, value(t->cols[c].name, gb_doc_cell(t, r, c), ints));
}

/* The one row of table `id` as an object (empty when there is none). */
static json_t *object(const struct gb_doc *d, const char *id)
{
    const struct gb_doc_table *t = table(d, id);
    json_t *o = json_object();
    if (t && t->nrows)
        members(o, t, 0, 0, t->ncols, strcmp(id, "counts") == 0);
    return o;
}

/* Column 0 of every row of table `id` as an array. */
static json_t *list(const struct gb_doc *d, const char *id)
{
    const struct gb_doc_table *t = table(d, id);
    json_t *a = json_array();
    for (size_t r = 0; t && r < t->nrows; r++)
        json_array_append_new(a, value(t->cols[0].name, gb_doc_cell(t, r, 0), false));
    return a;
}

static json_t *policy(const struct gb_doc *d)
{
    const struct gb_doc_table *t = table(d, "policy"), *st = table(d, "suite_thresholds");
    json_t *o = json_object(), *suites = json_object();
    size_t split = column(t, "threshold") + 1;
    for (size_t r = 0; st && r < st->nrows; r++) {
        char name[1024];
        gb_doc_cell_text(gb_doc_cell(st, r, 0), name, sizeof name);
        json_object_set_new(suites, name, value("threshold", gb_doc_cell(st, r, 1), false));
    }
    if (t && t->nrows && split <= t->ncols) {
        members(o, t, 0, 0, split, false);
        json_object_set_new(o, "suite_thresholds", suites);
        members(o, t, 0, split, t->ncols, false);
    } else {
        json_decref(suites);
    }
    return o;
}

static json_t *rows(const struct gb_doc *d)
{
    const struct gb_doc_table *t = table(d, "rows");
    json_t *a = json_array();
    const size_t nights = column(t, "nights"), source = column(t, "threshold_source");
    for (size_t r = 0; t && r < t->nrows; r++) {
        json_t *o = json_object();
        /* A row not judged against the nights has none of their keys. */
        const struct gb_doc_cell *src = gb_doc_cell(t, r, source);
        bool judged = nights < t->ncols && src && src->kind == GB_CELL_TEXT;
        members(o, t, r, 0, judged ? t->ncols : nights, false);
        json_array_append_new(a, o);
    }
    return a;
}

int gb__layout_compare(FILE *f, const struct gb_doc *d)
{
    if (!d->kind || strcmp(d->kind, GB_COMPARE_DOC_KIND) != 0)
        return GB_FAIL(GB_EINVAL, "not a comparison's document (%s)", d->kind ? d->kind : "?");
    const struct gb_doc_table *rt = table(d, "rows");
    const size_t nrows = rt ? rt->nrows : 0;
    /* The tree is built in an arena and dropped whole (results/json_arena.h): a row's object
     * takes a few kilobytes of tree; more spills to malloc. */
    struct gb__json_arena A;
    const size_t row_tree = 8192, extra = (size_t)64 << 20;
    gb__json_arena_open(&A, nrows <= (SIZE_MAX - extra) / row_tree ? extra + nrows * row_tree : 0);
    gb__json_arena_start(&A);
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string("gpubench-compare/1"));
    json_object_set_new(root, "base", object(d, "base"));
    json_object_set_new(root, "new", object(d, "new"));
    const struct gb_doc_table *bt = table(d, "baseline");
    if (bt && bt->nrows) {
        json_t *b = json_object();
        members(b, bt, 0, 0, 1, false);
        json_object_set_new(b, "nights", list(d, "baseline_nights"));
        members(b, bt, 0, 1, bt->ncols, false);
        json_object_set_new(root, "baseline", b);
    }
    json_object_set_new(root, "policy", policy(d));
    json_object_set_new(root, "notes", list(d, "notes"));
    json_object_set_new(root, "counts", object(d, "counts"));
    const struct gb_doc_table *tt = table(d, "totals");
    if (tt && tt->nrows)
        members(root, tt, 0, 0, tt->ncols, false);
    json_object_set_new(root, "rows", rows(d));
    gb__json_arena_stop(); /* the dump's own buffers from malloc */
    int rc = json_dumpf(root, f, JSON_INDENT(2)) == 0 ? 0 : -1;
    fputc('\n', f);
    gb__json_arena_drop(&A, root);
    return rc || ferror(f) ? GB_FAIL(GB_EIO, "writing the comparison as JSON") : 0;
}
