#include "base/error.h"

#include <stdio.h>
#include <string.h>

static _Thread_local char gb__errmsg[8192];

const char *gb_strerror(int err)
{
    switch (err) {
    case GB_OK:
        return "success";
#define GB__ERR_STR(name, val, text) \
    case GB_##name:                  \
        return text;
        GB_ERRNO_MAP(GB__ERR_STR)
#undef GB__ERR_STR
    }
    return "unknown error";
}

const char *gb_err_name(int err)
{
    switch (err) {
    case GB_OK:
        return "OK";
#define GB__ERR_NAME(name, val, text) \
    case GB_##name:                   \
        return #name;
        GB_ERRNO_MAP(GB__ERR_NAME)
#undef GB__ERR_NAME
    }
    return "EUNKNOWN";
}

int gb_error_set(int err, const char *file, int line, const char *fmt, ...)
{
    size_t n = 0;
    if (file) {
        const char *base = strrchr(file, '/');
        int w = snprintf(gb__errmsg, sizeof gb__errmsg, "%s:%d: ", base ? base + 1 : file, line);
        n = w > 0 ? (size_t)w : 0;
        if (n >= sizeof gb__errmsg)
            n = sizeof gb__errmsg - 1;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(gb__errmsg + n, sizeof gb__errmsg - n, fmt, ap);
    va_end(ap);
    return err;
}

int gb_error_append(int err, const char *fmt, ...)
{
    size_t n = strlen(gb__errmsg);
    if (n > 0 && n + 2 < sizeof gb__errmsg) {
        memcpy(gb__errmsg + n, "; ", 3);
        n += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(gb__errmsg + n, sizeof gb__errmsg - n, fmt, ap);
    va_end(ap);
    return err;
}

const char *gb_error_msg(void)
{
    return gb__errmsg;
}

void gb_error_clear(void)
{
    gb__errmsg[0] = '\0';
}
