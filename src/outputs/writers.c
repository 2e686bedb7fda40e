/* gpubench — finding a writer and what every writer shares (contract in writer.h). */
#include "outputs/writer.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"

const struct gb_writer *gb_writer_find(const char *name)
{
    for (size_t i = 0; name && gb_writers[i]; i++)
        if (strcmp(gb_writers[i]->name, name) == 0)
            return gb_writers[i];
    return NULL;
}

bool gb_writer_fits(const struct gb_writer *w, bool judged)
{
    return w && (judged || !w->needs_verdict);
}

char *gb_writer_names(bool judged, char *buf, size_t len)
{
    size_t n = 0, k = 0;
    for (size_t i = 0; gb_writers[i]; i++)
        n += gb_writer_fits(gb_writers[i], judged);
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; gb_writers[i]; i++) {
        if (!gb_writer_fits(gb_writers[i], judged))
            continue;
        k++;
        gb_appendf(buf, len, "%s%s", k == 1 ? "" : k == n ? " or " : ", ", gb_writers[i]->name);
    }
    return buf;
}

int gb_write_width(FILE *f)
{
    struct winsize ws;
    int fd = f ? fileno(f) : -1;
    if (f && fd < 0)
        fd = STDOUT_FILENO;
    if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    char *end = NULL;
    long v = c && *c ? strtol(c, &end, 10) : 0;
    return end && *end == '\0' && v > 0 && v < 100000 ? (int)v : 0;
}

int gb_write_doc(FILE *f, const char *name, const struct gb_doc *d)
{
    const struct gb_writer *w = gb_writer_find(name);
    if (!gb_writer_fits(w, d->judged)) {
        char names[256];
        return GB_USER_FAIL(GB_EINVAL, "no format '%s' for this output (formats: %s)",
                            name ? name : "", gb_writer_names(d->judged, names, sizeof names));
    }
    struct gb_write_opts o = {.width = gb_write_width(f)};
    return w->write(f, d, &o);
}
