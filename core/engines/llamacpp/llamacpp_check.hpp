// The check with engine llamacpp (ollama, lmstudio): does the context a deployment advertises fit
// each slot of the cache llama.cpp allocates for its -c and slots? A slot of llama-server holds
// n_ctx_seq cells, capped at the model's training context.
#pragma once

#include "config/json.hpp"
#include "options.hpp"
#include "session.hpp"

namespace kvcalc {

Result<json> llamacpp_check_report(const Model& model, const Options& o);

}  // namespace kvcalc
