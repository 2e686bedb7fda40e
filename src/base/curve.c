/* gpubench — knees and latency-bandwidth fits (contract in curve.h). */
#include "base/curve.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int gb_curve_knee(const double *x, const double *y, size_t n, double frac, struct gb_knee *out)
{
    memset(out, 0, sizeof *out);
    out->knee_x = NAN;
    out->knee_index = SIZE_MAX;
    if (n == 0 || !(frac > 0 && frac <= 1))
        return GB_FAIL(GB_EINVAL, "knee: %zu points, fraction %g", n, frac);
    size_t *ord = malloc(n * sizeof *ord);
    if (!ord)
        return GB_FAIL(GB_ENOMEM, "knee");
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !(x[i] > 0)) {
            free(ord);
            return GB_FAIL(GB_EINVAL, "knee: x[%zu] = %g", i, x[i]);
        }
        ord[i] = i;
    }
    /* Insertion sort by x: curves have tens of points. */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && x[ord[j]] < x[ord[j - 1]]; j--) {
            size_t t = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = t;
        }
    size_t top = n / 4;
    if (top < 1)
        top = 1;
    if (top > 3)
        top = 3;
    double last[3];
    for (size_t i = 0; i < top; i++)
        last[i] = y[ord[n - 1 - i]];
    qsort(last, top, sizeof last[0], cmp_double);
    out->asymptote = top % 2 ? last[top / 2] : 0.5 * (last[top / 2 - 1] + last[top / 2]);
    if (n >= 2) {
        double a = y[ord[n - 1]], b = y[ord[n - 2]];
        out->plateau = fabs(a - b) <= 0.1 * fmax(fabs(a), fabs(b));
    }
    double level = frac * out->asymptote;
    for (size_t i = n; i-- > 0;) {
        if (!(y[ord[i]] >= level))
            break;
        out->knee_index = ord[i];
        out->knee_x = x[ord[i]];
    }
    free(ord);
    return 0;
}

int gb_curve_fit_latency(const double *bytes, const double *seconds, size_t n, double *t0,
                         double *bw)
{
    *t0 = NAN;
    *bw = NAN;
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, xmin = INFINITY, xmax = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (!(seconds[i] > 0) || !isfinite(seconds[i]) || !(bytes[i] >= 0))
            return GB_FAIL(GB_EINVAL, "latency fit: point %zu is %g bytes in %g s", i, bytes[i],
                           seconds[i]);
        double w = 1.0 / (seconds[i] * seconds[i]);
        sw += w;
        sx += w * bytes[i];
        sy += w * seconds[i];
        sxx += w * bytes[i] * bytes[i];
        sxy += w * bytes[i] * seconds[i];
        xmin = fmin(xmin, bytes[i]);
        xmax = fmax(xmax, bytes[i]);
    }
    if (n < 2 || !(xmax > xmin))
        return GB_FAIL(GB_EINVAL, "latency fit: needs at least 2 distinct sizes");
    double den = sw * sxx - sx * sx;
    double slope = (sw * sxy - sx * sy) / den;
    double icept = (sy - slope * sx) / sw;
    *t0 = icept > 0 ? icept : 0.0;
    *bw = slope > 0 ? 1.0 / slope : INFINITY;
    return 0;
}
