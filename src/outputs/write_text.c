/* gpubench — the text writer: tables for a terminal, as wide as their cells, with each table's
 * footnotes under it; data tables and columns (for files) and tables for machines left out;
 * numbers as people read them
 * (gb_doc_cell_people).
 *
 * Fitted to a width (gb_write_width: the terminal's; 0, a file or a pipe: whole), a table keeps
 * what says which row is which and gives up the rest, in this order, until it fits:
 *  1. a column with the same text on every row (one device's name) and a column empty on every
 *     row leave the table: the first says its value once, on a line above it; words that every
 *     cell of an identity column shares ("mode=async") are said there too, and so is a param
 *     that has one value on every row that has it at all ("slo_us=50000" on the serve rows of a
 *     table of several suites), where leaving it out keeps the column's cells apart;
 *  2. the other text columns (notes, figures, verdicts: right of the first number) move their
 *     long cells to footnotes;
 *  3. identity columns (the text columns left of the first number: case, params, device) are
 *     shortened in the middle, never so far that two different cells read alike, and a state
 *     column (a verdict, a status: gb_doc_column_state) not at all;
 *  4. what is still too wide goes on in further panels that repeat the identity columns, each
 *     panel within the width (the identity columns narrowed for the widest column alone).
 * Titles, notes, footnotes and verdicts wrap at word boundaries. No line is wider than the
 * width unless a single word is (then it is cut). */
#include "outputs/writer.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "outputs/writer_private.h"

/* The narrowest an identity column gets, and the width a moved prose cell may keep. */
#define MIN_IDENT 12
#define MOVE_MIN 10
/* The most rows whose params drop_keyed weighs (its cost grows with the rows' square). */
#define KEYED_ROWS 400
/* The narrowest an identity column gets where the row as a whole still differs. */
#define MIN_JOINT 5
/* The narrowest a wrapping column gets (struct gb_doc_column.wrap). */
#define MIN_WRAP 24
/* Two spaces between columns. */
#define GAP 2
#define CELL 1100

/* Characters (not bytes) of UTF-8 text s. */
static size_t u8len(const char *s)
{
    size_t n = 0;
    for (const unsigned char *u = (const unsigned char *)s; *u; u++)
        n += (*u & 0xC0) != 0x80;
    return n;
}

/* The byte offset of character `chars` of s (its end when shorter). */
static size_t u8off(const char *s, size_t chars)
{
    const char *p = s;
    while (*p && chars) {
        p++;
        while ((*(const unsigned char *)p & 0xC0) == 0x80)
            p++;
        chars--;
    }
    return (size_t)(p - s);
}

/* Writes s with its characters cut at `width` (0: whole), cleaned for a terminal. */
static void put_cut(FILE *f, const char *s, size_t width)
{
    if (width && u8len(s) > width) {
        char *c = strndup(s, u8off(s, width));
        gb__put_clean(f, c ? c : "", false);
        free(c);
        return;
    }
    gb__put_clean(f, s, false);
}

/* Whether the word at w (to the next space) reads as the unit of a number before it: short,
 * not a key=value or a footnote mark, a letter or a sign first ("ms", "GB/s", "%"), or "1/s". */
static bool unit_word(const char *w)
{
    size_t n = strcspn(w, " ");
    if (!n || n > 8 || memchr(w, '=', n) || w[0] == '[')
        return false;
    return (w[0] >= 'a' && w[0] <= 'z') || (w[0] >= 'A' && w[0] <= 'Z') || w[0] == '%' ||
           strncmp(w, "1/", 2) == 0;
}

/* Whether the n bytes at w read as a number, or a key=number ("64", "-3.5", "e2e_p50_ms=64"):
 * the text after the last '=' starts with a digit, a sign or a point. */
static bool number_word(const char *w, size_t n)
{
    const char *v = w;
    for (const char *p = w; p < w + n; p++)
        if (*p == '=')
            v = p + 1;
    if (v < w + n && (*v == '-' || *v == '+'))
        v++;
    return v < w + n && ((*v >= '0' && *v <= '9') || *v == '.');
}

/* Writes text wrapped at word boundaries to `width` (0: one line), the first line after `first`
 * and the others after `indent` spaces; a number and its unit ("64 ms") stay on one line; a word
 * wider than a line is cut. Ends with a newline. */
static void wrap(FILE *f, const char *first, size_t indent, const char *text, size_t width)
{
    char *s = strdup(text ? text : "");
    if (!s)
        return;
    for (char *p = s; *p; p++)
        if (*p == '\n' || *p == '\t')
            *p = ' ';
    gb__put_clean(f, first, false);
    size_t col = u8len(first);
    if (!width || col + u8len(s) <= width) {
        gb__put_clean(f, s, false);
        fputc('\n', f);
        free(s);
        return;
    }
    /* a number's unit is glued to it (\x1f, a space again when written); the word before is a
     * number or key=number, so that names ending in a digit ("gpu0 gpu1 gpu2") stay words */
    for (char *p = s + 1, *word = s; *p; p++) {
        if (*p != ' ') {
            if (p[-1] == ' ' || p[-1] == '\x1f')
                word = p;
            continue;
        }
        if (p[-1] >= '0' && p[-1] <= '9' && number_word(word, (size_t)(p - word)) &&
            unit_word(p + 1))
            *p = '\x1f';
    }
    size_t at_start = col;
    char *save = NULL;
    for (char *w = strtok_r(s, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        size_t n = u8len(w);
        for (char *p = w; *p; p++)
            if (*p == '\x1f')
                *p = ' ';
        if (col > at_start && col + 1 + n > width) {
            fputc('\n', f);
            fprintf(f, "%*s", (int)indent, "");
            col = at_start = indent;
        }
        if (col > at_start) {
            fputc(' ', f);
            col++;
        }
        size_t room = width > col ? width - col : 1;
        put_cut(f, w, n > room ? room : 0);
        col += n > room ? room : n;
    }
    fputc('\n', f);
    free(s);
}

/* ---- fitting a table ----------------------------------------------------------------------- */

struct col {
    bool shown;    /* not data, not left out */
    bool ident;    /* says which row is which */
    bool movable;  /* a text column right of the numbers: long cells go to footnotes */
    bool wraps;    /* the last column, prose to wrap at words under itself (doc's wrap) */
    size_t w;      /* its width */
    size_t cap;    /* movable: cells longer than this are moved (0: none) */
    char **common; /* identity: words every cell has, left out of the cells */
    size_t ncommon;
    unsigned head8; /* a cut keeps this many eighths at the head (narrowest) */
};

struct fit {
    const struct gb_doc_table *t;
    struct col *c;
    size_t width; /* the terminal's (0: no limit) */
    char **above; /* lines said once above the table */
    size_t nabove;
    char **moved; /* texts moved to footnotes, numbered after the table's own */
    size_t nmoved;
};

static const char *header(const struct gb_doc_column *c)
{
    return c->label ? c->label : c->name;
}

/* Whether word w (n bytes) is one of the space-separated words of s. */
static bool has_word(const char *s, const char *w, size_t n)
{
    for (const char *p = s; (p = strstr(p, w)) != NULL; p++)
        if ((p == s || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

/* The cell's text as shown, before its marks: without the column's common words. */
static char *cell_body(const struct fit *ft, size_t r, size_t c, char *buf, size_t len)
{
    const struct gb_doc_cell *cl = gb_doc_cell(ft->t, r, c);
    gb_doc_cell_people(cl, buf, len);
    const struct col *k = &ft->c[c];
    if (!k->ncommon)
        return buf;
    char out[CELL] = "", *save = NULL, tmp[CELL];
    snprintf(tmp, sizeof tmp, "%s", buf);
    for (char *w = strtok_r(tmp, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        bool common = false;
        for (size_t i = 0; i < k->ncommon && !common; i++)
            common = strcmp(k->common[i], w) == 0;
        if (!common)
            gb_appendf(out, sizeof out, "%s%s", out[0] ? " " : "", w);
    }
    snprintf(buf, len, "%s", out);
    return buf;
}

/* The cell as shown: its body, then its footnote marks in brackets. Into buf. */
static const char *shown(const struct fit *ft, size_t r, size_t c, char *buf, size_t len)
{
    char marks[128];
    const struct gb_doc_cell *cl = gb_doc_cell(ft->t, r, c);
    cell_body(ft, r, c, buf, len);
    if (cl && cl->nnotes)
        gb_appendf(buf, len, "%s[%s]", *buf ? " " : "", gb_doc_cell_marks(cl, marks, sizeof marks));
    return buf;
}

/* The cell of a wrapping column as shown, whole however long (a CELL buffer would cut it);
 * NULL when out of memory. Free it. */
static char *shown_whole(const struct fit *ft, size_t r, size_t c)
{
    const struct gb_doc_cell *cl = gb_doc_cell(ft->t, r, c);
    const char *t = cl ? (cl->shown ? cl->shown : cl->text) : NULL;
    const size_t len = (t ? strlen(t) : 0) + CELL;
    char *buf = malloc(len);
    return buf ? (char *)shown(ft, r, c, buf, len) : NULL;
}

/* A movable cell longer than its cap: the number of its footnote (1-based), adding it. */
static size_t moved_note(struct fit *ft, const char *text)
{
    for (size_t i = 0; i < ft->nmoved; i++)
        if (strcmp(ft->moved[i], text) == 0)
            return ft->t->nfootnotes + i + 1;
    char **m = realloc(ft->moved, (ft->nmoved + 1) * sizeof *m);
    if (!m)
        return 0;
    ft->moved = m;
    if (!(m[ft->nmoved] = strdup(text)))
        return 0;
    return ft->t->nfootnotes + ++ft->nmoved;
}

/* The cell as it is written: shown, or its footnote mark when moved. */
static const char * final(struct fit *ft, size_t r, size_t c, char *buf, size_t len)
{
    shown(ft, r, c, buf, len);
    const struct col *k = &ft->c[c];
    if (k->movable && k->cap && u8len(buf) > k->cap) {
        size_t n = moved_note(ft, buf);
        snprintf(buf, len, "[%zu]", n);
    }
    return buf;
}

/* `s` cut to w characters, "..." in place of its middle: the head keeps head8 eighths of what
 * is kept, the tail the rest ("memory=p...4KiB"). */
static void cut_middle(const char *s, size_t w, unsigned head8, char *out, size_t len)
{
    size_t n = u8len(s);
    if (n <= w || w < 5) {
        snprintf(out, len, "%s", s);
        if (n > w)
            out[u8off(out, w)] = '\0';
        return;
    }
    size_t head = ((w - 3) * head8 + 4) / 8, tail = w - 3 - head;
    snprintf(out, len, "%.*s...%s", (int)u8off(s, head), s, s + u8off(s, n - tail));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t distinct(char **v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_str);
    size_t d = n ? 1 : 0;
    for (size_t i = 1; i < n; i++)
        d += strcmp(v[i], v[i - 1]) != 0;
    return d;
}

/* The narrowest width of identity column c at which its cells, cut in the middle, are as many
 * distinct texts as in full; sets the column's head8 to the cut that does it (a wider cut of
 * the same share keeps more of both ends, so it differs too). */
static size_t narrowest(struct fit *ft, size_t c, size_t from)
{
    static const unsigned shares[] = {4, 6, 2, 7, 1, 5, 3};
    const struct gb_doc_table *t = ft->t;
    char **full = calloc(t->nrows ? t->nrows : 1, sizeof *full);
    char **cut = calloc(t->nrows ? t->nrows : 1, sizeof *cut);
    size_t best = from;
    if (!full || !cut)
        goto out;
    char buf[CELL];
    for (size_t r = 0; r < t->nrows; r++)
        if (!(full[r] = strdup(shown(ft, r, c, buf, sizeof buf))))
            goto out;
    size_t want = distinct(full, t->nrows);
    size_t hdr = u8len(header(&t->cols[c]));
    for (size_t w = MIN_IDENT > hdr ? MIN_IDENT : hdr; w < from && best == from; w++)
        for (size_t k = 0; k < sizeof shares / sizeof *shares; k++) {
            for (size_t r = 0; r < t->nrows; r++) {
                char o[CELL];
                cut_middle(full[r], w, shares[k], o, sizeof o);
                free(cut[r]);
                cut[r] = strdup(o);
                if (!cut[r])
                    goto out;
            }
            if (distinct(cut, t->nrows) == want) {
                best = w;
                ft->c[c].head8 = shares[k];
                break;
            }
        }
out:
    for (size_t r = 0; full && r < t->nrows; r++)
        free(full[r]);
    for (size_t r = 0; cut && r < t->nrows; r++)
        free(cut[r]);
    free(full);
    free(cut);
    return best;
}

static size_t total_width(const struct fit *ft)
{
    size_t total = 0, k = 0;
    for (size_t c = 0; c < ft->t->ncols; c++)
        if (ft->c[c].shown)
            total += ft->c[c].w + (k++ ? GAP : 0);
    return total;
}

/* The width the columns other than c leave it within the terminal's (0: none). */
static size_t wrap_room(const struct fit *ft, size_t c)
{
    const size_t others = total_width(ft) - ft->c[c].w;
    return ft->width > others ? ft->width - others : 0;
}

static void add_above(struct fit *ft, const char *name, const char *text)
{
    char **a = realloc(ft->above, (ft->nabove + 1) * sizeof *a);
    if (!a)
        return;
    ft->above = a;
    size_t len = strlen(name) + strlen(text) + 3;
    if ((a[ft->nabove] = malloc(len)) != NULL)
        snprintf(a[ft->nabove++], len, "%s: %s", name, text);
}

/* Step 1: columns with one text on every row, and empty ones, leave; identity columns lose the
 * words every cell shares. */
static void drop_constant(struct fit *ft)
{
    const struct gb_doc_table *t = ft->t;
    char buf[CELL], first[CELL];
    for (size_t c = 0; c < t->ncols; c++) {
        struct col *k = &ft->c[c];
        if (!k->shown || t->nrows < 2)
            continue;
        bool same = true, empty = true;
        shown(ft, 0, c, first, sizeof first);
        for (size_t r = 0; r < t->nrows && (same || empty); r++) {
            shown(ft, r, c, buf, sizeof buf);
            same = same && strcmp(buf, first) == 0;
            empty = empty && !*buf;
        }
        if (empty || (same && !t->cols[c].numeric)) {
            if (!empty)
                add_above(ft, header(&t->cols[c]), first);
            k->shown = false;
            continue;
        }
        if (!k->ident)
            continue;
        /* the words of row 0 that every row has */
        char *save = NULL, common[CELL] = "";
        cell_body(ft, 0, c, first, sizeof first);
        for (char *w = strtok_r(first, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
            bool all = true;
            for (size_t r = 1; r < t->nrows && all; r++)
                all = has_word(cell_body(ft, r, c, buf, sizeof buf), w, strlen(w));
            char **m = all ? realloc(k->common, (k->ncommon + 1) * sizeof *m) : NULL;
            if (!m)
                continue;
            k->common = m;
            if ((m[k->ncommon] = strdup(w)) != NULL) {
                k->ncommon++;
                gb_appendf(common, sizeof common, "%s%s", common[0] ? " " : "", w);
            }
        }
        if (common[0])
            add_above(ft, header(&t->cols[c]), common);
    }
}

/* Adds word w to identity column k's left-out words; false when out of memory. */
static bool add_common(struct col *k, const char *w)
{
    char **m = realloc(k->common, (k->ncommon + 1) * sizeof *m);
    if (!m)
        return false;
    k->common = m;
    if (!(m[k->ncommon] = strdup(w)))
        return false;
    k->ncommon++;
    return true;
}

/* How many distinct texts identity column c's cells show (its left-out words out). */
static size_t distinct_cells(const struct fit *ft, size_t c)
{
    const struct gb_doc_table *t = ft->t;
    char **v = calloc(t->nrows ? t->nrows : 1, sizeof *v), buf[CELL];
    size_t n = 0;
    for (size_t r = 0; v && r < t->nrows; r++)
        if ((v[r] = strdup(cell_body(ft, r, c, buf, sizeof buf))) != NULL)
            n++;
    size_t d = v && n == t->nrows ? distinct(v, n) : 0;
    for (size_t r = 0; v && r < t->nrows; r++)
        free(v[r]);
    free(v);
    return d;
}

/* Whether word w ("key=value") has its key's only value in identity column c: every cell
 * that has a word "key=..." has w (some cells may have no such word). */
static bool keyed_alone(const struct fit *ft, size_t c, const char *w)
{
    const char *eq = strchr(w, '=');
    if (!eq || eq == w)
        return false;
    const size_t kl = (size_t)(eq - w) + 1;
    char buf[CELL], *save = NULL;
    for (size_t r = 0; r < ft->t->nrows; r++) {
        cell_body(ft, r, c, buf, sizeof buf);
        for (char *x = strtok_r(buf, " ", &save); x; x = strtok_r(NULL, " ", &save))
            if (strncmp(x, w, kl) == 0 && strcmp(x, w) != 0)
                return false;
    }
    return true;
}

/* The first word of cell (r, c) into buf. */
static const char *first_word(const struct fit *ft, size_t r, size_t c, char *buf, size_t len)
{
    cell_body(ft, r, c, buf, len);
    buf[strcspn(buf, " ")] = '\0';
    return buf;
}

/* Whether the rows whose identity column c has word w are the rows of a kind: every row that
 * shares with one of them its cell of another identity column (c2 < c), or the first word of
 * c's own cell when it names a kind (a suite: no '='), has w too. */
static bool word_of_a_kind(const struct fit *ft, size_t c, const char *w)
{
    const struct gb_doc_table *t = ft->t;
    char a[CELL], b[CELL];
    for (size_t c2 = 0; c2 <= c; c2++) {
        if (!ft->c[c2].shown || !ft->c[c2].ident)
            continue;
        bool kind = true;
        for (size_t r = 0; r < t->nrows && kind; r++) {
            if (!has_word(cell_body(ft, r, c, a, sizeof a), w, strlen(w)))
                continue;
            c2 == c ? first_word(ft, r, c, a, sizeof a) : cell_body(ft, r, c2, a, sizeof a);
            if (c2 == c && strchr(a, '='))
                kind = false; /* a param, not the name of a kind */
            for (size_t q = 0; q < t->nrows && kind; q++) {
                c2 == c ? first_word(ft, q, c, b, sizeof b) : cell_body(ft, q, c2, b, sizeof b);
                if (strcmp(a, b) == 0)
                    kind = has_word(cell_body(ft, q, c, b, sizeof b), w, strlen(w));
            }
        }
        if (kind)
            return true;
    }
    return false;
}

/* Step 1, for tables of rows of several kinds (suites): a "key=value" word of an identity column
 * that is its key's only value, on every row of the kinds that have it (word_of_a_kind), leaves
 * the cells and is said above, where the cells stay as many distinct texts without it. */
static void drop_keyed(struct fit *ft)
{
    const struct gb_doc_table *t = ft->t;
    char buf[CELL], said[CELL], tried[4 * CELL];
    for (size_t c = 0; c < t->ncols; c++) {
        struct col *k = &ft->c[c];
        if (!k->shown || !k->ident || t->nrows < 2 || t->nrows > KEYED_ROWS)
            continue;
        const size_t want = distinct_cells(ft, c);
        said[0] = tried[0] = '\0';
        for (size_t r = 0; r < t->nrows; r++) {
            char *save = NULL;
            cell_body(ft, r, c, buf, sizeof buf);
            for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
                if (has_word(tried, w, strlen(w)))
                    continue;
                gb_appendf(tried, sizeof tried, "%s%s", tried[0] ? " " : "", w);
                if (!keyed_alone(ft, c, w) || !word_of_a_kind(ft, c, w) || !add_common(k, w))
                    continue;
                if (distinct_cells(ft, c) == want) {
                    gb_appendf(said, sizeof said, "%s%s", said[0] ? " " : "", w);
                    continue;
                }
                free(k->common[--k->ncommon]); /* the word told two rows apart: it stays */
            }
        }
        if (said[0]) {
            char name[256];
            snprintf(name, sizeof name, "%s, the same wherever they apply", header(&t->cols[c]));
            add_above(ft, name, said);
        }
    }
}

/* The widest cell of every shown column, as shown. */
static void measure(struct fit *ft)
{
    const struct gb_doc_table *t = ft->t;
    char buf[CELL];
    for (size_t c = 0; c < t->ncols; c++)
        ft->c[c].w = ft->c[c].shown ? u8len(header(&t->cols[c])) : 0;
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++)
            if (ft->c[c].shown) {
                size_t n = u8len(shown(ft, r, c, buf, sizeof buf));
                if (n > ft->c[c].w)
                    ft->c[c].w = n;
            }
    /* A wrapping column takes what the others leave, MIN_WRAP at least (the width at least
     * where that is narrower: a column alone is never wider than the terminal). */
    const size_t least = ft->width < MIN_WRAP ? ft->width : MIN_WRAP;
    for (size_t c = 0; ft->width && c < t->ncols; c++)
        if (ft->c[c].wraps && total_width(ft) > ft->width) {
            const size_t room = wrap_room(ft, c);
            ft->c[c].w = room > least ? room : least;
        }
}

/* Step 2: movable columns get a cap; their width is then the widest cell within it. */
static void cap_movable(struct fit *ft, size_t width)
{
    const struct gb_doc_table *t = ft->t;
    char buf[CELL];
    for (;;) {
        size_t total = total_width(ft), widest = t->ncols;
        if (total <= width)
            return;
        for (size_t c = 0; c < t->ncols; c++)
            if (ft->c[c].shown && ft->c[c].movable && !ft->c[c].cap && ft->c[c].w > MOVE_MIN &&
                (widest == t->ncols || ft->c[c].w > ft->c[widest].w))
                widest = c;
        if (widest == t->ncols)
            return;
        struct col *k = &ft->c[widest];
        size_t over = total - width, cap = k->w > over + MOVE_MIN ? k->w - over : MOVE_MIN;
        k->cap = cap;
        size_t w = u8len(header(&t->cols[widest]));
        size_t mark = 2 + (t->nfootnotes + t->nrows >= 9 ? 3 : 1);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t n = u8len(shown(ft, r, widest, buf, sizeof buf));
            n = n > cap ? mark : n;
            if (n > w)
                w = n;
        }
        k->w = w;
    }
}

/* The identity columns' width, each with its gap. */
static size_t ident_width(const struct fit *ft)
{
    size_t n = 0;
    for (size_t c = 0; c < ft->t->ncols; c++)
        if (ft->c[c].shown && ft->c[c].ident)
            n += ft->c[c].w + GAP;
    return n;
}

/* Narrows the widest identity column a character at a time, none below least[], until they
 * take `target` columns with their gaps or none can. */
static void shrink_ident(struct fit *ft, const size_t *least, size_t target)
{
    const struct gb_doc_table *t = ft->t;
    while (ident_width(ft) > target) {
        size_t widest = t->ncols;
        for (size_t k = 0; k < t->ncols; k++)
            if (ft->c[k].shown && ft->c[k].ident && ft->c[k].w > least[k] &&
                (widest == t->ncols || ft->c[k].w > ft->c[widest].w))
                widest = k;
        if (widest == t->ncols)
            return;
        ft->c[widest].w--;
    }
}

/* How many distinct rows the identity columns show at their widths (cut_middle), all at once. */
static size_t distinct_rows(const struct fit *ft)
{
    const struct gb_doc_table *t = ft->t;
    char **v = calloc(t->nrows ? t->nrows : 1, sizeof *v);
    size_t n = 0;
    for (size_t r = 0; v && r < t->nrows; r++) {
        char row[4 * CELL] = "", buf[CELL], cut[CELL];
        for (size_t c = 0; c < t->ncols; c++)
            if (ft->c[c].shown && ft->c[c].ident) {
                cut_middle(shown(ft, r, c, buf, sizeof buf), ft->c[c].w, ft->c[c].head8, cut,
                           sizeof cut);
                gb_appendf(row, sizeof row, "%s\x1f", cut);
            }
        if ((v[r] = strdup(row)) != NULL)
            n++;
    }
    size_t d = v && n == t->nrows ? distinct(v, n) : 0;
    for (size_t r = 0; v && r < t->nrows; r++)
        free(v[r]);
    free(v);
    return d;
}

/* Step 3's last resort, where every identity column is as narrow as its own cells allow and the
 * table is still too wide: the widest identity column narrows a character at a time, down to
 * MIN_JOINT, as long as the rows as a whole (all identity columns together) stay apart, until
 * they take `target` columns with their gaps. */
static void shrink_joint(struct fit *ft, size_t target)
{
    const struct gb_doc_table *t = ft->t;
    bool *stuck = calloc(t->ncols ? t->ncols : 1, sizeof *stuck);
    if (!stuck)
        return;
    const size_t want = distinct_rows(ft);
    while (ident_width(ft) > target) {
        size_t widest = t->ncols;
        for (size_t k = 0; k < t->ncols; k++)
            if (ft->c[k].shown && ft->c[k].ident && !t->cols[k].state && !stuck[k] &&
                ft->c[k].w > MIN_JOINT && (widest == t->ncols || ft->c[k].w > ft->c[widest].w))
                widest = k;
        if (widest == t->ncols)
            break;
        /* one character less, with the cut's share of head and tail that keeps rows apart */
        static const unsigned shares[] = {4, 6, 2, 7, 1, 5, 3};
        const unsigned head8 = ft->c[widest].head8;
        bool apart = false;
        ft->c[widest].w--;
        for (size_t k = 0; k < sizeof shares / sizeof *shares && !apart; k++) {
            ft->c[widest].head8 = k ? shares[k] : head8;
            apart = distinct_rows(ft) == want;
        }
        if (!apart) {
            ft->c[widest].w++;
            ft->c[widest].head8 = head8;
            stuck[widest] = true;
        }
    }
    free(stuck);
}

static void fit_table(struct fit *ft, int width)
{
    const struct gb_doc_table *t = ft->t;
    size_t first_num = t->ncols;
    for (size_t c = 0; c < t->ncols; c++) {
        ft->c[c].shown = !t->cols[c].data;
        ft->c[c].head8 = 4;
        if (ft->c[c].shown && t->cols[c].numeric && first_num == t->ncols)
            first_num = c;
    }
    size_t last = t->ncols;
    for (size_t c = 0; c < t->ncols; c++)
        if (ft->c[c].shown)
            last = c;
    for (size_t c = 0; c < t->ncols; c++) {
        ft->c[c].wraps = c == last && t->cols[c].wrap && !t->cols[c].numeric;
        bool text = ft->c[c].shown && !t->cols[c].numeric && !t->cols[c].prose && !ft->c[c].wraps;
        ft->c[c].ident = text && c < first_num;
        ft->c[c].movable =
            ft->c[c].shown && !t->cols[c].numeric && !ft->c[c].ident && !ft->c[c].wraps;
    }
    ft->width = width > 0 ? (size_t)width : 0;
    measure(ft);
    if (width <= 0 || total_width(ft) <= (size_t)width)
        return;
    drop_constant(ft);
    measure(ft);
    if (total_width(ft) > (size_t)width) {
        drop_keyed(ft);
        measure(ft);
    }
    cap_movable(ft, (size_t)width);
    /* step 3: identity columns, a character at a time from the widest, each no narrower than
     * where its cells still differ (least), until the table fits; when it cannot, until they
     * and the columns of a first panel do (write_table) */
    size_t *least = calloc(t->ncols, sizeof *least), *full = calloc(t->ncols, sizeof *full);
    if (least && full) {
        for (size_t c = 0; c < t->ncols; c++) {
            full[c] = ft->c[c].w;
            /* a state (a verdict, a status) is a word to act on: never cut ("UN...LE") */
            least[c] = ft->c[c].shown && ft->c[c].ident && !t->cols[c].state
                           ? narrowest(ft, c, ft->c[c].w)
                           : full[c];
        }
        size_t others = total_width(ft) + GAP - ident_width(ft);
        shrink_ident(ft, least, width > (int)others ? (size_t)width - others : 0);
        if (total_width(ft) > (size_t)width) {
            size_t used = ident_width(ft), panel = 0, widest = 0;
            for (size_t c = 0; c < t->ncols; c++)
                if (ft->c[c].shown && !ft->c[c].ident) {
                    if (used + ft->c[c].w + GAP > (size_t)width + GAP && panel)
                        break;
                    used += ft->c[c].w + GAP;
                    panel += ft->c[c].w + GAP;
                }
            /* every later panel holds one column at least: the widest must fit beside them */
            for (size_t c = 0; c < t->ncols; c++)
                if (ft->c[c].shown && !ft->c[c].ident && ft->c[c].w + GAP > widest)
                    widest = ft->c[c].w + GAP;
            if (widest > panel)
                panel = widest;
            for (size_t c = 0; c < t->ncols; c++)
                if (ft->c[c].ident)
                    ft->c[c].w = full[c];
            const size_t target = width + GAP > (int)panel ? (size_t)width + GAP - panel : 0;
            shrink_ident(ft, least, target);
            if (ident_width(ft) > target)
                shrink_joint(ft, target);
        }
    }
    free(least);
    free(full);
    /* A wrapping column still wider than the room the others leave once shortened takes that
     * room where it holds MIN_WRAP / 2 columns at least: a row within the width, its words
     * on more lines (at 30 columns a summary beside "aggregate" ran to 37). */
    for (size_t c = 0; c < t->ncols; c++)
        if (ft->c[c].shown && ft->c[c].wraps && total_width(ft) > ft->width &&
            wrap_room(ft, c) >= MIN_WRAP / 2)
            ft->c[c].w = wrap_room(ft, c);
}

/* Writes s in a field of w characters (right-aligned when `right`), cut in the middle to w
 * (head8: cut_middle). */
static void field(FILE *f, const char *s, size_t w, unsigned head8, bool right, bool last)
{
    char cut[CELL];
    cut_middle(s, w, head8, cut, sizeof cut);
    size_t n = u8len(cut);
    if (right)
        fprintf(f, "%*s", (int)(w - n), "");
    gb__put_clean(f, cut, false);
    if (!right && !last)
        fprintf(f, "%*s", (int)(w - n), "");
}

/* Writes the columns in[] (shown ones) of the header and every row. */
static void write_panel(FILE *f, struct fit *ft, const bool *in)
{
    const struct gb_doc_table *t = ft->t;
    size_t last = t->ncols;
    for (size_t c = 0; c < t->ncols; c++)
        if (in[c])
            last = c;
    for (size_t c = 0, k = 0; c < t->ncols; c++) {
        if (!in[c])
            continue;
        if (k++)
            fprintf(f, "%*s", GAP, "");
        field(f, header(&t->cols[c]), ft->c[c].w, 4, t->cols[c].numeric, c == last);
    }
    fputc('\n', f);
    char buf[CELL];
    const bool wraps = last < t->ncols && ft->c[last].wraps;
    for (size_t r = 0; r < t->nrows; r++) {
        /* With a wrapping last column, the row's other fields are its first line's prefix,
         * and its continuation lines are indented to the column (wrap). */
        char *line = NULL;
        size_t len = 0, indent = 0, k = 0;
        FILE *o = wraps ? open_memstream(&line, &len) : f;
        if (!o)
            o = f;
        for (size_t c = 0; c < t->ncols; c++) {
            if (!in[c] || (o != f && c == last))
                continue;
            if (k++) {
                fprintf(o, "%*s", GAP, "");
                indent += GAP;
            }
            field(o, final(ft, r, c, buf, sizeof buf), ft->c[c].w, ft->c[c].head8,
                  t->cols[c].numeric, c == last);
            indent += ft->c[c].w;
        }
        if (o != f) {
            fclose(o);
            /* the other fields, whole however wide (multi-byte names) */
            const size_t gap = k ? GAP : 0, llen = (line ? strlen(line) : 0) + gap + 1;
            char *lead = malloc(llen), *whole = shown_whole(ft, r, last);
            if (lead)
                snprintf(lead, llen, "%s%*s", line ? line : "", (int)gap, "");
            wrap(f, lead ? lead : "", indent + gap,
                 whole ? whole : final(ft, r, last, buf, sizeof buf),
                 ft->width ? indent + gap + ft->c[last].w : 0);
            free(whole);
            free(lead);
            free(line);
            continue;
        }
        fputc('\n', f);
    }
}

/* Table t's footnotes, "  [1] text" wrapped under their text, then the nmoved texts moved to
 * footnotes (numbered after t's own). */
static void write_footnotes(FILE *f, const struct gb_doc_table *t, char *const *moved,
                            size_t nmoved, size_t width)
{
    for (size_t i = 0; i < t->nfootnotes + nmoved; i++) {
        char mark[32];
        snprintf(mark, sizeof mark, "  [%zu] ", i + 1);
        wrap(f, mark, strlen(mark), i < t->nfootnotes ? t->footnotes[i] : moved[i - t->nfootnotes],
             width);
    }
}

/* Whether table t is one row wider than `width` (its columns' natural widths, with their
 * gaps): written as a record (write_record), not as panels. */
static bool one_row_too_wide(struct fit *ft, int width)
{
    const struct gb_doc_table *t = ft->t;
    if (t->nrows != 1 || width <= 0)
        return false;
    for (size_t c = 0; c < t->ncols; c++)
        ft->c[c].shown = !t->cols[c].data;
    measure(ft);
    return total_width(ft) > (size_t)width;
}

/* A table of one row wider than the terminal, as a record: its title, then a field a line,
 * "header: value" ("clock MHz: 2100", "memory: 21.59 GiB"), wrapped at words under its value
 * and blank fields left out, then its footnotes. Panels would repeat the row's identity, cut,
 * beside each field (a device's name cut to "pthre...ssor" twelve times). */
static void write_record(FILE *f, struct fit *ft, size_t width)
{
    const struct gb_doc_table *t = ft->t;
    if (t->title && *t->title)
        wrap(f, "", 2, t->title, width);
    for (size_t c = 0; c < t->ncols; c++) {
        char *v = ft->c[c].shown ? shown_whole(ft, 0, c) : NULL;
        if (v && v[strspn(v, " ")]) {
            char lead[96];
            snprintf(lead, sizeof lead, "%s: ", header(&t->cols[c]));
            wrap(f, lead, u8len(lead) < width / 2 ? u8len(lead) : 2, v, width);
        }
        free(v);
    }
    write_footnotes(f, t, NULL, 0, width);
}

static void write_table(FILE *f, const struct gb_doc_table *t, int width)
{
    struct fit ft = {.t = t, .c = calloc(t->ncols ? t->ncols : 1, sizeof *ft.c)};
    bool *in = calloc(t->ncols ? t->ncols : 1, sizeof *in);
    if (!ft.c || !in) {
        free(ft.c);
        free(in);
        return;
    }
    if (one_row_too_wide(&ft, width)) {
        write_record(f, &ft, (size_t)width);
        free(ft.c);
        free(in);
        return;
    }
    fit_table(&ft, width);
    size_t wrapw = width > 0 ? (size_t)width : 0;
    if (t->title && *t->title)
        wrap(f, "", 2, t->title, wrapw);
    for (size_t i = 0; i < ft.nabove; i++)
        wrap(f, "", 2, ft.above[i], wrapw);
    /* panels: the identity columns and as many others as fit, until every column is written */
    size_t ident = 0, k = 0;
    for (size_t c = 0; c < t->ncols; c++)
        if (ft.c[c].shown && ft.c[c].ident)
            ident += ft.c[c].w + (k++ ? GAP : 0);
    size_t next = 0;
    bool any = false;
    /* A table without rows under a title is its title alone ("0 outlier nodes"): a header
     * over nothing reads as output cut short. */
    const bool title_alone = t->nrows == 0 && t->title && *t->title;
    while (!title_alone && (!any || next < t->ncols)) {
        size_t used = ident, n = 0;
        for (size_t c = 0; c < t->ncols; c++)
            in[c] = ft.c[c].shown && ft.c[c].ident;
        for (size_t c = 0; c < t->ncols; c++)
            n += in[c];
        for (; next < t->ncols; next++) {
            if (!ft.c[next].shown || ft.c[next].ident)
                continue;
            size_t add = ft.c[next].w + (n ? GAP : 0);
            if (width > 0 && used + add > (size_t)width && n > 0 && used > ident)
                break;
            in[next] = true;
            used += add;
            n++;
        }
        if (any)
            fputc('\n', f);
        write_panel(f, &ft, in);
        any = true;
    }
    write_footnotes(f, t, ft.moved, ft.nmoved, wrapw);
    for (size_t i = 0; i < ft.nabove; i++)
        free(ft.above[i]);
    for (size_t i = 0; i < ft.nmoved; i++)
        free(ft.moved[i]);
    for (size_t c = 0; c < t->ncols; c++) {
        for (size_t i = 0; i < ft.c[c].ncommon; i++)
            free(ft.c[c].common[i]);
        free(ft.c[c].common);
    }
    free(ft.above);
    free(ft.moved);
    free(ft.c);
    free(in);
}

static int text_write(FILE *f, const struct gb_doc *d, const struct gb_write_opts *o)
{
    size_t width = o && o->width > 0 ? (size_t)o->width : 0;
    if (d->title && *d->title)
        wrap(f, "", 2, d->title, width);
    for (size_t i = 0; i < d->nnotes; i++) {
        /* a note's own lines stay lines; each wraps */
        char *s = strdup(d->notes[i]);
        for (char *line = s, *nl; line; line = nl) {
            nl = strchr(line, '\n');
            if (nl)
                *nl++ = '\0';
            wrap(f, "", 2, line, width);
        }
        free(s);
    }
    bool above = d->nnotes || (d->title && *d->title);
    for (size_t i = 0; i < d->ntables; i++) {
        if (d->tables[i]->data || d->tables[i]->machine)
            continue;
        if (above)
            fputc('\n', f);
        above = true;
        write_table(f, d->tables[i], o ? o->width : 0);
    }
    for (size_t i = 0; i < d->nchecks; i++)
        if (d->checks[i].status == GB_CHECK_FAIL || d->checks[i].status == GB_CHECK_ERROR) {
            char line[2048];
            const struct gb_doc_check *c = &d->checks[i];
            bool full = gb__check_named_in_full(c);
            snprintf(line, sizeof line, "%s%s%s%s%s%s",
                     c->status == GB_CHECK_FAIL ? "FAIL " : "ERROR ", full ? "" : c->group,
                     full ? "" : " ", c->name, c->message ? ": " : "",
                     c->message ? c->message : "");
            wrap(f, "", 2, line, width);
        }
    if (d->verdict)
        wrap(f, "", 2, d->verdict, width);
    return gb__write_end(f, "text");
}

GB_WRITER(text, "tables for a terminal, fitted to its width", false, text_write);
