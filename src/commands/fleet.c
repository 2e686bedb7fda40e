/* gpubench fleet DIR|FILE... — the same profile's results from many nodes side by side, and the
 * nodes that stand out (the rule: compare/fleet.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "commands/commands.h"
#include "compare/fleet.h"
#include "compare/merge.h"

static void fleet_usage(FILE *f)
{
    fprintf(f,
            "usage: gpubench fleet DIR|FILE... [OPTIONS]\n"
            "  Results files of one profile run on many nodes (a folder gives its *.json files):\n"
            "  per case the fleet median, its spread and each node's deviation; a node is an\n"
            "  outlier when it is both beyond K scaled MADs from the median and more than\n"
            "  --min-deviation from it, or when a case failed on it and ran elsewhere.\n"
            "  -k, --threshold K       MAD multiples (modified z-score; default 3.5)\n"
            "  --min-deviation F       and at least this far from the median: 0.05 or 5%%\n"
            "                          (default 5%%)\n"
            "  -s, --suite LIST        only these suites (comma-separated)\n"
            "  --all                   a per-node table for every case (default: cases with an\n"
            "                          outlier)\n"
            "  --markdown FILE, --json FILE   also write these ('-': stdout)\n"
            "  -q, --quiet             no terminal output\n"
            "exit status: 0 no outlier, 3 an outlier node, 2 bad input or usage\n");
}

typedef int (*fleet_writer)(FILE *, const struct gb_fleet *, bool);

static int json_writer(FILE *f, const struct gb_fleet *fl, bool all)
{
    (void)all;
    return gb_fleet_write_json(f, fl);
}

static int write_to(const char *path, fleet_writer fn, const struct gb_fleet *fl, bool all)
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gpubench fleet: cannot write %s: %s\n", path, strerror(errno));
        return GB_EXIT_USAGE;
    }
    int rc = fn(f, fl, all);
    int closed = f == stdout ? fflush(f) : fclose(f);
    if (rc || closed) {
        fprintf(stderr, "gpubench fleet: cannot write %s: %s\n", path, strerror(errno));
        return GB_EXIT_USAGE;
    }
    return GB_EXIT_OK;
}

/* "0.05" or "5%" into a fraction in [0, 10]. */
static bool parse_fraction(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno)
        return false;
    if (*end == '%') {
        v /= 100.0;
        end++;
    }
    if (*end || !(v >= 0.0) || v > 10.0)
        return false;
    *out = v;
    return true;
}

int gb_cmd_fleet(int argc, char **argv)
{
    enum { O_MIN_DEV = 256, O_ALL, O_MD, O_JSON };
    static const struct option longopts[] = {
        {"threshold", required_argument, NULL, 'k'},
        {"min-deviation", required_argument, NULL, O_MIN_DEV},
        {"suite", required_argument, NULL, 's'},
        {"all", no_argument, NULL, O_ALL},
        {"markdown", required_argument, NULL, O_MD},
        {"md", required_argument, NULL, O_MD},
        {"json", required_argument, NULL, O_JSON},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct gb_fleet_opts o;
    gb_fleet_opts_default(&o);
    const char *md = NULL, *json = NULL;
    bool all = false, quiet = false;
    optind = 1;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "k:s:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'k':
            o.k = strtod(optarg, &end);
            if (end == optarg || *end || !(o.k > 0.0 && o.k < 1e6)) {
                fprintf(stderr,
                        "gpubench fleet: --threshold wants a positive number of MADs, "
                        "got '%s'\n",
                        optarg);
                return GB_EXIT_USAGE;
            }
            break;
        case O_MIN_DEV:
            if (!parse_fraction(optarg, &o.min_deviation)) {
                fprintf(stderr,
                        "gpubench fleet: --min-deviation wants a relative distance such as 0.05 "
                        "or 5%%, got '%s'\n",
                        optarg);
                return GB_EXIT_USAGE;
            }
            break;
        case 's':
            o.suites = optarg;
            break;
        case O_ALL:
            all = true;
            break;
        case O_MD:
            md = optarg;
            break;
        case O_JSON:
            json = optarg;
            break;
        case 'q':
            quiet = true;
            break;
        case 'h':
            fleet_usage(stdout);
            return GB_EXIT_OK;
        default:
            fleet_usage(stderr);
            return GB_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "gpubench fleet: expects results files or a folder of them\n");
        fleet_usage(stderr);
        return GB_EXIT_USAGE;
    }
    struct gb_inputs in;
    gb_error_clear();
    if (gb_inputs_expand((const char *const *)argv + optind, (size_t)(argc - optind), &in)) {
        fprintf(stderr, "gpubench fleet: %s\n", gb_error_msg());
        return GB_EXIT_USAGE;
    }
    struct gb_fleet fl;
    gb_fleet_init(&fl, &o);
    int rc = GB_EXIT_OK;
    for (size_t i = 0; i < in.n; i++) {
        gb_error_clear();
        if (gb_fleet_add_file(&fl, in.paths[i])) {
            fprintf(stderr, "gpubench fleet: %s\n", gb_error_msg());
            rc = GB_EXIT_USAGE;
            goto out;
        }
    }
    gb_error_clear();
    if (gb_fleet_finish(&fl)) {
        fprintf(stderr, "gpubench fleet: %s\n", gb_error_msg());
        rc = GB_EXIT_USAGE;
        goto out;
    }
    if (!quiet && gb_fleet_write_text(stdout, &fl, all))
        rc = GB_EXIT_USAGE;
    if (!rc && md)
        rc = write_to(md, gb_fleet_write_markdown, &fl, all);
    if (!rc && json)
        rc = write_to(json, json_writer, &fl, all);
    if (!rc && fl.flagged_nodes)
        rc = GB_EXIT_REGRESSION;
out:
    gb_fleet_free(&fl);
    gb_inputs_free(&in);
    return rc;
}
