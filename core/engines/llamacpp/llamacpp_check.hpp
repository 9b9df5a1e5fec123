// The check with engine llamacpp (ollama, lmstudio): does the context a deployment advertises fit
// each slot of the cache llama.cpp allocates for its -c and slots? A slot of llama-server holds
// n_ctx_seq cells (before b5913, n_ctx / n_parallel of the one shared cache), capped at the model's
// training context. With the engine's startup log, the settings are the log's and every figure it
// printed is held against kvcalc's.
#pragma once

#include "config/json.hpp"
#include "engines/llamacpp/llamacpp_log.hpp"
#include "options.hpp"
#include "session.hpp"

namespace kvcalc {

// `log`: the engine log as parse_llamacpp_log read it, or nullptr.
Result<json> llamacpp_check_report(const Model& model, const Options& o, const LlamaLog* log);

}  // namespace kvcalc
