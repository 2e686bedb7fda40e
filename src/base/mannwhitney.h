/* gpubench — the Mann–Whitney U test (Wilcoxon rank-sum test). Pure functions, no device.
 *
 * Used by `gpubench compare` to ask whether two sets of samples of one case (BASE and NEW) come
 * from the same distribution, without assuming the samples are normal: timings are skewed and
 * often bimodal, and a rank test is robust to both.
 *
 * Sources:
 *   H. B. Mann and D. R. Whitney, "On a test of whether one of two random variables is
 *   stochastically larger than the other", Ann. Math. Statist. 18(1):50–60, 1947 — the statistic
 *   and its exact null distribution.
 *   M. Hollander, D. A. Wolfe and E. Chicken, "Nonparametric Statistical Methods", 3rd ed.,
 *   Wiley 2014, §4.1 — the large-sample approximation with the tie-corrected variance and the
 *   continuity correction (the same method R's wilcox.test and SciPy's mannwhitneyu use).
 */
#ifndef GB_MANNWHITNEY_H
#define GB_MANNWHITNEY_H

#include <stdbool.h>
#include <stddef.h>

/* Samples of at most this many pairs (n1 * n2) without ties get the exact distribution; larger
 * or tied samples the normal approximation, which is accurate there (Hollander et al. §4.1). */
#define GB_MWU_EXACT_MAX_PAIRS 10000

struct gb_mwu {
    size_t n1, n2;
    double u1; /* U of the first sample: the number of pairs (x_i, y_j) with x_i > y_j,
                     * ties counting one half; u1 + u2 = n1 * n2 */
    double u2;
    double z;   /* normal approximation only: the continuity-corrected z of u1 (0 when
                     * exact); its sign says which sample tends to be larger (+: the first) */
    double p;   /* two-sided p-value in [0, 1] */
    bool exact; /* p from the exact null distribution (no ties, n1 * n2 small) */
    bool ties;  /* some values are equal (the tie-corrected variance was used) */
};

/* The two-sided Mann–Whitney U test of x[0..n1) against y[0..n2).
 * Exact: p = min(1, 2 min(P(U <= u1), P(U >= u1))) under H0, from the distribution of U, whose
 * generating function is the Gaussian binomial coefficient [n1+n2 choose n1]_q (Mann & Whitney
 * 1947; computed as prod_{i=1..n1} (1 - q^(n2+i)) / (1 - q^i), O(n1^2 n2) operations).
 * Approximate: z = (|u1 - n1 n2 / 2| - 1/2) / sigma with
 * sigma^2 = n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1))), t the sizes of the groups of
 * tied values, n = n1 + n2, and p = erfc(|z| / sqrt 2) (Hollander et al. §4.1).
 * When every value is equal, p is 1.
 * Errors: GB_EINVAL when n1 or n2 is 0 or a value is NaN; GB_ENOMEM. Inputs are not modified. */
int gb_mwu_test(const double *x, size_t n1, const double *y, size_t n2, struct gb_mwu *out);

/* The smallest two-sided p-value the exact test can reach with sample sizes n1 and n2 (every x
 * above every y): 2 / C(n1 + n2, n1). With n1 = n2 = 3 it is 0.1, so such samples can never be
 * significant at alpha = 0.01 — compare calls such a pair UNSTABLE rather than SAME. */
double gb_mwu_min_p(size_t n1, size_t n2);

/* P(Z > z) for a standard normal Z: erfc(z / sqrt 2) / 2. */
double gb_normal_sf(double z);

#endif
