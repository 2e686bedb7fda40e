/* gpubench — the CUDA backend's errors, lost devices and current device: what every other file
 * of the backend (cuda_*.c, cuda_libs.h has their shared declarations) calls first.
 *
 * Devices and threads. The runtime keeps a "current device" per host thread, and the
 * multi-device suite drives different devices from different threads, so every member that
 * touches a device begins with gb__cuda_use(its device), a cudaSetDevice unless this thread's
 * current device is that one already, so the right context is current whatever thread calls.
 *
 * Errors. Every failing runtime call goes through CU() / CU_ERR(), which records file:line, the
 * call's name, its numeric code, cudaGetErrorName and cudaGetErrorString (GB_EBACKEND unless
 * the call site says otherwise); NVRTC and cuBLAS failures likewise through NV() and BL().
 *
 * Sticky errors (a kernel's illegal address and its kin, gb_cuda_error_is_sticky) poison the
 * device's context for the rest of the process. The first one seen is kept as the device's
 * reason (gb_cuda_note_error) and every later use of the device fails with it at once, in
 * gb__cuda_use, rather than with whatever the poisoned context answers; a queue created on a
 * lost device is a dead one whose every use fails so, so the runner records each later case as
 * failed with the first error. The device is not reset (cudaDeviceReset would free memory that
 * open handles still point to); a fresh process gets a fresh context.
 */
#include "gb-config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "backends/backend.h"
#include "cuda_libs.h"
#include "gb_cuda.h"

/* ---- sticky errors and lost devices ------------------------------------------------------ */

bool gb_cuda_error_is_sticky(int e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorContained:
    case cudaErrorMpsClientTerminated:
    case cudaErrorExternalDevice:
        return true;
    default:
        return false;
    }
}

/* A device's first sticky error. `lost` is set (release) after `why` is written, once. */
static struct {
    atomic_bool lost;
    char why[1024];
} cu__lost[GB__CUDA_MAX_DEV];
static pthread_mutex_t cu__lost_lock = PTHREAD_MUTEX_INITIALIZER;

bool gb_cuda_note_error(int index, int e, const char *text)
{
    if (index < 0 || index >= GB__CUDA_MAX_DEV)
        return false;
    if (gb_cuda_error_is_sticky(e)) {
        pthread_mutex_lock(&cu__lost_lock);
        if (!atomic_load_explicit(&cu__lost[index].lost, memory_order_relaxed)) {
            snprintf(cu__lost[index].why, sizeof cu__lost[index].why, "%s", text);
            atomic_store_explicit(&cu__lost[index].lost, true, memory_order_release);
        }
        pthread_mutex_unlock(&cu__lost_lock);
    }
    return atomic_load_explicit(&cu__lost[index].lost, memory_order_acquire);
}

const char *gb_cuda_lost_reason(int index)
{
    if (index < 0 || index >= GB__CUDA_MAX_DEV ||
        !atomic_load_explicit(&cu__lost[index].lost, memory_order_acquire))
        return NULL;
    return cu__lost[index].why;
}

/* GB_EBACKEND naming the first sticky error of the device, for every use after it. */
static int cu__lost_fail(int index)
{
    return GB_USER_FAIL(GB_EBACKEND,
                        "CUDA device %d was lost to an earlier sticky error, which leaves its "
                        "context unusable until the process ends: %s",
                        index, cu__lost[index].why);
}

bool gb__cuda_is_lost(int index)
{
    return index >= 0 && index < GB__CUDA_MAX_DEV &&
           atomic_load_explicit(&cu__lost[index].lost, memory_order_acquire);
}

/* ---- error wrappers ------------------------------------------------------------------------ */

/* This thread's current device (gb__cuda_use), -1 when unknown: where a failing call ran. */
static _Thread_local int cu__current = -1;

static int cu__fail_on(int index, cudaError_t e, int err, const char *file, int line,
                       const char *call)
{
    /* Reset the runtime's last-error slot so a later cudaGetLastError does not report this
     * failure again (sticky errors, such as a kernel fault, stay regardless). */
    (void)cudaGetLastError();
    char text[640];
    const char *base = strrchr(file, '/');
    snprintf(text, sizeof text, "%s:%d: %s: %s (%d): %s", base ? base + 1 : file, line, call,
             cudaGetErrorName(e), (int)e, cudaGetErrorString(e));
    gb_cuda_note_error(index, (int)e, text);
    return gb_error_set(err, NULL, 0, "%s", text);
}

int gb__cuda_fail(cudaError_t e, int err, const char *file, int line, const char *call)
{
    return cu__fail_on(cu__current, e, err, file, line, call);
}

/* Whether two handles name the same CUDA device (a device may be opened more than once). */
bool gb__cuda_same(const struct gb_device *a, const struct gb_device *b)
{
    return a == b || (a && b && a->index == b->index);
}

/* Makes device `index` the calling thread's current device, or fails with the device's first
 * sticky error when it is lost. The last index set is cached per thread: launches and event
 * records are what the launch suite times, and a cudaSetDevice on each would add its cost to
 * CUDA's side of the comparison. Only this file sets the device (cuBLAS restores the caller's),
 * so the cache stays true. */
int gb__cuda_use_index(int index)
{
    if (gb__cuda_is_lost(index))
        return cu__lost_fail(index);
    if (cu__current == index)
        return 0;
    cudaError_t e = cudaSetDevice(index);
    if (e != cudaSuccess) {
        cu__current = -1;
        return cu__fail_on(index, e, GB_EBACKEND, __FILE__, __LINE__, "cudaSetDevice");
    }
    cu__current = index;
    return 0;
}
int gb__cuda_use(struct gb_device *dev)
{
    return gb__cuda_use_index(dev->index);
}
