/* Unit tests of src/run/config*.c: profiles, sweeps, measure layers and --set overrides
 * (no device). */
#include <stdint.h>

#include "base/util.h"
#include "suites/suites.h"
#include "run/config.h"
#include "base/error.h"
#include "run/suite.h"
#include "test.h"
#include "base/units.h"

#define KIB (UINT64_C(1) << 10)
#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)

static char err[2048];

/* Loads text as profile "t.yaml" and fails the test on error. */
static struct gb_profile load_ok(const char *text, const struct gb_override *sets, size_t nsets)
{
    struct gb_profile p;
    int rc = gb_profile_load_string(gb_suites_builtin(), text, "t.yaml", sets, nsets, &p, err,
                                    sizeof err);
    ASSERT_MSG(rc == 0, "load failed with %s: %s\n--- profile ---\n%s", gb_err_name(rc), err, text);
    return p;
}

/* Loads text expecting GB_ECONFIG; returns the message. */
static const char *load_bad(const char *text, const struct gb_override *sets, size_t nsets)
{
    struct gb_profile p;
    memset(&p, 0xAB, sizeof p);
    err[0] = '\0';
    int rc = gb_profile_load_string(gb_suites_builtin(), text, "t.yaml", sets, nsets, &p, err,
                                    sizeof err);
    ASSERT_MSG(rc == GB_ECONFIG, "expected ECONFIG, got %s (%s)\n--- profile ---\n%s",
               gb_err_name(rc), err, text);
    /* Nothing stays allocated on error. */
    ASSERT(p.runs == NULL && p.nruns == 0 && p.backends == NULL && p.devices == NULL);
    return err;
}

static const struct gb_sweep *sweep_of(const struct gb_suite_run *r, const char *axis)
{
    const struct gb_axis_def *ax = gb_suite_axis(r->suite, axis);
    ASSERT_MSG(ax != NULL, "suite %s has no axis %s", r->suite->name, axis);
    return &r->sweeps[ax - r->suite->axes];
}

/* "4KiB,16KiB" of a sweep, to compare whole sweeps in one assertion. */
static const char *sweep_text(const struct gb_sweep *s)
{
    static char buf[8192];
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->n && used < sizeof buf; i++) {
        char v[96];
        int w = snprintf(buf + used, sizeof buf - used, "%s%s", i ? "," : "",
                         gb_value_format(&s->v[i], v, sizeof v));
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}

/* ---- sweeps ---------------------------------------------------------------------------- */

static const char *const colors[] = {"red", "green", "blue", NULL};
static const struct gb_axis_def ax_size = {.name = "size", .type = GB_V_SIZE, .min = 1};
static const struct gb_axis_def ax_int = {.name = "n", .type = GB_V_INT, .min = -100, .max = 1000};
static const struct gb_axis_def ax_float = {.name = "x", .type = GB_V_FLOAT};
static const struct gb_axis_def ax_str = {.name = "color", .type = GB_V_STR, .choices = colors};
static const struct gb_axis_def ax_any = {.name = "tag", .type = GB_V_STR};
static const struct gb_axis_def ax_bool = {.name = "flag", .type = GB_V_BOOL};
static const struct gb_axis_def ax_size0 = {.name = "size", .type = GB_V_SIZE, .zero_picks = true};
static const struct gb_axis_def ax_int_all = {
    .name = "n", .type = GB_V_INT, .min = INT64_MIN, .max = INT64_MAX};

static const char *sweep_ok(const struct gb_axis_def *ax, const char *text)
{
    struct gb_sweep s;
    int rc = gb_sweep_parse(ax, text, &s, err, sizeof err);
    ASSERT_MSG(rc == 0, "\"%s\" for axis %s: %s", text, ax->name, err);
    ASSERT(s.n >= 1 && s.v != NULL);
    for (size_t i = 0; i < s.n; i++)
        ASSERT(s.v[i].type == ax->type);
    const char *t = sweep_text(&s);
    gb_sweep_free(&s);
    return t;
}

static const char *sweep_bad(const struct gb_axis_def *ax, const char *text)
{
    struct gb_sweep s;
    err[0] = '\0';
    int rc = gb_sweep_parse(ax, text, &s, err, sizeof err);
    ASSERT_MSG(rc == GB_ECONFIG, "\"%s\" for axis %s gave %d: %s", text, ax->name, rc, err);
    ASSERT(s.n == 0 && s.v == NULL);
    return err;
}

TEST(config_sweep_scalar_and_list)
{
    ASSERT_STR(sweep_ok(&ax_size, "4KiB"), "4KiB");
    ASSERT_STR(sweep_ok(&ax_size, "4096"), "4KiB");
    ASSERT_STR(sweep_ok(&ax_size, "\"1.5 GB\""), "1500000000B");
    ASSERT_STR(sweep_ok(&ax_size, "[1MiB, 4KiB, 8GiB]"), "1MiB,4KiB,8GiB"); /* order kept */
    ASSERT_STR(sweep_ok(&ax_size, "- 1KiB\n- 2KiB\n"), "1KiB,2KiB");        /* block list */
    ASSERT_STR(sweep_ok(&ax_int, "[-5, 0, 7]"), "-5,0,7");
    ASSERT_STR(sweep_ok(&ax_float, "[0.5, 1e3, -2]"), "0.5,1000,-2");
    ASSERT_STR(sweep_ok(&ax_str, "[blue, red]"), "blue,red");
    ASSERT_STR(sweep_ok(&ax_str, "'green'"), "green");
    ASSERT_STR(sweep_ok(&ax_any, "[fp16, cl-2.0, a_b]"), "fp16,cl-2.0,a_b");
    ASSERT_STR(sweep_ok(&ax_bool, "[true, false]"), "true,false");
}

TEST(config_sweep_factor)
{
    ASSERT_STR(sweep_ok(&ax_size, "{from: 4KiB, to: 256KiB, factor: 4}"),
               "4KiB,16KiB,64KiB,256KiB");
    /* `to` is included only when the progression lands on it. */
    ASSERT_STR(sweep_ok(&ax_size, "{from: 4KiB, to: 200KiB, factor: 4}"), "4KiB,16KiB,64KiB");
    ASSERT_STR(sweep_ok(&ax_size, "{from: 1MiB, to: 1MiB, factor: 2}"), "1MiB");
    /* Past 4 GiB without a 32-bit overflow, and up to the top of 64 bits without wrapping. */
    ASSERT_STR(sweep_ok(&ax_size, "{from: 1GiB, to: 16GiB, factor: 2}"),
               "1GiB,2GiB,4GiB,8GiB,16GiB");
    ASSERT_STR(sweep_ok(&ax_size, "{from: 4GiB, to: 18446744073709551615, factor: 1024}"),
               "4GiB,4096GiB,4194304GiB,4294967296GiB"); /* 2^62; 2^72 would wrap */
    /* A fractional factor rounds each value and drops repeats. */
    ASSERT_STR(sweep_ok(&ax_int, "{from: 1, to: 10, factor: 1.5}"), "1,2,3,5,8");
    ASSERT_STR(sweep_ok(&ax_int, "{from: 1, to: 1000, factor: 10}"), "1,10,100,1000");
    ASSERT_STR(sweep_ok(&ax_float, "{from: 0.1, to: 1000, factor: 10}"), "0.1,1,10,100,1000");
    /* Keys in any order. */
    ASSERT_STR(sweep_ok(&ax_size, "{factor: 2, to: 4KiB, from: 1KiB}"), "1KiB,2KiB,4KiB");
}

TEST(config_sweep_step)
{
    ASSERT_STR(sweep_ok(&ax_int, "{from: 64, to: 256, step: 64}"), "64,128,192,256");
    ASSERT_STR(sweep_ok(&ax_int, "{from: 64, to: 250, step: 64}"), "64,128,192");
    ASSERT_STR(sweep_ok(&ax_int, "{from: -10, to: 10, step: 10}"), "-10,0,10");
    ASSERT_STR(sweep_ok(&ax_size, "{from: 1MiB, to: 4MiB, step: 1MiB}"), "1MiB,2MiB,3MiB,4MiB");
    ASSERT_STR(sweep_ok(&ax_size, "{from: 4GiB, to: 6GiB, step: 1GiB}"), "4GiB,5GiB,6GiB");
    ASSERT_STR(sweep_ok(&ax_float, "{from: 0, to: 1, step: 0.25}"), "0,0.25,0.5,0.75,1");
    /* 0.1 steps do not add up exactly to 0.3; `to` still counts as reached. */
    ASSERT_STR(sweep_ok(&ax_float, "{from: 0, to: 0.3, step: 0.1}"), "0,0.1,0.2,0.3");
    ASSERT_STR(sweep_ok(&ax_int, "{from: 5, to: 5, step: 3}"), "5");
}

TEST(config_sweep_invalid)
{
    static const struct {
        const struct gb_axis_def *ax;
        const char *text, *where, *what;
    } cases[] = {
        {&ax_size, "[]", "axis size:1:1:", "empty sweep"},
        {&ax_size, "", "axis size:1:1:", "empty sweep"},
        {&ax_size, "~", "axis size:1:1:", "empty sweep"},
        {&ax_size, "12 XB", "axis size:1:1:", "unknown unit \"XB\""},
        {&ax_size, "[4KiB, 0]", "axis size:1:8:", "zero size"},
        {&ax_size, "-1", "axis size:1:1:", "negative size"},
        {&ax_size, "99999999 TiB", "axis size:1:1:", "64 bits"},
        {&ax_size, "[4KiB, 4096]", "axis size:1:8:", "appears twice"},
        {&ax_size, "[[4KiB]]", "axis size:1:2:", "expected a size"},
        {&ax_size, "{from: 4KiB, to: 1MiB, factor: 1}", "axis size:1:32:", "greater than 1"},
        {&ax_size, "{from: 4KiB, to: 1MiB, factor: 0.5}", "axis size:1:32:", "greater than 1"},
        {&ax_size, "{from: 4KiB, to: 1MiB, factor: x}", "axis size:1:32:", "must be a number"},
        {&ax_size, "{from: 4KiB, to: 1MiB, step: 0}", "axis size:1:30:", "positive"},
        {&ax_size, "{from: 4KiB, to: 1MiB, step: -4KiB}", "axis size:1:30:", "positive"},
        {&ax_int, "{from: 1, to: 9, step: -1}", "axis n:1:24:", "positive"},
        {&ax_size, "{from: 1MiB, to: 4KiB, factor: 2}", "axis size:1:18:", "less than from"},
        {&ax_size, "{from: 4KiB, to: 1MiB}", "axis size:1:1:", "factor (geometric) or step"},
        {&ax_size, "{from: 4KiB, factor: 2}", "axis size:1:1:", "both from and to"},
        {&ax_size, "{from: 1, to: 8, factor: 2, step: 1}", "axis size:1:29:", "not both"},
        {&ax_size, "{from: 1, to: 8, by: 2}", "axis size:1:18:", "unknown key \"by\""},
        {&ax_size, "{from: 1, to: 8, factor: 2, from: 2}", "axis size:1:29:", "duplicate key"},
        {&ax_size, "{from: 1, to: 1GiB, step: 1}", "axis size:1:1:", "more than 10000 values"},
        {&ax_int, "{from: 1, to: 1000, factor: 1.000001}", "axis n:1:29:", "too close to 1"},
        /* The whole 64-bit range in steps of 1: its count must not wrap to an empty sweep. */
        {&ax_size0, "{from: 0, to: 18446744073709551615, step: 1}",
         "axis size:1:1:", "more than 10000 values"},
        {&ax_int_all, "{from: -9223372036854775808, to: 9223372036854775807, step: 1}",
         "axis n:1:1:", "more than 10000 values"},
        /* 0 times a factor stays 0, where an axis takes a size of 0. */
        {&ax_size0, "{from: 0, to: 1MiB, factor: 2}", "axis size:1:8:", "from > 0"},
        {&ax_size0, "{from: 0, to: 1MiB, factor: 1.5}", "axis size:1:8:", "from > 0"},
        {&ax_float, "{from: 0, to: 1, factor: 2}", "axis x:1:8:", "from > 0"},
        {&ax_float, "{from: 0, to: 1e9, step: 1e-9}", "axis x:1:1:", "more than 10000"},
        {&ax_int, "[1, 2.5]", "axis n:1:5:", "expected an integer"},
        {&ax_int, "[1, 2000]", "axis n:1:5:", "above the maximum 1000"},
        {&ax_int, "-101", "axis n:1:1:", "below the minimum -100"},
        {&ax_float, "nan", "axis x:1:1:", "expected a number"},
        {&ax_str, "[red, purple]",
         "axis color:1:7:", "\"purple\" is not one of red, green or blue"},
        {&ax_str, "{from: red, to: blue, step: 1}", "axis color:1:1:", "numeric axis"},
        {&ax_any, "\"two words\"", "axis tag:1:1:", "is not a name"},
        {&ax_bool, "maybe", "axis flag:1:1:", "true or false"},
        {&ax_size, "[4KiB", "axis size:1:6:", "syntax error"},
        {&ax_size, "4KiB\n---\n8KiB\n", "axis size:3:1:", "second"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *m = sweep_bad(cases[i].ax, cases[i].text);
        ASSERT_MSG(strncmp(m, cases[i].where, strlen(cases[i].where)) == 0,
                   "\"%s\": expected location \"%s\", got \"%s\"", cases[i].text, cases[i].where,
                   m);
        ASSERT_MSG(strstr(m, cases[i].what), "\"%s\": expected \"%s\" in \"%s\"", cases[i].text,
                   cases[i].what, m);
        /* The message is also the error detail. */
        ASSERT_STR(gb_error_msg(), m);
    }
}

TEST(config_sweep_limit)
{
    /* Exactly the limit is fine; one more is not. */
    struct gb_sweep s;
    ASSERT_OK(gb_sweep_parse(&ax_float, "{from: 1, to: 10000, step: 1}", &s, err, sizeof err));
    ASSERT_EQ(s.n, 10000);
    gb_sweep_free(&s);
    ASSERT_OK(gb_sweep_parse(&ax_int, "{from: 1, to: 1000, step: 1}", &s, err, sizeof err));
    ASSERT_EQ(s.n, 1000);
    gb_sweep_free(&s);
    ASSERT_OK(gb_sweep_parse(&ax_size, "{from: 1, to: 10000, step: 1}", &s, err, sizeof err));
    ASSERT_EQ(s.n, 10000);
    ASSERT_U64(s.v[9999].u.size, ==, 10000);
    gb_sweep_free(&s);
    ASSERT_EQ(gb_sweep_parse(&ax_size, "{from: 1, to: 10001, step: 1}", &s, err, sizeof err),
              GB_ECONFIG);
}

/* All the sweeps of a profile together are bounded too: 101 entries of a 10,000-value range
 * (an anchor's entry named again by alias, as a hostile file may, 1.01 million values) fail at
 * load time with a message, not after gigabytes; 99 of them load. */
TEST(config_profile_values_bounded)
{
    for (int entries = 99; entries <= 101; entries += 2) {
        static char text[4096];
        int used = snprintf(text, sizeof text,
                            "suites:\n  - &e {suite: memory, params: {op: triad, type: float, "
                            "size: {from: 1KiB, to: 10000KiB, step: 1KiB}}}\n");
        for (int i = 1; i < entries; i++)
            used += snprintf(text + used, sizeof text - (size_t)used, "  - *e\n");
        ASSERT((size_t)used < sizeof text);
        if (entries == 99) {
            struct gb_profile p = load_ok(text, NULL, 0);
            ASSERT_EQ(p.nruns, 99);
            gb_profile_free(&p);
        } else {
            ASSERT_MSG(strstr(load_bad(text, NULL, 0), "more than 1000000 values in all"), "%s",
                       err);
        }
    }
}

/* `optional: true` forgives a suite or an axis this build lacks, and nothing beside it: a bad
 * value of another axis, or a mistake in the entry's measure keys, is a load error whichever
 * order the keys come in. */
TEST(config_optional_forgives_only_what_the_build_lacks)
{
    static const char *const bad[] = {
        "suites:\n  - {suite: memory, optional: true, params: {nosuchaxis: 1, op: triadd}}\n",
        "suites:\n  - {suite: memory, optional: true, params: {op: triadd, nosuchaxis: 1}}\n",
        "suites:\n  - {suite: memory, optional: true, params: {nosuchaxis: 1, size: -1}}\n",
        "suites:\n  - {suite: memory, optional: true, measure: {max_tim: 1s},\n"
        "      params: {nosuchaxis: 1}}\n",
        "suites:\n  - {suite: nosuchsuite, optional: true, measure: {max_tim: 1s}}\n",
        "suites:\n  - {suite: memory, optional: true, params: {sizes: 1}}\n",
    };
    static const char *const what[] = {"triadd",  "triadd",  "negative size",
                                       "max_tim", "max_tim", "did you mean \"size\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *m = load_bad(bad[i], NULL, 0);
        ASSERT_MSG(strstr(m, what[i]), "%zu: expected \"%s\" in \"%s\"", i, what[i], m);
    }
    /* What the build lacks alone: left out, with the loader's message. */
    struct gb_profile p = load_ok("suites:\n  - {suite: launch}\n"
                                  "  - {suite: memory, optional: true, measure: {max_time: 1s},\n"
                                  "      params: {nosuchaxis: 1, op: triad, othermissing: 2}}\n"
                                  "  - {suite: nosuchsuite, optional: true, measure: {max_time: "
                                  "1s}, params: {anything: 1}}\n",
                                  NULL, 0);
    ASSERT_EQ(p.nruns, 1);
    ASSERT_EQ(p.nabsent, 2);
    ASSERT_CONTAINS(p.absent[0].reason, "t.yaml:4:16: suite memory has no axis \"nosuchaxis\"");
    ASSERT_CONTAINS(p.absent[1].reason, "unknown suite \"nosuchsuite\"");
    gb_profile_free(&p);
}

/* Every default sweep of every suite parses (a bad default is a program bug). */
TEST(config_suite_defaults_parse)
{
    ASSERT(gb_suites_builtin()->n > 0);
    for (size_t i = 0; i < gb_suites_builtin()->n; i++) {
        const struct gb_suite *s = gb_suites_builtin()->v[i];
        ASSERT_MSG(s->naxes >= 1 && s->naxes <= GB_MAX_AXES, "suite %s has %zu axes", s->name,
                   s->naxes);
        ASSERT(gb_suite_table_find(gb_suites_builtin(), s->name) == s);
        for (size_t a = 0; a < s->naxes; a++) {
            const struct gb_axis_def *ax = &s->axes[a];
            struct gb_sweep sw;
            ASSERT_MSG(ax->def != NULL, "%s.%s has no default", s->name, ax->name);
            int rc = gb_sweep_parse(ax, ax->def, &sw, err, sizeof err);
            ASSERT_MSG(rc == 0, "default of %s.%s (\"%s\"): %s", s->name, ax->name, ax->def, err);
            ASSERT_MSG(sw.n >= 1, "default of %s.%s is empty", s->name, ax->name);
            for (size_t j = 0; j < sw.n; j++)
                ASSERT(sw.v[j].type == ax->type);
            gb_sweep_free(&sw);
        }
        /* And a profile naming only the suite gets them. */
        char text[128];
        snprintf(text, sizeof text, "suites:\n  - suite: %s\n", s->name);
        struct gb_profile p = load_ok(text, NULL, 0);
        ASSERT_EQ(p.nruns, 1);
        for (size_t a = 0; a < s->naxes; a++)
            ASSERT_MSG(p.runs[0].sweeps[a].n >= 1, "%s.%s", s->name, s->axes[a].name);
        gb_profile_free(&p);
    }
}

/* ---- malformed profiles: exact location and a piece of the message ---------------------- */

TEST(config_malformed_profiles)
{
    static const struct {
        const char *label, *text, *where, *what;
    } cases[] = {
        {"syntax error", "name: quick\nsuites: [\n  {suite: transfer}\n",
         "t.yaml:4:1:", "syntax error"},
        {"syntax error (indentation)", "suites:\n  - suite: transfer\n   params: {}\n",
         "t.yaml:3:4:", "syntax error"},
        {"tab", "suites:\n\t- suite: transfer\n", "t.yaml:2:1:", "syntax error"},
        {"empty profile", "", "t.yaml:1:1:", "empty profile"},
        {"not a mapping", "- suite: transfer\n", "t.yaml:1:1:", "expected a mapping"},
        {"unknown top key", "name: q\nsuite:\n  - suite: transfer\n",
         "t.yaml:2:1:", "unknown key \"suite\""},
        {"no suites", "name: q\n", "t.yaml:1:1:", "no suites"},
        {"empty suites", "suites: []\n", "t.yaml:1:9:", "empty list"},
        {"unknown measure key", "measure:\n  max_tim: 1s\nsuites: [{suite: transfer}]\n",
         "t.yaml:2:3:", "unknown key \"max_tim\" in measure"},
        {"unknown per-suite measure key",
         "suites:\n  - suite: transfer\n    measure: {warmup: 1}\n",
         "t.yaml:3:15:", "unknown key \"warmup\""},
        {"unknown suite", "suites:\n  - suite: transfr\n",
         "t.yaml:2:12:", "unknown suite \"transfr\""},
        {"entry without suite", "suites:\n  - params: {size: 4KiB}\n",
         "t.yaml:2:5:", "without a suite"},
        {"unknown entry key", "suites:\n  - suite: transfer\n    parms: {}\n",
         "t.yaml:3:5:", "unknown key \"parms\""},
        {"unknown axis", "suites:\n  - suite: transfer\n    params:\n      sizes: 4KiB\n",
         "t.yaml:4:7:", "no axis \"sizes\""},
        {"wrong type: list for measure", "measure: [1, 2]\nsuites: [{suite: transfer}]\n",
         "t.yaml:1:10:", "expected a mapping for measure, got a list"},
        {"wrong type: list for params", "suites:\n  - suite: transfer\n    params: [op, h2d]\n",
         "t.yaml:3:13:", "expected a mapping"},
        {"wrong type: map for suites", "suites: {suite: transfer}\n",
         "t.yaml:1:9:", "expected a list"},
        {"wrong type: map for name", "name: {a: 1}\nsuites: [{suite: transfer}]\n",
         "t.yaml:1:7:", "expected a name"},
        {"bad unit", "suites:\n  - suite: transfer\n    params:\n      size: 12 XB\n",
         "t.yaml:4:13:", "unknown unit \"XB\""},
        {"bad unit in a range",
         "suites:\n  - suite: transfer\n    params:\n      size: {from: 4KiB, to: 1 XB, factor: "
         "2}\n",
         "t.yaml:4:30:", "unknown unit"},
        {"zero size", "suites:\n  - suite: transfer\n    params:\n      size: [4KiB, 0]\n",
         "t.yaml:4:20:", "zero size"},
        {"negative size", "suites:\n  - suite: memory\n    params:\n      size: -1MiB\n",
         "t.yaml:4:13:", "negative size"},
        {"empty list sweep", "suites:\n  - suite: transfer\n    params:\n      op: []\n",
         "t.yaml:4:11:", "empty sweep"},
        {"empty value sweep", "suites:\n  - suite: transfer\n    params:\n      op:\n",
         "t.yaml:4:7:", "empty sweep"},
        {"factor 1",
         "suites:\n  - suite: transfer\n    params:\n"
         "      size: {from: 4KiB, to: 1MiB, factor: 1}\n",
         "t.yaml:4:44:", "factor must be greater than 1"},
        {"step 0",
         "suites:\n  - suite: memory\n    params:\n      wg: {from: 64, to: 256, step: 0}\n",
         "t.yaml:4:37:", "step must be positive"},
        {"from > to",
         "suites:\n  - suite: transfer\n    params:\n      size: {from: 1MiB, to: 4KiB, factor: "
         "2}\n",
         "t.yaml:4:30:", "less than from"},
        {"too many values",
         "suites:\n  - suite: transfer\n    params:\n      size: {from: 1, to: 1GiB, step: 1}\n",
         "t.yaml:4:13:", "more than 10000 values"},
        {"duplicate key",
         "suites:\n  - suite: transfer\n    params:\n      op: h2d\n      op: d2h\n",
         "t.yaml:5:7:", "duplicate key \"op\""},
        {"duplicate top key", "name: a\nsuites: [{suite: memory}]\nname: b\n",
         "t.yaml:3:1:", "duplicate key \"name\""},
        {"value not in choices",
         "suites:\n  - suite: transfer\n    params:\n      op: [h2d, h3d]\n",
         "t.yaml:4:17:", "\"h3d\" is not one of h2d, d2h, d2d or bidir"},
        {"gemm shape text", "suites:\n  - suite: gemm\n    params:\n      shape: abc\n",
         "t.yaml:4:14:", "axis shape: \"abc\": expected N (square) or MxNxK"},
        {"gemm shape zero", "suites:\n  - suite: gemm\n    params:\n      shape: [64, 0]\n",
         "t.yaml:4:19:", "axis shape: \"0\": expected N"},
        {"gemm shape negative", "suites:\n  - suite: gemm\n    params:\n      shape: -16\n",
         "t.yaml:4:14:", "axis shape: \"-16\""},
        {"gemm shape two parts", "suites:\n  - suite: gemm\n    params:\n      shape: 16x16\n",
         "t.yaml:4:14:", "axis shape: \"16x16\""},
        {"gemm shape over 2^31",
         "suites:\n  - suite: gemm\n    params:\n      shape: 4x4x4294967296\n",
         "t.yaml:4:14:", "each a whole number from 1 to 2^31"},
        {"gemm negative tol", "suites:\n  - suite: gemm\n    params:\n      tol: [0.1, -1]\n",
         "t.yaml:4:18:", "axis tol: -1: a tolerance is a relative error >= 0"},
        {"conv negative tol", "suites:\n  - suite: conv\n    params:\n      tol: -1e-3\n",
         "t.yaml:4:12:", "axis tol: -0.001: a tolerance is a relative error >= 0"},
        {"wg below min", "suites:\n  - suite: memory\n    params:\n      wg: 0\n",
         "t.yaml:4:11:", "below the minimum 1"},
        {"wg above max", "suites:\n  - suite: memory\n    params:\n      wg: [256, 100000]\n",
         "t.yaml:4:17:", "above the maximum 65536"},
        {"wg not an integer", "suites:\n  - suite: memory\n    params:\n      wg: 4KiB\n",
         "t.yaml:4:11:", "expected an integer"},
        {"bad duration", "measure:\n  max_time: 2 hours\nsuites: [{suite: memory}]\n",
         "t.yaml:2:13:", "unknown unit \"hours\""},
        {"zero max_time", "measure:\n  max_time: 0s\nsuites: [{suite: memory}]\n",
         "t.yaml:2:13:", "must be positive"},
        {"negative warmup_runs", "measure: {warmup_runs: -1}\nsuites: [{suite: memory}]\n",
         "t.yaml:1:24:", "non-negative integer"},
        {"zero min_samples", "measure: {min_samples: 0}\nsuites: [{suite: memory}]\n",
         "t.yaml:1:24:", "at least 1"},
        {"zero max_noise", "measure: {max_noise: 0}\nsuites: [{suite: memory}]\n",
         "t.yaml:1:22:", "must be positive"},
        {"min_samples > max_samples",
         "measure: {max_samples: 10}\nsuites:\n  - suite: memory\n    measure: {min_samples: 20}\n",
         "t.yaml:4:28:", "min_samples (20) is greater than max_samples (10)"},
        {"unknown backend", "backends: [opencl, vulkan]\nsuites: [{suite: memory}]\n",
         "t.yaml:1:20:", "unknown backend \"vulkan\""},
        {"negative device", "devices: [0, -1]\nsuites: [{suite: memory}]\n",
         "t.yaml:1:14:", "device index"},
        {"duplicate device", "devices: [1, 1]\nsuites: [{suite: memory}]\n",
         "t.yaml:1:14:", "twice"},
        {"bad name", "name: my profile\nsuites: [{suite: memory}]\n",
         "t.yaml:1:7:", "may only contain"},
        {"two documents", "suites: [{suite: memory}]\n---\nname: x\n", "t.yaml:3:1:", "second"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *m = load_bad(cases[i].text, NULL, 0);
        ASSERT_MSG(strncmp(m, cases[i].where, strlen(cases[i].where)) == 0,
                   "%s: expected location \"%s\", got \"%s\"", cases[i].label, cases[i].where, m);
        ASSERT_MSG(strstr(m, cases[i].what), "%s: expected \"%s\" in \"%s\"", cases[i].label,
                   cases[i].what, m);
    }
}

/* ---- valid profiles -------------------------------------------------------------------- */

TEST(config_profile_round_trip)
{
    static const char text[] = "name: nightly\n"
                               "backends: [opencl, cuda]\n"
                               "devices: [0, 2]\n"
                               "measure:\n"
                               "  warmup_runs: 3\n"
                               "  warmup_time: 10ms\n"
                               "  min_samples: 6\n"
                               "  max_samples: 100\n"
                               "  max_noise: 1%\n"
                               "  max_time: 2s\n"
                               "  min_sample_time: 500us\n"
                               "  max_batch: 1000000\n"
                               "suites:\n"
                               "  - suite: transfer\n"
                               "    params:\n"
                               "      op: [h2d, d2h]\n"
                               "      size: {from: 4KiB, to: 256MiB, factor: 4}\n"
                               "      memory: pinned\n"
                               "  - suite: memory\n"
                               "    measure:\n"
                               "      max_time: 1s\n"
                               "    params:\n"
                               "      op: triad\n"
                               "      wg: {from: 64, to: 1024, factor: 2}\n"
                               "      size: [1GiB, 4GiB]\n"
                               "  - suite: transfer\n";
    struct gb_profile p = load_ok(text, NULL, 0);
    ASSERT_STR(p.name, "nightly");
    ASSERT_STR(p.path, "t.yaml");
    ASSERT_EQ(strlen(p.sha256), 64);
    ASSERT(p.backends && p.backends[0] && p.backends[1] && !p.backends[2]);
    ASSERT_STR(p.backends[0], "opencl");
    ASSERT_STR(p.backends[1], "cuda");
    ASSERT(p.devices);
    ASSERT_EQ(p.devices[0], 0);
    ASSERT_EQ(p.devices[1], 2);
    ASSERT_EQ(p.devices[2], -1);
    ASSERT_EQ(p.measure.warmup_runs, 3);
    ASSERT_NEAR(p.measure.warmup_time, 0.010, 1e-15);
    ASSERT_EQ(p.measure.min_samples, 6);
    ASSERT_EQ(p.measure.max_samples, 100);
    ASSERT_NEAR(p.measure.max_noise, 0.01, 1e-15);
    ASSERT_NEAR(p.measure.max_time, 2, 0);
    ASSERT_NEAR(p.measure.min_sample_time, 500e-6, 1e-15);
    ASSERT_U64(p.measure.max_batch, ==, 1000000);

    ASSERT_EQ(p.nruns, 3);
    const struct gb_suite_run *t = &p.runs[0], *m = &p.runs[1], *t2 = &p.runs[2];
    ASSERT_STR(t->suite->name, "transfer");
    ASSERT_EQ(t->line, 14);
    ASSERT_EQ(t->column, 5);
    ASSERT_STR(sweep_text(sweep_of(t, "op")), "h2d,d2h");
    ASSERT_STR(sweep_text(sweep_of(t, "size")),
               "4KiB,16KiB,64KiB,256KiB,1MiB,4MiB,16MiB,64MiB,256MiB");
    ASSERT_STR(sweep_text(sweep_of(t, "memory")), "pinned");
    ASSERT_STR(sweep_text(sweep_of(t, "mode")), "async"); /* the default */
    ASSERT_NEAR(t->measure.max_time, 2, 0);               /* the profile's */

    ASSERT_STR(m->suite->name, "memory");
    ASSERT_STR(sweep_text(sweep_of(m, "op")), "triad");
    ASSERT_STR(sweep_text(sweep_of(m, "type")), "float,double");
    ASSERT_STR(sweep_text(sweep_of(m, "wg")), "64,128,256,512,1024");
    const struct gb_sweep *sz = sweep_of(m, "size");
    ASSERT_EQ(sz->n, 2);
    ASSERT_U64(sz->v[1].u.size, ==, 4 * GIB);
    ASSERT_NEAR(m->measure.max_time, 1, 0);
    ASSERT_EQ(m->measure.min_samples, 6);

    /* The same suite again: its own defaults, not the first entry's params. */
    ASSERT_STR(t2->suite->name, "transfer");
    ASSERT_STR(sweep_text(sweep_of(t2, "op")), "h2d,d2h,d2d,bidir");
    ASSERT_EQ(t2->line, 26);
    gb_profile_free(&p);
    ASSERT(p.runs == NULL && p.nruns == 0);
    gb_profile_free(&p); /* twice is harmless */
}

TEST(config_defaults)
{
    struct gb_profile p = load_ok("suites:\n  - suite: transfer\n", NULL, 0);
    ASSERT_STR(p.name, "t"); /* the source's base name without .yaml */
    ASSERT(p.backends == NULL);
    ASSERT(p.devices == NULL);
    ASSERT(memcmp(&p.measure, &gb_measure_defaults, sizeof p.measure) == 0);
    ASSERT(memcmp(&p.runs[0].measure, &gb_measure_defaults, sizeof p.measure) == 0);
    /* The built-in defaults are consistent. */
    ASSERT(gb_measure_defaults.min_samples >= 2);
    ASSERT(gb_measure_defaults.min_samples <= gb_measure_defaults.max_samples);
    ASSERT(gb_measure_defaults.max_noise > 0 && gb_measure_defaults.max_noise < 1);
    ASSERT(gb_measure_defaults.max_time > 0);
    ASSERT(gb_measure_defaults.max_batch >= 1);
    gb_profile_free(&p);

    p = load_ok("backends: all\ndevices: all\nsuites: [{suite: memory}]\n", NULL, 0);
    ASSERT(p.backends == NULL && p.devices == NULL);
    gb_profile_free(&p);
    p = load_ok("backends: cuda\ndevices: 1\nsuites: [{suite: memory}]\n", NULL, 0);
    ASSERT(p.backends && !p.backends[1]);
    ASSERT_STR(p.backends[0], "cuda");
    ASSERT(p.devices && p.devices[0] == 1 && p.devices[1] == -1);
    gb_profile_free(&p);
}

TEST(config_measure_override_semantics)
{
    static const char text[] = "measure:\n"
                               "  max_time: 3s\n"
                               "  min_samples: 7\n"
                               "suites:\n"
                               "  - suite: transfer\n"
                               "    measure: {max_time: 1s, max_noise: 0.05}\n"
                               "  - suite: memory\n";
    struct gb_profile p = load_ok(text, NULL, 0);
    struct gb_measure_cfg want = gb_measure_defaults;
    want.max_time = 3;
    want.min_samples = 7;
    ASSERT(memcmp(&p.measure, &want, sizeof want) == 0);
    /* memory: the profile's layer over the defaults. */
    ASSERT(memcmp(&p.runs[1].measure, &want, sizeof want) == 0);
    /* transfer: only the keys it names change; min_samples still comes from the profile. */
    want.max_time = 1;
    want.max_noise = 0.05;
    ASSERT(memcmp(&p.runs[0].measure, &want, sizeof want) == 0);
    gb_profile_free(&p);
}

/* ---- --set ----------------------------------------------------------------------------- */

static const char base_profile[] = "measure:\n"
                                   "  max_time: 3s\n"
                                   "suites:\n"
                                   "  - suite: transfer\n"
                                   "    measure: {max_time: 1s}\n"
                                   "  - suite: memory\n"
                                   "  - suite: transfer\n";

TEST(config_set_overrides)
{
    const struct gb_override sets[] = {
        {"measure.max_time", "5s"},
        {"transfer.measure.min_samples", "9"},
        {"transfer.params.size", "[4KiB, 1MiB]"},
        {"memory.params.wg", "{from: 64, to: 256, factor: 2}"},
        {"memory.params", "{op: [copy, dot], size: 8GiB}"},
        {"memory.measure", "{max_samples: 50}"},
        {"name", "custom"},
        {"backends", "[cuda]"},
        {"devices", "[3]"},
        {"measure", "{warmup_runs: 0}"},
    };
    struct gb_profile p = load_ok(base_profile, sets, sizeof sets / sizeof sets[0]);
    ASSERT_STR(p.name, "custom");
    ASSERT_STR(p.backends[0], "cuda");
    ASSERT_EQ(p.devices[0], 3);
    ASSERT_NEAR(p.measure.max_time, 5, 0);
    ASSERT_EQ(p.measure.warmup_runs, 0);
    const struct gb_suite_run *t = &p.runs[0], *m = &p.runs[1], *t2 = &p.runs[2];
    /* The entry's own max_time beats the profile level, whatever its source. */
    ASSERT_NEAR(t->measure.max_time, 1, 0);
    ASSERT_NEAR(m->measure.max_time, 5, 0);
    ASSERT_NEAR(t2->measure.max_time, 5, 0);
    /* A suite name applies to every entry of that suite. */
    ASSERT_EQ(t->measure.min_samples, 9);
    ASSERT_EQ(t2->measure.min_samples, 9);
    ASSERT_EQ(m->measure.min_samples, gb_measure_defaults.min_samples);
    ASSERT_EQ(m->measure.max_samples, 50);
    ASSERT_EQ(t->measure.warmup_runs, 0);
    ASSERT_STR(sweep_text(sweep_of(t, "size")), "4KiB,1MiB");
    ASSERT_STR(sweep_text(sweep_of(t2, "size")), "4KiB,1MiB");
    ASSERT_STR(sweep_text(sweep_of(t, "op")), "h2d,d2h,d2d,bidir");
    ASSERT_STR(sweep_text(sweep_of(m, "wg")), "64,128,256");
    ASSERT_STR(sweep_text(sweep_of(m, "op")), "copy,dot");
    ASSERT_STR(sweep_text(sweep_of(m, "size")), "8GiB");
    gb_profile_free(&p);

    /* Later overrides win. */
    const struct gb_override twice[] = {{"measure.max_time", "5s"}, {"measure.max_time", "7s"}};
    p = load_ok(base_profile, twice, 2);
    ASSERT_NEAR(p.runs[1].measure.max_time, 7, 0);
    gb_profile_free(&p);
}

TEST(config_set_invalid)
{
    static const struct {
        struct gb_override set;
        const char *where, *what;
    } cases[] = {
        {{"transfer.params.size", "[4KiB, 12 XB]"},
         "--set transfer.params.size:1:8:",
         "unknown unit \"XB\""},
        {{"transfer.params.size", "[4KiB"}, "--set transfer.params.size:1:6:", "syntax error"},
        {{"transfer.params.size", ""}, "--set transfer.params.size:1:1:", "no value"},
        {{"transfer.params.sise", "4KiB"}, "--set transfer.params.sise:1:1:", "no axis \"sise\""},
        {{"transfer.params", "{op: [h2d, x2y]}"},
         "--set transfer.params:1:12:",
         "\"x2y\" is not one of"},
        {{"measure.max_tim", "1s"}, "--set measure.max_tim:1:1:", "unknown measure key"},
        {{"measure.max_time", "1 fortnight"}, "--set measure.max_time:1:1:", "unknown unit"},
        {{"transfer.measure.min_samples", "-3"},
         "--set transfer.measure.min_samples:1:1:",
         "non-negative"},
        {{"transfer.measure.max_samples", "2"},
         "--set transfer.measure.max_samples:1:1:",
         "greater than max_samples (2)"},
        {{"fft.params.size", "4KiB"}, "--set fft.params.size:1:1:", "unknown suite \"fft\""},
        {{"bogus", "1"}, "--set bogus:1:1:", "unknown key \"bogus\""},
        {{"transfer.size", "4KiB"}, "--set transfer.size:1:1:", "unknown key"},
        {{"a..b", "1"}, "--set a..b:1:1:", "bad key"},
        {{"devices", "[x]"}, "--set devices:1:2:", "device index"},
        {{"backends", "metal"}, "--set backends:1:1:", "unknown backend"},
        {{"memory.params.wg", "0"}, "--set memory.params.wg:1:1:", "below the minimum 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *m = load_bad(base_profile, &cases[i].set, 1);
        ASSERT_MSG(strncmp(m, cases[i].where, strlen(cases[i].where)) == 0,
                   "%s=%s: expected location \"%s\", got \"%s\"", cases[i].set.key,
                   cases[i].set.value, cases[i].where, m);
        ASSERT_MSG(strstr(m, cases[i].what), "%s=%s: expected \"%s\" in \"%s\"", cases[i].set.key,
                   cases[i].set.value, cases[i].what, m);
    }
    /* A suite the profile does not run. */
    const struct gb_override none = {"memory.params.size", "1GiB"};
    const char *m = load_bad("suites: [{suite: transfer}]\n", &none, 1);
    ASSERT_CONTAINS(m, "--set memory.params.size:1:1:");
    ASSERT_CONTAINS(m, "no entry of suite memory");
}

/* ---- files ----------------------------------------------------------------------------- */

TEST(config_load_file)
{
    const char *dir = gb_test_tmpdir();
    char path[GB_PATH_JOIN];
    snprintf(path, sizeof path, "%s/mine.yaml", dir);
    /* sha256 of these exact bytes (printf "$text" | sha256sum) */
    static const char text[] = "suites:\n  - suite: memory\n    params: {size: 4GiB}\n";
    gb_test_write_file(path, text);
    struct gb_profile p;
    ASSERT_OK(gb_profile_load(gb_suites_builtin(), path, NULL, 0, &p, err, sizeof err));
    ASSERT_STR(p.path, path);
    ASSERT_STR(p.name, "mine");
    ASSERT_STR(p.sha256, "44c5b8316354706da58360102a0f5e1a262b948b9f1eda728aa20fb397669f20");
    ASSERT_U64(sweep_of(&p.runs[0], "size")->v[0].u.size, ==, 4 * GIB);
    gb_profile_free(&p);

    /* The same bytes from a string hash the same. */
    ASSERT_OK(gb_profile_load_string(gb_suites_builtin(), text, "x", NULL, 0, &p, err, sizeof err));
    ASSERT_STR(p.sha256, "44c5b8316354706da58360102a0f5e1a262b948b9f1eda728aa20fb397669f20");
    gb_profile_free(&p);

    /* Errors name the file. */
    snprintf(path, sizeof path, "%s/bad.yml", dir);
    gb_test_write_file(path, "suites:\n  - suite: memory\n    params: {size: 12 XB}\n");
    ASSERT_EQ(gb_profile_load(gb_suites_builtin(), path, NULL, 0, &p, err, sizeof err), GB_ECONFIG);
    char want[GB_PATH_JOIN + 64];
    snprintf(want, sizeof want, "%s:3:20: ", path);
    ASSERT_MSG(strncmp(err, want, strlen(want)) == 0, "\"%s\" vs \"%s\"", err, want);
    ASSERT_CONTAINS(gb_error_msg(), "unknown unit");

    /* An unreadable file is an I/O error. */
    snprintf(path, sizeof path, "%s/missing.yaml", dir);
    ASSERT_EQ(gb_profile_load(gb_suites_builtin(), path, NULL, 0, &p, err, sizeof err), GB_EIO);
    ASSERT_CONTAINS(err, "missing.yaml");
    ASSERT(p.runs == NULL);
    ASSERT_EQ(gb_profile_load(gb_suites_builtin(), dir, NULL, 0, &p, err, sizeof err),
              GB_EIO); /* a directory */
}
