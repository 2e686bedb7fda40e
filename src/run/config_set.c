/* gpubench — profiles: the `--set KEY=VALUE` overrides, applied after the profile is read and
 * before the measurement layers are resolved (syntax in config.h; private contract in
 * config_private.h).
 */
#include "run/config_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The keys --set takes, for messages. */
static const char key_list[] =
    "name, backends, devices, measure[.KEY], telemetry[.KEY], tuning_cache, "
    "SUITE.measure[.KEY], SUITE.params[.AXIS] or "
    "SUITE.tuned|tunables|constraints";

int gb__apply_override(struct gb__ld *l, const struct gb_override *o)
{
    char *src = malloc(strlen(o->key ? o->key : "") + 8);
    if (!src)
        return gb__fail(l, NULL, "out of memory");
    sprintf(src, "--set %s", o->key ? o->key : "");
    char **ns = realloc(l->srcs, (l->nsrcs + 1) * sizeof *ns);
    if (!ns) {
        free(src);
        return gb__fail(l, NULL, "out of memory");
    }
    l->srcs = ns;
    l->srcs[l->nsrcs++] = src;
    l->src = src;

    const char *key = o->key ? o->key : "";
    const char *val = o->value ? o->value : "";
    char parts[4][128];
    size_t np = 0;
    for (const char *p = key;;) {
        size_t w = strcspn(p, ".");
        if (np == 4 || w == 0 || w >= sizeof parts[0])
            return gb__fail(l, NULL, "bad key \"%s\" (expected %s)", key, key_list);
        memcpy(parts[np], p, w);
        parts[np++][w] = '\0';
        if (!p[w])
            break;
        p += w + 1;
    }

    yaml_document_t doc;
    int rc = gb__load_doc(l, val, strlen(val), &doc);
    if (rc)
        return rc;
    l->doc = &doc;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root)
        rc = gb__fail(l, NULL, "no value (write --set %s=VALUE)", key);
    else if (np == 1 && strcmp(parts[0], "name") == 0)
        rc = gb__parse_name(l, root);
    else if (np == 1 && strcmp(parts[0], "backends") == 0)
        rc = gb__parse_backends(l, root);
    else if (np == 1 && strcmp(parts[0], "devices") == 0)
        rc = gb__parse_devices(l, root);
    else if (np == 1 && strcmp(parts[0], "measure") == 0)
        rc = gb__parse_measure(l, root, &l->top);
    else if (np == 1 && strcmp(parts[0], "tuning_cache") == 0)
        rc = gb__parse_tuning_cache(l, root);
    else if (np == 1 && strcmp(parts[0], "telemetry") == 0)
        rc = gb__parse_telemetry(l, root);
    else if (np == 2 && strcmp(parts[0], "telemetry") == 0)
        rc = gb__parse_telemetry_key(l, parts[1], root);
    else if (np == 2 && gb_suite_table_find(l->p->suites, parts[0]) &&
             (strcmp(parts[1], "tuned") == 0 || strcmp(parts[1], "tunables") == 0 ||
              strcmp(parts[1], "constraints") == 0)) {
        const struct gb_suite *s = gb_suite_table_find(l->p->suites, parts[0]);
        size_t hits = 0;
        for (size_t i = 0; !rc && i < l->p->nruns; i++) {
            struct gb_suite_run *run = &l->p->runs[i];
            if (run->suite != s)
                continue;
            hits++;
            rc = strcmp(parts[1], "tuned") == 0      ? gb__parse_tuned(l, root, run)
                 : strcmp(parts[1], "tunables") == 0 ? gb__parse_tunables(l, root, run)
                                                     : gb__parse_constraints(l, root, run);
        }
        if (!rc && !hits)
            rc = gb__fail(l, NULL, "the profile has no entry of suite %s", s->name);
    } else if (np == 2 && strcmp(parts[0], "measure") == 0) {
        int k;
        if (!(rc = gb__find_mkey(l, parts[1], &k)))
            rc = gb__parse_mkey(l, k, root, &l->top);
    } else if (np >= 2 && np <= 3 &&
               (strcmp(parts[1], "measure") == 0 || strcmp(parts[1], "params") == 0)) {
        const struct gb_suite *s = gb_suite_table_find(l->p->suites, parts[0]);
        bool params = strcmp(parts[1], "params") == 0;
        int mk = -1;
        const struct gb_axis_def *ax = NULL;
        char all[512], hint[96];
        size_t hits = 0;
        if (!s)
            rc = gb__fail(l, NULL, "unknown suite \"%s\" (%ssuites: %s)", parts[0],
                          gb__hint(parts[0], gb__suite_list(l->p->suites, all, sizeof all), hint,
                                   sizeof hint),
                          all);
        else if (np == 3 && !params)
            rc = gb__find_mkey(l, parts[2], &mk);
        else if (np == 3 && params && !(ax = gb_suite_axis(s, parts[2])))
            rc = gb__fail(l, NULL, "suite %s has no axis \"%s\" (%saxes: %s)", s->name, parts[2],
                          gb__hint(parts[2], gb__axis_list(s, all, sizeof all), hint, sizeof hint),
                          all);
        for (size_t i = 0; !rc && i < l->p->nruns; i++) {
            struct gb_suite_run *run = &l->p->runs[i];
            if (run->suite != s)
                continue;
            hits++;
            if (!params)
                rc = mk >= 0 ? gb__parse_mkey(l, mk, root, &l->runm[i])
                             : gb__parse_measure(l, root, &l->runm[i]);
            else if (!ax)
                rc = gb__parse_params(l, root, run);
            else {
                struct gb_sweep sw;
                size_t ai = (size_t)(ax - s->axes);
                if (!(rc = gb__parse_sweep(l, ax, root, &sw))) {
                    gb_sweep_free(&run->sweeps[ai]);
                    run->sweeps[ai] = sw;
                    run->defaulted &= ~(UINT32_C(1) << ai);
                }
            }
        }
        if (!rc && !hits)
            rc = gb__fail(l, NULL, "the profile has no entry of suite %s", s->name);
    } else {
        char hint[96];
        rc = gb__fail(l, NULL, "unknown key \"%s\" (%sexpected %s)", key,
                      gb__hint(key, key_list, hint, sizeof hint), key_list);
    }
    yaml_document_delete(&doc);
    l->doc = NULL;
    return rc;
}
