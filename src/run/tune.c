/* gpubench — tuning spaces, constraint expressions and search strategies (contract in tune.h).
 *
 * Expressions are parsed by recursive descent into a small tree and evaluated with 64-bit
 * overflow checks, so a constraint can never invoke undefined behaviour however a profile
 * writes it. The strategies keep a table of every configuration of the space (at most
 * GB_TUNE_MAX_SPACE): whether it is valid, and its cost once measured; that makes "never propose
 * a configuration twice" and the neighbour searches simple and exact.
 */
#include "run/tune.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"

/* ---- expressions ----------------------------------------------------------------------- */

enum node_kind { N_NUM, N_VAR, N_NEG, N_NOT, N_BIN, N_CALL };
enum bin_op { B_MUL, B_DIV, B_MOD, B_ADD, B_SUB, B_LT, B_LE, B_GT, B_GE, B_EQ, B_NE, B_AND, B_OR };
enum fn_id { F_MIN, F_MAX, F_POW2 };

struct node {
    enum node_kind kind;
    int op;                      /* bin_op or fn_id */
    int64_t num;                 /* N_NUM */
    char name[GB_TUNE_NAME_MAX]; /* N_VAR */
    int a, b;                    /* children (node indices), -1 if none */
    int depth; /* 1 + the deeper child's depth: eval_node's recursion below this node */
};

struct gb_expr {
    char *text;
    struct node *nodes;
    size_t n, cap;
    int root;
};

struct parser {
    struct gb_expr *e;
    const char *s;
    size_t pos;
    char *err;
    size_t errlen;
    int col;
    bool failed;
    int nest; /* parentheses, calls and unary operators open now: the parser's recursion */
};

static int perr(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct parser *p, const char *fmt, ...)
{
    if (p->failed)
        return -1;
    p->failed = true;
    p->col = (int)p->pos + 1;
    if (p->err && p->errlen) {
        int w = snprintf(p->err, p->errlen, "column %d: ", p->col);
        size_t off = w < 0 ? 0 : (size_t)w;
        if (off < p->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(p->err + off, p->errlen - off, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

static void skip_ws(struct parser *p)
{
    while (p->s[p->pos] && isspace((unsigned char)p->s[p->pos]))
        p->pos++;
}

static bool accept(struct parser *p, const char *tok)
{
    skip_ws(p);
    size_t n = strlen(tok);
    if (strncmp(p->s + p->pos, tok, n) != 0)
        return false;
    /* "<" must not take the first half of "<=", nor "!" of "!=". */
    if (n == 1 && strchr("<>!", tok[0]) && p->s[p->pos + 1] == '=')
        return false;
    p->pos += n;
    return true;
}

static int add_node(struct parser *p, struct node nd)
{
    struct gb_expr *e = p->e;
    int da = nd.a >= 0 ? e->nodes[nd.a].depth : 0, db = nd.b >= 0 ? e->nodes[nd.b].depth : 0;
    nd.depth = 1 + (da > db ? da : db);
    if (nd.depth > GB_EXPR_MAX_TREE)
        return perr(p, "the expression is nested deeper than %d operations", GB_EXPR_MAX_TREE);
    struct node *g = gb_grow(e->nodes, &e->cap, e->n + 1, sizeof *g);
    if (!g)
        return perr(p, "out of memory");
    e->nodes = g;
    e->nodes[e->n] = nd;
    return (int)e->n++;
}

static int parse_or(struct parser *p);

static int parse_primary(struct parser *p)
{
    skip_ws(p);
    const char *s = p->s + p->pos;
    if (isdigit((unsigned char)*s)) {
        int64_t v = 0;
        while (isdigit((unsigned char)p->s[p->pos])) {
            int d = p->s[p->pos] - '0';
            if (v > (INT64_MAX - d) / 10)
                return perr(p, "number too large");
            v = v * 10 + d;
            p->pos++;
        }
        if (isalpha((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_')
            return perr(p, "a number directly followed by a letter");
        return add_node(p, (struct node){.kind = N_NUM, .num = v, .a = -1, .b = -1});
    }
    if (isalpha((unsigned char)*s) || *s == '_') {
        size_t start = p->pos, len = 0;
        while (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_')
            p->pos++, len++;
        if (len >= GB_TUNE_NAME_MAX) {
            p->pos = start;
            return perr(p, "name longer than %d characters", GB_TUNE_NAME_MAX - 1);
        }
        char name[GB_TUNE_NAME_MAX];
        memcpy(name, p->s + start, len);
        name[len] = '\0';
        skip_ws(p);
        if (p->s[p->pos] == '(') {
            static const char *const fns[] = {"min", "max", "pow2"};
            int fn = -1;
            for (int i = 0; i < 3; i++)
                if (strcmp(name, fns[i]) == 0)
                    fn = i;
            if (fn < 0) {
                p->pos = start;
                return perr(p, "unknown function \"%s\" (functions: min, max, pow2)", name);
            }
            p->pos++;
            int a = parse_or(p), b = -1;
            if (a < 0)
                return -1;
            if (fn != F_POW2) {
                if (!accept(p, ","))
                    return perr(p, "%s takes two arguments: expected \",\"", name);
                if ((b = parse_or(p)) < 0)
                    return -1;
            }
            if (!accept(p, ")"))
                return perr(p, "expected \")\" after the arguments of %s", name);
            return add_node(p, (struct node){.kind = N_CALL, .op = fn, .a = a, .b = b});
        }
        struct node nd = {.kind = N_VAR, .a = -1, .b = -1};
        memcpy(nd.name, name, len + 1);
        return add_node(p, nd);
    }
    if (accept(p, "(")) {
        int a = parse_or(p);
        if (a < 0)
            return -1;
        if (!accept(p, ")"))
            return perr(p, "expected \")\"");
        return a;
    }
    if (!*s)
        return perr(p, "unexpected end of the expression");
    return perr(p, "unexpected \"%c\"", *s);
}

static int parse_unary(struct parser *p);

static int parse_unary_nested(struct parser *p)
{
    if (accept(p, "-")) {
        int a = parse_unary(p);
        return a < 0 ? -1 : add_node(p, (struct node){.kind = N_NEG, .a = a, .b = -1});
    }
    if (accept(p, "!")) {
        int a = parse_unary(p);
        return a < 0 ? -1 : add_node(p, (struct node){.kind = N_NOT, .a = a, .b = -1});
    }
    return parse_primary(p);
}

/* Every recursion of the parser passes here (a parenthesis, a call's arguments, a unary
 * operator), so the nesting limit bounds its stack: a hostile profile of thousands of "(" or
 * "!" is a located error, not a stack overflow. */
static int parse_unary(struct parser *p)
{
    if (++p->nest > GB_EXPR_MAX_NEST) {
        p->nest--;
        return perr(p, "nested deeper than %d levels (parentheses, calls, - and !)",
                    GB_EXPR_MAX_NEST);
    }
    int a = parse_unary_nested(p);
    p->nest--;
    return a;
}

/* One precedence level of left-associative binary operators. */
struct level {
    const char *tok[4];
    enum bin_op op[4];
};

static const struct level levels[] = {
    {{"||"}, {B_OR}},
    {{"&&"}, {B_AND}},
    {{"==", "!="}, {B_EQ, B_NE}},
    {{"<=", ">=", "<", ">"}, {B_LE, B_GE, B_LT, B_GT}},
    {{"+", "-"}, {B_ADD, B_SUB}},
    {{"*", "/", "%"}, {B_MUL, B_DIV, B_MOD}},
};
#define NLEVELS (sizeof levels / sizeof levels[0])

static int parse_level(struct parser *p, size_t lv)
{
    if (lv == NLEVELS)
        return parse_unary(p);
    int a = parse_level(p, lv + 1);
    while (a >= 0) {
        int found = -1;
        for (int i = 0; i < 4 && levels[lv].tok[i]; i++)
            if (accept(p, levels[lv].tok[i])) {
                found = i;
                break;
            }
        if (found < 0)
            break;
        /* A single "=" or "&" or "|" is a typo of the doubled operator; say so. */
        int b = parse_level(p, lv + 1);
        if (b < 0)
            return -1;
        a = add_node(p, (struct node){.kind = N_BIN, .op = levels[lv].op[found], .a = a, .b = b});
    }
    return a;
}

static int parse_or(struct parser *p)
{
    return parse_level(p, 0);
}

int gb_expr_parse(const char *text, struct gb_expr **out, char *err, size_t errlen, int *col)
{
    *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    struct gb_expr *e = calloc(1, sizeof *e);
    if (!e || !(e->text = strdup(text ? text : ""))) {
        free(e);
        return GB_FAIL(GB_ENOMEM, "expression");
    }
    struct parser p = {.e = e, .s = e->text, .err = err, .errlen = errlen};
    e->root = parse_or(&p);
    if (e->root >= 0) {
        skip_ws(&p);
        if (p.s[p.pos]) {
            const char *c = p.s + p.pos;
            if (*c == '=' || *c == '&' || *c == '|')
                perr(&p, "unexpected \"%c\" (write %c%c)", *c, *c, *c);
            else
                perr(&p, "unexpected \"%s\" after the expression", c);
        }
    }
    if (p.failed || e->root < 0) {
        if (col)
            *col = p.col ? p.col : 1;
        gb_expr_free(e);
        return GB_USER_FAIL(GB_ECONFIG, "%s", err && errlen ? err : "invalid expression");
    }
    *out = e;
    return 0;
}

void gb_expr_free(struct gb_expr *e)
{
    if (!e)
        return;
    free(e->text);
    free(e->nodes);
    free(e);
}

const char *gb_expr_text(const struct gb_expr *e)
{
    return e ? e->text : "";
}

struct evalctx {
    const struct gb_expr *e;
    gb_expr_lookup_fn lookup;
    void *user;
    char *err;
    size_t errlen;
};

static int eval_fail(struct evalctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int eval_fail(struct evalctx *c, const char *fmt, ...)
{
    if (c->err && c->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err, c->errlen, fmt, ap);
        va_end(ap);
    }
    return GB_EINVAL;
}

static int eval_node(struct evalctx *c, int i, int64_t *out)
{
    const struct node *nd = &c->e->nodes[i];
    int64_t a = 0, b = 0;
    int rc;
    switch (nd->kind) {
    case N_NUM:
        *out = nd->num;
        return 0;
    case N_VAR:
        if (!c->lookup || !c->lookup(c->user, nd->name, out))
            return eval_fail(c, "unknown name \"%s\"", nd->name);
        return 0;
    case N_NEG:
        if ((rc = eval_node(c, nd->a, &a)))
            return rc;
        if (a == INT64_MIN)
            return eval_fail(c, "overflow");
        *out = -a;
        return 0;
    case N_NOT:
        if ((rc = eval_node(c, nd->a, &a)))
            return rc;
        *out = !a;
        return 0;
    case N_CALL:
        if ((rc = eval_node(c, nd->a, &a)) || (nd->b >= 0 && (rc = eval_node(c, nd->b, &b))))
            return rc;
        *out = nd->op == F_MIN   ? (a < b ? a : b)
               : nd->op == F_MAX ? (a > b ? a : b)
                                 : (a > 0 && (a & (a - 1)) == 0);
        return 0;
    case N_BIN:
        break;
    }
    /* Short-circuit like C, so `ROWS > 0 && TILE % ROWS == 0` never divides by zero. */
    if ((rc = eval_node(c, nd->a, &a)))
        return rc;
    if (nd->op == B_AND && !a) {
        *out = 0;
        return 0;
    }
    if (nd->op == B_OR && a) {
        *out = 1;
        return 0;
    }
    if ((rc = eval_node(c, nd->b, &b)))
        return rc;
    switch ((enum bin_op)nd->op) {
    case B_MUL:
        if (__builtin_mul_overflow(a, b, out))
            return eval_fail(c, "overflow in %lld * %lld", (long long)a, (long long)b);
        return 0;
    case B_ADD:
        if (__builtin_add_overflow(a, b, out))
            return eval_fail(c, "overflow in %lld + %lld", (long long)a, (long long)b);
        return 0;
    case B_SUB:
        if (__builtin_sub_overflow(a, b, out))
            return eval_fail(c, "overflow in %lld - %lld", (long long)a, (long long)b);
        return 0;
    case B_DIV:
    case B_MOD:
        if (b == 0)
            return eval_fail(c, "%s by zero", nd->op == B_DIV ? "division" : "remainder");
        if (a == INT64_MIN && b == -1)
            return eval_fail(c, "overflow");
        *out = nd->op == B_DIV ? a / b : a % b;
        return 0;
    case B_LT:
        *out = a < b;
        return 0;
    case B_LE:
        *out = a <= b;
        return 0;
    case B_GT:
        *out = a > b;
        return 0;
    case B_GE:
        *out = a >= b;
        return 0;
    case B_EQ:
        *out = a == b;
        return 0;
    case B_NE:
        *out = a != b;
        return 0;
    case B_AND:
        *out = b != 0;
        return 0;
    case B_OR:
        *out = b != 0;
        return 0;
    }
    return eval_fail(c, "internal error: operator %d", nd->op);
}

int gb_expr_eval(const struct gb_expr *e, gb_expr_lookup_fn lookup, void *user, int64_t *out,
                 char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!e || e->root < 0)
        return GB_EINVAL;
    struct evalctx c = {e, lookup, user, err, errlen};
    return eval_node(&c, e->root, out);
}

int gb_expr_names(const struct gb_expr *e, int (*fn)(void *user, const char *name), void *user)
{
    /* Nodes are created in text order for names (primaries are added as they are read). */
    for (size_t i = 0; e && i < e->n; i++)
        if (e->nodes[i].kind == N_VAR) {
            int rc = fn(user, e->nodes[i].name);
            if (rc)
                return rc;
        }
    return 0;
}

/* ---- spaces ---------------------------------------------------------------------------- */

uint64_t gb_space_size(const struct gb_space *s)
{
    if (!s || s->n == 0)
        return 0;
    uint64_t n = 1;
    for (size_t i = 0; i < s->n; i++) {
        if (s->t[i].n == 0 || n > GB_TUNE_MAX_SPACE * 64 / s->t[i].n)
            return s->t[i].n == 0 ? 0 : UINT64_MAX;
        n *= s->t[i].n;
    }
    return n;
}

void gb_space_decode(const struct gb_space *s, uint64_t idx, size_t *choice)
{
    for (size_t i = s->n; i-- > 0;) {
        choice[i] = (size_t)(idx % s->t[i].n);
        idx /= s->t[i].n;
    }
}

uint64_t gb_space_encode(const struct gb_space *s, const size_t *choice)
{
    uint64_t idx = 0;
    for (size_t i = 0; i < s->n; i++)
        idx = idx * s->t[i].n + choice[i];
    return idx;
}

int gb_space_find(const struct gb_space *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->t[i].name, name) == 0)
            return (int)i;
    return -1;
}

char *gb_space_format(const struct gb_space *s, const size_t *choice, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < s->n; i++)
        gb_appendf(buf, len, "%s%s=%lld", i ? " " : "", s->t[i].name,
                   (long long)s->t[i].values[choice[i]]);
    return buf;
}

struct check_ctx {
    const struct gb_space *s;
    const size_t *choice;
    const struct gb_tune_var *vars;
    size_t nvars;
};

static bool check_lookup(void *user, const char *name, int64_t *v)
{
    const struct check_ctx *c = user;
    for (size_t i = 0; i < c->s->n; i++)
        if (strcmp(c->s->t[i].name, name) == 0) {
            *v = c->s->t[i].values[c->choice[i]];
            return true;
        }
    for (size_t i = 0; i < c->nvars; i++)
        if (strcmp(c->vars[i].name, name) == 0) {
            *v = c->vars[i].value;
            return true;
        }
    return false;
}

int gb_space_check(const struct gb_space *s, const size_t *choice, const struct gb_constraint *c,
                   size_t nc, const struct gb_tune_var *vars, size_t nvars, size_t *failed,
                   char *why, size_t whylen)
{
    struct check_ctx cc = {s, choice, vars, nvars};
    if (why && whylen)
        why[0] = '\0';
    for (size_t i = 0; i < nc; i++) {
        int64_t v = 0;
        char err[128];
        int rc = gb_expr_eval(c[i].e, check_lookup, &cc, &v, err, sizeof err);
        if (rc || v == 0) {
            if (failed)
                *failed = i;
            if (why && whylen)
                snprintf(why, whylen, "%s: %s%s%s", c[i].what, gb_expr_text(c[i].e), rc ? ": " : "",
                         rc ? err : "");
            return 0;
        }
    }
    return 1;
}

/* ---- random numbers -------------------------------------------------------------------- */

uint64_t gb_rand_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t gb_rand_below(uint64_t *state, uint64_t n)
{
    /* Lemire, "Fast random integer generation in an interval", ACM TOMACS 29(1), 2019. */
    unsigned __int128 m = (unsigned __int128)gb_rand_next(state) * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t t = -n % n;
        while (low < t) {
            m = (unsigned __int128)gb_rand_next(state) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

double gb_rand_unit(uint64_t *state)
{
    return (double)(gb_rand_next(state) >> 11) * 0x1.0p-53;
}

/* ---- strategies ------------------------------------------------------------------------ */

const char *gb_search_name(enum gb_search_kind k)
{
    switch (k) {
    case GB_SEARCH_EXHAUSTIVE:
        return "exhaustive";
    case GB_SEARCH_RANDOM:
        return "random";
    case GB_SEARCH_ANNEAL:
        return "anneal";
    }
    return "?";
}

int gb_search_parse(const char *name)
{
    for (int k = GB_SEARCH_EXHAUSTIVE; k <= GB_SEARCH_ANNEAL; k++)
        if (name && strcmp(name, gb_search_name((enum gb_search_kind)k)) == 0)
            return k;
    return -1;
}

enum { ST_INVALID = 0, ST_OPEN = 1, ST_DONE = 2 };

/* The annealing schedule and phases (tune.h). Replayed on a measured SGEMM landscape, success
 * within 5% at a quarter of the evaluations moved by less than the replay's own spread for an
 * exploration share of 1/3 to 1/6, T0 of 0.1 to 0.4 and a polish share of 0 to 1/3: the
 * strategy is not sensitive to these choices. */
#define ANNEAL_T0 0.2
#define ANNEAL_T1 0.005
#define EXPLORE_DIV 4 /* a quarter of the budget explores */
#define ANNEAL_STALL 64
#define POLISH_DIV 5 /* the last fifth polishes the best */

struct gb_search {
    enum gb_search_kind kind;
    struct gb_space s;
    uint64_t size, nvalid, budget, evals;
    uint64_t pruned; /* configurations gb_search_prune removed after they were proposed */
    uint64_t rng;
    unsigned char *state; /* per configuration: ST_* */
    double *cost;         /* per configuration, once measured */
    uint64_t *order;      /* exhaustive / random: the valid configurations in proposal order */
    uint64_t pos;         /* next in order */
    uint64_t pending;     /* the configuration proposed last, awaiting tell(); UINT64_MAX none */
    uint64_t best;        /* UINT64_MAX: none finite yet */
    uint64_t def;         /* the default configuration, or UINT64_MAX when invalid */
    bool def_done;
    /* anneal */
    uint64_t cur;     /* current configuration, UINT64_MAX before the first */
    uint64_t explore; /* evaluations of the initial random sample */
    bool walking;     /* the annealing walk has started (from the sample's best) */
};

static double cost_of(const struct gb_search *x, uint64_t idx)
{
    return x->state[idx] == ST_DONE ? x->cost[idx] : INFINITY;
}

int gb_search_create(enum gb_search_kind kind, const struct gb_space *s, gb_valid_fn valid,
                     void *user, uint64_t budget, uint64_t seed, struct gb_search **out)
{
    *out = NULL;
    uint64_t size = gb_space_size(s);
    if (size == 0 || size > GB_TUNE_MAX_SPACE)
        return GB_FAIL(GB_EINVAL, "a search space of %llu configurations (1 to %llu)",
                       (unsigned long long)size, (unsigned long long)GB_TUNE_MAX_SPACE);
    struct gb_search *x = calloc(1, sizeof *x);
    if (!x)
        return GB_FAIL(GB_ENOMEM, "search");
    x->kind = kind;
    x->s = *s;
    x->size = size;
    x->rng = seed;
    x->pending = x->best = x->cur = x->def = UINT64_MAX;
    x->state = calloc(size, 1);
    x->cost = malloc(size * sizeof *x->cost);
    x->order = malloc(size * sizeof *x->order);
    if (!x->state || !x->cost || !x->order) {
        gb_search_free(x);
        return GB_FAIL(GB_ENOMEM, "search over %llu configurations", (unsigned long long)size);
    }
    size_t choice[GB_TUNE_MAX_TUNABLES];
    for (uint64_t i = 0; i < size; i++) {
        gb_space_decode(s, i, choice);
        if (!valid || valid(user, choice)) {
            x->state[i] = ST_OPEN;
            x->order[x->nvalid++] = i;
        }
    }
    for (size_t i = 0; i < s->n; i++)
        choice[i] = s->t[i].def;
    uint64_t d = gb_space_encode(s, choice);
    if (x->state[d] == ST_OPEN)
        x->def = d;
    x->budget =
        kind == GB_SEARCH_EXHAUSTIVE || budget == 0 || budget > x->nvalid ? x->nvalid : budget;
    x->explore = x->budget / EXPLORE_DIV > 2 ? x->budget / EXPLORE_DIV : 2;
    if (kind == GB_SEARCH_RANDOM) {
        /* Fisher-Yates: a uniform random order of the valid configurations. */
        for (uint64_t i = x->nvalid; i > 1; i--) {
            uint64_t j = gb_rand_below(&x->rng, i);
            uint64_t t = x->order[i - 1];
            x->order[i - 1] = x->order[j];
            x->order[j] = t;
        }
    }
    *out = x;
    return 0;
}

void gb_search_free(struct gb_search *x)
{
    if (!x)
        return;
    free(x->state);
    free(x->cost);
    free(x->order);
    free(x);
}

/* A random open (valid, unmeasured) configuration, or UINT64_MAX when none is left. */
static uint64_t random_open(struct gb_search *x)
{
    uint64_t open = x->nvalid - x->evals - x->pruned; /* ST_OPEN entries of order[] */
    if (open == 0)
        return UINT64_MAX;
    uint64_t k = gb_rand_below(&x->rng, open);
    for (uint64_t i = 0; i < x->nvalid; i++) {
        uint64_t c = x->order[i];
        if (x->state[c] == ST_OPEN && k-- == 0)
            return c;
    }
    return UINT64_MAX;
}

/* A neighbour of `from`: one tunable moved one step (or, with probability 1/4, to any of its
 * values). UINT64_MAX when the draw gives `from` itself or an invalid configuration. */
static uint64_t neighbour(struct gb_search *x, uint64_t from)
{
    size_t c[GB_TUNE_MAX_TUNABLES];
    gb_space_decode(&x->s, from, c);
    size_t t = (size_t)gb_rand_below(&x->rng, x->s.n);
    size_t nv = x->s.t[t].n;
    if (nv < 2)
        return UINT64_MAX;
    if (gb_rand_below(&x->rng, 4) == 0) {
        size_t v = (size_t)gb_rand_below(&x->rng, nv - 1);
        c[t] = v >= c[t] ? v + 1 : v;
    } else if (c[t] == 0) {
        c[t] = 1;
    } else if (c[t] == nv - 1) {
        c[t] = nv - 2;
    } else {
        c[t] += gb_rand_below(&x->rng, 2) ? 1 : (size_t)-1;
    }
    uint64_t idx = gb_space_encode(&x->s, c);
    return x->state[idx] == ST_INVALID ? UINT64_MAX : idx;
}

/* An unmeasured valid configuration one step away from `from` in some tunable, or UINT64_MAX. */
static uint64_t open_neighbour(struct gb_search *x, uint64_t from)
{
    size_t c[GB_TUNE_MAX_TUNABLES];
    uint64_t cand[2 * GB_TUNE_MAX_TUNABLES];
    size_t nc = 0;
    gb_space_decode(&x->s, from, c);
    for (size_t t = 0; t < x->s.n; t++)
        for (int dir = -1; dir <= 1; dir += 2) {
            if ((dir < 0 && c[t] == 0) || (dir > 0 && c[t] + 1 >= x->s.t[t].n))
                continue;
            size_t save = c[t];
            c[t] = (size_t)((long long)c[t] + dir);
            uint64_t idx = gb_space_encode(&x->s, c);
            c[t] = save;
            if (x->state[idx] == ST_OPEN)
                cand[nc++] = idx;
        }
    return nc ? cand[gb_rand_below(&x->rng, nc)] : UINT64_MAX;
}

static double temperature(const struct gb_search *x)
{
    uint64_t walk = x->budget > x->explore + 1 ? x->budget - x->explore - 1 : 1;
    double f = x->evals > x->explore ? (double)(x->evals - x->explore) / (double)walk : 0.0;
    if (f > 1)
        f = 1;
    return ANNEAL_T0 * pow(ANNEAL_T1 / ANNEAL_T0, f);
}

/* Moves the annealing state to `cand` (measured) by the Metropolis rule. */
static void anneal_consider(struct gb_search *x, uint64_t cand)
{
    double cc = cost_of(x, cand);
    if (!isfinite(cc))
        return;
    double cur = x->cur == UINT64_MAX ? INFINITY : cost_of(x, x->cur);
    if (!isfinite(cur) || cc <= cur) {
        x->cur = cand;
        return;
    }
    double d = log(cc / cur);
    if (gb_rand_unit(&x->rng) < exp(-d / temperature(x)))
        x->cur = cand;
}

static uint64_t anneal_propose(struct gb_search *x)
{
    /* Exploration first: a quarter of the budget on a uniform sample, so the walk starts in the
     * best basin seen rather than wherever the default happens to lie. */
    if (x->evals < x->explore || x->cur == UINT64_MAX || !isfinite(cost_of(x, x->cur)))
        return random_open(x);
    if (!x->walking) {
        x->walking = true;
        x->cur = x->best != UINT64_MAX ? x->best : x->cur;
    }
    /* The last part of the budget polishes the best configuration: its unmeasured neighbours
     * first (a greedy finish, so the result is at least a local optimum). */
    if (x->evals >= x->budget - x->budget / POLISH_DIV && x->best != UINT64_MAX) {
        uint64_t c = open_neighbour(x, x->best);
        if (c != UINT64_MAX)
            return c;
    }
    for (int tries = 0; tries < ANNEAL_STALL; tries++) {
        uint64_t cand = neighbour(x, x->cur);
        if (cand == UINT64_MAX)
            continue;
        if (x->state[cand] == ST_OPEN)
            return cand;
        /* Already measured: walk there for free if the rule says so, and keep looking. */
        anneal_consider(x, cand);
    }
    /* Stalled among measured configurations: restart next to the best, else anywhere. */
    uint64_t c = x->best != UINT64_MAX ? open_neighbour(x, x->best) : UINT64_MAX;
    if (c == UINT64_MAX)
        c = open_neighbour(x, x->cur);
    if (c == UINT64_MAX)
        c = random_open(x);
    return c;
}

bool gb_search_next(struct gb_search *x, size_t *choice)
{
    if (x->pending != UINT64_MAX)
        gb_search_tell(x, INFINITY); /* a proposal without a cost counts as failed */
    if (x->evals >= x->budget)
        return false;
    uint64_t idx = UINT64_MAX;
    if (!x->def_done) {
        x->def_done = true;
        idx = x->def;
    }
    if (idx == UINT64_MAX) {
        switch (x->kind) {
        case GB_SEARCH_EXHAUSTIVE:
        case GB_SEARCH_RANDOM:
            while (x->pos < x->nvalid && x->state[x->order[x->pos]] != ST_OPEN)
                x->pos++;
            if (x->pos < x->nvalid)
                idx = x->order[x->pos++];
            break;
        case GB_SEARCH_ANNEAL:
            idx = anneal_propose(x);
            break;
        }
    }
    if (idx == UINT64_MAX)
        return false;
    x->pending = idx;
    gb_space_decode(&x->s, idx, choice);
    return true;
}

void gb_search_tell(struct gb_search *x, double cost)
{
    uint64_t idx = x->pending;
    if (idx == UINT64_MAX)
        return;
    x->pending = UINT64_MAX;
    if (!(cost > 0) || isnan(cost))
        cost = INFINITY;
    x->state[idx] = ST_DONE;
    x->cost[idx] = cost;
    x->evals++;
    if (isfinite(cost) && (x->best == UINT64_MAX || cost < x->cost[x->best]))
        x->best = idx;
    if (x->kind == GB_SEARCH_ANNEAL)
        anneal_consider(x, idx);
}

void gb_search_prune(struct gb_search *x)
{
    uint64_t idx = x->pending;
    if (idx == UINT64_MAX)
        return;
    x->pending = UINT64_MAX;
    x->state[idx] = ST_INVALID; /* nvalid stays: it bounds the proposal order */
    x->pruned++;
    if (x->budget > x->nvalid - x->pruned)
        x->budget = x->nvalid - x->pruned;
}

bool gb_search_best(const struct gb_search *x, size_t *choice, double *cost)
{
    if (x->best == UINT64_MAX)
        return false;
    if (choice)
        gb_space_decode(&x->s, x->best, choice);
    if (cost)
        *cost = x->cost[x->best];
    return true;
}

uint64_t gb_search_evaluations(const struct gb_search *x)
{
    return x->evals;
}

uint64_t gb_search_valid_count(const struct gb_search *x)
{
    return x->nvalid - x->pruned;
}

/* ---- replay ---------------------------------------------------------------------------- */

struct replay {
    const struct gb_space *s;
    const double *cost;
};

static bool replay_valid(void *user, const size_t *choice)
{
    const struct replay *r = user;
    return !isnan(r->cost[gb_space_encode(r->s, choice)]);
}

int gb_search_replay(enum gb_search_kind kind, const struct gb_space *s, const double *cost,
                     uint64_t budget, uint64_t seed, double *best, uint64_t *evals)
{
    struct replay r = {s, cost};
    struct gb_search *x;
    int rc = gb_search_create(kind, s, replay_valid, &r, budget, seed, &x);
    if (rc)
        return rc;
    size_t choice[GB_TUNE_MAX_TUNABLES];
    while (gb_search_next(x, choice))
        gb_search_tell(x, cost[gb_space_encode(s, choice)]);
    *best = INFINITY;
    gb_search_best(x, NULL, best);
    *evals = gb_search_evaluations(x);
    gb_search_free(x);
    return 0;
}
