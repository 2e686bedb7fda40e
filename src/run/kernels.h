/* gpubench — the kernel sources embedded at build time (tools/embed.c, kernels/). */
#ifndef GB_KERNELS_H
#define GB_KERNELS_H

struct gb_kernel_file {
    const char *name; /* base name: "prelude.h", "stream.cl" */
    const char *text;
};

/* Every file of kernels/, ended by { NULL, NULL }. */
extern const struct gb_kernel_file gb_kernel_files[];

/* The text of kernels/<name>, or NULL. */
const char *gb_kernel_text(const char *name);

/* The complete program text for kernel file `name`: the prelude, then a #line directive, then
 * the file. Malloc'd (caller frees). GB_EINVAL for an unknown file, GB_ENOMEM. */
int gb_kernel_source(const char *name, char **out);

#endif
