/* gpubench — the memory suite's chart: device-memory bandwidth per kernel, a bar chart drawn by
 * gb__chart_bars (registry in charts.c; the roofline, which joins memory and arithmetic, is in
 * chart_compute.c). */
#include "report/model.h"

const struct gb__bars gb__memory_bars = {
    .id = "memory_bandwidth",
    .title = "Device-memory bandwidth per kernel",
    .what = "Median bandwidth (GB/s) of BabelStream's kernels (copy, mul, add, triad, dot) on "
            "device memory, the best over work-group size and array size, per element type. "
            "Triad is the usual figure of merit for memory-bound work.",
    .unit = "GB/s",
    .ylabel = "GB/s",
    .nodata = "no device-memory (memory suite) results in these files",
    .noun = "kernel",
};
