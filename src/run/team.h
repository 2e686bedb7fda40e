/* gpubench — a device team: one host thread per device of a multi-device case, started together.
 *
 * A multi-device suite creates a team over ctx->devs in setup() (thread creation never lands in
 * a timed region) and, in run(), hands every thread the same job. The threads wait at a common
 * barrier and start together; gb_team_run() returns when every thread has finished, so the
 * harness's host timer around run() measures the wall time of the concurrent work, never a sum
 * of runs made one after another. The team also records, per thread, the host time from the
 * common start to the end of its part (the device's busy time in that run): the harness's clock,
 * not the suite's.
 *
 * A job on one device that fails does not hang the others: it aborts the team's barriers
 * (gb_team_barrier() then returns an error in every thread) and gb_team_run() returns the first
 * failure, with its message prefixed by the device it happened on.
 */
#ifndef GB_TEAM_H
#define GB_TEAM_H

#include <stddef.h>

#include "backends/backend.h"

struct gb_team;

/* The job of thread `rank` (0-based, the position of its device in the team). Returns 0 or a
 * negative gb_err with the detail set (GB_FAIL), as backend calls do. */
typedef int (*gb_team_fn)(struct gb_team *t, size_t rank, void *arg);

/* Starts one thread per device devs[0..n) (1 <= n <= GB_MAX_SET; the devices label errors).
 * GB_EINVAL for a bad n, GB_ENOMEM / GB_EBACKEND when a thread cannot be made. */
int gb_team_create(struct gb_device *const *devs, size_t n, struct gb_team **out);
/* Stops and joins the threads. NULL is a no-op. */
void gb_team_destroy(struct gb_team *t);

/* Runs fn(t, rank, arg) on ranks 0..n-1 at once (n <= the team's size): every thread waits at a
 * start barrier, runs, and records its busy time. Returns when all have finished: 0, or the error
 * of the first rank that failed (its message as "opencl:1 (name): message"). */
int gb_team_run(struct gb_team *t, size_t n, gb_team_fn fn, void *arg);

/* Runs fn on thread `rank` alone (the device by itself, as a baseline) and returns its busy
 * time in *seconds (host clock). */
int gb_team_run_one(struct gb_team *t, size_t rank, gb_team_fn fn, void *arg, double *seconds);

/* Inside a job: waits until every rank of the current run has reached this barrier (a step of a
 * ring algorithm). Returns 0, or GB_EBACKEND when another rank failed and the run is being
 * abandoned; the job should then return that error at once. */
int gb_team_barrier(struct gb_team *t);

/* Seconds thread `rank` spent on its part of the last run: from the common start to the end of
 * its job, less the time it waited in gb_team_barrier(); 0 when it took no part. */
double gb_team_busy(const struct gb_team *t, size_t rank);

/* Seconds from the first start to the last end of the ranks of the last run (its makespan on
 * the team's clock, without the wake-up of the threads); 0 before any run. */
double gb_team_span(const struct gb_team *t);

#endif
