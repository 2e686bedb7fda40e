/* libFuzzer target: a results file through the reader (gb_results_read), then the baseline name
 * and a comparison of the file with itself, as `compare` and `baseline` would. Built with
 * -Dfuzz=true (clang); run by scripts/fuzz.sh. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analyses/baseline.h"
#include "outputs/compare_out.h"
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
    struct gb_results rs;
    int rc = gb_results_read(path, &rs);
    unlink(path);
    if (rc == 0) {
        char name[512];
        gb_baseline_name(&rs, name, sizeof name);
        struct gb_compare_opts o;
        gb_compare_opts_default(&o);
        struct gb_comparison c;
        if (gb_compare_results(&rs, "a", &rs, "b", &o, &c) == 0) {
            FILE *null = fopen("/dev/null", "w");
            if (null) {
                gb_compare_write_text(null, &c, false);
                gb_compare_write_markdown(null, &c);
                gb_compare_write_json(null, &c);
                gb_compare_write_junit(null, &c);
                fclose(null);
            }
            gb_comparison_free(&c);
        }
        gb_results_free(&rs);
    }
    return 0;
}
