// The JSON reports: the one shape the CLI prints with --json and the JS API returns
// (there with camelCase keys), so the two agree by construction.
#pragma once

#include "json.hpp"
#include "model.hpp"
#include "sizing.hpp"

namespace kvcalc {

// {"error": {"code", "message", "field"[, "line", "column"]}}
json error_report(const Error& e);

// to_text(error_report(e)); the second frees the error.
std::string error_text(const Error& e);
std::string error_text(Failure f);

// "GQA", "MHA", "MQA", "MLA", with ", sliding window" / ", chunked local" / " + linear
// state (mamba2)" where the model has such layers.
std::string attention_kind(const ModelSpec& m);

json size_report(const ModelSpec& m, const SizeResult& r);

// Options from a JSON object: context, batch, kv_dtype, tp, pp, block_size, accounting,
// max_num_batched_tokens, shared_prefix. Unknown keys and bad values are errors.
Result<SizeOptions> size_options_from_json(const json& options);

// [{"field", "message"}, ...]
json warnings_json(const std::vector<Warning>& warnings);

}  // namespace kvcalc
