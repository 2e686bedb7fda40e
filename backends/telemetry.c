/* gpubench — telemetry: names and defaults, sessions (each device's sources read in turn), the
 * sessions kept per device, the sampler thread (contract in telemetry.h; the sources and what
 * they share: telemetry_private.h). */
#include "backends/telemetry.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/backend.h"
#include "backends/telemetry_private.h"
#include "base/error.h"
#include "base/units.h"
#include "base/util.h"

const struct gb_tel_cfg gb_tel_defaults = {
    .enabled = true, .period = 0.020, .on_throttle = GB_THROTTLE_KEEP, .clock_floor = 0.9};

const char *gb_tel_q_name(enum gb_tel_q q)
{
    static const char *const names[GB_TQ_COUNT] = {"clock_mhz", "mem_clock_mhz", "power_w",
                                                   "temp_c"};
    return (unsigned)q < GB_TQ_COUNT ? names[q] : "?";
}

const char *gb_throttle_policy_name(enum gb_throttle_policy p)
{
    return p == GB_THROTTLE_DISCARD ? "discard" : p == GB_THROTTLE_FAIL ? "fail" : "keep";
}

/* ---- sessions ------------------------------------------------------------------------------ */

struct gb_tel_session {
    struct gb__nvml *nvml;
    struct gb__sysfs *sysfs;
    struct gb_tel_source_status st[GB_TEL_NSRC];
};

int gb_tel_open(const struct gb_tel_target *t, struct gb_tel_session **out)
{
    struct gb_tel_session *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s)
        return GB_FAIL(GB_ENOMEM, "telemetry session");
    snprintf(s->st[0].name, sizeof s->st[0].name, "nvml");
    snprintf(s->st[1].name, sizeof s->st[1].name, "sysfs");
    s->nvml = gb__nvml_open(t, s->st[0].reason, sizeof s->st[0].reason);
    if (s->nvml)
        snprintf(s->st[0].reason, sizeof s->st[0].reason, "device %s", t->pci_bus_id);
    s->st[0].available = s->nvml != NULL;
    s->sysfs = gb__sysfs_open(t, s->st[1].reason, sizeof s->st[1].reason);
    s->st[1].available = s->sysfs != NULL;
    *out = s;
    return 0;
}

void gb_tel_close(struct gb_tel_session *s)
{
    if (!s)
        return;
    gb__nvml_close(s->nvml);
    free(s->sysfs);
    free(s);
}

bool gb_tel_sources(const struct gb_tel_session *s, struct gb_tel_source_status st[GB_TEL_NSRC])
{
    memcpy(st, s->st, sizeof s->st);
    return s->nvml || s->sysfs;
}

void gb_tel_read(struct gb_tel_session *s, struct gb_tel_reading *r)
{
    memset(r, 0, sizeof *r);
    r->pcie_gen = r->pcie_width = -1;
    for (int q = 0; q < GB_TQ_COUNT; q++)
        r->q[q] = NAN;
    r->energy_j = NAN;
    /* sysfs first, NVML second: on an NVIDIA GPU NVML's figures win. */
    if (s->sysfs)
        gb__sysfs_read(s->sysfs, r);
    if (s->nvml)
        gb__nvml_read(s->nvml, r);
    /* A reading no device gives is a broken source, not a figure: dropped. */
    static const double lo[GB_TQ_COUNT] = {
        [GB_TQ_CLOCK] = 1, [GB_TQ_MEM_CLOCK] = 1, [GB_TQ_POWER] = 0, [GB_TQ_TEMP] = -60};
    static const double hi[GB_TQ_COUNT] = {[GB_TQ_CLOCK] = 100000,
                                           [GB_TQ_MEM_CLOCK] = 100000,
                                           [GB_TQ_POWER] = 10000,
                                           [GB_TQ_TEMP] = 250};
    for (int q = 0; q < GB_TQ_COUNT; q++)
        if (!(r->q[q] >= lo[q] && r->q[q] <= hi[q]))
            r->q[q] = NAN;
    r->t = gb_now();
}

void gb_tel_state(struct gb_tel_session *s, struct gb_tel_device_state *st)
{
    memset(st, 0, sizeof *st);
    st->device = -1;
    st->power_limit_w = st->sm_clock_max_mhz = st->sm_app_clock_mhz = st->power_default_w = NAN;
    st->persistence = st->ecc = st->pcie_gen = st->pcie_width = st->processes = -1;
    st->pcie_gen_max = st->pcie_width_max = st->pcie_gen_load = st->pcie_width_load = -1;
    st->ecc_uncorrected_volatile = st->ecc_uncorrected_aggregate = st->ecc_corrected_volatile = -1;
    st->retired_pending = st->remap_pending = st->remap_failure = -1;
    if (s && s->nvml)
        gb__nvml_state(s->nvml, st);
    gb_tel_xid(s, &st->xid_events, &st->xid_last);
}

void gb_tel_xid(struct gb_tel_session *s, long long *events, int *last)
{
    *events = -1;
    *last = -1;
    if (!s || !s->nvml)
        return;
    gb__nvml_xid(s->nvml, events, last);
}

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct reg_entry {
    const struct gb_backend_ops *ops;
    int index;
    struct gb_tel_session *s;
} * reg;
static size_t nreg, capreg;

struct gb_tel_session *gb_tel_session_for(const struct gb_device *dev)
{
    struct gb_tel_session *s = NULL;
    pthread_mutex_lock(&reg_lock);
    for (size_t i = 0; i < nreg && !s; i++)
        if (reg[i].ops == dev->ops && reg[i].index == dev->index)
            s = reg[i].s;
    if (!s) {
        struct gb_tel_target t = {.nvidia = dev->ops && dev->ops->facts.nvidia_gpus,
                                  .vendor = dev->info.vendor,
                                  .pci_bus_id = dev->info.pci_bus_id};
        struct reg_entry *g = gb_grow(reg, &capreg, nreg + 1, sizeof *g);
        if (g) {
            reg = g;
            if (gb_tel_open(&t, &s) == 0)
                reg[nreg++] = (struct reg_entry){dev->ops, dev->index, s};
        }
    }
    pthread_mutex_unlock(&reg_lock);
    return s;
}

void gb_tel_close_all(void)
{
    pthread_mutex_lock(&reg_lock);
    for (size_t i = 0; i < nreg; i++)
        gb_tel_close(reg[i].s);
    free(reg);
    reg = NULL;
    nreg = capreg = 0;
    pthread_mutex_unlock(&reg_lock);
}

/* ---- the sampler --------------------------------------------------------------------------- */

struct gb_tel_sampler {
    struct gb_tel_session *s;
    double period;
    pthread_t th;
    bool thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    struct gb_tel_reading *r;
    size_t n, cap;
};

static void push(struct gb_tel_sampler *sp, const struct gb_tel_reading *r)
{
    struct gb_tel_reading *g = gb_grow(sp->r, &sp->cap, sp->n + 1, sizeof *g);
    if (!g)
        return; /* a reading lost to memory pressure; the others stand */
    sp->r = g;
    sp->r[sp->n++] = *r;
}

static void *sampler_main(void *arg)
{
    struct gb_tel_sampler *sp = arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&sp->mu);
    while (!sp->stop) {
        long ns = (long)(sp->period * 1e9);
        next.tv_sec += ns / 1000000000L;
        next.tv_nsec += ns % 1000000000L;
        if (next.tv_nsec >= 1000000000L) {
            next.tv_sec++;
            next.tv_nsec -= 1000000000L;
        }
        int rc = 0;
        while (!sp->stop && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&sp->cv, &sp->mu, &next);
        if (sp->stop)
            break;
        pthread_mutex_unlock(&sp->mu);
        struct gb_tel_reading r;
        gb_tel_read(sp->s, &r);
        pthread_mutex_lock(&sp->mu);
        push(sp, &r);
    }
    pthread_mutex_unlock(&sp->mu);
    return NULL;
}

int gb_tel_sampler_start(struct gb_tel_session *s, double period, struct gb_tel_sampler **out)
{
    *out = NULL;
    struct gb_tel_sampler *sp = calloc(1, sizeof *sp);
    if (!sp)
        return GB_FAIL(GB_ENOMEM, "telemetry sampler");
    sp->s = s;
    sp->period = period > 1e-4 ? period : 1e-4;
    pthread_mutex_init(&sp->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&sp->cv, &ca);
    pthread_condattr_destroy(&ca);
    *out = sp;
    struct gb_tel_source_status st[GB_TEL_NSRC];
    if (!s || !gb_tel_sources(s, st))
        return 0;
    struct gb_tel_reading r;
    gb_tel_read(s, &r);
    push(sp, &r);
    if (pthread_create(&sp->th, NULL, sampler_main, sp) != 0)
        return 0; /* the first and last readings still bracket the window */
    sp->thread = true;
    return 0;
}

void gb_tel_sampler_stop(struct gb_tel_sampler *sp, struct gb_tel_trace *tr)
{
    if (!sp)
        return;
    if (sp->thread) {
        pthread_mutex_lock(&sp->mu);
        sp->stop = true;
        pthread_cond_signal(&sp->cv);
        pthread_mutex_unlock(&sp->mu);
        pthread_join(sp->th, NULL);
    }
    tr->on = true;
    if (sp->s && gb_tel_sources(sp->s, tr->src)) {
        struct gb_tel_reading r;
        gb_tel_read(sp->s, &r);
        push(sp, &r);
    } else if (sp->s) {
        gb_tel_sources(sp->s, tr->src);
    } else {
        for (int i = 0; i < GB_TEL_NSRC; i++)
            snprintf(tr->src[i].reason, sizeof tr->src[i].reason, "no telemetry session");
    }
    free(tr->r);
    tr->r = sp->r;
    tr->n = sp->n;
    pthread_cond_destroy(&sp->cv);
    pthread_mutex_destroy(&sp->mu);
    free(sp);
}

void gb_tel_trace_free(struct gb_tel_trace *tr)
{
    if (!tr)
        return;
    free(tr->r);
    free(tr->t0);
    free(tr->t1);
    memset(tr, 0, sizeof *tr);
}

void gb_tel_summary_free(struct gb_tel_summary *s)
{
    if (!s)
        return;
    free(s->marks);
    s->marks = NULL;
    s->nmarks = 0;
}
