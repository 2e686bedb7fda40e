/* tune-replay RESULTS.json KERNEL [BUDGET_PERCENT...] — the search strategies replayed on a
 * measured landscape.
 *
 * Reads the per-configuration results of one exhaustive tuning case (suite tuning, case KERNEL,
 * search exhaustive) from a gpubench results file: every configuration's median time per
 * operation (a failed one counts as infinitely slow; one never measured was pruned). Then runs
 * `random` and `anneal` (src/run/tune.h) on that landscape with budgets of the given percentages of
 * the measured configurations (default 10 and 25), 500 seeds each, and prints for each strategy
 * and budget the mean of (best time found / exhaustive optimum) and the share of seeds that came
 * within 5% of the optimum. Replaying one landscape removes the measurement noise between the
 * strategies: they are compared on exactly the same numbers.
 *
 * Exit status: 0, or 2 on bad input (unreadable file, no such exhaustive landscape).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h"
#include "run/tune.h"

#define SEEDS 500

static const char *const case_axes[] = {"kernel", "size", "search", "budget", "seed", NULL};

static bool is_case_axis(const char *name)
{
    for (size_t i = 0; case_axes[i]; i++)
        if (strcmp(case_axes[i], name) == 0)
            return true;
    return false;
}

/* Whether r is one configuration of kernel's exhaustive tuning run (or that run's summary). */
static bool in_landscape(const struct gb_result *r, const char *kernel)
{
    const struct gb_value *se = gb_params_get(&r->params, "search");
    return strcmp(r->suite, "tuning") == 0 && strcmp(r->case_name, kernel) == 0 && se &&
           se->type == GB_V_STR && strcmp(se->s, "exhaustive") == 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tune-replay RESULTS.json KERNEL [BUDGET_PERCENT...]\n");
        return 2;
    }
    struct gb_results rs;
    if (gb_results_read(argv[1], &rs)) {
        fprintf(stderr, "tune-replay: %s\n", gb_error_msg());
        return 2;
    }
    /* The landscape: results of the exhaustive case with tunables in their params. */
    struct gb_space s = {0};
    size_t nconf = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        if (!in_landscape(r, argv[2]))
            continue;
        size_t k = 0;
        for (size_t j = 0; j < r->params.n; j++) {
            if (is_case_axis(r->params.name[j]) || r->params.v[j].type != GB_V_INT)
                continue;
            if (k >= GB_TUNE_MAX_TUNABLES)
                break;
            struct gb_tunable *t = &s.t[k++];
            if (!t->name[0])
                snprintf(t->name, sizeof t->name, "%s", r->params.name[j]);
            bool seen = false;
            for (size_t v = 0; v < t->n; v++)
                seen |= t->values[v] == r->params.v[j].u.i;
            if (!seen && t->n < GB_TUNE_MAX_VALUES)
                t->values[t->n++] = r->params.v[j].u.i;
        }
        if (k == 0)
            continue; /* the case's own result */
        s.n = k;
        nconf++;
    }
    if (nconf == 0) {
        fprintf(stderr, "tune-replay: %s has no exhaustive tuning landscape of kernel %s\n",
                argv[1], argv[2]);
        gb_results_free(&rs);
        return 2;
    }
    for (size_t k = 0; k < s.n; k++)
        qsort(s.t[k].values, s.t[k].n, sizeof s.t[k].values[0], cmp_i64);
    uint64_t size = gb_space_size(&s);
    double *cost = malloc(size * sizeof *cost);
    if (!cost)
        return 2;
    for (uint64_t i = 0; i < size; i++)
        cost[i] = NAN; /* never measured: pruned */
    double opt = INFINITY;
    size_t def[GB_TUNE_MAX_TUNABLES] = {0};
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        if (!in_landscape(r, argv[2]))
            continue;
        size_t c[GB_TUNE_MAX_TUNABLES], k = 0;
        for (size_t j = 0; j < r->params.n && k < s.n; j++) {
            if (is_case_axis(r->params.name[j]) || r->params.v[j].type != GB_V_INT)
                continue;
            for (size_t v = 0; v < s.t[k].n; v++)
                if (s.t[k].values[v] == r->params.v[j].u.i)
                    c[k] = v;
            k++;
        }
        if (k != s.n)
            continue;
        double t = r->status == GB_STATUS_OK ? r->op_time_us.median * 1e-6 : INFINITY;
        cost[gb_space_encode(&s, c)] = t;
        if (t < opt)
            opt = t;
        /* The kernel's default is the configuration whose result says role=default. */
        for (size_t f = 0; f < r->nfigures; f++)
            if (strcmp(r->figures[f].name, "role") == 0 &&
                strcmp(r->figures[f].text, "default") == 0)
                memcpy(def, c, sizeof def);
    }
    for (size_t k = 0; k < s.n; k++)
        s.t[k].def = def[k];
    char d[128];
    printf("landscape: %s, kernel %s: %zu configurations measured (space %llu), optimum %.2f us, "
           "default %s\n",
           argv[1], argv[2], nconf, (unsigned long long)size, opt * 1e6,
           gb_space_format(&s, def, d, sizeof d));
    printf("%-8s %7s %6s %18s %16s\n", "strategy", "budget", "evals", "mean best/optimum",
           "within 5%");
    int nb = argc > 3 ? argc - 3 : 2;
    for (int b = 0; b < nb; b++) {
        double pct = argc > 3 ? atof(argv[3 + b]) : (b == 0 ? 10 : 25);
        uint64_t budget = (uint64_t)floor((double)nconf * pct / 100.0);
        if (budget < 1)
            budget = 1;
        enum gb_search_kind kinds[2] = {GB_SEARCH_RANDOM, GB_SEARCH_ANNEAL};
        for (int k = 0; k < 2; k++) {
            double sum = 0;
            int hit = 0;
            uint64_t evals = 0;
            for (uint64_t seed = 1; seed <= SEEDS; seed++) {
                double best;
                uint64_t e;
                if (gb_search_replay(kinds[k], &s, cost, budget, seed, &best, &e))
                    return 2;
                sum += best / opt;
                hit += best <= 1.05 * opt;
                evals = e > evals ? e : evals;
            }
            printf("%-8s %6.0f%% %6llu %18.4f %11d/%d\n", gb_search_name(kinds[k]), pct,
                   (unsigned long long)evals, sum / SEEDS, hit, SEEDS);
        }
    }
    free(cost);
    gb_results_free(&rs);
    return 0;
}
