// The check: an advertised max context against the KV pool an engine really has. Does one
// max-length request fit, how many fit at once, and which context is safe to advertise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "check/pool.hpp"
#include "config/model.hpp"

namespace kvcalc {

// vLLM's admission in bytes, for a model whose layers keep different numbers of tokens
// (sliding or chunked windows, linear state) when the pool's bytes are known: the pool in
// tokens would charge every layer for every token. Figures per GPU, in the check's accounting.
struct PoolBytes {
    std::uint64_t pool = 0;         // the pool's bytes
    std::uint64_t request = 0;      // one max-length request's bytes
    std::uint64_t max_context = 0;  // the longest request that fits, capped at the model's max
    std::string max_context_source;
    std::optional<std::uint64_t> at_concurrency;  // the longest such that `concurrency` fit at once
};

// The engine's own verdict on the context checked, which the check follows: whether it
// started with that max model length, the concurrency it printed, and its estimate of the
// longest that fits when it refused.
struct EngineSaid {
    bool fits = false;
    std::optional<std::uint64_t> hundredths;
    std::optional<std::uint64_t> max_context;
    std::string source;
};

struct CheckInputs {
    std::uint64_t pool_tokens = 0;
    std::string pool_source;
    std::uint64_t max_context = 0;  // what the deployment advertises
    std::string max_context_source;
    std::optional<std::uint64_t> concurrency;  // target number of max-length requests at once
    std::uint64_t block_size = 16;             // vLLM block / SGLang page
    std::string block_size_source;
    std::uint64_t model_max_context = 0;  // the model's own max (0: unknown)
    std::string model_max_context_source;
    Engine engine = Engine::vllm;
    std::optional<PoolBytes> bytes;  // set: fits, concurrency and safe context go by bytes
    // vLLM V1's concurrency: the pool's blocks over one request's, not tokens over the context.
    bool concurrency_in_blocks = false;
    std::optional<EngineSaid> engine_said;
    std::optional<std::uint64_t> max_requests;  // the engine holds at most this many requests at once
    std::string max_requests_source;
};

struct CheckResult {
    bool fits = false;                             // one max-length request fits the pool
    const char* fits_by = "tokens";                // "bytes" when CheckInputs::bytes was set
    std::string verdict_source = "kvcalc";         // or the engine's own verdict it follows
    std::uint64_t blocks_available = 0;            // floor(pool / block)
    std::uint64_t blocks_needed = 0;               // cdiv(max_context, block), one request
    std::uint64_t max_concurrency_hundredths = 0;  // pool / max_context, as vLLM's %.2f prints it
    std::string max_concurrency_text;              // "0.65"
    std::uint64_t max_safe_context = 0;            // the pool in whole blocks, capped at the model's max
    std::string max_safe_context_source;
    std::optional<bool> concurrency_fits;
    std::optional<std::uint64_t> max_context_at_concurrency;
    std::vector<std::string> advice;
    std::vector<Warning> warnings;
};

Result<CheckResult> check_pool(const CheckInputs& in);

// What printf("%.2f", double(num) / double(den)) prints, times 100, computed exactly in
// integers: round to nearest, and on an exact tie between two hundredths the direction the
// double's own rounding gives (half-even when the tie is representable, as printf does).
std::uint64_t printf_hundredths(std::uint64_t num, std::uint64_t den);

// 65 -> "0.65", 6497 -> "64.97".
std::string hundredths_text(std::uint64_t h);

}  // namespace kvcalc
