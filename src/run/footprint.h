/* gpubench — a case's memory footprint, estimated from its parameters before it allocates, and
 * checked against the host's and the device's memory (docs/design.md, "Running cases").
 *
 * A suite that allocates large buffers says what one case holds at once (gb_suite.footprint):
 * the host bytes (references, inputs drawn in FP64, staging, pinned and pageable host buffers)
 * and the device bytes (every device buffer), at the setup's and verify's peak. The runner
 * checks them before setup() (gb_footprint_check): a case that cannot fit is a recorded skip that
 * names both sizes and the limits, and the run goes on, instead of an out-of-memory kill of the
 * worker (which the kernel's OOM killer may deal to another process of the machine first).
 */
#ifndef GB_FOOTPRINT_H
#define GB_FOOTPRINT_H

#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"

/* Bytes, in double: a GEMM's dimensions may reach 2^31 each, so that its byte counts overflow 64
 * bits. 0 where the case holds none (or the suite cannot say). */
struct gb_footprint {
    double host;    /* host memory the case holds at its peak */
    double device;  /* device memory: every buffer at once, on each device of the case's set */
    double largest; /* the largest single device buffer (against the device's max_alloc) */
};

/* The host memory a case may plan to use now. */
struct gb_host_memory {
    uint64_t avail;   /* bytes: the smallest limit known; 0 when none is */
    const char *what; /* which limit it is (a string literal): "MemAvailable", ... */
};

/* Share of the host's available memory a case may plan to use: the rest is left to the process
 * itself (the runtime, its kernels, the results) and to the rest of the machine, since the
 * estimate leaves out what a library allocates on its own (a BLAS's workspace, a driver's
 * staging). */
#define GB_FOOTPRINT_HOST_SHARE 0.9

/* Fills *out with the host memory available to this process now: the smallest of MemAvailable
 * (/proc/meminfo; free pages by sysconf where the kernel does not say), the room left under a
 * cgroup v2 memory limit (memory.max - memory.current of the process's cgroup) and the room left
 * under the address-space limit (RLIMIT_AS - VmSize; `ulimit -v`, Slurm's VSizeFactor), and
 * $GPUBENCH_HOST_MEMORY, a size ("8GiB") that a person gives to keep a run within a share of a
 * machine that others use too (an unreadable value is ignored here: gb_host_memory_env refuses
 * it). avail 0 when none is known. */
void gb_host_memory(struct gb_host_memory *out);

/* $GPUBENCH_HOST_MEMORY read: *bytes its size, 0 when it is unset or empty. GB_EINVAL with a
 * message naming the variable when it is set to no size ("8GiB", "512MiB", bytes) or to 0. */
int gb_host_memory_env(uint64_t *bytes);

/* Whether a case with footprint *fp fits: its host bytes (plus its device bytes when the device
 * shares host memory, GB_CAP_UNIFIED: a CPU OpenCL device) within GB_FOOTPRINT_HOST_SHARE of
 * host->avail (when known), its device bytes within info->global_mem and its largest buffer
 * within info->max_alloc (each when the device says). Returns 0, or GB_ESKIP with the reason in
 * why[0..len): both sizes, and the limit each was held to ("needs 36.0 GiB of host memory and
 * 4.00 GiB of device memory: the host has 21.5 GiB available (MemAvailable), 19.4 GiB usable;
 * ..."). Pure: reads nothing but its arguments. */
int gb_footprint_check(const struct gb_footprint *fp, const struct gb_host_memory *host,
                       const struct gb_device_info *info, char *why, size_t len);

#endif
