/* fleet and history: results files of many nodes and many nights, generated here with the results
 * writer (no device), then read back by the commands. The change-point method as a pure function
 * first, then the commands on files, then the scale of the merge. */
#include <jansson.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "base/stats.h"
#include "analyses/fleet.h"
#include "analyses/history.h"
#include "analyses/merge.h"
#include "base/doc.h"
#include "outputs/writer.h"
#include "results/results.h"
#include "test.h"

static char out[1 << 20];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

/* ---- generated results ----------------------------------------------------------------------- */

/* splitmix64 (Steele, Lea, Flood 2014): a small deterministic generator for the tests. */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s)
{
    return ((double)(next_u64(s) >> 11) + 0.5) / 9007199254740992.0;
}

/* A standard normal deviate (Box-Muller). */
static double normal(uint64_t *s)
{
    return sqrt(-2.0 * log(uniform(s))) * cos(6.283185307179586 * uniform(s));
}

struct node_spec {
    const char *host;
    const char *start_utc;
    const char *driver;
    const char *commit;
    size_t ndevices; /* devices of the same name (1 or 2) */
};

/* Case k of a generated file: a bandwidth (higher is better) or, every third, a latency (lower is
 * better), in the memory or transfer suite, with a size axis that tells them apart. */
static void gen_case(struct gb_result *r, size_t k, int device, double value, size_t nsamples,
                     uint64_t *rng)
{
    memset(r, 0, sizeof *r);
    bool lat = k % 3 == 2;
    snprintf(r->suite, sizeof r->suite, "%s", k % 2 ? "transfer" : "memory");
    snprintf(r->case_name, sizeof r->case_name, "%s", lat ? "lat" : k % 2 ? "h2d" : "triad");
    snprintf(r->backend, sizeof r->backend, "opencl");
    r->device_index = device;
    r->params.n = 2;
    r->params.name[0] = "op";
    r->params.v[0].type = GB_V_STR;
    snprintf(r->params.v[0].s, sizeof r->params.v[0].s, "%s", r->case_name);
    r->params.name[1] = "size";
    r->params.v[1].type = GB_V_SIZE;
    r->params.v[1].u.size = (uint64_t)(k + 1) << 20;
    r->status = GB_STATUS_OK;
    snprintf(r->metric, sizeof r->metric, "%s", lat ? "latency" : "bandwidth");
    snprintf(r->unit, sizeof r->unit, "%s", lat ? "us" : "GB/s");
    r->better = lat ? GB_BETTER_LOWER : GB_BETTER_HIGHER;
    r->samples = malloc((nsamples ? nsamples : 1) * sizeof *r->samples);
    ASSERT(r->samples);
    r->nsamples = nsamples;
    for (size_t i = 0; i < nsamples; i++)
        r->samples[i] = value * (1.0 + 0.002 * normal(rng));
    gb_stats_compute(r->samples, nsamples, &r->stats);
    r->value = value; /* the headline the test chose */
    r->batch = 1;
    r->bytes_per_op = 1e6;
    r->verified = true;
}

/* Writes a results file of one node / night: values[k] is case k's headline on device d (values
 * has ncases * ndevices entries, device-major). */
static void gen_file(const char *path, const struct node_spec *ns, const double *values,
                     size_t ncases, size_t nsamples, uint64_t *rng)
{
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    struct gb_run_meta *m = &rs.run;
    snprintf(m->gpubench_version, sizeof m->gpubench_version, "0.1.0");
    snprintf(m->git_commit, sizeof m->git_commit, "%s", ns->commit ? ns->commit : "0123456789ab");
    snprintf(m->start_utc, sizeof m->start_utc, "%s", ns->start_utc);
    snprintf(m->end_utc, sizeof m->end_utc, "%s", ns->start_utc);
    snprintf(m->host, sizeof m->host, "%s", ns->host);
    snprintf(m->os, sizeof m->os, "Linux 6.1.0 x86_64");
    snprintf(m->profile_name, sizeof m->profile_name, "fleet");
    snprintf(m->profile_sha256, sizeof m->profile_sha256, "%064d", 7);
    m->cases_planned = ncases * ns->ndevices;
    for (size_t d = 0; d < ns->ndevices; d++) {
        struct gb_device_info info = {0};
        snprintf(info.name, sizeof info.name, "test-gpu");
        snprintf(info.driver, sizeof info.driver, "%s", ns->driver ? ns->driver : "1.0");
        snprintf(info.version, sizeof info.version, "OpenCL 3.0");
        info.clock_mhz = 1500;
        ASSERT_OK(gb_results_add_device(&rs, "opencl", (int)d, &info, NULL));
    }
    for (size_t d = 0; d < ns->ndevices; d++)
        for (size_t k = 0; k < ncases; k++) {
            struct gb_result r;
            gen_case(&r, k, (int)d, values[d * ncases + k], nsamples, rng);
            ASSERT_OK(gb_results_add(&rs, &r));
        }
    ASSERT_OK(gb_results_write(&rs, path));
    gb_results_free(&rs);
}

/* ---- history: the method ----------------------------------------------------------------------- */

TEST(history_pettitt_reference_values)
{
    /* x = 1 2 3 10 11 12: ranks 1..6, U_t = sum (2 r_i - 7) = -5 -8 -9 -8 -5: K = 9 at t = 3 and
     * p = 2 exp(-6 * 81 / (216 + 36)) = 0.29078... */
    double x[] = {1, 2, 3, 10, 11, 12};
    size_t t;
    double k;
    double p = gb_pettitt(x, 6, 1, &t, &k);
    ASSERT_EQ(t, 3);
    ASSERT_NEAR(k, 9, 0);
    ASSERT_NEAR(p, 2.0 * exp(-6.0 * 81.0 / 252.0), 1e-15);
    /* U_t against its definition, sum_{i<=t} sum_{j>t} sgn(x_i - x_j), with ties (midranks). */
    double y[] = {5, 3, 3, 8, 1, 3, 9, 9, 2, 7, 5};
    size_t n = sizeof y / sizeof y[0];
    double best = -1;
    size_t best_t = 0;
    for (size_t s = 1; s < n; s++) {
        double u = 0;
        for (size_t i = 0; i < s; i++)
            for (size_t j = s; j < n; j++)
                u += (y[i] > y[j]) - (y[i] < y[j]);
        if (fabs(u) > best)
            best = fabs(u), best_t = s;
    }
    gb_pettitt(y, n, 1, &t, &k);
    ASSERT_NEAR(k, best, 1e-12);
    ASSERT_EQ(t, best_t);
    /* Too short for the minimum segment: no split. */
    ASSERT(isnan(gb_pettitt(x, 6, 4, &t, &k)));
}

/* nights[0..30): level 100, from night `step` (1-based; 0: none) on 10% lower, noise 3%. */
static void step_series(double *x, size_t n, size_t step, double noise, uint64_t *rng)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (step && i + 1 >= step ? 90.0 : 100.0) * (1.0 + noise * normal(rng));
}

/* Over many seeds: a 10% step in 3% noise is found, at its night 9 times in 10 and within a night
 * nearly always; a series without a step almost never gets one. The night is uncertain by nature:
 * the night before or after the step lies on the wrong side of the midpoint between the levels
 * with probability P(Z > 1.67), about 5% each. Over 5,000 seeds Pettitt's split was exact in 90.3%
 * and within one night in 98.8%; the least-squares split (the Gaussian maximum likelihood) was
 * exact in 91.0% and within one night in 98.6%: no better. */
TEST(history_changepoint_statistics)
{
    struct gb_history_opts o;
    gb_history_opts_default(&o);
    size_t exact = 0, near = 0, found = 0, false_pos = 0, trials = 500;
    for (uint64_t seed = 1; seed <= trials; seed++) {
        uint64_t rng = seed;
        double x[30];
        size_t idx[30], n = 0;
        step_series(x, 30, 17, 0.03, &rng);
        ASSERT_OK(gb_history_changepoints(x, 30, true, &o, idx, NULL, &n, 30));
        found += n >= 1;
        for (size_t i = 0; i < n; i++) {
            exact += idx[i] + 1 == 17;
            near += idx[i] + 1 >= 16 && idx[i] + 1 <= 18;
        }
        ASSERT_MSG(n <= 1, "seed %llu: %zu change points", (unsigned long long)seed, n);
        n = 0;
        step_series(x, 30, 0, 0.03, &rng);
        ASSERT_OK(gb_history_changepoints(x, 30, true, &o, idx, NULL, &n, 30));
        false_pos += n;
    }
    printf("step found %zu/%zu, exact %zu, within one night %zu; no step: %zu false\n", found,
           trials, exact, near, false_pos);
    ASSERT_MSG(found >= trials * 99 / 100, "found %zu of %zu", found, trials);
    ASSERT_MSG(near >= trials * 97 / 100, "within one night %zu of %zu", near, trials);
    ASSERT_MSG(exact >= trials * 85 / 100, "exact %zu of %zu", exact, trials);
    ASSERT_MSG(false_pos <= trials / 100, "%zu false change points in %zu series", false_pos,
               trials);
}

TEST(history_changepoints_two_steps_and_outlier_nights)
{
    struct gb_history_opts o;
    gb_history_opts_default(&o);
    /* 60 nights: a drop at 21, back up at 41; two wild nights (a shared machine) inside. */
    uint64_t rng = 42;
    double x[60];
    for (size_t i = 0; i < 60; i++)
        x[i] = (i >= 20 && i < 40 ? 80.0 : 100.0) * (1.0 + 0.02 * normal(&rng));
    x[8] = 40.0;
    x[50] = 160.0;
    size_t idx[8], n = 0;
    double p[8];
    ASSERT_OK(gb_history_changepoints(x, 60, true, &o, idx, p, &n, 8));
    ASSERT_EQ(n, 2);
    ASSERT_EQ(idx[0], 20);
    ASSERT_EQ(idx[1], 40);
    ASSERT(p[0] < 0.01 && p[1] < 0.01);
    /* A 3% step is significant here but under the 5% threshold: not named. */
    for (size_t i = 0; i < 60; i++)
        x[i] = (i >= 30 ? 97.0 : 100.0) * (1.0 + 0.002 * normal(&rng));
    n = 0;
    ASSERT_OK(gb_history_changepoints(x, 60, true, &o, idx, p, &n, 8));
    ASSERT_EQ(n, 0);
    o.threshold = 0.02;
    ASSERT_OK(gb_history_changepoints(x, 60, true, &o, idx, p, &n, 8));
    ASSERT_EQ(n, 1);
    ASSERT_EQ(idx[0], 30);
}

/* ---- history: the command ---------------------------------------------------------------------- */

/* 30 nights in dir, in files whose names are not in time order. Case 0 (memory triad) drops 10%
 * from night `step` on (0: never), with the driver moving from 1.0 to 1.1 that night; cases 1
 * and 2 only have noise. Noise 3%. */
static void gen_nights(const char *dir, size_t step, uint64_t seed)
{
    uint64_t rng = seed;
    for (size_t night = 1; night <= 30; night++) {
        char path[4096], start[32];
        snprintf(path, sizeof path, "%s/run-%08x.json", dir,
                 (unsigned)(night * 2654435761u)); /* scrambled: time order is not name order */
        snprintf(start, sizeof start, "2026-01-%02zuT04:00:00Z", night);
        bool after = step && night >= step;
        struct node_spec ns = {"bench-01", start, after ? "1.1" : "1.0", NULL, 1};
        double v[3] = {(after ? 90.0 : 100.0) * (1.0 + 0.03 * normal(&rng)),
                       50.0 * (1.0 + 0.03 * normal(&rng)), 8.0 * (1.0 + 0.03 * normal(&rng))};
        gen_file(path, &ns, v, 3, 5, &rng);
    }
}

TEST(history_names_the_night_of_a_step)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    gen_nights(dir, 17, 7);
    /* The outputs beside the nights' folder: a .json among them would be read next time. */
    int rc = sh("mkdir -p %s-out && %s history %s --json %s-out/h.json --csv %s-out/h.csv "
                "--markdown %s-out/h.md 2>&1",
                dir, GB_TEST_EXE, dir, dir, dir, dir);
    printf("%s", out);
    ASSERT_EQ(rc, 0);
    ASSERT_CONTAINS(out, "30 nights, 2026-01-01T04:00:00Z .. 2026-01-30T04:00:00Z");
    ASSERT_CONTAINS(out, "1 change point\n");
    ASSERT_CONTAINS(out, "\n   17  2026-01-17T04:00:00Z  memory triad size=1MiB on test-gpu");
    ASSERT_CONTAINS(out, "memory triad size=1MiB on test-gpu");
    ASSERT_CONTAINS(out, "  slower  ");
    ASSERT_CONTAINS(out, "since night 16: driver 1.0 -> 1.1");

    json_error_t e;
    json_t *j = json_load_file(strcat(strcpy(out, dir), "-out/h.json"), 0, &e);
    ASSERT_MSG(j, "h.json: %s", e.text);
    ASSERT_STR(json_string_value(json_object_get(j, "schema")), "gpubench-history/1");
    json_t *series = json_object_get(j, "series");
    ASSERT_EQ(json_array_size(series), 3);
    size_t total = 0;
    for (size_t i = 0; i < 3; i++) {
        json_t *s = json_array_get(series, i);
        json_t *ch = json_object_get(s, "changes");
        total += json_array_size(ch);
        ASSERT_EQ(json_array_size(json_object_get(s, "value")), 30);
        if (strcmp(json_string_value(json_object_get(s, "case")), "triad") == 0) {
            ASSERT_EQ(json_array_size(ch), 1);
            json_t *c0 = json_array_get(ch, 0);
            ASSERT_EQ(json_integer_value(json_object_get(c0, "night")), 17);
            ASSERT_NEAR(json_real_value(json_object_get(c0, "change")), -0.10, 0.03);
            ASSERT_CONTAINS(json_string_value(json_object_get(c0, "also_changed")),
                            "driver 1.0 -> 1.1");
        }
    }
    ASSERT_EQ(total, 1);
    /* Nights in time order whatever the file names. */
    json_t *nights = json_object_get(j, "nights");
    ASSERT_STR(json_string_value(json_object_get(json_array_get(nights, 16), "start_utc")),
               "2026-01-17T04:00:00Z");
    json_decref(j);

    char path[4096];
    snprintf(path, sizeof path, "%s-out/h.csv", dir);
    char *csv = gb_test_slurp(path);
    /* The file's established layout (gpubench-history-csv/1): its header, LF line ends. */
    ASSERT(strncmp(csv,
                   "suite,case,params,device,slot,unit,night,start_utc,status,value,p5,p95,"
                   "change\n",
                   78) == 0);
    ASSERT_EQ(gb_test_count(csv, "\n"), 1 + 3 * 30);
    ASSERT_EQ(gb_test_count(csv, "\r"), 0);
    ASSERT_EQ(gb_test_count(csv, ",1\n"), 1); /* one night marked as a change */
    free(csv);
    snprintf(path, sizeof path, "%s-out/h.md", dir);
    char *md = gb_test_slurp(path);
    ASSERT_CONTAINS(md, "| 17 | 2026-01-17T04:00:00Z | memory triad size=1MiB on test-gpu |");
    free(md);
}

TEST(history_without_a_step_names_none)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    gen_nights(dir, 0, 7);
    int rc = sh("%s history %s --fail-on-slower 2>&1", GB_TEST_EXE, dir);
    printf("%s", out);
    ASSERT_EQ(rc, 0);
    ASSERT_CONTAINS(out, "0 change points");
    /* Thirty nights can split: no word of too few; the empty table is its title alone, no
     * header over nothing. */
    ASSERT(!strstr(out, "naming one needs"));
    ASSERT(!strstr(out, "night  date  case"));
    /* Five nights cannot (3 on each side): the title says so, not a steady history. */
    ASSERT_EQ(sh("%s history $(ls %s/*.json | head -n 5) 2>&1", GB_TEST_EXE, dir), 0);
    ASSERT_CONTAINS(out, "0 change points: naming one needs 16 nights at least (for p < 0.01; 3 on "
                         "each side), these are 5");
    /* ... and its JUnit cases are skipped, not passes no night could have failed; with
     * thirty nights they pass. */
    ASSERT_EQ(sh("%s history $(ls %s/*.json | head -n 5) -f junit 2>&1", GB_TEST_EXE, dir), 0);
    ASSERT_CONTAINS(out, "tests=\"3\" failures=\"0\" errors=\"0\" skipped=\"3\"");
    ASSERT_CONTAINS(out, "not judged: 5 nights ok, a change point needs 16 at least");
    ASSERT_EQ(sh("%s history %s -f junit 2>&1", GB_TEST_EXE, dir), 0);
    ASSERT_CONTAINS(out, "tests=\"3\" failures=\"0\" errors=\"0\" skipped=\"0\"");
    /* Ten nights with a 10% step at the sixth: 5 on each side, but Pettitt's p cannot go under
     * 0.01 before 16 nights; the title says so rather than read as a steady history. */
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    gen_nights(dir, 6, 7);
    ASSERT_EQ(sh("%s history $(grep -l '\"start_utc\": *\"2026-01-\\(0[1-9]\\|10\\)T' %s/*.json) "
                 "2>&1",
                 GB_TEST_EXE, dir),
              0);
    ASSERT_CONTAINS(out, "10 nights");
    ASSERT_CONTAINS(out, "0 change points: naming one needs 16 nights at least (for p < 0.01; 3 on "
                         "each side), these are 10");
    /* Where min-nights is what binds, the title says that alone; the bounds of the options
     * give a bound count (no overflow, no endless search). */
    ASSERT_EQ(sh("%s history --min-nights 20 $(ls %s/*.json | head -n 5) 2>&1", GB_TEST_EXE, dir),
              0);
    ASSERT_CONTAINS(out, "naming one needs 40 nights at least (20 on each side), these are 5");
    struct gb_history_opts ho;
    gb_history_opts_default(&ho);
    ASSERT_EQ(gb_history_nights_needed(&ho), 16);
    ho.min_nights = 1000;
    ASSERT_EQ(gb_history_nights_needed(&ho), 2000);
    ho.min_nights = 1;
    ho.alpha = 1e-300;
    const size_t n = gb_history_nights_needed(&ho);
    ASSERT_U64(n, >, 1000);
    ASSERT_U64(n, <, 4096);
    double x[4096];
    for (size_t i = 0; i < n; i++)
        x[i] = i < n / 2 ? 1.0 : 2.0;
    ASSERT(gb_pettitt(x, n, 1, NULL, NULL) < ho.alpha);
    ASSERT(!(gb_pettitt(x, n - 1, 1, NULL, NULL) < ho.alpha));
    /* With the step, --fail-on-slower gates. */
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    gen_nights(dir, 17, 7);
    ASSERT_EQ(sh("%s history %s --fail-on-slower -q 2>&1", GB_TEST_EXE, dir), 3);
    ASSERT_EQ(sh("%s history %s --suite transfer 2>&1", GB_TEST_EXE, dir), 0);
    ASSERT_CONTAINS(out, "0 change points");
    ASSERT_CONTAINS(out, "; 1 case followed");
}

/* The cases table's "nights" are those the case ran on: a case in 2 of 3 nights reads "2", ok on
 * both, not "3 nights, 2 ok" (a night it failed). */
TEST(history_nights_count_the_nights_a_case_ran)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    uint64_t rng = 5;
    for (size_t night = 1; night <= 3; night++) {
        char path[4096], start[32];
        snprintf(path, sizeof path, "%s/n%zu.json", dir, night);
        snprintf(start, sizeof start, "2026-02-%02zuT04:00:00Z", night);
        struct node_spec ns = {"bench-01", start, "1.0", NULL, 1};
        double v[2] = {100.0, 50.0};
        gen_file(path, &ns, v, night == 2 ? 1 : 2, 3, &rng); /* night 2: triad alone */
    }
    ASSERT_EQ(sh("%s history %s -f csv 2>&1", GB_TEST_EXE, dir), 0);
    printf("%s", out);
    ASSERT_CONTAINS(out, "memory triad size=1MiB on test-gpu,,,GB/s,,,,,,,,,,3,3,");
    ASSERT_CONTAINS(out, "transfer h2d size=2MiB on test-gpu,,,GB/s,,,,,,,,,,2,2,");
}

TEST(history_usage_errors)
{
    ASSERT_EQ(sh("%s history 2>&1", GB_TEST_EXE), 2);
    ASSERT_CONTAINS(out, "expects results files");
    ASSERT_EQ(sh("%s history /nonexistent/dir 2>&1", GB_TEST_EXE), 2);
    ASSERT_CONTAINS(out, "/nonexistent/dir");
    ASSERT_EQ(sh("%s history --alpha 2 x 2>&1", GB_TEST_EXE), 2);
    ASSERT_EQ(sh("%s history --help", GB_TEST_EXE), 0);
    ASSERT_CONTAINS(out, "usage: gpubench history");
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(sh("%s history %s 2>&1", GB_TEST_EXE, dir), 2);
    ASSERT_CONTAINS(out, "no results files");
    char path[4096];
    snprintf(path, sizeof path, "%s/bad.json", dir);
    gb_test_write_file(path, "{\"schema\": \"gpubench-results/1\"");
    ASSERT_EQ(sh("%s history %s 2>&1", GB_TEST_EXE, dir), 2);
    ASSERT_CONTAINS(out, "bad.json");
}

/* ---- the documents' views and data ----------------------------------------------------------- */

static size_t view_fills;

/* Row r of the test view: "row R" and R x 1.5. */
static int fill_test_row(const void *ctx, struct gb_doc_table *t, size_t r)
{
    (void)ctx;
    view_fills++;
    gb_doc_num(t, r, 1, 1.5 * (double)r, 1);
    gb_doc_num(t, r, 2, 100000.0 + (double)r, 0);
    return gb_doc_text(t, r, 0, "row %zu", r);
}

static char *render(const char *format, const struct gb_doc *d)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f || gb_write_doc(f, format, d) != 0) {
        if (f)
            fclose(f);
        free(text);
        return NULL;
    }
    fclose(f);
    return text;
}

/* A view's rows are made when a writer reads them, one row at a time (fleet's every node of
 * every case takes no memory); a data table or column (what only a file needs) is left out of
 * the text and Markdown, kept in JSON and CSV. */
TEST(doc_views_are_made_when_read_and_data_stays_out_of_text)
{
    static const char *const cols[] = {"name", "value", "id"};
    static const char *const dcols[] = {"secret"};
    struct gb_doc d;
    struct gb_doc_table *t, *dt;
    ASSERT_OK(gb_doc_init(&d, "gpubench-test/1", "views"));
    ASSERT_OK(gb_doc_view(&d, "rows", "the rows", cols, 3, 1000, fill_test_row, NULL, &t));
    gb_doc_column_set(t, 1, true, false);
    gb_doc_column_data(t, 2);
    ASSERT_EQ(view_fills, 0);
    size_t r;
    ASSERT(gb_doc_row(t, &r) != 0); /* a view's rows are its fill's */
    ASSERT(gb_doc_footnote(t, 3, 0, "no") != 0);
    ASSERT_OK(gb_doc_table(&d, "hidden", "hidden table", dcols, 1, &dt));
    dt->data = true;
    ASSERT_OK(gb_doc_row(dt, &r));
    ASSERT_OK(gb_doc_text(dt, r, 0, "kept for files"));
    static const char *const pcols[] = {"plain"};
    struct gb_doc_table *pt;
    ASSERT_OK(gb_doc_table(&d, "plain", "plain", pcols, 1, &pt));
    ASSERT_OK(gb_doc_row(pt, &r));
    ASSERT_OK(gb_doc_text(pt, r, 0,
                          "a\x1b[31mb\xc2\x9b"
                          "c"));
    const struct gb_doc_cell *c = gb_doc_cell(t, 7, 1);
    ASSERT(c && c->kind == GB_CELL_NUM);
    ASSERT_NEAR(c->num, 10.5, 1e-12);
    ASSERT_EQ(view_fills, 1);
    gb_doc_cell(t, 7, 0); /* the same row: not made again */
    ASSERT_EQ(view_fills, 1);
    char *text = render("text", &d);
    ASSERT(text);
    ASSERT_CONTAINS(text, "\nrow 999  1498.5\n");
    ASSERT_CONTAINS(text, "\na?[31mb?c\n"); /* what a terminal acts on, replaced */
    ASSERT_MSG(!strstr(text, "hidden") && !strstr(text, "kept for files") &&
                   !strstr(text, "100999"),
               "%.300s", text);
    free(text);
    text = render("markdown", &d);
    ASSERT(text);
    ASSERT_CONTAINS(text, "| row 3 | 4.5 |\n");
    ASSERT(!strstr(text, "kept for files") && !strstr(text, "| id |"));
    free(text);
    text = render("csv", &d);
    ASSERT(text);
    /* One table: every table's columns in one header, each row under its own. */
    ASSERT_CONTAINS(text, "table,name,value,id,secret,plain,footnotes\r\n");
    ASSERT_CONTAINS(text, "rows,row 3,4.5,100003,,,\r\n");
    ASSERT_CONTAINS(text, "hidden,,,,kept for files,,\r\n");
    free(text);
    gb_doc_free(&d);
}

/* ---- fleet ----------------------------------------------------------------------------------- */

/* `nodes` nodes node01.. in dir, `ncases` cases each, values 100 (bandwidth) or 10 (latency)
 * with `noise` between nodes. */
static void gen_fleet(const char *dir, size_t nodes, size_t ncases, size_t ndevices,
                      size_t nsamples, double noise, uint64_t seed)
{
    uint64_t rng = seed;
    double *v = malloc(ncases * ndevices * sizeof *v);
    ASSERT(v);
    for (size_t n = 0; n < nodes; n++) {
        char path[4096], host[16];
        snprintf(host, sizeof host, "node%02zu", n % 100 + 1);
        snprintf(path, sizeof path, "%s/%s.json", dir, host);
        for (size_t k = 0; k < ncases * ndevices; k++)
            v[k] = (k % ncases % 3 == 2 ? 10.0 : 100.0) * (1.0 + noise * normal(&rng));
        struct node_spec ns = {host, "2026-02-01T04:00:00Z", "1.0", NULL, ndevices};
        gen_file(path, &ns, v, ncases, nsamples, &rng);
    }
    free(v);
}

/* What a person does to make a slow node by hand: copy a node's file, rename the host, and lower
 * one figure (the headline and its samples) by `factor`. */
static void hand_slowed_copy(const char *from, const char *to, const char *host, size_t result,
                             double factor)
{
    json_error_t e;
    json_t *j = json_load_file(from, 0, &e);
    ASSERT_MSG(j, "%s: %s", from, e.text);
    json_object_set_new(json_object_get(j, "run"), "host", json_string(host));
    json_t *r = json_array_get(json_object_get(j, "results"), result);
    ASSERT(r);
    json_object_set_new(r, "value",
                        json_real(json_real_value(json_object_get(r, "value")) * factor));
    json_t *s = json_object_get(r, "samples");
    for (size_t i = 0; i < json_array_size(s); i++)
        json_array_set_new(s, i, json_real(json_real_value(json_array_get(s, i)) * factor));
    ASSERT(json_dump_file(j, to, JSON_INDENT(1)) == 0);
    json_decref(j);
}

TEST(fleet_flags_a_hand_slowed_node)
{
    char dir[1024], res[1024], from[4096], to[4096];
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    snprintf(res, sizeof res, "%s", gb_test_tmpdir());
    gen_fleet(dir, 8, 12, 1, 5, 0.01, 3);
    ASSERT_EQ(sh("%s fleet %s 2>&1", GB_TEST_EXE, dir), 0);
    ASSERT_CONTAINS(out, "0 outlier nodes");
    ASSERT_CONTAINS(out, "8 files, 8 members");

    /* memory triad size=1MiB (result 0), bandwidth: 20% lower deviates. No expectations
     * calibrate the case (test-gpu has none), so the fleet's spread alone cannot say it is more
     * than the run-to-run noise: it is listed and named, and the node is no outlier (exit 0). */
    snprintf(from, sizeof from, "%s/node03.json", dir);
    snprintf(to, sizeof to, "%s/node09.json", dir);
    hand_slowed_copy(from, to, "node09", 0, 0.8);
    int rc = sh("%s fleet %s --json %s/f.json --markdown %s/f.md 2>&1", GB_TEST_EXE, dir, res, res);
    printf("%s", out);
    ASSERT_EQ(rc, 0);
    ASSERT_CONTAINS(out, "0 outlier nodes");
    ASSERT_CONTAINS(out, "1 figure deviates in cases without calibrated noise");
    ASSERT_CONTAINS(out, "\nnode09      1    -20.");
    ASSERT_CONTAINS(out, "memory triad size=1MiB on test-gpu (GB/s, higher is better): 9 nodes");
    ASSERT_EQ(gb_test_count(out, "  deviates\n"), 1);
    ASSERT_EQ(gb_test_count(out, "SLOW"), 0);
    ASSERT_EQ(gb_test_count(out, "FAST"), 0);

    json_error_t e;
    snprintf(to, sizeof to, "%s/f.json", res);
    json_t *j = json_load_file(to, 0, &e);
    ASSERT_MSG(j, "f.json: %s", e.text);
    ASSERT_STR(json_string_value(json_object_get(j, "schema")), "gpubench-fleet/1");
    ASSERT_EQ(json_integer_value(json_object_get(j, "outlier_nodes")), 0);
    json_t *cases = json_object_get(j, "cases");
    ASSERT_EQ(json_array_size(cases), 12);
    size_t slow = 0;
    for (size_t k = 0; k < json_array_size(cases); k++) {
        json_t *vals = json_object_get(json_array_get(cases, k), "values");
        ASSERT_EQ(json_array_size(vals), 9);
        for (size_t i = 0; i < json_array_size(vals); i++) {
            json_t *o = json_array_get(vals, i);
            if (strcmp(json_string_value(json_object_get(o, "flag")), "ok") == 0)
                continue;
            slow++;
            ASSERT_STR(json_string_value(json_object_get(o, "flag")), "deviates");
            ASSERT_EQ(k, 0);
            ASSERT_NEAR(json_real_value(json_object_get(o, "deviation")), -0.2, 0.03);
            size_t node = (size_t)json_integer_value(json_object_get(o, "node"));
            ASSERT_STR(json_string_value(json_object_get(
                           json_array_get(json_object_get(j, "nodes"), node), "label")),
                       "node09");
        }
    }
    ASSERT_EQ(slow, 1);
    json_decref(j);
    char *md = gb_test_slurp_in(res, "f.md");
    ASSERT_CONTAINS(md, "| deviates |");
    ASSERT_CONTAINS(md, "## 0 outlier nodes");
    free(md);

    /* A latency (lower is better) 25% higher deviates too; a looser rule lets it pass. */
    snprintf(to, sizeof to, "%s/node09.json", dir);
    hand_slowed_copy(from, to, "node09", 2, 1.25);
    ASSERT_EQ(sh("%s fleet %s 2>&1", GB_TEST_EXE, dir), 0);
    ASSERT_CONTAINS(out, "memory lat size=3MiB on test-gpu (us, lower is better)");
    ASSERT_EQ(gb_test_count(out, "  deviates\n"), 1);
    ASSERT_EQ(sh("%s fleet %s --min-deviation 30%% 2>&1", GB_TEST_EXE, dir), 0);
    ASSERT_EQ(gb_test_count(out, "  deviates\n"), 0);
    ASSERT_EQ(sh("%s fleet %s --suite transfer -q 2>&1", GB_TEST_EXE, dir), 0);

    /* The whole node at 0.7x (every case; latencies 1/0.7 longer): its node shift is LOW. */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/slow.tmp", res);
    for (size_t r = 0; r < 12; r++) {
        hand_slowed_copy(r ? to : from, tmp, "node09", r, r % 3 == 2 ? 1.0 / 0.7 : 0.7);
        ASSERT_EQ(rename(tmp, to), 0);
    }
    rc = sh("%s fleet %s --json %s/f.json --markdown %s/f.md 2>&1", GB_TEST_EXE, dir, res, res);
    printf("%s", out);
    ASSERT_EQ(rc, 3);
    ASSERT_CONTAINS(out, "1 outlier node of 9, the worst node09 (shift -");
    md = gb_test_slurp_in(res, "f.md");
    ASSERT_CONTAINS(md, "LOW: node shift over 12 cases");
    free(md);
}

/* The smallest fleet that can be judged: two nodes and a hand-slowed copy of one of them. */
TEST(fleet_three_nodes_and_two)
{
    char dir[1024], from[4096], to[4096];
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    gen_fleet(dir, 2, 4, 1, 5, 0.01, 11);
    ASSERT_EQ(sh("%s fleet %s 2>&1", GB_TEST_EXE, dir), 0);
    ASSERT_CONTAINS(out, "(4 not judged)");
    /* No case judged: no typical spread to name, not one of 0.0%. */
    ASSERT_CONTAINS(out, "(none: no case judged)");
    ASSERT(!strstr(out, "(0.0%)"));
    snprintf(from, sizeof from, "%s/node01.json", dir);
    snprintf(to, sizeof to, "%s/node01-slow.json", dir);
    hand_slowed_copy(from, to, "node01", 1, 0.8); /* same host: told apart by file name */
    int rc = sh("%s fleet %s 2>&1", GB_TEST_EXE, dir);
    printf("%s", out);
    /* Uncalibrated: the case deviates (named), and 4 cases are too few for a node shift. */
    ASSERT_EQ(rc, 0);
    ASSERT_CONTAINS(out, "\nnode01-slow      1    -20.");
    ASSERT_CONTAINS(out, "transfer h2d size=2MiB");
    ASSERT_EQ(gb_test_count(out, "  deviates\n"), 1);
    ASSERT_CONTAINS(out, "3 members have fewer than 5 judged cases without calibrated noise");
}

/* A node named with bidirectional controls and a line separator: shown with each replaced by
 * '?', as every other command shows them, never passed to the terminal. */
TEST(fleet_node_name_bidi_controls_are_replaced)
{
    char dir[1024], from[4096], to[4096];
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    gen_fleet(dir, 2, 4, 1, 5, 0.01, 11);
    snprintf(from, sizeof from, "%s/node01.json", dir);
    snprintf(to, sizeof to, "%s/node03.json", dir);
    hand_slowed_copy(from, to, "vm\u202eRLO\u2028LS\u2066x\u2069", 1, 0.8);
    int rc = sh("%s fleet %s --all 2>&1", GB_TEST_EXE, dir);
    ASSERT_MSG(rc == 0 || rc == 3, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "vm?RLO?LS?x?");
    ASSERT_MSG(!strstr(out, "\xe2\x80\xae") && !strstr(out, "\xe2\x80\xa8") &&
                   !strstr(out, "\xe2\x81\xa6") && !strstr(out, "\xe2\x81\xa9"),
               "%s", out);
}

/* One node reports a case in MB/s (its value 1000 times the others' GB/s): fleet, history and
 * calibrate leave that value out of the case and say so, rather than pool 15220 with 15.22. */
TEST(fleet_history_calibrate_leave_out_another_unit)
{
    char dir[1024], path[4096];
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    gen_fleet(dir, 3, 4, 1, 5, 0.01, 17);
    snprintf(path, sizeof path, "%s/node03.json", dir);
    hand_slowed_copy(path, path, "node03", 0, 1000.0);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    ASSERT(j);
    json_object_set_new(json_array_get(json_object_get(j, "results"), 0), "unit",
                        json_string("MB/s"));
    ASSERT(json_dump_file(j, path, JSON_INDENT(1)) == 0);
    json_decref(j);
    const char *note =
        "1 value of case memory triad size=1MiB on test-gpu left out: unit MB/s where the case "
        "is GB/s";
    int rc = sh("%s fleet %s 2>&1", GB_TEST_EXE, dir);
    printf("%s", out);
    ASSERT_EQ(rc, 0);
    ASSERT_EQ(gb_test_count(out, note), 2); /* stderr and the notes */
    ASSERT(!strstr(out, "e+0"));
    ASSERT_CONTAINS(out, "GB/s      2   100.5"); /* the two nodes in GB/s, not the third */
    rc = sh("%s history %s 2>&1", GB_TEST_EXE, dir);
    printf("%s", out);
    ASSERT_EQ(gb_test_count(out, note), 2);
    ASSERT(!strstr(out, "e+0"));
    rc = sh("cd %s && %s calibrate --from node01.json node02.json node03.json 2>&1", dir,
            GB_TEST_EXE);
    printf("%s", out);
    ASSERT_EQ(rc, 0);
    ASSERT_EQ(gb_test_count(out, "1 value of case memory triad size=1MiB on [opencl:0] test-gpu "
                                 "left out: unit MB/s where the case is GB/s"),
              2);
    ASSERT_CONTAINS(out, "99.06..101.9 GB/s");
}

TEST(fleet_devices_and_failures)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    /* Two devices of one name per node: each is a member ("node01/1"). */
    gen_fleet(dir, 5, 3, 2, 3, 0.01, 5);
    ASSERT_EQ(sh("%s fleet %s 2>&1", GB_TEST_EXE, dir), 0);
    ASSERT_CONTAINS(out, "5 files, 10 members");
    /* A failed case on one node, ok on the others, flags it. */
    char path[4096];
    snprintf(path, sizeof path, "%s/node02.json", dir);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    ASSERT(j);
    json_t *r = json_array_get(json_object_get(j, "results"), 4); /* device 1, case 1 */
    json_object_set_new(r, "status", json_string("failed"));
    json_object_set_new(r, "reason", json_string("verify: element 3"));
    ASSERT(json_dump_file(j, path, 0) == 0);
    json_decref(j);
    int rc = sh("%s fleet %s 2>&1", GB_TEST_EXE, dir);
    printf("%s", out);
    ASSERT_EQ(rc, 3);
    ASSERT_CONTAINS(out, "\nnode02/1      1   FAILED  transfer h2d");
}

/* Node n of a noisy fleet: each of 24 cases at its center times e^(sd N(0,1)) (0.25: the
 * run-to-run spread of a shared 2-core VM, results/reference/: a median case 27%), times
 * `factor`. */
static void noisy_node(const char *dir, const char *host, uint64_t *rng, double sd, double factor)
{
    double v[24];
    for (size_t k = 0; k < 24; k++) {
        double perf = exp(sd * normal(rng)) * factor;
        v[k] = k % 3 == 2 ? 10.0 / perf : 100.0 * perf; /* lower is better every third */
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.json", dir, host);
    struct node_spec ns = {host, "2026-02-01T04:00:00Z", "1.0", NULL, 1};
    gen_file(path, &ns, v, 24, 5, rng);
}

/* A node is an outlier against each case's run-to-run noise: four runs of one noisy machine are
 * no outliers (the MAD of 4 values said they were: k = 3.5 of it flagged healthy nodes); with the
 * reference runs' expectations (read by default from results/reference/), a node at 0.5x is
 * caught and only it. One foreign and one truncated file in the folder are skipped with a note;
 * nodes are ranked by severity; the text ends with the verdict. */
TEST(fleet_run_to_run_noise)
{
    char dir[1024], ref[1024], path[4096];
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    snprintf(ref, sizeof ref, "%s", gb_test_tmpdir());
    uint64_t rng = 41;
    static const char *const hosts[] = {"node01", "node02", "node03", "node04"};
    for (int n = 0; n < 4; n++)
        noisy_node(dir, hosts[n], &rng, 0.25, 1.0);
    int rc = sh("cd %s && %s fleet %s 2>&1", ref, GB_TEST_EXE, dir);
    ASSERT_MSG(rc == 0, "four runs of one machine: exit %d:\n%s", rc, out);
    size_t l = strlen(out);
    ASSERT_MSG(l > 30 && strcmp(out + l - 30, "no outlier node of 4 (exit 0)\n") == 0,
               "the verdict is not the last line:\n%s", out + (l > 300 ? l - 300 : 0));

    /* A machine 10% noisy: four nodes of it, and nine runs of it (those four among them: as
     * results/reference/ holds this machine's runs) reduced to expectations where `fleet`
     * finds them. */
    char rdir[1100];
    snprintf(rdir, sizeof rdir, "%s/runs", ref);
    ASSERT_EQ(sh("mkdir -p %s %s/results/reference", rdir, ref), 0);
    for (int n = 0; n < 4; n++)
        noisy_node(dir, hosts[n], &rng, 0.10, 1.0);
    for (int n = 0; n < 5; n++) {
        char host[16];
        snprintf(host, sizeof host, "ref%d", n);
        noisy_node(rdir, host, &rng, 0.10, 1.0);
    }
    ASSERT_EQ(sh("cp %s/node0*.json %s && cd %s && %s expect %s -o "
                 "%s/results/reference/expectations.json 2>&1",
                 dir, rdir, ref, GB_TEST_EXE, rdir, ref),
              0);
    noisy_node(dir, "node05", &rng, 0.10, 0.5);
    rc = sh("cd %s && %s fleet %s 2>&1", ref, GB_TEST_EXE, dir);
    ASSERT_MSG(rc == 3, "a node at 0.5x: exit %d:\n%s", rc, out);
    ASSERT_CONTAINS(out, "1 outlier node (1 member,");
    ASSERT_CONTAINS(out, "1 outlier node of 5, the worst node05");
    ASSERT_EQ(gb_test_count(out, "FAST"), 0);

    /* Ranked: a node slowed in 3 cases comes before one slowed in 1, whatever their names. */
    snprintf(path, sizeof path, "%s/node05.json", dir);
    ASSERT_EQ(remove(path), 0);
    char from[4096], to[4096];
    snprintf(from, sizeof from, "%s/node01.json", dir);
    snprintf(to, sizeof to, "%s/node00.json", dir);
    hand_slowed_copy(from, to, "node00", 0, 0.2);
    snprintf(to, sizeof to, "%s/node09.json", dir);
    hand_slowed_copy(from, to, "node09", 0, 0.2);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/node09b.json", dir);
    hand_slowed_copy(to, tmp, "node09", 3, 0.2);
    ASSERT_EQ(rename(tmp, to), 0);
    hand_slowed_copy(to, tmp, "node09", 6, 0.2);
    ASSERT_EQ(rename(tmp, to), 0);
    /* ... and a foreign and a truncated file among them. */
    snprintf(path, sizeof path, "%s/zz-foreign.json", dir);
    gb_test_write_file(path, "{\"hello\": 1}\n");
    snprintf(path, sizeof path, "%s/zz-truncated.json", dir);
    gb_test_write_file(path, "{\"schema\": \"gpubench-results/");
    rc = sh("cd %s && %s fleet %s 2>&1", ref, GB_TEST_EXE, dir);
    ASSERT_MSG(rc == 3, "exit %d:\n%s", rc, out);
    ASSERT_CONTAINS(out, "6 files");
    ASSERT_CONTAINS(out, "zz-foreign.json skipped");
    ASSERT_CONTAINS(out, "zz-truncated.json skipped");
    const char *a = strstr(out, "\nnode09 "), *b = strstr(out, "\nnode00 ");
    ASSERT_MSG(a && b && a < b, "node09 (3 cases) is not ranked before node00 (1):\n%s", out);
    ASSERT_CONTAINS(out, "2 outlier nodes of 6, the worst node09 (3 cases) (exit 3)\n");
}

/* Without expectations for the model, the node shift judges a node: four runs
 * of one noisy machine (each case 25% apart run to run) and a copy of one of them at 0.7x in every
 * case: that copy is LOW and only it; one case at 0.5x on a node is named as deviating, no exit 3.
 * Planted on the rule before it (any case beyond 3.5 MADs of the fleet's spread flags the node),
 * the four healthy nodes of such a fleet were flagged too. */
TEST(fleet_node_shift_flags_a_slow_copy_not_a_noisy_case)
{
    char dir[1024], from[4096], to[4096], tmp[4096];
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    uint64_t rng = 7;
    static const char *const hosts[] = {"node01", "node02", "node03", "node04"};
    for (int n = 0; n < 4; n++)
        noisy_node(dir, hosts[n], &rng, 0.25, 1.0);
    snprintf(from, sizeof from, "%s/node02.json", dir);
    snprintf(to, sizeof to, "%s/node05.json", dir);
    snprintf(tmp, sizeof tmp, "%s/slow.tmp", dir);
    for (size_t r = 0; r < 24; r++) {
        hand_slowed_copy(r ? to : from, tmp, "node05", r, r % 3 == 2 ? 1.0 / 0.7 : 0.7);
        ASSERT_EQ(rename(tmp, to), 0);
    }
    int rc = sh("%s fleet %s 2>&1", GB_TEST_EXE, dir);
    printf("%s", out);
    ASSERT_MSG(rc == 3, "a copy at 0.7x: exit %d", rc);
    ASSERT_CONTAINS(out, "1 outlier node (1 member, in 0 cases)\n");
    ASSERT_CONTAINS(out, "\nnode05      0    -30.0  LOW: node shift over 24 cases");
    ASSERT_CONTAINS(out,
                    "1 outlier node of 5, the worst node05 (shift -30.0% over 24 cases) (exit 3)");
    ASSERT_EQ(gb_test_count(out, "SLOW"), 0);

    /* One case at 0.5x on a copy of a node of a quieter machine (5% run to run, where 0.5x is
     * beyond the fleet's spread): named as deviating, exit 0. */
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    for (int n = 0; n < 4; n++)
        noisy_node(dir, hosts[n], &rng, 0.05, 1.0);
    snprintf(from, sizeof from, "%s/node02.json", dir);
    snprintf(to, sizeof to, "%s/node06.json", dir);
    hand_slowed_copy(from, to, "node06", 0, 0.5);
    rc = sh("%s fleet %s 2>&1", GB_TEST_EXE, dir);
    printf("%s", out);
    ASSERT_MSG(rc == 0, "one case at 0.5x: exit %d", rc);
    ASSERT_CONTAINS(out, "1 figure deviates in cases without calibrated noise");
    ASSERT_CONTAINS(out, "\nnode06      1    -5");
    ASSERT_CONTAINS(out, "memory triad size=1MiB on test-gpu (GB/s, higher is better): 5 nodes");
    ASSERT_EQ(gb_test_count(out, "  deviates\n"), 1);
    ASSERT_CONTAINS(out, "no outlier node of 5 (exit 0)");
}

TEST(fleet_usage_errors)
{
    ASSERT_EQ(sh("%s fleet 2>&1", GB_TEST_EXE), 2);
    ASSERT_EQ(sh("%s fleet -k 0 x 2>&1", GB_TEST_EXE), 2);
    ASSERT_EQ(sh("%s fleet --min-deviation abc x 2>&1", GB_TEST_EXE), 2);
    ASSERT_EQ(sh("%s fleet --help", GB_TEST_EXE), 0);
    ASSERT_CONTAINS(out, "usage: gpubench fleet");
    ASSERT_EQ(sh("%s fleet /nonexistent 2>&1", GB_TEST_EXE), 2);
}

TEST(merge_string_table_and_inputs)
{
    struct gb_strtab t = {0};
    char key[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "key-%d", i);
        bool added;
        ASSERT_EQ(gb_strtab_intern(&t, key, &added), i);
        ASSERT(added);
    }
    for (int i = 4999; i >= 0; i--) {
        snprintf(key, sizeof key, "key-%d", i);
        bool added;
        ASSERT_EQ(gb_strtab_intern(&t, key, &added), i);
        ASSERT(!added);
        ASSERT_STR(gb_strtab_get(&t, (size_t)i), key);
    }
    ASSERT_EQ(gb_strtab_find(&t, "key-5000"), -1);
    gb_strtab_free(&t);

    ASSERT(gb_suite_selected(NULL, "memory"));
    ASSERT(gb_suite_selected("transfer,memory", "memory"));
    ASSERT(!gb_suite_selected("transfer,memoryx", "memory"));

    const char *dir = gb_test_tmpdir();
    char p[4096];
    const char *names[] = {"b.json", "a.json", ".hidden.json", "c.txt"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        gb_test_write_file(p, "{}");
    }
    struct gb_inputs in;
    const char *args[] = {dir, "/etc/hostname"};
    ASSERT_OK(gb_inputs_expand(args, 2, &in));
    ASSERT_EQ(in.n, 3);
    ASSERT_CONTAINS(in.paths[0], "/a.json");
    ASSERT_CONTAINS(in.paths[1], "/b.json");
    ASSERT_STR(in.paths[2], "/etc/hostname");
    gb_inputs_free(&in);
}

/* ---- scale ----------------------------------------------------------------------------------- */

/* Runs argv (stdout and stderr to /dev/null) and returns its exit status, with its peak resident
 * memory in KiB and its CPU seconds (user + system) from wait4. */
static int run_measured(char *const argv[], long *maxrss_kib, double *cpu_s)
{
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        FILE *null = freopen("/dev/null", "w", stdout);
        (void)null;
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    struct rusage ru;
    ASSERT(wait4(pid, &st, 0, &ru) == pid);
    *maxrss_kib = ru.ru_maxrss;
    *cpu_s = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
             (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The scale test's files are large (1,000 x 440 KB): removed however the test ends. */
static char scale_dir[2][1024];

/* At exit (a failed assertion) and at the end (a pass ends with _exit, which runs no handler). */
static void remove_scale_dir(void)
{
    char cmd[2100];
    for (int i = 0; i < 2; i++)
        if (scale_dir[i][0] && strstr(scale_dir[i], "gpubench-test-")) {
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", scale_dir[i]);
            if (system(cmd) != 0)
                fprintf(stderr, "could not remove %s\n", scale_dir[i]);
            scale_dir[i][0] = '\0';
        }
}

/* 1,000 nodes of 300 cases (10 samples each, 440 KB a file): merged in bounded memory and time.
 * The first file is written by the results writer; the others are copies with the host and the
 * values changed as text (the writer would take minutes for 1,000 files here). One node is slowed
 * in one case. Memory is measured as the growth over a merge of one file (the binary alone, with
 * its OpenCL / CUDA libraries, is about 40 MiB), time as CPU seconds (the wall time depends on what
 * else runs on the machine). */
TEST_TIMEOUT(fleet_merge_1000_files_bounded, 900)
{
    const size_t nodes = 1000, ncases = 300;
    char dir[1024], res[1024], path[4096];
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    snprintf(res, sizeof res, "%s", gb_test_tmpdir());
    snprintf(scale_dir[0], sizeof scale_dir[0], "%s", dir);
    snprintf(scale_dir[1], sizeof scale_dir[1], "%s", res);
    atexit(remove_scale_dir);
    uint64_t rng = 99;
    double *v = malloc(ncases * sizeof *v);
    for (size_t k = 0; k < ncases; k++)
        v[k] = 100.0;
    struct node_spec ns = {"NODE_TEMPLATE", "2026-02-01T04:00:00Z", "1.0", NULL, 1};
    snprintf(path, sizeof path, "%s/template.json", res);
    gen_file(path, &ns, v, ncases, 10, &rng);
    free(v);
    char *tmpl = gb_test_slurp(path);
    /* Every "value": 100 (the headline of the generated cases) becomes 100 x (1 + 1% noise). */
    size_t len = strlen(tmpl);
    double t0 = gb_test_now_s();
    for (size_t n = 0; n < nodes; n++) {
        snprintf(path, sizeof path, "%s/node%04zu.json", dir, n);
        FILE *f = fopen(path, "w");
        ASSERT(f);
        const char *p = tmpl, *end = tmpl + len;
        /* The host is searched once (and again after each use), not before every value: that
         * was a scan to the end of the file per value, minutes under AddressSanitizer. */
        const char *host = strstr(p, "NODE_TEMPLATE");
        size_t k = 0;
        while (p < end) {
            const char *val = strstr(p, "\"value\":100");
            const char *next = host && (!val || host < val) ? host : val;
            if (!next) {
                fwrite(p, 1, (size_t)(end - p), f);
                break;
            }
            fwrite(p, 1, (size_t)(next - p), f);
            if (next == host) {
                fprintf(f, "node%04zu", n);
                p = next + strlen("NODE_TEMPLATE");
                host = strstr(p, "NODE_TEMPLATE");
            } else {
                double x = 100.0 * (1.0 + 0.01 * normal(&rng));
                if (n == 777 && k == 123)
                    x = 75.0;
                if (n == 555)
                    x *= 0.7;
                fprintf(f, "\"value\":%.6f", x);
                p = next + strlen("\"value\":100");
                while (p < end && (*p == '.' || (*p >= '0' && *p <= '9')))
                    p++;
                k++;
            }
        }
        ASSERT(fclose(f) == 0);
        ASSERT_EQ(k, ncases);
    }
    free(tmpl);
    struct stat st;
    ASSERT(stat(path, &st) == 0);
    printf("generated %zu files of %zu cases (%lld bytes each) in %.1f s\n", nodes, ncases,
           (long long)st.st_size, gb_test_now_s() - t0);

    long one_kib, kib;
    double one_cpu, cpu;
    char json_arg[1100];
    snprintf(path, sizeof path, "%s/node0000.json", dir);
    snprintf(json_arg, sizeof json_arg, "%s/f.json", res);
    char *argv1[] = {GB_TEST_EXE, "fleet", path, "-q", NULL};
    ASSERT_EQ(run_measured(argv1, &one_kib, &one_cpu), 0);
    t0 = gb_test_now_s();
    char *argv2[] = {GB_TEST_EXE, "fleet", dir, "-q", "--json", json_arg, NULL};
    int rc = run_measured(argv2, &kib, &cpu);
    double secs = gb_test_now_s() - t0;
    printf("merged %zu files in %.1f s (%.1f s of CPU), peak memory %ld KiB (one file: %ld KiB)\n",
           nodes, secs, cpu, kib, one_kib);
    ASSERT_EQ(rc, 3);
    /* What is kept: 300,000 figures of 16 bytes (4.6 MiB) and the tables; one file is read at a
     * time. All the samples of 1,000 files (3 million values, in jansson's trees) would take
     * gigabytes; 32 MiB over the one-file run bounds the merge with room. */
#if GB_TEST_ASAN
    /* Under AddressSanitizer the peak holds its quarantine (freed blocks are kept, 256 MiB deep)
     * and the CPU time is 2-3x: neither bound means anything; the merge's answers still do. */
    printf("under AddressSanitizer: the memory and CPU bounds are not checked\n");
#else
    ASSERT_MSG(kib - one_kib < 32 * 1024, "peak memory %ld KiB, %ld KiB for one file", kib,
               one_kib);
    /* About 20 ms of CPU a file here (jansson's parse dominates). */
    ASSERT_MSG(cpu < 200, "%.1f s of CPU", cpu);
#endif
    json_error_t e;
    json_t *j = json_load_file(json_arg, 0, &e);
    ASSERT_MSG(j, "f.json: %s", e.text);
    /* node0555 as a whole at 0.7x is LOW by its shift; node0777's one case at 0.75x deviates
     * (no expectations calibrate it), named but no outlier. */
    ASSERT_EQ(json_integer_value(json_object_get(j, "outlier_nodes")), 1);
    json_t *nd = json_array_get(json_object_get(j, "nodes"), 555);
    ASSERT(json_is_true(json_object_get(nd, "shift_low")));
    ASSERT_EQ(json_integer_value(json_object_get(nd, "shift_cases")), (long long)ncases);
    json_t *c = json_array_get(json_object_get(j, "cases"), 123);
    ASSERT_EQ(json_integer_value(json_object_get(c, "outliers")), 0);
    ASSERT_EQ(json_integer_value(json_object_get(c, "nodes_ok")), (long long)nodes);
    nd = json_array_get(json_object_get(j, "nodes"), 777);
    ASSERT_EQ(json_integer_value(json_object_get(nd, "deviating_cases")), 1);
    ASSERT(json_is_false(json_object_get(nd, "outlier")));
    json_decref(j);
    remove_scale_dir();
}

/* ---- Slurm ----------------------------------------------------------------------------------- */

/* scripts/test-slurm.sh: a one-node Slurm cluster on this machine, a 2-task fleet job of a tiny
 * profile through srun, the fleet view of its files, and a hand-slowed copy flagged (exit 3).
 * Skipped, with the script's reason, when not root or Slurm and munge are not installed. */
TEST_TIMEOUT(slurm_fleet_job_on_localhost, 240)
{
    double t0 = gb_test_now_s();
    int rc = sh("GPUBENCH=%s %s/scripts/test-slurm.sh 2>&1", GB_TEST_EXE, GB_TEST_SRCDIR);
    gb_test_skip_on_77(rc, out);
    printf("%s", out);
    ASSERT_EQ(rc, 0);
    ASSERT_CONTAINS(out, "test-slurm: passed");
    printf("%.1f s\n", gb_test_now_s() - t0);
}

/* ---- scripts/bench-verdicts.sh ------------------------------------------------------------------ */

/* The verdict benchmark runs end to end on four tiny runs of one host (6 cases, 1% between runs):
 * every verdict judged without an error, the figures in its JSON, and a planted 0.5x found by its
 * value in the JSON of check and fleet (the script's reading of each command's JSON). */
TEST(bench_verdicts_script_on_four_tiny_runs)
{
    char dir[1024], res[1024], path[4096];
    snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
    snprintf(res, sizeof res, "%s/bv.json", gb_test_tmpdir());
    uint64_t rng = 11;
    for (int n = 0; n < 4; n++) {
        double v[6];
        for (size_t k = 0; k < 6; k++)
            v[k] = (k % 3 == 2 ? 10.0 : 100.0) * (1.0 + 0.01 * normal(&rng));
        char start[32];
        snprintf(start, sizeof start, "2026-02-0%dT04:00:00Z", n + 1);
        struct node_spec ns = {"bench-01", start, "1.0", NULL, 1};
        snprintf(path, sizeof path, "%s/run%d.json", dir, n);
        gen_file(path, &ns, v, 6, 5, &rng);
    }
    int rc = sh("GPUBENCH_BUILD=%s %s/scripts/bench-verdicts.sh --runs %s -n 4 --nodes 6 "
                "--scales 0.5 --json %s 2>&1",
                GB_TEST_BUILDDIR, GB_TEST_SRCDIR, dir, res);
    printf("%s", out);
    ASSERT_EQ(rc, 0);
    ASSERT_CONTAINS(out, "4 A/A runs");
    json_error_t e;
    json_t *j = json_load_file(res, 0, &e);
    ASSERT_MSG(j, "bv.json: %s", e.text);
    ASSERT_STR(json_string_value(json_object_get(j, "schema")), "gpubench-bench-verdicts/1");
    ASSERT_EQ(json_integer_value(json_object_get(j, "cases")), 6);
    const char *verdicts[] = {"compare", "nights", "check", "fleet"};
    const long trials[] = {12, 4, 4, 6};
    for (size_t v = 0; v < 4; v++) {
        json_t *aa = json_object_get(json_object_get(j, "aa"), verdicts[v]);
        ASSERT_MSG(aa, "%s", verdicts[v]);
        ASSERT_EQ(json_integer_value(json_object_get(aa, "trials")), trials[v]);
        ASSERT_EQ(json_integer_value(json_object_get(aa, "errors")), 0);
    }
    json_t *planted = json_object_get(j, "planted");
    ASSERT_EQ(json_array_size(planted), 8);
    for (size_t i = 0; i < json_array_size(planted); i++) {
        json_t *p = json_array_get(planted, i);
        const char *v = json_string_value(json_object_get(p, "verdict"));
        bool all = strcmp(json_string_value(json_object_get(p, "mode")), "all") == 0;
        ASSERT_EQ(json_integer_value(json_object_get(p, "errors")), 0);
        ASSERT_EQ(json_integer_value(json_object_get(p, "cases_planted")),
                  (all ? 6 : 1) * json_integer_value(json_object_get(p, "trials")));
        /* three nights are learning; five samples a side are too few for compare's test; check
         * judges a case against 3 reference runs at least (the other three) */
        if (all && (strcmp(v, "check") == 0 || strcmp(v, "fleet") == 0))
            ASSERT_MSG(json_integer_value(json_object_get(p, "cases_caught")) > 0, "%s", v);
    }
    json_decref(j);
}
