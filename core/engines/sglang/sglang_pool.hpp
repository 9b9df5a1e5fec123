// SGLang's KV pool: how it splits a hybrid model's pool (sliding-window layers, Mamba or
// linear-attention state) when it derives it from a GPU's memory, and its reading of the pool
// a startup log states (sglang_log_pool.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "check/engine_log.hpp"

#include "check/pool.hpp"
#include "sizing/sizing.hpp"

namespace kvcalc {

// SGLang's pools for a hybrid model (ENGINES.md section 2), from the pool's bytes on one GPU.
struct SglangPoolSplit {
    std::uint64_t state_share = 0;  // the Mamba / linear-attention state's bytes
    std::uint64_t kv_bytes = 0;     // what the attention layers' tokens get
    std::uint64_t pool_blocks = 0;  // pages of the full-attention layers' tokens
};
Result<SglangPoolSplit> sglang_split_pool(const PoolInputs& in, std::uint64_t pool_bytes);

// The derivation's steps of the split, after the pool's bytes.
void sglang_split_steps(const PoolInputs& in, const SglangPoolSplit& split, PoolResult& r);

struct LogInputs;
struct LogPool;

// The pool SGLang's log lines state, and its K / V sizes against kvcalc's (`r`: one request at
// the check's context, per GPU): into `out`.
void read_sglang_log_pool(const LogInputs& in, const SizeResult& r, LogPool& out);

// A pool smaller than the advertised context: what SGLang does with a prompt between the two, the
// issue reported of it under prefill-decode disaggregation (sgl-project/sglang#30233), and whether the
// log's version and mode are those of the report. Advice lines, and a warning where the log's
// deployment is the one the issue describes.
void sglang_short_pool_advice(const EngineLog& log, std::vector<std::string>& advice,
                              std::vector<Warning>& warnings);

}  // namespace kvcalc
