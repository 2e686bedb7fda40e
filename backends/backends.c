/* gpubench — the table of backends (generated from meson.build's `backends` list:
 * backends/table.c.in) looked up and started. */
#include "backends/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct gb_backend_ops *gb_backend_find(const char *name)
{
    for (size_t i = 0; i < gb_backend_count; i++)
        if (strcmp(gb_backends[i]->name, name) == 0)
            return gb_backends[i];
    return NULL;
}

void gb_backends_probe(struct gb_backend_status *status)
{
    for (size_t i = 0; i < gb_backend_count; i++) {
        const struct gb_backend_ops *ops = gb_backends[i];
        gb_error_clear();
        int err = ops->init();
        if (status) {
            status[i] = (struct gb_backend_status){.ops = ops, .err = err};
            if (err)
                snprintf(status[i].reason, sizeof status[i].reason, "%s",
                         *gb_error_msg() ? gb_error_msg() : gb_strerror(err));
            else
                status[i].ndevices = ops->device_count();
        }
    }
}
