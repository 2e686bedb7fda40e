/* gpubench — the run's summary as a document (base/doc.h), for `gpubench run` to render with a
 * writer: one table per suite, in the order the suites first appear in the results. */
#ifndef GB_SUMMARY_H
#define GB_SUMMARY_H

#include "base/doc.h"
#include "results/results.h"

/* Builds into d (gb_doc_init'ed here; the caller frees it) the summary of rs: per suite a table
 * with the columns case, device (when the suite's results name more than one), each param that
 * varies among the suite's results (the constant ones named in the table's title; a param a
 * case marks "none" shown empty), status, value (with unit), ci95 % (the 95% confidence half-width, per cent of the mean), op us (the
 * median time of one operation, microseconds) and figures (the numeric figures, name=value).
 * Remarks become footnotes that rows share: a skip's or a failure's reason (its first line), a
 * text figure ("peak: unknown: ..."), an implausible or unverified result, throttled samples.
 * 0 or GB_ENOMEM. */
int gb_summary_doc(const struct gb_results *rs, struct gb_doc *d);
/* Every result of rs as one row of the table "result" (kind "gpubench-results-doc/1"): text
 * columns suite, case, params (after the case axis), backend, device (the name, " #K" for the
 * K-th of several of one name), uuid, unit, status; numbers value (ok results only, in unit),
 * ci95 % (ok), samples, ok (1/0), verified (1/0). What `run --openmetrics` writes as gauges
 * labelled by the text columns. 0 or GB_ENOMEM; d must be freed either way. */
int gb_results_metrics_doc(const struct gb_results *rs, struct gb_doc *d);

#endif
