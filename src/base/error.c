#include "base/error.h"

#include <stdio.h>
#include <string.h>

#include "base/util.h"

static _Thread_local char errmsg[8192];
static _Thread_local char errwhere[128];
static FILE *debug_log;

const char *gb_strerror(int err)
{
    switch (err) {
    case GB_OK:
        return "success";
#define ERR_STR(name, val, text) \
    case GB_##name:              \
        return text;
        GB_ERRNO_MAP(ERR_STR)
#undef ERR_STR
    }
    return "unknown error";
}

const char *gb_err_name(int err)
{
    switch (err) {
    case GB_OK:
        return "OK";
#define ERR_NAME(name, val, text) \
    case GB_##name:               \
        return #name;
        GB_ERRNO_MAP(ERR_NAME)
#undef ERR_NAME
    }
    return "EUNKNOWN";
}

int gb_error_set(int err, const char *file, int line, const char *fmt, ...)
{
    errwhere[0] = '\0';
    if (file) {
        const char *base = strrchr(file, '/');
        snprintf(errwhere, sizeof errwhere, "%s:%d", base ? base + 1 : file, line);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errmsg, sizeof errmsg, fmt, ap);
    va_end(ap);
    /* A message may quote a file's text (a device name, a reason): nothing in it may act on
     * the terminal it is printed to. */
    gb_term_clean(errmsg);
    if (debug_log && file)
        fprintf(debug_log, "gpubench: debug: %s: %s: %s\n", errwhere, gb_err_name(err), errmsg);
    return err;
}

const char *gb_error_where(void)
{
    return errwhere;
}

void gb_error_log_to(FILE *f)
{
    debug_log = f;
}

int gb_error_append(int err, const char *fmt, ...)
{
    size_t n = strlen(errmsg);
    if (n > 0 && n + 2 < sizeof errmsg) {
        memcpy(errmsg + n, "; ", 3);
        n += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errmsg + n, sizeof errmsg - n, fmt, ap);
    va_end(ap);
    gb_term_clean(errmsg + n);
    return err;
}

const char *gb_error_msg(void)
{
    return errmsg;
}

void gb_error_clear(void)
{
    errmsg[0] = '\0';
    errwhere[0] = '\0';
}
