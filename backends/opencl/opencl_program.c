/* gpubench — the OpenCL backend's programs and launches: building a program from source with
 * its defines (and its build log), getting its kernels, setting their arguments and enqueueing
 * them (launch, and launch_timed from the launch's own event). */
#include "opencl_private.h"

/* ---- programs and launches ---------------------------------------------------------------- */

/* The build log of prog on its device, malloc'd ("" if none could be read). */
static char *ocl__build_log(cl_program prog, cl_device_id id)
{
    size_t n = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(prog, id, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) == CL_SUCCESS &&
        (log = malloc(n + 1)) != NULL) {
        if (clGetProgramBuildInfo(prog, id, CL_PROGRAM_BUILD_LOG, n, log, NULL) != CL_SUCCESS)
            n = 0;
        log[n] = '\0';
    }
    return log ? log : calloc(1, 1);
}

/* A define must be one token: "NAME" or "NAME=VALUE" with no whitespace or quotes, because
 * platforms split build options on whitespace and disagree on quoting. */
static bool ocl__define_ok(const char *def)
{
    if (!def || !(isalpha((unsigned char)def[0]) || def[0] == '_'))
        return false;
    for (const char *p = def; *p; p++)
        if (isspace((unsigned char)*p) || *p == '"' || *p == '\'' || *p == '\\')
            return false;
    return true;
}

void gb__ocl_program_free(struct gb_program *prog)
{
    if (!prog)
        return;
    struct ocl_program *p = gb__ocl_program(prog);
    if (p->prog)
        clReleaseProgram(p->prog);
    free(p);
}

int gb__ocl_program_build(struct gb_device *dev, const char *source, const char *const *defines,
                          size_t ndefines, struct gb_program **out, char **log)
{
    struct ocl_device *d = gb__ocl_dev(dev);
    struct ocl_program *p = NULL;
    char *opts = NULL;
    int rc;
    if (log)
        *log = NULL;
    if (!source)
        return GB_FAIL(GB_EINVAL, "program_build: NULL source");

    /* Options are the defines: without -cl-std a platform compiles the newest OpenCL C 1.x it
     * supports, which is what the kernels are written in, on every platform. The one exception:
     * a source that calls the packed integer dot product is built as OpenCL C 3.0 on a device
     * that offers it (GB_CAP_INT8_DOT), the only dialect that declares the function. */
    const char *std = (dev->info.caps & GB_CAP_INT8_DOT) && strstr(source, "dot_4x8packed")
                          ? "-cl-std=CL3.0"
                          : NULL;
    size_t len = 1 + (std ? strlen(std) + 1 : 0);
    for (size_t i = 0; i < ndefines; i++) {
        if (!ocl__define_ok(defines[i]))
            return GB_FAIL(GB_EINVAL, "program_build: define \"%s\" is not NAME or NAME=VALUE",
                           defines[i] ? defines[i] : "(null)");
        len += strlen(defines[i]) + 3;
    }
    if (!(opts = malloc(len)))
        return GB_FAIL(GB_ENOMEM, "build options of %zu bytes", len);
    opts[0] = '\0';
    size_t at = 0;
    for (size_t i = 0; i < ndefines; i++)
        at += (size_t)sprintf(opts + at, "%s-D%s", at ? " " : "", defines[i]);
    if (std)
        sprintf(opts + at, "%s%s", at ? " " : "", std);

    if (!(p = calloc(1, sizeof *p))) {
        rc = GB_FAIL(GB_ENOMEM, "program handle");
        goto fail;
    }
    p->pub.dev = dev;
    cl_int err;
    p->prog = clCreateProgramWithSource(d->ctx, 1, &source, NULL, &err);
    if ((rc = OCL_CHECK("clCreateProgramWithSource", err)))
        goto fail;
    err = clBuildProgram(p->prog, 1, &d->id, opts, NULL, NULL);
    if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BUILD_OPTIONS) {
        char *full = ocl__build_log(p->prog, d->id);
        const char *shown = full ? full : "";
        rc = OCL_FAIL_AS(GB_EBUILD, "clBuildProgram", err);
        /* The detail gets the head of the log (the first errors are the useful ones); the
         * caller gets all of it. */
        int lines = 0;
        size_t head = 0;
        while (shown[head] && lines < 8 && head < 1500)
            if (shown[head++] == '\n')
                lines++;
        gb_error_append(rc, "options \"%s\"; log:\n%.*s%s", opts, (int)head, shown,
                        shown[head] ? "..." : "");
        if (log && full)
            *log = full;
        else
            free(full);
        goto fail;
    }
    if ((rc = OCL_CHECK("clBuildProgram", err)))
        goto fail;
    free(opts);
    *out = &p->pub;
    return 0;
fail:
    free(opts);
    gb__ocl_program_free(p ? &p->pub : NULL);
    return rc;
}

void gb__ocl_kernel_free(struct gb_kernel *kernel)
{
    if (!kernel)
        return;
    struct ocl_kernel *k = gb__ocl_kernel(kernel);
    if (k->k)
        clReleaseKernel(k->k);
    free(k);
}

int gb__ocl_kernel_get(struct gb_program *prog, const char *name, struct gb_kernel **out)
{
    struct ocl_program *p = gb__ocl_program(prog);
    struct ocl_device *d = gb__ocl_dev(prog->dev);
    if (!name)
        return GB_FAIL(GB_EINVAL, "kernel_get: NULL name");
    size_t len = strlen(name);
    struct ocl_kernel *k = calloc(1, sizeof *k + len + 1);
    if (!k)
        return GB_FAIL(GB_ENOMEM, "kernel handle");
    memcpy(k->name, name, len + 1);
    k->pub.prog = prog;

    int rc;
    cl_int err;
    k->k = clCreateKernel(p->prog, name, &err);
    if (err == CL_INVALID_KERNEL_NAME) {
        rc = GB_FAIL(GB_EINVAL, "no kernel \"%s\" in the program (clCreateKernel: %s)", name,
                     gb__ocl_err_name(err));
        goto fail;
    }
    if ((rc = OCL_CHECK("clCreateKernel", err)))
        goto fail;
    size_t wg = 0;
    if ((rc = OCL_CALL(clGetKernelWorkGroupInfo,
                       (k->k, d->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL))) ||
        (rc = OCL_CALL(clGetKernelInfo,
                       (k->k, CL_KERNEL_NUM_ARGS, sizeof k->nargs, &k->nargs, NULL))))
        goto fail;
    k->max_wg = gb__ocl_clamp32(wg);
    *out = &k->pub;
    return 0;
fail:
    gb__ocl_kernel_free(&k->pub);
    return rc;
}

int gb__ocl_kernel_max_wg(struct gb_kernel *k, uint32_t *out)
{
    *out = gb__ocl_kernel(k)->max_wg;
    return 0;
}

/* Sets argument i of k from a; scalars are passed by their own size. */
static int ocl__set_arg(struct ocl_kernel *k, struct gb_device *dev, cl_uint i,
                        const struct gb_arg *a)
{
    size_t size;
    const void *ptr;
    cl_mem mem;
    switch (a->kind) {
    case GB_ARG_BUF:
        if (!a->v.buf || a->v.buf->kind != GB_MEM_DEVICE)
            return GB_FAIL(GB_EINVAL, "kernel %s: argument %u is not a device buffer", k->name,
                           (unsigned)i);
        if (a->v.buf->dev != dev)
            return GB_FAIL(GB_EINVAL, "kernel %s: argument %u is a buffer of another device",
                           k->name, (unsigned)i);
        mem = gb__ocl_buf(a->v.buf)->mem;
        size = sizeof mem;
        ptr = &mem;
        break;
    case GB_ARG_I32:
        size = sizeof a->v.i32, ptr = &a->v.i32;
        break;
    case GB_ARG_U32:
        size = sizeof a->v.u32, ptr = &a->v.u32;
        break;
    case GB_ARG_I64:
        size = sizeof a->v.i64, ptr = &a->v.i64;
        break;
    case GB_ARG_U64:
        size = sizeof a->v.u64, ptr = &a->v.u64;
        break;
    case GB_ARG_F32:
        size = sizeof a->v.f32, ptr = &a->v.f32;
        break;
    case GB_ARG_F64:
        size = sizeof a->v.f64, ptr = &a->v.f64;
        break;
    default:
        return GB_FAIL(GB_EINVAL, "kernel %s: argument %u has unknown kind %d", k->name,
                       (unsigned)i, (int)a->kind);
    }
    cl_int err = clSetKernelArg(k->k, i, size, ptr);
    if (err == CL_SUCCESS)
        return 0;
    /* A wrong size or index is the caller's mistake, not the platform's. */
    int rc = OCL_FAIL_AS(err == CL_INVALID_ARG_SIZE || err == CL_INVALID_ARG_INDEX ||
                                 err == CL_INVALID_ARG_VALUE || err == CL_INVALID_MEM_OBJECT
                             ? GB_EINVAL
                             : GB_EBACKEND,
                         "clSetKernelArg", err);
    return gb_error_append(rc, "kernel %s, argument %u (%zu bytes)", k->name, (unsigned)i, size);
}

/* gb__ocl_launch, and gb__ocl_launch_timed with `ev` non-NULL (the launch's event, which the caller
 * releases; never while q records a graph). */
static int ocl__launch(struct gb_queue *queue, struct gb_kernel *kernel, const struct gb_launch *l,
                       cl_event *ev)
{
    struct ocl_queue *q = gb__ocl_queue(queue);
    struct ocl_kernel *k = gb__ocl_kernel(kernel);
    /* Checked here, before anything is enqueued, so that a bad tuning point is a clear
     * GB_EINVAL rather than a CL_INVALID_WORK_GROUP_SIZE after arguments were set. */
    int rc = gb_launch_check(l, &queue->dev->info, k->max_wg, k->name);
    if (rc)
        return rc;
    if (kernel->prog->dev != queue->dev)
        return GB_FAIL(GB_EINVAL, "kernel %s was built for another device than the queue's",
                       k->name);
    if (l->nargs > GB_MAX_ARGS || l->nargs != k->nargs)
        return GB_FAIL(GB_EINVAL, "kernel %s takes %u arguments, the launch passes %u", k->name,
                       (unsigned)k->nargs, (unsigned)l->nargs);
    size_t gsz[3], lsz[3];
    for (uint32_t d = 0; d < l->dims; d++) {
        if (l->global[d] > SIZE_MAX)
            return GB_FAIL(GB_EINVAL, "global size %" PRIu64 " exceeds the host's size_t",
                           l->global[d]);
        gsz[d] = (size_t)l->global[d];
        lsz[d] = l->local[d];
    }

    for (uint32_t i = 0; i < l->nargs; i++)
        if ((rc = ocl__set_arg(k, queue->dev, i, &l->args[i])))
            return rc;
    if (q->rec)
        return gb__ocl_graph_record(q, k, l->dims, gsz, lsz);
    rc = OCL_CALL(clEnqueueNDRangeKernel, (q->q, k->k, l->dims, NULL, gsz, lsz, 0, NULL, ev));
    if (rc)
        gb_error_append(rc, "kernel %s", k->name);
    return rc;
}

int gb__ocl_launch(struct gb_queue *queue, struct gb_kernel *kernel, const struct gb_launch *l)
{
    return ocl__launch(queue, kernel, l, NULL);
}

/* The launch's own event (the queue has profiling enabled): CL_PROFILING_COMMAND_QUEUED, START
 * and END, as clpeak reads them for its kernel launch latency. */
int gb__ocl_launch_timed(struct gb_queue *queue, struct gb_kernel *kernel,
                         const struct gb_launch *l, struct gb_launch_times *out)
{
    int rc = gb__ocl_not_recording(gb__ocl_queue(queue), "launch_timed");
    if (rc)
        return rc;
    if (gb__ocl_dev(queue->dev)->timer == OCL__TIMER_NONE)
        return GB_FAIL(GB_EUNSUPPORTED, "launch_timed: %s", queue->dev->timer_fault);
    cl_event ev = NULL;
    if ((rc = ocl__launch(queue, kernel, l, &ev)))
        return rc;
    cl_ulong tq = 0, ts = 0, te = 0;
    if (!(rc = OCL_CALL(clWaitForEvents, (1, &ev))) &&
        !(rc = OCL_CALL(clGetEventProfilingInfo,
                        (ev, CL_PROFILING_COMMAND_QUEUED, sizeof tq, &tq, NULL))) &&
        !(rc = OCL_CALL(clGetEventProfilingInfo,
                        (ev, CL_PROFILING_COMMAND_START, sizeof ts, &ts, NULL))))
        rc = gb__ocl_event_end(ev, &te);
    clReleaseEvent(ev);
    if (rc)
        return rc;
    if (!(tq <= ts && ts <= te) || tq == 0)
        return GB_FAIL(GB_EBACKEND,
                       "launch_timed: the platform's profiling timestamps are out "
                       "of order (queued %" PRIu64 ", start %" PRIu64 ", end %" PRIu64 " ns)",
                       (uint64_t)tq, (uint64_t)ts, (uint64_t)te);
    out->queued_to_end_ns = (uint64_t)(te - tq);
    out->start_to_end_ns = (uint64_t)(te - ts);
    return 0;
}
