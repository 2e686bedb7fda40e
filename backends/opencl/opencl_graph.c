/* gpubench — the OpenCL backend's launch graphs (GB_CAP_GRAPH) on cl_khr_command_buffer:
 * recording a queue's launches into a command buffer, finalizing it, replaying it. */
#include "opencl_private.h"

/* ---- launch graphs (GB_CAP_GRAPH): cl_khr_command_buffer ------------------------------------
 *
 * graph_begin creates a command buffer for the queue; while it exists gb__ocl_launch records into
 * it (gb__ocl_graph_record) instead of enqueueing, and copy, event_record and queue_sync refuse.
 * graph_end finalizes it, graph_launch enqueues it on its queue. The extension's entry points
 * come from clGetExtensionFunctionAddressForPlatform (the ICD loader does not export them).
 *
 * The spec captures a kernel's arguments when the command is recorded; PoCL 3.1 reads them when
 * the buffer runs, so every recorded command would see the arguments set last. Each recorded
 * launch therefore records a clone of the kernel (clCloneKernel copies the arguments just set,
 * OpenCL 2.1), which lives as long as the graph: correct on both readings of the spec.
 * GB_CAP_GRAPH needs the extension, CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR (so that a
 * replay may be enqueued while the previous one is pending, as CUDA Graphs allow), no required
 * queue property beyond profiling, and an OpenCL 2.1 device (clCloneKernel): ocl__graph_cap
 * checks them, with the other device facts. */

/* The platform's entry points of cl_khr_command_buffer; false if one is missing. */
bool gb__ocl_cb_load(cl_platform_id p, struct ocl__cb_fns *f)
{
#define OCL__CB_FN(field, name) \
    (f->field = (name##_fn)clGetExtensionFunctionAddressForPlatform(p, #name)) != NULL
    return OCL__CB_FN(create, clCreateCommandBufferKHR) &&
           OCL__CB_FN(finalize, clFinalizeCommandBufferKHR) &&
           OCL__CB_FN(release, clReleaseCommandBufferKHR) &&
           OCL__CB_FN(enqueue, clEnqueueCommandBufferKHR) &&
           OCL__CB_FN(ndrange, clCommandNDRangeKernelKHR);
#undef OCL__CB_FN
}

/* A command buffer and the kernel clones its commands use: being recorded (ocl_queue.rec) or
 * recorded (ocl_graph). */
struct ocl__rec {
    struct ocl__cb_fns f;
    cl_command_buffer_khr cb;
    cl_kernel *clones;
    size_t n, cap;
};

struct ocl_graph {
    struct gb_graph pub;
    struct ocl__rec rec;
};

static void ocl__rec_release(struct ocl__rec *r)
{
    if (r->cb)
        r->f.release(r->cb);
    for (size_t i = 0; i < r->n; i++)
        clReleaseKernel(r->clones[i]);
    free(r->clones);
}

void gb__ocl_graph_abandon(struct ocl_queue *q)
{
    if (!q->rec)
        return;
    ocl__rec_release(q->rec);
    free(q->rec);
    q->rec = NULL;
}

/* GB_EINVAL when q is recording a launch graph, on which only launch may be called. */
int gb__ocl_not_recording(const struct ocl_queue *q, const char *what)
{
    return q->rec
               ? GB_FAIL(GB_EINVAL, "%s: the queue is recording a launch graph (graph_begin)", what)
               : 0;
}

int gb__ocl_graph_record(struct ocl_queue *q, struct ocl_kernel *k, cl_uint dims, const size_t *gsz,
                         const size_t *lsz)
{
    struct ocl__rec *r = q->rec;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        cl_kernel *c = realloc(r->clones, cap * sizeof *c);
        if (!c)
            return GB_FAIL(GB_ENOMEM, "graph of %zu launches", cap);
        r->clones = c;
        r->cap = cap;
    }
    cl_int err;
    cl_kernel clone = clCloneKernel(k->k, &err);
    int rc = OCL_CHECK("clCloneKernel", err);
    if (rc)
        return gb_error_append(rc, "kernel %s", k->name);
    r->clones[r->n++] = clone;
    rc = OCL_CHECK("clCommandNDRangeKernelKHR", r->f.ndrange(r->cb, NULL, NULL, clone, dims, NULL,
                                                             gsz, lsz, 0, NULL, NULL, NULL));
    if (rc)
        gb_error_append(rc, "recording kernel %s", k->name);
    return rc;
}

int gb__ocl_graph_begin(struct gb_queue *queue)
{
    struct ocl_queue *q = gb__ocl_queue(queue);
    struct ocl_device *d = gb__ocl_dev(queue->dev);
    if (q->rec)
        return GB_FAIL(GB_EINVAL, "graph_begin: the queue is already recording");
    if (!(d->pub.info.caps & GB_CAP_GRAPH))
        return GB_FAIL(GB_EUNSUPPORTED, "graph_begin: %s has no usable cl_khr_command_buffer",
                       d->pub.info.name);
    struct ocl__rec *r = calloc(1, sizeof *r);
    if (!r)
        return GB_FAIL(GB_ENOMEM, "graph_begin");
    if (!gb__ocl_cb_load(d->platform, &r->f)) {
        free(r);
        return GB_FAIL(GB_EUNSUPPORTED, "graph_begin: cl_khr_command_buffer entry points missing");
    }
    const cl_command_buffer_properties_khr props[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                                                      CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, 0};
    cl_int err;
    r->cb = r->f.create(1, &q->q, props, &err);
    int rc = OCL_CHECK("clCreateCommandBufferKHR", err);
    if (rc) {
        free(r);
        return rc;
    }
    q->rec = r;
    return 0;
}

int gb__ocl_graph_end(struct gb_queue *queue, struct gb_graph **out)
{
    struct ocl_queue *q = gb__ocl_queue(queue);
    if (!q->rec)
        return GB_FAIL(GB_EINVAL, "graph_end: the queue is not recording");
    struct ocl_graph *g = calloc(1, sizeof *g);
    int rc = g ? OCL_CHECK("clFinalizeCommandBufferKHR", q->rec->f.finalize(q->rec->cb))
               : GB_FAIL(GB_ENOMEM, "graph_end");
    if (rc) {
        free(g);
        gb__ocl_graph_abandon(q);
        return rc;
    }
    g->pub.q = queue;
    g->rec = *q->rec;
    free(q->rec);
    q->rec = NULL;
    *out = &g->pub;
    return 0;
}

int gb__ocl_graph_launch(struct gb_queue *queue, struct gb_graph *graph)
{
    if (graph->q != queue)
        return GB_FAIL(GB_EINVAL, "graph_launch: the graph was recorded on another queue");
    struct ocl_queue *q = gb__ocl_queue(queue);
    int rc = gb__ocl_not_recording(q, "graph_launch");
    if (rc)
        return rc;
    struct ocl__rec *r = &ocl__container_of(graph, struct ocl_graph, pub)->rec;
    return OCL_CHECK("clEnqueueCommandBufferKHR", r->f.enqueue(0, NULL, r->cb, 0, NULL, NULL));
}

void gb__ocl_graph_free(struct gb_graph *graph)
{
    if (!graph)
        return;
    struct ocl_graph *g = ocl__container_of(graph, struct ocl_graph, pub);
    /* The replays still pending (a case that failed mid-run) finish before the clones go. */
    gb__ocl_finish(gb__ocl_queue(graph->q)->q);
    ocl__rec_release(&g->rec);
    free(g);
}
