/* gpubench validate PROFILE [OPTIONS]: checks a profile and counts its cases, touching no
 * device. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/units.h"
#include "base/error.h"
#include "common.h"
#include "run/footprint.h"
#include "run/supervise.h"

static const char usage[] =
    "usage: gpubench validate PROFILE [OPTIONS]\n"
    "  checks a profile and shows how many cases it expands to per device, touching\n"
    "  no device; warns about cases likely to outlive their limit or too large for\n"
    "  this host's memory; takes run's options; --suite and --set change what it\n"
    "  checks:\n" GB__PROFILE_HELP GB__RUN_OPTIONS_HELP GB__FORMAT_HELP
    "exit status: 0 valid, 2 not (the reason on stderr, with file:line:column)\n";
/* The assumed speeds of the work estimate, {a CPU device (PoCL), a fast GPU}: arithmetic
 * operations per second per compute unit (a core with two 8-wide FMA units at 2 GHz; an SM with
 * 128 FMA lanes at 2 GHz), GEMM FLOP/s of the whole device, bytes moved per second. */
static const double est_ops_per_cu[2] = {64e9, 512e9};
static const double est_gemm_flops[2] = {50e9, 50e12};
static const double est_bytes[2] = {20e9, 2000e9};

/* The integer value of axis name in params, or dflt when the case has no such integer axis. */
static double int_axis(const struct gb_params *params, const char *name, double dflt)
{
    const struct gb_value *v = gb_params_get(params, name);
    if (!v)
        return dflt;
    if (v->type == GB_V_INT)
        return (double)v->u.i;
    if (v->type == GB_V_SIZE)
        return (double)v->u.size;
    return dflt;
}

/* The work of one launch of case c from its parameters alone, into *work (in *unit), and the
 * rates it runs at on {a CPU device, a fast GPU} into rate[2]: the arithmetic of `iters`
 * dependent steps per work-item (iters x wg x groups x chains x 2 operations per compute unit),
 * 2 x M x N x K for a GEMM (`shape` "N" or "MxNxK", `order` N), 2 x `size` bytes moved. Returns the seconds on a CPU device; 0 when
 * the case names none of these axes. */
static double launch_estimate(const struct gb_plan_case *c, double *work, double rate[2],
                              const char **unit)
{
    const struct gb_params *p = &c->params;
    double iters = int_axis(p, "iters", 0), shape = int_axis(p, "shape", 0), mnk = 0;
    if (!(shape > 0))
        shape = int_axis(p, "order", 0); /* scaling's SGEMM: M = N = K */
    /* gemm's shape is text: "N" or "MxNxK" (checked at load time). */
    const struct gb_value *sv = gb_params_get(p, "shape");
    uint64_t m, n, k;
    if (sv && sv->type == GB_V_STR && gb_parse_mnk(sv->s, &m, &n, &k))
        mnk = (double)m * (double)n * (double)k;
    if (shape > 0)
        mnk = shape * shape * shape;
    double size = int_axis(p, "size", 0);
    const double *r = est_bytes;
    *work = 0;
    *unit = "";
    /* A suite that says what one operation computes (gb_suite.op_flops: presets, convolutions). */
    const double said = c->run->suite->op_flops ? c->run->suite->op_flops(p) : 0;
    if (said > 0) {
        *unit = "GFLOP";
        *work = said;
        r = est_gemm_flops;
    } else if (iters > 0) {
        *unit = "G operations per compute unit";
        *work = iters * int_axis(p, "wg", 256) * int_axis(p, "groups", 1) *
                int_axis(p, "chains", 1) * 2;
        r = est_ops_per_cu;
    } else if (mnk > 0) {
        *unit = "GFLOP";
        *work = 2 * mnk;
        r = est_gemm_flops;
    } else if (size > 0) {
        *unit = "GB moved";
        *work = 2 * size;
    }
    rate[0] = r[0];
    rate[1] = r[1];
    return *work / rate[0];
}

/* Warns on stderr about each case whose estimated work is likely to outlive its limit
 * (measure.case_timeout): one launch longer than the limit, or the warm-up launches and
 * min_samples samples of one launch each together longer. Returns how many it warned about. */
static size_t warn_long_cases(const struct gb_plan *plan)
{
    size_t warned = 0;
    for (size_t i = 0; i < plan->ncases; i++) {
        const struct gb_plan_case *c = &plan->cases[i];
        const char *unit;
        double work, rate[2];
        double launch = launch_estimate(c, &work, rate, &unit);
        double limit = gb_case_timeout(&c->run->measure);
        double launches = (double)c->run->measure.warmup_runs + c->run->measure.min_samples;
        if (!(launch * launches > limit))
            continue;
        if (warned++ < 10) {
            char params[256];
            gb_params_format(&c->params, params, sizeof params);
            double gpu = work / rate[1];
            fprintf(stderr,
                    "warning: %s %s (line %d): one launch is about %.3g %s, %.3g s on a CPU "
                    "device and %.3g s on a fast GPU; with %.0f launches at least (warm-up and "
                    "min_samples) the case is likely to exceed its %.0f s limit "
                    "(measure.case_timeout)%s\n",
                    c->run->suite->name, params, c->run->line, work / 1e9, unit, launch, gpu,
                    launches, limit,
                    gpu * launches > limit ? " on any device" : " on a CPU device");
        }
    }
    if (warned > 10)
        fprintf(stderr, "warning: %zu more cases likely to exceed their limit\n", warned - 10);
    return warned;
}

/* Warns on stderr about each case whose footprint (gb_suite.footprint) the host cannot hold now
 * (gb_footprint_check against gb_host_memory, the device unknown: its own limits, and a CPU
 * device's buffers on the host, are left to the run), which run would record as skipped.
 * Returns how many it warned about. */
static size_t warn_oversized_cases(const struct gb_plan *plan)
{
    struct gb_host_memory host;
    gb_host_memory(&host);
    const struct gb_device_info unknown = {0};
    size_t warned = 0;
    for (size_t i = 0; i < plan->ncases; i++) {
        const struct gb_plan_case *c = &plan->cases[i];
        struct gb_footprint fp = {0};
        if (!c->run->suite->footprint)
            continue;
        c->run->suite->footprint(&c->params, &unknown, &fp);
        char why[1024];
        if (!gb_footprint_check(&fp, &host, &unknown, why, sizeof why))
            continue;
        if (warned++ < 10) {
            char params[256];
            gb_params_format(&c->params, params, sizeof params);
            fprintf(stderr, "warning: %s %s (line %d): %s: run will record it as skipped\n",
                    c->run->suite->name, params, c->run->line, why);
        }
    }
    if (warned > 10)
        fprintf(stderr, "warning: %zu more cases too large for this host\n", warned - 10);
    return warned;
}

static const struct gb__cmd cmd = {"validate", usage, 1, 1, "PROFILE", "exactly one PROFILE"};

/* The options of validate alone (run's are shared). */
struct validate_only {
    const char *format;
};
static const struct gb__opt validate_only_options[] = {
    GB__TEXT(struct validate_only, format, "format", 'f'),
    GB__END,
};

/* What validate shows, as a document: the verdict in the title ("PATH: ok, profile ..."), and
 * per suite entry of the profile the cases it expands to per device and its line. 0 or
 * GB_ENOMEM; d must be freed either way. */
static int validate_doc(const struct gb_profile *p, const struct gb_plan *plan, struct gb_doc *d)
{
    char title[4400];
    snprintf(title, sizeof title, "%s: ok, profile '%s', %zu suite entr%s, %zu cases per device",
             p->path, p->name, p->nruns, p->nruns == 1 ? "y" : "ies", plan->ncases);
    int rc = gb_doc_init(d, "gpubench-validate/1", title);
    if (rc)
        return rc;
    static const char *const cols[] = {"suite", "cases", "line"};
    struct gb_doc_table *t;
    if ((rc = gb_doc_table(d, "entries", "the suite entries: cases per device, and the line", cols,
                           3, &t)))
        return rc;
    /* For machines: cases a number, the line text (with the suite, it names the entry: a
     * suite may have several). When it was checked is the document's time. */
    gb_doc_column_set(t, 1, true, false);
    d->time = (double)time(NULL);
    for (size_t r = 0; r < p->nruns; r++) {
        size_t n = 0, row;
        for (size_t i = 0; i < plan->ncases; i++)
            n += plan->cases[i].run == &p->runs[r];
        if ((rc = gb_doc_row(t, &row)) ||
            (rc = gb_doc_text(t, row, 0, "%s", p->runs[r].suite->name)))
            return rc;
        if ((rc = gb_doc_text(t, row, 2, "%d", p->runs[r].line)))
            return rc;
        gb_doc_num(t, row, 1, (double)n, 0);
    }
    return 0;
}

static int validate_main(int argc, char **argv)
{
    struct gb__run_args a = {0};
    struct validate_only vo = {0};
    enum gb_exit rc;
    int first = gb__parse_options(
        &cmd, argc, argv, GB__GROUPS({gb__run_options, &a}, {validate_only_options, &vo}), &rc);
    if (first < 0)
        return rc;
    a.profile = argv[first];
    if (a.verbose)
        gb_error_log_to(stderr);
    if ((rc = gb__check_format("validate", vo.format, false)) != GB_EXIT_OK)
        return rc;
    struct gb_profile p;
    if ((rc = gb__load_profile(&a, &p)) != GB_EXIT_OK)
        return rc;
    gb__note_absent("validate", &p);
    /* Expand against one notional device to count cases without touching hardware. */
    struct gb_plan_device one = {0};
    struct gb_plan plan = {.devices = &one, .ndevices = 1};
    if (gb_plan_expand(&p, a.suite, &plan)) {
        fprintf(stderr, "%s\n", gb_error_msg());
        free(plan.cases); /* the cases expanded before the refusal */
        gb_profile_free(&p);
        return GB_EXIT_USAGE;
    }
    if (plan.ncases == 0) { /* as run refuses it: nothing would be measured */
        fprintf(stderr, "gpubench validate: %s: the profile and --suite select no case\n",
                a.profile);
        free(plan.cases);
        gb_profile_free(&p);
        return GB_EXIT_USAGE;
    }
    warn_long_cases(&plan);
    warn_oversized_cases(&plan);
    /* The document through a writer (text without --format): no listing of its own. */
    struct gb_doc d;
    rc = validate_doc(&p, &plan, &d)
             ? GB_EXIT_USAGE
             : gb__write_format("validate", vo.format ? vo.format : "text", &d);
    gb_doc_free(&d);
    free(plan.cases);
    gb_profile_free(&p);
    return rc;
}

const struct gb_command gb_command_validate = {
    .name = "validate",
    .summary = "check a profile and show how many cases it expands to",
    .main = validate_main,
};
