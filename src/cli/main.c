/* gpubench — the command line: finds the command in the table (commands.h) and hands it the rest.
 * Each command parses its own options and answers its own --help; the exit status is its enum
 * gb_exit. */
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

static void usage(FILE *f)
{
    fprintf(f, "usage: gpubench COMMAND [OPTIONS]     (gpubench COMMAND --help: its options)\n"
               "       gpubench --help | --version\n"
               "\n"
               "commands:\n");
    for (const struct gb_command *const *c = gb_commands; *c; c++)
        fprintf(f, "  %-11s %s\n", (*c)->name, (*c)->summary);
    fprintf(f, "\n"
               "exit status: 0 ok, 1 a case failed, 2 usage, profile or device error, 3 a\n"
               "verdict to act on (compare, check, fleet, history --fail-on-slower), 130\n"
               "interrupted\n");
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
    for (const struct gb_command *const *p = gb_commands; *p; p++) {
        const struct gb_command *c = *p;
        if (strcmp(cmd, c->name) == 0)
            return c->main ? c->main(argc - 1, argv + 1)
                           : c->main_full(argc - 1, argv + 1, argc, argv);
    }
    const char *names[64];
    size_t n = 0;
    for (const struct gb_command *const *p = gb_commands; *p && n < 64; p++)
        names[n++] = (*p)->name;
    const char *near = gb_did_you_mean(cmd, names, n);
    fprintf(stderr, "gpubench: unknown command '%s'%s%s%s; see gpubench --help\n", cmd,
            near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
    return GB_EXIT_USAGE;
}
