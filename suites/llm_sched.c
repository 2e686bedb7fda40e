/* gpubench — the llm suite's continuous batcher (contract in llm_sched.h). */
#include "suites/llm_sched.h"

#include <stdbool.h>
#include <stdlib.h>

#include "base/error.h"
#include "base/util.h"

uint32_t gb_llm_length_max(uint32_t mean)
{
    return mean + mean / 2;
}

void gb_llm_lengths(struct gb_llm_req *r, size_t n, uint32_t prompt_mean, uint32_t output_mean,
                    uint64_t seed)
{
    uint64_t s = seed ^ 0x11A5EEDull;
    for (size_t i = 0; i < n; i++) {
        const uint32_t plo = (prompt_mean + 1) / 2, olo = (output_mean + 1) / 2;
        const uint32_t pspan = gb_llm_length_max(prompt_mean) - plo + 1,
                       ospan = gb_llm_length_max(output_mean) - olo + 1;
        r[i].prompt = plo + (uint32_t)(gb_splitmix64(&s) % pspan);
        r[i].output = olo + (uint32_t)(gb_splitmix64(&s) % ospan);
    }
}

int gb_llm_run(const struct gb_llm_server *srv, const struct gb_llm_req *r, size_t n,
               uint32_t max_batch, struct gb_llm_out *out)
{
    if (!srv || !r || !out || max_batch < 1)
        return GB_FAIL(GB_EINVAL, "llm: bad scheduler arguments");
    for (size_t i = 0; i < n; i++)
        if (!r[i].output || !r[i].prompt)
            return GB_FAIL(GB_EINVAL, "llm: request %zu has an empty prompt or output", i);
    struct gb_llm_tok *run = malloc(max_batch * sizeof *run);
    uint32_t *made = calloc(n, sizeof *made);          /* tokens made per request */
    double *last = malloc((n ? n : 1) * sizeof *last); /* its last token's time */
    bool *busy = calloc(max_batch, sizeof *busy);
    if (!run || !made || !last || !busy) {
        free(run);
        free(made);
        free(last);
        free(busy);
        return GB_FAIL(GB_ENOMEM, "llm: scheduler");
    }
    out->nitl = 0;
    out->tokens = out->decode_steps = out->decode_seqs = out->peak_kv_tokens = 0;
    out->last_done = 0;
    const double t0 = srv->now(srv->ctx);
    size_t next = 0, left = n, nrun = 0;
    uint64_t kv = 0; /* the running sequences' KV entries */
    int err = 0;
    while (left) {
        double t = srv->now(srv->ctx) - t0;
        /* Admit the arrived, oldest first, while a slot is free: each one's prefill. */
        while (next < n && r[next].arrival <= t && nrun < max_batch) {
            uint32_t slot = 0;
            while (busy[slot])
                slot++;
            if ((err = srv->prefill(srv->ctx, (uint32_t)next, slot)))
                goto out;
            t = srv->now(srv->ctx) - t0;
            out->first[next] = last[next] = t;
            made[next] = 1;
            out->tokens++;
            kv += r[next].prompt;
            if (kv > out->peak_kv_tokens)
                out->peak_kv_tokens = kv;
            if (r[next].output == 1) {
                out->done[next] = t;
                kv -= r[next].prompt;
                left--;
            } else {
                busy[slot] = true;
                run[nrun++] =
                    (struct gb_llm_tok){.req = (uint32_t)next, .slot = slot, .pos = r[next].prompt};
            }
            next++;
        }
        if (!nrun) {
            if (next < n)
                srv->wait_until(srv->ctx, t0 + r[next].arrival);
            continue;
        }
        /* One decode step: each running sequence feeds its last token (at position P + k - 1
         * for its k-th step) and gets the next. */
        for (size_t j = 0; j < nrun; j++)
            run[j].pos = r[run[j].req].prompt + made[run[j].req] - 1;
        if ((err = srv->decode(srv->ctx, run, nrun)))
            goto out;
        t = srv->now(srv->ctx) - t0;
        out->decode_steps++;
        out->decode_seqs += nrun;
        kv += nrun;
        if (kv > out->peak_kv_tokens)
            out->peak_kv_tokens = kv;
        size_t keep = 0;
        for (size_t j = 0; j < nrun; j++) {
            const uint32_t q = run[j].req;
            out->itl[out->nitl++] = t - last[q];
            last[q] = t;
            made[q]++;
            out->tokens++;
            if (made[q] == r[q].output) {
                out->done[q] = t;
                kv -= r[q].prompt + r[q].output - 1;
                busy[run[j].slot] = false;
                left--;
            } else {
                run[keep++] = run[j];
            }
        }
        nrun = keep;
    }
out:
    for (size_t i = 0; i < n; i++)
        if (made[i] && out->done[i] > out->last_done)
            out->last_done = out->done[i];
    free(run);
    free(made);
    free(last);
    free(busy);
    return err;
}
