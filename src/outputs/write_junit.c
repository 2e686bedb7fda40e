/* gpubench — the JUnit XML writer, for judged documents: one test case per check (classname its
 * group), a failure or a skip with its message; every text through the one XML escaper
 * (gb_fputs_xml). */
#include "outputs/writer.h"

#include "base/util.h"
#include "outputs/writer_private.h"

static int junit_write(FILE *f, const struct gb_doc *d, const struct gb_write_opts *o)
{
    (void)o;
    size_t fail = 0, skip = 0;
    for (size_t i = 0; i < d->nchecks; i++) {
        fail += d->checks[i].status == GB_CHECK_FAIL;
        skip += d->checks[i].status == GB_CHECK_SKIP;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"", f);
    gb_fputs_xml(f, d->title);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n", d->nchecks, fail, skip);
    for (size_t i = 0; i < d->nchecks; i++) {
        const struct gb_doc_check *c = &d->checks[i];
        fputs("    <testcase classname=\"", f);
        gb_fputs_xml(f, c->group);
        fputs("\" name=\"", f);
        gb_fputs_xml(f, c->name);
        if (c->status == GB_CHECK_PASS) {
            fputs("\"/>\n", f);
            continue;
        }
        fputs(c->status == GB_CHECK_FAIL ? "\">\n      <failure message=\""
                                         : "\">\n      <skipped message=\"",
              f);
        gb_fputs_xml(f, c->message ? c->message : "");
        fputs("\"/>\n    </testcase>\n", f);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
    return gb__write_end(f, "junit");
}

GB_WRITER(junit, "JUnit XML, one test case per check (judged outputs only)", true, junit_write);
