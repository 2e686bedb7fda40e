/* Launch overhead: a kernel that does almost nothing, but does it observably. Work-item 0
 * increments a counter, so verify can check that every launch really ran. */

GB_KERNEL void launch_count(GB_GLOBAL unsigned int *count)
{
    if (GB_GLOBAL_ID(0) == 0)
        count[0] += 1u;
}
