/* gpubench — the report's model (contract in model.h): results grouped into series and points,
 * selections by suite, case and unit, the params that vary, and the categories and lines the
 * charts are drawn from. */
#include "analyses/report_model.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "base/units.h"

/* ---- small helpers ------------------------------------------------------------------------- */

double gb__num(const struct gb_value *v)
{
    switch (v->type) {
    case GB_V_SIZE:
        return (double)v->u.size;
    case GB_V_INT:
        return (double)v->u.i;
    case GB_V_FLOAT:
        return v->u.f;
    case GB_V_BOOL:
        return v->u.b;
    default:
        return NAN;
    }
}

void gb__clean_text(const char *s, char *buf, size_t len, bool csv)
{
    size_t l = 0;
    for (; *s && l + 1 < len; s++) {
        char c = *s;
        if (c == '"')
            c = '\'';
        else if (c == '\\')
            c = '/';
        else if (c == ',' && csv)
            c = ';';
        else if ((unsigned char)c < 0x20 || (unsigned char)c == 0x7F)
            c = ' ';
        else if (c == '>' && l >= 2 && buf[l - 1] == ']' && buf[l - 2] == ']')
            c = ')'; /* "]]>" ends a CDATA section: gnuplot's SVG would not be XML */
        else if (gb_is_c1((const unsigned char *)s)) {
            c = ' ';
            s++;
        }
        buf[l++] = c;
    }
    buf[l] = '\0';
}

void gb__scopy(char *dst, size_t len, const char *src)
{
    if (!len)
        return;
    size_t l = strnlen(src, len - 1);
    memmove(dst, src, l);
    dst[l] = '\0';
}

void gb__fmt_val(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (fabs(v) >= 100)
        snprintf(buf, len, "%.0f", v);
    else if (fabs(v) >= 10)
        snprintf(buf, len, "%.1f", v);
    else
        snprintf(buf, len, "%.3g", v);
}

void gb__fmt_x(double x, bool size_axis, char *buf, size_t len)
{
    /* 2^63: a size below it fits uint64_t (a larger double would be undefined to cast). */
    if (size_axis && x >= 1 && x < 0x1p63 && x == floor(x))
        gb_format_size((uint64_t)x, buf, len);
    else
        snprintf(buf, len, "%g", x);
}

const char *gb__base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void gb__param_values(const struct gb_result *r, const char *skip, size_t stop_at, char *buf,
                      size_t len)
{
    buf[0] = '\0';
    const size_t kase = gb_result_case_param(r);
    for (size_t k = 0; k < r->params.n && strlen(buf) < stop_at; k++) {
        if (k == kase || (skip && strcmp(r->params.name[k], skip) == 0))
            continue;
        char t[GB_STR_MAX];
        gb_value_format(&r->params.v[k], t, sizeof t);
        gb_appendf(buf, len, "%s%s", buf[0] ? " " : "", t);
    }
}

void gb__param_named(const struct gb_result *r, bool with_case, size_t stop_at, char *buf,
                     size_t len)
{
    buf[0] = '\0';
    const size_t kase = gb_result_case_param(r);
    for (size_t k = 0; k < r->params.n && strlen(buf) < stop_at; k++) {
        if (k == kase && !with_case)
            continue;
        char t[GB_STR_MAX];
        gb_value_format(&r->params.v[k], t, sizeof t);
        gb_appendf(buf, len, "%s%s=%s", buf[0] ? " " : "", r->params.name[k], t);
    }
}

/* ---- series and points --------------------------------------------------------------------- */

static size_t series_of(struct rep *R, size_t file, int dev)
{
    for (size_t s = 0; s < R->nser; s++)
        if (R->ser[s].file == file && R->ser[s].dev == dev)
            return s;
    if (R->nser == MAXSER)
        return SIZE_MAX; /* counted once per device by gb__build_points */
    struct series *x = &R->ser[R->nser];
    x->file = file;
    x->dev = dev;
    return R->nser++;
}

/* Legend labels: the device name (shortened) and backend; then, where two series would read
 * the same, the host; then the run's file; then the device's stable identity
 * (gb_device_identity: "opencl:1", "uuid 1b2c3d4e", "pci:0000:65:00.0"), which tells two
 * devices of one name in one file apart; then a number. */
static void label_series(struct rep *R)
{
    for (size_t s = 0; s < R->nser; s++) {
        const struct gb_result_device *d = &R->files[R->ser[s].file].devices[R->ser[s].dev];
        char name[64];
        gb__clean(d->info.name, name, sizeof name);
        if (strlen(d->info.name) > 40)
            snprintf(name + 37, sizeof name - 37, "...");
        snprintf(R->ser[s].label, sizeof R->ser[s].label, "%s (%s)", name, d->backend);
        R->ser[s].price = gb_prices_find(R->prices, d->info.name);
    }
    for (int pass = 0; pass < 4; pass++) {
        /* Mark every member of a duplicate group first, then extend all of their labels. */
        bool dup[MAXSER] = {false};
        for (size_t s = 0; s < R->nser; s++)
            for (size_t t = 0; t < R->nser && !dup[s]; t++)
                dup[s] = t != s && strcmp(R->ser[s].label, R->ser[t].label) == 0;
        char extra[MAXSER][200];
        for (size_t s = 0; s < R->nser; s++) {
            const struct gb_results *f = &R->files[R->ser[s].file];
            if (pass == 0) {
                gb__clean(f->run.host, extra[s], sizeof extra[s]);
            } else if (pass == 1) {
                gb__clean(gb__base_name(R->paths[R->ser[s].file]), extra[s], sizeof extra[s]);
            } else if (pass == 2) {
                char id[64];
                enum gb_id_kind k = gb_device_identity(&f->devices[R->ser[s].dev], id, sizeof id);
                if (k == GB_ID_UUID)
                    snprintf(extra[s], sizeof extra[s], "uuid %.8s", id);
                else
                    gb__clean(id, extra[s], sizeof extra[s]);
            } else
                snprintf(extra[s], sizeof extra[s], "#%zu", s + 1);
        }
        /* Only what tells a series from its look-alikes is added: the host when they ran on
         * other hosts, the file when they came from other files. Decided before any label
         * changes, so that every member of a group is treated alike. */
        bool tells[MAXSER] = {false};
        for (size_t s = 0; s < R->nser; s++)
            for (size_t t = 0; t < R->nser && !tells[s]; t++)
                tells[s] = t != s && dup[s] && strcmp(R->ser[s].label, R->ser[t].label) == 0 &&
                           strcmp(extra[s], extra[t]) != 0;
        for (size_t s = 0; s < R->nser; s++)
            if (tells[s])
                gb_appendf(R->ser[s].label, sizeof R->ser[s].label, " %s%s", pass == 0 ? "@" : "",
                           extra[s]);
    }
}

int gb__build_points(struct rep *R)
{
    size_t total = 0;
    for (size_t f = 0; f < R->nfiles; f++)
        total += R->files[f].nresults;
    R->pts = calloc(total ? total : 1, sizeof *R->pts);
    if (!R->pts)
        return GB_FAIL(GB_ENOMEM, "report points");
    for (size_t f = 0; f < R->nfiles; f++) {
        /* The devices of this file left out (no series left): each counted once. */
        bool *dropped = calloc(R->files[f].ndevices ? R->files[f].ndevices : 1, sizeof *dropped);
        if (!dropped)
            return GB_FAIL(GB_ENOMEM, "report points");
        for (size_t i = 0; i < R->files[f].nresults; i++) {
            const struct gb_result *r = &R->files[f].results[i];
            if (r->device_index < 0 || (size_t)r->device_index >= R->files[f].ndevices)
                continue;
            size_t s = series_of(R, f, r->device_index);
            if (s == SIZE_MAX && !dropped[r->device_index]) {
                dropped[r->device_index] = true;
                R->dropped_series++;
            }
            if (s == SIZE_MAX || r->status != GB_STATUS_OK || !isfinite(r->value))
                continue;
            R->pts[R->npts++] = (struct pt){s, r};
        }
        free(dropped);
    }
    label_series(R);
    return 0;
}

/* ---- selections ---------------------------------------------------------------------------- */

bool gb__in_list(const char *s, const char *const *list)
{
    for (; list && *list; list++)
        if (strcmp(s, *list) == 0)
            return true;
    return false;
}

static bool unit_is_flops(const char *u)
{
    return strstr(u, "FLOP/s") || strstr(u, "OP/s") || strstr(u, "flop/s");
}

bool gb__suite_filter_fn(const struct gb_result *r, const void *arg)
{
    const struct suite_filter *sf = arg;
    if (sf->suites && !gb__in_list(r->suite, sf->suites))
        return false;
    if (sf->case_name && strcmp(r->case_name, sf->case_name) != 0)
        return false;
    if (sf->unit) {
        if (strcmp(sf->unit, "FLOP") == 0 ? !unit_is_flops(r->unit)
                                          : strcmp(r->unit, sf->unit) != 0)
            return false;
    }
    if (sf->need_flops && !(r->flops_per_op > 0 && r->bytes_per_op > 0 && r->op_time_us.median > 0))
        return false;
    if (sf->no_cache && strcmp(r->regime, "cache") == 0)
        return false;
    if (sf->prec) {
        const struct gb_value *v = gb_params_get(&r->params, "prec");
        if (!v || v->type != GB_V_STR || strcmp(v->s, sf->prec) != 0)
            return false;
    }
    if (sf->mode) {
        const struct gb_value *v = gb_params_get(&r->params, "mode");
        if (v ? v->type != GB_V_STR || strcmp(v->s, sf->mode) != 0 : !sf->mode_or_none)
            return false;
    }
    if (sf->steady) {
        const struct gb_value *pulse = gb_params_get(&r->params, "pulse");
        if (pulse && is_num(pulse) && gb__num(pulse) != 0)
            return false;
    }
    /* A buffer moved off its alignment (axis offset, absent at 0) is the memory-management
     * chapter's question (gb__chart_offsets, its own filter), never a headline or a curve's
     * point: an offset of 4096 may outrun offset 0 by chance, or fall behind by design. */
    const struct gb_value *off = gb_params_get(&r->params, "offset");
    if (off && is_num(off) && gb__num(off) != 0)
        return false;
    return true;
}

bool gb__trusted(const struct gb_result *r)
{
    return r->status == GB_STATUS_OK && r->verified && !r->implausible && isfinite(r->value);
}

size_t gb__precisions(const struct rep *R, const struct suite_filter *sf, char (*out)[GB_STR_MAX],
                      size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < R->npts; i++) {
        const struct gb_result *r = R->pts[i].r;
        if (!gb__trusted(r) || !gb__suite_filter_fn(r, sf))
            continue;
        const struct gb_value *v = gb_params_get(&r->params, "prec");
        if (!v || v->type != GB_V_STR)
            continue;
        bool added;
        gb_find_or_add_str(out, &n, cap, GB_STR_MAX, 0, GB_STR_MAX, v->s, &added);
    }
    return n;
}

struct sel gb__select(const struct rep *R, gb__filter_fn f, const void *arg, size_t only_series)
{
    struct sel s = {calloc(R->npts ? R->npts : 1, sizeof *s.p), 0};
    if (!s.p)
        return s;
    for (size_t i = 0; i < R->npts; i++)
        if ((only_series == SIZE_MAX || R->pts[i].s == only_series) && f(R->pts[i].r, arg))
            s.p[s.n++] = &R->pts[i];
    return s;
}

bool gb__first_of_case(const struct sel *s, size_t i, bool by_unit)
{
    const struct gb_result *r = s->p[i]->r;
    for (size_t k = 0; k < i; k++)
        if (strcmp(s->p[k]->r->case_name, r->case_name) == 0 &&
            (!by_unit || strcmp(s->p[k]->r->unit, r->unit) == 0))
            return false;
    return true;
}

double gb__best_in(const struct rep *R, size_t ser, const struct suite_filter *sf,
                   const struct gb_result **which)
{
    double best = NAN, best_bytes = INFINITY;
    *which = NULL;
    for (size_t i = 0; i < R->npts; i++) {
        const struct gb_result *r = R->pts[i].r;
        if (R->pts[i].s != ser || !gb__trusted(r) || !gb__suite_filter_fn(r, sf))
            continue;
        if (!sf->cache_ok && strcmp(r->regime, "cache") == 0)
            continue;
        double v = sf->op_time ? r->op_time_us.median : r->value;
        bool take;
        if (sf->op_time) {
            /* A latency is the time of the smallest operation measured (fewest bytes; the
             * lowest time among those), not the lowest time of any size: noise can make a
             * larger copy's median the lower. */
            double b = r->bytes_per_op > 0 ? r->bytes_per_op : INFINITY;
            take = !isnan(v) && (isnan(best) || b < best_bytes || (b == best_bytes && v < best));
            if (take)
                best_bytes = b;
        } else {
            take = better(r, v, best);
        }
        if (take) {
            best = v;
            *which = r;
        }
    }
    return best;
}

/* ---- the params that vary ------------------------------------------------------------------ */

void gb__scan_axes(const struct sel *s, struct axes *a)
{
    memset(a, 0, sizeof *a);
    for (size_t i = 0; i < s->n; i++) {
        const struct gb_result *r = s->p[i]->r;
        if (i > 0 && strcmp(r->case_name, s->p[0]->r->case_name) != 0)
            a->case_varies = true;
        const size_t kase = gb_result_case_param(r);
        for (size_t k = 0; k < r->params.n; k++) {
            if (k == kase)
                continue;
            bool added;
            size_t ax = gb_find_or_add_str(a->name, &a->n, MAXAX, sizeof a->name[0], 0,
                                           sizeof a->name[0], r->params.name[k], &added);
            if (ax == MAXAX)
                continue;
            if (added)
                a->numeric[ax] = is_num(&r->params.v[k]);
            char txt[GB_STR_MAX];
            gb_value_format(&r->params.v[k], txt, sizeof txt);
            size_t d = gb_find_or_add_str(a->values[ax], &a->distinct[ax], MAXDISTINCT, GB_STR_MAX,
                                          0, GB_STR_MAX, txt, &added);
            if (added)
                a->num[ax][d] = gb__num(&r->params.v[k]);
            a->numeric[ax] &= is_num(&r->params.v[k]);
        }
    }
}

int gb__axis_index(const struct axes *a, const char *name)
{
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->name[i], name) == 0)
            return (int)i;
    return -1;
}

int gb__pick_x(const struct axes *a, const char *const *prefer)
{
    for (const char *const *p = prefer; p && *p; p++) {
        int ax = gb__axis_index(a, *p);
        if (ax >= 0 && a->numeric[ax] && a->distinct[ax] > 1)
            return ax;
    }
    int best = -1;
    for (size_t i = 0; i < a->n; i++)
        if (a->numeric[i] && a->distinct[i] > 1 && (best < 0 || a->distinct[i] > a->distinct[best]))
            best = (int)i;
    return best;
}

/* The label of r among the selection: its case (when cases vary, or always with with_case) and
 * the values of the params that vary, except those in `skip` (NULL-terminated) and, with
 * strings_only, the numeric ones (they are collapsed into the best). Cleaned. */
static void point_label(const struct gb_result *r, const struct axes *a, bool with_case,
                        bool strings_only, const char *const *skip, char *buf, size_t len)
{
    buf[0] = '\0';
    if (with_case || a->case_varies)
        gb_appendf(buf, len, "%s", r->case_name);
    const size_t kase = gb_result_case_param(r);
    for (size_t k = 0; k < r->params.n; k++) {
        int ax = gb__axis_index(a, r->params.name[k]);
        if (k == kase || ax < 0 || a->distinct[ax] < 2)
            continue;
        if (strings_only && a->numeric[ax])
            continue;
        if (gb__in_list(r->params.name[k], skip))
            continue;
        char txt[GB_STR_MAX];
        gb_value_format(&r->params.v[k], txt, sizeof txt);
        if (is_num(&r->params.v[k]))
            gb_appendf(buf, len, "%s%s=%s", buf[0] ? " " : "", r->params.name[k], txt);
        else
            gb_appendf(buf, len, "%s%s", buf[0] ? " " : "", txt);
    }
    if (!buf[0])
        snprintf(buf, len, "%s", r->case_name);
    char tmp[512];
    gb__clean(buf, tmp, sizeof tmp);
    gb__scopy(buf, len, tmp);
}

void gb__point_label(const struct gb_result *r, const struct axes *a, bool with_case,
                     const char *const *skip, char *buf, size_t len)
{
    point_label(r, a, with_case, false, skip, buf, len);
}

/* Whether the selection holds results of more than one suite (memory and fp16 in one chart):
 * then each label says whose kernel it is. */
static bool suites_vary(const struct sel *s)
{
    for (size_t i = 1; i < s->n; i++)
        if (strcmp(s->p[i]->r->suite, s->p[0]->r->suite) != 0)
            return true;
    return false;
}

/* ---- categories (bar charts) --------------------------------------------------------------- */

size_t gb__build_cats(const struct sel *s, const struct axes *a, bool with_case,
                      const char *const *skip, struct cat **out)
{
    bool by_suite = suites_vary(s);
    struct cat *c = calloc(s->n ? s->n : 1, sizeof *c);
    size_t n = 0;
    if (!c) {
        *out = NULL;
        return 0;
    }
    for (size_t i = 0; i < s->n; i++) {
        const struct gb_result *r = s->p[i]->r;
        char label[160], pl[140], suite[sizeof r->suite];
        point_label(r, a, with_case, true, skip, pl, sizeof pl);
        gb__clean(r->suite, suite, sizeof suite);
        snprintf(label, sizeof label, "%s%s%s", by_suite ? suite : "", by_suite ? ": " : "", pl);
        /* At most one new category per result, so the s->n allocated always suffice. */
        bool added;
        size_t k = gb_find_or_add_str(c, &n, s->n, sizeof *c, offsetof(struct cat, label),
                                      sizeof c->label, label, &added);
        if (added)
            for (size_t j = 0; j < MAXSER; j++)
                c[k].v[j] = NAN;
        size_t ser = s->p[i]->s;
        if (better(r, r->value, c[k].v[ser])) {
            c[k].v[ser] = r->value;
            c[k].best[ser] = r;
        }
    }
    *out = c;
    return n;
}

/* ---- lines (x-y charts) -------------------------------------------------------------------- */

void gb__free_lines(struct line *l, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(l[i].x);
        free(l[i].y);
        free(l[i].r);
        free(l[i].lo);
        free(l[i].hi);
    }
    free(l);
}

/* Adds point (x, y) of result r to l, kept sorted by x with one point per x: the better y (first
 * come on a tie). A point whose x is already there or goes in the middle is found by binary
 * search, one past the end (a sweep in order) at once; a NaN x, which orders with nothing, makes
 * the line unordered and every later point is placed by a linear scan, as it always was. */
static int line_add(struct line *l, double x, double y, const struct gb_result *r)
{
    size_t at; /* where x is, or where it goes */
    bool found = false;
    if (isnan(x))
        l->unordered = true;
    if (l->unordered) {
        for (size_t i = 0; i < l->n; i++)
            if (l->x[i] == x) {
                at = i;
                found = true;
                break;
            }
        if (!found) {
            at = l->n;
            while (at > 0 && l->x[at - 1] > x)
                at--;
        }
    } else if (l->n == 0 || l->x[l->n - 1] < x) {
        at = l->n;
    } else { /* the first x not below x */
        size_t lo = 0, hi = l->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (l->x[mid] < x)
                lo = mid + 1;
            else
                hi = mid;
        }
        at = lo;
        found = l->x[at] == x;
    }
    if (found) {
        if (better(r, y, l->y[at])) {
            l->y[at] = y;
            l->r[at] = r;
        }
        return 0;
    }
    return gb__line_insert(l, at, x, y, r);
}

int gb__line_insert(struct line *l, size_t at, double x, double y, const struct gb_result *r)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? 2 * l->cap : 16;
        double *nx = realloc(l->x, nc * sizeof *nx);
        if (!nx)
            return GB_ENOMEM;
        l->x = nx;
        double *ny = realloc(l->y, nc * sizeof *ny);
        if (!ny)
            return GB_ENOMEM;
        l->y = ny;
        const struct gb_result **nr = realloc(l->r, nc * sizeof *nr);
        if (!nr)
            return GB_ENOMEM;
        l->r = nr;
        l->cap = nc;
    }
    memmove(l->x + at + 1, l->x + at, (l->n - at) * sizeof *l->x);
    memmove(l->y + at + 1, l->y + at, (l->n - at) * sizeof *l->y);
    memmove(l->r + at + 1, l->r + at, (l->n - at) * sizeof *l->r);
    l->x[at] = x;
    l->y[at] = y;
    l->r[at] = r;
    l->n++;
    return 0;
}

size_t gb__line_of(struct line *l, size_t *n, size_t s, const char *label, size_t *dropped)
{
    size_t k = 0;
    while (k < *n && !(l[k].s == s && strcmp(l[k].label, label) == 0))
        k++;
    if (k == *n) {
        if (*n == MAXLINES) {
            (*dropped)++;
            return MAXLINES;
        }
        snprintf(l[k].label, sizeof l[k].label, "%s", label);
        l[k].s = s;
        (*n)++;
    }
    return k;
}

size_t gb__build_lines(const struct rep *R, const struct sel *s, const struct axes *a,
                       const char *xname, gb__yfn yfn, struct line **out, size_t *dropped)
{
    struct line *l = calloc(MAXLINES, sizeof *l);
    size_t n = 0;
    *dropped = 0;
    if (!l) {
        *out = NULL;
        return 0;
    }
    const char *skip[] = {xname, NULL};
    bool by_suite = suites_vary(s);
    for (size_t i = 0; i < s->n; i++) {
        const struct gb_result *r = s->p[i]->r;
        const struct gb_value *xv = gb_params_get(&r->params, xname);
        if (!xv || !is_num(xv))
            continue;
        char label[240], pl[160], pl0[140], suite[sizeof r->suite];
        point_label(r, a, false, false, skip, pl0, sizeof pl0);
        gb__clean(r->suite, suite, sizeof suite);
        snprintf(pl, sizeof pl, "%s%s%.127s", by_suite ? suite : "", by_suite ? " " : "", pl0);
        bool only_case = !a->case_varies && !by_suite && strcmp(pl, r->case_name) == 0;
        if (R->nser > 1)
            snprintf(label, sizeof label, "%s%s%s", R->ser[s->p[i]->s].label, only_case ? "" : ": ",
                     only_case ? "" : pl);
        else
            snprintf(label, sizeof label, "%s", pl);
        const size_t k = gb__line_of(l, &n, s->p[i]->s, label, dropped);
        if (k == MAXLINES)
            continue;
        double y = yfn ? yfn(r) : r->value;
        if (isfinite(y))
            line_add(&l[k], gb__num(xv), y, r);
    }
    *out = l;
    return n;
}
