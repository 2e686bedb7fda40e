/* gpubench — the JUnit XML writer, for judged documents, and the one JUnit layout of every
 * command that judges (compare, check, fleet, ...):
 *   <testsuites name=SUITE tests failures errors skipped>
 *     <testsuite name=SUITE tests failures errors skipped>   (SUITE: what was judged, the
 *                                                             document's suite, else its title)
 *       <testcase classname=GROUP name=NAME/>                (a pass)
 *       <testcase ...><system-out>DETAIL</system-out></testcase>   (a pass with a detail)
 *       <testcase ...><failure message=M>M</failure></testcase>    (FAIL; ERROR: <error>)
 *       <testcase ...><skipped message=M/></testcase>              (SKIP)
 * one test case per check, named as base/doc.h's struct gb_doc_check says (classname the
 * suite, name "suite/case/params"), so that a CI server follows one case from night to night;
 * every text through the one XML escaper (gb_fputs_xml). */
#include "outputs/writer.h"

#include <stdlib.h>

#include "base/util.h"
#include "outputs/writer_private.h"

/* s for XML text or an attribute: line breaks and tabs as spaces (a parser would fold them so
 * anyway in an attribute, and a JUnit reader then shows a name other than the document's),
 * escaped by gb_fputs_xml. */
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
    size_t n[4] = {0};
    for (size_t i = 0; i < d->nchecks; i++)
        n[(unsigned)d->checks[i].status < 4 ? d->checks[i].status : GB_CHECK_SKIP]++;
    const char *suite = d->suite ? d->suite : d->title;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    for (int level = 0; level < 2; level++) {
        fputs(level ? "  <testsuite name=\"" : "<testsuites name=\"", f);
        attr(f, suite);
        fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n",
                d->nchecks, n[GB_CHECK_FAIL], n[GB_CHECK_ERROR], n[GB_CHECK_SKIP]);
    }
    for (size_t i = 0; i < d->nchecks; i++) {
        const struct gb_doc_check *c = &d->checks[i];
        fputs("    <testcase classname=\"", f);
        attr(f, c->group);
        fputs("\" name=\"", f);
        attr(f, c->name);
        if (c->status == GB_CHECK_PASS && !c->message) {
            fputs("\"/>\n", f);
            continue;
        }
        fputs("\">\n      ", f);
        if (c->status == GB_CHECK_PASS) {
            fputs("<system-out>", f);
            attr(f, c->message);
            fputs("</system-out>", f);
        } else if (c->status == GB_CHECK_FAIL || c->status == GB_CHECK_ERROR) {
            const char *tag = c->status == GB_CHECK_FAIL ? "failure" : "error";
            fprintf(f, "<%s message=\"", tag);
            attr(f, c->message ? c->message : "");
            fputs("\">", f);
            attr(f, c->message ? c->message : "");
            fprintf(f, "</%s>", tag);
        } else {
            fputs("<skipped message=\"", f);
            attr(f, c->message ? c->message : "");
            fputs("\"/>", f);
        }
        fputs("\n    </testcase>\n", f);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
    return gb__write_end(f, "junit");
}

GB_WRITER(junit, "JUnit XML, one test case per check (judged outputs only)", true, junit_write);
