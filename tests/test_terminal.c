/* What a person reads on a terminal: numbers in engineering form, tables fitted to the width
 * without losing which row is which, the progress line one line. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/doc.h"
#include "base/error.h"
#include "base/units.h"
#include "outputs/writer.h"
#include "test.h"

static char out[1 << 18];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

TEST(terminal_numbers_in_engineering_form)
{
    char b[64];
    ASSERT_STR(gb_format_eng(1550, "us", 3, b, sizeof b), "1.55 ms");
    ASSERT_STR(gb_format_eng(22.9e6, "B", 3, b, sizeof b), "22.9 MB");
    ASSERT_STR(gb_format_eng(0.5, "GB/s", 3, b, sizeof b), "500 MB/s");
    ASSERT_STR(gb_format_eng(2.378, "GB/s", 3, b, sizeof b), "2.38 GB/s");
    ASSERT_STR(gb_format_eng(0.242, "us", 3, b, sizeof b), "242 ns");
    ASSERT_STR(gb_format_eng(999.7, "us", 3, b, sizeof b), "1 ms");
    ASSERT_STR(gb_format_eng(41000, NULL, 3, b, sizeof b), "41 k");
    ASSERT_STR(gb_format_eng(4096, "", 3, b, sizeof b), "4096");
    ASSERT_STR(gb_format_eng(10.7, "FLOP/B", 3, b, sizeof b), "10.7 FLOP/B");
    ASSERT_STR(gb_format_eng(1.62e-7, NULL, 3, b, sizeof b), "1.62e-07");
    ASSERT_STR(gb_format_eng(-3.5, "%", 3, b, sizeof b), "-3.5 %");
    ASSERT_STR(gb_format_eng(0.0207, NULL, 3, b, sizeof b), "0.0207");
    ASSERT_STR(gb_format_eng(15100, "1/s", 3, b, sizeof b), "15.1 k/s");
}

/* Each line of text (split at \n and \r, escape sequences left out) no wider than w; rows of a
 * table (the lines of a block after its header, footnotes and "name: value" lines aside) differ
 * in their cells before the first number. Fails naming the line. */
static void assert_fits(const char *what, const char *text, size_t w)
{
    char *s = strdup(text);
    ASSERT(s);
    /* escape sequences out: ESC [ ... letter */
    char *o = s;
    for (const char *p = s; *p; p++) {
        if (*p == '\033' && p[1] == '[') {
            p += 2;
            while (*p && !((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
                p++;
            if (!*p)
                break;
            continue;
        }
        *o++ = *p == '\r' ? '\n' : *p;
    }
    *o = '\0';
    char ids[256][256];
    size_t nids = 0, line_no = 0;
    for (char *rest = s, *l; (l = strsep(&rest, "\n")) != NULL; line_no++) {
        size_t n = 0;
        for (const unsigned char *u = (const unsigned char *)l; *u; u++)
            n += (*u & 0xC0) != 0x80;
        ASSERT_MSG(n <= w, "%s: line %zu is %zu columns wide (width %zu): %s", what, line_no, n, w,
                   l);
        if (!*l) {
            nids = 0; /* a blank line: the next table, or the next panel of this one */
            continue;
        }
        /* the identity of a row: its text up to the first cell that is a number */
        if (strstr(l, "  ") == NULL || l[0] == ' ' || strstr(l, ": ")) {
            nids = 0; /* a title, a note, a footnote: a new table may follow */
            continue;
        }
        char id[256] = "";
        size_t len = 0;
        for (const char *p = l; *p && len + 1 < sizeof id;) {
            const char *cell = p;
            while (*p && !(p[0] == ' ' && p[1] == ' '))
                p++;
            char *end;
            strtod(cell, &end);
            if (end != cell && (end >= p || *end == ' '))
                break; /* a number */
            len += (size_t)snprintf(id + len, sizeof id - len, "%.*s|", (int)(p - cell), cell);
            while (*p == ' ')
                p++;
        }
        for (size_t k = 0; k < nids && id[0] && len < sizeof id - 1; k++)
            ASSERT_MSG(strcmp(ids[k], id) != 0, "%s: two rows read alike (\"%s\"): %s", what, id,
                       l);
        if (nids < 256)
            snprintf(ids[nids++], sizeof ids[0], "%s", id);
    }
    free(s);
}

/* A table wider than the width: its identity columns shortened where their cells still differ,
 * the column every row shares said once above it, the notes moved to footnotes that wrap. */
TEST(terminal_writer_fits_a_wide_table)
{
    struct gb_doc d;
    ASSERT_OK(gb_doc_init(&d, "t/1", "a title"));
    static const char *const cols[] = {"suite", "case", "device", "params", "value", "note"};
    struct gb_doc_table *t;
    ASSERT_OK(gb_doc_table(&d, "t", "", cols, 6, &t));
    gb_doc_column_set(t, 3, false, true);
    gb_doc_column_set(t, 4, true, false);
    static const char *const mem[] = {"pinned", "pageable"};
    for (int i = 0; i < 8; i++) {
        size_t r;
        ASSERT_OK(gb_doc_row(t, &r));
        ASSERT_OK(gb_doc_text(t, r, 0, "transfer"));
        ASSERT_OK(gb_doc_text(t, r, 1, "%s", i < 4 ? "h2d" : "d2h"));
        ASSERT_OK(gb_doc_text(t, r, 2, "opencl:0 NVIDIA GeForce RTX 4090 with a long name"));
        ASSERT_OK(gb_doc_text(t, r, 3, "memory=%s mode=async offset=0 size=%dKiB", mem[i % 2],
                              4 << (i / 2 % 2)));
        ASSERT_OK(gb_doc_num_unit(t, r, 4, 1000.0 * (i + 1), 3, "us"));
        ASSERT_OK(gb_doc_text(t, r, 5,
                              "a long remark about this row that cannot fit beside the numbers "
                              "on a terminal of eighty columns, number %d",
                              i));
    }
    for (int w = 40; w <= 120; w += 40) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        ASSERT(f);
        struct gb_write_opts o = {.width = w};
        ASSERT_OK(gb_writer_find("text")->write(f, &d, &o));
        fclose(f);
        char what[32];
        snprintf(what, sizeof what, "width %d", w);
        assert_fits(what, buf, (size_t)w);
        ASSERT_CONTAINS(buf, "1 ms"); /* 1000 us in engineering form */
        if (w >= 80)                  /* said once, above the table */
            ASSERT_CONTAINS(buf, "device: opencl:0 NVIDIA GeForce RTX 4090 with a long name");
        free(buf);
    }
    gb_doc_free(&d);
}

/* The commands' text on a terminal of 80 and of 120 columns ($COLUMNS, and a pseudo-terminal
 * where `script` is there): no line wider, rows told apart. */
TEST_TIMEOUT(terminal_commands_fit_80_and_120_columns, 300)
{
    const char *dir = gb_test_tmpdir();
    char prof[512];
    snprintf(prof, sizeof prof, "%s/tiny.yaml", dir);
    FILE *f = fopen(prof, "w");
    ASSERT(f);
    fputs("name: tiny\n"
          "measure: {warmup_runs: 1, min_samples: 3, max_samples: 3, max_time: 30ms}\n"
          "suites:\n"
          "  - suite: transfer\n"
          "    params: {op: [h2d, d2h], memory: [pinned, pageable], mode: async, "
          "size: [4KiB, 64KiB]}\n"
          "  - suite: memory\n"
          "    params: {op: [copy, triad], type: float, size: 1MiB}\n"
          "  - suite: launch\n"
          "    params: {op: latency}\n"
          "  - suite: compute\n"
          "    params: {prec: [f32, f16], iters: 64, groups: 2}\n",
          f);
    fclose(f);
    for (int i = 0; i < 2; i++)
        ASSERT_EQ(sh("cd %s && %s run tiny.yaml -q -o r%d.json 2>&1", dir, GB_TEST_EXE, i), 0);
    static const char *const cmds[] = {"run tiny.yaml -o r9.json", "compare r0.json r1.json",
                                       "fleet r0.json r1.json", "check r1.json",
                                       "calibrate --from r0.json r1.json"};
    bool pty = sh("command -v script >/dev/null 2>&1") == 0;
    for (size_t c = 0; c < sizeof cmds / sizeof *cmds; c++)
        for (int w = 80; w <= 120; w += 40) {
            char what[128];
            snprintf(what, sizeof what, "COLUMNS=%d gpubench %s", w, cmds[c]);
            int rc = sh("cd %s && COLUMNS=%d %s %s 2>&1", dir, w, GB_TEST_EXE, cmds[c]);
            ASSERT_MSG(rc == 0 || rc == 3, "%s: exit %d: %s", what, rc, out);
            assert_fits(what, out, (size_t)w);
            if (!pty)
                continue;
            snprintf(what, sizeof what, "gpubench %s on a terminal of %d", cmds[c], w);
            sh("cd %s && script -qec 'stty cols %d; %s %s' /dev/null 2>&1 </dev/null", dir, w,
               GB_TEST_EXE, cmds[c]);
            assert_fits(what, out, (size_t)w);
        }
}
