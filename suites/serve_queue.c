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

int gb_serve_run(const struct gb_serve_server *srv, const double *a, size_t n, size_t max_batch,
                 double max_wait, double *latency, struct gb_serve_stats *st)
{
    if (!srv || !a || !latency || max_batch < 1 || !(max_wait >= 0))
        return GB_FAIL(GB_EINVAL, "serve: bad batcher arguments");
    struct gb_serve_stats s = {0};
    for (size_t i = 0; i < n; i++)
        latency[i] = NAN;
    const double t0 = srv->now(srv->ctx);
    size_t head = 0, arrived = 0; /* [head, arrived) are queued */
    double last_done = 0;
    while (head < n) {
        const double t = srv->now(srv->ctx) - t0;
        while (arrived < n && a[arrived] <= t)
            arrived++;
        const size_t queued = arrived - head;
        if (!queued) {
            srv->wait_until(srv->ctx, t0 + a[arrived]);
            continue;
        }
        const double deadline = a[head] + max_wait;
        if (queued >= max_batch || t >= deadline || arrived == n) {
            const size_t k = queued < max_batch ? queued : max_batch;
            int err = srv->serve(srv->ctx, head, k);
            if (err)
                return err;
            const double done = srv->now(srv->ctx) - t0;
            for (size_t j = head; j < head + k; j++)
                latency[j] = done - a[j];
            head += k;
            s.batches++;
            if (k > s.largest_batch)
                s.largest_batch = k;
            last_done = done;
        } else {
            const double next = a[arrived] < deadline ? a[arrived] : deadline;
            srv->wait_until(srv->ctx, t0 + next);
        }
    }
    s.span_s = n ? last_done - a[0] : 0;
    if (st)
        *st = s;
    return 0;
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
