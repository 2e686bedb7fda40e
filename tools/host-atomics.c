/* host-atomics — atomic add throughput of the host CPU with C11 atomics: the reference the
 * atomics suite's figures on a CPU OpenCL device (PoCL) are read against.
 *
 *   host-atomics [-t THREADS] [-n ADDS] [-r RUNS]
 *
 * THREADS threads (default: the online CPUs) each make ADDS (default 2^22) relaxed
 * atomic_fetch_add of 1 (`lock xadd` on x86), started together from a barrier, in four layouts:
 *   one      every thread on one counter (the suite's addresses: 1)
 *   packed   a counter per thread, adjacent (4 or 8 bytes apart: threads share cache lines, as
 *            neighbouring work-items of the suite's addresses: 0 do)
 *   padded   a counter per thread, each on its own 128-byte block (no line is shared)
 *   plain    a counter per thread, padded, with ordinary (non-atomic) adds through a volatile
 *            pointer: what an add costs without the lock
 * for 32- and 64-bit counters. Prints, per layout and width, the median over RUNS (default 5)
 * of 10^9 adds per second (total adds / wall time from the barrier to the last thread's end),
 * and checks every count exactly. Not installed; built by meson as build/host-atomics.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum layout { ONE, PACKED, PADDED, PLAIN };
static const char *const layout_names[] = {"one", "packed", "padded", "plain"};

#define PAD 128

struct job {
    enum layout layout;
    int wide; /* 64-bit counters */
    unsigned threads;
    uint64_t adds;
    unsigned char *mem; /* the counters */
    pthread_barrier_t start;
};

struct worker {
    struct job *job;
    unsigned id;
    double end;
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Where thread id's counter sits. */
static void *slot(const struct job *j, unsigned id)
{
    size_t w = j->wide ? 8 : 4;
    switch (j->layout) {
    case ONE:
        return j->mem;
    case PACKED:
        return j->mem + id * w;
    default:
        return j->mem + (size_t)id * PAD;
    }
}

static void *work(void *arg)
{
    struct worker *w = arg;
    struct job *j = w->job;
    void *p = slot(j, w->id);
    pthread_barrier_wait(&j->start);
    if (j->layout == PLAIN) {
        if (j->wide) {
            volatile uint64_t *c = p;
            for (uint64_t i = 0; i < j->adds; i++)
                *c += 1;
        } else {
            volatile uint32_t *c = p;
            for (uint64_t i = 0; i < j->adds; i++)
                *c += 1;
        }
    } else if (j->wide) {
        _Atomic uint64_t *c = p;
        for (uint64_t i = 0; i < j->adds; i++)
            atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
    } else {
        _Atomic uint32_t *c = p;
        for (uint64_t i = 0; i < j->adds; i++)
            atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
    }
    w->end = now();
    return NULL;
}

/* One run: 10^9 adds per second, or -1 when a count is wrong. */
static double run(enum layout layout, int wide, unsigned threads, uint64_t adds)
{
    struct job j = {.layout = layout, .wide = wide, .threads = threads, .adds = adds};
    size_t bytes = (size_t)(threads + 1) * PAD;
    j.mem = aligned_alloc(PAD, bytes);
    struct worker *ws = calloc(threads, sizeof *ws);
    pthread_t *tids = calloc(threads, sizeof *tids);
    if (!j.mem || !ws || !tids) {
        fprintf(stderr, "host-atomics: out of memory\n");
        exit(1);
    }
    memset(j.mem, 0, bytes);
    pthread_barrier_init(&j.start, NULL, threads + 1);
    for (unsigned i = 0; i < threads; i++) {
        ws[i] = (struct worker){.job = &j, .id = i};
        pthread_create(&tids[i], NULL, work, &ws[i]);
    }
    pthread_barrier_wait(&j.start);
    double t0 = now(), t1 = t0;
    for (unsigned i = 0; i < threads; i++) {
        pthread_join(tids[i], NULL);
        if (ws[i].end > t1)
            t1 = ws[i].end;
    }
    pthread_barrier_destroy(&j.start);
    /* Every count exact: one counter holds them all, else each holds its thread's. */
    int ok = 1;
    for (unsigned i = 0; i < (layout == ONE ? 1 : threads); i++) {
        void *p = slot(&j, i);
        uint64_t v = wide ? *(uint64_t *)p : *(uint32_t *)p;
        uint64_t want = layout == ONE ? adds * threads : adds;
        if (!wide)
            want &= UINT32_MAX;
        if (v != want) {
            fprintf(stderr, "host-atomics: %s counter %u is %llu, expected %llu\n",
                    layout_names[layout], i, (unsigned long long)v, (unsigned long long)want);
            ok = 0;
        }
    }
    free(j.mem);
    free(ws);
    free(tids);
    return ok ? (double)adds * threads / (t1 - t0) / 1e9 : -1;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned threads = cpus > 0 ? (unsigned)cpus : 1, runs = 5;
    uint64_t adds = UINT64_C(1) << 22;
    int c;
    while ((c = getopt(argc, argv, "t:n:r:h")) != -1) {
        switch (c) {
        case 't':
            threads = (unsigned)strtoul(optarg, NULL, 10);
            break;
        case 'n':
            adds = strtoull(optarg, NULL, 10);
            break;
        case 'r':
            runs = (unsigned)strtoul(optarg, NULL, 10);
            break;
        default:
            fprintf(stderr, "usage: host-atomics [-t THREADS] [-n ADDS] [-r RUNS]\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (threads < 1 || threads > 1024 || adds < 1 || runs < 1 || runs > 99) {
        fprintf(stderr, "host-atomics: 1..1024 threads, ADDS >= 1, 1..99 runs\n");
        return 2;
    }
    printf("host-atomics: %u threads x %llu relaxed atomic adds, median of %u runs\n", threads,
           (unsigned long long)adds, runs);
    printf("%-8s %6s %12s\n", "layout", "bits", "Gadds/s");
    int bad = 0;
    for (int wide = 0; wide < 2; wide++)
        for (int l = ONE; l <= PLAIN; l++) {
            double v[99];
            for (unsigned r = 0; r < runs; r++)
                if ((v[r] = run((enum layout)l, wide, threads, adds)) < 0)
                    bad = 1;
            qsort(v, runs, sizeof v[0], cmp);
            printf("%-8s %6d %12.4f\n", layout_names[l], wide ? 64 : 32, v[runs / 2]);
        }
    return bad;
}
