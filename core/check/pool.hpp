// The KV pool an engine will allocate on one GPU, derived as the engines do it:
//   vLLM    total x gpu_memory_utilization - weights - activation peak - non-torch memory
//   SGLang  total x mem_fraction_static - weights - non-torch memory
// (SGLang keeps its activation and CUDA-graph reserve inside 1 - mem_fraction_static.)
// Every assumption is an input with a visible default, and every step is written out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engines/engine.hpp"
#include "result.hpp"
#include "sizing/sizing.hpp"

namespace kvcalc {

// An exact decimal fraction: "0.9" is 9/10, "0.925" is 925/1000. Never a float.
struct Fraction {
    std::uint64_t num = 0;
    std::uint64_t den = 1;
    std::string text;  // as given, normalised ("0.9")
};

// A decimal in (0, 1] with at most 6 decimals; errors name `field`.
Result<Fraction> parse_fraction(std::string_view text, const std::string& field);

// "79.11GiB", "1.5 GiB", "512MiB", "80GB" (decimal units, labelled), "536870912" (bytes).
// Rounded down to a whole byte; at most 6 decimals.
Result<std::uint64_t> parse_byte_size(std::string_view text, const std::string& field);

// Defaults, all shown by the reports. Activation and non-torch are rounded up from vLLM's
// own profile of Llama-3.1-8B on an H100 at max_num_batched_tokens 8192 (activation peak
// 1.19-1.24 GiB, non-torch 0.12-0.35 GiB); bigger batches and TP all-reduce buffers need more.
inline constexpr std::uint64_t default_activation_peak_bytes = (std::uint64_t{3} << 30) / 2;  // 1.5 GiB
inline constexpr std::uint64_t default_non_torch_bytes = std::uint64_t{1} << 29;              // 0.5 GiB
inline constexpr const char* default_vllm_utilization = "0.9";  // vLLM v0.9-v0.1x (later docs: 0.92)
inline constexpr const char* default_sglang_fraction =
    "0.88";  // SGLang's fallback when it cannot size the GPU

struct PoolInputs {
    Engine engine = Engine::vllm;
    std::uint64_t gpu_memory_bytes = 0;  // one GPU
    std::string gpu_source;
    Fraction fraction;  // gpu_memory_utilization / mem_fraction_static
    std::string fraction_source;
    std::uint64_t activation_peak_bytes = default_activation_peak_bytes;  // vLLM only
    std::string activation_source = "default 1.5 GiB";
    std::uint64_t non_torch_bytes = default_non_torch_bytes;
    std::string non_torch_source = "default 0.5 GiB";
    std::uint64_t weight_bytes_per_gpu = 0;
    std::string weight_source;
    std::uint64_t bytes_per_token_per_gpu = 0;  // every cached layer of the busiest stage
    std::uint64_t block_size = 16;              // vLLM block / SGLang page
    // SGLang's pools for hybrid models (ENGINES.md section 2). With sliding layers, the part
    // of bytes_per_token_per_gpu that is theirs: the pool is split so that they hold 0.8 of
    // the full layers' tokens (--swa-full-tokens-ratio). With Mamba or linear-attention layers,
    // their state takes 0.9 / 1.9 of the pool first (mamba_full_memory_ratio).
    std::uint64_t sglang_sliding_bytes_per_token = 0;
    bool sglang_state = false;
};

struct PoolResult {
    Engine engine = Engine::vllm;
    std::uint64_t requested_bytes = 0;     // total x fraction, rounded down
    std::uint64_t reserved_bytes = 0;      // weights + activation + non-torch
    std::uint64_t pool_bytes_per_gpu = 0;  // what is left for the KV cache; 0 when nothing is
    bool memory_left = true;               // false: the reservations exceed the requested memory
    std::uint64_t pool_blocks = 0;
    std::uint64_t pool_tokens = 0;   // pool_blocks x block_size
    std::vector<std::string> steps;  // the arithmetic, one line per step
};

// floor(bytes / (block x per_token)) x block: whole blocks only, as vLLM sizes its pool
// (SGLang rounds to its page size the same way).
std::uint64_t tokens_in_bytes(std::uint64_t bytes, std::uint64_t per_token, std::uint64_t block);

Result<PoolResult> derive_pool(const PoolInputs& in);

}  // namespace kvcalc
