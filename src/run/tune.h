/* gpubench — thread-block / work-group tuning: search spaces, constraint expressions and search
 * strategies. Pure logic, no device: the tuning suite (suites/tuning.c) measures what a strategy
 * proposes, and the tests check everything here with synthetic landscapes.
 *
 * A *space* is a list of tunables, each with a list of integer values (a work-group size, a tile
 * side, a vector width, an unroll factor), and a default value. A *configuration* is one value
 * of every tunable, written as the index of the value in each list (`choice[i]`).
 *
 * A *constraint* is an integer expression over the tunables and a few named device and problem
 * quantities (`TILE * VEC <= 64`, `WG <= max_wg`, `n % WG == 0`); a configuration for which any
 * constraint is false (zero) is *pruned*: never built, never launched.
 *
 * A *strategy* proposes configurations one at a time (ask/tell): exhaustive (every valid
 * configuration, in index order), random (a seeded uniform sample of the valid configurations
 * without replacement, `budget` of them) and anneal (simulated annealing; see gb_search_create).
 * Every strategy first proposes the space's default configuration when it is valid, so the
 * default (the baseline of the reported speedup) is always measured, and counts against the
 * budget. A strategy never proposes a configuration twice.
 */
#ifndef GB_TUNE_H
#define GB_TUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most tunables a space has, and the longest tunable name (a kernel's -D define) with its
 * terminator; the tuning cache (run/tuning_cache.h) stores configurations of this shape. */
#define GB_TUNE_MAX_TUNABLES 8
#define GB_TUNE_NAME_MAX 32
#define GB_TUNE_MAX_VALUES 32
/* The largest space searched (product of the value counts): enumerating it stays cheap. */
#define GB_TUNE_MAX_SPACE (UINT64_C(1) << 20)

/* ---- expressions ------------------------------------------------------------------------ */

/* A parsed integer expression. Syntax (C's precedence and meaning, 64-bit signed integers):
 *   literals 12; names [A-Za-z_][A-Za-z0-9_]*; ( ); unary - and !; * / %; + -;
 *   < <= > >= == !=; &&; ||; and the functions min(a, b), max(a, b), pow2(a) (1 when a is a
 *   power of two, else 0). A comparison or logical operator yields 1 or 0. */
struct gb_expr;

/* Limits of an expression, so that neither parsing nor evaluating it can overflow the stack:
 * at most GB_EXPR_MAX_NEST parentheses, function calls and unary - or ! open at once, and at most
 * GB_EXPR_MAX_TREE operations on the longest path from the result to a leaf (a chain
 * "a + a + ... + a" of that many terms). Beyond them gb_expr_parse fails with a column. */
#define GB_EXPR_MAX_NEST 100
#define GB_EXPR_MAX_TREE 1000

/* Parses `text`. On a syntax error returns GB_ECONFIG with "column C: message" in err and the
 * 1-based column in *col (when col is non-NULL). */
int gb_expr_parse(const char *text, struct gb_expr **out, char *err, size_t errlen, int *col);
void gb_expr_free(struct gb_expr *e);
/* The text it was parsed from. */
const char *gb_expr_text(const struct gb_expr *e);

/* Resolves a name to its value: returns true and sets *v, or false for an unknown name. */
typedef bool (*gb_expr_lookup_fn)(void *user, const char *name, int64_t *v);

/* Evaluates e. GB_EINVAL with the reason in err for an unknown name, a division or remainder by
 * zero, or an overflow. */
int gb_expr_eval(const struct gb_expr *e, gb_expr_lookup_fn lookup, void *user, int64_t *out,
                 char *err, size_t errlen);

/* Calls fn for every name e refers to (function names excluded), in text order; stops at and
 * returns the first non-zero return of fn. */
int gb_expr_names(const struct gb_expr *e, int (*fn)(void *user, const char *name), void *user);

/* ---- spaces ----------------------------------------------------------------------------- */

struct gb_tunable {
    char name[GB_TUNE_NAME_MAX]; /* the kernel's -D define: "WG", "VEC" */
    size_t n;                    /* number of values, 1..GB_TUNE_MAX_VALUES */
    int64_t values[GB_TUNE_MAX_VALUES];
    size_t def; /* index of the default value */
};

struct gb_space {
    size_t n; /* number of tunables, 1..GB_TUNE_MAX_TUNABLES */
    struct gb_tunable t[GB_TUNE_MAX_TUNABLES];
};

/* Product of the value counts (0 for an empty space). */
uint64_t gb_space_size(const struct gb_space *s);
/* Configuration number `idx` (0 <= idx < size; tunable 0 varies slowest) as choices, and back. */
void gb_space_decode(const struct gb_space *s, uint64_t idx, size_t *choice);
uint64_t gb_space_encode(const struct gb_space *s, const size_t *choice);
/* The index of tunable `name`, or -1. */
int gb_space_find(const struct gb_space *s, const char *name);
/* "WG=64 VEC=4" into buf. Returns buf. */
char *gb_space_format(const struct gb_space *s, const size_t *choice, char *buf, size_t len);

/* A named constraint: the expression and what its failure means ("work-group above the device
 * maximum"), for the pruning summary. */
struct gb_constraint {
    struct gb_expr *e;
    char what[96];
};

/* Values of names other than tunables: device limits, problem sizes (name -> value). */
struct gb_tune_var {
    char name[GB_TUNE_NAME_MAX];
    int64_t value;
};

/* Whether configuration `choice` satisfies every constraint, names resolving to the
 * configuration's tunable values first, then to vars[0..nvars). Returns 1 (valid) or 0 (pruned,
 * with the first failing constraint's index in *failed, and "what: expression" in why). An
 * evaluation error (unknown name, division by zero) prunes the configuration too, with the error
 * in why. */
int gb_space_check(const struct gb_space *s, const size_t *choice, const struct gb_constraint *c,
                   size_t nc, const struct gb_tune_var *vars, size_t nvars, size_t *failed,
                   char *why, size_t whylen);

/* ---- strategies ------------------------------------------------------------------------- */

enum gb_search_kind { GB_SEARCH_EXHAUSTIVE, GB_SEARCH_RANDOM, GB_SEARCH_ANNEAL };

/* "exhaustive", "random", "anneal"; and back (-1 when unknown). */
const char *gb_search_name(enum gb_search_kind k);
int gb_search_parse(const char *name);

/* Whether configuration `choice` is valid (not pruned). */
typedef bool (*gb_valid_fn)(void *user, const size_t *choice);

struct gb_search;

/* A strategy over space s (copied) whose valid configurations are those `valid` accepts.
 * budget: most configurations proposed (0: every valid one; exhaustive ignores it). seed: the
 * only source of randomness; the same seed, space, validity and costs give the same proposals.
 *
 * anneal: simulated annealing (Kirkpatrick, Gelatt and Vecchi, Science 220, 1983) on the grid of
 * value indices, in three phases. Explore: the first quarter of the budget (after the default)
 * measures a uniform random sample, and the walk starts from its best. Walk: from the current
 * configuration it proposes a neighbour that changes one tunable by one step (with probability
 * 1/4 to any of its values); a proposal already measured costs no budget. It accepts a move of
 * relative cost change d = ln(c_new / c_cur) when d <= 0, else with probability exp(-d / T), the
 * temperature T falling geometrically from 0.2 to 0.005 over the walk (d = 0.2 is a 22%
 * slowdown). After 64 proposals without a new configuration it restarts from the best
 * configuration's unmeasured neighbours, or from a random unmeasured valid configuration.
 * Polish: the last fifth of the budget measures the best configuration's unmeasured one-step
 * neighbours first. Costs are times: lower is better; INFINITY marks a configuration that
 * failed.
 *
 * GB_ENOMEM; GB_EINVAL for an empty or too large space (> GB_TUNE_MAX_SPACE). */
int gb_search_create(enum gb_search_kind kind, const struct gb_space *s, gb_valid_fn valid,
                     void *user, uint64_t budget, uint64_t seed, struct gb_search **out);
void gb_search_free(struct gb_search *x);

/* The next configuration to measure into choice (s->n entries): returns true, or false when the
 * search is over (budget spent or nothing left). */
bool gb_search_next(struct gb_search *x, size_t *choice);
/* The cost of the configuration gb_search_next() returned last (seconds per operation; INFINITY
 * when it failed). Must be called once after every successful gb_search_next(). */
void gb_search_tell(struct gb_search *x, double cost);

/* Instead of gb_search_tell: the configuration gb_search_next() returned last turned out to be
 * invalid only once built (a kernel whose own work-group maximum it exceeds). It is never
 * proposed again and costs no evaluation of the budget; the search's valid count drops by one. */
void gb_search_prune(struct gb_search *x);

/* The best configuration measured so far and its cost: false when nothing finite was measured. */
bool gb_search_best(const struct gb_search *x, size_t *choice, double *cost);
/* Configurations proposed (= measured) so far; valid configurations of the space; pruned ones. */
uint64_t gb_search_evaluations(const struct gb_search *x);
uint64_t gb_search_valid_count(const struct gb_search *x);

/* ---- replay: strategies on a recorded landscape (benchmarks, tests) --------------------- */

/* Runs strategy `kind` with `budget` and `seed` on a landscape given as cost[idx] for every
 * configuration index of s: NaN marks a pruned configuration (never proposed), INFINITY one that
 * was measured and failed (proposed, it costs an evaluation). Returns 0 with the best cost found
 * (INFINITY if none) and the evaluations used; errors as gb_search_create. */
int gb_search_replay(enum gb_search_kind kind, const struct gb_space *s, const double *cost,
                     uint64_t budget, uint64_t seed, double *best, uint64_t *evals);

/* ---- seeded random numbers -------------------------------------------------------------- */

/* splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA
 * 2014): advances *state and returns 64 random bits. */
uint64_t gb_rand_next(uint64_t *state);
/* Uniform integer in [0, n) (n > 0), without modulo bias (Lemire's method). */
uint64_t gb_rand_below(uint64_t *state, uint64_t n);
/* Uniform double in [0, 1). */
double gb_rand_unit(uint64_t *state);

#endif
