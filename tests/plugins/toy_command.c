/* A toy command, for tests/test_plugins.c: `gpubench toy [WORDS...]` prints "TOY command:" and
 * its words. It proves the command socket: copied into a test build as src/cli/toy.c with one
 * line, `toy`, in meson.build's commands list, gpubench runs it, answers its --help and lists it
 * in `gpubench --help`, with no other file touched. Not part of the normal build. */
#include <stdbool.h>
#include <stdio.h>

#include "cli/common.h"

static const char toy_usage[] = "usage: gpubench toy [WORDS...] [OPTIONS]\n"
                                "  Prints \"TOY command:\" and the words.\n"
                                "  -c, --count             the number of words instead\n"
                                "exit status: 0 printed, 2 usage\n";
static const struct gb__cmd toy_cmd = {"toy", toy_usage, 0, -1, NULL, NULL};

struct toy_args {
    bool count;
};

static const struct gb__opt toy_options[] = {
    GB__FLAG(struct toy_args, count, "count", 'c'),
    GB__END,
};

static int toy_main(int argc, char **argv)
{
    struct toy_args a = {0};
    enum gb_exit rc;
    int first = gb__parse_options(&toy_cmd, argc, argv, GB__GROUPS({toy_options, &a}), &rc);
    if (first < 0)
        return rc; /* --help answered, or a usage error said why */
    printf("TOY command:");
    if (a.count)
        printf(" %d", argc - first);
    else
        for (int i = first; i < argc; i++)
            printf(" %s", argv[i]);
    printf("\n");
    return GB_EXIT_OK;
}

const struct gb_command gb_command_toy = {
    .name = "toy",
    .summary = "a toy command, the command socket's test",
    .main = toy_main,
};
