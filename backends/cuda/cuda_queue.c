/* gpubench — the CUDA backend's queues (non-blocking streams), transfers (copy, peer access and
 * peer_copy) and events (the timing members).
 */
#include "gb-config.h"

#include <pthread.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "backends/backend.h"
#include "cuda_libs.h"
#include "gb_cuda.h"

struct cu_event {
    struct gb_event pub;
    cudaEvent_t ev;
};

/* A non-blocking stream on dev: with the default priority when `prio` is NULL, else with
 * *prio (a value inside the device's range). */
static int cu__queue_new(struct gb_device *dev, const int *prio, struct gb_queue **out)
{
    struct gb__cuda_queue *q = calloc(1, sizeof *q);
    if (!q)
        return GB_FAIL(GB_ENOMEM, "queue_create");
    if (gb__cuda_is_lost(dev->index)) {
        /* A dead queue: each use fails in gb__cuda_use with the device's first sticky error, so the
         * cases after it say why, not "queue lost". */
        q->dead = true;
        q->pub.dev = dev;
        *out = &q->pub;
        return 0;
    }
    int rc = gb__cuda_use(dev);
    /* Non-blocking: no implicit synchronisation with the legacy default stream. */
    if (!rc && !prio)
        rc = CU(cudaStreamCreateWithFlags, &q->stream, cudaStreamNonBlocking);
    else if (!rc)
        rc = CU(cudaStreamCreateWithPriority, &q->stream, cudaStreamNonBlocking, *prio);
    if (rc) {
        free(q);
        return rc;
    }
    q->pub.dev = dev;
    *out = &q->pub;
    return 0;
}

int gb__cuda_queue_create(struct gb_device *dev, struct gb_queue **out)
{
    return cu__queue_new(dev, NULL, out);
}

/* queue_create_priority (backend.h): the end of the device's stream priority range that p
 * names. The range is asked each time (one cheap runtime call; queues are made in setup). A
 * lost device gets a dead queue, as from queue_create. */
int gb__cuda_queue_create_priority(struct gb_device *dev, enum gb_queue_priority p,
                                   struct gb_queue **out)
{
    if (p != GB_QUEUE_PRIORITY_LOW && p != GB_QUEUE_PRIORITY_HIGH)
        return GB_FAIL(GB_EINVAL, "queue_create_priority: unknown priority %d", (int)p);
    if (gb__cuda_is_lost(dev->index))
        return cu__queue_new(dev, NULL, out);
    int least = 0, greatest = 0;
    int rc = gb__cuda_use(dev);
    if (!rc)
        rc = CU(cudaDeviceGetStreamPriorityRange, &least, &greatest);
    if (rc)
        return rc;
    if (least == greatest)
        return GB_FAIL(GB_EUNSUPPORTED,
                       "the CUDA device has one stream priority (cudaDeviceGetStreamPriorityRange:"
                       " least = greatest = %d)",
                       least);
    const int prio = p == GB_QUEUE_PRIORITY_HIGH ? greatest : least;
    return cu__queue_new(dev, &prio, out);
}

void gb__cuda_queue_destroy(struct gb_queue *q)
{
    if (!q)
        return;
    if (!gb__cuda_queue(q)->dead && gb__cuda_use(q->dev) == 0) {
#if HAVE_CUBLAS
        /* The cuBLAS handle must not keep a destroyed stream as its own. */
        struct gb__cuda_device *d = gb__cuda_dev(q->dev);
        if (d->blas && gb_cuda_stream_cache_holds(&d->blas_stream, gb__cuda_queue(q)->stream)) {
            if (gb__bl.cublasSetStream_v2(d->blas, NULL) == CUBLAS_STATUS_SUCCESS)
                gb_cuda_stream_cache_told(&d->blas_stream, NULL);
            else
                d->blas_stream.valid = false;
        }
#endif
        (void)cudaStreamDestroy(gb__cuda_queue(q)->stream);
    }
    (void)cudaGetLastError();
    free(q);
}

int gb__cuda_queue_flush(struct gb_queue *q)
{
    /* Linux submits work at enqueue; cudaStreamQuery also pushes anything batched. */
    int rc = gb__cuda_use(q->dev);
    if (rc)
        return rc;
    cudaError_t e = cudaStreamQuery(gb__cuda_queue(q)->stream);
    if (e == cudaErrorNotReady) {
        (void)cudaGetLastError();
        return 0;
    }
    return gb__cuda_check(e, GB_EBACKEND, __FILE__, __LINE__, "cudaStreamQuery");
}

int gb__cuda_queue_sync(struct gb_queue *q)
{
    int rc = gb__cuda_use(q->dev);
    return rc ? rc : CU(cudaStreamSynchronize, gb__cuda_queue(q)->stream);
}

/* GB_EINVAL unless [off, off + bytes) lies inside buf. */
static int cu__range(const struct gb_buf *buf, uint64_t off, uint64_t bytes, const char *what)
{
    if (!buf)
        return GB_FAIL(GB_EINVAL, "%s: NULL buffer", what);
    if (off > buf->bytes || bytes > buf->bytes - off)
        return GB_FAIL(GB_EINVAL, "%s: range [%llu, +%llu) leaves a %llu-byte buffer", what,
                       (unsigned long long)off, (unsigned long long)bytes,
                       (unsigned long long)buf->bytes);
    return 0;
}

int gb__cuda_copy(struct gb_queue *q, struct gb_buf *dst, uint64_t dst_off, struct gb_buf *src,
                  uint64_t src_off, uint64_t bytes, enum gb_copy_flags flags)
{
    int rc;
    if ((rc = cu__range(dst, dst_off, bytes, "copy dst")) ||
        (rc = cu__range(src, src_off, bytes, "copy src")))
        return rc;
    const bool dhost = dst->kind != GB_MEM_DEVICE, shost = src->kind != GB_MEM_DEVICE;
    enum cudaMemcpyKind kind;
    if (dhost && shost)
        return GB_FAIL(GB_EINVAL, "copy: host to host");
    else if (shost)
        kind = cudaMemcpyHostToDevice;
    else if (dhost)
        kind = cudaMemcpyDeviceToHost;
    else
        kind = cudaMemcpyDeviceToDevice;
    if ((!dhost && !gb__cuda_same(dst->dev, q->dev)) ||
        (!shost && !gb__cuda_same(src->dev, q->dev)))
        return GB_FAIL(GB_EINVAL, "copy: a device buffer of another device (use peer_copy)");
    if (bytes == 0)
        return 0;
    if ((rc = gb__cuda_use(q->dev)))
        return rc;
    cudaStream_t s = gb__cuda_queue(q)->stream;
    char *d = (char *)gb__cuda_buf(dst)->ptr + dst_off;
    const char *sp = (const char *)gb__cuda_buf(src)->ptr + src_off;
    if ((rc = CU(cudaMemcpyAsync, d, sp, (size_t)bytes, kind, s)))
        return rc;
    if (flags & GB_COPY_BLOCKING)
        return CU(cudaStreamSynchronize, s);
    return 0;
}

/* Peer access is enabled once per ordered pair (dev may access peer), under a lock: different
 * threads drive different devices. */
static pthread_mutex_t cu__peer_lock = PTHREAD_MUTEX_INITIALIZER;
static bool cu__peer_on[GB__CUDA_MAX_DEV][GB__CUDA_MAX_DEV];

/* Whether dev can access peer directly; enables that access the first time it can. */
static int cu__peer_enable(int dev, int peer, bool *can_out)
{
    int can = 0;
    int rc = CU(cudaDeviceCanAccessPeer, &can, dev, peer);
    if (rc)
        return rc;
    *can_out = can != 0;
    if (!can || dev >= GB__CUDA_MAX_DEV || peer >= GB__CUDA_MAX_DEV)
        return 0;
    pthread_mutex_lock(&cu__peer_lock);
    if (!cu__peer_on[dev][peer]) {
        rc = gb__cuda_use_index(dev);
        if (!rc) {
            cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled)
                (void)cudaGetLastError();
            else
                rc = gb__cuda_check(e, GB_EBACKEND, __FILE__, __LINE__,
                                    "cudaDeviceEnablePeerAccess");
        }
        if (!rc)
            cu__peer_on[dev][peer] = true;
    }
    pthread_mutex_unlock(&cu__peer_lock);
    return rc;
}

/* Whether dev's access to peer's memory was enabled (cu__peer_enable said yes): a kernel on dev
 * may then take a buffer of peer as an argument and load from it over the peer link. */
bool gb__cuda_peer_is_on(int dev, int peer)
{
    if (dev < 0 || peer < 0 || dev >= GB__CUDA_MAX_DEV || peer >= GB__CUDA_MAX_DEV)
        return false;
    pthread_mutex_lock(&cu__peer_lock);
    bool on = cu__peer_on[dev][peer];
    pthread_mutex_unlock(&cu__peer_lock);
    return on;
}

int gb__cuda_peer_can_access(struct gb_device *dev, struct gb_device *peer, bool *out)
{
    if (dev == peer || dev->index == peer->index) {
        *out = true;
        return 0;
    }
    return cu__peer_enable(dev->index, peer->index, out);
}

int gb__cuda_peer_copy(struct gb_queue *q, struct gb_buf *dst, uint64_t dst_off, struct gb_buf *src,
                       uint64_t src_off, uint64_t bytes)
{
    int rc;
    if ((rc = cu__range(dst, dst_off, bytes, "peer_copy dst")) ||
        (rc = cu__range(src, src_off, bytes, "peer_copy src")))
        return rc;
    if (dst->kind != GB_MEM_DEVICE || src->kind != GB_MEM_DEVICE)
        return GB_FAIL(GB_EINVAL, "peer_copy: both buffers must be device buffers");
    if (!gb__cuda_same(q->dev, dst->dev) && !gb__cuda_same(q->dev, src->dev))
        return GB_FAIL(GB_EINVAL, "peer_copy: the queue belongs to neither device");
    if (bytes == 0)
        return 0;
    /* Enable direct access both ways where the hardware allows it, so the copy takes the P2P
     * path (NVLink / PCIe) rather than staging through the host. */
    bool can;
    if (dst->dev->index != src->dev->index &&
        ((rc = cu__peer_enable(dst->dev->index, src->dev->index, &can)) ||
         (rc = cu__peer_enable(src->dev->index, dst->dev->index, &can))))
        return rc;
    if ((rc = gb__cuda_use(q->dev)))
        return rc;
    return CU(cudaMemcpyPeerAsync, (char *)gb__cuda_buf(dst)->ptr + dst_off, dst->dev->index,
              (const char *)gb__cuda_buf(src)->ptr + src_off, src->dev->index, (size_t)bytes,
              gb__cuda_queue(q)->stream);
}

int gb__cuda_event_create(struct gb_device *dev, struct gb_event **out)
{
    struct cu_event *e = calloc(1, sizeof *e);
    if (!e)
        return GB_FAIL(GB_ENOMEM, "event_create");
    int rc = gb__cuda_use(dev);
    if (!rc)
        rc = CU(cudaEventCreate, &e->ev);
    if (rc) {
        free(e);
        return rc;
    }
    e->pub.dev = dev;
    *out = &e->pub;
    return 0;
}

void gb__cuda_event_free(struct gb_event *ev)
{
    if (!ev)
        return;
    if (gb__cuda_use(ev->dev) == 0)
        (void)cudaEventDestroy(((struct cu_event *)ev)->ev);
    (void)cudaGetLastError();
    free(ev);
}

int gb__cuda_event_record(struct gb_queue *q, struct gb_event *ev)
{
    if (!gb__cuda_same(ev->dev, q->dev))
        return GB_FAIL(GB_EINVAL, "event_record: the event belongs to another device");
    int rc = gb__cuda_use(q->dev);
    return rc ? rc : CU(cudaEventRecord, ((struct cu_event *)ev)->ev, gb__cuda_queue(q)->stream);
}

int gb__cuda_event_sync(struct gb_event *ev)
{
    int rc = gb__cuda_use(ev->dev);
    return rc ? rc : CU(cudaEventSynchronize, ((struct cu_event *)ev)->ev);
}

int gb__cuda_event_elapsed_ns(struct gb_event *start, struct gb_event *end, uint64_t *ns)
{
    if (!gb__cuda_same(start->dev, end->dev))
        return GB_FAIL(GB_EINVAL, "event_elapsed_ns: events of two devices");
    int rc = gb__cuda_use(start->dev);
    float ms = 0;
    if (rc || (rc = CU(cudaEventElapsedTime, &ms, ((struct cu_event *)start)->ev,
                       ((struct cu_event *)end)->ev)))
        return rc;
    /* cudaEventElapsedTime's resolution is about 0.5 us (CUDA runtime API reference). */
    if (!(ms >= 0))
        return GB_FAIL(GB_EIMPLAUSIBLE, "event_elapsed_ns: %g ms", (double)ms);
    *ns = (uint64_t)((double)ms * 1e6 + 0.5);
    return 0;
}
