/* gpubench — robust location, scale and the cut for a few values (contract and sources in
 * robust.h). */
#include "base/robust.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of s[0..n), sorting s in place (insertion sort for the few values the cut's
 * simulation sorts millions of times). */
static double median_inplace(double *s, size_t n)
{
    if (n <= 32) {
        for (size_t i = 1; i < n; i++) {
            double v = s[i];
            size_t j = i;
            for (; j > 0 && s[j - 1] > v; j--)
                s[j] = s[j - 1];
            s[j] = v;
        }
    } else {
        qsort(s, n, sizeof *s, cmp_double);
    }
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double gb_median(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, x, n * sizeof *s);
    double m = median_inplace(s, n);
    free(s);
    return m;
}

double gb_mad_bn(size_t n)
{
    /* Croux & Rousseeuw (1992), Table: the factors for n = 2..9; n / (n - 0.8) beyond. */
    static const double b[] = {1.0, 1.0, 1.196, 1.495, 1.363, 1.206, 1.200, 1.140, 1.129, 1.107};
    if (n < sizeof b / sizeof b[0])
        return b[n];
    return (double)n / ((double)n - 0.8);
}

/* 1 / Phi^-1(3/4): the MAD of a normal distribution times this is its standard deviation. */
#define MAD_TO_SD 1.482602218505602

/* MAD of x[0..n) around center, using the scratch s[0..n). */
static double mad_sigma_scratch(const double *x, size_t n, double center, double *s)
{
    for (size_t i = 0; i < n; i++)
        s[i] = fabs(x[i] - center);
    return gb_mad_bn(n) * MAD_TO_SD * median_inplace(s, n);
}

double gb_mad_sigma(const double *x, size_t n, double center)
{
    if (n < 2)
        return 0.0;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return NAN;
    double r = mad_sigma_scratch(x, n, center, s);
    free(s);
    return r;
}

/* ---- the cut ------------------------------------------------------------------------------- */

/* xorshift64* (Vigna 2016): a small generator with a fixed seed, so that the cut, and with it
 * every verdict, is the same on every run and machine. */
static double uniform01(uint64_t *st)
{
    *st ^= *st >> 12;
    *st ^= *st << 25;
    *st ^= *st >> 27;
    uint64_t r = *st * UINT64_C(2685821657736338717);
    return ((double)(r >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

/* Standard normal draws into x[0..n) (Box-Muller, both of each pair). */
static void normals(uint64_t *st, double *x, size_t n)
{
    for (size_t k = 0; k < n; k += 2) {
        double r = sqrt(-2.0 * log(uniform01(st))), a = 6.283185307179586 * uniform01(st);
        x[k] = r * cos(a);
        if (k + 1 < n)
            x[k + 1] = r * sin(a);
    }
}

static double phi(double t)
{
    return 0.5 * erfc(-t / 1.4142135623730951);
}

/* The mean over the m draws of Phi(med_i - c * s_i), P(y < med - c s) for y ~ N(0, 1), and in
 * *slope its derivative in log c: -c * mean(s_i * phi(med_i - c * s_i)). */
static double tail(const double *med, const double *sig, size_t m, double c, double *slope)
{
    double sum = 0.0, d = 0.0;
    for (size_t i = 0; i < m; i++) {
        double t = med[i] - c * sig[i];
        sum += phi(t);
        d += sig[i] * exp(-0.5 * t * t);
    }
    *slope = -c * d * 0.3989422804014327 / (double)m;
    return sum / (double)m;
}

double gb_mad_cut(size_t n, double z)
{
    if (n < 2 || !(z > 0.0) || !isfinite(z))
        return NAN;
    /* About 2e6 normal draws in all: the few-value cases, whose tail comes from the rare
     * samples with a tiny MAD, get the most samples. */
    size_t m = 2000000 / n;
    m = m < 20000 ? 20000 : m > 200000 ? 200000 : m;
    double *med = malloc(m * sizeof *med), *sig = malloc(m * sizeof *sig);
    double *x = malloc(n * sizeof *x), *s = malloc(n * sizeof *s);
    double c = NAN;
    if (!med || !sig || !x || !s)
        goto done;
    uint64_t st = UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)n;
    for (size_t i = 0; i < m; i++) {
        normals(&st, x, n);
        memcpy(s, x, n * sizeof *s);
        med[i] = median_inplace(s, n);
        sig[i] = mad_sigma_scratch(x, n, med[i], s);
    }
    /* The tail falls as c grows: Newton's method on log tail against log c, kept inside a
     * bracket that shrinks with every step (bisection when Newton leaves it). */
    double target = log(phi(-z)), lo = log(0.01), hi = log(1e7), u = log(z);
    for (int it = 0; it < 60 && hi - lo > 1e-6; it++) {
        double slope, t = tail(med, sig, m, exp(u), &slope);
        double g = log(t) - target;
        if (g > 0)
            lo = u;
        else
            hi = u;
        double next = t > 0 && slope < 0 ? u - g * t / slope : NAN;
        if (fabs(g) < 1e-9)
            break;
        u = next > lo && next < hi ? next : 0.5 * (lo + hi);
    }
    c = exp(u);
done:
    free(med);
    free(sig);
    free(x);
    free(s);
    return c;
}
