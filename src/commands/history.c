/* gpubench history DIR|FILE... — each case's nightly median as a series and the nights on which
 * a figure moved (the method: compare/history.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "commands/commands.h"
#include "compare/history.h"
#include "compare/merge.h"

static void history_usage(FILE *f)
{
    fprintf(f,
            "usage: gpubench history DIR|FILE... [OPTIONS]\n"
            "  Results files of one machine, one a night (a folder gives its *.json files), in\n"
            "  the order of their start times: each case's median night by night, and the\n"
            "  nights on which a figure moved (Pettitt's rank test in binary segmentation) with\n"
            "  what else changed that night (gpubench, profile, host, OS, device, driver, clock).\n"
            "  --alpha A            significance of a change point (default 0.01)\n"
            "  --threshold T        smallest change of the median that is named: 0.05 or 5%%\n"
            "                       (default 5%%)\n"
            "  --min-nights N       nights on each side of a change point (default 3)\n"
            "  -s, --suite LIST     only these suites (comma-separated)\n"
            "  --series             print every case's nightly values\n"
            "  --markdown FILE, --json FILE, --csv FILE   also write these ('-': stdout)\n"
            "  --fail-on-slower     exit 3 when a change point is a slowdown\n"
            "  -q, --quiet          no terminal output\n"
            "exit status: 0 done, 3 a slowdown with --fail-on-slower, 2 bad input or usage\n");
}

/* "0.05" or "5%" into a fraction in (0, 10]. */
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
    if (*end || !(v > 0.0) || v > 10.0)
        return false;
    *out = v;
    return true;
}

typedef int (*history_writer)(FILE *, const struct gb_history *);

static int write_to(const char *path, history_writer fn, const struct gb_history *h)
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gpubench history: cannot write %s: %s\n", path, strerror(errno));
        return GB_EXIT_USAGE;
    }
    int rc = fn(f, h);
    int closed = f == stdout ? fflush(f) : fclose(f);
    if (rc || closed) {
        fprintf(stderr, "gpubench history: cannot write %s: %s\n", path, strerror(errno));
        return GB_EXIT_USAGE;
    }
    return GB_EXIT_OK;
}

int gb_cmd_history(int argc, char **argv)
{
    enum { O_ALPHA = 256, O_THRESHOLD, O_MIN_NIGHTS, O_SERIES, O_MD, O_JSON, O_CSV, O_FAIL };
    static const struct option longopts[] = {
        {"alpha", required_argument, NULL, O_ALPHA},
        {"threshold", required_argument, NULL, O_THRESHOLD},
        {"min-nights", required_argument, NULL, O_MIN_NIGHTS},
        {"suite", required_argument, NULL, 's'},
        {"series", no_argument, NULL, O_SERIES},
        {"markdown", required_argument, NULL, O_MD},
        {"md", required_argument, NULL, O_MD},
        {"json", required_argument, NULL, O_JSON},
        {"csv", required_argument, NULL, O_CSV},
        {"fail-on-slower", no_argument, NULL, O_FAIL},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct gb_history_opts o;
    gb_history_opts_default(&o);
    const char *md = NULL, *json = NULL, *csv = NULL;
    bool series = false, quiet = false, fail = false;
    optind = 1;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "s:qh", longopts, NULL)) != -1) {
        switch (c) {
        case O_ALPHA:
            o.alpha = strtod(optarg, &end);
            if (end == optarg || *end || !(o.alpha > 0.0 && o.alpha < 1.0)) {
                fprintf(stderr,
                        "gpubench history: --alpha wants a probability in (0, 1), got "
                        "'%s'\n",
                        optarg);
                return GB_EXIT_USAGE;
            }
            break;
        case O_THRESHOLD:
            if (!parse_fraction(optarg, &o.threshold)) {
                fprintf(stderr,
                        "gpubench history: --threshold wants a relative change such as 0.05 or "
                        "5%%, got '%s'\n",
                        optarg);
                return GB_EXIT_USAGE;
            }
            break;
        case O_MIN_NIGHTS: {
            long v = strtol(optarg, &end, 10);
            if (end == optarg || *end || v < 1 || v > 1000) {
                fprintf(stderr, "gpubench history: --min-nights wants 1..1000, got '%s'\n", optarg);
                return GB_EXIT_USAGE;
            }
            o.min_nights = (size_t)v;
            break;
        }
        case 's':
            o.suites = optarg;
            break;
        case O_SERIES:
            series = true;
            break;
        case O_MD:
            md = optarg;
            break;
        case O_JSON:
            json = optarg;
            break;
        case O_CSV:
            csv = optarg;
            break;
        case O_FAIL:
            fail = true;
            break;
        case 'q':
            quiet = true;
            break;
        case 'h':
            history_usage(stdout);
            return GB_EXIT_OK;
        default:
            history_usage(stderr);
            return GB_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "gpubench history: expects results files or a folder of them\n");
        history_usage(stderr);
        return GB_EXIT_USAGE;
    }
    struct gb_inputs in;
    gb_error_clear();
    if (gb_inputs_expand((const char *const *)argv + optind, (size_t)(argc - optind), &in)) {
        fprintf(stderr, "gpubench history: %s\n", gb_error_msg());
        return GB_EXIT_USAGE;
    }
    struct gb_history h;
    gb_history_init(&h, &o);
    int rc = GB_EXIT_OK;
    for (size_t i = 0; i < in.n; i++) {
        gb_error_clear();
        if (gb_history_add_file(&h, in.paths[i])) {
            fprintf(stderr, "gpubench history: %s\n", gb_error_msg());
            rc = GB_EXIT_USAGE;
            goto out;
        }
    }
    gb_error_clear();
    if (gb_history_finish(&h)) {
        fprintf(stderr, "gpubench history: %s\n", gb_error_msg());
        rc = GB_EXIT_USAGE;
        goto out;
    }
    if (!quiet && gb_history_write_text(stdout, &h, series))
        rc = GB_EXIT_USAGE;
    if (!rc && md)
        rc = write_to(md, gb_history_write_markdown, &h);
    if (!rc && json)
        rc = write_to(json, gb_history_write_json, &h);
    if (!rc && csv)
        rc = write_to(csv, gb_history_write_csv, &h);
    if (!rc && fail && h.slower)
        rc = GB_EXIT_REGRESSION;
out:
    gb_history_free(&h);
    gb_inputs_free(&in);
    return rc;
}
