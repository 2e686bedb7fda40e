/* gpubench — the CUDA backend's programs, kernels and launches.
 *
 * The image NVRTC made (cuda_compile.c) is loaded with cudaLibraryLoadData (runtime API, CUDA
 * 12+: context-independent "libraries"), and kernels are cudaKernel_t handles, which
 * cudaLaunchKernel and cudaFuncGetAttributes accept cast to const void *. So no driver-API call
 * and no libcuda link is needed.
 */
#include "gb-config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "backends/backend.h"
#include "cuda_libs.h"
#include "gb_cuda.h"

struct cu_program {
    struct gb_program pub;
    cudaLibrary_t lib;
};

#define CU__PARAMS_UNKNOWN UINT32_MAX
struct cu_kernel {
    struct gb_kernel pub;
    cudaKernel_t k;
    char name[128];
    uint32_t max_wg;                /* maxThreadsPerBlock of this kernel on its device */
    uint32_t nparams;               /* CU__PARAMS_UNKNOWN when the runtime cannot say */
    size_t param_size[GB_MAX_ARGS]; /* bytes of each parameter */
};

int gb__cuda_program_build(struct gb_device *dev, const char *source, const char *const *defines,
                           size_t ndefines, struct gb_program **out, char **log)
{
    struct gb__cuda_device *d = gb__cuda_dev(dev);
    char arch[32];
    bool cubin;
    if (log)
        *log = NULL;
    int rc = gb_cuda_pick_arch(d->cc_major, d->cc_minor, arch, sizeof arch, &cubin);
    if (rc)
        return rc;
    char *image = NULL;
    if ((rc = gb_cuda_compile(source, arch, defines, ndefines, &image, NULL, log)))
        return rc;
    struct cu_program *p = calloc(1, sizeof *p);
    if (!p) {
        free(image);
        return GB_FAIL(GB_ENOMEM, "program_build");
    }
    /* A library is context-independent; loading it into this device's context happens here
     * or at the first use (CUDA_MODULE_LOADING=LAZY, the default), i.e. in kernel_get. */
    if (!(rc = gb__cuda_use(dev)))
        rc = CU(cudaLibraryLoadData, &p->lib, image, NULL, NULL, 0, NULL, NULL, 0);
    free(image);
    if (rc) {
        free(p);
        return rc;
    }
    p->pub.dev = dev;
    *out = &p->pub;
    return 0;
}

void gb__cuda_program_free(struct gb_program *prog)
{
    if (!prog)
        return;
    if (gb__cuda_use(prog->dev) == 0)
        (void)cudaLibraryUnload(((struct cu_program *)prog)->lib);
    (void)cudaGetLastError();
    free(prog);
}

int gb__cuda_kernel_get(struct gb_program *prog, const char *name, struct gb_kernel **out)
{
    struct cu_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return GB_FAIL(GB_ENOMEM, "kernel_get");
    int rc = gb__cuda_use(prog->dev);
    if (rc)
        goto fail;
    cudaError_t e = cudaLibraryGetKernel(&k->k, ((struct cu_program *)prog)->lib, name);
    if (e == cudaErrorSymbolNotFound) {
        (void)cudaGetLastError();
        rc = GB_FAIL(GB_EINVAL, "kernel_get: no kernel \"%s\" in the program", name);
        goto fail;
    }
    if ((rc = gb__cuda_check(e, GB_EBACKEND, __FILE__, __LINE__, "cudaLibraryGetKernel")))
        goto fail;
    /* This loads the code into the device's context (lazy loading), outside timed regions. */
    struct cudaFuncAttributes fa;
    if ((rc = CU(cudaFuncGetAttributes, &fa, (const void *)k->k)))
        goto fail;
    k->max_wg = fa.maxThreadsPerBlock > 0 ? (uint32_t)fa.maxThreadsPerBlock : 0;
    /* The parameter sizes, so that launch can refuse a wrongly sized argument rather than
     * launch with garbage (OpenCL's clSetKernelArg checks sizes too). */
    k->nparams = CU__PARAMS_UNKNOWN;
    for (uint32_t i = 0; i <= GB_MAX_ARGS; i++) {
        size_t off = 0, sz = 0;
        e = cudaFuncGetParamInfo((const void *)k->k, i, &off, &sz);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            if (e == cudaErrorInvalidValue)
                k->nparams = i; /* past the last parameter */
            break;
        }
        if (i == GB_MAX_ARGS) {
            rc = GB_FAIL(GB_EUNSUPPORTED, "kernel %s takes more than %d arguments", name,
                         GB_MAX_ARGS);
            goto fail;
        }
        k->param_size[i] = sz;
    }
    snprintf(k->name, sizeof k->name, "%s", name);
    k->pub.prog = prog;
    *out = &k->pub;
    return 0;
fail:
    free(k);
    return rc;
}

void gb__cuda_kernel_free(struct gb_kernel *k)
{
    free(k); /* a cudaKernel_t lives as long as its library */
}

int gb__cuda_kernel_max_wg(struct gb_kernel *k, uint32_t *out)
{
    *out = ((struct cu_kernel *)k)->max_wg;
    return 0;
}

static size_t cu__arg_size(enum gb_arg_kind kind)
{
    switch (kind) {
    case GB_ARG_BUF:
        return sizeof(void *);
    case GB_ARG_I32:
    case GB_ARG_U32:
    case GB_ARG_F32:
        return 4;
    case GB_ARG_I64:
    case GB_ARG_U64:
    case GB_ARG_F64:
        return 8;
    }
    return 0;
}

int gb__cuda_launch(struct gb_queue *q, struct gb_kernel *kern, const struct gb_launch *l)
{
    struct cu_kernel *k = (struct cu_kernel *)kern;
    struct gb__cuda_device *d = gb__cuda_dev(q->dev);
    if (!gb__cuda_same(kern->prog->dev, q->dev))
        return GB_FAIL(GB_EINVAL, "launch: kernel %s was built for another device", k->name);
    int rc = gb_launch_check(l, &d->pub.info, k->max_wg, k->name);
    if (rc)
        return rc;
    /* The grid limit is CUDA's own: OpenCL has no bound on work-groups per dimension. */
    uint32_t grid[3], block[3];
    for (uint32_t i = 0; i < 3; i++) {
        const uint64_t g = i < l->dims ? l->global[i] : 1;
        const uint32_t b = i < l->dims ? l->local[i] : 1;
        if (g / b > d->max_grid[i])
            return GB_FAIL(GB_EINVAL,
                           "launch %s: %llu blocks in dimension %u, the device "
                           "allows %u",
                           k->name, (unsigned long long)(g / b), i, d->max_grid[i]);
        grid[i] = (uint32_t)(g / b);
        block[i] = b;
    }
    if (l->nargs > GB_MAX_ARGS)
        return GB_FAIL(GB_EINVAL, "launch %s: %u arguments", k->name, l->nargs);
    if (k->nparams != CU__PARAMS_UNKNOWN && l->nargs != k->nparams)
        return GB_FAIL(GB_EINVAL, "launch %s: %u arguments given, the kernel takes %u", k->name,
                       l->nargs, k->nparams);

    /* cudaLaunchKernel takes an array of pointers to the argument values. */
    struct gb_arg vals[GB_MAX_ARGS];
    void *devptr[GB_MAX_ARGS];
    void *params[GB_MAX_ARGS];
    for (uint32_t i = 0; i < l->nargs; i++) {
        const struct gb_arg *a = &l->args[i];
        const size_t sz = cu__arg_size(a->kind);
        if (sz == 0)
            return GB_FAIL(GB_EINVAL, "launch %s: argument %u of unknown kind", k->name, i);
        if (k->nparams != CU__PARAMS_UNKNOWN && sz != k->param_size[i])
            return GB_FAIL(GB_EINVAL,
                           "launch %s: argument %u has %zu bytes, the kernel's "
                           "parameter %zu",
                           k->name, i, sz, k->param_size[i]);
        if (a->kind == GB_ARG_BUF) {
            const struct gb_buf *b = a->v.buf;
            /* A peer's buffer once peer_can_access (or peer_copy) enabled the access: the
             * kernel reads it across the link (peerbw's SM copy). */
            if (!b || b->kind != GB_MEM_DEVICE ||
                (!gb__cuda_same(b->dev, q->dev) &&
                 !gb__cuda_peer_is_on(q->dev->index, b->dev->index)))
                return GB_FAIL(GB_EINVAL,
                               "launch %s: argument %u is not a device buffer of "
                               "this device or of a peer it has access to",
                               k->name, i);
            devptr[i] = ((const struct gb__cuda_buf *)b)->ptr;
            params[i] = &devptr[i];
        } else {
            vals[i] = *a;
            params[i] = &vals[i].v; /* every union member starts at the union's address */
        }
    }
    if ((rc = gb__cuda_use(q->dev)))
        return rc;
    dim3 g = {grid[0], grid[1], grid[2]}, b = {block[0], block[1], block[2]};
    return CU(cudaLaunchKernel, (const void *)k->k, g, b, l->nargs ? params : NULL, 0,
              gb__cuda_queue(q)->stream);
}

/* A pair of events around the launch on its stream (CUDA has no queued timestamp): both fields
 * are the pair's elapsed time, at cudaEventElapsedTime's resolution of about 0.5 us. */
int gb__cuda_launch_timed(struct gb_queue *q, struct gb_kernel *k, const struct gb_launch *l,
                          struct gb_launch_times *out)
{
    int rc = gb__cuda_recording(q, false, "launch_timed: the queue is recording a graph");
    if (rc)
        return rc;
    struct gb_event *e0 = NULL, *e1 = NULL;
    uint64_t ns = 0;
    if (!(rc = gb__cuda_event_create(q->dev, &e0)) && !(rc = gb__cuda_event_create(q->dev, &e1)) &&
        !(rc = gb__cuda_event_record(q, e0)) && !(rc = gb__cuda_launch(q, k, l)) &&
        !(rc = gb__cuda_event_record(q, e1)) && !(rc = gb__cuda_event_sync(e1)))
        rc = gb__cuda_event_elapsed_ns(e0, e1, &ns);
    gb__cuda_event_free(e0);
    gb__cuda_event_free(e1);
    if (rc)
        return rc;
    out->queued_to_end_ns = out->start_to_end_ns = ns;
    return 0;
}
