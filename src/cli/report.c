/* gpubench — the report command: `gpubench report RESULTS.json... -o DIR [--prices FILE]
 * [--title TEXT]` (the report itself: src/outputs/report.h). */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "common.h"
#include "analyses/expect.h"
#include "analyses/prices.h"
#include "outputs/report.h"

static const char usage[] =
    "usage: gpubench report RESULTS.json... -o DIR [--prices prices.yaml]\n"
    "                       [--title TEXT]\n"
    "  writes DIR/index.html (self-contained, charts inline as SVG), DIR/report.md,\n"
    "  DIR/data/*.csv, DIR/plots/*.gp and DIR/charts/*.svg|png (drawn by gnuplot;\n"
    "  $GPUBENCH_GNUPLOT names another gnuplot)\n"
    "  -o, --output DIR    the report's folder (required)\n"
    "      --prices FILE   a price sheet: per-dollar and per-watt figures\n"
    "      --title TEXT    the page's title\n"
    "      --expect FILE   expectations (gpubench expect): each headline beside its\n"
    "                      model's reference median and verdict (default\n"
    "                      " GB_EXPECT_DEFAULT_PATH " here, else the source\n"
    "                      tree's or the installed one)\n"
    "exit status: 0 written, 1 written but a chart could not be drawn, 2 bad input\n";
/* Whether device d of file f is one that an earlier file or device of rs[] holds: the same
 * host and stable identity (gb_device_identity; the name too where the identity is an index). */
static bool seen_before(const struct gb_results *rs, size_t f, size_t d)
{
    const struct gb_result_device *x = &rs[f].devices[d];
    char a[256], b[256];
    const enum gb_id_kind k = gb_device_identity(x, a, sizeof a);
    for (size_t g = 0; g <= f; g++)
        for (size_t e = 0; e < (g == f ? d : rs[g].ndevices); e++) {
            const struct gb_result_device *y = &rs[g].devices[e];
            if (strcmp(rs[g].run.host, rs[f].run.host) == 0 &&
                gb_device_identity(y, b, sizeof b) == k && strcmp(a, b) == 0 &&
                (k != GB_ID_INDEX || strcmp(x->info.name, y->info.name) == 0))
                return true;
        }
    return false;
}

static const struct gb__cmd cmd = {"report", usage,          1,
                                   -1,       "RESULTS.json", "at least one results file"};

struct report_args {
    const char *dir, *prices, *title, *expect;
    const char **paths; /* the results files: argv's own strings */
    size_t n;
};

static const struct gb__opt report_options[] = {
    GB__TEXT(struct report_args, dir, "output", 'o'),
    GB__TEXT(struct report_args, prices, "prices", 0),
    GB__TEXT(struct report_args, title, "title", 0),
    GB__TEXT(struct report_args, expect, "expect", 0),
    GB__END,
};

/* Reads the results files and writes the report. */
static enum gb_exit write_report(const struct report_args *a, const struct gb_prices *prices)
{
    struct gb_results *rs = calloc(a->n, sizeof *rs);
    enum gb_exit rc = GB_EXIT_OK;
    size_t nread = 0;
    if (!rs) {
        fprintf(stderr, "gpubench report: out of memory\n");
        return GB_EXIT_USAGE;
    }
    gb_error_clear();
    if (gb_results_read_all(a->paths, a->n, rs)) { /* several at once */
        fprintf(stderr, "gpubench report: %s\n", gb_error_msg());
        rc = GB_EXIT_USAGE;
        goto out;
    }
    nread = a->n;
    struct gb_expect e;
    gb_expect_init(&e);
    const char *expect = a->expect;
    char found[4096];
    if (!expect && gb__default_expect(found, sizeof found))
        expect = found;
    gb_error_clear();
    if (expect && gb_expect_read(expect, &e)) {
        fprintf(stderr, "gpubench report: %s\n", gb_error_msg());
        rc = GB_EXIT_USAGE;
        goto out;
    }
    struct gb_report_opts o = {.dir = a->dir,
                               .title = a->title,
                               .prices = prices,
                               .expect = expect ? &e : NULL,
                               .expect_path = expect};
    struct gb_report_summary sum;
    gb_error_clear();
    int wr = gb_report_write(rs, a->paths, a->n, &o, &sum);
    gb_expect_free(&e);
    if (wr) {
        fprintf(stderr, "gpubench report: %s\n", gb_error_msg());
        rc = GB_EXIT_USAGE;
        goto out;
    }
    /* The devices told apart across the files (two runs of one device are one device). */
    size_t ndev = 0;
    for (size_t f = 0; f < a->n; f++)
        for (size_t d = 0; d < rs[f].ndevices; d++)
            ndev += !seen_before(rs, f, d);
    printf("report: %s/index.html and %s/report.md: %zu charts (%zu with data) for %zu "
           "device%s in %zu results file%s\n",
           a->dir, a->dir, sum.charts, sum.charts_with_data, ndev, ndev == 1 ? "" : "s", a->n,
           a->n == 1 ? "" : "s");
    if (sum.charts_failed) {
        fprintf(stderr, "gpubench report: %zu chart%s could not be drawn; the report says why\n",
                sum.charts_failed, sum.charts_failed == 1 ? "" : "s");
        rc = GB_EXIT_CASE_FAILED; /* status 1: written, but not all of it drawn */
    }
out:
    for (size_t i = 0; i < nread; i++)
        gb_results_free(&rs[i]);
    free(rs);
    return rc;
}

/* Whether the report in dir would overwrite `input`: the input lies where the report writes
 * (DIR/index.html, DIR/report.md, or under DIR/data, DIR/plots, DIR/charts). Both resolved. */
static bool written_by_report(const char *dir, const char *input)
{
    char rd[PATH_MAX], ri[PATH_MAX];
    if (!realpath(dir, rd) || !realpath(input, ri))
        return false;
    size_t l = strlen(rd);
    if (strncmp(ri, rd, l) != 0 || (ri[l] != '/' && l != 1))
        return false;
    const char *rest = ri + (l == 1 ? 1 : l + 1);
    static const char *const files[] = {"index.html", "report.md"};
    static const char *const subs[] = {"data/", "plots/", "charts/"};
    for (size_t i = 0; i < 2; i++)
        if (strcmp(rest, files[i]) == 0)
            return true;
    for (size_t i = 0; i < 3; i++)
        if (strncmp(rest, subs[i], strlen(subs[i])) == 0)
            return true;
    return false;
}

/* The folder must be one (or new), and no input (results files, price sheet) may be among the
 * files the report writes. GB_EXIT_OK or GB_EXIT_USAGE with the reason on stderr. */
static int check_output(const struct report_args *a)
{
    const char **inputs = calloc(a->n + 2, sizeof *inputs);
    if (!inputs) {
        fprintf(stderr, "gpubench report: out of memory\n");
        return GB_EXIT_USAGE;
    }
    memcpy(inputs, a->paths, a->n * sizeof *inputs);
    inputs[a->n] = a->prices;
    inputs[a->n + 1] = a->expect;
    int rc = gb__check_output("report", a->dir, GB_OUTPUT_DIR, inputs, a->n + 2);
    if (rc == GB_EXIT_OK)
        rc = gb__check_dir_parent("report", "-o", a->dir);
    for (size_t i = 0; rc == GB_EXIT_OK && i <= a->n + 1; i++) {
        if (inputs[i] && written_by_report(a->dir, inputs[i])) {
            fprintf(stderr,
                    "gpubench report: cannot write %s: the report would overwrite the input %s\n",
                    a->dir, inputs[i]);
            rc = GB_EXIT_USAGE;
        }
    }
    free(inputs);
    return rc;
}

static int report_main(int argc, char **argv)
{
    struct report_args a = {0};
    enum gb_exit rc;
    int first = gb__parse_options(&cmd, argc, argv, GB__GROUPS({report_options, &a}), &rc);
    if (first < 0)
        return rc;
    if (!a.dir)
        return gb__usage_error(&cmd, "needs -o DIR");
    /* getopt_long moved the operands, the results files, to the end. */
    a.paths = (const char **)argv + first;
    a.n = (size_t)(argc - first);
    a.n = gb__read_once("report", a.paths, a.n);
    if ((rc = check_output(&a)) != GB_EXIT_OK)
        return rc;
    if (!a.prices)
        return write_report(&a, NULL);
    struct gb_prices prices;
    char err[1024];
    if (gb_prices_load(a.prices, &prices, err, sizeof err)) {
        fprintf(stderr, "gpubench report: %s\n", err);
        return GB_EXIT_USAGE;
    }
    rc = write_report(&a, &prices);
    gb_prices_free(&prices);
    return rc;
}

const struct gb_command gb_command_report = {
    .name = "report",
    .summary = "HTML + Markdown report with gnuplot charts",
    .main = report_main,
};
