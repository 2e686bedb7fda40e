/* scripts/gpu-peers.py, the peer step of scripts/gpu-check.sh, on whatever OpenCL device there is
 * (PoCL here): its gpubench side runs for real, each absent or broken peer is named with why,
 * and the step still ends with a valid peers.json and a table. The peers themselves (PyTorch,
 * CuPy, BabelStream, nvbandwidth) run on a GPU machine only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "test.h"

#define PEERS "'" GB_TEST_SRCDIR "/scripts/gpu-peers.py'"

static const char tiny[] = "name: peers-tiny\n"
                           "measure: {warmup_runs: 1, min_samples: 3, max_samples: 5, "
                           "max_time: 50ms, min_sample_time: 0ms}\n"
                           "suites:\n"
                           "  - suite: memory\n"
                           "    params: {op: [copy, triad], type: float, size: 4MiB}\n"
                           "  - suite: transfer\n"
                           "    params: {op: h2d, memory: pinned, mode: async, size: 1MiB}\n";

/* The "why" of peer `name` in peers.json's missing list, or NULL. */
static const char *missing_why(json_t *doc, const char *name)
{
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(doc, "missing"), i, m)
    {
        if (strcmp(json_string_value(json_object_get(m, "peer")), name) == 0)
            return json_string_value(json_object_get(m, "why"));
    }
    return NULL;
}

TEST_TIMEOUT(peers_step_runs_gpubench_and_names_the_absent_peers, 180)
{
    static char out[1 << 16];
    if (gb_test_sh("command -v python3", out, sizeof out) != 0)
        SKIP("no python3");
    struct gb_test_devices devs;
    gb_test_need_cli_devices("", 1, &devs);
    const char *tmp = gb_test_tmpdir();
    char prof[1024], src[1024];
    snprintf(prof, sizeof prof, "%s/tiny.yaml", tmp);
    gb_test_write_file(prof, tiny);
    /* A BabelStream source that does not build: the step says so and goes on. */
    snprintf(src, sizeof src, "%s/src/BabelStream/src", tmp);
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/ocl' && echo '<script>x|y</script>' > '%s/main.cpp' && "
             "echo > '%s/ocl/OCLStream.cpp'",
             src, src, src);
    ASSERT_EQ(gb_test_sh(cmd, out, sizeof out), 0);
    int st = gb_test_shf(out, sizeof out,
                         PEERS " --exe '" GB_TEST_EXE "' --profile '%s' --backend opencl "
                               "--src '%s/src' --build '%s/pb' -o '%s/o' --budget 120 2>&1",
                         prof, tmp, tmp, tmp);
    ASSERT_MSG(st == 0, "gpu-peers.py exited %d:\n%s", st, out);
    ASSERT_CONTAINS(out, "gpubench side:");
    ASSERT_CONTAINS(out, "No figure to compare");
    ASSERT_CONTAINS(out, "missing: **torch**");
    ASSERT_CONTAINS(out, "missing: **babelstream**: did not build");
    /* The compiler quoted the source's markup: escaped in peers.md, and no '|' to split it. */
    char mdf[1200];
    char *md = gb_test_slurp_in(tmp, "o/peers.md");
    ASSERT_MSG(md != NULL, "no %s", mdf);
    ASSERT_MSG(strstr(md, "<script>") == NULL && strstr(md, "x|y") == NULL,
               "markup reached peers.md:\n%s", md);
    ASSERT_CONTAINS(md, "&lt;script&gt;");
    free(md);

    char f[1200];
    snprintf(f, sizeof f, "%s/o/peers.json", tmp);
    json_error_t jerr;
    json_t *doc = json_load_file(f, 0, &jerr);
    ASSERT_MSG(doc != NULL, "%s: %s", f, jerr.text);
    ASSERT_STR(json_string_value(json_object_get(doc, "schema")), "gpubench-peers/1");
    ASSERT_STR(json_string_value(json_object_get(doc, "backend")), "opencl");
    /* copy, triad and the H2D copy are cases a peer could measure. */
    ASSERT_EQ(json_integer_value(json_object_get(doc, "cases_comparable")), 3);
    static const char *const peers[] = {"torch", "cupy", "babelstream", "nvbandwidth"};
    for (size_t i = 0; i < 4; i++) {
        const char *why = missing_why(doc, peers[i]);
        ASSERT_MSG(why && why[0], "peer %s is not named as missing", peers[i]);
    }
    ASSERT_EQ(json_array_size(json_object_get(doc, "ratios")), 0);
    json_decref(doc);

    /* The gpubench side is a results file like any other, every case measured and verified. */
    snprintf(f, sizeof f, "%s/o/peers-gpubench-opencl.json", tmp);
    doc = json_load_file(f, 0, &jerr);
    ASSERT_MSG(doc != NULL, "%s: %s", f, jerr.text);
    size_t i;
    json_t *r;
    size_t ok = 0;
    json_array_foreach(json_object_get(doc, "results"), i, r)
    {
        ok += strcmp(json_string_value(json_object_get(r, "status")), "ok") == 0 &&
              json_is_true(json_object_get(r, "verified"));
    }
    ASSERT_EQ(ok, 3);
    json_decref(doc);

    /* With a results file given, without peers' sources: every peer named, exit 0. */
    st =
        gb_test_shf(out, sizeof out,
                    PEERS " --results '%s' --src /nonexistent -o '%s/o2' --budget 30 2>&1", f, tmp);
    ASSERT_MSG(st == 0, "gpu-peers.py --results exited %d:\n%s", st, out);
    ASSERT_CONTAINS(out, "missing: **babelstream**: no source in /nonexistent/BabelStream");
    ASSERT_CONTAINS(out, "missing: **nvbandwidth**");

    /* Hostile results files: recorded as nothing comparable, never a traceback. */
    static const char *const hostile[] = {
        "{\"results\": 5, \"devices\": 5}",
        "{\"results\": [{\"suite\": \"memory\", \"case\": \"copy\", \"status\": \"ok\", "
        "\"backend\": [1], \"params\": \"x\", \"samples\": 5}]}",
        "{\"results\": [{\"suite\": \"memory\", \"case\": \"copy\", \"status\": \"ok\", "
        "\"params\": {\"type\": \"float\", \"size\": 1e400}, \"samples\": [1e400], "
        "\"better\": [1]}]}",
    };
    for (size_t h = 0; h < sizeof hostile / sizeof hostile[0]; h++) {
        snprintf(f, sizeof f, "%s/hostile.json", tmp);
        gb_test_write_file(f, hostile[h]);
        st = gb_test_shf(out, sizeof out,
                         PEERS " --results '%s' --src /nonexistent -o '%s/o3' 2>&1", f, tmp);
        ASSERT_MSG(st == 0 && !strstr(out, "Traceback"), "hostile file %zu: exit %d:\n%s", h, st,
                   out);
        ASSERT_CONTAINS(out, "No figure to compare");
    }

    /* Usage and an unreadable results file. */
    ASSERT_EQ(gb_test_sh(PEERS " 2>&1", out, sizeof out), 2);
    ASSERT_CONTAINS(out, "give --results FILE");
    ASSERT_EQ(gb_test_sh(PEERS " --results /nonexistent.json 2>&1", out, sizeof out), 1);
    ASSERT_CONTAINS(out, "cannot read /nonexistent.json");
}

/* scripts/keep-reference.py: a results file is kept byte for byte under a name made of its
 * device model, backend, profile, driver and date, with a row in the README's table; a second
 * run says "already kept"; other bytes under the same name are refused; a hostile device name
 * chooses neither the path nor the table's shape. */
TEST_TIMEOUT(peers_keep_reference_names_and_refuses, 60)
{
    static char out[1 << 14];
    if (gb_test_sh("command -v python3", out, sizeof out) != 0)
        SKIP("no python3");
    const char *tmp = gb_test_tmpdir();
    char f[1024], dest[1024], readme[1100];
    snprintf(f, sizeof f, "%s/in", tmp);
    snprintf(dest, sizeof dest, "%s/ref", tmp);
    snprintf(readme, sizeof readme, "%s/README.md", dest);
    ASSERT_EQ(gb_test_shf(out, sizeof out, "mkdir -p '%s' '%s'", f, dest), 0);
    gb_test_write_file(readme, "| file | device | command | notes |\n|---|---|---|---|\n");
    char doc[1200];
    snprintf(doc, sizeof doc, "%s/a.json", f);
    gb_test_write_file(doc, "{\"schema\": \"gpubench-results/2\", \"run\": {\"start_utc\": "
                            "\"2026-12-01T10:00:00Z\", \"host\": \"h|x\", \"os\": \"Linux\", "
                            "\"command_line\": \"gpubench run `rm -rf /`\\n| x |\", \"profile\": "
                            "{\"name\": \"../../quick\"}}, \"devices\": [{\"backend\": \"cuda\", "
                            "\"name\": \"NVIDIA H200/../../etc\", \"driver\": \"580.95.05\"}], "
                            "\"results\": []}\n");
    snprintf(doc, sizeof doc, "%s/notes.json", f);
    gb_test_write_file(doc, "[1, 2]\n");
#define KEEP "'" GB_TEST_SRCDIR "/scripts/keep-reference.py' --dest '%s' '%s' 2>&1"
    int st = gb_test_shf(out, sizeof out, KEEP, dest, f);
    ASSERT_MSG(st == 0, "exit %d:\n%s", st, out);
    /* Only [a-z0-9.-] in the name, and no path separator: the file is in dest itself. */
    ASSERT_CONTAINS(out, "-> ");
    ASSERT_MSG(gb_test_shf(out, sizeof out,
                           "ls '%s' | grep -c '^nvidia-h200-etc-cuda-quick-"
                           "580.95.05-2026-12-01.json$'",
                           dest) == 0,
               "not kept under the expected name:\n%s", out);
    char *t = gb_test_slurp(readme);
    ASSERT_MSG(t != NULL, "no README");
    /* One row: header, rule, row: 3 lines, the row with 5 '|' (4 cells). */
    size_t lines = 0, bars = 0;
    for (const char *p = strstr(t, "\n|---|---|---|---|\n") + 19; *p; p++) {
        lines += *p == '\n';
        bars += *p == '|';
    }
    ASSERT_MSG(lines == 1 && bars == 5, "the table's row is broken (%zu lines, %zu bars):\n%s",
               lines, bars, t);
    free(t);
    st = gb_test_shf(out, sizeof out, KEEP, dest, f);
    ASSERT_MSG(st == 0, "second run exit %d:\n%s", st, out);
    ASSERT_CONTAINS(out, "already kept");
    /* Other bytes under the same name: refused, the kept file unchanged. */
    ASSERT_EQ(gb_test_shf(out, sizeof out,
                          "sed -i 's/\"results\": \\[\\]/\"results\": [ ]/' '%s/a.json'", f),
              0);
    st = gb_test_shf(out, sizeof out, KEEP, dest, f);
    ASSERT_EQ(st, 1);
    ASSERT_CONTAINS(out, "exists with other contents: refused");
#undef KEEP
}
