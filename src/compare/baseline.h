/* gpubench — baselines: the results file a nightly job compares each new run against, one per
 * host, device set and profile (results/baselines/<host>-<device>-<profile>.json by default),
 * replaced only whole. The `baseline` command (src/commands/baseline.c) decides what may be
 * promoted; this floor names the file and copies it. */
#ifndef GB_BASELINE_H
#define GB_BASELINE_H

#include <stddef.h>

#include "harness/results.h"

/* The baseline file name (no folder) for a results set: "<host>-<devices>-<profile>.json".
 * Each part is lowercased, every run of characters other than [a-z0-9.] turned into one '-',
 * leading and trailing '-' dropped; the host is "host" when unknown and takes at most 127
 * characters; the distinct devices, in the file's order, each as its name (at most 79 characters), '-' and
 * its stable identity (gb_device_identity: the UUID's first 8 hex digits, "pci-" and the PCI
 * address, else backend and index, "opencl-1"), are joined with '+', "nodevice" when there are
 * none; "-<profile>" is left out when the run has no
 * profile name (at most 79 characters). The name before ".json" is cut at 240 characters, so
 * the whole fits a file system's 255. Truncated to len - 1 characters like snprintf. */
void gb_baseline_name(const struct gb_results *rs, char *buf, size_t len);

/* Copies the file src to dst through a temporary file "<dst>.tmp.<pid>" in dst's folder,
 * fsync'd, then renamed over dst: a reader of dst sees either the old file or the whole new one,
 * never part of it. dst's folder must exist. Returns 0, or GB_EIO with a message for the user
 * ("cannot read SRC: why" / "cannot write DST: why"); the temporary file is then removed. */
int gb_baseline_copy(const char *src, const char *dst);

#endif
