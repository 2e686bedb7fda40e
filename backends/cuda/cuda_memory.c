/* gpubench — the CUDA backend's memory: buffers by kind (buf_alloc, buf_free) and the CUDA ways
 * to get memory (alloc_method: cudaMalloc, the stream-ordered pools, managed, pinned and
 * registered host memory) with their pools' high-water marks.
 */
#include "gb-config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "backends/backend.h"
#include "cuda_libs.h"
#include "gb_cuda.h"

int gb__cuda_buf_alloc(struct gb_device *dev, uint64_t bytes, enum gb_mem_kind kind,
                       struct gb_buf **out)
{
    if (bytes == 0)
        return GB_FAIL(GB_EINVAL, "buf_alloc: 0 bytes");
    if (kind != GB_MEM_DEVICE && kind != GB_MEM_HOST_PINNED && kind != GB_MEM_HOST_PAGEABLE)
        return GB_FAIL(GB_EINVAL, "buf_alloc: unknown memory kind %d", (int)kind);
    if (kind != GB_MEM_HOST_PAGEABLE && bytes > dev->info.max_alloc)
        return GB_FAIL(GB_ETOOBIG, "buf_alloc: %llu bytes exceed the device's %llu",
                       (unsigned long long)bytes, (unsigned long long)dev->info.max_alloc);
    if (bytes > SIZE_MAX)
        return GB_FAIL(GB_ETOOBIG, "buf_alloc: %llu bytes exceed the address space",
                       (unsigned long long)bytes);
    struct gb__cuda_buf *b = calloc(1, sizeof *b);
    if (!b)
        return GB_FAIL(GB_ENOMEM, "buf_alloc");
    int rc = 0;
    switch (kind) {
    case GB_MEM_DEVICE:
        if ((rc = gb__cuda_use(dev)) == 0)
            rc = CU_ERR(GB_ENOMEM, cudaMalloc, &b->ptr, (size_t)bytes);
        break;
    case GB_MEM_HOST_PINNED:
        /* Portable: pinned for every device's context, so the multi-device suite may copy a
         * host buffer to any device. */
        if ((rc = gb__cuda_use(dev)) == 0)
            rc = CU_ERR(GB_ENOMEM, cudaHostAlloc, &b->ptr, (size_t)bytes, cudaHostAllocPortable);
        b->pub.host = b->ptr;
        break;
    case GB_MEM_HOST_PAGEABLE:
        rc = gb_pageable_alloc(bytes, &b->ptr);
        b->pub.host = b->ptr;
        break;
    }
    if (rc) {
        free(b);
        return rc;
    }
    b->pub.dev = dev;
    b->pub.bytes = bytes;
    b->pub.kind = kind;
    *out = &b->pub;
    return 0;
}

void gb__cuda_buf_free(struct gb_buf *buf)
{
    if (!buf)
        return;
    struct gb__cuda_buf *b = gb__cuda_buf(buf);
    if (b->by_method) {
        if (gb__cuda_use(buf->dev) == 0) {
            switch (b->method) {
            case GB_ALLOC_ASYNC:
            case GB_ALLOC_ASYNC_KEEP:
                (void)cudaFreeAsync(b->ptr, b->stream);
                break;
            case GB_ALLOC_PINNED:
                (void)cudaFreeHost(b->ptr);
                break;
            case GB_ALLOC_REGISTERED:
                (void)cudaHostUnregister(b->ptr);
                break;
            default:
                (void)cudaFree(b->ptr);
                break;
            }
        }
        if (b->method == GB_ALLOC_REGISTERED)
            free(b->ptr);
        (void)cudaGetLastError();
        free(b);
        return;
    }
    switch (buf->kind) {
    case GB_MEM_DEVICE:
        if (gb__cuda_use(buf->dev) == 0)
            (void)cudaFree(b->ptr);
        break;
    case GB_MEM_HOST_PINNED:
        if (gb__cuda_use(buf->dev) == 0)
            (void)cudaFreeHost(b->ptr);
        break;
    case GB_MEM_HOST_PAGEABLE:
        free(b->ptr);
        break;
    }
    (void)cudaGetLastError();
    free(b);
}

/* The pool behind a stream-ordered method on d: the device's default pool, or gpubench's own
 * (made here at the first use, release threshold UINT64_MAX: what a free returns stays
 * reserved across synchronisations). The current device is d's. */
static int cu__method_pool(struct gb__cuda_device *d, enum gb_alloc_method m, cudaMemPool_t *out)
{
    int supported = 0;
    int rc = CU(cudaDeviceGetAttribute, &supported, cudaDevAttrMemoryPoolsSupported, d->pub.index);
    if (rc)
        return rc;
    if (!supported)
        return GB_FAIL(GB_EUNSUPPORTED, "the device or driver has no memory pools "
                                        "(cudaDevAttrMemoryPoolsSupported is 0)");
    if (m == GB_ALLOC_ASYNC)
        return CU(cudaDeviceGetDefaultMemPool, out, d->pub.index);
    if (!d->keep_pool) {
        struct cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d->pub.index;
        cudaMemPool_t pool;
        if ((rc = CU(cudaMemPoolCreate, &pool, &props)))
            return rc;
        uint64_t keep = UINT64_MAX;
        if ((rc = CU(cudaMemPoolSetAttribute, pool, cudaMemPoolAttrReleaseThreshold, &keep))) {
            (void)cudaMemPoolDestroy(pool);
            return rc;
        }
        d->keep_pool = pool;
    }
    *out = d->keep_pool;
    return 0;
}

/* alloc_method (backend.h, gb_alloc_method): the CUDA ways to get memory, nothing touched. */
int gb__cuda_alloc_method(struct gb_queue *q, enum gb_alloc_method m, uint64_t bytes,
                          struct gb_buf **out)
{
    struct gb__cuda_queue *cq = gb__cuda_queue(q);
    struct gb__cuda_device *d = gb__cuda_dev(q->dev);
    if (bytes == 0)
        return GB_FAIL(GB_EINVAL, "alloc_method: 0 bytes");
    if ((unsigned)m >= GB_ALLOC_NMETHODS)
        return GB_FAIL(GB_EINVAL, "alloc_method: unknown method %d", (int)m);
    if (m == GB_ALLOC_SVM)
        return GB_FAIL(GB_EUNSUPPORTED, "SVM is OpenCL's; CUDA's counterpart is managed memory "
                                        "(method managed)");
    const bool host = m == GB_ALLOC_PINNED || m == GB_ALLOC_REGISTERED;
    if (!host && bytes > d->pub.info.max_alloc)
        return GB_FAIL(GB_ETOOBIG, "alloc_method: %llu bytes exceed the device's %llu",
                       (unsigned long long)bytes, (unsigned long long)d->pub.info.max_alloc);
    if (bytes > SIZE_MAX - 4096)
        return GB_FAIL(GB_ETOOBIG, "alloc_method: %llu bytes exceed the address space",
                       (unsigned long long)bytes);
    if (cq->dead)
        return GB_FAIL(GB_EBACKEND, "alloc_method: the queue's device was lost");
    int rc = gb__cuda_use(q->dev);
    if (rc)
        return rc;
    struct gb__cuda_buf *b = calloc(1, sizeof *b);
    if (!b)
        return GB_FAIL(GB_ENOMEM, "alloc_method");
    const size_t n = (size_t)bytes;
    cudaMemPool_t pool;
    switch (m) {
    case GB_ALLOC_DEVICE:
        rc = CU_ERR(GB_ENOMEM, cudaMalloc, &b->ptr, n);
        break;
    case GB_ALLOC_ASYNC:
    case GB_ALLOC_ASYNC_KEEP:
        if ((rc = cu__method_pool(d, m, &pool)) == 0)
            rc = CU_ERR(GB_ENOMEM, cudaMallocFromPoolAsync, &b->ptr, n, pool, cq->stream);
        b->stream = cq->stream;
        break;
    case GB_ALLOC_MANAGED:
        rc = CU_ERR(GB_ENOMEM, cudaMallocManaged, &b->ptr, n, cudaMemAttachGlobal);
        break;
    case GB_ALLOC_PINNED:
        rc = CU_ERR(GB_ENOMEM, cudaHostAlloc, &b->ptr, n, cudaHostAllocPortable);
        break;
    case GB_ALLOC_REGISTERED:
        /* Page-aligned and untouched, as memory a framework got from malloc and pins later. */
        b->ptr = aligned_alloc(4096, (n + 4095) / 4096 * 4096);
        if (!b->ptr)
            rc = GB_FAIL(GB_ENOMEM, "aligned_alloc of %zu bytes", n);
        else if ((rc = CU_ERR(GB_ENOMEM, cudaHostRegister, b->ptr, n, cudaHostRegisterPortable))) {
            free(b->ptr);
            b->ptr = NULL;
        }
        break;
    default:
        break;
    }
    if (rc) {
        (void)cudaGetLastError();
        free(b);
        return rc;
    }
    b->by_method = true;
    b->method = m;
    b->pub.dev = q->dev;
    b->pub.bytes = bytes;
    b->pub.kind = host ? GB_MEM_HOST_PINNED : GB_MEM_DEVICE;
    b->pub.host = host ? b->ptr : NULL;
    *out = &b->pub;
    return 0;
}

/* alloc_pool_stats (backend.h): the high-water marks of the pool behind m, then a reset (a
 * high-water mark is reset by setting it to 0, which sets it to the current value). */
int gb__cuda_alloc_pool_stats(struct gb_queue *q, enum gb_alloc_method m, bool reset,
                              struct gb_pool_stats *out)
{
    if (m != GB_ALLOC_ASYNC && m != GB_ALLOC_ASYNC_KEEP)
        return GB_FAIL(GB_EUNSUPPORTED, "alloc_pool_stats: method %d has no pool", (int)m);
    int rc = gb__cuda_use(q->dev);
    cudaMemPool_t pool;
    if (rc || (rc = cu__method_pool(gb__cuda_dev(q->dev), m, &pool)))
        return rc;
    uint64_t reserved = 0, used = 0, zero = 0;
    if ((rc = CU(cudaMemPoolGetAttribute, pool, cudaMemPoolAttrReservedMemHigh, &reserved)) ||
        (rc = CU(cudaMemPoolGetAttribute, pool, cudaMemPoolAttrUsedMemHigh, &used)))
        return rc;
    if (reset && ((rc = CU(cudaMemPoolSetAttribute, pool, cudaMemPoolAttrReservedMemHigh, &zero)) ||
                  (rc = CU(cudaMemPoolSetAttribute, pool, cudaMemPoolAttrUsedMemHigh, &zero))))
        return rc;
    out->reserved_high = reserved;
    out->used_high = used;
    return 0;
}

/* The free and total memory of dev's context (cudaMemGetInfo, the runtime's form of the driver's
 * cuMemGetInfo: what the whole device has free now, other processes' allocations left out). */
int gb__cuda_mem_info(struct gb_device *dev, uint64_t *free_bytes, uint64_t *total_bytes,
                      const char **source)
{
    *free_bytes = *total_bytes = 0;
    *source = "cudaMemGetInfo";
    size_t f = 0, t = 0;
    int rc = gb__cuda_use(dev);
    if (rc || (rc = CU(cudaMemGetInfo, &f, &t)))
        return rc;
    *free_bytes = f;
    *total_bytes = t;
    return 0;
}
