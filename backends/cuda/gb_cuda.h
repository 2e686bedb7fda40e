/* gpubench — what the CUDA backend exposes beside its vtable (gb_cuda_ops).
 *
 * The NVRTC step is public so that the tests compile every kernel variant the suites use through
 * the very code path program_build takes, on a machine with the toolkit but no GPU (CI).
 *
 * (Named gb_cuda.h, not cuda.h: the toolkit's driver-API header is called cuda.h and sits on
 * the include path.)
 */
#ifndef GB_CUDA_H
#define GB_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "backends/backend.h"

extern const struct gb_backend_ops gb_cuda_ops;

/* ---- run-time libraries (cuda_libs.c) --------------------------------------------------------
 *
 * Neither NVRTC nor cuBLAS is linked: both are dlopened, so gpubench starts (and OpenCL runs)
 * where they are missing. Each is looked for in this order, the first that loads wins:
 *   1. $GPUBENCH_NVRTC / $GPUBENCH_CUBLAS: a file, or a folder holding libnvrtc.so.<major> /
 *      libcublas.so.<major>. When set, it is the only place tried (so a wrong value is an error,
 *      not a silent fallback).
 *   2. the CUDA toolkit's lib folder found at build time (GB_CUDA_LIBDIR);
 *   3. pip's wheels: nvidia/cu13/lib (CUDA 13 wheels), nvidia/cuda_nvrtc/lib and
 *      nvidia/cublas/lib (older layout) under the site-packages of $VIRTUAL_ENV, $CONDA_PREFIX,
 *      /opt/x/.venv (the GPU image's python), /opt/conda, /usr/local/lib/python3.x,
 *      /usr/lib/python3 and ~/.local;
 *   4. the loader's own search for the soname (LD_LIBRARY_PATH, ld.so.cache, system folders).
 * cuBLASLt (FP8 GEMM) is found the same way ($GPUBENCH_CUBLASLT, pip's nvidia/cu13/lib and
 * nvidia/cublas/lib), libcublasLt.so.<major> first, then libcublasLt.so.12.
 * NVRTC dlopens its builtins library (libnvrtc-builtins.so.<major>.<minor>) by soname, which
 * neither gpubench's run-path nor a pip folder reaches: it is preloaded from NVRTC's own folder,
 * so that NVRTC's own dlopen finds it among the loaded objects.
 * The headers NVRTC includes (cuda_fp16.h/.hpp, cuda_bf16.h/.hpp) come from the first folder
 * holding all four of: $GPUBENCH_CUDA_INCLUDE (when set, the only one), the include/ beside
 * NVRTC's lib folder, the toolkit's include folder of the build, pip's nvidia/cu13/include and
 * nvidia/cuda_runtime/include, and the include/ beside the binary's folder (a bundle made by
 * scripts/gpu-check.sh --make-bundle carries them there).
 * cuBLAS is loaded by the first GEMM, not by `devices` or a run without BLAS cases; the BLAS
 * capability bits say that its file was found ("loaded on first use"). */

/* One place to look for a library file. */
struct gb_cuda_candidate {
    char path[1024];
    char how[96]; /* "$GPUBENCH_NVRTC", "the toolkit lib folder of the build", ... */
};

/* Fills out[0..cap) with the places to look for `file` (a soname such as "libnvrtc.so.13"), in
 * the order above: the value of the environment variable `env` alone when it is set and not
 * empty (a folder gets "/file" appended); else build_dir/file, then every existing
 * ROOT/SUB/file for pip's site-packages roots and each SUB of the NULL-terminated pip_subdirs,
 * then, when loader_default, the bare `file` (the loader's search). Returns the count (at most
 * cap). Pure but for getenv and glob(3): the tests check the order. */
size_t gb_cuda_lib_candidates(const char *file, const char *env, const char *build_dir,
                              const char *const *pip_subdirs, bool loader_default,
                              struct gb_cuda_candidate *out, size_t cap);

/* Writes the CUDA version chain to f, one "cuda: WHAT: ..." line each: the runtime linked in,
 * the driver (cudaDriverGetVersion), NVRTC (version, file, how found), its builtins library
 * (preloaded or not, and the file in use after a test compile), the header folder, a test
 * compile of a kernel using cuda_fp16.h and cuda_bf16.h for sm_90, and cuBLAS (loaded for the
 * report: version and file). What `GPUBENCH_CUDA_REPORT=1 gpubench devices` prints on stderr
 * and scripts/gpu-check.sh reads. Needs no GPU. The test compile goes through `pick_arch` and
 * `compile` (gb_cuda_pick_arch and gb_cuda_compile, handed down by the backend, which owns the
 * compiler: the library loader calls no higher file). */
typedef int (*gb_cuda_pick_arch_fn)(int major, int minor, char *arch, size_t cap, bool *cubin);
typedef int (*gb_cuda_compile_fn)(const char *src, const char *arch, const char *const *defines,
                                  size_t ndefines, char **image, size_t *size, char **log);
void gb_cuda_report(FILE *f, gb_cuda_pick_arch_fn pick_arch, gb_cuda_compile_fn compile);

/* ---- rules the CPU can check ----------------------------------------------------------------- */

/* Whether the CUDA runtime error `e` (a cudaError_t) is sticky: one that the runtime's
 * documentation says "leaves the process in an inconsistent state and any further CUDA work
 * will return the same error" (driver_types.h, CUDA 13.0): cudaErrorIllegalAddress,
 * LaunchTimeout, Assert, HardwareStackError, IllegalInstruction, MisalignedAddress,
 * InvalidAddressSpace, InvalidPc, LaunchFailure, TensorMemoryLeak, Contained,
 * MpsClientTerminated, ExternalDevice. */
bool gb_cuda_error_is_sticky(int e);

/* Notes the CUDA error `e` seen on device `index` (0 <= index < 64), described by `text`: when
 * e is sticky and the device is not lost yet, the device becomes lost and `text` its reason (the
 * first sticky error is the one kept). Returns whether the device is lost. Thread-safe. From
 * then on every member of gb_cuda_ops that touches the device fails with GB_EBACKEND and that
 * reason, except queue_create, which returns a queue whose every use fails so (the runner then
 * records each later case on the device as failed with the first error, not as "queue lost");
 * the context is not reset: cudaDeviceReset would free what open handles still point to. */
bool gb_cuda_note_error(int index, int e, const char *text);

/* The reason device `index` is lost (the first sticky error), or NULL while it is usable. */
const char *gb_cuda_lost_reason(int index);

/* The capability bits of a CUDA device of compute capability major.minor: FP64 always; FP16
 * from 5.3; INT8_DOT (dp4a) from 6.1; BF16 from 8.0; UNIFIED for an integrated GPU; PEER when
 * another device is reachable; with `blas` (cuBLAS found): BLAS_F32 and BLAS_F64, BLAS_F16 and
 * BLAS_MIXED from 5.3, BLAS_BF16 and BLAS_TF32 from 8.0; BLAS_FP8 from 8.9 with or without
 * `blas` (the FP8 tensor cores: cuBLASLt loads at the first FP8 GEMM); GRAPH always. */
uint64_t gb_cuda_caps(int major, int minor, bool integrated, bool peer, bool blas);

/* GB_EUNSUPPORTED for the cuBLAS statuses that mean "this library or device cannot do that"
 * (CUBLAS_STATUS_NOT_SUPPORTED, CUBLAS_STATUS_ARCH_MISMATCH: a recorded skip), GB_EBACKEND for
 * every other failure, 0 for CUBLAS_STATUS_SUCCESS. */
int gb_cuda_blas_status_err(int status);

/* Which stream a cuBLAS handle was last given. cublasSetStream resets the handle's workspace
 * (cuBLAS documentation, cublasSetStream), so it is called only when the stream changes, never
 * on every GEMM inside a timed loop. */
struct gb_cuda_stream_cache {
    const void *stream; /* the cudaStream_t last given */
    bool valid;         /* false: none given yet (or forgotten) */
};

/* Whether the handle must be given `stream` before a call on it: no stream given yet, or
 * another. After a successful cublasSetStream call gb_cuda_stream_cache_told(). */
bool gb_cuda_stream_cache_needs(const struct gb_cuda_stream_cache *c, const void *stream);
void gb_cuda_stream_cache_told(struct gb_cuda_stream_cache *c, const void *stream);
/* Whether the handle holds `stream`: called before that stream is destroyed, so the handle can
 * be given another (NULL) first. */
bool gb_cuda_stream_cache_holds(const struct gb_cuda_stream_cache *c, const void *stream);

/* ---- NCCL (cuda_nccl.c; loaded by cuda_libs.c) -------------------------------------------------
 *
 * NCCL is dlopened by the first communicator (comm_init, comm_unique_id, comm_init_rank), never
 * linked: libnccl.so.2, then libnccl.so, in cuBLAS's order with $GPUBENCH_NCCL and pip's
 * nvidia/nccl/lib. The values below are nccl.h's (NCCL 2.x), declared here so that the build
 * needs no nccl.h; tests/test_cuda.c compares them with the header where it exists. */
enum gb_cuda_nccl_abi {
    GB_CUDA_NCCL_ID_BYTES = 128,     /* NCCL_UNIQUE_ID_BYTES: sizeof(ncclUniqueId) */
    GB_CUDA_NCCL_SUCCESS = 0,        /* ncclSuccess */
    GB_CUDA_NCCL_INT32 = 2,          /* ncclInt32 */
    GB_CUDA_NCCL_FLOAT16 = 6,        /* ncclFloat16 */
    GB_CUDA_NCCL_FLOAT32 = 7,        /* ncclFloat32 */
    GB_CUDA_NCCL_BFLOAT16 = 9,       /* ncclBfloat16, NCCL 2.10 on */
    GB_CUDA_NCCL_SUM = 0,            /* ncclSum */
    GB_CUDA_NCCL_MAX = 2,            /* ncclMax */
    GB_CUDA_NCCL_BF16_SINCE = 21000, /* NCCL_VERSION(2, 10, 0): the first with ncclBfloat16 */
};

/* NCCL's data type for `t` into *out: GB_F32 ncclFloat32, GB_F16 ncclFloat16, GB_I32
 * ncclInt32, GB_BF16 ncclBfloat16 where `version` (ncclGetVersion's code) is at least 2.10.0.
 * 0, or GB_EUNSUPPORTED with the type (and, for bf16, the version) in the detail. Pure. */
int gb_cuda_nccl_dtype(enum gb_dtype t, int version, int *out);

/* NCCL's reduction for `op` into *out (ncclSum, ncclMax): 0 or GB_EUNSUPPORTED. Pure. */
int gb_cuda_nccl_redop(enum gb_coll_redop op, int *out);

/* "2.28.9" for ncclGetVersion's code: X * 10000 + Y * 100 + Z from NCCL 2.9 (22809), X * 1000 +
 * Y * 100 + Z before (2804 for 2.8.4). */
void gb_cuda_nccl_version_text(int code, char *out, size_t cap);

/* What one rank of a communicator of `nranks` passes to NCCL for the collective `c` (its count
 * as struct gb_coll defines it, nccl-tests' count), in elements of c->dtype:
 *   count       the count argument of each NCCL call (all-gather: its sendcount, count/n;
 *               reduce-scatter: its recvcount, count/n; all-to-all: each send and receive,
 *               count/n; the others: count);
 *   send_off, send_len   where the rank's send data starts in its send buffer, and how much of
 *               it the collective reads (all-to-all: peer p's part is at send_off + p x count/n);
 *   recv_off, recv_len   likewise for the receive buffer.
 * In place (`in_place`: the rank's send and receive buffers are one): all-gather sends from
 * the receive buffer at rank x count/n; reduce-scatter receives into the send buffer at rank x
 * count/n; the others use the buffer from 0. All-to-all and send/recv in place are
 * GB_EUNSUPPORTED (the grouped sends would read what the receives overwrite). GB_EINVAL for a
 * count of 0, a count that is not a multiple of nranks where the collective divides it, a root
 * outside [0, nranks), a rank outside [0, nranks) or nranks < 1. Pure. */
struct gb_cuda_coll_span {
    uint64_t count;
    uint64_t send_off, send_len;
    uint64_t recv_off, recv_len;
};
int gb_cuda_coll_span(const struct gb_coll *c, int nranks, int rank, bool in_place,
                      struct gb_cuda_coll_span *out);

/* Compiles the kernel text `src` (prelude included, as gb_kernel_source() makes it) with NVRTC
 * for `arch`: "compute_XY" yields PTX, "sm_XY" yields a CUBIN (ELF). `defines` are
 * "NAME=VALUE" or "NAME" (passed as -DNAME=VALUE). Options besides the defines:
 * --gpu-architecture=<arch> -default-device -std=c++17 -I<the header folder> (found as above;
 * no -I when no folder holds the headers, and the message then says where it looked).
 * On success *image is the malloc'd output (PTX is NUL-terminated; a CUBIN is *size bytes) and
 * *log is NULL. GB_EBUILD when the compilation fails; GB_EBACKEND for another NVRTC failure
 * (NVRTC_ERROR_BUILTIN_OPERATION_FAILURE: its builtins library did not load); either way *log
 * (if log is non-NULL) receives NVRTC's log, malloc'd, and the error detail holds its first
 * error line and the log itself (up to 2000 bytes). GB_EUNAVAIL when NVRTC is not loaded (the
 * detail says where it looked), GB_EINVAL for a malformed arch, GB_ENOMEM. Needs no driver and
 * no GPU; thread-safe. */
int gb_cuda_compile(const char *src, const char *arch, const char *const *defines, size_t ndefines,
                    char **image, size_t *size, char **log);

/* gb_cuda_compile() for a "compute_XY" (or "sm_XY") target, returning the PTX text. */
int gb_cuda_compile_ptx(const char *src, const char *arch, const char *const *defines,
                        size_t ndefines, char **ptx, char **log);

/* The NVRTC target for a device of compute capability major.minor: the device's own "sm_XY"
 * (CUBIN, *cubin = true) when this NVRTC supports it, else "compute_XY" of the newest
 * architecture NVRTC supports below the device's (PTX, *cubin = false; the driver JIT-compiles
 * it at load time). GB_EUNSUPPORTED when the device is older than anything NVRTC supports,
 * GB_EUNAVAIL when NVRTC is not loaded. */
int gb_cuda_pick_arch(int major, int minor, char *arch, size_t cap, bool *cubin);

/* Theoretical device-memory bandwidth in GB/s (1e9 B/s) from the memory clock in kHz and the
 * bus width in bits, as cudaDevAttrMemoryClockRate and cudaDevAttrGlobalMemoryBusWidth report
 * them: 2 * clock * bus / 8. The factor 2 is double data rate: the runtime reports the memory
 * clock such that two transfers happen per cycle (the formula of NVIDIA's bandwidthTest and
 * "How to Implement Performance Metrics in CUDA C/C++", NVIDIA developer blog, 2012). An H200
 * (3201 MHz, 6144 bits) gives 4917 GB/s against 4800 on its datasheet. 0 if either is 0. */
double gb_cuda_peak_mem_gbs(uint64_t mem_clock_khz, uint64_t bus_bits);

/* IEEE binary16 bits of `f`, rounded to nearest even (overflow to infinity, NaN kept): the
 * alpha/beta of an F16-compute GEMM. */
uint16_t gb_cuda_f16_bits(float f);

#endif
