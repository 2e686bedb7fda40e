/* gpubench — the plan: which devices, and which cases on each (suites x axes x devices). */
#ifndef GB_PLAN_H
#define GB_PLAN_H

#include <stdio.h>

#include "backends/backend.h"
#include "run/config.h"

/* The most cases a plan may hold: beyond it a profile is almost surely a mistake. */
#define GB_PLAN_MAX_CASES 100000

struct gb_plan_device {
    const struct gb_backend_ops *ops;
    int index; /* the backend's device index */
    struct gb_device_info info;
};

struct gb_plan_case {
    const struct gb_suite_run *run; /* the profile entry: suite and measurement budget */
    struct gb_params params;
    size_t device; /* index into gb_plan.devices (multi-device: set[0]) */
    /* Multi-device suites (GB_SUITE_MULTI_DEVICE): the device set the case runs on at once,
     * indices into gb_plan.devices (every selected device of one backend, in selection order,
     * at most GB_MAX_SET). nset is 0 for single-device cases. */
    size_t set[GB_MAX_SET];
    size_t nset;
};

struct gb_plan {
    const struct gb_suite_table *suites; /* the profile's (gb_plan_expand) */
    struct gb_plan_device *devices;
    size_t ndevices;
    struct gb_plan_case *cases; /* device-major: all cases of devices[0] first; then the
                                     * multi-device cases, one group per backend */
    size_t ncases;
};

/* Selects devices: the profile's `backends:` and `devices:` and then the command line's
 * `backend` ("opencl", "cuda"; NULL: any) and `device_sel` (NULL or "all"; else a comma list of
 * items, each an index "1", a backend-qualified index "opencl:1", or a case-insensitive
 * substring of the device name). Returns GB_ENODEV with a message when nothing is selected
 * (a named backend that is unavailable says why). */
int gb_plan_devices(const struct gb_profile *p, const char *backend, const char *device_sel,
                    struct gb_plan *plan);

/* Expands the profile's suite entries into cases for every selected device: the Cartesian
 * product of the sweeps in axis order (the last axis varies fastest), passed through the suite's
 * normalize() and with duplicates merged. `suite_filter` (NULL: all) keeps only entries of the
 * suites it names (comma-separated). Multi-device suites expand once per backend, over the set
 * of that backend's selected devices, after every single-device case; values of a device_pos
 * axis at or above the set's size are dropped. */
int gb_plan_expand(const struct gb_profile *p, const char *suite_filter, struct gb_plan *plan);

void gb_plan_free(struct gb_plan *plan);

#endif
