/* gpubench — helper processes of a case (contract in child.h). */
#include "run/child.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/units.h"
#include "base/util.h"
#include "run/suite.h"

extern char **environ;

const char *gb_child_exe = "/proc/self/exe";

struct gb_child {
    pid_t pid; /* 0 once reaped */
    int cmd_fd, reply_fd;
    double started;
    int status; /* the wait status once reaped */
    bool ended; /* gb_child_end has given its verdict */
    int end_rc;
    char end_why[160];
    char buf[GB_CHILD_LINE];
    size_t have;
};

/* How a reaped helper ended, in words. */
static void describe(int st, char *buf, size_t len)
{
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        const char *name = sigabbrev_np(sig);
        snprintf(buf, len, "killed by signal %d (SIG%s)", sig, name ? name : "?");
    } else if (WIFEXITED(st)) {
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
    } else {
        snprintf(buf, len, "ended (wait status %d)", st);
    }
}

/* Reaps the helper if it has ended (without waiting when `block` is false). */
static bool reap(struct gb_child *c, bool block)
{
    if (!c->pid)
        return true;
    int st = 0;
    pid_t r;
    while ((r = waitpid(c->pid, &st, block ? 0 : WNOHANG)) < 0 && errno == EINTR)
        ;
    if (r == c->pid || (r < 0 && errno == ECHILD)) {
        c->status = r == c->pid ? st : 0;
        c->pid = 0;
        return true;
    }
    return false;
}

int gb_child_start(const struct gb_child_spec *spec, struct gb_child **out)
{
    *out = NULL;
    struct gb_child *c = calloc(1, sizeof *c);
    if (!c)
        return GB_FAIL(GB_ENOMEM, "a helper process");
    c->cmd_fd = c->reply_fd = -1;
    /* The environment: ours without a helper's variables, then the spec's, then ours. */
    size_t n = 0, nx = 0;
    while (environ[n])
        n++;
    while (spec->env && spec->env[nx])
        nx++;
    char **envp = calloc(n + nx + 3, sizeof *envp);
    char role[256], arg[GB_CHILD_LINE + 32];
    if (!envp) {
        free(c);
        return GB_FAIL(GB_ENOMEM, "a helper's environment");
    }
    size_t k = 0;
    for (size_t i = 0; i < nx; i++)
        envp[k++] = (char *)spec->env[i];
    for (size_t i = 0; i < n; i++) {
        const char *e = environ[i];
        bool mine = strncmp(e, GB_CHILD_ENV "=", strlen(GB_CHILD_ENV) + 1) == 0 ||
                    strncmp(e, GB_CHILD_ARG_ENV "=", strlen(GB_CHILD_ARG_ENV) + 1) == 0;
        /* A variable the spec sets wins over ours (getenv finds the first). */
        for (size_t j = 0; j < nx && !mine; j++) {
            const char *eq = strchr(spec->env[j], '=');
            size_t len = eq ? (size_t)(eq - spec->env[j]) : strlen(spec->env[j]);
            mine = strncmp(e, spec->env[j], len) == 0 && e[len] == '=';
        }
        if (!mine)
            envp[k++] = environ[i];
    }
    snprintf(role, sizeof role, "%s=%s:%s:%d", GB_CHILD_ENV, spec->suite, spec->backend,
             spec->device);
    snprintf(arg, sizeof arg, "%s=%s", GB_CHILD_ARG_ENV, spec->arg ? spec->arg : "");
    envp[k++] = role;
    envp[k++] = arg;
    envp[k] = NULL;

    int down[2] = {-1, -1}, up[2] = {-1, -1};
    if (pipe2(down, O_CLOEXEC) || pipe2(up, O_CLOEXEC)) {
        int e = errno;
        for (int i = 0; i < 2; i++) {
            if (down[i] >= 0)
                close(down[i]);
            if (up[i] >= 0)
                close(up[i]);
        }
        free(envp);
        free(c);
        return GB_USER_FAIL(GB_EBACKEND, "cannot start a helper process: pipe: %s", strerror(e));
    }
    char *argv[] = {(char *)"gpubench", NULL};
    /* A helper that has died must not take this process along when a command is written to
     * it: the write fails with EPIPE instead (nothing in gpubench relies on SIGPIPE). */
    signal(SIGPIPE, SIG_IGN);
    fflush(NULL);
    c->started = gb_now();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(down[0]);
        close(down[1]);
        close(up[0]);
        close(up[1]);
        free(envp);
        free(c);
        return GB_USER_FAIL(GB_EBACKEND, "cannot start a helper process: fork: %s", strerror(e));
    }
    if (pid == 0) {
        /* Async-signal-safe calls only until exec. The pipes go to fds 3 and 4, by way of
         * fds above them so that neither dup2 overwrites the other end. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int in = fcntl(down[0], F_DUPFD_CLOEXEC, 10), outfd = fcntl(up[1], F_DUPFD_CLOEXEC, 10);
        if (in < 0 || outfd < 0 || dup2(in, 3) < 0 || dup2(outfd, 4) < 0)
            _exit(127);
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null >= 0)
            dup2(null, 0);
        dup2(2, 1); /* stdout is the run's summary */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        execve(gb_child_exe, argv, envp);
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    free(envp);
    c->pid = pid;
    c->cmd_fd = down[1];
    c->reply_fd = up[0];
    *out = c;
    return 0;
}

double gb_child_started(const struct gb_child *c)
{
    return c->started;
}

bool gb_child_alive(struct gb_child *c)
{
    return c && !reap(c, false);
}

static int gone(struct gb_child *c, const char *what)
{
    char how[96];
    /* The helper closed its end: it has ended or is about to; give it a moment to be reaped. */
    for (int i = 0; i < 200 && !reap(c, false); i++) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    if (c->pid)
        snprintf(how, sizeof how, "closed its pipe");
    else
        describe(c->status, how, sizeof how);
    return GB_USER_FAIL(GB_EBACKEND, "helper process %s %s", how, what);
}

int gb_child_send(struct gb_child *c, const char *line)
{
    size_t n = strlen(line);
    if (n + 1 > GB_CHILD_LINE || strchr(line, '\n'))
        return GB_FAIL(GB_EINVAL, "a helper's command must be one line under %d bytes",
                       GB_CHILD_LINE);
    if (c->cmd_fd < 0)
        return GB_FAIL(GB_EINVAL, "the helper's command pipe is closed");
    char msg[GB_CHILD_LINE + 1];
    memcpy(msg, line, n);
    msg[n] = '\n';
    size_t off = 0;
    while (off < n + 1) {
        /* A pipe whose reader has gone raises SIGPIPE, which gb_child_start ignores in this
         * process: EPIPE comes back instead. */
        ssize_t w = write(c->cmd_fd, msg + off, n + 1 - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return gone(c, "before it took the next command");
        off += (size_t)w;
    }
    return 0;
}

/* Moves the first line of buf (there is one) into line. */
static void take_line(char *buf, size_t *have, char *line, size_t len)
{
    char *nl = memchr(buf, '\n', *have);
    size_t n = (size_t)(nl - buf);
    size_t m = n < len - 1 ? n : len - 1;
    memcpy(line, buf, m);
    line[m] = '\0';
    memmove(buf, nl + 1, *have - n - 1);
    *have -= n + 1;
}

/* Reads a line from fd through buf, waiting up to timeout_s (< 0: for ever). 0, GB_ETIMEOUT,
 * GB_EIO at the end of the pipe or on an error, GB_EINVAL for a line too long. */
static int read_line(int fd, char *buf, size_t *have, char *line, size_t len, double timeout_s)
{
    const double deadline = timeout_s >= 0 ? gb_now() + timeout_s : INFINITY;
    for (;;) {
        if (memchr(buf, '\n', *have)) {
            take_line(buf, have, line, len);
            return 0;
        }
        if (*have >= GB_CHILD_LINE)
            return GB_EINVAL;
        int ms = -1;
        if (isfinite(deadline)) {
            double left = deadline - gb_now();
            ms = left > 0 ? (int)ceil(left * 1e3) : 0;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return GB_EIO;
        if (r == 0)
            return GB_ETIMEOUT;
        ssize_t got = read(fd, buf + *have, GB_CHILD_LINE - *have);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return GB_EIO;
        *have += (size_t)got;
    }
}

int gb_child_recv(struct gb_child *c, char *line, size_t len, double timeout_s)
{
    if (c->reply_fd < 0)
        return GB_FAIL(GB_EINVAL, "the helper's reply pipe is closed");
    int rc = read_line(c->reply_fd, c->buf, &c->have, line, len, timeout_s);
    if (rc == GB_ETIMEOUT)
        return GB_USER_FAIL(GB_ETIMEOUT, "helper process sent no reply within %.3g s", timeout_s);
    if (rc == GB_EINVAL)
        return GB_USER_FAIL(GB_EBACKEND, "helper process sent a line over %d bytes", GB_CHILD_LINE);
    if (rc)
        return gone(c, "before its reply");
    return 0;
}

void gb_child_kill(struct gb_child *c)
{
    if (c && c->pid) {
        kill(c->pid, SIGKILL);
        reap(c, true);
    }
}

int gb_child_end(struct gb_child *c, double timeout_s, char *why, size_t len)
{
    if (c->ended) {
        snprintf(why, len, "%s", c->end_why);
        return c->end_rc;
    }
    if (c->cmd_fd >= 0)
        close(c->cmd_fd);
    c->cmd_fd = -1;
    const double deadline = gb_now() + timeout_s;
    bool killed = false;
    while (!reap(c, false)) {
        if (gb_now() >= deadline) {
            gb_child_kill(c);
            killed = true;
            break;
        }
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    if (c->reply_fd >= 0)
        close(c->reply_fd);
    c->reply_fd = -1;
    c->ended = true;
    if (killed)
        snprintf(c->end_why, sizeof c->end_why, "did not end within %.3g s: killed", timeout_s);
    else
        describe(c->status, c->end_why, sizeof c->end_why);
    c->end_rc = !killed && WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0 ? 0 : GB_EBACKEND;
    snprintf(why, len, "%s", c->end_why);
    return c->end_rc;
}

void gb_child_free(struct gb_child *c)
{
    if (!c)
        return;
    char why[160];
    gb_child_end(c, 5.0, why, sizeof why);
    free(c);
}

/* ---- the helper's side ------------------------------------------------------------------- */

int gb_child_reply(struct gb_child_io *io, const char *fmt, ...)
{
    char line[GB_CHILD_LINE];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return GB_EIO;
    size_t len = strlen(line);
    for (size_t i = 0; i < len; i++)
        if (line[i] == '\n' || line[i] == '\r')
            line[i] = ' ';
    line[len++] = '\n';
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(io->out_fd, line + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return GB_EIO;
        off += (size_t)w;
    }
    return 0;
}

int gb_child_read(struct gb_child_io *io, char *line, size_t len, double timeout_s)
{
    int rc = read_line(io->in_fd, io->buf, &io->have, line, len, timeout_s);
    return rc == GB_EINVAL ? GB_EIO : rc;
}

int gb_child_main(const struct gb_suite_table *suites, double t_main)
{
    const char *spec = getenv(GB_CHILD_ENV);
    if (!spec)
        return -1;
    char suite[64], backend[64];
    int device = -1, used = 0;
    if (sscanf(spec, "%63[^:]:%63[^:]:%d%n", suite, backend, &device, &used) != 3 || spec[used] ||
        device < 0) {
        fprintf(stderr, "gpubench helper: bad %s \"%s\"\n", GB_CHILD_ENV, spec);
        return 2;
    }
    const struct gb_suite *s = gb_suite_table_find(suites, suite);
    if (!s || !s->child) {
        fprintf(stderr, "gpubench helper: suite \"%s\" has no helper processes\n", suite);
        return 2;
    }
    /* A case that has gone leaves a closed pipe: a write then fails rather than kills. */
    signal(SIGPIPE, SIG_IGN);
    const char *arg = getenv(GB_CHILD_ARG_ENV);
    struct gb_child_io io = {.suite = suite,
                             .backend = backend,
                             .device = device,
                             .arg = arg ? arg : "",
                             .t_main = t_main,
                             .in_fd = 3,
                             .out_fd = 4};
    return s->child(&io);
}

double gb_child_cpu_s(struct gb_child *c)
{
    if (!c || c->pid <= 0)
        return NAN;
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)c->pid);
    if (!gb_read_head(path, buf, sizeof buf))
        return NAN;
    /* "pid (comm) state ppid ... utime stime ...": fields 14 and 15, counted after the comm,
     * which may itself hold spaces and parentheses (the last ')' ends it). */
    const char *p = strrchr(buf, ')');
    unsigned long long ut = 0, st = 0;
    if (!p ||
        sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return NAN;
    const long hz = sysconf(_SC_CLK_TCK);
    return hz > 0 ? (double)(ut + st) / (double)hz : NAN;
}
