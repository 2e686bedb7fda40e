/* gpubench — what a suite is.
 *
 * A suite declares its axes (with default sweeps in profile syntax), and four callbacks that the
 * runner calls for every case: setup -> (warm-up and timed runs, owned by measure.c) ->
 * verify -> teardown. A suite never times anything itself: it says what one operation moves or
 * computes (gb_op_desc) and the harness derives GB/s and GFLOP/s in one place.
 */
#ifndef GB_SUITE_H
#define GB_SUITE_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"
#include "base/params.h"
#include "results/results.h" /* GB_MAX_SET, struct gb_figure */
#include "run/footprint.h"

struct gb_suite_run; /* run/config.h: a profile entry */
struct gb_child_io;  /* run/child.h: a helper process's side */

struct gb_axis_def {
    const char *name;
    enum gb_vtype type;
    /* Default sweep in profile syntax: "[h2d, d2h]", "{from: 4KiB, to: 256MiB, factor: 4}",
     * "256". Parsed by the config loader; a bad default is caught by the tests. */
    const char *def;
    /* GB_V_STR: the allowed values, NULL-terminated (NULL: any identifier). */
    const char *const *choices;
    /* GB_V_STR, optional: checks a value's form at load time (gemm's shape "N" or "MxNxK"):
     * returns false with what is wrong and what is expected in why[0..len); the loader reports
     * it at the value's file:line:col. */
    bool (*check)(const char *value, char *why, size_t len);
    /* GB_V_STR, optional: expands one value into several at load time (a model preset's name
     * into its layers' shapes): writes up to `cap` values into out and returns how many the
     * value stands for (0: none, the value is kept as given). Each value written is checked
     * like a value the profile gave. */
    size_t (*expand)(const char *value, char (*out)[GB_STR_MAX], size_t cap);
    /* GB_V_FLOAT, optional: checks a value at load time (a density in (0, 1]): false with what
     * is wrong and what is expected in why[0..len); reported at the value's file:line:col. */
    bool (*check_float)(double value, char *why, size_t len);
    /* GB_V_INT / GB_V_SIZE: inclusive bounds checked at load time (max 0: no upper bound). */
    int64_t min, max;
    /* GB_V_SIZE: 0 is accepted and means "the suite picks the size for the device" (a size is
     * otherwise positive). */
    bool zero_picks;
    const char *help;
    /* Multi-device suites: the value (GB_V_INT) is a position in the case's device set, 0-based
     * (the peer-copy matrix's source and destination). The plan keeps only the values below the
     * size of the set, so the default sweep may name more positions than a machine has. */
    bool device_pos;
    /* Results leave the axis out of their params where its value is the default `def` (one
     * value, compared as gb_value_format writes it): for an axis added after results were
     * kept, so that results from before it, which ran at that value, still match new ones in
     * compare, baselines, history, fleet and the tuning cache. A reader finds the axis absent
     * at its default (gb_params_int 0, gb_params_str ""). */
    bool omit_default;
};

/* Axis constructors, one per value type: the fields an axis of that type always sets by
 * position, the help text, then any other field by name; a field left out keeps its zero meaning
 * (choices NULL: any identifier; max 0: no upper bound). A suite's table then reads an axis to
 * a line or two:
 *   GB_AXIS_STR("op", "[copy, triad]", ops, "kernel"),
 *   GB_AXIS_INT("offset", "0", 0, 4096, "bytes into each buffer", .omit_default = true),
 * `def` is the default sweep in profile syntax, as above. */
#define GB_AXIS_STR(name_, def_, choices_, ...)                                  \
    {                                                                            \
        .name = (name_), .type = GB_V_STR, .def = (def_), .choices = (choices_), \
        .help = __VA_ARGS__                                                      \
    }
#define GB_AXIS_INT(name_, def_, min_, max_, ...)                                       \
    {                                                                                   \
        .name = (name_), .type = GB_V_INT, .def = (def_), .min = (min_), .max = (max_), \
        .help = __VA_ARGS__                                                             \
    }
#define GB_AXIS_SIZE(name_, def_, min_, max_, ...)                                       \
    {                                                                                    \
        .name = (name_), .type = GB_V_SIZE, .def = (def_), .min = (min_), .max = (max_), \
        .help = __VA_ARGS__                                                              \
    }
#define GB_AXIS_FLOAT(name_, def_, ...)                                         \
    {                                                                           \
        .name = (name_), .type = GB_V_FLOAT, .def = (def_), .help = __VA_ARGS__ \
    }
#define GB_AXIS_BOOL(name_, def_, ...)                                         \
    {                                                                          \
        .name = (name_), .type = GB_V_BOOL, .def = (def_), .help = __VA_ARGS__ \
    }

enum gb_timer {
    GB_TIMER_DEVICE, /* a sample is the time between two events recorded on ctx->q */
    GB_TIMER_HOST,   /* a sample is host wall time around run() + queue_sync(ctx->q) */
    /* A sample is host wall time around run() alone: for an operation that is a host call
     * complete when it returns (an allocation, a free), where a queue finish, which costs
     * microseconds even when the queue is empty, would be most of what is timed. run() waits
     * itself for any device work it counts. Recorded as "host". */
    GB_TIMER_HOST_CALL,
};

/* What one operation of a case is; filled in by setup(). */
struct gb_op_desc {
    double bytes; /* bytes one operation moves (derives GB/s); 0 when not a bandwidth case */
    double flops; /* floating-point (or integer) operations per operation (GFLOP/s) */
    bool integer; /* flops counts integer operations: the rate's unit is GOP/s, not GFLOP/s */
    /* The rate's unit when flops counts something that is not arithmetic (the atomics suite's
     * atomic adds: "Gatomic/s"), so that no chart or peak takes it for GFLOP/s; NULL: GFLOP/s
     * or GOP/s by `integer`. A string literal. */
    const char *rate_unit;
    /* Memory-hierarchy cases: the bytes of every buffer the operation touches, each counted
     * once (a copy's source and destination; a triad's three arrays). The result's regime
     * (gb_result_regime) compares it with the device's last-level cache. 0: not such a case. */
    double working_set;
    /* The bytes cross the host link (H2D, D2H, bidirectional): bounded by the link's rate, not
     * by device memory's. */
    bool host_link;
    /* With host_link: how many directions of the link the counted bytes share at once (1: H2D
     * or D2H; 2: bidir); the bound is that many times the link's rate per direction
     * (gb_tel_pcie_link_gbs). 0: no bound is given (staged peer copies cross it in turns). */
    unsigned host_link_dirs;
    enum gb_timer timer;
    uint64_t max_batch; /* upper bound on operations per sample (0: the profile's) */
};

/* Everything a suite callback sees of one case. The runner owns it. */
struct gb_case_ctx {
    const struct gb_backend_ops *ops;
    /* The suite whose case this is (set by the runner and the tests' case helpers): the kernel
     * builds (gb_case_build) refuse a file the suite did not register. NULL: not checked. */
    const struct gb_suite *suite;
    struct gb_device *dev;
    struct gb_queue *q; /* an in-order, profiling queue on dev, created by the runner */
    const struct gb_params *params;
    struct gb_op_desc op; /* setup() fills it */
    void *state;          /* suite->state_size zeroed bytes */
    char reason[1024];    /* why a case was skipped / failed verification */
    double max_error;     /* verify(): the largest relative error seen, for the results */
    /* Multi-device suites (GB_SUITE_MULTI_DEVICE): every device of the case's set, open, each
     * with its own in-order queue; devs[0] == dev and queues[0] == q. All of one backend. For
     * single-device suites ndevs is 1 and the arrays hold dev and q. Valid for one case. */
    struct gb_device *const *devs;
    struct gb_queue *const *queues;
    size_t ndevs;
    /* Named figures beside the headline value (gb_case_figure() and friends), copied into the
     * result when the case is ok. */
    struct gb_figure figures[GB_MAX_FIGURES];
    size_t nfigures;
    /* Set by the runner; NULL when a test drives a suite directly. A suite that measures several
     * configurations in one case (tuning) measures each through the harness with
     * gb_case_measure() (run/subcase.h), which records it in `extra`. */
    const struct gb_suite_run *run; /* the profile entry: budget, `tuned`, tuning cache, space */
    volatile sig_atomic_t *stop;    /* raised by Ctrl-C: stop measuring further configurations */
    struct gb_results *extra;       /* results recorded before the case's own, in this order */
    /* Set by the runner for figures() only (NULL, 0 elsewhere): the seconds per operation of
     * every sample kept, in the order taken; latency suites derive their percentiles from them
     * (with op.max_batch 1, each sample is one operation). */
    const double *samples;
    size_t nsamples;
    /* Set by the harness while it runs a sample it keeps (that sample's prepare, run and
     * settle), false otherwise: in warm-up, calibration, telemetry.energy_window's runs after
     * the last sample, and when a test drives the suite. A suite that derives headline values
     * inside its runs (gb_case_headline) keeps those of the kept samples by it, one per
     * sample in the order taken. */
    bool sampling;
    /* Set by figures() through gb_case_headline(), else empty: the result's headline becomes
     * one value per kept sample that the suite derived from what it measured inside the sample
     * on the harness's clock (a trace's p99 request latency, a fresh process's time to its
     * first result), in place of the time per operation. Owned by the runner. */
    struct {
        double *v;
        size_t n;
        char metric[32], unit[16];
        enum gb_better better;
        /* Set by gb_case_headline_value(): the result's value in place of the samples' median
         * (a figure pooled over every event of the kept samples); the statistics stay theirs. */
        bool has_value;
        double value;
    } headline;
};

/* gb_suite.flags */
enum gb_suite_flags {
    /* A case runs on a set of devices at once (every selected device of one backend) instead of
     * once per device: the plan expands it once per backend, the runner opens every device of
     * the set and fills ctx->devs / ctx->queues, and the result records the set. Such cases
     * are host-timed (GB_TIMER_HOST): run() returns when every device has finished. */
    GB_SUITE_MULTI_DEVICE = 1u << 0,
    /* With an integer axis `ndev` (how many devices of the set the case uses): the runner adds
     * the figures "speedup" (this result's value over the same case's with ndev = 1, measured
     * earlier in the run) and "efficiency" (speedup / ndev). With a throughput metric this is
     * T1 / Tn for strong scaling (fixed total work) and n T1 / Tn for weak scaling (fixed work
     * per device), the usual definitions. */
    GB_SUITE_SCALING = 1u << 1,
};

/* How the report draws a suite that has no chart builder of its own (docs/report.md, "Charts
 * from a hint"): bars, one per case and varying string param, or lines along the numeric axis
 * `x`, one per case and other varying param. The run writes it into the results file's
 * "charts", so that the report needs no suite table. */
enum gb_chart_kind { GB_CHART_NONE, GB_CHART_BARS, GB_CHART_LINE };
struct gb_chart_hint {
    enum gb_chart_kind kind;
    const char *x; /* GB_CHART_LINE: the axis along x (a size or an integer axis) */
};

struct gb_suite {
    const char *name;
    const char *summary;
    const struct gb_axis_def *axes;
    size_t naxes;
    /* The axis whose value names the case ("op": "h2d", "triad", ...), a GB_V_STR axis of
     * `axes`; the result records its value as `case` beside the params, and readers show the
     * case by it rather than as a param (gb_result_case_param). NULL: the cases have no name
     * (`case` is ""; every axis shows as a param). */
    const char *case_axis;
    size_t state_size;
    /* Optional. Called by the plan for every combination of axis values: returns false to drop a
     * combination that means nothing (D2D with pageable host memory), and may rewrite values to
     * their canonical form first (memory=device for D2D); identical cases are then merged. */
    bool (*normalize)(struct gb_params *p);
    /* Optional: whether axis `axis` means anything to the case with params p; false where
     * normalize gave it a neutral value the case never reads (serve's load outside its Server
     * scenario). Results keep such a param, so that compare still matches identical cases
     * (and results from before); what people read (the summary, compare, fleet, history,
     * check, the progress line) leaves it out (gb_suite_param_applies). p may lack axes (an
     * omit_default axis absent at its default; a results file's params). NULL: every axis
     * applies. */
    bool (*axis_applies)(const struct gb_params *p, const char *axis);
    /* Allocates, initialises inputs and builds kernels. Returns 0, GB_ESKIP (with
     * gb_case_skip()) when the case cannot run here, or an error. */
    int (*setup)(struct gb_case_ctx *ctx);
    /* Enqueues `reps` >= 1 operations on ctx->q (or the suite's own queues). Called inside a
     * timed region: no allocation, no host work beyond enqueueing. With GB_TIMER_HOST it
     * returns only when the operations have completed. */
    int (*run)(struct gb_case_ctx *ctx, uint64_t reps);
    /* After the timed runs: compares the output with a host reference. Returns 0, or
     * GB_EVERIFY with ctx->reason saying where and by how much it differs. */
    int (*verify)(struct gb_case_ctx *ctx);
    /* Frees everything setup allocated; must cope with a partial setup. */
    void (*teardown)(struct gb_case_ctx *ctx);
    /* Optional, for operations whose inverse must happen between two timed ones, outside the
     * timing (an allocation's free, a free's allocation): prepare() is called before every
     * run() the harness makes (warm-up, calibration, samples) and settle() after it, both
     * untimed, with the same `reps`, and their time does not count against the sampling budget
     * (max_time). A non-zero return fails the case like run()'s. settle()
     * also checks what the timed operations produced (each allocation written and read back)
     * and keeps a mismatch for verify() to report. */
    int (*prepare)(struct gb_case_ctx *ctx, uint64_t reps);
    int (*settle)(struct gb_case_ctx *ctx, uint64_t reps);
    /* GB_SUITE_* bits; 0 for a single-device suite. */
    unsigned flags;
    /* Optional. After a successful verify(): adds figures derived from the measurement
     * (`op_time_s`, the median seconds per operation) and the suite's own bookkeeping, with
     * gb_case_figure() and friends. Called before teardown. */
    void (*figures)(struct gb_case_ctx *ctx, double op_time_s);
    /* Optional. Called once after the last case of a run (an interrupted run too): appends
     * results derived across this suite's results in rs (the batching knee). */
    int (*derive)(struct gb_results *rs);
    /* Whether profile entries of this suite take `tunables:` and `constraints:` (tuning). */
    bool search_space;
    /* Optional, multi-device suites: the positions in the case's device set (nset devices) of
     * the devices that take part in the case with parameters p, into pos (distinct, the first
     * recorded as the result's device); returns how many, 1 to nset. NULL: the runner's rule
     * (the first `ndev` of the set with an integer axis `ndev`, else the distinct values of
     * the device_pos axes, else the whole set). For a suite whose cases use a pair of
     * positions or the whole set depending on another axis (peerbw's op). */
    size_t (*took_part)(const struct gb_params *p, size_t nset, size_t pos[GB_MAX_SET]);
    /* Optional: the report's chart of a suite without a builder of its own. */
    struct gb_chart_hint chart;
    /* Optional, for suites whose case needs other processes (run/child.h): the body of a
     * helper process that the case started with gb_child_start(); runs in a fresh gpubench
     * process before anything else and returns its exit status. It opens its own device
     * (io->backend, io->device) and answers the case's commands. */
    int (*child)(struct gb_child_io *io);
    /* Optional: the arithmetic of one operation of the case with parameters p, from the
     * parameters alone (no device): `validate` estimates a case's time from it. 0: unknown. */
    double (*op_flops)(const struct gb_params *p);
    /* Optional, for a suite whose cases may allocate large buffers: what the case with
     * parameters p holds at once on the host and on the device (run/footprint.h), from its
     * parameters and the device's facts alone (info may be all zero: nothing is known of the
     * device; a size the suite picks for the device is then left out), at least what setup()
     * and verify() allocate at their peak. The runner checks it before setup()
     * (gb_footprint_check): a case that cannot fit is a skip naming both sizes and the limits,
     * and setup() is not called. A multi-device suite gives the device bytes of each device of
     * the set. Leaves *fp zero for a value it cannot read (setup() says what is wrong). */
    void (*footprint)(const struct gb_params *p, const struct gb_device_info *info,
                      struct gb_footprint *fp);
};

/* A table of suites: what a run may name. The suites floor builds it (suites/suites.h,
 * gb_suites_builtin(): every suite the build registered) and the command hands it to the profile
 * loader, which keeps it in the profile for the plan and the runner; nothing on this floor knows
 * which suites exist. `v` holds n descriptors, names distinct. */
struct gb_suite_table {
    const struct gb_suite *const *v;
    size_t n;
};

/* The suite of `t` called `name`, or NULL (also for a NULL table). */
const struct gb_suite *gb_suite_table_find(const struct gb_suite_table *t, const char *name);
/* The axis of `s` called `name`, or NULL. */
const struct gb_axis_def *gb_suite_axis(const struct gb_suite *s, const char *name);
/* The name of the case of `s` with parameters p: the value of its case_axis, or "" when the suite
 * names none (or p lacks it, or it is not a string). Never NULL; points into p. */
const char *gb_suite_case_name(const struct gb_suite *s, const struct gb_params *p);
/* Whether param `name` of value v, of a case of s with params p, applies to the case, for what
 * people read: false where v says the axis does not apply (a string "none"; a whole 0 where
 * the axis takes 1 at least and 0 does not pick a size: batching's items=0 for a copy) or where
 * s's axis_applies says so. s may be NULL (a suite this build lacks: only "none" is known). */
bool gb_suite_param_applies(const struct gb_suite *s, const struct gb_params *p, const char *name,
                            const struct gb_value *v);

#endif
