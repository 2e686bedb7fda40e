/* gpubench — an arena for a jansson tree (contract in json_arena.h). */
#include "results/json_arena.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static _Thread_local struct gb__json_arena *tl_arena; /* this thread's, from open to drop */
static _Thread_local bool tl_bump;                    /* start to stop: allocate from it */

/* The mapping of this thread's last arena, kept for the next one: a thousand files read in turn
 * would otherwise map, fault in, zero and unmap the same pages a thousand times (a fifth of the
 * time of a fleet's read). At most KEEP bytes of it stay resident between arenas; it is unmapped
 * when the thread exits. */
#define KEEP ((size_t)16 << 20)
struct spare {
    char *base;
    size_t cap;
};
static _Thread_local struct spare tl_spare;
static pthread_key_t spare_key; /* its destructor unmaps a thread's spare when the thread exits */

static void spare_unmap(void *p)
{
    struct spare *s = p;
    if (s && s->base) {
        munmap(s->base, s->cap);
        s->base = NULL;
    }
}

void *gb__json_arena_take(struct gb__json_arena *a, size_t n)
{
    size_t need = (n + 15) & ~(size_t)15; /* malloc's alignment on x86-64 and aarch64 */
    if (need < n || (size_t)(a->end - a->top) < need)
        return NULL;
    void *p = a->top;
    a->top += need;
    return p;
}

static void *arena_malloc(size_t n)
{
    struct gb__json_arena *a = tl_arena;
    if (a && tl_bump) {
        void *p = gb__json_arena_take(a, n);
        if (p)
            return p;
        a->spilled = true;
    }
    return malloc(n);
}

static void arena_free(void *p)
{
    const struct gb__json_arena *a = tl_arena;
    if (a && (char *)p >= a->base && (char *)p < a->end)
        return;
    free(p);
}

static bool spare_key_ok;

static void install(void)
{
    json_set_alloc_funcs(arena_malloc, arena_free);
    spare_key_ok = pthread_key_create(&spare_key, spare_unmap) == 0;
}

bool gb__json_arena_open(struct gb__json_arena *a, size_t cap)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install);
    memset(a, 0, sizeof *a);
    if (cap == 0 || tl_arena)
        return false;
    void *m;
    if (tl_spare.base && tl_spare.cap >= cap) {
        m = tl_spare.base;
        cap = tl_spare.cap;
    } else {
        spare_unmap(&tl_spare);
        m = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
                 0);
        if (m == MAP_FAILED)
            return false;
    }
    tl_spare.base = NULL;
    /* No MADV_HUGEPAGE: fewer page faults, but more time in the kernel zeroing and compacting
     * 2 MiB pages (measured: 100,000 results against 100,000, about 1.5 s more system time). */
    a->base = a->top = m;
    a->end = a->base + cap;
    tl_arena = a;
    return true;
}

void gb__json_arena_start(struct gb__json_arena *a)
{
    tl_bump = a && a->base && tl_arena == a;
}

void gb__json_arena_stop(void)
{
    tl_bump = false;
}

void gb__json_arena_drop(struct gb__json_arena *a, json_t *root)
{
    tl_bump = false;
    if (!a->base || a->spilled) /* freed node by node: malloc'd ones freed, arena ones skipped */
        json_decref(root);
    if (!a->base)
        return;
    tl_arena = NULL;
    size_t cap = (size_t)(a->end - a->base), used = (size_t)(a->top - a->base);
    if (!spare_key_ok || pthread_setspecific(spare_key, &tl_spare) != 0) {
        munmap(a->base, cap);
    } else {
        /* Kept as the spare: what the tree used beyond KEEP goes back to the kernel (the
         * mapping stays; its pages come back zeroed when touched again). */
        if (used > KEEP)
            madvise(a->base + KEEP, used - KEEP, MADV_DONTNEED);
        tl_spare = (struct spare){a->base, cap};
    }
    memset(a, 0, sizeof *a);
}
