/* memory — device-memory bandwidth: BabelStream's copy, mul, add, triad and dot. */
#include "suite.h"

static const char *const ops[] = {"copy", "mul", "add", "triad", "dot", NULL};
static const char *const types[] = {"float", "double", NULL};

static const struct gb_axis_def axes[] = {
    {.name = "op", .type = GB_V_STR, .def = "[copy, mul, add, triad, dot]", .choices = ops,
     .help = "kernel"},
    {.name = "type", .type = GB_V_STR, .def = "[float, double]", .choices = types,
     .help = "element type"},
    {.name = "wg", .type = GB_V_INT, .def = "256", .min = 1, .max = 65536,
     .help = "work-group (thread-block) size"},
    {.name = "size", .type = GB_V_SIZE, .def = "128MiB", .min = 1,
     .help = "bytes per array (each kernel touches 2 or 3 arrays)"},
};

const struct gb_suite gb_suite_memory = {
    .name = "memory",
    .summary = "device-memory bandwidth (GB/s): copy, mul, add, triad, dot (BabelStream)",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
};
