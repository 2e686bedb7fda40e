#include "run/kernels.h"

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

int gb_kernel_source(const char *name, char **out)
{
    const char *prelude = gb_kernel_text("prelude.h");
    const char *text = gb_kernel_text(name);
    if (!prelude || !text)
        return GB_FAIL(GB_EINVAL, "no embedded kernel file '%s'", name);
    size_t len = strlen(prelude) + strlen(text) + strlen(name) + 32;
    char *s = malloc(len);
    if (!s)
        return GB_FAIL(GB_ENOMEM, "kernel source of %zu bytes", len);
    snprintf(s, len, "%s\n#line 1 \"%s\"\n%s", prelude, name, text);
    *out = s;
    return 0;
}
