/* gpubench — the JSON form of telemetry in a results file (results_json.h; the data in
 * telemetry.h). Written only when telemetry ran; read leniently (a missing member is unknown),
 * since a file from before telemetry has none of it.
 *
 * result "telemetry": {"sources": [{"name", "available", "reason"}], "readings", "window_s",
 *   "clock_mhz" | "mem_clock_mhz" | "power_w" | "temp_c": {"n", "min", "mean", "max"} (measured
 *   quantities only), "energy_j", "energy_method", "energy_note" (why no energy), "extra_ops"
 *   (operations after the samples, telemetry.energy_window), "energy_per_op_j", "perf_per_watt",
 *   "perf_per_watt_unit", "throttled", "discarded", "note", "throttled_samples": [indices]}
 * run "machine": {"governor", "turbo" (true/false/null), "loadavg": [1, 5, 15 min],
 *   "devices": [{"device", "driver", "power_limit_w", "sm_clock_max_mhz", "sm_app_clock_mhz",
 *   "persistence", "ecc" (true/false/null), "pcie_gen", "pcie_width", "processes" (null:
 *   unknown)}]}
 */
#include "results/results.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "results/results_json.h"

static json_t *num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *tri(int v)
{
    return v < 0 ? json_null() : json_boolean(v);
}

static json_t *int_or_null(int v)
{
    return v < 0 ? json_null() : json_integer(v);
}

static json_t *ll_or_null(long long v)
{
    return v < 0 ? json_null() : json_integer((json_int_t)v);
}

static int set(json_t *o, const char *k, json_t *v)
{
    return json_object_set_new(o, k, v);
}

json_t *gb__tel_summary_json(const struct gb_tel_summary *t)
{
    json_t *o = json_object(), *src = json_array();
    int bad = !o || !src;
    for (int i = 0; i < GB_TEL_NSRC && !bad; i++) {
        json_t *s = json_object();
        bad |= !s || set(s, "name", json_string(t->src[i].name)) ||
               set(s, "available", json_boolean(t->src[i].available)) ||
               set(s, "reason", json_string(t->src[i].reason)) || json_array_append_new(src, s);
    }
    bad |= !o || set(o, "sources", src);
    bad |= !o || set(o, "readings", json_integer((json_int_t)t->nreadings)) ||
           set(o, "window_s", num(t->window_s));
    for (int q = 0; q < GB_TQ_COUNT && !bad; q++) {
        if (!t->q[q].n)
            continue;
        json_t *g = json_object();
        bad |= !g || set(g, "n", json_integer((json_int_t)t->q[q].n)) ||
               set(g, "min", num(t->q[q].min)) || set(g, "mean", num(t->q[q].mean)) ||
               set(g, "max", num(t->q[q].max)) || set(o, gb_tel_q_name((enum gb_tel_q)q), g);
    }
    bad |= !o || set(o, "energy_j", num(t->energy_j)) ||
           set(o, "energy_method", json_string(t->energy_method)) ||
           set(o, "energy_note", json_string(t->energy_note)) ||
           set(o, "extra_ops", json_integer((json_int_t)t->extra_ops)) ||
           set(o, "energy_per_op_j", num(t->energy_per_op_j)) ||
           set(o, "perf_per_watt", num(t->perf_per_watt)) ||
           set(o, "perf_per_watt_unit", json_string(t->perf_per_watt_unit)) ||
           set(o, "throttled", json_integer((json_int_t)t->nthrottled)) ||
           set(o, "discarded", json_integer((json_int_t)t->ndiscarded)) ||
           set(o, "note", json_string(t->note));
    if (!bad && t->marks) {
        json_t *m = json_array();
        bad |= !m;
        for (size_t i = 0; !bad && i < t->nmarks; i++)
            if (t->marks[i])
                bad |= json_array_append_new(m, json_integer((json_int_t)i));
        bad |= set(o, "throttled_samples", m);
    }
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *gb__tel_machine_json(const struct gb_tel_machine *m)
{
    json_t *o = json_object(), *la = json_array(), *devs = json_array();
    int bad = !o || !la || !devs;
    for (int i = 0; i < 3 && !bad; i++)
        bad |= json_array_append_new(la, num(m->loadavg[i]));
    for (size_t i = 0; i < m->ndev && !bad; i++) {
        const struct gb_tel_device_state *d = &m->dev[i];
        json_t *j = json_object();
        bad |= !j || set(j, "device", json_integer(d->device)) ||
               set(j, "driver", json_string(d->driver)) ||
               set(j, "power_limit_w", num(d->power_limit_w)) ||
               set(j, "sm_clock_max_mhz", num(d->sm_clock_max_mhz)) ||
               set(j, "sm_app_clock_mhz", num(d->sm_app_clock_mhz)) ||
               set(j, "persistence", tri(d->persistence)) || set(j, "ecc", tri(d->ecc)) ||
               set(j, "pcie_gen", int_or_null(d->pcie_gen)) ||
               set(j, "pcie_width", int_or_null(d->pcie_width)) ||
               set(j, "processes", int_or_null(d->processes)) ||
               set(j, "pcie_gen_max", int_or_null(d->pcie_gen_max)) ||
               set(j, "pcie_width_max", int_or_null(d->pcie_width_max)) ||
               set(j, "pcie_gen_load", int_or_null(d->pcie_gen_load)) ||
               set(j, "pcie_width_load", int_or_null(d->pcie_width_load)) ||
               set(j, "ecc_uncorrected_volatile", ll_or_null(d->ecc_uncorrected_volatile)) ||
               set(j, "ecc_uncorrected_aggregate", ll_or_null(d->ecc_uncorrected_aggregate)) ||
               set(j, "ecc_corrected_volatile", ll_or_null(d->ecc_corrected_volatile)) ||
               set(j, "retired_pages_pending", tri(d->retired_pending)) ||
               set(j, "row_remap_pending", tri(d->remap_pending)) ||
               set(j, "row_remap_failure", tri(d->remap_failure)) ||
               set(j, "power_default_w", num(d->power_default_w)) ||
               set(j, "xid_events", ll_or_null(d->xid_events)) ||
               set(j, "xid_last", int_or_null(d->xid_last)) || json_array_append_new(devs, j);
    }
    bad |= !o || set(o, "governor", json_string(m->governor)) || set(o, "turbo", tri(m->turbo)) ||
           set(o, "loadavg", la) || set(o, "devices", devs);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* ---- reading ------------------------------------------------------------------------------- */

static double rnum(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void rstr(const json_t *o, const char *k, char *buf, size_t len)
{
    const json_t *v = json_object_get(o, k);
    if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (len)
        buf[0] = '\0';
}

static int rtri(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_boolean(v) ? json_is_true(v) : -1;
}

/* A count or a small number: -1 (unknown) unless an integer in [0, INT_MAX]. */
static int rint_(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    const json_int_t i = json_is_integer(v) ? json_integer_value(v) : -1;
    return i >= 0 && i <= INT_MAX ? (int)i : -1;
}

static long long rll(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    const json_int_t i = json_is_integer(v) ? json_integer_value(v) : -1;
    return i >= 0 ? (long long)i : -1;
}

static size_t rsize(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (size_t)json_integer_value(v) : 0;
}

int gb__tel_summary_read(const json_t *o, size_t nsamples, struct gb_tel_summary *t)
{
    memset(t, 0, sizeof *t);
    if (!json_is_object(o))
        return 0;
    t->on = true;
    const json_t *src = json_object_get(o, "sources");
    for (size_t i = 0; i < GB_TEL_NSRC && i < json_array_size(src); i++) {
        const json_t *s = json_array_get(src, i);
        rstr(s, "name", t->src[i].name, sizeof t->src[i].name);
        rstr(s, "reason", t->src[i].reason, sizeof t->src[i].reason);
        t->src[i].available = rtri(s, "available") == 1;
    }
    t->nreadings = rsize(o, "readings");
    t->window_s = rnum(o, "window_s");
    for (int q = 0; q < GB_TQ_COUNT; q++) {
        const json_t *g = json_object_get(o, gb_tel_q_name((enum gb_tel_q)q));
        t->q[q] =
            (struct gb_tel_range){rsize(g, "n"), rnum(g, "min"), rnum(g, "mean"), rnum(g, "max")};
    }
    t->energy_j = rnum(o, "energy_j");
    rstr(o, "energy_method", t->energy_method, sizeof t->energy_method);
    rstr(o, "energy_note", t->energy_note, sizeof t->energy_note);
    t->extra_ops = rsize(o, "extra_ops");
    t->energy_per_op_j = rnum(o, "energy_per_op_j");
    t->perf_per_watt = rnum(o, "perf_per_watt");
    rstr(o, "perf_per_watt_unit", t->perf_per_watt_unit, sizeof t->perf_per_watt_unit);
    t->nthrottled = rsize(o, "throttled");
    t->ndiscarded = rsize(o, "discarded");
    rstr(o, "note", t->note, sizeof t->note);
    const json_t *m = json_object_get(o, "throttled_samples");
    if (json_array_size(m) && nsamples) {
        if (!(t->marks = calloc(nsamples, 1)))
            return -1;
        t->nmarks = nsamples;
        for (size_t i = 0; i < json_array_size(m); i++) {
            const json_t *v = json_array_get(m, i);
            if (json_is_integer(v) && json_integer_value(v) >= 0 &&
                (size_t)json_integer_value(v) < nsamples)
                t->marks[json_integer_value(v)] = 1;
        }
    }
    return 0;
}

void gb__tel_machine_read(const json_t *o, struct gb_tel_machine *m)
{
    memset(m, 0, sizeof *m);
    if (!json_is_object(o))
        return;
    m->recorded = true;
    rstr(o, "governor", m->governor, sizeof m->governor);
    m->turbo = rtri(o, "turbo");
    const json_t *la = json_object_get(o, "loadavg");
    for (size_t i = 0; i < 3; i++) {
        const json_t *v = json_array_get(la, i);
        m->loadavg[i] = json_is_number(v) ? json_number_value(v) : NAN;
    }
    const json_t *devs = json_object_get(o, "devices");
    for (size_t i = 0; i < json_array_size(devs) && m->ndev < GB_TEL_MAX_DEVS; i++) {
        const json_t *j = json_array_get(devs, i);
        struct gb_tel_device_state *d = &m->dev[m->ndev++];
        d->device = rint_(j, "device");
        rstr(j, "driver", d->driver, sizeof d->driver);
        d->power_limit_w = rnum(j, "power_limit_w");
        d->sm_clock_max_mhz = rnum(j, "sm_clock_max_mhz");
        d->sm_app_clock_mhz = rnum(j, "sm_app_clock_mhz");
        d->persistence = rtri(j, "persistence");
        d->ecc = rtri(j, "ecc");
        d->pcie_gen = rint_(j, "pcie_gen");
        d->pcie_width = rint_(j, "pcie_width");
        d->processes = rint_(j, "processes");
        d->pcie_gen_max = rint_(j, "pcie_gen_max");
        d->pcie_width_max = rint_(j, "pcie_width_max");
        d->pcie_gen_load = rint_(j, "pcie_gen_load");
        d->pcie_width_load = rint_(j, "pcie_width_load");
        d->ecc_uncorrected_volatile = rll(j, "ecc_uncorrected_volatile");
        d->ecc_uncorrected_aggregate = rll(j, "ecc_uncorrected_aggregate");
        d->ecc_corrected_volatile = rll(j, "ecc_corrected_volatile");
        d->retired_pending = rtri(j, "retired_pages_pending");
        d->remap_pending = rtri(j, "row_remap_pending");
        d->remap_failure = rtri(j, "row_remap_failure");
        d->xid_events = rll(j, "xid_events");
        d->xid_last = rint_(j, "xid_last");
        d->power_default_w = rnum(j, "power_default_w");
    }
}
