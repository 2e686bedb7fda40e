/* The llm suite's decoder kernels beside the backend's GEMMs (suites/llm.c): a batch of n tokens,
 * each a column of the activations (column t of an R-row matrix starts at t R), described by
 * `meta` (unsigned int, 3 NMAX entries): meta[t] the token's embedding row, meta[NMAX + t] its
 * sequence's KV-cache slot, meta[2 NMAX + t] its position in the sequence (0-based).
 *
 * The KV cache: per layer one K and one V array of `slots` x CTX x KVD floats, the entry of slot
 * s and position p at (s CTX + p) KVD, its KV head g at + g HD. The projection qkv of a token is
 * a column of D + 2 KVD: its query (H heads of HD), its key, its value.
 *
 * Defines: D (hidden size), KVD (KV heads x HD), HD (head size), GROUP (query heads per KV head:
 * grouped-query attention), CTX (positions a slot holds), NMAX (tokens a batch holds at most), F
 * (MLP size), WG (the attention's work-group size, a power of two). LLM_BREAK, the test hook
 * (GPUBENCH_TEST_LLM): 1 ("stale-kv") leaves the keys and values of odd positions unwritten, so
 * that attention reads what the slot held before; 2 ("wrong-attn") maps query head h to KV head
 * h % Hkv instead of h / GROUP (grouped-query attention's heads interleaved, not grouped).
 * Without defines: the tiny model's shape (suites/llm.c) with prompts of 32 and outputs of 16.
 */

#ifndef D
#define D 256
#endif
#ifndef KVD
#define KVD 128
#endif
#ifndef HD
#define HD 64
#endif
#ifndef GROUP
#define GROUP 2
#endif
#ifndef CTX
#define CTX 71
#endif
#ifndef NMAX
#define NMAX 48
#endif
#ifndef F
#define F 512
#endif
#ifndef WG
#define WG 64
#endif

/* x[:, t] = emb[:, meta[t]]; global (D, n). */
GB_KERNEL void llm_embed(GB_GLOBAL const float *emb, GB_GLOBAL const unsigned int *meta,
                         GB_GLOBAL float *x)
{
    const size_t i = GB_GLOBAL_ID(0), t = GB_GLOBAL_ID(1);
    x[t * D + i] = emb[(size_t)meta[t] * D + i];
}

/* Appends each token's key and value to its slot at its position; global (KVD, n). */
GB_KERNEL void llm_kv_append(GB_GLOBAL const float *qkv, GB_GLOBAL const unsigned int *meta,
                             GB_GLOBAL float *kc, GB_GLOBAL float *vc)
{
    const size_t i = GB_GLOBAL_ID(0), t = GB_GLOBAL_ID(1);
    const size_t slot = meta[NMAX + t], pos = meta[2 * NMAX + t];
#if defined(LLM_BREAK) && LLM_BREAK == 1
    if (pos % 2)
        return;
#endif
    const size_t at = (slot * CTX + pos) * KVD + i;
    GB_GLOBAL const float *col = qkv + t * (D + 2 * KVD);
    kc[at] = col[D + i];
    vc[at] = col[D + KVD + i];
}

/* Causal attention of each token over its slot's positions 0..pos, every query head h over KV
 * head h / GROUP: softmax(q k_j / sqrt(HD)) over j, times v_j, into att[:, t] (D: the heads in
 * order). One work-group of WG per (token, head): global (WG n, H), local (WG, 1). The scores
 * stay in local memory (CTX floats). */
GB_KERNEL GB_WG_HINT(WG) void llm_attn(GB_GLOBAL const float *qkv,
                                       GB_GLOBAL const unsigned int *meta,
                                       GB_GLOBAL const float *kc, GB_GLOBAL const float *vc,
                                       GB_GLOBAL float *att, float scale)
{
    GB_LOCAL float s[CTX];
    GB_LOCAL float red[WG];
    const size_t t = GB_GROUP_ID(0), h = GB_GROUP_ID(1), lid = GB_LOCAL_ID(0);
    const size_t slot = meta[NMAX + t], pos = meta[2 * NMAX + t];
    const size_t len = pos + 1;
    GB_GLOBAL const float *q = qkv + t * (D + 2 * KVD) + h * HD;
#if defined(LLM_BREAK) && LLM_BREAK == 2
    const size_t base = slot * CTX * KVD + (h % (KVD / HD)) * HD;
#else
    const size_t base = slot * CTX * KVD + (h / GROUP) * HD;
#endif
    float mx = -3.0e38f;
    for (size_t j = lid; j < len; j += WG) {
        float acc = 0.0f;
        for (size_t i = 0; i < HD; i++)
            acc = GB_FMA(q[i], kc[base + j * KVD + i], acc);
        acc *= scale;
        s[j] = acc;
        mx = acc > mx ? acc : mx;
    }
    red[lid] = mx;
    GB_BARRIER();
    for (size_t w = WG / 2; w > 0; w /= 2) {
        if (lid < w)
            red[lid] = red[lid + w] > red[lid] ? red[lid + w] : red[lid];
        GB_BARRIER();
    }
    mx = red[0];
    GB_BARRIER();
    float sum = 0.0f;
    for (size_t j = lid; j < len; j += WG) {
        const float e = exp(s[j] - mx);
        s[j] = e;
        sum += e;
    }
    red[lid] = sum;
    GB_BARRIER();
    for (size_t w = WG / 2; w > 0; w /= 2) {
        if (lid < w)
            red[lid] += red[lid + w];
        GB_BARRIER();
    }
    const float inv = 1.0f / red[0];
    for (size_t i = lid; i < HD; i += WG) {
        float acc = 0.0f;
        for (size_t j = 0; j < len; j++)
            acc = GB_FMA(s[j], vc[base + j * KVD + i], acc);
        att[t * D + h * HD + i] = acc * inv;
    }
}

/* The MLP's gate: h[:, t] = silu(g) u with g, u the halves of gu[:, t] (2 F); global (F, n). */
GB_KERNEL void llm_swiglu(GB_GLOBAL const float *gu, GB_GLOBAL float *h)
{
    const size_t i = GB_GLOBAL_ID(0), t = GB_GLOBAL_ID(1);
    const float g = gu[t * 2 * F + i], u = gu[t * 2 * F + F + i];
    h[t * F + i] = g / (1.0f + exp(-g)) * u;
}

/* The residual: x[:, t] += y[:, t]; global (D, n). */
GB_KERNEL void llm_add(GB_GLOBAL float *x, GB_GLOBAL const float *y)
{
    const size_t i = GB_GLOBAL_ID(0), t = GB_GLOBAL_ID(1);
    x[t * D + i] += y[t * D + i];
}
