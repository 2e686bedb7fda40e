#include "run/kernels.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

const char *gb_kernel_text(const char *name)
{
    for (const struct gb_kernel_file *f = gb_kernel_files; f->name; f++)
        if (strcmp(f->name, name) == 0)
            return f->text;
    return NULL;
}

/* A backend's dialect prelude: an embedded "prelude_NAME.h". */
static bool is_dialect(const char *name)
{
    return strncmp(name, "prelude_", 8) == 0;
}

int gb_kernel_prelude(char **out)
{
    *out = NULL;
    const char *common = gb_kernel_text("prelude.h");
    if (!common)
        return GB_FAIL(GB_EINVAL, "no embedded kernel prelude");
    size_t len = strlen(common) + 2;
    for (const struct gb_kernel_file *f = gb_kernel_files; f->name; f++)
        if (is_dialect(f->name))
            len += strlen(f->text) + 1;
    char *s = malloc(len);
    if (!s)
        return GB_FAIL(GB_ENOMEM, "kernel prelude of %zu bytes", len);
    s[0] = '\0';
    for (const struct gb_kernel_file *f = gb_kernel_files; f->name; f++)
        if (is_dialect(f->name)) {
            strcat(s, f->text);
            strcat(s, "\n");
        }
    strcat(s, common);
    *out = s;
    return 0;
}

int gb_kernel_source(const char *name, char **out)
{
    *out = NULL;
    const char *text = gb_kernel_text(name);
    if (!text || is_dialect(name) || strcmp(name, "prelude.h") == 0)
        return GB_FAIL(GB_EINVAL, "no embedded kernel file '%s'", name);
    char *prelude;
    int rc = gb_kernel_prelude(&prelude);
    if (rc)
        return rc;
    size_t len = strlen(prelude) + strlen(text) + strlen(name) + 32;
    char *s = malloc(len);
    if (!s) {
        free(prelude);
        return GB_FAIL(GB_ENOMEM, "kernel source of %zu bytes", len);
    }
    snprintf(s, len, "%s\n#line 1 \"%s\"\n%s", prelude, name, text);
    free(prelude);
    *out = s;
    return 0;
}
