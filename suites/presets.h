/* gpubench — model-shaped presets: the layer shapes of real models, for the gemm, conv and sparse
 * suites (suites/gemm.c, conv.c, sparse.c: the gemm presets name sparse's shapes too).
 *
 * A preset's name given as a `shape` value ("resnet50", "bert-large", "llama3-8b-prefill",
 * "llama3-8b-decode"), optionally with a batch "-bN" ("llama3-8b-decode-b64": 64 sequences;
 * "resnet50-b32": 32 images; default 1), expands at load time into one value per distinct layer
 * shape, named "<preset>[-bN].<layer>" ("resnet50.conv2_3x3", "llama3-8b-decode-b64.ffn_down");
 * a layer's name may be given alone too. The batch lives in the shape's value rather than in an
 * axis of its own so that the gemm suite's existing results keep their parameters. Each layer records how many times one forward pass runs it, and the suites'
 * derive step sums layer time x count into the figure `model_s` (gb_preset_model_derive): a
 * proxy of the forward pass's GEMM or convolution work alone, which says so.
 *
 * The tables and their sources are in suites/presets.c; docs/suites.md lists them.
 */
#ifndef GB_SUITES_PRESETS_H
#define GB_SUITES_PRESETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"
#include "base/params.h"
#include "results/results.h"

/* Which suite a preset's layers are shapes of. */
enum gb_preset_kind { GB_PRESET_GEMM, GB_PRESET_CONV };

/* One distinct layer shape of a model. GEMM layers are linear layers y = x W^T: C (m x n) =
 * W (m x k) times X (k x n) in the gemm suite's column-major terms, m the output features, k
 * the input features and n the tokens (the suite's batch times the preset's tokens per
 * sequence). Convolution layers are per image (conv.n = 1; the batch is N). */
struct gb_preset_layer {
    const char *name;
    unsigned count; /* how many times one forward pass runs this shape */
    uint64_t m, k;  /* GEMM */
    struct gb_conv_shape conv;
};

struct gb_preset {
    const char *name;
    enum gb_preset_kind kind;
    /* GEMM presets: tokens per sequence (n = batch x seq); 1 for decode (one new token per
     * sequence). */
    uint64_t seq;
    const char *source; /* where the shapes come from */
    const struct gb_preset_layer *layers;
    size_t nlayers;
};

/* The largest batch a preset value takes ("-b65536"). */
#define GB_PRESET_BATCH_MAX 65536

/* Every preset, in the order docs/suites.md lists them; *n gets the count. */
const struct gb_preset *gb_presets(size_t *n);

/* The preset, layer and batch a shape value names: "<preset>[-bN].<layer>" of `kind`. false
 * (both NULL, *batch 1) when `value` is no such layer. */
bool gb_preset_layer_find(const char *value, enum gb_preset_kind kind, const struct gb_preset **p,
                          const struct gb_preset_layer **l, uint64_t *batch);

/* The GEMM a shape value names, C (m x n) = A (m x k) B (k x n): a preset's linear layer (m its
 * outputs, k its inputs, n its batch times the preset's sequence: the tokens) or "N" / "MxNxK"
 * (gb_parse_mnk). *preset (may be NULL) says which. false when the value is neither. */
bool gb_preset_gemm_mnk(const char *shape, uint64_t *m, uint64_t *n, uint64_t *k, bool *preset);

/* The expansion of a shape value (gb_axis_def.expand): a preset's name of `kind`, with its batch
 * if any, becomes its layers' values "<value>.<layer>", written into out[0..cap); returns how
 * many the preset has (0: not a preset name, the value stays as it is). */
size_t gb_preset_expand(const char *value, enum gb_preset_kind kind, char (*out)[GB_STR_MAX],
                        size_t cap);

/* When `value` names a preset of `kind` (with its batch) followed by a layer it does not have,
 * "preset's layers: a, b, ..." in why[0..len) and true; else false (why untouched). For the
 * suites' load-time shape checks. */
bool gb_preset_layers_hint(const char *value, enum gb_preset_kind kind, char *why, size_t len);

/* Below this arithmetic intensity (FLOP per byte) a GEMM is memory-bound on every device, so
 * that a device which states no memory bandwidth (PoCL) still gets a GEMV-shaped layer's figures
 * right: no device's ridge point (peak rate over memory bandwidth) is this low. H200: 67 TFLOP/s
 * FP32 over 4.8 TB/s, 14 FLOP/B (NVIDIA H200 datasheet); A64FX: 6.8 TFLOP/s FP32 over 1,024 GB/s
 * of HBM2, 6.6 (Fujitsu A64FX datasheet); one AVX-512 core at 2 GHz, 128 GFLOP/s, over a DDR5
 * channel's 38.4 GB/s, 3.3. */
#define GB_ROOFLINE_RIDGE_FLOOR 1.0

/* The roofline of one GEMM (a linear layer) of `flops` operations that moves at least `bytes`
 * (A, B and C, each once): its intensity flops / bytes against the device's ridge point
 * peak_ops (operations per second, the case's arithmetic peak; 0: unknown) over the memory
 * bandwidth (info->peak_mem_gbs, GB/s), or against GB_ROOFLINE_RIDGE_FLOOR where either is
 * unknown. true when the GEMM is memory-bound, i.e. below the ridge: its figure of merit is then
 * GB/s against the memory bandwidth, not GFLOP/s (Williams, Waterman and Patterson, "Roofline:
 * An Insightful Visual Performance Model for Multicore Architectures", CACM 52(4), 2009). why
 * gets the verdict in words ("memory-bound: 0.5 FLOP/B below the ridge 14"), at most 63
 * bytes for a text figure. */
bool gb_gemm_memory_bound(const struct gb_device_info *info, double flops, double bytes,
                          double peak_ops, char *why, size_t len);

/* The derive step of a suite with presets: for every group of ok results of `suite` whose
 * shape axis names layers of one preset and whose other parameters, device and backend are the
 * same, the figure `model_s` (seconds: the sum over the preset's layers of the median time per
 * operation times the layer's count; groups of different batches apart) and the text `model` saying what it is, on the group's
 * result of the preset's last layer; when a layer of the preset is missing or not ok, the text
 * says how many are and no time is given. Returns 0 or GB_ENOMEM. */
int gb_preset_model_derive(struct gb_results *rs, const char *suite, enum gb_preset_kind kind);

#endif
