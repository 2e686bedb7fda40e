/* gpubench — the arithmetic suites' charts (compute, gemm, fp16): throughput per precision,
 * speed against accuracy, and the roofline that joins them with device-memory bandwidth
 * (registry in charts.c). */
#include "analyses/report_model.h"
#include "outputs/report.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Axes that describe the problem rather than what is compared: the compute charts take the
 * best over them. */
static const char *const problem_axes[] = {"shape", "size", "elems", "trans",
                                           "dist",  "tol",  "order", NULL};

const struct gb__bars gb__gflops_bars = {
    .id = "compute_gflops",
    .title = "Arithmetic throughput per precision",
    .what = "Best GFLOP/s (10^9 operations per second) per suite, case and precision: peak "
            "arithmetic (compute), matrix multiply (gemm) and half-precision kernels (fp16); the "
            "best over sizes. Integer throughput counts operations.",
    .unit = "FLOP",
    .ylabel = "GFLOP/s",
    .nodata = "no compute, gemm or fp16 throughput results in these files (suites not run, or "
              "skipped on this device)",
    .skip = problem_axes,
};

/* ---- speed x accuracy ---------------------------------------------------------------------- */

static void speed_accuracy_script(struct rep *R, struct chart *c)
{
    FILE *f = gb__gp_open(R, c);
    if (!f)
        return;
    fprintf(f, "set key outside below\nset logscale x 10\nset logscale y 10\n"
               "set xlabel 'GFLOP/s (best)'\nset ylabel 'max relative error'\n"
               "set format y '%%.0e'\nset offsets graph 0.1, graph 0.1, 0, 0\nplot ");
    for (size_t ser = 0; ser < R->nser; ser++) {
        gb__gp_item(f, c, ser == 0, ser, R->ser[ser].label, "1:2 with points lt %zu ps 1.6",
                    ser % 12 + 1);
        if (ser == 0) /* the same precisions on every device: name them once */
            gb__gp_item(f, c, false, ser, NULL, "1:2:3 with labels left offset 1,0.4 font ',9'");
    }
    fprintf(f, "\n");
    gb__gp_close(R, c, f);
}

void gb__chart_speed_accuracy(struct rep *R, const struct gb__chart_kind *k)
{
    struct suite_filter sf = {.suites = k->suites, .unit = "FLOP"};
    struct sel s = gb__select(R, gb__suite_filter_fn, &sf, SIZE_MAX);
    struct cat *cats = NULL;
    struct chart *c = gb__chart_new(
        R, "speed_accuracy", "Speed and accuracy per precision",
        "Each point is a precision's best throughput (x, GFLOP/s, log axis) against the largest "
        "relative error of its result against the FP64 host reference (y, log axis). Down and "
        "right is better: lower precisions move right and up. An exact result is drawn at 1e-17.");
    if (!c)
        goto out;
    if (s.n == 0) {
        gb__chart_nodata(R, c, "no compute, gemm or fp16 throughput results in these files");
        goto out;
    }
    struct axes a;
    gb__scan_axes(&s, &a);
    size_t n = gb__build_cats(&s, &a, true, problem_axes, &cats);
    FILE *d = cats ? gb__open_in(R, "data", c->id, ".csv") : NULL;
    if (!d)
        goto out;
    fprintf(d, "# gflops,max_error,label (one block per series)\n");
    for (size_t ser = 0; ser < R->nser; ser++) {
        if (ser)
            fprintf(d, "\n\n");
        for (size_t q = 0; q < n; q++)
            if (cats[q].best[ser]) {
                double e = cats[q].best[ser]->max_error;
                fprintf(d, "%.6g,%.6g,", cats[q].v[ser], e > 1e-17 ? e : 1e-17);
                gb__csv_field(d, cats[q].label);
                fprintf(d, "\n");
            }
        fprintf(d, "NaN,NaN,\n"); /* keeps an empty block a block */
    }
    gb__close_file(R, d);
    speed_accuracy_script(R, c);
    for (size_t q = 0; q < n; q++)
        for (size_t ser = 0; ser < R->nser; ser++)
            if (cats[q].best[ser])
                find(c, "%s, %s: %.3g %s with max relative error %.2g.", R->ser[ser].label,
                     cats[q].label, cats[q].v[ser], cats[q].best[ser]->unit,
                     cats[q].best[ser]->max_error);
out:
    free(cats);
    free(s.p);
}

/* ---- roofline ------------------------------------------------------------------------------ */

/* The roof of a device with memory bandwidth B (GB/s) and arithmetic peak P (GFLOP/s; NAN:
 * none measured), one data block: min(ai * B, P) at powers of two of the intensity ai. */
static void roof_block(FILE *d, double B, double P)
{
    /* Without an arithmetic peak the slanted roof stops at 4 flop/B: drawn further it would
     * suggest a compute ceiling nobody measured. */
    bool ridge_done = isnan(P);
    for (int e = -6; e <= (isnan(P) ? 2 : 10) && !isnan(B); e++) {
        double ai = ldexp(1.0, e), y = ai * B;
        if (!ridge_done && ai >= P / B) {
            /* The ridge point itself, so the roof bends where it should. */
            fprintf(d, "%.6g,%.6g,roof\n", P / B, P);
            ridge_done = true;
        }
        if (!isnan(P) && y > P)
            y = P;
        fprintf(d, "%.6g,%.6g,roof\n", ai, y);
    }
    fprintf(d, "NaN,NaN,\n\n\n");
}

/* The kernels of series s that declare their bytes and flops, one data block: one point per
 * kernel (case and its string params), its fastest. The tuning suite's landscape would
 * otherwise put every configuration on the chart. Returns the number of points written. */
static size_t roof_points(const struct rep *R, size_t s, FILE *d)
{
    static const struct suite_filter pts = {.suites = NULL, .need_flops = true};
    struct roof_point {
        char label[160];
        double ai, gf;
    } kp[24];
    size_t np = 0;
    for (size_t i = 0; i < R->npts; i++) {
        const struct gb_result *r = R->pts[i].r;
        if (R->pts[i].s != s || !gb__suite_filter_fn(r, &pts))
            continue;
        double ai = r->flops_per_op / r->bytes_per_op;
        double gf = r->flops_per_op / (r->op_time_us.median * 1e-6) / 1e9;
        char lab[160], t[GB_STR_MAX];
        snprintf(lab, sizeof lab, "%s", r->case_name);
        const size_t kase = gb_result_case_param(r);
        for (size_t k = 0; k < r->params.n; k++)
            if (k != kase && !is_num(&r->params.v[k]))
                gb_appendf(lab, sizeof lab, " %s", gb_value_format(&r->params.v[k], t, sizeof t));
        bool added;
        size_t q = gb_find_or_add_str(kp, &np, 24, sizeof kp[0], offsetof(struct roof_point, label),
                                      sizeof kp[0].label, lab, &added);
        if (q == 24)
            continue;
        if (added)
            kp[q].gf = -1;
        if (gf > kp[q].gf) {
            kp[q].gf = gf;
            kp[q].ai = ai;
        }
    }
    for (size_t q = 0; q < np; q++) {
        fprintf(d, "%.6g,%.6g,", kp[q].ai, kp[q].gf);
        gb__csv_field(d, kp[q].label);
        fprintf(d, "\n");
    }
    fprintf(d, "NaN,NaN,\n");
    return np;
}

/* npts[s]: the kernel points of series s. A series without any gets no points or labels item:
 * gnuplot 5.4 crashes (SIGSEGV) plotting `with labels` from a block that holds only NaN. */
static void roofline_script(struct rep *R, struct chart *c, const double *B, const double *P,
                            const size_t *npts)
{
    FILE *f = gb__gp_open(R, c);
    if (!f)
        return;
    fprintf(f, "set key outside below\nset logscale x 2\nset logscale y 10\n"
               "set xlabel 'arithmetic intensity (flop per byte)'\nset ylabel 'GFLOP/s'\n");
    bool no_compute = false, any_compute = false;
    for (size_t s = 0; s < R->nser; s++) {
        no_compute |= !isnan(B[s]) && isnan(P[s]);
        any_compute |= !isnan(P[s]);
    }
    fprintf(f, "set xrange [1.0/64:%s]\n", any_compute ? "1024" : "8");
    if (no_compute)
        fprintf(f, "set label 2 'no arithmetic peak measured (compute or gemm suite): the flat "
                   "roof is unknown' at graph 0.98, graph 0.95 right font ',10' textcolor rgb "
                   "'#777777'\n");
    fprintf(f, "plot ");
    for (size_t s = 0; s < R->nser; s++) {
        char t[300];
        snprintf(t, sizeof t, "%s roof", R->ser[s].label);
        gb__gp_item(f, c, s == 0, 2 * s, t, "1:2 with lines lt %zu", s % 12 + 1);
        if (npts[s] == 0)
            continue;
        gb__gp_item(f, c, false, 2 * s + 1, NULL, "1:2 with points lt %zu ps 1.4", s % 12 + 1);
        /* Kernel names on the first device's points only: they sit at the same intensities
         * on every device, and repeated they would cover each other. */
        if (s == 0)
            gb__gp_item(f, c, false, 2 * s + 1, NULL,
                        "1:2:3 with labels left offset 0.8,0 font ',8'");
    }
    fprintf(f, "\n");
    gb__gp_close(R, c, f);
}

/* The roofline: k->suites give the memory roof (GB/s), k->also the arithmetic roof. */
void gb__chart_roofline(struct rep *R, const struct gb__chart_kind *k)
{
    struct chart *c = gb__chart_new(
        R, "roofline", "Roofline from the measured peaks",
        "Attainable GFLOP/s against arithmetic intensity (flop per byte of device memory, both "
        "axes log): the slanted roof is the best measured device-memory bandwidth (memory "
        "regime: arrays larger than the caches), the flat roof the best measured FP32 throughput "
        "(Williams, Waterman and Patterson, CACM 2009). "
        "Points are kernels that declare both their bytes and their flops, at their measured "
        "speed; a kernel under the slanted roof is memory-bound.");
    if (!c)
        return;
    struct suite_filter bw = {.suites = k->suites, .unit = "GB/s"};
    /* The flat roof is one precision's, FP32 (the roofline's convention and the precision of
     * the kernels drawn under it), never the best across precisions. */
    struct suite_filter fl = {.suites = k->also, .unit = "FLOP", .prec = "f32"};
    double B[MAXSER], P[MAXSER];
    size_t npts[MAXSER] = {0};
    bool any = false;
    for (size_t s = 0; s < R->nser; s++) {
        const struct gb_result *w;
        B[s] = gb__best_in(R, s, &bw, &w);
        P[s] = gb__best_in(R, s, &fl, &w);
        any |= !isnan(B[s]);
    }
    if (!any) {
        /* cache-resident arrays (a CPU's L3 larger than the suite's arrays) are no roof */
        gb__chart_nodata(R, c,
                         "no device-memory bandwidth in the memory regime (memory suite, arrays "
                         "larger than the caches), so no roof");
        return;
    }
    FILE *d = gb__open_in(R, "data", c->id, ".csv");
    if (!d)
        return;
    fprintf(d, "# intensity (flop/B),GFLOP/s,label (per series: a roof block, then a points "
               "block)\n");
    for (size_t s = 0; s < R->nser; s++) {
        if (s)
            fprintf(d, "\n\n");
        roof_block(d, B[s], P[s]);
        npts[s] = roof_points(R, s, d);
    }
    gb__close_file(R, d);
    roofline_script(R, c, B, P, npts);
    for (size_t s = 0; s < R->nser; s++) {
        if (isnan(B[s]))
            continue;
        if (isnan(P[s]))
            find(c,
                 "%s: memory roof %.3g GB/s; no arithmetic peak measured (compute or gemm "
                 "suite), so the flat roof is missing.",
                 R->ser[s].label, B[s]);
        else
            find(c,
                 "%s: memory roof %.3g GB/s, FP32 compute roof %.3g GFLOP/s; ridge point at %.3g "
                 "flop/B (kernels below it are memory-bound).",
                 R->ser[s].label, B[s], P[s], P[s] / B[s]);
    }
}
