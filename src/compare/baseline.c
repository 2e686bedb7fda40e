/* gpubench — baselines: the file name and the atomic copy (contract in baseline.h). */
#include "compare/baseline.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"

/* Appends s to buf lowercased, each run of characters other than [a-z0-9.] as one '-'. A '.' is
 * kept only right after a letter or digit ("2.40ghz"), so that no name starts with '.' or holds
 * ".." (a hostile host "../../x" becomes "x", not a hidden "..-..-x"). */
static void slug_append(char *buf, size_t len, const char *s)
{
    size_t l = strlen(buf);
    bool dash = l > 0 && buf[l - 1] == '-';
    for (; *s && l + 1 < len; s++) {
        unsigned char ch = (unsigned char)*s;
        if (isalnum(ch) || (ch == '.' && l > 0 && isalnum((unsigned char)buf[l - 1]))) {
            buf[l++] = (char)tolower(ch);
            dash = false;
        } else if (!dash && l > 0) {
            buf[l++] = '-';
            dash = true;
        }
    }
    while (l > 0 && buf[l - 1] == '-')
        l--;
    buf[l] = '\0';
}

void gb_baseline_name(const struct gb_results *rs, char *buf, size_t len)
{
    char slug[512] = "";
    slug_append(slug, 128, rs->run.host[0] ? rs->run.host : "host");
    gb_appendf(slug, sizeof slug, "-");
    bool any = false;
    for (size_t d = 0; d < rs->ndevices; d++) {
        bool seen = false;
        for (size_t e = 0; e < d; e++)
            seen |= strcmp(rs->devices[e].info.name, rs->devices[d].info.name) == 0;
        if (seen)
            continue;
        if (any)
            gb_appendf(slug, sizeof slug, "+");
        /* A device name adds at most 80 characters, so several still fit in a file name. */
        char one[96] = "";
        slug_append(one, sizeof one - 16, rs->devices[d].info.name);
        gb_appendf(slug, sizeof slug, "%s", one);
        any = true;
    }
    if (!any)
        gb_appendf(slug, sizeof slug, "nodevice");
    /* One baseline per profile: a nightly job running two profiles on one machine compares each
     * against its own. */
    if (rs->run.profile_name[0]) {
        char prof[80] = "";
        slug_append(prof, sizeof prof, rs->run.profile_name);
        gb_appendf(slug, sizeof slug, "-%s", prof);
    }
    snprintf(buf, len, "%.240s.json", slug);
}

int gb_baseline_copy(const char *src, const char *dst)
{
    /* A symbolic link at dst is written through (its target replaced), never replaced. */
    char dest[PATH_MAX], tmp[PATH_MAX + 32];
    if (!gb_output_resolve(dst, dest, sizeof dest))
        return GB_USER_FAIL(GB_EIO, "cannot write %s: %s", dst, strerror(errno));
    FILE *in = fopen(src, "rb");
    if (!in)
        return GB_USER_FAIL(GB_EIO, "cannot read %s: %s", src, strerror(errno));
    int fd = gb_tmp_create(dest, tmp, sizeof tmp);
    if (fd < 0) {
        int rc = GB_USER_FAIL(GB_EIO, "cannot write %s: %s", tmp, strerror(errno));
        fclose(in);
        return rc;
    }
    char buf[65536];
    size_t got;
    int rc = 0;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0) {
        for (size_t off = 0; off < got;) {
            ssize_t w = write(fd, buf + off, got - off);
            if (w < 0) {
                if (errno == EINTR)
                    continue;
                rc = -1;
                break;
            }
            off += (size_t)w;
        }
        if (rc)
            break;
    }
    if (ferror(in))
        rc = -1;
    if (!rc && fsync(fd) != 0)
        rc = -1;
    if (close(fd) != 0)
        rc = -1;
    fclose(in);
    if (!rc && rename(tmp, dest) != 0)
        rc = -1;
    if (rc) {
        rc = GB_USER_FAIL(GB_EIO, "cannot write %s: %s", dst, strerror(errno));
        unlink(tmp);
    }
    return rc;
}
