/* gpubench — looking things up in a table of suites (contract in suite.h). */
#include "run/suite.h"

#include <string.h>

const struct gb_suite *gb_suite_table_find(const struct gb_suite_table *t, const char *name)
{
    for (size_t i = 0; t && name && i < t->n; i++)
        if (strcmp(t->v[i]->name, name) == 0)
            return t->v[i];
    return NULL;
}

const struct gb_axis_def *gb_suite_axis(const struct gb_suite *s, const char *name)
{
    for (size_t i = 0; i < s->naxes; i++)
        if (strcmp(s->axes[i].name, name) == 0)
            return &s->axes[i];
    return NULL;
}

const char *gb_suite_case_name(const struct gb_suite *s, const struct gb_params *p)
{
    const struct gb_value *v = s->case_axis ? gb_params_get(p, s->case_axis) : NULL;
    return v && v->type == GB_V_STR ? v->s : "";
}

bool gb_suite_param_applies(const struct gb_suite *s, const struct gb_params *p, const char *name,
                            const struct gb_value *v)
{
    if (v->type == GB_V_STR && strcmp(v->s, "none") == 0)
        return false;
    const struct gb_axis_def *a = s ? gb_suite_axis(s, name) : NULL;
    if (a && a->min >= 1 && !a->zero_picks &&
        ((v->type == GB_V_INT && v->u.i == 0) || (v->type == GB_V_SIZE && v->u.size == 0)))
        return false;
    return !(s && a && s->axis_applies && p && !s->axis_applies(p, name));
}
