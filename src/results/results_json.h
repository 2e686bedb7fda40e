/* gpubench — the JSON form of results (schema "gpubench-results/2"), private to the files that
 * read and write it (results_read.c, results_write.c); the contract is results.h.
 *
 * Non-finite numbers: JSON has no NaN or infinity, so a non-finite double is written as `null`
 * (the key is kept, so the shape of every result is the same). On reading, `null` becomes NaN,
 * except in `ci95`, where the only non-finite value gpubench produces is the unbounded interval
 * of a single sample (gb_stats_compute, n = 1), which reads back as INFINITY.
 *
 * Params: sizes and integers are both JSON integers (sizes in bytes), so a file does not say
 * which an integer was: an integer is read back as GB_V_SIZE when the result's suite (in this
 * build's table) declares that axis a size, else as GB_V_INT, so params read from a file compare
 * and print like those of the run that wrote it. Floats are JSON reals (GB_V_FLOAT),
 * strings GB_V_STR, true/false GB_V_BOOL.
 *
 * Messages about a file (GB_EIO, GB_ESCHEMA) are for the user: they name the file and the field
 * ("results[3].stats.median") and carry no source location.
 */
#ifndef GB_RESULTS_JSON_H
#define GB_RESULTS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The names of the capability bits in a device's "capabilities" array (results.c). A name this
 * build does not know (from a newer gpubench) is ignored on reading. */
struct gb__cap {
    uint64_t bit; /* GB_CAP_* (backends/backend.h) */
    const char *name;
};
extern const struct gb__cap gb__caps[];
extern const size_t gb__ncaps;

/* The members of a device's object that are plain members of struct gb_device_info, in the
 * order the reader checks them (results.c): strings (size is the array's, read truncated; only
 * "name" is required) and unsigned integers (size 4 or 8, written as JSON integers). The writer
 * and the reader add "backend", "index", "max_work_group_dims", "warp_size", "peak_mem_gbs" and
 * "capabilities" around them. */
struct gb__info_field {
    const char *name;
    size_t offset, size; /* of the member in struct gb_device_info */
    bool is_str;
    bool required;
};
extern const struct gb__info_field gb__info_fields[];
extern const size_t gb__ninfo_fields;

/* The members of a "stats" object after its "n", in file order: every double of struct
 * gb_stats, by name and offset (results.c). */
struct gb__stat_field {
    const char *name;
    size_t offset; /* of a double in struct gb_stats */
};
extern const struct gb__stat_field gb__stat_fields[];
extern const size_t gb__nstat_fields;

/* Telemetry's JSON (results_telemetry.c): a result's "telemetry" and the run's "machine".
 * The writers return NULL when out of memory; the readers are lenient (a missing member is
 * unknown). gb__tel_summary_read returns -1 when out of memory. */
struct json_t;
struct gb_tel_summary;
struct gb_tel_machine;
struct json_t *gb__tel_summary_json(const struct gb_tel_summary *t);
struct json_t *gb__tel_machine_json(const struct gb_tel_machine *m);
int gb__tel_summary_read(const struct json_t *o, size_t nsamples, struct gb_tel_summary *t);
void gb__tel_machine_read(const struct json_t *o, struct gb_tel_machine *m);

#endif
