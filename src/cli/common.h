/* gpubench — what the commands share: one option parser (getopt_long over tables), the option
 * set of run, validate and calibrate, the compare options of compare and calibrate, the profile
 * and plan they load, the run metadata, Ctrl-C / SIGTERM, and output files.
 *
 * Private to src/cli (hence gb__). Every function that can end a command says so with an
 * enum gb_exit, after printing "gpubench CMD: why" to stderr. */
#ifndef GB_COMMANDS_COMMON_H
#define GB_COMMANDS_COMMON_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/util.h"
#include "commands.h"
#include "base/doc.h"
#include "outputs/compare_out.h"
#include "run/config.h"
#include "run/plan.h"
#include "results/results.h"

/* ---- options ------------------------------------------------------------------------------- */

/* One option of a table. Where it goes is `offset` bytes into the table's struct (offsetof):
 * with parse NULL, an option without a value sets a bool there to true, one with a value stores
 * the text in a const char * there (the last one given wins); otherwise parse(that address,
 * name, value or NULL) checks and stores it, returning 0 or a negative gb_err with a message
 * for the user in gb_error_msg(). A table ends with an entry whose name is NULL. */
struct gb__opt {
    const char *name; /* the long name: "output" for --output */
    int letter;       /* the short name ('o' for -o), or 0 */
    bool takes_value;
    size_t offset;
    int (*parse)(void *target, const char *name, const char *value);
};

/* Table entries: an option without a value that sets the bool `field` of the table's struct
 * `type`, one whose text goes to the const char * `field`, one that fn(the group's struct, name,
 * value or NULL) parses; the end. */
// clang-format off
#define GB__FLAG(type, field, name, letter) {(name), (letter), false, offsetof(type, field), NULL}
#define GB__TEXT(type, field, name, letter) {(name), (letter), true, offsetof(type, field), NULL}
#define GB__PARSED(name, letter, takes_value, fn) {(name), (letter), (takes_value), 0, (fn)}
#define GB__END {NULL, 0, false, 0, NULL}
// clang-format on

/* A table and the struct its offsets point into. A list of groups ends with a NULL opts. */
struct gb__opt_group {
    const struct gb__opt *opts;
    void *base;
};

/* A list of option groups, for gb__parse_options: GB__GROUPS({run_opts, &a}, {mine, &b}). */
#define GB__GROUPS(...) ((const struct gb__opt_group[]){__VA_ARGS__, {NULL, NULL}})

/* What a command takes besides options: its name, its usage text (the answer to --help) and
 * how many operands, at least and at most (-1: no limit). Too few or too many is a usage error
 * that says "missing MISSING" when there is none and MISSING is set, else "expects EXPECTS". */
struct gb__cmd {
    const char *name;
    const char *usage;
    int min_operands, max_operands;
    const char *missing; /* "PROFILE" */
    const char *expects; /* "exactly one PROFILE" */
};

/* Parses argv[1..argc) of command c (argv[0] is its name) with getopt_long: options and operands
 * in any order ("--" ends the options), long options also as --name=value and by an unambiguous
 * prefix; at most 48 options in all groups. -h / --help, in every command, prints c->usage to
 * stdout (gb__print_usage). Returns the index of the
 * first operand (getopt_long moves the operands to argv[first..argc)), or -1 when the command
 * is over: *rc GB_EXIT_OK after --help, GB_EXIT_USAGE after an unknown option (named with the
 * nearest option, "did you mean --NAME?"), a missing or bad value, or too few or too many
 * operands (one line on stderr, gb__usage_error). */
int gb__parse_options(const struct gb__cmd *c, int argc, char **argv,
                      const struct gb__opt_group *groups, enum gb_exit *rc);

/* Prints one line to stderr, "gpubench CMD: " the message "; see gpubench CMD --help"; returns
 * GB_EXIT_USAGE. For options that do not go together and the like. */
enum gb_exit gb__usage_error(const struct gb__cmd *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Writes a command's usage text to f with each GB__FORMATS mark replaced by the names of this
 * build's writers that fit a document that is not judged, each GB__FORMATS_JUDGED by those that
 * fit one that is (gb_writer_names): the formats listed are the writer table's. */
void gb__print_usage(FILE *f, const char *usage);
#define GB__FORMATS "@formats@"
#define GB__FORMATS_JUDGED "@judged-formats@"

/* The options of run, shared by validate (which uses --suite and --set) and calibrate (which
 * refuses -o): -o/--output FILE, -b/--backend NAME, -d/--device SEL, -s/--suite LIST,
 * --set KEY=VALUE (at most 64), -q/--quiet. GB__RUN_OPTIONS_HELP describes all but -o. */
#define GB__MAX_SETS 64
struct gb__run_args {
    const char *profile; /* the operand */
    const char *out, *backend, *device, *suite;
    struct gb_override sets[GB__MAX_SETS]; /* point into set_text */
    size_t nsets;
    bool quiet, verbose;
    char set_text[GB__MAX_SETS][1024];
};
extern const struct gb__opt gb__run_options[];

/* Parses the options of run (and validate) and their one PROFILE into a (zeroed by the caller).
 * As gb__parse_options: true to go on, false when the command is over with *rc. */
bool gb__parse_run_args(const struct gb__cmd *c, int argc, char **argv, struct gb__run_args *a,
                        enum gb_exit *rc);
/* What PROFILE may be, for the usage of the commands that take one. */
#define GB__PROFILE_HELP                                                               \
    "  PROFILE: a YAML file, or a profile's name (quick: configs/quick.yaml of this\n" \
    "  source tree or of the installation, from any folder)\n"
#define GB__RUN_OPTIONS_HELP                                                          \
    "  -b, --backend NAME      only this backend (opencl, cuda)\n"                    \
    "  -d, --device SEL        devices: all, or a comma list of indices (1),\n"       \
    "                          backend:index (opencl:1) or name substrings\n"         \
    "  -s, --suite LIST        only these suites (comma-separated)\n"                 \
    "      --set KEY=VALUE     override a profile key, e.g. measure.max_time=0.5s,\n" \
    "                          transfer.params.size=[1MiB,4MiB] (repeatable)\n"       \
    "  -q, --quiet             no progress line on stderr\n"                          \
    "  -v, --verbose           log where each error arose in the source on stderr\n"

/* The options of the verdict, shared by compare and calibrate, into a struct gb_compare_opts
 * (set it with gb_compare_opts_default first): --threshold, --suite-threshold, --alpha,
 * --fail-on-faster, --across-devices (gb_compare_set_option). */
extern const struct gb__opt gb__compare_options[];
#define GB__COMPARE_OPTIONS_HELP                                                        \
    "      --threshold T       relative change that matters: 0.05 or 5% (default 5%)\n" \
    "      --suite-threshold S=T another threshold for suite S (repeatable)\n"          \
    "      --alpha A           significance level of the Mann-Whitney test\n"           \
    "                          (default 0.01)\n"                                        \
    "      --fail-on-faster    a significant speed-up beyond the threshold fails too\n" \
    "      --across-devices    compare results from different devices, paired in\n"     \
    "                          order\n"

/* ---- files by name: profiles, reference expectations ---------------------------------------- */

/* The folders that hold what gpubench ships, in the order they are searched (at most 3, into
 * dirs[k][len]): the installed data folder beside this executable (BINDIR/../share/gpubench,
 * when it exists: an installed binary uses its own data), the source tree this binary was built
 * from (GB_SOURCE_DIR; the environment's GPUBENCH_SOURCE_DIR replaces it, "" for none: for
 * tests of an installed tree), and the configured data folder (GB_DATA_DIR). Each with whether
 * it is a source tree, whose layout differs (configs/ and results/reference/ there, configs/ and
 * reference/ in a data folder). Returns how many. */
size_t gb__data_dirs(char dirs[][4096], bool source[], size_t max);

/* Finds a file gpubench ships by name: `name` itself when it exists; else, when name holds no
 * '/', NAME then NAME`ext` in each folder of gb__data_dirs, under `data_sub` in a data folder and
 * `src_sub` in a source tree ("configs" and "configs" for profiles). The path into buf[len] and
 * true, or false (buf then lists the folders searched, "a, b"). */
bool gb__find_data(const char *name, const char *data_sub, const char *src_sub, const char *ext,
                   char *buf, size_t len);

/* The reference expectations `check` reads when given none (GB_EXPECT_DEFAULT_PATH in the
 * current folder, else reference/expectations.json of gb__data_dirs): the path into buf and
 * true, or false. */
bool gb__default_expect(char *buf, size_t len);

/* ---- profiles and runs --------------------------------------------------------------------- */

/* Loads the profile a->profile names (a path, or a profile's name: gb__find_data, so that
 * `run quick` works from any folder; p->path is the file read) with a's overrides into *p.
 * GB_EXIT_OK, or GB_EXIT_USAGE with the profile's "file:line:column: message" on stderr, or,
 * for a name found nowhere, the folders searched and the nearest profile name (nothing to free
 * then). */
enum gb_exit gb__load_profile(const struct gb__run_args *a, struct gb_profile *p);

/* One note on stderr per optional entry of p that the loader left out (p->absent): "gpubench CMD:
 * note: optional entry left out: REASON". */
void gb__note_absent(const char *cmd, const struct gb_profile *p);

/* Loads the profile and plans its cases on the devices a selects (--backend, --device, --suite).
 * GB_EXIT_OK with *p and *plan to free, or GB_EXIT_USAGE with the reason on stderr (no device
 * selected, a bad suite filter, no case at all) and nothing to free. */
enum gb_exit gb__prepare_plan(const struct gb__run_args *a, const char *cmd, struct gb_profile *p,
                              struct gb_plan *plan);

/* argv[0..argc) joined by spaces (truncated to len - 1), the command line a results file
 * records. Take it before parsing: getopt_long reorders argv. */
void gb__command_line(int argc, char **argv, char *buf, size_t len);

/* What a command that can run as its own supervised worker gets (calibrate, diag): argv after
 * main's, its command line (gb__command_line), the whole command line as main had it (kept
 * before getopt reorders it; what a worker runs again) and the supervisor's spec (GB_WORKER_ENV;
 * NULL when this process is not a worker). Returns an exit code. */
typedef int (*gb__worker_cmd)(int argc, char **argv, const char *command_line, char **worker_argv,
                              const char *spec);
/* A gb_command's main_full for such a command: takes the command line, a copy of full_argv and
 * the spec (unsetting GB_WORKER_ENV, so that what the command starts does not inherit it), runs
 * cmd and frees them. GB_EXIT_USAGE with "gpubench NAME: out of memory" when the copy fails. */
int gb__worker_main(const char *name, gb__worker_cmd cmd, int argc, char **argv, int full_argc,
                    char **full_argv);
/* The worker of such a command (run/supervise.h): the plan of this same command line (a,
 * gb__prepare_plan as command cmd), its cases from the supervisor's spec. Returns
 * gb_worker_run's exit status, or gb__prepare_plan's exit code when there is no plan. */
int gb__worker_run_plan(const struct gb__run_args *a, const char *cmd, const char *spec);

/* Fills a run's metadata: gpubench version and commit, start (= end) time in UTC now, host, OS,
 * the command line and the profile's path, name and SHA-256 (left alone when p is NULL: a run of
 * no profile). */
void gb__fill_meta(struct gb_run_meta *m, const struct gb_profile *p, const char *command_line);

/* Shuts every backend down (after a run; harmless for one never started). */
void gb__shutdown_backends(void);

/* From now on Ctrl-C and SIGTERM (what a CI timeout or a job scheduler sends) raise the returned
 * flag, for gb_runner_opts.stop: the runner stops after the current sample. A second signal
 * ends the program at once. */
volatile sig_atomic_t *gb__catch_stop_signals(void);

/* ---- output files -------------------------------------------------------------------------- */

/* The default place of a command's output: makes results/ when missing and writes
 * "results/<stem>-<stamp><ext>" to buf, stamp being the UTC time utc ("2024-05-01T02:30:00Z")
 * without its '-' and ':' ("20240501T023000Z"). A file (ext not empty) is reserved there, empty,
 * created exclusively: a name another run holds already (two runs started in one second, one a
 * device, replaced each other's results) gets "-2", "-3", ... before ext. GB_EXIT_OK, or
 * GB_EXIT_USAGE with the reason on stderr when results/ or the file cannot be made. */
enum gb_exit gb__default_output(const char *cmd, const char *stem, const char *utc, const char *ext,
                                char *buf, size_t len);

/* The UTC time now as "2024-05-01T02:30:00Z" into buf[len]. */
void gb__utc_now(char *buf, size_t len);

/* Checks an output path against the command's inputs with gb_output_refusal (base/util.h): an
 * input, a device node, a folder where a file is meant (or a file where a folder is meant), a
 * dangling symbolic link. GB_EXIT_OK, or GB_EXIT_USAGE after "gpubench CMD: cannot write OUT:
 * why" on stderr. Every command that writes calls it before it reads or runs anything more. */
enum gb_exit gb__check_output(const char *cmd, const char *out, enum gb_output_kind kind,
                              const char *const *inputs, size_t ninputs);

/* Whether the folder that would hold the file `out` is missing (or not a folder): true with
 * that folder's path in dir[len], for "the folder DIR for -o does not exist". */
bool gb__folder_missing(const char *out, char *dir, size_t len);
/* A folder `dir` that option `opt` names is created when missing, but not its parents (a
 * misspelt path would otherwise grow a tree of folders): GB_EXIT_OK when the folder above dir
 * exists, else GB_EXIT_USAGE with "the folder P for OPT does not exist" on stderr. */
enum gb_exit gb__check_dir_parent(const char *cmd, const char *opt, const char *dir);

/* gb__check_output for each of a command's file outputs outs[0..nouts) (NULL: not asked for),
 * named by their options in names[], and none twice: two outputs on one path (or one file, or
 * both on stdout "-") would leave one format in it, or both interleaved. GB_EXIT_OK, or
 * GB_EXIT_USAGE after "gpubench CMD: ..." on stderr. */
enum gb_exit gb__check_outputs(const char *cmd, const char *const *outs, const char *const *names,
                               size_t nouts, const char *const *inputs, size_t ninputs);

struct gb_inputs;
/* gb__check_outputs for a command that reads folders of results (fleet, history): the outputs
 * against the files read, in->paths (not against the folders, whose other files are not
 * inputs), and no ".json" output straight inside a folder among args[0..nargs), where the next
 * run would read it as a results file. */
enum gb_exit gb__check_set_outputs(const char *cmd, const char *const *outs,
                                   const char *const *names, size_t nouts, const char *const *args,
                                   size_t nargs, const struct gb_inputs *in);

/* Drops from paths[0..n) (in place, order kept) every path that names a file named earlier
 * (gb_files_duplicates), with a note on stderr for each, "gpubench CMD: note: ...: read once",
 * so that one file given twice is not two runs. Returns the new count. */
size_t gb__read_once(const char *cmd, const char **paths, size_t n);

/* stdout for a text table that quotes files' text (device names, reasons, labels): a
 * terminal-safe stream (gb_term_stream), or stdout itself when none can be made. Returns what
 * to write to; gb__term_done() flushes it and returns the write's status, 0 or EOF. */
FILE *gb__term_out(void);
int gb__term_done(FILE *f);

/* Opens path for writing, "-" meaning stdout; NULL with errno when it cannot. */
FILE *gb__open_out(const char *path);
/* Closes what gb__open_out opened (stdout is only flushed). 0, or EOF with errno. */
int gb__close_out(FILE *f);

/* Writes one output of command cmd: write(f, what) to standard output for "-", else to a
 * temporary file beside path renamed over it (gb_tmp_create), so that a failed write leaves the
 * old file whole and no reader sees half a file. GB_EXIT_OK, or GB_EXIT_USAGE with "gpubench
 * CMD: cannot write PATH: why" on stderr. */
enum gb_exit gb__write_output(const char *cmd, const char *path,
                              int (*write)(FILE *f, const void *what), const void *what);

/* Writes d as OpenMetrics text (the writer "openmetrics") to path, "-" meaning stdout: through a
 * temporary file beside it renamed over it (gb_tmp_create), so that node_exporter's textfile
 * collector, which may read the file at any moment, never sees half of it. GB_EXIT_OK, or
 * GB_EXIT_USAGE with "gpubench CMD: cannot write PATH: why" on stderr. */
enum gb_exit gb__write_metrics(const char *cmd, const char *path, const struct gb_doc *d);
#define GB__OPENMETRICS_HELP                                                           \
    "      --openmetrics FILE  also write the Prometheus text format\n"                \
    "                          (node_exporter's textfile collector; replaced whole,\n" \
    "                          never half-written; '-': stdout)\n"

/* A relative amount given as "0.05" or "5%" into *out, a fraction in [lo, hi]. 0, or GB_EINVAL
 * with "--NAME wants a relative amount such as 0.05 or 5%, got 'TEXT'" in gb_error_msg(). */
int gb__parse_fraction(const char *name, const char *text, double lo, double hi, double *out);

/* ---- --format: a document through a writer ------------------------------------------------ */

/* The --format option's help line, for commands whose output is a document. */
#define GB__FORMAT_HELP                                                           \
    "  -f, --format NAME       standard output in one of this build's formats:\n" \
    "                          " GB__FORMATS "\n"
/* The same for a document with a verdict (compare, check, fleet, calibrate). */
#define GB__FORMAT_HELP_JUDGED                                                    \
    "  -f, --format NAME       standard output in one of this build's formats:\n" \
    "                          " GB__FORMATS_JUDGED "\n"

/* Whether `format` (NULL: none asked for) names a writer of this build that fits a document
 * that is judged or not: GB_EXIT_OK, else GB_EXIT_USAGE with "gpubench CMD: no format ..."
 * naming the formats that fit. Checked before the work. */
enum gb_exit gb__check_format(const char *cmd, const char *format, bool judged);
/* The suites a comma list names (`-s`, fleet's and history's filter) that matched nothing read:
 * seen(ctx, name) says whether the files held that suite. A name that is neither in the files
 * nor a suite of this build is a usage error (a misspelt filter would pass a gate on nothing),
 * with the nearest suite's name; one this build knows that the files lack is a note. */
enum gb_exit gb__check_suite_filter(const char *cmd, const char *list,
                                    bool (*seen)(const void *ctx, const char *name),
                                    const void *ctx);
/* The same for the suites an option other than -s names (--suite-threshold,
 * --suite-tolerance): suites[0..nsuites), looked for in runs[0..nruns). */
enum gb_exit gb__check_suite_option(const char *cmd, const char *opt, const char *const *suites,
                                    size_t nsuites, const struct gb_results *const *runs,
                                    size_t nruns);
/* With `-f FORMAT` given (format not NULL), an output of outs[0..n) that is "-" would put a
 * second document on standard output: a usage error naming both (names[k]: the option). */
enum gb_exit gb__check_stdout(const char *cmd, const char *format, const char *const *outs,
                              const char *const *names, size_t n);
/* Renders d with the writer `format` on standard output: GB_EXIT_OK, or GB_EXIT_USAGE with
 * the error on stderr. */
enum gb_exit gb__write_format(const char *cmd, const char *format, const struct gb_doc *d);

/* Writes each line of `notes` to stderr as "PROG: note: LINE" (nothing for NULL or ""), on a
 * terminal wrapped at its words to the width. */
void gb__notes_to_stderr(const char *prog, const char *notes);

#endif
