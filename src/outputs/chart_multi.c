/* gpubench — the multi-device suites' charts: scaling and parallel efficiency against the
 * number of devices, the matrix of peer copies, peerbw's traffic patterns, and the parallel
 * suite's steps broken into compute, communication and overlap (registry in charts.c). */
#include "analyses/report_model.h"
#include "outputs/report.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- scaling ------------------------------------------------------------------------------- */

/* A result's own scalar figure `name` (the runner knows strong from weak scaling); NAN when it
 * carries none. */
static double figure_of(const struct gb_result *r, const char *name)
{
    for (size_t i = 0; i < r->nfigures; i++)
        if (strcmp(r->figures[i].name, name) == 0 && r->figures[i].n >= 1 &&
            !r->figures[i].per_device)
            return r->figures[i].v[0];
    return NAN;
}

/* A result of the suites (arg) with a numeric `ndev` param. */
static bool has_ndev(const struct gb_result *r, const void *arg)
{
    const struct gb_value *v = gb_params_get(&r->params, "ndev");
    return gb__in_list(r->suite, arg) && v && is_num(v);
}

/* Each point's speedup (or, with efficiency, efficiency in percent): the result's own figure,
 * else over the same line's ndev = 1 point. */
static void fill_speedups(struct line *l, size_t n, bool efficiency)
{
    for (size_t i = 0; i < n; i++) {
        double one = NAN;
        for (size_t k = 0; k < l[i].n; k++)
            if (l[i].x[k] == 1)
                one = l[i].r[k]->value;
        for (size_t k = 0; k < l[i].n; k++) {
            const struct gb_result *r = l[i].r[k];
            double sp = figure_of(r, "speedup");
            if (isnan(sp) && !isnan(one) && one > 0 && r->value > 0)
                sp = higher_better(r) ? r->value / one : one / r->value;
            double y = sp;
            if (efficiency) {
                double e = figure_of(r, "efficiency");
                y = 100.0 * (isnan(e) ? sp / l[i].x[k] : e);
            }
            l[i].y[k] = y;
        }
    }
}

void gb__chart_scaling(struct rep *R, const struct gb__chart_kind *k)
{
    struct sel s = gb__select(R, has_ndev, k->suites, SIZE_MAX);
    struct chart *c1 = gb__chart_new(
        R, "scaling", "Multi-device scaling",
        "Speedup over one device against the number of devices taking part (from the runner's "
        "speedup figure: T1/Tn for strong scaling, n T1/Tn for weak scaling). The dashed line is "
        "ideal linear scaling.");
    struct chart *c2 = gb__chart_new(
        R, "efficiency", "Parallel efficiency",
        "Speedup divided by the number of devices, in percent: 100% is perfect scaling; the "
        "shortfall is what synchronisation, transfers and the slowest device cost.");
    struct axes *a = NULL;
    if (!c1 || !c2)
        goto out;
    /* c1 may have moved when c2 was added. */
    c1 = &R->ch[R->nch - 2];
    if (s.n == 0) {
        gb__chart_nodata(R, c1, "no multi-device scaling results (suite multi, axis ndev)");
        gb__chart_nodata(R, c2, "no multi-device scaling results (suite multi, axis ndev)");
        goto out;
    }
    a = malloc(sizeof *a);
    if (!a)
        goto out;
    gb__scan_axes(&s, a);
    for (int pass = 0; pass < 2; pass++) {
        struct chart *c = pass ? c2 : c1;
        struct line *l;
        size_t dropped, n = gb__build_lines(R, &s, a, "ndev", NULL, &l, &dropped);
        if (!l)
            continue;
        fill_speedups(l, n, pass == 1);
        gb__write_lines(R, c, l, n, "devices", pass ? "efficiency (%)" : "speedup over one device",
                        false, NULL, 0, "set xtics 1\nset xrange [0.5:*]\n",
                        pass ? "100 title 'ideal' dt 2 lw 1 lc rgb '#999999'"
                             : "x title 'ideal' dt 2 lw 1 lc rgb '#999999'");
        for (size_t q = 0; q < n && pass == 1; q++)
            if (l[q].n)
                find(c, "%s: %.0f%% efficiency on %g devices.", l[q].label, l[q].y[l[q].n - 1],
                     l[q].x[l[q].n - 1]);
        gb__free_lines(l, n);
    }
out:
    free(a);
    free(s.p);
}

/* ---- the peer matrix ----------------------------------------------------------------------- */

/* The two device-position axes of a multi-device result (the peer matrix's source and
 * destination), as its results file describes them. */
static bool peer_axes(const struct gb_result *r, const char **src, const char **dst)
{
    *src = *dst = NULL;
    for (size_t k = 0; k < r->params.n && k < GB_MAX_AXES; k++) {
        bool pos = r->device_pos_axes & (UINT32_C(1) << k);
        if (!pos || !is_num(&r->params.v[k]))
            continue;
        if (!*src)
            *src = r->params.name[k];
        else if (!*dst)
            *dst = r->params.name[k];
    }
    return *src && *dst;
}

/* A result of the suites (arg) with source and destination axes. */
static bool is_peer(const struct gb_result *r, const void *arg)
{
    const char *s, *d;
    return gb__in_list(r->suite, arg) && peer_axes(r, &s, &d);
}

/* The cell of r in an nd x nd matrix (row: source position, column: destination); SIZE_MAX
 * when r is not of r0's case and unit or its positions are outside the matrix. */
static size_t peer_cell(const struct gb_result *r, const struct gb_result *r0, const char *src,
                        const char *dst, size_t nd)
{
    if (strcmp(r->case_name, r0->case_name) != 0 || strcmp(r->unit, r0->unit) != 0)
        return SIZE_MAX;
    const struct gb_value *vx = gb_params_get(&r->params, dst),
                          *vy = gb_params_get(&r->params, src);
    double x = vx ? gb__num(vx) : NAN, y = vy ? gb__num(vy) : NAN;
    if (!(x >= 0 && y >= 0 && x < nd && y < nd))
        return SIZE_MAX;
    return (size_t)y * nd + (size_t)x;
}

/* The matrix of file f's results of r0's case and unit (s: file f's peer results): p2p_N. */
static void peer_matrix(struct rep *R, size_t f, const struct sel *s, const struct gb_result *r0,
                        size_t number)
{
    const char *src, *dst;
    peer_axes(r0, &src, &dst);
    /* The matrix: positions 0..N-1 of the case's device set. A result's device set lists the
     * source's device first and the destination's last, which names the positions. */
    size_t nd = 0;
    int pos_dev[GB_MAX_SET];
    for (size_t q = 0; q < GB_MAX_SET; q++)
        pos_dev[q] = -1;
    for (size_t k = 0; k < s->n; k++) {
        const struct gb_result *r = s->p[k]->r;
        size_t cell = peer_cell(r, r0, src, dst, GB_MAX_SET);
        if (cell == SIZE_MAX)
            continue;
        size_t x = cell % GB_MAX_SET, y = cell / GB_MAX_SET, m = (x > y ? x : y) + 1;
        nd = m > nd ? m : nd;
        pos_dev[y] = r->nset ? r->set[0] : r->device_index;
        pos_dev[x] = r->nset ? r->set[r->nset - 1] : r->device_index;
    }
    double v[GB_MAX_SET * GB_MAX_SET];
    for (size_t q = 0; q < nd * nd; q++)
        v[q] = NAN;
    for (size_t k = 0; k < s->n; k++) {
        const struct gb_result *r = s->p[k]->r;
        size_t cell = peer_cell(r, r0, src, dst, nd);
        if (cell != SIZE_MAX && better(r, r->value, v[cell]))
            v[cell] = r->value;
    }
    char labels[GB_MAX_SET][GB_STR_MAX];
    const char *names[GB_MAX_SET];
    for (size_t q = 0; q < nd; q++) {
        const char *dn = pos_dev[q] >= 0 && (size_t)pos_dev[q] < R->files[f].ndevices
                             ? R->files[f].devices[pos_dev[q]].info.name
                             : "?";
        snprintf(labels[q], GB_STR_MAX, "%zu: %.20s", q, dn);
        names[q] = labels[q];
    }
    char id[64], title[240];
    snprintf(id, sizeof id, "p2p_%zu", number);
    snprintf(title, sizeof title, "Peer copies: %s (%s), %s", r0->case_name, r0->unit,
             gb__base_name(R->paths[f]));
    struct chart *c =
        gb__chart_new(R, id, title,
                      "Each cell is a copy from the row's device to the column's device: the best "
                      "median over sizes. How the bytes travel (peer access or staged through host "
                      "memory) is recorded per result in the results file.");
    if (!c)
        return;
    gb__write_heatmap(R, c, "destination", "source", names, nd, names, nd, v, r0->unit);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t q = 0; q < nd * nd; q++)
        if (!isnan(v[q])) {
            lo = v[q] < lo ? v[q] : lo;
            hi = v[q] > hi ? v[q] : hi;
        }
    if (isfinite(lo))
        find(c, "Between %.3g and %.3g %s across the %zu x %zu pairs.", lo, hi, r0->unit, nd, nd);
}

void gb__chart_p2p(struct rep *R, const struct gb__chart_kind *k)
{
    size_t drawn = 0;
    for (size_t f = 0; f < R->nfiles; f++) {
        struct sel s = gb__select(R, is_peer, k->suites, SIZE_MAX);
        size_t keep = 0;
        for (size_t i = 0; i < s.n; i++)
            if (R->ser[s.p[i]->s].file == f)
                s.p[keep++] = s.p[i];
        s.n = keep;
        for (size_t i = 0; i < s.n; i++)
            if (gb__first_of_case(&s, i, true) && drawn < 6)
                peer_matrix(R, f, &s, s.p[i]->r, ++drawn);
        free(s.p);
    }
    if (drawn == 0)
        gb__chart_absent(R, "p2p", "Peer-to-peer copy matrix",
                         "Bandwidth of copies between every pair of devices.",
                         "no peer-copy results (suite multi with source and destination "
                         "axes) in these files");
}

/* ---- peerbw's patterns: bars that are only data (gb__chart_bars) ----------------------------- */

const struct gb__bars gb__peerbw_bars = {
    .id = "peer_patterns",
    .title = "Peer traffic patterns (nvbandwidth)",
    .what = "Aggregate GB/s of the peerbw suite: the bytes of every link over the wall time of one "
            "operation (bidir counts both directions), the best over device pairs, roots and "
            "sizes, per pattern and method (ce: copy engines; sm: a copy kernel that reads the "
            "peer's memory), one bar per device the pattern is rooted at (a pair's source). "
            "Staged copies (OpenCL, or CUDA without peer access) are host-link figures: each "
            "result's path and link figures say which.",
    .unit = "GB/s",
    .ylabel = "aggregate GB/s",
    .nodata = "no peerbw results in these files",
};

const struct gb__bars gb__peerbw_latency_bars = {
    .id = "peer_latency",
    .title = "Peer copy latency (4 bytes)",
    .what = "Median microseconds per 4-byte copy from one device to another, enqueued and waited "
            "for (lower is better), the best over device pairs, per method. A copy round with the "
            "host's wait included, not nvbandwidth's pointer chase across the link.",
    .unit = "us",
    .ylabel = "microseconds per copy (lower is better)",
    .nodata = "no peerbw latency results in these files",
};

/* ---- parallel: each pattern's step broken into compute, communication and overlap ----------- */

#define PAR_BARS 32

static bool parallel_fn(const struct gb_result *r, const void *arg)
{
    return gb__in_list(r->suite, arg) && isfinite(r->value) && r->value > 0;
}

/* The parts of a result's step, ms, into v[0..4): exposed compute, exposed communication,
 * overlapped, overhead (tensor, data: from compute, comm and step_parts; pipeline: the stages'
 * mean busy time and the bubble, the rest of the step). False where the result has none. */
static bool parallel_parts(const struct gb_result *r, double v[4])
{
    for (size_t p = 0; p < 4; p++)
        v[p] = NAN;
    if (strcmp(r->case_name, "pipeline") == 0) {
        const double step = figure_of(r, "step_parts");
        double busy = 0;
        size_t n = 0;
        for (size_t i = 0; i < r->nfigures; i++)
            if (strcmp(r->figures[i].name, "busy") == 0 && r->figures[i].per_device)
                for (n = 0; n < r->figures[i].n; n++)
                    busy += r->figures[i].v[n];
        if (!(step > 0) || n == 0)
            return false;
        busy /= (double)n;
        v[0] = 1e3 * (busy < step ? busy : step);
        v[3] = 1e3 * (step > busy ? step - busy : 0);
        return true;
    }
    const double comp = figure_of(r, "compute"), comm = figure_of(r, "comm"),
                 step = figure_of(r, "step_parts");
    if (!(comp >= 0) || !(comm >= 0) || !(step > 0))
        return false;
    /* Hidden: what of the two ran at once; above the serialised sum: overhead. */
    double hidden = comp + comm - step;
    const double shorter = comp < comm ? comp : comm;
    hidden = hidden < 0 ? 0 : hidden > shorter ? shorter : hidden;
    v[0] = 1e3 * (comp - hidden);
    v[1] = 1e3 * (comm - hidden);
    v[2] = 1e3 * hidden;
    v[3] = 1e3 * (step > comp + comm ? step - comp - comm : 0);
    return true;
}

void gb__chart_parallel(struct rep *R, const struct gb__chart_kind *k)
{
    static const char *const parts[] = {"compute", "communication", "overlapped",
                                        "overhead / bubble"};
    static const char what[] =
        "Each training step of the parallel suite broken into its parts (ms per step, stacked, "
        "one bar per case and device count), all from the suite's interleaved rounds: five "
        "rounds of one run each of the compute alone, the communication alone and the whole "
        "step, the medians. The bar is that step (figure step_parts), and the parts sum to it. "
        "tensor and data: the step's GEMMs alone (compute) and its collectives alone "
        "(communication), each less what of it ran at the same time as the other (overlapped "
        "= compute + comm - step_parts, at most the shorter), and overhead, what step_parts took "
        "beyond compute + comm; the bar stands above step_parts only where noise made step_parts "
        "shorter than a part alone. pipeline: the stages' mean busy time (compute) and the rest of "
        "the step "
        "(bubble: stages idle or moving activations). The results table's `step` is another "
        "measurement: the harness's time per operation, many steps back to back and no "
        "synchronisation between them, so it is usually shorter than step_parts; the findings "
        "give both.";
    struct sel s = gb__select(R, parallel_fn, k->suites, SIZE_MAX);
    char(*labels)[GB_STR_MAX * 2] = calloc(PAR_BARS, sizeof *labels);
    char(*lines)[800] = calloc(PAR_BARS, sizeof *lines);
    const char *lp[PAR_BARS];
    double v[PAR_BARS * 4];
    size_t n = 0;
    if (!s.n || !labels || !lines) {
        gb__chart_absent(R, "parallel_step",
                         "Parallel training steps: compute, communication, overlap", what,
                         "no parallel results in these files");
        goto out;
    }
    for (size_t i = 0; i < s.n && n < PAR_BARS; i++) {
        const struct gb_result *r = s.p[i]->r;
        if (!parallel_parts(r, &v[n * 4]))
            continue;
        /* The case, its devices and the axis of its pattern, short so that the slanted labels
         * fit: "pipeline n=4 m=8", "data n=4 256KiB" (sizes as the tables write them). */
        char named[GB_STR_MAX] = "", pl[GB_STR_MAX], sz[64];
        const struct gb_value *nd = gb_params_get(&r->params, "ndev"),
                              *mb = gb_params_get(&r->params, "microbatches"),
                              *bk = gb_params_get(&r->params, "bucket"),
                              *va = gb_params_get(&r->params, "variant");
        gb_appendf(named, sizeof named, "%s n=%g", r->case_name, nd ? gb__num(nd) : NAN);
        if (strcmp(r->case_name, "tensor") == 0 && va && va->type == GB_V_STR)
            gb_appendf(named, sizeof named, " %s", va->s);
        else if (strcmp(r->case_name, "pipeline") == 0 && mb)
            gb_appendf(named, sizeof named, " m=%g", gb__num(mb));
        else if (strcmp(r->case_name, "data") == 0 && bk)
            gb_appendf(named, sizeof named, " %s", gb_value_format(bk, sz, sizeof sz));
        gb__clean(named, pl, sizeof pl);
        labels[n][0] = '\0';
        if (R->nser > 1)
            gb_appendf(labels[n], sizeof labels[n], "%s: ", R->ser[s.p[i]->s].label);
        gb_appendf(labels[n], sizeof labels[n], "%s", pl);
        lp[n] = labels[n];
        const double ov = figure_of(r, "overlap"), oh = figure_of(r, "overhead"),
                     bub = figure_of(r, "bubble"), ideal = figure_of(r, "bubble_ideal");
        snprintf(lines[n], sizeof lines[n],
                 "%s: bar (step_parts) %.3g ms, the harness's step %.3g ms", lp[n],
                 1e3 * figure_of(r, "step_parts"), 1e3 * figure_of(r, "step"));
        if (isfinite(ov))
            gb_appendf(lines[n], sizeof lines[n], ", overlap %.2f of the shorter part", ov);
        else
            for (size_t f = 0; f < r->nfigures; f++)
                if (strcmp(r->figures[f].name, "overlap") == 0 && r->figures[f].text[0])
                    gb_appendf(lines[n], sizeof lines[n], ", overlap not meaningful (%s)",
                               r->figures[f].text);
        if (isfinite(oh) && oh > 0)
            gb_appendf(lines[n], sizeof lines[n], ", overhead %.3g ms", 1e3 * oh);
        if (isfinite(bub) && isfinite(ideal))
            gb_appendf(lines[n], sizeof lines[n], ", bubble %.2f (GPipe's ideal %.2f)", bub, ideal);
        n++;
    }
    struct chart *c = gb__chart_new(
        R, "parallel_step", "Parallel training steps: compute, communication, overlap", what);
    if (!c)
        goto out;
    if (n == 0) {
        gb__chart_nodata(R, c, "no parallel result carries its step's parts");
        goto out;
    }
    gb__write_stacked(R, c, lp, n, parts, 4, v, "ms per step");
    for (size_t i = 0; i < n; i++)
        find(c, "%s.", lines[i]);
    if (s.n > n)
        find(c, "%zu more results are in the files but not drawn (at most %d bars).", s.n - n,
             PAR_BARS);
out:
    free(lines);
    free(labels);
    free(s.p);
}
