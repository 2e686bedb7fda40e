/* gpubench — what the CUDA backend exposes beside its vtable (gb_cuda_ops).
 *
 * The NVRTC step is public so that the tests compile every kernel variant the suites use through
 * the very code path program_build takes, on a machine with the toolkit but no GPU (CI).
 *
 * (Named gb_cuda.h, not cuda.h: the toolkit's driver-API header is called cuda.h and sits on
 * the include path.)
 */
#ifndef GB_CUDA_H
#define GB_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"

extern const struct gb_backend_ops gb_cuda_ops;

/* Compiles the kernel text `src` (prelude included, as gb_kernel_source() makes it) with NVRTC
 * for `arch`: "compute_XY" yields PTX, "sm_XY" yields a CUBIN (ELF). `defines` are
 * "NAME=VALUE" or "NAME" (passed as -DNAME=VALUE). Options besides the defines:
 * --gpu-architecture=<arch> -default-device -std=c++17 -I<toolkit include> (the include dir is
 * $GPUBENCH_CUDA_INCLUDE if set, else the toolkit's include dir at build time).
 * On success *image is the malloc'd output (PTX is NUL-terminated; a CUBIN is *size bytes) and
 * *log is NULL. GB_EBUILD when the compilation fails: *log (if log is non-NULL) receives the
 * compiler's log, malloc'd. GB_EINVAL for a malformed arch, GB_EBACKEND for other NVRTC
 * failures, GB_ENOMEM. Needs no driver and no GPU; thread-safe. */
int gb_cuda_compile(const char *src, const char *arch, const char *const *defines,
                    size_t ndefines, char **image, size_t *size, char **log);

/* gb_cuda_compile() for a "compute_XY" (or "sm_XY") target, returning the PTX text. */
int gb_cuda_compile_ptx(const char *src, const char *arch, const char *const *defines,
                        size_t ndefines, char **ptx, char **log);

/* The NVRTC target for a device of compute capability major.minor: the device's own "sm_XY"
 * (CUBIN, *cubin = true) when this NVRTC supports it, else "compute_XY" of the newest
 * architecture NVRTC supports below the device's (PTX, *cubin = false; the driver JIT-compiles
 * it at load time). GB_EUNSUPPORTED when the device is older than anything NVRTC supports. */
int gb_cuda_pick_arch(int major, int minor, char *arch, size_t cap, bool *cubin);

/* Theoretical device-memory bandwidth in GB/s (1e9 B/s) from the memory clock in kHz and the
 * bus width in bits, as cudaDevAttrMemoryClockRate and cudaDevAttrGlobalMemoryBusWidth report
 * them: 2 * clock * bus / 8. The factor 2 is double data rate: the runtime reports the memory
 * clock such that two transfers happen per cycle (the formula of NVIDIA's bandwidthTest and
 * "How to Implement Performance Metrics in CUDA C/C++", NVIDIA developer blog, 2012). An H200
 * (3201 MHz, 6144 bits) gives 4917 GB/s against 4800 on its datasheet. 0 if either is 0. */
double gb_cuda_peak_mem_gbs(uint64_t mem_clock_khz, uint64_t bus_bits);

/* IEEE binary16 bits of `f`, rounded to nearest even (overflow to infinity, NaN kept): the
 * alpha/beta of an F16-compute GEMM. */
uint16_t gb_cuda_f16_bits(float f);

#endif
