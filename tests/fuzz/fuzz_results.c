/* libFuzzer target: a results file through the reader (gb_results_read, and its headline read
 * checked against it), then the baseline name
 * and a comparison of the file with itself, as `compare` and `baseline` would. Built with
 * -Dfuzz=true (clang); run by scripts/fuzz.sh. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/baseline.h"
#include "outputs/compare_out.h"
#include "outputs/layout.h"
#include "outputs/writer.h"
#include "results/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/gb-fuzz-results-%ld.json", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    struct gb_results rs, head;
    int rc = gb_results_read(path, &rs);
    /* The headline read (fleet's) of a file the full read accepts accepts it too, with the same
     * results and headlines: it reads a part of the same tree. */
    int hrc = gb_results_read_opts(path, GB_READ_HEADLINES, &head);
    unlink(path);
    if (rc == 0) {
        if (hrc != 0 || head.nresults != rs.nresults)
            abort();
        for (size_t i = 0; i < rs.nresults; i++)
            if (head.results[i].status != rs.results[i].status ||
                strcmp(head.results[i].suite, rs.results[i].suite) != 0 ||
                !(head.results[i].value == rs.results[i].value ||
                  (isnan(head.results[i].value) && isnan(rs.results[i].value))))
                abort();
    }
    if (hrc == 0)
        gb_results_free(&head);
    if (rc == 0) {
        char name[512];
        gb_baseline_name(&rs, name, sizeof name);
        struct gb_compare_opts o;
        gb_compare_opts_default(&o);
        struct gb_comparison c;
        if (gb_compare_results(&rs, "a", &rs, "b", &o, &c) == 0) {
            FILE *null = fopen("/dev/null", "w");
            if (null) {
                struct gb_doc d;
                if (gb_compare_doc(&c, false, &d) == 0) {
                    gb_write_doc(null, "text", &d);
                    gb_write_doc(null, "markdown", &d);
                    gb_write_doc(null, "junit", &d);
                    gb_write_layout(null, &d);
                }
                gb_doc_free(&d);
                fclose(null);
            }
            gb_comparison_free(&c);
        }
        gb_results_free(&rs);
    }
    return 0;
}
