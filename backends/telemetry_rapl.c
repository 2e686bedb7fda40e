/* gpubench — telemetry: RAPL package energy under powercap, a part of the sysfs source, and the
 * unfolding of its counters' wrap-around (contract in telemetry.h, telemetry_private.h). */
#include <dirent.h>
#include <string.h>

#include "backends/telemetry.h"
#include "backends/telemetry_private.h"

uint64_t gb_tel_counter_delta(uint64_t prev, uint64_t cur, uint64_t range)
{
    if (cur >= prev)
        return cur - prev;
    if (range == 0 || prev > range)
        return 0;
    return (range - prev) + cur;
}

size_t gb__rapl_open(const char *root, struct gb__rapl_zone *zones, size_t max)
{
    char dir[512], path[600];
    size_t n = 0;
    gb__tel_pathf(dir, sizeof dir, "%s/class/powercap", root);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) && n < max;) {
        /* Package zones only ("intel-rapl:0"): subzones ("intel-rapl:0:0") are inside them. */
        const char *c = strchr(e->d_name, ':');
        if (strncmp(e->d_name, "intel-rapl:", 11) != 0 || strchr(c + 1, ':'))
            continue;
        struct gb__rapl_zone *z = &zones[n];
        gb__tel_pathf(z->path, sizeof z->path, "%s/%s/energy_uj", dir, e->d_name);
        gb__tel_pathf(path, sizeof path, "%s/%s/max_energy_range_uj", dir, e->d_name);
        if (!gb__tel_read_u64(z->path, &z->last))
            continue;
        if (!gb__tel_read_u64(path, &z->range))
            z->range = 0;
        n++;
    }
    if (d)
        closedir(d);
    return n;
}

void gb__rapl_read(struct gb__rapl_zone *zones, size_t n, struct gb_tel_reading *r)
{
    uint64_t v;
    double acc = 0.0;
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        struct gb__rapl_zone *z = &zones[i];
        if (gb__tel_read_u64(z->path, &v)) {
            z->acc += gb_tel_counter_delta(z->last, v, z->range);
            z->last = v;
            ok++;
        }
        acc += (double)z->acc;
    }
    if (ok)
        r->energy_j = acc * 1e-6;
}
