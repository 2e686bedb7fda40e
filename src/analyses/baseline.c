/* gpubench — baselines: the file name and the atomic copy (contract in baseline.h). */
#include "analyses/baseline.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
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
        /* A device is known by its name and stable identity (gb_device_identity), so that two
         * devices of one name have a baseline each. */
        char id[64], other[64];
        enum gb_id_kind kind = gb_device_identity(&rs->devices[d], id, sizeof id);
        if (kind == GB_ID_UUID)
            id[8] = '\0'; /* its first 8 hex digits tell devices apart */
        bool seen = false;
        for (size_t e = 0; e < d; e++) {
            enum gb_id_kind k2 = gb_device_identity(&rs->devices[e], other, sizeof other);
            if (k2 == GB_ID_UUID)
                other[8] = '\0';
            seen |= strcmp(rs->devices[e].info.name, rs->devices[d].info.name) == 0 &&
                    strcmp(id, other) == 0;
        }
        if (seen)
            continue;
        if (any)
            gb_appendf(slug, sizeof slug, "+");
        /* A device name adds at most 80 characters, so several still fit in a file name. */
        char one[128] = "";
        slug_append(one, 80, rs->devices[d].info.name);
        gb_appendf(one, sizeof one, "-");
        slug_append(one, sizeof one - 16, id);
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

/* ---- nights -------------------------------------------------------------------------------- */

struct night_file {
    char *path;
    char start[32]; /* the run's start_utc; "" when it cannot be read */
};

static int by_start(const void *a, const void *b)
{
    const struct night_file *x = a, *y = b;
    int c = strcmp(x->start, y->start);
    return c ? c : strcmp(x->path, y->path);
}

/* The *.json files of <folder>/nights into *files (paths malloc'd), unsorted. A missing folder
 * is no file. */
static int list_nights(const char *folder, struct night_file **files, size_t *n)
{
    *files = NULL;
    *n = 0;
    char dir[GB_PATH_JOIN];
    snprintf(dir, sizeof dir, "%s/nights", folder);
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0
                               : GB_USER_FAIL(GB_EIO, "cannot read %s: %s", dir, strerror(errno));
    size_t cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l < 6 || strcmp(e->d_name + l - 5, ".json") != 0)
            continue;
        struct night_file *g = gb_grow(*files, &cap, *n + 1, sizeof *g);
        char *p = malloc(strlen(dir) + l + 2);
        if (!g || !p) {
            if (g)
                *files = g;
            free(p);
            rc = GB_FAIL(GB_ENOMEM, "the nights of %s", folder);
            break;
        }
        *files = g;
        sprintf(p, "%s/%s", dir, e->d_name);
        (*files)[(*n)++] = (struct night_file){.path = p};
    }
    closedir(d);
    return rc;
}

static void free_files(struct night_file *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(f[i].path);
    free(f);
}

void gb_nights_free(struct gb_nights *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n; i++) {
        gb_results_free(&n->runs[i]);
        free(n->paths[i]);
    }
    free(n->runs);
    free(n->paths);
    memset(n, 0, sizeof *n);
}

int gb_baseline_read_nights(const char *folder, struct gb_nights *out)
{
    memset(out, 0, sizeof *out);
    struct night_file *f;
    size_t n;
    int rc = list_nights(folder, &f, &n);
    if (rc || n == 0) {
        free_files(f, n);
        return rc;
    }
    struct gb_results *runs = calloc(n, sizeof *runs);
    if (!runs) {
        free_files(f, n);
        return GB_FAIL(GB_ENOMEM, "%zu nights", n);
    }
    for (size_t i = 0; i < n; i++) {
        if ((rc = gb_results_read(f[i].path, &runs[i])) != 0) {
            for (size_t k = 0; k < i; k++)
                gb_results_free(&runs[k]);
            free(runs);
            free_files(f, n);
            return rc;
        }
        snprintf(f[i].start, sizeof f[i].start, "%s", runs[i].run.start_utc);
    }
    /* Sort the files, then put each run where its file went. */
    struct {
        struct night_file f;
        size_t run;
    } *order = calloc(n, sizeof *order);
    out->runs = calloc(n, sizeof *out->runs);
    out->paths = calloc(n, sizeof *out->paths);
    if (!order || !out->runs || !out->paths) {
        for (size_t k = 0; k < n; k++)
            gb_results_free(&runs[k]);
        free(runs);
        free(order);
        free_files(f, n);
        free(out->runs);
        free(out->paths);
        memset(out, 0, sizeof *out);
        return GB_FAIL(GB_ENOMEM, "%zu nights", n);
    }
    for (size_t i = 0; i < n; i++) {
        order[i].f = f[i];
        order[i].run = i;
    }
    /* by_start compares the leading struct night_file of each element. */
    qsort(order, n, sizeof *order, by_start);
    for (size_t i = 0; i < n; i++) {
        out->runs[i] = runs[order[i].run];
        out->paths[i] = order[i].f.path;
    }
    out->n = n;
    free(order);
    free(runs);
    free(f); /* the paths now belong to out */
    return 0;
}

/* Removes every file of <folder>/nights. */
static int remove_nights(const char *folder)
{
    struct night_file *f;
    size_t n;
    int rc = list_nights(folder, &f, &n);
    for (size_t i = 0; !rc && i < n; i++)
        if (unlink(f[i].path) != 0)
            rc = GB_USER_FAIL(GB_EIO, "cannot remove %s: %s", f[i].path, strerror(errno));
    free_files(f, n);
    return rc;
}

/* Whether a and b hold the same measurements: every result's status and value alike. With
 * gb_run_same, a copy of one run; two runs that started in the same second (a start time has
 * whole seconds) differ here. */
static bool same_values(const struct gb_results *a, const struct gb_results *b)
{
    if (a->nresults != b->nresults)
        return false;
    for (size_t i = 0; i < a->nresults; i++)
        if (a->results[i].status != b->results[i].status ||
            memcmp(&a->results[i].value, &b->results[i].value, sizeof a->results[i].value) != 0)
            return false;
    return true;
}

int gb_baseline_add_night(const char *folder, const char *file, size_t keep, bool restart,
                          size_t *kept)
{
    char dir[GB_PATH_JOIN], dst[2 * GB_PATH_JOIN];
    snprintf(dir, sizeof dir, "%s/nights", folder);
    if (gb_mkdir_p(dir, 0777) != 0)
        return GB_USER_FAIL(GB_EIO, "cannot create %s: %s", dir, strerror(errno));
    int rc;
    if (restart && (rc = remove_nights(folder)) != 0)
        return rc;
    /* One run is one night: a copy of a night already kept (the same host, start time,
     * profile and measurements), or a night's own file, is not added again. */
    struct gb_results in;
    struct night_file *f;
    size_t n;
    if (!restart && gb_results_read(file, &in) == 0) {
        if ((rc = list_nights(folder, &f, &n)) != 0) {
            gb_results_free(&in);
            return rc;
        }
        for (size_t i = 0; i < n && !rc; i++) {
            struct gb_results rs;
            if (gb_results_read(f[i].path, &rs) != 0)
                continue;
            if (gb_run_same(&in.run, &rs.run) && same_values(&in, &rs))
                rc = GB_USER_FAIL(GB_EINVAL,
                                  "%s is the run of the night %s already (the same host, start "
                                  "time, profile and figures): not added again",
                                  file, f[i].path);
            gb_results_free(&rs);
        }
        free_files(f, n);
        gb_results_free(&in);
        if (rc)
            return rc;
    }
    gb_error_clear();
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    snprintf(dst, sizeof dst, "%s/%s", dir, base);
    if ((rc = gb_baseline_copy(file, dst)) != 0)
        return rc;
    if ((rc = list_nights(folder, &f, &n)) != 0)
        return rc;
    for (size_t i = 0; i < n; i++) {
        struct gb_results rs;
        if (gb_results_read(f[i].path, &rs) == 0) {
            snprintf(f[i].start, sizeof f[i].start, "%s", rs.run.start_utc);
            gb_results_free(&rs);
        }
    }
    gb_error_clear();
    qsort(f, n, sizeof *f, by_start);
    size_t gone = 0;
    for (size_t i = 0; keep >= 1 && i + keep < n; i++, gone++)
        if (unlink(f[i].path) != 0) {
            rc = GB_USER_FAIL(GB_EIO, "cannot remove %s: %s", f[i].path, strerror(errno));
            break;
        }
    free_files(f, n);
    if (kept)
        *kept = n - gone;
    return rc;
}
