/* gpubench — the CUDA backend's run-time libraries: NVRTC (and its builtins library), the
 * fp16/bf16 headers NVRTC includes, cuBLAS, cuBLASLt, cuDNN, cuSPARSE and NCCL. gb_cuda.h
 * documents the search order; backends/cuda/meson.build why nothing of this is linked.
 *
 * Each library is a table (struct lib_spec: its sonames in the order tried, where to look, each
 * entry point's name and the slot its address goes to, required or optional) that one function,
 * lib_load, dlopens and resolves, once per process, at the library's first use.
 *
 * Why dlopen for NVRTC too: libnvrtc.so.13 is 105 MiB and not on every machine with a driver;
 * linked, gpubench would not start without it, OpenCL included. Why the builtins preload:
 * NVRTC dlopens libnvrtc-builtins.so.<major>.<minor> by soname from its own code, so neither
 * gpubench's run-path nor the folder NVRTC came from is searched (libnvrtc.so has no run-path),
 * and compiles fail with NVRTC_ERROR_BUILTIN_OPERATION_FAILURE where that folder is not in the
 * loader cache. glibc's dlopen of a bare soname first matches the sonames of the objects already
 * loaded, so loading the file by its full path beforehand is enough.
 */
#include "gb-config.h"

#include <dlfcn.h>
#include <glob.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "backends/backend.h"
#include "cuda_libs.h"
#include "gb_cuda.h"

#ifndef GB_CUDA_INCLUDE
#define GB_CUDA_INCLUDE "/usr/local/cuda/include"
#endif
#ifndef GB_CUDA_LIBDIR
#define GB_CUDA_LIBDIR "/usr/local/cuda/lib64"
#endif

#define CL__MAXCAND 24

/* site-packages folders of the pythons pip may have put NVIDIA's wheels in; "$VAR" at the start
 * is replaced by that variable's value (the pattern is skipped when it is unset). */
static const char *const pip_roots[] = {
    "$VIRTUAL_ENV/lib/python3*/site-packages", "$CONDA_PREFIX/lib/python3*/site-packages",
    "/opt/*/.venv/lib/python3*/site-packages", "/opt/conda/lib/python3*/site-packages",
    "/usr/local/lib/python3*/dist-packages",   "/usr/local/lib/python3*/site-packages",
    "/usr/lib/python3/dist-packages",          "$HOME/.local/lib/python3*/site-packages",
};

static const char *const HOW_BUILD = "the toolkit lib folder of the build";
static const char *const HOW_PIP = "a pip wheel";
static const char *const HOW_LOADER = "the loader's search (LD_LIBRARY_PATH, ld.so.cache, system "
                                      "folders)";

/* Expands a leading "$VAR" of pattern into out; false when VAR is unset or empty. */
static bool expand_var(const char *pattern, char *out, size_t cap)
{
    if (pattern[0] != '$')
        return (size_t)snprintf(out, cap, "%s", pattern) < cap;
    const size_t n = strcspn(pattern + 1, "/");
    char name[64];
    if (n == 0 || n >= sizeof name)
        return false;
    memcpy(name, pattern + 1, n);
    name[n] = '\0';
    const char *v = getenv(name);
    if (!v || !*v)
        return false;
    return (size_t)snprintf(out, cap, "%s%s", v, pattern + 1 + n) < cap;
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static size_t add(struct gb_cuda_candidate *out, size_t n, size_t cap, const char *how,
                  const char *fmt, const char *a, const char *b)
{
    if (n >= cap)
        return n;
    if ((size_t)snprintf(out[n].path, sizeof out[n].path, fmt, a, b) >= sizeof out[n].path)
        return n;
    for (size_t i = 0; i < n; i++) /* a folder reached twice (a link, two patterns): once */
        if (strcmp(out[i].path, out[n].path) == 0)
            return n;
    snprintf(out[n].how, sizeof out[n].how, "%s", how);
    return n + 1;
}

size_t gb_cuda_lib_candidates(const char *file, const char *env, const char *build_dir,
                              const char *const *pip_subdirs, bool loader_default,
                              struct gb_cuda_candidate *out, size_t cap)
{
    size_t n = 0;
    const char *ev = env ? getenv(env) : NULL;
    if (ev && *ev) {
        char how[80];
        snprintf(how, sizeof how, "$%s", env);
        return is_dir(ev) ? add(out, n, cap, how, "%s/%s", ev, file)
                          : add(out, n, cap, how, "%s%s", ev, "");
    }
    if (build_dir && *build_dir)
        n = add(out, n, cap, HOW_BUILD, "%s/%s", build_dir, file);
    for (size_t r = 0; pip_subdirs && r < sizeof pip_roots / sizeof pip_roots[0]; r++) {
        char root[512];
        if (!expand_var(pip_roots[r], root, sizeof root))
            continue;
        for (size_t s = 0; pip_subdirs[s]; s++) {
            char pat[1024];
            if ((size_t)snprintf(pat, sizeof pat, "%s/%s/%s", root, pip_subdirs[s], file) >=
                sizeof pat)
                continue;
            glob_t g;
            if (glob(pat, 0, NULL, &g) == 0) {
                for (size_t i = 0; i < g.gl_pathc; i++)
                    n = add(out, n, cap, HOW_PIP, "%s%s", g.gl_pathv[i], "");
            }
            globfree(&g);
        }
    }
    if (loader_default)
        n = add(out, n, cap, HOW_LOADER, "%s%s", file, "");
    return n;
}

/* The file a dlopen handle came from (the loader's l_name: the full path it found). */
static void handle_path(void *h, const char *fallback, char *out, size_t cap)
{
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0])
        snprintf(out, cap, "%s", lm->l_name);
    else
        snprintf(out, cap, "%s", fallback);
}

/* dlopens the first candidate that loads; on failure `why` lists each place and its error. */
static void *open_first(const struct gb_cuda_candidate *c, size_t n, const char *what,
                        const char *file, char *path, size_t pcap, char *how, size_t hcap,
                        char *why, size_t wcap)
{
    int w = snprintf(why, wcap, "%s (%s) not loaded:", what, file);
    if (n == 0)
        snprintf(why + w, wcap - (size_t)w, " nowhere to look");
    for (size_t i = 0; i < n; i++) {
        void *h = dlopen(c[i].path, RTLD_NOW | RTLD_LOCAL);
        if (h) {
            handle_path(h, c[i].path, path, pcap);
            snprintf(how, hcap, "%s", c[i].how);
            why[0] = '\0';
            return h;
        }
        const char *e = dlerror();
        /* dlerror repeats the path first ("PATH: cannot open shared object file: ..."). */
        const char *msg =
            e && strncmp(e, c[i].path, strlen(c[i].path)) == 0 ? e + strlen(c[i].path) : e;
        if (w >= 0 && (size_t)w < wcap)
            w += snprintf(why + w, wcap - (size_t)w, "%s %s (%s)%s", i ? ";" : "", c[i].path,
                          c[i].how, msg ? msg : ": ?");
    }
    return NULL;
}

/* ---- the loader: one table per library ----------------------------------------------------- */

/* One entry point: its name and the slot its address goes to (a member of gb__nv, gb__bl, ...,
 * a function pointer written as a void *). An optional one may be absent: its slot stays NULL
 * and the library loads; a required one that is absent fails the library. */
struct lib_sym {
    const char *name;
    void *slot;
    bool optional;
};
#define LIB_SYM(table, sym)     \
    {                           \
#sym, &table.sym, false \
    }

/* A library: its name in messages, the sonames tried in order (stem and major), where to look
 * (gb_cuda_lib_candidates: $env alone when set, the toolkit lib folder of the build, pip's
 * subfolders, the loader), its entry points, and the error a failure returns. */
struct lib_spec {
    const char *what; /* "cuBLAS" */
    const char *stem; /* "libcublas.so.": a soname is the stem and a major */
    int majors[2];
    size_t nmajors; /* how many of majors[], or of files[] when files[0] is set */
    /* The file names tried, in order, where a stem and a major do not name them all
     * ("libnccl.so.2", then the bare "libnccl.so"). */
    const char *files[2];
    const char *env;        /* "GPUBENCH_CUBLAS" */
    const char *const *pip; /* NULL-terminated */
    const struct lib_sym *syms;
    size_t nsyms;
    int err; /* GB_EUNAVAIL (no kernel builds without it) or GB_EUNSUPPORTED (a recorded skip) */
};

/* What loading left: the handle, the file and how it was found, or why not. */
struct lib_state {
    pthread_once_t once;
    int rc;
    void *lib;
    char path[1024];
    char how[96];
    char why[8192];
};

static void lib_soname(const struct lib_spec *s, size_t i, char *file, size_t cap)
{
    if (s->files[0])
        snprintf(file, cap, "%s", s->files[i]);
    else
        snprintf(file, cap, "%s%d", s->stem, s->majors[i]);
}

/* dlopens the first file that loads, soname by soname, each in gb_cuda.h's order, and resolves
 * every entry point into its slot. st->rc is then 0, or s->err with st->why saying every place
 * tried and the loader's error for each (the sonames' lists joined by "; "), or the first
 * required entry point missing. Called once per library, under its pthread_once. */
static void lib_load(const struct lib_spec *s, struct lib_state *st)
{
    size_t w = 0;
    for (size_t i = 0; i < s->nmajors && !st->lib; i++) {
        char file[64], why[4096];
        lib_soname(s, i, file, sizeof file);
        struct gb_cuda_candidate c[CL__MAXCAND];
        size_t n =
            gb_cuda_lib_candidates(file, s->env, GB_CUDA_LIBDIR, s->pip, true, c, CL__MAXCAND);
        st->lib = open_first(c, n, s->what, file, st->path, sizeof st->path, st->how,
                             sizeof st->how, why, sizeof why);
        if (!st->lib && w < sizeof st->why)
            w += (size_t)snprintf(st->why + w, sizeof st->why - w, "%s%s", w ? "; " : "", why);
    }
    if (!st->lib) {
        st->rc = s->err;
        return;
    }
    st->why[0] = '\0';
    for (size_t i = 0; i < s->nsyms; i++) {
        void *p = dlsym(st->lib, s->syms[i].name);
        *(void **)s->syms[i].slot = p;
        if (!p && !s->syms[i].optional) {
            snprintf(st->why, sizeof st->why, "%s: no symbol %s in %s", s->what, s->syms[i].name,
                     st->path);
            st->rc = s->err;
            return;
        }
    }
    st->rc = 0;
}

/* The result of a library's load, the same on every call: 0, or its error with the reason. */
static int lib_result(const struct lib_state *st)
{
    return st->rc ? GB_USER_FAIL(st->rc, "%s", st->why) : 0;
}

/* ---- NVRTC -------------------------------------------------------------------------------- */

struct gb__nvrtc gb__nv;

static const struct lib_sym nvrtc_syms[] = {
    LIB_SYM(gb__nv, nvrtcVersion),
    LIB_SYM(gb__nv, nvrtcGetErrorString),
    LIB_SYM(gb__nv, nvrtcGetNumSupportedArchs),
    LIB_SYM(gb__nv, nvrtcGetSupportedArchs),
    LIB_SYM(gb__nv, nvrtcCreateProgram),
    LIB_SYM(gb__nv, nvrtcDestroyProgram),
    LIB_SYM(gb__nv, nvrtcCompileProgram),
    LIB_SYM(gb__nv, nvrtcGetPTXSize),
    LIB_SYM(gb__nv, nvrtcGetPTX),
    LIB_SYM(gb__nv, nvrtcGetCUBINSize),
    LIB_SYM(gb__nv, nvrtcGetCUBIN),
    LIB_SYM(gb__nv, nvrtcGetProgramLogSize),
    LIB_SYM(gb__nv, nvrtcGetProgramLog),
};
static const char *const nvrtc_pip[] = {"nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib", NULL};
static const struct lib_spec nvrtc_lib = {
    .what = "NVRTC",
    .stem = "libnvrtc.so.",
    .majors = {CUDART_VERSION / 1000},
    .nmajors = 1,
    .env = "GPUBENCH_NVRTC",
    .pip = nvrtc_pip,
    .syms = nvrtc_syms,
    .nsyms = sizeof nvrtc_syms / sizeof nvrtc_syms[0],
    .err = GB_EUNAVAIL,
};

static struct {
    struct lib_state l;
    void *builtins;
    int major, minor;
    char builtins_path[1100];
    char builtins_note[1400];
} nv = {.l = {.once = PTHREAD_ONCE_INIT}};

static void nvrtc_preload_builtins(void)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", nv.l.path);
    char *slash = strrchr(dir, '/');
    if (!slash) {
        snprintf(nv.builtins_note, sizeof nv.builtins_note,
                 "not preloaded: NVRTC's folder is unknown; NVRTC searches the loader's path");
        return;
    }
    *slash = '\0';
    snprintf(nv.builtins_path, sizeof nv.builtins_path, "%s/libnvrtc-builtins.so.%d.%d", dir,
             nv.major, nv.minor);
    nv.builtins = dlopen(nv.builtins_path, RTLD_NOW | RTLD_LOCAL);
    if (nv.builtins) {
        snprintf(nv.builtins_note, sizeof nv.builtins_note, "preloaded from NVRTC's folder");
        return;
    }
    const char *e = dlerror();
    snprintf(nv.builtins_note, sizeof nv.builtins_note,
             "not preloaded (%s); NVRTC searches the loader's path for it itself",
             e ? e : nv.builtins_path);
    nv.builtins_path[0] = '\0';
}

static void nvrtc_load_once(void)
{
    lib_load(&nvrtc_lib, &nv.l);
    if (nv.l.rc)
        return;
    if (gb__nv.nvrtcVersion(&nv.major, &nv.minor) != NVRTC_SUCCESS) {
        snprintf(nv.l.why, sizeof nv.l.why, "NVRTC: nvrtcVersion failed in %s", nv.l.path);
        nv.l.rc = GB_EUNAVAIL;
        return;
    }
    nvrtc_preload_builtins();
}

int gb__cuda_nvrtc_load(void)
{
    pthread_once(&nv.l.once, nvrtc_load_once);
    return lib_result(&nv.l);
}

/* ---- the headers NVRTC includes ------------------------------------------------------------ */

static const char *const headers[] = {"cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h",
                                      "cuda_bf16.hpp"};

static struct {
    pthread_once_t once;
    char dir[1024];
    const char *how;
    bool found;    /* dir is the folder to use */
    bool complete; /* dir holds all four headers */
    char tried[2048];
} inc = {.once = PTHREAD_ONCE_INIT};

static bool has_headers(const char *dir)
{
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
        char p[1200];
        if (snprintf(p, sizeof p, "%s/%s", dir, headers[i]) >= (int)sizeof p || !is_file(p))
            return false;
    }
    return true;
}

static bool include_try(const char *dir, const char *how)
{
    if (!dir || !*dir || strlen(dir) >= sizeof inc.dir)
        return false;
    if (has_headers(dir)) {
        memcpy(inc.dir, dir, strlen(dir) + 1);
        inc.how = how;
        inc.found = inc.complete = true;
        return true;
    }
    const size_t w = strlen(inc.tried);
    if (w + strlen(dir) + 3 < sizeof inc.tried)
        sprintf(inc.tried + w, "%s%s", w ? ", " : "", dir);
    return false;
}

static void include_once(void)
{
    const char *ev = getenv("GPUBENCH_CUDA_INCLUDE");
    if (ev && *ev) { /* as given, headers or not: the caller asked for exactly this folder */
        snprintf(inc.dir, sizeof inc.dir, "%s", ev);
        inc.how = "$GPUBENCH_CUDA_INCLUDE";
        inc.found = true;
        inc.complete = has_headers(ev);
        return;
    }
    char d[1200];
    /* Beside NVRTC: <toolkit>/lib64 -> <toolkit>/include, nvidia/cu13/lib -> nvidia/cu13/include */
    if (gb__cuda_nvrtc_load() == 0) {
        snprintf(d, sizeof d, "%s", nv.l.path);
        char *s = strrchr(d, '/');
        if (s) {
            *s = '\0';
            s = strrchr(d, '/');
            if (s) {
                snprintf(s, sizeof d - (size_t)(s - d), "/include");
                if (include_try(d, "beside NVRTC's folder"))
                    return;
            }
        }
    }
    if (include_try(GB_CUDA_INCLUDE, "the toolkit include folder of the build"))
        return;
    static const char *const pip[] = {"nvidia/cu13/include", "nvidia/cuda_runtime/include", NULL};
    struct gb_cuda_candidate c[CL__MAXCAND];
    size_t n = gb_cuda_lib_candidates("cuda_fp16.h", NULL, NULL, pip, false, c, CL__MAXCAND);
    for (size_t i = 0; i < n; i++) {
        char *s = strrchr(c[i].path, '/');
        if (s)
            *s = '\0';
        if (include_try(c[i].path, HOW_PIP))
            return;
    }
    /* A bundle: bin/gpubench beside include/. */
    ssize_t len = readlink("/proc/self/exe", d, sizeof d - 16);
    if (len > 0) {
        d[len] = '\0';
        char *s = strrchr(d, '/');
        if (s) {
            *s = '\0';
            s = strrchr(d, '/');
            if (s) {
                snprintf(s, sizeof d - (size_t)(s - d), "/include");
                if (include_try(d, "the bundle's (beside the binary's folder)"))
                    return;
            }
        }
    }
}

const char *gb__cuda_include_dir(const char **tried)
{
    pthread_once(&inc.once, include_once);
    if (tried)
        *tried = inc.tried;
    return inc.found ? inc.dir : NULL;
}

/* ---- cuBLAS --------------------------------------------------------------------------------- */

#if HAVE_CUBLAS
struct gb__cublas gb__bl;

static const struct lib_sym blas_syms[] = {
    LIB_SYM(gb__bl, cublasCreate_v2),     LIB_SYM(gb__bl, cublasDestroy_v2),
    LIB_SYM(gb__bl, cublasSetStream_v2),  LIB_SYM(gb__bl, cublasSetWorkspace_v2),
    LIB_SYM(gb__bl, cublasGemmEx_64),     LIB_SYM(gb__bl, cublasGemmStridedBatchedEx_64),
    LIB_SYM(gb__bl, cublasSgemv_v2_64),   LIB_SYM(gb__bl, cublasDgemv_v2_64),
    LIB_SYM(gb__bl, cublasGetStatusName), LIB_SYM(gb__bl, cublasGetStatusString),
    LIB_SYM(gb__bl, cublasGetProperty),
};
static const char *const blas_pip[] = {"nvidia/cu13/lib", "nvidia/cublas/lib", NULL};
static const struct lib_spec blas_lib = {
    .what = "cuBLAS",
    .stem = "libcublas.so.",
    .majors = {CUBLAS_VER_MAJOR},
    .nmajors = 1,
    .env = "GPUBENCH_CUBLAS",
    .pip = blas_pip,
    .syms = blas_syms,
    .nsyms = sizeof blas_syms / sizeof blas_syms[0],
    .err = GB_EUNSUPPORTED,
};

static struct {
    struct lib_state l;
    pthread_once_t found_once;
    bool found;
    char found_path[1024];
    char found_how[96];
} bl = {.l = {.once = PTHREAD_ONCE_INIT}, .found_once = PTHREAD_ONCE_INIT};

/* Whether the loader's search would find soname `file`, without loading it: a folder of
 * LD_LIBRARY_PATH, the loader cache (whose file holds every cached soname as a string), or a
 * system folder. */
static bool loader_would_find(const char *file, char *where, size_t cap)
{
    const char *llp = getenv("LD_LIBRARY_PATH");
    if (llp && *llp) {
        char *copy = strdup(llp), *save = NULL;
        for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d;
             d = strtok_r(NULL, ":", &save)) {
            snprintf(where, cap, "%s/%s", d, file);
            if (is_file(where)) {
                free(copy);
                return true;
            }
        }
        free(copy);
    }
    FILE *f = fopen("/etc/ld.so.cache", "rb");
    if (f) {
        bool hit = false;
        char buf[65536 + 64];
        size_t keep = 0, got;
        const size_t flen = strlen(file) + 1; /* with its NUL: no prefix match */
        while (!hit && (got = fread(buf + keep, 1, sizeof buf - keep, f)) > 0) {
            const size_t len = keep + got;
            hit = memmem(buf, len, file, flen) != NULL;
            keep = flen < len ? flen : len;
            memmove(buf, buf + len - keep, keep);
        }
        fclose(f);
        if (hit) {
            snprintf(where, cap, "%s (in ld.so.cache)", file);
            return true;
        }
    }
    static const char *const sys[] = {"/lib/x86_64-linux-gnu",
                                      "/usr/lib/x86_64-linux-gnu",
                                      "/lib64",
                                      "/usr/lib64",
                                      "/lib",
                                      "/usr/lib"};
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++) {
        snprintf(where, cap, "%s/%s", sys[i], file);
        if (is_file(where))
            return true;
    }
    return false;
}

static void blas_found_once(void)
{
    char file[64];
    lib_soname(&blas_lib, 0, file, sizeof file);
    struct gb_cuda_candidate c[CL__MAXCAND];
    size_t n = gb_cuda_lib_candidates(file, blas_lib.env, GB_CUDA_LIBDIR, blas_lib.pip, true, c,
                                      CL__MAXCAND);
    for (size_t i = 0; i < n && !bl.found; i++) {
        if (strcmp(c[i].how, HOW_LOADER) == 0)
            bl.found = loader_would_find(file, bl.found_path, sizeof bl.found_path);
        else if ((bl.found = is_file(c[i].path)))
            snprintf(bl.found_path, sizeof bl.found_path, "%s", c[i].path);
        if (bl.found)
            snprintf(bl.found_how, sizeof bl.found_how, "%s", c[i].how);
    }
}

bool gb__cuda_blas_found(void)
{
    pthread_once(&bl.found_once, blas_found_once);
    return bl.found;
}

static void blas_load_once(void)
{
    lib_load(&blas_lib, &bl.l);
}

int gb__cuda_blas_load(void)
{
    pthread_once(&bl.l.once, blas_load_once);
    return lib_result(&bl.l);
}
#endif

/* ---- cuBLASLt (FP8 GEMM) ----------------------------------------------------------------------- */

#if HAVE_CUBLASLT
struct gb__cublaslt gb__lt;

static const struct lib_sym blaslt_syms[] = {
    LIB_SYM(gb__lt, cublasLtCreate),
    LIB_SYM(gb__lt, cublasLtDestroy),
    LIB_SYM(gb__lt, cublasLtGetVersion),
    LIB_SYM(gb__lt, cublasLtGetStatusName),
    LIB_SYM(gb__lt, cublasLtGetStatusString),
    LIB_SYM(gb__lt, cublasLtMatmulDescCreate),
    LIB_SYM(gb__lt, cublasLtMatmulDescDestroy),
    LIB_SYM(gb__lt, cublasLtMatmulDescSetAttribute),
    LIB_SYM(gb__lt, cublasLtMatrixLayoutCreate),
    LIB_SYM(gb__lt, cublasLtMatrixLayoutDestroy),
    LIB_SYM(gb__lt, cublasLtMatmulPreferenceCreate),
    LIB_SYM(gb__lt, cublasLtMatmulPreferenceDestroy),
    LIB_SYM(gb__lt, cublasLtMatmulPreferenceSetAttribute),
    LIB_SYM(gb__lt, cublasLtMatmulAlgoGetHeuristic),
    LIB_SYM(gb__lt, cublasLtMatmul),
};
static const char *const blaslt_pip[] = {"nvidia/cu13/lib", "nvidia/cublas/lib", NULL};
/* The build's major first (its header is the one compiled against), then 12: cuBLASLt's enums
 * and the entry points used here are the same in both. */
static const struct lib_spec blaslt_lib = {
    .what = "cuBLASLt",
    .stem = "libcublasLt.so.",
    .majors = {CUBLAS_VER_MAJOR, 12},
    .nmajors = CUBLAS_VER_MAJOR == 12 ? 1 : 2,
    .env = "GPUBENCH_CUBLASLT",
    .pip = blaslt_pip,
    .syms = blaslt_syms,
    .nsyms = sizeof blaslt_syms / sizeof blaslt_syms[0],
    .err = GB_EUNSUPPORTED,
};

static struct lib_state lt = {.once = PTHREAD_ONCE_INIT};

static void blaslt_load_once(void)
{
    lib_load(&blaslt_lib, &lt);
}

int gb__cuda_blaslt_load(void)
{
    pthread_once(&lt.once, blaslt_load_once);
    return lib_result(&lt);
}
#endif

/* ---- cuDNN (convolution) ------------------------------------------------------------------- */

#if HAVE_CUDNN
struct gb__cudnn gb__dnn;

static const struct lib_sym dnn_syms[] = {
    LIB_SYM(gb__dnn, cudnnGetVersion),
    LIB_SYM(gb__dnn, cudnnGetErrorString),
    LIB_SYM(gb__dnn, cudnnCreate),
    LIB_SYM(gb__dnn, cudnnDestroy),
    LIB_SYM(gb__dnn, cudnnSetStream),
    LIB_SYM(gb__dnn, cudnnCreateTensorDescriptor),
    LIB_SYM(gb__dnn, cudnnDestroyTensorDescriptor),
    LIB_SYM(gb__dnn, cudnnSetTensor4dDescriptor),
    LIB_SYM(gb__dnn, cudnnCreateFilterDescriptor),
    LIB_SYM(gb__dnn, cudnnDestroyFilterDescriptor),
    LIB_SYM(gb__dnn, cudnnSetFilter4dDescriptor),
    LIB_SYM(gb__dnn, cudnnCreateConvolutionDescriptor),
    LIB_SYM(gb__dnn, cudnnDestroyConvolutionDescriptor),
    LIB_SYM(gb__dnn, cudnnSetConvolution2dDescriptor),
    LIB_SYM(gb__dnn, cudnnSetConvolutionGroupCount),
    LIB_SYM(gb__dnn, cudnnSetConvolutionMathType),
    LIB_SYM(gb__dnn, cudnnGetConvolution2dForwardOutputDim),
    LIB_SYM(gb__dnn, cudnnFindConvolutionForwardAlgorithmEx),
    LIB_SYM(gb__dnn, cudnnFindConvolutionBackwardDataAlgorithmEx),
    LIB_SYM(gb__dnn, cudnnFindConvolutionBackwardFilterAlgorithmEx),
    LIB_SYM(gb__dnn, cudnnConvolutionForward),
    LIB_SYM(gb__dnn, cudnnConvolutionBackwardData),
    LIB_SYM(gb__dnn, cudnnConvolutionBackwardFilter),
};
static const char *const dnn_pip[] = {"nvidia/cudnn/lib", "nvidia/cu13/lib", NULL};
static const struct lib_spec dnn_lib = {
    .what = "cuDNN",
    .stem = "libcudnn.so.",
    .majors = {CUDNN_MAJOR},
    .nmajors = 1,
    .env = "GPUBENCH_CUDNN",
    .pip = dnn_pip,
    .syms = dnn_syms,
    .nsyms = sizeof dnn_syms / sizeof dnn_syms[0],
    .err = GB_EUNSUPPORTED,
};

static struct lib_state dnn = {.once = PTHREAD_ONCE_INIT};

static void dnn_load_once(void)
{
    lib_load(&dnn_lib, &dnn);
    if (dnn.rc)
        return;
    /* cuDNN 9's library must be of the header's major (its enums and structs): checked here. */
    const size_t v = gb__dnn.cudnnGetVersion();
    if (v / 10000 != CUDNN_MAJOR) {
        snprintf(dnn.why, sizeof dnn.why, "cuDNN: %s is version %zu, not of major %d", dnn.path, v,
                 CUDNN_MAJOR);
        dnn.rc = GB_EUNSUPPORTED;
    }
}

int gb__cuda_dnn_load(void)
{
    pthread_once(&dnn.once, dnn_load_once);
    return lib_result(&dnn);
}
#endif

/* ---- cuSPARSE (sparse times dense) ------------------------------------------------------------ */

#if HAVE_CUSPARSE
struct gb__cusparse gb__sp;

static const struct lib_sym sparse_syms[] = {
    LIB_SYM(gb__sp, cusparseGetProperty),  LIB_SYM(gb__sp, cusparseGetErrorString),
    LIB_SYM(gb__sp, cusparseCreate),       LIB_SYM(gb__sp, cusparseDestroy),
    LIB_SYM(gb__sp, cusparseSetStream),    LIB_SYM(gb__sp, cusparseCreateCsr),
    LIB_SYM(gb__sp, cusparseDestroySpMat), LIB_SYM(gb__sp, cusparseCreateDnMat),
    LIB_SYM(gb__sp, cusparseDestroyDnMat), LIB_SYM(gb__sp, cusparseCreateDnVec),
    LIB_SYM(gb__sp, cusparseDestroyDnVec), LIB_SYM(gb__sp, cusparseSpMV_bufferSize),
    LIB_SYM(gb__sp, cusparseSpMV),         LIB_SYM(gb__sp, cusparseSpMM_bufferSize),
    LIB_SYM(gb__sp, cusparseSpMM),
};
static const char *const sparse_pip[] = {"nvidia/cu13/lib", "nvidia/cusparse/lib", NULL};
static const struct lib_spec sparse_lib = {
    .what = "cuSPARSE",
    .stem = "libcusparse.so.",
    .majors = {CUSPARSE_VER_MAJOR},
    .nmajors = 1,
    .env = "GPUBENCH_CUSPARSE",
    .pip = sparse_pip,
    .syms = sparse_syms,
    .nsyms = sizeof sparse_syms / sizeof sparse_syms[0],
    .err = GB_EUNSUPPORTED,
};

static struct lib_state sp = {.once = PTHREAD_ONCE_INIT};

static void sparse_load_once(void)
{
    lib_load(&sparse_lib, &sp);
}

int gb__cuda_sparse_load(void)
{
    pthread_once(&sp.once, sparse_load_once);
    return lib_result(&sp);
}
#endif

/* ---- NCCL (collective communication) ----------------------------------------------------------- */

/* Declared in cuda_libs.h (no nccl.h is needed to build): loaded by the first communicator. */
struct gb__nccl gb__nccl;

static const struct lib_sym nccl_syms[] = {
    LIB_SYM(gb__nccl, ncclGetVersion),
    LIB_SYM(gb__nccl, ncclGetErrorString),
    LIB_SYM(gb__nccl, ncclGetUniqueId),
    LIB_SYM(gb__nccl, ncclCommInitAll),
    LIB_SYM(gb__nccl, ncclCommInitRank),
    LIB_SYM(gb__nccl, ncclCommDestroy),
    LIB_SYM(gb__nccl, ncclGroupStart),
    LIB_SYM(gb__nccl, ncclGroupEnd),
    LIB_SYM(gb__nccl, ncclAllReduce),
    LIB_SYM(gb__nccl, ncclAllGather),
    LIB_SYM(gb__nccl, ncclReduceScatter),
    LIB_SYM(gb__nccl, ncclBroadcast),
    LIB_SYM(gb__nccl, ncclReduce),
    LIB_SYM(gb__nccl, ncclSend),
    LIB_SYM(gb__nccl, ncclRecv),
    /* NCCL 2.13+: the last error's own words, beside ncclGetErrorString's generic text. */
    {"ncclGetLastError", &gb__nccl.ncclGetLastError, true},
};
/* pip's nvidia-nccl-cu12 / -cu13 wheels (PyTorch's NCCL), then the CUDA 13 wheels' folder. */
static const char *const nccl_pip[] = {"nvidia/nccl/lib", "nvidia/cu13/lib", NULL};
/* NCCL's soname has been libnccl.so.2 since NCCL 2.0; the bare libnccl.so (the development
 * link) is tried after it for an install that has only that. */
static const struct lib_spec nccl_lib = {
    .what = "NCCL",
    .files = {"libnccl.so.2", "libnccl.so"},
    .nmajors = 2,
    .env = "GPUBENCH_NCCL",
    .pip = nccl_pip,
    .syms = nccl_syms,
    .nsyms = sizeof nccl_syms / sizeof nccl_syms[0],
    .err = GB_EUNSUPPORTED,
};

static struct {
    struct lib_state l;
    int version; /* ncclGetVersion's code: 22809 for 2.28.9 (2.9 on), 2804 for 2.8.4 (before) */
} nc = {.l = {.once = PTHREAD_ONCE_INIT}};

static void nccl_load_once(void)
{
    lib_load(&nccl_lib, &nc.l);
    if (nc.l.rc)
        return;
    if (gb__nccl.ncclGetVersion(&nc.version) != GB_CUDA_NCCL_SUCCESS) {
        snprintf(nc.l.why, sizeof nc.l.why, "NCCL: ncclGetVersion failed in %s", nc.l.path);
        nc.l.rc = GB_EUNSUPPORTED;
    }
}

int gb__cuda_nccl_load(int *version)
{
    pthread_once(&nc.l.once, nccl_load_once);
    if (version)
        *version = nc.version;
    return lib_result(&nc.l);
}

void gb_cuda_nccl_version_text(int code, char *out, size_t cap)
{
    if (code >= 10000) /* NCCL_VERSION(X, Y, Z) = X * 10000 + Y * 100 + Z from 2.9 */
        snprintf(out, cap, "%d.%d.%d", code / 10000, code / 100 % 100, code % 100);
    else /* X * 1000 + Y * 100 + Z before */
        snprintf(out, cap, "%d.%d.%d", code / 1000, code / 100 % 10, code % 100);
}

/* ---- the report ------------------------------------------------------------------------------ */

static const char probe_src[] = "#include <cuda_fp16.h>\n"
                                "#include <cuda_bf16.h>\n"
                                "extern \"C\" __global__ void gb_probe(const __half *h,\n"
                                "    const __nv_bfloat16 *b, float *out)\n"
                                "{\n"
                                "    out[threadIdx.x] = __half2float(h[threadIdx.x]) +\n"
                                "                       __bfloat162float(b[threadIdx.x]);\n"
                                "}\n";

static void version_text(int v, char *out, size_t cap)
{
    snprintf(out, cap, "%d.%d", v / 1000, (v % 1000) / 10);
}

void gb_cuda_report(FILE *f, gb_cuda_pick_arch_fn pick_arch, gb_cuda_compile_fn compile)
{
    char v[32];
    version_text(CUDART_VERSION, v, sizeof v);
    fprintf(f, "cuda: runtime: %s (libcudart_static, linked in)\n", v);
    int drv = 0;
    (void)cudaDriverGetVersion(&drv);
    (void)cudaGetLastError();
    version_text(drv, v, sizeof v);
    if (drv)
        fprintf(f, "cuda: driver: supports CUDA %s (cudaDriverGetVersion)\n", v);
    else
        fprintf(f, "cuda: driver: none (libcuda.so.1 not loaded)\n");

    if (gb__cuda_nvrtc_load() != 0) {
        fprintf(f, "cuda: NVRTC: missing: %s\n", nv.l.why);
    } else {
        fprintf(f, "cuda: NVRTC: %d.%d: %s (found through %s)\n", nv.major, nv.minor, nv.l.path,
                nv.l.how);
        fprintf(f, "cuda: NVRTC builtins: %s%s%s\n", nv.builtins_path,
                nv.builtins_path[0] ? ": " : "", nv.builtins_note);
    }
    const char *tried = NULL;
    const char *dir = gb__cuda_include_dir(&tried);
    if (dir && inc.complete)
        fprintf(f,
                "cuda: headers: %s (%s): cuda_fp16.h, cuda_fp16.hpp, cuda_bf16.h, "
                "cuda_bf16.hpp\n",
                dir, inc.how);
    else if (dir)
        fprintf(f,
                "cuda: headers: incomplete: %s (%s) lacks one of cuda_fp16.h/.hpp, "
                "cuda_bf16.h/.hpp\n",
                dir, inc.how);
    else
        fprintf(f,
                "cuda: headers: missing: no folder holds cuda_fp16.h/.hpp and "
                "cuda_bf16.h/.hpp (looked in %s); set GPUBENCH_CUDA_INCLUDE\n",
                tried && *tried ? tried : "nowhere");

    if (nv.l.rc == 0) {
        char arch[32] = "sm_90", *img = NULL, *log = NULL;
        bool cubin = false;
        if (pick_arch(9, 0, arch, sizeof arch, &cubin) != 0)
            snprintf(arch, sizeof arch, "compute_90");
        int rc = compile(probe_src, arch, NULL, 0, &img, NULL, &log);
        if (rc == 0)
            fprintf(f, "cuda: NVRTC test compile: ok (%s, cuda_fp16.h and cuda_bf16.h)\n", arch);
        else
            fprintf(f, "cuda: NVRTC test compile: failed (%s): %s\n", arch, gb_error_msg());
        free(img);
        free(log);
        /* Which builtins file NVRTC uses now, whoever loaded it. */
        char soname[64];
        snprintf(soname, sizeof soname, "libnvrtc-builtins.so.%d.%d", nv.major, nv.minor);
        void *h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
        if (h) {
            char p[1024];
            handle_path(h, soname, p, sizeof p);
            fprintf(f, "cuda: NVRTC builtins in use: %s\n", p);
            dlclose(h);
        } else {
            fprintf(f, "cuda: NVRTC builtins in use: none loaded\n");
        }
    }

#if HAVE_CUBLAS
    if (gb__cuda_blas_load() != 0) {
        fprintf(f, "cuda: cuBLAS: missing: %s (BLAS cases are skipped)\n", bl.l.why);
    } else {
        int ma = 0, mi = 0, pa = 0;
        (void)gb__bl.cublasGetProperty(MAJOR_VERSION, &ma);
        (void)gb__bl.cublasGetProperty(MINOR_VERSION, &mi);
        (void)gb__bl.cublasGetProperty(PATCH_LEVEL, &pa);
        fprintf(f,
                "cuda: cuBLAS: %d.%d.%d: %s (found through %s; a run loads it at its first "
                "GEMM)\n",
                ma, mi, pa, bl.l.path, bl.l.how);
    }
#else
    fprintf(f, "cuda: cuBLAS: not built in (-Dcublas=disabled)\n");
#endif
#if HAVE_CUBLASLT
    if (gb__cuda_blaslt_load() != 0) {
        fprintf(f, "cuda: cuBLASLt: missing: %s (FP8 GEMM cases are skipped)\n", lt.why);
    } else {
        const size_t ltv = gb__lt.cublasLtGetVersion();
        fprintf(f,
                "cuda: cuBLASLt: %zu.%zu.%zu: %s (found through %s; a run loads it at its first "
                "FP8 GEMM)\n",
                ltv / 10000, ltv / 100 % 100, ltv % 100, lt.path, lt.how);
    }
#else
    fprintf(f, "cuda: cuBLASLt: not built in (FP8 GEMM cases are skipped)\n");
#endif
#if HAVE_CUDNN
    if (gb__cuda_dnn_load() != 0) {
        fprintf(f, "cuda: cuDNN: missing: %s (library convolution cases are skipped)\n", dnn.why);
    } else {
        const size_t dv = gb__dnn.cudnnGetVersion();
        fprintf(f,
                "cuda: cuDNN: %zu.%zu.%zu: %s (found through %s; a run loads it at its first "
                "library convolution)\n",
                dv / 10000, dv / 100 % 100, dv % 100, dnn.path, dnn.how);
    }
#else
    fprintf(f, "cuda: cuDNN: not built in (library convolution cases are skipped)\n");
#endif
#if HAVE_CUSPARSE
    if (gb__cuda_sparse_load() != 0) {
        fprintf(f, "cuda: cuSPARSE: missing: %s (library sparse cases are skipped)\n", sp.why);
    } else {
        int ma = 0, mi = 0, pa = 0;
        (void)gb__sp.cusparseGetProperty(MAJOR_VERSION, &ma);
        (void)gb__sp.cusparseGetProperty(MINOR_VERSION, &mi);
        (void)gb__sp.cusparseGetProperty(PATCH_LEVEL, &pa);
        fprintf(f,
                "cuda: cuSPARSE: %d.%d.%d: %s (found through %s; a run loads it at its first "
                "library sparse case)\n",
                ma, mi, pa, sp.path, sp.how);
    }
#else
    fprintf(f, "cuda: cuSPARSE: not built in (library sparse cases are skipped)\n");
#endif
    int ncv = 0;
    if (gb__cuda_nccl_load(&ncv) != 0) {
        fprintf(f, "cuda: NCCL: missing: %s (NCCL collective cases are skipped)\n", nc.l.why);
    } else {
        char ncs[32];
        gb_cuda_nccl_version_text(ncv, ncs, sizeof ncs);
        fprintf(f,
                "cuda: NCCL: %s: %s (found through %s; a run loads it at its first "
                "communicator)\n",
                ncs, nc.l.path, nc.l.how);
    }
    fflush(f);
}
