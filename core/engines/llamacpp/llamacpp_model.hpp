// llama.cpp's view of a model: which layers its create_memory allocates for and how (attention in
// the base cache or the sliding-window cache, MLA's latent, recurrent state, none), by the rules of
// its architecture (src/models/<arch>.cpp), kept as data in llamacpp_architectures.inc.
#pragma once

#include <cstdint>
#include <string_view>

#include "config/model.hpp"

namespace kvcalc {

// Which layers keep a sliding-window cache (llama-hparams.cpp set_swa_pattern).
enum class SwaRule : std::uint8_t {
    none,         // no SWA cache: every attention layer is full
    period,       // layer il is SWA iff il % p < p - 1: the last layer of each period is full
    dense_first,  // layer il is SWA iff il % p != 0
    layer_bools,  // {arch}.attention.sliding_window_pattern, one bool per layer (true: SWA)
    disabled,     // SWA switched off even where the model has a window (phi3)
};

// Which layers keep recurrent state instead of attention.
enum class RecurrentRule : std::uint8_t {
    none,
    kv_heads_zero,       // n_head_kv(il) == 0 (jamba, lfm2, granite-hybrid, ...)
    kv_and_ff_zero,      // Nemotron-H: n_head_kv(il) == 0 and n_ff(il) == 0 (n_ff alone: an MLP-only layer)
    attention_interval,  // (il + 1) % full_attention_interval != 0 (Qwen3-Next, Qwen3.5)
    every_layer,         // every layer, beside its attention (Falcon-H1)
    all,                 // every layer, no attention (Mamba)
};

// How a recurrent layer's R and S rows are sized (llama-hparams.cpp n_embd_r, n_embd_s).
enum class StateRule : std::uint8_t {
    none,
    ssm,        // (ssm.conv_kernel - 1) x (ssm.inner_size + 2 x ssm.group_count x ssm.state_size), and
                // ssm.state_size x ssm.inner_size
    shortconv,  // n_embd x (shortconv.l_cache - 1), and none
};

// One architecture's rules, a row of llamacpp_architectures.inc.
struct LlamacppArch {
    const char* arch;         // general.architecture
    const char* model_types;  // the config model_types that convert to it, space separated
    SwaRule swa;
    std::uint8_t swa_period;       // the default period (the GGUF's scalar sliding_window_pattern wins)
    std::uint32_t default_window;  // n_swa without {arch}.attention.sliding_window (0: no SWA then)
    bool chunked;  // LLAMA_SWA_TYPE_CHUNKED with n_swa = default_window, whatever the file says
    RecurrentRule recurrent;
    StateRule state;
    std::uint8_t kv_layers;  // n_layer_kv_from_start fixed by the model (Gemma 3n: 20), else 0
    bool shared_kv_key;      // {arch}.attention.shared_kv_layers sets n_layer_kv_from_start (Gemma 4)
    bool mla;                // key_length_mla / value_length_mla mark an MLA file
    bool nextn_filtered;     // the main context leaves its nextn_predict_layers out (create_memory)
};

const LlamacppArch* find_llamacpp_arch(std::string_view arch);

// The architecture a config's model_type converts to, or nullptr.
const LlamacppArch* llamacpp_arch_for_model_type(std::string_view model_type);

// Whether layer `il` of `n` keeps a sliding-window cache under a period rule.
bool llamacpp_swa_layer(SwaRule rule, std::uint32_t period, std::uint32_t il);

// The model as llama.cpp allocates for it: a GGUF's model as it is; a config's mapped through its
// model_type's architecture (SWA layers by llama.cpp's rule, shared-KV layers, no window where llama.cpp
// keeps none). What llama.cpp does not have (cross-attention, an encoder, looped layers, indexer keys)
// and a model_type with no mapping are errors that say so.
Result<ModelSpec> llamacpp_model(const ModelSpec& m, std::uint64_t build);

}  // namespace kvcalc
