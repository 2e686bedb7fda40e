/* gpubench calibrate PROFILE [-n RUNS] [--dir DIR] [--json FILE] [run options] [compare options]:
 * runs the profile RUNS times through the same plan and runner as `run` (one results file each,
 * in DIR), then reports each case's run-to-run noise and the threshold that would have raised no
 * false alarm (analyses/calibrate.h). `calibrate --from FILE...` analyses earlier runs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/params.h"
#include "base/units.h"
#include "base/util.h"
#include "common.h"
#include "analyses/baseline.h"
#include "outputs/calibrate_out.h"
#include "outputs/writer.h"
#include "run/runner.h"
#include "run/supervise.h"

static const char usage[] =
    "usage: gpubench calibrate PROFILE [-n RUNS] [--dir DIR] [--json FILE] [OPTIONS]\n"
    "       gpubench calibrate --from RESULTS.json... [--json FILE] [--baseline DIR]\n"
    "                          [compare options]\n"
    "  A/A runs: runs the profile RUNS times, then shows each case's run-to-run\n"
    "  noise and the threshold that would have raised no false alarm, with a\n"
    "  suggested compare command line\n" GB__PROFILE_HELP
    "  -n, --runs RUNS         how many runs, 2..100 (default 3)\n"
    "      --dir DIR           the runs' results files (default\n"
    "                          results/calibrate-NAME-UTCTIME/)\n"
    "      --json FILE         also write the analysis as JSON\n" GB__FORMAT_HELP_JUDGED
    "      --baseline DIR      keep the per-case thresholds with the baseline of\n"
    "                          these runs:\n"
    "                          DIR/<host>-<device>-<profile>/thresholds.json, which\n"
    "                          compare against that baseline's nights then uses\n"
    "                          (DIR: results/baselines)\n"
    "      --from              analyse these results files (runs of one profile)\n"
    "                          instead\n"
    "options of run:\n" GB__RUN_OPTIONS_HELP "options of compare:\n" GB__COMPARE_OPTIONS_HELP
    "each case runs in a worker process under a time limit, as with run\n"
    "(measure.case_timeout): a case that hangs or crashes its worker is recorded as\n"
    "failed and calibrate goes on\n"
    "exit status: 0 done, 1 a run could not be written, 2 usage, profile or device\n"
    "error, 130 interrupted\n";
static const struct gb__cmd cmd = {"calibrate", usage, 1, -1, "PROFILE", NULL};

struct calibrate_args {
    long runs;
    bool runs_given, from;
    const char *dir, *json, *baseline, *format;
};

static int parse_runs(void *target, const char *name, const char *value)
{
    struct calibrate_args *c = target;
    char *end;
    long runs = strtol(value, &end, 10);
    if (end == value || *end || runs < 2 || runs > 100)
        return GB_USER_FAIL(GB_EINVAL, "-n wants 2..100 runs, got '%s'", value);
    c->runs = runs;
    c->runs_given = true;
    return 0;
}

static const struct gb__opt calibrate_options[] = {
    GB__TEXT(struct calibrate_args, format, "format", 'f'),
    GB__PARSED("runs", 'n', true, parse_runs),
    GB__TEXT(struct calibrate_args, dir, "dir", 0),
    GB__TEXT(struct calibrate_args, json, "json", 0),
    GB__TEXT(struct calibrate_args, baseline, "baseline", 0),
    GB__FLAG(struct calibrate_args, from, "from", 0),
    GB__END,
};

static int write_json(FILE *f, const void *d)
{
    return gb_write_layout(f, d);
}

/* Reports on runs[0..n) from paths[0..n) (GB_EXIT_USAGE when the analysis refuses them); with
 * c->baseline, the JSON goes to the baseline's thresholds.json too. */
static enum gb_exit report(const struct gb_results *runs, const char *const *paths, size_t n,
                           const struct gb_compare_opts *co, const struct calibrate_args *c)
{
    char learned[GB_PATH_JOIN] = "", name[512];
    if (c->baseline && n > 0) {
        gb_baseline_name(&runs[0], name, sizeof name);
        name[strlen(name) - 5] = '\0'; /* the folder: the name without ".json" */
        char folder[GB_PATH_MAX];
        snprintf(folder, sizeof folder, "%s/%s", c->baseline, name);
        if (gb_mkdir_p(folder, 0777) != 0) {
            fprintf(stderr, "gpubench calibrate: cannot create %s: %s\n", folder, strerror(errno));
            return GB_EXIT_USAGE;
        }
        snprintf(learned, sizeof learned, "%s/thresholds.json", folder);
    }
    gb_error_clear();
    struct gb_calibration cal;
    if (gb_calibrate(runs, paths, n, co, &cal)) {
        fprintf(stderr, "gpubench calibrate: %s\n", gb_error_msg());
        return GB_EXIT_USAGE;
    }
    gb__notes_to_stderr("gpubench calibrate", cal.left_out);
    /* One document for the terminal and the JSON file; the checks only where a writer judges
     * (--format). */
    struct gb_doc d;
    enum gb_exit rc = GB_EXIT_OK;
    if (gb_calibration_doc(&cal, c->format != NULL, &d)) {
        fprintf(stderr, "gpubench calibrate: %s\n", gb_error_msg());
        rc = GB_EXIT_USAGE;
    } else if (c->format) {
        for (size_t i = 0; i < n; i++) /* the newest run's start */
            gb_doc_time(&d, runs[i].run.start_utc);
        rc = gb__write_format("calibrate", c->format, &d);
    } else {
        FILE *t = gb__term_out();
        int wrc = gb_write_doc(t, "text", &d);
        if (gb__term_done(t) || wrc) {
            fprintf(stderr, "gpubench calibrate: writing the text output: %s\n", gb_error_msg());
            rc = GB_EXIT_USAGE;
        }
    }
    const char *json = learned[0] ? learned : c->json;
    if (rc == GB_EXIT_OK && json)
        rc = gb__write_output("calibrate", json, write_json, &d);
    gb_doc_free(&d);
    gb_calibration_free(&cal);
    if (rc != GB_EXIT_OK)
        return rc;
    if (learned[0]) {
        gb_error_clear();
        if (c->json && gb_baseline_copy(learned, c->json)) {
            fprintf(stderr, "gpubench calibrate: %s\n", gb_error_msg());
            return GB_EXIT_USAGE;
        }
        /* A line of text: after the text writer's table on stdout; after any other format on
         * stderr, so that stdout holds the document alone. */
        fprintf(c->format && strcmp(c->format, "text") != 0 ? stderr : stdout,
                "Learned thresholds kept in %s: `gpubench compare` against that baseline's "
                "nights uses each case's suggestion (--threshold / --suite-threshold "
                "override).\n",
                learned);
    }
    return GB_EXIT_OK;
}

/* --from: the analysis of the results files paths[0..n). */
static enum gb_exit analyse_files(const char *const *paths, size_t n,
                                  const struct gb_compare_opts *co, const struct calibrate_args *c)
{
    struct gb_results *rs = calloc(n, sizeof *rs);
    if (!rs)
        return GB_EXIT_USAGE;
    enum gb_exit rc = GB_EXIT_OK;
    size_t nread = 0;
    for (; nread < n; nread++) {
        gb_error_clear();
        if (gb_results_read(paths[nread], &rs[nread])) {
            fprintf(stderr, "gpubench calibrate: %s\n", gb_error_msg());
            rc = GB_EXIT_USAGE;
            break;
        }
    }
    if (rc == GB_EXIT_OK)
        rc = report(rs, paths, n, co, c);
    for (size_t i = 0; i < nread; i++)
        gb_results_free(&rs[i]);
    free(rs);
    return rc;
}

/* Makes the folder of the runs: c->dir, or results/calibrate-NAME-UTCTIME. */
static enum gb_exit make_dir(const struct calibrate_args *c, const char *name, char *dir,
                             size_t len)
{
    snprintf(dir, len, "%s", c->dir ? c->dir : "");
    if (!c->dir) {
        char stem[512], now[32];
        snprintf(stem, sizeof stem, "calibrate-%s", name);
        gb__utc_now(now, sizeof now);
        enum gb_exit rc = gb__default_output("calibrate", stem, now, "", dir, len);
        if (rc != GB_EXIT_OK)
            return rc;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "gpubench calibrate: cannot create %s: %s\n", dir, strerror(errno));
        return GB_EXIT_USAGE;
    }
    /* A folder that holds runs already keeps them: none is replaced by this calibration's. */
    for (long k = 1; k <= c->runs; k++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/run-%ld.json", dir, k);
        if (access(path, F_OK) == 0) {
            fprintf(stderr,
                    "gpubench calibrate: %s exists: give --dir a folder without run-N.json "
                    "files (the runs there are kept)\n",
                    path);
            return GB_EXIT_USAGE;
        }
    }
    return GB_EXIT_OK;
}

/* c->runs runs of the plan into dir/run-K.json, then the report. Each run's cases run in
 * workers under the case time limit, as `run`'s do (run/supervise.h): a worker re-executes
 * this command line (argv), which calibrate_main turns into gb_worker_run. */
static enum gb_exit run_and_report(const struct gb__run_args *a, const struct calibrate_args *c,
                                   const struct gb_compare_opts *co, const struct gb_profile *p,
                                   const struct gb_plan *plan, const char *command_line,
                                   char *const *argv)
{
    long runs = c->runs;
    struct gb_results *rs = calloc((size_t)runs, sizeof *rs);
    char(*paths)[2048] = calloc((size_t)runs, sizeof *paths);
    const char **path_ptrs = calloc((size_t)runs, sizeof *path_ptrs);
    char dir[1024];
    enum gb_exit rc = GB_EXIT_USAGE;
    if (rs && paths && path_ptrs)
        rc = make_dir(c, p->name, dir, sizeof dir);
    else
        fprintf(stderr, "gpubench calibrate: out of memory for %ld runs\n", runs);
    volatile sig_atomic_t *stop = gb__catch_stop_signals();
    long done = 0;
    const double t0 = gb_now(); /* the progress line's ETA is over every run */
    for (; rc == GB_EXIT_OK && done < runs && !*stop; done++) {
        snprintf(paths[done], sizeof paths[done], "%s/run-%ld.json", dir, done + 1);
        path_ptrs[done] = paths[done];
        const char *inputs[] = {p->path, c->json};
        if ((rc = gb__check_output("calibrate", paths[done], GB_OUTPUT_FILE, inputs, 2)))
            break;
        gb__fill_meta(&rs[done].run, p, command_line);
        fprintf(stderr, "gpubench calibrate: run %ld of %ld, %zu cases -> %s\n", done + 1, runs,
                plan->ncases, paths[done]);
        struct gb_supervise_opts o = {
            .out_path = paths[done],
            /* Its own \r and erase-line controls: the raw stream, as run's (what it quotes is
             * cleaned). */
            .progress = !a->quiet && isatty(STDERR_FILENO)
                            ? (gb_raw_stderr ? gb_raw_stderr : stderr)
                            : NULL,
            .span = {(size_t)done * plan->ncases, (size_t)runs * plan->ncases, t0},
            .stop = stop,
            .exe = "/proc/self/exe",
            .argv = argv,
        };
        gb_error_clear();
        int r = gb_supervise_plan(plan, &o, &rs[done]);
        /* The analysis leaves failed cases out; say which and why (a hang, a crash: the reason
         * the watchdog recorded). */
        for (size_t i = 0; i < rs[done].nresults; i++) {
            const struct gb_result *x = &rs[done].results[i];
            char params[512];
            if (x->status == GB_STATUS_FAILED)
                fprintf(stderr, "gpubench calibrate: run %ld: %s %s %s failed: %s\n", done + 1,
                        x->suite, x->case_name, gb_params_format(&x->params, params, sizeof params),
                        x->reason);
        }
        if (r == GB_EIO || r == GB_EINTR) {
            fprintf(stderr, "gpubench calibrate: run %ld %s\n", done + 1,
                    r == GB_EINTR ? "interrupted" : "could not be written");
            rc = r == GB_EINTR ? GB_EXIT_INTERRUPTED : GB_EXIT_CASE_FAILED;
        } else if (r < 0) { /* no worker could be started (GB_EBACKEND), out of memory */
            fprintf(stderr, "gpubench calibrate: run %ld: %s\n", done + 1,
                    gb_error_msg()[0] ? gb_error_msg() : gb_strerror(r));
            rc = GB_EXIT_USAGE;
        }
    }
    if (rc == GB_EXIT_OK)
        rc = report(rs, path_ptrs, (size_t)done, co, c);
    for (long i = 0; rs && i < runs; i++)
        gb_results_free(&rs[i]);
    free(rs);
    free(paths);
    free(path_ptrs);
    return rc;
}

/* The command, with the command line a worker re-executes (argv) and, in a worker, the
 * supervisor's spec (GB_WORKER_ENV; NULL otherwise). */
static int calibrate(int argc, char **argv, const char *command_line, char **wargv,
                     const char *spec)
{
    struct gb__run_args a = {0};
    struct calibrate_args c = {.runs = 3};
    struct gb_compare_opts co;
    gb_compare_opts_default(&co);
    enum gb_exit rc;
    int first = gb__parse_options(
        &cmd, argc, argv,
        GB__GROUPS({gb__run_options, &a}, {gb__compare_options, &co}, {calibrate_options, &c}),
        &rc);
    if (first < 0)
        return rc;
    if ((rc = gb__check_format("calibrate", c.format, true)) != GB_EXIT_OK)
        return rc;
    int n = argc - first;
    if (c.from) {
        if (a.out || a.backend || a.device || a.suite || a.nsets || a.quiet || c.runs_given ||
            c.dir)
            return gb__usage_error(&cmd,
                                   "--from takes only --json, --baseline and compare options");
        if (n < 2)
            return gb__usage_error(&cmd, "--from needs at least two results files of one profile");
        if (c.json && (rc = gb__check_output("calibrate", c.json, GB_OUTPUT_FILE,
                                             (const char *const *)argv + first, (size_t)n)))
            return rc;
        return analyse_files((const char *const *)argv + first,
                             gb__read_once("calibrate", (const char **)argv + first, (size_t)n),
                             &co, &c);
    }
    if (n != 1)
        return gb__usage_error(&cmd, "expects exactly one PROFILE");
    a.profile = argv[first];
    if (spec)
        return gb__worker_run_plan(&a, "calibrate", spec);
    if (a.out)
        return gb__usage_error(&cmd, "-o does not apply; --dir DIR holds the runs");
    /* The runs' folder is an input of the analysis: --json may not land on a run's file. */
    const char *inputs[] = {a.profile, c.dir};
    if (c.json && (rc = gb__check_output("calibrate", c.json, GB_OUTPUT_FILE, inputs, 2)))
        return rc;
    if (c.dir && (rc = gb__check_output("calibrate", c.dir, GB_OUTPUT_DIR, inputs, 1)))
        return rc;
    struct gb_profile p;
    struct gb_plan plan;
    if ((rc = gb__prepare_plan(&a, "calibrate", &p, &plan)) != GB_EXIT_OK)
        return rc;
    rc = run_and_report(&a, &c, &co, &p, &plan, command_line, wargv);
    gb_plan_free(&plan);
    gb_profile_free(&p);
    gb__shutdown_backends();
    return rc;
}

static int calibrate_main(int argc, char **argv, int full_argc, char **full_argv)
{
    return gb__worker_main("calibrate", calibrate, argc, argv, full_argc, full_argv);
}

const struct gb_command gb_command_calibrate = {
    .name = "calibrate",
    .summary = "A/A runs: each case's noise and the threshold with no false alarm",
    .main_full = calibrate_main,
};
