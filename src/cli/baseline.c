/* gpubench baseline RESULTS.json [OPTIONS]: promotes a run to the baseline a nightly job compares
 * against: the newest accepted run and one more of its nights (the names, the copy and the
 * nights: analyses/baseline.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "common.h"
#include "analyses/baseline.h"

static const char usage[] =
    "usage: gpubench baseline RESULTS.json [--dir DIR] [--keep K] [--restart]\n"
    "                         [--print-path] [--force]\n"
    "  promotes a run to the baseline DIR/<host>-<device>-<profile>.json (DIR\n"
    "  default results/baselines) and adds it to the nights in\n"
    "  DIR/<host>-<device>-<profile>/nights/, which\n"
    "  `gpubench compare DIR/<host>-<device>-<profile> NEW.json` judges NEW against\n"
    "  --keep K      keep the last K nights, 1..100 (default 14)\n"
    "  --restart     drop the nights first: this run is the first (after an\n"
    "                intended change)\n"
    "  --print-path  only print the baseline path this run belongs to (its nights:\n"
    "                in the same path without .json, folder nights/)\n"
    "  --force       promote an interrupted run too\n"
    "exit status: 0 promoted (or the path printed), 2 bad input or a run that\n"
    "  cannot be promoted\n";
static const struct gb__cmd cmd = {"baseline", usage, 1, 1, "RESULTS.json", "one results file"};

struct baseline_args {
    bool print_path, force, restart;
    const char *dir;
    size_t keep;
};

static int parse_keep(void *target, const char *name, const char *value)
{
    struct baseline_args *a = target;
    char *end;
    errno = 0;
    long k = strtol(value, &end, 10);
    if (end == value || *end || errno || k < 1 || k > 100)
        return GB_USER_FAIL(GB_EINVAL, "--%s wants 1..100 nights, got '%s'", name, value);
    a->keep = (size_t)k;
    return 0;
}

static const struct gb__opt baseline_options[] = {
    GB__TEXT(struct baseline_args, dir, "dir", 0),
    GB__PARSED("keep", 0, true, parse_keep),
    GB__FLAG(struct baseline_args, restart, "restart", 0),
    GB__FLAG(struct baseline_args, print_path, "print-path", 0),
    GB__FLAG(struct baseline_args, force, "force", 0),
    GB__END,
};

static int baseline_main(int argc, char **argv)
{
    struct baseline_args a = {.dir = "results/baselines", .keep = GB_BASELINE_KEEP};
    enum gb_exit rc;
    int first = gb__parse_options(&cmd, argc, argv, GB__GROUPS({baseline_options, &a}), &rc);
    if (first < 0)
        return rc;
    const char *file = argv[first];
    struct gb_results rs;
    gb_error_clear();
    if (gb_results_read(file, &rs)) {
        fprintf(stderr, "gpubench baseline: %s\n", gb_error_msg());
        return GB_EXIT_USAGE;
    }
    char name[512], path[4096];
    gb_baseline_name(&rs, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", a.dir, name);
    size_t failed = 0, ok = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        failed += rs.results[i].status == GB_STATUS_FAILED;
        ok += rs.results[i].status == GB_STATUS_OK;
    }
    bool interrupted = rs.run.interrupted;
    /* Devices the backend gives no UUID or PCI address for are known by backend and index. */
    char by_index[512] = "";
    for (size_t d = 0; d < rs.ndevices; d++) {
        char id[64];
        if (gb_device_identity(&rs.devices[d], id, sizeof id) == GB_ID_INDEX)
            gb_appendf(by_index, sizeof by_index, "%s%s", by_index[0] ? ", " : "", id);
    }
    gb_results_free(&rs);
    if (a.print_path) {
        printf("%s\n", path);
        return GB_EXIT_OK;
    }
    if (interrupted && !a.force) {
        fprintf(stderr,
                "gpubench baseline: %s is an interrupted run; a baseline should be "
                "complete (--force to promote it anyway)\n",
                file);
        return GB_EXIT_USAGE;
    }
    if (ok == 0) {
        fprintf(stderr, "gpubench baseline: %s has no ok result to compare against\n", file);
        return GB_EXIT_USAGE;
    }
    if ((rc = gb__check_output("baseline", a.dir, GB_OUTPUT_DIR, &file, 1)) != GB_EXIT_OK)
        return rc;
    if (gb_mkdir_p(a.dir, 0777) != 0) {
        fprintf(stderr, "gpubench baseline: cannot create %s: %s\n", a.dir, strerror(errno));
        return GB_EXIT_USAGE;
    }
    /* Promoting the baseline file itself, named by its own path (nightly.sh does, to start its
     * nights), adds it as a night and copies nothing. Any other input that is the same file
     * (a hard link, say) is refused: the copy would replace the input. */
    char real_in[PATH_MAX], real_out[PATH_MAX];
    const bool is_baseline =
        realpath(file, real_in) && realpath(path, real_out) && strcmp(real_in, real_out) == 0;
    const char *inputs[] = {file};
    if (!is_baseline &&
        (rc = gb__check_output("baseline", path, GB_OUTPUT_FILE, inputs, 1)) != GB_EXIT_OK)
        return rc;
    /* The nights folder is the baseline's path without ".json". A baseline from before nights
     * (the file without its folder) becomes the first night, unless this is a restart. */
    char folder[GB_PATH_MAX];
    snprintf(folder, sizeof folder, "%.*s", (int)(strlen(path) - 5), path);
    struct gb_nights had;
    gb_error_clear();
    if (gb_baseline_read_nights(folder, &had)) {
        fprintf(stderr, "gpubench baseline: %s\n", gb_error_msg());
        return GB_EXIT_USAGE;
    }
    size_t nights_before = had.n;
    gb_nights_free(&had);
    gb_error_clear();
    if (nights_before == 0 && !a.restart && access(path, F_OK) == 0) {
        if (gb_baseline_add_night(folder, path, a.keep, false, NULL)) {
            fprintf(stderr, "gpubench baseline: %s\n", gb_error_msg());
            return GB_EXIT_USAGE;
        }
        printf("baseline: %s, from before nights, is the first night of %s\n", path, folder);
        if (is_baseline) /* the file given is that night: one run, one night */
            return GB_EXIT_OK;
    }
    gb_error_clear();
    if (!is_baseline && gb_baseline_copy(file, path)) {
        fprintf(stderr, "gpubench baseline: %s\n", gb_error_msg());
        return GB_EXIT_USAGE;
    }
    if (by_index[0])
        fprintf(stderr,
                "gpubench baseline: note: %s gave no UUID or PCI address: the baseline knows "
                "them by backend and index (%s)\n",
                strchr(by_index, ',') ? "these devices" : "the device", by_index);
    size_t kept = 0;
    gb_error_clear();
    if (gb_baseline_add_night(folder, file, a.keep, a.restart, &kept)) {
        fprintf(stderr, "gpubench baseline: %s\n", gb_error_msg());
        return GB_EXIT_USAGE;
    }
    printf("baseline: %s -> %s (%zu ok results", file, path, ok);
    if (failed)
        printf(", %zu failed: they will compare as FAILED in both, not as regressions", failed);
    printf("); %zu night%s of at most %zu in %s/nights%s\n", kept, kept == 1 ? "" : "s", a.keep,
           folder, a.restart ? " (restarted)" : "");
    return GB_EXIT_OK;
}

const struct gb_command gb_command_baseline = {
    .name = "baseline",
    .summary = "promote a run to a baseline (results/baselines/) and its nights",
    .main = baseline_main,
};
