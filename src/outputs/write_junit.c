/* gpubench — the JUnit XML writer, for judged documents: one test case per check (classname its
 * group), a failure or a skip with its message; every text through the one XML escaper
 * (gb_fputs_xml). */
#include "outputs/writer.h"

#include <stdlib.h>

#include "base/util.h"
#include "outputs/writer_private.h"

/* s for an XML attribute: line breaks and tabs as spaces (a parser would fold them so anyway,
 * and a JUnit reader then shows a name other than the document's), escaped by gb_fputs_xml. */
static void attr(FILE *f, const char *s)
{
    char *c = gb__clean_dup(s);
    for (char *p = c; p && *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t')
            *p = ' ';
    gb_fputs_xml(f, c ? c : "?");
    free(c);
}

static int junit_write(FILE *f, const struct gb_doc *d, const struct gb_write_opts *o)
{
    (void)o;
    size_t fail = 0, skip = 0;
    for (size_t i = 0; i < d->nchecks; i++) {
        fail += d->checks[i].status == GB_CHECK_FAIL;
        skip += d->checks[i].status == GB_CHECK_SKIP;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"", f);
    attr(f, d->title);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n", d->nchecks, fail, skip);
    for (size_t i = 0; i < d->nchecks; i++) {
        const struct gb_doc_check *c = &d->checks[i];
        fputs("    <testcase classname=\"", f);
        attr(f, c->group);
        fputs("\" name=\"", f);
        attr(f, c->name);
        if (c->status == GB_CHECK_PASS) {
            fputs("\"/>\n", f);
            continue;
        }
        fputs(c->status == GB_CHECK_FAIL ? "\">\n      <failure message=\""
                                         : "\">\n      <skipped message=\"",
              f);
        attr(f, c->message ? c->message : "");
        fputs("\"/>\n    </testcase>\n", f);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
    return gb__write_end(f, "junit");
}

GB_WRITER(junit, "JUnit XML, one test case per check (judged outputs only)", true, junit_write);
