// vLLM's KV pool: its layout of a model's cache in blocks (KV cache groups, padding layers)
// and its reading of the pool a startup log states (vllm_log_pool.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "config/model.hpp"
#include "sizing/sizing.hpp"

namespace kvcalc {

// vLLM V1's KV cache on one GPU (kv_cache_utils get_kv_cache_groups, ENGINES.md 1.7): one
// group when every cached layer keeps the same number of tokens, whose block spans every
// layer; otherwise each kind of layer in groups of one size (padded), every group's block a
// page of the same size in each of group_size shared tensors. The pool is a number of such
// blocks; a request takes some in every group.
struct VllmLayout {
    bool hybrid = false;
    std::uint64_t groups = 1;          // KV cache groups
    std::uint64_t group_size = 0;      // layers a group holds (hybrid)
    std::uint64_t padding_layers = 0;  // added to fill the groups (hybrid)
    std::uint64_t block_bytes = 0;     // one block of the pool, on one GPU
    std::uint64_t min_block = 0;       // the smallest block size in tokens (its token figure's unit)
    std::string text;                  // "7 groups of 10 layers (52 sliding_attention + 8 padding, 10 full)"
};

// The layout of `r` (the per-GPU figures of one request, vLLM accounting). An error names
// what vLLM does that kvcalc does not model here (pipeline stages of a hybrid model).
Result<VllmLayout> vllm_layout(const ModelSpec& m, const SizeResult& r);

struct LogInputs;
struct LogPool;

// The pool vLLM's log lines state, read against kvcalc's layout of the model (`plan` and `sized`:
// one request at the check's context, vLLM accounting, per GPU): into `out`.
Result<bool> read_vllm_log_pool(const LogInputs& in, const SizePlan& plan, const SizeResult& sized,
                                LogPool& out);

}  // namespace kvcalc
