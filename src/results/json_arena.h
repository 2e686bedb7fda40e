/* gpubench — an arena for a jansson tree that one thread builds or parses and then drops whole
 * (private to the harness and the writers above it; results_read.c, compare.c).
 *
 * jansson allocates every node, key and string of a tree one by one, and json_decref frees them
 * one by one: for a large results file or comparison that is a good part of the time. Between
 * gb__json_arena_start and gb__json_arena_stop, jansson's allocations in the calling thread are
 * bumped from one anonymous mapping (reserved, not committed: pages cost only when the tree
 * reaches them), and gb__json_arena_drop drops the tree at once: the mapping is kept for the
 * thread's next arena (at most 16 MiB of it resident; unmapped when the thread exits), so that a
 * thousand files read in turn do not fault in and zero the same pages a thousand times.
 *
 * jansson's allocator is process-wide (json_set_alloc_funcs, installed once): the pair installed
 * delegates to malloc and free for every other allocation (other threads, this thread outside
 * start..stop, and what does not fit: the arena has then "spilled", and gb__json_arena_drop frees
 * the tree node by node, arena nodes skipped, before the unmapping). Frees of arena memory
 * (jansson frees a key once it is in its object, and old hashtable buckets) are no-ops. A tree
 * with nodes in an arena must not be kept, or shared with another thread, past its drop.
 */
#ifndef GB_JSON_ARENA_H
#define GB_JSON_ARENA_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct gb__json_arena {
    char *base, *top, *end;
    bool spilled; /* an allocation did not fit and went to malloc */
};

/* Reserves cap bytes of address space for this thread's arena (at most one open per thread):
 * true, or false (nothing reserved; the caller goes on with malloc, start and drop are then
 * no-ops) when they cannot be had. */
bool gb__json_arena_open(struct gb__json_arena *a, size_t cap);
/* n bytes of a (16-byte aligned) for the caller's own use, or NULL when they do not fit. */
void *gb__json_arena_take(struct gb__json_arena *a, size_t n);
/* From start to stop, jansson's allocations in this thread come from a (when it is open). */
void gb__json_arena_start(struct gb__json_arena *a);
void gb__json_arena_stop(void);
/* Drops root (a tree built or parsed in a; NULL: none) and the arena. */
void gb__json_arena_drop(struct gb__json_arena *a, json_t *root);

#endif
