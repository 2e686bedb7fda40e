/* gpubench — from a measured case to its result: the runner's and gb_case_measure()'s
 * (run/subcase.h) one way of turning what a suite said of an operation (gb_op_desc) and what the
 * harness measured (gb_measurement) into a result's metric, bound and verdict. */
#ifndef GB_CASE_RESULT_H
#define GB_CASE_RESULT_H

#include <stddef.h>

#include "results/results.h"
#include "run/measure.h"
#include "run/suite.h"

/* Converts measurement m of the case in ctx into r's metric, unit, direction, samples and
 * statistics: GB/s when ctx->op.bytes > 0, else GFLOP/s when ctx->op.flops > 0 (GOP/s when
 * ctx->op.integer), else the latency in microseconds, and the regime (ctx->op.working_set). */
void gb_result_fill_metric(struct gb_result *r, const struct gb_case_ctx *ctx,
                           const struct gb_measurement *m);

/* Makes the suite's headline (ctx->headline, set by gb_case_headline in figures()) r's metric,
 * unit, direction, samples and statistics, where it has one: the value is their median (or the
 * value gb_case_headline_value gave), and r is
 * noisy when their CI95 half-width exceeds max_noise of their mean (the noise of the harness's
 * operation time, which the sampling judged, no longer being the figure's). A no-op otherwise. */
void gb_result_take_headline(struct gb_result *r, const struct gb_case_ctx *ctx, double max_noise);

/* The bound of a bandwidth result with a regime (r->regime set by gb_result_fill_metric), once
 * its figures are final: in the memory regime, device-memory kernels and D2D copies are bounded
 * by the device's theoretical bandwidth (peak_mem_gbs): the figures "peak" (GB/s) and "of_peak"
 * are added and a value above GB_PLAUSIBLE_SLACK x peak is flagged implausible, with the reason.
 * Where no bound is known (no peak_mem_gbs, a cache-regime working set, a host-link copy) the
 * text figure "peak" says why; a host-link copy above 1000 GB/s per direction, or a working set
 * beyond the cache above 20,000 GB/s, then fails as implausible (case_result.c gives the sources
 * of both ceilings). Other results are left alone. */
void gb_result_check_bound(struct gb_result *r, const struct gb_case_ctx *ctx);

/* Holds every figure of every ok result in rs to a bound, as gb_result_check_bound and the
 * suites' peaks hold headlines: once the suites' derive steps have run, in the run that
 * measured them (the device's facts are rs->devices'). A figure's bound is the one its suite
 * gave (gb_figure.bound > 0), else the one its unit gives:
 *   GB/s     the device's theoretical memory bandwidth (peak_mem_gbs) where the result's regime
 *            is "memory", else the 20,000 GB/s device-memory ceiling (case_result.c) where it
 *            is "memory" or "unknown"; none for a cache-resident or undeclared working set;
 *   GFLOP/s, GOP/s  the device's highest arithmetic peak of any precision, matrix units
 *            included (gb_peak_ops; none where it is unknown);
 * times the number of devices of a multi-device result for a figure of the whole set (a
 * per-device figure: each value against its own device). Other units (ratios, counts, times,
 * requests per second) have no bound of their own. A compute-rate headline (GFLOP/s, GOP/s)
 * without a numeric "peak" figure of its suite is held to the same device bound. A value above
 * GB_PLAUSIBLE_SLACK x its bound, or one that is not finite where a bound is known, fails the
 * result as implausible, the reason naming the figure, its value, its bound and where the bound
 * comes from. The figure "peak" (a bound itself) is not checked. Returns how many results it
 * failed. */
size_t gb_results_check_figures(struct gb_results *rs);

/* When the samples were not taken with the case's own timer (m->timer is the host's because the
 * device's event timer failed its check at open, gb_device.timer_fault), the text figure "timer"
 * says so and why: "host (event timestamps are 0)". Call once the result's figures are final. */
void gb_result_timer_note(struct gb_result *r, const struct gb_case_ctx *ctx,
                          const struct gb_measurement *m);

/* Records in r what verify() returned (err) for the case in ctx, after gb_result_fill_metric:
 * GB_EVERIFY fails it with ctx->reason ("verification failed: ..."), another error fails it as
 * gb_result_fail(..., "verify"), 0 makes it ok and verified, with a reason when the noise target
 * was not reached in the m_samples samples. r->max_error is ctx->max_error either way. Returns
 * err, so that the caller can tell a broken verify (a suspect queue) from a mismatch. */
int gb_result_verified(struct gb_result *r, const struct gb_case_ctx *ctx, int err,
                       size_t m_samples);

#endif
