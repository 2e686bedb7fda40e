/* Unit tests of the shared helpers (no device): src/base/util.c, and the launch and GEMM checks in
 * backends/backends.c, which the CUDA backend relies on where no NVIDIA device can run them. */
#include <stdint.h>
#include <sys/stat.h>

#include "backends/backend.h"
#include "base/error.h"
#include "test.h"
#include "base/util.h"

TEST(util_appendf_truncates_and_stays_terminated)
{
    char b[8] = "";
    gb_appendf(b, sizeof b, "%s", "ab");
    gb_appendf(b, sizeof b, "%d", 123);
    ASSERT_STR(b, "ab123");
    gb_appendf(b, sizeof b, "%s", "xyz"); /* only "xy" fits */
    ASSERT_STR(b, "ab123xy");
    gb_appendf(b, sizeof b, "%s", "more"); /* full: nothing more, no overrun */
    ASSERT_STR(b, "ab123xy");
    gb_appendf(b, 0, "%s", "ignored"); /* a zero capacity is not read at all */
    ASSERT_STR(b, "ab123xy");
}

TEST(util_append_line_keeps_the_line_break)
{
    char b[10] = "";
    gb_append_line(b, sizeof b, "one");
    ASSERT_STR(b, "one\n");
    gb_append_line(b, sizeof b, "%s", "second"); /* truncated, the break kept */
    ASSERT_STR(b, "one\nseco\n");
    gb_append_line(b, sizeof b, "x"); /* no room for a character and a break */
    ASSERT_STR(b, "one\nseco\n");
}

TEST(util_grow_keeps_contents_and_refuses_overflow)
{
    size_t cap = 0;
    int *a = gb_grow(NULL, &cap, 1, sizeof *a);
    ASSERT(a != NULL);
    ASSERT_INT(cap, >=, 1);
    for (int i = 0; i < 1000; i++) {
        int *g = gb_grow(a, &cap, (size_t)i + 1, sizeof *a);
        ASSERT(g != NULL);
        a = g;
        a[i] = i;
    }
    ASSERT_INT(cap, >=, 1000);
    ASSERT_INT(cap, <, 4000); /* doubling, not one element at a time nor wildly more */
    for (int i = 0; i < 1000; i++)
        ASSERT_EQ(a[i], i);
    /* Enough room already: the same array, the same capacity. */
    const size_t before = cap;
    ASSERT(gb_grow(a, &cap, 10, sizeof *a) == a);
    ASSERT_EQ(cap, before);
    /* A byte count beyond size_t: NULL, and the array and capacity are untouched. */
    ASSERT(gb_grow(a, &cap, SIZE_MAX / 2, 16) == NULL);
    ASSERT_EQ(cap, before);
    ASSERT_EQ(a[999], 999);
    free(a);
}

TEST(util_find_or_add_str)
{
    struct item {
        int value;
        char key[4];
    } items[3];
    size_t n = 0;
    bool added;
    size_t i = gb_find_or_add_str(items, &n, 3, sizeof items[0], offsetof(struct item, key),
                                  sizeof items[0].key, "a", &added);
    ASSERT(added);
    ASSERT_EQ(i, 0);
    ASSERT_EQ(n, 1);
    ASSERT_EQ(items[0].value, 0); /* a new element is zeroed */
    items[0].value = 7;
    i = gb_find_or_add_str(items, &n, 3, sizeof items[0], offsetof(struct item, key),
                           sizeof items[0].key, "b", &added);
    ASSERT(added);
    ASSERT_EQ(i, 1);
    i = gb_find_or_add_str(items, &n, 3, sizeof items[0], offsetof(struct item, key),
                           sizeof items[0].key, "a", &added);
    ASSERT(!added);
    ASSERT_EQ(i, 0);
    ASSERT_EQ(items[i].value, 7);
    /* A long key is stored cut to the key's size. */
    i = gb_find_or_add_str(items, &n, 3, sizeof items[0], offsetof(struct item, key),
                           sizeof items[0].key, "longer", &added);
    ASSERT(added);
    ASSERT_STR(items[i].key, "lon");
    /* Full: max, nothing added. */
    i = gb_find_or_add_str(items, &n, 3, sizeof items[0], offsetof(struct item, key),
                           sizeof items[0].key, "d", &added);
    ASSERT(!added);
    ASSERT_EQ(i, 3);
    ASSERT_EQ(n, 3);
}

TEST(util_mkdir_p)
{
    char path[GB_PATH_JOIN];
    snprintf(path, sizeof path, "%s/a/b/c", gb_test_tmpdir());
    ASSERT_EQ(gb_mkdir_p(path, 0777), 0);
    struct stat st;
    ASSERT(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
    ASSERT_EQ(gb_mkdir_p(path, 0777), 0); /* existing folders are fine */
    char file[GB_PATH_JOIN + 64], under[GB_PATH_JOIN + 128];
    snprintf(file, sizeof file, "%s/f", path);
    gb_test_write_file(file, "x");
    snprintf(under, sizeof under, "%s/under-a-file", file);
    ASSERT_EQ(gb_mkdir_p(under, 0777), -1);
}

TEST(backend_launch_check_geometry)
{
    struct gb_device_info info = {.max_wg_size = 256, .max_wg_dims = {256, 128, 4}};
    struct gb_launch l = {.dims = 2, .global = {64, 32, 1}, .local = {16, 8, 1}};
    ASSERT_OK(gb_launch_check(&l, &info, 0, "k"));
    ASSERT_OK(gb_launch_check(&l, &info, 128, "k")); /* 16 x 8 = 128 work-items */
    ASSERT_EQ(gb_launch_check(&l, &info, 64, "k"), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "work-group size 128 exceeds kernel k's maximum 64");
    struct gb_launch bad = l;
    bad.global[1] = 36;
    ASSERT_EQ(gb_launch_check(&bad, &info, 0, "k"), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "global size 36 in dimension 1 is not a multiple of the "
                                    "work-group size 8");
    /* Within the total of 256, over dimension 2's own limit of 4. */
    struct gb_launch deep = {.dims = 3, .global = {1, 1, 8}, .local = {1, 1, 8}};
    ASSERT_EQ(gb_launch_check(&deep, &info, 0, "k"), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "work-group size 8 in dimension 2 exceeds the device "
                                    "maximum 4");
    /* Over the total, each dimension within its own limit. */
    bad = l;
    bad.local[0] = 64;
    bad.global[0] = 64;
    ASSERT_EQ(gb_launch_check(&bad, &info, 0, "k"), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "work-group size 512 exceeds the device maximum 256");
    bad = l;
    bad.local[1] = 0;
    ASSERT_EQ(gb_launch_check(&bad, &info, 0, "k"), GB_EINVAL);
    bad = l;
    bad.dims = 0;
    ASSERT_EQ(gb_launch_check(&bad, &info, 0, "k"), GB_EINVAL);
    ASSERT_EQ(gb_launch_check(NULL, &info, 0, "k"), GB_EINVAL);
}

static bool same_handle(const struct gb_device *a, const struct gb_device *b)
{
    return a == b;
}

TEST(backend_gemm_check_shape)
{
    struct gb_device dev = {0}, other = {0};
    /* A 4x3 (m x k) times 3x5 (k x n), column-major, F32: 12, 15 and 20 elements. */
    struct gb_buf a = {.dev = &dev, .bytes = 12 * 4, .kind = GB_MEM_DEVICE};
    struct gb_buf b = {.dev = &dev, .bytes = 15 * 4, .kind = GB_MEM_DEVICE};
    struct gb_buf c = {.dev = &dev, .bytes = 20 * 4, .kind = GB_MEM_DEVICE};
    struct gb_gemm g = {.a_type = GB_F32,
                        .c_type = GB_F32,
                        .compute = GB_F32,
                        .m = 4,
                        .n = 5,
                        .k = 3,
                        .a = &a,
                        .b = &b,
                        .c = &c,
                        .lda = 4,
                        .ldb = 3,
                        .ldc = 4,
                        .batch = 1};
    ASSERT_OK(gb_gemm_check_shape(&g, &dev, same_handle, SIZE_MAX, "SIZE_MAX"));
    /* Transposed A is stored k x m: lda 3 is then enough, 4 elements per column too many. */
    struct gb_gemm t = g;
    t.trans_a = true;
    t.lda = 3;
    ASSERT_OK(gb_gemm_check_shape(&t, &dev, same_handle, SIZE_MAX, "SIZE_MAX"));
    t.lda = 4;
    ASSERT_EQ(gb_gemm_check_shape(&t, &dev, same_handle, SIZE_MAX, "SIZE_MAX"), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "A needs 15 elements, its buffer holds 12");
    /* A leading dimension below the rows, a zero size, a buffer of another device. */
    struct gb_gemm e = g;
    e.ldc = 3;
    ASSERT_EQ(gb_gemm_check_shape(&e, &dev, same_handle, SIZE_MAX, "SIZE_MAX"), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "ldC=3 below its 4 rows");
    e = g;
    e.k = 0;
    ASSERT_EQ(gb_gemm_check_shape(&e, &dev, same_handle, SIZE_MAX, "SIZE_MAX"), GB_EINVAL);
    ASSERT_EQ(gb_gemm_check_shape(&g, &other, same_handle, SIZE_MAX, "SIZE_MAX"), GB_EINVAL);
    ASSERT_CONTAINS(gb_error_msg(), "not a device buffer of this device");
    /* The library's index type, and strides whose extent leaves 64 bits. */
    ASSERT_EQ(gb_gemm_check_shape(&g, &dev, same_handle, 4, "TINY"), GB_ETOOBIG);
    ASSERT_CONTAINS(gb_error_msg(), "a size above TINY");
    e = g;
    e.batch = 3;
    e.stride_c = UINT64_MAX / 2;
    ASSERT_EQ(gb_gemm_check_shape(&e, &dev, same_handle, UINT64_MAX, "UINT64_MAX"), GB_EOVERFLOW);
    /* Batched: the last matrix ends at (batch - 1) * stride + its own extent. */
    e = g;
    e.batch = 2;
    e.stride_a = 12;
    e.stride_b = 0; /* one B for both */
    e.stride_c = 20;
    ASSERT_EQ(gb_gemm_check_shape(&e, &dev, same_handle, SIZE_MAX, "SIZE_MAX"), GB_EINVAL);
    a.bytes = 24 * 4;
    c.bytes = 40 * 4;
    ASSERT_OK(gb_gemm_check_shape(&e, &dev, same_handle, SIZE_MAX, "SIZE_MAX"));
}

TEST(backend_pageable_alloc)
{
    void *p = NULL;
    ASSERT_OK(gb_pageable_alloc(3 * 4096 + 5, &p));
    ASSERT(p != NULL);
    ASSERT_EQ((uintptr_t)p % 4096, 0);
    ((volatile char *)p)[3 * 4096 + 4] = 1;
    free(p);
    ASSERT_EQ(gb_pageable_alloc(0, &p), GB_EINVAL);
}

/* The "did you mean" of messages: the nearest name by edit distance, an abbreviation counting as
 * near, and none when nothing is near. */
TEST(util_did_you_mean_finds_the_nearest_name)
{
    ASSERT_U64(gb_edit_distance("kitten", "sitting"), ==, 3);
    ASSERT_U64(gb_edit_distance("", "abc"), ==, 3);
    ASSERT_U64(gb_edit_distance("Quick", "quick"), ==, 0);
    static const char *const names[] = {"threshold", "suite-threshold", "alpha", "mads"};
    ASSERT_STR(gb_did_you_mean("treshold", names, 4), "threshold");
    ASSERT_STR(gb_did_you_mean("alhpa", names, 4), "alpha");
    ASSERT_STR(gb_did_you_mean("suite-thr", names, 4), "suite-threshold");
    ASSERT(gb_did_you_mean("frobnicate", names, 4) == NULL);
    ASSERT(gb_did_you_mean("alpha", names, 4) == NULL); /* itself is no suggestion */
    char buf[64];
    ASSERT_STR(gb_did_you_mean_list("mesure", "name, backends, measure or suites", buf, sizeof buf),
               "measure");
    ASSERT(gb_did_you_mean_list("or", "a, b or c", buf, sizeof buf) == NULL);
}
