/* gpubench — writers: one format each, rendering a neutral document (base/doc.h).
 *
 * A writer is one file, src/outputs/write_NAME.c, defining `const struct gb_writer
 * gb_writer_NAME`, and one line, NAME, in the `writers` list of meson.build; the build generates
 * the table (src/outputs/writers.c.in). A writer never knows which analysis made a document, and
 * a command picks writers by name (`--format NAME`), so a new format reaches every command that
 * offers formats. docs/design.md, "The sockets".
 */
#ifndef GB_WRITER_H
#define GB_WRITER_H

#include <stdbool.h>
#include <stdio.h>

#include "base/doc.h"

struct gb_write_opts {
    /* The text writer's width in columns (0: no limit): a table wider than it is fitted to it
     * (write_text.c says how), never cutting a number. gb_write_width() picks it. */
    int width;
};

struct gb_writer {
    const char *name;    /* "text", "markdown", ... : what --format takes */
    const char *summary; /* one line for --help */
    /* Only for judged documents (checks and a verdict: JUnit): a command whose document has
     * no verdict does not offer it. */
    bool needs_verdict;
    /* Renders d to f. Returns 0, or GB_EIO when writing failed (the detail set). Text from the
     * document is escaped for the format (Markdown, XML, JSON, CSV), and every format replaces
     * the bytes a terminal acts on (C0 controls but newline and tab, DEL, UTF-8 C1) with '?'. A
     * format for people (text, Markdown) leaves out data tables and columns (base/doc.h); a
     * writer reads cells through gb_doc_cell, row by row, so that views work. */
    int (*write)(FILE *f, const struct gb_doc *d, const struct gb_write_opts *o);
};

/* Defines writer NAME (in src/outputs/write_NAME.c, after its write function): the one line a
 * writer file ends with. */
#define GB_WRITER(NAME, SUMMARY, NEEDS_VERDICT, WRITE) \
    const struct gb_writer gb_writer_##NAME = {        \
        .name = #NAME, .summary = (SUMMARY), .needs_verdict = (NEEDS_VERDICT), .write = (WRITE)}

/* The writers of this build, in the order of meson.build's list, NULL-terminated. */
extern const struct gb_writer *const gb_writers[];
/* The writer called `name`, or NULL. */
const struct gb_writer *gb_writer_find(const char *name);
/* Whether writer w fits a document that is judged (`judged`) or not. */
bool gb_writer_fits(const struct gb_writer *w, bool judged);
/* "text, markdown, json or csv": the names of the writers that fit, into buf. Returns buf. */
char *gb_writer_names(bool judged, char *buf, size_t len);
/* The width for the text writer on f: the terminal's columns when f is a terminal, else
 * $COLUMNS when set to a number, else 0 (no limit: a file or a pipe keeps whole rows). A stream
 * with no descriptor of its own is the cleaning stream the commands write their terminal output
 * through (gb_term_stream over stdout): stdout's terminal then. */
int gb_write_width(FILE *f);

/* Renders d with the writer called `name` to f (width from gb_write_width(f)). GB_EINVAL with a
 * message naming the formats that fit when there is no such writer or it does not fit d. */
int gb_write_doc(FILE *f, const char *name, const struct gb_doc *d);

#endif
