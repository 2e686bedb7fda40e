/* gpubench — the OpenCL backend's memory: device, pinned and pageable buffers (buf_alloc,
 * buf_free) and the timed ways of getting memory (alloc_method). */
#include "opencl_private.h"

/* ---- memory ------------------------------------------------------------------------------- */

/* Allocation failures become GB_ENOMEM; anything else stays a backend failure. */
static int ocl__alloc_err(cl_int err)
{
    return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
                   err == CL_OUT_OF_HOST_MEMORY
               ? GB_ENOMEM
           : err == CL_INVALID_BUFFER_SIZE ? GB_ETOOBIG
                                           : GB_EBACKEND;
}

void gb__ocl_buf_free(struct gb_buf *buf)
{
    if (!buf)
        return;
    struct ocl_buf *b = gb__ocl_buf(buf);
    if (b->pub.kind == GB_MEM_HOST_PAGEABLE) {
        free(b->pub.host);
    } else if (b->mem) {
        /* A pinned buffer stayed mapped for its whole life; unmap before the release so the
         * runtime can free the host side. Errors cannot be reported from here. */
        struct ocl_device *d = gb__ocl_dev(b->pub.dev);
        if (b->pub.kind == GB_MEM_HOST_PINNED && b->mapped) {
            if (clEnqueueUnmapMemObject(d->iq, b->mem, b->mapped, 0, NULL, NULL) == CL_SUCCESS)
                gb__ocl_finish(d->iq);
        }
        clReleaseMemObject(b->mem);
    }
    /* The memory a buffer used (USE_HOST_PTR) may be freed once the buffer is released and no
     * command uses it: every command on it was waited for by its user. */
    if (b->svm)
        clSVMFree(gb__ocl_dev(b->pub.dev)->ctx, b->svm);
    free(b->user);
    free(b);
}

int gb__ocl_buf_alloc(struct gb_device *dev, uint64_t bytes, enum gb_mem_kind kind,
                      struct gb_buf **out)
{
    struct ocl_device *d = gb__ocl_dev(dev);
    if (bytes == 0)
        return GB_FAIL(GB_EINVAL, "buffer of 0 bytes");
    if (kind != GB_MEM_DEVICE && kind != GB_MEM_HOST_PINNED && kind != GB_MEM_HOST_PAGEABLE)
        return GB_FAIL(GB_EINVAL, "unknown memory kind %d", (int)kind);
    if (kind != GB_MEM_HOST_PAGEABLE && bytes > d->pub.info.max_alloc)
        return GB_FAIL(GB_ETOOBIG,
                       "buffer of %" PRIu64 " bytes exceeds the device's largest allocation of "
                       "%" PRIu64 " bytes (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                       bytes, d->pub.info.max_alloc);
    if (bytes > SIZE_MAX)
        return GB_FAIL(GB_ETOOBIG, "buffer of %" PRIu64 " bytes exceeds the host's size_t", bytes);

    struct ocl_buf *b = calloc(1, sizeof *b);
    if (!b)
        return GB_FAIL(GB_ENOMEM, "buffer handle");
    b->pub.dev = dev;
    b->pub.bytes = bytes;
    b->pub.kind = kind;

    int rc;
    cl_int err;
    switch (kind) {
    case GB_MEM_DEVICE:
        b->mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, (size_t)bytes, NULL, &err);
        if (err != CL_SUCCESS) {
            rc = OCL_FAIL_AS(ocl__alloc_err(err), "clCreateBuffer", err);
            goto fail;
        }
        break;
    case GB_MEM_HOST_PINNED: {
        /* The portable pinned idiom (NVIDIA's and AMD's guides): a runtime-allocated host
         * buffer, mapped once; the mapped pointer is page-locked memory the DMA engine reads
         * and writes directly, and transfers use it as their host pointer.
         * The mapped pointer need not be page-aligned (PoCL's is 128 bytes into a page), and a
         * copy whose source and destination differ in alignment runs measurably slower (8% on
         * PoCL), so one page more is allocated where it fits and the host pointer starts on a
         * page boundary, as cudaHostAlloc's does. */
        const size_t page = 4096;
        const size_t total =
            bytes + page <= d->pub.info.max_alloc ? (size_t)bytes + page : (size_t)bytes;
        b->mem =
            clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, total, NULL, &err);
        if (err != CL_SUCCESS) {
            rc = OCL_FAIL_AS(ocl__alloc_err(err), "clCreateBuffer", err);
            goto fail;
        }
        b->mapped = clEnqueueMapBuffer(d->iq, b->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, total,
                                       0, NULL, NULL, &err);
        if (err != CL_SUCCESS) {
            b->mapped = NULL;
            rc = OCL_FAIL_AS(ocl__alloc_err(err), "clEnqueueMapBuffer", err);
            goto fail;
        }
        uintptr_t at = (uintptr_t)b->mapped;
        if (total > bytes)
            at = (at + page - 1) / page * page;
        b->pub.host = (void *)at;
        /* On platforms where "pinned" is ordinary lazily-backed memory (CPU runtimes), touch
         * every page now so that first-touch faults never land in a timed transfer. */
        memset(b->mapped, 0, total);
        break;
    }
    case GB_MEM_HOST_PAGEABLE:
        if ((rc = gb_pageable_alloc(bytes, &b->pub.host)))
            goto fail;
        break;
    }
    *out = &b->pub;
    return 0;
fail:
    gb_error_append(rc, "allocating %" PRIu64 " bytes on %s", bytes, d->pub.info.name);
    gb__ocl_buf_free(&b->pub);
    return rc;
}

/* alloc_method (backend.h, gb_alloc_method): the OpenCL ways to get memory, each timed as a
 * user calls it, nothing touched. The stream-ordered CUDA methods have no OpenCL counterpart. */
int gb__ocl_alloc_method(struct gb_queue *q, enum gb_alloc_method m, uint64_t bytes,
                         struct gb_buf **out)
{
    struct ocl_device *d = gb__ocl_dev(q->dev);
    if (bytes == 0)
        return GB_FAIL(GB_EINVAL, "alloc_method: 0 bytes");
    switch (m) {
    case GB_ALLOC_DEVICE:
    case GB_ALLOC_SVM:
    case GB_ALLOC_PINNED:
    case GB_ALLOC_REGISTERED:
        break;
    case GB_ALLOC_ASYNC:
    case GB_ALLOC_ASYNC_KEEP:
        return GB_FAIL(GB_EUNSUPPORTED, "OpenCL has no stream-ordered allocator (a CUDA memory "
                                        "pool: cudaMallocAsync)");
    case GB_ALLOC_MANAGED:
        return GB_FAIL(GB_EUNSUPPORTED, "OpenCL has no managed memory (cudaMallocManaged); its "
                                        "counterpart is SVM (method svm)");
    default:
        return GB_FAIL(GB_EINVAL, "alloc_method: unknown method %d", (int)m);
    }
    if (m == GB_ALLOC_SVM && !d->svm_coarse)
        return GB_FAIL(GB_EUNSUPPORTED,
                       "the device offers no coarse-grained SVM buffers (CL_DEVICE_SVM_"
                       "CAPABILITIES%s)",
                       d->cl20 ? "" : "; the platform is older than OpenCL 2.0");
    if (bytes > d->pub.info.max_alloc)
        return GB_FAIL(GB_ETOOBIG,
                       "buffer of %" PRIu64 " bytes exceeds the device's largest allocation of "
                       "%" PRIu64 " bytes (CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                       bytes, d->pub.info.max_alloc);
    if (bytes > SIZE_MAX - 4096)
        return GB_FAIL(GB_ETOOBIG, "buffer of %" PRIu64 " bytes exceeds the host's size_t", bytes);
    struct ocl_buf *b = calloc(1, sizeof *b);
    if (!b)
        return GB_FAIL(GB_ENOMEM, "buffer handle");
    b->pub.dev = q->dev;
    b->pub.bytes = bytes;
    b->pub.kind =
        m == GB_ALLOC_PINNED || m == GB_ALLOC_REGISTERED ? GB_MEM_HOST_PINNED : GB_MEM_DEVICE;
    const size_t n = (size_t)bytes;
    int rc = 0;
    cl_int err = CL_SUCCESS;
    const char *call = "clCreateBuffer";
    switch (m) {
    case GB_ALLOC_DEVICE:
        b->mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, n, NULL, &err);
        break;
    case GB_ALLOC_SVM:
        b->svm = clSVMAlloc(d->ctx, CL_MEM_READ_WRITE, n, 0);
        if (!b->svm) {
            rc = GB_FAIL(GB_ENOMEM, "clSVMAlloc of %zu bytes returned NULL", n);
            goto fail;
        }
        b->mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n, b->svm, &err);
        break;
    case GB_ALLOC_PINNED:
        b->mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, n, NULL, &err);
        break;
    case GB_ALLOC_REGISTERED:
        /* Page-aligned and untouched, as memory a framework got from malloc and pins later. */
        b->user = aligned_alloc(4096, (n + 4095) / 4096 * 4096);
        if (!b->user) {
            rc = GB_FAIL(GB_ENOMEM, "aligned_alloc of %zu bytes", n);
            goto fail;
        }
        b->mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n, b->user, &err);
        break;
    default:
        break;
    }
    if (err != CL_SUCCESS) {
        b->mem = NULL;
        rc = OCL_FAIL_AS(ocl__alloc_err(err), call, err);
        goto fail;
    }
    if (b->pub.kind == GB_MEM_HOST_PINNED) {
        b->mapped = clEnqueueMapBuffer(d->iq, b->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, n, 0,
                                       NULL, NULL, &err);
        if (err != CL_SUCCESS) {
            b->mapped = NULL;
            rc = OCL_FAIL_AS(ocl__alloc_err(err), "clEnqueueMapBuffer", err);
            goto fail;
        }
        b->pub.host = b->mapped;
    }
    *out = &b->pub;
    return 0;
fail:
    gb_error_append(rc, "allocating %" PRIu64 " bytes on %s", bytes, d->pub.info.name);
    gb__ocl_buf_free(&b->pub);
    return rc;
}
