/* gpubench — the serve suite's dynamic batcher (contract in serve_queue.h). */
#include "suites/serve_queue.h"

#include <math.h>

#include "base/error.h"
#include "base/util.h"

void gb_serve_arrivals(double *a, size_t n, double rate, uint64_t seed)
{
    uint64_t s = seed;
    double t = 0;
    for (size_t i = 0; i < n; i++) {
        const double u = (double)(gb_splitmix64(&s) >> 11) * 0x1.0p-53; /* [0, 1) */
        t += -log1p(-u) / rate;
        a[i] = t;
    }
}

/* A dropped request's latency while the batcher runs: below any served one's (>= 0). */
#define DROPPED (-1.0)

int gb_serve_run(const struct gb_serve_server *srv, const double *a, size_t n, size_t max_batch,
                 double max_wait, size_t queue, double *latency, struct gb_serve_stats *st)
{
    if (!srv || !a || !latency || max_batch < 1 || !(max_wait >= 0))
        return GB_FAIL(GB_EINVAL, "serve: bad batcher arguments");
    struct gb_serve_stats s = {0};
    for (size_t i = 0; i < n; i++)
        latency[i] = NAN;
    const double t0 = srv->now(srv->ctx);
    /* The queue: the requests in [head, arrived) not served, the dropped among them marked;
     * `queued` of them wait. Admitted requests are served in order, so the serve callback's
     * numbering is s.served. */
    size_t head = 0, arrived = 0, queued = 0;
    double last_done = 0;
    int err = 0;
    while (head < n) {
        const double t = srv->now(srv->ctx) - t0;
        /* The arrivals since the last look, in order: nothing left the queue meanwhile (the
         * server was busy or the batcher waiting), so each finds the queue as it was then. */
        for (; arrived < n && a[arrived] <= t; arrived++) {
            if (queue && queued >= queue) {
                latency[arrived] = DROPPED;
                s.dropped++;
            } else {
                queued++;
            }
        }
        while (head < arrived && latency[head] == DROPPED)
            head++;
        if (!queued) {
            if (arrived == n)
                break;
            srv->wait_until(srv->ctx, t0 + a[arrived]);
            continue;
        }
        const double deadline = a[head] + max_wait;
        if (queued >= max_batch || t >= deadline || arrived == n) {
            const size_t k = queued < max_batch ? queued : max_batch;
            if ((err = srv->serve(srv->ctx, s.served, k)))
                break;
            const double done = srv->now(srv->ctx) - t0;
            for (size_t j = head, left = k; left; j++)
                if (latency[j] != DROPPED) {
                    latency[j] = done - a[j];
                    head = j + 1;
                    left--;
                }
            queued -= k;
            s.served += k;
            s.batches++;
            if (k > s.largest_batch)
                s.largest_batch = k;
            last_done = done;
        } else {
            const double next = arrived < n && a[arrived] < deadline ? a[arrived] : deadline;
            srv->wait_until(srv->ctx, t0 + next);
        }
    }
    for (size_t i = 0; i < n; i++)
        if (latency[i] == DROPPED)
            latency[i] = NAN;
    if (err)
        return err;
    s.span_s = s.served ? last_done - a[0] : 0;
    s.last_done_s = last_done;
    if (st)
        *st = s;
    return 0;
}

double gb_serve_kept_up(const double *a, size_t n, const struct gb_serve_stats *st, double drain_s)
{
    if (n < 2 || !(a[n - 1] > a[0]))
        return NAN;
    const double offered = (double)(n - 1) / (a[n - 1] - a[0]);
    double span = st->last_done_s - a[0] - (drain_s > 0 ? drain_s : 0);
    if (span < a[n - 1] - a[0])
        span = a[n - 1] - a[0];
    return (double)st->served / span / offered;
}

double gb_md1_wait_cdf(double t, double lambda, double d)
{
    if (t < 0)
        return 0;
    const double rho = lambda * d;
    double sum = 0;
    const long kmax = (long)floor(t / d);
    for (long k = 0; k <= kmax; k++) {
        const double x = lambda * ((double)k * d - t); /* <= 0 */
        /* x^k / k! e^-x, in logs for the magnitude, with the sign of x^k. */
        const double mag = k ? exp((double)k * log(-x) - lgamma((double)k + 1) - x) : exp(-x);
        sum += (k % 2 && x != 0) ? -mag : mag;
    }
    return (1 - rho) * sum;
}
