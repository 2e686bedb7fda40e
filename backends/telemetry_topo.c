/* gpubench — telemetry: the link between two devices (contract in telemetry.h): NVLink links
 * and the PCIe link as NVML reads them (telemetry_nvml.c), and the pure description of a pair. */
#include <stdio.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/telemetry.h"
#include "backends/telemetry_private.h"

bool gb_pci_same(const char *a, const char *b)
{
    unsigned d1, b1, s1, f1, d2, b2, s2, f2;
    if (!a || !b || sscanf(a, "%x:%x:%x.%x", &d1, &b1, &s1, &f1) != 4 ||
        sscanf(b, "%x:%x:%x.%x", &d2, &b2, &s2, &f2) != 4)
        return false;
    return d1 == d2 && b1 == b2 && s1 == s2 && f1 == f2;
}

void gb_tel_links(const struct gb_tel_target *t, struct gb_link_info *li)
{
    memset(li, 0, sizeof *li);
    li->pcie_gen = li->pcie_width = li->pcie_gen_max = li->pcie_width_max = -1;
    snprintf(li->pci_bus_id, sizeof li->pci_bus_id, "%s", t->pci_bus_id ? t->pci_bus_id : "");
    struct gb__nvml *n = gb__nvml_open(t, li->why, sizeof li->why);
    if (!n)
        return;
    gb__nvml_links(n, li);
    li->known = true;
    gb__nvml_close(n);
}

/* The active links of `from` whose remote is `to`: their count, and their lowest version in
 * *ver (0 when any is unknown). */
static int links_to(const struct gb_link_info *from, const struct gb_link_info *to, int *ver)
{
    int k = 0;
    *ver = -1;
    for (int i = 0; i < from->nlinks; i++)
        if (gb_pci_same(from->link[i].remote, to->pci_bus_id)) {
            k++;
            if (*ver < 0 || from->link[i].version < *ver)
                *ver = from->link[i].version;
        }
    return k;
}

/* The same for the links of `from` to an NVSwitch. */
static int links_to_switch(const struct gb_link_info *from, int *ver)
{
    int k = 0;
    *ver = -1;
    for (int i = 0; i < from->nlinks; i++)
        if (from->link[i].to_switch) {
            k++;
            if (*ver < 0 || from->link[i].version < *ver)
                *ver = from->link[i].version;
        }
    return k;
}

static void nvlink_text(char *out, size_t len, int ver, int count, const char *tail)
{
    if (ver > 0)
        snprintf(out, len, "NVLink%d x%d%s", ver, count, tail);
    else
        snprintf(out, len, "NVLink x%d%s", count, tail);
}

static int lesser(int x, int y)
{
    return x < y ? x : y;
}

enum gb_link_kind gb_topology_describe(const struct gb_link_info *a, const struct gb_link_info *b,
                                       char *out, size_t len)
{
    if (!a->known || !b->known) {
        const struct gb_link_info *u = !a->known ? a : b;
        if (*u->pci_bus_id)
            snprintf(out, len, "unknown: no NVML for %s (%s)", u->pci_bus_id,
                     *u->why ? u->why : "not read");
        else
            snprintf(out, len, "unknown: no NVML (%s)", *u->why ? u->why : "not read");
        return GB_LINK_UNKNOWN;
    }
    int va, vb;
    const int ka = links_to(a, b, &va), kb = links_to(b, a, &vb);
    if (ka > 0 || kb > 0) {
        /* Both ends see the same links; when they disagree (one end's remote unread), the end
         * that saw more counts. */
        nvlink_text(out, len, ka >= kb ? va : vb, ka >= kb ? ka : kb, "");
        return GB_LINK_NVLINK;
    }
    const int sa = links_to_switch(a, &va), sb = links_to_switch(b, &vb);
    if (sa > 0 && sb > 0) {
        nvlink_text(out, len, va > 0 && vb > 0 ? lesser(va, vb) : 0, lesser(sa, sb),
                    " via NVSwitch");
        return GB_LINK_NVLINK;
    }
    if (a->pcie_gen <= 0 || a->pcie_width <= 0 || b->pcie_gen <= 0 || b->pcie_width <= 0) {
        snprintf(out, len, "unknown: no PCIe link read (%s)",
                 a->pcie_gen <= 0 || a->pcie_width <= 0 ? a->pci_bus_id : b->pci_bus_id);
        return GB_LINK_UNKNOWN;
    }
    const int gen = lesser(a->pcie_gen, b->pcie_gen), width = lesser(a->pcie_width, b->pcie_width);
    char tail[48] = "";
    if (a->pcie_gen_max > 0 && a->pcie_width_max > 0 && b->pcie_gen_max > 0 &&
        b->pcie_width_max > 0) {
        const int gm = lesser(a->pcie_gen_max, b->pcie_gen_max);
        const int wm = lesser(a->pcie_width_max, b->pcie_width_max);
        if (gm > gen || wm > width)
            snprintf(tail, sizeof tail, " (max Gen%d x%d)", gm, wm);
    }
    snprintf(out, len, "PCIe Gen%d x%d%s", gen, width, tail);
    return GB_LINK_PCIE;
}

enum gb_link_kind gb_topology_pair(const struct gb_device_info *a, const struct gb_device_info *b,
                                   char *out, size_t len)
{
    struct gb_link_info la, lb;
    const struct gb_tel_target ta = {.vendor = a->vendor, .pci_bus_id = a->pci_bus_id};
    const struct gb_tel_target tb = {.vendor = b->vendor, .pci_bus_id = b->pci_bus_id};
    gb_tel_links(&ta, &la);
    gb_tel_links(&tb, &lb);
    return gb_topology_describe(&la, &lb, out, len);
}
