/* Tuning: constraint expressions, spaces, search strategies (determinism, budgets, annealing
 * against random on a synthetic landscape), the tuning cache file, the profile keys tuned /
 * tunables / constraints / tuning_cache, and the tuning suite and gb_case_measure() on the real
 * OpenCL device (PoCL here). The batching suite's tests are in test_batching.c. */
#include <stdlib.h>
#include <sys/stat.h>

#include "suites/common.h"
#include "suites/suites.h"
#include "run/config.h"
#include "base/error.h"
#include "run/tune.h"
#include "run/tuning_cache.h"
#include "test.h"

/* ---- expressions -------------------------------------------------------------------------- */

struct vars {
    const char *name[8];
    int64_t v[8];
};

static bool lookup(void *user, const char *name, int64_t *v)
{
    const struct vars *vs = user;
    for (int i = 0; i < 8 && vs->name[i]; i++)
        if (strcmp(vs->name[i], name) == 0) {
            *v = vs->v[i];
            return true;
        }
    return false;
}

static int64_t eval(const char *text, struct vars *vs)
{
    struct gb_expr *e;
    char err[256];
    int col;
    int rc = gb_expr_parse(text, &e, err, sizeof err, &col);
    ASSERT_MSG(rc == 0, "%s: %s", text, err);
    int64_t v = -999;
    rc = gb_expr_eval(e, lookup, vs, &v, err, sizeof err);
    ASSERT_MSG(rc == 0, "%s: %s", text, err);
    gb_expr_free(e);
    return v;
}

TEST(tune_expr_precedence_and_functions)
{
    struct vars vs = {{"TILE", "VEC", "WG", "n"}, {16, 4, 256, 1000}};
    ASSERT_EQ(eval("TILE * VEC <= 64", &vs), 1);
    ASSERT_EQ(eval("TILE * VEC < 64", &vs), 0);
    ASSERT_EQ(eval("1 + 2 * 3", &vs), 7);
    ASSERT_EQ(eval("(1 + 2) * 3", &vs), 9);
    ASSERT_EQ(eval("-3 + 10 % 4", &vs), -1);
    ASSERT_EQ(eval("7 / 2 - 1", &vs), 2);
    ASSERT_EQ(eval("n % WG == 0 || WG <= 8", &vs), 0);
    ASSERT_EQ(eval("n % 8 == 0 && !(VEC > 4)", &vs), 1);
    ASSERT_EQ(eval("1 < 2 == 1", &vs), 1); /* C: (1 < 2) == 1 */
    ASSERT_EQ(eval("min(TILE, VEC) + max(TILE, VEC)", &vs), 20);
    ASSERT_EQ(eval("pow2(WG) && !pow2(n)", &vs), 1);
    ASSERT_EQ(eval("  TILE*VEC!=64", &vs), 0);
    /* Short-circuit: the right side would divide by zero. */
    struct vars z = {{"R"}, {0}};
    ASSERT_EQ(eval("R > 0 && 16 % R == 0", &z), 0);
    ASSERT_EQ(eval("R == 0 || 16 / R > 1", &z), 1);
}

TEST(tune_expr_errors_name_the_column)
{
    static const struct {
        const char *text;
        int col;
        const char *msg;
    } bad[] = {
        {"TILE * ", 8, "end of the expression"}, {"TILE = 4", 6, "write =="},
        {"TILE && (VEC", 13, "expected \")\""},  {"foo(1)", 1, "unknown function"},
        {"min(1)", 6, "two arguments"},          {"3x", 2, "followed by a letter"},
        {"TILE $ 2", 6, "unexpected"},           {"", 1, "end of the expression"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct gb_expr *e = NULL;
        char err[256];
        int col = 0;
        ASSERT_EQ(gb_expr_parse(bad[i].text, &e, err, sizeof err, &col), GB_ECONFIG);
        ASSERT(e == NULL);
        ASSERT_MSG(col == bad[i].col, "\"%s\": column %d, expected %d (%s)", bad[i].text, col,
                   bad[i].col, err);
        ASSERT_CONTAINS(err, bad[i].msg);
    }
    /* Evaluation errors: unknown names, division by zero, overflow. */
    struct gb_expr *e;
    char err[256];
    struct vars vs = {{"A"}, {0}};
    int64_t v;
    ASSERT_OK(gb_expr_parse("B + 1", &e, err, sizeof err, NULL));
    ASSERT_EQ(gb_expr_eval(e, lookup, &vs, &v, err, sizeof err), GB_EINVAL);
    ASSERT_CONTAINS(err, "unknown name \"B\"");
    gb_expr_free(e);
    ASSERT_OK(gb_expr_parse("4 / A", &e, err, sizeof err, NULL));
    ASSERT_EQ(gb_expr_eval(e, lookup, &vs, &v, err, sizeof err), GB_EINVAL);
    ASSERT_CONTAINS(err, "division by zero");
    gb_expr_free(e);
    ASSERT_OK(gb_expr_parse("4611686018427387904 * 4", &e, err, sizeof err, NULL));
    ASSERT_EQ(gb_expr_eval(e, lookup, &vs, &v, err, sizeof err), GB_EINVAL);
    ASSERT_CONTAINS(err, "overflow");
    gb_expr_free(e);
}

/* ---- spaces and pruning ------------------------------------------------------------------- */

static struct gb_tunable tunable(const char *name, const int64_t *v, size_t n, size_t def)
{
    struct gb_tunable t = {.n = n, .def = def};
    snprintf(t.name, sizeof t.name, "%s", name);
    memcpy(t.values, v, n * sizeof *v);
    return t;
}

static struct gb_constraint constraint(const char *text, const char *what)
{
    struct gb_constraint c = {0};
    char err[128];
    ASSERT_OK(gb_expr_parse(text, &c.e, err, sizeof err, NULL));
    snprintf(c.what, sizeof c.what, "%s", what);
    return c;
}

TEST(tune_space_encoding_and_pruning)
{
    static const int64_t wg[] = {64, 256, 1024, 8192}, vec[] = {1, 2, 4, 8, 16};
    struct gb_space s = {.n = 2};
    s.t[0] = tunable("WG", wg, 4, 1);
    s.t[1] = tunable("VEC", vec, 5, 2);
    ASSERT_U64(gb_space_size(&s), ==, 20);
    for (uint64_t i = 0; i < 20; i++) {
        size_t c[2];
        gb_space_decode(&s, i, c);
        ASSERT_U64(gb_space_encode(&s, c), ==, i);
    }
    size_t c[2] = {2, 3};
    char buf[64];
    ASSERT_STR(gb_space_format(&s, c, buf, sizeof buf), "WG=1024 VEC=8");
    ASSERT_EQ(gb_space_find(&s, "VEC"), 1);
    ASSERT_EQ(gb_space_find(&s, "TILE"), -1);

    /* The device allows 4096 work-items; the problem (n = 1000 work-items) must be divisible by
     * the work-group; and a user's `WG * VEC <= 4096`. */
    struct gb_constraint cs[3] = {
        constraint("WG <= max_wg", "work-group above the device maximum"),
        constraint("n % WG == 0", "global size not divisible by the work-group"),
        constraint("WG * VEC <= 4096", "user constraint"),
    };
    struct gb_tune_var vars[2] = {{"max_wg", 4096}, {"n", 1 << 20}};
    char why[256];
    size_t failed = 99;
    size_t big[2] = {3, 0}; /* WG=8192 */
    ASSERT_EQ(gb_space_check(&s, big, cs, 3, vars, 2, &failed, why, sizeof why), 0);
    ASSERT_EQ(failed, 0);
    ASSERT_CONTAINS(why, "work-group above the device maximum: WG <= max_wg");
    vars[1].value = 1000; /* not a multiple of 64 */
    size_t small[2] = {0, 0};
    ASSERT_EQ(gb_space_check(&s, small, cs, 3, vars, 2, &failed, why, sizeof why), 0);
    ASSERT_EQ(failed, 1);
    ASSERT_CONTAINS(why, "not divisible");
    vars[1].value = 1 << 20;
    size_t user[2] = {2, 3}; /* 1024 * 8 */
    ASSERT_EQ(gb_space_check(&s, user, cs, 3, vars, 2, &failed, why, sizeof why), 0);
    ASSERT_EQ(failed, 2);
    size_t ok[2] = {1, 4}; /* 256 * 16 */
    ASSERT_EQ(gb_space_check(&s, ok, cs, 3, vars, 2, &failed, why, sizeof why), 1);
    /* An unknown name prunes with the reason rather than passing silently. */
    struct gb_constraint unk = constraint("TILE < 4", "user constraint");
    ASSERT_EQ(gb_space_check(&s, ok, &unk, 1, vars, 2, &failed, why, sizeof why), 0);
    ASSERT_CONTAINS(why, "unknown name \"TILE\"");
    for (int i = 0; i < 3; i++)
        gb_expr_free(cs[i].e);
    gb_expr_free(unk.e);
}

/* ---- strategies --------------------------------------------------------------------------- */

/* A synthetic landscape over a 3-D grid of 8 x 8 x 6 values: a smooth bowl (the cost grows
 * with the squared distance from an optimum off the default), a secondary basin, small
 * deterministic ripples, a few failing points and an invalid corner. */
struct land {
    struct gb_space s;
    double cost[8 * 8 * 6];
};

static void make_land(struct land *L)
{
    static const int64_t a[] = {1, 2, 3, 4, 5, 6, 7, 8};
    memset(L, 0, sizeof *L);
    L->s.n = 3;
    L->s.t[0] = tunable("A", a, 8, 0);
    L->s.t[1] = tunable("B", a, 8, 0);
    L->s.t[2] = tunable("C", a, 6, 0);
    uint64_t rng = 42;
    for (uint64_t i = 0; i < 8 * 8 * 6; i++) {
        size_t c[3];
        gb_space_decode(&L->s, i, c);
        double d1 = pow((double)c[0] - 5, 2) + pow((double)c[1] - 6, 2) + pow((double)c[2] - 3, 2);
        double d2 = pow((double)c[0] - 1, 2) + pow((double)c[1] - 1, 2) + pow((double)c[2] - 5, 2);
        double cost = fmin(1.0 + 0.08 * d1, 1.25 + 0.05 * d2);
        cost *= 1.0 + 0.03 * gb_rand_unit(&rng);
        if (c[0] + c[1] >= 13)
            cost = NAN; /* pruned */
        else if (i % 37 == 5)
            cost = INFINITY; /* fails verification */
        L->cost[i] = cost;
    }
}

static bool land_valid(void *user, const size_t *choice)
{
    const struct land *L = user;
    return !isnan(L->cost[gb_space_encode(&L->s, choice)]);
}

static double land_best(const struct land *L)
{
    double b = INFINITY;
    for (size_t i = 0; i < 8 * 8 * 6; i++)
        if (isfinite(L->cost[i]) && L->cost[i] < b)
            b = L->cost[i];
    return b;
}

TEST(tune_exhaustive_visits_every_valid_configuration_once)
{
    struct land L;
    make_land(&L);
    struct gb_search *x;
    ASSERT_OK(gb_search_create(GB_SEARCH_EXHAUSTIVE, &L.s, land_valid, &L, 5, 1, &x));
    uint64_t valid = 0;
    for (size_t i = 0; i < 8 * 8 * 6; i++)
        valid += !isnan(L.cost[i]);
    ASSERT_U64(gb_search_valid_count(x), ==, valid);
    static unsigned char seen[8 * 8 * 6];
    size_t c[3];
    uint64_t n = 0;
    bool first = true;
    while (gb_search_next(x, c)) {
        uint64_t idx = gb_space_encode(&L.s, c);
        if (first) /* the default configuration comes first */
            ASSERT_U64(idx, ==, 0);
        first = false;
        ASSERT(!isnan(L.cost[idx]));
        ASSERT_EQ(seen[idx], 0);
        seen[idx] = 1;
        gb_search_tell(x, L.cost[idx]);
        n++;
    }
    ASSERT_U64(n, ==, valid); /* the budget does not limit exhaustive */
    double best;
    ASSERT(gb_search_best(x, c, &best));
    ASSERT_NEAR(best, land_best(&L), 0);
    gb_search_free(x);
}

/* The proposals of a strategy as configuration indices. */
static size_t proposals(enum gb_search_kind k, const struct land *L, uint64_t budget, uint64_t seed,
                        uint64_t *out, size_t cap)
{
    struct gb_search *x;
    ASSERT_OK(gb_search_create(k, &L->s, land_valid, (void *)L, budget, seed, &x));
    size_t c[3], n = 0;
    while (gb_search_next(x, c) && n < cap) {
        out[n] = gb_space_encode(&L->s, c);
        gb_search_tell(x, L->cost[out[n]]);
        n++;
    }
    gb_search_free(x);
    return n;
}

TEST(tune_strategies_are_deterministic_under_a_seed)
{
    struct land L;
    make_land(&L);
    enum gb_search_kind kinds[2] = {GB_SEARCH_RANDOM, GB_SEARCH_ANNEAL};
    for (int k = 0; k < 2; k++) {
        uint64_t a[64], b[64], c[64];
        size_t na = proposals(kinds[k], &L, 40, 7, a, 64);
        size_t nb = proposals(kinds[k], &L, 40, 7, b, 64);
        size_t nc = proposals(kinds[k], &L, 40, 8, c, 64);
        ASSERT_EQ(na, 40); /* the budget is exactly spent */
        ASSERT_EQ(nb, 40);
        ASSERT_EQ(nc, 40);
        ASSERT_MSG(memcmp(a, b, sizeof a[0] * na) == 0, "%s: seed 7 twice differs",
                   gb_search_name(kinds[k]));
        ASSERT_MSG(memcmp(a, c, sizeof a[0] * na) != 0, "%s: seeds 7 and 8 agree",
                   gb_search_name(kinds[k]));
        ASSERT_U64(a[0], ==, 0); /* the default first */
        for (size_t i = 0; i < na; i++) {
            ASSERT(!isnan(L.cost[a[i]])); /* never a pruned configuration */
            for (size_t j = 0; j < i; j++)
                ASSERT_MSG(a[i] != a[j], "%s proposed %llu twice", gb_search_name(kinds[k]),
                           (unsigned long long)a[i]);
        }
    }
}

TEST(tune_anneal_beats_random_on_the_same_budget)
{
    struct land L;
    make_land(&L);
    double opt = land_best(&L);
    /* A quarter of the 300 or so valid configurations, over 200 seeds. */
    const uint64_t budget = 40;
    double sum_r = 0, sum_a = 0;
    int hit_r = 0, hit_a = 0, runs = 200;
    for (int seed = 1; seed <= runs; seed++) {
        double br, ba;
        uint64_t er, ea;
        ASSERT_OK(
            gb_search_replay(GB_SEARCH_RANDOM, &L.s, L.cost, budget, (uint64_t)seed, &br, &er));
        ASSERT_OK(
            gb_search_replay(GB_SEARCH_ANNEAL, &L.s, L.cost, budget, (uint64_t)seed, &ba, &ea));
        ASSERT_U64(er, ==, budget);
        ASSERT_U64(ea, ==, budget);
        sum_r += br / opt;
        sum_a += ba / opt;
        hit_r += br <= 1.05 * opt;
        hit_a += ba <= 1.05 * opt;
    }
    printf("budget %llu: random mean %.4f x optimum, within 5%% in %d/%d; anneal %.4f, %d/%d\n",
           (unsigned long long)budget, sum_r / runs, hit_r, runs, sum_a / runs, hit_a, runs);
    ASSERT_MSG(sum_a < sum_r, "anneal %.4f vs random %.4f", sum_a / runs, sum_r / runs);
    ASSERT_MSG(hit_a > hit_r, "anneal %d vs random %d", hit_a, hit_r);
}

/* ---- the tuning cache --------------------------------------------------------------------- */

static struct gb_device fake_dev(const char *name, const char *driver)
{
    static const struct gb_backend_ops ops = {.name = "opencl"};
    struct gb_device d = {.ops = &ops};
    snprintf(d.info.name, sizeof d.info.name, "%s", name);
    snprintf(d.info.driver, sizeof d.info.driver, "%s", driver);
    return d;
}

TEST(tuning_cache_round_trip_and_keys)
{
    char path[512], text[8192];
    const char *dir = gb_test_tmpdir();
    snprintf(path, sizeof path, "%s/deep/er/tuning.json", dir);
    struct gb_device a = fake_dev("cpu-x", "6.0"), a2 = fake_dev("cpu-x", "6.1");
    struct gb_tuning_entry e = {.n = 2,
                                .value = {64, 8},
                                .time_s = 1e-3,
                                .default_time_s = 2e-3,
                                .search = "anneal",
                                .evaluations = 24};
    strcpy(e.name[0], "WG");
    strcpy(e.name[1], "VEC");
    struct gb_tuning_entry got;
    bool found = true;
    /* A missing file is an empty cache. */
    ASSERT_OK(gb_tuning_lookup(path, &a, "dot", "n=1024 type=float", &got, &found));
    ASSERT(!found);
    ASSERT_OK(gb_tuning_store(path, &a, "dot", "n=1024 type=float", &e));
    ASSERT_OK(gb_tuning_lookup(path, &a, "dot", "n=1024 type=float", &got, &found));
    ASSERT(found);
    ASSERT_EQ(got.n, 2);
    ASSERT_STR(got.name[0], "WG");
    ASSERT_EQ(got.value[1], 8);
    ASSERT_NEAR(got.time_s, 1e-3, 1e-12);
    ASSERT_STR(got.search, "anneal");
    ASSERT_EQ(got.evaluations, 24);
    ASSERT(got.updated_utc[0]);
    ASSERT_EQ(gb_tuning_get(&got, "VEC", 1), 8);
    ASSERT_EQ(gb_tuning_get(&got, "TILE", 16), 16);
    /* Another driver, problem or kernel is another key. */
    ASSERT_OK(gb_tuning_lookup(path, &a2, "dot", "n=1024 type=float", &got, &found));
    ASSERT(!found);
    ASSERT_OK(gb_tuning_lookup(path, &a, "dot", "n=2048 type=float", &got, &found));
    ASSERT(!found);
    ASSERT_OK(gb_tuning_lookup(path, &a, "transpose", "n=1024 type=float", &got, &found));
    ASSERT(!found);
    /* A second key is added; storing the first again replaces it and keeps the second. */
    ASSERT_OK(gb_tuning_store(path, &a2, "dot", "n=1024 type=float", &e));
    e.value[0] = 128;
    ASSERT_OK(gb_tuning_store(path, &a, "dot", "n=1024 type=float", &e));
    ASSERT_OK(gb_tuning_lookup(path, &a, "dot", "n=1024 type=float", &got, &found));
    ASSERT(found && got.value[0] == 128);
    ASSERT_OK(gb_tuning_lookup(path, &a2, "dot", "n=1024 type=float", &got, &found));
    ASSERT(found && got.value[0] == 64);
    FILE *f = fopen(path, "r");
    ASSERT(f);
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    ASSERT_CONTAINS(text, "\"schema\": \"gpubench-tuning/1\"");
    ASSERT(strstr(text, "\"driver\": \"6.0\"") && strstr(text, "\"driver\": \"6.1\""));
    ASSERT(strstr(strstr(text, "\"driver\": \"6.0\"") + 1, "\"driver\": \"6.0\"") == NULL);
    /* No temporary files are left behind. */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ls %s/deep/er", dir);
    ASSERT_EQ(gb_test_sh(cmd, text, sizeof text), 0);
    ASSERT(strstr(text, "tmp") == NULL);

    /* A file that is not a tuning cache is an error and is left alone. */
    snprintf(path, sizeof path, "%s/results.json", dir);
    f = fopen(path, "w");
    fputs("{\"schema\": \"gpubench-results/1\", \"results\": []}\n", f);
    fclose(f);
    ASSERT_EQ(gb_tuning_lookup(path, &a, "dot", "n=1", &got, &found), GB_ESCHEMA);
    ASSERT_CONTAINS(gb_error_msg(), "not a gpubench tuning cache");
    ASSERT_EQ(gb_tuning_store(path, &a, "dot", "n=1", &e), GB_ESCHEMA);
    f = fopen(path, "r");
    len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    ASSERT_CONTAINS(text, "gpubench-results/1");
}

TEST(tuning_cache_default_path_follows_xdg)
{
    char p[1024];
    /* The runner points GPUBENCH_TUNING_CACHE at a temporary file; it wins over XDG. */
    ASSERT_OK(gb_tuning_cache_path(NULL, p, sizeof p));
    ASSERT_STR(p, getenv("GPUBENCH_TUNING_CACHE"));
    unsetenv("GPUBENCH_TUNING_CACHE");
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    setenv("HOME", "/home/u", 1);
    ASSERT_OK(gb_tuning_cache_path(NULL, p, sizeof p));
    ASSERT_STR(p, "/x/cache/gpubench/tuning.json");
    setenv("XDG_CACHE_HOME", "relative/is/ignored", 1);
    ASSERT_OK(gb_tuning_cache_path("", p, sizeof p));
    ASSERT_STR(p, "/home/u/.cache/gpubench/tuning.json");
    unsetenv("XDG_CACHE_HOME");
    ASSERT_OK(gb_tuning_cache_path(NULL, p, sizeof p));
    ASSERT_STR(p, "/home/u/.cache/gpubench/tuning.json");
    ASSERT_OK(gb_tuning_cache_path("/tmp/t.json", p, sizeof p));
    ASSERT_STR(p, "/tmp/t.json");
    unsetenv("HOME");
    ASSERT_EQ(gb_tuning_cache_path(NULL, p, sizeof p), GB_EINVAL);
}

/* ---- profile keys ------------------------------------------------------------------------- */

static int load(const char *yaml, struct gb_profile *p, char *err, size_t len,
                const struct gb_override *sets, size_t nsets)
{
    return gb_profile_load_string(gb_suites_builtin(), yaml, "t.yaml", sets, nsets, p, err, len);
}

TEST(config_tuning_keys)
{
    struct gb_profile p;
    char err[512];
    const char *yaml = "tuning_cache: /tmp/tc.json\n"
                       "suites:\n"
                       "  - suite: tuning\n"
                       "    tuned: true\n"
                       "    tunables: {WG: [64, 128], VEC: {from: 1, to: 16, factor: 2}}\n"
                       "    constraints: [\"WG * VEC <= 512\", 'VEC < 16']\n"
                       "  - suite: memory\n";
    int rc = load(yaml, &p, err, sizeof err, NULL, 0);
    ASSERT_MSG(rc == 0, "%s", err);
    ASSERT_STR(p.tuning_cache, "/tmp/tc.json");
    const struct gb_suite_run *r = &p.runs[0];
    ASSERT(r->tuned);
    ASSERT_STR(r->tuning_cache, "/tmp/tc.json");
    ASSERT_EQ(r->ntunables, 2);
    ASSERT_STR(r->tunables[1].name, "VEC");
    ASSERT_EQ(r->tunables[1].n, 5);
    ASSERT_EQ(r->tunables[1].values[4], 16);
    ASSERT_EQ(r->tunables[0].line, 5);
    ASSERT_EQ(r->nconstraints, 2);
    ASSERT_STR(r->constraints[1].text, "VEC < 16");
    ASSERT(!p.runs[1].tuned);
    ASSERT_STR(p.runs[1].tuning_cache, "/tmp/tc.json");
    gb_profile_free(&p);

    /* --set: the cache path and tuned. */
    struct gb_override sets[] = {{"tuning_cache", "/tmp/other.json"}, {"memory.tuned", "yes"}};
    rc = load(yaml, &p, err, sizeof err, sets, 2);
    ASSERT_MSG(rc == 0, "%s", err);
    ASSERT_STR(p.runs[0].tuning_cache, "/tmp/other.json");
    ASSERT(p.runs[1].tuned);
    gb_profile_free(&p);

    /* --set replaces a space and its constraints; the syntax is checked there too. */
    struct gb_override sp[] = {{"tuning.tunables", "{TS: [16, 32]}"},
                               {"tuning.constraints", "TS >= 16"}};
    rc = load(yaml, &p, err, sizeof err, sp, 2);
    ASSERT_MSG(rc == 0, "%s", err);
    ASSERT_EQ(p.runs[0].ntunables, 1);
    ASSERT_STR(p.runs[0].tunables[0].name, "TS");
    ASSERT_EQ(p.runs[0].nconstraints, 1);
    ASSERT_STR(p.runs[0].constraints[0].text, "TS >= 16");
    gb_profile_free(&p);
    struct gb_override badset = {"tuning.constraints", "TS >> 2"};
    ASSERT_EQ(load(yaml, &p, err, sizeof err, &badset, 1), GB_ECONFIG);
    ASSERT_CONTAINS(err, "--set tuning.constraints:1:5: constraint \"TS >> 2\": unexpected");

    /* Without tuning_cache the runs have none (the default location). */
    rc = load("suites:\n  - suite: memory\n    tuned: false\n", &p, err, sizeof err, NULL, 0);
    ASSERT_MSG(rc == 0, "%s", err);
    ASSERT(p.runs[0].tuning_cache == NULL && !p.runs[0].tuned);
    gb_profile_free(&p);
}

TEST(config_tuning_keys_errors_have_locations)
{
    static const struct {
        const char *yaml, *msg;
    } bad[] = {
        {"suites:\n  - suite: memory\n    tuned: maybe\n",
         "t.yaml:3:12: tuned: expected true or false"},
        {"suites:\n  - suite: memory\n    tunables: {WG: [1]}\n",
         "t.yaml:3:15: suite memory takes no tunables"},
        {"suites:\n  - suite: tuning\n    tunables: {9WG: [1]}\n",
         "t.yaml:3:16: tunables: \"9WG\" is not a define name"},
        {"suites:\n  - suite: tuning\n    tunables: {WG: []}\n",
         "t.yaml:3:20: axis WG: empty sweep"},
        {"suites:\n  - suite: tuning\n    tunables: {WG: [-1]}\n",
         "t.yaml:3:21: axis WG: -1 is below the minimum 0"},
        {"suites:\n  - suite: tuning\n    constraints: [\"TILE * \"]\n",
         "t.yaml:3:27: constraint \"TILE * \": unexpected end of the expression"},
        {"suites:\n  - suite: tuning\n    constraints: TILE = 4\n",
         "t.yaml:3:23: constraint \"TILE = 4\": unexpected \"=\" (write ==)"},
        {"suites:\n  - suite: tuning\n    constraints: []\n",
         "t.yaml:3:18: constraints: empty list"},
        {"tuning_cache: [a]\nsuites:\n  - suite: memory\n",
         "t.yaml:1:15: expected a file path for tuning_cache, got a list"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct gb_profile p;
        char err[512];
        ASSERT_EQ(load(bad[i].yaml, &p, err, sizeof err, NULL, 0), GB_ECONFIG);
        ASSERT_CONTAINS(err, bad[i].msg);
    }
}

/* ---- the tuning suite on the real OpenCL device (PoCL here) ------------------------------- */

#include "run/plan.h"
#include "run/runner.h"
#include "run/subcase.h"

static const char *budget = "measure: {min_samples: 3, max_samples: 5, max_time: 50ms, "
                            "min_sample_time: 1ms, warmup_runs: 1}\n";

/* The case's own result (the best configuration): the one without tunables in its params. */
static const struct gb_result *summary(const struct gb_results *rs, const char *kernel)
{
    for (size_t i = 0; i < rs->nresults; i++)
        if (strcmp(rs->results[i].suite, "tuning") == 0 &&
            strcmp(rs->results[i].case_name, kernel) == 0 &&
            gb_test_figure(&rs->results[i], "best"))
            return &rs->results[i];
    GB__FAIL_AT("no summary result of %s", kernel);
}

static int64_t param_or(const struct gb_result *r, const char *name, int64_t def)
{
    const struct gb_value *v = gb_params_get(&r->params, name);
    return v && v->type == GB_V_INT ? v->u.i : def;
}

TEST_TIMEOUT(tuning_prunes_invalid_configurations_without_launching, 120)
{
    /* dot: WG twice the device's own maximum work-group size (PoCL's 4096, Intel's CPU
     * runtime's 8192) is above it. transpose of 1000 x 1000: a 16- or 32-wide tile does not
     * divide it (1000 = 8 x 125), an 8-wide tile does. Values include the defaults, so the
     * spaces are exactly these. */
    struct gb_device_info info;
    gb_test_opencl_info(&info);
    ASSERT(info.max_wg_size >= 256);
    const uint64_t too_big = 2 * (uint64_t)info.max_wg_size;
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "%ssuites:\n"
             "  - suite: tuning\n"
             "    params: {kernel: dot, size: 65536, search: exhaustive}\n"
             "    tunables: {WG: [256, %" PRIu64 "], VEC: [1, 4], LAYOUT: [1], REDUCE: [0], "
             "GPC: [64]}\n"
             "  - suite: tuning\n"
             "    params: {kernel: transpose, size: 1000, search: exhaustive}\n"
             "    tunables: {TILE: [8, 16, 32], ROWS: [4], LOCAL: [1], PAD: [1]}\n"
             "  - suite: tuning\n"
             "    params: {kernel: gemm, size: 64, search: exhaustive}\n"
             "    constraints: [\"TS * WPT <= 64\", \"TILE > 2\"]\n"
             "  - suite: tuning\n"
             "    params: {kernel: gemm, size: 64, search: exhaustive}\n"
             "    tunables: {VEC: [1, 2]}\n",
             budget, too_big);
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    size_t dot_configs = 0, tr_configs = 0, skips = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        char p[256];
        gb_params_format(&r->params, p, sizeof p);
        if (strcmp(r->case_name, "gemm") == 0) {
            /* A name the kernel does not know is a recorded skip that says where and why. */
            ASSERT_EQ(r->status, GB_STATUS_SKIPPED);
            ASSERT_CONTAINS(r->reason, skips ? "profile line 14, column 16: kernel gemm has no "
                                               "tunable VEC (its tunables: TS, WPT, TSK, UNROLL)"
                                             : "constraint \"TILE > 2\" names TILE");
            skips++;
            continue;
        }
        gb_test_assert_verified(r);
        ASSERT_MSG(param_or(r, "WG", 0) != (int64_t)too_big, "launched %s", p);
        ASSERT_MSG(param_or(r, "TILE", 8) == 8, "launched %s", p);
        if (gb_test_figure(r, "best"))
            continue;
        if (strcmp(r->case_name, "dot") == 0)
            dot_configs++;
        else
            tr_configs++;
    }
    ASSERT_EQ(skips, 2);
    ASSERT_EQ(dot_configs, 2); /* WG 256 x VEC {1, 4} */
    ASSERT_EQ(tr_configs, 1);  /* TILE 8 */
    const struct gb_result *d = summary(&rs, "dot"), *t = summary(&rs, "transpose");
    ASSERT(d && t);
    ASSERT_NEAR(gb_test_need_figure(d, "pruned")->v[0], 2, 0);
    ASSERT_CONTAINS(gb_test_need_figure(d, "pruned_by")->text, "wg>max 2");
    ASSERT_NEAR(gb_test_need_figure(d, "valid")->v[0], 2, 0);
    ASSERT_NEAR(gb_test_need_figure(d, "evaluations")->v[0], 2, 0);
    ASSERT_NEAR(gb_test_need_figure(t, "pruned")->v[0], 2, 0);
    ASSERT_CONTAINS(gb_test_need_figure(t, "pruned_by")->text, "global%wg 2");
    ASSERT_CONTAINS(gb_test_need_figure(t, "best")->text, "TILE=8");
    /* The default (TILE 32) was pruned here, so there is no speedup over it. */
    ASSERT(gb_test_figure(t, "speedup") == NULL);
    ASSERT(gb_test_figure(d, "speedup") != NULL);
    gb_results_free(&rs);
}

TEST_TIMEOUT(tuning_cache_is_written_read_back_and_used, 120)
{
    const char *dir = gb_test_tmpdir();
    char yaml[2048], cache[512];
    snprintf(cache, sizeof cache, "%s/tc.json", dir);
    const char *space = "    tunables: {WG: [64, 256], VEC: [1, 8], LAYOUT: [0, 1], REDUCE: [0], "
                        "GPC: [64]}\n";
    snprintf(yaml, sizeof yaml,
             "%stuning_cache: %s\nsuites:\n  - suite: tuning\n"
             "    params: {kernel: dot, size: 262144, search: exhaustive}\n%s",
             budget, cache, space);
    struct gb_results rs;
    gb_test_run_profile(yaml, "0", &rs);
    const struct gb_result *s = summary(&rs, "dot");
    ASSERT(s && s->status == GB_STATUS_OK);
    ASSERT_STR(gb_test_need_figure(s, "cache")->text, "stored");
    ASSERT_NEAR(gb_test_need_figure(s, "evaluations")->v[0], 8, 0);
    char best[64];
    snprintf(best, sizeof best, "%s", gb_test_need_figure(s, "best")->text);
    gb_results_free(&rs);

    /* Read back through the API: the stored configuration is the best one. */
    struct gb_device *dev;
    const struct gb_backend_ops *ops = gb_backend_find("opencl");
    ASSERT(ops && ops->init() == 0);
    ASSERT_OK(ops->device_open(0, &dev));
    struct gb_tuning_entry e;
    bool found = false;
    ASSERT_OK(gb_tuning_lookup(cache, dev, "dot", "n=262144 type=float", &e, &found));
    ops->device_close(dev);
    ASSERT(found);
    char text[64];
    snprintf(text, sizeof text, "WG=%lld VEC=%lld LAYOUT=%lld REDUCE=%lld GPC=%lld",
             (long long)gb_tuning_get(&e, "WG", -1), (long long)gb_tuning_get(&e, "VEC", -1),
             (long long)gb_tuning_get(&e, "LAYOUT", -1), (long long)gb_tuning_get(&e, "REDUCE", -1),
             (long long)gb_tuning_get(&e, "GPC", -1));
    ASSERT_STR(text, best);
    ASSERT_STR(e.search, "exhaustive");
    ASSERT_EQ(e.evaluations, 8);

    /* tuned: true uses it: the default and the cached configuration are measured, nothing is
     * searched, and the best is the cached one. */
    snprintf(yaml, sizeof yaml,
             "%stuning_cache: %s\nsuites:\n  - suite: tuning\n    tuned: true\n"
             "    params: {kernel: dot, size: 262144, search: exhaustive}\n%s",
             budget, cache, space);
    gb_test_run_profile(yaml, "0", &rs);
    s = summary(&rs, "dot");
    ASSERT(s && s->status == GB_STATUS_OK);
    ASSERT_STR(gb_test_need_figure(s, "source")->text, "cache");
    ASSERT_STR(gb_test_need_figure(s, "cache")->text, "used");
    bool cached_is_default = strcmp(best, "WG=256 VEC=1 LAYOUT=1 REDUCE=0 GPC=64") == 0;
    ASSERT_NEAR(gb_test_need_figure(s, "evaluations")->v[0], cached_is_default ? 1 : 2, 0);
    size_t configs = 0;
    for (size_t i = 0; i < rs.nresults; i++)
        configs += !gb_test_figure(&rs.results[i], "best");
    ASSERT_EQ(configs, cached_is_default ? 1 : 2);
    /* The best is the cached configuration unless the default beat it this time. */
    ASSERT(strcmp(gb_test_need_figure(s, "best")->text, best) == 0 ||
           strcmp(gb_test_need_figure(s, "best")->text, "WG=256 VEC=1 LAYOUT=1 REDUCE=0 GPC=64") ==
               0);
    gb_results_free(&rs);
}

TEST_TIMEOUT(tuning_every_kernel_verifies_exactly, 180)
{
    struct gb_results rs;
    gb_test_run_suite(budget, "tuning",
                      "{kernel: [dot, transpose, gemm], size: 64, search: random, budget: 4}", &rs);
    size_t n[3] = {0};
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        char p[256];
        gb_params_format(&r->params, p, sizeof p);
        ASSERT_MSG(r->status == GB_STATUS_OK && r->verified && r->max_error == 0, "%s: %s: %s", p,
                   gb_status_name(r->status), r->reason);
        n[strcmp(r->case_name, "dot") == 0 ? 0 : strcmp(r->case_name, "transpose") == 0 ? 1 : 2]++;
    }
    /* Four configurations and the best, per kernel. */
    ASSERT_EQ(n[0], 5);
    ASSERT_EQ(n[1], 5);
    ASSERT_EQ(n[2], 5);
    ASSERT_STR(summary(&rs, "gemm")->unit, "GFLOP/s");
    ASSERT_STR(summary(&rs, "transpose")->unit, "GB/s");
    gb_results_free(&rs);
}

/* gb_case_measure: a configuration is measured by the harness and verified; a wrong answer is
 * recorded as a failed result with an infinite cost (which a search never takes as its best). */
struct sub_state {
    struct gb_program *prog;
    struct gb_kernel *k;
    struct gb_launch l;
    bool wrong;
};

static int sub_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct sub_state *s = ctx->state;
    int err = 0;
    for (uint64_t r = 0; r < reps && !err; r++)
        err = ctx->ops->launch(ctx->q, s->k, &s->l);
    return err;
}

static int sub_verify(struct gb_case_ctx *ctx)
{
    struct sub_state *s = ctx->state;
    return s->wrong ? gb_case_mismatch(ctx, "element 3 is 7, expected 5") : 0;
}

TEST_TIMEOUT(subcase_measures_and_disqualifies_a_wrong_answer, 60)
{
    const struct gb_backend_ops *ops = gb_backend_find("opencl");
    ASSERT(ops && ops->init() == 0);
    struct gb_device *dev;
    struct gb_queue *q;
    ASSERT_OK(ops->device_open(0, &dev));
    ASSERT_OK(ops->queue_create(dev, &q));
    struct gb_results rs = {0};
    int slot;
    ASSERT_OK(gb_results_add_device(&rs, "opencl", 0, &dev->info, &slot));
    struct gb_case_ctx ctx = {.ops = ops, .dev = dev, .q = q, .extra = &rs};
    struct sub_state st = {0};
    struct gb_buf *count;
    ASSERT_OK(gb_case_build(&ctx, "launch.cl", "launch_count", NULL, 0, &st.prog, &st.k));
    ASSERT_OK(ops->buf_alloc(dev, 4, GB_MEM_DEVICE, &count));
    st.l = (struct gb_launch){.dims = 1, .global = {1, 1, 1}, .local = {1, 1, 1}, .nargs = 1};
    st.l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = count};
    const struct gb_suite op = {.name = "tuning", .run = sub_run, .verify = sub_verify};
    struct gb_op_desc desc = {.timer = GB_TIMER_DEVICE};
    struct gb_measure_cfg cfg = gb_measure_defaults;
    /* Stops at its third sample, converged (any noise is under the target): a time budget
     * would stop it after two on a busy machine or under a sanitizer (gb_stop_rule), and the
     * three samples asserted below would then depend on the load. */
    cfg.max_time = 10;
    cfg.max_noise = INFINITY;
    cfg.min_samples = 3;
    struct gb_params p = {.n = 1, .name = {"WG"}, .v = {{.type = GB_V_INT, .u.i = 1}}};
    struct gb_result r;
    double t;
    ASSERT_OK(gb_case_measure(&ctx, &op, &st, &desc, "x", &p, &cfg, &r, &t));
    ASSERT_EQ(r.status, GB_STATUS_OK);
    ASSERT_MSG(r.verified && isfinite(t) && t > 0 && r.nsamples >= 3,
               "verified %d, op time %g s, %zu samples (%s)", r.verified, t, r.nsamples, r.reason);
    ASSERT_STR(r.unit, "us");
    ASSERT_OK(gb_case_record(&ctx, &r));
    st.wrong = true;
    ASSERT_OK(gb_case_measure(&ctx, &op, &st, &desc, "x", &p, &cfg, &r, &t));
    ASSERT_EQ(r.status, GB_STATUS_FAILED);
    ASSERT(!r.verified && isinf(t));
    ASSERT_CONTAINS(r.reason, "verification failed: element 3 is 7");
    ASSERT_OK(gb_case_record(&ctx, &r));
    ASSERT_EQ(rs.nresults, 2);
    ASSERT_EQ(rs.results[1].device_index, slot);
    ASSERT_STR(rs.results[1].backend, "opencl");
    /* Ctrl-C: nothing measured, nothing recorded. */
    volatile sig_atomic_t stop = 1;
    ctx.stop = &stop;
    ASSERT_EQ(gb_case_measure(&ctx, &op, &st, &desc, "x", &p, &cfg, &r, &t), GB_EINTR);
    ops->buf_free(count);
    ops->kernel_free(st.k);
    ops->program_free(st.prog);
    ops->queue_destroy(q);
    ops->device_close(dev);
    gb_results_free(&rs);
}
