/* gpubench — what every backend shares (contract in backend.h): element types, the checks a
 * launch and a GEMM pass before a backend enqueues them, and pageable host memory. */
#include "backends/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t gb_dtype_size(enum gb_dtype t)
{
    switch (t) {
    case GB_F64:
        return 8;
    case GB_F32:
    case GB_I32:
        return 4;
    case GB_F16:
    case GB_BF16:
        return 2;
    case GB_I8:
    case GB_F8E4M3:
    case GB_F8E5M2:
        return 1;
    }
    return 0;
}

const char *gb_dtype_name(enum gb_dtype t)
{
    switch (t) {
    case GB_F64:
        return "f64";
    case GB_F32:
        return "f32";
    case GB_F16:
        return "f16";
    case GB_BF16:
        return "bf16";
    case GB_I32:
        return "i32";
    case GB_I8:
        return "i8";
    case GB_F8E4M3:
        return "f8e4m3";
    case GB_F8E5M2:
        return "f8e5m2";
    }
    return "?";
}

static bool is_fp8(enum gb_dtype t)
{
    return t == GB_F8E4M3 || t == GB_F8E5M2;
}

int gb_gemm_fp8_check(const struct gb_gemm_fp8 *g)
{
    if (!g->trans_a || g->trans_b)
        return GB_FAIL(GB_EUNSUPPORTED,
                       "FP8 GEMM: cuBLASLt takes only the \"TN\" layout (A transposed, B not: "
                       "trans tn), not %c%c",
                       g->trans_a ? 't' : 'n', g->trans_b ? 't' : 'n');
    if (!is_fp8(g->a_type) || !is_fp8(g->b_type))
        return GB_FAIL(GB_EUNSUPPORTED, "FP8 GEMM: A and B must be f8e4m3 or f8e5m2, not %s and %s",
                       gb_dtype_name(g->a_type), gb_dtype_name(g->b_type));
    if (g->a_type == GB_F8E5M2 && g->b_type == GB_F8E5M2)
        return GB_FAIL(GB_EUNSUPPORTED, "FP8 GEMM: cuBLASLt has no f8e5m2 x f8e5m2 (one of A and B "
                                        "must be f8e4m3)");
    if (g->c_type != GB_F32 && g->c_type != GB_F16 && g->c_type != GB_BF16)
        return GB_FAIL(GB_EUNSUPPORTED, "FP8 GEMM: C must be f32, f16 or bf16, not %s",
                       gb_dtype_name(g->c_type));
    const struct {
        const char *name;
        uint64_t v;
    } dims[] = {{"m", g->m},     {"n", g->n},     {"k", g->k},
                {"lda", g->lda}, {"ldb", g->ldb}, {"ldc", g->ldc}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        if (dims[i].v == 0 || dims[i].v % 16)
            return GB_FAIL(GB_EUNSUPPORTED,
                           "FP8 GEMM: m, n, k and the leading dimensions must be non-zero "
                           "multiples of 16 (cuBLASLt's 16-byte alignment); %s = %llu",
                           dims[i].name, (unsigned long long)dims[i].v);
    if (g->lda < g->k || g->ldb < g->k || g->ldc < g->m)
        return GB_FAIL(GB_EUNSUPPORTED,
                       "FP8 GEMM: lda and ldb must be at least k (%llu), ldc at least m (%llu); "
                       "lda %llu, ldb %llu, ldc %llu",
                       (unsigned long long)g->k, (unsigned long long)g->m,
                       (unsigned long long)g->lda, (unsigned long long)g->ldb,
                       (unsigned long long)g->ldc);
    return 0;
}

int gb_launch_check(const struct gb_launch *l, const struct gb_device_info *info,
                    uint32_t kernel_max_wg, const char *kernel)
{
    if (!l || l->dims < 1 || l->dims > 3)
        return GB_FAIL(GB_EINVAL, "kernel %s: launch needs 1 to 3 dimensions, got %u", kernel,
                       l ? (unsigned)l->dims : 0u);
    uint64_t wg = 1;
    for (uint32_t d = 0; d < l->dims; d++) {
        if (l->local[d] == 0 || l->global[d] == 0)
            return GB_FAIL(GB_EINVAL,
                           "kernel %s: zero size in dimension %u (global %llu, "
                           "local %u)",
                           kernel, (unsigned)d, (unsigned long long)l->global[d],
                           (unsigned)l->local[d]);
        wg *= l->local[d];
    }
    if (wg > info->max_wg_size)
        return GB_FAIL(GB_EINVAL, "kernel %s: work-group size %llu exceeds the device maximum %u",
                       kernel, (unsigned long long)wg, (unsigned)info->max_wg_size);
    if (kernel_max_wg && wg > kernel_max_wg)
        return GB_FAIL(GB_EINVAL, "work-group size %llu exceeds kernel %s's maximum %u",
                       (unsigned long long)wg, kernel, (unsigned)kernel_max_wg);
    for (uint32_t d = 0; d < l->dims; d++) {
        if (l->local[d] > info->max_wg_dims[d])
            return GB_FAIL(GB_EINVAL,
                           "kernel %s: work-group size %u in dimension %u exceeds "
                           "the device maximum %u",
                           kernel, (unsigned)l->local[d], (unsigned)d,
                           (unsigned)info->max_wg_dims[d]);
        if (l->global[d] % l->local[d] != 0)
            return GB_FAIL(GB_EINVAL,
                           "kernel %s: global size %llu in dimension %u is not a "
                           "multiple of the work-group size %u",
                           kernel, (unsigned long long)l->global[d], (unsigned)d,
                           (unsigned)l->local[d]);
    }
    return 0;
}

/* One operand of gb_gemm_check_shape: a rows×cols column-major matrix with leading dimension
 * ld, `batch` of them `stride` elements apart, in buf, elements of type t. */
static int gb__gemm_extent(const char *what, const struct gb_buf *buf, enum gb_dtype t,
                           uint64_t rows, uint64_t cols, uint64_t ld, uint64_t batch,
                           uint64_t stride, const struct gb_device *dev,
                           gb_same_device_fn same_device)
{
    if (!buf || buf->kind != GB_MEM_DEVICE || !same_device(buf->dev, dev))
        return GB_FAIL(GB_EINVAL, "gemm: %s is not a device buffer of this device", what);
    if (ld < rows || ld == 0)
        return GB_FAIL(GB_EINVAL, "gemm: ld%s=%llu below its %llu rows", what,
                       (unsigned long long)ld, (unsigned long long)rows);
    uint64_t last, span, need;
    if (__builtin_mul_overflow(batch - 1, stride, &last) ||
        __builtin_mul_overflow(ld, cols - 1, &span) || __builtin_add_overflow(last, span, &need) ||
        __builtin_add_overflow(need, rows, &need))
        return GB_FAIL(GB_EOVERFLOW, "gemm: the extent of %s overflows", what);
    if (need > buf->bytes / gb_dtype_size(t))
        return GB_FAIL(GB_EINVAL, "gemm: %s needs %llu elements, its buffer holds %llu", what,
                       (unsigned long long)need,
                       (unsigned long long)(buf->bytes / gb_dtype_size(t)));
    return 0;
}

int gb_gemm_check_shape(const struct gb_gemm *g, const struct gb_device *dev,
                        gb_same_device_fn same_device, uint64_t max_size, const char *max_name)
{
    if (g->m == 0 || g->n == 0 || g->k == 0 || g->batch == 0)
        return GB_FAIL(GB_EINVAL, "gemm: m=%llu n=%llu k=%llu batch=%llu", (unsigned long long)g->m,
                       (unsigned long long)g->n, (unsigned long long)g->k,
                       (unsigned long long)g->batch);
    const uint64_t sizes[] = {g->m,   g->n,   g->k,        g->batch,    g->lda,
                              g->ldb, g->ldc, g->stride_a, g->stride_b, g->stride_c};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i] > max_size)
            return GB_FAIL(GB_ETOOBIG, "gemm: a size above %s", max_name);
    /* op(A) is m×k and op(B) k×n; stored transposed, their rows and columns swap. */
    const uint64_t ar = g->trans_a ? g->k : g->m, ac = g->trans_a ? g->m : g->k;
    const uint64_t br = g->trans_b ? g->n : g->k, bc = g->trans_b ? g->k : g->n;
    int rc;
    if ((rc = gb__gemm_extent("A", g->a, g->a_type, ar, ac, g->lda, g->batch, g->stride_a, dev,
                              same_device)) ||
        (rc = gb__gemm_extent("B", g->b, g->a_type, br, bc, g->ldb, g->batch, g->stride_b, dev,
                              same_device)) ||
        (rc = gb__gemm_extent("C", g->c, g->c_type, g->m, g->n, g->ldc, g->batch, g->stride_c, dev,
                              same_device)))
        return rc;
    return 0;
}

int gb_gemv_check_shape(const struct gb_gemm *g, const struct gb_device *dev,
                        gb_same_device_fn same_device, uint64_t max_size, const char *max_name)
{
    if (g->n != 1 || g->batch != 1 || g->trans_b || g->a_type != g->c_type ||
        g->a_type != g->compute)
        return GB_FAIL(GB_EINVAL,
                       "gemv: n=%llu batch=%llu%s, %s in, %s out, %s compute (one vector, "
                       "one type)",
                       (unsigned long long)g->n, (unsigned long long)g->batch,
                       g->trans_b ? ", x transposed" : "", gb_dtype_name(g->a_type),
                       gb_dtype_name(g->c_type), gb_dtype_name(g->compute));
    return gb_gemm_check_shape(g, dev, same_device, max_size, max_name);
}

int gb_conv_out_dims(const struct gb_conv_shape *sh, uint64_t *p, uint64_t *q)
{
    const uint64_t one[] = {sh->n, sh->c,        sh->h,        sh->w,     sh->k,     sh->r,
                            sh->s, sh->stride_h, sh->stride_w, sh->dil_h, sh->dil_w, sh->groups};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
        if (one[i] == 0)
            return GB_FAIL(GB_EINVAL, "conv: a size, stride, dilation or group count of 0");
    if (sh->c % sh->groups || sh->k % sh->groups)
        return GB_FAIL(GB_EINVAL, "conv: groups %llu does not divide C %llu and K %llu",
                       (unsigned long long)sh->groups, (unsigned long long)sh->c,
                       (unsigned long long)sh->k);
    const uint64_t lim = 1ull << 31; /* every index below fits a signed 32-bit int */
    const uint64_t each[] = {sh->n,     sh->c,     sh->h,        sh->w,        sh->k,
                             sh->r,     sh->s,     sh->stride_h, sh->stride_w, sh->pad_h,
                             sh->pad_w, sh->dil_h, sh->dil_w};
    for (size_t i = 0; i < sizeof each / sizeof each[0]; i++)
        if (each[i] >= lim)
            return GB_FAIL(GB_EINVAL, "conv: a size of 2^31 or more");
    /* Extents of the dilated filter and of the padded image, each below 2^33. */
    const uint64_t fr = sh->dil_h * (sh->r - 1) + 1, fs = sh->dil_w * (sh->s - 1) + 1;
    const uint64_t ih = sh->h + 2 * sh->pad_h, iw = sh->w + 2 * sh->pad_w;
    if (fr > ih || fs > iw)
        return GB_FAIL(GB_EINVAL,
                       "conv: the %llux%llu filter (dilated to %llux%llu) is larger than the "
                       "padded %llux%llu image",
                       (unsigned long long)sh->r, (unsigned long long)sh->s, (unsigned long long)fr,
                       (unsigned long long)fs, (unsigned long long)ih, (unsigned long long)iw);
    const uint64_t pp = (ih - fr) / sh->stride_h + 1, qq = (iw - fs) / sh->stride_w + 1;
    if (pp >= lim || qq >= lim)
        return GB_FAIL(GB_EINVAL, "conv: an output of 2^31 pixels or more a side");
    /* No tensor above 2^62 elements: their byte sizes and the suite's sums stay in 64 bits. */
    const uint64_t dims[3][4] = {{sh->n, sh->c, sh->h, sh->w},
                                 {sh->k, sh->c / sh->groups, sh->r, sh->s},
                                 {sh->n, sh->k, pp, qq}};
    for (int t = 0; t < 3; t++) {
        uint64_t e = 1;
        for (int i = 0; i < 4; i++)
            if (__builtin_mul_overflow(e, dims[t][i], &e) || e >= (1ull << 62))
                return GB_FAIL(GB_EINVAL, "conv: a tensor of more than 2^62 elements");
    }
    *p = pp;
    *q = qq;
    return 0;
}

void gb_conv_sizes(const struct gb_conv_shape *sh, uint64_t *nx, uint64_t *nw, uint64_t *ny)
{
    uint64_t p = 0, q = 0;
    (void)gb_conv_out_dims(sh, &p, &q);
    *nx = sh->n * sh->c * sh->h * sh->w;
    *nw = sh->k * (sh->c / (sh->groups ? sh->groups : 1)) * sh->r * sh->s;
    *ny = sh->n * sh->k * p * q;
}

double gb_conv_flops(const struct gb_conv_shape *sh)
{
    uint64_t p = 0, q = 0;
    if (gb_conv_out_dims(sh, &p, &q))
        return 0;
    return 2.0 * (double)sh->n * (double)sh->k * (double)(sh->c / sh->groups) * (double)sh->r *
           (double)sh->s * (double)p * (double)q;
}

void gb_cpu_facts_check(struct gb_device_info *info, uint32_t host_mhz, const char *host_source,
                        uint32_t host_cpus)
{
    if (info->type != GB_DEVICE_CPU)
        return;
    const char *src = host_source ? host_source : "";
    const uint32_t said_mhz = info->clock_mhz, said_units = info->compute_units;
    char note[sizeof info->clock_source] = "";
    if (host_mhz && said_mhz == 0) {
        snprintf(note, sizeof note, "host %s", src);
        info->clock_mhz = host_mhz;
    } else if (host_mhz && (said_mhz < host_mhz / 2 || said_mhz > GB_CPU_MHZ_CEILING ||
                            (strcmp(src, "cpufreq") == 0 && said_mhz > host_mhz + host_mhz / 4))) {
        snprintf(note, sizeof note, "host %s, the device said %u MHz", src, (unsigned)said_mhz);
        info->clock_mhz = host_mhz;
    }
    if (host_cpus && (said_units == 0 || said_units > host_cpus)) {
        const size_t at = strlen(note);
        snprintf(note + at, sizeof note - at,
                 "%sunits: the host's %u online CPUs, the device said %u", at ? "; " : "",
                 (unsigned)host_cpus, (unsigned)said_units);
        info->compute_units = host_cpus;
    }
    if (note[0])
        memcpy(info->clock_source, note, sizeof note);
}

int gb_pageable_alloc(uint64_t bytes, void **out)
{
    if (bytes == 0 || bytes > SIZE_MAX)
        return GB_FAIL(bytes ? GB_ETOOBIG : GB_EINVAL, "pageable buffer of %llu bytes",
                       (unsigned long long)bytes);
    const long pg = sysconf(_SC_PAGESIZE);
    const size_t page = pg > 0 ? (size_t)pg : 4096;
    const size_t align = page >= 4096 ? page : 4096;
    void *p = NULL;
    if (posix_memalign(&p, align, (size_t)bytes) != 0 || !p)
        return GB_FAIL(GB_ENOMEM, "pageable buffer of %llu bytes (posix_memalign)",
                       (unsigned long long)bytes);
    /* One write a page commits the page as well as a memset would, at a fraction of the cost
     * for large buffers; the last byte covers a final partial page. */
    volatile char *c = p;
    for (size_t off = 0; off < (size_t)bytes; off += page)
        c[off] = 0;
    c[bytes - 1] = 0;
    *out = p;
    return 0;
}
