/* Stable device identity (gb_device_identity, results/results.h): what the results record and
 * how compare pairs two devices of one name. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "results/results.h"
#include "test.h"

static char out[1 << 18];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

TEST(identity_prefers_uuid_then_pci_then_backend_and_index)
{
    struct gb_result_device d = {.backend = "cuda", .index = 3};
    snprintf(d.info.name, sizeof d.info.name, "NVIDIA H200");
    char id[64];
    ASSERT_EQ(gb_device_identity(&d, id, sizeof id), GB_ID_INDEX);
    ASSERT_STR(id, "cuda:3");
    snprintf(d.info.pci_bus_id, sizeof d.info.pci_bus_id, "0000:65:00.0");
    ASSERT_EQ(gb_device_identity(&d, id, sizeof id), GB_ID_PCI);
    ASSERT_STR(id, "pci:0000:65:00.0");
    const unsigned char u[16] = {0x1b, 0x2c, 0x3d, 0x4e, 0x5f, 0x60, 0x71, 0x82,
                                 0x93, 0xa4, 0xb5, 0xc6, 0xd7, 0xe8, 0xf9, 0x0a};
    gb_format_uuid(u, d.info.uuid, sizeof d.info.uuid);
    ASSERT_STR(d.info.uuid, "1b2c3d4e-5f60-7182-93a4-b5c6d7e8f90a");
    ASSERT_EQ(gb_device_identity(&d, id, sizeof id), GB_ID_UUID);
    ASSERT_STR(id, "1b2c3d4e-5f60-7182-93a4-b5c6d7e8f90a");
    ASSERT_STR(gb_id_kind_name(GB_ID_UUID), "uuid");
    ASSERT_STR(gb_id_kind_name(GB_ID_INDEX), "index");
    const unsigned char zero[16] = {0};
    char z[40] = "x";
    ASSERT_STR(gb_format_uuid(zero, z, sizeof z), ""); /* all zero: none given */
}

/* The identity survives the results file: written (with its kind) and read back. */
TEST(identity_round_trips_through_a_results_file)
{
    struct gb_results rs = {0};
    snprintf(rs.run.start_utc, sizeof rs.run.start_utc, "2026-11-30T00:00:00Z");
    struct gb_device_info info = {.name = "GPU"};
    snprintf(info.uuid, sizeof info.uuid, "1b2c3d4e-5f60-7182-93a4-b5c6d7e8f90a");
    snprintf(info.pci_bus_id, sizeof info.pci_bus_id, "0000:65:00.0");
    int idx;
    ASSERT_OK(gb_results_add_device(&rs, "cuda", 0, &info, &idx));
    struct gb_device_info plain = {.name = "CPU"};
    ASSERT_OK(gb_results_add_device(&rs, "opencl", 1, &plain, &idx));
    char path[GB_PATH_JOIN];
    snprintf(path, sizeof path, "%s/id.json", gb_test_tmpdir());
    ASSERT_OK(gb_results_write(&rs, path));
    struct gb_results back;
    ASSERT_OK(gb_results_read(path, &back));
    ASSERT_STR(back.devices[0].info.uuid, info.uuid);
    ASSERT_STR(back.devices[0].info.pci_bus_id, info.pci_bus_id);
    ASSERT_STR(back.devices[1].info.uuid, "");
    char *text = gb_test_slurp(path);
    ASSERT_CONTAINS(text, "\"identity\": \"uuid\"");
    ASSERT_CONTAINS(text, "\"identity\": \"index\"");
    free(text);
    gb_results_free(&back);
    gb_results_free(&rs);
}

/* A fresh temporary directory holding id.yaml: a short transfer run of `params` (a YAML flow
 * map). */
static const char *transfer_profile_dir(const char *params)
{
    char text[512];
    snprintf(text, sizeof text,
             "measure: {min_samples: 3, max_samples: 5, max_time: 50ms, warmup_runs: 1}\n"
             "suites:\n"
             "  - suite: transfer\n"
             "    params: %s\n",
             params);
    return gb_test_tmpdir_with("id.yaml", text);
}

/* Two PoCL devices of one name: a run on both compared against a run on the second pairs the
 * second with itself, and the first is MISSING from the new run, not the other way round. */
TEST_TIMEOUT(identity_compare_pairs_the_right_device_of_two_of_one_name, 180)
{
    const char *dir = transfer_profile_dir("{op: h2d, memory: pinned, mode: async, size: 64KiB}");
    int rc = sh("cd %s && POCL_DEVICES='pthread pthread' %s run id.yaml -b opencl -q -o both.json "
                "2>&1",
                dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "exit %d: %s", rc, out);
    struct gb_results both;
    char path[GB_PATH_JOIN + 64];
    snprintf(path, sizeof path, "%s/both.json", dir);
    ASSERT_OK(gb_results_read(path, &both));
    if (both.ndevices < 2 || strcmp(both.devices[0].info.name, both.devices[1].info.name) != 0) {
        gb_results_free(&both);
        SKIP("needs two OpenCL devices of one name (POCL_DEVICES='pthread pthread')");
    }
    gb_results_free(&both);
    rc = sh("cd %s && POCL_DEVICES='pthread pthread' %s run id.yaml -b opencl -d 1 -q -o one.json "
            "2>&1",
            dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "exit %d: %s", rc, out);
    rc = sh("cd %s && %s compare both.json one.json -q --json -", dir, GB_TEST_EXE);
    /* The pairing is the point, not the verdict: on a busy machine the paired case may read as
     * SLOWER (exit 3). */
    ASSERT_MSG(rc == 0 || rc == 3, "exit %d: %s", rc, out);
    json_error_t jerr;
    json_t *root = json_loads(out, 0, &jerr);
    ASSERT_MSG(root, "compare --json: %s", jerr.text);
    json_t *rows = json_object_get(root, "rows");
    ASSERT_EQ(json_array_size(rows), 2);
    size_t paired = 0, missing = 0;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        const char *dev = json_string_value(json_object_get(r, "device"));
        const char *verdict = json_string_value(json_object_get(r, "verdict"));
        ASSERT(dev && verdict);
        if (strcmp(verdict, "MISSING") == 0) {
            ASSERT_CONTAINS(dev, "[opencl:0]");
            missing++;
        } else {
            ASSERT_CONTAINS(dev, "[opencl:1]");
            paired++;
        }
    }
    ASSERT_EQ(paired, 1);
    ASSERT_EQ(missing, 1);
    json_decref(root);
}

/* Two machines of one model (a fleet, a fresh cloud instance: two H200 machines gave two UUIDs):
 * compare says why nothing pairs and how to pair them; a case skipped on both sides says "both". */
TEST_TIMEOUT(identity_compare_same_model_other_device_says_so, 180)
{
    const char *dir =
        transfer_profile_dir("{op: bidir, memory: [pinned, pageable], mode: async, size: 64KiB}");
    int rc = sh("cd %s && POCL_DEVICES=pthread %s run id.yaml -b opencl -q -o a.json 2>&1 && "
                "python3 -c \"import json\n"
                "for f, u in (('a.json', '174f4881-3412-eff4-957b-d5f14b9b1c51'), "
                "('b.json', 'bb659c50-a725-98d2-b238-d4b933627030')):\n"
                "  d = json.load(open('a.json'))\n"
                "  d['devices'][0]['uuid'] = u\n"
                "  json.dump(d, open(f, 'w'))\" 2>&1",
                dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0, "exit %d: %s", rc, out);
    rc = sh("cd %s && %s compare a.json b.json 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 2, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "devices of the same name but different identities");
    ASSERT_CONTAINS(out, "uuid:174f4881");
    ASSERT_CONTAINS(out, "uuid:bb659c50");
    ASSERT_CONTAINS(out, "--across-devices pairs the devices in order");
    rc =
        sh("cd %s && %s compare a.json b.json --across-devices -q --json - 2>&1", dir, GB_TEST_EXE);
    ASSERT_MSG(rc == 0 || rc == 3, "exit %d: %s", rc, out);
    ASSERT_CONTAINS(out, "skipped in both: bidir needs pinned host memory");
}

/* Messages for the user carry no source location; it is kept apart and goes to the --verbose
 * log. */
TEST(error_messages_keep_the_source_location_apart)
{
    gb_error_clear();
    ASSERT_EQ(GB_FAIL(GB_EBACKEND, "clFinish: %s", "CL_OUT_OF_RESOURCES"), GB_EBACKEND);
    ASSERT_STR(gb_error_msg(), "clFinish: CL_OUT_OF_RESOURCES");
    ASSERT_CONTAINS(gb_error_where(), "test_device_identity.c:");
    GB_USER_FAIL(GB_EINVAL, "bad option");
    ASSERT_STR(gb_error_where(), "");
    char path[GB_PATH_JOIN];
    snprintf(path, sizeof path, "%s/debug.log", gb_test_tmpdir());
    FILE *f = fopen(path, "w");
    ASSERT(f);
    gb_error_log_to(f);
    GB_FAIL(GB_EIO, "write failed");
    GB_USER_FAIL(GB_EINVAL, "not logged");
    gb_error_log_to(NULL);
    fclose(f);
    char *log = gb_test_slurp(path);
    ASSERT_CONTAINS(log, "test_device_identity.c:");
    ASSERT_CONTAINS(log, "EIO: write failed");
    ASSERT(!strstr(log, "not logged"));
    free(log);
    /* run --verbose is accepted (the log goes to stderr). */
    ASSERT_EQ(sh("%s validate %s/configs/quick.yaml --verbose 2>&1", GB_TEST_EXE, GB_TEST_SRCDIR),
              0);
}
