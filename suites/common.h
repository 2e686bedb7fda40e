/* Helpers shared by the suites: what a suite's callbacks use to report (skips, mismatches,
 * figures, a headline), build kernels and move buffers, and the shapes that several suites
 * repeated, written once. Implemented in suites/common.c; for the suites (and their tests) only:
 * the floors below never call them (the suite contract itself is run/suite.h). The multi-device
 * suites' own helpers are in multi_common.h. */
#ifndef GB_SUITES_COMMON_H
#define GB_SUITES_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/precision.h"
#include "run/suite.h"
#include "run/tuning_cache.h"

/* ---- results, kernels, buffers --------------------------------------------------------------- */

/* Formats a skip reason into ctx->reason and returns GB_ESKIP. */
int gb_case_skip(struct gb_case_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Formats a verification failure into ctx->reason and returns GB_EVERIFY. */
int gb_case_mismatch(struct gb_case_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Adds a named figure to the case's result (at most GB_MAX_FIGURES; more are dropped): a scalar
 * with its unit ("GB/s", "s", "" for a ratio), one value per device of the set (n values, in
 * set order), or a text. */
void gb_case_figure(struct gb_case_ctx *ctx, const char *name, const char *unit, double value);
void gb_case_figure_devices(struct gb_case_ctx *ctx, const char *name, const char *unit,
                            const double *values, size_t n);
/* gb_case_figure with the figure's bound in its unit, where the suite knows a tighter or other
 * one than its unit gives (gb_results_check_figures, run/case_result.h): above it the result
 * fails as implausible. */
void gb_case_figure_bounded(struct gb_case_ctx *ctx, const char *name, const char *unit,
                            double value, double bound);
void gb_case_text(struct gb_case_ctx *ctx, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* From figures() only: makes values[0..n) (n >= 1, one per kept sample, in the order taken,
 * finite) the result's headline samples, with their metric ("latency"), unit ("us") and
 * direction: the result's value becomes their median and its statistics theirs, while
 * op_time_us keeps the harness's time per operation. For a suite whose operation holds many
 * timed events (requests, process stages) and whose figure of merit is their distribution.
 * GB_EINVAL for an empty or non-finite set (the headline is left alone), GB_ENOMEM. */
int gb_case_headline(struct gb_case_ctx *ctx, const char *metric, const char *unit,
                     enum gb_better better, const double *values, size_t n);
/* After gb_case_headline: the result's value becomes `value` (finite) in place of the samples'
 * median, for a suite whose figure of merit is pooled over every event of the kept samples (the
 * p99 of all their requests, as LoadGen reports a run's); the statistics, the noise judgement
 * and compare's spread stay the samples'. GB_EINVAL without a headline or for a non-finite
 * value. */
int gb_case_headline_value(struct gb_case_ctx *ctx, double value);

/* Builds kernel `kernel` from the embedded kernel file `file` ("stream.cl"), with the prelude
 * prepended and `defines` ("NAME=VALUE"). On GB_EBUILD the error detail holds the build log.
 * *prog and *k are both set or both NULL. */
int gb_case_build(struct gb_case_ctx *ctx, const char *file, const char *kernel,
                  const char *const *defines, size_t ndefines, struct gb_program **prog,
                  struct gb_kernel **k);

/* Allocates a buffer on ctx->dev; GB_ETOOBIG becomes a skip with a reason naming the size and
 * the device limit. */
int gb_case_alloc(struct gb_case_ctx *ctx, uint64_t bytes, enum gb_mem_kind kind,
                  struct gb_buf **out);

/* Host <-> device helpers for setup/verify (not for timed regions): blocking copies through a
 * temporary pageable buffer. */
int gb_case_upload(struct gb_case_ctx *ctx, struct gb_buf *dst, const void *src, uint64_t bytes);
int gb_case_download(struct gb_case_ctx *ctx, void *dst, struct gb_buf *src, uint64_t bytes);

/* Reads `bytes` of src back into new host memory (gb_case_download), for verify. Returns the
 * copy (malloc'd, the caller frees it) with *err = 0, or NULL with *err set to GB_ENOMEM or the
 * download's error, and nothing left to free. */
void *gb_case_read_back(struct gb_case_ctx *ctx, struct gb_buf *src, uint64_t bytes, int *err);

/* Frees *b (a buffer), or *k and *p (a kernel and its program), where not NULL, and sets them
 * to NULL, so that a teardown after a partial setup, or a second teardown, is safe. */
void gb_case_free_buf(struct gb_case_ctx *ctx, struct gb_buf **b);
void gb_case_free_kernel(struct gb_case_ctx *ctx, struct gb_kernel **k, struct gb_program **p);

/* Fills p[0..n) with a fixed xorshift64 byte stream (Marsaglia, "Xorshift RNGs", JSS 2003, the
 * 13/7/17 triple) started from `seed`: a different stream per seed, the same on every run, so a
 * copy that moved the wrong bytes, or another device's bytes, cannot match by chance. */
void gb_fill_pattern(unsigned char *p, uint64_t n, uint64_t seed);

/* The plain F32 GEMM of the library-backed suites: C (m x n, ldc m) = alpha A (m x k, lda m)
 * B (k x n, ldb k), column-major, F32 in, out and computed, no transposes, one matrix (beta 0):
 * the descriptor for ops->gemm (or ops->gemv where n is 1). */
struct gb_gemm gb_gemm_f32(uint64_t m, uint64_t n, uint64_t k, double alpha, struct gb_buf *a,
                           struct gb_buf *b, struct gb_buf *c);

/* Returns when gb_now() (base/units.h, s) reaches t: nanosleep to 200 us before t, then spin (a
 * short spin: two shared cores must not spin long). For the servers that replay a trace's
 * arrival times (serve, llm, tenants). */
void gb_wait_until(double t);
/* The host clock as the now() and wait_until() callbacks of a server that replays a trace
 * (serve_queue.h, llm_sched.h): gb_now() and gb_wait_until(t); p is not used. */
double gb_replay_now(void *p);
void gb_replay_wait(void *p, double t);

/* The nearest-rank quantile q in [0, 1] of sorted[0..n) (n > 0, ascending): the ceil(q n)-th
 * smallest (the first for q n <= 1), a value that occurred, as MLPerf LoadGen and the serving
 * benchmarks report their percentiles. */
double gb_rank_quantile(const double *sorted, size_t n, double q);

/* Compares n bytes read back (`got`) with the bytes expected (`want`). Returns 0 when they are
 * equal; else records the first difference with gb_case_mismatch() as "<what>: byte I is 0xGG,
 * expected 0xWW", `what` formatted printf-style from fmt, and returns GB_EVERIFY. */
int gb_case_check_bytes(struct gb_case_ctx *ctx, const unsigned char *got,
                        const unsigned char *want, uint64_t n, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* ---- work-group sizes ------------------------------------------------------------------------ */

/* Whether the case's value of `axis` is the suite's default (neither the profile nor --set gave
 * the axis: gb_suite_run.defaulted), so that the suite may adapt it to the device. */
bool gb_case_param_defaulted(const struct gb_case_ctx *ctx, const char *axis);

/* The `axis` of gb_case_fit_wg() and the builds that call it for a size that no axis of the case
 * gives and that must not change either (a tuned configuration's, a kernel built with its size
 * as a define): above the limit it is a skip, as a size the user gave. */
extern const char gb_wg_fixed[];

/* Fits the work-group size *wg to a limit `max` (a device's or a kernel's maximum; `what` names
 * it: "the device maximum", "this kernel's maximum"): 0 when *wg <= max. Above it, a size the
 * user gave (an axis that gb_case_param_defaulted says was given, or gb_wg_fixed) is a skip
 * (GB_ESKIP) with the reason "work-group size W exceeds <what> M"; a size the suite chose (axis
 * NULL: no axis gives it; or an axis left at its default) becomes the largest divisor of *wg
 * that is at most max (a power of two stays one, and a global size *wg divided, it still
 * divides), recorded as the figure "wg_used" (work-items; one figure, the last fit's, however
 * many limits the size was fitted to). A limit of 0 (unknown) is a skip either way. */
int gb_case_fit_wg(struct gb_case_ctx *ctx, const char *axis, uint32_t *wg, uint32_t max,
                   const char *what);

/* gb_case_fit_wg against the device maximum (info.max_wg_size) for a size the user gave. */
int gb_case_check_wg(struct gb_case_ctx *ctx, uint32_t wg);

/* ---- the driver's loop limit ----------------------------------------------------------------- */

/* Checks `trips`, the loop iterations one work-item of the case's kernel runs (every loop of the
 * source counted, nested ones and unrolled ones too: a driver that stops loops has been seen to
 * count them so), against the device's limit (gb_device_info.max_loop_trips, probed at open; 0:
 * none found; of a set of devices, the least of theirs). Returns 0 when it fits, else a skip (GB_ESKIP) whose reason is "<what>: the
 * driver stops a work-item's loops after N iterations; this case needs M (<hint>)" (what, hint:
 * NULL or "" leave them out). For a trip count the profile asked for; where the suite chooses
 * how the work is split, it sizes the split with gb_loop_items first. */
int gb_case_loop_fits(struct gb_case_ctx *ctx, uint64_t trips, const char *what, const char *hint);

/* Loop iterations one work-item of the tuned dot (kernels/dot.cl) runs, dot_partial or
 * dot_final whichever runs more, counted as gb_case_loop_fits counts: `steps` steps of VEC
 * loads each, the VEC accumulators set and added, the work-group's reduction (REDUCE 0: log2 WG
 * levels; 1: WG terms in work-item 0; 2: none); dot_final (work-group fwg): ceil(parts / fwg)
 * steps, then fwg terms. */
uint64_t gb_dot_tuned_trips(uint64_t steps, int64_t vec, int64_t wg, int64_t reduce, uint64_t parts,
                            uint32_t fwg);

/* Loop iterations one work-item of kernels/gemm.cl (tile TS, WPT x WPT outputs per work-item,
 * K slices of TSK) runs for an inner dimension k, counted as gb_case_loop_fits counts (the own
 * GEMM failed on a driver that stops loops from K = 1,024 with WPT 8): once, the accumulators'
 * clearing and the store, WPT + WPT^2 each; per K slice of TSK, the slice's own step, LOADS =
 * TS TSK / RTS^2 loads and TSK steps of 1 + 2 WPT + WPT^2 (the staging of a and b, the WPT x
 * WPT multiply-adds). */
uint64_t gb_gemm_tiled_trips(int64_t ts, int64_t wpt, int64_t tsk, uint64_t k);

/* The fewest work-items among which `total` steps of `per` loop iterations each are shared (a
 * work-item runs ceil(total / items) steps, then `fixed` iterations besides) so that no
 * work-item runs more than `limit` iterations; at least `items` (the split the suite prefers),
 * which a limit of 0 (none) returns unchanged. 0 when `fixed` alone reaches the limit. */
uint64_t gb_loop_items(uint64_t items, uint64_t total, uint64_t per, uint64_t fixed,
                       uint32_t limit);

/* The work-group size a suite prefers for a kernel whose size is its own choice (no axis gives
 * it), fitted to the device maximum as gb_case_fit_wg(ctx, NULL, ...) fits: `preferred` when
 * the device allows it, else its largest divisor that it allows. The build (gb_case_build_wg,
 * axis NULL) then fits it to the kernel's own maximum. */
uint32_t gb_case_own_wg(struct gb_case_ctx *ctx, uint32_t preferred);

/* Fits a work-group size of the suite's own choosing (*wg: its preferred size on entry) for
 * kernel k, already built, on a device whose maximum is dev_max (a multi-device suite's
 * devs[i]->info.max_wg_size): gb_case_fit_wg(ctx, NULL, ...) against dev_max (0: unknown, not
 * applied), then against the kernel's own maximum. For a kernel that does not take the size as
 * a define. Returns 0 (*wg is then the size to launch with), GB_ESKIP for a kernel maximum of 0,
 * or the query's error. */
int gb_case_fit_own_wg(struct gb_case_ctx *ctx, struct gb_kernel *k, uint32_t dev_max,
                       uint32_t *wg);

/* gb_case_build(), then gb_case_fit_wg() against the built kernel's own limit
 * (ops->kernel_max_wg), `axis` as there: 0 when *wg fits or was fitted (*wg is then the size to
 * launch with; a kernel whose source takes the size as a define must be rebuilt with it); a skip
 * (GB_ESKIP) when it does not (*prog and *k are then built: the teardown frees them); or the
 * build's or the query's error. */
int gb_case_build_wg(struct gb_case_ctx *ctx, const char *file, const char *kernel,
                     const char *const *defines, size_t ndefines, const char *axis, uint32_t *wg,
                     struct gb_program **prog, struct gb_kernel **k);

/* ---- whole work-groups, then a tail ---------------------------------------------------------- */

/* Splits a 1-D launch over n work-items into whole work-groups and the remainder, for kernels
 * without a bounds check (kernels/stream.cl says why): on entry *whole holds the launch with
 * dims 1, local[0] the work-group size and args[base_arg] (GB_ARG_U64) the index of its first
 * work-item (the kernel adds it to its global id). On return whole->global[0] is n rounded down
 * to whole work-groups, and *tail is the same launch over the rest as single work-items
 * (local[0] 1) with args[base_arg] advanced past the whole groups; tail->global[0] is 0 when
 * there is no rest (and whole->global[0] is 0 when n is below one work-group). */
void gb_launch_split_tail(struct gb_launch *whole, struct gb_launch *tail, uint64_t n,
                          uint32_t base_arg);

/* Enqueues on q the parts of a split launch (gb_launch_split_tail) that are not empty: *whole,
 * then *tail. Returns 0 or the first launch's error (the tail is then not enqueued). */
int gb_launch_whole_then_tail(const struct gb_backend_ops *ops, struct gb_queue *q,
                              struct gb_kernel *k, const struct gb_launch *whole,
                              const struct gb_launch *tail);

/* The run() of a suite whose one operation is one launch of k (whole, then tail when tail is not
 * NULL and not empty, as gb_launch_whole_then_tail): enqueues reps of them on the case's queue.
 * Returns 0 or the first launch's error (nothing more is enqueued after it). */
int gb_case_launch_reps(struct gb_case_ctx *ctx, struct gb_kernel *k, const struct gb_launch *whole,
                        const struct gb_launch *tail, uint64_t reps);

/* ---- teardown -------------------------------------------------------------------------------- */

/* gb_case_free_buf() on each buffer slot given, up to the NULL that ends the list:
 * gb_case_free_bufs(ctx, &s->a, &s->b, &s->c, NULL). Every slot is NULL afterwards. */
void gb_case_free_bufs(struct gb_case_ctx *ctx, struct gb_buf **first, ...)
    __attribute__((sentinel));

/* ---- the precision suites (compute, gemm, fp16) ---------------------------------------------- */

/* The accuracy figures of a verified case: "rms_error" (the RMS of the relative errors,
 * gb_accuracy_rms) and "tolerance" (the largest relative error accepted), both unitless, in
 * that order. */
void gb_case_accuracy_figures(struct gb_case_ctx *ctx, double rms, double tolerance);

/* The derive step of a precision suite: gb_precision_speedups(rs, suite, axis, base, by_time),
 * then, where peak_of is not NULL, gb_precision_check_peaks(rs, suite, peak_of). Returns 0 (a
 * gb_suite.derive). */
int gb_suite_precision_derive(struct gb_results *rs, const char *suite, const char *axis,
                              const char *base, bool by_time, gb_peak_fn peak_of);

/* When the case's profile entry says `tuned: true`, looks up kernel/problem on the case's device
 * in the entry's cache (the profile's tuning_cache, else the default location).
 * *found is false when the entry does not say tuned, or the cache has no such entry. Errors as
 * for gb_tuning_lookup. */
int gb_case_tuning_lookup(const struct gb_case_ctx *ctx, const char *kernel, const char *problem,
                          struct gb_tuning_entry *out, bool *found);

/* ---- verification: poisoned outputs and the broken-kernel hook ------------------------------ */

/* Fills the first `bytes` of b (any memory kind) with a poison pattern of element type t, so
 * that an output the timed runs never write cannot pass verification: a quiet NaN for the float
 * types (f64 0x7FF8..., f32 0x7FC00000, f16 0x7E00, bf16 0x7FC0), the sentinel 0xDEADBEEF for
 * i32 and 0xA5 for i8. Setup calls it on every output buffer after the last untimed write to
 * it and before returning. A trailing partial element (bytes not a multiple of the element
 * size) gets the pattern's leading bytes. Returns 0, GB_ENOMEM, or the upload's error. */
int gb_case_poison(struct gb_case_ctx *ctx, struct gb_buf *b, uint64_t bytes, enum gb_dtype t);

/* Allocates `bytes` on ctx->q's device by method m (backends/backend.h, alloc_method) for setup:
 * a size the host cannot hold (host kinds, or a device sharing host memory), a backend without
 * the member, a method it does not offer (GB_EUNSUPPORTED) and a size above its largest
 * allocation (GB_ETOOBIG) are skips with the reason; other errors are returned. The memory is
 * untouched. */
int gb_case_alloc_method(struct gb_case_ctx *ctx, enum gb_alloc_method m, uint64_t bytes,
                         struct gb_buf **out);

/* The test hook of the suites that tests/test_broken_kernels.c and tests/test_chip.c break on purpose:
 * such a suite's state struct starts with a struct gb_test_hook. The runner zeroes the state
 * before setup(), so in a run test_define is NULL; a test sets it before setup() to build the
 * case's kernel with one more define (GB_BREAK, which each kernel file documents) and checks
 * that verify() rejects what the broken kernel computed. */
struct gb_test_hook {
    const char *test_define; /* an extra "NAME" or "NAME=VALUE" for the build; NULL in a run */
};

/* gb_case_build_wg() with the hook's test define (ctx->state starts with a struct
 * gb_test_hook), if any, after `defines` (at most 7); GB_EINVAL for more. */
int gb_case_build_hooked(struct gb_case_ctx *ctx, const char *file, const char *kernel,
                         const char *const *defines, size_t ndefines, const char *axis,
                         uint32_t *wg, struct gb_program **prog, struct gb_kernel **k);

#endif
