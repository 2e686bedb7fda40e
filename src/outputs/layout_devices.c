/* gpubench — the devices' JSON (what `gpubench devices --json` prints) from their document
 * (outputs/devices_out.h), through jansson as it always was (indent 2, then a line break): an
 * array of backends in the order probed,
 *   {"backend", "available", "reason"}                  unavailable
 *   {"backend", "available", "devices": [...], "topology": [...]}   available; "topology" with
 *                                                                   two devices or more
 * a device {index, name, vendor, driver, version, platform, arch, global_mem_bytes,
 * max_alloc_bytes, local_mem_bytes, l2_bytes, compute_units, clock_mhz, max_work_group_size,
 * mem_clock_mhz, mem_bus_bits, peak_mem_gbs, capabilities: [names], type,
 * native_vector_width_double, clock_source (only where set)}, a pair {from, to, path, link,
 * kind}. */
#include "outputs/layout.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

/* The text of cell (r, col) ("" when empty). */
static const char *text(const struct gb_doc_table *t, size_t r, const char *col)
{
    const struct gb_doc_cell *c = gb_doc_cell(t, r, gb__layout_col(t, col));
    return c && c->kind == GB_CELL_TEXT ? c->text : "";
}

static json_t *str(const struct gb_doc_table *t, size_t r, const char *col)
{
    return json_string(text(t, r, col));
}

/* The whole number of cell (r, col): a number, or a text of digits (an index). */
static json_t *count(const struct gb_doc_table *t, size_t r, const char *col)
{
    const struct gb_doc_cell *c = gb_doc_cell(t, r, gb__layout_col(t, col));
    if (c && c->kind == GB_CELL_TEXT)
        return json_integer((json_int_t)strtoll(c->text, NULL, 10));
    return json_integer((json_int_t)gb__layout_value(t, r, gb__layout_col(t, col)));
}

/* Sets key to v in o; false when either is missing (out of memory). */
static bool put(json_t *o, const char *key, json_t *v)
{
    if (o && v && json_object_set_new(o, key, v) == 0)
        return true;
    json_decref(v);
    return false;
}

/* Appends v to a; false when either is missing. */
static bool add(json_t *a, json_t *v)
{
    if (a && v && json_array_append_new(a, v) == 0)
        return true;
    json_decref(v);
    return false;
}

/* The capabilities' names of row r, written ',' between, as an array. */
static json_t *caps(const struct gb_doc_table *t, size_t r)
{
    json_t *a = json_array();
    const char *s = text(t, r, "capabilities");
    while (a && *s) {
        size_t n = strcspn(s, ",");
        if (!add(a, json_stringn(s, n))) {
            json_decref(a);
            return NULL;
        }
        s += n + (s[n] == ',');
    }
    return a;
}

static json_t *device(const struct gb_doc_table *t, size_t r)
{
    static const char *const texts[] = {"name", "vendor", "driver", "version", "platform", "arch"};
    static const char *const counts[][2] = {
        {"global_mem_bytes", "memory bytes"},      {"max_alloc_bytes", "max alloc bytes"},
        {"local_mem_bytes", "local memory bytes"}, {"l2_bytes", "l2 bytes"},
        {"compute_units", "compute units"},        {"clock_mhz", "clock MHz"},
        {"max_work_group_size", "max work-group"}, {"mem_clock_mhz", "mem clock MHz"},
        {"mem_bus_bits", "mem bus width"}};
    json_t *o = json_object();
    bool ok = put(o, "index", count(t, r, "index"));
    for (size_t i = 0; ok && i < sizeof texts / sizeof *texts; i++)
        ok = put(o, texts[i], str(t, r, texts[i]));
    for (size_t i = 0; ok && i < sizeof counts / sizeof *counts; i++)
        ok = put(o, counts[i][0], count(t, r, counts[i][1]));
    ok = ok &&
         put(o, "peak_mem_gbs",
             json_real(gb__layout_value(t, r, gb__layout_col(t, "peak mem GB/s")))) &&
         put(o, "capabilities", caps(t, r)) && put(o, "type", str(t, r, "type")) &&
         put(o, "native_vector_width_double", count(t, r, "vector width double")) &&
         (!*text(t, r, "clock source") || put(o, "clock_source", str(t, r, "clock source")));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *pair(const struct gb_doc_table *t, size_t r)
{
    json_t *o = json_object();
    if (put(o, "from", count(t, r, "from")) && put(o, "to", count(t, r, "to")) &&
        put(o, "path", str(t, r, "path")) && put(o, "link", str(t, r, "link")) &&
        put(o, "kind", str(t, r, "kind")))
        return o;
    json_decref(o);
    return NULL;
}

/* Row r of `backends` with its devices and, where it has a table of its own, its topology. */
static json_t *backend(const struct gb_doc *d, const struct gb_doc_table *tb, size_t r,
                       const struct gb_doc_table *td, const struct gb_doc_table *tl)
{
    const char *name = text(tb, r, "backend");
    const bool avail = gb__layout_value(tb, r, gb__layout_col(tb, "available")) != 0;
    json_t *o = json_object();
    bool ok = put(o, "backend", json_string(name)) && put(o, "available", json_boolean(avail));
    if (ok && !avail) {
        ok = put(o, "reason", str(tb, r, "reason"));
    } else if (ok) {
        json_t *devs = json_array();
        for (size_t k = 0; ok && k < td->nrows; k++)
            if (strcmp(text(td, k, "backend"), name) == 0)
                ok = add(devs, device(td, k));
        if (ok)
            ok = put(o, "devices", devs);
        else
            json_decref(devs);
        char id[128];
        snprintf(id, sizeof id, "topology_%s", name);
        if (ok && gb__layout_table(d, id)) {
            json_t *pairs = json_array();
            for (size_t k = 0; ok && k < tl->nrows; k++)
                if (strcmp(text(tl, k, "backend"), name) == 0)
                    ok = add(pairs, pair(tl, k));
            if (ok)
                ok = put(o, "topology", pairs);
            else
                json_decref(pairs);
        }
    }
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int gb__layout_devices(FILE *f, const struct gb_doc *d)
{
    const struct gb_doc_table *tb = gb__layout_table(d, "backends"),
                              *td = gb__layout_table(d, "devices"),
                              *tl = gb__layout_table(d, "links");
    if (!tb || !td || !tl)
        return GB_FAIL(GB_EINVAL, "the devices' document was built without its tables");
    json_t *root = json_array();
    bool ok = root != NULL;
    for (size_t r = 0; ok && r < tb->nrows; r++)
        ok = add(root, backend(d, tb, r, td, tl));
    int rc = 0;
    if (!ok)
        rc = GB_FAIL(GB_ENOMEM, "the devices' JSON");
    else if (json_dumpf(root, f, JSON_INDENT(2)) != 0 || fputc('\n', f) == EOF)
        rc = GB_FAIL(GB_EIO, "writing the devices' JSON failed");
    json_decref(root);
    return rc;
}
