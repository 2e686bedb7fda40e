/* The top floor: one descriptor per command, each in its own file (src/cli/NAME.c), each
 * parsing its own options with getopt_long and answering its own --help. main.c only dispatches.
 *
 * Every command returns one of enum gb_exit; nothing below this floor decides an exit code or
 * calls exit(). */
#ifndef GB_COMMANDS_H
#define GB_COMMANDS_H

/* The exit status of every command, the one definition (docs/commands.md, "Exit status"). */
enum gb_exit {
    GB_EXIT_OK = 0,          /* done; compare: no regression */
    GB_EXIT_CASE_FAILED = 1, /* run: at least one case failed (the results file has them all) */
    GB_EXIT_USAGE = 2,       /* bad option, profile, input file or device selection; nothing run */
    GB_EXIT_REGRESSION = 3,  /* compare, calibrate: a significant slowdown beyond the threshold */
    GB_EXIT_INTERRUPTED = 130, /* Ctrl-C or SIGTERM: the results file holds every finished case */
};

/* A command: one file, src/cli/NAME.c, defining `const struct gb_command gb_command_NAME`, and
 * one line, NAME, in meson.build's `commands` list (the order `gpubench --help` lists them); the
 * table is generated (src/cli/commands.c.in). A command written in another command's file (check,
 * in expect.c) is listed as NAME:FILE ('check:expect'). main.c finds the command by its name and
 * calls it with argv[0] its name ("run", "compare", ...). */
struct gb_command {
    const char *name;    /* the word on the command line: "run" */
    const char *summary; /* one line for gpubench --help */
    /* Exactly one is set. main_full also gets the whole command line (full_argc, full_argv),
     * which a results file records. Each returns an enum gb_exit. */
    int (*main)(int argc, char **argv);
    int (*main_full)(int argc, char **argv, int full_argc, char **full_argv);
};

/* The commands of this build, in the order of meson.build's list, NULL-terminated. */
extern const struct gb_command *const gb_commands[];

#endif
