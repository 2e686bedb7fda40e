/* Private helpers of the multi-device suites (scaling.c, aggregate.c, peer.c, peerbw.c,
 * allreduce.c, collective.c, balance.c, parallel.c; implemented in multi_common.c): the per-device
 * forms of the suite helpers, the device-set conventions they share, and the collectives' names
 * and bus-bandwidth factors (the collectives themselves: collective_engine.h).
 *
 * A multi-device case sees its device set in ctx->devs / ctx->queues (ctx->ndevs of them, all of
 * one backend). "rank" below is a position in that set. The suites drive the devices through a
 * gb_team (run/team.h): one host thread per device, started together, so that the harness's
 * host timer around run() measures the concurrent work.
 */
#ifndef GB_SUITES_MULTI_COMMON_H
#define GB_SUITES_MULTI_COMMON_H

#include "backends/telemetry.h"
#include "run/suite.h"
#include "run/team.h"

/* ---- the team of a multi-device case --------------------------------------------------------- */

/* The team part of a multi-device case's state. The suite's state struct begins with it (its
 * first member), so that the state pointer ctx->state is also a pointer to it and gb_multi_run()
 * can be the suite's run(). */
struct gb_multi_team {
    size_t n;                /* devices the case uses: ctx->devs[0..n), ctx->queues[0..n) */
    uint64_t reps;           /* repetitions of the run in progress */
    struct gb_case_ctx *ctx; /* the case, for the jobs (set by gb_multi_team_start) */
    gb_team_fn job;          /* what every rank runs in gb_multi_run(), arg = ctx->state */
    struct gb_team *t;       /* NULL until started */
};

/* In setup, once every device's part is ready (thread creation never lands in a timed region):
 * starts a gb_team over devices 0..n-1 of the set (n: the state's gb_multi_team, set before),
 * records ctx and `job`, and makes the case host-timed (GB_TIMER_HOST: the harness's timer
 * around run() measures the devices' concurrent work). Returns 0 or gb_team_create()'s error. */
int gb_multi_team_start(struct gb_case_ctx *ctx, gb_team_fn job);

/* A gb_suite.run for a state that begins with struct gb_multi_team: records `reps` in it and
 * runs its job on ranks 0..n-1 at once (gb_team_run). Returns when every rank has finished: 0,
 * or the first failing rank's error. */
int gb_multi_run(struct gb_case_ctx *ctx, uint64_t reps);

/* For teardown: stops and joins the team's threads, if it was started; safe to call twice. */
void gb_multi_team_stop(struct gb_case_ctx *ctx);

/* The `ndev` axis of a suite (scaling, aggregate, allreduce), for gb_multi_ndev(): 1 to
 * GB_MAX_SET devices, [1, 2, 4, 8] by default; `what` (a string literal) starts the help text. */
#define GB_MULTI_NDEV_AXIS(what) \
    GB_AXIS_INT("ndev", "[1, 2, 4, 8]", 1, GB_MAX_SET, what " (above the set's size: skipped)")

/* The `ndev` axis: how many devices of the set the case uses, into *n. A value above the set's
 * size is a skip with a reason (a single device reports its 1-device baselines and skips the
 * rest). Returns 0 or GB_ESKIP. */
int gb_multi_ndev(struct gb_case_ctx *ctx, size_t *n);

/* Whether buffers of `bytes` in all, the largest `largest` bytes, fit device `rank` of the
 * set: 0, or a recorded skip (GB_ESKIP) naming the device and the sizes when they exceed its
 * global memory or its largest allocation (a size that cannot fit is the profile's choice, not
 * a failure; checked before any host buffer of that size is made). */
int gb_multi_fits(struct gb_case_ctx *ctx, size_t rank, uint64_t bytes, uint64_t largest);

/* Whether a case of the set's first n ranks fits the host's available memory (run/footprint.h):
 * `host` bytes of host buffers in all, and `per_rank` bytes of device buffers on each rank,
 * which count as host memory on a rank whose device's memory is the host's (GB_CAP_UNIFIED: CPU
 * OpenCL devices, all of them in the one host). 0, or a recorded skip (GB_ESKIP) naming the sizes
 * and the limit, before anything of that size is allocated. */
int gb_multi_fits_host(struct gb_case_ctx *ctx, size_t n, double host, double per_rank);

/* gb_case_alloc / gb_case_upload / gb_case_download / gb_case_build on device `rank` of the set
 * (a skip reason lands in ctx->reason as with the single-device forms). */
int gb_multi_alloc(struct gb_case_ctx *ctx, size_t rank, uint64_t bytes, enum gb_mem_kind kind,
                   struct gb_buf **out);
int gb_multi_upload(struct gb_case_ctx *ctx, size_t rank, struct gb_buf *dst, const void *src,
                    uint64_t bytes);
int gb_multi_download(struct gb_case_ctx *ctx, size_t rank, void *dst, struct gb_buf *src,
                      uint64_t bytes);
/* gb_case_poison() on device `rank`'s buffer b: the outputs of a multi-device case. */
int gb_multi_poison(struct gb_case_ctx *ctx, size_t rank, struct gb_buf *b, uint64_t bytes,
                    enum gb_dtype t);
int gb_multi_build(struct gb_case_ctx *ctx, size_t rank, const char *file, const char *kernel,
                   const char *const *defines, size_t ndefines, struct gb_program **prog,
                   struct gb_kernel **k);

/* Whether every device of the set has capability bits `caps`. */
bool gb_multi_all_have(const struct gb_case_ctx *ctx, size_t n, uint64_t caps);

/* Element range of part `i` of `n` equal parts of `total` elements: [*lo, *hi). */
void gb_multi_part(uint64_t total, size_t n, size_t i, uint64_t *lo, uint64_t *hi);

/* Median of v[0..n) (n >= 1); v is reordered. */
double gb_multi_median(double *v, size_t n);

/* The overlap of a step of two parts that may run at once, from the seconds of each alone
 * (compute_s, comm_s >= 0) and of the step with both (step_s > 0): *overhead = max(0, step -
 * compute - comm), what the step took beyond the serialised sum, seconds; *overlap = (compute +
 * comm - step) / min(compute, comm), the time both ran at once as a share of the shorter part (0
 * serialised, 1 the shorter part wholly hidden). That share lies in [0, 1] when max(compute, comm)
 * <= step <= compute + comm; outside it, noise or overhead rather than overlap made it, so it is
 * given only within GB_MULTI_OVERLAP_SLACK of [0, 1]. Returns true with *overlap set there;
 * else false with *overlap NAN and why[0..len) saying why none is given ("" where a part is 0,
 * one device: nothing to overlap; else "step > compute + comm by X ms: overhead, not overlap" or
 * "step < the longer part by X ms: noise, not overlap", under 64 characters: a text figure).
 * why may be NULL. */
#define GB_MULTI_OVERLAP_SLACK 0.1
bool gb_multi_overlap(double compute_s, double comm_s, double step_s, double *overlap,
                      double *overhead, char *why, size_t len);

/* Whether device `dst` can read a buffer of device `src` directly (ops->peer_copy enqueued on
 * dst's queue): both have GB_CAP_PEER and the backend's peer_can_access says yes. Otherwise a
 * copy between them is staged through pinned host memory. */
bool gb_multi_peer_direct(const struct gb_case_ctx *ctx, struct gb_device *dst,
                          struct gb_device *src);

/* ---- topology: the links the data crossed ---------------------------------------------------- */

/* The link between devices i and j of the set for a figure, into out[0..len): gb_topology_pair()
 * of their device infos ("NVLink4 x18", "PCIe Gen5 x16"), an unknown one cut to its first
 * clause ("unknown: no NVML", the reason left out to fit a text figure). Returns the kind. */
enum gb_link_kind gb_multi_link(const struct gb_case_ctx *ctx, size_t i, size_t j, char *out,
                                size_t len);

/* The `topology` text of devices order[0..n) of the set (order NULL: ranks 0..n-1) passing data
 * each to the next (and the last to the first when `ring`), over `path` (what the suite did:
 * "peer" for a direct copy, "staged" through pinned host memory), into out[0..len):
 *   "0>1>2>3>0 staged, unknown: no NVML"      every pair's link the same
 *   "0>1 peer, NVLink4 x18; 1>0 peer, PCIe Gen4 x16"    else each pair's (cut with "..." at len)
 * Fewer than two devices: "one device: no link". */
void gb_multi_topology_text(const struct gb_case_ctx *ctx, const size_t *order, size_t n, bool ring,
                            const char *path, char *out, size_t len);

/* Adds the text figure `topology` (gb_multi_topology_text, 64 characters at most) to the case;
 * nothing with fewer than two devices. A ring's collectives take one line, as collective.c's:
 *     gb_multi_topology_figure(ctx, NULL, c->team.n, true, c->direct ? "peer" : "staged");  */
void gb_multi_topology_figure(struct gb_case_ctx *ctx, const size_t *order, size_t n, bool ring,
                              const char *path);

/* The largest piece of a copy staged through pinned host memory (peer, peerbw, allreduce):
 * 4 MiB. */
#define GB_MULTI_STAGE_MAX ((uint64_t)4 << 20)

/* ---- collectives (collective.c, allreduce.c) ---------------------------------------------- */

/* nccl-tests' name of collective `op` ("allreduce", "allgather", "reducescatter", "broadcast",
 * "reduce", "alltoall", "sendrecv"), also the `coll` axis value of the collective suite. */
const char *gb_coll_op_name(enum gb_coll_op op);

/* The bus-bandwidth factor of collective `op` over n >= 1 ranks: busbw = algbw x factor, with
 * algbw = size / time and size = count x the type's size (struct gb_coll's count). From
 * nccl-tests, doc/PERFORMANCE.md: all-reduce 2 (n - 1) / n; all-gather, reduce-scatter and
 * all-to-all (n - 1) / n; broadcast, reduce and send/recv 1. The factor makes busbw the rate
 * each link of a ring would sustain, comparable across n (0 on one rank for the first four).
 * Pure. */
double gb_coll_busbw_factor(enum gb_coll_op op, size_t n);

#endif
