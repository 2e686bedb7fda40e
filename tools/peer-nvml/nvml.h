/* The NVML calls the CUDA peers make, BabelStream's CUDA model (nvmlInit, GetHandleByPciBusId,
 * GetClockInfo, ErrorString) and nvbandwidth (also GetHandleByUUID, SetCpuAffinity,
 * SystemGetDriverVersion), declared as NVML's documentation gives them, for building the peers
 * against a toolkit without nvml.h (scripts/peers-prebuild.sh, scripts/gpu-peers.py). The
 * driver's libnvidia-ml.so.1 provides them at run time; NVML's header maps the plain names of
 * the versioned calls to their _v2 symbols, as this one does. Not part of gpubench, which
 * declares its own NVML calls where it loads the library. */
#ifndef GB_PEER_NVML_H
#define GB_PEER_NVML_H
#ifdef __cplusplus
extern "C" {
#endif
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 } nvmlClockType_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *bus, nvmlDevice_t *dev);
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *dev);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t dev, nvmlClockType_t type, unsigned int *mhz);
nvmlReturn_t nvmlDeviceSetCpuAffinity(nvmlDevice_t dev);
nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
const char *nvmlErrorString(nvmlReturn_t r);
#ifdef __cplusplus
}
#endif
#define nvmlInit nvmlInit_v2
#define nvmlDeviceGetHandleByPciBusId nvmlDeviceGetHandleByPciBusId_v2
#endif
