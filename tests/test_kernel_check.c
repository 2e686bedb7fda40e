/* The kernel checker (scripts/check-kernels.sh): defects planted in copies of a real kernel file
 * (kernels/multi.cl) are each caught by Oclgrind and named with their kernel, and the unmodified
 * kernels pass. The whole check over the suites is the script itself (CI runs it); these run its
 * --sim route, the same tally, in about 10 s. Skipped where oclgrind is not installed. */
#include <string.h>

#include "test.h"

static char out[16384];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

/* Skips the test where the script finds no Oclgrind (its exit 77). */
static void need_oclgrind(void)
{
    if (sh("command -v oclgrind-kernel && test -f /usr/lib/oclgrind/liboclgrind-rt-icd.so") != 0)
        SKIP("oclgrind is not installed (scripts/bootstrap.sh installs it)");
}

/* A folder holding three planted copies of kernels/multi.cl and kernels/collective.cl, each
 * changed by one edit, and a
 * simulator file for each (planted/<name>.sim), and one for the unmodified multi_work
 * (clean/multi_work.sim); "fail" when an edit changed nothing (the kernel was rewritten). */
static const char *planted(void)
{
    const char *d = gb_test_tmpdir();
    int rc =
        sh("set -e; d=%s; k=%s/kernels/multi.cl; r=%s/kernels/collective.cl; "
           "c=%s/configs/kernel-check; mkdir -p $d/clean; "
           /* An out-of-bounds write: multi_work stores one element past its own. */
           "sed 's/y\\[base + i\\] = v;/y[base + i + 1] = v;/' $k > $d/oob_write.cl; "
           "printf 'oob_write.cl\\nmulti_work\\n64 1 1\\n16 1 1\\n<size=256 float fill=0>\\n"
           "<size=8 ulong> 0\\n<size=4 uint> 4\\n' > $d/oob_write.sim; "
           "sed 's/^oob_write.cl$/multi.cl/' $d/oob_write.sim > $d/clean/multi_work.sim; "
           /* A read past a buffer's end: coll_reduce reads b one element ahead, over all 64. */
           "sed 's/b\\[boff + i\\]/b[boff + i + 1]/' $r > $d/read_past.cl; "
           "sed 's/^collective.cl$/read_past.cl/; s/^<size=8 ulong> 8$/<size=8 ulong> 0/; "
           "s/^<size=8 ulong> 50$/<size=8 ulong> 64/' $c/coll_reduce.sim > $d/read_past.sim; "
           /* A missing barrier: multi_sgemm without the one that ends a tile's reads, so the next
         * tile's writes race them. */
           "awk '/GB_BARRIER\\(\\);/ && ++n == 2 {next} {print}' $k > $d/race.cl; "
           "sed 's/^multi.cl$/race.cl/' $c/multi_sgemm.sim > $d/race.sim; "
           "for f in oob_write race; do cmp -s $k $d/$f.cl && echo fail $f; done; "
           "cmp -s $r $d/read_past.cl && echo fail read_past; "
           "grep -q 'ulong> 64' $d/read_past.sim || echo fail read_past.sim",
           d, GB_TEST_SRCDIR, GB_TEST_SRCDIR, GB_TEST_SRCDIR);
    ASSERT_MSG(rc == 0 && !strstr(out, "fail"), "%s", out);
    return d;
}

/* Runs the checker on simulator files; its exit status, its output in out. */
static int check(const char *dir, const char *sims)
{
    return sh("cd %s && GPUBENCH_BUILD=%s/b scripts/check-kernels.sh --sim %s 2>&1", GB_TEST_SRCDIR,
              dir, sims);
}

TEST(kcheck_catches_an_out_of_bounds_write)
{
    need_oclgrind();
    const char *d = planted();
    char sims[512];
    snprintf(sims, sizeof sims, "%s/oob_write.sim", d);
    ASSERT_MSG(check(d, sims) == 1, "%s", out);
    ASSERT_MSG(strstr(out, "FAIL     multi_work") && strstr(out, "Invalid write of size 4") &&
                   strstr(out, "0 of 1 kernels ran clean, 1 with errors"),
               "%s", out);
}

TEST(kcheck_catches_a_read_past_the_end)
{
    need_oclgrind();
    const char *d = planted();
    char sims[512];
    snprintf(sims, sizeof sims, "%s/read_past.sim", d);
    ASSERT_MSG(check(d, sims) == 1, "%s", out);
    ASSERT_MSG(strstr(out, "FAIL     coll_reduce") && strstr(out, "Invalid read of size 4") &&
                   !strstr(out, "Invalid write"),
               "%s", out);
}

TEST(kcheck_catches_a_missing_barrier)
{
    need_oclgrind();
    const char *d = planted();
    char sims[512];
    snprintf(sims, sizeof sims, "%s/race.sim", d);
    ASSERT_MSG(check(d, sims) == 1, "%s", out);
    ASSERT_MSG(strstr(out, "FAIL     multi_sgemm") && strstr(out, "data race"), "%s", out);
}

TEST(kcheck_passes_the_kernels_as_they_are)
{
    /* The same simulator files on kernels/multi.cl and collective.cl unmodified, and every file
     * of configs/kernel-check (multi.cl's, collective.cl's and llm.cl's kernels): each kernel
     * ok, 0 errors. */
    need_oclgrind();
    const char *d = planted();
    char sims[1024];
    snprintf(sims, sizeof sims,
             "%s/clean/multi_work.sim " GB_TEST_SRCDIR "/configs/kernel-check/*.sim", d);
    ASSERT_MSG(check(d, sims) == 0, "%s", out);
    ASSERT_MSG(strstr(out, "ok       multi_work           0 errors") &&
                   strstr(out, "ok       coll_reduce          0 errors") &&
                   strstr(out, "ok       multi_sgemm          0 errors") &&
                   strstr(out, "9 of 9 kernels ran clean, 0 with errors"),
               "%s", out);
}
