/* gpubench — the suites this build registered. */
#ifndef GB_SUITES_H
#define GB_SUITES_H

#include "run/suite.h"

/* Every suite of the build, in the order of the `suites` list in meson.build (the order
 * `gpubench suites` lists them and a run derives their cross-case figures). A suite registers
 * itself by defining `const struct gb_suite gb_suite_NAME` in suites/NAME.c and adding a line,
 * NAME and its kernel files, to that list; the build generates the table (suites/table.c.in).
 * Never NULL. */
const struct gb_suite_table *gb_suites_builtin(void);

/* The kernel files (base names in kernels/: "stream.cl") suite `name` registered on its line of
 * the `suites` list in meson.build, NULL-terminated, in the order the line names them (none: just
 * the NULL); NULL for a suite the build did not register (a test's own). The build embeds every
 * file a suite registers and fails, naming the suite, when one is missing; gb_case_build
 * refuses a file the case's suite did not register. */
const char *const *gb_suite_kernels(const char *name);

#endif
