/* gpubench — reading many results files: what `fleet` and `history` share.
 *
 * Both take folders and files on the command line, read the results files one at a time with the
 * ordinary reader (results/results.h), keep only the figures they need and free the rest before
 * the next file, so that memory grows with the number of (file, case) figures, never with the
 * samples. Three helpers serve that: the list of input files, a case's identity across files, and
 * a string table that interns the keys.
 */
#ifndef GB_MERGE_H
#define GB_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "results/results.h"

/* ---- the inputs ------------------------------------------------------------------------------ */

struct gb_inputs {
    char **paths; /* malloc'd, each malloc'd */
    size_t n, cap;
    size_t ndup; /* files named again (given twice, or also through their folder): left out */
};

/* Expands args[0..nargs) into results files: a folder gives every regular file in it whose name
 * ends in ".json" (not recursing, hidden files left out) in byte order of the names; any other
 * path is taken as a file, as given. A file named more than once (given twice, or also
 * through its folder: gb_files_duplicates) is kept at its first place only, out->ndup counting
 * the others. Returns 0; GB_EIO with a message naming the path when an
 * argument does not exist or a folder cannot be read; GB_EINVAL when the arguments give no file
 * at all; GB_ENOMEM. On error *out is left empty. */
int gb_inputs_expand(const char *const *args, size_t nargs, struct gb_inputs *out);
/* Whether path starts like an expectations file (analyses/expect.h writes its schema first):
 * gb_inputs_expand leaves such a file in a folder out, as it is not a run. */
bool gb_file_is_expectations(const char *path);
/* The same, and a file named more than once (gb_files_duplicates) is kept once, at its first
 * place; out->ndup counts the others. */
void gb_inputs_free(struct gb_inputs *in);

/* ---- a case across files --------------------------------------------------------------------- */

/* The identity of one result, split so that a fleet can put the same case of many machines side by
 * side and a history can follow the same case of one machine night after night. */
struct gb_case_id {
    char key[2048];    /* suite, case, backend, device name(s) and every param, separated by the
                        * unit separator 0x1f: equal for the same case on devices of the same name */
    char slot[64];     /* which of the file's devices of that name: the positions among them,
                        * "0", "1", "0+1" for a set; "" when the file has one device of each name
                        * the case used */
    char device[512];  /* the device name(s), '+'-joined for a multi-device case */
    char params[1024]; /* the params after the case axis, "memory=pinned size=4MiB" */
};

/* Fills *id for result r of rs. Device indices out of range give the name "?". */
void gb_case_identify(const struct gb_results *rs, const struct gb_result *r,
                      struct gb_case_id *id);

/* "memory triad size=64MiB on cpu-haswell" style text for people: suite, case, params (the key's
 * params after the case axis) and device, into buf. Returns buf. */
char *gb_case_title(const char *suite, const char *case_name, const char *params,
                    const char *device, char *buf, size_t len);

/* Whether result r measures something else than a case first seen in (unit, metric, better):
 * another unit, metric or direction. Its value is then left out of the case (fleet, history
 * and calibrate pool a case's values, and 15220 MB/s beside 15.22 GB/s is no spread), and
 * `why` gets the reason, "unit MB/s where the case is GB/s". */
bool gb_case_measure_differs(const char *unit, const char *metric, enum gb_better better,
                             const struct gb_result *r, char *why, size_t len);

/* Appends to `notes` (gb_append_line) the line "N values of case TITLE left out: WHY"; n 0
 * adds nothing. */
void gb_case_left_out_note(char *notes, size_t len, size_t n, const char *title, const char *why);

/* ---- a string table -------------------------------------------------------------------------- */

/* Interned strings numbered 0, 1, ... in order of first appearance, found by hash (FNV-1a, open
 * addressing with linear probing, kept at most half full): O(1) expected per lookup. */
struct gb_strtab {
    char *pool; /* every string, NUL-terminated, back to back */
    size_t pool_len, pool_cap;
    size_t *offset; /* offset[i]: where string i starts in pool */
    size_t n, cap;
    uint32_t *slots; /* 0 empty, else index + 1 */
    size_t nslots;   /* a power of two */
};

/* The index of s, adding it when new (*added true then; added may be NULL). Returns the index
 * (>= 0) or GB_ENOMEM (or GB_EOVERFLOW past 2^31 strings). */
long gb_strtab_intern(struct gb_strtab *t, const char *s, bool *added);
/* The index of s, or -1 when absent. */
long gb_strtab_find(const struct gb_strtab *t, const char *s);
/* String i (i < t->n); valid until the next intern. */
const char *gb_strtab_get(const struct gb_strtab *t, size_t i);
void gb_strtab_free(struct gb_strtab *t);

/* ---- shared small things --------------------------------------------------------------------- */

/* True when `suite` is in the comma-separated `list` (NULL or "": every suite). */
bool gb_suite_selected(const char *list, const char *suite);

/* Writes s as a JSON string literal, quotes included: " \ and control characters escaped, other
 * bytes as they are (results files hold UTF-8). For writers that stream large JSON documents
 * instead of building them in memory. */
void gb_fputs_json(FILE *f, const char *s);

/* Writes v as a JSON number with 17 significant digits, or null when it is not finite. */
void gb_fput_json_num(FILE *f, double v);

/* The median of x[0..n) (n > 0), sorting x in place. */
double gb_median_inplace(double *x, size_t n);

/* A figure for the fleet and history tables into buf[len]: v with 4 significant digits
 * (gb__fmt_num) or a relative change as a signed percentage (gb__fmt_pct, 0.05 -> "+5.0%");
 * "-" when v is not finite. */
void gb__fmt_num(double v, char *buf, size_t len);
void gb__fmt_pct(double v, char *buf, size_t len);

#endif
