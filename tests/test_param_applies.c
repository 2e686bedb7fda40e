/* The params a case does not read are left out of what people read, suite by suite (each suite's
 * axis_applies, through gb_suite_param_applies and gb_params_for_people): collective's redop and
 * root, concurrency's size, items and iters, memory's vec and config, peerbw's src, dst and size,
 * scaling's mode on one device, tenants' aggressors, big_n and gemm_n, transfer's offset_side,
 * tuning's budget and seed, memtest's seed; the cases that do read them keep them. A hook that
 * hides too much is caught by the same table; a real run's summary leaves them blank while its
 * results keep every param. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "outputs/summary_out.h"
#include "outputs/writer.h"
#include "results/results.h"
#include "run/suite.h"
#include "suites/suites.h"
#include "test.h"

/* A case's params as its results record them (every axis, values normalize gave), and what
 * people read of them. */
struct row {
    const char *suite, *params, *shown;
};

static const struct row rows[] = {
    /* collective: redop only where the collective reduces, root only where it has one */
    {"collective",
     "coll=allgather transport=devices dtype=f32 redop=sum inplace=false root=0 size=1024",
     "coll=allgather transport=devices dtype=f32 inplace=false size=1024"},
    {"collective", "coll=alltoall redop=sum root=0", "coll=alltoall"},
    {"collective", "coll=broadcast redop=sum root=1", "coll=broadcast root=1"},
    {"collective", "coll=allreduce redop=max root=0", "coll=allreduce redop=max"},
    {"collective", "coll=reduce redop=max root=1", "coll=reduce redop=max root=1"},
    {"collective", "coll=reducescatter redop=sum root=0", "coll=reducescatter redop=sum"},
    {"collective", "coll=sendrecv redop=sum root=0", "coll=sendrecv"},
    /* concurrency: size for triad, items and iters for chain and priority */
    {"concurrency", "kernel=tick queues=2 size=16777216 items=65536 iters=1024",
     "kernel=tick queues=2"},
    {"concurrency", "kernel=triad queues=2 size=4096 items=65536 iters=1024",
     "kernel=triad queues=2 size=4096"},
    {"concurrency", "kernel=chain queues=2 size=16777216 items=64 iters=8",
     "kernel=chain queues=2 items=64 iters=8"},
    {"concurrency", "kernel=priority queues=2 size=16777216 items=64 iters=8",
     "kernel=priority queues=2 items=64 iters=8"},
    /* memory: vec but for dot, config for dot */
    {"memory", "op=dot type=float wg=256 size=0 vec=1 offset=0 config=auto",
     "op=dot type=float wg=256 size=0 offset=0 config=auto"},
    {"memory", "op=triad type=float wg=256 size=0 vec=4 offset=0 config=default",
     "op=triad type=float wg=256 size=0 vec=4 offset=0"},
    /* peerbw: the pair's ends, the root, and no size for the 4-byte latency */
    {"peerbw", "op=bidir method=ce src=0 dst=1 size=1024",
     "op=bidir method=ce src=0 dst=1 size=1024"},
    {"peerbw", "op=latency method=ce src=1 dst=0 size=4", "op=latency method=ce src=1 dst=0"},
    {"peerbw", "op=all_to_one method=sm src=2 dst=2 size=1024",
     "op=all_to_one method=sm dst=2 size=1024"},
    {"peerbw", "op=one_to_all method=ce src=1 dst=1 size=1024",
     "op=one_to_all method=ce src=1 size=1024"},
    {"peerbw", "op=all_to_all method=ce src=0 dst=0 size=1024",
     "op=all_to_all method=ce size=1024"},
    /* scaling: strong and weak are one job on one device; size and order 0 as before */
    {"scaling", "workload=triad mode=strong ndev=1 size=1024 order=0",
     "workload=triad ndev=1 size=1024"},
    {"scaling", "workload=sgemm mode=weak ndev=2 size=0 order=64",
     "workload=sgemm mode=weak ndev=2 order=64"},
    /* tenants: no aggressor, no aggressors' count or GEMM; gemm_n the gemm victim's */
    {"tenants", "victim=triad aggressor=none aggressors=1 size=4096 gemm_n=128 big_n=1024",
     "victim=triad size=4096"},
    {"tenants", "victim=gemm aggressor=triad aggressors=2 size=4096 gemm_n=64 big_n=1024",
     "victim=gemm aggressor=triad aggressors=2 size=4096 gemm_n=64 big_n=1024"},
    /* transfer: offset_side moves nothing without an offset */
    {"transfer", "op=h2d memory=pinned mode=async size=4096 offset=0 offset_side=both",
     "op=h2d memory=pinned mode=async size=4096 offset=0"},
    {"transfer", "op=h2d memory=pinned mode=async size=4096 offset=4 offset_side=dst",
     "op=h2d memory=pinned mode=async size=4096 offset=4 offset_side=dst"},
    /* tuning: an exhaustive search has no budget or seed */
    {"tuning", "kernel=dot size=4096 search=exhaustive budget=0 seed=0",
     "kernel=dot size=4096 search=exhaustive"},
    {"tuning", "kernel=dot size=4096 search=anneal budget=0 seed=3",
     "kernel=dot size=4096 search=anneal budget=0 seed=3"},
    /* memtest: the seed is pattern random's */
    {"memtest", "pattern=walking_ones fraction=0.1 cap=0 seed=1 budget=0",
     "pattern=walking_ones fraction=0.1 cap=0 budget=0"},
    {"memtest", "pattern=random fraction=0.1 cap=0 seed=7 budget=0",
     "pattern=random fraction=0.1 cap=0 seed=7 budget=0"},
    /* results without the deciding param keep everything */
    {"collective", "redop=max root=1", "redop=max root=1"},
    {"tuning", "budget=5 seed=2", "budget=5 seed=2"},
};
#define NROWS (sizeof rows / sizeof rows[0])

/* Results files from disk (compare, fleet, history, check read them): a deciding param missing,
 * of another type than its axis, empty, or a value the suite does not know hides nothing. */
static const struct row hostile[] = {
    {"collective", "coll=bogus redop=sum root=0", "coll=bogus redop=sum root=0"},
    {"collective", "coll= redop=sum root=0", "coll= redop=sum root=0"},
    {"concurrency", "kernel=bogus size=4096 items=64 iters=8",
     "kernel=bogus size=4096 items=64 iters=8"},
    {"concurrency", "size=4096 items=64 iters=8", "size=4096 items=64 iters=8"},
    {"memory", "op=bogus vec=4 config=auto", "op=bogus vec=4 config=auto"},
    {"memory", "op=DOT vec=4 config=auto", "op=DOT vec=4 config=auto"},
    {"memory", "vec=4 config=auto", "vec=4 config=auto"},
    {"peerbw", "op=bogus src=0 dst=1 size=4", "op=bogus src=0 dst=1 size=4"},
    {"peerbw", "src=0 dst=1 size=4", "src=0 dst=1 size=4"},
    {"scaling", "mode=strong ndev=one", "mode=strong ndev=one"},
    {"scaling", "mode=strong", "mode=strong"},
    {"tenants", "victim=bogus aggressor=bogus aggressors=2 gemm_n=64 big_n=1024",
     "victim=bogus aggressor=bogus aggressors=2 gemm_n=64 big_n=1024"},
    {"tenants", "aggressors=2 gemm_n=64 big_n=1024", "aggressors=2 gemm_n=64 big_n=1024"},
    {"transfer", "offset=4.5 offset_side=dst", "offset=4.5 offset_side=dst"},
    {"transfer", "offset=4KiB offset_side=dst", "offset=4KiB offset_side=dst"},
    {"transfer", "offset= offset_side=src", "offset= offset_side=src"},
    {"tuning", "search=bogus budget=5 seed=2", "search=bogus budget=5 seed=2"},
    {"memtest", "pattern=bogus seed=7", "pattern=bogus seed=7"},
    {"memtest", "pattern=RANDOM seed=7", "pattern=RANDOM seed=7"},
    {"memtest", "seed=7", "seed=7"},
};

TEST(param_applies_hides_nothing_where_the_deciding_param_is_missing_or_unknown)
{
    size_t wrong = 0;
    for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
        char buf[512];
        gb_params_for_people(hostile[i].suite, hostile[i].params, buf, sizeof buf);
        if (strcmp(buf, hostile[i].shown) != 0) {
            printf("%s %s: people read '%s'\n", hostile[i].suite, hostile[i].params, buf);
            wrong++;
        }
    }
    ASSERT_EQ(wrong, 0);
}

/* The params of text "k=v ..." into p, each typed as the axis of s of its name takes it. */
static void params_of(const struct gb_suite *s, const char *text, struct gb_params *p)
{
    p->n = 0;
    for (const char *t = text; *t;) {
        t += strspn(t, " ");
        const size_t n = strcspn(t, " ");
        const char *eq = memchr(t, '=', n);
        ASSERT_MSG(eq, "no '=' in %.*s", (int)n, t);
        char name[GB_STR_MAX], val[GB_STR_MAX];
        snprintf(name, sizeof name, "%.*s", (int)(eq - t), t);
        snprintf(val, sizeof val, "%.*s", (int)(n - (size_t)(eq + 1 - t)), eq + 1);
        const struct gb_axis_def *a = gb_suite_axis(s, name);
        ASSERT_MSG(a, "%s has no axis %s", s->name, name);
        struct gb_value *v = &p->v[p->n];
        *v = (struct gb_value){.type = a->type};
        if (a->type == GB_V_INT)
            v->u.i = strtoll(val, NULL, 10);
        else if (a->type == GB_V_SIZE)
            v->u.size = strtoull(val, NULL, 10);
        else if (a->type == GB_V_FLOAT)
            v->u.f = strtod(val, NULL);
        else if (a->type == GB_V_BOOL)
            v->u.b = strcmp(val, "true") == 0;
        else
            snprintf(v->s, sizeof v->s, "%s", val);
        p->name[p->n++] = a->name;
        t += n;
    }
}

/* The rows of suite s's name for which s (the built-in descriptor, or a copy with another hook)
 * keeps a different set of params than `shown` says, each named on stdout. */
static size_t wrong_rows(const struct gb_suite *s)
{
    size_t wrong = 0;
    for (size_t i = 0; i < NROWS; i++) {
        if (strcmp(rows[i].suite, s->name) != 0)
            continue;
        struct gb_params p;
        params_of(s, rows[i].params, &p);
        char kept[512] = "";
        for (size_t j = 0; j < p.n; j++)
            if (gb_suite_param_applies(s, &p, p.name[j], &p.v[j])) {
                char v[GB_STR_MAX + 32];
                if (p.v[j].type == GB_V_SIZE) /* as the table writes it: bytes */
                    snprintf(v, sizeof v, "%llu", (unsigned long long)p.v[j].u.size);
                else
                    gb_value_format(&p.v[j], v, sizeof v);
                gb_appendf(kept, sizeof kept, "%s%s=%s", kept[0] ? " " : "", p.name[j], v);
            }
        if (strcmp(kept, rows[i].shown) != 0) {
            printf("%s %s: keeps '%s', not '%s'\n", s->name, rows[i].params, kept, rows[i].shown);
            wrong++;
        }
    }
    return wrong;
}

TEST(param_applies_each_suite_shows_only_what_its_case_reads)
{
    for (size_t i = 0; i < NROWS; i++) {
        const struct gb_suite *s = gb_suite_table_find(gb_suites_builtin(), rows[i].suite);
        ASSERT_MSG(s && s->axis_applies, "%s: no suite with an axis_applies", rows[i].suite);
        char buf[512];
        gb_params_for_people(rows[i].suite, rows[i].params, buf, sizeof buf);
        ASSERT_MSG(strcmp(buf, rows[i].shown) == 0, "%s %s: people read '%s', not '%s'",
                   rows[i].suite, rows[i].params, buf, rows[i].shown);
        ASSERT_EQ(wrong_rows(s), 0);
    }
}

/* A hook that hides a param its case reads: collective's, hiding redop from every collective
 * (allreduce, reduce and reducescatter reduce by it). */
static bool over_eager(const struct gb_params *p, const char *axis)
{
    return strcmp(axis, "redop") != 0 &&
           gb_suite_table_find(gb_suites_builtin(), "collective")->axis_applies(p, axis);
}

/* The table catches it: the rows of a reducing collective (and the one without a collective) no
 * longer read as they should. No hook at all is caught by every row that hides something. */
TEST(param_applies_over_eager_or_missing_hook_is_caught)
{
    struct gb_suite s = *gb_suite_table_find(gb_suites_builtin(), "collective");
    ASSERT_EQ(wrong_rows(&s), 0);
    s.axis_applies = over_eager;
    ASSERT_EQ(wrong_rows(&s), 4); /* allreduce, reduce, reducescatter, no coll */
    s.axis_applies = NULL;
    ASSERT_EQ(wrong_rows(&s), 6); /* all but reduce and the one without a collective */
}

static char out[1 << 16];
#define sh(...) gb_test_shf(out, sizeof out, __VA_ARGS__)

/* Asserts that in the text summary `text`, the table titled `title`... has, in column `col`, the
 * cell `want` ("" blank) on every row whose case is `kase` (and that there is one). The cell: the
 * row's text under the header's column, from the space before its name to the next column. */
static void text_cells(const char *text, const char *title, const char *kase, const char *col,
                       const char *want)
{
    const char *t = strstr(text, title);
    ASSERT_MSG(t, "no table '%s' in:\n%s", title, text);
    const char *h = strchr(t, '\n');
    ASSERT(h);
    h++;
    const size_t hl = strcspn(h, "\n"), cl = strlen(col);
    size_t at = 0;
    for (size_t i = 1; i + cl < hl && !at; i++)
        if (h[i - 1] == ' ' && h[i + cl] == ' ' && strncmp(h + i, col, cl) == 0)
            at = i;
    ASSERT_MSG(at, "no column %s in '%.*s'", col, (int)hl, h);
    size_t next = at + cl;
    while (next < hl && h[next] == ' ')
        next++;
    size_t nrows = 0;
    for (const char *l = h + hl + 1; *l && *l != '\n' && *l != ' ';) {
        const size_t ll = strcspn(l, "\n");
        if (strncmp(l, kase, strlen(kase)) == 0 && l[strlen(kase)] == ' ') {
            char cell[128] = "";
            if (ll > at - 1) {
                size_t b = at - 1, e = next - 1 < ll ? next - 1 : ll;
                while (b < e && l[b] == ' ')
                    b++;
                while (e > b && l[e - 1] == ' ')
                    e--;
                snprintf(cell, sizeof cell, "%.*s", (int)(e - b), l + b);
            }
            ASSERT_MSG(strcmp(cell, want) == 0, "%s %s: %s reads '%s', not '%s'", title, kase, col,
                       cell, want);
            nrows++;
        }
        l += ll + (l[ll] == '\n');
    }
    ASSERT_MSG(nrows, "no row %s under '%s'", kase, title);
}

/* Asserts that CSV `csv` (the run's -f csv: a header, then a row per result, no quoted field
 * before the params) has `want` in column `col` of every row of suite and case kase. */
static void csv_cells(const char *csv, const char *suite, const char *kase, const char *col,
                      const char *want)
{
    char head[1024];
    snprintf(head, sizeof head, "%.*s", (int)strcspn(csv, "\n"), csv);
    int want_at = -1, k = 0;
    for (char *f = strtok(head, ","); f; f = strtok(NULL, ","), k++)
        if (strcmp(f, col) == 0)
            want_at = k;
    ASSERT_MSG(want_at >= 0, "no column %s in %s", col, head);
    char lead[128];
    snprintf(lead, sizeof lead, "result,%s,%s,", suite, kase);
    size_t nrows = 0;
    for (const char *l = strstr(csv, lead); l; l = strstr(l + 1, lead)) {
        const char *f = l;
        for (int i = 0; i < want_at; i++)
            f += strcspn(f, ",\n") + 1;
        char cell[128];
        snprintf(cell, sizeof cell, "%.*s", (int)strcspn(f, ",\n"), f);
        ASSERT_MSG(strcmp(cell, want) == 0, "csv %s %s: %s reads '%s', not '%s'", suite, kase, col,
                   cell, want);
        nrows++;
    }
    ASSERT_MSG(nrows, "no csv row %s", lead);
}

static const char run_profile[] =
    "measure: {min_samples: 2, max_samples: 2, max_time: 20ms, min_sample_time: 0, "
    "warmup_runs: 0, warmup_time: 0s}\n"
    "suites:\n"
    "  - suite: collective\n"
    "    params: {coll: [allgather, reduce], size: 1KiB}\n"
    "  - suite: memory\n"
    "    params: {op: [copy, dot], type: float, size: 64KiB}\n"
    "  - suite: concurrency\n"
    "    params: {kernel: [tick, triad], queues: 1, size: 64KiB}\n";

/* A real run on two PoCL devices: the run's text summary leaves blank what a case does not read
 * (allgather's redop and root, dot's vec, copy's config, tick's size) and shows what it does
 * (reduce's, copy's vec, dot's config, triad's size); the results file and the run's CSV keep
 * every param. */
TEST(param_applies_run_shows_them_blank_and_keeps_them_in_results)
{
    static const char env[] = "POCL_DEVICES='pthread pthread'";
    struct gb_test_devices d;
    gb_test_need_cli_devices(env, 2, &d);
    char prof[GB_PATH_JOIN], res[GB_PATH_JOIN];
    gb_test_profile_files("applies", run_profile, prof, res, sizeof prof);
    int rc = sh("%s %s run %s -o %s 2>/dev/null", env, GB_TEST_EXE, prof, res);
    ASSERT_MSG(rc == 0, "exit %d:\n%s", rc, out);
    printf("%s", out);
    static const char *const coll = "collective (", *mem = "memory (", *conc = "concurrency (";
    text_cells(out, coll, "allgather", "redop", "");
    text_cells(out, coll, "allgather", "root", "");
    text_cells(out, coll, "reduce", "redop", "sum");
    text_cells(out, coll, "reduce", "root", "0");
    text_cells(out, mem, "dot", "vec", "");
    text_cells(out, mem, "dot", "config", "auto");
    text_cells(out, mem, "copy", "vec", "0");
    text_cells(out, mem, "copy", "config", "");
    text_cells(out, conc, "tick", "size", "");
    text_cells(out, conc, "triad", "size", "64KiB");
    ASSERT(!strstr(out, "items") && !strstr(out, "iters")); /* applies to neither */

    struct gb_results rs;
    ASSERT_OK(gb_results_read(res, &rs));
    size_t seen = 0;
    for (size_t i = 0; i < rs.nresults; i++) {
        const struct gb_result *r = &rs.results[i];
        const struct gb_params *p = &r->params;
        if (strcmp(r->case_name, "allgather") == 0) {
            ASSERT_STR(gb_params_str(p, "redop"), "sum");
            ASSERT(gb_params_get(p, "root") && gb_params_int(p, "root") == 0);
            seen++;
        } else if (strcmp(r->case_name, "dot") == 0) {
            ASSERT_EQ(gb_params_int(p, "vec"), 1);
            seen++;
        } else if (strcmp(r->case_name, "tick") == 0) {
            ASSERT_EQ(gb_params_size(p, "size"), UINT64_C(16) << 20);
            ASSERT_EQ(gb_params_int(p, "items"), 65536);
            ASSERT_EQ(gb_params_int(p, "iters"), 1024);
            seen++;
        }
    }
    ASSERT_EQ(seen, 1 + 2 * (size_t)d.n); /* allgather; dot and tick on every device */
    gb_results_free(&rs);

    rc = sh("%s %s run %s -o %s -f csv 2>/dev/null", env, GB_TEST_EXE, prof, res);
    ASSERT_MSG(rc == 0, "exit %d:\n%s", rc, out);
    csv_cells(out, "collective", "allgather", "redop", "sum");
    csv_cells(out, "collective", "allgather", "root", "0");
    csv_cells(out, "memory", "dot", "vec", "1");
    csv_cells(out, "memory", "copy", "config", "default");
    csv_cells(out, "concurrency", "tick", "size", "16777216");
    csv_cells(out, "concurrency", "tick", "iters", "1024");
}
