/* startup — time to a useful worker: a fresh process, timed stage by stage, from its start to
 * its first verified kernel result.
 *
 * One operation is one helper process (run/child.h: this program started afresh, as a worker
 * or a serving replica is), from just before its fork to its exit, host-timed around the call
 * (GB_TIMER_HOST_CALL). The helper marks each stage's end on the monotonic clock every process
 * shares (gb_now), and the case reads the marks from its reply:
 *   process  fork + exec + the dynamic loader, to main()
 *   init     the backend's init: its libraries loaded, platforms and devices enumerated
 *   open     the device opened (a context) and a queue (stream) created
 *   build    the program built from source (kernels/startup.cl), the kernel found
 *   blas     the BLAS library's first GEMM (16 x 16 x 16, F32) done: the library loaded and its
 *            handle made, its kernels built (CLBlast compiles its own on first use: about 19 s
 *            cold on PoCL); absent with `blas: off` or where the backend or the device has no
 *            F32 GEMM
 *   first    a buffer allocated, written, the kernel launched, the result read back and
 *            checked: the first verified result
 * and `total` is the sum, the time from the fork to the first verified result: the headline
 * (gb_case_headline, ms, one per process). Figures: each stage's p50 (`<stage>_p50_ms`), and the
 * total's p90 from 10 processes, p99 from 100 (the nearest rank) and largest; `persistence`
 * where the driver reports it.
 *
 * `cache` says what the compiler finds on disk: `cold`, every helper points each compiler cache
 * its backend names (facts.compiler_cache_env: POCL_CACHE_DIR, CUDA_CACHE_PATH, ...) at a new
 * empty directory; `warm`, at one directory of the case's own that an unmeasured helper filled
 * in setup. Either way the user's own cache is neither read nor written. An implementation with
 * no on-disk cache (Intel's CPU runtime) builds cold in both, and the figure `cache_env` names
 * the variables set.
 *
 * Verification: every helper checks its kernel's output word for word (y = 3 x + i) and its GEMM
 * exactly (small integers, exact in F32); a helper that fails a stage, dies or does not answer
 * within GB_STARTUP_TIMEOUT_S fails the case with the stage and the reason. The test hook
 * GPUBENCH_TEST_STARTUP_BREAK=1, read by the helper, builds the kernel with GB_BREAK=1 (its last
 * word unwritten), which the check must catch.
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/telemetry.h"
#include "base/error.h"
#include "base/stats.h"
#include "base/units.h"
#include "run/child.h"
#include "run/suite.h"
#include "suites/common.h"

/* A helper that has not answered in this long has hung (a cold PoCL build takes about 1 s). */
#define GB_STARTUP_TIMEOUT_S 60.0
#define MAX_ENV 8
#define FIRST_WORDS 4096u
#define GEMM_N 16u

enum stage { ST_PROCESS, ST_INIT, ST_OPEN, ST_BUILD, ST_BLAS, ST_FIRST, ST_TOTAL, NSTAGES };
static const char *const stage_names[NSTAGES] = {"process", "init",  "open", "build",
                                                 "blas",    "first", "total"};

static const char *const caches[] = {"cold", "warm", NULL};
static const char *const onoff[] = {"on", "off", NULL};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("cache", "[cold, warm]", caches,
                "cold: the compiler caches point at an empty directory; warm: at one an earlier "
                "process filled"),
    GB_AXIS_STR(
        "blas", "on", onoff,
        "on: a BLAS stage (the library's first GEMM) between build and first, where the "
        "backend has F32 GEMM; off: none (a cold CLBlast compiles its kernels: 19 s on PoCL)"),
};

struct startup {
    bool cold;
    char dir[PATH_MAX];       /* warm: the case's cache directory; cold: this run's */
    char root[PATH_MAX - 64]; /* the case's temporary directory, holding dir */
    unsigned runs;            /* cold directories made so far */
    char envbuf[MAX_ENV][PATH_MAX + 64];
    const char *env[MAX_ENV + 1];
    char cache_env[256]; /* the variables set, for the figure */
    double *st[NSTAGES]; /* seconds per stage per process, in the order run */
    size_t n, cap;
    bool want_blas; /* the case asks for a BLAS stage */
    bool blas;      /* helpers reported a GEMM stage */
    char fail[900];
};

/* ---- the helper's side ------------------------------------------------------------------ */

/* Runs the stages on the device in io; replies "ok T_MAIN T_INIT T_OPEN T_BUILD T_BLAS T_FIRST"
 * (gb_now marks; T_BLAS -1 when there is no GEMM), "fail STAGE: why" when a stage broke, or "bad
 * STAGE: why" when its output was wrong. */
static int startup_child(struct gb_child_io *io)
{
    const char *stage = "init";
    struct gb_device *dev = NULL;
    struct gb_queue *q = NULL;
    struct gb_program *prog = NULL;
    struct gb_kernel *k = NULL;
    struct gb_buf *x = NULL, *y = NULL, *ga = NULL, *gbuf = NULL, *gc = NULL;
    unsigned int *hx = NULL, *hy = NULL;
    double t[5] = {0};
    int err = 0;
    char why[512] = "";
    const struct gb_backend_ops *ops = gb_backend_find(io->backend);
    if (!ops) {
        gb_child_reply(io, "fail init: no backend \"%s\" in this build", io->backend);
        return 1;
    }
    gb_error_clear();
    if ((err = ops->init()))
        goto out;
    t[0] = gb_now();
    stage = "open";
    if (io->device >= ops->device_count()) {
        err = GB_USER_FAIL(GB_ENODEV, "device %d is gone", io->device);
        goto out;
    }
    if ((err = ops->device_open(io->device, &dev)) || (err = ops->queue_create(dev, &q)))
        goto out;
    t[1] = gb_now();
    stage = "build";
    struct gb_case_ctx ctx = {.ops = ops, .dev = dev, .q = q};
    const char *brk = getenv("GPUBENCH_TEST_STARTUP_BREAK");
    const char *defs[] = {"GB_BREAK=1"};
    /* The first kernel's work-group: 64, or the largest divisor of 64 the device and the kernel
     * allow. */
    uint32_t wg = gb_case_own_wg(&ctx, 64);
    if ((err = gb_case_build_wg(&ctx, "startup.cl", "startup_first", defs,
                                brk && strcmp(brk, "1") == 0 ? 1 : 0, NULL, &wg, &prog, &k)))
        goto out;
    t[2] = gb_now();
    stage = "blas";
    t[3] = -1;
    if (strstr(io->arg, "blas=on") && ops->gemm && (dev->info.caps & GB_CAP_BLAS_F32)) {
        /* C = A B with A[i][j] = (i + j) % 3 - 1 and B[i][j] = (i * j) % 3 - 1 (column-major): sums
         * of 16 products of -1, 0, 1, exact in F32. */
        float ha[GEMM_N * GEMM_N], hb[GEMM_N * GEMM_N], hc[GEMM_N * GEMM_N];
        for (unsigned i = 0; i < GEMM_N; i++)
            for (unsigned j = 0; j < GEMM_N; j++) {
                ha[j * GEMM_N + i] = (float)((i + j) % 3) - 1;
                hb[j * GEMM_N + i] = (float)((i * j) % 3) - 1;
            }
        const uint64_t bytes = sizeof ha;
        if ((err = gb_case_alloc(&ctx, bytes, GB_MEM_DEVICE, &ga)) ||
            (err = gb_case_alloc(&ctx, bytes, GB_MEM_DEVICE, &gbuf)) ||
            (err = gb_case_alloc(&ctx, bytes, GB_MEM_DEVICE, &gc)) ||
            (err = gb_case_upload(&ctx, ga, ha, bytes)) ||
            (err = gb_case_upload(&ctx, gbuf, hb, bytes)))
            goto out;
        const struct gb_gemm g = gb_gemm_f32(GEMM_N, GEMM_N, GEMM_N, 1, ga, gbuf, gc);
        if ((err = ops->gemm(q, &g)) || (err = ops->queue_sync(q)) ||
            (err = gb_case_download(&ctx, hc, gc, bytes)))
            goto out;
        for (unsigned i = 0; i < GEMM_N && !why[0]; i++)
            for (unsigned j = 0; j < GEMM_N && !why[0]; j++) {
                float want = 0;
                for (unsigned l = 0; l < GEMM_N; l++)
                    want += ha[l * GEMM_N + i] * hb[j * GEMM_N + l];
                if (hc[j * GEMM_N + i] != want)
                    snprintf(why, sizeof why, "GEMM C[%u][%u] is %g, expected %g", i, j,
                             (double)hc[j * GEMM_N + i], (double)want);
            }
        if (why[0])
            goto out;
        t[3] = gb_now();
    }
    stage = "first";
    const uint64_t bytes = FIRST_WORDS * sizeof *hx;
    hx = malloc(bytes);
    hy = malloc(bytes);
    if (!hx || !hy) {
        err = GB_FAIL(GB_ENOMEM, "the first kernel's host buffers");
        goto out;
    }
    for (unsigned i = 0; i < FIRST_WORDS; i++) {
        hx[i] = i * 2654435761u;
        hy[i] = 0xDEADBEEFu;
    }
    const struct gb_launch l = {
        .dims = 1,
        .global = {(FIRST_WORDS + wg - 1) / wg * wg, 1, 1},
        .local = {wg, 1, 1},
        .nargs = 3,
        .args = {{.kind = GB_ARG_BUF, .v.buf = NULL},
                 {.kind = GB_ARG_BUF, .v.buf = NULL},
                 {.kind = GB_ARG_U32, .v.u32 = FIRST_WORDS}},
    };
    struct gb_launch lx = l;
    if ((err = gb_case_alloc(&ctx, bytes, GB_MEM_DEVICE, &x)) ||
        (err = gb_case_alloc(&ctx, bytes, GB_MEM_DEVICE, &y)) ||
        (err = gb_case_upload(&ctx, x, hx, bytes)) || (err = gb_case_upload(&ctx, y, hy, bytes)))
        goto out;
    lx.args[0].v.buf = y;
    lx.args[1].v.buf = x;
    if ((err = ops->launch(q, k, &lx)) || (err = ops->queue_sync(q)) ||
        (err = gb_case_download(&ctx, hy, y, bytes)))
        goto out;
    for (unsigned i = 0; i < FIRST_WORDS; i++)
        if (hy[i] != 3u * hx[i] + i) {
            snprintf(why, sizeof why, "the first kernel's word %u is 0x%08x, expected 0x%08x", i,
                     hy[i], 3u * hx[i] + i);
            break;
        }
    if (!why[0])
        t[4] = gb_now();
out:
    if (err && !why[0]) {
        const char *msg = gb_error_msg();
        snprintf(why, sizeof why, "%s%s%s", gb_strerror(err), *msg ? ": " : "", msg);
    }
    if (why[0])
        gb_child_reply(io, "%s %s: %s", err ? "fail" : "bad", stage, why);
    else
        gb_child_reply(io, "ok %.9f %.9f %.9f %.9f %.9f %.9f", io->t_main, t[0], t[1], t[2], t[3],
                       t[4]);
    free(hx);
    free(hy);
    if (ops) {
        struct gb_buf *bufs[] = {x, y, ga, gbuf, gc};
        for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
            if (bufs[i])
                ops->buf_free(bufs[i]);
        if (k)
            ops->kernel_free(k);
        if (prog)
            ops->program_free(prog);
        if (q)
            ops->queue_destroy(q);
        if (dev)
            ops->device_close(dev);
        if (dev || !err)
            ops->shutdown();
    }
    return why[0] ? 1 : 0;
}

/* ---- the case's side --------------------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* Removes the directory tree at path (a cache gpubench made); a missing one is fine. */
static void rm_tree(const char *path)
{
    if (path[0])
        nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Removes the cache trees under tmp that a startup case of a process no longer running left
 * (its worker killed by the case's limit or a signal before its teardown): named
 * "gpubench-startup-PID-XXXXXX", owned by this user, real directories, and kill(PID, 0)
 * answering ESRCH. Another live process's trees are kept. */
static void rm_stale(const char *tmp)
{
    DIR *d = opendir(tmp);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        long pid = 0;
        int used = 0;
        if (sscanf(e->d_name, "gpubench-startup-%ld-%n", &pid, &used) != 1 || !used || pid <= 0)
            continue;
        char path[PATH_MAX];
        struct stat st;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", tmp, e->d_name) >= sizeof path ||
            lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
            continue;
        if (pid > INT_MAX || (kill((pid_t)pid, 0) != 0 && errno == ESRCH))
            rm_tree(path);
    }
    closedir(d);
}

/* Points every compiler cache variable of the backend at dir. */
static void set_env(struct startup *s, const struct gb_backend_ops *ops, const char *dir)
{
    size_t n = 0;
    s->cache_env[0] = '\0';
    for (const char *const *v = ops->facts.compiler_cache_env; v && *v && n < MAX_ENV; v++) {
        snprintf(s->envbuf[n], sizeof s->envbuf[n], "%s=%s", *v, dir);
        s->env[n] = s->envbuf[n];
        size_t len = strlen(s->cache_env);
        snprintf(s->cache_env + len, sizeof s->cache_env - len, "%s%s", len ? " " : "", *v);
        n++;
    }
    s->env[n] = NULL;
}

static int push(struct startup *s, const double v[NSTAGES])
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 32;
        for (int i = 0; i < NSTAGES; i++) {
            double *p = realloc(s->st[i], cap * sizeof *p);
            if (!p)
                return GB_FAIL(GB_ENOMEM, "startup: stage times");
            s->st[i] = p;
        }
        s->cap = cap;
    }
    for (int i = 0; i < NSTAGES; i++)
        s->st[i][s->n] = v[i];
    s->n++;
    return 0;
}

/* One helper from fork to exit, its stage times pushed (seconds; a row of NaN for an output that
 * was wrong, kept in s->fail for verify). 0, or the helper's failure (it broke a stage, died or
 * did not answer) with the detail set. */
static int one_process(struct gb_case_ctx *ctx, struct startup *s)
{
    const struct gb_child_spec spec = {.suite = "startup",
                                       .backend = ctx->ops->name,
                                       .device = ctx->dev->index,
                                       .arg = s->want_blas ? "blas=on" : "blas=off",
                                       .env = s->env};
    struct gb_child *c = NULL;
    int err = gb_child_start(&spec, &c);
    if (err)
        return err;
    char line[GB_CHILD_LINE], why[160];
    err = gb_child_recv(c, line, sizeof line, GB_STARTUP_TIMEOUT_S);
    if (err) {
        gb_child_kill(c);
        gb_child_free(c);
        return err;
    }
    const int end = gb_child_end(c, 10.0, why, sizeof why);
    const double t_fork = gb_child_started(c);
    gb_child_free(c);
    double v[NSTAGES];
    for (int i = 0; i < NSTAGES; i++)
        v[i] = NAN;
    if (strncmp(line, "bad ", 4) == 0) {
        if (!s->fail[0])
            snprintf(s->fail, sizeof s->fail, "helper process, stage %.800s", line + 4);
        return push(s, v);
    }
    if (strncmp(line, "fail ", 5) == 0)
        return GB_USER_FAIL(GB_EBACKEND, "helper process failed at %.800s", line + 5);
    double t[6];
    if (sscanf(line, "ok %lf %lf %lf %lf %lf %lf", &t[0], &t[1], &t[2], &t[3], &t[4], &t[5]) != 6 ||
        !(t[0] >= t_fork && t[1] >= t[0] && t[2] >= t[1] && t[3] >= t[2] &&
          (t[4] < 0 || t[4] >= t[3]) && t[5] >= (t[4] < 0 ? t[3] : t[4])))
        return GB_USER_FAIL(GB_EBACKEND, "helper process sent \"%.200s\"", line);
    if (end)
        return GB_USER_FAIL(GB_EBACKEND, "helper process %s after its result", why);
    v[ST_PROCESS] = t[0] - t_fork;
    v[ST_INIT] = t[1] - t[0];
    v[ST_OPEN] = t[2] - t[1];
    v[ST_BUILD] = t[3] - t[2];
    v[ST_BLAS] = t[4] < 0 ? NAN : t[4] - t[3];
    v[ST_FIRST] = t[5] - (t[4] < 0 ? t[3] : t[4]);
    v[ST_TOTAL] = t[5] - t_fork;
    s->blas = s->blas || t[4] >= 0;
    return push(s, v);
}
static int startup_setup(struct gb_case_ctx *ctx)
{
    struct startup *s = ctx->state;
    s->cold = strcmp(gb_params_str(ctx->params, "cache"), "cold") == 0;
    s->want_blas = strcmp(gb_params_str(ctx->params, "blas"), "off") != 0;
    ctx->op.timer = GB_TIMER_HOST_CALL;
    ctx->op.max_batch = 1;
    const char *tmp = getenv("TMPDIR");
    if (tmp && strlen(tmp) > sizeof s->root - 48)
        tmp = NULL;
    rm_stale(tmp && *tmp ? tmp : "/tmp");
    snprintf(s->root, sizeof s->root, "%s/gpubench-startup-%ld-XXXXXX", tmp && *tmp ? tmp : "/tmp",
             (long)getpid());
    if (!mkdtemp(s->root)) {
        int e = errno;
        s->root[0] = '\0';
        return gb_case_skip(ctx, "startup: cannot make a cache directory under %s: %s",
                            tmp && *tmp ? tmp : "/tmp", strerror(e));
    }
    if (!s->cold) {
        /* The warm cache: filled by one helper whose times are not kept. */
        snprintf(s->dir, sizeof s->dir, "%s/warm", s->root);
        if (mkdir(s->dir, 0700))
            return GB_FAIL(GB_EIO, "startup: mkdir %s: %s", s->dir, strerror(errno));
        set_env(s, ctx->ops, s->dir);
        int err = one_process(ctx, s);
        s->n = 0;
        return err;
    }
    set_env(s, ctx->ops, "");
    return 0;
}

/* A cold run gets a new empty cache directory, made before the timing. */
static int startup_prepare(struct gb_case_ctx *ctx, uint64_t reps)
{
    (void)reps;
    struct startup *s = ctx->state;
    if (!s->cold)
        return 0;
    snprintf(s->dir, sizeof s->dir, "%s/cold-%u", s->root, s->runs++);
    if (mkdir(s->dir, 0700))
        return GB_FAIL(GB_EIO, "startup: mkdir %s: %s", s->dir, strerror(errno));
    set_env(s, ctx->ops, s->dir);
    return 0;
}

static int startup_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct startup *s = ctx->state;
    int err = 0;
    for (uint64_t r = 0; r < reps && !err; r++) {
        const size_t n = s->n;
        err = one_process(ctx, s);
        /* Only the kept samples' processes count (ctx->sampling); a wrong output counts always. */
        if (!err && !ctx->sampling && !s->fail[0])
            s->n = n;
    }
    return err;
}

/* A cold run's cache goes once the process has ended. */
static int startup_settle(struct gb_case_ctx *ctx, uint64_t reps)
{
    (void)reps;
    struct startup *s = ctx->state;
    if (s->cold) {
        rm_tree(s->dir);
        s->dir[0] = '\0';
    }
    return 0;
}

static int startup_verify(struct gb_case_ctx *ctx)
{
    struct startup *s = ctx->state;
    if (s->fail[0])
        return gb_case_mismatch(ctx, "%s", s->fail);
    if (!s->n)
        return gb_case_mismatch(ctx, "no helper process reported its stages");
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of sorted x[0..n) by the nearest rank, ceil(q n) (Hyndman and Fan's
 * definition 1). */
static double quantile(const double *x, size_t n, double q)
{
    size_t k = (size_t)ceil(q * (double)n);
    return x[k ? k - 1 : 0];
}

static void startup_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    (void)op_time_s;
    struct startup *s = ctx->state;
    /* The kept samples' processes (the last ones, should telemetry have discarded some). */
    size_t n = ctx->nsamples < s->n ? ctx->nsamples : s->n;
    size_t first = s->n - n;
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v || !n) {
        free(v);
        return;
    }
    for (int st = 0; st < NSTAGES; st++) {
        if (st == ST_BLAS && !s->blas)
            continue;
        memcpy(v, s->st[st] + first, n * sizeof *v);
        qsort(v, n, sizeof *v, cmp_double);
        char name[48];
        snprintf(name, sizeof name, "%s_p50_ms", stage_names[st]);
        gb_case_figure(ctx, name, "ms", 1e3 * quantile(v, n, 0.50));
        if (st != ST_TOTAL)
            continue;
        if (n >= 10)
            gb_case_figure(ctx, "total_p90_ms", "ms", 1e3 * quantile(v, n, 0.90));
        if (n >= 100)
            gb_case_figure(ctx, "total_p99_ms", "ms", 1e3 * quantile(v, n, 0.99));
        gb_case_figure(ctx, "total_max_ms", "ms", 1e3 * v[n - 1]);
    }
    for (size_t i = 0; i < n; i++)
        v[i] = 1e3 * s->st[ST_TOTAL][first + i];
    gb_case_headline(ctx, "latency", "ms", GB_BETTER_LOWER, v, n);
    free(v);
    gb_case_text(ctx, "cache_env", "%s", s->cache_env[0] ? s->cache_env : "none known");
    if (!s->blas)
        gb_case_text(ctx, "blas", "%s",
                     s->want_blas ? "no F32 GEMM on this backend or device: no blas stage"
                                  : "off: no blas stage");
    struct gb_tel_session *tel = gb_tel_session_for(ctx->dev);
    if (tel) {
        struct gb_tel_device_state st;
        gb_tel_state(tel, &st);
        if (st.persistence >= 0)
            gb_case_text(ctx, "persistence", "%s", st.persistence ? "on" : "off");
    }
}

static void startup_teardown(struct gb_case_ctx *ctx)
{
    struct startup *s = ctx->state;
    rm_tree(s->root);
    for (int i = 0; i < NSTAGES; i++)
        free(s->st[i]);
}

const struct gb_suite gb_suite_startup = {
    .name = "startup",
    .summary = "time to a useful worker: a fresh process stage by stage (init, open, build, BLAS, "
               "first verified result), compiler caches cold or warm",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "cache",
    .state_size = sizeof(struct startup),
    .setup = startup_setup,
    .prepare = startup_prepare,
    .run = startup_run,
    .settle = startup_settle,
    .verify = startup_verify,
    .teardown = startup_teardown,
    .figures = startup_figures,
    .child = startup_child,
    .chart = {.kind = GB_CHART_BARS},
};
