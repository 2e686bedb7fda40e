/* gpubench — a device team (contract in team.h).
 *
 * One mutex guards everything; the threads sleep on `go` between jobs and the caller sleeps on
 * `done` during one. The barrier is a counting barrier with a phase number (so a thread that
 * races ahead into the next barrier cannot be released by the previous one) and an abort flag
 * (so a failed rank releases everyone instead of leaving them waiting for it forever).
 */
#include "run/team.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "results/results.h" /* GB_MAX_SET */
#include "base/units.h"

struct member {
    struct gb_team *team;
    size_t rank;
    pthread_t thread;
    bool started;
    double busy;   /* of the last job: seconds from the common start to its end, less waits */
    double waited; /* of the current job: seconds spent in gb_team_barrier() */
    double t0, t1; /* of the last job: its start (after the start barrier) and end */
};

/* The member the calling thread is, so that a barrier knows whose wait it is timing. */
static _Thread_local struct member *self;

struct gb_team {
    pthread_mutex_t mu;
    pthread_cond_t go, done, bar;
    size_t n;
    struct gb_device *devs[GB_MAX_SET];
    struct member m[GB_MAX_SET];
    /* The current job: ranks [lo, hi) take part. */
    uint64_t gen;
    gb_team_fn fn;
    void *arg;
    size_t lo, hi, finished;
    bool quit;
    /* Barrier. */
    size_t arrived;
    uint64_t phase;
    bool aborted;
    /* The first failure of the current job. */
    int first_rc;
    size_t first_rank;
    char first_msg[1024];
};

static int team_barrier(struct gb_team *t)
{
    pthread_mutex_lock(&t->mu);
    if (t->aborted) {
        pthread_mutex_unlock(&t->mu);
        return GB_FAIL(GB_EBACKEND, "abandoned: another device of the case failed");
    }
    uint64_t phase = t->phase;
    if (++t->arrived == t->hi - t->lo) {
        t->arrived = 0;
        t->phase++;
        pthread_cond_broadcast(&t->bar);
    } else {
        while (phase == t->phase && !t->aborted)
            pthread_cond_wait(&t->bar, &t->mu);
    }
    bool abandoned = phase == t->phase; /* released by the abort, not by the last arrival */
    pthread_mutex_unlock(&t->mu);
    if (abandoned)
        return GB_FAIL(GB_EBACKEND, "abandoned: another device of the case failed");
    return 0;
}

int gb_team_barrier(struct gb_team *t)
{
    /* Time spent waiting for the other devices is not this device's busy time. */
    double t0 = gb_now();
    int rc = team_barrier(t);
    if (self)
        self->waited += gb_now() - t0;
    return rc;
}

static void *member_main(void *p)
{
    struct member *me = p;
    struct gb_team *t = me->team;
    uint64_t seen = 0;
    self = me;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (t->gen == seen && !t->quit)
            pthread_cond_wait(&t->go, &t->mu);
        if (t->quit)
            break;
        seen = t->gen;
        if (me->rank < t->lo || me->rank >= t->hi)
            continue;
        gb_team_fn fn = t->fn;
        void *arg = t->arg;
        pthread_mutex_unlock(&t->mu);

        gb_error_clear();
        int rc = team_barrier(t); /* everyone starts together */
        me->waited = 0.0;
        double t0 = gb_now();
        if (rc == 0)
            rc = fn(t, me->rank, arg);
        double t1 = gb_now();

        pthread_mutex_lock(&t->mu);
        me->busy = t1 - t0 - me->waited;
        me->t0 = t0;
        me->t1 = t1;
        if (rc && !t->aborted) {
            /* The first failure is the cause; the others are its consequences. */
            t->aborted = true;
            t->first_rc = rc;
            t->first_rank = me->rank;
            snprintf(t->first_msg, sizeof t->first_msg, "%s", gb_error_msg());
            pthread_cond_broadcast(&t->bar);
        }
        if (++t->finished == t->hi - t->lo)
            pthread_cond_signal(&t->done);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

int gb_team_create(struct gb_device *const *devs, size_t n, struct gb_team **out)
{
    *out = NULL;
    if (n == 0 || n > GB_MAX_SET || !devs)
        return GB_FAIL(GB_EINVAL, "a team of %zu devices (1..%d)", n, GB_MAX_SET);
    struct gb_team *t = calloc(1, sizeof *t);
    if (!t)
        return GB_FAIL(GB_ENOMEM, "team");
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->go, NULL);
    pthread_cond_init(&t->done, NULL);
    pthread_cond_init(&t->bar, NULL);
    t->n = n;
    for (size_t i = 0; i < n; i++) {
        t->devs[i] = devs[i];
        t->m[i] = (struct member){.team = t, .rank = i};
    }
    for (size_t i = 0; i < n; i++) {
        int e = pthread_create(&t->m[i].thread, NULL, member_main, &t->m[i]);
        if (e) {
            gb_team_destroy(t);
            return GB_FAIL(e == EAGAIN ? GB_ENOMEM : GB_EBACKEND, "pthread_create: %s",
                           strerror(e));
        }
        t->m[i].started = true;
    }
    *out = t;
    return 0;
}

void gb_team_destroy(struct gb_team *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    t->quit = true;
    pthread_cond_broadcast(&t->go);
    pthread_mutex_unlock(&t->mu);
    for (size_t i = 0; i < t->n; i++)
        if (t->m[i].started)
            pthread_join(t->m[i].thread, NULL);
    pthread_cond_destroy(&t->bar);
    pthread_cond_destroy(&t->done);
    pthread_cond_destroy(&t->go);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

/* Runs fn on ranks [lo, hi) and waits for them. */
static int team_job(struct gb_team *t, size_t lo, size_t hi, gb_team_fn fn, void *arg)
{
    pthread_mutex_lock(&t->mu);
    t->fn = fn;
    t->arg = arg;
    t->lo = lo;
    t->hi = hi;
    t->finished = 0;
    t->arrived = 0;
    t->aborted = false;
    t->first_rc = 0;
    t->first_msg[0] = '\0';
    for (size_t i = 0; i < t->n; i++)
        t->m[i].busy = t->m[i].t0 = t->m[i].t1 = 0.0;
    t->gen++;
    pthread_cond_broadcast(&t->go);
    while (t->finished < hi - lo)
        pthread_cond_wait(&t->done, &t->mu);
    int rc = t->first_rc;
    size_t rank = t->first_rank;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", t->first_msg);
    pthread_mutex_unlock(&t->mu);
    if (rc) {
        const struct gb_device *d = t->devs[rank];
        return gb_error_set(rc, NULL, 0, "%s:%d (%s): %s",
                            d->ops && d->ops->name ? d->ops->name : "?", d->index, d->info.name,
                            msg);
    }
    return 0;
}

int gb_team_run(struct gb_team *t, size_t n, gb_team_fn fn, void *arg)
{
    if (!t || !fn || n == 0 || n > t->n)
        return GB_FAIL(GB_EINVAL, "gb_team_run: %zu ranks on a team of %zu", n, t ? t->n : 0);
    return team_job(t, 0, n, fn, arg);
}

int gb_team_run_one(struct gb_team *t, size_t rank, gb_team_fn fn, void *arg, double *seconds)
{
    if (!t || !fn || rank >= t->n)
        return GB_FAIL(GB_EINVAL, "gb_team_run_one: rank %zu on a team of %zu", rank, t ? t->n : 0);
    int rc = team_job(t, rank, rank + 1, fn, arg);
    if (seconds)
        *seconds = t->m[rank].busy;
    return rc;
}

double gb_team_busy(const struct gb_team *t, size_t rank)
{
    return t && rank < t->n ? t->m[rank].busy : 0.0;
}

double gb_team_span(const struct gb_team *t)
{
    if (!t)
        return 0.0;
    double first = 0.0, last = 0.0;
    bool any = false;
    for (size_t i = 0; i < t->n; i++) {
        const struct member *m = &t->m[i];
        if (m->t1 <= 0.0)
            continue;
        first = !any || m->t0 < first ? m->t0 : first;
        last = !any || m->t1 > last ? m->t1 : last;
        any = true;
    }
    return any ? last - first : 0.0;
}
