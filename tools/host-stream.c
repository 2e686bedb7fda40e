/* host-stream — the machine's memory bandwidth, measured on the host CPU with STREAM's triad
 * (a[i] = b[i] + s*c[i], 3 arrays moved per element; McCalpin, "Memory Bandwidth and Machine
 * Balance", 1995) on every core, plain stores. It is the reference against which
 * scripts/bench-peers.sh judges a CPU OpenCL device's device-memory bandwidth: on a CPU device
 * the "device memory" is this memory.
 *   host-stream [MiB per array, default 256] [repetitions, default 20]
 * Prints "triad_gbs <best GB/s>" and "copy_gbs <best GB/s>" (GB = 1e9 bytes). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct work {
    double *a, *b, *c;
    size_t lo, hi;
    int op; /* 0 copy, 1 triad */
    pthread_barrier_t *start, *done;
    int reps;
};

static void *worker(void *p)
{
    struct work *w = p;
    /* First touch by the thread that uses the pages, so they sit near it. */
    for (size_t i = w->lo; i < w->hi; i++)
        w->a[i] = 1.0, w->b[i] = 2.0, w->c[i] = 0.5;
    for (int r = 0; r < 2 * w->reps; r++) {
        pthread_barrier_wait(w->start);
        if (r < w->reps) {
            for (size_t i = w->lo; i < w->hi; i++)
                w->c[i] = w->a[i];
        } else {
            const double s = 0.4;
            for (size_t i = w->lo; i < w->hi; i++)
                w->a[i] = w->b[i] + s * w->c[i];
        }
        pthread_barrier_wait(w->done);
    }
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
    int reps = argc > 2 ? atoi(argv[2]) : 20;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = ncpu > 0 ? (int)ncpu : 1;
    size_t n = mib * 1024 * 1024 / sizeof(double);
    double *a = aligned_alloc(4096, n * sizeof(double)),
           *b = aligned_alloc(4096, n * sizeof(double)),
           *c = aligned_alloc(4096, n * sizeof(double));
    if (!a || !b || !c || reps < 1) {
        fprintf(stderr, "host-stream: cannot allocate 3 x %zu MiB\n", mib);
        return 1;
    }
    pthread_barrier_t start, done;
    pthread_barrier_init(&start, NULL, (unsigned)nt + 1);
    pthread_barrier_init(&done, NULL, (unsigned)nt + 1);
    pthread_t *th = calloc((size_t)nt, sizeof *th);
    struct work *w = calloc((size_t)nt, sizeof *w);
    for (int t = 0; t < nt; t++) {
        w[t] = (struct work){
            a,      b,     c,   n * (size_t)t / (size_t)nt, n * (size_t)(t + 1) / (size_t)nt, 0,
            &start, &done, reps};
        pthread_create(&th[t], NULL, worker, &w[t]);
    }
    double best[2] = {0, 0};
    for (int r = 0; r < 2 * reps; r++) {
        pthread_barrier_wait(&start);
        double t0 = now();
        pthread_barrier_wait(&done);
        double dt = now() - t0;
        int op = r >= reps;
        double gbs = (op ? 3.0 : 2.0) * (double)n * sizeof(double) / dt / 1e9;
        if (gbs > best[op])
            best[op] = gbs;
    }
    for (int t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    /* Check the work was done, so the compiler cannot have dropped it. */
    for (size_t i = 0; i < n; i += n / 16 + 1)
        if (a[i] != 2.0 + 0.4 * 1.0 || c[i] != 1.0) {
            fprintf(stderr, "host-stream: wrong result at %zu\n", i);
            return 1;
        }
    printf("threads %d\narray_mib %zu\ncopy_gbs %.2f\ntriad_gbs %.2f\n", nt, mib, best[0], best[1]);
    return 0;
}
