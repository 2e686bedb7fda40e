/* gpubench — profiles: the libyaml walker of the loader (private contract in config_private.h).
 *
 * The text is loaded with libyaml's document API, so that every node keeps the place it came
 * from; every check then reports "source:line:column: message" (1-based) at the offending node.
 * libyaml resolves no types (every scalar is a string): the helpers here read a scalar strictly
 * as the number, boolean or name that the key or axis it is given to expects.
 */
#include "run/config_private.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error.h"
#include "base/util.h"

/* ---- locations and errors -------------------------------------------------------------- */

struct gb__loc gb__node_loc(const struct gb__ld *l, const yaml_node_t *n)
{
    struct gb__loc at = {l->src, 1, 1};
    if (n) {
        at.line = (int)n->start_mark.line + 1;
        at.col = (int)n->start_mark.column + 1;
    }
    return at;
}

static int vfail_loc(struct gb__ld *l, struct gb__loc at, const char *fmt, va_list ap)
{
    if (l->err && l->errlen) {
        int w = snprintf(l->err, l->errlen, "%s:%d:%d: ", at.src, at.line, at.col);
        size_t n = w < 0 ? 0 : (size_t)w;
        if (n < l->errlen)
            vsnprintf(l->err + n, l->errlen - n, fmt, ap);
    }
    return GB_ECONFIG;
}

int gb__fail_loc(struct gb__ld *l, struct gb__loc at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail_loc(l, at, fmt, ap);
    va_end(ap);
    return rc;
}

/* Reports an error at node n (at line 1, column 1 of the source when n is NULL). */
int gb__fail(struct gb__ld *l, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail_loc(l, gb__node_loc(l, n), fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- node helpers ---------------------------------------------------------------------- */

yaml_node_t *gb__node_at(const struct gb__ld *l, int id)
{
    return yaml_document_get_node(l->doc, id);
}

bool gb__is_null(const yaml_node_t *n)
{
    if (!n || n->type != YAML_SCALAR_NODE)
        return false;
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = (const char *)n->data.scalar.value;
    return n->data.scalar.length == 0 || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
           strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

const char *gb__kind(const yaml_node_t *n)
{
    if (!n || gb__is_null(n))
        return "nothing";
    switch (n->type) {
    case YAML_MAPPING_NODE:
        return "a mapping";
    case YAML_SEQUENCE_NODE:
        return "a list";
    case YAML_SCALAR_NODE:
        return "a scalar";
    default:
        return "nothing";
    }
}

const char *gb__sval(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

/* A non-null scalar's text, or an error naming `what` was expected. */
int gb__want_scalar(struct gb__ld *l, const yaml_node_t *n, const char *what, const char **out)
{
    if (!n || n->type != YAML_SCALAR_NODE || gb__is_null(n))
        return gb__fail(l, n, "expected %s, got %s", what, gb__kind(n));
    if (strlen(gb__sval(n)) != n->data.scalar.length)
        return gb__fail(l, n, "expected %s, got text with a NUL character", what);
    *out = gb__sval(n);
    return 0;
}

/* Checks that n is a mapping whose keys are distinct non-null scalars. An empty value takes the
 * place of its key, so that an error about it points at the key rather than at the next line. */
int gb__check_map(struct gb__ld *l, yaml_node_t *n, const char *what)
{
    if (!n || n->type != YAML_MAPPING_NODE)
        return gb__fail(l, n, "expected a mapping for %s, got %s", what, gb__kind(n));
    yaml_node_pair_t *pairs = n->data.mapping.pairs.start;
    size_t np = (size_t)(n->data.mapping.pairs.top - pairs);
    for (size_t i = 0; i < np; i++) {
        yaml_node_t *k = gb__node_at(l, pairs[i].key), *v = gb__node_at(l, pairs[i].value);
        if (!k || k->type != YAML_SCALAR_NODE || gb__is_null(k))
            return gb__fail(l, k, "expected a key name in %s, got %s", what, gb__kind(k));
        for (size_t j = 0; j < i; j++) {
            yaml_node_t *kj = gb__node_at(l, pairs[j].key);
            if (strcmp(gb__sval(kj), gb__sval(k)) == 0)
                return gb__fail(l, k, "duplicate key \"%s\" in %s (first at line %d, column %d)",
                                gb__sval(k), what, (int)kj->start_mark.line + 1,
                                (int)kj->start_mark.column + 1);
        }
        if (v && gb__is_null(v) && v->data.scalar.length == 0)
            v->start_mark = k->start_mark;
    }
    return 0;
}

size_t gb__seq_len(const yaml_node_t *n)
{
    return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

yaml_node_t *gb__seq_item(const struct gb__ld *l, const yaml_node_t *n, size_t i)
{
    return gb__node_at(l, n->data.sequence.items.start[i]);
}

int gb__scalar_or_list(struct gb__ld *l, yaml_node_t *n, const char *what, const char *if_empty,
                       size_t *len)
{
    if (!n || (n->type != YAML_SEQUENCE_NODE && (n->type != YAML_SCALAR_NODE || gb__is_null(n))))
        return gb__fail(l, n, "expected %s, got %s", what, gb__kind(n));
    *len = n->type == YAML_SEQUENCE_NODE ? gb__seq_len(n) : 1;
    if (*len == 0)
        return gb__fail(l, n, "%s", if_empty);
    return 0;
}

yaml_node_t *gb__list_item(const struct gb__ld *l, yaml_node_t *n, size_t i)
{
    return n->type == YAML_SEQUENCE_NODE ? gb__seq_item(l, n, i) : n;
}

/* ---- scalars --------------------------------------------------------------------------- */

/* Strict base-10 integer: optional sign, digits, nothing else. */
bool gb__parse_i64(const char *s, int64_t *out)
{
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return false;
    for (; *p; p++)
        if (!isdigit((unsigned char)*p))
            return false;
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno == ERANGE)
        return false;
    *out = (int64_t)v;
    return true;
}

bool gb__parse_u64(const char *s, uint64_t *out)
{
    const char *p = s;
    if (*p == '+')
        p++;
    if (!isdigit((unsigned char)*p))
        return false;
    for (const char *q = p; *q; q++)
        if (!isdigit((unsigned char)*q))
            return false;
    errno = 0;
    unsigned long long v = strtoull(p, NULL, 10);
    if (errno == ERANGE)
        return false;
    *out = (uint64_t)v;
    return true;
}

/* A finite decimal number ("2", "-0.5", "1e-3"); no hex, inf or nan. */
bool gb__parse_f64(const char *s, double *out)
{
    if (!*s)
        return false;
    for (const char *p = s; *p; p++)
        if (!isdigit((unsigned char)*p) && !strchr("+-.eE", *p))
            return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool gb__parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"true", "yes", "on"};
    static const char *const no[] = {"false", "no", "off"};
    for (size_t i = 0; i < 3; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = true;
            return true;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = false;
            return true;
        }
    }
    return false;
}

bool gb__is_ident(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("_.+-", *s))
            return false;
    return true;
}

/* "a, b or c" of a NULL-terminated list, into buf. */
const char *gb__hint(const char *given, const char *list, char *buf, size_t len)
{
    char word[64];
    buf[0] = '\0';
    if (gb_did_you_mean_list(given, list, word, sizeof word))
        snprintf(buf, len, "did you mean \"%s\"? ", word);
    return buf;
}

const char *gb__join_or(const char *const *names, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    while (names[n])
        n++;
    for (size_t i = 0; i < n; i++)
        gb_appendf(buf, len, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
    return buf;
}

/* ---- documents ------------------------------------------------------------------------- */

/* The line and column (1-based, in characters) of byte offset off of text. */
static struct gb__loc offset_loc(const struct gb__ld *l, const char *text, size_t len, size_t off)
{
    struct gb__loc at = {l->src, 1, 1};
    for (size_t i = 0; i < off && i < len; i++) {
        if (text[i] == '\n') {
            at.line++;
            at.col = 1;
        } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
            at.col++;
        }
    }
    return at;
}

/* A libyaml mark as a location. At the end of a text without a final newline libyaml's mark is
 * on a line that does not exist; that becomes the end of the last line. */
static struct gb__loc mark_loc(const struct gb__ld *l, const char *text, size_t len, yaml_mark_t m)
{
    if (m.index >= len)
        return offset_loc(l, text, len, len);
    return (struct gb__loc){l->src, (int)m.line + 1, (int)m.column + 1};
}

/* How deep mappings and sequences may nest in a profile. The deepest a real profile goes is
 * about 6 (suites: NAME: params: KEY: [list]); libyaml needs time quadratic in the depth (200 KB
 * of "{a: {a: ..." took 48 s), and the loader walks the tree recursively. */
#define MAX_YAML_DEPTH 64

/* Streams text's parse events and refuses, at the first one too deep, a text nested deeper than
 * MAX_YAML_DEPTH, before libyaml builds the document. A syntax error ends the scan quietly: the
 * load that follows reports it. */
static int check_depth(struct gb__ld *l, const char *text, size_t len)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return gb__fail(l, NULL, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int depth = 0, rc = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev))
            break;
        yaml_event_type_t t = ev.type;
        if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) {
            if (++depth > MAX_YAML_DEPTH) {
                rc = gb__fail_loc(l, mark_loc(l, text, len, ev.start_mark),
                                  "nested deeper than %d levels of mappings and lists",
                                  MAX_YAML_DEPTH);
                yaml_event_delete(&ev);
                break;
            }
        } else if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT) {
            depth--;
        }
        yaml_event_delete(&ev);
        if (t == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete(&parser);
    return rc;
}

/* Loads the single YAML document of text into doc; reports syntax errors and nesting deeper than
 * MAX_YAML_DEPTH. */
int gb__load_doc(struct gb__ld *l, const char *text, size_t len, yaml_document_t *doc)
{
    int rc = check_depth(l, text, len);
    if (rc)
        return rc;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return gb__fail(l, NULL, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, doc)) {
        /* Reader errors carry a byte offset, not a mark. */
        struct gb__loc at = parser.error == YAML_READER_ERROR
                                ? offset_loc(l, text, len, parser.problem_offset)
                                : mark_loc(l, text, len, parser.problem_mark);
        struct gb__loc ctx = mark_loc(l, text, len, parser.context_mark);
        const char *problem = parser.problem ? parser.problem : "malformed YAML";
        if (parser.context)
            rc = gb__fail_loc(l, at, "syntax error: %s (%s at line %d, column %d)", problem,
                              parser.context, ctx.line, ctx.col);
        else
            rc = gb__fail_loc(l, at, "syntax error: %s", problem);
        yaml_parser_delete(&parser);
        return rc;
    }
    /* A second document would be silently ignored; refuse it instead. */
    if (yaml_document_get_root_node(doc)) {
        yaml_document_t next;
        if (!yaml_parser_load(&parser, &next)) {
            struct gb__loc at = mark_loc(l, text, len, parser.problem_mark);
            rc = gb__fail_loc(l, at, "syntax error: %s",
                              parser.problem ? parser.problem : "malformed YAML");
        } else {
            yaml_node_t *r = yaml_document_get_root_node(&next);
            if (r)
                rc = gb__fail(l, r, "a profile is one YAML document; this is a second one");
            yaml_document_delete(&next);
        }
        if (rc)
            yaml_document_delete(doc);
    }
    yaml_parser_delete(&parser);
    return rc;
}
