/* gpubench — a neutral document: what an analysis says, before any format.
 *
 * An analysis (the run's summary, compare, fleet, history, calibrate) builds one document: a
 * title, notes, typed tables (named columns, one cell per column and row, footnotes that repeated
 * remarks share), and, where it judges, checks with a verdict each. Writers (src/outputs/
 * writer.h) render a document to one format each — text, markdown, json, csv, junit — and never
 * know which analysis made it. docs/design.md, "The sockets". A table or column marked data
 * holds what only a file needs (a command's JSON layout, outputs/layout.h): the writers for
 * people leave it out. A view is a table whose rows are made when a writer reads them, so that
 * a large table takes no memory of its own.
 *
 * Memory: every string is copied in; gb_doc_free releases everything. Functions that allocate
 * return 0 or GB_ENOMEM; after a failure the document stays valid (possibly missing what was
 * being added) and must still be freed. Text is stored as given: writers escape or clean it for
 * their format.
 */
#ifndef GB_DOC_H
#define GB_DOC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A number's digits (gb_doc_num) for 4 significant figures, %.4g. */
#define GB_DOC_SIG4 (-2)

enum gb_cell_kind {
    GB_CELL_EMPTY, /* nothing: "" in text, null in JSON */
    GB_CELL_TEXT,
    GB_CELL_NUM, /* a number; `digits` decimals in text formats, the full double in JSON */
};

struct gb_doc_cell {
    enum gb_cell_kind kind;
    char *text; /* GB_CELL_TEXT */
    double num; /* GB_CELL_NUM */
    /* GB_CELL_NUM: decimals shown by text-like writers; below 0, 2 - digits significant
     * figures (-1: %.3g, GB_DOC_SIG4: %.4g) */
    int digits;
    size_t *notes; /* the cell's footnotes: indices into its table's footnotes, in order */
    size_t nnotes;
    /* What people read in place of the value (gb_doc_shown): "<1e-4" for a p of 3e-6, "SLOWER!"
     * for a regression's "SLOWER". The writers for people show it (gb_doc_cell_text); json,
     * csv and OpenMetrics take the value. NULL: the value is shown. */
    char *shown;
    /* GB_CELL_NUM, or NULL: the number's unit ("us", "GB/s", "B"). The writers for people show
     * the number in engineering form with it (gb_doc_cell_people: "1.55 ms"); files keep the
     * bare number. */
    char *unit;
};

struct gb_doc_column {
    char *name;   /* a short header, also the JSON key */
    bool numeric; /* right-aligned by the text writer */
    /* A text column whose cells may be long (params, notes). The text writer fits a table by
     * position instead (write_text.c: the text left of the first number names the row and is
     * cut only where its cells still differ, the text right of it moves to footnotes), so this
     * is a hint for writers that have no such rule; a number is never cut (a number cut short is
     * a wrong number). */
    bool shrink;
    /* Prose, not identity (a note, a verdict): writers that key rows by their text columns
     * (OpenMetrics labels) leave it out. */
    bool prose;
    /* Data for files, not for reading: the writers for people (text, markdown) and OpenMetrics
     * leave it out; json and csv, and a command's own file layout, keep it. */
    bool data;
    /* Prose people read whole (a suite's summary, an axis's help): where it is the table's
     * last column and the table is wider than the terminal, the text writer wraps it at words
     * under its own column, rather than cut it or move it to a footnote. Other writers ignore
     * it (gb_doc_column_wrap). */
    bool wrap;
    /* A state that changes with what was measured (a verdict, a status): OpenMetrics makes it
     * a state set of its own (gb_doc_column_state), never a label of the numeric columns. */
    bool state;
    /* A state column's every state as OpenMetrics spells it, '|' between ("pass|warn|fail"),
     * or NULL: OpenMetrics then writes each of them for every row, whether or not a row holds
     * it, and a cell is its state matched case-blind ("PASS" is "pass"); NULL: the states the
     * rows hold, as they are written (gb_doc_column_states). */
    char *states;
    /* A numeric column's unit ("%", "us", "MHz", "bytes", "GB/s"; gb_doc_column_unit), or NULL;
     * unit_from, when not 0, is 1 + the index of the text column that holds each row's unit
     * (a figure whose unit is the row's). OpenMetrics names a gauge by its unit in base units
     * (a "%" column becomes a _ratio, "us" _seconds), leaving the unit's column out of the
     * labels. */
    char *unit;
    size_t unit_from;
    /* The header the writers for people show instead of `name` (NULL: the name), where the
     * name is a file's key that says less ("op us" shown as "op time"). */
    char *label;
};

struct gb__doc_view;

struct gb_doc_table {
    char *id;    /* [a-z0-9_] name: the JSON key, the CSV section */
    char *title; /* a line above the table */
    struct gb_doc_column *cols;
    size_t ncols;
    struct gb_doc_cell *cells; /* nrows x ncols, row-major */
    size_t nrows, caprows;
    char **footnotes; /* distinct texts; a cell's notes index them (shown 1-based: "[1,3]") */
    size_t nfootnotes;
    /* The whole table is data for files (as gb_doc_column.data): text, markdown and OpenMetrics
     * leave it out. */
    bool data;
    /* The table is for machines (json, csv, OpenMetrics) alone: the writers for people (text,
     * markdown) leave it out, what it says being in the document's lines already (a verdict). */
    bool machine;
    /* A view (gb_doc_view): rows made when read, NULL for a table that holds its cells. */
    struct gb__doc_view *view;
};

/* ERROR: the item could not be judged because it broke (a case that failed to run where it ran
 * before): a JUnit <error>, a failure everywhere else. */
enum gb_check_status { GB_CHECK_PASS, GB_CHECK_FAIL, GB_CHECK_SKIP, GB_CHECK_ERROR };

/* One judged item (a JUnit test case): a regression verdict, an outlier node. Every command
 * names its items one way (gb_doc_case_name): `group` is the suite (or what else was judged:
 * "health", "whole", "node", "run") and `name` is "group/case/params" in their written form,
 * without file paths, times or values, so that a CI server follows one item from night to
 * night. */
struct gb_doc_check {
    char *group; /* the JUnit classname */
    char *name;
    enum gb_check_status status;
    char *message; /* why it failed or was skipped; for a pass a detail or NULL */
};

struct gb_doc {
    char *kind; /* what made it, as a schema tag ("gpubench-summary/1") */
    char *title;
    char **notes;
    size_t nnotes;
    struct gb_doc_table **tables; /* each its own allocation: a table stays where it is */
    size_t ntables;
    struct gb_doc_check *checks;
    size_t nchecks;
    bool judged;   /* the document has a verdict (checks, exit status) */
    char *verdict; /* a one-line verdict ("2 regressions"), or NULL */
    /* Each check repeats a row of a table's state column (diag's tests): OpenMetrics writes
     * that state set alone, not the checks' own (gb_doc_checks_in_table). */
    bool checks_in_table;
    void **owned; /* memory freed with the document (gb_doc_own: views' contexts) */
    size_t nowned;
    /* What the checks judged, the JUnit testsuite ("gpubench compare quick"): stable from run
     * to run (no path, no time); NULL: the title. */
    char *suite;
    /* When what the document describes ran (the run's start; for several runs, the newest; for
     * the devices, when they were asked), in seconds since the Unix epoch; 0: none (the suites'
     * listing). OpenMetrics writes it as
     * gpubench_<doc>_timestamp_seconds. gb_doc_time sets it from a results file's start_utc. */
    double time;
};

/* An empty document of `kind` and `title`. 0 or GB_ENOMEM. */
int gb_doc_init(struct gb_doc *d, const char *kind, const char *title);
void gb_doc_free(struct gb_doc *d);

/* Hands p (malloc'd) to the document, which frees it in gb_doc_free: a view's context. On
 * failure p is freed at once and GB_ENOMEM returned. */
int gb_doc_own(struct gb_doc *d, void *p);

/* Adds a note (a line under the title), printf-style. */
int gb_doc_note(struct gb_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets the one-line verdict; the document becomes judged. */
int gb_doc_verdict(struct gb_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets what the checks judged (struct gb_doc's suite), printf-style. */
int gb_doc_suite(struct gb_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Adds a check; the document becomes judged. `message` may be NULL. */
int gb_doc_check(struct gb_doc *d, const char *group, const char *name, enum gb_check_status st,
                 const char *message);

/* The name of a judged item, into buf (struct gb_doc_check): "suite/case/params", the params
 * and their slash left out when `params` is empty or NULL, then "@device" when `device` is not
 * NULL (a command names the device only where one document judges several). Returns buf. */
char *gb_doc_case_name(const char *suite, const char *case_name, const char *params,
                       const char *device, char *buf, size_t len);

/* Adds a table with columns names[0..ncols) (all text, not shrinkable: gb_doc_column_set
 * changes that). On success *out is the table, valid until gb_doc_free. The text writer takes
 * the text columns left of the first numeric one as what names a row: put them first. */
int gb_doc_table(struct gb_doc *d, const char *id, const char *title, const char *const *names,
                 size_t ncols, struct gb_doc_table **out);
/* Marks column `col` numeric and/or shrinkable. */
void gb_doc_column_set(struct gb_doc_table *t, size_t col, bool numeric, bool shrink);
/* Marks column `col` prose (struct gb_doc_column). */
void gb_doc_column_prose(struct gb_doc_table *t, size_t col);
/* Marks column `col` prose that wraps for people (struct gb_doc_column.wrap). */
void gb_doc_column_wrap(struct gb_doc_table *t, size_t col);
/* Marks column `col` data for files (struct gb_doc_column). */
void gb_doc_column_data(struct gb_doc_table *t, size_t col);
/* Marks column `col` a state (struct gb_doc_column): a verdict, a status. */
void gb_doc_column_state(struct gb_doc_table *t, size_t col);
/* Gives state column `col` every state it can hold, '|' between, as OpenMetrics spells them
 * (struct gb_doc_column.states; copied). GB_ENOMEM or 0. */
int gb_doc_column_states(struct gb_doc_table *t, size_t col, const char *states);
/* Marks the table for machines alone (struct gb_doc_table.machine). */
void gb_doc_table_machine(struct gb_doc_table *t);
/* Marks the checks as repeating a table's state column (struct gb_doc.checks_in_table). */
void gb_doc_checks_in_table(struct gb_doc *d);
/* Gives numeric column `col` its unit (copied; "%", "us", "bytes"), or, with unit NULL, the
 * text column `from` that holds each row's unit (struct gb_doc_column). GB_ENOMEM or 0. */
int gb_doc_column_unit(struct gb_doc_table *t, size_t col, const char *unit, size_t from);
/* Sets d->time from an ISO 8601 UTC time ("2026-11-30T04:00:00Z"), keeping the later of it and
 * the time already set (the newest of several runs); a time that does not parse is ignored. */
void gb_doc_time(struct gb_doc *d, const char *iso_utc);
/* Sets the header people read for column `col` (struct gb_doc_column.label). 0 or GB_ENOMEM. */
int gb_doc_column_label(struct gb_doc_table *t, size_t col, const char *label);

/* Makes the cells of row `row` of a view: sets them with gb_doc_text and gb_doc_num on t (at
 * `row`; every cell starts empty). Returns 0 or GB_ENOMEM. */
typedef int (*gb_doc_fill_fn)(const void *ctx, struct gb_doc_table *t, size_t row);
/* Adds a view: a table of `nrows` rows whose cells are made by fill(ctx, t, row) when a writer
 * reads the row (gb_doc_cell), one row at a time, so that a large table (every node of every
 * case) takes no memory of its own. ctx must outlive the document. A view's rows cannot be
 * added (gb_doc_row) and its cells carry no footnotes. Otherwise as gb_doc_table. A fill that
 * fails leaves the row's cells empty. */
int gb_doc_view(struct gb_doc *d, const char *id, const char *title, const char *const *names,
                size_t ncols, size_t nrows, gb_doc_fill_fn fill, const void *ctx,
                struct gb_doc_table **out);
/* Marks the table data for machine-readable writers only (struct gb_doc_table). */
void gb_doc_table_data(struct gb_doc_table *t);
/* Appends an empty row; *row is its index. */
int gb_doc_row(struct gb_doc_table *t, size_t *row);
/* The cell at (row, col): text (printf-style), a number shown with `digits` decimals (below 0:
 * significant figures, struct gb_doc_cell;
 * NaN and infinities become an empty cell), or nothing. Out-of-range positions are ignored. */
int gb_doc_text(struct gb_doc_table *t, size_t row, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void gb_doc_num(struct gb_doc_table *t, size_t row, size_t col, double v, int digits);
/* Sets what people read in place of the value of the cell (row, col), which must be set
 * already (struct gb_doc_cell's shown), printf-style. GB_ENOMEM or 0. */
int gb_doc_shown(struct gb_doc_table *t, size_t row, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* As gb_doc_num with the number's unit (struct gb_doc_cell.unit): people read it in engineering
 * form with `sig` significant figures ("1.55 ms"), files the full number. 0 or GB_ENOMEM. */
int gb_doc_num_unit(struct gb_doc_table *t, size_t row, size_t col, double v, int sig,
                    const char *unit);
/* Attaches footnote `text` to the cell (row, col): the same text in one table is one footnote,
 * so a remark repeated on every row is printed once. */
int gb_doc_footnote(struct gb_doc_table *t, size_t row, size_t col, const char *text);

/* The cell (row, col) of t (NULL when out of range). For a view, the pointer holds until the
 * next gb_doc_cell of another row of that table. */
const struct gb_doc_cell *gb_doc_cell(const struct gb_doc_table *t, size_t row, size_t col);
/* A cell's footnote marks as shown, "1,3" (1-based), into buf; "" when it has none. Returns
 * buf. */
char *gb_doc_cell_marks(const struct gb_doc_cell *c, char *buf, size_t len);
/* A cell as people read it into buf: its shown text when set, else its text, or its number with
 * its digits, or "". Returns buf. */
char *gb_doc_cell_text(const struct gb_doc_cell *c, char *buf, size_t len);
/* A cell as people read it (text and Markdown), into buf: as gb_doc_cell_text, but a number
 * with a unit in engineering form with it (gb_format_eng: "1.55 ms", "22.9 MB"), and a number
 * of significant figures that printf would write with an exponent ("4.1e+03") in engineering
 * form too ("4.1 k"). Returns buf. */
char *gb_doc_cell_people(const struct gb_doc_cell *c, char *buf, size_t len);

#endif
