/* gpubench — a training step's allocations and a size-class caching pool (contract in
 * pool_trace.h). */
#include "suites/pool_trace.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"

/* ---- the trace ------------------------------------------------------------------------------ */

static double next_unit(uint64_t *s)
{
    return (double)(gb_splitmix64(s) >> 11) * 0x1.0p-53;
}

static uint64_t round512(double bytes)
{
    uint64_t b = (uint64_t)bytes;
    b = (b + 511) / 512 * 512;
    return b ? b : 512;
}

struct builder {
    struct gb_pool_trace *t;
    size_t cap;
    uint32_t next_id;
    uint64_t live, peak;
};

static int emit(struct builder *bd, uint32_t id, bool alloc, uint64_t bytes)
{
    struct gb_pool_trace *t = bd->t;
    if (t->nev == bd->cap) {
        size_t cap = bd->cap ? 2 * bd->cap : 1024;
        struct gb_pool_event *ev = realloc(t->ev, cap * sizeof *ev);
        if (!ev)
            return GB_FAIL(GB_ENOMEM, "pool trace: %zu events", cap);
        t->ev = ev;
        bd->cap = cap;
    }
    t->ev[t->nev++] = (struct gb_pool_event){.id = id, .alloc = alloc, .bytes = bytes};
    if (alloc) {
        bd->live += bytes;
        if (bd->live > bd->peak)
            bd->peak = bd->live;
        if (bytes > t->bytes_max)
            t->bytes_max = bytes;
        if (!t->bytes_min || bytes < t->bytes_min)
            t->bytes_min = bytes;
    } else {
        bd->live -= bytes;
    }
    return 0;
}

/* A new allocation's id (its free is emitted with the same id and size). */
static int alloc_ev(struct builder *bd, uint64_t bytes, uint32_t *id)
{
    *id = bd->next_id++;
    return emit(bd, *id, true, bytes);
}

/* One step: forward, loss, backward, optimizer (pool_trace.h). */
static int build_step(struct builder *bd, uint32_t layers, uint64_t hidden, uint64_t *rng)
{
    /* The step's sequence length, as a fraction of the longest: [1/2, 1]. */
    const double f = 0.5 + 0.5 * next_unit(rng);
    const double h = (double)hidden * f;
    /* Attention scores grow with the square of the sequence: hidden x f^2 x 2 at the longest
     * (a few heads of seq x seq scores, the step's largest activations). */
    const uint64_t act = round512(h), qkv = round512(3 * h), mlp = round512(4 * h),
                   scores = round512(2.0 * (double)hidden * f * f);
    /* Weights (and so their gradients) do not depend on the sequence: hidden / 8 per layer. */
    const uint64_t wgrad = round512((double)hidden / 8);
    uint32_t *saved = malloc((size_t)layers * 3 * sizeof *saved);
    uint32_t *grads = malloc((size_t)layers * sizeof *grads);
    int rc = saved && grads ? 0 : GB_FAIL(GB_ENOMEM, "pool trace: %u layers", layers);
    bd->next_id = 0;
    bd->live = 0;
    for (uint32_t l = 0; l < layers && !rc; l++) {
        uint32_t q, s1;
        if ((rc = alloc_ev(bd, act, &saved[3 * l])) || (rc = alloc_ev(bd, qkv, &q)) ||
            (rc = alloc_ev(bd, scores, &saved[3 * l + 1])))
            break;
        for (int k = 0; k < 3 && !rc; k++) {
            const uint64_t small = round512((double)(4096u << (gb_splitmix64(rng) % 5)));
            if (!(rc = alloc_ev(bd, small, &s1)))
                rc = emit(bd, s1, false, small);
        }
        if (rc || (rc = emit(bd, q, false, qkv)) || (rc = alloc_ev(bd, mlp, &saved[3 * l + 2])))
            break;
    }
    uint32_t loss;
    if (!rc && !(rc = alloc_ev(bd, 4096, &loss)))
        rc = emit(bd, loss, false, 4096);
    uint32_t prev_grad = UINT32_MAX;
    for (uint32_t l = layers; l-- > 0 && !rc;) {
        uint32_t g, tmp;
        if ((rc = alloc_ev(bd, act, &g)) || (rc = alloc_ev(bd, mlp, &tmp)) ||
            (rc = emit(bd, tmp, false, mlp)) || (rc = alloc_ev(bd, wgrad, &grads[l])))
            break;
        if ((rc = emit(bd, saved[3 * l + 2], false, mlp)) ||
            (rc = emit(bd, saved[3 * l + 1], false, scores)) ||
            (rc = emit(bd, saved[3 * l], false, act)))
            break;
        if (prev_grad != UINT32_MAX && (rc = emit(bd, prev_grad, false, act)))
            break;
        prev_grad = g;
    }
    if (!rc && prev_grad != UINT32_MAX)
        rc = emit(bd, prev_grad, false, act);
    for (uint32_t l = 0; l < layers && !rc; l++) {
        uint32_t tmp;
        if (!(rc = alloc_ev(bd, wgrad, &tmp)))
            rc = emit(bd, tmp, false, wgrad);
    }
    for (uint32_t l = 0; l < layers && !rc; l++)
        rc = emit(bd, grads[l], false, wgrad);
    free(saved);
    free(grads);
    return rc;
}

int gb_pool_trace_build(struct gb_pool_trace *t, uint32_t layers, uint64_t hidden, uint32_t nsteps,
                        uint64_t seed)
{
    memset(t, 0, sizeof *t);
    if (layers < 1 || layers > 1024 || nsteps < 1 || nsteps > 1024 || hidden < 4096 ||
        hidden > (UINT64_C(1) << 40))
        return GB_FAIL(GB_EINVAL,
                       "pool trace: layers %u (1 to 1024), steps %u (1 to 1024), hidden %llu "
                       "bytes (4 KiB to 1 TiB)",
                       layers, nsteps, (unsigned long long)hidden);
    t->step_start = malloc((nsteps + 1) * sizeof *t->step_start);
    if (!t->step_start)
        return GB_FAIL(GB_ENOMEM, "pool trace: %u steps", nsteps);
    struct builder bd = {.t = t};
    uint64_t rng = seed;
    int rc = 0;
    for (uint32_t s = 0; s < nsteps && !rc; s++) {
        t->step_start[s] = t->nev;
        bd.peak = 0;
        rc = build_step(&bd, layers, hidden, &rng);
        if (bd.next_id > t->nids)
            t->nids = bd.next_id;
        if (bd.peak > t->peak_live_max)
            t->peak_live_max = bd.peak;
    }
    if (rc) {
        gb_pool_trace_free(t);
        return rc;
    }
    t->step_start[nsteps] = t->nev;
    t->nsteps = nsteps;
    return 0;
}

void gb_pool_trace_free(struct gb_pool_trace *t)
{
    free(t->ev);
    free(t->step_start);
    memset(t, 0, sizeof *t);
}

/* ---- the caching pool ----------------------------------------------------------------------- */

uint64_t gb_pool_class(uint64_t bytes)
{
    if (bytes <= 512)
        return 512;
    if (bytes > (UINT64_C(1) << 62))
        return bytes;
    uint64_t p = 512;
    while (p * 2 < bytes)
        p *= 2;
    /* p < bytes <= 2p: the classes between are p x 1.25, 1.5, 1.75 and 2p. */
    for (uint64_t k = 1; k <= 4; k++) {
        const uint64_t c = p + p / 4 * k;
        if (c >= bytes)
            return c;
    }
    return 2 * p;
}

/* A slot for a new block: a forgotten or released one (bytes 0), else one more at the end. */
static int new_slot(struct gb_caching_pool *p, size_t *out)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->b[i].bytes == 0) {
            *out = i;
            return 0;
        }
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        struct gb_pool_block *b = realloc(p->b, cap * sizeof *b);
        void **rel = realloc(p->rel, cap * sizeof *rel);
        if (b)
            p->b = b;
        if (rel)
            p->rel = rel;
        if (!b || !rel)
            return GB_FAIL(GB_ENOMEM, "caching pool: %zu blocks", cap);
        p->cap = cap;
    }
    *out = p->n++;
    return 0;
}

/* Gives every cached (not live) block back: their handles into p->rel, their slots emptied
 * (indices of live blocks do not move). Returns how many. */
static size_t release_cache(struct gb_caching_pool *p)
{
    size_t k = 0;
    for (size_t i = 0; i < p->n; i++) {
        struct gb_pool_block *b = &p->b[i];
        if (b->live || b->bytes == 0)
            continue;
        p->rel[k++] = b->handle;
        p->reserved -= b->bytes;
        *b = (struct gb_pool_block){0};
    }
    p->releases += k;
    return k;
}

int gb_pool_get(struct gb_caching_pool *p, uint64_t bytes, struct gb_pool_grant *g)
{
    memset(g, 0, sizeof *g);
    const uint64_t c = gb_pool_class(bytes);
    size_t hit = SIZE_MAX, alias = SIZE_MAX;
    for (size_t i = p->n; i-- > 0;) {
        if (p->b[i].bytes != c)
            continue;
        if (!p->b[i].live) {
            hit = i;
            break;
        }
        if (alias == SIZE_MAX)
            alias = i;
    }
    if (p->bug_overlap && alias != SIZE_MAX)
        hit = alias; /* the planted defect: a live block handed out again */
    if (hit != SIZE_MAX) {
        p->b[hit].live = true;
        p->hits++;
        g->block = hit;
    } else {
        if (p->limit && p->reserved + c > p->limit) {
            /* Give the cache back and retry, as PyTorch's allocator does before it fails. */
            g->nrelease = release_cache(p);
            g->release = p->rel;
            if (p->reserved + c > p->limit) {
                g->fail = true;
                return 0;
            }
        }
        size_t slot = 0;
        int rc = new_slot(p, &slot);
        if (rc)
            return rc;
        /* new_slot may have moved p->rel. */
        g->release = p->rel;
        p->b[slot] = (struct gb_pool_block){.handle = NULL, .bytes = c, .live = true};
        g->block = slot;
        g->need_new = true;
        p->reserved += c;
        if (p->reserved > p->reserved_peak)
            p->reserved_peak = p->reserved;
        p->misses++;
    }
    p->in_use += bytes;
    if (p->in_use > p->in_use_peak)
        p->in_use_peak = p->in_use;
    return 0;
}

void gb_pool_put(struct gb_caching_pool *p, size_t i, uint64_t requested)
{
    if (i >= p->n || !p->b[i].live)
        return;
    p->b[i].live = false;
    p->in_use -= requested <= p->in_use ? requested : p->in_use;
}

void gb_pool_forget(struct gb_caching_pool *p, size_t i, uint64_t requested)
{
    if (i >= p->n || p->b[i].bytes == 0)
        return;
    p->reserved -= p->b[i].bytes;
    p->in_use -= requested <= p->in_use ? requested : p->in_use;
    p->b[i] = (struct gb_pool_block){0};
}

void gb_pool_drain(struct gb_caching_pool *p, void (*release)(void *handle, void *arg), void *arg)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->b[i].handle)
            release(p->b[i].handle, arg);
    p->n = 0;
    p->reserved = 0;
    p->in_use = 0;
}

void gb_pool_free(struct gb_caching_pool *p)
{
    free(p->b);
    free(p->rel);
    memset(p, 0, sizeof *p);
}

/* ---- a cap's failures ----------------------------------------------------------------------- */

int gb_pool_trace_under_cap(const struct gb_pool_trace *t, bool caching, uint64_t cap,
                            struct gb_pool_cap_count *c)
{
    memset(c, 0, sizeof *c);
    if (!cap)
        return GB_FAIL(GB_EINVAL, "pool: a cap of 0 bytes is no cap");
    /* Per id of a step: its block in the pool (caching), or SIZE_MAX when its request failed. */
    size_t *block = malloc((t->nids ? t->nids : 1) * sizeof *block);
    if (!block)
        return GB_FAIL(GB_ENOMEM, "pool: %u ids", t->nids);
    struct gb_caching_pool pool = {.limit = cap};
    uint64_t live = 0; /* requested bytes live (the driver way holds exactly these) */
    int rc = 0;
    for (size_t s = 0; s < t->nsteps && !rc; s++)
        for (size_t e = t->step_start[s]; e < t->step_start[s + 1] && !rc; e++) {
            const struct gb_pool_event *ev = &t->ev[e];
            if (!ev->alloc) {
                if (block[ev->id] == SIZE_MAX)
                    continue;
                live -= ev->bytes;
                if (caching)
                    gb_pool_put(&pool, block[ev->id], ev->bytes);
                continue;
            }
            c->allocs++;
            bool fail = live + ev->bytes > cap;
            if (caching) {
                struct gb_pool_grant g;
                if ((rc = gb_pool_get(&pool, ev->bytes, &g)))
                    break;
                fail = g.fail;
                if (!fail) {
                    block[ev->id] = g.block;
                    pool.b[g.block].handle = &pool; /* any non-NULL handle: no driver here */
                }
            } else {
                block[ev->id] = 0;
            }
            if (!fail) {
                live += ev->bytes;
                continue;
            }
            block[ev->id] = SIZE_MAX;
            if (!c->failures) {
                c->first_step = s;
                c->first_event = e - t->step_start[s];
                c->first_bytes = ev->bytes;
            }
            c->failures++;
            c->fragmented += live + ev->bytes <= cap;
        }
    gb_pool_free(&pool);
    free(block);
    return rc;
}
