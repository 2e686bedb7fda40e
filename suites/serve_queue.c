/* gpubench — the serve suite's dynamic batcher (contract in serve_queue.h). */
#include "suites/serve_queue.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

bool gb_serve_overloaded(double kept_up, size_t dropped, size_t arrived)
{
    return kept_up < GB_SERVE_KEPT_UP_MIN ||
           (double)dropped > GB_SERVE_DROPPED_MAX * (double)arrived;
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

/* ---- LoadGen's scenarios ------------------------------------------------------------------ */

int gb_serve_closed(const struct gb_serve_server *srv, size_t queries, size_t per_query,
                    double *latency, struct gb_serve_stats *st)
{
    if (!srv || !latency || per_query < 1)
        return GB_FAIL(GB_EINVAL, "serve: bad closed-loop arguments");
    for (size_t q = 0; q < queries; q++)
        latency[q] = NAN;
    struct gb_serve_stats s = {0};
    const double start = srv->now(srv->ctx);
    double done = start;
    for (size_t q = 0; q < queries; q++) {
        /* Issued the moment the previous query completed: no think time, as LoadGen does. */
        const double issue = done;
        int err = srv->serve(srv->ctx, q * per_query, per_query);
        if (err)
            return err;
        done = srv->now(srv->ctx);
        latency[q] = done - issue;
        s.batches++;
        s.served += per_query;
    }
    s.largest_batch = queries ? per_query : 0;
    s.span_s = done - start;
    s.last_done_s = done - start;
    if (st)
        *st = s;
    return 0;
}

void gb_serve_periodic_arrivals(double *a, size_t n, double period)
{
    for (size_t i = 0; i < n; i++)
        a[i] = (double)i * period;
}

static int cmp_dbl(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

size_t gb_serve_jitter(const double *a, const double *latency, size_t n, double *sd,
                       double *p99_abs)
{
    (void)a; /* the arrivals' gap cancels: (a_i + l_i) - (a_j + l_j) - (a_i - a_j) = l_i - l_j */
    *sd = *p99_abs = NAN;
    double *dev = malloc((n ? n : 1) * sizeof *dev);
    if (!dev)
        return 0;
    size_t m = 0, prev = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(latency[i]))
            continue;
        if (prev != SIZE_MAX)
            dev[m++] = latency[i] - latency[prev];
        prev = i;
    }
    if (m) {
        double mean = 0, ss = 0;
        for (size_t i = 0; i < m; i++)
            mean += dev[i];
        mean /= (double)m;
        for (size_t i = 0; i < m; i++) {
            ss += (dev[i] - mean) * (dev[i] - mean);
            dev[i] = fabs(dev[i]);
        }
        *sd = sqrt(ss / (double)m);
        qsort(dev, m, sizeof *dev, cmp_dbl);
        const size_t r = (size_t)ceil(0.99 * (double)m);
        *p99_abs = dev[r ? r - 1 : 0];
    }
    free(dev);
    return m;
}

/* ---- early stopping ------------------------------------------------------------------------ */

/* ln of the Binomial(n, q) probability of x. */
static double log_binom_pmf(uint64_t n, uint64_t x, double lq, double lp)
{
    return lgamma((double)n + 1) - lgamma((double)x + 1) - lgamma((double)(n - x) + 1) +
           (double)x * lq + (double)(n - x) * lp;
}

double gb_es_odds(uint64_t n, uint64_t t, double p)
{
    if (t >= n)
        return 1;
    const double lq = log1p(-p), lp = log(p);
    double sum = 0;
    for (uint64_t x = 0; x <= t; x++)
        sum += exp(log_binom_pmf(n, x, lq, lp));
    return sum < 1 ? sum : 1;
}

uint64_t gb_es_min_queries(uint64_t t, double p, double c)
{
    if (!(p > 0 && p < 1 && c > 0 && c < 1))
        return 0;
    /* The odds fall as n grows (more queries, more expected over the bound): double n until
     * the claim holds, then bisect for the least n that passes. */
    uint64_t lo = t, hi = t + 1;
    while (gb_es_odds(hi, t, p) > 1 - c) {
        lo = hi;
        hi *= 2;
        if (hi > (UINT64_C(1) << 40))
            return 0;
    }
    while (hi - lo > 1) { /* lo fails (or is t: odds 1), hi passes */
        const uint64_t mid = lo + (hi - lo) / 2;
        if (gb_es_odds(mid, t, p) > 1 - c)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

double gb_es_estimate(const double *sorted, size_t n, double p, double c, uint64_t *t_out)
{
    if (t_out)
        *t_out = 0;
    if (!(p > 0 && p < 1 && c > 0 && c < 1) || n == 0)
        return NAN;
    /* The largest t whose fewest queries n reaches: n >= min_queries(t) exactly when
     * P(X <= t; n) <= 1 - c (the odds fall in n), and the odds rise in t, so sum the
     * binomial's terms until they pass 1 - c. */
    const double lq = log1p(-p), lp = log(p);
    double sum = 0;
    uint64_t t = 0;
    bool any = false;
    for (uint64_t x = 0; x < n; x++) {
        sum += exp(log_binom_pmf(n, x, lq, lp));
        if (sum > 1 - c)
            break;
        t = x;
        any = true;
    }
    if (!any || t < 1)
        return NAN;
    if (t_out)
        *t_out = t;
    return sorted[n - t];
}

/* ---- the verdict --------------------------------------------------------------------------- */

bool gb_serve_verdict(enum gb_serve_scenario sc, const double *sorted, size_t n, double bound_s,
                      bool overloaded, char *why, size_t len)
{
    const double c = GB_SERVE_ES_CONFIDENCE;
    const double p = sc == GB_SERVE_SINGLESTREAM ? 0.90 : 0.99;
    if (overloaded) {
        snprintf(why, len, "INVALID: overloaded (kept up < %.2g or > %.2g%% dropped)",
                 GB_SERVE_KEPT_UP_MIN, 100 * GB_SERVE_DROPPED_MAX);
        return false;
    }
    if (sc == GB_SERVE_OFFLINE) {
        snprintf(why, len, "VALID");
        return true;
    }
    const uint64_t need = gb_es_min_queries(1, p, c);
    if (sc != GB_SERVE_SERVER && n < need) {
        snprintf(why, len, "INVALID: too few queries: %zu < %llu for p%g (early stopping)", n,
                 (unsigned long long)need, 100 * p);
        return false;
    }
    size_t over = 0;
    for (size_t i = n; i > 0 && sorted[i - 1] > bound_s; i--)
        over++;
    if (sc == GB_SERVE_PERIODIC && over) {
        snprintf(why, len, "INVALID: %zu of %zu requests missed the deadline", over, n);
        return false;
    }
    if (sc == GB_SERVE_SERVER) {
        const size_t r = (size_t)ceil(0.99 * (double)n);
        const double p99 = n ? sorted[r ? r - 1 : 0] : NAN;
        const uint64_t es = gb_es_min_queries(over, p, c);
        if (n && p99 > bound_s) {
            snprintf(why, len, "INVALID: p99 %.4g us over the bound %.4g us", 1e6 * p99,
                     1e6 * bound_s);
            return false;
        }
        if (n < es) {
            snprintf(why, len, "INVALID: too few queries: %zu < %llu (%zu over the bound)", n,
                     (unsigned long long)es, over);
            return false;
        }
    }
    snprintf(why, len, "VALID");
    return true;
}

/* ---- searches ------------------------------------------------------------------------------ */

int gb_serve_find_peak(gb_serve_probe_fn fn, void *ctx, double lo, double hi, double rel_tol,
                       size_t max_probes, struct gb_serve_probe *probes, size_t *nprobes,
                       double *peak)
{
    *nprobes = 0;
    *peak = 0;
    if (!fn || !probes || !(lo > 0 && lo < hi) || !(rel_tol > 0) || max_probes < 2)
        return GB_FAIL(GB_EINVAL, "serve: bad search arguments");
    int err;
    struct gb_serve_probe *pr = &probes[(*nprobes)++];
    *pr = (struct gb_serve_probe){.rate = hi};
    if ((err = fn(ctx, pr)))
        return err;
    if (pr->pass) {
        *peak = hi;
        return 0;
    }
    pr = &probes[(*nprobes)++];
    *pr = (struct gb_serve_probe){.rate = lo};
    if ((err = fn(ctx, pr)))
        return err;
    if (!pr->pass)
        return 0;
    while (*nprobes < max_probes && hi - lo > rel_tol * lo) {
        pr = &probes[(*nprobes)++];
        *pr = (struct gb_serve_probe){.rate = 0.5 * (lo + hi)};
        if ((err = fn(ctx, pr)))
            return err;
        if (pr->pass)
            lo = pr->rate;
        else
            hi = pr->rate;
    }
    *peak = lo;
    return 0;
}

double gb_serve_knee(const double *load, const double *p99, size_t n, double k)
{
    double base = NAN;
    for (size_t i = 0; i < n; i++) {
        if (!(p99[i] > 0))
            continue;
        if (isnan(base))
            base = p99[i];
        else if (p99[i] > k * base)
            return load[i];
    }
    return NAN;
}
