/* Memory latency by pointer chase: lmbench's lat_mem_rd (McVoy and Staelin, "lmbench: Portable
 * tools for performance analysis", USENIX 1996) in its random form, as GPU studies use it (Mei
 * and Chu, "Dissecting GPU Memory Hierarchy through Microbenchmarking", IEEE TPDS 2017).
 *
 * `next` is the working set: one element (an unsigned int) at the start of every `stride`-byte
 * slot holds the element index of the next slot of one cycle through every slot (the host builds
 * it: suites/latency.c); the other elements are never read. One work-item follows the chain, so
 * each load's address is the value the previous load returned: the loads cannot overlap, and
 * the time per step is the latency of one load from the level that holds the working set.
 *
 * latency_chase: continues the chase from pos[0] for `steps` steps and stores where it ended in
 * pos[0]. Launch it with one work-item; successive launches continue one chase, so the host
 * knows where it must stand after every step the suite has asked for.
 *
 * Test define: GB_BREAK takes one step too many per launch (tests/test_chip.c checks that
 * verification catches it).
 */

GB_KERNEL void latency_chase(GB_GLOBAL const unsigned int *next, GB_GLOBAL unsigned int *pos,
                             unsigned long steps)
{
    unsigned int i = pos[0];
    unsigned long s = steps;
    for (; s >= 4; s -= 4) {
        i = next[i];
        i = next[i];
        i = next[i];
        i = next[i];
    }
    for (; s > 0; s--)
        i = next[i];
#ifdef GB_BREAK
    i = next[i];
#endif
    pos[0] = i;
}
