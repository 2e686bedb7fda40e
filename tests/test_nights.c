/* The nightly gate against a baseline's nights: robust statistics and the nights' rules as pure
 * functions, generated series of nights with and without a slowdown, learned thresholds, and
 * real nights of a tiny profile through scripts/nightly.sh on the OpenCL device (PoCL here). */
#include <jansson.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyses/compare.h"
#include "base/error.h"
#include "base/robust.h"
#include "results/results.h"
#include "base/stats.h"
#include "test.h"

static char out[1 << 18];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)
/* ---- the gate against nights: robust statistics, rules, generated series, real nights ------ */

TEST(compare_robust_median_mad_cut)
{
    double x[] = {5, 1, 4, 2, 3}, y[] = {4, 1, 3, 2};
    ASSERT_NEAR(gb_median(x, 5), 3, 0);
    ASSERT_NEAR(gb_median(y, 4), 2.5, 0);
    ASSERT_NEAR(x[0], 5, 0); /* not modified */
    ASSERT(isnan(gb_median(x, 0)));
    /* Croux & Rousseeuw's factors: the table, then n / (n - 0.8). */
    ASSERT_NEAR(gb_mad_bn(5), 1.206, 0);
    ASSERT_NEAR(gb_mad_bn(9), 1.107, 0);
    ASSERT_NEAR(gb_mad_bn(14), 14 / 13.2, 1e-12);
    /* |x - 3| = 2, 2, 1, 1, 0: MAD 1, times 1.4826 and b_5. */
    ASSERT_NEAR(gb_mad_sigma(x, 5, 3), 1.206 * 1.482602218505602, 1e-12);
    ASSERT_NEAR(gb_mad_sigma(x, 1, 3), 0, 0);
    /* The cut against an independent brute-force simulation (2e6 draws of n + 1 normals each,
     * the 0.135% quantile of (y - median) / MAD_n): 23.8 at n = 5, 6.40 at 10, 5.08 at 14,
     * 3.80 at 30. Within 5%; deterministic. */
    struct {
        size_t n;
        double c;
    } ref[] = {{5, 23.81}, {10, 6.40}, {14, 5.08}, {30, 3.80}};
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        double c = gb_mad_cut(ref[i].n, 3.0);
        ASSERT_MSG(fabs(c / ref[i].c - 1) < 0.05, "n = %zu: cut %g, brute force %g", ref[i].n, c,
                   ref[i].c);
        ASSERT_NEAR(gb_mad_cut(ref[i].n, 3.0), c, 0); /* the same every time */
    }
    /* Wider for a rarer tail, and z itself in the limit. */
    ASSERT(gb_mad_cut(14, 4.0) > gb_mad_cut(14, 3.0));
    double big = gb_mad_cut(100, 3.0);
    ASSERT_MSG(big > 3.0 && big < 3.4, "cut for 100 values %g", big);
    ASSERT(isnan(gb_mad_cut(1, 3.0)));
    ASSERT(isnan(gb_mad_cut(5, 0.0)));
}

/* n nights around `center` with a deterministic relative spread of about sd (a fixed pattern
 * whose scaled MAD is close to sd). */
static void nights_around(double *x, size_t n, double center, double sd)
{
    static const double z[] = {0.3, -1.1,  0.8,  -0.2, 1.5, -0.6, 0.05,  -1.6,
                               1.0, -0.35, 0.55, -0.9, 1.2, 0.15, -0.45, 0.7};
    for (size_t i = 0; i < n; i++)
        x[i] = center * exp(sd * z[i % 16]);
}

TEST(compare_judge_nights_rules)
{
    struct gb_compare_opts o;
    gb_compare_opts_default(&o);
    ASSERT_NEAR(o.mads, 3, 0);
    ASSERT_EQ(o.min_nights, 5);
    struct gb_judgement j;
    struct gb_night_judgement nj;
    double n14[14], cut14 = gb_mad_cut(14, 3.0);
    nights_around(n14, 14, 100, 0.02);
    /* 20% slower (GB/s / 1.2): far outside 14 nights of a 2% spread, beyond 5%: SLOWER. */
    ASSERT_OK(gb_compare_judge_nights(n14, 14, 100 / 1.2, 0.01, true, 0.05, &o, cut14, &j, &nj));
    ASSERT_STR(gb_verdict_name(j.verdict), "SLOWER");
    ASSERT_EQ(nj.n, 14);
    ASSERT_MSG(nj.spread > 0.01 && nj.spread < 0.03, "spread %g", nj.spread);
    ASSERT(nj.z < -cut14);
    ASSERT_NEAR(nj.cut, cut14, 0);
    ASSERT_CONTAINS(j.why, "MADs below 14 nights");
    ASSERT(isnan(j.p));
    /* What it catches: the larger of the threshold and e^(cut * spread) - 1. */
    ASSERT_NEAR(nj.catches, fmax(0.05, exp(cut14 * nj.spread) - 1), 1e-12);
    /* 7% slower: beyond the threshold but inside the nights' spread (cut ~5 x 2%): UNSTABLE. */
    ASSERT_OK(gb_compare_judge_nights(n14, 14, 100 / 1.07, 0.01, true, 0.05, &o, cut14, &j, &nj));
    ASSERT_STR(gb_verdict_name(j.verdict), "UNSTABLE");
    ASSERT_CONTAINS(j.why, "inside the nights' spread");
    /* Nights 10% apart (a shared machine): tonight no further out than one of them is a
     * normal night, SAME, though beyond the threshold (it read UNSTABLE every night). */
    double wide[14];
    nights_around(wide, 14, 100, 0.10);
    ASSERT_OK(gb_compare_judge_nights(wide, 14, 100 * exp(-0.10 * 1.1), 0.01, true, 0.05, &o, cut14,
                                      &j, &nj));
    ASSERT_STR(gb_verdict_name(j.verdict), "SAME");
    ASSERT_CONTAINS(j.why, "within the range of the 14 nights");
    /* ... and beyond the farthest night but inside the cut: UNSTABLE. */
    ASSERT_OK(gb_compare_judge_nights(wide, 14, 100 * exp(-0.10 * 2.5), 0.01, true, 0.05, &o, cut14,
                                      &j, &nj));
    ASSERT_STR(gb_verdict_name(j.verdict), "UNSTABLE");
    /* 3% slower: within the threshold: SAME. */
    ASSERT_OK(gb_compare_judge_nights(n14, 14, 97, 0.01, true, 0.05, &o, cut14, &j, &nj));
    ASSERT_STR(gb_verdict_name(j.verdict), "SAME");
    /* A time (lower is better) 20% higher: SLOWER; 20% lower: FASTER. */
    ASSERT_OK(gb_compare_judge_nights(n14, 14, 120, 0.01, false, 0.05, &o, cut14, &j, &nj));
    ASSERT_STR(gb_verdict_name(j.verdict), "SLOWER");
    ASSERT_NEAR(j.ratio, 100.0 / 120.0, 0.02);
    ASSERT_OK(gb_compare_judge_nights(n14, 14, 80, 0.01, false, 0.05, &o, cut14, &j, &nj));
    ASSERT_STR(gb_verdict_name(j.verdict), "FASTER");
    /* The floor: 14 identical nights do not make every wiggle significant. With a 1% threshold,
     * 2% slower is 4 spreads of 0.5% (under the cut): UNSTABLE; 4% slower is 8: SLOWER. */
    double same[14];
    for (int i = 0; i < 14; i++)
        same[i] = 100;
    ASSERT_OK(gb_compare_judge_nights(same, 14, 100 / 1.02, 0.001, true, 0.01, &o, cut14, &j, &nj));
    ASSERT_NEAR(nj.mad, 0, 0);
    ASSERT_NEAR(nj.spread, 0.005, 0);
    ASSERT_STR(gb_verdict_name(j.verdict), "UNSTABLE");
    ASSERT_OK(gb_compare_judge_nights(same, 14, 100 / 1.04, 0.001, true, 0.01, &o, cut14, &j, &nj));
    ASSERT_STR(gb_verdict_name(j.verdict), "SLOWER");
    /* ... and tonight's own noise raises the floor: 4% slower with 3% noise is inside. */
    ASSERT_OK(gb_compare_judge_nights(same, 14, 100 / 1.04, 0.03, true, 0.01, &o, cut14, &j, &nj));
    ASSERT_NEAR(nj.spread, 0.03, 1e-12);
    ASSERT_STR(gb_verdict_name(j.verdict), "UNSTABLE");
    /* Fewer nights than min_nights: LEARNING, whatever the change. */
    ASSERT_OK(gb_compare_judge_nights(n14, 4, 10, 0.01, true, 0.05, &o, NAN, &j, &nj));
    ASSERT_STR(gb_verdict_name(j.verdict), "LEARNING");
    ASSERT_CONTAINS(j.why, "learning: 4 of 5 nights");
    ASSERT_OK(gb_compare_judge_nights(n14, 0, 10, 0.01, true, 0.05, &o, NAN, &j, &nj));
    ASSERT_STR(gb_verdict_name(j.verdict), "LEARNING");
    /* A 20% slowdown over 5 nights: the cut is ~24 spreads: a 2% spread hides it. */
    double cut5 = gb_mad_cut(5, 3.0);
    ASSERT_OK(gb_compare_judge_nights(n14, 5, 100 / 1.2, 0.01, true, 0.05, &o, cut5, &j, &nj));
    ASSERT_STR(gb_verdict_name(j.verdict), "UNSTABLE");
    /* Bad input. */
    double bad[] = {100, -1, 100, 100, 100};
    ASSERT_EQ(gb_compare_judge_nights(bad, 5, 100, 0.01, true, 0.05, &o, cut5, &j, &nj), GB_EINVAL);
    ASSERT_OK(gb_compare_judge_nights(n14, 5, NAN, 0.01, true, 0.05, &o, cut5, &j, &nj));
    ASSERT_STR(gb_verdict_name(j.verdict), "UNSTABLE");
    /* The options. */
    ASSERT_OK(gb_compare_set_option(&o, "mads", "3.5"));
    ASSERT_NEAR(o.mads, 3.5, 0);
    ASSERT_OK(gb_compare_set_option(&o, "min-nights", "7"));
    ASSERT_EQ(o.min_nights, 7);
    ASSERT_EQ(gb_compare_set_option(&o, "min-nights", "2"), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "3..1000 nights");
    ASSERT_EQ(gb_compare_set_option(&o, "mads", "0"), GB_EINVAL);
    ASSERT(!o.threshold_given);
    ASSERT_OK(gb_compare_set_option(&o, "threshold", "4%"));
    ASSERT(o.threshold_given);
}

/* ---- generated nights ---------------------------------------------------------------------- */

/* The cases of a generated night: what a new user runs first (memory triad and copy, launch
 * latency), plus a copy. */
static const struct series_case {
    const char *suite, *name, *unit;
    bool higher;
    double center;
} series_cases[] = {
    {"memory", "copy", "GB/s", true, 100.0},
    {"memory", "triad", "GB/s", true, 90.0},
    {"launch", "latency", "us", false, 40.0},
    {"transfer", "h2d", "GB/s", true, 10.0},
};
#define SERIES_CASES (sizeof series_cases / sizeof series_cases[0])

/* A standard normal draw from a fixed-seed generator (the series are the same every time). */
static double series_normal(uint64_t *st)
{
    double u[2];
    for (int k = 0; k < 2; k++) {
        *st ^= *st << 13;
        *st ^= *st >> 7;
        *st ^= *st << 17;
        u[k] = ((double)(*st >> 11) + 0.5) / 9007199254740992.0;
    }
    return sqrt(-2 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

/* Writes a generated night to path: each case's 20 samples around its center times a night
 * factor e^(spread * N(0,1)), with 0.5% within-run noise; the case `slow` (-1 none, -2 all) is made
 * `slowdown` times slower (GB/s divided, us multiplied): exactly what that much more work per
 * operation would measure, without its noise. Test-only: nothing measured. */
static void write_night(const char *path, int night, uint64_t *st, double spread, int slow,
                        double slowdown)
{
    struct gb_results rs = {0};
    snprintf(rs.run.host, sizeof rs.run.host, "testhost");
    snprintf(rs.run.profile_name, sizeof rs.run.profile_name, "series");
    snprintf(rs.run.profile_sha256, sizeof rs.run.profile_sha256, "%064d", 0);
    snprintf(rs.run.gpubench_version, sizeof rs.run.gpubench_version, "test");
    time_t t = (time_t)1900000000 + (time_t)night * 86400;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(rs.run.start_utc, sizeof rs.run.start_utc, "%Y-%m-%dT02:30:00Z", &tm);
    snprintf(rs.run.end_utc, sizeof rs.run.end_utc, "%s", rs.run.start_utc);
    struct gb_device_info info = {.name = "Series Device"};
    int dev;
    ASSERT_OK(gb_results_add_device(&rs, "opencl", 0, &info, &dev));
    for (size_t c = 0; c < SERIES_CASES; c++) {
        const struct series_case *sc = &series_cases[c];
        struct gb_result r = {.device_index = dev, .status = GB_STATUS_OK};
        snprintf(r.suite, sizeof r.suite, "%s", sc->suite);
        snprintf(r.case_name, sizeof r.case_name, "%s", sc->name);
        snprintf(r.backend, sizeof r.backend, "opencl");
        r.params.n = 1;
        r.params.name[0] = "op";
        r.params.v[0].type = GB_V_STR;
        snprintf(r.params.v[0].s, sizeof r.params.v[0].s, "%s", sc->name);
        snprintf(r.metric, sizeof r.metric, sc->higher ? "bandwidth" : "latency");
        snprintf(r.unit, sizeof r.unit, "%s", sc->unit);
        r.better = sc->higher ? GB_BETTER_HIGHER : GB_BETTER_LOWER;
        double f = exp(spread * series_normal(st));
        if ((int)c == slow || slow == -2) /* -2: every case */
            f *= sc->higher ? 1.0 / slowdown : slowdown;
        r.nsamples = 20;
        r.samples = malloc(r.nsamples * sizeof *r.samples);
        ASSERT(r.samples);
        for (size_t k = 0; k < r.nsamples; k++)
            r.samples[k] = sc->center * f * (1.0 + 0.005 * series_normal(st));
        gb_stats_compute(r.samples, r.nsamples, &r.stats);
        r.value = r.stats.median;
        r.batch = 1;
        r.verified = true;
        ASSERT_OK(gb_results_add(&rs, &r));
    }
    ASSERT_OK(gb_results_write(&rs, path));
    gb_results_free(&rs);
}

/* A GPUBENCH for scripts/nightly.sh whose `run` writes no measurement but takes the next
 * generated night from dir/queue (test-only); every other command is the real binary. */
static void write_fake_gpubench(const char *dir)
{
    char path[1100], text[4096];
    snprintf(path, sizeof path, "%s/fake-gpubench", dir);
    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "# test-only: `run` takes the next generated night from the queue\n"
             "if [ \"$1\" = run ]; then\n"
             "  out=; prev=\n"
             "  for a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
             "  next=$(ls %s/queue | head -n 1)\n"
             "  [ -n \"$next\" ] || { echo 'fake-gpubench: the queue is empty' >&2; exit 2; }\n"
             "  mv \"%s/queue/$next\" \"$out\"\n"
             "  exit 0\n"
             "fi\n"
             "exec %s \"$@\"\n",
             dir, dir, GB_TEST_EXE);
    gb_test_write_file(path, text);
    ASSERT_EQ(chmod(path, 0755), 0);
    snprintf(path, sizeof path, "%s/queue", dir);
    ASSERT_EQ(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/series.yaml", dir);
    gb_test_write_file(path, "name: series\nsuites:\n  - suite: launch\n");
}

/* One night of scripts/nightly.sh on generated runs: the night's run and a confirming one are
 * queued (the confirming run is drawn like the night: the same slowdown). Returns the exit
 * status; `out` holds what the script printed. */
static int generated_night(const char *dir, int night, uint64_t *st, int slow, double slowdown,
                           const char *opts)
{
    char path[1200];
    ASSERT_EQ(sh("rm -f %s/queue/*", dir), 0);
    snprintf(path, sizeof path, "%s/queue/%03d-a.json", dir, night);
    write_night(path, night, st, 0.01, slow, slowdown);
    snprintf(path, sizeof path, "%s/queue/%03d-b.json", dir, night);
    write_night(path, night, st, 0.01, slow, slowdown);
    return sh("cd %s && GPUBENCH=%s/fake-gpubench RESULTS_DIR=%s/results %s/scripts/nightly.sh "
              "series.yaml %s 2>&1",
              dir, dir, dir, GB_TEST_SRCDIR, opts);
}

/* How many nights the generated series' baseline holds. */
static int series_nights(const char *dir)
{
    ASSERT_EQ(sh("ls %s/results/baselines/*/nights/ | wc -l", dir), 0);
    return atoi(out);
}

/* Power: a 20% slowdown of one case from night N on fails the night N (or N + 1), for that case
 * only, and keeps failing (a regressed night does not join the baseline); the nights before,
 * with a 1% spread between nights, learn and pass. Generated runs, the real script. */
TEST_TIMEOUT(compare_nightly_generated_slowdown_is_caught, 300)
{
    const char *dir = gb_test_tmpdir();
    write_fake_gpubench(dir);
    uint64_t st = 0x2545F4914F6CDD1DULL;
    const int N = 12, slow = 1; /* memory triad */
    int failed_on = 0;
    for (int night = 1; night <= N + 1; night++) {
        int rc = generated_night(dir, night, &st, night >= N ? slow : -1, 1.2, "");
        if (night == 1) {
            ASSERT_MSG(rc == 0, "night 1: exit %d:\n%s", rc, out);
            ASSERT_CONTAINS(out, "no baseline yet");
            continue;
        }
        if (night <= 5) {
            /* Nights 2..5 compare against 1..4 nights: learning, never failing. */
            ASSERT_MSG(rc == 0, "night %d: exit %d:\n%s", night, rc, out);
            ASSERT_EQ(gb_test_count(out, "\nLEARNING "), SERIES_CASES);
            ASSERT_EQ(series_nights(dir), night);
            continue;
        }
        if (night < N) {
            ASSERT_MSG(rc == 0, "night %d, before the slowdown: exit %d:\n%s", night, rc, out);
            ASSERT_CONTAINS(out, "no regression (exit 0)");
            continue;
        }
        if (rc == 3 && !failed_on) {
            failed_on = night;
            /* The night's report folder, as the script names it ("report in DIR/index.html"):
             * not the last by name, since a night in the same second as the one before is
             * STAMP-2, which sorts before STAMP/. */
            char path[1200], folder[1100];
            const char *at = strstr(out, "report in ");
            ASSERT(at);
            at += strlen("report in ");
            const char *end = strstr(at, "/index.html");
            ASSERT(end);
            snprintf(folder, sizeof folder, "%.*s", (int)(end - at < 1000 ? end - at : 1000), at);
            snprintf(path, sizeof path, "%s/compare.json", folder);
            /* Only the slowed case, confirmed by the second run, outside the nights' spread. */
            ASSERT_CONTAINS(out, "confirming with a second run");
            ASSERT_EQ(gb_test_count(out, "SLOWER!"), 2); /* the night's run and the confirming */
            ASSERT_CONTAINS(out, "FAIL memory/triad");
            ASSERT_CONTAINS(out, "MADs beyond 11 nights");
            ASSERT_CONTAINS(out, "does not join the baseline");
            ASSERT_EQ(series_nights(dir), 11);
            json_error_t je;
            json_t *root = json_load_file(path, 0, &je);
            ASSERT_MSG(root, "%s: %s", path, je.text);
            ASSERT_EQ(json_integer_value(json_object_get(root, "regressions")), 1);
            ASSERT_EQ(json_array_size(json_object_get(json_object_get(root, "baseline"), "nights")),
                      11);
            size_t i;
            json_t *row;
            json_array_foreach(json_object_get(root, "rows"), i, row)
            {
                bool reg = json_is_true(json_object_get(row, "regression"));
                ASSERT_MSG(reg == (i == (size_t)slow), "row %zu regression %d", i, reg);
                ASSERT_EQ(json_integer_value(json_object_get(row, "nights")), 11);
                ASSERT(json_is_number(json_object_get(row, "spread")));
            }
            json_decref(root);
            ASSERT_EQ(sh("cat '%s/compare.md'", folder), 0);
            ASSERT_CONTAINS(out, "| z | nights | spread % | catches |");
            ASSERT_CONTAINS(out, "| SLOWER! | memory | triad |");
        } else if (night == N && rc != 3) {
            printf("night %d (the first slow one) passed:\n%s", night, out);
        }
    }
    ASSERT_MSG(failed_on == N || failed_on == N + 1, "the slowdown from night %d failed night %d",
               N, failed_on);
    /* After an intended change, the nights start over from a run. */
    ASSERT_EQ(sh("cd %s && GPUBENCH=%s/fake-gpubench RESULTS_DIR=%s/results "
                 "%s/scripts/nightly.sh --promote $(ls %s/results/history/*.json | tail -n 1) "
                 "--restart 2>&1",
                 dir, dir, dir, GB_TEST_SRCDIR, dir),
              0);
    ASSERT_CONTAINS(out, "(restarted)");
    ASSERT_EQ(series_nights(dir), 1);
}

/* While the baseline learns, a night whose median case is beyond 1/1.6 of the nights fails in
 * those cases, so that it does not join and become the baseline (a night at -41% joined); a
 * night 20% slower, or one case at half speed, still learns. */
TEST_TIMEOUT(compare_nights_learning_holds_a_slow_night, 60)
{
    const char *dir = gb_test_tmpdir();
    uint64_t st = 0x2545F4914F6CDD1DULL;
    char path[1200];
    for (int night = 1; night <= 2; night++) {
        snprintf(path, sizeof path, "%s/n%d.json", dir, night);
        write_night(path, night, &st, 0.05, -1, 1.0);
        ASSERT_EQ(sh("cd %s && %s baseline n%d.json --dir b 2>&1", dir, GB_TEST_EXE, night), 0);
    }
    ASSERT_EQ(sh("cd %s && %s baseline n1.json --dir b --print-path", dir, GB_TEST_EXE), 0);
    char folder[512];
    snprintf(folder, sizeof folder, "%.*s", (int)(strcspn(out, "\n") - 5), out);
    snprintf(path, sizeof path, "%s/slow.json", dir);
    write_night(path, 3, &st, 0.05, -2, 1.0 / 0.55);
    int rc = sh("cd %s && %s compare %s slow.json 2>&1", dir, GB_TEST_EXE, folder);
    ASSERT_MSG(rc == 3, "a night at 0.55x while learning: exit %d:\n%s", rc, out);
    ASSERT_CONTAINS(out, "while learning (2 nights)");
    ASSERT_CONTAINS(out, "does not join the baseline");
    snprintf(path, sizeof path, "%s/mild.json", dir);
    write_night(path, 3, &st, 0.05, -2, 1.25);
    rc = sh("cd %s && %s compare %s mild.json 2>&1", dir, GB_TEST_EXE, folder);
    ASSERT_MSG(rc == 0, "a night at 0.8x while learning: exit %d:\n%s", rc, out);
    ASSERT_CONTAINS(out, "4 LEARNING");
    snprintf(path, sizeof path, "%s/one.json", dir);
    write_night(path, 3, &st, 0.05, 0, 2.0);
    rc = sh("cd %s && %s compare %s one.json 2>&1", dir, GB_TEST_EXE, folder);
    ASSERT_MSG(rc == 0, "one case at 0.5x while learning: exit %d:\n%s", rc, out);
}

/* Thresholds learned by calibrate and kept with the baseline are used; --threshold and
 * --suite-threshold override them. Generated nights, compare on the baseline folder. */
TEST_TIMEOUT(compare_nights_learned_thresholds, 120)
{
    const char *dir = gb_test_tmpdir();
    uint64_t st = 0x9E3779B97F4A7C15ULL;
    char path[1200];
    for (int night = 1; night <= 10; night++) {
        snprintf(path, sizeof path, "%s/n%02d.json", dir, night);
        write_night(path, night, &st, 0.01, -1, 1.0);
        ASSERT_EQ(sh("cd %s && %s baseline n%02d.json --dir b 2>&1", dir, GB_TEST_EXE, night), 0);
    }
    ASSERT_CONTAINS(out, "10 nights of at most 14");
    /* Tonight: triad 20% slower. */
    snprintf(path, sizeof path, "%s/tonight.json", dir);
    write_night(path, 11, &st, 0.01, 1, 1.2);
    /* The baseline's folder: its path without ".json" (the name carries the device identity). */
    ASSERT_EQ(sh("cd %s && %s baseline n01.json --dir b --print-path", dir, GB_TEST_EXE), 0);
    char folder[512];
    snprintf(folder, sizeof folder, "%.*s", (int)(strcspn(out, "\n") - 5), out);
    int rc = sh("cd %s && %s compare %s tonight.json 2>&1", dir, GB_TEST_EXE, folder);
    ASSERT_MSG(rc == 3, "exit %d:\n%s", rc, out);
    ASSERT_CONTAINS(out, "4 cases compared against 10 nights");
    ASSERT_CONTAINS(out, "FAIL memory/triad: SLOWER -1");
    ASSERT_CONTAINS(out, "[opencl:0] Series Device");
    /* Calibrate's per-case result, stored with the baseline: 3 A/A runs of the same night (three
     * copies: one file named thrice is read once) make every suggestion the 1% minimum... */
    ASSERT_EQ(sh("cd %s && cp n01.json aa1.json && cp n01.json aa2.json && %s calibrate --from "
                 "n01.json aa1.json aa2.json --baseline b 2>&1",
                 dir, GB_TEST_EXE),
              0);
    ASSERT_CONTAINS(out, "Learned thresholds kept in ");
    ASSERT_CONTAINS(out, "/thresholds");
    /* With a format for machines, standard output holds the document alone: the line is on
     * stderr. */
    ASSERT_EQ(
        sh("cd %s && %s calibrate --from n01.json aa1.json aa2.json --baseline b -f json "
           "2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"kind\"])'",
           dir, GB_TEST_EXE),
        0);
    ASSERT_CONTAINS(out, "gpubench-calibration");
    /* ... edited to learn 25% for triad, as a noisy case would: now triad passes. */
    snprintf(path, sizeof path, "%s/%s/thresholds.json", dir, folder);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    ASSERT_MSG(root, "%s", je.text);
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(root, "cases"), i, c)
    {
        ASSERT_STR(json_string_value(json_object_get(c, "backend")), "opencl");
        ASSERT_NEAR(json_real_value(json_object_get(c, "suggested_threshold")), 0.01, 1e-12);
        if (strcmp(json_string_value(json_object_get(c, "case")), "triad") == 0)
            json_object_set_new(c, "suggested_threshold", json_real(0.25));
    }
    ASSERT_EQ(json_dump_file(root, path, JSON_INDENT(2)), 0);
    json_decref(root);
    rc = sh("cd %s && %s compare %s tonight.json --json c.json 2>&1", dir, GB_TEST_EXE, folder);
    ASSERT_MSG(rc == 0, "with the learned 25%%: exit %d:\n%s", rc, out);
    ASSERT_CONTAINS(out, "learned per case for 4 cases");
    snprintf(path, sizeof path, "%s/c.json", dir);
    root = json_load_file(path, 0, &je);
    ASSERT_MSG(root, "%s", je.text);
    json_t *triad = json_array_get(json_object_get(root, "rows"), 1);
    ASSERT_STR(json_string_value(json_object_get(triad, "case")), "triad");
    ASSERT_STR(json_string_value(json_object_get(triad, "threshold_source")), "learned");
    ASSERT_NEAR(json_real_value(json_object_get(triad, "threshold")), 0.25, 1e-12);
    ASSERT_STR(json_string_value(json_object_get(triad, "verdict")), "SAME"); /* -17% < 25% */
    json_decref(root);
    /* The JUnit XML of a comparison against nights parses, with the one failure. */
    if (sh("command -v xmllint") == 0) {
        rc = sh("cd %s && %s compare %s tonight.json --threshold 5%% --junit - | "
                "xmllint --xpath 'count(//testcase/failure)' - 2>&1",
                dir, GB_TEST_EXE, folder);
        ASSERT_MSG(rc == 0, "xmllint: %s", out);
        ASSERT_EQ(atoi(out), 1);
    }
    /* The user's thresholds override what was learned. */
    rc = sh("cd %s && %s compare %s tonight.json --threshold 5%% 2>&1", dir, GB_TEST_EXE, folder);
    ASSERT_MSG(rc == 3, "--threshold: exit %d:\n%s", rc, out);
    ASSERT_CONTAINS(out, "threshold 5% (given)");
    rc = sh("cd %s && %s compare %s tonight.json --suite-threshold memory=0.1 2>&1", dir,
            GB_TEST_EXE, folder);
    ASSERT_MSG(rc == 3, "--suite-threshold: exit %d:\n%s", rc, out);
    ASSERT_CONTAINS(out, "the threshold 10% --suite-threshold");
    /* Two files keep the Mann-Whitney test, and say what it judges; with no reference runs a
     * case alone is no regression unless --run-noise states the floor. */
    rc = sh("cd %s && %s compare n10.json tonight.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "two files: exit %d:\n%s", rc, out);
    ASSERT_CONTAINS(out, "judged with the run as a whole");
    rc = sh("cd %s && %s compare n10.json tonight.json --run-noise 10%% 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "two files, --run-noise: exit %d:\n%s", rc, out);
    ASSERT_CONTAINS(out, "it judges within-run noise only");
    ASSERT_CONTAINS(out, "4 pairs compared");
    /* A folder without nights, and --min-nights above what there is. */
    ASSERT_EQ(sh("cd %s && mkdir -p empty && %s compare empty tonight.json 2>&1", dir, GB_TEST_EXE),
              2);
    ASSERT_CONTAINS(out, "holds no night");
    rc = sh("cd %s && %s compare %s tonight.json --min-nights 11 2>&1", dir, GB_TEST_EXE, folder);
    ASSERT_MSG(rc == 0, "--min-nights 11: exit %d:\n%s", rc, out);
    ASSERT_CONTAINS(out, "4 LEARNING");
    /* --keep: the oldest nights go. */
    ASSERT_EQ(sh("cd %s && %s baseline tonight.json --dir b --keep 3 2>&1", dir, GB_TEST_EXE), 0);
    ASSERT_CONTAINS(out, "3 nights of at most 3");
    ASSERT_EQ(sh("cd %s && ls %s/nights", dir, folder), 0);
    ASSERT_STR(out, "n09.json\nn10.json\ntonight.json\n");
}

/* A/A on real runs: 8 nights of a tiny profile of this build through the nightly
 * command with its default options. The first 5 nights learn; the 3 judged after them must not
 * fail (docs/compare.md's cut for 5..7 nights is 11..24 of their spreads). */
static const char nightly_tiny_profile[] =
    "name: tiny\n"
    "measure: {warmup_runs: 2, warmup_time: 5ms, min_samples: 10, max_samples: 30,\n"
    "          max_noise: 0.02, max_time: 100ms, min_sample_time: 2ms}\n"
    "suites:\n"
    "  - suite: memory\n"
    "    params: {op: [copy, triad], type: float, wg: 256, size: 16MiB}\n"
    "  - suite: launch\n"
    "    params: {op: [latency, throughput]}\n";

TEST_TIMEOUT(compare_nightly_aa_never_fails, 900)
{
    const char *dir = gb_test_tmpdir_with("tiny.yaml", nightly_tiny_profile);
    for (int night = 1; night <= 8; night++) {
        int rc = sh("cd %s && GPUBENCH=%s RESULTS_DIR=%s/results %s/scripts/nightly.sh "
                    "tiny.yaml 2>&1",
                    dir, GB_TEST_EXE, dir, GB_TEST_SRCDIR);
        ASSERT_MSG(rc == 0, "A/A night %d of the unchanged build: exit %d:\n%s", night, rc, out);
        if (night >= 2 && night <= 5)
            ASSERT_EQ(gb_test_count(out, "\nLEARNING "), 4);
        if (night >= 6)
            ASSERT_EQ(gb_test_count(out, "\nLEARNING "), 0);
    }
    ASSERT_CONTAINS(out, "4 cases compared against 7 nights");
    ASSERT_EQ(sh("ls %s/results/baselines/*/nights/*.json | wc -l", dir), 0);
    ASSERT_STR(out, "8\n");
    /* compare.md shows the nights and their spread per case: the newest night's report, newest
     * by time (a night in the same second as the one before is tiny-STAMP-2/, which sorts before
     * tiny-STAMP/ by name). */
    ASSERT_EQ(sh("cat $(ls -td %s/results/reports/tiny-*/ | head -n 1)compare.md", dir), 0);
    ASSERT_CONTAINS(out, "| verdict | suite | case | device | params | base | new | unit | change "
                         "% | z | nights | spread % | catches | note |");
    ASSERT_EQ(gb_test_count(out, "| 7 | "), 4);
}
