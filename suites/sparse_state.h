/* The sparse suite's pure helpers (suites/sparse.c), shared with its tests. Nothing else may use
 * them. */
#ifndef GB_SUITES_SPARSE_STATE_H
#define GB_SUITES_SPARSE_STATE_H

#include <stddef.h>

/* The break-even density of one (op, impl, shape): density[0..n) descending, speedup[i] the
 * dense time over the sparse time at density[i]. *how: 2 with *at the density where log speedup,
 * linear in log density between the first pair (from the densest) that goes from a loss (< 1)
 * to a win (>= 1), reaches 1; 1 when sparse wins at every density, -1 when it loses at every
 * one, 3 when it wins only at denser densities than it loses at (*at NaN for all but 2); 0 for
 * n = 0. Pure. */
void gb__sparse_break_even(const double *density, const double *speedup, size_t n, double *at,
                           int *how);

#endif
