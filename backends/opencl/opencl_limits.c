/* gpubench — the OpenCL backend's probe of a driver's limits on an open device (device_probe):
 * how many loop iterations a work-item runs before the driver stops its loops
 * (gb_device_info.max_loop_trips).
 *
 * A driver has been seen to stop every loop of a work-item after 65,535 iterations, counted
 * across nested loops, and to go on with the kernel past them: a dot product sized for a CPU
 * (16 work-items of about a million terms each) returned 1/16 of its sum, which verification
 * caught as "relative error 0.938". Known before the first case, the limit lets a suite size its work below it,
 * or skip saying why, instead of failing with an error that names nothing. */
#include "opencl_private.h"

/* Two work-items, each counting to its own n (n0 past 2^16, n1 past 2^20) in one loop whose
 * step the compiler cannot fold into a closed form (c * mul + 1, mul a kernel argument that is
 * 1), and writing how far it got. `cap` stops the loop as such a driver would: UINT_MAX but for
 * the tests' GPUBENCH_TEST_LOOP_TRIPS. */
static const char probe_src[] =
    "__kernel void gb_loop_trips(__global uint *out, uint n0, uint n1, uint cap, uint mul)\n"
    "{\n"
    "    const uint n = get_global_id(0) == 0 ? n0 : n1;\n"
    "    uint c = 0;\n"
    "    for (uint i = 0; i < n && i < cap; i++)\n"
    "        c = c * mul + 1u;\n"
    "    out[get_global_id(0)] = c;\n"
    "}\n";

/* The counts asked for: one past 2^16 (a 16-bit counter's limit) and GB_LOOP_PROBE_MAX. */
static const cl_uint probe_n[2] = {(1u << 16) + 1u, GB_LOOP_PROBE_MAX};

/* The loop-trip limit from what the probe's work-items reached (`got`) of what they were asked
 * (probe_n): the smallest count that fell short, 0 when none did. */
static uint32_t trips_from(const cl_uint got[2])
{
    uint32_t limit = 0;
    for (int i = 0; i < 2; i++)
        if (got[i] < probe_n[i] && (limit == 0 || got[i] < limit))
            limit = got[i];
    return limit;
}

int gb__ocl_device_probe(struct gb_device *dev)
{
    struct ocl_device *d = gb__ocl_dev(dev);
    d->pub.info.max_loop_trips = 0;
    cl_uint cap = CL_UINT_MAX;
    /* Test only: plants the limit of such a driver in the probe (docs/testing.md). */
    const char *plant = getenv("GPUBENCH_TEST_LOOP_TRIPS");
    if (plant && *plant) {
        const unsigned long v = strtoul(plant, NULL, 10);
        if (v > 0 && v < CL_UINT_MAX)
            cap = (cl_uint)v;
    }
    cl_int err;
    cl_program prog = NULL;
    cl_kernel k = NULL;
    cl_mem out = NULL;
    int rc;
    const char *src = probe_src;
    prog = clCreateProgramWithSource(d->ctx, 1, &src, NULL, &err);
    if ((rc = OCL_CHECK("clCreateProgramWithSource", err)) ||
        (rc = OCL_CALL(clBuildProgram, (prog, 1, &d->id, "", NULL, NULL))))
        goto fail;
    k = clCreateKernel(prog, "gb_loop_trips", &err);
    if ((rc = OCL_CHECK("clCreateKernel", err)))
        goto fail;
    out = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, 2 * sizeof(cl_uint), NULL, &err);
    if ((rc = OCL_CHECK("clCreateBuffer", err)))
        goto fail;
    const cl_uint one = 1;
    const size_t global = 2, local = 1;
    cl_uint got[2] = {0, 0};
    if ((rc = OCL_CALL(clSetKernelArg, (k, 0, sizeof out, &out))) ||
        (rc = OCL_CALL(clSetKernelArg, (k, 1, sizeof(cl_uint), &probe_n[0]))) ||
        (rc = OCL_CALL(clSetKernelArg, (k, 2, sizeof(cl_uint), &probe_n[1]))) ||
        (rc = OCL_CALL(clSetKernelArg, (k, 3, sizeof cap, &cap))) ||
        (rc = OCL_CALL(clSetKernelArg, (k, 4, sizeof one, &one))) ||
        (rc = OCL_CALL(clEnqueueNDRangeKernel,
                       (d->iq, k, 1, NULL, &global, &local, 0, NULL, NULL))) ||
        (rc = OCL_CALL(clEnqueueReadBuffer,
                       (d->iq, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL))))
        goto fail;
    d->pub.info.max_loop_trips = trips_from(got);
fail:
    if (out)
        clReleaseMemObject(out);
    if (k)
        clReleaseKernel(k);
    if (prog)
        clReleaseProgram(prog);
    return rc;
}
