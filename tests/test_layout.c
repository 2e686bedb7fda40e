/* The tree's shape, kept by tools: the include floors (scripts/check-layout.sh) and the house
 * format (scripts/check-format.sh, .clang-format). */
#include "test.h"

TEST(layout_no_include_arrow_points_up)
{
    char out[8192];
    int rc = gb_test_sh(GB_TEST_SRCDIR "/scripts/check-layout.sh " GB_TEST_SRCDIR " 2>&1", out,
                        sizeof out);
    ASSERT_MSG(rc == 0, "exit %d:\n%s", rc, out);
}

TEST(layout_check_catches_an_arrow_up)
{
    /* A copy of one base file that includes the report floor must be refused. */
    char out[8192];
    int rc = gb_test_sh("set -e; d=$(mktemp -d); trap 'rm -rf \"$d\"' EXIT; "
                        "cp -r " GB_TEST_SRCDIR "/src " GB_TEST_SRCDIR "/backends " GB_TEST_SRCDIR
                        "/suites \"$d\"/; echo '#include \"outputs/report.h\"' >> "
                        "\"$d\"/src/base/stats.c; " GB_TEST_SRCDIR
                        "/scripts/check-layout.sh \"$d\" 2>&1 || echo rc=$?",
                        out, sizeof out);
    ASSERT_MSG(rc == 0, "exit %d", rc);
    ASSERT_MSG(strstr(out, "src/base/stats.c") && strstr(out, "an arrow up") && strstr(out, "rc=1"),
               "%s", out);
}
