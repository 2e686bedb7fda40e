/* The tree's shape, kept by tools: the floors of includes and calls (scripts/check-layout.sh,
 * scripts/check-calls.py; docs/design.md), comments that name no work item of this project
 * (scripts/check-layout.sh) and the house format (scripts/check-format.sh, .clang-format). */
#include "test.h"

TEST(layout_no_include_arrow_points_up)
{
    char out[8192];
    int rc = gb_test_sh(GB_TEST_SRCDIR "/scripts/check-layout.sh " GB_TEST_SRCDIR
                                       " " GB_TEST_BUILDDIR " 2>&1",
                        out, sizeof out);
    ASSERT_MSG(rc == 0, "exit %d:\n%s", rc, out);
    /* This build's objects were read: the call half ran. */
    ASSERT_MSG(!strstr(out, "is not checked"), "%s", out);
}

/* A copy of the tree and of this build's objects in a temporary folder, with the files of
 * `plant` (shell commands run there, creating src/... sources) compiled into it, and the layout
 * check run over both. */
static int planted_check(const char *plant, char *out, size_t len)
{
    char cmd[4096];
    snprintf(
        cmd, sizeof cmd,
        "set -e; d=$(mktemp -d); trap 'rm -rf \"$d\"' EXIT; "
        "cp -r " GB_TEST_SRCDIR "/src " GB_TEST_SRCDIR "/backends " GB_TEST_SRCDIR
        "/suites \"$d\"/; mkdir -p \"$d\"/b/libgpubench.a.p; "
        "cp " GB_TEST_BUILDDIR "/libgpubench.a.p/*.o \"$d\"/b/libgpubench.a.p/; "
        "cd \"$d\"; %s; "
        "for f in $(cd \"$d\" && ls src/base/planted_*.c); do "
        "cc -c -o \"$d/b/libgpubench.a.p/$(echo $f | tr / _).o\" \"$d/$f\"; done; " GB_TEST_SRCDIR
        "/scripts/check-layout.sh \"$d\" \"$d\"/b 2>&1 || echo rc=$?",
        plant);
    return gb_test_sh(cmd, out, len);
}

TEST(layout_check_catches_a_call_up)
{
    /* A base file that calls the plan: no include shows it, the symbol tables do. */
    char out[8192];
    int rc = planted_check("printf 'int gb_plan_expand();\\nint planted(void) { return "
                           "gb_plan_expand(); }\\n' > src/base/planted_up.c",
                           out, sizeof out);
    ASSERT_MSG(rc == 0, "exit %d", rc);
    ASSERT_MSG(strstr(out, "src/base/planted_up.c: uses gb_plan_expand of src/run/plan.c") &&
                   strstr(out, "a call up") && strstr(out, "rc=1"),
               "%s", out);
}

TEST(layout_check_catches_a_circle)
{
    /* Two files of one floor that call each other. */
    char out[8192];
    int rc = planted_check("printf 'int planted_b(void);\\nint planted_a(void) { return "
                           "planted_b(); }\\n' > src/base/planted_a.c; "
                           "printf 'int planted_a(void);\\nint planted_b(void) { return "
                           "planted_a(); }\\n' > src/base/planted_b.c",
                           out, sizeof out);
    ASSERT_MSG(rc == 0, "exit %d", rc);
    ASSERT_MSG(strstr(out, "a circle of calls among: src/base/planted_a.c, src/base/planted_b.c") &&
                   strstr(out, "rc=1"),
               "%s", out);
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

TEST(layout_check_catches_an_issue_number)
{
    /* A comment that names a work item of this project's tracker must be refused, one line per
     * offence; another project's issue, cited by that project's name, stays. (The words planted
     * and looked for are split, so that this file does not hold them.) */
    char out[8192];
    int rc = gb_test_sh(
        "set -e; d=$(mktemp -d); trap 'rm -rf \"$d\"' EXIT; "
        "cp -r " GB_TEST_SRCDIR "/src " GB_TEST_SRCDIR "/backends " GB_TEST_SRCDIR
        "/suites \"$d\"/; "
        "printf '/* kept for the fix (iss%sue 7) */\\n' >> \"$d\"/src/base/stats.c; "
        "printf '/* Iss%sue #8: the fix */\\n' >> \"$d\"/suites/common.c; "
        "printf '/* as CLBlast iss%sue #486 says */\\n' >> \"$d\"/src/base/units.c; " GB_TEST_SRCDIR
        "/scripts/check-layout.sh \"$d\" 2>&1 || echo rc=$?",
        out, sizeof out);
    ASSERT_MSG(rc == 0, "exit %d", rc);
    char seven[32], eight[32];
    snprintf(seven, sizeof seven, "(\"%s 7\")", "issue");
    snprintf(eight, sizeof eight, "(\"%s #8\")", "Issue");
    ASSERT_MSG(strstr(out, "src/base/stats.c:") && strstr(out, seven) &&
                   strstr(out, "suites/common.c:") && strstr(out, eight) &&
                   !strstr(out, "units.c") && strstr(out, "rc=1"),
               "%s", out);
}

TEST(layout_check_catches_a_suites_private_state)
{
    /* Another suite that includes the gemm suite's state header must be refused; a header that
     * names the suites sharing it (the collective engine) and the suite's own parts stay. */
    char out[8192];
    int rc = gb_test_sh(
        "set -e; d=$(mktemp -d); trap 'rm -rf \"$d\"' EXIT; "
        "cp -r " GB_TEST_SRCDIR "/src " GB_TEST_SRCDIR "/backends " GB_TEST_SRCDIR
        "/suites \"$d\"/; "
        "echo '#include \"suites/gemm_state.h\"' >> \"$d\"/suites/burn.c; "
        "echo '#include \"suites/collective_engine.h\"' >> \"$d\"/suites/llm.c; "
        "echo '#include \"suites/tuning_state.h\"' >> \"$d\"/suites/tuning_space.c; " GB_TEST_SRCDIR
        "/scripts/check-layout.sh \"$d\" 2>&1 || echo rc=$?",
        out, sizeof out);
    ASSERT_MSG(rc == 0, "exit %d", rc);
    ASSERT_MSG(strstr(out, "suites/burn.c:") && strstr(out, "the gemm suite's private state") &&
                   !strstr(out, "llm.c") && !strstr(out, "tuning_space.c") && strstr(out, "rc=1"),
               "%s", out);
}
