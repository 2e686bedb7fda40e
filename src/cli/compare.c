/* gpubench compare BASE.json NEW.json [OPTIONS]: a regression verdict per case (the rules in
 * analyses/compare.h); gpubench compare BASELINE-FOLDER NEW.json: the same against the baseline's
 * nights (analyses/baseline.h), with its learned thresholds. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "analyses/machine.h"
#include "common.h"
#include "analyses/baseline.h"
#include "analyses/calibrate.h"
#include "analyses/expect.h"
#include "outputs/layout.h"
#include "outputs/writer.h"

static const char usage[] =
    "usage: gpubench compare BASE.json NEW.json [OPTIONS]\n"
    "       gpubench compare BASELINE-FOLDER NEW.json [OPTIONS]\n"
    "  two files: a Mann-Whitney test on the samples of one run each: it judges\n"
    "  within-run noise only. A baseline folder\n"
    "  (results/baselines/<host>-<device>-<profile>/, made by `gpubench baseline`):\n"
    "  NEW against the spread of the medians of its nights, with the thresholds\n"
    "  `gpubench calibrate --baseline` learned\n" GB__COMPARE_OPTIONS_HELP
    "      --mads K            against nights: the cut in scaled MADs (robust\n"
    "                          standard deviations) for many nights (default 3;\n"
    "                          wider for few)\n"
    "      --min-nights N      against nights: a case with fewer is LEARNING\n"
    "                          (default 5)\n"
    "      --run-noise R       two files: a change within R (default 10%; 0: none)\n"
    "                          is UNSTABLE, not SLOWER: two runs of one build differ\n"
    "                          by more than one run's samples show\n"
    "  -e, --expect FILE       two files: each case's run-to-run noise from these\n"
    "                          expectations' reference runs, where they have the\n"
    "                          case (default " GB_EXPECT_DEFAULT_PATH "\n"
    "                          here, else the source tree's or the installed one, as\n"
    "                          check's)\n"
    "      --markdown FILE, --json FILE, --junit FILE\n"
    "                          also write these ('-': stdout)\n" GB__OPENMETRICS_HELP
    "      --changes           the terminal table shows only rows that are not "
    "SAME\n" GB__FORMAT_HELP_JUDGED "  -q, --quiet             no terminal table\n"
    "exit status: 0 no regression, 3 regression, 2 bad input or usage\n";
static const struct gb__cmd cmd = {
    "compare", usage, 2, 2, NULL, "two results files, BASE and NEW (or a baseline folder and NEW)"};

struct compare_args {
    const char *md, *json, *junit, *format, *metrics, *expect;
    bool quiet, changes;
};

static const struct gb__opt compare_options[] = {
    GB__TEXT(struct compare_args, expect, "expect", 'e'),
    GB__TEXT(struct compare_args, md, "markdown", 0),
    GB__TEXT(struct compare_args, md, "md", 0),
    GB__TEXT(struct compare_args, json, "json", 0),
    GB__TEXT(struct compare_args, junit, "junit", 0),
    GB__TEXT(struct compare_args, metrics, "openmetrics", 0),
    GB__TEXT(struct compare_args, format, "format", 'f'),
    GB__FLAG(struct compare_args, quiet, "quiet", 'q'),
    GB__FLAG(struct compare_args, changes, "changes", 0),
    GB__END,
};

static int parse_nights_option(void *target, const char *name, const char *value)
{
    return gb_compare_set_option(target, name, value);
}

/* Options of the comparison against nights, into the struct gb_compare_opts. */
static const struct gb__opt nights_options[] = {
    GB__PARSED("mads", 0, true, parse_nights_option),
    GB__PARSED("min-nights", 0, true, parse_nights_option),
    GB__PARSED("run-noise", 0, true, parse_nights_option),
    GB__END,
};

static int write_md(FILE *f, const void *d)
{
    return gb_write_doc(f, "markdown", d);
}

static int write_junit(FILE *f, const void *d)
{
    return gb_write_doc(f, "junit", d);
}

static int write_json(FILE *f, const void *d)
{
    return gb_write_layout(f, d);
}

/* The outputs the options ask for, then the verdict: GB_EXIT_REGRESSION when there is one. One
 * document for every output; --changes makes a second one for the terminal with the rows that
 * are not SAME. */
static enum gb_exit write_outputs(const struct compare_args *a, const struct gb_comparison *c)
{
    bool to_stdout = (a->md && strcmp(a->md, "-") == 0) || (a->json && strcmp(a->json, "-") == 0) ||
                     (a->junit && strcmp(a->junit, "-") == 0) ||
                     (a->metrics && strcmp(a->metrics, "-") == 0);
    struct gb_doc d, changes;
    memset(&changes, 0, sizeof changes);
    bool term = !a->quiet && !to_stdout, only_changes = term && a->changes;
    if (gb_compare_doc(c, false, &d) || (only_changes && gb_compare_doc(c, true, &changes))) {
        fprintf(stderr, "gpubench compare: out of memory\n");
        gb_doc_free(&d);
        gb_doc_free(&changes);
        return GB_EXIT_USAGE;
    }
    enum gb_exit rc = GB_EXIT_OK;
    if (term)
        rc = gb__write_format("compare", a->format ? a->format : "text",
                              only_changes ? &changes : &d);
    if (rc == GB_EXIT_OK && a->md)
        rc = gb__write_output("compare", a->md, write_md, &d);
    if (rc == GB_EXIT_OK && a->json)
        rc = gb__write_output("compare", a->json, write_json, &d);
    if (rc == GB_EXIT_OK && a->junit)
        rc = gb__write_output("compare", a->junit, write_junit, &d);
    if (rc == GB_EXIT_OK && a->metrics)
        rc = gb__write_metrics("compare", a->metrics, &d);
    gb_doc_free(&d);
    gb_doc_free(&changes);
    if (rc == GB_EXIT_OK && c->regressions)
        rc = GB_EXIT_REGRESSION;
    return rc;
}

/* A --suite-threshold naming no suite of runs[0..n) nor of this build is a usage error: a
 * misspelt suite would leave its threshold unapplied (gb__check_suite_option). */
static enum gb_exit check_suite_thresholds(const struct gb_compare_opts *o,
                                           const struct gb_results *const *runs, size_t n)
{
    const char *suites[GB_COMPARE_MAX_SUITE_THRESHOLDS];
    for (size_t i = 0; i < o->nsuite_thresholds; i++)
        suites[i] = o->suite_threshold[i].suite;
    return gb__check_suite_option("compare", "--suite-threshold", suites, o->nsuite_thresholds,
                                  runs, n);
}

/* NEW against the nights of the baseline folder (and its learned thresholds, when it has them). */
static enum gb_exit compare_nights(const struct compare_args *a, const struct gb_compare_opts *o,
                                   const char *folder, const char *file)
{
    struct gb_nights nights;
    gb_error_clear();
    if (gb_baseline_read_nights(folder, &nights)) {
        fprintf(stderr, "gpubench compare: %s\n", gb_error_msg());
        return GB_EXIT_USAGE;
    }
    if (nights.n == 0) {
        fprintf(stderr,
                "gpubench compare: %s holds no night (nights/*.json): promote a run first "
                "(gpubench baseline RESULTS.json)\n",
                folder);
        return GB_EXIT_USAGE;
    }
    enum gb_exit rc = GB_EXIT_USAGE;
    struct gb_learned learned = {0};
    struct gb_results next;
    memset(&next, 0, sizeof next);
    char tpath[GB_PATH_JOIN];
    snprintf(tpath, sizeof tpath, "%s/thresholds.json", folder);
    gb_error_clear();
    if (access(tpath, F_OK) == 0 && gb_learned_read(tpath, &learned)) {
        fprintf(stderr, "gpubench compare: %s\n", gb_error_msg());
        goto done;
    }
    gb_error_clear();
    if (gb_results_read(file, &next)) {
        fprintf(stderr, "gpubench compare: %s\n", gb_error_msg());
        goto done;
    }
    const struct gb_results *read[] = {&next};
    if (check_suite_thresholds(o, read, 1) != GB_EXIT_OK)
        goto done; /* rc: GB_EXIT_USAGE */
    struct gb_comparison c;
    gb_error_clear();
    if (gb_compare_nights(nights.runs, (const char *const *)nights.paths, nights.n, folder, &next,
                          file, &learned, o, &c)) {
        fprintf(stderr, "gpubench compare: %s\n", gb_error_msg());
    } else {
        rc = write_outputs(a, &c);
        gb_comparison_free(&c);
    }
done:
    gb_results_free(&next);
    gb_learned_free(&learned);
    gb_nights_free(&nights);
    return rc;
}

static int compare_main(int argc, char **argv)
{
    struct compare_args a = {0};
    struct gb_compare_opts o;
    gb_compare_opts_default(&o);
    enum gb_exit rc;
    int first = gb__parse_options(
        &cmd, argc, argv,
        GB__GROUPS({gb__compare_options, &o}, {nights_options, &o}, {compare_options, &a}), &rc);
    if (first < 0)
        return rc;
    const char *files[2] = {argv[first], argv[first + 1]};
    const char *outs[4] = {a.md, a.json, a.junit, a.metrics};
    static const char *const names[4] = {"--markdown", "--json", "--junit", "--openmetrics"};
    if ((rc = gb__check_format("compare", a.format, true)) != GB_EXIT_OK ||
        (rc = gb__check_stdout("compare", a.format, outs, names, 4)) != GB_EXIT_OK ||
        (rc = gb__check_outputs("compare", outs, names, 4, files, 2)) != GB_EXIT_OK)
        return rc;
    struct stat st;
    if (stat(files[0], &st) == 0 && S_ISDIR(st.st_mode))
        return compare_nights(&a, &o, files[0], files[1]);
    struct gb_results rs[2];
    gb_error_clear();
    if (gb_results_read_all(files, 2, rs)) { /* both at once */
        fprintf(stderr, "gpubench compare: %s\n", gb_error_msg());
        return GB_EXIT_USAGE;
    }
    const struct gb_results *read[] = {&rs[0], &rs[1]};
    if ((rc = check_suite_thresholds(&o, read, 2)) != GB_EXIT_OK) {
        gb_results_free(&rs[0]);
        gb_results_free(&rs[1]);
        return rc;
    }
    /* The run-to-run noise of each case, from the reference runs of its device model. */
    struct gb_expect e;
    gb_expect_init(&e);
    const char *epath = a.expect;
    char found[4096];
    if (!epath && gb__default_expect(found, sizeof found))
        epath = found;
    gb_error_clear();
    if (epath && gb_expect_read(epath, &e)) {
        fprintf(stderr, "gpubench compare: %s\n", gb_error_msg());
        gb_expect_free(&e);
        gb_results_free(&rs[0]);
        gb_results_free(&rs[1]);
        return GB_EXIT_USAGE;
    }
    o.expect = epath ? &e : NULL;
    struct gb_comparison c;
    gb_error_clear();
    if (gb_compare_results(&rs[0], files[0], &rs[1], files[1], &o, &c)) {
        fprintf(stderr, "gpubench compare: %s\n", gb_error_msg());
        rc = GB_EXIT_USAGE;
    } else {
        rc = write_outputs(&a, &c);
        gb_comparison_free(&c);
        /* What changed in the machine, the likely cause of a verdict (on stderr, so that the
         * outputs written to stdout stay parseable). */
        gb_machine_warnings(stderr, &rs[0], &rs[1]);
    }
    gb_expect_free(&e);
    gb_results_free(&rs[0]);
    gb_results_free(&rs[1]);
    return rc;
}

const struct gb_command gb_command_compare = {
    .name = "compare",
    .summary = "regression verdict per case against a baseline's nights or a file",
    .main = compare_main,
};
