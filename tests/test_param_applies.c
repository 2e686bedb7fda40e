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
