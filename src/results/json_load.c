/* gpubench — a JSON text into a jansson tree through yajl's event parser, with members left out
 * (contract in json_load.h). */
#include "results/json_load.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

/* jansson's limit (JSON_PARSER_MAX_DEPTH), so that both parsers refuse the same texts. */
#define MAX_DEPTH 2048

/* An open container that is built, with the prune paths its path is a prefix of. */
struct frame {
    json_t *node;
    uint32_t live;      /* bit i: the container's path is the first `level` segments of path i */
    uint32_t level;     /* the number of segments of its path (0: the top) */
    uint32_t elem_live; /* an array's: its elements' prune paths */
    bool elem_pruned;   /* an array's: its elements are left out */
};

struct builder {
    const char *seg[GB_JSON_PRUNE_MAX][GB_JSON_PRUNE_DEPTH];
    size_t seg_len[GB_JSON_PRUNE_MAX][GB_JSON_PRUNE_DEPTH]; /* SIZE_MAX: "*" */
    uint32_t nseg[GB_JSON_PRUNE_MAX];
    uint32_t keep; /* bit i: path i is a "!" path, a member kept inside one left out */
    uint32_t npaths;
    struct frame stack[MAX_DEPTH];
    size_t depth;      /* open containers that are built */
    size_t skipping;   /* > 0: inside a value left out, this many containers deep in it */
    bool key_pruned;   /* in an object: the value of the pending key is left out */
    uint32_t key_live; /* in an object: the pending key's prune paths */
    struct memo {
        uint32_t live, level, len, child_live;
        bool pruned, used;
        char key[30];
    } memo[64]; /* child_paths' answers for keys seen (every result repeats the same keys) */
    json_t *root;
    yajl_handle h;
    size_t end;  /* the offset just past the top container, once it closed */
    bool closed; /* it did */
    char *key;   /* in an object: the pending key */
    size_t key_len, key_cap;
    char msg[JSON_ERROR_TEXT_LENGTH];
};

static int fail(struct builder *b, const char *fmt, const char *arg)
{
    snprintf(b->msg, sizeof b->msg, fmt, arg);
    return 0; /* yajl: cancel the parse */
}

/* The prune paths of a child named name (len bytes; NULL: an array element) of the container on
 * top, in *live; true when the child itself is left out: a path ends at it and no "!" path. */
static bool child_paths(const struct builder *b, const char *name, size_t len, uint32_t *live)
{
    const struct frame *top = &b->stack[b->depth - 1];
    *live = 0;
    bool pruned = false, kept = false;
    for (uint32_t m = top->live; m;) {
        uint32_t i = (uint32_t)__builtin_ctz(m);
        m &= m - 1;
        size_t l = b->seg_len[i][top->level];
        bool match =
            l == SIZE_MAX || (name && l == len && memcmp(b->seg[i][top->level], name, len) == 0);
        if (!match)
            continue;
        if (b->nseg[i] == top->level + 1) {
            if (b->keep & (1u << i))
                kept = true;
            else
                pruned = true;
        } else {
            *live |= 1u << i;
        }
    }
    return pruned && !kept;
}

/* child_paths for a key, remembered: each result of a file has the same members, so that after
 * the first the answer is one hash and one comparison, not one per prune path. */
static bool key_paths(struct builder *b, const char *key, size_t len, uint32_t *live)
{
    const struct frame *top = &b->stack[b->depth - 1];
    if (!top->live) {
        *live = 0;
        return false;
    }
    if (len > sizeof b->memo[0].key)
        return child_paths(b, key, len, live);
    uint32_t h = 2166136261u ^ top->live ^ (top->level << 24); /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)key[i]) * 16777619u;
    struct memo *m = &b->memo[h & 63];
    if (m->used && m->live == top->live && m->level == top->level && m->len == len &&
        memcmp(m->key, key, len) == 0) {
        *live = m->child_live;
        return m->pruned;
    }
    bool pruned = child_paths(b, key, len, live);
    *m = (struct memo){top->live, top->level, (uint32_t)len, *live, pruned, true, {0}};
    memcpy(m->key, key, len);
    return pruned;
}

/* At the start of a value: true when it is left out; else its prune paths in *live. */
static bool starts_pruned(const struct builder *b, uint32_t *live)
{
    *live = 0;
    if (b->skipping)
        return true;
    if (b->depth == 0) {
        *live = b->npaths ? (uint32_t)((1ull << b->npaths) - 1) : 0;
        return false;
    }
    const struct frame *top = &b->stack[b->depth - 1];
    if (json_is_array(top->node)) {
        *live = top->elem_live;
        return top->elem_pruned;
    }
    *live = b->key_live;
    return b->key_pruned;
}

/* Adds v (a new reference, stolen) to the container on top, or makes it the top. */
static int add(struct builder *b, json_t *v)
{
    if (!v)
        return fail(b, "%s", "out of memory");
    if (b->depth == 0) {
        b->root = v;
        return 1;
    }
    json_t *c = b->stack[b->depth - 1].node;
    if (json_is_array(c))
        return json_array_append_new(c, v) == 0 ? 1 : fail(b, "%s", "out of memory");
    /* Checked, as strings are (on_string). A key the object has already is found by the size,
     * which does not grow: one hash lookup a member, not two. */
    size_t n = json_object_size(c);
    if (json_object_setn_new(c, b->key, b->key_len, v) != 0)
        return fail(b, "%s", "invalid Unicode in an object key (or out of memory)");
    if (json_object_size(c) == n) {
        char k[64];
        snprintf(k, sizeof k, "%.*s", (int)(b->key_len < 40 ? b->key_len : 40), b->key);
        return fail(b, "duplicate object key \"%s\"", k);
    }
    return 1;
}

/* True when the scalar that starts now is left out. */
static bool skip_value(const struct builder *b)
{
    uint32_t live;
    return starts_pruned(b, &live);
}

static int on_null(void *ctx)
{
    struct builder *b = ctx;
    return skip_value(b) ? 1 : add(b, json_null());
}

static int on_boolean(void *ctx, int v)
{
    struct builder *b = ctx;
    return skip_value(b) ? 1 : add(b, json_boolean(v));
}

static int on_number(void *ctx, const char *s, size_t len)
{
    struct builder *b = ctx;
    if (skip_value(b))
        return 1;
    char small[64];
    char *t = len < sizeof small ? small : malloc(len + 1);
    if (!t)
        return fail(b, "%s", "out of memory");
    memcpy(t, s, len);
    t[len] = '\0';
    bool real = strpbrk(t, ".eE") != NULL;
    json_t *v = NULL;
    int rc = 1;
    errno = 0;
    if (real) {
        double d = strtod(t, NULL);
        if (errno == ERANGE && (d == HUGE_VAL || d == -HUGE_VAL))
            rc = fail(b, "%s", "real number overflow");
        else
            v = json_real(d);
    } else {
        long long i = strtoll(t, NULL, 10);
        if (errno == ERANGE)
            rc = fail(b, "%s", i < 0 ? "too big negative integer" : "too big integer");
        else
            v = json_integer((json_int_t)i);
    }
    if (t != small)
        free(t);
    return rc ? add(b, v) : 0;
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
    struct builder *b = ctx;
    if (skip_value(b))
        return 1;
    if (memchr(s, 0, len))
        return fail(b, "%s", "\\u0000 is not allowed in a string");
    /* checked: yajl decodes a lone surrogate escape (\\ud800) into bytes that are no UTF-8 */
    json_t *v = json_stringn((const char *)s, len);
    return v ? add(b, v) : fail(b, "%s", "invalid Unicode in a string");
}

/* A container starts: built (empty) as an object or an array, or skipped. */
static int open_container(struct builder *b, bool array)
{
    if (b->depth + b->skipping >= MAX_DEPTH)
        return fail(b, "%s", "maximum parsing depth reached");
    uint32_t live;
    if (starts_pruned(b, &live)) {
        b->skipping++;
        return 1;
    }
    uint32_t level = b->depth == 0 ? 0 : b->stack[b->depth - 1].level + 1;
    json_t *node = array ? json_array() : json_object();
    if (!add(b, node))
        return 0;
    struct frame *f = &b->stack[b->depth++];
    *f = (struct frame){.node = node, .live = live, .level = level};
    if (array && live)
        f->elem_pruned = child_paths(b, NULL, 0, &f->elem_live);
    return 1;
}

static int on_start_map(void *ctx)
{
    return open_container(ctx, false);
}

static int on_start_array(void *ctx)
{
    return open_container(ctx, true);
}

static int on_map_key(void *ctx, const unsigned char *key, size_t len)
{
    struct builder *b = ctx;
    if (b->skipping)
        return 1;
    b->key_pruned = key_paths(b, (const char *)key, len, &b->key_live);
    if (b->key_pruned)
        return 1; /* a member left out is not checked, its key no more than its value */
    if (memchr(key, 0, len))
        return fail(b, "%s", "\\u0000 is not allowed in an object key");
    if (len + 1 > b->key_cap) {
        size_t cap = len + 64;
        char *g = realloc(b->key, cap);
        if (!g)
            return fail(b, "%s", "out of memory");
        b->key = g;
        b->key_cap = cap;
    }
    memcpy(b->key, key, len);
    b->key[len] = '\0';
    b->key_len = len;
    return 1;
}

static int on_end(void *ctx)
{
    struct builder *b = ctx;
    if (b->skipping) {
        b->skipping--;
    } else if (--b->depth == 0) {
        b->closed = true;
        b->end = yajl_get_bytes_consumed(b->h);
    }
    return 1;
}

static int hexval(int c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* The \uXXXX at p (6 bytes before end), or -1. */
static long escape_at(const char *p, const char *end)
{
    if (end - p < 6 || p[0] != '\\' || p[1] != 'u')
        return -1;
    long v = 0;
    for (int i = 2; i < 6; i++) {
        int h = hexval((unsigned char)p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* Surrogate escapes, which yajl decodes loosely (a high one before any other escape became one
 * made-up character: "\ud800\u0041" read as U+10041, the A lost; a lone one "?"): a high
 * surrogate must be followed by a low one, and a low one preceded by a high one, as jansson
 * requires. Backslashes appear only in strings, so the text is scanned as it stands. The offset
 * of the first bad escape, or SIZE_MAX. */
static size_t bad_surrogate(const char *buf, size_t len)
{
    const char *end = buf + len;
    for (const char *p = buf; (p = memchr(p, '\\', (size_t)(end - p)));) {
        if (end - p < 2)
            return SIZE_MAX;
        if (p[1] != 'u') {
            p += 2; /* an escape of one character, \\ among them */
            continue;
        }
        long v = escape_at(p, end);
        if (v >= 0xDC00 && v <= 0xDFFF)
            return (size_t)(p - buf);
        if (v >= 0xD800 && v <= 0xDBFF) {
            long lo = escape_at(p + 6, end);
            if (!(lo >= 0xDC00 && lo <= 0xDFFF))
                return (size_t)(p - buf);
            p += 12;
            continue;
        }
        p += 2;
    }
    return SIZE_MAX;
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_boolean,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_map_key,
    .yajl_end_map = on_end,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end,
};

/* Splits the prune paths into b's segments (each path's copy in store). */
static bool split_paths(struct builder *b, gb_json_prune prune, char *store, size_t cap)
{
    size_t used = 0;
    for (size_t i = 0; prune && prune[i]; i++) {
        const char *path = prune[i];
        if (i >= GB_JSON_PRUNE_MAX)
            return false;
        if (*path == '!') {
            b->keep |= 1u << i;
            path++;
        }
        size_t l = strlen(path) + 1;
        if (l > cap - used)
            return false;
        char *p = memcpy(store + used, path, l);
        used += l;
        uint32_t n = 0;
        for (char *s = p;; s++) {
            bool end = *s == '\0';
            if (*s == '.' || end) {
                *s = '\0';
                if (n >= GB_JSON_PRUNE_DEPTH)
                    return false;
                b->seg_len[i][n] = strcmp(p, "*") == 0 ? SIZE_MAX : strlen(p);
                b->seg[i][n++] = p;
                p = s + 1;
            }
            if (end)
                break;
        }
        b->nseg[i] = n;
        b->npaths = (uint32_t)i + 1;
    }
    return true;
}

static void set_error(json_error_t *err, const char *buf, size_t len, size_t pos, const char *text)
{
    if (pos > len)
        pos = len;
    int line = 1;
    size_t bol = 0;
    for (const char *p = buf, *end = buf + pos; (p = memchr(p, '\n', (size_t)(end - p))); p++)
        line++, bol = (size_t)(p - buf) + 1;
    err->line = line;
    err->column = (int)(pos - bol + 1);
    err->position = (int)(pos < (size_t)INT32_MAX ? pos : INT32_MAX);
    snprintf(err->source, sizeof err->source, "<buffer>");
    /* yajl's text is "parse error: ...\n" or "lexical error: ...\n": the kind and the end of
     * line off. */
    const char *colon = strstr(text, "error: ");
    const char *t = colon && colon - text < 16 ? colon + 7 : text;
    size_t n = strcspn(t, "\n");
    snprintf(err->text, sizeof err->text, "%.*s", (int)n, t);
}

json_t *gb__json_loadb(const char *buf, size_t len, gb_json_prune prune, json_error_t *err)
{
    json_error_t dummy;
    if (!err)
        err = &dummy;
    memset(err, 0, sizeof *err);
    struct builder *b = calloc(1, sizeof *b);
    char store[1024];
    if (!b || !split_paths(b, prune, store, sizeof store)) {
        set_error(err, buf, len, 0, b ? "too many or too deep prune paths" : "out of memory");
        free(b);
        return NULL;
    }
    size_t sur = bad_surrogate(buf, len);
    if (sur != SIZE_MAX) {
        set_error(err, buf, len, sur, "invalid Unicode: a surrogate escape not in a pair");
        free(b);
        return NULL;
    }
    yajl_handle h = yajl_alloc(&callbacks, NULL, b);
    if (!h) {
        free(b);
        set_error(err, buf, len, 0, "out of memory");
        return NULL;
    }
    b->h = h;
    /* jansson checks every string and key that is built (on_string, add): yajl's own check
     * would only add one of what is left out, a fifth of the parse. */
    yajl_config(h, yajl_dont_validate_strings, 1);
    yajl_status st = yajl_parse(h, (const unsigned char *)buf, len);
    /* yajl counts the byte it stopped at as consumed */
    size_t pos = yajl_get_bytes_consumed(h);
    pos = pos ? pos - 1 : 0;
    /* Past the top container only whitespace: yajl itself missed a tail that opens a string
     * and leaves it open (it asks for more input, and the end of input accepts that). */
    size_t tail = b->closed ? b->end : len;
    while (tail < len &&
           (buf[tail] == ' ' || buf[tail] == '\n' || buf[tail] == '\r' || buf[tail] == '\t'))
        tail++;
    bool garbage = b->closed && tail < len;
    if (st == yajl_status_ok) {
        st = garbage ? yajl_status_error : yajl_complete_parse(h);
        pos = len; /* the text ended early (or garbage, below) */
    }
    json_t *root = b->root;
    if (garbage && st != yajl_status_client_canceled) {
        st = yajl_status_error;
        set_error(err, buf, len, tail, "trailing garbage after the document");
    } else if (st == yajl_status_client_canceled) {
        set_error(err, buf, len, pos, b->msg);
    } else if (st != yajl_status_ok) {
        unsigned char *e = yajl_get_error(h, 0, NULL, 0);
        set_error(err, buf, len, pos, e ? (const char *)e : "invalid JSON");
        if (e)
            yajl_free_error(h, e);
    } else if (!json_is_object(root) && !json_is_array(root)) {
        st = yajl_status_error;
        set_error(err, buf, len, 0, "'[' or '{' expected");
    }
    yajl_free(h);
    free(b->key);
    free(b);
    if (st != yajl_status_ok) {
        json_decref(root);
        return NULL;
    }
    return root;
}
