/* gpubench — the suites this build registered. */
#ifndef GB_SUITES_H
#define GB_SUITES_H

#include "run/suite.h"

/* Every suite of the build, in the order of the `suites` list in meson.build (the order
 * `gpubench suites` lists them and a run derives their cross-case figures). A suite registers
 * itself by defining `const struct gb_suite gb_suite_NAME` in suites/NAME.c and adding NAME to
 * that list; the build generates the table (suites/table.c.in). Never NULL. */
const struct gb_suite_table *gb_suites_builtin(void);

#endif
