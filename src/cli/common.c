/* gpubench — what the commands share (contracts in common.h). */
#include "suites/suites.h"
#include "common.h"
#include "outputs/writer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "run/footprint.h"
#include "run/supervise.h"
#include "analyses/merge.h"
#include "analyses/expect.h"
#include "gb-config.h"
#include "gb-version.h"

/* ---- options ------------------------------------------------------------------------------- */

#define MAX_OPTS 48

/* Every option of the groups in one list, each with where its value goes. */
struct flat_opt {
    const struct gb__opt *opt;
    void *target;
};

/* Stores or parses one option's value (NULL for an option without one). */
static int take(const struct flat_opt *f, const char *value)
{
    if (f->opt->parse)
        return f->opt->parse(f->target, f->opt->name, value);
    if (f->opt->takes_value)
        *(const char **)f->target = value;
    else
        *(bool *)f->target = true;
    return 0;
}

/* The option getopt_long has just refused: the argument "--name..." that held a long one, else
 * "-x" for a short one (optopt; the argument may hold several, "-qx"). */
static void refused_text(int argc, char **argv, char *buf, size_t len)
{
    const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    if (strncmp(arg, "--", 2) != 0 && optopt > 0 && optopt < 256)
        snprintf(buf, len, "-%c", optopt);
    else
        snprintf(buf, len, "%s", arg);
}

/* ", did you mean --NAME?" into buf when the refused option `text` ("--nmae=1", "-Z") is near
 * the long name of an option of the table (or "--help"); else an empty buf. */
static void suggest_option(const char *text, const struct flat_opt *flat, size_t n, char *buf,
                           size_t len)
{
    buf[0] = '\0';
    if (strncmp(text, "--", 2) != 0)
        return;
    char given[128];
    size_t len_given = strcspn(text + 2, "=");
    snprintf(given, sizeof given, "%.*s", (int)(len_given < 127 ? len_given : 127), text + 2);
    const char *names[MAX_OPTS + 1];
    for (size_t i = 0; i < n; i++)
        names[i] = flat[i].opt->name;
    names[n] = "help";
    const char *near = gb_did_you_mean(given, names, n + 1);
    if (near)
        snprintf(buf, len, " (did you mean --%s?)", near);
}

/* The operands argv[first..argc) against what c takes: GB_EXIT_OK or a usage error. */
static enum gb_exit count_operands(const struct gb__cmd *c, int argc, char **argv, int first)
{
    int n = argc - first;
    if (n > 0 && c->max_operands == 0)
        return gb__usage_error(c, "takes no operand ('%s')", argv[first]);
    if (n >= c->min_operands && (c->max_operands < 0 || n <= c->max_operands))
        return GB_EXIT_OK;
    if (n == 0 && c->missing)
        return gb__usage_error(c, "missing %s", c->missing);
    return gb__usage_error(c, "expects %s", c->expects);
}

int gb__parse_options(const struct gb__cmd *c, int argc, char **argv,
                      const struct gb__opt_group *groups, enum gb_exit *rc)
{
    struct flat_opt flat[MAX_OPTS];
    struct option longopts[MAX_OPTS + 2];
    char shortopts[3 * MAX_OPTS + 4] = ":h";
    size_t n = 0;
    for (const struct gb__opt_group *g = groups; g->opts; g++)
        for (const struct gb__opt *o = g->opts; o->name && n < MAX_OPTS; o++, n++) {
            flat[n] = (struct flat_opt){o, (char *)g->base + o->offset};
            longopts[n] = (struct option){o->name, o->takes_value ? required_argument : no_argument,
                                          NULL, o->letter ? o->letter : 256 + (int)n};
            if (o->letter)
                gb_appendf(shortopts, sizeof shortopts, "%c%s", o->letter,
                           o->takes_value ? ":" : "");
        }
    longopts[n] = (struct option){"help", no_argument, NULL, 'h'};
    longopts[n + 1] = (struct option){NULL, 0, NULL, 0};

    optind = 0; /* a full restart of GNU getopt, its permutation state included */
    opterr = 0; /* the messages below name the command */
    int ch;
    while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (ch == 'h') {
            gb__print_usage(stdout, c->usage);
            *rc = GB_EXIT_OK;
            return -1;
        }
        char text[256];
        if (ch == '?' || ch == ':') {
            refused_text(argc, argv, text, sizeof text);
            if (ch == ':') {
                *rc = gb__usage_error(c, "%s needs a value", text);
                return -1;
            }
            char near[300] = "";
            suggest_option(text, flat, n, near, sizeof near);
            *rc = gb__usage_error(c, "unknown option '%s'%s", text, near);
            return -1;
        }
        const struct flat_opt *f = NULL;
        for (size_t i = 0; i < n && !f; i++)
            if (ch == (flat[i].opt->letter ? flat[i].opt->letter : 256 + (int)i))
                f = &flat[i];
        gb_error_clear();
        if (!f || take(f, optarg) != 0) {
            *rc = gb__usage_error(c, "%s", f ? gb_error_msg() : "internal option error");
            return -1;
        }
    }
    if ((*rc = count_operands(c, argc, argv, optind)) != GB_EXIT_OK)
        return -1;
    return optind;
}

enum gb_exit gb__usage_error(const struct gb__cmd *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gpubench %s: ", c->name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "; see gpubench %s --help\n", c->name);
    va_end(ap);
    return GB_EXIT_USAGE;
}

void gb__print_usage(FILE *f, const char *usage)
{
    static const struct {
        const char *mark;
        bool judged;
    } marks[] = {{GB__FORMATS, false}, {GB__FORMATS_JUDGED, true}};
    const char *p = usage;
    while (*p) {
        const char *next = NULL;
        size_t m = 0;
        for (size_t k = 0; k < 2; k++) {
            const char *at = strstr(p, marks[k].mark);
            if (at && (!next || at < next)) {
                next = at;
                m = k;
            }
        }
        if (!next) {
            fputs(p, f);
            break;
        }
        char names[256];
        fprintf(f, "%.*s%s", (int)(next - p), p,
                gb_writer_names(marks[m].judged, names, sizeof names));
        p = next + strlen(marks[m].mark);
    }
}

/* --set KEY=VALUE into the run's overrides. */
static int parse_set(void *target, const char *name, const char *value)
{
    struct gb__run_args *a = target;
    const char *eq = strchr(value, '=');
    if (!eq || eq == value)
        return GB_USER_FAIL(GB_EINVAL, "--%s wants KEY=VALUE, got '%s'", name, value);
    if (strlen(value) >= sizeof a->set_text[0])
        return GB_USER_FAIL(GB_EINVAL, "--%s: at most %zu characters", name,
                            sizeof a->set_text[0] - 1);
    if (a->nsets == GB__MAX_SETS)
        return GB_USER_FAIL(GB_EINVAL, "at most %d --%s options", GB__MAX_SETS, name);
    char *s = a->set_text[a->nsets];
    snprintf(s, sizeof a->set_text[0], "%s", value);
    s[eq - value] = '\0';
    a->sets[a->nsets].key = s;
    a->sets[a->nsets].value = s + (eq - value) + 1;
    a->nsets++;
    return 0;
}

const struct gb__opt gb__run_options[] = {
    GB__TEXT(struct gb__run_args, out, "output", 'o'),
    GB__TEXT(struct gb__run_args, backend, "backend", 'b'),
    GB__TEXT(struct gb__run_args, device, "device", 'd'),
    GB__TEXT(struct gb__run_args, suite, "suite", 's'),
    GB__PARSED("set", 0, true, parse_set),
    GB__FLAG(struct gb__run_args, quiet, "quiet", 'q'),
    GB__FLAG(struct gb__run_args, verbose, "verbose", 'v'),
    GB__END,
};

bool gb__parse_run_args(const struct gb__cmd *c, int argc, char **argv, struct gb__run_args *a,
                        enum gb_exit *rc)
{
    int first = gb__parse_options(c, argc, argv, GB__GROUPS({gb__run_options, a}), rc);
    if (first < 0)
        return false;
    a->profile = argv[first];
    if (a->verbose)
        gb_error_log_to(stderr);
    return true;
}

static int parse_compare(void *target, const char *name, const char *value)
{
    return gb_compare_set_option(target, name, value);
}

const struct gb__opt gb__compare_options[] = {
    GB__PARSED("threshold", 0, true, parse_compare),
    GB__PARSED("suite-threshold", 0, true, parse_compare),
    GB__PARSED("alpha", 0, true, parse_compare),
    GB__PARSED("fail-on-faster", 0, false, parse_compare),
    GB__PARSED("across-devices", 0, false, parse_compare),
    GB__END,
};

/* ---- files by name: profiles, reference expectations ---------------------------------------- */

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

size_t gb__data_dirs(char dirs[][4096], bool source[], size_t max)
{
    size_t n = 0;
    char exe[4096];
    ssize_t got = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (got > 0 && GB_DATA_FROM_BIN[0] && n < max) {
        exe[got] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            char beside[4096 + 64];
            snprintf(beside, sizeof beside, "%s/%s", exe, GB_DATA_FROM_BIN);
            if (is_dir(beside) && realpath(beside, dirs[n])) {
                source[n] = false;
                n++;
            }
        }
    }
    const char *src = getenv("GPUBENCH_SOURCE_DIR");
    if (!src)
        src = GB_SOURCE_DIR;
    if (src[0] && n < max && is_dir(src)) {
        snprintf(dirs[n], 4096, "%s", src);
        source[n++] = true;
    }
    if (n < max && is_dir(GB_DATA_DIR) && (n == 0 || source[0] || strcmp(dirs[0], GB_DATA_DIR))) {
        snprintf(dirs[n], 4096, "%s", GB_DATA_DIR);
        source[n++] = false;
    }
    return n;
}

bool gb__find_data(const char *name, const char *data_sub, const char *src_sub, const char *ext,
                   char *buf, size_t len)
{
    struct stat st;
    /* A file here, or a path, is taken as given; a folder of that name here (configs/ holds
     * kernel-check/ beside kernel-check.yaml) does not hide the profile of that name. */
    if ((stat(name, &st) == 0 && !S_ISDIR(st.st_mode)) || strchr(name, '/')) {
        snprintf(buf, len, "%s", name);
        return stat(name, &st) == 0;
    }
    char dirs[3][4096];
    bool source[3];
    size_t n = gb__data_dirs(dirs, source, 3);
    char looked[2048] = "";
    for (size_t k = 0; k < n; k++) {
        const char *sub = source[k] ? src_sub : data_sub;
        for (int with_ext = 0; with_ext < 2; with_ext++) {
            snprintf(buf, len, "%s/%s/%s%s", dirs[k], sub, name, with_ext ? ext : "");
            if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
                return true;
        }
        gb_appendf(looked, sizeof looked, "%s%s/%s", k ? ", " : "", dirs[k], sub);
    }
    snprintf(buf, len, "%s", looked);
    return false;
}

bool gb__default_expect(char *buf, size_t len)
{
    if (access(GB_EXPECT_DEFAULT_PATH, R_OK) == 0) {
        snprintf(buf, len, "%s", GB_EXPECT_DEFAULT_PATH);
        return true;
    }
    return gb__find_data("expectations.json", "reference", "results/reference", "", buf, len) &&
           access(buf, R_OK) == 0;
}

/* The names of the profiles (*.yaml, less the extension) in the profile folders of
 * gb__data_dirs, into names[0..max) backed by store; how many. */
static size_t profile_names(char store[][128], const char **names, size_t max)
{
    char dirs[3][4096];
    bool source[3];
    size_t nd = gb__data_dirs(dirs, source, 3), n = 0;
    for (size_t k = 0; k < nd; k++) {
        char path[4096 + 16];
        snprintf(path, sizeof path, "%s/configs", dirs[k]);
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && n < max && (e = readdir(d))) {
            size_t l = strlen(e->d_name);
            if (l > 5 && l < 128 && strcmp(e->d_name + l - 5, ".yaml") == 0) {
                snprintf(store[n], 128, "%.*s", (int)(l - 5), e->d_name);
                names[n] = store[n];
                n++;
            }
        }
        if (d)
            closedir(d);
    }
    return n;
}

/* ---- profiles and runs --------------------------------------------------------------------- */

enum gb_exit gb__load_profile(const struct gb__run_args *a, struct gb_profile *p)
{
    char err[2048];
    uint64_t host_cap;
    gb_error_clear();
    if (gb_host_memory_env(&host_cap)) { /* the same for run, validate and calibrate */
        fprintf(stderr, "gpubench: %s\n", gb_error_msg());
        return GB_EXIT_USAGE;
    }
    char path[4096 + 256];
    if (!gb__find_data(a->profile, "configs", "configs", ".yaml", path, sizeof path) &&
        !strchr(a->profile, '/')) {
        char store[128][128];
        const char *names[128];
        size_t n = profile_names(store, names, 128);
        const char *near = gb_did_you_mean(a->profile, names, n);
        fprintf(stderr, "%s: no such profile: not a file here, nor %s.yaml in %s%s%s%s\n",
                a->profile, a->profile, path[0] ? path : "(no profile folder)",
                near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
        return GB_EXIT_USAGE;
    }
    if (gb_profile_load(gb_suites_builtin(), path, a->sets, a->nsets, p, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return GB_EXIT_USAGE;
    }
    return GB_EXIT_OK;
}

void gb__note_absent(const char *cmd, const struct gb_profile *p)
{
    for (size_t i = 0; i < p->nabsent; i++)
        fprintf(stderr, "gpubench %s: note: optional entry left out: %s\n", cmd,
                p->absent[i].reason);
}

enum gb_exit gb__prepare_plan(const struct gb__run_args *a, const char *cmd, struct gb_profile *p,
                              struct gb_plan *plan)
{
    enum gb_exit rc = gb__load_profile(a, p);
    if (rc != GB_EXIT_OK)
        return rc;
    memset(plan, 0, sizeof *plan);
    gb_error_clear();
    if (gb_plan_devices(p, a->backend, a->device, plan)) {
        fprintf(stderr, "gpubench %s: %s\n", cmd, gb_error_msg());
        gb_plan_free(plan);
        gb_profile_free(p);
        return GB_EXIT_USAGE;
    }
    gb_error_clear();
    int err = gb_plan_expand(p, a->suite, plan);
    if (err || plan->ncases == 0) {
        fprintf(stderr, "gpubench %s: %s\n", cmd,
                err ? gb_error_msg() : "the profile and --suite select no case");
        gb_plan_free(plan);
        gb_profile_free(p);
        return GB_EXIT_USAGE;
    }
    return GB_EXIT_OK;
}

void gb__command_line(int argc, char **argv, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < argc; i++)
        gb_appendf(buf, len, "%s%s", i ? " " : "", argv[i]);
}

int gb__worker_main(const char *name, gb__worker_cmd cmd, int argc, char **argv, int full_argc,
                    char **full_argv)
{
    char command_line[2048];
    gb__command_line(full_argc, full_argv, command_line, sizeof command_line);
    /* A worker runs the same command: keep it before getopt reorders it. */
    char **worker_argv = calloc((size_t)full_argc + 1, sizeof *worker_argv);
    char *spec = getenv(GB_WORKER_ENV) ? strdup(getenv(GB_WORKER_ENV)) : NULL;
    unsetenv(GB_WORKER_ENV);
    if (!worker_argv) {
        free(spec);
        fprintf(stderr, "gpubench %s: out of memory\n", name);
        return GB_EXIT_USAGE;
    }
    memcpy(worker_argv, full_argv, (size_t)full_argc * sizeof *worker_argv);
    int rc = cmd(argc, argv, command_line, worker_argv, spec);
    free(worker_argv);
    free(spec);
    return rc;
}

int gb__worker_run_plan(const struct gb__run_args *a, const char *cmd, const char *spec)
{
    struct gb_profile p;
    struct gb_plan plan;
    enum gb_exit rc = gb__prepare_plan(a, cmd, &p, &plan);
    if (rc != GB_EXIT_OK)
        return rc;
    int st = gb_worker_run(&plan, spec);
    gb_plan_free(&plan);
    gb_profile_free(&p);
    gb__shutdown_backends();
    return st;
}

void gb__utc_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void gb__fill_meta(struct gb_run_meta *m, const struct gb_profile *p, const char *command_line)
{
    snprintf(m->gpubench_version, sizeof m->gpubench_version, "%s", GB_VERSION);
    snprintf(m->git_commit, sizeof m->git_commit, "%s", GB_GIT_COMMIT);
    gb__utc_now(m->start_utc, sizeof m->start_utc);
    snprintf(m->end_utc, sizeof m->end_utc, "%s", m->start_utc);
    if (gethostname(m->host, sizeof m->host) != 0)
        snprintf(m->host, sizeof m->host, "unknown");
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(m->os, sizeof m->os, "%s %s %s", u.sysname, u.release, u.machine);
    snprintf(m->command_line, sizeof m->command_line, "%s", command_line);
    if (!p)
        return;
    snprintf(m->profile_path, sizeof m->profile_path, "%s", p->path);
    snprintf(m->profile_name, sizeof m->profile_name, "%s", p->name);
    snprintf(m->profile_sha256, sizeof m->profile_sha256, "%s", p->sha256);
}

void gb__shutdown_backends(void)
{
    for (size_t b = 0; b < gb_backend_count; b++)
        gb_backends[b]->shutdown();
}

static volatile sig_atomic_t stop_flag;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
    /* A second signal ends the program at once. */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
}

volatile sig_atomic_t *gb__catch_stop_signals(void)
{
    struct sigaction sa = {.sa_handler = on_stop_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return &stop_flag;
}

/* ---- output files -------------------------------------------------------------------------- */

enum gb_exit gb__default_output(const char *cmd, const char *stem, const char *utc, const char *ext,
                                char *buf, size_t len)
{
    char stamp[32];
    snprintf(stamp, sizeof stamp, "%s", utc);
    for (char *s = stamp; *s; s++)
        if (*s == ':' || *s == '-')
            memmove(s, s + 1, strlen(s));
    if (mkdir("results", 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "gpubench %s: cannot create results/: %s\n", cmd, strerror(errno));
        return GB_EXIT_USAGE;
    }
    snprintf(buf, len, "results/%s-%s%s", stem, stamp, ext);
    if (!ext[0])
        return GB_EXIT_OK;
    for (int k = 2; k < 1000; k++) {
        int fd = open(buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            close(fd);
            return GB_EXIT_OK;
        }
        if (errno != EEXIST)
            break;
        snprintf(buf, len, "results/%s-%s-%d%s", stem, stamp, k, ext);
    }
    fprintf(stderr, "gpubench %s: cannot create %s: %s\n", cmd, buf, strerror(errno));
    return GB_EXIT_USAGE;
}

/* The folder of path into dir ("." when path names none; "/" for a file in the root), and
 * returns its last component. */
static const char *split_parent(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, len, ".");
        return path;
    }
    snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    return slash + 1;
}

enum gb_exit gb__check_output(const char *cmd, const char *out, enum gb_output_kind kind,
                              const char *const *inputs, size_t ninputs)
{
    char why[GB_PATH_JOIN];
    if (strcmp(out, "-") == 0) {
        /* The callers that take "-" for standard output handle it before this check. */
        fprintf(stderr,
                "gpubench %s: cannot write -: this output needs a file name ('-' is not "
                "standard output here)\n",
                cmd);
        return GB_EXIT_USAGE;
    }
    if (gb_output_refusal(out, kind, inputs, ninputs, why, sizeof why) != 0) {
        fprintf(stderr, "gpubench %s: cannot write %s: %s\n", cmd, out, why);
        return GB_EXIT_USAGE;
    }
    /* A file's folder must exist: found now, not after the work is done. */
    char dir[PATH_MAX];
    if (kind == GB_OUTPUT_FILE && gb__folder_missing(out, dir, sizeof dir)) {
        fprintf(stderr, "gpubench %s: cannot write %s: the folder %s does not exist\n", cmd, out,
                dir);
        return GB_EXIT_USAGE;
    }
    return GB_EXIT_OK;
}

bool gb__folder_missing(const char *out, char *dir, size_t len)
{
    struct stat st;
    split_parent(out, dir, len);
    return stat(dir, &st) != 0 || !S_ISDIR(st.st_mode);
}

enum gb_exit gb__check_dir_parent(const char *cmd, const char *opt, const char *dir)
{
    char path[PATH_MAX], parent[PATH_MAX];
    snprintf(path, sizeof path, "%s", dir);
    /* "out/" names the folder out: its parent is the one above out. */
    for (size_t n = strlen(path); n > 1 && path[n - 1] == '/'; n--)
        path[n - 1] = '\0';
    if (!gb__folder_missing(path, parent, sizeof parent))
        return GB_EXIT_OK;
    fprintf(stderr, "gpubench %s: the folder %s for %s does not exist\n", cmd, parent, opt);
    return GB_EXIT_USAGE;
}

FILE *gb__open_out(const char *path)
{
    return strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
}

int gb__close_out(FILE *f)
{
    if (f == stdout)
        return fflush(f);
    return fclose(f);
}

enum gb_exit gb__write_output(const char *cmd, const char *path,
                              int (*write)(FILE *f, const void *what), const void *what)
{
    if (strcmp(path, "-") == 0) {
        gb_error_clear();
        int rc = write(stdout, what);
        if (rc || fflush(stdout)) {
            fprintf(stderr, "gpubench %s: cannot write to standard output: %s\n", cmd,
                    rc && gb_error_msg()[0] ? gb_error_msg() : strerror(errno));
            return GB_EXIT_USAGE;
        }
        return GB_EXIT_OK;
    }
    /* Through a temporary file renamed over path: a write that fails (a full disk) leaves the
     * file that was there, never half of the new one, and a reader (a collector, the next
     * command) sees the old file or the new, whole. */
    char target[PATH_MAX], tmp[PATH_MAX + 64];
    const char *to = gb_output_resolve(path, target, sizeof target);
    int fd = to ? gb_tmp_create(to, tmp, sizeof tmp) : -1;
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "gpubench %s: cannot write %s: %s\n", cmd, path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        return GB_EXIT_USAGE;
    }
    gb_error_clear();
    int rc = write(f, what);
    int closed = fclose(f);
    if (rc || closed || rename(tmp, to) != 0) {
        fprintf(stderr, "gpubench %s: cannot write %s: %s\n", cmd, path,
                rc && gb_error_msg()[0] ? gb_error_msg() : strerror(errno));
        unlink(tmp);
        return GB_EXIT_USAGE;
    }
    return GB_EXIT_OK;
}

int gb__parse_fraction(const char *name, const char *text, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end != text && !errno && *end == '%') {
        v /= 100.0;
        end++;
    }
    if (end == text || errno || *end || !(v >= lo && v <= hi))
        return GB_FAIL(GB_EINVAL, "--%s wants a relative amount such as 0.05 or 5%%, got '%s'",
                       name, text);
    *out = v;
    return 0;
}

FILE *gb__term_out(void)
{
    FILE *t = gb_term_stream(stdout);
    return t ? t : stdout;
}

int gb__term_done(FILE *f)
{
    return f == stdout ? fflush(f) : fclose(f);
}

size_t gb__read_once(const char *cmd, const char **paths, size_t n)
{
    bool *dup = calloc(n ? n : 1, sizeof *dup);
    if (!dup || gb_files_duplicates(paths, n, dup) == 0) {
        free(dup);
        return n;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (dup[i])
            fprintf(stderr, "gpubench %s: note: %s is a file already given: read once\n", cmd,
                    paths[i]);
        else
            paths[k++] = paths[i];
    }
    free(dup);
    return k;
}

/* A path that may not exist yet, as its resolved folder and its name ("./x" and "$PWD/x" alike).
 * False when the folder cannot be resolved. */
static bool canonical(const char *path, char *buf, size_t len)
{
    char dir[PATH_MAX], rd[PATH_MAX];
    const char *name = split_parent(path, dir, sizeof dir);
    if (!realpath(dir, rd))
        return false;
    snprintf(buf, len, "%s/%s", rd, name);
    return true;
}

enum gb_exit gb__check_outputs(const char *cmd, const char *const *outs, const char *const *names,
                               size_t nouts, const char *const *inputs, size_t ninputs)
{
    enum gb_exit rc;
    for (size_t k = 0; k < nouts; k++) {
        if (!outs[k])
            continue;
        char dir[PATH_MAX];
        if (strcmp(outs[k], "-") != 0 && gb__folder_missing(outs[k], dir, sizeof dir)) {
            fprintf(stderr, "gpubench %s: the folder %s for %s does not exist\n", cmd, dir,
                    names[k]);
            return GB_EXIT_USAGE;
        }
        if (strcmp(outs[k], "-") != 0 &&
            (rc = gb__check_output(cmd, outs[k], GB_OUTPUT_FILE, inputs, ninputs)) != GB_EXIT_OK)
            return rc;
        for (size_t j = 0; j < k; j++) {
            if (!outs[j])
                continue;
            struct stat a, b;
            char cj[PATH_MAX + 256], ck[PATH_MAX + 256];
            bool same = strcmp(outs[j], outs[k]) == 0 ||
                        (stat(outs[j], &a) == 0 && stat(outs[k], &b) == 0 && a.st_dev == b.st_dev &&
                         a.st_ino == b.st_ino) ||
                        (canonical(outs[j], cj, sizeof cj) && canonical(outs[k], ck, sizeof ck) &&
                         strcmp(cj, ck) == 0);
            if (same) {
                fprintf(stderr,
                        "gpubench %s: cannot write %s: %s and %s both name it: give each "
                        "output its own file\n",
                        cmd, outs[k], names[j], names[k]);
                return GB_EXIT_USAGE;
            }
        }
    }
    return GB_EXIT_OK;
}

enum gb_exit gb__check_set_outputs(const char *cmd, const char *const *outs,
                                   const char *const *names, size_t nouts, const char *const *args,
                                   size_t nargs, const struct gb_inputs *in)
{
    enum gb_exit rc =
        gb__check_outputs(cmd, outs, names, nouts, (const char *const *)in->paths, in->n);
    for (size_t k = 0; rc == GB_EXIT_OK && k < nouts; k++) {
        size_t len = outs[k] ? strlen(outs[k]) : 0;
        if (len < 5 || strcmp(outs[k] + len - 5, ".json") != 0)
            continue;
        char dir[PATH_MAX], parent[PATH_MAX], ra[PATH_MAX];
        split_parent(outs[k], dir, sizeof dir);
        if (!realpath(dir, parent))
            continue;
        for (size_t a = 0; a < nargs; a++) {
            struct stat st;
            if (stat(args[a], &st) == 0 && S_ISDIR(st.st_mode) && realpath(args[a], ra) &&
                strcmp(ra, parent) == 0) {
                fprintf(stderr,
                        "gpubench %s: cannot write %s: a .json file in the input folder %s, "
                        "which the next run would read as a results file\n",
                        cmd, outs[k], args[a]);
                rc = GB_EXIT_USAGE;
                break;
            }
        }
    }
    return rc;
}

/* ---- --format ---------------------------------------------------------------------------- */

enum gb_exit gb__check_stdout(const char *cmd, const char *format, const char *const *outs,
                              const char *const *names, size_t n)
{
    for (size_t k = 0; format && k < n; k++)
        if (outs[k] && strcmp(outs[k], "-") == 0) {
            fprintf(stderr,
                    "gpubench %s: cannot write standard output twice: -f %s and %s - both "
                    "write to it: give %s a file\n",
                    cmd, format, names[k], names[k]);
            return GB_EXIT_USAGE;
        }
    return GB_EXIT_OK;
}

/* The check of gb__check_suite_filter for the suites names[0..n) that option `opt` gave. */
static enum gb_exit check_suite_names(const char *cmd, const char *opt, const char *const *given,
                                      size_t ngiven,
                                      bool (*seen)(const void *ctx, const char *name),
                                      const void *ctx)
{
    const struct gb_suite_table *t = gb_suites_builtin();
    const char *names[64];
    size_t n = 0;
    for (size_t i = 0; i < t->n && n < 64; i++)
        names[n++] = t->v[i]->name;
    for (size_t g = 0; g < ngiven; g++) {
        const char *name = given[g];
        if (!name[0] || seen(ctx, name))
            continue;
        bool known = false;
        for (size_t k = 0; k < n && !known; k++)
            known = strcmp(names[k], name) == 0;
        if (known) {
            fprintf(stderr, "gpubench %s: note: no result of suite %s in these files\n", cmd, name);
            continue;
        }
        const char *near = gb_did_you_mean(name, names, n);
        fprintf(stderr,
                "gpubench %s: %s names '%s': no suite of that name in these files or this "
                "build%s%s%s; see gpubench suites\n",
                cmd, opt, name, near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
        return GB_EXIT_USAGE;
    }
    return GB_EXIT_OK;
}

enum gb_exit gb__check_suite_filter(const char *cmd, const char *list,
                                    bool (*seen)(const void *ctx, const char *name),
                                    const void *ctx)
{
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
        p += len + (p[len] == ',');
        const char *one = name;
        enum gb_exit rc = check_suite_names(cmd, "-s", &one, 1, seen, ctx);
        if (rc != GB_EXIT_OK)
            return rc;
    }
    return GB_EXIT_OK;
}

struct read_runs {
    const struct gb_results *const *runs;
    size_t n;
};

/* Whether one of the results files read (a struct read_runs) holds a result of suite `name`. */
static bool results_have_suite(const void *ctx, const char *name)
{
    const struct read_runs *r = ctx;
    for (size_t i = 0; i < r->n; i++)
        for (size_t k = 0; k < r->runs[i]->nresults; k++)
            if (strcmp(r->runs[i]->results[k].suite, name) == 0)
                return true;
    return false;
}

enum gb_exit gb__check_suite_option(const char *cmd, const char *opt, const char *const *suites,
                                    size_t nsuites, const struct gb_results *const *runs,
                                    size_t nruns)
{
    struct read_runs r = {runs, nruns};
    return check_suite_names(cmd, opt, suites, nsuites, results_have_suite, &r);
}

enum gb_exit gb__check_format(const char *cmd, const char *format, bool judged)
{
    if (!format || gb_writer_fits(gb_writer_find(format), judged))
        return GB_EXIT_OK;
    char names[256];
    fprintf(stderr, "gpubench %s: no format '%s' (formats: %s)\n", cmd, format,
            gb_writer_names(judged, names, sizeof names));
    return GB_EXIT_USAGE;
}

enum gb_exit gb__write_format(const char *cmd, const char *format, const struct gb_doc *d)
{
    gb_error_clear();
    if (gb_write_doc(stdout, format, d) != 0 || fflush(stdout) != 0) {
        fprintf(stderr, "gpubench %s: writing the %s output: %s\n", cmd, format,
                *gb_error_msg() ? gb_error_msg() : strerror(errno));
        return GB_EXIT_USAGE;
    }
    return GB_EXIT_OK;
}

static int write_openmetrics_doc(FILE *f, const void *d)
{
    return gb_write_doc(f, "openmetrics", d);
}

enum gb_exit gb__write_metrics(const char *cmd, const char *path, const struct gb_doc *d)
{
    return gb__write_output(cmd, path, write_openmetrics_doc, d);
}

void gb__notes_to_stderr(const char *prog, const char *notes)
{
    /* on a terminal, each note wrapped at its words to the width, its lines after the first
     * indented two spaces (a file or a pipe keeps each note one line) */
    const size_t width = (size_t)(gb_write_width(stderr) > 0 ? gb_write_width(stderr) : 0);
    for (const char *s = notes; s && *s;) {
        size_t l = strcspn(s, "\n"), col = (size_t)fprintf(stderr, "%s: note:", prog);
        for (size_t i = 0; i < l;) {
            while (i < l && s[i] == ' ')
                i++;
            size_t n = 0;
            while (i + n < l && s[i + n] != ' ')
                n++;
            if (!n)
                break;
            if (width && col + 1 + n > width && col > 2) {
                fputs("\n ", stderr);
                col = 1;
            }
            col += (size_t)fprintf(stderr, " %.*s", (int)n, s + i);
            i += n;
        }
        fputc('\n', stderr);
        s += l + (s[l] == '\n');
    }
}
