/* gpubench — the command line. The only file that decides exit codes:
 * 0 ok, 1 some case failed, 2 usage / profile / device-selection error, 3 regression (compare),
 * 130 interrupted by Ctrl-C (the results file still holds every finished case). */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "commands/commands.h"
#include "compare/compare.h"
#include "harness/config.h"
#include "gb-config.h"
#include "gb-version.h"
#include "harness/plan.h"
#include "harness/precision.h"
#include "report/report.h"
#include "harness/results.h"
#include "harness/runner.h"
#include "base/units.h"
#include "base/util.h"

enum { EXIT_OK = 0, EXIT_CASE_FAILED = 1, EXIT_USAGE = 2, EXIT_INTERRUPTED = 130 };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gpubench COMMAND [OPTIONS]\n"
            "\n"
            "commands:\n"
            "  devices [--json]            list backends and devices (an unavailable backend says "
            "why)\n"
            "  run PROFILE [OPTIONS]       run a YAML profile and write a results file\n"
            "      -o, --output FILE       results file (default results/NAME-UTCTIME.json)\n"
            "      -b, --backend NAME      only this backend (opencl, cuda)\n"
            "      -d, --device SEL        devices: all, or a comma list of indices (1),\n"
            "                              backend:index (opencl:1) or name substrings\n"
            "      -s, --suite LIST        only these suites (comma-separated)\n"
            "          --set KEY=VALUE     override a profile key, e.g. measure.max_time=0.5s,\n"
            "                              transfer.params.size=[1MiB,4MiB] (repeatable)\n"
            "      -q, --quiet             no progress line on stderr\n"
            "  validate PROFILE [--set ..] check a profile and show how many cases it expands to\n"
            "  suites                      list the suites and their axes with default sweeps\n"
            "  compare BASE NEW [OPTIONS]  regression verdict per case (see compare --help);\n"
            "                              exit 0 clean, 3 regression, 2 bad input\n"
            "  calibrate PROFILE [-n RUNS] [--dir DIR] [run and compare options]\n"
            "                              A/A runs: run-to-run noise per case and the threshold\n"
            "                              that raises no false alarm (--from FILE... reuses runs)\n"
            "  baseline RESULTS [--dir D]  promote a run to results/baselines/<host>-<device>-<profile>.json\n"
            "  report RESULTS... -o DIR    HTML + Markdown report with gnuplot charts\n"
            "                              [--prices prices.yaml] [--title TEXT]\n"
            "  fleet DIR|FILES...          per-node tables, outlier nodes (exit 3; fleet --help)\n"
            "  history DIR|FILES...        nightly series and change points (history --help)\n"
            "  --help, --version\n"
            "\n"
            "exit status: 0 ok, 1 a case failed, 2 usage, profile or device error, 3 regression\n"
            "(compare), 130 interrupted\n");
}

static volatile sig_atomic_t stop_flag;

static void on_sigint(int sig)
{
    (void)sig;
    stop_flag = 1;
    /* A second signal ends the program at once. */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
}

static const char *cap_names[] = {"fp64",      "fp16",      "bf16",      "int8_dot",
                                  "peer",      "unified",   "blas_f32",  "blas_f64",
                                  "blas_f16",  "blas_bf16", "blas_mixed", "blas_tf32",
                                  "graph"};

static void caps_text(uint64_t caps, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof cap_names / sizeof cap_names[0]; i++)
        if (caps & (1ull << i))
            gb_appendf(buf, len, "%s%s", buf[0] ? "," : "", cap_names[i]);
}

/* "3.82 GiB", "512 KiB": for people, unlike gb_format_size which is exact. */
static char *human_bytes(uint64_t b, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    size_t u = 0;
    while (v >= 1024 && u < 4)
        v /= 1024, u++;
    snprintf(buf, len, u ? "%.2f %s" : "%.0f %s", v, unit[u]);
    return buf;
}

static int cmd_devices(int argc, char **argv)
{
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else {
            fprintf(stderr, "gpubench devices: unknown option '%s'\n", argv[i]);
            return EXIT_USAGE;
        }
    }
    struct gb_backend_status st[8];
    gb_backends_probe(st);
    json_t *root = json_array();
    for (size_t b = 0; b < gb_backend_count; b++) {
        json_t *jb = json_pack("{s:s, s:b}", "backend", st[b].ops->name, "available", !st[b].err);
        if (st[b].err) {
            json_object_set_new(jb, "reason", json_string(st[b].reason));
            if (!json)
                printf("%s: unavailable (%s)\n", st[b].ops->name, st[b].reason);
            json_array_append_new(root, jb);
            continue;
        }
        if (!json)
            printf("%s: %d device%s\n", st[b].ops->name, st[b].ndevices,
                   st[b].ndevices == 1 ? "" : "s");
        json_t *jd = json_array();
        for (int i = 0; i < st[b].ndevices; i++) {
            struct gb_device_info d;
            if (st[b].ops->device_info(i, &d)) {
                if (!json)
                    printf("  [%d] (cannot describe: %s)\n", i, gb_error_msg());
                continue;
            }
            char caps[256], mem[32], alloc[32], local[32];
            caps_text(d.caps, caps, sizeof caps);
            human_bytes(d.global_mem, mem, sizeof mem);
            human_bytes(d.max_alloc, alloc, sizeof alloc);
            human_bytes(d.local_mem, local, sizeof local);
            if (!json) {
                printf("  [%d] %s\n", i, d.name);
                printf("      vendor %s, driver %s, %s%s%s\n", d.vendor, d.driver, d.version,
                       d.platform[0] ? ", platform " : "", d.platform);
                printf("      %u compute units at %u MHz, memory %s (largest buffer %s), local "
                       "memory %s, max work-group %u (%u x %u x %u)\n",
                       d.compute_units, d.clock_mhz, mem, alloc, local, d.max_wg_size,
                       d.max_wg_dims[0], d.max_wg_dims[1], d.max_wg_dims[2]);
                printf("      capabilities: %s\n", caps[0] ? caps : "none");
            }
            json_t *caps_j = json_array();
            for (size_t c = 0; c < sizeof cap_names / sizeof cap_names[0]; c++)
                if (d.caps & (1ull << c))
                    json_array_append_new(caps_j, json_string(cap_names[c]));
            json_array_append_new(
                jd, json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:i, s:i, "
                              "s:i, s:f, s:o}",
                              "index", i, "name", d.name, "vendor", d.vendor, "driver", d.driver,
                              "version", d.version, "platform", d.platform, "arch", d.arch,
                              "global_mem_bytes", (json_int_t)d.global_mem, "max_alloc_bytes",
                              (json_int_t)d.max_alloc, "local_mem_bytes", (json_int_t)d.local_mem,
                              "l2_bytes", (json_int_t)d.l2_bytes, "compute_units",
                              (int)d.compute_units, "clock_mhz", (int)d.clock_mhz,
                              "max_work_group_size", (int)d.max_wg_size, "peak_mem_gbs",
                              d.peak_mem_gbs, "capabilities", caps_j));
        }
        json_object_set_new(jb, "devices", jd);
        json_array_append_new(root, jb);
    }
    if (json) {
        char *s = json_dumps(root, JSON_INDENT(2));
        if (s)
            puts(s);
        free(s);
    }
    json_decref(root);
    for (size_t b = 0; b < gb_backend_count; b++)
        if (!st[b].err)
            st[b].ops->shutdown();
    return EXIT_OK;
}

struct run_args {
    const char *profile, *out, *backend, *device, *suite;
    struct gb_override sets[64];
    size_t nsets;
    bool quiet;
};

static int parse_run_args(int argc, char **argv, const char *cmd, struct run_args *a)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'}, {"backend", required_argument, NULL, 'b'},
        {"device", required_argument, NULL, 'd'}, {"suite", required_argument, NULL, 's'},
        {"set", required_argument, NULL, 'S'},    {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    static char set_store[64][1024];
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "o:b:d:s:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            a->out = optarg;
            break;
        case 'b':
            a->backend = optarg;
            break;
        case 'd':
            a->device = optarg;
            break;
        case 's':
            a->suite = optarg;
            break;
        case 'q':
            a->quiet = true;
            break;
        case 'S': {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg) {
                fprintf(stderr, "gpubench %s: --set wants KEY=VALUE, got '%s'\n", cmd, optarg);
                return EXIT_USAGE;
            }
            if (a->nsets == 64) {
                fprintf(stderr, "gpubench %s: at most 64 --set options\n", cmd);
                return EXIT_USAGE;
            }
            snprintf(set_store[a->nsets], sizeof set_store[0], "%s", optarg);
            char *s = set_store[a->nsets];
            s[eq - optarg] = '\0';
            a->sets[a->nsets].key = s;
            a->sets[a->nsets].value = s + (eq - optarg) + 1;
            a->nsets++;
            break;
        }
        case 'h':
            usage(stdout);
            exit(EXIT_OK);
        default:
            fprintf(stderr, "gpubench %s: see 'gpubench --help'\n", cmd);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "gpubench %s: %s\n", cmd,
                optind >= argc ? "missing PROFILE" : "expects exactly one PROFILE");
        return EXIT_USAGE;
    }
    a->profile = argv[optind];
    return EXIT_OK;
}

static int load_profile(const struct run_args *a, struct gb_profile *p)
{
    char err[2048];
    int r = gb_profile_load(a->profile, a->sets, a->nsets, p, err, sizeof err);
    if (r) {
        fprintf(stderr, "%s\n", err);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static int cmd_validate(int argc, char **argv)
{
    struct run_args a = {0};
    int rc = parse_run_args(argc, argv, "validate", &a);
    if (rc)
        return rc;
    struct gb_profile p;
    if ((rc = load_profile(&a, &p)))
        return rc;
    /* Expand against one notional device to count cases without touching hardware. */
    struct gb_plan_device one = {0};
    struct gb_plan plan = {.devices = &one, .ndevices = 1};
    if (gb_plan_expand(&p, a.suite, &plan)) {
        fprintf(stderr, "%s\n", gb_error_msg());
        gb_profile_free(&p);
        return EXIT_USAGE;
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
    return EXIT_OK;
}

static int cmd_suites(void)
{
    for (size_t i = 0; i < gb_suite_count; i++) {
        const struct gb_suite *s = gb_suites[i];
        printf("%s — %s\n", s->name, s->summary);
        for (size_t a = 0; a < s->naxes; a++)
            printf("  %-10s default %-40s %s\n", s->axes[a].name, s->axes[a].def, s->axes[a].help);
    }
    return EXIT_OK;
}

static void fill_meta(struct gb_run_meta *m, const struct gb_profile *p, int argc, char **argv)
{
    snprintf(m->gpubench_version, sizeof m->gpubench_version, "%s", GB_VERSION);
    snprintf(m->git_commit, sizeof m->git_commit, "%s", GB_GIT_COMMIT);
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(m->start_utc, sizeof m->start_utc, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(m->end_utc, sizeof m->end_utc, "%s", m->start_utc);
    if (gethostname(m->host, sizeof m->host) != 0)
        snprintf(m->host, sizeof m->host, "unknown");
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(m->os, sizeof m->os, "%s %s %s", u.sysname, u.release, u.machine);
    m->command_line[0] = '\0';
    for (int i = 0; i < argc; i++)
        gb_appendf(m->command_line, sizeof m->command_line, "%s%s", i ? " " : "", argv[i]);
    snprintf(m->profile_path, sizeof m->profile_path, "%s", p->path);
    snprintf(m->profile_name, sizeof m->profile_name, "%s", p->name);
    snprintf(m->profile_sha256, sizeof m->profile_sha256, "%s", p->sha256);
}

/* Loads the profile and plans its cases on the selected devices (run and calibrate). */
static int prepare_plan(const struct run_args *a, const char *cmd, struct gb_profile *p,
                        struct gb_plan *plan)
{
    int rc;
    if ((rc = load_profile(a, p)))
        return rc;
    memset(plan, 0, sizeof *plan);
    gb_error_clear();
    if (gb_plan_devices(p, a->backend, a->device, plan)) {
        fprintf(stderr, "gpubench %s: %s\n", cmd, gb_error_msg());
        gb_plan_free(plan);
        gb_profile_free(p);
        return EXIT_USAGE;
    }
    gb_error_clear();
    int err = gb_plan_expand(p, a->suite, plan);
    if (err || plan->ncases == 0) {
        fprintf(stderr, "gpubench %s: %s\n", cmd,
                err ? gb_error_msg() : "the profile and --suite select no case");
        gb_plan_free(plan);
        gb_profile_free(p);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static int cmd_run(int argc, char **argv, int full_argc, char **full_argv)
{
    struct run_args a = {0};
    int rc = parse_run_args(argc, argv, "run", &a);
    if (rc)
        return rc;
    struct gb_profile p;
    struct gb_plan plan;
    if ((rc = prepare_plan(&a, "run", &p, &plan)))
        return rc;
    struct gb_results rs = {0};
    fill_meta(&rs.run, &p, full_argc, full_argv);
    char out[2048];
    if (a.out) {
        snprintf(out, sizeof out, "%s", a.out);
    } else {
        char stamp[32];
        snprintf(stamp, sizeof stamp, "%s", rs.run.start_utc);
        for (char *s = stamp; *s; s++)
            if (*s == ':' || *s == '-')
                memmove(s, s + 1, strlen(s));
        if (mkdir("results", 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "gpubench run: cannot create results/: %s\n", strerror(errno));
            gb_plan_free(&plan);
            gb_profile_free(&p);
            return EXIT_USAGE;
        }
        snprintf(out, sizeof out, "results/%s-%s.json", p.name, stamp);
    }
    /* The output is checked, and an empty results file written, before the first case: a path
     * that cannot take the results must not cost a whole run's measurements. */
    struct stat st_out, st_prof;
    const char *why = NULL;
    if (stat(out, &st_out) == 0 && !S_ISREG(st_out.st_mode))
        why = "it exists and is not a regular file";
    else if (stat(out, &st_out) == 0 && stat(a.profile, &st_prof) == 0 &&
             st_out.st_dev == st_prof.st_dev && st_out.st_ino == st_prof.st_ino)
        why = "it is the profile being run";
    else if (gb_results_write(&rs, out))
        why = gb_error_msg();
    if (why) {
        fprintf(stderr, "gpubench run: cannot write the results to %s: %s\n", out, why);
        gb_results_free(&rs);
        gb_plan_free(&plan);
        gb_profile_free(&p);
        return EXIT_USAGE;
    }
    fprintf(stderr, "gpubench: %zu cases on %zu device%s -> %s\n", plan.ncases, plan.ndevices,
            plan.ndevices == 1 ? "" : "s", out);
    /* Ctrl-C, and SIGTERM (what a CI timeout or a job scheduler sends), stop after the current
     * sample; the file then holds every finished case. */
    struct sigaction sa = {.sa_handler = on_sigint};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    struct gb_runner_opts o = {
        .out_path = out,
        .progress = !a.quiet && isatty(STDERR_FILENO) ? stderr : NULL,
        .stop = &stop_flag,
    };
    int r = gb_run_plan(&plan, &o, &rs);
    gb_print_summary(stdout, &rs);
    gb_print_precision_table(stdout, &rs);
    size_t ok = 0, skipped = 0, failed = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        ok += rs.results[i].status == GB_STATUS_OK;
        skipped += rs.results[i].status == GB_STATUS_SKIPPED;
        failed += rs.results[i].status == GB_STATUS_FAILED;
    }
    printf("%zu ok, %zu skipped, %zu failed%s; results in %s\n", ok, skipped, failed,
           r == GB_EINTR ? " (interrupted)" : "", out);
    if (r == GB_EIO)
        fprintf(stderr, "gpubench run: could not write %s: %s\n", out, gb_error_msg());
    gb_results_free(&rs);
    gb_plan_free(&plan);
    gb_profile_free(&p);
    for (size_t b = 0; b < gb_backend_count; b++)
        gb_backends[b]->shutdown();
    if (r == GB_EINTR)
        return EXIT_INTERRUPTED;
    if (r == GB_EIO)
        return EXIT_CASE_FAILED;
    return r ? EXIT_CASE_FAILED : EXIT_OK;
}

/* gpubench calibrate PROFILE [-n RUNS] [--dir DIR] [--json FILE] [run options] [compare
 * options]: runs the profile RUNS times through the same plan and runner as `run` (one results
 * file each, in DIR), then reports each case's run-to-run noise and the threshold that would have
 * raised no false alarm (gb_calibrate_report). `calibrate --from FILE...` analyses earlier runs. */
static int cmd_calibrate(int argc, char **argv, int full_argc, char **full_argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--from") == 0)
            return gb_cmd_calibrate_files(argc, argv);
    long runs = 3;
    const char *dir = NULL, *json = NULL;
    struct gb_compare_opts co;
    gb_compare_opts_default(&co);
    /* Calibrate's own and compare's options are taken out; the rest are run's. */
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return EXIT_USAGE;
    int nrest = 0;
    rest[nrest++] = argv[0];
    for (int i = 1; i < argc; i++) {
        char err[256], *end;
        int used = gb_compare_parse_option(argc, argv, i, &co, err, sizeof err);
        if (used < 0) {
            fprintf(stderr, "gpubench calibrate: %s\n", err);
            free(rest);
            return EXIT_USAGE;
        }
        if (used > 0) {
            i += used - 1;
        } else if ((strcmp(argv[i], "-n") == 0 || strcmp(argv[i], "--runs") == 0) && i + 1 < argc) {
            runs = strtol(argv[++i], &end, 10);
            if (*end || runs < 2 || runs > 100) {
                fprintf(stderr, "gpubench calibrate: -n wants 2..100 runs, got '%s'\n", argv[i]);
                free(rest);
                return EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
            json = argv[++i];
        } else {
            rest[nrest++] = argv[i];
        }
    }
    struct run_args a = {0};
    int rc = parse_run_args(nrest, rest, "calibrate", &a);
    free(rest);
    if (rc)
        return rc;
    if (a.out) {
        fprintf(stderr, "gpubench calibrate: -o does not apply; --dir DIR holds the runs\n");
        return EXIT_USAGE;
    }
    struct gb_profile p;
    struct gb_plan plan;
    if ((rc = prepare_plan(&a, "calibrate", &p, &plan)))
        return rc;
    struct gb_results *rs = calloc((size_t)runs, sizeof *rs);
    char(*paths)[2048] = calloc((size_t)runs, sizeof *paths);
    const char **path_ptrs = calloc((size_t)runs, sizeof *path_ptrs);
    char dirbuf[1024];
    if (!dir) {
        char stamp[32];
        time_t t = time(NULL);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
        snprintf(dirbuf, sizeof dirbuf, "results/calibrate-%s-%s", p.name, stamp);
        dir = dirbuf;
        if (mkdir("results", 0777) != 0 && errno != EEXIST)
            dir = NULL;
    }
    if (!rs || !paths || !path_ptrs || !dir || (mkdir(dir, 0777) != 0 && errno != EEXIST)) {
        fprintf(stderr, "gpubench calibrate: cannot create %s: %s\n", dir ? dir : "results/",
                strerror(errno));
        rc = EXIT_USAGE;
        goto out;
    }
    struct sigaction sa = {.sa_handler = on_sigint};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    long done = 0;
    for (; done < runs && !stop_flag; done++) {
        snprintf(paths[done], sizeof paths[done], "%s/run-%ld.json", dir, done + 1);
        path_ptrs[done] = paths[done];
        fill_meta(&rs[done].run, &p, full_argc, full_argv);
        fprintf(stderr, "gpubench calibrate: run %ld of %ld, %zu cases -> %s\n", done + 1, runs,
                plan.ncases, paths[done]);
        struct gb_runner_opts o = {
            .out_path = paths[done],
            .progress = !a.quiet && isatty(STDERR_FILENO) ? stderr : NULL,
            .stop = &stop_flag,
        };
        int r = gb_run_plan(&plan, &o, &rs[done]);
        if (r == GB_EIO || r == GB_EINTR) {
            fprintf(stderr, "gpubench calibrate: run %ld %s\n", done + 1,
                    r == GB_EINTR ? "interrupted" : "could not be written");
            rc = r == GB_EINTR ? EXIT_INTERRUPTED : EXIT_CASE_FAILED;
            done++;
            goto out;
        }
    }
    gb_error_clear();
    if (gb_calibrate_report(stdout, rs, path_ptrs, (size_t)done, &co, json)) {
        fprintf(stderr, "gpubench calibrate: %s\n", gb_error_msg());
        rc = EXIT_USAGE;
    }
out:
    for (long i = 0; rs && i < runs; i++)
        gb_results_free(&rs[i]);
    free(rs);
    free(paths);
    free(path_ptrs);
    gb_plan_free(&plan);
    gb_profile_free(&p);
    for (size_t b = 0; b < gb_backend_count; b++)
        gb_backends[b]->shutdown();
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("gpubench %s (%s); backends:", GB_VERSION, GB_GIT_COMMIT);
        for (size_t b = 0; b < gb_backend_count; b++)
            printf(" %s", gb_backends[b]->name);
        printf("%s\n", HAVE_CLBLAST || HAVE_CUBLAS ? "" : "");
        return EXIT_OK;
    }
    if (strcmp(cmd, "devices") == 0)
        return cmd_devices(argc - 1, argv + 1);
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 1, argv + 1, argc, argv);
    if (strcmp(cmd, "validate") == 0)
        return cmd_validate(argc - 1, argv + 1);
    if (strcmp(cmd, "suites") == 0)
        return cmd_suites();
    if (strcmp(cmd, "compare") == 0)
        return gb_cmd_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "calibrate") == 0)
        return cmd_calibrate(argc - 1, argv + 1, argc, argv);
    if (strcmp(cmd, "baseline") == 0)
        return gb_cmd_baseline(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return gb_cmd_report(argc - 1, argv + 1);
    if (strcmp(cmd, "fleet") == 0)
        return gb_cmd_fleet(argc - 1, argv + 1);
    if (strcmp(cmd, "history") == 0)
        return gb_cmd_history(argc - 1, argv + 1);
    fprintf(stderr, "gpubench: unknown command '%s'\n", cmd);
    usage(stderr);
    return EXIT_USAGE;
}
