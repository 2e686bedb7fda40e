/* gpubench — the kernel sources embedded at build time (tools/embed.c, kernels/). */
#ifndef GB_KERNELS_H
#define GB_KERNELS_H

#include <stdbool.h>

struct gb_kernel_file {
    const char *name; /* base name: "prelude.h", "stream.cl" */
    const char *text;
};

/* Every embedded file (kernels/ and the backends' preludes), ended by { NULL, NULL }. */
extern const struct gb_kernel_file gb_kernel_files[];

/* The text of kernels/<name>, or NULL. */
const char *gb_kernel_text(const char *name);

/* The prelude every kernel is compiled with: each built backend's dialect half
 * (backends/NAME/prelude_NAME.h, each taken only by its own compiler), then kernels/prelude.h.
 * Malloc'd (caller frees). GB_EINVAL when none is embedded, GB_ENOMEM. */
int gb_kernel_prelude(char **out);

/* The complete program text for kernel file `name`: the prelude (gb_kernel_prelude), then a
 * #line directive, then the file. Malloc'd (caller frees). GB_EINVAL for an unknown file (or a
 * prelude's name), GB_ENOMEM. */
int gb_kernel_source(const char *name, char **out);

#endif
