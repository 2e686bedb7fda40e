/* serve — tail latency under offered load: an MLP layer served to requests that arrive at
 * random, through a dynamic batcher.
 *
 * One operation is one trace of `requests` requests arriving as a Poisson process (seeded: the
 * same arrivals on every run of a seed, a new seed per trace) at an offered rate of `load` times
 * the case's capacity, served by the batcher of serve_queue.h: up to `max_batch` requests per
 * batch, the oldest waiting at most `max_wait` us. Each request is one row of K features; a
 * batch of k requests is one H2D copy of their k rows (pinned host memory), the layer's GEMM
 * y = x W (k x K times K x N, F32, the backend's BLAS: `shape` KxN) and one D2H copy of their
 * outputs, waited for: the batch is done when its outputs are on the host. Capacity is
 * max_batch / the fastest of 7 full batches (noise only slows one), measured in setup by the first case of a device,
 * layer and batch limit in a worker and kept for the others, so that a load sweep's offered rates
 * stand in the ratio of their loads (requests per second with full batches: `capacity_rps`); the
 * regime is therefore relative: load 0.5 is half of what this device serves with this batch
 * limit. max_wait with max_batch 1 changes nothing (each request leaves at once): a recorded
 * skip.
 *
 * The queue holds at most `queue` waiting requests (default 1024; 0: no bound): one that
 * arrives at a full queue is dropped and counted (`dropped`), as Triton's max_queue_size does.
 *
 * The trace is host-timed (GB_TIMER_HOST_CALL); its requests' latencies are taken on the
 * harness's clock (gb_now) from arrival to their batch's completion, queueing and batching
 * included. Whether the queue kept up: `kept_up`, the median over the kept traces of the achieved
 * rate over the offered one (gb_serve_kept_up: the last batch's drain left out); below 3/4
 * (GB_SERVE_KEPT_UP_MIN) the run is overloaded (`queue_state`): its backlog grew for as long as
 * requests came, so its latencies grow with the trace's length (landed, at 10x: p99 115 ms at
 * 1,000 requests, 6.98 s at 100,000) and are no steady-state tail. A stable run's figures, over
 * every request served in the kept traces: p50_us, p90_us, p99_us and p999_us (each from 10, 100
 * and 1000 requests at least; the nearest rank), and its headline is the median of each trace's
 * p99 (us, gb_case_headline), so that compare judges the tail with its spread across traces;
 * p99_us, the p99 over all requests, is the run's tail (MLPerf's Server figure) and what the
 * report draws. An overloaded run's headline is what it served (`throughput`, requests/s, each
 * trace's achieved rate), and its latencies are named for what they are (overload_p50_us,
 * overload_p99_us). Every run: offered_rps, achieved_rps (requests served over the span from the
 * first arrival to the last completion), kept_up, dropped, capacity_rps, service_us (the fastest
 * full batch), mean_batch, requests_checked. The derive step adds `max_rps_under_slo` to every
 * case of a sweep over `load` (same device, shape, batch limit, wait and queue): the largest
 * achieved rate among the stable loads whose p99_us stayed within `slo_us` (the headline where
 * p99_us is absent, fewer than 100 requests), MLPerf's Server-scenario figure for one layer; a
 * sweep with none under the bound gets the text "none".
 *
 * Scenarios (`scenario`, MLPerf Inference's LoadGen's, contract in serve_queue.h): Server, the
 * default, is all of the above, unchanged (results from before the axis are Server runs at a
 * fixed load, LoadGen's Server at a target rate); with `find_peak` setup first bisects the rate
 * between 0.05 and 2 x the capacity for the largest whose pooled p99 meets slo_us with a VALID
 * verdict (LoadGen's FindPeakPerformance), each probe a text figure (probe1.., its rate, p99,
 * kept_up, pass), then the traces run at `peak_rps`; each probe runs the traces a run keeps
 * (min_samples), and where their queries are under 459 none could be VALID: no search, and
 * peak_rps says so. SingleStream: `requests` queries of one sample, each issued when the last
 * completes (headline: p90_us, over every query of the run). MultiStream: the same with queries
 * of 8 samples, one batch each (headline p99_us). Offline: every sample of the trace at once,
 * served in full batches (headline: samples/s, `throughput`: achieved_rps). Periodic: one request
 * every 1/`fps` s, each due `deadline` us after it came (0: one period): deadline_misses (served
 * late or dropped) and their rate, jitter_sd_us and jitter_p99_us (the deviation of the gap
 * between consecutive completions from the gap between their arrivals: the difference of their
 * latencies; the median over the traces). normalize gives the axes a scenario does not use one
 * value (load 1, max_wait 0, ...), so that they merge. Every run: `verdict`, VALID or INVALID
 * and why (gb_serve_verdict: too few queries for the scenario's percentile by LoadGen's early
 * stopping, p99 over the bound, overloaded, a deadline missed), es_min_queries, and for
 * SingleStream es_p90_us, for both closed loops es_p99_us (LoadGen's early-stopping
 * estimates). derive adds knee_load to a Server sweep over load (gb_serve_knee: the smallest
 * load whose p99 exceeds twice the lowest load's). Test hook: GPUBENCH_TEST_SERVE_SLOW=N makes
 * every N-th batch of the traces take 20 ms more (a planted slow request).
 *
 * Verification: every request's output row, every element, exactly: W and the inputs hold
 * -1, 0 and 1, so each output is a sum of K products of them, exact in F32 below 2^24 (K is at
 * most 2^24). Requests draw their inputs from 16 distinct rows (seeded; the j-th request served
 * in a trace takes row j's, so that a batch's inputs stay contiguous when requests were dropped
 * before it), whose outputs the host computes once; every served request's output is checked.
 * Outputs are poisoned (0xFF bytes: NaN) before every trace, so a request whose output was not
 * written fails. Test hook: GPUBENCH_TEST_SERVE_BREAK=1 leaves the last request
 * of every batch of two or more out of its D2H copy.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/stats.h"
#include "base/error.h"
#include "base/robust.h"
#include "base/units.h"
#include "base/util.h"
#include "run/config.h"
#include "run/suite.h"
#include "run/supervise.h"
#include "suites/common.h"
#include "suites/serve_queue.h"

#define NDISTINCT 16u
#define SLOW_S 0.020 /* GPUBENCH_TEST_SERVE_SLOW's extra time per planted slow batch, s */
#define CAPACITY_RUNS 7

static bool shape_check(const char *v, char *why, size_t len)
{
    unsigned long long k = 0, n = 0;
    int used = 0;
    const char *x = strchr(v, 'x');
    /* Digits, 'x', digits: sscanf's %llu alone would take "-1" (wrapped) and "+5". */
    const bool digits = v[0] >= '0' && v[0] <= '9' && x && x[1] >= '0' && x[1] <= '9';
    if (!digits || sscanf(v, "%llux%llu%n", &k, &n, &used) != 2 || v[used] || !k || !n) {
        snprintf(why, len, "a layer's shape is KxN (input features x output features), not '%s'",
                 v);
        return false;
    }
    if (k > (1ull << 24) || n > (1ull << 24)) {
        snprintf(why, len, "K and N are at most 2^24 (the outputs must stay exact in F32)");
        return false;
    }
    return true;
}

static bool load_check(double v, char *why, size_t len)
{
    if (!(v >= 0.001 && v <= 10)) {
        snprintf(why, len, "a load is a fraction of the capacity in [0.001, 10], not %g", v);
        return false;
    }
    return true;
}

/* In the order of enum gb_serve_scenario. */
static const char *const scenario_names[] = {"Server",  "SingleStream", "MultiStream",
                                             "Offline", "Periodic",     NULL};

static enum gb_serve_scenario scenario_of(const struct gb_params *p)
{
    const char *v = gb_params_str(p, "scenario"); /* "" where omitted: the default */
    for (int i = 0; scenario_names[i]; i++)
        if (strcmp(v, scenario_names[i]) == 0)
            return (enum gb_serve_scenario)i;
    return GB_SERVE_SERVER;
}

static bool fps_check(double v, char *why, size_t len)
{
    if (!(v >= 0.01 && v <= 1e6)) {
        snprintf(why, len, "fps is requests per second in [0.01, 1e6], not %g", v);
        return false;
    }
    return true;
}

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("shape", "1024x1024", NULL,
                "the layer: KxN, K input features, N outputs (y = x W, F32)", .check = shape_check),
    GB_AXIS_FLOAT(
        "load", "[0.2, 0.5, 0.8, 0.95]",
        "offered rate as a fraction of the capacity with full batches (above 1: overload)",
        .check_float = load_check),
    GB_AXIS_INT("max_batch", "[1, 8, 32]", 1, 4096, "most requests per batch"),
    GB_AXIS_INT("max_wait", "[0, 2000]", 0, 10000000,
                "us the oldest queued request may wait for a fuller batch"),
    GB_AXIS_INT("requests", "256", 1, 1000000, "requests per trace (one operation)"),
    GB_AXIS_INT("seed", "1", 0, 0, "the arrivals' and inputs' seed (trace t uses seed + t)"),
    GB_AXIS_INT("slo_us", "50000", 1, 0,
                "the p99 bound (us) under which derive finds the largest offered rate"),
    GB_AXIS_INT("queue", "1024", 0, 100000000,
                "requests that may wait at once: one arriving at a full queue is dropped and "
                "counted (0: no bound)",
                .omit_default = true),
    GB_AXIS_STR("scenario", "Server", scenario_names,
                "MLPerf LoadGen's scenario: Server (Poisson arrivals at `load`), SingleStream, "
                "MultiStream (queries of 8), Offline (all at once); or Periodic (`fps`)",
                .omit_default = true),
    GB_AXIS_BOOL(
        "find_peak", "false",
        "Server: bisect for the largest rate whose p99 stays within slo_us, then run at it",
        .omit_default = true),
    GB_AXIS_FLOAT("fps", "30",
                  "Periodic: requests per second, one every 1/fps s (a camera's frames)",
                  .check_float = fps_check, .omit_default = true),
    GB_AXIS_INT("deadline", "0", 0, 100000000,
                "Periodic: us from a frame's arrival by which it must be served (0: one period)",
                .omit_default = true),
};

/* The axes a scenario does not use get one canonical value, so that identical cases merge:
 * load only paces Server's arrivals (1 elsewhere, and for find_peak, whose search sets the
 * rate); SingleStream's batch is its query of 1 and MultiStream's of 8, and neither waits;
 * Offline issues all at once (no wait); Periodic serves frame by frame; fps and deadline are
 * Periodic's, find_peak Server's. */
static bool serve_normalize(struct gb_params *p)
{
    const enum gb_serve_scenario sc = scenario_of(p);
    struct gb_value *load = gb_params_slot(p, "load"), *mb = gb_params_slot(p, "max_batch"),
                    *mw = gb_params_slot(p, "max_wait"), *fps = gb_params_slot(p, "fps"),
                    *dl = gb_params_slot(p, "deadline"), *fp = gb_params_slot(p, "find_peak");
    if (!load || !mb || !mw || !fps || !dl || !fp)
        return true; /* a reader's params without the axes: nothing to merge */
    if (sc != GB_SERVE_SERVER)
        fp->u.b = false;
    if (sc != GB_SERVE_SERVER || fp->u.b)
        load->u.f = 1;
    if (sc == GB_SERVE_SINGLESTREAM || sc == GB_SERVE_MULTISTREAM || sc == GB_SERVE_PERIODIC)
        mb->u.i = sc == GB_SERVE_MULTISTREAM ? GB_SERVE_MULTISTREAM_SAMPLES : 1;
    if (sc != GB_SERVE_SERVER)
        mw->u.i = 0;
    if (sc != GB_SERVE_PERIODIC) {
        fps->u.f = 30;
        dl->u.i = 0;
    }
    return true;
}

/* The axes normalize gives one neutral value do not apply to the case (what people read leaves
 * them out; results keep them, so that compare matches as before): load outside Server and
 * under find_peak, max_batch but in Server and Offline, max_wait and find_peak but in Server,
 * fps and deadline but in Periodic. */
static bool serve_axis_applies(const struct gb_params *p, const char *axis)
{
    const enum gb_serve_scenario sc = scenario_of(p);
    if (strcmp(axis, "load") == 0)
        return sc == GB_SERVE_SERVER && !gb_params_bool(p, "find_peak");
    if (strcmp(axis, "max_batch") == 0)
        return sc == GB_SERVE_SERVER || sc == GB_SERVE_OFFLINE;
    if (strcmp(axis, "max_wait") == 0 || strcmp(axis, "find_peak") == 0)
        return sc == GB_SERVE_SERVER;
    if (strcmp(axis, "fps") == 0 || strcmp(axis, "deadline") == 0)
        return sc == GB_SERVE_PERIODIC;
    return true;
}

/* One kept trace. */
struct trace {
    size_t end;     /* kept[] index where its served requests' latencies end */
    double p99_us;  /* over its served requests (NaN: none served) */
    double rps;     /* achieved: served over the span from the first arrival to the last done */
    double kept_up; /* gb_serve_kept_up (NaN: not judged, a closed loop or Offline) */
    size_t dropped, batches;
    double p90_us;     /* over its served requests (SingleStream's headline) */
    double jit_sd_us;  /* Periodic: gb_serve_jitter's, us */
    double jit_p99_us; /* Periodic */
    size_t misses;     /* Periodic: requests over the deadline or dropped */
};

/* The Server search's probes kept as figures (each one a text: the result holds 24 figures). */
#define MAX_PROBES 8

struct serve {
    uint64_t k, n, nreq, max_batch, queue;
    uint64_t per_query, nrows; /* samples per query (MultiStream 8), rows: nreq per_query */
    double max_wait, rate, service_s;
    enum gb_serve_scenario sc;
    double period_s, deadline_s; /* Periodic */
    bool find_peak;
    double peak_rps;                          /* find_peak: the search's rate (0: none) */
    struct gb_serve_probe probes[MAX_PROBES]; /* find_peak: in order */
    size_t nprobes;
    size_t probe_traces; /* find_peak: traces per probe, the run's kept samples at least */
    uint64_t slow_every, nbatches; /* the planted slow batch (test hook) */
    bool tracing;                  /* a trace (or probe) is being served: the hook may act */
    uint64_t seed, traces;
    struct gb_buf *w, *x, *y;  /* device: W (N x K column-major), a batch's inputs, outputs */
    struct gb_buf *hin, *hout; /* pinned: the input and output rows of the requests served, in
                                * the order served (the j-th served draws input j) */
    float *ref;                /* NDISTINCT x N: the outputs of the distinct inputs */
    unsigned char *which;      /* per row: its input's index */
    double *arr, *lat;         /* this trace's arrivals and latencies (NaN: dropped) */
    size_t served;             /* this trace's requests served: the rows settle checks */
    double *kept;              /* the served requests' latencies of the kept traces, in order */
    struct trace *tr;          /* per kept trace */
    size_t nkept, kept_cap, ntraces, traces_cap;
    uint64_t checked;
    bool broken;
    struct gb_case_ctx *ctx; /* for the server callbacks */
    int err;
    char fail[512];
};

static float w_val(uint64_t kk, uint64_t nn)
{
    return (float)((kk * 7 + nn * 3) % 3) - 1;
}

/* ---- the real server: the harness's clock and the device --------------------------------- */

static int real_serve(void *p, size_t first, size_t count)
{
    struct serve *s = p;
    struct gb_case_ctx *ctx = s->ctx;
    const struct gb_backend_ops *ops = ctx->ops;
    const uint64_t in_row = s->k * sizeof(float), out_row = s->n * sizeof(float);
    int err = ops->copy(ctx->q, s->x, 0, s->hin, first * in_row, count * in_row, GB_COPY_ASYNC);
    if (err)
        return err;
    const struct gb_gemm g = gb_gemm_f32(s->n, count, s->k, 1, s->w, s->x, s->y);
    if ((err = ops->gemm(ctx->q, &g)))
        return err;
    const size_t back = s->broken && count > 1 ? count - 1 : count;
    if ((err = ops->copy(ctx->q, s->hout, first * out_row, s->y, 0, back * out_row, GB_COPY_ASYNC)))
        return err;
    err = ops->queue_sync(ctx->q);
    /* The planted slow batch: every slow_every-th of the traces' batches takes SLOW_S more. */
    if (!err && s->tracing && s->slow_every && ++s->nbatches % s->slow_every == 0)
        gb_wait_until(gb_now() + SLOW_S);
    return err;
}

static const struct gb_serve_server real_server = {
    .now = gb_replay_now, .wait_until = gb_replay_wait, .serve = real_serve};

/* ---- the case -------------------------------------------------------------------------- */

/* The capacities measured in this worker: a full batch's median time per device, layer and
 * batch size (at most CAPACITY_KEPT; beyond, each case measures its own). */
#define CAPACITY_KEPT 32
struct capacity {
    const void *dev;
    uint64_t k, n, batch;
    double service_s; /* 0: not measured yet */
};

static struct capacity *capacity_of(const void *dev, uint64_t k, uint64_t n, uint64_t batch)
{
    static struct capacity kept[CAPACITY_KEPT];
    for (size_t i = 0; i < CAPACITY_KEPT; i++) {
        struct capacity *c = &kept[i];
        if (c->dev == dev && c->k == k && c->n == n && c->batch == batch)
            return c;
        if (!c->dev) {
            *c = (struct capacity){.dev = dev, .k = k, .n = n, .batch = batch};
            return c;
        }
    }
    return NULL;
}

/* One trace of the case's scenario (contract in serve_queue.h): s->arr and s->lat filled, one
 * latency per query (NaN: dropped); Server's arrivals drawn from `seed` at s->rate. */
static int one_trace(struct serve *s, uint64_t seed, struct gb_serve_stats *st)
{
    struct gb_serve_server srv = real_server;
    srv.ctx = s;
    s->tracing = true;
    int err;
    switch (s->sc) {
    case GB_SERVE_SINGLESTREAM:
    case GB_SERVE_MULTISTREAM:
        memset(s->arr, 0, s->nreq * sizeof *s->arr); /* issued when the last one completes */
        err = gb_serve_closed(&srv, s->nreq, s->per_query, s->lat, st);
        break;
    case GB_SERVE_OFFLINE: /* every sample at once, in full batches, none turned away */
        memset(s->arr, 0, s->nreq * sizeof *s->arr);
        err = gb_serve_run(&srv, s->arr, s->nreq, s->max_batch, 0, 0, s->lat, st);
        break;
    case GB_SERVE_PERIODIC:
        gb_serve_periodic_arrivals(s->arr, s->nreq, s->period_s);
        err = gb_serve_run(&srv, s->arr, s->nreq, s->max_batch, s->max_wait, (size_t)s->queue,
                           s->lat, st);
        break;
    default:
        gb_serve_arrivals(s->arr, s->nreq, s->rate, seed);
        err = gb_serve_run(&srv, s->arr, s->nreq, s->max_batch, s->max_wait, (size_t)s->queue,
                           s->lat, st);
        break;
    }
    s->tracing = false;
    return err;
}

/* One probe of the Server search: as many traces at probe->rate as the run keeps at least
 * (min_samples), pooled and judged exactly as the run's verdict judges it (gb_serve_verdict
 * with the case's slo_us, overloaded by the same rule as serve_figures'), so that a rate that
 * passes is one whose run can be VALID. */
static int probe_rate(void *p, struct gb_serve_probe *pr)
{
    struct gb_case_ctx *ctx = p;
    struct serve *s = ctx->state;
    const size_t traces = s->probe_traces;
    double *pool = malloc(traces * s->nreq * sizeof *pool), *up = malloc(traces * sizeof *up);
    if (!pool || !up) {
        free(pool);
        free(up);
        return GB_FAIL(GB_ENOMEM, "serve: probe latencies");
    }
    s->rate = pr->rate;
    size_t m = 0, dropped = 0, judged = 0;
    for (size_t t = 0; t < traces; t++) {
        struct gb_serve_stats st;
        int err = one_trace(s, s->seed ^ (0x9E3779B97F4A7C15ull + s->nprobes * 64 + t), &st);
        if (err) {
            free(pool);
            free(up);
            return err;
        }
        for (uint64_t i = 0; i < s->nreq; i++)
            if (!isnan(s->lat[i]))
                pool[m++] = s->lat[i];
        dropped += st.dropped;
        const double u = gb_serve_kept_up(s->arr, s->nreq, &st, s->service_s);
        if (!isnan(u))
            up[judged++] = u;
    }
    gb_sort_doubles(pool, m);
    pr->kept_up = gb_median(up, judged);
    pr->p99_s = m ? gb_rank_quantile(pool, m, 0.99) : NAN;
    const bool over = gb_serve_overloaded(pr->kept_up, dropped, traces * s->nreq);
    char why[64];
    pr->pass = m && gb_serve_verdict(GB_SERVE_SERVER, pool, m,
                                     1e-6 * (double)gb_params_int(ctx->params, "slo_us"), over, why,
                                     sizeof why);
    free(pool);
    free(up);
    return 0;
}

/* find_peak: LoadGen's FindPeakPerformance for the Server scenario, a bisection of the rate
 * between 0.05 and 2 times the capacity (the capacity is the fastest full batch's, so that the
 * search finds what the queue kept up with rather than assume it; a rate above what is served
 * fails by its overload or its tail) to 2% or MAX_PROBES probes; the timed traces then run at
 * the rate found (at 0.05 x the capacity where none passed, and the figures say so). Where a
 * probe's queries (the run's: requests x min_samples) are fewer than a p99 claim needs with
 * none over the bound (459), no probe can be VALID: no search, and peak_rps says so. */
static int find_peak(struct gb_case_ctx *ctx, struct serve *s, double capacity)
{
    const uint32_t kept = ctx->run ? ctx->run->measure.min_samples : 1;
    s->probe_traces = kept > 1 ? kept : 1;
    const uint64_t need = gb_es_min_queries(0, 0.99, GB_SERVE_ES_CONFIDENCE);
    s->rate = 0.05 * capacity;
    if (s->probe_traces * s->nreq < need)
        return 0; /* s->nprobes 0: serve_figures says why */
    double peak = 0;
    int err = gb_serve_find_peak(probe_rate, ctx, 0.05 * capacity, 2 * capacity, 0.02, MAX_PROBES,
                                 s->probes, &s->nprobes, &peak);
    if (err)
        return err;
    s->peak_rps = peak;
    s->rate = peak > 0 ? peak : 0.05 * capacity;
    return 0;
}

static int serve_setup(struct gb_case_ctx *ctx)
{
    struct serve *s = ctx->state;
    s->ctx = ctx;
    unsigned long long k = 0, n = 0;
    sscanf(gb_params_str(ctx->params, "shape"), "%llux%llu", &k, &n);
    s->k = k;
    s->n = n;
    s->max_batch = (uint64_t)gb_params_int(ctx->params, "max_batch");
    s->max_wait = 1e-6 * (double)gb_params_int(ctx->params, "max_wait");
    s->nreq = (uint64_t)gb_params_int(ctx->params, "requests");
    s->seed = (uint64_t)gb_params_int(ctx->params, "seed");
    s->queue = (uint64_t)gb_params_int(ctx->params, "queue");
    s->sc = scenario_of(ctx->params);
    s->find_peak = s->sc == GB_SERVE_SERVER && gb_params_bool(ctx->params, "find_peak");
    s->per_query = s->sc == GB_SERVE_MULTISTREAM ? GB_SERVE_MULTISTREAM_SAMPLES : 1;
    if (s->sc == GB_SERVE_SINGLESTREAM || s->sc == GB_SERVE_MULTISTREAM)
        s->max_batch = s->per_query; /* a query is one batch (normalize says so too) */
    s->nrows = s->nreq * s->per_query;
    if (s->sc == GB_SERVE_PERIODIC) {
        const double fps = gb_params_float(ctx->params, "fps");
        const int64_t dl = gb_params_int(ctx->params, "deadline");
        s->period_s = 1 / (fps > 0 ? fps : 30); /* absent: the default, 30 */
        s->deadline_s = dl > 0 ? 1e-6 * (double)dl : s->period_s;
        /* A trace is one operation, and the case's limit counts from one finished operation to
         * the next (run/supervise.h): frames spread wider than it could only end in its kill. */
        const double span = (double)(s->nreq - 1) * s->period_s;
        const double limit = ctx->run ? gb_case_timeout(&ctx->run->measure) : INFINITY;
        if (span >= limit)
            return gb_case_skip(ctx,
                                "%llu frames at %g fps arrive over %.0f s, beyond the case's "
                                "limit of %.0f s (measure.case_timeout): a higher fps or fewer "
                                "requests",
                                (unsigned long long)s->nreq, 1 / s->period_s, span, limit);
    }
    const char *slow = getenv("GPUBENCH_TEST_SERVE_SLOW");
    s->slow_every = slow ? strtoull(slow, NULL, 10) : 0;
    if (s->max_batch == 1 && s->max_wait > 0)
        return gb_case_skip(ctx, "max_wait has no effect with max_batch 1 (each request is a "
                                 "batch of its own at once): the case with max_wait 0");
    const char *brk = getenv("GPUBENCH_TEST_SERVE_BREAK");
    s->broken = brk && strcmp(brk, "1") == 0;
    if (!ctx->ops->gemm || !(ctx->dev->info.caps & GB_CAP_BLAS_F32))
        return gb_case_skip(ctx, "the device has no F32 GEMM (no BLAS library): the layer "
                                 "needs one");
    const uint64_t wbytes = s->k * s->n * sizeof(float);
    const uint64_t xbytes = s->max_batch * s->k * sizeof(float),
                   ybytes = s->max_batch * s->n * sizeof(float);
    const uint64_t hin = s->nrows * s->k * sizeof(float), hout = s->nrows * s->n * sizeof(float);
    const struct gb_device_info *info = &ctx->dev->info;
    if (info->global_mem && (double)(wbytes + xbytes + ybytes) > 0.8 * (double)info->global_mem)
        return gb_case_skip(ctx, "the layer and a batch (%.3g GB) do not fit in %.3g GB",
                            (double)(wbytes + xbytes + ybytes) / 1e9,
                            (double)info->global_mem / 1e9);
    int err;
    if ((err = gb_case_alloc(ctx, wbytes, GB_MEM_DEVICE, &s->w)) ||
        (err = gb_case_alloc(ctx, xbytes, GB_MEM_DEVICE, &s->x)) ||
        (err = gb_case_alloc(ctx, ybytes, GB_MEM_DEVICE, &s->y)) ||
        (err = gb_case_alloc(ctx, hin, GB_MEM_HOST_PINNED, &s->hin)) ||
        (err = gb_case_alloc(ctx, hout, GB_MEM_HOST_PINNED, &s->hout)))
        return err;
    float *w = malloc(wbytes);
    float *xd = malloc(NDISTINCT * s->k * sizeof *xd);
    s->ref = malloc(NDISTINCT * s->n * sizeof *s->ref);
    s->which = malloc(s->nrows);
    s->arr = malloc(s->nreq * sizeof *s->arr);
    s->lat = malloc(s->nreq * sizeof *s->lat);
    if (!w || !xd || !s->ref || !s->which || !s->arr || !s->lat) {
        free(w);
        free(xd);
        return GB_FAIL(GB_ENOMEM, "serve: host arrays");
    }
    /* W column-major N x K (the GEMM's A): w[nn + N kk] = W[kk][nn]. */
    for (uint64_t kk = 0; kk < s->k; kk++)
        for (uint64_t nn = 0; nn < s->n; nn++)
            w[nn + s->n * kk] = w_val(kk, nn);
    uint64_t rs = s->seed ^ 0x5E12E5EEDull;
    for (uint64_t i = 0; i < NDISTINCT * s->k; i++)
        xd[i] = (float)(gb_splitmix64(&rs) % 3) - 1;
    for (uint64_t d = 0; d < NDISTINCT; d++)
        for (uint64_t nn = 0; nn < s->n; nn++) {
            float acc = 0;
            for (uint64_t kk = 0; kk < s->k; kk++)
                acc += xd[d * s->k + kk] * w_val(kk, nn);
            s->ref[d * s->n + nn] = acc;
        }
    float *in = s->hin->host;
    for (uint64_t r = 0; r < s->nrows; r++) {
        s->which[r] = (unsigned char)(gb_splitmix64(&rs) % NDISTINCT);
        memcpy(in + r * s->k, xd + s->which[r] * s->k, s->k * sizeof *in);
    }
    free(xd);
    err = gb_case_upload(ctx, s->w, w, wbytes);
    free(w);
    if (err)
        return err;
    /* Capacity: full batches, the fastest of CAPACITY_RUNS after a warm-up; measured once
     * per device, layer and batch limit in this worker, so that the cases of a load sweep offer
     * rates in the ratio of their loads (measured per case, a shared machine's swings made
     * load 0.8 offer less than 0.5). */
    const size_t full = s->max_batch < s->nrows ? s->max_batch : s->nrows;
    if ((err = real_serve(s, 0, full)))
        return err;
    struct capacity *cap = capacity_of(ctx->dev, s->k, s->n, full);
    if (cap && cap->service_s > 0) {
        s->service_s = cap->service_s;
    } else {
        /* Warm first: 16 batches and 50 ms at least. After one, PoCL on this VM still served
         * a batch 15-40% slower than it does under load, so that load 0.95 was in truth ~0.7
         * and its median latency below that of load 0.2. */
        const double w0 = gb_now();
        for (int i = 0; i < 16 || (gb_now() - w0 < 0.05 && i < 100000); i++)
            if ((err = real_serve(s, 0, full)))
                return err;
        double t[CAPACITY_RUNS];
        for (int i = 0; i < CAPACITY_RUNS; i++) {
            const double t0 = gb_now();
            if ((err = real_serve(s, 0, full)))
                return err;
            t[i] = gb_now() - t0;
        }
        /* The fastest: noise only ever slows a run, and a capacity measured low (a busy
         * moment) would make every load of the sweep lighter than it says. */
        gb_sort_doubles(t, CAPACITY_RUNS);
        s->service_s = t[0];
        if (!(s->service_s > 0))
            return GB_USER_FAIL(GB_EIMPLAUSIBLE, "a full batch took no time on the host clock");
        if (cap)
            cap->service_s = s->service_s;
    }
    s->rate = gb_params_float(ctx->params, "load") * (double)full / s->service_s;
    if (s->find_peak && (err = find_peak(ctx, s, (double)full / s->service_s)))
        return err;
    ctx->op.timer = GB_TIMER_HOST_CALL;
    ctx->op.max_batch = 1;
    return 0;
}

/* Poisons every output before a trace. */
static int serve_prepare(struct gb_case_ctx *ctx, uint64_t reps)
{
    (void)reps;
    struct serve *s = ctx->state;
    memset(s->hout->host, 0xFF, s->nrows * s->n * sizeof(float));
    return 0;
}

static int serve_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct serve *s = ctx->state;
    for (uint64_t r = 0; r < reps; r++) {
        struct gb_serve_stats st;
        int err = one_trace(s, s->seed + s->traces++, &st);
        if (err)
            return err;
        s->served = st.served;
        if (!ctx->sampling)
            continue;
        /* A kept trace: its served requests' latencies, its p99, its rates. */
        if (s->nkept + st.served > s->kept_cap) {
            size_t cap = 2 * (s->nkept + s->nreq);
            double *p = realloc(s->kept, cap * sizeof *p);
            if (!p)
                return GB_FAIL(GB_ENOMEM, "serve: latencies");
            s->kept = p;
            s->kept_cap = cap;
        }
        if (s->ntraces == s->traces_cap) {
            size_t cap = s->traces_cap ? 2 * s->traces_cap : 32;
            struct trace *p = realloc(s->tr, cap * sizeof *p);
            if (!p)
                return GB_FAIL(GB_ENOMEM, "serve: latencies");
            s->tr = p;
            s->traces_cap = cap;
        }
        const bool open_loop = s->sc == GB_SERVE_SERVER || s->sc == GB_SERVE_PERIODIC;
        double jsd = NAN, jp99 = NAN;
        size_t misses = st.dropped;
        if (s->sc == GB_SERVE_PERIODIC) {
            gb_serve_jitter(s->arr, s->lat, s->nreq, &jsd, &jp99);
            for (uint64_t i = 0; i < s->nreq; i++)
                misses += s->lat[i] > s->deadline_s;
        }
        double *v = s->kept + s->nkept;
        size_t m = 0;
        for (uint64_t i = 0; i < s->nreq; i++)
            if (!isnan(s->lat[i]))
                v[m++] = s->lat[i];
        s->nkept += m;
        struct trace *t = &s->tr[s->ntraces++];
        *t = (struct trace){
            .end = s->nkept,
            .p99_us = NAN,
            .rps = st.span_s > 0 ? (double)st.served / st.span_s : 0,
            /* the last batch's service: at most a full one's */
            .kept_up = open_loop ? gb_serve_kept_up(s->arr, s->nreq, &st, s->service_s) : NAN,
            .dropped = st.dropped,
            .batches = st.batches,
            .p90_us = NAN,
            .jit_sd_us = 1e6 * jsd,
            .jit_p99_us = 1e6 * jp99,
            .misses = misses};
        if (m) {
            /* Sorted in place: the kept order within a trace does not matter. */
            gb_sort_doubles(v, m);
            t->p99_us = 1e6 * gb_rank_quantile(v, m, 0.99);
            t->p90_us = 1e6 * gb_rank_quantile(v, m, 0.90);
        }
    }
    return 0;
}

/* Every request's output, after every trace. */
static int serve_settle(struct gb_case_ctx *ctx, uint64_t reps)
{
    (void)reps;
    struct serve *s = ctx->state;
    if (s->fail[0])
        return 0;
    const float *out = s->hout->host;
    for (uint64_t r = 0; r < s->served; r++) {
        const float *want = s->ref + s->which[r] * s->n, *got = out + r * s->n;
        for (uint64_t j = 0; j < s->n; j++)
            if (!(got[j] == want[j])) {
                snprintf(s->fail, sizeof s->fail,
                         "trace %llu, request %llu: output %llu is %g, expected %g",
                         (unsigned long long)s->traces, (unsigned long long)r,
                         (unsigned long long)j, (double)got[j], (double)want[j]);
                return 0;
            }
    }
    s->checked += s->served;
    return 0;
}

static int serve_verify(struct gb_case_ctx *ctx)
{
    struct serve *s = ctx->state;
    if (s->fail[0])
        return gb_case_mismatch(ctx, "%s", s->fail);
    if (!s->checked)
        return gb_case_mismatch(ctx, "no request was served");
    return 0;
}

/* The median over the kept traces [t0, t0 + nt) of a per-trace figure (NaN: none finite). */
static double trace_median(const struct serve *s, size_t t0, size_t nt, size_t offset)
{
    double *x = malloc((nt ? nt : 1) * sizeof *x);
    if (!x)
        return NAN;
    size_t m = 0;
    for (size_t t = t0; t < t0 + nt; t++) {
        const double y = *(const double *)((const char *)&s->tr[t] + offset);
        if (isfinite(y))
            x[m++] = y;
    }
    const double med = gb_median(x, m);
    free(x);
    return med;
}

/* The scenario's figures: the verdict, early stopping, Periodic's deadline and jitter, the
 * Server search's probes. v[0..n): the kept latencies ascending (s). */
static void scenario_figures(struct gb_case_ctx *ctx, const struct serve *s, const double *v,
                             size_t n, bool overloaded, size_t t0, size_t nt)
{
    const double c = GB_SERVE_ES_CONFIDENCE;
    const double bound = s->sc == GB_SERVE_SERVER
                             ? 1e-6 * (double)gb_params_int(ctx->params, "slo_us")
                         : s->sc == GB_SERVE_PERIODIC ? s->deadline_s
                                                      : 0;
    char why[64];
    gb_serve_verdict(s->sc, v, n, bound, overloaded, why, sizeof why);
    gb_case_text(ctx, "verdict", "%s", why);
    if (s->sc != GB_SERVE_OFFLINE) {
        size_t over = 0;
        for (size_t i = n; bound > 0 && i > 0 && v[i - 1] > bound; i--)
            over++;
        const double p = s->sc == GB_SERVE_SINGLESTREAM ? 0.90 : 0.99;
        /* Server: the fewest queries for its claim with `over` over the bound; the others:
         * LoadGen's fewest for an estimate (one query's worth over). */
        gb_case_figure(ctx, "es_min_queries", "",
                       (double)gb_es_min_queries(s->sc == GB_SERVE_SERVER ? over : 1, p, c));
    }
    if (s->sc == GB_SERVE_SINGLESTREAM || s->sc == GB_SERVE_MULTISTREAM) {
        /* LoadGen's early-stopping estimates: SingleStream's p90 and (for MultiStream's sake)
         * p99, MultiStream's p99. */
        if (s->sc == GB_SERVE_SINGLESTREAM) {
            const double e90 = gb_es_estimate(v, n, 0.90, c, NULL);
            if (isfinite(e90))
                gb_case_figure(ctx, "es_p90_us", "us", 1e6 * e90);
        }
        const double e99 = gb_es_estimate(v, n, 0.99, c, NULL);
        if (isfinite(e99))
            gb_case_figure(ctx, "es_p99_us", "us", 1e6 * e99);
    }
    if (s->sc == GB_SERVE_PERIODIC) {
        size_t misses = 0;
        for (size_t t = t0; t < t0 + nt; t++)
            misses += s->tr[t].misses;
        gb_case_figure(ctx, "fps", "1/s", 1 / s->period_s);
        gb_case_figure(ctx, "deadline_us", "us", 1e6 * s->deadline_s);
        gb_case_figure(ctx, "deadline_misses", "", (double)misses);
        gb_case_figure(ctx, "deadline_miss_rate", "",
                       (double)misses / ((double)nt * (double)s->nreq));
        const double sd = trace_median(s, t0, nt, offsetof(struct trace, jit_sd_us)),
                     p99 = trace_median(s, t0, nt, offsetof(struct trace, jit_p99_us));
        if (isfinite(sd))
            gb_case_figure(ctx, "jitter_sd_us", "us", sd);
        if (isfinite(p99))
            gb_case_figure(ctx, "jitter_p99_us", "us", p99);
    }
    if (s->find_peak) {
        const uint64_t need = gb_es_min_queries(0, 0.99, c);
        if (s->peak_rps > 0)
            gb_case_figure(ctx, "peak_rps", "1/s", s->peak_rps);
        else if (!s->nprobes)
            gb_case_text(ctx, "peak_rps", "none: too few queries per probe: %llu < %llu",
                         (unsigned long long)(s->probe_traces * s->nreq), (unsigned long long)need);
        else
            gb_case_text(ctx, "peak_rps", "none: 0.05 x the capacity missed the bound");
        for (size_t i = 0; i < s->nprobes; i++) {
            char name[32];
            snprintf(name, sizeof name, "probe%zu", i + 1);
            const struct gb_serve_probe *pr = &s->probes[i];
            gb_case_text(ctx, name, "%.4g /s: p99 %.4g us, kept up %.2f, %s", pr->rate,
                         1e6 * pr->p99_s, pr->kept_up, pr->pass ? "pass" : "fail");
        }
    }
}

static void serve_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    (void)op_time_s;
    struct serve *s = ctx->state;
    if (!s->ntraces)
        return;
    /* The kept samples' traces (the last ones, should telemetry have discarded some). */
    const size_t nt = ctx->nsamples && ctx->nsamples < s->ntraces ? ctx->nsamples : s->ntraces;
    const size_t t0 = s->ntraces - nt, from = t0 ? s->tr[t0 - 1].end : 0, n = s->nkept - from;
    double rps = 0, batches = 0;
    size_t judged = 0, dropped = 0;
    double *up = malloc(nt * sizeof *up);
    if (!up)
        return;
    for (size_t t = t0; t < s->ntraces; t++) {
        if (!isnan(s->tr[t].kept_up))
            up[judged++] = s->tr[t].kept_up;
        rps += s->tr[t].rps;
        batches += (double)s->tr[t].batches;
        dropped += s->tr[t].dropped;
    }
    /* The median over the traces: one trace that a stall of the host (tens of ms, against a
     * trace of a few ms) made fall behind does not make the run overloaded; an overload shows
     * in every trace. */
    const double kept_up = gb_median(up, judged); /* NAN for none */
    free(up);
    /* Overloaded: the server served markedly less than what arrived (its backlog grew for as
     * long as requests came, or its full queue turned them away). Its latencies grow with the
     * trace's length and the queue's bound: no steady-state tail, and the headline is what it
     * served (requests/s) instead. */
    const bool overloaded = gb_serve_overloaded(kept_up, dropped, nt * s->nreq);
    /* The kept traces' latencies, and for Periodic one +inf per dropped request (a frame
     * turned away missed its deadline). */
    const size_t nv = n + (s->sc == GB_SERVE_PERIODIC ? dropped : 0);
    double *v = malloc((nv ? nv : 1) * sizeof *v);
    if (!v)
        return;
    memcpy(v, s->kept + from, n * sizeof *v);
    for (size_t i = n; i < nv; i++)
        v[i] = INFINITY;
    gb_sort_doubles(v, n);
    /* The run's headline percentile over every kept request: p90 SingleStream, p99 else. */
    const size_t pooled_n = n;
    const double pooled =
        n ? gb_rank_quantile(v, n, s->sc == GB_SERVE_SINGLESTREAM ? 0.90 : 0.99) : NAN;
    if (n && !overloaded) {
        gb_case_figure(ctx, "p50_us", "us", 1e6 * gb_rank_quantile(v, n, 0.50));
        if (n >= 10)
            gb_case_figure(ctx, "p90_us", "us", 1e6 * gb_rank_quantile(v, n, 0.90));
        if (n >= 100)
            gb_case_figure(ctx, "p99_us", "us", 1e6 * gb_rank_quantile(v, n, 0.99));
        if (n >= 1000)
            gb_case_figure(ctx, "p999_us", "us", 1e6 * gb_rank_quantile(v, n, 0.999));
    } else if (n) {
        gb_case_figure(ctx, "overload_p50_us", "us", 1e6 * gb_rank_quantile(v, n, 0.50));
        if (n >= 100)
            gb_case_figure(ctx, "overload_p99_us", "us", 1e6 * gb_rank_quantile(v, n, 0.99));
    }
    gb_case_text(ctx, "queue_state", "%s",
                 overloaded && !(kept_up < GB_SERVE_KEPT_UP_MIN)
                     ? "overloaded: a full queue turned requests away"
                 : overloaded ? "overloaded: served less than offered, no steady state"
                 : s->sc == GB_SERVE_SINGLESTREAM || s->sc == GB_SERVE_MULTISTREAM
                     ? "not judged (a closed loop: one query at a time)"
                 : s->sc == GB_SERVE_OFFLINE ? "not judged (Offline: every sample at once)"
                 : judged == 0               ? "not judged (one request a trace)"
                                             : "stable");
    scenario_figures(ctx, s, v, nv, overloaded, t0, nt);
    free(v);
    /* Offered: Server's rate, Periodic's fps; a closed loop and Offline offer what is served. */
    if (s->sc == GB_SERVE_SERVER)
        gb_case_figure(ctx, "offered_rps", "1/s", s->rate);
    else if (s->sc == GB_SERVE_PERIODIC)
        gb_case_figure(ctx, "offered_rps", "1/s", 1 / s->period_s);
    gb_case_figure(ctx, "achieved_rps", "1/s", rps / (double)nt);
    if (judged)
        gb_case_figure(ctx, "kept_up", "", kept_up);
    gb_case_figure(ctx, "dropped", "", (double)dropped);
    gb_case_figure(ctx, "capacity_rps", "1/s",
                   (double)(s->max_batch < s->nreq ? s->max_batch : s->nreq) / s->service_s);
    gb_case_figure(ctx, "service_us", "us", 1e6 * s->service_s);
    gb_case_figure(ctx, "mean_batch", "", (double)(n * s->per_query) / (batches > 0 ? batches : 1));
    gb_case_figure(ctx, "requests_checked", "", (double)s->checked);
    double *h = malloc(nt * sizeof *h);
    size_t nh = 0;
    for (size_t t = t0; h && t < s->ntraces; t++) {
        const double x = overloaded || s->sc == GB_SERVE_OFFLINE ? s->tr[t].rps
                         : s->sc == GB_SERVE_SINGLESTREAM        ? s->tr[t].p90_us
                                                                 : s->tr[t].p99_us;
        if (isfinite(x))
            h[nh++] = x;
    }
    /* The headline's value is the figure it names, over the whole run (LoadGen's: one
     * percentile over every query of the run): p90_us for SingleStream, p99_us for the other
     * latencies, achieved_rps for a throughput; the per-trace values are its samples, whose
     * spread compare judges. */
    if (h && nh) {
        if (overloaded || s->sc == GB_SERVE_OFFLINE) {
            gb_case_headline(ctx, "throughput", "1/s", GB_BETTER_HIGHER, h, nh);
            gb_case_headline_value(ctx, rps / (double)nt);
        } else {
            gb_case_headline(ctx, "latency", "us", GB_BETTER_LOWER, h, nh);
            if (pooled_n)
                gb_case_headline_value(ctx, 1e6 * pooled);
        }
    }
    free(h);
}

static void serve_teardown(struct gb_case_ctx *ctx)
{
    struct serve *s = ctx->state;
    gb_case_free_buf(ctx, &s->w);
    gb_case_free_buf(ctx, &s->x);
    gb_case_free_buf(ctx, &s->y);
    gb_case_free_buf(ctx, &s->hin);
    gb_case_free_buf(ctx, &s->hout);
    free(s->ref);
    free(s->which);
    free(s->arr);
    free(s->lat);
    free(s->kept);
    free(s->tr);
}

/* knee_load of r's sweep over load (the members as serve_derive finds them): the smallest load
 * whose p99 (p99_us; an overloaded load's overload_p99_us) exceeds GB_SERVE_KNEE_K times the
 * p99 of the sweep's lowest load (gb_serve_knee). */
static void serve_knee(struct gb_results *rs, struct gb_result *r, const char *const *but)
{
    double *load = malloc(rs->nresults * 2 * sizeof *load);
    if (!load)
        return;
    double *p99 = load + rs->nresults;
    size_t m = 0;
    for (size_t j = 0; j < rs->nresults; j++) {
        const struct gb_result *o = &rs->results[j];
        if (strcmp(o->suite, "serve") || o->status != GB_STATUS_OK ||
            o->device_index != r->device_index || strcmp(o->backend, r->backend) ||
            !gb_params_equal_but(&o->params, &r->params, but))
            continue;
        const struct gb_figure *f = gb_result_figure_get(o, "p99_us");
        if (!f || !f->n)
            f = gb_result_figure_get(o, "overload_p99_us");
        /* Insertion by load, ascending. */
        const double x = gb_params_float(&o->params, "load"), y = f && f->n ? f->v[0] : NAN;
        size_t k = m++;
        for (; k > 0 && load[k - 1] > x; k--) {
            load[k] = load[k - 1];
            p99[k] = p99[k - 1];
        }
        load[k] = x;
        p99[k] = y;
    }
    const double knee = gb_serve_knee(load, p99, m, GB_SERVE_KNEE_K);
    if (isfinite(knee))
        gb_result_figure(r, "knee_load", "", knee);
    else
        gb_result_text(r, "knee_load", "none: no p99 over %g x the lowest load's", GB_SERVE_KNEE_K);
    free(load);
}

/* max_rps_under_slo across a sweep over load. */
static int serve_derive(struct gb_results *rs)
{
    static const char *const but[] = {"load", NULL};
    for (size_t i = 0; i < rs->nresults; i++) {
        struct gb_result *r = &rs->results[i];
        if (strcmp(r->suite, "serve") || r->status != GB_STATUS_OK ||
            scenario_of(&r->params) != GB_SERVE_SERVER || gb_params_bool(&r->params, "find_peak"))
            continue;
        const double slo = (double)gb_params_int(&r->params, "slo_us");
        double best = 0;
        size_t members = 0;
        for (size_t j = 0; j < rs->nresults; j++) {
            const struct gb_result *o = &rs->results[j];
            if (strcmp(o->suite, "serve") || o->status != GB_STATUS_OK ||
                o->device_index != r->device_index || strcmp(o->backend, r->backend) ||
                !gb_params_equal_but(&o->params, &r->params, but))
                continue;
            members++;
            /* The p99 over every request of the kept traces (MLPerf's Server figure is the
             * run's p99, not a trace's), and the rate actually served at that load; only where
             * the queue kept up (an overloaded case has no steady-state tail: its latencies
             * grow with the trace, and a short trace's can pass any bound). */
            const struct gb_figure *p99 = gb_result_figure_get(o, "p99_us"),
                                   *got = gb_result_figure_get(o, "achieved_rps"),
                                   *state = gb_result_figure_get(o, "queue_state");
            if (strcmp(o->unit, "us") ||
                (state && state->n == 0 && strncmp(state->text, "overloaded", 10) == 0))
                continue;
            const double tail = p99 && p99->n ? p99->v[0] : o->value;
            if (got && got->n && tail <= slo && got->v[0] > best)
                best = got->v[0];
        }
        if (members < 2)
            continue;
        serve_knee(rs, r, but);
        if (best > 0)
            gb_result_figure(r, "max_rps_under_slo", "1/s", best);
        else
            gb_result_text(r, "max_rps_under_slo", "none: no stable load's p99 under %g us", slo);
    }
    return 0;
}

const struct gb_suite gb_suite_serve = {
    .name = "serve",
    .summary = "tail latency under offered load: an MLP layer's GEMM for Poisson requests "
               "through a dynamic batcher (p50-p99.9, the largest rate under a p99 bound)",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "shape",
    .normalize = serve_normalize,
    .axis_applies = serve_axis_applies,
    .state_size = sizeof(struct serve),
    .setup = serve_setup,
    .prepare = serve_prepare,
    .run = serve_run,
    .settle = serve_settle,
    .verify = serve_verify,
    .teardown = serve_teardown,
    .figures = serve_figures,
    .derive = serve_derive,
    .chart = {.kind = GB_CHART_LINE, .x = "load"},
};
