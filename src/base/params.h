/* gpubench — typed values, sweeps and the parameters of one case. */
#ifndef GB_PARAMS_H
#define GB_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GB_MAX_AXES 12
#define GB_STR_MAX 64

enum gb_vtype {
    GB_V_SIZE,  /* bytes, written with units in profiles ("4KiB") and as an integer in JSON */
    GB_V_INT,   /* signed integer */
    GB_V_FLOAT, /* double */
    GB_V_STR,   /* short identifier ("h2d", "pinned", "float") */
    GB_V_BOOL,
};

struct gb_value {
    enum gb_vtype type;
    union {
        uint64_t size;
        int64_t i;
        double f;
        bool b;
    } u;
    char s[GB_STR_MAX]; /* GB_V_STR only */
};

/* The values of one axis, in sweep order. */
struct gb_sweep {
    size_t n;
    struct gb_value *v; /* malloc'd */
};

/* The parameters of one case: axis name -> value, in the suite's axis order. Names point to
 * static strings (the suite's axis table). */
struct gb_params {
    size_t n;
    const char *name[GB_MAX_AXES];
    struct gb_value v[GB_MAX_AXES];
};

/* Accessors. Looking up an axis that is absent or of another type is a program error: they
 * return 0 / "" / false and the caller's verify or tests catch it. */
const struct gb_value *gb_params_get(const struct gb_params *p, const char *name);
/* The same, writable: for a suite's normalize(), which rewrites values in place. */
struct gb_value *gb_params_slot(struct gb_params *p, const char *name);
uint64_t gb_params_size(const struct gb_params *p, const char *name);
int64_t gb_params_int(const struct gb_params *p, const char *name);
double gb_params_float(const struct gb_params *p, const char *name);
const char *gb_params_str(const struct gb_params *p, const char *name);
bool gb_params_bool(const struct gb_params *p, const char *name);

/* Writes v as text ("4MiB", "256", "pinned", "true") into buf. Returns buf. */
char *gb_value_format(const struct gb_value *v, char *buf, size_t len);
/* True when a and b have the same type and value. */
bool gb_value_equal(const struct gb_value *a, const struct gb_value *b);
/* Whether a and b name the same axes in the same order with equal values (gb_value_equal),
 * leaving out the axes named in `except` (NULL-terminated; may be NULL). */
bool gb_params_equal_but(const struct gb_params *a, const struct gb_params *b,
                         const char *const *except);

/* "op=h2d memory=pinned size=4MiB" into buf. Returns buf. */
char *gb_params_format(const struct gb_params *p, char *buf, size_t len);

void gb_sweep_free(struct gb_sweep *s);

#endif
