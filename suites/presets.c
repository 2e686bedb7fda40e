/* gpubench — model-shaped presets (suites/presets.h): the tables and the model figure.
 *
 * Sources of the shapes:
 * - resnet50: He, Zhang, Ren and Sun, "Deep Residual Learning for Image Recognition", CVPR 2016,
 *   Table 1, the 50-layer column, at 224 x 224; the stride-2 convolution of each stage's first
 *   block is its 3x3 one (torchvision's ResNet-50, "v1.5", the model MLPerf trains), and each
 *   stage's first block has a 1x1 projection shortcut. 53 convolutions and one fully connected
 *   layer (the gemm preset "resnet50": fc, 2048 -> 1000).
 * - bert-large: Devlin, Chang, Lee and Toutanova, "BERT: Pre-training of Deep Bidirectional
 *   Transformers for Language Understanding", NAACL 2019, section 3: L = 24 layers, H = 1024,
 *   A = 16 heads, feed-forward 4H = 4096; sequences of 512 tokens (its longest). Per layer the
 *   Q, K and V projections (one fused 1024 -> 3072 GEMM), the attention output (1024 -> 1024)
 *   and the two feed-forward GEMMs.
 * - llama3-8b-prefill / -decode: Llama Team, AI @ Meta, "The Llama 3 Herd of Models", 2024,
 *   Table 3 (8B: 32 layers, model dimension 4096, FFN dimension 14336, 32 attention heads,
 *   8 key/value heads of 128) and the released model's vocabulary of 128256 tokens. Per layer
 *   the fused QKV projection (4096 -> 4096 + 2 x 1024), the attention output, the SwiGLU
 *   feed-forward's gate and up projections (4096 -> 14336, twice) and down projection, and the
 *   output head once. Prefill runs 2048-token prompts (gpubench's choice of a typical prompt);
 *   decode one new token per sequence, so its n is the batch (1 to 256 sequences).
 * Attention's own products (Q K^T, P V), normalisations, activations and pooling are not in the
 * tables: the model figure is the forward pass's dense GEMM or convolution work alone.
 */
#include "suites/presets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/units.h"

/* A convolution of one image: C x H x W by K filters of R x S, stride st, padding pd. */
#define CONV(nm, cnt, c_, hw, k_, rs, st, pd) \
    {                                         \
        .name = nm, .count = cnt, .conv = {   \
            .n = 1,                           \
            .c = c_,                          \
            .h = hw,                          \
            .w = hw,                          \
            .k = k_,                          \
            .r = rs,                          \
            .s = rs,                          \
            .stride_h = st,                   \
            .stride_w = st,                   \
            .pad_h = pd,                      \
            .pad_w = pd,                      \
            .dil_h = 1,                       \
            .dil_w = 1,                       \
            .groups = 1                       \
        }                                     \
    }
#define LINEAR(nm, cnt, out, in)                    \
    {                                               \
        .name = nm, .count = cnt, .m = out, .k = in \
    }

static const struct gb_preset_layer resnet50_conv[] = {
    CONV("conv1", 1, 3, 224, 64, 7, 2, 3),
    /* conv2_x: 3 blocks at 56 x 56 (after the 3x3 max pool) */
    CONV("conv2_1x1_64_64", 1, 64, 56, 64, 1, 1, 0),
    CONV("conv2_1x1_256_64", 2, 256, 56, 64, 1, 1, 0),
    CONV("conv2_3x3", 3, 64, 56, 64, 3, 1, 1),
    CONV("conv2_1x1_64_256", 4, 64, 56, 256, 1, 1, 0), /* 3 expansions + the projection */
    /* conv3_x: 4 blocks, 56 -> 28 */
    CONV("conv3_1x1_256_128", 1, 256, 56, 128, 1, 1, 0),
    CONV("conv3_3x3_s2", 1, 128, 56, 128, 3, 2, 1),
    CONV("conv3_proj", 1, 256, 56, 512, 1, 2, 0),
    CONV("conv3_1x1_512_128", 3, 512, 28, 128, 1, 1, 0),
    CONV("conv3_3x3", 3, 128, 28, 128, 3, 1, 1),
    CONV("conv3_1x1_128_512", 4, 128, 28, 512, 1, 1, 0),
    /* conv4_x: 6 blocks, 28 -> 14 */
    CONV("conv4_1x1_512_256", 1, 512, 28, 256, 1, 1, 0),
    CONV("conv4_3x3_s2", 1, 256, 28, 256, 3, 2, 1),
    CONV("conv4_proj", 1, 512, 28, 1024, 1, 2, 0),
    CONV("conv4_1x1_1024_256", 5, 1024, 14, 256, 1, 1, 0),
    CONV("conv4_3x3", 5, 256, 14, 256, 3, 1, 1),
    CONV("conv4_1x1_256_1024", 6, 256, 14, 1024, 1, 1, 0),
    /* conv5_x: 3 blocks, 14 -> 7 */
    CONV("conv5_1x1_1024_512", 1, 1024, 14, 512, 1, 1, 0),
    CONV("conv5_3x3_s2", 1, 512, 14, 512, 3, 2, 1),
    CONV("conv5_proj", 1, 1024, 14, 2048, 1, 2, 0),
    CONV("conv5_1x1_2048_512", 2, 2048, 7, 512, 1, 1, 0),
    CONV("conv5_3x3", 2, 512, 7, 512, 3, 1, 1),
    CONV("conv5_1x1_512_2048", 3, 512, 7, 2048, 1, 1, 0),
};

static const struct gb_preset_layer resnet50_fc[] = {
    LINEAR("fc", 1, 1000, 2048),
};

static const struct gb_preset_layer bert_large[] = {
    LINEAR("qkv", 24, 3072, 1024),
    LINEAR("attn_out", 24, 1024, 1024),
    LINEAR("ffn_up", 24, 4096, 1024),
    LINEAR("ffn_down", 24, 1024, 4096),
};

static const struct gb_preset_layer llama3_8b[] = {
    LINEAR("qkv", 32, 6144, 4096),          LINEAR("attn_out", 32, 4096, 4096),
    LINEAR("ffn_gate_up", 64, 14336, 4096), LINEAR("ffn_down", 32, 4096, 14336),
    LINEAR("lm_head", 1, 128256, 4096),
};

#define N_(a) (sizeof(a) / sizeof((a)[0]))
static const struct gb_preset presets[] = {
    {"resnet50", GB_PRESET_CONV, 1, "He et al. 2016, Table 1 (torchvision v1.5 strides)",
     resnet50_conv, N_(resnet50_conv)},
    {"resnet50", GB_PRESET_GEMM, 1, "He et al. 2016, Table 1: the fc layer", resnet50_fc,
     N_(resnet50_fc)},
    {"bert-large", GB_PRESET_GEMM, 512, "Devlin et al. 2019, section 3", bert_large,
     N_(bert_large)},
    {"llama3-8b-prefill", GB_PRESET_GEMM, 2048, "Llama 3 Herd of Models 2024, Table 3", llama3_8b,
     N_(llama3_8b)},
    {"llama3-8b-decode", GB_PRESET_GEMM, 1, "Llama 3 Herd of Models 2024, Table 3", llama3_8b,
     N_(llama3_8b)},
};

const struct gb_preset *gb_presets(size_t *n)
{
    *n = N_(presets);
    return presets;
}

/* The preset of `kind` that name[0..len) names, "<preset>" or "<preset>-bN" (N sequences or
 * images, 1 to GB_PRESET_BATCH_MAX, no leading zero), with the batch in *batch; NULL if none. */
static const struct gb_preset *find(const char *name, size_t len, enum gb_preset_kind kind,
                                    uint64_t *batch)
{
    *batch = 1;
    for (size_t i = 0; i < N_(presets); i++) {
        const size_t n = strlen(presets[i].name);
        if (presets[i].kind != kind || len < n || strncmp(presets[i].name, name, n) != 0)
            continue;
        if (len == n)
            return &presets[i];
        /* "-b" and 1 to 5 digits, the first not 0 */
        const char *b = name + n;
        const size_t digits = len - n - 2;
        if (len < n + 3 || b[0] != '-' || b[1] != 'b' || b[2] == '0' || digits > 5)
            continue;
        uint64_t v = 0;
        bool ok = true;
        for (size_t d = 0; d < digits; d++) {
            ok &= b[2 + d] >= '0' && b[2 + d] <= '9';
            v = v * 10 + (uint64_t)(b[2 + d] - '0');
        }
        if (ok && v >= 1 && v <= GB_PRESET_BATCH_MAX) {
            *batch = v;
            return &presets[i];
        }
    }
    return NULL;
}

bool gb_preset_gemm_mnk(const char *shape, uint64_t *m, uint64_t *n, uint64_t *k, bool *preset)
{
    const struct gb_preset *pr;
    const struct gb_preset_layer *ly;
    uint64_t batch;
    const bool layer = gb_preset_layer_find(shape, GB_PRESET_GEMM, &pr, &ly, &batch);
    if (preset)
        *preset = layer;
    if (!layer)
        return gb_parse_mnk(shape, m, n, k);
    *m = ly->m;
    *k = ly->k;
    *n = batch * pr->seq;
    return true;
}

bool gb_preset_layer_find(const char *value, enum gb_preset_kind kind, const struct gb_preset **p,
                          const struct gb_preset_layer **l, uint64_t *batch)
{
    *p = NULL;
    *l = NULL;
    *batch = 1;
    const char *dot = strrchr(value, '.');
    if (!dot)
        return false;
    uint64_t b;
    const struct gb_preset *pr = find(value, (size_t)(dot - value), kind, &b);
    if (!pr)
        return false;
    for (size_t i = 0; i < pr->nlayers; i++)
        if (strcmp(pr->layers[i].name, dot + 1) == 0) {
            *p = pr;
            *l = &pr->layers[i];
            *batch = b;
            return true;
        }
    return false;
}

size_t gb_preset_expand(const char *value, enum gb_preset_kind kind, char (*out)[GB_STR_MAX],
                        size_t cap)
{
    uint64_t b;
    const struct gb_preset *pr = find(value, strlen(value), kind, &b);
    if (!pr)
        return 0;
    for (size_t i = 0; i < pr->nlayers && i < cap; i++)
        snprintf(out[i], GB_STR_MAX, "%s.%s", value, pr->layers[i].name);
    return pr->nlayers;
}

bool gb_preset_layers_hint(const char *value, enum gb_preset_kind kind, char *why, size_t len)
{
    const char *dot = strrchr(value, '.');
    uint64_t b;
    const struct gb_preset *pr = dot ? find(value, (size_t)(dot - value), kind, &b) : NULL;
    if (!pr || !len)
        return false;
    size_t at =
        (size_t)snprintf(why, len, "%s has no layer \"%s\"; its layers:", pr->name, dot + 1);
    for (size_t i = 0; i < pr->nlayers && at < len; i++)
        at += (size_t)snprintf(why + at, len - at, "%s %s", i ? "," : "", pr->layers[i].name);
    return true;
}

bool gb_gemm_memory_bound(const struct gb_device_info *info, double flops, double bytes,
                          double peak_ops, char *why, size_t len)
{
    const double ai = bytes > 0 ? flops / bytes : 0;
    const bool known = peak_ops > 0 && info->peak_mem_gbs > 0;
    const double ridge = known ? peak_ops / (info->peak_mem_gbs * 1e9) : GB_ROOFLINE_RIDGE_FLOOR;
    const bool memory = ai < ridge;
    snprintf(why, len, "%s: %.3g FLOP/B %s %s %.3g", memory ? "memory-bound" : "compute-bound", ai,
             memory ? "below" : "above", known ? "the ridge" : "any ridge, at least", ridge);
    return memory;
}

/* Whether a and b are the same case but for the layer of the shape axis (and of one device):
 * their shapes' preset parts ("resnet50-b8") agree. */
static bool same_but_shape(const struct gb_result *a, const struct gb_result *b)
{
    const char *sa = gb_params_str(&a->params, "shape"), *sb = gb_params_str(&b->params, "shape");
    const char *da = strrchr(sa, '.'), *db = strrchr(sb, '.');
    if (!da || !db || da - sa != db - sb || strncmp(sa, sb, (size_t)(da - sa)) != 0)
        return false;
    if (a->params.n != b->params.n || a->device_index != b->device_index ||
        strcmp(a->backend, b->backend) != 0 || strcmp(a->suite, b->suite) != 0)
        return false;
    for (size_t i = 0; i < a->params.n; i++) {
        if (strcmp(a->params.name[i], "shape") == 0)
            continue;
        if (strcmp(a->params.name[i], b->params.name[i]) != 0 ||
            !gb_value_equal(&a->params.v[i], &b->params.v[i]))
            return false;
    }
    return true;
}

int gb_preset_model_derive(struct gb_results *rs, const char *suite, enum gb_preset_kind kind)
{
    const size_t n0 = rs->nresults;
    bool *used = calloc(n0 ? n0 : 1, sizeof *used);
    if (!used)
        return GB_ENOMEM;
    for (size_t i = 0; i < n0; i++) {
        const struct gb_result *first = &rs->results[i];
        const struct gb_preset *pr;
        const struct gb_preset_layer *ly;
        uint64_t batch;
        if (used[i] || strcmp(first->suite, suite) != 0 ||
            !gb_preset_layer_find(gb_params_str(&first->params, "shape"), kind, &pr, &ly, &batch))
            continue;
        /* The group: every result of this preset that differs from `first` in shape alone. */
        double total = 0;
        size_t ok = 0, last = i;
        ptrdiff_t last_layer = -1;
        bool *seen = calloc(pr->nlayers, sizeof *seen);
        if (!seen) {
            free(used);
            return GB_ENOMEM;
        }
        for (size_t j = i; j < n0; j++) {
            const struct gb_result *r = &rs->results[j];
            const struct gb_preset *pj;
            const struct gb_preset_layer *lj;
            uint64_t bj;
            if (used[j] || !same_but_shape(first, r) ||
                !gb_preset_layer_find(gb_params_str(&r->params, "shape"), kind, &pj, &lj, &bj) ||
                pj != pr)
                continue;
            used[j] = true;
            const ptrdiff_t li = lj - pr->layers;
            if (li > last_layer)
                last_layer = li, last = j;
            if (r->status != GB_STATUS_OK || seen[li] || !(r->op_time_us.median > 0))
                continue;
            seen[li] = true;
            ok++;
            total += r->op_time_us.median * 1e-6 * lj->count;
        }
        free(seen);
        struct gb_result *d = &rs->results[last];
        if (d->status != GB_STATUS_OK)
            continue; /* a figure goes on an ok result only */
        if (ok == pr->nlayers) {
            gb_result_figure(d, "model_s", "s", total);
            gb_result_text(
                d, "model", "%s x%llu: %s only, %zu shapes", pr->name, (unsigned long long)batch,
                kind == GB_PRESET_CONV ? "convolutions" : "linear-layer GEMMs", pr->nlayers);
        } else {
            gb_result_text(d, "model", "%s x%llu: incomplete, %zu of %zu shapes ok", pr->name,
                           (unsigned long long)batch, ok, pr->nlayers);
        }
    }
    free(used);
    return 0;
}
