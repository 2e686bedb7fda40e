/* gpubench — the established JSON files: the layout of a document's kind (contract in
 * layout.h). */
#include "outputs/layout.h"

#include <string.h>

#include "base/error.h"

#include "outputs/compare_out.h"

static const struct {
    const char *kind;
    int (*write)(FILE *f, const struct gb_doc *d);
} layouts[] = {
    {GB_COMPARE_DOC_KIND, gb__layout_compare},
    {GB_FLEET_SCHEMA, gb__layout_fleet},
    {GB_HISTORY_SCHEMA, gb__layout_history},
    {GB_HISTORY_CSV_SCHEMA, gb__layout_history_csv},
    {GB_CALIBRATION_SCHEMA, gb__layout_calibration},
    {GB_DEVICES_SCHEMA, gb__layout_devices},
};

int gb_write_layout(FILE *f, const struct gb_doc *d)
{
    for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++)
        if (d->kind && strcmp(d->kind, layouts[i].kind) == 0) {
            int rc = layouts[i].write(f, d);
            if (rc)
                return rc;
            if (fflush(f) != 0 || ferror(f))
                return GB_FAIL(GB_EIO, "writing the %s file failed", d->kind);
            return 0;
        }
    return GB_FAIL(GB_EINVAL, "no file layout for a document of kind '%s'", d->kind ? d->kind : "");
}
