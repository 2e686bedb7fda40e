/* Tests of src/results/results*.c: the JSON round trip, atomic writes, and readable schema
 * errors. */
#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "results/results.h"
#include "test.h"

/* out = a + b, failing the test when it does not fit. */
static void join(char *out, size_t cap, const char *a, const char *b)
{
    int n = snprintf(out, cap, "%s%s", a, b);
    ASSERT(n >= 0 && (size_t)n < cap);
}

static void spit(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    ASSERT_MSG(f != NULL, "cannot create %s", path);
    ASSERT(fwrite(text, 1, n, f) == n);
    ASSERT(fclose(f) == 0);
}

/* Entries of dir other than . and .., written into names (space-separated). */
static size_t list_dir(const char *dir, char *names, size_t cap)
{
    DIR *d = opendir(dir);
    ASSERT(d != NULL);
    size_t n = 0;
    names[0] = '\0';
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        strncat(names, e->d_name, cap - strlen(names) - 2);
        strcat(names, " ");
    }
    closedir(d);
    return n;
}

static void set_stats(struct gb_stats *st, size_t n, double base)
{
    st->n = n;
    st->min = base;
    st->max = base * 1.5;
    st->mean = base * 1.1;
    st->median = base * 1.05;
    st->stddev = base * 0.01;
    st->cv = 0.01 / 1.1;
    st->p5 = base * 1.01;
    st->p95 = base * 1.4;
    st->ci95 = base * 0.003;
}

/* A results set with two devices and three results (ok, skipped, failed with non-finite
 * numbers), exercising every field. */
static void make_results(struct gb_results *rs)
{
    memset(rs, 0, sizeof *rs);
    struct gb_run_meta *m = &rs->run;
    snprintf(m->gpubench_version, sizeof m->gpubench_version, "0.1.0");
    snprintf(m->git_commit, sizeof m->git_commit, "0123456789ab");
    snprintf(m->start_utc, sizeof m->start_utc, "2026-11-30T04:00:00Z");
    snprintf(m->end_utc, sizeof m->end_utc, "2026-11-30T04:05:00Z");
    snprintf(m->host, sizeof m->host, "bench-01");
    snprintf(m->os, sizeof m->os, "Linux 6.8.0 x86_64");
    snprintf(m->command_line, sizeof m->command_line, "gpubench run -p \"quick\" --out r.json");
    snprintf(m->profile_path, sizeof m->profile_path, "profiles/quick.yaml");
    snprintf(m->profile_name, sizeof m->profile_name, "quick");
    snprintf(m->profile_sha256, sizeof m->profile_sha256, "%064d", 7);
    m->interrupted = true;

    struct gb_device_info a = {0};
    snprintf(a.name, sizeof a.name, "NVIDIA H200");
    snprintf(a.vendor, sizeof a.vendor, "NVIDIA Corporation");
    snprintf(a.driver, sizeof a.driver, "560.35.03");
    snprintf(a.version, sizeof a.version, "CUDA 9.0");
    snprintf(a.arch, sizeof a.arch, "sm_90");
    a.global_mem = UINT64_C(150) << 30;
    a.max_alloc = UINT64_C(140) << 30;
    a.local_mem = 228 << 10;
    a.l2_bytes = 60 << 20;
    a.compute_units = 132;
    a.clock_mhz = 1980;
    a.mem_clock_mhz = 3201;
    a.mem_bus_bits = 6144;
    a.max_wg_size = 1024;
    a.max_wg_dims[0] = 1024;
    a.max_wg_dims[1] = 1024;
    a.max_wg_dims[2] = 64;
    a.warp_size = 32;
    a.peak_mem_gbs = 4915.2;
    a.caps = GB_CAP_FP64 | GB_CAP_FP16 | GB_CAP_BLAS_TF32 | GB_CAP_GRAPH;
    int idx = -1;
    ASSERT_OK(gb_results_add_device(rs, "cuda", 0, &a, &idx));
    ASSERT_EQ(idx, 0);

    struct gb_device_info b = {0};
    snprintf(b.name, sizeof b.name, "cpu-haswell-AMD EPYC");
    snprintf(b.platform, sizeof b.platform, "Portable Computing Language");
    b.peak_mem_gbs = NAN; /* unknown, badly reported: must not leak */
    b.warp_size = 1;
    ASSERT_OK(gb_results_add_device(rs, "opencl", 3, &b, &idx));
    ASSERT_EQ(idx, 1);

    /* Param names from a buffer that is overwritten afterwards: the set must own its copy. */
    char namebuf[4][32] = {"op", "size", "threads", "ratio"};

    struct gb_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.suite, sizeof r.suite, "memory");
    snprintf(r.case_name, sizeof r.case_name, "triad");
    snprintf(r.backend, sizeof r.backend, "cuda");
    r.device_index = 0;
    r.params.n = 5;
    r.params.name[0] = namebuf[0];
    r.params.v[0].type = GB_V_STR;
    snprintf(r.params.v[0].s, sizeof r.params.v[0].s, "triad");
    r.params.name[1] = namebuf[1];
    r.params.v[1].type = GB_V_SIZE;
    r.params.v[1].u.size = UINT64_C(5) << 30; /* 5 GiB: needs 64 bits */
    r.params.name[2] = namebuf[2];
    r.params.v[2].type = GB_V_INT;
    r.params.v[2].u.i = -256;
    r.params.name[3] = namebuf[3];
    r.params.v[3].type = GB_V_FLOAT;
    r.params.v[3].u.f = 0.1;
    r.params.name[4] = "pinned"; /* a static string */
    r.params.v[4].type = GB_V_BOOL;
    r.params.v[4].u.b = true;
    r.status = GB_STATUS_OK;
    snprintf(r.metric, sizeof r.metric, "bandwidth");
    snprintf(r.unit, sizeof r.unit, "GB/s");
    r.better = GB_BETTER_HIGHER;
    r.value = 4012.5;
    set_stats(&r.stats, 4, 4000.0);
    set_stats(&r.op_time_us, 4, 12.5);
    r.nsamples = 4;
    r.samples = malloc(4 * sizeof *r.samples);
    ASSERT(r.samples != NULL);
    r.samples[0] = 4012.345678901234;
    r.samples[1] = 0.1;
    r.samples[2] = 1e300;
    r.samples[3] = 4.9e-324; /* the smallest subnormal survives the text form */
    r.batch = UINT64_C(1) << 40;
    r.bytes_per_op = 3.0 * (double)(UINT64_C(5) << 30);
    r.flops_per_op = 2.0 * (double)(UINT64_C(5) << 30) / 8.0;
    r.verified = true;
    r.max_error = 1.5e-7;
    r.noisy = false;
    r.implausible = true;
    r.elapsed_s = 2.25;
    ASSERT_OK(gb_results_add(rs, &r));
    ASSERT(r.samples == NULL); /* ownership taken */
    memset(namebuf, 'X', sizeof namebuf);

    memset(&r, 0, sizeof r);
    snprintf(r.suite, sizeof r.suite, "transfer");
    snprintf(r.case_name, sizeof r.case_name, "d2d");
    snprintf(r.backend, sizeof r.backend, "opencl");
    r.device_index = 1;
    r.params.n = 1;
    r.params.name[0] = "op";
    r.params.v[0].type = GB_V_STR;
    snprintf(r.params.v[0].s, sizeof r.params.v[0].s, "d2d");
    r.status = GB_STATUS_SKIPPED;
    snprintf(r.reason, sizeof r.reason, "size 5GiB exceeds max_alloc 1GiB; \"quoted\"\nnewline");
    snprintf(r.metric, sizeof r.metric, "latency");
    snprintf(r.unit, sizeof r.unit, "us");
    r.better = GB_BETTER_LOWER;
    ASSERT_OK(gb_results_add(rs, &r));

    memset(&r, 0, sizeof r);
    snprintf(r.suite, sizeof r.suite, "memory");
    snprintf(r.case_name, sizeof r.case_name, "copy");
    snprintf(r.backend, sizeof r.backend, "opencl");
    r.device_index = 1;
    r.status = GB_STATUS_FAILED;
    snprintf(r.reason, sizeof r.reason, "verify: element 17 is 2.5, expected 3");
    snprintf(r.metric, sizeof r.metric, "bandwidth");
    snprintf(r.unit, sizeof r.unit, "GB/s");
    r.value = NAN;
    set_stats(&r.stats, 1, 10.0);
    r.stats.ci95 = INFINITY; /* what gb_stats_compute gives for one sample */
    r.stats.cv = NAN;
    r.nsamples = 1;
    r.samples = malloc(sizeof *r.samples);
    r.samples[0] = 10.0;
    r.max_error = INFINITY;
    r.elapsed_s = -INFINITY;
    ASSERT_OK(gb_results_add(rs, &r));
}

static void assert_same_stats(const struct gb_stats *a, const struct gb_stats *b)
{
    ASSERT_EQ(a->n, b->n);
    const double *x[] = {&a->min, &a->max, &a->mean, &a->median, &a->stddev,
                         &a->cv,  &a->p5,  &a->p95,  &a->ci95};
    const double *y[] = {&b->min, &b->max, &b->mean, &b->median, &b->stddev,
                         &b->cv,  &b->p5,  &b->p95,  &b->ci95};
    for (size_t i = 0; i < 9; i++)
        ASSERT_MSG(*x[i] == *y[i] || (isnan(*x[i]) && isnan(*y[i])),
                   "stats field %zu: %.17g vs %.17g", i, *x[i], *y[i]);
}

TEST(results_round_trip)
{
    struct gb_results rs, back;
    make_results(&rs);
    char path[4096];
    join(path, sizeof path, gb_test_tmpdir(), "/results.json");
    ASSERT_OK(gb_results_write(&rs, path));
    ASSERT_OK(gb_results_read(path, &back));

    const struct gb_run_meta *m = &back.run;
    ASSERT_STR(m->gpubench_version, "0.1.0");
    ASSERT_STR(m->git_commit, "0123456789ab");
    ASSERT_STR(m->start_utc, "2026-11-30T04:00:00Z");
    ASSERT_STR(m->end_utc, "2026-11-30T04:05:00Z");
    ASSERT_STR(m->host, "bench-01");
    ASSERT_STR(m->os, "Linux 6.8.0 x86_64");
    ASSERT_STR(m->command_line, rs.run.command_line);
    ASSERT_STR(m->profile_path, "profiles/quick.yaml");
    ASSERT_STR(m->profile_name, "quick");
    ASSERT_STR(m->profile_sha256, rs.run.profile_sha256);
    ASSERT(m->interrupted);

    ASSERT_EQ(back.ndevices, 2);
    for (size_t i = 0; i < 2; i++) {
        const struct gb_result_device *a = &rs.devices[i], *b = &back.devices[i];
        ASSERT_STR(a->backend, b->backend);
        ASSERT_EQ(a->index, b->index);
        ASSERT_STR(a->info.name, b->info.name);
        ASSERT_STR(a->info.vendor, b->info.vendor);
        ASSERT_STR(a->info.driver, b->info.driver);
        ASSERT_STR(a->info.version, b->info.version);
        ASSERT_STR(a->info.platform, b->info.platform);
        ASSERT_STR(a->info.arch, b->info.arch);
        ASSERT_U64(a->info.global_mem, ==, b->info.global_mem);
        ASSERT_U64(a->info.max_alloc, ==, b->info.max_alloc);
        ASSERT_U64(a->info.local_mem, ==, b->info.local_mem);
        ASSERT_U64(a->info.l2_bytes, ==, b->info.l2_bytes);
        ASSERT_EQ(a->info.compute_units, b->info.compute_units);
        ASSERT_EQ(a->info.clock_mhz, b->info.clock_mhz);
        ASSERT_EQ(a->info.mem_clock_mhz, b->info.mem_clock_mhz);
        ASSERT_EQ(a->info.mem_bus_bits, b->info.mem_bus_bits);
        ASSERT_EQ(a->info.max_wg_size, b->info.max_wg_size);
        for (int d = 0; d < 3; d++)
            ASSERT_EQ(a->info.max_wg_dims[d], b->info.max_wg_dims[d]);
        ASSERT_EQ(a->info.warp_size, b->info.warp_size);
        ASSERT_U64(a->info.caps, ==, b->info.caps);
    }
    ASSERT_NEAR(back.devices[0].info.peak_mem_gbs, 4915.2, 0);
    ASSERT(isnan(back.devices[1].info.peak_mem_gbs) || back.devices[1].info.peak_mem_gbs == 0);
    ASSERT_U64(back.devices[0].info.global_mem, ==, UINT64_C(150) << 30);

    ASSERT_EQ(back.nresults, 3);
    for (size_t k = 0; k < 3; k++) {
        const struct gb_result *a = &rs.results[k], *b = &back.results[k];
        ASSERT_STR(a->suite, b->suite);
        ASSERT_STR(a->case_name, b->case_name);
        ASSERT_STR(a->backend, b->backend);
        ASSERT_EQ(a->device_index, b->device_index);
        ASSERT_EQ(a->status, b->status);
        ASSERT_STR(a->reason, b->reason);
        ASSERT_STR(a->metric, b->metric);
        ASSERT_STR(a->unit, b->unit);
        ASSERT_EQ(a->better, b->better);
        ASSERT(a->value == b->value || (isnan(a->value) && isnan(b->value)));
        assert_same_stats(&a->stats, &b->stats);
        assert_same_stats(&a->op_time_us, &b->op_time_us);
        ASSERT_EQ(a->nsamples, b->nsamples);
        for (size_t i = 0; i < a->nsamples; i++)
            ASSERT_MSG(a->samples[i] == b->samples[i], "sample %zu: %.17g vs %.17g", i,
                       a->samples[i], b->samples[i]);
        ASSERT_U64(a->batch, ==, b->batch);
        ASSERT(a->bytes_per_op == b->bytes_per_op);
        ASSERT(a->flops_per_op == b->flops_per_op);
        ASSERT_EQ(a->verified, b->verified);
        ASSERT_EQ(a->noisy, b->noisy);
        ASSERT_EQ(a->implausible, b->implausible);
        ASSERT_EQ(a->params.n, b->params.n);
        for (size_t j = 0; j < a->params.n; j++) {
            ASSERT_STR(a->params.name[j], b->params.name[j]);
            ASSERT(b->params.name[j] == b->names_store[j]); /* owned by the result */
        }
    }
    /* The finite ones are exact, the non-finite ones came back as documented. */
    ASSERT(rs.results[0].max_error == back.results[0].max_error);
    ASSERT(rs.results[0].elapsed_s == back.results[0].elapsed_s);
    ASSERT(isnan(back.results[2].value));
    ASSERT(isinf(back.results[2].stats.ci95)); /* null ci95 reads back as unbounded */
    ASSERT(isnan(back.results[2].stats.cv));
    ASSERT(isnan(back.results[2].max_error));
    ASSERT(isnan(back.results[2].elapsed_s));

    /* Params: a size axis of a known suite comes back as a size, with all 64 bits; other
     * integers as integers. */
    const struct gb_params *p = &back.results[0].params;
    ASSERT_STR(p->name[0], "op");
    ASSERT_EQ(p->v[0].type, GB_V_STR);
    ASSERT_STR(p->v[0].s, "triad");
    ASSERT_STR(p->name[1], "size");
    ASSERT_EQ(p->v[1].type, GB_V_SIZE);
    ASSERT_U64(p->v[1].u.size, ==, UINT64_C(5) << 30);
    ASSERT_STR(p->name[2], "threads");
    ASSERT_EQ(p->v[2].type, GB_V_INT);
    ASSERT_INT(p->v[2].u.i, ==, -256);
    ASSERT_EQ(p->v[3].type, GB_V_FLOAT);
    ASSERT(p->v[3].u.f == 0.1);
    ASSERT_STR(p->name[4], "pinned");
    ASSERT_EQ(p->v[4].type, GB_V_BOOL);
    ASSERT(p->v[4].u.b);

    /* Written again from what was read, the file is the same byte for byte, except for the
     * non-finite values that already became null. */
    char path2[4096];
    join(path2, sizeof path2, path, "2");
    ASSERT_OK(gb_results_write(&back, path2));
    char *t1 = gb_test_slurp(path), *t2 = gb_test_slurp(path2);
    ASSERT(t1 && t2);
    ASSERT_MSG(strcmp(t1, t2) == 0, "rewriting changed the file");
    free(t1);
    free(t2);

    gb_results_free(&back);
    gb_results_free(&rs);
    ASSERT(rs.results == NULL && rs.nresults == 0 && rs.devices == NULL);
}

TEST(results_no_nonfinite_in_json)
{
    struct gb_results rs;
    make_results(&rs);
    char path[4096];
    join(path, sizeof path, gb_test_tmpdir(), "/r.json");
    ASSERT_OK(gb_results_write(&rs, path));
    char *text = gb_test_slurp(path);
    ASSERT(text != NULL);
    for (char *c = text; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    ASSERT_MSG(!strstr(text, "nan"), "NaN in the JSON");
    ASSERT_MSG(!strstr(text, "infinity"), "Infinity in the JSON");
    ASSERT_MSG(!strstr(text, ": inf"), "inf in the JSON");
    ASSERT_CONTAINS(text, "\"schema\": \"gpubench-results/2\"");
    ASSERT_CONTAINS(text, "\"ci95\":null");
    ASSERT_CONTAINS(text, "\"value\":null");
    ASSERT_CONTAINS(text, "\"size\":5368709120");
    ASSERT_CONTAINS(text, "\"device_name\":\"nvidia h200\"");
    ASSERT_CONTAINS(text, "\"better\":\"lower\"");
    ASSERT_CONTAINS(text, "\"status\":\"skipped\"");
    ASSERT_CONTAINS(text, "\"fp64\"");
    ASSERT_CONTAINS(text, "\"blas_tf32\"");
    free(text);
    gb_results_free(&rs);
}

TEST(results_add_grows_and_keeps_names)
{
    struct gb_results rs;
    memset(&rs, 0, sizeof rs);
    for (int k = 0; k < 100; k++) {
        char name[32];
        snprintf(name, sizeof name, "axis%d", k);
        struct gb_result r;
        memset(&r, 0, sizeof r);
        r.params.n = 1;
        r.params.name[0] = name;
        r.params.v[0].type = GB_V_INT;
        r.params.v[0].u.i = k;
        r.samples = malloc(sizeof(double));
        r.samples[0] = k;
        r.nsamples = 1;
        ASSERT_OK(gb_results_add(&rs, &r));
        ASSERT(r.samples == NULL);
    }
    ASSERT_EQ(rs.nresults, 100);
    for (int k = 0; k < 100; k++) {
        char name[32];
        snprintf(name, sizeof name, "axis%d", k);
        ASSERT_STR(rs.results[k].params.name[0], name);
        ASSERT_NEAR(rs.results[k].samples[0], k, 0);
    }
    /* A name that does not fit is refused, and the samples stay with the caller. */
    struct gb_result r;
    memset(&r, 0, sizeof r);
    r.params.n = 1;
    r.params.name[0] = "a_name_that_is_much_longer_than_31_bytes";
    double keep = 1.0;
    r.samples = &keep;
    ASSERT_EQ(gb_results_add(&rs, &r), GB_EINVAL);
    ASSERT(r.samples == &keep);
    ASSERT_EQ(rs.nresults, 100);
    gb_results_free(&rs);
}

TEST(results_status_names)
{
    ASSERT_STR(gb_status_name(GB_STATUS_OK), "ok");
    ASSERT_STR(gb_status_name(GB_STATUS_SKIPPED), "skipped");
    ASSERT_STR(gb_status_name(GB_STATUS_FAILED), "failed");
}

TEST(results_capability_names)
{
    char buf[64];
    ASSERT_STR(gb_cap_name(GB_CAP_FP64), "fp64");
    ASSERT_STR(gb_cap_name(GB_CAP_GRAPH), "graph");
    ASSERT(gb_cap_name(UINT64_C(1) << 63) == NULL);
    ASSERT_STR(gb_caps_text(0, buf, sizeof buf), "");
    ASSERT_STR(gb_caps_text(GB_CAP_PEER | GB_CAP_FP64 | UINT64_C(1) << 63, buf, sizeof buf),
               "fp64,peer");
}

TEST(results_atomic_write_leaves_no_temp)
{
    const char *dir = gb_test_tmpdir();
    char path[4096], names[1024];
    join(path, sizeof path, dir, "/out.json");
    struct gb_results rs;
    make_results(&rs);
    ASSERT_OK(gb_results_write(&rs, path));
    ASSERT_OK(gb_results_write(&rs, path)); /* over an existing file */
    ASSERT_EQ(list_dir(dir, names, sizeof names), 1);
    ASSERT_STR(names, "out.json ");
    struct stat st;
    ASSERT(stat(path, &st) == 0);
    ASSERT_EQ(st.st_mode & 0777, 0644);
    gb_results_free(&rs);
}

TEST(results_write_failure_keeps_old_file)
{
    const char *dir = gb_test_tmpdir();
    struct gb_results rs;
    make_results(&rs);
    char path[4096];

    /* A folder that does not exist. */
    join(path, sizeof path, dir, "/no/such/dir/r.json");
    ASSERT_EQ(gb_results_write(&rs, path), GB_EIO);
    ASSERT_CONTAINS(gb_error_msg(), path);
    ASSERT_CONTAINS(gb_error_msg(), "No such file or directory");

    /* The rename fails late (the target is a non-empty folder): the old target is untouched
     * and the temporary file is removed. */
    char target[4096], inner[4096], names[1024];
    join(target, sizeof target, dir, "/taken");
    ASSERT(mkdir(target, 0755) == 0);
    join(inner, sizeof inner, target, "/old.txt");
    spit(inner, "old", 3);
    ASSERT_EQ(gb_results_write(&rs, target), GB_EIO);
    ASSERT_CONTAINS(gb_error_msg(), "renaming");
    ASSERT_EQ(list_dir(dir, names, sizeof names), 1); /* just "taken", no *.tmp* */
    ASSERT_STR(names, "taken ");
    char *old = gb_test_slurp(inner);
    ASSERT_STR(old, "old");
    free(old);

    /* A folder that is not writable: the old file survives. Root writes anyway. */
    char ro[4096];
    join(ro, sizeof ro, dir, "/ro");
    ASSERT(mkdir(ro, 0755) == 0);
    join(path, sizeof path, ro, "/r.json");
    spit(path, "previous", 8);
    ASSERT(chmod(ro, 0555) == 0);
    if (geteuid() != 0) {
        ASSERT_EQ(gb_results_write(&rs, path), GB_EIO);
        ASSERT_CONTAINS(gb_error_msg(), "Permission denied");
        char *prev = gb_test_slurp(path);
        ASSERT_STR(prev, "previous");
        free(prev);
        ASSERT_EQ(list_dir(ro, names, sizeof names), 1);
    }
    chmod(ro, 0755);
    gb_results_free(&rs);
}

/* Writes `text` to a fresh file and expects gb_results_read to refuse it with GB_ESCHEMA and a
 * message containing the path and each of `needles` (NULL-terminated). */
static void expect_schema_error(const char *text, size_t n, const char *const *needles)
{
    char path[4096];
    join(path, sizeof path, gb_test_tmpdir(), "/bad.json");
    spit(path, text, n);
    struct gb_results rs;
    memset(&rs, 0x5a, sizeof rs);
    int rc = gb_results_read(path, &rs);
    ASSERT_MSG(rc == GB_ESCHEMA, "got %d (%s): %s", rc, gb_err_name(rc), gb_error_msg());
    ASSERT_CONTAINS(gb_error_msg(), path);
    for (size_t i = 0; needles[i]; i++)
        ASSERT_CONTAINS(gb_error_msg(), needles[i]);
    ASSERT(rs.results == NULL && rs.nresults == 0 && rs.devices == NULL && rs.ndevices == 0);
}

/* The text of a valid file, for the tests to break. */
static char *valid_text(void)
{
    struct gb_results rs;
    make_results(&rs);
    char path[4096];
    join(path, sizeof path, gb_test_tmpdir(), "/valid.json");
    ASSERT_OK(gb_results_write(&rs, path));
    gb_results_free(&rs);
    char *t = gb_test_slurp(path);
    ASSERT(t != NULL);
    return t;
}

/* Replaces the first occurrence of `from` in text with `to` (in place; to no longer than from). */
static void edit(char *text, const char *from, const char *to)
{
    char *at = strstr(text, from);
    ASSERT_MSG(at != NULL, "\"%s\" not in the file", from);
    size_t lf = strlen(from), lt = strlen(to);
    ASSERT(lt <= lf);
    memcpy(at, to, lt);
    memmove(at + lt, at + lf, strlen(at + lf) + 1);
}

TEST(results_read_empty_and_missing)
{
    expect_schema_error("", 0, (const char *const[]){"empty file", NULL});
    expect_schema_error("  \n", 3, (const char *const[]){"empty file", NULL});

    struct gb_results rs;
    char path[4096];
    join(path, sizeof path, gb_test_tmpdir(), "/none.json");
    ASSERT_EQ(gb_results_read(path, &rs), GB_EIO);
    ASSERT_CONTAINS(gb_error_msg(), path);
    ASSERT_CONTAINS(gb_error_msg(), "No such file");
    /* A named pipe nobody writes to is an empty file, not a read that waits for ever. */
    join(path, sizeof path, gb_test_tmpdir(), "/fifo.json");
    ASSERT(mkfifo(path, 0600) == 0);
    ASSERT_EQ(gb_results_read(path, &rs), GB_ESCHEMA);
    ASSERT_CONTAINS(gb_error_msg(), "empty file");
}

TEST(results_read_truncated)
{
    char *t = valid_text();
    size_t n = strlen(t) / 2;
    expect_schema_error(
        t, n, (const char *const[]){"not valid JSON", "line", "column", "truncated", NULL});
    free(t);
}

TEST(results_read_not_json)
{
    const char *t = "hello, world\n";
    expect_schema_error(t, strlen(t), (const char *const[]){"not valid JSON", "line 1", NULL});
    t = "[1, 2, 3]";
    expect_schema_error(t, strlen(t), (const char *const[]){"expected a JSON object", NULL});
    t = "{\"results\": []}";
    expect_schema_error(t, strlen(t), (const char *const[]){"no \"schema\" field", NULL});
}

/* Several files at once (gb_results_read_all): each as gb_results_read reads it; on an error
 * every one is freed and zeroed, and the error is that of the first file in order that failed. */
TEST(results_read_all_reads_each_as_one)
{
    struct gb_results rs, one, all[3];
    make_results(&rs);
    char good[4096], bad[4096], worse[4096];
    join(good, sizeof good, gb_test_tmpdir(), "/good.json");
    join(bad, sizeof bad, gb_test_tmpdir(), "/bad.json");
    join(worse, sizeof worse, gb_test_tmpdir(), "/worse.json");
    ASSERT_OK(gb_results_write(&rs, good));
    gb_results_free(&rs);
    spit(bad, "{\"results\": []}", 15);
    spit(worse, "hello", 5);
    ASSERT_OK(gb_results_read(good, &one));
    const char *three[] = {good, good, good};
    ASSERT_OK(gb_results_read_all(three, 3, all));
    for (size_t k = 0; k < 3; k++) {
        ASSERT_EQ(all[k].nresults, one.nresults);
        ASSERT_EQ(all[k].ndevices, one.ndevices);
        ASSERT_STR(all[k].run.host, one.run.host);
        for (size_t i = 0; i < one.nresults; i++) {
            const struct gb_result *a = &all[k].results[i], *b = &one.results[i];
            ASSERT_STR(a->case_name, b->case_name);
            ASSERT_EQ(a->params.n, b->params.n);
            for (size_t j = 0; j < a->params.n; j++)
                ASSERT_STR(a->params.name[j], b->params.name[j]); /* names in its own store */
            ASSERT_EQ(a->nsamples, b->nsamples);
            for (size_t j = 0; j < a->nsamples; j++)
                ASSERT(a->samples[j] == b->samples[j]);
            assert_same_stats(&a->stats, &b->stats);
        }
        gb_results_free(&all[k]);
    }
    gb_results_free(&one);
    const char *mixed[] = {good, worse, bad};
    memset(all, 0x5a, sizeof all);
    ASSERT_EQ(gb_results_read_all(mixed, 3, all), GB_ESCHEMA);
    ASSERT_CONTAINS(gb_error_msg(), worse);
    ASSERT_CONTAINS(gb_error_msg(), "not valid JSON");
    for (size_t k = 0; k < 3; k++)
        ASSERT(all[k].results == NULL && all[k].nresults == 0 && all[k].devices == NULL);
    const char *missing[] = {bad, good};
    ASSERT_EQ(gb_results_read_all(missing, 2, all), GB_ESCHEMA);
    ASSERT_CONTAINS(gb_error_msg(), "no \"schema\" field");
    ASSERT_OK(gb_results_read_all(NULL, 0, NULL));
}

/* A file whose tree outgrows the parse's arena (600,000 empty objects in a member the reader
 * ignores: far more tree a byte than a results file) and one read from a pipe (no size known
 * beforehand) read as the plain file does. */
TEST(results_read_outgrown_arena_and_pipe)
{
    char *t = valid_text();
    size_t n = 600000, len = strlen(t);
    char *big = malloc(len + 3 * n + 64);
    ASSERT(big);
    char *at = strstr(t, "\"run\": {");
    ASSERT(at);
    at += strlen("\"run\": {");
    size_t head = (size_t)(at - t), w = head;
    memcpy(big, t, head);
    w += (size_t)sprintf(big + w, "\"extra\": [");
    for (size_t i = 0; i < n; i++) {
        memcpy(big + w, i ? ",{}" : "{}", i ? 3 : 2);
        w += i ? 3 : 2;
    }
    w += (size_t)sprintf(big + w, "], ");
    memcpy(big + w, at, len - head + 1);
    w += len - head;
    char path[4096], fifo[4096];
    join(path, sizeof path, gb_test_tmpdir(), "/big.json");
    spit(path, big, w);
    struct gb_results plain, wide, piped;
    join(fifo, sizeof fifo, gb_test_tmpdir(), "/valid.json");
    spit(fifo, t, len);
    ASSERT_OK(gb_results_read(fifo, &plain));
    ASSERT_OK(gb_results_read(path, &wide));
    join(fifo, sizeof fifo, gb_test_tmpdir(), "/fifo");
    ASSERT_EQ(mkfifo(fifo, 0600), 0);
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        FILE *f = fopen(fifo, "w");
        _exit(f && fwrite(t, 1, len, f) == len && fclose(f) == 0 ? 0 : 1);
    }
    ASSERT_OK(gb_results_read(fifo, &piped));
    int st;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    const struct gb_results *other[] = {&wide, &piped};
    for (size_t k = 0; k < 2; k++) {
        ASSERT_EQ(other[k]->nresults, plain.nresults);
        ASSERT_STR(other[k]->run.host, plain.run.host);
        for (size_t i = 0; i < plain.nresults; i++) {
            ASSERT_STR(other[k]->results[i].case_name, plain.results[i].case_name);
            assert_same_stats(&other[k]->results[i].stats, &plain.results[i].stats);
        }
    }
    gb_results_free(&plain);
    gb_results_free(&wide);
    gb_results_free(&piped);
    free(big);
    free(t);
}

TEST(results_read_wrong_schema)
{
    char *t = valid_text();
    edit(t, "gpubench-results/2", "gpubench-results/9");
    expect_schema_error(t, strlen(t),
                        (const char *const[]){"schema is \"gpubench-results/9\"",
                                              "expected \"gpubench-results/2\"", NULL});
    free(t);
    const char *u = "{\"schema\": 1}";
    expect_schema_error(u, strlen(u), (const char *const[]){"an integer", NULL});
}

TEST(results_read_bad_fields)
{
    char *t = valid_text();
    edit(t, "\"noisy\":false,", "");
    expect_schema_error(
        t, strlen(t),
        (const char *const[]){"results[0]", "missing required field \"noisy\"", NULL});
    free(t);

    t = valid_text();
    edit(t, "\"value\":4012.5", "\"value\":\"x\"");
    expect_schema_error(t, strlen(t),
                        (const char *const[]){"results[0].value",
                                              "expected a number or null, found a string", NULL});
    free(t);

    t = valid_text();
    edit(t, "\"verified\":true", "\"verified\":1");
    expect_schema_error(t, strlen(t),
                        (const char *const[]){"results[0].verified",
                                              "expected true or false, found an integer", NULL});
    free(t);

    t = valid_text();
    edit(t, "\"status\":\"ok\"", "\"status\":\"so\"");
    expect_schema_error(t, strlen(t), (const char *const[]){"results[0].status", "\"so\"", NULL});
    free(t);

    t = valid_text();
    edit(t, "\"median\":4200.0", "\"median\":\"42\"");
    expect_schema_error(t, strlen(t),
                        (const char *const[]){"results[0].stats.median",
                                              "expected a number or null, found a string", NULL});
    free(t);

    t = valid_text();
    edit(t, "\"device\":1", "\"device\":7");
    expect_schema_error(t, strlen(t), (const char *const[]){"results[1].device", "7", NULL});
    free(t);

    t = valid_text();
    edit(t, "\"results\": [", "\"resultz\": [");
    expect_schema_error(t, strlen(t),
                        (const char *const[]){"missing required field \"results\"", NULL});
    free(t);
}

TEST(results_sha256)
{
    const char *dir = gb_test_tmpdir();
    char path[4096], hex[65];
    join(path, sizeof path, dir, "/abc");
    spit(path, "abc", 3);
    ASSERT_OK(gb_sha256_file(path, hex));
    ASSERT_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    join(path, sizeof path, dir, "/empty");
    spit(path, "", 0);
    ASSERT_OK(gb_sha256_file(path, hex));
    ASSERT_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    join(path, sizeof path, dir, "/missing");
    ASSERT_EQ(gb_sha256_file(path, hex), GB_EIO);
    ASSERT_CONTAINS(gb_error_msg(), path);
}

/* ---- results files describe their params' kinds ("axes") ---------------------------------- */

/* A results file of one result of `suite` with the params op="x", size=4096 (a size) and src=1
 * (a device position when `pos`), written by gb_results_write; without its "axes" when
 * `strip` (a file of before that field); read back into rs. */
static void read_axes_file(const char *suite, bool pos, bool strip, struct gb_results *rs)
{
    struct gb_results w = {0};
    struct gb_result r = {0};
    snprintf(r.suite, sizeof r.suite, "%s", suite);
    snprintf(r.case_name, sizeof r.case_name, "x");
    snprintf(r.backend, sizeof r.backend, "opencl");
    r.device_index = -1;
    r.status = GB_STATUS_SKIPPED;
    r.params.n = 3;
    r.params.name[0] = "op";
    r.params.v[0].type = GB_V_STR;
    snprintf(r.params.v[0].s, sizeof r.params.v[0].s, "x");
    r.params.name[1] = "size";
    r.params.v[1].type = GB_V_SIZE;
    r.params.v[1].u.size = 4096;
    r.params.name[2] = "src";
    r.params.v[2].type = GB_V_INT;
    r.params.v[2].u.i = 1;
    r.device_pos_axes = pos ? 1u << 2 : 0;
    ASSERT_OK(gb_results_add(&w, &r));
    char path[4096];
    join(path, sizeof path, gb_test_tmpdir(), "/axes.json");
    ASSERT_OK(gb_results_write(&w, path));
    gb_results_free(&w);
    if (strip) {
        json_error_t e;
        json_t *root = json_load_file(path, 0, &e);
        ASSERT(root != NULL);
        ASSERT_OK(json_object_del(root, "axes"));
        ASSERT_OK(json_dump_file(root, path, 0));
        json_decref(root);
    }
    ASSERT_OK(gb_results_read(path, rs));
    ASSERT_EQ(rs->nresults, 1);
}

TEST(results_axes_tell_sizes_and_device_positions)
{
    /* A suite this build does not have: its file's axes alone say what the integers are. */
    struct gb_results rs;
    read_axes_file("toy", true, false, &rs);
    const struct gb_result *r = &rs.results[0];
    ASSERT_EQ(r->params.v[1].type, GB_V_SIZE);
    ASSERT_EQ(r->params.v[1].u.size, 4096);
    ASSERT_EQ(r->params.v[2].type, GB_V_INT);
    ASSERT_EQ(r->device_pos_axes, 1u << 2);
    gb_results_free(&rs);
    /* A file from before axes: the kinds the suites had then (peerbw: a size and a device
     * position); a suite of no such table reads plain integers. */
    read_axes_file("peerbw", false, true, &rs);
    ASSERT_EQ(rs.results[0].params.v[1].type, GB_V_SIZE);
    ASSERT_EQ(rs.results[0].device_pos_axes, 1u << 2);
    gb_results_free(&rs);
    read_axes_file("toy", true, true, &rs);
    ASSERT_EQ(rs.results[0].params.v[1].type, GB_V_INT);
    ASSERT_EQ(rs.results[0].device_pos_axes, 0u);
    gb_results_free(&rs);
}

TEST(results_axes_that_mean_nothing_are_refused)
{
    /* A kind the reader cannot use would turn a size into an integer and unpair the suite's
     * cases from another file's: refused, naming where. */
    char *t = valid_text();
    char *at = strstr(t, "\"axes\": {");
    ASSERT(at != NULL);
    const char *bad[][2] = {
        {"\"axes\": {\"zz\": 42, ", "axes.zz: expected an object, found an integer"},
        {"\"axes\": {\"zz\": {\"size\": \"bogus\"}, ",
         "axes.zz.size: expected one of size, integer, number, string, boolean, device, "
         "found \"bogus\""},
        {"\"axes\": {\"zz\": {\"size\": 7}, ", "found an integer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t head = (size_t)(at - t), skip = strlen("\"axes\": {");
        char *u = malloc(strlen(t) + strlen(bad[i][0]) + 1);
        ASSERT(u != NULL);
        memcpy(u, t, head);
        strcpy(u + head, bad[i][0]);
        strcat(u, t + head + skip);
        expect_schema_error(u, strlen(u), (const char *const[]){bad[i][1], NULL});
        free(u);
    }
    free(t);
}

TEST(results_axes_round_trip_the_kinds_written)
{
    struct gb_results rs;
    make_results(&rs);
    ASSERT(rs.nresults > 0);
    char path[4096];
    join(path, sizeof path, gb_test_tmpdir(), "/kinds.json");
    ASSERT_OK(gb_results_write(&rs, path));
    struct gb_results back;
    ASSERT_OK(gb_results_read(path, &back));
    ASSERT_EQ(back.nresults, rs.nresults);
    for (size_t i = 0; i < rs.nresults; i++)
        for (size_t j = 0; j < rs.results[i].params.n; j++)
            ASSERT_EQ(back.results[i].params.v[j].type, rs.results[i].params.v[j].type);
    char *t = gb_test_slurp(path);
    ASSERT_CONTAINS(t, "\"axes\"");
    free(t);
    gb_results_free(&back);
    gb_results_free(&rs);
}
