/* gpubench — the run summary's speed x accuracy table per precision (precision_table.c), from
 * the compute, gemm and fp16 results of a run (the figures of backends/precision.h). */
#ifndef GB_PRECISION_TABLE_H
#define GB_PRECISION_TABLE_H

#include <stdio.h>

#include "results/results.h"

/* Prints the speed x accuracy table per precision of rs's compute, gemm and fp16 results to f
 * (nothing when there are none): per suite, device, precision and implementation, the best rate,
 * its speedup over the best FP32 row, the worst max and RMS relative errors, the fraction of the
 * theoretical peak and where the best was measured; skipped and failed precisions with why. */
void gb_print_precision_table(FILE *f, const struct gb_results *rs);

#endif
