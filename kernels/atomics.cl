/* Atomic add throughput on global and local memory, int32, int64 and float, with a contention
 * axis: all work-items on one address, or spread over `naddr` addresses.
 *
 * Tunables (-D): TYPE, 0 unsigned int (32-bit), 1 unsigned 64-bit, 2 float; NADDR, the local
 * counters of atomics_local (at most the work-group size).
 *
 * atomics_global: work-item g adds `inc` to counters[g mod naddr] `iters` times.
 * atomics_local: the work-group zeroes NADDR local counters (NADDR at most the work-group
 * size), work-item l adds `inc` to counter l mod NADDR `iters` times, and the work-group stores
 * its counters to out[group x NADDR .. + NADDR), so every launch leaves the same counts.
 * atomics_caps: out[0] = 1 when this device has the atomics of TYPE (OpenCL: 32-bit atomics are
 * core; 64-bit ones need cl_khr_int64_base_atomics; float atomic add is not driven on OpenCL
 * (cl_ext_float_atomics needs OpenCL C 2.0 atomics); CUDA has all three), else 0 and the other
 * kernels do nothing.
 *
 * OpenCL: atomic_add (OpenCL C 1.1) and atom_add (cl_khr_int64_base_atomics); CUDA: atomicAdd.
 * The compilers are free to combine the atomics of a warp on one address into one (NVCC does,
 * for a uniform address): the figure is what a kernel written this way gets.
 *
 * Test define: GB_BREAK makes the first work-item of every launch skip its first add
 * (tests/test_chip.c).
 */

#ifndef TYPE
#define TYPE 0
#endif
#ifndef NADDR
#define NADDR 1
#endif

#if GB_HAS_ATOMIC_ADD_ALL
#if TYPE == 0
typedef unsigned int atom_t;
#elif TYPE == 1
typedef unsigned long long atom_t;
#else
typedef float atom_t;
#endif
#define ATOM_OK 1
#define ATOM_ADD(p, v) atomicAdd((p), (v))
#else /* OpenCL C */
#if TYPE == 0
typedef unsigned int atom_t;
#define ATOM_OK 1
#define ATOM_ADD(p, v) atomic_add((p), (v))
#elif TYPE == 1 && defined(cl_khr_int64_base_atomics)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
typedef unsigned long atom_t;
#define ATOM_OK 1
#define ATOM_ADD(p, v) atom_add((p), (v))
#else
typedef unsigned int atom_t; /* not run: atomics_caps says 0 */
#define ATOM_OK 0
#define ATOM_ADD(p, v) ((void)(p), (void)(v))
#endif
#endif

#ifdef GB_BREAK
#define ATOM_SKIP(id) ((id) == 0 ? 1u : 0u)
#else
#define ATOM_SKIP(id) 0u
#endif

GB_KERNEL void atomics_caps(GB_GLOBAL unsigned int *out)
{
    out[0] = ATOM_OK;
}

GB_KERNEL void atomics_global(GB_GLOBAL atom_t *counters, unsigned int naddr, unsigned int iters,
                              atom_t inc)
{
    const unsigned int g = (unsigned int)GB_GLOBAL_ID(0);
    GB_GLOBAL atom_t *p = counters + g % naddr;
    for (unsigned int j = ATOM_SKIP(g); j < iters; j++)
        ATOM_ADD(p, inc);
}

GB_KERNEL void atomics_local(GB_GLOBAL atom_t *out, unsigned int iters, atom_t inc)
{
    GB_LOCAL atom_t counters[NADDR];
    const unsigned int l = (unsigned int)GB_LOCAL_ID(0);
    if (l < NADDR)
        counters[l] = (atom_t)0;
    GB_BARRIER();
    const unsigned int a0 = l % NADDR;
    for (unsigned int j = ATOM_SKIP((unsigned int)GB_GLOBAL_ID(0)); j < iters; j++)
        ATOM_ADD(&counters[a0], inc);
    GB_BARRIER();
    if (l < NADDR)
        out[GB_GROUP_ID(0) * NADDR + l] = counters[l];
}
