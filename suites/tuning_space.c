/* gpubench — the tuning suite's search space: its variables, constraints and pruning, and each
 * configuration's launch geometry (state in tuning_state.h; the suite in tuning.c). */
#include "suites/tuning_state.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "run/config.h"
#include "suites/common.h"

static const char *const cat_short[NCAT] = {"wg>max",     "dim>max",   "lmem>max", "global%wg",
                                            "constraint", "wg>kernel", "loops>max"};

/* ---- space, constraints, geometry ----------------------------------------------------- */

int64_t gb__tuning_val(const struct tuning *t, const size_t *choice, const char *name)
{
    int i = gb_space_find(&t->space, name);
    return i < 0 ? 0 : t->space.t[i].values[choice[i]];
}

/* The launches of configuration `choice` (without arguments), and its local memory in bytes. */
void gb__tuning_geometry(const struct tuning *t, const size_t *c, struct gb_launch *l, size_t *nl,
                         uint64_t *local_bytes)
{
    memset(l, 0, 2 * sizeof *l);
    for (int i = 0; i < 2; i++)
        for (int d = 0; d < 3; d++)
            l[i].global[d] = 1, l[i].local[d] = 1;
    switch (t->kid) {
    case K_DOT: {
        int64_t wg = gb__tuning_val(t, c, "WG"), gpc = gb__tuning_val(t, c, "GPC"),
                red = gb__tuning_val(t, c, "REDUCE");
        uint64_t cu = t->info->compute_units ? t->info->compute_units : 1;
        l[0].dims = l[1].dims = 1;
        l[0].local[0] = (uint32_t)wg;
        l[0].global[0] = (uint64_t)gpc * cu * (uint64_t)wg;
        l[1].local[0] = l[1].global[0] = t->fwg; /* dot_final: FWG */
        *nl = 2;
        *local_bytes = (red == 2 ? 0 : (uint64_t)wg * sizeof(float));
        if ((uint64_t)t->fwg * sizeof(float) > *local_bytes)
            *local_bytes = (uint64_t)t->fwg * sizeof(float);
        break;
    }
    case K_TRANSPOSE: {
        int64_t tile = gb__tuning_val(t, c, "TILE"), rows = gb__tuning_val(t, c, "ROWS");
        l[0].dims = 2;
        l[0].local[0] = (uint32_t)tile;
        l[0].local[1] = (uint32_t)(rows > 0 ? tile / rows : 0);
        l[0].global[0] = t->n;
        l[0].global[1] = rows > 0 ? t->n / (uint64_t)rows : 0;
        *nl = 1;
        *local_bytes =
            gb__tuning_val(t, c, "LOCAL")
                ? (uint64_t)tile * (uint64_t)(tile + gb__tuning_val(t, c, "PAD")) * sizeof(float)
                : 0;
        break;
    }
    case K_GEMM: {
        int64_t ts = gb__tuning_val(t, c, "TS"), wpt = gb__tuning_val(t, c, "WPT"),
                tsk = gb__tuning_val(t, c, "TSK");
        uint64_t rts = wpt > 0 ? (uint64_t)(ts / wpt) : 0,
                 tiles = (t->n + (uint64_t)ts - 1) / (uint64_t)ts;
        l[0].dims = 2;
        l[0].local[0] = l[0].local[1] = (uint32_t)rts;
        l[0].global[0] = l[0].global[1] = tiles * rts;
        *nl = 1;
        *local_bytes = 2 * (uint64_t)ts * (uint64_t)tsk * sizeof(float);
        break;
    }
    }
}

/* Loop iterations one work-item of configuration c runs (its launches l from
 * gb__tuning_geometry), counted as gb_case_loop_fits counts: dot, gb_dot_tuned_trips; transpose,
 * three loops of ROWS rows (kernels/transpose.cl); gemm, gb_gemm_tiled_trips for k = n. */
static uint64_t loop_trips(const struct tuning *t, const size_t *c, const struct gb_launch *l)
{
    switch (t->kid) {
    case K_DOT: {
        const int64_t vec = gb__tuning_val(t, c, "VEC"), wg = gb__tuning_val(t, c, "WG"),
                      red = gb__tuning_val(t, c, "REDUCE");
        const uint64_t items = l[0].global[0], nv = vec > 0 ? t->n / (uint64_t)vec : t->n;
        const uint64_t parts = red == 2 ? items : items / l[0].local[0];
        return gb_dot_tuned_trips((nv + items - 1) / items, vec, wg, red, parts, t->fwg);
    }
    case K_TRANSPOSE:
        return 3 * (uint64_t)gb__tuning_val(t, c, "ROWS");
    case K_GEMM:
        return gb_gemm_tiled_trips(gb__tuning_val(t, c, "TS"), gb__tuning_val(t, c, "WPT"),
                                   gb__tuning_val(t, c, "TSK"), t->n);
    }
    return 0;
}

/* Whether configuration c may be built and launched here; the category when not. */
static bool check(const struct tuning *t, const size_t *c, enum cat *why, char *text, size_t len)
{
    /* The kernel's rules and the profile's constraints first: a configuration that breaks
     * them has no meaningful geometry (TILE / ROWS of 0). */
    size_t failed;
    if (!gb_space_check(&t->space, c, t->cons, t->ncons, t->vars, t->nvars, &failed, text, len)) {
        *why = C_EXPR;
        return false;
    }
    struct gb_launch l[2];
    size_t nl = 0;
    uint64_t lbytes = 0;
    gb__tuning_geometry(t, c, l, &nl, &lbytes);
    const struct gb_device_info *in = t->info;
    for (size_t i = 0; i < nl; i++) {
        uint64_t wg = 1;
        for (uint32_t d = 0; d < l[i].dims; d++)
            wg *= l[i].local[d];
        if (wg > in->max_wg_size) {
            *why = C_WG;
            snprintf(text, len, "work-group of %" PRIu64 " work-items above the device maximum %u",
                     wg, in->max_wg_size);
            return false;
        }
        for (uint32_t d = 0; d < l[i].dims; d++) {
            if (l[i].local[d] == 0 || (in->max_wg_dims[d] && l[i].local[d] > in->max_wg_dims[d])) {
                *why = C_DIM;
                snprintf(text, len, "work-group size %u in dimension %u outside 1..%u",
                         l[i].local[d], d, in->max_wg_dims[d]);
                return false;
            }
            if (l[i].global[d] == 0 || l[i].global[d] % l[i].local[d] != 0) {
                *why = C_DIV;
                snprintf(text, len,
                         "global size %" PRIu64 " in dimension %u is not a multiple "
                         "of the work-group size %u",
                         l[i].global[d], d, l[i].local[d]);
                return false;
            }
        }
    }
    if (in->local_mem && lbytes > in->local_mem) {
        *why = C_LMEM;
        snprintf(text, len, "%" PRIu64 " bytes of local memory above the device's %" PRIu64, lbytes,
                 in->local_mem);
        return false;
    }
    const uint64_t trips = loop_trips(t, c, l);
    if (in->max_loop_trips && trips > in->max_loop_trips) {
        *why = C_LOOP;
        snprintf(text, len,
                 "the driver stops a work-item's loops after %u iterations; this configuration "
                 "needs %" PRIu64,
                 in->max_loop_trips, trips);
        return false;
    }
    return true;
}

bool gb__tuning_valid(void *user, const size_t *choice)
{
    enum cat why;
    char text[256];
    return check(user, choice, &why, text, sizeof text);
}

static void add_var(struct tuning *t, const char *name, int64_t v)
{
    if (t->nvars < MAX_VARS) {
        snprintf(t->vars[t->nvars].name, sizeof t->vars[0].name, "%s", name);
        t->vars[t->nvars++].value = v;
    }
}

struct names_ctx {
    const struct tuning *t;
    const char *bad;
};

static int name_known(void *user, const char *name)
{
    struct names_ctx *nc = user;
    if (gb_space_find(&nc->t->space, name) >= 0)
        return 0;
    for (size_t i = 0; i < nc->t->nvars; i++)
        if (strcmp(nc->t->vars[i].name, name) == 0)
            return 0;
    nc->bad = name;
    return 1;
}

/* "WG, VEC, ..., max_wg, ..." into buf. */
static const char *known_names(const struct tuning *t, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < t->space.n + t->nvars; i++) {
        const char *nm = i < t->space.n ? t->space.t[i].name : t->vars[i - t->space.n].name;
        gb_appendf(buf, len, "%s%s", i ? ", " : "", nm);
    }
    return buf;
}

/* The kernel's space with the profile entry's tunables applied, and the constraints. */
int gb__tuning_build_space(struct gb_case_ctx *ctx, struct tuning *t)
{
    const struct kdef *kd = t->kd;
    t->space.n = kd->ntun;
    for (size_t i = 0; i < kd->ntun; i++) {
        struct gb_tunable *tu = &t->space.t[i];
        snprintf(tu->name, sizeof tu->name, "%s", kd->tun[i].name);
        tu->n = kd->tun[i].n;
        memcpy(tu->values, kd->tun[i].values, tu->n * sizeof tu->values[0]);
        for (size_t j = 0; j < tu->n; j++)
            if (tu->values[j] == kd->tun[i].def)
                tu->def = j;
    }
    const struct gb_suite_run *run = ctx->run;
    for (size_t i = 0; run && i < run->ntunables; i++) {
        const struct gb_tunable_spec *sp = &run->tunables[i];
        int k = gb_space_find(&t->space, sp->name);
        if (k < 0) {
            char all[256] = "";
            for (size_t j = 0; j < kd->ntun; j++)
                gb_appendf(all, sizeof all, "%s%s", j ? ", " : "", kd->tun[j].name);
            return gb_case_skip(ctx,
                                "profile line %d, column %d: kernel %s has no tunable %s "
                                "(its tunables: %s)",
                                sp->line, sp->column, kd->name, sp->name, all);
        }
        struct gb_tunable *tu = &t->space.t[k];
        int64_t def = kd->tun[k].def;
        bool has_def = false;
        tu->n = 0;
        for (size_t j = 0; j < sp->n && tu->n < GB_TUNE_MAX_VALUES; j++) {
            has_def |= sp->values[j] == def;
            tu->values[tu->n++] = sp->values[j];
        }
        /* The default stays in the space: it is the speedup's baseline. */
        if (!has_def) {
            if (tu->n == GB_TUNE_MAX_VALUES)
                tu->n--;
            tu->values[tu->n++] = def;
        }
        for (size_t j = 0; j < tu->n; j++)
            if (tu->values[j] == def)
                tu->def = j;
    }

    const struct gb_device_info *in = t->info;
    add_var(t, "max_wg", in->max_wg_size);
    add_var(t, "max_wg_x", in->max_wg_dims[0]);
    add_var(t, "max_wg_y", in->max_wg_dims[1]);
    add_var(t, "max_wg_z", in->max_wg_dims[2]);
    add_var(t, "local_mem", (int64_t)in->local_mem);
    add_var(t, "cu", in->compute_units);
    add_var(t, "warp", in->warp_size);
    add_var(t, "n", (int64_t)t->n);
    if (t->kid == K_GEMM) {
        add_var(t, "m", (int64_t)t->n);
        add_var(t, "k", (int64_t)t->n);
    }

    char err[256];
    for (size_t i = 0; i < kd->ncons; i++) {
        struct gb_constraint *c = &t->cons[t->ncons];
        if (gb_expr_parse(kd->cons[i].expr, &c->e, err, sizeof err, NULL))
            return GB_FAIL(GB_EINVAL, "built-in constraint \"%s\": %s", kd->cons[i].expr, err);
        snprintf(c->what, sizeof c->what, "%s", kd->cons[i].what);
        t->ncons++;
    }
    for (size_t i = 0; run && i < run->nconstraints && t->ncons < MAX_CONS; i++) {
        const struct gb_constraint_spec *sp = &run->constraints[i];
        struct gb_constraint *c = &t->cons[t->ncons];
        if (gb_expr_parse(sp->text, &c->e, err, sizeof err, NULL))
            return gb_case_skip(ctx, "profile line %d: constraint \"%s\": %s", sp->line, sp->text,
                                err);
        t->ncons++;
        snprintf(c->what, sizeof c->what, "constraint (profile line %d)", sp->line);
        struct names_ctx nc = {t, NULL};
        if (gb_expr_names(c->e, name_known, &nc)) {
            char all[512];
            return gb_case_skip(ctx,
                                "profile line %d, column %d: constraint \"%s\" names %s, "
                                "which kernel %s does not know (names: %s)",
                                sp->line, sp->column, sp->text, nc.bad, kd->name,
                                known_names(t, all, sizeof all));
        }
    }
    return 0;
}

/* Counts the valid configurations and the pruned ones by category. */
void gb__tuning_prune_pass(struct tuning *t)
{
    t->space_size = gb_space_size(&t->space);
    size_t c[GB_TUNE_MAX_TUNABLES];
    for (uint64_t i = 0; i < t->space_size; i++) {
        gb_space_decode(&t->space, i, c);
        enum cat why;
        char text[256];
        if (!check(t, c, &why, text, sizeof text)) {
            t->pruned[why]++;
            continue;
        }
        t->nvalid++;
        if (t->kid == K_DOT) {
            struct gb_launch l[2];
            size_t nl;
            uint64_t lb;
            gb__tuning_geometry(t, c, l, &nl, &lb);
            uint64_t parts = gb__tuning_val(t, c, "REDUCE") == 2 ? l[0].global[0]
                                                                 : l[0].global[0] / l[0].local[0];
            if (parts > t->max_partial)
                t->max_partial = parts;
        }
    }
}

uint64_t gb__tuning_pruned_total(const struct tuning *t)
{
    uint64_t n = 0;
    for (int i = 0; i < NCAT; i++)
        n += t->pruned[i];
    return n;
}

/* "wg>max 8, global%wg 4" into buf. */
const char *gb__tuning_pruned_text(const struct tuning *t, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < NCAT; i++)
        if (t->pruned[i])
            gb_appendf(buf, len, "%s%s %" PRIu64, buf[0] ? ", " : "", cat_short[i], t->pruned[i]);
    return buf;
}
