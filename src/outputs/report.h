/* gpubench — report: results files in, a report for people who choose hardware out.
 *
 * `gpubench report RESULTS... -o DIR` writes
 *   DIR/index.html     one self-contained page: tables, and every chart inline as SVG
 *   DIR/report.md      the same as Markdown, with the charts as PNG images
 *   DIR/data/ID.csv    the numbers behind each chart (a '#' header line; gnuplot's blank-line
 *                      separated blocks where a chart has several lines)
 *   DIR/plots/ID.gp    the gnuplot script of each chart (run from DIR: gnuplot plots/ID.gp)
 *   DIR/charts/ID.svg, DIR/charts/ID.png   what gnuplot drew
 *
 * Charts: transfer bandwidth against size (log axis) per direction; device-memory bandwidth per
 * kernel; launch latency; GFLOP/s per precision (suites compute, gemm, fp16); speed x accuracy;
 * tuning heat maps; batching curves with the knee; multi-device scaling and efficiency; the P2P
 * bandwidth matrix; the collectives' busbw against size per transport; a roofline from the measured peaks; and with a price sheet, performance per
 * unit of money and per watt. They are built from the results schema alone (suite, case,
 * params, metric, value), so a suite's chart needs no code in the suite: it is a builder in
 * src/analyses/chart_FAMILY.c and a row in the registry of src/outputs/charts.c, which names the
 * suites each chart reads. A chart whose data is absent is not drawn: the page lists it once,
 * after the headline table, and data/ID.csv says why; missing data never fails the report.
 *
 * The page opens on the answer: the headline figures per device, each with its 95% confidence
 * half-width and noisy mark, side by side with the ratio to the first device, per price and
 * per watt with a price sheet, and check's verdict with expectations; the contents follow.
 *
 * Every device of every file is one series; several files (machines, devices, drivers) appear
 * side by side in each chart and table.
 */
#ifndef GB_REPORT_H
#define GB_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "analyses/prices.h"
#include "results/results.h"

struct gb_report_opts {
    const char *dir;                /* output folder, created when missing */
    const char *title;              /* NULL: "gpubench report" */
    const struct gb_prices *prices; /* NULL: no price sheet */
    const char *gnuplot;            /* the gnuplot program; NULL: $GPUBENCH_GNUPLOT or "gnuplot" */
    /* Expectations (analyses/expect.h; NULL: none): each headline beside its model's reference
     * median and check's verdict; expect_path names them on the page. */
    const struct gb_expect *expect;
    const char *expect_path;
};

struct gb_report_summary {
    size_t charts; /* charts written */
    size_t charts_with_data;
    size_t charts_failed; /* gnuplot could not draw them (the report says why) */
    size_t series;        /* devices side by side */
};

/* Writes the report of files[0..n) (read with gb_results_read; paths name them in the report).
 * Returns 0 (also when some chart could not be drawn: see sum->charts_failed), or GB_EIO when a
 * file cannot be written, GB_ENOMEM, GB_EINVAL (n == 0). */
int gb_report_write(const struct gb_results *files, const char *const *paths, size_t n,
                    const struct gb_report_opts *o, struct gb_report_summary *sum);

#endif
