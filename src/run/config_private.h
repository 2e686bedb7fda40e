/* gpubench — profiles: what the parts of the loader share, private to src/run/config*.c (the
 * contract is config.h).
 *
 *   config.c          the profile's own keys, its suite entries, the entry points
 *   config_yaml.c     the libyaml walker: documents, nodes, strict scalars, located errors
 *   config_sweep.c    axis values and sweeps (also gb_sweep_parse)
 *   config_measure.c  the measurement settings and their layers (also gb_measure_defaults)
 *   config_tuning.c   an entry's tuned, tunables and constraints
 *   config_set.c      the --set overrides
 *
 * Every check reports "source:line:column: message" (1-based) through gb__fail() into the
 * caller's buffer and returns GB_ECONFIG, which fails the whole load (gb_profile_free() then
 * releases whatever was parsed). The parsers take the node to read: NULL, or an empty scalar
 * placed at its key, where a key has no value.
 */
#ifndef GB_CONFIG_PRIVATE_H
#define GB_CONFIG_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "run/config.h"

/* A place in a source: the file name (or "--set KEY", or "axis NAME"), 1-based line and column. */
struct gb__loc {
    const char *src;
    int line, col;
};

/* The keys of `measure:` (config_measure.c). */
#define GB__MKEYS 10

/* One layer of measurement settings: the keys it sets and where each was set. */
struct gb__mlayer {
    struct gb_measure_cfg v;
    unsigned set; /* bit k: measure key k is set */
    struct gb__loc at[GB__MKEYS];
};

/* The loader's state. */
struct gb__ld {
    const char *src;      /* the name in messages: the file, or "--set KEY" */
    yaml_document_t *doc; /* the document being read */
    char *err;
    size_t errlen;
    struct gb_profile *p;
    struct gb__mlayer top;   /* the profile's `measure:` */
    struct gb__mlayer *runm; /* each entry's `measure:`, parallel to p->runs */
    char **srcs;             /* "--set KEY" names, alive until the load ends */
    size_t nsrcs;
    /* The last failure names a suite, or an axis of its suite, that this build lacks and that
     * is no near miss of one it has (no "did you mean"): all that `optional: true` forgives. */
    bool lacks;
    /* Axis values the load has parsed so far, every sweep together (gb__parse_sweep). */
    size_t nvalues;
};

/* ---- the libyaml walker (config_yaml.c) ------------------------------------------------ */

/* Where node n starts (line 1, column 1 of the source when n is NULL). */
struct gb__loc gb__node_loc(const struct gb__ld *l, const yaml_node_t *n);

/* Writes "src:line:col: message" into l->err and returns GB_ECONFIG: at `at`, or at node n. */
int gb__fail_loc(struct gb__ld *l, struct gb__loc at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int gb__fail(struct gb__ld *l, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Loads the single YAML document of text into doc; reports syntax errors, and a second
 * document. The caller deletes doc. */
int gb__load_doc(struct gb__ld *l, const char *text, size_t len, yaml_document_t *doc);

yaml_node_t *gb__node_at(const struct gb__ld *l, int id);
/* A plain empty, "~" or "null" scalar (a key without a value). */
bool gb__is_null(const yaml_node_t *n);
/* "a mapping", "a list", "a scalar" or "nothing", for messages. */
const char *gb__kind(const yaml_node_t *n);
/* The text of a scalar node. */
const char *gb__sval(const yaml_node_t *n);
/* A non-null scalar's text into *out, or an error naming `what` was expected. */
int gb__want_scalar(struct gb__ld *l, const yaml_node_t *n, const char *what, const char **out);
/* Checks that n is a mapping with distinct non-null scalar keys (`what` names it in messages). */
int gb__check_map(struct gb__ld *l, yaml_node_t *n, const char *what);

/* For each pair of mapping n: key node k, value node v. */
#define GB__MAP_FOREACH(l, n, k, v)                                                     \
    for (yaml_node_pair_t *gb__p = (n)->data.mapping.pairs.start;                       \
         gb__p < (n)->data.mapping.pairs.top &&                                         \
         ((k) = gb__node_at((l), gb__p->key), (v) = gb__node_at((l), gb__p->value), 1); \
         gb__p++)

size_t gb__seq_len(const yaml_node_t *n);
yaml_node_t *gb__seq_item(const struct gb__ld *l, const yaml_node_t *n, size_t i);
/* For a key that takes a scalar or a list of them: checks that n is a non-null scalar or a
 * non-empty list ("expected WHAT, got a mapping"; `if_empty`, the whole message, for []) and
 * gives the number of items (1 for a scalar) in *len; gb__list_item() is item i. */
int gb__scalar_or_list(struct gb__ld *l, yaml_node_t *n, const char *what, const char *if_empty,
                       size_t *len);
yaml_node_t *gb__list_item(const struct gb__ld *l, yaml_node_t *n, size_t i);

/* Strict scalars: the whole text is the value or the parse fails (false). */
bool gb__parse_i64(const char *s, int64_t *out);  /* optional sign, decimal digits */
bool gb__parse_u64(const char *s, uint64_t *out); /* optional '+', decimal digits */
bool gb__parse_f64(const char *s, double *out);   /* finite decimal; no hex, inf or nan */
bool gb__parse_bool(const char *s, bool *out);    /* true/yes/on, false/no/off, any case */
/* Letters, digits and _ . + - (a profile name, a value of a string axis). */
bool gb__is_ident(const char *s);
/* "a, b or c" of a NULL-terminated list, into buf. */
const char *gb__join_or(const char *const *names, char *buf, size_t len);
/* 'did you mean "WORD"? ' when `given` is near a word of `list` ("a, b or c"), else "": for a
 * message's parenthesis before the list. Writes buf[len] and returns it. */
const char *gb__hint(const char *given, const char *list, char *buf, size_t len);

/* ---- sweeps (config_sweep.c) ----------------------------------------------------------- */

/* A sweep for axis ax from node n: a scalar, a list or a range, every value checked. */
int gb__parse_sweep(struct gb__ld *l, const struct gb_axis_def *ax, yaml_node_t *n,
                    struct gb_sweep *out);

/* ---- measurement layers (config_measure.c) --------------------------------------------- */

/* `measure:` (a mapping) into layer m. */
int gb__parse_measure(struct gb__ld *l, yaml_node_t *n, struct gb__mlayer *m);
/* The index of measure key `name` in *k, or an error at the source's start naming the keys. */
int gb__find_mkey(struct gb__ld *l, const char *name, int *k);
/* One measure key (an index from gb__find_mkey) from node n into layer m. */
int gb__parse_mkey(struct gb__ld *l, int k, yaml_node_t *n, struct gb__mlayer *m);
/* Sets in *cfg the keys that layer m sets. */
void gb__mlayer_apply(struct gb_measure_cfg *cfg, const struct gb__mlayer *m);
/* run->measure = the defaults, then the profile's layer, then the entry's (m); checks that
 * min_samples <= max_samples. */
int gb__resolve_measure(struct gb__ld *l, struct gb_suite_run *run, const struct gb__mlayer *m);

/* ---- the profile's keys and suite entries (config.c) ----------------------------------- */

int gb__parse_name(struct gb__ld *l, yaml_node_t *n);
int gb__parse_backends(struct gb__ld *l, yaml_node_t *n);
int gb__parse_devices(struct gb__ld *l, yaml_node_t *n);
int gb__parse_tuning_cache(struct gb__ld *l, yaml_node_t *n);
/* `params:` of a suite entry: replaces the sweeps it names. */
int gb__parse_params(struct gb__ld *l, yaml_node_t *n, struct gb_suite_run *run);
/* "a, b or c" of a suite's axes, and of every suite, for messages. */
const char *gb__axis_list(const struct gb_suite *s, char *buf, size_t len);
/* The whole document: the profile's keys in any order, checked (config.c). */
int gb__parse_root(struct gb__ld *l, yaml_node_t *root);
const char *gb__suite_list(const struct gb_suite_table *t, char *buf, size_t len);

/* ---- the tuning keys of a suite entry (config_tuning.c) -------------------------------- */

int gb__parse_tuned(struct gb__ld *l, yaml_node_t *n, struct gb_suite_run *run);
int gb__parse_tunables(struct gb__ld *l, yaml_node_t *n, struct gb_suite_run *run);
int gb__parse_constraints(struct gb__ld *l, yaml_node_t *n, struct gb_suite_run *run);
/* Frees run's tunables and constraints. */
void gb__free_tuning(struct gb_suite_run *run);

/* ---- `telemetry:` (config_telemetry.c) -------------------------------------------------- */

/* The mapping (or a boolean: enabled) into l->p->telemetry, and one of its keys. */
int gb__parse_telemetry(struct gb__ld *l, yaml_node_t *n);
int gb__parse_telemetry_key(struct gb__ld *l, const char *key, yaml_node_t *v);

/* ---- --set (config_set.c) -------------------------------------------------------------- */

/* Applies one --set override to the profile read so far; messages are located in "--set KEY". */
int gb__apply_override(struct gb__ld *l, const struct gb_override *o);

#endif
