/* gpubench fleet DIR|FILE... — the same profile's results from many nodes side by side, and the
 * nodes that stand out (the rule: analyses/fleet.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "common.h"
#include "outputs/fleet_out.h"
#include "outputs/writer.h"
#include "analyses/expect.h"
#include "analyses/fleet.h"
#include "analyses/merge.h"

static const char usage[] =
    "usage: gpubench fleet DIR|FILE... [OPTIONS]\n"
    "  Results files of one profile run on many nodes (a folder gives its *.json\n"
    "  files): per case the fleet median, its spread and each node's deviation; a\n"
    "  node is an outlier when it is beyond a case's run-to-run noise (the reference\n"
    "  runs of " GB_EXPECT_DEFAULT_PATH ", here or else the source tree's\n"
    "  or the installed one, where they have the case) and more than --min-deviation\n"
    "  from the median, or when a case failed on it and ran elsewhere. Where no\n"
    "  reference runs calibrate a case, a node beyond --mads K scaled MADs of the\n"
    "  fleet only deviates (listed); the node is LOW when its shift, the median over\n"
    "  its cases (5 at least) of ln(value / median), is below the median node's by\n"
    "  more than max(K x 1.4826 x MAD of the shifts, ln 1.25). A file that cannot be\n"
    "  read as results is skipped with a note.\n"
    "  -k, --mads K            the cut in scaled MADs (modified z-score; default\n"
    "                          3.5); --threshold K, its old name, still works\n"
    "      --min-deviation F   and at least this far from the median: 0.05 or 5%\n"
    "                          (default 5%)\n"
    "  -s, --suite LIST        only these suites (comma-separated)\n"
    "  -e, --expect FILE       expectations (gpubench expect): a node below its\n"
    "                          device model's expected band is LOW even when the\n"
    "                          whole fleet is slow; a flagged node's row names what\n"
    "                          its driver reported (health)\n"
    "      --all               a per-node table for every case (default: cases with\n"
    "                          an outlier)\n"
    "      --markdown FILE, --json FILE   also write these ('-': stdout)\n" GB__OPENMETRICS_HELP
    "  -q, --quiet             no terminal output\n" GB__FORMAT_HELP_JUDGED
    "exit status: 0 no outlier, 3 an outlier node, 2 bad input or usage\n";
static const struct gb__cmd cmd = {"fleet", usage, 1,
                                   -1,      NULL,  "results files or a folder of them"};

struct fleet_args {
    struct gb_fleet_opts o; /* first: the parsed options' target */
    const char *format, *md, *json, *suites, *metrics, *expect;
    bool all, quiet;
};

static int parse_fleet(void *target, const char *name, const char *value)
{
    struct gb_fleet_opts *o = target;
    if (strcmp(name, "min-deviation") == 0)
        return gb__parse_fraction(name, value, 0.0, 10.0, &o->min_deviation);
    char *end;
    double k = strtod(value, &end);
    if (end == value || *end || !(k > 0.0 && k < 1e6))
        return GB_FAIL(GB_EINVAL, "--%s wants a positive number of MADs, got '%s'", name, value);
    o->k = k;
    return 0;
}

static const struct gb__opt fleet_options[] = {
    GB__PARSED("mads", 'k', true, parse_fleet),
    GB__PARSED("threshold", 0, true, parse_fleet), /* the old name of --mads */
    GB__PARSED("min-deviation", 0, true, parse_fleet),
    GB__TEXT(struct fleet_args, suites, "suite", 's'),
    GB__TEXT(struct fleet_args, expect, "expect", 'e'),
    GB__FLAG(struct fleet_args, all, "all", 0),
    GB__TEXT(struct fleet_args, format, "format", 'f'),
    GB__TEXT(struct fleet_args, md, "markdown", 0),
    GB__TEXT(struct fleet_args, md, "md", 0),
    GB__TEXT(struct fleet_args, json, "json", 0),
    GB__TEXT(struct fleet_args, metrics, "openmetrics", 0),
    GB__FLAG(struct fleet_args, quiet, "quiet", 'q'),
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

/* The terminal's output: the document through the writer `format` (text by default). */
static enum gb_exit write_terminal(const char *format, const struct gb_doc *d)
{
    if (format)
        return gb__write_format("fleet", format, d);
    FILE *t = gb__term_out();
    gb_error_clear();
    int rc = gb_write_doc(t, "text", d);
    if (gb__term_done(t) || rc) {
        fprintf(stderr, "gpubench fleet: writing the text output: %s\n", gb_error_msg());
        return GB_EXIT_USAGE;
    }
    return GB_EXIT_OK;
}

/* Whether the fleet read a result of suite `name` (gb__check_suite_filter). */
static bool fleet_has_suite(const void *ctx, const char *name)
{
    const struct gb_fleet *f = ctx;
    for (size_t i = 0; i < f->ncases; i++)
        if (strcmp(f->cases[i].suite, name) == 0)
            return true;
    return false;
}

static int fleet_main(int argc, char **argv)
{
    struct fleet_args a = {0};
    gb_fleet_opts_default(&a.o);
    enum gb_exit rc0;
    int first = gb__parse_options(&cmd, argc, argv, GB__GROUPS({fleet_options, &a}), &rc0);
    if (first < 0)
        return rc0;
    if (a.suites)
        a.o.suites = a.suites;
    struct gb_fleet_opts o = a.o;
    const char *md = a.md, *json = a.json;
    bool all = a.all, quiet = a.quiet;
    const char *outs[3] = {md, json, a.metrics};
    static const char *const names[3] = {"--markdown", "--json", "--openmetrics"};
    if ((rc0 = gb__check_format("fleet", a.format, true)) != GB_EXIT_OK ||
        (rc0 = gb__check_stdout("fleet", a.format, outs, names, 3)) != GB_EXIT_OK ||
        (a.expect &&
         (rc0 = gb__check_outputs("fleet", outs, names, 3, &a.expect, 1)) != GB_EXIT_OK))
        return rc0;
    struct gb_inputs in;
    gb_error_clear();
    if (gb_inputs_expand((const char *const *)argv + first, (size_t)(argc - first), &in)) {
        fprintf(stderr, "gpubench fleet: %s\n", gb_error_msg());
        return GB_EXIT_USAGE;
    }
    if (in.ndup)
        fprintf(stderr, "gpubench fleet: note: %zu file%s named more than once: read once\n",
                in.ndup, in.ndup == 1 ? "" : "s");
    if ((rc0 = gb__check_set_outputs("fleet", outs, names, 3, (const char *const *)argv + first,
                                     (size_t)(argc - first), &in)) != GB_EXIT_OK) {
        gb_inputs_free(&in);
        return rc0;
    }
    struct gb_expect e;
    gb_expect_init(&e);
    gb_error_clear();
    if (a.expect && gb_expect_read(a.expect, &e)) {
        fprintf(stderr, "gpubench fleet: %s\n", gb_error_msg());
        gb_inputs_free(&in);
        return GB_EXIT_USAGE;
    }
    o.expect = a.expect ? &e : NULL;
    /* Without --expect, the reference runs' expectations still give each case's run-to-run
     * noise where they have it (no LOW). */
    gb_error_clear();
    char found[4096];
    if (!a.expect && gb__default_expect(found, sizeof found)) {
        if (gb_expect_read(found, &e))
            fprintf(stderr, "gpubench fleet: note: %s: %s: the fleet's own spread is the noise\n",
                    found, gb_error_msg());
        else
            o.noise = &e;
    }
    struct gb_fleet fl;
    gb_fleet_init(&fl, &o);
    int rc = GB_EXIT_OK;
    for (size_t i = 0; i < in.n; i++) {
        gb_error_clear();
        int frc = gb_fleet_add_file(&fl, in.paths[i]);
        if (frc == GB_ENOMEM || frc == GB_EOVERFLOW) {
            fprintf(stderr, "gpubench fleet: %s\n", gb_error_msg());
            rc = GB_EXIT_USAGE;
            goto out;
        }
        if (frc) {
            /* One unreadable or foreign file is not the end of the fleet: named, and left out
             * (a file the reader refuses leaves nothing in the fleet). */
            char why[512];
            snprintf(why, sizeof why, "%s", gb_error_msg());
            why[strcspn(why, "\n")] = '\0';
            fprintf(stderr, "gpubench fleet: note: skipped: %s\n", why);
            gb_fleet_skip(&fl, in.paths[i], why);
        }
    }
    if (fl.skipped && fl.nfiles == 0) {
        fprintf(stderr, "gpubench fleet: no results file could be read (%zu skipped)\n",
                fl.skipped);
        rc = GB_EXIT_USAGE;
        goto out;
    }
    if ((rc = (int)gb__check_suite_filter("fleet", o.suites, fleet_has_suite, &fl)) != GB_EXIT_OK)
        goto out;
    gb_error_clear();
    if (gb_fleet_finish(&fl)) {
        fprintf(stderr, "gpubench fleet: %s\n", gb_error_msg());
        rc = GB_EXIT_USAGE;
        goto out;
    }
    gb__notes_to_stderr("gpubench fleet", fl.left_out);
    /* One document for the terminal and the files; the checks only where a writer judges
     * (--format), and OpenMetrics' without the per-node tables. */
    struct gb_fleet_doc_opts dopts = {.all = all, .values = true, .checks = a.format != NULL};
    struct gb_doc d;
    gb_error_clear();
    if ((!quiet || md || json) && gb_fleet_doc(&fl, &dopts, &d)) {
        fprintf(stderr, "gpubench fleet: %s\n", gb_error_msg());
        gb_doc_free(&d);
        rc = GB_EXIT_USAGE;
        goto out;
    }
    if (!quiet)
        rc = write_terminal(a.format, &d);
    if (!rc && md)
        rc = gb__write_output("fleet", md, write_markdown, &d);
    if (!rc && json)
        rc = gb__write_output("fleet", json, write_json, &d);
    if (!quiet || md || json)
        gb_doc_free(&d);
    if (!rc && a.metrics) {
        struct gb_fleet_doc_opts mo = {.checks = true};
        rc = gb_fleet_doc(&fl, &mo, &d) ? GB_EXIT_USAGE : gb__write_metrics("fleet", a.metrics, &d);
        gb_doc_free(&d);
    }
    if (!rc && fl.flagged_nodes)
        rc = GB_EXIT_REGRESSION;
out:
    gb_fleet_free(&fl);
    gb_expect_free(&e);
    gb_inputs_free(&in);
    return rc;
}

const struct gb_command gb_command_fleet = {
    .name = "fleet",
    .summary = "per-node tables of many hosts' files; outlier nodes exit 3",
    .main = fleet_main,
};
