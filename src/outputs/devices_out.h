/* gpubench — the devices' document (`gpubench devices`): the backends, their devices' facts and,
 * where a backend has two devices or more, their topology, for every writer; its JSON file's
 * layout (the array `devices --json` prints) by gb_write_layout (layout.h). */
#ifndef GB_DEVICES_OUT_H
#define GB_DEVICES_OUT_H

#include <stdbool.h>
#include <stddef.h>

#include "backends/backend.h"
#include "backends/telemetry.h"
#include "base/doc.h"

/* One device of a backend as the command read it. */
struct gb_devices_device {
    bool described;             /* info holds the device's facts */
    struct gb_device_info info; /* when described */
    char why[256];              /* when not: why it could not be described */
};

/* One ordered pair of a backend's topology: a copy from device `from` to device `to`. */
struct gb_devices_link {
    int from, to;
    /* How the copy goes: "peer" (directly: peer_can_access said yes), "staged" (through pinned
     * host memory, as the multi-device suites copy), "?" (the backend could copy directly but a
     * device did not open). */
    const char *path;
    char link[192]; /* the link between them (gb_topology_pair: NVLink, PCIe or unknown: why) */
    enum gb_link_kind kind;
};

/* One backend as the command probed it. */
struct gb_devices_backend {
    const char *name;
    const char *reason;                      /* why it is unavailable; NULL: available */
    const struct gb_devices_device *devices; /* [ndevices], as the backend counts them */
    int ndevices;
    /* With two devices or more, the topology of the first ntopo devices (at most 16): links
     * [nlinks], the pairs of described devices, row by row; ntopo 0: no topology. */
    int ntopo;
    const struct gb_devices_link *links;
    size_t nlinks;
};

/* The devices as a document of kind GB_DEVICES_SCHEMA (gb_write_layout writes it as the array
 * `devices --json` prints), asked at `time` (seconds since the Unix epoch): a note per device
 * that could not be described; the table "backends" (backend, available 1/0 shown yes/no, the
 * devices described, reason); the table "devices", one row per described device: backend,
 * index, name, vendor, driver, compute units, clock (MHz), memory (bytes, shown in binary units),
 * capabilities (their names, ',' between), then version, platform, type, the largest buffer,
 * local memory and L2 (bytes), max work-group size, the work-group dimensions ("4096 x 4096 x
 * 4096"), arch, memory clock (MHz), memory bus (bits), peak memory bandwidth (GB/s), native
 * vector width for double, the clock's source (where the host's figures stand for the device's);
 * per backend with a topology the table "topology_BACKEND", its matrix (a row per device copying,
 * a column "to_J" per device copied to, each cell "path/link" with the link in a few characters
 * ("NV4x18", "Gen5x16", "?": an unknown link, its footnote says why), the diagonal "-"), the
 * legend in its title; and the table "links" for machines (backend, from, to, path, link, kind:
 * "unknown", "pcie" or "nvlink"), every ordered pair. 0 or GB_ENOMEM; d must be freed either
 * way. */
int gb_devices_doc(const struct gb_devices_backend *b, size_t n, double time, struct gb_doc *d);

#endif
