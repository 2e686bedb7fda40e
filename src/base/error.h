/* gpubench — error codes and error detail.
 *
 * Every function that can fail returns 0 or a negative gb_err. The codes come from one X-macro
 * table (GB_ERRNO_MAP) that generates the enum, gb_strerror() and gb_err_name() together, so a
 * new code cannot be half-added (the libuv idiom).
 *
 * A code says *what kind* of failure; the *detail* (which API call, its native code and text,
 * the file:line that noticed it, a build log) goes into a thread-local message set with
 * gb_error_set() and read with gb_error_msg(). The runner copies it into the result's `reason`.
 *
 * Names, the one rule of the tree (every file includes this header, so it is written here):
 *   gb_ / GB_     public: declared in a header for other files to use (gb_profile_load,
 *                 GB_MAX_SET);
 *   gb__ / GB__   private but visible across files: declared in a private header that only
 *                 the files of one part include (run/config_private.h), or a helper macro of
 *                 a public header (GB__ERR_ENUM below);
 *   no prefix     file-static functions, types, tables and macros of one .c file.
 * So a gb__ name always says "another file shares this; it is not for you", and a static
 * function never carries gb_ or gb__.
 */
#ifndef GB_ERROR_H
#define GB_ERROR_H

#include <stdarg.h>
#include <stdio.h>

#define GB_ERRNO_MAP(X)                                            \
    X(EINVAL, -1, "invalid argument")                              \
    X(ENOMEM, -2, "out of host memory")                            \
    X(ENODEV, -3, "no such device")                                \
    X(EUNAVAIL, -4, "backend unavailable")                         \
    X(EBACKEND, -5, "backend API call failed")                     \
    X(EBUILD, -6, "kernel build failed")                           \
    X(ETOOBIG, -7, "size exceeds what the device allows")          \
    X(EUNSUPPORTED, -8, "not supported by this device or backend") \
    X(EVERIFY, -9, "output does not match the host reference")     \
    X(ECONFIG, -10, "invalid profile")                             \
    X(EIO, -11, "input/output error")                              \
    X(EINTR, -12, "interrupted")                                   \
    X(ETIMEOUT, -13, "timed out")                                  \
    X(EOVERFLOW, -14, "arithmetic overflow in a size")             \
    X(ESCHEMA, -15, "results file does not match the schema")      \
    X(ESKIP, -16, "case skipped")                                  \
    X(EIMPLAUSIBLE, -17, "measurement is implausible")

enum gb_err {
    GB_OK = 0,
#define GB__ERR_ENUM(name, val, text) GB_##name = (val),
    GB_ERRNO_MAP(GB__ERR_ENUM)
#undef GB__ERR_ENUM
};

/* "invalid argument", ... for a gb_err; "unknown error" for anything else. Never NULL. */
const char *gb_strerror(int err);

/* "EINVAL", ... for a gb_err; "EUNKNOWN" for anything else. Never NULL. */
const char *gb_err_name(int err);

/* Records the detail of a failure for this thread and returns `err`, so that a caller can write
 * `return gb_error_set(GB_EBACKEND, __FILE__, __LINE__, "clCreateBuffer: %s", s);`.
 * The message is the text alone, for the user; the source location ("measure.c:226", when file is
 * non-NULL) is kept apart (gb_error_where) and written to the debug log when there is one
 * (gb_error_log_to, `--verbose`). It replaces the previous message. Use the GB_FAIL() macro
 * rather than calling this directly. */
int gb_error_set(int err, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* As gb_error_set(), appending to (rather than replacing) the current message after "; ". */
int gb_error_append(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The last message set on this thread, or "" if none. Valid until the next gb_error_* call. */
const char *gb_error_msg(void);

/* The source location of the last message set on this thread ("measure.c:226"), "" when it had
 * none (GB_USER_FAIL) or after gb_error_clear. */
const char *gb_error_where(void);

/* From now on every message set with a source location is also written to f (NULL: to nowhere),
 * as "gpubench: debug: measure.c:226: EBACKEND: text": the `--verbose` log. */
void gb_error_log_to(FILE *f);

/* Forgets the last message on this thread. */
void gb_error_clear(void);

#define GB_FAIL(err, ...) gb_error_set((err), __FILE__, __LINE__, __VA_ARGS__)
/* For messages meant for the user (a bad option, a missing device): no source location. */
#define GB_USER_FAIL(err, ...) gb_error_set((err), NULL, 0, __VA_ARGS__)

#endif
