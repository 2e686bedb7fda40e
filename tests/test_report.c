/* gpubench report: every file, with real gnuplot, on results of real runs on the OpenCL device
 * (PoCL here); several devices side by side; missing data; the price sheet; and the page as a
 * browser draws it (headless Chromium). */
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>

#include "base/error.h"
#include "base/util.h"
#include "results/results.h"
#include "analyses/prices.h"
#include "outputs/report.h"
#include "test.h"

static char out[1 << 18];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

static long file_size(const char *dir, const char *sub, const char *id, const char *ext)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/%s/%s%s", dir, sub, id, ext);
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

/* Every chart report.md names (![title](charts/ID.png)) has its data, script and both images,
 * and index.html holds one inline SVG per chart and no drawing failure; at least min charts.
 * Returns the charts. */
static size_t check_report_files(const char *dir, size_t min)
{
    char *md = gb_test_slurp_in(dir, "report.md");
    char *html = gb_test_slurp_in(dir, "index.html");
    size_t charts = 0;
    for (const char *s = strstr(md, "](charts/"); s; s = strstr(s + 1, "](charts/")) {
        char id[64];
        const char *b = s + strlen("](charts/");
        size_t l = strcspn(b, ".");
        ASSERT(l < sizeof id);
        memcpy(id, b, l);
        id[l] = '\0';
        ASSERT_MSG(file_size(dir, "data", id, ".csv") > 0, "data/%s.csv", id);
        ASSERT_MSG(file_size(dir, "plots", id, ".gp") > 0, "plots/%s.gp", id);
        ASSERT_MSG(file_size(dir, "charts", id, ".svg") > 500, "charts/%s.svg", id);
        ASSERT_MSG(file_size(dir, "charts", id, ".png") > 1000, "charts/%s.png", id);
        char anchor[96];
        snprintf(anchor, sizeof anchor, "<section id=\"%s\">", id);
        ASSERT_CONTAINS(html, anchor);
        charts++;
    }
    ASSERT(charts >= min);
    ASSERT_EQ(gb_test_count(html, "<svg"), charts);
    ASSERT_EQ(gb_test_count(html, "could not be drawn"), 0);
    ASSERT_EQ(gb_test_count(md, "could not be drawn"), 0);
    /* Self-contained: nothing is fetched from anywhere. */
    ASSERT_EQ(gb_test_count(html, "<script"), 0);
    ASSERT_EQ(gb_test_count(html, "src=\"http"), 0);
    ASSERT_EQ(gb_test_count(html, "<link"), 0);
    ASSERT(file_size(dir, "data", "headline", ".csv") > 0);
    free(md);
    free(html);
    return charts;
}

/* A quick run of the suite families the report draws, small enough for the test budget
 * (configs/quick.yaml itself takes half a minute here, with two unequal devices over two
 * minutes): transfers, device memory, launches, arithmetic, GEMM, tuning, scaling, peer copies. */
/* The triad's %s: the arrays' size, 64 MiB, or, on a device whose last-level cache is above
 * 96 MiB (a CPU with a 260 MiB L3 has been seen), two thirds of it and 16 MiB, so that the
 * triad's three arrays are in the memory regime (twice the cache) and the memory charts and the
 * value chart (triad per price and watt) have data. */
static const char quick_profile[] =
    "name: report-quick\n"
    "measure: {warmup_runs: 1, warmup_time: 1ms, min_samples: 3, max_samples: 10,\n"
    "          max_noise: 0.05, max_time: 30ms, min_sample_time: 1ms}\n"
    "suites:\n"
    "  - suite: transfer\n"
    "    params: {op: [h2d, d2h, d2d], memory: pinned, mode: async, size: [4KiB, 256KiB, 4MiB]}\n"
    "  - suite: memory\n"
    "    params: {op: copy, type: float, wg: 256, size: 64MiB}\n"
    "  - suite: memory\n"
    "    params: {op: triad, type: float, wg: 256, size: %s}\n"
    "  - suite: launch\n"
    "    params: {op: [latency, throughput]}\n"
    "  - suite: compute\n"
    "    params: {prec: [f32, f64], iters: 64, groups: 2}\n"
    "  - suite: gemm\n"
    "    params: {prec: [f32], impl: [library], shape: [128]}\n"
    "  - suite: tuning\n"
    "    params: {kernel: [dot], search: random, budget: 4, size: 262144}\n"
    "  - suite: scaling\n"
    "    params: {workload: triad, mode: strong, ndev: [1, 2], size: 4MiB}\n"
    "  - suite: peer\n"
    "    params: {size: [1MiB]}\n";

static void quick_run(const char *dir, const char *env, const char *file)
{
    char prof[1100], size[32] = "64MiB", text[sizeof quick_profile + 32];
    struct gb_device_info info;
    gb_test_opencl_info(&info);
    if (info.l2_bytes > (96ull << 20))
        snprintf(size, sizeof size, "%lluMiB",
                 (unsigned long long)(info.l2_bytes >> 20) * 2 / 3 + 16);
    snprintf(text, sizeof text, quick_profile, size);
    snprintf(prof, sizeof prof, "%s/report-quick.yaml", dir);
    gb_test_write_file(prof, text);
    int rc = sh("cd %s && %s %s run report-quick.yaml -q -o %s 2>&1", dir, env, GB_TEST_EXE, file);
    ASSERT_MSG(rc == 0, "quick run: exit %d: %s", rc, out);
}

TEST_TIMEOUT(report_quick_run_every_file, 240)
{
    const char *dir = gb_test_tmpdir();
    quick_run(dir, "", "q.json");
    int rc = sh("cd %s && %s report q.json -o rep 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "report: rep/index.html and rep/report.md");
    ASSERT_CONTAINS(out, "for 1 device in 1 results file");
    /* Two runs of one device are one device, in two files (it said "2 devices"). */
    rc =
        sh("cd %s && cp q.json q2.json && %s report q.json q2.json -o rep2 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report of two runs: exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "for 1 device in 2 results files");
    char rep[1100];
    snprintf(rep, sizeof rep, "%s/rep", dir);
    check_report_files(rep, 8);
    char *md = gb_test_slurp_in(rep, "report.md");
    /* The suites of the quick run are drawn; the transfer charts say what a buyer reads off. */
    ASSERT_CONTAINS(md, "### Transfer bandwidth, host to device (H2D)");
    ASSERT_CONTAINS(md, "h2d peaks at");
    ASSERT_CONTAINS(md, "half of that from");
    ASSERT_CONTAINS(md, "### Device-memory bandwidth per kernel");
    ASSERT_CONTAINS(md, "| H2D small-copy peak |");
    ASSERT_CONTAINS(md, "memory roof");
    /* Price sheets were not given: those charts are listed once as without data, not drawn;
     * their data files say why. */
    const char *nd = strstr(md, "*Not drawn:*");
    ASSERT(nd);
    ASSERT(strstr(nd, "Performance per price") < strchr(nd, '\n'));
    const char *why = strstr(nd, "Performance per price — no price sheet given");
    ASSERT(why && why < strchr(nd, '\n'));
    ASSERT(file_size(rep, "charts", "value_per_price", ".svg") < 0);
    char *vcsv = gb_test_slurp_in(rep, "data/value_per_price.csv");
    ASSERT_CONTAINS(vcsv, "# no data: no price sheet given");
    free(vcsv);
    free(md);
    /* The gnuplot scripts redraw the charts from the data as they are. */
    rc = sh("cd %s && rm charts/memory_bandwidth.svg && gnuplot plots/memory_bandwidth.gp 2>&1 && "
            "test -s charts/memory_bandwidth.svg",
            rep);
    ASSERT_MSG(rc == 0, "gnuplot plots/memory_bandwidth.gp: %s", out);
    ASSERT_EQ(sh("head -1 %s/data/memory_bandwidth.csv", rep), 0);
    ASSERT_CONTAINS(out, "# category,");
}

/* The names of the devices in results file dir/file into names[0..max) (each up to 256
 * characters); how many. */
static size_t device_names(const char *dir, const char *file, char names[][256], size_t max)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    struct gb_results rs;
    ASSERT_OK(gb_results_read(p, &rs));
    size_t n = rs.ndevices < max ? rs.ndevices : max;
    for (size_t i = 0; i < n; i++)
        snprintf(names[i], 256, "%s", rs.devices[i].info.name);
    gb_results_free(&rs);
    return n;
}

/* A price sheet key for a device name: the name quoted for YAML. */
static void yaml_quoted(char *buf, size_t len, const char *name)
{
    size_t l = 0;
    buf[l++] = '"';
    for (const char *c = name; *c && l + 3 < len; c++) {
        if (*c == '"' || *c == '\\')
            buf[l++] = '\\';
        buf[l++] = *c;
    }
    buf[l++] = '"';
    buf[l] = '\0';
}

/* Two configurations of one machine side by side: a run on one device and a run on two of
 * unequal speed (PoCL's POCL_DEVICES='basic pthread'), three devices in the report. The device
 * names, and so the price sheet's keys, come from the runs' own files. An implementation that
 * makes no second device (Intel's CPU runtime ignores POCL_DEVICES) skips. */
TEST_TIMEOUT(report_two_configs_side_by_side, 240)
{
    static const char env_one[] = "POCL_DEVICES=pthread",
                      env_two[] = "POCL_DEVICES='basic pthread'";
    struct gb_test_devices d;
    gb_test_need_cli_devices(env_two, 2, &d);
    const char *dir = gb_test_tmpdir();
    quick_run(dir, env_one, "one.json");
    quick_run(dir, env_two, "two.json");
    char one[1][256], two[2][256];
    ASSERT_EQ(device_names(dir, "one.json", one, 1), 1);
    ASSERT_EQ(device_names(dir, "two.json", two, 2), 2);
    /* Prices by exact name: two.json's first device is the cheap one (600 / 65 W otherwise). */
    const bool two_names = strcmp(two[0], two[1]) != 0;
    const bool cheap_one = two_names && strcmp(one[0], two[0]) == 0;
    char k0[600], k1[600], k2[600], sheet[2400];
    yaml_quoted(k0, sizeof k0, two[0]);
    yaml_quoted(k1, sizeof k1, two[1]);
    yaml_quoted(k2, sizeof k2, one[0]);
    snprintf(sheet, sizeof sheet,
             "# illustrative, not real prices\n"
             "currency: EUR\n"
             "devices:\n"
             "  %s: {price: %s}\n",
             k0, two_names ? "300, power: 35 W" : "600, power: 65");
    if (two_names)
        gb_appendf(sheet, sizeof sheet, "  %s: {price: 600, power: 65}\n", k1);
    if (strcmp(one[0], two[0]) != 0 && strcmp(one[0], two[1]) != 0)
        gb_appendf(sheet, sizeof sheet, "  %s: {price: 600, power: 65}\n", k2);
    char prices[1100];
    snprintf(prices, sizeof prices, "%s/prices.yaml", dir);
    gb_test_write_file(prices, sheet);
    int rc = sh("cd %s && %s report one.json two.json -o rep --prices prices.yaml --title 'Side "
                "by side' 2>&1",
                dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "for 3 devices");
    char rep[1100];
    snprintf(rep, sizeof rep, "%s/rep", dir);
    check_report_files(rep, 8);
    /* Three series in every chart's data and legend: every device by its name; a name in both
     * files is told apart by its file. */
    char *csv = gb_test_slurp_in(rep, "data/memory_bandwidth.csv");
    char *svg = gb_test_slurp_in(rep, "charts/transfer_h2d.svg");
    /* A long device name is cut in its series label (gb__clean's width): its first 20
     * characters are there. */
    const char *names[3] = {one[0], two[0], two[1]};
    for (size_t i = 0; i < 3; i++) {
        char head[24];
        snprintf(head, sizeof head, "%.20s", names[i]);
        ASSERT_CONTAINS(csv, head);
    }
    if (strcmp(one[0], two[0]) == 0 || strcmp(one[0], two[1]) == 0) {
        ASSERT_CONTAINS(csv, "(opencl) one.json");
        ASSERT_CONTAINS(csv, "(opencl) two.json");
        ASSERT_CONTAINS(svg, "one.json");
    }
    /* The device only two.json has is drawn under its own name. */
    const char *only_two = strcmp(one[0], two[0]) != 0 ? two[0] : two[1];
    char only_head[24];
    snprintf(only_head, sizeof only_head, "%.20s", only_two);
    ASSERT_CONTAINS(svg, only_head);
    free(csv);
    free(svg);
    char *md = gb_test_slurp_in(rep, "report.md");
    ASSERT_CONTAINS(md, "# Side by side");
    if (two_names) {
        /* Columns: one.json's device, then two.json's two. */
        const char *price_one = cheap_one ? "300" : "600", *power_one = cheap_one ? "35" : "65";
        char row[128];
        snprintf(row, sizeof row, "| Price (EUR) | %s | 300 | 600 |", price_one);
        ASSERT_CONTAINS(md, row);
        snprintf(row, sizeof row, "| Power (W) | %s | 35 | 65 |", power_one);
        ASSERT_CONTAINS(md, row);
    }
    ASSERT_CONTAINS(md, "triad GB/s per 1000 EUR: best ");
    ASSERT_CONTAINS(md, "triad GB/s per W: best ");
    ASSERT_CONTAINS(md, "from the price sheet's power (fallback, not measured)");
    ASSERT_CONTAINS(md, "relative to");
    ASSERT_EQ(gb_test_count(md, "No data: no price sheet"), 0);
    free(md);
}

/* A fresh folder holding l.json, the results of one launch-latency case: the smallest real
 * results file. */
static const char *launch_run(void)
{
    const char *dir = gb_test_tmpdir_with(
        "l.yaml", "name: l\nmeasure: {max_time: 30ms, min_samples: 3}\nsuites:\n"
                  "  - suite: launch\n    params: {op: latency}\n");
    ASSERT_EQ(sh("cd %s && %s run l.yaml -q -o l.json 2>&1", dir, GB_TEST_EXE), 0);
    return dir;
}

TEST(report_missing_data_says_no_data)
{
    /* A results file holding one launch case and nothing else: every other chart says no data
     * and why, the report still succeeds. */
    const char *dir = launch_run();
    int rc = sh("cd %s && %s report l.json -o rep 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report exit %d: %s", rc, out);
    char rep[1100];
    snprintf(rep, sizeof rep, "%s/rep", dir);
    check_report_files(rep, 1);
    char *md = gb_test_slurp_in(rep, "report.md");
    char *html = gb_test_slurp_in(rep, "index.html");
    /* The charts without data are listed once, on one line after the headline table, and not
     * drawn: no section, no frame, no image; their data file says why. */
    static const char *const absent[][2] = {
        {"transfer", "no transfer results in these files"},
        {"memory_bandwidth", "no device-memory (memory or fp16 suite, memory regime) results"},
        {"tuning", "no tuning results in these files"},
        {"batching", "no batching results in these files"},
        {"scaling", "no multi-device scaling results"},
        {"p2p", "no peer-copy results"},
        {"compute_gflops", "no compute, gemm or fp16 throughput results"},
        {"roofline", "no device-memory bandwidth in the memory regime (memory suite, arrays "
                     "larger than the caches)"},
    };
    ASSERT_EQ(gb_test_count(md, "*Not drawn:*"), 1);
    ASSERT_EQ(gb_test_count(html, "Not drawn (hover for why):"), 1);
    ASSERT_EQ(gb_test_count(md, "Not drawn"), 1);
    ASSERT_EQ(gb_test_count(md, "Transfer bandwidth"), 1);
    ASSERT_EQ(gb_test_count(html, "(no data)"), 0);
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
        char anchor[96];
        snprintf(anchor, sizeof anchor, "<section id=\"%s\">", absent[i][0]);
        ASSERT_MSG(!strstr(html, anchor), "%s drawn without data", absent[i][0]);
        ASSERT_MSG(file_size(rep, "charts", absent[i][0], ".svg") < 0, "charts/%s.svg",
                   absent[i][0]);
        char p[1200];
        snprintf(p, sizeof p, "%s/data/%s.csv", rep, absent[i][0]);
        char *csv = gb_test_slurp(p);
        ASSERT_CONTAINS(csv, absent[i][1]);
        free(csv);
        ASSERT_CONTAINS(html, absent[i][1]); /* the tooltip of its name */
        ASSERT_CONTAINS(md, absent[i][1]);   /* after its name */
    }
    /* Only the launch chart is drawn. */
    ASSERT_CONTAINS(md, "![Kernel launch latency](charts/launch_latency.png)");
    ASSERT_EQ(gb_test_count(html, "<section id=\"launch_latency\">"), 1);
    ASSERT_EQ(gb_test_count(md, "](charts/"), 1);
    free(html);
    free(md);
}

/* The first screen is the answer: the headline table, each figure with its 95% confidence
 * half-width (and the noisy mark where the result is noisy), before the contents, in the HTML
 * and the Markdown alike. */
TEST(report_headline_table_comes_first)
{
    const char *dir = launch_run();
    int rc = sh("cd %s && %s report l.json -o rep 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report exit %d: %s", rc, out);
    char *html = gb_test_slurp_in(dir, "rep/index.html");
    char *md = gb_test_slurp_in(dir, "rep/report.md");
    const char *hh = strstr(html, "<h2>Headline figures</h2>");
    const char *hn = strstr(html, "<h2>Contents</h2>");
    const char *hr = strstr(html, "<h2 id=\"runs\">");
    ASSERT(hh && hn && hr && hh < hn && hn < hr);
    /* The launch latency row, its value with a ± before the contents. */
    const char *row = strstr(html, "<th>Launch latency</th>");
    ASSERT(row && row < hn);
    const char *pm = strstr(row, " \u00b1 ");
    ASSERT(pm && pm < strstr(row, "</tr>"));
    const char *mh = strstr(md, "## Headline figures");
    const char *mr = strstr(md, "## Runs and devices");
    const char *ml = strstr(md, "| Launch latency | ");
    ASSERT(mh && mr && ml && mh < ml && ml < mr);
    pm = strstr(ml, " \u00b1 ");
    ASSERT(pm && pm < strchr(ml, '\n'));
    ASSERT_CONTAINS(md, "\u00b1 is the 95% confidence half-width");
    /* The page's start holds no chart, no contents: the table is the first thing after the
     * title. */
    ASSERT(strstr(html, "<svg") > hn);
    ASSERT(strstr(html, "<nav>") > hh);
    free(html);
    free(md);
}

TEST(report_bad_input)
{
    const char *dir = gb_test_tmpdir();
    ASSERT_EQ(sh("cd %s && %s report nothere.json -o rep 2>&1", dir, GB_TEST_EXE), 2);
    ASSERT_CONTAINS(out, "cannot open results file nothere.json");
    ASSERT_EQ(
        sh("cd %s && echo '{' > bad.json && %s report bad.json -o rep 2>&1", dir, GB_TEST_EXE), 2);
    ASSERT_CONTAINS(out, "bad.json: not valid JSON");
    /* The command line: what each mistake says, and --help. */
    static const struct {
        const char *args;
        int status;
        const char *says;
    } usage[] = {
        {"", 2, "missing RESULTS.json"},
        {"x.json", 2, "needs -o DIR"},
        {"x.json -o", 2, "-o needs a value"},
        {"x.json --colour -o rep", 2, "unknown option '--colour'"},
        {"--help", 0, "usage: gpubench report RESULTS.json... -o DIR"},
    };
    for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++) {
        ASSERT_EQ(sh("%s report %s 2>&1", GB_TEST_EXE, usage[i].args), usage[i].status);
        ASSERT_CONTAINS(out, usage[i].says);
    }
    /* A price sheet with a mistake: file:line:column. */
    char p[1100];
    snprintf(p, sizeof p, "%s/prices.yaml", dir);
    gb_test_write_file(p, "devices:\n  pthread: {price: 600, power: lots}\n");
    char err[512];
    struct gb_prices pr;
    ASSERT_EQ(gb_prices_load(p, &pr, err, sizeof err), GB_ECONFIG);
    ASSERT_CONTAINS(err, "prices.yaml:2:32: power: 'lots' is not a number");
    gb_test_write_file(p, "devices:\n  pthread: {price: 600, watts: 3}\n");
    ASSERT_EQ(gb_prices_load(p, &pr, err, sizeof err), GB_ECONFIG);
    ASSERT_CONTAINS(err, "prices.yaml:2:25: unknown key 'watts' (expected price, power)");
    gb_test_write_file(p, "currency: EUR\ndevices:\n  pthread: {price: 600}\n  \"NVIDIA H100\": "
                          "{price: 30000, power: 700W}\n  H100: {power: 1}\n");
    ASSERT_OK(gb_prices_load(p, &pr, err, sizeof err));
    ASSERT_STR(pr.currency, "EUR");
    ASSERT_EQ(pr.n, 3);
    /* Exact name first, then the longest substring, case-insensitively. */
    ASSERT_NEAR(gb_prices_find(&pr, "NVIDIA H100")->price, 30000, 0);
    ASSERT_NEAR(gb_prices_find(&pr, "NVIDIA H100 80GB HBM3")->power_w, 700, 0);
    ASSERT_NEAR(gb_prices_find(&pr, "h100 pcie")->power_w, 1, 0);
    ASSERT(isnan(gb_prices_find(&pr, "PTHREAD-skylake")->power_w));
    ASSERT(gb_prices_find(&pr, "AMD MI300X") == NULL);
    gb_prices_free(&pr);
    ASSERT_EQ(sh("cd %s && %s report x.json -o rep --prices nothere.yaml 2>&1", dir, GB_TEST_EXE),
              2);
    ASSERT_CONTAINS(out, "nothere.yaml: cannot open the price sheet");
}

TEST(report_without_gnuplot_still_writes_the_page)
{
    const char *dir = launch_run();
    int rc = sh("cd %s && GPUBENCH_GNUPLOT=/nonexistent/gnuplot %s report l.json -o rep 2>&1", dir,
                GB_TEST_EXE);
    ASSERT_MSG(rc == 1, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "could not be drawn");
    char *html = gb_test_slurp_in(dir, "rep/index.html");
    ASSERT_CONTAINS(html, "This chart could not be drawn: gnuplot could not be run");
    ASSERT_CONTAINS(html, "install gnuplot-nox");
    ASSERT_CONTAINS(html, "Launch latency");
    free(html);
}

/* Appends to rs a copy of its first result (the launch case: its stats and device) as a result
 * of suite with case kase (its first param, "op"), unit and up to two more params. */
static void add_result(struct gb_results *rs, const char *suite, const char *kase, const char *unit,
                       double value, const char *pname, struct gb_value pv, const char *qname,
                       struct gb_value qv)
{
    struct gb_result r = rs->results[0];
    r.samples = NULL;
    r.nsamples = 0;
    snprintf(r.suite, sizeof r.suite, "%s", suite);
    snprintf(r.case_name, sizeof r.case_name, "%s", kase);
    snprintf(r.unit, sizeof r.unit, "%s", unit);
    r.better = GB_BETTER_HIGHER;
    r.value = value;
    r.params.n = 1;
    r.params.name[0] = "op";
    r.params.v[0] = (struct gb_value){.type = GB_V_STR};
    snprintf(r.params.v[0].s, sizeof r.params.v[0].s, "%s", kase);
    if (pname) {
        r.params.name[r.params.n] = pname;
        r.params.v[r.params.n++] = pv;
    }
    if (qname) {
        r.params.name[r.params.n] = qname;
        r.params.v[r.params.n++] = qv;
    }
    ASSERT_OK(gb_results_add(rs, &r));
}

static struct gb_value vint(int64_t i)
{
    return (struct gb_value){.type = GB_V_INT, .u.i = i};
}

/* Whether a gnuplot script holds a double quote or a backquote outside its single-quoted
 * strings (where gnuplot would expand a backquoted shell command). */
static bool gp_unquoted_danger(const char *script)
{
    bool in_single = false;
    for (const char *c = script; *c; c++) {
        if (*c == '\'')
            in_single = !in_single; /* '' inside a string closes and reopens it: the same */
        else if (!in_single && (*c == '"' || *c == '`'))
            return true;
    }
    return false;
}

/* Text from a results file is data, never a command: device names, a host, file labels, cases,
 * units and params with backquotes, $(...), system("..."), quotes, tags and line breaks go
 * through the report (transfer lines, launch bars, a tuning heat map, batching with its knee,
 * the skipped-case table); gnuplot runs nothing (the file X is never created, in the report
 * folder where gnuplot runs nor above it), every chart is drawn, every script keeps them inside
 * single quotes, and the page stays well-formed HTML. */
TEST_TIMEOUT(report_hostile_names_run_nothing, 120)
{
    const char *dir = launch_run();
    char p[1300], rep[1100];
    snprintf(p, sizeof p, "%s/l.json", dir);
    snprintf(rep, sizeof rep, "%s/rep", dir);
    static const char evil_dev[] = "d`touch X`$(touch X)\"q'<b>&\nz";
    static const char evil_case[] = "c`touch X`\"'$(touch X)\n<i>";
    static const char evil_unit[] = "u`touch X`\"'";
    struct gb_results rs[2];
    for (int f = 0; f < 2; f++) {
        memset(&rs[f], 0, sizeof rs[f]);
        ASSERT_OK(gb_results_read(p, &rs[f]));
        snprintf(rs[f].devices[0].info.name, sizeof rs[f].devices[0].info.name, "%s", evil_dev);
        snprintf(rs[f].run.host, sizeof rs[f].run.host, "h`touch X` system(\"touch X\")");
        snprintf(rs[f].results[0].case_name, sizeof rs[f].results[0].case_name, "%s", evil_case);
        for (int64_t q = 1; q <= 16; q *= 16) {
            struct gb_value size = {.type = GB_V_SIZE, .u.size = 4096 * (uint64_t)q};
            struct gb_value tile = {.type = GB_V_STR};
            snprintf(tile.s, sizeof tile.s, "'t`touch X`'\"\n%d", (int)q);
            add_result(&rs[f], "transfer", evil_case, "GB/s", 1.0 + q, "size", size, NULL, size);
            add_result(&rs[f], "batching", evil_case, evil_unit, 2.0 * q, "count", vint(q), NULL,
                       size);
            add_result(&rs[f], "tuning", evil_case, evil_unit, 3.0 * q, "wg", vint(64 * q), "tile",
                       tile);
        }
        add_result(&rs[f], "launch", evil_case, evil_unit, 1, NULL, vint(0), NULL, vint(0));
        struct gb_result *sk = &rs[f].results[rs[f].nresults - 1];
        sk->status = GB_STATUS_SKIPPED;
        snprintf(sk->reason, sizeof sk->reason, "r`touch X` $(touch X) system(\"touch X\") <i>");
    }
    const char *paths[] = {"f1 `touch X` system(\"touch X\") $(touch X) '\"\n<i>.json",
                           "f2 `touch X` system(\"touch X\") $(touch X) '\"\n<i>.json"};
    struct gb_report_opts o = {.dir = rep, .title = "T `touch X` <i>"};
    struct gb_report_summary sum;
    ASSERT_OK(gb_report_write(rs, paths, 2, &o, &sum));
    for (int f = 0; f < 2; f++)
        gb_results_free(&rs[f]);
    ASSERT_EQ(sum.series, 2);
    ASSERT_MSG(sum.charts_failed == 0, "%zu charts not drawn: %s", sum.charts_failed,
               sh("cat %s/plots/*.log", rep) == 0 ? out : "");
    ASSERT_MSG(sum.charts_with_data >= 5, "%zu of %zu charts with data", sum.charts_with_data,
               sum.charts);
    /* Nothing ran. */
    ASSERT_MSG(file_size(rep, ".", "X", "") < 0, "gnuplot ran a command: rep/X exists");
    ASSERT_MSG(file_size(dir, ".", "X", "") < 0, "gnuplot ran a command: X exists");
    /* The names reached the charts as text: the two series' legend in the launch chart. */
    char *svg = gb_test_slurp_in(rep, "charts/launch_latency.svg");
    ASSERT_CONTAINS(svg, "d`touch X`$(touch X)'q'&lt;b>&amp; z (opencl) f1 `touch X`");
    free(svg);
    /* Every script keeps every text in single quotes. */
    snprintf(p, sizeof p, "%s/plots", rep);
    DIR *d = opendir(p);
    ASSERT(d);
    size_t scripts = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strstr(e->d_name, ".gp"))
            continue;
        char gp[2400];
        snprintf(gp, sizeof gp, "%s/%s", p, e->d_name);
        char *text = gb_test_slurp(gp);
        ASSERT_MSG(!gp_unquoted_danger(text), "%s has a \" or ` outside single quotes", e->d_name);
        free(text);
        scripts++;
    }
    closedir(d);
    ASSERT_EQ(scripts, sum.charts_with_data); /* a chart without data has no script */
    /* The page: no tag from a name, and no HTML parser error beyond the HTML5 and SVG tags
     * libxml2's HTML 4 parser does not know. */
    char *html = gb_test_slurp_in(rep, "index.html");
    ASSERT_EQ(gb_test_count(html, "<i>"), 0);
    ASSERT_EQ(gb_test_count(html, "<b>"), 0);
    ASSERT_CONTAINS(html, "system(&quot;touch X&quot;)");
    free(html);
    ASSERT_EQ(sh("xmllint --html --noout %s/index.html 2>&1 | grep 'parser error' | "
                 "grep -v 'Tag [a-zA-Z]* invalid'",
                 rep),
              1);
    ASSERT_EQ(sh("xmllint --html --noout %s/index.html", rep), 0);
    char *md = gb_test_slurp_in(rep, "report.md");
    ASSERT_EQ(gb_test_count(md, "<i>"), 0);
    ASSERT_CONTAINS(md, "d\\`touch X\\`$(touch X)");
    free(md);
}

/* Opens index.html in headless Chromium and checks the screenshot is not blank. The PNG is
 * decoded by gnuplot (libgd), already a dependency: `plot ... with rgbimage` into a table gives
 * every pixel's red, green and blue (every second row and column, 800 000 pixels). Not blank
 * means: a real share of the pixels are not background (text, tables, charts: about 6% here),
 * and the charts were drawn: pixels in the colours of the charts' series (the palette of
 * src/outputs/gnuplot.c; grey left out, text is grey). Measured when written: 1407 such pixels
 * in the top 3200 pixels of this page, 390 in the same page whose charts failed to draw (only
 * the findings boxes' blue border), 0 on a blank page; the bar is 600 (a CI run on a busy VM drew
 * 789: how long a run's bars are depends on what it measured). */
TEST_TIMEOUT(report_screenshot_in_headless_chromium, 180)
{
    if (sh("command -v chromium") != 0)
        SKIP("chromium is not installed (Debian package chromium; scripts/bootstrap.sh installs "
             "it)");
    const char *dir = gb_test_tmpdir();
    quick_run(dir, "", "q.json");
    ASSERT_EQ(sh("cd %s && %s report q.json -o rep 2>&1", dir, GB_TEST_EXE), 0);
    /* --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start. */
    int rc = sh("cd %s && timeout 90 chromium --headless --no-sandbox --disable-gpu "
                "--hide-scrollbars --window-size=1000,3200 --screenshot=%s/shot.png "
                "file://%s/rep/index.html 2>&1",
                dir, dir, dir);
    ASSERT_MSG(rc == 0, "chromium exit %d: %s", rc, out);
    char png[1100];
    snprintf(png, sizeof png, "%s/shot.png", dir);
    struct stat st;
    ASSERT_MSG(stat(png, &st) == 0 && st.st_size > 0, "no screenshot: %s", out);
    rc = sh("cd %s && gnuplot -e \"set table 'px.txt'; plot 'shot.png' binary filetype=png "
            "every 2:2 with rgbimage; unset table\" 2>&1",
            dir);
    ASSERT_MSG(rc == 0, "gnuplot could not decode the screenshot: %s", out);
    char p[1100];
    snprintf(p, sizeof p, "%s/px.txt", dir);
    FILE *f = fopen(p, "r");
    ASSERT(f);
    static const int pal[][3] = {{31, 119, 180},  {214, 39, 40},   {44, 160, 44},
                                 {255, 127, 14},  {148, 103, 189}, {140, 86, 75},
                                 {227, 119, 194}, {188, 189, 34},  {23, 190, 207}};
    char line[256];
    long pixels = 0, ink = 0, chart = 0;
    while (fgets(line, sizeof line, f)) {
        double x, y;
        int r, g, b;
        if (line[0] == '#' || sscanf(line, "%lf %lf %d %d %d", &x, &y, &r, &g, &b) != 5)
            continue;
        pixels++;
        ink += r + g + b < 3 * 235;
        for (size_t k = 0; k < sizeof pal / sizeof pal[0]; k++) {
            int dr = r - pal[k][0], dg = g - pal[k][1], db = b - pal[k][2];
            if (dr * dr + dg * dg + db * db < 30 * 30) {
                chart++;
                break;
            }
        }
    }
    fclose(f);
    printf("screenshot: %ld pixels sampled, %.1f%% not background, %ld in the charts' colours\n",
           pixels, 100.0 * (double)ink / (double)pixels, chart);
    ASSERT_MSG(pixels == 500L * 1600, "decoded %ld pixels, expected 800000", pixels);
    ASSERT_MSG(ink > pixels / 50, "only %ld of %ld pixels drawn: a blank page", ink, pixels);
    ASSERT_MSG(chart > 600, "only %ld pixels in the charts' colours: the charts are missing",
               chart);
}

/* ---- aggregates take like with like ------------------------------------------------------- */

/* Appends an ok, verified result of one suite and case with params (name, value) pairs of
 * strings or sizes (a size when the text ends in "MiB" or "KiB"). */
static void add_trusted(struct gb_results *rs, const char *suite, const char *kase, double value,
                        const char *unit, const char *regime, bool verified, bool implausible,
                        const char *axis0, const char *axis1, const char *v1)
{
    struct gb_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.suite, sizeof r.suite, "%s", suite);
    snprintf(r.case_name, sizeof r.case_name, "%s", kase);
    snprintf(r.backend, sizeof r.backend, "opencl");
    r.params.n = axis1 ? 2 : 1;
    r.params.name[0] = axis0;
    r.params.v[0].type = GB_V_STR;
    snprintf(r.params.v[0].s, sizeof r.params.v[0].s, "%s", kase);
    if (axis1) {
        r.params.name[1] = axis1;
        unsigned long long n = strtoull(v1, NULL, 10);
        r.params.v[1].type = GB_V_SIZE;
        r.params.v[1].u.size = strstr(v1, "MiB") ? n << 20 : n << 10;
    }
    r.status = GB_STATUS_OK;
    snprintf(r.metric, sizeof r.metric, "%s", strcmp(unit, "GB/s") ? "throughput" : "bandwidth");
    snprintf(r.unit, sizeof r.unit, "%s", unit);
    snprintf(r.regime, sizeof r.regime, "%s", regime);
    r.value = value;
    r.stats.median = r.stats.mean = value;
    r.stats.n = 5;
    r.stats.p5 = 0.9 * value;
    r.stats.p95 = 1.1 * value;
    r.op_time_us.median = r.op_time_us.mean = 1000.0 / value;
    r.verified = verified;
    r.implausible = implausible;
    if (strcmp(suite, "memory") == 0) { /* a point under the roofline */
        r.bytes_per_op = 1e6;
        r.flops_per_op = 1e5;
    }
    ASSERT_OK(gb_results_add(rs, &r));
}

TEST(report_headlines_take_like_with_like)
{
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    snprintf(rs.run.host, sizeof rs.run.host, "h");
    struct gb_device_info d = {0};
    snprintf(d.name, sizeof d.name, "pthread-test");
    snprintf(d.vendor, sizeof d.vendor, "AuthenticAMD");
    d.l2_bytes = 32 << 20;
    int idx;
    ASSERT_OK(gb_results_add_device(&rs, "opencl", 0, &d, &idx));
    /* Cache-resident triad (the higher figure) and memory-resident triad. */
    add_trusted(&rs, "memory", "triad", 82, "GB/s", "cache", true, false, "op", "size", "1MiB");
    add_trusted(&rs, "memory", "triad", 21, "GB/s", "memory", true, false, "op", "size", "64MiB");
    /* A memory-regime copy that is implausible, and one that is not. */
    add_trusted(&rs, "memory", "copy", 900, "GB/s", "memory", true, true, "op", "size", "64MiB");
    add_trusted(&rs, "memory", "copy", 19, "GB/s", "memory", true, false, "op", "size", "32MiB");
    /* Transfers: the small-copy peak (cache) and the sustained rate (memory). */
    add_trusted(&rs, "transfer", "h2d", 46.5, "GB/s", "cache", true, false, "op", "size", "64KiB");
    add_trusted(&rs, "transfer", "h2d", 10, "GB/s", "memory", true, false, "op", "size", "64MiB");
    rs.results[rs.nresults - 1].bytes_per_op = 64 << 20;
    /* Latency: the smallest copy's time (4 KiB: 25 us), not the lowest time (64 KiB: ~21.5 us,
     * the 46.5 GB/s point above). */
    rs.results[rs.nresults - 2].bytes_per_op = 64 << 10;
    add_trusted(&rs, "transfer", "h2d", 40, "GB/s", "cache", true, false, "op", "size", "4KiB");
    rs.results[rs.nresults - 1].bytes_per_op = 4 << 10;
    /* The same copy waited for (mode sync): its own row, never the async batch's. */
    add_trusted(&rs, "transfer", "h2d", 4, "GB/s", "cache", true, false, "op", "size", "4KiB");
    {
        struct gb_result *w = &rs.results[rs.nresults - 1];
        w->bytes_per_op = 4 << 10;
        /* the name in the result's own store: a later add that moves the array rebases it */
        snprintf(w->names_store[2], sizeof w->names_store[2], "mode");
        w->params.name[2] = w->names_store[2];
        w->params.v[2].type = GB_V_STR;
        snprintf(w->params.v[2].s, sizeof w->params.v[2].s, "sync");
        w->params.n = 3;
    }
    /* Arithmetic: f32 the like of f32 only; integers in GOP/s; an unverified GEMM and an
     * implausible f64 never reach a headline. */
    add_trusted(&rs, "compute", "f32", 100, "GFLOP/s", "", true, false, "prec", NULL, NULL);
    add_trusted(&rs, "gemm", "f32", 300, "GFLOP/s", "", false, false, "prec", NULL, NULL);
    add_trusted(&rs, "compute", "i32", 500, "GOP/s", "", true, false, "prec", NULL, NULL);
    add_trusted(&rs, "compute", "int8dot", 900, "GOP/s", "", true, false, "prec", NULL, NULL);
    add_trusted(&rs, "compute", "f64", 5000, "GFLOP/s", "", true, true, "prec", NULL, NULL);
    /* The workloads: a collective's best size, a decoder's tokens/s, a burn's f32 rate. */
    add_trusted(&rs, "collective", "allreduce", 3.5, "GB/s", "", true, false, "coll", "size",
                "64KiB");
    add_trusted(&rs, "collective", "allreduce", 7.5, "GB/s", "", true, false, "coll", "size",
                "16MiB");
    add_trusted(&rs, "llm", "tiny", 700, "tok/s", "", true, false, "model", NULL, NULL);
    add_trusted(&rs, "burn", "f32", 120, "GFLOP/s", "", true, false, "dtype", NULL, NULL);
    /* A power-pulse phase of the same burn with a higher median (cooler between pulses): never
     * the sustained figure. */
    add_trusted(&rs, "burn", "f32", 170, "GFLOP/s", "", true, false, "dtype", NULL, NULL);
    {
        struct gb_result *w = &rs.results[rs.nresults - 1];
        snprintf(w->names_store[1], sizeof w->names_store[1], "pulse");
        w->params.name[1] = w->names_store[1];
        w->params.v[1].type = GB_V_FLOAT;
        w->params.v[1].u.f = 1;
        w->params.n = 2;
    }
    const char *dir = gb_test_tmpdir();
    char path[1100];
    snprintf(path, sizeof path, "%s/r.json", dir);
    ASSERT_OK(gb_results_write(&rs, path));
    gb_results_free(&rs);
    int rc = sh("cd %s && %s report r.json -o rep 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report exit %d: %s", rc, out);
    char *csv = gb_test_slurp_in(dir, "rep/data/headline.csv");
    ASSERT_CONTAINS(csv, "Device memory; triad,21.0 GB/s (size=64MiB)");
    ASSERT_CONTAINS(csv, "Device memory; copy,19.0 GB/s (size=32MiB)");
    ASSERT_CONTAINS(csv, "H2D sustained,10.0 GB/s (size=64MiB)");
    ASSERT_CONTAINS(csv, "H2D small-copy peak,46.5 GB/s (size=64KiB)");
    ASSERT_CONTAINS(csv, "H2D time per copy; async batch (smallest copy),25.0 us (size=4KiB)");
    ASSERT_CONTAINS(csv, "H2D latency; one copy waited for (smallest copy),250 us (size=4KiB "
                         "mode=sync)");
    ASSERT_CONTAINS(csv, "Peak arithmetic (vector units); f32,100 GFLOP/s (prec=f32)");
    ASSERT_CONTAINS(csv, "Peak arithmetic (vector units); i32,500 GOP/s (prec=i32)");
    ASSERT_CONTAINS(csv, "Peak arithmetic (vector units); int8dot,900 GOP/s (prec=int8dot)");
    ASSERT_CONTAINS(csv, "All-reduce bus bandwidth (best size),7.5 GB/s (size=16MiB)");
    ASSERT_CONTAINS(csv, "LLM serving; output tokens/s,700 tok/s (model=tiny)");
    ASSERT_CONTAINS(csv, "Burn; f32 sustained,120 GFLOP/s");
    ASSERT(strstr(csv, "82") == NULL);
    ASSERT(strstr(csv, "300") == NULL);
    ASSERT(strstr(csv, "170") == NULL);
    ASSERT(strstr(csv, "5000") == NULL);
    ASSERT(strstr(csv, "f64") == NULL);
    free(csv);
    /* The device-memory bars leave the cache-resident triad (82 GB/s) out. */
    csv = gb_test_slurp_in(dir, "rep/data/memory_bandwidth.csv");
    ASSERT_CONTAINS(csv, "21");
    ASSERT(strstr(csv, "82") == NULL);
    free(csv);
    /* The roofline's memory roof is the memory-regime triad, its flat roof the f32 figure. */
    char *md = gb_test_slurp_in(dir, "rep/report.md");
    ASSERT_CONTAINS(md, "memory roof 21 GB/s, FP32 compute roof 100 GFLOP/s");
    free(md);
}

/* A memory roof with no kernel point under it (a copy declares bytes, no flops) and no
 * arithmetic peak: the roofline is still drawn (gnuplot crashed on a labels item over a block of
 * NaN only). */
TEST(report_roofline_without_kernel_points_is_drawn)
{
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    struct gb_device_info d = {0};
    snprintf(d.name, sizeof d.name, "pthread-test");
    d.l2_bytes = 32 << 20;
    int idx;
    ASSERT_OK(gb_results_add_device(&rs, "opencl", 0, &d, &idx));
    add_trusted(&rs, "memory", "copy", 19, "GB/s", "memory", true, false, "op", "size", "128MiB");
    rs.results[rs.nresults - 1].flops_per_op = 0;
    const char *dir = gb_test_tmpdir();
    char path[1100];
    snprintf(path, sizeof path, "%s/r.json", dir);
    ASSERT_OK(gb_results_write(&rs, path));
    gb_results_free(&rs);
    int rc = sh("cd %s && %s report r.json -o rep 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report exit %d: %s", rc, out);
    ASSERT(strstr(out, "could not be drawn") == NULL);
    char p[1200];
    snprintf(p, sizeof p, "%s/rep/charts/roofline.png", dir);
    ASSERT_MSG(access(p, F_OK) == 0, "no %s: %s", p, out);
    char *md = gb_test_slurp_in(dir, "rep/report.md");
    ASSERT_CONTAINS(md, "memory roof 19 GB/s; no arithmetic peak measured");
    free(md);
}

/* One knee: the report marks the knee the results name (gb_curve_knee), also
 * on a curve that is not monotonic: one high point at a small batch is no knee. */
TEST(report_knee_is_the_results_knee)
{
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    struct gb_device_info d = {0};
    snprintf(d.name, sizeof d.name, "pthread-test");
    int idx;
    ASSERT_OK(gb_results_add_device(&rs, "opencl", 0, &d, &idx));
    static const char *const sizes[] = {"4KiB",    "16KiB", "64KiB", "256KiB",
                                        "1024KiB", "4MiB",  "16MiB", "64MiB"};
    static const double y[] = {1, 9.5, 3, 5, 9.2, 9.6, 10, 10};
    for (size_t i = 0; i < 8; i++)
        add_trusted(&rs, "batching", "copies", y[i], "GB/s", "", true, false, "op", "size",
                    sizes[i]);
    /* one batch size of launches: no curve, and the reason says so (its results are here) */
    add_trusted(&rs, "batching", "launches", 4.2, "us", "", true, false, "op", "count", "64");
    const char *dir = gb_test_tmpdir();
    char path[1100];
    snprintf(path, sizeof path, "%s/r.json", dir);
    ASSERT_OK(gb_results_write(&rs, path));
    gb_results_free(&rs);
    int rc = sh("cd %s && %s report r.json -o rep 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "report exit %d: %s", rc, out);
    char *md = gb_test_slurp_in(dir, "rep/report.md");
    ASSERT_CONTAINS(md, "the knee is at size=1MiB (9.2 GB/s; asymptote 10)");
    free(md);
    /* Noise shown as measured: every point of a line chart with its p5-p95 spread. */
    char *csv = gb_test_slurp_in(dir, "rep/data/batching_1.csv");
    ASSERT_CONTAINS(csv, "# x,y,line,p5,p95");
    ASSERT_CONTAINS(csv, ",8.28,10.12\n");
    free(csv);
    char *gp = gb_test_slurp_in(dir, "rep/plots/batching_1.gp");
    ASSERT_CONTAINS(gp, "1:2:4:5 with yerrorbars");
    free(gp);
    csv = gb_test_slurp_in(dir, "rep/data/batching_2.csv");
    ASSERT_CONTAINS(csv,
                    "# no data: the launches results have no numeric batch axis with two values "
                    "or more");
    free(csv);
}
