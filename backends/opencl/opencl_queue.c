/* gpubench — the OpenCL backend's queues and events: user queues (with a priority where the
 * device offers one), flush and sync, transfers between host and device memory, and the events
 * that time a stretch of a queue (event_record, event_elapsed_ns). */
#include "opencl_private.h"

/* ---- queues and transfers ----------------------------------------------------------------- */

int gb__ocl_queue_create(struct gb_device *dev, struct gb_queue **out)
{
    struct ocl_device *d = gb__ocl_dev(dev);
    struct ocl_queue *q = calloc(1, sizeof *q);
    if (!q)
        return GB_FAIL(GB_ENOMEM, "queue handle");
    q->pub.dev = dev;
    int rc = gb__ocl_queue_new(d, &q->q);
    if (rc) {
        free(q);
        return rc;
    }
    *out = &q->pub;
    return 0;
}

/* queue_create_priority (backend.h): a queue with the cl_khr_priority_hints property, where
 * the device lists the extension; refused with the reason elsewhere (PoCL's and Intel's CPU
 * runtimes do not list it). */
int gb__ocl_queue_create_priority(struct gb_device *dev, enum gb_queue_priority p,
                                  struct gb_queue **out)
{
    struct ocl_device *d = gb__ocl_dev(dev);
    if (p != GB_QUEUE_PRIORITY_LOW && p != GB_QUEUE_PRIORITY_HIGH)
        return GB_FAIL(GB_EINVAL, "queue_create_priority: unknown priority %d", (int)p);
    if (!d->priority_hints)
        return GB_FAIL(GB_EUNSUPPORTED, "the OpenCL device has no cl_khr_priority_hints");
    if (!d->cl20)
        return GB_FAIL(GB_EUNSUPPORTED,
                       "the OpenCL device lists cl_khr_priority_hints, but its platform is older "
                       "than OpenCL 2.0 (no clCreateCommandQueueWithProperties)");
    struct ocl_queue *q = calloc(1, sizeof *q);
    if (!q)
        return GB_FAIL(GB_ENOMEM, "queue handle");
    q->pub.dev = dev;
    int rc = gb__ocl_queue_new_prio(
        d, p == GB_QUEUE_PRIORITY_HIGH ? CL_QUEUE_PRIORITY_HIGH_KHR : CL_QUEUE_PRIORITY_LOW_KHR,
        &q->q);
    if (rc) {
        free(q);
        return rc;
    }
    *out = &q->pub;
    return 0;
}

void gb__ocl_queue_destroy(struct gb_queue *queue)
{
    if (!queue)
        return;
    struct ocl_queue *q = gb__ocl_queue(queue);
    gb__ocl_graph_abandon(q);
    /* Releasing a queue does not wait for it; wait so that no command outlives its buffers. */
    gb__ocl_finish(q->q);
    clReleaseCommandQueue(q->q);
    free(q);
}

int gb__ocl_queue_flush(struct gb_queue *q)
{
    return OCL_CALL(clFlush, (gb__ocl_queue(q)->q));
}

int gb__ocl_queue_sync(struct gb_queue *q)
{
    int rc = gb__ocl_not_recording(gb__ocl_queue(q), "queue_sync");
    return rc ? rc : gb__ocl_finish(gb__ocl_queue(q)->q);
}

/* Whether [off, off + bytes) lies within a buffer of `size` bytes, without overflowing. */
static bool ocl__in_range(uint64_t off, uint64_t bytes, uint64_t size)
{
    return off <= size && bytes <= size - off;
}

int gb__ocl_copy(struct gb_queue *queue, struct gb_buf *dst, uint64_t dst_off, struct gb_buf *src,
                 uint64_t src_off, uint64_t bytes, enum gb_copy_flags flags)
{
    struct ocl_queue *q = gb__ocl_queue(queue);
    if (!dst || !src)
        return GB_FAIL(GB_EINVAL, "copy: NULL buffer");
    int rec = gb__ocl_not_recording(q, "copy");
    if (rec)
        return rec;
    if ((unsigned)flags & ~(unsigned)GB_COPY_BLOCKING)
        return GB_FAIL(GB_EINVAL, "copy: unknown flags 0x%x", (unsigned)flags);
    bool dst_host = dst->kind != GB_MEM_DEVICE, src_host = src->kind != GB_MEM_DEVICE;
    if (dst_host && src_host)
        return GB_FAIL(GB_EINVAL, "copy: host-to-host is not a device transfer");
    if (!ocl__in_range(src_off, bytes, src->bytes))
        return GB_FAIL(GB_EINVAL,
                       "copy: source range %" PRIu64 "+%" PRIu64 " leaves its buffer of %" PRIu64
                       " bytes",
                       src_off, bytes, src->bytes);
    if (!ocl__in_range(dst_off, bytes, dst->bytes))
        return GB_FAIL(GB_EINVAL,
                       "copy: destination range %" PRIu64 "+%" PRIu64
                       " leaves its buffer of %" PRIu64 " bytes",
                       dst_off, bytes, dst->bytes);
    /* Device buffers live in their device's context; the queue must belong to that context.
     * Host memory is plain memory and may be used from any device. */
    if ((!dst_host && dst->dev != queue->dev) || (!src_host && src->dev != queue->dev))
        return GB_FAIL(GB_EINVAL, "copy: a device buffer belongs to another device than the "
                                  "queue (OpenCL contexts cannot copy between each other)");
    if (bytes == 0)
        return 0;

    const cl_bool blocking = (flags & GB_COPY_BLOCKING) ? CL_TRUE : CL_FALSE;
    const size_t n = (size_t)bytes;
    int rc;
    if (!dst_host && src_host) {
        rc = OCL_CALL(clEnqueueWriteBuffer, (q->q, gb__ocl_buf(dst)->mem, blocking, (size_t)dst_off,
                                             n, (char *)src->host + src_off, 0, NULL, NULL));
    } else if (dst_host && !src_host) {
        rc = OCL_CALL(clEnqueueReadBuffer, (q->q, gb__ocl_buf(src)->mem, blocking, (size_t)src_off,
                                            n, (char *)dst->host + dst_off, 0, NULL, NULL));
    } else {
        if (dst == src && src_off < dst_off + bytes && dst_off < src_off + bytes)
            return GB_FAIL(GB_EINVAL, "copy: overlapping ranges within one buffer");
        rc = OCL_CALL(clEnqueueCopyBuffer, (q->q, gb__ocl_buf(src)->mem, gb__ocl_buf(dst)->mem,
                                            (size_t)src_off, (size_t)dst_off, n, 0, NULL, NULL));
        /* clEnqueueCopyBuffer has no blocking flag; on an in-order queue finishing the queue
         * is the same as waiting for this copy. */
        if (!rc && blocking)
            rc = gb__ocl_finish(q->q);
    }
    return rc;
}

/* ---- timing ------------------------------------------------------------------------------- */

int gb__ocl_event_create(struct gb_device *dev, struct gb_event **out)
{
    struct ocl_event *e = calloc(1, sizeof *e);
    if (!e)
        return GB_FAIL(GB_ENOMEM, "event handle");
    e->pub.dev = dev;
    *out = &e->pub;
    return 0;
}

void gb__ocl_event_free(struct gb_event *ev)
{
    if (!ev)
        return;
    struct ocl_event *e = gb__ocl_event(ev);
    if (e->ev)
        clReleaseEvent(e->ev);
    free(e);
}

int gb__ocl_event_record(struct gb_queue *queue, struct gb_event *ev)
{
    struct ocl_queue *q = gb__ocl_queue(queue);
    struct ocl_event *e = gb__ocl_event(ev);
    struct ocl_device *d = gb__ocl_dev(queue->dev);
    if (ev->dev != queue->dev)
        return GB_FAIL(GB_EINVAL, "event_record: the event belongs to another device");
    cl_event ce = NULL;
    int rc = gb__ocl_not_recording(q, "event_record");
    if (rc)
        return rc;
    /* With no wait list, a marker (or, on an in-order queue, any command) completes after
     * everything enqueued before it, which is what cudaEventRecord promises. */
    if (d->timer != OCL__TIMER_FILL) {
        rc = OCL_CALL(clEnqueueMarkerWithWaitList, (q->q, 0, NULL, &ce));
    } else {
        const cl_uint zero = 0;
        rc = OCL_CALL(clEnqueueFillBuffer,
                      (q->q, d->scratch, &zero, sizeof zero, 0, sizeof zero, 0, NULL, &ce));
    }
    if (rc)
        return rc;
    if (e->ev)
        clReleaseEvent(e->ev);
    e->ev = ce;
    return 0;
}

int gb__ocl_event_sync(struct gb_event *ev)
{
    struct ocl_event *e = gb__ocl_event(ev);
    if (!e->ev)
        return GB_FAIL(GB_EINVAL, "event_sync: the event was never recorded");
    return OCL_CALL(clWaitForEvents, (1, &e->ev));
}

/* The completion time of a recorded, complete event, device clock in ns. */
static int ocl__event_done_at(struct ocl_event *e, const char *which, cl_ulong *out)
{
    if (!e->ev)
        return GB_FAIL(GB_EINVAL, "event_elapsed_ns: the %s event was never recorded", which);
    /* The caller waited for the end event; on an in-order queue the start event then completed
     * too, but a platform may report it late: wait for it rather than refuse. */
    cl_int status = 0;
    int rc = gb__ocl_wait_status(e->ev, &status);
    if (rc)
        return rc;
    if (status < 0)
        return GB_FAIL(GB_EBACKEND, "event_elapsed_ns: the %s event's command failed: %s (%d)",
                       which, gb__ocl_err_name(status), (int)status);
    if (status != CL_COMPLETE)
        return GB_FAIL(GB_EBACKEND,
                       "event_elapsed_ns: the %s event is not complete after a wait for it "
                       "returned",
                       which);
    if ((rc = gb__ocl_event_end(e->ev, out)))
        return gb_error_append(rc, "%s event", which);
    return 0;
}

int gb__ocl_event_elapsed_ns(struct gb_event *start, struct gb_event *end, uint64_t *ns)
{
    if (start->dev != end->dev)
        return GB_FAIL(GB_EINVAL, "event_elapsed_ns: events of two devices have two clocks");
    if (gb__ocl_dev(start->dev)->timer == OCL__TIMER_NONE)
        return GB_FAIL(GB_EUNSUPPORTED, "event_elapsed_ns: %s", start->dev->timer_fault);
    cl_ulong t0, t1;
    int rc;
    if ((rc = ocl__event_done_at(gb__ocl_event(start), "start", &t0)) ||
        (rc = ocl__event_done_at(gb__ocl_event(end), "end", &t1)))
        return rc;
    if (t1 < t0)
        return GB_FAIL(GB_EINVAL,
                       "event_elapsed_ns: the end event completed %" PRIu64
                       " ns before the start event",
                       (uint64_t)(t0 - t1));
    *ns = t1 - t0;
    return 0;
}
