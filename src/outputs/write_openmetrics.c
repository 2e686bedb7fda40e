/* gpubench — the OpenMetrics writer: a document as the Prometheus text exposition format, for
 * node_exporter's textfile collector (https://prometheus.io/docs/instrumenting/exposition_formats/,
 * and the OpenMetrics 1.0 specification's text format: "# EOF" last), named as the Prometheus
 * naming guide asks (https://prometheus.io/docs/practices/naming/).
 *
 * Each numeric column of each table is a gauge family
 *     gpubench_<doc>_<table>_<column>_<unit>{<text column>="<cell>", ...} <number>
 * (<doc> the document's kind without "gpubench-", its "-doc" and its version: "check"; <table>
 * left out where it repeats <doc>, so no gpubench_check_check_...), one sample per row with a
 * number there (an empty or non-finite cell gives none). The unit is the column's
 * (gb_doc_column_unit) in base units, the number scaled to it: "%" a _ratio, "us" _seconds, "MHz"
 * _hertz, "GB/s" _bytes_per_second, "GFLOP/s" _flops_per_second (the units gpubench writes); any
 * other unit gives no suffix, its text in the HELP line, and a name that would end in a suffix
 * OpenMetrics keeps for other types (_total, _count, _info, ...) ends in _value after it;
 * a column whose unit is each row's gives a family per unit. The column's name loses a last word
 * that is its unit ("op us" is op_seconds). The row's text columns are its labels, but for prose
 * (a note: it would start a new series whenever its words change), data, the columns that hold
 * units (they are in the name) and states. A state column (a verdict, a status:
 * gb_doc_column_state) is a state set of its own,
 *     gpubench_<doc>_<table>_<column>{<labels>, <column>="<state>"} 1
 * with 0 for every other state the column holds (every state it can hold, spelt as said, where
 * the document says them: gb_doc_column_states), so that each series keeps one meaning. Where two
 * rows of a table have the same labels, every sample of that table also gets row="<index>", so
 * that no two samples of a family are one series. Each check is a state set
 * gpubench_<doc>_item_status{group, name, status="pass|fail|skip|error"}, and
 * gpubench_<doc>_items{status} counts them, but where the checks repeat a table's state set
 * (gb_doc.checks_in_table: diag's tests), which is then their one family. The document's time (the run's start) is
 * gpubench_<doc>_timestamp_seconds. A table of names alone (no number, no state: a listing) is an
 * info metric gpubench_<doc>_<table>_info{<labels>} 1, a sample per row. Names are [a-z0-9_] ('%' as "pct", "/" as "per", any other
 * run of characters as one '_'); label values escape backslash, quote and line break as the
 * format says, after the bytes a terminal acts on and invalid UTF-8 became '?'. Data tables and
 * columns (for files: gb_doc_column.data) are left out. */
#include "outputs/writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyses/merge.h"
#include "base/error.h"
#include "base/util.h"
#include "outputs/writer_private.h"

/* s as a metric-name part: lower case letters, digits and single '_' between words. */
static void name_part(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    bool sep = false;
    for (const unsigned char *u = (const unsigned char *)s; *u && o + 5 < len; u++) {
        const char *word = *u == '%' ? "pct" : *u == '/' ? "per" : NULL;
        if (word ||
            !((*u >= 'a' && *u <= 'z') || (*u >= 'A' && *u <= 'Z') || (*u >= '0' && *u <= '9'))) {
            sep = o > 0;
            if (!word)
                continue;
        }
        if (sep) {
            buf[o++] = '_';
            sep = false;
        }
        if (word) {
            for (const char *w = word; *w; w++)
                buf[o++] = *w;
            sep = true;
            continue;
        }
        buf[o++] = (char)(*u >= 'A' && *u <= 'Z' ? *u - 'A' + 'a' : *u);
    }
    buf[o] = '\0';
    if (!o)
        snprintf(buf, len, "x");
}

/* A label value: cleaned, then \\, \" and \n escaped. */
static void label_value(FILE *f, const char *s)
{
    char *c = gb__clean_dup(s);
    for (const char *p = c ? c : "?"; *p; p++) {
        if (*p == '\\' || *p == '"')
            fputc('\\', f);
        if (*p == '\n')
            fputs("\\n", f);
        else
            fputc(*p, f);
    }
    free(c);
}

/* The document's name in metric names: its kind without "gpubench-", "-doc" and "/N". */
static void doc_part(const struct gb_doc *d, char *buf, size_t len)
{
    char k[64];
    const char *kind = d->kind ? d->kind : "doc";
    if (strncmp(kind, "gpubench-", 9) == 0)
        kind += 9;
    snprintf(k, sizeof k, "%s", kind);
    char *cut = strchr(k, '/');
    if (cut)
        *cut = '\0';
    size_t n = strlen(k);
    if (n > 4 && strcmp(k + n - 4, "-doc") == 0)
        k[n - 4] = '\0';
    name_part(k, buf, len);
}

/* A unit in base units: the name's suffix and the factor to it (suffix NULL: the unit spelled
 * in words, factor 1). */
struct unit {
    const char *raw, *suffix;
    double scale;
};

static const struct unit units[] = {
    {"%", "ratio", 0.01},
    {"x", "ratio", 1},
    {"s", "seconds", 1},
    {"ms", "seconds", 1e-3},
    {"us", "seconds", 1e-6},
    {"ns", "seconds", 1e-9},
    {"B", "bytes", 1},
    {"bytes", "bytes", 1},
    {"KiB", "bytes", 1024.0},
    {"MiB", "bytes", 1048576.0},
    {"GiB", "bytes", 1073741824.0},
    {"kB", "bytes", 1e3},
    {"MB", "bytes", 1e6},
    {"GB", "bytes", 1e9},
    {"B/s", "bytes_per_second", 1},
    {"MB/s", "bytes_per_second", 1e6},
    {"GB/s", "bytes_per_second", 1e9},
    {"TB/s", "bytes_per_second", 1e12},
    {"MiB/s", "bytes_per_second", 1048576.0},
    {"GiB/s", "bytes_per_second", 1073741824.0},
    {"Hz", "hertz", 1},
    {"MHz", "hertz", 1e6},
    {"GHz", "hertz", 1e9},
    {"W", "watts", 1},
    {"J", "joules", 1},
    {"C", "celsius", 1},
    {"FLOP/s", "flops_per_second", 1},
    {"GFLOP/s", "flops_per_second", 1e9},
    {"TFLOP/s", "flops_per_second", 1e12},
    {"GOP/s", "ops_per_second", 1e9},
    {"TOP/s", "ops_per_second", 1e12},
    {"Gelem/s", "elements_per_second", 1e9},
    {"Melem/s", "elements_per_second", 1e6},
    {"Gatomic/s", "atomics_per_second", 1e9},
    {"Mlaunch/s", "launches_per_second", 1e6},
    {"G/s", "per_second", 1e9},
    {"FLOP", "flops", 1},
    /* Units gpubench writes that have always been spelled in words, scale 1 ("1/s":
     * 1_per_second, "GB/s/W": gb_per_s_per_w), kept as they were. */
    {"1/s", NULL, 1},
    {"OP/s", NULL, 1},
    {"op/s", NULL, 1},
    {"IOP/s", NULL, 1},
    {"requests/s", NULL, 1},
    {"items/s", NULL, 1},
    {"tok/s", "tokens_per_second", 1},
    {"Gadds/s", NULL, 1},
    {"FLOP/B", NULL, 1},
    {"GFLOP", NULL, 1},
    {"GB/s/W", NULL, 1},
    {"GFLOP/s/W", NULL, 1},
    {"GOP/s/W", NULL, 1},
    {"Gelem/s/W", NULL, 1},
    {"Gatomic/s/W", NULL, 1},
    {"Mlaunch/s/W", NULL, 1},
    {"1/s/W", NULL, 1},
};

/* The unit u (NULL or "": none) as a name suffix into buf ("" for none) and its factor: one of
 * the units gpubench writes (the list above) in base units. Any other unit gives no suffix (its
 * text goes to the HELP line), so that a unit as written in a results file can neither put its
 * bytes into a name nor end it in a suffix OpenMetrics keeps for other types ("total"). */
static double unit_suffix(const char *u, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!u || !*u)
        return 1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(u, units[i].raw) == 0) {
            if (units[i].suffix) {
                snprintf(buf, len, "%s", units[i].suffix);
                return units[i].scale;
            }
            char tmp[128];
            name_part(u, tmp, sizeof tmp);
            size_t n = strlen(tmp);
            if (n >= 6 && strcmp(tmp + n - 6, "_per_s") == 0) { /* "/s" is per second */
                tmp[n - 6] = '\0';
                snprintf(buf, len, "%s_per_second", tmp);
            } else {
                snprintf(buf, len, "%s", tmp);
            }
            return 1;
        }
    return 1;
}

/* Name endings OpenMetrics keeps for counters, histograms, summaries and info metrics. */
static const char *const reserved[] = {"_total",  "_created", "_count",  "_sum",
                                       "_bucket", "_info",    "_gcount", "_gsum"};

/* Appends "_value" to the metric name in buf where it ends in a reserved suffix. */
static void unreserve(char *buf, size_t len)
{
    const size_t n = strlen(buf);
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
        const size_t k = strlen(reserved[i]);
        if (n >= k && strcmp(buf + n - k, reserved[i]) == 0) {
            snprintf(buf + n, len - n, "_value");
            return;
        }
    }
}

/* The metric-name part of column c: its name without a last word that is its unit. */
static void column_part(const struct gb_doc_column *col, char *buf, size_t len)
{
    char name[256];
    snprintf(name, sizeof name, "%s", col->name);
    const char *u = col->unit;
    size_t n = strlen(name), un = u ? strlen(u) : 0;
    if (un && n > un + 1 && name[n - un - 1] == ' ' && strcmp(name + n - un, u) == 0)
        name[n - un - 1] = '\0';
    name_part(name, buf, len);
}

/* Whether column c of t is a label of its rows: a text column that is not prose, data, a state
 * or some numeric column's unit. */
static bool is_label(const struct gb_doc_table *t, size_t c)
{
    const struct gb_doc_column *k = &t->cols[c];
    if (k->numeric || k->prose || k->data || k->state)
        return false;
    for (size_t o = 0; o < t->ncols; o++)
        if (t->cols[o].numeric && t->cols[o].unit_from == c + 1)
            return false;
    return true;
}

/* A cell's value as text (not what people are shown), into buf. */
static const char *value_text(const struct gb_doc_cell *cl, char *buf, size_t len)
{
    if (cl && cl->kind == GB_CELL_TEXT)
        return cl->text ? cl->text : "";
    struct gb_doc_cell v = cl ? *cl : (struct gb_doc_cell){.kind = GB_CELL_EMPTY};
    v.shown = NULL;
    return gb_doc_cell_text(&v, buf, len);
}

/* Writes the labels of row r (its label columns' cells, empty ones left out) and, with_row, its
 * index, without the braces; returns whether any was written. */
static bool labels(FILE *f, const struct gb_doc_table *t, size_t r, bool with_row,
                   char (*lname)[64])
{
    bool first = true;
    char buf[2048];
    for (size_t c = 0; c < t->ncols; c++) {
        const struct gb_doc_cell *cl = gb_doc_cell(t, r, c);
        if (!is_label(t, c) || !cl || cl->kind != GB_CELL_TEXT || !cl->text[0])
            continue;
        fprintf(f, "%s%s=\"", first ? "" : ",", lname[c]);
        label_value(f, value_text(cl, buf, sizeof buf));
        fputc('"', f);
        first = false;
    }
    if (with_row)
        fprintf(f, "%srow=\"%zu\"", first ? "" : ",", r);
    return !first || with_row;
}

/* Whether two rows of t have the same labels (the text cells): then each sample needs its row. */
static bool labels_repeat(const struct gb_doc_table *t)
{
    struct gb_strtab seen = {0};
    bool rep = false;
    char key[8192], buf[2048];
    for (size_t r = 0; r < t->nrows && !rep; r++) {
        key[0] = '\0';
        for (size_t c = 0; c < t->ncols; c++) {
            const struct gb_doc_cell *cl = gb_doc_cell(t, r, c);
            if (is_label(t, c) && cl && cl->kind == GB_CELL_TEXT) {
                /* As written: cleaned, so that texts that differ only in bytes the cleaning
                 * replaces are seen as the one series they become. */
                char *clean = gb__clean_dup(value_text(cl, buf, sizeof buf));
                gb_appendf(key, sizeof key, "%s\x1f", clean ? clean : "?");
                free(clean);
            }
        }
        bool added = true;
        if (gb_strtab_intern(&seen, key, &added) < 0 || !added)
            rep = true; /* out of memory: rows labelled, to be safe */
    }
    gb_strtab_free(&seen);
    return rep;
}

/* "# TYPE NAME gauge" and "# HELP NAME text" (cleaned, escaped). */
static void family(FILE *f, const char *name, const char *help)
{
    fprintf(f, "# TYPE %s gauge\n# HELP %s ", name, name);
    char *h = gb__clean_dup(help);
    for (const char *p = h ? h : ""; *p; p++)
        fputs(*p == '\\' ? "\\\\" : *p == '\n' ? "\\n" : (char[]){*p, 0}, f);
    free(h);
    fputc('\n', f);
}

/* The unit of cell (r, c) of t: the column's, or its row's. */
static const char *row_unit(const struct gb_doc_table *t, size_t r, size_t c, char *buf, size_t len)
{
    const struct gb_doc_column *k = &t->cols[c];
    if (!k->unit_from)
        return k->unit ? k->unit : "";
    return value_text(gb_doc_cell(t, r, k->unit_from - 1), buf, len);
}

/* Numeric column c of t: a family per unit its rows have. */
static void numeric_column(FILE *f, const char *prefix, const struct gb_doc_table *t, size_t c,
                           bool with_row, char (*lname)[64])
{
    char col[128], done[16][128];
    size_t ndone = 0;
    column_part(&t->cols[c], col, sizeof col);
    for (size_t from = 0; from < t->nrows; from++) {
        char ubuf[256], suffix[128];
        const struct gb_doc_cell *cl = gb_doc_cell(t, from, c);
        if (!cl || cl->kind != GB_CELL_NUM || !isfinite(cl->num))
            continue;
        const char *ru = row_unit(t, from, c, ubuf, sizeof ubuf);
        unit_suffix(ru, suffix, sizeof suffix);
        bool seen = false;
        for (size_t k = 0; k < ndone && !seen; k++)
            seen = strcmp(done[k], suffix) == 0;
        if (seen)
            continue;
        if (ndone == sizeof done / sizeof done[0])
            break; /* more units than any table has */
        snprintf(done[ndone++], sizeof done[0], "%s", suffix);
        char name[512], help[700];
        snprintf(name, sizeof name, "%s_%s%s%s", prefix, col, suffix[0] ? "_" : "", suffix);
        unreserve(name, sizeof name);
        snprintf(help, sizeof help, "column %s of %s%s%s", t->cols[c].name,
                 t->title && *t->title ? t->title : t->id, suffix[0] ? ", in " : "", suffix);
        for (char *h = help; *h; h++)
            if (*h == '_' && strstr(help, ", in ") < h)
                *h = ' ';
        if (!suffix[0] && *ru)
            gb_appendf(help, sizeof help, "%s%s",
                       t->cols[c].unit_from ? ", in each row's unit as written"
                                            : ", in the unit as written: ",
                       t->cols[c].unit_from ? "" : ru);
        family(f, name, help);
        for (size_t r = from; r < t->nrows; r++) {
            char rbuf[256], rs[128];
            const struct gb_doc_cell *x = gb_doc_cell(t, r, c);
            if (!x || x->kind != GB_CELL_NUM || !isfinite(x->num))
                continue;
            const double scale = unit_suffix(row_unit(t, r, c, rbuf, sizeof rbuf), rs, sizeof rs);
            if (strcmp(rs, suffix) != 0)
                continue;
            x = gb_doc_cell(t, r, c); /* a view's cells are made again by the unit's read */
            const double v = x && x->kind == GB_CELL_NUM ? x->num * scale : NAN;
            fputs(name, f);
            fputc('{', f);
            labels(f, t, r, with_row, lname);
            fprintf(f, "} %.17g\n", v);
        }
    }
}

/* State column c of t: a state set, 1 for each row's state and 0 for the others it holds. */
static void state_column(FILE *f, const char *prefix, const struct gb_doc_table *t, size_t c,
                         bool with_row, char (*lname)[64])
{
    struct gb_strtab states = {0};
    char buf[2048], name[256];
    snprintf(name, sizeof name, "%s_%s", prefix, lname[c]);
    unreserve(name, sizeof name);
    /* The column's every state where it says them (gb_doc_column_states), else those held. */
    const char *said = t->cols[c].states;
    for (const char *p = said; p && *p;) {
        const size_t n = strcspn(p, "|");
        char one[64];
        snprintf(one, sizeof one, "%.*s", (int)(n < 63 ? n : 63), p);
        bool added;
        if (one[0])
            gb_strtab_intern(&states, one, &added);
        p += n + (p[n] == '|');
    }
    for (size_t r = 0; r < t->nrows && !said; r++) {
        const struct gb_doc_cell *cl = gb_doc_cell(t, r, c);
        const char *v = cl && cl->kind != GB_CELL_EMPTY ? value_text(cl, buf, sizeof buf) : "";
        bool added;
        if (*v)
            gb_strtab_intern(&states, v, &added);
    }
    if (states.n) {
        char help[600];
        snprintf(help, sizeof help,
                 "state set of the %s of each row of the table %s: 1 for the row's, 0 for the "
                 "others",
                 t->cols[c].name, t->id);
        family(f, name, help);
    }
    for (size_t r = 0; r < t->nrows && states.n; r++) {
        const struct gb_doc_cell *cl = gb_doc_cell(t, r, c);
        if (!cl || cl->kind == GB_CELL_EMPTY || !*value_text(cl, buf, sizeof buf))
            continue; /* no state said */
        char *mine = strdup(value_text(cl, buf, sizeof buf));
        for (size_t s = 0; mine && s < states.n; s++) {
            fprintf(f, "%s{", name);
            if (labels(f, t, r, with_row, lname))
                fputc(',', f);
            fprintf(f, "%s=\"", lname[c]);
            label_value(f, gb_strtab_get(&states, s));
            const char *st = gb_strtab_get(&states, s);
            fprintf(f, "\"} %d\n", said ? strcasecmp(st, mine) == 0 : strcmp(st, mine) == 0);
        }
        free(mine);
    }
    gb_strtab_free(&states);
}

static void table(FILE *f, const char *doc, const struct gb_doc_table *t)
{
    char tid[64], (*lname)[64] = calloc(t->ncols ? t->ncols : 1, sizeof *lname);
    if (!lname)
        return;
    name_part(t->id, tid, sizeof tid);
    /* The table's name is left out where it repeats the document's ("check" in "check"). */
    char prefix[160];
    const size_t dn = strlen(doc), tn = strlen(tid);
    const bool stutter = strcmp(tid, doc) == 0 ||
                         (tn == dn + 1 && strncmp(tid, doc, dn) == 0 && tid[dn] == 's') ||
                         (dn == tn + 1 && strncmp(doc, tid, tn) == 0 && doc[tn] == 's');
    snprintf(prefix, sizeof prefix, "gpubench_%s%s%s", doc, stutter ? "" : "_", stutter ? "" : tid);
    /* Label names: the columns', made unique by a suffix; "row" is the writer's own. */
    for (size_t c = 0; c < t->ncols; c++) {
        name_part(t->cols[c].name, lname[c], sizeof lname[c]);
        if (lname[c][0] >= '0' && lname[c][0] <= '9') {
            char tmp[64];
            snprintf(tmp, sizeof tmp, "c_%.60s", lname[c]);
            snprintf(lname[c], sizeof lname[c], "%s", tmp);
        }
        for (size_t p = 0; p < c; p++)
            if (strcmp(lname[p], lname[c]) == 0 || strcmp(lname[c], "row") == 0) {
                size_t n = strlen(lname[c]);
                snprintf(lname[c] + (n < 56 ? n : 56), 8, "_%u", (unsigned)(c % 1000));
                break;
            }
    }
    const bool with_row = labels_repeat(t);
    bool figures = false;
    for (size_t c = 0; c < t->ncols; c++) {
        if (t->cols[c].data)
            continue;
        figures |= t->cols[c].numeric || t->cols[c].state;
        if (t->cols[c].numeric)
            numeric_column(f, prefix, t, c, with_row, lname);
        else if (t->cols[c].state)
            state_column(f, prefix, t, c, with_row, lname);
    }
    /* A table of names alone (a listing): an info metric, 1 per row, the row its labels. */
    if (!figures && t->nrows) {
        char name[200], help[600];
        snprintf(name, sizeof name, "%s_info", prefix);
        snprintf(help, sizeof help, "1 per row of %s, its columns as labels",
                 t->title && *t->title ? t->title : t->id);
        family(f, name, help);
        for (size_t r = 0; r < t->nrows; r++) {
            fprintf(f, "%s{", name);
            labels(f, t, r, with_row, lname);
            fputs("} 1\n", f);
        }
    }
    free(lname);
}

static int openmetrics_write(FILE *f, const struct gb_doc *d, const struct gb_write_opts *o)
{
    (void)o;
    char doc[48];
    doc_part(d, doc, sizeof doc);
    if (d->time > 0) {
        char name[96];
        snprintf(name, sizeof name, "gpubench_%s_timestamp_seconds", doc);
        family(f, name,
               "when what this describes ran (a run's start), seconds since the Unix epoch");
        fprintf(f, "%s %.17g\n", name, d->time);
    }
    for (size_t i = 0; i < d->ntables; i++)
        if (!d->tables[i]->data)
            table(f, doc, d->tables[i]);
    if (d->nchecks && !d->checks_in_table) {
        static const char *const st[] = {"pass", "fail", "skip", "error"};
        size_t count[4] = {0};
        /* Two checks of the same group and name would be one series: then each gets its index
         * as item="<i>". */
        struct gb_strtab seen = {0};
        bool with_item = false;
        for (size_t i = 0; i < d->nchecks && !with_item; i++) {
            char key[4096];
            char *g = gb__clean_dup(d->checks[i].group ? d->checks[i].group : ""),
                 *nm = gb__clean_dup(d->checks[i].name ? d->checks[i].name : "");
            snprintf(key, sizeof key, "%s\x1f%s", g ? g : "?", nm ? nm : "?");
            free(g);
            free(nm);
            bool added = true;
            with_item = gb_strtab_intern(&seen, key, &added) < 0 || !added;
        }
        gb_strtab_free(&seen);
        char name[96];
        snprintf(name, sizeof name, "gpubench_%s_item_status", doc);
        family(f, name, "state set: 1 for each judged item's status, 0 for the others");
        for (size_t i = 0; i < d->nchecks; i++) {
            const struct gb_doc_check *k = &d->checks[i];
            const unsigned s = (unsigned)k->status < 4 ? (unsigned)k->status : 2;
            count[s]++;
            for (unsigned x = 0; x < 4; x++) {
                fprintf(f, "%s{group=\"", name);
                label_value(f, k->group ? k->group : "");
                fputs("\",name=\"", f);
                label_value(f, k->name ? k->name : "");
                fputc('"', f);
                if (with_item)
                    fprintf(f, ",item=\"%zu\"", i);
                fprintf(f, ",status=\"%s\"} %d\n", st[x], x == s);
            }
        }
        snprintf(name, sizeof name, "gpubench_%s_items", doc);
        family(f, name, "judged items per status");
        for (int s = 0; s < 4; s++)
            fprintf(f, "%s{status=\"%s\"} %zu\n", name, st[s], count[s]);
    }
    fputs("# EOF\n", f);
    return gb__write_end(f, "openmetrics");
}

GB_WRITER(openmetrics, "Prometheus text exposition / OpenMetrics: numeric columns as gauges", false,
          openmetrics_write);
