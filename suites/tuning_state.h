/* gpubench — the tuning suite's state, shared by its files (suites/tuning.c: the kernels, data,
 * configurations, the search and the case; suites/tuning_space.c: the search space, its
 * constraints and each configuration's launch geometry). Private to the suite. */
#ifndef GB_TUNING_STATE_H
#define GB_TUNING_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run/suite.h"
#include "run/tune.h"

/* ---- the tunable kernels ---------------------------------------------------------------- */

enum kid { K_DOT, K_TRANSPOSE, K_GEMM };

struct tdef {
    const char *name;
    size_t n;
    int64_t values[12];
    int64_t def;
};

struct cdef {
    const char *expr, *what;
};

struct kdef {
    const char *name, *file;
    int64_t def_size;
    struct tdef tun[GB_TUNE_MAX_TUNABLES];
    size_t ntun;
    struct cdef cons[4];
    size_t ncons;
};

/* ---- state -------------------------------------------------------------------------------- */

#define MAX_CONS 24
#define MAX_VARS 12
#define NCAT 7

/* Why configurations were pruned (counts for the summary). */
enum cat { C_WG, C_DIM, C_LMEM, C_DIV, C_EXPR, C_KMAX, C_LOOP };

/* One configuration, built and ready to launch. */
struct inst {
    struct gb_program *prog;
    struct gb_kernel *k[2];
    struct gb_launch l[2];
    size_t nl;
};

struct tuning {
    enum kid kid;
    const struct kdef *kd;
    uint64_t n; /* the problem size */
    enum gb_search_kind search;
    uint64_t budget, seed;
    struct gb_space space;
    struct gb_constraint cons[MAX_CONS];
    size_t ncons;
    struct gb_tune_var vars[MAX_VARS];
    size_t nvars;
    const struct gb_device_info *info;
    char problem[128]; /* the tuning cache's problem key */
    /* dot: dot_final's work-group (the define FWG), not a tunable: 64 (kernels/dot.cl's
     * default), or the largest power of two below it that the device and the kernel allow */
    uint32_t fwg;

    /* pruning */
    uint64_t space_size, nvalid, pruned[NCAT];
    uint64_t max_partial; /* dot: the most partial sums of any valid configuration */

    /* buffers and host data */
    struct gb_buf *a, *b, *c, *partial;
    uint64_t in_elems, out_elems;
    float *ha, *hb;  /* inputs (host copies) */
    float *hcheck;   /* read-back of the output */
    float *gemm_ref; /* gemm: the exact product */
    double dot_ref;
    float *nan_fill; /* out_elems NaNs */

    /* the configuration under measurement, and the best one (the case's operation) */
    struct inst cur;
    struct gb_op_desc desc;

    /* results of the search */
    uint64_t evaluations, failed;
    double default_time, default_value, best_time;
    size_t best[GB_TUNE_MAX_TUNABLES];
    bool have_best, from_cache, cache_stored;
    char cache_note[64];
};

/* ---- the space (tuning_space.c) ------------------------------------------------------------ */

int64_t gb__tuning_val(const struct tuning *t, const size_t *choice, const char *name);
void gb__tuning_geometry(const struct tuning *t, const size_t *c, struct gb_launch *l, size_t *nl,
                         uint64_t *local_bytes);
bool gb__tuning_valid(void *user, const size_t *choice);
int gb__tuning_build_space(struct gb_case_ctx *ctx, struct tuning *t);
void gb__tuning_prune_pass(struct tuning *t);
uint64_t gb__tuning_pruned_total(const struct tuning *t);
const char *gb__tuning_pruned_text(const struct tuning *t, char *buf, size_t len);

#endif
