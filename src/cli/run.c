/* gpubench run PROFILE [OPTIONS]: runs a YAML profile and writes a results file. */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "common.h"
#include "backends/precision.h"
#include "outputs/precision_out.h"
#include "outputs/summary_out.h"
#include "outputs/writer.h"
#include "run/runner.h"
#include "run/supervise.h"

static const char usage[] =
    "usage: gpubench run PROFILE [OPTIONS]\n"
    "  runs a YAML profile and writes a results file\n" GB__PROFILE_HELP
    "  -o, --output FILE       results file\n"
    "                          (default results/NAME-UTCTIME.json)\n" GB__OPENMETRICS_HELP
        GB__FORMAT_HELP GB__RUN_OPTIONS_HELP
    "each case runs in a worker process under a time limit (measure.case_timeout,\n"
    "default 60 s + 10 x (warmup_time + max_time), counted from the last finished\n"
    "sample): a case that hangs or crashes its worker is recorded as failed and the\n"
    "run goes on\n"
    "exit status: 0 ok, 1 a case failed, 2 usage, profile or device error, 130\n"
    "interrupted (Ctrl-C or SIGTERM: the results file holds every finished case)\n";
static const struct gb__cmd cmd = {"run", usage, 1, 1, "PROFILE", "exactly one PROFILE"};

/* Why the results cannot go to `out` (NULL: they can; an empty results file is there now). The
 * output is checked, and an empty results file written, before the first case: a path that
 * cannot take the results must not cost a whole run's measurements. The empty file says
 * `interrupted: true` with the cases planned; when `out` exists already it goes to `partial`
 * beside it instead, so that the file there is replaced only once a case has finished. */
static const char *unwritable(const char *out, const char *partial, const char *profile,
                              const struct gb_results *rs)
{
    static char why[GB_PATH_JOIN];
    const char *inputs[] = {profile};
    if (strcmp(out, "-") == 0)
        return "-o needs a file name ('-' is not standard output here: the summary is)";
    if (gb_output_refusal(out, GB_OUTPUT_FILE, inputs, 1, why, sizeof why))
        return why;
    char dir[GB_PATH_JOIN - 64];
    if (gb__folder_missing(out, dir, sizeof dir)) {
        snprintf(why, sizeof why, "the folder %s for -o does not exist", dir);
        return why;
    }
    /* The placeholder is run's own name beside out: a symbolic link there (to the profile, to
     * anything) is removed, never written through. */
    struct stat st_p;
    if (lstat(partial, &st_p) == 0 && S_ISLNK(st_p.st_mode) && unlink(partial) != 0) {
        snprintf(why, sizeof why, "%s is a symbolic link that cannot be removed: %s", partial,
                 strerror(errno));
        return why;
    }
    struct stat st_out;
    if (gb_results_write(rs, stat(out, &st_out) == 0 ? partial : out))
        return gb_error_msg();
    return NULL;
}

/* The summary of rs in `format` on standard output. For people (text, markdown): a table per
 * suite, then the speed x accuracy table per precision; for machines (json, csv, openmetrics, any
 * other writer): every result as one row, its params as columns, what --openmetrics writes. */
static void print_summary(const struct gb_results *rs, const char *format)
{
    struct gb_doc d;
    const bool people = strcmp(format, "text") == 0 || strcmp(format, "markdown") == 0;
    if ((people ? gb_summary_doc(rs, &d) || gb_precision_doc(rs, &d)
                : gb_results_metrics_doc(rs, &d)) ||
        gb_write_doc(stdout, format, &d))
        fprintf(stderr, "gpubench run: the summary: %s\n", gb_error_msg());
    gb_doc_free(&d);
}

/* Runs the plan into rs and out; prints the summary. Returns gb_run_plan's status. */
static int run_and_report(const struct gb_plan *plan, const char *out, bool quiet,
                          const char *format, char *const *argv, volatile sig_atomic_t *stop,
                          struct gb_results *rs)
{
    fprintf(stderr, "gpubench: %zu case%s on %zu device%s -> %s\n", plan->ncases,
            plan->ncases == 1 ? "" : "s", plan->ndevices, plan->ndevices == 1 ? "" : "s", out);
    struct gb_supervise_opts o = {
        .out_path = out,
        /* Its own \r and erase-line controls: the raw stream (what it quotes is cleaned). */
        .progress =
            !quiet && isatty(STDERR_FILENO) ? (gb_raw_stderr ? gb_raw_stderr : stderr) : NULL,
        .stop = stop,
        .exe = "/proc/self/exe",
        .argv = argv,
    };
    int r = gb_supervise_plan(plan, &o, rs);
    print_summary(rs, format);
    size_t n[3] = {0, 0, 0}; /* by enum gb_status: ok, skipped, failed */
    for (size_t i = 0; i < rs->nresults; i++)
        n[rs->results[i].status]++;
    /* The tally is a line of text: after a text summary it joins it on stdout; after a document
     * (json, csv, openmetrics, markdown) it goes to stderr, so that stdout parses as that
     * document alone ("gpubench run -f json P | jq"). */
    /* The results and the cases can differ in number: a case may give several results (a
     * tuned case, one per configuration it tried), and an interrupted run gives fewer. */
    char counts[96] = "";
    if (rs->nresults != plan->ncases)
        snprintf(counts, sizeof counts, " (%zu result%s of %zu case%s)", rs->nresults,
                 rs->nresults == 1 ? "" : "s", plan->ncases, plan->ncases == 1 ? "" : "s");
    FILE *tally = strcmp(format, "text") == 0 ? stdout : stderr;
    char head[256];
    snprintf(head, sizeof head, "%zu ok, %zu skipped, %zu failed%s%s;", n[GB_STATUS_OK],
             n[GB_STATUS_SKIPPED], n[GB_STATUS_FAILED], counts,
             r == GB_EINTR ? " (interrupted)" : "");
    const char *where = r == GB_EIO ? "the results could NOT all be written to" : "results in";
    /* Wider than the terminal: the file on a line of its own, indented as a wrapped note is
     * (a pipe or a file, width 0, keeps the one line). */
    const int width = tally == stdout ? gb_write_width(stdout) : 0;
    const bool wrap =
        width > 0 && strlen(head) + 1 + strlen(where) + 1 + strlen(out) > (size_t)width;
    fprintf(tally, "%s%s%s %s\n", head, wrap ? "\n  " : " ", where, out);
    if (r == GB_EIO)
        fprintf(stderr, "gpubench run: could not write %s: %s\n", out, gb_error_msg());
    if (r == GB_EBACKEND)
        fprintf(stderr, "gpubench run: %s\n", gb_error_msg());
    return r;
}

/* The options of run alone (validate shares the rest). */
struct run_only {
    const char *format, *metrics;
};
static const struct gb__opt run_only_options[] = {
    GB__TEXT(struct run_only, format, "format", 'f'),
    GB__TEXT(struct run_only, metrics, "openmetrics", 0),
    GB__END,
};

/* gb__parse_run_args with run's own options; a --format no writer of this build has is a usage
 * error before anything runs. */
static bool parse_args(int argc, char **argv, struct gb__run_args *a, struct run_only *ro,
                       enum gb_exit *rc)
{
    int first = gb__parse_options(&cmd, argc, argv,
                                  GB__GROUPS({gb__run_options, a}, {run_only_options, ro}), rc);
    if (first < 0)
        return false;
    a->profile = argv[first];
    if (a->verbose)
        gb_error_log_to(stderr);
    const char *outs[1] = {ro->metrics};
    static const char *const names[1] = {"--openmetrics"};
    *rc = gb__check_format("run", ro->format, false);
    if (*rc == GB_EXIT_OK)
        *rc = gb__check_stdout("run", ro->format, outs, names, 1);
    return *rc == GB_EXIT_OK;
}

static int run_main(int argc, char **argv, int full_argc, char **full_argv)
{
    char command_line[2048];
    gb__command_line(full_argc, full_argv, command_line, sizeof command_line);
    /* A worker (run/supervise.h) runs the same command: keep it before getopt reorders it. */
    char **worker_argv = calloc((size_t)full_argc + 1, sizeof *worker_argv);
    if (!worker_argv) {
        fprintf(stderr, "gpubench run: out of memory\n");
        return GB_EXIT_USAGE;
    }
    memcpy(worker_argv, full_argv, (size_t)full_argc * sizeof *worker_argv);
    const char *worker = getenv(GB_WORKER_ENV);
    if (worker)
        worker = strdup(worker);
    unsetenv(GB_WORKER_ENV);
    struct gb__run_args a = {0};
    enum gb_exit rc;
    struct gb_profile p;
    struct gb_plan plan;
    struct run_only ro = {0};
    if (!parse_args(argc, argv, &a, &ro, &rc) ||
        (rc = gb__prepare_plan(&a, "run", &p, &plan)) != GB_EXIT_OK) {
        free(worker_argv);
        free((char *)worker);
        return rc;
    }
    if (worker) {
        rc = gb_worker_run(&plan, worker);
        free(worker_argv);
        free((char *)worker);
        gb_plan_free(&plan);
        gb_profile_free(&p);
        gb__shutdown_backends();
        return rc;
    }
    gb__note_absent("run", &p);
    struct gb_results rs = {0};
    gb__fill_meta(&rs.run, &p, command_line);
    char out[2048], partial[2100];
    snprintf(out, sizeof out, "%s", a.out ? a.out : "");
    if (!a.out)
        rc = gb__default_output("run", p.name, rs.run.start_utc, ".json", out, sizeof out);
    const bool reserved = !a.out && rc == GB_EXIT_OK; /* the default name, made empty */
    snprintf(partial, sizeof partial, "%s.partial", out);
    /* From here on Ctrl-C ends the run with exit 130, the results written. */
    volatile sig_atomic_t *stop = gb__catch_stop_signals();
    rs.run.interrupted = true; /* the empty file before the first case is not a finished run */
    rs.run.cases_planned = plan.ncases;
    if (rc == GB_EXIT_OK && ro.metrics) {
        /* Both outputs together: one path for both (however spelled, existing or not) is
         * refused, as the profile is. */
        const char *inputs[] = {a.profile};
        const char *outs[2] = {out, ro.metrics};
        static const char *const names[2] = {"-o", "--openmetrics"};
        rc = gb__check_outputs("run", outs, names, 2, inputs, 1);
    }
    const char *why = rc == GB_EXIT_OK ? unwritable(out, partial, a.profile, &rs) : NULL;
    if (why) {
        fprintf(stderr, "gpubench run: cannot write the results to %s: %s\n", out, why);
        rc = GB_EXIT_USAGE;
    }
    bool ran = rc == GB_EXIT_OK;
    /* A run refused before it starts leaves no empty results file of the name it reserved
     * (history, calibrate and report would each stop at it). */
    struct stat st_reserved;
    if (!ran && reserved && stat(out, &st_reserved) == 0 && st_reserved.st_size == 0)
        unlink(out);
    if (ran) {
        int r = run_and_report(&plan, out, a.quiet, ro.format ? ro.format : "text", worker_argv,
                               stop, &rs);
        rc = r == GB_EINTR      ? GB_EXIT_INTERRUPTED
             : r == GB_EBACKEND ? GB_EXIT_USAGE
             : r                ? GB_EXIT_CASE_FAILED
                                : GB_EXIT_OK;
        unlink(partial); /* the placeholder, when there is one: the results are in out */
        /* The metrics of what was measured, interrupted or not. */
        struct gb_doc d;
        if (ro.metrics &&
            (gb_results_metrics_doc(&rs, &d) ||
             gb__write_metrics("run", ro.metrics, &d) != GB_EXIT_OK) &&
            rc == GB_EXIT_OK)
            rc = GB_EXIT_USAGE;
        if (ro.metrics)
            gb_doc_free(&d);
    }
    free(worker_argv);
    gb_results_free(&rs);
    gb_plan_free(&plan);
    gb_profile_free(&p);
    if (ran)
        gb__shutdown_backends();
    return rc;
}

const struct gb_command gb_command_run = {
    .name = "run",
    .summary = "run a YAML profile and write a results file",
    .main_full = run_main,
};
