/* gpubench — the fleet view: per-case tables over many nodes and the robust outlier rule
 * (contract and sources in fleet.h). */
#include "analyses/fleet.h"
#include "analyses/expect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/robust.h"
#include "base/util.h"

void gb_fleet_opts_default(struct gb_fleet_opts *o)
{
    memset(o, 0, sizeof *o);
    o->k = 3.5;
    o->min_deviation = 0.05;
}

const char *gb_fleet_flag_name(enum gb_fleet_flag fl)
{
    switch (fl) {
    case GB_FLEET_SLOW:
        return "SLOW";
    case GB_FLEET_FAST:
        return "FAST";
    case GB_FLEET_FAILED:
        return "FAILED";
    case GB_FLEET_LOW:
        return "LOW";
    case GB_FLEET_DEVIATES:
        return "deviates";
    default:
        return "";
    }
}

void gb_fleet_init(struct gb_fleet *f, const struct gb_fleet_opts *o)
{
    memset(f, 0, sizeof *f);
    if (o)
        f->opts = *o;
    else
        gb_fleet_opts_default(&f->opts);
}

static char *dup_str(const char *s)
{
    size_t l = strlen(s) + 1;
    char *d = malloc(l);
    if (d)
        memcpy(d, s, l);
    return d;
}

static void free_case(struct gb_fleet_case *c)
{
    free(c->suite), free(c->case_name), free(c->device), free(c->params), free(c->unit);
    free(c->metric), free(c->obs);
}

static int new_case(struct gb_fleet *f, const struct gb_result *r, const struct gb_case_id *id)
{
    struct gb_fleet_case *g = gb_grow(f->cases, &f->cases_cap, f->ncases + 1, sizeof *g);
    if (!g)
        return GB_FAIL(GB_ENOMEM, "%zu cases", f->ncases + 1);
    f->cases = g;
    struct gb_fleet_case *c = &f->cases[f->ncases];
    memset(c, 0, sizeof *c);
    c->better = r->better;
    if (!(c->suite = dup_str(r->suite)) || !(c->case_name = dup_str(r->case_name)) ||
        !(c->device = dup_str(id->device)) || !(c->params = dup_str(id->params)) ||
        !(c->unit = dup_str(r->unit)) || !(c->metric = dup_str(r->metric))) {
        free_case(c);
        return GB_FAIL(GB_ENOMEM, "case names");
    }
    f->ncases++;
    return 0;
}

/* The member of file `file` with slot `slot`: members of one file are contiguous from `first`. */
static long member_of(struct gb_fleet *f, size_t first, uint32_t file, const char *slot)
{
    for (size_t m = first; m < f->nmembers; m++)
        if (strcmp(f->members[m].slot, slot) == 0)
            return (long)m;
    if (f->nmembers >= UINT32_MAX)
        return GB_FAIL(GB_EOVERFLOW, "more than 2^32 members");
    struct gb_fleet_member *g = gb_grow(f->members, &f->members_cap, f->nmembers + 1, sizeof *g);
    if (!g)
        return GB_FAIL(GB_ENOMEM, "%zu members", f->nmembers + 1);
    f->members = g;
    struct gb_fleet_member *m = &f->members[f->nmembers];
    memset(m, 0, sizeof *m);
    m->file = file;
    snprintf(m->slot, sizeof m->slot, "%s", slot);
    m->worst = m->worst_dev = m->shift = NAN;
    return (long)f->nmembers++;
}

/* The member's health items that are not OK (nor UNKNOWN), read once from its file. */
static void member_health(struct gb_fleet_member *mb, const struct gb_results *rs, int device)
{
    if (mb->health_read)
        return;
    mb->health_read = true;
    struct gb_health_item items[GB_HEALTH_ITEMS];
    size_t n = gb_health_items(rs, device, items);
    for (size_t k = 0; k < n; k++)
        if (items[k].verdict == GB_HEALTH_FAIL || items[k].verdict == GB_HEALTH_WARN)
            gb_appendf(mb->health, sizeof mb->health, "%s%s %s: %s", mb->health[0] ? "; " : "",
                       items[k].item, gb_health_verdict_name(items[k].verdict), items[k].note);
}

int gb_fleet_add_file(struct gb_fleet *f, const char *path)
{
    struct gb_results rs;
    /* The headlines only: a fleet of 10,000 files is read in a minute, not five (results.h). */
    int rc = gb_results_read_opts(path, GB_READ_HEADLINES, &rs);
    if (rc)
        return rc;
    if (f->nfiles >= UINT32_MAX) {
        gb_results_free(&rs);
        return GB_FAIL(GB_EOVERFLOW, "more than 2^32 files");
    }
    struct gb_fleet_file *gf = gb_grow(f->files, &f->files_cap, f->nfiles + 1, sizeof *gf);
    if (!gf) {
        gb_results_free(&rs);
        return GB_FAIL(GB_ENOMEM, "%zu files", f->nfiles + 1);
    }
    f->files = gf;
    struct gb_fleet_file *fl = &f->files[f->nfiles];
    memset(fl, 0, sizeof *fl);
    fl->path = dup_str(path);
    fl->host = dup_str(rs.run.host[0] ? rs.run.host : "?");
    if (!fl->path || !fl->host) {
        free(fl->path);
        free(fl->host);
        gb_results_free(&rs);
        return GB_FAIL(GB_ENOMEM, "file %s", path);
    }
    snprintf(fl->start_utc, sizeof fl->start_utc, "%s", rs.run.start_utc);
    fl->interrupted = rs.run.interrupted;
    uint32_t file = (uint32_t)f->nfiles++;
    if (file == 0) {
        snprintf(f->first_sha, sizeof f->first_sha, "%s", rs.run.profile_sha256);
        snprintf(f->first_version, sizeof f->first_version, "%s", rs.run.gpubench_version);
    }
    f->other_sha += strcmp(f->first_sha, rs.run.profile_sha256) != 0;
    f->other_version += strcmp(f->first_version, rs.run.gpubench_version) != 0;
    f->interrupted += rs.run.interrupted;

    size_t first_member = f->nmembers;
    struct gb_case_id id;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        if (r->status == GB_STATUS_SKIPPED || !gb_suite_selected(f->opts.suites, r->suite))
            continue;
        gb_case_identify(&rs, r, &id);
        bool added;
        long ci = gb_strtab_intern(&f->keys, id.key, &added);
        if (ci < 0) {
            rc = (int)ci;
            break;
        }
        if (added && (rc = new_case(f, r, &id)))
            break;
        const struct gb_expect *ex = f->opts.expect ? f->opts.expect : f->opts.noise;
        if (added && ex) {
            char key[2400];
            gb_expect_key(&rs, r, key, sizeof key);
            const struct gb_expect_case *e = gb_expect_find(ex, key);
            f->cases[ci].expect = e && e->better == r->better ? e : NULL;
        }
        /* A case is measured in the unit, metric and direction of its first ok value; an ok
         * value in others is left out of it (a failed one carries no figure to mix). */
        struct gb_fleet_case *lc = &f->cases[ci];
        char why[96];
        if (r->status == GB_STATUS_OK && !lc->measured) {
            char *u = dup_str(r->unit), *mt = dup_str(r->metric);
            if (!u || !mt) {
                free(u), free(mt);
                rc = GB_FAIL(GB_ENOMEM, "case names");
                break;
            }
            free(lc->unit), free(lc->metric);
            lc->unit = u, lc->metric = mt, lc->better = r->better, lc->measured = true;
        } else if (r->status == GB_STATUS_OK &&
                   gb_case_measure_differs(lc->unit, lc->metric, lc->better, r, why, sizeof why)) {
            if (lc->left_out++ == 0)
                snprintf(lc->left_why, sizeof lc->left_why, "%s", why);
            continue;
        }
        long m = member_of(f, first_member, file, id.slot);
        if (m < 0) {
            rc = (int)m;
            break;
        }
        member_health(&f->members[m], &rs, r->device_index);
        struct gb_fleet_case *c = &f->cases[ci];
        /* The same case twice for one member (a profile that sweeps it twice): the first counts.
         * This file's observations are the last ones of the case. */
        bool dup = false;
        for (size_t k = c->nobs; k-- > 0 && c->obs[k].member >= first_member;)
            dup |= c->obs[k].member == (uint32_t)m;
        if (dup) {
            f->duplicates++;
            continue;
        }
        struct gb_fleet_obs *g = gb_grow(c->obs, &c->cap, c->nobs + 1, sizeof *g);
        if (!g) {
            rc = GB_FAIL(GB_ENOMEM, "%zu figures of one case", c->nobs + 1);
            break;
        }
        c->obs = g;
        bool ok = r->status == GB_STATUS_OK && isfinite(r->value);
        c->obs[c->nobs++] = (struct gb_fleet_obs){
            .member = (uint32_t)m,
            .status = (int8_t)(ok ? GB_STATUS_OK : GB_STATUS_FAILED),
            .flag = GB_FLEET_NORMAL,
            .value = ok ? r->value : NAN,
        };
        f->nobs++;
    }
    gb_results_free(&rs);
    return rc;
}

/* ---- finishing ------------------------------------------------------------------------------ */

static const struct gb_fleet_case *sort_case;

/* Failed first, then from the worst to the best performance. */
static int cmp_obs(const void *a, const void *b)
{
    const struct gb_fleet_obs *x = a, *y = b;
    if (x->status != y->status)
        return x->status == GB_STATUS_FAILED ? -1 : 1;
    if (x->status != GB_STATUS_OK)
        return (x->member > y->member) - (x->member < y->member);
    double dx = sort_case->better == GB_BETTER_LOWER ? -x->value : x->value;
    double dy = sort_case->better == GB_BETTER_LOWER ? -y->value : y->value;
    if (dx != dy)
        return dx < dy ? -1 : 1;
    return (x->member > y->member) - (x->member < y->member);
}

/* ln perf of an ok value: perf is the value, or its reciprocal for a lower-is-better metric. */
static double log_perf(const struct gb_fleet_case *c, double v)
{
    return c->better == GB_BETTER_LOWER ? -log(v) : log(v);
}

/* The case's run-to-run noise L (fleet.h), in log performance, over its n ok members whose ln
 * perf are x[0..n) around their median m; `pooled` is the fleet's typical spread. NAN when
 * memory runs out. */
static double noise_limit(struct gb_fleet *f, struct gb_fleet_case *c, const double *x, size_t n,
                          double m, double pooled)
{
    const struct gb_expect_case *e = c->expect;
    double fl = log1p(f->opts.min_deviation);
    c->limit_expect = false;
    if (e && e->n >= 3 && e->min > 0 && e->max >= e->min && isfinite(e->spread)) {
        double seen = log(e->max / e->min) + fl, band = f->opts.k * e->spread;
        c->limit_expect = true;
        return seen > band ? seen : band;
    }
    double s = gb_mad_sigma(x, n, m);
    if (isnan(s))
        return NAN;
    return f->opts.k * (s > pooled ? s : pooled);
}

/* The case's ok members' ln perf into lx (their count), when it can be judged (3 or more, all
 * positive); 0 otherwise. */
static size_t case_logs(const struct gb_fleet_case *c, double *lx)
{
    size_t k = 0, n = 0;
    for (size_t i = 0; i < c->nobs; i++) {
        if (c->obs[i].status != GB_STATUS_OK)
            continue;
        n++;
        if (c->obs[i].value > 0 && isfinite(c->obs[i].value))
            lx[k++] = log_perf(c, c->obs[i].value);
    }
    return k == n && n >= 3 ? n : 0;
}

/* The fleet's typical spread: the median over its judged cases of b_n 1.4826 MAD of ln perf (a
 * few nodes estimate one case's spread poorly, and one case of 4 identical-looking nodes can
 * have a MAD near 0; over a hundred cases the typical one is well known). 0 when none. */
static double pooled_spread(const struct gb_fleet *f, double *lx, double *sp)
{
    size_t ns = 0;
    for (size_t k = 0; k < f->ncases; k++) {
        size_t n = case_logs(&f->cases[k], lx);
        if (n) {
            double s = gb_mad_sigma(lx, n, gb_median(lx, n));
            if (isfinite(s))
                sp[ns++] = s;
        }
    }
    double p = ns ? gb_median(sp, ns) : 0.0;
    return isfinite(p) ? p : 0.0;
}

static int judge_case(struct gb_fleet *f, struct gb_fleet_case *c, double *tmp, double *lx,
                      double pooled)
{
    struct gb_check_opts check_opts;
    gb_check_opts_default(&check_opts);
    size_t n = 0;
    c->nfailed = 0;
    c->min = INFINITY;
    c->max = -INFINITY;
    for (size_t i = 0; i < c->nobs; i++) {
        if (c->obs[i].status != GB_STATUS_OK) {
            c->nfailed++;
            continue;
        }
        double v = c->obs[i].value;
        tmp[n++] = v;
        c->min = v < c->min ? v : c->min;
        c->max = v > c->max ? v : c->max;
    }
    c->nok = n;
    c->noutliers = c->ndeviating = 0;
    if (n == 0) {
        c->median = c->mad = c->min = c->max = NAN;
    } else {
        c->median = gb_median_inplace(tmp, n);
        for (size_t i = 0; i < n; i++)
            tmp[i] = fabs(tmp[i] - c->median);
        c->mad = gb_median_inplace(tmp, n);
    }
    bool judged = n >= 3 && c->median > 0.0;
    f->unjudged += !judged;
    /* In log performance: the center, and the distance a member must exceed. */
    double center = NAN, limit = NAN;
    c->limit = NAN;
    c->limit_expect = false;
    if (judged) {
        judged = case_logs(c, lx) == n;
        center = judged ? gb_median(lx, n) : NAN;
        limit = judged ? noise_limit(f, c, lx, n, center, pooled) : NAN;
        if (judged && isnan(limit))
            return GB_FAIL(GB_ENOMEM, "the noise of a case of %zu nodes", n);
        if (judged && limit < log1p(f->opts.min_deviation))
            limit = log1p(f->opts.min_deviation);
        c->limit = judged ? expm1(limit) : NAN;
        f->unjudged += !judged && n >= 3;
    }
    for (size_t i = 0; i < c->nobs; i++) {
        struct gb_fleet_obs *o = &c->obs[i];
        o->flag = GB_FLEET_NORMAL;
        if (o->status != GB_STATUS_OK) {
            o->flag = n > 0 ? GB_FLEET_FAILED : GB_FLEET_UNJUDGED;
        } else if (!judged) {
            o->flag = GB_FLEET_UNJUDGED;
        } else if (fabs(log_perf(c, o->value) - center) > limit) {
            o->flag = log_perf(c, o->value) < center ? GB_FLEET_SLOW : GB_FLEET_FAST;
            /* Beyond the fleet's own spread only: listed; the node shift judges the node. */
            if (!c->limit_expect)
                o->flag = GB_FLEET_DEVIATES;
        }
        /* Against its model's expectation: a whole fleet that is slow, or too few members to
         * judge, still has members below the band. */
        if (c->expect && f->opts.expect && o->status == GB_STATUS_OK && o->flag != GB_FLEET_SLOW &&
            gb_expect_judge(o->value, c->better != GB_BETTER_LOWER, 0, false, c->expect, 0,
                            gb_check_tolerance(&check_opts, c->suite), &check_opts)
                    .verdict == GB_EXPECT_LOW)
            o->flag = GB_FLEET_LOW;
        struct gb_fleet_member *m = &f->members[o->member];
        if (o->flag == GB_FLEET_DEVIATES) {
            double dv = o->value / c->median - 1.0;
            if (m->ndeviating == 0 || fabs(dv) > fabs(m->worst_dev)) {
                m->worst_dev = dv;
                m->worst_dev_case = (size_t)(c - f->cases);
            }
            m->ndeviating++;
            c->ndeviating++;
            f->deviating++;
            continue;
        }
        if (o->flag != GB_FLEET_SLOW && o->flag != GB_FLEET_FAST && o->flag != GB_FLEET_FAILED &&
            o->flag != GB_FLEET_LOW)
            continue;
        c->noutliers++;
        double dev = o->status == GB_STATUS_OK ? o->value / c->median - 1.0 : NAN;
        /* The worst case of a member: a failure, else the largest distance from the median. */
        bool worse =
            m->nflagged == 0 || (!isnan(m->worst) && (isnan(dev) || fabs(dev) > fabs(m->worst)));
        if (worse) {
            m->worst = dev;
            m->worst_case = (size_t)(c - f->cases);
        }
        m->nflagged++;
    }
    sort_case = c;
    qsort(c->obs, c->nobs, sizeof *c->obs, cmp_obs);
    sort_case = NULL;
    f->flagged_cases += c->noutliers > 0;
    return 0;
}

static const struct gb_fleet *rank_fleet;

/* The severity of a member: an outlier first; flagged in more cases, then LOW by its shift (the
 * lowest first), then a failure, then the farthest worst case; the others keep their order. */
static int cmp_severity(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    const struct gb_fleet_member *mx = &rank_fleet->members[x], *my = &rank_fleet->members[y];
    if (mx->outlier != my->outlier)
        return mx->outlier ? -1 : 1;
    if (mx->nflagged != my->nflagged)
        return mx->nflagged > my->nflagged ? -1 : 1;
    if (mx->shift_low != my->shift_low)
        return mx->shift_low ? -1 : 1;
    if (mx->shift_low && mx->shift != my->shift)
        return mx->shift < my->shift ? -1 : 1;
    if (mx->nflagged) {
        double wx = isnan(mx->worst) ? INFINITY : fabs(mx->worst);
        double wy = isnan(my->worst) ? INFINITY : fabs(my->worst);
        if (wx != wy)
            return wx > wy ? -1 : 1;
    }
    return (x > y) - (x < y);
}

/* 1.4826 x MAD estimates the standard deviation of normal data (the consistency constant). */
#define MAD_NORMAL 1.4826

/* Each member's node shift S_m and the LOW ones among them (the rule: fleet.h). One pass over
 * the judged uncalibrated cases gathers each member's ln(value / median) into its own stretch of
 * one array of f->nobs doubles. Returns 0 or GB_ENOMEM. */
static int node_shifts(struct gb_fleet *f)
{
    f->shift_members = f->shift_short = 0;
    f->shift_median = f->shift_limit = NAN;
    size_t nm = f->nmembers ? f->nmembers : 1;
    size_t *at = calloc(nm + 1, sizeof *at), *fill = calloc(nm, sizeof *fill);
    double *d = malloc((f->nobs ? f->nobs : 1) * sizeof *d), *sh = malloc(nm * sizeof *sh);
    if (!at || !fill || !d || !sh) {
        free(at), free(fill), free(d), free(sh);
        return GB_FAIL(GB_ENOMEM, "node shifts of %zu members", f->nmembers);
    }
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < f->ncases; k++) {
            const struct gb_fleet_case *c = &f->cases[k];
            if (isnan(c->limit) || c->limit_expect || !(c->median > 0))
                continue;
            for (size_t i = 0; i < c->nobs; i++) {
                const struct gb_fleet_obs *o = &c->obs[i];
                if (o->status != GB_STATUS_OK || !(o->value > 0))
                    continue;
                if (pass == 0)
                    at[o->member + 1]++;
                else
                    d[at[o->member] + fill[o->member]++] =
                        log_perf(c, o->value) - log_perf(c, c->median);
            }
        }
        for (size_t m = 0; pass == 0 && m < f->nmembers; m++)
            at[m + 1] += at[m];
    }
    size_t ns = 0;
    for (size_t m = 0; m < f->nmembers; m++) {
        struct gb_fleet_member *mb = &f->members[m];
        mb->shift_cases = fill[m];
        if (fill[m] >= GB_FLEET_SHIFT_MIN_CASES)
            sh[ns++] = mb->shift = gb_median_inplace(d + at[m], fill[m]);
        else
            f->shift_short += fill[m] > 0;
    }
    /* The fleet's median shift and its spread: a member is LOW below median - L. Three members
     * at least, as for a case (with two, the median sits between them). */
    if (ns >= 3) {
        double med = gb_median_inplace(sh, ns);
        for (size_t i = 0; i < ns; i++)
            sh[i] = fabs(sh[i] - med);
        double spread = f->opts.k * MAD_NORMAL * gb_median_inplace(sh, ns);
        double lim = log(GB_FLEET_SHIFT_FLOOR);
        lim = spread > lim ? spread : lim;
        for (size_t m = 0; m < f->nmembers; m++) {
            struct gb_fleet_member *mb = &f->members[m];
            if (!isnan(mb->shift))
                mb->shift_low = mb->shift < med - lim;
        }
        f->shift_median = exp(med);
        f->shift_limit = exp(lim);
    }
    for (size_t m = 0; m < f->nmembers; m++)
        f->members[m].shift = exp(f->members[m].shift);
    f->shift_members = ns;
    free(at), free(fill), free(d), free(sh);
    return 0;
}

void gb_fleet_skip(struct gb_fleet *f, const char *path, const char *why)
{
    f->skipped++;
    gb_append_line(f->skips, sizeof f->skips, "%s skipped: %s", path, why);
}

int gb_fleet_finish(struct gb_fleet *f)
{
    if (f->nfiles == 0)
        return GB_USER_FAIL(GB_EINVAL, "no results files");
    size_t most = 1;
    for (size_t k = 0; k < f->ncases; k++)
        most = f->cases[k].nobs > most ? f->cases[k].nobs : most;
    double *tmp = malloc(most * sizeof *tmp), *lx = malloc(most * sizeof *lx);
    double *sp = malloc((f->ncases ? f->ncases : 1) * sizeof *sp);
    if (!tmp || !lx || !sp) {
        free(tmp), free(lx), free(sp);
        return GB_FAIL(GB_ENOMEM, "%zu values", most);
    }
    f->pooled = pooled_spread(f, lx, sp);
    free(sp);
    f->unjudged = f->flagged_cases = f->flagged_members = f->flagged_nodes = f->deviating = 0;
    for (size_t m = 0; m < f->nmembers; m++) {
        struct gb_fleet_member *mb = &f->members[m];
        mb->nflagged = mb->ndeviating = mb->shift_cases = 0;
        mb->worst = mb->worst_dev = mb->shift = NAN;
        mb->shift_low = mb->outlier = false;
    }
    int jrc = 0;
    for (size_t k = 0; k < f->ncases && !jrc; k++)
        jrc = judge_case(f, &f->cases[k], tmp, lx, f->pooled);
    free(tmp);
    free(lx);
    if (!jrc)
        jrc = node_shifts(f);
    if (jrc)
        return jrc;
    for (size_t m = 0; m < f->nmembers; m++)
        f->members[m].outlier = f->members[m].nflagged > 0 || f->members[m].shift_low;
    /* The members by severity. */
    free(f->rank);
    f->rank = malloc((f->nmembers ? f->nmembers : 1) * sizeof *f->rank);
    if (!f->rank)
        return GB_FAIL(GB_ENOMEM, "%zu members", f->nmembers);
    for (size_t m = 0; m < f->nmembers; m++)
        f->rank[m] = m;
    rank_fleet = f;
    qsort(f->rank, f->nmembers, sizeof *f->rank, cmp_severity);
    rank_fleet = NULL;
    /* Members, then nodes (files) with an outlier. */
    uint32_t last_file = UINT32_MAX;
    for (size_t m = 0; m < f->nmembers; m++) {
        if (!f->members[m].outlier)
            continue;
        f->flagged_members++;
        if (f->members[m].file != last_file)
            f->flagged_nodes++;
        last_file = f->members[m].file;
    }
    /* Hosts named by more than one file: their members are labelled by file name. */
    struct gb_strtab hosts = {0};
    size_t *count = calloc(f->nfiles, sizeof *count);
    size_t *which = calloc(f->nfiles, sizeof *which);
    int rc = 0;
    if (!count || !which) {
        rc = GB_FAIL(GB_ENOMEM, "%zu files", f->nfiles);
    } else {
        for (size_t i = 0; i < f->nfiles && !rc; i++) {
            long h = gb_strtab_intern(&hosts, f->files[i].host, NULL);
            if (h < 0)
                rc = (int)h;
            else
                count[which[i] = (size_t)h]++;
        }
        for (size_t i = 0; i < f->nfiles && !rc; i++)
            f->files[i].host_shared = count[which[i]] > 1;
    }
    free(count);
    free(which);
    gb_strtab_free(&hosts);

    f->notes[0] = '\0';
    if (f->skipped)
        gb_append_line(f->notes, sizeof f->notes, "%s", f->skips);
    if (f->other_sha)
        gb_append_line(f->notes, sizeof f->notes,
                       "%zu of %zu files ran another profile (sha256) than the first: a node may "
                       "differ because it ran something else",
                       f->other_sha, f->nfiles);
    if (f->other_version)
        gb_append_line(f->notes, sizeof f->notes,
                       "%zu of %zu files were written by another gpubench version than the first",
                       f->other_version, f->nfiles);
    if (f->interrupted)
        gb_append_line(f->notes, sizeof f->notes,
                       "%zu file%s from an interrupted run (their finished cases count)",
                       f->interrupted, f->interrupted == 1 ? " is" : "s are");
    if (f->deviating)
        gb_append_line(f->notes, sizeof f->notes,
                       "%zu figure%s beyond the fleet's spread in cases without calibrated "
                       "run-to-run noise (no expectations of 3 runs for the model): listed as "
                       "\"deviates\", no outlier by %s; the node shift judges the node",
                       f->deviating, f->deviating == 1 ? " is" : "s are",
                       f->deviating == 1 ? "itself" : "themselves");
    if (f->shift_short)
        gb_append_line(f->notes, sizeof f->notes,
                       "%zu member%s fewer than %d judged cases without calibrated noise: no node "
                       "shift, not judged as a whole",
                       f->shift_short, f->shift_short == 1 ? " has" : "s have",
                       GB_FLEET_SHIFT_MIN_CASES);
    if (f->shift_members && f->shift_members < 3)
        gb_append_line(f->notes, sizeof f->notes,
                       "%zu member%s a node shift: fewer than 3, no member judged by it",
                       f->shift_members, f->shift_members == 1 ? " has" : "s have");
    f->left_out[0] = '\0';
    for (size_t i = 0; i < f->ncases; i++) {
        const struct gb_fleet_case *c = &f->cases[i];
        char title[1024];
        gb_case_title(c->suite, c->case_name, c->params, c->device, title, sizeof title);
        gb_case_left_out_note(f->left_out, sizeof f->left_out, c->left_out, title, c->left_why);
    }
    if (f->left_out[0])
        gb_append_line(f->notes, sizeof f->notes, "%.*s", (int)strlen(f->left_out) - 1,
                       f->left_out);
    if (f->duplicates)
        gb_append_line(f->notes, sizeof f->notes,
                       "%zu figure%s measured twice in one file: the first of each counts",
                       f->duplicates, f->duplicates == 1 ? "" : "s");
    return rc;
}

void gb_fleet_free(struct gb_fleet *f)
{
    for (size_t i = 0; i < f->nfiles; i++) {
        free(f->files[i].path);
        free(f->files[i].host);
    }
    free(f->files);
    free(f->members);
    free(f->rank);
    for (size_t k = 0; k < f->ncases; k++)
        free_case(&f->cases[k]);
    free(f->cases);
    gb_strtab_free(&f->keys);
    memset(f, 0, sizeof *f);
}

char *gb_fleet_member_label(const struct gb_fleet *f, size_t m, char *buf, size_t len)
{
    const struct gb_fleet_member *mb = &f->members[m];
    const struct gb_fleet_file *fl = &f->files[mb->file];
    if (fl->host_shared) {
        const char *base = strrchr(fl->path, '/');
        base = base ? base + 1 : fl->path;
        size_t l = strlen(base);
        if (l > 5 && strcmp(base + l - 5, ".json") == 0)
            l -= 5;
        snprintf(buf, len, "%.*s", (int)l, base);
    } else {
        snprintf(buf, len, "%s", fl->host);
    }
    if (mb->slot[0])
        gb_appendf(buf, len, "/%s", mb->slot);
    return buf;
}

/* ---- outputs -------------------------------------------------------------------------------- */
