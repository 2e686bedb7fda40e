/* gpubench — the commands' established files, rendered from their documents.
 *
 * A command whose file users parse (compare's, fleet's, history's and calibrate's JSON; history's
 * CSV) builds one document (base/doc.h) for every output; its kind names the file's layout
 * ("gpubench-fleet/1"; compare's document is "gpubench-compare-doc/2", its file
 * "gpubench-compare/1"), and the document carries what the file needs in data tables and
 * columns (gb_doc_table.data, gb_doc_column.data), which the writers for people leave out.
 * gb_write_layout turns a document of such a kind into the file's established layout, one
 * renderer per layout (layout_KIND.c; what they share: layout_cells.c); the schema's version
 * changes when a field must, and the readers keep reading the old one. */
#ifndef GB_LAYOUT_H
#define GB_LAYOUT_H

#include <stdio.h>

#include "base/doc.h"

#define GB_FLEET_SCHEMA "gpubench-fleet/1"
#define GB_HISTORY_SCHEMA "gpubench-history/1"
/* history --csv: one row per case and night it ran (not a JSON file; the layout of its CSV). */
#define GB_HISTORY_CSV_SCHEMA "gpubench-history-csv/1"
#define GB_CALIBRATION_SCHEMA "gpubench-calibration/1"
/* devices --json: the array of backends (docs/commands.md); the file names no schema. */
#define GB_DEVICES_SCHEMA "gpubench-devices/1"

/* Renders d in the layout of its kind (one of the schemas above) to f. 0, GB_EINVAL when no
 * layout has that kind or d lacks a table the layout needs (the document was built without its
 * data), GB_EIO when writing failed, GB_ENOMEM. */
int gb_write_layout(FILE *f, const struct gb_doc *d);

/* ---- for the layouts (layout_*.c) -------------------------------------------------------- */

/* The first table of d with this id, or NULL. */
const struct gb_doc_table *gb__layout_table(const struct gb_doc *d, const char *id);
/* The index of t's column `name`, or t->ncols when it has none (a cell read there is NULL). */
size_t gb__layout_col(const struct gb_doc_table *t, const char *name);
/* The cell (r, c) as JSON: a number (null when empty, text or not finite; a whole number
 * without a fraction, so an integer to a reader); true or false (a number not 0); a string (its
 * text, or the number as shown; "" when empty). */
void gb__layout_num(FILE *f, const struct gb_doc_table *t, size_t r, size_t c);
void gb__layout_bool(FILE *f, const struct gb_doc_table *t, size_t r, size_t c);
void gb__layout_str(FILE *f, const struct gb_doc_table *t, size_t r, size_t c);
/* Writes `, "KEY": ` then row r's cell in column `col` with put (one of the three above). */
void gb__layout_field(FILE *f, const struct gb_doc_table *t, size_t r, const char *key,
                      const char *col,
                      void (*put)(FILE *, const struct gb_doc_table *, size_t, size_t));
/* The cell (r, c)'s number (NaN when it holds none). */
double gb__layout_value(const struct gb_doc_table *t, size_t r, size_t c);
/* Row k's own table in d, the view "PREFIX_<k + 1>" (case_3: row 2's), or NULL after
 * GB_FAIL(GB_EINVAL, "the OWNER's document has no table ...") when d lacks it. */
const struct gb_doc_table *gb__layout_view(const struct gb_doc *d, const char *owner,
                                           const char *prefix, size_t k);
/* Opens row k of t as an object in an array: `,` unless k is 0, then `\n  {"suite": ` and the
 * row's suite, then each of the n fields `, "KEY": "TEXT"` (texts[i][0] the key, texts[i][1]
 * the column). */
void gb__layout_suite_row(FILE *f, const struct gb_doc_table *t, size_t k,
                          const char *const texts[][2], size_t n);
/* Ends a file: closes the array before, then `,\n "notes": [...]` of notes' first column and the
 * top-level object. */
void gb__layout_end_with_notes(FILE *f, const struct gb_doc_table *notes);

/* The layouts, each for documents of its schema. Return as gb_write_layout. */
/* compare's JSON (schema "gpubench-compare/1": docs/compare.md) from a document of kind
 * GB_COMPARE_DOC_KIND: {"schema", "base", "new", "baseline" (against nights: {"folder",
 * "nights": [files], "learned_thresholds"}), "policy", "notes", "counts", "pairs",
 * "regressions", "exit_status", "rows": [...]}, a row's nights keys ("nights", "spread", "mad",
 * "floor", "z", "cut", "catches", "threshold_source": fractions, not percent) only where it was
 * judged against nights. Returns 0, GB_EINVAL for a document of another kind, GB_EIO when
 * writing failed. */
int gb__layout_compare(FILE *f, const struct gb_doc *d);
int gb__layout_fleet(FILE *f, const struct gb_doc *d);
int gb__layout_history(FILE *f, const struct gb_doc *d);
int gb__layout_history_csv(FILE *f, const struct gb_doc *d);
int gb__layout_calibration(FILE *f, const struct gb_doc *d);
int gb__layout_devices(FILE *f, const struct gb_doc *d);

#endif
