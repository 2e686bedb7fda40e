/* gpubench — a supervised run (contract in supervise.h). */
#include "run/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "run/measure.h"
#include "run/runner.h"

extern char **environ;

double gb_case_timeout(const struct gb_measure_cfg *cfg)
{
    if (cfg->case_timeout > 0)
        return cfg->case_timeout;
    return 60.0 + 10.0 * (cfg->warmup_time + cfg->max_time);
}

/* ---- the pipe --------------------------------------------------------------------------------- */

/* A worker sends HELLO once it has planned the run, then BEGIN k, any number of ALIVE k
 * (heartbeats) and RESULTS k for each case. */
enum { MSG_HELLO = 'H', MSG_BEGIN = 'B', MSG_ALIVE = 'A', MSG_RESULTS = 'R' };

struct msg {
    uint32_t tag;   /* MSG_* */
    uint32_t count; /* MSG_RESULTS: results that follow */
    uint64_t k;     /* the case */
};

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* 0 when all n bytes came, 1 at end of file before the first, -1 on a short or failed read. */
static int read_all(int fd, void *p, size_t n)
{
    char *c = p;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, c + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            return got == 0 ? 1 : -1;
        if (r < 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

/* ---- the worker ------------------------------------------------------------------------------- */

struct worker {
    int fd;
};

static void test_fault(size_t k)
{
    const char *h = getenv(GB_TEST_HANG_ENV), *c = getenv(GB_TEST_CRASH_ENV);
    if (c && *c && strtoull(c, NULL, 10) == k) {
        signal(SIGSEGV, SIG_DFL); /* past any handler a library installed (LLVM's) */
        raise(SIGSEGV);
    }
    if (h && *h && strtoull(h, NULL, 10) == k)
        for (;;)
            pause();
}

/* The worker's heartbeat (gb_worker_heartbeat): its pipe (-1 outside a worker), the case now
 * running and when the last heartbeat went. */
static int hb_fd = -1;
static uint64_t hb_case;
static double hb_last;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void gb_worker_heartbeat(void)
{
    if (hb_fd < 0)
        return;
    double t = now_s();
    if (t - hb_last < 1.0)
        return;
    hb_last = t;
    struct msg m = {.tag = MSG_ALIVE, .k = hb_case};
    (void)write_all(hb_fd, &m, sizeof m); /* a broken pipe shows at the case's end */
}

static void worker_begin(void *arg, size_t k)
{
    struct worker *w = arg;
    struct msg m = {.tag = MSG_BEGIN, .k = k};
    hb_case = k;
    hb_last = now_s();
    (void)write_all(w->fd, &m, sizeof m); /* a broken pipe shows at the case's end */
    test_fault(k);
}

static int worker_done(void *arg, size_t k, struct gb_results *rs, size_t first)
{
    struct worker *w = arg;
    struct msg m = {.tag = MSG_RESULTS, .k = k, .count = (uint32_t)(rs->nresults - first)};
    int rc = write_all(w->fd, &m, sizeof m);
    for (size_t i = first; i < rs->nresults && !rc; i++) {
        struct gb_result r = rs->results[i];
        /* Parameter names point into this process: send them as text. */
        for (size_t j = 0; j < r.params.n; j++) {
            snprintf(r.names_store[j], sizeof r.names_store[j], "%s",
                     r.params.name[j] ? r.params.name[j] : "");
            r.params.name[j] = NULL;
        }
        double *samples = r.samples;
        unsigned char *marks = r.tel.marks;
        r.samples = NULL;
        r.tel.marks = NULL;
        rc = write_all(w->fd, &r, sizeof r);
        if (!rc && r.nsamples)
            rc = write_all(w->fd, samples, r.nsamples * sizeof *samples);
        if (!rc && marks && r.tel.nmarks)
            rc = write_all(w->fd, marks, r.tel.nmarks);
    }
    /* The machine's state as this worker knows it (telemetry: the CPU part and the devices it
     * opened); plain data. */
    if (!rc)
        rc = write_all(w->fd, &rs->run.machine, sizeof rs->run.machine);
    /* What opening each device found out (gb__runner_device_opened), by device slot: the count,
     * then each slot's loop-trip limit. The supervisor, which opens no device, records it. */
    const uint32_t ndev = (uint32_t)rs->ndevices;
    if (!rc)
        rc = write_all(w->fd, &ndev, sizeof ndev);
    for (uint32_t i = 0; i < ndev && !rc; i++)
        rc = write_all(w->fd, &rs->devices[i].info.max_loop_trips, sizeof(uint32_t));
    /* Sent: the supervisor keeps them. */
    for (size_t i = first; i < rs->nresults; i++) {
        free(rs->results[i].samples);
        gb_tel_summary_free(&rs->results[i].tel);
    }
    rs->nresults = first;
    return rc ? GB_EIO : 0;
}

int gb_worker_run(const struct gb_plan *plan, const char *spec)
{
    int fd;
    unsigned long long first, ncases;
    if (sscanf(spec, "%d:%llu:%llu", &fd, &first, &ncases) != 3 || fd < 0) {
        fprintf(stderr, "gpubench worker: bad %s \"%s\"\n", GB_WORKER_ENV, spec);
        return 2;
    }
    if (ncases != plan->ncases || first > ncases) {
        fprintf(stderr,
                "gpubench worker: the profile now plans %zu cases, not %llu: it changed "
                "during the run\n",
                plan->ncases, ncases);
        return 2;
    }
    struct worker w = {.fd = fd};
    struct msg hello = {.tag = MSG_HELLO, .k = first};
    if (write_all(fd, &hello, sizeof hello))
        return 1;
    struct gb_results rs = {0};
    hb_fd = fd;
    gb_measure_set_heartbeat(gb_worker_heartbeat);
    struct gb_runner_opts o = {.first_case = (size_t)first,
                               .case_begin = worker_begin,
                               .case_done = worker_done,
                               .hook_arg = &w};
    int r = gb_run_plan(plan, &o, &rs);
    hb_fd = -1;
    gb_measure_set_heartbeat(NULL);
    gb_results_free(&rs);
    close(fd);
    return r == 0 || r == 1 ? 0 : 1;
}

/* ---- the supervisor --------------------------------------------------------------------------- */

struct sup {
    const struct gb_plan *plan;
    const struct gb_supervise_opts *o;
    struct gb_results *rs;
    size_t next;    /* the first case not recorded yet */
    size_t entered; /* gb__runner_enter_devices progress */
    bool failed;
    int ret;        /* GB_EIO once a write failed */
    double t_start; /* of the run, for the progress line's ETA */
    pid_t pid;      /* the worker, 0 when none */
    int fd;         /* its pipe's read end */
    char **envp;    /* the worker's environment, with GB_WORKER_ENV last */
    size_t nenv;
};

static void utc_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void write_out(struct sup *S)
{
    utc_now(S->rs->run.end_utc, sizeof S->rs->run.end_utc);
    if (S->o->out_path && gb_results_write(S->rs, S->o->out_path))
        S->ret = GB_EIO;
}

/* The environment of a worker: ours without GB_WORKER_ENV, and a slot for it at the end. */
static int make_env(struct sup *S)
{
    size_t n = 0;
    while (environ[n])
        n++;
    S->envp = calloc(n + 2, sizeof *S->envp);
    if (!S->envp)
        return GB_FAIL(GB_ENOMEM, "the worker's environment");
    size_t len = strlen(GB_WORKER_ENV);
    for (size_t i = 0; i < n; i++)
        if (!(strncmp(environ[i], GB_WORKER_ENV, len) == 0 && environ[i][len] == '='))
            S->envp[S->nenv++] = environ[i];
    return 0;
}

static int start_worker(struct sup *S)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC))
        return GB_USER_FAIL(GB_EBACKEND, "cannot start a worker: pipe: %s", strerror(errno));
    /* Everything the child needs is made before fork: it only calls async-signal-safe
     * functions until exec. */
    char spec[128];
    snprintf(spec, sizeof spec, "%s=%d:%zu:%zu", GB_WORKER_ENV, 3, S->next, S->plan->ncases);
    S->envp[S->nenv] = spec;
    S->envp[S->nenv + 1] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return GB_USER_FAIL(GB_EBACKEND, "cannot start a worker: fork: %s", strerror(errno));
    }
    if (pid == 0) {
        setpgid(0, 0);                    /* Ctrl-C at the terminal reaches the supervisor only */
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* and a killed supervisor takes its worker along */
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null >= 0)
            dup2(null, 0);
        dup2(2, 1); /* the summary on stdout is the supervisor's */
        if (p[1] == 3 ? fcntl(3, F_SETFD, 0) < 0 : dup2(p[1], 3) < 0)
            _exit(127);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execve(S->o->exe, S->o->argv, S->envp);
        _exit(127);
    }
    setpgid(pid, pid); /* as the child does: whichever runs first */
    close(p[1]);
    S->pid = pid;
    S->fd = p[0];
    return 0;
}

/* Kills the worker's process group and reaps the worker; its wait status into *status. */
static void end_worker(struct sup *S, bool kill_it, int *status)
{
    int st = 0;
    if (S->pid > 0) {
        if (kill_it)
            kill(-S->pid, SIGKILL);
        while (waitpid(S->pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    if (S->fd >= 0)
        close(S->fd);
    S->pid = 0;
    S->fd = -1;
    if (status)
        *status = st;
}

/* Records case S->next failed with reason, and moves on. */
static int record_failed(struct sup *S, const char *reason)
{
    size_t k = S->next;
    if (gb__runner_enter_devices(S->plan, S->rs, &S->entered, k + 1))
        return GB_ENOMEM;
    struct gb_result r;
    if (gb__runner_case_header(S->plan, S->rs, k, &r))
        return GB_ENOMEM;
    r.status = GB_STATUS_FAILED;
    snprintf(r.reason, sizeof r.reason, "%s", reason);
    if (gb_results_add(S->rs, &r))
        return GB_ENOMEM;
    S->failed = true;
    S->next++;
    write_out(S);
    return 0;
}

/* Takes into the run's machine state what a worker read: the CPU part from the first worker
 * that recorded one, and each device's state the first time a worker reports it. */
static void merge_machine(struct gb_tel_machine *into, const struct gb_tel_machine *from)
{
    if (!from->recorded)
        return;
    if (!into->recorded) {
        *into = *from;
        return;
    }
    for (size_t i = 0; i < from->ndev && i < GB_TEL_MAX_DEVS; i++) {
        const struct gb_tel_device_state *d = &from->dev[i];
        bool known = d->device < 0;
        for (size_t j = 0; j < into->ndev && !known; j++)
            known = into->dev[j].device == d->device;
        if (!known && into->ndev < GB_TEL_MAX_DEVS)
            into->dev[into->ndev++] = *d;
    }
}

/* Reads the `count` results of case k that follow a MSG_RESULTS and records them. 0, 1 when the
 * pipe broke, GB_ENOMEM. */
static int receive_results(struct sup *S, size_t k, uint32_t count)
{
    const struct gb_suite *suite = S->plan->cases[k].run->suite;
    if (gb__runner_enter_devices(S->plan, S->rs, &S->entered, k + 1))
        return GB_ENOMEM;
    for (uint32_t i = 0; i < count; i++) {
        struct gb_result r;
        if (read_all(S->fd, &r, sizeof r))
            return 1;
        for (size_t j = 0; j < r.params.n && j < GB_MAX_AXES; j++)
            r.params.name[j] = r.names_store[j];
        bool with_marks = r.tel.nmarks > 0;
        r.samples = NULL;
        r.tel.marks = NULL;
        if (r.nsamples) {
            r.samples = malloc(r.nsamples * sizeof *r.samples);
            if (!r.samples)
                return GB_FAIL(GB_ENOMEM, "results of case %zu", k);
            if (read_all(S->fd, r.samples, r.nsamples * sizeof *r.samples)) {
                free(r.samples);
                return 1;
            }
        }
        if (with_marks) {
            r.tel.marks = malloc(r.tel.nmarks);
            if (!r.tel.marks || read_all(S->fd, r.tel.marks, r.tel.nmarks)) {
                bool oom = !r.tel.marks;
                free(r.samples);
                free(r.tel.marks);
                return oom ? GB_FAIL(GB_ENOMEM, "results of case %zu", k) : 1;
            }
        }
        /* The case's own result is the last; the figures across cases need the earlier ones. */
        if (i + 1 == count && (suite->flags & GB_SUITE_SCALING))
            gb__runner_scaling_figures(suite, S->rs, &r);
        S->failed |= r.status == GB_STATUS_FAILED;
        if (gb_results_add(S->rs, &r)) {
            free(r.samples);
            return GB_ENOMEM;
        }
    }
    struct gb_tel_machine m;
    if (read_all(S->fd, &m, sizeof m))
        return 1;
    merge_machine(&S->rs->run.machine, &m);
    /* The worker's device slots agree with ours (gb__runner_enter_devices); a limit found when
     * it opened a device is the device's. */
    uint32_t ndev = 0;
    if (read_all(S->fd, &ndev, sizeof ndev))
        return 1;
    for (uint32_t i = 0; i < ndev; i++) {
        uint32_t trips;
        if (read_all(S->fd, &trips, sizeof trips))
            return 1;
        if (trips && i < S->rs->ndevices)
            S->rs->devices[i].info.max_loop_trips = trips;
    }
    S->next = k + 1;
    write_out(S);
    return 0;
}

/* Why a worker ended ("worker killed by signal 11 (SIGSEGV)"), into buf. */
static void death_reason(int st, char *buf, size_t len)
{
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        const char *name = sigabbrev_np(sig);
        snprintf(buf, len, "worker killed by signal %d (SIG%s)%s", sig, name ? name : "?",
                 sig == SIGKILL ? ": out of memory, or killed from outside" : "");
    } else if (WIFEXITED(st)) {
        snprintf(buf, len, "worker exited with status %d", WEXITSTATUS(st));
    } else {
        snprintf(buf, len, "worker ended (wait status %d)", st);
    }
}

/* Runs one worker from S->next until it ends, times out or the run is stopped. Returns 0 to
 * go on (a fresh worker for what is left), 1 when the run was stopped, GB_E* to end it. Counts
 * workers that ended before planning the run (no HELLO) in *stillborn. */
static int supervise_worker(struct sup *S, int *stillborn)
{
    const struct gb_supervise_opts *o = S->o;
    int rc = start_worker(S);
    if (rc)
        return rc;
    bool begun = false, started = false;
    double limit = gb_case_timeout(&S->plan->cases[S->next].run->measure);
    double deadline = now_s() + limit;
    for (;;) {
        if (o->stop && *o->stop) {
            end_worker(S, true, NULL);
            return 1;
        }
        double left = deadline - now_s();
        if (left <= 0) {
            end_worker(S, true, NULL);
            char why[128];
            snprintf(why, sizeof why, "timed out after %.0f s%s (measure.case_timeout)", limit,
                     begun ? "" : " before the case began");
            *stillborn = 0;
            return record_failed(S, why);
        }
        struct pollfd pfd = {.fd = S->fd, .events = POLLIN};
        int timeout_ms = left > 0.1 ? 100 : (int)(left * 1000) + 1;
        int n = poll(&pfd, 1, timeout_ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            continue;
        struct msg m;
        int r = read_all(S->fd, &m, sizeof m);
        if (r == 0 && m.tag == MSG_HELLO && m.k == S->next) {
            started = true;
            *stillborn = 0;
            continue;
        }
        if (r == 0 && m.tag == MSG_ALIVE && m.k == S->next && begun) {
            deadline = now_s() + limit; /* the limit is on silence (gb_case_timeout) */
            continue;
        }
        if (r == 0 && m.tag == MSG_BEGIN && m.k == S->next) {
            begun = true;
            limit = gb_case_timeout(&S->plan->cases[m.k].run->measure);
            deadline = now_s() + limit;
            if (gb__runner_enter_devices(S->plan, S->rs, &S->entered, m.k + 1))
                return GB_ENOMEM;
            gb__runner_progress(o->progress, m.k, S->plan, S->t_start, &o->span);
            continue;
        }
        if (r == 0 && m.tag == MSG_RESULTS && m.k == S->next) {
            int rr = receive_results(S, (size_t)m.k, m.count);
            if (rr < 0)
                return rr;
            if (rr == 0) {
                begun = false;
                if (S->next < S->plan->ncases) {
                    limit = gb_case_timeout(&S->plan->cases[S->next].run->measure);
                    deadline = now_s() + limit;
                }
                continue;
            }
        } else if (r == 0) {
            end_worker(S, true, NULL);
            return GB_USER_FAIL(GB_EBACKEND,
                                "the worker sent message %" PRIu32 " for case %" PRIu64
                                " while case %zu was due",
                                m.tag, m.k, S->next);
        }
        /* End of file or a broken message: the worker is gone. */
        int st;
        end_worker(S, r != 1, &st);
        if (S->next >= S->plan->ncases)
            return 0; /* every case is recorded; how the worker ended no longer matters */
        char why[160];
        death_reason(st, why, sizeof why);
        if (!started && WIFEXITED(st) && WEXITSTATUS(st) == 2)
            return GB_USER_FAIL(GB_EBACKEND,
                                "the worker could not plan the run (%s); see the "
                                "messages above",
                                why);
        if (!started && ++*stillborn >= 3)
            return GB_USER_FAIL(GB_EBACKEND,
                                "three workers in a row ended before planning the "
                                "run (last: %s); see the messages above",
                                why);
        return record_failed(S, why);
    }
}

int gb_supervise_plan(const struct gb_plan *plan, const struct gb_supervise_opts *o,
                      struct gb_results *rs)
{
    struct sup S = {.plan = plan, .o = o, .rs = rs, .fd = -1, .t_start = now_s()};
    rs->run.interrupted = true;
    rs->run.cases_planned = plan->ncases;
    gb__runner_chart_hints(plan, rs);
    int rc = make_env(&S);
    bool interrupted = false;
    int stillborn = 0;
    while (!rc && S.next < plan->ncases) {
        rc = supervise_worker(&S, &stillborn);
        if (rc == 1) {
            interrupted = true;
            rc = 0;
            break;
        }
    }
    free(S.envp);
    if (o->progress) {
        fprintf(o->progress, "\r\033[K");
        fflush(o->progress);
    }
    if (rc && rc != GB_EBACKEND)
        return rc;
    rs->run.interrupted = interrupted || rc;
    if (!rc) {
        const int derived = gb__runner_derive(plan, rs);
        if (derived == GB_ENOMEM)
            return GB_ENOMEM;
        S.failed |= derived == 1;
    }
    /* Until a case is recorded the file there is the caller's placeholder, or the results of an
     * earlier run that nothing should replace yet. */
    if (S.next > 0)
        write_out(&S);
    if (rc)
        return rc;
    if (S.ret)
        return S.ret;
    if (interrupted)
        return GB_EINTR;
    return S.failed ? 1 : 0;
}
