/* gpubench — a supervised run: the cases of a plan run in a worker process, one at a time, under
 * a wall-clock limit per case that the supervisor (the `run` process) enforces from outside.
 *
 * A kernel that hangs cannot be cancelled portably, and a driver that crashes takes its process
 * with it; so the process that waits on the devices is not the one that owns the results. The
 * supervisor starts a worker (the same program, re-executed, which loads the same profile and
 * plans the same cases), and the worker sends each finished case's results up a pipe. On a case
 * that outlives its limit, or a worker that dies (a signal, abort, out of memory, an exit), the
 * supervisor kills the worker's process group, records the case failed with the reason ("timed
 * out after 63 s", "worker killed by signal 11 (SIGSEGV)"), starts a fresh worker at the next
 * case and goes on. Ctrl-C and SIGTERM reach only the supervisor (the worker has its own process
 * group): it kills the worker at once and writes the finished cases with `interrupted: true`.
 *
 * The pipe carries, per case, a begin message and then the case's results in a compact binary
 * form (struct gb_result as it is in memory, then its samples): both ends are the same build.
 */
#ifndef GB_SUPERVISE_H
#define GB_SUPERVISE_H

#include <signal.h>
#include <stdio.h>

#include "run/plan.h"
#include "run/runner.h"
#include "results/results.h"

/* The environment variable that makes `gpubench run` a worker: "FD:FIRST:NCASES" (the pipe's
 * write end, the first case to run, the number of cases the supervisor planned). */
#define GB_WORKER_ENV "GPUBENCH__WORKER"

/* Test hooks, read by the worker only: GPUBENCH_TEST_HANG=K makes the worker sleep for ever at
 * the start of case K (0-based, in plan order), GPUBENCH_TEST_CRASH=K makes it raise SIGSEGV
 * there. They stand in for a kernel that never ends and a driver that crashes. */
#define GB_TEST_HANG_ENV "GPUBENCH_TEST_HANG"
#define GB_TEST_CRASH_ENV "GPUBENCH_TEST_CRASH"

/* The wall-clock limit of one case in seconds: cfg->case_timeout when set (profile key
 * measure.case_timeout), else 60 s + 10 x (warmup_time + max_time): the measurement's own budget
 * with a wide margin for calibration and sampling past max_time, plus a fixed allowance for
 * starting a worker, opening the device, building programs and verifying. 63 s for the quick
 * profile, 70 s for the built-in defaults.
 * The limit is on a case's silence, not its length: it counts from the case's start and starts
 * again at every heartbeat (gb_worker_heartbeat: a warm-up run, a calibration batch or a sample
 * finished), so a case that measures many configurations one after another (tuning, scaling's
 * subcases) runs as long as each of them keeps finishing, while one launch or build that goes
 * quiet for the limit fails the case. */
double gb_case_timeout(const struct gb_measure_cfg *cfg);

/* In a worker: tells the supervisor that the current case is making progress (called by
 * gb_measure after each warm-up run, calibration batch and sample), which restarts the case's
 * limit. Sends at most one message a second; a no-op outside a worker. Not async-signal-safe. */
void gb_worker_heartbeat(void);

struct gb_supervise_opts {
    const char *out_path;         /* results file, rewritten atomically after every case */
    FILE *progress;               /* "case i of N, ETA" lines; NULL for none */
    struct gb_progress_span span; /* the progress line's place in the command (runner.h) */
    volatile sig_atomic_t *stop;  /* raised by SIGINT / SIGTERM: kill the worker and stop */
    const char *exe;              /* the program a worker runs ("/proc/self/exe") */
    char *const *argv;            /* and its arguments: this run's command line */
};

/* Runs every case of plan in workers, as gb_run_plan does in this process (runner.h), with the
 * same results, statuses and return values (0, 1 some case failed, GB_EINTR, GB_EIO), plus the
 * cases that timed out or whose worker died, failed with the reason. rs must have its `run`
 * metadata filled in. GB_EBACKEND when a worker cannot be started at all (fork, exec, or three
 * workers in a row that end before starting a case), with the detail. */
int gb_supervise_plan(const struct gb_plan *plan, const struct gb_supervise_opts *o,
                      struct gb_results *rs);

/* The worker's side: spec is the value of GB_WORKER_ENV; plan the worker's own plan of the same
 * profile. Runs the cases from FIRST and sends their results to FD. Returns a process exit
 * status: 0 when every case ran, 2 when spec is bad or the plan is not the supervisor's (the
 * profile changed during the run), 1 when the pipe broke or memory ran out. */
int gb_worker_run(const struct gb_plan *plan, const char *spec);

#endif
