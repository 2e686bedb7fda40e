/* gpubench devices [--json]: the backends and their devices; an unavailable backend says why.
 * Where a backend has two devices or more, its topology: for each ordered pair the path a copy
 * from one to the other takes (peer: directly, peer_can_access said yes; staged: through pinned
 * host memory, as the multi-device suites copy) and the link between them (gb_topology_pair:
 * NVLink or PCIe as NVML reads it, or unknown and why). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "backends/telemetry.h"
#include "base/units.h"
#include "common.h"

static const char usage[] =
    "usage: gpubench devices [--json]\n"
    "  lists the backends and their devices; an unavailable backend says why; where a backend\n"
    "  has two devices or more, their topology: each pair's copy path and link (NVML)\n"
    "      --json              the same as a JSON array on stdout\n" GB__FORMAT_HELP;
static const struct gb__cmd cmd = {"devices", usage, 0, 0, NULL, "no operand"};

struct devices_args {
    bool json;
    const char *format;
};

static const struct gb__opt devices_options[] = {
    GB__FLAG(struct devices_args, json, "json", 0),
    GB__TEXT(struct devices_args, format, "format", 'f'),
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
            /* The host's figures in place of the device's: none reported (the clock alone),
             * or placeholders that contradict the host (the source says what the device said). */
            const bool said = strstr(d.clock_source, "the device said") != NULL;
            printf("      %u compute units at %u MHz%s%s%s, memory %s (largest buffer %s), local "
                   "memory %s, max work-group %u (%u x %u x %u)\n",
                   d.compute_units, d.clock_mhz,
                   said                ? " ("
                   : d.clock_source[0] ? " (clock from the "
                                       : "",
                   d.clock_source,
                   said                ? ")"
                   : d.clock_source[0] ? ": the driver reports none)"
                                       : "",
                   mem, alloc, local, d.max_wg_size, d.max_wg_dims[0], d.max_wg_dims[1],
                   d.max_wg_dims[2]);
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
        json_t *last = json_array_get(jd, json_array_size(jd) - 1);
        static const char *const types[] = {[GB_DEVICE_OTHER] = "other",
                                            [GB_DEVICE_GPU] = "gpu",
                                            [GB_DEVICE_CPU] = "cpu",
                                            [GB_DEVICE_ACCELERATOR] = "accelerator"};
        json_object_set_new(last, "type", json_string(types[d.type]));
        json_object_set_new(last, "native_vector_width_double", json_integer(d.native_vec_double));
        if (d.clock_source[0])
            json_object_set_new(last, "clock_source", json_string(d.clock_source));
    }
    return jd;
}

/* A link's description (gb_topology_describe) in a few characters for the matrix: "NV4x18",
 * "NV4x18sw" (through an NVSwitch), "Gen5x16", "?" (unknown: the legend says why). */
static void link_short(const char *link, char *out, size_t len)
{
    int v = 0, k = 0, g = 0, w = 0;
    const char *sw = strstr(link, "NVSwitch") ? "sw" : "";
    if (sscanf(link, "NVLink%d x%d", &v, &k) == 2)
        snprintf(out, len, "NV%dx%d%s", v, k, sw);
    else if (sscanf(link, "NVLink x%d", &k) == 1)
        snprintf(out, len, "NVx%d%s", k, sw);
    else if (sscanf(link, "PCIe Gen%d x%d", &g, &w) == 2)
        snprintf(out, len, "Gen%dx%d", g, w);
    else
        snprintf(out, len, "?");
}

/* The topology of an available backend with two devices or more: the matrix printed unless
 * json (rows copy to columns: "path/link"), and as a JSON array of ordered pairs {from, to,
 * path, link, kind}. Devices are opened only where the backend can copy between them directly
 * (GB_CAP_PEER), to ask peer_can_access. */
static json_t *backend_topology(const struct gb_backend_status *st, bool json)
{
    enum { MAXD = 16 };
    const int n = st->ndevices < MAXD ? st->ndevices : MAXD;
    struct gb_device_info info[MAXD];
    struct gb_device *dev[MAXD] = {NULL};
    bool ok[MAXD];
    for (int i = 0; i < n; i++) {
        ok[i] = st->ops->device_info(i, &info[i]) == 0;
        if (ok[i] && (info[i].caps & GB_CAP_PEER) && st->ops->peer_can_access &&
            st->ops->device_open(i, &dev[i]))
            dev[i] = NULL;
    }
    static const char *const kinds[] = {"unknown", "pcie", "nvlink"};
    char cell[MAXD][MAXD][32], link[MAXD][MAXD][192], why[192] = "";
    json_t *jt = json_array();
    int width = 4;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            snprintf(cell[i][j], sizeof cell[i][j], "-");
            if (i == j || !ok[i] || !ok[j])
                continue;
            enum gb_link_kind kind;
            if (j < i) { /* the link is the pair's, read once */
                snprintf(link[i][j], sizeof link[i][j], "%s", link[j][i]);
                kind = strncmp(link[i][j], "NVLink", 6) == 0 ? GB_LINK_NVLINK
                       : strncmp(link[i][j], "PCIe", 4) == 0 ? GB_LINK_PCIE
                                                             : GB_LINK_UNKNOWN;
            } else {
                kind = gb_topology_pair(&info[i], &info[j], link[i][j], sizeof link[i][j]);
            }
            if (kind == GB_LINK_UNKNOWN && !why[0])
                snprintf(why, sizeof why, "%s", link[i][j]);
            /* A copy from i to j: j reads i's buffer (as gb_multi_peer_direct asks). */
            /* Where the backend could copy directly but a device did not open, the path is
             * not known: "?". */
            bool can = false;
            const bool capable =
                (info[i].caps & info[j].caps & GB_CAP_PEER) && st->ops->peer_can_access;
            const char *path = !capable             ? "staged"
                               : !dev[i] || !dev[j] ? "?"
                               : st->ops->peer_can_access(dev[j], dev[i], &can) == 0 && can
                                   ? "peer"
                                   : "staged";
            char s[16];
            link_short(link[i][j], s, sizeof s);
            snprintf(cell[i][j], sizeof cell[i][j], "%s/%s", path, s);
            const int w = (int)strlen(cell[i][j]);
            width = w > width ? w : width;
            json_array_append_new(jt,
                                  json_pack("{s:i, s:i, s:s, s:s, s:s}", "from", i, "to", j, "path",
                                            path, "link", link[i][j], "kind", kinds[kind]));
        }
    for (int i = 0; i < n; i++)
        if (dev[i])
            st->ops->device_close(dev[i]);
    if (!json) {
        printf("  topology (a copy from the row's device to the column's: path/link):\n       ");
        for (int j = 0; j < n; j++) {
            char h[8];
            snprintf(h, sizeof h, "[%d]", j);
            printf("  %-*s", j + 1 < n ? width : 0, h);
        }
        printf("\n");
        for (int i = 0; i < n; i++) {
            char h[8];
            snprintf(h, sizeof h, "[%d]", i);
            printf("  %5s", h);
            for (int j = 0; j < n; j++)
                printf("  %-*s", j + 1 < n ? width : 0, cell[i][j]);
            printf("\n");
        }
        /* "?" means "not known" on either side of the '/': the path where a device did not
         * open, the link where the driver could not say (the line "link ?:" below says why). */
        printf("      path: peer copied directly; staged through pinned host memory; ? a device "
               "did not open\n"
               "      link: NV4x18 18 NVLink4 links (sw: an NVSwitch); Gen5x16 PCIe, the lesser "
               "end; ? not known\n");
        if (why[0])
            printf("      link ?: %s\n", why);
    }
    return jt;
}

/* The string member `key` of JSON object o, "" when absent. */
static const char *jtext(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* What --json prints (root: the backends array) as a document: a table of backends and one of
 * devices. */
static int devices_doc(const json_t *root, struct gb_doc *d)
{
    static const char *const bcols[] = {"backend", "available", "devices", "reason"};
    static const char *const dcols[] = {"backend",   "index",        "name",
                                        "vendor",    "driver",       "compute units",
                                        "clock MHz", "memory bytes", "capabilities"};
    struct gb_doc_table *tb, *td;
    int rc = gb_doc_init(d, "gpubench-devices/1", "devices");
    if (!rc)
        rc = gb_doc_table(d, "backends", "", bcols, 4, &tb);
    if (!rc)
        rc = gb_doc_table(d, "devices", "devices", dcols, 9, &td);
    /* For machines (OpenMetrics): available is 1/0 (people read yes/no), a reason and the
     * capabilities are prose, the device's index names it; memory and clock in their units. */
    if (!rc) {
        gb_doc_column_set(tb, 1, true, false);
        gb_doc_column_set(tb, 2, true, false);
        gb_doc_column_prose(tb, 3);
        for (size_t k = 5; k < 8; k++)
            gb_doc_column_set(td, k, true, false);
        gb_doc_column_prose(td, 8);
        rc = gb_doc_column_unit(td, 6, "MHz", 0) || gb_doc_column_unit(td, 7, "bytes", 0);
    }
    d->time = (double)time(NULL); /* when the devices were asked */
    size_t i, j, r;
    const json_t *b, *dv;
    json_array_foreach((json_t *)root, i, b)
    {
        const json_t *devs = json_object_get(b, "devices");
        if (rc || (rc = gb_doc_row(tb, &r)) ||
            (rc = gb_doc_text(tb, r, 0, "%s", jtext(b, "backend"))) ||
            (rc = gb_doc_text(tb, r, 3, "%s", jtext(b, "reason"))))
            break;
        const bool avail = json_is_true(json_object_get(b, "available"));
        gb_doc_num(tb, r, 1, avail, 0);
        if ((rc = gb_doc_shown(tb, r, 1, "%s", avail ? "yes" : "no")))
            break;
        gb_doc_num(tb, r, 2, (double)json_array_size(devs), 0);
        json_array_foreach((json_t *)devs, j, dv)
        {
            char caps[512] = "";
            size_t k;
            const json_t *c;
            json_array_foreach(json_object_get(dv, "capabilities"), k, c)
                gb_appendf(caps, sizeof caps, "%s%s", k ? "," : "", json_string_value(c));
            if ((rc = gb_doc_row(td, &r)) ||
                (rc = gb_doc_text(td, r, 0, "%s", jtext(b, "backend"))) ||
                (rc = gb_doc_text(td, r, 2, "%s", jtext(dv, "name"))) ||
                (rc = gb_doc_text(td, r, 3, "%s", jtext(dv, "vendor"))) ||
                (rc = gb_doc_text(td, r, 4, "%s", jtext(dv, "driver"))) ||
                (rc = gb_doc_text(td, r, 8, "%s", caps)))
                break;
            if ((rc = gb_doc_text(td, r, 1, "%lld",
                                  (long long)json_integer_value(json_object_get(dv, "index")))))
                break;
            gb_doc_num(td, r, 5, (double)json_integer_value(json_object_get(dv, "compute_units")),
                       0);
            gb_doc_num(td, r, 6, (double)json_integer_value(json_object_get(dv, "clock_mhz")), 0);
            gb_doc_num(td, r, 7,
                       (double)json_integer_value(json_object_get(dv, "global_mem_bytes")), 0);
        }
    }
    return rc;
}

static int devices_main(int argc, char **argv)
{
    struct devices_args a = {false};
    enum gb_exit rc;
    if (gb__parse_options(&cmd, argc, argv, GB__GROUPS({devices_options, &a}), &rc) < 0)
        return rc;
    if ((rc = gb__check_format("devices", a.format, false)) != GB_EXIT_OK)
        return rc;
    bool json = a.json || a.format; /* the table is made from what --json prints */
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
            if (st[b].ndevices >= 2)
                json_object_set_new(jb, "topology", backend_topology(&st[b], json));
        }
        json_array_append_new(root, jb);
    }
    if (a.format) {
        struct gb_doc d;
        rc = devices_doc(root, &d) ? GB_EXIT_USAGE : gb__write_format("devices", a.format, &d);
        gb_doc_free(&d);
    } else if (json) {
        char *s = json_dumps(root, JSON_INDENT(2));
        if (s)
            puts(s);
        free(s);
    }
    json_decref(root);
    for (size_t b = 0; b < gb_backend_count; b++)
        if (!st[b].err)
            st[b].ops->shutdown();
    return rc;
}

const struct gb_command gb_command_devices = {
    .name = "devices",
    .summary = "list backends and devices (an unavailable backend says why)",
    .main = devices_main,
};
