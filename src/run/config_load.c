/* gpubench — profiles: the entry points (contract in config.h). Reads the text, walks it with the
 * top-level parser (config.c), applies the --set overrides (config_set.c) and resolves each
 * entry's measurement settings. */
#include "run/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "base/error.h"
#include "base/util.h"
#include "run/config_private.h"

/* The largest profile file read. */
#define PROFILE_MAX_BYTES (16u << 20)

static void sha256_hex(const void *data, size_t len, char hex[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    hex[0] = '\0';
    if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
        return;
    for (unsigned i = 0; i < mdlen; i++)
        sprintf(hex + 2 * i, "%02x", md[i]);
}

/* The base name of path without a .yaml / .yml extension. */
static void default_name(const char *path, char *out, size_t len)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 5 && strcmp(b + n - 5, ".yaml") == 0)
        n -= 5;
    else if (n > 4 && strcmp(b + n - 4, ".yml") == 0)
        n -= 4;
    snprintf(out, len, "%.*s", (int)n, b);
}

static int load_text(const struct gb_suite_table *suites, const char *text, size_t len,
                     const char *name, const struct gb_override *sets, size_t nsets,
                     struct gb_profile *out, char *err, size_t errlen)
{
    struct gb__ld l = {.src = name, .err = err, .errlen = errlen, .p = out};
    memset(out, 0, sizeof *out);
    out->suites = suites;
    if (err && errlen)
        err[0] = '\0';
    snprintf(out->path, sizeof out->path, "%s", name);
    out->telemetry = gb_tel_defaults;
    sha256_hex(text, len, out->sha256);

    yaml_document_t doc;
    int rc = gb__load_doc(&l, text, len, &doc);
    if (rc)
        goto out;
    l.doc = &doc;
    rc = gb__parse_root(&l, yaml_document_get_root_node(&doc));
    yaml_document_delete(&doc);
    l.doc = NULL;
    for (size_t i = 0; !rc && i < nsets; i++)
        rc = gb__apply_override(&l, &sets[i]);
    l.src = name;
    for (size_t i = 0; !rc && i < out->nruns; i++)
        rc = gb__resolve_measure(&l, &out->runs[i], &l.runm[i]);
    for (size_t i = 0; !rc && i < out->nruns; i++)
        out->runs[i].telemetry = out->telemetry;
    for (size_t i = 0; !rc && i < out->nruns && out->tuning_cache[0]; i++)
        if (!(out->runs[i].tuning_cache = strdup(out->tuning_cache)))
            rc = gb__fail(&l, NULL, "out of memory");
    if (!rc) {
        out->measure = gb_measure_defaults;
        gb__mlayer_apply(&out->measure, &l.top);
        if (!out->name[0])
            default_name(name, out->name, sizeof out->name);
    }
out:
    free(l.runm);
    for (size_t i = 0; i < l.nsrcs; i++)
        free(l.srcs[i]);
    free(l.srcs);
    if (!rc)
        return 0;
    gb_profile_free(out);
    if (err && errlen)
        gb_error_set(GB_ECONFIG, NULL, 0, "%s", err);
    return GB_ECONFIG;
}

int gb_profile_load_string(const struct gb_suite_table *suites, const char *text, const char *name,
                           const struct gb_override *sets, size_t nsets, struct gb_profile *out,
                           char *err, size_t errlen)
{
    return load_text(suites, text ? text : "", text ? strlen(text) : 0, name ? name : "<profile>",
                     sets, nsets, out, err, errlen);
}

int gb_profile_load(const struct gb_suite_table *suites, const char *path,
                    const struct gb_override *sets, size_t nsets, struct gb_profile *out, char *err,
                    size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int saved = 0;
    if (!f) {
        saved = errno;
        goto io_fail;
    }
    for (;;) {
        if (len == cap) {
            if (cap >= PROFILE_MAX_BYTES) {
                fclose(f);
                free(buf);
                snprintf(err, errlen, "%s:1:1: the profile is larger than %u bytes", path,
                         PROFILE_MAX_BYTES);
                gb_error_set(GB_ECONFIG, NULL, 0, "%s", err);
                return GB_ECONFIG;
            }
            cap = cap ? 2 * cap : 8192;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                saved = ENOMEM;
                fclose(f);
                goto io_fail;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                saved = errno ? errno : EIO;
                fclose(f);
                goto io_fail;
            }
            break;
        }
    }
    fclose(f);
    buf[len] = '\0';
    int rc = load_text(suites, buf, len, path, sets, nsets, out, err, errlen);
    free(buf);
    return rc;
io_fail:
    free(buf);
    if (err && errlen)
        snprintf(err, errlen, "%s: cannot read the profile: %s", path, strerror(saved));
    gb_error_set(GB_EIO, NULL, 0, "%s: cannot read the profile: %s", path, strerror(saved));
    return GB_EIO;
}
