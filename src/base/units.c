/* gpubench — units: sizes, durations, and their formatting (see units.h).
 *
 * Sizes are parsed exactly, without going through a double: "1.5 GB" is 1500000000 bytes and
 * "16 TiB" does not lose a bit. The integer part and the fraction are kept as integers and the
 * fraction is scaled by the unit with a reduced fraction, so every product is overflow-checked.
 * Parse errors are about user input, so their detail carries no source location.
 */
#include "base/units.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"

int gb_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a != 0 && b > UINT64_MAX / a)
        return GB_EOVERFLOW;
    *out = a * b;
    return 0;
}

int gb_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b > UINT64_MAX - a)
        return GB_EOVERFLOW;
    *out = a + b;
    return 0;
}

double gb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A unit after a number and what it multiplies by (sizes: exact integers below 2^53). */
struct unit {
    const char *name;
    double mult;
};

static const struct unit size_units[] = {
    {"B", 1},
    {"KiB", UINT64_C(1) << 10},
    {"MiB", UINT64_C(1) << 20},
    {"GiB", UINT64_C(1) << 30},
    {"TiB", UINT64_C(1) << 40},
    {"KB", UINT64_C(1000)},
    {"MB", UINT64_C(1000000)},
    {"GB", UINT64_C(1000000000)},
    {"TB", UINT64_C(1000000000000)},
};

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* The unit that follows a number at s, spaces around it ignored: its text (truncated to len - 1
 * characters) goes into buf, and its multiplier in units[0..n) is returned; 1 when there is no
 * unit, 0 when it is not one of them. */
static double unit_mult(const char *s, const struct unit *units, size_t n, char *buf, size_t len)
{
    s = skip_space(s);
    size_t w = strlen(s);
    while (w > 0 && (s[w - 1] == ' ' || s[w - 1] == '\t'))
        w--;
    if (w >= len)
        w = len - 1;
    memcpy(buf, s, w);
    buf[w] = '\0';
    if (buf[0] == '\0')
        return 1;
    for (size_t i = 0; i < n; i++)
        if (strcmp(buf, units[i].name) == 0)
            return units[i].mult;
    return 0;
}

int gb_parse_size(const char *text, uint64_t *bytes)
{
    if (!text)
        return gb_error_set(GB_EINVAL, NULL, 0, "no size given");
    const char *s = skip_space(text);
    if (*s == '\0')
        return gb_error_set(GB_EINVAL, NULL, 0, "empty size");
    if (*s == '-')
        return gb_error_set(GB_EINVAL, NULL, 0, "negative size \"%s\"", text);
    if (!isdigit((unsigned char)*s))
        return gb_error_set(GB_EINVAL, NULL, 0,
                            "\"%s\" is not a size (expected a number "
                            "and an optional unit: 4096, 4KiB, 1.5 GB)",
                            text);

    /* Integer part. */
    uint64_t ip = 0;
    bool overflow = false;
    for (; isdigit((unsigned char)*s); s++) {
        if (gb_mul_u64(ip, 10, &ip) || gb_add_u64(ip, (uint64_t)(*s - '0'), &ip))
            overflow = true;
    }
    /* Fraction: its digits as an integer over 10^fd, trailing zeros dropped. */
    uint64_t fp = 0, fden = 1;
    if (*s == '.') {
        s++;
        if (!isdigit((unsigned char)*s))
            return gb_error_set(GB_EINVAL, NULL, 0,
                                "\"%s\": a decimal point needs digits "
                                "after it",
                                text);
        const char *f0 = s;
        while (isdigit((unsigned char)*s))
            s++;
        const char *f1 = s;
        while (f1 > f0 && f1[-1] == '0')
            f1--;
        if (f1 - f0 > 18)
            return gb_error_set(GB_EINVAL, NULL, 0, "\"%s\": too many decimal places", text);
        for (const char *p = f0; p < f1; p++) {
            fp = fp * 10 + (uint64_t)(*p - '0');
            fden *= 10;
        }
    }
    char unit[16];
    const size_t nunits = sizeof size_units / sizeof size_units[0];
    const uint64_t mult = (uint64_t)unit_mult(s, size_units, nunits, unit, sizeof unit);
    if (mult == 0)
        return gb_error_set(GB_EINVAL, NULL, 0,
                            "unknown unit \"%s\" in size \"%s\" (expected B, "
                            "KiB, MiB, GiB, TiB, KB, MB, GB or TB)",
                            unit, text);
    if (overflow)
        return gb_error_set(GB_EOVERFLOW, NULL, 0, "size \"%s\" does not fit in 64 bits", text);

    /* bytes = ip * mult + fp * mult / fden, the last term exact. */
    uint64_t whole, frac = 0;
    if (gb_mul_u64(ip, mult, &whole))
        return gb_error_set(GB_EOVERFLOW, NULL, 0, "size \"%s\" does not fit in 64 bits", text);
    if (fp) {
        uint64_t g = gcd_u64(mult, fden);
        uint64_t m = mult / g, d = fden / g;
        if (fp % d != 0)
            return gb_error_set(GB_EINVAL, NULL, 0,
                                "size \"%s\" is not a whole number of "
                                "bytes",
                                text);
        if (gb_mul_u64(fp / d, m, &frac))
            return gb_error_set(GB_EOVERFLOW, NULL, 0, "size \"%s\" does not fit in 64 bits", text);
    }
    uint64_t total;
    if (gb_add_u64(whole, frac, &total))
        return gb_error_set(GB_EOVERFLOW, NULL, 0, "size \"%s\" does not fit in 64 bits", text);
    *bytes = total;
    return 0;
}

static const struct unit duration_units[] = {
    {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {"min", 60.0},
};

int gb_parse_duration(const char *text, double *seconds)
{
    if (!text)
        return gb_error_set(GB_EINVAL, NULL, 0, "no duration given");
    const char *s = skip_space(text);
    if (*s == '-')
        return gb_error_set(GB_EINVAL, NULL, 0, "negative duration \"%s\"", text);
    /* Only plain decimals: strtod would also take "inf", "nan" and hex floats. */
    const char *p = s;
    while (isdigit((unsigned char)*p))
        p++;
    bool digits = p > s;
    if (digits && *p == '.') {
        const char *q = ++p;
        while (isdigit((unsigned char)*p))
            p++;
        digits = p > q;
    }
    if (!digits)
        return gb_error_set(GB_EINVAL, NULL, 0,
                            "\"%s\" is not a duration (expected a number "
                            "and an optional unit: ns, us, ms, s, min; e.g. 10ms, 2s, 0.5)",
                            text);
    char num[64];
    if ((size_t)(p - s) >= sizeof num)
        return gb_error_set(GB_EINVAL, NULL, 0, "duration \"%s\" is too long", text);
    memcpy(num, s, (size_t)(p - s));
    num[p - s] = '\0';
    double v = strtod(num, NULL);

    char unit[16];
    const size_t nunits = sizeof duration_units / sizeof duration_units[0];
    const double mult = unit_mult(p, duration_units, nunits, unit, sizeof unit);
    if (mult == 0)
        return gb_error_set(GB_EINVAL, NULL, 0,
                            "unknown unit \"%s\" in duration \"%s\" "
                            "(expected ns, us, ms, s or min)",
                            unit, text);
    v *= mult;
    if (!isfinite(v))
        return gb_error_set(GB_EINVAL, NULL, 0, "duration \"%s\" is out of range", text);
    *seconds = v;
    return 0;
}

char *gb_format_size(uint64_t bytes, char *buf, size_t len)
{
    static const char *const names[] = {"GiB", "MiB", "KiB"};
    static const unsigned shifts[] = {30, 20, 10};
    if (!buf || len == 0)
        return buf;
    if (bytes != 0)
        for (size_t i = 0; i < 3; i++) {
            uint64_t unit = UINT64_C(1) << shifts[i];
            if (bytes % unit == 0) {
                snprintf(buf, len, "%" PRIu64 "%s", bytes / unit, names[i]);
                return buf;
            }
        }
    snprintf(buf, len, "%" PRIu64 "B", bytes);
    return buf;
}

char *gb_format_bytes_human(uint64_t bytes, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    size_t u = 0;
    while (v >= 1024 && u < 4)
        v /= 1024, u++;
    snprintf(buf, len, u ? "%.2f %s" : "%.0f %s", v, unit[u]);
    return buf;
}

/* Units gb_format_eng rescales: a base after an optional SI prefix. */
static const char *const eng_bases[] = {"B/s", "FLOP/s", "OP/s", "IOP/s", "B", "s",
                                        "Hz",  "W",      "J",    "op/s",  NULL};

/* The base of `unit` and the power of ten its prefix stands for; NULL when it is not one of
 * eng_bases. */
static const char *eng_base(const char *unit, int *exp10)
{
    static const struct {
        char c;
        int e;
    } pre[] = {{'p', -12}, {'n', -9}, {'u', -6}, {'m', -3}, {'k', 3},
               {'K', 3},   {'M', 6},  {'G', 9},  {'T', 12}, {'P', 15}};
    for (size_t i = 0; eng_bases[i]; i++)
        if (strcmp(unit, eng_bases[i]) == 0) {
            *exp10 = 0;
            return eng_bases[i];
        }
    for (size_t k = 0; k < sizeof pre / sizeof *pre; k++)
        if (unit[0] == pre[k].c)
            for (size_t i = 0; eng_bases[i]; i++)
                if (strcmp(unit + 1, eng_bases[i]) == 0 && !(pre[k].c == 'm' && unit[1] == 'B')) {
                    *exp10 = pre[k].e;
                    return eng_bases[i];
                }
    return NULL;
}

/* m (>= 1, < 1000 unless rounded up) with `sig` significant figures, trailing zeros dropped. */
static void eng_digits(double m, int sig, char *out, size_t len)
{
    int intd = m >= 100 ? 3 : m >= 10 ? 2 : 1;
    int dec = sig > intd ? sig - intd : 0;
    snprintf(out, len, "%.*f", dec, m);
    char *dot = strchr(out, '.');
    if (dot) {
        char *e = out + strlen(out);
        while (e > dot + 1 && e[-1] == '0')
            *--e = '\0';
        if (e == dot + 1)
            *dot = '\0';
    }
}

char *gb_format_eng(double v, const char *unit, int sig, char *buf, size_t len)
{
    static const char *const up[] = {"", "k", "M", "G", "T", "P", "E"};
    static const char *const down[] = {"", "m", "u", "n", "p", "f"};
    if (sig < 1 || sig > 9)
        sig = 3;
    unit = unit ? unit : "";
    if (strcmp(unit, "bytes") == 0) /* a figure's unit spelt out: "441 MB", not "441 M bytes" */
        unit = "B";
    const char *sp = *unit ? " " : "";
    if (!len)
        return buf;
    if (!isfinite(v)) {
        snprintf(buf, len, "%g%s%s", v, sp, unit);
        return buf;
    }
    int e10 = 0;
    const char *base = *unit ? eng_base(unit, &e10) : NULL;
    double a = fabs(v) * pow(10, e10);
    char num[48];
    if (!base && a != 0 && a < 1e-3) { /* no unit it knows, very small: e-notation */
        snprintf(buf, len, "%.*g%s%s", sig, v, sp, unit);
        return buf;
    }
    if (!base && a < 1e4) { /* no unit it knows: plain */
        if (a >= 1000)
            snprintf(num, sizeof num, "%.0f", a);
        else if (a < 1)
            snprintf(num, sizeof num, "%.*g", sig, a);
        else
            eng_digits(a, sig, num, sizeof num);
        snprintf(buf, len, "%s%s%s%s", v < 0 ? "-" : "", num, sp, unit);
        return buf;
    }
    /* the power of 1000 that keeps 1 <= mantissa < 1000 (bytes never below 1) */
    bool bytes = base && (strcmp(base, "B") == 0 || strcmp(base, "B/s") == 0);
    int k = 0;
    if (a != 0) {
        while (a >= 1000 && k < 6)
            a /= 1000, k++;
        while (a < 1 && k > -5 && base && !bytes)
            a *= 1000, k--;
    }
    eng_digits(a, sig, num, sizeof num);
    if (atof(num) >= 1000 && k < 6) { /* rounded up to the next prefix */
        a /= 1000, k++;
        eng_digits(a, sig, num, sizeof num);
    }
    const char *prefix = k >= 0 ? up[k] : down[-k];
    if (base)
        snprintf(buf, len, "%s%s %s%s", v < 0 ? "-" : "", num, prefix, base);
    else if (strncmp(unit, "1/", 2) == 0) /* a rate: "15.1 k/s", not "15.1 k 1/s" */
        snprintf(buf, len, "%s%s %s%s", v < 0 ? "-" : "", num, prefix, unit + 1);
    else
        snprintf(buf, len, "%s%s %s%s%s", v < 0 ? "-" : "", num, prefix, sp, unit);
    return buf;
}

bool gb_parse_mnk(const char *text, uint64_t *m, uint64_t *n, uint64_t *k)
{
    unsigned long long a = 0, b = 0, c = 0;
    int used = 0;
    if (sscanf(text, "%llux%llux%llu%n", &a, &b, &c, &used) == 3 && text[used] == '\0') {
    } else if (sscanf(text, "%llu%n", &a, &used) == 1 && text[used] == '\0') {
        b = c = a;
    } else {
        return false;
    }
    if (!a || !b || !c || a > (1ull << 31) || b > (1ull << 31) || c > (1ull << 31))
        return false;
    *m = a, *n = b, *k = c;
    return true;
}
