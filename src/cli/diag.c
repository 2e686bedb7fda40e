/* gpubench diag --level N: a node's acceptance tests (the rules: analyses/diag.h). The level's
 * profile (configs/diag-N.yaml) runs as `run` runs a profile, in workers under the case time
 * limit; the results are judged as `check` judges them and grouped into tests, each PASS, WARN,
 * FAIL, SKIPPED or ERROR; a document through a writer; exit 0, 3 or 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/units.h"
#include "base/util.h"
#include "common.h"
#include "analyses/diag.h"
#include "analyses/expect.h"
#include "outputs/diag_out.h"
#include "outputs/writer.h"
#include "run/supervise.h"
#include "suites/suites.h"

/* The test hook: a comma list of tests (the part after diag/LEVEL/) that fail as planted. */
#define DIAG_FAIL_ENV "GPUBENCH_TEST_DIAG_FAIL"
/* Level 3's burn phases in all when --duration is not given: with level 2's checks before them
 * about 15 minutes. */
#define DEFAULT_BURN_S 720.0
/* The most --duration takes: two phases of the burn suite's longest duration (24 h each). */
#define MAX_BURN_S (2 * 86400.0)

static const char usage[] =
    "usage: gpubench diag [--level N] [OPTIONS]\n"
    "  A node's acceptance tests, each PASS, WARN, FAIL, SKIPPED (could not run,\n"
    "  with the reason) or ERROR (the test itself broke, or the level's test has no\n"
    "  result: not run), named diag/LEVEL/TEST; the level's verdict is the worst.\n"
    "  Runs the profile diag-N (configs/diag-N.yaml) and judges its results as\n"
    "  gpubench check does (the model's expectation, else the result's bound; the\n"
    "  driver's health items).\n"
    "  -l, --level 1|2|3       1: devices and driver chain, health, a verified\n"
    "                          transfer, triad and GEMM (under a minute); 2: also\n"
    "                          transfers both ways across sizes, every memory\n"
    "                          kernel, a memory test over most of device memory (a\n"
    "                          few minutes); 3: also a burn and a power-pulse phase\n"
    "                          (default 1)\n"
    "      --duration D        level 3: the burn phases in all, 2 s to 48 h, e.g.\n"
    "                          15min, 600s (default 12min: about 15 minutes with the\n"
    "                          rest)\n"
    "  -o, --output FILE       the document to FILE (replaced whole) instead of\n"
    "                          stdout\n"
    "      --results FILE      keep the run's results file there (default: a\n"
    "                          temporary file, removed)\n"
    "      --from FILE         judge the results file of an earlier diag run of this\n"
    "                          level instead of running (another profile's: exit 2;\n"
    "                          a test of the level it lacks: ERROR, not run)\n"
    "  -e, --expect FILE       expectations (default as gpubench check)\n"
    "  -b, --backend NAME      only this backend (opencl, cuda)\n"
    "  -d, --device SEL        devices: all, or a comma list of indices (1),\n"
    "                          backend:index (opencl:1) or name substrings\n"
    "  -q, --quiet             no progress line on stderr\n" GB__FORMAT_HELP_JUDGED
    "exit status: 0 every test passed or warned (skips listed), 3 a test FAILED, 1 a\n"
    "test broke (ERROR), 2 usage, 130 interrupted\n";
static const struct gb__cmd cmd = {"diag", usage, 0, 0, NULL, "no operand"};

struct diag_args {
    const char *level, *duration, *out, *results, *from, *expect, *format, *backend, *device;
    bool quiet;
};

static const struct gb__opt diag_options[] = {
    GB__TEXT(struct diag_args, level, "level", 'l'),
    GB__TEXT(struct diag_args, duration, "duration", 0),
    GB__TEXT(struct diag_args, out, "output", 'o'),
    GB__TEXT(struct diag_args, results, "results", 0),
    GB__TEXT(struct diag_args, from, "from", 0),
    GB__TEXT(struct diag_args, expect, "expect", 'e'),
    GB__TEXT(struct diag_args, format, "format", 'f'),
    GB__TEXT(struct diag_args, backend, "backend", 'b'),
    GB__TEXT(struct diag_args, device, "device", 'd'),
    GB__FLAG(struct diag_args, quiet, "quiet", 'q'),
    GB__END,
};

/* Whether this build's suite `suite` has the axis `axis`. */
static bool has_axis(const char *suite, const char *axis)
{
    const struct gb_suite *s = gb_suite_table_find(gb_suites_builtin(), suite);
    for (size_t i = 0; s && i < s->naxes; i++)
        if (strcmp(s->axes[i].name, axis) == 0)
            return true;
    return false;
}

/* The run arguments of the level: its profile found by name, the selection, and for level 3
 * the burn's duration (each of its two phases half of D, in seconds) when this build's burn
 * suite takes one. GB_EXIT_OK or GB_EXIT_USAGE with the reason on stderr. */
static enum gb_exit level_args(const struct diag_args *d, int level, double burn_s, char *path,
                               size_t len, struct gb__run_args *a)
{
    char name[32];
    snprintf(name, sizeof name, "diag-%d", level);
    if (!gb__find_data(name, "configs", "configs", ".yaml", path, len)) {
        fprintf(stderr, "gpubench diag: no profile %s (looked in %s)\n", name, path);
        return GB_EXIT_USAGE;
    }
    memset(a, 0, sizeof *a);
    a->profile = path;
    a->backend = d->backend;
    a->device = d->device;
    a->quiet = d->quiet;
    if (level == 3 && has_axis("burn", "duration")) {
        snprintf(a->set_text[0], sizeof a->set_text[0], "%.0f", fmax(1.0, round(burn_s / 2)));
        a->sets[0] = (struct gb_override){"burn.params.duration", a->set_text[0]};
        a->nsets = 1;
    }
    return GB_EXIT_OK;
}

/* The tests of the device chain: one per backend (started with its devices; unavailable: a
 * skip where the API is absent, a failure where it is there and fails), and "devices" (at least
 * one device selected). */
static int chain_tests(struct gb_diag *dg, const struct gb_plan *plan, const char *plan_error)
{
    struct gb_backend_status st[8];
    gb_backends_probe(st);
    int rc = 0;
    for (size_t b = 0; !rc && b < gb_backend_count && b < 8; b++) {
        char name[64];
        snprintf(name, sizeof name, "driver_%s", st[b].ops->name);
        if (!st[b].err)
            rc = gb_diag_add(dg, name, -1, GB_DIAG_PASS, "started: %d device%s", st[b].ndevices,
                             st[b].ndevices == 1 ? "" : "s");
        else
            rc =
                gb_diag_add(dg, name, -1, st[b].err == GB_EUNAVAIL ? GB_DIAG_SKIPPED : GB_DIAG_FAIL,
                            "unavailable: %s", st[b].reason);
    }
    if (rc)
        return rc;
    if (!plan || !plan->ndevices)
        return gb_diag_add(dg, "devices", -1, GB_DIAG_FAIL, "no device: %s",
                           plan_error ? plan_error : "none selected");
    char names[900] = "";
    for (size_t i = 0; i < plan->ndevices; i++)
        gb_appendf(names, sizeof names, "%s%s:%d %s", names[0] ? ", " : "",
                   plan->devices[i].ops->name, plan->devices[i].index, plan->devices[i].info.name);
    return gb_diag_add(dg, "devices", -1, GB_DIAG_PASS, "%zu device%s: %s", plan->ndevices,
                       plan->ndevices == 1 ? "" : "s", names);
}

/* Lists the tests of the profile's cases in its order, before any result: one per entry and
 * value of its suite's case axis (the case's name, analyses/diag.h), per device where the run
 * has several (ndevices > 1), so that a case with no result is listed (not run: ERROR), not left
 * out. */
static int level_tests(struct gb_diag *dg, const struct gb_profile *p, size_t ndevices)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < p->nruns; i++) {
        const struct gb_suite *s = p->runs[i].suite;
        const struct gb_sweep *sw = NULL;
        for (size_t k = 0; s->case_axis && k < s->naxes; k++)
            if (strcmp(s->axes[k].name, s->case_axis) == 0)
                sw = &p->runs[i].sweeps[k];
        for (size_t v = 0; !rc && v < (sw ? sw->n : 1); v++) {
            char name[128];
            const char *c = sw && sw->v[v].type == GB_V_STR ? sw->v[v].s : "";
            snprintf(name, sizeof name, "%s%s%s", s->name, c[0] ? "_" : "", c);
            for (size_t d = 0; !rc && d < (ndevices > 1 ? ndevices : 1); d++)
                rc = gb_diag_declare(dg, name, ndevices > 1 ? (int)d : -1);
        }
    }
    return rc;
}

/* The test "profile": which profile the judged results ran. Live (file NULL): this build's
 * level profile p, a PASS naming it. --from: PASS where the file's run meta records p's sha256,
 * else WARN (an older version of the level's profile, or an edited copy under its name: its
 * results are judged against this build's level; a test of the level it lacks is not run, an
 * ERROR). */
static int profile_test(struct gb_diag *dg, const struct gb_profile *p,
                        const struct gb_run_meta *file)
{
    if (!file || strcmp(file->profile_sha256, p->sha256) == 0)
        return gb_diag_add(dg, "profile", -1, GB_DIAG_PASS, "%s%s %s (sha256 %s)",
                           file ? "the results file ran this build's " : "", p->name, p->path,
                           p->sha256);
    return gb_diag_add(
        dg, "profile", -1, GB_DIAG_WARN,
        "the results file ran a profile %s of another text, %s (sha256 %s), than "
        "this build's %s (sha256 %s): an older version or an edited copy, judged "
        "against this build's level",
        p->name, file->profile_path[0] ? file->profile_path : "its path not recorded",
        file->profile_sha256[0] ? file->profile_sha256 : "not recorded", p->path, p->sha256);
}

/* Whether the case c (an entry's values, normalized as the plan normalizes them) is result r's:
 * every axis the entry names (not left at its default, which a suite may adapt to the device)
 * and diag does not set itself (`sets`: level 3's burn.params.duration from --duration, which
 * the run's may differ from) holds r's value; an axis r's params leave out (at its default)
 * passes. */
static bool same_case(const struct gb_suite_run *e, const struct gb_params *c,
                      const struct gb_result *r, const struct gb_override *sets, size_t nsets)
{
    for (size_t k = 0; k < e->suite->naxes && k < GB_MAX_AXES; k++) {
        if (e->defaulted & (UINT32_C(1) << k))
            continue;
        char key[160];
        snprintf(key, sizeof key, "%s.params.%s", r->suite, e->suite->axes[k].name);
        bool set = false;
        for (size_t j = 0; j < nsets; j++)
            set |= strcmp(sets[j].key, key) == 0;
        const struct gb_value *v = gb_params_get(&r->params, e->suite->axes[k].name);
        if (!set && v && !gb_value_equal(v, &c->v[k]))
            return false;
    }
    return true;
}

/* Whether result r is one of the cases of the level's profile p: a combination of the values
 * of an entry of its suite, after the suite's normalize() as the plan makes its cases
 * (run/plan.c: gemm's shape 256 is 256x256x256), that same_case finds r's. */
static bool level_case(const struct gb_profile *p, const struct gb_result *r,
                       const struct gb_override *sets, size_t nsets)
{
    for (size_t i = 0; i < p->nruns; i++) {
        const struct gb_suite_run *e = &p->runs[i];
        const struct gb_suite *s = e->suite;
        if (strcmp(s->name, r->suite) != 0 || s->naxes > GB_MAX_AXES)
            continue;
        size_t idx[GB_MAX_AXES] = {0};
        bool empty = false;
        for (size_t k = 0; k < s->naxes; k++)
            empty |= e->sweeps[k].n == 0;
        while (!empty) {
            struct gb_params c = {.n = s->naxes};
            for (size_t k = 0; k < s->naxes; k++) {
                c.name[k] = s->axes[k].name;
                c.v[k] = e->sweeps[k].v[idx[k]];
            }
            if ((!s->normalize || s->normalize(&c)) && same_case(e, &c, r, sets, nsets))
                return true;
            size_t k = 0; /* the next combination, the last axis slowest */
            while (k < s->naxes && ++idx[k] == e->sweeps[k].n)
                idx[k++] = 0;
            empty = k == s->naxes;
        }
    }
    return false;
}

/* The results of the file rs that are none of the level's cases (level_case: a run of the
 * profile with --set, or an edited copy under its name): an ERROR part of their test, "not run
 * as the level defines it", once a test with the first such result's params, so that a weaker
 * case (a 1 MiB triad for level 1's 64 MiB) never passes for the level's. 0 or GB_ENOMEM. */
static int foreign_cases(struct gb_diag *dg, const struct gb_profile *p,
                         const struct gb_results *rs, const struct gb_override *sets, size_t nsets)
{
    char named[64][140]; /* the tests flagged ("NAME@DEVICE"), the first 64 */
    size_t nnamed = 0;
    int rc = 0;
    for (size_t i = 0; !rc && i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        if (level_case(p, r, sets, nsets))
            continue;
        const int dev = rs->ndevices > 1 ? r->device_index : -1;
        char name[128], key[140];
        snprintf(name, sizeof name, "%s%s%s", r->suite, r->case_name[0] ? "_" : "", r->case_name);
        snprintf(key, sizeof key, "%s@%d", name, dev);
        bool seen = false;
        for (size_t j = 0; !seen && j < nnamed; j++)
            seen = strcmp(named[j], key) == 0;
        if (seen)
            continue;
        if (nnamed < sizeof named / sizeof named[0])
            snprintf(named[nnamed++], sizeof named[0], "%s", key);
        char params[512];
        gb_params_format(&r->params, params, sizeof params);
        rc = gb_diag_add(dg, name, dev, GB_DIAG_ERROR,
                         "not run as level %d defines it: the results file's %s %s is none of "
                         "the level's cases (a run with --set, or an edited profile)",
                         dg->level, r->suite, params);
    }
    return rc;
}

/* --from: reads the results file `file` and checks it is a run of the level's profile (named
 * `want`, "diag-N"); then the tests a live run takes from the driver (chain_tests) as the file
 * recorded them: driver_BACKEND PASS with the devices of that backend it holds, else SKIPPED,
 * and "devices" its devices (SKIPPED when it holds none); "profile" (profile_test); then the
 * level's tests (level_tests), a result of none of the level's cases an ERROR of its test
 * (foreign_cases; `sets`: the overrides diag gave the profile). GB_EXIT_OK, or GB_EXIT_USAGE
 * with one line on stderr (unreadable, another profile's or level's, out of memory). */
static enum gb_exit from_tests(struct gb_diag *dg, const struct gb_profile *p, const char *file,
                               const char *want, const struct gb_override *sets, size_t nsets)
{
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    gb_error_clear();
    if (gb_results_read(file, &rs)) {
        fprintf(stderr, "gpubench diag: %s\n", gb_error_msg());
        gb_results_free(&rs);
        return GB_EXIT_USAGE;
    }
    const char *got = rs.run.profile_name;
    if (strcmp(got, want) != 0) {
        if (strncmp(got, "diag-", 5) == 0 && got[5] >= '1' && got[5] <= '3' && !got[6])
            fprintf(stderr,
                    "gpubench diag: --from %s holds a level-%c diag run (profile %s), not "
                    "level %d's (%s): judge it with --level %c\n",
                    file, got[5], got, dg->level, want, got[5]);
        else
            fprintf(stderr,
                    "gpubench diag: --from %s holds a run of %s%s, not a level-%d diag run "
                    "(profile %s)\n",
                    file, got[0] ? "the profile " : "no profile", got, dg->level, want);
        gb_results_free(&rs);
        return GB_EXIT_USAGE;
    }
    int rc = 0;
    for (size_t b = 0; !rc && b < gb_backend_count; b++) {
        char name[64];
        snprintf(name, sizeof name, "driver_%s", gb_backends[b]->name);
        size_t n = 0;
        for (size_t i = 0; i < rs.ndevices; i++)
            n += strcmp(rs.devices[i].backend, gb_backends[b]->name) == 0;
        rc = n ? gb_diag_add(dg, name, -1, GB_DIAG_PASS,
                             "started: %zu device%s (as the results file records)", n,
                             n == 1 ? "" : "s")
               : gb_diag_add(dg, name, -1, GB_DIAG_SKIPPED,
                             "the results file records no %s device (not selected, or its driver "
                             "did not start)",
                             gb_backends[b]->name);
    }
    char names[900] = "";
    for (size_t i = 0; i < rs.ndevices; i++)
        gb_appendf(names, sizeof names, "%s%s:%d %s%s%s", names[0] ? ", " : "",
                   rs.devices[i].backend, rs.devices[i].index, rs.devices[i].info.name,
                   rs.devices[i].info.driver[0] ? ", driver " : "", rs.devices[i].info.driver);
    if (!rc)
        rc = rs.ndevices ? gb_diag_add(dg, "devices", -1, GB_DIAG_PASS,
                                       "%zu device%s (as the results file records): %s",
                                       rs.ndevices, rs.ndevices == 1 ? "" : "s", names)
                         : gb_diag_add(dg, "devices", -1, GB_DIAG_SKIPPED,
                                       "the results file records no device");
    if (!rc)
        rc = profile_test(dg, p, &rs.run);
    if (!rc)
        rc = level_tests(dg, p, rs.ndevices);
    if (!rc)
        rc = foreign_cases(dg, p, &rs, sets, nsets);
    gb_results_free(&rs);
    if (rc)
        fprintf(stderr, "gpubench diag: out of memory\n");
    return rc ? GB_EXIT_USAGE : GB_EXIT_OK;
}

/* The profile's optional entries this build could not take: a skip each, named by its suite. */
static int absent_tests(struct gb_diag *dg, const struct gb_profile *p)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < p->nabsent; i++)
        rc = gb_diag_add(dg, p->absent[i].suite[0] ? p->absent[i].suite : "entry", -1,
                         GB_DIAG_SKIPPED, "not in this build or not taken by it: %s",
                         p->absent[i].reason);
    return rc;
}

/* Runs the plan into the results file `out`; the supervisor's status (0, 1, GB_EINTR, GB_EIO,
 * GB_EBACKEND). */
static int run_level(const struct gb_profile *p, const struct gb_plan *plan, const char *out,
                     bool quiet, char *const *argv, const char *command_line)
{
    struct gb_results rs = {0};
    gb__fill_meta(&rs.run, p, command_line);
    rs.run.cases_planned = plan->ncases;
    fprintf(stderr, "gpubench diag: %zu cases on %zu device%s\n", plan->ncases, plan->ndevices,
            plan->ndevices == 1 ? "" : "s");
    struct gb_supervise_opts o = {
        .out_path = out,
        .progress =
            !quiet && isatty(STDERR_FILENO) ? (gb_raw_stderr ? gb_raw_stderr : stderr) : NULL,
        .stop = gb__catch_stop_signals(),
        .exe = "/proc/self/exe",
        .argv = argv,
    };
    int r = gb_supervise_plan(plan, &o, &rs);
    if (r == GB_EIO || r == GB_EBACKEND)
        fprintf(stderr, "gpubench diag: %s\n", gb_error_msg());
    gb_results_free(&rs);
    return r;
}

/* Judges the results file `file` into dg. GB_EXIT_OK, or GB_EXIT_USAGE (unreadable
 * expectations or results, named on stderr). */
static enum gb_exit judge(struct gb_diag *dg, const char *file, const char *expect_arg)
{
    char found[4096 + 256];
    const char *expect = expect_arg;
    if (!expect && gb__default_expect(found, sizeof found))
        expect = found;
    struct gb_expect e;
    gb_expect_init(&e);
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    enum gb_exit rc = GB_EXIT_USAGE;
    gb_error_clear();
    if (expect && gb_expect_read(expect, &e)) {
        fprintf(stderr, "gpubench diag: %s\n", gb_error_msg());
        goto out;
    }
    gb_error_clear();
    if (gb_results_read(file, &rs)) {
        fprintf(stderr, "gpubench diag: %s\n", gb_error_msg());
        goto out;
    }
    struct gb_check_opts o;
    gb_check_opts_default(&o);
    struct gb_check c;
    gb_error_clear();
    if (gb_check_results(&rs, file, expect ? &e : NULL, expect, &o, &c)) {
        fprintf(stderr, "gpubench diag: %s\n", gb_error_msg());
        goto out;
    }
    rc = gb_diag_from_check(dg, &c, rs.ndevices > 1) ? GB_EXIT_USAGE : GB_EXIT_OK;
    if (rc != GB_EXIT_OK)
        fprintf(stderr, "gpubench diag: out of memory\n");
    gb_check_free(&c);
out:
    gb_results_free(&rs);
    gb_expect_free(&e);
    return rc;
}

static int write_doc(FILE *f, const void *what)
{
    const void *const *w = what; /* {format, doc} */
    return gb_write_doc(f, w[0], w[1]);
}

/* The document of dg on stdout or into a->out; the exit status of the verdict. */
static enum gb_exit report(struct gb_diag *dg, const struct diag_args *a, const char *profile,
                           const char *start_utc)
{
    gb_diag_finish(dg);
    struct gb_doc d;
    enum gb_exit rc = GB_EXIT_USAGE;
    const char *format = a->format ? a->format : "text";
    if (gb_diag_doc(dg, profile, start_utc, &d)) {
        fprintf(stderr, "gpubench diag: out of memory\n");
    } else if (a->out) {
        const void *what[2] = {format, &d};
        rc = gb__write_output("diag", a->out, write_doc, what);
    } else {
        rc = gb__write_format("diag", format, &d);
    }
    gb_doc_free(&d);
    if (rc != GB_EXIT_OK)
        return rc;
    return dg->verdict == GB_DIAG_FAIL    ? GB_EXIT_REGRESSION
           : dg->verdict == GB_DIAG_ERROR ? GB_EXIT_CASE_FAILED
                                          : GB_EXIT_OK;
}

static int diag(int argc, char **argv, const char *command_line, char **worker_argv,
                const char *spec)
{
    struct diag_args a = {0};
    enum gb_exit rc;
    if (gb__parse_options(&cmd, argc, argv, GB__GROUPS({diag_options, &a}), &rc) < 0)
        return rc;
    int level = 1;
    if (a.level && (strlen(a.level) != 1 || a.level[0] < '1' || a.level[0] > '3'))
        return gb__usage_error(&cmd, "--level wants 1, 2 or 3, got '%s'", a.level);
    if (a.level)
        level = a.level[0] - '0';
    double burn_s = DEFAULT_BURN_S;
    if (a.duration &&
        (gb_parse_duration(a.duration, &burn_s) || !(burn_s >= 2) || !(burn_s <= MAX_BURN_S)))
        return gb__usage_error(&cmd,
                               "--duration wants a time from 2 s to 48 h, such as 15min, "
                               "got '%s'",
                               a.duration);
    if (a.duration && level != 3)
        return gb__usage_error(&cmd, "--duration is for --level 3 (the burn phases)");
    if (a.from && a.results)
        return gb__usage_error(&cmd, "--from reads a results file: --results has nothing to "
                                     "keep");
    char path[4096 + 256];
    static struct gb__run_args ra; /* large: its --set texts */
    if ((rc = level_args(&a, level, burn_s, path, sizeof path, &ra)) != GB_EXIT_OK)
        return rc;
    if (spec)
        return gb__worker_run_plan(&ra, "diag", spec);
    const char *outs[2] = {a.out, a.results};
    static const char *const names[2] = {"--output", "--results"};
    const char *inputs[3] = {path, a.from, a.expect};
    size_t ninputs = 1;
    if (a.from)
        inputs[ninputs++] = a.from;
    if (a.expect)
        inputs[ninputs++] = a.expect;
    if ((rc = gb__check_format("diag", a.format, true)) != GB_EXIT_OK ||
        (rc = gb__check_outputs("diag", outs, names, 2, inputs, ninputs)) != GB_EXIT_OK)
        return rc;
    struct gb_profile p;
    if ((rc = gb__load_profile(&ra, &p)) != GB_EXIT_OK)
        return rc;
    struct gb_diag dg;
    gb_diag_init(&dg, level);
    char start[40];
    gb__utc_now(start, sizeof start);
    char results[4096 + 256] = "";
    bool temporary = false;
    int err = 0;
    char want[40];
    snprintf(want, sizeof want, "diag-%d", level);
    if (a.from) {
        snprintf(results, sizeof results, "%s", a.from);
        if ((rc = from_tests(&dg, &p, a.from, p.name[0] ? p.name : want, ra.sets, ra.nsets)) !=
            GB_EXIT_OK) {
            gb_profile_free(&p);
            gb_diag_free(&dg);
            return rc;
        }
    } else {
        struct gb_plan plan;
        memset(&plan, 0, sizeof plan);
        gb_error_clear();
        bool planned = !gb_plan_devices(&p, ra.backend, ra.device, &plan);
        char why[1024];
        snprintf(why, sizeof why, "%s", planned ? "" : gb_error_msg());
        if (planned && gb_plan_expand(&p, NULL, &plan)) {
            fprintf(stderr, "gpubench diag: %s\n", gb_error_msg());
            gb_plan_free(&plan);
            gb_profile_free(&p);
            gb_diag_free(&dg);
            return GB_EXIT_USAGE;
        }
        err = chain_tests(&dg, planned ? &plan : NULL, why);
        if (!err)
            err = profile_test(&dg, &p, NULL);
        if (!err)
            err = level_tests(&dg, &p, planned ? plan.ndevices : 0);
        if (!err && planned && plan.ncases) {
            if (a.results) {
                snprintf(results, sizeof results, "%s", a.results);
            } else {
                const char *tmp = getenv("TMPDIR");
                snprintf(results, sizeof results, "%s/gpubench-diag-%ld.json",
                         tmp && *tmp ? tmp : "/tmp", (long)getpid());
                temporary = true;
            }
            int r = run_level(&p, &plan, results, a.quiet, worker_argv, command_line);
            if (r == GB_EINTR) {
                if (temporary)
                    unlink(results);
                gb_plan_free(&plan);
                gb_profile_free(&p);
                gb_diag_free(&dg);
                gb__shutdown_backends();
                return GB_EXIT_INTERRUPTED;
            }
            if (r == GB_EIO || r == GB_EBACKEND)
                err = gb_diag_add(&dg, "run", -1, GB_DIAG_ERROR, "%s",
                                  r == GB_EIO ? "the results could not be written"
                                              : "no worker could start");
            if (r == GB_EIO || r == GB_EBACKEND)
                results[0] = '\0';
        }
        gb_plan_free(&plan);
        gb__shutdown_backends();
    }
    if (!err && results[0] && (rc = judge(&dg, results, a.expect)) != GB_EXIT_OK) {
        if (temporary)
            unlink(results);
        gb_profile_free(&p);
        gb_diag_free(&dg);
        return rc;
    }
    if (temporary)
        unlink(results);
    /* A test the level requires with no result in the run or the file was not run: an ERROR,
     * never a skip, so that a partial or edited run cannot pass the level on what it lacks. */
    if (!err && (a.from || results[0]))
        gb_diag_unreported(&dg, GB_DIAG_ERROR,
                           a.from ? "not run: not in the results file"
                                  : "not run: no result, the run did not reach it");
    else if (!err)
        gb_diag_unreported(&dg, GB_DIAG_SKIPPED, "not run (see the tests devices and run)");
    if (!err)
        err = absent_tests(&dg, &p);
    const char *plant = getenv(DIAG_FAIL_ENV);
    if (!err && plant && *plant)
        err = gb_diag_plant(&dg, plant);
    if (err) {
        fprintf(stderr, "gpubench diag: out of memory\n");
        rc = GB_EXIT_USAGE;
    } else {
        rc = report(&dg, &a, p.path, start);
    }
    gb_profile_free(&p);
    gb_diag_free(&dg);
    return rc;
}

static int diag_main(int argc, char **argv, int full_argc, char **full_argv)
{
    return gb__worker_main("diag", diag, argc, argv, full_argc, full_argv);
}

const struct gb_command gb_command_diag = {
    .name = "diag",
    .summary = "a node's acceptance tests by level; exit 3 on a failed test",
    .main_full = diag_main,
};
