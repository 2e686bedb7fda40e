/* gpubench expect FILES... -o EXPECT.json: reference runs reduced to expectations per device model
 * and case; gpubench check RESULTS.json [--expect FILE]: each result's verdict against them (the
 * rules: analyses/expect.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "common.h"
#include "analyses/expect.h"
#include "analyses/merge.h"
#include "outputs/check_out.h"
#include "outputs/writer.h"

/* ---- expect ---------------------------------------------------------------------------------- */

static const char expect_usage[] =
    "usage: gpubench expect DIR|FILE... -o EXPECT.json [OPTIONS]\n"
    "  Reference runs (results files of real devices; a folder gives its *.json\n"
    "  files) reduced to expectations per device model and case: the median of the\n"
    "  runs' values, their robust spread (1.4826 MAD of ln value, from 3 runs), the\n"
    "  runs' own noise, the range and the drivers. Only ok, verified, plausible\n"
    "  results count; a run is counted once (a copy of one already read, the same\n"
    "  run or the same figures, is left out, named).\n"
    "  -o, --output FILE       the expectations (required; '-': stdout)\n"
    "  -q, --quiet             no summary on stderr\n"
    "exit status: 0 written, 2 bad input or usage\n";
static const struct gb__cmd expect_cmd = {"expect", expect_usage, 1, -1, "reference results files",
                                          NULL};

struct expect_args {
    const char *out;
    bool quiet;
};

static const struct gb__opt expect_options[] = {
    GB__TEXT(struct expect_args, out, "output", 'o'),
    GB__FLAG(struct expect_args, quiet, "quiet", 'q'),
    GB__END,
};

static int write_expect(FILE *f, const void *what)
{
    return gb_expect_write_json(f, what);
}

static int expect_main(int argc, char **argv)
{
    struct expect_args a = {0};
    enum gb_exit rc;
    int first = gb__parse_options(&expect_cmd, argc, argv, GB__GROUPS({expect_options, &a}), &rc);
    if (first < 0)
        return rc;
    if (!a.out)
        return gb__usage_error(&expect_cmd, "-o EXPECT.json is required");
    struct gb_inputs in;
    gb_error_clear();
    if (gb_inputs_expand((const char *const *)argv + first, (size_t)(argc - first), &in)) {
        fprintf(stderr, "gpubench expect: %s\n", gb_error_msg());
        return GB_EXIT_USAGE;
    }
    /* An expectations file named among the inputs is not a run (one in a folder is left out
     * already): left out, and the new one may replace it. */
    size_t kept = 0;
    for (size_t i = 0; i < in.n; i++) {
        if (gb_file_is_expectations(in.paths[i])) {
            fprintf(stderr,
                    "gpubench expect: note: %s is an expectations file, not a run: left "
                    "out\n",
                    in.paths[i]);
            free(in.paths[i]);
            continue;
        }
        in.paths[kept++] = in.paths[i];
    }
    in.n = kept;
    const char *outs[1] = {a.out};
    static const char *const names[1] = {"--output"};
    if (!in.n || (rc = gb__check_outputs("expect", outs, names, 1, (const char *const *)in.paths,
                                         in.n)) != GB_EXIT_OK) {
        if (!in.n)
            fprintf(stderr, "gpubench expect: no results file among the inputs\n");
        gb_inputs_free(&in);
        return GB_EXIT_USAGE;
    }
    struct gb_expect e;
    gb_expect_init(&e);
    rc = GB_EXIT_OK;
    for (size_t i = 0; i < in.n && rc == GB_EXIT_OK; i++) {
        gb_error_clear();
        if (gb_expect_add_file(&e, in.paths[i])) {
            fprintf(stderr, "gpubench expect: %s\n", gb_error_msg());
            rc = GB_EXIT_USAGE;
        }
    }
    gb_error_clear();
    if (rc == GB_EXIT_OK && gb_expect_finish(&e)) {
        fprintf(stderr, "gpubench expect: %s\n", gb_error_msg());
        rc = GB_EXIT_USAGE;
    }
    if (rc == GB_EXIT_OK)
        rc = gb__write_output("expect", a.out, write_expect, &e);
    for (size_t i = 0; rc == GB_EXIT_OK && i < e.ncopies; i++)
        fprintf(stderr, "gpubench expect: note: %s: left out\n", e.copies[i]);
    if (rc == GB_EXIT_OK && !a.quiet)
        fprintf(stderr,
                "gpubench expect: %zu cases from %zu results of %zu runs (%zu results left out: "
                "not ok, unverified or implausible; %zu files left out as copies) -> %s\n",
                e.n, e.results, e.files, e.left_out, e.ncopies, a.out);
    gb_expect_free(&e);
    gb_inputs_free(&in);
    return rc;
}

const struct gb_command gb_command_expect = {
    .name = "expect",
    .summary = "reference runs reduced to expectations per device model and case",
    .main = expect_main,
};

/* ---- check ----------------------------------------------------------------------------------- */

#define DEFAULT_EXPECT GB_EXPECT_DEFAULT_PATH

static const char check_usage[] =
    "usage: gpubench check RESULTS.json [OPTIONS]\n"
    "  Is this GPU normal? Each result against its device model's expectation\n"
    "  (gpubench expect): LOW or HIGH beyond the reference runs' range by MADS\n"
    "  spreads (at least the tolerance); without a reference of 3 runs or more, not\n"
    "  judged (UNKNOWN); IMPLAUSIBLE above the bound a result carries. LOW,\n"
    "  IMPLAUSIBLE and FAILED fail.\n"
    "  -e, --expect FILE       expectations (default\n"
    "                          " DEFAULT_EXPECT " here, else the\n"
    "                          reference expectations of this source tree or\n"
    "                          installation; none: bounds only)\n"
    "      --tolerance T       the band's floor: 0.05 or 5% (default 5%)\n"
    "      --suite-tolerance S=T  another floor for suite S (repeatable)\n"
    "      --mads K            the band beyond the range, in scaled MADs (default 3)\n"
    "      --markdown FILE, --json FILE, --junit FILE\n"
    "                          also write these ('-': stdout)\n" GB__OPENMETRICS_HELP
    "  -q, --quiet             no terminal table\n" GB__FORMAT_HELP_JUDGED
    "exit status: 0 normal, 3 a result LOW, IMPLAUSIBLE or FAILED, 2 bad input or\n"
    "  usage\n";
static const struct gb__cmd check_cmd = {"check", check_usage,    1,
                                         1,       "RESULTS.json", "exactly one results file"};

struct check_args {
    const char *expect, *format, *md, *json, *junit, *metrics;
    bool quiet;
};

static int parse_check(void *target, const char *name, const char *value)
{
    return gb_check_set_option(target, name, value);
}

static const struct gb__opt check_opts_table[] = {
    GB__PARSED("tolerance", 0, true, parse_check),
    GB__PARSED("suite-tolerance", 0, true, parse_check),
    GB__PARSED("mads", 0, true, parse_check),
    GB__END,
};

static const struct gb__opt check_options[] = {
    GB__TEXT(struct check_args, expect, "expect", 'e'),
    GB__TEXT(struct check_args, format, "format", 'f'),
    GB__TEXT(struct check_args, md, "markdown", 0),
    GB__TEXT(struct check_args, json, "json", 0),
    GB__TEXT(struct check_args, junit, "junit", 0),
    GB__TEXT(struct check_args, metrics, "openmetrics", 0),
    GB__FLAG(struct check_args, quiet, "quiet", 'q'),
    GB__END,
};

static int write_doc_as(FILE *f, const struct gb_doc *d, const char *writer)
{
    return gb_write_doc(f, writer, d);
}

static int write_md(FILE *f, const void *d)
{
    return write_doc_as(f, d, "markdown");
}

static int write_json(FILE *f, const void *d)
{
    return write_doc_as(f, d, "json");
}

static int write_junit(FILE *f, const void *d)
{
    return write_doc_as(f, d, "junit");
}

static int check_main(int argc, char **argv)
{
    struct check_args a = {0};
    struct gb_check_opts o;
    gb_check_opts_default(&o);
    enum gb_exit rc;
    int first = gb__parse_options(&check_cmd, argc, argv,
                                  GB__GROUPS({check_opts_table, &o}, {check_options, &a}), &rc);
    if (first < 0)
        return rc;
    const char *file = argv[first];
    const char *expect = a.expect;
    char found[4096 + 256];
    if (!expect && gb__default_expect(found, sizeof found))
        expect = found;
    const char *inputs[2] = {file, expect};
    const char *outs[4] = {a.md, a.json, a.junit, a.metrics};
    static const char *const names[4] = {"--markdown", "--json", "--junit", "--openmetrics"};
    if ((rc = gb__check_format("check", a.format, true)) != GB_EXIT_OK ||
        (rc = gb__check_stdout("check", a.format, outs, names, 4)) != GB_EXIT_OK ||
        (rc = gb__check_outputs("check", outs, names, 4, inputs, expect ? 2 : 1)) != GB_EXIT_OK)
        return rc;
    struct gb_expect e;
    gb_expect_init(&e);
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    rc = GB_EXIT_USAGE;
    gb_error_clear();
    if (expect && gb_expect_read(expect, &e)) {
        fprintf(stderr, "gpubench check: %s\n", gb_error_msg());
        goto out;
    }
    if (expect && e.invalid)
        fprintf(stderr,
                "gpubench check: note: %s: %zu invalid entr%s (a field missing or of the wrong "
                "type, or a figure out of range), left out\n",
                expect, e.invalid, e.invalid == 1 ? "y" : "ies");
    if (expect && e.duplicates)
        fprintf(stderr,
                "gpubench check: note: %s: %zu duplicate entr%s (a case or model given again: "
                "the first stands), left out\n",
                expect, e.duplicates, e.duplicates == 1 ? "y" : "ies");
    if (!expect)
        fprintf(stderr,
                "gpubench check: note: no expectations file (no -e, none here or installed):\n"
                "  each result is judged against its bounds only\n");
    gb_error_clear();
    if (gb_results_read(file, &rs)) {
        fprintf(stderr, "gpubench check: %s\n", gb_error_msg());
        goto out;
    }
    /* A --suite-tolerance naming no suite of the file nor of this build: a usage error (a
     * misspelt suite would leave its tolerance unapplied). */
    const char *suites[GB_EXPECT_MAX_SUITE_TOLERANCES];
    for (size_t i = 0; i < o.nsuite_tolerances; i++)
        suites[i] = o.suite_tolerance[i].suite;
    const struct gb_results *read[] = {&rs};
    if (gb__check_suite_option("check", "--suite-tolerance", suites, o.nsuite_tolerances, read,
                               1) != GB_EXIT_OK)
        goto out; /* rc: GB_EXIT_USAGE */
    struct gb_check c;
    gb_error_clear();
    if (gb_check_results(&rs, file, expect ? &e : NULL, expect, &o, &c)) {
        fprintf(stderr, "gpubench check: %s\n", gb_error_msg());
        goto out;
    }
    struct gb_doc d;
    if (gb_check_doc(&c, &d)) {
        fprintf(stderr, "gpubench check: out of memory\n");
    } else {
        bool to_stdout = (a.md && strcmp(a.md, "-") == 0) || (a.json && strcmp(a.json, "-") == 0) ||
                         (a.junit && strcmp(a.junit, "-") == 0) ||
                         (a.metrics && strcmp(a.metrics, "-") == 0);
        rc = GB_EXIT_OK;
        if (!a.quiet && !to_stdout)
            rc = gb__write_format("check", a.format ? a.format : "text", &d);
        if (rc == GB_EXIT_OK && a.md)
            rc = gb__write_output("check", a.md, write_md, &d);
        if (rc == GB_EXIT_OK && a.json)
            rc = gb__write_output("check", a.json, write_json, &d);
        if (rc == GB_EXIT_OK && a.junit)
            rc = gb__write_output("check", a.junit, write_junit, &d);
        if (rc == GB_EXIT_OK && a.metrics)
            rc = gb__write_metrics("check", a.metrics, &d);
        if (rc == GB_EXIT_OK &&
            (c.failures || c.whole_failures || c.health_failures || c.incomplete[0]))
            rc = GB_EXIT_REGRESSION;
    }
    gb_doc_free(&d);
    gb_check_free(&c);
out:
    gb_results_free(&rs);
    gb_expect_free(&e);
    return rc;
}

const struct gb_command gb_command_check = {
    .name = "check",
    .summary = "is this GPU normal? each result against its model's expectation",
    .main = check_main,
};
