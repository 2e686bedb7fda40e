/* Shared code of the multi-device suites (multi_common.h): the per-device forms of the suite
 * helpers and the device-set conventions. The suites themselves are scaling.c, aggregate.c,
 * peer.c, peerbw.c, allreduce.c, collective.c, balance.c and parallel.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "run/footprint.h"
#include "suites/common.h"
#include "suites/multi_common.h"

int gb_multi_ndev(struct gb_case_ctx *ctx, size_t *n)
{
    int64_t want = gb_params_int(ctx->params, "ndev");
    if (want < 1)
        want = 1;
    if ((uint64_t)want > ctx->ndevs)
        return gb_case_skip(ctx, "needs %lld devices of one backend; %zu %s selected",
                            (long long)want, ctx->ndevs, ctx->ndevs == 1 ? "is" : "are");
    *n = (size_t)want;
    return 0;
}

int gb_multi_fits(struct gb_case_ctx *ctx, size_t rank, uint64_t bytes, uint64_t largest)
{
    const struct gb_device_info *info = &ctx->devs[rank]->info;
    if (info->max_alloc && largest > info->max_alloc)
        return gb_case_skip(ctx,
                            "a buffer of %llu bytes on device %zu of the set, whose largest "
                            "allocation is %llu",
                            (unsigned long long)largest, rank, (unsigned long long)info->max_alloc);
    if (info->global_mem && bytes > info->global_mem)
        return gb_case_skip(ctx,
                            "needs %llu bytes of memory on device %zu of the set, which has "
                            "%llu",
                            (unsigned long long)bytes, rank, (unsigned long long)info->global_mem);
    return 0;
}

int gb_multi_fits_host(struct gb_case_ctx *ctx, size_t n, double host, double per_rank)
{
    bool unified = false;
    for (size_t i = 0; i < n && i < ctx->ndevs; i++)
        if (ctx->devs[i]->info.caps & GB_CAP_UNIFIED) {
            host += per_rank;
            unified = true;
        }
    struct gb_host_memory hm;
    gb_host_memory(&hm);
    const double usable = GB_FOOTPRINT_HOST_SHARE * (double)hm.avail;
    if (!hm.avail || host <= usable)
        return 0;
    char need[32], avail[32], use[32];
    gb_format_bytes_human(host < 0x1p63 ? (uint64_t)host : UINT64_MAX, need, sizeof need);
    gb_format_bytes_human(hm.avail, avail, sizeof avail);
    gb_format_bytes_human((uint64_t)usable, use, sizeof use);
    return gb_case_skip(ctx,
                        "%zu ranks need %s of host memory%s: the host has %s available (%s), of "
                        "which a case may use %s (%.0f%%)",
                        n, need, unified ? " (their devices' memory is the host's)" : "", avail,
                        hm.what, use, GB_FOOTPRINT_HOST_SHARE * 100);
}

/* The single-device helpers work on ctx->dev and ctx->q: point them at device `rank` for the
 * call. */
#define GB__ON_RANK(ctx, rank, call)            \
    do {                                        \
        struct gb_device *gb__dev = (ctx)->dev; \
        struct gb_queue *gb__q = (ctx)->q;      \
        (ctx)->dev = (ctx)->devs[rank];         \
        (ctx)->q = (ctx)->queues[rank];         \
        err = (call);                           \
        (ctx)->dev = gb__dev;                   \
        (ctx)->q = gb__q;                       \
    } while (0)

int gb_multi_alloc(struct gb_case_ctx *ctx, size_t rank, uint64_t bytes, enum gb_mem_kind kind,
                   struct gb_buf **out)
{
    int err;
    GB__ON_RANK(ctx, rank, gb_case_alloc(ctx, bytes, kind, out));
    return err;
}

int gb_multi_upload(struct gb_case_ctx *ctx, size_t rank, struct gb_buf *dst, const void *src,
                    uint64_t bytes)
{
    int err;
    GB__ON_RANK(ctx, rank, gb_case_upload(ctx, dst, src, bytes));
    return err;
}

int gb_multi_download(struct gb_case_ctx *ctx, size_t rank, void *dst, struct gb_buf *src,
                      uint64_t bytes)
{
    int err;
    GB__ON_RANK(ctx, rank, gb_case_download(ctx, dst, src, bytes));
    return err;
}

int gb_multi_poison(struct gb_case_ctx *ctx, size_t rank, struct gb_buf *b, uint64_t bytes,
                    enum gb_dtype t)
{
    int err;
    GB__ON_RANK(ctx, rank, gb_case_poison(ctx, b, bytes, t));
    return err;
}

int gb_multi_build(struct gb_case_ctx *ctx, size_t rank, const char *file, const char *kernel,
                   const char *const *defines, size_t ndefines, struct gb_program **prog,
                   struct gb_kernel **k)
{
    int err;
    GB__ON_RANK(ctx, rank, gb_case_build(ctx, file, kernel, defines, ndefines, prog, k));
    return err;
}

bool gb_multi_all_have(const struct gb_case_ctx *ctx, size_t n, uint64_t caps)
{
    for (size_t i = 0; i < n; i++)
        if ((ctx->devs[i]->info.caps & caps) != caps)
            return false;
    return true;
}

void gb_multi_part(uint64_t total, size_t n, size_t i, uint64_t *lo, uint64_t *hi)
{
    /* total * i / n without overflowing for any total below 2^63 / GB_MAX_SET. */
    *lo = total / n * i + total % n * i / n;
    *hi = total / n * (i + 1) + total % n * (i + 1) / n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gb_multi_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bool gb_multi_overlap(double compute_s, double comm_s, double step_s, double *overlap,
                      double *overhead, char *why, size_t len)
{
    const double serial = compute_s + comm_s, shorter = compute_s < comm_s ? compute_s : comm_s,
                 longer = compute_s < comm_s ? comm_s : compute_s;
    *overhead = step_s > serial ? step_s - serial : 0;
    *overlap = NAN;
    if (why && len)
        why[0] = '\0';
    if (!(shorter > 0) || !(step_s > 0))
        return false;
    const double share = (serial - step_s) / shorter;
    if (share >= -GB_MULTI_OVERLAP_SLACK && share <= 1 + GB_MULTI_OVERLAP_SLACK) {
        *overlap = share;
        return true;
    }
    if (why && len && share < 0)
        snprintf(why, len, "step > compute + comm by %.3g ms: overhead, not overlap",
                 1e3 * (step_s - serial));
    else if (why && len)
        snprintf(why, len, "step < the longer part by %.3g ms: noise, not overlap",
                 1e3 * (longer - step_s));
    return false;
}

bool gb_multi_peer_direct(const struct gb_case_ctx *ctx, struct gb_device *dst,
                          struct gb_device *src)
{
    const struct gb_backend_ops *ops = ctx->ops;
    if (!ops->peer_copy || !ops->peer_can_access || !(dst->info.caps & GB_CAP_PEER) ||
        !(src->info.caps & GB_CAP_PEER))
        return false;
    bool can = false;
    return ops->peer_can_access(dst, src, &can) == 0 && can;
}

enum gb_link_kind gb_multi_link(const struct gb_case_ctx *ctx, size_t i, size_t j, char *out,
                                size_t len)
{
    const enum gb_link_kind k =
        gb_topology_pair(&ctx->devs[i]->info, &ctx->devs[j]->info, out, len);
    if (k == GB_LINK_UNKNOWN) {
        /* "unknown: no NVML (why)" / "unknown: no NVML for ADDR (why)": the first clause. */
        char *cut = strstr(out, " (");
        char *cut2 = strstr(out, " for ");
        if (cut2 && (!cut || cut2 < cut))
            cut = cut2;
        if (cut)
            *cut = 0;
    }
    return k;
}

void gb_multi_topology_text(const struct gb_case_ctx *ctx, const size_t *order, size_t n, bool ring,
                            const char *path, char *out, size_t len)
{
    if (!len)
        return;
    if (n < 2) {
        snprintf(out, len, "one device: no link");
        return;
    }
    const size_t pairs = ring ? n : n - 1; /* a ring of two: 0>1 and 1>0 */
    char link[GB_MAX_SET][64];
    bool same = true;
    for (size_t p = 0; p < pairs; p++) {
        const size_t a = order ? order[p] : p, b = order ? order[(p + 1) % n] : (p + 1) % n;
        gb_multi_link(ctx, a, b, link[p], sizeof link[p]);
        same = same && strcmp(link[p], link[0]) == 0;
    }
    size_t at = 0;
#define PUT(...)                                                      \
    do {                                                              \
        if (at < len) {                                               \
            const int w_ = snprintf(out + at, len - at, __VA_ARGS__); \
            at += w_ > 0 ? (size_t)w_ : 0;                            \
        }                                                             \
    } while (0)
    if (same) {
        for (size_t p = 0; p <= pairs; p++)
            PUT("%s%zu", p ? ">" : "", order ? order[p % n] : p % n);
        PUT(" %s, %s", path, link[0]);
    } else {
        for (size_t p = 0; p < pairs; p++)
            PUT("%s%zu>%zu %s, %s", p ? "; " : "", order ? order[p] : p,
                order ? order[(p + 1) % n] : (p + 1) % n, path, link[p]);
    }
#undef PUT
    if (at >= len && len > 4)
        memcpy(out + len - 4, "...", 4); /* cut: say so */
}

void gb_multi_topology_figure(struct gb_case_ctx *ctx, const size_t *order, size_t n, bool ring,
                              const char *path)
{
    if (n < 2)
        return;
    char text[64]; /* gb_figure.text */
    gb_multi_topology_text(ctx, order, n, ring, path, text, sizeof text);
    gb_case_text(ctx, "topology", "%s", text);
}

int gb_multi_team_start(struct gb_case_ctx *ctx, gb_team_fn job)
{
    struct gb_multi_team *m = ctx->state;
    m->ctx = ctx;
    m->job = job;
    ctx->op.timer = GB_TIMER_HOST;
    return gb_team_create(ctx->devs, m->n, &m->t);
}

int gb_multi_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct gb_multi_team *m = ctx->state;
    m->reps = reps;
    return gb_team_run(m->t, m->n, m->job, ctx->state);
}

void gb_multi_team_stop(struct gb_case_ctx *ctx)
{
    struct gb_multi_team *m = ctx->state;
    gb_team_destroy(m->t);
    m->t = NULL;
}

const char *gb_coll_op_name(enum gb_coll_op op)
{
    switch (op) {
    case GB_COLL_ALLREDUCE:
        return "allreduce";
    case GB_COLL_ALLGATHER:
        return "allgather";
    case GB_COLL_REDUCESCATTER:
        return "reducescatter";
    case GB_COLL_BROADCAST:
        return "broadcast";
    case GB_COLL_REDUCE:
        return "reduce";
    case GB_COLL_ALLTOALL:
        return "alltoall";
    case GB_COLL_SENDRECV:
        return "sendrecv";
    }
    return "?";
}

double gb_coll_busbw_factor(enum gb_coll_op op, size_t n)
{
    const double dn = n ? (double)n : 1.0;
    switch (op) {
    case GB_COLL_ALLREDUCE:
        return 2.0 * (dn - 1.0) / dn;
    case GB_COLL_ALLGATHER:
    case GB_COLL_REDUCESCATTER:
    case GB_COLL_ALLTOALL:
        return (dn - 1.0) / dn;
    case GB_COLL_BROADCAST:
    case GB_COLL_REDUCE:
    case GB_COLL_SENDRECV:
        return 1.0;
    }
    return 0.0;
}
