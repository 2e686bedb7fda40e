/* gpubench devices [--json]: the backends and their devices; an unavailable backend says why.
 * Where a backend has two devices or more, its topology: for each ordered pair the path a copy
 * from one to the other takes (peer: directly, peer_can_access said yes; staged: through pinned
 * host memory, as the multi-device suites copy) and the link between them (gb_topology_pair:
 * NVLink or PCIe as NVML reads it, or unknown and why). The command reads these facts and prints
 * nothing of its own: one document (outputs/devices_out.h) goes through the text writer, the
 * writer -f names, or, for --json, its layout (layout_devices.c). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/error.h"
#include "backends/telemetry.h"
#include "common.h"
#include "outputs/devices_out.h"
#include "outputs/layout.h"
#include "outputs/writer.h"

static const char usage[] =
    "usage: gpubench devices [--json]\n"
    "  lists the backends and their devices; an unavailable backend says why; where\n"
    "  a backend has two devices or more, their topology: each pair's copy path and\n"
    "  link (NVML)\n"
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

/* What backend st says of its devices, into b and dv (room for st->ndevices, the caller's). */
static void read_devices(const struct gb_backend_status *st, struct gb_devices_backend *b,
                         struct gb_devices_device *dv)
{
    for (int i = 0; i < st->ndevices; i++) {
        dv[i].described = st->ops->device_info(i, &dv[i].info) == 0;
        if (!dv[i].described)
            snprintf(dv[i].why, sizeof dv[i].why, "%s", gb_error_msg());
    }
    b->devices = dv;
    b->ndevices = st->ndevices;
}

/* The topology of an available backend with two devices or more (the first 16), into b->links
 * (links: room for 16 x 15 pairs): for each ordered pair of described devices the path a copy
 * takes and the link between them. Devices are opened only where the backend can copy between
 * them directly (GB_CAP_PEER), to ask peer_can_access. */
static void read_topology(const struct gb_backend_status *st, struct gb_devices_backend *b,
                          struct gb_devices_link *links)
{
    enum { MAXD = 16 };
    const int n = st->ndevices < MAXD ? st->ndevices : MAXD;
    const struct gb_devices_device *dv = b->devices;
    struct gb_device *dev[MAXD] = {NULL};
    for (int i = 0; i < n; i++)
        if (dv[i].described && (dv[i].info.caps & GB_CAP_PEER) && st->ops->peer_can_access &&
            st->ops->device_open(i, &dev[i]))
            dev[i] = NULL;
    size_t k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j || !dv[i].described || !dv[j].described)
                continue;
            struct gb_devices_link *l = &links[k++];
            l->from = i;
            l->to = j;
            /* the link is the pair's, read once: (j, i) was read before (i, j) where j < i */
            const struct gb_devices_link *back = NULL;
            for (size_t m = 0; m + 1 < k && j < i; m++)
                if (links[m].from == j && links[m].to == i)
                    back = &links[m];
            if (back) {
                snprintf(l->link, sizeof l->link, "%s", back->link);
                l->kind = back->kind;
            } else {
                l->kind = gb_topology_pair(&dv[i].info, &dv[j].info, l->link, sizeof l->link);
            }
            /* A copy from i to j: j reads i's buffer (as gb_multi_peer_direct asks). Where the
             * backend could copy directly but a device did not open, the path is not known. */
            bool can = false;
            const bool capable =
                (dv[i].info.caps & dv[j].info.caps & GB_CAP_PEER) && st->ops->peer_can_access;
            l->path = !capable                                                     ? "staged"
                      : !dev[i] || !dev[j]                                         ? "?"
                      : st->ops->peer_can_access(dev[j], dev[i], &can) == 0 && can ? "peer"
                                                                                   : "staged";
        }
    for (int i = 0; i < n; i++)
        if (dev[i])
            st->ops->device_close(dev[i]);
    b->ntopo = n;
    b->links = links;
    b->nlinks = k;
}

static int write_json(FILE *f, const void *d)
{
    return gb_write_layout(f, d);
}

static int devices_main(int argc, char **argv)
{
    struct devices_args a = {false};
    enum gb_exit rc;
    if (gb__parse_options(&cmd, argc, argv, GB__GROUPS({devices_options, &a}), &rc) < 0)
        return rc;
    if ((rc = gb__check_format("devices", a.format, false)) != GB_EXIT_OK)
        return rc;
    struct gb_backend_status st[8];
    gb_backends_probe(st);
    struct gb_devices_backend b[8] = {{0}};
    struct gb_devices_device *dv[8] = {NULL};
    struct gb_devices_link *links[8] = {NULL};
    for (size_t k = 0; k < gb_backend_count; k++) {
        b[k].name = st[k].ops->name;
        if (st[k].err) {
            b[k].reason = st[k].reason;
            continue;
        }
        dv[k] = calloc(st[k].ndevices > 0 ? (size_t)st[k].ndevices : 1, sizeof *dv[k]);
        links[k] = calloc(16 * 15, sizeof *links[k]);
        if (!dv[k] || !links[k]) {
            fprintf(stderr, "gpubench devices: out of memory\n");
            rc = GB_EXIT_USAGE;
            break;
        }
        read_devices(&st[k], &b[k], dv[k]);
        if (st[k].ndevices >= 2)
            read_topology(&st[k], &b[k], links[k]);
    }
    /* One document for the terminal, --format and --json (its layout). */
    struct gb_doc d = {0};
    if (rc == GB_EXIT_OK && gb_devices_doc(b, gb_backend_count, (double)time(NULL), &d)) {
        fprintf(stderr, "gpubench devices: %s\n", gb_error_msg());
        rc = GB_EXIT_USAGE;
    } else if (rc == GB_EXIT_OK && a.format) {
        rc = gb__write_format("devices", a.format, &d);
    } else if (rc == GB_EXIT_OK && a.json) {
        rc = gb__write_output("devices", "-", write_json, &d);
    } else if (rc == GB_EXIT_OK) {
        FILE *t = gb__term_out();
        int wrc = gb_write_doc(t, "text", &d);
        if (gb__term_done(t) || wrc) {
            fprintf(stderr, "gpubench devices: writing the text output: %s\n", gb_error_msg());
            rc = GB_EXIT_USAGE;
        }
    }
    gb_doc_free(&d);
    for (size_t k = 0; k < gb_backend_count; k++) {
        free(dv[k]);
        free(links[k]);
        if (!st[k].err)
            st[k].ops->shutdown();
    }
    return rc;
}

const struct gb_command gb_command_devices = {
    .name = "devices",
    .summary = "list backends and devices (an unavailable backend says why)",
    .main = devices_main,
};
