/* gpubench — the serve suite's dynamic batcher (suites/serve.c), apart from any device so that a
 * test runs the same code on a virtual clock against a queue with a closed form (M/D/1).
 *
 * Requests arrive at given times; a FIFO queue holds those that have arrived and not been
 * served; one server serves a batch at a time. The batcher dispatches the oldest
 * min(queued, max_batch) requests as soon as the server is free and either max_batch requests
 * are queued, or the oldest has waited max_wait, or no more will arrive; otherwise it waits for
 * the next arrival or that deadline, whichever is first (the rule of Triton's and TorchServe's
 * dynamic batchers: a batch limit and a queue delay). The queue is bounded: a request that
 * arrives while `queue` requests wait is dropped (turned away at once, as Triton's
 * max_queue_size and TorchServe's job_queue_size do). A request's latency is its batch's
 * completion time less its arrival time: queueing and batching delay included.
 */
#ifndef GB_SUITES_SERVE_QUEUE_H
#define GB_SUITES_SERVE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The clock and the server: real (the harness's clock, a device) or virtual (a test). */
struct gb_serve_server {
    void *ctx;
    double (*now)(void *ctx);                /* seconds, monotonic */
    void (*wait_until)(void *ctx, double t); /* returns at now() >= t (at once when past) */
    /* Serves the admitted requests [first, first + count) as one batch and returns when it is
     * done: 0 or a gb_err. Admitted requests are numbered in arrival order, the dropped left
     * out (without drops, a request's number is its index). */
    int (*serve)(void *ctx, size_t first, size_t count);
};

struct gb_serve_stats {
    size_t batches;       /* batches dispatched */
    size_t largest_batch; /* requests in the largest */
    size_t served;        /* requests served (admitted) */
    size_t dropped;       /* requests turned away: the queue was full when they arrived */
    double span_s;        /* from the first arrival to the last completion (0: none served) */
    double last_done_s;   /* the last completion, seconds from the arrivals' 0 */
};

/* Fills a[0..n) with the arrival times (seconds from 0) of a Poisson process of `rate` > 0
 * requests per second: exponential gaps by inversion, -ln(1 - u) / rate, u uniform in [0, 1)
 * from splitmix64 (base/util.h) seeded with `seed`. a[0] is the first gap. */
void gb_serve_arrivals(double *a, size_t n, double rate, uint64_t seed);

/* Runs the batcher over requests arriving at t0 + a[i] (a ascending, seconds; t0 = srv->now()
 * at the call), with 1 <= max_batch, max_wait >= 0 seconds and at most `queue` requests waiting
 * (0: no bound), until every request has been served or dropped; latency[i] (seconds) as above,
 * NaN for a dropped request; st filled when not NULL. Returns 0, GB_EINVAL for bad arguments, or
 * the first error of srv->serve (the requests after it are not served and their latencies are
 * NaN). */
int gb_serve_run(const struct gb_serve_server *srv, const double *a, size_t n, size_t max_batch,
                 double max_wait, size_t queue, double *latency, struct gb_serve_stats *st);

/* Whether a trace's server kept up with its arrivals: the achieved rate over the offered one.
 * Offered: the trace's own arrival rate, (n - 1) / (a[n-1] - a[0]) (the Poisson draw's, not the
 * nominal rate: a trace of 100 arrivals spans its mean within about 10%). Achieved: the requests
 * served over the span from the first arrival to the last completion less `drain_s` (the
 * service of the last batch, which follows the last arrival in a queue that keeps up; the span
 * is at least the arrivals'). About 1 in a stable queue; 1 / load in an overloaded one, whose
 * backlog grows for as long as requests come (or whose full queue turns them away). On the
 * virtual clock of tests/test_serve.c (a batch of k takes 0.1 + 0.015 k), the median of 3
 * traces of 100 or 256 requests in batches of 1 or 8 read 0.85 to 1.01 at loads 0.5 and 0.95
 * and 0.43 to 0.59 at load 2, in 100 draws each; traces of 100 requests in batches of 32 (three
 * batches: mostly the trace's start and its drain) read down to 0.74 at 0.95 in a simulation.
 * NaN for fewer than two arrivals. */
double gb_serve_kept_up(const double *a, size_t n, const struct gb_serve_stats *st, double drain_s);

/* A run is overloaded when the median of its traces' gb_serve_kept_up falls below this. */
#define GB_SERVE_KEPT_UP_MIN 0.75
/* ... or when its full queue turned away more than this share of the requests that arrived: the
 * percentiles count the requests served only, so a run that drops is no steady state either (a
 * queue of 1 at load 0.5 dropped 8% and read stable, kept_up 0.92, with a p99 of the rest). */
#define GB_SERVE_DROPPED_MAX 0.01

/* The overload rule, one for a run's verdict and for find_peak's probes: the median of the
 * traces' kept_up below GB_SERVE_KEPT_UP_MIN (NaN, not judged: never), or `dropped` over
 * GB_SERVE_DROPPED_MAX of the `arrived` requests. */
bool gb_serve_overloaded(double kept_up, size_t dropped, size_t arrived);

/* The M/D/1 queue's waiting-time distribution (Erlang, 1909; Franx, "A simple solution for the
 * M/D/c waiting time distribution", Oper. Res. Lett. 29, 2001, eq. for c = 1): with arrivals
 * at rate lambda, a deterministic service time d and rho = lambda d < 1,
 *   P(W <= t) = (1 - rho) sum_{k=0}^{floor(t/d)} [lambda (k d - t)]^k / k! e^{-lambda (k d - t)}
 * for t >= 0 (0 for t < 0). The sum alternates, and its terms grow to about e^(lambda t):
 * accurate in double to about lambda t = 20 (a p99.9 wait below rho 0.95). */
double gb_md1_wait_cdf(double t, double lambda, double d);

/* ---- LoadGen's scenarios ------------------------------------------------------------------
 * MLPerf Inference's LoadGen (github.com/mlcommons/inference, loadgen/; the scenarios in
 * "MLPerf Inference Rules", inference_policies, section "Scenarios"): SingleStream issues one
 * query of one sample and the next when it completes (metric: the p90 of the query latency);
 * MultiStream the same with queries of 8 samples (p99); Server queries of one sample at Poisson
 * arrivals (the largest rate whose p99 stays under the scenario's bound); Offline every sample
 * at once (samples per second). Periodic is not LoadGen's: a real-time source (a 30 Hz camera)
 * issues one sample every period, and each has a deadline. */
enum gb_serve_scenario {
    GB_SERVE_SERVER, /* the default: what the serve suite measured before it had scenarios */
    GB_SERVE_SINGLESTREAM,
    GB_SERVE_MULTISTREAM,
    GB_SERVE_OFFLINE,
    GB_SERVE_PERIODIC,
};

/* MultiStream's samples per query (LoadGen's since v2.1 of the rules). */
#define GB_SERVE_MULTISTREAM_SAMPLES 8
/* The confidence of LoadGen's early-stopping claims (loadgen/results.cc: 0.99, tolerance 0). */
#define GB_SERVE_ES_CONFIDENCE 0.99

/* Closed loop (SingleStream, MultiStream): `queries` queries of `per_query` samples each, the
 * first issued at the call and each next one the moment the previous completes; query q is
 * served as one batch, srv->serve(ctx, q per_query, per_query). latency[q] (seconds): its
 * completion less its issue. st as gb_serve_run's (nothing dropped; span_s from the first issue
 * to the last completion). Returns 0, GB_EINVAL (per_query 0, NULL arrays) or srv->serve's error
 * (the queries after it keep NaN). */
int gb_serve_closed(const struct gb_serve_server *srv, size_t queries, size_t per_query,
                    double *latency, struct gb_serve_stats *st);

/* Periodic arrivals: a[i] = i period (seconds), the first at 0. */
void gb_serve_periodic_arrivals(double *a, size_t n, double period);

/* The completion-time jitter of a periodic trace: over consecutive served requests i-1, i (both
 * with a finite latency), the deviation of the gap between their completions (a + latency) from
 * what their arrivals' gap was (the period times the arrivals between them), seconds. *sd: the
 * population standard deviation of the deviations; *p99_abs: the nearest-rank p99 of their
 * absolute values. Both NaN with fewer than two served. Returns how many deviations there were. */
size_t gb_serve_jitter(const double *a, const double *latency, size_t n, double *sd,
                       double *p99_abs);

/* ---- early stopping (LoadGen's, loadgen/early_stopping.cc and results.cc) ------------------
 * A claim "the p-quantile of the latency is at most L" from n queries of which t took longer
 * than L holds at confidence c when, were the quantile above L (each query over L with
 * probability at least 1 - p), seeing t or fewer over would be that unlikely:
 *   P(X <= t) <= 1 - c,  X ~ Binomial(n, 1 - p).
 * LoadGen takes c = 0.99 and no tolerance. */

/* P(X <= t) for X ~ Binomial(n, 1 - p), 0 < p < 1 (summed in logs: exact to ~1e-12 up to
 * n = 10^7). 1 when t >= n. */
double gb_es_odds(uint64_t n, uint64_t t, double p);

/* The fewest queries n (t of them over the bound) for which the claim at p holds at confidence
 * c: the least n >= t with gb_es_odds(n, t, p) <= 1 - c. For t = 0 it is ceil(ln(1 - c) /
 * ln p): 44 for p90 and 459 for p99 at c = 0.99; LoadGen asks for one overlatency query's
 * worth, t = 1: 64 (p90, SingleStream's "Processed at least 64 queries") and 662 (p99,
 * MultiStream). 0 for p or c outside (0, 1). */
uint64_t gb_es_min_queries(uint64_t t, double p, double c);

/* LoadGen's early-stopping estimate of the p-quantile (SingleStream, MultiStream): from n
 * latencies sorted ascending, the largest t such that n >= gb_es_min_queries(t, p, c), and the
 * t-th largest latency (sorted[n - t]): the claim "the p-quantile is at most it" holds at c.
 * Returns NaN when n < gb_es_min_queries(1, p, c) (too few queries); *t_out (may be NULL): t. */
double gb_es_estimate(const double *sorted, size_t n, double p, double c, uint64_t *t_out);

/* ---- the verdict --------------------------------------------------------------------------- */

/* The verdict of a run, LoadGen's rule per scenario, with its reason in why[0..len):
 *   every scenario but Offline: INVALID when n (the queries) is below gb_es_min_queries(1, p, c)
 *     for the scenario's percentile (p90 SingleStream, p99 the others);
 *   Server: INVALID when `overloaded` (the run's queue did not keep up: serve's kept_up below
 *     GB_SERVE_KEPT_UP_MIN or more than GB_SERVE_DROPPED_MAX of the arrivals dropped), when the
 *     p99 exceeds bound_s (LoadGen's PerfConstraintsMet) or when the queries over bound_s are too
 *     many for the claim (n < gb_es_min_queries(over, 0.99, c): LoadGen's Server early stopping);
 *   Periodic: INVALID when `overloaded` or when any request missed bound_s (its deadline);
 *   Offline: INVALID when `overloaded` (a full queue dropped samples).
 * sorted: the n latencies ascending (seconds). why: "VALID" or "INVALID: " and the reason, short
 * enough for a text figure (64 bytes) at len 64. Returns true for VALID. */
bool gb_serve_verdict(enum gb_serve_scenario sc, const double *sorted, size_t n, double bound_s,
                      bool overloaded, char *why, size_t len);

/* ---- searches over rates and loads ----------------------------------------------------------- */

/* One probe of the Server scenario's search: the rate offered (requests/s), what the caller
 * measured at it, and whether it met the bound (the caller's judgement: a VALID verdict). */
struct gb_serve_probe {
    double rate, p99_s, kept_up;
    bool pass;
};
/* Runs one probe at probe->rate and fills the rest: 0 or an error (which ends the search). */
typedef int (*gb_serve_probe_fn)(void *ctx, struct gb_serve_probe *probe);

/* The largest rate that passes, by bisection (LoadGen's FindPeakPerformance mode searches the
 * Server scenario's rate in the same way: a bracket halved until it is tight): probes `hi`
 * first, then `lo`, then midpoints, each midpoint replacing lo when it passes and hi when it
 * does not, until hi - lo <= rel_tol lo or max_probes (>= 2) have run. probes[0..*nprobes) keeps
 * every probe in order. *peak: the largest passing rate probed (hi when hi passes: the search
 * reached its ceiling; 0 when lo fails: nothing passes). Returns 0, GB_EINVAL (0 < lo < hi,
 * rel_tol > 0 and max_probes >= 2 are required) or the probe's error. */
int gb_serve_find_peak(gb_serve_probe_fn fn, void *ctx, double lo, double hi, double rel_tol,
                       size_t max_probes, struct gb_serve_probe *probes, size_t *nprobes,
                       double *peak);

/* The knee of the tail under load: the latency of the lowest load stands for the unloaded one,
 * and the knee is the smallest load whose p99 exceeds GB_SERVE_KNEE_K times it. load[0..n)
 * ascending, p99[0..n) > 0 (or NaN: a load with no tail, skipped). NaN when no load does, or
 * when n < 2. */
#define GB_SERVE_KNEE_K 2.0
double gb_serve_knee(const double *load, const double *p99, size_t n, double k);

#endif
