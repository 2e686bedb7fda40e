/* gpubench baseline RESULTS.json [OPTIONS]: promotes a run to the baseline a nightly job compares
 * against (the name and the copy: compare/baseline.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "common.h"
#include "compare/baseline.h"

static const char usage[] =
    "usage: gpubench baseline RESULTS.json [--dir DIR] [--print-path] [--force]\n"
    "  promotes a run to the baseline DIR/<host>-<device>-<profile>.json (DIR default "
    "results/baselines)\n"
    "  --print-path  only print the baseline path this run belongs to\n"
    "  --force       promote an interrupted run too\n";
static const struct gb__cmd cmd = {"baseline", usage, 1, 1, "RESULTS.json", "one results file"};

struct baseline_args {
    bool print_path, force;
    const char *dir;
};

static const struct gb__opt baseline_options[] = {
    GB__TEXT(struct baseline_args, dir, "dir", 0),
    GB__FLAG(struct baseline_args, print_path, "print-path", 0),
    GB__FLAG(struct baseline_args, force, "force", 0),
    GB__END,
};

int gb_cmd_baseline(int argc, char **argv)
{
    struct baseline_args a = {.dir = "results/baselines"};
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
    const char *inputs[] = {file};
    if ((rc = gb__check_output("baseline", path, GB_OUTPUT_FILE, inputs, 1)) != GB_EXIT_OK)
        return rc;
    gb_error_clear();
    if (gb_baseline_copy(file, path)) {
        fprintf(stderr, "gpubench baseline: %s\n", gb_error_msg());
        return GB_EXIT_USAGE;
    }
    printf("baseline: %s -> %s (%zu ok results", file, path, ok);
    if (failed)
        printf(", %zu failed: they will compare as FAILED in both, not as regressions", failed);
    printf(")\n");
    return GB_EXIT_OK;
}
