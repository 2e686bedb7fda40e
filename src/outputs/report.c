/* gpubench — the report (contract in report.h): the pipeline of model.h, from results files to
 * index.html and report.md. */
#include "outputs/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "base/util.h"
#include "analyses/report_model.h"

int gb_report_write(const struct gb_results *files, const char *const *paths, size_t n,
                    const struct gb_report_opts *o, struct gb_report_summary *sum)
{
    if (n == 0 || !o || !o->dir)
        return GB_FAIL(GB_EINVAL, "gb_report_write: no results files or no folder");
    memset(sum, 0, sizeof *sum);
    struct rep R = {.files = files, .paths = paths, .nfiles = n, .o = o, .prices = o->prices};
    const char *subs[] = {"", "/data", "/plots", "/charts"};
    for (size_t i = 0; i < 4; i++) {
        char p[GB_PATH_JOIN];
        snprintf(p, sizeof p, "%s%s", o->dir, subs[i]);
        if (gb_mkdir_p(p, 0777) != 0)
            return gb_error_set(GB_EIO, NULL, 0, "cannot create %s: %s", p, strerror(errno));
        /* The report's own subfolders are folders of its own: one that is a symbolic link
         * would write data/, plots/ or charts/ files where it points (onto an input). */
        struct stat lst;
        if (i && lstat(p, &lst) == 0 && S_ISLNK(lst.st_mode))
            return gb_error_set(GB_EINVAL, NULL, 0,
                                "cannot write %s: it is a symbolic link, and the report writes a "
                                "folder of its own there (give -o a folder without one)",
                                p);
    }
    int rc = gb__build_points(&R);
    if (rc)
        return rc;
    gb__draw_charts(&R);
    gb__chart_hints(&R, gb__chart_registered);
    /* A chart without data is not drawn: the pages list it once, with why. */
    for (size_t i = 0; i < R.nch && !R.err; i++)
        if (!R.ch[i].nodata[0])
            gb__run_gnuplot(&R, &R.ch[i]);
    gb__write_pages(&R, o->title ? o->title : "gpubench report");
    sum->charts = R.nch;
    sum->series = R.nser;
    for (size_t i = 0; i < R.nch; i++) {
        sum->charts_with_data += !R.ch[i].nodata[0];
        sum->charts_failed += R.ch[i].failed;
    }
    rc = R.err;
    free(R.ch);
    free(R.pts);
    return rc;
}
