/* gpubench-tests [-l] [PATTERN...] — runs every registered test (or those whose name contains
 * one of the PATTERNs, or begins with PREFIX for a PATTERN ^PREFIX), each in its own process
 * with its timeout, and ends with the line "N passed, N failed, N skipped". Exit 0 when none
 * failed. */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/units.h"
#include "base/util.h"
#include "run/child.h"
#include "suites/suites.h"
#include "test.h"

#if GB_TEST_ASAN
#include <sanitizer/lsan_interface.h>
#endif

static struct gb_test *tests;
static size_t ntests, captests;

void gb_test_register(const char *name, void (*fn)(void), int timeout_s)
{
    if (ntests == captests) {
        captests = captests ? 2 * captests : 64;
        tests = realloc(tests, captests * sizeof *tests);
        if (!tests)
            abort();
    }
    tests[ntests++] = (struct gb_test){name, fn, timeout_s};
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct gb_test *)a)->name, ((const struct gb_test *)b)->name);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int gb_test_sh(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = 0;
    if (cap)
        out[0] = '\0';
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, p)) > 0) {
        if (cap && n + 1 < cap) {
            size_t take = got < cap - 1 - n ? got : cap - 1 - n;
            memcpy(out + n, buf, take);
            n += take;
            out[n] = '\0';
        }
    }
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

const char *gb_test_tmpdir(void)
{
    static char path[4096];
    const char *base = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/gpubench-test-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(path)) {
        perror("mkdtemp");
        exit(GB_TEST_FAIL);
    }
    return path;
}

/* The test running now (its own process group), for the signal handler: Ctrl-C or SIGTERM on
 * the runner ends that test's whole group too, so no gpubench it started outlives the runner. */
static volatile sig_atomic_t running_pid;

static void on_stop(int sig)
{
    if (running_pid > 0)
        kill(-(pid_t)running_pid, SIGKILL);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Every test's timeout is multiplied by this: $GPUBENCH_TEST_TIMEOUT_SCALE (a number >= 1), else
 * 3 under AddressSanitizer (which with UBSan makes our code 2-3x slower, and the uninstrumented
 * PoCL and NVRTC slower too through the intercepted allocator), else 1. */
static double timeout_scale = 1.0;

static void set_timeout_scale(void)
{
    const char *s = getenv("GPUBENCH_TEST_TIMEOUT_SCALE");
    if (s && *s) {
        char *end;
        double v = strtod(s, &end);
        if (*end == '\0' && v >= 1.0 && v <= 100.0)
            timeout_scale = v;
        else
            fprintf(stderr, "GPUBENCH_TEST_TIMEOUT_SCALE=%s ignored (wants 1 to 100)\n", s);
    } else if (GB_TEST_ASAN) {
        timeout_scale = 3.0;
    }
}

/* Runs one test in a child with stdout/stderr to a temporary file; returns its verdict. */
static int run_one(const struct gb_test *t, char *log, size_t cap, double *secs)
{
    const double limit_s = timeout_scale * t->timeout_s;
    char tmpl[] = "/tmp/gpubench-test-log-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) {
        snprintf(log, cap, "mkstemp: %s", strerror(errno));
        return GB_TEST_FAIL;
    }
    unlink(tmpl);
    double t0 = now();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        t->fn();
        fflush(NULL);
#if GB_TEST_ASAN
        /* _exit skips the exit-time leak check: run it here, so a leak fails the test. */
        __lsan_do_leak_check();
#endif
        _exit(GB_TEST_PASS);
    }
    setpgid(pid, pid); /* as the child does: no window where a signal finds no group */
    running_pid = pid;
    int status = 0, verdict;
    bool timed_out = false;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            break;
        if (now() - t0 > limit_s) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            timed_out = true;
            break;
        }
        usleep(2000);
    }
    running_pid = 0;
    *secs = now() - t0;
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, log, cap - 1);
    log[n > 0 ? n : 0] = '\0';
    close(fd);
    if (timed_out) {
        size_t l = strlen(log);
        snprintf(log + l, cap - l, "\ntimed out after %.0f s\n", limit_s);
        verdict = GB_TEST_FAIL;
    } else if (WIFEXITED(status)) {
        verdict = WEXITSTATUS(status);
        if (verdict != GB_TEST_PASS && verdict != GB_TEST_SKIP)
            verdict = GB_TEST_FAIL;
    } else {
        size_t l = strlen(log);
        snprintf(log + l, cap - l, "\nkilled by signal %d\n",
                 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        verdict = GB_TEST_FAIL;
    }
    return verdict;
}

/* Whether test `name` is selected by `pattern`: a substring of it, or, for "^PREFIX", a prefix. */
static bool matches(const char *name, const char *pattern)
{
    if (pattern[0] == '^')
        return strncmp(name, pattern + 1, strlen(pattern + 1)) == 0;
    return strstr(name, pattern) != NULL;
}

int main(int argc, char **argv)
{
    /* A helper process of a case that a test runs in this binary (run/child.h) is this binary
     * started afresh: it runs the suite's helper and nothing of the runner's. */
    const double t_main = gb_now();
    int helper = gb_child_main(gb_suites_builtin(), t_main);
    if (helper >= 0)
        return helper;
    bool list = false;
    int first = 1;
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("usage: %s [-l | -v] [PATTERN...]\n"
               "  runs every test whose name contains one of the PATTERNs (all without one; a\n"
               "  PATTERN ^PREFIX matches names that begin with PREFIX), each in its own process,\n"
               "  and ends with \"N passed, N failed, N skipped\"\n"
               "  -l  lists the tests instead\n"
               "  -v  prints every test's output, a passed one's too\n"
               "exit status: 0 none failed, 1 a test failed, 2 a PATTERN matches no test\n",
               argv[0]);
        return 0;
    }
    bool verbose = false;
    if (argc > 1 && strcmp(argv[1], "-l") == 0) {
        list = true;
        first = 2;
    } else if (argc > 1 && strcmp(argv[1], "-v") == 0) {
        verbose = true;
        first = 2;
    }
    /* A pattern that matches no test is a mistake (a typo would pass silently). */
    for (int a = first; a < argc; a++) {
        bool any = false;
        for (size_t i = 0; i < ntests && !any; i++)
            any = matches(tests[i].name, argv[a]);
        if (!any) {
            fprintf(stderr, "%s: no test name contains \"%s\" (-l lists them)\n", argv[0], argv[a]);
            return 2;
        }
    }
    qsort(tests, ntests, sizeof *tests, by_name);
    set_timeout_scale();
    signal(SIGINT, on_stop);
    signal(SIGTERM, on_stop);
    /* Tests never touch the user's tuning cache: a profile with tuned: true or a tuning search
     * reads and writes this run's own file instead. */
    if (!list && !getenv("GPUBENCH_TUNING_CACHE")) {
        static char cache[GB_PATH_JOIN];
        snprintf(cache, sizeof cache, "%s/tuning.json", gb_test_tmpdir());
        setenv("GPUBENCH_TUNING_CACHE", cache, 1);
    }
    /* Nor the source tree's reference expectations or profiles by name: a test that wants them
     * names the folder (GPUBENCH_SOURCE_DIR=GB_TEST_SRCDIR) or runs in the source tree. */
    if (!list)
        setenv("GPUBENCH_SOURCE_DIR", "", 0);
    size_t passed = 0, failed = 0, skipped = 0;
    static char log[1 << 16];
    for (size_t i = 0; i < ntests; i++) {
        bool want = first >= argc;
        for (int a = first; a < argc; a++)
            if (matches(tests[i].name, argv[a]))
                want = true;
        if (!want)
            continue;
        if (list) {
            printf("%s\n", tests[i].name);
            continue;
        }
        double secs = 0;
        int v = run_one(&tests[i], log, sizeof log, &secs);
        if (v == GB_TEST_PASS) {
            passed++;
            printf("ok     %-44s %6.2f s\n", tests[i].name, secs);
            if (verbose)
                printf("------ output of %s ------\n%s\n------\n", tests[i].name, log);
        } else if (v == GB_TEST_SKIP) {
            skipped++;
            const char *why = strstr(log, "skip reason: ");
            char reason[256] = "";
            if (why) {
                snprintf(reason, sizeof reason, "%s", why + 13);
                reason[strcspn(reason, "\n")] = '\0';
            }
            printf("skip   %-44s %6.2f s  (%s)\n", tests[i].name, secs, reason);
        } else {
            failed++;
            printf("FAIL   %-44s %6.2f s\n", tests[i].name, secs);
            printf("------ output of %s ------\n%s\n------\n", tests[i].name, log);
        }
        fflush(stdout);
    }
    if (!list)
        printf("%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
