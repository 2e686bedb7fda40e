/* memtest — device-memory pattern tests over a fraction of the device's memory.
 *
 * The tested region is `fraction` of the device's memory (gb_device_info.global_mem: the backends
 * offer no free-memory query, so a fraction that does not fit beside what others hold fails to
 * allocate and is a recorded skip naming the size), at most `cap` bytes when cap is given,
 * rounded down to whole 4 KiB pages. It is allocated in chunks of at most the device's largest
 * buffer (max_alloc), 64 chunks at most (the test hook GPUBENCH_TEST_MEMTEST_CHUNK=BYTES, tests
 * only, takes chunks of at most BYTES, whole pages, as a device with a smaller largest buffer
 * would). Every pattern works on 32-bit words and names a word by
 * its index in the region (its byte offset / 4), whatever the chunking (kernels/memtest.cl):
 *   walking_ones       32 passes: write 1 << ((i + pass) mod 32) to word i, then check it
 *   walking_zeros      the same with the complement
 *   moving_inversions  Memtest86's moving inversions (memtest86.com, "Memtest86 Test Algorithms",
 *                      tests 3 and 4): for each pattern p of 0x00000000 and the eight 8-bit
 *                      walks 0x01010101 << s (s = 0..7): write p to every word; then in
 *                      ascending order read every word, check it is p, write ~p; then in
 *                      descending order check ~p and write p. The order is each work-item's:
 *                      work-items run concurrently, as in GPU memory testers (cuda_memtest)
 *   random             a seeded 32-bit hash of the word's index (seed: axis `seed`) written and
 *                      checked, then its complement written and checked
 *   address            each word holds its own index (low 32 bits), then its complement
 * Every check runs on the device: a word that differs is counted and the first 16 are recorded
 * (index, expected, read) in a small device buffer.
 *
 * One operation is the whole pattern over the region; its bytes are every word written or read
 * (GB/s of the pattern). verify reads the errors the timed runs counted, checks that the region
 * holds the last pattern the timed runs wrote (so that a run that did nothing fails), and runs
 * the pattern once more itself, where the test hook GPUBENCH_TEST_MEMTEST_FLIP="OFFSET:BIT"
 * (tests only) flips bit BIT of the byte at OFFSET of the region between the first write and its
 * check, as a faulty cell would. Any error fails the case: the reason gives the count and the
 * first errors' byte offsets, the bits that differ, expected and read values. figure `errors` (0
 * on an ok case) counts the words found wrong over all passes, `bytes_tested` the region, `chunks`
 * the buffers it took. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "suites/common.h"

#define MT_NREC 16                     /* errors recorded with their address */
#define MT_ERR_WORDS (2 + 4 * MT_NREC) /* count, records, wrap flag (kernels/memtest.cl) */
#define MT_MAX_CHUNKS 64               /* buffers the region may take */
#define MT_PAGE 4096                   /* the region is whole pages */
#define MT_WG 256                      /* work-group size preferred */
#define MT_PER_ITEM 16                 /* words per work-item (the launch's size) */
#define MT_FLIP_ENV "GPUBENCH_TEST_MEMTEST_FLIP"
#define MT_CHUNK_ENV "GPUBENCH_TEST_MEMTEST_CHUNK"

enum mt_kind { MT_WRITE, MT_CHECK, MT_MI_UP, MT_MI_DOWN };
/* kernels/memtest.cl's modes. */
enum { MODE_ONES, MODE_ZEROS, MODE_CONST, MODE_RANDOM, MODE_ADDRESS };

static const char *const patterns[] = {"walking_ones", "walking_zeros", "moving_inversions",
                                       "random",       "address",       NULL};

static bool fraction_check(double v, char *why, size_t len)
{
    if (v > 0 && v <= 1)
        return true;
    snprintf(why, len, "expected a fraction of the device's memory in (0, 1]");
    return false;
}

static const struct gb_axis_def axes[] = {
    {.name = "pattern",
     .type = GB_V_STR,
     .def = "[walking_ones, walking_zeros, moving_inversions, random, address]",
     .choices = patterns,
     .help = "walking_ones, walking_zeros (32 passes each), moving_inversions (Memtest86's, "
             "patterns 0 and 8-bit walks), random (seeded), address (each word its index)"},
    {.name = "fraction",
     .type = GB_V_FLOAT,
     .def = "0.1",
     .check_float = fraction_check,
     .help = "share of the device's memory tested, in (0, 1]"},
    {.name = "cap",
     .type = GB_V_SIZE,
     .def = "0",
     .zero_picks = true,
     .help = "the most bytes tested (0: no cap, the fraction alone)"},
    {.name = "seed",
     .type = GB_V_INT,
     .def = "1",
     .min = 0,
     .max = 0xFFFFFFFF,
     .help = "pattern random's seed"},
};

/* One step of a pattern: a kernel and its arguments. */
struct mt_step {
    enum mt_kind kind;
    unsigned mode;
    uint32_t arg;
};
#define MT_MAX_STEPS 64

struct memtest {
    struct gb_test_hook hook; /* first: gb_case_build_hooked; a test builds memtest.cl broken */
    struct mt_step steps[MT_MAX_STEPS];
    size_t nsteps;
    uint32_t seed;
    uint64_t bytes;                      /* the region */
    struct gb_buf *chunk[MT_MAX_CHUNKS]; /* its buffers */
    uint64_t words[MT_MAX_CHUNKS];       /* their words */
    size_t nchunks;
    struct gb_buf *err;  /* MT_ERR_WORDS words */
    struct gb_buf *flip; /* 4 host bytes for the test hook */
    struct gb_program *prog[4];
    struct gb_kernel *kern[4];
    uint32_t wg;
};

static const char *const kernel_names[4] = {"memtest_write", "memtest_check", "memtest_mi_up",
                                            "memtest_mi_down"};

/* The steps of pattern `name` into s->steps. */
static void plan_steps(struct memtest *s, const char *name)
{
    size_t n = 0;
    struct mt_step *st = s->steps;
    if (strcmp(name, "walking_ones") == 0 || strcmp(name, "walking_zeros") == 0) {
        const unsigned mode = name[8] == 'o' ? MODE_ONES : MODE_ZEROS;
        for (uint32_t pass = 0; pass < 32; pass++) {
            st[n++] = (struct mt_step){MT_WRITE, mode, pass};
            st[n++] = (struct mt_step){MT_CHECK, mode, pass};
        }
    } else if (strcmp(name, "moving_inversions") == 0) {
        for (int s8 = -1; s8 < 8; s8++) {
            const uint32_t p = s8 < 0 ? 0 : 0x01010101u << s8;
            st[n++] = (struct mt_step){MT_WRITE, MODE_CONST, p};
            st[n++] = (struct mt_step){MT_MI_UP, MODE_CONST, p};
            st[n++] = (struct mt_step){MT_MI_DOWN, MODE_CONST, p};
        }
    } else {
        const unsigned mode = strcmp(name, "random") == 0 ? MODE_RANDOM : MODE_ADDRESS;
        st[n++] = (struct mt_step){MT_WRITE, mode, 0};
        st[n++] = (struct mt_step){MT_CHECK, mode, 0};
        st[n++] = (struct mt_step){MT_WRITE, mode, 0xFFFFFFFFu};
        st[n++] = (struct mt_step){MT_CHECK, mode, 0xFFFFFFFFu};
    }
    s->nsteps = n;
}

/* What the region holds after the steps: the last write's pattern (moving inversions: the last
 * pattern, which its descending pass writes back). */
static struct mt_step final_state(const struct memtest *s)
{
    struct mt_step f = {MT_CHECK, MODE_CONST, 0};
    for (size_t i = 0; i < s->nsteps; i++)
        if (s->steps[i].kind == MT_WRITE)
            f = (struct mt_step){MT_CHECK, s->steps[i].mode, s->steps[i].arg};
    return f;
}

/* The region's bytes for parameters p on a device of `global_mem` bytes: fraction of it, at most
 * cap, whole pages. */
static uint64_t region_bytes(const struct gb_params *p, uint64_t global_mem)
{
    double b = gb_params_float(p, "fraction") * (double)global_mem;
    const uint64_t cap = gb_params_size(p, "cap");
    if (cap && b > (double)cap)
        b = (double)cap;
    return (uint64_t)b / MT_PAGE * MT_PAGE;
}

static void memtest_footprint(const struct gb_params *p, const struct gb_device_info *info,
                              struct gb_footprint *fp)
{
    if (!info->global_mem)
        return;
    const double b = (double)region_bytes(p, info->global_mem);
    const double chunk = info->max_alloc && b > (double)info->max_alloc
                             ? (double)(info->max_alloc / MT_PAGE * MT_PAGE)
                             : b;
    *fp = (struct gb_footprint){.host = 0, .device = b, .largest = chunk};
}

/* Enqueues step st on every chunk. */
static int run_step(struct gb_case_ctx *ctx, struct memtest *s, const struct mt_step *st)
{
    uint64_t base = 0;
    for (size_t c = 0; c < s->nchunks; c++) {
        const uint64_t n = s->words[c];
        const uint64_t items = (n + MT_PER_ITEM - 1) / MT_PER_ITEM;
        struct gb_launch l = {.dims = 1,
                              .global = {(items + s->wg - 1) / s->wg * s->wg, 1, 1},
                              .local = {s->wg, 1, 1}};
        l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->chunk[c]};
        l.args[1] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = n};
        l.args[2] = (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = base};
        if (st->kind == MT_WRITE || st->kind == MT_CHECK) {
            l.args[3] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = st->mode};
            l.args[4] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = st->arg};
            l.args[5] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = s->seed};
            l.nargs = 6;
            if (st->kind == MT_CHECK) {
                l.args[6] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->err};
                l.args[7] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = MT_NREC};
                l.nargs = 8;
            }
        } else {
            l.args[3] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = st->arg};
            l.args[4] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = s->err};
            l.args[5] = (struct gb_arg){.kind = GB_ARG_U32, .v.u32 = MT_NREC};
            l.nargs = 6;
        }
        int err = ctx->ops->launch(ctx->q, s->kern[st->kind], &l);
        if (err)
            return err;
        base += n;
    }
    return 0;
}

static int zero_errors(struct gb_case_ctx *ctx, struct memtest *s)
{
    uint32_t z[MT_ERR_WORDS] = {0};
    return gb_case_upload(ctx, s->err, z, sizeof z);
}

static int memtest_setup(struct gb_case_ctx *ctx)
{
    struct memtest *s = ctx->state;
    const struct gb_device_info *info = &ctx->dev->info;
    plan_steps(s, gb_params_str(ctx->params, "pattern"));
    s->seed = (uint32_t)gb_params_int(ctx->params, "seed");
    if (!info->global_mem)
        return gb_case_skip(ctx, "the device does not report its memory size");
    s->bytes = region_bytes(ctx->params, info->global_mem);
    if (s->bytes == 0)
        return gb_case_skip(
            ctx, "fraction %g of %llu bytes (cap %llu) is less than one %d-byte page",
            gb_params_float(ctx->params, "fraction"), (unsigned long long)info->global_mem,
            (unsigned long long)gb_params_size(ctx->params, "cap"), MT_PAGE);
    uint64_t max_chunk = info->max_alloc ? info->max_alloc / MT_PAGE * MT_PAGE : s->bytes;
    const char *ce = getenv(MT_CHUNK_ENV);
    if (ce && *ce && strtoull(ce, NULL, 10) / MT_PAGE * MT_PAGE < max_chunk)
        max_chunk = strtoull(ce, NULL, 10) / MT_PAGE * MT_PAGE;
    if (max_chunk == 0)
        return gb_case_skip(ctx, "the device's largest buffer (%llu bytes) is below a page",
                            (unsigned long long)info->max_alloc);
    const uint64_t nchunks = (s->bytes + max_chunk - 1) / max_chunk;
    if (nchunks > MT_MAX_CHUNKS)
        return gb_case_skip(ctx,
                            "%llu bytes need %llu buffers of the device's largest %llu bytes; "
                            "at most %d are taken",
                            (unsigned long long)s->bytes, (unsigned long long)nchunks,
                            (unsigned long long)max_chunk, MT_MAX_CHUNKS);
    uint64_t left = s->bytes;
    for (size_t c = 0; left; c++) {
        const uint64_t b = left < max_chunk ? left : max_chunk;
        int err = gb_case_alloc(ctx, b, GB_MEM_DEVICE, &s->chunk[c]);
        if (err == GB_ENOMEM)
            return gb_case_skip(ctx,
                                "fraction %g: %llu bytes do not fit in the device's free memory "
                                "(buffer %zu of %llu bytes failed)",
                                gb_params_float(ctx->params, "fraction"),
                                (unsigned long long)s->bytes, c + 1, (unsigned long long)b);
        if (err)
            return err;
        s->words[c] = b / 4;
        s->nchunks = c + 1;
        left -= b;
    }
    int err = gb_case_alloc(ctx, MT_ERR_WORDS * 4, GB_MEM_DEVICE, &s->err);
    if (err || (err = zero_errors(ctx, s)))
        return err;
    s->wg = gb_case_own_wg(ctx, MT_WG);
    for (int k = 0; k < 4; k++) {
        uint32_t wg = s->wg;
        if ((err = gb_case_build_hooked(ctx, "memtest.cl", kernel_names[k], NULL, 0, NULL, &wg,
                                        &s->prog[k], &s->kern[k])))
            return err;
        if (wg < s->wg)
            s->wg = wg;
    }
    /* Poison: a word pattern no step writes last, so that verify sees whether the timed runs
     * ran (final_state). */
    struct mt_step poison = {MT_WRITE, MODE_CONST, 0xDEADBEEFu};
    if ((err = run_step(ctx, s, &poison)) || (err = ctx->ops->queue_sync(ctx->q)))
        return err;
    double sweeps = 0;
    for (size_t i = 0; i < s->nsteps; i++)
        sweeps += s->steps[i].kind == MT_WRITE || s->steps[i].kind == MT_CHECK ? 1 : 2;
    ctx->op.bytes = sweeps * (double)s->bytes;
    ctx->op.working_set = (double)s->bytes;
    ctx->op.timer = GB_TIMER_DEVICE;
    return 0;
}

static int memtest_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct memtest *s = ctx->state;
    for (uint64_t r = 0; r < reps; r++)
        for (size_t i = 0; i < s->nsteps; i++) {
            int err = run_step(ctx, s, &s->steps[i]);
            if (err)
                return err;
        }
    return 0;
}

/* The test hook: flips bit `bit` of the region's byte `off` (GPUBENCH_TEST_MEMTEST_FLIP). */
static int plant_flip(struct gb_case_ctx *ctx, struct memtest *s)
{
    const char *e = getenv(MT_FLIP_ENV);
    unsigned long long off;
    unsigned bit;
    if (!e || !*e)
        return 0;
    if (sscanf(e, "%llu:%u", &off, &bit) != 2 || bit > 7 || off >= s->bytes)
        return GB_FAIL(GB_EINVAL, "%s=\"%s\": expected OFFSET:BIT, OFFSET below %llu, BIT 0..7",
                       MT_FLIP_ENV, e, (unsigned long long)s->bytes);
    size_t c = 0;
    uint64_t o = off;
    while (o >= s->words[c] * 4)
        o -= s->words[c++] * 4;
    int err = 0;
    if (!s->flip)
        err = gb_case_alloc(ctx, 1, GB_MEM_HOST_PAGEABLE, &s->flip);
    if (err || (err = ctx->ops->copy(ctx->q, s->flip, 0, s->chunk[c], o, 1, GB_COPY_BLOCKING)))
        return err;
    ((unsigned char *)s->flip->host)[0] ^= (unsigned char)(1u << bit);
    return ctx->ops->copy(ctx->q, s->chunk[c], o, s->flip, 0, 1, GB_COPY_BLOCKING);
}

/* The errors counted in s->err so far, into *count (a count that wrapped: 2^32 more, at least),
 * and its records into rec. */
static int read_errors(struct gb_case_ctx *ctx, struct memtest *s, uint64_t *count,
                       uint32_t rec[4 * MT_NREC])
{
    uint32_t h[MT_ERR_WORDS];
    int err = gb_case_download(ctx, h, s->err, sizeof h);
    if (err)
        return err;
    *count = h[0] + ((uint64_t)(h[MT_ERR_WORDS - 1] != 0) << 32);
    memcpy(rec, h + 1, 4 * MT_NREC * sizeof *rec);
    return 0;
}

/* Appends the records of `count` errors found `when` to the reason (as many as fit). */
static void describe(char *buf, size_t len, const char *when, uint64_t count, const uint32_t *rec)
{
    gb_appendf(buf, len, "%s%llu error%s %s", buf[0] ? "; " : "", (unsigned long long)count,
               count == 1 ? "" : "s", when);
    const uint64_t shown = count < MT_NREC ? count : MT_NREC;
    for (uint32_t r = 0; r < shown && r < 8; r++) {
        const uint64_t word = rec[4 * r] | (uint64_t)rec[4 * r + 1] << 32;
        const uint32_t want = rec[4 * r + 2], got = rec[4 * r + 3];
        gb_appendf(buf, len,
                   "%s word at byte offset 0x%llx: expected 0x%08x, read 0x%08x (bits 0x%08x)",
                   r ? "," : ":", (unsigned long long)(word * 4), want, got, want ^ got);
    }
}

static int memtest_verify(struct gb_case_ctx *ctx)
{
    struct memtest *s = ctx->state;
    uint64_t timed = 0, left = 0, own = 0;
    uint32_t rec[4 * MT_NREC], rec_left[4 * MT_NREC], rec_own[4 * MT_NREC];
    int err = read_errors(ctx, s, &timed, rec);
    if (err || (err = zero_errors(ctx, s)))
        return err;
    /* The region holds what the timed runs wrote last. */
    const struct mt_step last = final_state(s);
    if ((err = run_step(ctx, s, &last)) || (err = read_errors(ctx, s, &left, rec_left)) ||
        (err = zero_errors(ctx, s)))
        return err;
    /* The pattern once more, with the test hook's flip after its first write. */
    for (size_t i = 0; i < s->nsteps; i++) {
        if ((err = run_step(ctx, s, &s->steps[i])))
            return err;
        if (i == 0 && ((err = ctx->ops->queue_sync(ctx->q)) || (err = plant_flip(ctx, s))))
            return err;
    }
    if ((err = read_errors(ctx, s, &own, rec_own)))
        return err;
    const uint64_t total = timed + left + own;
    gb_case_figure(ctx, "errors", "", (double)total);
    if (total == 0)
        return 0;
    char why[sizeof ctx->reason] = "";
    if (timed)
        describe(why, sizeof why, "in the timed runs", timed, rec);
    if (left)
        describe(why, sizeof why, "where the region should hold the timed runs' last pattern", left,
                 rec_left);
    if (own)
        describe(why, sizeof why, "in verify's pass", own, rec_own);
    return gb_case_mismatch(ctx, "failed-memory: %s", why);
}

static void memtest_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct memtest *s = ctx->state;
    (void)op_time_s;
    gb_case_figure(ctx, "bytes_tested", "bytes", (double)s->bytes);
    gb_case_figure(ctx, "chunks", "", (double)s->nchunks);
}

static void memtest_teardown(struct gb_case_ctx *ctx)
{
    struct memtest *s = ctx->state;
    for (int k = 0; k < 4; k++)
        gb_case_free_kernel(ctx, &s->kern[k], &s->prog[k]);
    for (size_t c = 0; c < MT_MAX_CHUNKS; c++)
        gb_case_free_buf(ctx, &s->chunk[c]);
    gb_case_free_bufs(ctx, &s->err, &s->flip, NULL);
}

const struct gb_suite gb_suite_memtest = {
    .name = "memtest",
    .summary = "device-memory pattern tests (walking bits, Memtest86's moving inversions, "
               "random, address) over a fraction of the device's memory, errors with addresses",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "pattern",
    .state_size = sizeof(struct memtest),
    .setup = memtest_setup,
    .run = memtest_run,
    .verify = memtest_verify,
    .teardown = memtest_teardown,
    .figures = memtest_figures,
    .footprint = memtest_footprint,
    .chart = {.kind = GB_CHART_BARS},
};
