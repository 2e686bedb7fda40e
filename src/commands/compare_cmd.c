/* gpubench — the compare, baseline and `calibrate --from` commands, and the A/A calibration
 * analysis (contracts in compare.h). They return exit statuses; only main.c exits. */
#include "compare/compare.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "base/error.h"
#include "base/util.h"

enum { EXIT_OK = 0, EXIT_USAGE = 2, EXIT_REGRESSION = 3 };

/* ---- compare ------------------------------------------------------------------------------- */

static void compare_usage(FILE *f)
{
    fprintf(f,
            "usage: gpubench compare BASE.json NEW.json [OPTIONS]\n"
            "  --threshold T            relative change that matters: 0.05 or 5%% (default 5%%)\n"
            "  --suite-threshold S=T    another threshold for suite S (repeatable)\n"
            "  --alpha A                significance level of the Mann-Whitney test (default "
            "0.01)\n"
            "  --fail-on-faster         a significant speed-up beyond the threshold fails too\n"
            "  --across-devices         compare results from different devices, paired in order\n"
            "  --markdown FILE, --json FILE, --junit FILE   also write these ('-': stdout)\n"
            "  --changes                the terminal table shows only rows that are not SAME\n"
            "  -q, --quiet              no terminal table\n"
            "exit status: 0 no regression, 3 regression, 2 bad input or usage\n");
}

/* Opens path for writing ("-": stdout). */
static FILE *open_out(const char *path)
{
    return strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
}

static int close_out(FILE *f)
{
    if (f == stdout)
        return fflush(f);
    return fclose(f);
}

typedef int (*writer_fn)(FILE *, const struct gb_comparison *);

static int write_to(const char *path, writer_fn fn, const struct gb_comparison *c)
{
    FILE *f = open_out(path);
    if (!f) {
        fprintf(stderr, "gpubench compare: cannot write %s: %s\n", path, strerror(errno));
        return EXIT_USAGE;
    }
    int rc = fn(f, c);
    if (close_out(f) != 0 || rc) {
        fprintf(stderr, "gpubench compare: cannot write %s: %s\n", path, strerror(errno));
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

int gb_cmd_compare(int argc, char **argv)
{
    struct gb_compare_opts o;
    gb_compare_opts_default(&o);
    const char *files[2] = {NULL, NULL}, *md = NULL, *json = NULL, *junit = NULL;
    size_t nfiles = 0;
    bool quiet = false, changes = false;
    for (int i = 1; i < argc; i++) {
        char err[256];
        int used = gb_compare_parse_option(argc, argv, i, &o, err, sizeof err);
        if (used < 0) {
            fprintf(stderr, "gpubench compare: %s\n", err);
            return EXIT_USAGE;
        }
        if (used > 0) {
            i += used - 1;
            continue;
        }
        const char *a = argv[i];
        const char **slot = strcmp(a, "--markdown") == 0 || strcmp(a, "--md") == 0 ? &md
                            : strcmp(a, "--json") == 0                             ? &json
                            : strcmp(a, "--junit") == 0                            ? &junit
                                                                                   : NULL;
        if (slot) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gpubench compare: %s needs a FILE\n", a);
                return EXIT_USAGE;
            }
            *slot = argv[++i];
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = true;
        } else if (strcmp(a, "--changes") == 0) {
            changes = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            compare_usage(stdout);
            return EXIT_OK;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gpubench compare: unknown option '%s'\n", a);
            compare_usage(stderr);
            return EXIT_USAGE;
        } else if (nfiles < 2) {
            files[nfiles++] = a;
        } else {
            fprintf(stderr, "gpubench compare: expects exactly two files, BASE and NEW\n");
            return EXIT_USAGE;
        }
    }
    if (nfiles != 2) {
        fprintf(stderr, "gpubench compare: expects two results files, BASE and NEW\n");
        compare_usage(stderr);
        return EXIT_USAGE;
    }
    struct gb_results rs[2];
    memset(rs, 0, sizeof rs);
    for (int k = 0; k < 2; k++) {
        gb_error_clear();
        if (gb_results_read(files[k], &rs[k])) {
            fprintf(stderr, "gpubench compare: %s\n", gb_error_msg());
            if (k)
                gb_results_free(&rs[0]);
            return EXIT_USAGE;
        }
    }
    struct gb_comparison c;
    int rc = EXIT_OK;
    gb_error_clear();
    if (gb_compare_results(&rs[0], files[0], &rs[1], files[1], &o, &c)) {
        fprintf(stderr, "gpubench compare: %s\n", gb_error_msg());
        rc = EXIT_USAGE;
        goto out;
    }
    bool to_stdout = (md && strcmp(md, "-") == 0) || (json && strcmp(json, "-") == 0) ||
                     (junit && strcmp(junit, "-") == 0);
    if (!quiet && !to_stdout)
        gb_compare_write_text(stdout, &c, changes);
    int wr = EXIT_OK;
    if (md && (wr = write_to(md, gb_compare_write_markdown, &c)))
        rc = wr;
    if (json && (wr = write_to(json, gb_compare_write_json, &c)))
        rc = wr;
    if (junit && (wr = write_to(junit, gb_compare_write_junit, &c)))
        rc = wr;
    if (rc == EXIT_OK && c.regressions)
        rc = EXIT_REGRESSION;
    gb_comparison_free(&c);
out:
    gb_results_free(&rs[0]);
    gb_results_free(&rs[1]);
    return rc;
}

/* ---- baseline ------------------------------------------------------------------------------ */

/* Appends s to buf lowercased, each run of characters other than [a-z0-9.] as one '-'. */
static void slug_append(char *buf, size_t len, const char *s)
{
    size_t l = strlen(buf);
    bool dash = l > 0 && buf[l - 1] == '-';
    for (; *s && l + 1 < len; s++) {
        unsigned char ch = (unsigned char)*s;
        if (isalnum(ch) || ch == '.') {
            buf[l++] = (char)tolower(ch);
            dash = false;
        } else if (!dash && l > 0) {
            buf[l++] = '-';
            dash = true;
        }
    }
    while (l > 0 && buf[l - 1] == '-')
        l--;
    buf[l] = '\0';
}

void gb_baseline_name(const struct gb_results *rs, char *buf, size_t len)
{
    char slug[512] = "";
    slug_append(slug, 128, rs->run.host[0] ? rs->run.host : "host");
    gb_appendf(slug, sizeof slug, "-");
    bool any = false;
    for (size_t d = 0; d < rs->ndevices; d++) {
        bool seen = false;
        for (size_t e = 0; e < d; e++)
            seen |= strcmp(rs->devices[e].info.name, rs->devices[d].info.name) == 0;
        if (seen)
            continue;
        if (any)
            gb_appendf(slug, sizeof slug, "+");
        /* A device name adds at most 80 characters, so several still fit in a file name. */
        char one[96] = "";
        slug_append(one, sizeof one - 16, rs->devices[d].info.name);
        gb_appendf(slug, sizeof slug, "%s", one);
        any = true;
    }
    if (!any)
        gb_appendf(slug, sizeof slug, "nodevice");
    /* One baseline per profile: a nightly job running two profiles on one machine compares each
     * against its own. */
    if (rs->run.profile_name[0]) {
        char prof[80] = "";
        slug_append(prof, sizeof prof, rs->run.profile_name);
        gb_appendf(slug, sizeof slug, "-%s", prof);
    }
    snprintf(buf, len, "%.240s.json", slug);
}

/* Copies src to dst through a temporary file in dst's folder, fsync'd and renamed, so the
 * baseline is always either the old file or the whole new one. */
static int copy_atomic(const char *src, const char *dst, char *err, size_t errlen)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", dst, (long)getpid());
    FILE *in = fopen(src, "rb");
    if (!in) {
        snprintf(err, errlen, "cannot read %s: %s", src, strerror(errno));
        return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        fclose(in);
        return -1;
    }
    char buf[65536];
    size_t got;
    int rc = 0;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0) {
        for (size_t off = 0; off < got;) {
            ssize_t w = write(fd, buf + off, got - off);
            if (w < 0) {
                if (errno == EINTR)
                    continue;
                rc = -1;
                break;
            }
            off += (size_t)w;
        }
        if (rc)
            break;
    }
    if (ferror(in))
        rc = -1;
    if (!rc && fsync(fd) != 0)
        rc = -1;
    if (close(fd) != 0)
        rc = -1;
    fclose(in);
    if (!rc && rename(tmp, dst) != 0)
        rc = -1;
    if (rc) {
        snprintf(err, errlen, "cannot write %s: %s", dst, strerror(errno));
        unlink(tmp);
    }
    return rc;
}

int gb_cmd_baseline(int argc, char **argv)
{
    const char *file = NULL, *dir = "results/baselines";
    bool print_path = false, force = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--dir") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(a, "--print-path") == 0) {
            print_path = true;
        } else if (strcmp(a, "--force") == 0) {
            force = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("usage: gpubench baseline RESULTS.json [--dir DIR] [--print-path] [--force]\n"
                   "  promotes a run to the baseline DIR/<host>-<device>-<profile>.json (DIR default "
                   "results/baselines)\n"
                   "  --print-path  only print the baseline path this run belongs to\n"
                   "  --force       promote an interrupted run too\n");
            return EXIT_OK;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gpubench baseline: unknown option or missing value '%s'\n", a);
            return EXIT_USAGE;
        } else if (!file) {
            file = a;
        } else {
            fprintf(stderr, "gpubench baseline: expects one results file\n");
            return EXIT_USAGE;
        }
    }
    if (!file) {
        fprintf(stderr, "gpubench baseline: missing RESULTS.json\n");
        return EXIT_USAGE;
    }
    struct gb_results rs;
    gb_error_clear();
    if (gb_results_read(file, &rs)) {
        fprintf(stderr, "gpubench baseline: %s\n", gb_error_msg());
        return EXIT_USAGE;
    }
    char name[512], path[4096];
    gb_baseline_name(&rs, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t failed = 0, ok = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        failed += rs.results[i].status == GB_STATUS_FAILED;
        ok += rs.results[i].status == GB_STATUS_OK;
    }
    bool interrupted = rs.run.interrupted;
    gb_results_free(&rs);
    if (print_path) {
        printf("%s\n", path);
        return EXIT_OK;
    }
    if (interrupted && !force) {
        fprintf(stderr, "gpubench baseline: %s is an interrupted run; a baseline should be "
                        "complete (--force to promote it anyway)\n", file);
        return EXIT_USAGE;
    }
    if (ok == 0) {
        fprintf(stderr, "gpubench baseline: %s has no ok result to compare against\n", file);
        return EXIT_USAGE;
    }
    if (gb_mkdir_p(dir, 0777) != 0) {
        fprintf(stderr, "gpubench baseline: cannot create %s: %s\n", dir, strerror(errno));
        return EXIT_USAGE;
    }
    char err[8400];
    if (copy_atomic(file, path, err, sizeof err)) {
        fprintf(stderr, "gpubench baseline: %s\n", err);
        return EXIT_USAGE;
    }
    printf("baseline: %s -> %s (%zu ok results", file, path, ok);
    if (failed)
        printf(", %zu failed: they will compare as FAILED in both, not as regressions", failed);
    printf(")\n");
    return EXIT_OK;
}

/* ---- A/A calibration ----------------------------------------------------------------------- */

struct calib_case {
    char key[1600];
    char suite[32], case_name[64], device[256], params[512], unit[16];
    double min_med, max_med; /* over every run */
    double noise;            /* largest within-run noise seen */
    double needed;           /* smallest threshold with no false alarm */
    size_t pairs, alarms, unstable;
};

struct calib {
    struct calib_case *c;
    size_t n, cap;
};

static struct calib_case *calib_find(struct calib *cb, const struct gb_compare_row *row)
{
    const struct gb_result *r = row->base;
    char key[1600];
    snprintf(key, sizeof key, "%s\x1f%s\x1f%s\x1f%s\x1f%s", r->suite, r->case_name, r->backend,
             row->device, row->params);
    /* Room for one more first, so that a new key always has its place. */
    struct calib_case *g = gb_grow(cb->c, &cb->cap, cb->n + 1, sizeof *g);
    if (!g)
        return NULL;
    cb->c = g;
    bool added;
    size_t i = gb_find_or_add_str(cb->c, &cb->n, cb->cap, sizeof *cb->c,
                                  offsetof(struct calib_case, key), sizeof cb->c->key, key, &added);
    struct calib_case *k = &cb->c[i];
    if (!added)
        return k;
    snprintf(k->suite, sizeof k->suite, "%s", r->suite);
    snprintf(k->case_name, sizeof k->case_name, "%s", r->case_name);
    snprintf(k->device, sizeof k->device, "%s", row->device);
    snprintf(k->params, sizeof k->params, "%s", row->params);
    snprintf(k->unit, sizeof k->unit, "%s", r->unit);
    k->min_med = INFINITY;
    k->max_med = -INFINITY;
    return k;
}

static int by_needed(const void *a, const void *b)
{
    double x = ((const struct calib_case *)a)->needed, y = ((const struct calib_case *)b)->needed;
    return (x < y) - (x > y);
}

/* The suggested threshold for a no-alarm threshold t: 1.5 t rounded up to a whole percent, at
 * least 1%. A handful of A/A runs samples the run-to-run noise lightly (the next night's may be
 * a little worse), hence the margin; it is a rule of thumb, and the report says so. */
static double suggest(double t)
{
    double s = ceil(150.0 * t) / 100.0;
    return s < 0.01 ? 0.01 : s;
}

int gb_calibrate_report(FILE *f, const struct gb_results *runs, const char *const *paths,
                        size_t n, const struct gb_compare_opts *o, const char *json_path)
{
    if (n < 2)
        return gb_error_set(GB_EINVAL, NULL, 0,
                            "calibration needs at least 2 runs of the profile (got %zu)", n);
    struct calib cb = {0};
    int rc = 0;
    size_t comparisons = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        for (size_t j = 0; j < n && !rc; j++) {
            if (i == j)
                continue;
            struct gb_comparison c;
            if ((rc = gb_compare_results(&runs[i], paths[i], &runs[j], paths[j], o, &c)))
                break;
            comparisons++;
            for (size_t k = 0; k < c.nrows; k++) {
                const struct gb_compare_row *row = &c.rows[k];
                if (!row->base || !row->next || row->base->status != GB_STATUS_OK ||
                    row->next->status != GB_STATUS_OK)
                    continue;
                struct calib_case *cc = calib_find(&cb, row);
                if (!cc) {
                    rc = GB_FAIL(GB_ENOMEM, "calibration table");
                    break;
                }
                const struct gb_judgement *jd = &row->j;
                cc->pairs++;
                cc->alarms += row->regression;
                cc->unstable += jd->verdict == GB_VERDICT_UNSTABLE;
                if (isfinite(jd->noise) && jd->noise > cc->noise)
                    cc->noise = jd->noise;
                double meds[2] = {jd->base_median, jd->next_median};
                for (int m = 0; m < 2; m++) {
                    if (meds[m] < cc->min_med)
                        cc->min_med = meds[m];
                    if (meds[m] > cc->max_med)
                        cc->max_med = meds[m];
                }
                if (jd->p < o->alpha && isfinite(jd->ratio) && jd->ratio > 0.0) {
                    double need = jd->ratio < 1.0 ? 1.0 / jd->ratio - 1.0
                                  : o->fail_on_faster ? jd->ratio - 1.0
                                                      : 0.0;
                    if (need > cc->needed)
                        cc->needed = need;
                }
            }
            gb_comparison_free(&c);
        }
    }
    if (rc) {
        free(cb.c);
        return rc;
    }
    if (cb.n == 0) {
        free(cb.c);
        return gb_error_set(GB_EINVAL, NULL, 0, "the runs have no ok case in common");
    }
    qsort(cb.c, cb.n, sizeof *cb.c, by_needed);

    fprintf(f, "A/A calibration: %zu runs of profile '%s' on host %s, %zu ordered comparisons "
               "per case, alpha %g\n",
            n, runs[0].run.profile_name, runs[0].run.host, comparisons, o->alpha);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "  run %zu: %s\n", i + 1, paths[i]);
    fprintf(f, "%-9s %-10s %-24s %-36s %24s %10s %7s %9s %10s\n", "suite", "case", "device",
            "params", "medians (min..max)", "run-to-run", "noise", "alarms", "no-alarm");
    size_t alarm_cases = 0, alarms = 0;
    for (size_t i = 0; i < cb.n; i++) {
        const struct calib_case *k = &cb.c[i];
        char med[64], alarm[32];
        snprintf(med, sizeof med, "%.4g..%.4g %s", k->min_med, k->max_med, k->unit);
        snprintf(alarm, sizeof alarm, "%zu/%zu", k->alarms, k->pairs);
        fprintf(f, "%-9s %-10s %-24.24s %-36s %24s %9.1f%% %6.1f%% %9s %9.1f%%\n", k->suite,
                k->case_name, k->device, k->params, med,
                k->min_med > 0 ? 100.0 * (k->max_med / k->min_med - 1.0) : 0.0, 100.0 * k->noise,
                alarm, 100.0 * k->needed);
        alarm_cases += k->alarms > 0;
        alarms += k->alarms;
    }
    fprintf(f, "\nrun-to-run: the spread of the medians over the runs (max / min - 1); noise: the "
               "largest within-run relative CI95 half-width;\nalarms: comparisons that would have "
               "failed the gate at the current thresholds; no-alarm: the smallest threshold that "
               "raises none.\n\n");
    fprintf(f, "At the current thresholds (default %.3g%%): %zu false alarm%s in %zu of %zu "
               "cases.\n",
            100.0 * o->threshold, alarms, alarms == 1 ? "" : "s", alarm_cases, cb.n);

    /* Per suite: the largest no-alarm threshold of its cases, and the case that sets it. */
    json_t *jsuites = json_object();
    double global = 0.0;
    fprintf(f, "No false alarm in these runs with thresholds of at least:");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "gpubench compare BASE NEW");
    double max_suggest = 0.0;
    for (size_t i = 0; i < cb.n; i++) {
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(cb.c[k].suite, cb.c[i].suite) == 0;
        if (seen)
            continue;
        /* Sorted by needed, descending: the first case of a suite sets its threshold. */
        const struct calib_case *k = &cb.c[i];
        fprintf(f, "%s %s %.1f%% (%s%s%s)", i ? "," : "", k->suite, 100.0 * k->needed,
                k->case_name, k->params[0] ? " " : "", k->params);
        if (k->needed > global)
            global = k->needed;
        double s = suggest(k->needed);
        if (s > max_suggest)
            max_suggest = s;
        json_object_set_new(jsuites, k->suite,
                            json_pack("{s:f, s:f, s:s, s:s}", "no_alarm_threshold", k->needed,
                                      "suggested_threshold", s, "worst_case", k->case_name,
                                      "worst_params", k->params));
    }
    fprintf(f, ".\n");
    /* Suggest a default that covers the quietest suites, and per-suite overrides for the rest. */
    double base_t = 0.0;
    for (size_t i = 0; i < cb.n; i++) {
        double s = suggest(cb.c[i].needed);
        if (i == 0 || s < base_t)
            base_t = s;
    }
    if (base_t < o->threshold)
        base_t = o->threshold;
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " --threshold %.2f", base_t);
    for (size_t i = 0; i < cb.n; i++) {
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(cb.c[k].suite, cb.c[i].suite) == 0;
        double s = suggest(cb.c[i].needed);
        if (!seen && s > base_t)
            snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " --suite-threshold %s=%.2f",
                     cb.c[i].suite, s);
    }
    fprintf(f, "Suggested (1.5x margin, rounded up; %zu runs sample the noise only lightly, so "
               "repeat the calibration on a busy day too):\n  %s\n",
            n, cmd);

    if (json_path) {
        json_t *root = json_object();
        json_object_set_new(root, "schema", json_string("gpubench-calibration/1"));
        json_object_set_new(root, "runs", json_integer((json_int_t)n));
        json_object_set_new(root, "alpha", json_real(o->alpha));
        json_object_set_new(root, "threshold", json_real(o->threshold));
        json_object_set_new(root, "false_alarms", json_integer((json_int_t)alarms));
        json_object_set_new(root, "no_alarm_threshold", json_real(global));
        json_object_set_new(root, "suggested_command", json_string(cmd));
        json_object_set_new(root, "suites", jsuites);
        jsuites = NULL;
        json_t *cases = json_array();
        for (size_t i = 0; i < cb.n; i++) {
            const struct calib_case *k = &cb.c[i];
            json_array_append_new(
                cases, json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:I, s:I}",
                                 "suite", k->suite, "case", k->case_name, "device", k->device,
                                 "params", k->params, "unit", k->unit, "min_median", k->min_med,
                                 "max_median", k->max_med, "noise", k->noise,
                                 "no_alarm_threshold", k->needed, "alarms",
                                 (json_int_t)k->alarms, "pairs", (json_int_t)k->pairs));
        }
        json_object_set_new(root, "cases", cases);
        if (json_dump_file(root, json_path, JSON_INDENT(2)) != 0)
            rc = gb_error_set(GB_EIO, NULL, 0, "cannot write %s: %s", json_path, strerror(errno));
        json_decref(root);
    }
    json_decref(jsuites);
    free(cb.c);
    if (!rc && ferror(f))
        rc = GB_FAIL(GB_EIO, "writing the calibration");
    return rc;
}

int gb_cmd_calibrate_files(int argc, char **argv)
{
    struct gb_compare_opts o;
    gb_compare_opts_default(&o);
    const char *json = NULL;
    const char **paths = calloc((size_t)argc, sizeof *paths);
    size_t n = 0;
    if (!paths)
        return EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        char err[256];
        int used = gb_compare_parse_option(argc, argv, i, &o, err, sizeof err);
        if (used < 0) {
            fprintf(stderr, "gpubench calibrate: %s\n", err);
            free(paths);
            return EXIT_USAGE;
        }
        if (used > 0) {
            i += used - 1;
        } else if (strcmp(argv[i], "--from") == 0) {
            continue;
        } else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
            json = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gpubench calibrate: unknown option '%s'\n", argv[i]);
            free(paths);
            return EXIT_USAGE;
        } else {
            paths[n++] = argv[i];
        }
    }
    if (n < 2) {
        fprintf(stderr, "gpubench calibrate --from: needs at least two results files of one "
                        "profile\n");
        free(paths);
        return EXIT_USAGE;
    }
    struct gb_results *rs = calloc(n, sizeof *rs);
    int rc = EXIT_OK;
    size_t nread = 0;
    if (!rs) {
        free(paths);
        return EXIT_USAGE;
    }
    for (; nread < n; nread++) {
        gb_error_clear();
        if (gb_results_read(paths[nread], &rs[nread])) {
            fprintf(stderr, "gpubench calibrate: %s\n", gb_error_msg());
            rc = EXIT_USAGE;
            break;
        }
    }
    if (rc == EXIT_OK) {
        gb_error_clear();
        if (gb_calibrate_report(stdout, rs, paths, n, &o, json)) {
            fprintf(stderr, "gpubench calibrate: %s\n", gb_error_msg());
            rc = EXIT_USAGE;
        }
    }
    for (size_t i = 0; i < nread; i++)
        gb_results_free(&rs[i]);
    free(rs);
    free(paths);
    return rc;
}
