/* gpubench — what the writers of src/outputs share (not a public header). */
#ifndef GB_WRITER_PRIVATE_H
#define GB_WRITER_PRIVATE_H

#include <stdbool.h>
#include <stdio.h>

#include "base/doc.h"

/* Writes s (NULL: nothing) with every byte a terminal acts on replaced by '?' (C0 controls, DEL,
 * the UTF-8 C1 controls, bidirectional controls and U+2028/U+2029); a tab, and a newline unless keep_newlines, becomes a space. */
void gb__put_clean(FILE *f, const char *s, bool keep_newlines);
/* A copy of s (NULL: "") that any format may hold: bytes that are not valid UTF-8, C0 controls
 * but newline and tab, DEL, the UTF-8 C1 controls, the bidirectional controls
 * (U+202A..U+202E, U+2066..U+2069) and U+2028, U+2029 each become '?'. NULL when out of memory. */
char *gb__clean_dup(const char *s);
/* Whether check c's name begins with its group and a slash ("memory/triad/..." in "memory", the
 * one way items are named: base/doc.h): a writer that shows both then shows the name alone. */
bool gb__check_named_in_full(const struct gb_doc_check *c);
/* Flushes f: 0, or GB_EIO naming `format` when the stream saw an error. */
int gb__write_end(FILE *f, const char *format);

#endif
