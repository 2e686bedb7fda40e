/* gpubench validate PROFILE [OPTIONS]: checks a profile and counts its cases, touching no
 * device. */
#include <stdio.h>
#include <stdlib.h>

#include "base/error.h"
#include "common.h"

static const char usage[] =
    "usage: gpubench validate PROFILE [OPTIONS]\n"
    "  checks a profile and shows how many cases it expands to per device, touching no device;\n"
    "  takes run's options; --suite and --set change what it checks:\n" GB__RUN_OPTIONS_HELP
    "exit status: 0 valid, 2 not (the reason on stderr, with file:line:column)\n";
static const struct gb__cmd cmd = {"validate", usage, 1, 1, "PROFILE", "exactly one PROFILE"};

int gb_cmd_validate(int argc, char **argv)
{
    struct gb__run_args a = {0};
    enum gb_exit rc;
    if (!gb__parse_run_args(&cmd, argc, argv, &a, &rc))
        return rc;
    struct gb_profile p;
    if ((rc = gb__load_profile(&a, &p)) != GB_EXIT_OK)
        return rc;
    /* Expand against one notional device to count cases without touching hardware. */
    struct gb_plan_device one = {0};
    struct gb_plan plan = {.devices = &one, .ndevices = 1};
    if (gb_plan_expand(&p, a.suite, &plan)) {
        fprintf(stderr, "%s\n", gb_error_msg());
        free(plan.cases); /* the cases expanded before the refusal */
        gb_profile_free(&p);
        return GB_EXIT_USAGE;
    }
    printf("%s: ok, profile '%s', %zu suite entr%s, %zu cases per device\n", a.profile, p.name,
           p.nruns, p.nruns == 1 ? "y" : "ies", plan.ncases);
    for (size_t r = 0; r < p.nruns; r++) {
        size_t n = 0;
        for (size_t i = 0; i < plan.ncases; i++)
            n += plan.cases[i].run == &p.runs[r];
        printf("  %-10s %4zu cases  (line %d)\n", p.runs[r].suite->name, n, p.runs[r].line);
    }
    free(plan.cases);
    gb_profile_free(&p);
    return GB_EXIT_OK;
}
