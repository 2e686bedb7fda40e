/* The sockets, proved by use: a toy suite with its own kernel, a toy writer and a toy command
 * (tests/plugins/), copied into a test build of this tree (the suite two files, suites/toy.c and
 * kernels/toy.cl, the writer and the command one each, each with one line in meson.build); the
 * writer run through every command that offers formats (run, compare, fleet, history, calibrate,
 * suites, devices, check, diag), the suite drawn in the report from its
 * chart hint and run by the tests that run every suite of the table, the command run and listed
 * in gpubench --help; a kernel file its line names that does not exist fails the build, naming
 * the suite. And the suite contract checked for every suite of the table. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "run/kernels.h"
#include "run/suite.h"
#include "suites/common.h"
#include "suites/suites.h"
#include "test.h"

TEST_TIMEOUT(plugins_toy_suite_and_writer_are_a_file_and_a_line_each, 900)
{
    static char out[65536];
    int rc = gb_test_sh(
        "set -e; d=$(mktemp -d); trap 'rm -rf \"$d\"' EXIT; cd " GB_TEST_SRCDIR "; "
        "git ls-files -co --exclude-standard | tar -T - -cf - | tar -xf - -C \"$d\"; cd \"$d\"; "
        "cp tests/plugins/toy_suite.c suites/toy.c; cp tests/plugins/toy.cl kernels/toy.cl; "
        "cp tests/plugins/write_toy.c src/outputs/write_toy.c; "
        "cp meson.build meson.build.orig; "
        "sed -i \"/^suites = \\[/a\\\\  ['toy', 'toy.cl'],\" meson.build; "
        "sed -i \"/^writers = \\[/a\\\\  'toy',\" meson.build; "
        "cp tests/plugins/toy_command.c src/cli/toy.c; "
        "sed -i \"/^commands = \\[/a\\\\  'toy',\" meson.build; "
        "echo lines=$(diff meson.build.orig meson.build | grep -c '^>'); "
        "cp meson.build meson.build.toy; "
        "sed -i \"s/'toy.cl'\\]/'toy.cl', 'gone.cl']/\" meson.build; "
        "if meson setup bx -Dcuda=disabled -Dmpi=disabled -Dclblast=disabled >bx.log 2>&1; then "
        "echo missing=built; "
        "else grep -c 'suite toy: kernels/gone.cl does not exist' bx.log | sed 's/^/missing=/'; "
        "fi; cp meson.build.toy meson.build; rm -rf bx; "
        "meson setup b -Dcuda=disabled -Dmpi=disabled -Dclblast=disabled >/dev/null; "
        "ninja -C b gpubench tests/gpubench-tests tests/libcl-defects.so >/dev/null; g=b/gpubench; "
        "b/tests/gpubench-tests -v plugins_every_suite_registers broken_noop_is_caught_in_every "
        "bounds_results_files_follow defects_kernel_wg_32_every_suite >every.log 2>&1 "
        "|| cat every.log; "
        "grep -c '^toy .*registered: toy.cl$' every.log | sed 's/^/every_kernels=/'; "
        "grep -c '^toy .*no-op *caught' every.log | sed 's/^/every_noop=/'; "
        "grep -c '^toy  *[1-9][0-9]* results$' every.log | sed 's/^/every_schema=/'; "
        "grep -c '^toy  *not in the table here' every.log | sed 's/^/every_defects=/'; "
        "grep -c '^ok ' every.log | sed 's/^/every_ok=/'; "
        "$g suites | grep -c '^toy  *a toy: ' | sed 's/^/suites=/'; "
        "printf 'name: toy\\nmeasure: {max_time: 20ms, min_samples: 3, warmup_time: 1ms}\\n"
        "suites:\\n  - suite: toy\\n' > toy.yaml; "
        "mkdir n; $g run toy.yaml -o n/a.json -q -f toy | grep -c '^TOY result [0-9]*: toy ' | "
        "sed 's/^/run=/'; "
        "$g run toy.yaml -o n/b.json -q >/dev/null; "
        "for i in 1 2; do python3 -c \"import json,sys; d=json.load(open('n/a.json')); "
        "d['run']['host']='h'+sys.argv[1]; "
        "d['run']['start_utc']='2026-01-0'+sys.argv[1]+'T00:00:00Z'; "
        "json.dump(d, open('n/c'+sys.argv[1]+'.json','w'))\" $i; done; "
        "$g compare n/a.json n/b.json -f toy | grep -c '^TOY comparison' | sed 's/^/compare=/' "
        "|| true; "
        "$g fleet n -f toy | grep -c '^TOY cases' | sed 's/^/fleet=/' || true; "
        "$g history n -f toy | grep -c '^TOY cases' | sed 's/^/history=/' || true; "
        "$g calibrate --from n/a.json n/b.json -f toy | grep -c '^TOY cases' | "
        "sed 's/^/calibrate=/' || true; "
        "$g suites -f toy | grep -c '^TOY suites' | sed 's/^/suites_f=/' || true; "
        "$g devices -f toy | grep -c '^TOY backends' | sed 's/^/devices_f=/' || true; "
        "$g check n/a.json -f toy | grep -c '^TOY check' | sed 's/^/check_f=/' || true; "
        "GPUBENCH_SOURCE_DIR=\"$d\" $g diag -q -f toy | grep -c '^TOY diag' | sed 's/^/diag_f=/' "
        "|| true; "
        "$g report n/a.json -o rep >/dev/null; grep -c 'hint_toy' rep/report.md | "
        "sed 's/^/report=/'; ls rep/charts | grep -c hint_toy | sed 's/^/chart=/'; "
        "$g toy a b | grep -c '^TOY command: a b$' | sed 's/^/command=/'; "
        "$g toy --help | grep -c '^usage: gpubench toy' | sed 's/^/command_help=/'; "
        "$g --help | grep -c '^  toy  *a toy command' | sed 's/^/listed=/'",
        out, sizeof out);
    ASSERT_MSG(rc == 0, "exit %d:\n%s", rc, out);
    ASSERT_MSG(strstr(out, "lines=3\n"), "meson.build took more than one line each:\n%s", out);
    ASSERT_MSG(strstr(out, "missing=1\n"), "a missing kernel file: %s", out);
    ASSERT_MSG(strstr(out, "every_kernels=1\n"), "the registration test: %s", out);
    ASSERT_MSG(strstr(out, "every_noop=1\n"), "the no-op test: %s", out);
    ASSERT_MSG(strstr(out, "every_schema=1\n"), "the schema test: %s", out);
    ASSERT_MSG(strstr(out, "every_defects=1\n"), "the driver defects test: %s", out);
    ASSERT_MSG(strstr(out, "every_ok=4\n"), "the every-suite tests: %s", out);
    ASSERT_MSG(strstr(out, "suites=1\n"), "%s", out);
    ASSERT_MSG(strstr(out, "run=2\n"), "run --format toy: %s", out);
    ASSERT_MSG(strstr(out, "compare=2\n"), "compare --format toy: %s", out);
    ASSERT_MSG(strstr(out, "fleet=2\n"), "fleet --format toy: %s", out);
    ASSERT_MSG(strstr(out, "history=2\n"), "history --format toy: %s", out);
    ASSERT_MSG(strstr(out, "calibrate=2\n"), "calibrate --format toy: %s", out);
    ASSERT_MSG(!strstr(out, "suites_f=0\n") && strstr(out, "suites_f="), "suites: %s", out);
    ASSERT_MSG(!strstr(out, "devices_f=0\n") && strstr(out, "devices_f="), "devices: %s", out);
    ASSERT_MSG(!strstr(out, "check_f=0\n") && strstr(out, "check_f="), "check: %s", out);
    ASSERT_MSG(!strstr(out, "diag_f=0\n") && strstr(out, "diag_f="), "diag: %s", out);
    ASSERT_MSG(!strstr(out, "report=0\n") && strstr(out, "report="), "report: %s", out);
    ASSERT_MSG(!strstr(out, "chart=0\n") && strstr(out, "chart="), "chart: %s", out);
    ASSERT_MSG(strstr(out, "command=1\n"), "gpubench toy: %s", out);
    ASSERT_MSG(strstr(out, "command_help=1\n"), "gpubench toy --help: %s", out);
    ASSERT_MSG(strstr(out, "listed=1\n"), "gpubench --help lists no toy: %s", out);
}

/* The suite contract, for every suite of the table: its case axis is a string axis of its own
 * (or none), and it builds only the kernel files its line of meson.build registers: each
 * "FILE.cl" its source names is on its line, each file on its line is embedded, and
 * gb_case_build refuses a file the case's suite did not register. */
TEST(plugins_every_suite_registers_its_case_axis_and_kernels)
{
    const struct gb_suite_table *t = gb_suites_builtin();
    for (size_t i = 0; i < t->n; i++) {
        const struct gb_suite *s = t->v[i];
        if (s->case_axis) {
            const struct gb_axis_def *ax = gb_suite_axis(s, s->case_axis);
            ASSERT_MSG(ax && ax->type == GB_V_STR, "suite %s: case_axis %s is not a string axis",
                       s->name, s->case_axis);
        }
        const char *const *files = gb_suite_kernels(s->name);
        ASSERT_MSG(files, "suite %s has no kernel list in the table", s->name);
        for (const char *const *f = files; *f; f++)
            ASSERT_MSG(gb_kernel_text(*f), "suite %s registers %s, which is not embedded", s->name,
                       *f);
        char path[4096];
        snprintf(path, sizeof path, "%s/suites/%s.c", GB_TEST_SRCDIR, s->name);
        char *src = gb_test_slurp(path);
        size_t named = 0;
        for (const char *p = src; (p = strstr(p, ".cl\"")) != NULL; p += 4) {
            const char *q = p; /* a literal that is a file name: "NAME.cl" */
            while (q > src && (isalnum((unsigned char)q[-1]) || q[-1] == '_' || q[-1] == '-'))
                q--;
            if (q == p || q == src || q[-1] != '"')
                continue;
            char file[128];
            snprintf(file, sizeof file, "%.*s.cl", (int)(p - q), q);
            const char *const *f = files;
            while (*f && strcmp(*f, file) != 0)
                f++;
            ASSERT_MSG(*f,
                       "suite %s builds kernels/%s, which its line in meson.build's suites "
                       "list does not register",
                       s->name, file);
            named++;
        }
        printf("%-12s case axis %-8s kernels named %zu, registered:", s->name,
               s->case_axis ? s->case_axis : "(none)", named);
        for (const char *const *f = files; *f; f++)
            printf(" %s", *f);
        printf("\n");
        free(src);
    }
    /* The build helper refuses a file the suite did not register. */
    struct gb_case_ctx ctx = {.suite = gb_suite_table_find(t, "transfer")};
    ASSERT(ctx.suite);
    struct gb_program *prog;
    struct gb_kernel *k;
    ASSERT_EQ(gb_case_build(&ctx, "stream.cl", "stream_copy", NULL, 0, &prog, &k), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "suite transfer builds kernels/stream.cl, which its line");
    ASSERT(!prog && !k);
}
