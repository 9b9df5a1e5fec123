// A llama.cpp, Ollama or LM Studio startup log held against the model: the configuration the log
// states (its context, slots, streams, cache types, flash attention, swa_full and build), what
// kvcalc's llama.cpp accounting allocates for that build and those settings, and every figure the
// log printed beside kvcalc's, to the log's printed precision.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "check/check_log.hpp"  // CrossCheck
#include "engines/llamacpp/llamacpp_cache.hpp"
#include "engines/llamacpp/llamacpp_log.hpp"
#include "options.hpp"

namespace kvcalc {

// The deployment a log describes, read against the model.
struct LlamaLogReading {
    std::string engine;   // "llamacpp", "ollama", "lmstudio"
    std::string version;  // "build 6699", "Ollama 0.9.6", or ""
    // The builds the lines fit (the build they print, else the era their wording dates from), and the one
    // whose rules kvcalc applied.
    std::uint64_t build_low = 0, build_high = 0, build = 0;
    std::string build_from;
    Sourced n_ctx, n_seq_max, n_ubatch, n_batch;
    bool kv_unified = false, flash_attn = false, swa_full = false;
    std::string kv_unified_from, flash_attn_from, swa_full_from;
    std::string type_k, type_v, types_from;
    std::shared_ptr<const ModelSpec> view;     // the model as llama.cpp sees it at that build
    std::shared_ptr<const LlamacppPlan> plan;  // its plan (it points into view)
    LlamacppAllocation alloc;                  // kvcalc's allocation for those settings
    // What the engine allocated, as printed where it printed it (else kvcalc's): a slot's cells.
    Sourced slot_cells;
    std::optional<std::uint64_t> n_ctx_train;  // the model's, which llama-server caps a slot at
    std::vector<CrossCheck> checks;
    std::vector<Warning> warnings;
    std::vector<std::string> notes;
    // The context the deployment serves a request, when no max_context is given: Ollama's num_ctx, else
    // llama.cpp's -c (n_ctx), as the log states it.
    Sourced advertised;
};

// Reads `log` against the model (`model` is the config's reading; the check maps it to llama.cpp's view).
// Options given (parallel, cache types, flash_attn, swa_full, ubatch_size, kv_unified, llamacpp_build,
// context) fill or override what the log states; where one disagrees with the log, a warning says so.
Result<LlamaLogReading> read_llamacpp_log(const ModelSpec& model, const LlamaLog& log, const Options& o);

}  // namespace kvcalc
