/* gpubench — the run's summary as a document (base/doc.h), for `gpubench run` to render with a
 * writer: one table per suite, in the order the suites first appear in the results. */
#ifndef GB_SUMMARY_H
#define GB_SUMMARY_H

#include "base/doc.h"
#include "results/results.h"

/* Builds into d (gb_doc_init'ed here; the caller frees it) the summary of rs: per suite a table
 * with the columns case, device (when the suite's results name more than one), each param that
 * varies among the suite's results (the constant ones named in the table's title; a param
 * that does not apply to a case, gb_suite_param_applies, shown empty), status, value (with unit), ci95 % (the 95% confidence half-width, per cent of the mean), op us (the
 * median time of one operation, microseconds) and figures (the numeric figures, name=value).
 * Remarks become footnotes that rows share: a skip's or a failure's reason (its first line), a
 * text figure ("peak: unknown: ..."), an implausible or unverified result, throttled samples.
 * 0 or GB_ENOMEM. */
int gb_summary_doc(const struct gb_results *rs, struct gb_doc *d);
/* Every result of rs as one row of the table "result" (kind "gpubench-run-doc/1"), the run for
 * machines (csv, json, OpenMetrics): text columns suite, case, then each param but the case's
 * (in order of first appearance; a size in bytes; an omit_default axis's default where a result
 * leaves it out at it, the suite known to this build; "" where a result has none; a param named
 * as one of these columns is "NAME param"), backend, device (the name, " #K" for the K-th of
 * several of one name), uuid, status (a state); numbers value (ok results only, in the row's
 * unit), the text column unit, ci95 % (ok), op us (ok: the median time of one operation),
 * samples, ok, verified and noisy (1/0); reason (prose: a skip's or failure's first line). The
 * document's time is the run's start. 0 or GB_ENOMEM; d must be freed either way. */
int gb_results_metrics_doc(const struct gb_results *rs, struct gb_doc *d);
/* Params text "k=v k=v" of a result of `suite` without the params that do not apply to its case
 * (as the summary leaves them blank: "none", 0 where the suite's axis takes 1 at least, or
 * what the suite's axis_applies rules out; gb_suite_param_applies),
 * for people: the text compare, fleet and check show (their files keep every param). Into buf
 * (len > 0). */
void gb_params_for_people(const char *suite, const char *params, char *buf, size_t len);

#endif
