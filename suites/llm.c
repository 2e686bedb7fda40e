/* llm — a decoder's serving loop on the device: requests with prompts, prefilled and then decoded
 * token by token over a KV cache in device memory, under continuous batching.
 *
 * The model (axis `model`): a decoder of `layers` identical-shaped layers (0: the model's own
 * count; fewer truncate it to fit a device), each causal self-attention with grouped-query
 * heads (H query heads of HD, Hkv KV heads) and a SwiGLU MLP of F, in F32:
 *   qkv = Wqkv x (D -> D + 2 Hkv HD); k, v appended to the KV cache at the token's position;
 *   att = softmax(q k^T / sqrt(HD)) v per head over the positions 0..pos (kernels/llm.cl);
 *   x += Wo att; gu = W13 x (D -> 2F); h = silu(g) u; x += W2 h.
 * The projections are the backend's GEMM (its GEMV for a single token), column-major, one column
 * per token: a prompt's P tokens as one GEMM of P columns (prefill), a decode step's running
 * sequences as one GEMM of as many columns (a skinny GEMM). Left out, and said so: the
 * normalisation layers and rotary embedding (O(D) per token beside O(D^2)), the LM head and
 * sampling: a request's next input token is a seeded row of a 16-row embedding table, not a
 * sampled one, so that its output length is its drawn O. Shapes: "tiny" (D 256, H 4, Hkv 2, F
 * 512, 2 layers), for CPU OpenCL; "llama3-8b" (D 4096, H 32, Hkv 8, F 14336, 32 layers: Meta's
 * Llama 3 8B config.json: hidden_size, num_attention_heads, num_key_value_heads,
 * intermediate_size, num_hidden_layers). Weights are seeded uniform values scaled by
 * 1/sqrt(fan-in), distinct per layer.
 *
 * One operation is one trace: `requests` requests with prompt and output lengths drawn from
 * `seed` (gb_llm_lengths: uniform around the means `prompt_len`, `output_len`, the same in every
 * trace), arriving as a Poisson process of `rate` requests/s (seeded with seed + the trace's
 * number, as the serve suite's) or, at rate 0, all at once; served by the continuous batcher of
 * llm_sched.h (Orca's iteration-level scheduling, vLLM's continuous batching: a request joins
 * the running batch when a slot of `max_batch` frees; prefills before the next decode step)
 * until every request has its tokens. Host-timed (GB_TIMER_HOST_CALL): each prefill and decode
 * step is waited for, and each token's time is the harness's clock at its step's end.
 *
 * Figures, as vLLM's serving benchmark defines them (benchmarks/benchmark_serving.py, now
 * vllm/benchmarks/serve.py behind `vllm bench serve`: calculate_metrics, BenchmarkMetrics), over
 * every request of the kept traces, each at p50, p90 and p99 (the nearest rank), in ms:
 *   ttft: time to first token, from the request's arrival to its first output token (the end
 *     of its prefill: queueing included);
 *   tpot: time per output token after the first, (e2e - ttft) / (O - 1), for requests of O > 1;
 *   itl: inter-token latency, every gap between two successive tokens of a request;
 *   e2e: from the arrival to the last token.
 * output_tok_s: output tokens over the trace's duration (from its start to the last token),
 * request_rps: requests over it, goodput_rps: the requests that met both SLOs (ttft <=
 * `slo_ttft` ms and tpot <= `slo_tpot` ms; a request of one token has no tpot and meets it) over
 * it, vLLM's --goodput; each the median over the kept traces; the headline is output_tok_s per
 * trace. kv_peak_bytes: the largest KV cache the running sequences held (llm_sched.h's
 * peak_kv_tokens x 2 (K and V) x layers x Hkv HD x 4 B), kv_alloc_bytes what the cache
 * reserves (max_batch slots of the longest context), output_tokens and prompt_tokens per trace,
 * mean_decode_batch.
 *
 * Verification: request 0 of the first VERIFY_TRACES traces (warm-up included) is followed
 * through the last layer: the layer's input for every one of its tokens and its output are
 * copied aside on the device (D2D copies timed with those traces; later traces make none), and
 * after the trace the host recomputes, in double, the layer's output for the token that yielded
 * the first output token and for every CHECK_EVERY-th decode step and the last (at most MAX_CHECKS), from those inputs
 * alone: its own keys and values for every earlier position, the attention, the projections,
 * the MLP. Every element must lie within TOL_FACTOR x the f32 GEMM tolerance of the longest sum
 * (suites/gemm_tolerance.h) of |want| + the output's RMS (normwise: check_position says why not
 * componentwise); landed on PoCL, tiny: the largest error 1.3e-7 of that against a tolerance of
 * 4.6e-5. A cache that kept stale entries or an attention over the wrong heads moves the output
 * by 1e-2 of that and more (both caught, 350x and more over the tolerance). Test hook:
 * GPUBENCH_TEST_LLM=stale-kv (odd positions' keys and values are not written) or wrong-attn (query
 * head h reads KV head h % Hkv, not h / (H / Hkv)), kernels/llm.cl's LLM_BREAK.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/stats.h"
#include "base/error.h"
#include "base/robust.h"
#include "base/units.h"
#include "base/util.h"
#include "run/footprint.h"
#include "run/suite.h"
#include "run/supervise.h"
#include "suites/common.h"
#include "suites/gemm_tolerance.h"
#include "suites/llm_sched.h"

#define NEMB 16u
#define WG_PREFERRED 64u /* the kernels' work-group size, fitted down to a device's */
#define VERIFY_TRACES 2
#define CHECK_EVERY 4u
#define MAX_CHECKS 16u
#define TOL_FACTOR 4.0

struct model {
    const char *name;
    uint32_t d, h, hkv, f, layers;
};

static const struct model models[] = {
    {"tiny", 256, 4, 2, 512, 2},
    {"llama3-8b", 4096, 32, 8, 14336, 32},
};

static const char *const model_names[] = {"tiny", "llama3-8b", NULL};

static bool rate_check(double v, char *why, size_t len)
{
    if (!(v == 0 || (v >= 0.001 && v <= 1e6))) {
        snprintf(why, len, "a rate is requests/s in [0.001, 1e6], or 0 (all at once), not %g", v);
        return false;
    }
    return true;
}

static const struct gb_axis_def axes[] = {
    GB_AXIS_STR("model", "tiny", model_names,
                "the decoder's shape: tiny (D 256, 2 layers) or llama3-8b (D 4096, GQA 32/8)"),
    GB_AXIS_INT("layers", "0", 0, 1024,
                "layers run (0: the model's own count; fewer truncate it to fit)"),
    GB_AXIS_INT("prompt_len", "32", 1, 32768,
                "mean prompt tokens (drawn uniform in [mean/2, 3 mean/2])"),
    GB_AXIS_INT("output_len", "16", 1, 32768,
                "mean output tokens (drawn uniform in [mean/2, 3 mean/2])"),
    GB_AXIS_FLOAT("rate", "0", "Poisson arrivals, requests/s (0: every request at once)",
                  .check_float = rate_check),
    GB_AXIS_INT("requests", "8", 1, 100000, "requests per trace (one operation)"),
    GB_AXIS_INT("max_batch", "8", 1, 1024, "sequences running at once (KV-cache slots)"),
    GB_AXIS_INT("seed", "1", 0, 0, "the lengths' seed (trace t's arrivals: seed + t)"),
    GB_AXIS_INT("slo_ttft", "2000", 1, 0, "the time-to-first-token bound of goodput, ms"),
    GB_AXIS_INT("slo_tpot", "200", 1, 0, "the time-per-output-token bound of goodput, ms"),
};

/* One kept trace. */
struct trace {
    double tok_s, rps, goodput;
};

struct llm {
    struct gb_test_hook hook; /* first: tests/test_broken_kernels.c sets it */
    struct gb_case_ctx *ctx;
    const struct model *m;
    uint32_t d, h, hkv, hd, kvd, f, nl, pmax, omax, ctx_max, nmax, max_batch;
    uint32_t nreq, wg;
    double rate, slo_ttft, slo_tpot;
    uint64_t seed, traces;
    struct gb_buf **w;  /* [4 nl]: Wqkv, Wo, W13, W2 of each layer (column-major, lda = rows) */
    struct gb_buf **kv; /* [2 nl]: K, V of each layer */
    struct gb_buf *emb, *x, *qkv, *att, *o, *gu, *hh, *mm, *meta, *hmeta, *cin, *cout;
    struct gb_program *prog;
    struct gb_kernel *k_embed, *k_append, *k_attn, *k_swiglu, *k_add;
    float *hw[4], *hemb; /* host copies: the last layer's weights, the embedding */
    struct gb_llm_req *req;
    double *first, *done, *itl;
    uint64_t itl_cap;
    bool capture; /* this trace follows request 0 */
    /* The kept traces' requests, pooled: */
    double *ttft, *tpot, *e2e, *itls;
    size_t nttft, ntpot, nitls, cap_req, cap_itl;
    struct trace *tr;
    size_t ntr, cap_tr;
    uint64_t peak_kv, tokens, prompt_tokens, dsteps, dseqs;
    int verified_traces;
    uint64_t checked;
    double worst; /* the largest |error| / allowed seen */
    double tol;   /* the tolerance, relative to an element's magnitude bound */
    double rms_acc;
    uint64_t rms_n;
    char fail[512];
};

/* A seeded weight in [-1, 1) times `scale` (1/sqrt(fan-in)): layer l, matrix mat, element e. */
static float w_val(uint64_t seed, uint32_t l, uint32_t mat, uint64_t e, double scale)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull ^ ((uint64_t)l << 40 | (uint64_t)mat << 36) ^ e;
    const double u = (double)(gb_splitmix64(&s) >> 11) * 0x1.0p-53;
    return (float)((2 * u - 1) * scale);
}

static uint32_t tok_id(uint32_t req, uint32_t pos)
{
    return (req * 131u + pos * 7u) % NEMB;
}

/* ---- the device ------------------------------------------------------------------------- */

static void grid(struct gb_launch *l, uint32_t wg, uint64_t rows, uint64_t n)
{
    l->dims = 2;
    l->global[0] = rows;
    l->global[1] = n;
    l->global[2] = 1;
    l->local[0] = wg;
    l->local[1] = 1;
    l->local[2] = 1;
}

static struct gb_arg buf_arg(struct gb_buf *b)
{
    return (struct gb_arg){.kind = GB_ARG_BUF, .v.buf = b};
}

/* y (m x n) = W (m x k) x (k x n). */
static int proj(struct llm *s, struct gb_buf *w, uint64_t m, uint64_t k, struct gb_buf *x,
                struct gb_buf *y, uint64_t n)
{
    const struct gb_backend_ops *ops = s->ctx->ops;
    const struct gb_gemm g = gb_gemm_f32(m, n, k, 1, w, x, y);
    if (n == 1 && ops->gemv)
        return ops->gemv(s->ctx->q, &g);
    return ops->gemm(s->ctx->q, &g);
}

static int launch(struct llm *s, struct gb_kernel *k, struct gb_launch *l)
{
    return s->ctx->ops->launch(s->ctx->q, k, l);
}

/* Copies columns [from, from + n) of x to columns [at, at + n) of the capture c. */
static int capture(struct llm *s, struct gb_buf *c, uint64_t at, uint64_t from, uint64_t n)
{
    const uint64_t col = (uint64_t)s->d * sizeof(float);
    return s->ctx->ops->copy(s->ctx->q, c, at * col, s->x, from * col, n * col, GB_COPY_ASYNC);
}

/* The n tokens that meta describes (host copy in hmeta, written by the caller) through every
 * layer; the checked request's column `cc` (UINT64_MAX: none) captured at the last layer at
 * position cpos (n columns from position cpos when cc is 0 and all: a prefill). */
static int forward(struct llm *s, uint64_t n, uint64_t cc, uint64_t cn, uint64_t cpos)
{
    const struct gb_backend_ops *ops = s->ctx->ops;
    struct gb_queue *q = s->ctx->q;
    int err =
        ops->copy(q, s->meta, 0, s->hmeta, 0, 3ull * s->nmax * sizeof(uint32_t), GB_COPY_ASYNC);
    if (err)
        return err;
    struct gb_launch l = {0};
    grid(&l, s->wg, s->d, n);
    l.nargs = 3;
    l.args[0] = buf_arg(s->emb);
    l.args[1] = buf_arg(s->meta);
    l.args[2] = buf_arg(s->x);
    if ((err = launch(s, s->k_embed, &l)))
        return err;
    const uint64_t d = s->d, f = s->f, mq = d + 2ull * s->kvd;
    for (uint32_t ly = 0; ly < s->nl; ly++) {
        const bool cap = cc != UINT64_MAX && ly == s->nl - 1;
        if (cap && (err = capture(s, s->cin, cpos, cc, cn)))
            return err;
        if ((err = proj(s, s->w[4 * ly], mq, d, s->x, s->qkv, n)))
            return err;
        grid(&l, s->wg, s->kvd, n);
        l.nargs = 4;
        l.args[0] = buf_arg(s->qkv);
        l.args[1] = buf_arg(s->meta);
        l.args[2] = buf_arg(s->kv[2 * ly]);
        l.args[3] = buf_arg(s->kv[2 * ly + 1]);
        if ((err = launch(s, s->k_append, &l)))
            return err;
        grid(&l, s->wg, (uint64_t)s->wg * n, s->h);
        l.nargs = 6;
        l.args[0] = buf_arg(s->qkv);
        l.args[1] = buf_arg(s->meta);
        l.args[2] = buf_arg(s->kv[2 * ly]);
        l.args[3] = buf_arg(s->kv[2 * ly + 1]);
        l.args[4] = buf_arg(s->att);
        l.args[5] = (struct gb_arg){.kind = GB_ARG_F32, .v.f32 = (float)(1 / sqrt(s->hd))};
        if ((err = launch(s, s->k_attn, &l)))
            return err;
        if ((err = proj(s, s->w[4 * ly + 1], d, d, s->att, s->o, n)))
            return err;
        grid(&l, s->wg, d, n);
        l.nargs = 2;
        l.args[0] = buf_arg(s->x);
        l.args[1] = buf_arg(s->o);
        if ((err = launch(s, s->k_add, &l)))
            return err;
        if ((err = proj(s, s->w[4 * ly + 2], 2 * f, d, s->x, s->gu, n)))
            return err;
        grid(&l, s->wg, f, n);
        l.nargs = 2;
        l.args[0] = buf_arg(s->gu);
        l.args[1] = buf_arg(s->hh);
        if ((err = launch(s, s->k_swiglu, &l)))
            return err;
        if ((err = proj(s, s->w[4 * ly + 3], d, f, s->hh, s->mm, n)))
            return err;
        grid(&l, s->wg, d, n);
        l.nargs = 2;
        l.args[0] = buf_arg(s->x);
        l.args[1] = buf_arg(s->mm);
        if ((err = launch(s, s->k_add, &l)))
            return err;
        if (cap && (err = capture(s, s->cout, cpos, cc, cn)))
            return err;
    }
    return ops->queue_sync(q);
}

static int real_prefill(void *p, uint32_t req, uint32_t slot)
{
    struct llm *s = p;
    uint32_t *m = s->hmeta->host;
    const uint32_t n = s->req[req].prompt;
    for (uint32_t t = 0; t < n; t++) {
        m[t] = tok_id(req, t);
        m[s->nmax + t] = slot;
        m[2 * s->nmax + t] = t;
    }
    const bool cap = s->capture && req == 0;
    return forward(s, n, cap ? 0 : UINT64_MAX, n, 0);
}

static int real_decode(void *p, const struct gb_llm_tok *toks, size_t n)
{
    struct llm *s = p;
    uint32_t *m = s->hmeta->host;
    uint64_t cc = UINT64_MAX, cpos = 0;
    for (size_t j = 0; j < n; j++) {
        m[j] = tok_id(toks[j].req, toks[j].pos);
        m[s->nmax + j] = toks[j].slot;
        m[2 * s->nmax + j] = toks[j].pos;
        if (s->capture && toks[j].req == 0) {
            cc = j;
            cpos = toks[j].pos;
        }
    }
    return forward(s, n, cc, 1, cpos);
}

/* ---- setup ------------------------------------------------------------------------------ */

static int upload_weights(struct llm *s, struct gb_case_ctx *ctx)
{
    const uint64_t d = s->d, f = s->f, mq = d + 2ull * s->kvd;
    const uint64_t rows[4] = {mq, d, 2 * f, d}, cols[4] = {d, d, d, f};
    const uint64_t most = 2 * f * d > mq * d ? 2 * f * d : mq * d;
    float *tmp = malloc(most * sizeof *tmp);
    if (!tmp)
        return GB_FAIL(GB_ENOMEM, "llm: host weights");
    int err = 0;
    for (uint32_t ly = 0; ly < s->nl && !err; ly++)
        for (uint32_t mat = 0; mat < 4 && !err; mat++) {
            const uint64_t n = rows[mat] * cols[mat];
            const bool keep = ly == s->nl - 1;
            float *w = keep ? malloc(n * sizeof *w) : tmp;
            if (!w) {
                err = GB_FAIL(GB_ENOMEM, "llm: host weights");
                break;
            }
            const double scale = 1 / sqrt((double)cols[mat]);
            for (uint64_t e = 0; e < n; e++)
                w[e] = w_val(s->seed, ly, mat, e, scale);
            if (keep)
                s->hw[mat] = w;
            if ((err = gb_case_alloc(ctx, n * sizeof(float), GB_MEM_DEVICE, &s->w[4 * ly + mat])))
                break;
            err = gb_case_upload(ctx, s->w[4 * ly + mat], w, n * sizeof(float));
        }
    free(tmp);
    return err;
}

/* Builds the kernels with work-group size s->wg, fitted down to every kernel's own maximum (a
 * power of two at most WG_PREFERRED: the rows of every launch are multiples of 64); rebuilt
 * when the fit changed it (the attention's reduction takes it as a define). */
static void free_kernels(struct gb_case_ctx *ctx, struct llm *s)
{
    struct gb_kernel **ks[4] = {&s->k_embed, &s->k_append, &s->k_swiglu, &s->k_add};
    for (int i = 0; i < 4; i++)
        if (*ks[i]) {
            ctx->ops->kernel_free(*ks[i]);
            *ks[i] = NULL;
        }
    gb_case_free_kernel(ctx, &s->k_attn, &s->prog);
}

static int build(struct gb_case_ctx *ctx, struct llm *s, const char *brk_define)
{
    for (int round = 0; round < 3; round++) {
        char defs[9][48];
        snprintf(defs[0], sizeof defs[0], "D=%u", s->d);
        snprintf(defs[1], sizeof defs[1], "KVD=%u", s->kvd);
        snprintf(defs[2], sizeof defs[2], "HD=%u", s->hd);
        snprintf(defs[3], sizeof defs[3], "GROUP=%u", s->h / s->hkv);
        snprintf(defs[4], sizeof defs[4], "CTX=%u", s->ctx_max);
        snprintf(defs[5], sizeof defs[5], "NMAX=%u", s->nmax);
        snprintf(defs[6], sizeof defs[6], "F=%u", s->f);
        snprintf(defs[7], sizeof defs[7], "WG=%u", s->wg);
        snprintf(defs[8], sizeof defs[8], "%s", brk_define ? brk_define : "LLM_BREAK=0");
        const char *dp[9];
        for (int i = 0; i < 9; i++)
            dp[i] = defs[i];
        int err = gb_case_build(ctx, "llm.cl", "llm_attn", dp, 9, &s->prog, &s->k_attn);
        if (err)
            return err;
        const struct gb_backend_ops *ops = ctx->ops;
        if ((err = ops->kernel_get(s->prog, "llm_embed", &s->k_embed)) ||
            (err = ops->kernel_get(s->prog, "llm_kv_append", &s->k_append)) ||
            (err = ops->kernel_get(s->prog, "llm_swiglu", &s->k_swiglu)) ||
            (err = ops->kernel_get(s->prog, "llm_add", &s->k_add)))
            return err;
        const uint32_t built = s->wg;
        struct gb_kernel *ks[5] = {s->k_attn, s->k_embed, s->k_append, s->k_swiglu, s->k_add};
        for (int i = 0; i < 5; i++)
            if ((err = gb_case_fit_own_wg(ctx, ks[i], 0, &s->wg)))
                return err;
        if (s->wg == built)
            return 0;
        free_kernels(ctx, s);
    }
    return gb_case_skip(ctx, "the kernels' work-group size did not settle (last %u)", s->wg);
}

/* The attention's loop iterations per work-item (kernels/llm.cl's llm_attn) over the longest
 * context at the work-group size the build settled on (a fitted one below WG_PREFERRED loops
 * more): its scores, ceil(CTX / WG) positions of HD + 2 steps; the softmax's exponentials,
 * ceil(CTX / WG); two reductions of log2(WG) steps; its outputs, ceil(HD / WG) lanes of CTX
 * steps (each ceiling bounded by the quotient + 1). */
static uint64_t attn_trips(const struct llm *s)
{
    const uint64_t wg = s->wg ? s->wg : 1, ctxn = s->ctx_max, hd = s->hd;
    uint64_t levels = 0;
    for (uint64_t w = wg; w > 1; w /= 2)
        levels++;
    return (ctxn / wg + 1) * (hd + 2) + (ctxn / wg + 1) + 2 * levels + (hd / wg + 1) * ctxn;
}

static int llm_setup(struct gb_case_ctx *ctx)
{
    struct llm *s = ctx->state;
    s->ctx = ctx;
    const char *name = gb_params_str(ctx->params, "model");
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].name, name) == 0)
            s->m = &models[i];
    if (!s->m)
        return gb_case_skip(ctx, "no model '%s'", name);
    s->d = s->m->d;
    s->h = s->m->h;
    s->hkv = s->m->hkv;
    s->hd = s->d / s->h;
    s->kvd = s->hkv * s->hd;
    s->f = s->m->f;
    const int64_t layers = gb_params_int(ctx->params, "layers");
    s->nl = layers > 0 && layers < s->m->layers ? (uint32_t)layers : s->m->layers;
    if (layers > (int64_t)s->m->layers)
        return gb_case_skip(ctx, "%s has %u layers, not %lld", s->m->name, s->m->layers,
                            (long long)layers);
    const uint32_t pmean = (uint32_t)gb_params_int(ctx->params, "prompt_len"),
                   omean = (uint32_t)gb_params_int(ctx->params, "output_len");
    s->pmax = gb_llm_length_max(pmean);
    s->omax = gb_llm_length_max(omean);
    s->ctx_max = s->pmax + s->omax - 1;
    s->nreq = (uint32_t)gb_params_int(ctx->params, "requests");
    s->max_batch = (uint32_t)gb_params_int(ctx->params, "max_batch");
    s->nmax = s->pmax > s->max_batch ? s->pmax : s->max_batch;
    s->rate = gb_params_float(ctx->params, "rate");
    s->seed = (uint64_t)gb_params_int(ctx->params, "seed");
    s->slo_ttft = 1e-3 * (double)gb_params_int(ctx->params, "slo_ttft");
    s->slo_tpot = 1e-3 * (double)gb_params_int(ctx->params, "slo_tpot");
    /* A trace is one operation, and the case's limit counts from one finished operation to the
     * next (run/supervise.h): arrivals spread wider than it, (requests - 1) / rate seconds for
     * the last on average, could only end in the limit's kill. */
    if (s->rate > 0 && ctx->run) {
        const double span = (double)(s->nreq - 1) / s->rate;
        const double limit = gb_case_timeout(&ctx->run->measure);
        if (span >= limit)
            return gb_case_skip(ctx,
                                "%u requests at %g/s arrive over about %.0f s, beyond the case's "
                                "limit of %.0f s (measure.case_timeout): a higher rate or fewer "
                                "requests",
                                s->nreq, s->rate, span, limit);
    }
    const char *brk = getenv("GPUBENCH_TEST_LLM");
    const char *brk_define = NULL;
    if (brk && strcmp(brk, "stale-kv") == 0)
        brk_define = "LLM_BREAK=1";
    else if (brk && strcmp(brk, "wrong-attn") == 0)
        brk_define = "LLM_BREAK=2";
    if (!ctx->ops->gemm || !(ctx->dev->info.caps & GB_CAP_BLAS_F32))
        return gb_case_skip(ctx, "the device has no F32 GEMM (no BLAS library): the "
                                 "projections need one");
    const struct gb_device_info *info = &ctx->dev->info;
    /* The attention's scores stay in local memory, CTX floats. */
    if (info->local_mem && (uint64_t)(s->ctx_max + WG_PREFERRED) * sizeof(float) > info->local_mem)
        return gb_case_skip(ctx,
                            "a context of %u positions needs %llu B of local memory for "
                            "the attention's scores; the device has %llu",
                            s->ctx_max, (unsigned long long)(s->ctx_max + WG_PREFERRED) * 4,
                            (unsigned long long)info->local_mem);
    const uint64_t d = s->d, f = s->f, mq = d + 2ull * s->kvd;
    const uint64_t wbytes = (mq * d + d * d + 2 * f * d + d * f) * sizeof(float) * s->nl;
    const uint64_t kvbytes = 2ull * s->nl * s->max_batch * s->ctx_max * s->kvd * sizeof(float);
    const uint64_t actbytes =
        (uint64_t)s->nmax * (d * 5 + mq + 3 * f) * sizeof(float) + 2ull * d * s->ctx_max * 4;
    const double need = (double)(wbytes + kvbytes + actbytes);
    if (info->global_mem && need > 0.85 * (double)info->global_mem)
        return gb_case_skip(ctx,
                            "%u layers of %s with their KV cache need %.3g GB; the device "
                            "has %.3g GB (fewer `layers` or `max_batch`)",
                            s->nl, s->m->name, need / 1e9, (double)info->global_mem / 1e9);
    /* A device whose memory is the host's (a CPU device): within the host's available share
     * too, which other processes of the machine hold part of (run/footprint.h). */
    struct gb_host_memory hm;
    gb_host_memory(&hm);
    const struct gb_footprint fp = {.device = need};
    char why[512];
    if ((info->caps & GB_CAP_UNIFIED) && gb_footprint_check(&fp, &hm, info, why, sizeof why))
        return gb_case_skip(ctx,
                            "%u layers of %s with their KV cache: %s (fewer `layers` or "
                            "`max_batch`)",
                            s->nl, s->m->name, why);
    s->wg = gb_case_own_wg(ctx, WG_PREFERRED);
    int err = build(ctx, s, brk_define);
    if (err ||
        (err = gb_case_loop_fits(ctx, attn_trips(s), "the attention over the longest context",
                                 "shorter prompt_len or output_len")))
        return err;
    s->w = calloc(4 * s->nl, sizeof *s->w);
    s->kv = calloc(2 * s->nl, sizeof *s->kv);
    s->req = malloc(s->nreq * sizeof *s->req);
    s->first = malloc(s->nreq * sizeof *s->first);
    s->done = malloc(s->nreq * sizeof *s->done);
    s->hemb = malloc((uint64_t)NEMB * d * sizeof *s->hemb);
    if (!s->w || !s->kv || !s->req || !s->first || !s->done || !s->hemb)
        return GB_FAIL(GB_ENOMEM, "llm: host arrays");
    gb_llm_lengths(s->req, s->nreq, pmean, omean, s->seed);
    s->itl_cap = 0;
    for (uint32_t i = 0; i < s->nreq; i++) {
        s->itl_cap += s->req[i].output - 1;
        s->prompt_tokens += s->req[i].prompt;
        s->tokens += s->req[i].output;
    }
    s->itl = malloc((s->itl_cap ? s->itl_cap : 1) * sizeof *s->itl);
    if (!s->itl)
        return GB_FAIL(GB_ENOMEM, "llm: host arrays");
    if ((err = upload_weights(s, ctx)))
        return err;
    for (uint64_t e = 0; e < (uint64_t)NEMB * d; e++)
        s->hemb[e] = w_val(s->seed, 0xFFFF, 4, e, 1);
    const uint64_t kvslab = (uint64_t)s->max_batch * s->ctx_max * s->kvd * sizeof(float);
    const uint64_t nm = s->nmax;
    if ((err = gb_case_alloc(ctx, (uint64_t)NEMB * d * 4, GB_MEM_DEVICE, &s->emb)) ||
        (err = gb_case_upload(ctx, s->emb, s->hemb, (uint64_t)NEMB * d * 4)) ||
        (err = gb_case_alloc(ctx, nm * d * 4, GB_MEM_DEVICE, &s->x)) ||
        (err = gb_case_alloc(ctx, nm * mq * 4, GB_MEM_DEVICE, &s->qkv)) ||
        (err = gb_case_alloc(ctx, nm * d * 4, GB_MEM_DEVICE, &s->att)) ||
        (err = gb_case_alloc(ctx, nm * d * 4, GB_MEM_DEVICE, &s->o)) ||
        (err = gb_case_alloc(ctx, nm * 2 * f * 4, GB_MEM_DEVICE, &s->gu)) ||
        (err = gb_case_alloc(ctx, nm * f * 4, GB_MEM_DEVICE, &s->hh)) ||
        (err = gb_case_alloc(ctx, nm * d * 4, GB_MEM_DEVICE, &s->mm)) ||
        (err = gb_case_alloc(ctx, 3 * nm * 4, GB_MEM_DEVICE, &s->meta)) ||
        (err = gb_case_alloc(ctx, 3 * nm * 4, GB_MEM_HOST_PINNED, &s->hmeta)) ||
        (err = gb_case_alloc(ctx, (uint64_t)s->ctx_max * d * 4, GB_MEM_DEVICE, &s->cin)) ||
        (err = gb_case_alloc(ctx, (uint64_t)s->ctx_max * d * 4, GB_MEM_DEVICE, &s->cout)))
        return err;
    memset(s->hmeta->host, 0, 3 * nm * 4);
    /* The cache starts at 0, finite: what a stale read returns is a wrong number, caught by the
     * comparison, not a NaN. */
    void *zero = calloc(1, kvslab);
    if (!zero)
        return GB_FAIL(GB_ENOMEM, "llm: KV cache");
    for (uint32_t ly = 0; ly < 2 * s->nl && !err; ly++)
        if (!(err = gb_case_alloc(ctx, kvslab, GB_MEM_DEVICE, &s->kv[ly])))
            err = gb_case_upload(ctx, s->kv[ly], zero, kvslab);
    free(zero);
    if (err)
        return err;
    ctx->op.timer = GB_TIMER_HOST_CALL;
    ctx->op.max_batch = 1;
    return 0;
}

/* Poisons the captures of a trace that follows request 0. */
static int llm_prepare(struct gb_case_ctx *ctx, uint64_t reps)
{
    (void)reps;
    struct llm *s = ctx->state;
    s->capture = s->verified_traces < VERIFY_TRACES && !s->fail[0];
    if (!s->capture)
        return 0;
    const uint64_t bytes = (uint64_t)s->ctx_max * s->d * sizeof(float);
    int err = gb_case_poison(ctx, s->cin, bytes, GB_F32);
    return err ? err : gb_case_poison(ctx, s->cout, bytes, GB_F32);
}

static int grow(double **v, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    const size_t c = 2 * need;
    double *p = realloc(*v, c * sizeof *p);
    if (!p)
        return GB_FAIL(GB_ENOMEM, "llm: latencies");
    *v = p;
    *cap = c;
    return 0;
}

static int llm_run(struct gb_case_ctx *ctx, uint64_t reps)
{
    struct llm *s = ctx->state;
    for (uint64_t r = 0; r < reps; r++) {
        /* The arrivals of this trace (the lengths stay those of the seed). */
        uint64_t as = s->seed + s->traces++;
        double t = 0;
        for (uint32_t i = 0; i < s->nreq; i++) {
            if (s->rate > 0) {
                const double u = (double)(gb_splitmix64(&as) >> 11) * 0x1.0p-53;
                t += -log1p(-u) / s->rate;
            }
            s->req[i].arrival = t;
        }
        struct gb_llm_out out = {.first = s->first, .done = s->done, .itl = s->itl};
        const struct gb_llm_server srv = {.ctx = s,
                                          .now = gb_replay_now,
                                          .wait_until = gb_replay_wait,
                                          .prefill = real_prefill,
                                          .decode = real_decode};
        int err = gb_llm_run(&srv, s->req, s->nreq, s->max_batch, &out);
        if (err)
            return err;
        if (out.peak_kv_tokens > s->peak_kv)
            s->peak_kv = out.peak_kv_tokens;
        if (!ctx->sampling)
            continue;
        const size_t nreq = s->nreq;
        /* ttft, e2e and tpot share a capacity: grown together. */
        if (s->nttft + nreq > s->cap_req) {
            const size_t c = 2 * (s->nttft + nreq);
            double *a = realloc(s->ttft, c * sizeof *a);
            if (a)
                s->ttft = a;
            double *b = realloc(s->e2e, c * sizeof *b);
            if (b)
                s->e2e = b;
            double *e = realloc(s->tpot, c * sizeof *e);
            if (e)
                s->tpot = e;
            if (!a || !b || !e)
                return GB_FAIL(GB_ENOMEM, "llm: latencies");
            s->cap_req = c;
        }
        if ((err = grow(&s->itls, &s->cap_itl, s->nitls + out.nitl)))
            return err;
        size_t good = 0;
        for (size_t i = 0; i < nreq; i++) {
            const double ttft = s->first[i] - s->req[i].arrival,
                         e2e = s->done[i] - s->req[i].arrival;
            s->ttft[s->nttft] = ttft;
            s->e2e[s->nttft++] = e2e;
            double tpot = 0;
            if (s->req[i].output > 1) {
                tpot = (e2e - ttft) / (double)(s->req[i].output - 1);
                s->tpot[s->ntpot++] = tpot;
            }
            good += ttft <= s->slo_ttft && tpot <= s->slo_tpot;
        }
        memcpy(s->itls + s->nitls, s->itl, out.nitl * sizeof *s->itl);
        s->nitls += out.nitl;
        s->dsteps += out.decode_steps;
        s->dseqs += out.decode_seqs;
        if (s->ntr == s->cap_tr) {
            const size_t c = s->cap_tr ? 2 * s->cap_tr : 16;
            struct trace *q = realloc(s->tr, c * sizeof *q);
            if (!q)
                return GB_FAIL(GB_ENOMEM, "llm: traces");
            s->tr = q;
            s->cap_tr = c;
        }
        /* The duration: from the trace's start (its 0) to the last token, as vLLM's
         * benchmark_duration runs from the first request sent to the last answer. */
        const double dur = out.last_done > 0 ? out.last_done : 1e-9;
        s->tr[s->ntr++] = (struct trace){.tok_s = (double)out.tokens / dur,
                                         .rps = (double)nreq / dur,
                                         .goodput = (double)good / dur};
    }
    return 0;
}

/* ---- verification ------------------------------------------------------------------------ */

/* Checks the captured layer at position p of request 0: the host's output, in double from the
 * device's input of the layer (its column p of cin) and the host's keys and values of positions
 * 0..p (kk, vv: KVD each), against the device's (column p of cout), element by element:
 * |got - want| <= tol (|want| + rms(want)). Not a rigorous bound of the layer's chain of F32
 * roundings (a componentwise one, |W| |x| carried through the softmax and the gate, came out
 * 1e5 times the output with these weights: no check at all); what it catches is a wrong value,
 * which moves the output by the order of its RMS. */
static void check_position(struct llm *s, const float *cin, const float *cout, uint32_t p,
                           const double *kk, const double *vv)
{
    const uint64_t d = s->d, f = s->f, mq = d + 2ull * s->kvd, hd = s->hd;
    const float *x = cin + (uint64_t)p * d, *got = cout + (uint64_t)p * d;
    double *q = calloc(d, sizeof *q), *att = malloc(d * sizeof *att), *y = malloc(d * sizeof *y);
    double *hh = malloc(f * sizeof *hh), *pr = malloc(((size_t)p + 1) * sizeof *pr);
    double *gu = malloc(2 * f * sizeof *gu);
    if (!q || !att || !y || !hh || !pr || !gu) {
        snprintf(s->fail, sizeof s->fail, "llm: host reference: out of memory");
        goto out;
    }
    const float *wq = s->hw[0], *wo = s->hw[1], *w13 = s->hw[2], *w2 = s->hw[3];
    for (uint64_t c = 0; c < d; c++)
        for (uint64_t i = 0; i < d; i++)
            q[i] += (double)wq[i + mq * c] * x[c];
    const double scale = 1 / sqrt((double)hd);
    const uint32_t group = s->h / s->hkv;
    for (uint32_t h = 0; h < s->h; h++) {
        const uint64_t kv0 = (uint64_t)(h / group) * hd;
        double mx = -INFINITY;
        for (uint32_t j = 0; j <= p; j++) {
            double sc = 0;
            for (uint64_t i = 0; i < hd; i++)
                sc += q[h * hd + i] * kk[(uint64_t)j * s->kvd + kv0 + i];
            pr[j] = sc * scale;
            mx = pr[j] > mx ? pr[j] : mx;
        }
        double sum = 0;
        for (uint32_t j = 0; j <= p; j++)
            sum += (pr[j] = exp(pr[j] - mx));
        for (uint64_t i = 0; i < hd; i++) {
            double a = 0;
            for (uint32_t j = 0; j <= p; j++)
                a += pr[j] * vv[(uint64_t)j * s->kvd + kv0 + i];
            att[h * hd + i] = a / sum;
        }
    }
    for (uint64_t i = 0; i < d; i++)
        y[i] = x[i];
    for (uint64_t c = 0; c < d; c++)
        for (uint64_t i = 0; i < d; i++)
            y[i] += (double)wo[i + d * c] * att[c];
    /* Column by column (the weights are column-major): the sums run over contiguous memory. */
    for (uint64_t r = 0; r < 2 * f; r++)
        gu[r] = 0;
    for (uint64_t c = 0; c < d; c++)
        for (uint64_t r = 0; r < 2 * f; r++)
            gu[r] += (double)w13[r + 2 * f * c] * y[c];
    for (uint64_t i = 0; i < f; i++)
        hh[i] = gu[i] / (1 + exp(-gu[i])) * gu[f + i];
    for (uint64_t i = 0; i < d; i++)
        att[i] = y[i]; /* the layer's output, built in att */
    for (uint64_t c = 0; c < f; c++)
        for (uint64_t i = 0; i < d; i++)
            att[i] += (double)w2[i + d * c] * hh[c];
    double ms = 0;
    for (uint64_t i = 0; i < d; i++)
        ms += att[i] * att[i];
    const double rms = sqrt(ms / (double)d);
    for (uint64_t i = 0; i < d; i++) {
        const double want = att[i], err = fabs((double)got[i] - want);
        const double allowed = s->tol * (fabs(want) + rms);
        if (!(err <= allowed)) {
            snprintf(s->fail, sizeof s->fail,
                     "request 0, position %u, last layer: output %llu is %.9g, the host's %.9g "
                     "(error %.3g above %.3g)",
                     p, (unsigned long long)i, (double)got[i], want, err, allowed);
            goto out;
        }
        if (err / allowed > s->worst)
            s->worst = err / allowed;
        const double rel = err / (fabs(want) + rms);
        s->rms_acc += rel * rel;
        s->rms_n++;
    }
    s->checked++;
out:
    free(q);
    free(att);
    free(y);
    free(hh);
    free(pr);
    free(gu);
}

static int llm_settle(struct gb_case_ctx *ctx, uint64_t reps)
{
    (void)reps;
    struct llm *s = ctx->state;
    if (!s->capture || s->fail[0])
        return 0;
    s->capture = false;
    const uint32_t P = s->req[0].prompt, O = s->req[0].output, npos = P + O - 1;
    const uint64_t d = s->d, kvd = s->kvd, mq = d + 2 * kvd;
    int err = 0;
    float *cin = gb_case_read_back(ctx, s->cin, (uint64_t)npos * d * 4, &err);
    if (!cin)
        return err;
    float *cout = gb_case_read_back(ctx, s->cout, (uint64_t)npos * d * 4, &err);
    double *kk = malloc((uint64_t)npos * kvd * sizeof *kk),
           *vv = malloc((uint64_t)npos * kvd * sizeof *vv);
    if (!cout || !kk || !vv) {
        err = err ? err : GB_FAIL(GB_ENOMEM, "llm: host reference");
        goto out;
    }
    /* The captured inputs are the device's own (the earlier layers'): they must be finite (a
     * capture the trace never wrote holds the poison, NaN). */
    for (uint64_t e = 0; e < (uint64_t)npos * d; e++)
        if (!isfinite(cin[e])) {
            snprintf(s->fail, sizeof s->fail,
                     "request 0, position %llu: the last layer's input %llu is %g (not written, "
                     "or an earlier layer made it)",
                     (unsigned long long)(e / d), (unsigned long long)(e % d), (double)cin[e]);
            goto out;
        }
    const float *wq = s->hw[0];
    for (uint32_t p = 0; p < npos; p++) {
        const float *x = cin + (uint64_t)p * d;
        double *a = kk + (uint64_t)p * kvd, *b = vv + (uint64_t)p * kvd;
        for (uint64_t i = 0; i < kvd; i++)
            a[i] = b[i] = 0;
        for (uint64_t c = 0; c < d; c++) {
            const float *wk = wq + d + mq * c, *wv = wq + d + kvd + mq * c;
            for (uint64_t i = 0; i < kvd; i++) {
                a[i] += (double)wk[i] * x[c];
                b[i] += (double)wv[i] * x[c];
            }
        }
    }
    /* The longest sum: F (the MLP's down projection), D, or the context. */
    uint64_t kmax = s->f > d ? s->f : d;
    kmax = npos > kmax ? npos : kmax;
    s->tol = TOL_FACTOR * gb__gemm_tolerance(GP_F32, kmax);
    /* The prompt's last token (it yields the first output token), every CHECK_EVERY-th decode
     * step, the last; at most MAX_CHECKS, spaced evenly. */
    const uint32_t steps = O - 1;
    uint32_t every = CHECK_EVERY;
    while (steps / every + 2 > MAX_CHECKS)
        every *= 2;
    for (uint32_t k = 0; k <= steps && !s->fail[0]; k++)
        if (k == 0 || k % every == 0 || k == steps)
            check_position(s, cin, cout, P - 1 + k, kk, vv);
    if (!s->fail[0])
        s->verified_traces++;
    /* The largest error seen, relative to its element's |want| + rms. */
    ctx->max_error = s->worst * s->tol;
out:
    free(cin);
    free(cout);
    free(kk);
    free(vv);
    return err;
}

static int llm_verify(struct gb_case_ctx *ctx)
{
    struct llm *s = ctx->state;
    if (s->fail[0])
        return gb_case_mismatch(ctx, "%s", s->fail);
    if (!s->verified_traces)
        return gb_case_mismatch(ctx, "no trace was verified (no trace ran)");
    return 0;
}

/* ---- figures ---------------------------------------------------------------------------- */

static void pcts(struct gb_case_ctx *ctx, const char *name, double *v, size_t n, bool p90)
{
    if (!n)
        return;
    gb_sort_doubles(v, n);
    char buf[32];
    static const double q[] = {0.5, 0.9, 0.99};
    static const char *const tag[] = {"p50", "p90", "p99"};
    for (int i = 0; i < 3; i++) {
        if (i == 1 && !p90)
            continue;
        snprintf(buf, sizeof buf, "%s_%s_ms", name, tag[i]);
        gb_case_figure(ctx, buf, "ms", 1e3 * gb_rank_quantile(v, n, q[i]));
    }
}

static void llm_figures(struct gb_case_ctx *ctx, double op_time_s)
{
    (void)op_time_s;
    struct llm *s = ctx->state;
    if (!s->ntr)
        return;
    pcts(ctx, "ttft", s->ttft, s->nttft, true);
    pcts(ctx, "tpot", s->tpot, s->ntpot, true);
    pcts(ctx, "itl", s->itls, s->nitls, true);
    pcts(ctx, "e2e", s->e2e, s->nttft, false);
    double *v = malloc(s->ntr * sizeof *v);
    if (!v)
        return;
    for (size_t i = 0; i < s->ntr; i++)
        v[i] = s->tr[i].rps;
    gb_case_figure(ctx, "request_rps", "1/s", gb_median(v, s->ntr));
    for (size_t i = 0; i < s->ntr; i++)
        v[i] = s->tr[i].goodput;
    gb_case_figure(ctx, "goodput_rps", "1/s", gb_median(v, s->ntr));
    const uint64_t per_token = 2ull * s->nl * s->kvd * sizeof(float);
    gb_case_figure(ctx, "kv_peak_bytes", "B", (double)(s->peak_kv * per_token));
    gb_case_figure(ctx, "kv_alloc_bytes", "B",
                   (double)((uint64_t)s->max_batch * s->ctx_max * per_token));
    gb_case_figure(ctx, "output_tokens", "", (double)s->tokens);
    gb_case_figure(ctx, "prompt_tokens", "", (double)s->prompt_tokens);
    gb_case_figure(ctx, "mean_decode_batch", "",
                   s->dsteps ? (double)s->dseqs / (double)s->dsteps : 0);
    gb_case_figure(ctx, "tokens_checked", "", (double)s->checked);
    gb_case_accuracy_figures(ctx, s->rms_n ? sqrt(s->rms_acc / (double)s->rms_n) : 0, s->tol);
    for (size_t i = 0; i < s->ntr; i++)
        v[i] = s->tr[i].tok_s;
    /* Output tokens per second: the unit says tokens ("tok/s"), not a bare rate. */
    gb_case_figure(ctx, "output_tok_s", "tok/s", gb_median(v, s->ntr));
    gb_case_headline(ctx, "throughput", "tok/s", GB_BETTER_HIGHER, v, s->ntr);
    free(v);
}

static void llm_teardown(struct gb_case_ctx *ctx)
{
    struct llm *s = ctx->state;
    free_kernels(ctx, s);
    for (uint32_t i = 0; s->w && i < 4 * s->nl; i++)
        gb_case_free_buf(ctx, &s->w[i]);
    for (uint32_t i = 0; s->kv && i < 2 * s->nl; i++)
        gb_case_free_buf(ctx, &s->kv[i]);
    gb_case_free_bufs(ctx, &s->emb, &s->x, &s->qkv, &s->att, &s->o, &s->gu, &s->hh, &s->mm,
                      &s->meta, &s->hmeta, &s->cin, &s->cout, NULL);
    free(s->w);
    free(s->kv);
    s->w = s->kv = NULL;
    for (int i = 0; i < 4; i++)
        free(s->hw[i]);
    free(s->hemb);
    free(s->req);
    free(s->first);
    free(s->done);
    free(s->itl);
    free(s->ttft);
    free(s->tpot);
    free(s->e2e);
    free(s->itls);
    free(s->tr);
    memset(s->hw, 0, sizeof s->hw);
    s->hemb = NULL;
    s->req = NULL;
    s->first = s->done = s->itl = s->ttft = s->tpot = s->e2e = s->itls = NULL;
    s->tr = NULL;
}

const struct gb_suite gb_suite_llm = {
    .name = "llm",
    .summary = "a decoder's serving loop: prefill and KV-cache decode under continuous "
               "batching (TTFT, TPOT, ITL percentiles, tokens/s, goodput under SLOs)",
    .axes = axes,
    .naxes = sizeof axes / sizeof axes[0],
    .case_axis = "model",
    .state_size = sizeof(struct llm),
    .setup = llm_setup,
    .prepare = llm_prepare,
    .run = llm_run,
    .settle = llm_settle,
    .verify = llm_verify,
    .teardown = llm_teardown,
    .figures = llm_figures,
    .chart = {.kind = GB_CHART_LINE, .x = "rate"},
};
