/* tuning — which work-group / thread-block configuration of a kernel is fastest on this device
 * for this problem size, kept in the tuning cache for other suites (`tuned: true`).
 *
 * A case names a tunable kernel (dot: kernels/dot.cl, transpose: kernels/transpose.cl, gemm:
 * kernels/gemm.cl), a problem size and a search (src/run/tune.h): exhaustive, random with a budget,
 * or anneal (simulated annealing after a random sample) with a budget. The kernel's search space
 * is its tunables (-D defines and launch sizes) with the values below, or those a profile entry's
 * `tunables:` gives; its constraints are the kernel's own and the entry's `constraints:`.
 *
 * Pruning, before anything is built or launched: every configuration's launch geometry is worked
 * out (global and local sizes, local memory) and checked against the device (the maximum
 * work-group size and per-dimension sizes, local memory, a global size that is a multiple of the
 * local size), then the constraint expressions. After a build, a work-group above the kernel's
 * own maximum (CL_KERNEL_WORK_GROUP_SIZE: register pressure) is pruned too, before any launch.
 * The dot's second kernel (dot_final, one work-group) has a size of the suite's choosing, not a
 * tunable: 64, or the largest power of two below it that the device and the kernel allow (the
 * figure final_wg_used).
 *
 * Each configuration the search proposes is built, measured by the harness (gb_case_measure:
 * the entry's measurement budget) and verified; it is recorded as a result of its own whose
 * params are the case's plus the tunables (the landscape). A configuration that fails to build
 * or to verify is recorded failed and disqualified. The kernel's default configuration is always
 * measured first: it is the baseline of the speedup. The case's own result is the best
 * configuration, measured again by the runner, with the figures speedup (over the default),
 * default (the default's value), evaluations, valid, pruned, failed and the best configuration.
 *
 * Verification is exact: the inputs are small integers (dot: 0, 1; gemm: -2..2), so every
 * partial sum of any order of additions is an integer below 2^24 and float arithmetic is exact;
 * the outputs must equal the host's integer reference bit for bit. The dot's terms are never
 * negative, so a configuration that drops a chunk of m terms is caught unless every one of them
 * is 0 (probability (3/4)^m), where terms of both signs would often cancel. Outputs are filled
 * with NaN before each configuration runs, so one that writes nothing cannot pass on its
 * predecessor's output.
 *
 * The cache (src/run/tuning_cache.h): a search stores its best configuration for (device, driver,
 * kernel, problem), unless the entry there came from a larger search (more evaluations) and is
 * at least as fast; with `tuned: true` a case whose cache has an entry measures the default and
 * the cached configuration only, and stores nothing. The figure `cache` says what happened.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/config.h"
#include "run/subcase.h"
#include "run/measure.h"
#include "run/suite.h"
#include "run/tune.h"
#include "run/tuning_cache.h"
#include "suites/common.h"
#include "base/units.h"
#include "base/util.h"

#include "suites/tuning_state.h"

static const struct kdef kdefs[] = {
    [K_DOT] =
        {
            .name = "dot",
            .file = "dot.cl",
            .def_size = 1 << 24,
            /* Defaults: the memory suite's (BabelStream's) dot — 256 work-items, grid-stride, tree
         * reduction, 64 work-groups per compute unit. */
            .tun = {{"WG", 7, {16, 32, 64, 128, 256, 512, 1024}, 256},
                    {"VEC", 5, {1, 2, 4, 8, 16}, 1},
                    {"LAYOUT", 2, {0, 1}, 1},
                    {"REDUCE", 3, {0, 1, 2}, 0},
                    {"GPC", 4, {1, 4, 16, 64}, 64}},
            .ntun = 5,
            .cons = {{"n % VEC == 0", "n not a multiple of VEC"},
                     {"REDUCE != 0 || pow2(WG)", "tree reduction needs a power-of-two WG"}},
            .ncons = 2,
        },
    [K_TRANSPOSE] =
        {
            .name = "transpose",
            .file = "transpose.cl",
            .def_size = 2048,
            /* Defaults: Ruetsch and Micikevicius's tile 32 with 8 rows of work-items, padded. */
            .tun = {{"TILE", 5, {4, 8, 16, 32, 64}, 32},
                    {"ROWS", 4, {1, 2, 4, 8}, 4},
                    {"LOCAL", 2, {0, 1}, 1},
                    {"PAD", 2, {0, 1}, 1}},
            .ntun = 4,
            .cons = {{"TILE % ROWS == 0", "ROWS does not divide TILE"},
                     {"n % ROWS == 0", "n not a multiple of ROWS"},
                     {"LOCAL == 1 || PAD == 0", "PAD means nothing without LOCAL"}},
            .ncons = 3,
        },
    [K_GEMM] =
        {
            .name = "gemm",
            .file = "gemm.cl",
            .def_size = 512,
            /* Defaults and rules: kernels/gemm.cl. */
            .tun = {{"TS", 4, {16, 32, 64, 128}, 32},
                    {"WPT", 4, {1, 2, 4, 8}, 4},
                    {"TSK", 4, {4, 8, 16, 32}, 16},
                    {"UNROLL", 4, {1, 2, 4, 8}, 4}},
            .ntun = 4,
            .cons = {{"TS % WPT == 0", "WPT does not divide TS"},
                     {"(TS * TSK) % ((TS / WPT) * (TS / WPT)) == 0",
                      "work-items would load unequal shares of a tile"},
                     {"TSK % UNROLL == 0", "UNROLL does not divide TSK"}},
            .ncons = 3,
        },
};
#define NKERNELS (sizeof kdefs / sizeof kdefs[0])

static const char *const kernel_names[] = {"dot", "transpose", "gemm", NULL};
static const char *const search_names[] = {"exhaustive", "random", "anneal", NULL};

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("kernel", "[dot, transpose, gemm]", kernel_names,
                "the tunable kernel: dot, transpose (2-D tiled), gemm"),
    GB_AXIS_INT("size", "0", 0, INT64_C(1) << 34,
                "problem size: dot elements, transpose rows = columns, gemm m = n = k (0: the "
                "kernel's default: 2^24, 2048, 512)"),
    GB_AXIS_STR("search", "anneal", search_names,
                "exhaustive, random (budget) or anneal (simulated annealing, budget)"),
    GB_AXIS_INT("budget", "0", 0, 1000000,
                "configurations a random or anneal search measures (0: a quarter of the valid "
                "ones); exhaustive measures every valid one"),
    GB_AXIS_INT("seed", "1", 0, INT64_MAX,
                "the seed of random and anneal (same seed, same proposals)"),
};

/* ---- data ---------------------------------------------------------------------------------- */

/* A reproducible small integer in [lo, hi] for element i of stream s (splitmix64 of both). */
static float small_int(uint64_t s, uint64_t i, int lo, int hi)
{
    uint64_t st = s * UINT64_C(0x9E3779B97F4A7C15) ^ i;
    return (float)(lo + (int)gb_rand_below(&st, (uint64_t)(hi - lo + 1)));
}

static int alloc_up(struct gb_case_ctx *ctx, struct gb_buf **b, const float *host, uint64_t n)
{
    int err = gb_case_alloc(ctx, n * sizeof(float), GB_MEM_DEVICE, b);
    if (!err && host)
        err = gb_case_upload(ctx, *b, host, n * sizeof(float));
    return err;
}

static int prepare_data(struct gb_case_ctx *ctx, struct tuning *t)
{
    uint64_t n = t->n, in_elems, out_elems;
    if (t->kid == K_DOT) {
        in_elems = n, out_elems = 1;
    } else {
        if (n > (UINT64_C(1) << 31) / n)
            return gb_case_skip(ctx, "a %" PRIu64 " x %" PRIu64 " matrix is too large", n, n);
        in_elems = out_elems = n * n;
    }
    t->in_elems = in_elems;
    t->out_elems = out_elems;
    uint64_t dev_bytes = (2 * in_elems + out_elems) * sizeof(float);
    if (t->info->global_mem && dev_bytes > t->info->global_mem)
        return gb_case_skip(ctx, "%" PRIu64 " bytes of buffers exceed the device's memory",
                            dev_bytes);
    t->ha = malloc(in_elems * sizeof(float));
    t->hb = t->kid == K_TRANSPOSE ? NULL : malloc(in_elems * sizeof(float));
    t->hcheck = malloc(out_elems * sizeof(float));
    t->nan_fill = malloc(out_elems * sizeof(float));
    if (!t->ha || (t->kid != K_TRANSPOSE && !t->hb) || !t->hcheck || !t->nan_fill)
        return GB_FAIL(GB_ENOMEM, "host copies of %" PRIu64 " elements", in_elems);
    for (uint64_t i = 0; i < out_elems; i++)
        t->nan_fill[i] = NAN;
    int err = 0;
    switch (t->kid) {
    case K_DOT: {
        int64_t sum = 0;
        for (uint64_t i = 0; i < n; i++) {
            t->ha[i] = small_int(1, i, 0, 1);
            t->hb[i] = small_int(2, i, 0, 1);
            sum += (int64_t)t->ha[i] * (int64_t)t->hb[i];
        }
        t->dot_ref = (double)sum;
        if ((err = alloc_up(ctx, &t->a, t->ha, n)) || (err = alloc_up(ctx, &t->b, t->hb, n)) ||
            (err = alloc_up(ctx, &t->c, NULL, 1)) ||
            (err = alloc_up(ctx, &t->partial, NULL, t->max_partial ? t->max_partial : 1)))
            return err;
        break;
    }
    case K_TRANSPOSE:
        for (uint64_t i = 0; i < in_elems; i++)
            t->ha[i] = (float)(i % 16777216);
        if ((err = alloc_up(ctx, &t->a, t->ha, in_elems)) ||
            (err = alloc_up(ctx, &t->c, NULL, out_elems)))
            return err;
        break;
    case K_GEMM: {
        /* Column-major m x k times k x n, all n here. */
        for (uint64_t i = 0; i < in_elems; i++) {
            t->ha[i] = small_int(3, i, -2, 2);
            t->hb[i] = small_int(4, i, -2, 2);
        }
        t->gemm_ref = malloc(out_elems * sizeof(float));
        int32_t *acc = calloc(n, sizeof *acc);
        if (!t->gemm_ref || !acc) {
            free(acc);
            return GB_FAIL(GB_ENOMEM, "gemm reference");
        }
        /* C(:, j) = sum_l A(:, l) * B(l, j): integer arithmetic, exact. */
        for (uint64_t j = 0; j < n; j++) {
            memset(acc, 0, n * sizeof *acc);
            for (uint64_t l = 0; l < n; l++) {
                int32_t blj = (int32_t)t->hb[l + j * n];
                if (!blj)
                    continue;
                const float *acol = t->ha + l * n;
                for (uint64_t i = 0; i < n; i++)
                    acc[i] += (int32_t)acol[i] * blj;
            }
            for (uint64_t i = 0; i < n; i++)
                t->gemm_ref[i + j * n] = (float)acc[i];
        }
        free(acc);
        if ((err = alloc_up(ctx, &t->a, t->ha, in_elems)) ||
            (err = alloc_up(ctx, &t->b, t->hb, in_elems)) ||
            (err = alloc_up(ctx, &t->c, NULL, out_elems)))
            return err;
        break;
    }
    }
    return 0;
}

/* ---- one configuration ------------------------------------------------------------------ */

static void inst_free(struct gb_case_ctx *ctx, struct inst *in)
{
    for (int i = 0; i < 2; i++)
        if (in->k[i])
            ctx->ops->kernel_free(in->k[i]);
    if (in->prog)
        ctx->ops->program_free(in->prog);
    memset(in, 0, sizeof *in);
}

static struct gb_arg abuf(struct gb_buf *b)
{
    return (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = b};
}

static struct gb_arg au64(uint64_t v)
{
    return (struct gb_arg){.kind = GB_ARG_U64, .v.u64 = v};
}

/* Builds configuration c into t->cur. GB_ESKIP (in *why) when the kernel's own work-group limit
 * prunes it; GB_EBUILD and others as errors. */
static int instantiate(struct gb_case_ctx *ctx, struct tuning *t, const size_t *c, char *why,
                       size_t whylen)
{
    inst_free(ctx, &t->cur);
    char defs[GB_TUNE_MAX_TUNABLES + 2][48];
    const char *dp[GB_TUNE_MAX_TUNABLES + 2];
    size_t nd = 0;
    snprintf(defs[nd], sizeof defs[0], "T=float");
    dp[nd] = defs[nd];
    nd++;
    for (size_t i = 0; i < t->space.n; i++, nd++) {
        snprintf(defs[nd], sizeof defs[0], "%s=%lld", t->space.t[i].name,
                 (long long)t->space.t[i].values[c[i]]);
        dp[nd] = defs[nd];
    }
    if (t->kid == K_DOT && t->fwg != 64) { /* fitted below kernels/dot.cl's default */
        snprintf(defs[nd], sizeof defs[0], "FWG=%u", t->fwg);
        dp[nd] = defs[nd];
        nd++;
    }
    static const char *const knames[][2] = {
        [K_DOT] = {"dot_partial", "dot_final"},
        [K_TRANSPOSE] = {"transpose", NULL},
        [K_GEMM] = {"gemm_tiled", NULL},
    };
    struct inst *in = &t->cur;
    int err = gb_case_build(ctx, t->kd->file, knames[t->kid][0], dp, nd, &in->prog, &in->k[0]);
    if (err)
        return err;
    if (knames[t->kid][1] && (err = ctx->ops->kernel_get(in->prog, knames[t->kid][1], &in->k[1])))
        return err;
    uint64_t lb;
    gb__tuning_geometry(t, c, in->l, &in->nl, &lb);
    for (size_t i = 0; i < in->nl; i++) {
        uint32_t kmax = 0, wg = in->l[i].local[0] * in->l[i].local[1] * in->l[i].local[2];
        if ((err = ctx->ops->kernel_max_wg(in->k[i], &kmax)))
            return err;
        if (t->kid == K_DOT && i == 1 && wg > kmax && kmax > 0) {
            /* dot_final's size is ours: fitted to the kernel, rebuilt with it, and kept for the
             * configurations after this one (the first one built fits it, before any launch). */
            t->fwg = 1;
            while (t->fwg * 2 <= kmax)
                t->fwg *= 2;
            return instantiate(ctx, t, c, why, whylen);
        }
        if (wg > kmax) {
            snprintf(why, whylen, "work-group of %u work-items above this kernel's maximum %u", wg,
                     kmax);
            return GB_ESKIP;
        }
    }
    struct gb_launch *l = in->l;
    switch (t->kid) {
    case K_DOT: {
        uint64_t parts =
            gb__tuning_val(t, c, "REDUCE") == 2 ? l[0].global[0] : l[0].global[0] / l[0].local[0];
        l[0].nargs = 4;
        l[0].args[0] = abuf(t->a), l[0].args[1] = abuf(t->b), l[0].args[2] = abuf(t->partial);
        l[0].args[3] = au64(t->n);
        l[1].nargs = 3;
        l[1].args[0] = abuf(t->partial), l[1].args[1] = abuf(t->c), l[1].args[2] = au64(parts);
        break;
    }
    case K_TRANSPOSE:
        l[0].nargs = 4;
        l[0].args[0] = abuf(t->a), l[0].args[1] = abuf(t->c);
        l[0].args[2] = au64(t->n), l[0].args[3] = au64(t->n);
        break;
    case K_GEMM:
        l[0].nargs = 11;
        l[0].args[0] = au64(t->n), l[0].args[1] = au64(t->n), l[0].args[2] = au64(t->n);
        l[0].args[3] = (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = 1.0f};
        l[0].args[4] = (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = 0.0f};
        l[0].args[5] = abuf(t->a), l[0].args[6] = au64(t->n);
        l[0].args[7] = abuf(t->b), l[0].args[8] = au64(t->n);
        l[0].args[9] = abuf(t->c), l[0].args[10] = au64(t->n);
        break;
    }
    /* A configuration must not pass on the output its predecessor left. */
    return gb_case_upload(ctx, t->c, t->nan_fill, t->out_elems * sizeof(float));
}

static int cfg_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct tuning *t = ctx->state;
    int err = 0;
    for (uint64_t r = 0; r < reps && !err; r++)
        for (size_t i = 0; i < t->cur.nl && !err; i++)
            err = ctx->ops->launch(ctx->q, t->cur.k[i], &t->cur.l[i]);
    return err;
}

static int cfg_verify(struct gb_case_ctx *ctx)
{
    struct tuning *t = ctx->state;
    int err = gb_case_download(ctx, t->hcheck, t->c, t->out_elems * sizeof(float));
    if (err)
        return err;
    ctx->max_error = 0;
    switch (t->kid) {
    case K_DOT:
        if (!((double)t->hcheck[0] == t->dot_ref)) {
            ctx->max_error = fabs((double)t->hcheck[0] - t->dot_ref) / fmax(1, fabs(t->dot_ref));
            return gb_case_mismatch(ctx, "dot = %.9g, expected exactly %.0f", t->hcheck[0],
                                    t->dot_ref);
        }
        return 0;
    case K_TRANSPOSE:
        for (uint64_t y = 0; y < t->n; y++)
            for (uint64_t x = 0; x < t->n; x++) {
                float got = t->hcheck[x * t->n + y], want = t->ha[y * t->n + x];
                if (!(got == want)) {
                    ctx->max_error = INFINITY;
                    return gb_case_mismatch(ctx,
                                            "out[%" PRIu64 "][%" PRIu64 "] = %.9g, expected "
                                            "in[%" PRIu64 "][%" PRIu64 "] = %.9g",
                                            x, y, got, y, x, want);
                }
            }
        return 0;
    case K_GEMM:
        for (uint64_t i = 0; i < t->out_elems; i++)
            if (!(t->hcheck[i] == t->gemm_ref[i])) {
                ctx->max_error = INFINITY;
                return gb_case_mismatch(ctx,
                                        "C(%" PRIu64 ", %" PRIu64 ") = %.9g, expected exactly "
                                        "%.0f",
                                        i % t->n, i / t->n, t->hcheck[i], t->gemm_ref[i]);
            }
        return 0;
    }
    return 0;
}

/* The table gb_case_measure() drives for one configuration. */
static const struct gb_suite config_op = {
    .name = "tuning",
    .run = cfg_run,
    .verify = cfg_verify,
};

/* ---- the search ------------------------------------------------------------------------- */

/* The per-configuration result's params: the case's, then the tunables (as many as fit). */
static void config_params(const struct gb_case_ctx *ctx, const struct tuning *t, const size_t *c,
                          struct gb_params *p)
{
    *p = *ctx->params;
    for (size_t i = 0; i < t->space.n && p->n < GB_MAX_AXES; i++) {
        p->name[p->n] = t->space.t[i].name;
        p->v[p->n] = (struct gb_value){.type = GB_V_INT, .u.i = t->space.t[i].values[c[i]]};
        p->n++;
    }
}

/* Builds, measures, verifies and records configuration c. *cost is its median seconds per
 * operation (INFINITY when it failed); NaN when it was pruned once built (no evaluation, nothing
 * recorded). Returns 0, GB_EINTR or GB_ENOMEM. */
static int evaluate(struct gb_case_ctx *ctx, struct tuning *t, const size_t *c, const char *role,
                    double *cost)
{
    *cost = INFINITY;
    struct gb_params p;
    config_params(ctx, t, c, &p);
    char why[256] = "";
    struct gb_result r = {0};
    gb_error_clear();
    int err = instantiate(ctx, t, c, why, sizeof why);
    gb_measure_heartbeat(); /* a build: a space pruned once built may be hundreds of them */
    if (err == GB_ESKIP) {
        /* Pruned after the build, before any launch: not an evaluation. */
        t->pruned[C_KMAX]++;
        if (t->nvalid)
            t->nvalid--;
        *cost = NAN;
        return 0;
    }
    t->evaluations++;
    if (err) {
        snprintf(r.suite, sizeof r.suite, "tuning");
        snprintf(r.case_name, sizeof r.case_name, "%s", t->kd->name);
        snprintf(r.backend, sizeof r.backend, "%s", ctx->ops->name);
        r.params = p;
        r.device_index = -1;
        if (ctx->extra)
            for (size_t k = 0; k < ctx->extra->ndevices; k++)
                if (ctx->extra->devices[k].index == ctx->dev->index &&
                    strcmp(ctx->extra->devices[k].backend, ctx->ops->name) == 0)
                    r.device_index = (int)k;
        r.status = GB_STATUS_FAILED;
        snprintf(r.reason, sizeof r.reason, "build: %s: %s", gb_strerror(err), gb_error_msg());
    } else {
        err = gb_case_measure(ctx, &config_op, t, &t->desc, t->kd->name, &p, NULL, &r, cost);
        if (err == GB_EINTR) {
            t->evaluations--;
            return err;
        }
    }
    if (r.status != GB_STATUS_OK)
        t->failed++;
    if (role)
        gb_result_text(&r, "role", "%s", role);
    if (r.status == GB_STATUS_OK && t->default_time > 0)
        gb_result_figure(&r, "speedup", "x", t->default_time / *cost);
    return gb_case_record(ctx, &r);
}

static bool same_choice(const struct tuning *t, const size_t *a, const size_t *b)
{
    return memcmp(a, b, t->space.n * sizeof a[0]) == 0;
}

/* Records cost for choice c as a candidate for the best. */
static void consider(struct tuning *t, const size_t *c, double cost)
{
    if (isfinite(cost) && (!t->have_best || cost < t->best_time)) {
        t->have_best = true;
        t->best_time = cost;
        memcpy(t->best, c, t->space.n * sizeof c[0]);
    }
}

/* With `tuned: true` and a cache entry that is a valid configuration of the space: measures the
 * default and the cached configuration. Returns 1 when it did, 0 when there is no usable entry. */
static int use_cache(struct gb_case_ctx *ctx, struct tuning *t, const size_t *def, int *err)
{
    struct gb_tuning_entry e;
    bool found = false;
    *err = 0;
    int rc = gb_case_tuning_lookup(ctx, t->kd->name, t->problem, &e, &found);
    if (rc) {
        snprintf(t->cache_note, sizeof t->cache_note, "unreadable: %.50s", gb_error_msg());
        return 0;
    }
    if (!found)
        return 0;
    size_t c[GB_TUNE_MAX_TUNABLES];
    for (size_t i = 0; i < t->space.n; i++) {
        int64_t v = gb_tuning_get(&e, t->space.t[i].name, t->space.t[i].values[t->space.t[i].def]);
        c[i] = SIZE_MAX;
        for (size_t j = 0; j < t->space.t[i].n; j++)
            if (t->space.t[i].values[j] == v)
                c[i] = j;
        if (c[i] == SIZE_MAX) {
            snprintf(t->cache_note, sizeof t->cache_note, "entry outside the space: searched");
            return 0;
        }
    }
    if (!gb__tuning_valid(t, c)) {
        snprintf(t->cache_note, sizeof t->cache_note, "entry pruned here: searched");
        return 0;
    }
    /* The cached configuration first: one a driver prunes once built (over the kernel's own
     * work-group maximum) cannot be used, and the search runs instead. */
    t->from_cache = true;
    const bool same = same_choice(t, def, c);
    double cost = NAN, dcost;
    if (!same && (*err = evaluate(ctx, t, c, "cached", &cost)))
        return 1;
    if (!same && isnan(cost))
        goto pruned;
    if ((*err = evaluate(ctx, t, def, "default", &dcost)))
        return 1;
    if (same && isnan(dcost))
        goto pruned;
    if (!isnan(dcost)) {
        t->default_time = dcost;
        consider(t, def, dcost);
    }
    if (!same)
        consider(t, c, cost);
    return 1;
pruned:
    t->from_cache = false;
    snprintf(t->cache_note, sizeof t->cache_note, "entry pruned once built: searched");
    return 0;
}

static int run_search(struct gb_case_ctx *ctx, struct tuning *t, const size_t *def)
{
    struct gb_search *x;
    int err = gb_search_create(t->search, &t->space, gb__tuning_valid, t, t->budget, t->seed, &x);
    if (err)
        return err;
    size_t c[GB_TUNE_MAX_TUNABLES];
    while (gb_search_next(x, c)) {
        bool is_def = same_choice(t, c, def);
        double cost;
        err = evaluate(ctx, t, c, is_def ? "default" : NULL, &cost);
        if (err)
            break;
        if (isnan(cost)) { /* pruned once built: not a step of the budget */
            gb_search_prune(x);
            continue;
        }
        if (is_def)
            t->default_time = cost;
        gb_search_tell(x, cost);
        consider(t, c, cost);
    }
    gb_search_free(x);
    return err;
}

/* ---- the case ------------------------------------------------------------------------------ */

static bool tuning_normalize(struct gb_params *p)
{
    const char *k = gb_params_str(p, "kernel");
    for (size_t i = 0; i < p->n; i++) {
        if (strcmp(p->name[i], "size") == 0 && p->v[i].u.i == 0)
            for (size_t j = 0; j < NKERNELS; j++)
                if (strcmp(kdefs[j].name, k) == 0)
                    p->v[i].u.i = kdefs[j].def_size;
        /* Exhaustive has neither a budget nor a seed: one case whatever the sweep says. */
        if (strcmp(gb_params_str(p, "search"), "exhaustive") == 0 &&
            (strcmp(p->name[i], "budget") == 0 || strcmp(p->name[i], "seed") == 0))
            p->v[i].u.i = 0;
    }
    return true;
}

/* An exhaustive search has neither a budget nor a seed (normalize records 0): neither applies
 * to it (what people read leaves them out; results keep them). */
static bool tuning_axis_applies(const struct gb_params *p, const char *axis)
{
    if (strcmp(axis, "budget") == 0 || strcmp(axis, "seed") == 0)
        return strcmp(gb_params_str(p, "search"), "exhaustive") != 0;
    return true;
}

static int tuning_setup(struct gb_case_ctx *ctx)
{
    struct tuning *t = ctx->state;
    const char *kname = gb_params_str(ctx->params, "kernel");
    for (size_t i = 0; i < NKERNELS; i++)
        if (strcmp(kdefs[i].name, kname) == 0)
            t->kid = (enum kid)i;
    t->kd = &kdefs[t->kid];
    t->info = &ctx->dev->info;
    t->fwg = 64;
    while (t->info->max_wg_size && t->fwg > t->info->max_wg_size)
        t->fwg /= 2;
    t->n = (uint64_t)gb_params_int(ctx->params, "size");
    if (t->n == 0)
        t->n = (uint64_t)t->kd->def_size;
    t->search = (enum gb_search_kind)gb_search_parse(gb_params_str(ctx->params, "search"));
    t->budget = (uint64_t)gb_params_int(ctx->params, "budget");
    t->seed = (uint64_t)gb_params_int(ctx->params, "seed");
    switch (t->kid) {
    case K_DOT:
        snprintf(t->problem, sizeof t->problem, "n=%" PRIu64 " type=float", t->n);
        break;
    case K_TRANSPOSE:
        snprintf(t->problem, sizeof t->problem, "rows=%" PRIu64 " cols=%" PRIu64 " type=float",
                 t->n, t->n);
        break;
    case K_GEMM:
        snprintf(t->problem, sizeof t->problem, GB_TUNING_GEMM_PROBLEM, (unsigned long long)t->n,
                 (unsigned long long)t->n, (unsigned long long)t->n);
        break;
    }
    int err = gb__tuning_build_space(ctx, t);
    if (err)
        return err;
    if (gb_space_size(&t->space) > GB_TUNE_MAX_SPACE)
        return gb_case_skip(ctx, "the search space has more than %llu configurations",
                            (unsigned long long)GB_TUNE_MAX_SPACE);
    gb__tuning_prune_pass(t);
    char pt[128];
    if (t->nvalid == 0)
        return gb_case_skip(ctx,
                            "every one of the %" PRIu64 " configurations is pruned on this "
                            "device (%s)",
                            t->space_size, gb__tuning_pruned_text(t, pt, sizeof pt));
    if (t->budget == 0 && t->search != GB_SEARCH_EXHAUSTIVE)
        t->budget = t->nvalid / 4 > 2 ? t->nvalid / 4 : 2;
    if ((err = prepare_data(ctx, t)))
        return err;

    t->desc.timer = GB_TIMER_DEVICE;
    switch (t->kid) {
    case K_DOT:
        t->desc.bytes = 2.0 * (double)t->n * sizeof(float);
        t->desc.flops = 2.0 * (double)t->n;
        t->desc.working_set = t->desc.bytes;
        break;
    case K_TRANSPOSE:
        t->desc.bytes = 2.0 * (double)t->n * (double)t->n * sizeof(float);
        t->desc.working_set = t->desc.bytes;
        break;
    case K_GEMM:
        t->desc.flops = 2.0 * (double)t->n * (double)t->n * (double)t->n;
        break;
    }

    size_t def[GB_TUNE_MAX_TUNABLES];
    for (size_t i = 0; i < t->space.n; i++)
        def[i] = t->space.t[i].def;
    if (!use_cache(ctx, t, def, &err))
        err = run_search(ctx, t, def);
    if (err == GB_ENOMEM)
        return err;
    /* Interrupted: the configurations measured so far are recorded; the best of them is set up
     * as the case's operation (whose measurement the runner then drops), and nothing is stored
     * in the cache from a search cut short. */
    const bool interrupted = err == GB_EINTR;
    if (!t->have_best) {
        if (interrupted)
            return gb_case_skip(ctx, "interrupted before a configuration was measured");
        if (t->evaluations == 0) /* nothing ran, so no failed result exists to point at */
            return gb_case_skip(ctx,
                                "every configuration was pruned on this device before a launch "
                                "(%s)",
                                gb__tuning_pruned_text(t, pt, sizeof pt));
        return gb_case_skip(ctx,
                            "no configuration of the %" PRIu64 " measured passed verification "
                            "(%" PRIu64 " failed: see their results)",
                            t->evaluations, t->failed);
    }
    /* The best configuration is the case's operation, measured again by the runner. */
    char why[256];
    if ((err = instantiate(ctx, t, t->best, why, sizeof why)))
        return err == GB_ESKIP ? gb_case_skip(ctx, "%s", why) : err;
    ctx->op = t->desc;
    if (!t->from_cache && !interrupted) {
        struct gb_tuning_entry e = {.n = t->space.n,
                                    .time_s = t->best_time,
                                    .default_time_s = t->default_time,
                                    .evaluations = t->evaluations};
        snprintf(e.search, sizeof e.search, "%s", gb_search_name(t->search));
        for (size_t i = 0; i < t->space.n; i++) {
            snprintf(e.name[i], sizeof e.name[i], "%s", t->space.t[i].name);
            e.value[i] = t->space.t[i].values[t->best[i]];
        }
        /* A smaller search that found nothing faster does not replace a larger one's entry. */
        const char *path = ctx->run ? ctx->run->tuning_cache : NULL;
        struct gb_tuning_entry old;
        bool found = false;
        int rc = gb_tuning_lookup(path, ctx->dev, t->kd->name, t->problem, &old, &found);
        if (!rc && found && old.evaluations > e.evaluations && old.time_s > 0 &&
            old.time_s <= e.time_s) {
            snprintf(t->cache_note, sizeof t->cache_note, "kept: a larger search's entry");
        } else {
            rc = gb_tuning_store(path, ctx->dev, t->kd->name, t->problem, &e);
            t->cache_stored = rc == 0;
            if (rc)
                snprintf(t->cache_note, sizeof t->cache_note, "not written: %.48s", gb_error_msg());
        }
    }
    return 0;
}

static int tuning_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    return cfg_run(ctx, reps);
}

static void tuning_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    struct tuning *t = ctx->state;
    char buf[128];
    gb_case_text(ctx, "best", "%s", gb_space_format(&t->space, t->best, buf, sizeof buf));
    if (t->default_time > 0 && isfinite(t->default_time)) {
        gb_case_figure(ctx, "speedup", "x", t->default_time / op_time_s);
        double per_s = t->desc.bytes > 0 ? t->desc.bytes : t->desc.flops;
        gb_case_figure(ctx, "default", t->desc.bytes > 0 ? "GB/s" : "GFLOP/s",
                       per_s / t->default_time / 1e9);
    }
    gb_case_figure(ctx, "evaluations", "", (double)t->evaluations);
    gb_case_figure(ctx, "valid", "", (double)t->nvalid);
    gb_case_figure(ctx, "space", "", (double)t->space_size);
    gb_case_figure(ctx, "pruned", "", (double)gb__tuning_pruned_total(t));
    if (gb__tuning_pruned_total(t))
        gb_case_text(ctx, "pruned_by", "%s", gb__tuning_pruned_text(t, buf, sizeof buf));
    gb_case_figure(ctx, "failed", "", (double)t->failed);
    if (t->kid == K_DOT && t->fwg != 64)
        gb_case_figure(ctx, "final_wg_used", "", t->fwg);
    gb_case_text(ctx, "source", "%s", t->from_cache ? "cache" : gb_search_name(t->search));
    gb_case_text(ctx, "cache", "%s",
                 t->cache_stored    ? "stored"
                 : t->from_cache    ? "used"
                 : t->cache_note[0] ? t->cache_note
                                    : "-");
}

static void tuning_teardown(struct gb_case_ctx *ctx)
{
    struct tuning *t = ctx->state;
    inst_free(ctx, &t->cur);
    gb_case_free_bufs(ctx, &t->a, &t->b, &t->c, &t->partial, NULL);
    for (size_t i = 0; i < t->ncons; i++)
        gb_expr_free(t->cons[i].e);
    free(t->ha);
    free(t->hb);
    free(t->hcheck);
    free(t->gemm_ref);
    free(t->nan_fill);
}

const struct gb_suite gb_suite_tuning = {
    .name = "tuning",
    .summary = "work-group / thread-block tuning of the dot, transpose and gemm kernels "
               "(landscape, best, speedup over the default; tuning cache)",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "kernel",
    .state_size = sizeof(struct tuning),
    .normalize = tuning_normalize,
    .axis_applies = tuning_axis_applies,
    .setup = tuning_setup,
    .run = tuning_run,
    .verify = cfg_verify,
    .teardown = tuning_teardown,
    .figures = tuning_figures,
    .search_space = true,
};
