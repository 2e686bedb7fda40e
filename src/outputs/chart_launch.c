/* gpubench — the launch suite's chart: kernel launch latency and throughput, a bar chart drawn
 * by gb__chart_bars (registry in charts.c). */
#include "analyses/report_model.h"
#include "outputs/report.h"

const struct gb__bars gb__launch_bars = {
    .id = "launch_latency",
    .title = "Kernel launch latency",
    .what = "Median microseconds per launch (lower is better): latency is one launch waited for; "
            "throughput is launches issued back to back. This bounds how small a kernel can "
            "usefully be.",
    .ylabel = "microseconds per launch (lower is better)",
    .nodata = "no launch results in these files",
};
