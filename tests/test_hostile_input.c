/* Hostile input and unsafe outputs: outputs that never overwrite inputs, paths a
 * profile names for writing, limits instead of crashes or hours, hostile names through compare,
 * baseline and nightly.sh. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/error.h"
#include "base/stats.h"
#include "base/util.h"
#include "results/results.h"
#include "run/tune.h"
#include "run/tuning_cache.h"
#include "backends/backend.h"
#include "outputs/writer_private.h"
#include "test.h"

static char out[1 << 18];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Writes a results file at `path` from scratch: one OpenCL device called `dev`, the given host
 * and profile name, `n` transfer results named `kase` (params op=kase, size=64*(i+1), tag=param),
 * each with 5 samples around `value` (+ a per-result offset so that no two are alike). */
static void synth(const char *path, size_t n, const char *dev, const char *host,
                  const char *profile, const char *kase, const char *param, double value)
{
    struct gb_results rs = {0};
    snprintf(rs.run.gpubench_version, sizeof rs.run.gpubench_version, "test");
    snprintf(rs.run.start_utc, sizeof rs.run.start_utc, "2026-11-30T04:00:00Z");
    snprintf(rs.run.end_utc, sizeof rs.run.end_utc, "2026-11-30T04:00:00Z");
    snprintf(rs.run.host, sizeof rs.run.host, "%s", host);
    snprintf(rs.run.profile_name, sizeof rs.run.profile_name, "%s", profile);
    snprintf(rs.run.profile_path, sizeof rs.run.profile_path, "%s.yaml", profile);
    rs.run.cases_planned = n;
    struct gb_device_info info = {0};
    snprintf(info.name, sizeof info.name, "%s", dev);
    snprintf(info.vendor, sizeof info.vendor, "v`touch X`");
    int idx;
    ASSERT_OK(gb_results_add_device(&rs, "opencl", 0, &info, &idx));
    for (size_t i = 0; i < n; i++) {
        struct gb_result r = {0};
        snprintf(r.suite, sizeof r.suite, "transfer");
        snprintf(r.case_name, sizeof r.case_name, "%s", kase);
        snprintf(r.backend, sizeof r.backend, "opencl");
        r.device_index = idx;
        r.params.n = 3;
        r.params.name[0] = "op";
        r.params.v[0] = (struct gb_value){.type = GB_V_STR};
        snprintf(r.params.v[0].s, sizeof r.params.v[0].s, "%s", kase);
        r.params.name[1] = "size";
        r.params.v[1] = (struct gb_value){.type = GB_V_SIZE, .u.size = 64 * (uint64_t)(i + 1)};
        r.params.name[2] = "tag";
        r.params.v[2] = (struct gb_value){.type = GB_V_STR};
        snprintf(r.params.v[2].s, sizeof r.params.v[2].s, "%s", param);
        r.status = GB_STATUS_OK;
        snprintf(r.metric, sizeof r.metric, "bandwidth");
        snprintf(r.unit, sizeof r.unit, "GB/s");
        r.better = GB_BETTER_HIGHER;
        r.nsamples = 5;
        r.samples = malloc(5 * sizeof *r.samples);
        ASSERT(r.samples);
        double v = value + 0.001 * (double)(i % 1000);
        for (size_t k = 0; k < 5; k++)
            r.samples[k] = v * (1 + 0.001 * (double)k);
        gb_stats_compute(r.samples, 5, &r.stats);
        r.value = r.stats.median;
        r.batch = 1;
        r.verified = true;
        ASSERT_OK(gb_results_add(&rs, &r));
    }
    ASSERT_OK(gb_results_write(&rs, path));
    gb_results_free(&rs);
}

/* ---- outputs never overwrite inputs ------------------------------------------------------ */

static const char *tiny_profile = "name: tiny\n"
                                  "measure: {min_samples: 3, max_samples: 3, max_time: 20ms}\n"
                                  "suites:\n"
                                  "  - suite: launch\n"
                                  "    params: {op: latency}\n";

TEST_TIMEOUT(hostile_outputs_never_overwrite_inputs, 120)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    gb_test_write_file("p.yaml", tiny_profile);
    synth("a.json", 3, "dev", "host", "prof", "h2d", "t", 10);
    synth("b.json", 3, "dev", "host", "prof", "h2d", "t", 10);
    gb_test_write_file("prices.yaml", "not read\n");
    ASSERT_EQ(link("a.json", "hard-a.json"), 0);
    ASSERT_EQ(symlink("b.json", "sym-b.json"), 0);
    ASSERT_EQ(symlink("p.yaml", "sym-p.yaml"), 0);
    ASSERT_EQ(symlink("nowhere", "dangling.json"), 0);
    ASSERT_EQ(mkdir("folder", 0777), 0);
    ASSERT_EQ(mkdir("rep", 0777), 0);
    ASSERT_EQ(mkdir("rep/data", 0777), 0);
    ASSERT_EQ(mkdir("rep2", 0777), 0);
    ASSERT_EQ(symlink("../rep/data", "rep2/data"), 0); /* a report's subfolder onto an input's */
    synth("rep/index.html", 3, "dev", "host", "prof", "h2d", "t", 10);
    synth("rep/data/in.json", 3, "dev", "host", "prof", "h2d", "t", 10);
    ASSERT_EQ(sh("%s baseline a.json --dir bl --print-path", GB_TEST_EXE), 0);
    char blpath[1024];
    snprintf(blpath, sizeof blpath, "%.*s", (int)strcspn(out, "\n"), out);
    ASSERT_EQ(gb_mkdir_p("bl", 0777), 0);
    ASSERT_EQ(link("a.json", blpath), 0); /* the baseline a.json would be promoted to */
    struct {
        const char *cmd;  /* the arguments after the binary */
        const char *want; /* in the message */
    } table[] = {
        {"run p.yaml -q -o p.yaml", "it is the input p.yaml"},
        {"run p.yaml -q -o sym-p.yaml", "it is the input p.yaml"},
        {"run sym-p.yaml -q -o p.yaml", "it is the input sym-p.yaml"},
        {"run p.yaml -q -o /dev/null", "it is a device node"},
        {"run p.yaml -q -o folder", "it is a folder; a file is meant"},
        {"run p.yaml -q -o dangling.json", "symbolic link to nothing"},
        {"compare a.json b.json --json a.json", "it is the input a.json"},
        {"compare a.json b.json --json b.json", "it is the input b.json"},
        {"compare a.json b.json --markdown a.json", "it is the input a.json"},
        {"compare a.json b.json --md b.json", "it is the input b.json"},
        {"compare a.json b.json --junit a.json", "it is the input a.json"},
        {"compare a.json b.json --junit b.json", "it is the input b.json"},
        {"compare a.json b.json --json hard-a.json", "it is the input a.json"},
        {"compare a.json b.json --json sym-b.json", "it is the input b.json"},
        {"compare a.json sym-b.json --junit b.json", "it is the input sym-b.json"},
        {"compare a.json b.json --json /dev/null", "it is a device node"},
        {"compare a.json b.json --markdown folder", "it is a folder; a file is meant"},
        {"baseline a.json --dir bl", "it is the input a.json"},
        {"baseline a.json --dir a.json", "cannot write a.json: it is the input a.json"},
        {"baseline a.json --dir p.yaml", "it exists and is not a folder"},
        {"calibrate --from a.json b.json --json a.json", "it is the input a.json"},
        {"calibrate --from a.json b.json --json sym-b.json", "it is the input b.json"},
        {"calibrate p.yaml --json p.yaml", "it is the input p.yaml"},
        {"calibrate p.yaml --dir p.yaml", "it is the input p.yaml"},
        {"calibrate p.yaml --dir a.json", "it exists and is not a folder"},
        {"report a.json -o a.json", "it is the input a.json"},
        {"report b.json -o a.json", "it exists and is not a folder"},
        {"report rep/index.html -o rep", "would overwrite the input rep/index.html"},
        {"report rep/data/in.json -o rep", "would overwrite the input rep/data/in.json"},
        {"report a.json --prices rep/data/in.json -o rep", "would overwrite the input"},
        {"report rep/data/in.json -o rep2", "rep2/data: it is a symbolic link"},
        {"compare a.json b.json -f csv --junit -", "-f csv and --junit - both write"},
        {"fleet a.json b.json -f json --json -", "-f json and --json - both write"},
        {"run p.yaml -q -f openmetrics --openmetrics -", "both write to it"},
        {"fleet a.json b.json -q --json a.json", "it is the input a.json"},
        {"fleet a.json b.json -q --markdown sym-b.json", "it is the input b.json"},
        {"fleet rep/data -q --json rep/data/in.json", "it is the input rep/data/in.json"},
        {"fleet rep/data -q --json rep/data/new.json", "a .json file in the input folder rep/data"},
        {"fleet a.json -q --json x.json --markdown x.json", "--markdown and --json both name"},
        {"history a.json b.json -q --csv b.json", "it is the input b.json"},
        {"history rep/data -q --json rep/data/new.json", "a .json file in the input folder"},
        {"history a.json -q --csv /dev/null", "it is a device node"},
        {"compare a.json b.json --json x.json --junit x.json", "--json and --junit both name"},
        {"compare a.json b.json --json - --markdown -", "--markdown and --json both name it"},
        {"compare a.json b.json --json o2.md --markdown ./o2.md", "both name it"},
        {"history a.json -q --json n1 --csv ./folder/../n1", "both name it"},
    };
    const char *inputs[] = {"p.yaml",         "a.json",           "b.json",
                            "rep/index.html", "rep/data/in.json", blpath};
    char *before[6];
    for (size_t i = 0; i < 6; i++)
        before[i] = gb_test_slurp(inputs[i]);
    for (size_t t = 0; t < sizeof table / sizeof table[0]; t++) {
        int rc = sh("POCL_DEVICES=pthread %s %s 2>&1", GB_TEST_EXE, table[t].cmd);
        ASSERT_MSG(rc == 2, "%s: exit %d: %s", table[t].cmd, rc, out);
        ASSERT_MSG(strstr(out, table[t].want), "%s: no \"%s\" in: %s", table[t].cmd, table[t].want,
                   out);
        ASSERT_MSG(strstr(out, "cannot write"), "%s: %s", table[t].cmd, out);
        for (size_t i = 0; i < 6; i++) {
            char *now = gb_test_slurp(inputs[i]);
            ASSERT_MSG(strcmp(now, before[i]) == 0, "%s changed %s", table[t].cmd, inputs[i]);
            free(now);
        }
        struct stat st;
        ASSERT_MSG(lstat("sym-b.json", &st) == 0 && S_ISLNK(st.st_mode), "%s", table[t].cmd);
        ASSERT_MSG(lstat("dangling.json", &st) == 0 && S_ISLNK(st.st_mode), "%s", table[t].cmd);
        ASSERT_MSG(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode), "%s", table[t].cmd);
    }
    for (size_t i = 0; i < 6; i++)
        free(before[i]);
    /* What is allowed still works: an output through a symbolic link writes the file it names
     * and keeps the link. */
    ASSERT_EQ(symlink("c.json", "sym-c.json"), 0);
    gb_test_write_file("c.json", "{}\n");
    ASSERT_EQ(sh("%s compare a.json b.json -q --json sym-c.json 2>&1", GB_TEST_EXE), 0);
    struct stat st;
    ASSERT(lstat("sym-c.json", &st) == 0 && S_ISLNK(st.st_mode));
    char *c = gb_test_slurp("c.json");
    ASSERT_CONTAINS(c, "\"schema\": \"gpubench-compare/1\"");
    free(c);
    /* A results file behind a symbolic link: written through, the link kept. */
    ASSERT_EQ(symlink("r.json", "sym-r.json"), 0);
    gb_test_write_file("r.json", "old\n");
    int rc = sh("POCL_DEVICES=pthread %s run p.yaml -q -o sym-r.json 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "exit %d: %s", rc, out);
    ASSERT(lstat("sym-r.json", &st) == 0 && S_ISLNK(st.st_mode));
    struct gb_results rs;
    ASSERT_OK(gb_results_read("r.json", &rs));
    ASSERT_EQ(rs.nresults, 1);
    gb_results_free(&rs);
    /* A baseline path that is a symbolic link: the same. */
    ASSERT_EQ(sh("%s baseline b.json --dir bl2 --print-path", GB_TEST_EXE), 0);
    snprintf(blpath, sizeof blpath, "%.*s", (int)strcspn(out, "\n"), out);
    ASSERT_EQ(gb_mkdir_p("bl2", 0777), 0);
    gb_test_write_file("bl-target.json", "old\n");
    char target[1200];
    snprintf(target, sizeof target, "%s/bl-target.json", dir);
    ASSERT_EQ(symlink(target, blpath), 0);
    rc = sh("%s baseline b.json --dir bl2 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "exit %d: %s", rc, out);
    ASSERT(lstat(blpath, &st) == 0 && S_ISLNK(st.st_mode));
    ASSERT_OK(gb_results_read("bl-target.json", &rs));
    gb_results_free(&rs);
}

TEST(hostile_output_refusal_unit)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    gb_test_write_file("in", "x");
    char why[512];
    const char *in[] = {NULL, "-", "in"};
    ASSERT_EQ(gb_output_refusal("in", GB_OUTPUT_FILE, in, 3, why, sizeof why), -1);
    ASSERT_CONTAINS(why, "it is the input in");
    ASSERT_EQ(gb_output_refusal("./in", GB_OUTPUT_FILE, in, 3, why, sizeof why), -1);
    ASSERT_EQ(gb_output_refusal("new", GB_OUTPUT_FILE, in, 3, why, sizeof why), 0);
    ASSERT_EQ(gb_output_refusal("-", GB_OUTPUT_FILE, in, 3, why, sizeof why), 0);
    ASSERT_EQ(gb_output_refusal("", GB_OUTPUT_FILE, in, 3, why, sizeof why), -1);
    ASSERT_EQ(gb_output_refusal(".", GB_OUTPUT_FILE, NULL, 0, why, sizeof why), -1);
    ASSERT_EQ(gb_output_refusal(".", GB_OUTPUT_DIR, NULL, 0, why, sizeof why), 0);
    ASSERT_EQ(gb_output_refusal("in", GB_OUTPUT_DIR, NULL, 0, why, sizeof why), -1);
    ASSERT_EQ(gb_output_refusal("/dev/zero", GB_OUTPUT_FILE, NULL, 0, why, sizeof why), -1);
    ASSERT_CONTAINS(why, "device node");
}

/* The writers' cleaner: bidirectional controls (U+202A..U+202E, U+2066..U+2069) and the line
 * and paragraph separators (U+2028, U+2029) become '?' as C0 and C1 controls do, so that a node
 * or case name cannot show on a terminal as another; their neighbours and other text stay. */
TEST(hostile_cleaner_replaces_bidi_controls_and_separators)
{
    static const char *const bad[] = {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066",
                                      "\u2067", "\u2068", "\u2069", "\u2028", "\u2029"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char in[32];
        snprintf(in, sizeof in, "vm%sRLO", bad[i]);
        char *c = gb__clean_dup(in);
        ASSERT(c);
        ASSERT_STR(c, "vm?RLO");
        free(c);
        char buf[64] = {0};
        FILE *f = fmemopen(buf, sizeof buf - 1, "w");
        ASSERT(f);
        gb__put_clean(f, in, true);
        fclose(f);
        ASSERT_STR(buf, "vm?RLO");
    }
    /* The host a tester named, and neighbours that are not controls: kept. */
    char *c = gb__clean_dup("vm\u202eRLO\u2028LS \u2027\u202f\u2065\u206a\u00e9\u2014");
    ASSERT(c);
    ASSERT_STR(c, "vm?RLO?LS \u2027\u202f\u2065\u206a\u00e9\u2014");
    free(c);
}

/* ---- paths named in a profile, temporary files, write failures -------------------------- */

/* The names in folder dir that contain `part`, joined into buf. */
static size_t names_with(const char *dir, const char *part, char *buf, size_t cap)
{
    buf[0] = '\0';
    size_t n = 0;
    DIR *d = opendir(dir);
    ASSERT(d);
    for (struct dirent *e; (e = readdir(d));) {
        if (strstr(e->d_name, part)) {
            gb_appendf(buf, cap, "%s ", e->d_name);
            n++;
        }
    }
    closedir(d);
    return n;
}

TEST(hostile_tuning_cache_paths)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    ASSERT_EQ(mkdir("folder", 0777), 0);
    struct {
        const char *cache, *want;
    } table[] = {
        {"/dev/null", "it is a device node"},
        {"folder", "it is a folder; a file is meant"},
        {"folder/", "it is a folder; a file is meant"},
    };
    for (size_t t = 0; t < sizeof table / sizeof table[0]; t++) {
        char prof[1200];
        snprintf(
            prof, sizeof prof,
            "name: t\ntuning_cache: %s\nsuites:\n  - suite: launch\n    params: {op: latency}\n",
            table[t].cache);
        gb_test_write_file("t.yaml", prof);
        int rc = sh("%s validate t.yaml 2>&1", GB_TEST_EXE);
        ASSERT_MSG(rc == 2, "%s: exit %d: %s", table[t].cache, rc, out);
        ASSERT_CONTAINS(out, "t.yaml:2:15: tuning_cache:");
        ASSERT_CONTAINS(out, table[t].want);
    }
    struct stat st;
    ASSERT(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
    /* The store itself refuses them too (a cache named by the environment). */
    struct gb_device dev = {0};
    snprintf(dev.info.name, sizeof dev.info.name, "d");
    struct gb_tuning_entry e = {.n = 1, .value = {4}, .time_s = 1, .default_time_s = 2};
    snprintf(e.name[0], sizeof e.name[0], "WG");
    snprintf(e.search, sizeof e.search, "exhaustive");
    ASSERT_EQ(gb_tuning_store("/dev/null", &dev, "k", "p", &e), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "device node");
    ASSERT_EQ(gb_tuning_store("folder", &dev, "k", "p", &e), GB_EINVAL);
    bool found;
    struct gb_tuning_entry got;
    ASSERT_EQ(gb_tuning_lookup("/dev/zero", &dev, "k", "p", &got, &found), GB_EINVAL);
    /* A store leaves no lock or temporary file, removes a dead writer's temporary and keeps a
     * live one's. */
    gb_test_write_file("c.json.gbtmp-999999999-abcdef", "stale");
    char live[64];
    snprintf(live, sizeof live, "c.json.gbtmp-%ld-abcdef", (long)getppid());
    gb_test_write_file(live, "live");
    ASSERT_OK(gb_tuning_store("c.json", &dev, "k", "p", &e));
    ASSERT_OK(gb_tuning_lookup("c.json", &dev, "k", "p", &got, &found));
    ASSERT(found);
    char names[1024];
    ASSERT_EQ(names_with(".", ".lock", names, sizeof names), 0);
    ASSERT_MSG(names_with(".", "gbtmp", names, sizeof names) == 1, "%s", names);
    ASSERT_CONTAINS(names, live);
    /* A cache behind a symbolic link is written through, the link kept. */
    ASSERT_EQ(symlink("c.json", "link.json"), 0);
    ASSERT_OK(gb_tuning_store("link.json", &dev, "k", "q", &e));
    ASSERT(lstat("link.json", &st) == 0 && S_ISLNK(st.st_mode));
    ASSERT_OK(gb_tuning_lookup("c.json", &dev, "k", "q", &got, &found));
    ASSERT(found);
}

TEST_TIMEOUT(hostile_file_size_limit_is_a_write_error, 120)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    gb_test_write_file("p.yaml", tiny_profile);
    /* 1 KiB: the placeholder fits, the results of the case do not. */
    int rc = sh("ulimit -f 2; POCL_DEVICES=pthread %s run p.yaml -q -o r.json 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc != 128 + SIGXFSZ && rc != -1, "killed: exit %d: %s", rc, out);
    if (rc == 0)
        SKIP("the results file fit in 2 blocks: %s", out);
    ASSERT_MSG(rc == 1, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "File too large");
    ASSERT_CONTAINS(out, "could NOT all be written to r.json");
    ASSERT(!strstr(out, "results in r.json"));
    char names[1024];
    ASSERT_MSG(names_with(".", "gbtmp", names, sizeof names) == 0, "left behind: %s", names);
}

TEST(hostile_killed_write_leaves_temporaries_that_the_next_write_removes)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    /* A writer killed between creating its temporary and renaming it. */
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        char tmp[256];
        int fd = gb_tmp_create("r.json", tmp, sizeof tmp);
        _exit(fd < 0 ? 1 : 0);
    }
    int status;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char names[1024];
    ASSERT_EQ(names_with(".", "r.json.gbtmp-", names, sizeof names), 1);
    synth("r.json", 1, "d", "h", "p", "h2d", "t", 1);
    ASSERT_MSG(names_with(".", "gbtmp", names, sizeof names) == 0, "left behind: %s", names);
}

/* ---- limits instead of crashes or hours --------------------------------------------------- */

/* Runs cmd and returns its exit status, the CPU seconds it took into *cpu_s and the wall time
 * into *wall_s. */
static int timed(double *cpu_s, double *wall_s, const char *fmt, const char *a, const char *b)
{
    struct rusage r0, r1;
    getrusage(RUSAGE_CHILDREN, &r0);
    double t0 = gb_test_now_s();
    int rc = sh(fmt, a, b);
    *wall_s = gb_test_now_s() - t0;
    getrusage(RUSAGE_CHILDREN, &r1);
    *cpu_s = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
             (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
             1e-6 * (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) +
             1e-6 * (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec);
    return rc;
}

TEST(hostile_constraint_nesting_is_limited)
{
    char err[256];
    int col = 0;
    struct gb_expr *e = NULL;
    size_t n = 8000;
    char *s = malloc(6 * n + 8);
    ASSERT(s);
    /* 8,000 parentheses; a chain of "!"; a chain of "-"; a chain of calls; a long sum. */
    const char *pre[] = {"(", "!", "-", "pow2(", "!-"};
    const char *post[] = {")", "", "", ")", ""};
    for (size_t k = 0; k < 5; k++) {
        size_t w = 0;
        for (size_t i = 0; i < n; i++)
            w += (size_t)sprintf(s + w, "%s", pre[k]);
        w += (size_t)sprintf(s + w, "x");
        for (size_t i = 0; i < n && *post[k]; i++)
            w += (size_t)sprintf(s + w, "%s", post[k]);
        ASSERT_EQ(gb_expr_parse(s, &e, err, sizeof err, &col), GB_ECONFIG);
        ASSERT_CONTAINS(err, "nested deeper than");
        ASSERT(col > 1);
        ASSERT(!e);
    }
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        w += (size_t)sprintf(s + w, "%s", i ? "+x" : "x");
    ASSERT_EQ(gb_expr_parse(s, &e, err, sizeof err, &col), GB_ECONFIG);
    ASSERT_CONTAINS(err, "nested deeper than");
    /* Within the limits all is as before. */
    ASSERT_OK(
        gb_expr_parse("((((x)))) + !!-1 + min(max(x, 2), pow2(x))", &e, err, sizeof err, &col));
    gb_expr_free(e);
    free(s);
}

TEST(hostile_hostile_profiles_are_located_errors)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    size_t n = 8000;
    char *s = malloc(64 + 3 * n);
    ASSERT(s);
    /* A 20 KB constraint of nested parentheses through validate. */
    int w = sprintf(s, "name: c\nsuites:\n  - suite: tuning\n    constraints: \"");
    for (size_t i = 0; i < n; i++)
        s[w++] = '(';
    s[w++] = 'x';
    for (size_t i = 0; i < n; i++)
        s[w++] = ')';
    sprintf(s + w, "\"\n");
    gb_test_write_file("c.yaml", s);
    int rc = sh("%s validate c.yaml 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "exit %d: %.2000s", rc, out);
    ASSERT_CONTAINS(out, "c.yaml:4:");
    ASSERT_CONTAINS(out, "nested deeper than");
    free(s);
    /* 200 KB of "{a: {a: ...": refused quickly, located. */
    n = 200000 / 4;
    s = malloc(5 * n + 16);
    ASSERT(s);
    w = 0;
    for (size_t i = 0; i < n; i++)
        w += sprintf(s + w, "{a: ");
    for (size_t i = 0; i < n; i++)
        s[w++] = '}';
    sprintf(s + w, "\n");
    gb_test_write_file("y.yaml", s);
    free(s);
    double cpu, wall;
    rc = timed(&cpu, &wall, "%s validate %s 2>&1", GB_TEST_EXE, "y.yaml");
    ASSERT_MSG(rc == 2, "exit %d: %.2000s", rc, out);
    ASSERT_CONTAINS(out, "y.yaml:1:");
    ASSERT_CONTAINS(out, "nested deeper than 64 levels");
    ASSERT_MSG(cpu < 2 && wall < 20, "%.2f s CPU, %.2f s wall", cpu, wall);
}

TEST_TIMEOUT(hostile_huge_plan_is_refused_fast, 120)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    /* 4 ops x 2 memories x 2 modes x 10,000 sizes = 160,000 combinations, 140,000 cases after
     * normalize() (d2d has no host memory). */
    FILE *f = fopen("big.yaml", "w");
    ASSERT(f);
    fprintf(f, "name: big\nsuites:\n  - suite: transfer\n    params:\n"
               "      op: [h2d, d2h, d2d, bidir]\n      memory: [pinned, pageable]\n"
               "      mode: [async, sync]\n      size: [");
    for (int i = 0; i < 10000; i++)
        fprintf(f, "%s%d", i ? ", " : "", 4096 + 4 * i);
    fprintf(f, "]\n");
    ASSERT(fclose(f) == 0);
    double cpu, wall;
    int rc = timed(&cpu, &wall, "%s validate %s 2>&1", GB_TEST_EXE, "big.yaml");
    ASSERT_MSG(rc == 2, "exit %d: %.2000s", rc, out);
    ASSERT_CONTAINS(out, "big.yaml:3:5: the profile expands to more than 100000 cases");
    ASSERT_MSG(cpu < 2 && wall < 20, "%.2f s CPU, %.2f s wall", cpu, wall);
    rc = timed(&cpu, &wall, "POCL_DEVICES=pthread %s run %s -q -o r.json 2>&1", GB_TEST_EXE,
               "big.yaml");
    ASSERT_MSG(rc == 2, "exit %d: %.2000s", rc, out);
    ASSERT_CONTAINS(out, "big.yaml:3:5:");
    ASSERT_MSG(cpu < 4 && wall < 30, "%.2f s CPU, %.2f s wall", cpu, wall);
    ASSERT(!exists("r.json"));
}

/* How busy the machine is: the wall time two threads take for a fixed loop each, over the CPU
 * time the slower-served one got (1: each had a core to itself; 2: they shared one; more: other
 * work took the cores). compare reads its two files on two threads, so it is two threads' share
 * that matters. About 0.2 s of CPU. */
static volatile double ref_sink;

static void *ref_loop(void *arg)
{
    double *cpu = arg, x = 1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    for (long i = 0; i < 40000000; i++)
        x = x * 1.0000001 + 1e-9;
    ref_sink = x;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    *cpu = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return NULL;
}

static double machine_busy(void)
{
    double cpu[2] = {0, 0};
    pthread_t t;
    double t0 = gb_test_now_s();
    ASSERT_EQ(pthread_create(&t, NULL, ref_loop, &cpu[1]), 0);
    ref_loop(&cpu[0]);
    pthread_join(t, NULL);
    double wall = gb_test_now_s() - t0, least = cpu[0] < cpu[1] ? cpu[0] : cpu[1];
    return least > 0 ? wall / least : INFINITY;
}

/* compare and report of n results against n (the same file twice: one synth, one copy): exit 0,
 * the CPU and wall seconds of each into cpu[2], wall[2]. report runs with a stand-in for gnuplot
 * that writes the charts it is asked for: drawing a chart of 200,000 points is gnuplot's own work
 * (about 10 s of CPU here), not what this test measures. */
static void compare_and_report(size_t n, double cpu[2], double wall[2])
{
    synth("a.json", n, "dev", "host", "prof", "h2d", "t", 10);
    ASSERT_EQ(sh("cp a.json b.json && rm -rf rep"), 0);
    int rc = timed(&cpu[0], &wall[0], "%s compare %s -q --json c.json 2>&1", GB_TEST_EXE,
                   "a.json b.json");
    ASSERT_MSG(rc == 0, "exit %d: %.2000s", rc, out);
    printf("compare of %zu results: %.2f s CPU, %.2f s wall\n", n, cpu[0], wall[0]);
    rc = timed(&cpu[1], &wall[1], "GPUBENCH_GNUPLOT=$PWD/fake-gnuplot %s report %s -o rep 2>&1",
               GB_TEST_EXE, "a.json b.json");
    ASSERT_MSG(rc == 0, "exit %d: %.2000s", rc, out);
    ASSERT_CONTAINS(out, " charts (1 with data)");
    printf("report of 2 x %zu results: %.2f s CPU, %.2f s wall\n", n, cpu[1], wall[1]);
}

/* n results against n: compare and report scale linearly (a quadratic step made it
 * 100 times the time of 10,000; linear is 10 times), and each ends in under 10 s of wall time
 * when the machine is not busy with other work. Most of the time is reading the two
 * files (jansson's parse, on two threads). On a busy machine (a reference loop on two threads
 * gets less than two thirds of a core each) the 10 s is not judged, and the size drops to 20,000
 * (the test stays well under a minute); GB_TEST_LARGE_N sets the size and always runs it. */
TEST_TIMEOUT(hostile_compare_and_report_100k_results, 600)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    gb_test_write_file("fake-gnuplot",
                       "#!/bin/sh\n"
                       "# Writes every file the script sets as output: a chart, not drawn.\n"
                       "sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$1\" | while read -r f; do\n"
                       "  printf '<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>\\n' > \"$f\"\n"
                       "done\n");
    ASSERT_EQ(chmod("fake-gnuplot", 0755), 0);
    const size_t goal = 100000;
    const char *env = getenv("GB_TEST_LARGE_N");
    double busy = machine_busy();
    size_t n = env && atol(env) >= 1000 ? (size_t)atol(env) : busy > 1.5 ? 20000 : goal;
    printf("machine: a reference loop ran %.2f times its CPU time (1: idle)\n", busy);
    double cpu_small[2], wall_small[2], cpu[2], wall[2];
    compare_and_report(n / 10, cpu_small, wall_small);
    compare_and_report(n, cpu, wall);
    for (int k = 0; k < 2; k++) {
        const char *what = k ? "report" : "compare";
        ASSERT_MSG(cpu[k] < 25 * (cpu_small[k] > 0.2 ? cpu_small[k] : 0.2),
                   "%s: %.2f s CPU for %zu results, %.2f s for %zu: not linear", what, cpu[k], n,
                   cpu_small[k], n / 10);
        ASSERT_MSG(cpu[k] < 60, "%s: %.2f s CPU for %zu results", what, cpu[k], n);
    }
    /* The wall-time goal, judged only at its size on a machine that was quiet before and after. */
    double busy_after = machine_busy();
    if (busy_after > busy)
        busy = busy_after;
    if (n != goal || busy > 1.5)
        SKIP("10 s wall not judged: %zu results (the goal is %zu), the machine %s (a reference "
             "loop ran %.2f times its CPU time); compare took %.2f s wall (%.2f s CPU), report "
             "%.2f s (%.2f s)",
             n, goal, busy > 1.5 ? "busy" : "quiet", busy, wall[0], cpu[0], wall[1], cpu[1]);
    /* Far over the goal is a failure (a slower algorithm); just over it, on a 2-core machine
     * whose other work the reference loop may have missed, a stated skip with the figures. */
    for (int k = 0; k < 2; k++)
        ASSERT_MSG(wall[k] < 30, "%s: %.2f s wall for %zu results (%.2f s CPU)",
                   k ? "report" : "compare", wall[k], n, cpu[k]);
    if (wall[0] >= 10 || wall[1] >= 10)
        SKIP("10 s wall not met here: compare %.2f s wall (%.2f s CPU), report %.2f s (%.2f s) for "
             "%zu results; a reference loop ran %.2f times its CPU time",
             wall[0], cpu[0], wall[1], cpu[1], n, busy);
}

/* ---- hostile names through compare, baseline and nightly.sh ------------------------------ */

/* Names a results file from elsewhere may hold: shell, gnuplot, HTML, Markdown, XML and path
 * syntax. */
static const char *const hostile[] = {
    "b`touch X`q",
    "s\"q'uote\"",
    "line\nbreak\r\tz",
    "</script><script>alert(1)</script>",
    "$(touch X) ${HOME} `id`",
    "system(\"touch X\") | rm -rf / ; touch X",
    "../../../etc/passwd",
    "/abs/../x/",
    "| *md* _x_ [l](u) \\ &amp; <b>",
    "]]><!-- x --><![CDATA[",
    "esc\x1b[2J\x1b]0;title\x07"
    "bel\x7f\xc2\x9b"
    "31mcsi",
};
#define NHOSTILE (sizeof hostile / sizeof hostile[0])

/* Whether a file called X exists anywhere under dir (a command ran). */
static bool x_made(const char *dir)
{
    char o[4096];
    gb_test_shf(o, sizeof o, "find '%s' -name X | head -1", dir);
    return o[0] != '\0';
}

/* Checks that a Markdown document from compare carries hostile name h only escaped: no raw HTML
 * (every < an entity), no Markdown syntax from a name (every ` [ ] escaped), no line a name
 * broke (every line a heading, a list item, a footnote, one of the notes above the table, the
 * bold summary, a table row or empty). */
static void md_is_safe(size_t h, const char *path)
{
    char *doc = gb_test_slurp(path);
    ASSERT_MSG(doc, "name %zu: %s: %s", h, path, strerror(errno));
    ASSERT_MSG(!strchr(doc, '<'), "name %zu: raw HTML in %s: %s", h, path, doc);
    for (const char *p = doc; *p; p++)
        if (*p == '`' || *p == '[' || *p == ']')
            ASSERT_MSG(p > doc && p[-1] == '\\', "name %zu: a raw %c in %s at %zu: %s", h, *p, path,
                       (size_t)(p - doc), doc);
    for (const char *line = doc; *line;) {
        size_t l = strcspn(line, "\n");
        static const char *const notes[] = {"BASE ", "NEW ", "threshold ", "note: ", "change: "};
        bool note = false;
        for (size_t k = 0; k < sizeof notes / sizeof *notes; k++)
            note = note || strncmp(line, notes[k], strlen(notes[k])) == 0;
        size_t digits = strspn(line, "0123456789");
        ASSERT_MSG(l == 0 || strncmp(line, "# ", 2) == 0 || strncmp(line, "## ", 3) == 0 ||
                       strncmp(line, "- ", 2) == 0 || strncmp(line, "**", 2) == 0 ||
                       strncmp(line, "| ", 2) == 0 || strncmp(line, "|---", 4) == 0 || note ||
                       (digits && strncmp(line + digits, ". ", 2) == 0),
                   "name %zu: a line a name broke in %s: %.*s\n%s", h, path, (int)l, line, doc);
        line += l + (line[l] == '\n');
    }
    free(doc);
}

TEST_TIMEOUT(hostile_hostile_names_through_compare_and_baseline, 120)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    for (size_t h = 0; h < NHOSTILE; h++) {
        const char *s = hostile[h];
        synth("a.json", 4, s, s, s, s, s, 10);
        synth("b.json", 4, s, s, s, s, s, 30); /* 3x faster: a verdict row with text */
        int rc = sh("%s compare a.json b.json --markdown c.md --json c.json --junit c.xml "
                    "> c.txt 2>&1",
                    GB_TEST_EXE);
        ASSERT_MSG(rc == 0 || rc == 3, "name %zu: exit %d: %s", h, rc, out);
        ASSERT_MSG(sh("xmllint --noout c.xml 2>&1") == 0, "name %zu: JUnit: %s", h, out);
        json_error_t je;
        json_t *j = json_load_file("c.json", 0, &je);
        ASSERT_MSG(j, "name %zu: JSON: %s", h, je.text);
        json_decref(j);
        /* The whole Markdown document: the table rows, the header lines above the table (host,
         * profile, paths), the notes (device names) all escape names (gb_fputs_md). */
        md_is_safe(h, "c.md");
        /* The terminal table and the messages: no byte a terminal acts on (ESC, BEL, CR, DEL,
         * the UTF-8 C1 CSI). */
        static const char *const docs[] = {"c.txt", "c.md", "c.xml"};
        for (size_t d = 0; d < 3; d++) {
            char *txt = gb_test_slurp(docs[d]);
            ASSERT(txt);
            for (const unsigned char *p = (const unsigned char *)txt; *p; p++)
                ASSERT_MSG((*p >= 0x20 || *p == '\n' || *p == '\t' || (*p == '\r' && d == 2)) &&
                               *p != 0x7F && !(p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F),
                           "name %zu: byte 0x%02x at %zu of %s", h, *p,
                           (size_t)(p - (const unsigned char *)txt), docs[d]);
            free(txt);
        }
        /* The baseline's name stays one file in DIR whatever the host, device and profile. */
        ASSERT_EQ(sh("%s baseline b.json --dir bl --print-path", GB_TEST_EXE), 0);
        ASSERT_MSG(strncmp(out, "bl/", 3) == 0 && !strchr(out + 3, '/') &&
                       strcspn(out, "\n") == strlen(out) - 1 && strncmp(out + 3, "..", 2) != 0,
                   "name %zu: baseline path %s", h, out);
        rc = sh("%s baseline b.json --dir bl 2>&1", GB_TEST_EXE);
        ASSERT_MSG(rc == 0, "name %zu: exit %d: %s", h, rc, out);
        ASSERT(!x_made(dir));
    }
    ASSERT_EQ(sh("ls bl | wc -l"), 0);
    ASSERT_MSG(atoi(out) >= 1, "%s", out);
    ASSERT_EQ(sh("find . -type f | grep -v '^./\\(a.json\\|b.json\\|c.md\\|c.json\\|c.xml\\|"
                 "c.txt\\|bl/[^/]*\\|bl/[^/]*/nights/[^/]*\\)$' | head -3"),
              0);
    ASSERT_MSG(out[0] == '\0', "written elsewhere: %s", out);
}

TEST_TIMEOUT(hostile_hostile_names_through_nightly, 240)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    ASSERT_EQ(mkdir("in", 0777), 0);
    /* A gpubench whose `run` hands over a prepared results file (no device needed); every other
     * command is the real one. */
    FILE *f = fopen("in/fake-gpubench", "w");
    ASSERT(f);
    fprintf(f,
            "#!/bin/sh\n"
            "if [ \"$1\" = run ]; then\n"
            "  while [ $# -gt 0 ]; do\n"
            "    [ \"$1\" = -o ] && { cp \"$FAKE_RESULTS\" \"$2\"; exit 0; }\n"
            "    shift\n"
            "  done\n"
            "  exit 2\n"
            "fi\n"
            "exec '%s' \"$@\"\n",
            GB_TEST_EXE);
    ASSERT(fclose(f) == 0);
    ASSERT_EQ(chmod("in/fake-gpubench", 0755), 0);
    /* A profile file whose name is hostile too (the script derives file names from it). */
    static const char prof[] = "in/p `touch X` $(touch X) ;'\"<i>.yaml";
    gb_test_write_file(prof, tiny_profile);
    /* Every hostile name at once in three files (a night costs a compare and a report). */
    char all[3][GB_STR_MAX];
    for (size_t k = 0; k < 3; k++) {
        all[k][0] = '\0';
        for (size_t h = k; h < NHOSTILE; h += 3)
            gb_appendf(all[k], sizeof all[k], "%s", hostile[h]);
    }
    for (size_t h = 0; h < 3; h++) {
        const char *s = all[h];
        synth("in/r.json", 4, s, s, s, s, s, 10);
        for (int night = 0; night < 2; night++) {
            int rc = sh("GPUBENCH=in/fake-gpubench FAKE_RESULTS=in/r.json RESULTS_DIR=out "
                        "CONFIRM=0 %s/scripts/nightly.sh \"in/p \\`touch X\\` \\$(touch X) "
                        ";'\\\"<i>.yaml\" 2>&1",
                        GB_TEST_SRCDIR);
            ASSERT_MSG(rc == 0, "name %zu, night %d: exit %d: %s", h, night, rc, out);
        }
        ASSERT_MSG(!x_made(dir), "name %zu: a command ran", h);
    }
    /* Every night's JUnit parses, the first night's (every case LEARNING) too; nothing is
     * written outside out/ (and in/ as it was). */
    ASSERT_EQ(sh("find out -name junit.xml | wc -l"), 0);
    ASSERT_MSG(atoi(out) == 6, "%s", out);
    ASSERT_EQ(sh("find out -name junit.xml -print0 | xargs -0 xmllint --noout 2>&1"), 0);
    ASSERT_EQ(sh("find . -mindepth 1 -maxdepth 1 | sort | tr '\\n' ' '"), 0);
    ASSERT_STR(out, "./in ./out ");
    ASSERT_EQ(sh("ls in | wc -l"), 0);
    ASSERT_STR(out, "3\n");
}

/* Inputs that are folders: an output inside one is refused (a baseline's nights, calibrate's
 * runs), and a device is no results file (/dev/zero would be read for ever). */
TEST_TIMEOUT(hostile_outputs_inside_input_folders_and_device_inputs_are_refused, 120)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    synth("a.json", 4, "h", "d", "p", "s", "c", 10);
    ASSERT_EQ(sh("mkdir -p nights && cp a.json nights/n1.json && cp a.json nights/n2.json"), 0);
    int rc = sh("%s compare nights a.json -q --json nights/n1.json 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "inside the input folder nights");
    rc = sh("cmp a.json nights/n1.json");
    ASSERT_MSG(rc == 0, "the night was changed: %s", out);
    ASSERT_EQ(sh("mkdir -p runs"), 0);
    gb_test_write_file("p.yaml", "suites:\n  - suite: launch\n    params: {op: latency}\n");
    rc = sh("%s calibrate p.yaml -n 2 --dir runs --json runs/run-1.json 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "inside the input folder runs");
    double t0 = gb_test_now_s();
    rc = sh("%s compare /dev/zero a.json 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "/dev/zero is a device, not a results file");
    ASSERT(gb_test_now_s() - t0 < 10);
}

/* A GEMM of the largest order accepted (2^31) is a recorded skip, not a worker killed by
 * SIGSEGV: its byte counts overflow 64 bits. */
TEST_TIMEOUT(hostile_gemm_of_order_2_31_is_a_skip, 120)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    gb_test_write_file("g.yaml", "measure: {min_samples: 3, max_samples: 5, max_time: 50ms}\n"
                                 "suites:\n  - suite: gemm\n"
                                 "    params: {prec: f32, impl: [library, own], "
                                 "shape: '2147483648'}\n");
    int rc = sh("%s run g.yaml -d 0 -q -o g.json 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "exit %d: %s", rc, out);
    struct gb_results rs;
    ASSERT_OK(gb_results_read("g.json", &rs));
    ASSERT_U64(rs.nresults, ==, 2);
    for (size_t i = 0; i < rs.nresults; i++) {
        ASSERT_MSG(rs.results[i].status == GB_STATUS_SKIPPED, "%s", rs.results[i].reason);
        /* Its footprint, before anything is allocated (run/footprint.h). */
        ASSERT_CONTAINS(rs.results[i].reason, "B of host memory and");
    }
    gb_results_free(&rs);
}

/* One file named twice (again, through a link, or also through its folder) is one run for
 * report, fleet, history and calibrate --from, with a note; two copies of it are two files. */
TEST_TIMEOUT(hostile_a_file_named_twice_is_read_once, 120)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    ASSERT_EQ(mkdir("runs", 0777), 0);
    synth("runs/a.json", 4, "dev", "host", "prof", "cpu", "x", 10);
    ASSERT_EQ(symlink("runs/a.json", "link.json"), 0);
    bool dup[4];
    const char *paths[4] = {"runs/a.json", "./runs/a.json", "link.json", "nonexistent.json"};
    ASSERT_EQ(gb_files_duplicates(paths, 4, dup), 2);
    ASSERT(!dup[0] && dup[1] && dup[2] && !dup[3]);

    ASSERT_EQ(sh("%s report runs/a.json link.json ./runs/a.json -o rep 2>&1", GB_TEST_EXE), 0);
    ASSERT_CONTAINS(out, "link.json is a file already given: read once");
    ASSERT_CONTAINS(out, "for 1 device");
    ASSERT_EQ(sh("%s fleet runs/a.json runs -q 2>&1", GB_TEST_EXE), 0);
    ASSERT_CONTAINS(out, "1 file named more than once: read once");
    ASSERT_EQ(sh("%s history runs link.json -q 2>&1", GB_TEST_EXE), 0);
    ASSERT_CONTAINS(out, "1 file named more than once: read once");
    /* A copy of a night is that night for history (the same host, start time and profile). */
    ASSERT_EQ(sh("cp runs/a.json night-copy.json && %s history runs night-copy.json -q 2>&1",
                 GB_TEST_EXE),
              0);
    ASSERT_CONTAINS(out, "1 file left out as a copy of a night already read");
    /* ... and for a baseline: one run, one night. */
    ASSERT_EQ(sh("%s baseline runs/a.json --dir bl 2>&1", GB_TEST_EXE), 0);
    ASSERT_EQ(sh("%s baseline night-copy.json --dir bl 2>&1", GB_TEST_EXE), 2);
    ASSERT_CONTAINS(out, "not added again");
    ASSERT_EQ(
        sh("cp runs/a.json copy.json && %s report runs/a.json copy.json -o rep2 2>&1", GB_TEST_EXE),
        0);
    ASSERT(!strstr(out, "read once"));
}

/* More devices than the report shows side by side: the note counts devices, not their results
 * (3 results each of 18 devices: 2 left out, not 6). */
TEST_TIMEOUT(hostile_report_counts_the_devices_it_leaves_out, 120)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    char args[4096] = "";
    for (int i = 0; i < 18; i++) {
        char f[32], dev[32];
        snprintf(f, sizeof f, "d%02d.json", i);
        snprintf(dev, sizeof dev, "dev%02d", i);
        synth(f, 3, dev, "host", "prof", "h2d", "t", 10 + i);
        gb_appendf(args, sizeof args, " %s", f);
    }
    ASSERT_EQ(sh("%s report%s -o rep 2>&1", GB_TEST_EXE, args), 0);
    char *md = gb_test_slurp("rep/report.md");
    ASSERT(md);
    ASSERT_CONTAINS(md, "**2 more devices are in the files; at most 16 are shown side by side.**");
    free(md);
}

/* Links planted where a command writes its own files: run's placeholder beside -o and the
 * report's files in its folder are never written through (they had replaced the profile and a
 * results file). */
TEST_TIMEOUT(hostile_planted_links_are_never_written_through, 120)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    gb_test_write_file("p.yaml", tiny_profile);
    synth("a.json", 3, "dev", "host", "prof", "h2d", "t", 10);
    synth("b.json", 3, "dev", "host", "prof", "h2d", "t", 20);
    char *p_before = gb_test_slurp("p.yaml"), *a_before = gb_test_slurp("a.json");
    /* run: r.json exists, so the placeholder r.json.partial is written first; a link there to
     * the profile is removed, not followed. */
    ASSERT_EQ(sh("cp b.json r.json && ln -s p.yaml r.json.partial"), 0);
    int rc = sh("POCL_DEVICES=pthread %s run p.yaml -q -o r.json 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "run: exit %d: %s", rc, out);
    char *p_after = gb_test_slurp("p.yaml");
    ASSERT_STR(p_after, p_before);
    free(p_after);
    struct stat st;
    ASSERT(lstat("r.json.partial", &st) != 0);
    /* report: a link in the folder, in place of report.md, data/headline.csv or a chart. */
    const char *planted[] = {"report.md", "index.html", "data/headline.csv",
                             "charts/transfer_h2d.svg"};
    for (size_t i = 0; i < sizeof planted / sizeof planted[0]; i++) {
        ASSERT_EQ(sh("rm -rf rep && mkdir -p rep/data rep/charts && ln -s %s/a.json rep/%s", dir,
                     planted[i]),
                  0);
        rc = sh("%s report b.json -o rep 2>&1", GB_TEST_EXE);
        char *a_after = gb_test_slurp("a.json");
        ASSERT_MSG(strcmp(a_after, a_before) == 0, "report wrote through rep/%s", planted[i]);
        free(a_after);
        if (strstr(planted[i], "charts/")) {
            /* The chart is not drawn, and says why (exit 1: a chart failed); the rest of the
             * report is written. */
            ASSERT_MSG(rc == 1, "report: exit %d: %s", rc, out);
            ASSERT_CONTAINS(out, "1 chart could not be drawn");
            char *md = gb_test_slurp("rep/report.md");
            ASSERT_CONTAINS(md, "is a symbolic link");
            free(md);
        } else {
            ASSERT_MSG(rc == 2, "report with rep/%s a link: exit %d: %s", planted[i], rc, out);
            ASSERT_CONTAINS(out, "it is a symbolic link");
        }
    }
    free(p_before);
    free(a_before);
}

/* Every message on stderr is terminal-safe, whatever profile text, file name or argument it
 * quotes (the profile loader and the option parser wrote them raw). */
TEST(hostile_stderr_never_carries_terminal_controls)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    gb_test_write_file("esc.yaml", "name: \"n\\e]0;title\\a\"\n"
                                   "suites:\n  - suite: \"mem\\e[31mory\\x9b\"\n");
    gb_test_write_file("esc2.yaml",
                       "suites:\n  - suite: memory\n    params: {op: \"\\rx\\x7f\"}\n");
    const char *cmds[] = {
        "validate esc.yaml", "validate esc2.yaml",
        "run esc.yaml -q",   "validate esc.yaml --set $'measure.max_\\e[2Jtime=1s'",
        "$'bad\\e[2Jcmd'",   "compare $'/nonexistent/\\e[2J.json' $'\\x1b[31m.json'",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        int rc = sh("bash -c \"%s %s\" 2>&1 >/dev/null", GB_TEST_EXE, cmds[i]);
        ASSERT_MSG(rc == 2, "%s: exit %d: %s", cmds[i], rc, out);
        for (const unsigned char *p = (const unsigned char *)out; *p; p++)
            ASSERT_MSG((*p >= 0x20 || *p == '\n' || *p == '\t') && *p != 0x7F &&
                           !(p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F),
                       "%s: byte 0x%02x in: %s", cmds[i], *p, out);
    }
}

/* An output whose folder does not exist is refused before any work (compare had printed its
 * table first), and '-' is no file for run -o or calibrate --json. */
TEST_TIMEOUT(hostile_outputs_are_checked_before_the_work, 60)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    gb_test_write_file("p.yaml", tiny_profile);
    synth("a.json", 3, "dev", "host", "prof", "h2d", "t", 10);
    synth("b.json", 3, "dev", "host", "prof", "h2d", "t", 20);
    int rc = sh("%s compare a.json b.json --json nowhere/x.json 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "the folder nowhere for --json does not exist");
    ASSERT(!strstr(out, "verdict")); /* no table before the refusal */
    rc = sh("POCL_DEVICES=pthread %s run p.yaml -q -o - 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "-o needs a file name");
    rc = sh("%s calibrate --from a.json b.json --json - 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "this output needs a file name");
    struct stat st;
    ASSERT(stat("-", &st) != 0);
    /* An output folder is created, but not the folders above it. */
    rc = sh("%s report a.json -o nowhere/deep/dir 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "the folder nowhere/deep for -o does not exist");
    ASSERT(stat("nowhere", &st) != 0);
    rc = sh("%s report a.json -o newdir/ >/dev/null 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "exit %d", rc);
    ASSERT(stat("newdir", &st) == 0 && S_ISDIR(st.st_mode));
}

/* A run's start and end times are ISO 8601 UTC as every gpubench writes them: any other text
 * is a read error naming the field and the file (history sorted it as text, OpenMetrics
 * dropped its timestamp). An empty one, a run that never ended, still reads. */
TEST(hostile_run_times_that_are_not_utc_are_read_errors)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    const char *bad[] = {"not a time", "2026-11-30 04:00:00", "2026-13-30T04:00:00Z",
                         "2026-11-30T04:00:00+01:00", "2026-11-30T04:00:00Zjunk"};
    const char *fields[] = {"start_utc", "end_utc"};
    for (size_t f = 0; f < 2; f++)
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
            char doc[512];
            snprintf(doc, sizeof doc,
                     "{\"schema\": \"gpubench-results/2\", \"gpubench\": {\"version\": \"t\"}, "
                     "\"run\": {\"%s\": \"%s\"}, \"devices\": [], \"results\": []}\n",
                     fields[f], bad[i]);
            gb_test_write_file("t.json", doc);
            struct gb_results rs;
            gb_error_clear();
            ASSERT(gb_results_read("t.json", &rs) != 0);
            ASSERT_CONTAINS(gb_error_msg(), "t.json");
            char field[32];
            snprintf(field, sizeof field, "run.%s", fields[f]);
            ASSERT_CONTAINS(gb_error_msg(), field);
        }
    gb_test_write_file("t.json",
                       "{\"schema\": \"gpubench-results/2\", \"gpubench\": {\"version\": \"t\"}, "
                       "\"run\": {\"start_utc\": \"2026-11-30T04:00:00Z\", \"end_utc\": \"\"}, "
                       "\"devices\": [], \"results\": []}\n");
    struct gb_results rs;
    ASSERT_OK(gb_results_read("t.json", &rs));
    ASSERT_STR(rs.run.start_utc, "2026-11-30T04:00:00Z");
    gb_results_free(&rs);
    gb_test_write_file("n.json", "{\"schema\": \"gpubench-results/2\", \"gpubench\": "
                                 "{\"version\": \"t\"}, \"run\": {\"start_utc\": \"not a time\"}, "
                                 "\"devices\": [], \"results\": []}\n");
    int rc = sh("%s history n.json 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc != 0, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "run.start_utc");
    ASSERT(!strstr(out, "night not a time"));
}

/* --suite-threshold and --suite-tolerance naming a suite that is neither in the files nor of
 * this build are usage errors with the nearest name (a misspelt suite passed a gate with its
 * override never applied); a suite of this build that the files lack is a note. */
TEST_TIMEOUT(hostile_misspelt_suite_overrides_are_usage_errors, 60)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(chdir(dir), 0);
    synth("a.json", 3, "dev", "host", "prof", "h2d", "t", 10);
    synth("b.json", 3, "dev", "host", "prof", "h2d", "t", 10);
    int rc = sh("%s compare a.json b.json --suite-threshold memroy=0.1%% 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "--suite-threshold names 'memroy'");
    ASSERT_CONTAINS(out, "did you mean memory?");
    rc = sh("%s check a.json --suite-tolerance memroy=5%% 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "--suite-tolerance names 'memroy'");
    rc = sh("%s compare a.json b.json --suite-threshold memory=0.1 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "note: no result of suite memory in these files");
    rc = sh("%s compare a.json b.json --suite-threshold transfer=0.1 2>&1", GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "exit %d: %s", rc, out);
    ASSERT(!strstr(out, "note: no result of suite"));
}
