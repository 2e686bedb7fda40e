/* gpubench — machine differences between two runs (contract in machine.h). */
#include "analyses/machine.h"

#include <math.h>
#include <string.h>

/* The state recorded for results device d, or NULL. */
static const struct gb_tel_device_state *dev_state(const struct gb_results *rs, size_t d)
{
    for (size_t i = 0; i < rs->run.machine.ndev; i++)
        if (rs->run.machine.dev[i].device == (int)d)
            return &rs->run.machine.dev[i];
    return NULL;
}

/* The mean of the results' mean clock on results device d (NaN: none measured). */
static double mean_clock(const struct gb_results *rs, size_t d)
{
    double sum = 0.0;
    size_t n = 0;
    for (size_t i = 0; i < rs->nresults; i++) {
        const struct gb_result *r = &rs->results[i];
        if (r->device_index == (int)d && r->tel.on && r->tel.q[GB_TQ_CLOCK].n &&
            isfinite(r->tel.q[GB_TQ_CLOCK].mean)) {
            sum += r->tel.q[GB_TQ_CLOCK].mean;
            n++;
        }
    }
    return n ? sum / (double)n : NAN;
}

static size_t throttled_results(const struct gb_results *rs, bool *any_tel)
{
    size_t n = 0;
    for (size_t i = 0; i < rs->nresults; i++) {
        *any_tel |= rs->results[i].tel.on;
        n += rs->results[i].tel.nthrottled > 0;
    }
    return n;
}

static bool differ(double a, double b, double tol)
{
    return isfinite(a) && isfinite(b) && fabs(a - b) > tol;
}

size_t gb_machine_warnings(FILE *f, const struct gb_results *base, const struct gb_results *new_)
{
    size_t w = 0;
    for (size_t i = 0; i < base->ndevices; i++) {
        const struct gb_result_device *a = &base->devices[i];
        size_t j = 0;
        while (j < new_->ndevices && !(new_->devices[j].index == a->index &&
                                       strcmp(new_->devices[j].backend, a->backend) == 0))
            j++;
        if (j == new_->ndevices)
            continue;
        const struct gb_result_device *b = &new_->devices[j];
        const char *be = a->backend;
        if (*a->info.driver && *b->info.driver && strcmp(a->info.driver, b->info.driver) != 0) {
            fprintf(f, "warning: machine: driver differs on %s:%d: base \"%s\", new \"%s\"\n", be,
                    a->index, a->info.driver, b->info.driver);
            w++;
        }
        const struct gb_tel_device_state *sa = dev_state(base, i), *sb = dev_state(new_, j);
        if (sa && sb) {
            if (*sa->driver && *sb->driver && strcmp(sa->driver, sb->driver) != 0) {
                fprintf(f, "warning: machine: driver version differs on %s:%d: base %s, new %s\n",
                        be, a->index, sa->driver, sb->driver);
                w++;
            }
            if (differ(sa->power_limit_w, sb->power_limit_w, 0.5)) {
                fprintf(f,
                        "warning: machine: power limit differs on %s:%d: base %.1f W, new "
                        "%.1f W\n",
                        be, a->index, sa->power_limit_w, sb->power_limit_w);
                w++;
            }
            if (differ(sa->sm_app_clock_mhz, sb->sm_app_clock_mhz, 0.5) ||
                differ(sa->sm_clock_max_mhz, sb->sm_clock_max_mhz, 0.5)) {
                fprintf(f,
                        "warning: machine: clocks differ on %s:%d: applications clock base "
                        "%.0f MHz, new %.0f MHz; max SM clock base %.0f MHz, new %.0f MHz\n",
                        be, a->index, sa->sm_app_clock_mhz, sb->sm_app_clock_mhz,
                        sa->sm_clock_max_mhz, sb->sm_clock_max_mhz);
                w++;
            }
        }
        double ca = mean_clock(base, i), cb = mean_clock(new_, j);
        if (isfinite(ca) && isfinite(cb) && ca > 0 && fabs(cb - ca) / ca > 0.05) {
            fprintf(f,
                    "warning: machine: measured clock differs on %s:%d: base %.0f MHz, new "
                    "%.0f MHz (mean over the results)\n",
                    be, a->index, ca, cb);
            w++;
        }
    }
    const struct gb_tel_machine *ma = &base->run.machine, *mb = &new_->run.machine;
    if (ma->recorded && mb->recorded) {
        if (*ma->governor && *mb->governor && strcmp(ma->governor, mb->governor) != 0) {
            fprintf(f, "warning: machine: CPU governor differs: base %s, new %s\n", ma->governor,
                    mb->governor);
            w++;
        }
        if (ma->turbo >= 0 && mb->turbo >= 0 && ma->turbo != mb->turbo) {
            fprintf(f, "warning: machine: CPU turbo differs: base %s, new %s\n",
                    ma->turbo ? "on" : "off", mb->turbo ? "on" : "off");
            w++;
        }
    }
    bool ta = false, tb = false;
    size_t na = throttled_results(base, &ta), nb = throttled_results(new_, &tb);
    if (ta && tb && na != nb) {
        fprintf(f, "warning: machine: throttling differs: base %zu throttled results, new %zu\n",
                na, nb);
        w++;
    }
    return w;
}
