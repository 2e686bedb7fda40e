/* gpubench — the CUDA backend's launch graphs (GB_CAP_GRAPH): CUDA Graphs by stream capture.
 *
 * graph_begin starts capturing the queue's stream (cudaStreamBeginCapture, thread-local mode:
 * only this thread's unsafe calls are refused while it captures, so other devices' threads run
 * on); the launches enqueued on it are recorded with their arguments as cudaLaunchKernel sees
 * them. graph_end ends the capture and instantiates the graph (cudaGraphInstantiate);
 * graph_launch replays it on the same stream (cudaGraphLaunch), which CUDA allows while earlier
 * replays are pending: they run in stream order. Every device of CUDA 10+ has them, so the
 * capability is set for every device (cu__query). */
#include "gb-config.h"

#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "backends/backend.h"
#include "cuda_libs.h"
#include "gb_cuda.h"

struct cu_graph {
    struct gb_graph pub;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
};

int gb__cuda_recording(struct gb_queue *q, bool recording, const char *msg)
{
    int rc = gb__cuda_use(q->dev);
    if (rc)
        return rc;
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    if ((rc = CU(cudaStreamIsCapturing, gb__cuda_queue(q)->stream, &st)))
        return rc;
    if ((st != cudaStreamCaptureStatusNone) != recording)
        return GB_FAIL(GB_EINVAL, "%s", msg);
    return 0;
}

int gb__cuda_graph_begin(struct gb_queue *q)
{
    int rc = gb__cuda_recording(q, false, "graph_begin: the queue is already recording");
    if (rc)
        return rc;
    return CU(cudaStreamBeginCapture, gb__cuda_queue(q)->stream, cudaStreamCaptureModeThreadLocal);
}

int gb__cuda_graph_end(struct gb_queue *q, struct gb_graph **out)
{
    int rc = gb__cuda_recording(q, true, "graph_end: the queue is not recording");
    if (rc)
        return rc;
    cudaGraph_t graph = NULL;
    /* An invalidated capture (a forbidden call while recording) fails here and ends it. */
    if ((rc = CU(cudaStreamEndCapture, gb__cuda_queue(q)->stream, &graph))) {
        if (graph)
            (void)cudaGraphDestroy(graph);
        return rc;
    }
    struct cu_graph *g = calloc(1, sizeof *g);
    if (!g) {
        (void)cudaGraphDestroy(graph);
        return GB_FAIL(GB_ENOMEM, "graph_end");
    }
    if ((rc = CU(cudaGraphInstantiate, &g->exec, graph, 0))) {
        (void)cudaGraphDestroy(graph);
        free(g);
        return rc;
    }
    g->graph = graph;
    g->pub.q = q;
    *out = &g->pub;
    return 0;
}

int gb__cuda_graph_launch(struct gb_queue *q, struct gb_graph *g)
{
    if (g->q != q)
        return GB_FAIL(GB_EINVAL, "graph_launch: the graph was recorded on another queue");
    int rc = gb__cuda_use(q->dev);
    return rc ? rc : CU(cudaGraphLaunch, ((struct cu_graph *)g)->exec, gb__cuda_queue(q)->stream);
}

void gb__cuda_graph_free(struct gb_graph *g)
{
    if (!g)
        return;
    struct cu_graph *cg = (struct cu_graph *)g;
    if (gb__cuda_use(g->q->dev) == 0) {
        (void)cudaGraphExecDestroy(cg->exec);
        (void)cudaGraphDestroy(cg->graph);
    }
    (void)cudaGetLastError();
    free(cg);
}
