/* gpubench — quantities derived from a curve of measurements (the batching suite's knee and
 * per-transfer overhead). Pure functions, unit-tested with synthetic curves. */
#ifndef GB_CURVE_H
#define GB_CURVE_H

#include <stdbool.h>
#include <stddef.h>

struct gb_knee {
    double asymptote;  /* the curve's asymptotic value: the median of the values at the largest
                        * x (a quarter of the points, rounded down, 1 to 3 of them) */
    double knee_x;     /* the smallest x from which on every point reaches frac * asymptote;
                        * NaN when even the last point does not */
    size_t knee_index; /* its index in the caller's arrays (SIZE_MAX when knee_x is NaN) */
    bool plateau;      /* the last two points agree within 10%: the curve has flattened, so the
                        * asymptote is a measured one rather than a lower bound */
};

/* The knee of the curve y(x) (x: batch bytes, y: GB/s; n points in any order, x distinct and
 * positive; frac in (0, 1], 0.9 for "90% of the asymptotic bandwidth"). "Every point from there
 * on" rather than "the first point" makes one noisy high point at a small size no knee. Returns
 * 0, or GB_EINVAL for n = 0, a non-finite or non-positive x, or frac outside (0, 1]. */
int gb_curve_knee(const double *x, const double *y, size_t n, double frac, struct gb_knee *out);

/* Fits t = t0 + bytes / bw (Hockney's latency-bandwidth model: R. W. Hockney, "The
 * communication challenge for MPP", Parallel Computing 20, 1994) to n >= 2 points of bytes and
 * seconds by least squares on the relative error (weights 1/t^2), so small transfers, whose
 * time is mostly t0, count as much as large ones. *t0 in seconds (clamped at 0: a negative
 * intercept is noise), *bw in bytes per second (INFINITY when the fitted slope is not
 * positive). GB_EINVAL for fewer than 2 distinct sizes or non-positive times. */
int gb_curve_fit_latency(const double *bytes, const double *seconds, size_t n, double *t0,
                         double *bw);

#endif
