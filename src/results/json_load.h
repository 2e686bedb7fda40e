/* gpubench — parsing a JSON document into a jansson tree, leaving chosen members out (private to
 * the results reader, results_read.c).
 *
 * jansson's own parser reads about 30 MB/s here (a stream read a character at a time, every
 * number converted, every node allocated): a fleet of 10,000 results files of 300 cases is
 * minutes of it. This one lexes with yajl's event parser (Debian's libyajl; several times faster
 * on the same files) and builds the same tree with jansson's constructors, and a member named in
 * `prune` is lexed and checked but neither built nor converted: a reader that needs only each
 * result's headline skips its samples and statistics at the cost of lexing them.
 *
 * The tree is what json_loadb(buf, len, JSON_REJECT_DUPLICATES) gives for a JSON text whose top
 * level is an object or an array: a number with a fraction or an exponent is a real, another an
 * integer (json_int_t); a duplicate key in an object that is built, an integer out of json_int_t's
 * range, a real that overflows, a string holding U+0000 and nesting deeper than 2048 are errors,
 * as in jansson; strings and keys that are built are checked to be UTF-8, and a surrogate escape
 * not in a pair is refused anywhere (yajl alone decodes such escapes loosely); only whitespace may
 * follow the document. A member left out is only lexed for its structure (brackets, commas,
 * tokens): it may hold what a built one may not (a duplicate key, an integer out of range, a
 * string or a key that is not UTF-8 or holds \u0000).
 */
#ifndef GB_JSON_LOAD_H
#define GB_JSON_LOAD_H

#include <stddef.h>

#include <jansson.h>

/* At most this many prune paths, each at most this many segments deep. */
#define GB_JSON_PRUNE_MAX 32
#define GB_JSON_PRUNE_DEPTH 8

/* Members to leave out, as paths of segments from the top: "results.*.samples" is the member
 * "samples" of every element of the top-level member "results" ("*" is any array element or any
 * member). A path that begins with "!" keeps what it names where another path would leave it
 * out: {"results.*.*", "!results.*.value", NULL} keeps only each result's value. Keys are
 * compared as decoded (a key written "\u0073amples" is "samples"). NULL-terminated; NULL: none. */
typedef const char *const *gb_json_prune;

/* Parses buf[0..len) (need not be NUL-terminated). Returns the tree (new reference), or NULL with
 * *err: text, 1-based line and column of the byte where parsing stopped, and position, its byte
 * offset (len: the text ended early). Allocates through jansson's allocator (json_set_alloc_funcs:
 * an arena, json_arena.h, sees every node). Thread-safe. */
json_t *gb__json_loadb(const char *buf, size_t len, gb_json_prune prune, json_error_t *err);

#endif
