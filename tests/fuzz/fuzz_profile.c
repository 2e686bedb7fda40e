/* libFuzzer target: a profile's text through the loader and plan expansion (as `validate` does:
 * one notional device). Built with -Dfuzz=true (clang); run by scripts/fuzz.sh. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "suites/suites.h"
#include "run/config.h"
#include "run/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct gb_profile p;
    char err[1024];
    if (gb_profile_load_string(gb_suites_builtin(), text, "fuzz.yaml", NULL, 0, &p, err,
                               sizeof err) == 0) {
        struct gb_plan_device one = {0};
        struct gb_plan plan = {.devices = &one, .ndevices = 1};
        (void)gb_plan_expand(&p, NULL, &plan);
        free(plan.cases);
        gb_profile_free(&p);
    }
    free(text);
    return 0;
}
