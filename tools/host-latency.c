/* host-latency — the latency suite's pointer chase done by the host CPU in C: the reference its
 * staircase on a CPU OpenCL device (PoCL) is read against (scripts/bench-chip.sh).
 *
 *   host-latency [-f FROM] [-t TO] [-s STRIDE] [-n STEPS]
 *
 * For every power-of-two working set from FROM to TO bytes (default 4 KiB to 256 MiB), one
 * element every STRIDE bytes (default 64) points to the next of a single random cycle through
 * all of them (Sattolo's algorithm, as suites/latency.c builds it), and one thread follows it:
 * one untimed lap, then STEPS dependent loads (default 2^21) timed on CLOCK_MONOTONIC. Prints
 * the working set and ns per load. Not installed; built by meson as build/host-latency.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* splitmix64 (Steele, Lea and Flood, OOPSLA 2014). */
static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    uint64_t from = 4096, to = UINT64_C(256) << 20, stride = 64, steps = UINT64_C(1) << 21;
    int c;
    while ((c = getopt(argc, argv, "f:t:s:n:h")) != -1) {
        uint64_t v = strtoull(optarg ? optarg : "0", NULL, 10);
        switch (c) {
        case 'f':
            from = v;
            break;
        case 't':
            to = v;
            break;
        case 's':
            stride = v;
            break;
        case 'n':
            steps = v;
            break;
        default:
            fprintf(stderr, "usage: host-latency [-f FROM] [-t TO] [-s STRIDE] [-n STEPS]\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (stride < 4 || stride % 4 || from < 2 * stride || to < from || steps < 1 ||
        to / 4 > UINT32_MAX) {
        fprintf(stderr, "host-latency: STRIDE a multiple of 4, FROM >= 2 STRIDE, TO >= FROM\n");
        return 2;
    }
    printf("host-latency: random cycle, %llu-byte stride, %llu dependent loads per size\n",
           (unsigned long long)stride, (unsigned long long)steps);
    printf("%14s %10s\n", "bytes", "ns/load");
    for (uint64_t size = from; size <= to; size *= 2) {
        const uint64_t n = size / stride, epl = stride / 4;
        uint32_t *perm = malloc(n * sizeof *perm);
        uint32_t *a = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
        if (!perm || !a) {
            fprintf(stderr, "host-latency: out of memory at %llu bytes\n",
                    (unsigned long long)size);
            return 1;
        }
        uint64_t rs = UINT64_C(0x6c6174656e6379) ^ n;
        for (uint64_t i = 0; i < n; i++)
            perm[i] = (uint32_t)i;
        for (uint64_t i = n - 1; i > 0; i--) { /* Sattolo: j below i */
            uint64_t j = next_rand(&rs) % i;
            uint32_t t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (uint64_t i = 0; i < n; i++)
            a[i * epl] = (uint32_t)(perm[i] * epl);
        volatile uint32_t sink;
        uint32_t x = 0;
        for (uint64_t i = 0; i < n; i++)
            x = a[x];
        double t0 = now();
        for (uint64_t i = 0; i < steps; i++)
            x = a[x];
        double t = now() - t0;
        sink = x;
        (void)sink;
        printf("%14llu %10.2f\n", (unsigned long long)size, t / (double)steps * 1e9);
        free(a);
        free(perm);
    }
    return 0;
}
