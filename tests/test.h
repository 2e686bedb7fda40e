/* gpubench's test harness (after libuv's): named tests that register themselves, each run in its
 * own process with a timeout by tests/runner.c, assertions that print both values, and skips that
 * say why. A test body returns through the macros; falling off the end is a pass. */
#ifndef GB_TEST_H
#define GB_TEST_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

enum { GB_TEST_PASS = 0, GB_TEST_FAIL = 1, GB_TEST_SKIP = 77 };

struct gb_test {
    const char *name;
    void (*fn)(void);
    int timeout_s;
};

void gb_test_register(const char *name, void (*fn)(void), int timeout_s);

/* TEST(name) { ... } — a test with the default timeout (60 s). */
#define TEST(name) TEST_TIMEOUT(name, 60)
#define TEST_TIMEOUT(name, secs)                                      \
    static void gb_test_##name(void);                                 \
    __attribute__((constructor)) static void gb_test_reg_##name(void) \
    {                                                                 \
        gb_test_register(#name, gb_test_##name, (secs));              \
    }                                                                 \
    static void gb_test_##name(void)

#define GB__FAIL_AT(...)                                \
    do {                                                \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                   \
        fprintf(stderr, "\n");                          \
        fflush(NULL);                                   \
        exit(GB_TEST_FAIL);                             \
    } while (0)

#define ASSERT(cond)                                    \
    do {                                                \
        if (!(cond))                                    \
            GB__FAIL_AT("assertion failed: %s", #cond); \
    } while (0)
#define ASSERT_MSG(cond, ...)                                                            \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: assertion failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                \
            fprintf(stderr, "\n");                                                       \
            fflush(NULL);                                                                \
            exit(GB_TEST_FAIL);                                                          \
        }                                                                                \
    } while (0)
#define ASSERT_INT(a, op, b)                                                  \
    do {                                                                      \
        long long gb__a = (long long)(a), gb__b = (long long)(b);             \
        if (!(gb__a op gb__b))                                                \
            GB__FAIL_AT("%s %s %s: %lld vs %lld", #a, #op, #b, gb__a, gb__b); \
    } while (0)
#define ASSERT_EQ(a, b) ASSERT_INT(a, ==, b)
#define ASSERT_U64(a, op, b)                                                             \
    do {                                                                                 \
        uint64_t gb__a = (uint64_t)(a), gb__b = (uint64_t)(b);                           \
        if (!(gb__a op gb__b))                                                           \
            GB__FAIL_AT("%s %s %s: %" PRIu64 " vs %" PRIu64, #a, #op, #b, gb__a, gb__b); \
    } while (0)
#define ASSERT_OK(expr)                                                              \
    do {                                                                             \
        int gb__r = (expr);                                                          \
        if (gb__r != 0)                                                              \
            GB__FAIL_AT("%s returned %d (%s): %s", #expr, gb__r, gb_err_name(gb__r), \
                        gb_error_msg());                                             \
    } while (0)
#define ASSERT_NEAR(a, b, tol)                                                          \
    do {                                                                                \
        double gb__a = (double)(a), gb__b = (double)(b);                                \
        if (!(fabs(gb__a - gb__b) <= (tol)))                                            \
            GB__FAIL_AT("%s ~ %s: %.17g vs %.17g (tolerance %g)", #a, #b, gb__a, gb__b, \
                        (double)(tol));                                                 \
    } while (0)
#define ASSERT_STR(a, b)                                                                \
    do {                                                                                \
        const char *gb__a = (a), *gb__b = (b);                                          \
        if (!gb__a || !gb__b || strcmp(gb__a, gb__b) != 0)                              \
            GB__FAIL_AT("%s == %s: \"%s\" vs \"%s\"", #a, #b, gb__a ? gb__a : "(null)", \
                        gb__b ? gb__b : "(null)");                                      \
    } while (0)
#define ASSERT_CONTAINS(hay, needle)                                                              \
    do {                                                                                          \
        const char *gb__h = (hay), *gb__n = (needle);                                             \
        if (!gb__h || !strstr(gb__h, gb__n))                                                      \
            GB__FAIL_AT("%s contains \"%s\": got \"%s\"", #hay, gb__n, gb__h ? gb__h : "(null)"); \
    } while (0)

#define SKIP(...)                \
    do {                         \
        printf("skip reason: "); \
        printf(__VA_ARGS__);     \
        printf("\n");            \
        fflush(NULL);            \
        exit(GB_TEST_SKIP);      \
    } while (0)

/* 1 when AddressSanitizer is built in: GCC defines __SANITIZE_ADDRESS__, clang answers
 * __has_feature(address_sanitizer). */
#if defined(__SANITIZE_ADDRESS__)
#define GB_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GB_TEST_ASAN 1
#endif
#endif
#ifndef GB_TEST_ASAN
#define GB_TEST_ASAN 0
#endif

/* Paths set by meson for tests that run the real binary or read the tree. */
#ifndef GB_TEST_EXE
#define GB_TEST_EXE "gpubench"
#endif
#ifndef GB_TEST_BUILDDIR
#define GB_TEST_BUILDDIR "build"
#endif
#ifndef GB_TEST_SRCDIR
#define GB_TEST_SRCDIR "."
#endif

/* Runs `cmd` through /bin/sh, captures stdout+stderr (up to cap-1 bytes) into out, returns the
 * exit status (or -1). For tests of the CLI. */
int gb_test_sh(const char *cmd, char *out, size_t cap);
/* A fresh temporary directory path (mkdtemp under $TMPDIR or /tmp), for files a test writes. */
const char *gb_test_tmpdir(void);

/* ---- helpers shared by the test files (tests/helpers.c) -------------------------------------
 * They fail or skip the calling test through the macros above, as the test itself would. */

#include <stdbool.h>
#include <stdint.h>

struct gb_backend_ops;
struct gb_buf;
struct gb_case_ctx;
struct gb_device;
struct gb_device_info;
struct gb_figure;
struct gb_result;
struct gb_results;

/* gb_test_sh with the command formatted printf-style (up to 8 KiB), its output into out[cap].
 * A file that keeps its output in `static char out[...]` defines
 *     #define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)  */
int gb_test_shf(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Writes `text` to `path` (created or truncated); fails the test when it cannot. */
void gb_test_write_file(const char *path, const char *text);
/* A fresh temporary directory (gb_test_tmpdir), returned, holding the file `name` with `text`
 * (a profile a test then runs there by name). */
const char *gb_test_tmpdir_with(const char *name, const char *text);
/* A fresh temporary directory (gb_test_tmpdir), returned, holding NAME.yaml with the text
 * `profile`: that file's path into prof[cap] and the path of NAME.json beside it, for the run's
 * results, into res[cap]. */
const char *gb_test_profile_files(const char *name, const char *profile, char *prof, char *res,
                                  size_t cap);
/* The whole file at `path`, NUL-terminated (malloc'd, the caller frees); fails the test when it
 * cannot be read. */
char *gb_test_slurp(const char *path);
/* gb_test_slurp of the file `name` in the folder dir. */
char *gb_test_slurp_in(const char *dir, const char *name);
/* How many times `needle` occurs in `hay`, overlapping occurrences included. */
size_t gb_test_count(const char *hay, const char *needle);
/* Seconds on CLOCK_MONOTONIC. */
double gb_test_now_s(void);

/* ops->init() and device `index` of ops opened; the test is skipped when the backend is
 * unavailable or has no such device. */
struct gb_device *gb_test_open_device(const struct gb_backend_ops *ops, int index);
/* One case of a suite run by hand, the way the device tests drive verify(): the case that
 * `params` (a YAML flow map) selects in suite `suite_name` (gb_test_plan_case), OpenCL device 0
 * opened (the test is skipped where there is none, gb_test_open_device), an in-order queue and
 * the suite's zeroed state. *s is the suite and *ctx the case's context, both valid until
 * gb_test_case_close; setup() is the caller's to call. */
struct gb_suite;
struct gb_test_case;
struct gb_test_case *gb_test_case_open(const char *suite_name, const char *params,
                                       const struct gb_suite **s, struct gb_case_ctx **ctx);
/* Calls the suite's teardown(), then frees the state, the queue, the device, the plan and the
 * profile of tc. */
void gb_test_case_close(struct gb_test_case *tc);
/* A tuning cache in a fresh temporary directory, its path into path[cap], holding one entry for
 * OpenCL device 0 (gb_test_open_device: skipped where there is none): kernel `kernel` on
 * `problem` (a tuning_cache.h problem key, "n=1048576 type=float") tuned to the n tunables
 * names[i] = values[i], as an exhaustive search of 1 ms would have stored it. */
void gb_test_tuning_cache(char *path, size_t cap, const char *kernel, const char *problem, size_t n,
                          const char *const names[], const int64_t values[]);
/* Whether the device is PoCL's (whose limits and peaks some tests know). */
bool gb_test_is_pocl(const struct gb_device_info *info);
/* The OpenCL devices the gpubench binary sees (`gpubench devices --json`), with the shell
 * environment assignments `env` before it ("" for none, "POCL_DEVICES='pthread pthread'" to ask
 * PoCL for two devices: other implementations ignore POCL_DEVICES). Names, counts and limits come
 * from the device, so that no test assumes one OpenCL implementation. */
#define GB_TEST_MAX_DEVICES 8
struct gb_test_devices {
    int n;              /* OpenCL devices listed (0 when the backend is unavailable) */
    char platform[128]; /* device 0's platform ("" when none) */
    char name[GB_TEST_MAX_DEVICES][256];
    uint64_t max_wg_size[GB_TEST_MAX_DEVICES];
};
/* Fills *d; fails the test when `gpubench devices --json` fails or is not JSON. */
void gb_test_cli_devices(const char *env, struct gb_test_devices *d);
/* gb_test_cli_devices, and skips the test (saying which implementation offered how many) when it
 * lists fewer than n OpenCL devices. */
void gb_test_need_cli_devices(const char *env, int n, struct gb_test_devices *d);
/* Skips the test when `have`, the OpenCL devices a run or a plan saw, is fewer than n, naming the
 * POCL_DEVICES the test set (PoCL makes that many devices; other implementations offer theirs). */
void gb_test_need_devices(size_t have, size_t n);
/* Skips the test unless `have`, the OpenCL devices a run saw with POCL_DEVICES=pthread, is exactly
 * one (the single-device behaviour of a multi-device suite). */
void gb_test_need_one_device(size_t have);
/* `gpubench validate` refuses the profile `yaml` (a non-zero exit) with a message that contains
 * `expect`; fails the test otherwise, showing the output. */
void gb_test_validate_refuses(const char *yaml, const char *expect);
/* Runs the profile `yaml` with POCL_DEVICES=pocl in a fresh temporary folder (`gpubench run p.yaml
 * -o p.json`, its output in run.txt) and reports it (`gpubench report p.json -o rep`); fails the
 * test, showing the output, unless both exit 0. Returns the folder (the report under rep/). */
const char *gb_test_run_and_report(const char *pocl, const char *yaml);
/* Skips the test when a script exited rc 77 (its "cannot run here"), with the reason it printed
 * after "skip reason: " in out (all of out when it printed none). */
void gb_test_skip_on_77(int rc, const char *out);
/* The device state the fake NVML (tests/fake_nvml.c, loaded through GPUBENCH_NVML_LIB: the same
 * dlopen path as the real library) reports, as a run records it, put on device 0 of the results
 * file dir/from, read into *rs (gb_results_free it); with `link`, also the link as one of the
 * fake's readings under load would raise it (gb_tel_machine_link, as a transfer's readings do).
 * Fails the test when the fake does not open or the file does not read. */
void gb_test_fake_nvml_state(const char *dir, const char *from, bool link, struct gb_results *rs);
/* A virtual clock for the tests of the servers that replay a trace (serve_queue.h, llm_sched.h),
 * as their now() and wait_until() callbacks: ctx points at a struct whose first member is the
 * clock, `double t` (s). now() reads it; wait_until(t) moves it on to t, never back. */
double gb_test_vclock_now(void *ctx);
void gb_test_vclock_wait(void *ctx, double t);
/* OpenCL device 0's own information into *info, read in this process (ops->init() and
 * device_open); the test is skipped when there is none. The backend stays initialised. */
void gb_test_opencl_info(struct gb_device_info *info);
/* Fails the test unless result r ran ok and verified, naming its params, status and reason. */
void gb_test_assert_verified(const struct gb_result *r);
/* The figure called `name` of a result, or NULL. */
const struct gb_figure *gb_test_figure(const struct gb_result *r, const char *name);
/* gb_test_figure that fails the test when r has no such figure. */
const struct gb_figure *gb_test_need_figure(const struct gb_result *r, const char *name);

/* Loads the profile text `yaml`, runs it on the OpenCL devices `devices` selects (a --device
 * value: "0"; NULL for all) and leaves the results in *rs (the caller frees them). Skips the test
 * when there is no OpenCL device; fails it when the profile does not load or the run errs (a
 * failed case is not an error: the caller looks at the results). */
void gb_test_run_profile(const char *yaml, const char *devices, struct gb_results *rs);
/* gb_test_run_profile of one suite on OpenCL device 0: `head` (the profile's lines before its
 * suites, a measure: line or a tuning_cache: line, newlines included; "" for none) and suite
 * `suite` with `params` (a YAML flow map). */
void gb_test_run_suite(const char *head, const char *suite, const char *params,
                       struct gb_results *rs);
/* gb_test_run_suite on every OpenCL device, with POCL_DEVICES=pocl set first (PoCL makes one
 * device per entry: "pthread pthread" two; another implementation offers what it has). */
void gb_test_run_suite_on(const char *pocl, const char *head, const char *suite, const char *params,
                          struct gb_results *rs);
/* Runs the gpubench binary on a profile of `suites` (the suites: list, YAML lines) under a short
 * measure: budget, on the devices `devices` (--device), with the driver-defect shim preloaded
 * (GB_TEST_CL_DEFECTS) and the environment assignments `env` (shell syntax, "" for none), a
 * tuning cache of the run's own; its output into out[0..cap). Skips when there is no OpenCL
 * device; the run must exit 0 (every case ok or skipped), or 1 too when may_fail; reads the
 * results into *rs (validated against the schema). Returns the run's folder (p.yaml, r.json). */
const char *gb_test_run_shimmed(char *out, size_t cap, const char *env, const char *devices,
                                const char *suites, bool may_fail, struct gb_results *rs);
/* Validates the results file at path against schema/gpubench-results.schema.json (python3's
 * jsonschema; without it, nothing is checked). Fails the test with the validator's message. */
void gb_test_check_schema(const char *path);
/* Writes rs to a temporary file and validates it (gb_test_check_schema). */
void gb_test_check_results_schema(const struct gb_results *rs);
/* The one case that `params` (a YAML flow map) selects in suite `suite_name`, loaded into *p
 * and planned into *plan on OpenCL device 0 (free both); the suite. Skips when there is no
 * device; fails unless exactly one case results. */
/* The smallest case of suite s, as a YAML flow map for gb_test_plan_case: each axis at the
 * smallest value of its default sweep (a string's or a boolean's first; a size the suite picks
 * for the device, 0, only when the sweep has no other), but for the axes `set` names
 * ("size: 1MiB", NULL-terminated, may be NULL) and those tests/helpers.c sets smaller for a
 * suite whose smallest default is still slow, so that a test that runs every suite of the table
 * runs a new one on its first build, briefly. */
void gb_test_smallest_params(const struct gb_suite *s, const char *const *set, char *buf,
                             size_t len);
struct gb_profile;
struct gb_plan;
/* The profile in `yaml` (built-in suites) loaded into *p (gb_profile_free it); fails the test
 * with the loader's message when it does not load. */
void gb_test_load_profile(const char *yaml, struct gb_profile *p);
const struct gb_suite *gb_test_plan_case(const char *suite_name, const char *params,
                                         struct gb_profile *p, struct gb_plan *plan);
/* gb_test_plan_case on the OpenCL devices `devices` selects (NULL: all of them), skipping the
 * test when they are fewer than `need` (0: any number), for the multi-device suites. */
const struct gb_suite *gb_test_plan_case_on(const char *suite_name, const char *params,
                                            const char *devices, size_t need, struct gb_profile *p,
                                            struct gb_plan *plan);
/* Opens the plan's first two devices with ops and a queue on each (fails the test when one
 * does not open); gb_test_close_two closes them. */
struct gb_queue;
void gb_test_open_two(const struct gb_backend_ops *ops, const struct gb_plan *plan,
                      struct gb_device *devs[2], struct gb_queue *qs[2]);
void gb_test_close_two(const struct gb_backend_ops *ops, struct gb_device *devs[2],
                       struct gb_queue *qs[2]);
/* The context of the plan's one case on the two devices gb_test_open_two opened (device 0 its
 * dev and q), driven through ops; the caller sets suite and state. */
struct gb_case_ctx gb_test_two_ctx(const struct gb_backend_ops *ops, const struct gb_plan *plan,
                                   struct gb_device *devs[2], struct gb_queue *qs[2]);
/* Runs the one case that `params` (a YAML flow map) selects in suite `suite_name` by hand on
 * OpenCL device 0: setup, `reps` runs, a verify that must pass; then corrupt() damages the
 * output and verify must fail with GB_EVERIFY and a reason. Skips when there is no device. */
void gb_test_corrupted_case_fails(const char *suite_name, const char *params, uint64_t reps,
                                  void (*corrupt)(struct gb_case_ctx *));
/* Writes `bytes` of `value` into device buffer b at byte offset off through the backend, as a
 * faulty kernel or copy would. */
void gb_test_smash(struct gb_case_ctx *ctx, struct gb_buf *b, uint64_t off, const void *value,
                   uint64_t bytes);

/* Starts `gpubench run prof -o res` in a child (its output to /dev/null; *pid its process) and
 * waits, up to 60 s, until res holds a result: whether one came (the run goes on either way). */
bool gb_test_run_until_a_result(const char *prof, const char *res, pid_t *pid);

#endif
