/* tenants — many processes on one device, and the noisy neighbour.
 *
 * A case starts a victim and `aggressors` aggressor processes (helper processes, run/child.h:
 * gpubench started afresh, each with its own context on the same device, as tenants of a shared
 * GPU are) and keeps them for all its runs. Each opens the device, builds and allocates, runs
 * its work once, and reports ready. Then, per run of the harness:
 *   prepare  every live aggressor is told to start and confirms that its first work is queued;
 *            it then keeps the device busy until told to stop (untimed);
 *   run      the victim does one operation (timed on the host around the exchange);
 *   settle   every aggressor is told to stop and reports the work it got done in its window.
 * Victims (`victim`, the case's name):
 *   triad  8 triads a = b + 2 c over `size` bytes per array (kernels/concurrency.cl's conc_triad,
 *          3 arrays counted, as BabelStream counts): the headline is the victim's GB/s;
 *   gemm   32 requests of a `gemm_n`^3 F32 GEMM at a fixed rate, one every `period` (4 times the
 *          GEMM's median time alone, measured by the victim at its start: a quarter of the
 *          device's time when alone), each request's latency from its scheduled time to its
 *          completion on the host (so a late start counts: no coordinated omission); the
 *          headline is each run's p99 latency (us, gb_case_headline), with p50/p99 over every
 *          kept run as figures.
 * Aggressors (`aggressor`): none (the victim alone), triad (as the victim's, `size` bytes),
 * gemm (`big_n`^3 F32), h2d (copies of `size` bytes from pinned host memory), launches (conc_tick:
 * a flood of tiny launches, 64 per wait). `aggressor_rate` is their summed rate while the
 * victim ran (GB/s, GFLOP/s or Mlaunch/s on each aggressor's own clock), the mean over the kept
 * samples' rounds: an aggressor that died adds nothing to the rounds after (a triad counts its
 * 3 arrays of `size` bytes, as the victim's does).
 * The derive step adds `slowdown` to every case with aggressors: the victim's figure beside
 * them over its figure alone (the same case with `aggressor: none`, measured earlier in the
 * run), > 1 when slower; the victim's share of the device against alone is 1 / slowdown.
 * `sharing` records how the driver says the device is shared (gb_device_info.sharing: compute
 * mode, MPS, MIG); gpubench never changes it.
 *
 * Verification: every tenant checks its own output at the end, exactly (small integers): the
 * triad element by element, the GEMMs on sampled rows against a host product, the copy's bytes,
 * the tick counter against the launches made. A victim that fails, dies or hangs fails the case;
 * an aggressor that does is recorded as its own failed result (param `tenant`, "aggressor K")
 * with how it ended, and the victim's result survives with `aggressors_alive`, a `tenants`
 * note saying which rounds ran beside fewer aggressors, and `samples_beside` (the kept samples
 * in which at least one aggressor ran) where that is not all of them; a case in which no
 * aggressor ran beside the victim in any kept sample measured the victim alone and fails
 * verification (no figure beside aggressors, no slowdown). Test hook, read by the helpers:
 * GPUBENCH_TEST_TENANT="die:ROLE:ROUND" or "hang:ROLE:ROUND" (ROLE victim or aggressor1) kills
 * that helper at its ROUND-th round (1-based) or makes it stop answering; "bad:ROLE:0" makes its
 * check fail; GPUBENCH_TEST_TENANT_WORK="OPS:SECS" makes every aggressor report that work in each
 * round's window (it still does its own), so that a test knows the rate the case must derive.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/stats.h"
#include "base/error.h"
#include "base/units.h"
#include "run/child.h"
#include "run/subcase.h"
#include "run/suite.h"
#include "run/supervise.h"
#include "suites/common.h"

#define MAX_AGGRESSORS 7
#define TRIADS_PER_OP 8u
#define REQUESTS_PER_OP 32u
#define LAUNCHES_PER_WAIT 64u
#define READY_TIMEOUT_S 300.0 /* a cold CLBlast build on PoCL: about 20 s per process */
#define REPLY_TIMEOUT_S 15.0  /* a start, a stop, a check: a unit of work is well under it */

/* REPLY_TIMEOUT_S, or the test hook GPUBENCH_TEST_TENANTS_REPLY_S (1 to 15 s: a test that hangs
 * a helper on purpose need not wait the whole limit). */
static double reply_timeout(void)
{
    const char *e = getenv("GPUBENCH_TEST_TENANTS_REPLY_S");
    const double v = e ? strtod(e, NULL) : 0;
    return v >= 1 && v <= REPLY_TIMEOUT_S ? v : REPLY_TIMEOUT_S;
}
#define CHECK_ROWS 8u

enum kind { K_NONE, K_TRIAD, K_GEMM, K_H2D, K_LAUNCHES };
static const char *const kind_names[] = {"none", "triad", "gemm", "h2d", "launches", NULL};
static const char *const victims[] = {"triad", "gemm", NULL};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("victim", "[triad, gemm]", victims,
                "triad (its bandwidth) or gemm (small GEMMs at a fixed rate: their latency)"),
    GB_AXIS_STR("aggressor", "[none, triad, gemm, h2d, launches]", kind_names,
                "what the other processes run: none (the victim alone), triad, gemm, h2d, "
                "launches"),
    GB_AXIS_INT("aggressors", "1", 1, MAX_AGGRESSORS, "aggressor processes beside the victim"),
    GB_AXIS_SIZE("size", "16MiB", 4, 0, "triad: bytes per array; h2d: bytes per copy"),
    GB_AXIS_INT("gemm_n", "128", 1, 4096, "the victim's GEMM: n x n x n, F32"),
    GB_AXIS_INT("big_n", "1024", 1, 16384, "the aggressor's GEMM: n x n x n, F32"),
};

static enum kind kind_of(const char *name)
{
    for (int i = 0; kind_names[i]; i++)
        if (strcmp(name, kind_names[i]) == 0)
            return (enum kind)i;
    return K_NONE;
}

/* The test hook's action for this helper at this round: 'd' die, 'h' hang, 'b' bad check, 0. */
static char hook_action(const char *role, unsigned round)
{
    const char *h = getenv("GPUBENCH_TEST_TENANT");
    char what[8], who[32];
    unsigned at = 0;
    if (!h || sscanf(h, "%7[^:]:%31[^:]:%u", what, who, &at) != 3 || strcmp(who, role))
        return 0;
    if (strcmp(what, "bad") == 0)
        return round == 0 ? 'b' : 0;
    if (at != round)
        return 0;
    return strcmp(what, "die") == 0 ? 'd' : strcmp(what, "hang") == 0 ? 'h' : 0;
}

/* ---- a tenant's work (the helper's side) ------------------------------------------------- */

struct work {
    const struct gb_backend_ops *ops;
    struct gb_device *dev;
    struct gb_queue *q;
    struct gb_case_ctx ctx;
    enum kind kind;
    uint64_t n;  /* triad: floats per array; h2d: bytes */
    uint64_t gn; /* gemm: n */
    struct gb_program *prog;
    struct gb_kernel *k;
    struct gb_buf *a, *b, *c, *host;
    struct gb_launch l;
    struct gb_gemm g;
    uint64_t launches; /* launches made (the tick counter's expected value) */
    float *ha, *hb;    /* gemm: the inputs, for the check */
};

static float gemm_a(uint64_t i, uint64_t j)
{
    return (float)((i + 2 * j) % 3) - 1;
}
static float gemm_b(uint64_t i, uint64_t j)
{
    return (float)((i * j + 1) % 3) - 1;
}

static int work_setup(struct work *w, const char *role)
{
    (void)role;
    struct gb_case_ctx *ctx = &w->ctx;
    int err = 0;
    /* The triad's work-group: 256, or the largest divisor the device and the kernel allow. */
    uint32_t wg = gb_case_own_wg(ctx, 256);
    if (w->kind == K_TRIAD) {
        const uint64_t bytes = w->n * sizeof(float);
        float *h = malloc(bytes);
        if (!h)
            return GB_FAIL(GB_ENOMEM, "the triad's host array");
        if ((err = gb_case_alloc(ctx, bytes, GB_MEM_DEVICE, &w->a)) ||
            (err = gb_case_alloc(ctx, bytes, GB_MEM_DEVICE, &w->b)) ||
            (err = gb_case_alloc(ctx, bytes, GB_MEM_DEVICE, &w->c))) {
            free(h);
            return err;
        }
        for (uint64_t i = 0; i < w->n; i++)
            h[i] = (float)(i % 7);
        err = gb_case_upload(ctx, w->b, h, bytes);
        for (uint64_t i = 0; i < w->n && !err; i++)
            h[i] = (float)(i % 5);
        if (!err)
            err = gb_case_upload(ctx, w->c, h, bytes);
        free(h);
        if (err || (err = gb_case_build_wg(ctx, "concurrency.cl", "conc_triad", NULL, 0, NULL, &wg,
                                           &w->prog, &w->k)))
            return err;
        w->l = (struct gb_launch){.dims = 1,
                                  .global = {(w->n + wg - 1) / wg * wg, 1, 1},
                                  .local = {wg, 1, 1},
                                  .nargs = 5};
        w->l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = w->a};
        w->l.args[1] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = w->b};
        w->l.args[2] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = w->c};
        w->l.args[3] = (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = 2.0f};
        w->l.args[4] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = w->n};
    } else if (w->kind == K_LAUNCHES) {
        const unsigned int zero = 0;
        if ((err = gb_case_alloc(ctx, sizeof zero, GB_MEM_DEVICE, &w->a)) ||
            (err = gb_case_upload(ctx, w->a, &zero, sizeof zero)) ||
            (err = gb_case_build(ctx, "concurrency.cl", "conc_tick", NULL, 0, &w->prog, &w->k)))
            return err;
        w->l = (struct gb_launch){.dims = 1, .global = {1, 1, 1}, .local = {1, 1, 1}, .nargs = 1};
        w->l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = w->a};
    } else if (w->kind == K_H2D) {
        if ((err = gb_case_alloc(ctx, w->n, GB_MEM_HOST_PINNED, &w->host)) ||
            (err = gb_case_alloc(ctx, w->n, GB_MEM_DEVICE, &w->a)))
            return err;
        gb_fill_pattern(w->host->host, w->n, 0x7e4a);
    } else if (w->kind == K_GEMM) {
        if (!w->ops->gemm || !(w->dev->info.caps & GB_CAP_BLAS_F32))
            return GB_USER_FAIL(GB_EUNSUPPORTED, "the device has no F32 GEMM (no BLAS library)");
        const uint64_t nn = w->gn * w->gn, bytes = nn * sizeof(float);
        w->ha = malloc(bytes);
        w->hb = malloc(bytes);
        if (!w->ha || !w->hb)
            return GB_FAIL(GB_ENOMEM, "the GEMM's host matrices");
        for (uint64_t j = 0; j < w->gn; j++)
            for (uint64_t i = 0; i < w->gn; i++) {
                w->ha[j * w->gn + i] = gemm_a(i, j);
                w->hb[j * w->gn + i] = gemm_b(i, j);
            }
        if ((err = gb_case_alloc(ctx, bytes, GB_MEM_DEVICE, &w->a)) ||
            (err = gb_case_alloc(ctx, bytes, GB_MEM_DEVICE, &w->b)) ||
            (err = gb_case_alloc(ctx, bytes, GB_MEM_DEVICE, &w->c)) ||
            (err = gb_case_upload(ctx, w->a, w->ha, bytes)) ||
            (err = gb_case_upload(ctx, w->b, w->hb, bytes)))
            return err;
        w->g = (struct gb_gemm){.a_type = GB_F32,
                                .c_type = GB_F32,
                                .compute = GB_F32,
                                .m = w->gn,
                                .n = w->gn,
                                .k = w->gn,
                                .alpha = 1,
                                .beta = 0,
                                .a = w->a,
                                .b = w->b,
                                .c = w->c,
                                .lda = w->gn,
                                .ldb = w->gn,
                                .ldc = w->gn,
                                .batch = 1};
    }
    return 0;
}

/* Enqueues one unit of work (a launch, a GEMM, a copy). */
static int work_op(struct work *w)
{
    switch (w->kind) {
    case K_TRIAD:
        return w->ops->launch(w->q, w->k, &w->l);
    case K_LAUNCHES:
        w->launches++;
        return w->ops->launch(w->q, w->k, &w->l);
    case K_H2D:
        return w->ops->copy(w->q, w->a, 0, w->host, 0, w->n, GB_COPY_ASYNC);
    case K_GEMM:
        return w->ops->gemm(w->q, &w->g);
    default:
        return 0;
    }
}

/* What one unit counts for the rate: bytes (GB/s), flops (GFLOP/s) or launches (Mlaunch/s). n is
 * the tenant's (work_n): floats per array for a triad, bytes per copy for h2d; gn the GEMM's. */
static double work_amount(enum kind k, uint64_t n, uint64_t gn)
{
    switch (k) {
    case K_TRIAD:
        return 3.0 * (double)n * sizeof(float);
    case K_H2D:
        return (double)n;
    case K_GEMM:
        return 2.0 * (double)gn * (double)gn * (double)gn;
    case K_LAUNCHES:
        return 1.0;
    default:
        return 0;
    }
}

/* What a tenant of kind k is given as its n: floats per array for a triad (`size` is bytes per
 * array), bytes per copy for h2d (work_amount's n). */
static uint64_t work_n(enum kind k, uint64_t size)
{
    return k == K_TRIAD ? size / sizeof(float) : size;
}

static const char *work_unit(enum kind k)
{
    return k == K_GEMM ? "GFLOP/s" : k == K_LAUNCHES ? "Mlaunch/s" : "GB/s";
}

/* Checks the tenant's output; "" when right, else what differs into why. */
static int work_check(struct work *w, char *why, size_t len)
{
    struct gb_case_ctx *ctx = &w->ctx;
    int err = 0;
    why[0] = '\0';
    if (w->kind == K_TRIAD) {
        float *a = gb_case_read_back(ctx, w->a, w->n * sizeof(float), &err);
        for (uint64_t i = 0; a && i < w->n; i++)
            if (a[i] != (float)(i % 7) + 2.0f * (float)(i % 5)) {
                snprintf(why, len, "triad element %llu is %g, expected %g", (unsigned long long)i,
                         (double)a[i], (double)((float)(i % 7) + 2.0f * (float)(i % 5)));
                break;
            }
        free(a);
    } else if (w->kind == K_LAUNCHES) {
        unsigned int *cnt = gb_case_read_back(ctx, w->a, sizeof *cnt, &err);
        if (cnt && *cnt != (unsigned int)w->launches)
            snprintf(why, len, "tick counter is %u after %llu launches", *cnt,
                     (unsigned long long)w->launches);
        free(cnt);
    } else if (w->kind == K_H2D) {
        unsigned char *d = gb_case_read_back(ctx, w->a, w->n, &err);
        const unsigned char *h = w->host->host;
        for (uint64_t i = 0; d && i < w->n; i++)
            if (d[i] != h[i]) {
                snprintf(why, len, "copied byte %llu is 0x%02x, expected 0x%02x",
                         (unsigned long long)i, d[i], h[i]);
                break;
            }
        free(d);
    } else if (w->kind == K_GEMM) {
        float *c = gb_case_read_back(ctx, w->c, w->gn * w->gn * sizeof(float), &err);
        /* Sampled rows, first and last among them, every column: sums of n products of -1, 0
         * and 1, exact in F32 below 2^24. */
        for (uint64_t s = 0; c && s < CHECK_ROWS && !why[0]; s++) {
            const uint64_t i = CHECK_ROWS > 1 ? s * (w->gn - 1) / (CHECK_ROWS - 1) : 0;
            for (uint64_t j = 0; j < w->gn; j++) {
                float want = 0;
                for (uint64_t l = 0; l < w->gn; l++)
                    want += w->ha[l * w->gn + i] * w->hb[j * w->gn + l];
                if (c[j * w->gn + i] != want) {
                    snprintf(why, len, "GEMM C[%llu][%llu] is %g, expected %g",
                             (unsigned long long)i, (unsigned long long)j, (double)c[j * w->gn + i],
                             (double)want);
                    break;
                }
            }
        }
        free(c);
    }
    return err;
}

static void work_free(struct work *w)
{
    struct gb_buf *bufs[] = {w->a, w->b, w->c, w->host};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i])
            w->ops->buf_free(bufs[i]);
    if (w->k)
        w->ops->kernel_free(w->k);
    if (w->prog)
        w->ops->program_free(w->prog);
    if (w->q)
        w->ops->queue_destroy(w->q);
    if (w->dev)
        w->ops->device_close(w->dev);
    free(w->ha);
    free(w->hb);
}

/* arg: "role=victim|aggressorK kind=NAME n=N gn=N" */
static int tenant_child(struct gb_child_io *io)
{
    char role[32] = "", kind[16] = "";
    unsigned long long n = 0, gn = 0;
    if (sscanf(io->arg, "role=%31s kind=%15s n=%llu gn=%llu", role, kind, &n, &gn) != 4) {
        gb_child_reply(io, "fail setup: bad argument \"%s\"", io->arg);
        return 2;
    }
    struct work w = {.kind = kind_of(kind), .n = n, .gn = gn};
    const bool victim = strcmp(role, "victim") == 0;
    int err = 0;
    char why[512] = "";
    w.ops = gb_backend_find(io->backend);
    if (!w.ops) {
        gb_child_reply(io, "fail setup: no backend \"%s\"", io->backend);
        return 2;
    }
    if ((err = w.ops->init()) || (err = w.ops->device_open(io->device, &w.dev)) ||
        (err = w.ops->queue_create(w.dev, &w.q))) {
        gb_child_reply(io, "fail setup: %s: %s", gb_strerror(err), gb_error_msg());
        return 1;
    }
    w.ctx = (struct gb_case_ctx){.ops = w.ops, .dev = w.dev, .q = w.q};
    double period = 0;
    if (!(err = work_setup(&w, role)) && !(err = work_op(&w)))
        err = w.ops->queue_sync(w.q);
    if (!err && victim && w.kind == K_GEMM) {
        /* The request rate: a quarter of the device's time alone (4 x the median service). */
        double t[9];
        for (int i = 0; i < 9 && !err; i++) {
            double t0 = gb_now();
            if (!(err = work_op(&w)))
                err = w.ops->queue_sync(w.q);
            t[i] = gb_now() - t0;
        }
        gb_sort_doubles(t, 9);
        period = 4 * t[4];
    }
    if (err) {
        gb_child_reply(io, "fail setup: %s: %s", gb_strerror(err), gb_error_msg());
        work_free(&w);
        return 1;
    }
    gb_child_reply(io, "ready %.9g", period);
    char cmd[256];
    unsigned round = 0;
    int rc = 0;
    double *lat = NULL;
    while (gb_child_read(io, cmd, sizeof cmd, -1) == 0) {
        if (strncmp(cmd, "go ", 3) == 0 && victim) {
            unsigned long long reps = strtoull(cmd + 3, NULL, 10);
            char act = hook_action(role, ++round);
            if (act == 'd')
                raise(SIGKILL);
            if (act == 'h')
                for (;;)
                    pause();
            if (w.kind == K_TRIAD) {
                for (unsigned long long r = 0; r < reps * TRIADS_PER_OP && !err; r++)
                    err = work_op(&w);
                if (!err)
                    err = w.ops->queue_sync(w.q);
                if (err)
                    break;
                gb_child_reply(io, "done");
                continue;
            }
            const size_t nreq = (size_t)reps * REQUESTS_PER_OP;
            double *p = realloc(lat, nreq * sizeof *lat);
            if (!p) {
                err = GB_FAIL(GB_ENOMEM, "latencies");
                break;
            }
            lat = p;
            const double t0 = gb_now();
            for (size_t r = 0; r < nreq && !err; r++) {
                const double due = t0 + (double)r * period;
                gb_wait_until(due);
                if (!(err = work_op(&w)))
                    err = w.ops->queue_sync(w.q);
                lat[r] = gb_now() - due;
            }
            if (err)
                break;
            char line[GB_CHILD_LINE];
            size_t off = (size_t)snprintf(line, sizeof line, "done");
            for (size_t r = 0; r < nreq && off + 20 < sizeof line; r++)
                off += (size_t)snprintf(line + off, sizeof line - off, " %.6e", lat[r]);
            gb_child_reply(io, "%s", line);
        } else if (strcmp(cmd, "start") == 0 && !victim) {
            char act = hook_action(role, ++round);
            if (act == 'd')
                raise(SIGKILL);
            const double t0 = gb_now();
            uint64_t ops = 0;
            if ((err = work_op(&w)) || (err = w.ops->queue_flush(w.q)))
                break;
            ops++;
            gb_child_reply(io, "started");
            /* Two units in flight, then a wait, until told to stop (tiny launches: 64). */
            const unsigned per = w.kind == K_LAUNCHES ? LAUNCHES_PER_WAIT : 2;
            for (;;) {
                int got = gb_child_read(io, cmd, sizeof cmd, 0);
                if (got == 0 || got == GB_EIO)
                    break;
                for (unsigned u = 1; u < per && !err; u++, ops++)
                    err = work_op(&w);
                if (err || (err = w.ops->queue_sync(w.q)))
                    break;
                if (!(err = work_op(&w)))
                    ops++;
                if (err)
                    break;
            }
            if (err || (err = w.ops->queue_sync(w.q)))
                break;
            if (act == 'h')
                for (;;)
                    pause();
            double secs = gb_now() - t0;
            unsigned long long said_ops = 0;
            double said_secs = 0;
            const char *said = getenv("GPUBENCH_TEST_TENANT_WORK");
            if (said && sscanf(said, "%llu:%lf", &said_ops, &said_secs) == 2 && said_secs > 0) {
                ops = said_ops;
                secs = said_secs;
            }
            gb_child_reply(io, "stopped %llu %.9g", (unsigned long long)ops, secs);
        } else if (strcmp(cmd, "check") == 0) {
            if ((err = w.ops->queue_sync(w.q)) || (err = work_check(&w, why, sizeof why)))
                break;
            if (hook_action(role, 0) == 'b' && !why[0])
                snprintf(why, sizeof why, "the test hook says so");
            if (why[0])
                gb_child_reply(io, "bad %s", why);
            else
                gb_child_reply(io, "ok");
        } else {
            gb_child_reply(io, "fail protocol: unknown command \"%.100s\"", cmd);
            rc = 2;
            break;
        }
    }
    if (err) {
        gb_child_reply(io, "fail round %u: %s: %s", round, gb_strerror(err), gb_error_msg());
        rc = 1;
    }
    free(lat);
    work_free(&w);
    return rc;
}

/* ---- the case's side --------------------------------------------------------------------- */

struct tenant {
    struct gb_child *c;
    bool dead;
    unsigned died_round; /* the round it failed in (0: setup or check) */
    char why[600];       /* how it failed */
};

struct tenants {
    enum kind victim, aggr;
    int na;
    uint64_t n, gn, big_n;
    struct tenant v, a[MAX_AGGRESSORS];
    double period;
    unsigned round;
    /* The kept samples' rounds (ctx->sampling at settle): how many, in how many at least one
     * aggressor ran and reported its work, and the sum over them of the aggressors' summed rate
     * (units per second; an aggressor that did not report in a round adds 0 to it). */
    unsigned kept_rounds, kept_beside;
    double kept_rate_sum;
    double *lat; /* gemm victim: every request's latency, s, run after run */
    size_t nlat, cap;
    size_t *run_end; /* lat index where each run ends */
    size_t nruns, runs_cap;
    char fail[700];
};

/* Fails with err, the message prefixed (the error detail is copied first: it is the buffer
 * being written). */
static int fail_with(int err, const char *prefix)
{
    char msg[700];
    snprintf(msg, sizeof msg, "%s", gb_error_msg());
    return GB_USER_FAIL(err, "%s: %s", prefix, msg);
}

/* Waits for a helper's reply in slices, telling the supervisor the case is alive meanwhile. */
static int recv_alive(struct tenant *t, char *line, size_t len, double timeout_s)
{
    const double end = gb_now() + timeout_s;
    double cpu = gb_child_cpu_s(t->c);
    for (;;) {
        double left = end - gb_now();
        double slice = left < 5 ? left : 5;
        int err = gb_child_recv(t->c, line, len, slice > 0 ? slice : 0);
        if (err != GB_ETIMEOUT || left <= 5) {
            if (err == GB_ETIMEOUT)
                gb_error_set(err, NULL, 0, "no reply within %.0f s", timeout_s);
            return err;
        }
        /* The case is kept alive only while the helper works (its CPU time grew in the slice:
         * a compiler building kernels); a stopped or blocked helper is left to the case's own
         * limit (measure.case_timeout). */
        const double now_cpu = gb_child_cpu_s(t->c);
        if (isnan(now_cpu) || isnan(cpu) || now_cpu > cpu)
            gb_worker_heartbeat();
        cpu = now_cpu;
    }
}

/* Marks aggressor i dead: killed, with how it failed. */
static void aggressor_died(struct tenants *s, int i, const char *what)
{
    struct tenant *t = &s->a[i];
    if (t->dead)
        return;
    t->dead = true;
    t->died_round = s->round;
    char how[160] = "";
    const char *msg = gb_error_msg();
    if (gb_child_alive(t->c)) {
        gb_child_kill(t->c);
        snprintf(how, sizeof how, "; killed");
    }
    snprintf(t->why, sizeof t->why, "aggressor %d (%s) %s in round %u: %.400s%s", i + 1,
             kind_names[s->aggr], what, s->round, msg, how);
}

static int start_tenant(struct gb_case_ctx *ctx, struct tenants *s, struct tenant *t,
                        const char *role, enum kind k)
{
    char arg[256];
    snprintf(arg, sizeof arg, "role=%s kind=%s n=%llu gn=%llu", role, kind_names[k],
             (unsigned long long)work_n(k, s->n),
             (unsigned long long)(strcmp(role, "victim") == 0 ? s->gn : s->big_n));
    const struct gb_child_spec spec = {
        .suite = "tenants", .backend = ctx->ops->name, .device = ctx->dev->index, .arg = arg};
    int err = gb_child_start(&spec, &t->c);
    if (err)
        return err;
    char line[GB_CHILD_LINE];
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s tenant did not start", role);
    if ((err = recv_alive(t, line, sizeof line, READY_TIMEOUT_S)))
        return fail_with(err, prefix);
    if (strncmp(line, "fail ", 5) == 0) {
        if (strstr(line, "no F32 GEMM"))
            return gb_case_skip(ctx, "%s tenant: %s", role, line + 5);
        return GB_USER_FAIL(GB_EBACKEND, "%s tenant: %.600s", role, line + 5);
    }
    double period = 0;
    if (sscanf(line, "ready %lf", &period) != 1)
        return GB_USER_FAIL(GB_EBACKEND, "%s tenant sent \"%.200s\"", role, line);
    if (t == &s->v)
        s->period = period;
    return 0;
}

/* Alone, the aggressors' count and GEMM size mean nothing: one case. */
static bool tenants_normalize(struct gb_params *p)
{
    if (strcmp(gb_params_str(p, "aggressor"), "none") == 0) {
        struct gb_value *na = gb_params_slot(p, "aggressors"), *bn = gb_params_slot(p, "big_n");
        if (na)
            na->u.i = 1;
        if (bn)
            bn->u.i = 1024;
    }
    return true;
}

/* What the case's tenants never run does not apply (what people read leaves it out; results
 * keep it): aggressors and big_n without an aggressor (normalize's 1 and 1024), gemm_n but for
 * a gemm victim. size (every tenant's buffers must fit) and big_n beside another aggressor
 * still enter setup's fit check: they apply. */
static bool tenants_axis_applies(const struct gb_params *p, const char *axis)
{
    if (strcmp(axis, "aggressors") == 0 || strcmp(axis, "big_n") == 0)
        return strcmp(gb_params_str(p, "aggressor"), "none") != 0;
    if (strcmp(axis, "gemm_n") == 0)
        return strcmp(gb_params_str(p, "victim"), "triad") != 0;
    return true;
}

static int tenants_setup(struct gb_case_ctx *ctx)
{
    struct tenants *s = ctx->state;
    s->victim = kind_of(gb_params_str(ctx->params, "victim"));
    s->aggr = kind_of(gb_params_str(ctx->params, "aggressor"));
    s->na = s->aggr == K_NONE ? 0 : (int)gb_params_int(ctx->params, "aggressors");
    s->n = gb_params_size(ctx->params, "size");
    s->gn = (uint64_t)gb_params_int(ctx->params, "gemm_n");
    s->big_n = (uint64_t)gb_params_int(ctx->params, "big_n");
    const struct gb_device_info *info = &ctx->dev->info;
    if (s->n % 4)
        return gb_case_skip(ctx, "size %llu is not a multiple of 4 bytes",
                            (unsigned long long)s->n);
    /* Every tenant's buffers at once must fit (three arrays of the victim's and each
     * aggressor's, the largest case). */
    const double per =
        3.0 * (double)(s->n > s->big_n * s->big_n * 4 ? s->n : s->big_n * s->big_n * 4);
    if (info->global_mem && per * (s->na + 1) > 0.8 * (double)info->global_mem)
        return gb_case_skip(ctx, "%d tenants' buffers (%.3g GB) do not fit in %.3g GB", s->na + 1,
                            per * (s->na + 1) / 1e9, (double)info->global_mem / 1e9);
    if (info->max_alloc && (s->n > info->max_alloc || s->big_n * s->big_n * 4 > info->max_alloc))
        return gb_case_skip(ctx, "a tenant's buffer exceeds the device's largest allocation");
    /* A device that admits one process at a time cannot be shared: said, not tried. */
    if (strncmp(info->sharing, "exclusive-process", 17) == 0 ||
        strncmp(info->sharing, "prohibited", 10) == 0)
        return gb_case_skip(ctx, "the device's compute mode is %s: it admits no second process",
                            info->sharing);
    ctx->op.timer = GB_TIMER_HOST_CALL;
    ctx->op.max_batch = 1;
    if (s->victim == K_TRIAD)
        ctx->op.bytes = TRIADS_PER_OP * work_amount(K_TRIAD, work_n(K_TRIAD, s->n), 0);
    int err = start_tenant(ctx, s, &s->v, "victim", s->victim);
    for (int i = 0; i < s->na && !err; i++) {
        char role[32];
        snprintf(role, sizeof role, "aggressor%d", i + 1);
        err = start_tenant(ctx, s, &s->a[i], role, s->aggr);
    }
    return err;
}

static int tenants_prepare(struct gb_case_ctx *ctx, uint64_t reps)
{
    (void)reps;
    struct tenants *s = ctx->state;
    s->round++;
    char line[GB_CHILD_LINE];
    for (int i = 0; i < s->na; i++) {
        struct tenant *t = &s->a[i];
        if (t->dead)
            continue;
        int err = gb_child_send(t->c, "start");
        if (!err)
            err = recv_alive(t, line, sizeof line, reply_timeout());
        if (err) {
            aggressor_died(s, i, "failed to start");
        } else if (strcmp(line, "started")) {
            gb_error_set(GB_EBACKEND, NULL, 0, "%s", line);
            aggressor_died(s, i, "failed to start");
        }
    }
    return 0;
}

static int tenants_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct tenants *s = ctx->state;
    char cmd[64], line[GB_CHILD_LINE];
    snprintf(cmd, sizeof cmd, "go %llu", (unsigned long long)reps);
    int err = gb_child_send(s->v.c, cmd);
    if (!err)
        err = recv_alive(&s->v, line, sizeof line,
                         reply_timeout() + 10.0 * s->period * REQUESTS_PER_OP * (double)reps);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "victim tenant, round %u", s->round);
    if (err)
        return fail_with(err, prefix);
    if (strncmp(line, "done", 4))
        return GB_USER_FAIL(GB_EBACKEND, "victim tenant, round %u: %.600s", s->round, line);
    if (s->victim != K_GEMM)
        return 0;
    /* The requests' latencies, appended. */
    const size_t want = (size_t)reps * REQUESTS_PER_OP;
    if (s->nlat + want > s->cap) {
        size_t cap = (s->nlat + want) * 2;
        double *p = realloc(s->lat, cap * sizeof *p);
        if (!p)
            return GB_FAIL(GB_ENOMEM, "latencies");
        s->lat = p;
        s->cap = cap;
    }
    if (s->nruns == s->runs_cap) {
        size_t cap = s->runs_cap ? 2 * s->runs_cap : 64;
        size_t *p = realloc(s->run_end, cap * sizeof *p);
        if (!p)
            return GB_FAIL(GB_ENOMEM, "latencies");
        s->run_end = p;
        s->runs_cap = cap;
    }
    const char *p = line + 4;
    size_t got = 0;
    for (; got < want; got++) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !(v >= 0) || !isfinite(v))
            break;
        s->lat[s->nlat + got] = v;
        p = end;
    }
    if (got != want)
        return GB_USER_FAIL(GB_EBACKEND, "victim tenant sent %zu latencies of %zu", got, want);
    /* Only the kept samples' requests count (ctx->sampling). */
    if (ctx->sampling) {
        s->nlat += want;
        s->run_end[s->nruns++] = s->nlat;
    }
    return 0;
}

static int tenants_settle(struct gb_case_ctx *ctx, uint64_t reps)
{
    (void)reps;
    struct tenants *s = ctx->state;
    char line[GB_CHILD_LINE];
    /* This round's aggressors' summed rate, units per second: each one that reports its work
     * adds its own; one that died adds nothing, in this round and after. */
    const double amount = work_amount(s->aggr, work_n(s->aggr, s->n), s->big_n);
    double rate = 0;
    unsigned reported = 0;
    for (int i = 0; i < s->na; i++) {
        struct tenant *t = &s->a[i];
        if (t->dead)
            continue;
        int err = gb_child_send(t->c, "stop");
        if (!err)
            err = recv_alive(t, line, sizeof line, reply_timeout());
        unsigned long long ops = 0;
        double secs = 0;
        if (err) {
            aggressor_died(s, i, err == GB_ETIMEOUT ? "hung" : "died");
        } else if (sscanf(line, "stopped %llu %lf", &ops, &secs) != 2) {
            gb_error_set(GB_EBACKEND, NULL, 0, "%s", line);
            aggressor_died(s, i, "failed");
        } else if (secs > 0) {
            rate += amount * (double)ops / secs;
            reported++;
        }
    }
    /* Only the kept samples' rounds count (ctx->sampling), as only their victim's figures do. */
    if (ctx->sampling && s->na) {
        s->kept_rounds++;
        s->kept_beside += reported > 0;
        s->kept_rate_sum += rate;
    }
    return 0;
}

/* Asks a tenant to check its output: 0 with why "" (right), why set (wrong), or an error. */
static int check_tenant(struct tenant *t, char *why, size_t len)
{
    char line[GB_CHILD_LINE];
    why[0] = '\0';
    int err = gb_child_send(t->c, "check");
    if (!err)
        err = recv_alive(t, line, sizeof line, reply_timeout());
    if (err)
        return err;
    if (strcmp(line, "ok") == 0)
        return 0;
    snprintf(why, len, "%s", strncmp(line, "bad ", 4) == 0 ? line + 4 : line);
    return 0;
}

static int tenants_verify(struct gb_case_ctx *ctx)
{
    struct tenants *s = ctx->state;
    char why[GB_CHILD_LINE];
    for (int i = 0; i < s->na; i++) {
        if (s->a[i].dead)
            continue;
        int err = check_tenant(&s->a[i], why, sizeof why);
        if (err) {
            aggressor_died(s, i, "failed its check");
        } else if (why[0]) {
            s->a[i].dead = true;
            snprintf(s->a[i].why, sizeof s->a[i].why, "aggressor %d (%s): wrong output: %.500s",
                     i + 1, kind_names[s->aggr], why);
        }
    }
    int err = check_tenant(&s->v, why, sizeof why);
    if (err)
        return fail_with(err, "victim tenant's check");
    if (why[0])
        return gb_case_mismatch(ctx, "victim tenant (%s): %s", kind_names[s->victim], why);
    /* Every aggressor gone before the first kept sample: the samples measured the victim alone,
     * and its figure beside aggressors (and the slowdown derived from it) would be a false one.
     * Each aggressor's failure is its own result (teardown). */
    if (s->na && s->kept_rounds && !s->kept_beside) {
        const char *first = "";
        for (int i = 0; i < s->na && !first[0]; i++)
            if (s->a[i].dead)
                first = s->a[i].why;
        return gb_case_mismatch(ctx,
                                "no aggressor ran beside the victim in any of the %u kept "
                                "samples (%.600s): the victim was measured alone",
                                s->kept_rounds, first);
    }
    return 0;
}

static double quantile_sorted(const double *x, size_t n, double q)
{
    size_t k = (size_t)ceil(q * (double)n);
    return x[k ? k - 1 : 0];
}

static void tenants_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    (void)op_time_s;
    struct tenants *s = ctx->state;
    if (s->victim == K_GEMM && s->nruns) {
        /* The kept samples' runs (the last ones, should telemetry have discarded some). */
        const size_t kept = ctx->nsamples < s->nruns ? ctx->nsamples : s->nruns;
        const size_t r0 = s->nruns - kept;
        const size_t from = r0 ? s->run_end[r0 - 1] : 0, n = s->nlat - from;
        double *all = malloc((n ? n : 1) * sizeof *all), *p99 = malloc(kept * sizeof *p99);
        if (all && p99 && n) {
            for (size_t r = r0; r < s->nruns; r++) {
                const size_t a = r ? s->run_end[r - 1] : 0, m = s->run_end[r] - a;
                memcpy(all, s->lat + a, m * sizeof *all);
                gb_sort_doubles(all, m);
                p99[r - r0] = 1e6 * quantile_sorted(all, m, 0.99);
            }
            memcpy(all, s->lat + from, n * sizeof *all);
            gb_sort_doubles(all, n);
            gb_case_figure(ctx, "p50_us", "us", 1e6 * quantile_sorted(all, n, 0.50));
            if (n >= 100)
                gb_case_figure(ctx, "p99_us", "us", 1e6 * quantile_sorted(all, n, 0.99));
            gb_case_figure(ctx, "max_us", "us", 1e6 * all[n - 1]);
            gb_case_figure(ctx, "period_us", "us", 1e6 * s->period);
            gb_case_headline(ctx, "latency", "us", GB_BETTER_LOWER, p99, kept);
        }
        free(all);
        free(p99);
    }
    int alive = 0;
    for (int i = 0; i < s->na; i++)
        alive += !s->a[i].dead;
    if (s->na && s->kept_rounds) {
        /* The mean over the kept samples' rounds of the aggressors' summed rate. */
        const double rate = s->kept_rate_sum / s->kept_rounds;
        gb_case_figure(ctx, "aggressor_rate", work_unit(s->aggr),
                       rate / (s->aggr == K_LAUNCHES ? 1e6 : 1e9));
    }
    if (s->na) {
        gb_case_figure(ctx, "aggressors_alive", "", alive);
        if (s->kept_beside < s->kept_rounds)
            gb_case_figure(ctx, "samples_beside", "", s->kept_beside);
    }
    if (alive < s->na) {
        unsigned first = 0;
        for (int i = 0; i < s->na; i++)
            if (s->a[i].dead && (!first || s->a[i].died_round < first))
                first = s->a[i].died_round;
        /* A text figure holds 63 bytes: the whole story is the failed aggressor's result. */
        gb_case_text(ctx, "tenants", "%d of %d aggressors died in round %u; fewer after",
                     s->na - alive, s->na, first);
    }
    gb_case_text(ctx, "sharing", "%s",
                 ctx->dev->info.sharing[0] ? ctx->dev->info.sharing
                                           : "not reported by the driver (OpenCL)");
}

static void tenants_teardown(struct gb_case_ctx *ctx)
{
    struct tenants *s = ctx->state;
    char why[160];
    for (int i = 0; i < s->na; i++) {
        struct tenant *t = &s->a[i];
        if (t->c && !t->dead && gb_child_end(t->c, 10.0, why, sizeof why)) {
            t->dead = true;
            snprintf(t->why, sizeof t->why, "aggressor %d (%s) %s at its end", i + 1,
                     kind_names[s->aggr], why);
        }
        if (t->dead) {
            char part[32];
            snprintf(part, sizeof part, "aggressor %d", i + 1);
            gb_case_record_part_failure(ctx, "tenant", part, t->why);
        }
        gb_child_free(t->c);
        t->c = NULL;
    }
    gb_child_free(s->v.c);
    s->v.c = NULL;
    free(s->lat);
    free(s->run_end);
}

/* `slowdown`: every case with aggressors against the same victim alone (aggressor none). */
static int tenants_derive(struct gb_results *rs)
{
    static const char *const but[] = {"aggressor", "aggressors", "big_n", NULL};
    for (size_t i = 0; i < rs->nresults; i++) {
        struct gb_result *r = &rs->results[i];
        if (strcmp(r->suite, "tenants") || r->status != GB_STATUS_OK ||
            strcmp(gb_params_str(&r->params, "aggressor"), "none") == 0 ||
            gb_params_get(&r->params, "tenant"))
            continue;
        for (size_t j = 0; j < rs->nresults; j++) {
            const struct gb_result *a = &rs->results[j];
            if (strcmp(a->suite, "tenants") || a->status != GB_STATUS_OK ||
                strcmp(gb_params_str(&a->params, "aggressor"), "none") ||
                a->device_index != r->device_index || strcmp(a->backend, r->backend) ||
                strcmp(a->unit, r->unit) || !(a->value > 0) || !(r->value > 0) ||
                !gb_params_equal_but(&a->params, &r->params, but))
                continue;
            gb_result_figure(r, "slowdown", "",
                             r->better == GB_BETTER_HIGHER ? a->value / r->value
                                                           : r->value / a->value);
            break;
        }
    }
    return 0;
}

const struct gb_suite gb_suite_tenants = {
    .name = "tenants",
    .summary = "many processes on one device: a victim alone and beside aggressor processes "
               "(triad, GEMM, H2D, tiny launches): slowdown, p99, each tenant's failure its own",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "victim",
    .state_size = sizeof(struct tenants),
    .normalize = tenants_normalize,
    .axis_applies = tenants_axis_applies,
    .setup = tenants_setup,
    .prepare = tenants_prepare,
    .run = tenants_run,
    .settle = tenants_settle,
    .verify = tenants_verify,
    .teardown = tenants_teardown,
    .figures = tenants_figures,
    .derive = tenants_derive,
    .child = tenant_child,
    .chart = {.kind = GB_CHART_BARS},
};
