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

/* The M/D/1 queue's waiting-time distribution (Erlang, 1909; Franx, "A simple solution for the
 * M/D/c waiting time distribution", Oper. Res. Lett. 29, 2001, eq. for c = 1): with arrivals
 * at rate lambda, a deterministic service time d and rho = lambda d < 1,
 *   P(W <= t) = (1 - rho) sum_{k=0}^{floor(t/d)} [lambda (k d - t)]^k / k! e^{-lambda (k d - t)}
 * for t >= 0 (0 for t < 0). The sum alternates, and its terms grow to about e^(lambda t):
 * accurate in double to about lambda t = 20 (a p99.9 wait below rho 0.95). */
double gb_md1_wait_cdf(double t, double lambda, double d);

#endif
