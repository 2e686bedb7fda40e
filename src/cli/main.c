/* gpubench — the command line: finds the command and hands it the rest. Each command parses its
 * own options and answers its own --help (commands.h); the exit status is its enum gb_exit. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "backends/backend.h"
#include "base/units.h"
#include "base/util.h"
#include "run/child.h"
#include "suites/suites.h"
#include "commands.h"
#include "gb-config.h"
#include "gb-version.h"

/* One command: exactly one of fn and fn_full is set; fn_full also gets the whole command line,
 * which a results file records. */
static const struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    int (*fn_full)(int argc, char **argv, int full_argc, char **full_argv);
    const char *summary;
} commands[] = {
    {"devices", gb_cmd_devices, NULL,
     "list backends and devices (an unavailable backend says why)"},
    {"run", NULL, gb_cmd_run, "run a YAML profile and write a results file"},
    {"validate", gb_cmd_validate, NULL, "check a profile and show how many cases it expands to"},
    {"suites", gb_cmd_suites, NULL, "list the suites and their axes with default sweeps"},
    {"compare", gb_cmd_compare, NULL,
     "regression verdict per case: against a baseline's nights, or between two results files"},
    {"calibrate", NULL, gb_cmd_calibrate,
     "A/A runs: run-to-run noise per case and the threshold that raises no false alarm"},
    {"baseline", gb_cmd_baseline, NULL,
     "promote a run to results/baselines/<host>-<device>-<profile>.json and its nights"},
    {"report", gb_cmd_report, NULL, "HTML + Markdown report with gnuplot charts"},
    {"fleet", gb_cmd_fleet, NULL, "per-node tables of many hosts' files; outlier nodes exit 3"},
    {"history", gb_cmd_history, NULL, "nightly series per case and the nights a figure moved"},
    {"expect", gb_cmd_expect, NULL,
     "reference runs reduced to expectations per device model and case"},
    {"check", gb_cmd_check, NULL,
     "is this GPU normal? each result against its model's expectation; exit 3 when not"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: gpubench COMMAND [OPTIONS]     (gpubench COMMAND --help: its options)\n"
               "       gpubench --help | --version\n"
               "\n"
               "commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\n"
            "exit status: 0 ok, 1 a case failed, 2 usage, profile or device error, 3 regression\n"
            "(compare, check), 130 interrupted\n");
}

/* "gpubench 0.1.0 (commit); backends: opencl cuda; BLAS: clblast" */
static void version(void)
{
    printf("gpubench %s (%s); backends:", GB_VERSION, GB_GIT_COMMIT);
    for (size_t b = 0; b < gb_backend_count; b++)
        printf(" %s", gb_backends[b]->name);
    /* The backends' BLAS libraries in alphabetical order (the order is the text's, not the
     * table's, so that it does not change with the backends' order). */
    const char *blas[8];
    size_t nb = 0;
    for (size_t b = 0; b < gb_backend_count && nb < 8; b++)
        if (gb_backends[b]->facts.blas)
            blas[nb++] = gb_backends[b]->facts.blas;
    for (size_t i = 1; i < nb; i++)
        for (size_t j = i; j > 0 && strcmp(blas[j - 1], blas[j]) > 0; j--) {
            const char *t = blas[j];
            blas[j] = blas[j - 1];
            blas[j - 1] = t;
        }
    printf("; BLAS:");
    for (size_t i = 0; i < nb; i++)
        printf(" %s", blas[i]);
    printf("%s\n", nb ? "" : " none");
}

int main(int argc, char **argv)
{
    /* A helper process of a case (run/child.h) starts its clock first: the time it took to get
     * here is the process start a cold-start measurement counts. */
    const double t_main = gb_now();
    int helper = gb_child_main(gb_suites_builtin(), t_main);
    if (helper >= 0)
        return helper;
    /* A file size limit (ulimit -f) makes a write fail with EFBIG, reported like a full disk,
     * instead of killing the program with SIGXFSZ halfway through a results file. */
    signal(SIGXFSZ, SIG_IGN);
    /* Every message on stderr is terminal-safe, whatever file or option text it quotes. */
    gb_term_protect_stderr();
    if (argc < 2) {
        usage(stderr);
        return GB_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return GB_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        version();
        return GB_EXIT_OK;
    }
    for (size_t i = 0; i < NCOMMANDS; i++) {
        const struct command *c = &commands[i];
        if (strcmp(cmd, c->name) == 0)
            return c->fn ? c->fn(argc - 1, argv + 1) : c->fn_full(argc - 1, argv + 1, argc, argv);
    }
    fprintf(stderr, "gpubench: unknown command '%s'\n", cmd);
    usage(stderr);
    return GB_EXIT_USAGE;
}
