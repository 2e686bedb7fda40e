/* gpubench — units: sizes, durations, and their formatting.
 *
 * Sizes: an integer or decimal number followed by an optional unit, with optional spaces between:
 * B; binary KiB, MiB, GiB, TiB (2^10 ...); decimal KB, MB, GB, TB (10^3 ...). Units are case
 * sensitive except that "b" is not accepted (it would mean bits). A bare number is bytes.
 * Durations: a number followed by ns, us, ms, s or min; a bare number is seconds.
 * GB/s everywhere in gpubench means 1e9 bytes per second.
 */
#ifndef GB_UNITS_H
#define GB_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parses a size ("4KiB", "1.5 GB", "4096") into bytes. Returns 0, GB_EINVAL for text that is
 * not a size (unknown unit like "12 XB", empty, trailing junk, negative, not a whole number of
 * bytes) or GB_EOVERFLOW when it does not fit in 64 bits. The detail names the problem. */
int gb_parse_size(const char *text, uint64_t *bytes);

/* Parses a duration ("10ms", "2 s", "0.5") into seconds. GB_EINVAL when malformed or negative. */
int gb_parse_duration(const char *text, double *seconds);

/* Parses a matrix product's shape, "N" (N x N x N) or "MxNxK", each a whole number from 1 to 2^31
 * (gemm's `shape` axis). Returns false when malformed, zero or over 2^31. */
bool gb_parse_mnk(const char *text, uint64_t *m, uint64_t *n, uint64_t *k);

/* Formats bytes exactly when it is a whole number of KiB/MiB/GiB ("4KiB", "256MiB"), else as
 * bytes ("1000B"). Returns buf. */
char *gb_format_size(uint64_t bytes, char *buf, size_t len);

/* Formats bytes for people, rounded in the largest binary unit (up to TiB) that keeps the number
 * at least 1: "512 B", "4.00 KiB", "3.82 GiB" (two decimals from KiB on). Not exact and not
 * meant to be parsed back: gb_format_size is. Returns buf. */
char *gb_format_bytes_human(uint64_t bytes, char *buf, size_t len);

/* Formats v for people in engineering form with `sig` significant figures (1..9; 3 when out of
 * range): the number, a space, an SI prefix and the unit ("4.1 k", "1.55 ms", "22.9 MB",
 * "2.38 GB/s"). A unit that already carries a prefix is rescaled: v in "us" of 1550 gives
 * "1.55 ms", v in "GB/s" of 0.5 gives "500 MB/s"; "bytes" reads as "B" ("441 MB"). A unit it
 * does not know ("%", "FLOP/B", "x") is kept as given after the number ("1/s" takes the prefix:
 * "15.1 k/s"), which then takes k, M, G, T from 10^4 on and e-notation below 10^-3 (a relative
 * error of 1.62e-07 stays so); NULL or "" is no unit. Trailing zeros after the point are
 * dropped ("4.1 k", not "4.10 k"). NaN and infinities as printf writes them. Not meant to be
 * parsed back: files keep the full number. Returns buf. */
char *gb_format_eng(double v, const char *unit, int sig, char *buf, size_t len);

/* Checked arithmetic for sizes: returns GB_EOVERFLOW (and leaves *out alone) on overflow. */
int gb_mul_u64(uint64_t a, uint64_t b, uint64_t *out);
int gb_add_u64(uint64_t a, uint64_t b, uint64_t *out);

/* Monotonic host clock in seconds (CLOCK_MONOTONIC). */
double gb_now(void);

#endif
