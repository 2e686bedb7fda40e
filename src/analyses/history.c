/* gpubench — history: each case's nightly median as a series, and its change points (history.h
 * has the method and its sources). */
#include "analyses/history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"

/* 1 / Phi^-1(3/4): the MAD of a normal sample times this estimates its standard deviation. */
#define MAD_SCALE 1.4826

void gb_history_opts_default(struct gb_history_opts *o)
{
    memset(o, 0, sizeof *o);
    o->alpha = 0.01;
    o->threshold = 0.05;
    o->min_nights = 3;
}

void gb_history_init(struct gb_history *h, const struct gb_history_opts *o)
{
    memset(h, 0, sizeof *h);
    if (o)
        h->opts = *o;
    else
        gb_history_opts_default(&h->opts);
    if (h->opts.min_nights < 1)
        h->opts.min_nights = 1;
}

/* ---- Pettitt's test and binary segmentation ------------------------------------------------- */

struct ranked {
    double v;
    size_t i;
};

static int cmp_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* Pettitt's approximate two-sided p of the statistic K = max |U_t| over n values:
 * 2 exp(-6 K^2 / (n^3 + n^2)), at most 1 (Pettitt 1979). */
static double pettitt_p(double k, size_t n)
{
    const double nn = (double)n, p = 2.0 * exp(-6.0 * k * k / (nn * nn * nn + nn * nn));
    return p > 1.0 ? 1.0 : p;
}

double gb_pettitt(const double *x, size_t n, size_t min_seg, size_t *split, double *k)
{
    if (min_seg < 1)
        min_seg = 1;
    if (n < 2 || 2 * min_seg > n)
        return NAN;
    struct ranked *r = malloc(n * sizeof *r);
    double *rank = malloc(n * sizeof *rank);
    if (!r || !rank) {
        free(r);
        free(rank);
        return NAN;
    }
    for (size_t i = 0; i < n; i++)
        r[i] = (struct ranked){x[i], i};
    qsort(r, n, sizeof *r, cmp_ranked);
    /* Midranks (1-based): a group of ties shares the mean of its positions. */
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b + 1 < n && r[b + 1].v == r[a].v)
            b++;
        double mid = 0.5 * (double)(a + b) + 1.0;
        for (size_t j = a; j <= b; j++)
            rank[r[j].i] = mid;
        a = b + 1;
    }
    double u = 0, best = -1;
    size_t best_t = min_seg;
    for (size_t t = 1; t <= n - min_seg; t++) {
        u += 2.0 * rank[t - 1] - (double)n - 1.0; /* U_t over x[0..t) */
        if (t >= min_seg && fabs(u) > best) {
            best = fabs(u);
            best_t = t;
        }
    }
    free(r);
    free(rank);
    if (split)
        *split = best_t;
    if (k)
        *k = best;
    return pettitt_p(best, n);
}

size_t gb_history_nights_needed(const struct gb_history_opts *o)
{
    const size_t side = o->min_nights < 1 ? 1 : o->min_nights;
    /* the bound ends the search for any alpha a double holds: ln(2/alpha) < 746, and the least
     * p at n nights is below 2 exp(-3 (n - 1) / 8) */
    for (size_t n = 2 * side; n < 4 * side + 4096; n++)
        if (pettitt_p((double)(n / 2) * (double)(n - n / 2), n) < o->alpha)
            return n;
    return 4 * side + 4096;
}

static int seg_median(const double *x, size_t n, double *med, double *mad)
{
    double *c = malloc((n ? n : 1) * sizeof *c);
    if (!c)
        return GB_FAIL(GB_ENOMEM, "%zu values", n);
    memcpy(c, x, n * sizeof *c);
    *med = gb_median_inplace(c, n);
    if (mad) {
        for (size_t i = 0; i < n; i++)
            c[i] = fabs(x[i] - *med);
        *mad = gb_median_inplace(c, n);
    }
    free(c);
    return 0;
}

/* perf(after) / perf(before): > 1 better, < 1 worse. */
static double perf_ratio(double before, double after, bool higher_is_better)
{
    return higher_is_better ? after / before : before / after;
}

struct seg_out {
    size_t *idx;
    double *p;
    size_t n, cap;
};

static int segment(const double *x, size_t lo, size_t hi, bool hib, const struct gb_history_opts *o,
                   struct seg_out *out)
{
    size_t n = hi - lo, t;
    double k;
    double p = gb_pettitt(x + lo, n, o->min_nights, &t, &k);
    if (isnan(p) || !(p < o->alpha))
        return 0; /* too short to split, or no significant split */
    double before = NAN, after = NAN;
    int rc;
    if ((rc = seg_median(x + lo, t, &before, NULL)) ||
        (rc = seg_median(x + lo + t, n - t, &after, NULL)))
        return rc;
    /* A significant split whose size is under the threshold is not named, but the halves are
     * still searched: a step up and a step back down can cancel in the whole and not in a half. */
    double ratio = perf_ratio(before, after, hib);
    if ((rc = segment(x, lo, lo + t, hib, o, out)))
        return rc;
    if (before > 0 && after > 0 &&
        (ratio < 1.0 / (1.0 + o->threshold) || ratio > 1.0 + o->threshold) && out->n < out->cap) {
        out->idx[out->n] = lo + t;
        if (out->p)
            out->p[out->n] = p;
        out->n++;
    }
    return segment(x, lo + t, hi, hib, o, out);
}

int gb_history_changepoints(const double *x, size_t n, bool higher_is_better,
                            const struct gb_history_opts *o, size_t *idx, double *p_out,
                            size_t *nidx, size_t cap)
{
    struct seg_out out = {idx + *nidx, p_out ? p_out + *nidx : NULL, 0, cap - *nidx};
    int rc = segment(x, 0, n, higher_is_better, o, &out);
    *nidx += out.n;
    return rc;
}

/* ---- reading nights ------------------------------------------------------------------------- */

static char *dup_str(const char *s)
{
    size_t l = strlen(s) + 1;
    char *d = malloc(l);
    if (d)
        memcpy(d, s, l);
    return d;
}

static int new_series(struct gb_history *h, const struct gb_result *r, const struct gb_case_id *id)
{
    struct gb_history_series *g =
        gb_grow(h->series, &h->series_cap, h->nseries + 1, sizeof *h->series);
    if (!g)
        return GB_FAIL(GB_ENOMEM, "%zu series", h->nseries + 1);
    h->series = g;
    struct gb_history_series *s = &h->series[h->nseries];
    memset(s, 0, sizeof *s);
    s->better = r->better;
    s->noise = NAN;
    if (!(s->suite = dup_str(r->suite)) || !(s->case_name = dup_str(r->case_name)) ||
        !(s->device = dup_str(id->device)) || !(s->params = dup_str(id->params)) ||
        !(s->slot = dup_str(id->slot)) || !(s->unit = dup_str(r->unit)) ||
        !(s->metric = dup_str(r->metric))) {
        free(s->suite), free(s->case_name), free(s->device), free(s->params), free(s->slot);
        free(s->unit), free(s->metric);
        return GB_FAIL(GB_ENOMEM, "series names");
    }
    h->nseries++;
    return 0;
}

/* Pads s's points with "did not run" up to `n` nights. */
static int pad_points(struct gb_history_series *s, size_t n)
{
    if (s->npoints >= n)
        return 0;
    struct gb_history_point *g = gb_grow(s->points, &s->points_cap, n, sizeof *g);
    if (!g)
        return GB_FAIL(GB_ENOMEM, "%zu nights", n);
    s->points = g;
    for (size_t i = s->npoints; i < n; i++)
        s->points[i] = (struct gb_history_point){NAN, NAN, NAN, -1, 0};
    s->npoints = n;
    return 0;
}

int gb_history_add_file(struct gb_history *h, const char *path)
{
    struct gb_results rs;
    int rc = gb_results_read(path, &rs);
    if (rc)
        return rc;
    /* A copy of a night already read is that night: gb_run_same's test, on the fields a night
     * keeps (it keeps no gb_run_meta). */
    for (size_t i = 0; i < h->nnights; i++) {
        const struct gb_history_night *o = &h->nights[i];
        if (rs.run.start_utc[0] && strcmp(o->start_utc, rs.run.start_utc) == 0 &&
            strcmp(o->host, rs.run.host) == 0 &&
            strcmp(o->profile_sha256, rs.run.profile_sha256) == 0 &&
            strcmp(o->profile_name, rs.run.profile_name) == 0) {
            h->ncopies++;
            gb_results_free(&rs);
            return 0;
        }
    }
    struct gb_history_night *gn =
        gb_grow(h->nights, &h->nights_cap, h->nnights + 1, sizeof *h->nights);
    if (!gn) {
        gb_results_free(&rs);
        return GB_FAIL(GB_ENOMEM, "%zu nights", h->nnights + 1);
    }
    h->nights = gn;
    struct gb_history_night *nt = &h->nights[h->nnights];
    memset(nt, 0, sizeof *nt);
    const struct gb_run_meta *m = &rs.run;
    nt->path = dup_str(path);
    nt->devices = calloc(rs.ndevices ? rs.ndevices : 1, sizeof *nt->devices);
    if (!nt->path || !nt->devices) {
        free(nt->path);
        free(nt->devices);
        gb_results_free(&rs);
        return GB_FAIL(GB_ENOMEM, "night %s", path);
    }
    snprintf(nt->start_utc, sizeof nt->start_utc, "%s", m->start_utc);
    snprintf(nt->gpubench_version, sizeof nt->gpubench_version, "%s", m->gpubench_version);
    snprintf(nt->git_commit, sizeof nt->git_commit, "%s", m->git_commit);
    snprintf(nt->profile_sha256, sizeof nt->profile_sha256, "%s", m->profile_sha256);
    snprintf(nt->profile_name, sizeof nt->profile_name, "%s", m->profile_name);
    snprintf(nt->host, sizeof nt->host, "%s", m->host);
    snprintf(nt->os, sizeof nt->os, "%s", m->os);
    nt->interrupted = m->interrupted;
    nt->ndevices = rs.ndevices;
    for (size_t d = 0; d < rs.ndevices; d++) {
        struct gb_history_device *hd = &nt->devices[d];
        const struct gb_device_info *in = &rs.devices[d].info;
        snprintf(hd->backend, sizeof hd->backend, "%s", rs.devices[d].backend);
        snprintf(hd->name, sizeof hd->name, "%s", in->name);
        snprintf(hd->driver, sizeof hd->driver, "%s", in->driver);
        snprintf(hd->version, sizeof hd->version, "%s", in->version);
        hd->clock_mhz = in->clock_mhz;
    }
    size_t night = h->nnights++;
    if (m->interrupted)
        gb_append_line(h->notes, sizeof h->notes, "%s: the run was interrupted (kept: its cases)",
                       path);

    size_t dups = 0;
    struct gb_case_id id;
    for (size_t i = 0; i < rs.nresults && !rc; i++) {
        const struct gb_result *r = &rs.results[i];
        if (!gb_suite_selected(h->opts.suites, r->suite))
            continue;
        gb_case_identify(&rs, r, &id);
        gb_appendf(id.key, sizeof id.key, "\x1f%s", id.slot);
        bool added;
        long si = gb_strtab_intern(&h->keys, id.key, &added);
        if (si < 0) {
            rc = (int)si;
            break;
        }
        if (added && (rc = new_series(h, r, &id)))
            break;
        struct gb_history_series *s = &h->series[si];
        /* A case is measured in the unit, metric and direction of its first ok value; an ok
         * value in others is left out of it (a failed one carries no figure to mix). */
        char why[96];
        if (r->status == GB_STATUS_OK && !s->measured) {
            char *u = dup_str(r->unit), *mt = dup_str(r->metric);
            if (!u || !mt) {
                free(u), free(mt);
                rc = GB_FAIL(GB_ENOMEM, "series names");
                break;
            }
            free(s->unit), free(s->metric);
            s->unit = u, s->metric = mt, s->better = r->better, s->measured = true;
        } else if (r->status == GB_STATUS_OK &&
                   gb_case_measure_differs(s->unit, s->metric, s->better, r, why, sizeof why)) {
            if (s->left_out++ == 0)
                snprintf(s->left_why, sizeof s->left_why, "%s", why);
            continue;
        }
        if (s->npoints > night) {
            dups++; /* the case twice in one night: the first counts */
            continue;
        }
        if ((rc = pad_points(s, night + 1)))
            break;
        struct gb_history_point *pt = &s->points[night];
        pt->status = (int8_t)r->status;
        pt->device =
            (uint16_t)(r->device_index >= 0 && r->device_index < UINT16_MAX ? r->device_index : 0);
        if (r->status == GB_STATUS_OK && isfinite(r->value)) {
            pt->value = r->value;
            pt->lo = r->stats.p5;
            pt->hi = r->stats.p95;
        }
    }
    if (dups)
        gb_append_line(h->notes, sizeof h->notes,
                       "%s: %zu case%s measured twice in one file: the first of each kept", path,
                       dups, dups == 1 ? "" : "s");
    gb_results_free(&rs);
    return rc;
}

/* ---- finishing ------------------------------------------------------------------------------ */

static const struct gb_history_night *sort_nights;

static int cmp_night(const void *a, const void *b)
{
    const struct gb_history_night *x = &sort_nights[*(const size_t *)a];
    const struct gb_history_night *y = &sort_nights[*(const size_t *)b];
    int c = strcmp(x->start_utc, y->start_utc);
    return c ? c : strcmp(x->path, y->path);
}

static const struct gb_history_device *night_device(const struct gb_history_night *n,
                                                    const struct gb_history_point *p)
{
    return p->device < n->ndevices ? &n->devices[p->device] : NULL;
}

static void short_sha(const char *s, char *buf, size_t len)
{
    snprintf(buf, len, "%.12s", s[0] ? s : "none");
}

/* What differs between night a (before) and night b (after) for a case that ran on the devices
 * pa / pb of those nights. */
static void what_changed(const struct gb_history_night *a, const struct gb_history_point *pa,
                         const struct gb_history_night *b, const struct gb_history_point *pb,
                         char *buf, size_t len)
{
    buf[0] = '\0';
#define SEP (buf[0] ? "; " : "")
    if (strcmp(a->gpubench_version, b->gpubench_version) || strcmp(a->git_commit, b->git_commit))
        gb_appendf(buf, len, "%sgpubench %s (%s) -> %s (%s)", SEP, a->gpubench_version,
                   a->git_commit, b->gpubench_version, b->git_commit);
    if (strcmp(a->profile_sha256, b->profile_sha256)) {
        char x[16], y[16];
        short_sha(a->profile_sha256, x, sizeof x);
        short_sha(b->profile_sha256, y, sizeof y);
        gb_appendf(buf, len, "%sprofile sha256 %s.. -> %s..", SEP, x, y);
    }
    if (strcmp(a->host, b->host))
        gb_appendf(buf, len, "%shost %s -> %s", SEP, a->host, b->host);
    if (strcmp(a->os, b->os))
        gb_appendf(buf, len, "%sOS %s -> %s", SEP, a->os, b->os);
    const struct gb_history_device *da = night_device(a, pa), *db = night_device(b, pb);
    if (da && db) {
        if (strcmp(da->name, db->name))
            gb_appendf(buf, len, "%sdevice %s -> %s", SEP, da->name, db->name);
        if (strcmp(da->driver, db->driver))
            gb_appendf(buf, len, "%sdriver %s -> %s", SEP, da->driver, db->driver);
        if (strcmp(da->version, db->version))
            gb_appendf(buf, len, "%sAPI %s -> %s", SEP, da->version, db->version);
        if (da->clock_mhz != db->clock_mhz)
            gb_appendf(buf, len, "%sclock %u -> %u MHz", SEP, da->clock_mhz, db->clock_mhz);
    }
#undef SEP
}

static int analyse(struct gb_history *h, struct gb_history_series *s)
{
    size_t n = 0;
    double *x = malloc((h->nnights ? h->nnights : 1) * sizeof *x);
    size_t *night = malloc((h->nnights ? h->nnights : 1) * sizeof *night);
    size_t *cp = malloc((h->nnights ? h->nnights : 1) * sizeof *cp);
    double *cpp = malloc((h->nnights ? h->nnights : 1) * sizeof *cpp);
    double *resid = malloc((h->nnights ? h->nnights : 1) * sizeof *resid);
    int rc = 0;
    if (!x || !night || !cp || !cpp || !resid) {
        rc = GB_FAIL(GB_ENOMEM, "series of %zu nights", h->nnights);
        goto out;
    }
    for (size_t i = 0; i < s->npoints; i++)
        if (s->points[i].status == GB_STATUS_OK && isfinite(s->points[i].value)) {
            x[n] = s->points[i].value;
            night[n++] = i;
        }
    s->nok = n;
    size_t ncp = 0;
    if ((rc = gb_history_changepoints(x, n, s->better == GB_BETTER_HIGHER, &h->opts, cp, cpp, &ncp,
                                      h->nnights)))
        goto out;
    if (ncp) {
        s->changes = calloc(ncp, sizeof *s->changes);
        if (!s->changes) {
            rc = GB_FAIL(GB_ENOMEM, "change points");
            goto out;
        }
    }
    /* Segment levels from the final segmentation: the noise is what remains around them. */
    size_t nres = 0;
    for (size_t c = 0; c <= ncp; c++) {
        size_t lo = c ? cp[c - 1] : 0, hi = c < ncp ? cp[c] : n;
        double med, mad;
        if (hi <= lo)
            continue;
        if ((rc = seg_median(x + lo, hi - lo, &med, &mad)))
            goto out;
        for (size_t i = lo; i < hi; i++)
            resid[nres++] = x[i] - med;
        if (c < ncp) {
            struct gb_history_change *ch = &s->changes[c];
            size_t nhi = c + 1 < ncp ? cp[c + 1] : n;
            double after, mad_after;
            if ((rc = seg_median(x + hi, nhi - hi, &after, &mad_after)))
                goto out;
            ch->night = night[hi];
            ch->prev_night = night[hi - 1];
            ch->before = med;
            ch->after = after;
            ch->spread_before = MAD_SCALE * mad;
            ch->spread_after = MAD_SCALE * mad_after;
            ch->change = perf_ratio(med, after, s->better == GB_BETTER_HIGHER) - 1.0;
            ch->p = cpp[c];
            what_changed(&h->nights[ch->prev_night], &s->points[ch->prev_night],
                         &h->nights[ch->night], &s->points[ch->night], ch->what, sizeof ch->what);
            h->slower += ch->change < 0;
        }
    }
    s->nchanges = ncp;
    h->nchanges += ncp;
    if (n >= 3) {
        double all = NAN;
        if ((rc = seg_median(x, n, &all, NULL)))
            goto out;
        for (size_t i = 0; i < nres; i++)
            resid[i] = fabs(resid[i]);
        double mad = gb_median_inplace(resid, nres);
        s->noise = all != 0 ? MAD_SCALE * mad / fabs(all) : NAN;
    }
out:
    free(x);
    free(night);
    free(cp);
    free(cpp);
    free(resid);
    return rc;
}

int gb_history_finish(struct gb_history *h)
{
    if (h->nnights == 0)
        return GB_USER_FAIL(GB_EINVAL, "no nights");
    size_t *perm = malloc(h->nnights * sizeof *perm);
    struct gb_history_night *nights = malloc(h->nnights * sizeof *nights);
    struct gb_history_point *tmp = malloc(h->nnights * sizeof *tmp);
    int rc = 0;
    if (!perm || !nights || !tmp) {
        rc = GB_FAIL(GB_ENOMEM, "%zu nights", h->nnights);
        goto out;
    }
    for (size_t i = 0; i < h->nnights; i++)
        perm[i] = i;
    sort_nights = h->nights;
    qsort(perm, h->nnights, sizeof *perm, cmp_night);
    sort_nights = NULL;
    for (size_t i = 0; i < h->nnights; i++)
        nights[i] = h->nights[perm[i]];
    memcpy(h->nights, nights, h->nnights * sizeof *nights);
    for (size_t k = 0; k < h->nseries && !rc; k++) {
        struct gb_history_series *s = &h->series[k];
        if ((rc = pad_points(s, h->nnights)))
            break;
        for (size_t i = 0; i < h->nnights; i++)
            tmp[i] = s->points[perm[i]];
        memcpy(s->points, tmp, h->nnights * sizeof *tmp);
    }
    h->nchanges = h->slower = 0;
    for (size_t k = 0; k < h->nseries && !rc; k++)
        rc = analyse(h, &h->series[k]);
    /* A history is one machine's: say so when the nights come from several. */
    struct gb_strtab names = {0};
    for (size_t i = 0; i < h->nnights && !rc; i++) {
        long v = gb_strtab_intern(&names, h->nights[i].host, NULL);
        rc = v < 0 ? (int)v : 0;
    }
    size_t hosts = names.n;
    gb_strtab_free(&names);
    h->left_out[0] = '\0';
    for (size_t k = 0; k < h->nseries && !rc; k++) {
        const struct gb_history_series *s = &h->series[k];
        char title[1024];
        gb_case_title(s->suite, s->case_name, s->params, s->device, title, sizeof title);
        gb_case_left_out_note(h->left_out, sizeof h->left_out, s->left_out, title, s->left_why);
    }
    if (!rc && h->left_out[0])
        gb_append_line(h->notes, sizeof h->notes, "%.*s", (int)strlen(h->left_out) - 1,
                       h->left_out);
    if (!rc && hosts > 1)
        gb_append_line(h->notes, sizeof h->notes,
                       "the nights come from %zu hosts: cases are followed by name and device, "
                       "whichever host ran them (a change of host is named where it happens)",
                       hosts);
out:
    free(perm);
    free(nights);
    free(tmp);
    return rc;
}

void gb_history_free(struct gb_history *h)
{
    for (size_t i = 0; i < h->nnights; i++) {
        free(h->nights[i].path);
        free(h->nights[i].devices);
    }
    free(h->nights);
    for (size_t k = 0; k < h->nseries; k++) {
        struct gb_history_series *s = &h->series[k];
        free(s->suite), free(s->case_name), free(s->device), free(s->params), free(s->slot);
        free(s->unit), free(s->metric), free(s->points), free(s->changes);
    }
    free(h->series);
    gb_strtab_free(&h->keys);
    memset(h, 0, sizeof *h);
}

/* ---- outputs -------------------------------------------------------------------------------- */
