/* gpubench — the transfer suite's charts: host-device copy bandwidth against size, one chart
 * per direction, with each device's peak and half-peak size (registry in charts.c). */
#include "analyses/report_model.h"
#include "outputs/report.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *dir_name(const char *op)
{
    if (strcmp(op, "h2d") == 0)
        return "host to device (H2D)";
    if (strcmp(op, "d2h") == 0)
        return "device to host (D2H)";
    if (strcmp(op, "d2d") == 0)
        return "device to device (D2D)";
    if (strcmp(op, "bidir") == 0)
        return "bidirectional (H2D and D2H at once)";
    return op;
}

/* Per series, the best line's peak and its half-peak size (Hockney's n1/2). */
static void peak_finding(struct rep *R, struct chart *c, const struct line *l, size_t n, size_t ser,
                         const char *op)
{
    const struct line *best = NULL;
    double peak = 0, at = 0;
    for (size_t i = 0; i < n; i++) {
        if (l[i].s != ser)
            continue;
        for (size_t k = 0; k < l[i].n; k++)
            if (l[i].y[k] > peak) {
                peak = l[i].y[k];
                at = l[i].x[k];
                best = &l[i];
            }
    }
    if (!best)
        return;
    double half = NAN;
    for (size_t k = 0; k < best->n && isnan(half); k++)
        if (best->y[k] >= peak / 2)
            half = best->x[k];
    char sat[32], shalf[32];
    gb__fmt_x(at, true, sat, sizeof sat);
    gb__fmt_x(half, true, shalf, sizeof shalf);
    char params[200] = "";
    const struct gb_result *pr = NULL;
    for (size_t k = 0; k < best->n; k++)
        if (best->x[k] == at)
            pr = best->r[k];
    if (pr)
        gb__param_values(pr, "size", SIZE_MAX, params, sizeof params);
    find(c, "%s: %s peaks at %.3g GB/s with %s copies (%s); half of that from %s copies up.",
         R->ser[ser].label, op, peak, sat, params, shalf);
}

/* The chart of one direction (the case op). */
static void transfer_direction(struct rep *R, const struct gb__chart_kind *k, const char *op)
{
    struct suite_filter one = {.suites = k->suites, .case_name = op, .unit = "GB/s"};
    struct sel s = gb__select(R, gb__suite_filter_fn, &one, SIZE_MAX);
    struct axes a;
    gb__scan_axes(&s, &a);
    char id[64], title[160], what[700];
    snprintf(id, sizeof id, "transfer_%.40s", op);
    snprintf(title, sizeof title, "Transfer bandwidth, %.100s", dir_name(op));
    snprintf(what, sizeof what,
             "Median bandwidth (GB/s = 10^9 B/s) of one %.40s copy against its size, log axis. "
             "Each line is one device and host memory kind (pinned: page-locked, registered: "
             "malloc'd memory pinned after the fact, pageable: ordinary malloc) and mode (async: a "
             "batch of non-blocking copies timed on the "
             "device; sync: each copy waited for, timed on the host). Small copies are "
             "bound by latency, large ones by the link.",
             op);
    struct chart *c = gb__chart_new(R, id, title, what);
    struct line *l;
    size_t dropped;
    size_t n = gb__build_lines(R, &s, &a, "size", NULL, &l, &dropped);
    if (!c || !l) {
        gb__free_lines(l, l ? n : 0);
        free(s.p);
        return;
    }
    if (n == 0) {
        gb__chart_nodata(R, c, "the %s results have no size axis", op);
    } else {
        gb__write_lines(R, c, l, n, "copy size", "GB/s", true, NULL, 0, NULL, NULL);
        for (size_t ser = 0; ser < R->nser; ser++)
            peak_finding(R, c, l, n, ser, op);
        if (dropped)
            find(c, "%zu more lines are in the results but not drawn (at most %d per chart).",
                 dropped, MAXLINES);
    }
    gb__free_lines(l, n);
    free(s.p);
}

void gb__chart_transfer(struct rep *R, const struct gb__chart_kind *k)
{
    struct suite_filter sf = {.suites = k->suites, .unit = "GB/s"};
    struct sel all = gb__select(R, gb__suite_filter_fn, &sf, SIZE_MAX);
    if (all.n == 0)
        gb__chart_absent(R, "transfer", "Transfer bandwidth against size",
                         "Host-device copy bandwidth (GB/s, 10^9 B/s) against the size of one "
                         "copy, per direction and host memory kind.",
                         "no transfer results in these files");
    /* One chart per direction, in the order the directions first appear; at most 16. */
    size_t nops = 0;
    for (size_t i = 0; i < all.n && nops < 16; i++)
        if (gb__first_of_case(&all, i, false)) {
            transfer_direction(R, k, all.p[i]->r->case_name);
            nops++;
        }
    free(all.p);
}
