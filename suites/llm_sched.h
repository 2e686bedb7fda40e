/* gpubench — the llm suite's continuous batcher (suites/llm.c), apart from any device so that a
 * test runs the same code on a virtual clock, and its request lengths.
 *
 * Requests arrive at given times, each with a prompt of P tokens and an output of O >= 1 tokens.
 * At most max_batch sequences run at once, each in a slot of the KV cache. The scheduler is
 * iteration-level (Yu et al., "Orca: A Distributed Serving System for Transformer-Based
 * Generative Models", OSDI 2022; vLLM's continuous batching): between two decode steps it admits
 * the arrived requests, oldest first, while a slot is free, and runs each one's prefill (its P
 * prompt tokens through every layer, one request at a time, no chunking), which yields its first
 * output token; then one decode step runs every running sequence once, each yielding its next
 * token. Waiting prefills go before the decode step, as vLLM's default scheduler orders them. A
 * sequence leaves, and its slot frees, when it has its O tokens; a request whose O is 1 leaves
 * at its prefill. With nothing running and nothing arrived, the scheduler waits for the next
 * arrival.
 *
 * The KV cache holds, for a running sequence, one entry (a key and a value per layer) per token
 * fed in: P after the prefill, P + k after its k-th decode step (whose input is output token k),
 * P + O - 1 at most. `peak_kv_tokens` is the largest sum of these over the running sequences,
 * taken after every prefill and decode step before the finished sequences leave.
 */
#ifndef GB_SUITES_LLM_SCHED_H
#define GB_SUITES_LLM_SCHED_H

#include <stddef.h>
#include <stdint.h>

/* One request: its arrival (seconds from the trace's 0) and lengths (tokens). */
struct gb_llm_req {
    double arrival;
    uint32_t prompt, output;
};

/* One sequence of a decode step: the request (its index in the trace), its KV-cache slot and
 * the position of the token fed in (0-based: P + k - 1 at the k-th decode step). */
struct gb_llm_tok {
    uint32_t req, slot, pos;
};

/* The clock and the device (real: the harness's clock and kernels; virtual: a test). */
struct gb_llm_server {
    void *ctx;
    double (*now)(void *ctx);                /* seconds, monotonic */
    void (*wait_until)(void *ctx, double t); /* returns at now() >= t */
    /* Runs request `req`'s prefill into KV slot `slot` and returns when it is done: 0 or a
     * gb_err. */
    int (*prefill)(void *ctx, uint32_t req, uint32_t slot);
    /* Runs one decode step over toks[0..n) and returns when it is done: 0 or a gb_err. */
    int (*decode)(void *ctx, const struct gb_llm_tok *toks, size_t n);
};

/* What a trace gave, per request (seconds from the trace's 0) and in all. */
struct gb_llm_out {
    double *first; /* [nreq] the first output token's time (its prefill's end) */
    double *done;  /* [nreq] the last output token's time */
    double *itl;   /* [sum of (O - 1)] every gap between two successive tokens of a request */
    size_t nitl;
    uint64_t tokens;         /* output tokens produced: the sum of O when every request ran */
    uint64_t decode_steps;   /* decode steps run */
    uint64_t decode_seqs;    /* sequences over those steps (mean decode batch: / decode_steps) */
    uint64_t peak_kv_tokens; /* see above */
    double last_done;        /* the last request's done time */
};

/* Draws n requests' lengths: P uniform in [ceil(prompt_mean / 2), prompt_mean + floor(prompt_mean
 * / 2)] and O likewise from output_mean (means >= 1), from splitmix64 (base/util.h) seeded with
 * `seed`: the same lengths for the same seed on every machine. */
void gb_llm_lengths(struct gb_llm_req *r, size_t n, uint32_t prompt_mean, uint32_t output_mean,
                    uint64_t seed);

/* The largest length gb_llm_lengths draws for a mean. */
uint32_t gb_llm_length_max(uint32_t mean);

/* Runs the trace r[0..n) (arrivals ascending) through the scheduler above with 1 <= max_batch
 * slots, filling out (whose arrays the caller sized: n, n, and the sum of O - 1). Returns 0,
 * GB_EINVAL for bad arguments (an output of 0 tokens among them), or the first error of a
 * callback (the trace stops there). */
int gb_llm_run(const struct gb_llm_server *srv, const struct gb_llm_req *r, size_t n,
               uint32_t max_batch, struct gb_llm_out *out);

#endif
