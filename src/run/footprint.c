#include "run/footprint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/error.h"
#include "base/units.h"

/* A number of bytes from the first line of `path` ("max" or unreadable: 0). */
static uint64_t read_bytes(const char *path)
{
    FILE *f = fopen(path, "r");
    unsigned long long v = 0;
    if (f) {
        if (fscanf(f, "%llu", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v;
}

/* The value of "KEY: N kB" in a /proc file, in bytes; 0 when absent. */
static uint64_t proc_kib(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char line[256];
    unsigned long long kib = 0;
    const size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ':' && sscanf(line + n + 1, "%llu", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return (uint64_t)kib * 1024;
}

/* Room under the memory limit of the process's cgroup (v2: the "0::PATH" line of
 * /proc/self/cgroup); 0 when there is none or it cannot be read. */
static uint64_t cgroup_room(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[512], path[640];
    uint64_t room = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "0::", 3))
            continue;
        line[strcspn(line, "\n")] = 0;
        snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", line + 3);
        const uint64_t max = read_bytes(path);
        snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.current", line + 3);
        const uint64_t cur = read_bytes(path);
        if (max)
            room = max > cur ? max - cur : 1;
        break;
    }
    if (f)
        fclose(f);
    return room;
}

static void take(struct gb_host_memory *out, uint64_t v, const char *what)
{
    if (v && (!out->avail || v < out->avail)) {
        out->avail = v;
        out->what = what;
    }
}

void gb_host_memory(struct gb_host_memory *out)
{
    *out = (struct gb_host_memory){0, "unknown"};
    uint64_t avail = proc_kib("/proc/meminfo", "MemAvailable");
    if (avail) {
        take(out, avail, "MemAvailable");
    } else {
        long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0)
            take(out, (uint64_t)pages * (uint64_t)page, "free pages");
    }
    take(out, cgroup_room(), "the cgroup's memory.max");
    uint64_t v;
    if (gb_host_memory_env(&v) == 0 && v)
        take(out, v, "$GPUBENCH_HOST_MEMORY");
    gb_error_clear();
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        const uint64_t used = proc_kib("/proc/self/status", "VmSize");
        take(out, rl.rlim_cur > used ? rl.rlim_cur - used : 1,
             "RLIMIT_AS, the address-space limit");
    }
}

int gb_host_memory_env(uint64_t *bytes)
{
    *bytes = 0;
    const char *cap = getenv("GPUBENCH_HOST_MEMORY");
    if (!cap || !*cap)
        return 0;
    if (gb_parse_size(cap, bytes) != 0 || *bytes == 0) {
        *bytes = 0;
        return GB_USER_FAIL(GB_EINVAL,
                            "GPUBENCH_HOST_MEMORY='%.64s' is no size of memory (a size such as "
                            "8GiB or 512MiB, above 0; unset it to use what the host has)",
                            cap);
    }
    return 0;
}

/* Bytes for people ("3.82 GiB"); a count beyond 64 bits in the exponent form. */
static const char *human(double bytes, char *buf, size_t len)
{
    if (bytes < 0x1p63)
        return gb_format_bytes_human((uint64_t)bytes, buf, len);
    snprintf(buf, len, "%.3g B", bytes);
    return buf;
}

int gb_footprint_check(const struct gb_footprint *fp, const struct gb_host_memory *host,
                       const struct gb_device_info *info, char *why, size_t len)
{
    const bool unified = info->caps & GB_CAP_UNIFIED;
    const double on_host = fp->host + (unified ? fp->device : 0);
    const double usable = GB_FOOTPRINT_HOST_SHARE * (double)host->avail;
    const bool host_over = host->avail && on_host > usable;
    const bool dev_over = info->global_mem && fp->device > (double)info->global_mem;
    const bool one_over = info->max_alloc && fp->largest > (double)info->max_alloc;
    if (!host_over && !dev_over && !one_over)
        return 0;
    char h[32], d[32], a[32], u[32], g[32], l[32], m[32];
    human(fp->host, h, sizeof h);
    human(fp->device, d, sizeof d);
    size_t n = (size_t)snprintf(why, len, "needs %s of host memory and %s of device memory%s", h, d,
                                unified ? " (the device's is host memory too)" : "");
    const char *sep = ":";
    if (host_over && n < len)
        n += (size_t)snprintf(why + n, len - n,
                              "%s the host has %s available (%s), of which a "
                              "case may use %s (%.0f%%), and this one needs %s",
                              sep, human((double)host->avail, a, sizeof a), host->what,
                              human(usable, u, sizeof u), GB_FOOTPRINT_HOST_SHARE * 100,
                              human(on_host, l, sizeof l)),
            sep = ";";
    if (dev_over && n < len)
        n += (size_t)snprintf(why + n, len - n, "%s the device has %s", sep,
                              human((double)info->global_mem, g, sizeof g)),
            sep = ";";
    if (one_over && n < len)
        snprintf(why + n, len - n,
                 "%s its largest buffer, %s, is over the device's largest "
                 "allocation %s",
                 sep, human(fp->largest, l, sizeof l), human((double)info->max_alloc, m, sizeof m));
    return GB_ESKIP;
}
