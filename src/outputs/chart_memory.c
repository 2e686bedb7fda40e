/* gpubench — the memory suite's chart: device-memory bandwidth per kernel, a bar chart drawn by
 * gb__chart_bars (registry in charts.c; the roofline, which joins memory and arithmetic, is in
 * chart_compute.c). */
#include "analyses/report_model.h"
#include "outputs/report.h"

const struct gb__bars gb__memory_bars = {
    .id = "memory_bandwidth",
    .title = "Device-memory bandwidth per kernel",
    .what = "Median bandwidth (GB/s) of BabelStream's kernels (copy, mul, add, triad, dot) and "
            "the fp16 suite's storage kernels on device memory: the best over work-group size "
            "and array size among arrays larger than the caches (memory regime; cache-resident "
            "sizes are the cache chart's), per element type. Triad is the usual figure of merit "
            "for memory-bound work.",
    .unit = "GB/s",
    .ylabel = "GB/s",
    .nodata = "no device-memory (memory or fp16 suite, memory regime) results in these files",
    .noun = "kernel",
    .no_cache = true,
};
