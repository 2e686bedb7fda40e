/* "Is this GPU normal?" (analyses/expect.h): the verdict's rule on numbers, then `gpubench
 * expect` and `gpubench check` on a real run of this machine's device: references made from it,
 * the run itself normal, one figure 20% worse caught and named (a rate and a time), a device
 * model with no reference judged against the bounds its results carry, an implausible and a
 * failed result caught, and hostile expectations files refused or cleaned. */
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/expect.h"
#include "backends/telemetry.h"
#include "results/results.h"
#include "test.h"

static char out[1 << 16];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

/* ---- the rule ------------------------------------------------------------------------------ */

static struct gb_expect_case ref(double median, double spread, double noise)
{
    return (struct gb_expect_case){
        .n = 5, .median = median, .spread = spread, .noise = noise, .min = median, .max = median};
}

TEST(expect_judge_bands_directions_and_bounds)
{
    struct gb_check_opts o;
    gb_check_opts_default(&o);
    struct gb_expect_case e = ref(100, 0.01, 0.005);
    /* The band: max(5%, 3 x 1%) = 5%. */
    struct gb_expect_judgement j = gb_expect_judge(97, true, 0.001, false, &e, 0, 0.05, &o);
    ASSERT_EQ(j.verdict, GB_EXPECT_NORMAL);
    ASSERT_NEAR(j.band, 0.05, 1e-9);
    ASSERT_NEAR(j.change, -0.03, 1e-12);
    j = gb_expect_judge(80, true, 0.001, false, &e, 0, 0.05, &o);
    ASSERT_EQ(j.verdict, GB_EXPECT_LOW);
    ASSERT_NEAR(j.z, log(0.8) / 0.01, 1e-9);
    ASSERT_EQ(gb_expect_judge(120, true, 0.001, false, &e, 0, 0.05, &o).verdict, GB_EXPECT_HIGH);
    /* A time: 25% longer is 20% less performance, LOW; 20% shorter is HIGH. */
    ASSERT_EQ(gb_expect_judge(125, false, 0.001, false, &e, 0, 0.05, &o).verdict, GB_EXPECT_LOW);
    ASSERT_EQ(gb_expect_judge(80, false, 0.001, false, &e, 0, 0.05, &o).verdict, GB_EXPECT_HIGH);
    /* A wide spread (or the result's own noise) widens the band: 3 x 8% = 27% in log terms. */
    struct gb_expect_case wide = ref(100, 0.08, 0.005);
    ASSERT_EQ(gb_expect_judge(80, true, 0.001, false, &wide, 0, 0.05, &o).verdict,
              GB_EXPECT_NORMAL);
    ASSERT_EQ(gb_expect_judge(80, true, 0.09, false, &e, 0, 0.05, &o).verdict, GB_EXPECT_NORMAL);
    /* A tolerance above the spread is the band. */
    ASSERT_EQ(gb_expect_judge(80, true, 0.001, false, &e, 0, 0.30, &o).verdict, GB_EXPECT_NORMAL);
    /* Bounds: above it (5% slack) is implausible even with a reference; without a reference a
     * result inside its bound is not judged, however far below it (a bound says what is
     * impossible, not what is normal: a 256^3 GEMM at 2% of its peak was LOW here). */
    ASSERT_EQ(gb_expect_judge(110, true, 0, false, &e, 100, 0.05, &o).verdict,
              GB_EXPECT_IMPLAUSIBLE);
    ASSERT_EQ(gb_expect_judge(110, true, 0, false, NULL, 100, 0.05, &o).verdict,
              GB_EXPECT_IMPLAUSIBLE);
    j = gb_expect_judge(2, true, 0, false, NULL, 100, 0.05, &o);
    ASSERT_EQ(j.verdict, GB_EXPECT_UNKNOWN);
    ASSERT_NEAR(j.of_bound, 0.02, 1e-12);
    ASSERT_EQ(gb_expect_judge(50, true, 0, false, NULL, 100, 0.05, &o).verdict, GB_EXPECT_UNKNOWN);
    ASSERT_EQ(gb_expect_judge(70, true, 0, false, NULL, 0, 0.05, &o).verdict, GB_EXPECT_UNKNOWN);
    /* A lower-is-better figure has no bound of this kind: ignored. */
    ASSERT_EQ(gb_expect_judge(70, false, 0, false, NULL, 100, 0.05, &o).verdict, GB_EXPECT_UNKNOWN);
    ASSERT_EQ(gb_expect_judge(1, true, 0, true, &e, 0, 0.05, &o).verdict, GB_EXPECT_IMPLAUSIBLE);
    ASSERT_EQ(gb_expect_judge(NAN, true, 0, false, &e, 0, 0.05, &o).verdict, GB_EXPECT_IMPLAUSIBLE);
}

/* The band holds every reference run and reaches mads spreads past the lowest and the highest
 * (the shipped reference runs of this VM spread from 0.3x to 1.3x of their median: 6 of the 9
 * failed against expectations made from themselves when the band was 3 spreads about the
 * median). A case of fewer than 3 runs has no band; a model's median spread is every case's
 * floor; the result's own noise widens its band. */
TEST(expect_band_holds_its_reference_runs_and_goes_past_them)
{
    struct gb_check_opts o;
    gb_check_opts_default(&o);
    struct gb_expect_case e = {
        .n = 9, .median = 100, .spread = 0.1, .noise = 0.02, .min = 40, .max = 130};
    /* The lowest and the highest reference runs are normal (40 was LOW: band 3 x 0.1). */
    struct gb_expect_judgement j = gb_expect_judge(40, true, 0.01, false, &e, 0, 0.05, &o);
    ASSERT_EQ(j.verdict, GB_EXPECT_NORMAL);
    ASSERT_NEAR(j.band, expm1(log(100.0 / 40) + 0.3), 1e-9);
    ASSERT_EQ(gb_expect_judge(130, true, 0.01, false, &e, 0, 0.05, &o).verdict, GB_EXPECT_NORMAL);
    /* 3 spreads past them: 40 e^-0.3 = 29.6 and 130 e^0.3 = 175.5. */
    ASSERT_EQ(gb_expect_judge(30, true, 0.01, false, &e, 0, 0.05, &o).verdict, GB_EXPECT_NORMAL);
    ASSERT_EQ(gb_expect_judge(29, true, 0.01, false, &e, 0, 0.05, &o).verdict, GB_EXPECT_LOW);
    ASSERT_EQ(gb_expect_judge(175, true, 0.01, false, &e, 0, 0.05, &o).verdict, GB_EXPECT_NORMAL);
    ASSERT_EQ(gb_expect_judge(177, true, 0.01, false, &e, 0, 0.05, &o).verdict, GB_EXPECT_HIGH);
    /* A time: its longest reference run (the max) is its lowest performance. */
    struct gb_expect_case t = {
        .n = 9, .median = 100, .spread = 0.1, .noise = 0.02, .min = 60, .max = 250};
    ASSERT_EQ(gb_expect_judge(250, false, 0.01, false, &t, 0, 0.05, &o).verdict, GB_EXPECT_NORMAL);
    ASSERT_EQ(gb_expect_judge(340, false, 0.01, false, &t, 0, 0.05, &o).verdict, GB_EXPECT_LOW);
    ASSERT_EQ(gb_expect_judge(60, false, 0.01, false, &t, 0, 0.05, &o).verdict, GB_EXPECT_NORMAL);
    /* The model's floor: a case steadier than the model's median case is not trusted to be. */
    struct gb_expect_case steady = {
        .n = 9, .median = 100, .spread = 0.01, .noise = 0.01, .min = 99, .max = 101};
    ASSERT_EQ(gb_expect_judge(60, true, 0.01, false, &steady, 0, 0.05, &o).verdict, GB_EXPECT_LOW);
    steady.floor = 0.2;
    ASSERT_EQ(gb_expect_judge(60, true, 0.01, false, &steady, 0, 0.05, &o).verdict,
              GB_EXPECT_NORMAL);
    ASSERT_EQ(gb_expect_judge(50, true, 0.01, false, &steady, 0, 0.05, &o).verdict, GB_EXPECT_LOW);
    /* The result's own noise: samples spread by 30% widen its band by 3 x 30%. */
    steady.floor = 0;
    ASSERT_EQ(gb_expect_judge(60, true, 0.3, false, &steady, 0, 0.05, &o).verdict,
              GB_EXPECT_NORMAL);
    /* Fewer than 3 runs: no spread, no range, no band: not judged. */
    steady.n = 2;
    j = gb_expect_judge(10, true, 0.01, false, &steady, 0, 0.05, &o);
    ASSERT_EQ(j.verdict, GB_EXPECT_UNKNOWN);
    ASSERT(isnan(j.band));
}

TEST(expect_options_parse_and_refuse)
{
    struct gb_check_opts o;
    gb_check_opts_default(&o);
    ASSERT_OK(gb_check_set_option(&o, "tolerance", "10%"));
    ASSERT_NEAR(o.tolerance, 0.10, 1e-12);
    ASSERT_OK(gb_check_set_option(&o, "suite-tolerance", "memory=0.2"));
    ASSERT_OK(gb_check_set_option(&o, "suite-tolerance", "memory=30%"));
    ASSERT_NEAR(gb_check_tolerance(&o, "memory"), 0.30, 1e-12);
    ASSERT_NEAR(gb_check_tolerance(&o, "gemm"), 0.10, 1e-12);
    ASSERT_EQ(o.nsuite_tolerances, 1);
    /* A suite whose name begins another's is its own (it once overwrote the longer one). */
    ASSERT_OK(gb_check_set_option(&o, "suite-tolerance", "mem=1%"));
    ASSERT_NEAR(gb_check_tolerance(&o, "memory"), 0.30, 1e-12);
    ASSERT_NEAR(gb_check_tolerance(&o, "mem"), 0.01, 1e-12);
    ASSERT_EQ(o.nsuite_tolerances, 2);
    ASSERT(gb_check_set_option(&o, "tolerance", "0") != 0);
    ASSERT(gb_check_set_option(&o, "tolerance", "nan") != 0);
    ASSERT(gb_check_set_option(&o, "tolerance", "5%x") != 0);
    ASSERT(gb_check_set_option(&o, "suite-tolerance", "=5%") != 0);
    ASSERT(gb_check_set_option(&o, "bound-fraction", "0.5") != 0); /* no longer an option */
    ASSERT(gb_check_set_option(&o, "mads", "-1") != 0);
    ASSERT_NEAR(o.tolerance, 0.10, 1e-12); /* refusals change nothing */
}

/* ---- on a real run ------------------------------------------------------------------------- */

static const char profile[] =
    "name: expect-test\n"
    "measure: {warmup_runs: 1, warmup_time: 0, min_samples: 3, max_samples: 5, max_time: 100ms}\n"
    "suites:\n"
    "  - suite: compute\n"
    "    params: {prec: [f32, i32]}\n"
    "  - suite: memory\n"
    "    params: {op: triad, type: float, size: 4MiB}\n"
    "  - suite: launch\n"
    "    params: {op: latency}\n";

/* Runs the profile once into DIR/a.json. */
static void real_run(const char *dir)
{
    char p[1100];
    snprintf(p, sizeof p, "%s/p.yaml", dir);
    gb_test_write_file(p, profile);
    int rc = sh("cd %s && %s run p.yaml -q -o a.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "run exit %d: %s", rc, out);
}

/* Every ok result's noise set to `noise` (relative CI95 and the samples' CV), so that the band
 * does not depend on how noisy this machine was during the run. */
static void set_noise(struct gb_results *rs, double noise)
{
    for (size_t i = 0; i < rs->nresults; i++) {
        rs->results[i].stats.ci95 = noise * rs->results[i].stats.mean;
        rs->results[i].stats.cv = noise;
    }
}

/* The first ok result of suite and case in rs. */
static struct gb_result *find(struct gb_results *rs, const char *suite, const char *kase)
{
    for (size_t i = 0; i < rs->nresults; i++)
        if (strcmp(rs->results[i].suite, suite) == 0 &&
            strcmp(rs->results[i].case_name, kase) == 0 && rs->results[i].status == GB_STATUS_OK)
            return &rs->results[i];
    return NULL;
}

/* Writes DIR/NAME: a.json with every value times scale and the noise set to 1%, as another run
 * (its start time moved by a second per copy: expect counts one run once). */
static void write_copy(const char *dir, const char *name, double scale)
{
    static int nth;
    char p[1100];
    snprintf(p, sizeof p, "%s/a.json", dir);
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    ASSERT_OK(gb_results_read(p, &rs));
    set_noise(&rs, 0.01);
    for (size_t i = 0; i < rs.nresults; i++)
        rs.results[i].value *= scale;
    snprintf(rs.run.start_utc, sizeof rs.run.start_utc, "2026-12-04T00:00:%02dZ", ++nth % 60);
    snprintf(p, sizeof p, "%s/%s", dir, name);
    ASSERT_OK(gb_results_write(&rs, p));
    gb_results_free(&rs);
}

/* Builds references r1..r3 (the run at 0.98, 1 and 1.02 of its values) and e.json from them. */
static void references(const char *dir)
{
    real_run(dir);
    write_copy(dir, "r1.json", 0.98);
    write_copy(dir, "r2.json", 1.00);
    write_copy(dir, "r3.json", 1.02);
    write_copy(dir, "b.json", 1.00); /* the run to check, with the same 1% noise */
    int rc = sh("cd %s && %s expect r1.json r2.json r3.json -o e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "expect exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "of 3 runs");
}

/* Writes DIR/NAME: b.json with fn applied to it. */
static void edited(const char *dir, const char *name, void (*fn)(struct gb_results *))
{
    char p[1100];
    snprintf(p, sizeof p, "%s/b.json", dir);
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    ASSERT_OK(gb_results_read(p, &rs));
    fn(&rs);
    snprintf(p, sizeof p, "%s/%s", dir, name);
    ASSERT_OK(gb_results_write(&rs, p));
    gb_results_free(&rs);
}

static void f32_slower(struct gb_results *rs)
{
    struct gb_result *r = find(rs, "compute", "f32");
    ASSERT(r);
    r->value *= 0.8;
}

static void launch_slower(struct gb_results *rs)
{
    struct gb_result *r = find(rs, "launch", "latency");
    ASSERT(r);
    r->value *= 1.25; /* a time: 25% longer is 20% less performance */
}

static void f32_beyond_peak(struct gb_results *rs)
{
    struct gb_result *r = find(rs, "compute", "f32");
    ASSERT(r);
    double peak = gb_result_scalar(r, "peak");
    ASSERT_MSG(peak > 0, "compute f32 carries no peak figure");
    r->value = 2 * peak;
}

static void triad_failed(struct gb_results *rs)
{
    struct gb_result *r = find(rs, "memory", "triad");
    ASSERT(r);
    r->status = GB_STATUS_FAILED;
    snprintf(r->reason, sizeof r->reason, "verification failed: planted");
}

static void other_model(struct gb_results *rs)
{
    for (size_t d = 0; d < rs->ndevices; d++)
        snprintf(rs->devices[d].info.name, sizeof rs->devices[d].info.name, "Unmeasured GPU 9000");
}

TEST_TIMEOUT(check_real_run_normal_and_a_slower_figure_caught, 180)
{
    const char *dir = gb_test_tmpdir();
    references(dir);
    int rc = sh("cd %s && %s check b.json -e e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "normal (exit 0)");
    ASSERT_CONTAINS(out, "reference");
    /* The verdicts are of performance, so a reader of a latency is told which way they go. */
    ASSERT_CONTAINS(out, "LOW (slower) or HIGH (faster)");
    /* One rate 20% lower: exit 3, that figure named LOW, the others normal. */
    edited(dir, "slow.json", f32_slower);
    rc = sh("cd %s && %s check slow.json -e e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "1 result not normal (exit 3)");
    ASSERT_CONTAINS(out, "LOW: ");
    ASSERT_CONTAINS(out, "compute f32");
    ASSERT_CONTAINS(out, "-20.0");
    /* The same within a 30% tolerance for compute (-20% is ln 0.8, exactly the edge of 25%): normal. */
    rc = sh("cd %s && %s check slow.json -e e.json --suite-tolerance compute=30%% 2>&1", dir,
            GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "check exit %d: %s", rc, out);
    /* A time 25% longer: LOW too (the direction of a lower-is-better figure). */
    edited(dir, "lat.json", launch_slower);
    rc = sh("cd %s && %s check lat.json -e e.json -f junit 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "<failure");
    ASSERT_CONTAINS(out, "LOW: ");
    ASSERT_CONTAINS(out, "name=\"launch/latency");
    /* The one JUnit layout (as compare's): valid XML, every case named "classname/...". */
    if (sh("command -v xmllint") == 0) {
        rc = sh("cd %s && %s check lat.json -e e.json -q --junit j.xml; xmllint --noout j.xml && "
                "xmllint --xpath 'count(//testcase[not(starts-with(@name, concat(@classname, "
                "\"/\")))])' j.xml 2>&1",
                dir, GB_TEST_EXE);
        ASSERT_MSG(rc == 0, "xmllint: %s", out);
        ASSERT_STR(out, "0\n");
    }
    /* Implausible and failed results fail whatever the reference says. */
    edited(dir, "fast.json", f32_beyond_peak);
    rc = sh("cd %s && %s check fast.json -e e.json -f json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "\"IMPLAUSIBLE\"");
    edited(dir, "failed.json", triad_failed);
    rc = sh("cd %s && %s check failed.json -e e.json --markdown - 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "FAILED");
    ASSERT_CONTAINS(out, "planted");
    /* Two devices of one name (a node of eight alike): their rows and checks stay apart, each
     * device named with its index ("... #1"); before, every check of device 1 had device 0's
     * name and the text rows read alike. */
    rc = sh("cd %s && python3 -c 'import copy, json, sys\n"
            "d = json.load(open(\"b.json\"))\n"
            "v = copy.deepcopy(d[\"devices\"][0]); v[\"index\"] = 1; d[\"devices\"].append(v)\n"
            "for r in list(d[\"results\"]):\n"
            "    c = copy.deepcopy(r); c[\"device\"] = 1; d[\"results\"].append(c)\n"
            "json.dump(d, open(\"alike.json\", \"w\"))' && %s check alike.json -e e.json -f junit "
            "2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, " #1\"");
    char *seen[512];
    size_t nseen = 0;
    for (const char *p = out; (p = strstr(p, "<testcase ")) != NULL && nseen < 512; p++) {
        const char *n = strstr(p, " name=\"");
        ASSERT(n);
        n += 7;
        seen[nseen] = strndup(n, strcspn(n, "\""));
        for (size_t k = 0; k < nseen; k++)
            ASSERT_MSG(strcmp(seen[k], seen[nseen]) != 0, "two checks named %s", seen[k]);
        nseen++;
    }
    ASSERT_U64(nseen, >=, 4);
    for (size_t k = 0; k < nseen; k++)
        free(seen[k]);
}

/* One run counts once: a byte-identical copy (the same run) and the same figures under another
 * start time and host are left out and named (both counted as runs: 5 runs of which 3 real,
 * their spread shrunk toward 0 by the copies). A run of the same host, start time and profile on
 * another device (one process a GPU, started together) is a run of its own. */
TEST_TIMEOUT(expect_counts_a_run_once_and_names_the_copies, 180)
{
    const char *dir = gb_test_tmpdir();
    references(dir);
    char p[1100];
    snprintf(p, sizeof p, "%s/r2.json", dir);
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    ASSERT_OK(gb_results_read(p, &rs));
    snprintf(rs.run.start_utc, sizeof rs.run.start_utc, "2026-12-05T01:02:03Z");
    snprintf(rs.run.host, sizeof rs.run.host, "another-host");
    snprintf(p, sizeof p, "%s/r2-renamed.json", dir);
    ASSERT_OK(gb_results_write(&rs, p));
    gb_results_free(&rs);
    snprintf(p, sizeof p, "%s/r1.json", dir);
    memset(&rs, 0, sizeof rs);
    ASSERT_OK(gb_results_read(p, &rs));
    for (size_t d = 0; d < rs.ndevices; d++)
        rs.devices[d].index += 1;
    for (size_t i = 0; i < rs.nresults; i++)
        rs.results[i].value *= 0.5;
    snprintf(p, sizeof p, "%s/r1-other-device.json", dir);
    ASSERT_OK(gb_results_write(&rs, p));
    gb_results_free(&rs);
    int rc =
        sh("cd %s && %s expect r1.json r1-other-device.json -o e2.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "expect exit %d: %s", rc, out);
    ASSERT(!strstr(out, "a copy of"));
    rc = sh("cd %s && cp r1.json r1-copy.json && %s expect r1.json r2.json r1-copy.json "
            "r3.json r2-renamed.json -o e5.json 2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "expect exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "of 3 runs");
    ASSERT_CONTAINS(out, "2 files left out as copies");
    ASSERT_CONTAINS(out, "r1-copy.json: a copy of r1.json (the same run: host, start time, "
                         "profile and devices): left out");
    ASSERT_CONTAINS(out, "r2-renamed.json: a copy of r2.json (the same figures): left out");
    char *js = gb_test_slurp_in(dir, "e5.json");
    ASSERT_CONTAINS(js, "\"runs\": 3");
    ASSERT(!strstr(js, "\"runs\": 5"));
    ASSERT_CONTAINS(js, "\"copies\": 2");
    free(js);
    /* The same expectations as from the three runs alone. */
    rc = sh("cd %s && %s expect r1.json r2.json r3.json -o e3.json -q && cmp e3.json e5.json "
            "2>&1 | head -3; grep -v copies e3.json > a3; grep -v copies e5.json > a5; cmp a3 a5",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "%s", out);
}

/* A device model without a reference is not judged: its bounds say what is impossible, not
 * what is normal (the quick profile on any unreferenced device exited 3: a 256^3 GEMM at 2% of
 * its peak was LOW), and check says that nothing was judged instead of "normal". */
TEST_TIMEOUT(check_unmeasured_model_is_not_judged_and_says_so, 180)
{
    const char *dir = gb_test_tmpdir();
    references(dir);
    edited(dir, "other.json", other_model);
    int rc = sh("cd %s && %s check other.json -e e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "no reference for this device model in the expectations");
    ASSERT_CONTAINS(out, "nothing judged (exit 0)");
    ASSERT_CONTAINS(out, "which says what is impossible, not what is normal");
    ASSERT(!strstr(out, "normal (exit 0)"));
    ASSERT(!strstr(out, "against its bound"));
    /* Above its bound is still IMPLAUSIBLE without a reference. */
    edited(dir, "other-fast.json", f32_beyond_peak);
    char p[1100];
    snprintf(p, sizeof p, "%s/other-fast.json", dir);
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    ASSERT_OK(gb_results_read(p, &rs));
    other_model(&rs);
    ASSERT_OK(gb_results_write(&rs, p));
    gb_results_free(&rs);
    rc = sh("cd %s && %s check other-fast.json -e e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "IMPLAUSIBLE");
    /* Without any expectations file: bounds only, said so. */
    rc = sh("cd %s && %s check b.json -e /nonexistent/e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_EQ(rc, 2);
    ASSERT_CONTAINS(out, "/nonexistent/e.json");
    /* (The source tree's reference expectations are found by name from any folder: none here.) */
    rc = sh("cd %s && GPUBENCH_SOURCE_DIR= %s check b.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "note: no expectations file");
    ASSERT_CONTAINS(out, "not judged: no expectations file");
    ASSERT(!strstr(out, "no reference for this model"));
    ASSERT_CONTAINS(out, "against their bounds only");
    ASSERT_CONTAINS(out, "nothing judged (exit 0)");
    ASSERT_CONTAINS(out, "(no expectations file)");
}

TEST_TIMEOUT(check_hostile_expectations_are_refused_or_cleaned, 120)
{
    const char *dir = gb_test_tmpdir();
    real_run(dir);
    char p[1100];
    snprintf(p, sizeof p, "%s/bad1.json", dir);
    gb_test_write_file(p, "{\"schema\": \"gpubench-calibration/1\", \"cases\": []}");
    int rc = sh("cd %s && %s check a.json -e bad1.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_EQ(rc, 2);
    ASSERT_CONTAINS(out, "is not an expectations file");
    snprintf(p, sizeof p, "%s/bad2.json", dir);
    gb_test_write_file(p, "{\"schema\": \"gpubench-expect/1\", \"cases\": [");
    rc = sh("cd %s && %s check a.json -e bad2.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_EQ(rc, 2);
    /* Cases with a median that is no number or of no unit's scale, a negative spread, a range
     * that does not hold its median, text that is too long, the wrong types, and a shell command
     * in a name: left out and counted, nothing run. */
    char longname[700];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    snprintf(p, sizeof p, "%s/bad3.json", dir);
    FILE *f = fopen(p, "w");
    ASSERT(f);
    fprintf(f,
            "{\"schema\": \"gpubench-expect/1\", \"cases\": [\n"
            " {\"suite\": \"memory\", \"case\": \"triad\", \"backend\": \"opencl\", \"device\": "
            "\"d\", \"params\": \"\", \"unit\": \"GB/s\", \"better\": \"higher\", \"runs\": 3, "
            "\"median\": \"NaN\", \"spread\": 0, \"noise\": 0},\n"
            " {\"suite\": \"memory\", \"case\": \"triad\", \"backend\": \"opencl\", \"device\": "
            "\"d\", \"params\": \"\", \"unit\": \"GB/s\", \"better\": \"higher\", \"runs\": 3, "
            "\"median\": 10, \"spread\": -1, \"noise\": 0},\n"
            " {\"suite\": \"memory\", \"case\": \"triad\", \"backend\": \"opencl\", \"device\": "
            "\"%s\", \"params\": \"\", \"unit\": \"GB/s\", \"better\": \"higher\", \"runs\": 3, "
            "\"median\": 10, \"spread\": 0, \"noise\": 0},\n"
            " {\"suite\": 7, \"case\": [], \"runs\": -3},\n"
            " {\"suite\": \"$(touch %s/X)\", \"case\": \"`touch %s/X`\", \"backend\": \"opencl\", "
            "\"device\": \"d\", \"params\": \"\", \"unit\": \"GB/s\", \"better\": \"sideways\", "
            "\"runs\": 3, \"median\": 10, \"spread\": 0, \"noise\": 0},\n"
            " {\"suite\": \"memory\", \"case\": \"copy\", \"backend\": \"opencl\", \"device\": "
            "\"d\", \"params\": \"\", \"unit\": \"GB/s\", \"better\": \"higher\", \"runs\": 3, "
            "\"median\": 1e11, \"spread\": 0, \"noise\": 0},\n"
            " {\"suite\": \"memory\", \"case\": \"scale\", \"backend\": \"opencl\", \"device\": "
            "\"d\", \"params\": \"\", \"unit\": \"GB/s\", \"better\": \"higher\", \"runs\": 3, "
            "\"median\": 10, \"spread\": 0, \"noise\": 0, \"min\": 12, \"max\": 8},\n"
            " {\"suite\": \"memory\", \"case\": \"nstream\", \"backend\": \"opencl\", \"device\": "
            "\"d\", \"params\": \"\", \"unit\": \"GB/s\", \"better\": \"higher\", \"runs\": 3, "
            "\"median\": 1e-300, \"spread\": 0, \"noise\": 0},\n"
            " {\"suite\": \"memory\", \"case\": \"add\", \"backend\": \"opencl\", \"device\": "
            "\"d\", \"params\": \"\", \"unit\": \"GB/s\", \"better\": \"higher\", \"runs\": 3, "
            "\"median\": 10, \"spread\": 1e308, \"noise\": 0},\n"
            " {\"suite\": \"memory\", \"case\": \"copy\", \"backend\": \"opencl\", \"device\": "
            "\"d\", \"params\": \"\", \"unit\": \"GB/s\", \"better\": \"higher\", \"runs\": 3, "
            "\"median\": 12, \"spread\": 0, \"noise\": 0}\n"
            "], \"models\": [{\"backend\": \"opencl\", \"device\": \"d\", \"runs\": 3, \"cases\": "
            "3, \"shift_min\": 0.1, \"shift_max\": -0.1, \"shift_spread\": 0}]}\n",
            longname, dir, dir);
    fclose(f);
    rc = sh("cd %s && %s check a.json -e bad3.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0 || rc == 3, "check exit %d: %s", rc, out);
    /* Named as what they are (they were "cases this version cannot use"), and nothing judged
     * said so: no valid case is of this device. */
    ASSERT_CONTAINS(out, "9 invalid entries"); /* min above max, a median of 1e-300 too */
    ASSERT_CONTAINS(out, "1 duplicate entry (a case or model given again: the first stands), "
                         "left out");
    ASSERT_CONTAINS(out, "nothing judged (exit 0)");
    ASSERT(!strstr(out, "cannot use"));
    snprintf(p, sizeof p, "%s/X", dir);
    ASSERT(fopen(p, "r") == NULL);
    /* An output never overwrites an input. */
    rc = sh("cd %s && %s check a.json -e bad3.json --json a.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_EQ(rc, 2);
    rc = sh("cd %s && %s expect a.json -o a.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_EQ(rc, 2);
    rc = sh("cd %s && %s expect a.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_EQ(rc, 2);
    ASSERT_CONTAINS(out, "-o EXPECT.json is required");
}

static void zero_value(struct gb_results *rs)
{
    struct gb_result *r = find(rs, "memory", "triad");
    ASSERT(r);
    r->value = 0;
}

/* An ok result whose figure is 0 is no measurement: compare fails the gate on it (it once
 * passed as UNSTABLE), and check calls it IMPLAUSIBLE. */
TEST_TIMEOUT(compare_and_check_fail_an_ok_result_of_zero, 120)
{
    const char *dir = gb_test_tmpdir();
    references(dir);
    edited(dir, "zero.json", zero_value);
    int rc = sh("cd %s && %s compare b.json zero.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "compare exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "which no measurement gives");
    rc = sh("cd %s && %s compare zero.json b.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "compare exit %d: %s", rc, out);
    rc = sh("cd %s && %s check zero.json -e e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "IMPLAUSIBLE");
}

/* ---- health ------------------------------------------------------------------------------- */

/* The device state the fake NVML (tests/fake_nvml.c, loaded through GPUBENCH_NVML_LIB: the same
 * dlopen path as the real library) reports, as the run records it, put on device 0 of a real
 * run's file; the loaded link as a transfer's readings would raise it. */
static void nvml_state_on(const char *dir, const char *from, const char *name, bool loaded)
{
    struct gb_results rs;
    gb_test_fake_nvml_state(dir, from, loaded, &rs);
    char p[1100];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    ASSERT_OK(gb_results_write(&rs, p));
    gb_results_free(&rs);
}

/* nvml_state_on with the fake NVML's variable `var` set to `val` while it reads. */
static void nvml_state_with(const char *dir, const char *var, const char *val, const char *name)
{
    setenv(var, val, 1);
    nvml_state_on(dir, "b.json", name, true);
    unsetenv(var);
}

TEST_TIMEOUT(check_health_names_a_narrow_link_ecc_and_a_lowered_power_limit, 180)
{
    const char *dir = gb_test_tmpdir();
    references(dir);
    /* Healthy: Gen5 x16 under load, no errors, the default power limit. */
    nvml_state_on(dir, "b.json", "healthy.json", true);
    int rc = sh("cd %s && %s check healthy.json -e e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "Gen5 x16 of Gen5 x16, read during transfers");
    ASSERT_CONTAINS(out, "no critical XID event while the run measured");
    /* An XID event while the run measured: exit 3, its code named; no event set: UNKNOWN. */
    nvml_state_with(dir, "GB_FAKE_NVML_XID", "79", "xid.json");
    rc = sh("cd %s && %s check xid.json -e e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "1 critical XID event while the run measured; the last was XID 79");
    nvml_state_with(dir, "GB_FAKE_NVML_NO_EVENTS", "1", "noev.json");
    rc = sh("cd %s && %s check noev.json -e e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "no NVML event set for XID events");
    /* The link at x8: exit 3, the link named. */
    nvml_state_with(dir, "GB_FAKE_NVML_PCIE_WIDTH", "8", "x8.json");
    rc = sh("cd %s && %s check x8.json -e e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "PCIe link trained down: Gen5 x8 of Gen5 x16");
    ASSERT_CONTAINS(out, "not healthy (exit 3)");
    /* Gen3 read idle only: not downtraining, UNKNOWN; read under load: FAIL. */
    setenv("GB_FAKE_NVML_PCIE_GEN", "3", 1);
    nvml_state_on(dir, "b.json", "idle.json", false);
    nvml_state_on(dir, "b.json", "gen3.json", true);
    unsetenv("GB_FAKE_NVML_PCIE_GEN");
    rc = sh("cd %s && %s check idle.json -e e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "read idle only");
    rc = sh("cd %s && %s check gen3.json -e e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "Gen3 x16 of Gen5 x16");
    /* Uncorrected ECC errors fail; a lowered power limit and a pending remap warn. */
    nvml_state_with(dir, "GB_FAKE_NVML_ECC_UNCORRECTED", "2", "ecc.json");
    rc = sh("cd %s && %s check ecc.json -e e.json -f junit 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "2 uncorrected ECC errors since the driver loaded");
    setenv("GB_FAKE_NVML_POWER_DEFAULT_MW", "700000", 1);
    setenv("GB_FAKE_NVML_REMAP_PENDING", "1", 1);
    nvml_state_on(dir, "b.json", "power.json", true);
    unsetenv("GB_FAKE_NVML_POWER_DEFAULT_MW");
    unsetenv("GB_FAKE_NVML_REMAP_PENDING");
    rc = sh("cd %s && %s check power.json -e e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "the power limit is lowered: 300 W of 700 W");
    ASSERT_CONTAINS(out, "a row remap waits for a GPU reset");
}

/* The report: each headline beside its model's reference median and verdict, and the health
 * table per device (a narrow link named). */
TEST_TIMEOUT(report_shows_references_and_health, 180)
{
    const char *dir = gb_test_tmpdir();
    references(dir);
    setenv("GB_FAKE_NVML_PCIE_WIDTH", "8", 1);
    nvml_state_on(dir, "b.json", "x8.json", true);
    unsetenv("GB_FAKE_NVML_PCIE_WIDTH");
    int rc = sh("cd %s && %s report x8.json --expect e.json -o rep 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report exit %d: %s", rc, out);
    char *md = gb_test_slurp_in(dir, "rep/report.md");
    ASSERT_CONTAINS(md, "The verdict is `gpubench check`'s");
    ASSERT_CONTAINS(md, "; NORMAL (ref ");
    ASSERT_CONTAINS(md, "## Health");
    ASSERT_CONTAINS(md, "FAIL: PCIe link trained down: Gen5 x8 of Gen5 x16");
    free(md);
    /* Without expectations: no reference column text, the health table still there. */
    rc = sh("cd %s && %s report b.json -o rep2 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report exit %d: %s", rc, out);
    md = gb_test_slurp_in(dir, "rep2/report.md");
    ASSERT(!strstr(md, "(ref "));
    ASSERT_CONTAINS(md, "UNKNOWN: not read: no NVML event set for XID events");
    free(md);
}

static void triad_slower(struct gb_results *rs)
{
    struct gb_result *r = find(rs, "memory", "triad");
    ASSERT(r);
    r->value *= 0.7;
}

/* fleet --expect: a fleet that is slow everywhere has no outlier among itself, but every node is
 * LOW against its model's expectation; a slow node's row names its health (a narrow link). */
TEST_TIMEOUT(fleet_against_expectations_flags_a_uniformly_slow_fleet, 180)
{
    const char *dir = gb_test_tmpdir();
    references(dir);
    edited(dir, "n1.json", triad_slower);
    edited(dir, "n2.json", triad_slower);
    setenv("GB_FAKE_NVML_PCIE_WIDTH", "8", 1);
    nvml_state_on(dir, "n2.json", "n3.json", true);
    unsetenv("GB_FAKE_NVML_PCIE_WIDTH");
    int rc = sh("cd %s && %s fleet n1.json n2.json n3.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "fleet exit %d: %s", rc, out);
    rc = sh("cd %s && %s fleet n1.json n2.json n3.json --expect e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "fleet exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "3 outlier nodes");
    ASSERT_CONTAINS(out, "memory triad");
    ASSERT_CONTAINS(out, "  pcie_link FAIL: PCIe link trained down: Gen5 x8 of Gen5 x16");
    rc = sh("cd %s && %s fleet n1.json n2.json n3.json --expect e.json --json - 2>&1", dir,
            GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "fleet exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "\"flag\": \"low\"");
    /* The expectations are an input: no output may replace them. */
    rc = sh("cd %s && %s fleet n1.json n2.json n3.json --expect e.json --json e.json 2>&1", dir,
            GB_TEST_EXE);
    ASSERT_EQ(rc, 2);
}

static void all_skipped(struct gb_results *rs)
{
    for (size_t i = 0; i < rs->nresults; i++) {
        rs->results[i].status = GB_STATUS_SKIPPED;
        snprintf(rs->results[i].reason, sizeof rs->results[i].reason, "planted skip");
    }
}

static void interrupted(struct gb_results *rs)
{
    rs->run.interrupted = true;
    rs->run.cases_planned = rs->nresults + 5;
}

/* A run that measured nothing, or was cut short, does not pass: check cannot say it is normal. */
TEST_TIMEOUT(check_fails_a_run_that_measured_nothing_or_was_interrupted, 180)
{
    const char *dir = gb_test_tmpdir();
    references(dir);
    edited(dir, "skipped.json", all_skipped);
    int rc = sh("cd %s && %s check skipped.json -e e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "nothing was measured");
    edited(dir, "cut.json", interrupted);
    rc = sh("cd %s && %s check cut.json -e e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "the run was interrupted");
    /* fleet and history over a folder that holds the expectations beside the runs. */
    rc = sh("cd %s && mkdir -p runs && cp r1.json r2.json r3.json runs/ && %s expect runs -o "
            "runs/expectations.json -q && %s fleet runs -q; echo fleet=$?; %s history runs -q; "
            "echo history=$?",
            dir, GB_TEST_EXE, GB_TEST_EXE, GB_TEST_EXE);
    ASSERT_MSG(strstr(out, "fleet=0") || strstr(out, "fleet=3"), "%s", out);
    ASSERT_CONTAINS(out, "history=0");
}

/* The shipped reference runs (results/reference/: nine quick runs of a 2-core shared VM, four
 * of them beside CI) against the shipped expectations made from them: each is normal (6 of the
 * 9 exited 3, e.g. 97 NORMAL, 5 LOW, 2 HIGH, when the band was 3 spreads about the median);
 * each against expectations made from the 8 others, as a new A/A run of the same healthy
 * machine: normal too (7 of 9 exited 3); and each with every figure at half its performance
 * caught (exit 3), by the run as a whole where its figures' bands are too wide. */
TEST_TIMEOUT(check_reference_runs_hold_their_band_and_leave_one_out, 120)
{
    const char *dir = gb_test_tmpdir();
    char pat[1100];
    snprintf(pat, sizeof pat, "%s/results/reference/*.json", GB_TEST_SRCDIR);
    glob_t g;
    ASSERT_EQ(glob(pat, 0, NULL, &g), 0);
    size_t n = 0;
    char list[1200];
    snprintf(list, sizeof list, "%s/list", dir);
    FILE *f = fopen(list, "w");
    ASSERT(f);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        if (strstr(g.gl_pathv[i], "/expectations.json"))
            continue;
        fprintf(f, "%s\n", g.gl_pathv[i]);
        /* half.N.json: every figure at half its performance (a time twice as long). */
        struct gb_results rs;
        memset(&rs, 0, sizeof rs);
        ASSERT_OK(gb_results_read(g.gl_pathv[i], &rs));
        for (size_t k = 0; k < rs.nresults; k++)
            rs.results[k].value *= rs.results[k].better == GB_BETTER_LOWER ? 2 : 0.5;
        char p[1200];
        snprintf(p, sizeof p, "%s/half.%zu.json", dir, ++n);
        ASSERT_OK(gb_results_write(&rs, p));
        gb_results_free(&rs);
    }
    fclose(f);
    globfree(&g);
    ASSERT_MSG(n >= 4, "%zu reference runs", n);
    int rc = sh("cd %s && n=0 && for f in $(cat list); do n=$((n+1)); "
                "%s check $f -e %s/results/reference/expectations.json -q; echo \"self $n: $?\"; "
                "grep -vxF \"$f\" list | xargs %s expect -q -o e$n.json || echo expect-failed; "
                "%s check $f -e e$n.json -q; echo \"held-out $n: $?\"; "
                "%s check half.$n.json -e e$n.json -q; echo \"half $n: $?\"; done 2>&1",
                dir, GB_TEST_EXE, GB_TEST_SRCDIR, GB_TEST_EXE, GB_TEST_EXE, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "%s", out);
    for (size_t i = 1; i <= n; i++) {
        char want[64];
        snprintf(want, sizeof want, "self %zu: 0", i);
        ASSERT_MSG(strstr(out, want), "%s in %s", want, out);
        snprintf(want, sizeof want, "held-out %zu: 0", i);
        ASSERT_MSG(strstr(out, want), "%s in %s", want, out);
        snprintf(want, sizeof want, "half %zu: 3", i);
        ASSERT_MSG(strstr(out, want), "%s in %s", want, out);
    }
    ASSERT_MSG(!strstr(out, "failed"), "%s", out);
    /* On this VM every case's reference runs spread past a halving: check says so, since a
     * NORMAL in such a band says little (a tester saw one case at 0.1x read NORMAL). */
    rc = sh("cd %s && %s check \"$(ls %s/results/reference/pthread*.json | head -n 1)\" -e "
            "%s/results/reference/expectations.json 2>&1",
            dir, GB_TEST_EXE, GB_TEST_SRCDIR, GB_TEST_SRCDIR);
    ASSERT_MSG(rc == 0, "%s", out);
    ASSERT_CONTAINS(out, "have a band that holds a halving");
}

/* Every figure at 0.6x of its reference with samples spread by 30% (each figure's band then
 * reaches past 0.4x: none LOW) is caught as a whole: the device's median change against the
 * reference runs' own (0.98x-1.02x here). */
static void all_slower_and_noisy(struct gb_results *rs)
{
    for (size_t i = 0; i < rs->nresults; i++) {
        struct gb_result *r = &rs->results[i];
        r->value *= r->better == GB_BETTER_LOWER ? 1 / 0.6 : 0.6;
        r->stats.cv = 0.3;
    }
}

TEST_TIMEOUT(check_catches_a_run_slow_as_a_whole, 120)
{
    const char *dir = gb_test_tmpdir();
    references(dir);
    int rc = sh("cd %s && %s check b.json -e e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "the 3 reference runs' own from -2.0% to +2.0%");
    edited(dir, "slow.json", all_slower_and_noisy);
    rc = sh("cd %s && %s check slow.json -e e.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "the run is low as a whole (exit 3)");
    ASSERT_CONTAINS(out, "1 device LOW as a whole");
    ASSERT(!strstr(out, " LOW:"));
    rc = sh("cd %s && %s check slow.json -e e.json -f junit 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 3, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "LOW as a whole: its results 40.0% below their references");
    /* Expectations made before the runs as wholes were recorded: no whole verdict, said so. */
    rc = sh("cd %s && python3 -c 'import json; d = json.load(open(\"e.json\")); del d[\"models\"]; "
            "json.dump(d, open(\"old.json\", \"w\"))' && %s check slow.json -e old.json 2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "check exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "make them again");
}
