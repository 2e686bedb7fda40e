/* Tests of the topology between devices: the pure description of a pair's link
 * (gb_topology_describe, backends/telemetry_topo.c) on hand-built links, the NVML path through
 * the fake libnvidia-ml.so (tests/fake_nvml.c: two devices, NVLink links between them or to an
 * NVSwitch, loaded through $GPUBENCH_NVML_LIB), the `topology` text of the multi-device suites
 * (suites/multi_common.c), the figure on the peer and parallel suites' results on two PoCL
 * devices (no NVML: "unknown") and the matrix of `gpubench devices`. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/telemetry.h"
#include "outputs/devices_out.h"
#include "outputs/layout.h"
#include "outputs/writer.h"
#include "results/results.h"
#include "run/suite.h"
#include "suites/multi_common.h"
#include "test.h"

#ifndef GB_TEST_FAKE_NVML
#define GB_TEST_FAKE_NVML "libfake-nvml.so"
#endif

static char out[1 << 16];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

/* A device read by NVML at `bus` with the PCIe link gen x width (max gmax x wmax) and no NVLink. */
static struct gb_link_info dev_at(const char *bus, int gen, int width, int gmax, int wmax)
{
    struct gb_link_info li;
    memset(&li, 0, sizeof li);
    li.known = true;
    snprintf(li.pci_bus_id, sizeof li.pci_bus_id, "%s", bus);
    li.pcie_gen = gen;
    li.pcie_width = width;
    li.pcie_gen_max = gmax;
    li.pcie_width_max = wmax;
    return li;
}

/* Adds k active links of version v to `remote` (NVML's 8-digit domain) to li. */
static void add_links(struct gb_link_info *li, int k, int v, const char *remote, bool sw)
{
    for (int i = 0; i < k; i++) {
        struct gb_link_nvlink *l = &li->link[li->nlinks];
        l->index = li->nlinks++;
        l->version = v;
        l->to_switch = sw;
        snprintf(l->remote, sizeof l->remote, "%s", remote);
    }
}

TEST(topology_describe_nvlink_pcie_and_unknown)
{
    char s[192];
    ASSERT(gb_pci_same("0000:17:00.0", "00000000:17:00.0"));
    ASSERT(gb_pci_same("0000:AB:00.0", "00000000:ab:00.0"));
    ASSERT(!gb_pci_same("0000:17:00.0", "0000:18:00.0"));
    ASSERT(!gb_pci_same("", "0000:18:00.0"));
    /* PCIe: the lesser end in generation and width; the maxima named when above. */
    struct gb_link_info a = dev_at("0000:17:00.0", 5, 16, 5, 16);
    struct gb_link_info b = dev_at("0000:18:00.0", 4, 16, 5, 16);
    ASSERT_EQ(gb_topology_describe(&a, &b, s, sizeof s), GB_LINK_PCIE);
    ASSERT_STR(s, "PCIe Gen4 x16 (max Gen5 x16)");
    b = dev_at("0000:18:00.0", 5, 8, 5, 8);
    ASSERT_EQ(gb_topology_describe(&a, &b, s, sizeof s), GB_LINK_PCIE);
    ASSERT_STR(s, "PCIe Gen5 x8");
    b = dev_at("0000:18:00.0", 5, 16, -1, -1); /* maxima unread: none named */
    gb_topology_describe(&a, &b, s, sizeof s);
    ASSERT_STR(s, "PCIe Gen5 x16");
    /* NVLink: the links whose remote is the peer; those to a third device do not count. */
    b = dev_at("0000:18:00.0", 5, 16, 5, 16);
    add_links(&a, 12, 4, "00000000:18:00.0", false);
    add_links(&a, 6, 4, "00000000:19:00.0", false);
    add_links(&b, 12, 4, "00000000:17:00.0", false);
    ASSERT_EQ(gb_topology_describe(&a, &b, s, sizeof s), GB_LINK_NVLINK);
    ASSERT_STR(s, "NVLink4 x12");
    ASSERT_EQ(gb_topology_describe(&b, &a, s, sizeof s), GB_LINK_NVLINK);
    ASSERT_STR(s, "NVLink4 x12");
    /* One end's remotes unread: the other end's count; a link of unknown version: none named;
     * the lowest version among the links. */
    b.nlinks = 0;
    a.link[0].version = 3;
    gb_topology_describe(&b, &a, s, sizeof s);
    ASSERT_STR(s, "NVLink3 x12");
    a.link[0].version = 0;
    gb_topology_describe(&a, &b, s, sizeof s);
    ASSERT_STR(s, "NVLink x12");
    /* Through NVSwitches: both ends' links to a switch, the lesser count. */
    a = dev_at("0000:17:00.0", 5, 16, 5, 16);
    b = dev_at("0000:18:00.0", 5, 16, 5, 16);
    add_links(&a, 18, 4, "00000000:c0:00.0", true);
    add_links(&b, 16, 4, "00000000:c1:00.0", true);
    ASSERT_EQ(gb_topology_describe(&a, &b, s, sizeof s), GB_LINK_NVLINK);
    ASSERT_STR(s, "NVLink4 x16 via NVSwitch");
    /* A switch at one end only is no path between them: PCIe. */
    b.nlinks = 0;
    ASSERT_EQ(gb_topology_describe(&a, &b, s, sizeof s), GB_LINK_PCIE);
    /* Unknown: an end NVML did not read (why), or a PCIe link missing. */
    b.known = false;
    snprintf(b.why, sizeof b.why, "cannot load libnvidia-ml.so.1");
    ASSERT_EQ(gb_topology_describe(&a, &b, s, sizeof s), GB_LINK_UNKNOWN);
    ASSERT_STR(s, "unknown: no NVML for 0000:18:00.0 (cannot load libnvidia-ml.so.1)");
    b.pci_bus_id[0] = 0;
    gb_topology_describe(&b, &a, s, sizeof s);
    ASSERT_STR(s, "unknown: no NVML (cannot load libnvidia-ml.so.1)");
    b = dev_at("0000:18:00.0", -1, -1, -1, -1);
    ASSERT_EQ(gb_topology_describe(&a, &b, s, sizeof s), GB_LINK_UNKNOWN);
    ASSERT_STR(s, "unknown: no PCIe link read (0000:18:00.0)");
}

static void fake_nvml(const char *nvlinks, const char *nvswitch)
{
    setenv("GPUBENCH_NVML_LIB", GB_TEST_FAKE_NVML, 1);
    unsetenv("GB_FAKE_NVML_INIT_FAIL");
    if (nvlinks)
        setenv("GB_FAKE_NVML_NVLINKS", nvlinks, 1);
    else
        unsetenv("GB_FAKE_NVML_NVLINKS");
    if (nvswitch)
        setenv("GB_FAKE_NVML_NVSWITCH", nvswitch, 1);
    else
        unsetenv("GB_FAKE_NVML_NVSWITCH");
}

TEST(topology_fake_nvml_reads_nvlink_and_pcie)
{
    struct gb_device_info a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    snprintf(a.vendor, sizeof a.vendor, "NVIDIA");
    snprintf(b.vendor, sizeof b.vendor, "NVIDIA");
    snprintf(a.pci_bus_id, sizeof a.pci_bus_id, "0000:17:00.0");
    snprintf(b.pci_bus_id, sizeof b.pci_bus_id, "0000:18:00.0");
    char s[192];
    /* 18 links between them, version 6 (NVLink 4.0). */
    fake_nvml("18", NULL);
    struct gb_link_info li;
    const struct gb_tel_target t = {.vendor = "NVIDIA", .pci_bus_id = "0000:17:00.0"};
    gb_tel_links(&t, &li);
    ASSERT_MSG(li.known, "%s", li.why);
    ASSERT_EQ(li.nlinks, 18);
    ASSERT_EQ(li.link[17].index, 17);
    ASSERT_EQ(li.link[0].version, 4);
    ASSERT_STR(li.link[0].remote, "00000000:18:00.0");
    ASSERT(!li.link[0].to_switch);
    ASSERT_EQ(li.pcie_gen, 5);
    ASSERT_EQ(li.pcie_width_max, 16);
    ASSERT_EQ(gb_topology_pair(&a, &b, s, sizeof s), GB_LINK_NVLINK);
    ASSERT_STR(s, "NVLink4 x18");
    setenv("GB_FAKE_NVML_NVLINK_VERSION", "4", 1); /* NVLink 3.0 */
    gb_topology_pair(&b, &a, s, sizeof s);
    ASSERT_STR(s, "NVLink3 x18");
    unsetenv("GB_FAKE_NVML_NVLINK_VERSION");
    /* Through an NVSwitch. */
    fake_nvml("18", "1");
    ASSERT_EQ(gb_topology_pair(&a, &b, s, sizeof s), GB_LINK_NVLINK);
    ASSERT_STR(s, "NVLink4 x18 via NVSwitch");
    /* No NVLink: PCIe, the lesser end's width. */
    fake_nvml("0", NULL);
    setenv("GB_FAKE_NVML_PCIE_WIDTH1", "8", 1);
    ASSERT_EQ(gb_topology_pair(&a, &b, s, sizeof s), GB_LINK_PCIE);
    ASSERT_STR(s, "PCIe Gen5 x8 (max Gen5 x16)");
    unsetenv("GB_FAKE_NVML_PCIE_WIDTH1");
    /* A device NVML does not know, and one without a PCI address. */
    snprintf(b.pci_bus_id, sizeof b.pci_bus_id, "0000:65:00.0");
    ASSERT_EQ(gb_topology_pair(&a, &b, s, sizeof s), GB_LINK_UNKNOWN);
    ASSERT_STR(s, "unknown: no NVML for 0000:65:00.0 (no NVML device at PCI 0000:65:00.0: Not "
                  "Found (6))");
    b.pci_bus_id[0] = 0;
    gb_topology_pair(&a, &b, s, sizeof s);
    ASSERT_STR(s, "unknown: no NVML (the device has no PCI bus id (not a PCI GPU))");

    /* The suites' text over a set of such devices (multi_common.c). */
    fake_nvml("18", NULL);
    struct gb_device d[2];
    memset(d, 0, sizeof d);
    d[0].info = a;
    d[1].info = a;
    snprintf(d[1].info.pci_bus_id, sizeof d[1].info.pci_bus_id, "0000:18:00.0");
    struct gb_device *devs[2] = {&d[0], &d[1]};
    struct gb_case_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.devs = devs;
    ctx.ndevs = 2;
    char text[64];
    gb_multi_topology_text(&ctx, NULL, 2, true, "peer", text, sizeof text);
    ASSERT_STR(text, "0>1>0 peer, NVLink4 x18");
    const size_t order[2] = {1, 0};
    gb_multi_topology_text(&ctx, order, 2, false, "staged", text, sizeof text);
    ASSERT_STR(text, "1>0 staged, NVLink4 x18");
    gb_multi_topology_text(&ctx, NULL, 1, true, "peer", text, sizeof text);
    ASSERT_STR(text, "one device: no link");
    /* Pairs that differ are each named; what does not fit ends in "...". */
    d[1].info.pci_bus_id[0] = 0;
    gb_multi_topology_text(&ctx, NULL, 2, false, "staged", text, sizeof text);
    ASSERT_STR(text, "0>1 staged, unknown: no NVML");
    struct gb_device e[4];
    memset(e, 0, sizeof e);
    struct gb_device *edevs[4];
    for (int i = 0; i < 4; i++) {
        e[i].info = a;
        edevs[i] = &e[i];
    }
    snprintf(e[1].info.pci_bus_id, sizeof e[1].info.pci_bus_id, "0000:18:00.0");
    e[2].info.pci_bus_id[0] = e[3].info.pci_bus_id[0] = 0;
    ctx.devs = edevs;
    ctx.ndevs = 4;
    gb_multi_topology_text(&ctx, NULL, 4, true, "peer", text, sizeof text);
    ASSERT_EQ(strlen(text), sizeof text - 1);
    ASSERT(strncmp(text, "0>1 peer, NVLink4 x18; 1>2 peer, unknown: no NVML;", 49) == 0);
    ASSERT_STR(text + sizeof text - 4, "...");
}

/* The peer suite on two PoCL devices: every copy between them names its path (staged: OpenCL)
 * and an unknown link (PoCL's CPU devices have no PCI address, so no NVML); the diagonal has no
 * topology. peerbw's pair patterns, and the parallel suite's ring and pipeline, say the same for
 * their pairs. */
TEST_TIMEOUT(topology_figure_on_peer_and_parallel_results, 90)
{
    setenv("POCL_DEVICES", "pthread pthread", 1);
    unsetenv("GPUBENCH_NVML_LIB");
    struct gb_results rs;
    gb_test_run_profile("measure: {min_samples: 3, max_samples: 3, max_time: 50ms, "
                        "min_sample_time: 1ms, warmup_runs: 1, warmup_time: 0s}\n"
                        "suites:\n  - suite: peer\n    params: {size: 4097}\n"
                        "  - suite: peerbw\n    params: {op: [bidir, latency, all_to_all], method: "
                        "ce, size: 4097}\n"
                        "  - suite: parallel\n    params: {pattern: [tensor, pipeline], h: 64, "
                        "tokens: 16, layers: 2, ndev: 2, microbatches: 2, variant: allreduce}\n",
                        NULL, &rs);
    gb_test_need_devices(rs.ndevices, 2);
    size_t peer = 0, peerbw = 0, par = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        gb_test_assert_verified(r);
        const struct gb_figure *topo = gb_test_figure(r, "topology");
        if (strcmp(r->suite, "peer") == 0) {
            peer++;
            const int64_t src = gb_params_int(&r->params, "src");
            const int64_t dst = gb_params_int(&r->params, "dst");
            if (src == dst) {
                ASSERT(!topo);
                continue;
            }
            ASSERT_MSG(topo, "peer %lld>%lld: no topology", (long long)src, (long long)dst);
            char want[64];
            snprintf(want, sizeof want, "%lld>%lld staged, unknown: no NVML", (long long)src,
                     (long long)dst);
            ASSERT_STR(topo->text, want);
        } else if (strcmp(r->suite, "peerbw") == 0) {
            /* A pair both ways; the patterns of many pairs carry none. */
            peerbw++;
            if (strcmp(gb_params_str(&r->params, "op"), "all_to_all") == 0) {
                ASSERT(!topo);
                continue;
            }
            ASSERT_MSG(topo, "peerbw %s: no topology", r->case_name);
            char want[64];
            const long long src = (long long)gb_params_int(&r->params, "src");
            snprintf(want, sizeof want, "%lld>%lld>%lld staged, unknown: no NVML", src,
                     (long long)gb_params_int(&r->params, "dst"), src);
            ASSERT_STR(topo->text, want);
        } else {
            par++;
            ASSERT_MSG(topo, "parallel %s: no topology", r->case_name);
            ASSERT_STR(topo->text, strcmp(r->case_name, "pipeline") == 0
                                       ? "0>1 staged, unknown: no NVML"
                                       : "0>1>0 staged, unknown: no NVML");
        }
    }
    ASSERT_EQ(peer, 4);
    ASSERT_EQ(peerbw, 4); /* bidir once per pair, latency each way, all_to_all */
    ASSERT_EQ(par, 2);
    gb_results_free(&rs);
}

/* `gpubench devices` on two PoCL devices: the matrix (text) and the ordered pairs (JSON). */
TEST(topology_devices_matrix)
{
    ASSERT_EQ(sh("POCL_DEVICES='pthread pthread' %s devices 2>&1", GB_TEST_EXE), 0);
    if (!strstr(out, "[1]"))
        SKIP("fewer than two OpenCL devices: %s", out);
    ASSERT_CONTAINS(out, "opencl topology: a copy from the row's device to the column's, as "
                         "path/link.");
    ASSERT_CONTAINS(out, "\nfrom           [0]           [1]\n");
    ASSERT_CONTAINS(out, "\n[0]              -  staged/? [1]\n");
    ASSERT_CONTAINS(out, "\n[1]   staged/? [1]             -\n");
    /* The unknown link's footnote says why. */
    ASSERT_CONTAINS(out, "[1] unknown: no NVML (the device has no PCI bus id (not a PCI GPU))");
    /* The legend says what "?" is on each side of the '/': staged/? is a link not known. */
    ASSERT_CONTAINS(out, "path: peer copied directly, staged through pinned host memory, ? a "
                         "device did not open.");
    ASSERT_CONTAINS(out, "Gen5x16 PCIe (the lesser end), ? not known\n");
    ASSERT_EQ(sh("POCL_DEVICES='pthread pthread' %s devices --json 2>&1", GB_TEST_EXE), 0);
    ASSERT_CONTAINS(out, "\"topology\": [");
    ASSERT_CONTAINS(out, "\"from\": 1,\n        \"to\": 0,\n        \"path\": \"staged\",\n"
                         "        \"link\": \"unknown: no NVML (the device has no PCI bus id "
                         "(not a PCI GPU))\",\n        \"kind\": \"unknown\"");
    /* One device: no matrix. */
    ASSERT_EQ(sh("POCL_DEVICES='pthread' %s devices 2>&1", GB_TEST_EXE), 0);
    ASSERT(!strstr(out, "topology"));
}

/* Writes d with writer `name` (NULL: the layout of its kind) into a malloc'd string. */
static char *doc_text(const struct gb_doc *d, const char *name)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    int rc = name ? gb_write_doc(f, name, d) : gb_write_layout(f, d);
    fclose(f);
    if (rc) {
        free(text);
        return NULL;
    }
    return text;
}

/* The devices' document from made-up facts (no backend): an unavailable backend, a device that
 * cannot be described, a clock from the host, an NVLink pair. Its --json layout holds each fact
 * where the array has always held it; the text shows each of them and the matrix. */
TEST(topology_devices_document_and_its_json_layout)
{
    struct gb_devices_device dv[3] = {{.described = true}, {.described = true}};
    snprintf(dv[0].info.name, sizeof dv[0].info.name, "GPU A");
    dv[0].info.caps = GB_CAP_FP64 | GB_CAP_PEER;
    dv[0].info.type = GB_DEVICE_GPU;
    dv[0].info.global_mem = UINT64_C(80) << 30;
    dv[0].info.compute_units = 132;
    dv[0].info.clock_mhz = 1980;
    dv[0].info.peak_mem_gbs = 3352.5;
    dv[0].info.max_wg_dims[0] = 1024;
    dv[1].info = dv[0].info;
    snprintf(dv[1].info.name, sizeof dv[1].info.name, "GPU B");
    dv[1].info.caps = 0;
    snprintf(dv[1].info.clock_source, sizeof dv[1].info.clock_source, "host cpuinfo");
    snprintf(dv[2].why, sizeof dv[2].why, "the driver refused");
    struct gb_devices_link links[2] = {{0, 1, "peer", "NVLink4 x18", GB_LINK_NVLINK},
                                       {1, 0, "staged", "NVLink4 x18", GB_LINK_NVLINK}};
    const struct gb_devices_backend b[2] = {
        {.name = "cuda", .reason = "no driver"},
        {.name = "opencl", .devices = dv, .ndevices = 3, .ntopo = 3, .links = links, .nlinks = 2}};
    struct gb_doc d;
    ASSERT_EQ(gb_devices_doc(b, 2, 0, &d), 0);
    char *js = doc_text(&d, NULL), *txt = doc_text(&d, "text");
    ASSERT(js && txt);
    json_error_t je;
    json_t *root = json_loads(js, 0, &je);
    ASSERT_MSG(root && json_array_size(root) == 2, "not the devices' array: %s", js);
    ASSERT_CONTAINS(js, "\"backend\": \"cuda\",\n    \"available\": false,\n"
                        "    \"reason\": \"no driver\"\n  },");
    const json_t *cl = json_array_get(root, 1), *devs = json_object_get(cl, "devices");
    ASSERT(json_is_true(json_object_get(cl, "available")));
    ASSERT_EQ(json_array_size(devs), 2); /* the one not described is left out */
    const json_t *a = json_array_get(devs, 0), *bb = json_array_get(devs, 1);
    ASSERT_EQ(json_integer_value(json_object_get(a, "global_mem_bytes")), (json_int_t)80 << 30);
    ASSERT_EQ(json_integer_value(json_object_get(a, "compute_units")), 132);
    ASSERT(json_real_value(json_object_get(a, "peak_mem_gbs")) == 3352.5);
    ASSERT_STR(json_string_value(json_object_get(a, "type")), "gpu");
    ASSERT_EQ(json_array_size(json_object_get(a, "capabilities")), 2);
    ASSERT_STR(json_string_value(json_array_get(json_object_get(a, "capabilities"), 1)), "peer");
    ASSERT(!json_object_get(a, "clock_source"));
    ASSERT_EQ(json_integer_value(json_object_get(bb, "index")), 1);
    ASSERT_EQ(json_array_size(json_object_get(bb, "capabilities")), 0);
    ASSERT_STR(json_string_value(json_object_get(bb, "clock_source")), "host cpuinfo");
    const json_t *topo = json_object_get(cl, "topology");
    ASSERT_EQ(json_array_size(topo), 2);
    ASSERT_STR(json_string_value(json_object_get(json_array_get(topo, 1), "path")), "staged");
    ASSERT_STR(json_string_value(json_object_get(json_array_get(topo, 0), "kind")), "nvlink");
    json_decref(root);
    /* The text: every backend, the note, the facts, the matrix (no footnote: the link is known). */
    ASSERT_CONTAINS(txt, "opencl [2]: cannot describe: the driver refused");
    ASSERT_CONTAINS(txt, "no driver");
    ASSERT_CONTAINS(txt, "80.00 GiB");
    ASSERT_CONTAINS(txt, "fp64,peer");
    ASSERT_CONTAINS(txt, "clock from the host cpuinfo: the driver reports none");
    ASSERT_CONTAINS(txt, "\nfrom            [0]          [1]  [2]\n");
    ASSERT_CONTAINS(txt, "\n[0]               -  peer/NV4x18    -\n");
    ASSERT_CONTAINS(txt, "\n[1]   staged/NV4x18            -    -\n");
    ASSERT_CONTAINS(txt, "\n[2]               -            -    -\n");
    free(js);
    free(txt);
    gb_doc_free(&d);
}
