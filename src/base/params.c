/* gpubench — typed values, sweeps and the parameters of one case (see params.h). */
#include "base/params.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "base/util.h"

const struct gb_value *gb_params_get(const struct gb_params *p, const char *name)
{
    if (!p || !name)
        return NULL;
    for (size_t i = 0; i < p->n && i < GB_MAX_AXES; i++)
        if (p->name[i] && strcmp(p->name[i], name) == 0)
            return &p->v[i];
    return NULL;
}

struct gb_value *gb_params_slot(struct gb_params *p, const char *name)
{
    /* p is writable, so the value gb_params_get found in it is too. */
    return (struct gb_value *)gb_params_get(p, name);
}

/* The value called `name` when it has type t, else NULL. */
static const struct gb_value *get_typed(const struct gb_params *p, const char *name,
                                        enum gb_vtype t)
{
    const struct gb_value *v = gb_params_get(p, name);
    return v && v->type == t ? v : NULL;
}

uint64_t gb_params_size(const struct gb_params *p, const char *name)
{
    const struct gb_value *v = get_typed(p, name, GB_V_SIZE);
    return v ? v->u.size : 0;
}

int64_t gb_params_int(const struct gb_params *p, const char *name)
{
    const struct gb_value *v = get_typed(p, name, GB_V_INT);
    return v ? v->u.i : 0;
}

double gb_params_float(const struct gb_params *p, const char *name)
{
    const struct gb_value *v = get_typed(p, name, GB_V_FLOAT);
    return v ? v->u.f : 0.0;
}

const char *gb_params_str(const struct gb_params *p, const char *name)
{
    const struct gb_value *v = get_typed(p, name, GB_V_STR);
    return v ? v->s : "";
}

bool gb_params_bool(const struct gb_params *p, const char *name)
{
    const struct gb_value *v = get_typed(p, name, GB_V_BOOL);
    return v ? v->u.b : false;
}

/* Appends s to buf (cap bytes, used of them taken, NUL-terminated), truncating as gb_appendf
 * does; the new length. Called for every param of every result a fleet reads: no printf. */
static size_t put(char *buf, size_t cap, size_t used, const char *s)
{
    size_t n = strlen(s);
    if (used + 1 >= cap)
        return used;
    if (n > cap - 1 - used)
        n = cap - 1 - used;
    memcpy(buf + used, s, n);
    buf[used + n] = '\0';
    return used + n;
}

char *gb_value_format(const struct gb_value *v, char *buf, size_t len)
{
    if (!buf || len == 0)
        return buf;
    buf[0] = '\0';
    if (!v)
        return buf;
    switch (v->type) {
    case GB_V_SIZE:
        return gb_format_size(v->u.size, buf, len);
    case GB_V_INT:
        snprintf(buf, len, "%" PRId64, v->u.i);
        break;
    case GB_V_FLOAT:
        /* %.17g round-trips but prints 0.1 as 0.10000000000000001; try the short form first. */
        snprintf(buf, len, "%g", v->u.f);
        if (strtod(buf, NULL) != v->u.f)
            snprintf(buf, len, "%.17g", v->u.f);
        break;
    case GB_V_STR:
        put(buf, len, 0, v->s);
        break;
    case GB_V_BOOL:
        put(buf, len, 0, v->u.b ? "true" : "false");
        break;
    }
    return buf;
}

bool gb_value_equal(const struct gb_value *a, const struct gb_value *b)
{
    if (!a || !b || a->type != b->type)
        return false;
    switch (a->type) {
    case GB_V_SIZE:
        return a->u.size == b->u.size;
    case GB_V_INT:
        return a->u.i == b->u.i;
    case GB_V_FLOAT:
        return a->u.f == b->u.f;
    case GB_V_STR:
        return strncmp(a->s, b->s, GB_STR_MAX) == 0;
    case GB_V_BOOL:
        return a->u.b == b->u.b;
    }
    return false;
}

char *gb_params_format(const struct gb_params *p, char *buf, size_t len)
{
    if (!buf || len == 0)
        return buf;
    buf[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; p && i < p->n && i < GB_MAX_AXES; i++) {
        char val[GB_STR_MAX + 32];
        gb_value_format(&p->v[i], val, sizeof val);
        if (i)
            used = put(buf, len, used, " ");
        used = put(buf, len, used, p->name[i] ? p->name[i] : "?");
        used = put(buf, len, used, "=");
        used = put(buf, len, used, val);
    }
    return buf;
}

void gb_sweep_free(struct gb_sweep *s)
{
    if (!s)
        return;
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

bool gb_params_equal_but(const struct gb_params *a, const struct gb_params *b,
                         const char *const *except)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        if (strcmp(a->name[i], b->name[i]) != 0)
            return false;
        bool skip = false;
        for (size_t k = 0; except && except[k] && !skip; k++)
            skip = strcmp(a->name[i], except[k]) == 0;
        if (!skip && !gb_value_equal(&a->v[i], &b->v[i]))
            return false;
    }
    return true;
}
