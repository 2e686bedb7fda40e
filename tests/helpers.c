/* Helpers shared by the test files (declared in test.h): shell commands, files, devices and
 * whole runs of a profile, each written once instead of in every file that needs it. */
#include <fcntl.h>
#include <stdarg.h>
#include <sys/types.h>
#include <unistd.h>
#include <time.h>

#include <jansson.h>

#include "base/util.h"
#include "suites/suites.h"
#include "backends/backend.h"
#include "backends/telemetry.h"
#include "run/config.h"
#include "base/error.h"
#include "run/plan.h"
#include "results/results.h"
#include "run/runner.h"
#include "run/suite.h"
#include "run/tuning_cache.h"
#include "test.h"

int gb_test_shf(char *out, size_t cap, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return gb_test_sh(cmd, out, cap);
}

void gb_test_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ASSERT_MSG(f, "cannot create %s", path);
    fputs(text, f);
    ASSERT(fclose(f) == 0);
}

const char *gb_test_tmpdir_with(const char *name, const char *text)
{
    const char *dir = gb_test_tmpdir();
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gb_test_write_file(path, text);
    return dir;
}

const char *gb_test_profile_files(const char *name, const char *profile, char *prof, char *res,
                                  size_t cap)
{
    const char *dir = gb_test_tmpdir();
    snprintf(prof, cap, "%s/%s.yaml", dir, name);
    snprintf(res, cap, "%s/%s.json", dir, name);
    gb_test_write_file(prof, profile);
    return dir;
}

char *gb_test_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    ASSERT_MSG(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    ASSERT(n >= 0);
    char *b = malloc((size_t)n + 1);
    ASSERT(b);
    ASSERT(fread(b, 1, (size_t)n, f) == (size_t)n);
    b[n] = '\0';
    fclose(f);
    return b;
}

char *gb_test_slurp_in(const char *dir, const char *name)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return gb_test_slurp(path);
}

size_t gb_test_count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

double gb_test_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct gb_device *gb_test_open_device(const struct gb_backend_ops *ops, int index)
{
    int rc = ops->init();
    if (rc == GB_EUNAVAIL)
        SKIP("%s unavailable: %s", ops->name, gb_error_msg());
    ASSERT_OK(rc);
    if (ops->device_count() <= index)
        SKIP("needs %s device %d, found %d", ops->name, index, ops->device_count());
    struct gb_device *dev = NULL;
    ASSERT_OK(ops->device_open(index, &dev));
    ASSERT(dev != NULL);
    return dev;
}

void gb_test_tuning_cache(char *path, size_t cap, const char *kernel, const char *problem, size_t n,
                          const char *const names[], const int64_t values[])
{
    const struct gb_backend_ops *ops = gb_backend_find("opencl");
    if (!ops)
        SKIP("no OpenCL backend in this build");
    struct gb_device *dev = gb_test_open_device(ops, 0);
    snprintf(path, cap, "%s/tuning.json", gb_test_tmpdir());
    struct gb_tuning_entry e = {.n = n, .time_s = 1e-3, .search = "exhaustive", .evaluations = 1};
    for (size_t i = 0; i < n; i++) {
        snprintf(e.name[i], sizeof e.name[i], "%s", names[i]);
        e.value[i] = values[i];
    }
    ASSERT_OK(gb_tuning_store(path, dev, kernel, problem, &e));
    ops->device_close(dev);
}

bool gb_test_is_pocl(const struct gb_device_info *info)
{
    return strstr(info->platform, "Portable Computing Language") != NULL;
}

void gb_test_assert_verified(const struct gb_result *r)
{
    char p[256];
    gb_params_format(&r->params, p, sizeof p);
    ASSERT_MSG(r->status == GB_STATUS_OK && r->verified, "%s: %s: %s", p, gb_status_name(r->status),
               r->reason);
}

const struct gb_figure *gb_test_figure(const struct gb_result *r, const char *name)
{
    for (size_t i = 0; i < r->nfigures; i++)
        if (strcmp(r->figures[i].name, name) == 0)
            return &r->figures[i];
    return NULL;
}

const struct gb_figure *gb_test_need_figure(const struct gb_result *r, const char *name)
{
    const struct gb_figure *f = gb_test_figure(r, name);
    ASSERT_MSG(f != NULL, "no figure %s", name);
    return f;
}

void gb_test_load_profile(const char *yaml, struct gb_profile *p)
{
    char err[1024];
    int r = gb_profile_load_string(gb_suites_builtin(), yaml, "test", NULL, 0, p, err, sizeof err);
    ASSERT_MSG(r == 0, "%s", err);
}

/* The profile in `yaml` loaded and planned on the OpenCL devices `devices` selects; skips the
 * test when there is none, or when there are fewer than `need` (0: any number). */
static void plan_profile(const char *yaml, const char *devices, size_t need, struct gb_profile *p,
                         struct gb_plan *plan)
{
    gb_test_load_profile(yaml, p);
    *plan = (struct gb_plan){0};
    int r = gb_plan_devices(p, "opencl", devices, plan);
    if (r == GB_ENODEV)
        SKIP("no OpenCL device: %s", gb_error_msg());
    ASSERT_OK(r);
    if (need)
        gb_test_need_devices(plan->ndevices, need);
    ASSERT_OK(gb_plan_expand(p, NULL, plan));
}

void gb_test_run_profile(const char *yaml, const char *devices, struct gb_results *rs)
{
    struct gb_profile p;
    struct gb_plan plan;
    plan_profile(yaml, devices, 0, &p, &plan);
    *rs = (struct gb_results){0};
    struct gb_runner_opts o = {0};
    int r = gb_run_plan(&plan, &o, rs);
    ASSERT_MSG(r == 0 || r == 1, "gb_run_plan: %d", r);
    gb_plan_free(&plan);
    gb_profile_free(&p);
    /* Every results file the tests produce follows the published schema. */
    gb_test_check_results_schema(rs);
}

/* gb_test_run_suite on the devices `devices` selects (NULL: all). */
static void run_suite(const char *head, const char *suite, const char *params, const char *devices,
                      struct gb_results *rs)
{
    char yaml[4096];
    int n = snprintf(yaml, sizeof yaml, "%ssuites:\n  - suite: %s\n    params: %s\n", head, suite,
                     params);
    ASSERT_MSG(n > 0 && (size_t)n < sizeof yaml, "profile of %d bytes", n);
    gb_test_run_profile(yaml, devices, rs);
}

void gb_test_run_suite(const char *head, const char *suite, const char *params,
                       struct gb_results *rs)
{
    run_suite(head, suite, params, "0", rs);
}

void gb_test_run_suite_on(const char *pocl, const char *head, const char *suite, const char *params,
                          struct gb_results *rs)
{
    setenv("POCL_DEVICES", pocl, 1);
    run_suite(head, suite, params, NULL, rs);
}

void gb_test_check_schema(const char *path)
{
    static char out[8192];
    int rc = gb_test_shf(
        out, sizeof out,
        "python3 - '%s/schema/gpubench-results.schema.json' '%s' 2>&1 <<'PY'\n"
        "import json, sys\n"
        "try:\n"
        "    import jsonschema\n"
        "except ImportError:\n"
        "    sys.exit(0)\n"
        "schema = json.load(open(sys.argv[1]))\n"
        "doc = json.load(open(sys.argv[2]))\n"
        "errs = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=str)\n"
        "for e in errs[:5]:\n"
        "    print('/'.join(map(str, e.absolute_path)), e.message[:300])\n"
        "sys.exit(1 if errs else 0)\n"
        "PY",
        GB_TEST_SRCDIR, path);
    ASSERT_MSG(rc == 0, "%s does not follow the schema: %s", path, out);
}

void gb_test_check_results_schema(const struct gb_results *rs)
{
    const char *dir = gb_test_tmpdir();
    char path[GB_PATH_JOIN];
    snprintf(path, sizeof path, "%s/schema-check.json", dir);
    ASSERT_OK(gb_results_write(rs, path));
    gb_test_check_schema(path);
}

const struct gb_suite *gb_test_plan_case_on(const char *suite_name, const char *params,
                                            const char *devices, size_t need, struct gb_profile *p,
                                            struct gb_plan *plan)
{
    const struct gb_suite *s = gb_suite_table_find(gb_suites_builtin(), suite_name);
    ASSERT(s);
    char yaml[1024];
    snprintf(yaml, sizeof yaml, "suites:\n  - suite: %s\n    params: %s\n", suite_name, params);
    plan_profile(yaml, devices, need, p, plan);
    ASSERT_EQ(plan->ncases, 1);
    return s;
}

const struct gb_suite *gb_test_plan_case(const char *suite_name, const char *params,
                                         struct gb_profile *p, struct gb_plan *plan)
{
    return gb_test_plan_case_on(suite_name, params, "0", 0, p, plan);
}

void gb_test_open_two(const struct gb_backend_ops *ops, const struct gb_plan *plan,
                      struct gb_device *devs[2], struct gb_queue *qs[2])
{
    for (int i = 0; i < 2; i++) {
        ASSERT_OK(ops->device_open(plan->devices[i].index, &devs[i]));
        ASSERT_OK(ops->queue_create(devs[i], &qs[i]));
    }
}

void gb_test_close_two(const struct gb_backend_ops *ops, struct gb_device *devs[2],
                       struct gb_queue *qs[2])
{
    for (int i = 0; i < 2; i++) {
        ops->queue_destroy(qs[i]);
        ops->device_close(devs[i]);
    }
}

struct gb_case_ctx gb_test_two_ctx(const struct gb_backend_ops *ops, const struct gb_plan *plan,
                                   struct gb_device *devs[2], struct gb_queue *qs[2])
{
    return (struct gb_case_ctx){.ops = ops,
                                .dev = devs[0],
                                .q = qs[0],
                                .params = &plan->cases[0].params,
                                .devs = devs,
                                .queues = qs,
                                .ndevs = 2};
}

/* The number a value stands for, to find an axis's smallest; strings and booleans count as 0
 * (their first value is kept). */
static double magnitude(const struct gb_value *v)
{
    return v->type == GB_V_SIZE    ? (double)v->u.size
           : v->type == GB_V_INT   ? (double)v->u.i
           : v->type == GB_V_FLOAT ? v->u.f
                                   : 0;
}

/* The axes of the suites whose smallest default is still large or slow for a test, set
 * smaller; a suite not here is run at its defaults' smallest. */
static const struct {
    const char *suite, *set[4];
} smaller[] = {
    {"memory", {"size: 1MiB"}},
    {"scaling", {"size: 1MiB", "order: 64"}},
    {"compute", {"iters: 64", "groups: 2"}},
    {"gemm", {"impl: own", "shape: 64"}},
    {"fp16", {"elems: 65536"}},
    {"tuning", {"size: 65536", "budget: 2", "search: random"}},
    {"conv", {"impl: own", "shape: 2x8x7x6-6x3x3-p1"}},
    {"sparse", {"impl: own", "shape: 96x8x200", "density: 0.1"}},
    {"startup", {"cache: warm", "blas: off"}},
    {"serve", {"shape: 64x64", "requests: 32"}},
    {"burn", {"duration: 0.2", "n: 64"}},
    {"memtest", {"fraction: 0.00001", "cap: 64KiB"}},
};

/* The value `set` gives axis `name` ("size: 1MiB" gives size "1MiB"), or NULL. */
static const char *set_value(const char *const *set, size_t n, const char *name)
{
    const size_t nl = strlen(name);
    for (size_t i = 0; set && i < n && set[i]; i++)
        if (strncmp(set[i], name, nl) == 0 && set[i][nl] == ':')
            return set[i] + nl + 1 + (set[i][nl + 1] == ' ');
    return NULL;
}

void gb_test_smallest_params(const struct gb_suite *s, const char *const *set, char *buf,
                             size_t len)
{
    const char *const *own = NULL;
    for (size_t i = 0; i < sizeof smaller / sizeof smaller[0]; i++)
        if (strcmp(smaller[i].suite, s->name) == 0)
            own = smaller[i].set;
    buf[0] = '\0';
    gb_appendf(buf, len, "{");
    for (size_t a = 0; a < s->naxes; a++) {
        const struct gb_axis_def *ax = &s->axes[a];
        struct gb_sweep sw;
        char err[512];
        ASSERT_MSG(gb_sweep_parse(ax, ax->def, &sw, err, sizeof err) == 0, "%s.%s: %s", s->name,
                   ax->name, err);
        size_t best = 0;
        for (size_t j = 1; j < sw.n; j++) {
            /* 0 on a zero_picks size: the suite's own pick for the device, not the smallest */
            const bool picks = ax->zero_picks && sw.v[best].u.size == 0;
            if (picks || (!(ax->zero_picks && sw.v[j].u.size == 0) &&
                          magnitude(&sw.v[j]) < magnitude(&sw.v[best])))
                best = j;
        }
        char t[GB_STR_MAX];
        gb_value_format(&sw.v[best], t, sizeof t);
        const char *given = set_value(set, SIZE_MAX, ax->name);
        if (!given)
            given = set_value(own, 4, ax->name);
        if (given)
            snprintf(t, sizeof t, "%s", given);
        gb_appendf(buf, len, "%s%s: %s", a ? ", " : "", ax->name, t);
        gb_sweep_free(&sw);
    }
    gb_appendf(buf, len, "}");
}

struct gb_test_case {
    struct gb_profile p;
    struct gb_plan plan;
    const struct gb_suite *s;
    struct gb_case_ctx ctx;
    struct gb_device *devs[1]; /* the case's set: device 0 alone */
    struct gb_queue *queues[1];
};

struct gb_test_case *gb_test_case_open(const char *suite_name, const char *params,
                                       const struct gb_suite **s, struct gb_case_ctx **ctx)
{
    struct gb_test_case *tc = calloc(1, sizeof *tc);
    ASSERT(tc);
    tc->s = gb_test_plan_case(suite_name, params, &tc->p, &tc->plan);
    const struct gb_backend_ops *ops = tc->plan.devices[0].ops;
    struct gb_device *dev = gb_test_open_device(ops, 0);
    struct gb_queue *q;
    ASSERT_OK(ops->queue_create(dev, &q));
    tc->devs[0] = dev;
    tc->queues[0] = q;
    tc->ctx = (struct gb_case_ctx){.ops = ops,
                                   .suite = tc->s,
                                   .dev = dev,
                                   .q = q,
                                   .params = &tc->plan.cases[0].params,
                                   .devs = tc->devs,
                                   .queues = tc->queues,
                                   .ndevs = 1};
    tc->ctx.state = calloc(1, tc->s->state_size);
    ASSERT(tc->ctx.state);
    *s = tc->s;
    *ctx = &tc->ctx;
    return tc;
}

void gb_test_case_close(struct gb_test_case *tc)
{
    struct gb_case_ctx *ctx = &tc->ctx;
    tc->s->teardown(ctx);
    free(ctx->state);
    ctx->ops->queue_destroy(ctx->q);
    ctx->ops->device_close(ctx->dev);
    gb_plan_free(&tc->plan);
    gb_profile_free(&tc->p);
    free(tc);
}

void gb_test_corrupted_case_fails(const char *suite_name, const char *params, uint64_t reps,
                                  void (*corrupt)(struct gb_case_ctx *))
{
    const struct gb_suite *s;
    struct gb_case_ctx *ctx;
    struct gb_test_case *tc = gb_test_case_open(suite_name, params, &s, &ctx);
    ASSERT_OK(s->setup(ctx));
    ASSERT_OK(s->run(ctx, reps));
    ASSERT_OK(ctx->ops->queue_sync(ctx->q));
    ASSERT_OK(s->verify(ctx));
    corrupt(ctx);
    ASSERT_EQ(s->verify(ctx), GB_EVERIFY);
    printf("verify said: %s\n", ctx->reason);
    ASSERT(strlen(ctx->reason) > 0);
    gb_test_case_close(tc);
}

void gb_test_smash(struct gb_case_ctx *ctx, struct gb_buf *b, uint64_t off, const void *value,
                   uint64_t bytes)
{
    struct gb_buf *tmp;
    ASSERT_OK(ctx->ops->buf_alloc(ctx->dev, bytes, GB_MEM_HOST_PAGEABLE, &tmp));
    memcpy(tmp->host, value, bytes);
    ASSERT_OK(ctx->ops->copy(ctx->q, b, off, tmp, 0, bytes, GB_COPY_BLOCKING));
    ctx->ops->buf_free(tmp);
}

void gb_test_cli_devices(const char *env, struct gb_test_devices *d)
{
    static char out[1 << 16];
    *d = (struct gb_test_devices){0};
    int rc = gb_test_shf(out, sizeof out, "%s %s devices --json 2>/dev/null", env ? env : "",
                         GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "%s gpubench devices --json: exit %d: %s", env ? env : "", rc, out);
    json_error_t je;
    json_t *root = json_loads(out, 0, &je);
    ASSERT_MSG(root && json_is_array(root), "devices --json is not a JSON array: %s: %s", je.text,
               out);
    size_t i;
    json_t *b;
    json_array_foreach(root, i, b)
    {
        const char *backend = json_string_value(json_object_get(b, "backend"));
        if (!backend || strcmp(backend, "opencl") != 0 ||
            !json_is_true(json_object_get(b, "available")))
            continue;
        json_t *devs = json_object_get(b, "devices");
        size_t k;
        json_t *dev;
        json_array_foreach(devs, k, dev)
        {
            const char *platform = json_string_value(json_object_get(dev, "platform"));
            const char *name = json_string_value(json_object_get(dev, "name"));
            if (k == 0)
                snprintf(d->platform, sizeof d->platform, "%s", platform ? platform : "");
            if (k < GB_TEST_MAX_DEVICES) {
                snprintf(d->name[k], sizeof d->name[k], "%s", name ? name : "");
                d->max_wg_size[k] =
                    (uint64_t)json_integer_value(json_object_get(dev, "max_work_group_size"));
            }
        }
        d->n = (int)json_array_size(devs);
    }
    json_decref(root);
}

void gb_test_need_cli_devices(const char *env, int n, struct gb_test_devices *d)
{
    gb_test_cli_devices(env, d);
    if (d->n < n)
        SKIP("needs %d OpenCL devices; with %s the OpenCL implementation (%s) offers %d (only "
             "PoCL makes devices from POCL_DEVICES)",
             n, env && *env ? env : "the default environment",
             d->platform[0] ? d->platform : "none", d->n);
}

void gb_test_need_devices(size_t have, size_t n)
{
    const char *pocl = getenv("POCL_DEVICES");
    if (have < n)
        SKIP("needs %zu OpenCL devices; the implementation offers %zu with POCL_DEVICES=\"%s\" "
             "(only PoCL makes devices from it)",
             n, have, pocl ? pocl : "");
}

void gb_test_need_one_device(size_t have)
{
    if (have != 1)
        SKIP("needs exactly one OpenCL device; the implementation offers %zu with "
             "POCL_DEVICES=pthread",
             have);
}

void gb_test_validate_refuses(const char *yaml, const char *expect)
{
    char out[4096];
    const char *dir = gb_test_tmpdir_with("p.yaml", yaml);
    int rc = gb_test_shf(out, sizeof out, "%s validate %s/p.yaml 2>&1", GB_TEST_EXE, dir);
    ASSERT_MSG(rc != 0, "accepted: %s\n%s", yaml, out);
    ASSERT_CONTAINS(out, expect);
}

const char *gb_test_run_and_report(const char *pocl, const char *yaml)
{
    static char out[1 << 16];
    const char *dir = gb_test_tmpdir_with("p.yaml", yaml);
    int rc = gb_test_shf(out, sizeof out,
                         "cd %s && POCL_DEVICES='%s' %s run p.yaml -o p.json >run.txt 2>&1 "
                         "&& %s report p.json -o rep 2>&1 || { cat run.txt; exit 1; }",
                         dir, pocl, GB_TEST_EXE, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "exit %d: %s", rc, out);
    return dir;
}

void gb_test_skip_on_77(int rc, const char *out)
{
    if (rc == 77) {
        const char *why = strstr(out, "skip reason: ");
        SKIP("%s", why ? why + strlen("skip reason: ") : out);
    }
}

void gb_test_opencl_info(struct gb_device_info *info)
{
    const struct gb_backend_ops *ops = gb_backend_find("opencl");
    if (!ops)
        SKIP("gpubench was built without the OpenCL backend");
    struct gb_device *dev = gb_test_open_device(ops, 0);
    *info = dev->info;
    ops->device_close(dev);
}

#ifndef GB_TEST_CL_DEFECTS
#define GB_TEST_CL_DEFECTS "libcl-defects.so"
#endif

const char *gb_test_run_shimmed(char *out, size_t cap, const char *env, const char *devices,
                                const char *suites, bool may_fail, struct gb_results *rs)
{
    static const char budget[] = "measure: {min_samples: 3, max_samples: 5, max_time: 50ms, "
                                 "min_sample_time: 1ms, warmup_runs: 1}\n";
    const char *dir = gb_test_tmpdir();
    char prof[GB_PATH_JOIN], res[GB_PATH_JOIN], text[4096];
    snprintf(prof, sizeof prof, "%s/p.yaml", dir);
    snprintf(res, sizeof res, "%s/r.json", dir);
    snprintf(text, sizeof text, "%ssuites:\n%s", budget, suites);
    gb_test_write_file(prof, text);
    int rc = gb_test_shf(out, cap,
                         "%s LD_PRELOAD='%s' GPUBENCH_TUNING_CACHE='%s/none.json' '%s' run '%s' "
                         "-o '%s' --device %s 2>&1",
                         env, GB_TEST_CL_DEFECTS, dir, GB_TEST_EXE, prof, res, devices);
    if (rc == 2 && (strstr(out, "no OpenCL") || strstr(out, "no device")))
        SKIP("no OpenCL device: %.200s", out);
    ASSERT_MSG(rc == 0 || (may_fail && rc == 1), "gpubench run with %s: exit %d\n%s", env, rc, out);
    ASSERT_OK(gb_results_read(res, rs));
    ASSERT_MSG(rs->nresults > 0 && rs->ndevices > 0, "no results\n%s", out);
    gb_test_check_schema(res);
    return dir;
}

void gb_test_fake_nvml_state(const char *dir, const char *from, bool link, struct gb_results *rs)
{
    setenv("GPUBENCH_NVML_LIB", GB_TEST_FAKE_NVML, 1);
    struct gb_tel_target t = {.nvidia = true, .vendor = "NVIDIA", .pci_bus_id = "0000:17:00.0"};
    struct gb_tel_session *s = NULL;
    ASSERT_OK(gb_tel_open(&t, &s));
    struct gb_tel_device_state st;
    gb_tel_state(s, &st);
    struct gb_tel_reading rd;
    gb_tel_read(s, &rd);
    gb_tel_close(s);
    unsetenv("GPUBENCH_NVML_LIB");
    char p[1100];
    snprintf(p, sizeof p, "%s/%s", dir, from);
    memset(rs, 0, sizeof *rs);
    ASSERT_OK(gb_results_read(p, rs));
    st.device = 0;
    rs->run.machine.recorded = true;
    rs->run.machine.dev[0] = st;
    rs->run.machine.ndev = 1;
    if (link) {
        struct gb_tel_trace tr = {.r = &rd, .n = 1};
        gb_tel_machine_link(&rs->run.machine, 0, &tr);
    }
}

double gb_test_vclock_now(void *ctx)
{
    return *(const double *)ctx;
}

void gb_test_vclock_wait(void *ctx, double t)
{
    double *now = ctx;
    if (t > *now)
        *now = t;
}

bool gb_test_run_until_a_result(const char *prof, const char *res, pid_t *pid)
{
    *pid = fork();
    if (*pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        dup2(devnull, 2);
        execl(GB_TEST_EXE, GB_TEST_EXE, "run", prof, "-o", res, (char *)NULL);
        _exit(127);
    }
    struct gb_results rs;
    bool some = false;
    for (int i = 0; i < 1200 && !some; i++) {
        usleep(50000);
        if (gb_results_read(res, &rs) == 0) {
            some = rs.nresults > 0;
            gb_results_free(&rs);
        }
    }
    return some;
}
