/* gpubench run PROFILE [OPTIONS]: runs a YAML profile and writes a results file. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "common.h"
#include "harness/precision.h"
#include "report/precision_table.h"
#include "harness/runner.h"

static const char usage[] =
    "usage: gpubench run PROFILE [OPTIONS]\n"
    "  runs a YAML profile and writes a results file\n"
    "  -o, --output FILE       results file\n"
    "                          (default results/NAME-UTCTIME.json)\n" GB__RUN_OPTIONS_HELP
    "exit status: 0 ok, 1 a case failed, 2 usage, profile or device error, 130 interrupted\n"
    "(Ctrl-C or SIGTERM: the results file holds every finished case)\n";
static const struct gb__cmd cmd = {"run", usage, 1, 1, "PROFILE", "exactly one PROFILE"};

/* Why the results cannot go to `out` (NULL: they can; an empty results file is there now). The
 * output is checked, and an empty results file written, before the first case: a path that
 * cannot take the results must not cost a whole run's measurements. */
static const char *unwritable(const char *out, const char *profile, const struct gb_results *rs)
{
    static char why[4200];
    const char *inputs[] = {profile};
    if (gb_output_refusal(out, GB_OUTPUT_FILE, inputs, 1, why, sizeof why))
        return why;
    if (gb_results_write(rs, out))
        return gb_error_msg();
    return NULL;
}

/* Runs the plan into rs and out; prints the summary. Returns gb_run_plan's status. */
static int run_and_report(const struct gb_plan *plan, const char *out, bool quiet,
                          struct gb_results *rs)
{
    fprintf(stderr, "gpubench: %zu cases on %zu device%s -> %s\n", plan->ncases, plan->ndevices,
            plan->ndevices == 1 ? "" : "s", out);
    struct gb_runner_opts o = {
        .out_path = out,
        .progress = !quiet && isatty(STDERR_FILENO) ? stderr : NULL,
        .stop = gb__catch_stop_signals(),
    };
    int r = gb_run_plan(plan, &o, rs);
    gb_print_summary(stdout, rs);
    gb_print_precision_table(stdout, rs);
    size_t n[3] = {0, 0, 0}; /* by enum gb_status: ok, skipped, failed */
    for (size_t i = 0; i < rs->nresults; i++)
        n[rs->results[i].status]++;
    printf("%zu ok, %zu skipped, %zu failed%s; %s %s\n", n[GB_STATUS_OK], n[GB_STATUS_SKIPPED],
           n[GB_STATUS_FAILED], r == GB_EINTR ? " (interrupted)" : "",
           r == GB_EIO ? "the results could NOT all be written to" : "results in", out);
    if (r == GB_EIO)
        fprintf(stderr, "gpubench run: could not write %s: %s\n", out, gb_error_msg());
    return r;
}

int gb_cmd_run(int argc, char **argv, int full_argc, char **full_argv)
{
    char command_line[2048];
    gb__command_line(full_argc, full_argv, command_line, sizeof command_line);
    struct gb__run_args a = {0};
    enum gb_exit rc;
    if (!gb__parse_run_args(&cmd, argc, argv, &a, &rc))
        return rc;
    struct gb_profile p;
    struct gb_plan plan;
    if ((rc = gb__prepare_plan(&a, "run", &p, &plan)) != GB_EXIT_OK)
        return rc;
    struct gb_results rs = {0};
    gb__fill_meta(&rs.run, &p, command_line);
    char out[2048];
    snprintf(out, sizeof out, "%s", a.out ? a.out : "");
    if (!a.out)
        rc = gb__default_output("run", p.name, rs.run.start_utc, ".json", out, sizeof out);
    const char *why = rc == GB_EXIT_OK ? unwritable(out, a.profile, &rs) : NULL;
    if (why) {
        fprintf(stderr, "gpubench run: cannot write the results to %s: %s\n", out, why);
        rc = GB_EXIT_USAGE;
    }
    bool ran = rc == GB_EXIT_OK;
    if (ran) {
        int r = run_and_report(&plan, out, a.quiet, &rs);
        rc = r == GB_EINTR ? GB_EXIT_INTERRUPTED : r ? GB_EXIT_CASE_FAILED : GB_EXIT_OK;
    }
    gb_results_free(&rs);
    gb_plan_free(&plan);
    gb_profile_free(&p);
    if (ran)
        gb__shutdown_backends();
    return rc;
}
