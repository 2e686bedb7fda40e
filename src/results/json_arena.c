/* gpubench — an arena for a jansson tree (contract in json_arena.h). */
#include "results/json_arena.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static _Thread_local struct gb__json_arena *tl_arena; /* this thread's, from open to drop */
static _Thread_local bool tl_bump;                    /* start to stop: allocate from it */

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

static void install(void)
{
    json_set_alloc_funcs(arena_malloc, arena_free);
}

bool gb__json_arena_open(struct gb__json_arena *a, size_t cap)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install);
    memset(a, 0, sizeof *a);
    if (cap == 0 || tl_arena)
        return false;
    void *m =
        mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return false;
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
    munmap(a->base, (size_t)(a->end - a->base));
    memset(a, 0, sizeof *a);
}
