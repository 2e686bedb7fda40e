/* gpubench history DIR|FILE... — each case's nightly median as a series and the nights on which
 * a figure moved (the method: analyses/history.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "common.h"
#include "outputs/fleet_out.h"
#include "outputs/writer.h"
#include "analyses/history.h"
#include "analyses/merge.h"

static const char usage[] =
    "usage: gpubench history DIR|FILE... [OPTIONS]\n"
    "  Results files of one machine, one a night (a folder gives its *.json files),\n"
    "  in the order of their start times: each case's median night by night, and the\n"
    "  nights on which a figure moved (Pettitt's rank test in binary segmentation)\n"
    "  with what else changed that night (gpubench, profile, host, OS, device,\n"
    "  driver, clock).\n"
    "      --alpha A           significance of a change point (default 0.01)\n"
    "      --threshold T       smallest change of the median that is named: 0.05 or\n"
    "                          5% (default 5%)\n"
    "      --min-nights N      nights on each side of a change point (default 3)\n"
    "  -s, --suite LIST        only these suites (comma-separated)\n"
    "      --series            print every case's nightly values\n"
    "      --markdown FILE, --json FILE, --csv FILE   also write these ('-': stdout)\n"
    "      --fail-on-slower    exit 3 when a change point is a slowdown\n"
    "  -q, --quiet             no terminal output\n" GB__FORMAT_HELP_JUDGED
    "exit status: 0 done, 3 a slowdown with --fail-on-slower, 2 bad input or usage\n";
static const struct gb__cmd cmd = {"history", usage, 1,
                                   -1,        NULL,  "results files or a folder of them"};

struct history_args {
    struct gb_history_opts o; /* first: the parsed options' target */
    const char *format, *md, *json, *csv, *suites;
    bool series, quiet, fail;
};

static int parse_history(void *target, const char *name, const char *value)
{
    struct gb_history_opts *o = target;
    char *end;
    if (strcmp(name, "threshold") == 0)
        return gb__parse_fraction(name, value, 1e-9, 10.0, &o->threshold);
    if (strcmp(name, "alpha") == 0) {
        double a = strtod(value, &end);
        if (end == value || *end || !(a > 0.0 && a < 1.0))
            return GB_FAIL(GB_EINVAL, "--alpha wants a probability in (0, 1), got '%s'", value);
        o->alpha = a;
        return 0;
    }
    long v = strtol(value, &end, 10);
    if (end == value || *end || v < 1 || v > 1000)
        return GB_FAIL(GB_EINVAL, "--min-nights wants 1..1000, got '%s'", value);
    o->min_nights = (size_t)v;
    return 0;
}

static const struct gb__opt history_options[] = {
    GB__PARSED("alpha", 0, true, parse_history),
    GB__PARSED("threshold", 0, true, parse_history),
    GB__PARSED("min-nights", 0, true, parse_history),
    GB__TEXT(struct history_args, suites, "suite", 's'),
    GB__FLAG(struct history_args, series, "series", 0),
    GB__TEXT(struct history_args, format, "format", 'f'),
    GB__TEXT(struct history_args, md, "markdown", 0),
    GB__TEXT(struct history_args, md, "md", 0),
    GB__TEXT(struct history_args, json, "json", 0),
    GB__TEXT(struct history_args, csv, "csv", 0),
    GB__FLAG(struct history_args, fail, "fail-on-slower", 0),
    GB__FLAG(struct history_args, quiet, "quiet", 'q'),
    GB__END,
};

static int write_markdown(FILE *f, const void *d)
{
    return gb_write_doc(f, "markdown", d);
}

static int write_json(FILE *f, const void *d)
{
    return gb_write_layout(f, d);
}

static int write_csv(FILE *f, const void *d)
{
    return gb_write_layout(f, d);
}

/* Whether the history read a result of suite `name` (gb__check_suite_filter). */
static bool history_has_suite(const void *ctx, const char *name)
{
    const struct gb_history *h = ctx;
    for (size_t i = 0; i < h->nseries; i++)
        if (strcmp(h->series[i].suite, name) == 0)
            return true;
    return false;
}

static int history_main(int argc, char **argv)
{
    struct history_args a = {0};
    gb_history_opts_default(&a.o);
    enum gb_exit rc0;
    int first = gb__parse_options(&cmd, argc, argv, GB__GROUPS({history_options, &a}), &rc0);
    if (first < 0)
        return rc0;
    if (a.suites)
        a.o.suites = a.suites;
    struct gb_history_opts o = a.o;
    const char *md = a.md, *json = a.json, *csv = a.csv;
    bool series = a.series, quiet = a.quiet, fail = a.fail;
    const char *outs[3] = {md, json, csv};
    static const char *const names[3] = {"--markdown", "--json", "--csv"};
    if ((rc0 = gb__check_format("history", a.format, true)) != GB_EXIT_OK ||
        (rc0 = gb__check_stdout("history", a.format, outs, names, 3)) != GB_EXIT_OK)
        return rc0;
    struct gb_inputs in;
    gb_error_clear();
    if (gb_inputs_expand((const char *const *)argv + first, (size_t)(argc - first), &in)) {
        fprintf(stderr, "gpubench history: %s\n", gb_error_msg());
        return GB_EXIT_USAGE;
    }
    if (in.ndup)
        fprintf(stderr, "gpubench history: note: %zu file%s named more than once: read once\n",
                in.ndup, in.ndup == 1 ? "" : "s");
    if ((rc0 = gb__check_set_outputs("history", outs, names, 3, (const char *const *)argv + first,
                                     (size_t)(argc - first), &in)) != GB_EXIT_OK) {
        gb_inputs_free(&in);
        return rc0;
    }
    struct gb_history h;
    gb_history_init(&h, &o);
    int rc = GB_EXIT_OK;
    for (size_t i = 0; i < in.n; i++) {
        gb_error_clear();
        if (gb_history_add_file(&h, in.paths[i])) {
            fprintf(stderr, "gpubench history: %s\n", gb_error_msg());
            rc = GB_EXIT_USAGE;
            goto out;
        }
    }
    if (h.ncopies)
        fprintf(stderr,
                "gpubench history: note: %zu file%s left out as a copy of a night already read "
                "(the same host, start time and profile)\n",
                h.ncopies, h.ncopies == 1 ? "" : "s");
    if ((rc = (int)gb__check_suite_filter("history", o.suites, history_has_suite, &h)) !=
        GB_EXIT_OK)
        goto out;
    gb_error_clear();
    if (gb_history_finish(&h)) {
        fprintf(stderr, "gpubench history: %s\n", gb_error_msg());
        rc = GB_EXIT_USAGE;
        goto out;
    }
    gb__notes_to_stderr("gpubench history", h.left_out);
    /* One document for the terminal, Markdown and JSON; the checks only where a writer judges
     * (--format); the CSV file's is the table of points alone. */
    struct gb_history_doc_opts dopts = {.series = series, .checks = a.format != NULL};
    struct gb_doc d;
    gb_error_clear();
    if ((!quiet || md || json) && gb_history_doc(&h, &dopts, &d)) {
        fprintf(stderr, "gpubench history: %s\n", gb_error_msg());
        gb_doc_free(&d);
        rc = GB_EXIT_USAGE;
        goto out;
    }
    if (!quiet && a.format) {
        rc = gb__write_format("history", a.format, &d);
    } else if (!quiet) {
        FILE *t = gb__term_out();
        gb_error_clear();
        int wrc = gb_write_doc(t, "text", &d);
        if (gb__term_done(t) || wrc) {
            fprintf(stderr, "gpubench history: writing the text output: %s\n", gb_error_msg());
            rc = GB_EXIT_USAGE;
        }
    }
    if (!rc && md)
        rc = gb__write_output("history", md, write_markdown, &d);
    if (!rc && json)
        rc = gb__write_output("history", json, write_json, &d);
    if (!quiet || md || json)
        gb_doc_free(&d);
    if (!rc && csv) {
        struct gb_history_doc_opts po = {.points_only = true};
        if (gb_history_doc(&h, &po, &d)) {
            fprintf(stderr, "gpubench history: %s\n", gb_error_msg());
            rc = GB_EXIT_USAGE;
        } else {
            rc = gb__write_output("history", csv, write_csv, &d);
        }
        gb_doc_free(&d);
    }
    if (!rc && fail && h.slower)
        rc = GB_EXIT_REGRESSION;
out:
    gb_history_free(&h);
    gb_inputs_free(&in);
    return rc;
}

const struct gb_command gb_command_history = {
    .name = "history",
    .summary = "nightly series per case and the nights a figure moved",
    .main = history_main,
};
