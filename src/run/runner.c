#include "run/runner.h"
#include "run/case_result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "run/config.h"
#include "run/measure.h"
#include "backends/telemetry.h"
#include "base/units.h"
#include "base/util.h"

static void utc_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void case_header(struct gb_result *r, const struct gb_plan_case *c, const char *backend,
                        int dev_idx)
{
    snprintf(r->suite, sizeof r->suite, "%s", c->run->suite->name);
    snprintf(r->case_name, sizeof r->case_name, "%s",
             gb_suite_case_name(c->run->suite, &c->params));
    snprintf(r->backend, sizeof r->backend, "%s", backend);
    r->device_index = dev_idx;
    r->params.n = 0;
    for (size_t j = 0; j < c->params.n && j < GB_MAX_AXES; j++) {
        const struct gb_axis_def *ax = gb_suite_axis(c->run->suite, c->params.name[j]);
        if (ax && ax->omit_default && ax->def) {
            char text[GB_STR_MAX];
            gb_value_format(&c->params.v[j], text, sizeof text);
            if (strcmp(text, ax->def) == 0)
                continue; /* an axis newer than results kept: absent at its default */
        }
        if (ax && ax->device_pos)
            r->device_pos_axes |= UINT32_C(1) << r->params.n;
        r->params.name[r->params.n] = c->params.name[j];
        r->params.v[r->params.n++] = c->params.v[j];
    }
}

/* Seconds a queue may take to drain after a case's verification before the case counts as having
 * left work behind (run_case): far above an idle queue's sync on a loaded machine, far below a
 * kernel anyone would leave running. */
#define GB_RUNNER_LEFTOVER_S 0.25

/* The case's footprint (gb_suite.footprint) against the host's available memory and each
 * device's: 0, or GB_ESKIP with the reason in why, before anything is allocated. */
static int footprint_fits(const struct gb_plan_case *c, struct gb_device *const *devs, size_t n,
                          char *why, size_t len)
{
    const struct gb_suite *s = c->run->suite;
    if (!s->footprint)
        return 0;
    struct gb_host_memory host;
    gb_host_memory(&host);
    for (size_t i = 0; i < n; i++) {
        struct gb_footprint fp = {0};
        s->footprint(&c->params, &devs[i]->info, &fp);
        if (gb_footprint_check(&fp, &host, &devs[i]->info, why, len))
            return GB_ESKIP;
    }
    return 0;
}

/* Runs one case on open devices devs[0..n) (n is 1 for a single-device suite) with one queue
 * each, and fills r. Returns true when Ctrl-C cut the case short. */
static bool run_case(const struct gb_plan_case *c, struct gb_device *const *devs,
                     struct gb_queue **qs, size_t n, const struct gb_runner_opts *o,
                     struct gb_results *rs, struct gb_result *r)
{
    const struct gb_suite *s = c->run->suite;
    struct gb_device *dev = devs[0];
    const struct gb_backend_ops *ops = dev->ops;
    double t0 = gb_now();
    struct gb_case_ctx ctx = {.ops = ops,
                              .suite = s,
                              .dev = dev,
                              .q = qs[0],
                              .params = &c->params,
                              .devs = devs,
                              .queues = qs,
                              .ndevs = n};
    /* Suites that measure several configurations in one case record them straight into rs
     * (run/subcase.h), before the case's own result. */
    ctx.run = c->run;
    ctx.stop = o->stop;
    ctx.extra = rs;
    ctx.state = calloc(1, s->state_size ? s->state_size : 1);
    if (!ctx.state) {
        r->status = GB_STATUS_FAILED;
        snprintf(r->reason, sizeof r->reason, "out of host memory");
        return false;
    }
    bool cut_short = false;
    gb_error_clear();
    int err = footprint_fits(c, devs, n, ctx.reason, sizeof ctx.reason);
    if (!err)
        err = s->setup(&ctx);
    bool queue_suspect = false;
    if (err == GB_ESKIP) {
        r->status = GB_STATUS_SKIPPED;
        snprintf(r->reason, sizeof r->reason, "%s", ctx.reason);
    } else if (err) {
        gb_result_fail(r, err, "setup");
        queue_suspect = true;
    } else if ((s->flags & GB_SUITE_MULTI_DEVICE) && ctx.op.timer != GB_TIMER_HOST) {
        /* The concurrent work of several devices has one clock in common: the host's. */
        r->status = GB_STATUS_FAILED;
        snprintf(r->reason, sizeof r->reason,
                 "setup: a multi-device case must be host-timed (GB_TIMER_HOST)");
    } else {
        struct gb_measurement m = {0};
        err = gb_measure(s, &ctx, &c->run->measure, o->stop, &m);
        if (err) {
            gb_result_fail(r, err, "measure");
            queue_suspect = true;
        } else if (m.interrupted) {
            /* Ctrl-C during warm-up, calibration or sampling: the case did not finish, so it is
             * neither verified nor recorded. */
            cut_short = true;
        } else {
            /* Telemetry (backends/telemetry.h): before the metric, as discard drops samples. */
            if (m.tel.on) {
                gb_result_telemetry(r, &ctx, &m, &c->run->telemetry, c->run->measure.min_samples);
                gb_tel_machine_device(&rs->run.machine, r->device_index, dev);
                gb_tel_machine_xid(&rs->run.machine, r->device_index, dev);
                if (ctx.op.host_link)
                    gb_tel_machine_link(&rs->run.machine, r->device_index, &m.tel);
            }
            gb_result_fill_metric(r, &ctx, &m);
            gb_error_clear();
            err = gb_result_verified(r, &ctx, s->verify(&ctx), m.n);
            gb_result_throttle_verdict(r, &c->run->telemetry);
            /* A verify that broke, not one that found a mismatch, may leave failed commands. */
            queue_suspect = err && err != GB_EVERIFY;
            if (!err) {
                /* Figures of the suite's, and measure's cache_state (a cold case). */
                if ((s->figures || ctx.nfigures) && r->samples) {
                    ctx.samples = m.op_time;
                    ctx.nsamples = m.n;
                    if (s->figures)
                        s->figures(&ctx, r->op_time_us.median * 1e-6);
                    ctx.samples = NULL;
                    ctx.nsamples = 0;
                    gb_result_take_headline(r, &ctx, c->run->measure.max_noise);
                    r->nfigures = ctx.nfigures < GB_MAX_FIGURES ? ctx.nfigures : GB_MAX_FIGURES;
                    memcpy(r->figures, ctx.figures, r->nfigures * sizeof r->figures[0]);
                }
                gb_result_check_bound(r, &ctx);
                gb_result_timer_note(r, &ctx, &m);
            }
        }
        gb_measurement_free(&m);
    }
    /* Work the case left on its queues is the case's: it is waited for here, inside the case's
     * time and its watchdog window, before the teardown frees what it uses, so that neither its
     * duration, nor its failure, nor its hang lands on the next case. */
    const double d0 = gb_now();
    int drain_err = 0;
    for (size_t i = 0; i < n && !drain_err; i++)
        if (qs[i])
            drain_err = ops->queue_sync(qs[i]);
    const double drain_s = gb_now() - d0;
    if (drain_err) {
        if (r->status != GB_STATUS_FAILED)
            gb_result_fail(r, drain_err, "device work the case left on its queue");
        queue_suspect = true;
    } else if (!queue_suspect && r->status == GB_STATUS_OK && drain_s > GB_RUNNER_LEFTOVER_S) {
        /* An idle queue syncs in microseconds: this much means the case did not wait for its
         * own work (a suite's bug), and its figures did not count that work. */
        r->status = GB_STATUS_FAILED;
        snprintf(r->reason, sizeof r->reason,
                 "device work outlived the case by %.0f ms after its verification (the suite "
                 "must wait for its own work)",
                 drain_s * 1e3);
    }
    s->teardown(&ctx);
    free(ctx.headline.v);
    free(ctx.state);
    /* After a failure the queues may hold failed commands; start the next case on new ones. */
    for (size_t i = 0; queue_suspect && i < n; i++) {
        if (qs[i])
            ops->queue_destroy(qs[i]); /* drained above; destroy waits again */
        qs[i] = NULL;
        if (ops->queue_create(devs[i], &qs[i]))
            qs[i] = NULL;
    }
    r->elapsed_s = gb_now() - t0;
    return cut_short;
}

/* The width a note on stderr wraps to: the terminal's, else $COLUMNS, else 0 (a file or a
 * pipe keeps each note one line). */
static int note_width(void)
{
    struct winsize ws;
    if (isatty(STDERR_FILENO) && ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    long v = c ? strtol(c, NULL, 10) : 0;
    return v > 0 && v < 100000 ? (int)v : 0;
}

/* The width of terminal f: its columns, else $COLUMNS, else 80. */
static size_t term_width(FILE *f)
{
    struct winsize ws;
    if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    long v = c ? strtol(c, NULL, 10) : 0;
    return v > 0 && v < 100000 ? (size_t)v : 80;
}

void gb__runner_progress(FILE *f, size_t i, const struct gb_plan *plan, double t_start,
                         const struct gb_progress_span *span)
{
    if (!f)
        return;
    const struct gb_plan_case *c = &plan->cases[i];
    const struct gb_plan_device *d = &plan->devices[c->nset ? c->set[0] : c->device];
    size_t k = i, n = plan->ncases;
    double t0 = t_start;
    if (span && span->total) {
        k += span->before;
        n = span->total;
    }
    if (span && span->t0 > 0)
        t0 = span->t0;
    char params[256] = "", line[512], v[GB_STR_MAX + 32];
    for (size_t j = 0; j < c->params.n; j++) /* those that apply: no "variant=none" */
        if (gb_suite_param_applies(c->run->suite, &c->params, c->params.name[j], &c->params.v[j]))
            gb_appendf(params, sizeof params, "%s%s=%s", params[0] ? " " : "", c->params.name[j],
                       gb_value_format(&c->params.v[j], v, sizeof v));
    double spent = gb_now() - t0;
    const char *set = c->nset > 1 ? "+" : ""; /* a multi-device case: "opencl:0+" */
    if (k > 0)
        snprintf(line, sizeof line, "[%zu/%zu, ETA %.0f s] %s:%d%s %s %s", k + 1, n,
                 spent / (double)k * (double)(n - k), d->ops->name, d->index, set,
                 c->run->suite->name, params);
    else
        snprintf(line, sizeof line, "[%zu/%zu] %s:%d%s %s %s", k + 1, n, d->ops->name, d->index,
                 set, c->run->suite->name, params);
    gb_term_clean(line); /* the line's own controls only */
    /* one character short of the width: a line that fills the last column wraps on some
     * terminals, and \r then rewrites only its second half */
    size_t w = term_width(f), chars = 0, at = 0;
    for (; line[at] && chars + 1 < w; at++)
        chars += ((unsigned char)line[at] & 0xC0) != 0x80;
    while (((unsigned char)line[at] & 0xC0) == 0x80)
        at++;
    line[at] = '\0';
    fprintf(f, "\r\033[K%s", line);
    fflush(f);
}

/* ---- multi-device cases ---------------------------------------------------------------------- */

static bool same_set(const struct gb_plan_case *a, const struct gb_plan_case *b)
{
    return a->nset == b->nset && memcmp(a->set, b->set, a->nset * sizeof a->set[0]) == 0;
}

/* The index of device (backend, index) in rs->devices, added when it is not there yet: a
 * device that ran single-device cases before keeps its one entry. */
static int device_slot(struct gb_results *rs, const struct gb_plan_device *pd, int *idx)
{
    for (size_t k = 0; k < rs->ndevices; k++)
        if (rs->devices[k].index == pd->index &&
            strcmp(rs->devices[k].backend, pd->ops->name) == 0) {
            *idx = (int)k;
            return 0;
        }
    return gb_results_add_device(rs, pd->ops->name, pd->index, &pd->info, idx);
}

/* True when case i begins a group of consecutive cases run on one opening of their devices:
 * the single-device cases of one device, or the multi-device cases of one device set. */
static bool group_start(const struct gb_plan *plan, size_t i)
{
    if (i == 0)
        return true;
    const struct gb_plan_case *a = &plan->cases[i - 1], *b = &plan->cases[i];
    if (a->nset == 0 && b->nset == 0)
        return a->device != b->device;
    return !(a->nset > 0 && same_set(a, b));
}

/* The entry of rs->devices that a single-device group of device pd entered: the last one. */
static int last_slot(const struct gb_results *rs, const struct gb_plan_device *pd)
{
    for (size_t k = rs->ndevices; k-- > 0;)
        if (rs->devices[k].index == pd->index && strcmp(rs->devices[k].backend, pd->ops->name) == 0)
            return (int)k;
    return -1;
}

void gb__runner_device_opened(struct gb_results *rs, int slot, struct gb_device *dev)
{
    /* A probe that cannot run leaves the limits unknown (0); the device's cases say the rest. */
    if (dev->ops->device_probe && dev->ops->device_probe(dev))
        gb_error_clear();
    if (slot >= 0 && (size_t)slot < rs->ndevices)
        rs->devices[slot].info.max_loop_trips = dev->info.max_loop_trips;
}

int gb__runner_enter_devices(const struct gb_plan *plan, struct gb_results *rs, size_t *entered,
                             size_t upto)
{
    for (; *entered < upto && *entered < plan->ncases; (*entered)++) {
        size_t i = *entered;
        if (!group_start(plan, i))
            continue;
        const struct gb_plan_case *c = &plan->cases[i];
        int idx;
        if (c->nset == 0) {
            const struct gb_plan_device *pd = &plan->devices[c->device];
            if (gb_results_add_device(rs, pd->ops->name, pd->index, &pd->info, &idx))
                return GB_ENOMEM;
            continue;
        }
        for (size_t k = 0; k < c->nset; k++)
            if (device_slot(rs, &plan->devices[c->set[k]], &idx))
                return GB_ENOMEM;
    }
    return 0;
}

static size_t took_part(const struct gb_plan_case *c, size_t pos[GB_MAX_SET]);

int gb__runner_case_header(const struct gb_plan *plan, struct gb_results *rs, size_t k,
                           struct gb_result *r)
{
    const struct gb_plan_case *c = &plan->cases[k];
    const struct gb_plan_device *pd = &plan->devices[c->nset ? c->set[0] : c->device];
    memset(r, 0, sizeof *r);
    if (c->nset == 0) {
        case_header(r, c, pd->ops->name, last_slot(rs, pd));
        return 0;
    }
    size_t pos[GB_MAX_SET];
    r->nset = took_part(c, pos);
    for (size_t j = 0; j < r->nset; j++)
        if (device_slot(rs, &plan->devices[c->set[pos[j]]], &r->set[j]))
            return GB_ENOMEM;
    case_header(r, c, pd->ops->name, r->set[0]);
    return 0;
}

/* GB_SUITE_SCALING: speedup and parallel efficiency of r against the same case on one device:
 * the result, measured ok earlier in this run on the same first device, whose params are r's
 * with ndev = 1 passed through the suite's normalize() (one device has no strong or weak). */
void gb__runner_scaling_figures(const struct gb_suite *s, const struct gb_results *rs,
                                struct gb_result *r)
{
    const struct gb_value *nd = gb_params_get(&r->params, "ndev");
    if (r->status != GB_STATUS_OK || !nd || nd->type != GB_V_INT || nd->u.i < 1)
        return;
    struct gb_params base = r->params;
    for (size_t j = 0; j < base.n; j++)
        if (strcmp(base.name[j], "ndev") == 0)
            base.v[j].u.i = 1;
    if (s->normalize && !s->normalize(&base))
        return;
    for (size_t k = rs->nresults; k-- > 0;) {
        const struct gb_result *b = &rs->results[k];
        if (b->status != GB_STATUS_OK || strcmp(b->suite, r->suite) != 0 ||
            strcmp(b->backend, r->backend) != 0 || b->device_index != r->device_index ||
            b->params.n != base.n || !(b->value > 0))
            continue;
        bool match = true;
        for (size_t j = 0; j < base.n && match; j++)
            match = strcmp(b->params.name[j], base.name[j]) == 0 &&
                    gb_value_equal(&b->params.v[j], &base.v[j]);
        if (!match)
            continue;
        /* Both are throughputs (or both times), so their ratio is the speedup. */
        double speedup = r->better == GB_BETTER_HIGHER ? r->value / b->value : b->value / r->value;
        struct gb_figure f[2] = {{.name = "speedup", .n = 1, .v = {speedup}},
                                 {.name = "efficiency", .n = 1, .v = {speedup / (double)nd->u.i}}};
        for (size_t j = 0; j < 2 && r->nfigures < GB_MAX_FIGURES; j++)
            r->figures[r->nfigures++] = f[j];
        return;
    }
}

/* The positions in c's device set of the devices that take part in it, into pos; returns how
 * many. The suite's own took_part() where it has one; else the first `ndev` of the set when the
 * suite has an integer axis `ndev`; else the distinct values of its device_pos axes (the peer
 * matrix: src, then dst); else the whole set. */
static size_t took_part(const struct gb_plan_case *c, size_t pos[GB_MAX_SET])
{
    const struct gb_suite *s = c->run->suite;
    if (s->took_part) {
        size_t n = s->took_part(&c->params, c->nset, pos);
        if (n >= 1 && n <= c->nset)
            return n;
    }
    const struct gb_value *nd = gb_params_get(&c->params, "ndev");
    size_t n = 0;
    if (nd && nd->type == GB_V_INT) {
        pos[0] = 0;
        for (; n < c->nset && (int64_t)n < nd->u.i; n++)
            pos[n] = n;
        return n ? n : 1;
    }
    for (size_t a = 0; a < s->naxes && a < c->params.n; a++) {
        const struct gb_value *v = &c->params.v[a];
        if (!s->axes[a].device_pos || v->type != GB_V_INT || v->u.i < 0 ||
            (uint64_t)v->u.i >= c->nset)
            continue;
        bool seen = false;
        for (size_t k = 0; k < n; k++)
            seen |= pos[k] == (size_t)v->u.i;
        if (!seen)
            pos[n++] = (size_t)v->u.i;
    }
    if (n)
        return n;
    for (; n < c->nset; n++)
        pos[n] = n;
    return n;
}

/* Runs the consecutive multi-device cases from *i that share one device set: opens every
 * device of the set with a queue each, runs the cases, closes the devices. A device that cannot
 * be opened fails these cases (with the reason); the run goes on. Advances *i past the group.
 * Returns 0, GB_ENOMEM, or GB_EIO when the results file could not be written. */
static int run_set_group(const struct gb_plan *plan, const struct gb_runner_opts *o,
                         struct gb_results *rs, size_t *i, double t_start, bool *failed,
                         bool *interrupted)
{
    const struct gb_plan_case *first = &plan->cases[*i];
    size_t n = first->nset;
    struct gb_device *devs[GB_MAX_SET] = {0};
    struct gb_queue *qs[GB_MAX_SET] = {0};
    int slots[GB_MAX_SET];
    char open_why[1024] = "";
    int ret = 0;
    for (size_t k = 0; k < n; k++) {
        const struct gb_plan_device *pd = &plan->devices[first->set[k]];
        if (device_slot(rs, pd, &slots[k]))
            return GB_ENOMEM;
        if (*open_why)
            continue;
        gb_error_clear();
        int err = pd->ops->device_open(pd->index, &devs[k]);
        if (!err) {
            gb__runner_device_opened(rs, slots[k], devs[k]);
            err = pd->ops->queue_create(devs[k], &qs[k]);
        }
        if (err)
            snprintf(open_why, sizeof open_why, "cannot open device %s:%d: %s%s%s", pd->ops->name,
                     pd->index, gb_strerror(err), *gb_error_msg() ? ": " : "", gb_error_msg());
    }
    const struct gb_plan_device *pd0 = &plan->devices[first->set[0]];
    for (; *i < plan->ncases && same_set(&plan->cases[*i], first); (*i)++) {
        if (o->stop && *o->stop) {
            *interrupted = true;
            break;
        }
        const struct gb_plan_case *c = &plan->cases[*i];
        gb__runner_progress(o->progress, *i, plan, t_start, &o->span);
        if (o->case_begin)
            o->case_begin(o->hook_arg, *i);
        size_t first_result = rs->nresults;
        struct gb_result r = {0};
        size_t pos[GB_MAX_SET];
        r.nset = took_part(c, pos);
        for (size_t k = 0; k < r.nset; k++)
            r.set[k] = slots[pos[k]];
        case_header(&r, c, pd0->ops->name, r.set[0]);
        bool lost = false;
        for (size_t k = 0; k < n; k++)
            lost |= !qs[k];
        bool cut_short = false;
        if (*open_why || lost) {
            r.status = GB_STATUS_FAILED;
            snprintf(r.reason, sizeof r.reason, "%s",
                     *open_why ? open_why : "a device's queue was lost");
        } else {
            cut_short = run_case(c, devs, qs, n, o, rs, &r);
        }
        if (cut_short) {
            free(r.samples);
            *interrupted = true;
            break;
        }
        /* A worker leaves the figures across cases to its supervisor, which has them all. */
        if ((c->run->suite->flags & GB_SUITE_SCALING) && !o->case_done)
            gb__runner_scaling_figures(c->run->suite, rs, &r);
        *failed |= r.status == GB_STATUS_FAILED;
        if (gb_results_add(rs, &r)) {
            free(r.samples);
            ret = GB_ENOMEM;
            break;
        }
        if (o->case_done && (ret = o->case_done(o->hook_arg, *i, rs, first_result))) {
            *interrupted = true; /* the supervisor is gone: stop */
            break;
        }
        utc_now(rs->run.end_utc, sizeof rs->run.end_utc);
        if (o->out_path && gb_results_write(rs, o->out_path))
            ret = GB_EIO;
    }
    /* An interrupted or failed group leaves *i inside it; skip to its end so the caller's loop
     * stops (interrupted) or goes on with the next group. */
    while (*i < plan->ncases && same_set(&plan->cases[*i], first) && (*interrupted || ret))
        (*i)++;
    for (size_t k = 0; k < n; k++) {
        if (qs[k])
            pd0->ops->queue_destroy(qs[k]);
        if (devs[k])
            pd0->ops->device_close(devs[k]);
    }
    return ret;
}

int gb__runner_derive(const struct gb_plan *plan, struct gb_results *rs)
{
    for (size_t k = 0; plan->suites && k < plan->suites->n; k++)
        if (plan->suites->v[k]->derive && plan->suites->v[k]->derive(rs) == GB_ENOMEM)
            return GB_ENOMEM;
    return gb_results_check_figures(rs) ? 1 : 0;
}

int gb_run_plan(const struct gb_plan *plan, const struct gb_runner_opts *o, struct gb_results *rs)
{
    bool failed = false, interrupted = false;
    double t_start = gb_now();
    /* Until the last case is done, every write of the file says the run did not finish. */
    rs->run.interrupted = true;
    rs->run.cases_planned = plan->ncases;
    gb__runner_chart_hints(plan, rs);
    if (plan->ncases && plan->cases[0].run->telemetry.enabled)
        gb_tel_machine_read(&rs->run.machine); /* the machine's state at the start */
    int ret = 0;
    size_t i = o->first_case, entered = 0;
    /* A worker that resumes a plan enters the devices of the cases before it as a run from the
     * first case would have, so that device indices agree with its supervisor's. */
    if (gb__runner_enter_devices(plan, rs, &entered, i))
        return GB_ENOMEM;
    while (i < plan->ncases && !interrupted) {
        if (plan->cases[i].nset > 0) {
            int mr = run_set_group(plan, o, rs, &i, t_start, &failed, &interrupted);
            if (mr == GB_ENOMEM)
                return mr;
            if (mr)
                ret = mr;
            continue;
        }
        const struct gb_plan_device *pd = &plan->devices[plan->cases[i].device];
        int dev_idx = -1;
        if (!group_start(plan, i))
            dev_idx = last_slot(rs, pd); /* a worker resuming inside the group */
        else if (gb_results_add_device(rs, pd->ops->name, pd->index, &pd->info, &dev_idx))
            return GB_ENOMEM;
        struct gb_device *dev = NULL;
        struct gb_queue *q = NULL;
        gb_error_clear();
        int err = pd->ops->device_open(pd->index, &dev);
        if (!err) {
            gb__runner_device_opened(rs, dev_idx, dev);
            err = pd->ops->queue_create(dev, &q);
        }
        /* Said once per opening of the device; each result it affects says it again. */
        if (!err && dev->timer_fault[0] && (!o->stop || !*o->stop)) {
            char note[1536];
            snprintf(note, sizeof note,
                     "gpubench: %s:%d %s: its event timer failed the check at open (%s); its "
                     "device-timed cases are timed on the host around a finish instead",
                     pd->ops->name, pd->index, pd->info.name, dev->timer_fault);
            gb_put_wrapped(stderr, note, note_width());
        }
        char open_why[1024] = "";
        if (err)
            snprintf(open_why, sizeof open_why, "cannot open the device: %s%s%s", gb_strerror(err),
                     *gb_error_msg() ? ": " : "", gb_error_msg());
        size_t dev_case = plan->cases[i].device;
        for (; i < plan->ncases && plan->cases[i].device == dev_case && plan->cases[i].nset == 0;
             i++) {
            if (o->stop && *o->stop) {
                interrupted = true;
                break;
            }
            const struct gb_plan_case *c = &plan->cases[i];
            gb__runner_progress(o->progress, i, plan, t_start, &o->span);
            if (o->case_begin)
                o->case_begin(o->hook_arg, i);
            size_t first_result = rs->nresults;
            struct gb_result r = {0};
            bool cut_short = false;
            case_header(&r, c, pd->ops->name, dev_idx);
            if (!q) {
                r.status = GB_STATUS_FAILED;
                snprintf(r.reason, sizeof r.reason, "%s",
                         *open_why ? open_why : "the device's queue was lost");
            } else {
                cut_short = run_case(c, &dev, &q, 1, o, rs, &r);
            }
            if (cut_short) {
                /* A case cut short by Ctrl-C is not a finished case: drop it. */
                free(r.samples);
                interrupted = true;
                break;
            }
            failed |= r.status == GB_STATUS_FAILED;
            if (gb_results_add(rs, &r)) {
                free(r.samples);
                return GB_ENOMEM;
            }
            if (o->case_done && (ret = o->case_done(o->hook_arg, i, rs, first_result))) {
                interrupted = true; /* the supervisor is gone: stop */
                i++;
                break;
            }
            utc_now(rs->run.end_utc, sizeof rs->run.end_utc);
            if (o->out_path && gb_results_write(rs, o->out_path))
                ret = GB_EIO;
        }
        if (q)
            pd->ops->queue_destroy(q);
        if (dev)
            pd->ops->device_close(dev);
    }
    if (o->progress) {
        fprintf(o->progress, "\r\033[K");
        fflush(o->progress);
    }
    rs->run.interrupted = interrupted;
    gb_tel_close_all();
    if (o->case_done) /* a worker: its supervisor derives and writes */
        return ret ? ret : interrupted ? GB_EINTR : failed ? 1 : 0;
    const int derived = gb__runner_derive(plan, rs);
    if (derived == GB_ENOMEM)
        return GB_ENOMEM;
    failed |= derived == 1;
    utc_now(rs->run.end_utc, sizeof rs->run.end_utc);
    if (o->out_path && gb_results_write(rs, o->out_path))
        ret = GB_EIO;
    if (ret)
        return ret;
    if (interrupted)
        return GB_EINTR;
    return failed ? 1 : 0;
}

void gb__runner_chart_hints(const struct gb_plan *plan, struct gb_results *rs)
{
    static const char *const kinds[] = {"", "bars", "line"};
    rs->ncharts = 0;
    for (size_t k = 0; plan->suites && k < plan->suites->n; k++) {
        const struct gb_suite *s = plan->suites->v[k];
        bool planned = false;
        for (size_t i = 0; i < plan->ncases && !planned; i++)
            planned = plan->cases[i].run->suite == s;
        if (!planned || s->chart.kind == GB_CHART_NONE || rs->ncharts == GB_MAX_CHART_HINTS)
            continue;
        struct gb_chart_note *n = &rs->charts[rs->ncharts++];
        snprintf(n->suite, sizeof n->suite, "%s", s->name);
        snprintf(n->kind, sizeof n->kind, "%s", kinds[s->chart.kind]);
        snprintf(n->x, sizeof n->x, "%s", s->chart.x ? s->chart.x : "");
    }
}
