// What llama.cpp allocates for a model (LLAMACPP.md 1.11): its context split into slots and
// padded by the build's rule, one llama_kv_cache of the full-attention (and MLA) layers, one of
// the sliding-window layers, and one llama_memory_recurrent of the recurrent layers' f32 state,
// each with K and V (R and S) apart, as its log prints them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/model.hpp"
#include "engines/llamacpp/llamacpp_settings.hpp"

namespace kvcalc {

enum class LlamacppCache : std::uint8_t { none, base, swa, recurrent };
const char* llamacpp_cache_name(LlamacppCache c);  // "base", "swa", "recurrent"

// One memory object, as its "size = ..." log line states it.
struct LlamacppObject {
    LlamacppCache cache = LlamacppCache::base;
    std::uint64_t cells = 0;   // per stream (the log's "cells"); recurrent: one per sequence
    std::uint64_t layers = 0;  // the layers that allocate in this object
    // The layers its log line prints: llama_memory_recurrent prints the model's n_layer, the layers it
    // skips included ("64 layers" for Qwen3.5-27B's 48 recurrent ones in the stored logs
    // llamacpp-b9191plus-qwen35-hybrid-rs-2seqs.log, lmstudio-0.4.12-qwen36-27b-262144-4seqs.log and
    // llamacpp-llama-cpp-python-qwen35-rs-1seq.log); a KV cache its own.
    std::uint64_t log_layers = 0;
    std::uint64_t streams = 1;               // the log's "seqs" are n_seq_max / streams
    std::uint64_t k_bytes = 0, v_bytes = 0;  // recurrent: R and S
    std::uint64_t bytes = 0;
    std::string cells_rule;  // how the cells were found: "n_ctx_seq", "PAD(min(...), 256)"
};

struct LlamacppAllocation {
    std::uint64_t n_ctx_requested = 0;  // what llama.cpp was asked for (-c; Ollama: num_ctx x parallel)
    std::uint64_t n_ctx = 0, n_ctx_seq = 0, n_stream = 1, n_seq_max = 1;
    std::uint64_t n_batch = 0, n_ubatch = 0;  // after min(n_ctx, n_batch), min(n_batch, n_ubatch)
    std::uint64_t padding = 1;                // the build's PAD of n_ctx (1: none)
    std::string rule;                         // the build's context rule, in words
    std::vector<LlamacppObject> objects;
    std::uint64_t bytes = 0;
};

// One group's rows in llama.cpp: a layer's K and V bytes for one cell (V padded to the widest layer
// without flash attention), or its R and S state bytes for one sequence; and the object it is in.
struct LlamacppGroupRows {
    LlamacppCache cache = LlamacppCache::none;
    std::uint64_t k_row = 0, v_row = 0;      // elements-to-bytes of one cell of one layer
    std::uint64_t k_width = 0, v_width = 0;  // elements per cell (V as allocated)
    std::uint64_t state_r = 0, state_s = 0;  // bytes of one sequence's state in one layer
};

class LlamacppPlan {
public:
    // The model must be llama.cpp's view of it (llamacpp_model); it must outlive the plan. Errors
    // name what llama.cpp refuses: a head size that is not a whole number of the cache type's blocks
    // with flash attention, different K and V types for an MLA model (b10217+).
    static Result<LlamacppPlan> make(const ModelSpec& m, const LlamacppSettings& s);

    // What llama.cpp allocates when asked for n_ctx_requested cells (-c); `detail` adds the cells'
    // rules in words.
    Result<LlamacppAllocation> allocate(std::uint64_t n_ctx_requested, bool detail = false) const;

    const LlamacppSettings& settings() const { return s_; }
    const std::vector<LlamacppGroupRows>& groups() const { return rows_; }
    std::uint64_t cell_bytes() const { return base_cell_ + swa_cell_; }  // one cell of every attention layer
    std::uint64_t swa_cell_bytes() const { return swa_cell_; }
    std::uint64_t state_bytes() const { return state_r_ + state_s_; }  // one sequence, every recurrent layer
    std::uint64_t swa_window() const { return n_swa_; }

private:
    const ModelSpec* m_ = nullptr;
    LlamacppSettings s_;
    std::vector<LlamacppGroupRows> rows_;
    std::uint64_t base_k_ = 0, base_v_ = 0, swa_k_ = 0, swa_v_ = 0;  // one cell, all layers of the object
    std::uint64_t base_cell_ = 0, swa_cell_ = 0;
    std::uint64_t base_layers_ = 0, swa_layers_ = 0, recurrent_layers_ = 0;
    std::uint64_t state_r_ = 0, state_s_ = 0;
    std::uint64_t n_swa_ = 0;
    bool hybrid_ = false;  // attention and recurrent layers: llama_memory_hybrid
};

// "llama_kv_cache: size = 4352.00 MiB ( 32768 cells,  64 layers,  1/1 seqs), K (q8_0): 2176.00 MiB, V
// (q8_0): 2176.00 MiB" as the current build prints it (src/llama-kv-cache.cpp:299,
// llama-memory-recurrent.cpp), MiB to two decimals.
std::string llamacpp_log_line(const LlamacppObject& o, const LlamacppAllocation& a,
                              const LlamacppSettings& s);

}  // namespace kvcalc
