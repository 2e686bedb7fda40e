/* gpubench — telemetry: reading sysfs files, under $GPUBENCH_SYSFS_ROOT when set (contract in
 * telemetry_private.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/telemetry_private.h"

const char *gb__tel_sysfs_root(void)
{
    const char *r = getenv("GPUBENCH_SYSFS_ROOT");
    return r && *r ? r : "/sys";
}

void gb__tel_pathf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

bool gb__tel_read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (ok)
        buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

bool gb__tel_read_u64(const char *path, uint64_t *v)
{
    char buf[64], *end;
    if (!gb__tel_read_line(path, buf, sizeof buf))
        return false;
    /* Digits only: strtoull would take "-2400000" for 2^64 - 2400000. */
    const char *p = buf + strspn(buf, " \t");
    if (*p < '0' || *p > '9')
        return false;
    errno = 0;
    unsigned long long x = strtoull(p, &end, 10);
    if (errno || end == p || end[strspn(end, " \t\r")] != '\0')
        return false;
    *v = x;
    return true;
}
