/* An LD_PRELOAD shim over the OpenCL API that plays the defects young or buggy OpenCL drivers have
 * shown, so that the tests can provoke each on a real platform and check what gpubench does
 * (tests/test_driver_defects.c). Every call is forwarded to the real one (dlsym RTLD_NEXT: the
 * ICD loader); $GB_CL_DEFECT, a comma-separated list, picks what is altered:
 *   stamps-zero    every profiling timestamp reads 0
 *   stamps-step    every profiling timestamp is a counter that steps 1000 ns per query
 *   resolution-0   CL_DEVICE_PROFILING_TIMER_RESOLUTION reads 0
 *   start-late     each event's first CL_EVENT_COMMAND_EXECUTION_STATUS query reads
 *                  CL_RUNNING, even after a wait for it (or for a later command) returned
 *   finish-early   clFinish flushes and returns at once, with the work still running
 *   kernel-wg=N    CL_KERNEL_WORK_GROUP_SIZE reads at most N
 *   clock=N        CL_DEVICE_MAX_CLOCK_FREQUENCY reads N (MHz): a placeholder clock
 *   units=N        CL_DEVICE_MAX_COMPUTE_UNITS reads N: a placeholder count
 *   name-utf8      CL_DEVICE_NAME reads "Devices " and 40 two-byte characters (88 bytes)
 * A test fixture, not part of gpubench. */
#define CL_TARGET_OPENCL_VERSION 300
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool defect(const char *name, long *arg)
{
    const char *list = getenv("GB_CL_DEFECT");
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        if (strncmp(p, name, n) == 0 && (p[n] == '\0' || p[n] == ',' || p[n] == '=')) {
            if (arg)
                *arg = p[n] == '=' ? strtol(p + n + 1, NULL, 10) : 0;
            return true;
        }
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    return false;
}

#define REAL(fn) ((__typeof__(&fn))dlsym(RTLD_NEXT, #fn))

CL_API_ENTRY cl_int CL_API_CALL clGetEventProfilingInfo(cl_event ev, cl_profiling_info param,
                                                        size_t size, void *value, size_t *ret)
{
    cl_int err = REAL(clGetEventProfilingInfo)(ev, param, size, value, ret);
    if (err != CL_SUCCESS || !value || size < sizeof(cl_ulong))
        return err;
    static _Atomic cl_ulong step = 1000000;
    if (defect("stamps-zero", NULL))
        *(cl_ulong *)value = 0;
    else if (defect("stamps-step", NULL))
        *(cl_ulong *)value = (step += 1000);
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceInfo(cl_device_id id, cl_device_info param, size_t size,
                                                void *value, size_t *ret)
{
    if (param == CL_DEVICE_NAME && defect("name-utf8", NULL)) {
        static char name[8 + 80 + 1] = "Devices ";
        for (size_t i = 0; i < 40; i++)
            memcpy(name + 8 + 2 * i, "\xc3\xa9", 2); /* e acute */
        if (ret)
            *ret = sizeof name;
        if (value && size < sizeof name)
            return CL_INVALID_VALUE;
        if (value)
            memcpy(value, name, sizeof name);
        return CL_SUCCESS;
    }
    cl_int err = REAL(clGetDeviceInfo)(id, param, size, value, ret);
    long n = 0;
    if (err == CL_SUCCESS && value && param == CL_DEVICE_PROFILING_TIMER_RESOLUTION &&
        size >= sizeof(size_t) && defect("resolution-0", NULL))
        *(size_t *)value = 0;
    if (err == CL_SUCCESS && value && size >= sizeof(cl_uint) &&
        ((param == CL_DEVICE_MAX_CLOCK_FREQUENCY && defect("clock", &n)) ||
         (param == CL_DEVICE_MAX_COMPUTE_UNITS && defect("units", &n))) &&
        n >= 0)
        *(cl_uint *)value = (cl_uint)n;
    return err;
}

/* The events whose status was read once already (start-late). */
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static cl_event seen[4096];
static size_t nseen;

static bool first_query(cl_event ev)
{
    pthread_mutex_lock(&seen_lock);
    bool first = true;
    for (size_t i = 0; i < nseen && i < 4096 && first; i++)
        first = seen[i] != ev;
    if (first)
        seen[nseen++ % 4096] = ev;
    pthread_mutex_unlock(&seen_lock);
    return first;
}

CL_API_ENTRY cl_int CL_API_CALL clGetEventInfo(cl_event ev, cl_event_info param, size_t size,
                                               void *value, size_t *ret)
{
    cl_int err = REAL(clGetEventInfo)(ev, param, size, value, ret);
    if (err == CL_SUCCESS && value && param == CL_EVENT_COMMAND_EXECUTION_STATUS &&
        *(cl_int *)value == CL_COMPLETE && defect("start-late", NULL) && first_query(ev))
        *(cl_int *)value = CL_RUNNING;
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseEvent(cl_event ev)
{
    pthread_mutex_lock(&seen_lock); /* a released handle may be reused for a new event */
    for (size_t i = 0; i < nseen && i < 4096; i++)
        if (seen[i] == ev)
            seen[i] = NULL;
    pthread_mutex_unlock(&seen_lock);
    return REAL(clReleaseEvent)(ev);
}

CL_API_ENTRY cl_int CL_API_CALL clFinish(cl_command_queue q)
{
    if (defect("finish-early", NULL))
        return REAL(clFlush)(q);
    return REAL(clFinish)(q);
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id id,
                                                         cl_kernel_work_group_info param,
                                                         size_t size, void *value, size_t *ret)
{
    cl_int err = REAL(clGetKernelWorkGroupInfo)(k, id, param, size, value, ret);
    long cap = 0;
    if (err == CL_SUCCESS && value && param == CL_KERNEL_WORK_GROUP_SIZE &&
        size >= sizeof(size_t) && defect("kernel-wg", &cap) && cap > 0 &&
        *(size_t *)value > (size_t)cap)
        *(size_t *)value = (size_t)cap;
    return err;
}
