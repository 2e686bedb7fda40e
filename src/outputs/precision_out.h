/* gpubench — the run summary's speed x accuracy table per precision (precision_out.c), from
 * the compute, gemm and fp16 results of a run (the figures of backends/precision.h), as a table
 * of a document (base/doc.h) that the writers render. */
#ifndef GB_PRECISION_OUT_H
#define GB_PRECISION_OUT_H

#include "base/doc.h"
#include "results/results.h"

/* Adds to d the table "precision" (nothing when rs has no compute, gemm or fp16 result): one row
 * per suite, device, precision and implementation with the best rate (`best`, in `unit`), its
 * speedup over the best FP32 row of the same group (`vs fp32 x`), the worst max and RMS relative
 * errors over every measured case of that precision, the fraction of the theoretical peak in
 * per cent and where the best was measured (params and case counts); a precision with no ok
 * case says why (its first skip or failure) in that last column. 0 or GB_ENOMEM (d stays valid
 * and must still be freed). */
int gb_precision_doc(const struct gb_results *rs, struct gb_doc *d);

#endif
