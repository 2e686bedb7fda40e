/* gpubench — the neutral document (contract in doc.h). */
#include "base/doc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/units.h"
#include "base/util.h"

/* A view's state: its fill, and the row its cells hold now. */
struct gb__doc_view {
    gb_doc_fill_fn fill;
    const void *ctx;
    struct gb_doc_table *self; /* the table, writable through a const pointer's reads */
    size_t row;                /* the row the cells hold; SIZE_MAX: none yet */
    size_t filling;            /* the row being made (the setters write there); SIZE_MAX: none */
};

static char *vdup(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        return NULL;
    return s;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Appends s (owned) to the string array *v of *n; frees s on failure. */
static int push_str(char ***v, size_t *n, char *s)
{
    if (!s)
        return GB_ENOMEM;
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv) {
        free(s);
        return GB_ENOMEM;
    }
    nv[(*n)++] = s;
    *v = nv;
    return 0;
}

/* Replaces *slot with s (owned, freed later with the document); GB_ENOMEM when s is NULL. */
static int replace(char **slot, char *s)
{
    if (!s)
        return GB_ENOMEM;
    free(*slot);
    *slot = s;
    return 0;
}

int gb_doc_init(struct gb_doc *d, const char *kind, const char *title)
{
    memset(d, 0, sizeof *d);
    d->kind = strdup(kind ? kind : "");
    d->title = strdup(title ? title : "");
    return d->kind && d->title ? 0 : GB_ENOMEM;
}

static void free_cell(struct gb_doc_cell *c)
{
    free(c->unit);
    free(c->text);
    free(c->notes);
    free(c->shown);
    *c = (struct gb_doc_cell){.kind = GB_CELL_EMPTY};
}

void gb_doc_free(struct gb_doc *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nnotes; i++)
        free(d->notes[i]);
    free(d->notes);
    for (size_t i = 0; i < d->ntables; i++) {
        struct gb_doc_table *t = d->tables[i];
        for (size_t c = 0; c < t->ncols; c++) {
            free(t->cols[c].name);
            free(t->cols[c].unit);
            free(t->cols[c].label);
            free(t->cols[c].states);
        }
        free(t->cols);
        for (size_t k = 0; t->cells && k < (t->view ? 1 : t->nrows) * t->ncols; k++)
            free_cell(&t->cells[k]);
        free(t->view);
        free(t->cells);
        for (size_t k = 0; k < t->nfootnotes; k++)
            free(t->footnotes[k]);
        free(t->footnotes);
        free(t->id);
        free(t->title);
        free(t);
    }
    free(d->tables);
    for (size_t i = 0; i < d->nchecks; i++) {
        free(d->checks[i].group);
        free(d->checks[i].name);
        free(d->checks[i].message);
    }
    free(d->checks);
    for (size_t i = 0; i < d->nowned; i++)
        free(d->owned[i]);
    free(d->owned);
    free(d->verdict);
    free(d->suite);
    free(d->kind);
    free(d->title);
    memset(d, 0, sizeof *d);
}

int gb_doc_own(struct gb_doc *d, void *p)
{
    void **no = realloc(d->owned, (d->nowned + 1) * sizeof *no);
    if (!no) {
        free(p);
        return GB_ENOMEM;
    }
    d->owned = no;
    d->owned[d->nowned++] = p;
    return 0;
}

int gb_doc_note(struct gb_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vdup(fmt, ap);
    va_end(ap);
    return push_str(&d->notes, &d->nnotes, s);
}

int gb_doc_verdict(struct gb_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = replace(&d->verdict, vdup(fmt, ap));
    va_end(ap);
    d->judged = d->judged || rc == 0;
    return rc;
}

int gb_doc_suite(struct gb_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = replace(&d->suite, vdup(fmt, ap));
    va_end(ap);
    return rc;
}

char *gb_doc_case_name(const char *suite, const char *case_name, const char *params,
                       const char *device, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    gb_appendf(buf, len, "%s/%s", suite ? suite : "", case_name ? case_name : "");
    if (params && *params)
        gb_appendf(buf, len, "/%s", params);
    if (device)
        gb_appendf(buf, len, "@%s", device);
    return buf;
}

int gb_doc_check(struct gb_doc *d, const char *group, const char *name, enum gb_check_status st,
                 const char *message)
{
    struct gb_doc_check *nc = realloc(d->checks, (d->nchecks + 1) * sizeof *nc);
    if (!nc)
        return GB_ENOMEM;
    d->checks = nc;
    struct gb_doc_check *c = &nc[d->nchecks];
    *c = (struct gb_doc_check){.group = strdup(group ? group : ""),
                               .name = strdup(name ? name : ""),
                               .status = st,
                               .message = dup_or_null(message)};
    d->judged = true;
    if (!c->group || !c->name || (message && !c->message)) {
        free(c->group);
        free(c->name);
        free(c->message);
        return GB_ENOMEM;
    }
    d->nchecks++;
    return 0;
}

int gb_doc_table(struct gb_doc *d, const char *id, const char *title, const char *const *names,
                 size_t ncols, struct gb_doc_table **out)
{
    *out = NULL;
    struct gb_doc_table **nt = realloc(d->tables, (d->ntables + 1) * sizeof *nt);
    if (!nt)
        return GB_ENOMEM;
    d->tables = nt;
    struct gb_doc_table *t = calloc(1, sizeof *t);
    if (!t)
        return GB_ENOMEM;
    nt[d->ntables] = t;
    t->id = strdup(id ? id : "");
    t->title = strdup(title ? title : "");
    t->cols = calloc(ncols ? ncols : 1, sizeof *t->cols);
    bool ok = t->id && t->title && t->cols;
    for (size_t c = 0; ok && c < ncols; c++) {
        t->cols[c].name = strdup(names[c] ? names[c] : "");
        ok = t->cols[c].name != NULL;
        t->ncols = c + 1;
    }
    d->ntables++; /* freed whole by gb_doc_free even when half made */
    if (!ok)
        return GB_ENOMEM;
    *out = t;
    return 0;
}

void gb_doc_column_set(struct gb_doc_table *t, size_t col, bool numeric, bool shrink)
{
    if (col < t->ncols) {
        t->cols[col].numeric = numeric;
        t->cols[col].shrink = shrink;
    }
}

void gb_doc_column_prose(struct gb_doc_table *t, size_t col)
{
    if (col < t->ncols)
        t->cols[col].prose = true;
}

void gb_doc_column_wrap(struct gb_doc_table *t, size_t col)
{
    if (col < t->ncols)
        t->cols[col].wrap = true;
}

void gb_doc_column_data(struct gb_doc_table *t, size_t col)
{
    if (col < t->ncols)
        t->cols[col].data = true;
}

void gb_doc_column_state(struct gb_doc_table *t, size_t col)
{
    if (col < t->ncols)
        t->cols[col].state = true;
}

int gb_doc_column_states(struct gb_doc_table *t, size_t col, const char *states)
{
    if (col >= t->ncols)
        return GB_EINVAL;
    char *s = strdup(states);
    if (!s)
        return GB_ENOMEM;
    free(t->cols[col].states);
    t->cols[col].states = s;
    return 0;
}

void gb_doc_table_machine(struct gb_doc_table *t)
{
    t->machine = true;
}

void gb_doc_checks_in_table(struct gb_doc *d)
{
    d->checks_in_table = true;
}

int gb_doc_column_unit(struct gb_doc_table *t, size_t col, const char *unit, size_t from)
{
    if (col >= t->ncols)
        return 0;
    t->cols[col].unit_from = unit ? 0 : from + 1;
    if (unit)
        return replace(&t->cols[col].unit, strdup(unit));
    free(t->cols[col].unit);
    t->cols[col].unit = NULL;
    return 0;
}

void gb_doc_time(struct gb_doc *d, const char *iso_utc)
{
    struct tm tm = {0};
    const char *end = iso_utc ? strptime(iso_utc, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
    if (!end)
        return;
    const time_t t = timegm(&tm);
    if (t != (time_t)-1 && (double)t > d->time)
        d->time = (double)t;
}

int gb_doc_column_label(struct gb_doc_table *t, size_t col, const char *label)
{
    if (col >= t->ncols || !label)
        return 0;
    char *l = strdup(label);
    if (!l)
        return GB_ENOMEM;
    free(t->cols[col].label);
    t->cols[col].label = l;
    return 0;
}

int gb_doc_view(struct gb_doc *d, const char *id, const char *title, const char *const *names,
                size_t ncols, size_t nrows, gb_doc_fill_fn fill, const void *ctx,
                struct gb_doc_table **out)
{
    struct gb_doc_table *t;
    int rc = gb_doc_table(d, id, title, names, ncols, &t);
    *out = NULL;
    if (rc)
        return rc;
    t->view = calloc(1, sizeof *t->view);
    t->cells = calloc(ncols ? ncols : 1, sizeof *t->cells);
    if (!t->view || !t->cells)
        return GB_ENOMEM; /* freed with the document */
    *t->view = (struct gb__doc_view){fill, ctx, t, SIZE_MAX, SIZE_MAX};
    t->nrows = t->caprows = nrows;
    *out = t;
    return 0;
}

void gb_doc_table_data(struct gb_doc_table *t)
{
    t->data = true;
}

int gb_doc_row(struct gb_doc_table *t, size_t *row)
{
    if (t->view)
        return GB_EINVAL;
    struct gb_doc_cell *nc =
        gb_grow(t->cells, &t->caprows, t->nrows + 1, (t->ncols ? t->ncols : 1) * sizeof *nc);
    if (!nc)
        return GB_ENOMEM;
    t->cells = nc;
    memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof *t->cells);
    *row = t->nrows++;
    return 0;
}

/* The cell to set: a view's only while its row is being made. */
static struct gb_doc_cell *cell_at(struct gb_doc_table *t, size_t row, size_t col)
{
    if (t->view)
        return row == t->view->filling && col < t->ncols ? &t->cells[col] : NULL;
    return row < t->nrows && col < t->ncols ? &t->cells[row * t->ncols + col] : NULL;
}

const struct gb_doc_cell *gb_doc_cell(const struct gb_doc_table *t, size_t row, size_t col)
{
    if (row >= t->nrows || col >= t->ncols)
        return NULL;
    struct gb__doc_view *v = t->view;
    if (!v)
        return &t->cells[row * t->ncols + col];
    if (v->row != row) {
        struct gb_doc_table *w = v->self;
        for (size_t c = 0; c < w->ncols; c++)
            free_cell(&w->cells[c]);
        v->filling = row;
        if (v->fill(v->ctx, w, row) != 0)
            for (size_t c = 0; c < w->ncols; c++)
                free_cell(&w->cells[c]);
        v->filling = SIZE_MAX;
        v->row = row;
    }
    return &t->cells[col];
}

int gb_doc_text(struct gb_doc_table *t, size_t row, size_t col, const char *fmt, ...)
{
    struct gb_doc_cell *c = cell_at(t, row, col);
    if (!c)
        return 0;
    va_list ap;
    va_start(ap, fmt);
    int rc = replace(&c->text, vdup(fmt, ap));
    va_end(ap);
    if (!rc) {
        c->kind = GB_CELL_TEXT;
        free(c->unit);
        c->unit = NULL;
    }
    return rc;
}

void gb_doc_num(struct gb_doc_table *t, size_t row, size_t col, double v, int digits)
{
    struct gb_doc_cell *c = cell_at(t, row, col);
    if (!c)
        return;
    free(c->text);
    free(c->shown);
    free(c->unit);
    c->text = c->shown = NULL;
    c->unit = NULL;
    c->kind = isfinite(v) ? GB_CELL_NUM : GB_CELL_EMPTY;
    c->num = v;
    c->digits = digits;
}

int gb_doc_shown(struct gb_doc_table *t, size_t row, size_t col, const char *fmt, ...)
{
    struct gb_doc_cell *c = cell_at(t, row, col);
    if (!c)
        return 0;
    va_list ap;
    va_start(ap, fmt);
    int rc = replace(&c->shown, vdup(fmt, ap));
    va_end(ap);
    return rc;
}

int gb_doc_num_unit(struct gb_doc_table *t, size_t row, size_t col, double v, int sig,
                    const char *unit)
{
    gb_doc_num(t, row, col, v, 2 - sig);
    struct gb_doc_cell *c = cell_at(t, row, col);
    if (!c || !unit || !*unit || c->kind != GB_CELL_NUM)
        return 0;
    c->unit = strdup(unit);
    return c->unit ? 0 : GB_ENOMEM;
}

int gb_doc_footnote(struct gb_doc_table *t, size_t row, size_t col, const char *text)
{
    if (t->view)
        return GB_EINVAL;
    struct gb_doc_cell *c = cell_at(t, row, col);
    if (!c || !text || !*text)
        return 0;
    size_t k = 0;
    while (k < t->nfootnotes && strcmp(t->footnotes[k], text) != 0)
        k++;
    if (k == t->nfootnotes) {
        int rc = push_str(&t->footnotes, &t->nfootnotes, strdup(text));
        if (rc)
            return rc;
    }
    size_t *n = realloc(c->notes, (c->nnotes + 1) * sizeof *n);
    if (!n)
        return GB_ENOMEM;
    n[c->nnotes++] = k;
    c->notes = n;
    return 0;
}

char *gb_doc_cell_marks(const struct gb_doc_cell *c, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; c && i < c->nnotes; i++)
        gb_appendf(buf, len, "%s%zu", i ? "," : "", c->notes[i] + 1);
    return buf;
}

char *gb_doc_cell_people(const struct gb_doc_cell *c, char *buf, size_t len)
{
    if (!c || c->kind != GB_CELL_NUM || c->shown) /* a shown text is read as it is */
        return gb_doc_cell_text(c, buf, len);
    int sig = c->digits < 0 ? 2 - c->digits : 3;
    if (c->unit)
        return gb_format_eng(c->num, c->unit, sig, buf, len);
    gb_doc_cell_text(c, buf, len);
    if (c->digits < 0 && strchr(buf, 'e') && fabs(c->num) >= 1)
        gb_format_eng(c->num, NULL, sig, buf, len);
    return buf;
}

char *gb_doc_cell_text(const struct gb_doc_cell *c, char *buf, size_t len)
{
    if (!len)
        return buf;
    buf[0] = '\0';
    if (!c)
        return buf;
    if (c->shown)
        snprintf(buf, len, "%s", c->shown);
    else if (c->kind == GB_CELL_TEXT)
        snprintf(buf, len, "%s", c->text ? c->text : "");
    else if (c->kind == GB_CELL_NUM && c->digits < 0)
        snprintf(buf, len, "%.*g", 2 - c->digits, c->num);
    else if (c->kind == GB_CELL_NUM)
        snprintf(buf, len, "%.*f", c->digits, c->num);
    return buf;
}
