/* Helpers shared by the suites: skips with reasons, kernel builds, allocations, staging. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run/config.h"
#include "run/kernels.h"
#include "run/suite.h"
#include "base/units.h"
#include "base/util.h"
#include "suites/common.h"
#include "suites/suites.h"

int gb_case_skip(struct gb_case_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->reason, sizeof ctx->reason, fmt, ap);
    va_end(ap);
    return GB_ESKIP;
}

int gb_case_loop_fits(struct gb_case_ctx *ctx, uint64_t trips, const char *what, const char *hint)
{
    uint32_t limit = ctx->dev ? ctx->dev->info.max_loop_trips : 0;
    for (size_t i = 0; i < ctx->ndevs && ctx->devs; i++) { /* a set: its least limit */
        const uint32_t l = ctx->devs[i] ? ctx->devs[i]->info.max_loop_trips : 0;
        if (l && (limit == 0 || l < limit))
            limit = l;
    }
    if (limit == 0 || trips <= limit)
        return 0;
    const bool named = what && what[0], hinted = hint && hint[0];
    return gb_case_skip(ctx,
                        "%s%sthe driver stops a work-item's loops after %u iterations; this case "
                        "needs %llu%s%s%s",
                        named ? what : "", named ? ": " : "", limit, (unsigned long long)trips,
                        hinted ? " (" : "", hinted ? hint : "", hinted ? ")" : "");
}

uint64_t gb_loop_items(uint64_t items, uint64_t total, uint64_t per, uint64_t fixed, uint32_t limit)
{
    if (limit == 0)
        return items;
    if (fixed + per > limit || per == 0)
        return per == 0 && fixed <= limit ? items : 0;
    const uint64_t steps = (limit - fixed) / per; /* steps one work-item may take, >= 1 */
    const uint64_t need = (total + steps - 1) / steps;
    return need > items ? need : items;
}

uint64_t gb_dot_tuned_trips(uint64_t steps, int64_t vec, int64_t wg, int64_t reduce, uint64_t parts,
                            uint32_t fwg)
{
    uint64_t partial = steps * (1 + (uint64_t)vec) + 2 * (uint64_t)vec;
    uint64_t levels = 0;
    for (int64_t w = wg; w > 1; w /= 2)
        levels++;
    partial += reduce == 0 ? levels : reduce == 1 ? (uint64_t)wg : 0;
    const uint64_t final = (parts + fwg - 1) / fwg + fwg;
    return partial > final ? partial : final;
}

uint64_t gb_gemm_tiled_trips(int64_t ts, int64_t wpt, int64_t tsk, uint64_t k)
{
    if (ts <= 0 || wpt <= 0 || tsk <= 0 || ts < wpt)
        return 0; /* no geometry: the kernel's rules reject it */
    const uint64_t rts = (uint64_t)(ts / wpt);
    const uint64_t slice = 1 + (uint64_t)(ts * tsk) / (rts * rts) +
                           (uint64_t)tsk * (uint64_t)(1 + 2 * wpt + wpt * wpt);
    return 2 * (uint64_t)(wpt + wpt * wpt) + (k + (uint64_t)tsk - 1) / (uint64_t)tsk * slice;
}

int gb_case_mismatch(struct gb_case_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->reason, sizeof ctx->reason, fmt, ap);
    va_end(ap);
    return GB_EVERIFY;
}

/* Whether `suite` registered kernel file `file` on its line of meson.build's suites list; a
 * suite the build did not register (a test's own) may build any embedded file. */
static bool registered(const struct gb_suite *suite, const char *file)
{
    const char *const *f = gb_suite_kernels(suite->name);
    if (!f)
        return true;
    while (*f && strcmp(*f, file) != 0)
        f++;
    return *f != NULL;
}

int gb_case_build(struct gb_case_ctx *ctx, const char *file, const char *kernel,
                  const char *const *defines, size_t ndefines, struct gb_program **prog,
                  struct gb_kernel **k)
{
    *prog = NULL;
    *k = NULL;
    if (ctx->suite && !registered(ctx->suite, file))
        return GB_FAIL(GB_EINVAL,
                       "suite %s builds kernels/%s, which its line in meson.build's suites list "
                       "does not register",
                       ctx->suite->name, file);
    char *src = NULL, *log = NULL;
    int err = gb_kernel_source(file, &src);
    if (err)
        return err;
    err = ctx->ops->program_build(ctx->dev, src, defines, ndefines, prog, &log);
    free(src);
    if (err) {
        if (log && *log)
            gb_error_append(err, "build log of %s:\n%s", file, log);
        free(log);
        *prog = NULL;
        return err;
    }
    free(log);
    err = ctx->ops->kernel_get(*prog, kernel, k);
    if (err) {
        ctx->ops->program_free(*prog);
        *prog = NULL;
        *k = NULL;
    }
    return err;
}

/* Bytes of host memory available now (gb_host_memory: MemAvailable, a cgroup's or the address
 * space's limit); 0 when unknown. A suite's footprint (gb_suite.footprint) checks the case's
 * whole need before setup; this checks each buffer alone, for the suites that declare none. */
static uint64_t host_available(void)
{
    struct gb_host_memory h;
    gb_host_memory(&h);
    return h.avail;
}

int gb_case_alloc(struct gb_case_ctx *ctx, uint64_t bytes, enum gb_mem_kind kind,
                  struct gb_buf **out)
{
    *out = NULL;
    /* Host buffers, and every buffer of a device that shares host memory (a CPU OpenCL device
     * reports as much device memory as the host has free), come out of host RAM: a size the
     * host cannot hold is a skip, not an out-of-memory kill that would end the whole run. */
    if (kind != GB_MEM_DEVICE || (ctx->dev->info.caps & GB_CAP_UNIFIED)) {
        uint64_t avail = host_available();
        if (avail && bytes > avail) {
            char a[32], b[32];
            return gb_case_skip(ctx, "%s does not fit in the host's available memory (%s)",
                                gb_format_size(bytes, a, sizeof a),
                                gb_format_size(avail, b, sizeof b));
        }
    }
    int err = ctx->ops->buf_alloc(ctx->dev, bytes, kind, out);
    if (err == GB_ETOOBIG) {
        char a[32], b[32];
        return gb_case_skip(ctx, "%s does not fit: the device's largest allocation is %s",
                            gb_format_size(bytes, a, sizeof a),
                            gb_format_size(ctx->dev->info.max_alloc, b, sizeof b));
    }
    return err;
}

int gb_case_alloc_method(struct gb_case_ctx *ctx, enum gb_alloc_method m, uint64_t bytes,
                         struct gb_buf **out)
{
    *out = NULL;
    const bool host = m == GB_ALLOC_PINNED || m == GB_ALLOC_REGISTERED;
    if (host || (ctx->dev->info.caps & GB_CAP_UNIFIED)) {
        uint64_t avail = host_available();
        if (avail && bytes > avail) {
            char a[32], b[32];
            return gb_case_skip(ctx, "%s does not fit in the host's available memory (%s)",
                                gb_format_size(bytes, a, sizeof a),
                                gb_format_size(avail, b, sizeof b));
        }
    }
    if (!ctx->ops->alloc_method)
        return gb_case_skip(ctx, "backend %s offers no allocation methods beyond buf_alloc",
                            ctx->ops->name);
    gb_error_clear();
    int err = ctx->ops->alloc_method(ctx->q, m, bytes, out);
    if (err == GB_EUNSUPPORTED || err == GB_ETOOBIG)
        return gb_case_skip(ctx, "%s", gb_error_msg());
    if (err)
        *out = NULL;
    return err;
}

/* Setup and verify stage data through a temporary pageable host buffer, because a backend
 * copies only between its own buffers. */
static int stage(struct gb_case_ctx *ctx, struct gb_buf *dev_buf, void *host, uint64_t bytes,
                 bool upload)
{
    struct gb_buf *tmp = NULL;
    int err = ctx->ops->buf_alloc(ctx->dev, bytes, GB_MEM_HOST_PAGEABLE, &tmp);
    if (err)
        return err;
    if (upload) {
        memcpy(tmp->host, host, bytes);
        err = ctx->ops->copy(ctx->q, dev_buf, 0, tmp, 0, bytes, GB_COPY_BLOCKING);
    } else {
        err = ctx->ops->copy(ctx->q, tmp, 0, dev_buf, 0, bytes, GB_COPY_BLOCKING);
        if (!err)
            memcpy(host, tmp->host, bytes);
    }
    ctx->ops->buf_free(tmp);
    return err;
}

int gb_case_upload(struct gb_case_ctx *ctx, struct gb_buf *dst, const void *src, uint64_t bytes)
{
    if (dst->host) {
        memcpy(dst->host, src, bytes);
        return 0;
    }
    return stage(ctx, dst, (void *)src, bytes, true);
}

int gb_case_download(struct gb_case_ctx *ctx, void *dst, struct gb_buf *src, uint64_t bytes)
{
    if (src->host) {
        memcpy(dst, src->host, bytes);
        return 0;
    }
    return stage(ctx, src, dst, bytes, false);
}

void *gb_case_read_back(struct gb_case_ctx *ctx, struct gb_buf *src, uint64_t bytes, int *err)
{
    void *host = bytes <= SIZE_MAX ? malloc(bytes ? (size_t)bytes : 1) : NULL;
    if (!host) {
        *err = GB_FAIL(GB_ENOMEM, "read-back of %llu bytes", (unsigned long long)bytes);
        return NULL;
    }
    if ((*err = gb_case_download(ctx, host, src, bytes))) {
        free(host);
        return NULL;
    }
    return host;
}

void gb_case_free_buf(struct gb_case_ctx *ctx, struct gb_buf **b)
{
    if (*b)
        ctx->ops->buf_free(*b);
    *b = NULL;
}

void gb_case_free_kernel(struct gb_case_ctx *ctx, struct gb_kernel **k, struct gb_program **p)
{
    if (*k)
        ctx->ops->kernel_free(*k);
    if (*p)
        ctx->ops->program_free(*p);
    *k = NULL;
    *p = NULL;
}

/* ==== shared shapes of the suites (declared in suites/common.h) ============================== */

bool gb_case_param_defaulted(const struct gb_case_ctx *ctx, const char *axis)
{
    if (!ctx->run || !axis)
        return false;
    const struct gb_axis_def *ax = gb_suite_axis(ctx->run->suite, axis);
    return ax && (ctx->run->defaulted >> (size_t)(ax - ctx->run->suite->axes) & 1u);
}

const char gb_wg_fixed[] = "(a fixed work-group size)";

int gb_case_fit_wg(struct gb_case_ctx *ctx, const char *axis, uint32_t *wg, uint32_t max,
                   const char *what)
{
    if (*wg <= max)
        return 0;
    /* gb_wg_fixed names no axis: gb_case_param_defaulted says false for it. */
    if ((axis && !gb_case_param_defaulted(ctx, axis)) || max == 0)
        return gb_case_skip(ctx, "work-group size %u exceeds %s %u", *wg, what, max);
    uint32_t d = max;
    while (*wg % d)
        d--;
    *wg = d;
    for (size_t i = 0; i < ctx->nfigures; i++)
        if (strcmp(ctx->figures[i].name, "wg_used") == 0) {
            ctx->figures[i].v[0] = d; /* fitted before, to another limit */
            return 0;
        }
    gb_case_figure(ctx, "wg_used", "", d);
    return 0;
}

int gb_case_check_wg(struct gb_case_ctx *ctx, uint32_t wg)
{
    return gb_case_fit_wg(ctx, gb_wg_fixed, &wg, ctx->dev->info.max_wg_size, "the device maximum");
}

uint32_t gb_case_own_wg(struct gb_case_ctx *ctx, uint32_t preferred)
{
    uint32_t wg = preferred;
    /* A device maximum of 0 (unknown) leaves the size to the kernel's limit. */
    if (ctx->dev->info.max_wg_size)
        (void)gb_case_fit_wg(ctx, NULL, &wg, ctx->dev->info.max_wg_size, "the device maximum");
    return wg;
}

int gb_case_fit_own_wg(struct gb_case_ctx *ctx, struct gb_kernel *k, uint32_t dev_max, uint32_t *wg)
{
    uint32_t kmax = 0;
    int err = ctx->ops->kernel_max_wg(k, &kmax);
    if (err)
        return err;
    if (dev_max)
        (void)gb_case_fit_wg(ctx, NULL, wg, dev_max, "the device maximum");
    return gb_case_fit_wg(ctx, NULL, wg, kmax, "this kernel's maximum");
}

int gb_case_build_wg(struct gb_case_ctx *ctx, const char *file, const char *kernel,
                     const char *const *defines, size_t ndefines, const char *axis, uint32_t *wg,
                     struct gb_program **prog, struct gb_kernel **k)
{
    int err = gb_case_build(ctx, file, kernel, defines, ndefines, prog, k);
    if (err)
        return err;
    uint32_t kmax = 0;
    if ((err = ctx->ops->kernel_max_wg(*k, &kmax)))
        return err;
    return gb_case_fit_wg(ctx, axis, wg, kmax, "this kernel's maximum");
}

void gb_launch_split_tail(struct gb_launch *whole, struct gb_launch *tail, uint64_t n,
                          uint32_t base_arg)
{
    const uint64_t wg = whole->local[0];
    whole->global[0] = n / wg * wg;
    *tail = (struct gb_launch){0};
    if (n % wg) {
        *tail = *whole;
        tail->global[0] = n % wg;
        tail->local[0] = 1;
        tail->args[base_arg].v.u64 += whole->global[0];
    }
}

int gb_launch_whole_then_tail(const struct gb_backend_ops *ops, struct gb_queue *q,
                              struct gb_kernel *k, const struct gb_launch *whole,
                              const struct gb_launch *tail)
{
    int err = 0;
    if (whole->global[0])
        err = ops->launch(q, k, whole);
    if (!err && tail && tail->global[0])
        err = ops->launch(q, k, tail);
    return err;
}

int gb_case_launch_reps(struct gb_case_ctx *ctx, struct gb_kernel *k, const struct gb_launch *whole,
                        const struct gb_launch *tail, uint64_t reps)
{
    int err = 0;
    for (uint64_t r = 0; r < reps && !err; r++)
        err = gb_launch_whole_then_tail(ctx->ops, ctx->q, k, whole, tail);
    return err;
}

void gb_case_free_bufs(struct gb_case_ctx *ctx, struct gb_buf **first, ...)
{
    va_list ap;
    va_start(ap, first);
    for (struct gb_buf **b = first; b; b = va_arg(ap, struct gb_buf **))
        gb_case_free_buf(ctx, b);
    va_end(ap);
}

void gb_case_accuracy_figures(struct gb_case_ctx *ctx, double rms, double tolerance)
{
    gb_case_figure(ctx, "rms_error", "", rms);
    gb_case_figure(ctx, "tolerance", "", tolerance);
}

int gb_suite_precision_derive(struct gb_results *rs, const char *suite, const char *axis,
                              const char *base, bool by_time, gb_peak_fn peak_of)
{
    gb_precision_speedups(rs, suite, axis, base, by_time);
    if (peak_of)
        gb_precision_check_peaks(rs, suite, peak_of);
    return 0;
}

/* ==== end of the shared shapes ================================================================ */

/* ---- verification data ---------------------------------------------------------------------- */

void gb_fill_pattern(unsigned char *p, uint64_t n, uint64_t seed)
{
    /* Seeds are small and close (sizes, device positions): the golden-ratio multiply spreads
     * them over 64 bits, and the +1 keeps seed 0 from starting xorshift at its fixed point 0. */
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (uint64_t i = 0; i < n; i++) {
        if ((i & 7) == 0) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        p[i] = (unsigned char)(x >> (8 * (i & 7)));
    }
}

struct gb_gemm gb_gemm_f32(uint64_t m, uint64_t n, uint64_t k, double alpha, struct gb_buf *a,
                           struct gb_buf *b, struct gb_buf *c)
{
    return (struct gb_gemm){.a_type = GB_F32,
                            .c_type = GB_F32,
                            .compute = GB_F32,
                            .m = m,
                            .n = n,
                            .k = k,
                            .alpha = alpha,
                            .beta = 0,
                            .a = a,
                            .b = b,
                            .c = c,
                            .lda = m,
                            .ldb = k,
                            .ldc = m,
                            .batch = 1};
}

void gb_wait_until(double t)
{
    for (;;) {
        const double left = t - gb_now();
        if (left <= 0)
            return;
        if (left > 300e-6) {
            const double w = left - 200e-6;
            struct timespec ts = {(time_t)w, (long)((w - floor(w)) * 1e9)};
            nanosleep(&ts, NULL);
        }
    }
}

double gb_replay_now(void *p)
{
    (void)p;
    return gb_now();
}

void gb_replay_wait(void *p, double t)
{
    (void)p;
    gb_wait_until(t);
}

double gb_rank_quantile(const double *sorted, size_t n, double q)
{
    const size_t r = (size_t)ceil(q * (double)n);
    return sorted[r ? r - 1 : 0];
}

int gb_case_check_bytes(struct gb_case_ctx *ctx, const unsigned char *got,
                        const unsigned char *want, uint64_t n, const char *fmt, ...)
{
    if (memcmp(got, want, n) == 0)
        return 0;
    uint64_t i = 0;
    while (got[i] == want[i])
        i++;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return gb_case_mismatch(ctx, "%s: byte %llu is 0x%02x, expected 0x%02x", what,
                            (unsigned long long)i, got[i], want[i]);
}

/* ---- poisoned outputs and the test hook ----------------------------------------------------- */

int gb_case_poison(struct gb_case_ctx *ctx, struct gb_buf *b, uint64_t bytes, enum gb_dtype t)
{
    static const unsigned char f64[] = {0, 0, 0, 0, 0, 0, 0xF8, 0x7F};
    static const unsigned char f32[] = {0, 0, 0xC0, 0x7F}, f16[] = {0, 0x7E}, bf16[] = {0xC0, 0x7F},
                               i32[] = {0xEF, 0xBE, 0xAD, 0xDE}, i8[] = {0xA5};
    const unsigned char *pat = t == GB_F64    ? f64
                               : t == GB_F32  ? f32
                               : t == GB_F16  ? f16
                               : t == GB_BF16 ? bf16
                               : t == GB_I32  ? i32
                                              : i8;
    const size_t es = gb_dtype_size(t);
    if (bytes == 0)
        return 0;
    unsigned char *h = bytes <= SIZE_MAX ? malloc((size_t)bytes) : NULL;
    if (!h)
        return GB_FAIL(GB_ENOMEM, "poison of %llu bytes", (unsigned long long)bytes);
    for (uint64_t i = 0; i < bytes; i++)
        h[i] = pat[i % es]; /* little-endian, as every device gpubench drives */
    int err = gb_case_upload(ctx, b, h, bytes);
    free(h);
    return err;
}

int gb_case_build_hooked(struct gb_case_ctx *ctx, const char *file, const char *kernel,
                         const char *const *defines, size_t ndefines, const char *axis,
                         uint32_t *wg, struct gb_program **prog, struct gb_kernel **k)
{
    const struct gb_test_hook *hook = ctx->state;
    const char *defs[8];
    *prog = NULL;
    *k = NULL;
    if (ndefines > 7)
        return GB_FAIL(GB_EINVAL, "%s: %zu defines, at most 7", file, ndefines);
    for (size_t i = 0; i < ndefines; i++)
        defs[i] = defines[i];
    if (hook && hook->test_define)
        defs[ndefines++] = hook->test_define;
    return gb_case_build_wg(ctx, file, kernel, defs, ndefines, axis, wg, prog, k);
}

/* ---- figures beside the headline value ------------------------------------------------------ */

static struct gb_figure *new_figure(struct gb_case_ctx *ctx, const char *name)
{
    if (ctx->nfigures >= GB_MAX_FIGURES)
        return NULL;
    struct gb_figure *f = &ctx->figures[ctx->nfigures++];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    return f;
}

void gb_case_figure(struct gb_case_ctx *ctx, const char *name, const char *unit, double value)
{
    gb_case_figure_bounded(ctx, name, unit, value, 0);
}

void gb_case_figure_bounded(struct gb_case_ctx *ctx, const char *name, const char *unit,
                            double value, double bound)
{
    struct gb_figure *f = new_figure(ctx, name);
    if (!f)
        return;
    snprintf(f->unit, sizeof f->unit, "%s", unit);
    f->n = 1;
    f->v[0] = value;
    f->bound = bound;
}

void gb_case_figure_devices(struct gb_case_ctx *ctx, const char *name, const char *unit,
                            const double *values, size_t n)
{
    if (n == 0)
        return;
    struct gb_figure *f = new_figure(ctx, name);
    if (!f)
        return;
    snprintf(f->unit, sizeof f->unit, "%s", unit);
    f->per_device = true;
    f->n = n < GB_MAX_SET ? n : GB_MAX_SET;
    memcpy(f->v, values, f->n * sizeof *values);
}

void gb_case_text(struct gb_case_ctx *ctx, const char *name, const char *fmt, ...)
{
    struct gb_figure *f = new_figure(ctx, name);
    if (!f)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text, sizeof f->text, fmt, ap);
    va_end(ap);
    gb_utf8_trim(f->text);
}

int gb_case_tuning_lookup(const struct gb_case_ctx *ctx, const char *kernel, const char *problem,
                          struct gb_tuning_entry *out, bool *found)
{
    *found = false;
    if (!ctx->run || !ctx->run->tuned)
        return 0;
    return gb_tuning_lookup(ctx->run->tuning_cache, ctx->dev, kernel, problem, out, found);
}

int gb_case_headline(struct gb_case_ctx *ctx, const char *metric, const char *unit,
                     enum gb_better better, const double *values, size_t n)
{
    if (!n || !values)
        return GB_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(values[i]))
            return GB_EINVAL;
    double *v = malloc(n * sizeof *v);
    if (!v)
        return GB_ENOMEM;
    memcpy(v, values, n * sizeof *v);
    free(ctx->headline.v);
    ctx->headline.v = v;
    ctx->headline.n = n;
    snprintf(ctx->headline.metric, sizeof ctx->headline.metric, "%s", metric);
    snprintf(ctx->headline.unit, sizeof ctx->headline.unit, "%s", unit);
    ctx->headline.better = better;
    ctx->headline.has_value = false;
    return 0;
}

int gb_case_headline_value(struct gb_case_ctx *ctx, double value)
{
    if (!ctx->headline.n || !isfinite(value))
        return GB_EINVAL;
    ctx->headline.has_value = true;
    ctx->headline.value = value;
    return 0;
}
