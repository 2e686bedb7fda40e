/* gpubench — baselines: what a nightly job compares each new run against, one per host, device
 * set and profile, in results/baselines/ by default:
 *
 *   <host>-<device>-<profile>.json           the newest accepted run (what `compare BASE NEW`
 *                                            of two files and the nightly report use)
 *   <host>-<device>-<profile>/nights/RUN.json  the last K accepted runs, copies of the history's
 *                                            files under their own names: the nights
 *                                            `compare FOLDER NEW` judges tonight against
 *   <host>-<device>-<profile>/thresholds.json  per-case thresholds learned by `gpubench
 *                                            calibrate --baseline` (analyses/calibrate.h)
 *
 * Every file is replaced only whole. The `baseline` command (src/cli/baseline.c) decides
 * what may be promoted; this floor names the files, copies them and keeps the last K. */
#ifndef GB_BASELINE_H
#define GB_BASELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "results/results.h"

/* The nights a baseline keeps unless told otherwise: two weeks. (With 14 nights the cut of the
 * gate is about 5 MADs; with 7 it is 11: src/base/robust.h.) */
#define GB_BASELINE_KEEP 14

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

/* The nights of one baseline folder, oldest first (by the run's start time, then file name). */
struct gb_nights {
    struct gb_results *runs;
    char **paths; /* "<folder>/nights/<file>" */
    size_t n;
};

/* Reads every .json file of <folder>/nights into *out (n is 0 when there is none, or no such folder).
 * Returns 0, or GB_EIO / GB_EINVAL with a message naming the night that cannot be read;
 * GB_ENOMEM. Free with gb_nights_free. */
int gb_baseline_read_nights(const char *folder, struct gb_nights *out);
void gb_nights_free(struct gb_nights *n);

/* Adds the results file `file` to the nights of `folder` (made when missing): with `restart`,
 * every night there is removed first; then the file is copied to <folder>/nights/<its file
 * name> (gb_baseline_copy; a night of that name is replaced), and the oldest nights (run start,
 * then name; an unreadable one counts as oldest) beyond `keep` >= 1 are removed. *kept (or
 * NULL) gets how many nights are there now. Returns 0, or GB_EIO with a message; GB_ENOMEM. */
int gb_baseline_add_night(const char *folder, const char *file, size_t keep, bool restart,
                          size_t *kept);

#endif
