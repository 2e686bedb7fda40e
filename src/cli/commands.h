/* The top floor: one function per command, each in its own file (src/cli/NAME.c), each
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

/* argv[0] is the command's name ("run", "compare", ...); full_argc/full_argv, where taken, are
 * the whole command line, recorded in the results file. */
int gb_cmd_devices(int argc, char **argv);
int gb_cmd_run(int argc, char **argv, int full_argc, char **full_argv);
int gb_cmd_validate(int argc, char **argv);
int gb_cmd_suites(int argc, char **argv);
int gb_cmd_compare(int argc, char **argv);
int gb_cmd_calibrate(int argc, char **argv, int full_argc, char **full_argv);
int gb_cmd_baseline(int argc, char **argv);
int gb_cmd_report(int argc, char **argv);
/* Many results files: the fleet view (per-node tables, outlier nodes; exit 3 on an outlier) and
 * the nightly history with change points. */
int gb_cmd_fleet(int argc, char **argv);
int gb_cmd_history(int argc, char **argv);
/* Reference runs reduced to expectations per device model (expect), and a run's verdict against
 * them: is this GPU normal? (check; exit 3 on a LOW, IMPLAUSIBLE or FAILED result). */
int gb_cmd_expect(int argc, char **argv);
int gb_cmd_check(int argc, char **argv);

#endif
