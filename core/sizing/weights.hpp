// Parameter count and weight bytes estimated from a config: what the weights leave of a
// GPU's memory for the KV pool. Only the text model is counted: multimodal towers
// (vision_config, audio_config, ...) and multi-token-prediction layers are left out,
// and the estimate says so in `excluded`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/model.hpp"
#include "sizing/sizing.hpp"

namespace kvcalc {

// Bits per element as an exact fraction, so quantized formats with scales stay exact:
// mxfp4 is 17/4 bits (4-bit values plus one 8-bit scale per 32), DeepSeek's block fp8 is
// (8 x 128 x 128 + 32) / (128 x 128) bits (one fp32 scale per 128 x 128 block).
struct WeightDtype {
    std::string name = "bf16";           // "bf16", "fp8", "mxfp4", "int4", ...
    std::uint64_t linear_bits_num = 16;  // the quantized linear weights of the decoder layers
    std::uint64_t linear_bits_den = 1;
    std::uint64_t other_bits = 16;    // embeddings, lm_head, norms, routers, biases
    bool attention_quantized = true;  // false when modules_to_not_convert keeps attention in 16-bit
    std::string source;               // "quantization_config.quant_method fp8 ..." or "weight_dtype int4"
};

// How a block of parameters is split under tensor parallelism.
enum class Shard {
    split,       // divided evenly across the tp ranks (column / row parallel, vocab parallel)
    kv_heads,    // K/V projections: split by KV head, one head replicated per rank above tp
    replicated,  // every rank holds all of it (norms, routers, MLA's down-projections)
};

struct ParamBlock {
    const char* part = "";  // "attention", "mlp", "experts", "shared_experts", "router", "mixer", "norms"
    std::uint64_t params = 0;
    Shard shard = Shard::split;
    std::uint64_t kv_heads = 0;  // Shard::kv_heads only
    bool linear = true;          // a quantizable linear weight (norms, biases, routers are not)
};

// Totals by part, whole model.
struct WeightParts {
    std::uint64_t embedding = 0;           // token embeddings (and per-layer input embeddings)
    std::uint64_t position_embedding = 0;  // learned absolute positions (GPT-2)
    std::uint64_t lm_head = 0;             // 0 when tied to the embeddings
    std::uint64_t attention = 0;           // projections, MLA included, and their biases
    std::uint64_t mixer = 0;               // linear-attention / Mamba mixers
    std::uint64_t mlp = 0;                 // dense MLPs
    std::uint64_t experts = 0;             // routed experts
    std::uint64_t shared_experts = 0;      // always-on experts
    std::uint64_t router = 0;
    std::uint64_t norms = 0;  // every norm, the final one included
};

struct WeightEstimate {
    std::uint64_t param_count = 0;
    WeightParts parts;
    bool tied_embeddings = false;
    std::string tied_source;  // "tie_word_embeddings false", or the default used
    WeightDtype dtype;
    std::uint64_t weight_bytes = 0;               // whole model
    std::uint64_t embedding_bytes = 0;            // first pipeline stage (token + position embeddings)
    std::uint64_t head_bytes = 0;                 // last pipeline stage: lm_head (0 when tied)
    std::uint64_t final_norm_bytes = 0;           // last pipeline stage, on every tp rank
    std::vector<std::vector<ParamBlock>> layers;  // per decoder layer
    std::vector<std::string> excluded;            // what the count leaves out, for display
    std::vector<Warning> warnings;
};

// `requested`: auto (from quantization_config, else the model's 16-bit dtype), bf16, fp16,
// fp32, fp8, int8, int4, mxfp4, nvfp4 (and the long spellings bfloat16, float16, float32).
// A quantized format applies to the decoder layers' linear weights; embeddings, lm_head,
// norms and routers stay 16-bit, as engines keep them.
Result<WeightDtype> resolve_weight_dtype(const std::string& requested, const ModelSpec& m);

Result<WeightEstimate> estimate_weights(const ModelSpec& m, const std::string& weight_dtype = "auto");

// Bytes of one block at the estimate's dtype, on one of `tp` ranks (tp 1: the whole block).
Result<std::uint64_t> block_bytes(const ParamBlock& b, const WeightDtype& d, std::uint64_t tp);

// Weight bytes on the busiest GPU: `stages` is size_model's pipeline split (first_layer,
// layers); the first stage holds the embeddings, the last the head, tp shards each layer.
Result<std::uint64_t> weight_bytes_per_gpu(const WeightEstimate& w, const std::vector<StageFigures>& stages,
                                           std::uint64_t tp);

// "72.71B", "596.04M", "1.03T": two decimals at most, rounded half up, integers only.
std::string format_param_count(std::uint64_t params);

}  // namespace kvcalc
