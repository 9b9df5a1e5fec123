// Reading an engine's startup log for its KV pool: the vLLM and SGLang lines that state the
// pool in tokens, blocks or bytes, the max context and the concurrency. A hand-written
// scanner (no std::regex: it would weigh on the wasm module); timestamps, log prefixes,
// colour codes and thousands separators around the numbers are fine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result.hpp"

namespace kvcalc {

struct LogFinding {
    int line = 0;      // 1-based
    std::string what;  // what the line gave: "vLLM GPU KV cache size: 681,280 tokens"
    std::string text;  // the line itself, trimmed (at most 240 characters)
};

struct EngineLog {
    std::string engine;                        // "vllm", "sglang", or "" when unknown
    std::optional<std::uint64_t> pool_tokens;  // the engine's own token count (last one logged)
    std::string pool_tokens_source;
    std::optional<std::uint64_t> gpu_blocks;  // vLLM V0 "# GPU blocks: N"
    std::string gpu_blocks_source;
    std::optional<std::uint64_t> kv_memory_bytes;  // per GPU; the smallest any rank logged
    std::string kv_memory_text;                    // "43.21 GiB", as logged
    std::string kv_memory_source;
    std::optional<std::uint64_t> max_model_len;  // the engine's max context
    std::string max_model_len_source;
    std::optional<std::uint64_t> concurrency_hundredths;  // vLLM's "Maximum concurrency ... 0.65x"
    std::optional<std::uint64_t> full_layer_tokens;       // SGLang hybrid sliding-window pools
    std::optional<std::uint64_t> swa_layer_tokens;
    std::optional<std::uint64_t> mamba_cache_size;  // SGLang: concurrent Mamba states
    std::vector<LogFinding> understood;
};

// Every line the scanner understood, with what it gave. A log with no line that states a
// pool (tokens, blocks or memory) is an unrecognised_log error that says what was looked
// for and which lines were understood.
Result<EngineLog> parse_engine_log(std::string_view text);

}  // namespace kvcalc
