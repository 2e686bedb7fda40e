/* gpubench — compare against a baseline of nights: tonight's median against the spread of the
 * nights' medians (rules and sources in compare.h and base/robust.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/robust.h"
#include "base/util.h"
#include "analyses/compare.h"

/* The smallest spread the gate assumes, whatever the nights say: K nights that agree to the
 * last digit (a generated series, a deterministic device) must not make every wiggle
 * significant. */
#define NIGHTS_MIN_SPREAD 0.005
/* While the baseline learns (fewer nights than min_nights), a night whose median case is more
 * than GB_COMPARE_RUN_BOUND slower than the nights (perf below 1 / (1 + bound)) is a regression
 * in every case that far below, so that it does not join the baseline and become it (a night at
 * 0.59x, -41%, joined before). */
#define NIGHTS_LEARNING_BOUND GB_COMPARE_RUN_BOUND

void gb_learned_free(struct gb_learned *l)
{
    if (!l)
        return;
    free(l->t);
    l->t = NULL;
    l->n = 0;
}

/* ln perf of a value in the metric's unit: perf is the value, or its reciprocal. */
static double log_perf(double v, bool higher_is_better)
{
    return higher_is_better ? log(v) : -log(v);
}

int gb_compare_judge_nights(const double *nights, size_t n, double next, double noise,
                            bool higher_is_better, double t, const struct gb_compare_opts *o,
                            double cut, struct gb_judgement *j, struct gb_night_judgement *nj)
{
    memset(j, 0, sizeof *j);
    memset(nj, 0, sizeof *nj);
    j->verdict = GB_VERDICT_UNSTABLE;
    j->p = NAN;
    j->ratio = NAN;
    j->base_median = NAN;
    j->next_median = next;
    j->noise = noise;
    nj->n = n;
    nj->center = nj->z = nj->cut = nj->catches = NAN;
    if (!(next > 0.0) || !isfinite(next)) {
        snprintf(j->why, sizeof j->why, "tonight's median is not a positive number (%g)", next);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        if (!(nights[i] > 0.0) || !isfinite(nights[i]))
            return GB_FAIL(GB_EINVAL, "night %zu's median is not a positive number (%g)", i + 1,
                           nights[i]);
    if (n == 0) {
        j->verdict = GB_VERDICT_LEARNING;
        snprintf(j->why, sizeof j->why, "learning: no baseline night has this case yet");
        return 0;
    }
    double *x = malloc(n * sizeof *x);
    if (!x)
        return GB_FAIL(GB_ENOMEM, "%zu nights", n);
    for (size_t i = 0; i < n; i++)
        x[i] = log_perf(nights[i], higher_is_better);
    double m = gb_median(x, n);
    nj->mad = gb_mad_sigma(x, n, m);
    double lo = x[0], hi = x[0];
    for (size_t i = 1; i < n; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    free(x);
    if (isnan(m) || isnan(nj->mad))
        return GB_FAIL(GB_ENOMEM, "%zu nights", n);
    nj->center = m;
    j->base_median = higher_is_better ? exp(m) : exp(-m);
    double d = log_perf(next, higher_is_better) - m;
    j->ratio = exp(d);
    nj->floor = isfinite(noise) && noise > NIGHTS_MIN_SPREAD ? noise : NIGHTS_MIN_SPREAD;
    nj->spread = nj->mad > nj->floor ? nj->mad : nj->floor;
    if (n < o->min_nights) {
        j->verdict = GB_VERDICT_LEARNING;
        snprintf(j->why, sizeof j->why, "learning: %zu of %zu nights", n, o->min_nights);
        return 0;
    }
    nj->z = d / nj->spread;
    nj->cut = cut;
    double beyond = exp(cut * nj->spread) - 1.0;
    nj->catches = beyond > t ? beyond : t;
    bool slower = j->ratio < 1.0 / (1.0 + t);
    bool faster = j->ratio > 1.0 + t;
    if ((slower && nj->z < -cut) || (faster && nj->z > cut)) {
        j->verdict = slower ? GB_VERDICT_SLOWER : GB_VERDICT_FASTER;
        snprintf(j->why, sizeof j->why, "%.1f MADs %s %zu nights (the cut: %.1f)", fabs(nj->z),
                 slower ? "below" : "above", n, cut);
    } else if ((slower || faster) && d >= lo - m && d <= hi - m) {
        /* No further from the center than a night the baseline accepted: a normal night. */
        j->verdict = GB_VERDICT_SAME;
        snprintf(j->why, sizeof j->why,
                 "a %+.1f%% change within the range of the %zu nights (%+.1f%% .. %+.1f%%)",
                 100.0 * (j->ratio - 1.0), n, 100.0 * expm1(lo - m), 100.0 * expm1(hi - m));
    } else if (slower || faster) {
        snprintf(j->why, sizeof j->why,
                 "a %+.1f%% change inside the nights' spread: %.1f MADs, the cut for %zu nights "
                 "is %.1f",
                 100.0 * (j->ratio - 1.0), fabs(nj->z), n, cut);
    } else {
        j->verdict = GB_VERDICT_SAME;
    }
    return 0;
}

/* The learned threshold for a row, or NAN. */
static double learned_for(const struct gb_learned *l, const struct gb_compare_row *row)
{
    const struct gb_result *r = row->base;
    for (size_t i = 0; l && i < l->n; i++) {
        const struct gb_learned_threshold *t = &l->t[i];
        if (strcmp(t->suite, r->suite) == 0 && strcmp(t->case_name, r->case_name) == 0 &&
            (!t->backend[0] || strcmp(t->backend, r->backend) == 0) &&
            strcmp(t->device, row->device) == 0 && strcmp(t->params, row->params) == 0)
            return t->threshold;
    }
    return NAN;
}

/* Whether r is an ok result with a positive median in the unit and direction of like. */
static bool usable(const struct gb_result *r, const struct gb_result *like)
{
    return r && r->status == GB_STATUS_OK && strcmp(r->unit, like->unit) == 0 &&
           r->better == like->better && r->value > 0.0 && isfinite(r->value);
}

/* The relative CI95 half-width of r's mean, the harness's noise measure (INFINITY unknown). */
static double noise_of(const struct gb_result *r)
{
    return r->stats.mean != 0.0 && isfinite(r->stats.ci95) ? r->stats.ci95 / fabs(r->stats.mean)
                                                           : INFINITY;
}

static bool learning_row(const struct gb_compare_row *row)
{
    return row->j.verdict == GB_VERDICT_LEARNING && row->nights.n >= 1;
}

/* While learning: a night whose median case is beyond NIGHTS_LEARNING_BOUND below the nights
 * fails in the cases that far below (the rule above). */
static void learning_hold(struct gb_comparison *out)
{
    size_t n;
    const double med = gb__compare_median_shift(out->rows, out->nrows, learning_row, &n);
    double cut = -log1p(NIGHTS_LEARNING_BOUND);
    if (!n || !(med < cut))
        return;
    size_t held = 0;
    for (size_t i = 0; i < out->nrows; i++) {
        struct gb_compare_row *row = &out->rows[i];
        if (row->j.verdict != GB_VERDICT_LEARNING || row->nights.n < 1 || !(row->j.ratio > 0.0) ||
            !(log(row->j.ratio) < cut))
            continue;
        row->j.verdict = GB_VERDICT_SLOWER;
        row->regression = true;
        held++;
        snprintf(row->j.why, sizeof row->j.why,
                 "%+.0f%% while learning (%zu nights), the night's median case %+.0f%%: beyond "
                 "1/%.1f, it must not become the baseline",
                 100.0 * (row->j.ratio - 1.0), row->nights.n, 100.0 * expm1(med),
                 1.0 + NIGHTS_LEARNING_BOUND);
        snprintf(row->note, sizeof row->note, "%s", row->j.why);
    }
    gb_append_line(
        out->notes, sizeof out->notes,
        "learning, but tonight's median case is %+.0f%% from the nights (beyond 1/%.1f): "
        "%zu case%s that far below fail, and the night does not join the baseline",
        100.0 * expm1(med), 1.0 + NIGHTS_LEARNING_BOUND, held, held == 1 ? "" : "s");
}

int gb_compare_nights(const struct gb_results *nights, const char *const *paths, size_t n,
                      const char *baseline, const struct gb_results *next, const char *next_path,
                      const struct gb_learned *learned, const struct gb_compare_opts *o,
                      struct gb_comparison *out)
{
    if (n == 0)
        return gb_error_set(GB_EINVAL, NULL, 0, "%s holds no night", baseline);
    /* The pairing and the statuses; the nights' spread is the run-to-run noise here. */
    struct gb_compare_opts pair = *o;
    pair.run_noise = 0.0;
    pair.expect = NULL;
    int rc = gb_compare_results(&nights[n - 1], paths[n - 1], next, next_path, &pair, out);
    if (rc)
        return rc;
    out->nnights = n;
    out->nights = nights;
    out->night_paths = paths;
    out->baseline = baseline;
    size_t nn = next->nresults;
    /* map[k * nn + i]: night k's result paired with tonight's result i (NULL: none). */
    const struct gb_result **map = calloc(n * (nn ? nn : 1), sizeof *map);
    double *vals = malloc(n * sizeof *vals);
    double *cuts = malloc((n + 1) * sizeof *cuts);
    if (!map || !vals || !cuts) {
        rc = GB_FAIL(GB_ENOMEM, "%zu nights", n);
        goto done;
    }
    for (size_t k = 0; k <= n; k++)
        cuts[k] = NAN;
    for (size_t k = 0; k < n; k++) {
        struct gb_comparison ck, *c = out;
        if (k + 1 < n) {
            gb_error_clear();
            if (gb_compare_results(&nights[k], paths[k], next, next_path, &pair, &ck)) {
                char why[256];
                snprintf(why, sizeof why, "%s", gb_error_msg());
                why[strcspn(why, "\n")] = '\0';
                gb_append_line(out->notes, sizeof out->notes, "night %s left out: %s", paths[k],
                               why);
                continue;
            }
            c = &ck;
        }
        for (size_t i = 0; i < c->nrows; i++)
            if (c->rows[i].base && c->rows[i].next)
                map[k * nn + (size_t)(c->rows[i].next - next->results)] = c->rows[i].base;
        if (c != out)
            gb_comparison_free(&ck);
    }

    out->regressions = 0;
    memset(out->counts, 0, sizeof out->counts);
    for (size_t i = 0; i < out->nrows; i++) {
        struct gb_compare_row *row = &out->rows[i];
        const struct gb_result *b = row->base, *r = row->next;
        /* Statuses and a changed metric keep the verdict the newest night gave. */
        if (b && r && usable(r, r) && usable(b, r)) {
            size_t idx = (size_t)(r - next->results), m = 0;
            for (size_t k = 0; k < n; k++) {
                const struct gb_result *x = map[k * nn + idx];
                if (usable(x, r))
                    vals[m++] = x->value;
            }
            const char *suite = r->suite, *src = "default";
            double t = o->threshold, l;
            if (gb_compare_suite_threshold_given(o, suite)) {
                t = gb_compare_threshold(o, suite);
                src = "--suite-threshold";
            } else if (o->threshold_given) {
                src = "--threshold";
            } else if (!isnan(l = learned_for(learned, row))) {
                t = l;
                src = "learned";
                out->learned++;
            }
            row->threshold = t;
            if (m >= o->min_nights && isnan(cuts[m]) && isnan(cuts[m] = gb_mad_cut(m, o->mads))) {
                rc = GB_FAIL(GB_ENOMEM, "the cut for %zu nights", m);
                goto done;
            }
            if ((rc = gb_compare_judge_nights(vals, m, r->value, noise_of(r),
                                              r->better == GB_BETTER_HIGHER, t, o, cuts[m], &row->j,
                                              &row->nights)))
                goto done;
            row->nights.threshold_source = src;
            snprintf(row->note, sizeof row->note, "%s", row->j.why);
            row->regression = row->j.verdict == GB_VERDICT_SLOWER ||
                              (row->j.verdict == GB_VERDICT_FASTER && o->fail_on_faster);
        }
    }
    learning_hold(out);
    for (size_t i = 0; i < out->nrows; i++) {
        out->counts[out->rows[i].j.verdict]++;
        out->regressions += out->rows[i].regression;
    }
done:
    free(map);
    free(vals);
    free(cuts);
    if (rc)
        gb_comparison_free(out);
    return rc;
}
