/* gpubench calibrate PROFILE [-n RUNS] [--dir DIR] [--json FILE] [run options] [compare options]:
 * runs the profile RUNS times through the same plan and runner as `run` (one results file each,
 * in DIR), then reports each case's run-to-run noise and the threshold that would have raised no
 * false alarm (compare/calibrate.h). `calibrate --from FILE...` analyses earlier runs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "common.h"
#include "compare/baseline.h"
#include "compare/calibrate.h"
#include "harness/runner.h"

static const char usage[] =
    "usage: gpubench calibrate PROFILE [-n RUNS] [--dir DIR] [--json FILE] [OPTIONS]\n"
    "       gpubench calibrate --from RESULTS.json... [--json FILE] [--baseline DIR]\n"
    "                          [compare options]\n"
    "  A/A runs: runs the profile RUNS times, then shows each case's run-to-run noise and the\n"
    "  threshold that would have raised no false alarm, with a suggested compare command line\n"
    "  -n, --runs RUNS         how many runs, 2..100 (default 3)\n"
    "      --dir DIR           the runs' results files (default results/calibrate-NAME-UTCTIME/)\n"
    "      --json FILE         also write the analysis as JSON\n"
    "      --baseline DIR      keep the per-case thresholds with the baseline of these runs:\n"
    "                          DIR/<host>-<device>-<profile>/thresholds.json, which compare\n"
    "                          against that baseline's nights then uses (DIR: results/baselines)\n"
    "      --from              analyse these results files (runs of one profile) instead\n"
    "options of run:\n" GB__RUN_OPTIONS_HELP "options of compare:\n" GB__COMPARE_OPTIONS_HELP
    "exit status: 0 done, 1 a run could not be written, 2 usage, profile or device error,\n"
    "130 interrupted\n";
static const struct gb__cmd cmd = {"calibrate", usage, 1, -1, "PROFILE", NULL};

struct calibrate_args {
    long runs;
    bool runs_given, from;
    const char *dir, *json, *baseline;
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
    GB__PARSED("runs", 'n', true, parse_runs),
    GB__TEXT(struct calibrate_args, dir, "dir", 0),
    GB__TEXT(struct calibrate_args, json, "json", 0),
    GB__TEXT(struct calibrate_args, baseline, "baseline", 0),
    GB__FLAG(struct calibrate_args, from, "from", 0),
    GB__END,
};

/* Reports on runs[0..n) from paths[0..n) (GB_EXIT_USAGE when the analysis refuses them); with
 * c->baseline, the JSON goes to the baseline's thresholds.json too. */
static enum gb_exit report(const struct gb_results *runs, const char *const *paths, size_t n,
                           const struct gb_compare_opts *co, const struct calibrate_args *c)
{
    char learned[4200] = "", name[512];
    if (c->baseline && n > 0) {
        gb_baseline_name(&runs[0], name, sizeof name);
        name[strlen(name) - 5] = '\0'; /* the folder: the name without ".json" */
        char folder[4096];
        snprintf(folder, sizeof folder, "%s/%s", c->baseline, name);
        if (gb_mkdir_p(folder, 0777) != 0) {
            fprintf(stderr, "gpubench calibrate: cannot create %s: %s\n", folder, strerror(errno));
            return GB_EXIT_USAGE;
        }
        snprintf(learned, sizeof learned, "%s/thresholds.json", folder);
    }
    gb_error_clear();
    if (gb_calibrate_report(stdout, runs, paths, n, co, learned[0] ? learned : c->json)) {
        fprintf(stderr, "gpubench calibrate: %s\n", gb_error_msg());
        return GB_EXIT_USAGE;
    }
    if (learned[0]) {
        gb_error_clear();
        if (c->json && gb_baseline_copy(learned, c->json)) {
            fprintf(stderr, "gpubench calibrate: %s\n", gb_error_msg());
            return GB_EXIT_USAGE;
        }
        printf("Learned thresholds kept in %s: `gpubench compare` against that baseline's "
               "nights uses each case's suggestion (--threshold / --suite-threshold override).\n",
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
    return GB_EXIT_OK;
}

/* c->runs runs of the plan into dir/run-K.json, then the report. */
static enum gb_exit run_and_report(const struct gb__run_args *a, const struct calibrate_args *c,
                                   const struct gb_compare_opts *co, const struct gb_profile *p,
                                   const struct gb_plan *plan, const char *command_line)
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
    for (; rc == GB_EXIT_OK && done < runs && !*stop; done++) {
        snprintf(paths[done], sizeof paths[done], "%s/run-%ld.json", dir, done + 1);
        path_ptrs[done] = paths[done];
        const char *inputs[] = {p->path, c->json};
        if ((rc = gb__check_output("calibrate", paths[done], GB_OUTPUT_FILE, inputs, 2)))
            break;
        gb__fill_meta(&rs[done].run, p, command_line);
        fprintf(stderr, "gpubench calibrate: run %ld of %ld, %zu cases -> %s\n", done + 1, runs,
                plan->ncases, paths[done]);
        struct gb_runner_opts o = {
            .out_path = paths[done],
            .progress = !a->quiet && isatty(STDERR_FILENO) ? stderr : NULL,
            .stop = stop,
        };
        int r = gb_run_plan(plan, &o, &rs[done]);
        if (r == GB_EIO || r == GB_EINTR) {
            fprintf(stderr, "gpubench calibrate: run %ld %s\n", done + 1,
                    r == GB_EINTR ? "interrupted" : "could not be written");
            rc = r == GB_EINTR ? GB_EXIT_INTERRUPTED : GB_EXIT_CASE_FAILED;
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

int gb_cmd_calibrate(int argc, char **argv, int full_argc, char **full_argv)
{
    char command_line[2048];
    gb__command_line(full_argc, full_argv, command_line, sizeof command_line);
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
        return analyse_files((const char *const *)argv + first, (size_t)n, &co, &c);
    }
    if (n != 1)
        return gb__usage_error(&cmd, "expects exactly one PROFILE");
    a.profile = argv[first];
    if (a.out)
        return gb__usage_error(&cmd, "-o does not apply; --dir DIR holds the runs");
    const char *inputs[] = {a.profile};
    if (c.json && (rc = gb__check_output("calibrate", c.json, GB_OUTPUT_FILE, inputs, 1)))
        return rc;
    if (c.dir && (rc = gb__check_output("calibrate", c.dir, GB_OUTPUT_DIR, inputs, 1)))
        return rc;
    struct gb_profile p;
    struct gb_plan plan;
    if ((rc = gb__prepare_plan(&a, "calibrate", &p, &plan)) != GB_EXIT_OK)
        return rc;
    rc = run_and_report(&a, &c, &co, &p, &plan, command_line);
    gb_plan_free(&plan);
    gb_profile_free(&p);
    gb__shutdown_backends();
    return rc;
}
