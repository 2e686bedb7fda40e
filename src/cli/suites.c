/* gpubench suites: the suites, their axes and default sweeps. */
#include <stdio.h>

#include "suites/suites.h"
#include "common.h"
#include "run/suite.h"

static const char usage[] = "usage: gpubench suites\n"
                            "  lists the suites, each with its axes and their default sweeps\n";
static const struct gb__cmd cmd = {"suites", usage, 0, 0, NULL, "no operand"};

int gb_cmd_suites(int argc, char **argv)
{
    static const struct gb__opt none[] = {GB__END};
    enum gb_exit rc;
    if (gb__parse_options(&cmd, argc, argv, GB__GROUPS({none, NULL}), &rc) < 0)
        return rc;
    for (size_t i = 0; i < gb_suites_builtin()->n; i++) {
        const struct gb_suite *s = gb_suites_builtin()->v[i];
        printf("%s — %s\n", s->name, s->summary);
        for (size_t a = 0; a < s->naxes; a++)
            printf("  %-10s default %-40s %s\n", s->axes[a].name, s->axes[a].def, s->axes[a].help);
    }
    return GB_EXIT_OK;
}
