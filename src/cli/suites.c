/* gpubench suites: the suites, their axes and default sweeps. */
#include "common.h"
#include "run/suite.h"
#include "suites/suites.h"

static const char usage[] =
    "usage: gpubench suites [--format NAME]\n"
    "  lists the suites, each with its axes and their default sweeps: a table of the\n"
    "  suites, one of their axes (text without --format)\n" GB__FORMAT_HELP;
static const struct gb__cmd cmd = {"suites", usage, 0, 0, NULL, "no operand"};

struct suites_args {
    const char *format;
};

static const char *kind_name(enum gb_vtype t)
{
    static const char *const names[] = {"size", "integer", "number", "string", "boolean"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

/* The suites as a document: a table of suites, and one of every axis with its default. */
static int suites_doc(const struct gb_suite_table *t, struct gb_doc *d)
{
    static const char *const scols[] = {"suite", "summary"};
    static const char *const acols[] = {"suite", "axis", "kind", "default", "help"};
    struct gb_doc_table *ts, *ta;
    int rc = gb_doc_init(d, "gpubench-suites/1", "suites");
    if (!rc)
        rc = gb_doc_table(d, "suites", "", scols, 2, &ts);
    if (!rc)
        gb_doc_column_wrap(ts, 1); /* read whole, wrapped to the terminal */
    for (size_t i = 0; !rc && i < t->n; i++) {
        size_t r;
        if (!(rc = gb_doc_row(ts, &r)) && !(rc = gb_doc_text(ts, r, 0, "%s", t->v[i]->name)))
            rc = gb_doc_text(ts, r, 1, "%s", t->v[i]->summary);
    }
    if (!rc)
        rc = gb_doc_table(d, "axes", "axes", acols, 5, &ta);
    if (!rc) {
        gb_doc_column_set(ta, 4, false, true);
        gb_doc_column_prose(ta, 4); /* OpenMetrics: an info metric per axis, without its help */
    }
    for (size_t i = 0; !rc && i < t->n; i++)
        for (size_t a = 0; !rc && a < t->v[i]->naxes; a++) {
            const struct gb_axis_def *ax = &t->v[i]->axes[a];
            size_t r;
            if ((rc = gb_doc_row(ta, &r)) || (rc = gb_doc_text(ta, r, 0, "%s", t->v[i]->name)) ||
                (rc = gb_doc_text(ta, r, 1, "%s", ax->name)) ||
                (rc = gb_doc_text(ta, r, 2, "%s",
                                  ax->device_pos ? "device" : kind_name(ax->type))) ||
                (rc = gb_doc_text(ta, r, 3, "%s", ax->def)))
                break;
            rc = gb_doc_text(ta, r, 4, "%s", ax->help ? ax->help : "");
        }
    return rc;
}

static int suites_main(int argc, char **argv)
{
    struct suites_args a = {0};
    static const struct gb__opt opts[] = {GB__TEXT(struct suites_args, format, "format", 'f'),
                                          GB__END};
    enum gb_exit rc;
    if (gb__parse_options(&cmd, argc, argv, GB__GROUPS({opts, &a}), &rc) < 0)
        return rc;
    if ((rc = gb__check_format("suites", a.format, false)) != GB_EXIT_OK)
        return rc;
    /* The document through a writer, text without --format: no listing of its own. */
    struct gb_doc d;
    rc = suites_doc(gb_suites_builtin(), &d)
             ? GB_EXIT_USAGE
             : gb__write_format("suites", a.format ? a.format : "text", &d);
    gb_doc_free(&d);
    return rc;
}

const struct gb_command gb_command_suites = {
    .name = "suites",
    .summary = "list the suites and their axes with default sweeps",
    .main = suites_main,
};
