/* End-to-end tests of the gpubench binary on the real OpenCL device (PoCL or Intel's CPU
 * runtime here). */
#include <jansson.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <stdarg.h>
#include <unistd.h>

#include "base/util.h"
#include "base/error.h"
#include "results/results.h"
#include "test.h"

static char out[1 << 18];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

TEST(cli_version_and_help)
{
    ASSERT_EQ(sh("%s --version 2>&1", GB_TEST_EXE), 0);
    ASSERT_CONTAINS(out, "gpubench 0.");
    ASSERT_CONTAINS(out, "opencl");
    ASSERT_EQ(sh("%s --help 2>&1", GB_TEST_EXE), 0);
    ASSERT_CONTAINS(out, "usage: gpubench");
    ASSERT_EQ(sh("%s frobnicate 2>&1", GB_TEST_EXE), 2);
    ASSERT_CONTAINS(out, "unknown command");
    ASSERT_EQ(sh("%s run 2>&1", GB_TEST_EXE), 2);
    ASSERT_CONTAINS(out, "missing PROFILE");
}

/* The commands `gpubench --help` lists (its "commands:" section, one "  NAME  summary" line
 * each) into names[0..max); how many. */
static size_t listed_commands(char names[][32], size_t max)
{
    ASSERT_EQ(sh("%s --help", GB_TEST_EXE), 0);
    const char *p = strstr(out, "\ncommands:\n");
    ASSERT(p);
    p = strchr(p + 1, '\n') + 1;
    size_t n = 0;
    while (n < max && p[0] == ' ' && p[1] == ' ' && sscanf(p, "%31s", names[n]) == 1) {
        n++;
        p = strchr(p, '\n');
        ASSERT(p);
        p++;
    }
    return n;
}

/* Every command the dispatcher lists answers -h / --help with its own usage on stdout and exit
 * 0, and nothing on stderr. */
TEST(cli_every_command_answers_help)
{
    static const char *const expected[] = {"devices", "run",       "validate", "suites",
                                           "compare", "calibrate", "baseline", "report"};
    char names[32][32];
    size_t n = listed_commands(names, 32);
    for (size_t e = 0; e < sizeof expected / sizeof expected[0]; e++) {
        bool listed = false;
        for (size_t i = 0; i < n; i++)
            listed |= strcmp(names[i], expected[e]) == 0;
        ASSERT_MSG(listed, "gpubench --help does not list '%s'", expected[e]);
    }
    for (size_t i = 0; i < n; i++) {
        char want[64];
        snprintf(want, sizeof want, "usage: gpubench %s", names[i]);
        for (int form = 0; form < 2; form++) {
            const char *opt = form ? "-h" : "--help";
            int rc = sh("%s %s %s 2>/dev/null", GB_TEST_EXE, names[i], opt);
            ASSERT_MSG(rc == 0, "%s %s: exit %d", names[i], opt, rc);
            ASSERT_MSG(strncmp(out, want, strlen(want)) == 0, "%s %s: stdout starts \"%.80s\"",
                       names[i], opt, out);
            ASSERT_EQ(sh("%s %s %s 2>&1 >/dev/null", GB_TEST_EXE, names[i], opt), 0);
            ASSERT_MSG(out[0] == '\0', "%s %s wrote to stderr: %s", names[i], opt, out);
        }
    }
}

/* The lines of `out` wider than 80 columns (an 80-column terminal's width; a UTF-8 character
 * counts one column), each "WHAT: line N, W columns: TEXT", appended to bad[0..cap). */
static void wide_lines(const char *what, char *bad, size_t cap)
{
    int line = 0;
    for (const char *p = out; *p;) {
        const char *end = strchr(p, '\n');
        if (!end)
            end = p + strlen(p);
        line++;
        int cols = 0;
        for (const char *q = p; q < end; q++)
            cols += ((unsigned char)*q & 0xC0) != 0x80;
        size_t used = strlen(bad);
        if (cols > 80 && used < cap)
            snprintf(bad + used, cap - used, "\n  %s: line %d, %d columns: %.*s", what, line, cols,
                     (int)(end - p), p);
        p = *end ? end + 1 : end;
    }
}

/* Every --help fits an 80-column terminal: gpubench's own, that of each command it lists (read
 * from its output, so that a new command is held to it too) and gpubench-mpi's where the build
 * has it. */
TEST(cli_every_help_fits_80_columns)
{
    static char bad[16384];
    bad[0] = '\0';
    char names[32][32];
    size_t n = listed_commands(names, 32);
    ASSERT_U64(n, >=, 8);
    ASSERT_EQ(sh("%s --help", GB_TEST_EXE), 0);
    wide_lines("gpubench --help", bad, sizeof bad);
    for (size_t i = 0; i < n; i++) {
        char what[64];
        snprintf(what, sizeof what, "gpubench %s --help", names[i]);
        ASSERT_MSG(sh("%s %s --help", GB_TEST_EXE, names[i]) == 0, "%s: exit not 0", what);
        wide_lines(what, bad, sizeof bad);
    }
    /* gpubench-mpi answers --help after MPI_Init: a singleton here, which Open MPI allows root
     * only with both variables. */
    if (GB_TEST_MPI_EXE[0]) {
        int rc =
            sh("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 60 %s --help "
               "2>/dev/null",
               GB_TEST_MPI_EXE);
        ASSERT_MSG(rc == 0, "gpubench-mpi --help: exit %d", rc);
        wide_lines("gpubench-mpi --help", bad, sizeof bad);
    }
    ASSERT_MSG(!bad[0], "help lines wider than 80 columns:%s", bad);
}

/* Every command refuses an option it does not know: exit 2, the option named on stderr, nothing
 * on stdout, nothing run. */
TEST(cli_every_command_refuses_an_unknown_option)
{
    char names[32][32];
    size_t n = listed_commands(names, 32);
    ASSERT_U64(n, >=, 8);
    for (size_t i = 0; i < n; i++) {
        static const char *const bad[] = {"--no-such-option", "--no-such-option=1", "-Z"};
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            int rc = sh("%s %s %s 2>&1 >/dev/null", GB_TEST_EXE, names[i], bad[b]);
            ASSERT_MSG(rc == 2, "%s %s: exit %d: %s", names[i], bad[b], rc, out);
            ASSERT_MSG(strstr(out, bad[b] + (bad[b][1] == '-' ? 2 : 1)), "%s %s: %s", names[i],
                       bad[b], out);
            ASSERT_EQ(sh("%s %s %s 2>/dev/null", GB_TEST_EXE, names[i], bad[b]), 2);
            ASSERT_MSG(out[0] == '\0', "%s %s wrote to stdout: %s", names[i], bad[b], out);
        }
    }
}

/* `gpubench devices` lists every device the implementation offers, as --json does: PoCL's one
 * by default and two with POCL_DEVICES='pthread pthread'; another implementation ignores
 * POCL_DEVICES and lists what it has. The text is the document's tables: the backends' (opencl,
 * available, how many devices) and the devices' (backend, index, name, ...), a row each. */
static void check_devices_listed(const char *env)
{
    struct gb_test_devices d;
    gb_test_cli_devices(env, &d);
    ASSERT_MSG(d.n >= 1, "no OpenCL device listed with %s", env[0] ? env : "no environment");
    ASSERT_EQ(sh("%s %s devices 2>&1", env, GB_TEST_EXE), 0);
    char want[300];
    const char *row = strstr(out, "\nopencl ");
    ASSERT_MSG(row, "no row for opencl: %s", out);
    int n = -1;
    char avail[8] = "";
    ASSERT_EQ(sscanf(row, " opencl %7s %d", avail, &n), 2);
    ASSERT_STR(avail, "yes");
    ASSERT_EQ(n, d.n);
    int rows = 0;
    for (const char *p = out; (p = strstr(p, "\nopencl ")) != NULL; p++) {
        int k = -1, used = 0;
        if (sscanf(p, " opencl %d %n", &k, &used) != 1 || k < 0 || k >= GB_TEST_MAX_DEVICES)
            continue;
        ASSERT_MSG(k == rows, "device row %d where %d was due: %s", k, rows, out);
        snprintf(want, sizeof want, "%s  ", d.name[k]);
        ASSERT_MSG(strncmp(p + used, want, strlen(want)) == 0, "row %d does not name %s: %s", k,
                   d.name[k], out);
        rows++;
    }
    ASSERT_MSG(rows == d.n, "%d device rows listed, --json has %d: %s", rows, d.n, out);
}

TEST(cli_devices_lists_every_device)
{
    check_devices_listed("");
    check_devices_listed("POCL_DEVICES='pthread pthread'");
    struct gb_test_devices d;
    gb_test_cli_devices("POCL_DEVICES='pthread pthread'", &d);
    if (strstr(d.platform, "Portable Computing Language"))
        ASSERT_EQ(d.n, 2); /* PoCL makes one device per POCL_DEVICES entry */
}

TEST(cli_devices_json)
{
    ASSERT_EQ(sh("%s devices --json", GB_TEST_EXE), 0);
    json_error_t je;
    json_t *root = json_loads(out, 0, &je);
    ASSERT_MSG(root, "devices --json is not JSON: %s at %d:%d", je.text, je.line, je.column);
    ASSERT(json_is_array(root));
    bool found = false;
    size_t i, unknown = 0;
    json_t *b;
    json_array_foreach(root, i, b)
    {
        if (strcmp(json_string_value(json_object_get(b, "backend")), "opencl") == 0) {
            ASSERT(json_is_true(json_object_get(b, "available")));
            json_t *devs = json_object_get(b, "devices");
            ASSERT_U64(json_array_size(devs), >=, 1);
            size_t k;
            json_t *dev;
            json_array_foreach(devs, k, dev)
            {
                ASSERT_EQ(json_integer_value(json_object_get(dev, "index")), (long long)k);
                ASSERT(json_string_length(json_object_get(dev, "name")) > 0);
                ASSERT(json_integer_value(json_object_get(dev, "max_alloc_bytes")) > 0);
                ASSERT(json_integer_value(json_object_get(dev, "max_work_group_size")) > 0);
                unknown += json_number_value(json_object_get(dev, "mem_clock_mhz")) == 0;
            }
            found = true;
        }
    }
    ASSERT(found);
    json_decref(root);
    /* A fact the driver does not report is 0 in the file; people read "unknown" (a memory
     * clock of 0 MHz read as a measured zero). */
    if (unknown) {
        ASSERT_EQ(sh("%s devices", GB_TEST_EXE), 0);
        ASSERT_CONTAINS(out, "unknown");
    }
}

/* Loads a results file and checks what every consumer relies on: every case ok and verified
 * with samples and stats, or (when allow_skips) skipped with a reason; bandwidth suites in GB/s. */
static void check_results(const char *path, size_t min_results, size_t want_devices,
                          bool allow_skips)
{
    struct gb_results rs;
    ASSERT_OK(gb_results_read(path, &rs));
    ASSERT_U64(rs.nresults, >=, min_results);
    ASSERT_EQ(rs.ndevices, want_devices);
    size_t ok = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        bool core = strcmp(r->suite, "transfer") == 0 || strcmp(r->suite, "memory") == 0 ||
                    strcmp(r->suite, "launch") == 0;
        /* Bidirectional copies need pinned host memory: with pageable, a skip by rule. */
        if (strcmp(r->case_name, "bidir") == 0 &&
            strcmp(gb_params_str(&r->params, "memory"), "pageable") == 0) {
            ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "transfer/bidir pageable: %s",
                       gb_status_name(r->status));
            continue;
        }
        /* Skips are for what a device lacks (fp16 on PoCL); the core suites always run. */
        if (allow_skips && !core && r->status == GB_STATUS_SKIPPED) {
            ASSERT_MSG(strlen(r->reason) > 10, "%s/%s skipped without a reason", r->suite,
                       r->case_name);
            continue;
        }
        ASSERT_MSG(r->status == GB_STATUS_OK, "%s/%s: %s: %s", r->suite, r->case_name,
                   gb_status_name(r->status), r->reason);
        ASSERT_MSG(r->verified, "%s/%s not verified", r->suite, r->case_name);
        ASSERT_U64(r->nsamples, >=, 2);
        ASSERT(r->stats.n == r->nsamples);
        ASSERT(r->value > 0 && isfinite(r->value));
        ASSERT(r->stats.min <= r->stats.median && r->stats.median <= r->stats.max);
        ASSERT(r->op_time_us.median > 0);
        ASSERT_MSG(r->unit[0], "%s/%s has no unit", r->suite, r->case_name);
        if (strcmp(r->suite, "transfer") == 0 || strcmp(r->suite, "memory") == 0)
            ASSERT_MSG(strcmp(r->unit, "GB/s") == 0, "%s/%s: unit %s", r->suite, r->case_name,
                       r->unit);
        ok++;
    }
    ASSERT_U64(ok, >=, min_results * 3 / 4);
    gb_results_free(&rs);
}

TEST_TIMEOUT(cli_quick_profile_runs_and_verifies, 240)
{
    const char *dir = gb_test_tmpdir();
    int rc = sh("cd %s && %s run %s/configs/quick.yaml -o %s/quick.json 2>&1", dir, GB_TEST_EXE,
                GB_TEST_SRCDIR, dir);
    ASSERT_MSG(rc == 0, "exit %d:\n%s", rc, out);
    ASSERT_CONTAINS(out, "0 failed");
    char path[GB_PATH_JOIN];
    snprintf(path, sizeof path, "%s/quick.json", dir);
    struct gb_test_devices d;
    gb_test_cli_devices("", &d);
    check_results(path, 40, (size_t)d.n, true);
}

static const char *small_profile =
    "name: small\n"
    "measure: {min_samples: 3, max_samples: 5, max_time: 50ms, min_sample_time: 1ms}\n"
    "suites:\n"
    "  - suite: transfer\n"
    "    params: {op: [h2d, d2h, d2d], memory: pinned, size: [64KiB, 1MiB]}\n"
    "  - suite: memory\n"
    "    params: {op: [triad, dot], type: float, size: 4MiB}\n";

/* Every device of a run is measured: two (or more) devices, each with all 8 cases. Needs an
 * implementation that offers two devices (PoCL with POCL_DEVICES='pthread pthread'). */
TEST_TIMEOUT(cli_two_devices_are_both_measured, 120)
{
    static const char env[] = "POCL_DEVICES='pthread pthread'";
    struct gb_test_devices d;
    gb_test_need_cli_devices(env, 2, &d);
    char prof[GB_PATH_JOIN], res[GB_PATH_JOIN];
    gb_test_profile_files("two", small_profile, prof, res, sizeof prof);
    int rc = sh("%s %s run %s -o %s 2>&1", env, GB_TEST_EXE, prof, res);
    ASSERT_MSG(rc == 0, "exit %d:\n%s", rc, out);
    check_results(res, 8 * (size_t)d.n, (size_t)d.n, false);
    struct gb_results rs;
    ASSERT_OK(gb_results_read(res, &rs));
    size_t per_dev[GB_TEST_MAX_DEVICES] = {0};
    ASSERT(d.n <= GB_TEST_MAX_DEVICES);
    for (size_t i = 0; i < rs.nresults; i++) {
        ASSERT(rs.results[i].device_index >= 0 && rs.results[i].device_index < d.n);
        per_dev[rs.results[i].device_index]++;
    }
    for (int k = 0; k < d.n; k++) {
        ASSERT_EQ(per_dev[k], 8);
        ASSERT_EQ(rs.devices[k].index, k);
        ASSERT_STR(rs.devices[k].info.name, d.name[k]);
    }
    gb_results_free(&rs);
}

TEST(cli_malformed_profile_exits_2_and_writes_nothing)
{
    char prof[GB_PATH_JOIN], res[GB_PATH_JOIN];
    gb_test_profile_files("bad", "suites:\n  - suite: transfer\n    params:\n      size: 12 XB\n",
                          prof, res, sizeof prof);
    ASSERT_EQ(sh("%s run %s -o %s 2>&1", GB_TEST_EXE, prof, res), 2);
    char want[GB_PATH_JOIN + 64];
    snprintf(want, sizeof want, "%s:4:13:", prof);
    ASSERT_CONTAINS(out, want);
    ASSERT(!exists(res));
    gb_test_write_file(prof, "suites:\n  - suite: transfer\n    parms: {}\n");
    ASSERT_EQ(sh("%s run %s -o %s 2>&1", GB_TEST_EXE, prof, res), 2);
    snprintf(want, sizeof want, "%s:3:5:", prof);
    ASSERT_CONTAINS(out, want);
    ASSERT(!exists(res));
    ASSERT_EQ(sh("%s validate %s 2>&1", GB_TEST_EXE, prof), 2);
    ASSERT_EQ(sh("%s validate %s/configs/quick.yaml 2>&1", GB_TEST_EXE, GB_TEST_SRCDIR), 0);
    ASSERT_CONTAINS(out, "ok");
}

TEST_TIMEOUT(cli_oversized_cases_are_recorded_skips, 120)
{
    /* 64 GiB + 1 byte is more than this machine's memory, whatever the OpenCL implementation
     * reports as its largest buffer (PoCL's follows free host memory); it also proves sizes are
     * not truncated to 32 bits (mod 2^32 it is 1 byte, which would fit). */
    char prof[GB_PATH_JOIN], res[GB_PATH_JOIN];
    gb_test_profile_files("big",
                          "measure: {min_samples: 2, max_samples: 3, max_time: 20ms}\n"
                          "suites:\n"
                          "  - suite: transfer\n"
                          "    params: {op: h2d, memory: pinned, size: [64KiB, 68719476737]}\n"
                          "  - suite: memory\n"
                          "    params: {op: triad, type: float, size: [1MiB, 64GiB]}\n",
                          prof, res, sizeof prof);
    int rc = sh("%s run %s -o %s 2>&1", GB_TEST_EXE, prof, res);
    ASSERT_MSG(rc == 0, "exit %d:\n%s", rc, out);
    struct gb_results rs;
    ASSERT_OK(gb_results_read(res, &rs));
    ASSERT_EQ(rs.nresults, 4);
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        uint64_t size = gb_params_size(&r->params, "size");
        if (size >= (4ull << 30)) {
            ASSERT_MSG(r->status == GB_STATUS_SKIPPED, "%s size %" PRIu64 ": %s", r->suite, size,
                       gb_status_name(r->status));
            ASSERT(strlen(r->reason) > 10);
        } else {
            ASSERT_MSG(r->status == GB_STATUS_OK, "%s: %s", r->suite, r->reason);
        }
    }
    gb_results_free(&rs);
}

TEST_TIMEOUT(cli_sigint_keeps_finished_cases, 120)
{
    char prof[GB_PATH_JOIN], res[GB_PATH_JOIN];
    gb_test_profile_files("long",
                          "measure: {min_samples: 3, max_samples: 1000, max_noise: 0.0001, "
                          "max_time: 400ms}\n"
                          "suites:\n"
                          "  - suite: transfer\n"
                          "    params: {op: [h2d, d2h], memory: [pinned, pageable], "
                          "size: {from: 4KiB, to: 4MiB, factor: 2}}\n",
                          prof, res, sizeof prof);
    /* Wait until a case is on disk (the file is there before the first case, empty), then
     * interrupt mid-case. */
    pid_t pid;
    const bool some = gb_test_run_until_a_result(prof, res, &pid);
    struct gb_results rs;
    ASSERT(some);
    usleep(300000);
    kill(pid, SIGINT);
    int st = 0;
    waitpid(pid, &st, 0);
    ASSERT(WIFEXITED(st));
    ASSERT_EQ(WEXITSTATUS(st), 130);
    ASSERT_OK(gb_results_read(res, &rs));
    ASSERT(rs.run.interrupted);
    ASSERT_U64(rs.nresults, >=, 1);
    ASSERT_U64(rs.nresults, <, 44);
    for (size_t i = 0; i < rs.nresults; i++)
        ASSERT(rs.results[i].status == GB_STATUS_OK && rs.results[i].verified);
    gb_results_free(&rs);
}

TEST(cli_unknown_backend_or_device_is_a_clear_error)
{
    ASSERT_EQ(sh("%s run %s/configs/quick.yaml --backend nope 2>&1", GB_TEST_EXE, GB_TEST_SRCDIR),
              2);
    ASSERT_CONTAINS(out, "unknown backend 'nope'");
    ASSERT_EQ(sh("%s run %s/configs/quick.yaml --device 7 -o /tmp/x-never.json 2>&1", GB_TEST_EXE,
                 GB_TEST_SRCDIR),
              2);
    ASSERT_CONTAINS(out, "no device selected");
    /* Each device passed over is named whole, or cut with "...": never a bare cut before ")". */
    ASSERT_CONTAINS(out, ") not selected");
    ASSERT_MSG(!strstr(out, " ) not selected"), "a device's name cut at a space:\n%s", out);
    ASSERT(!exists("/tmp/x-never.json"));
}

/* run -f FORMAT: standard output is the document alone (the tally goes to stderr), so it parses:
 * JSON as JSON, OpenMetrics ending in "# EOF", CSV without a line of text after its rows. */
/* Two runs started in one second (one a device) wrote one default name, and the second replaced
 * the first's results: the default name is reserved exclusively, a taken one gets "-2". The
 * names of the next few seconds are taken here beforehand, each holding a marker that must stay. */
TEST_TIMEOUT(cli_run_default_name_never_replaces_a_results_file, 120)
{
    const char *dir = gb_test_tmpdir();
    int rc = sh("cd %s && mkdir -p results && printf 'name: one\\nmeasure: {min_samples: 3, "
                "max_samples: 3, max_time: 20ms}\\nsuites:\\n  - suite: launch\\n    params: "
                "{op: latency}\\n' > one.yaml && for d in 0 1 2 3 4 5; do "
                "echo marker > results/one-$(date -u -d \"+$d sec\" +%%Y%%m%%dT%%H%%M%%SZ).json; "
                "done && %s run one.yaml -q 2>&1",
                dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "exit %d:\n%s", rc, out);
    ASSERT_CONTAINS(out, "-2.json");
    ASSERT_EQ(sh("cd %s && cat results/one-*Z.json | sort -u", dir), 0);
    ASSERT_STR(out, "marker\n");
    ASSERT_EQ(sh("cd %s && ls results/*-2.json | wc -l", dir), 0);
    ASSERT_STR(out, "1\n");
}

TEST_TIMEOUT(cli_run_document_alone_on_stdout, 120)
{
    const char *dir = gb_test_tmpdir();
    char prof[GB_PATH_JOIN];
    snprintf(prof, sizeof prof, "%s/one.yaml", dir);
    gb_test_write_file(prof, "name: one\n"
                             "measure: {min_samples: 3, max_samples: 3, max_time: 20ms}\n"
                             "suites:\n"
                             "  - suite: transfer\n"
                             "    params: {op: d2d, memory: device, size: 64KiB}\n");
    int rc = sh("%s run %s -q -f json -o %s/one-json.json 2>/dev/null", GB_TEST_EXE, prof, dir);
    ASSERT_MSG(rc == 0, "exit %d:\n%s", rc, out);
    json_error_t je;
    json_t *root = json_loads(out, 0, &je);
    ASSERT_MSG(root, "run -f json's stdout is not JSON (%s at %d:%d):\n%s", je.text, je.line,
               je.column, out);
    json_decref(root);
    ASSERT(!strstr(out, " ok, "));
    rc = sh("%s run %s -q -f openmetrics -o %s/one-om.json 2>/dev/null", GB_TEST_EXE, prof, dir);
    ASSERT_MSG(rc == 0, "exit %d:\n%s", rc, out);
    size_t l = strlen(out);
    ASSERT_MSG(l >= 6 && strcmp(out + l - 6, "# EOF\n") == 0,
               "run -f openmetrics does not end in # EOF:\n%s", out);
    rc = sh("%s run %s -q -f csv -o %s/one-csv.json 2>/dev/null", GB_TEST_EXE, prof, dir);
    ASSERT_MSG(rc == 0, "exit %d:\n%s", rc, out);
    ASSERT_MSG(!strstr(out, " ok, ") && !strstr(out, "results in"), "run -f csv:\n%s", out);
    /* The tally is still said, on stderr, and with the text summary on stdout. */
    rc = sh("%s run %s -q -f json -o %s/one-json2.json 2>&1 >/dev/null", GB_TEST_EXE, prof, dir);
    ASSERT_EQ(rc, 0);
    ASSERT_CONTAINS(out, "1 ok, 0 skipped, 0 failed");
    rc = sh("%s run %s -q -o %s/one-text.json 2>/dev/null", GB_TEST_EXE, prof, dir);
    ASSERT_EQ(rc, 0);
    ASSERT_CONTAINS(out, "1 ok, 0 skipped, 0 failed; results in");
    /* On a terminal narrower than the tally, the file goes on a line of its own. */
    rc = sh("COLUMNS=40 %s run %s -q -o %s/one-text-40.json 2>/dev/null", GB_TEST_EXE, prof, dir);
    ASSERT_EQ(rc, 0);
    ASSERT_CONTAINS(out, "1 ok, 0 skipped, 0 failed;\n  results in ");
    /* A case with several results (a tuned case: one per configuration it tried) is counted
     * as both, so that "1 case" and its four results (the default, two configurations and the
     * best) do not read as a contradiction. */
    rc = sh("cd %s && printf 'name: t\ntuning_cache: tc.json\nmeasure: {min_samples: 3, "
            "max_samples: 3, max_time: 50ms}\n"
            "suites:\n  - suite: tuning\n    params: {kernel: dot, size: 65536, search: "
            "exhaustive}\n    tunables: {WG: [64, 128], VEC: [1], LAYOUT: [1], REDUCE: [0], GPC: "
            "[64]}\n' > t.yaml && %s run t.yaml -q -o t.json 2>/dev/null",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "exit %d:\n%s", rc, out);
    ASSERT_CONTAINS(out, "4 ok, 0 skipped, 0 failed (4 results of 1 case)");
}

/* The bash completion the build generates (scripts/gen-completion.sh) completes an option's
 * values where its help names them: diag's --level 1|2|3 and every command's -f/--format. */
TEST(cli_completion_completes_option_values)
{
    char comp[1200];
    snprintf(comp, sizeof comp, "%s/scripts/gpubench", GB_TEST_BUILDDIR);
    if (!exists(comp))
        SKIP("no generated completion at %s", comp);
    static const struct {
        const char *words, *want;
        int cword;
    } cases[] = {
        {"gpubench diag --level \"\"", "[1 2 3]", 3},
        {"gpubench diag -l \"\"", "[1 2 3]", 3},
        {"gpubench diag -f j", "[json junit]", 3},
        {"gpubench run --format \"\"", "[text markdown json csv openmetrics]", 3},
        {"gpubench diag --le", "[--level]", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = sh("bash -c 'source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _gpubench; "
                    "echo \"[${COMPREPLY[*]}]\"' 2>&1",
                    comp, cases[i].words, cases[i].cword);
        ASSERT_MSG(rc == 0, "%s: exit %d: %s", cases[i].words, rc, out);
        ASSERT_MSG(strstr(out, cases[i].want), "%s: %s, not %s", cases[i].words, out,
                   cases[i].want);
    }
}

/* A profile is found by name from any folder: the source tree's configs/ for a build, the
 * installed data folder for an installed binary (with the source tree out of reach); a
 * misspelt name is answered with the nearest. `meson install` puts the binary, the profiles,
 * the schema, the reference expectations, the docs, a man page per command and the bash
 * completion in place. */
TEST_TIMEOUT(cli_profiles_by_name_from_any_folder_and_installed, 120)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR " %s validate quick 2>&1", dir,
                 GB_TEST_EXE),
              0);
    ASSERT_CONTAINS(out, GB_TEST_SRCDIR "/configs/quick.yaml: ok, profile 'quick'");
    ASSERT_EQ(sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR " %s run quick --help 2>&1", dir,
                 GB_TEST_EXE),
              0);
    ASSERT_CONTAINS(out, "usage: gpubench run PROFILE");
    ASSERT_EQ(sh("cd %s && GPUBENCH_SOURCE_DIR=" GB_TEST_SRCDIR " %s validate quik 2>&1", dir,
                 GB_TEST_EXE),
              2);
    ASSERT_CONTAINS(out, "quik: no such profile");
    ASSERT_CONTAINS(out, "(did you mean quick?)");
    ASSERT_EQ(sh("cd %s && GPUBENCH_SOURCE_DIR= %s validate quick 2>&1", dir, GB_TEST_EXE), 2);

    int rc = sh("meson install -C %s --destdir %s/inst --no-rebuild --quiet 2>&1", GB_TEST_BUILDDIR,
                dir);
    ASSERT_MSG(rc == 0, "meson install: exit %d: %s", rc, out);
    ASSERT_EQ(sh("cd %s/inst && find . -path '*/bin/gpubench' -type f", dir), 0);
    char bin[1024];
    ASSERT_MSG(sscanf(out, "./%1000s", bin) == 1, "no installed gpubench: %s", out);
    char *cut = strstr(bin, "/bin/gpubench");
    ASSERT(cut);
    *cut = '\0'; /* the prefix, inside the destdir */
    static const char *const files[] = {
        "bin/gpubench",
        "share/gpubench/configs/quick.yaml",
        "share/gpubench/schema/gpubench-results.schema.json",
        "share/gpubench/reference/expectations.json",
        "share/doc/gpubench/README.md",
        "share/doc/gpubench/docs/commands.md",
        "share/man/man1/gpubench.1",
        "share/man/man1/gpubench-run.1",
        "share/man/man1/gpubench-check.1",
        "share/bash-completion/completions/gpubench",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[2300];
        snprintf(path, sizeof path, "%s/inst/%s/%s", dir, bin, files[i]);
        ASSERT_MSG(exists(path), "not installed: %s", path);
    }
    ASSERT_EQ(
        sh("grep -c 'gpubench run PROFILE' %s/inst/%s/share/man/man1/gpubench-run.1", dir, bin), 0);
    /* Every profile of the source tree installed; every command `gpubench --help` lists (diag
     * among them) with its man page, named in the completion with its options. */
    rc = sh("cd " GB_TEST_SRCDIR "/configs && for f in *.yaml; do test -f "
            "%s/inst/%s/share/gpubench/configs/$f || echo \"not installed: $f\"; done",
            dir, bin);
    ASSERT_MSG(rc == 0 && !out[0], "%s", out);
    char names[32][32];
    size_t n = listed_commands(names, 32);
    ASSERT(n >= 13);
    for (size_t i = 0; i < n; i++) {
        char path[2300];
        snprintf(path, sizeof path, "%s/inst/%s/share/man/man1/gpubench-%s.1", dir, bin, names[i]);
        ASSERT_MSG(exists(path), "no man page: %s", path);
        ASSERT_EQ(sh("grep -c '^    %s) opts=\"' %s/inst/%s/share/bash-completion/completions/"
                     "gpubench",
                     names[i], dir, bin),
                  0);
    }
    ASSERT_EQ(sh("grep -c \"'diag --level') vals=\\\"1 2 3\\\"\" %s/inst/%s/share/"
                 "bash-completion/completions/gpubench",
                 dir, bin),
              0);
    ASSERT_EQ(sh("bash -n %s/inst/%s/share/bash-completion/completions/gpubench && "
                 "grep -c ' quick \\| compare \\|--mads' %s/inst/%s/share/bash-completion/"
                 "completions/gpubench",
                 dir, bin, dir, bin),
              0);
    /* The installed binary, its source tree out of reach, from another folder. */
    rc = sh("cd / && GPUBENCH_SOURCE_DIR= %s/inst/%s/bin/gpubench validate quick 2>&1", dir, bin);
    ASSERT_MSG(rc == 0, "installed validate quick: exit %d: %s", rc, out);
    char want[2300];
    snprintf(want, sizeof want, "%s/inst/%s/share/gpubench/configs/quick.yaml: ok", dir, bin);
    ASSERT_CONTAINS(out, want);
    ASSERT_EQ(sh("cd / && GPUBENCH_SOURCE_DIR= %s/inst/%s/bin/gpubench run quick --help", dir, bin),
              0);
    ASSERT_CONTAINS(out, "usage: gpubench run PROFILE");
}

/* A usage error is one line that points to --help, not the whole help, and a misspelt option,
 * command, suite or profile key is answered with the nearest name; --help lists the formats of
 * the writer table; a missing output folder is named as such. */
TEST(cli_usage_errors_are_one_line_with_a_suggestion)
{
    ASSERT_EQ(sh("%s compare --treshold 5%% a.json b.json 2>&1", GB_TEST_EXE), 2);
    ASSERT_STR(out, "gpubench compare: unknown option '--treshold' (did you mean --threshold?); "
                    "see gpubench compare --help\n");
    ASSERT_EQ(sh("%s fleet 2>&1", GB_TEST_EXE), 2);
    ASSERT_MSG(strchr(out, '\n') == out + strlen(out) - 1, "more than one line: %s", out);
    ASSERT_CONTAINS(out, "see gpubench fleet --help");
    ASSERT_EQ(sh("%s comapre 2>&1", GB_TEST_EXE), 2);
    ASSERT_CONTAINS(out, "unknown command 'comapre' (did you mean compare?)");
    ASSERT_EQ(
        sh("%s validate %s/configs/quick.yaml --suite memroy 2>&1", GB_TEST_EXE, GB_TEST_SRCDIR),
        2);
    ASSERT_CONTAINS(out, "did you mean memory?");
    ASSERT_EQ(sh("%s validate %s/configs/quick.yaml --set measure.max_tme=1s 2>&1", GB_TEST_EXE,
                 GB_TEST_SRCDIR),
              2);
    ASSERT_CONTAINS(out, "did you mean \"max_time\"?");
    /* History takes -f, and every -f line lists the writers of this build. */
    ASSERT_EQ(sh("%s history --help", GB_TEST_EXE), 0);
    ASSERT_CONTAINS(out, "-f, --format NAME");
    ASSERT_CONTAINS(out, "junit");
    {
        /* its options' descriptions start in one column, -f's (the shared text) too */
        const char *a = strstr(out, "--alpha A"), *f = strstr(out, "-f, --format NAME");
        ASSERT(a && f);
        const char *ad = a + strlen("--alpha A"), *fd = f + strlen("-f, --format NAME");
        ad += strspn(ad, " ");
        fd += strspn(fd, " ");
        const char *al = a, *fl = f;
        while (al > out && al[-1] != '\n')
            al--;
        while (fl > out && fl[-1] != '\n')
            fl--;
        ASSERT_MSG(ad - al == fd - fl, "history --help: --alpha's text at column %d, -f's at %d",
                   (int)(ad - al), (int)(fd - fl));
    }
    ASSERT_EQ(sh("%s suites --help", GB_TEST_EXE), 0);
    ASSERT_CONTAINS(out, "text, markdown, json");
    ASSERT(!strstr(out, "@formats@"));
    /* fleet's MAD cut is --mads; its old name still parses. */
    ASSERT_EQ(sh("%s fleet --help", GB_TEST_EXE), 0);
    ASSERT_CONTAINS(out, "-k, --mads K");
    ASSERT_EQ(sh("%s fleet --threshold 0 x 2>&1", GB_TEST_EXE), 2);
    ASSERT_CONTAINS(out, "--threshold wants a positive number of MADs");
    ASSERT_EQ(sh("%s fleet --mads 0 x 2>&1", GB_TEST_EXE), 2);
    ASSERT_CONTAINS(out, "--mads wants a positive number of MADs");
    ASSERT_EQ(sh("%s compare a.json b.json --json /nonexistent-folder/x.json 2>&1", GB_TEST_EXE),
              2);
    ASSERT_CONTAINS(out, "the folder /nonexistent-folder for --json does not exist");
}
