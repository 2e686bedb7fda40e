/* gpubench — helper processes of a case: what a suite that needs several processes (tenants,
 * startup) asks for instead of forking on its own.
 *
 * A helper is this program started afresh (gb_child_exe, "/proc/self/exe" unless a test sets
 * it), told by GB_CHILD_ENV which suite's `child` callback to run and on which device; before
 * anything else, main() hands such a process to gb_child_main(). The case talks to its helper
 * in lines of text over two pipes (commands down, replies up; a line is at most GB_CHILD_LINE
 * bytes with its newline). A helper stays in the worker's process group, so that a supervisor
 * that kills a hung worker's group takes its helpers along; it dies with its parent
 * (PR_SET_PDEATHSIG) and ends when its command pipe closes. Every wait on a helper has a limit,
 * and a helper that dies or does not answer in time is described in words ("killed by signal 9
 * (SIGKILL)", "no reply within 10 s"), so that a suite records it as that helper's failure.
 *
 * Not thread-safe: one case's thread drives its helpers.
 */
#ifndef GB_CHILD_H
#define GB_CHILD_H

#include <stdbool.h>
#include <stddef.h>

/* The environment variable that makes gpubench a helper: "SUITE:BACKEND:INDEX" (the suite whose
 * child callback runs, the backend by name and the device's index in it); its argument is in
 * GB_CHILD_ARG_ENV. The command pipe is fd 3, the reply pipe fd 4. */
#define GB_CHILD_ENV "GPUBENCH_CHILD"
#define GB_CHILD_ARG_ENV "GPUBENCH_CHILD_ARG"
#define GB_CHILD_LINE 4096

/* The program a helper runs: "/proc/self/exe" by default. A test binary that is not gpubench
 * points it at build/gpubench. */
extern const char *gb_child_exe;

/* ---- the case's side ------------------------------------------------------------------- */

struct gb_child;

struct gb_child_spec {
    const char *suite;   /* whose child callback the helper runs */
    const char *backend; /* the device's backend, by name ("opencl") */
    int device;          /* the device's index in that backend */
    const char *arg;     /* the callback's argument (any text without a NUL; may be NULL) */
    /* "NAME=VALUE" strings set in the helper's environment on top of this process's
     * (a compiler cache directory), NULL-terminated; NULL: none. */
    const char *const *env;
};

/* Starts a helper. *out is set on success. This process ignores SIGPIPE from then on, so that
 * writing to a helper that has died fails rather than kills. The start time (gb_child_started) is taken just
 * before fork. GB_EBACKEND (pipe, fork) or GB_ENOMEM, with the detail set. */
int gb_child_start(const struct gb_child_spec *spec, struct gb_child **out);

/* gb_now() (base/units.h) just before the helper was forked: the origin of its start-up. */
double gb_child_started(const struct gb_child *c);

/* Sends one command line (no newline in `line`; one is added). GB_EBACKEND when the helper has
 * gone (the detail says how it ended), GB_EINVAL for a line too long or holding a newline. */
int gb_child_send(struct gb_child *c, const char *line);

/* Waits up to timeout_s seconds for the helper's next reply line and copies it into line[0..len)
 * without its newline. 0; GB_ETIMEOUT with "no reply within N s" as the detail; GB_EBACKEND
 * when the helper ended first (the detail: "exited with status 3", "killed by signal 9
 * (SIGKILL)"), or sent a line longer than GB_CHILD_LINE. */
int gb_child_recv(struct gb_child *c, char *line, size_t len, double timeout_s);

/* Closes the helper's command pipe (its cue to end) and waits up to timeout_s for it to exit;
 * kills it (SIGKILL) when it does not. 0 when it exited with status 0; else GB_EBACKEND with how
 * it ended in why[0..len) ("exited with status 2", "killed by signal 11 (SIGSEGV)", "did not end
 * within 5 s: killed"). Safe to call twice (the second returns the first's verdict). */
int gb_child_end(struct gb_child *c, double timeout_s, char *why, size_t len);

/* Kills the helper at once (SIGKILL) and reaps it. */
void gb_child_kill(struct gb_child *c);

/* Whether the helper is still running (not reaped). */
bool gb_child_alive(struct gb_child *c);
/* The helper's CPU time so far, user and system (seconds, from /proc/PID/stat); NAN when it
 * cannot be read (reaped, no /proc). A suite that keeps a case alive (gb_worker_heartbeat)
 * while a helper works uses it to tell work (a compiler running) from a helper that is stopped
 * or blocked, which must not hold the case past its limit. */
double gb_child_cpu_s(struct gb_child *c);

/* Ends the helper (gb_child_end with a 5 s limit when it still runs) and frees c. NULL: no-op. */
void gb_child_free(struct gb_child *c);

/* ---- the helper's side ----------------------------------------------------------------- */

/* What a suite's child callback gets. */
struct gb_child_io {
    const char *suite;
    const char *backend;
    int device;
    const char *arg; /* GB_CHILD_ARG_ENV's value, "" when absent */
    double t_main;   /* gb_now() when main() began: the end of the process's start */
    int in_fd, out_fd;
    char buf[GB_CHILD_LINE];
    size_t have; /* bytes of buf read but not yet returned */
};

/* Sends one reply line, printf-style (a newline is added; newlines in the text become spaces).
 * 0 or GB_EIO when the case has gone. */
int gb_child_reply(struct gb_child_io *io, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Reads the next command line into line[0..len), without its newline. timeout_s < 0: waits
 * for ever. 0; GB_ETIMEOUT when none came in time (a poll for a command while working:
 * timeout 0); GB_EIO at the end of the pipe (the case has closed it or gone). */
int gb_child_read(struct gb_child_io *io, char *line, size_t len, double timeout_s);

/* In main(), first: when GB_CHILD_ENV is set, runs the named suite's child callback from
 * `suites` (a struct gb_suite_table, run/suite.h) and returns the process's exit status (2 for
 * a bad GB_CHILD_ENV or a suite without a callback, with a message on stderr); -1 when this
 * process is not a helper. t_main is gb_now() at main's start. */
struct gb_suite_table;
int gb_child_main(const struct gb_suite_table *suites, double t_main);

#endif
