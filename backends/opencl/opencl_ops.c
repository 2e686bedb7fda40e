/* gpubench — the OpenCL backend's table (gb_opencl_ops): the entries of backend.h's contract,
 * defined in the backend's other files (opencl_private.h says which), and the facts the core
 * reads. The one function here hands device_open the table its handles point back to: the
 * other files never name gb_opencl_ops, so none of them calls back into this one (a circle of
 * calls between files, which scripts/check-layout.sh refuses). */
#include "opencl_private.h"

/* On-disk program caches of OpenCL implementations, by the variable that moves them: PoCL's
 * kernel cache (POCL_CACHE_DIR, "PoCL environment variables" in its documentation) and Intel's
 * compute runtime's cl_cache (NEO_CACHE_DIR). Intel's CPU runtime keeps none. */
static const char *const ocl_cache_env[] = {"POCL_CACHE_DIR", "NEO_CACHE_DIR", NULL};

/* Device handles point back to the table. */
extern const struct gb_backend_ops gb_opencl_ops;

static int ocl_device_open(int index, struct gb_device **out)
{
    return gb__ocl_device_open(&gb_opencl_ops, index, out);
}

/* ---- the table ---------------------------------------------------------------------------- */

const struct gb_backend_ops gb_opencl_ops = {
    .name = "opencl",
    .facts = {.kernel_vectors = true,
#if HAVE_CLBLAST
              .blas = "clblast",
#else
              .conv_absent = "built without CLBlast",
#endif
              .sparse_absent = "no sparse library on OpenCL (CLBlast has none)",
              .fp8_absent = "no FP8 GEMM",
              .compiler_cache_env = ocl_cache_env},
    .init = gb__ocl_init,
    .shutdown = gb__ocl_shutdown,
    .device_count = gb__ocl_device_count,
    .device_info = gb__ocl_device_info,
    .device_open = ocl_device_open,
    .device_close = gb__ocl_device_close,
    .device_probe = gb__ocl_device_probe,
    .buf_alloc = gb__ocl_buf_alloc,
    .buf_free = gb__ocl_buf_free,
    .alloc_method = gb__ocl_alloc_method,
    .queue_create = gb__ocl_queue_create,
    .queue_create_priority = gb__ocl_queue_create_priority,
    .queue_destroy = gb__ocl_queue_destroy,
    .queue_flush = gb__ocl_queue_flush,
    .queue_sync = gb__ocl_queue_sync,
    .copy = gb__ocl_copy,
    /* No GB_CAP_PEER: each device has its own context and OpenCL cannot copy across them. */
    .peer_copy = NULL,
    .peer_can_access = NULL,
    .program_build = gb__ocl_program_build,
    .program_free = gb__ocl_program_free,
    .kernel_get = gb__ocl_kernel_get,
    .kernel_free = gb__ocl_kernel_free,
    .kernel_max_wg = gb__ocl_kernel_max_wg,
    .launch = gb__ocl_launch,
    .launch_timed = gb__ocl_launch_timed,
    .event_create = gb__ocl_event_create,
    .event_free = gb__ocl_event_free,
    .event_record = gb__ocl_event_record,
    .event_sync = gb__ocl_event_sync,
    .event_elapsed_ns = gb__ocl_event_elapsed_ns,
    .graph_begin = gb__ocl_graph_begin,
    .graph_end = gb__ocl_graph_end,
    .graph_launch = gb__ocl_graph_launch,
    .graph_free = gb__ocl_graph_free,
#if HAVE_CLBLAST
    .gemm = gb__ocl_gemm,
    .gemv = gb__ocl_gemv,
    .conv_plan = gb__ocl_conv_plan,
    .conv_run = gb__ocl_conv_run,
    .conv_plan_free = gb__ocl_conv_plan_free,
#else
    /* Built without CLBlast: no GB_CAP_BLAS_* bits, so the core never calls gemm. */
    .gemm = NULL,
#endif
};
