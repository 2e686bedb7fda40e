/* gpubench — the collectives' chart: bus bandwidth against size, one line per collective and
 * transport (and number of ranks, where that varies), with each line's peak and half-peak size
 * (registry in charts.c).
 *
 * It reads four suites' results alike: collective (transport as recorded: devices, nccl),
 * mpi_collective (gpubench-mpi's: transport mpi, the reduction in param `op`, the ranks in param
 * `ranks`), mpi_allreduce (gpubench-mpi's all-reduce of floats: coll allreduce, transport mpi)
 * and allreduce (coll allreduce, transport devices, the ranks in param `ndev`). All
 * carry the figures of nccl-tests doc/PERFORMANCE.md: busbw = algbw x busbw_factor, with
 * busbw_factor 2 (n - 1) / n for all-reduce, (n - 1) / n for all-gather, reduce-scatter and
 * all-to-all, 1 for broadcast, reduce and send/recv, on n ranks.
 */
#include "analyses/report_model.h"
#include "outputs/report.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The cases drawn: nccl-tests' default, f32 elements, sum, out of place. */
#define COLL_DTYPE "f32"
#define COLL_REDOP "sum"

/* A string param of r, or NULL when r has none (or it is not a string). */
static const char *str_param(const struct gb_result *r, const char *name)
{
    const struct gb_value *v = gb_params_get(&r->params, name);
    return v && v->type == GB_V_STR ? v->s : NULL;
}

/* A numeric param of r, NAN when r has none. */
static double num_param(const struct gb_result *r, const char *name)
{
    const struct gb_value *v = gb_params_get(&r->params, name);
    return v && is_num(v) ? gb__num(v) : NAN;
}

/* The collective of r (nccl-tests' name): param coll, else allreduce (the allreduce suite). */
static const char *coll_of(const struct gb_result *r)
{
    const char *c = str_param(r, "coll");
    return c ? c : "allreduce";
}

/* The transport of r: param transport, else mpi for gpubench-mpi's suites (mpi_allreduce), else
 * devices (the allreduce suite's). */
static const char *transport_of(const struct gb_result *r)
{
    const char *t = str_param(r, "transport");
    return t ? t : strncmp(r->suite, "mpi_", 4) == 0 ? "mpi" : "devices";
}

/* The ranks of r: figure ranks, else param ranks (mpi_collective), else param ndev (allreduce);
 * NAN when none says. */
static double ranks_of(const struct gb_result *r)
{
    double n = gb_result_scalar(r, "ranks");
    if (isnan(n))
        n = num_param(r, "ranks");
    if (isnan(n))
        n = num_param(r, "ndev");
    return n;
}

/* Whether r is a drawn case: f32 (no dtype param: the allreduce suite's floats), sum (param
 * redop, or op; "none" for a collective without a reduction), out of place (no inplace param:
 * out of place), with a numeric size and a finite busbw. */
static bool drawn_case(const struct gb_result *r)
{
    const char *dt = str_param(r, "dtype"), *op = str_param(r, "redop");
    if (!op)
        op = str_param(r, "op");
    const struct gb_value *ip = gb_params_get(&r->params, "inplace");
    if ((dt && strcmp(dt, COLL_DTYPE) != 0) ||
        (op && strcmp(op, COLL_REDOP) != 0 && strcmp(op, "none") != 0))
        return false;
    if (ip && ((ip->type == GB_V_BOOL && ip->u.b) || (is_num(ip) && gb__num(ip) != 0)))
        return false;
    return !isnan(num_param(r, "size")) && isfinite(gb_result_scalar(r, "busbw"));
}

/* A result of the suites (arg) in GB/s (a collective's algbw headline). */
static bool is_coll(const struct gb_result *r, const void *arg)
{
    return gb__in_list(r->suite, arg) && strcmp(r->unit, "GB/s") == 0;
}

/* busbw_factor's formula for collective c (nccl-tests doc/PERFORMANCE.md). */
static const char *factor_formula(const char *c)
{
    if (strcmp(c, "allreduce") == 0)
        return "2(n-1)/n";
    if (strcmp(c, "allgather") == 0 || strcmp(c, "reducescatter") == 0 ||
        strcmp(c, "alltoall") == 0)
        return "(n-1)/n";
    return "1";
}

/* Adds (x, y) of r to l, kept sorted by x, one point per x: the higher busbw. -1: no memory. */
static int add_point(struct line *l, double x, double y, const struct gb_result *r)
{
    size_t at = 0;
    while (at < l->n && l->x[at] < x)
        at++;
    if (at < l->n && l->x[at] == x) {
        if (y > l->y[at]) {
            l->y[at] = y;
            l->r[at] = r;
        }
        return 0;
    }
    return gb__line_insert(l, at, x, y, r);
}

/* One line per series, collective, transport and (when ranks vary) ranks; *dropped counts the
 * lines past MAXLINES, *single the results on one rank (busbw 0: left out). *out malloc'd (NULL
 * when memory ran out). */
static size_t coll_lines(const struct rep *R, const struct sel *s, struct line **out,
                         size_t *dropped, size_t *single)
{
    struct line *l = calloc(MAXLINES, sizeof *l);
    size_t n = 0;
    *dropped = *single = 0;
    *out = l;
    if (!l)
        return 0;
    double ranks0 = NAN;
    bool ranks_vary = false;
    for (size_t i = 0; i < s->n; i++) {
        double nr = ranks_of(s->p[i]->r);
        if (!isnan(nr) && nr >= 2) {
            ranks_vary = ranks_vary || (!isnan(ranks0) && nr != ranks0);
            ranks0 = isnan(ranks0) ? nr : ranks0;
        }
    }
    for (size_t i = 0; i < s->n; i++) {
        const struct gb_result *r = s->p[i]->r;
        const double nr = ranks_of(r);
        if (nr < 2) {
            (*single)++;
            continue;
        }
        char key[200], label[240];
        snprintf(key, sizeof key, "%.60s %.60s", coll_of(r), transport_of(r));
        if (ranks_vary)
            gb_appendf(key, sizeof key, " n=%g", nr);
        if (R->nser > 1)
            snprintf(label, sizeof label, "%.150s: %.80s", R->ser[s->p[i]->s].label, key);
        else
            snprintf(label, sizeof label, "%s", key);
        char clean[240];
        gb__clean(label, clean, sizeof clean);
        const size_t k = gb__line_of(l, &n, s->p[i]->s, clean, dropped);
        if (k == MAXLINES)
            continue;
        if (add_point(&l[k], num_param(r, "size"), gb_result_scalar(r, "busbw"), r) != 0) {
            gb__free_lines(l, n);
            *out = NULL;
            return 0;
        }
    }
    return n;
}

/* A line's peak busbw, its half-peak size (Hockney's n1/2: the smallest measured size whose
 * busbw is at least half the peak) and the busbw factor of its results. */
static void line_finding(struct chart *c, const struct line *l)
{
    size_t pk = 0;
    for (size_t k = 1; k < l->n; k++)
        if (l->y[k] > l->y[pk])
            pk = k;
    if (l->n == 0 || !(l->y[pk] > 0))
        return;
    double half = NAN;
    for (size_t k = 0; k < l->n && isnan(half); k++)
        if (l->y[k] >= l->y[pk] / 2)
            half = l->x[k];
    const struct gb_result *r = l->r[pk];
    char at[32], shalf[32];
    gb__fmt_x(l->x[pk], true, at, sizeof at);
    gb__fmt_x(half, true, shalf, sizeof shalf);
    find(c,
         "%s: peak busbw %.3g GB/s at %s; half of it (n1/2) from %s up; busbw = algbw x %.3g "
         "(%s, n = %g).",
         l->label, l->y[pk], at, shalf, gb_result_scalar(r, "busbw_factor"),
         factor_formula(coll_of(r)), ranks_of(r));
}

/* The chart of one transport (tr): collective_busbw_TR from the drawn cases in s. */
static void transport_chart(struct rep *R, const struct sel *s, const char *tr, size_t others)
{
    char id[64], title[160], what[700], trc[48];
    gb__clean(tr, trc, sizeof trc);
    snprintf(id, sizeof id, "collective_busbw_%.40s", tr);
    snprintf(title, sizeof title, "Collectives: bus bandwidth against size, transport %s", trc);
    /* At most 699 characters (struct chart's what). */
    snprintf(what, sizeof what,
             "Median bus bandwidth (busbw, GB/s = 10^9 B/s) over transport %s against size "
             "(nccl-tests' size, bytes; log 2 axis), one line per collective (and ranks where "
             "they vary). Drawn: f32 elements, sum, out of place (nccl-tests' default). busbw = "
             "algbw x the collective's factor (nccl-tests doc/PERFORMANCE.md: all-reduce "
             "2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n; the others 1), "
             "comparable across n and transports. devices: gpubench's own (the allreduce suite "
             "included); nccl: the backend's library; mpi: gpubench-mpi's, host-staged. A point's "
             "error bar (p5-p95 of its samples) only where busbw is algbw (factor 1).",
             trc);
    struct chart *c = gb__chart_new(R, id, title, what);
    if (!c)
        return;
    struct line *l;
    size_t dropped, single, n = coll_lines(R, s, &l, &dropped, &single);
    if (!l)
        return;
    if (n == 0) {
        gb__chart_nodata(R, c,
                         "no f32 sum out-of-place collective results on two ranks or more over "
                         "transport %.60s",
                         tr);
    } else {
        gb__write_lines(R, c, l, n, "size (bytes)", "busbw (GB/s)", true, NULL, 0,
                        "set logscale x 2\n", NULL);
        for (size_t q = 0; q < n; q++)
            line_finding(c, &l[q]);
        find(c, "n1/2 is Hockney's half-performance length (R. W. Hockney, The communication "
                "challenge for MPP, Parallel Computing 20, 1994): the smallest size measured whose "
                "busbw is half the line's peak or more.");
        if (others)
            find(c,
                 "%zu results of other cases (dtype, reduction, in place) are in the results "
                 "files but not drawn.",
                 others);
        if (single)
            find(c, "%zu results on one rank are not drawn (busbw is 0 there).", single);
        if (dropped)
            find(c, "%zu more points, of lines past the %dth, are in the results but not drawn.",
                 dropped, MAXLINES);
    }
    gb__free_lines(l, n);
}

void gb__chart_collective(struct rep *R, const struct gb__chart_kind *k)
{
    struct sel all = gb__select(R, is_coll, k->suites, SIZE_MAX);
    if (all.n == 0) {
        gb__chart_absent(R, "collective_busbw", "Collectives: bus bandwidth against size",
                         "Bus bandwidth (busbw, GB/s) of each collective against its size, per "
                         "transport.",
                         "no collective results (suites collective, mpi_collective, allreduce, "
                         "mpi_allreduce) in these files");
        free(all.p);
        return;
    }
    size_t keep = 0;
    for (size_t i = 0; i < all.n; i++)
        if (drawn_case(all.p[i]->r))
            all.p[keep++] = all.p[i];
    const size_t others = all.n - keep;
    all.n = keep;
    if (keep == 0)
        gb__chart_absent(R, "collective_busbw", "Collectives: bus bandwidth against size",
                         "Bus bandwidth (busbw, GB/s) of each collective against its size, per "
                         "transport.",
                         "no f32 sum out-of-place collective results with a size axis in these "
                         "files (only other cases)");
    /* One chart per transport, in the order they first appear: seven collectives over three
     * transports are more lines than one chart holds (MAXLINES). */
    const struct pt **tp = malloc((keep ? keep : 1) * sizeof *tp);
    char done[4][GB_STR_MAX];
    size_t ndone = 0;
    for (size_t i = 0; tp && i < keep && ndone < 4; i++) {
        const char *tr = transport_of(all.p[i]->r);
        bool seen = false;
        for (size_t q = 0; q < ndone; q++)
            seen = seen || strcmp(done[q], tr) == 0;
        if (seen)
            continue;
        gb__scopy(done[ndone++], GB_STR_MAX, tr);
        struct sel one = {tp, 0};
        for (size_t j = i; j < keep; j++)
            if (strcmp(transport_of(all.p[j]->r), tr) == 0)
                tp[one.n++] = all.p[j];
        transport_chart(R, &one, tr, others);
    }
    free(tp);
    free(all.p);
}
