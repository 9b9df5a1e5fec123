// llama.cpp's settings for one deployment: the options as given, and for each one not given the
// default of the host that runs llama.cpp (llama-server, Ollama, LM Studio) at the build or release
// where that default held, with where it comes from (LLAMACPP.md 1.4, 4.1-4.3, 5).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/model.hpp"
#include "engines/llamacpp/ggml_type.hpp"

namespace kvcalc {

// The newest llama.cpp tag whose rules LLAMACPP.md read (b10573): "current" means its rules.
inline constexpr std::uint64_t llamacpp_current_build = 10573;
// Ollama v0.33.0's bundled llama.cpp (llm/llama_server.go LLAMA_CPP_VERSION, LLAMACPP.md 4.1).
inline constexpr std::uint64_t ollama_bundled_build = 10488;
// LLAMA_MAX_SEQ (src/llama-cparams.h): the most sequences a context takes.
inline constexpr std::uint64_t llamacpp_max_seq = 256;

enum class LlamacppHost { server, ollama, lmstudio };
const char* llamacpp_host_name(LlamacppHost h);  // "llama-server", "ollama", "lmstudio"

// llama.cpp's options as given (the option table's names); unset: the host's default.
struct LlamacppOptions {
    LlamacppHost host = LlamacppHost::server;
    std::optional<std::uint64_t> parallel, ubatch_size, build;
    std::optional<std::string> cache_type_k, cache_type_v, flash_attn, ollama_version;
    std::optional<bool> swa_full, kv_unified;
};

struct LlamacppSettings {
    LlamacppHost host = LlamacppHost::server;
    Sourced build;
    std::string ollama_version;  // engine ollama: "0.33.0"
    Sourced n_seq_max;
    bool kv_unified = false;
    std::string kv_unified_source;
    const GgmlType* type_k = nullptr;
    const GgmlType* type_v = nullptr;
    std::string type_k_source, type_v_source;
    std::string flash_attn;  // "on", "off", "auto"
    std::string flash_attn_source;
    bool fa_at_creation = true;  // cparams.flash_attn when the cache is created: auto counts as on
    bool swa_full = false;
    std::string swa_full_source;
    Sourced n_ubatch, n_batch;
    std::vector<Warning> warnings;  // the assumptions a reader should see
};

// The settings, checked (errors name the option): what llama.cpp itself refuses (more than 256
// sequences, a quantized V without flash attention) and what kvcalc does not model (Ollama before
// v0.30, options that do not exist in the build asked for).
Result<LlamacppSettings> llamacpp_settings(const LlamacppOptions& o);

// The context llama.cpp is asked for when none is given: llama-server's -c default of the build
// (n_ctx_train since b7416), Ollama's num_ctx, LM Studio's context length. With Ollama the value is
// num_ctx, per slot (ollama_n_ctx gives what llama-server gets).
Result<Sourced> llamacpp_default_context(const LlamacppSettings& s, const ModelSpec& m,
                                         std::vector<Warning>& warnings);

// Ollama launches llama-server with -c num_ctx x num_parallel, num_ctx clamped to the model's context
// length first (llm/server.go, llm/llama_server.go:369-377); other hosts pass the context as it is.
Result<std::uint64_t> llamacpp_n_ctx(const LlamacppSettings& s, const ModelSpec& m, std::uint64_t context,
                                     std::vector<Warning>* warnings);

}  // namespace kvcalc
