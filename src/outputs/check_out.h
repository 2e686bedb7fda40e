/* gpubench — the check's document: every result's verdict against its model's expectation, for
 * the writers (outputs/writer.h: text, markdown, json, csv, junit). */
#ifndef GB_CHECK_OUT_H
#define GB_CHECK_OUT_H

#include "analyses/expect.h"
#include "base/doc.h"

/* The document of c (kind "gpubench-check-doc/1"): notes (the expectations used, the rule),
 * the table "check" (verdict, case, device, value, expected, change %, band %, z, basis, runs,
 * note; one row per result) and one check per result (PASS for NORMAL and HIGH, FAIL for LOW,
 * IMPLAUSIBLE and FAILED, SKIP for UNKNOWN and SKIPPED), per device as a whole ("whole/DEVICE")
 * and per health item ("health/DEVICE/ITEM"), "run/complete" failing an incomplete run, and
 * the verdict line. The checks are named as base/doc.h says ("suite/case/params", "@device"
 * when the results span several devices; the suite "gpubench check PROFILE"). 0 or
 * GB_ENOMEM; d must be freed either way. */
int gb_check_doc(const struct gb_check *c, struct gb_doc *d);

#endif
