/* gpubench — the runner: every case of a plan, measured, verified and written out. */
#ifndef GB_RUNNER_H
#define GB_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "run/plan.h"
#include "results/results.h"

/* Where a plan's cases stand in the whole command, for the progress line's count and ETA: the
 * cases the command ran before this plan and all it runs (0: this plan's alone), and when it
 * began on gb_now()'s clock (0: when this plan began). A command that runs one plan leaves it
 * zero; calibrate's runs of one profile count as one. */
struct gb_progress_span {
    size_t before, total;
    double t0;
};

struct gb_runner_opts {
    const char *out_path;         /* results file, rewritten atomically after every case */
    FILE *progress;               /* "case i of N, ETA" lines; NULL for none */
    struct gb_progress_span span; /* the progress line's place in the command */
    volatile sig_atomic_t *stop;  /* raised by SIGINT: stop after the current sample */
    /* A worker of a supervised run (supervise.h); all zero for a run in this process. */
    size_t first_case; /* start at this case of the plan */
    /* Called before case k runs (after its devices are open). */
    void (*case_begin)(void *arg, size_t k);
    /* Called after case k's results, rs->results[first_result..nresults) (the results a suite
     * recorded inside the case, then the case's own), were added; it may remove them from rs.
     * Non-zero ends the run with that status. When set, the runner neither derives figures
     * across cases (scaling, the batching knee) nor writes out_path: the supervisor does. */
    int (*case_done)(void *arg, size_t k, struct gb_results *rs, size_t first_result);
    void *hook_arg;
};

/* Runs every case of plan on its device. Each case: setup (may skip), gb_measure, verify,
 * teardown; a failing case is recorded as failed with its reason and the run goes on; a device
 * that cannot be opened fails its cases. The results file is rewritten after each case, so a
 * crash, a hang killed from outside or Ctrl-C loses at most the case in progress; run.interrupted
 * stays true in the file until the run has finished (results.h). rs must have
 * its `run` metadata filled in; devices and results are appended.
 * Returns 0 when every case is ok or skipped, 1 when some case failed, GB_EINTR when
 * interrupted, GB_EIO when the results file cannot be written. */
int gb_run_plan(const struct gb_plan *plan, const struct gb_runner_opts *o, struct gb_results *rs);

/* ---- private to the runner and its supervisor (supervise.c) -------------------------------- */

/* Enters in rs->devices the devices of the cases [*entered, upto) that begin a group (the
 * single-device cases of one device, or the multi-device cases of one set, run on one opening),
 * as gb_run_plan does when it reaches them, and advances *entered to upto. So a worker that
 * starts at case k and its supervisor give every device the same index. 0 or GB_ENOMEM. */
int gb__runner_enter_devices(const struct gb_plan *plan, struct gb_results *rs, size_t *entered,
                             size_t upto);
/* After the runner opened dev for its cases: probes the driver's limits (device_probe, where
 * the backend has it) and records in rs->devices[slot] what the device list could not say
 * (gb_device_info.max_loop_trips); a slot out of range records nothing. */
void gb__runner_device_opened(struct gb_results *rs, int slot, struct gb_device *dev);
/* The header of case k's result into r (zeroed first): suite, case name, backend, params and
 * its devices as indices into rs->devices, which must hold them (gb__runner_enter_devices up to
 * k + 1). For a case the supervisor records itself (timed out, worker killed). 0 or GB_ENOMEM. */
int gb__runner_case_header(const struct gb_plan *plan, struct gb_results *rs, size_t k,
                           struct gb_result *r);
/* GB_SUITE_SCALING: adds speedup and efficiency to r against the same case on one device among
 * the results in rs (when there is one). */
void gb__runner_scaling_figures(const struct gb_suite *s, const struct gb_results *rs,
                                struct gb_result *r);
/* Records in rs the chart hints (gb_suite.chart) of the suites the plan runs, for the report. */
void gb__runner_chart_hints(const struct gb_plan *plan, struct gb_results *rs);
/* After every case: each suite's figures derived across cases (the batching knee), then every
 * figure held to its bound, the derived ones included (gb_results_check_figures). 0, or 1 when a
 * figure failed a result, or GB_ENOMEM. */
int gb__runner_derive(const struct gb_plan *plan, struct gb_results *rs);
/* The progress line of case i on f ("[3/40, ETA 12 s] opencl:0 transfer ..."), counted and timed
 * over the command (span; NULL: the plan alone) and rewritten in place: one line, cut to the
 * terminal's width (f's, else $COLUMNS, else 80). f may be NULL (nothing). */
void gb__runner_progress(FILE *f, size_t i, const struct gb_plan *plan, double t_start,
                         const struct gb_progress_span *span);

#endif
