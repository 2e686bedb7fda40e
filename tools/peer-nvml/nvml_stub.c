/* A link-time stand-in for the driver's libnvidia-ml.so.1 (built with that soname by
 * scripts/peers-prebuild.sh), so that the CUDA peers link on a machine without the driver. It
 * is never loaded: the GPU machine's own library is. Every call fails. */
#include "nvml.h"

#define STUB_FAIL 999 /* NVML_ERROR_UNKNOWN */

nvmlReturn_t nvmlInit_v2(void)
{
    return STUB_FAIL;
}
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *bus, nvmlDevice_t *dev)
{
    (void)bus, (void)dev;
    return STUB_FAIL;
}
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *dev)
{
    (void)uuid, (void)dev;
    return STUB_FAIL;
}
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t dev, nvmlClockType_t type, unsigned int *mhz)
{
    (void)dev, (void)type, (void)mhz;
    return STUB_FAIL;
}
nvmlReturn_t nvmlDeviceSetCpuAffinity(nvmlDevice_t dev)
{
    (void)dev;
    return STUB_FAIL;
}
nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    (void)version, (void)length;
    return STUB_FAIL;
}
const char *nvmlErrorString(nvmlReturn_t r)
{
    (void)r;
    return "link stub";
}
