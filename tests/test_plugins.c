/* The sockets, proved by use: a toy suite, a toy writer and a toy command (tests/plugins/), each
 * copied into a test build of this tree as one source file with one line in meson.build; the
 * writer run through every command that offers formats, the suite drawn in the report from its
 * chart hint, the command run and listed in gpubench --help. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

TEST_TIMEOUT(plugins_toy_suite_and_writer_are_a_file_and_a_line_each, 900)
{
    static char out[65536];
    int rc = gb_test_sh(
        "set -e; d=$(mktemp -d); trap 'rm -rf \"$d\"' EXIT; cd " GB_TEST_SRCDIR "; "
        "git ls-files -co --exclude-standard | tar -T - -cf - | tar -xf - -C \"$d\"; cd \"$d\"; "
        "cp tests/plugins/toy_suite.c suites/toy.c; "
        "cp tests/plugins/write_toy.c src/outputs/write_toy.c; "
        "cp meson.build meson.build.orig; "
        "sed -i \"/^suites = \\[/a\\\\  'toy',\" meson.build; "
        "sed -i \"/^writers = \\[/a\\\\  'toy',\" meson.build; "
        "cp tests/plugins/toy_command.c src/cli/toy.c; "
        "sed -i \"/^commands = \\[/a\\\\  'toy',\" meson.build; "
        "echo lines=$(diff meson.build.orig meson.build | grep -c '^>'); "
        "meson setup b -Dcuda=disabled -Dmpi=disabled -Dclblast=disabled >/dev/null; "
        "ninja -C b gpubench >/dev/null; g=b/gpubench; "
        "$g suites | grep -c '^toy' | sed 's/^/suites=/'; "
        "printf 'name: toy\\nmeasure: {max_time: 20ms, min_samples: 3, warmup_time: 1ms}\\n"
        "suites:\\n  - suite: toy\\n' > toy.yaml; "
        "mkdir n; $g run toy.yaml -o n/a.json -q -f toy | grep -c '^TOY toy' | sed 's/^/run=/'; "
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
        "$g report n/a.json -o rep >/dev/null; grep -c 'hint_toy' rep/report.md | "
        "sed 's/^/report=/'; ls rep/charts | grep -c hint_toy | sed 's/^/chart=/'; "
        "$g toy a b | grep -c '^TOY command: a b$' | sed 's/^/command=/'; "
        "$g toy --help | grep -c '^usage: gpubench toy' | sed 's/^/command_help=/'; "
        "$g --help | grep -c '^  toy  *a toy command' | sed 's/^/listed=/'",
        out, sizeof out);
    ASSERT_MSG(rc == 0, "exit %d:\n%s", rc, out);
    ASSERT_MSG(strstr(out, "lines=3\n"), "meson.build took more than one line each:\n%s", out);
    ASSERT_MSG(strstr(out, "suites=1\n"), "%s", out);
    ASSERT_MSG(strstr(out, "run=2\n"), "run --format toy: %s", out);
    ASSERT_MSG(strstr(out, "compare=2\n"), "compare --format toy: %s", out);
    ASSERT_MSG(strstr(out, "fleet=2\n"), "fleet --format toy: %s", out);
    ASSERT_MSG(strstr(out, "history=2\n"), "history --format toy: %s", out);
    ASSERT_MSG(strstr(out, "calibrate=2\n"), "calibrate --format toy: %s", out);
    ASSERT_MSG(!strstr(out, "suites_f=0\n") && strstr(out, "suites_f="), "suites: %s", out);
    ASSERT_MSG(!strstr(out, "devices_f=0\n") && strstr(out, "devices_f="), "devices: %s", out);
    ASSERT_MSG(!strstr(out, "report=0\n") && strstr(out, "report="), "report: %s", out);
    ASSERT_MSG(!strstr(out, "chart=0\n") && strstr(out, "chart="), "chart: %s", out);
    ASSERT_MSG(strstr(out, "command=1\n"), "gpubench toy: %s", out);
    ASSERT_MSG(strstr(out, "command_help=1\n"), "gpubench toy --help: %s", out);
    ASSERT_MSG(strstr(out, "listed=1\n"), "gpubench --help lists no toy: %s", out);
}
