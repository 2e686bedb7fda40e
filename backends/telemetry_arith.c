/* gpubench — telemetry: the pure arithmetic on readings: the energy of a window, which readings
 * are throttled, which samples they mark (contract in telemetry.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/telemetry.h"

double gb_tel_energy(const struct gb_tel_reading *r, size_t n, const char **method)
{
    size_t first = n, last = n;
    for (size_t i = 0; i < n; i++)
        if (isfinite(r[i].energy_j)) {
            if (first == n)
                first = i;
            last = i;
        }
    if (first < n && last > first) {
        *method = "counter";
        return r[last].energy_j - r[first].energy_j;
    }
    double e = 0.0;
    size_t prev = n, used = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(r[i].q[GB_TQ_POWER]))
            continue;
        if (prev < n) /* the trapezoid rule */
            e += 0.5 * (r[prev].q[GB_TQ_POWER] + r[i].q[GB_TQ_POWER]) * (r[i].t - r[prev].t);
        prev = i;
        used++;
    }
    if (used >= 2) {
        *method = "power";
        return e;
    }
    *method = "";
    return NAN;
}

static double window_energy(const struct gb_tel_reading *r, size_t n, bool coarse,
                            double power_avg_s, const char **method, char *why, size_t len);

double gb_tel_window_energy(const struct gb_tel_reading *r, size_t n, bool coarse,
                            double power_avg_s, const char **method, char *why, size_t len)
{
    double e = window_energy(r, n, coarse, power_avg_s, method, why, len);
    double window = n >= 2 ? r[n - 1].t - r[0].t : 0.0;
    /* More than 10 kW, or less than nothing: a counter that went wrong (a reset read as a
     * wrap), not a device. */
    if (isfinite(e) && (e < 0 || (window > 0 && e / window > GB_TEL_MAX_POWER_W))) {
        snprintf(why, len, "no energy: the %s gave an implausible %.3g J in %.3g ms (%.3g W)",
                 **method == 'p' ? "power readings" : "energy counter", e, window * 1e3,
                 window > 0 ? e / window : 0.0);
        *method = "";
        return NAN;
    }
    return e;
}

static double window_energy(const struct gb_tel_reading *r, size_t n, bool coarse,
                            double power_avg_s, const char **method, char *why, size_t len)
{
    *method = "";
    if (len)
        why[0] = '\0';
    double window = n >= 2 ? r[n - 1].t - r[0].t : 0.0, gap = 0.0;
    for (size_t i = 1; i < n; i++)
        gap = fmax(gap, r[i].t - r[i - 1].t);
    /* The counter's steps: readings whose value differs from the reading before that had one. */
    size_t steps = 0, fc = n, lc = n, prev = n;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(r[i].energy_j))
            continue;
        if (prev < n && r[i].energy_j != r[prev].energy_j) {
            if (fc == n)
                fc = i;
            lc = i;
            steps++;
        }
        prev = i;
    }
    bool has_counter = prev < n;
    if (has_counter && !coarse)
        return gb_tel_energy(r, n, method);
    if (steps >= 2 && r[lc].t - r[fc].t >= GB_TEL_COUNTER_SPAN_INTERVALS * gap &&
        r[lc].t > r[fc].t) {
        *method = "counter";
        return (r[lc].energy_j - r[fc].energy_j) / (r[lc].t - r[fc].t) * window;
    }
    size_t npower = 0;
    for (size_t i = 0; i < n; i++)
        npower += isfinite(r[i].q[GB_TQ_POWER]);
    if (npower >= 2 && window >= power_avg_s) {
        double e = 0.0;
        size_t p = n;
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(r[i].q[GB_TQ_POWER]))
                continue;
            if (p < n) /* the trapezoid rule */
                e += 0.5 * (r[p].q[GB_TQ_POWER] + r[i].q[GB_TQ_POWER]) * (r[i].t - r[p].t);
            p = i;
        }
        *method = "power";
        return e;
    }
    char c[128] = "there is no energy counter";
    if (has_counter)
        snprintf(c, sizeof c,
                 "the energy counter stepped %zu time%s, needing steps over %.0f ms (%d "
                 "reading intervals)",
                 steps, steps == 1 ? "" : "s", GB_TEL_COUNTER_SPAN_INTERVALS * gap * 1e3,
                 GB_TEL_COUNTER_SPAN_INTERVALS);
    if (npower < 2)
        snprintf(why, len, "no energy in a %.3g ms window: %s, and no power readings", window * 1e3,
                 c);
    else
        snprintf(why, len, "no energy in a %.3g ms window: %s, and its power is a %.3g s average",
                 window * 1e3, c, power_avg_s);
    return NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

size_t gb_tel_reading_throttled(const struct gb_tel_reading *r, size_t n, double clock_floor,
                                bool *thr)
{
    double *c = malloc((n ? n : 1) * sizeof *c);
    size_t nc = 0;
    for (size_t i = 0; c && i < n; i++)
        if (isfinite(r[i].q[GB_TQ_CLOCK]))
            c[nc++] = r[i].q[GB_TQ_CLOCK];
    double median = NAN;
    if (nc) {
        qsort(c, nc, sizeof *c, cmp_double);
        median = nc % 2 ? c[nc / 2] : 0.5 * (c[nc / 2 - 1] + c[nc / 2]);
    }
    free(c);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        thr[i] = (r[i].has_reasons && (r[i].reasons & ~GB_TEL_REASON_IDLE)) ||
                 (isfinite(median) && r[i].q[GB_TQ_CLOCK] < clock_floor * median);
        k += thr[i];
    }
    return k;
}

size_t gb_tel_mark(const struct gb_tel_trace *tr, double clock_floor, unsigned char *marks)
{
    size_t n = tr->n, k = 0;
    bool *thr = malloc((n ? n : 1) * sizeof *thr);
    if (!thr) {
        memset(marks, 0, tr->nsamples);
        return 0;
    }
    gb_tel_reading_throttled(tr->r, n, clock_floor, thr);
    size_t j = 0; /* readings before j started before the current sample */
    for (size_t i = 0; i < tr->nsamples; i++) {
        while (j < n && tr->r[j].t < tr->t0[i])
            j++;
        bool m = j > 0 && thr[j - 1];
        for (size_t q = j; q < n && tr->r[q].t <= tr->t1[i] && !m; q++)
            m = thr[q];
        marks[i] = m;
        k += m;
    }
    free(thr);
    return k;
}
