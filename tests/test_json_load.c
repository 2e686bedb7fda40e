/* The results reader's parser (src/results/json_load.h: yajl's events into a jansson tree, with
 * members left out) against jansson's own parser, its errors, and its pruning; and the headline
 * read of a real run's file (gb_results_read_opts, GB_READ_HEADLINES) against the full read. */
#include "test.h"

#include <jansson.h>

#include "base/error.h"
#include "results/json_load.h"
#include "results/results.h"

static json_t *load(const char *text, gb_json_prune prune, json_error_t *e)
{
    return gb__json_loadb(text, strlen(text), prune, e);
}

/* Texts both parsers accept give equal trees (json_equal: same types, values, members). */
TEST(json_load_builds_what_jansson_builds)
{
    static const char *const texts[] = {
        "{}",
        "[]",
        "[1, -2, 0, 9223372036854775807, -9223372036854775808]",
        "[1.5, -0.25, 1e3, 2E-2, -0.0, 4.9406564584124654e-324, 1.7976931348623157e308]",
        "{\"a\": {\"b\": [true, false, null, {\"c\": []}]}, \"d\": \"x\"}",
        "{\"s\": \"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\\\ \\/ \\b\\f\\n\\r\\t\", \"\\u0074\": 1}",
        "  \n\t{ \"spaced\" :\n [ 1 ,2 ] }  \n",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        "{\"k\": \"\xe2\x82\xac \xf0\x9f\x98\x80\"}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        json_error_t e1, e2;
        json_t *a = load(texts[i], NULL, &e1);
        json_t *b = json_loadb(texts[i], strlen(texts[i]), JSON_REJECT_DUPLICATES, &e2);
        ASSERT_MSG(a, "%s: %s", texts[i], e1.text);
        ASSERT_MSG(b, "jansson: %s: %s", texts[i], e2.text);
        ASSERT_MSG(json_equal(a, b), "%s: trees differ", texts[i]);
        /* reals stay reals and integers integers (json_equal would not tell 1 from 1.0) */
        char *da = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY),
             *db = json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY);
        ASSERT_STR(da, db);
        free(da), free(db);
        json_decref(a), json_decref(b);
    }
}

/* Texts jansson refuses are refused, with where and why. */
TEST(json_load_refuses_what_jansson_refuses)
{
    static const struct {
        const char *text, *why;
        int line;
    } bad[] = {
        {"{\"a\": 1, \"a\": 2}", "duplicate object key \"a\"", 1},
        {"[1, 2", "", 1},
        {"{\"a\": }", "", 1},
        {"[92233720368547758070]", "too big integer", 1},
        {"[-92233720368547758070]", "too big negative integer", 1},
        {"[1e999]", "real number overflow", 1},
        {"[\"a\\u0000b\"]", "\\u0000", 1},
        {"{\"a\\u0000\": 1}", "\\u0000", 1},
        {"[1]\n[2]", "", 2},
        {"[1] x", "", 1},
        {"\"just a string\"", "'[' or '{' expected", 1},
        {"42", "'[' or '{' expected", 1},
        {"{\"a\": [1,\n  2,\n  ]}", "", 3},
        {"[\"\xff\"]", "", 1},
        {"// no comments\n[]", "", 1},
        {"[NaN]", "", 1},
        {"[01]", "", 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_error_t e, je;
        json_t *v = load(bad[i].text, NULL, &e);
        ASSERT_MSG(!v, "accepted: %s", bad[i].text);
        json_t *j = json_loadb(bad[i].text, strlen(bad[i].text), JSON_REJECT_DUPLICATES, &je);
        ASSERT_MSG(!j, "jansson accepts %s", bad[i].text);
        ASSERT_MSG(e.text[0], "%s: no message", bad[i].text);
        ASSERT_MSG(strstr(e.text, bad[i].why), "%s: \"%s\" lacks \"%s\"", bad[i].text, e.text,
                   bad[i].why);
        ASSERT_MSG(e.line == bad[i].line, "%s: line %d, expected %d (%s)", bad[i].text, e.line,
                   bad[i].line, e.text);
        ASSERT(e.column >= 1 && e.position >= 0 && (size_t)e.position <= strlen(bad[i].text));
    }
    /* Surrogate escapes not in a pair are refused, as jansson does (yajl alone read a lone one
     * as "?" and merged "\ud800\u0041" into U+10041, the A lost); a pair, and a backslash
     * escaped before "ud800", are text. */
    static const char *const sur[] = {"[\"\\ud800\"]",        "[\"\\udc00\"]",
                                      "[\"\\ud800\\u0041\"]", "[\"\\ud800\\ud800\"]",
                                      "[\"\\ud800\\u0000\"]", "{\"samples\": \"\\ud800x\"}"};
    json_error_t e;
    for (size_t i = 0; i < sizeof sur / sizeof sur[0]; i++) {
        ASSERT_MSG(!load(sur[i], NULL, &e), "accepted %s", sur[i]);
        ASSERT_CONTAINS(e.text, "surrogate");
        json_error_t je;
        ASSERT_MSG(!json_loadb(sur[i], strlen(sur[i]), 0, &je), "jansson accepts %s", sur[i]);
    }
    json_t *q = load("[\"\\ud83d\\ude00\", \"\\\\ud800\"]", NULL, &e);
    ASSERT_MSG(q, "%s", e.text);
    ASSERT_STR(json_string_value(json_array_get(q, 0)), "\xf0\x9f\x98\x80");
    ASSERT_STR(json_string_value(json_array_get(q, 1)), "\\ud800");
    json_decref(q);
    /* After the document only whitespace: a tail that opens a string and leaves it open (which
     * yajl alone accepted), or one stray byte, is refused where it starts, not called a
     * truncated file. */
    static const char *const tails[] = {"{\"a\": 1} \"x", "{\"a\": 1}\n\"\xff\xfe garbage",
                                        "{\"a\": 1}x", "[1]5", "[1] tru"};
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        ASSERT_MSG(!load(tails[i], NULL, &e), "accepted %s", tails[i]);
        ASSERT_MSG((size_t)e.position < strlen(tails[i]), "%s: at its end (%d)", tails[i],
                   e.position);
        json_error_t je;
        ASSERT_MSG(!json_loadb(tails[i], strlen(tails[i]), 0, &je), "jansson accepts %s", tails[i]);
    }
    q = load("{\"a\": 1}  \n\t ", NULL, &e);
    ASSERT_MSG(q, "%s", e.text);
    json_decref(q);
    /* A lexical error is placed at its byte. */
    ASSERT(!load("[1, x]", NULL, &e));
    ASSERT_EQ(e.column, 5);
    /* A text that ends early says so: the position is its end. */
    const char *t = "{\"a\": [1, 2, 3";
    ASSERT(!load(t, NULL, &e));
    ASSERT_EQ((size_t)e.position, strlen(t));
    /* Nesting: 2048 deep is read (jansson's limit), 2049 is refused, not a crash. */
    char *deep = malloc(2 * 2049 + 1);
    ASSERT(deep);
    for (size_t n = 2048; n <= 2049; n++) {
        memset(deep, '[', n);
        memset(deep + n, ']', n);
        deep[2 * n] = '\0';
        json_t *v = load(deep, NULL, &e);
        if (n == 2048) {
            ASSERT_MSG(v, "2048 deep: %s", e.text);
            json_decref(v);
        } else {
            ASSERT(!v);
            ASSERT_CONTAINS(e.text, "depth");
        }
    }
    free(deep);
}

/* Pruning: what a path names is left out wherever the path matches, "*" matches any member or
 * element, "!" keeps a member inside what is left out; what is left out is lexed (invalid JSON
 * in it is still refused) but may hold what a built member may not. */
TEST(json_load_prunes_what_it_is_told)
{
    const char *text = "{\"results\": [{\"v\": 1, \"samples\": [1, 2, 3], \"t\": {\"a\": 1, "
                       "\"keep\": 2, \"b\": [3]}},"
                       " {\"v\": 2, \"samples\": {\"dup\": 1, \"dup\": 2, \"huge\": 1e999}, "
                       "\"t\": {\"keep\": 4}}],"
                       " \"samples\": [9], \"other\": {\"samples\": 5}}";
    static const char *const prune[] = {"results.*.samples", "results.*.t.*", "!results.*.t.keep",
                                        NULL};
    json_error_t e;
    json_t *v = load(text, prune, &e);
    ASSERT_MSG(v, "%s", e.text);
    char *d = json_dumps(v, JSON_COMPACT);
    ASSERT_STR(d, "{\"results\":[{\"v\":1,\"t\":{\"keep\":2}},{\"v\":2,\"t\":{\"keep\":4}}],"
                  "\"samples\":[9],\"other\":{\"samples\":5}}");
    free(d);
    json_decref(v);
    /* Without pruning, the same text's duplicate key is refused. */
    ASSERT(!load(text, NULL, &e));
    ASSERT_CONTAINS(e.text, "duplicate");
    /* A pruned member that is not JSON is still an error. */
    ASSERT(!load("{\"results\": [{\"samples\": [1, 2,, 3]}]}", prune, &e));
    /* Every member of the top but one. */
    static const char *const all_but[] = {"*", "!b", NULL};
    v = load("{\"a\": [1], \"b\": {\"c\": 2}, \"d\": 3}", all_but, &e);
    ASSERT(v);
    d = json_dumps(v, JSON_COMPACT);
    ASSERT_STR(d, "{\"b\":{\"c\":2}}");
    free(d);
    json_decref(v);
    /* Too many paths, or a path too deep, is refused rather than half applied. */
    static const char *const deep[] = {"a.b.c.d.e.f.g.h.i", NULL};
    ASSERT(!load("{}", deep, &e));
}

/* The headline read of a real run's file keeps exactly what fleet uses, equal to the full read,
 * and leaves the rest: samples, statistics, figures and the reason. */
TEST(json_load_headline_read_matches_the_full_read)
{
    char path[4096];
    snprintf(
        path, sizeof path,
        "%s/results/reference/"
        "pthread-skylake-avx512-intel-r-xeon-r-processor-opencl-quick-3.1-debian-2026-12-03-2.json",
        GB_TEST_SRCDIR);
    struct gb_results full, head;
    ASSERT_OK(gb_results_read(path, &full));
    ASSERT_OK(gb_results_read_opts(path, GB_READ_HEADLINES, &head));
    ASSERT_EQ(head.nresults, full.nresults);
    ASSERT_EQ(head.ndevices, full.ndevices);
    ASSERT_STR(head.run.host, full.run.host);
    ASSERT_STR(head.run.profile_sha256, full.run.profile_sha256);
    ASSERT_EQ(head.run.machine.ndev, full.run.machine.ndev);
    size_t with_samples = 0;
    for (size_t i = 0; i < full.nresults; i++) {
        const struct gb_result *a = &full.results[i], *b = &head.results[i];
        ASSERT_STR(b->suite, a->suite);
        ASSERT_STR(b->case_name, a->case_name);
        ASSERT_STR(b->backend, a->backend);
        ASSERT_STR(b->unit, a->unit);
        ASSERT_STR(b->metric, a->metric);
        ASSERT_EQ(b->device_index, a->device_index);
        ASSERT_EQ(b->status, a->status);
        ASSERT_EQ(b->better, a->better);
        ASSERT_EQ(b->verified, a->verified);
        ASSERT_EQ(b->params.n, a->params.n);
        char pa[1024], pb[1024];
        ASSERT_STR(gb_params_format(&b->params, pb, sizeof pb),
                   gb_params_format(&a->params, pa, sizeof pa));
        ASSERT(b->value == a->value || (isnan(b->value) && isnan(a->value)));
        ASSERT_EQ(b->tel.on, a->tel.on);
        ASSERT_EQ(b->tel.nthrottled, a->tel.nthrottled);
        with_samples += a->nsamples > 0;
        ASSERT(b->nsamples == 0 && b->samples == NULL && b->nfigures == 0 && b->reason[0] == 0);
        ASSERT(b->stats.n == 0);
    }
    ASSERT(with_samples > 50); /* the full read did read them: the headline one left them */
    gb_results_free(&full);
    gb_results_free(&head);
}
