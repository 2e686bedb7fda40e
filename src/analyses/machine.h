/* gpubench — what changed in the machine between two runs: the likely cause of a verdict. */
#ifndef GB_COMPARE_MACHINE_H
#define GB_COMPARE_MACHINE_H

#include <stddef.h>
#include <stdio.h>

#include "results/results.h"

/* Writes to f one "warning: machine: ..." line for each difference between base and new that
 * may explain a change in the numbers, and returns how many there were:
 * - per device (matched by backend and index): its driver (the device's driver string, and
 *   NVML's driver version), its power limit (> 0.5 W apart), its clocks (the applications clock
 *   or the maximum SM clock; the mean clock over the results' telemetry, > 5% apart);
 * - the CPU governor and turbo state;
 * - throttling: the number of results with throttled samples.
 * A field unknown on either side is not compared. */
size_t gb_machine_warnings(FILE *f, const struct gb_results *base, const struct gb_results *new_);

#endif
