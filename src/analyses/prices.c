/* gpubench — the price sheet (format and contract in prices.h). */
#include "analyses/prices.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "base/error.h"

struct ld {
    const char *path;
    yaml_document_t *doc;
    char *err;
    size_t errlen;
};

static int fail(struct ld *l, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct ld *l, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(l->err, l->errlen, "%s:%zu:%zu: %s", l->path, n ? n->start_mark.line + 1 : 1,
             n ? n->start_mark.column + 1 : 1, msg);
    return GB_ECONFIG;
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A positive number: "30000", "29999.99", "700W" / "700 W" for power. */
static int number(struct ld *l, const yaml_node_t *n, const char *what, bool watts, double *out)
{
    const char *s = scalar(n);
    if (!s)
        return fail(l, n, "%s: expected a number", what);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end == ' ')
        end++;
    if (watts && (*end == 'W' || *end == 'w'))
        end++;
    if (end == s || *end || errno || !isfinite(v))
        return fail(l, n, "%s: '%s' is not a number", what, s);
    if (!(v > 0.0))
        return fail(l, n, "%s: must be positive, got %s", what, s);
    *out = v;
    return 0;
}

static int parse_entry(struct ld *l, const yaml_node_t *key, const yaml_node_t *val,
                       struct gb_price *e)
{
    const char *name = scalar(key);
    if (!name || !*name)
        return fail(l, key, "a device key must be a non-empty name");
    if (strlen(name) >= sizeof e->match)
        return fail(l, key, "device name longer than %zu characters", sizeof e->match - 1);
    memset(e, 0, sizeof *e);
    snprintf(e->match, sizeof e->match, "%s", name);
    e->price = NAN;
    e->power_w = NAN;
    e->line = (int)key->start_mark.line + 1;
    if (val->type != YAML_MAPPING_NODE)
        return fail(l, val, "'%s': expected a mapping such as {price: 1000, power: 300}", name);
    for (yaml_node_pair_t *p = val->data.mapping.pairs.start; p < val->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(l->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(l->doc, p->value);
        const char *ks = scalar(k);
        int rc;
        if (ks && strcmp(ks, "price") == 0)
            rc = number(l, v, "price", false, &e->price);
        else if (ks && strcmp(ks, "power") == 0)
            rc = number(l, v, "power", true, &e->power_w);
        else
            rc = fail(l, k, "unknown key '%s' (expected price, power)", ks ? ks : "?");
        if (rc)
            return rc;
    }
    return 0;
}

int gb_prices_load(const char *path, struct gb_prices *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    snprintf(out->currency, sizeof out->currency, "USD");
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open the price sheet: %s", path, strerror(errno));
        return GB_EIO;
    }
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);
    if (!yaml_parser_load(&parser, &doc)) {
        snprintf(err, errlen, "%s:%zu:%zu: %s", path, parser.problem_mark.line + 1,
                 parser.problem_mark.column + 1,
                 parser.problem ? parser.problem : "YAML syntax error");
        yaml_parser_delete(&parser);
        fclose(f);
        return GB_ECONFIG;
    }
    yaml_parser_delete(&parser);
    fclose(f);
    struct ld l = {path, &doc, err, errlen};
    int rc = 0;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) {
        rc = fail(&l, NULL, "empty price sheet (expected 'devices:')");
        goto out;
    }
    if (root->type != YAML_MAPPING_NODE) {
        rc = fail(&l, root, "expected a mapping with 'devices:'");
        goto out;
    }
    yaml_node_t *devices = NULL;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(&doc, p->key);
        yaml_node_t *v = yaml_document_get_node(&doc, p->value);
        const char *ks = scalar(k);
        if (ks && strcmp(ks, "currency") == 0) {
            const char *c = scalar(v);
            if (!c || !*c || strlen(c) >= sizeof out->currency) {
                rc = fail(&l, v, "currency: expected a short code such as USD or EUR");
                goto out;
            }
            snprintf(out->currency, sizeof out->currency, "%s", c);
        } else if (ks && strcmp(ks, "devices") == 0) {
            devices = v;
        } else {
            rc = fail(&l, k, "unknown key '%s' (expected currency, devices)", ks ? ks : "?");
            goto out;
        }
    }
    if (!devices || devices->type != YAML_MAPPING_NODE) {
        rc = fail(&l, devices ? devices : root,
                  "'devices:' must map device names to {price, power}");
        goto out;
    }
    size_t n = (size_t)(devices->data.mapping.pairs.top - devices->data.mapping.pairs.start);
    out->v = calloc(n ? n : 1, sizeof *out->v);
    if (!out->v) {
        snprintf(err, errlen, "%s: out of memory", path);
        rc = GB_ENOMEM;
        goto out;
    }
    for (yaml_node_pair_t *p = devices->data.mapping.pairs.start;
         p < devices->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(&doc, p->key);
        yaml_node_t *v = yaml_document_get_node(&doc, p->value);
        if ((rc = parse_entry(&l, k, v, &out->v[out->n])))
            goto out;
        for (size_t i = 0; i < out->n; i++)
            if (strcmp(out->v[i].match, out->v[out->n].match) == 0) {
                rc = fail(&l, k, "'%s' is listed twice (first at line %d)", out->v[i].match,
                          out->v[i].line);
                goto out;
            }
        out->n++;
    }
out:
    yaml_document_delete(&doc);
    if (rc) {
        free(out->v);
        out->v = NULL;
        out->n = 0;
    }
    return rc;
}

const struct gb_price *gb_prices_find(const struct gb_prices *p, const char *device_name)
{
    if (!p)
        return NULL;
    const struct gb_price *best = NULL;
    for (size_t i = 0; i < p->n; i++) {
        if (strcmp(p->v[i].match, device_name) == 0)
            return &p->v[i];
    }
    size_t dl = strlen(device_name);
    for (size_t i = 0; i < p->n; i++) {
        size_t ml = strlen(p->v[i].match);
        bool hit = false;
        for (size_t s = 0; s + ml <= dl && !hit; s++)
            hit = strncasecmp(device_name + s, p->v[i].match, ml) == 0;
        if (hit && (!best || ml > strlen(best->match)))
            best = &p->v[i];
    }
    return best;
}

void gb_prices_free(struct gb_prices *p)
{
    if (!p)
        return;
    free(p->v);
    p->v = NULL;
    p->n = 0;
}
