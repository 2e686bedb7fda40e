/* gpubench — the report's AI workloads chart (registry in charts.c): convolution per layer,
 * pass and precision as bars, and under it, as findings, what the AI suites derived: the model
 * presets' forward-pass proxies (model_s), int8 against bf16 (speedup_vs_bf16 beside the error
 * int8 costs, per row and per tensor), and pruning's break-even density per shape. */
#include "analyses/report_model.h"
#include "outputs/report.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const conv_skip[] = {"tol", NULL};

static const struct gb__bars conv_bars = {
    .id = "ai_conv",
    .title = "AI workloads: convolution per layer, pass and precision",
    .what = "GFLOP/s (2 N K C/G R S P Q per pass: cuDNN's and MLPerf's count) per convolution "
            "case, pass, precision, layout and implementation (library: cuDNN, or CLBlast's "
            "convgemm; own: gpubench's direct kernel), every one verified against FP64. The "
            "findings add the model presets' forward-pass proxies, int8 against bf16, and "
            "pruning's break-even density.",
    .ylabel = "GFLOP/s (i8: GOP/s)",
    .nodata = "no conv results in these files (the suite not run, or skipped here)",
    .skip = conv_skip,
};

/* A figure's text or a param's value, cleaned for a line of findings. */
static const char *clean(const char *s, char *buf, size_t len)
{
    gb__clean(s ? s : "", buf, len);
    return buf;
}

void gb__chart_ai(struct rep *R, const struct gb__chart_kind *k)
{
    const struct gb__bars *bb = &conv_bars;
    struct chart *c = gb__chart_new(R, bb->id, bb->title, bb->what);
    if (!c)
        return;
    struct suite_filter sf = {.suites = k->suites};
    struct sel s = gb__select(R, gb__suite_filter_fn, &sf, SIZE_MAX);
    if (s.n == 0) {
        gb__chart_nodata(R, c, "%s", bb->nodata);
    } else {
        struct axes *a = calloc(1, sizeof *a);
        struct cat *cats = NULL;
        if (a) {
            gb__scan_axes(&s, a);
            const size_t n = gb__build_cats(&s, a, true, bb->skip, &cats);
            if (cats)
                gb__write_bars(R, c, cats, n, bb->ylabel, false);
        }
        free(cats);
        free(a);
    }
    free(s.p);
    size_t shown = 0;
    for (size_t p = 0; p < R->npts && shown < 40; p++) {
        const struct gb_result *r = R->pts[p].r;
        const char *dev = R->ser[R->pts[p].s].label;
        char a[96], b[96], t[96];
        const struct gb_figure *model = gb_result_figure_get(r, "model");
        const double ms = gb_result_scalar(r, "model_s");
        /* Complete presets only: a profile that names a few layers gets no proxy. */
        if (model && model->n == 0 && ms > 0 && ms < 1e9) {
            char i[32];
            find(c, "%s, %s %s %s: forward-pass proxy %.4g %s (%s; layer time x count summed)", dev,
                 clean(r->suite, a, sizeof a),
                 clean(gb_params_str(&r->params, "prec"), b, sizeof b),
                 clean(gb_params_str(&r->params, "impl"), i, sizeof i), ms >= 1 ? ms : ms * 1e3,
                 ms >= 1 ? "s" : "ms", clean(model->text, t, sizeof t));
            shown++;
        }
        const double vs_bf16 = gb_result_scalar(r, "speedup_vs_bf16");
        if (vs_bf16 > 0 && vs_bf16 < 1e9) {
            find(c,
                 "%s, gemm i8 %s (%s): %.3gx bf16's rate; error %.3g rms with A quantised per "
                 "row, %.3g per tensor",
                 dev, clean(gb_params_str(&r->params, "shape"), a, sizeof a),
                 clean(gb_params_str(&r->params, "impl"), b, sizeof b), vs_bf16,
                 gb_result_scalar(r, "rms_error"), gb_result_scalar(r, "quant_tensor_rms_error"));
            shown++;
        }
        double be = gb_result_scalar(r, "break_even_density");
        if (!(be > 0 && be <= 1))
            be = NAN; /* a density is in (0, 1]: anything else is no figure */
        const struct gb_figure *how = gb_result_figure_get(r, "break_even");
        if (isfinite(be) || (how && how->n == 0)) {
            if (isfinite(be))
                find(c, "%s, sparse %s %s %s: sparse matches dense at density %.3g", dev,
                     clean(r->case_name, a, sizeof a),
                     clean(gb_params_str(&r->params, "impl"), b, sizeof b),
                     clean(gb_params_str(&r->params, "shape"), t, sizeof t), be);
            else {
                char sh[96];
                find(c, "%s, sparse %s %s %s: break-even %s", dev, clean(r->case_name, a, sizeof a),
                     clean(gb_params_str(&r->params, "impl"), b, sizeof b),
                     clean(gb_params_str(&r->params, "shape"), sh, sizeof sh),
                     clean(how->text, t, sizeof t));
            }
            shown++;
        }
    }
}
