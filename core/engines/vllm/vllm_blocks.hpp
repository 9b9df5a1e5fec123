// vLLM's accounting: the blocks one request reserves in each layer, the block layout of a model
// (hybrid page alignment), its padding layers, its state blocks. SizePlan (sizing/sizing.cpp)
// evaluates them for the vllm accounting; the check's pool reads them too.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "config/model.hpp"
#include "sizing/checked.hpp"

namespace kvcalc {

// vLLM's blocks of B tokens one request of C tokens reserves in one layer (ENGINES.md 1.3),
// with T tokens in flight: sliding layers keep the window and what is in flight, plus one
// block for a window that does not start on a block boundary.
inline std::uint64_t vllm_request_blocks(const LayerGroup& g, std::uint64_t C, std::uint64_t B,
                                         std::uint64_t T) {
    switch (g.kind) {
        case LayerKind::full_attention:
        case LayerKind::mla:
            return cdiv(C, B);
        case LayerKind::sliding_window:
            return cdiv(std::min(g.window.value - 1 + T, C), B) + 1;
        case LayerKind::chunked_local:
            return cdiv(std::min(g.window.value + T, C), B);
        default:
            return 0;
    }
}

// vLLM's state blocks per Mamba-like layer and request (vllm/v1/kv_cache_interface.py
// MambaSpec.max_memory_usage_bytes): page x (1 + num_speculative_blocks) in mamba_cache_mode
// "none", page x (2 + num_speculative_blocks) in "align"; num_speculative_blocks is
// num_speculative_tokens (vllm/model_executor/layers/mamba/abstract.py
// MambaBase.get_kv_cache_spec). Mode "all" (a block per block_size tokens) is not modelled.
inline std::uint64_t vllm_state_blocks(bool mamba_align, std::uint64_t speculative_tokens) {
    return (mamba_align ? 2 : 1) + speculative_tokens;
}

// vLLM's block per group of the model and the state page, given each group's bytes a token (`tok`)
// and a state (`state`) on one layer.
struct VllmBlockLayout {
    std::vector<std::uint64_t> block;  // per group
    std::uint64_t base_block = 0;
    std::uint64_t linear_page = 0;  // per linear layer
};

// vLLM's block layout: hybrid attention + state models enlarge the attention block until
// its page holds one state page (align 16, 64 for MLA) and pad the state page to it;
// models mixing attention types with different page sizes grow the smaller pages' block.
VllmBlockLayout vllm_block_layout(const ModelSpec& m, const std::vector<std::uint64_t>& tok,
                                  const std::vector<std::uint64_t>& state, std::uint64_t block,
                                  std::vector<Warning>* warnings);

// vLLM's padding layers (ENGINES.md 1.7, case 4): a model with more than one kind of cached
// layer (full, sliding or chunked per window, MLA, state) has its layers in groups of one
// size, the smallest kind's count (the largest's when under 1.5 times it); a kind whose count
// is not a multiple pays for whole groups. Per group of the model: the padding layers its kind
// adds (counted on the kind's first group), given each group's layers in `count`.
std::vector<std::uint64_t> vllm_padding_layers(const ModelSpec& m, const std::vector<std::uint64_t>& count);

}  // namespace kvcalc
