/* gpubench — profiles: the tuning keys of a suite entry, `tuned`, `tunables` and `constraints`
 * (syntax in config.h; private contract in config_private.h).
 */
#include "harness/config_private.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "harness/tune.h"

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
        const char *name = gb__sval(k);
        if (strlen(name) >= sizeof t[i].name || !is_cname(name)) {
            rc = gb__fail(l, k, "tunables: \"%s\" is not a define name (letters, digits and _, "
                                "not starting with a digit, at most %zu characters)",
                          name, sizeof t[i].name - 1);
            goto fail;
        }
        memcpy(t[i].name, name, strlen(name) + 1);
        t[i].line = (int)k->start_mark.line + 1;
        t[i].column = (int)k->start_mark.column + 1;
        const struct gb_axis_def ax = {.name = t[i].name, .type = GB_V_INT, .min = 0};
        struct gb_sweep sw;
        if ((rc = gb__parse_sweep(l, &ax, v, &sw)))
            goto fail;
        if (sw.n > GB_TUNE_MAX_VALUES) {
            gb_sweep_free(&sw);
            rc = gb__fail(l, v, "tunables: %s has more than %d values", name, GB_TUNE_MAX_VALUES);
            goto fail;
        }
        t[i].values = malloc(sw.n * sizeof *t[i].values);
        if (!t[i].values) {
            gb_sweep_free(&sw);
            rc = gb__fail(l, v, "out of memory");
            goto fail;
        }
        for (size_t j = 0; j < sw.n; j++)
            t[i].values[j] = sw.v[j].u.i;
        t[i].n = sw.n;
        gb_sweep_free(&sw);
        i++;
    }
    free_tunables(run->tunables, run->ntunables);
    run->tunables = t;
    run->ntunables = np;
    return 0;
fail:
    free_tunables(t, np);
    return rc;
}

/* `constraints:` — an expression or a list of them (harness/tune.h syntax). */
int gb__parse_constraints(struct gb__ld *l, yaml_node_t *n, struct gb_suite_run *run)
{
    int rc = need_space(l, n, run, "constraints");
    if (rc)
        return rc;
    if (!n || (n->type != YAML_SEQUENCE_NODE && (n->type != YAML_SCALAR_NODE || gb__is_null(n))))
        return gb__fail(l, n, "expected an expression or a list of them for constraints, got %s",
                        gb__kind(n));
    size_t len = n->type == YAML_SEQUENCE_NODE ? gb__seq_len(n) : 1;
    if (len == 0)
        return gb__fail(l, n, "constraints: empty list");
    struct gb_constraint_spec *c = calloc(len, sizeof *c);
    if (!c)
        return gb__fail(l, n, "out of memory");
    for (size_t i = 0; i < len; i++) {
        yaml_node_t *it = n->type == YAML_SEQUENCE_NODE ? gb__seq_item(l, n, i) : n;
        const char *text;
        if ((rc = gb__want_scalar(l, it, "a constraint expression", &text)))
            goto fail;
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
            rc = gb__fail_loc(l, at, "constraint \"%s\": %s", text, msg ? msg + 2 : why);
            goto fail;
        }
        gb_expr_free(e);
        if (!(c[i].text = strdup(text))) {
            rc = gb__fail(l, it, "out of memory");
            goto fail;
        }
        c[i].line = (int)it->start_mark.line + 1;
        c[i].column = (int)it->start_mark.column + 1;
    }
    free_constraints(run->constraints, run->nconstraints);
    run->constraints = c;
    run->nconstraints = len;
    return 0;
fail:
    free_constraints(c, len);
    return rc;
}
