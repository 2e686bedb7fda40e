/* gpubench — the run summary's speed x accuracy table per precision (contract in precision_out.h).
 *
 * One row per (suite, device, precision, implementation) over the compute, gemm and fp16
 * results of a run: the best rate measured (GFLOP/s or GOP/s; for fp16 the application's
 * elements per second), where it was measured, its speedup over the best FP32 (float storage)
 * row of the same suite, device and implementation, the worst accuracy over every case of that
 * precision (largest relative error, largest RMS error), the fraction of the theoretical peak,
 * and the case counts; a precision with no ok case shows why (the first skip or failure). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "backends/precision.h"
#include "results/results.h"
#include "base/error.h"
#include "outputs/precision_out.h"

#define GB__ROWS_MAX 256

/* The table's columns. */
enum {
    C_SUITE,
    C_PREC,
    C_IMPL,
    C_DEVICE,
    C_BEST,
    C_UNIT,
    C_VS32,
    C_ERR,
    C_RMS,
    C_PEAK,
    C_CASE,
    C_N
};

struct gb__row {
    const char *suite;
    char backend[16];
    int device;
    char prec[GB_STR_MAX];
    char impl[GB_STR_MAX];
    const struct gb_result *best; /* highest rate among ok results */
    double best_rate;
    double max_err, max_rms;
    bool any_err;
    size_t ok, skipped, failed;
    const struct gb_result *why; /* first non-ok result */
};

static double figure(const struct gb_result *r, const char *name, double def)
{
    for (size_t i = 0; i < r->nfigures; i++)
        if (strcmp(r->figures[i].name, name) == 0 && r->figures[i].n >= 1)
            return r->figures[i].v[0];
    return def;
}

static const char *pstr(const struct gb_result *r, const char *name)
{
    const struct gb_value *v = gb_params_get(&r->params, name);
    return v && v->type == GB_V_STR ? v->s : "";
}

/* The precision axis of a suite and its FP32 value; NULL for other suites. */
static const char *prec_axis(const char *suite, const char **base)
{
    if (strcmp(suite, "compute") == 0 || strcmp(suite, "gemm") == 0) {
        *base = "f32";
        return "prec";
    }
    if (strcmp(suite, "fp16") == 0) {
        *base = "float";
        return "storage";
    }
    return NULL;
}

/* The rate a row compares: the headline value, elements per second for fp16, the arithmetic
 * rate (figure gflops) of a memory-bound GEMM whose headline is GB/s. */
static double rate(const struct gb_result *r)
{
    if (strcmp(r->suite, "fp16") == 0)
        return figure(r, "Gelem_per_s", 0);
    if (strcmp(r->unit, "GB/s") == 0 && strcmp(r->suite, "gemm") == 0)
        return figure(r, "gflops", 0);
    return r->value;
}

static const char *rate_unit(const struct gb_result *r)
{
    if (strcmp(r->suite, "fp16") == 0)
        return "Gelem/s";
    if (strcmp(r->unit, "GB/s") == 0 && strcmp(r->suite, "gemm") == 0)
        return strcmp(pstr(r, "prec"), "i8") == 0 ? "GOP/s" : "GFLOP/s";
    if (strcmp(r->suite, "compute") == 0 &&
        (strcmp(pstr(r, "prec"), "i32") == 0 || strcmp(pstr(r, "prec"), "int8dot") == 0))
        return "GOP/s";
    return r->unit;
}

/* Fills row i of t from row (the device cell dev). */
static void fill_row(struct gb_doc_table *t, size_t i, const struct gb__row *rows, size_t nrows,
                     const struct gb__row *row, const char *dev)
{
    gb_doc_text(t, i, C_SUITE, "%s", row->suite);
    gb_doc_text(t, i, C_PREC, "%s", row->prec);
    gb_doc_text(t, i, C_IMPL, "%s", row->impl);
    gb_doc_text(t, i, C_DEVICE, "%s", dev);
    if (!row->best) {
        /* One line per row: a reason may hold a compiler's log, line breaks and all. */
        char why[161];
        snprintf(why, sizeof why, "%.160s", row->why ? row->why->reason : "");
        for (char *c = why; *c; c++)
            if (*c == '\n' || *c == '\r' || *c == '\t')
                *c = ' ';
        gb_doc_text(t, i, C_CASE, "%s: %s", row->failed ? "failed" : "skipped", why);
        return;
    }
    gb_doc_num(t, i, C_BEST, row->best_rate, 3);
    gb_doc_text(t, i, C_UNIT, "%s", rate_unit(row->best));
    /* Speedup: best rate over the best FP32 (float storage) rate of the same group. */
    const char *base;
    prec_axis(row->suite, &base);
    for (size_t j = 0; j < nrows; j++) {
        const struct gb__row *b = &rows[j];
        if (b->best && strcmp(b->suite, row->suite) == 0 && strcmp(b->backend, row->backend) == 0 &&
            b->device == row->device && strcmp(b->impl, row->impl) == 0 &&
            strcmp(b->prec, base) == 0 && b->best_rate > 0)
            gb_doc_num(t, i, C_VS32, row->best_rate / b->best_rate, 2);
    }
    if (row->any_err) {
        gb_doc_num(t, i, C_ERR, row->max_err, -1);
        if (row->max_rms > 0 || row->max_err == 0)
            gb_doc_num(t, i, C_RMS, row->max_rms, -1);
    }
    const double of_peak = figure(row->best, "of_peak", NAN);
    if (isfinite(of_peak))
        gb_doc_num(t, i, C_PEAK, 100 * of_peak, 1);
    struct gb_params rest = row->best->params;
    size_t k = 0;
    for (size_t j = 0; j < rest.n; j++) /* the row names the precision and impl already */
        if (strcmp(rest.name[j], "prec") && strcmp(rest.name[j], "storage") &&
            strcmp(rest.name[j], "impl")) {
            rest.name[k] = rest.name[j];
            rest.v[k++] = rest.v[j];
        }
    rest.n = k;
    char params[256];
    gb_params_format(&rest, params, sizeof params);
    char counts[64] = "";
    if (row->skipped || row->failed)
        snprintf(counts, sizeof counts, " (%zu ok, %zu skipped, %zu failed)", row->ok, row->skipped,
                 row->failed);
    gb_doc_text(t, i, C_CASE, "%s%s%s", params, counts,
                row->best->implausible ? "  IMPLAUSIBLE" : "");
}

int gb_precision_doc(const struct gb_results *rs, struct gb_doc *d)
{
    struct gb__row *rows = calloc(GB__ROWS_MAX, sizeof *rows);
    size_t nrows = 0;
    if (!rows)
        return GB_ENOMEM;
    for (size_t i = 0; i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        const char *base;
        const char *axis = prec_axis(r->suite, &base);
        if (!axis)
            continue;
        const char *prec = pstr(r, axis), *impl = pstr(r, "impl");
        struct gb__row *row = NULL;
        for (size_t j = 0; j < nrows && !row; j++)
            if (strcmp(rows[j].suite, r->suite) == 0 && strcmp(rows[j].backend, r->backend) == 0 &&
                rows[j].device == r->device_index && strcmp(rows[j].prec, prec) == 0 &&
                strcmp(rows[j].impl, impl) == 0)
                row = &rows[j];
        if (!row) {
            if (nrows == GB__ROWS_MAX)
                continue;
            row = &rows[nrows++];
            memset(row, 0, sizeof *row);
            row->suite = r->suite;
            snprintf(row->backend, sizeof row->backend, "%s", r->backend);
            row->device = r->device_index;
            snprintf(row->prec, sizeof row->prec, "%s", prec);
            snprintf(row->impl, sizeof row->impl, "%s", impl);
        }
        if (r->status == GB_STATUS_OK) {
            row->ok++;
            const double v = rate(r);
            if (!row->best || v > row->best_rate) {
                row->best = r;
                row->best_rate = v;
            }
        } else {
            row->skipped += r->status == GB_STATUS_SKIPPED;
            row->failed += r->status == GB_STATUS_FAILED;
            if (!row->why)
                row->why = r;
        }
        /* Accuracy of every measured case, failed-accuracy ones included. */
        if (r->status == GB_STATUS_OK || strstr(r->reason, "failed-accuracy")) {
            const double rms = figure(r, "rms_error", NAN);
            if (!row->any_err || !(r->max_error <= row->max_err))
                row->max_err = r->max_error;
            if (isfinite(rms) && (!row->any_err || rms > row->max_rms))
                row->max_rms = rms;
            row->any_err = true;
        }
    }
    if (nrows == 0) {
        free(rows);
        return 0;
    }

    static const char *const names[C_N] = {"suite",
                                           "prec",
                                           "impl",
                                           "device",
                                           "best",
                                           "unit",
                                           "vs fp32 x",
                                           "max err",
                                           "rms err",
                                           "of peak %",
                                           "best case / why not"};
    struct gb_doc_table *t;
    int rc = gb_doc_table(d, "precision",
                          "speed x accuracy per precision (best rate per precision; errors "
                          "relative, worst over its cases)",
                          names, C_N, &t);
    for (size_t c = C_BEST; !rc && c < C_CASE; c++)
        if (c != C_UNIT)
            gb_doc_column_set(t, c, true, false);
    if (!rc) {
        gb_doc_column_set(t, C_DEVICE, false, true);
        gb_doc_column_set(t, C_CASE, false, true);
        gb_doc_column_prose(t, C_CASE);
    }
    for (size_t i = 0; !rc && i < nrows; i++) {
        const struct gb__row *row = &rows[i];
        const struct gb_result_device *dv = row->device >= 0 && (size_t)row->device < rs->ndevices
                                                ? &rs->devices[row->device]
                                                : NULL;
        size_t at;
        if (!(rc = gb_doc_row(t, &at))) {
            char dev[320];
            snprintf(dev, sizeof dev, "%s:%d %s", row->backend, dv ? dv->index : -1,
                     dv ? dv->info.name : "?");
            fill_row(t, at, rows, nrows, row, dev);
        }
    }
    free(rows);
    return rc;
}
