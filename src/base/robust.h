/* gpubench — robust location and scale of a few numbers, and the cut that says when a new number
 * lies outside them: what the nightly gate (analyses/compare.h, "nights") judges tonight's median
 * against. Pure functions, no device.
 *
 * Sources: the MAD as a scale estimate scaled by 1.4826 = 1 / Phi^-1(3/4), so that it estimates
 * the standard deviation of normal data (Hampel 1974, "The influence curve and its role in robust
 * estimation", JASA 69; Rousseeuw & Croux 1993, "Alternatives to the median absolute deviation",
 * JASA 88); its small-sample correction b_n (Croux & Rousseeuw 1992, "Time-efficient algorithms
 * for two highly robust estimators of scale", Computational Statistics 1, 411-428: b_2..b_9 =
 * 1.196, 1.495, 1.363, 1.206, 1.200, 1.140, 1.129, 1.107, then n / (n - 0.8)). */
#ifndef GB_ROBUST_H
#define GB_ROBUST_H

#include <stddef.h>

/* The median of x[0..n) (the mean of the two middle values for even n); x is not modified. NAN
 * when n is 0 or memory runs out. */
double gb_median(const double *x, size_t n);

/* Croux & Rousseeuw's small-sample factor b_n for the MAD (above); 1 for n < 2. */
double gb_mad_bn(size_t n);

/* The MAD of x[0..n) around `center` as an estimate of the standard deviation of normal data:
 * b_n * 1.4826 * median |x_i - center|. 0 for n < 2; NAN when memory runs out. */
double gb_mad_sigma(const double *x, size_t n, double center);

/* The cut for n baseline values: the c for which a new value y, drawn like the n values from one
 * normal distribution, falls below median - c * gb_mad_sigma (or above median + c *
 * gb_mad_sigma) with probability Phi(-z), the one-sided normal tail beyond z standard
 * deviations (z = 3: 0.135%). The median and MAD of a few values are uncertain, as the mean and
 * standard deviation are, so the cut widens with few values the way Student's t does: for
 * z = 3, about 24 at n = 5, 6.4 at 10, 5.1 at 14, 3.8 at 30, and z itself as n grows. Computed
 * by Monte Carlo with a fixed seed (deterministic): 20000..200000 normal samples of size n (about
 * 2e6 draws in all), each giving the exact conditional tail Phi(med - c * s); their mean is
 * solved for c by Newton's method in log c. Within 1% of a brute-force simulation with 2e6
 * draws at n = 5, 10, 14, 30 (tests/test_compare.c allows 5%). About 0.1 s: cache it per n.
 * Returns NAN for n < 2, z <= 0 or no memory. */
double gb_mad_cut(size_t n, double z);

#endif
