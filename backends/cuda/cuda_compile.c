/* gpubench — the CUDA backend's compiler: NVRTC, loaded by cuda_libs.c, compiles the kernel text
 * (prelude + file, the same text the OpenCL backend gets) for the device's own architecture to a
 * CUBIN, or to PTX of the newest architecture it knows when the device is newer than this NVRTC
 * (the driver JIT-compiles that). Public (gb_cuda.h) so that the tests compile every kernel
 * variant through this very code on a machine without a GPU.
 */
#include "gb-config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "backends/backend.h"
#include "cuda_libs.h"
#include "gb_cuda.h"

static int nv__fail(nvrtcResult r, const char *file, int line, const char *call)
{
    return gb_error_set(GB_EBACKEND, file, line, "%s: NVRTC error %d: %s", call, (int)r,
                        gb__nv.nvrtcGetErrorString(r));
}
static inline int nv__check(nvrtcResult r, const char *file, int line, const char *call)
{
    return r == NVRTC_SUCCESS ? 0 : nv__fail(r, file, line, call);
}
/* NV(nvrtcGetPTX, prog, out): calls it through gb__nv (NVRTC must be loaded); 0, or GB_EBACKEND
 * with the NVRTC error recorded. */
#define NV(fn, ...) nv__check(gb__nv.fn(__VA_ARGS__), __FILE__, __LINE__, #fn)

int gb_cuda_pick_arch(int major, int minor, char *arch, size_t cap, bool *cubin)
{
    int n = 0, rc;
    if ((rc = gb__cuda_nvrtc_load()) || (rc = NV(nvrtcGetNumSupportedArchs, &n)))
        return rc;
    if (n <= 0)
        return GB_FAIL(GB_EBACKEND, "NVRTC supports no architecture");
    int *archs = malloc((size_t)n * sizeof *archs);
    if (!archs)
        return GB_FAIL(GB_ENOMEM, "pick_arch");
    if ((rc = NV(nvrtcGetSupportedArchs, archs))) {
        free(archs);
        return rc;
    }
    const int want = major * 10 + minor;
    int best = -1;
    bool exact = false;
    for (int i = 0; i < n; i++) {
        if (archs[i] == want)
            exact = true;
        if (archs[i] <= want && archs[i] > best)
            best = archs[i];
    }
    const int lowest = archs[0];
    free(archs);
    if (exact) {
        snprintf(arch, cap, "sm_%d", want);
        *cubin = true;
    } else if (best > 0) {
        snprintf(arch, cap, "compute_%d", best);
        *cubin = false;
    } else {
        return GB_FAIL(GB_EUNSUPPORTED,
                       "compute capability %d.%d is older than anything this NVRTC supports "
                       "(lowest: %d.%d)",
                       major, minor, lowest / 10, lowest % 10);
    }
    return 0;
}

/* "compute_90" / "sm_90" / "sm_90a": a prefix and two or three digits, an optional suffix. */
static bool cu__arch_ok(const char *arch, bool *cubin)
{
    const char *p;
    if (strncmp(arch, "compute_", 8) == 0) {
        p = arch + 8;
        *cubin = false;
    } else if (strncmp(arch, "sm_", 3) == 0) {
        p = arch + 3;
        *cubin = true;
    } else {
        return false;
    }
    const size_t digits = strspn(p, "0123456789");
    const char *suffix = p + digits;
    return digits >= 2 && digits <= 3 &&
           (suffix[0] == '\0' || ((suffix[0] == 'a' || suffix[0] == 'f') && suffix[1] == '\0'));
}

/* The first line of `log` that says "error", else its first line; for the one-line reason. */
static void cu__first_error(const char *log, char *out, size_t cap)
{
    const char *line = strstr(log, "error");
    if (line) {
        while (line > log && line[-1] != '\n')
            line--;
    } else {
        line = log;
    }
    size_t len = strcspn(line, "\n");
    snprintf(out, cap, "%.*s", (int)(len < cap ? len : cap - 1), line);
}

/* The defines as the text of the in-memory header "gb_defines.h" that kernels/prelude.h includes
 * under NVRTC: "NAME=VALUE" -> "#define NAME VALUE", "NAME" -> "#define NAME 1" (what -DNAME
 * means). Not -D options: NVRTC parses its built-in header after the command-line macros, and
 * a tunable called T breaks that header's templates. */
static int cu__defines_header(const char *const *defines, size_t n, char **out)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++) {
        if (!defines[i])
            return GB_FAIL(GB_EINVAL, "NVRTC: define %zu is NULL", i);
        len += strlen(defines[i]) + sizeof "#define  1\n";
    }
    char *h = malloc(len), *p = h;
    if (!h)
        return GB_FAIL(GB_ENOMEM, "NVRTC defines");
    *p = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *d = defines[i];
        const size_t name = strspn(d, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789_");
        if (name == 0 || (d[0] >= '0' && d[0] <= '9') || (d[name] != '\0' && d[name] != '=') ||
            strchr(d, '\n')) {
            free(h);
            return GB_FAIL(GB_EINVAL, "NVRTC: malformed define \"%s\"", d);
        }
        const char *value = d[name] == '=' ? d + name + 1 : "1";
        p += sprintf(p, "#define %.*s %s\n", (int)name, d, value);
    }
    *out = h;
    return 0;
}

/* The error detail of a failed nvrtcCompileProgram: the result, the first error line of the log,
 * a hint where one helps, and the log itself (up to 2000 bytes) so that no failure loses it. */
static int cu__compile_fail(nvrtcResult r, const char *arch, const char *inc_dir,
                            const char *inc_tried, const char *blog)
{
    char first[256] = "";
    if (blog && *blog)
        cu__first_error(blog, first, sizeof first);
    const char *hint = "";
    char hbuf[1400];
    if (r == NVRTC_ERROR_BUILTIN_OPERATION_FAILURE) {
        hint = " (NVRTC could not use its builtins library libnvrtc-builtins.so: put its folder "
               "on LD_LIBRARY_PATH, or point GPUBENCH_NVRTC at an NVRTC whose folder holds it)";
    } else if (blog && (strstr(blog, "cuda_fp16") || strstr(blog, "cuda_bf16"))) {
        snprintf(hbuf, sizeof hbuf,
                 " (NVRTC's include folder: %s; set GPUBENCH_CUDA_INCLUDE to a folder with "
                 "cuda_fp16.h/.hpp and cuda_bf16.h/.hpp, such as the toolkit's include/ or a "
                 "bundle's%s%s)",
                 inc_dir ? inc_dir : "none found", inc_tried && *inc_tried ? "; looked in " : "",
                 inc_tried && *inc_tried ? inc_tried : "");
        hint = hbuf;
    }
    const int err = r == NVRTC_ERROR_COMPILATION ? GB_EBUILD : GB_EBACKEND;
    const size_t loglen = blog ? strlen(blog) : 0;
    return GB_FAIL(err, "NVRTC for %s: %s (%d)%s%s%s; log%s: %.2000s%s", arch,
                   gb__nv.nvrtcGetErrorString(r), (int)r, *first ? ": " : "", first, hint,
                   loglen > 2000 ? " (first 2000 bytes)" : "", loglen ? blog : "(empty)",
                   loglen > 2000 ? " [...]" : "");
}

int gb_cuda_compile(const char *src, const char *arch, const char *const *defines, size_t ndefines,
                    char **image, size_t *size, char **log)
{
    bool cubin = false;
    if (log)
        *log = NULL;
    *image = NULL;
    if (size)
        *size = 0;
    if (!src || !arch || !cu__arch_ok(arch, &cubin))
        return GB_FAIL(GB_EINVAL, "NVRTC: bad architecture \"%s\"", arch ? arch : "(null)");
    int rc = gb__cuda_nvrtc_load();
    if (rc)
        return rc;

    const char *inc_tried = NULL;
    const char *inc = gb__cuda_include_dir(&inc_tried);
    enum { MAXOPTS = 4 };
    char *opts[MAXOPTS] = {NULL};
    int nopts = 3;
    char *defs = NULL, *out = NULL, *blog = NULL;
    nvrtcProgram prog = NULL;
    if ((rc = cu__defines_header(defines, ndefines, &defs)))
        return rc;
    if (asprintf(&opts[0], "--gpu-architecture=%s", arch) < 0 ||
        !(opts[1] = strdup("-default-device")) || !(opts[2] = strdup("-std=c++17")) ||
        (inc && asprintf(&opts[3], "-I%s", inc) < 0)) {
        rc = GB_FAIL(GB_ENOMEM, "NVRTC options");
        goto done;
    }
    if (inc)
        nopts = 4;

    const char *hdr_text[] = {defs}, *hdr_name[] = {"gb_defines.h"};
    if ((rc = NV(nvrtcCreateProgram, &prog, src, "gpubench_kernel.cu", 1, hdr_text, hdr_name)))
        goto done;
    nvrtcResult r = gb__nv.nvrtcCompileProgram(prog, nopts, (const char *const *)opts);
    if (r != NVRTC_SUCCESS) {
        size_t lsize = 0;
        if (gb__nv.nvrtcGetProgramLogSize(prog, &lsize) == NVRTC_SUCCESS && lsize > 0 &&
            (blog = malloc(lsize + 1)) != NULL) {
            if (gb__nv.nvrtcGetProgramLog(prog, blog) != NVRTC_SUCCESS)
                blog[0] = '\0';
            blog[lsize] = '\0';
        }
        rc = cu__compile_fail(r, arch, inc, inc_tried, blog);
        if (log) {
            *log = blog;
            blog = NULL;
        }
        goto done;
    }
    size_t n = 0;
    if (cubin) {
        if ((rc = NV(nvrtcGetCUBINSize, prog, &n)))
            goto done;
    } else if ((rc = NV(nvrtcGetPTXSize, prog, &n))) {
        goto done;
    }
    if (!(out = malloc(n + 1))) {
        rc = GB_FAIL(GB_ENOMEM, "NVRTC output of %zu bytes", n);
        goto done;
    }
    if (cubin)
        rc = NV(nvrtcGetCUBIN, prog, out);
    else
        rc = NV(nvrtcGetPTX, prog, out);
    if (rc)
        goto done;
    out[n] = '\0';
    *image = out;
    out = NULL;
    if (size)
        *size = n;
done:
    if (prog)
        (void)gb__nv.nvrtcDestroyProgram(&prog);
    for (size_t i = 0; i < MAXOPTS; i++)
        free(opts[i]);
    free(defs);
    free(out);
    free(blog);
    return rc;
}

int gb_cuda_compile_ptx(const char *src, const char *arch, const char *const *defines,
                        size_t ndefines, char **ptx, char **log)
{
    /* An sm_XY target would yield a CUBIN; PTX wants the matching virtual architecture. */
    char virt[32];
    if (arch && strncmp(arch, "sm_", 3) == 0) {
        snprintf(virt, sizeof virt, "compute_%s", arch + 3);
        arch = virt;
    }
    return gb_cuda_compile(src, arch, defines, ndefines, ptx, NULL, log);
}
