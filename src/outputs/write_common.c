/* gpubench — what every writer shares (contract in writer_private.h): text cleaned for any
 * format, and the end of a write. */
#include "outputs/writer_private.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"

/* Whether the 3-byte UTF-8 sequence at u is a bidirectional control (U+202A..U+202E,
 * U+2066..U+2069) or a line or paragraph separator (U+2028, U+2029): text a terminal reorders or
 * breaks, so that a name could show as another. */
static bool is_bidi(const unsigned char *u)
{
    return u[0] == 0xE2 && ((u[1] == 0x80 && u[2] >= 0xA8 && u[2] <= 0xAE) ||
                            (u[1] == 0x81 && u[2] >= 0xA6 && u[2] <= 0xA9));
}

void gb__put_clean(FILE *f, const char *s, bool keep_newlines)
{
    /* Most text has nothing to replace: then it is written whole (a byte at a time made the
     * text of a large table's every row several times slower). */
    const unsigned char *v = (const unsigned char *)(s ? s : "");
    while (*v >= 0x20 && *v != 0x7F && *v != 0xC2 && *v != 0xE2)
        v++;
    if (!*v) {
        fputs(s ? s : "", f);
        return;
    }
    for (const unsigned char *u = (const unsigned char *)(s ? s : ""); *u; u++) {
        if (gb_is_c1(u)) {
            fputc('?', f);
            u++;
        } else if (is_bidi(u)) {
            fputc('?', f);
            u += 2;
        } else if (*u == '\n' || *u == '\t') {
            fputc(keep_newlines && *u == '\n' ? '\n' : ' ', f);
        } else if (*u < 0x20 || *u == 0x7F) {
            fputc('?', f);
        } else {
            fputc(*u, f);
        }
    }
}

bool gb__check_named_in_full(const struct gb_doc_check *c)
{
    size_t n = c->group ? strlen(c->group) : 0;
    return n && c->name && strncmp(c->name, c->group, n) == 0 && c->name[n] == '/';
}

int gb__write_end(FILE *f, const char *format)
{
    if (fflush(f) != 0 || ferror(f))
        return GB_FAIL(GB_EIO, "writing the %s output failed", format);
    return 0;
}

/* Bytes in the UTF-8 sequence that starts at u, 0 when it is not a valid one (overlong forms,
 * surrogates and values past U+10FFFF included). */
static size_t utf8_seq(const unsigned char *u)
{
    if (u[0] < 0x80)
        return 1;
    size_t n = u[0] >= 0xF0 ? 4 : u[0] >= 0xE0 ? 3 : u[0] >= 0xC2 ? 2 : 0;
    if (n == 0 || u[0] > 0xF4)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((u[i] & 0xC0) != 0x80)
            return 0;
    if ((u[0] == 0xE0 && u[1] < 0xA0) || (u[0] == 0xED && u[1] >= 0xA0) ||
        (u[0] == 0xF0 && u[1] < 0x90) || (u[0] == 0xF4 && u[1] >= 0x90))
        return 0;
    return n;
}

char *gb__clean_dup(const char *s)
{
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    char *out = malloc(strlen((const char *)u) + 1), *o = out;
    if (!out)
        return NULL;
    while (*u) {
        size_t n = utf8_seq(u);
        if (n == 0 || gb_is_c1(u) || (n == 3 && is_bidi(u)) ||
            (n == 1 && ((*u < 0x20 && *u != '\n' && *u != '\t') || *u == 0x7F))) {
            *o++ = '?';
            u += n ? n : 1;
            continue;
        }
        memcpy(o, u, n);
        o += n;
        u += n;
    }
    *o = '\0';
    return out;
}
