// The pool an engine's log states, read against the model: the engine's own figures (its
// pool in blocks or tokens, its concurrency, its refusal and estimate), kvcalc's derivation of
// the same figures from the memory the log states, and where the two disagree. The check's
// verdict follows the engine's figures unless asked to follow kvcalc's derivation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "check/engine_log.hpp"
#include "check/pool.hpp"
#include "config/json.hpp"
#include "config/model.hpp"
#include "engines/vllm/vllm_pool.hpp"
#include "sizing/sizing.hpp"

namespace kvcalc {

// One figure the engine printed, beside what kvcalc derives for it.
struct CrossCheck {
    std::string figure;  // "pool", "GPU KV cache size", "concurrency", ...
    std::string engine;  // what the engine said, as printed
    std::string kvcalc;  // what kvcalc derives, and from what
    bool agree = true;
    int line = 0;         // the engine's line
    std::string derived;  // kvcalc's figure alone: "323,938 to 323,993 blocks"
};

// The engine's own verdict on its max model length, when the log states one.
struct EngineVerdict {
    bool fits = false;
    std::uint64_t context = 0;                           // the engine's max model length
    std::optional<std::uint64_t> hundredths;             // its printed concurrency
    std::optional<std::uint64_t> estimated_max_context;  // its estimate, when it refused
    std::string said;                                    // "line 376: 58.11x", "line 12: refused to start"
};

struct LogInputs {
    const ModelSpec& m;
    const EngineLog& log;
    SizeOptions vllm_options;    // the check's options, accounting vllm, any context
    std::uint64_t block = 16;    // vLLM's block / SGLang's page
    std::uint64_t context = 0;   // the context checked
    bool follow_kvcalc = false;  // verdict_from kvcalc
};

struct LogPool {
    std::uint64_t tokens = 0;  // uniform vLLM: blocks x block; hybrid: every layer charged; SGLang: its pool
    std::optional<std::uint64_t> bytes;   // vLLM: blocks x one block's bytes, per GPU
    std::optional<std::uint64_t> blocks;  // vLLM's pool in blocks
    bool by_bytes = false;                // the verdict compares bytes (hybrid vLLM layouts)
    bool concurrency_in_blocks = false;   // vLLM V1: blocks over one request's blocks
    std::string source;
    std::optional<VllmLayout> layout;
    std::optional<std::uint64_t> blocks_per_request;       // at the engine's max model length
    std::optional<std::uint64_t> engine_low, engine_high;  // the blocks the engine's lines allow
    std::optional<std::uint64_t> memory_low, memory_high;  // the blocks the logged memory allows
    std::vector<CrossCheck> checks;
    std::optional<EngineVerdict> engine_verdict;
    std::optional<std::uint64_t> max_requests;  // SGLang runs at most this many requests at once
    std::string max_requests_source;
    std::vector<Warning> warnings;
    std::vector<std::string> notes;  // how the pool was read, in order
};

Result<LogPool> read_log_pool(const LogInputs& in);

// [{"figure", "engine", "kvcalc", "kvcalc_figure", "agree", "line", "text"}, ...]: each figure the
// engine printed beside kvcalc's, and a sentence saying whether they agree.
json cross_checks_json(const std::vector<CrossCheck>& checks);

// [{"line", "what", "text", "repeats"}, ...]: the lines an engine log's reader used.
json findings_json(const std::vector<LogFinding>& findings);

// Bytes as the engines print them in their logs (vLLM's format_gib, SGLang's GB of 2^30): GiB to
// two decimals, "58.11 GiB".
std::string log_gib(std::uint64_t bytes);

// The longest context whose request (vLLM accounting, per GPU) fits `bytes`, capped at `cap`
// (0: no cap); 0 when not even one token fits.
std::uint64_t longest_fitting(const SizePlan& plan, std::uint64_t bytes, std::uint64_t cap,
                              std::uint64_t n = 1);

}  // namespace kvcalc
