/* gpubench-fleet-gen — generates a fleet of results files for the fleet benchmark
 * (scripts/bench-fleet.sh): the results of a real run cycled to CASES per file (a repeated case
 * is renamed "<case>~<k>", so that every case of a file is its own), written through gpubench's
 * own writer as `gpubench run` writes them, one file per node (node00000.json ...), each node's
 * headlines and samples scaled by 1 + 1% normal noise (a deterministic generator: the same
 * arguments give the same files).
 *
 *   gpubench-fleet-gen TEMPLATE.json DIR NODES [CASES (default 300)]
 *
 * Exit 0, or 2 with a message (a template that cannot be read, a directory that cannot be
 * written). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "base/util.h"
#include "results/results.h"

/* A standard normal (Box-Muller over base/util.h's splitmix64). */
static double normal(uint64_t *s)
{
    double u[2];
    for (int k = 0; k < 2; k++)
        u[k] = ((double)(gb_splitmix64(s) >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2.0 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: %s TEMPLATE.json DIR NODES [CASES]\n", argv[0]);
        return 2;
    }
    char *end;
    unsigned long nodes = strtoul(argv[3], &end, 10);
    unsigned long ncases = argc == 5 ? strtoul(argv[4], NULL, 10) : 300;
    if (*end || nodes == 0 || nodes > 1000000 || ncases == 0 || ncases > 100000) {
        fprintf(stderr, "fleet-gen: NODES 1..1000000 and CASES 1..100000\n");
        return 2;
    }
    struct gb_results t;
    if (gb_results_read(argv[1], &t)) {
        fprintf(stderr, "fleet-gen: %s\n", gb_error_msg());
        return 2;
    }
    if (t.nresults == 0) {
        fprintf(stderr, "fleet-gen: %s has no results\n", argv[1]);
        return 2;
    }
    if (mkdir(argv[2], 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "fleet-gen: %s: %s\n", argv[2], strerror(errno));
        return 2;
    }
    /* The template's results cycled to ncases, in a file of its own run and devices. */
    struct gb_results big = t;
    big.results = NULL;
    big.nresults = big.cap = 0;
    for (size_t i = 0; i < ncases; i++) {
        struct gb_result r = t.results[i % t.nresults];
        if (i >= t.nresults) {
            size_t l = strlen(r.case_name);
            snprintf(r.case_name + (l < sizeof r.case_name - 8 ? l : sizeof r.case_name - 8), 8,
                     "~%zu", i / t.nresults);
        }
        r.samples = r.nsamples ? malloc(r.nsamples * sizeof *r.samples) : NULL;
        if (r.nsamples && !r.samples)
            return 2;
        if (r.nsamples)
            memcpy(r.samples, t.results[i % t.nresults].samples, r.nsamples * sizeof *r.samples);
        r.tel.marks = NULL;
        r.tel.nmarks = 0;
        if (gb_results_add(&big, &r)) {
            fprintf(stderr, "fleet-gen: %s\n", gb_error_msg());
            return 2;
        }
    }
    double *base = malloc(ncases * sizeof *base);
    if (!base)
        return 2;
    for (size_t i = 0; i < ncases; i++)
        base[i] = big.results[i].value;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    char path[4096];
    for (unsigned long n = 0; n < nodes; n++) {
        snprintf(big.run.host, sizeof big.run.host, "node%05lu", n);
        for (size_t i = 0; i < ncases; i++) {
            struct gb_result *r = &big.results[i];
            double f = 1.0 + 0.01 * normal(&rng), prev = r->value / base[i];
            r->value = base[i] * f;
            for (size_t k = 0; k < r->nsamples && isfinite(prev) && prev != 0; k++)
                r->samples[k] *= f / prev;
        }
        snprintf(path, sizeof path, "%s/node%05lu.json", argv[2], n);
        if (gb_results_write(&big, path)) {
            fprintf(stderr, "fleet-gen: %s\n", gb_error_msg());
            return 2;
        }
    }
    free(base);
    /* big shares t's devices and run; each frees its own results. */
    for (size_t i = 0; i < big.nresults; i++)
        free(big.results[i].samples);
    free(big.results);
    gb_results_free(&t);
    return 0;
}
