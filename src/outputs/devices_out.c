/* gpubench — the devices' document (contract in devices_out.h). */
#include "outputs/devices_out.h"

#include <stdio.h>
#include <string.h>

#include "base/units.h"
#include "base/util.h"
#include "outputs/layout.h"
#include "results/results.h"

/* The "devices" table's columns, in order; the first nine are those it always had. */
enum {
    C_BACKEND,
    C_INDEX,
    C_NAME,
    C_VENDOR,
    C_DRIVER,
    C_UNITS,
    C_CLOCK,
    C_MEM,
    C_CAPS,
    C_VERSION,
    C_PLATFORM,
    C_TYPE,
    C_ALLOC,
    C_LOCAL,
    C_L2,
    C_WG,
    C_WG_DIMS,
    C_ARCH,
    C_MEM_CLOCK,
    C_BUS,
    C_PEAK,
    C_VEC_DOUBLE,
    C_CLOCK_SOURCE,
    NCOLS
};

static const char *const dcols[NCOLS] = {
    [C_BACKEND] = "backend",
    [C_INDEX] = "index",
    [C_NAME] = "name",
    [C_VENDOR] = "vendor",
    [C_DRIVER] = "driver",
    [C_UNITS] = "compute units",
    [C_CLOCK] = "clock MHz",
    [C_MEM] = "memory bytes",
    [C_CAPS] = "capabilities",
    [C_VERSION] = "version",
    [C_PLATFORM] = "platform",
    [C_TYPE] = "type",
    [C_ALLOC] = "max alloc bytes",
    [C_LOCAL] = "local memory bytes",
    [C_L2] = "l2 bytes",
    [C_WG] = "max work-group",
    [C_WG_DIMS] = "work-group dims",
    [C_ARCH] = "arch",
    [C_MEM_CLOCK] = "mem clock MHz",
    [C_BUS] = "mem bus width",
    [C_PEAK] = "peak mem GB/s",
    [C_VEC_DOUBLE] = "vector width double",
    [C_CLOCK_SOURCE] = "clock source",
};

/* The "devices" table: numbers in their units for machines, prose left out of OpenMetrics'
 * labels (so that the series of the first nine columns keep their labels), the byte counts
 * labelled for people, who read them in binary units. */
static int devices_table(struct gb_doc *d, struct gb_doc_table **out)
{
    int rc = gb_doc_table(d, "devices", "devices", dcols, NCOLS, out);
    if (rc)
        return rc;
    struct gb_doc_table *t = *out;
    static const int nums[] = {C_UNITS, C_CLOCK,     C_MEM, C_ALLOC, C_LOCAL,     C_L2,
                               C_WG,    C_MEM_CLOCK, C_BUS, C_PEAK,  C_VEC_DOUBLE};
    for (size_t k = 0; k < sizeof nums / sizeof *nums; k++)
        gb_doc_column_set(t, (size_t)nums[k], true, false);
    static const int prose[] = {C_CAPS,    C_VERSION, C_PLATFORM,    C_TYPE,
                                C_WG_DIMS, C_ARCH,    C_CLOCK_SOURCE};
    for (size_t k = 0; k < sizeof prose / sizeof *prose; k++)
        gb_doc_column_prose(t, (size_t)prose[k]);
    static const struct {
        int col;
        const char *unit, *label;
    } units[] = {{C_CLOCK, "MHz", "clock MHz"},
                 {C_MEM, "bytes", "memory"},
                 {C_ALLOC, "bytes", "largest buffer"},
                 {C_LOCAL, "bytes", "local memory"},
                 {C_L2, "bytes", "L2"},
                 {C_MEM_CLOCK, "MHz", "mem clock MHz"},
                 {C_BUS, "bits", "mem bus bits"},
                 {C_PEAK, "GB/s", "peak mem GB/s"}};
    for (size_t k = 0; !rc && k < sizeof units / sizeof *units; k++)
        rc = gb_doc_column_unit(t, (size_t)units[k].col, units[k].unit, 0) ||
             gb_doc_column_label(t, (size_t)units[k].col, units[k].label);
    return rc;
}

/* Sets the byte count v at (r, c), shown in binary units ("21.59 GiB"). */
static int bytes_cell(struct gb_doc_table *t, size_t r, size_t c, uint64_t v)
{
    char s[32];
    gb_format_bytes_human(v, s, sizeof s);
    gb_doc_num(t, r, c, (double)v, 0);
    return gb_doc_shown(t, r, c, "%s", s);
}

/* Device i of backend b as a row of the "devices" table. */
static int device_row(struct gb_doc_table *t, const char *backend, int i,
                      const struct gb_device_info *di)
{
    static const char *const types[] = {[GB_DEVICE_OTHER] = "other",
                                        [GB_DEVICE_GPU] = "gpu",
                                        [GB_DEVICE_CPU] = "cpu",
                                        [GB_DEVICE_ACCELERATOR] = "accelerator"};
    char caps[512] = "";
    for (unsigned b = 0, k = 0; b < 64; b++) {
        const char *name = di->caps >> b & 1 ? gb_cap_name(UINT64_C(1) << b) : NULL;
        if (name)
            gb_appendf(caps, sizeof caps, "%s%s", k++ ? "," : "", name);
    }
    size_t r;
    int rc = gb_doc_row(t, &r);
    if (!rc)
        rc = gb_doc_text(t, r, C_BACKEND, "%s", backend) || gb_doc_text(t, r, C_INDEX, "%d", i) ||
             gb_doc_text(t, r, C_NAME, "%s", di->name) ||
             gb_doc_text(t, r, C_VENDOR, "%s", di->vendor) ||
             gb_doc_text(t, r, C_DRIVER, "%s", di->driver) ||
             gb_doc_text(t, r, C_CAPS, "%s", caps) ||
             (!caps[0] && gb_doc_shown(t, r, C_CAPS, "none")) ||
             gb_doc_text(t, r, C_VERSION, "%s", di->version) ||
             gb_doc_text(t, r, C_PLATFORM, "%s", di->platform) ||
             gb_doc_text(t, r, C_TYPE, "%s", types[di->type]) ||
             gb_doc_text(t, r, C_WG_DIMS, "%u x %u x %u", di->max_wg_dims[0], di->max_wg_dims[1],
                         di->max_wg_dims[2]) ||
             gb_doc_text(t, r, C_ARCH, "%s", di->arch) ||
             gb_doc_text(t, r, C_CLOCK_SOURCE, "%s", di->clock_source);
    /* The host's figures in place of the device's: none reported (the clock alone), or
     * placeholders that contradict the host (the source says what the device said). */
    if (!rc && di->clock_source[0] && !strstr(di->clock_source, "the device said"))
        rc = gb_doc_shown(t, r, C_CLOCK_SOURCE, "clock from the %s: the driver reports none",
                          di->clock_source);
    if (!rc)
        rc = bytes_cell(t, r, C_MEM, di->global_mem) || bytes_cell(t, r, C_ALLOC, di->max_alloc) ||
             bytes_cell(t, r, C_LOCAL, di->local_mem) || bytes_cell(t, r, C_L2, di->l2_bytes);
    gb_doc_num(t, r, C_UNITS, di->compute_units, 0);
    gb_doc_num(t, r, C_CLOCK, di->clock_mhz, 0);
    gb_doc_num(t, r, C_WG, di->max_wg_size, 0);
    gb_doc_num(t, r, C_MEM_CLOCK, di->mem_clock_mhz, 0);
    gb_doc_num(t, r, C_BUS, di->mem_bus_bits, 0);
    gb_doc_num(t, r, C_PEAK, di->peak_mem_gbs, 1);
    gb_doc_num(t, r, C_VEC_DOUBLE, di->native_vec_double, 0);
    /* A fact the driver does not report is 0 in the device info (and so in the files, whose
     * layout has it so); people read "unknown", not a clock or a bus of zero. */
    static const int unknown_if_zero[] = {C_CLOCK, C_L2, C_MEM_CLOCK, C_BUS, C_PEAK};
    const double facts[] = {di->clock_mhz, (double)di->l2_bytes, di->mem_clock_mhz,
                            di->mem_bus_bits, di->peak_mem_gbs};
    for (size_t k = 0; !rc && k < sizeof facts / sizeof *facts; k++)
        if (!(facts[k] > 0))
            rc = gb_doc_shown(t, r, (size_t)unknown_if_zero[k], "unknown");
    return rc;
}

/* A link's description (gb_topology_describe) in a few characters for the matrix: "NV4x18",
 * "NV4x18sw" (through an NVSwitch), "Gen5x16", "?" (unknown: the footnote says why). */
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

/* Backend b's topology: its matrix for people, its pairs in `links` for machines. */
static int topology(struct gb_doc *d, const struct gb_devices_backend *b,
                    struct gb_doc_table *links)
{
    enum { MAXD = 16 };
    const int n = b->ntopo < MAXD ? b->ntopo : MAXD;
    char names[MAXD + 1][16], id[64], title[512];
    const char *cols[MAXD + 1];
    snprintf(names[0], sizeof names[0], "from");
    for (int j = 0; j < n; j++)
        snprintf(names[j + 1], sizeof names[j + 1], "to_%d", j);
    for (int j = 0; j <= n; j++)
        cols[j] = names[j];
    snprintf(id, sizeof id, "topology_%s", b->name);
    snprintf(title, sizeof title,
             "%s topology: a copy from the row's device to the column's, as path/link. path: "
             "peer copied directly, staged through pinned host memory, ? a device did not open. "
             "link: NV4x18 18 NVLink4 links (sw: an NVSwitch), Gen5x16 PCIe (the lesser end), ? "
             "not known",
             b->name);
    struct gb_doc_table *t;
    int rc = gb_doc_table(d, id, title, cols, (size_t)n + 1, &t);
    /* The cells are marked numeric, though they are text, for how a matrix is read: the text
     * writer aligns them and goes on in a second panel rather than move a cell to a footnote,
     * and OpenMetrics, finding no number, leaves the matrix to "links". */
    for (int j = 0; !rc && j < n; j++) {
        gb_doc_column_set(t, (size_t)j + 1, true, false);
        char h[16];
        snprintf(h, sizeof h, "[%d]", j);
        rc = gb_doc_column_label(t, (size_t)j + 1, h);
    }
    for (int i = 0; !rc && i < n; i++) {
        size_t r;
        if ((rc = gb_doc_row(t, &r)) || (rc = gb_doc_text(t, r, 0, "[%d]", i)))
            break;
        for (int j = 0; !rc && j < n; j++)
            rc = gb_doc_text(t, r, (size_t)j + 1, "-");
    }
    static const char *const kinds[] = {"unknown", "pcie", "nvlink"};
    for (size_t k = 0; !rc && k < b->nlinks; k++) {
        const struct gb_devices_link *l = &b->links[k];
        if (l->from < 0 || l->from >= n || l->to < 0 || l->to >= n)
            continue;
        char s[16];
        link_short(l->link, s, sizeof s);
        size_t r;
        rc = gb_doc_text(t, (size_t)l->from, (size_t)l->to + 1, "%s/%s", l->path, s) ||
             (l->kind == GB_LINK_UNKNOWN &&
              gb_doc_footnote(t, (size_t)l->from, (size_t)l->to + 1, l->link)) ||
             gb_doc_row(links, &r) || gb_doc_text(links, r, 0, "%s", b->name) ||
             gb_doc_text(links, r, 1, "%d", l->from) || gb_doc_text(links, r, 2, "%d", l->to) ||
             gb_doc_text(links, r, 3, "%s", l->path) || gb_doc_text(links, r, 4, "%s", l->link) ||
             gb_doc_text(links, r, 5, "%s", kinds[l->kind]);
    }
    return rc;
}

int gb_devices_doc(const struct gb_devices_backend *b, size_t n, double time, struct gb_doc *d)
{
    static const char *const bcols[] = {"backend", "available", "devices", "reason"};
    static const char *const lcols[] = {"backend", "from", "to", "path", "link", "kind"};
    struct gb_doc_table *tb, *td, *tl;
    int rc = gb_doc_init(d, GB_DEVICES_SCHEMA, "devices");
    d->time = time;
    if (!rc)
        rc = gb_doc_table(d, "backends", "", bcols, 4, &tb);
    if (!rc)
        rc = devices_table(d, &td);
    /* For machines (OpenMetrics): available is 1/0 (people read yes/no), a reason is prose. */
    if (!rc) {
        gb_doc_column_set(tb, 1, true, false);
        gb_doc_column_set(tb, 2, true, false);
        gb_doc_column_prose(tb, 3);
    }
    for (size_t k = 0; !rc && k < n; k++) {
        size_t r;
        int described = 0;
        for (int i = 0; i < b[k].ndevices; i++)
            described += b[k].devices[i].described;
        if ((rc = gb_doc_row(tb, &r)) || (rc = gb_doc_text(tb, r, 0, "%s", b[k].name)) ||
            (rc = gb_doc_text(tb, r, 3, "%s", b[k].reason ? b[k].reason : "")))
            break;
        gb_doc_num(tb, r, 1, !b[k].reason, 0);
        gb_doc_num(tb, r, 2, described, 0);
        if ((rc = gb_doc_shown(tb, r, 1, "%s", b[k].reason ? "no" : "yes")))
            break;
        for (int i = 0; !rc && i < b[k].ndevices; i++) {
            const struct gb_devices_device *dv = &b[k].devices[i];
            rc = dv->described
                     ? device_row(td, b[k].name, i, &dv->info)
                     : gb_doc_note(d, "%s [%d]: cannot describe: %s", b[k].name, i, dv->why);
        }
    }
    if (!rc)
        rc = gb_doc_table(d, "links", "the copy between each ordered pair of devices", lcols, 6,
                          &tl);
    if (!rc) {
        gb_doc_table_machine(tl);
        gb_doc_column_prose(tl, 4);
    }
    for (size_t k = 0; !rc && k < n; k++)
        if (!b[k].reason && b[k].ntopo >= 2)
            rc = topology(d, &b[k], tl);
    return rc;
}
