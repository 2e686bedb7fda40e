/* What a person reads on a terminal: numbers in engineering form, tables fitted to the width
 * without losing which row is which, the progress line one line. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/doc.h"
#include "base/error.h"
#include "base/units.h"
#include "base/util.h"
#include "outputs/summary_out.h"
#include "outputs/writer.h"
#include "results/results.h"
#include "test.h"

static char out[1 << 18];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

TEST(terminal_numbers_in_engineering_form)
{
    char b[64];
    ASSERT_STR(gb_format_eng(1550, "us", 3, b, sizeof b), "1.55 ms");
    ASSERT_STR(gb_format_eng(22.9e6, "B", 3, b, sizeof b), "22.9 MB");
    ASSERT_STR(gb_format_eng(441e6, "bytes", 3, b, sizeof b), "441 MB");
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

/* Lines wrapped at their words (a note on stderr): none wider, each word whole,
 * the lines a line goes on to indented two beyond it; width 0 keeps every line whole. */
TEST(terminal_lines_wrap_at_words)
{
    static const char text[] = "  a line of many words that goes well beyond the twenty-four "
                               "columns of this test\nshort\n      x\n";
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ASSERT(f);
    gb_put_wrapped(f, text, 24);
    fclose(f);
    ASSERT_STR(buf, "  a line of many words\n"
                    "    that goes well\n"
                    "    beyond the\n"
                    "    twenty-four columns\n"
                    "    of this test\n"
                    "short\n"
                    "      x\n");
    free(buf);
    f = open_memstream(&buf, &len);
    ASSERT(f);
    gb_put_wrapped(f, text, 0);
    fclose(f);
    ASSERT_STR(buf, text);
    free(buf);
}

/* Each line of text (split at \n and \r, escape sequences left out) no wider than w; rows of a
 * table (the lines of a block after its header, footnotes and "name: value" lines aside) differ
 * in their cells before the first figure (a number with a fraction, an exponent or a unit; a
 * whole number alone is a param: burn's pulse=0 and pulse=1 rows). Fails naming the line. */
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
            if (end != cell && (end >= p || *end == ' ') &&
                (end < p || memchr(cell, '.', (size_t)(end - cell)) ||
                 memchr(cell, 'e', (size_t)(end - cell))))
                break; /* a figure */
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

/* Writes document d as text at `width` into a string (free it). */
static char *text_at(const struct gb_doc *d, int width)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ASSERT(f);
    struct gb_write_opts o = {.width = width};
    ASSERT_OK(gb_writer_find("text")->write(f, d, &o));
    fclose(f);
    return buf;
}

/* A note of figures wrapped at any width: a number never ends a line that its unit begins the
 * next of ("e2e_p50_ms=64" / "ms"), and no line is wider than the width. */
TEST(terminal_writer_keeps_a_number_with_its_unit)
{
    struct gb_doc d;
    ASSERT_OK(gb_doc_init(&d, "t/1", ""));
    ASSERT_OK(gb_doc_note(&d, "ttft_p50_ms=52.2 ms tpot_p99_ms=1.2 ms e2e_p50_ms=64 ms "
                              "request_rps=61.2 1/s kv_peak_bytes=113 kB ratio=12 %% "
                              "p99 3.503e+04 us, kept up 0.32, fail [1,2]"));
    for (int w = 20; w <= 90; w++) {
        char *buf = text_at(&d, w);
        char what[32];
        snprintf(what, sizeof what, "width %d", w);
        assert_fits(what, buf, (size_t)w);
        for (const char *nl = strchr(buf, '\n'); nl && nl[1]; nl = strchr(nl + 1, '\n')) {
            const char *next = nl + 1 + strspn(nl + 1, " ");
            ASSERT_MSG(
                !(nl > buf && nl[-1] >= '0' && nl[-1] <= '9' &&
                  (strncmp(next, "ms", 2) == 0 || strncmp(next, "1/s", 3) == 0 ||
                   strncmp(next, "kB", 2) == 0 || strncmp(next, "us", 2) == 0 || next[0] == '%')),
                "width %d: a number cut from its unit:\n%s", w, buf);
        }
        free(buf);
    }
    gb_doc_free(&d);
}

/* A verdict left of the first number (compare's table) is a state column: at any width the
 * params are cut, the verdict never ("UNSTABLE", not "UN...LE"). */
TEST(terminal_writer_never_cuts_a_verdict)
{
    struct gb_doc d;
    ASSERT_OK(gb_doc_init(&d, "t/1", ""));
    static const char *const cols[] = {"verdict", "suite", "case", "params", "base", "new"};
    struct gb_doc_table *t;
    ASSERT_OK(gb_doc_table(&d, "t", "", cols, 6, &t));
    gb_doc_column_state(t, 0);
    gb_doc_column_set(t, 4, true, false);
    gb_doc_column_set(t, 5, true, false);
    static const char *const verdicts[] = {"UNSTABLE", "SAME", "SLOWER!", "FASTER"};
    for (int i = 0; i < 8; i++) {
        size_t r;
        ASSERT_OK(gb_doc_row(t, &r));
        ASSERT_OK(gb_doc_text(t, r, 0, "%s", verdicts[i % 4]));
        ASSERT_OK(gb_doc_text(t, r, 1, "%s", i % 3 ? "batching" : "transfer"));
        ASSERT_OK(gb_doc_text(t, r, 2, "%s", i % 2 ? "throughput" : "latency"));
        ASSERT_OK(gb_doc_text(t, r, 3, "mode=async count=16 size=%dKiB memory=pinned items=%d",
                              4 << i, i));
        ASSERT_OK(gb_doc_num_unit(t, r, 4, 10.0 * (i + 1), 4, "GB/s"));
        ASSERT_OK(gb_doc_num_unit(t, r, 5, 11.0 * (i + 1), 4, "GB/s"));
    }
    for (int w = 40; w <= 80; w += 10) {
        char *buf = text_at(&d, w);
        char what[32];
        snprintf(what, sizeof what, "width %d", w);
        assert_fits(what, buf, (size_t)w);
        ASSERT_MSG(strstr(buf, "UNSTABLE") && strstr(buf, "SLOWER!"),
                   "width %d: a verdict cut:\n%s", w, buf);
        free(buf);
    }
    gb_doc_free(&d);
}

/* A table of one row wider than the terminal (a lone device's facts) is a record, a field a
 * line: its name whole, never cut beside each panel; a blank field left out; the same table
 * wide enough is a table. */
TEST(terminal_writer_one_wide_row_is_a_record)
{
    struct gb_doc d;
    ASSERT_OK(gb_doc_init(&d, "t/1", ""));
    static const char *const cols[] = {"backend", "name",    "memory",  "clock",
                                       "arch",    "version", "platform"};
    struct gb_doc_table *t;
    ASSERT_OK(gb_doc_table(&d, "t", "devices", cols, 7, &t));
    gb_doc_column_set(t, 2, true, false);
    gb_doc_column_set(t, 3, true, false);
    ASSERT_OK(gb_doc_column_unit(t, 3, "MHz", 0));
    size_t r;
    ASSERT_OK(gb_doc_row(t, &r));
    static const char name[] = "pthread-skylake-avx512-Intel(R) Xeon(R) Processor";
    ASSERT_OK(gb_doc_text(t, r, 0, "opencl"));
    ASSERT_OK(gb_doc_text(t, r, 1, "%s", name));
    gb_doc_num(t, r, 2, 23177469952.0, 0);
    ASSERT_OK(gb_doc_shown(t, r, 2, "21.59 GiB"));
    gb_doc_num(t, r, 3, 2100, 0);
    ASSERT_OK(gb_doc_text(t, r, 4, "%s", ""));
    ASSERT_OK(
        gb_doc_text(t, r, 5, "OpenCL 3.0 PoCL HSTR: pthread-x86_64-pc-linux-gnu-skylake-avx512"));
    ASSERT_OK(gb_doc_text(t, r, 6, "Portable Computing Language"));
    for (int w = 80; w <= 400; w += 320) {
        char *buf = text_at(&d, w);
        char what[32];
        snprintf(what, sizeof what, "width %d", w);
        assert_fits(what, buf, (size_t)w);
        if (w < 400) {
            char line[128];
            snprintf(line, sizeof line, "\nname: %s\n", name);
            ASSERT_CONTAINS(buf, line);
            ASSERT_CONTAINS(buf, "\nmemory: 21.59 GiB\n");
            ASSERT_CONTAINS(buf, "\nplatform: Portable Computing Language\n");
            ASSERT_CONTAINS(buf, "\nversion: OpenCL 3.0");
            ASSERT(!strstr(buf, "arch:"));
            ASSERT(!strstr(buf, "..."));
        } else {
            ASSERT_CONTAINS(buf, "backend  name");
            ASSERT(!strstr(buf, "name: "));
        }
        free(buf);
    }
    gb_doc_free(&d);
}

/* A wrapping last column (gb_doc_column_wrap: a suite's summary) is read whole at any width:
 * every line fits, each row starts on a line of its own with its name, and the words, joined
 * back, are the cell's text; wider than it needs, the row is one line. */
TEST(terminal_writer_wraps_a_prose_column)
{
    struct gb_doc d;
    ASSERT_OK(gb_doc_init(&d, "t/1", ""));
    static const char *const cols[] = {"suite", "summary"};
    struct gb_doc_table *t;
    ASSERT_OK(gb_doc_table(&d, "t", "", cols, 2, &t));
    gb_doc_column_wrap(t, 1);
    static const char *const text[] = {
        "H2D, D2H, D2D and bidirectional copy bandwidth (GB/s) and latency (us)",
        "multi-device strong and weak scaling: triad (GB/s) and SGEMM split by rows (GFLOP/s), "
        "with speedup and parallel efficiency",
        "short"};
    for (size_t i = 0; i < 3; i++) {
        size_t r;
        ASSERT_OK(gb_doc_row(t, &r));
        ASSERT_OK(gb_doc_text(t, r, 0, "suite%zu", i));
        ASSERT_OK(gb_doc_text(t, r, 1, "%s", text[i]));
    }
    for (int w = 40; w <= 200; w += 20) {
        char *buf = text_at(&d, w);
        char what[32], joined[3][400] = {"", "", ""};
        snprintf(what, sizeof what, "width %d", w);
        assert_fits(what, buf, (size_t)w);
        int row = -1;
        size_t lines[3] = {0, 0, 0};
        for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l;
             l = strtok_r(NULL, "\n", &save)) {
            if (strncmp(l, "suite", 5) == 0 && l[5] >= '0' && l[5] <= '2')
                row = l[5] - '0';
            else if (l[0] != ' ')
                continue; /* the header */
            ASSERT(row >= 0);
            const char *words = l[0] == ' ' ? l : l + 6;
            words += strspn(words, " ");
            gb_appendf(joined[row], sizeof joined[row], "%s%s", joined[row][0] ? " " : "", words);
            lines[row]++;
        }
        for (size_t i = 0; i < 3; i++) {
            ASSERT_MSG(strcmp(joined[i], text[i]) == 0, "width %d, row %zu: \"%s\"", w, i,
                       joined[i]);
            if (w >= 140)
                ASSERT_EQ(lines[i], 1);
        }
        ASSERT_U64(lines[1], >=, w <= 80 ? 2 : 1);
        free(buf);
    }
    gb_doc_free(&d);
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
        char *buf = text_at(&d, w);
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

/* The run's summary names the device whole in a section's title ("launch on opencl:0 NAME"):
 * a title wraps on a terminal, so the name is never cut to "pthread-skylake-avx512-Intel(...",
 * which loses the part that tells one CPU or GPU model from another. */
TEST(terminal_summary_names_the_device_whole)
{
    static const char name[] = "pthread-skylake-avx512-Intel(R) Xeon(R) Processor";
    struct gb_results rs = {0};
    struct gb_device_info info = {0};
    snprintf(info.name, sizeof info.name, "%s", name);
    int dev;
    ASSERT_OK(gb_results_add_device(&rs, "opencl", 0, &info, &dev));
    struct gb_result r = {0};
    snprintf(r.suite, sizeof r.suite, "launch");
    snprintf(r.case_name, sizeof r.case_name, "latency");
    snprintf(r.backend, sizeof r.backend, "opencl");
    snprintf(r.unit, sizeof r.unit, "us");
    r.device_index = dev;
    r.status = GB_STATUS_OK;
    r.value = 10;
    r.verified = true;
    ASSERT_OK(gb_results_add(&rs, &r));
    struct gb_doc d;
    ASSERT_OK(gb_summary_doc(&rs, &d));
    for (int w = 0; w <= 120; w += 40) {
        char *buf = text_at(&d, w);
        char what[32];
        snprintf(what, sizeof what, "width %d", w);
        if (w)
            assert_fits(what, buf, (size_t)w);
        ASSERT_MSG(!strstr(buf, "Intel(..."), "%s: %s", what, buf);
        ASSERT_CONTAINS(buf, "Xeon(R) Processor");
        if (!w) /* no width (a pipe): the title on one line */
            ASSERT_CONTAINS(buf, "launch on opencl:0 pthread-skylake-avx512-Intel(R) Xeon(R) "
                                 "Processor");
        free(buf);
    }
    gb_doc_free(&d);
    gb_results_free(&rs);
}

/* Rows of several suites, each with params of its own, and a later column wider than the first
 * panel's: every panel within the width, a param with one value wherever it applies said once
 * above, a param that tells two rows apart kept in them. */
TEST(terminal_writer_fits_rows_of_several_suites)
{
    struct gb_doc d;
    ASSERT_OK(gb_doc_init(&d, "t/1", ""));
    static const char *const cols[] = {"verdict", "suite", "case", "device",
                                       "params",  "base",  "new",  "a long figure name"};
    struct gb_doc_table *t;
    ASSERT_OK(gb_doc_table(&d, "t", "", cols, 8, &t));
    for (int c = 5; c < 8; c++)
        gb_doc_column_set(t, (size_t)c, true, false);
    static const char *const rows[][4] = {
        {"serve", "64x64", "[opencl:0] pthread-skylake-avx512-Intel(R) Xeon(R) Processor",
         "load=0.5 max_batch=4 max_wait=500 requests=32 seed=1 slo_us=50000"},
        {"serve", "64x64", "[opencl:0] pthread-skylake-avx512-Intel(R) Xeon(R) Processor",
         "load=1 max_batch=1 max_wait=0 requests=32 seed=1 slo_us=50000 scenario=SingleStream"},
        {"collective", "allreduce", "[opencl:0+1+2+3] pthread-skylake-avx512-Intel(R) Xeon(R)",
         "transport=devices dtype=f32 redop=sum inplace=false root=0 size=64B"},
        {"collective", "allreduce", "[opencl:0+1+2+3] pthread-skylake-avx512-Intel(R) Xeon(R)",
         "transport=devices dtype=f32 redop=sum inplace=false root=0 size=4KiB"},
        {"parallel", "tensor", "[opencl:0] pthread-skylake-avx512-Intel(R) Xeon(R) Processor",
         "ndev=1 variant=allreduce microbatches=0 bucket=0B impl=library h=64 tokens=16"},
        {"parallel", "tensor", "[opencl:0] pthread-skylake-avx512-Intel(R) Xeon(R) Processor",
         "ndev=1 variant=sequence microbatches=0 bucket=0B impl=library h=64 tokens=16"},
        {"parallel", "pipeline", "[opencl:0+1+2+3] pthread-skylake-avx512-Intel(R) Xeon(R)",
         "ndev=4 variant=none microbatches=4 bucket=0B impl=library h=64 tokens=16"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        size_t r;
        ASSERT_OK(gb_doc_row(t, &r));
        ASSERT_OK(gb_doc_text(t, r, 0, "%s", i % 3 ? "UNSTABLE" : "SAME"));
        for (size_t c = 0; c < 4; c++)
            ASSERT_OK(gb_doc_text(t, r, c + 1, "%s", rows[i][c]));
        gb_doc_num(t, r, 5, 1.5e-4 * (double)(i + 1), -1);
        gb_doc_num(t, r, 6, 2.5 * (double)(i + 1), 3);
        gb_doc_num(t, r, 7, 123456.789 * (double)(i + 1), 3);
    }
    for (int w = 80; w <= 120; w += 40) {
        char *buf = text_at(&d, w);
        char what[32];
        snprintf(what, sizeof what, "width %d", w);
        assert_fits(what, buf, (size_t)w);
        /* one value wherever it applies: said once above; scenario only on one serve row: kept */
        ASSERT_CONTAINS(buf, "the same wherever they apply: ");
        ASSERT_CONTAINS(buf, "slo_us=50000");
        ASSERT_CONTAINS(buf, "transport=devices");
        const char *above = strstr(buf, "the same wherever they apply: ");
        const char *end = above ? strstr(above, "\nverdict") : NULL;
        ASSERT_MSG(end && !memmem(above, (size_t)(end - above), "scenario", 8), "%s", buf);
        if (getenv("GB_TEST_SHOW"))
            fputs(buf, stderr);
        free(buf);
    }
    gb_doc_free(&d);
}

/* The commands' text on a terminal of 80 and of 120 columns ($COLUMNS, and a pseudo-terminal
 * where `script` is there): no line wider, rows told apart; suites and devices too. */
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
    static const char *const cmds[] = {"run tiny.yaml -o r9.json",
                                       "compare r0.json r1.json",
                                       "fleet r0.json r1.json",
                                       "check r1.json",
                                       "calibrate --from r0.json r1.json",
                                       "suites",
                                       "devices"};
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

/* The same for the suites of serving, stress and parallelism (one device, and four for the
 * collectives and parallel patterns) and for diag: run, compare, fleet and check, and diag's
 * tests, on a pseudo-terminal of 80 and of 120 columns. */
TEST_TIMEOUT(terminal_new_suites_and_diag_fit_80_and_120_columns, 300)
{
    if (sh("command -v script >/dev/null 2>&1") != 0)
        SKIP("script (util-linux) is not installed: no pseudo-terminal");
    const char *dir = gb_test_tmpdir();
    char p[1100];
    snprintf(p, sizeof p, "%s/one.yaml", dir);
    gb_test_write_file(p, "name: one\n"
                          "measure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, "
                          "max_samples: 3, max_time: 50ms, min_sample_time: 0}\n"
                          "suites:\n"
                          "  - suite: serve\n"
                          "    params: {shape: 64x64, scenario: [Server, SingleStream], load: "
                          "0.5, max_batch: 4, max_wait: 500, requests: 32}\n"
                          "  - suite: llm\n"
                          "    params: {model: tiny, prompt_len: 8, output_len: 4, requests: 4, "
                          "max_batch: [1, 4], rate: 0}\n"
                          "  - suite: burn\n"
                          "    params: {dtype: f32, duration: 0.2, pulse: [0, 0.1], n: 64}\n"
                          "  - suite: memtest\n"
                          "    params: {pattern: [walking_ones, random], fraction: 0.001, cap: "
                          "1MiB}\n");
    snprintf(p, sizeof p, "%s/four.yaml", dir);
    gb_test_write_file(p, "name: four\n"
                          "measure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, "
                          "max_samples: 3, max_time: 30ms, min_sample_time: 0}\n"
                          "suites:\n"
                          "  - suite: collective\n"
                          "    params: {coll: [allreduce, allgather], size: [64, 4KiB]}\n"
                          "  - suite: parallel\n"
                          "    params: {pattern: [tensor, pipeline, data], ndev: [1, 4], "
                          "variant: [allreduce, sequence], microbatches: [1, 4], bucket: "
                          "256KiB, h: 64, tokens: 16, layers: 2}\n");
#define FOUR "POCL_DEVICES='pthread pthread pthread pthread' "
    int rc = sh(
        "cd %s && %s run one.yaml -q -o o1.json 2>&1 && " FOUR
        "%s run four.yaml -q -o f1.json 2>&1 && %s run %s/configs/diag-1.yaml -q -s "
        "memory --set memory.params.size=1MiB -o d1.json 2>&1 && cp o1.json o3.json && cp f1.json "
        "f3.json",
        dir, GB_TEST_EXE, GB_TEST_EXE, GB_TEST_EXE, GB_TEST_SRCDIR);
    ASSERT_MSG(rc == 0, "setup exit %d: %s", rc, out);
    static const char *const cmds[] = {"run one.yaml -o o2.json",
                                       FOUR "run four.yaml -o f2.json",
                                       "compare o1.json o2.json",
                                       "compare f1.json f2.json",
                                       "fleet o1.json o2.json o3.json",
                                       "fleet f1.json f2.json f3.json",
                                       "check o2.json",
                                       "check f2.json",
                                       "diag --level 1 --from d1.json"};
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++)
        for (int w = 80; w <= 120; w += 40) {
            /* the environment's assignments before the program, inside the terminal */
            const char *prog = cmds[c];
            const bool env = strncmp(prog, "POCL", 4) == 0;
            const char *args = env ? strstr(prog, "run ") : prog;
            char what[160];
            snprintf(what, sizeof what, "gpubench %s on a terminal of %d", cmds[c], w);
            rc = sh("cd %s && script -qec \"stty cols %d; %.*s GPUBENCH_SOURCE_DIR=%s %s %s\" "
                    "/dev/null 2>&1 </dev/null",
                    dir, w, env ? (int)(args - prog) : 0, prog, GB_TEST_SRCDIR, GB_TEST_EXE, args);
            ASSERT_MSG(strlen(out) > 100 && !strstr(out, "usage"), "%s: %s", what, out);
            assert_fits(what, out, (size_t)w);
            /* params that do not apply to a case (parallel's variant for a pipeline) are left
             * out of what people read */
            if (!env && (strstr(args, " f1.json") || strstr(args, " f2.json")))
                ASSERT_MSG(!strstr(out, "variant=none") && !strstr(out, "microbatches=0"), "%s: %s",
                           what, out);
            /* a table of device sets ("opencl:0+1") names a lone device by its index alone
             * too, not by a name cut in the middle */
            if (env)
                for (const char *l = out; (l = strstr(l, "\ntensor ")) != NULL; l++)
                    ASSERT_MSG(!memmem(l, strcspn(l + 1, "\r\n"), "pthread", 7) &&
                                   !memchr(l, '(', strcspn(l + 1, "\r\n")),
                               "%s: %.*s", what, (int)strcspn(l + 1, "\r\n"), l + 1);
        }
    /* ... and kept in what machines read */
    rc = sh("cd %s && %s compare f1.json f2.json -f csv 2>/dev/null", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0 || rc == 3, "compare -f csv: exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "variant=none");
#undef FOUR
}

/* A wrapping column loses no word: names that end in a digit ("gpu0 gpu1") are words, not a
 * number glued to its unit (they were glued into one word and cut), and a cell longer than the
 * writer's cell buffer (1100 bytes) is written whole; width 0 keeps each row on one line. */
TEST(terminal_writer_wrap_column_keeps_every_word)
{
    static char text[3][4000];
    snprintf(text[0], sizeof text[0], "%s", "64 ms and 3 GB/s at x=4 devices");
    for (int i = 0; i < 40; i++)
        gb_appendf(text[1], sizeof text[1], "%sgpu%d", i ? " " : "", i);
    for (int i = 0; i < 500; i++)
        gb_appendf(text[2], sizeof text[2], "%sword%d", i ? " " : "", i);
    ASSERT_U64(strlen(text[2]), >, 1100);
    struct gb_doc d;
    ASSERT_OK(gb_doc_init(&d, "t/1", ""));
    static const char *const cols[] = {"name", "summary"};
    struct gb_doc_table *t;
    ASSERT_OK(gb_doc_table(&d, "t", "", cols, 2, &t));
    gb_doc_column_wrap(t, 1);
    for (size_t i = 0; i < 3; i++) {
        size_t r;
        ASSERT_OK(gb_doc_row(t, &r));
        ASSERT_OK(gb_doc_text(t, r, 0, "r%zu", i));
        ASSERT_OK(gb_doc_text(t, r, 1, "%s", text[i]));
    }
    static const int widths[] = {0, 30, 40, 80, 200};
    for (size_t k = 0; k < sizeof widths / sizeof *widths; k++) {
        const int w = widths[k];
        char *buf = text_at(&d, w);
        static char joined[3][4000];
        size_t lines[3] = {0, 0, 0};
        int row = -1;
        memset(joined, 0, sizeof joined);
        for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l;
             l = strtok_r(NULL, "\n", &save)) {
            if (l[0] == 'r' && l[1] >= '0' && l[1] <= '2' && l[2] == ' ')
                row = l[1] - '0';
            else if (l[0] != ' ')
                continue; /* the header */
            ASSERT(row >= 0);
            const char *words = l[0] == ' ' ? l : l + 2;
            words += strspn(words, " ");
            gb_appendf(joined[row], sizeof joined[row], "%s%s", joined[row][0] ? " " : "", words);
            lines[row]++;
        }
        for (size_t i = 0; i < 3; i++) {
            ASSERT_MSG(strcmp(joined[i], text[i]) == 0, "width %d, row %zu: \"%.200s\"", w, i,
                       joined[i]);
            if (w == 0)
                ASSERT_EQ(lines[i], 1);
        }
        free(buf);
    }
    gb_doc_free(&d);
}

/* Hostile cells in a wrapping column, alone or beside others, at widths 1 to 30: nothing
 * crashes, no control character reaches the terminal, and a column alone is never wider than
 * the width (it was MIN_WRAP, 24, at any width). */
TEST(terminal_writer_wrap_column_hostile_cells)
{
    static const char *const text[] = {
        "averyveryveryveryveryveryveryveryverylongwordlongerthananycolumn and more",
        "\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xbcn\xc3\xaf"
        "c\xc3\xb6"
        "d\xc3\xa9 w\xc3\xb6rds \xe2\x82\xac",
        "red \033[31mRED\033[0m bell\a del\x7f c1\xc2\x9b bidi\xe2\x80\xae end",
        "tab\there new\nline cr\rret",
        "",
        "     ",
        "\xff\xfe lone \x80 bytes \x1f unit-sep 1 2 3",
    };
    for (size_t ncols = 1; ncols <= 3; ncols++) {
        struct gb_doc d;
        ASSERT_OK(gb_doc_init(&d, "t/1", ""));
        static const char *const cols[] = {"suite", "other", "summary"};
        struct gb_doc_table *t;
        ASSERT_OK(gb_doc_table(&d, "t", "", cols + 3 - ncols, ncols, &t));
        gb_doc_column_wrap(t, ncols - 1);
        for (size_t i = 0; i < sizeof text / sizeof *text; i++) {
            size_t r;
            ASSERT_OK(gb_doc_row(t, &r));
            for (size_t c = 0; c + 1 < ncols; c++)
                ASSERT_OK(
                    gb_doc_text(t, r, c, "name%zu-of-a-column-wider-than-the-width-%zu", i, c));
            ASSERT_OK(gb_doc_text(t, r, ncols - 1, "%s", text[i]));
        }
        for (int w = 1; w <= 30; w++) {
            char *buf = text_at(&d, w), what[48];
            for (const unsigned char *u = (const unsigned char *)buf; *u; u++)
                ASSERT_MSG(*u == '\n' || (*u >= 0x20 && *u != 0x7F),
                           "%zu columns, width %d: byte %#x", ncols, w, *u);
            snprintf(what, sizeof what, "the column alone, width %d", w);
            if (ncols == 1)
                assert_fits(what, buf, (size_t)w);
            free(buf);
        }
        gb_doc_free(&d);
    }
    /* Beside a short name ("aggregate", as gpubench suites has it), the column takes the room
     * left where it holds 12 columns: every line within the width (it was 24 wide, lines of
     * 37 at widths 25 to 36). */
    struct gb_doc d;
    ASSERT_OK(gb_doc_init(&d, "t/1", ""));
    static const char *const cols[] = {"suite", "summary"};
    struct gb_doc_table *t;
    ASSERT_OK(gb_doc_table(&d, "t", "", cols, 2, &t));
    gb_doc_column_wrap(t, 1);
    for (size_t i = 0; i < 3; i++) {
        size_t r;
        ASSERT_OK(gb_doc_row(t, &r));
        static const char *const names[] = {"concurrency", "aggregate", "allreduce"};
        ASSERT_OK(gb_doc_text(t, r, 0, "%s", names[i]));
        ASSERT_OK(gb_doc_text(t, r, 1, "%s", text[i + 1]));
    }
    for (int w = 25; w <= 40; w++) {
        char *buf = text_at(&d, w), what[48];
        snprintf(what, sizeof what, "beside a name, width %d", w);
        assert_fits(what, buf, (size_t)w);
        free(buf);
    }
    gb_doc_free(&d);
}
