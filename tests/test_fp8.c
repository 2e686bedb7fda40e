/* FP8 on the host (src/base/fp8.c): every E4M3 and E5M2 pattern round-trips through float, and
 * the rounding (nearest, ties to even), saturation and special values are those of cuda_fp8.h's
 * __NV_SATFINITE conversions. */
#include <math.h>
#include <stdint.h>

#include "base/fp8.h"
#include "test.h"

TEST(fp8_every_pattern_round_trips)
{
    for (int v = 0; v < 256; v++) {
        const float a = gb_fp8_e4m3_to_float((uint8_t)v);
        if ((v & 0x7F) == 0x7F) {
            ASSERT_MSG(isnan(a), "E4M3 0x%02x is NaN", v);
            ASSERT_EQ(gb_fp8_e4m3_from_float(a) & 0x7F, 0x7F);
        } else {
            ASSERT_MSG(isfinite(a), "E4M3 0x%02x is finite", v);
            ASSERT_MSG(gb_fp8_e4m3_from_float(a) == v, "E4M3 0x%02x -> %g -> 0x%02x", v, a,
                       gb_fp8_e4m3_from_float(a));
        }
        const float b = gb_fp8_e5m2_to_float((uint8_t)v);
        if ((v & 0x7C) == 0x7C && (v & 3)) {
            ASSERT_MSG(isnan(b), "E5M2 0x%02x is NaN", v);
            ASSERT_EQ(gb_fp8_e5m2_from_float(b) & 0x7F, 0x7F);
        } else {
            ASSERT_MSG(!isnan(b), "E5M2 0x%02x is a number", v);
            ASSERT_MSG(gb_fp8_e5m2_from_float(b) == v, "E5M2 0x%02x -> %g -> 0x%02x", v, b,
                       gb_fp8_e5m2_from_float(b));
        }
    }
    /* Values are ordered: each positive pattern is above the one before. */
    for (int v = 1; v < 0x7F; v++) {
        ASSERT(gb_fp8_e4m3_to_float((uint8_t)v) > gb_fp8_e4m3_to_float((uint8_t)(v - 1)));
        if (v <= 0x7C)
            ASSERT(gb_fp8_e5m2_to_float((uint8_t)v) > gb_fp8_e5m2_to_float((uint8_t)(v - 1)));
    }
}

TEST(fp8_known_values_rounding_and_saturation)
{
    ASSERT_NEAR(gb_fp8_e4m3_to_float(0x38), 1.0, 0);
    ASSERT_NEAR(gb_fp8_e4m3_to_float(0x7E), 448.0, 0);
    ASSERT_NEAR(gb_fp8_e4m3_to_float(0x01), ldexp(1, -9), 0);
    ASSERT_NEAR(gb_fp8_e5m2_to_float(0x3C), 1.0, 0);
    ASSERT_NEAR(gb_fp8_e5m2_to_float(0x7B), 57344.0, 0);
    ASSERT_NEAR(gb_fp8_e5m2_to_float(0x01), ldexp(1, -16), 0);
    ASSERT(isinf(gb_fp8_e5m2_to_float(0x7C)) && gb_fp8_e5m2_to_float(0xFC) < 0);
    ASSERT(signbit(gb_fp8_e4m3_to_float(0x80)));
    /* Ties to even: 1.0625 lies between 1 (mantissa 0) and 1.125 (1); 1.1875 between 1.125 and
     * 1.25 (2). */
    ASSERT_EQ(gb_fp8_e4m3_from_float(1.0625f), 0x38);
    ASSERT_EQ(gb_fp8_e4m3_from_float(1.1875f), 0x3A);
    ASSERT_EQ(gb_fp8_e4m3_from_float(1.07f), 0x39);
    ASSERT_EQ(gb_fp8_e4m3_from_float((float)ldexp(1, -10)), 0x00); /* half the least: to 0 */
    ASSERT_EQ(gb_fp8_e4m3_from_float((float)ldexp(1.5, -10)), 0x01);
    ASSERT_EQ(gb_fp8_e4m3_from_float(-(float)ldexp(1, -6)), 0x88); /* the least normal */
    /* A carry into the next binade: 15.9 rounds to 16. */
    ASSERT_EQ(gb_fp8_e4m3_from_float(15.9f), gb_fp8_e4m3_from_float(16.0f));
    /* Saturation (finite and infinite beyond the largest finite) and NaN. */
    ASSERT_EQ(gb_fp8_e4m3_from_float(500.0f), 0x7E);
    ASSERT_EQ(gb_fp8_e4m3_from_float(-1e30f), 0xFE);
    ASSERT_EQ(gb_fp8_e4m3_from_float(-INFINITY), 0xFE);
    ASSERT_EQ(gb_fp8_e5m2_from_float(1e6f), 0x7B);
    ASSERT_EQ(gb_fp8_e5m2_from_float(INFINITY), 0x7C);
    ASSERT_EQ(gb_fp8_e5m2_from_float(-INFINITY), 0xFC);
    ASSERT_EQ(gb_fp8_e4m3_from_float(NAN) & 0x7F, 0x7F);
    ASSERT_EQ(gb_fp8_e5m2_from_float(NAN) & 0x7F, 0x7F);
}
