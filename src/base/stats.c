/* gpubench — descriptive statistics and the stopping rule (see stats.h). */
#include "base/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* t(0.975, dof) for dof = 1..30 to 9 decimals: the Student t quantile, as R's qt(0.975, dof)
 * gives it (to 3 decimals in Abramowitz & Stegun, Handbook of Mathematical Functions, table
 * 26.10); checked when written by numerically inverting the t CDF. */
static const double t975_table[30] = {
    12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836, /* 1..5 */
    2.446911851,  2.364624252, 2.306004135, 2.262157163, 2.228138852, /* 6..10 */
    2.200985160,  2.178812830, 2.160368656, 2.144786688, 2.131449546, /* 11..15 */
    2.119905299,  2.109815578, 2.100922040, 2.093024054, 2.085963447, /* 16..20 */
    2.079613845,  2.073873068, 2.068657610, 2.063898562, 2.059538553, /* 21..25 */
    2.055529439,  2.051830516, 2.048407142, 2.045229642, 2.042272456, /* 26..30 */
};

double gb_t975(size_t dof)
{
    if (dof == 0)
        return INFINITY;
    if (dof <= 30)
        return t975_table[dof - 1];
    /* Cornish-Fisher expansion of the t quantile in powers of 1/dof around the normal quantile
     * z = Phi^-1(0.975): Abramowitz & Stegun 26.7.5. With four terms the error is below 3e-8
     * at dof = 31 and falls as dof^-5. */
    const double z = 1.959963984540054;
    const double z2 = z * z;
    const double v = (double)dof;
    const double g1 = (z2 + 1.0) * z / 4.0;
    const double g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
    const double g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;
    const double g4 =
        ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0;
    return z + (g1 + (g2 + (g3 + g4 / v) / v) / v) / v;
}

double gb_percentile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0.0;
    if (!(q > 0.0)) /* also NaN */
        return sorted[0];
    if (q >= 1.0)
        return sorted[n - 1];
    /* R type 7 (Hyndman & Fan 1996, definition 7): h = (n-1) q, interpolate between the
     * order statistics floor(h) and floor(h)+1 (0-based). */
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1)
        return sorted[n - 1];
    double frac = h - (double)lo;
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void gb_sort_doubles(double *x, size_t n)
{
    if (n > 1)
        qsort(x, n, sizeof *x, cmp_double);
}

/* The k-th smallest (0-based) of x[0..n) without modifying or copying x, in O(n^2): only the
 * fallback for when a sorted copy cannot be allocated. */
static double kth_unsorted(const double *x, size_t n, size_t k)
{
    for (size_t i = 0; i < n; i++) {
        size_t less = 0, equal = 0;
        for (size_t j = 0; j < n; j++) {
            if (x[j] < x[i])
                less++;
            else if (x[j] == x[i])
                equal++;
        }
        if (less <= k && k < less + equal)
            return x[i];
    }
    return x[0];
}

static double percentile_unsorted(const double *x, size_t n, double q)
{
    if (!(q > 0.0))
        return kth_unsorted(x, n, 0);
    if (q >= 1.0)
        return kth_unsorted(x, n, n - 1);
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1)
        return kth_unsorted(x, n, n - 1);
    double a = kth_unsorted(x, n, lo), b = kth_unsorted(x, n, lo + 1);
    return a + (h - (double)lo) * (b - a);
}

void gb_stats_compute(const double *x, size_t n, struct gb_stats *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n == 0)
        return;

    /* Two passes (mean, then squared deviations) for accuracy with large, close values. */
    double sum = 0.0, mn = x[0], mx = x[0];
    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        if (x[i] < mn)
            mn = x[i];
        if (x[i] > mx)
            mx = x[i];
    }
    double mean = sum / (double)n;
    double ss = 0.0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);

    out->min = mn;
    out->max = mx;
    out->mean = mean;
    out->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    out->cv = mean != 0.0 ? out->stddev / mean : 0.0;
    /* One sample says nothing about the spread: the interval of the mean is unbounded. */
    out->ci95 = n > 1 ? gb_t975(n - 1) * out->stddev / sqrt((double)n) : INFINITY;

    double *sorted = malloc(n * sizeof *sorted);
    if (sorted) {
        memcpy(sorted, x, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, cmp_double);
        out->median = gb_percentile_sorted(sorted, n, 0.5);
        out->p5 = gb_percentile_sorted(sorted, n, 0.05);
        out->p95 = gb_percentile_sorted(sorted, n, 0.95);
        free(sorted);
    } else {
        out->median = percentile_unsorted(x, n, 0.5);
        out->p5 = percentile_unsorted(x, n, 0.05);
        out->p95 = percentile_unsorted(x, n, 0.95);
    }
}

enum gb_stop gb_stop_rule(const struct gb_measure_cfg *cfg, size_t n, double rel_ci, double elapsed)
{
    /* Converged is checked first so that it wins over a budget reached at the same sample.
     * rel_ci NaN or infinite (fewer than two samples, mean 0) never converges. */
    if (n >= 1 && n >= cfg->min_samples && rel_ci <= cfg->max_noise)
        return GB_STOP_CONVERGED;
    if (n >= cfg->max_samples)
        return GB_STOP_MAX_SAMPLES;
    size_t need = cfg->max_samples < 2 ? cfg->max_samples : 2;
    if (elapsed >= cfg->max_time && n >= need)
        return GB_STOP_MAX_TIME;
    return GB_STOP_CONTINUE;
}
