/* gpubench — results in memory (contract in results.h); their JSON form is written by
 * results_write.c and read by results_read.c. */
#include "results/results.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "base/error.h"
#include "base/util.h"
#include "backends/precision.h"
#include "results/results_json.h"
#include "backends/telemetry.h"

const struct gb__cap gb__caps[] = {
    {GB_CAP_FP64, "fp64"},
    {GB_CAP_FP16, "fp16"},
    {GB_CAP_BF16, "bf16"},
    {GB_CAP_INT8_DOT, "int8_dot"},
    {GB_CAP_PEER, "peer"},
    {GB_CAP_UNIFIED, "unified"},
    {GB_CAP_BLAS_F32, "blas_f32"},
    {GB_CAP_BLAS_F64, "blas_f64"},
    {GB_CAP_BLAS_F16, "blas_f16"},
    {GB_CAP_BLAS_BF16, "blas_bf16"},
    {GB_CAP_BLAS_MIXED, "blas_mixed"},
    {GB_CAP_BLAS_TF32, "blas_tf32"},
    {GB_CAP_GRAPH, "graph"},
    {GB_CAP_BLAS_FP8, "blas_fp8"},
};
const size_t gb__ncaps = sizeof gb__caps / sizeof gb__caps[0];

#define INFO_FIELD(key, member, is_str, required)                          \
    {                                                                      \
        key, offsetof(struct gb_device_info, member),                      \
            sizeof(((struct gb_device_info *)0)->member), is_str, required \
    }
const struct gb__info_field gb__info_fields[] = {
    INFO_FIELD("name", name, true, true),
    INFO_FIELD("vendor", vendor, true, false),
    INFO_FIELD("driver", driver, true, false),
    INFO_FIELD("version", version, true, false),
    INFO_FIELD("platform", platform, true, false),
    INFO_FIELD("arch", arch, true, false),
    INFO_FIELD("uuid", uuid, true, false),
    INFO_FIELD("pci_bus_id", pci_bus_id, true, false),
    INFO_FIELD("global_mem_bytes", global_mem, false, false),
    INFO_FIELD("max_alloc_bytes", max_alloc, false, false),
    INFO_FIELD("local_mem_bytes", local_mem, false, false),
    INFO_FIELD("l2_bytes", l2_bytes, false, false),
    INFO_FIELD("compute_units", compute_units, false, false),
    INFO_FIELD("clock_mhz", clock_mhz, false, false),
    INFO_FIELD("clock_source", clock_source, true, false),
    INFO_FIELD("mem_clock_mhz", mem_clock_mhz, false, false),
    INFO_FIELD("mem_bus_bits", mem_bus_bits, false, false),
    INFO_FIELD("max_work_group_size", max_wg_size, false, false),
    INFO_FIELD("max_loop_trips", max_loop_trips, false, false),
    INFO_FIELD("pci_bus_id", pci_bus_id, true, false),
};
const size_t gb__ninfo_fields = sizeof gb__info_fields / sizeof gb__info_fields[0];

const struct gb__stat_field gb__stat_fields[] = {
    {"min", offsetof(struct gb_stats, min)},       {"max", offsetof(struct gb_stats, max)},
    {"mean", offsetof(struct gb_stats, mean)},     {"median", offsetof(struct gb_stats, median)},
    {"stddev", offsetof(struct gb_stats, stddev)}, {"cv", offsetof(struct gb_stats, cv)},
    {"p5", offsetof(struct gb_stats, p5)},         {"p95", offsetof(struct gb_stats, p95)},
    {"ci95", offsetof(struct gb_stats, ci95)},
};
const size_t gb__nstat_fields = sizeof gb__stat_fields / sizeof gb__stat_fields[0];

const char *gb_cap_name(uint64_t bit)
{
    for (size_t i = 0; i < sizeof gb__caps / sizeof gb__caps[0]; i++)
        if (gb__caps[i].bit == bit)
            return gb__caps[i].name;
    return NULL;
}

char *gb_caps_text(uint64_t caps, char *buf, size_t len)
{
    buf[0] = '\0';
    for (unsigned b = 0; b < 64; b++) {
        const char *name = caps >> b & 1 ? gb_cap_name(UINT64_C(1) << b) : NULL;
        if (name)
            gb_appendf(buf, len, "%s%s", buf[0] ? "," : "", name);
    }
    return buf;
}

const char *gb_status_name(enum gb_status s)
{
    switch (s) {
    case GB_STATUS_OK:
        return "ok";
    case GB_STATUS_SKIPPED:
        return "skipped";
    case GB_STATUS_FAILED:
        return "failed";
    }
    return "unknown";
}

/* ---- the in-memory set ---------------------------------------------------------------------- */

/* Every result in rs->results keeps its param names in its own names_store (gb_results_add copies
 * them there), so after the array moves the pointers are simply re-aimed. */
static void rebase_names(struct gb_result *r)
{
    for (size_t j = 0; j < r->params.n && j < GB_MAX_AXES; j++)
        r->params.name[j] = r->names_store[j];
}

int gb_results_add(struct gb_results *rs, struct gb_result *r)
{
    if (!rs || !r)
        return GB_FAIL(GB_EINVAL, "gb_results_add: NULL argument");
    if (r->params.n > GB_MAX_AXES)
        return GB_FAIL(GB_EINVAL, "gb_results_add: %zu params (at most %d)", r->params.n,
                       GB_MAX_AXES);
    char names[GB_MAX_AXES][sizeof r->names_store[0]];
    for (size_t j = 0; j < r->params.n; j++) {
        const char *nm = r->params.name[j];
        if (!nm || strlen(nm) >= sizeof names[j])
            return GB_FAIL(GB_EINVAL, "gb_results_add: param name %zu is %s", j,
                           nm ? "too long" : "NULL");
        memcpy(names[j], nm, strlen(nm) + 1);
    }
    const size_t old_cap = rs->cap;
    struct gb_result *grown = gb_grow(rs->results, &rs->cap, rs->nresults + 1, sizeof *grown);
    if (!grown)
        return GB_FAIL(GB_ENOMEM, "gb_results_add: %zu results", rs->nresults + 1);
    rs->results = grown;
    if (rs->cap != old_cap) /* the array may have moved */
        for (size_t k = 0; k < rs->nresults; k++)
            rebase_names(&rs->results[k]);
    struct gb_result *d = &rs->results[rs->nresults];
    *d = *r;
    memcpy(d->names_store, names, r->params.n * sizeof names[0]);
    rebase_names(d);
    rs->nresults++;
    r->samples = NULL;
    r->tel.marks = NULL;
    return 0;
}

int gb_results_add_device(struct gb_results *rs, const char *backend, int index,
                          const struct gb_device_info *info, int *idx)
{
    if (!rs || !backend || !info)
        return GB_FAIL(GB_EINVAL, "gb_results_add_device: NULL argument");
    if (rs->ndevices >= (size_t)INT32_MAX)
        return GB_FAIL(GB_EOVERFLOW, "gb_results_add_device: too many devices");
    struct gb_result_device *grown = realloc(rs->devices, (rs->ndevices + 1) * sizeof *rs->devices);
    if (!grown)
        return GB_FAIL(GB_ENOMEM, "gb_results_add_device");
    rs->devices = grown;
    struct gb_result_device *d = &rs->devices[rs->ndevices];
    memset(d, 0, sizeof *d);
    snprintf(d->backend, sizeof d->backend, "%s", backend);
    d->index = index;
    d->info = *info;
    if (idx)
        *idx = (int)rs->ndevices;
    rs->ndevices++;
    return 0;
}

enum gb_id_kind gb_device_identity(const struct gb_result_device *d, char *buf, size_t len)
{
    if (d->info.uuid[0]) {
        snprintf(buf, len, "%s", d->info.uuid);
        return GB_ID_UUID;
    }
    if (d->info.pci_bus_id[0]) {
        snprintf(buf, len, "pci:%s", d->info.pci_bus_id);
        return GB_ID_PCI;
    }
    snprintf(buf, len, "%s:%d", d->backend, d->index);
    return GB_ID_INDEX;
}

const char *gb_id_kind_name(enum gb_id_kind k)
{
    return k == GB_ID_UUID ? "uuid" : k == GB_ID_PCI ? "pci" : "index";
}

void gb_results_free(struct gb_results *rs)
{
    if (!rs)
        return;
    for (size_t k = 0; k < rs->nresults; k++) {
        free(rs->results[k].samples);
        gb_tel_summary_free(&rs->results[k].tel);
    }
    free(rs->results);
    free(rs->devices);
    memset(rs, 0, sizeof *rs);
}

/* ---- one result ------------------------------------------------------------------------------ */

const struct gb_figure *gb_result_figure_get(const struct gb_result *r, const char *name)
{
    for (size_t i = 0; i < r->nfigures && i < GB_MAX_FIGURES; i++)
        if (strcmp(r->figures[i].name, name) == 0)
            return &r->figures[i];
    return NULL;
}

double gb_result_scalar(const struct gb_result *r, const char *name)
{
    const struct gb_figure *f = gb_result_figure_get(r, name);
    return f && f->n == 1 && isfinite(f->v[0]) ? f->v[0] : NAN;
}

size_t gb_result_case_param(const struct gb_result *r)
{
    const size_t n = r->params.n < GB_MAX_AXES ? r->params.n : GB_MAX_AXES;
    if (!r->case_name[0])
        return r->params.n;
    for (size_t j = 0; j < n; j++)
        if (r->params.v[j].type == GB_V_STR && strcmp(r->params.v[j].s, r->case_name) == 0)
            return j;
    return r->params.n;
}

void gb_result_other_params(const struct gb_result *r, struct gb_params *out)
{
    *out = r->params;
    const size_t k = gb_result_case_param(r);
    if (k < out->n) {
        out->n--;
        memmove(out->name + k, out->name + k + 1, (out->n - k) * sizeof out->name[0]);
        memmove(out->v + k, out->v + k + 1, (out->n - k) * sizeof out->v[0]);
    }
}

void gb_result_figure(struct gb_result *r, const char *name, const char *unit, double value)
{
    if (r->nfigures >= GB_MAX_FIGURES)
        return;
    struct gb_figure *f = &r->figures[r->nfigures++];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    snprintf(f->unit, sizeof f->unit, "%s", unit);
    f->n = 1;
    f->v[0] = value;
}

void gb_result_figure_bounded(struct gb_result *r, const char *name, const char *unit, double value,
                              double bound)
{
    const size_t n = r->nfigures;
    gb_result_figure(r, name, unit, value);
    if (r->nfigures > n)
        r->figures[n].bound = bound;
}

const char *gb_result_regime(double ws, uint64_t llc)
{
    if (!(ws > 0))
        return "";
    if (llc == 0)
        return "unknown";
    return ws > 2.0 * (double)llc ? "memory" : "cache";
}

void gb_result_text(struct gb_result *r, const char *name, const char *fmt, ...)
{
    if (r->nfigures >= GB_MAX_FIGURES)
        return;
    struct gb_figure *f = &r->figures[r->nfigures++];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text, sizeof f->text, fmt, ap);
    va_end(ap);
    gb_utf8_trim(f->text);
}

void gb_result_fail(struct gb_result *r, int err, const char *what)
{
    const char *msg = gb_error_msg();
    r->status = GB_STATUS_FAILED;
    snprintf(r->reason, sizeof r->reason, "%s: %s%s%s", what, gb_strerror(err), *msg ? ": " : "",
             msg);
}

/* ---- sha256 --------------------------------------------------------------------------------- */

int gb_sha256_file(const char *path, char hex[65])
{
    if (!path || !hex)
        return GB_FAIL(GB_EINVAL, "gb_sha256_file: NULL argument");
    hex[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return GB_USER_FAIL(GB_EIO, "cannot open %s: %s", path, strerror(errno));
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx) {
        fclose(f);
        return GB_FAIL(GB_ENOMEM, "EVP_MD_CTX_new");
    }
    int rc = 0;
    if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
        rc = GB_FAIL(GB_EIO, "EVP_DigestInit_ex(sha256) failed");
        goto out;
    }
    unsigned char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        if (EVP_DigestUpdate(ctx, buf, got) != 1) {
            rc = GB_FAIL(GB_EIO, "EVP_DigestUpdate failed");
            goto out;
        }
    }
    if (ferror(f)) {
        rc = GB_USER_FAIL(GB_EIO, "cannot read %s: %s", path, strerror(errno));
        goto out;
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen != 32) {
        rc = GB_FAIL(GB_EIO, "EVP_DigestFinal_ex failed");
        goto out;
    }
    for (unsigned int i = 0; i < mdlen; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
out:
    EVP_MD_CTX_free(ctx);
    fclose(f);
    return rc;
}

bool gb_run_same(const struct gb_run_meta *a, const struct gb_run_meta *b)
{
    return a->start_utc[0] && strcmp(a->start_utc, b->start_utc) == 0 &&
           strcmp(a->host, b->host) == 0 && strcmp(a->profile_sha256, b->profile_sha256) == 0 &&
           strcmp(a->profile_name, b->profile_name) == 0;
}
