/* gpubench — profiles: the `telemetry:` key (backends/telemetry.h; private contract in
 * config_private.h).
 *
 *   telemetry: {enabled: true, period: 20ms, on_throttle: keep, clock_floor: 0.9,
 *               energy_window: 0s}
 *   telemetry: off                  # a boolean scalar is `enabled:`
 */
#include "run/config_private.h"

#include <math.h>
#include <string.h>

#include "base/units.h"

static const char tel_keys[] = "enabled, period, on_throttle, clock_floor or energy_window";

/* One key of `telemetry:` from node v. */
int gb__parse_telemetry_key(struct gb__ld *l, const char *key, yaml_node_t *v)
{
    struct gb_tel_cfg *t = &l->p->telemetry;
    const char *s;
    int rc = gb__want_scalar(l, v, "a scalar", &s);
    if (rc)
        return rc;
    if (strcmp(key, "enabled") == 0) {
        if (!gb__parse_bool(s, &t->enabled))
            return gb__fail(l, v, "telemetry.enabled: expected true or false, got \"%s\"", s);
    } else if (strcmp(key, "period") == 0) {
        double p;
        if (gb_parse_duration(s, &p) || !(p >= 1e-3) || p > 10.0)
            return gb__fail(l, v,
                            "telemetry.period: expected a duration from 1ms to 10s, got "
                            "\"%s\"",
                            s);
        t->period = p;
    } else if (strcmp(key, "on_throttle") == 0) {
        if (strcmp(s, "keep") == 0)
            t->on_throttle = GB_THROTTLE_KEEP;
        else if (strcmp(s, "discard") == 0)
            t->on_throttle = GB_THROTTLE_DISCARD;
        else if (strcmp(s, "fail") == 0)
            t->on_throttle = GB_THROTTLE_FAIL;
        else
            return gb__fail(l, v,
                            "telemetry.on_throttle: expected keep, discard or fail, got "
                            "\"%s\"",
                            s);
    } else if (strcmp(key, "clock_floor") == 0) {
        double f;
        if (!gb__parse_f64(s, &f) || !(f > 0.0 && f <= 1.0))
            return gb__fail(l, v,
                            "telemetry.clock_floor: expected a fraction in (0, 1], got "
                            "\"%s\"",
                            s);
        t->clock_floor = f;
    } else if (strcmp(key, "energy_window") == 0) {
        double w;
        if (gb_parse_duration(s, &w) || !(w >= 0.0) || w > 10.0)
            return gb__fail(l, v,
                            "telemetry.energy_window: expected a duration from 0s to 10s, got "
                            "\"%s\"",
                            s);
        t->energy_window = w;
    } else {
        char hint[96];
        return gb__fail(l, v, "unknown key \"%s\" in telemetry (%sexpected %s)", key,
                        gb__hint(key, tel_keys, hint, sizeof hint), tel_keys);
    }
    return 0;
}

int gb__parse_telemetry(struct gb__ld *l, yaml_node_t *n)
{
    if (n && n->type == YAML_SCALAR_NODE && !gb__is_null(n)) {
        if (!gb__parse_bool(gb__sval(n), &l->p->telemetry.enabled))
            return gb__fail(l, n, "telemetry: expected a mapping (%s) or true/false", tel_keys);
        return 0;
    }
    int rc = gb__check_map(l, n, "telemetry");
    if (rc)
        return rc;
    yaml_node_t *k, *v;
    GB__MAP_FOREACH(l, n, k, v)
    {
        if ((rc = gb__parse_telemetry_key(l, gb__sval(k), v)))
            return rc;
    }
    return 0;
}
