/* gpubench — fleet's own outputs: text, Markdown and JSON (gpubench-fleet/1) of the fleet view
 * (analyses/fleet.h; contract in outputs/fleet_out.h). */
#include "outputs/fleet_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"

/* 1 / Phi^-1(3/4): 1.4826 x MAD estimates the standard deviation of normal data. */
#define MAD_SCALE 1.4826

/* The modified z-score of v: (v - median) / (1.4826 MAD); +-inf when the MAD is 0. */
static double robust_z(const struct gb_fleet_case *c, double v)
{
    double d = v - c->median;
    if (c->mad > 0)
        return d / (MAD_SCALE * c->mad);
    return d == 0 ? 0.0 : d > 0 ? INFINITY : -INFINITY;
}

static void fmt_z(double z, char *buf, size_t len)
{
    if (isnan(z))
        snprintf(buf, len, "-");
    else if (isinf(z))
        snprintf(buf, len, "%sinf", z < 0 ? "-" : "+");
    else
        snprintf(buf, len, "%+.1f", z);
}

static void case_title(const struct gb_fleet_case *c, char *buf, size_t len)
{
    gb_case_title(c->suite, c->case_name, c->params, c->device, buf, len);
}

static void rule_text(const struct gb_fleet *f, char *buf, size_t len)
{
    snprintf(buf, len,
             "a node is an outlier in a case when its distance from the median (in log "
             "performance) is beyond the case's run-to-run noise: the range of its reference "
             "runs (expectations) where they have it, else %g x b_n 1.4826 x MAD of the fleet "
             "(modified z-score, Iglewicz & Hoaglin), at least the typical case's (%.1f%%); "
             "and more than %g%% from it; where no expectations calibrate the case, it only "
             "deviates (listed, no outlier by itself) and the node is judged by its shift, the "
             "median over its cases (%d at least) of ln(value / median): LOW when more than "
             "max(%g x 1.4826 x MAD of the nodes' shifts, ln %.2f) below the median node's; a "
             "case failed on a node and ok elsewhere flags the node; cases with fewer than 3 "
             "nodes ok are not judged",
             f->opts.k, 100.0 * f->pooled, 100.0 * f->opts.min_deviation, GB_FLEET_SHIFT_MIN_CASES,
             f->opts.k, GB_FLEET_SHIFT_FLOOR);
}

/* What makes member m an outlier, for its row and the verdict: "3 cases", "shift -30.2% over 24
 * cases", or both. */
static void outlier_text(const struct gb_fleet_member *mb, char *buf, size_t len)
{
    buf[0] = '\0';
    if (mb->nflagged)
        gb_appendf(buf, len, "%zu case%s", mb->nflagged, mb->nflagged == 1 ? "" : "s");
    if (mb->shift_low) {
        char p[32];
        gb__fmt_pct(mb->shift - 1.0, p, sizeof p);
        gb_appendf(buf, len, "%sshift %s over %zu cases", buf[0] ? ", " : "", p, mb->shift_cases);
    }
}

/* The node shift's line of the text and Markdown: the median node and the limit. */
static void shift_text(const struct gb_fleet *f, char *buf, size_t len)
{
    char a[32], b[32];
    if (isnan(f->shift_median)) {
        snprintf(buf, len,
                 "node shift: not judged (%zu member%s with %d or more judged cases without "
                 "calibrated noise; 3 needed)",
                 f->shift_members, f->shift_members == 1 ? "" : "s", GB_FLEET_SHIFT_MIN_CASES);
        return;
    }
    gb__fmt_pct(f->shift_median - 1.0, a, sizeof a);
    gb__fmt_pct(1.0 / f->shift_limit - 1.0, b, sizeof b);
    snprintf(buf, len, "node shift over %zu members: median %s, LOW below %s of it",
             f->shift_members, a, b);
}

static void head_text(const struct gb_fleet *f, char *buf, size_t len)
{
    snprintf(buf, len,
             "%zu file%s, %zu member%s (a node, or one of its devices), %zu case%s (%zu not "
             "judged)",
             f->nfiles, f->nfiles == 1 ? "" : "s", f->nmembers, f->nmembers == 1 ? "" : "s",
             f->ncases, f->ncases == 1 ? "" : "s", f->unjudged);
}

static void spread_text(const struct gb_fleet_case *c, char *buf, size_t len)
{
    if (c->nok && c->median != 0)
        snprintf(buf, len, "%.1f%%", 100.0 * MAD_SCALE * c->mad / fabs(c->median));
    else
        snprintf(buf, len, "-");
}

static void each_note(const char *notes, void (*fn)(FILE *, const char *), FILE *out)
{
    for (const char *p = notes; *p;) {
        size_t l = strcspn(p, "\n");
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)l, p);
        fn(out, line);
        p += l + (p[l] == '\n');
    }
}

static void note_text(FILE *out, const char *line)
{
    fprintf(out, "  %s\n", line);
}

static void note_md(FILE *out, const char *line)
{
    fputs("- ", out);
    gb_fputs_md(out, line);
    fputc('\n', out);
}

int gb_fleet_write_text(FILE *out, const struct gb_fleet *f, bool all)
{
    char buf[1024], t[1024], lab[512], a[32], b[32], c3[32], d[32], e[32];
    head_text(f, buf, sizeof buf);
    fprintf(out, "fleet: %s\n", buf);
    rule_text(f, buf, sizeof buf);
    fprintf(out, "rule: %s\n", buf);
    if (f->notes[0]) {
        fprintf(out, "notes:\n");
        each_note(f->notes, note_text, out);
    }
    /* The node and case columns as wide as their widest entry (at most 64 and 120), so that
     * the tables stay straight whatever the names. */
    int wn = 4, wt = 4;
    for (size_t m = 0; m < f->nmembers; m++) {
        gb_fleet_member_label(f, m, lab, sizeof lab);
        wn = gb_col_width(wn, lab, 64);
    }
    for (size_t k = 0; k < f->ncases; k++) {
        case_title(&f->cases[k], t, sizeof t);
        wt = gb_col_width(wt, t, 120);
    }
    fprintf(out, "\n%zu outlier node%s", f->flagged_nodes, f->flagged_nodes == 1 ? "" : "s");
    if (f->flagged_nodes) {
        fprintf(out, " (%zu member%s, in %zu case%s):\n", f->flagged_members,
                f->flagged_members == 1 ? "" : "s", f->flagged_cases,
                f->flagged_cases == 1 ? "" : "s");
        fprintf(out, "  %-*s %6s  %s\n", wn, "node", "cases", "worst");
        for (size_t q = 0; q < f->nmembers; q++) {
            size_t m = f->rank ? f->rank[q] : q; /* most severe first */
            const struct gb_fleet_member *mb = &f->members[m];
            if (!mb->outlier)
                continue;
            gb_fleet_member_label(f, m, lab, sizeof lab);
            if (mb->nflagged) {
                case_title(&f->cases[mb->worst_case], t, sizeof t);
                if (isnan(mb->worst))
                    snprintf(a, sizeof a, "FAILED");
                else
                    gb__fmt_pct(mb->worst, a, sizeof a);
                fprintf(out, "  %-*s %6zu  %s %s\n", wn, lab, mb->nflagged, a, t);
            }
            if (mb->shift_low) {
                gb__fmt_pct(mb->shift - 1.0, a, sizeof a);
                fprintf(out, "  %-*s %6zu  %s LOW: node shift over %zu cases\n", wn,
                        mb->nflagged ? "" : lab, mb->nflagged, a, mb->shift_cases);
            }
            if (mb->health[0]) /* what the driver said: the likely cause */
                fprintf(out, "  %-*s         health: %s\n", wn, "", mb->health);
        }
    } else {
        fprintf(out, "\n");
    }
    shift_text(f, buf, sizeof buf);
    fprintf(out, "%s\n", buf);
    if (f->deviating) {
        fprintf(out,
                "\n%zu figure%s deviate%s in cases without calibrated noise (listed, no outlier by "
                "itself):\n  %-*s %6s  %s\n",
                f->deviating, f->deviating == 1 ? "" : "s", f->deviating == 1 ? "s" : "", wn,
                "node", "cases", "worst");
        for (size_t m = 0; m < f->nmembers; m++) {
            const struct gb_fleet_member *mb = &f->members[m];
            if (!mb->ndeviating)
                continue;
            gb_fleet_member_label(f, m, lab, sizeof lab);
            case_title(&f->cases[mb->worst_dev_case], t, sizeof t);
            gb__fmt_pct(mb->worst_dev, a, sizeof a);
            fprintf(out, "  %-*s %6zu  %s %s\n", wn, lab, mb->ndeviating, a, t);
        }
    }
    fprintf(out, "\n%-*s %-8s %5s %10s %7s %10s %10s %8s\n", wt, "case", "unit", "nodes", "median",
            "spread", "min", "max", "outliers");
    for (size_t k = 0; k < f->ncases; k++) {
        const struct gb_fleet_case *c = &f->cases[k];
        case_title(c, t, sizeof t);
        gb__fmt_num(c->median, a, sizeof a);
        spread_text(c, b, sizeof b);
        gb__fmt_num(c->min, c3, sizeof c3);
        gb__fmt_num(c->max, d, sizeof d);
        fprintf(out, "%-*s %-8s %5zu %10s %7s %10s %10s %8zu%s\n", wt, t, c->unit, c->nok, a, b, c3,
                d, c->noutliers, c->nok < 3 ? "  (not judged)" : "");
    }
    for (size_t k = 0; k < f->ncases; k++) {
        const struct gb_fleet_case *c = &f->cases[k];
        if (!all && !c->noutliers && !c->ndeviating)
            continue;
        case_title(c, t, sizeof t);
        gb__fmt_num(c->median, a, sizeof a);
        spread_text(c, b, sizeof b);
        fprintf(out, "\n%s (%s, %s is better): %zu nodes, median %s, spread %s\n", t, c->unit,
                c->better == GB_BETTER_LOWER ? "lower" : "higher", c->nok, a, b);
        fprintf(out, "  %-*s %12s %10s %8s\n", wn, "node", "value", "deviation", "z");
        for (size_t i = 0; i < c->nobs; i++) {
            const struct gb_fleet_obs *o = &c->obs[i];
            gb_fleet_member_label(f, o->member, lab, sizeof lab);
            bool ok = o->status == GB_STATUS_OK;
            gb__fmt_num(o->value, a, sizeof a);
            gb__fmt_pct(ok ? o->value / c->median - 1.0 : NAN, e, sizeof e);
            fmt_z(ok && c->nok ? robust_z(c, o->value) : NAN, d, sizeof d);
            fprintf(out, "  %-*s %12s %10s %8s  %s\n", wn, lab, ok ? a : "failed", e, d,
                    gb_fleet_flag_name((enum gb_fleet_flag)o->flag));
        }
    }
    /* The verdict last, as compare's. */
    if (f->flagged_nodes) {
        size_t top = f->rank ? f->rank[0] : 0;
        outlier_text(&f->members[top], buf, sizeof buf);
        fprintf(out, "\n%zu outlier node%s of %zu, the worst %s (%s) (exit 3)\n", f->flagged_nodes,
                f->flagged_nodes == 1 ? "" : "s", f->nfiles,
                gb_fleet_member_label(f, top, lab, sizeof lab), buf);
    } else {
        fprintf(out, "\nno outlier node of %zu (exit 0)\n", f->nfiles);
    }
    return ferror(out) ? GB_FAIL(GB_EIO, "writing the fleet view") : 0;
}

int gb_fleet_write_markdown(FILE *out, const struct gb_fleet *f, bool all)
{
    char buf[1024], t[1024], lab[512], a[32], b[32], c3[32], d[32], e[32];
    fprintf(out, "# gpubench fleet\n\n");
    head_text(f, buf, sizeof buf);
    fprintf(out, "%s.\n\nRule: %s.\n\n", buf, (rule_text(f, t, sizeof t), t));
    shift_text(f, buf, sizeof buf);
    fprintf(out, "%s.\n\n", buf);
    if (f->notes[0]) {
        each_note(f->notes, note_md, out);
        fputc('\n', out);
    }
    fprintf(out, "## Outlier nodes\n\n");
    if (!f->flagged_nodes) {
        fprintf(out, "None.\n\n");
    } else {
        fprintf(out, "| node | cases | worst | in case | health |\n|---|---:|---:|---|---|\n");
        for (size_t q = 0; q < f->nmembers; q++) {
            size_t m = f->rank ? f->rank[q] : q; /* most severe first */
            const struct gb_fleet_member *mb = &f->members[m];
            if (!mb->outlier)
                continue;
            gb_fleet_member_label(f, m, lab, sizeof lab);
            if (mb->nflagged) {
                case_title(&f->cases[mb->worst_case], t, sizeof t);
            } else {
                snprintf(t, sizeof t, "LOW: node shift over %zu cases", mb->shift_cases);
            }
            if (!mb->nflagged)
                gb__fmt_pct(mb->shift - 1.0, a, sizeof a);
            else if (isnan(mb->worst))
                snprintf(a, sizeof a, "FAILED");
            else
                gb__fmt_pct(mb->worst, a, sizeof a);
            fputs("| ", out);
            gb_fputs_md(out, lab);
            fprintf(out, " | %zu | %s | ", mb->nflagged, a);
            gb_fputs_md(out, t);
            fputs(" | ", out);
            gb_fputs_md(out, mb->health);
            fputs(" |\n", out);
        }
        fputc('\n', out);
    }
    fprintf(out, "## Cases\n\n| case | unit | nodes | median | spread | min | max | outliers |\n"
                 "|---|---|---:|---:|---:|---:|---:|---:|\n");
    for (size_t k = 0; k < f->ncases; k++) {
        const struct gb_fleet_case *c = &f->cases[k];
        case_title(c, t, sizeof t);
        gb__fmt_num(c->median, a, sizeof a);
        spread_text(c, b, sizeof b);
        gb__fmt_num(c->min, c3, sizeof c3);
        gb__fmt_num(c->max, d, sizeof d);
        fputs("| ", out);
        gb_fputs_md(out, t);
        fputs(" | ", out);
        gb_fputs_md(out, c->unit);
        fprintf(out, " | %zu | %s | %s | %s | %s | %zu%s |\n", c->nok, a, b, c3, d, c->noutliers,
                c->nok < 3 ? " (not judged)" : "");
    }
    for (size_t k = 0; k < f->ncases; k++) {
        const struct gb_fleet_case *c = &f->cases[k];
        if (!all && !c->noutliers && !c->ndeviating)
            continue;
        case_title(c, t, sizeof t);
        gb__fmt_num(c->median, a, sizeof a);
        spread_text(c, b, sizeof b);
        fputs("\n### ", out);
        gb_fputs_md(out, t);
        fputs("\n\n", out);
        fprintf(out, "%zu nodes, median %s ", c->nok, a);
        gb_fputs_md(out, c->unit);
        fprintf(out,
                " (%s is better), spread %s.\n\n| node | value | deviation | z | flag |\n"
                "|---|---:|---:|---:|---|\n",
                c->better == GB_BETTER_LOWER ? "lower" : "higher", b);
        for (size_t i = 0; i < c->nobs; i++) {
            const struct gb_fleet_obs *o = &c->obs[i];
            gb_fleet_member_label(f, o->member, lab, sizeof lab);
            bool ok = o->status == GB_STATUS_OK;
            gb__fmt_num(o->value, a, sizeof a);
            gb__fmt_pct(ok ? o->value / c->median - 1.0 : NAN, e, sizeof e);
            fmt_z(ok && c->nok ? robust_z(c, o->value) : NAN, d, sizeof d);
            fputs("| ", out);
            gb_fputs_md(out, lab);
            fprintf(out, " | %s | %s | %s | %s |\n", ok ? a : "failed", e, d,
                    gb_fleet_flag_name((enum gb_fleet_flag)o->flag));
        }
    }
    return ferror(out) ? GB_FAIL(GB_EIO, "writing the fleet view") : 0;
}

int gb_fleet_write_json(FILE *out, const struct gb_fleet *f)
{
    char lab[512];
    fputs("{\"schema\": \"gpubench-fleet/1\",\n \"rule\": {\"k\": ", out);
    gb_fput_json_num(out, f->opts.k);
    fputs(", \"min_deviation\": ", out);
    gb_fput_json_num(out, f->opts.min_deviation);
    fprintf(out, ", \"min_nodes\": 3, \"shift_min_cases\": %d, \"shift_floor\": ",
            GB_FLEET_SHIFT_MIN_CASES);
    gb_fput_json_num(out, GB_FLEET_SHIFT_FLOOR);
    fputs(", \"shift_median\": ", out);
    gb_fput_json_num(out, isnan(f->shift_median) ? NAN : f->shift_median - 1.0);
    fputs(", \"shift_limit\": ", out);
    gb_fput_json_num(out, isnan(f->shift_limit) ? NAN : 1.0 / f->shift_limit - 1.0);
    fprintf(out,
            "},\n \"files\": %zu, \"cases_not_judged\": %zu, "
            "\"outlier_nodes\": %zu,\n \"nodes\": [",
            f->nfiles, f->unjudged, f->flagged_nodes);
    for (size_t m = 0; m < f->nmembers; m++) {
        const struct gb_fleet_member *mb = &f->members[m];
        const struct gb_fleet_file *fl = &f->files[mb->file];
        fprintf(out, "%s\n  {\"node\": %zu, \"label\": ", m ? "," : "", m);
        gb_fputs_json(out, gb_fleet_member_label(f, m, lab, sizeof lab));
        fputs(", \"host\": ", out);
        gb_fputs_json(out, fl->host);
        fputs(", \"file\": ", out);
        gb_fputs_json(out, fl->path);
        fputs(", \"slot\": ", out);
        gb_fputs_json(out, mb->slot);
        fputs(", \"start_utc\": ", out);
        gb_fputs_json(out, fl->start_utc);
        fputs(", \"health\": ", out);
        gb_fputs_json(out, mb->health);
        fprintf(out,
                ", \"outlier_cases\": %zu, \"deviating_cases\": %zu, \"shift_cases\": %zu, "
                "\"shift\": ",
                mb->nflagged, mb->ndeviating, mb->shift_cases);
        gb_fput_json_num(out, isnan(mb->shift) ? NAN : mb->shift - 1.0);
        fprintf(out, ", \"shift_low\": %s, \"outlier\": %s}", mb->shift_low ? "true" : "false",
                mb->outlier ? "true" : "false");
    }
    fputs("],\n \"cases\": [", out);
    for (size_t k = 0; k < f->ncases; k++) {
        const struct gb_fleet_case *c = &f->cases[k];
        fprintf(out, "%s\n  {\"suite\": ", k ? "," : "");
        gb_fputs_json(out, c->suite);
        fputs(", \"case\": ", out);
        gb_fputs_json(out, c->case_name);
        fputs(", \"params\": ", out);
        gb_fputs_json(out, c->params);
        fputs(", \"device\": ", out);
        gb_fputs_json(out, c->device);
        fputs(", \"metric\": ", out);
        gb_fputs_json(out, c->metric);
        fputs(", \"unit\": ", out);
        gb_fputs_json(out, c->unit);
        fprintf(out,
                ", \"better\": \"%s\", \"nodes_ok\": %zu, \"nodes_failed\": %zu, "
                "\"judged\": %s, \"median\": ",
                c->better == GB_BETTER_LOWER ? "lower" : "higher", c->nok, c->nfailed,
                c->nok >= 3 ? "true" : "false");
        gb_fput_json_num(out, c->median);
        fputs(", \"mad\": ", out);
        gb_fput_json_num(out, c->mad);
        fputs(", \"min\": ", out);
        gb_fput_json_num(out, c->min);
        fputs(", \"max\": ", out);
        gb_fput_json_num(out, c->max);
        fprintf(out, ", \"outliers\": %zu,\n   \"values\": [", c->noutliers);
        for (size_t i = 0; i < c->nobs; i++) {
            const struct gb_fleet_obs *o = &c->obs[i];
            bool ok = o->status == GB_STATUS_OK;
            fprintf(out, "%s{\"node\": %u, \"value\": ", i ? ", " : "", o->member);
            gb_fput_json_num(out, o->value);
            fputs(", \"deviation\": ", out);
            gb_fput_json_num(out, ok ? o->value / c->median - 1.0 : NAN);
            fputs(", \"z\": ", out);
            gb_fput_json_num(out, ok && c->nok ? robust_z(c, o->value) : NAN);
            fprintf(out, ", \"flag\": \"%s\"}",
                    o->flag == GB_FLEET_SLOW       ? "slow"
                    : o->flag == GB_FLEET_FAST     ? "fast"
                    : o->flag == GB_FLEET_FAILED   ? "failed"
                    : o->flag == GB_FLEET_LOW      ? "low"
                    : o->flag == GB_FLEET_UNJUDGED ? "not judged"
                    : o->flag == GB_FLEET_DEVIATES ? "deviates"
                                                   : "ok");
        }
        fputs("]}", out);
    }
    fputs("],\n \"notes\": [", out);
    size_t nn = 0;
    for (const char *p = f->notes; *p;) {
        size_t l = strcspn(p, "\n");
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)l, p);
        fputs(nn++ ? ", " : "", out);
        gb_fputs_json(out, line);
        p += l + (p[l] == '\n');
    }
    fputs("]}\n", out);
    return ferror(out) ? GB_FAIL(GB_EIO, "writing the fleet view") : 0;
}
