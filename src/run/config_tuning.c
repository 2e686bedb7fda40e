/* gpubench — profiles: the tuning keys of a suite entry, `tuned`, `tunables` and `constraints`
 * (syntax in config.h; private contract in config_private.h).
 */
#include "run/config_private.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "run/tune.h"

int gb__parse_tuned(struct gb__ld *l, yaml_node_t *n, struct gb_suite_run *run)
{
    const char *s = NULL;
    int rc = gb__want_scalar(l, n, "true or false for tuned", &s);
    if (rc)
        return rc;
    if (!gb__parse_bool(s, &run->tuned))
        return gb__fail(l, n, "tuned: expected true or false, got \"%s\"", s);
    return 0;
}

static bool is_cname(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return false;
    return true;
}

static void free_tunables(struct gb_tunable_spec *t, size_t n)
{
    for (size_t i = 0; t && i < n; i++)
        free(t[i].values);
    free(t);
}

static void free_constraints(struct gb_constraint_spec *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++)
        free(c[i].text);
    free(c);
}

/* Puts t[0..nt) in place of run's tunables and c[0..nc) in place of its constraints, each
 * only when it is not NULL, and frees what they replace. */
static void replace(struct gb_suite_run *run, struct gb_tunable_spec *t, size_t nt,
                    struct gb_constraint_spec *c, size_t nc)
{
    if (t) {
        free_tunables(run->tunables, run->ntunables);
        run->tunables = t;
        run->ntunables = nt;
    }
    if (c) {
        free_constraints(run->constraints, run->nconstraints);
        run->constraints = c;
        run->nconstraints = nc;
    }
}

void gb__free_tuning(struct gb_suite_run *run)
{
    free_tunables(run->tunables, run->ntunables);
    free_constraints(run->constraints, run->nconstraints);
    run->tunables = NULL;
    run->ntunables = 0;
    run->constraints = NULL;
    run->nconstraints = 0;
}

/* Only a suite with a search space (gb_suite.search_space) takes `key` (tunables, constraints). */
static int need_space(struct gb__ld *l, const yaml_node_t *n, const struct gb_suite_run *run,
                      const char *key)
{
    if (!run->suite->search_space)
        return gb__fail(l, n, "suite %s takes no %s (only the tuning suite has a search space)",
                        run->suite->name, key);
    return 0;
}

/* One tunable: name node k (a -D define name), values node v (a list or a range of integers). */
static int parse_tunable(struct gb__ld *l, yaml_node_t *k, yaml_node_t *v,
                         struct gb_tunable_spec *t)
{
    const char *name = gb__sval(k);
    if (strlen(name) >= sizeof t->name || !is_cname(name))
        return gb__fail(l, k,
                        "tunables: \"%s\" is not a define name (letters, digits and _, "
                        "not starting with a digit, at most %zu characters)",
                        name, sizeof t->name - 1);
    memcpy(t->name, name, strlen(name) + 1);
    t->line = (int)k->start_mark.line + 1;
    t->column = (int)k->start_mark.column + 1;
    const struct gb_axis_def ax = {.name = t->name, .type = GB_V_INT, .min = 0};
    struct gb_sweep sw;
    int rc = gb__parse_sweep(l, &ax, v, &sw);
    if (rc)
        return rc;
    if (sw.n > GB_TUNE_MAX_VALUES)
        rc = gb__fail(l, v, "tunables: %s has more than %d values", name, GB_TUNE_MAX_VALUES);
    else if (!(t->values = malloc(sw.n * sizeof *t->values)))
        rc = gb__fail(l, v, "out of memory");
    for (size_t j = 0; !rc && j < sw.n; j++)
        t->values[j] = sw.v[j].u.i;
    if (!rc)
        t->n = sw.n;
    gb_sweep_free(&sw);
    return rc;
}

/* `tunables:` — a mapping of -D define names to sweeps of integers (a list or a range). */
int gb__parse_tunables(struct gb__ld *l, yaml_node_t *n, struct gb_suite_run *run)
{
    int rc;
    if ((rc = need_space(l, n, run, "tunables")) || (rc = gb__check_map(l, n, "tunables")))
        return rc;
    size_t np = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    if (np == 0)
        return gb__fail(l, n, "tunables: empty mapping (name at least one tunable)");
    if (np > GB_TUNE_MAX_TUNABLES)
        return gb__fail(l, n, "tunables: %zu tunables, at most %d", np, GB_TUNE_MAX_TUNABLES);
    struct gb_tunable_spec *t = calloc(np, sizeof *t);
    if (!t)
        return gb__fail(l, n, "out of memory");
    size_t i = 0;
    yaml_node_t *k, *v;
    GB__MAP_FOREACH(l, n, k, v)
    {
        if ((rc = parse_tunable(l, k, v, &t[i++])))
            break;
    }
    if (rc)
        free_tunables(t, np);
    else
        replace(run, t, np, NULL, 0);
    return rc;
}

/* One constraint expression, node it: its syntax is checked here, its names when the case runs. */
static int parse_constraint(struct gb__ld *l, yaml_node_t *it, struct gb_constraint_spec *c)
{
    const char *text;
    int rc = gb__want_scalar(l, it, "a constraint expression", &text);
    if (rc)
        return rc;
    struct gb_expr *e = NULL;
    char why[256];
    int col = 1;
    if (gb_expr_parse(text, &e, why, sizeof why, &col)) {
        /* Point at the offending character: quoted scalars start one column later. */
        struct gb__loc at = gb__node_loc(l, it);
        bool quoted = it->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                      it->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        at.col += col - 1 + (quoted ? 1 : 0);
        const char *msg = strchr(why, ':');
        /* A long constraint is quoted by its start: the reason must fit in the message. */
        return gb__fail_loc(l, at, "constraint \"%.60s%s\": %s", text,
                            strlen(text) > 60 ? "..." : "", msg ? msg + 2 : why);
    }
    gb_expr_free(e);
    if (!(c->text = strdup(text)))
        return gb__fail(l, it, "out of memory");
    c->line = (int)it->start_mark.line + 1;
    c->column = (int)it->start_mark.column + 1;
    return 0;
}

/* `constraints:` — an expression or a list of them (run/tune.h syntax). */
int gb__parse_constraints(struct gb__ld *l, yaml_node_t *n, struct gb_suite_run *run)
{
    size_t len = 0;
    int rc;
    if ((rc = need_space(l, n, run, "constraints")) ||
        (rc = gb__scalar_or_list(l, n, "an expression or a list of them for constraints",
                                 "constraints: empty list", &len)))
        return rc;
    struct gb_constraint_spec *c = calloc(len, sizeof *c);
    if (!c)
        return gb__fail(l, n, "out of memory");
    for (size_t i = 0; !rc && i < len; i++)
        rc = parse_constraint(l, gb__list_item(l, n, i), &c[i]);
    if (rc)
        free_constraints(c, len);
    else
        replace(run, NULL, 0, c, len);
    return rc;
}
