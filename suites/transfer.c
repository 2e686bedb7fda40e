/* transfer — host <-> device and device <-> device copy bandwidth and latency. */
#include "suite.h"

static const char *const ops[] = {"h2d", "d2h", "d2d", "bidir", NULL};
static const char *const memories[] = {"pinned", "pageable", "device", NULL};
static const char *const modes[] = {"async", "sync", NULL};

static const struct gb_axis_def axes[] = {
    {.name = "op", .type = GB_V_STR, .def = "[h2d, d2h, d2d, bidir]", .choices = ops,
     .help = "h2d, d2h, d2d, or bidir (H2D and D2H at once on two queues)"},
    {.name = "memory", .type = GB_V_STR, .def = "[pinned, pageable]", .choices = memories,
     .help = "host memory: pinned (page-locked) or pageable; D2D cases use device"},
    {.name = "mode", .type = GB_V_STR, .def = "[async]", .choices = modes,
     .help = "async: a batch of non-blocking copies, device-timed; sync: blocking copies, "
             "host-timed"},
    {.name = "size", .type = GB_V_SIZE, .def = "{from: 4KiB, to: 256MiB, factor: 4}", .min = 1,
     .help = "bytes per copy"},
};

const struct gb_suite gb_suite_transfer = {
    .name = "transfer",
    .summary = "H2D, D2H, D2D and bidirectional copy bandwidth (GB/s) and latency (us)",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
};
