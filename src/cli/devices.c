/* gpubench devices [--json]: the backends and their devices; an unavailable backend says why. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/error.h"
#include "base/units.h"
#include "common.h"

static const char usage[] =
    "usage: gpubench devices [--json]\n"
    "  lists the backends and their devices; an unavailable backend says why\n"
    "      --json              the same as a JSON array on stdout\n";
static const struct gb__cmd cmd = {"devices", usage, 0, 0, NULL, "no operand"};

struct devices_args {
    bool json;
};

static const struct gb__opt devices_options[] = {
    GB__FLAG(struct devices_args, json, "json", 0),
    GB__END,
};

/* The devices of one available backend: printed unless json, and as a JSON array. */
static json_t *backend_devices(const struct gb_backend_status *st, bool json)
{
    json_t *jd = json_array();
    for (int i = 0; i < st->ndevices; i++) {
        struct gb_device_info d;
        if (st->ops->device_info(i, &d)) {
            if (!json)
                printf("  [%d] (cannot describe: %s)\n", i, gb_error_msg());
            continue;
        }
        char caps[256], mem[32], alloc[32], local[32];
        gb_caps_text(d.caps, caps, sizeof caps);
        gb_format_bytes_human(d.global_mem, mem, sizeof mem);
        gb_format_bytes_human(d.max_alloc, alloc, sizeof alloc);
        gb_format_bytes_human(d.local_mem, local, sizeof local);
        if (!json) {
            printf("  [%d] %s\n", i, d.name);
            printf("      vendor %s, driver %s, %s%s%s\n", d.vendor, d.driver, d.version,
                   d.platform[0] ? ", platform " : "", d.platform);
            printf("      %u compute units at %u MHz, memory %s (largest buffer %s), local "
                   "memory %s, max work-group %u (%u x %u x %u)\n",
                   d.compute_units, d.clock_mhz, mem, alloc, local, d.max_wg_size, d.max_wg_dims[0],
                   d.max_wg_dims[1], d.max_wg_dims[2]);
            printf("      capabilities: %s\n", caps[0] ? caps : "none");
        }
        json_t *caps_j = json_array();
        for (unsigned b = 0; b < 64; b++) {
            const char *name = d.caps >> b & 1 ? gb_cap_name(UINT64_C(1) << b) : NULL;
            if (name)
                json_array_append_new(caps_j, json_string(name));
        }
        json_array_append_new(
            jd,
            json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:i, s:i, "
                      "s:i, s:i, s:i, s:f, s:o}",
                      "index", i, "name", d.name, "vendor", d.vendor, "driver", d.driver, "version",
                      d.version, "platform", d.platform, "arch", d.arch, "global_mem_bytes",
                      (json_int_t)d.global_mem, "max_alloc_bytes", (json_int_t)d.max_alloc,
                      "local_mem_bytes", (json_int_t)d.local_mem, "l2_bytes",
                      (json_int_t)d.l2_bytes, "compute_units", (int)d.compute_units, "clock_mhz",
                      (int)d.clock_mhz, "max_work_group_size", (int)d.max_wg_size, "mem_clock_mhz",
                      (int)d.mem_clock_mhz, "mem_bus_bits", (int)d.mem_bus_bits, "peak_mem_gbs",
                      d.peak_mem_gbs, "capabilities", caps_j));
    }
    return jd;
}

int gb_cmd_devices(int argc, char **argv)
{
    struct devices_args a = {false};
    enum gb_exit rc;
    if (gb__parse_options(&cmd, argc, argv, GB__GROUPS({devices_options, &a}), &rc) < 0)
        return rc;
    bool json = a.json;
    struct gb_backend_status st[8];
    gb_backends_probe(st);
    json_t *root = json_array();
    for (size_t b = 0; b < gb_backend_count; b++) {
        json_t *jb = json_pack("{s:s, s:b}", "backend", st[b].ops->name, "available", !st[b].err);
        if (st[b].err) {
            json_object_set_new(jb, "reason", json_string(st[b].reason));
            if (!json)
                printf("%s: unavailable (%s)\n", st[b].ops->name, st[b].reason);
        } else {
            if (!json)
                printf("%s: %d device%s\n", st[b].ops->name, st[b].ndevices,
                       st[b].ndevices == 1 ? "" : "s");
            json_object_set_new(jb, "devices", backend_devices(&st[b], json));
        }
        json_array_append_new(root, jb);
    }
    if (json) {
        char *s = json_dumps(root, JSON_INDENT(2));
        if (s)
            puts(s);
        free(s);
    }
    json_decref(root);
    for (size_t b = 0; b < gb_backend_count; b++)
        if (!st[b].err)
            st[b].ops->shutdown();
    return GB_EXIT_OK;
}
