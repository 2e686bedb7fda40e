/* Unit tests of src/base/units.c and src/base/params.c (no device). */
#include <stdint.h>

#include "base/error.h"
#include "base/params.h"
#include "test.h"
#include "base/units.h"

#define KIB (UINT64_C(1) << 10)
#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)
#define TIB (UINT64_C(1) << 40)

TEST(units_parse_size_valid)
{
    static const struct {
        const char *text;
        uint64_t bytes;
    } cases[] = {
        {"0", 0}, /* zero parses; whether it is allowed is the caller's business */
        {"1", 1},
        {"4096", 4096},
        {"4096B", 4096},
        {"4096 B", 4096},
        {"4KiB", 4 * KIB},
        {"4 KiB", 4 * KIB},
        {"  4KiB  ", 4 * KIB},
        {"256MiB", 256 * MIB},
        {"1GiB", GIB},
        {"4GiB", 4 * GIB}, /* no 32-bit overflow */
        {"16TiB", 16 * TIB},
        {"1.5GiB", 3 * GIB / 2},
        {"0.5KiB", 512},
        {"1.5 GB", UINT64_C(1500000000)},
        {"1KB", 1000},
        {"2MB", UINT64_C(2000000)},
        {"3GB", UINT64_C(3000000000)},
        {"1TB", UINT64_C(1000000000000)},
        {"1.000KiB", 1024},
        {"0.001KB", 1},
        {"18446744073709551615", UINT64_MAX},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t b = 12345;
        int rc = gb_parse_size(cases[i].text, &b);
        ASSERT_MSG(rc == 0, "\"%s\": %s", cases[i].text, gb_error_msg());
        ASSERT_MSG(b == cases[i].bytes, "\"%s\": %" PRIu64 " vs %" PRIu64, cases[i].text, b,
                   cases[i].bytes);
    }
}

TEST(units_parse_size_invalid)
{
    static const struct {
        const char *text;
        int err;
        const char *detail;
    } cases[] = {
        {"", GB_EINVAL, "empty"},
        {"   ", GB_EINVAL, "empty"},
        {"12 XB", GB_EINVAL, "unknown unit \"XB\""},
        {"12XB", GB_EINVAL, "unknown unit"},
        {"4kib", GB_EINVAL, "unknown unit"}, /* units are case sensitive */
        {"4Kib", GB_EINVAL, "unknown unit"},
        {"4b", GB_EINVAL, "unknown unit"},     /* "b" would mean bits */
        {"4KiB x", GB_EINVAL, "unknown unit"}, /* trailing junk */
        {"4 Ki B", GB_EINVAL, "unknown unit"},
        {"-1", GB_EINVAL, "negative"},
        {"-4KiB", GB_EINVAL, "negative"},
        {"+4", GB_EINVAL, "not a size"},
        {"KiB", GB_EINVAL, "not a size"},
        {".5KiB", GB_EINVAL, "not a size"},
        {"4.KiB", GB_EINVAL, "decimal point"},
        {"0.3B", GB_EINVAL, "whole number"},
        {"1.0001KiB", GB_EINVAL, "whole number"},
        {"0x10", GB_EINVAL, "unknown unit"},
        {"1e3", GB_EINVAL, "unknown unit"},
        {"99999999 TiB", GB_EOVERFLOW, "64 bits"},
        {"18446744073709551616", GB_EOVERFLOW, "64 bits"},
        {"16777216TiB", GB_EOVERFLOW, "64 bits"}, /* exactly 2^64 */
        {"99999999999999999999999", GB_EOVERFLOW, "64 bits"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t b = 777;
        gb_error_clear();
        int rc = gb_parse_size(cases[i].text, &b);
        ASSERT_MSG(rc == cases[i].err, "\"%s\": got %s (%s), expected %s", cases[i].text,
                   gb_err_name(rc), gb_error_msg(), gb_err_name(cases[i].err));
        ASSERT_MSG(b == 777, "\"%s\": output written on error", cases[i].text);
        ASSERT_MSG(strstr(gb_error_msg(), cases[i].detail), "\"%s\": detail \"%s\" lacks \"%s\"",
                   cases[i].text, gb_error_msg(), cases[i].detail);
    }
    ASSERT_EQ(gb_parse_size(NULL, &(uint64_t){0}), GB_EINVAL);
}

TEST(units_parse_size_largest)
{
    uint64_t b;
    ASSERT_OK(gb_parse_size("16777215TiB", &b));
    ASSERT_U64(b, ==, UINT64_C(16777215) << 40);
    ASSERT_OK(gb_parse_size("17179869183.75 GiB", &b)); /* 2^64 - 256 MiB */
    ASSERT_U64(b, ==, UINT64_MAX - 256 * MIB + 1);
}

TEST(units_format_size)
{
    static const struct {
        uint64_t bytes;
        const char *text;
    } cases[] = {
        {0, "0B"},
        {1, "1B"},
        {1000, "1000B"},
        {1023, "1023B"},
        {1024, "1KiB"},
        {4096, "4KiB"},
        {1536, "1536B"},
        {3 * KIB, "3KiB"},
        {MIB + KIB, "1025KiB"},
        {256 * MIB, "256MiB"},
        {GIB, "1GiB"},
        {4 * GIB, "4GiB"},
        {TIB, "1024GiB"},
        {UINT64_MAX, "18446744073709551615B"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ASSERT_STR(gb_format_size(cases[i].bytes, buf, sizeof buf), cases[i].text);
        /* What it writes parses back to the same size. */
        uint64_t back;
        ASSERT_OK(gb_parse_size(buf, &back));
        ASSERT_U64(back, ==, cases[i].bytes);
    }
    char small[4];
    ASSERT_STR(gb_format_size(256 * MIB, small, sizeof small), "256"); /* truncated, terminated */
}

TEST(units_format_bytes_human)
{
    char buf[32];
    ASSERT_STR(gb_format_bytes_human(0, buf, sizeof buf), "0 B");
    ASSERT_STR(gb_format_bytes_human(1023, buf, sizeof buf), "1023 B");
    ASSERT_STR(gb_format_bytes_human(1024, buf, sizeof buf), "1.00 KiB");
    ASSERT_STR(gb_format_bytes_human(512 * KIB, buf, sizeof buf), "512.00 KiB");
    ASSERT_STR(gb_format_bytes_human(UINT64_C(4100000000), buf, sizeof buf), "3.82 GiB");
    ASSERT_STR(gb_format_bytes_human(2048 * TIB, buf, sizeof buf), "2048.00 TiB");
}

TEST(units_parse_duration)
{
    static const struct {
        const char *text;
        double secs;
    } ok[] = {
        {"0", 0},        {"0.5", 0.5},   {"2", 2},          {"2s", 2},
        {"2 s", 2},      {"10ms", 1e-2}, {"1.5ms", 1.5e-3}, {"250us", 2.5e-4},
        {"100ns", 1e-7}, {"2min", 120},  {" 3 s ", 3},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        double s = -1;
        int rc = gb_parse_duration(ok[i].text, &s);
        ASSERT_MSG(rc == 0, "\"%s\": %s", ok[i].text, gb_error_msg());
        ASSERT_NEAR(s, ok[i].secs, 1e-15 + 1e-12 * ok[i].secs);
    }
    static const char *const bad[] = {"",    "s",    "-1",     "-1ms", "10 hours", "1e3", "inf",
                                      "nan", "0x10", "1 ms x", "10MS", ".",        "1.",  ".5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double s = -1;
        int rc = gb_parse_duration(bad[i], &s);
        ASSERT_MSG(rc == GB_EINVAL, "\"%s\" gave %d", bad[i], rc);
        ASSERT_MSG(s == -1, "\"%s\": output written on error", bad[i]);
        ASSERT_MSG(gb_error_msg()[0], "\"%s\": no detail", bad[i]);
    }
}

TEST(units_checked_arithmetic)
{
    uint64_t r = 7;
    ASSERT_OK(gb_mul_u64(4, GIB, &r));
    ASSERT_U64(r, ==, 4 * GIB);
    ASSERT_OK(gb_mul_u64(0, UINT64_MAX, &r));
    ASSERT_U64(r, ==, 0);
    ASSERT_OK(gb_mul_u64(UINT64_MAX, 1, &r));
    ASSERT_U64(r, ==, UINT64_MAX);
    r = 7;
    ASSERT_EQ(gb_mul_u64(UINT64_C(1) << 32, UINT64_C(1) << 32, &r), GB_EOVERFLOW);
    ASSERT_EQ(gb_mul_u64(3, UINT64_MAX / 2, &r), GB_EOVERFLOW);
    ASSERT_U64(r, ==, 7);
    ASSERT_OK(gb_add_u64(UINT64_MAX - 1, 1, &r));
    ASSERT_U64(r, ==, UINT64_MAX);
    r = 7;
    ASSERT_EQ(gb_add_u64(UINT64_MAX, 1, &r), GB_EOVERFLOW);
    ASSERT_U64(r, ==, 7);
}

TEST(units_now_monotonic)
{
    double a = gb_now(), b = gb_now();
    ASSERT(a > 0);
    ASSERT(b >= a);
}

/* ---- params.c ---- */

static struct gb_value vsize(uint64_t b)
{
    struct gb_value v = {.type = GB_V_SIZE};
    v.u.size = b;
    return v;
}

static struct gb_value vstr(const char *s)
{
    struct gb_value v = {.type = GB_V_STR};
    snprintf(v.s, sizeof v.s, "%s", s);
    return v;
}

TEST(units_value_format)
{
    char buf[80];
    struct gb_value v = vsize(4 * KIB);
    ASSERT_STR(gb_value_format(&v, buf, sizeof buf), "4KiB");
    v = vsize(4 * GIB);
    ASSERT_STR(gb_value_format(&v, buf, sizeof buf), "4GiB");
    v = vsize(1000);
    ASSERT_STR(gb_value_format(&v, buf, sizeof buf), "1000B");
    v = (struct gb_value){.type = GB_V_INT, .u.i = -256};
    ASSERT_STR(gb_value_format(&v, buf, sizeof buf), "-256");
    v = (struct gb_value){.type = GB_V_FLOAT, .u.f = 0.1};
    ASSERT_STR(gb_value_format(&v, buf, sizeof buf), "0.1");
    v = (struct gb_value){.type = GB_V_FLOAT, .u.f = 1.0 / 3};
    gb_value_format(&v, buf, sizeof buf);
    ASSERT(strtod(buf, NULL) == 1.0 / 3); /* round-trips */
    v = (struct gb_value){.type = GB_V_BOOL, .u.b = true};
    ASSERT_STR(gb_value_format(&v, buf, sizeof buf), "true");
    v.u.b = false;
    ASSERT_STR(gb_value_format(&v, buf, sizeof buf), "false");
    v = vstr("pinned");
    ASSERT_STR(gb_value_format(&v, buf, sizeof buf), "pinned");
}

TEST(units_value_equal)
{
    struct gb_value a = vsize(4096), b = vsize(4096), c = vsize(4097);
    ASSERT(gb_value_equal(&a, &b));
    ASSERT(!gb_value_equal(&a, &c));
    struct gb_value i = {.type = GB_V_INT, .u.i = 4096};
    ASSERT(!gb_value_equal(&a, &i)); /* same number, other type */
    struct gb_value s1 = vstr("h2d"), s2 = vstr("h2d"), s3 = vstr("d2h");
    ASSERT(gb_value_equal(&s1, &s2));
    ASSERT(!gb_value_equal(&s1, &s3));
    ASSERT(!gb_value_equal(&s1, NULL));
}

TEST(units_params_accessors)
{
    struct gb_params p = {.n = 5,
                          .name = {"op", "size", "wg", "alpha", "check"},
                          .v = {vstr("h2d"),
                                vsize(4 * GIB),
                                {.type = GB_V_INT, .u.i = 256},
                                {.type = GB_V_FLOAT, .u.f = 2.5},
                                {.type = GB_V_BOOL, .u.b = true}}};
    ASSERT_STR(gb_params_str(&p, "op"), "h2d");
    ASSERT_U64(gb_params_size(&p, "size"), ==, 4 * GIB);
    ASSERT_EQ(gb_params_int(&p, "wg"), 256);
    ASSERT_NEAR(gb_params_float(&p, "alpha"), 2.5, 0);
    ASSERT(gb_params_bool(&p, "check"));
    ASSERT(gb_params_get(&p, "wg") == &p.v[2]);
    /* Absent or of another type: zero values, never a crash. */
    ASSERT(gb_params_get(&p, "nope") == NULL);
    ASSERT_STR(gb_params_str(&p, "nope"), "");
    ASSERT_STR(gb_params_str(&p, "size"), "");
    ASSERT_U64(gb_params_size(&p, "op"), ==, 0);
    ASSERT_EQ(gb_params_int(&p, "size"), 0);
    ASSERT(!gb_params_bool(&p, "wg"));

    char buf[256];
    ASSERT_STR(gb_params_format(&p, buf, sizeof buf),
               "op=h2d size=4GiB wg=256 alpha=2.5 check=true");
    char small[12];
    gb_params_format(&p, small, sizeof small);
    ASSERT(strlen(small) < sizeof small);
    struct gb_params empty = {0};
    ASSERT_STR(gb_params_format(&empty, buf, sizeof buf), "");
}

TEST(units_sweep_free)
{
    struct gb_sweep s = {.n = 2, .v = calloc(2, sizeof(struct gb_value))};
    gb_sweep_free(&s);
    ASSERT(s.v == NULL);
    ASSERT_EQ(s.n, 0);
    gb_sweep_free(&s); /* twice is harmless */
    gb_sweep_free(NULL);
}
