/* gpubench — the Mann–Whitney U test (contract and sources in mannwhitney.h). */
#include "base/mannwhitney.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

struct ranked {
    double v;
    int from_x; /* 1: the value belongs to the first sample */
};

static int cmp_ranked(const void *a, const void *b)
{
    double x = ((const struct ranked *)a)->v, y = ((const struct ranked *)b)->v;
    return (x > y) - (x < y);
}

double gb_normal_sf(double z)
{
    return 0.5 * erfc(z / sqrt(2.0));
}

double gb_mwu_min_p(size_t n1, size_t n2)
{
    if (n1 == 0 || n2 == 0)
        return 1.0;
    /* 2 / C(n1 + n2, n1), through lgamma so that large samples do not overflow. */
    double n = (double)(n1 + n2);
    double lc = lgamma(n + 1.0) - lgamma((double)n1 + 1.0) - lgamma((double)n2 + 1.0);
    double p = 2.0 * exp(-lc);
    return p > 1.0 ? 1.0 : p;
}

/* The exact lower tail P(U <= u) under H0 for sample sizes n1, n2 (no ties).
 * The number of arrangements with U = k is the coefficient of q^k in the Gaussian binomial
 * [n1+n2 choose n1]_q = prod_{i=1..n1} (1 - q^(n2+i)) / (1 - q^i). After step i the polynomial
 * is [n2+i choose i]_q, whose coefficients are non-negative integers, so each step's
 * subtraction is undone by the following division and the result stays accurate in doubles
 * (relative error near machine precision for the tail sums used here). */
static int exact_cdf(size_t n1, size_t n2, double u, double *lower, double *upper)
{
    if (n1 > n2) {
        size_t t = n1;
        n1 = n2;
        n2 = t;
    }
    size_t deg_max = n1 * n2;
    double *c = calloc(deg_max + n1 + n2 + 2, sizeof *c);
    if (!c)
        return GB_FAIL(GB_ENOMEM, "Mann-Whitney exact distribution for %zu x %zu", n1, n2);
    c[0] = 1.0;
    size_t deg = 0;
    for (size_t i = 1; i <= n1; i++) {
        size_t m = n2 + i; /* multiply by (1 - q^m): from the top down */
        for (size_t k = deg + m; k >= m; k--)
            c[k] -= c[k - m];
        deg += m;
        for (size_t k = i; k <= deg; k++) /* divide by (1 - q^i): a running sum with stride i */
            c[k] += c[k - i];
        /* The quotient has degree i * n2; what rounding left above it is cleared. */
        for (size_t k = i * n2 + 1; k <= deg; k++)
            c[k] = 0.0;
        deg = i * n2;
    }
    double total = 0.0, lo = 0.0, hi = 0.0;
    for (size_t k = 0; k <= deg_max; k++) {
        total += c[k];
        if ((double)k <= u + 1e-9)
            lo += c[k];
        if ((double)k >= u - 1e-9)
            hi += c[k];
    }
    free(c);
    *lower = lo / total;
    *upper = hi / total;
    return 0;
}

int gb_mwu_test(const double *x, size_t n1, const double *y, size_t n2, struct gb_mwu *out)
{
    if (!x || !y || !out || n1 == 0 || n2 == 0)
        return GB_FAIL(GB_EINVAL, "Mann-Whitney test needs two non-empty samples (got %zu and %zu)",
                       n1, n2);
    memset(out, 0, sizeof *out);
    out->n1 = n1;
    out->n2 = n2;
    size_t n = n1 + n2;
    struct ranked *a = malloc(n * sizeof *a);
    if (!a)
        return GB_FAIL(GB_ENOMEM, "Mann-Whitney ranks of %zu values", n);
    for (size_t i = 0; i < n1; i++)
        a[i] = (struct ranked){x[i], 1};
    for (size_t j = 0; j < n2; j++)
        a[n1 + j] = (struct ranked){y[j], 0};
    for (size_t i = 0; i < n; i++)
        if (isnan(a[i].v)) {
            free(a);
            return GB_FAIL(GB_EINVAL, "Mann-Whitney test: a sample is NaN");
        }
    qsort(a, n, sizeof *a, cmp_ranked);

    /* Midranks: a group of t equal values at 1-based ranks r+1..r+t all get r + (t+1)/2. */
    double r1 = 0.0, tie_sum = 0.0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && a[j].v == a[i].v)
            j++;
        double t = (double)(j - i);
        double midrank = (double)i + (t + 1.0) / 2.0;
        for (size_t k = i; k < j; k++)
            if (a[k].from_x)
                r1 += midrank;
        if (t > 1.0)
            tie_sum += t * t * t - t;
        i = j;
    }
    free(a);

    double dn1 = (double)n1, dn2 = (double)n2, dn = (double)n;
    out->u1 = r1 - dn1 * (dn1 + 1.0) / 2.0;
    out->u2 = dn1 * dn2 - out->u1;
    out->ties = tie_sum > 0.0;

    if (!out->ties && n1 * n2 <= GB_MWU_EXACT_MAX_PAIRS) {
        double lo = 1.0, hi = 1.0;
        int rc = exact_cdf(n1, n2, out->u1, &lo, &hi);
        if (rc)
            return rc;
        double p = 2.0 * (lo < hi ? lo : hi);
        out->p = p > 1.0 ? 1.0 : p;
        out->exact = true;
        return 0;
    }

    double mu = dn1 * dn2 / 2.0;
    double var = dn1 * dn2 / 12.0 * ((dn + 1.0) - tie_sum / (dn * (dn - 1.0)));
    if (!(var > 0.0)) { /* every value equal: nothing to tell the samples apart */
        out->p = 1.0;
        return 0;
    }
    double d = out->u1 - mu;
    double ad = fabs(d) - 0.5; /* continuity correction towards the mean */
    if (ad < 0.0)
        ad = 0.0;
    double z = ad / sqrt(var);
    out->z = d < 0 ? -z : z;
    double p = 2.0 * gb_normal_sf(z);
    out->p = p > 1.0 ? 1.0 : p;
    return 0;
}
