/* gpubench — the OpenCL backend's errors and waits: the names of OpenCL's error codes, the one
 * function every failed CL call is reported through (the OCL_* macros of opencl_private.h), and
 * the waits that read a command's status (a failed command is found there). The backend's other
 * files call these; they call none of the others. */
#include "opencl_private.h"

/* ---- errors ------------------------------------------------------------------------------- */

/* Every OpenCL error code we can name. Numeric values rather than the header's macros, so that
 * the table compiles against old headers and still names codes that newer drivers return. */
#define OCL__ERRORS(X)                                   \
    X(CL_SUCCESS, 0)                                     \
    X(CL_DEVICE_NOT_FOUND, -1)                           \
    X(CL_DEVICE_NOT_AVAILABLE, -2)                       \
    X(CL_COMPILER_NOT_AVAILABLE, -3)                     \
    X(CL_MEM_OBJECT_ALLOCATION_FAILURE, -4)              \
    X(CL_OUT_OF_RESOURCES, -5)                           \
    X(CL_OUT_OF_HOST_MEMORY, -6)                         \
    X(CL_PROFILING_INFO_NOT_AVAILABLE, -7)               \
    X(CL_MEM_COPY_OVERLAP, -8)                           \
    X(CL_IMAGE_FORMAT_MISMATCH, -9)                      \
    X(CL_IMAGE_FORMAT_NOT_SUPPORTED, -10)                \
    X(CL_BUILD_PROGRAM_FAILURE, -11)                     \
    X(CL_MAP_FAILURE, -12)                               \
    X(CL_MISALIGNED_SUB_BUFFER_OFFSET, -13)              \
    X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, -14) \
    X(CL_COMPILE_PROGRAM_FAILURE, -15)                   \
    X(CL_LINKER_NOT_AVAILABLE, -16)                      \
    X(CL_LINK_PROGRAM_FAILURE, -17)                      \
    X(CL_DEVICE_PARTITION_FAILED, -18)                   \
    X(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, -19)             \
    X(CL_INVALID_VALUE, -30)                             \
    X(CL_INVALID_DEVICE_TYPE, -31)                       \
    X(CL_INVALID_PLATFORM, -32)                          \
    X(CL_INVALID_DEVICE, -33)                            \
    X(CL_INVALID_CONTEXT, -34)                           \
    X(CL_INVALID_QUEUE_PROPERTIES, -35)                  \
    X(CL_INVALID_COMMAND_QUEUE, -36)                     \
    X(CL_INVALID_HOST_PTR, -37)                          \
    X(CL_INVALID_MEM_OBJECT, -38)                        \
    X(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, -39)           \
    X(CL_INVALID_IMAGE_SIZE, -40)                        \
    X(CL_INVALID_SAMPLER, -41)                           \
    X(CL_INVALID_BINARY, -42)                            \
    X(CL_INVALID_BUILD_OPTIONS, -43)                     \
    X(CL_INVALID_PROGRAM, -44)                           \
    X(CL_INVALID_PROGRAM_EXECUTABLE, -45)                \
    X(CL_INVALID_KERNEL_NAME, -46)                       \
    X(CL_INVALID_KERNEL_DEFINITION, -47)                 \
    X(CL_INVALID_KERNEL, -48)                            \
    X(CL_INVALID_ARG_INDEX, -49)                         \
    X(CL_INVALID_ARG_VALUE, -50)                         \
    X(CL_INVALID_ARG_SIZE, -51)                          \
    X(CL_INVALID_KERNEL_ARGS, -52)                       \
    X(CL_INVALID_WORK_DIMENSION, -53)                    \
    X(CL_INVALID_WORK_GROUP_SIZE, -54)                   \
    X(CL_INVALID_WORK_ITEM_SIZE, -55)                    \
    X(CL_INVALID_GLOBAL_OFFSET, -56)                     \
    X(CL_INVALID_EVENT_WAIT_LIST, -57)                   \
    X(CL_INVALID_EVENT, -58)                             \
    X(CL_INVALID_OPERATION, -59)                         \
    X(CL_INVALID_GL_OBJECT, -60)                         \
    X(CL_INVALID_BUFFER_SIZE, -61)                       \
    X(CL_INVALID_MIP_LEVEL, -62)                         \
    X(CL_INVALID_GLOBAL_WORK_SIZE, -63)                  \
    X(CL_INVALID_PROPERTY, -64)                          \
    X(CL_INVALID_IMAGE_DESCRIPTOR, -65)                  \
    X(CL_INVALID_COMPILER_OPTIONS, -66)                  \
    X(CL_INVALID_LINKER_OPTIONS, -67)                    \
    X(CL_INVALID_DEVICE_PARTITION_COUNT, -68)            \
    X(CL_INVALID_PIPE_SIZE, -69)                         \
    X(CL_INVALID_DEVICE_QUEUE, -70)                      \
    X(CL_INVALID_SPEC_ID, -71)                           \
    X(CL_MAX_SIZE_RESTRICTION_EXCEEDED, -72)             \
    X(CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR, -1000)     \
    X(CL_PLATFORM_NOT_FOUND_KHR, -1001)                  \
    X(CL_INVALID_D3D10_DEVICE_KHR, -1002)                \
    X(CL_INVALID_D3D10_RESOURCE_KHR, -1003)              \
    X(CL_D3D10_RESOURCE_ALREADY_ACQUIRED_KHR, -1004)     \
    X(CL_D3D10_RESOURCE_NOT_ACQUIRED_KHR, -1005)         \
    X(CL_DEVICE_PARTITION_FAILED_EXT, -1057)             \
    X(CL_INVALID_PARTITION_COUNT_EXT, -1058)             \
    X(CL_INVALID_PARTITION_NAME_EXT, -1059)              \
    X(CL_EGL_RESOURCE_NOT_ACQUIRED_KHR, -1092)           \
    X(CL_INVALID_EGL_OBJECT_KHR, -1093)                  \
    X(CL_CONTEXT_TERMINATED_KHR, -1121)

/* The symbolic name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or "CL_UNKNOWN_ERROR". */
const char *gb__ocl_err_name(cl_int code)
{
    switch (code) {
#define OCL__ERR_CASE(name, val) \
    case (val):                  \
        return #name;
        OCL__ERRORS(OCL__ERR_CASE)
#undef OCL__ERR_CASE
    }
    return "CL_UNKNOWN_ERROR";
}

/* The one place a failed CL call is reported, at file:line and returned as `err`:
 * "call: CL_NAME (code)", or "what (call: CL_NAME code)" when the failure has a plainer meaning
 * to lead with ("no OpenCL platform (clGetPlatformIDs: CL_PLATFORM_NOT_FOUND_KHR -1001)").
 * Callers use the macros below, which supply file and line. */
int gb__ocl_fail(int err, const char *what, const char *call, cl_int code, const char *file,
                 int line)
{
    if (what)
        return gb_error_set(err, file, line, "%s (%s: %s %d)", what, call, gb__ocl_err_name(code),
                            (int)code);
    return gb_error_set(err, file, line, "%s: %s (%d)", call, gb__ocl_err_name(code), (int)code);
}

int gb__ocl_check(cl_int code, const char *call, const char *file, int line)
{
    return code == CL_SUCCESS ? 0 : gb__ocl_fail(GB_EBACKEND, NULL, call, code, file, line);
}

/* ---- waiting ------------------------------------------------------------------------------ */

/* Waits for ev and reads its execution status into *status. A platform may report an event
 * "running" after a wait for it, or for a later command of an in-order queue, returned (seen:
 * a start event not complete after its end event completed); it will complete, so it is waited
 * for once more before its status counts. */
int gb__ocl_wait_status(cl_event ev, cl_int *status)
{
    int rc = OCL_CALL(clWaitForEvents, (1, &ev));
    for (int i = 0; i < 2 && !rc; i++) {
        rc = OCL_CALL(clGetEventInfo,
                      (ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof *status, status, NULL));
        if (rc || *status <= CL_COMPLETE || i == 1)
            break;
        rc = OCL_CALL(clWaitForEvents, (1, &ev));
    }
    return rc;
}

/* Waits until everything enqueued on q has completed: a marker enqueued last (on the in-order
 * queue it completes after everything before it) and waited for (clWaitForEvents flushes the
 * queue), whose completion the platform must report truthfully. Not clFinish: some platforms
 * return from it early, after a flush, with work still running, and one wait is enough inside a
 * host-timed sample. A marker that reports failure means a command before it failed. */
int gb__ocl_finish(cl_command_queue q)
{
    cl_event m = NULL;
    int rc = OCL_CALL(clEnqueueMarkerWithWaitList, (q, 0, NULL, &m));
    cl_int status = CL_COMPLETE;
    if (!rc)
        rc = gb__ocl_wait_status(m, &status);
    if (!rc && status != CL_COMPLETE)
        rc = GB_FAIL(GB_EBACKEND, "queue_sync: the queue's last command %s: %s (%d)",
                     status < 0 ? "failed" : "is not complete after a wait for it returned",
                     status < 0 ? gb__ocl_err_name(status) : "status", (int)status);
    if (m)
        clReleaseEvent(m);
    return rc;
}
