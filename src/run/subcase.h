/* gpubench — measuring several operations inside one case (the tuning suite's configurations).
 *
 * A tuning case searches a space of kernel configurations, which the plan cannot expand ahead
 * (a strategy picks the next configuration from the times of the previous ones). Each
 * configuration is still measured by the harness, exactly as a case is: gb_case_measure() runs
 * gb_measure() (warm-up, calibration, samples to the noise target, under the case's budget and
 * Ctrl-C flag), the operation's verify(), and turns the measurement into a result with
 * gb_result_fill_metric() (results/results.h). The result is recorded in the run's results
 * (ctx->extra) before the case's own, so a landscape of N configurations is N results of the
 * case's suite.
 */
#ifndef GB_SUBCASE_H
#define GB_SUBCASE_H

#include "run/measure.h"
#include "results/results.h"
#include "run/suite.h"

/* Measures the operation `op` describes: op->run(ctx', reps) enqueues it and op->verify(ctx')
 * checks it, where ctx' is a copy of ctx with state = op_state, op = *desc and params = params.
 * The budget is cfg, or the case's profile entry's (ctx->run->measure) when cfg is NULL.
 *
 * *out is filled like a case's result: suite (the case's), case_name, backend, device, params,
 * status (ok, or failed with the reason: a failing run, a verification failure), metric, unit,
 * value, statistics and samples (owned by out), verified and max_error. *op_time_s receives
 * the median seconds per operation (INFINITY unless ok). Record it with gb_case_record().
 *
 * Returns 0 when the operation was measured (whatever its status), GB_EINTR when ctx->stop was
 * raised (out holds nothing to record). */
int gb_case_measure(struct gb_case_ctx *ctx, const struct gb_suite *op, void *op_state,
                    const struct gb_op_desc *desc, const char *case_name,
                    const struct gb_params *params, const struct gb_measure_cfg *cfg,
                    struct gb_result *out, double *op_time_s);

/* Appends r to the run's results (ctx->extra), taking its samples (r->samples becomes NULL);
 * without ctx->extra (a test driving the suite directly) the samples are just freed.
 * Returns 0 or GB_ENOMEM. */
int gb_case_record(struct gb_case_ctx *ctx, struct gb_result *r);

/* Records, before the case's own result, a failed result for a part of the case that is not
 * measured through the harness (a helper process that died or hung, run/child.h): the case's
 * suite, device and params with the string param `part` (a name of static storage, such as
 * "tenant") set to part_value, status failed with `reason`. So that one part's failure is its
 * own and the case's result, and the other parts', survive. GB_EINVAL when the params are full,
 * GB_ENOMEM; a no-op (0) when the case has no results to record into (a test). */
int gb_case_record_part_failure(struct gb_case_ctx *ctx, const char *part, const char *part_value,
                                const char *reason);

#endif
