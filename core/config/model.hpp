// What the core knows about a model after reading its config: the text model's geometry,
// a per-layer plan of cache kinds, and where every value came from.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/json_fwd.hpp"
#include "result.hpp"

namespace kvcalc {

// A value with its provenance: the field it was read from ("num_key_value_heads"), or the
// derivation ("hidden_size 3584 / num_attention_heads 28"), so the UI can show it.
struct Sourced {
    std::uint64_t value = 0;
    std::string source;
};

enum class LayerKind {
    full_attention,  // K and V for every token
    mla,             // one compressed latent per token (DeepSeek V2/V3, Kimi)
    sliding_window,  // like full, but only the last `window` tokens are kept
    chunked_local,   // like full, but only the current chunk of `window` tokens
    linear_state,    // linear attention / Mamba: a fixed state per sequence
    no_cache,        // MLP-only blocks, layers that reuse another layer's cache
};

const char* layer_kind_name(LayerKind kind);  // "full_attention", "mla", ...

// The kinds that cache K and V (or a latent) per token.
inline bool is_attention(LayerKind k) {
    return k == LayerKind::full_attention || k == LayerKind::mla || k == LayerKind::sliding_window ||
           k == LayerKind::chunked_local;
}

// Fixed per-sequence state of a linear-attention or Mamba layer, from the config's state
// dims. conv: conv_rows x conv_channels elements; ssm: ssm_heads x ssm_head_elements.
// Tensor parallelism shards conv_channels and ssm_heads.
struct StateShape {
    std::string mixer;  // "gated_delta_net", "mamba2", "kda"
    std::uint64_t conv_rows = 0;
    std::uint64_t conv_channels = 0;
    std::uint64_t ssm_heads = 0;
    std::uint64_t ssm_head_elements = 0;
    unsigned conv_bits = 16;
    unsigned ssm_bits = 16;
    // mamba2: n_groups and the conv channels of one group (2 x d_state). When tp does not divide
    // n_groups (then 1), vLLM gives every GPU its own copy of the group (mamba_utils.py
    // extra_groups_for_head_shards).
    std::uint64_t groups = 0;
    std::uint64_t group_channels = 0;
    std::string source;  // how the dims were read, for display
};

// Layers that share one geometry and kind.
struct LayerGroup {
    LayerKind kind = LayerKind::full_attention;
    std::string name;         // as the config names it ("sliding_attention", "M", ...)
    std::uint32_t count = 0;  // caches: layers x per_layer
    // Caches each of its layers keeps: a looped model registers one attention per layer and loop step
    // (Ouro's total_ut_steps, IQuest-LoopCoder's loop_num - 1 sliding ones); else 1.
    std::uint32_t per_layer = 1;
    Sourced kv_heads;    // attention kinds
    Sourced k_head_dim;  // attention kinds
    Sourced v_head_dim;  // attention kinds (= k_head_dim unless the config differs)
    Sourced latent_dim;  // mla: kv_lora_rank + qk_rope_head_dim
    // mla: the latent without its rope part (kv_lora_rank), which llama.cpp b5137-b7835 allocates again
    // as V (llama.cpp's value_length of an MLA GGUF).
    Sourced latent_v_dim;
    // mla: each query head's key (qk_nope_head_dim + qk_rope_head_dim) and value (v_head_dim)
    // before compression, for showing the attention MLA compresses; 0 when the config lacks them.
    Sourced mla_k_head_dim, mla_v_head_dim;
    Sourced indexer_bytes;  // mla: bytes per token of a sparse-attention indexer's keys (DeepSeek-V3.2), or 0
    // full_attention: one indexer key of this many elements a token beside K and V, in vLLM's
    // indexer_kv_dtype and the same on every GPU (MiniMax-M3's sparse layers), or 0.
    Sourced indexer_dim;
    Sourced window;       // sliding_window / chunked_local: tokens kept
    Sourced query_heads;  // attention kinds whose query heads are not the model's (Step-3.5), else 0
    StateShape state;     // linear_state
    // An encoder-decoder's cross-attention (vLLM's CrossAttentionSpec): it holds the encoder's tokens
    // (scheduler_config.max_num_encoder_input_tokens of them a request), whatever the context.
    bool cross_attention = false;
    // Layers of an encoder run beside the text model on every step (Voxtral Realtime's causal Whisper, in
    // audio_config): counted in `count`, in no entry of layer_group (the text model's layers).
    bool encoder = false;
};

struct Warning {
    std::string field;
    std::string message;
};

struct ModelSpec {
    std::string name;  // _name_or_path, else architectures[0], else model_type
    std::string name_source;
    std::string text_path;   // "" for the root, or "text_config" / "llm_config" / ...
    std::string model_type;  // the text model's config class: its own, its wrapper's, else the root's
    std::string family;      // the architecture's family in vLLM's registry ("" when unknown)
    // llama.cpp's architecture (general.architecture) when the model is llama.cpp's view of it: read from a
    // GGUF, or a config mapped by its model_type (engines/llamacpp/llamacpp_model.cpp); else "".
    std::string llamacpp_arch;
    std::string llamacpp_arch_source;
    Sourced num_layers;
    Sourced query_heads;
    Sourced hidden_size;  // value 0 when the config has none
    Sourced max_context;  // value 0 when the config has none
    std::string dtype;    // as written: "bfloat16", "float16", "float32", or ""
    std::string dtype_source;
    unsigned model_dtype_bits = 16;
    std::string kv_quant;  // "fp8" when quantization_config declares a KV-cache scheme
    std::string kv_quant_source;
    bool fp8_weights = false;       // quantization_config.quant_method fp8 (the text model's or the root's)
    std::string layer_plan_source;  // the field(s) that decided the layer kinds
    Sourced block_size;  // the block vLLM sets for this model (MiniMax-M3's sparse_block_size), or 0
    // Gemma 4's attention_k_eq_v (DiffusionGemma's always): its full layers' K serves as V, their KV heads
    // num_global_key_value_heads; the layer plan and the weights read it here.
    bool k_eq_v = false;
    std::vector<LayerGroup> groups;
    std::vector<std::uint32_t> layer_group;  // layer index -> index into groups
    // Layers with a second cache of another kind: layer index -> its group, or no_second_cache.
    // Falcon-H1 keeps a Mamba-2 state beside every layer's attention; Zamba2 a shared attention block's
    // KV beside the Mamba-2 state of its hybrid layers. Empty for every other model.
    std::vector<std::uint32_t> layer_second_group;
    static constexpr std::uint32_t no_second_cache = 0xffffffffu;
    // The most layers a model (or an encoder beside it) may have: beyond any real model.
    static constexpr std::uint64_t max_layers = 100000;
    std::vector<Warning> warnings;
    // The whole config, for the weights estimate (shared: variants of a model share it), and
    // the text model's object in it.
    std::shared_ptr<const json> config;
    const json* text = nullptr;
    const json& root() const { return *config; }

    std::uint32_t count(LayerKind kind) const;
    bool has(LayerKind kind) const { return count(kind) > 0; }
};

// Reads a parsed config. Errors name the field (with its text_config prefix) and the value.
Result<ModelSpec> read_model(json config);

// parse_json_text + read_model.
Result<ModelSpec> read_model_text(std::string_view text);

}  // namespace kvcalc
