/* gpubench — FP8 on the host (fp8.h). */
#include "base/fp8.h"

#include <math.h>
#include <stdbool.h>

/* A format: exponent and mantissa bits, bias, whether the all-ones exponent is infinity/NaN
 * (IEEE-like, E5M2) or ordinary but for the one NaN pattern (E4M3 "FN"). */
struct fmt {
    int ebits, mbits, bias;
    bool ieee;
    float max; /* largest finite */
};

static const struct fmt e4m3 = {4, 3, 7, false, 448.0f};
static const struct fmt e5m2 = {5, 2, 15, true, 57344.0f};

static float decode(const struct fmt *F, uint8_t v)
{
    const int emask = (1 << F->ebits) - 1, mmask = (1 << F->mbits) - 1;
    const int e = (v >> F->mbits) & emask, m = v & mmask;
    const float sign = (v & 0x80) ? -1.0f : 1.0f;
    if (F->ieee && e == emask)
        return m ? NAN : sign * INFINITY;
    if (!F->ieee && e == emask && m == mmask)
        return NAN;
    if (e == 0) /* subnormal: m x 2^(1 - bias - mbits) */
        return sign * ldexpf((float)m, 1 - F->bias - F->mbits);
    return sign * ldexpf((float)((1 << F->mbits) | m), e - F->bias - F->mbits);
}

static uint8_t encode(const struct fmt *F, float f)
{
    const uint8_t sign = signbit(f) ? 0x80 : 0;
    if (isnan(f))
        return sign | 0x7F;
    double a = fabs((double)f);
    if (isinf(f) && F->ieee)
        return sign | (uint8_t)(((1 << F->ebits) - 1) << F->mbits);
    if (a == 0)
        return sign;
    const int emin = 1 - F->bias; /* the exponent of the smallest normal */
    int ex;
    frexp(a, &ex); /* a = fr x 2^ex, fr in [0.5, 1): a's exponent is ex - 1 */
    int E = ex - 1 < emin ? emin : ex - 1;
    /* The step between neighbouring values at a's exponent; round to a multiple of it, ties to
     * even (rint in the default rounding mode). A carry to the next binade stays exact. */
    double q = rint(ldexp(a, F->mbits - E));
    double r = ldexp(q, E - F->mbits);
    if (r > F->max)
        r = F->max;
    if (r == 0)
        return sign;
    frexp(r, &ex);
    E = ex - 1;
    if (E < emin) /* subnormal: the mantissa is r / 2^(emin - mbits) */
        return sign | (uint8_t)ldexp(r, F->mbits - emin);
    const int m = (int)ldexp(r, F->mbits - E) - (1 << F->mbits);
    return sign | (uint8_t)(((E + F->bias) << F->mbits) | m);
}

float gb_fp8_e4m3_to_float(uint8_t v)
{
    return decode(&e4m3, v);
}

float gb_fp8_e5m2_to_float(uint8_t v)
{
    return decode(&e5m2, v);
}

uint8_t gb_fp8_e4m3_from_float(float f)
{
    return encode(&e4m3, f);
}

uint8_t gb_fp8_e5m2_from_float(float f)
{
    return encode(&e5m2, f);
}
