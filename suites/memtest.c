/* memtest — device-memory pattern tests over a fraction of the device's memory.
 *
 * The region asked for is `fraction` of the device's free memory, at most `cap` bytes when cap
 * is given, rounded down to whole 4 KiB pages. The free memory is, in this order: what the
 * backend's free-memory query says (gb_backend_ops.mem_info: CUDA's cudaMemGetInfo), on a device
 * whose memory is the host's (GB_CAP_UNIFIED: a CPU OpenCL device) the share of the host's
 * available memory a case may use (gb_host_memory x GB_FOOTPRINT_HOST_SHARE, run/footprint.h),
 * else the device's whole memory (global_mem: a fraction that does not fit beside what others
 * hold then fails to allocate, a recorded skip naming the size); never more than global_mem. The
 * text figure `free_from` names which ("cudaMemGetInfo", "host MemAvailable", "total: no
 * free-memory query").
 *
 * Axis `budget` (seconds, 0: none) bounds one run of the pattern over the region: setup first
 * times one run of the pattern over a probe of min(region, 64 MiB) (after one untimed write
 * that takes its first-touch faults) and shrinks the region to what one run covers in the
 * budget at that rate (whole pages, one page at least). Figure
 * `coverage` is the region tested over the region asked (1: all of it; below 1 the budget cut
 * it, and `coverage_of` says of what), which diag reports as a WARN. A case runs the pattern
 * about twice per timed run it takes plus once in verify, so a case with one timed run costs
 * about two budgets.
 *
 * The region is allocated in chunks of at most the device's largest buffer (max_alloc), 64
 * chunks at most (the test hook GPUBENCH_TEST_MEMTEST_CHUNK=BYTES, tests only, takes chunks of
 * at most BYTES, whole pages, as a device with a smaller largest buffer would). Every pattern
 * works on 32-bit words and names a word by its index in the region (its byte offset / 4),
 * whatever the chunking (kernels/memtest.cl). Passes over the region per run of the pattern (a
 * write or a check pass reads or writes every word once, a moving-inversions pass reads and
 * writes it: two), and so the bytes one run moves, in units of the region B:
 *   walking_ones       2 passes, 2 B: one write pass of 1 << (i mod 32) to word i, one check
 *                      pass (every bit position walks across each 32 neighbouring words)
 *   walking_zeros      the same with the complement: 2 B
 *   moving_inversions  45 B: Memtest86's moving inversions (memtest86.com, "Memtest86 Test
 *                      Algorithms", tests 3 and 4): for each pattern p of 0x00000000 and the
 *                      eight 8-bit walks 0x01010101 << s (s = 0..7): write p to every word
 *                      (1 B); then in ascending order read every word, check it is p, write ~p
 *                      (2 B); then in descending order check ~p and write p (2 B). The order is
 *                      each work-item's: work-items run concurrently, as in GPU memory testers
 *                      (cuda_memtest)
 *   random             4 B: a seeded 32-bit hash of the word's index (seed: axis `seed`)
 *                      written and checked, then its complement written and checked
 *   address            4 B: each word holds its own index (low 32 bits), then its complement
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
 * on an ok case) counts the words found wrong over all passes, `bytes_tested` the region,
 * `bytes_asked` the region the fraction asked for, `passes` the passes over the region per run,
 * `bytes_moved` the bytes one run reads and writes (passes x bytes_tested), `chunks` the buffers
 * it took. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "base/util.h"
#include "run/footprint.h"
#include "suites/common.h"

#define MT_NREC 16                     /* errors recorded with their address */
#define MT_ERR_WORDS (2 + 4 * MT_NREC) /* count, records, wrap flag (kernels/memtest.cl) */
#define MT_MAX_CHUNKS 64               /* buffers the region may take */
#define MT_PAGE 4096                   /* the region is whole pages */
#define MT_WG 256                      /* work-group size preferred */
#define MT_PER_ITEM 16                 /* words per work-item (the launch's size) */
#define MT_PROBE (64ull << 20)         /* bytes the budget's rate is measured on, at most */
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

static bool budget_check(double v, char *why, size_t len)
{
    if (v >= 0 && v <= 86400)
        return true;
    snprintf(why, len, "expected seconds in [0, 86400] (0: no budget)");
    return false;
}

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("pattern", "[walking_ones, walking_zeros, moving_inversions, random, address]",
                patterns,
                "walking_ones, walking_zeros (2 passes each), moving_inversions (Memtest86's, "
                "patterns 0 and 8-bit walks, 45), random (seeded, 4), address (each word its "
                "index, 4)"),
    GB_AXIS_FLOAT("fraction", "0.1", "share of the device's free memory tested, in (0, 1]",
                  .check_float = fraction_check),
    GB_AXIS_SIZE("cap", "0", 0, 0, "the most bytes tested (0: no cap, the fraction alone)",
                 .zero_picks = true),
    GB_AXIS_INT("seed", "1", 0, 0xFFFFFFFF, "pattern random's seed"),
    GB_AXIS_FLOAT("budget", "0",
                  "seconds one run of the pattern may take: the region shrinks to fit at the rate "
                  "measured first (0: no budget)",
                  .check_float = budget_check),
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
    uint64_t bytes;                      /* the region tested */
    uint64_t asked;                      /* the region the fraction asked for */
    char free_from[64];                  /* where the free memory was read */
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
        st[n++] = (struct mt_step){MT_WRITE, mode, 0};
        st[n++] = (struct mt_step){MT_CHECK, mode, 0};
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

/* Passes over the region one run of the steps makes (a read-and-write pass counts two). */
static double passes(const struct memtest *s)
{
    double n = 0;
    for (size_t i = 0; i < s->nsteps; i++)
        n += s->steps[i].kind == MT_WRITE || s->steps[i].kind == MT_CHECK ? 1 : 2;
    return n;
}

/* The region's bytes for parameters p with `free_mem` bytes free: fraction of it, at most cap,
 * whole pages. */
static uint64_t region_bytes(const struct gb_params *p, uint64_t free_mem)
{
    double b = gb_params_float(p, "fraction") * (double)free_mem;
    const uint64_t cap = gb_params_size(p, "cap");
    if (cap && b > (double)cap)
        b = (double)cap;
    return (uint64_t)b / MT_PAGE * MT_PAGE;
}

/* The share of the host's available memory a case may use, where the device's memory is the
 * host's: 0 when the device's is not or the host's is unknown; *what names the limit. */
static uint64_t host_share(const struct gb_device_info *info, const char **what)
{
    if (!(info->caps & GB_CAP_UNIFIED))
        return 0;
    struct gb_host_memory h;
    gb_host_memory(&h);
    *what = h.what;
    return (uint64_t)(GB_FOOTPRINT_HOST_SHARE * (double)h.avail);
}

static uint64_t at_most(uint64_t a, uint64_t b)
{
    return b && b < a ? b : a;
}

/* The free memory of the case's device (the file's comment says from where), with where it was
 * read in s->free_from. */
static uint64_t free_memory(struct gb_case_ctx *ctx, struct memtest *s)
{
    const struct gb_device_info *info = &ctx->dev->info;
    uint64_t f = 0, total = 0;
    const char *src = "";
    if (ctx->ops->mem_info) {
        if (ctx->ops->mem_info(ctx->dev, &f, &total, &src) == 0 && f) {
            snprintf(s->free_from, sizeof s->free_from, "%s", src);
            return at_most(f, info->global_mem);
        }
        gb_error_clear(); /* a query that failed: the next source */
    }
    const char *what = "";
    if ((f = host_share(info, &what)) != 0) {
        snprintf(s->free_from, sizeof s->free_from, "host %s", what);
        return at_most(f, info->global_mem);
    }
    snprintf(s->free_from, sizeof s->free_from, "total: no free-memory query");
    return info->global_mem;
}

/* The runner's check before setup: the region the fraction asks for, of the host's share where
 * the device's memory is the host's, else of the whole device (the free-memory query needs the
 * open device; a budget only shrinks the region). */
static void memtest_footprint(const struct gb_params *p, const struct gb_device_info *info,
                              struct gb_footprint *fp)
{
    if (!info->global_mem)
        return;
    const char *what = "";
    const uint64_t host = host_share(info, &what);
    const double b =
        (double)region_bytes(p, host ? at_most(host, info->global_mem) : info->global_mem);
    const double chunk = info->max_alloc && b > (double)info->max_alloc
                             ? (double)(info->max_alloc / MT_PAGE * MT_PAGE)
                             : b;
    *fp = (struct gb_footprint){.host = 0, .device = b, .largest = chunk};
}

/* Enqueues step st on the n words of buffer b, the region's words base.. onwards. */
static int launch_step(struct gb_case_ctx *ctx, struct memtest *s, const struct mt_step *st,
                       struct gb_buf *b, uint64_t n, uint64_t base)
{
    const uint64_t items = (n + MT_PER_ITEM - 1) / MT_PER_ITEM;
    struct gb_launch l = {
        .dims = 1, .global = {(items + s->wg - 1) / s->wg * s->wg, 1, 1}, .local = {s->wg, 1, 1}};
    l.args[0] = (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = b};
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
    return ctx->ops->launch(ctx->q, s->kern[st->kind], &l);
}

/* Enqueues step st on every chunk. */
static int run_step(struct gb_case_ctx *ctx, struct memtest *s, const struct mt_step *st)
{
    uint64_t base = 0;
    for (size_t c = 0; c < s->nchunks; c++) {
        int err = launch_step(ctx, s, st, s->chunk[c], s->words[c], base);
        if (err)
            return err;
        base += s->words[c];
    }
    return 0;
}

static int zero_errors(struct gb_case_ctx *ctx, struct memtest *s)
{
    uint32_t z[MT_ERR_WORDS] = {0};
    return gb_case_upload(ctx, s->err, z, sizeof z);
}

/* The budget: times one run of the pattern's own steps over a probe of min(s->asked, MT_PROBE,
 * the largest chunk) bytes (after an untimed write: first-touch faults are setup's, not the
 * rate's) and sets s->bytes to the region one run covers in `budget` seconds at that rate (whole
 * pages, one at least; s->asked when all of it fits). */
static int fit_budget(struct gb_case_ctx *ctx, struct memtest *s, double budget, uint64_t max_chunk)
{
    uint64_t pb = s->asked < MT_PROBE ? s->asked : MT_PROBE;
    pb = pb < max_chunk ? pb : max_chunk;
    struct gb_buf *probe = NULL;
    int err = gb_case_alloc(ctx, pb, GB_MEM_DEVICE, &probe);
    if (err)
        return err;
    const struct mt_step touch = {MT_WRITE, MODE_CONST, 0};
    double t = 0;
    if (!(err = launch_step(ctx, s, &touch, probe, pb / 4, 0)) &&
        !(err = ctx->ops->queue_sync(ctx->q))) {
        const double t0 = gb_now();
        for (size_t i = 0; !err && i < s->nsteps; i++)
            err = launch_step(ctx, s, &s->steps[i], probe, pb / 4, 0);
        if (!err && !(err = ctx->ops->queue_sync(ctx->q)))
            t = gb_now() - t0;
    }
    gb_case_free_buf(ctx, &probe);
    if (err || (err = zero_errors(ctx, s)))
        return err;
    /* Bytes per second of one run over the probe, and the region one run covers in the budget. */
    const double fits = t > 0 ? budget * (double)pb / t : (double)s->asked;
    if (fits < (double)s->asked) {
        const uint64_t b = (uint64_t)fits / MT_PAGE * MT_PAGE;
        s->bytes = b ? b : MT_PAGE;
    }
    return 0;
}

/* The seed enters only pattern random's words (kernels/memtest.cl's mode 3): it does not apply
 * to the other patterns (what people read leaves it out; results keep it). Params without a
 * pattern, or with one this suite does not know (a results file's), keep it. */
static bool memtest_axis_applies(const struct gb_params *p, const char *axis)
{
    const char *pat = gb_params_str(p, "pattern");
    size_t k = 0;
    while (patterns[k] && strcmp(patterns[k], pat) != 0)
        k++;
    return strcmp(axis, "seed") != 0 || !patterns[k] || strcmp(pat, "random") == 0;
}

static int memtest_setup(struct gb_case_ctx *ctx)
{
    struct memtest *s = ctx->state;
    const struct gb_device_info *info = &ctx->dev->info;
    plan_steps(s, gb_params_str(ctx->params, "pattern"));
    s->seed = (uint32_t)gb_params_int(ctx->params, "seed");
    if (!info->global_mem)
        return gb_case_skip(ctx, "the device does not report its memory size");
    const uint64_t free_mem = free_memory(ctx, s);
    s->bytes = s->asked = region_bytes(ctx->params, free_mem);
    if (s->bytes == 0)
        return gb_case_skip(ctx,
                            "fraction %g of %llu bytes of free memory (%s; cap %llu) is less "
                            "than one %d-byte page",
                            gb_params_float(ctx->params, "fraction"), (unsigned long long)free_mem,
                            s->free_from, (unsigned long long)gb_params_size(ctx->params, "cap"),
                            MT_PAGE);
    uint64_t max_chunk = info->max_alloc ? info->max_alloc / MT_PAGE * MT_PAGE : s->bytes;
    const char *ce = getenv(MT_CHUNK_ENV);
    if (ce && *ce && strtoull(ce, NULL, 10) / MT_PAGE * MT_PAGE < max_chunk)
        max_chunk = strtoull(ce, NULL, 10) / MT_PAGE * MT_PAGE;
    if (max_chunk == 0)
        return gb_case_skip(ctx, "the device's largest buffer (%llu bytes) is below a page",
                            (unsigned long long)info->max_alloc);
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
    const double budget = gb_params_float(ctx->params, "budget");
    if (budget > 0 && (err = fit_budget(ctx, s, budget, max_chunk)))
        return err;
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
        err = gb_case_alloc(ctx, b, GB_MEM_DEVICE, &s->chunk[c]);
        if (err == GB_ENOMEM)
            return gb_case_skip(ctx,
                                "fraction %g: %llu bytes do not fit in the device's free memory "
                                "(%s; buffer %zu of %llu bytes failed)",
                                gb_params_float(ctx->params, "fraction"),
                                (unsigned long long)s->bytes, s->free_from, c + 1,
                                (unsigned long long)b);
        if (err)
            return err;
        s->words[c] = b / 4;
        s->nchunks = c + 1;
        left -= b;
    }
    /* Poison: a word pattern no step writes last, so that verify sees whether the timed runs
     * ran (final_state). */
    struct mt_step poison = {MT_WRITE, MODE_CONST, 0xDEADBEEFu};
    if ((err = run_step(ctx, s, &poison)) || (err = ctx->ops->queue_sync(ctx->q)))
        return err;
    ctx->op.bytes = passes(s) * (double)s->bytes;
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
    gb_case_figure(ctx, "bytes_asked", "bytes", (double)s->asked);
    gb_case_figure(ctx, "passes", "", passes(s));
    gb_case_figure(ctx, "bytes_moved", "bytes", ctx->op.bytes);
    gb_case_figure(ctx, "chunks", "", (double)s->nchunks);
    gb_case_figure_bounded(ctx, "coverage", "", (double)s->bytes / (double)s->asked, 1);
    gb_case_text(ctx, "free_from", "%s", s->free_from);
    if (s->bytes < s->asked)
        gb_case_text(ctx, "coverage_of", "%g x free memory (%s) in the %gs budget",
                     gb_params_float(ctx->params, "fraction"), s->free_from,
                     gb_params_float(ctx->params, "budget"));
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
    .axis_applies = memtest_axis_applies,
    .setup = memtest_setup,
    .run = memtest_run,
    .verify = memtest_verify,
    .teardown = memtest_teardown,
    .figures = memtest_figures,
    .footprint = memtest_footprint,
    .chart = {.kind = GB_CHART_BARS},
};
