// Reading an engine's startup log as operators paste it: whole logs of any length, with
// colour codes, CRLF, process and rank prefixes, timestamps, and lines that Markdown cut or
// joined. Every figure a vLLM (V0 and V1, across releases) or SGLang line states is kept with
// the line it came from, so the check can use each one and cross-check it against what kvcalc
// derives. A hand-written scanner (no std::regex: it would weigh on the wasm module).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "result.hpp"

namespace kvcalc {

// A whole number a line states, and that line (1-based).
struct LogCount {
    std::uint64_t value = 0;
    int line = 0;
};

// A memory figure as printed ("58.11 GiB"). The engines print bytes / 2^30 rounded to two
// decimals (SGLang's "GB" too), so the bytes behind it lie in [low, high].
struct LogMemory {
    std::uint64_t bytes = 0;          // the printed figure in bytes, rounded down
    std::uint64_t low = 0, high = 0;  // bytes
    std::string text;                 // "58.11 GiB", as printed
    int line = 0;
};

// vLLM's "Maximum concurrency for N tokens per request: X x".
struct LogConcurrency {
    std::uint64_t context = 0;
    std::optional<std::uint64_t> hundredths;  // none when the line is cut before its figure
    int line = 0;
};

// vLLM V1's refusal to start: "To serve at least one request with the models's max seq len
// (N), (X GiB KV cache is needed, which is larger than the available KV cache memory (Y GiB).
// Based on the available memory, the estimated maximum model length is M." Any part may be
// missing from a cut paste.
struct LogRefusal {
    std::optional<std::uint64_t> max_model_len;
    std::optional<LogMemory> needed;
    std::optional<LogMemory> available;
    std::optional<std::uint64_t> estimated_max_len;
    bool cut = false;  // the message ends before its estimate
    int line = 0;
};

// One line the reader used, and what it said.
struct LogFinding {
    int line = 0;      // 1-based
    int repeats = 0;   // further lines that said the same (every rank prints its own)
    std::string what;  // "vLLM GPU KV cache size: 681,280 tokens"
    std::string text;  // the line itself, without colour codes (at most 240 characters)
};

struct EngineLog {
    std::string engine;   // "vllm", "sglang", or "" when no line names one
    std::string version;  // "0.19.0" as the log states it, or ""
    int version_line = 0;
    bool v0 = false;  // vLLM's V0 engine (its profiling and block lines)

    // vLLM
    std::optional<LogCount> pool_tokens;  // "GPU KV cache size: N tokens" (the last start's)
    std::optional<LogCount> gpu_blocks;   // "# GPU blocks: N", "num_gpu_blocks is: N", a real override
    std::string gpu_blocks_what;          // which of those
    std::optional<LogMemory> kv_memory;   // per GPU: the smallest any rank of the last start logged
    std::string kv_memory_what;
    std::optional<LogConcurrency> concurrency;
    std::optional<LogRefusal> refusal;
    std::optional<LogCount> v0_refusal_tokens;  // V0: "... stored in KV cache (N)"
    bool no_memory = false;                     // "No available memory for the cache blocks"
    std::optional<LogCount> padding_layers;     // "Add N padding layers"
    std::optional<LogCount> cp_multiplier;      // "Multiplying the GPU KV cache size by the dcp_world_size N"
    std::optional<LogCount> block_size;         // "--block-size N", "Forcing kv cache block size to N"
    std::optional<LogCount> max_num_batched_tokens;
    std::optional<LogCount> num_speculative_tokens;  // speculative_config's, in the args
    std::string mamba_cache_mode;                    // "align", "all", "none" when the args state it
    int mamba_cache_mode_line = 0;
    int prefix_caching_line = 0;            // the line whose args say enable_prefix_caching True (0: none)
    std::optional<LogCount> auto_fit_from;  // "Auto-fit max_model_len: reduced from A to B"

    // What the deployment was: the figure, the line, and which wording stated it.
    std::optional<LogCount> max_model_len;
    std::string max_model_len_what;
    std::optional<LogCount> tp, pp;
    std::string tp_what, pp_what;
    unsigned tp_ranks_seen = 0;  // TP0..TPn-1 in the rank prefixes, all of them; 0: none or gaps
    unsigned tp_rank_max = 0;    // the highest TP rank any prefix names, plus one
    std::string kv_cache_dtype;  // as stated: "fp8", "auto", ...
    int kv_cache_dtype_line = 0;
    // MiniMax-M3's indexer keys: "bf16", "fp8" or "fp8_e4m3" ("MiniMax M3 indexer: selected ...
    // [topk_blocks=16, indexer_kv_dtype=bf16]"), else empty.
    std::string indexer_kv_dtype;
    int indexer_kv_dtype_line = 0;
    std::string model_dtype;  // "float32", "bfloat16", ... (vLLM's dtype=torch.X)
    int model_dtype_line = 0;

    // SGLang
    std::optional<LogCount> sglang_tokens;  // "KV Cache is allocated. #tokens: N"
    std::optional<LogMemory> k_size, v_size, kv_size;
    std::optional<LogCount> max_total_num_tokens, context_len, max_running_requests;
    std::optional<LogCount> full_layer_tokens, swa_layer_tokens;
    std::optional<LogCount> mamba_cache_size;
    std::optional<LogCount> page_size;
    // Prefill-decode disaggregation: "prefill", "decode" or "null" (not disaggregated), as the server args
    // state it, or "".
    std::string disaggregation_mode;
    int disaggregation_mode_line = 0;

    std::vector<LogFinding> understood;  // every line used, in order
    std::vector<std::string> notes;      // what the reader left out, and why
};

// A log with no line that states a pool (tokens, blocks, memory, or a refusal) is an
// unrecognised_log error that says what was looked for and which lines were understood.
// Lines of both engines in one paste are an error too, unless `engine` names the one to read.
Result<EngineLog> parse_engine_log(std::string_view text, std::string_view engine = {});

}  // namespace kvcalc
